"""Turn inference and refereeing on settled floor snapshots (RULES.md R1.3, R2, R3, R7).

Snapshots are written by hand here (what a perfect tracker would settle on), so each test
checks the controller's logic with values worked out from the rules.
"""

from __future__ import annotations

import pytest

from controller.events import CARD_LAID, FOUL, PROMPT, ROUND_STARTED, SCORE, TURN
from controller.table import Table
from controller.table_state import replay
from controller.turns import Snapshot


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def snap(self, cards: str) -> Snapshot:
        self.t += 1.0
        return Snapshot(self.t, frozenset(cards.split()))


def shown(events: list) -> str:
    """The card a view showed after a "show the card" prompt: the one event the view caused
    is a `card_laid` marked shown (its turn comes as it goes back; a restarted table waits
    for it too)."""
    (e,) = events
    assert e.type == CARD_LAID and e.data["shown"] is True
    return e.data["card"]


def make(variant: str = "classic", players: int = 2, dealer: int = 0) -> Table:
    """A new table whose events are also kept in `table.log` (as the store keeps them)."""
    log: list = []
    table = Table(variant, players, dealer, subscribers=[log.append])
    table.log = log
    return table


def table_events(table: Table) -> list:
    return table.log


def dealt(variant: str = "classic", floor: str = "9C 5H 4S KD", players: int = 2, dealer: int = 0):
    """A table whose first round started with `floor`; seat dealer+1 plays first (R1.5)."""
    table = make(variant, players, dealer)
    clock = Clock()
    events = table.feed_snapshot(clock.snap(floor))
    assert [e.type for e in events] == [ROUND_STARTED]
    return table, clock


def types(events) -> list[str]:
    return [e.type for e in events]


def test_capture_is_judged_after_the_scoop_r2_2():
    table, clock = dealt()
    # R2.2: 9 on 9 5 4 K takes 9, 5+4; K stays. The card lies alone first: no verdict yet.
    (laid,) = table.feed_snapshot(clock.snap("9C 5H 4S KD 9D"))
    assert laid.type == CARD_LAID and laid.data["card"] == "9D"
    assert table.state.turns() == []
    (turn,) = table.feed_snapshot(clock.snap("KD"))
    assert turn.type == TURN
    assert turn.data["seat"] == 1
    assert turn.data["verdict"] == "capture"
    assert turn.data["takes"] == ["4S", "5H", "9C"]
    assert turn.data["basra"] is False
    assert table.state.floor == ("KD",)
    assert table.state.to_play == 0


def test_a_card_that_cannot_capture_is_a_trail_at_once_r2_7():
    table, clock = dealt()
    (turn,) = table.feed_snapshot(clock.snap("9C 5H 4S KD QH"))  # no Q on the floor (R2.3)
    assert turn.data["verdict"] == "trail"
    assert turn.data["card"] == "QH"
    assert table.state.floor == ("4S", "5H", "9C", "QH", "KD")


def test_missed_capture_is_held_for_the_referee_and_score_unchanged_r7():
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD 9D"))
    # The next player lays 2H while 9D still lies there: 9D trailed though it could capture.
    events = table.feed_snapshot(clock.snap("9C 5H 4S KD 9D 2H"))
    assert types(events) == [FOUL, TURN]
    foul, trail = events
    assert foul.data["foul"] == "missed_capture"
    assert foul.data["status"] == "pending"
    assert foul.data["legal"] == [["4S", "5H", "9C"]]
    assert trail.data["card"] == "2H" and trail.data["verdict"] == "trail"
    assert table.result()["fouls"] == [
        {"round": 0, "play": 0, "card": "9D", "kind": "missed_capture"}
    ]
    assert table.state.live_totals == [0, 0]
    assert [p["type"] for p in table.state.pending()] == ["foul"]


def test_wrong_capture_too_few_cards_r2_8():
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD 9D"))
    (foul,) = table.feed_snapshot(clock.snap("5H 4S KD"))  # took only the 9C: not the haul
    assert foul.type == FOUL
    assert foul.data["foul"] == "wrong_capture"
    assert foul.data["takes"] == ["9C"]
    # After a foul the game goes on from the floor as it physically is (DESIGN conventions).
    assert table.state.floor == ("4S", "5H", "KD")
    assert table.state.to_play == 0


def test_fast_scoop_prompts_to_show_the_card_never_guesses():
    table, clock = dealt()
    (prompt,) = table.feed_snapshot(clock.snap("KD"))  # cards left, the 9D was never seen
    assert prompt.type == PROMPT
    assert prompt.data["kind"] == "show_card"
    assert prompt.data["seat"] == 1
    assert table.state.turns() == []  # no verdict yet: nothing guessed
    # the player shows the card; it is the card played once it goes back to its owner
    assert shown(table.feed_snapshot(clock.snap("KD 9D"))) == "9D"
    (turn,) = table.feed_snapshot(clock.snap("KD"))
    assert turn.data["card"] == "9D"
    assert turn.data["verdict"] == "capture"
    assert turn.data["takes"] == ["4S", "5H", "9C"]
    assert turn.data["prompt"] == prompt.id
    assert turn.data["t_landed"] == clock.t - 1  # when it was shown
    assert table.state.pending() == []
    (nxt,) = table.feed_snapshot(clock.snap("KD QS"))
    assert nxt.data["seat"] == 0 and nxt.data["verdict"] == "trail"


