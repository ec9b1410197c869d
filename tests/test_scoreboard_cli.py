"""`basra-table scoreboard show|flash|ping|sim` against the emulated and the text scoreboard.

Bad input must give one line on stderr and exit 2, and never reach the board.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from controller.cli import run
from firmware_bridge.bridge import DisplayState, ScoreboardBridge
from firmware_bridge.sim import sim_available

_why = sim_available()


def simavr(test):
    """Mark a test as needing the emulator; skip it, saying why, where it cannot run."""
    test = pytest.mark.skipif(_why is not None, reason=f"scoreboard emulator unavailable: {_why}")(
        test
    )
    return pytest.mark.simavr(test)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = run(["scoreboard", *args])
    out, err = capsys.readouterr()
    return code, out, err


@simavr
def test_show_on_the_emulator_prints_what_the_digits_read(capsys):
    code, out, err = cli(capsys, "show", "--port", "sim://", "56", "7", "--turn", "0", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["acknowledged"] is True
    assert result["display"] == "  56.   7"


@simavr
def test_ping_reports_the_firmware_and_round_trips(capsys):
    code, out, err = cli(capsys, "ping", "--port", "sim://", "--count", "3", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["device"] == "basra-scoreboard 1.0.0" and result["protocol"] == 1
    assert len(result["rtt_ms"]) == 3
    assert 0 < result["median_ms"] < 50


def test_flash_on_the_text_board(capsys):
    code, out, err = cli(capsys, "flash", "--port", "text://", "--side", "1", "--word", "FOUL")
    assert code == 0, err
    assert out.strip() == "scoreboard on text://: flashing 'FOUL' for 3 s"


def test_show_on_the_text_board(capsys):
    code, out, err = cli(capsys, "show", "--port", "text://", "101", "98", "--turn", "1")
    assert code == 0, err
    assert out.strip() == "scoreboard on text://: [ 101  98.]"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "--port", "text://", "10000", "7"), "left total 10000 does not fit 4 digits"),
        (("show", "--port", "text://", "--", "5", "-1"), "right total -1 does not fit 4 digits"),
        (("show", "--port", "text://", "5", "7", "--turn", "2"), "--turn must be 0, 1 or none"),
        (("show", "--port", "text://", "5", "7", "--brightness", "16"), "brightness must be 0..15"),
        pytest.param(("show", "--port", "text://", "five", "7"), "valid integer"),
        (("flash", "--port", "text://", "--word", "KING"), "cannot show 'K'"),
        (("flash", "--port", "text://", "--side", "left"), "--side must be 0, 1 or none"),
        (("flash", "--port", "text://", "--seconds", "99"), "0.1..25.5 s"),
        (("ping", "--port", "text://", "--count", "0"), "--count must be 1..10000"),
        (("ping", "--port", "/dev/ttyNOPE0", "--timeout", "0.3"), "no device at /dev/ttyNOPE0"),
        (("ping", "--port", "text://nowhere"), "text:// takes stdout, stderr or nothing"),
        (
            ("show", "--port", "bogus://x", "5", "7"),
            "--port bogus://x: unknown URL scheme bogus://",
        ),
        pytest.param(("show", "5", "7"), "--port"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err


@simavr
def test_sim_prints_its_pty_and_the_digits_live():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "scoreboard", "sim", "--json", "--seconds", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # Ctrl-C must reach it even when the suite runs as a background job (SIGINT ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "pty" and first["path"].startswith("/dev/pts/")
        with ScoreboardBridge(first["path"]) as b:
            b.show(DisplayState(12, 3, turn=1))
            assert b.wait_synced(5)
        seen = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            ev = json.loads(proc.stdout.readline())
            seen.append(ev["text"])
            if ev["text"] == "  12   3.":
                break
        assert seen[0] == "8.8.8.8.8.8.8.8." and seen[-1] == "  12   3.", seen
    finally:
        proc.send_signal(2)  # Ctrl-C ends it cleanly
        code = proc.wait(timeout=15)
    assert code == 0, proc.stderr.read()
