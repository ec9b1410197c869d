"""One deck at a round's end (RULES.md R1.1, R8.7, R7): the cards never seen name the held plays.

Every card of the deck is dealt to the floor or played once a round, so when all 48 plays are
in, the codes neither dealt nor read as another play are the cards of the plays the camera held
for want of a read. The camera names them only when exactly one way of giving them out makes
every held play legal (R2); otherwise they stay with the referee.
"""

from __future__ import annotations

from controller import events as ev
from controller.elimination import settle_held
from controller.events import Event
from controller.simulator import simulate
from controller.table import Table
from controller.table_state import OK, PENDING, UNREADABLE, replay
from controller.turns import Snapshot
from engine.record import score_record
from tests.test_controller_new_deal import (
    _marks,
    _unseen_capture_floors,
    assert_true_rounds,
    feed,
)


def test_a_capture_never_seen_is_named_at_the_rounds_end_by_the_one_card_never_seen_r8_7():
    # Classic, 2 players, seed 61: the 9C took the 9H while the camera looked away. The play is
    # held (R7) until the round's 48th play; then the 9C is the one code never seen this
    # round, and a 9C taking the 9H is legal (R2.2): the camera names it, the round's score is
    # the true one, and no foul is left for the referee.
    video = simulate("classic", 2, 61, rounds=2, fouls=0, fast_share=0.0)
    floors, missed = _unseen_capture_floors(video)
    assert (missed.index, missed.card, missed.floor_before) == (
        8,
        "9C",
        ("5H", "6H", "7H", "9H", "QH"),
    )
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    end = _marks(video)[(0, 47)]
    feed(table, [(t, f) for t, f in floors if t < end])
    (held,) = [e for e in log if e.type == ev.FOUL]
    assert held.data["card"] is None and held.data["status"] == PENDING
    feed(table, [(t, f) for t, f in floors if t >= end])
    named = [e for e in log if e.type == ev.REFEREE]
    assert [e.data for e in named] == [
        {"action": "correct", "target": held.id, "payload": {"card": "9C", "by": "camera"}}
    ]
    ended = next(e for e in log if e.type == ev.ROUND_ENDED)
    assert named[0].id < ended.id  # named before the round was scored
    assert_true_rounds(table, video, log)


def test_the_referees_own_naming_is_left_alone_r7():
    # The referee names the held play before the round ends: the camera adds nothing at the
    # round's end (the play is decided).
    video = simulate("classic", 2, 61, rounds=2, fouls=0, fast_share=0.0)
    floors, _missed = _unseen_capture_floors(video)
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    end = _marks(video)[(0, 47)]
    feed(table, [(t, f) for t, f in floors if t < end])
    (held,) = [e for e in log if e.type == ev.FOUL]
    table.referee("correct", held.id, {"card": "9C"})
    feed(table, [(t, f) for t, f in floors if t >= end])
    named = [e.data["payload"] for e in log if e.type == ev.REFEREE]
    assert named == [{"card": "9C"}]


def _round_log(seed: int, fouls: int = 0) -> tuple[list[Event], list]:
    """Round 0 of a simulated classic 2-player match, every still floor seen: its events up to
    (not including) `round_ended`, and its true plays (`fouls` of them fouls)."""
    video = simulate("classic", 2, seed, rounds=1, fouls=fouls, fast_share=0.0)
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    feed(table, video.still_floors())
    end = next(e.id for e in log if e.type == ev.ROUND_ENDED)
    return [e for e in log if e.id < end], video.game.rounds[0].plays


def _hold(log: list[Event], plays: dict[int, str | None]) -> list[Event]:
    """The log with the turns of these plays held unread (R7 `unreadable`), each with its card
    unknown (None) or only the given guess, as the Table holds a play it could not read."""
    out = []
    for e in log:
        play = e.data.get("play")
        if e.type == ev.TURN and e.data.get("round") == 0 and play in plays:
            data = dict(e.data, card=plays[play], verdict=UNREADABLE, foul=UNREADABLE)
            data.update(takes=[], basra=False, basra_points=0, legal=[], status=PENDING)
            e = Event(e.id, e.match_id, ev.FOUL, e.t, data)
        out.append(e)
    return out