def test_initial_floor_with_a_jack_prompts_the_dealer_r1_3():
    table = make("classic", 2, 1)
    clock = Clock()
    (prompt,) = table.feed_snapshot(clock.snap("JC 3H 5S 8D"))
    assert prompt.data["kind"] == "misdeal_fix"
    assert prompt.data["cards"] == ["JC"]
    assert prompt.data["seat"] == 1  # the dealer fixes it
    assert table.feed_snapshot(clock.snap("3H 5S 8D")) == []  # J taken back: not a capture
    (started,) = table.feed_snapshot(clock.snap("3H 5S 8D 2C"))
    assert started.type == ROUND_STARTED
    assert started.data["floor"] == ["2C", "3H", "5S", "8D"]
    assert table.state.pending() == []
    assert table.state.fouls() == []
    assert table.state.to_play == 0  # the player after dealer 1


@pytest.mark.parametrize("variant, players", [("classic", 2), ("lebanese", 3), ("classic", 4)])
def test_a_jack_misread_that_the_dealer_takes_back_is_replaced_in_the_deal_r1_3(variant, players):
    # The dealer (seat 0) laid a JC that the camera read QC: the round started on it, no
    # prompt. Before the first play the dealer's arm takes it back to the deck and lays the
    # 2C in its place (R1.3): the deal is corrected, no play is counted, nobody is asked.
    table = make(variant, players, 0)
    clock = Clock()
    (started,) = table.feed_snapshot(clock.snap("QC 3H 5S 8D"))
    assert started.type == ROUND_STARTED
    back = clock.snap("3H 5S 8D")
    assert table.feed_snapshot(Snapshot(back.t, back.floor, arms=((0, 0.3),))) == []
    (fixed,) = table.feed_snapshot(clock.snap("3H 5S 8D 2C"))
    assert fixed.type == "referee" and fixed.data["action"] == "correct"
    assert fixed.data["target"] == started.id
    assert fixed.data["payload"]["was"] == "QC" and fixed.data["payload"]["card"] == "2C"
    assert fixed.data["payload"]["by"] == "camera"
    assert table.state.floor == ("2C", "3H", "5S", "8D")
    assert sorted(table.state.current_round.floor) == ["2C", "3H", "5S", "8D"]
    assert table.state.pending() == [] and table.state.turns() == []
    assert table.state.to_play == 1  # still the player after the dealer (R1.5)
    # the 2C lies there: seat 1's 2D takes it (R2.3), nothing else
    (laid,) = table.feed_snapshot(clock.snap("3H 5S 8D 2C 2D"))
    assert laid.data["seat"] == 1
    (turn,) = table.feed_snapshot(clock.snap("3H 5S 8D"))
    assert (turn.data["verdict"], turn.data["takes"]) == ("capture", ["2C"])
    assert replay(table_events(table)).to_dict() == table.state.to_dict()


def test_a_restarted_table_keeps_the_dealers_replacements_read_for_the_rounds_end_r1_3():
    # The same fix, the 2C laid in the JC's place read doubtfully (2C 0.6, 2D 0.3): the
    # correction logs that read, so a table restarted after it remembers the replacement's
    # read, as the live one does, for naming held plays at the round's end (R1.1, R8.7),
    # and forgets the QC's.
    table = make("classic", 2, 0)
    clock = Clock()
    table.feed_snapshot(clock.snap("QC 3H 5S 8D"))
    back = clock.snap("3H 5S 8D")
    table.feed_snapshot(Snapshot(back.t, back.floor, arms=((0, 0.3),)))
    laid = clock.snap("3H 5S 8D 2C")
    read = (("2C", 0.6), ("2D", 0.3))
    (fixed,) = table.feed_snapshot(Snapshot(laid.t, laid.floor, readings=(("2C", read),)))
    assert fixed.data["payload"]["reading"] == [["2C", 0.6], ["2D", 0.3]]
    resumed = Table(events=list(table_events(table)))
    for t in (table, resumed):
        assert {c: r for c, r in t._dealt_readings.items() if r} == {"2C": read}


def test_a_dealt_card_taken_by_the_seat_to_play_is_a_play_not_a_deal_fix_r1_3_r7():
    # The same view, the arm from the seat to play's edge: its card was laid and scooped
    # unseen (a capture): the player is asked to show it, as ever.
    table, clock = dealt(floor="QC 3H 5S 8D")
    back = clock.snap("3H 5S 8D")
    (prompt,) = table.feed_snapshot(Snapshot(back.t, back.floor, arms=((1, 0.3),)))
    assert prompt.data["kind"] == "show_card" and prompt.data["seat"] == 1


def test_a_dealt_card_laid_back_changes_nothing_and_the_deal_may_still_be_fixed_r1_3():
    # (a dealer straightening the deal: the camera reads the card gone a moment)
    table, clock = dealt(floor="QC 3H 5S 8D")
    lifted = clock.snap("3H 5S 8D")
    assert table.feed_snapshot(Snapshot(lifted.t, lifted.floor, arms=((0, 0.3),))) == []
    assert table.feed_snapshot(clock.snap("QC 3H 5S 8D")) == []
    assert table.state.floor == ("3H", "5S", "8D", "QC")
    assert table.state.to_play == 1
    # ... and it may still take a card back and replace it before the first play (R1.3)
    back = clock.snap("QC 5S 8D")
    assert table.feed_snapshot(Snapshot(back.t, back.floor, arms=((0, 0.3),))) == []
    (fixed,) = table.feed_snapshot(clock.snap("QC 5S 8D 4H"))
    assert fixed.data["payload"]["was"] == "3H" and fixed.data["payload"]["card"] == "4H"
    (turn,) = table.feed_snapshot(clock.snap("QC 4H 5S 8D KD"))
    assert (turn.data["seat"], turn.data["verdict"]) == (1, "trail")


