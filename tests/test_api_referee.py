"""The referee API through FastAPI's TestClient, on a real SQLite store fed by the real Table.

The table script is worked out by hand from RULES.md; each step names the rule it exercises.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from controller import api_token
from controller.api import create_app
from controller.store import Store
from controller.table import Table
from controller.turns import Snapshot

# Settled floors as the camera sees them (2 players, dealer 0, so seat 1 plays first: R1.5).
SCRIPT = [
    ["9C", "5H", "4S", "KD"],  # the initial floor (R1.2); no J or 7D (R1.3)
    ["9C", "5H", "4S", "KD", "9D"],  # seat 1 lays 9D …
    ["KD"],  # … and takes 9C and 5H+4S; KD stays, so no basra (R2.2, R3.1)
    ["KD", "KS"],  # seat 0 lays KS …
    [],  # … takes KD and clears the floor: basra worth 10 (R2.3, R3.1)
    ["8H"],  # seat 1 trails 8H on the empty floor (R2.7)
    ["8H", "8S"],  # seat 0 lays 8S, which must take 8H (R2.6) but stays …
    ["8H", "8S", "3C"],  # … seat 1 lays 3C: 8S was a missed capture (R7); 3C trails
    ["8H", "8S", "3C", "3S"],  # seat 0 lays 3S …
    ["8S"],  # … and takes 3C and 8H: only 3C is legal (R2.2): wrong capture (R7)
]


def ids(store, mid) -> dict[str, int]:
    """Event ids in this match's log: the two fouls, the 3C trail, the 9D capture, the last."""
    out = {"last": store.last_event_id(mid)}
    for e in store.events(mid):
        if e.type in ("turn", "foul"):
            out[e.data["card"]] = e.id
    return out


@pytest.fixture
def venue(tmp_path):
    store = Store(tmp_path / "venue.db")
    digest, token = api_token.load_or_create(tmp_path / "venue.db")
    info = store.create_match("classic", 2, ["Rami", "Huda"], dealer=0, table_id="t1")
    table = Table("classic", 2, 0, match_id=info.id, subscribers=[store.append])
    for i, floor in enumerate(SCRIPT):
        table.feed_snapshot(Snapshot(t=float(i + 1), floor=frozenset(floor)))
    client = TestClient(create_app(store, digest))
    auth = {"Authorization": f"Bearer {token}"}
    yield client, store, info.id, auth
    client.close()
    store.close()


@pytest.fixture
def fouls(venue):
    """(missed, wrong): the event ids of the 8S missed capture and the 3S wrong capture."""
    _, store, mid, _ = venue
    e = ids(store, mid)
    return e["8S"], e["3S"]


def summary(client, mid):
    r = client.get(f"/api/matches/{mid}/state")
    assert r.status_code == 200, r.text
    return r.json()["summary"]


def test_state_follows_the_table(venue, fouls):
    missed, wrong = fouls
    client, _, mid, _ = venue
    s = summary(client, mid)
    assert s["round"] == 1 and s["to_play"] == 1
    assert s["floor"] == ["8S"]
    assert s["sides"] == [["Rami"], ["Huda"]]
    assert s["this_round"]["basra_points"] == [10, 0]  # the KS basra, shown at once (R3.4)
    assert s["totals"] == [0, 0]  # no round scored yet (R4)
    assert [(p["id"], p["kind"], p["card"]) for p in s["pending"]] == [
        (missed, "missed_capture", "8S"),
        (wrong, "wrong_capture", "3S"),
    ]
    last = s["last_verdict"]
    assert (last["card"], last["verdict"], last["foul"]) == ("3S", "foul", "wrong_capture")
    assert last["legal"] == [["3C"]]
    assert [h["card"] for h in s["history"]] == ["9D", "KS", "8H", "8S", "3C", "3S"]
    kd = s["history"][1]
    assert (kd["verdict"], kd["takes"], kd["basra"], kd["basra_points"]) == (
        "capture",
        ["KD"],
        True,
        10,
    )


