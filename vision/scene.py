"""Synthetic table scenes: procedural table tops, cards laid by placement, hands, light and camera.

`compose` renders one frame with exact labels; a video keeps one `TableBackground` for all frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.deck import Deck

Quad = list[list[float]]
TABLE_KINDS = ("felt", "wood", "laminate", "cloth", "pattern")


@dataclass
class CardPlacement:
    """Where one card lies: centre in pixels, rotation (degrees, counter-clockwise), height."""

    code: str
    center: tuple[float, float]
    angle_deg: float = 0.0
    height_px: float = 150.0
    face_up: bool = True


@dataclass
class Occluder:
    """A skin-coloured arm reaching in from a frame edge to a hand at `tip`."""

    base: tuple[float, float]
    tip: tuple[float, float]
    width: float
    color: tuple[int, int, int]

    @classmethod
    def random(cls, rng: np.random.Generator, size: tuple[int, int]) -> Occluder:
        w, h = size
        edge = rng.integers(4)
        t = rng.uniform(0.1, 0.9)
        base = [(t * w, h + 20), (t * w, -20), (-20, t * h), (w + 20, t * h)][edge]
        tip = (rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h)
        return cls(base, tip, float(rng.uniform(0.07, 0.14) * min(w, h)), skin_tone(rng))


@dataclass
class Light:
    """Lighting of a frame: gradient strength, colour tint, glare spots, shadow strength."""

    gradient: float = 0.3
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    glare: int = 0
    shadow: float = 0.35

    @classmethod
    def random(cls, rng: np.random.Generator) -> Light:
        warm = rng.uniform(-0.12, 0.12)
        tint = (1.0 - warm, 1.0, 1.0 + warm * 0.6)
        return cls(
            float(rng.uniform(0.0, 0.6)),
            tint,
            int(rng.choice([0, 0, 1, 2])),
            float(rng.uniform(0.1, 0.55)),
        )


@dataclass
class Camera:
    """Camera degradations: blur (px), sensor noise (sigma), JPEG quality, perspective tilt."""

    blur: float = 0.0
    motion: float = 0.0
    noise: float = 2.0
    jpeg: int = 90
    tilt: float = 0.0

    @classmethod
    def random(cls, rng: np.random.Generator, perspective: bool = True) -> Camera:
        return cls(
            float(rng.choice([0.0, 0.0, rng.uniform(0.3, 1.6)])),
            float(rng.choice([0.0, 0.0, 0.0, rng.uniform(2, 7)])),
            float(rng.uniform(0.0, 7.0)),
            int(rng.integers(35, 96)),
            float(rng.uniform(0.0, 0.08)) if perspective else 0.0,
        )


@dataclass
class CardLabel:
    """Exact label of one visible card: its outline, box and its visible corner-index boxes."""

    code: str
    quad: Quad
    box: list[float]
    indices: list[list[float]] = field(default_factory=list)
    visible: float = 1.0
    face_up: bool = True


@dataclass
class TableBackground:
    """A table top (BGR image) kept for a whole video so that frames agree with each other."""

    image: np.ndarray
    kind: str

    @property
    def size(self) -> tuple[int, int]:
        return self.image.shape[1], self.image.shape[0]

    @classmethod
    def random(
        cls, rng: np.random.Generator, size: tuple[int, int] = (1280, 720), kind: str | None = None
    ) -> TableBackground:
        kind = kind or str(rng.choice(TABLE_KINDS, p=[0.28, 0.22, 0.2, 0.15, 0.15]))
        w, h = size
        makers = {
            "felt": _felt,
            "wood": _wood,
            "laminate": _laminate,
            "cloth": _cloth,
            "pattern": _pattern,
        }
        if kind not in makers:
            raise ValueError(f"unknown table kind {kind!r}; one of {', '.join(TABLE_KINDS)}")
        img = makers[kind](rng, w, h)
        return cls(np.clip(img, 0, 255).astype(np.uint8), kind)


def skin_tone(rng: np.random.Generator) -> tuple[int, int, int]:
    """A BGR skin colour from light to dark."""
    t = rng.uniform(0, 1)
    light = np.array([170, 195, 235])
    dark = np.array([45, 70, 110])
    c = light * (1 - t) + dark * t + rng.normal(0, 8, 3)
    return tuple(int(v) for v in np.clip(c, 0, 255))


def _noise_field(rng: np.random.Generator, w: int, h: int, scale: int) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _felt(rng, w, h):
    base = np.array(
        [
            rng.choice([rng.uniform(20, 90), rng.uniform(60, 140)]),
            rng.uniform(60, 150),
            rng.uniform(10, 60),
        ]
    )
    if rng.random() < 0.35:  # blue, red or grey felt
        base = rng.uniform(25, 140, 3)
    return _flat(rng, w, h, base, scale=40, mottle=(3, 10), grain=(2, 7))


def _flat(rng, w, h, base, scale, mottle, grain):
    """A flat colour with low-frequency mottling and per-pixel grain (felt, laminate)."""
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img += _noise_field(rng, w, h, scale)[..., None] * rng.uniform(*mottle)
    img += rng.normal(0, rng.uniform(*grain), (h, w, 1)).astype(np.float32)
    return img


def _wood(rng, w, h):
    base = np.array([rng.uniform(30, 110), rng.uniform(60, 150), rng.uniform(100, 200)])
    ang = rng.uniform(0, np.pi) if rng.random() < 0.3 else rng.choice([0, np.pi / 2])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    v = -xx * np.sin(ang) + yy * np.cos(ang)
    warp = _noise_field(rng, w, h, 120) * 25
    grain = np.sin((v + warp) / rng.uniform(3, 9)) * 0.5 + np.sin((v + warp * 2) / 23) * 0.5
    plank = np.floor(v / rng.uniform(80, 220))
    plank_shift = (np.sin(plank * 12.9898) * 43758.5453) % 1.0
    shade = 1 + 0.12 * grain + 0.15 * (plank_shift - 0.5) + 0.03 * np.sin(u / 90)
    img = base[None, None, :] * shade[..., None]
    return img.astype(np.float32)


def _laminate(rng, w, h):
    g = rng.uniform(185, 250)
    base = np.array([g + rng.uniform(-20, 5), g + rng.uniform(-10, 5), g + rng.uniform(-5, 5)])
    return _flat(rng, w, h, base, scale=60, mottle=(1, 5), grain=(1, 4))


def _cloth(rng, w, h):
    c1 = rng.uniform(40, 250, 3)
    c2 = rng.uniform(20, 230, 3)
    period = rng.uniform(12, 60)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = (np.sin(xx * np.pi / period) > 0).astype(np.float32)
    b = (np.sin(yy * np.pi / period) > 0).astype(np.float32)
    mix = (a + b) / 2
    img = c1[None, None, :] * (1 - mix[..., None]) + c2[None, None, :] * mix[..., None]
    weave = np.sin(xx * 1.7) * np.sin(yy * 1.7) * 6
    img += weave[..., None]
    img += rng.normal(0, 3, (h, w, 1))
    return img.astype(np.float32)


def _pattern(rng, w, h):
    img = np.empty((h, w, 3), np.float32)
    img[:] = rng.uniform(30, 240, 3)
    for _ in range(int(rng.integers(10, 60))):
        color = tuple(float(v) for v in rng.uniform(0, 255, 3))
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        r = int(rng.uniform(4, 0.12 * max(w, h)))
        shape = rng.integers(3)
        if shape == 0:
            cv2.circle(img, (x, y), r, color, -1 if rng.random() < 0.6 else 2)
        elif shape == 1:
            cv2.line(img, (x, y), (int(rng.uniform(0, w)), int(rng.uniform(0, h))), color, 2)
        else:
            cv2.rectangle(img, (x, y), (x + r, y + r // 2), color, -1 if rng.random() < 0.5 else 2)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))
    return img


def card_quad(p: CardPlacement, aspect: float) -> np.ndarray:
    """The four corners (TL, TR, BR, BL of the card's own upright frame) in frame pixels."""
    hh = p.height_px / 2
    hw = hh * aspect
    a = np.deg2rad(p.angle_deg)
    rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]) @ rot.T
    return pts + np.array(p.center)