def test_seven_of_diamonds_on_the_first_floor_classic_and_lebanese_v3():
    table = make("classic", 2, 0)
    (prompt,) = table.feed_snapshot(Snapshot(1.0, frozenset({"7D", "3H", "5S", "8D"})))
    assert prompt.data["kind"] == "misdeal_fix" and prompt.data["cards"] == ["7D"]
    leb = make("lebanese", 2, 0)
    (started,) = leb.feed_snapshot(Snapshot(1.0, frozenset({"7D", "3H", "5S", "8D"})))
    assert started.type == ROUND_STARTED  # V3: only a J goes back


def test_a_basra_is_scored_live_r3_1_r3_4():
    table, clock = dealt(floor="AH 2S 3D 4C")
    table.feed_snapshot(clock.snap("AH 2S 3D 4C TD"))
    events = table.feed_snapshot(clock.snap(""))
    assert types(events) == [TURN, SCORE]
    assert events[0].data["basra"] is True and events[0].data["basra_points"] == 10
    assert events[1].data["totals"] == [0, 10]  # seat 1 scored; shown now, not at round end
    assert table.state.live_totals == [0, 10]


def test_four_players_seats_and_teams_r1_1():
    table, clock = dealt(floor="AH 2S 3D 4C", players=4, dealer=3)
    assert table.state.to_play == 0
    table.feed_snapshot(clock.snap("AH 2S 3D 4C TD"))
    events = table.feed_snapshot(clock.snap(""))
    assert events[0].data["seat"] == 0
    assert events[1].data["totals"] == [10, 0]  # seats 0 and 2 are side 0
    assert table.state.to_play == 1


def test_referee_undo_restores_the_floor_and_turn():
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD 9D"))
    (turn,) = table.feed_snapshot(clock.snap("KD"))
    table.referee("undo", turn.id)
    assert table.state.floor == ("4S", "5H", "9C", "KD")
    assert table.state.to_play == 1
    assert table.state.turns()[0].status == "undone"
    # The players put the cards back and replay the turn as a trail of a different card.
    assert table.feed_snapshot(clock.snap("9C 5H 4S KD")) == []
    (again,) = table.feed_snapshot(clock.snap("9C 5H 4S KD QH"))
    assert again.data["seat"] == 1 and again.data["verdict"] == "trail"
    assert replay(table_events(table)).to_dict() == table.state.to_dict()


def test_referee_corrects_a_misread_card_and_the_turn_is_rejudged():
    table, clock = dealt(floor="7C 3H KD 6S")
    table.feed_snapshot(clock.snap("7C 3H KD 6S 7D"))  # read as 7D (it was the 7H)
    (foul,) = table.feed_snapshot(clock.snap("3H KD 6S"))
    assert foul.data["foul"] == "wrong_capture"  # a 7D sweeps (R2.4): taking 7C alone is wrong
    table.referee("correct", foul.id, {"card": "7H"})
    (tr,) = table.state.turns()
    assert (tr.card, tr.verdict, tr.takes, tr.status) == ("7H", "capture", ("7C",), "ok")
    assert table.state.fouls() == []
    assert replay(table_events(table)).to_dict() == table.state.to_dict()


def test_accept_and_reject_foul_are_recorded_and_keep_the_physical_floor():
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD 9D"))
    (foul,) = table.feed_snapshot(clock.snap("5H 4S KD"))
    table.referee("accept_foul", foul.id)
    assert table.state.fouls()[0]["status"] == "accepted"
    assert table.state.pending() == []
    assert table.state.floor == ("4S", "5H", "KD")
    table.referee("reject_foul", foul.id)
    assert table.state.fouls()[0]["status"] == "rejected"


def test_bad_referee_requests_change_nothing():
    from controller.errors import UserError

    table, clock = dealt()
    before = table.state.to_dict()
    with pytest.raises(UserError, match="no turn"):
        table.referee("accept_foul", 999)
    with pytest.raises(UserError, match="no turn to undo"):
        table.referee("undo")
    assert table.state.to_dict() == before
    assert [e.type for e in table_events(table)] == ["match_started", ROUND_STARTED]


def test_replay_rejects_ids_out_of_order():
    from controller.table_state import ReplayError

    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD QH"))
    events = table_events(table)
    with pytest.raises(ReplayError, match="ids must increase"):
        replay([events[0], events[1], events[2], events[1]])


def test_cards_from_nowhere_prompt_and_keep_the_floor():
    table, clock = dealt()
    # two cards at once, and the 9D would have taken the 9C (R2.6) in either order: no two
    # plays explain it
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H 4S KD QH 9D"))
    assert prompt.data["kind"] == "unreadable"
    assert "9D" in prompt.data["text"] and "QH" in prompt.data["text"]
    assert table.state.floor == ("4S", "5H", "9C", "KD")
    # a read that came and went: the floor as it was, nothing played
    assert table.feed_snapshot(clock.snap("9C 5H 4S KD")) == []
    (turn,) = table.feed_snapshot(clock.snap("9C 5H 4S KD QS"))
    assert (turn.data["card"], turn.data["seat"], turn.data["verdict"]) == ("QS", 1, "trail")


