"""Evaluation of the recogniser on labelled folders (YOLO txt, Pascal VOC xml, COCO json, CSV).

Card-set precision/recall/F1 per image and per class, the worst classes' confusions, and speed.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from vision.image_file import ImageFileError, read_image

IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
RANK_WORDS = {
    "ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K",
}  # fmt: skip
SUIT_WORDS = {
    "spades": "S", "spade": "S", "hearts": "H", "heart": "H", "diamonds": "D", "diamond": "D",
    "clubs": "C", "club": "C", "\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C",
    "\u2664": "S", "\u2661": "H", "\u2662": "D", "\u2667": "C",
}  # fmt: skip
RANKS = "A23456789TJQK"
NOT_CARDS = ("joker", "back", "blank")
_FILLER = {"of", "card", "cards", "playing"}  # words around a card's name
_SUIT_SIGNS = "\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667"


class DatasetError(ValueError):
    """The folder is not a dataset this evaluator can read (message names what is wrong)."""


@dataclass
class Sample:
    """One labelled image: its card codes (or ranks when `rank_only`) and whole-card boxes."""

    image: Path
    codes: set[str]
    rank_only: bool = False
    card_boxes: list[list[float]] = field(default_factory=list)


def _rank(token: str) -> str | None:
    t = token.upper()
    if t == "10":
        return "T"
    if len(t) == 1 and t in RANKS:
        return t
    return RANK_WORDS.get(token.lower())


def normalise_label(name: str) -> str | None:
    """A dataset's class name as a card code, a rank alone (rank-only sets), or None (a joker,
    a card back, or anything else). Accepted: '10C', 'Th', 'AS', suit first ('S10', 'HQ'),
    suit signs ('10\u2665', 'A\u2660'), words ('ace of spades', 'Queen_Hearts', 'two-of-clubs',
    'hearts 7', 'AceOfSpades', '10clubs', 'card_AS'), and a rank alone ('king', 'K', '9')."""
    n = name.replace("\ufe0f", "").strip()  # a suit sign's emoji selector dropped
    n = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", n).lower()  # 'AceOfSpades' -> 'ace of spades'
    if not n or any(w in n for w in NOT_CARDS):
        return None
    for sign in _SUIT_SIGNS:  # a suit sign is a word of its own: '10\u2665' -> '10 \u2665'
        n = n.replace(sign, f" {sign} ")
    n = re.sub(r"(?<=\d)(?=[a-z])|(?<=[a-z])(?=\d)", " ", n)  # '10clubs' -> '10 clubs'
    words = [w for w in re.split(r"[\s_\-./]+", n) if w and w not in _FILLER]
    if len(words) == 1:
        w = words[0]
        if rank := _rank(w):
            return rank
        for rank, suit in ((w[:-1], w[-1]), (w[1:], w[0])):  # '10c', 'ah'; 'c10', 'ha'
            if suit.upper() in "SHDC" and _rank(rank) and len(rank) <= 2:
                return _rank(rank) + suit.upper()
        return None
    if len(words) == 2:
        for rank, suit in (words, words[::-1]):
            if _rank(rank) and suit in SUIT_WORDS:
                return _rank(rank) + SUIT_WORDS[suit]
            if _rank(rank) and len(suit) == 1 and suit.upper() in "SHDC":
                return _rank(rank) + suit.upper()
    return None


def _find_names(start: Path, stop: Path) -> list[str] | None:
    for folder in [start, *start.parents]:
        if (folder / "classes.txt").exists():
            text = _text(folder / "classes.txt")
            return [ln.strip() for ln in text.splitlines() if ln.strip()]
        for name in ("data.yaml", "data.yml"):
            if (folder / name).exists():
                names = _yaml_names(folder / name)
                if names:
                    return names
        if folder == stop or folder == folder.parent:
            break
    return None


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _yaml_names(path: Path) -> list[str] | None:
    """The class names of an ultralytics/Roboflow `data.yaml`, in class order: a list
    (`names: [...]`, inline or one per line) or a map of class ids (`names: {0: 10C}`, or
    `0: 10C` one per line, ultralytics' own form); ids missing from a map name nothing."""
    import yaml

    try:
        data = yaml.safe_load(_text(path))
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        raise DatasetError(f"{path}: not valid YAML{line}") from None
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, list):
        return ["" if n is None else str(n) for n in names]
    if isinstance(names, dict):
        try:
            ids = {int(k): "" if v is None else str(v) for k, v in names.items()}
        except (TypeError, ValueError):
            raise DatasetError(f"{path}: the names map's keys are not class numbers") from None
        if not ids or min(ids) < 0:
            return None
        return [ids.get(k, "") for k in range(max(ids) + 1)]
    return None


