"""Card faces shipped in vision/assets/decks: loading a deck and locating each card's corner indices.

The index boxes (rank + suit glyph pair, top-left and its 180° twin) are found once per card from
the artwork's ink and are what the detector learns to find.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

ASSETS = Path(__file__).resolve().parent / "assets" / "decks"
RANKS = "A23456789TJQK"
SUITS = "SHDC"
CODES = tuple(r + s for r in RANKS for s in SUITS)  # card order: rank A..K, then suit S H D C
TRAIN_DECKS = ("aguilar-lgpl3", "knoll-pd", "kennard-cc0-2color", "kennard-cc0-2color-bf")
HOLDOUT_DECK = "bellot-lgpl21"


def available_decks() -> list[str]:
    """Names of the decks shipped in the repository."""
    return sorted(p.name for p in ASSETS.iterdir() if (p / "AS.png").exists())


def _index_box(rgba: np.ndarray) -> tuple[float, float, float, float]:
    """Box (x1, y1, x2, y2) in pixels of the top-left corner index of one card face."""
    h, w = rgba.shape[:2]
    bgr = rgba[:, :, :3].astype(np.int16)
    alpha = rgba[:, :, 3]
    ink = ((bgr.max(axis=2) - bgr.min(axis=2) > 60) | (bgr.max(axis=2) < 150)) & (alpha > 128)
    region = np.zeros_like(ink)
    region[: int(0.42 * h), : int(0.34 * w)] = ink[: int(0.42 * h), : int(0.34 * w)]
    n, _, stats, _ = cv2.connectedComponentsWithStats(region.astype(np.uint8), connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, cw, ch, area = stats[i]
        if (
            area < 4
            or cw > 0.26 * w
            or ch > 0.26 * h
            or x > 0.17 * w
            or x < 0.02 * w
            or y < 0.012 * h
        ):
            continue
        if cw < 0.012 * w and ch > 0.1 * h:  # a border line, not a glyph
            continue
        comps.append((x, y, x + cw, y + ch))
    if not comps:
        raise ValueError("no index glyph found")
    comps.sort(key=lambda b: b[1])
    # The rank: the top-most glyph, plus any glyph of the same line beside it (the "1" of 10).
    x1, y1, x2, y2 = comps[0]
    for b in comps[1:]:
        overlap = min(y2, b[3]) - max(y1, b[1])
        same_line = overlap > 0.6 * (y2 - y1) and abs((b[3] - b[1]) - (y2 - y1)) < 0.35 * (y2 - y1)
        if same_line and b[0] - x2 < 0.04 * w and x1 - b[2] < 0.04 * w:
            x1, y1, x2, y2 = min(x1, b[0]), min(y1, b[1]), max(x2, b[2]), max(y2, b[3])
    # The suit: the nearest glyph just below the rank, centred under it.
    below = [
        b
        for b in comps
        if b[1] >= y2 - 0.01 * h
        and b[1] - y2 < 0.08 * h
        and x1 - 0.03 * w <= (b[0] + b[2]) / 2 <= x2 + 0.03 * w
        and (b[2] - b[0]) < 2.2 * max(x2 - x1, 0.06 * w)
    ]
    if below:
        b = min(below, key=lambda b: b[1])
        x1, y1, x2, y2 = min(x1, b[0]), min(y1, b[1]), max(x2, b[2]), max(y2, b[3])
    pad = 0.012 * h
    return (max(0, x1 - pad), max(0, y1 - pad), min(w, x2 + pad), min(h, y2 + pad))


@dataclass
class CardFace:
    """One card's artwork (BGRA) and its corner index boxes in the artwork's pixels."""

    code: str
    image: np.ndarray
    indices: list[tuple[float, float, float, float]] = field(default_factory=list)


@dataclass
class Deck:
    """A complete 52-card deck design (plus its back when the design has one)."""

    name: str
    faces: dict[str, CardFace]
    back: np.ndarray | None

    @classmethod
    def load(cls, name: str) -> Deck:
        return _load_deck(name)

    @property
    def aspect(self) -> float:
        img = next(iter(self.faces.values())).image
        return img.shape[1] / img.shape[0]


@lru_cache(maxsize=8)
def _load_deck(name: str) -> Deck:
    folder = ASSETS / name
    if not (folder / "AS.png").exists():
        raise ValueError(f"unknown deck {name!r}; shipped: {', '.join(available_decks())}")
    faces = {}
    for code in CODES:
        img = cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ValueError(f"deck {name!r} lacks {code}.png")
        h, w = img.shape[:2]
        tl = _safe_index_box(img)
        br = _safe_index_box(img[::-1, ::-1].copy())
        faces[code] = CardFace(code, img, [tl, br])
    _regularise(faces)
    back_path = folder / "BACK.png"
    back = cv2.imread(str(back_path), cv2.IMREAD_UNCHANGED) if back_path.exists() else None
    return Deck(name, faces, back)


def _safe_index_box(rgba: np.ndarray) -> tuple[float, float, float, float] | None:
    try:
        return _index_box(rgba)
    except ValueError:
        return None


def _regularise(faces: dict[str, CardFace]) -> None:
    """Replace index boxes that disagree with the deck's usual layout by the deck's median box.

    Boxes are measured in each corner's own upright frame; the second one is then rotated back
    to the bottom-right corner.
    """
    for k in range(2):
        found = np.array([f.indices[k] for f in faces.values() if f.indices[k] is not None])
        other = np.array([f.indices[1 - k] for f in faces.values() if f.indices[1 - k] is not None])
        ref = np.median(found if len(found) >= 20 else other, axis=0)
        rw, rh = ref[2] - ref[0], ref[3] - ref[1]
        for f in faces.values():
            b = f.indices[k]
            ok = b is not None and (
                abs(b[0] - ref[0]) < 0.25 * rw
                and abs(b[1] - ref[1]) < 0.25 * rh
                and 0.7 * rh < b[3] - b[1] < 1.3 * rh
                and 0.6 * rw < b[2] - b[0] < 1.7 * rw
            )
            f.indices[k] = tuple(float(v) for v in (b if ok else ref))
    for f in faces.values():
        h, w = f.image.shape[:2]
        b = f.indices[1]
        f.indices[1] = (w - b[2], h - b[3], w - b[0], h - b[1])
