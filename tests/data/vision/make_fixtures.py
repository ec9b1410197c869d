"""Regenerates the rendered fixtures of tests/data/vision (held-out deck, fixed seeds).

Run from the repo root: `python tests/data/vision/make_fixtures.py`.
"""

import json
from pathlib import Path

import cv2
import numpy as np

from vision.dataset import table_scene
from vision.deck import Deck
from vision.scene import Light, Occluder, TableBackground, render

HERE = Path(__file__).resolve().parent


def main() -> None:
    deck = Deck.load("bellot-lgpl21")
    truth = {}
    for k, seed in enumerate((101, 202, 303)):
        rng = np.random.default_rng(seed)
        img, labels = table_scene(rng, deck, (1280, 720), occlusion=0.7)
        name = f"rendered_bellot_{k}.jpg"
        cv2.imwrite(str(HERE / name), img, [cv2.IMWRITE_JPEG_QUALITY, 88])
        truth[name] = sorted(lab.code for lab in labels if lab.face_up and lab.indices)
    rng = np.random.default_rng(404)
    bg = TableBackground.random(rng, (1280, 720), kind="laminate")
    img, _ = render(bg, deck, [], rng, [Occluder.random(rng, (1280, 720))], Light.random(rng))
    cv2.imwrite(str(HERE / "empty_table.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 88])
    truth["empty_table.jpg"] = []
    (HERE / "rendered_truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(truth)


if __name__ == "__main__":
    main()