def _coco_sets(root: Path) -> list[tuple[Path, dict]]:
    """COCO annotation files under `root` (a Roboflow export's `_annotations.coco.json`, or
    `annotations/instances_*.json`): JSON holding `images`, `annotations` and `categories`."""
    import json

    found = []
    for path in sorted(root.rglob("*.json")):
        try:
            if path.stat().st_size > 500_000_000:
                continue
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except (UnicodeDecodeError, ValueError, OSError):  # not JSON, or a broken link
            continue
        if isinstance(data, dict) and all(
            isinstance(data.get(k), list) for k in ("images", "annotations", "categories")
        ):
            found.append((path, data))
    return found


def _coco_samples(path: Path, data: dict, root: Path, unknown: set[str]) -> list[Sample]:
    try:
        names = {c["id"]: str(c.get("name", "")) for c in data["categories"]}
        images = {im["id"]: str(im["file_name"]) for im in data["images"]}
        codes: dict = {k: set() for k in images}
        boxes: dict = {k: [] for k in images}
        for ann in data["annotations"]:
            name = names[ann["category_id"]]
            code = normalise_label(name)
            if code is None:
                unknown.add(name)
                continue
            codes[ann["image_id"]].add(code)
            if len(ann.get("bbox") or ()) == 4:
                x, y, w, h = (float(v) for v in ann["bbox"])
                boxes[ann["image_id"]].append([x, y, x + w, y + h])
    except (KeyError, TypeError, ValueError) as exc:
        raise DatasetError(
            f"{path}: not a COCO annotation file ({exc!r} missing or wrong)"
        ) from None
    samples = []
    for k, file_name in images.items():
        rel = Path(file_name)
        where = [
            path.parent / rel,
            path.parent / "images" / rel,
            path.parent.parent / "images" / rel,
        ]
        where += [path.parent.parent / rel, root / rel]
        image = next((p for p in where if p.is_file()), None)
        if image is None:
            raise DatasetError(f"{path}: image {file_name!r} not found beside it")
        samples.append(Sample(image, codes[k], card_boxes=boxes[k]))
    return samples


