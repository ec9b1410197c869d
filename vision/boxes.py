"""Axis-aligned box arithmetic shared by the recogniser and the table's tracker.

Boxes are (x1, y1, x2, y2) in pixels.
"""

from __future__ import annotations

import math


def iou(a, b) -> float:
    """Intersection over union of two boxes (0 when they do not overlap)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def index_lengths_outside(index, box) -> float:
    """How far a corner index's centre lies outside a card box, in index lengths (its box's
    longer side): 0 inside it."""
    cx, cy = (index[0] + index[2]) / 2, (index[1] + index[3]) / 2
    side = max(index[2] - index[0], index[3] - index[1], 1e-9)
    dx = max(box[0] - cx, 0.0, cx - box[2])
    dy = max(box[1] - cy, 0.0, cy - box[3])
    return math.hypot(dx, dy) / side
