"""Independent review of the rules engine against RULES.md, case by case, worked by hand.

Every expected value below was worked out from RULES.md (and DESIGN.md for the JSON shapes),
never copied from the engine's output; each test names the section it checks. The whole-match
records are built from hand-designed decks whose every turn is predictable:

* "one-sided" round (2 players): the floor is the four Qs; the first player (P) trails a card
  and the second (Q) takes it by rank, 20 times; then 7S (trail), 7D (sweep of 4 Q + 7S, no
  basra: Qs on the floor), KD (trail), KC (takes the lone KD: a basra), JS (stays), JD (takes
  the lone JS), JH (stays), JC (takes the lone JH). Q ends with all 52 cards.
* "tie" round (2 players): both sides take pairs, then KD/KC (no basra), 7D sweeps the Qs,
  7S trails, JS takes it, JD stays, JH takes the lone JD, JC stays and goes to P as
  leftovers (R3.5): 26-26.
"""

import json

import pytest

from controller.cli import run
from engine.captures import Play, basra_points, count_takes, is_legal_take, plans
from engine.match import Match
from engine.record import RecordError, score_record
from engine.referee import JudgeError, judge
from engine.rules import (
    CLASSIC,
    EGYPTIAN,
    ERAM,
    JORDANIAN,
    LEBANESE,
    VARIANTS,
    YEMENI,
)
from engine.scoring import decide, score_tallies

QUEENS = ["QS", "QH", "QD", "QC"]
PAIRS = [  # 19 number pairs (no 7S/7D) and the KS/KH pair
    ("AS", "AH"),
    ("AD", "AC"),
    ("2S", "2H"),
    ("2D", "2C"),
    ("3S", "3H"),
    ("3D", "3C"),
    ("4S", "4H"),
    ("4D", "4C"),
    ("5S", "5H"),
    ("5D", "5C"),
    ("6S", "6H"),
    ("6D", "6C"),
    ("7H", "7C"),
    ("8S", "8H"),
    ("8D", "8C"),
    ("9S", "9H"),
    ("9D", "9C"),
    ("TS", "TH"),
    ("TD", "TC"),
    ("KS", "KH"),
]


def takes(variant, floor, card, history=()):
    return [list(p.takes) for p in plans(VARIANTS[variant], floor, card, history).plans]


def one(variant, floor, card, history=()):
    """The single plan of a play: (takes, basra_points)."""
    out = plans(VARIANTS[variant], floor, card, history).plans
    assert len(out) == 1, out
    return list(out[0].takes), out[0].basra_points


def build_deck(players, dealer, n, deals, floor):
    """A deck (top first) dealing deals[i][seat] to each seat, the floor after deal 0."""
    deck = []
    for i, hands in enumerate(deals):
        for k in range(1, players + 1):
            block = hands[(dealer + k) % players]
            assert len(block) == n
            deck += block
        if i == 0:
            deck += floor
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


def one_sided_round(dealer):
    """2 players: the second player to play (Q = the dealer) takes all 52 cards."""
    p, q = (dealer + 1) % 2, dealer
    deals, plays = [], []
    for i in range(5):
        chunk = PAIRS[4 * i : 4 * i + 4]
        deals.append({p: [a for a, _ in chunk], q: [b for _, b in chunk]})
        plays += [c for pair in chunk for c in pair]
    deals.append({p: ["7S", "KD", "JS", "JH"], q: ["7D", "KC", "JD", "JC"]})
    plays += ["7S", "7D", "KD", "KC", "JS", "JD", "JH", "JC"]
    return {"dealer": dealer, "deck": build_deck(2, dealer, 4, deals, QUEENS), "plays": plays}


TIE_B = [  # (pair Q takes, pair P takes): P trails a, Q trails b, P takes b, Q takes a
    (("AD", "AC"), ("2D", "2C")),
    (("2S", "2H"), ("AS", "AH")),
    (("3D", "3C"), ("TD", "TC")),
    (("4D", "4C"), ("3S", "3H")),
    (("5D", "5C"), ("4S", "4H")),
    (("6D", "6C"), ("5S", "5H")),
    (("7H", "7C"), ("8S", "8H")),
    (("8D", "8C"), ("6S", "6H")),
]
TIE_A = [("9S", "9H"), ("9D", "9C"), ("TS", "TH"), ("KS", "KH")]


def tie_round(dealer, quiet=False):
    """2 players, 26-26: P (first to play) 11 point-card points, Q 2 (see the docstring).

    quiet: no J on a lone J either: KD (trail), KC takes it, JS sweeps the Qs, 7S trails,
    JH takes it, 7D stays on the empty floor (R2.5), JD takes it, JC stays (to P, R3.5)."""
    p, q = (dealer + 1) % 2, dealer
    deals, plays = [], []
    for i in range(4):
        hp, hq = [], []
        for a, b in TIE_B[2 * i : 2 * i + 2]:
            hp += [a[0], b[1]]
            hq += [b[0], a[1]]
            plays += [a[0], b[0], b[1], a[1]]
        deals.append({p: hp, q: hq})
    deals.append({p: [a for a, _ in TIE_A], q: [b for _, b in TIE_A]})
    plays += [c for pair in TIE_A for c in pair]
    if quiet:
        deals.append({p: ["KD", "JS", "JH", "JD"], q: ["KC", "7S", "7D", "JC"]})
        plays += ["KD", "KC", "JS", "7S", "JH", "7D", "JD", "JC"]
    else:
        deals.append({p: ["KD", "7D", "JS", "JH"], q: ["KC", "7S", "JD", "JC"]})
        plays += ["KD", "KC", "7D", "7S", "JS", "JD", "JH", "JC"]
    return {"dealer": dealer, "deck": build_deck(2, dealer, 4, deals, QUEENS), "plays": plays}


def record(variant, rounds, players=2):
    return {"variant": variant, "players": players, "rounds": rounds}