def _csv_samples(root: Path, unknown: set[str]) -> list[Sample]:
    """Images labelled in a CSV of one row a box, `filename` and `class` columns (the
    TensorFlow object-detection CSV: Roboflow's `_annotations.csv`, EdjeElectronics'
    `train_labels.csv`), each image beside its CSV or under `root`. Rows for images not there
    are left out: such files often list a whole collection, of which a folder holds part."""
    import csv

    by_image: dict[Path, set[str]] = {}
    boxes: dict[Path, list[list[float]]] = {}
    for path in sorted(root.rglob("*.csv")):
        try:
            with path.open(newline="", encoding="utf-8-sig") as f:
                rows = list(csv.DictReader(f))
        except (UnicodeDecodeError, csv.Error, OSError):
            continue
        if not rows or not {"filename", "class"} <= {str(k).strip().lower() for k in rows[0]}:
            continue
        for row in rows:
            row = {str(k).strip().lower(): (v or "").strip() for k, v in row.items() if k}
            image = next(
                (p for p in (path.parent / row["filename"], root / row["filename"]) if p.is_file()),
                None,
            )
            if image is None or image.suffix.lower() not in IMAGE_EXTS:
                continue
            codes = by_image.setdefault(image, set())
            code = normalise_label(row["class"])
            if code is None:
                unknown.add(row["class"])
                continue
            codes.add(code)
            try:
                box = [float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax")]
            except (KeyError, ValueError):
                continue
            boxes.setdefault(image, []).append(box)
    return [Sample(i, c, card_boxes=boxes.get(i, [])) for i, c in by_image.items()]


def _voc_xml(img: Path) -> Path | None:
    """The Pascal VOC annotation of `img`: beside it, or in the `Annotations` folder beside
    its own (VOC's `JPEGImages/` + `Annotations/`)."""
    for xml in (img.with_suffix(".xml"), img.parent.parent / "Annotations" / f"{img.stem}.xml"):
        if xml.is_file():
            return xml
    return None


def _yolo_label(img: Path) -> tuple[Path, bool] | None:
    """The YOLO label file of `img` and whether it exists: `labels/` mirroring `images/`
    (ultralytics, Roboflow), else a `.txt` beside the image (LabelImg). An image under
    `images/` whose mirrored label is missing while its folder exists is a table with no card
    (ultralytics' background image); None when `img` has no labels at all."""
    parts = list(img.parts)
    mirrored = None
    if "images" in parts[:-1]:
        k = len(parts) - 2 - parts[-2::-1].index("images")
        mirrored = Path(*parts[:k], "labels", *parts[k + 1 :]).with_suffix(".txt")
        if mirrored.is_file():
            return mirrored, True
    beside = img.with_suffix(".txt")
    if beside.is_file():
        return beside, True
    if mirrored is not None and mirrored.parent.is_dir():
        return mirrored, False
    return None


def _yolo_sample(img: Path, label: Path, stop: Path, unknown: set[str]) -> Sample:
    names = _find_names(label.parent, stop)
    if names is None:
        raise DatasetError(f"no classes.txt or data.yaml names for {label}")
    numbers = [n for n in names if n.strip().isdigit() and not 2 <= int(n) <= 10]
    if numbers:  # '0', '1', '11' ...: class numbers, not ranks, so '2' is no two either
        raise DatasetError(
            f"the class names for {label} are numbers (e.g. {numbers[0]!r}), not cards"
        )
    codes = set()
    for n, line in enumerate(_text(label).splitlines(), 1):
        if not line.strip():
            continue
        try:
            cls = int(float(line.split()[0]))
        except (ValueError, OverflowError):
            raise DatasetError(
                f"{label} line {n}: {line.split()[0]!r} is not a class number"
            ) from None
        if not 0 <= cls < len(names):
            raise DatasetError(f"{label}: class {cls} beyond the {len(names)} names")
        code = normalise_label(names[cls])
        if code:
            codes.add(code)
        else:
            unknown.add(names[cls])
    return Sample(img, codes)


def load_dataset(root: Path | str) -> list[Sample]:
    """Every labelled image under `root`: YOLO (`images/` + `labels/`, or a `.txt` beside each
    image; names in classes.txt or data.yaml), Pascal VOC (an xml beside each image, or
    `Annotations/` beside `JPEGImages/`), COCO (a JSON of images, annotations, categories) or
    a CSV of boxes (`filename`, `class`, ...); an image labelled two ways is read by the first
    of COCO, VOC, YOLO, CSV."""
    root = Path(root)
    if not root.exists():
        raise DatasetError(f"dataset folder not found: {root}")
    if not root.is_dir():
        raise DatasetError(f"dataset is not a folder: {root}")
    samples: list[Sample] = []
    unknown: set[str] = set()  # label names that are neither a card nor a known non-card
    stop = root.parent.parent
    for path, data in _coco_sets(root):
        samples += _coco_samples(path, data, root, unknown)
    claimed = {s.image.resolve() for s in samples}
    listed = {s.image.resolve(): s for s in _csv_samples(root, unknown)}
    for img in sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_EXTS):
        if not img.is_file() or img.resolve() in claimed:
            continue
        xml, label = _voc_xml(img), _yolo_label(img)
        if xml is not None:
            samples.append(_voc_sample(img, xml, unknown))
        elif label is not None:
            path, exists = label
            samples.append(_yolo_sample(img, path, stop, unknown) if exists else Sample(img, set()))
        elif img.resolve() in listed:
            samples.append(listed[img.resolve()])
    if not samples:
        kinds = "YOLO images/+labels/, Pascal VOC xml, COCO json or CSV"
        raise DatasetError(f"no labelled images ({kinds}) under {root}")
    if any(len(c) == 1 for s in samples for c in s.codes):  # ranks alone: all judged by rank
        for sample in samples:
            sample.rank_only = True
    unknown = {u for u in unknown if u.strip() and not any(w in u.lower() for w in NOT_CARDS)}
    if unknown and not any(s.codes for s in samples):
        names = ", ".join(repr(u) for u in sorted(unknown)[:3])
        raise DatasetError(
            f"no label in {root} names a card (e.g. {names}); expected codes like 'TC'"
        )
    return samples