def test_two_trails_seen_in_one_view_are_both_judged_and_marked_doubtful_r2_7():
    # QH and 2D came between two settled views. Neither takes anything in either order (no
    # Q, no 2, no pair summing to 2): two trails, seat 1 then seat 0 (R1.5), order inferred.
    table, clock = dealt()
    first, second = table.feed_snapshot(clock.snap("9C 5H 4S KD QH 2D"))
    assert [(e.data["card"], e.data["seat"], e.data["verdict"]) for e in (first, second)] == [
        ("2D", 1, "trail"),
        ("QH", 0, "trail"),
    ]
    assert first.data["doubtful"] and second.data["doubtful"]
    assert table.state.floor == ("2D", "4S", "5H", "9C", "QH", "KD")
    assert table.state.to_play == 1


def test_the_table_goes_on_from_a_floor_no_play_explained_once_play_builds_on_it_r7():
    # Plays the camera missed (the 9C and 5H taken, a QH and a 2C laid) in one view: no
    # single play explains it, the referee is told. Then a 4H is laid on that floor: the
    # floor seen was real; the table goes on from it (the 4H takes the 4S, R2.2; 2C + 2 is
    # no pair) instead of prompting at every later view.
    table, clock = dealt()
    (prompt,) = table.feed_snapshot(clock.snap("4S KD QH 2C"))
    assert prompt.data["kind"] == "unreadable"
    laid = table.feed_snapshot(clock.snap("4S KD QH 2C 4H"))
    assert [e.type for e in laid] == [CARD_LAID]
    (turn,) = table.feed_snapshot(clock.snap("KD QH 2C"))
    assert (turn.data["card"], turn.data["verdict"], turn.data["takes"]) == (
        "4H",
        "capture",
        ["4S"],
    )
    assert turn.data["floor_before"] == ["2C", "4S", "QH", "KD"]
    assert table.state.floor == ("2C", "QH", "KD")


def test_a_card_missed_for_a_moment_is_no_turn():
    table, clock = dealt()
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H KD"))  # the 4S was not seen once
    assert prompt.data["kind"] == "show_card"
    (note,) = table.feed_snapshot(clock.snap("9C 5H 4S KD"))  # ... and is there again
    assert note.data["closes"] == prompt.id
    assert table.state.pending() == [] and table.state.turns() == []
    (turn,) = table.feed_snapshot(clock.snap("9C 5H 4S KD QH"))
    assert turn.data["verdict"] == "trail" and turn.data["seat"] == 1


def test_shown_card_taken_back_while_the_next_card_lands():
    table, clock = dealt()
    table.feed_snapshot(clock.snap("KD"))  # fast scoop: prompt
    assert shown(table.feed_snapshot(clock.snap("KD 9D"))) == "9D"  # shown
    turn, nxt = table.feed_snapshot(clock.snap("KD QS"))  # 9D back in the pile, QS laid
    assert turn.data["card"] == "9D" and turn.data["seat"] == 1
    assert nxt.data["card"] == "QS" and nxt.data["seat"] == 0


def test_a_card_laid_after_an_unseen_capture_is_the_next_play_not_the_card_shown_r7():
    # Seat 1 took 9C, 5H and 4S with a card the camera never saw (laid on them, scooped), and
    # did not show it. Seat 0's QS lands and stays; seat 1's 3D follows: the QS was a trail,
    # never a shown card. The unseen capture is held for the referee with its card unknown
    # (R7 unreadable), each seat plays in turn, and the referee names the card (9D: a
    # capture of 9C and 5H+4S, R2.2), which settles the turn.
    table, clock = dealt()
    (prompt,) = table.feed_snapshot(clock.snap("KD"))
    assert prompt.data["kind"] == "show_card"
    assert shown(table.feed_snapshot(clock.snap("KD QS"))) == "QS"
    held, qs, d3 = table.feed_snapshot(clock.snap("KD QS 3D"))
    assert held.type == FOUL and held.data["card"] is None
    assert held.data["verdict"] == "unreadable" and held.data["seat"] == 1
    assert held.data["floor_after"] == ["KD"] and "4S 5H 9C left the floor" in held.data["reason"]
    assert (qs.data["card"], qs.data["seat"], qs.data["verdict"]) == ("QS", 0, "trail")
    assert (d3.data["card"], d3.data["seat"], d3.data["verdict"]) == ("3D", 1, "trail")
    assert table.state.floor == ("3D", "QS", "KD")
    assert not [p for p in table.state.prompts if p.open]  # the prompt is answered by it
    # meanwhile the cards taken are seat 1's (the unknown card with them)
    assert table.state.match.captured(1) == ("4S", "5H", "9C")
    table.referee("correct", held.id, {"card": "9D"})
    fixed = next(tr for tr in table.state.turns() if tr.event_id == held.id)
    assert (fixed.card, fixed.verdict, fixed.takes) == ("9D", "capture", ("4S", "5H", "9C"))
    assert table.state.pending() == []
    assert table.state.match.captured(1) == ("4S", "5H", "9D", "9C")
    assert replay(table_events(table)).to_dict() == table.state.to_dict()
    record = table.state.match.export(include_current=True)
    assert record["rounds"][0]["plays"][0] == "9D"