def cli(capsys, *args):
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ---- R2 captures, R8.1 order ------------------------------------------------------------------


def test_r8_1_takes_in_card_order_suits_s_h_d_c():
    # R2.2: a 10 takes 5+5 twice; takes sorted by rank then suit S H D C (R8.1, DESIGN)
    assert takes("classic", "5C 5D 5H 5S", "TD") == [["5S", "5H", "5D", "5C"]]
    # R2.2 example: 9 takes 9, 5+4, 6+3; K stays
    assert takes("classic", "9C 5H 4S KD 6D 3S", "9D") == [["3S", "4S", "5H", "6D", "9C"]]


def test_r8_1_classic_lists_every_maximum_set_in_card_order():
    # 2+8 and 3+7 (4 cards): 8H or 8D, 7S or 7H; ties compared card by card (R8.1)
    want = [
        ["2S", "3C", "7S", "8H"],
        ["2S", "3C", "7S", "8D"],
        ["2S", "3C", "7H", "8H"],
        ["2S", "3C", "7H", "8D"],
    ]
    floor = "8D 7H 2S 8H 3C 7S"
    assert takes("classic", floor, "TD") == want
    assert takes("eram", floor, "TD") == want  # all four are maximal too
    assert count_takes(CLASSIC, floor, "TD") == 4


def test_r2_8_eram_maximal_plans_not_a_strict_subset_larger_first():
    # 10 on A 2 3 7 9 (7D on the floor is a plain 7, R2.5): {A+9, 3+7} (4 cards) and
    # {A+2+7} (3 cards, not inside the other); {A+9} alone or {3+7} alone extend: not plans
    floor = "AS 2H 7D 3C 9S"
    assert takes("eram", floor, "TD") == [["AS", "3C", "7D", "9S"], ["AS", "2H", "7D"]]
    # R2.8 Classic: only the largest haul
    assert takes("classic", floor, "TD") == [["AS", "3C", "7D", "9S"]]
    assert not is_legal_take(CLASSIC, floor.split(), "TD", ["AS", "2H", "7D"])
    assert is_legal_take(ERAM, floor.split(), "TD", ["AS", "2H", "7D"])
    assert not is_legal_take(ERAM, floor.split(), "TD", ["AS", "9S"])  # extendable


def test_r2_8_rank_matches_always_included():
    # 5 on 5 + 2 + 3: the rank match and the 2+3 group, in every plan (R2.2, R2.8)
    assert takes("eram", "5S 2H 3C", "5D") == [["2H", "3C", "5S"]]
    assert not is_legal_take(ERAM, ["5S", "2H", "3C"], "5D", ["2H", "3C"])


def _sixteen():
    # 10 played: A+9 three times (3 of the four 9s: 4 ways), 2+8 three times (4 ways):
    # 16 sets of 12 cards, ordered by the 8s then the 9s (R8.1)
    floor = ["AS", "AH", "AD", "9S", "9H", "9D", "9C", "2S", "2H", "2D", "8S", "8H", "8D", "8C"]
    combos = [("S", "H", "D"), ("S", "H", "C"), ("S", "D", "C"), ("H", "D", "C")]
    want = []
    for e in combos:
        for n in combos:
            want.append(
                ["AS", "AH", "AD", "2S", "2H", "2D"] + ["8" + s for s in e] + ["9" + s for s in n]
            )
    return floor, want


def test_r8_1_eram_offers_12_of_16_only_offered_plans_are_legal():
    floor, want = _sixteen()
    out = plans(ERAM, floor, "TD")
    assert [list(p.takes) for p in out.plans] == want[:12]
    assert [p.id for p in out.plans] == list(range(1, 13))
    # ERAM also has 4 maximal sets of 11: A+A+8, A+9, 2+8 x3 (all four 8s, one 9)
    assert count_takes(ERAM, floor, "TD") == 20
    assert count_takes(CLASSIC, floor, "TD") == 16
    # Classic lists every maximum set, no cap (R8.1)
    assert [list(p.takes) for p in plans(CLASSIC, floor, "TD").plans] == want
    # the 13th set is maximal but not offered: a wrong capture in ERAM, legal in Classic
    after13 = [c for c in floor if c not in want[12]]
    v = judge(ERAM, floor, "TD", after13)
    assert (v.verdict, v.foul) == ("foul", "wrong_capture")
    assert [list(t) for t in v.legal] == want[:12]
    assert judge(CLASSIC, floor, "TD", after13).verdict == "capture"
    after12 = [c for c in floor if c not in want[11]]
    v = judge(ERAM, floor, "TD", after12)
    assert (v.verdict, v.foul, list(v.takes)) == ("capture", None, want[11])
    assert not is_legal_take(ERAM, floor, "TD", want[12])


def test_r2_5_jack_on_floor_only_goes_with_a_sweep():
    # a number card never takes a J; only a J or 7D sweep does (R2.4, R2.5)
    assert takes("classic", "JS 4H 6C", "TD") == [["4H", "6C"]]
    assert takes("classic", "JS 4H 6C", "7D") == [["4H", "6C", "JS"]]
    assert takes("lebanese", "JS 3H 4C", "7D") == [["3H", "4C"]]  # V3: a plain 7


# ---- R3 basras per variant ----------------------------------------------------------------------

