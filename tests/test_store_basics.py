"""The match store on a real SQLite file: durability settings, idempotent appends, validation.

Every refused request must change nothing (the standards: bad input changes nothing).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3

import pytest

from controller.events import Event
from controller.store import Store, StoreError


def ev(match_id: str, i: int, type_: str = "prompt", **data) -> Event:
    return Event(id=i, match_id=match_id, type=type_, t=100.0 + i, data=data or {"n": i})


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "venue.db")
    yield s
    s.close()


def test_database_is_wal_with_full_sync(tmp_path):
    s = Store(tmp_path / "venue.db")
    mode = s._db.execute("PRAGMA journal_mode").fetchone()[0]
    sync = s._db.execute("PRAGMA synchronous").fetchone()[0]
    s.close()
    assert mode == "wal"
    assert sync == 2  # FULL: the WAL is fsynced on every commit


def test_append_is_idempotent_on_match_and_id(store):
    m = store.create_match("classic", 2, ["Rami", "Huda"], dealer=1, table_id="t1")
    assert store.append(ev(m.id, 1, floor=["9C", "5H", "4S", "KD"])) is True
    assert store.append(ev(m.id, 1, floor=["9C", "5H", "4S", "KD"])) is False  # a retry
    assert store.append(ev(m.id, 2)) is True
    got = store.events(m.id)
    assert [e.id for e in got] == [1, 2]
    assert got[0].data == {"floor": ["9C", "5H", "4S", "KD"]}
    assert store.match(m.id).last_event_id == 2


def test_conflicting_event_is_refused_and_changes_nothing(store):
    m = store.create_match()
    store.append(ev(m.id, 1, card="9D"))
    with pytest.raises(StoreError, match="already stored with different content"):
        store.append(ev(m.id, 1, card="TD"))
    assert store.events(m.id)[0].data == {"card": "9D"}


def test_ids_must_increase(store):
    m = store.create_match()
    store.append(ev(m.id, 5))
    with pytest.raises(StoreError, match="not above the last stored id 5"):
        store.append(ev(m.id, 3))
    assert [e.id for e in store.events(m.id)] == [5]


def test_unknown_match_or_type_is_refused(store):
    with pytest.raises(StoreError, match="no match 'nope'"):
        store.append(ev("nope", 1))
    m = store.create_match()
    with pytest.raises(StoreError, match="unknown event type 'bogus'"):
        store.append(ev(m.id, 1, type_="bogus"))
    assert store.events(m.id) == []


def test_append_many_is_all_or_nothing(store):
    m = store.create_match()
    store.append(ev(m.id, 2))
    with pytest.raises(StoreError):
        store.append_many([ev(m.id, 3), ev(m.id, 1)])  # 1 is below 3: whole batch refused
    assert [e.id for e in store.events(m.id)] == [2]
    assert store.append_many([ev(m.id, 2), ev(m.id, 3), ev(m.id, 4)]) == 2


def test_events_after_and_limit(store):
    m = store.create_match()
    store.append_many(ev(m.id, i) for i in range(1, 11))
    assert [e.id for e in store.events(m.id, after=7)] == [8, 9, 10]
    assert [e.id for e in store.events(m.id, after=2, limit=3)] == [3, 4, 5]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"variant": "poker"}, "unknown variant 'poker'"),
        ({"variant": "eram", "players": 4, "seat_names": list("abcd")}, "eram is played by 2"),
        ({"variant": "classic", "players": 3, "seat_names": list("abc")}, "not 3"),  # R1.1
        ({"players": 2, "seat_names": ["solo"]}, "seat_names has 1 names for 2 players"),
        ({"players": 2, "dealer": 2}, "dealer must be a seat from 0 to 1"),
        ({"seat_names": ["", "B"]}, r"seat_names\[0\]"),
        ({"table_id": "a table!"}, "table id 'a table!'"),
    ],
)
def test_bad_match_is_refused_and_nothing_saved(store, kwargs, message):
    with pytest.raises(StoreError, match=message):
        store.create_match(**kwargs)
    assert store.matches() == []


def test_lebanese_allows_three_players(store):
    m = store.create_match("lebanese", 3, ["A", "B", "C"], dealer=2)  # RULES.md V3
    assert (m.players, m.dealer, m.seat_names) == (3, 2, ("A", "B", "C"))


def test_matches_newest_first_and_status(store):
    a = store.create_match(match_id="a-1", table_id="t1")
    b = store.create_match(match_id="b-2", table_id="t1")
    assert store.live_match("t1").id == b.id
    store.append(ev(b.id, 1, "match_ended", winner=0, totals=[101, 40]))
    assert store.match(b.id).status == "finished"
    assert store.live_match("t1").id == a.id
    assert [m.id for m in store.matches()][0] in {a.id, b.id}
    assert {m.id for m in store.matches("t1")} == {a.id, b.id}
    with pytest.raises(StoreError, match="already exists"):
        store.create_match(match_id="a-1")


def test_everything_survives_reopening(tmp_path):
    path = tmp_path / "venue.db"
    s = Store(path)
    m = s.create_match("egyptian", 4, ["A", "B", "C", "D"], dealer=3, table_id="t9")
    s.append(ev(m.id, 1, floor=["AS"]))
    s.put_calibration("t9", {"floor": [[0.2, 0.15], [0.8, 0.85]]})
    s.close()
    s2 = Store(path)
    assert s2.match(m.id) == m.__class__(**{**m.__dict__, "last_event_id": 1})
    assert s2.events(m.id)[0].data == {"floor": ["AS"]}
    assert s2.table("t9").calibration == {"floor": [[0.2, 0.15], [0.8, 0.85]]}
    s2.close()


def test_calibration_must_be_an_object(store):
    with pytest.raises(StoreError, match="calibration must be a JSON object"):
        store.put_calibration("t1", [1, 2])
    with pytest.raises(StoreError, match="no table 't1'"):
        store.table("t1")


def test_export_jsonl_round_trips(store):
    m = store.create_match()
    store.append_many([ev(m.id, 1, text="ولد"), ev(m.id, 2)])
    lines = store.export_jsonl(m.id).splitlines()
    assert [Event.from_dict(json.loads(x)) for x in lines] == store.events(m.id)
    assert "ولد" in lines[0]  # Arabic kept readable, not \u-escaped


def test_not_a_database(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("these are my notes, not a database\n" * 50)
    with pytest.raises(StoreError, match="is not a basra-table database"):
        Store(bad)
    with pytest.raises(StoreError, match="is a directory"):
        Store(tmp_path)
    with pytest.raises(StoreError, match="does not exist"):
        Store(tmp_path / "missing" / "x.db")


def _writer(path: str, match_id: str, n: int, out) -> None:
    s = Store(path)
    out.put(
        [s.append_new(match_id, "prompt", {"pid": mp.current_process().name}).id for _ in range(n)]
    )
    s.close()


def test_two_processes_appending_get_distinct_consecutive_ids(tmp_path):
    path = tmp_path / "venue.db"
    s = Store(path)
    m = s.create_match()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(path), m.id, 40, q)) for _ in range(2)]
    for p in procs:
        p.start()
    ids = q.get(timeout=60) + q.get(timeout=60)
    for p in procs:
        p.join(timeout=30)
    assert sorted(ids) == list(range(1, 81))
    assert [e.id for e in s.events(m.id)] == list(range(1, 81))
    # and a plain sqlite3 reader agrees (the file is an ordinary SQLite database)
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 80
    s.close()