def named(found: list[dict]) -> list[tuple[int, str]]:
    """(target, card) of the camera's corrections (each a `referee` `correct` by the camera)."""
    assert all(d["action"] == "correct" and d["payload"]["by"] == "camera" for d in found)
    return [(d["target"], d["payload"]["card"]) for d in found]


def _turn_id(log: list[Event], play: int) -> int:
    return next(e.id for e in log if e.type in (ev.TURN, ev.FOUL) and e.data.get("play") == play)


def test_two_captures_never_seen_are_named_when_only_one_way_is_legal_r2_2_r8_7():
    # Seed 61, round 0: the KC took a K at play 3 and the 9C took the 9H at play 8. Held both,
    # the codes never seen are KC and 9C; a 9C cannot take a K, nor a KC a 9 (R2.2, R2.3):
    # only KC at play 3 and 9C at play 8 makes both legal.
    log, plays = _round_log(61)
    assert (plays[3].card, plays[8].card) == ("KC", "9C")
    assert plays[3].floor_before != plays[3].floor_after  # both captured
    state = replay(_hold(log, {3: None, 8: None}))
    assert named(settle_held(state)) == [(_turn_id(log, 3), "KC"), (_turn_id(log, 8), "9C")]


def test_two_nines_never_seen_stay_with_the_referee_r7():
    # Seed 61: the 9C took the 9H at play 8 and the 9D a 9 at play 24. Either nine taking
    # either 9 is legal (R2.2), so the cards never seen cannot tell which was which: both plays
    # stay held for the referee.
    log, plays = _round_log(61)
    assert (plays[8].card, plays[24].card) == ("9C", "9D")
    state = replay(_hold(log, {8: None, 24: None}))
    assert settle_held(state) == []


def test_two_nines_held_are_named_by_their_reads_when_one_way_is_far_likelier_r1_1_r7():
    # The same two nines, each held with what the camera read of it: play 8's card read
    # 9C 0.92, play 24's read 6D 0.5, 9D 0.2, 9C 0.02. Both ways are legal (R2.2), but 9C at
    # play 8 and 9D at play 24 is 0.92 x 0.2 against 0.01 (a code a read does not list) x
    # 0.02 the other way: the reads name them. Reads that hardly differ leave both held.
    log, plays = _round_log(61)
    state = replay(_hold(log, {8: None, 24: None}))
    p8, p24 = _turn_id(log, 8), _turn_id(log, 24)
    reads = {p8: (("9C", 0.92), ("9S", 0.04)), p24: (("6D", 0.5), ("9D", 0.2), ("9C", 0.02))}
    assert named(settle_held(state, reads)) == [(p8, "9C"), (p24, "9D")]
    close = {p8: (("9C", 0.3), ("9D", 0.25)), p24: (("9D", 0.3), ("9C", 0.25))}
    assert settle_held(state, close) == []


def test_a_held_guess_is_named_as_the_code_never_seen_r8_7():
    # A play held with a wrong guess: play 8's 9C held as a QS (a code another play holds).
    # The one code never seen is 9C and a 9C taking the 9H is legal (R2.2): the guess gives
    # way.
    log, plays = _round_log(61)
    state = replay(_hold(log, {8: "QS"}))
    assert named(settle_held(state)) == [(_turn_id(log, 8), "9C")]
    # and the correction, applied, makes the play the legal capture it was
    target = _turn_id(log, 8)
    data = {"action": "correct", "target": target, "payload": {"card": "9C", "by": "camera"}}
    state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    fixed = next(tr for tr in state.turns() if tr.event_id == target)
    assert (fixed.card, fixed.verdict, fixed.status, fixed.takes) == ("9C", "capture", OK, ("9H",))


def test_nothing_is_named_when_a_code_was_read_twice_or_plays_are_missing_r1_1():
    log, plays = _round_log(61)
    # a misread elsewhere: play 20 read as play 10's card (one code twice, two never seen)
    misread = [
        Event(e.id, e.match_id, e.type, e.t, dict(e.data, card=plays[10].card))
        if e.type == ev.TURN and e.data.get("play") == 20
        else e
        for e in log
    ]
    assert settle_held(replay(_hold(misread, {8: None}))) == []
    # the round not over: its last play not yet seen
    last = _turn_id(log, 47)
    assert settle_held(replay([e for e in _hold(log, {8: None}) if e.id < last])) == []