SEVEN_D = [  # floor, then 7D basra points per variant (R3.3, V2, V4, V5, V6, R8.3, R8.4)
    # floor           classic egypt yemeni jordan eram
    ("3S 4H 2C", 10, 10, 10, 14, 10),  # sum 9
    ("5S 5H", 10, 10, 10, 14, 10),  # sum 10; Yemeni case 3 (5 | 5)
    ("4S 6H", 10, 10, 0, 14, 10),  # Yemeni: not < 10, no equal groups (R8.4)
    ("AS 9H", 10, 10, 0, 14, 10),  # idem
    ("TS", 10, 10, 10, 14, 10),  # lone 10: Yemeni case 2 (R8.4)
    ("QS", 0, 0, 10, 0, 0),  # lone Q: Yemeni case 2; ERAM: a Q blocks
    ("TS QH KD", 0, 0, 10, 0, 0),  # only 10s, Qs and Ks
    ("JS 2H", 0, 0, 0, 0, 10),  # ERAM: a J does not block (R8.3)
    ("AS 2H 7C 8D", 0, 0, 10, 0, 10),  # Yemeni 1+8 = 2+7; ERAM 4 cards
    ("3S 3H 3D 3C", 0, 0, 10, 0, 10),  # Yemeni: 3|3|3|3
    ("6S 6H", 0, 0, 10, 0, 10),  # Yemeni 6|6
    ("5S 4H", 10, 10, 10, 14, 10),  # sum 9 < 10
    ("5S 5H 5D", 0, 0, 10, 0, 10),  # Yemeni 5|5|5
    ("4S 6H 5D 5C", 0, 0, 0, 0, 10),  # 20: Yemeni groups of 10 are not below 10
    ("AS AH AD AC 2S 2H 2D 2C 3S 9H", 0, 0, 0, 0, 10),  # ERAM: 10 cards, sum no matter
    ("AS AH AD AC 2S 2H 2D 2C 3S 3H 3D", 0, 0, 10, 0, 0),  # ERAM 11 cards; Yemeni 3s
    ("QS 2H", 0, 0, 0, 0, 0),
]


@pytest.mark.parametrize("case", SEVEN_D, ids=[c[0] for c in SEVEN_D])
def test_r3_3_r8_3_r8_4_seven_of_diamonds_basra_per_variant(case):
    floor, *pts = case
    names = ["classic", "egyptian", "yemeni", "jordanian", "eram"]
    for variant, want in zip(names, pts, strict=True):
        got, points = one(variant, floor, "7D")
        assert sorted(got) == sorted(floor.split()), variant  # a sweep takes everything
        assert points == want, (variant, floor)


def test_r3_3_lebanese_7d_is_a_plain_7():
    assert one("lebanese", "3S 4H 2C", "7D") == (["3S", "4H"], 0)
    assert one("lebanese", "7S", "7D") == (["7S"], 10)  # R8.5: a plain 7 on a lone 7


@pytest.mark.parametrize(
    "variant, lone_j, j_with_more",
    [
        ("classic", 0, 0),  # R3.2
        ("egyptian", 20, 0),  # V2
        ("yemeni", 20, 0),  # V4
        ("jordanian", 0, 0),  # V5: a J capture is never a basra
        ("eram", 0, 0),  # V6
        ("lebanese", 10, 0),  # V3 (a)
    ],
)
def test_jack_on_a_lone_jack(variant, lone_j, j_with_more):
    assert one(variant, "JH", "JS") == (["JH"], lone_j)
    assert one(variant, "JH 2S", "JS") == (["2S", "JH"], j_with_more)
    assert one(variant, "2S", "JS")[1] == 0


def test_r3_1_clearing_with_q_or_k_and_v5_double_values():
    assert one("classic", "QS QH", "QD") == (["QS", "QH"], 10)
    assert one("classic", "QS KH", "QD") == (["QS"], 0)
    assert one("jordanian", "QS", "QD") == (["QS"], 20)  # V5: pictures count 10
    assert one("jordanian", "KS", "KD") == (["KS"], 20)
    assert one("jordanian", "AS", "AD") == (["AS"], 2)
    assert one("jordanian", "4S 6H", "TD") == (["4S", "6H"], 20)
    assert one("jordanian", "3S 4H", "7C") == (["3S", "4H"], 14)
    assert one("jordanian", "5S 2H", "7D") == (["2H", "5S"], 14)  # V5: a 7D basra is 14


def test_v3a_lebanese_basra_only_on_a_single_card():
    assert one("lebanese", "QH", "QS") == (["QH"], 10)  # R8.5
    assert one("lebanese", "KH", "KS") == (["KH"], 10)
    assert one("lebanese", "5H", "5S") == (["5H"], 10)
    assert one("lebanese", "5H 5D", "5S") == (["5H", "5D"], 0)  # a larger floor
    assert one("lebanese", "4S 6H", "TD") == (["4S", "6H"], 0)  # no (b) without history
    assert one("lebanese", "5S", "JS") == (["5S"], 0)  # J only on a lone J
    assert one("classic", "4S 6H", "TD") == (["4S", "6H"], 10)


def test_v3b_lebanese_lone_card_trail_then_sum():
    hist = (Play(("5S",), "3H"),)  # floor held 5S alone, 3H trailed beside it
    assert one("lebanese", "5S 3H", "8D", hist) == (["3H", "5S"], 10)
    assert one("lebanese", "5S 3H", "JD", hist) == (["3H", "5S"], 0)  # not the J
    # the previous play did not trail beside a lone card: no basra
    assert one("lebanese", "5S 3H", "8D", (Play(("5S", "KD"), "3H"),))[1] == 0
    assert one("lebanese", "5S 3H", "8D", (Play(("5S",), "3H"), Play(("4C",), "4D")))[1] == 0
    # only the very last play counts: an older (b) chance is gone
    hist2 = (Play(("5S",), "3H"), Play(("5S", "3H"), "KD"))
    assert one("lebanese", "5S 3H KD", "8D", hist2)[1] == 0
    # judge with history (R7): the basra is a flag on a capture verdict (R8.10)
    v = judge(LEBANESE, "5S 3H", "8D", "", hist)
    assert (v.verdict, v.basra, v.basra_points) == ("capture", True, 10)
    v = judge(LEBANESE, "5S 3H", "8D", "")
    assert (v.verdict, v.basra, v.basra_points) == ("capture", False, 0)


