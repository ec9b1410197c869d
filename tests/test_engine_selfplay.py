"""Self-play (simulate's engine side), house rules as values, the round cap over whole matches.

RULES.md R5.2, R8.9 (cap), V6 (no cap), R1.1 (teams); `simulate --json` shape of DESIGN.md.
"""

import dataclasses
import random

import pytest

from engine.cards import FULL_DECK
from engine.match import Match
from engine.record import score_record
from engine.rules import CLASSIC, ERAM, RulesError
from engine.selfplay import random_match, selfplay


def play_random_rounds(rules, players, rounds, seed=1):
    rng = random.Random(seed)
    m = Match(rules, players, dealer=0)
    for _ in range(rounds):
        if m.finished:
            break
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        m.start_round(deck=deck)
        while not m.round_over:
            m.play(rng.choice(m.hands[m.to_play]))
        m.end_round()
    return m


def test_selfplay_shape():
    out = selfplay("classic", 2, games=20, seed=1)
    assert set(out) == {"games", "rounds", "seconds", "rounds_per_second"}
    assert out["games"] == 20 and out["rounds"] >= 20 * 2  # 101 needs at least 2 rounds
    assert out["rounds_per_second"] > 0
    assert selfplay("classic", 2, games=20, seed=1)["rounds"] == out["rounds"]  # seeded
    for variant, players in [("lebanese", 3), ("egyptian", 4), ("eram", 2)]:
        assert selfplay(variant, players, games=3, seed=2)["games"] == 3
    with pytest.raises(RulesError):
        selfplay("eram", 4, games=1, seed=0)


def test_house_rule_is_a_new_value_not_new_code():
    # a café plays Classic to 151: only the target changes
    house = dataclasses.replace(CLASSIC, name="classic-151", target=151)
    m = play_random_rounds(house, 2, rounds=200)
    assert m.finished and max(m.totals) >= 151
    out = selfplay(house, 2, games=5, seed=3)
    assert out["rounds"] > selfplay(CLASSIC, 2, games=5, seed=3)["rounds"] * 1.1
    # a house rule giving KD 5 points is still scored right (slow path for unknown cards)
    kd = dataclasses.replace(CLASSIC, name="kd5", point_cards=(*CLASSIC.point_cards, ("KD", 5)))
    s = play_random_rounds(kd, 2, rounds=1).rounds[0]
    assert sum(s.point_cards) == 13 + 5
    assert selfplay(kd, 2, games=2, seed=1)["games"] == 2


def test_round_cap_ends_the_match_r5_2_r8_9():
    unreachable = dataclasses.replace(CLASSIC, target=100_000)
    m = play_random_rounds(unreachable, 2, rounds=40)
    assert len(m.rounds) == 30 and m.finished
    if m.totals[0] != m.totals[1]:
        assert m.winner == m.totals.index(max(m.totals))
    else:
        assert m.winner is None  # a draw
    no_cap = dataclasses.replace(ERAM, target=100_000)  # V6: no round cap
    m = play_random_rounds(no_cap, 2, rounds=31)
    assert len(m.rounds) == 31 and not m.finished


def test_four_players_share_team_piles_r1_1():
    rng = random.Random(4)
    m = Match(CLASSIC, 4, dealer=0)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    m.start_round(deck=deck)
    taken = [0, 0]
    while not m.round_over:
        r = m.play(rng.choice(m.hands[m.to_play]))
        assert r.side == r.seat % 2
        if r.takes:
            taken[r.side] += len(r.takes) + 1
    left = len(m.floor)
    s = m.end_round()
    taken[s.leftover_side] += left
    assert s.cards == taken and len(s.score) == 2


def test_random_match_is_a_replayable_record():
    rec = random_match("eram", 2, seed=12)
    assert rec["variant"] == "eram" and rec["players"] == 2
    assert all(len(r["plays"]) == 48 and len(r["deck"]) == 52 for r in rec["rounds"])
    out = score_record(rec)
    assert out["finished"] and max(out["totals"]) >= 121
    assert random_match("eram", 2, seed=12) == rec  # seeded
