"""Referee verdicts for observed turns (RULES.md R7, R8.10) and match-state fouls."""

import pytest

from engine.captures import Play
from engine.match import Match
from engine.referee import JudgeError, judge
from engine.rules import CLASSIC, ERAM, LEBANESE


def test_legal_capture_verdict():
    v = judge(CLASSIC, "9C 5H 4S KD", "9D", "KD")
    assert v.to_dict() == {
        "verdict": "capture",
        "foul": None,
        "takes": ["4S", "5H", "9C"],
        "basra": False,
        "basra_points": 0,
        "legal": [["4S", "5H", "9C"]],
    }


def test_basra_is_a_flag_not_a_verdict_r8_10():
    v = judge(CLASSIC, "4S 6C", "TD", "")
    assert (v.verdict, v.basra, v.basra_points) == ("capture", True, 10)


def test_sweep_and_trail_verdicts():
    assert judge(CLASSIC, "9C 5H", "JD", "").verdict == "sweep"
    v = judge(CLASSIC, "9C 8H", "3D", "9C 8H 3D")
    assert (v.verdict, v.foul, v.takes, v.legal) == ("trail", None, (), ())
    assert judge(CLASSIC, "", "JD", "JD").verdict == "trail"  # R2.5


def test_missed_capture_lists_the_legal_captures():
    v = judge(CLASSIC, "9C 5H 4S KD", "9D", "9C 5H 4S KD 9D")
    assert (v.verdict, v.foul) == ("foul", "missed_capture")
    assert v.legal == (("4S", "5H", "9C"),) and v.basra is False


def test_wrong_capture_too_few_too_many_wrong_cards():
    # too few: the largest haul is 2+8 and 3+7 (R2.8)
    v = judge(CLASSIC, "2S 8H 3D 7C 5S", "TD", "3D 7C 5S")
    assert (v.foul, v.takes) == ("wrong_capture", ("2S", "8H"))
    assert v.legal == (("2S", "3D", "7C", "8H"),)
    # too many: the 5 is no part of a group
    assert judge(CLASSIC, "2S 8H 5S", "TD", "").foul == "wrong_capture"
    # wrong cards: K taken by a 9
    assert judge(CLASSIC, "9C KD", "9D", "").foul == "wrong_capture"
    # R8.10: the played card vanished with nothing taken
    v = judge(CLASSIC, "9C 8H", "3D", "9C 8H")
    assert (v.foul, v.takes) == ("wrong_capture", ())
    # cards taken while the played card was left on the floor
    assert judge(CLASSIC, "9C 5H 4S", "9D", "9D").foul == "wrong_capture"


def test_eram_any_offered_plan_is_legal_others_are_not():
    # plans: {A,2,3,4}, {A,4,6,9}, {A,3,6} (see test_engine_captures)
    assert judge(ERAM, "AS 2S 3S 4S 6S 9S", "TD", "2S 4S 9S").verdict == "capture"
    assert judge(CLASSIC, "AS 2S 3S 4S 6S 9S", "TD", "2S 4S 9S").foul == "wrong_capture"
    assert judge(ERAM, "AS 2S 3S 4S 6S 9S", "TD", "2S 3S 4S 6S").foul == "wrong_capture"


def test_lebanese_b_basra_needs_history():
    v = judge(LEBANESE, "4S 6C", "TD", "", history=[Play(("4S",), "6C")])
    assert v.basra and v.basra_points == 10
    assert not judge(LEBANESE, "4S 6C", "TD", "").basra


def test_bad_observations_are_errors_r8_10():
    with pytest.raises(JudgeError, match="the played card 9C was already on the floor"):
        judge(CLASSIC, "9C 5H", "9C", "5H")
    with pytest.raises(JudgeError, match="not there before: QS"):
        judge(CLASSIC, "9C 5H", "9D", "QS")
    with pytest.raises(JudgeError, match="unknown card"):
        judge(CLASSIC, "9C 5X", "9D", "")


def test_match_judge_turn_out_of_turn_and_duplicate():
    m = Match(CLASSIC, players=2, dealer=0)
    m.start_round(floor=["9C", "5H", "4S", "KD"])
    assert m.judge_turn(1, "9D", ["KD"]).verdict == "capture"
    assert m.judge_turn(0, "9D", ["KD"]).foul == "out_of_turn"  # seat 1 is to play
    m.play("9D")  # seat 1 takes 4S 5H 9C
    m.play("2S")  # seat 0 trails
    # 9D was already played this round: a duplicate card (R7)
    assert m.judge_turn(1, "9D", ["2S", "KD"]).foul == "duplicate_card"
    # a captured card (5H) appears on the floor again
    assert m.judge_turn(1, "3D", ["2S", "KD", "3D", "5H"]).foul == "duplicate_card"
    with pytest.raises(JudgeError, match="not there before: QS"):
        m.judge_turn(1, "3D", ["2S", "KD", "3D", "QS"])
    before = (m.floor, m.plays_in_round, m.to_play)
    m.judge_turn(1, "3D", ["2S", "KD", "3D"])
    assert (m.floor, m.plays_in_round, m.to_play) == before  # judging changes nothing