def test_v3b_history_runs_across_a_redeal_and_resets_each_round():
    # Lebanese, 2 players, dealer 0: seat 1 plays first; 6 cards a deal (V3)
    p1 = ["AS", "2S", "3S", "4S", "9S", "5S"]  # plays 0 2 4 6 8 10
    p2 = ["AH", "2H", "3H", "4H", "JS", "3D"]  # plays 1 3 5 7 9 11
    rest = _deck_rest(p1 + p2 + ["KS", "KH", "KD", "KC", "8C"])
    deals = [{1: p1, 0: p2}, {1: ["8C"] + rest[:5], 0: rest[5:11]}]
    tail = rest[11:]
    deals += [{1: tail[12 * i : 12 * i + 6], 0: tail[12 * i + 6 : 12 * i + 12]} for i in range(2)]
    deck = build_deck(2, 0, 6, deals, ["KS", "KH", "KD", "KC"])
    m = Match(LEBANESE, 2, dealer=0)
    m.start_round(deck=deck)
    for a, b in zip(p1, p2, strict=True):
        m.play(a)
        m.play(b)
    # play 8: 9S trails; play 9: JS sweeps the Ks and 9S; play 10: 5S alone; 11: 3D trails
    assert m.floor == ("3D", "5S") and m.hands[1] == ["8C", *rest[:5]]  # re-dealt (R1.4)
    r = m.play("8C")  # 5 + 3: (b) across the re-deal (R8.5)
    assert (r.takes, r.basra, r.basra_points) == (("3D", "5S"), True, 10)
    while not m.round_over:
        m.play(m.hands[m.to_play][0])
    m.end_round()
    m.start_round(deck=deck)
    assert m.history == ()  # R8.5: the history resets each round


def _deck_rest(used):
    from engine.cards import FULL_DECK

    return [c for c in FULL_DECK if c not in used]


def test_r3_5_leftovers_are_never_a_basra():
    # tie round: JC is left alone on the floor and goes to P without a basra (R3.5)
    out = score_record(record("classic", [tie_round(0)]))
    assert out["rounds"][0]["basras"] == [0, 0]


# ---- R7 / R8.10 verdicts ------------------------------------------------------------------------


def test_r8_10_verdict_kinds():
    v = judge(CLASSIC, "5S 4H KD", "9D", "KD")
    assert v.to_dict() == {
        "verdict": "capture",
        "foul": None,
        "takes": ["4H", "5S"],
        "basra": False,
        "basra_points": 0,
        "legal": [["4H", "5S"]],
    }
    v = judge(CLASSIC, "5S", "5H", "")
    assert (v.verdict, v.basra, v.basra_points) == ("capture", True, 10)
    v = judge(EGYPTIAN, "JH", "JS", "")
    assert (v.verdict, v.basra, v.basra_points) == ("sweep", True, 20)
    assert judge(CLASSIC, "", "7D", "7D").verdict == "trail"
    assert judge(CLASSIC, "KD", "9D", "KD 9D").verdict == "trail"
    v = judge(CLASSIC, "5S 4H", "9D", "5S 4H 9D")
    assert (v.verdict, v.foul, [list(t) for t in v.legal]) == (
        "foul",
        "missed_capture",
        [["4H", "5S"]],
    )


def test_r8_10_played_card_vanished_with_nothing_taken_is_wrong_capture():
    v = judge(CLASSIC, "KD", "9D", "KD")
    assert (v.verdict, v.foul, v.takes, v.basra, v.legal) == (
        "foul",
        "wrong_capture",
        (),
        False,
        (),
    )
    v = judge(CLASSIC, "5S 4H", "9D", "5S 4H")
    assert (v.foul, [list(t) for t in v.legal]) == ("wrong_capture", [["4H", "5S"]])
    v = judge(CLASSIC, "", "JD", "")  # a J on an empty floor stays (R2.5)
    assert v.foul == "wrong_capture"


def test_r8_10_wrong_captures_and_bad_input():
    assert judge(CLASSIC, "5S 4H 9C", "9D", "9C").foul == "wrong_capture"  # too few
    assert judge(CLASSIC, "5S 4H 9C 2D", "9D", "").foul == "wrong_capture"  # too many
    assert judge(CLASSIC, "5S 4H 2D", "9D", "4H").foul == "wrong_capture"  # wrong cards
    assert judge(CLASSIC, "5S 4H", "9D", "9D").foul == "wrong_capture"  # took, card stayed
    with pytest.raises(JudgeError):
        judge(CLASSIC, "5S 4H", "9D", "5S 4H 2C")  # from nowhere
    with pytest.raises(JudgeError):
        judge(CLASSIC, "5S 9D", "9D", "5S")  # played card was already on the floor


# ---- R4 / R5 scoring and winning ----------------------------------------------------------------


def test_r4_2_pending_carry_v3_nothing_v6_accumulates():
    s = score_tallies(CLASSIC, [26, 26], [6, 7], [0, 0], [0, 0], 0)
    assert (s.most_cards, s.score, s.pending) == ([0, 0], [6, 7], 30)
    s = score_tallies(CLASSIC, [26, 26], [6, 7], [0, 0], [0, 0], 30)
    assert (s.most_cards, s.pending) == ([0, 0], 60)
    s = score_tallies(CLASSIC, [24, 28], [6, 7], [0, 0], [0, 0], 60)
    assert (s.most_cards, s.score, s.pending) == ([0, 90], [6, 97], 0)
    s = score_tallies(LEBANESE, [26, 26], [6, 7], [0, 0], [0, 0], 0)
    assert (s.most_cards, s.pending) == ([0, 0], 0)  # V3: nothing pending
    s = score_tallies(LEBANESE, [28, 24], [6, 7], [0, 0], [0, 0], 0)
    assert s.most_cards == [3, 0]
    s = score_tallies(ERAM, [26, 26], [6, 7], [0, 0], [0, 0], 30)
    assert s.pending == 60
    s = score_tallies(EGYPTIAN, [27, 25], [0, 0], [2, 0], [20, 0], 0)
    assert s.score == [50, 0]  # V2 example: 30 + 20


