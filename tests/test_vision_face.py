"""The face reader: a card's whole face (pips, figure) read from its box settles corner reads
that a tiny or half-hidden index leaves torn between two codes (video reads: only whether the
card is a figure, and only where the corners waver between a figure and a number card)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.crops import edge_angle, face_crop
from vision.deck import Deck
from vision.recognizer import Recognizer
from vision.scene import Camera, CardPlacement, Light, TableBackground, quad_box, render

from .test_vision_assemble import _hit
from .test_vision_overlap import batch_sizes

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


@pytest.fixture(scope="module")
def video() -> Recognizer:
    return Recognizer()  # as the table controller reads its frames


@pytest.mark.parametrize(("code", "torn"), [("5H", "JH"), ("TC", "QC"), ("QS", "2S")])
def test_video_reads_settle_a_figure_or_number_doubt_by_the_face(video, code, torn):
    # the misreads that upset a refereed round (a 5 read as a J, a Q as a 10: RULES.md R2.3-R2.4
    # capture differently) are the ones the face settles in the table controller's reads too
    img, card_box, indices = _table(code, angle=12.0)
    hit = _hit(video, indices[0], {torn: 0.55, code: 0.45})
    assert [d.code for d in video.assemble([hit], [(card_box, 0.9)], 640, 480)] == [torn]
    assert [d.code for d in video.assemble([hit], [(card_box, 0.9)], 640, 480, img)] == [code]


def test_video_reads_read_no_face_where_the_corners_name_one_kind(video, monkeypatch):
    # two number cards (or two figures) in doubt: the face, which says only "figure or number"
    # in video reads, is not read at all (the 60 ms budget); nor for a corner sure of its card
    seen = batch_sizes(monkeypatch, "_read_faces")
    for code, doubt in [("6D", {"6D": 0.55, "8D": 0.45}), ("KS", {"KS": 0.55, "QS": 0.45}),
                        ("7C", {"7C": 0.97, "JC": 0.03})]:  # fmt: skip
        img, card_box, indices = _table(code, angle=5.0)
        hit = _hit(video, indices[0], doubt)
        (read,) = video.assemble([hit], [(card_box, 0.9)], 640, 480, img)
        assert read.code == code
    assert seen == []
    img, card_box, indices = _table("5H", angle=5.0)
    video.assemble(
        [_hit(video, indices[0], {"JH": 0.5, "5H": 0.5})], [(card_box, 0.9)], 640, 480, img
    )
    assert seen == [1]


def test_a_number_card_read_as_a_figure_on_a_rendered_table_is_named_by_video_reads(video):
    # a held-out-deck café table (`table_scene`, seed 59): the 2S lying mid-floor, in full
    # view, reads QS 0.38 / 2S 0.37 from its corners; its face shows pips, not a figure
    from vision.dataset import table_scene

    img, labels = table_scene(np.random.default_rng(59), Deck.load(HELD_OUT), (1280, 720))
    truth = {lab.code for lab in labels if lab.face_up and lab.indices}
    assert "2S" in truth and "QS" not in truth
    got = {d.code for d in video.recognize(img)}
    assert "2S" in got and "QS" not in got


def test_a_model_folder_naming_a_missing_face_reader_is_refused_by_name(tmp_path):
    import shutil

    from vision.recognizer import MODELS, ModelMissingError

    for f in MODELS.iterdir():
        if f.name != "card_face_cls.onnx" and f.is_file():
            shutil.copy(f, tmp_path / f.name)
    for still in (True, False):  # video reads use it too (figure or number)
        with pytest.raises(ModelMissingError, match="card_face_cls.onnx"):
            Recognizer(tmp_path, still=still)


def test_video_reads_look_at_a_face_once_and_photos_four_ways_round(video, still):
    # on the 24 held-out matches one look scored exactly as four (models/HISTORY.md), at a
    # quarter of the cost inside the 60 ms budget; a photo's face is read every quarter turn
    img, card_box, _ = _table("5H", angle=5.0)
    crop = video._face_crop(img, card_box)[None]
    for reads, looks in ((video, 1), (still, 4)):
        batches: list[int] = []
        real = reads.face.run

        def spy(names, feed, real=real, batches=batches):
            batches.extend(len(v) for v in feed.values())
            return real(names, feed)

        reads.face.run = spy
        try:
            probs = reads._read_faces(crop)
        finally:
            del reads.face.run
        assert batches == [looks]
        assert probs.shape == (1, 52) and abs(float(probs.sum()) - 1.0) < 1e-4
