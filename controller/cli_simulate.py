"""`basra-table simulate`: engine self-play figures, or a rendered video of a whole match.

Without `--out` it times random self-play (`engine.selfplay`); with `--out` it renders a match
played by bots (`controller.simulator`) and writes the true record and the injected fouls.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from controller.errors import UserError


def register(app: typer.Typer) -> None:
    app.command(
        "simulate",
        help="Self-play with the engine alone, or (with --out) render a table video of a match.",
    )(simulate_cmd)


def simulate_cmd(
    variant: Annotated[str, typer.Option("--variant", help="rule set")] = "classic",
    players: Annotated[int, typer.Option("--players", help="2, 3 or 4")] = 2,
    seed: Annotated[int, typer.Option("--seed", help="random seed")] = 0,
    games: Annotated[int, typer.Option("--games", help="self-play: matches to play")] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", help="render a video (mp4) of one match here")
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="with --out: the true game record (default: OUT.json)"),
    ] = None,
    fouls: Annotated[int, typer.Option("--fouls", help="with --out: fouls to inject")] = 0,
    misdeal: Annotated[
        bool, typer.Option("--misdeal", help="with --out: a J on the first floor (R1.3 fix)")
    ] = False,
    fps: Annotated[int, typer.Option("--fps", help="with --out: 15 or 30")] = 30,
    deck: Annotated[
        str, typer.Option("--deck", help="with --out: card design from vision/assets/decks")
    ] = "aguilar-lgpl3",
    rounds: Annotated[
        int | None,
        typer.Option("--rounds", help="with --out: render only the first R rounds"),
    ] = None,
    dealer: Annotated[
        int | None, typer.Option("--dealer", help="with --out: first dealer (default: random)")
    ] = None,
    cards: Annotated[
        str,
        typer.Option(
            "--cards",
            help="with --out: how laid cards lie: upright (to the camera), seat (facing the "
            "player who laid them) or any (any angle)",
        ),
    ] = "upright",
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    if out is None:
        for name, given in (
            ("--record", record is not None),
            ("--fouls", fouls != 0),
            ("--misdeal", misdeal),
            ("--rounds", rounds is not None),
            ("--dealer", dealer is not None),
            ("--cards", cards != "upright"),
        ):
            if given:
                raise UserError(f"{name} needs --out VIDEO (it describes a rendered match)")
        _selfplay(variant, players, games, seed, json_out)
        return
    _render(
        out, record, variant, players, seed, fouls, misdeal, fps, deck, rounds, dealer, cards,
        json_out,
    )  # fmt: skip


def _selfplay(variant: str, players: int, games: int, seed: int, json_out: bool) -> None:
    from engine.rules import RulesError
    from engine.selfplay import selfplay

    if games < 0:
        raise UserError(f"--games must be 0 or more, not {games}")
    if seed < 0:
        raise UserError(f"--seed must be 0 or more, not {seed}")
    try:
        result = selfplay(variant, players, games, seed)
    except (RulesError, ValueError) as exc:
        raise UserError(str(exc)) from None
    if json_out:
        print(json.dumps(result))
    else:
        print(
            f"{result['games']} games, {result['rounds']} rounds in {result['seconds']:.2f} s "
            f"({result['rounds_per_second']:.0f} rounds/s)"
        )


def _render(
    out: Path,
    record: Path | None,
    variant: str,
    players: int,
    seed: int,
    fouls: int,
    misdeal: bool,
    fps: int,
    deck: str,
    rounds: int | None,
    dealer: int | None,
    cards: str,
    json_out: bool,
) -> None:
    from controller.simulator import fouls_path, simulate, write_truth, write_video

    if out.suffix.lower() not in (".mp4", ".avi", ".mkv"):
        raise UserError(f"--out {out}: give a video file name ending in .mp4")
    record = record or out.with_suffix(".json")
    if record.resolve() == out.resolve():
        raise UserError("--record and --out must be different files")
    for path, what in ((out, "--out"), (record, "--record")):
        if not path.parent.exists():
            raise UserError(f"{what} {path}: folder {path.parent} does not exist")
    start = time.perf_counter()
    video = simulate(
        variant=variant, players=players, seed=seed, rounds=rounds, fouls=fouls,
        misdeal=misdeal, fps=fps, deck=deck, dealer=dealer, cards=cards,
    )  # fmt: skip
    frames = write_video(video, out)
    write_truth(video, record)
    seconds = time.perf_counter() - start
    game = video.game
    summary = {
        "video": str(out),
        "record": str(record),
        "fouls_file": str(fouls_path(record)),
        "frames": frames,
        "fps": fps,
        "video_seconds": round(video.duration, 2),
        "render_seconds": round(seconds, 2),
        "rounds": len(game.rounds),
        "finished": game.finished,
        "fouls": game.fouls,
    }
    if json_out:
        print(json.dumps(summary))
    else:
        print(
            f"wrote {out} ({frames} frames, {video.duration:.0f} s of video, "
            f"{len(game.rounds)} round{'s' if len(game.rounds) != 1 else ''}) in {seconds:.0f} s; "
            f"record {record}; {len(game.fouls)} injected foul(s) in {fouls_path(record)}"
        )
