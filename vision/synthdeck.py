"""Synthetic deck designs: the shipped decks' faces with their corner indices redrawn in other
typefaces, sizes, colours and layouts, so that the models learn what an index says, not one font.

Glyphs come from the committed atlas (vision/assets/glyphs, built by `vision.glyph_atlas`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.deck import CODES, CardFace, Deck
from vision.glyph_atlas import ATLAS


@lru_cache(maxsize=1)
def atlas() -> tuple[dict[str, np.ndarray], list[str], list[str]]:
    """(masks by "font|glyph", rank fonts, suit fonts) from the committed atlas."""
    z = np.load(ATLAS)
    index = json.loads(bytes(z["index"]).decode())
    masks = {k: z[k] for k in z.files if k != "index"}
    return masks, index["rank_fonts"], index["suit_fonts"]


@dataclass
class IndexStyle:
    """How one deck design prints its corner index (sizes are fractions of the card height)."""

    rank_font: str
    suit_font: str
    rank_h: float
    suit_ratio: float
    side_by_side: bool
    margin_x: float
    margin_y: float
    gap: float
    condense: float
    ten_condense: float
    bold_px: int
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    four_corners: bool

    @classmethod
    def random(cls, rng: np.random.Generator) -> IndexStyle:
        _, rank_fonts, suit_fonts = atlas()
        black = tuple(int(v) for v in rng.integers(0, 45, 3))
        if rng.random() < 0.1:  # navy or dark green "black" suits
            black = (
                int(rng.integers(60, 120)),
                int(rng.integers(20, 70)),
                int(rng.integers(0, 40)),
            )
        return cls(
            rank_font=str(rng.choice(rank_fonts)),
            suit_font=str(rng.choice(suit_fonts)),
            rank_h=float(rng.uniform(0.065, 0.15)),
            suit_ratio=float(rng.uniform(0.5, 0.95)),
            side_by_side=bool(rng.random() < 0.12),
            margin_x=float(rng.uniform(0.025, 0.075)),
            margin_y=float(rng.uniform(0.025, 0.06)),
            gap=float(rng.uniform(0.03, 0.3)),
            condense=float(rng.uniform(0.8, 1.15)),
            ten_condense=float(rng.uniform(0.6, 1.0)),
            bold_px=int(rng.choice([0, 0, 0, 1, 2])),
            red=(int(rng.integers(0, 70)), int(rng.integers(0, 60)), int(rng.integers(160, 240))),
            black=black,
            four_corners=bool(rng.random() < 0.15),
        )


# where a number card's pips lie: (column -1 / 0 / 1, row from 0 at the top to 1 at the bottom)
_SIDES = [(-1, 0.0), (1, 0.0), (-1, 1.0), (1, 1.0)]
PIP_LAYOUT: dict[str, list[tuple[int, float]]] = {
    "A": [(0, 0.5)],
    "2": [(0, 0.0), (0, 1.0)],
    "3": [(0, 0.0), (0, 0.5), (0, 1.0)],
    "4": _SIDES,
    "5": [*_SIDES, (0, 0.5)],
    "6": [*_SIDES, (-1, 0.5), (1, 0.5)],
    "7": [*_SIDES, (-1, 0.5), (1, 0.5), (0, 0.25)],
    "8": [*_SIDES, (-1, 0.5), (1, 0.5), (0, 0.25), (0, 0.75)],
    "9": [*_SIDES, (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 0.5)],
    "T": [*_SIDES, (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 1 / 6), (0, 5 / 6)],
}
# layouts other designs print (French decks: the eight in two columns of four; some a nine in
# three rows of three, a seven with its middle pip lower); one design keeps one of each
PIP_VARIANTS: dict[str, list[list[tuple[int, float]]]] = {
    "7": [[*_SIDES, (-1, 0.5), (1, 0.5), (0, 0.3)]],
    "8": [[*_SIDES, (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3)]],
    "9": [[(c, r) for r in (0.0, 0.5, 1.0) for c in (-1, 0, 1)]],
}


@dataclass
class PipStyle:
    """How one deck design prints the pips of its number cards (fractions of the card)."""

    font: str
    size: float  # a pip's height over the card's
    ace: float  # the ace's one pip
    spread: float  # the side columns' distance from the middle, over the card's width
    top: float  # the first row's centre, from the top
    bold_px: int
    layouts: dict[str, list[tuple[int, float]]]  # rank -> (column, row) of each pip

    @classmethod
    def random(cls, rng: np.random.Generator, font: str | None = None) -> PipStyle:
        _, _, suit_fonts = atlas()
        return cls(
            font=font if font and rng.random() < 0.7 else str(rng.choice(suit_fonts)),
            size=float(rng.uniform(0.085, 0.14)),
            ace=float(rng.uniform(0.18, 0.4)),
            spread=float(rng.uniform(0.16, 0.22)),
            top=float(rng.uniform(0.17, 0.25)),
            bold_px=int(rng.choice([0, 0, 1])),
            layouts={
                rank: (
                    PIP_VARIANTS[rank][int(rng.integers(len(PIP_VARIANTS[rank])))]
                    if rank in PIP_VARIANTS and rng.random() < 0.35
                    else spots
                )
                for rank, spots in PIP_LAYOUT.items()
            },
        )


def _pip_layer(code: str, style: PipStyle, w: int, h: int) -> np.ndarray:
    """A card-sized alpha layer with the number card's pips where `style.layouts` puts them
    (those in the lower half upside down, as printed)."""
    layer = np.zeros((h, w), np.float32)
    size = (style.ace if code[0] == "A" else style.size) * h
    g = _glyph(f"{style.font}|{code[1]}", size, 1.0, style.bold_px)
    for col, row in style.layouts[code[0]]:
        cx = w / 2 + col * style.spread * w
        cy = style.top * h + row * (1 - 2 * style.top) * h
        pip = g[::-1, ::-1] if row > 0.5 else g
        gh, gw = pip.shape
        x0, y0 = int(round(cx - gw / 2)), int(round(cy - gh / 2))
        x1, y1 = max(x0, 0), max(y0, 0)
        x2, y2 = min(x0 + gw, w), min(y0 + gh, h)
        if x2 > x1 and y2 > y1:
            part = pip[y1 - y0 : y2 - y0, x1 - x0 : x2 - x0]
            layer[y1:y2, x1:x2] = np.maximum(layer[y1:y2, x1:x2], part)
    return layer


def _glyph(key: str, height: float, condense: float, bold_px: int) -> np.ndarray:
    m = atlas()[0][key]
    hh = max(3, round(height))
    ww = max(2, round(m.shape[1] * hh / m.shape[0] * condense))
    g = cv2.resize(m, (ww, hh), interpolation=cv2.INTER_AREA)
    if bold_px:
        g = cv2.dilate(g, np.ones((bold_px + 1, bold_px + 1), np.uint8))
    return g.astype(np.float32) / 255.0


def _index_layer(code: str, style: IndexStyle, w: int, h: int) -> tuple[np.ndarray, list[float]]:
    """A card-sized alpha layer with the top-left index drawn, and that index's box."""
    rank, suit = code[0], code[1]
    rh = style.rank_h * h
    condense = style.condense * (style.ten_condense if rank == "T" else 1.0)
    r = _glyph(f"{style.rank_font}|{rank}", rh, condense, style.bold_px)
    s = _glyph(f"{style.suit_font}|{suit}", rh * style.suit_ratio, 1.0, style.bold_px)
    x0, y0 = style.margin_x * w, style.margin_y * h
    if style.side_by_side:
        rx, ry = x0, y0
        sx = x0 + r.shape[1] + style.gap * s.shape[1]
        sy = y0 + (r.shape[0] - s.shape[0]) / 2
    else:
        width = max(r.shape[1], s.shape[1])
        rx, ry = x0 + (width - r.shape[1]) / 2, y0
        sx, sy = x0 + (width - s.shape[1]) / 2, y0 + r.shape[0] + style.gap * s.shape[0]
    layer = np.zeros((h, w), np.float32)
    boxes = []
    for g, gx, gy in ((r, rx, ry), (s, sx, sy)):
        gx, gy = int(round(gx)), int(round(gy))
        gh, gw = g.shape
        gh, gw = min(gh, h - gy), min(gw, w - gx)
        if gh <= 0 or gw <= 0:
            continue
        layer[gy : gy + gh, gx : gx + gw] = np.maximum(
            layer[gy : gy + gh, gx : gx + gw], g[:gh, :gw]
        )
        boxes.append((gx, gy, gx + gw, gy + gh))
    pad = 0.012 * h
    xs = [b[0] for b in boxes] + [b[2] for b in boxes]
    ys = [b[1] for b in boxes] + [b[3] for b in boxes]
    box = [
        max(0.0, min(xs) - pad),
        max(0.0, min(ys) - pad),
        min(w, max(xs) + pad),
        min(h, max(ys) + pad),
    ]
    return layer, box