def _misread(log: list[Event], play: int, code: str) -> list[Event]:
    """The log with one turn's card read as `code` and judged so, as the Table judges it
    (R7: a foul is pending for the referee); the read was doubtful."""
    from engine.referee import judge
    from engine.rules import get_ruleset

    out = []
    for e in log:
        if e.type == ev.TURN and e.data.get("round") == 0 and e.data.get("play") == play:
            before, after = e.data["floor_before"], e.data["floor_after"]
            v = judge(get_ruleset("classic"), before, code, after, ())
            data = dict(e.data, card=code, doubtful=True, **v.to_dict())
            kind = ev.FOUL if v.verdict == "foul" else ev.TURN
            if kind == ev.FOUL:
                data["status"] = PENDING
            e = Event(e.id, e.match_id, kind, e.t, data)
        out.append(e)
    return out


def test_a_doubtful_misread_gives_its_code_back_to_the_held_play_it_hid_r1_1_r2_r8_7():
    # Seed 61, round 0: the 6S took the 6H at play 12, read as JH 0.49 with 6S 0.45 behind:
    # a J taking one card of three is a wrong capture (R2.4, R2.6). The JH then swept the 6C
    # and TD at play 35 unseen, held. The one code never seen is 6S, the doubtful read's
    # runner-up: the 6S at play 12 (a legal capture) and the JH at play 35 (a legal sweep) is
    # the only way both plays can be; the other way round the held play stays illegal.
    log, plays = _round_log(61)
    assert (plays[12].card, plays[12].floor_before, plays[12].floor_after) == (
        "6S",
        ("5H", "6H", "7H"),
        ("5H", "7H"),
    )
    assert (plays[35].card, plays[35].floor_before, plays[35].floor_after) == (
        "JH",
        ("6C", "TD"),
        (),
    )
    events = _hold(_misread(log, 12, "JH"), {35: None})
    state = replay(events)
    p12, p35 = _turn_id(log, 12), _turn_id(log, 35)
    assert next(tr for tr in state.turns() if tr.event_id == p12).foul == "wrong_capture"
    readings = {p12: (("JH", 0.49), ("6S", 0.45), ("6H", 0.03))}
    assert named(settle_held(state, readings)) == [(p12, "6S"), (p35, "JH")]
    # without the read's runner-up nothing names the held play (the JH is read elsewhere)
    assert settle_held(state) == []
    assert settle_held(state, {p12: (("JH", 0.97), ("6S", 0.02))}) == []


def test_a_foul_whose_code_a_held_play_reads_more_plainly_is_the_misread_r1_1_r7_r8_7():
    # Seed 61, round 0: the 6S took the 6H at play 12, read JH 0.81 with no 6S in its read: a
    # J taking one card of three is a wrong capture (R2.4, R7). The JH swept the 6C and TD at
    # play 35, read JH 0.88, a code play 12 holds: held (R7) with a guess (QS). Two cards
    # read as one code (R1.1): the one whose play is illegal and read less plainly is the
    # misread, whatever card it was. The one code never seen, 6S, makes play 12 a legal
    # capture and the JH makes play 35 a legal sweep: both are named so.
    log, plays = _round_log(61)
    events = _hold(_misread(log, 12, "JH"), {35: "QS"})
    state = replay(events)
    p12, p35 = _turn_id(log, 12), _turn_id(log, 35)
    foul = (("JH", 0.81), ("QH", 0.11), ("KH", 0.04))
    held = (("JH", 0.88), ("TD", 0.1), ("QS", 0.02))
    found = settle_held(state, {p12: foul, p35: held})
    assert named(found) == [(p12, "6S"), (p35, "JH")]
    for data in found:
        state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    fixed = {tr.event_id: tr for tr in state.turns()}
    assert (fixed[p12].verdict, fixed[p12].takes) == ("capture", ("6H",))
    assert (fixed[p35].verdict, sorted(fixed[p35].takes)) == ("sweep", ["6C", "TD"])
    # the held play's read no plainer than the foul's: nothing tells which read was wrong
    assert settle_held(replay(events), {p12: foul, p35: (("JH", 0.81), ("QS", 0.1))}) == []
    assert settle_held(replay(events), {p12: foul}) == []


