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