def test_every_write_needs_the_token(venue, fouls):
    missed, wrong = fouls
    client, store, mid, _ = venue
    before = store.last_event_id(mid)
    writes = [
        ("post", "/api/matches", {"variant": "classic"}),
        ("post", f"/api/matches/{mid}/fouls/{missed}/accept", None),
        ("post", f"/api/matches/{mid}/fouls/{missed}/reject", None),
        ("post", f"/api/matches/{mid}/confirm", {"target": missed}),
        ("post", f"/api/matches/{mid}/correct", {"target": missed, "card": "9S"}),
        ("post", f"/api/matches/{mid}/undo", None),
        ("put", "/api/tables/t1/calibration", {"floor": [[0.1, 0.1], [0.9, 0.1], [0.5, 0.9]]}),
    ]
    for headers in ({}, {"Authorization": "Bearer not-the-token"}):
        for method, url, body in writes:
            r = client.request(method, url, json=body, headers=headers)
            assert r.status_code == 401, (url, r.text)
            assert "token" in r.json()["error"]
    assert store.last_event_id(mid) == before
    assert len(store.matches()) == 1
    assert store.table("t1").calibration is None


def test_accept_and_reject_fouls(venue, fouls):
    missed, wrong = fouls
    client, store, mid, auth = venue
    last = store.last_event_id(mid)
    r = client.post(f"/api/matches/{mid}/fouls/{missed}/accept", headers=auth)
    assert r.status_code == 201, r.text
    ev = r.json()["event"]
    assert ev["type"] == "referee" and ev["id"] == last + 1
    assert ev["data"] == {"action": "accept_foul", "target": missed, "payload": {}}
    assert [p["id"] for p in r.json()["state"]["summary"]["pending"]] == [wrong]

    again = client.post(f"/api/matches/{mid}/fouls/{missed}/accept", headers=auth)
    assert again.status_code == 409
    assert again.json() == {"error": f"foul {missed} was already decided (accepted)"}

    nine = ids(store, mid)["9D"]
    legal = client.post(f"/api/matches/{mid}/fouls/{nine}/accept", headers=auth)
    assert legal.status_code == 400
    assert legal.json()["error"] == f"turn {nine} is a legal capture, not a foul"

    missing = client.post(f"/api/matches/{mid}/fouls/99/reject", headers=auth)
    assert missing.status_code == 404
    assert "no turn or prompt with event id 99" in missing.json()["error"]

    r = client.post(f"/api/matches/{mid}/fouls/{wrong}/reject", headers=auth)
    assert r.status_code == 201
    s = r.json()["state"]["summary"]
    assert s["pending"] == []
    status = {h["id"]: h["status"] for h in s["history"]}
    assert (status[missed], status[wrong]) == ("accepted", "rejected")
    # Refused requests wrote nothing: exactly the two decisions were appended.
    assert [e.type for e in store.events(mid, after=last)] == ["referee", "referee"]


def test_correcting_a_misread_card_rejudges_the_turn(venue, fouls):
    missed, wrong = fouls
    client, store, mid, auth = venue
    bad = client.post(
        f"/api/matches/{mid}/correct", json={"target": missed, "card": "ZZ"}, headers=auth
    )
    assert bad.status_code == 400 and bad.json()["error"].startswith("card: ")
    same = client.post(
        f"/api/matches/{mid}/correct", json={"target": missed, "card": "8S"}, headers=auth
    )
    assert same.status_code == 400 and "use confirm" in same.json()["error"]
    assert store.last_event_id(mid) == ids(store, mid)["last"]

    # The camera read 8S, the card was the 9S: a 9 cannot take the 8H, so it trailed (R2.2,
    # R2.7) and there was no foul; the accepted floor now holds 9S where 8S was.
    r = client.post(
        f"/api/matches/{mid}/correct", json={"target": missed, "card": "9s"}, headers=auth
    )
    assert r.status_code == 201, r.text
    assert r.json()["event"]["data"]["payload"] == {"card": "9S"}
    s = r.json()["state"]["summary"]
    turn = next(h for h in s["history"] if h["id"] == missed)
    assert (turn["card"], turn["verdict"], turn["foul"]) == ("9S", "trail", None)
    assert [p["id"] for p in s["pending"]] == [wrong]
    assert s["floor"] == ["9S"]


