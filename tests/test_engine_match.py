"""Rounds and matches: deals, turn order, re-deals, captures, fouls, scoring, winning.

RULES.md R1, R3.5, R4, R5, V3, V6, R8.6-R8.9; values worked out by hand from the rules.
"""

import random

import pytest

from engine.cards import FULL_DECK
from engine.match import IllegalPlay, Match, all_cards_accounted, deal_floor
from engine.rules import CLASSIC, EGYPTIAN, ERAM, LEBANESE, RulesError
from engine.scoring import decide, score_round, score_tallies


def deck_starting(*first):
    """A 52-card deck whose top cards are `first`, the rest in FULL_DECK order."""
    rest = [c for c in FULL_DECK if c not in first]
    return list(first) + rest


# ---- R1 deal and turn order ----------------------------------------------------------------


def test_r1_2_deal_blocks_from_the_player_after_the_dealer_then_the_floor():
    top = ["AS", "2S", "3S", "4S", "5S", "6S", "8S", "9S", "AH", "2H", "3H", "4H"]
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(deck=deck_starting(*top))
    assert m.hands[1] == ["AS", "2S", "3S", "4S"]  # seat 1 is after the dealer
    assert m.hands[0] == ["5S", "6S", "8S", "9S"]
    assert m.floor == ("AH", "2H", "3H", "4H")
    assert m.to_play == 1  # R1.5: the player after the dealer starts


def test_r1_2_lebanese_deals_6_and_3_players_4():
    m = Match(LEBANESE, players=2, dealer=1)
    m.start_round(deck=list(FULL_DECK))
    assert [len(h) for h in m.hands] == [6, 6] and m.hands[0] == list(FULL_DECK[:6])
    m3 = Match(LEBANESE, players=3, dealer=0)
    m3.start_round(deck=list(FULL_DECK))
    assert [len(h) for h in m3.hands] == [4, 4, 4]
    assert m3.hands[1] == list(FULL_DECK[:4]) and m3.hands[0] == list(FULL_DECK[8:12])


def test_r8_6_floor_check_sends_jacks_and_7d_to_the_bottom():
    stock = deck_starting("JS", "2S", "7D", "4S", "JH", "6S")
    floor = deal_floor(CLASSIC, stock)
    # JS -> bottom, replaced by JH (top); 7D -> bottom, replaced by 6S; second pass: JH -> bottom,
    # replaced by the next top card
    nxt = [c for c in FULL_DECK if c not in ("JS", "2S", "7D", "4S", "JH", "6S")][0]
    assert floor == [nxt, "2S", "6S", "4S"]
    assert stock[-3:] == ["JS", "7D", "JH"]
    assert len(stock) + len(floor) == 52


def test_r1_3_lebanese_keeps_the_7d_on_the_floor():
    stock = deck_starting("JS", "2S", "7D", "4S", "5S")
    assert deal_floor(LEBANESE, stock) == ["5S", "2S", "7D", "4S"]


def test_r1_4_redeal_when_hands_are_empty_and_turns_continue():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(deck=list(FULL_DECK))
    stock_top = m.stock[:8]
    for _ in range(8):
        m.play(m.hands[m.to_play][0])
    assert m.hands[1] == stock_top[:4] and m.hands[0] == stock_top[4:]
    assert m.to_play == 1 and m.plays_in_round == 8


