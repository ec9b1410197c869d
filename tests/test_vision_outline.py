"""Card outlines (the `quad` of a detection): the turned card's corners, not its box's."""

from __future__ import annotations

import numpy as np

from vision.dataset import table_scene
from vision.deck import Deck
from vision.outline import card_outline


def _corner_error(quad, true) -> float:
    quad, true = np.array(quad), np.array(true)
    return float(np.mean([np.min(np.linalg.norm(quad - t, axis=1)) for t in true]))


def test_outlines_of_lone_cards_on_rendered_tables_hit_the_true_corners():
    deck = Deck.load("bellot-lgpl21")  # the held-out design
    found, errors, box_errors = 0, [], []
    for seed in range(6):
        img, labels = table_scene(np.random.default_rng(seed), deck, (1280, 720), occlusion=0)
        for lab in labels:
            if lab.visible < 0.98 or not lab.face_up:
                continue
            b = lab.box
            box_errors.append(
                _corner_error([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], lab.quad)
            )
            quad = card_outline(img, lab.box)
            if quad is not None:
                found += 1
                errors.append(_corner_error(quad, lab.quad))
    assert found >= 0.6 * len(box_errors)
    # a card about 150 px tall: the corners within a few pixels, far closer than the box's
    assert np.median(errors) < 5.0
    assert np.median(errors) < 0.4 * np.median(box_errors)


def test_no_outline_where_nothing_stands_out():
    blank = np.full((300, 400, 3), 235, np.uint8)
    assert card_outline(blank, [100, 50, 250, 260]) is None


def test_outline_corners_run_clockwise_from_the_top_left():
    img = np.full((400, 400, 3), (40, 120, 30), np.uint8)  # green felt
    card = np.array([[150, 80], [290, 130], [240, 330], [100, 280]], np.int32)  # turned ~20°
    import cv2

    cv2.fillConvexPoly(img, card, (245, 245, 245))
    quad = card_outline(img, [100, 80, 290, 330], aspect=0.7)
    assert quad is not None
    assert quad[0][1] == min(p[1] for p in quad)  # the top-most corner first here
    q = np.array(quad)
    (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[1]
    assert ax * by - ay * bx > 0  # clockwise in image coordinates (y down)