def test_r8_8_three_players_most_cards_strictly():
    s = score_tallies(LEBANESE, [18, 18, 16], [4, 4, 5], [0, 0, 0], [0, 0, 0], 0)
    assert (s.most_cards, s.pending) == ([0, 0, 0], 0)
    s = score_tallies(LEBANESE, [19, 17, 16], [4, 4, 5], [0, 0, 0], [0, 0, 0], 0)
    assert s.most_cards == [3, 0, 0]


def test_r5_1_r5_2_r8_8_r8_9_deciding():
    assert decide(CLASSIC, [110, 104], 7) == (True, 0)  # both reach: higher total
    assert decide(CLASSIC, [104, 104], 7) == (False, None)  # equal: another round
    assert decide(CLASSIC, [100, 99], 7) == (False, None)
    assert decide(CLASSIC, [101, 0], 1) == (True, 0)
    assert decide(EGYPTIAN, [120, 0], 3) == (False, None)  # V2 target 121
    assert decide(CLASSIC, [50, 49], 30) == (True, 0)  # R5.2 cap
    assert decide(CLASSIC, [50, 50], 30) == (True, None)  # draw
    assert decide(CLASSIC, [50, 49], 29) == (False, None)
    for name in ("egyptian", "lebanese", "yemeni", "jordanian"):  # R8.9
        assert decide(VARIANTS[name], [50, 49], 30) == (True, 0)
    assert decide(ERAM, [50, 49], 30) == (False, None)  # V6: no cap
    assert decide(ERAM, [130, 130], 99) == (False, None)  # V6: extra round
    assert decide(ERAM, [121, 120], 99) == (True, 0)
    assert decide(LEBANESE, [101, 101, 50], 5) == (False, None)  # R8.8: one player alone
    assert decide(LEBANESE, [101, 102, 50], 5) == (True, 1)


# ---- whole records (DESIGN.md game record and `score` shape) -----------------------------------


def rnd(cards, most, points, basras, bpts, score, pending):
    return {
        "cards": cards,
        "most_cards": most,
        "point_cards": points,
        "basras": basras,
        "basra_points": bpts,
        "score": score,
        "pending": pending,
    }


@pytest.mark.parametrize(
    "variant, basras, bpts, points",
    [
        ("classic", 1, 10, 13),  # KC on the lone KD (R3.1)
        ("egyptian", 3, 50, 0),  # + JD on JS, JC on JH: 20 each (V2)
        ("yemeni", 3, 50, 13),  # V4
        ("jordanian", 1, 20, 13),  # V5: a K basra is 20
        ("eram", 1, 10, 13),  # V6
    ],
)
def test_one_sided_round_per_variant(variant, basras, bpts, points):
    out = score_record(record(variant, [one_sided_round(0)]))
    score = 30 + points + bpts
    assert out["rounds"] == [
        rnd([52, 0], [30, 0], [points, 0], [basras, 0], [bpts, 0], [score, 0], 0)
    ]
    assert out["totals"] == [score, 0]
    assert (out["finished"], out["winner"]) == (False, None)


