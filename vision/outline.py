"""A card's outline (the four corners of the turned rectangle) inside its detected box, from the
paper's contrast with the table; None where the card cannot be told apart from its surroundings.

Plain OpenCV: Otsu threshold, the blob under the box's centre, its minimum-area rectangle.
"""

from __future__ import annotations

import cv2
import numpy as np


def card_outline(frame: np.ndarray, box, aspect: float = 0.714) -> list[list[float]] | None:
    """Corners (clockwise from the top-left-most) of the card filling most of `box`, or None.

    Accepted only if the rectangle found is card-shaped (`aspect` = short/long side, within
    25 %) and fills the box the way a turned card would (its own box matches `box`), so
    overlapping cards, a white table or a hand give None and the caller keeps the box.
    """
    h, w = frame.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    if bw < 12 or bh < 12:
        return None
    mx, my = 0.08 * bw, 0.08 * bh
    rx1, ry1 = int(max(0, x1 - mx)), int(max(0, y1 - my))
    rx2, ry2 = int(min(w, x2 + mx)), int(min(h, y2 + my))
    region = frame[ry1:ry2, rx1:rx2]
    scale = min(1.0, 128.0 / max(region.shape[:2]))
    small = cv2.resize(region, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    # the card's edge (its border, or its contrast with the table) walls its face in: the
    # region under the box's centre, bounded by edges, is the face (pips and art are holes)
    med = float(np.median(grey))
    edges = cv2.Canny(grey, max(10.0, 0.5 * med), max(30.0, 1.2 * med))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    mask = cv2.bitwise_not(edges)
    # the centre may sit on a pip: start from the brightest open pixel near it
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    cy, cx = (y1 + y2) / 2 - ry1, (x1 + x2) / 2 - rx1
    sy, sx = int(cy * scale), int(cx * scale)
    r = max(2, int(0.15 * min(bw, bh) * scale))
    win = labels[max(0, sy - r) : sy + r, max(0, sx - r) : sx + r]
    ids, counts = np.unique(win[win > 0], return_counts=True)
    if not len(ids):
        return None
    lab = ids[int(np.argmax(stats[ids, cv2.CC_STAT_AREA]))]
    blob = (labels == lab).astype(np.uint8)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    (rcx, rcy), (rw, rh), angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    if min(rw, rh) < 4:
        return None
    ratio = min(rw, rh) / max(rw, rh)
    if abs(ratio - aspect) > 0.25 * aspect:
        return None
    grow = 3.0  # the dilated edge ate this much of the face on each side (small-image px)
    pts = cv2.boxPoints(((rcx, rcy), (rw + grow, rh + grow), angle)) / scale
    pts += np.array([rx1, ry1])
    qx1, qy1 = pts.min(axis=0)
    qx2, qy2 = pts.max(axis=0)
    ix = max(0.0, min(qx2, x2) - max(qx1, x1))
    iy = max(0.0, min(qy2, y2) - max(qy1, y1))
    inter = ix * iy
    union = bw * bh + (qx2 - qx1) * (qy2 - qy1) - inter
    if inter / union < 0.75:
        return None
    start = int(np.argmin(pts.sum(axis=1)))  # the top-left-most corner first
    pts = np.roll(pts, -start, axis=0)
    (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[1]
    if ax * by - ay * bx < 0:  # image y points down: clockwise
        pts = pts[[0, 3, 2, 1]]
    return [[float(x), float(y)] for x, y in pts]
