"""The face reader: a card's whole face (pips, figure) read from its box settles corner reads
that a tiny or half-hidden index leaves torn between two codes (single photos only)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.crops import edge_angle, face_crop
from vision.deck import Deck
from vision.recognizer import Recognizer
from vision.scene import Camera, CardPlacement, Light, TableBackground, quad_box, render

from .test_vision_assemble import _hit

HELD_OUT = "bellot-lgpl21"  # never trained on: the face reader must read pips, not artwork


@pytest.fixture(scope="module")
def still() -> Recognizer:
    return Recognizer(still=True)


def _table(code: str, angle: float, height: float = 150.0, seed: int = 3):
    """One held-out-deck card on green felt: the frame, its card box and its index boxes."""
    rng = np.random.default_rng(seed)
    size = (640, 480)
    bg = TableBackground.random(rng, size, kind="felt")
    place = CardPlacement(code, (320.0, 240.0), angle, height)
    img, labels = render(bg, Deck.load(HELD_OUT), [place], rng, [], Light(), Camera())
    (lab,) = labels
    return img, lab.box, [quad_box(q, *size) for q in lab.indices]


def test_a_turned_card_is_cut_square_and_set_straight():
    img, box, _ = _table("7C", angle=27.0)
    crop = face_crop(img, box)
    assert crop.shape == (64, 64, 3)
    assert abs(edge_angle(crop)) < 4  # its sides now run along the crop's
    # the card (white paper) fills the crop's middle; the felt shows only round its rim
    grey = crop.mean(axis=2)
    assert grey[24:40, 24:40].mean() > 150 and grey[:, :3].mean() < grey[24:40, 24:40].mean()


@pytest.mark.parametrize(
    ("code", "torn"),
    [("4D", "JD"), ("5H", "KH"), ("9C", "QC"), ("KD", "4D"), ("QS", "8S"), ("JH", "3H")],
)
def test_a_corner_torn_between_a_figure_and_a_number_is_settled_by_the_face(still, code, torn):
    # a tiny index read 55 % the wrong code; the card's face, in full view, shows pips or a
    # court figure (RULES.md R2.1: J, Q and K are the figures, never summed; R2.3-R2.4: they capture
    # differently, so a figure misread as a number misreferees the play)
    img, card_box, indices = _table(code, angle=12.0)
    hit = _hit(still, indices[0], {torn: 0.55, code: 0.45})
    assert [d.code for d in still.assemble([hit], [(card_box, 0.9)], 640, 480)] == [torn]
    out = still.assemble([hit], [(card_box, 0.9)], 640, 480, img)
    assert [d.code for d in out] == [code]


def test_the_face_leaves_a_figure_to_its_corner(still):
    # a design's court figures are its own: the face tells a figure from a number card, not
    # a queen from a king, so the corner's choice between two figures of a suit stands
    img, card_box, indices = _table("KS", angle=-8.0)
    hit = _hit(still, indices[0], {"QS": 0.6, "KS": 0.4})
    (read,) = still.assemble([hit], [(card_box, 0.9)], 640, 480, img)
    assert read.code == "QS"
    share = dict(read.alts)
    assert share["QS"] / share["KS"] == pytest.approx(0.6 / 0.4, rel=1e-3)


def test_video_reads_do_not_read_faces():
    # the table controller's reads are tuned without it (models/README.md)
    assert Recognizer().face is None


def test_a_model_folder_naming_a_missing_face_reader_is_refused_by_name(tmp_path):
    import shutil

    from vision.recognizer import MODELS, ModelMissingError

    for f in MODELS.iterdir():
        if f.name != "card_face_cls.onnx" and f.is_file():
            shutil.copy(f, tmp_path / f.name)
    with pytest.raises(ModelMissingError, match="card_face_cls.onnx"):
        Recognizer(tmp_path, still=True)
    assert Recognizer(tmp_path).face is None  # video reads never needed it