def test_r1_5_four_players_turns_and_teams():
    m = Match(CLASSIC, players=4, dealer=2)
    m.start_round(deck=list(FULL_DECK))
    seats = []
    for _ in range(5):
        seats.append(m.to_play)
        m.play(m.hands[m.to_play][0])
    assert seats == [3, 0, 1, 2, 3]
    assert [m.side_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_player_counts_per_variant():
    with pytest.raises(RulesError, match="classic is played by 2 or 4 players, not 3"):
        Match(CLASSIC, players=3)
    with pytest.raises(RulesError):
        Match(ERAM, players=4)
    Match(LEBANESE, players=3)


# ---- turns: legal, illegal, forced ---------------------------------------------------------


def test_illegal_play_is_named_and_changes_nothing():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(deck=list(FULL_DECK))
    before = m.copy()
    not_in_hand = m.hands[0][0]
    with pytest.raises(IllegalPlay, match=f"{not_in_hand} is not in the hand of seat 1"):
        m.play(not_in_hand)
    assert m.hands == before.hands and m.floor == before.floor and m.log == before.log


def test_wrong_takes_and_refusing_a_capture_are_illegal_r2_6_r2_9():
    m = Match(CLASSIC, players=2, dealer=1)
    m.start_round(floor=["2S", "8H", "3D", "7C"])
    with pytest.raises(IllegalPlay, match="TD cannot take 2S 8H"):
        m.play("TD", takes=["2S", "8H"])  # not the largest haul
    with pytest.raises(IllegalPlay, match="must capture"):
        m.play("TD", takes=[])
    r = m.play("TD")
    assert r.takes == ("2S", "3D", "7C", "8H") and r.basra and r.basra_points == 10
    assert m.floor == () and m.to_play == 1


def test_physical_round_accepts_unseen_cards_only():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(floor=["9C", "5H", "4S", "KD"])
    assert m.hands is None
    with pytest.raises(IllegalPlay, match="5H is on the floor"):
        m.play("5H")
    r = m.play("9D")
    assert (r.seat, r.takes, r.floor_after) == (1, ("4S", "5H", "9C"), ("KD",))
    with pytest.raises(IllegalPlay, match="9D is already played"):
        m.play("9D")


def test_physical_misdeal_is_refused_r1_3():
    m = Match(CLASSIC, players=2)
    assert m.check_floor(["JC", "2S", "3S", "4S"]).foul == "misdeal"
    assert m.check_floor(["7D", "2S", "3S", "4S"]).foul == "misdeal"
    assert Match(LEBANESE, 2).check_floor(["7D", "2S", "3S", "4S"]) is None
    with pytest.raises(IllegalPlay, match="misdeal: JC"):
        m.start_round(floor=["JC", "2S", "3S", "4S"])
    assert not m.in_round


def test_a_misdeal_floor_the_referee_was_told_of_is_played_on_as_it_lies_r1_3_r7():
    m = Match(CLASSIC, players=2)
    m.start_round(floor=["JC", "2S", "3S", "4S"], as_seen=True)
    assert m.in_round
    # the J lies on the floor: only a sweep takes it (R2.5); a 5 takes 2+3 and leaves J and 4
    r = m.play("5H")
    assert set(r.takes) == {"2S", "3S"} and set(r.floor_after) == {"JC", "4S"}


def test_a_physical_round_the_camera_saw_end_early_is_scored_from_the_plays_seen_r3_5_r4():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(floor=["4S", "6C", "2H", "KD"])
    with pytest.raises(IllegalPlay, match="not finished"):
        m.end_round()
    m.play("TD")  # seat 1 takes 4S + 6C (sum 10)
    m.play("AH")  # seat 0 trails
    # the next deal began (the camera missed the other 46 plays): the round ends as seen
    s = m.end_round(short=True)
    # R3.5: the floor left (2H AH KD) goes to the last capturer, seat 1: 6 cards; R4.3: TD 3
    # and AH 1 are his; nobody has 27 cards
    assert s.cards == [0, 6] and s.point_cards == [0, 4] and s.score == [0, 4]
    assert m.totals == [0, 4] and not m.in_round and m.dealer == 1
    assert m.export()["rounds"][0]["short"] is True


def test_only_a_physical_round_can_end_short():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(deck=list(FULL_DECK))
    with pytest.raises(IllegalPlay, match="only a physical round"):
        m.end_round(short=True)


def test_force_applies_a_foul_as_seen_without_basra():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(floor=["4S", "6C", "2H", "KD"])
    # seat 1 plays TD but picks up only 4S and TD (6C stays): a wrong capture the referee accepts
    r = m.force("TD", floor_after=["6C", "2H", "KD"])
    assert r.kind == "foul" and r.takes == ("4S",) and not r.basra
    assert m.captured(1) == ("4S", "TD")
    assert m.floor == ("2H", "6C", "KD")
    # a missed capture accepted: the played card stays
    r = m.force("6D", floor_after=["6C", "6D", "2H", "KD"])
    assert r.takes == () and m.floor == ("2H", "6D", "6C", "KD")  # card order: D before C


def test_lebanese_b_through_the_match_history_v3():
    m = Match(LEBANESE, players=2, dealer=0)
    m.start_round(floor=["4S", "9H", "8D", "KC"])
    m.play("9C")  # seat 1 takes 9H
    m.play("8S")  # seat 0 takes 8D
    m.play("KS")  # seat 1 takes KC -> floor [4S]
    r = m.play("6C")  # seat 0 trails beside the lone card
    assert r.takes == () and m.floor == ("4S", "6C")
    r = m.play("TD")  # seat 1 takes both by their sum: V3(b)
    assert r.takes == ("4S", "6C") and r.basra_points == 10


# ---- R3.5, R4 scoring ----------------------------------------------------------------------


def test_r4_4_example_56_and_egyptian_50():
    pile0 = ["JS", "AH", "AC", "TD"] + [c for c in FULL_DECK if c[0] in "3456789"][:24]
    assert len(pile0) == 28
    pile1 = [c for c in FULL_DECK if c not in pile0]
    s = score_round(CLASSIC, [pile0, pile1], [2, 0], [20, 0], pending=0)
    assert s.most_cards == [30, 0] and s.point_cards == [6, 7] and s.score == [56, 7]
    assert s.point_cards[0] + s.point_cards[1] == 13  # R4.3: 13 points per round
    e = score_round(EGYPTIAN, [pile0, pile1], [2, 0], [20, 0], pending=0)
    assert e.score == [50, 0] and e.point_cards == [0, 0]  # V2


def test_r4_2_ties_carry_and_are_claimed():
    s1 = score_tallies(CLASSIC, [26, 26], [6, 7], [0, 0], [0, 0], pending=0)
    assert s1.most_cards == [0, 0] and s1.pending == 30
    s2 = score_tallies(CLASSIC, [26, 26], [6, 7], [0, 0], [0, 0], pending=s1.pending)
    assert s2.pending == 60
    s3 = score_tallies(CLASSIC, [25, 27], [6, 7], [0, 0], [0, 0], pending=s2.pending)
    assert s3.most_cards == [0, 90] and s3.pending == 0 and s3.score == [6, 97]
    # V6 ERAM: each tie adds 30 to the carry, the next 27+ takes 30 + carry
    e = score_tallies(ERAM, [26, 26], [0, 0], [0, 0], [0, 0], pending=30)
    assert e.pending == 60
    # V3 Lebanese: most cards 3, a tie scores nothing and nothing is pending
    lt = score_tallies(LEBANESE, [26, 26], [6, 7], [0, 0], [0, 0], pending=0)
    assert lt.pending == 0 and lt.most_cards == [0, 0]
    assert score_tallies(LEBANESE, [30, 22], [6, 7], [0, 0], [0, 0], 0).most_cards == [3, 0]


def test_r8_8_three_players_strictly_most():
    s = score_tallies(LEBANESE, [20, 16, 16], [5, 4, 4], [0, 0, 0], [0, 0, 0], 0)
    assert s.most_cards == [3, 0, 0]
    s = score_tallies(LEBANESE, [18, 18, 16], [5, 4, 4], [0, 0, 0], [0, 0, 0], 0)
    assert s.most_cards == [0, 0, 0]


def test_r5_winning_rules():
    assert decide(CLASSIC, [101, 90], 3) == (True, 0)
    assert decide(CLASSIC, [105, 110], 3) == (True, 1)  # R5.1 both reach: higher total
    assert decide(CLASSIC, [110, 110], 3) == (False, None)  # equal: another round
    assert decide(CLASSIC, [100, 90], 29) == (False, None)
    assert decide(CLASSIC, [100, 90], 30) == (True, 0)  # R5.2 the cap
    assert decide(CLASSIC, [90, 90], 30) == (True, None)  # a draw
    assert decide(ERAM, [90, 90], 300) == (False, None)  # no cap in ERAM
    assert decide(ERAM, [121, 120], 5) == (True, 0) and decide(EGYPTIAN, [120, 0], 5)[0] is False
    assert decide(LEBANESE, [101, 101, 50], 4) == (False, None)  # R8.8: one player alone
    assert decide(LEBANESE, [105, 101, 3], 4) == (True, 0)


def test_whole_rounds_leftovers_and_accounting_r3_5_r8_7():
    rng = random.Random(11)
    for rules, players in [(CLASSIC, 2), (CLASSIC, 4), (LEBANESE, 3), (ERAM, 2)]:
        m = Match(rules, players=players, dealer=0)
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        m.start_round(deck=deck)
        last_capturer = None
        with pytest.raises(IllegalPlay, match="not finished"):
            m.end_round()
        while not m.round_over:
            r = m.play(m.hands[m.to_play][rng.randrange(len(m.hands[m.to_play]))])
            if r.takes:
                last_capturer = r.side
        leftover = len(m.floor)
        assert m.plays_in_round == 48  # R8.7
        before = [len(m.captured(s)) for s in range(m.sides)]
        s = m.end_round()
        assert s.leftover_side == last_capturer
        expect = list(before)
        expect[last_capturer] += leftover
        assert s.cards == expect and sum(s.cards) == 52
        assert all_cards_accounted(m)
        assert m.dealer == 1 and m.to_play == 2 % players  # R1.5 the deal passes on


def test_match_totals_and_end():
    rng = random.Random(5)
    m = Match(EGYPTIAN, players=2, dealer=0)
    while not m.finished:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        m.start_round(deck=deck)
        while not m.round_over:
            m.play(rng.choice(m.hands[m.to_play]))
        m.end_round()
    assert m.totals == [sum(r.score[i] for r in m.rounds) for i in range(2)]
    assert max(m.totals) >= 121 and m.totals[m.winner] == max(m.totals)
    with pytest.raises(IllegalPlay, match="the match is over"):
        m.start_round(deck=list(FULL_DECK))


@pytest.mark.parametrize(
    "rules, players, deals",
    [(CLASSIC, 2, 6), (CLASSIC, 4, 3), (LEBANESE, 2, 4), (LEBANESE, 4, 2), (LEBANESE, 3, 4)],
)
def test_r1_4_number_of_deals_per_round(rules, players, deals):
    # R1.4: 6 deals with 2 players, 3 with 4; Lebanese 4 with 2, 2 with 4, 4 with 3 players
    m = Match(rules, players=players, dealer=0)
    m.start_round(deck=list(FULL_DECK))
    seen_deals = 1
    while not m.round_over:
        before = sum(len(h) for h in m.hands)
        m.play(m.hands[m.to_play][0])
        if sum(len(h) for h in m.hands) > before - 1:
            seen_deals += 1
    assert seen_deals == deals and m.plays_in_round == 48 and m.stock == []


def test_v6_equal_totals_past_the_target_play_on():
    assert decide(ERAM, [125, 125], 7) == (False, None)
    assert decide(ERAM, [125, 130], 7) == (True, 1)