def _renamed_floors(log: list[Event], was: str, code: str, plays: range) -> list[Event]:
    """The log with `was` read as `code` in the floors of these plays (and the deal when the
    range starts at the deal, -1)."""
    out = []
    for e in log:
        swap = lambda cards: [code if c == was else c for c in cards]  # noqa: E731
        if e.type == ev.ROUND_STARTED and -1 in plays:
            e = Event(e.id, e.match_id, e.type, e.t, dict(e.data, floor=swap(e.data["floor"])))
        elif e.type in (ev.TURN, ev.FOUL) and e.data.get("play") in plays:
            data = dict(e.data, floor_before=swap(e.data["floor_before"]))
            data.update(floor_after=swap(e.data["floor_after"]), takes=swap(e.data["takes"]))
            e = Event(e.id, e.match_id, e.type, e.t, data)
        out.append(e)
    return out


def test_a_doubtfully_read_dealt_card_gives_its_code_back_to_the_held_play_r1_1_r8_7():
    # Seed 61, round 0 was dealt 3H 5C 9S TH; the JC swept them (play 0). The TH was read as
    # QH 0.53 (TH 0.46 behind): the real QH, trailed at play 2, was then read plainly as a
    # code already dealt, and held with a guess (QD); the QC took it at play 9. The one code
    # never seen is TH, the dealt read's runner-up. The QH at play 2 (a legal trail, R2.7)
    # with the deal's TH is the only way: a TH at play 2 would leave the QC taking a TH, a
    # wrong capture (R2.3). The camera corrects the deal (payload `was`) and names play 2.
    log, plays = _round_log(61)
    deal = next(e for e in log if e.type == ev.ROUND_STARTED)
    assert deal.data["floor"] == ["3H", "5C", "9S", "TH"]
    assert [(p.card, p.floor_after) for p in plays[:3]] == [
        ("JC", ()),
        ("KS", ("KS",)),
        ("QH", ("QH", "KS")),
    ]
    assert (plays[9].card, plays[9].floor_before, plays[9].floor_after) == (
        "QC",
        ("5H", "6H", "7H", "QH"),
        ("5H", "6H", "7H"),
    )
    events = _renamed_floors(log, "TH", "QH", range(-1, 1))  # the deal as read
    events = _renamed_floors(events, "QH", "QD", range(2, 10))  # the held guess as it lay
    events = _hold(events, {2: "QD"})
    state = replay(events)
    assert state.rounds[0].floor == ("3H", "5C", "9S", "QH")
    errors = set(state.errors)  # (the fold notes the real QD coming after the guess)
    dealt = {"QH": (("QH", 0.53), ("TH", 0.46)), "9S": (("9S", 0.99),)}
    found = settle_held(state, dealt=dealt)
    assert found == [
        {"action": "correct", "target": deal.id, "payload": {"was": "QH", "card": "TH", "by": "camera"}},
        {"action": "correct", "target": _turn_id(log, 2), "payload": {"card": "QH", "by": "camera"}},
    ]  # fmt: skip
    for data in found:
        state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    assert set(state.errors) == errors and state.rounds[0].floor == ("3H", "5C", "9S", "TH")
    p9 = next(tr for tr in state.turns() if tr.event_id == _turn_id(log, 9))
    assert (p9.card, p9.verdict, p9.takes) == ("QC", "capture", ("QH",))
    assert state.fouls() == []
    # without the dealt card's runner-up nothing is named
    assert settle_held(state_before := replay(events)) == []
    assert state_before.fouls()[0]["kind"] == UNREADABLE


def test_a_deal_correction_names_a_dealt_card_the_round_can_hold_r7():
    # The fold refuses a deal correction whose card is already dealt or played this round
    log, _plays = _round_log(61)
    deal = next(e for e in log if e.type == ev.ROUND_STARTED)
    for payload in (
        {"was": "TH", "card": "9S"},
        {"was": "TH", "card": "QH"},
        {"was": "2C", "card": "2D"},
    ):
        state = replay(log)
        data = {"action": "correct", "target": deal.id, "payload": payload}
        state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
        assert "correct the deal" in state.errors[-1]
        assert state.rounds[0].floor == ("3H", "5C", "9S", "TH")