def test_classic_match_dealer_passes_and_round_after_the_end_is_an_error(capsys, tmp_path):
    rounds = [one_sided_round(0), one_sided_round(1), one_sided_round(0)]
    out = score_record(record("classic", rounds))
    # R1.5: dealer 1 in round 1, so seat 0 plays first and seat 1 takes everything
    assert [r["score"] for r in out["rounds"]] == [[53, 0], [0, 53], [53, 0]]
    assert (out["totals"], out["winner"], out["finished"]) == ([106, 53], 0, True)
    bad = record("classic", [*rounds, one_sided_round(1)])
    with pytest.raises(RecordError, match=r"rounds\[3\]"):
        score_record(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, _, err = cli(capsys, "score", str(path), "--json")
    assert code == 2 and "rounds[3]" in err and err.count("\n") == 1
    # a wrong dealer is named too (R1.5)
    with pytest.raises(RecordError, match=r"rounds\[1\]\.dealer"):
        score_record(record("classic", [one_sided_round(0), one_sided_round(0)]))


def test_eram_dealer_alternates_and_no_cap_needed_five_rounds():
    rounds = [one_sided_round(i % 2) for i in range(5)]
    out = score_record(record("eram", rounds))
    assert [r["score"] for r in out["rounds"]] == [[53, 0], [0, 53]] * 2 + [[53, 0]]
    assert (out["totals"], out["winner"], out["finished"]) == ([159, 106], 0, True)


def test_r4_2_pending_claimed_then_lost_at_match_end():
    rounds = [tie_round(0), one_sided_round(1), tie_round(0)]
    out = score_record(record("classic", rounds))
    # round 0: P = seat 1 (11 points), Q = seat 0 (2 points), 26-26: 30 pending
    assert out["rounds"][0] == rnd([26, 26], [0, 0], [2, 11], [0, 0], [0, 0], [2, 11], 30)
    # round 1: seat 1 takes all: 30 + 30 pending, 13 points, the K basra
    assert out["rounds"][1] == rnd([0, 52], [0, 60], [0, 13], [0, 1], [0, 10], [0, 83], 0)
    assert out["rounds"][2] == rnd([26, 26], [0, 0], [2, 11], [0, 0], [0, 0], [2, 11], 30)
    # seat 1 reaches 105: the match ends and the pending 30 is lost (R4.2)
    assert (out["totals"], out["winner"], out["finished"]) == ([4, 105], 1, True)


def test_egyptian_tie_round_j_basra_and_no_point_cards():
    out = score_record(record("egyptian", [tie_round(0), one_sided_round(1)]))
    # JH on the lone JD is a 20 J basra for P (seat 1); no point cards (V2)
    assert out["rounds"][0] == rnd([26, 26], [0, 0], [0, 0], [0, 1], [0, 20], [0, 20], 30)
    assert out["rounds"][1] == rnd([0, 52], [0, 60], [0, 0], [0, 3], [0, 50], [0, 110], 0)
    assert (out["totals"], out["winner"], out["finished"]) == ([0, 130], 1, True)


def test_r5_2_r8_9_thirty_round_cap_draw_and_pending_lost():
    # Egyptian (no point cards, V2): a quiet 26-26 round scores nothing; 30 pending a round
    rounds = [tie_round(i % 2, quiet=True) for i in range(30)]
    out = score_record(record("egyptian", rounds[:29]))
    assert (out["finished"], out["winner"], out["totals"]) == (False, None, [0, 0])
    out = score_record(record("egyptian", rounds))
    assert [r["pending"] for r in out["rounds"]] == [30 * (i + 1) for i in range(30)]
    assert all(r["score"] == [0, 0] and r["basras"] == [0, 0] for r in out["rounds"])
    # R5.2: after 30 rounds the match ends; equal totals are a draw; the 900 are lost (R4.2)
    assert (out["finished"], out["winner"], out["totals"]) == (True, None, [0, 0])
    with pytest.raises(RecordError, match=r"rounds\[30\]"):
        score_record(record("egyptian", [*rounds, tie_round(0, quiet=True)]))
    # classic quiet tie: P 11, Q 2 point-card points (R4.3), nothing else
    out = score_record(record("classic", [tie_round(1, quiet=True)]))
    assert out["rounds"][0] == rnd([26, 26], [0, 0], [11, 2], [0, 0], [0, 0], [11, 2], 30)


def test_four_players_are_two_teams():
    # dealer 1: seats 2 3 0 1 play in turn; seats 3 and 1 (side 1) take everything
    dealer = 1
    order = [(dealer + k) % 4 for k in range(1, 5)]  # p1 p2 p3 p4
    p1, p2, p3, p4 = order
    deals, plays = [], []
    for d in range(2):
        chunk = PAIRS[8 * d : 8 * d + 8]
        hands = {s: [] for s in range(4)}
        for k in range(4):
            a, b = chunk[2 * k], chunk[2 * k + 1]
            hands[p1].append(a[0])
            hands[p2].append(a[1])
            hands[p3].append(b[0])
            hands[p4].append(b[1])
            plays += [a[0], a[1], b[0], b[1]]
        deals.append(hands)
    c = PAIRS[16:]
    deals.append(
        {
            p1: [c[0][0], c[2][0], "7S", "JS"],
            p2: [c[0][1], c[2][1], "7D", "JD"],
            p3: [c[1][0], c[3][0], "KD", "JH"],
            p4: [c[1][1], c[3][1], "KC", "JC"],
        }
    )
    plays += [c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1], c[3][0], c[3][1]]
    plays += ["7S", "7D", "KD", "KC", "JS", "JD", "JH", "JC"]
    rd = {"dealer": dealer, "deck": build_deck(4, dealer, 4, deals, QUEENS), "plays": plays}
    out = score_record(record("classic", [rd], players=4))
    assert out["rounds"] == [rnd([0, 52], [0, 30], [0, 13], [0, 1], [0, 10], [0, 53], 0)]
    out = score_record(record("egyptian", [rd], players=4))
    assert out["rounds"][0]["score"] == [0, 80]


LEB3 = [  # (pair p2 takes, pair p1 takes, pair p3 takes)
    (("AD", "AC"), ("AS", "AH"), ("TD", "TC")),
    (("2S", "2H"), ("3S", "3H"), ("2D", "2C")),
    (("3D", "3C"), ("4S", "4H"), ("4D", "4C")),
    (("5S", "5H"), ("5D", "5C"), ("6S", "6H")),
    (("6D", "6C"), ("7S", "7H"), ("7D", "7C")),
    (("8S", "8H"), ("8D", "8C"), ("9S", "9H")),
    (("9D", "9C"), ("TS", "TH"), ("KS", "KH")),
]


def test_lebanese_three_players_record():
    # dealer 0: p1 = seat 1, p2 = seat 2, p3 = seat 0; 4 cards a deal, 4 deals (V3, R1.4).
    # Block of 6: p1 trails a, p2 takes it; p3 trails b, p1 takes it; p2 trails c, p3
    # takes it. Then p1 JS sweeps the four Qs (5 cards, no basra), p2 KD stays, p3 KC takes
    # the lone KD (basra, R8.5), p1 JH stays, p2 JD takes the lone JH (basra, V3 a), p3 JC
    # stays and goes to p2 (R3.5).
    p1, p2, p3 = 1, 2, 0
    deals, plays = [], []
    hands = {0: [], 1: [], 2: []}
    for i, (a, b, c) in enumerate(LEB3):
        hands[p1] += [a[0], b[1]]
        hands[p2] += [a[1], c[0]]
        hands[p3] += [b[0], c[1]]
        plays += [a[0], a[1], b[0], b[1], c[0], c[1]]
        if i % 2 == 1:
            deals.append(hands)
            hands = {0: [], 1: [], 2: []}
    hands[p1] += ["JS", "JH"]
    hands[p2] += ["KD", "JD"]
    hands[p3] += ["KC", "JC"]
    deals.append(hands)
    plays += ["JS", "KD", "KC", "JH", "JD", "JC"]
    rd = {"dealer": 0, "deck": build_deck(3, 0, 4, deals, QUEENS), "plays": plays}
    out = score_record(record("lebanese", [rd], players=3))
    # p1 19 cards (AS AH JS: 3 points), p2 17 (AD AC JD JH JC: 5), p3 16 (TD 3 + 2C 2)
    assert out["rounds"] == [
        rnd([16, 19, 17], [0, 3, 0], [5, 3, 5], [1, 0, 1], [10, 0, 10], [15, 6, 15], 0)
    ]
    assert (out["totals"], out["finished"], out["winner"]) == ([15, 6, 15], False, None)


