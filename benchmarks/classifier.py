"""Accuracy of index classifiers alone: top-1, rank and suit on a folder of labelled crops.

    python3 benchmarks/classifier.py CROPS MODEL.onnx [MODEL.onnx ...] [--face]

CROPS holds <CODE>/*.jpg (as `basra-table train` writes its held-out `val` crops, squared up).
Every model reads the same crops through onnxruntime, so fp32 and int8 copies compare in one
run; each is scored on one read and on the four quarter turns averaged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    import onnxruntime as ort

    from vision.deck import CODES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crops", type=Path)
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--size", type=int, default=48)
    ap.add_argument(
        "--face",
        action="store_true",
        help="face-reader crops: also rank with the figures as one, and figure vs number",
    )
    a = ap.parse_args()
    xs, ys = [], []
    for i, code in enumerate(CODES):
        for f in sorted((a.crops / code).glob("*.jpg")):
            img = cv2.resize(cv2.imread(str(f)), (a.size, a.size), interpolation=cv2.INTER_AREA)
            xs.append(img[:, :, ::-1])
            ys.append(i)
    if not xs:
        sys.exit(f"error: no <CODE>/*.jpg crops under {a.crops}")
    x = np.stack(xs).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    y = np.array(ys)
    print(f"{len(y)} crops from {a.crops}")
    for m in a.models:
        s = ort.InferenceSession(str(m), providers=["CPUExecutionProvider"])
        name = s.get_inputs()[0].name
        # one read as cut, and the four quarter turns averaged (as the runtime reads photos)
        reads = [
            s.run(None, {name: np.ascontiguousarray(np.rot90(x, t, (2, 3)))})[0] for t in range(4)
        ]
        for how, probs in (("one read", reads[0]), ("four turns", sum(reads))):
            k = probs.argmax(1)
            rank = np.mean([CODES[p][0] == CODES[t][0] for p, t in zip(k, y, strict=True)])
            suit = np.mean([CODES[p][1] == CODES[t][1] for p, t in zip(k, y, strict=True)])
            print(f"{m} ({how}): top-1 {np.mean(k == y):.3f}, rank {rank:.3f}, suit {suit:.3f}")
            if a.face:  # what the face reader is trusted with: J, Q and K are one "figure"
                ranks = probs.reshape(-1, 13, 4).sum(axis=2)
                ranks = np.concatenate([ranks[:, :10], ranks[:, 10:].sum(1, keepdims=True)], 1)
                got, want = ranks.argmax(1), np.minimum(y // 4, 10)
                figure = np.mean((got == 10) == (want == 10))
                print(
                    f"  rank (figures as one) {np.mean(got == want):.3f}, figure vs number {figure:.3f}"
                )


if __name__ == "__main__":
    main()