def test_undo_the_last_turn(venue, fouls):
    missed, wrong = fouls
    client, store, mid, auth = venue
    trail_3c = ids(store, mid)["3C"]
    r = client.post(f"/api/matches/{mid}/undo", headers=auth)
    assert r.status_code == 201, r.text
    assert r.json()["event"]["data"]["target"] == wrong
    s = r.json()["state"]["summary"]
    assert s["to_play"] == 0  # seat 0 plays the 3S turn again
    assert s["floor"] == ["3C", "8S", "8H"]  # card order: rank, then suit S H D C
    assert [p["id"] for p in s["pending"]] == [missed]
    again = client.post(f"/api/matches/{mid}/undo", headers=auth)
    assert again.json()["event"]["data"]["target"] == trail_3c


def test_nothing_to_undo_in_a_new_match(venue):
    client, _, _, auth = venue
    mid = client.post("/api/matches", json={}, headers=auth).json()["id"]
    r = client.post(f"/api/matches/{mid}/undo", headers=auth)
    assert r.status_code == 409
    assert r.json()["error"] == "nothing to undo: no turn played yet in the current round"


def test_create_and_list_matches(venue):
    client, store, mid, auth = venue
    body = {
        "variant": "egyptian",
        "players": 4,
        "seat_names": ["رامي", "Huda", "Sami", "Lina"],
        "dealer": 3,
        "table_id": "t2",
    }
    r = client.post("/api/matches", json=body, headers=auth)
    assert r.status_code == 201, r.text
    m = r.json()
    assert (m["variant"], m["players"], m["dealer"], m["status"]) == ("egyptian", 4, 3, "live")
    assert m["seat_names"][0] == "رامي"
    listed = client.get("/api/matches").json()
    assert {x["id"] for x in listed} == {mid, m["id"]}
    s = summary(client, m["id"])
    assert s["sides"] == [["رامي", "Sami"], ["Huda", "Lina"]]  # R1.1: partners sit opposite


@pytest.mark.parametrize(
    "body, status, message",
    [
        ({"variant": "poker"}, 422, "variant: Input should be"),
        ({"players": 5}, 422, "players: Input should be"),
        ({"players": 4, "variant": "eram", "seat_names": list("abcd")}, 400, "eram is played by 2"),
        ({"seat_names": ["only one"]}, 400, "seat_names has 1 names for 2 players"),
        ({"dealer": 3}, 400, "dealer must be a seat from 0 to 1, not 3"),
        ({"colour": "red"}, 422, "colour: Extra inputs are not permitted"),
    ],
)
def test_bad_new_match_is_refused(venue, body, status, message):
    client, store, _, auth = venue
    r = client.post("/api/matches", json=body, headers=auth)
    assert r.status_code == status, r.text
    assert message in r.json()["error"]
    assert len(store.matches()) == 1


def test_events_after_and_exports(venue):
    client, store, mid, _ = venue
    last = store.last_event_id(mid)
    r = client.get(f"/api/matches/{mid}/events", params={"after": last - 2})
    assert [e["id"] for e in r.json()] == [last - 1, last]
    assert client.get(f"/api/matches/{mid}/events", params={"after": -1}).status_code == 422
    missing = client.get("/api/matches/nope/events")
    assert missing.status_code == 404 and missing.json() == {"error": "no match 'nope'"}
    lines = client.get(f"/api/matches/{mid}/events.jsonl").text.splitlines()
    assert len(lines) == last


