"""Where the recogniser loses cards, stage by stage, on a YOLO folder with per-index boxes.

Each labelled card is counted once: `ok` (an index of it found and the card reported), `no_index`
(no detected index overlaps any of its labelled index boxes, IoU > 0.3), `misnamed` (indices
found, none named right), `lost_later` (named right, lost in grouping, the one-deck step or the
thresholds). Usage: python benchmarks/vision_stages.py DATASET [--models DIR] [--limit N] [--still]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    import cv2

    from vision.evaluate import _find_names, normalise_label
    from vision.recognizer import Recognizer, _iou

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dataset", type=Path, help="images/ + labels/ + classes.txt")
    ap.add_argument("--models", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--still", action="store_true", help="single-photo reads (as `eval`)")
    a = ap.parse_args()
    names = _find_names(a.dataset, a.dataset.parent)  # classes.txt here or a folder above
    if not names:
        raise SystemExit(f"no classes.txt or data.yaml names at or above {a.dataset}")
    rec = Recognizer(a.models, still=a.still)
    counts: Counter = Counter()
    images = sorted((a.dataset / "images").glob("*"))
    for path in images[: a.limit or None]:
        img = cv2.imread(str(path))
        h, w = img.shape[:2]
        boxes = defaultdict(list)
        for line in (a.dataset / "labels" / f"{path.stem}.txt").read_text().splitlines():
            if line.strip():
                c, x, y, bw, bh = map(float, line.split())
                code = normalise_label(names[int(c)])
                box = [(x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h]
                boxes[code].append(box)
        frame = rec.prepare(img)  # as the models read it (a speckled photo filtered)
        hits, cards = rec.detect(frame, prepared=True)
        reported = {d.code for d in rec.assemble(hits, cards, w, h, frame)}
        for code, own in boxes.items():
            found = [hit for b in own for hit in hits if _iou(hit.box, b) > 0.3]
            if not found:
                counts["no_index"] += 1
            elif all(hit.code != code for hit in found):
                counts["misnamed"] += 1
            elif code not in reported:
                counts["lost_later"] += 1
            else:
                counts["ok"] += 1
    total = sum(counts.values())
    for k in ("ok", "no_index", "misnamed", "lost_later"):
        print(f"{k:>10}: {counts[k]:5d}  {counts[k] / max(total, 1):.1%}")
    print(f"{'cards':>10}: {total:5d}")


if __name__ == "__main__":
    main()