def test_play_goes_on_when_more_cards_leave_before_anyone_shows_a_card_r7():
    # Seat 1 took the KD with a card the camera never saw: "show the card". Nobody shows
    # one; seat 0 takes the 4S the same way (laid and scooped at once). The first play is
    # held for the referee with its card unknown (R7 unreadable), seat 0 is asked in turn,
    # shows the 4H and takes it back: a capture of the 4S (R2.3). Play goes on from there -
    # the table is not left waiting for the first card for the rest of the round.
    table, clock = dealt()
    (first,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert (first.data["kind"], first.data["seat"]) == ("show_card", 1)
    held, second = table.feed_snapshot(clock.snap("9C 5H"))
    assert (held.type, held.data["card"], held.data["seat"]) == (FOUL, None, 1)
    assert held.data["verdict"] == "unreadable" and held.data["floor_after"] == ["4S", "5H", "9C"]
    assert (second.data["kind"], second.data["seat"]) == ("show_card", 0)
    assert shown(table.feed_snapshot(clock.snap("9C 5H 4H"))) == "4H"  # shown
    (turn,) = table.feed_snapshot(clock.snap("9C 5H"))  # taken back
    assert (turn.data["card"], turn.data["seat"], turn.data["verdict"]) == ("4H", 0, "capture")
    assert turn.data["takes"] == ["4S"]
    (trail,) = table.feed_snapshot(clock.snap("9C 5H 2D"))
    assert (trail.data["card"], trail.data["seat"], trail.data["verdict"]) == ("2D", 1, "trail")
    assert table.state.match.captured(1) == ("KD",)  # the unknown card's, meanwhile
    assert replay(table_events(table)).to_dict() == table.state.to_dict()


def test_a_capture_scooped_in_two_motions_is_one_play_r2_2_r7():
    # Seat 1 takes 9C, then 5H+4S, with one card the camera never saw (R2.2: a 9 takes the
    # 9C and 5+4), scooping in two motions: "show the card" after the first; the second
    # leaves a floor one card takes from the first (a 9 in play): the same play, not
    # another player's. Seat 1 shows the 9D: a capture of 9C 5H 4S.
    table, clock = dealt()
    (prompt,) = table.feed_snapshot(clock.snap("5H 4S KD"))
    assert (prompt.data["kind"], prompt.data["seat"]) == ("show_card", 1)
    assert table.feed_snapshot(clock.snap("KD")) == []  # still that play
    assert shown(table.feed_snapshot(clock.snap("KD 9D"))) == "9D"  # shown
    (turn,) = table.feed_snapshot(clock.snap("KD"))
    assert (turn.data["card"], turn.data["seat"], turn.data["verdict"]) == ("9D", 1, "capture")
    assert sorted(turn.data["takes"]) == ["4S", "5H", "9C"]
    assert not [e for e in table_events(table) if e.type == FOUL]


def test_the_scoreboard_shows_a_basra_at_once_r3_4(caplog):
    """Through the real bridge and its text board (the firmware protocol, ACKed frames)."""
    import logging

    from firmware_bridge.bridge import ScoreboardBridge
    from firmware_bridge.display import DisplayState, announce_cells, render_text
    from firmware_bridge.glyphs import cells_text

    caplog.set_level(logging.INFO, logger="firmware_bridge.text")
    bridge = ScoreboardBridge("text://").start()
    try:
        table = Table("classic", 2, 0, bridge=bridge)
        clock = Clock()
        table.feed_snapshot(clock.snap("AH 2S 3D 4C"))
        table.feed_snapshot(clock.snap("AH 2S 3D 4C TD"))
        table.feed_snapshot(clock.snap(""))
        assert bridge.wait_synced(3.0)
        # Side 1 (seat 1) scored 10; seat 0 is to play: the decimal point after side 0.
        assert bridge.display_text() == render_text(DisplayState(0, 10, turn=0))
        shown = [r.getMessage() for r in caplog.records]
        assert f"scoreboard [{cells_text(announce_cells(1, 'bAsrA'))}]" in shown
    finally:
        bridge.close()


def test_a_turn_read_without_certainty_is_marked_doubtful():
    table, clock = dealt()
    (turn,) = table.feed_snapshot(Snapshot(9.0, frozenset(["9C", "5H", "4S", "KD", "QH"]), 0.3))
    assert turn.data["verdict"] == "trail"
    assert turn.data["doubtful"] is True and turn.data["confidence"] == 0.3
    (sure,) = table.feed_snapshot(
        Snapshot(10.0, frozenset(["9C", "5H", "4S", "KD", "QH", "2D"]), 0.97)
    )
    assert "doubtful" not in sure.data


def test_a_card_laid_after_the_prompt_that_leaves_with_floor_cards_took_them_r2_4():
    # Seat 1 took 9C, 5H, 4S with a card nobody saw and did not show it. Seat 0's JH lands
    # and leaves with the KD: the JH took the floor (R2.4: a J takes the whole floor; no basra in
    # Classic, R3.2), never a shown card. The unseen capture is held (card unknown).
    table, clock = dealt()
    (prompt,) = table.feed_snapshot(clock.snap("KD"))
    assert prompt.data["kind"] == "show_card"
    assert shown(table.feed_snapshot(clock.snap("KD JH"))) == "JH"
    events = table.feed_snapshot(clock.snap(""))
    held, jack = [e for e in events if e.type in (TURN, FOUL)]
    assert (held.data["card"], held.data["seat"], held.data["verdict"]) == (None, 1, "unreadable")
    assert (jack.data["card"], jack.data["seat"], jack.data["verdict"]) == ("JH", 0, "sweep")
    assert jack.data["takes"] == ["KD"] and not jack.data["basra"]
    assert table.state.floor == () and table.state.to_play == 1


def test_a_trail_and_the_card_that_takes_it_seen_in_one_view_r2_3_r2_7():
    # The floor was swept; seat 1 trails a QD and seat 0 lays a QS on it before the camera
    # settles: one view shows both. The QD takes nothing from the empty floor (R2.7) and a Q
    # takes a Q (R2.3): seat 1's trail (marked doubtful: the order is inferred), then seat
    # 0's QS waits for its scoop, which takes the QD: the floor cleared by a Q, a basra (R3.1).
    # Before, that view was "unexpected QD QS" and both plays were lost (the seats out of
    # step for the rest of the round).
    table, clock = dealt(floor="9C 5H 4S 2D")
    (jack,) = table.feed_snapshot(clock.snap("9C 5H 4S 2D JC"))
    table.feed_snapshot(clock.snap(""))  # seat 1's JC takes the whole floor (R2.4)
    trail, laid = table.feed_snapshot(clock.snap("QD QS"))
    assert (trail.type, trail.data["card"], trail.data["seat"], trail.data["verdict"]) == (
        TURN, "QD", 0, "trail"
    )  # fmt: skip
    assert trail.data["doubtful"] is True
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "QS", 1)
    capture, score = table.feed_snapshot(clock.snap(""))
    assert (capture.data["card"], capture.data["seat"], capture.data["takes"]) == (
        "QS", 1, ["QD"]
    )  # fmt: skip
    assert capture.data["basra"] is True and score.type == SCORE
    assert table.state.to_play == 0
    assert replay(table_events(table)).to_dict() == table.state.to_dict()


