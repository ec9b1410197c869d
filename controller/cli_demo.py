"""`basra-table demo` (the whole system on a rendered match, no hardware) and `basra-table serve`.

Both serve the referee API and dashboard with uvicorn on 127.0.0.1 unless told otherwise; the
demo also renders a match, referees it from the video and drives the scoreboard (emulated).
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import typer

from controller.errors import UserError

DEMO_NAMES = ("Rami", "Huda", "Sami", "Lina")


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("demo")(demo)


# ---- shared plumbing ----------------------------------------------------------------------------


def _check_port(host: str, port: int) -> None:
    if not 0 < port < 65536:
        raise UserError(f"--port must be 1..65535, not {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as exc:
            raise UserError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another --port"
            ) from None


def _open_venue(db: Path) -> tuple[Any, str, str | None]:
    from controller import api_token
    from controller.store import Store

    store = Store(db)
    digest, token = api_token.load_or_create(db)
    return store, digest, token


def _announce_url(host: str, port: int, db: Path, token: str | None) -> None:
    from controller.api_token import token_path

    url = f"http://{host}:{port}/"
    if token:
        print(f"dashboard: {url}#token={token}", flush=True)
        print(f"referee token (shown once, keep it): {token}", flush=True)
    else:
        print(f"dashboard: {url}", flush=True)
        print(
            f"referee token: the one shown when {db} was first served "
            f"(delete {token_path(db)} to issue a new one)",
            flush=True,
        )
    print(f"API docs: {url}docs", flush=True)


class _Server:
    """uvicorn in a background thread, stoppable."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        import uvicorn

        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)

    def start(self, timeout: float = 15.0) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise UserError("the web server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)


def _wait_forever() -> None:
    print("serving; press Ctrl-C to stop", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


# ---- serve --------------------------------------------------------------------------------------


def serve(
    db: Path = typer.Option(..., "--db", help="The venue database (SQLite); created if missing"),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: local only)"),
    port: int = typer.Option(8000, "--port", help="TCP port"),
) -> None:
    """Serve the referee API and the live dashboard for a venue database."""
    from controller.api import create_app
    from controller.live_tables import LiveTables

    _check_port(host, port)
    existed = db.exists()
    store, digest, token = _open_venue(db)
    if not existed:
        print(f"created venue database {db}", flush=True)
    live = LiveTables(store)
    app = create_app(store, digest, live=live.view, referee_sink=live.referee)
    server = _Server(app, host, port)
    server.start()
    _announce_url(host, port, db, token)
    try:
        _wait_forever()
    finally:
        server.stop()
        store.close()


# ---- demo ---------------------------------------------------------------------------------------


def _scoreboard(serial: str | None) -> tuple[Any, str]:
    from firmware_bridge.bridge import ScoreboardBridge
    from firmware_bridge.sim import missing_tools

    if serial is None:
        why = missing_tools()
        serial = "text://" if why else "sim://"
        note = f"text scoreboard ({why})" if why else "firmware in the simavr emulator"
    else:
        note = serial
    try:
        bridge = ScoreboardBridge(serial).start()
    except (ValueError, OSError) as exc:
        raise UserError(f"--serial {serial}: {exc}") from None
    return bridge, f"{serial} ({note})" if serial != note else serial


def _recognizer() -> Any:
    from vision.recognizer import ModelMissingError, Recognizer

    try:
        return Recognizer()
    except ModelMissingError as exc:
        raise UserError(
            f"{exc}; the recogniser model ships in models/ with the repository"
        ) from None


class _Runner:
    """Plays rendered matches through the live pipeline, one after another."""

    def __init__(self, live: Any, recognizer: Any, bridge: Any, opts: dict[str, Any]) -> None:
        self.live = live
        self.recognizer = recognizer
        self.bridge = bridge
        self.opts = opts
        self.queue: list[Any] = []
        self.cond = threading.Condition()
        self.results: dict[str, dict] = {}
        self.stop = False

    def enqueue(self, info: Any) -> None:
        with self.cond:
            self.queue.append(info)
            self.cond.notify_all()

    def next(self, timeout: float | None) -> Any:
        with self.cond:
            self.cond.wait_for(lambda: self.queue or self.stop, timeout=timeout)
            return self.queue.pop(0) if self.queue else None

    def play(self, info: Any, video: Any) -> dict:
        o = self.opts
        self.live.open(
            info, recognizer=self.recognizer, bridge=self.bridge, geometry=video.geometry
        )
        speed = o["speed"]
        start = time.monotonic()
        table = self.live.table(info.id)
        for t, frame in video.frames():
            if self.stop:
                break
            if speed > 0:
                ahead = t / speed - (time.monotonic() - start)
                if ahead > 0:
                    time.sleep(ahead)
            self.live.feed_frame(info.id, frame, t)
            if table.state.phase == "finished":
                break
        result = table.result()
        self.results[info.id] = result
        return result


def _render(
    opts: dict[str, Any], seed: int, players: int, variant: str, dealer: int | None = None
) -> Any:
    """A rendered match (frames are drawn lazily, as the pipeline asks for them)."""
    from controller.simulator import simulate

    return simulate(
        variant=variant,
        players=players,
        seed=seed,
        rounds=opts["rounds"],
        fouls=opts["fouls"],
        fps=opts["fps"],
        dealer=dealer,
        deck=opts["deck"],
    )


def _final_line(info: Any, result: dict) -> str:
    from controller.api_state import sides_of

    sides = [" & ".join(names) for names in sides_of(info)]
    score = " – ".join(
        f"{name} {total}" for name, total in zip(sides, result["totals"], strict=True)
    )
    rounds = len(result["rounds"])
    if result["finished"]:
        w = result["winner"]
        tail = "draw" if w is None else f"{sides[w]} wins"
    else:
        tail = f"after {rounds} round{'s' if rounds != 1 else ''}, match not decided"
    fouls = len(result.get("fouls", []))
    return f"final score: {score} ({tail}; {fouls} foul{'s' if fouls != 1 else ''} flagged)"


def demo(
    port: int = typer.Option(8000, "--port", help="Dashboard port on 127.0.0.1"),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: local only)"),
    db: Path | None = typer.Option(
        None, "--db", help="Venue database (default: a fresh temp file)"
    ),
    variant: str = typer.Option("classic", "--variant", help="Rule set"),
    players: int = typer.Option(2, "--players", help="2, 3 or 4 players"),
    seed: int = typer.Option(3, "--seed", help="Seed of the rendered match"),
    rounds: int = typer.Option(1, "--rounds", min=1, help="Rounds to render (a short match)"),
    fouls: int = typer.Option(1, "--fouls", min=0, help="Fouls the bots commit, for the referee"),
    fps: int = typer.Option(15, "--fps", help="Video frame rate: 15 or 30"),
    deck: str = typer.Option(
        # A design the shipped recogniser was trained on; bellot-lgpl21 is its held-out deck.
        "aguilar-lgpl3",
        "--deck",
        help="Card design to render (vision/assets/decks)",
    ),
    speed: float = typer.Option(1.0, "--speed", min=0.0, help="1 = real time, 0 = flat out"),
    serial: str | None = typer.Option(
        None, "--serial", help="Scoreboard (default sim:// or text://)"
    ),
    no_serve: bool = typer.Option(
        False, "--no-serve", help="Run the pipeline without the web server"
    ),
    exit_when_done: bool = typer.Option(
        False, "--exit-when-done", help="Stop once the demo match is over (default: keep serving)"
    ),
    idle: bool = typer.Option(
        False, "--idle", help="Start no match; play each match created from the dashboard"
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the final score as JSON"),
) -> None:
    """The whole system with no hardware: a rendered match, refereed live, on the dashboard."""
    from engine.rules import RulesError, get_ruleset

    try:
        get_ruleset(variant).check_players(players)
    except RulesError as exc:
        raise UserError(str(exc)) from None
    if fps not in (15, 30):
        raise UserError(f"--fps must be 15 or 30, not {fps}")
    if idle and (no_serve or exit_when_done):
        raise UserError("--idle waits for matches from the dashboard: it needs the web server")
    if not no_serve:
        _check_port(host, port)
    if db is None:
        db = Path(tempfile.mkdtemp(prefix="basra-demo-")) / "venue.db"
    store, digest, token = _open_venue(db)
    from vision.deck import ASSETS

    if not (ASSETS / deck).is_dir():
        names = ", ".join(sorted(p.name for p in ASSETS.iterdir() if p.is_dir()))
        raise UserError(f"--deck {deck!r}: no such card design (one of: {names})")
    opts = {"rounds": rounds, "fouls": fouls, "fps": fps, "speed": speed, "deck": deck}

    from controller.live_tables import LiveTables

    recognizer = _recognizer()
    bridge, board = _scoreboard(serial)
    live = LiveTables(store)
    runner = _Runner(live, recognizer, bridge, opts)
    server = None
    log = sys.stderr if json_out else sys.stdout
    print(f"database: {db}", file=log, flush=True)
    print(f"scoreboard: {board}", file=log, flush=True)
    if not no_serve:
        from controller.api import create_app

        app = create_app(
            store,
            digest,
            live=live.view,
            referee_sink=live.referee,
            on_match_created=runner.enqueue,
            health_extra=lambda: {**bridge.health(), "display": bridge.display_text()},
        )
        server = _Server(app, host, port)
        server.start()
        if json_out:
            sys.stdout, saved = sys.stderr, sys.stdout
            try:
                _announce_url(host, port, db, token)
            finally:
                sys.stdout = saved
        else:
            _announce_url(host, port, db, token)

    first = None
    if not idle:
        video = _render(opts, seed, players, variant)
        dealer = video.game.rounds[0].dealer
        first = store.create_match(variant, players, DEMO_NAMES[:players], dealer=dealer)
        runner.enqueue(first)
    try:
        n = 0
        if idle:
            print("waiting for a match started from the dashboard; Ctrl-C to stop", file=log)
        while True:
            info = runner.next(timeout=None if not exit_when_done and not no_serve else 0)
            if info is None:
                break
            if info is first:
                v = video
            else:
                v = _render(opts, seed + 1 + n, info.players, info.variant, info.dealer)
            print(
                f"playing match {info.id}: {info.variant}, "
                f"{' vs '.join(info.seat_names)}, {v.duration:.0f} s of video",
                file=log,
                flush=True,
            )
            result = runner.play(info, v)
            n += 1
            print(_final_line(info, result), file=log, flush=True)
            if json_out:
                print(json.dumps({"match_id": info.id, **result}), flush=True)
            if exit_when_done or no_serve:
                break
            if n == 1:
                print(
                    "still serving: matches started from the dashboard are played too; "
                    "Ctrl-C to stop",
                    file=log,
                    flush=True,
                )
    except KeyboardInterrupt:
        pass
    finally:
        runner.stop = True
        if server is not None:
            server.stop()
        bridge.close()
        store.close()
