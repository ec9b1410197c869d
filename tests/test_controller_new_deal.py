"""A round the camera saw only part of still ends when the next deal is laid (R1.4, R3.5, R7).

The table counts 48 plays to know a round is over; a play the camera missed must not make it
take the next round's fresh floor for more of the old round. One deck (R1.1): only a new deal
brings back cards already played this round, so fresh cards on a cleared floor that were
already played end the round (short, scored from the plays seen, the referee told) and the
next round is refereed from its own deal.
"""

from __future__ import annotations

from controller.simulator import simulate
from controller.table import Table
from controller.table_state import replay
from controller.turns import Snapshot
from engine.record import load_record, score_record
from engine.record import replay as replay_record


def one_deck_view(table: Table, t: float, floor: frozenset[str]) -> Snapshot:
    """The floor as the tracker reports it: a card whose code was already played this round
    cannot be named (one deck); it is counted unreadable and its code listed as read."""
    gone = frozenset(floor) & table.tracker.gone
    return Snapshot(t, frozenset(floor) - gone, unreadable=len(gone), gone_read=gone)


def feed(table: Table, floors) -> None:
    for t, floor in floors:
        table.feed_snapshot(one_deck_view(table, t, floor))


def _marks(video) -> dict:
    marks: dict = {}
    for m in video.marks():  # the first mark of each play: the card landing
        if "play" in m:
            marks.setdefault((m["round"], m["play"]), m["t"])
    return marks


def _lost_trails_floors(video, rnd: int = 0):
    """The still floors with three trails of round `rnd` seen only at once (the camera looked
    away while two of them landed): no play explains the view, so those plays are lost."""
    plays = video.game.rounds[rnd].plays

    def trail(p) -> bool:
        return not p.fast and set(p.floor_after) == set(p.floor_before) | {p.card}

    p = next(
        p for p in plays[4:-4]
        if trail(p) and trail(plays[p.index + 1]) and trail(plays[p.index + 2])
        and not plays[p.index + 3].fast
    )  # fmt: skip
    marks = _marks(video)
    t0, t1 = marks[(rnd, p.index)], marks[(rnd, p.index + 2)]
    return [(t, f) for t, f in video.still_floors() if not t0 < t <= t1], p


def _unseen_capture_floors(video, rnd: int = 0):
    """The still floors with one capture of round `rnd` never seen (laid and scooped while
    the camera looked away), and that play."""
    plays = video.game.rounds[rnd].plays
    p = next(
        p for p in plays
        if p.index >= 6 and not p.fast and set(p.floor_before) - set(p.floor_after)
        and not plays[p.index + 1].fast
    )  # fmt: skip
    marks = _marks(video)
    t0, t1 = marks[(rnd, p.index)], marks[(rnd, p.index + 1)]
    return [(t, f) for t, f in video.still_floors() if not t0 < t <= t1], p


def test_a_capture_the_camera_never_saw_is_held_and_the_round_still_counts_48_plays_r7():
    # The 9C took the 9H unseen; the next player's QC lands on the QH. No capture leaves its
    # own card (R2.7: only a card that takes nothing stays), so the 9H was taken by a card
    # nobody saw: that turn is held for the referee with its card unknown, the QC is the next
    # play, and the round ends at 48.
    video = simulate("classic", 2, 61, rounds=2, fouls=0, fast_share=0.0)
    floors, missed = _unseen_capture_floors(video)
    assert (missed.card, missed.floor_before) == ("9C", ("5H", "6H", "7H", "9H", "QH"))
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    feed(table, floors)
    held = [e for e in log if e.type == "foul"]
    assert len(held) == 1 and held[0].data["card"] is None and held[0].data["seat"] == 1
    assert held[0].data["floor_after"] == ["5H", "6H", "7H", "QH"]
    # the referee names it: the round is then exactly the true one
    table.referee("correct", held[0].id, {"card": "9C"})
    assert_true_rounds(table, video, log)


def assert_true_rounds(table: Table, video, log: list) -> None:
    """The table scored the video's rounds exactly, with no foul left and no fold error, and
    its log replays to the same state."""
    assert table.result()["rounds"] == score_record(video.game.record)["rounds"]
    assert table.result()["fouls"] == [] and table.state.errors == []
    assert replay(log).to_dict() == table.state.to_dict()


