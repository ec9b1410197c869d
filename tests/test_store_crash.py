"""Crash safety: kill -9 a real controller process at random moments, restart it, compare.

The controller is tests/data/store/table_script.py: the product's LiveTables (a real Table
resumed from the SQLite store, each step's events written in one durable transaction) fed
settled floor snapshots on stdin. The camera is modelled as re-showing the table from the last
snapshot that produced a verdict (the players wait while the scoreboard restarts).

After every restart: the stored log is exactly a prefix of an uninterrupted run's log (nothing
lost, nothing duplicated, no half step), and the resumed state equals the state before the
kill. At the end the whole log equals the uninterrupted run's, event for event.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from controller.store import Store
from controller.table import Table
from controller.table_state import replay
from controller.turns import Snapshot

SCRIPT = Path(__file__).parent / "data" / "store" / "table_script.py"
_spec = importlib.util.spec_from_file_location("table_script", SCRIPT)
table_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(table_script)

KILLS = 20


def reference(mid: str, snaps, dealer: int):
    """The uninterrupted run: every event, and the last event id after each snapshot."""
    events = []
    table = Table("classic", 2, dealer, match_id=mid, subscribers=[events.append])
    last_after = []
    for t, floor in snaps:
        table.feed_snapshot(Snapshot(t=t, floor=frozenset(floor)))
        last_after.append(table.state.last_event_id)
    return events, last_after


def resume_index(stored_last: int, last_after: list[int]) -> int:
    """Re-show the table from the last snapshot whose verdict is stored (0 if none is)."""
    assert stored_last == 1 or stored_last in last_after, f"half a step stored ({stored_last})"
    k = 0
    for i, last in enumerate(last_after):
        before = last_after[i - 1] if i else 1
        if last > before and last <= stored_last:
            k = i
    return k


def as_tuples(events):
    return [(e.id, e.type, e.t, json.dumps(e.data, sort_keys=True)) for e in events]


def test_kill_9_at_random_points_loses_and_duplicates_nothing(tmp_path):
    rng = random.Random(2026)
    kills, matches = 0, 0
    stopped_at: list[int] = []  # snapshots refereed before each kill
    while kills < KILLS:
        matches += 1
        db = tmp_path / f"venue{matches}.db"
        mid = f"crash-{matches}"
        snaps, truth = table_script.play_script(
            "classic", 2, dealer=0, seed=100 + matches, rounds=2, fouls={(0, 7): "wrong_capture"}
        )
        ref, last_after = reference(mid, snaps, 0)
        done = False
        while not done:
            with Store(db) as store:
                stored = store.events(mid) if store.matches() else []
            stored_last = stored[-1].id if stored else 0
            # Nothing lost or duplicated, no half step: exactly a prefix of the reference log.
            assert as_tuples(stored) == as_tuples(ref[:stored_last])
            start = resume_index(stored_last, last_after) if stored_last > 1 else 0
            proc = subprocess.Popen(
                [sys.executable, str(SCRIPT), str(db), mid, "classic", "2", "0"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            ready = json.loads(proc.stdout.readline())
            # The restarted controller's state is the state before the kill.
            want = replay(ref[: max(stored_last, 1)]).to_dict()
            assert ready["state"] == want
            todo = snaps[start:]
            proc.stdin.write("".join(json.dumps([t, f]) + "\n" for t, f in todo))
            proc.stdin.close()  # the driver exits once it has refereed them all
            if kills < KILLS:
                time.sleep(rng.uniform(0.0, 0.1))
                proc.kill()  # SIGKILL: no clean-up of any kind
                proc.wait(timeout=10)
                acks = sum(1 for line in proc.stdout if line.startswith("ack "))
                if acks < len(todo):  # it died in the middle of the stream
                    kills += 1
                    stopped_at.append(acks)
                    continue
            else:
                assert proc.wait(timeout=60) == 0
            done = True
        with Store(db) as store:
            final = store.events(mid)
        assert as_tuples(final) == as_tuples(ref)
        assert [e.id for e in final] == list(range(1, len(ref) + 1))
        st = replay(final)
        assert st.totals == truth.totals  # the engine's own score of the game played
        assert [f["kind"] for f in st.fouls()] == ["wrong_capture"]
    assert kills >= KILLS
    assert len(set(stopped_at)) >= 10, stopped_at  # the kills landed at many different points