def test_a_held_guess_does_not_use_up_its_code_in_the_score_r1_1_r7():
    # Seed 61: the 9C's capture at play 8 held with the guess 9D (a code another 9 holds);
    # the real 9D takes 2C + 7C at play 24 (R2.2). The guess is not the card played: the log
    # still folds without error, the round counts its 48 plays (R8.7), and the one code never seen
    # names play 8 the 9C.
    log, plays = _round_log(61)
    assert (plays[24].card, plays[24].floor_before, plays[24].floor_after) == (
        "9D",
        ("2C", "5D", "7C", "8C", "QD", "KD"),
        ("5D", "8C", "QD", "KD"),
    )
    state = replay(_hold(log, {8: "9D"}))
    assert state.errors == [] and state.match.round_over
    assert named(settle_held(state)) == [(_turn_id(log, 8), "9C")]


def test_a_held_play_before_the_doubtful_read_it_would_free_is_judged_both_ways_r7():
    # Seed 61: the JH swept 6C TD at play 35, unseen, held; the 7D took the lone 2S at play
    # 41, read doubtfully as JH (0.50, 7D 0.45). The code never seen is 7D. Either way both
    # plays are legal (a J and, in Classic, the 7D take the whole floor: R2.4, R3.2), so the
    # cards never seen cannot tell which was which: nothing is named, both stay with the
    # referee (a wrong 7D named at play 35 would lose that round's 7D basra).
    log, plays = _round_log(61)
    assert (plays[35].card, plays[35].floor_before) == ("JH", ("6C", "TD"))
    assert (plays[41].card, plays[41].floor_before, plays[41].floor_after) == ("7D", ("2S",), ())
    state = replay(_hold(_misread(log, 41, "JH"), {35: None}))
    readings = {_turn_id(log, 41): (("JH", 0.50), ("7D", 0.45), ("7H", 0.02))}
    assert settle_held(state, readings) == []


def test_a_capture_by_an_unseen_card_counts_that_card_for_most_cards_r4_r7():
    # Seed 61, round 0 scores cards 25 / 27, most cards 0 / 30, total 15 / 48 (R4). With the
    # 9C's capture at play 8 held unseen (never named), the 9C still went to seat 1's pile
    # with the 9H: 27 cards, the 30 points for most cards kept; only its points are unknown
    # (a 9C is worth none: R4.3).
    log, _plays = _round_log(61)
    for guess in (None, "QS"):
        m = replay(_hold(log, {8: guess})).match.copy()
        score = m.end_round()
        assert (score.cards, score.most_cards, score.score) == ([25, 27], [0, 30], [15, 48])


def test_a_corrected_card_is_renamed_only_while_it_lies_on_the_floor_r7():
    # Seed 61: the QH trailed at play 2 and lay until the QC took it at play 9 (R2.3); the
    # real QD was trailed at play 16. Were play 2 read as QD, the referee's correction to QH
    # renames the QD of plays 2-9 (and what the QC took), never the real QD after it.
    log, plays = _round_log(61)
    assert (plays[16].card, plays[16].floor_after) == ("QD", ("QD",))
    misread = _renamed_floors(log, "QH", "QD", range(2, 10))
    misread = [
        Event(e.id, e.match_id, e.type, e.t, dict(e.data, card="QD"))
        if e.type == ev.TURN and e.data.get("play") == 2
        else e
        for e in misread
    ]
    state = replay(misread)
    known = set(state.errors)  # (the fold notes the real QD: its code was taken)
    data = {"action": "correct", "target": _turn_id(log, 2), "payload": {"card": "QH"}}
    state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    turns = {tr.event_id: tr for tr in state.turns()}
    p9, p16 = turns[_turn_id(log, 9)], turns[_turn_id(log, 16)]
    assert (p9.card, p9.takes, p9.floor_before) == ("QC", ("QH",), ("5H", "6H", "7H", "QH"))
    assert (p16.card, p16.floor_after) == ("QD", ("QD",))
    state.errors = []
    state._rebuild()
    assert state.errors == [] and known  # the log now folds cleanly