def test_lost_plays_end_the_round_at_the_next_deal_and_the_next_round_is_exact():
    video = simulate("classic", 2, 61, rounds=2, fouls=0, fast_share=0.0)
    assert len(video.game.rounds) == 2
    floors, _first = _lost_trails_floors(video)
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    feed(table, floors)

    ended = [e for e in log if e.type == "round_ended"]
    assert len(ended) == 2
    # Round 0: the camera saw 45 of its 48 plays; it ends when the next deal is laid.
    assert ended[0].data["short"] is True and ended[0].data["plays"] == 45
    short = [e for e in log if e.type == "prompt" and e.data["kind"] == "short_round"]
    assert len(short) == 1 and "45 of 48 plays" in short[0].data["text"]
    # Round 1 starts from its own deal and is refereed exactly: 48 plays, the true score.
    started = [e for e in log if e.type == "round_started"]
    assert [sorted(e.data["floor"]) for e in started] == [
        sorted(r.floor) for r in video.game.rounds
    ]
    assert "short" not in ended[1].data
    truth = score_record(video.game.record)
    result = table.result()
    assert result["rounds"][1] == truth["rounds"][1]
    # Nothing made of the dealt cards stays in round 0: every live turn there is a real play
    # of round 0, and no play of round 1 is lost.
    r0_cards = {p.card for p in video.game.rounds[0].plays}
    assert all(tr.card in r0_cards for tr in table.state.rounds[0].live_turns())
    assert len(table.state.rounds[1].live_turns()) == 48
    assert table.state.errors == []
    assert replay(log).to_dict() == table.state.to_dict()
    # The exported record marks the short round, and reads back to the same score.
    record = table.state.match.export()
    assert record["rounds"][0]["short"] is True and len(record["rounds"][0]["plays"]) == 45
    assert score_record(record) == table.state.score()
    assert replay_record(load_record(record)).totals == result["totals"]


def test_a_table_restarted_during_the_fresh_deal_resumes_on_it():
    video = simulate("classic", 2, 61, rounds=2, fouls=0, fast_share=0.0)
    floors, _first = _lost_trails_floors(video)
    whole = Table("classic", 2, video.game.rounds[0].dealer)
    feed(whole, floors)
    log: list = []
    first = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    cut = None
    for i, (t, floor) in enumerate(floors):
        first.feed_snapshot(one_deck_view(first, t, floor))
        if any(e.type == "round_ended" for e in log):
            cut = i + 1
            break
    assert cut is not None and first.state.phase == "dealing"
    again = Table("classic", 2, 0, events=log)
    feed(again, floors[cut:])
    assert again.result() == whole.result()


def _swept_table() -> tuple[Table, list]:
    """Classic, dealer 0: seat 1's TS takes A 2 3 4 (sum 10): every floor card, a basra (R3.1)."""
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    feed(table, [(0.0, frozenset()), (1.0, frozenset({"AS", "2H", "3D", "4C"}))])
    feed(table, [(2.0, frozenset({"AS", "2H", "3D", "4C", "TS"})), (3.0, frozenset())])
    (turn,) = [e for e in log if e.type == "turn"]
    assert turn.data["basra"] is True
    return table, log


def test_one_card_read_as_an_played_code_after_a_basra_is_not_a_new_deal():
    # Mid-round, after a basra: the next card is trailed and first read as the 3D (captured
    # in the basra): a misread, not a deal (47 plays still to come). The round goes on.
    table, log = _swept_table()
    table.feed_snapshot(Snapshot(4.0, frozenset(), unreadable=1, gone_read=frozenset({"3D"})))
    feed(table, [(5.0, frozenset({"6H"}))])
    assert not [e for e in log if e.type == "round_ended"]
    turns = [e for e in log if e.type == "turn"]
    assert [e.data["card"] for e in turns] == ["TS", "6H"]
    assert turns[-1].data["verdict"] == "trail"


def test_two_played_codes_dealt_on_a_cleared_floor_end_the_round_short():
    # Two cards already captured this round come back on the cleared floor: one deck, so the
    # deck was gathered and dealt again (the round was over, its last plays missed).
    table, log = _swept_table()
    feed(table, [(4.0, frozenset({"6H"})), (5.0, frozenset({"6H", "AS"}))])
    feed(table, [(6.0, frozenset({"6H", "AS", "3D"}))])
    (ended,) = [e for e in log if e.type == "round_ended"]
    assert ended.data["short"] is True and ended.data["plays"] == 1
    # the 6H turn (a dealt card taken for a trail) was taken back by the camera
    undone = [e for e in log if e.type == "referee" and e.data["action"] == "undo"]
    assert len(undone) == 1 and undone[0].data["payload"] == {"by": "camera"}
    assert [tr.card for tr in table.state.rounds[0].live_turns()] == ["TS"]
    # R4: seat 1 took 4 cards with a basra (10) and the AS (1): 11; nobody has 27 cards.
    assert ended.data["score"] == [0, 11]
    # the fourth card completes the new round's deal (every code possible again)
    feed(table, [(7.0, frozenset({"6H", "AS", "3D", "KC"}))])
    started = [e for e in log if e.type == "round_started"]
    assert sorted(started[-1].data["floor"]) == ["3D", "6H", "AS", "KC"]
    assert table.state.phase == "playing" and table.state.errors == []
    assert replay(log).to_dict() == table.state.to_dict()


