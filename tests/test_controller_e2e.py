"""End to end: `simulate --out` renders a match, `run --source FILE` referees it.

The real recogniser (models/ shipped with the repository) reads the rendered video; the
score must equal the true record's (RULES.md R4 via `engine.record`), the injected fouls must
be flagged (R7) and nothing else. Plus the commands' one-line errors for bad input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import run as cli
from engine.record import score_record

ROOT = Path(__file__).resolve().parents[1]
SEED_4P = "3"  # a four-player Egyptian deal


def call(capsys, *args: str) -> tuple[int, str, str]:
    code = cli(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def refereed(capsys, video: Path, variant: str, players: int, dealer: int) -> dict:
    """`run --source VIDEO --json`'s result: the video refereed by the CLI (exit 0)."""
    code, out, err = call(
        capsys, "run", "--source", str(video), "--variant", variant, "--players", str(players),
        "--dealer", str(dealer), "--json",
    )  # fmt: skip
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_rendered_match_is_refereed_from_the_video(tmp_path, capsys):
    # A whole Classic match (seed 1: two rounds to 101, R4/R V1), a misdealt first floor (R1.3),
    # one missed and one wrong capture injected (R7): refereed from the video alone, it must
    # score every round as the true record does, name the same winner and flag exactly the
    # injected fouls.
    video, record = tmp_path / "game.mp4", tmp_path / "game.json"
    code, out, err = call(
        capsys, "simulate", "--variant", "classic", "--players", "2", "--seed", "1",
        "--dealer", "1", "--fouls", "2", "--misdeal", "--fps", "15",
        "--out", str(video), "--record", str(record), "--json",
    )  # fmt: skip
    assert code == 0, err
    made = json.loads(out)
    truth = json.loads((tmp_path / "game.fouls.json").read_text())
    assert len(truth["fouls"]) == 2 and made["fouls"] == truth["fouls"]
    assert {f["round"] for f in truth["fouls"]} == {0, 1}  # one in each round
    expected = score_record(record)
    assert expected["finished"] is True and len(expected["rounds"]) == 2
    result = refereed(capsys, video, "classic", 2, 1)
    assert set(result) >= {"rounds", "totals", "winner", "finished", "fouls"}
    assert result["rounds"] == expected["rounds"]
    assert result["totals"] == expected["totals"]
    assert max(result["totals"]) >= 101
    assert (result["finished"], result["winner"]) == (True, expected["winner"])
    assert result["fouls"] == truth["fouls"]


@pytest.mark.slow
def test_a_four_player_round_filmed_at_30_fps_is_refereed_from_the_video(tmp_path, capsys):
    # `simulate`'s own frame rate (DESIGN: video may be 15 or 30 fps): one Egyptian round of
    # two teams (seats 0+2 against 1+3, R5), one foul injected (R7). Refereed from the video
    # alone, the teams' round score and the flagged foul must be the true record's.
    video, record = tmp_path / "team.mp4", tmp_path / "team.json"
    code, out, err = call(
        capsys, "simulate", "--variant", "egyptian", "--players", "4", "--seed", SEED_4P,
        "--dealer", "2", "--rounds", "1", "--fouls", "1", "--fps", "30",
        "--out", str(video), "--record", str(record), "--json",
    )  # fmt: skip
    assert code == 0, err
    truth = json.loads((tmp_path / "team.fouls.json").read_text())
    expected = score_record(record)
    assert len(truth["fouls"]) == 1 and len(expected["rounds"]) == 1
    assert len(expected["totals"]) == 2  # two teams
    result = refereed(capsys, video, "egyptian", 4, 2)
    assert result["rounds"] == expected["rounds"]
    assert result["totals"] == expected["totals"]
    assert result["fouls"] == truth["fouls"]


