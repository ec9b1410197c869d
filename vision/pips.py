"""A number card's rank counted from its pips: a check on its corners' read that needs no deck.

Plain OpenCV on the card's outline; a count only where the whole layout shows (else None).
"""

from __future__ import annotations

import cv2
import numpy as np

# the card's face is read upright at this size (short side, long side), whatever its own size
FACE_W, FACE_H = 120, 168
# the pips a number card's rank prints (its code's first letter), the others none
RANK_PIPS = {**{str(n): n for n in range(2, 10)}, "T": 10}
FEWEST, MOST = 3, 10  # counts told (two pips are too easily what is left of a covered layout)
INK_DARKER = 45  # an ink pixel is this much darker (L*) than the paper, or ...
INK_CHROMA = 25  # ... this colourful (a red pip on white)
MATCH = 0.08  # a pip's mirror image lies within this share of the face's width and length of
# another pip (an ellipse: a design's rows may sit a little off the card's middle)
PIP_AREA = (0.45, 1.8)  # a pip's area against the median of the four largest blobs
SPAN = 0.45  # a whole layout runs at least this share of the face's length
SIZE_SPREAD = 2.2  # the largest pip at most this times the smallest


def upright_face(frame: np.ndarray, quad) -> np.ndarray:
    """The card inside `quad` (four corners in order round it) warped to FACE_W x FACE_H, its
    long side upright (which end is up does not matter to a pip count)."""
    q = np.float32(quad)
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[3] - q[0]):
        q = np.roll(q, -1, axis=0)
    dst = np.float32([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]])
    m = cv2.getPerspectiveTransform(q, dst)
    return cv2.warpPerspective(
        frame, m, (FACE_W, FACE_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def _ink(face: np.ndarray) -> np.ndarray:
    """The printed marks of an upright face (0/1), its rim left out."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    light, chroma = lab[..., 0], np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    paper = np.percentile(
        light[int(0.1 * FACE_H) : int(0.9 * FACE_H), int(0.1 * FACE_W) : int(0.9 * FACE_W)], 90
    )
    ink = ((light < paper - INK_DARKER) | (chroma > INK_CHROMA)).astype(np.uint8)
    # the rim (the table beyond a slightly loose outline) is not the face
    ink[:, : int(0.05 * FACE_W)] = 0
    ink[:, int(0.95 * FACE_W) :] = 0
    ink[: int(0.03 * FACE_H)] = 0
    ink[int(0.97 * FACE_H) :] = 0
    return ink


def _pips(ink: np.ndarray, erode: int) -> np.ndarray:
    """Centres and areas (N, 3) of the pip-sized ink blobs outside the corner indices."""
    # pips that touch (a large-pipped deck's 9 or 10) come apart when thinned a little
    ink = cv2.erode(ink, np.ones((3, 3), np.uint8), iterations=erode)
    _n, _lbl, stats, centres = cv2.connectedComponentsWithStats(ink, 8)
    cx, cy, area = centres[1:, 0], centres[1:, 1], stats[1:, cv2.CC_STAT_AREA].astype(float)
    in_corner = ((cx < 0.2 * FACE_W) | (cx > 0.8 * FACE_W)) & (
        (cy < 0.24 * FACE_H) | (cy > 0.76 * FACE_H)
    )
    blobs = np.stack([cx, cy, area], axis=1)[~in_corner & (area >= 10)]
    if not len(blobs):
        return blobs
    ref = float(np.median(np.sort(blobs[:, 2])[::-1][:4]))
    keep = (blobs[:, 2] >= PIP_AREA[0] * ref) & (blobs[:, 2] <= PIP_AREA[1] * ref)
    return blobs[keep]


def _whole_layout(pips: np.ndarray) -> bool:
    """Whether the pips form a whole printed layout: mirror-symmetric left to right, the same
    turned half round but for at most one pip (a 7's, a 9's odd pip), running most of the card's
    length, of one size. A covered or cut-off layout breaks one of these."""
    pts, area = pips[:, :2], pips[:, 2]

    def unmatched(mx: np.ndarray) -> int:
        off = np.abs(pts[None] - mx[:, None]) / (MATCH * np.array([FACE_W, FACE_H]))
        return int(np.sum(np.min(np.hypot(off[..., 0], off[..., 1]), axis=1) >= 1.0))

    mirrored = np.stack([FACE_W - pts[:, 0], pts[:, 1]], axis=1)
    turned = np.stack([FACE_W - pts[:, 0], FACE_H - pts[:, 1]], axis=1)
    return (
        unmatched(mirrored) == 0
        and unmatched(turned) <= 1
        and np.ptp(pts[:, 1]) >= SPAN * FACE_H
        and area.max() <= SIZE_SPREAD * area.min()
    )


def pip_count(frame: np.ndarray, quad) -> int | None:
    """The number of pips on the card inside `quad` (FEWEST to MOST), or None where no whole
    layout shows (a court card, an ace, a covered or blurred face)."""
    ink = _ink(upright_face(frame, quad))
    for erode in (1, 2):
        pips = _pips(ink, erode)
        if FEWEST <= len(pips) <= MOST and _whole_layout(pips):
            return len(pips)
    return None
