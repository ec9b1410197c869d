"""What a cheap webcam does to a picture, drawn at random for training frames: too few pixels,
soft focus, dim colour-cast light with lifted blacks, sensor and chroma noise, heavy JPEG.

`vision.dataset.write_detector_crop_set` passes a share of its rendered tables through it (the
shipped classifier 10 learnt the detector's crops of such frames); `vision.finetune_det
--webcam-share` trains the detector on them (the one run so far is not shipped: models/HISTORY.md,
History).
"""

from __future__ import annotations

import cv2
import numpy as np


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`img` (BGR uint8) as a cheap webcam in poor light would have taken it; the geometry is
    unchanged, so the frame's labels still hold."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    # a sensor with 1.5-3.5x fewer pixels a side, scaled back up by the driver
    f = rng.uniform(1.5, 3.5)
    small = cv2.resize(
        out, (max(8, round(w / f)), max(8, round(h / f))), interpolation=cv2.INTER_AREA
    )
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.7:  # a fixed-focus lens, the card held nearer than its focus
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.8))
    # dim light: exposure, a gamma, a colour cast (office light on a cheap sensor runs green-
    # cyan), blacks lifted by glare and the sensor's offset
    gain = np.array([rng.uniform(0.85, 1.15), rng.uniform(0.95, 1.2), rng.uniform(0.7, 1.0)])
    out = out * rng.uniform(0.35, 0.85) * gain
    out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** rng.uniform(0.8, 1.3)
    out += rng.uniform(0, 25)
    # sensor noise: luminance at full resolution, chroma blotches at a quarter of it
    out += rng.normal(0, rng.uniform(1.5, 6.0), (h, w, 1))
    chroma = rng.normal(0, rng.uniform(1.0, 6.0), (max(2, h // 4), max(2, w // 4), 3))
    out += cv2.resize(chroma.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # a speckled photo is median-filtered before it is read
        img = cv2.medianBlur(img, 3)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 71))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
