"""Capture generation: rank matches, sum groups, largest haul, ERAM plans (RULES.md R2, R8.1)."""

import pytest

from engine.captures import count_takes, is_legal_take, iter_takes, plans
from engine.cards import CardError, parse_card, parse_cards, sort_cards
from engine.rules import CLASSIC, ERAM, LEBANESE, VARIANTS, RulesError, get_ruleset


def takes(outcome):
    return [list(p.takes) for p in outcome.plans]


# ---- cards ---------------------------------------------------------------------------------


def test_card_codes_accept_10_and_sort_in_card_order():
    assert parse_card("10d") == "TD"
    assert parse_card(" 7d ") == "7D"
    assert parse_cards("9C 5H, 4S") == ("9C", "5H", "4S")
    # R8.1 card order: rank A..K, then suit S H D C
    assert sort_cards(["KD", "TD", "AC", "AS", "2H", "TS"]) == ("AS", "AC", "2H", "TS", "TD", "KD")


@pytest.mark.parametrize("bad", ["1S", "ZZ", "10X", "", "9", "JJ"])
def test_unknown_card_is_named(bad):
    with pytest.raises(CardError, match="unknown card"):
        parse_card(bad)


def test_duplicate_card_is_an_error():
    with pytest.raises(CardError, match="duplicate card 9C"):
        parse_cards("9C 5H 9c")


def test_rule_sets_are_values_per_variant():
    assert set(VARIANTS) == {"classic", "egyptian", "lebanese", "yemeni", "jordanian", "eram"}
    assert get_ruleset("ERAM").target == 121 and get_ruleset("egyptian").target == 121
    assert LEBANESE.deal_size(2) == 6 and LEBANESE.deal_size(3) == 4 and CLASSIC.deal_size(4) == 4
    assert ERAM.players == (2,) and ERAM.round_cap is None and CLASSIC.round_cap == 30
    with pytest.raises(RulesError, match="unknown variant 'basra'"):
        get_ruleset("basra")
    with pytest.raises(RulesError, match="eram is played by 2 players, not 4"):
        ERAM.check_players(4)


# ---- R2.2 examples -------------------------------------------------------------------------


def test_r2_2_nine_takes_its_rank_and_two_groups():
    # R2.2: 9 on floor 9 5 4 K 6 3 takes 9, 5+4, 6+3; K stays
    o = plans(CLASSIC, "9C 5H 4S KD 6S 3H", "9D")
    assert o.kind == "capture"
    assert takes(o) == [["3H", "4S", "5H", "6S", "9C"]]
    assert o.plans[0].basra is False


def test_r2_2_ten_takes_ten_and_four_six_three_stays():
    o = plans(CLASSIC, "4S 6C TH 3D", "TD")
    assert takes(o) == [["4S", "6C", "TH"]]


def test_design_contract_example_king_stays_so_no_basra():
    o = plans(CLASSIC, "9C 5H 4S KD", "9D")
    assert o.to_dict() == {
        "card": "9D",
        "kind": "capture",
        "plans": [{"id": 1, "takes": ["4S", "5H", "9C"], "basra": False, "basra_points": 0}],
    }


def test_groups_of_any_size_r6():
    # R6: a sum group may have any size: A+2+3+4 = 10
    o = plans(CLASSIC, "AS 2S 3S 4S", "TD")
    assert takes(o) == [["AS", "2S", "3S", "4S"]]
    assert o.plans[0].basra_points == 10  # the floor is cleared (R3.1)


def test_groups_are_disjoint():
    # 5 5 5 with a 10: only one 5+5 group; the third 5 stays
    o = plans(CLASSIC, "5S 5H 5D", "TC")
    assert takes(o) == [["5S", "5H"], ["5S", "5D"], ["5H", "5D"]]


def test_pictures_never_in_a_sum_r2_1_and_r2_3():
    assert plans(CLASSIC, "QS KS 2H", "QD").plans[0].takes == ("QS",)  # R2.3 Q by rank only
    assert takes(plans(CLASSIC, "QS QH KS", "KD")) == [["KS"]]
    assert plans(CLASSIC, "QS 2H", "KD").kind == "trail"