def test_calibration_round_trip_and_validation(venue):
    client, store, _, auth = venue
    good = {
        "floor": [[0.25, 0.2], [0.75, 0.2], [0.75, 0.8], [0.25, 0.8]],
        "seats": [[0.5, 1], [0.5, 0]],
    }
    r = client.put("/api/tables/t1/calibration", json=good, headers=auth)
    assert r.status_code == 200, r.text
    assert client.get("/api/tables/t1/calibration").json()["calibration"] == good
    bad = {"floor": [[0.2, 0.2], [1.5, 0.2], [0.5, 0.8]]}
    r = client.put("/api/tables/t1/calibration", json=bad, headers=auth)
    assert r.status_code == 422
    assert "outside the frame" in r.json()["error"]
    assert store.table("t1").calibration == good
    assert client.get("/api/tables/nope/calibration").status_code == 404


def test_health_and_openapi(venue):
    client, _, _, _ = venue
    h = client.get("/api/health").json()
    assert h["status"] == "ok" and h["matches"] == 1
    spec = client.get("/openapi.json").json()
    assert "/api/matches/{match_id}/fouls/{target}/accept" in spec["paths"]
    assert "HTTPBearer" in spec["components"]["securitySchemes"]
    assert client.get("/docs").status_code == 200


def test_websocket_streams_new_events(venue, fouls):
    missed, wrong = fouls
    client, store, mid, auth = venue
    with client.websocket_connect(f"/api/matches/{mid}/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "state"
        assert [e["id"] for e in first["events"]] == list(range(1, store.last_event_id(mid) + 1))
        client.post(f"/api/matches/{mid}/fouls/{missed}/accept", headers=auth)
        msg = ws.receive_json()
        assert msg["type"] == "events"
        assert [e["type"] for e in msg["events"]] == ["referee"]
        assert [p["id"] for p in msg["state"]["summary"]["pending"]] == [wrong]
    with client.websocket_connect("/api/matches/nope/ws") as ws:
        assert ws.receive_json() == {"type": "error", "error": "no match 'nope'"}


def test_record_export_scores_like_the_engine(tmp_path):
    """A whole physical round with a foul, exported as a game record: `engine.record` replays
    it to the same score the API shows (DESIGN.md game record, physical `floor` rounds)."""
    import importlib.util
    from pathlib import Path

    from engine.record import load_record, score_record

    spec = importlib.util.spec_from_file_location(
        "table_script", Path(__file__).parent / "data" / "store" / "table_script.py"
    )
    ts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ts)
    snaps, truth = ts.play_script("classic", 2, dealer=1, seed=5, fouls={(0, 6): "wrong_capture"})
    store = Store(tmp_path / "v.db")
    digest, token = api_token.load_or_create(tmp_path / "v.db")
    info = store.create_match("classic", 2, dealer=1)
    table = Table("classic", 2, 1, match_id=info.id, subscribers=[store.append])
    for t, floor in snaps:
        table.feed_snapshot(Snapshot(t=t, floor=frozenset(floor)))
    with TestClient(create_app(store, digest)) as client:
        rec = client.get(f"/api/matches/{info.id}/record").json()
        totals = summary(client, info.id)["totals"]
    assert len(rec["rounds"]) == 1 and len(rec["rounds"][0]["plays"]) == 48  # R8.7
    assert "floor" in rec["rounds"][0] and "deck" not in rec["rounds"][0]
    assert sum(1 for p in rec["rounds"][0]["plays"] if isinstance(p, dict) and p.get("force")) == 1
    assert score_record(load_record(rec))["totals"] == totals == truth.totals
    store.close()


