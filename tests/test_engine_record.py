"""Game records (DESIGN.md): load, validate, replay, score, export; errors name the place."""

import copy
import json

import pytest

from engine.cards import FULL_DECK
from engine.match import Match
from engine.record import RecordError, load_record, replay, score_record
from engine.rules import CLASSIC, LEBANESE
from engine.selfplay import random_match


@pytest.fixture(scope="module")
def classic_record():
    return random_match("classic", 2, seed=3, dealer=0)


def first_round_plays(deck, players=2, dealer=0, rules=CLASSIC):
    """The 48 plays of a round where each player always plays the first card of the hand."""
    m = Match(rules, players, dealer)
    m.start_round(deck=deck)
    plays = []
    while not m.round_over:
        card = m.hands[m.to_play][0]
        m.play(card)
        plays.append(card)
    return plays, m


def test_score_shape_and_consistency(classic_record):
    out = score_record(classic_record)
    assert set(out) == {"rounds", "totals", "winner", "finished"}
    assert out["finished"] is True and out["winner"] in (0, 1)
    for r in out["rounds"]:
        assert set(r) == {
            "cards",
            "most_cards",
            "point_cards",
            "basras",
            "basra_points",
            "score",
            "pending",
        }
        assert sum(r["cards"]) == 52
        assert sum(r["point_cards"]) == 13  # R4.3
        for i in range(2):  # R4.4: score = most cards + point cards + basras
            assert r["score"][i] == r["most_cards"][i] + r["point_cards"][i] + r["basra_points"][i]
    assert out["totals"] == [sum(r["score"][i] for r in out["rounds"]) for i in range(2)]
    assert max(out["totals"]) >= 101


def test_record_round_trip_through_json_and_export(classic_record, tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(classic_record))
    rec = load_record(path)
    m = replay(rec)
    assert m.export() == classic_record
    assert score_record(str(path)) == score_record(classic_record)


def test_unfinished_record_scores_with_finished_false():
    deck = list(FULL_DECK)
    plays, m = first_round_plays(deck)
    rec = {
        "variant": "classic",
        "players": 2,
        "rounds": [{"dealer": 0, "deck": deck, "plays": plays}],
    }
    out = score_record(rec)
    s = m.end_round()
    assert out["rounds"] == [s.to_dict()] and out["finished"] is False and out["winner"] is None


def test_physical_round_with_floor_and_forced_play():
    # a physical round: initial floor as seen, plays of cards not seen before, one forced foul
    m = Match(CLASSIC, 2, 0)
    m.start_round(floor=["4S", "6C", "2H", "KD"])
    m.force("TD", floor_after=["6C", "2H", "KD"])  # took only 4S: accepted foul
    rest = [c for c in FULL_DECK if c not in {"4S", "6C", "2H", "KD", "TD"}]
    for c in rest:
        m.play(c)
    rec = m.export(include_current=True)
    assert rec["rounds"][0]["floor"] == ["4S", "6C", "2H", "KD"]
    assert rec["rounds"][0]["plays"][0] == {
        "card": "TD",
        "force": True,
        "floor_after": ["6C", "2H", "KD"],
    }
    out = score_record(rec)
    assert sum(out["rounds"][0]["cards"]) == 52
    expected = m.end_round()
    assert out["rounds"][0] == expected.to_dict()


def test_takes_choose_among_several_maximum_sets():
    # ERAM-free check in Classic: a play object's "takes" picks one of several legal sets
    m = Match(CLASSIC, 2, 0)
    m.start_round(floor=["3S", "3D", "7C", "KD"])
    r = m.play("TD", takes=["3D", "7C"])
    assert r.takes == ("3D", "7C")
    assert m.log[-1]["plays"][0] == {"card": "TD", "takes": ["3D", "7C"]}


BAD = [
    ("not json {", "not valid JSON"),
    ({"players": 2, "rounds": []}, "variant: unknown variant ''"),
    ({"variant": "klassic", "players": 2, "rounds": []}, "variant: unknown variant 'klassic'"),
    ({"variant": "classic", "players": 3, "rounds": []}, "players: classic is played by 2 or 4"),
    ({"variant": "classic", "players": 2, "rounds": {}}, "rounds: expected a list"),
    (
        {"variant": "classic", "players": 2, "rounds": [{"deck": FULL_DECK[:51], "plays": []}]},
        r"rounds\[0\].deck: a deck has 52 cards, not 51",
    ),
    (
        {
            "variant": "classic",
            "players": 2,
            "rounds": [{"deck": ["AS", *FULL_DECK[:51]], "plays": []}],
        },
        r"rounds\[0\].deck: duplicate card AS",
    ),
    (
        {"variant": "classic", "players": 2, "rounds": [{"plays": []}]},
        r"rounds\[0\]: give exactly one of",
    ),
    (
        {
            "variant": "classic",
            "players": 2,
            "rounds": [{"deck": list(FULL_DECK), "plays": ["AS", "ZZ"]}],
        },
        r"rounds\[0\].plays\[1\]: unknown card 'ZZ'",
    ),
]


@pytest.mark.parametrize("obj, message", BAD)
def test_malformed_records_name_the_place(obj, message):
    with pytest.raises(RecordError, match=message):
        score_record(obj if isinstance(obj, dict) else "{" + obj)


