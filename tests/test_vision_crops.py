"""The classifier's crop: squaring an index up to its card's sides (`vision.crops.square_up`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.crops import edge_angle, index_crop, square_up
from vision.dataset import random_scene
from vision.deck import Deck
from vision.scene import quad_box


def _turned_card(art: np.ndarray, degrees: float, size: int = 600):
    """The card art turned `degrees` (counter-clockwise on screen) on green felt, and the
    matrix that placed it."""
    h, w = art.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.5)
    m[:, 2] += np.array([size / 2 - w / 2, size / 2 - h / 2])
    warped = cv2.warpAffine(art, m, (size, size), borderValue=(0, 0, 0, 0)).astype(np.float32)
    alpha = warped[:, :, 3:4] / 255.0
    felt = np.full((size, size, 3), (40, 110, 40), np.float32)
    return (warped[:, :, :3] * alpha + felt * (1 - alpha)).astype(np.uint8), m


def _off_by(found: float, true: float) -> float:
    """How far apart two turns are modulo a quarter turn, in degrees (0-45)."""
    return abs((found - true + 45) % 90 - 45)


@pytest.mark.parametrize(
    "deck, code",
    [("bellot-lgpl21", "4C"), ("bellot-lgpl21", "QH"), ("bellot-lgpl21", "TD"),
     ("knoll-pd", "7S"), ("aguilar-lgpl3", "KD")],  # 7 and K: slanted strokes
)  # fmt: skip
def test_a_lone_card_at_any_angle_is_squared_up_to_within_a_few_degrees(deck, code):
    face = Deck.load(deck).faces[code]
    x1, y1, x2, y2 = face.indices[0]
    corners = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], np.float64)
    for degrees in range(0, 360, 11):
        img, m = _turned_card(face.image, degrees)
        q = corners @ m.T
        crop = index_crop(img, (*q.min(axis=0), *q.max(axis=0)))
        # turning the crop by edge_angle undoes the card's turn, up to a quarter turn
        assert _off_by(-edge_angle(crop), degrees) < 4.0, degrees


def test_indices_on_rendered_tables_are_mostly_squared_up():
    """Crowded training-like frames (overlaps, hands, blur): 88 % within 15 degrees measured."""
    rng = np.random.default_rng(5)
    deck = Deck.load("bellot-lgpl21")
    errors = []
    for _ in range(12):
        img, labels = random_scene(rng, deck, (512, 512), scale=1.35)
        h, w = img.shape[:2]
        for lab in labels:
            for q in lab.indices if lab.face_up else []:
                box = quad_box(q, w, h)
                if max(box[2] - box[0], box[3] - box[1]) < 16:
                    continue
                q = np.array(q)
                down = (q[2] + q[3]) / 2 - (q[0] + q[1]) / 2  # the index's top-to-bottom axis
                true = np.degrees(np.arctan2(down[1], down[0])) - 90  # 0: already upright
                errors.append(_off_by(-edge_angle(index_crop(img, box)), -true))
    errors = np.array(errors)
    assert len(errors) > 40
    assert np.mean(errors < 15) >= 0.8
    assert np.median(errors) < 3


def test_square_up_keeps_the_crop_size_and_an_upright_crop_as_it_is():
    face = Deck.load("knoll-pd").faces["7S"]
    img, m = _turned_card(face.image, 0)
    x1, y1, x2, y2 = face.indices[0]
    q = np.array([[x1, y1, 1], [x2, y2, 1]], np.float64) @ m.T
    crop = index_crop(img, (*q.min(axis=0), *q.max(axis=0)))
    out = square_up(crop)
    assert out.shape == crop.shape
    assert abs(edge_angle(crop)) < 2.0
    assert np.mean(np.abs(out.astype(int) - crop.astype(int))) < 6