def test_a_deal_correction_keeps_a_lebanese_two_card_basra_v3_b():
    # Lebanese, dealt 2S KD QC 4H. Seat 1's 2H takes the 2S, seat 0's KS the KD, seat 1's
    # QS the QC (R2.3): the 4H lies alone. Seat 0 trails the 5D beside it and seat 1's 9C
    # takes both by their sum: a basra (V3 (b)), 10 points. The referee then says the dealt
    # 4H was the 4D: the floors are renamed, and the 9C's play is still V3 (b)'s basra.
    from controller.turns import Snapshot

    table = Table("lebanese", 2, 0)
    views = ["2S KD QC 4H", "2S KD QC 4H 2H", "KD QC 4H", "KD QC 4H KS", "QC 4H"]
    views += ["QC 4H QS", "4H", "4H 5D", "4H 5D 9C", ""]
    for i, view in enumerate(views):
        table.feed_snapshot(Snapshot(float(i + 1), frozenset(view.split())))
    nine = table.state.turns()[-1]
    assert (nine.card, nine.takes, nine.basra, nine.basra_points) == ("9C", ("4H", "5D"), True, 10)
    assert table.state.live_totals == [0, 10]
    deal = table.state.rounds[0].event_id
    table.referee("correct", deal, {"was": "4H", "card": "4D"})
    nine = table.state.turns()[-1]
    assert (nine.card, nine.takes, nine.basra, nine.basra_points) == ("9C", ("4D", "5D"), True, 10)
    assert table.state.live_totals == [0, 10] and table.state.errors == []
    assert table.state.rounds[0].floor == ("2S", "4D", "QC", "KD")


def _dealt_misread_round(restart_at: int | None = None) -> tuple[Table, list[Event], object]:
    """Seed 61, round 0, seen as a camera would see it: the dealt TH read QH 0.53 (TH 0.46
    behind) until the JC swept the deal; the real QH, trailed at play 2, held as a guess
    (QD, its code dealt) until the QC took it at play 9; every other view plain. With
    `restart_at`, the table restarts from its log when that play lands."""
    video = simulate("classic", 2, 61, rounds=1, fouls=0, fast_share=0.0)
    marks = _marks(video)
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    read = (("QH", 0.53), ("TH", 0.46))
    for t, floor in video.still_floors():
        if restart_at is not None and t >= marks[(0, restart_at)]:
            table, restart_at = Table(events=list(log), subscribers=[log.append]), None
        if t < marks[(0, 1)]:
            seen = frozenset("QH" if c == "TH" else c for c in floor)
            snap = Snapshot(t, seen, readings=(("QH", read),) if "QH" in seen else ())
        elif t < marks[(0, 10)] and "QH" in floor:
            snap = Snapshot(t, frozenset(floor) - {"QH"} | {"QD"}, unsure=frozenset({"QD"}))
        else:
            snap = Snapshot(t, frozenset(floor))
        table.feed_snapshot(snap)
    return table, log, video


def test_a_restarted_table_names_a_held_play_by_a_dealt_cards_read_r1_1_r8_7():
    # The deal's read is logged with it (its runner-up could name a card at the round's
    # end); the table restarts as the 48th play lands. At the round's end the one code never
    # seen is TH, the dealt read's runner-up: the deal's QH was the TH and the guess at play 2
    # the QH (a legal trail, R2.7; a TH there would leave the QC taking a TH, R2.3). The
    # camera corrects both, as a table that never stopped does, and the round is scored true.
    # (Before: a restarted table forgot the deal's read and left the play to the referee.)
    for restart_at in (None, 47):
        table, log, video = _dealt_misread_round(restart_at)
        deal = next(e for e in log if e.type == ev.ROUND_STARTED)
        assert deal.data["floor"] == ["3H", "5C", "9S", "QH"]
        assert deal.data["readings"] == {"QH": [["QH", 0.53], ["TH", 0.46]]}
        held = next(e for e in log if e.type == ev.FOUL and e.data["play"] == 2)
        assert (held.data["card"], held.data["verdict"]) == ("QD", UNREADABLE)
        named = [e.data for e in log if e.type == ev.REFEREE]
        assert named == [
            {"action": "correct", "target": deal.id, "payload": {"was": "QH", "card": "TH", "by": "camera"}},
            {"action": "correct", "target": held.id, "payload": {"card": "QH", "by": "camera"}},
        ]  # fmt: skip
        # the real QD came at play 16, after the QC had taken the guess: a trail (R2.7), not
        # a duplicate (the guess never used its code up, R7)
        real = next(e for e in log if e.type in (ev.TURN, ev.FOUL) and e.data["play"] == 16)
        assert (real.type, real.data["card"], real.data["verdict"]) == (ev.TURN, "QD", "trail")
        assert table.result()["rounds"] == score_record(video.game.record)["rounds"]
        assert table.result()["fouls"] == [] and table.state.errors == []
        assert replay(log).to_dict() == table.state.to_dict()