def test_the_card_read_faintly_before_is_the_trail_of_the_two_r2_3():
    # As above, but the view before showed one card read faintly as QS (0.6): it came first,
    # so seat 0 trailed the QS and seat 1's QD takes it.
    table, clock = dealt(floor="9C 5H 4S 2D")
    table.feed_snapshot(clock.snap("9C 5H 4S 2D JC"))
    table.feed_snapshot(clock.snap(""))
    snap = clock.snap("")
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=(("QS", 0.6), ("KS", 0.2))))
    trail, laid = table.feed_snapshot(clock.snap("QD QS"))
    assert (trail.data["card"], trail.data["seat"], laid.data["card"]) == ("QS", 0, "QD")


@pytest.mark.parametrize("last", [False, True])
def test_a_trail_gathered_with_the_floor_at_the_rounds_end_is_no_capture_r3_5(last):
    # A QC is judged a trail on 9C 5D (a Q takes only a Q, R2.3). Then the floor is cleared
    # by the QC's own player's arm (the seat before the one to play), nothing else seen: the
    # QC made a capture its read cannot make, and its trail is taken back to be held. But
    # when the next play is the round's 48th (R8.7), that card may have come unseen and the
    # last capturer gathered the floor after it (R3.5): the turns ask, as for any unseen play.
    from controller.turns import ShowCardPrompt, TrailScooped, TurnTracker

    tt = TurnTracker(
        lambda floor, card: False,
        lambda card: False,
        reached=lambda arms: 1,  # two players: the seat before the one to play
        last_play=lambda: last,
    )
    tt.set_floor(frozenset({"9C", "5D"}))
    (trail,) = tt.step(Snapshot(1.0, frozenset({"9C", "5D", "QC"})))
    assert (trail.card, trail.floor_after) == ("QC", frozenset({"9C", "5D", "QC"}))
    (intent,) = tt.step(Snapshot(2.0, frozenset(), arms=((1, 6),)))
    if last:
        assert isinstance(intent, ShowCardPrompt)
    else:
        assert isinstance(intent, TrailScooped)
        assert (intent.read_as, intent.floor_before, intent.floor_after) == (
            "QC", frozenset({"9C", "5D"}), frozenset()
        )  # fmt: skip
        assert tt.floor == frozenset()


def _doubtful_six(clock: Clock, arm_seat: int) -> tuple[Snapshot, Snapshot]:
    """Seat 1 lays a 6H read doubtfully (0.3 sure; 6H 0.60, and its runner-up TH 0.31 would
    take the TS), so its turn waits for the scoop; then the 6H alone leaves, an arm from
    `arm_seat` seen."""
    s = clock.snap("3H 8S TS KD 6H")
    laid = Snapshot(
        s.t, s.floor, confidence=0.3, confidences=(("6H", 0.3),),
        readings=(("6H", (("6H", 0.6), ("TH", 0.31), ("9H", 0.04))),),
    )  # fmt: skip
    s = clock.snap("3H 8S TS KD")
    return laid, Snapshot(s.t, s.floor, arms=((arm_seat, 0.5),))


def test_a_laid_card_lifted_alone_by_the_next_seats_arm_trailed_and_was_taken_r2_7():
    # The next player (seat 0) laid a 6D and scooped it with the 6H between two views: the
    # 6H took nothing (a legal trail, R2.7), and the prompt asks seat 0 for the card that
    # took it (R2.2: a 6 takes the 6H); no foul anywhere.
    table, clock = dealt(floor="3H 8S TS KD")
    laid, lifted = _doubtful_six(clock, arm_seat=0)
    (event,) = table.feed_snapshot(laid)
    assert event.type == CARD_LAID and event.data["card"] == "6H"
    trail, prompt = table.feed_snapshot(lifted)
    assert (trail.type, trail.data["card"], trail.data["seat"], trail.data["verdict"]) == (
        TURN, "6H", 1, "trail"
    )  # fmt: skip
    assert (prompt.type, prompt.data["kind"], prompt.data["seat"]) == (PROMPT, "show_card", 0)
    assert shown(table.feed_snapshot(clock.snap("3H 8S TS KD 6D"))) == "6D"
    (capture,) = table.feed_snapshot(clock.snap("3H 8S TS KD"))
    assert (capture.data["card"], capture.data["seat"], capture.data["takes"]) == (
        "6D", 0, ["6H"]
    )  # fmt: skip
    assert table.state.fouls() == [] and table.state.to_play == 1
    assert replay(table_events(table)).to_dict() == table.state.to_dict()


