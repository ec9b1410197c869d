"""Datasets name their card classes many ways; `eval` reads them all as the card codes of
DESIGN.md (rank A23456789TJQK + suit SHDC), and says so in one line when no label names a card.
"""

from __future__ import annotations

import json
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
        ("AceOfSpades", "AS"),  # CamelCase
        ("QueenOfHearts", "QH"),
        ("TenClubs", "TC"),
        ("10Clubs", "TC"),  # a rank run into its suit's word
        ("card_AS", "AS"),  # words around the name
        ("playing card 7D", "7D"),
        ("KS1", None),  # a code with something after it is not guessed
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


# ---- the labelled-set formats a user brings: each read as the same cards -------------------
TRUTH = json.loads((DATA / "rendered_truth.json").read_text())  # image -> its card codes
CARDS = sorted({c for codes in TRUTH.values() for c in codes})  # the classes, as a set names them
NAMES = [f"{'10' if c[0] == 'T' else c[0]}{c[1]}" for c in CARDS]  # '10C', as ammememe writes


def _read(samples) -> dict[str, set[str]]:
    return {s.image.name: s.codes for s in samples}


def _yolo_lines(codes) -> str:
    return "\n".join(f"{CARDS.index(c)} 0.5 0.5 0.02 0.03" for c in codes) + "\n"


def _yolo_set(root: Path, names_file: str, text: str) -> Path:
    (root / "train" / "images").mkdir(parents=True)
    (root / "train" / "labels").mkdir()
    (root / names_file).write_text(text)
    for name, codes in TRUTH.items():
        shutil.copy(DATA / name, root / "train" / "images" / name)
        (root / "train" / "labels" / name.replace(".jpg", ".txt")).write_text(_yolo_lines(codes))
    return root


@pytest.mark.parametrize(
    "data_yaml",
    [
        # ultralytics' own form: class ids mapped to names, one per line
        "path: .\ntrain: train/images\nnames:\n"
        + "".join(f"  {k}: {n}\n" for k, n in enumerate(NAMES)),
        # the same map inline, its keys out of order
        "names: {" + ", ".join(f"{k}: '{n}'" for k, n in reversed(list(enumerate(NAMES)))) + "}\n",
        # a list, one name per line
        f"nc: {len(NAMES)}\nnames:\n" + "".join(f"- '{n}'\n" for n in NAMES),
        # a list inline but broken over lines (Roboflow's long lists)
        "names: [" + ",\n  ".join(f"'{n}'" for n in NAMES) + "]\n",
    ],
    ids=["id-map", "inline-map", "block-list", "wrapped-list"],
)
def test_data_yaml_names_in_every_yaml_form(tmp_path, data_yaml):
    root = _yolo_set(tmp_path / "ds", "data.yaml", data_yaml)
    assert _read(load_dataset(root)) == {k: set(v) for k, v in TRUTH.items()}


