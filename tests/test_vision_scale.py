"""The frame's scale is judged from its cards, even where many lie side by side: at the coarse
size a whole deck laid out merges into a few large boxes, and the frame must not be read at
the size those boxes call for (it would see few indices or none)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.deck import CODES, Deck
from vision.recognizer import Recognizer
from vision.scene import CardPlacement, TableBackground, render

DECK = "bellot-lgpl21"  # the held-out design: its cards merge at the coarse size on pale tables


def _laid_out(kind: str, rows: bool):
    """A 1920x1080 table of `kind` with all 52 cards 200 px tall: four rows of 13, slightly
    overlapping, or spread evenly over the whole table. The frame and its exact labels."""
    rng = np.random.default_rng(7)
    bg = TableBackground.random(rng, (1920, 1080), kind=kind)
    dx, dy = 1880 / 13, 1040 / 4
    cards = []
    for i, code in enumerate(CODES):
        k, r = i % 13, i // 13
        x, y = (80 + k * 135, 150 + r * 260) if rows else (20 + dx * (k + 0.5), 20 + dy * (r + 0.5))
        cards.append(CardPlacement(code, (float(x), float(y)), float(rng.normal(0, 8)), 200.0))
    return render(bg, Deck.load(DECK), cards, rng)


def _named_right(dets, labels) -> int:
    """Reads whose box centre lies on the card they name (cards overlap in rows: it may lie
    under a neighbour there)."""
    where = {lab.code: np.float32(lab.quad) for lab in labels}
    right = 0
    for d in dets:
        centre = ((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2)
        right += d.code in where and cv2.pointPolygonTest(where[d.code], centre, False) >= 0
    return right


@pytest.mark.parametrize(("kind", "rows"), [("laminate", True), ("cloth", False), ("cloth", True)])
def test_a_deck_laid_out_is_read_at_its_cards_scale(kind, rows) -> None:
    img, labels = _laid_out(kind, rows)
    dets = Recognizer().recognize(img)  # as the table controller reads a frame
    # read at the size the merged boxes called for (or, on cloth rows, where the coarse pass
    # saw no card, at the fallback size), 20 (laminate, rows), 6 (cloth, spread) and 22 (cloth,
    # rows) of the 52 were named on their card (2026-12-04); now 35, 37 and 35
    assert _named_right(dets, labels) >= 30, len(dets)


def test_the_scale_follows_the_cards_not_the_merged_boxes(monkeypatch) -> None:
    """Read at a detector size that makes a 200 px card about `card_px` long (1920 x 100 /
    200 = 960 for video reads), not the few hundred px the merged boxes call for."""
    sizes: list[int] = []
    real = Recognizer._run_detector

    def spy(self, frame, det_size, region=None, weak=False, **kw):
        sizes.append(det_size)
        return real(self, frame, det_size, region, weak, **kw)

    monkeypatch.setattr(Recognizer, "_run_detector", spy)
    rec = Recognizer()
    for kind, rows in (("laminate", True), ("cloth", False), ("cloth", True)):
        sizes.clear()
        rec.recognize(_laid_out(kind, rows)[0])
        assert sizes[0] == Recognizer.COARSE_SIZE
        assert 700 <= sizes[-1] <= 1280, (kind, sizes)  # the pass the cards are read from
