"""Scene generator: exact labels, occlusion of indices, reproducibility, the contract's API."""

from __future__ import annotations

import numpy as np
import pytest

from vision.deck import CODES, Deck, available_decks
from vision.scene import (
    TABLE_KINDS,
    Camera,
    CardPlacement,
    Light,
    Occluder,
    TableBackground,
    compose,
    render,
)

CLEAN = Camera(blur=0, motion=0, noise=0, jpeg=100, tilt=0)
FLAT = Light(gradient=0, glare=0, shadow=0)


def test_five_decks_ship_all_52_cards_with_two_indices_each():
    decks = available_decks()
    assert len(decks) == 5
    for name in decks:
        deck = Deck.load(name)
        assert sorted(deck.faces) == sorted(CODES)
        for face in deck.faces.values():
            h, w = face.image.shape[:2]
            tl, br = face.indices
            # the top-left index sits in the card's top-left corner, its twin bottom-right
            assert tl[2] < 0.35 * w and tl[3] < 0.45 * h
            assert br[0] > 0.65 * w and br[1] > 0.55 * h


def test_unknown_deck_and_card_are_named():
    with pytest.raises(ValueError, match="unknown deck 'nope'"):
        Deck.load("nope")
    rng = np.random.default_rng(0)
    bg = TableBackground.random(rng, (320, 240))
    with pytest.raises(ValueError, match="'ZZ'"):
        render(bg, Deck.load("knoll-pd"), [CardPlacement("ZZ", (100, 100))], rng)


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_every_table_kind_renders_at_the_requested_size(kind):
    bg = TableBackground.random(np.random.default_rng(1), (640, 360), kind=kind)
    assert bg.image.shape == (360, 640, 3) and bg.image.dtype == np.uint8
    assert bg.kind == kind
    assert bg.image.std() > 0.5  # a texture, not a flat fill


def test_lone_upright_card_is_labelled_exactly():
    rng = np.random.default_rng(2)
    bg = TableBackground.random(rng, (640, 480), kind="felt")
    deck = Deck.load("kennard-cc0-2color")
    img, labels = render(
        bg, deck, [CardPlacement("7D", (320, 240), 0, 200)], rng, light=FLAT, camera=CLEAN
    )
    assert [lab.code for lab in labels] == ["7D"]
    lab = labels[0]
    half_w = 100 * deck.aspect
    expected = [[320 - half_w, 140], [320 + half_w, 140], [320 + half_w, 340], [320 - half_w, 340]]
    assert np.allclose(lab.quad, expected, atol=0.01)
    assert len(lab.indices) == 2 and lab.visible == pytest.approx(1.0, abs=0.02)
    # the card is drawn where the label says: its centre is card-white, far outside is felt
    assert img[240, 320].mean() > 200
    assert img[20, 20].mean() < 200


def test_a_covered_corner_index_is_not_labelled_and_a_buried_card_is_dropped():
    rng = np.random.default_rng(3)
    bg = TableBackground.random(rng, (640, 480), kind="wood")
    deck = Deck.load("knoll-pd")
    placements = [
        CardPlacement("AS", (300, 240), 0, 200),
        # same size, shifted right and down: covers AS's bottom-right index only
        CardPlacement("KH", (360, 300), 0, 200),
        CardPlacement("2C", (500, 100), 0, 120),
        CardPlacement("3C", (500, 100), 0, 140),  # completely covers 2C
    ]
    _, labels = render(bg, deck, placements, rng, light=FLAT, camera=CLEAN)
    by_code = {lab.code: lab for lab in labels}
    assert "2C" not in by_code
    assert len(by_code["AS"].indices) == 1
    (index,) = by_code["AS"].indices
    assert np.mean(index, axis=0)[0] < 300 and np.mean(index, axis=0)[1] < 240  # the top-left one
    assert len(by_code["KH"].indices) == 2


def test_hand_occluder_hides_what_it_covers():
    rng = np.random.default_rng(4)
    size = (640, 480)
    bg = TableBackground.random(rng, size, kind="laminate")
    deck = Deck.load("aguilar-lgpl3")
    arm = Occluder(base=(320, 600), tip=(320, 240), width=220, color=(120, 150, 200))
    _, labels = render(bg, deck, [CardPlacement("QC", (320, 240), 0, 150)], rng, [arm], FLAT, CLEAN)
    assert labels == [] or labels[0].indices == []


def test_same_seed_same_frame_and_compose_returns_code_quad_pairs():
    deck = Deck.load("bellot-lgpl21")
    placements = [
        CardPlacement("TD", (200, 150), 33, 120),
        CardPlacement("5S", (400, 200), -70, 120),
    ]
    frames = []
    for _ in range(2):
        rng = np.random.default_rng(5)
        bg = TableBackground.random(rng, (640, 360))
        img, labels = compose(bg, deck, placements, rng, light=Light.random(rng), noise=Camera())
        frames.append(img)
    assert np.array_equal(frames[0], frames[1])
    assert [code for code, _quad in labels] == ["TD", "5S"]
    assert all(len(quad) == 4 for _code, quad in labels)


def test_face_down_card_is_not_reported_as_a_face():
    rng = np.random.default_rng(6)
    bg = TableBackground.random(rng, (480, 360))
    deck = Deck.load("kennard-cc0-2color")
    img, labels = compose(bg, deck, [CardPlacement("9H", (240, 180), 10, 150, face_up=False)], rng)
    assert labels == []
    assert img.shape == (360, 480, 3)
