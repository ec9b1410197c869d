"""Synthetic deck designs (indices redrawn in other typefaces) and the recogniser's choice of
detector scale: the two things that let it read decks and cameras it was not trained on."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.deck import CODES, Deck
from vision.last_look import SIZES as LAST_LOOK_SIZES
from vision.recognizer import Recognizer
from vision.synthdeck import PIP_VARIANTS, IndexStyle, PipStyle, atlas, restyle_face, synth_deck

DATA = Path(__file__).parent / "data" / "vision"


def test_the_glyph_atlas_has_every_rank_and_suit_in_many_typefaces():
    masks, rank_fonts, suit_fonts = atlas()
    assert len(rank_fonts) >= 100 and len(suit_fonts) >= 35
    for font in rank_fonts:
        assert all(f"{font}|{r}" in masks for r in "A23456789TJQK")
    for font in suit_fonts:
        assert all(f"{font}|{s}" in masks for s in "SHDC")


def _ink(img: np.ndarray, box, red: bool) -> int:
    x1, y1, x2, y2 = (int(v) for v in box)
    b, g, r = (img[y1:y2, x1:x2, k].astype(int) for k in range(3))
    return int(((r - np.maximum(b, g) > 80) if red else ((r < 90) & (g < 90) & (b < 90))).sum())


def test_a_restyled_card_prints_its_new_index_in_both_corners():
    base = Deck.load("kennard-cc0-2color").faces["7D"]
    style = IndexStyle.random(np.random.default_rng(4))
    style.four_corners = False
    face = restyle_face(base, style)
    h, w = face.image.shape[:2]
    assert face.image.shape == base.image.shape
    tl, br = face.indices
    # the bottom-right index is the top-left one turned half a turn about the card's centre
    assert br == pytest.approx((w - tl[2], h - tl[3], w - tl[0], h - tl[1]))
    area = (tl[2] - tl[0]) * (tl[3] - tl[1])
    assert 0.002 * w * h < area < 0.08 * w * h
    # a diamond is red: there is red ink in both new index boxes and no black ink
    for box in (tl, br):
        assert _ink(face.image, box, red=True) > 0.05 * area
        assert _ink(face.image, box, red=False) == 0


def test_a_synthetic_design_is_a_whole_deck_in_one_style():
    deck = synth_deck(np.random.default_rng(1), Deck.load("aguilar-lgpl3"))
    assert sorted(deck.faces) == sorted(CODES)
    sizes = {tuple(round(v) for v in f.indices[0][2:]) for f in deck.faces.values()}
    # one typeface and one size for the deck: index boxes end in roughly the same place
    corners = np.array(sorted(sizes), float)
    assert np.ptp(corners[:, 1]) < 0.1 * deck.faces["AS"].image.shape[0]


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


PIPS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10}


@pytest.mark.parametrize("layout", ["standard", "variant"])
def test_a_synthetic_pip_design_prints_as_many_pips_as_the_rank_says(layout):
    # what the face reader learns from: a number card shows its value in pips (RULES.md R2.1:
    # A = 1, 2-10 = face value), whatever their shape, size or arrangement
    rng = np.random.default_rng(11)
    style = IndexStyle.random(rng)
    pips = PipStyle.random(rng, style.suit_font)
    pips.size, pips.bold_px = 0.09, 0
    if layout == "variant":
        pips.layouts.update({rank: spots[0] for rank, spots in PIP_VARIANTS.items()})
    base = Deck.load("kennard-cc0-2color")
    for rank, count in PIPS.items():
        for suit in "SD":
            face = restyle_face(base.faces[rank + suit], style, pips)
            img = face.image
            h, w = img.shape[:2]
            # the middle of the card, clear of the corner indices: only pips are inked there
            inner = img[int(0.1 * h) : int(0.9 * h), int(0.2 * w) : int(0.8 * w), :3]
            ink = (inner.astype(np.int32).min(axis=2) < 150).astype(np.uint8)
            n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
            blobs = int(np.sum(stats[1:, cv2.CC_STAT_AREA] > 0.3 * stats[1:, 4].max()))
            assert blobs == count, (rank + suit, layout, blobs)


def test_a_close_up_photo_is_read_at_a_small_detector_size(rec):
    # a phone photo of one card filling the frame: the detector must see it shrunk, as trained
    img = cv2.imread(str(DATA / "real" / "IMG_20220921_193915_jpg.jpg"))
    assert rec.scale_for(img) <= 320


def test_a_table_frame_is_read_near_full_resolution(rec):
    # 1280x720 overhead frame, cards about a sixth of its height: read at 640 px or more
    img = cv2.imread(str(DATA / "rendered_bellot_0.jpg"))
    assert 640 <= rec.scale_for(img) <= 1280


def test_a_fixed_detector_size_is_kept():
    assert Recognizer(det_size=512).scale_for(np.zeros((720, 1280, 3), np.uint8)) == 512


def test_the_fitted_pass_reads_only_the_part_of_the_frame_with_cards(rec):
    # a table frame whose cards lie in its middle: the fitted pass reads a region around what
    # the coarse pass saw, not the bare table around it, and finds the same cards as a pass
    # over the whole frame
    frame = cv2.imread(str(DATA / "rendered_bellot_0.jpg"))
    region = rec._region(frame, rec._run_detector(frame, rec.COARSE_SIZE))
    assert region is not None
    x1, y1, x2, y2 = region
    assert (x2 - x1) * (y2 - y1) < 0.7 * 1280 * 720
    whole = Recognizer()
    whole.roi = False
    everywhere = whole.recognize(frame)
    truth = set(json.loads((DATA / "rendered_truth.json").read_text())["rendered_bellot_0.jpg"])
    assert len([d for d in everywhere if d.code in truth]) >= 4
    assert len([d for d in everywhere if d.code not in truth]) <= 1
    for d in everywhere:  # every true card the whole pass found lies inside the region (its
        # one false read, a JC 0.18 at the frame's top edge, lies beyond: the region spares it)
        if d.code in truth:
            assert x1 <= (d.box[0] + d.box[2]) / 2 <= x2
            assert y1 <= (d.box[1] + d.box[3]) / 2 <= y2
    # as many true cards read, but for one borderline read (the cut-out's edges are padded: a
    # card read 0.13 sure over the whole frame, just above the 0.1 floor, may fall under it)
    found = {d.code for d in rec.recognize(frame)} & truth
    assert len(found) >= len({d.code for d in everywhere} & truth) - 1
    assert len(found) >= 4


def _detector_sizes(rec: Recognizer, frame) -> tuple[list, list[int]]:
    sizes: list[int] = []
    run = rec._run_detector

    def spy(f, size, region=None, **kw):
        sizes.append(size)
        return run(f, size, region, **kw)

    rec._run_detector = spy
    try:
        return rec.recognize(frame), sizes
    finally:
        rec._run_detector = run


def test_a_card_seen_without_its_index_is_looked_at_again_larger():
    # a real overhead photo (edje, 378x504: one king of spades 190 px long) and a detector that
    # sees the card but not its small indices at the fitted scale: it is read again twice as
    # large (at most its own size, 512 px) and only the indices found inside that card join
    frame = cv2.imread(str(DATA / "real" / "edje_IMG_2388.jpg"))
    rec = Recognizer(still=True)  # a photo, as `recognize` reads it
    rec.small_look = 1.0  # the look larger alone (the smaller pass: test_vision_cleanup.py)
    rec.mirror_look = rec.turn_look = 0.0  # (the other views: test_vision_views.py)
    run = rec._run_detector
    card = np.array([[68.0, 213.0, 227.0, 411.0]], np.float32)
    inside = np.array([[75.0, 218.0, 100.0, 262.0]], np.float32)  # the king's top-left index
    outside = np.array([[300.0, 40.0, 330.0, 90.0]], np.float32)  # carpet, far from any card
    sizes: list[int] = []

    def detector(f, size, region=None, **kw):
        sizes.append(size)
        if size == rec.COARSE_SIZE:
            return run(f, size, region, **kw)
        none = np.zeros((0, 4), np.float32)
        if size < 512:  # the fitted pass: the card, no index
            return [none, np.zeros(0, np.float32), card, np.array([0.8], np.float32)]
        both = np.concatenate([inside, outside])
        return [both, np.array([0.6, 0.6], np.float32), card, np.array([0.8], np.float32)]

    rec._run_detector = detector
    idx, _conf, cards, _card_conf = rec._detect_scaled(frame)
    assert sizes[0] == rec.COARSE_SIZE and sizes[1] < 512 and sizes[-1] == 512
    assert idx.tolist() == inside.tolist() and cards.tolist() == card.tolist()
    # the real models on that photo read the king
    rec._run_detector = run
    assert [c.code for c in rec.recognize(frame)] == ["KS"]


def test_a_frame_whose_cards_all_show_an_index_is_not_looked_at_larger():
    # the rendered table frame read as a photo: every card the fitted pass finds has an index
    # in it, so no pass larger is spent on it (the coarse, the fitted, the smaller pass of
    # still reads, 0.7x the fitted size, the mirrored one at that size and the turned one at
    # the fitted size, then the last look's fixed sizes); video reads never look again, nor
    # smaller
    frame = cv2.imread(str(DATA / "rendered_bellot_1.jpg"))
    _cards, sizes = _detector_sizes(Recognizer(still=True), frame)
    assert sizes[5:] == list(LAST_LOOK_SIZES)
    sizes = sizes[:5]
    assert sizes[2] == sizes[3] == round(sizes[1] * 0.7 / 32) * 32 < sizes[1]
    assert sizes[4] == sizes[1]
    assert len(_detector_sizes(Recognizer(), frame)[1]) == 2
    assert Recognizer().bare_look == 1.0 and Recognizer(still=True).bare_look > 1.0