def test_a_laid_card_lifted_alone_by_its_own_players_arm_is_held_as_a_foul_r7():
    # Its own player took the 6H back with nothing: a capture of nothing, held for the
    # referee (R7), as before.
    table, clock = dealt(floor="3H 8S TS KD")
    laid, lifted = _doubtful_six(clock, arm_seat=1)
    table.feed_snapshot(laid)
    (foul,) = table.feed_snapshot(lifted)
    assert (foul.type, foul.data["card"], foul.data["seat"], foul.data["foul"]) == (
        FOUL, "6H", 1, "wrong_capture"
    )  # fmt: skip


@pytest.mark.parametrize("next_arm, missed", [(2, True), (1, False), (None, False)])
def test_a_seat_that_reached_in_unseen_before_the_next_seat_played_missed_a_play_r1_5_r7(
    next_arm, missed
):
    # Three players (Lebanese), seat 1 to play: seat 1's arm alone reaches in and the view
    # after shows nothing new (its card lies where the camera never read it), then a 7C
    # comes from seat 2's edge. Turns pass in order (R1.5): seat 1 played a card nobody saw.
    # Its turn is held for the referee, card unknown and nothing taken (R7), and the 7C is
    # seat 2's trail; seat 0 plays next. Where the 7C came from seat 1's own edge (it
    # reached in twice), or no arm told, the 7C is seat 1's play, as before.
    table, clock = dealt("lebanese", players=3)
    hover = clock.snap("9C 5H 4S KD")
    assert table.feed_snapshot(Snapshot(hover.t, hover.floor, arms=((1, 0.4),))) == []
    view = clock.snap("9C 5H 4S KD 7C")
    arms = () if next_arm is None else ((next_arm, 0.4),)
    events = [e for e in table.feed_snapshot(Snapshot(view.t, view.floor, arms=arms))]
    if missed:
        held, trail = events
        assert (held.type, held.data["seat"], held.data["card"], held.data["verdict"]) == (
            FOUL, 1, None, "unreadable"
        )  # fmt: skip
        assert held.data["floor_after"] == held.data["floor_before"]  # nothing taken
        assert held.data["t_landed"] == hover.t
        assert "did not see" in held.data["reason"]
    else:
        (trail,) = events
    assert (trail.type, trail.data["card"], trail.data["verdict"]) == (TURN, "7C", "trail")
    assert trail.data["seat"] == (2 if missed else 1)
    assert table.state.to_play == (0 if missed else 2)


def test_a_trail_its_own_player_lifted_alone_took_cards_never_seen_r3_5_r7():
    # Seat 1's QC is judged a trail on 9C 5H 4S KD (a Q takes only a Q, R2.3). Then the QC
    # alone leaves the floor, lifted by seat 1's own arm, nothing else seen leave: it took
    # cards lying where the camera never saw them (a QS laid unseen, say). Its trail is taken
    # back and the play held for the referee, card unknown (R7), as a capture all the same:
    # the card and at least one card it took go to seat 1's pile, and seat 1 is the last
    # capturer, who takes what is left on the floor when the round ends (R3.5).
    table, clock = dealt()
    (trail,) = table.feed_snapshot(clock.snap("9C 5H 4S KD QC"))
    assert (trail.data["card"], trail.data["seat"], trail.data["verdict"]) == ("QC", 1, "trail")
    lifted = clock.snap("9C 5H 4S KD")
    undo, held = table.feed_snapshot(Snapshot(lifted.t, lifted.floor, arms=((1, 0.5),)))
    assert undo.data["action"] == "undo" and undo.data["target"] == trail.id
    assert (held.type, held.data["seat"], held.data["card"], held.data["verdict"]) == (
        FOUL, 1, None, "unreadable"
    )  # fmt: skip
    assert held.data["captured"] is True and "left the floor alone" in held.data["reason"]
    assert table.state.to_play == 0
    score = table.state.match.copy().end_round(short=True)
    assert score.cards == [0, 6]  # the QC and one card it took, then the 4 left (R3.5)
    again = replay(table_events(table)).match.copy().end_round(short=True)
    assert again.cards == [0, 6]  # the log alone tells it (a restarted table)


def _armed(clock: Clock, cards: str, seat: int | None) -> Snapshot:
    """The next view, `seat`'s arm alone seen reaching in over it (None: no arm)."""
    view = clock.snap(cards)
    return Snapshot(view.t, view.floor, arms=() if seat is None else ((seat, 0.4),))


def _qd_laid_unseen(qs_gone: bool = True):
    """Classic, two players, seat 1 first on 9C 5H 4S KD. With `qs_gone`, seat 1 trails the
    QS and seat 0's QH takes it (R2.3). Then seat 1's arm reaches in and nothing new shows
    (its QD lies where the camera never read it), and seat 0's 7C comes from its own edge:
    seat 1's play is held, card unknown (R7), and the 7C is seat 0's trail (R2.7)."""
    table, clock = dealt()
    if qs_gone:
        table.feed_snapshot(_armed(clock, "9C 5H 4S KD QS", 1))
        table.feed_snapshot(_armed(clock, "9C 5H 4S KD QS QH", 0))
        (capture,) = table.feed_snapshot(_armed(clock, "9C 5H 4S KD", 0))
        assert (capture.data["card"], capture.data["takes"]) == ("QH", ["QS"])
    assert table.feed_snapshot(_armed(clock, "9C 5H 4S KD", 1)) == []
    held, trail = table.feed_snapshot(_armed(clock, "9C 5H 4S KD 7C", 0))
    assert (held.type, held.data["seat"], held.data["card"]) == (FOUL, 1, None)
    assert (trail.data["card"], trail.data["seat"], trail.data["verdict"]) == ("7C", 0, "trail")
    return table, clock, held, trail


