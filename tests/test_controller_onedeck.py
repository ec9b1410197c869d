"""One physical deck (RULES.md R1.1) against misreads: re-reads, unreadable cards, cascades.

Observations are written by hand (what the recogniser might report: a code, a confidence, a
box and the classifier's runners-up `alts`), so each test checks the controller's use of the
one-deck constraint with values worked out from the rules.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np

from controller.events import CARD_LAID, FOUL, PROMPT, ROUND_STARTED, TURN
from controller.table import Table
from controller.table_geometry import TableGeometry
from controller.table_state import PENDING, UNREADABLE
from controller.tracker import FloorTracker, TrackerConfig
from controller.turns import Snapshot
from tests.test_controller_turns import shown

GEO = TableGeometry.default(2)
SIZE = (1280, 720)
# Where each card lies on the floor (x of its box's left edge; every box is 80 x 120 px).
SPOT = {"9C": 300, "5H": 400, "4S": 500, "KD": 600, "QS": 600, "9D": 700, "NEW": 800}


def det(code: str, conf: float = 0.9, at: str | int | None = None, alts=None, y: int = 300):
    x = SPOT[at or code] if not isinstance(at, int) else at
    return NS(code=code, confidence=conf, box=[x, y, x + 80, y + 120], alts=alts or [])


def table() -> Table:
    """A table with absolute thresholds (reference pinned at 1.0: accept 0.4, sure 0.85)."""
    log: list = []
    t = Table("classic", 2, 0, subscribers=[log.append], tracker_config=TrackerConfig(reference=1))
    t.log = log
    return t


def feed(t: Table, *dets) -> list:
    """Feed one still view read up to max_reads times (as the tracker asks); the events."""
    out: list = []
    for _ in range(t.tracker.config.max_reads):
        out += t.feed_observation(NS(t=0.0, cards=list(dets)), SIZE)
        if not t.tracker._reads:
            break
    return out


def dealt(floor=("9C", "5H", "4S", "KD")) -> Table:
    t = table()
    events = feed(t, *(det(c) for c in floor))
    assert [e.type for e in events] == [ROUND_STARTED]
    return t


def captured_nine() -> Table:
    """R2.2: 9D on 9C 5H 4S KD takes 9C and 5H+4S; KD stays. 9C 5H 4S 9D are then gone."""
    t = dealt()
    (laid,) = feed(t, det("9C"), det("5H"), det("4S"), det("KD"), det("9D"))
    assert laid.type == CARD_LAID
    (turn,) = feed(t, det("KD"))
    assert turn.data["verdict"] == "capture" and turn.data["takes"] == ["4S", "5H", "9C"]
    assert t.tracker.gone == frozenset({"9C", "5H", "4S", "9D"})
    return t


def test_a_card_misread_as_a_captured_code_is_read_as_its_runner_up_r1_1():
    t = captured_nine()
    # The next card is read as 9C, captured a moment ago: one deck, it cannot be the 9C. Its
    # runner-up 6C is still possible, so it is the 6C; a 6 on a lone K takes nothing (R2.3,
    # R2.7): a trail by seat 0 (seat 1 played first, R1.5).
    alts = [("9C", 0.55), ("6C", 0.35), ("9S", 0.05)]
    (turn,) = feed(t, det("KD"), det("9C", 0.9, "NEW", alts))
    assert turn.type == TURN
    assert (turn.data["card"], turn.data["verdict"], turn.data["seat"]) == ("6C", "trail", 0)
    assert t.state.floor == ("6C", "KD")
    assert t.tracker.rereads >= 1
    assert t.state.fouls() == []


def test_a_card_misread_as_a_code_lying_elsewhere_on_the_floor_r1_1():
    t = dealt()
    # A new card is read as KD, but the KD lies (and is read) at its own place: this one is
    # another card, its runner-up QH. No Q on the floor: a trail (R2.3, R2.7).
    alts = [("KD", 0.5), ("QH", 0.4)]
    (turn,) = feed(t, det("9C"), det("5H"), det("4S"), det("KD", 0.7), det("KD", 0.8, "NEW", alts))
    assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "QH", "trail")
    assert t.state.floor == ("4S", "5H", "9C", "QH", "KD")


def test_no_plausible_runner_up_holds_the_turn_as_unreadable_r7():
    t = captured_nine()
    before = list(t.state.live_totals)
    # Read as 9C (gone); its runners-up are 4S (gone) and 6C with 3 % of the probability:
    # no plausible reading. The turn is held for the referee as `unreadable` (R7), with the
    # best possible guess, and the score does not move.
    alts = [("9C", 0.9), ("4S", 0.04), ("6C", 0.03)]
    (foul,) = feed(t, det("KD"), det("9C", 0.9, "NEW", alts))
    assert foul.type == FOUL
    assert foul.data["verdict"] == UNREADABLE and foul.data["status"] == PENDING
    assert foul.data["card"] == "6C" and "6C" in foul.data["reason"]
    assert t.state.live_totals == before
    assert [p["card"] for p in t.state.pending()] == ["6C"]


def test_a_card_no_possible_code_names_is_prompted_not_guessed_r7():
    t = captured_nine()
    # Read as 9C, runners-up 9D and 4S: all three are gone. Nothing names it: the table asks
    # to see it and keeps the floor as it was (no turn, no guess).
    alts = [("9C", 0.95), ("9D", 0.03), ("4S", 0.01)]
    events = feed(t, det("KD"), det("9C", 0.9, "NEW", alts))
    assert [e.type for e in events] == [PROMPT]
    assert events[0].data["kind"] == "unreadable" and "unreadable card" in events[0].data["text"]
    assert t.state.floor == ("KD",) and len(t.state.turns()) == 1
    # The same view again: no second prompt. Then the card is read (shown closer): its turn.
    assert feed(t, det("KD"), det("9C", 0.9, "NEW", alts)) == []
    (turn,) = feed(t, det("KD"), det("6C", 0.9, "NEW"))
    assert (turn.data["card"], turn.data["verdict"], turn.data["play"]) == ("6C", "trail", 1)


def test_a_card_on_the_floor_read_weakly_is_still_there_r2_7():
    t = dealt()
    # 8H on 9C 5H 4S KD takes nothing (R2.2: no 8, no pair summing to 8): a trail. The KD,
    # read at 0.15 this time (below the 0.4 a new card needs), still lies at its place: the
    # turn is a trail, not a capture of the KD (which would be a false wrong_capture, R7).
    (turn,) = feed(t, det("9C"), det("5H"), det("4S"), det("KD", 0.15), det("8H", 0.9, "NEW"))
    assert (turn.type, turn.data["verdict"]) == (TURN, "trail")
    assert turn.data["floor_after"] == ["4S", "5H", "8H", "9C", "KD"]


def test_a_second_look_at_the_same_card_is_not_another_card():
    t = dealt(("9C", "5H", "4S", "QS"))
    # The QS's other corner read as QD, its box inside the QS's box: one card, not a Q laid
    # on the floor (which would have captured the QS, R2.3). The 2H laid is a trail (R2.7).
    inside = NS(code="QD", confidence=0.5, box=[640, 300, 680, 420], alts=[])
    (turn,) = feed(t, det("9C"), det("5H"), det("4S"), det("QS"), inside, det("2H", 0.9, "NEW"))
    assert (turn.data["card"], turn.data["verdict"]) == ("2H", "trail")
    assert t.state.floor == ("2H", "4S", "5H", "9C", "QS")


def test_a_shown_card_left_on_the_floor_does_not_stall_the_game_r7():
    t = Table("classic", 2, 0)
    t.feed_snapshot(Snapshot(1.0, frozenset({"9C", "5H", "4S", "KD"})))
    # A lay-and-scoop (never seen lying): "show the card"; the player lays the 9D to show it.
    (prompt,) = t.feed_snapshot(Snapshot(2.0, frozenset({"KD"})))
    assert prompt.data["kind"] == "show_card"
    # A shown card is judged when it goes back to its owner; this one stays.
    assert shown(t.feed_snapshot(Snapshot(3.0, frozenset({"KD", "9D"})))) == "9D"
    # ... and the 2H lands beside it: a card that stays while play goes on is no shown card
    # but a play (9D on K takes nothing: a trail, R2.7). Play goes on at once, never waiting
    # for the 9D to leave; the capture whose card nobody saw is held for the referee (R7).
    held, nine, two = t.feed_snapshot(Snapshot(4.0, frozenset({"KD", "9D", "2H"})))
    assert (held.data["card"], held.data["verdict"], held.data["seat"]) == (None, "unreadable", 1)
    assert (nine.data["card"], nine.data["verdict"], nine.data["seat"]) == ("9D", "trail", 0)
    assert (two.data["card"], two.data["verdict"], two.data["seat"]) == ("2H", "trail", 1)
    assert two.data["floor_before"] == ["9D", "KD"]


def _settle_tracker(tr: FloorTracker, cards) -> Snapshot:
    for _ in range(tr.config.max_reads):
        snap = tr.feed_observation(NS(t=0.0, cards=[det(c, p, 250 + 100 * i) for i, (c, p) in
                                                    enumerate(cards)]), SIZE)  # fmt: skip
        if snap is not None:
            return snap
    raise AssertionError("never settled")


def test_thresholds_follow_the_recogniser_s_own_confidence():
    """A retrained recogniser may read every card surer (or less surely): the thresholds are
    fractions of the typical confidence of the cards accepted, so no recalibration is needed."""
    codes = ["9C", "5H", "4S", "KD", "2H"]
    strong, weak = FloorTracker(GEO, None), FloorTracker(GEO, None)
    for k in range(1, 6):
        _settle_tracker(strong, [(c, 0.92) for c in codes[:k]])
        _settle_tracker(weak, [(c, 0.4) for c in codes[:k]])
    assert 0.85 <= strong.reference <= 0.95 and 0.38 <= weak.reference <= 0.45
    # The same 0.3 read of a new card: a phantom for a model whose true reads are 0.92, a
    # real card for one whose true reads are 0.4.
    snap = _settle_tracker(strong, [*((c, 0.92) for c in codes), ("7H", 0.3)])
    assert "7H" not in snap.floor and len(snap.floor) == 5
    snap = _settle_tracker(weak, [*((c, 0.4) for c in codes), ("7H", 0.3)])
    assert "7H" in snap.floor


def _frames(blob_bottom: int, n: int = 27):
    """An empty grey table; from frame 5 on, a dark blob reaches down from the frame's top edge
    to `blob_bottom` (the floor starts at y = 108)."""
    for k in range(n):
        img = np.full((720, 1280, 3), 90, np.uint8)
        if k >= 5:
            img[0:blob_bottom, 600:700] = 30
        yield k / 15, img


def test_a_pile_spilling_over_the_floor_line_is_no_hand_but_an_arm_is():
    def reads_after_blob(blob_bottom: int) -> list[float]:
        seen: list[float] = []

        def recognize(image, t):
            seen.append(t)
            return NS(t=t, cards=[])

        tracker = FloorTracker(GEO, recognize)
        for t, img in _frames(blob_bottom):
            tracker.feed(img, t)
        return [t for t in seen if t > 5 / 15]

    # Captured cards piled at a player's edge reach 12 px over the floor's line: the table is
    # read as soon as it is still (about 0.2 s later), not after the 1.5 s patience for a hand.
    assert reads_after_blob(120) and reads_after_blob(120)[0] < 0.7
    # An arm reaching 300 px into the floor and resting: no read within the 1.4 s after it.
    assert reads_after_blob(420) == []


def test_a_resumed_table_has_the_same_learnt_thresholds():
    """The learnt reference comes from the confidences the log holds (round floors, turns):
    a table restarted from its stored events judges the next read exactly as before."""
    log: list = []
    t = Table("classic", 2, 0, subscribers=[log.append])
    feed(t, *(det(c, 0.93) for c in ("9C", "5H", "4S", "KD")))
    feed(
        t,
        det("9C", 0.93),
        det("5H", 0.93),
        det("4S", 0.93),
        det("KD", 0.93),
        det("2H", 0.88, "NEW"),
    )
    assert t.state.turns()[0].card == "2H"
    assert 0.85 <= t.tracker.reference <= 0.95  # learnt from 0.93 x 4 and 0.88, prior 0.45 x 3
    again = Table("classic", 2, 0, events=log)
    assert again.tracker.reference == t.tracker.reference
    assert again.tracker.accept == t.tracker.accept


def test_a_weak_read_counts_where_a_card_was_seen_landing_not_elsewhere():
    """A new card read at 0.28 (below the 0.4 a new card needs) is taken where the pixels
    changed since the last snapshot (the camera saw something land there); the same weak read
    where nothing changed is a phantom."""
    card = [560, 300, 640, 420]  # where the card lands (frame pixels)
    phantom = [800, 300, 880, 420]  # an empty, unchanged place

    def frames():
        for k in range(20):
            img = np.full((720, 1280, 3), 90, np.uint8)
            if k >= 8:
                img[300:420, 560:640] = 230  # a white card lands and stays
            yield k / 15, img

    def recognize(image, t):
        ox, oy = 256 - 51, 108 - 28  # the floor's box less the crop margin (4 %)
        cards = []
        if t > 8 / 15:
            cards.append(NS(code="KH", confidence=0.28, box=_shift(card, ox, oy), alts=[]))
        cards.append(NS(code="QD", confidence=0.28, box=_shift(phantom, ox, oy), alts=[]))
        return NS(t=t, cards=cards)

    tracker = FloorTracker(GEO, recognize, TrackerConfig(reference=1.0))
    snaps = [s for t, img in frames() if (s := tracker.feed(img, t)) is not None]
    assert snaps[0].floor == frozenset()  # the first view: nothing is sure enough
    assert snaps[-1].floor == frozenset({"KH"})


def _shift(box, ox, oy):
    return [box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy]


class _Camera:
    """A recogniser that reports, at each time, the cards of a hand-written script."""

    def __init__(self, script) -> None:
        self.script = script  # [(from_t, code, confidence, box in frame pixels)]

    def observe(self, image, t):
        ox, oy = 256 - 51, 108 - 28  # the crop the tracker reads: floor box less 4 % margin
        latest: dict = {}
        for t0, code, conf, box in self.script:
            if t >= t0:
                latest[tuple(box)] = (code, conf)
        cards = [
            NS(code=code, confidence=conf, box=_shift(list(box), ox, oy), alts=[])
            for box, (code, conf) in latest.items()
        ]
        return NS(t=t, cards=cards)


def test_a_later_sure_read_of_an_unmoved_card_corrects_the_earlier_misread_r7():
    floor = {"KD": 300, "QS": 420, "8H": 540, "3S": 660}
    a, b = [780, 200, 860, 320], [420, 400, 500, 520]  # where the next two cards land
    script = [(0.0, c, 0.95, [x, 200, x + 80, 320]) for c, x in floor.items()]
    script += [(0.9, "6C", 0.5, a), (1.7, "9C", 0.95, a), (1.7, "2H", 0.95, b)]

    def frames():
        for k in range(36):
            img = np.full((720, 1280, 3), 90, np.uint8)
            for x in floor.values():
                img[200:320, x : x + 80] = 230
            if k >= 12:  # t 0.8: the first card lands (read 6C at 0.5: a misread)
                img[200:320, 780:860] = 230
            if k >= 24:  # t 1.6: the next lands elsewhere; the first is now read 9C, surely
                img[400:520, 420:500] = 230
            yield k / 15, img

    log: list = []
    t = Table("classic", 2, 0, recognizer=_Camera(script), subscribers=[log.append],
              tracker_config=TrackerConfig(reference=1.0))  # fmt: skip
    for ts, img in frames():
        t.feed_frame(img, ts)
    turns = [e for e in log if e.type in (TURN, FOUL)]
    # 6C then 2H, both trails on K Q 8 3 (R2.2, R2.7: no 6, no 2, no sums of 6 or 2) ...
    assert [(e.data["card"], e.data["verdict"]) for e in turns] == [
        ("6C", "trail"),
        ("2H", "trail"),
    ]
    # ... and between them the camera's correction of the first: the card that never moved
    # was read 9C at 0.95 where it had been read 6C at 0.5. 9 on K Q 8 3 takes nothing either.
    (fix,) = [e for e in log if e.type == "referee"]
    assert fix.data["action"] == "correct" and fix.data["target"] == turns[0].id
    assert fix.data["payload"] == {"card": "9C", "by": "camera"}
    assert [tr.card for tr in t.state.turns()] == ["9C", "2H"]
    assert t.state.floor == ("2H", "3S", "8H", "9C", "QS", "KD")
    assert turns[1].data["floor_before"] == ["3S", "8H", "9C", "QS", "KD"]
    assert t.state.fouls() == [] and t.state.errors == []


def test_a_doubtful_card_read_surely_as_its_runner_up_where_it_lies_is_renamed_r2_3_r7():
    # Seat 1 trails a card read doubtfully as TH (0.55; TH 0.52, QH 0.44): no 10 to take, a
    # trail (R2.7). Seat 0 lays the QD on it; the view reads, where that card lies, the QH
    # surely (0.9): the runner-up of its own read. The TH was a misread: the camera corrects
    # the trail to the QH (also a trail there, R2.3, R2.7), and the QD laid on it takes it
    # (R2.3) instead of leaving a card nobody saw leave.
    t = dealt()
    alts = [("TH", 0.52), ("QH", 0.44), ("TD", 0.02)]
    floor = [det(c) for c in ("9C", "5H", "4S", "KD")]
    (trail,) = feed(t, *floor, det("TH", 0.55, "NEW", alts))
    assert (trail.data["card"], trail.data["verdict"], trail.data["seat"]) == ("TH", "trail", 1)
    assert trail.data["doubtful"] is True
    fix, laid = feed(
        t, *floor, det("TH", 0.55, "NEW", alts), det("QH", 0.9, 805), det("QD", 0.95, 830, y=330)
    )
    assert (fix.type, fix.data["target"]) == ("referee", trail.id)
    assert fix.data["payload"] == {"card": "QH", "by": "camera"}
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "QD", 0)
    assert set(t.state.floor) == {"9C", "5H", "4S", "KD", "QH"}
    (took,) = feed(t, *floor)
    assert (took.type, took.data["card"], took.data["verdict"], took.data["takes"]) == (
        TURN, "QD", "capture", ["QH"]
    )  # fmt: skip
    assert t.state.fouls() == [] and t.state.pending() == []


def test_a_plain_read_of_another_code_where_a_plainly_read_card_lies_renames_nothing_r1_1():
    # The same, but the trail was read plainly as TH (0.97): a QH read at its place is another
    # card (or a misread of it), never a reason to rename the TH.
    t = dealt()
    floor = [det(c) for c in ("9C", "5H", "4S", "KD")]
    alts = [("TH", 0.97), ("QH", 0.02)]
    feed(t, *floor, det("TH", 0.97, "NEW", alts))
    events = feed(
        t, *floor, det("TH", 0.97, "NEW", alts), det("QH", 0.9, 805), det("QD", 0.95, 830, y=330)
    )
    assert all(e.type != "referee" for e in events)
    assert "TH" in t.state.floor


def test_a_foul_whose_code_is_later_read_plainly_was_its_runner_up_and_still_a_foul_r1_1_r7():
    """Fresh held-out match 567 (Jordanian, tossed, 30 fps): a QH read QD 0.61 (QH 0.32)
    took a 9C beside a QS: a foul as either queen (R2.3, R7). The QD itself came later, read
    0.97 (TD 0.02): with no code of the earlier read making that capture legal, the QD was
    named TD (one deck) as only a guess, held unreadable, and that phantom TD lay on the floor
    for the rest of the round (5 false fouls). The plain read says which read was wrong: the
    earlier foul is corrected to its runner-up (still that foul, for the referee) and the
    card that came is the QD."""
    t = dealt(("9C", "5H", "4S", "QS"))  # (R1.2); seat 1 plays first (R1.5)
    misread = [("QD", 0.61), ("QH", 0.32), ("JD", 0.03)]
    (laid,) = feed(t, det("9C"), det("5H"), det("4S"), det("QS"), det("QD", 0.6, "NEW", misread))
    assert laid.type == CARD_LAID
    # a queen takes only queens (R2.3): with the QS it took the 9C, a wrong capture (R7)
    (foul,) = feed(t, det("5H"), det("4S"))
    assert (foul.type, foul.data["card"], foul.data["foul"]) == (FOUL, "QD", "wrong_capture")
    # seat 0's card, read plainly QD, lands where nothing lay: no queen on 5 4, a trail
    plain = [("QD", 0.97), ("TD", 0.02), ("QH", 0.004)]
    events = feed(t, det("5H"), det("4S"), det("QD", 0.97, "NEW", plain))
    fix = [e for e in events if e.type == "referee"]
    assert [(e.data["target"], e.data["payload"]) for e in fix] == [
        (foul.id, {"card": "QH", "by": "camera"})
    ]
    (turn,) = [e for e in events if e.type in (TURN, FOUL)]
    assert (turn.type, turn.data["card"], turn.data["verdict"], turn.data["seat"]) == (
        TURN,
        "QD",
        "trail",
        0,
    )
    assert [(f["card"], f["kind"], f["status"]) for f in t.state.fouls()] == [
        ("QH", "wrong_capture", PENDING)
    ]
    assert t.state.floor == ("4S", "5H", "QD")
