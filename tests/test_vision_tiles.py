"""Detector frames cut from rendered café tables (`vision.dataset.write_table_tiles`): square
tiles at the still reads' scale, every label inside its tile, the same draw for the same seed."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dataset import write_table_tiles


def _labels(root, split="train"):
    out = {}
    for path in sorted((root / "labels" / split).glob("*.txt")):
        rows = [list(map(float, line.split())) for line in path.read_text().splitlines() if line]
        out[path.stem] = rows
    return out


def test_tiles_are_square_and_their_labels_lie_inside(tmp_path) -> None:
    made = write_table_tiles(tmp_path, "train", ["knoll-pd"], 6, seed=3, tile=320, card_px=162)
    images = sorted((tmp_path / "images" / "train").glob("*.jpg"))
    assert made["images"] == 6 and len(images) == 6
    labels = _labels(tmp_path)
    assert set(labels) == {p.stem for p in images}
    for p in images:
        assert cv2.imread(str(p)).shape == (320, 320, 3)
    rows = [r for rs in labels.values() for r in rs]
    assert made["indices"] == sum(r[0] == 0 for r in rows) > 0
    assert made["cards"] == sum(r[0] == 1 for r in rows) > 0
    for cls, x, y, w, h in rows:
        assert cls in (0, 1)
        assert -1e-6 <= x - w / 2 < x + w / 2 <= 1 + 1e-6
        assert -1e-6 <= y - h / 2 < y + h / 2 <= 1 + 1e-6


def _whole_cards(rows) -> list[float]:
    """Long sides (px) of the card boxes lying whole inside their tile (none cut by its edge)."""
    inside = [r for r in rows if r[0] == 1]
    inside = [r for r in inside if min(r[1] - r[3] / 2, r[2] - r[4] / 2) > 0.01]
    inside = [r for r in inside if max(r[1] + r[3] / 2, r[2] + r[4] / 2) < 0.99]
    return [max(r[3], r[4]) * 320 for r in inside]


def test_cards_come_at_the_asked_scale(tmp_path) -> None:
    """A card's long side is `card_px` (within the 0.85-1.15 jitter and the box a turned card
    fills), measured on the card boxes that lie whole in their tile."""
    write_table_tiles(tmp_path, "train", ["aguilar-lgpl3"], 10, seed=4, tile=320, card_px=162)
    rows = [r for rs in _labels(tmp_path).values() for r in rs]
    cards = _whole_cards(rows)
    assert 0.8 * 162 <= float(np.median(cards)) <= 1.5 * 162
    # and at 100 px the same tables' cards are smaller by about that ratio
    write_table_tiles(tmp_path / "s", "train", ["aguilar-lgpl3"], 10, seed=4, card_px=100)
    rows = [r for rs in _labels(tmp_path / "s").values() for r in rs]
    small = _whole_cards(rows)
    assert 0.45 <= np.median(small) / np.median(cards) <= 0.8


def test_the_same_seed_draws_the_same_tiles(tmp_path) -> None:
    write_table_tiles(tmp_path / "a", "val", ["bellot-lgpl21"], 2, seed=9, synth_share=0.0)
    write_table_tiles(tmp_path / "b", "val", ["bellot-lgpl21"], 2, seed=9, synth_share=0.0)
    assert _labels(tmp_path / "a", "val") == _labels(tmp_path / "b", "val")
    a = sorted((tmp_path / "a" / "images" / "val").glob("*.jpg"))
    b = sorted((tmp_path / "b" / "images" / "val").glob("*.jpg"))
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
