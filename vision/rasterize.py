"""Rasterises the SVG decks of ../shared/data/decks into the PNG card faces shipped in the repo.

Run once (`python -m vision.rasterize`); the product reads only vision/assets/decks/ at run time.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

ASSETS = Path(__file__).resolve().parent / "assets" / "decks"
SHARED_DECKS = Path(__file__).resolve().parents[2] / "shared" / "data" / "decks"
DECKS = (
    "aguilar-lgpl3",
    "bellot-lgpl21",
    "kennard-cc0-2color",
    "kennard-cc0-2color-bf",
    "knoll-pd",
)


def rasterize_deck(src: Path, dst: Path, height: int) -> int:
    """Render every face card (and the back) of one deck folder to <CODE>.png; return the count."""
    dst.mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader((src / "manifest.csv").open()))
    done = 0
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            name = (
                row["code"] if row["kind"] == "face" else ("BACK" if row["kind"] == "back" else "")
            )
            if not name:
                continue
            out = Path(tmp) / f"{name}.png"
            subprocess.run(
                ["rsvg-convert", "-h", str(height), "-o", str(out), str(src / row["file"])],
                check=True,
            )
            img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
            if img.ndim == 2 or img.shape[2] == 3:
                img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
            # Trim fully transparent margins so the card fills its image.
            ys, xs = np.nonzero(img[:, :, 3] > 8)
            img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            cv2.imwrite(str(dst / f"{name}.png"), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
            done += 1
    for extra in ("LICENSE", "README.md", "AUTHORS"):
        if (src / extra).exists():
            shutil.copy(src / extra, dst / extra)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path, default=SHARED_DECKS)
    parser.add_argument("--height", type=int, default=240)
    args = parser.parse_args()
    for deck in DECKS:
        n = rasterize_deck(args.src / deck, ASSETS / deck, args.height)
        print(f"{deck}: {n} images")


if __name__ == "__main__":
    main()