def _affine_for(p: CardPlacement, src_w: int, src_h: int, aspect: float) -> np.ndarray:
    quad = card_quad(p, aspect)
    src = np.float32([[0, 0], [src_w, 0], [src_w, src_h]])
    return cv2.getAffineTransform(src, quad[:3].astype(np.float32))


def _draw_arm(canvas: np.ndarray, ids: np.ndarray, occ: Occluder, rng: np.random.Generator):
    h, w = canvas.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    base = np.array(occ.base, np.float64)
    tip = np.array(occ.tip, np.float64)
    d = tip - base
    d /= np.linalg.norm(d) + 1e-6
    n = np.array([-d[1], d[0]])
    cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, int(occ.width))
    palm = tip + d * occ.width * 0.5
    axes = (int(occ.width * 0.85), int(occ.width * 0.6))
    ang = float(np.degrees(np.arctan2(d[1], d[0])))
    cv2.ellipse(mask, tuple(int(v) for v in palm), axes, ang, 0, 360, 255, -1)
    for k in range(4 if rng.random() < 0.8 else 0):
        off = (k - 1.5) * occ.width * 0.28
        start = palm + n * off + d * occ.width * 0.4
        length = occ.width * rng.uniform(0.5, 1.1) * (0.75 if k in (0, 3) else 1.0)
        bend = rng.uniform(-0.3, 0.3)
        end = start + (d + n * bend) * length
        cv2.line(
            mask,
            tuple(int(v) for v in start),
            tuple(int(v) for v in end),
            255,
            max(2, int(occ.width * 0.2)),
        )
    m = cv2.GaussianBlur(mask, (0, 0), 1.2).astype(np.float32)[..., None] / 255.0
    shade = 0.75 + 0.35 * _noise_field(rng, w, h, 50)[..., None] * 0.3
    yy, xx = np.mgrid[0:h, 0:w]
    across = ((xx - base[0]) * n[0] + (yy - base[1]) * n[1]) / (occ.width * 0.5 + 1e-6)
    shade = shade * (1.05 - 0.25 * np.clip(np.abs(across), 0, 1.5)[..., None] ** 2)
    skin = np.array(occ.color, np.float32)[None, None, :] * shade
    # a soft shadow of the arm first
    sh = cv2.GaussianBlur(np.roll(mask, (int(occ.width * 0.3),) * 2, axis=(0, 1)), (0, 0), 8)
    canvas *= 1 - 0.35 * (sh.astype(np.float32)[..., None] / 255.0)
    canvas[:] = canvas * (1 - m) + skin * m
    ids[mask > 127] = -2