def test_trail_has_no_plans_r8_2():
    o = plans(CLASSIC, "9C 8H", "3D")
    assert o.kind == "trail" and o.plans == ()
    assert o.to_dict()["plans"] == []


# ---- R2.4 / R2.5 sweeps and the empty floor ------------------------------------------------


def test_jack_sweeps_the_whole_floor_r2_4():
    o = plans(CLASSIC, "9C 5H JS KD", "JD")
    assert o.kind == "sweep" and takes(o) == [["5H", "9C", "JS", "KD"]]


def test_seven_of_diamonds_sweeps_except_lebanese_r2_4():
    assert plans(CLASSIC, "9C 5H KD", "7D").kind == "sweep"
    leb = plans(LEBANESE, "9C 5H 2S KD", "7D")  # V3: an ordinary 7
    assert leb.kind == "capture" and takes(leb) == [["2S", "5H"]]


@pytest.mark.parametrize("card", ["JS", "7D"])
def test_jack_and_7d_on_an_empty_floor_stay_r2_5(card):
    o = plans(CLASSIC, "", card)
    assert o.kind == "trail" and o.plans == ()


def test_7d_on_the_floor_is_an_ordinary_7_r2_5():
    assert takes(plans(CLASSIC, "7D 2S", "7C")) == [["7D"]]
    assert takes(plans(CLASSIC, "7D 3S", "TC")) == [["3S", "7D"]]


# ---- R2.8 / R8.1 largest haul and ERAM plans -----------------------------------------------


def test_classic_largest_haul_lists_every_maximum_set_in_card_order():
    # 10 on 2 8 3 7 5: 2+8 and 3+7 (4 cards) beats any 2-card choice; 5 stays
    o = plans(CLASSIC, "2S 8H 3D 7C 5S", "TD")
    assert takes(o) == [["2S", "3D", "7C", "8H"]]
    # two maximum sets of 2 cards: 3+7 with either 3; ordered by card order (R8.1)
    o = plans(CLASSIC, "3S 3D 7C", "TD")
    assert takes(o) == [["3S", "7C"], ["3D", "7C"]]
    assert [p.id for p in o.plans] == [1, 2]


def test_classic_largest_haul_prefers_more_cards_over_other_groupings():
    # 10 on 1 2 3 4 6 9: 1+9 & 4+6 (4 cards) vs 1+2+3+4 (4 cards) vs 4+6 & 1+9 ... max 4 cards;
    # 2+3 cannot join anything else. Sets of 4: {A,9,4,6}, {A,2,3,4}; worked by hand.
    o = plans(CLASSIC, "AS 2S 3S 4S 6S 9S", "TD")
    assert takes(o) == [["AS", "2S", "3S", "4S"], ["AS", "4S", "6S", "9S"]]


def test_eram_offers_maximal_plans_largest_first():
    # ERAM R2.8: 10 on A 2 3 4 6 9. Groups summing to 10: A+9, 4+6, A+2+3+4, A+3+6.
    # Maximal disjoint sets: {A,9,4,6}, {A,2,3,4}, {A,3,6} (2, 4, 9 left: no group);
    # {A,9} alone is not maximal (4+6 extends it). Largest first, ties in card order (R8.1).
    o = plans(ERAM, "AS 2S 3S 4S 6S 9S", "TD")
    assert takes(o) == [["AS", "2S", "3S", "4S"], ["AS", "4S", "6S", "9S"], ["AS", "3S", "6S"]]
    assert [p.id for p in o.plans] == [1, 2, 3]
    # 10 on 2 8 5 5: {2,8,5,5} is all; on 2 8 3 7 5 ERAM also 1 plan
    o = plans(ERAM, "2S 8H 3D 4C 6S", "TD")
    # maximal: {2,8}+? 4+6 -> {2,8,4,6} (4 cards); {3,... } 3+7 none; {2,4,...}: 2+4+... no 4:
    # groups summing 10 here: 2+8, 4+6, 2+8 & 4+6 together; 3 never fits. One plan.
    assert takes(o) == [["2S", "4C", "6S", "8H"]]