def test_a_decision_made_by_another_process_is_followed_by_the_live_table(tmp_path):
    """`serve` and the controller are separate processes on one file: the controller's next
    step folds in the referee's decision instead of colliding with its event id."""
    from controller.live_tables import LiveTables

    db = tmp_path / "venue.db"
    controller_store, api_store = Store(db), Store(db)  # two connections, as two processes
    digest, token = api_token.load_or_create(db)
    live = LiveTables(controller_store)
    info = controller_store.create_match("classic", 2, dealer=0)
    live.open(info)
    for i, floor in enumerate(SCRIPT[:8]):  # up to 3C laid: the 8S missed capture is flagged
        live.feed_snapshot(info.id, Snapshot(t=float(i + 1), floor=frozenset(floor)))
    missed = ids(api_store, info.id)["8S"]
    with TestClient(create_app(api_store, digest)) as client:
        auth = {"Authorization": f"Bearer {token}"}
        r = client.post(f"/api/matches/{info.id}/fouls/{missed}/accept", headers=auth)
        assert r.status_code == 201
        decision = r.json()["event"]["id"]
        for i, floor in enumerate(SCRIPT[8:], start=9):
            live.feed_snapshot(info.id, Snapshot(t=float(i), floor=frozenset(floor)))
        events = api_store.events(info.id)
        assert [e.id for e in events] == list(range(1, len(events) + 1))
        assert events[decision - 1].type == "referee"
        s = summary(client, info.id)
        assert [p["kind"] for p in s["pending"]] == ["wrong_capture"]  # R7: 8S accepted
        assert live.table(info.id).state.last_event_id == events[-1].id
    controller_store.close()
    api_store.close()


def test_malformed_bodies_get_one_line_errors(venue, fouls):
    missed, wrong = fouls
    client, store, mid, auth = venue
    headers = {**auth, "Content-Type": "application/json"}
    r = client.post("/api/matches", content=b"{not json", headers=headers)
    assert r.status_code == 422
    assert r.json()["error"].startswith("the request body is not valid JSON")
    r = client.post(f"/api/matches/{mid}/correct", content=b"[1, 2]", headers=headers)
    assert r.status_code == 422 and r.json()["error"].startswith("body: ")
    r = client.post(f"/api/matches/{mid}/correct", json={"target": 0, "card": "9D"}, headers=auth)
    assert r.json() == {"error": "target: Input should be greater than or equal to 1"}
    assert client.get("/api/nothing-here").json() == {"error": "Not Found"}
    assert [e.type for e in store.events(mid)].count("referee") == 0
    assert len(store.matches()) == 1


def test_the_referee_ends_a_round_the_camera_saw_only_part_of_r7(venue, fouls):
    # The camera missed plays, and no next deal will end this round (the match's last): the
    # referee ends it as seen. R3.5: the 8S left goes to the last capturer, seat 0 (the 3S
    # wrong capture, forced as seen while pending). Piles: seat 1 9D 9C 5H 4S (4 cards),
    # seat 0 KS KD 3C 8H 3S 8S (6): nobody has 27 (R4.1), no point card (R4.3), seat 0's
    # basra 10 (R3.1): 10 - 0.
    client, store, mid, auth = venue
    r = client.post(f"/api/matches/{mid}/end-round", headers=auth)
    assert r.status_code == 201, r.text
    assert r.json()["event"]["data"]["action"] == "end_round"
    s = r.json()["state"]["summary"]
    assert s["phase"] == "dealing"
    assert s["totals"] == [10, 0]
    rec = client.get(f"/api/matches/{mid}/record").json()
    assert rec["rounds"][0]["short"] is True and len(rec["rounds"][0]["plays"]) == 6
    n = store.last_event_id(mid)
    again = client.post(f"/api/matches/{mid}/end-round", headers=auth)
    assert again.status_code == 409
    assert again.json()["error"] == "no round in progress to end"
    assert store.last_event_id(mid) == n