def test_a_card_laid_unseen_then_read_where_it_lay_names_the_held_play_r2_7_r7():
    # Seat 1's QD is read at last where it lay since (its place unchanged in that view:
    # `placed_before`, the tracker's pixels), beside seat 1's 8S laid in the same view. The
    # QD is no new play: the camera names the held play a QD trail (R2.7), lying in every
    # floor since, so the 7C's trail saw it too; the 8S is seat 1's play, a trail.
    table, clock, held, trail = _qd_laid_unseen(qs_gone=False)
    # (no pixels: what they would say)
    table.turns.placed_before = lambda code, at=None: code == "QD"
    named, eight = table.feed_snapshot(_armed(clock, "9C 5H 4S KD 7C QD 8S", 1))
    assert (named.type, named.data["target"], named.data["payload"]) == (
        "referee", held.id,
        {"card": "QD", "floor_after": ["4S", "5H", "9C", "QD", "KD"], "lay": True, "by": "camera"},
    )  # fmt: skip
    assert (eight.data["card"], eight.data["seat"], eight.data["verdict"]) == ("8S", 1, "trail")
    turns = {tr.event_id: tr for tr in table.state.turns()}
    assert (turns[held.id].card, turns[held.id].verdict) == ("QD", "trail")
    assert "QD" in turns[trail.id].floor_before and "QD" in turns[trail.id].floor_after
    assert table.state.fouls() == [] and table.state.to_play == 0
    assert replay(table_events(table)).to_dict() == table.state.to_dict()  # a restart agrees


@pytest.mark.parametrize("qs_gone", [True, False])
def test_a_card_that_took_a_card_laid_unseen_names_it_by_its_rank_r1_1_r2_3(qs_gone):
    # Seat 1's QC, judged a trail (nothing seen for a Q to take, R2.3), is lifted alone by
    # seat 1's own arm: it took the card laid unseen, a Q (one card alone: a pair). With the
    # QS and QH gone this round the QD is the one Q left (one deck, R1.1): the camera names
    # the held play a QD trail and the QC's play its capture; seat 1 has taken QD and QC.
    # With the QS still in play the Q is not known: the play is held for the referee (R7),
    # a capture, with the QC's read kept for the round's end (one deck names both plays there,
    # `test_controller_elimination`).
    table, clock, held, _trail = _qd_laid_unseen(qs_gone)
    (qc,) = table.feed_snapshot(_armed(clock, "9C 5H 4S KD 7C QC", 1))
    assert (qc.data["card"], qc.data["seat"], qc.data["verdict"]) == ("QC", 1, "trail")
    out = table.feed_snapshot(_armed(clock, "9C 5H 4S KD 7C", 1))
    turns = {tr.event_id: tr for tr in table.state.turns()}
    if not qs_gone:
        undo, again = out
        assert undo.data["action"] == "undo" and again.data["card"] is None
        assert again.data["captured"] is True and again.data["reading"] == [["QC", 1.0]]
        assert turns[held.id].card is None
        return
    named, took = out
    assert (named.data["target"], named.data["payload"]["card"]) == (held.id, "QD")
    assert named.data["payload"]["lay"] is True
    assert (took.data["target"], took.data["payload"]["card"]) == (qc.id, "QC")
    assert (turns[held.id].card, turns[held.id].verdict) == ("QD", "trail")
    assert (turns[qc.id].verdict, turns[qc.id].takes) == ("capture", ("QD",))
    assert table.state.fouls() == []
    assert table.state.floor == ("4S", "5H", "7C", "9C", "KD")


def test_a_card_that_took_seen_cards_it_cannot_take_beside_one_laid_unseen_is_a_foul_r2_2_r7():
    # Seat 1's 6S, judged a trail (no 6 and no two cards making 6 among 9C 5H 4S KD 7C,
    # R2.2), leaves with the 9C, lifted by seat 1's own arm. A 6 cannot take a 9, whatever
    # else it took there (the QD laid unseen may have gone with it): the play is the 6S's
    # wrong capture as read (R2.2, R7), a foul pending for the referee, its card kept; the
    # unseen play stays held.
    table, clock, held, _trail = _qd_laid_unseen(qs_gone=False)
    (six,) = table.feed_snapshot(_armed(clock, "9C 5H 4S KD 7C 6S", 1))
    assert (six.data["card"], six.data["verdict"]) == ("6S", "trail")
    (fix,) = table.feed_snapshot(_armed(clock, "5H 4S KD 7C", 1))
    assert (fix.data["action"], fix.data["target"], fix.data["payload"]) == (
        "correct", six.id, {"card": "6S", "floor_after": ["4S", "5H", "7C", "KD"], "by": "camera"}
    )  # fmt: skip
    fouls = table.state.fouls()
    assert [(f["event_id"], f["card"], f["kind"]) for f in fouls] == [
        (held.id, None, "unreadable"), (six.id, "6S", "wrong_capture")
    ]  # fmt: skip
    assert table.state.to_play == 0
