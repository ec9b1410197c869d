"""Evaluation of the recogniser on labelled folders (YOLO txt or Pascal VOC xml).

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

IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
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
    'hearts 7'), and a rank alone ('king', 'K', '9')."""
    n = name.replace("\ufe0f", "").strip().lower()  # a suit sign's emoji selector dropped
    if not n or any(w in n for w in NOT_CARDS):
        return None
    for sign in _SUIT_SIGNS:  # a suit sign is a word of its own: '10\u2665' -> '10 \u2665'
        n = n.replace(sign, f" {sign} ")
    words = [w for w in re.split(r"[\s_\-./]+", n) if w and w != "of"]
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
            return [
                ln.strip() for ln in (folder / "classes.txt").read_text().splitlines() if ln.strip()
            ]
        if (folder / "data.yaml").exists():
            names = _yaml_names(folder / "data.yaml")
            if names:
                return names
        if folder == stop or folder == folder.parent:
            break
    return None


def _yaml_names(path: Path) -> list[str] | None:
    import ast

    for line in path.read_text().splitlines():
        if line.startswith("names:") and "[" in line:
            return [str(v) for v in ast.literal_eval(line.split(":", 1)[1].strip())]
    return None


def load_dataset(root: Path | str) -> list[Sample]:
    """Every labelled image under `root`, YOLO (images/ + labels/) or Pascal VOC (xml beside)."""
    root = Path(root)
    if not root.exists():
        raise DatasetError(f"dataset folder not found: {root}")
    if not root.is_dir():
        raise DatasetError(f"dataset is not a folder: {root}")
    samples = []
    unknown: set[str] = set()  # label names that are neither a card nor a known non-card
    stop = root.parent.parent
    for img in sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_EXTS):
        xml = img.with_suffix(".xml")
        if xml.exists():
            samples.append(_voc_sample(img, xml, unknown))
            continue
        if img.parent.name != "images" and "images" not in img.parts:
            continue
        parts = list(img.parts)
        k = len(parts) - 1 - parts[::-1].index("images")
        label = Path(*parts[:k], "labels", *parts[k + 1 :]).with_suffix(".txt")
        if not label.exists():
            continue
        names = _find_names(label.parent, stop)
        if names is None:
            raise DatasetError(f"no classes.txt or data.yaml names for {label}")
        numbers = [n for n in names if n.strip().isdigit() and not 2 <= int(n) <= 10]
        if numbers:  # '0', '1', '11' ...: class numbers, not ranks, so '2' is no two either
            raise DatasetError(
                f"the class names for {label} are numbers (e.g. {numbers[0]!r}), not cards"
            )
        codes = set()
        for line in label.read_text().splitlines():
            if line.strip():
                cls = int(float(line.split()[0]))
                if cls >= len(names):
                    raise DatasetError(f"{label}: class {cls} beyond the {len(names)} names")
                code = normalise_label(names[cls])
                if code:
                    codes.add(code)
                else:
                    unknown.add(names[cls])
        samples.append(Sample(img, codes))
    if not samples:
        raise DatasetError(f"no labelled images (YOLO images/+labels/ or VOC xml) under {root}")
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
            boxes.append([float(bb.findtext(k, "0")) for k in ("xmin", "ymin", "xmax", "ymax")])
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