def test_the_referee_ends_the_last_round_and_the_table_waits_for_the_next_deal_r7():
    # No next deal will come to end a round whose plays the camera missed (the match's last
    # round): the referee ends it as seen. R3.5: the floor left (6H) goes to seat 1, the last
    # capturer: 6 cards; AS 1 point + the basra 10 = 11 (R4.3, R3.1).
    table, log = _swept_table()
    feed(table, [(4.0, frozenset({"6H"}))])
    table.referee("end_round", t=5.0)
    (score,) = [e for e in log if e.type == "score" and e.t == 5.0]
    assert score.data["match_totals"] == [0, 11]
    assert table.state.phase == "dealing" and table.state.rounds[0].short
    # the 6H still lies there (the leftover, not yet taken): no deal; a fresh floor is one
    feed(table, [(6.0, frozenset({"6H"})), (7.0, frozenset())])
    assert [e for e in log if e.type == "round_started"][1:] == []
    feed(table, [(8.0, frozenset({"2C", "5S", "8D", "QH"}))])
    started = [e for e in log if e.type == "round_started"]
    assert len(started) == 2 and sorted(started[1].data["floor"]) == ["2C", "5S", "8D", "QH"]
    assert replay(log).to_dict() == table.state.to_dict()
    again = Table("classic", 2, 0, events=log)
    assert again.state.to_dict() == table.state.to_dict()


def test_a_card_laid_beside_the_last_rounds_leftovers_is_no_deal_r3_5():
    # The table counted 48 plays one play early (a play that never happened) and ended the
    # round with AC 4S 9D on the floor. The real last play lands: the 4C beside them. Four
    # cards lie there, but the leftovers are still among them: no deal (R3.5: the last
    # capturer takes the leftovers before the next deal). The deal is the one laid after.
    from controller.turns import RoundStart, TurnTracker

    tt = TurnTracker(lambda floor, card: False, lambda card: card[0] == "J")
    tt.expect_deal(require_empty=True, leftovers=frozenset({"AC", "4S", "9D"}))
    views = ["4C 4S 9D AC", "9D AC", "", "2C", "2C 8S", "2C 8S 9H", "2C 8S 9H TH"]
    intents = [tt.step(Snapshot(float(i), frozenset(v.split()))) for i, v in enumerate(views)]
    starts = [(i, x) for i, out in enumerate(intents) for x in out if isinstance(x, RoundStart)]
    assert len(starts) == 1
    i, start = starts[0]
    assert i == len(views) - 1 and start.floor == frozenset({"2C", "8S", "9H", "TH"})


def test_a_view_with_more_plays_than_the_round_has_left_ends_it_and_drops_the_rest():
    # 47 plays seen; one view then holds two plays (the turn tracker explains it as two
    # trails, R2.7): the first is the round's 48th play, the second one more than it has (a
    # play was counted that never happened). The round ends at 48, the extra play is
    # dropped, and the table waits for the next deal, never failing (this stopped the
    # controller on the held-out deck: "a turn outside a round").
    from controller.turns import ObservedTurn

    video = simulate("classic", 2, 61, rounds=2, fouls=0, fast_share=0.0)
    last = _marks(video)[(0, 47)]
    floors = [(t, f) for t, f in video.still_floors() if t <= last]
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    feed(table, floors)
    assert len(table.state.rounds[0].live_turns()) == 47 and table.state.floor == ()
    real = video.game.rounds[0].plays[47].card  # AH, the round's last card
    t = last + 0.5
    two = [
        ObservedTurn(real, frozenset(), frozenset({real}), t, t),
        ObservedTurn("2S", frozenset({real}), frozenset({real, "2S"}), t, t),
    ]
    table.turns.step = lambda snap: list(two)
    table.feed_snapshot(Snapshot(t, frozenset({real, "2S"})))
    ended = [e for e in log if e.type == "round_ended"]
    assert len(ended) == 1 and "short" not in ended[0].data
    assert [tr.card for tr in table.state.rounds[0].live_turns()][-1] == real
    assert len(table.state.rounds[0].live_turns()) == 48
    assert table.state.phase == "dealing" and table.state.errors == []
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_reshuffled_deal_may_repeat_a_leftover_code_r3_5():
    # Last round left 5H 9C KD; the last capturer took them (R3.5) while the camera looked
    # away, the deck was reshuffled and the deal holds a 5H again. Not all the leftovers lie
    # there, and not only leftovers: the deal has begun, and it starts the round.
    from controller.turns import RoundStart, TurnTracker

    tt = TurnTracker(lambda floor, card: False, lambda card: card[0] == "J")
    tt.expect_deal(require_empty=True, leftovers=frozenset({"5H", "9C", "KD"}))
    views = ["5H 9C KD", "5H KD", "5H 2S", "5H 2S 7C QD"]
    intents = [tt.step(Snapshot(float(i), frozenset(v.split()))) for i, v in enumerate(views)]
    starts = [(i, x) for i, out in enumerate(intents) for x in out if isinstance(x, RoundStart)]
    assert [(i, x.floor) for i, x in starts] == [(3, frozenset({"5H", "2S", "7C", "QD"}))]