def _voc_sample(img: Path, xml: Path, unknown: set[str]) -> Sample:
    try:
        tree = ET.parse(xml)
    except ET.ParseError as exc:
        raise DatasetError(f"{xml}: not valid XML ({exc})") from None
    codes, boxes = set(), []
    for obj in tree.getroot().iter("object"):
        code = normalise_label(obj.findtext("name", ""))
        if code is None:
            unknown.add(obj.findtext("name", ""))
            continue
        codes.add(code)
        bb = obj.find("bndbox")
        if bb is not None:
            try:
                boxes.append([float(bb.findtext(k, "0")) for k in ("xmin", "ymin", "xmax", "ymax")])
            except ValueError:
                raise DatasetError(f"{xml}: a box's corner is not a number") from None
    return Sample(img, codes, card_boxes=boxes)


def evaluate(recognizer, samples: list[Sample], progress=None) -> dict:
    """Run the recogniser over the samples and compute the card-set metrics."""
    tp = fp = fn = 0
    per_class: dict[str, Counter] = defaultdict(Counter)
    confusion: dict[str, Counter] = defaultdict(Counter)
    per_image = []
    times = []
    loc_hit = loc_total = 0
    for k, s in enumerate(samples):
        try:
            img = read_image(s.image)
        except ImageFileError as why:
            per_image.append({"image": str(s.image), "error": str(why)})
            continue
        t0 = time.perf_counter()
        dets = recognizer.recognize(img)
        times.append(time.perf_counter() - t0)
        pred = {d.code[0] if s.rank_only else d.code for d in dets}
        gt = s.codes
        itp, ifp, ifn = len(pred & gt), len(pred - gt), len(gt - pred)
        tp, fp, fn = tp + itp, fp + ifp, fn + ifn
        for c in pred & gt:
            per_class[c]["tp"] += 1
        for c in pred - gt:
            per_class[c]["fp"] += 1
        for c in gt - pred:
            per_class[c]["fn"] += 1
            wrong = sorted(pred - gt)
            confusion[c][wrong[0] if len(wrong) == 1 else ("missed" if not wrong else "other")] += 1
        for box in s.card_boxes:
            loc_total += 1
            if any(
                box[0] <= (d.box[0] + d.box[2]) / 2 <= box[2]
                and box[1] <= (d.box[1] + d.box[3]) / 2 <= box[3]
                for d in dets
            ):
                loc_hit += 1
        per_image.append(
            {
                "image": str(s.image),
                "truth": sorted(gt),
                "predicted": sorted(pred),
                "f1": round(_f1(itp, ifp, ifn), 4),
            }
        )
        if progress:
            progress(k + 1)
    classes = {}
    for c, cnt in sorted(per_class.items()):
        classes[c] = {
            "tp": cnt["tp"],
            "fp": cnt["fp"],
            "fn": cnt["fn"],
            "f1": round(_f1(cnt["tp"], cnt["fp"], cnt["fn"]), 4),
        }
    worst = sorted(classes.items(), key=lambda kv: (kv[1]["f1"], kv[0]))[:8]
    times_ms = sorted(t * 1000 for t in times)
    n = len(times_ms)
    read = [p for p in per_image if "error" not in p]
    f1s = [p["f1"] for p in read]
    result = {
        "images": len(samples),
        # images that could not be read: listed in `per_image` with why, left out of the figures
        "unreadable": len(per_image) - len(read),
        "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "f1": round(_f1(tp, fp, fn), 4),
        "mean_image_f1": round(sum(f1s) / max(1, len(f1s)), 4),
        "exact_images": sum(1 for p in read if p["truth"] == p["predicted"]),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "fps": round(n / sum(times), 2) if times else 0.0,
        "median_ms": round(times_ms[n // 2], 1) if n else 0.0,
        "per_class": classes,
        "worst_classes": [
            {"class": c, **m, "confused_with": dict(confusion[c].most_common(3))} for c, m in worst
        ],
        "per_image": per_image,
    }
    if loc_total:
        result["localisation_recall"] = round(loc_hit / loc_total, 4)
    return result


def _f1(tp: int, fp: int, fn: int) -> float:
    if tp == 0:
        return 1.0 if fp == 0 and fn == 0 else 0.0
    return 2 * tp / (2 * tp + fp + fn)