def test_run_rejects_bad_input_with_one_line(tmp_path, capsys):
    code, out, err = call(capsys, "run", "--source", str(tmp_path / "none.mp4"))
    assert code == 2 and out == ""
    assert err.startswith("error: --source") and "no such video file" in err
    assert err.count("\n") == 1
    code, _out, err = call(
        capsys, "run", "--source", "x.mp4", "--variant", "eram", "--players", "4"
    )
    assert code == 2 and "eram is played by 2 players, not 4" in err
    bad = tmp_path / "table.json"
    bad.write_text('{"floor": [[0.2, 0.2]]}')
    code, _out, err = call(capsys, "run", "--source", str(bad), "--table", str(bad))
    assert code == 2 and "floor needs at least 3 corners" in err
    code, _out, err = call(capsys, "run", "--source", "sim", "--resume")
    assert code == 2 and "--resume needs --db" in err


@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "--games", "1", "--seed", "-1", "--json"),
        ("simulate", "--out", "{tmp}/g.mp4", "--seed", "-1", "--json"),
        ("run", "--source", "sim", "--seed", "-1", "--json"),
    ],
)
def test_a_negative_seed_is_bad_input_naming_seed(tmp_path, capsys, args):
    # DESIGN.md "Stable command-line contract": exit 2, one line naming what was wrong.
    code, out, err = call(capsys, *(a.format(tmp=tmp_path) for a in args))
    assert (code, out) == (2, "")
    assert err == "error: --seed must be 0 or more, not -1\n"
    assert not (tmp_path / "g.mp4").exists()


def test_run_with_a_bad_serial_leaves_no_database_behind(tmp_path, capsys):
    # Bad input changes nothing: --serial is checked before the venue database is written.
    import cv2
    import numpy as np

    clip = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 15, (160, 120))
    for _ in range(3):
        writer.write(np.full((120, 160, 3), 60, np.uint8))
    writer.release()
    db = tmp_path / "venue.db"
    for serial, message in (
        ("bogus://x", "--serial bogus://x: unknown URL scheme bogus://"),
        ("text://nowhere", "--serial text://nowhere: text:// takes stdout, stderr or nothing"),
    ):
        code, out, err = call(
            capsys, "run", "--source", str(clip), "--db", str(db), "--serial", serial, "--json"
        )
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and err.startswith("error: " + message), err
        assert not db.exists()


@pytest.mark.parametrize("source", ["not-a-video.png", "7"])
def test_run_unreadable_source_is_one_line_on_stderr(tmp_path, source):
    # DESIGN.md "Stable command-line contract": one line on stderr, no OpenCV/FFmpeg chatter.
    (tmp_path / "not-a-video.png").write_text("hello")
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "run", "--source", source, "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert (proc.returncode, proc.stdout) == (2, "")
    why = "not a readable video" if source.endswith(".png") else "no camera with that index"
    assert proc.stderr == f"error: --source {source}: {why}\n"


def test_simulate_rejects_bad_input_and_selfplay_shape(tmp_path, capsys):
    code, _out, err = call(capsys, "simulate", "--out", str(tmp_path / "g.txt"))
    assert code == 2 and "ending in .mp4" in err
    code, _out, err = call(capsys, "simulate", "--out", str(tmp_path / "g.mp4"), "--fps", "24")
    assert code == 2 and "--fps must be 15 or 30" in err
    code, _out, err = call(capsys, "simulate", "--out", str(tmp_path / "no" / "g.mp4"))
    assert code == 2 and "does not exist" in err
    code, _out, err = call(capsys, "simulate", "--fouls", "1")
    assert code == 2 and "--fouls needs --out" in err
    code, _out, err = call(
        capsys, "simulate", "--out", str(tmp_path / "g.mp4"), "--deck", "no-such-deck"
    )
    assert code == 2 and "unknown deck 'no-such-deck'" in err
    code, _out, err = call(capsys, "simulate", "--out", str(tmp_path / "g.mp4"), "--cards", "flat")
    assert code == 2 and "--cards must be one of upright, seat, any, not 'flat'" in err
    code, _out, err = call(capsys, "simulate", "--cards", "seat")
    assert code == 2 and "--cards needs --out" in err
    assert not (tmp_path / "g.mp4").exists()
    code, out, err = call(
        capsys, "simulate", "--players", "2", "--games", "3", "--seed", "1", "--json"
    )
    assert code == 0, err
    shape = json.loads(out)
    assert set(shape) == {"games", "rounds", "seconds", "rounds_per_second"}
    assert shape["games"] == 3 and shape["rounds"] >= 3
