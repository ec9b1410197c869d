"""The dashboard in real headless Chromium against a real uvicorn on 127.0.0.1.

The referee starts a match from the dashboard; the real `Table` then referees a scripted
physical round (two injected fouls) while the page updates live over the WebSocket; the
referee corrects a misread card, accepts a foul, and switches to Arabic (right to left).
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from pathlib import Path

import pytest

from controller.api import create_app
from controller.cli_demo import _Server
from controller.live_tables import LiveTables
from controller.store import Store
from controller.turns import Snapshot
from tests.browser import ARGS, CHROMIUM, free_port, venue

pytestmark = pytest.mark.browser

# Screenshots for a person to look at: BASRA_SCREENSHOTS=DIR keeps them (else a temp folder).
SHOTS_ENV = "BASRA_SCREENSHOTS"

_spec = importlib.util.spec_from_file_location(
    "table_script", Path(__file__).parent / "data" / "store" / "table_script.py"
)
table_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(table_script)

# A seeded Classic game: one whole round, then 14 plays of the second, where the bots commit
# a missed capture and a wrong capture (R2.6, R2.2 → R7 fouls). The engine's own Match,
# which played the game, gives the true score of round 1.
FOULS = {(1, 5): "missed_capture", (1, 9): "wrong_capture"}
STOP = (1, 13)


@pytest.fixture
def site(tmp_path):
    store, digest, token = venue(tmp_path)
    live = LiveTables(store)
    snaps, truth = table_script.play_script(
        "classic", 2, dealer=1, seed=11, rounds=2, fouls=FOULS, stop_after=STOP
    )
    fed = threading.Event()
    go = threading.Event()
    # One real rendered camera frame (the simulator's scene renderer) with the cards on it
    # outlined where they lie: what LiveTables hands the dashboard for every recognised frame.
    from controller.simulator import simulate

    video = simulate("classic", 2, seed=3, rounds=1, fps=15)
    frame, labels = next((f, lab) for _, f, lab in video.frames(with_labels=True) if len(lab) >= 4)
    h, w = frame.shape[:2]
    detections = [
        {"code": lab.code, "confidence": 0.97, "quad": lab.quad, "zone": None} for lab in labels
    ]
    floor_px = [[x * w, y * h] for x, y in video.geometry.floor]

    def play(info):  # the dashboard created a match: referee the scripted round on it
        live.open(info)
        live.view.put(info.table_id, frame, cards=detections, floor=floor_px, force=True)

        def feed():
            go.wait(30)
            for t, floor in snaps:
                live.feed_snapshot(info.id, Snapshot(t=t, floor=frozenset(floor)))
                time.sleep(0.015)
            fed.set()

        threading.Thread(target=feed, daemon=True).start()

    app = create_app(
        store, digest, live=live.view, referee_sink=live.referee, on_match_created=play
    )
    port = free_port()
    server = _Server(app, "127.0.0.1", port)
    server.start()
    yield {
        "url": f"http://127.0.0.1:{port}/",
        "token": token,
        "store": store,
        "live": live,
        "truth": truth,
        "fed": fed,
        "go": go,
        "cards": [d["code"] for d in detections],
    }
    server.stop()
    store.close()


def test_referee_follows_and_decides_a_live_match(site, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    SHOTS = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    store, truth = site["store"], site["truth"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site["url"] + "#token=" + site["token"])
        expect(page.locator("html")).to_have_attribute("dir", "ltr")
        expect(page).not_to_have_url(site["token"])  # the token leaves the address bar

        # Start a match from the form.
        page.locator("#new-match summary").click()
        page.fill("#f-names", "Rami, Huda")
        page.fill("#f-dealer", "1")
        page.click("#f-start")
        expect(page.locator("#sides [data-side]")).to_have_count(2)
        expect(page.locator("#sides [data-side='0'] .names")).to_have_text("Rami")
        expect(page.locator("#conn")).to_have_class("conn on")
        [m] = store.matches()
        assert (m.seat_names, m.dealer) == (("Rami", "Huda"), 1)
        expect(page.locator("#sides [data-total='0']")).to_have_text("0")

        # The camera view: the frame, the floor region and each card outlined and labelled.
        expect(page.locator("#frame")).to_be_visible()
        expect(page.locator("#overlay polygon.floor-region")).to_have_count(1)
        outlined = page.locator("#overlay g.det")
        assert len(site["cards"]) >= 4
        expect(outlined).to_have_count(len(site["cards"]))
        assert sorted(outlined.evaluate_all("gs => gs.map(g => g.dataset.card)")) == sorted(
            site["cards"]
        )
        assert page.evaluate("document.getElementById('frame').naturalWidth") == 960

        # The round is played at the table; the page follows it live.
        site["go"].set()
        expect(page.locator("#history li")).not_to_have_count(0, timeout=10_000)
        assert site["fed"].wait(30)
        totals = [str(x) for x in truth.totals]
        expect(page.locator("#sides [data-total='0']")).to_have_text(totals[0], timeout=10_000)
        expect(page.locator("#sides [data-total='1']")).to_have_text(totals[1])
        assert truth.totals != [0, 0]
        expect(page.locator("#history li")).to_have_count(48 + 14)  # R8.7: 48 plays a round
        expect(page.locator("#round")).to_have_text("2")
        # round 2 is in progress: the referee may end it as the camera saw it (R7)
        expect(page.locator("#end-round")).to_be_enabled()
        expect(page.locator("#end-round")).to_have_text("End round as seen")
        pending = page.locator("#pending li")
        expect(pending).to_have_count(2)
        missed = page.locator("#pending li[data-kind='missed_capture']")
        wrong = page.locator("#pending li[data-kind='wrong_capture']")
        expect(missed).to_have_count(1)
        expect(wrong).to_have_count(1)
        page.screenshot(path=str(SHOTS / "dashboard_en.png"), full_page=True)

        # Correct the card of the missed capture: with a card that captures nothing on that
        # floor, the turn is a legal trail (R2.7) and the foul goes away.
        missed_id = int(missed.get_attribute("data-event"))
        wrong_id = int(wrong.get_attribute("data-event"))
        ev = next(e for e in store.events(m.id) if e.id == missed_id)
        fix = _card_that_trails(ev.data["floor_before"], store, m.id)
        missed.locator("input.card-input").fill(fix)
        missed.locator("button.correct").click()
        expect(pending).to_have_count(1)
        expect(page.locator("#action-msg")).to_contain_text("corrected")
        fixed = page.locator(f"#history li[data-event='{missed_id}']")
        expect(fixed.locator(f"[data-card='{fix}']")).to_have_count(1)
        expect(fixed).to_contain_text("trail")
        # A typo is refused with the server's reason and changes nothing.
        n_events = store.last_event_id(m.id)
        wrong.locator("input.card-input").fill("1X")
        wrong.locator("button.correct").click()
        expect(page.locator("#action-msg")).to_contain_text("card:")
        assert store.last_event_id(m.id) == n_events

        # Accept the wrong capture.
        wrong.locator("button.accept").click()
        expect(pending).to_have_count(0)
        expect(page.locator("#no-pending")).to_be_visible()
        expect(page.locator(f"#history li[data-event='{wrong_id}']")).to_have_attribute(
            "data-status", "accepted"
        )
        decisions = [e.data for e in store.events(m.id) if e.type == "referee"]
        assert [(d["action"], d["target"]) for d in decisions] == [
            ("correct", missed_id),
            ("accept_foul", wrong_id),
        ]

        # Switch to Arabic: right-to-left, translated, and back.
        page.click("#lang")
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        expect(page.locator("html")).to_have_attribute("lang", "ar")
        expect(page.locator("h1")).to_have_text("طاولة البصرة")
        expect(page.locator("#undo")).to_have_text("تراجع عن آخر دور")
        side0 = page.locator("#sides [data-side='0']")
        side1 = page.locator("#sides [data-side='1']")
        expect(side0).to_be_visible()
        expect(side1).to_be_visible()
        box = box1 = None
        for _ in range(50):  # the sides are redrawn on a switch: measure once they stand
            box, box1 = side0.bounding_box(), side1.bounding_box()
            if box and box1:
                break
            time.sleep(0.1)
        assert box["x"] > box1["x"]  # the first side sits on the right in RTL
        page.screenshot(path=str(SHOTS / "dashboard_ar.png"), full_page=True)

        # A phone: one column, nothing wider than the screen.
        page.set_viewport_size({"width": 390, "height": 844})
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        page.screenshot(path=str(SHOTS / "dashboard_ar_phone.png"), full_page=True)
        page.click("#lang")
        expect(page.locator("html")).to_have_attribute("dir", "ltr")
        browser.close()
    assert errors == []


def _card_that_trails(floor_before: list[str], store: Store, match_id: str) -> str:
    """A card not seen in the current round that captures nothing on `floor_before`."""
    from engine.captures import plans
    from engine.cards import FULL_DECK
    from engine.rules import get_ruleset

    seen: set[str] = set()
    for e in store.events(match_id):
        if e.type == "round_started":
            seen = set()
        seen |= set(e.data.get("floor_before") or ()) | set(e.data.get("floor_after") or ())
        seen |= set(e.data.get("floor") or ())
        if e.data.get("card"):
            seen.add(e.data["card"])
    rules = get_ruleset("classic")
    for card in FULL_DECK:
        if card not in seen and not plans(rules, tuple(floor_before), card).plans:
            return card
    raise AssertionError("no unseen card trails here")