def _paper(img: np.ndarray) -> np.ndarray:
    rgb, a = img[:, :, :3], img[:, :, 3]
    light = rgb[(a > 200) & (rgb.min(axis=2) > 190)]
    return np.median(light, axis=0) if len(light) else np.array([250.0, 250.0, 250.0])


def restyle_face(face: CardFace, style: IndexStyle, pips: PipStyle | None = None) -> CardFace:
    """The same card with its corner indices erased and redrawn in `style`; with `pips`, a
    number card's face is also cleared and its pips drawn anew (a court keeps its figure)."""
    img = face.image.astype(np.float32)
    h, w = img.shape[:2]
    paper = _paper(face.image)
    colour = np.array(style.red if face.code[1] in "HD" else style.black, np.float32)
    if pips is not None and face.code[0] in PIP_LAYOUT:
        inset = int(0.04 * w)  # the card's rim (its edge, a printed frame line) stays
        img[inset : h - inset, inset : w - inset, :3] = paper
        alpha = _pip_layer(face.code, pips, w, h)[:, :, None]
        img[:, :, :3] = img[:, :, :3] * (1 - alpha) + colour * alpha
    layer, box = _index_layer(face.code, style, w, h)
    boxes = [box, [w - box[2], h - box[3], w - box[0], h - box[1]]]
    if style.four_corners:
        boxes += [
            [w - box[2], box[1], w - box[0], box[3]],
            [box[0], h - box[3], box[2], h - box[1]],
        ]
    pad = 0.01 * h
    for b in list(face.indices) + boxes:  # clear the old indices and room for the new ones
        x1, y1 = int(max(0, b[0] - pad)), int(max(0, b[1] - pad))
        x2, y2 = int(min(w, b[2] + pad)), int(min(h, b[3] + pad))
        img[y1:y2, x1:x2, :3] = paper
    full = np.maximum(layer, layer[::-1, ::-1])
    if style.four_corners:
        shifted = np.zeros_like(layer)
        dx = int(round(w - box[2] - box[0]))
        shifted[:, dx:] = layer[:, : w - dx]
        full = np.maximum(full, np.maximum(shifted, shifted[::-1, ::-1]))
    alpha = full[:, :, None]
    img[:, :, :3] = img[:, :, :3] * (1 - alpha) + colour * alpha
    return CardFace(face.code, np.clip(img, 0, 255).astype(np.uint8), [tuple(b) for b in boxes])


def synth_deck(
    rng: np.random.Generator,
    base: Deck,
    style: IndexStyle | None = None,
    pips: PipStyle | bool | None = None,
) -> Deck:
    """A whole new deck design: `base`'s artwork with one random index style throughout; with
    `pips` (a style, or True for a random one) its number cards' pips drawn anew too."""
    style = style or IndexStyle.random(rng)
    if pips is True:
        pips = PipStyle.random(rng, style.suit_font)
    faces = {code: restyle_face(base.faces[code], style, pips or None) for code in CODES}
    return Deck(f"synth-{base.name}-{style.rank_font}", faces, base.back)
