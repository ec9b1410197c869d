"""Axis-aligned box arithmetic shared by the recogniser and the table's tracker.

Boxes are (x1, y1, x2, y2) in pixels.
"""

from __future__ import annotations


def iou(a, b) -> float:
    """Intersection over union of two boxes (0 when they do not overlap)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
