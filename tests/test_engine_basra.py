"""Basra detection and value in every variant (RULES.md R3, V2-V6, R8.3-R8.5)."""

import pytest

from engine.captures import Play, plans
from engine.rules import CLASSIC, EGYPTIAN, ERAM, JORDANIAN, LEBANESE, YEMENI


def basra(rules, floor, card, history=()):
    """Basra points of the first plan (0 when it scores none)."""
    o = plans(rules, floor, card, history)
    assert o.plans, "expected a capture"
    return o.plans[0].basra_points


# ---- Classic R3 ----------------------------------------------------------------------------


def test_r3_1_clearing_with_number_q_or_k_is_10():
    assert basra(CLASSIC, "4S 6C", "TD") == 10
    assert basra(CLASSIC, "QS", "QD") == 10
    assert basra(CLASSIC, "KS KH", "KD") == 10
    assert basra(CLASSIC, "9C 5H 4S KD", "9D") == 0  # KD stays


def test_r3_2_jack_sweep_is_never_a_classic_basra():
    assert basra(CLASSIC, "5H", "JD") == 0
    assert basra(CLASSIC, "JS", "JD") == 0


def test_r3_3_seven_of_diamonds_sum_10_or_less_numbers_only():
    assert basra(CLASSIC, "4S 6C", "7D") == 10  # sum 10
    assert basra(CLASSIC, "AS 2C 3H", "7D") == 10
    assert basra(CLASSIC, "5S 6C", "7D") == 0  # sum 11
    assert basra(CLASSIC, "2S QC", "7D") == 0  # a picture blocks it
    assert basra(CLASSIC, "2S JC", "7D") == 0  # R8.3: any J, Q or K in Classic


# ---- V2 Egyptian ---------------------------------------------------------------------------


def test_v2_jack_on_a_lone_jack_is_20():
    assert basra(EGYPTIAN, "JS", "JD") == 20
    assert basra(EGYPTIAN, "JS 2H", "JD") == 0
    assert basra(EGYPTIAN, "5H", "JD") == 0
    assert basra(EGYPTIAN, "4S 6C", "TD") == 10
    assert basra(EGYPTIAN, "4S 6C", "7D") == 10  # 7D basra as Classic


# ---- V3 Lebanese, R8.5 ---------------------------------------------------------------------


def test_v3a_single_card_taken_by_rank():
    assert basra(LEBANESE, "5S", "5D") == 10
    assert basra(LEBANESE, "QS", "QD") == 10  # R8.5
    assert basra(LEBANESE, "KS", "KD") == 10
    assert basra(LEBANESE, "7S", "7D") == 10  # a 7D (a plain 7) on a lone 7
    assert basra(LEBANESE, "JS", "JD") == 10  # a J only on a lone J
    assert basra(LEBANESE, "5H", "JD") == 0


def test_v3_clearing_a_larger_floor_is_no_basra():
    assert basra(LEBANESE, "4S 6C", "TD") == 0
    assert basra(LEBANESE, "5S 5H", "5D") == 0
    assert plans(LEBANESE, "4S 6C", "7D").kind == "trail"  # no 7D power


def test_v3b_lone_card_then_trail_then_sum_takes_both():
    # floor was [4S]; the previous play trailed 6C beside it; TD takes both by their sum
    history = (Play(("4S",), "6C"),)
    assert basra(LEBANESE, "4S 6C", "TD", history) == 10
    # the same floor without that history is no basra
    assert basra(LEBANESE, "4S 6C", "TD") == 0
    # the previous play was not a trail beside a lone card
    assert basra(LEBANESE, "4S 6C", "TD", (Play(("4S", "2H"), "6C"),)) == 0
    # a J taking the two cards of (b) is no basra
    assert basra(LEBANESE, "4S 6C", "JD", history) == 0
    # (b) needs the floor to be exactly {X, Y}
    assert basra(LEBANESE, "4S 6C", "TD", (Play(("4S",), "5C"),)) == 0


# ---- V4 Yemeni, R8.4 -----------------------------------------------------------------------


def test_v4_jack_basra_20():
    assert basra(YEMENI, "JS", "JD") == 20


@pytest.mark.parametrize(
    "floor, points",
    [
        ("4S 5C", 10),  # case 1: sum 9 < 10
        ("4S 6C", 0),  # sum 10 is not less than 10, and 4/6 cannot split evenly (R8.4)
        ("AS 9C", 0),  # R8.4
        ("TS", 10),  # case 2: a lone 10
        ("QS", 10),  # case 2: a lone Q
        ("TS QC KH", 10),  # case 2: only 10s, Qs and Ks
        ("TS JC", 0),  # a J is none of the cases
        ("5S 5H", 10),  # case 3: 5 = 5 (R8.4)
        ("AS 2S 7C 8H", 10),  # case 3: 1+8 = 2+7 = 9 (V4)
        ("3S 3H 3D 3C", 10),  # sum 12: 3 = 3 = 3 = 3
        ("6S 6H", 10),  # case 3: 6 = 6
        ("9S 9H 9D", 10),  # three groups of 9
        # sum 20; an equal sum below 10 must divide 20 and be >= 6 (the largest card): none
        ("4S 6C 5H 5D", 0),
    ],
)
def test_v4_seven_of_diamonds_three_cases(floor, points):
    assert basra(YEMENI, floor, "7D") == points


# ---- V5 Jordanian --------------------------------------------------------------------------


def test_v5_double_the_card_value():
    assert basra(JORDANIAN, "AS", "AD") == 2
    assert basra(JORDANIAN, "7S", "7C") == 14
    assert basra(JORDANIAN, "4S 6C", "TD") == 20
    assert basra(JORDANIAN, "QS", "QD") == 20  # pictures count 10
    assert basra(JORDANIAN, "KS", "KD") == 20
    assert basra(JORDANIAN, "4S 3C", "7D") == 14  # a 7D basra is 14
    assert basra(JORDANIAN, "JS", "JD") == 0  # a J capture is never a basra
    # V5 example: a 7 basra plus a Q basra = 14 + 20 = 34
    assert basra(JORDANIAN, "7S", "7C") + basra(JORDANIAN, "QS", "QD") == 34


# ---- V6 ERAM, R8.3 -------------------------------------------------------------------------


def test_v6_seven_of_diamonds_by_count_not_sum():
    assert basra(ERAM, "9S 8H 6C", "7D") == 10  # sum 23, 3 cards, no Q/K
    assert basra(ERAM, "9S JH", "7D") == 10  # R8.3: a J does not block it
    assert basra(ERAM, "9S QH", "7D") == 0
    assert basra(ERAM, "2S KH", "7D") == 0
    floor11 = "AS AH AD AC 2S 2H 2D 2C 3S 3H 3D"
    assert basra(ERAM, floor11, "7D") == 0  # 11 cards
    assert basra(ERAM, floor11[:-3], "7D") == 10  # 10 cards


def test_v6_jack_sweep_is_never_a_basra():
    assert basra(ERAM, "JS", "JD") == 0
    assert basra(ERAM, "4S 6C", "TD") == 10
