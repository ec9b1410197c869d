"""A doubtful read on the dashboard (real headless Chromium, real uvicorn on 127.0.0.1, real
SQLite store fed by the real Table): the referee sees it marked and confirms it (R7).

The camera read seat 1's card doubtfully as JH (JH 0.5, 5H 0.3); it took only the 5C, which
a J cannot do (R2.4) and a 5H does (R2.2): the turn is the 5H's capture, marked "doubtful
read · read as JH" until the referee confirms it.
"""

from __future__ import annotations

import pytest

from controller.api import create_app
from controller.cli_demo import _Server
from controller.table import Table
from controller.turns import Snapshot
from tests.browser import ARGS, CHROMIUM, free_port, venue

pytestmark = pytest.mark.browser


@pytest.fixture
def site(tmp_path):
    store, digest, token = venue(tmp_path)
    info = store.create_match("classic", 2, ["Rami", "Huda"], dealer=0, table_id="t1")
    table = Table("classic", 2, 0, match_id=info.id, subscribers=[store.append])
    table.feed_snapshot(Snapshot(1.0, frozenset({"9C", "5C", "4S", "KD"})))
    reading = (("JH", 0.5), ("5H", 0.3), ("6H", 0.1))
    table.feed_snapshot(
        Snapshot(
            2.0,
            frozenset({"9C", "5C", "4S", "KD", "JH"}),
            confidence=0.3,
            confidences=(("JH", 0.3),),
            readings=(("JH", reading),),
        )
    )
    table.feed_snapshot(Snapshot(3.0, frozenset({"9C", "4S", "KD"})))
    port = free_port()
    server = _Server(create_app(store, digest), "127.0.0.1", port)
    server.start()
    yield {
        "url": f"http://127.0.0.1:{port}/?match={info.id}#token={token}",
        "store": store,
        "match": info.id,
    }
    server.stop()
    store.close()


def test_a_doubtful_read_is_marked_until_the_referee_confirms_it_r7(site):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site["url"])
        item = page.locator("#history li").first
        expect(item).to_contain_text("5♥")
        expect(item.locator(".badge.doubt")).to_have_text("doubtful read · read as J♥")
        expect(page.locator("#verdict .badge.doubt")).to_be_visible()
        item.locator("button.confirm").click()
        expect(page.locator(".badge.doubt")).to_have_count(0)
        browser.close()
    assert errors == []
    decisions = [e for e in site["store"].events(site["match"]) if e.type == "referee"]
    assert [(e.data["action"], e.data["payload"]) for e in decisions] == [("confirm", {})]
