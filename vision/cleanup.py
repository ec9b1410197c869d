"""What a photograph's pixels need before the detector and classifiers read them: a dark frame
brought up, impulse (salt-and-pepper) noise filtered out, and dim crops stretched to full contrast.
"""

from __future__ import annotations

import cv2
import numpy as np

# the eight neighbours of a pixel (the pixel itself left out)
_RING = np.ones((3, 3), np.uint8)
_RING[1, 1] = 0
SPIKE = 40  # grey levels a speck stands above (or below) all eight of its neighbours ...
FLAT = 40  # ... whose own spread is less than this (a speck on smooth ground, not an edge)
WHITE_SHARE = 0.005  # the brightest share of a frame taken for its white (a card's paper) ...
EXPOSE_LEAST = 1.25  # ... which is brought up only where that takes this gain or more ...
EXPOSE_MOST = 4.0  # ... and never by more (an empty, dark table's grain stays grain)


def impulse_share(frame_bgr: np.ndarray) -> float:
    """The share of pixels that are isolated specks: brighter or darker by `SPIKE` grey levels
    than every one of their eight neighbours, which themselves lie within `FLAT` of each other.

    A camera's picture (or a rendered one) has almost none (0 to 1e-5 on rendered tables and
    the edje photos); a photo with salt-and-pepper noise added 1e-4 to 3e-3 (half of the
    ammememe phone and hand-held photos, noised when the dataset was made).
    """
    g = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY).astype(np.int16)
    hi = cv2.dilate(g, _RING)
    lo = cv2.erode(g, _RING)
    flat = (hi - lo) < FLAT
    spike = ((g - hi) > SPIKE) | ((lo - g) > SPIKE)
    return float(np.count_nonzero(spike & flat)) / g.size


def despeckle(frame_bgr: np.ndarray, above: float) -> np.ndarray:
    """The frame with a 3x3 median filter applied when more than `above` of its pixels are
    specks (`impulse_share`), else the frame itself (a median filter softens a clean frame's
    small indices: rendered tuning set F1 0.913 -> 0.894 when applied to every frame)."""
    if above <= 0 or impulse_share(frame_bgr) <= above:
        return frame_bgr
    return cv2.medianBlur(frame_bgr, 3)


def white_level(frame_bgr: np.ndarray) -> float:
    """The grey level of the frame's brightest `WHITE_SHARE` (every fourth pixel each way): a
    card's white paper where cards lie."""
    grey = cv2.cvtColor(np.ascontiguousarray(frame_bgr[::4, ::4]), cv2.COLOR_BGR2GRAY)
    counts = cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel()
    above = np.cumsum(counts[::-1])  # pixels at or above each level, from 255 down
    return float(255 - int(np.searchsorted(above, WHITE_SHARE * grey.size)))


def exposure_gain(level: float, white: float) -> float:
    """The gain that brings a view whose white reads `level` up to `white`: 1 where that is
    less than `EXPOSE_LEAST` (a camera exposed for the table), at most `EXPOSE_MOST`; `white`
    0: off (1)."""
    if white <= 0:
        return 1.0
    gain = min(EXPOSE_MOST, white / max(level, 1.0))
    return gain if gain >= EXPOSE_LEAST else 1.0


def expose(frame_bgr: np.ndarray, white: float) -> np.ndarray:
    """A dark frame scaled up so that its white (`white_level`) reads `white`: an under-exposed
    camera's (a dim café, a fixed exposure) or a greyish photo's. A frame that would gain less
    than `EXPOSE_LEAST` is returned as it is (as each of 200 rendered café tables with cards
    was), and none gains more than `EXPOSE_MOST`. `white` 0: off."""
    gain = exposure_gain(white_level(frame_bgr), white)
    if gain == 1.0:
        return frame_bgr
    lut = np.clip(np.arange(256) * gain, 0, 255).astype(np.uint8)
    return cv2.LUT(frame_bgr, lut)


def stretch_dim(crop_bgr: np.ndarray, below: float, tail: float = 1.0) -> np.ndarray:
    """A crop whose grey levels span less than `below` (1st to 99th percentile) stretched so
    that span fills 0-255 (each colour channel by the grey levels' gain, so a colour cast grows
    too); a crop with contrast enough is returned as it is. A webcam's dim, greenish index is
    read more surely at full contrast; the classifiers were trained on crops with their ink
    and paper well apart."""
    if below <= 0:
        return crop_bgr
    g = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2GRAY)
    lo, hi = np.percentile(g, [tail, 100.0 - tail])
    if hi - lo >= below:
        return crop_bgr
    gain = 255.0 / max(float(hi - lo), 8.0)
    return np.clip((crop_bgr.astype(np.float32) - lo) * gain, 0, 255).astype(np.uint8)
