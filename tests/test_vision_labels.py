"""Datasets name their card classes many ways; `eval` reads them all as the card codes of
DESIGN.md (rank A23456789TJQK + suit SHDC), and says so in one line when no label names a card.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.cli import run
from vision.evaluate import DatasetError, evaluate, load_dataset, normalise_label

DATA = Path(__file__).parent / "data" / "vision"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("10C", "TC"),  # the ammememe export
        ("Th", "TH"),
        ("as", "AS"),
        ("S10", "TS"),  # suit first
        ("HQ", "QH"),
        ("10\u2665", "TH"),  # suit signs
        ("A\u2660", "AS"),
        ("10\u2665\ufe0f", "TH"),  # the emoji form of the sign
        ("ace of spades", "AS"),  # words
        ("Queen_Hearts", "QH"),
        ("two-of-clubs", "2C"),
        ("10_of_diamonds", "TD"),
        ("hearts 7", "7H"),
        ("Jack Of Clubs", "JC"),
        ("king", "K"),  # a rank alone (edje: rank-only labels)
        ("K", "K"),
        ("10", "T"),
        ("nine", "9"),
        ("BACK", None),  # not a card face
        ("black joker", None),
        ("Joker", None),
        ("card", None),
        ("", None),
        ("1C", None),  # an ace or a one? not guessed
    ],
)
def test_class_names_become_card_codes(name, code):
    assert normalise_label(name) == code


def _yolo(root: Path, names: list[str], labels: dict[str, list[int]]) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join(names) + "\n")
    for image, classes in labels.items():
        shutil.copy(DATA / "rendered_bellot_0.jpg", root / "images" / image)
        lines = [f"{c} 0.5 0.5 0.02 0.03" for c in classes]
        (root / "labels" / image.replace(".jpg", ".txt")).write_text("\n".join(lines))
    return root


def test_a_yolo_set_named_in_words_is_read_as_codes(tmp_path):
    names = ["ace of spades", "10 of hearts", "red joker"]
    root = _yolo(tmp_path / "ds", names, {"a.jpg": [0, 1, 2], "b.jpg": [2]})
    samples = {s.image.name: s for s in load_dataset(root)}
    assert samples["a.jpg"].codes == {"AS", "TH"} and samples["b.jpg"].codes == set()
    assert not samples["a.jpg"].rank_only


class _Reads:
    """A recogniser stand-in that reads the same cards in every image (the evaluator's
    arithmetic is what is tested here; the real recogniser: test_vision_recognize.py)."""

    def __init__(self, codes: list[str]) -> None:
        from vision.recognizer import Detection

        quad = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
        self.cards = [Detection(c, 0.9, quad, [0.0, 0.0, 1.0, 1.0]) for c in codes]

    def recognize(self, _img):
        return self.cards


def test_a_yolo_set_of_ranks_alone_is_judged_by_rank(tmp_path):
    # an image with only a joker labelled is judged by rank too, like the rest of its set
    root = _yolo(tmp_path / "ds", ["nine", "ten", "king", "joker"], {"a.jpg": [0, 2], "b.jpg": [3]})
    samples = {s.image.name: s for s in load_dataset(root)}
    assert samples["a.jpg"].codes == {"9", "K"} and samples["a.jpg"].rank_only
    assert samples["b.jpg"].codes == set() and samples["b.jpg"].rank_only
    # read KS and 9H: both ranks right in a.jpg (the suits are not judged), both wrong in b.jpg
    report = evaluate(_Reads(["KS", "9H"]), list(samples.values()))
    assert (report["tp"], report["fp"], report["fn"]) == (2, 2, 0)
    assert set(report["per_class"]) == {"9", "K"}


def test_a_set_whose_class_names_are_numbers_is_refused(tmp_path, capsys):
    # class ids written as names: '2' there is the third class, not a two
    root = _yolo(tmp_path / "ds", [str(k) for k in range(52)], {"a.jpg": [5, 40]})
    with pytest.raises(DatasetError, match="numbers"):
        load_dataset(root)
    assert run(["eval", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'0'" in err


def test_eval_of_a_set_whose_labels_name_no_card_is_one_line_exit_2(tmp_path, capsys):
    root = _yolo(tmp_path / "ds", ["cat", "dog"], {"a.jpg": [0, 1]})
    assert run(["eval", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "names a card" in err and "'cat'" in err
