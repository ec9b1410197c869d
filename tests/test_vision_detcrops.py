"""Classifier crops cut where the shipped detector finds indices (`vision.dataset.detector_crops`):
each named by the labelled index it lies on, none where nothing is labelled."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dataset import detector_crops, table_scene
from vision.deck import CODES, Deck
from vision.recognizer import Recognizer
from vision.scene import quad_box


@pytest.fixture(scope="module")
def table():
    """A rendered café table of a train deck and its labelled index boxes (code, box)."""
    rng = np.random.default_rng(5)
    img, labels = table_scene(rng, Deck.load("knoll-pd"), (1280, 720), occlusion=0.0)
    h, w = img.shape[:2]
    named = [(lab.code, quad_box(q, w, h)) for lab in labels if lab.face_up for q in lab.indices]
    return img, named


def test_crops_are_named_by_the_cards_they_show(tmp_path, table) -> None:
    img, named = table
    rec = Recognizer(still=True)
    n = detector_crops(rec, img, named, tmp_path, "t")
    written = {p.parent.name: p for p in tmp_path.glob("*/*.jpg")}
    labelled = {code for code, _box in named}
    assert n == len(list(tmp_path.glob("*/*.jpg")))
    # most of the table's face-up cards are found by the shipped detector, each crop filed
    # under a card that lies there (never a code absent from the table)
    assert set(written) <= labelled
    assert len(set(written)) >= 0.6 * len(labelled), (sorted(written), sorted(labelled))
    crop = cv2.imread(str(next(iter(written.values()))))
    assert crop.shape == (64, 64, 3)  # cut square and squared up, as the recognizer reads
    assert all(code in CODES for code in written)


def test_a_box_over_nothing_labelled_gives_no_crop(tmp_path, table) -> None:
    img, _named = table
    assert detector_crops(Recognizer(still=True), img, [], tmp_path, "t") == 0
    assert not list(tmp_path.glob("*/*.jpg"))