def render(
    bg: TableBackground,
    deck: Deck,
    placements: list[CardPlacement],
    rng: np.random.Generator,
    occluders: list[Occluder] | None = None,
    light: Light | None = None,
    camera: Camera | None = None,
    min_visible: float = 0.6,
) -> tuple[np.ndarray, list[CardLabel]]:
    """Render a frame (BGR uint8) and the exact labels of every card that can still be seen.

    A corner index counts as visible when at least `min_visible` of it is uncovered.
    """
    light = light if light is not None else Light()
    camera = camera if camera is not None else Camera()
    canvas = bg.image.astype(np.float32)
    h, w = canvas.shape[:2]
    ids = np.full((h, w), -1, np.int16)
    aspect = deck.aspect
    shadow_dx = rng.uniform(-1, 1, 2)
    for i, p in enumerate(placements):
        if p.face_up:
            if p.code not in deck.faces:
                raise ValueError(f"unknown card code {p.code!r}")
            art = deck.faces[p.code].image
        else:
            art = deck.back if deck.back is not None else _plain_back(deck, rng)
        quad = card_quad(p, aspect)
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 12
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 12
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if cx0 >= cx1 or cy0 >= cy1:
            continue
        m = _affine_for(p, art.shape[1], art.shape[0], aspect)
        m[:, 2] -= (cx0, cy0)
        size = (cx1 - cx0, cy1 - cy0)
        scale = p.height_px / art.shape[0]
        interp = cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR
        warped = cv2.warpAffine(art, m, size, flags=interp, borderValue=(0, 0, 0, 0))
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        region = canvas[cy0:cy1, cx0:cx1]
        if light.shadow > 0:
            off = (p.height_px * 0.03 * shadow_dx).astype(int)
            sh = np.roll(alpha[:, :, 0], (off[1], off[0]), axis=(0, 1))
            sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, p.height_px * 0.02))
            region *= 1 - light.shadow * sh[..., None]
        face = warped[:, :, :3].astype(np.float32)
        if p.face_up:  # paper is never as white as the artwork
            face = face * rng.uniform(0.88, 1.0) + rng.uniform(-6, 6, 3)
        region[:] = region * (1 - alpha) + face * alpha
        ids[cy0:cy1, cx0:cx1][alpha[:, :, 0] > 0.5] = i
    for occ in occluders or []:
        _draw_arm(canvas, ids, occ, rng)
    labels = _labels(placements, deck, ids, min_visible)
    canvas = _apply_light(canvas, light, rng)
    if camera.tilt > 0:
        canvas, labels = _perspective(canvas, labels, camera.tilt, rng)
    img = _apply_camera(canvas, camera, rng)
    return img, labels


def compose(
    bg: TableBackground,
    deck: Deck,
    placements: list[CardPlacement],
    rng: np.random.Generator,
    occluders: list[Occluder] | None = None,
    light: Light | None = None,
    noise: Camera | None = None,
) -> tuple[np.ndarray, list[tuple[str, Quad]]]:
    """Render a frame and return it with (code, quad) for each visible face-up card."""
    img, labels = render(bg, deck, placements, rng, occluders, light, noise)
    return img, [(lab.code, lab.quad) for lab in labels if lab.face_up]