def test_record_errors_name_the_play_and_exit_2(capsys, tmp_path):
    rd = one_sided_round(0)
    rd["plays"][1] = {"card": "AH", "takes": []}  # AH must take AS (R2.6)
    with pytest.raises(RecordError, match=r"rounds\[0\]\.plays\[1\]"):
        score_record(record("classic", [rd]))
    rd = one_sided_round(0)
    rd["plays"][0] = "AH"  # not in seat 1's hand: seat 1 holds AS
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record("classic", [rd])))
    code, out, err = cli(capsys, "score", str(path), "--json")
    assert code == 2 and out == "" and "rounds[0].plays[0]" in err and err.count("\n") == 1
    rd = one_sided_round(0)
    rd["plays"][3] = {"card": "AC", "takes": ["AD", "QS"]}  # too many
    with pytest.raises(RecordError, match=r"rounds\[0\]\.plays\[3\]"):
        score_record(record("classic", [rd]))
    rd = one_sided_round(0)
    del rd["plays"][47]
    with pytest.raises(RecordError, match=r"rounds\[0\]\.plays"):
        score_record(record("classic", [rd]))


def test_record_takes_choose_among_maximum_sets_and_default_is_first_plan():
    # explicit takes equal to the first plan are accepted like the default (R8.1)
    rd = one_sided_round(0)
    rd["plays"][1] = {"card": "AH", "takes": ["AS"]}
    assert score_record(record("classic", [rd]))["totals"] == [53, 0]


# ---- CLI contract (DESIGN.md) -------------------------------------------------------------------


def test_cli_plans_and_judge_contract(capsys):
    code, out, _ = cli(
        capsys,
        "rules",
        "plans",
        "--variant",
        "eram",
        "--floor",
        "AS 2H 7D 3C 9S",
        "--play",
        "10D",
        "--json",
    )
    assert code == 0
    assert json.loads(out) == {
        "card": "TD",
        "kind": "capture",
        "plans": [
            {"id": 1, "takes": ["AS", "3C", "7D", "9S"], "basra": False, "basra_points": 0},
            {"id": 2, "takes": ["AS", "2H", "7D"], "basra": False, "basra_points": 0},
        ],
    }
    code, out, _ = cli(
        capsys,
        "rules",
        "plans",
        "--variant",
        "yemeni",
        "--floor",
        "5S 5H",
        "--play",
        "7D",
        "--json",
    )
    assert json.loads(out) == {
        "card": "7D",
        "kind": "sweep",
        "plans": [{"id": 1, "takes": ["5S", "5H"], "basra": True, "basra_points": 10}],
    }
    code, out, _ = cli(
        capsys,
        "rules",
        "plans",
        "--variant",
        "classic",
        "--floor",
        "KD",
        "--play",
        "9D",
        "--json",
    )
    assert json.loads(out) == {"card": "9D", "kind": "trail", "plans": []}
    code, out, _ = cli(
        capsys,
        "rules",
        "judge",
        "--variant",
        "classic",
        "--floor",
        "KD",
        "--play",
        "9D",
        "--after",
        "KD",
        "--json",
    )
    assert code == 0 and json.loads(out) == {
        "verdict": "foul",
        "foul": "wrong_capture",
        "takes": [],
        "basra": False,
        "basra_points": 0,
        "legal": [],
    }


def test_cli_history_lebanese_b(capsys, tmp_path):
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps([{"floor": "5S", "play": "3H"}]))
    code, out, _ = cli(
        capsys,
        "rules",
        "judge",
        "--variant",
        "lebanese",
        "--floor",
        "5S 3H",
        "--play",
        "8D",
        "--after",
        "",
        "--history",
        str(hist),
        "--json",
    )
    assert code == 0
    assert json.loads(out)["basra_points"] == 10


def test_yemeni_jordanian_whole_rounds_basras_use_the_played_card():
    # sanity on basra_points directly for the three V4 7D cases and V5 values
    assert basra_points(YEMENI, ["AS", "2H", "7C", "8D"], "7D", ["AS", "2H", "7C", "8D"]) == 10
    assert basra_points(JORDANIAN, ["QS"], "QD", ["QS"]) == 20
    assert basra_points(JORDANIAN, ["JS"], "JD", ["JS"]) == 0


# ---- the plan search on adversarial floors (R2.8, R8.1) -----------------------------------------

ADVERSARIAL = [  # floors that once took 13-25 ms for ERAM (benchmarks/engine.py --worst)
    (
        "5C 9H 7D 3C 8S 9S 8D 2S 4D 4S TD 5D 6D 9C 7C 6S 8H 2C 6H 5H 4H 6C 2D 7H 4C 3S 9D 7S "
        "3D 8C 2H 3H AC AH 5S TC TH",
        "TS",
    ),
    (
        "2H 2S TC 7C 9D 4H 8H 3H 9C 8C 8D 7H 2D 8S 2C 6S 5D AH 3S 7D 4D 5S 3D 9H TS 4S 6C 9S "
        "TH 6H AD",
        "TD",
    ),
    (
        "8S 3S 3H 7H 2D AC 2H 6C 4H 4D 7C 6D 5D 5C 4S 6H 2S TH 3C 2C 9H 3D 4C 5S AH 5H AD 6S AS",
        "TS",
    ),
]


def _all_plans_by_vectors(floor, card):
    """Every ERAM plan in R8.1 order from the plain group recursion (no remainder search)."""
    from engine import groups
    from engine.captures import _Search
    from engine.cards import card_index

    s = _Search(floor, card)
    out = []
    for u in groups.maximal_at_least(s.v, s.c, 0):
        out += list(s.concrete(u))
    return sorted(out, key=lambda t: (-len(t), [card_index(c) for c in t]))


@pytest.mark.parametrize("floor, card", ADVERSARIAL)
def test_eram_plans_on_adversarial_floors_match_the_plain_search(floor, card):
    from engine import groups

    floor = floor.split(" ")
    want = _all_plans_by_vectors(floor, card)
    groups.clear_caches()
    got = [p.takes for p in plans(ERAM, floor, card).plans]
    assert got == want[:12]
    assert count_takes(ERAM, floor, card) == len(want)
    last = [c for c in floor if c not in got[-1]]
    assert judge(ERAM, floor, card, last).foul is None
    if len(want) > 12:
        v = judge(ERAM, floor, card, [c for c in floor if c not in want[12]])
        assert v.foul == "wrong_capture"


