"""The venue's match store: one SQLite file holding tables, matches, players and event logs.

The event log is append-only and every append is durable before it returns; state is never
stored, only rebuilt by replaying a match's events (see `controller.table_state.replay`).

Durability: the database runs in WAL mode with `synchronous=FULL`, so each commit fsyncs the
write-ahead log. WAL+NORMAL would already survive a killed process (the WAL is in the OS page
cache), but a café table also loses power when someone pulls a plug; an event is one small
transaction a second at most, so the fsync per append is cheap (see benchmarks/store.py).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from controller.errors import UserError
from controller.events import EVENT_TYPES, MATCH_ENDED, Event

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS venue_tables (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    calibration TEXT,                 -- JSON, NULL until calibrated
    updated     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id       TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES venue_tables(id),
    variant  TEXT NOT NULL,
    players  INTEGER NOT NULL,
    dealer   INTEGER NOT NULL,
    created  REAL NOT NULL,
    status   TEXT NOT NULL DEFAULT 'live'   -- 'live' | 'finished'
);
CREATE TABLE IF NOT EXISTS players (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seat     INTEGER NOT NULL,
    name     TEXT NOT NULL,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    match_id TEXT NOT NULL REFERENCES matches(id),
    id       INTEGER NOT NULL,
    type     TEXT NOT NULL,
    t        REAL NOT NULL,
    data     TEXT NOT NULL,               -- JSON object
    PRIMARY KEY (match_id, id)
) WITHOUT ROWID;
"""

KNOWN_VARIANTS = ("classic", "egyptian", "lebanese", "yemeni", "jordanian", "eram")


class StoreError(UserError):
    """A request the store refuses (unknown match, conflicting event …); nothing was changed."""


class NotFound(StoreError):
    """The named match, table or event does not exist (HTTP 404 at the API)."""


class Conflict(StoreError):
    """The request contradicts what is stored (HTTP 409 at the API)."""


@dataclass(frozen=True)
class MatchInfo:
    """A match as the venue sees it: who plays what at which table."""

    id: str
    table_id: str
    variant: str
    players: int
    dealer: int
    seat_names: tuple[str, ...]
    created: float
    status: str = "live"
    last_event_id: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["seat_names"] = list(self.seat_names)
        return d


@dataclass(frozen=True)
class TableInfo:
    """One physical table of the venue and its camera calibration (None until calibrated)."""

    id: str
    name: str
    calibration: dict[str, Any] | None = field(default=None)
    updated: float = 0.0


