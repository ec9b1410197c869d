"""The square corner-index crop the classifier reads, shared by training data and the runtime.

One definition keeps the training crops and the crops cut from detections alike.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_PX = 64
CROP_MARGIN = 1.15


def index_crop(
    img: np.ndarray, box, size: int = CROP_PX, margin: float = CROP_MARGIN
) -> np.ndarray:
    """Cut a square around an index box (x1, y1, x2, y2), padded by replication, `size` px wide."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    side = max(x2 - x1, y2 - y1, 4.0) * margin
    h, w = img.shape[:2]
    scale = size / side
    m = np.float32([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]])
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(img, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def upright(crop: np.ndarray) -> np.ndarray:
    """Turn a square index crop so that the index's long axis (rank above suit) is vertical.

    The angle comes from the second moments of the ink (pixels far from the paper's colour)
    near the centre; what is left is at most a half turn, which the classifier learns.
    """
    size = crop.shape[0]
    f = crop.astype(np.float32)
    gray = f.mean(axis=2)
    paper = np.percentile(gray, 85)
    paper_px = f[gray >= paper]
    ref = paper_px.mean(axis=0) if len(paper_px) else np.full(3, 255.0, np.float32)
    dist = np.linalg.norm(f - ref, axis=2)
    ink = (dist > 70).astype(np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    c = (size - 1) / 2
    weight = ink * (np.hypot(xx - c, yy - c) < 0.45 * size)
    m = weight.sum()
    if m < 0.02 * size * size:
        return crop
    mx, my = (weight * xx).sum() / m, (weight * yy).sum() / m
    mu20 = (weight * (xx - mx) ** 2).sum() / m
    mu02 = (weight * (yy - my) ** 2).sum() / m
    mu11 = (weight * (xx - mx) * (yy - my)).sum() / m
    if abs(mu20 - mu02) < 1e-3 and abs(mu11) < 1e-3:
        return crop
    theta = 0.5 * np.degrees(np.arctan2(2 * mu11, mu20 - mu02))  # major axis, from +x
    rot = cv2.getRotationMatrix2D((c, c), theta - 90.0, 1.0)
    return cv2.warpAffine(
        crop, rot, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