def test_eram_smaller_maximal_plan_is_offered_after_larger():
    # 9 on A 8 4 5 3 6: groups 1+8, 4+5, 3+6, 1+3+5, 4+5 ... maximal sets:
    # {1,8,4,5,3,6} (all 6): one plan covering everything -> only that plan
    o = plans(ERAM, "AS 8S 4S 5S 3S 6S", "9D")
    assert takes(o) == [["AS", "3S", "4S", "5S", "6S", "8S"]]
    # 6 on A 5 2 4 3: groups 1+5, 2+4, 1+2+3, 3+... maximal: {1,5,2,4} and {1,2,3} cannot be
    # extended (remaining 4,5: no 6) -> two plans, 4 cards first
    o = plans(ERAM, "AS 5S 2S 4S 3S", "6D")
    assert takes(o) == [["AS", "2S", "4S", "5S"], ["AS", "2S", "3S"]]
    # Classic offers only the largest haul
    assert takes(plans(CLASSIC, "AS 5S 2S 4S 3S", "6D")) == [["AS", "2S", "4S", "5S"]]


def test_eram_at_most_12_plans():
    # 10 on four As, three 9s, four 2s, three 8s: 3 of 4 As x 3 of 4 2s = 16 maximum sets
    floor = "AS AH AD AC 9S 9H 9D 2S 2H 2D 2C 8S 8H 8D"
    o = plans(ERAM, floor, "TD")
    assert len(o.plans) == 12
    assert count_takes(ERAM, floor, "TD") > 12
    sizes = [len(p.takes) for p in o.plans]
    assert sizes == sorted(sizes, reverse=True)
    keys = [
        tuple("A23456789TJQK".index(c[0]) * 4 + "SHDC".index(c[1]) for c in p.takes)
        for p in o.plans
    ]
    assert keys == sorted(keys, key=lambda k: (-len(k), k))


def test_pathological_floor_is_fast_and_correct():
    # 18 cards of A-5 with a 10 played (the worst case)
    floor = [r + s for r in "A2345" for s in "SHDC"][:18]
    o = plans(CLASSIC, floor, "TD", limit=12)
    # counts: A4 2x4 3x4 4x4 5x2 -> sum 4+8+12+16+10 = 50 = five 10s; all 18 fit? 18 cards in 5
    # groups needs e.g. 1+2+3+4 (x4) = 16 cards + 5+5 = 18: yes, the whole floor in one plan
    assert len(o.plans) == 1 and len(o.plans[0].takes) == 18
    assert o.plans[0].basra_points == 10


def test_is_legal_take_checks_maximality():
    fl = ("2S", "8H", "3D", "7C", "5S")
    assert is_legal_take(CLASSIC, fl, "TD", ("2S", "8H", "3D", "7C"))
    assert not is_legal_take(CLASSIC, fl, "TD", ("2S", "8H"))  # too few (R2.8)
    assert not is_legal_take(CLASSIC, fl, "TD", ("2S", "8H", "5S"))  # 5 is no group
    assert not is_legal_take(CLASSIC, ("9C", "5H", "4S"), "9D", ("4S", "5H"))  # rank match left


def test_plans_rejects_bad_input():
    with pytest.raises(CardError, match="already on the floor"):
        plans(CLASSIC, "9D 5H", "9D")
    with pytest.raises(CardError, match="duplicate card 5H"):
        plans(CLASSIC, "5H 5H", "9D")


def test_iter_takes_is_lazy_on_a_40_card_floor():
    from engine.cards import FULL_DECK

    floor = [c for c in FULL_DECK if c != "TD"][:40]
    first = next(iter_takes(ERAM, floor, "TD"))
    assert len(first) >= 30
