"""Random card layouts for training scenes: scattered floors, overlapping piles, fans, close-ups.

Every layout draws its codes without replacement, as one physical deck would.
"""

from __future__ import annotations

import numpy as np

from vision.deck import CODES
from vision.scene import CardPlacement


def random_layout(
    rng: np.random.Generator, size: tuple[int, int], scale: float = 1.0
) -> list[CardPlacement]:
    """A plausible mix of floor cards, piles and fans for a frame of `size` (w, h).

    `scale` multiplies card heights (1.0: a card is about a fifth of the frame's height).
    """
    w, h = size
    codes = [str(c) for c in rng.permutation(CODES)]
    out: list[CardPlacement] = []
    mode = rng.choice(["floor", "mixed", "fan", "pile", "closeup"], p=[0.3, 0.3, 0.12, 0.13, 0.15])
    base_h = min(w, h) * rng.uniform(0.16, 0.45) * scale
    if mode == "closeup":
        base_h = min(w, h) * rng.uniform(0.5, 1.1) * scale
        for _ in range(int(rng.integers(1, 3))):
            out.append(_card(rng, codes, w, h, base_h, any_angle=True))
        return out
    if mode in ("floor", "mixed"):
        for _ in range(int(rng.integers(1, 9))):
            out.append(_card(rng, codes, w, h, base_h * rng.uniform(0.9, 1.1), any_angle=True))
    if mode in ("fan", "mixed"):
        for _ in range(int(rng.integers(1, 3) if mode == "fan" else rng.integers(0, 2))):
            out.extend(_fan(rng, codes, w, h, base_h))
    if mode in ("pile", "mixed"):
        for _ in range(int(rng.integers(1, 3) if mode == "pile" else rng.integers(0, 2))):
            out.extend(_pile(rng, codes, w, h, base_h))
    return [p for p in out if p.code]


def _card(rng, codes, w, h, height, any_angle=False) -> CardPlacement:
    angle = rng.uniform(-180, 180) if any_angle and rng.random() < 0.6 else rng.normal(0, 8)
    angle += rng.choice([0, 90, 180, 270]) if rng.random() < 0.4 else 0
    return CardPlacement(
        codes.pop() if codes else "",
        (rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h),
        float(angle),
        float(height),
        face_up=bool(rng.random() > 0.06),
    )


def _fan(rng, codes, w, h, height) -> list[CardPlacement]:
    n = int(rng.integers(3, 8))
    pivot = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
    base = rng.uniform(0, 360)
    spread = rng.uniform(6, 16)
    radius = height * rng.uniform(0.35, 0.6)
    out = []
    for k in range(n):
        a = base + (k - (n - 1) / 2) * spread
        r = np.deg2rad(a)
        up = np.array([np.sin(r), -np.cos(r)])  # the card's "up" direction on screen
        center = pivot + up * radius
        out.append(
            CardPlacement(codes.pop() if codes else "", tuple(center), float(-a), float(height))
        )
    if rng.random() < 0.5:
        out.reverse()
    return out


def _pile(rng, codes, w, h, height) -> list[CardPlacement]:
    n = int(rng.integers(2, 6))
    c = np.array([rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h])
    step = np.array(rng.uniform(-0.35, 0.35, 2)) * height
    angle = rng.uniform(-180, 180)
    out = []
    for k in range(n):
        jitter = rng.normal(0, 0.05, 2) * height
        out.append(
            CardPlacement(
                codes.pop() if codes else "",
                tuple(c + step * k + jitter),
                float(angle + rng.normal(0, 12)),
                float(height),
            )
        )
    return out


def table_layout(
    rng: np.random.Generator, size: tuple[int, int], card_height: float | None = None
) -> list[CardPlacement]:
    """A café-table frame as the overhead camera sees it mid-round: a floor of 2-10 cards in the
    middle (a few overlapping), captured piles and the odd face-down card near the edges."""
    w, h = size
    codes = [str(c) for c in rng.permutation(CODES)]
    ch = card_height or h * rng.uniform(0.15, 0.24)
    out: list[CardPlacement] = []
    for _ in range(int(rng.integers(2, 11))):
        center = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.2, 0.8) * h)
        angle = rng.normal(0, 15) + (rng.choice([0, 90, 180, 270]) if rng.random() < 0.5 else 0)
        out.append(CardPlacement(codes.pop(), center, float(angle), float(ch)))
    for _ in range(int(rng.integers(0, 3))):  # a player's capture pile at an edge
        pile = _pile(rng, codes, w, h, ch)
        edge_y = rng.choice([0.08, 0.92]) * h
        shift = edge_y - pile[0].center[1]
        for p in pile:
            p.center = (p.center[0], p.center[1] + shift)
            p.face_up = bool(rng.random() < 0.7)
        out.extend(pile)
    return out