def _unread(log: list[Event], play: int) -> list[Event]:
    """The log with that play's card never seen: held for the referee (R7 `unreadable`)."""
    out = []
    for e in log:
        if e.type in (ev.TURN, ev.FOUL) and e.data.get("round") == 0 and e.data["play"] == play:
            data = dict(e.data, card=None, verdict=UNREADABLE, foul=UNREADABLE)
            data.update(takes=[], basra=False, basra_points=0, legal=[], status=PENDING)
            e = Event(e.id, e.match_id, ev.FOUL, e.t, data)
        out.append(e)
    return out


def test_the_one_card_never_seen_names_a_held_play_that_was_a_foul_r2_6_r7_r8_7():
    # Seed 60, round 0: at play 17 the 3S trailed beside 3D 4H 5C 7C QD, where it could take
    # the 3D (a missed capture, R2.3, R2.6). The camera never saw the 3S. At the round's end the 3S is the one code
    # never seen: no legal play explains the held one, but one deck names it (R1.1), and the
    # play is judged as it happened: a missed capture, pending for the referee (R7).
    log, plays = _round_log(60, fouls=1)
    assert (plays[17].card, plays[17].floor_before) == ("3S", ("3D", "4H", "5C", "7C", "QD"))
    assert set(plays[17].floor_after) == {"3S", "3D", "4H", "5C", "7C", "QD"}
    state = replay(_unread(log, 17))
    p17 = _turn_id(log, 17)
    assert named(settle_held(state)) == [(p17, "3S")]
    for data in settle_held(state):
        state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    (foul,) = state.fouls()
    assert (foul["play"], foul["card"], foul["kind"], foul["status"]) == (
        17, "3S", "missed_capture", PENDING
    )  # fmt: skip


def test_a_held_play_is_not_named_a_foul_while_another_foul_is_open_r7():
    # The same round, but another play is an open foul too (as a misread would make it):
    # two fouls in one round are likelier one misread, so the held play stays with the
    # referee.
    log, _plays = _round_log(60, fouls=1)
    events = []
    for e in _unread(log, 17):
        if e.type == ev.TURN and e.data.get("play") == 30:
            data = dict(e.data, verdict="foul", foul="wrong_capture", status=PENDING)
            e = Event(e.id, e.match_id, ev.FOUL, e.t, data)
        events.append(e)
    assert settle_held(replay(events)) == []


def test_a_held_capture_is_not_named_a_wrong_capture_at_the_rounds_end_r2_3_r7():
    # Seed 60, round 0: the 6C that trailed at play 0 was read as KD (a trail all the same,
    # R2.7) until the JS swept it at play 2; the real KD took the KS at play 15 unseen, held.
    # The one code never seen is 6C, and a 6C there would "take" a KS: no card could (R2.3).
    # A held play that took cards is never named into a wrong capture: it stays with the
    # referee (R7).
    log, plays = _round_log(60)
    assert (plays[0].card, plays[2].card, plays[2].floor_after) == ("6C", "JS", ())
    assert (plays[15].card, set(plays[15].floor_before) - set(plays[15].floor_after)) == (
        "KD", {"KS"}
    )  # fmt: skip
    events = _hold(_misread(_renamed_floors(log, "6C", "KD", range(0, 3)), 0, "KD"), {15: None})
    assert settle_held(replay(events)) == []