def test_remainder_search_matches_the_group_search_at_every_slack():
    # the leftover-side search (used when few cards must stay) against the group recursion,
    # on seeded random value counts of every size
    import random

    from engine import groups

    rng = random.Random(7)
    for _ in range(400):
        v = rng.choice([10, 10, 9, 8, 7, 6, 5, 4])
        counts = [rng.choice([0, 1, 2, 3, 4, 4, 4]) for _ in range(v - 1)]
        c = sum(k << (4 * j) for j, k in enumerate(counts))
        groups.clear_caches()
        if groups.best(v, c) == 0:
            continue
        want = groups.maximal_at_least(v, c, 0)
        groups.clear_caches()
        assert groups._maximal_by_remainder(v, c) == want, (v, counts)
        groups.clear_caches()
        assert groups.maximal(v, c) == want


# ---- an independent reference, written from RULES.md alone, on many small floors --------------

RANK_VALUE = {r: i + 1 for i, r in enumerate("A23456789T")}


def _split(values, target, min_parts):
    """Can `values` be split into disjoint groups, each of >= min_parts cards summing to
    target? (brute force)"""
    if not values:
        return True
    import itertools

    first, rest = values[0], values[1:]
    for k in range(len(rest) + 1):
        for combo in itertools.combinations(range(len(rest)), k):
            if k + 1 >= min_parts and first + sum(rest[i] for i in combo) == target:
                left = [rest[i] for i in range(len(rest)) if i not in combo]
                if _split(left, target, min_parts):
                    return True
    return False


def _ref_sets(variant, floor, card):
    """Legal take sets per R2.2-R2.8 and R8.1, by subset enumeration."""
    import itertools

    from engine.cards import card_index

    if not floor:
        return []
    if card[0] == "J" or (card == "7D" and variant != "lebanese"):
        return [tuple(sorted(floor, key=card_index))]
    if card[0] in "QK":
        same = tuple(sorted((f for f in floor if f[0] == card[0]), key=card_index))
        return [same] if same else []
    v = RANK_VALUE[card[0]]
    matches = [f for f in floor if f[0] == card[0]]
    others = [f for f in floor if f[0] in RANK_VALUE and f[0] != card[0]]
    valid = set()
    for k in range(len(others) + 1):
        for sub in itertools.combinations(others, k):
            if _split([RANK_VALUE[c[0]] for c in sub], v, 2) and (sub or matches):
                valid.add(frozenset(sub) | frozenset(matches))
    if variant == "eram":
        keep = [s for s in valid if not any(s < t for t in valid)]
    else:
        top = max((len(s) for s in valid), default=0)
        keep = [s for s in valid if len(s) == top]
    out = sorted(
        (tuple(sorted(s, key=card_index)) for s in keep),
        key=lambda t: (-len(t), [card_index(c) for c in t]),
    )
    return out[:12] if variant == "eram" else out


def _ref_basra(variant, floor, card, takes, history):
    if not floor or len(takes) != len(floor):
        return 0
    if card[0] == "J":
        lone_j = len(floor) == 1 and floor[0][0] == "J"
        return {"egyptian": 20, "yemeni": 20, "lebanese": 10}.get(variant, 0) if lone_j else 0
    numbers = all(c[0] in RANK_VALUE for c in floor)
    total = sum(RANK_VALUE.get(c[0], 0) for c in floor)
    if card == "7D" and variant != "lebanese":
        if variant == "eram":
            ok = len(floor) <= 10 and not any(c[0] in "QK" for c in floor)
        elif variant == "yemeni":
            ok = (numbers and total < 10) or all(c[0] in "TQK" for c in floor)
            vals = [RANK_VALUE[c[0]] for c in floor] if numbers else []
            for g in range(1, 10):
                if numbers and total % g == 0 and total // g >= 2 and _split(vals, g, 1):
                    ok = True
        else:
            ok = numbers and total <= 10
        return (14 if variant == "jordanian" else 10) if ok else 0
    if variant == "lebanese":
        if len(floor) == 1:
            return 10 if floor[0][0] == card[0] else 0
        if len(floor) == 2 and history and card[0] in RANK_VALUE:
            prev = history[-1]
            x, y = prev.floor[0] if len(prev.floor) == 1 else None, prev.play
            if x and set(floor) == {x, y} and numbers and total == RANK_VALUE[card[0]]:
                return 10
        return 0
    if variant == "jordanian":
        return 2 * RANK_VALUE.get(card[0], 10)
    return 10


def test_every_variant_against_an_independent_reference_on_small_floors():
    import random

    from engine.cards import FULL_DECK

    rng = random.Random(11)
    pool = [c for c in FULL_DECK if c[0] in "A234567JQK" or c in ("TD", "TS", "9S", "8H")]
    for _ in range(1500):
        variant = rng.choice(sorted(VARIANTS))
        cards = rng.sample(pool, rng.randint(1, 8))
        card, floor = cards[0], cards[1:]
        history = ()
        if variant == "lebanese" and len(floor) == 2 and rng.random() < 0.7:
            history = (Play((floor[0],), floor[1]),)
        sets = _ref_sets(variant, floor, card)
        out = plans(VARIANTS[variant], floor, card, history)
        assert [p.takes for p in out.plans] == sets, (variant, floor, card)
        for p in out.plans:
            want = _ref_basra(variant, floor, card, p.takes, history)
            assert p.basra_points == want and p.basra == (want > 0), (variant, floor, card)
        sweeper = card[0] == "J" or (card == "7D" and variant != "lebanese")
        assert out.kind == ("trail" if not sets else "sweep" if sweeper else "capture")
