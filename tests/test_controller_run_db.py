"""`basra-table run --db` under kill -9: the real CLI, a real video, the real recogniser.

A short clip of a rendered match is refereed once without interruption (the reference log),
then again in a subprocess that is SIGKILLed a few times mid-way and restarted with
`--resume`. After every kill the stored log has ids 1..n without gaps or duplicates and holds
whole steps only (every event of a frame, or none); the restarted run skips the frames
already refereed and ends with exactly the reference log.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

from controller.store import Store
from controller.table_state import replay

ROOT = Path(__file__).resolve().parents[1]
FRAMES = 540  # 36 s of video at 15 fps: the deal and the first plays
KILLS = 3
RUN = [
    sys.executable, "-c", "from controller.cli import main; main()", "run",
    "--variant", "classic", "--players", "2", "--dealer", "1", "--json",
]  # fmt: skip


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """The first FRAMES frames of a rendered match (seed 4, dealer 1) as an mp4."""
    from controller.simulator import simulate

    video = simulate("classic", 2, 4, rounds=1, dealer=1, fps=15)
    out = tmp_path_factory.mktemp("clip") / "clip.mp4"
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), video.fps, video.size)
    try:
        for i, (_t, frame) in enumerate(video.frames()):
            if i >= FRAMES:
                break
            writer.write(frame)
    finally:
        writer.release()
    return out


def stored(db: Path) -> list:
    if not db.exists():
        return []
    with Store(db) as store:
        ms = store.matches()
        return store.events(ms[0].id) if ms else []


BOX_PX = 4.0  # how far a card's logged box may lie from the uninterrupted run's (pixels)


def as_tuples(events) -> list[tuple]:
    """Each event whole, but of where the camera knew the cards lay (`boxes`) only which
    cards: a restarted tracker reads their boxes afresh, a pixel or two off (`same_boxes`)."""

    def data(e) -> str:
        d = dict(e.data)
        if "boxes" in d:
            d["boxes"] = sorted(d["boxes"])
        return json.dumps(d, sort_keys=True)

    return [(e.id, e.type, e.t, data(e)) for e in events]


def same_boxes(a: dict, b: dict) -> bool:
    """Whether two events' `boxes` place the same cards within BOX_PX of each other."""
    return a.keys() == b.keys() and all(
        abs(x - y) <= BOX_PX for c in a for x, y in zip(a[c], b[c], strict=True)
    )


def assert_same(log, ref) -> None:
    """`log` equals `ref` (as_tuples, boxes within BOX_PX); on a mismatch, name the first
    differing fields."""
    a, b = as_tuples(log), as_tuples(ref)
    for x, y, ex, ey in zip(a, b, log, ref, strict=False):
        boxes = ex.data.get("boxes"), ey.data.get("boxes")
        if x != y or (boxes[0] is not None and not same_boxes(*boxes)):
            keys = sorted(k for k in {*ex.data, *ey.data} if ex.data.get(k) != ey.data.get(k))
            diff = {k: (ex.data.get(k), ey.data.get(k)) for k in keys}
            raise AssertionError(f"event {ex.id}: {x[:3]} vs {y[:3]}, data {diff}")
    assert len(a) == len(b), (len(a), len(b))


def check_log(events) -> None:
    """Ids 1..n: strictly increasing, no gap, no duplicate; a match_started first."""
    assert [e.id for e in events] == list(range(1, len(events) + 1))
    if events:
        assert events[0].type == "match_started"


def run(clip: Path, db: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*RUN, "--source", str(clip), "--db", str(db), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_run_db_killed_and_resumed_stores_the_uninterrupted_log(clip, tmp_path):
    ref_db = tmp_path / "ref.db"
    proc = run(clip, ref_db)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    ref = stored(ref_db)
    check_log(ref)
    result = json.loads(out)
    # The printed result is the stored log's: `score --json` shape plus fouls.
    st = replay(ref)
    assert {k: v for k, v in result.items() if k != "fouls"} == st.score()
    assert [f["kind"] for f in result["fouls"]] == [f["kind"] for f in st.fouls()]
    assert len(ref) > 8, "the clip should cause a deal and several turns"
    times = {e.t for e in ref[1:]}  # one step per frame: its events share the frame's time

    rng = random.Random(7)
    db = tmp_path / "venue.db"
    kills, before = 0, 0
    proc = run(clip, db)
    while True:
        if kills < KILLS:
            # Wait for new progress beyond the last kill, then kill at a random moment.
            deadline = time.monotonic() + 60
            while proc.poll() is None and len(stored(db)) <= before + 1:
                assert time.monotonic() < deadline, "no progress"
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 0.4))
            if proc.poll() is None:
                proc.kill()  # SIGKILL: no clean-up of any kind
                proc.wait(timeout=10)
                kills += 1
                log = stored(db)
                check_log(log)
                assert len(log) >= before
                if log:
                    # No half step: every event of the last stored frame is stored.
                    last_t = log[-1].t
                    assert last_t in times or len(log) == 1
                    assert len(log) == len(ref) or ref[len(log)].t != last_t
                assert_same(log, ref[: len(log)])
                before = len(log)
                proc = run(clip, db, "--resume")
                continue
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        break
    assert kills == KILLS
    final = stored(db)
    check_log(final)
    assert_same(final, ref)
    assert json.loads(out) == result