def _allowed_players(variant: str) -> tuple[int, ...]:
    """Player counts a variant allows, from the engine's rule set when it is importable."""
    try:
        from engine.rules import get_ruleset

        return tuple(get_ruleset(variant).players)
    except ImportError:  # engine not installed: fall back to RULES.md R1.1, V3, V6
        return {"lebanese": (2, 3, 4), "eram": (2,)}.get(variant, (2, 4))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class Store:
    """The venue database. Thread-safe: one connection guarded by a lock (SQLite serialises
    writers anyway); other processes may read and write the same file concurrently."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise StoreError(f"--db {self.path} is a directory, not a database file")
        if not self.path.parent.exists():
            raise StoreError(f"--db {self.path}: folder {self.path.parent} does not exist")
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"--db {self.path} was written by a newer basra-table "
                    f"(schema {version} > {SCHEMA_VERSION})"
                )
            with self._tx():
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        self._db.execute(stmt)
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"--db {self.path} is not a basra-table database ({exc})") from None

    # -- plumbing -------------------------------------------------------------------------

    class _Tx:
        def __init__(self, store: Store) -> None:
            self.store = store

        def __enter__(self) -> sqlite3.Connection:
            self.store._lock.acquire()
            try:
                self.store._db.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.store._lock.release()
                raise
            return self.store._db

        def __exit__(self, exc_type, exc, tb) -> None:
            try:
                self.store._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
            finally:
                self.store._lock.release()

    def _tx(self) -> Store._Tx:
        """A write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on any error)."""
        return Store._Tx(self)

    def _query(self, sql: str, args: Iterable[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tables -----------------------------------------------------------------------------

    def ensure_table(self, table_id: str, name: str | None = None) -> TableInfo:
        """The table with this id, created (uncalibrated) if the venue does not have it yet."""
        table_id = _check_id("table", table_id)
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO venue_tables(id, name, calibration, updated) "
                "VALUES (?, ?, NULL, ?)",
                (table_id, name or table_id, time.time()),
            )
        return self.table(table_id)

    def tables(self) -> list[TableInfo]:
        rows = self._query("SELECT id, name, calibration, updated FROM venue_tables ORDER BY id")
        return [_table_info(r) for r in rows]

    def table(self, table_id: str) -> TableInfo:
        rows = self._query(
            "SELECT id, name, calibration, updated FROM venue_tables WHERE id = ?", (table_id,)
        )
        if not rows:
            raise NotFound(f"no table {table_id!r} in this venue")
        return _table_info(rows[0])

    def put_calibration(self, table_id: str, calibration: dict[str, Any]) -> TableInfo:
        """Store a table's camera calibration (replacing the old one); creates the table."""
        if not isinstance(calibration, dict):
            raise StoreError("calibration must be a JSON object")
        self.ensure_table(table_id)
        with self._tx() as db:
            db.execute(
                "UPDATE venue_tables SET calibration = ?, updated = ? WHERE id = ?",
                (_dumps(calibration), time.time(), table_id),
            )
        return self.table(table_id)

    # -- matches ----------------------------------------------------------------------------

    def create_match(
        self,
        variant: str = "classic",
        players: int = 2,
        seat_names: Iterable[str] | None = None,
        dealer: int = 0,
        table_id: str = "table-1",
        match_id: str | None = None,
    ) -> MatchInfo:
        """Register a new match (no events yet); bad arguments raise StoreError, nothing saved."""
        variant = str(variant).strip().lower()
        if variant not in KNOWN_VARIANTS:
            raise StoreError(f"unknown variant {variant!r} (one of: {', '.join(KNOWN_VARIANTS)})")
        allowed = _allowed_players(variant)
        if players not in allowed:
            counts = " or ".join(str(n) for n in allowed)
            raise StoreError(f"{variant} is played by {counts} players, not {players}")
        names = [f"Seat {i}" for i in range(players)] if seat_names is None else list(seat_names)
        if len(names) != players:
            raise StoreError(f"seat_names has {len(names)} names for {players} players")
        names = [str(n).strip() for n in names]
        for i, n in enumerate(names):
            if not n or len(n) > 40:
                raise StoreError(f"seat_names[{i}] must be 1 to 40 characters")
        if not 0 <= dealer < players:
            raise StoreError(f"dealer must be a seat from 0 to {players - 1}, not {dealer}")
        match_id = _check_id("match", match_id or new_match_id())
        table_id = _check_id("table", table_id)
        self.ensure_table(table_id)
        with self._tx() as db:
            if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone():
                raise Conflict(f"match {match_id!r} already exists")
            db.execute(
                "INSERT INTO matches(id, table_id, variant, players, dealer, created, status) "
                "VALUES (?, ?, ?, ?, ?, ?, 'live')",
                (match_id, table_id, variant, players, dealer, time.time()),
            )
            db.executemany(
                "INSERT INTO players(match_id, seat, name) VALUES (?, ?, ?)",
                [(match_id, seat, name) for seat, name in enumerate(names)],
            )
        return self.match(match_id)

    def match(self, match_id: str) -> MatchInfo:
        found = self._matches("WHERE m.id = ?", (match_id,))
        if not found:
            raise NotFound(f"no match {match_id!r}")
        return found[0]

    def matches(self, table_id: str | None = None) -> list[MatchInfo]:
        """All matches, newest first (optionally of one table)."""
        if table_id is None:
            return self._matches("", ())
        return self._matches("WHERE m.table_id = ?", (table_id,))

    def live_match(self, table_id: str) -> MatchInfo | None:
        """The newest unfinished match at a table: the one a restarted controller resumes."""
        found = [m for m in self.matches(table_id) if m.status == "live"]
        return found[0] if found else None

    def _matches(self, where: str, args: tuple) -> list[MatchInfo]:
        rows = self._query(
            "SELECT m.id, m.table_id, m.variant, m.players, m.dealer, m.created, m.status, "
            "(SELECT COALESCE(MAX(e.id), 0) FROM events e WHERE e.match_id = m.id), "
            "(SELECT json_group_array(name) FROM "
            " (SELECT name FROM players p WHERE p.match_id = m.id ORDER BY seat)) "
            f"FROM matches m {where} ORDER BY m.created DESC, m.id DESC",
            args,
        )
        return [
            MatchInfo(
                id=r[0],
                table_id=r[1],
                variant=r[2],
                players=r[3],
                dealer=r[4],
                created=r[5],
                status=r[6],
                last_event_id=r[7],
                seat_names=tuple(json.loads(r[8])),
            )
            for r in rows
        ]

    # -- events -----------------------------------------------------------------------------

    def append(self, event: Event) -> bool:
        """Persist one event; durable (fsynced) when this returns.

        Idempotent on (match_id, id): appending the same event again returns False and
        changes nothing. A different event under an existing id, an id not above the
        match's last one, an unknown match or type raise StoreError and change nothing.
        """
        if event.type not in EVENT_TYPES:
            raise StoreError(f"unknown event type {event.type!r}")
        if not isinstance(event.id, int) or event.id < 1:
            raise StoreError(f"event id must be a positive integer, not {event.id!r}")
        data = _dumps(event.data)
        with self._tx() as db:
            return self._append_locked(db, event, data)

    def append_many(self, events: Iterable[Event]) -> int:
        """Append several events in one durable transaction; returns how many were new."""
        events = list(events)
        for ev in events:
            if ev.type not in EVENT_TYPES:
                raise StoreError(f"unknown event type {ev.type!r}")
        with self._tx() as db:
            return sum(self._append_locked(db, ev, _dumps(ev.data)) for ev in events)

    def _append_locked(self, db: sqlite3.Connection, event: Event, data: str) -> bool:
        row = db.execute(
            "SELECT type, t, data FROM events WHERE match_id = ? AND id = ?",
            (event.match_id, event.id),
        ).fetchone()
        if row is not None:
            if row[0] == event.type and row[2] == data:
                return False
            raise Conflict(
                f"event {event.id} of match {event.match_id!r} already stored "
                f"with different content ({row[0]})"
            )
        head = db.execute(
            "SELECT (SELECT COUNT(*) FROM matches WHERE id = ?), "
            "(SELECT COALESCE(MAX(id), 0) FROM events WHERE match_id = ?)",
            (event.match_id, event.match_id),
        ).fetchone()
        if not head[0]:
            raise NotFound(f"no match {event.match_id!r}: create it before appending events")
        if event.id <= head[1]:
            raise Conflict(
                f"event id {event.id} is not above the last stored id {head[1]} "
                f"of match {event.match_id!r}"
            )
        db.execute(
            "INSERT INTO events(match_id, id, type, t, data) VALUES (?, ?, ?, ?, ?)",
            (event.match_id, event.id, event.type, float(event.t), data),
        )
        if event.type == MATCH_ENDED:
            db.execute("UPDATE matches SET status = 'finished' WHERE id = ?", (event.match_id,))
        return True

    def append_new(
        self, match_id: str, type: str, data: dict[str, Any], t: float | None = None
    ) -> Event:
        """Append an event under the next free id (chosen atomically); returns it."""
        if type not in EVENT_TYPES:
            raise StoreError(f"unknown event type {type!r}")
        with self._tx() as db:
            last = db.execute(
                "SELECT COALESCE(MAX(id), 0) FROM events WHERE match_id = ?", (match_id,)
            ).fetchone()[0]
            ev = Event(
                id=last + 1,
                match_id=match_id,
                type=type,
                t=time.time() if t is None else float(t),
                data=dict(data),
            )
            self._append_locked(db, ev, _dumps(ev.data))
        return ev

    def events(self, match_id: str, after: int = 0, limit: int | None = None) -> list[Event]:
        """The match's events with id > after, in id order."""
        sql = "SELECT id, type, t, data FROM events WHERE match_id = ? AND id > ? ORDER BY id"
        args: tuple = (match_id, int(after))
        if limit is not None:
            sql += " LIMIT ?"
            args += (int(limit),)
        return [
            Event(id=r[0], match_id=match_id, type=r[1], t=r[2], data=json.loads(r[3]))
            for r in self._query(sql, args)
        ]

    def last_event_id(self, match_id: str) -> int:
        return self._query(
            "SELECT COALESCE(MAX(id), 0) FROM events WHERE match_id = ?", (match_id,)
        )[0][0]

    # -- exports ----------------------------------------------------------------------------

    def export_jsonl(self, match_id: str) -> str:
        """The match's event log as JSON lines (one `Event.to_dict()` per line)."""
        self.match(match_id)
        return "".join(
            json.dumps(ev.to_dict(), ensure_ascii=False) + "\n" for ev in self.events(match_id)
        )

    def export_record(self, match_id: str) -> dict[str, Any]:
        """The match's completed rounds as a DESIGN.md game record, rebuilt from the log.

        Physical rounds carry their initial `floor` instead of a `deck`; a referee-accepted
        foul is a forced play (`{"card", "force": true, "floor_after"}`), as engine.record reads.
        """
        from controller.table_state import replay

        info = self.match(match_id)
        state = replay(self.events(match_id))
        if state.match is None:
            return {"variant": info.variant, "players": info.players, "rounds": []}
        return state.match.export()


def new_match_id() -> str:
    """A short, sortable, unguessable match id: UTC date-time plus 6 random hex digits."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def _check_id(kind: str, value: str) -> str:
    value = str(value)
    ok = 1 <= len(value) <= 64 and all(c.isalnum() or c in "-_." for c in value)
    if not ok:
        raise StoreError(f"{kind} id {value!r} must be 1-64 letters, digits, '-', '_' or '.'")
    return value


def _table_info(row: tuple) -> TableInfo:
    return TableInfo(
        id=row[0],
        name=row[1],
        calibration=None if row[2] is None else json.loads(row[2]),
        updated=row[3],
    )