def _plain_back(deck: Deck, rng: np.random.Generator) -> np.ndarray:
    art = next(iter(deck.faces.values())).image
    back = np.zeros_like(art)
    back[:, :, 3] = art[:, :, 3]
    back[:, :, :3] = (140, 40, 30)
    cv2.rectangle(back, (8, 8), (art.shape[1] - 9, art.shape[0] - 9), (250, 250, 250, 255), 3)
    return back


def _labels(placements, deck, ids, min_visible) -> list[CardLabel]:
    h, w = ids.shape
    labels = []
    aspect = deck.aspect
    for i, p in enumerate(placements):
        quad = card_quad(p, aspect)
        poly = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(poly, np.round(quad).astype(np.int32), 1)
        total = float(card_area(p, aspect))
        seen = float(np.count_nonzero((ids == i) & (poly > 0)))
        visible = seen / max(total, 1.0)
        if visible < 0.02:
            continue
        indices = []
        if p.face_up:
            art = deck.faces[p.code].image
            m = _affine_for(p, art.shape[1], art.shape[0], aspect)
            for bx in deck.faces[p.code].indices:
                corners = np.array(
                    [[bx[0], bx[1]], [bx[2], bx[1]], [bx[2], bx[3]], [bx[0], bx[3]]], np.float64
                )
                q = corners @ m[:, :2].T + m[:, 2]
                ipoly = np.zeros((h, w), np.uint8)
                cv2.fillConvexPoly(ipoly, np.round(q).astype(np.int32), 1)
                area = max(1.0, abs(cv2.contourArea(q.astype(np.float32))))
                own = np.count_nonzero((ids == i) & (ipoly > 0))
                if own / area >= min_visible:
                    indices.append(q.tolist())
        box = _clip_box(quad, w, h)
        labels.append(
            CardLabel(p.code, quad.tolist(), box, indices, round(min(visible, 1.0), 3), p.face_up)
        )
    return labels


def card_area(p: CardPlacement, aspect: float) -> float:
    return p.height_px * p.height_px * aspect


def _clip_box(pts, w, h) -> list[float]:
    pts = np.asarray(pts)
    x1, y1 = pts.min(axis=0)
    x2, y2 = pts.max(axis=0)
    return [float(max(0, x1)), float(max(0, y1)), float(min(w, x2)), float(min(h, y2))]


def quad_box(quad, w: int, h: int) -> list[float]:
    """Axis-aligned box of a quad, clipped to the frame."""
    return _clip_box(quad, w, h)


def _apply_light(canvas: np.ndarray, light: Light, rng: np.random.Generator) -> np.ndarray:
    h, w = canvas.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if light.gradient > 0:
        ang = rng.uniform(0, 2 * np.pi)
        lin = ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang)) * light.gradient
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        rad = np.hypot((xx - cx) / w, (yy - cy) / h) * light.gradient * 0.8
        field_ = 1.0 - lin - rad + light.gradient * 0.3
        canvas = canvas * field_[..., None]
    canvas = canvas * np.array(light.tint, np.float32)[None, None, :]
    for _ in range(light.glare):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(0.03, 0.15) * w, rng.uniform(0.03, 0.15) * h
        g = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2))
        canvas = canvas + g[..., None] * rng.uniform(60, 160)
    return canvas


def _perspective(canvas, labels, tilt, rng):
    h, w = canvas.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(-tilt, tilt, (4, 2)) * np.array([w, h])
    dst = (src + jitter).astype(np.float32)
    hm = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(canvas, hm, (w, h), borderMode=cv2.BORDER_REFLECT)

    def tr(pts):
        p = np.asarray(pts, np.float64)
        return cv2.perspectiveTransform(p[None].astype(np.float64), hm)[0]

    new = []
    for lab in labels:
        q = tr(lab.quad)
        inds = [tr(ix).tolist() for ix in lab.indices]
        new.append(
            CardLabel(lab.code, q.tolist(), _clip_box(q, w, h), inds, lab.visible, lab.face_up)
        )
    return out, new


def _apply_camera(canvas: np.ndarray, cam: Camera, rng: np.random.Generator) -> np.ndarray:
    if cam.blur > 0:
        canvas = cv2.GaussianBlur(canvas, (0, 0), cam.blur)
    if cam.motion > 1:
        k = int(cam.motion)
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= max(kernel.sum(), 1e-6)
        canvas = cv2.filter2D(canvas, -1, kernel)
    if cam.noise > 0:
        canvas = canvas + rng.normal(0, cam.noise, canvas.shape).astype(np.float32)
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    if cam.jpeg < 100:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, cam.jpeg])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img
