"""The tables refereed in this process: one `Table` per live match, wired to the store.

The events one input causes (a frame, a snapshot, a decision: say a last turn, the round's end
and the match's end) are appended in ONE durable transaction before `feed_*` returns, so a crash
never leaves half a step in the log. Referee decisions for a live match go through its Table (so
its turn tracker follows); decisions for other matches go straight to the log.
"""

from __future__ import annotations

import threading
from typing import Any

from controller.events import REFEREE, Event
from controller.live_view import LiveView
from controller.store import MatchInfo, Store
from controller.table import Table
from controller.turns import Snapshot

FRESH_S = 0.5  # a recognised card is outlined on frames up to this much later


class _Batch:
    """Collects a table's events during one step; `flush` makes them durable together."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def flush(self) -> None:
        if self.events:
            batch, self.events = self.events, []
            self.store.append_many(batch)


class LiveTables:
    """Thread-safe registry of live tables (the feeding thread and the API share it)."""

    def __init__(self, store: Store, view: LiveView | None = None) -> None:
        self.store = store
        self.view = view or LiveView()
        self._tables: dict[str, tuple[Table, threading.Lock, str, _Batch]] = {}
        self._lock = threading.Lock()

    def open(
        self,
        info: MatchInfo,
        recognizer: Any = None,
        bridge: Any = None,
        geometry: Any = None,
    ) -> Table:
        """Start refereeing a match: a new Table, or one resumed exactly from its stored log."""
        past = self.store.events(info.id)
        batch = _Batch(self.store)
        table = Table(
            info.variant,
            info.players,
            info.dealer,
            match_id=info.id,
            geometry=geometry,
            recognizer=recognizer,
            bridge=bridge,
            events=past or None,
            subscribers=[batch],
        )
        batch.flush()  # match_started of a new match
        with self._lock:
            self._tables[info.id] = (table, threading.Lock(), info.table_id, batch)
        return table

    def close(self, match_id: str) -> None:
        with self._lock:
            self._tables.pop(match_id, None)

    def table(self, match_id: str) -> Table | None:
        with self._lock:
            hit = self._tables.get(match_id)
        return hit[0] if hit else None

    def _entry(self, match_id: str) -> tuple[Table, threading.Lock, str, _Batch]:
        with self._lock:
            hit = self._tables.get(match_id)
        if hit is None:
            raise KeyError(f"match {match_id!r} is not live in this process")
        return hit

    def _follow(self, table: Table) -> None:
        """Fold in decisions another process (`serve`) appended to this match's log, so the
        live table's ids and state stay the log's."""
        last = table.state.last_event_id
        if self.store.last_event_id(table.match_id) <= last:
            return
        for e in self.store.events(table.match_id, after=last):
            before = table.state.floor
            table.state.apply(e)
            if e.type == REFEREE:
                table.after_decision(str(e.data.get("action")), before)

    def feed_frame(self, match_id: str, frame: Any, t: float) -> list[Event]:
        """One camera frame: refereed, and offered to the dashboard's camera view."""
        table, lock, table_id, batch = self._entry(match_id)
        with lock:
            self._follow(table)
            seen = table.tracker.last_observation
            events = table.feed_frame(frame, t)
            batch.flush()
            obs = table.tracker.last_observation
        if self.view.wants_frame(table_id) or obs is not seen:
            # Outline the last read only while it still describes the picture (no hand since).
            fresh = obs is not None and t - float(getattr(obs, "t", t)) <= FRESH_S
            self.view.put(
                table_id,
                frame,
                cards=_detections(table, obs, frame) if fresh else [],
                floor=_floor_polygon(table, frame),
                t=t,
                force=obs is not seen,
            )
        return events

    def feed_snapshot(self, match_id: str, snap: Snapshot) -> list[Event]:
        table, lock, _, batch = self._entry(match_id)
        with lock:
            self._follow(table)
            events = table.feed_snapshot(snap)
            batch.flush()
            return events

    def referee(
        self, match_id: str, action: str, target: int | None, payload: dict[str, Any]
    ) -> Event:
        """The API's referee sink: through the live Table when there is one."""
        with self._lock:
            hit = self._tables.get(match_id)
        if hit is None:
            data = {"action": action, "target": target, "payload": payload}
            return self.store.append_new(match_id, REFEREE, data)
        table, lock, _, batch = hit
        with lock:
            self._follow(table)
            try:
                return table.referee(action, target, payload)
            finally:
                batch.flush()


def _floor_polygon(table: Table, frame: Any) -> list[list[float]]:
    h, w = frame.shape[:2]
    return [[x * w, y * h] for x, y in table.geometry.floor]


def _detections(table: Table, obs: Any, frame: Any) -> list[dict[str, Any]]:
    """The tracker's last read in frame pixels (it reads a crop around the floor)."""
    h, w = frame.shape[:2]
    x1, y1, _, _ = table.geometry.floor_box(w, h)
    margin = table.tracker.config.crop_margin
    ox, oy = max(0, x1 - int(w * margin)), max(0, y1 - int(h * margin))
    out = []
    for det in getattr(obs, "cards", []):
        quad = getattr(det, "quad", None) or _box_quad(det.box)
        quad = [[float(x) + ox, float(y) + oy] for x, y in quad]
        cx = sum(p[0] for p in quad) / len(quad)
        cy = sum(p[1] for p in quad) / len(quad)
        out.append(
            {
                "code": det.code,
                "confidence": round(float(det.confidence), 3),
                "quad": quad,
                "zone": table.geometry.zone(cx, cy, w, h),
            }
        )
    return out


def _box_quad(box: Any) -> list[list[float]]:
    x1, y1, x2, y2 = box
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]