def test_a_round_ended_by_the_referee_before_any_play_leaves_its_deal_as_leftovers_r7():
    # The referee ends round 1 right after its deal (R7): the dealt 2H 3S 9D KC still lie
    # there; they are that round's floor, not a new deal (R3.5: the last capturer takes the
    # leftovers before the next deal). The next round starts from the deal after the clearing.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    deal = frozenset({"2H", "3S", "9D", "KC"})
    table.feed_snapshot(Snapshot(1.0, deal))
    assert table.state.phase == "playing"
    table.referee("end_round", t=2.0)
    for t, v in [(3.0, deal), (4.0, frozenset()), (5.0, frozenset({"AH", "6S", "8D", "QC"}))]:
        table.feed_snapshot(Snapshot(t, v))
    started = [e for e in log if e.type == "round_started"]
    assert [sorted(e.data["floor"]) for e in started] == [sorted(deal), ["6S", "8D", "AH", "QC"]]
    assert started[1].t == 5.0


def test_ending_the_round_as_seen_settles_its_show_card_prompt_r7():
    # Seat 0 trails 6H; seat 1 takes it with a card the camera never saw and the player is
    # asked to show it. The referee ends the round as seen instead (R7): the question about
    # that play is settled with it (nothing is left awaiting the referee), the log replays
    # to the same state.
    table, log = _swept_table()
    feed(table, [(4.0, frozenset({"6H"})), (5.0, frozenset())])
    (prompt,) = [e for e in log if e.type == "prompt" and e.data["kind"] == "show_card"]
    assert [p["kind"] for p in table.state.pending()] == ["show_card"]
    table.referee("end_round", t=6.0)
    assert table.state.phase == "dealing"
    assert table.state.pending() == []
    assert not next(p for p in table.state.prompts if p.event_id == prompt.id).open
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_leftover_kept_unread_was_gathered_and_is_no_dealt_card_r3_5():
    # Round 1 ends right after its deal (the referee, R7): the 2H 3S 9D KC lie there as its
    # leftovers. They are gathered (R3.5), but the tracker keeps the 9D though no read has
    # named it since its place changed (a white card lifted off a pale cloth changes its
    # place too little for a lift: `Snapshot.unread`). It was gathered with the others: the
    # next round's deal is the AH 6S 8D QC laid after, and the 9D is no dealt card.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    deal = frozenset({"2H", "3S", "9D", "KC"})
    table.feed_snapshot(Snapshot(1.0, deal))
    table.referee("end_round", t=2.0)
    ghost = frozenset({"9D"})
    for t, v in [
        (3.0, ghost),
        (4.0, ghost | {"AH"}),
        (5.0, ghost | {"AH", "6S"}),
        (6.0, ghost | {"AH", "6S", "8D"}),
        (7.0, ghost | {"AH", "6S", "8D", "QC"}),
    ]:
        table.feed_snapshot(Snapshot(t, v, unread=ghost))
    started = [e for e in log if e.type == "round_started"]
    assert [sorted(e.data["floor"]) for e in started] == [sorted(deal), ["6S", "8D", "AH", "QC"]]
    assert started[1].t == 7.0
    assert table.state.floor and set(table.state.floor) == {"AH", "6S", "8D", "QC"}
    assert not [e for e in log if e.type in ("turn", "foul") and e.data.get("round") == 1]
