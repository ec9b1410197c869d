"""Pathological floors the recogniser rarely sees: card-set figures per kind of floor.

Run: `python3 benchmarks/floors.py [--deck bellot-lgpl21] [--frames 10] [--seed 0]`. Each frame
is a rendered 1280x720 café table holding one of:
- `fan`: 15 cards fanned 5-8 degrees apart (each shows a thin strip with its index);
- `heap`: 20 cards thrown together at any angle;
- `small`: ten cards 9 % of the frame high (65 px: below the camera the README asks for);
- `crowded`: a floor left untaken for rounds, 20 cards in loose rows, touching or nearly;
- `overlap`: three rows of five cards, each laid half over the one before (a tidied floor);
- `edge`: eight cards lying partly outside the frame (a camera mounted off-centre);
- `tossed`: 4-10 cards thrown onto the middle of the table at any angle, some overlapping.
Both reads are measured (video: the table controller's; still: `basra-table recognize`). A
card counts when at least one corner index is visible; the figures are summed over the frames.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.deck import CODES, Deck  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402
from vision.scene import Camera, CardPlacement, Light, TableBackground, render  # noqa: E402

SIZE = (1280, 720)


def fan(rng: np.random.Generator, codes: list[str], n: int = 15) -> list[CardPlacement]:
    w, h = SIZE
    height, pivot, spread = h * 0.28, np.array([w / 2, h * 0.75]), rng.uniform(5, 8)
    out = []
    for k in range(n):
        a = (k - (n - 1) / 2) * spread
        up = np.array([np.sin(np.deg2rad(a)), -np.cos(np.deg2rad(a))])
        centre = pivot + up * height * 0.45
        out.append(CardPlacement(codes.pop(), (float(centre[0]), float(centre[1])), -a, height))
    return out


def heap(rng: np.random.Generator, codes: list[str], n: int = 20) -> list[CardPlacement]:
    w, h = SIZE
    return [
        CardPlacement(
            codes.pop(),
            (float(rng.normal(w / 2, w * 0.12)), float(rng.normal(h / 2, h * 0.12))),
            float(rng.uniform(-180, 180)),
            h * 0.2,
        )
        for _ in range(n)
    ]


def small(rng: np.random.Generator, codes: list[str], n: int = 10) -> list[CardPlacement]:
    w, h = SIZE
    return [
        CardPlacement(
            codes.pop(),
            (w * (0.2 + 0.6 * (i % 5) / 4), h * (0.35 + 0.3 * (i // 5))),
            float(rng.normal(0, 10)),
            h * 0.09,
        )
        for i in range(n)
    ]


def crowded(rng: np.random.Generator, codes: list[str], n: int = 20) -> list[CardPlacement]:
    w, h = SIZE
    height = h * 0.17
    return [
        CardPlacement(
            codes.pop(),
            (
                float(w * 0.5 + (i % 5 - 2) * height * 0.78 + rng.normal(0, height * 0.04)),
                float(h * 0.5 + (i // 5 - 1.5) * height * 1.04 + rng.normal(0, height * 0.04)),
            ),
            float(rng.normal(0, 6)),
            height,
        )
        for i in range(n)
    ]


def overlap(rng: np.random.Generator, codes: list[str], n: int = 15) -> list[CardPlacement]:
    w, h = SIZE
    height = h * 0.2
    step = height * 0.72 * rng.uniform(0.45, 0.6)
    return [
        CardPlacement(
            codes.pop(),
            (float(w * 0.5 + (i % 5 - 2) * step), float(h * 0.5 + (i // 5 - 1) * height * 1.1)),
            float(rng.normal(0, 4)),
            height,
        )
        for i in range(n)
    ]


def edge(rng: np.random.Generator, codes: list[str], n: int = 8) -> list[CardPlacement]:
    w, h = SIZE
    height, out = h * 0.2, []
    for i in range(n):
        side, t = i % 4, rng.uniform(0.2, 0.8)
        inset = height * rng.uniform(0.05, 0.3)  # the card's centre this far inside the border
        x, y = [(t * w, inset), (w - inset, t * h), (t * w, h - inset), (inset, t * h)][side]
        out.append(
            CardPlacement(codes.pop(), (float(x), float(y)), float(rng.uniform(-180, 180)), height)
        )
    return out


def tossed(rng: np.random.Generator, codes: list[str]) -> list[CardPlacement]:
    w, h = SIZE
    return [
        CardPlacement(
            codes.pop(),
            (float(rng.uniform(0.25, 0.75) * w), float(rng.uniform(0.2, 0.8) * h)),
            float(rng.uniform(-180, 180)),
            h * 0.16,
        )
        for _ in range(int(rng.integers(4, 11)))
    ]


KINDS = {"fan": fan, "heap": heap, "small": small, "crowded": crowded, "overlap": overlap,
         "edge": edge, "tossed": tossed}  # fmt: skip


def measure(kind: str, deck: Deck, frames: int, seed: int, still: bool) -> dict:
    reader = Recognizer(still=still)
    tp = fp = fn = 0
    for s in range(seed, seed + frames):
        rng = np.random.default_rng(s)
        codes = [str(c) for c in rng.permutation(CODES)]
        cards = KINDS[kind](rng, codes)
        bg = TableBackground.random(rng, SIZE)
        img, labels = render(bg, deck, cards, rng, [], Light.random(rng), Camera())
        truth = {lab.code for lab in labels if lab.face_up and lab.indices}
        got = {d.code for d in reader.recognize(img)}
        tp, fp, fn = tp + len(truth & got), fp + len(got - truth), fn + len(truth - got)
    f1 = 2 * tp / max(1, 2 * tp + fp + fn)
    return {"kind": kind, "reads": "still" if still else "video", "cards": tp + fn,
            "named": tp, "false": fp, "missed": fn, "f1": round(f1, 3)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", default="bellot-lgpl21")
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated, of: " + ", ".join(KINDS)
    )
    a = ap.parse_args()
    deck = Deck.load(a.deck)
    for kind in a.kinds.split(","):
        for still in (False, True):
            print(json.dumps(measure(kind, deck, a.frames, a.seed, still)), flush=True)


if __name__ == "__main__":
    main()
