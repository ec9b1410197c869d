"""A cheap webcam's picture drawn for training frames (`vision.webcam.degrade`): darker, softer,
noisier, and every labelled box still where its card lies (the labels are not redrawn)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.webcam import degrade


def _card_on_felt() -> np.ndarray:
    img = np.zeros((240, 320, 3), np.uint8)
    img[:] = (40, 110, 30)  # green felt (BGR)
    img[60:180, 100:180] = 250  # a white card, 80 x 120 px
    cv2.putText(img, "7", (106, 84), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 200), 2)
    return img


def test_the_card_stays_where_its_label_says() -> None:
    img = _card_on_felt()
    for seed in range(8):
        out = degrade(img, np.random.default_rng(seed))
        assert out.shape == img.shape and out.dtype == np.uint8
        grey = cv2.cvtColor(out, cv2.COLOR_BGR2GRAY).astype(np.float32)
        card = grey[70:170, 110:170].mean()  # well inside the card
        felt = np.concatenate([grey[:, :80].ravel(), grey[:, 200:].ravel()]).mean()
        assert card > felt + 40, seed  # the card still stands out from the felt ...
        bright = grey > (card + felt) / 2
        ys, xs = np.nonzero(bright)
        # ... at the same place: the bright area's bounds within a few pixels of the card's
        assert abs(xs.min() - 100) <= 4 and abs(xs.max() - 179) <= 4, seed
        assert abs(ys.min() - 60) <= 4 and abs(ys.max() - 179) <= 4, seed


def test_a_webcam_picture_is_dimmer_and_softer() -> None:
    img = _card_on_felt()
    rng = np.random.default_rng(3)
    outs = [degrade(img, rng) for _ in range(12)]
    card = [cv2.cvtColor(o, cv2.COLOR_BGR2GRAY)[70:170, 110:170].mean() for o in outs]
    assert np.median(card) < 235  # the white card is seen dimmer than it is printed
    # the card's edge is spread over more pixels: a smaller largest step across it
    step = [np.abs(np.diff(o[120, 90:110].astype(int), axis=0)).max() for o in outs]
    sharp = np.abs(np.diff(img[120, 90:110].astype(int), axis=0)).max()
    assert np.median(step) < 0.6 * sharp


def test_the_same_draw_gives_the_same_picture() -> None:
    img = _card_on_felt()
    a = degrade(img, np.random.default_rng(11))
    b = degrade(img, np.random.default_rng(11))
    assert np.array_equal(a, b)
