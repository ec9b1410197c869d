"""The shipped recogniser on committed fixtures, and the recognize / eval commands' contract.

Rendered fixtures use the held-out deck design (bellot, never trained on); the real photos are
from the ammememe set (CC BY 4.0, see tests/data/vision/README.md).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import run
from vision.recognizer import Detection, Observation, Recognizer

DATA = Path(__file__).parent / "data" / "vision"
TRUTH = json.loads((DATA / "rendered_truth.json").read_text())
REAL = json.loads((DATA / "real" / "truth.json").read_text())


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


@pytest.mark.parametrize("name", sorted(n for n in TRUTH if n.startswith("rendered")))
def test_rendered_held_out_deck_frames_are_read_exactly(rec, name):
    obs = rec.observe(cv2.imread(str(DATA / name)), t=1.5)
    assert isinstance(obs, Observation) and obs.t == 1.5
    assert sorted(d.code for d in obs.cards) == TRUTH[name]
    for d in obs.cards:
        assert isinstance(d, Detection) and d.zone is None
        assert 0 < d.confidence <= 1
        assert len(d.quad) == 4 and len(d.box) == 4
        assert 0 <= d.box[0] < d.box[2] <= 1280 and 0 <= d.box[1] < d.box[3] <= 720


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_photos_are_read(rec, name):
    cards = rec.recognize(cv2.imread(str(DATA / "real" / name)))
    assert sorted({d.code for d in cards}) == REAL[name]


def test_empty_table_with_a_hand_gives_an_empty_list(rec):
    assert rec.observe(cv2.imread(str(DATA / "empty_table.jpg"))).cards == []
    blank = np.full((720, 1280, 3), 235, np.uint8)
    assert rec.recognize(blank) == []


def test_card_box_lies_on_the_card(rec):
    # rendered_bellot_0: every reported box must contain the centre of one true index
    img = cv2.imread(str(DATA / "rendered_bellot_0.jpg"))
    for d in rec.recognize(img):
        x1, y1, x2, y2 = d.box
        assert (x2 - x1) < 400 and (y2 - y1) < 400  # one card, not the whole floor


def test_recognize_json_shape_and_missing_file_named(tmp_path, capsys):
    good = str(DATA / "rendered_bellot_2.jpg")
    bad = tmp_path / "garbage.jpg"
    bad.write_bytes(b"not an image")
    missing = tmp_path / "nope.png"
    code = run(["recognize", str(missing), good, str(bad), "--json", "--out", str(tmp_path / "o")])
    out, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 2
    assert "nope.png" in lines[0] and "no such file" in lines[0]
    assert "garbage.jpg" in lines[1] and "Traceback" not in err
    result = json.loads(out)
    assert [r["image"] for r in result] == [good]
    assert sorted(c["code"] for c in result[0]["cards"]) == TRUTH["rendered_bellot_2.jpg"]
    card = result[0]["cards"][0]
    assert set(card) == {"code", "confidence", "box", "quad"}
    assert (tmp_path / "o" / "rendered_bellot_2.annotated.png").exists()


def test_recognize_plain_output_and_bad_option(capsys):
    assert run(["recognize", str(DATA / "empty_table.jpg")]) == 0
    assert "no cards" in capsys.readouterr().out
    assert run(["recognize", str(DATA / "empty_table.jpg"), "--min-confidence", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "--min-confidence" in err and "\n" not in err


def _yolo_dataset(tmp_path: Path) -> Path:
    """The three rendered fixtures and the empty table as a YOLO folder (index boxes, codes)."""
    from vision.deck import CODES

    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join(CODES) + "\n")
    for name, codes in TRUTH.items():
        shutil.copy(DATA / name, root / "images" / name)
        lines = [f"{CODES.index(c)} 0.5 0.5 0.01 0.01" for c in codes]
        (root / "labels" / name.replace(".jpg", ".txt")).write_text("\n".join(lines))
    return root


def test_eval_reports_card_set_metrics(tmp_path, capsys):
    root = _yolo_dataset(tmp_path)
    assert run(["eval", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    n_cards = sum(len(v) for v in TRUTH.values())
    assert report["images"] == 4
    assert report["tp"] == n_cards and report["fp"] == 0 and report["fn"] == 0
    assert report["f1"] == 1.0 and report["exact_images"] == 4
    assert report["fps"] > 0 and "per_class" in report and "worst_classes" in report


def test_eval_reads_pascal_voc_rank_only_labels(tmp_path, capsys):
    # a VOC file naming the rank only (like the edje set): the card counts if its rank is right
    src = DATA / "rendered_bellot_0.jpg"
    shutil.copy(src, tmp_path / "a.jpg")
    ranks = sorted({c[0] for c in TRUTH["rendered_bellot_0.jpg"]})
    words = {"A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "4": "four",
             "5": "five", "6": "six", "8": "eight"}  # fmt: skip
    objs = "".join(
        f"<object><name>{words[r]}</name><bndbox><xmin>0</xmin><ymin>0</ymin>"
        f"<xmax>1280</xmax><ymax>720</ymax></bndbox></object>"
        for r in ranks
    )
    (tmp_path / "a.xml").write_text(f"<annotation>{objs}</annotation>")
    assert run(["eval", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["f1"] == 1.0 and report["localisation_recall"] == 1.0


def test_eval_bad_dataset_is_one_line_exit_2(tmp_path, capsys):
    assert run(["eval", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not found" in err and "missing" in err
    (tmp_path / "empty").mkdir()
    assert run(["eval", str(tmp_path / "empty")]) == 2
    assert "no labelled images" in capsys.readouterr().err
