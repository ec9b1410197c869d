"""Training data from labelled real photos (../shared/data/real/ammememe, YOLO txt, index boxes):
index-only detector labels and classifier crops, from the parts that are not evaluation sets.

phone_IMG_date images from number 200 on and phone_IMG_seq train; phone_IMG_date 0-199,
handheld_uuid and edje are never read here (they measure the recogniser on unseen photos).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.crops import index_crop, square_up
from vision.evaluate import normalise_label

REAL_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "ammememe"
TRAIN_PARTS = (("phone_IMG_date", 200), ("phone_IMG_seq", 0))  # (folder, first image used)


def _labelled(src: Path, part: str, first: int):
    """(image path, [(code, (x1, y1, x2, y2) as fractions)]) for the part's training images."""
    names = [n.strip() for n in (src / "classes.txt").read_text().splitlines() if n.strip()]
    root = src / part
    for img in sorted((root / "images").glob("*.jpg"))[first:]:
        lab = root / "labels" / f"{img.stem}.txt"
        boxes = []
        for line in lab.read_text().splitlines() if lab.exists() else []:
            parts = line.split()
            if len(parts) < 5:
                continue
            code = normalise_label(names[int(parts[0])])
            if code is None or len(code) != 2:  # card backs, jokers
                continue
            x, y, w, h = (float(v) for v in parts[1:5])
            boxes.append((code, (x - w / 2, y - h / 2, x + w / 2, y + h / 2)))
        yield img, boxes


def write_real_detection_set(src: Path, root: Path, split: str = "real", copies: int = 2) -> int:
    """root/images/split + root/labels/split: the training photos with index boxes (class 0)."""
    (root / "images" / split).mkdir(parents=True, exist_ok=True)
    (root / "labels" / split).mkdir(parents=True, exist_ok=True)
    n = 0
    for part, first in TRAIN_PARTS:
        for img, boxes in _labelled(src, part, first):
            lines = [
                f"0 {(b[0] + b[2]) / 2:.6f} {(b[1] + b[3]) / 2:.6f} {b[2] - b[0]:.6f} {b[3] - b[1]:.6f}"
                for _, b in boxes
            ]
            for k in range(copies):
                stem = f"{part}_{img.stem}_{k}"
                shutil.copy(img, root / "images" / split / f"{stem}.jpg")
                (root / "labels" / split / f"{stem}.txt").write_text(
                    "\n".join(lines) + "\n" if lines else ""
                )
                n += 1
    return n


def join_detection_set(src: Path, root: Path) -> int:
    """The training photos written beside a rendered detector set (`write_real_detection_set`)
    and added to the training images its root/data.yaml names; the photos written."""
    n = write_real_detection_set(src, root)
    yaml = root / "data.yaml"
    yaml.write_text(
        yaml.read_text().replace("train: images/train", "train: [images/train, images/real]")
    )
    return n


def _training_photos(src: Path):
    """(part, image path, image, [(code, (x1, y1, x2, y2) in pixels)]) for every readable
    training photo of `TRAIN_PARTS`."""
    for part, first in TRAIN_PARTS:
        for path, boxes in _labelled(src, part, first):
            img = cv2.imread(str(path))
            if img is None:
                continue
            h, w = img.shape[:2]
            yield (
                part,
                path,
                img,
                [(code, (x1 * w, y1 * h, x2 * w, y2 * h)) for code, (x1, y1, x2, y2) in boxes],
            )


def write_real_crops(src: Path, crops: Path, per_box: int = 4, seed: int = 0) -> int:
    """crops/<CODE>/r_*.jpg: each labelled index cut `per_box` times with detector-like jitter."""
    rng = np.random.default_rng(seed)
    n = 0
    for part, path, img, boxes in _training_photos(src):
        for b, (code, (x1, y1, x2, y2)) in enumerate(boxes):
            bw, bh = x2 - x1, y2 - y1
            folder = crops / code
            folder.mkdir(parents=True, exist_ok=True)
            for k in range(per_box):
                j = rng.normal(0, 0.06, 4) * np.array([bw, bh, bw, bh])
                crop = square_up(index_crop(img, (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3])))
                name = folder / f"r_{part}_{path.stem}_{b}_{k}.jpg"
                cv2.imwrite(str(name), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                n += 1
    return n


def write_real_detector_crops(src: Path, crops: Path, models: Path | None = None) -> int:
    """crops/<CODE>/rd_*.jpg: the training photos' indices cut where the shipped detector puts
    its boxes (`vision.dataset.detector_crops`), as the classifier is given them at run time."""
    from vision.dataset import detector_crops
    from vision.recognizer import Recognizer

    rec = Recognizer(models, still=True)
    n = 0
    for part, path, img, boxes in _training_photos(src):
        n += detector_crops(rec, img, boxes, crops, f"rd_{part}_{path.stem}")
    return n
