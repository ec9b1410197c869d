"""The command line of the rules engine: `rules plans`, `rules judge`, `score`, `play`.

Contract from DESIGN.md; bad input exits 2 with one line naming what was wrong.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from controller.cli import run
from engine.selfplay import random_match


def cli(capsys, *args):
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_plans_json_contract(capsys):
    code, out, err = cli(
        capsys,
        "rules",
        "plans",
        "--variant",
        "classic",
        "--floor",
        "9C 5H 4S KD",
        "--play",
        "9D",
        "--json",
    )
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "card": "9D",
        "kind": "capture",
        "plans": [{"id": 1, "takes": ["4S", "5H", "9C"], "basra": False, "basra_points": 0}],
    }


def test_rules_plans_accepts_10_and_prints_a_table(capsys):
    code, out, _ = cli(
        capsys,
        "rules",
        "plans",
        "--variant",
        "eram",
        "--floor",
        "AS 2S 3S 4S 6S 9S",
        "--play",
        "10D",
    )
    assert code == 0
    assert "AS 2S 3S 4S" in out and "AS 4S 6S 9S" in out and "AS 3S 6S" in out


def test_rules_plans_trail_and_empty_floor(capsys):
    code, out, _ = cli(
        capsys, "rules", "plans", "--variant", "classic", "--floor", "", "--play", "JD", "--json"
    )
    assert code == 0 and json.loads(out) == {"card": "JD", "kind": "trail", "plans": []}


def test_rules_plans_lebanese_history_file(capsys, tmp_path):
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps([{"floor": "4S", "play": "6C"}]))
    code, out, _ = cli(
        capsys,
        "rules",
        "plans",
        "--variant",
        "lebanese",
        "--floor",
        "4S 6C",
        "--play",
        "TD",
        "--history",
        str(hist),
        "--json",
    )
    assert code == 0 and json.loads(out)["plans"][0]["basra_points"] == 10  # V3(b)


def test_rules_judge_json_contract(capsys):
    code, out, _ = cli(
        capsys,
        "rules",
        "judge",
        "--variant",
        "classic",
        "--floor",
        "2S 8H 3D 7C 5S",
        "--play",
        "TD",
        "--after",
        "3D 7C 5S",
        "--json",
    )
    assert code == 0
    assert json.loads(out) == {
        "verdict": "foul",
        "foul": "wrong_capture",
        "takes": ["2S", "8H"],
        "basra": False,
        "basra_points": 0,
        "legal": [["2S", "3D", "7C", "8H"]],
    }
    code, out, _ = cli(
        capsys,
        "rules",
        "judge",
        "--variant",
        "classic",
        "--floor",
        "4S 6C",
        "--play",
        "TD",
        "--after",
        "",
    )
    assert code == 0 and "capture" in out and "basra, 10 points" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["rules", "plans", "--variant", "classic", "--floor", "9C 5X", "--play", "9D"],
            "--floor: unknown card '5X'",
        ),
        (
            ["rules", "plans", "--variant", "classic", "--floor", "9C 9C", "--play", "9D"],
            "--floor: duplicate card 9C",
        ),
        (
            ["rules", "plans", "--variant", "classic", "--floor", "9C", "--play", "9C"],
            "--play: 9C is already on the floor",
        ),
        (
            ["rules", "plans", "--variant", "basra", "--floor", "9C", "--play", "9D"],
            "--variant: unknown variant 'basra'",
        ),
        (
            [
                "rules",
                "judge",
                "--variant",
                "classic",
                "--floor",
                "9C",
                "--play",
                "9D",
                "--after",
                "QS",
            ],
            "not there before: QS",
        ),
        (
            [
                "rules",
                "plans",
                "--variant",
                "classic",
                "--floor",
                "9C",
                "--play",
                "9D",
                "--history",
                "/nonexistent/h.json",
            ],
            "--history: cannot read",
        ),
        (
            ["rules", "judge", "--variant", "classic", "--floor", "9C", "--play", "9D"],
            "--after is required",
        ),
        (["rules", "plans", "--floor", "9C", "--play", "9D"], "--variant is required"),
        (
            ["play", "--variant", "eram", "--players", "4"],
            "--players: eram is played by 2 players, not 4",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, message):
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err
    assert "Traceback" not in err


def test_score_json_and_table(capsys, tmp_path):
    rec = random_match("classic", 2, seed=4, dealer=1)
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    code, out, _ = cli(capsys, "score", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["finished"] is True and data["winner"] in (0, 1)
    assert data["totals"] == [sum(r["score"][i] for r in data["rounds"]) for i in range(2)]
    code, out, _ = cli(capsys, "score", str(path))
    assert code == 0 and "total" in out and "winner: player" in out


def test_score_bad_record_names_the_play(capsys, tmp_path):
    rec = random_match("classic", 2, seed=4, dealer=1)
    rec["rounds"][0]["plays"][7] = "ZZ"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    code, _, err = cli(capsys, "score", str(path))
    assert code == 2 and "rounds[0].plays[7]: unknown card 'ZZ'" in err
    path.write_text("{not json")
    code, _, err = cli(capsys, "score", str(path))
    assert code == 2 and "not valid JSON" in err
    code, _, err = cli(capsys, "score", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_score_unreadable_files_are_bad_input_not_internal_errors(capsys, tmp_path):
    # DESIGN.md "Stable command-line contract": bad input exits 2 with one line naming it.
    binary = tmp_path / "photo.json"
    binary.write_bytes(b"\xff\xd8\xff\xe0 not text")
    code, out, err = cli(capsys, "score", str(binary), "--json")
    assert (code, out) == (2, "")
    assert err == f"error: {binary} is not valid JSON (not UTF-8 text)\n"
    # A record is a JSON object: a JSON string is not a path to read another file from.
    real = tmp_path / "real.json"
    real.write_text(json.dumps(random_match("classic", 2, seed=4, dealer=1)))
    pointer = tmp_path / "pointer.json"
    pointer.write_text(json.dumps(str(real)))
    code, out, err = cli(capsys, "score", str(pointer), "--json")
    assert (code, out) == (2, "")
    assert err == f"error: {pointer}: a game record is a JSON object\n"
    # A UTF-8 byte-order mark (Windows editors) is still a valid record.
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + real.read_bytes())
    code, out, _ = cli(capsys, "score", str(bom), "--json")
    assert code == 0 and json.loads(out)["finished"] is True


@pytest.mark.parametrize(
    "content, message",
    [
        (
            b'[{"floor": 3, "play": "4H"}]',
            '--history[0].floor: expected card codes ("9C 5H" or a list)',
        ),
        (b"\x7fELF\x02\x01\x01\xd0\xff", "is not valid JSON (not UTF-8 text)"),
    ],
)
def test_history_bad_contents_exit_2_with_one_line(capsys, tmp_path, content, message):
    # DESIGN.md `rules plans --history FILE`: a JSON list of {"floor": "…", "play": "…"}.
    path = tmp_path / "h.json"
    path.write_bytes(content)
    code, out, err = cli(
        capsys, "rules", "plans", "--variant", "lebanese", "--floor", "3C 4H", "--play", "7S",
        "--history", str(path), "--json",
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("error: --history") and message in err


def _read_until(proc, marker, limit=200_000):
    buf = b""
    while marker not in buf:
        ch = os.read(proc.stdout.fileno(), 4096)
        if not ch:
            break
        buf += ch
        assert len(buf) < limit
    return buf.decode()


def test_play_a_whole_round_through_stdin():
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "play",
            "--variant",
            "eram",
            "--seed",
            "7",
            "--rounds",
            "1",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=os.path.dirname(os.path.dirname(__file__)),
    )
    transcript = ""
    try:
        first = True
        while True:
            chunk = _read_until(proc, b"> ")
            transcript += chunk
            if "round 1 over" in chunk or not chunk.endswith("> "):
                break
            if re.search(r"plan id for \w\w \(1-\d+\)> $", chunk):
                proc.stdin.write(b"1\n")
            else:
                hand = re.findall(r"your hand: (.*)\n", chunk)[-1].split()
                if first:  # wrong input gets a message and the prompt again
                    proc.stdin.write(b"ZZ\n")
                    first = False
                    proc.stdin.flush()
                    transcript += _read_until(proc, b"> ")
                proc.stdin.write((hand[0] + "\n").encode())
            proc.stdin.flush()
        rest, _ = proc.communicate(timeout=30)
        transcript += rest.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "unknown card 'ZZ'" in transcript
    assert transcript.count("your play> ") >= 24  # 24 of the 48 plays are ours
    m = re.search(r"round 1 over: cards \[(\d+), (\d+)\]", transcript)
    assert m and int(m.group(1)) + int(m.group(2)) == 52
    assert "totals:" in transcript


def test_play_shows_eram_plan_ids_and_takes_the_chosen_plan():
    import io
    import random

    from controller.cli_rules import TerminalGame
    from engine.cards import FULL_DECK
    from engine.match import Match
    from engine.rules import ERAM

    game = TerminalGame(ERAM, 2, random.Random(0), 1)
    game.m = Match(ERAM, 2, dealer=1)  # seat 0 (you) plays first
    top = ["TD", "2H", "5C", "KH", "8D", "8C", "QS", "QH", "AS", "3S", "6S", "9S"]
    game.m.start_round(deck=top + [c for c in FULL_DECK if c not in top])
    game.out = io.StringIO()
    lines = iter(io.StringIO("XX\nTD\n7\n2\n").readline, "")
    assert game._human(lines) is True
    out = game.out.getvalue()
    # 10 on A 3 6 9 (ERAM R2.8): plans {A,9} and {A,3,6}; 3 cards first (R8.1)
    assert "TD has plans 1: AS 3S 6S; 2: AS 9S" in out
    assert "unknown card 'XX'" in out and "no plan '7' for TD" in out
    assert "you play TD and takes AS 9S" in out
    assert game.m.floor == ("3S", "6S")
