"""`basra-table run`: referee a table from a camera, a video file or a simulated match.

Reads frames, feeds them to a `Table` (recogniser, turn tracker, engine), drives the scoreboard
and the store, and at the end prints the `score --json` shape plus the fouls flagged.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.errors import UserError
from controller.live_view import LiveView


def register(app: typer.Typer) -> None:
    app.command("run", help="Referee a table: camera index, video file, or 'sim'.")(run_cmd)


def run_cmd(
    source: Annotated[
        str, typer.Option("--source", help="camera index (0), a video file, or 'sim'")
    ],
    serial: Annotated[
        str | None,
        typer.Option("--serial", help="scoreboard: a port, a pyserial URL, sim:// or text://"),
    ] = None,
    variant: Annotated[str, typer.Option("--variant", help="rule set")] = "classic",
    players: Annotated[int, typer.Option("--players", help="2, 3 or 4")] = 2,
    dealer: Annotated[int, typer.Option("--dealer", help="the first round's dealer seat")] = 0,
    table: Annotated[
        Path | None, typer.Option("--table", help="calibration JSON: floor and seats")
    ] = None,
    db: Annotated[Path | None, typer.Option("--db", help="venue database (SQLite)")] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="with --db: continue the table's live match")
    ] = False,
    table_id: Annotated[str, typer.Option("--table-id", help="with --db: the table")] = "table-1",
    seed: Annotated[int, typer.Option("--seed", help="--source sim: the match's seed")] = 0,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="--source sim: rounds to render")
    ] = None,
    events_out: Annotated[
        bool, typer.Option("--events", help="print every event as a JSON line on stderr")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the final score as JSON")] = False,
) -> None:
    from controller.table import Table
    from controller.table_geometry import TableGeometry
    from engine.rules import RulesError, get_ruleset

    try:
        get_ruleset(variant).check_players(players)
    except RulesError as exc:
        raise UserError(f"--variant/--players: {exc}") from None
    if not 0 <= dealer < players:
        raise UserError(f"--dealer must be a seat from 0 to {players - 1}, not {dealer}")
    if resume and db is None:
        raise UserError("--resume needs --db FILE")
    if source != "sim" and (rounds is not None):
        raise UserError("--rounds is only for --source sim")
    geometry = TableGeometry.load(table, players) if table else TableGeometry.default(players)
    frames = _open_source(source, variant, players, dealer, seed, rounds)
    recognizer = _recognizer()
    bridge = _bridge(serial)  # before the store: a bad --serial must not leave a match behind
    store = None
    printer = _print_event if events_out else None
    try:
        store, info = _open_store(db, resume, variant, players, dealer, table_id)
        if store is None:
            tab = Table(
                variant, players, dealer, geometry=geometry, recognizer=recognizer,
                bridge=bridge, subscribers=[printer] if printer else [],
            )  # fmt: skip
            step = tab.feed_frame
        else:
            from controller.live_tables import LiveTables

            # Each frame's events land in ONE durable transaction; referee decisions that
            # `serve` appended to the same match are folded in before every frame.
            live = LiveTables(store, view=_NoView())
            tab = live.open(info, recognizer=recognizer, bridge=bridge, geometry=geometry)
            if printer is not None:
                if not resume:
                    for e in store.events(info.id):  # match_started, written by open()
                        printer(e)
                tab.subscribe(printer)
            step = functools.partial(live.feed_frame, info.id)
            if resume:
                frames = _resume_frames(frames, _resume_time(store, info.id), source.isdigit())
        stats = _feed(tab, step, frames)
        result = tab.result()
    finally:
        if bridge is not None:
            bridge.close()
        if store is not None:
            store.close()
    if json_out:
        print(json.dumps(result))
        return
    totals = " – ".join(str(x) for x in result["totals"])
    state = "finished" if result["finished"] else "not decided"
    print(
        f"{stats['frames']} frames in {stats['seconds']:.1f} s; {len(result['rounds'])} round(s), "
        f"totals {totals} ({state}); {len(result['fouls'])} foul(s) flagged"
    )
    for f in result["fouls"]:
        print(f"  foul: round {f['round']} play {f['play']} {f['card']} {f['kind']}")


def _print_event(e: Any) -> None:
    print(json.dumps(e.to_dict()), file=sys.stderr, flush=True)


def _feed(
    tab: Any, step: Callable[[Any, float], Any], frames: Iterator[tuple[float, Any]]
) -> dict[str, float]:
    start = time.perf_counter()
    n = 0
    try:
        for t, frame in frames:
            step(frame, t)
            n += 1
            if tab.state.phase == "finished":
                break
    except KeyboardInterrupt:
        pass  # a live camera stops with Ctrl-C: report what was refereed
    return {"frames": n, "seconds": time.perf_counter() - start}


def _open_source(
    source: str, variant: str, players: int, dealer: int, seed: int, rounds: int | None
) -> Iterator[tuple[float, Any]]:
    import cv2

    # OpenCV and its FFmpeg backend write warnings straight to stderr (a missing camera, a file
    # that is no video); the one-line error below says it instead.
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # read when the backend first loads
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    if source == "sim":
        from controller.simulator import simulate

        video = simulate(variant, players, seed, rounds=rounds, dealer=dealer)
        return video.frames()
    if source.isdigit():
        cap = cv2.VideoCapture(int(source))
        if not cap.isOpened():
            raise UserError(f"--source {source}: no camera with that index")
        return _camera_frames(cap)
    path = Path(source)
    if not path.is_file():
        raise UserError(f"--source {source}: no such video file (or a camera index, or 'sim')")
    cap = cv2.VideoCapture(str(path))
    ok = cap.isOpened()
    if ok:
        ok, first = cap.read()
    if not ok:
        raise UserError(f"--source {source}: not a readable video")
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    return _file_frames(cap, first, fps)


def _file_frames(cap: Any, first: Any, fps: float) -> Iterator[tuple[float, Any]]:
    i, frame = 0, first
    try:
        while frame is not None:
            yield i / fps, frame
            ok, frame = cap.read()
            frame = frame if ok else None
            i += 1
    finally:
        cap.release()


def _camera_frames(cap: Any) -> Iterator[tuple[float, Any]]:
    start = time.monotonic()
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                raise UserError("the camera stopped delivering frames")
            yield time.monotonic() - start, frame
    finally:
        cap.release()


def _recognizer() -> Any:
    from vision.recognizer import ModelMissingError, Recognizer

    try:
        return Recognizer()
    except ModelMissingError as exc:
        raise UserError(f"{exc}; the recogniser model ships in models/") from None


def _bridge(serial: str | None) -> Any:
    if serial is None:
        return None
    from firmware_bridge.bridge import ScoreboardBridge

    try:
        return ScoreboardBridge(serial).start()
    except ValueError as exc:
        raise UserError(f"--serial {serial}: {exc}") from None


def _open_store(
    db: Path | None, resume: bool, variant: str, players: int, dealer: int, table_id: str
) -> tuple[Any, Any]:
    """The venue store (if --db) and the match: a new one, or the table's live one (--resume)."""
    if db is None:
        return None, None
    from controller.store import Store

    store = Store(db)
    if resume:
        info = store.live_match(table_id)
        if info is None:
            store.close()
            raise UserError(f"--resume: no live match at table {table_id!r} in {db}")
        if info.variant != variant or info.players != players:
            store.close()
            raise UserError(
                f"--resume: the live match is {info.variant} with {info.players} players, "
                f"not {variant} with {players}"
            )
        return store, info
    info = store.create_match(variant=variant, players=players, dealer=dealer, table_id=table_id)
    return store, info


def _resume_time(store: Any, match_id: str) -> float | None:
    """The source time of the last stored step the frames caused (None: none yet).

    `match_started` (t 0) is no frame's verdict, and referee decisions appended by `serve`
    carry wall-clock times, so neither counts.
    """
    from controller.events import MATCH_STARTED, REFEREE

    times = [e.t for e in store.events(match_id) if e.type not in (MATCH_STARTED, REFEREE)]
    return max(times) if times else None


def _resume_frames(
    frames: Iterator[tuple[float, Any]], after: float | None, camera: bool
) -> Iterator[tuple[float, Any]]:
    """Resumed frames: a video's (or sim's) frames up to `after` were already refereed and are
    skipped; a camera's clock restarts at 0, so its times continue from `after` instead."""
    if after is None:
        yield from frames
        return
    for t, frame in frames:
        if camera:
            yield after + t, frame
        elif t > after:
            yield t, frame


class _NoView(LiveView):
    """`run` shows no dashboard: no JPEG encoding of frames for a camera view."""

    def wants_frame(self, table_id: str) -> bool:
        return False

    def put(self, *args: Any, **kwargs: Any) -> bool:
        return False