def test_illegal_plays_name_round_and_play():
    deck = list(FULL_DECK)
    plays, _m = first_round_plays(deck)
    rec = {
        "variant": "classic",
        "players": 2,
        "rounds": [{"dealer": 0, "deck": deck, "plays": list(plays)}],
    }
    bad = copy.deepcopy(rec)
    bad["rounds"][0]["plays"][5] = bad["rounds"][0]["plays"][4]
    with pytest.raises(RecordError, match=r"rounds\[0\]\.plays\[5\]: .* is not in the hand"):
        score_record(bad)
    short = copy.deepcopy(rec)
    short["rounds"][0]["plays"].pop()
    with pytest.raises(
        RecordError, match=r"rounds\[0\]\.plays: a round has 48 plays, this one has 47"
    ):
        score_record(short)
    wrong_dealer = copy.deepcopy(rec)
    wrong_dealer["rounds"].append({"dealer": 0, "deck": deck, "plays": plays})
    with pytest.raises(RecordError, match=r"rounds\[1\]\.dealer: expected seat 1"):
        score_record(wrong_dealer)


def test_a_short_physical_round_is_scored_as_seen_and_checked():
    # A round the table ended when the next deal was seen before 48 plays (R7): physical
    # rounds only, marked "short", fewer than 48 plays.
    rec = {
        "variant": "classic",
        "players": 2,
        "rounds": [
            {
                "dealer": 0,
                "floor": ["4S", "6C", "2H", "KD"],
                "plays": [{"card": "TD"}, {"card": "AH"}],
                "short": True,
            }
        ],
    }
    out = score_record(rec)
    # R3.5: 2H AH KD left go to seat 1 (the last capturer): 6 cards; TD 3 + AH 1 (R4.3)
    assert out["rounds"][0]["cards"] == [0, 6] and out["totals"] == [0, 4]
    assert out["finished"] is False
    bad = copy.deepcopy(rec)
    bad["rounds"][0]["short"] = "yes"
    with pytest.raises(RecordError, match=r"rounds\[0\]\.short: expected true or false"):
        score_record(bad)
    digital = {
        **rec,
        "rounds": [{"dealer": 0, "deck": list(FULL_DECK), "plays": [], "short": True}],
    }
    with pytest.raises(RecordError, match=r"rounds\[0\]\.short: only a physical round"):
        score_record(digital)
    # R7: a turn whose card the camera never saw (null): the cards that left are the side's
    unseen = copy.deepcopy(rec)
    unseen["rounds"][0]["plays"][0] = {"card": None, "force": True, "floor_after": ["2H", "KD"]}
    out = score_record(unseen)
    # seat 1 took 4S 6C with it (the unseen card goes to the pile too: R4.1 counts it, its
    # points unknown); AH trails; 2H KD AH go to seat 1 (R3.5): 6 cards, AH 1
    assert out["rounds"][0]["cards"] == [0, 6] and out["totals"] == [0, 1]
    # ... and one seen leave the floor with cards never seen there ("captured"): a capture
    # all the same. Seat 1's TD takes 4S 6C (4 + 6, R2.2); seat 0's unseen card leaves with
    # cards never seen, 2H KD staying: it and one card it took go to seat 0, the last
    # capturer now; seat 1's AH trails; 2H KD AH go to seat 0 (R3.5): 5 cards and AH's 1
    # point against 3 cards and TD's 3 (R4.3)
    took = copy.deepcopy(rec)
    took["rounds"][0]["plays"] = [
        {"card": "TD"},
        {"card": None, "force": True, "floor_after": ["2H", "KD"], "captured": True},
        {"card": "AH"},
    ]
    out = score_record(took)
    assert out["rounds"][0]["cards"] == [5, 3] and out["totals"] == [1, 3]
    took["rounds"][0]["plays"][1]["captured"] = "yes"
    with pytest.raises(RecordError, match=r"plays\[1\]\.captured: expected true or false"):
        score_record(took)
    took["rounds"][0]["plays"][1] = {"card": "QS", "captured": True}
    with pytest.raises(RecordError, match=r'plays\[1\]: "captured" is only for an unseen card'):
        score_record(took)
    unseen["rounds"][0]["plays"][0] = {"card": None}
    with pytest.raises(RecordError, match=r"plays\[0\]\.card: an unseen card \(null\) needs"):
        score_record(unseen)
    unmarked = copy.deepcopy(rec)
    del unmarked["rounds"][0]["short"]
    with pytest.raises(RecordError, match=r"a round has 48 plays, this one has 2"):
        score_record(unmarked)


def test_round_after_the_match_was_decided_is_an_error(classic_record):
    rec = copy.deepcopy(classic_record)
    rec["rounds"].append(copy.deepcopy(rec["rounds"][-1]))
    del rec["rounds"][-1]["dealer"]
    n = len(rec["rounds"]) - 1
    with pytest.raises(RecordError, match=rf"rounds\[{n}\]: the match was already decided"):
        score_record(rec)


def test_random_match_lebanese_three_players_replays():
    rec = random_match("lebanese", 3, seed=8)
    out = score_record(rec)
    assert out["finished"] and len(out["totals"]) == 3
    assert all(sum(r["cards"]) == 52 for r in out["rounds"])
    assert LEBANESE.name == rec["variant"]