def test_a_round_ended_through_serve_is_scored_and_followed_by_run_r7(tmp_path):
    # `serve` and `run --db` are two processes on one venue database: the referee ends the
    # round on the dashboard (R7), served by a process with no live table. The score is
    # written at once (10 - 0, as in the test above), and the `run` process's live table
    # follows: it waits for the next deal instead of reading plays.
    from controller.live_tables import LiveTables

    db = tmp_path / "venue.db"
    controller_store, api_store = Store(db), Store(db)
    digest, token = api_token.load_or_create(db)
    live = LiveTables(controller_store)
    info = controller_store.create_match("classic", 2, dealer=0)
    live.open(info)
    for i, floor in enumerate(SCRIPT):
        live.feed_snapshot(info.id, Snapshot(t=float(i + 1), floor=frozenset(floor)))
    served = LiveTables(api_store)  # `serve`: no table of its own
    with TestClient(create_app(api_store, digest, referee_sink=served.referee)) as client:
        auth = {"Authorization": f"Bearer {token}"}
        r = client.post(f"/api/matches/{info.id}/end-round", headers=auth)
        assert r.status_code == 201, r.text
        decision = r.json()["event"]["id"]
        after = api_store.events(info.id, after=decision)
        assert [e.type for e in after] == ["score"]
        assert after[0].data["match_totals"] == [10, 0]
        assert summary(client, info.id)["phase"] == "dealing"
        # the run process: the 8S left lies there, then the floor is cleared and dealt
        deal = ["2C", "5S", "8D", "QH"]
        for i, floor in enumerate([["8S"], [], deal, [*deal, "6H"]], start=20):
            live.feed_snapshot(info.id, Snapshot(t=float(i), floor=frozenset(floor)))
        events = api_store.events(info.id)
        assert [e.id for e in events] == list(range(1, len(events) + 1))
        started = [e for e in events if e.type == "round_started"]
        assert len(started) == 2 and sorted(started[1].data["floor"]) == deal
        assert [e.data["card"] for e in events if e.type == "turn"][-1] == "6H"
        assert [e.type for e in events].count("score") >= 1
    controller_store.close()
    api_store.close()


def test_correcting_a_misread_dealt_card_rejudges_the_plays_that_saw_it_r2_2_r7(venue, fouls):
    missed, _wrong = fouls
    client, store, mid, auth = venue
    deal = next(e.id for e in store.events(mid) if e.type == "round_started")
    last = store.last_event_id(mid)
    for body, status, words in (
        ({"target": deal, "card": "4C"}, 400, "name the dealt card misread"),
        ({"target": deal, "was": "QS", "card": "4C"}, 400, "was dealt 4S 5H 9C KD, not QS"),
        ({"target": missed, "was": "4S", "card": "4C"}, 400, "no round's deal"),
        ({"target": deal, "was": "4S", "card": "KD"}, 409, "4S cannot become KD"),  # dealt
        ({"target": deal, "was": "4S", "card": "9D"}, 409, "4S cannot become 9D"),  # played
    ):
        r = client.post(f"/api/matches/{mid}/correct", json=body, headers=auth)
        assert r.status_code == status and words in r.json()["error"], (body, r.text)
    assert store.last_event_id(mid) == last  # nothing written
    # The dealt 4S was the 4C: the 9D still took the 9C and 5H+4C (R2.2: 5 + 4 = 9).
    r = client.post(
        f"/api/matches/{mid}/correct",
        json={"target": deal, "was": "4s", "card": "4c"},
        headers=auth,
    )
    assert r.status_code == 201, r.text
    assert r.json()["event"]["data"]["payload"] == {"was": "4S", "card": "4C"}
    s = r.json()["state"]["summary"]
    nine = next(h for h in s["history"] if h["card"] == "9D")
    assert (nine["verdict"], sorted(nine["takes"])) == ("capture", ["4C", "5H", "9C"])
    from controller.table_state import replay

    assert replay(store.events(mid)).rounds[0].floor == ("4C", "5H", "9C", "KD")
