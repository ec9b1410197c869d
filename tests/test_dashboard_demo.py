"""`basra-table demo` end to end in a subprocess, watched in real headless Chromium.

A short rendered match (one round, one injected foul) runs through the recogniser, the table
controller, the engine, the store and the scoreboard; the page shows the camera frame with the
recognised cards outlined, and the scores change live to the final score the demo prints, which
is the true game record's score (engine.record).
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time

import httpx
import pytest

from controller.store import Store
from tests.browser import ARGS, CHROMIUM, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEED = 3


def true_score() -> dict:
    """The score of the rendered match's true game record, by the engine alone."""
    from controller.simulator import play_match
    from engine.record import load_record, score_record

    game = play_match("classic", 2, SEED, rounds=1, fouls=1)
    return score_record(load_record(game.record))


def read_until(proc, pattern: str, lines: list[str], timeout: float) -> re.Match:
    """Read the demo's log (stderr with --json) until a line matches."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            raise AssertionError("demo ended early:\n" + "".join(lines))
        lines.append(line)
        m = re.search(pattern, line)
        if m:
            return m
    raise AssertionError(f"no {pattern!r} within {timeout} s:\n" + "".join(lines))


def test_demo_referees_a_rendered_match_live(tmp_path):
    if not shutil.which(CHROMIUM):
        pytest.skip("Debian chromium is not installed")
    from playwright.sync_api import expect, sync_playwright

    port, db = free_port(), tmp_path / "venue.db"
    cmd = [sys.executable, "-m", "controller.cli", "demo", "--port", str(port), "--db", str(db)]
    cmd += ["--seed", str(SEED), "--rounds", "1", "--fouls", "1", "--speed", "0", "--json"]
    # Ctrl-C must reach it even when the suite itself runs in the background (a non-interactive
    # shell starts background jobs with SIGINT ignored, and children inherit that)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines: list[str] = []
    try:
        url = read_until(proc, r"dashboard: (http://127\.0\.0\.1:\d+/#token=\S+)", lines, 60)[1]
        assert any(x.startswith("scoreboard: ") for x in lines)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            # The camera view: the newest frame with the floor region and outlined cards.
            expect(page.locator("#frame")).to_be_visible(timeout=60_000)
            expect(page.locator("#overlay polygon.floor-region")).to_have_count(1)
            expect(page.locator("#overlay g.det").first).to_be_attached(timeout=60_000)
            # a frame is shown (the page swaps in each newer frame: wait for one to load)
            page.wait_for_function(
                "document.getElementById('frame').naturalWidth > 0", timeout=30_000
            )
            for _ in range(100):  # between two hand movements the cards are outlined
                view = httpx.get(f"http://127.0.0.1:{port}/api/tables/table-1/view").json()
                if view["cards"]:
                    break
                time.sleep(0.1)
            assert view["cards"] and all(len(c["quad"]) == 4 for c in view["cards"])
            assert {c["zone"] for c in view["cards"]} <= {"floor", "seat0", "seat1"}
            # When the video ends the demo prints the score; the page shows the same totals.
            final = read_until(proc, r"final score: (.*)", lines, 600)[1]
            out = json.loads(proc.stdout.readline())  # --json: the `run --json` shape
            for side, total in enumerate(out["totals"]):
                expect(page.locator(f"#sides [data-total='{side}']")).to_have_text(str(total))
            browser.close()
        # The pipeline refereed the rendered match exactly: the true record's score, and the
        # injected foul flagged (and nothing else).
        assert final.startswith(f"Rami {out['totals'][0]} – Huda {out['totals'][1]}")
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C: the demo stops the emulator and the server
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode == 0, "".join(lines) + proc.stderr.read()
    with Store(db) as store:
        [m] = store.matches()
        rec = store.export_record(m.id)
    from engine.record import load_record, score_record

    # The stored log exports to a record that scores what the demo printed.
    assert score_record(load_record(rec))["rounds"] == out["rounds"]
    # The pipeline refereed the rendered match exactly: the true record's score, and the
    # injected foul flagged (and nothing else).
    truth = true_score()
    fouls = [(f["round"], f["play"], f["kind"]) for f in out["fouls"]]
    injected = [(f["round"], f["play"], f["kind"]) for f in _injected()]
    exact = (out["totals"], out["rounds"], fouls) == (truth["totals"], truth["rounds"], injected)
    assert exact, f"demo scored {out['totals']} with fouls {fouls}, true {truth['totals']}"
    assert fouls == injected


def _injected() -> list[dict]:
    from controller.simulator import play_match

    return play_match("classic", 2, SEED, rounds=1, fouls=1).fouls


def test_demo_bad_input_is_one_line(tmp_path):
    for args, msg in [
        (["--players", "5"], "players"),
        (["--fps", "24"], "--fps must be 15 or 30, not 24"),
        (["--variant", "poker"], "poker"),
        (["--idle", "--no-serve"], "--idle waits for matches"),
        (["--deck", "tarot"], "--deck 'tarot': no such card design"),
    ]:
        r = subprocess.run(
            [sys.executable, "-m", "controller.cli", "demo", "--db", str(tmp_path / "v.db"), *args],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("error: ") and msg in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
