"""The latest camera frame of each table and what was recognised on it, for the dashboard.

A controller thread calls `LiveView.put(...)` per frame; the API serves the newest JPEG and the
overlay (card outlines, floor region) to the browser, which draws the outlines itself.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Frame:
    """One annotated camera frame: JPEG bytes plus the geometry drawn over it."""

    seq: int
    t: float
    width: int
    height: int
    jpeg: bytes
    floor: list[list[float]] = field(default_factory=list)  # polygon, pixels
    cards: list[dict[str, Any]] = field(default_factory=list)  # code, confidence, quad, zone

    def overlay(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "t": self.t,
            "width": self.width,
            "height": self.height,
            "floor": self.floor,
            "cards": self.cards,
        }


class LiveView:
    """Thread-safe holder of each table's newest frame; JPEG encoding is rate-limited."""

    def __init__(self, max_fps: float = 5.0, max_width: int = 960) -> None:
        self._frames: dict[str, Frame] = {}
        self._lock = threading.Lock()
        self._min_dt = 1.0 / max_fps
        self._max_width = max_width
        self._last_put: dict[str, float] = {}
        self._seq = 0

    def wants_frame(self, table_id: str) -> bool:
        """Whether a new frame would be kept now (lets callers skip the JPEG encoding)."""
        return time.monotonic() - self._last_put.get(table_id, -1e9) >= self._min_dt

    def put(
        self,
        table_id: str,
        frame_bgr: Any,
        cards: list[dict[str, Any]] | None = None,
        floor: list[list[float]] | None = None,
        t: float = 0.0,
        force: bool = False,
    ) -> bool:
        """Offer a BGR frame (numpy) with its detections; returns whether it was kept."""
        if not force and not self.wants_frame(table_id):
            return False
        import cv2

        h, w = frame_bgr.shape[:2]
        scale = min(1.0, self._max_width / w)
        img = frame_bgr
        if scale < 1.0:
            img = cv2.resize(frame_bgr, (round(w * scale), round(h * scale)), cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return False

        def sc(points: list) -> list[list[float]]:
            return [[round(float(x) * scale, 1), round(float(y) * scale, 1)] for x, y in points]

        scaled = [{**c, "quad": sc(c.get("quad") or [])} for c in cards or []]
        with self._lock:
            self._seq += 1
            self._frames[table_id] = Frame(
                seq=self._seq,
                t=float(t),
                width=img.shape[1],
                height=img.shape[0],
                jpeg=buf.tobytes(),
                floor=sc(floor or []),
                cards=scaled,
            )
            self._last_put[table_id] = time.monotonic()
        return True

    def get(self, table_id: str) -> Frame | None:
        with self._lock:
            return self._frames.get(table_id)