def _laid_unseen(log: list[Event], play: int, card: str) -> list[Event]:
    """The log with that play's card laid where the camera never saw it: held for the referee
    with its card unknown and nothing taken (the floor as seen unchanged), and the card
    missing from every floor seen after it (and from the takes of the play that took it)."""
    out = []
    for e in log:
        data = e.data
        if e.type in (ev.TURN, ev.FOUL) and data.get("round") == 0 and data["play"] >= play:
            data = dict(data)
            for key in ("floor_before", "floor_after", "takes"):
                data[key] = [c for c in data.get(key, []) if c != card]
            if data["play"] == play:
                data.update(card=None, verdict=UNREADABLE, foul=UNREADABLE, status=PENDING)
                data.update(floor_after=data["floor_before"], takes=[], legal=[])
                e = Event(e.id, e.match_id, ev.FOUL, e.t, data)
            else:
                e = Event(e.id, e.match_id, e.type, e.t, data)
        out.append(e)
    return out


def test_a_card_laid_where_the_camera_never_saw_it_is_named_a_trail_r2_7_r8_7():
    # Seed 61, round 0: the QS trailed at play 13 beside 5H 7H, and the JD swept it with
    # the rest at play 15 (R2.4). Seen as a play by an arm that laid nothing the camera saw,
    # and the QS never seen on the floor, the play is held with nothing taken. At the
    # round's end the QS is the one code never seen: it was laid there and took nothing, a
    # trail (R2.7), so the camera names it lying on that floor, never a card that vanished
    # (a wrong capture, R8.10): it lay there through play 14, and the JD's sweep took it.
    log, plays = _round_log(61)
    assert (plays[13].card, plays[13].floor_before) == ("QS", ("5H", "7H"))
    assert (plays[15].card, plays[15].floor_after) == ("JD", ())
    state = replay(_laid_unseen(log, 13, "QS"))
    p13 = _turn_id(log, 13)
    found = settle_held(state)
    assert [d["payload"] for d in found] == [
        {"card": "QS", "by": "camera", "floor_after": ["5H", "7H", "QS"], "lay": True}
    ]
    assert named(found) == [(p13, "QS")]
    for data in found:
        state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    fixed = next(tr for tr in state.turns() if tr.event_id == p13)
    assert (fixed.card, fixed.verdict, fixed.status) == ("QS", "trail", OK)
    assert state.fouls() == []
    by_id = {tr.event_id: tr for tr in state.turns()}
    p14, p15 = by_id[_turn_id(log, 14)], by_id[_turn_id(log, 15)]
    assert "QS" in p14.floor_before and "QS" in p14.floor_after
    assert (p15.card, p15.verdict, "QS" in p15.takes, p15.floor_after) == ("JD", "sweep", True, ())


def test_a_card_laid_unseen_and_the_card_of_its_rank_that_took_it_are_named_by_its_read_r1_1_r2_3_r8_7():
    # Seed 61, round 0: the 3C trailed at play 19, and the 3D took it alone at play 21 (a
    # pair, R2.3). The 3C laid where the camera never saw it is held, card unknown; the 3D,
    # judged a trail and lifted alone by its own player, took it, but with 3C and 3D both
    # still in play the Table could not tell which 3 lay there: that play is held too, a
    # capture of cards never seen (`captured`), its read (3D) kept. At the round's end 3C
    # and 3D are the codes never seen; either way round is legal (3 takes 3), and the read
    # names the capture 3D: the 3C was laid there and taken by it.
    log, plays = _round_log(61)
    assert (plays[19].card, plays[21].card) == ("3C", "3D")
    assert set(plays[21].floor_before) - set(plays[21].floor_after) == {"3C"}
    p19, p21 = _turn_id(log, 19), _turn_id(log, 21)
    held = []
    for e in _hold(_laid_unseen(log, 19, "3C"), {21: None}):
        if e.id == p21:
            e = Event(e.id, e.match_id, e.type, e.t, dict(e.data, captured=True))
        held.append(e)
    state = replay(held)
    assert settle_held(state) == []  # no read: either 3 may have been laid (R7: the referee)
    found = settle_held(state, {p21: (("3D", 1.0),)})
    assert named(found) == [(p19, "3C"), (p21, "3D")]
    assert found[0]["payload"]["lay"] is True
    for data in found:
        state.apply(Event(state.last_event_id + 1, state.match_id, ev.REFEREE, 0.0, data))
    by_id = {tr.event_id: tr for tr in state.turns()}
    assert (by_id[p19].card, by_id[p19].verdict) == ("3C", "trail")
    assert (by_id[p21].card, by_id[p21].verdict, by_id[p21].takes) == ("3D", "capture", ("3C",))
    assert state.fouls() == []
