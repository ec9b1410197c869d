"""Classifier training crops cut straight from the deck artwork: one card turned to any angle
and scaled, lit and blurred like a camera frame, then cut out exactly as the runtime does.

Far cheaper than whole scenes, so the classifier can see tens of thousands of indices.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.crops import CROP_PX, index_crop, square_up
from vision.deck import CODES, Deck


def art_crop(rng: np.random.Generator, deck: Deck, code: str, out: int = CROP_PX) -> np.ndarray:
    """One runtime-like crop of a corner index of `code` (BGR, out x out, squared up)."""
    face = deck.faces[code]
    art = face.image
    h, w = art.shape[:2]
    bx = face.indices[int(rng.integers(2))]
    index_h = rng.uniform(14, 60)
    s = index_h / (bx[3] - bx[1])
    angle = rng.uniform(0, 360)
    c = ((bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2)
    canvas_px = int(max(64, 4 * index_h))
    m = cv2.getRotationMatrix2D(c, angle, s)
    m[:, 2] += np.array([canvas_px / 2, canvas_px / 2]) - np.array(c)
    bg = np.empty((canvas_px, canvas_px, 3), np.float32)
    bg[:] = rng.uniform(20, 250, 3)
    bg += rng.normal(0, rng.uniform(1, 12), (canvas_px, canvas_px, 1))
    warped = cv2.warpAffine(
        art, m, (canvas_px, canvas_px), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0)
    )
    a = warped[:, :, 3:4].astype(np.float32) / 255
    paper = rng.uniform(0.8, 1.05) * rng.uniform(0.92, 1.05, 3)
    img = warped[:, :, :3] * paper * a + bg * (1 - a)
    # light gradient, blur, noise, jpeg
    g = np.linspace(rng.uniform(0.6, 1.1), rng.uniform(0.6, 1.1), canvas_px, dtype=np.float32)
    img *= g[None, :, None] if rng.random() < 0.5 else g[:, None, None]
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.4))
    img += rng.normal(0, rng.uniform(0, 8), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.15:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    corners = np.array([[bx[0], bx[1], 1], [bx[2], bx[1], 1], [bx[2], bx[3], 1], [bx[0], bx[3], 1]])
    q = corners @ m.T
    x1, y1 = q.min(axis=0)
    x2, y2 = q.max(axis=0)
    bw, bh = x2 - x1, y2 - y1
    j = rng.normal(0, 0.06, 4) * np.array([bw, bh, bw, bh])  # detector-like box noise
    return square_up(index_crop(img, (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3]), out))


def write_art_crops(root: Path, decks: list[str], per_class: int, seed: int) -> int:
    """root/<CODE>/a*.jpg: `per_class` crops of every code, spread over `decks`."""
    rng = np.random.default_rng(seed)
    return _write_crops(root, [Deck.load(d) for d in decks], per_class, rng, f"a{seed}")


def write_synth_crops(
    root: Path, decks: list[str], n_designs: int, per_class: int, seed: int, progress=None
) -> int:
    """root/<CODE>/s*.jpg: `per_class` crops of every code from `n_designs` synthetic deck
    designs (the shipped decks' faces with indices redrawn in other typefaces, see
    `vision.synthdeck`), so the classifier reads ranks it has never seen printed that way."""
    from vision.synthdeck import synth_deck

    rng = np.random.default_rng(seed)
    bases = [Deck.load(d) for d in decks]
    designs = []
    for k in range(n_designs):
        designs.append(synth_deck(rng, bases[k % len(bases)]))
        if progress:
            progress(k + 1)
    return _write_crops(root, designs, per_class, rng, f"s{seed}")


def _write_crops(root: Path, decks: list[Deck], per_class: int, rng, prefix: str) -> int:
    """root/<CODE>/<prefix>_<k>.jpg: `per_class` crops of every code, the decks taken in turn."""
    n = 0
    for code in CODES:
        folder = root / code
        folder.mkdir(parents=True, exist_ok=True)
        for k in range(per_class):
            crop = art_crop(rng, decks[k % len(decks)], code)
            cv2.imwrite(str(folder / f"{prefix}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            n += 1
    return n