def test_a_data_yaml_that_is_not_yaml_is_one_line_exit_2(tmp_path, capsys):
    root = _yolo_set(tmp_path / "ds", "data.yaml", "names: ['AS', 'KH'\n  nc: [2\n")
    assert run(["eval", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "data.yaml: not valid YAML" in err


def test_a_label_line_that_is_no_class_number_is_one_line_exit_2(tmp_path, capsys):
    root = _yolo_set(tmp_path / "ds", "classes.txt", "\n".join(NAMES) + "\n")
    label = root / "train" / "labels" / "rendered_bellot_1.txt"
    label.write_text("3 0.5 0.5 0.1 0.1\nAH 0.2 0.2 0.1 0.1\n")
    assert run(["eval", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{label} line 2: 'AH' is not a class number" in err


def test_labels_beside_the_images_labelimg_layout(tmp_path):
    root = tmp_path / "ds"
    root.mkdir()
    (root / "classes.txt").write_text("\n".join(NAMES) + "\n")
    for name, codes in TRUTH.items():
        shutil.copy(DATA / name, root / name)
        (root / name.replace(".jpg", ".txt")).write_text(_yolo_lines(codes))
    assert _read(load_dataset(root)) == {k: set(v) for k, v in TRUTH.items()}


def test_an_image_without_its_label_file_is_a_table_with_no_card(tmp_path):
    # ultralytics' background images: under images/, no label file while labels/ exists
    root = _yolo_set(tmp_path / "ds", "classes.txt", "\n".join(NAMES) + "\n")
    (root / "train" / "labels" / "empty_table.txt").unlink()
    samples = _read(load_dataset(root))
    assert samples["empty_table.jpg"] == set() and len(samples) == 4


def _voc_xml(codes, image: str) -> str:
    objects = "".join(
        f"<object><name>{n}</name><bndbox><xmin>10</xmin><ymin>20</ymin><xmax>110</xmax>"
        f"<ymax>160</ymax></bndbox></object>"
        for n in (NAMES[CARDS.index(c)] for c in codes)
    )
    return f"<annotation><filename>{image}</filename>{objects}</annotation>"


def test_pascal_voc_in_its_own_layout_jpegimages_and_annotations(tmp_path):
    root = tmp_path / "VOCdevkit" / "VOC2012"
    (root / "JPEGImages").mkdir(parents=True)
    (root / "Annotations").mkdir()
    for name, codes in TRUTH.items():
        shutil.copy(DATA / name, root / "JPEGImages" / name)
        (root / "Annotations" / name.replace(".jpg", ".xml")).write_text(_voc_xml(codes, name))
    samples = load_dataset(tmp_path / "VOCdevkit")
    assert _read(samples) == {k: set(v) for k, v in TRUTH.items()}
    assert [len(s.card_boxes) for s in samples] == [len(TRUTH[s.image.name]) for s in samples]


def _coco(folder: Path, prefix: str = "") -> dict:
    images, annotations = [], []
    for k, (name, codes) in enumerate(TRUTH.items()):
        images.append({"id": k, "file_name": prefix + name, "width": 1280, "height": 720})
        for c in codes:
            annotations.append(
                {"id": len(annotations), "image_id": k, "category_id": CARDS.index(c) + 1,
                 "bbox": [100, 50, 60, 90], "area": 5400, "iscrowd": 0}
            )  # fmt: skip
    # Roboflow's export: category 0 is the dataset's own name, never used by a box
    categories = [{"id": 0, "name": "playing-cards", "supercategory": "none"}]
    categories += [{"id": k + 1, "name": n, "supercategory": "cards"} for k, n in enumerate(NAMES)]
    return {"images": images, "annotations": annotations, "categories": categories}


def test_a_coco_set_roboflow_export_is_scored_like_the_same_yolo_set(tmp_path, capsys):
    # Roboflow: each split a folder of images beside its `_annotations.coco.json`
    coco = tmp_path / "coco" / "test"
    coco.mkdir(parents=True)
    for name in TRUTH:
        shutil.copy(DATA / name, coco / name)
    (coco / "_annotations.coco.json").write_text(json.dumps(_coco(coco)))
    yolo = _yolo_set(tmp_path / "yolo", "data.yaml", f"names: {NAMES!r}\n")
    assert _read(load_dataset(tmp_path / "coco")) == {k: set(v) for k, v in TRUTH.items()}
    reports = []
    for root in (tmp_path / "coco", yolo):
        assert run(["eval", str(root), "--json"]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    figures = [(r["images"], r["tp"], r["fp"], r["fn"], r["exact_images"]) for r in reports]
    assert figures[0] == figures[1] and figures[0][0] == 4 and figures[0][1] > 0


def test_coco_file_names_under_an_images_folder_and_a_missing_image(tmp_path, capsys):
    # the COCO layout: annotations/instances_val.json, images in images/ (file_name relative)
    root = tmp_path / "coco"
    (root / "annotations").mkdir(parents=True)
    (root / "images" / "val").mkdir(parents=True)
    for name in TRUTH:
        shutil.copy(DATA / name, root / "images" / "val" / name)
    (root / "annotations" / "instances_val.json").write_text(json.dumps(_coco(root, "val/")))
    assert _read(load_dataset(root)) == {k: set(v) for k, v in TRUTH.items()}
    (root / "images" / "val" / "empty_table.jpg").unlink()
    assert run(["eval", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "image 'val/empty_table.jpg' not found" in err


def test_a_csv_of_boxes_tensorflow_layout_with_rows_for_images_not_there(tmp_path):
    # one row a box (EdjeElectronics' train_labels.csv, Roboflow's _annotations.csv); the CSV
    # may list images the folder does not hold: those rows are left out
    root = tmp_path / "ds"
    root.mkdir()
    rows = ["filename,width,height,class,xmin,ymin,xmax,ymax"]
    for name, codes in TRUTH.items():
        shutil.copy(DATA / name, root / name)
        rows += [f"{name},1280,720,{NAMES[CARDS.index(c)]},10,20,110,160" for c in codes]
    rows.append("elsewhere.jpg,1280,720,AS,1,2,3,4")
    rows.append("rendered_bellot_2.jpg,1280,720,joker,1,2,3,4")  # not a card: no code
    (root / "_annotations.csv").write_text("\n".join(rows) + "\n")
    samples = load_dataset(root)
    assert _read(samples) == {k: set(v) for k, v in TRUTH.items() if v}  # the empty table: no row
    assert sorted(len(s.card_boxes) for s in samples) == sorted(len(v) for v in TRUTH.values() if v)
