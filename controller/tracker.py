"""From camera frames to settled floor snapshots: motion gating, occlusion, confidence.

Every frame gets a cheap motion test (a downscaled grey image differenced with the last one);
the recogniser runs only once the table has been still for a moment and looks different from
the last snapshot; reads are accumulated until they agree, then one `Snapshot` is emitted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from controller.table_geometry import FLOOR, TableGeometry
from controller.turns import Snapshot


@dataclass
class TrackerConfig:
    small_width: int = 160  # motion is judged on a grey image this wide
    pixel_threshold: float = 7.0  # grey-level change that counts as moving (after blur)
    motion_fraction: float = 0.0015  # share of floor pixels that must change to be "motion"
    settle_s: float = 0.1  # still this long before the recogniser runs ...
    settle_frames: int = 2  # ... and for at least this many frames (a hand may pause)
    min_reads: int = 1  # reads accumulated before a snapshot may be accepted
    max_reads: int = 4  # give up waiting for agreement after this many
    # Confidence thresholds, calibrated on the shipped recogniser (its own floor is 0.15; its
    # true reads have a median near 0.45, its misreads rarely pass 0.36):
    accept: float = 0.22  # mean confidence over the reads for a card to be on the floor
    sure: float = 0.4  # a card read this surely needs no second read
    doubt: float = 0.1  # a mean between doubt and sure asks for another read
    crop_margin: float = 0.04  # the recogniser sees the floor's box plus this margin
    arm_patience_s: float = 1.5  # a "hand" that never moves for this long is read anyway
    focus_reads: bool = True  # read again, closer, where something new lies unread
    focus_min_px: int = 25  # ... if at least this many changed motion pixels (a card: ~140)


@dataclass
class Read:
    """One recogniser pass: the best confidence per card code on the floor."""

    t: float
    floor: dict[str, float]
    others: dict[str, float]
    boxes: dict[str, list[float]] = field(default_factory=dict)  # floor cards, frame pixels


@dataclass
class FloorTracker:
    """Feed frames (or observations), get settled `Snapshot`s of the floor.

    `recognize(image, t)` is `vision.recognizer.Recognizer.observe` or anything returning an
    object with `.cards` of detections having `.code`, `.confidence` and `.box`.
    """

    geometry: TableGeometry
    recognize: Callable[[np.ndarray, float], Any] | None = None
    config: TrackerConfig = field(default_factory=TrackerConfig)
    frames: int = 0
    reads_done: int = 0
    last_read: Read | None = None
    last_observation: Any = None
    _prev: np.ndarray | None = None
    _prev_t: float = 0.0
    _ref: np.ndarray | None = None
    _still_since: float | None = None
    _reads: list[Read] = field(default_factory=list)
    _done: bool = False
    _still_frames: int = 0
    _still_ref: np.ndarray | None = None
    _size: tuple[int, int] | None = None
    _mask: np.ndarray | None = None
    _inner: np.ndarray | None = None
    moving: bool = False
    cards: dict[str, list[float]] = field(default_factory=dict)  # last snapshot's card boxes
    kept: int = 0  # cards kept from pixels when a read disagreed (misread or missed)
    focus_reads: int = 0  # closer second looks at unexplained changes

    # ---- frames -----------------------------------------------------------------------------
    def feed(self, frame: np.ndarray, t: float) -> Snapshot | None:
        """One camera frame at video time `t`; returns a snapshot when the floor settles."""
        self.frames += 1
        small = self._small(frame)
        prev, prev_t = self._prev, self._prev_t
        self._prev, self._prev_t = small, t
        if prev is None:
            self._still_since = t
            return None
        # Moving: changed since the last frame, or drifted since the still period began (a
        # hand slowing down changes little from frame to frame, but it adds up).
        frac = self.config.motion_fraction
        self.moving = self._changed(small, prev, frac) or (
            self._still_ref is not None and self._changed(small, self._still_ref, frac)
        )
        if self.moving:
            self._still_since, self._reads, self._done = None, [], False
            self._still_frames, self._still_ref = 0, None
            return None
        if self._still_since is None:
            self._still_since = prev_t  # the still scene first appeared in the previous frame
            self._still_ref = prev
        self._still_frames += 1
        if (
            self._done
            or t - self._still_since < self.config.settle_s - 1e-6
            or self._still_frames < self.config.settle_frames
        ):
            return None
        if not self._reads and self._ref is not None:
            if not self._changed(_detail(small), _detail(self._ref), self.config.motion_fraction):
                self._done = True  # still, and the same as the last snapshot: nothing to read
                return None
            waited = t - self._still_since
            if waited < self.config.arm_patience_s and self._arm_from_edge(small):
                return None  # a hand rests over the floor's edge: wait for it to leave
        if self.recognize is None:
            return None
        snap = self._read(frame, t, small)
        if snap is not None:
            self._ref = small
        return snap

    def feed_observation(self, obs: Any, size: tuple[int, int]) -> Snapshot | None:
        """One recogniser observation taken while the table was still (no motion gating)."""
        self._size = size
        read = self._to_read(obs, size, (0, 0))
        return self._accumulate(read)

    def reset_still(self) -> None:
        """Forget the reads of the current still period (start accumulating afresh)."""
        self._reads, self._done = [], False

    # ---- internals ------------------------------------------------------------------------
    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        if self._size != (w, h) or self._mask is None:
            self._size = (w, h)
            sw = self.config.small_width
            sh = max(1, round(h * sw / w))
            self._mask = cv2.resize(self.geometry.floor_mask(w, h), (sw, sh)) > 127
            # The floor's inner part: a change there that reaches the frame's border is an arm
            # (the players' piles at the edges may spill a little over the floor's line).
            inner = cv2.erode(self._mask.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            self._inner = inner
        sw, sh = self._mask.shape[1], self._mask.shape[0]
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        small = cv2.resize(grey, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        mean = float(small[self._mask].mean()) if self._mask.any() else float(small.mean())
        return small * (128.0 / max(mean, 1.0))  # cancel global light changes

    def _diff_mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return cv2.absdiff(a, b) > self.config.pixel_threshold

    def _changed(self, a: np.ndarray, b: np.ndarray, fraction: float) -> bool:
        moved = self._diff_mask(a, b)
        return float(moved[self._mask].mean()) > fraction

    def _arm_from_edge(self, small: np.ndarray) -> bool:
        """True when a changed blob reaches from the frame's border into the floor (an arm)."""
        assert self._ref is not None and self._inner is not None
        moved = self._diff_mask(_detail(small), _detail(self._ref)).astype(np.uint8)
        n, labels = cv2.connectedComponents(moved)
        if n <= 1:
            return False
        border = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
        at_edge = set(np.unique(border).tolist()) - {0}
        if not at_edge:
            return False
        on_floor = labels[self._inner & (moved > 0)]
        return any(int(np.count_nonzero(on_floor == k)) >= 6 for k in at_edge)

    def _read(self, frame: np.ndarray, t: float, small: np.ndarray) -> Snapshot | None:
        h, w = frame.shape[:2]
        x1, y1, x2, y2 = self.geometry.floor_box(w, h)
        mx, my = int(w * self.config.crop_margin), int(h * self.config.crop_margin)
        x1, y1, x2, y2 = max(0, x1 - mx), max(0, y1 - my), min(w, x2 + mx), min(h, y2 + my)
        obs = self.recognize(frame[y1:y2, x1:x2], t)
        self.last_observation = obs
        read = self._to_read(obs, (w, h), (x1, y1))
        if self._ref is not None and self.config.focus_reads:
            self._focus(frame, t, small, read)
        return self._accumulate(read, small)

    def _focus(self, frame: np.ndarray, t: float, small: np.ndarray, read: Read) -> None:
        """Something new lies where no card was read: look again, closer, at that place."""
        assert self._ref is not None and self._mask is not None and self._size is not None
        w, h = self._size
        sx, sy = small.shape[1] / w, small.shape[0] / h
        changed = self._diff_mask(_detail(small), _detail(self._ref)) & self._mask
        cover = np.zeros_like(changed)
        for bx1, by1, bx2, by2 in [*read.boxes.values(), *self.cards.values()]:
            mx, my = (bx2 - bx1) * 0.2, (by2 - by1) * 0.2
            cover[
                max(0, int((by1 - my) * sy)) : int(math.ceil((by2 + my) * sy)),
                max(0, int((bx1 - mx) * sx)) : int(math.ceil((bx2 + mx) * sx)),
            ] = True
        rest = (changed & ~cover).astype(np.uint8)
        n, _labels, stats, _c = cv2.connectedComponentsWithStats(rest)
        card = 0.16 * h  # a card's height on a table seen from above, roughly
        blobs = sorted(
            (stats[k] for k in range(1, n) if stats[k][4] >= self.config.focus_min_px),
            key=lambda st: -st[4],
        )[:2]
        for bx, by, bw, bh, _area in blobs:
            x1 = int(max(0, bx / sx - card))
            y1 = int(max(0, by / sy - card))
            x2 = int(min(w, (bx + bw) / sx + card))
            y2 = int(min(h, (by + bh) / sy + card))
            self.focus_reads += 1
            extra = self._to_read(self.recognize(frame[y1:y2, x1:x2], t), (w, h), (x1, y1))
            for code, conf in extra.floor.items():
                if conf > read.floor.get(code, 0.0):
                    read.floor[code] = conf
                    read.boxes[code] = extra.boxes[code]

    def _to_read(self, obs: Any, size: tuple[int, int], offset: tuple[int, int]) -> Read:
        w, h = size
        floor: dict[str, float] = {}
        others: dict[str, float] = {}
        boxes: dict[str, list[float]] = {}
        t = float(getattr(obs, "t", 0.0))
        for det in getattr(obs, "cards", obs):
            bx1, by1, bx2, by2 = det.box
            cx = (bx1 + bx2) / 2 + offset[0]
            cy = (by1 + by2) / 2 + offset[1]
            zone = self.geometry.zone(cx, cy, w, h)
            target = floor if zone == FLOOR else others
            # One physical deck: each code exists once; keep its best detection.
            if float(det.confidence) > target.get(det.code, -1.0):
                target[det.code] = float(det.confidence)
                if zone == FLOOR:
                    boxes[det.code] = [
                        bx1 + offset[0],
                        by1 + offset[1],
                        bx2 + offset[0],
                        by2 + offset[1],
                    ]
        return Read(t, floor, others, boxes)

    def _accumulate(self, read: Read, small: np.ndarray | None = None) -> Snapshot | None:
        self.reads_done += 1
        self.last_read = read
        self._reads.append(read)
        n = len(self._reads)
        cfg = self.config
        codes = set().union(*(r.floor for r in self._reads))
        mean = {c: sum(r.floor.get(c, 0.0) for r in self._reads) / n for c in codes}
        doubtful = any(cfg.doubt < m < cfg.sure for m in mean.values())
        if n < cfg.min_reads or (doubtful and n < cfg.max_reads):
            return None
        floor = {c for c, m in mean.items() if m >= cfg.accept}
        boxes: dict[str, list[float]] = {}
        for r in self._reads:
            boxes.update(r.boxes)
        if small is not None and self._ref is not None:
            self._keep_untouched(floor, boxes, small, mean)
        conf = min((mean.get(c, 1.0) for c in floor), default=1.0)
        self._done, self._reads = True, []
        self.cards = {c: boxes[c] for c in floor if c in boxes}
        return Snapshot(
            t=read.t, floor=frozenset(floor), confidence=conf, t_still=self._still_since
        )

    def _keep_untouched(
        self, floor: set[str], boxes: dict, small: np.ndarray, mean: dict[str, float]
    ) -> None:
        """A card whose patch of the image has not changed since the last snapshot is still
        there, whatever this read says: a read on it that names another card is a misread,
        and a read that misses it missed it. Only changed places are read afresh."""
        assert self._ref is not None and self._size is not None
        changed = self._diff_mask(_detail(small), _detail(self._ref))
        sx = small.shape[1] / self._size[0]
        sy = small.shape[0] / self._size[1]

        def untouched(x1: float, y1: float, x2: float, y2: float) -> bool:
            mx, my = (x2 - x1) * 0.15, (y2 - y1) * 0.15
            a, b = int((x1 + mx) * sx), int(math.ceil((x2 - mx) * sx))
            c, d = int((y1 + my) * sy), int(math.ceil((y2 - my) * sy))
            patch = changed[max(0, c) : d, max(0, a) : b]
            return patch.size > 0 and float(patch.mean()) <= 0.04

        # Nothing new appears where nothing changed: an unsure read there is a phantom (a sure
        # one is a card that an earlier read missed).
        for other in [o for o in floor if o not in self.cards and o in boxes]:
            if (
                mean.get(other, 1.0) < self.config.sure
                and untouched(*boxes[other])
                and not self._inside_known(boxes[other])
            ):
                floor.discard(other)
                self.kept += 1
        for code, (x1, y1, x2, y2) in self.cards.items():
            if not untouched(x1, y1, x2, y2):
                continue  # touched: trust the read
            for other in [o for o in floor if o not in self.cards and o in boxes]:
                ox = (boxes[other][0] + boxes[other][2]) / 2
                oy = (boxes[other][1] + boxes[other][3]) / 2
                if x1 <= ox <= x2 and y1 <= oy <= y2:
                    floor.discard(other)  # the same physical card, misread
                    self.kept += 1
            if code not in floor:
                self.kept += 1
            floor.add(code)
            boxes[code] = [x1, y1, x2, y2]

    def _inside_known(self, box: list[float]) -> bool:
        """Whether a box's centre lies on a card of the last snapshot (handled there)."""
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in self.cards.values())


def _detail(small: np.ndarray) -> np.ndarray:
    """The image less its soft shading: card edges stay, slow light changes go."""
    return small - cv2.blur(small, (9, 9))
