"""A card laid but read too faintly to accept: the cards it takes may name it (R2, R7).

The tracker keeps what the classifier said of a card that landed but was read too faintly to
be on the floor (`Snapshot.faint`); when cards then leave, the turns ask the Table which code
of that read, still in play (one deck, R1.1), takes exactly those cards legally. A K that
took the floor's K was a K (R2.3); a read that names another card more plainly is left to the
referee (it may be a foul, R7), never explained away.
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace as NS

import pytest

from controller.events import CARD_LAID, FOUL, PROMPT, REFEREE, ROUND_STARTED, TURN
from controller.simulator import Shot, SimVideo
from controller.table import Table
from controller.table_geometry import TableGeometry
from controller.table_state import replay
from controller.tracker import FloorTracker, TrackerConfig
from controller.turns import Snapshot
from tests.test_controller_tracker import InsideReader, lay_shots, scoop_shots, track
from tests.test_controller_turns import shown

GEO = TableGeometry.default(2)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def snap(self, cards: str, faint: tuple = (), unsure: str = "", faint_box=None) -> Snapshot:
        """The next view: `cards` read plainly; `faint`, a card read too faintly to accept,
        lying at `faint_box` where given."""
        self.t += 1.0
        return Snapshot(
            self.t,
            frozenset(cards.split()),
            faint=faint,
            unsure=frozenset(unsure.split()),
            faint_box=faint_box,
        )


FAINT_AT = (1, 2, 3, 4)  # where a faintly read card lies (its box)


def dealt(variant: str = "classic", floor: str = "9C 5H 4S KD"):
    """A two-player table whose first round started with `floor`; seat 1 plays first."""
    table = Table(variant, 2, 0)
    clock = Clock()
    table.feed_snapshot(clock.snap(floor))
    return table, clock


def test_a_faint_king_that_took_the_king_is_the_king_r2_3():
    # Seat 1 lays a card read only faintly (KS 0.6, KC 0.15, 3S 0.1 of its probability): no
    # turn yet. It takes the KD alone: only a K takes a K (R2.3), and KS is the read's
    # likeliest code that does, so the turn is a KS capture of KD, marked doubtful.
    table, clock = dealt()
    faint = (("KS", 0.6), ("KC", 0.15), ("3S", 0.1))
    assert table.feed_snapshot(clock.snap("9C 5H 4S KD", faint)) == []
    (turn,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert turn.type == TURN
    assert (turn.data["card"], turn.data["seat"], turn.data["verdict"]) == ("KS", 1, "capture")
    assert turn.data["takes"] == ["KD"]
    assert turn.data["doubtful"] is True and turn.data["by_capture"] is True
    assert turn.data["t_landed"] == 2.0  # when the faint card was first seen lying there
    assert table.state.match.captured(1) == ("KS", "KD")
    assert table.state.to_play == 0
    assert not [p for p in table.state.prompts if p.open]  # nobody is asked to show it


def test_one_deck_leaves_the_faint_reads_runner_up_r1_1():
    # Seat 1 takes the KC with a KS seen plainly; seat 0 trails the KD. Seat 1's next card is
    # read faintly as KD 0.73, KC 0.09, KH 0.09, 3H 0.07, KS 0.05, and it takes the KD. The KD
    # is the card it took, KC and KS were played or taken this round (one deck, R1.1): of
    # the codes left, KH is the likeliest, and a K takes a K (R2.3).
    table, clock = dealt(floor="9C 5H KC 4S")
    table.feed_snapshot(clock.snap("9C 5H KC 4S KS"))
    (ks,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert (ks.data["card"], ks.data["takes"]) == ("KS", ["KC"])
    (kd,) = table.feed_snapshot(clock.snap("9C 5H 4S KD"))
    assert (kd.data["card"], kd.data["seat"], kd.data["verdict"]) == ("KD", 0, "trail")
    faint = (("KD", 0.73), ("KC", 0.09), ("KH", 0.09), ("3H", 0.07), ("KS", 0.05))
    assert table.feed_snapshot(clock.snap("9C 5H 4S KD", faint)) == []
    (turn,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert (turn.data["card"], turn.data["seat"], turn.data["takes"]) == ("KH", 1, ["KD"])
    assert turn.data["by_capture"] is True


def test_the_faint_read_names_the_card_whose_capture_is_legal_r2_2():
    # A faint 9 (9D 0.5, 9H 0.3, 6D 0.1) took 9C and 5H+4S (R2.2): 9D.
    table, clock = dealt()
    faint = (("9D", 0.5), ("9H", 0.3), ("6D", 0.1))
    table.feed_snapshot(clock.snap("9C 5H 4S KD", faint))
    (turn,) = table.feed_snapshot(clock.snap("KD"))
    assert (turn.data["card"], turn.data["verdict"]) == ("9D", "capture")
    assert sorted(turn.data["takes"]) == ["4S", "5H", "9C"]


def test_a_read_that_names_another_card_plainly_is_left_to_the_referee_r7():
    # The read says 6S (0.6) and only faintly KS (0.2): a 6 cannot take the KD (a wrong
    # capture, if it was the 6), and KS is under half the 6S's share. Nothing is explained
    # away: the player is asked to show the card, as when nothing was read at all.
    table, clock = dealt()
    faint = (("6S", 0.6), ("KS", 0.2))
    table.feed_snapshot(clock.snap("9C 5H 4S KD", faint))
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert prompt.type == PROMPT and prompt.data["kind"] == "show_card"
    assert table.state.turns() == []


@pytest.mark.parametrize(
    "faint, judged",
    [((("6S", 0.7), ("KS", 0.1)), True), ((("6S", 0.45), ("KS", 0.2), ("QC", 0.15)), False)],
)
def test_a_play_nobody_showed_is_judged_by_its_plain_faint_read_r2_r7(faint, judged):
    # Seat 1's card is read faintly as 6S (0.7; KS 0.1) and takes the KD: no code of that
    # read takes a K legally (R2.3; KS is under half the 6S's share), so seat 1 is asked to
    # show the card. Nobody does: seat 0's 2C lands and stays as seat 1's 8D comes. The
    # play is judged by its plain read: a 6 that took a K, a wrong capture held for the
    # referee (R7), the KD on seat 1's side meanwhile. A read plain enough for no code (6S
    # 0.45) leaves the card unknown (R7 unreadable).
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD", faint))
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert prompt.data["kind"] == "show_card"
    assert shown(table.feed_snapshot(clock.snap("9C 5H 4S 2C"))) == "2C"
    held, c2, d8 = [
        e for e in table.feed_snapshot(clock.snap("9C 5H 4S 2C 8D")) if e.type != PROMPT
    ]
    assert (held.type, held.data["seat"], held.data["status"]) == (FOUL, 1, "pending")
    if judged:
        assert (held.data["card"], held.data["verdict"], held.data["foul"]) == (
            "6S", "foul", "wrong_capture"
        )  # fmt: skip
        assert held.data["takes"] == ["KD"] and held.data["doubtful"] is True
    else:
        assert (held.data["card"], held.data["verdict"]) == (None, "unreadable")
    assert table.state.match.captured(1)[-1] == "KD"
    assert not [p for p in table.state.prompts if p.open]  # the held play answers the prompt
    assert [(e.data["card"], e.data["seat"], e.data["verdict"]) for e in (c2, d8)] == [
        ("2C", 0, "trail"), ("8D", 1, "trail")
    ]  # fmt: skip


def test_a_faint_read_of_codes_no_longer_in_play_explains_nothing_r1_1():
    # The read names only KD (on the floor, the card taken) and QS (not a K): no code left
    # in play takes the KD legally, so the player is asked to show the card.
    table, clock = dealt()
    faint = (("KD", 0.8), ("QS", 0.1))
    table.feed_snapshot(clock.snap("9C 5H 4S KD", faint))
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert prompt.data["kind"] == "show_card"


@pytest.mark.parametrize("shown, named", [("JC", True), ("QC", False)])
def test_a_card_shown_only_faintly_is_named_by_what_it_took_r2_4_r7(shown, named):
    # Seat 1's card swept 9C 5H 4S KD unseen: the camera asks for it (R7). The player lays
    # it down to show it, and it is read only faintly (`shown` 0.69, KC 0.15), then taken
    # back. A JC takes the whole floor (R2.4): the turn is the JC's sweep, marked doubtful,
    # and the prompt is answered. A QC would take no card there (R2.3), and the read names
    # no code that took them: the prompt stays open for the referee, nothing is scored.
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD"))
    (prompt,) = table.feed_snapshot(clock.snap(""))
    assert prompt.data["kind"] == "show_card"
    faint = ((shown, 0.69), ("KC", 0.15), ("QS", 0.03))
    assert table.feed_snapshot(clock.snap("", faint, faint_box=FAINT_AT)) == []
    out = table.feed_snapshot(clock.snap(""))
    if named:
        (turn,) = out
        assert (turn.type, turn.data["card"], turn.data["seat"], turn.data["verdict"]) == (
            TURN, "JC", 1, "sweep"
        )  # fmt: skip
        assert turn.data["doubtful"] is True and turn.data["by_capture"] is True
        assert turn.data["prompt"] == prompt.id
        assert sorted(table.state.match.captured(1)) == ["4S", "5H", "9C", "JC", "KD"]
        assert not [p for p in table.state.prompts if p.open]
        assert table.state.to_play == 0
    else:
        assert out == []
        assert [p.kind for p in table.state.prompts if p.open] == ["show_card"]
        assert table.state.turns() == []


def test_a_faint_jack_that_swept_the_floor_scores_its_point_r2_4_r4_3():
    # A faint JC (0.7) and the whole floor taken: a J sweep, no basra (R3.2); the J is a
    # point card (R4.3) in seat 1's pile.
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD", (("JC", 0.7), ("QC", 0.2))))
    (turn,) = table.feed_snapshot(clock.snap(""))
    assert (turn.data["card"], turn.data["verdict"], turn.data["basra"]) == ("JC", "sweep", False)
    assert set(table.state.match.captured(1)) == {"JC", "9C", "5H", "4S", "KD"}


def test_a_held_guess_does_not_use_up_its_code_r1_1_r7():
    # Seat 1's card was read only as a best guess, KS (one deck ruled out its plainer reads):
    # the capture of KD is held for the referee (R7 unreadable). A KS seen plainly later is
    # that KS, not a duplicate: a guess names no card.
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD KS", unsure="KS"))
    (held,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert held.type == FOUL and held.data["verdict"] == "unreadable"
    assert held.data["card"] == "KS"
    (trail,) = table.feed_snapshot(clock.snap("9C 5H 4S KS"))
    assert trail.type == TURN
    assert (trail.data["card"], trail.data["seat"], trail.data["verdict"]) == ("KS", 0, "trail")


def test_a_code_a_held_guess_names_is_the_card_read_plainly_as_it_later_r1_1_r7():
    # Held-out match 402 (`benchmarks/table.py --cards any`): seat 1 trails a 6D and seat 0's
    # TD takes 4S 6D (R2.2). Seat 1's next card is read plainly as a 6D (0.88, TD 0.10, 9D
    # 0.02), but both were played (one deck, R1.1): it can only be guessed, 9D, and its capture
    # of the 9C is held for the referee (R7 unreadable). Seat 0's card is then read plainly as
    # the 9D (0.98): the guess named no card, so this is the 9D's trail (R2.7). Before, the
    # held guess kept the code and the 9D was guessed JD; when it was later read plainly where
    # it lay, the table counted one play too many and every later play went to the next seat.
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD 6D"))
    table.feed_snapshot(clock.snap("9C 5H 4S KD 6D TD"))
    (took,) = table.feed_snapshot(clock.snap("9C 5H KD"))
    assert (took.data["card"], sorted(took.data["takes"])) == ("TD", ["4S", "6D"])
    snap = clock.snap("9C 5H KD 9D", unsure="9D")
    read_6d = (("9D", (("6D", 0.88), ("TD", 0.1), ("9D", 0.02))),)
    guessed = Snapshot(snap.t, snap.floor, 0.2, unsure=snap.unsure, confidences=(("9D", 0.2),),
                       readings=read_6d)  # fmt: skip
    table.feed_snapshot(guessed)
    (held,) = table.feed_snapshot(clock.snap("5H KD"))
    assert (held.type, held.data["verdict"], held.data["card"]) == (FOUL, "unreadable", "9D")
    snap = clock.snap("5H KD 9D")
    read_9d = (("9D", (("9D", 0.98), ("TD", 0.01), ("JD", 0.005))),)
    (trail,) = table.feed_snapshot(Snapshot(snap.t, snap.floor, readings=read_9d))
    assert (trail.type, trail.data["card"], trail.data["seat"]) == (TURN, "9D", 0)
    assert trail.data["verdict"] == "trail"
    assert table.state.to_play == 1


class FaintReader:
    """Reads the exact labels, but one code only faintly (its classifier's top five shares
    given as `alts`), as the held-out deck's court cards are read."""

    def __init__(self, geometry: TableGeometry, faint: str, alts: list, size=(1280, 720)):
        w, h = size
        x1, y1, x2, y2 = geometry.floor_box(w, h)
        mx, my = int(w * 0.04), int(h * 0.04)
        self.ox, self.oy = max(0, x1 - mx), max(0, y1 - my)
        self.shape = (min(h, y2 + my) - self.oy, min(w, x2 + mx) - self.ox)
        self.faint, self.alts = faint, alts
        self.labels: list = []

    def observe(self, image, t):
        if image.shape[:2] != self.shape:
            return NS(t=t, cards=[])
        cards = []
        for lab in self.labels:
            box = [lab.box[0] - self.ox, lab.box[1] - self.oy, lab.box[2] - self.ox,
                   lab.box[3] - self.oy]  # fmt: skip
            if lab.code == self.faint:
                top = self.alts[0][0]
                cards.append(NS(code=top, confidence=0.08, box=box, alts=self.alts))
            else:
                cards.append(NS(code=lab.code, confidence=0.97, box=box,
                                alts=[(lab.code, 0.97)]))  # fmt: skip
        return NS(t=t, cards=cards)


def _track_faint(shots: list, each=None) -> list[Snapshot]:
    """The tracker's snapshots of a rendered video whose KS is read faintly (KS 0.45, KC
    0.15, 3S 0.1); `each(tracker, snap)` is called after every snapshot."""
    video = SimVideo(None, shots, 15, (1280, 720), "bellot-lgpl21", 9, GEO)
    reader = FaintReader(GEO, "KS", [("KS", 0.45), ("KC", 0.15), ("3S", 0.1)])
    return track(video, reader=reader, each=each)[0]


def test_the_tracker_keeps_what_it_read_of_a_card_too_faint_to_accept():
    # A KS lands beside the KD; the recogniser reads it at 0.08 (KS 0.45, KC 0.15, 3S 0.1 of
    # the probability), far under the bar for a new card: the floor is still {9C, KD}, and
    # the snapshot carries the read's shares, each as a share of the read's total (0.7).
    from vision.scene import CardPlacement

    c9 = CardPlacement("9C", (420.0, 330.0), 4.0, 115.0)
    kd = CardPlacement("KD", (620.0, 330.0), -3.0, 115.0)
    ks = CardPlacement("KS", (820.0, 420.0), 2.0, 115.0)
    snaps = _track_faint(
        [Shot(0.8, [c9, kd], [], frozenset({"9C", "KD"})), *lay_shots([c9, kd], ks)]
    )
    assert snaps[0].floor == frozenset({"9C", "KD"}) and snaps[0].faint == ()
    last = snaps[-1]
    assert last.floor == frozenset({"9C", "KD"})
    shares = dict(last.faint)
    assert abs(shares["KS"] - 0.45 / 0.7) < 1e-6
    assert abs(shares["KC"] - 0.15 / 0.7) < 1e-6
    assert set(shares) == {"KS", "KC", "3S"}


@pytest.mark.parametrize(("x", "holder_conf"), [(490.0, 0.24), (505.0, 0.24), (525.0, 0.24),
                                               (490.0, 0.65)])  # fmt: skip
def test_a_cards_index_read_inside_the_card_it_landed_over_is_a_faint_read_r2_2(x, holder_conf):
    """Fresh held-out match 541 (tossed, 30 fps): a 5D tossed over the corner of an 8C. The
    recogniser missed the 5D's body; its index, inside the 8C's box, was read 5D 0.64, JD
    0.26 (0.23 sure) and reported at the 8C's box, so the tracker took it for the 8C read
    again. The 5D then took the 5C and the 2D with the 3H (R2.2); no read had named it, and
    the table asked seat 3 to show its card and held the play. Another code read in the very
    box of a card named there, where that place changed (`tracker.INSIDE_CHANGED`, 0.1; the
    5D changed 0.30 of the 8C's place, 0.296 at 0.3 of the light, which a landing's own bar,
    0.3, missed), is a card landed there read too faintly to accept: the snapshot keeps its
    read, so the capture may name it. Laid over less of the 8C (0.19 of its place changed),
    the same; a place that hardly changed (0.04) holds no card landed, and neither does a read
    inside a card read far more surely (`tracker.INSIDE_AS_SURE`: held-out match 470, a KC
    read 0.13 sure in the figure of a QD read 0.65 as the 4C beside it was scooped: taken for
    a faint trail, it put every later play of the round at the wrong seat)."""
    from vision.scene import CardPlacement

    c8 = CardPlacement("8C", (420.0, 330.0), 4.0, 115.0)
    kd = CardPlacement("KD", (720.0, 330.0), -3.0, 115.0)
    d5 = CardPlacement("5D", (x, 300.0), 30.0, 115.0)  # its corner over the 8C's
    shots = [Shot(0.8, [c8, kd], [], frozenset({"8C", "KD"})), *lay_shots([c8, kd], d5)]
    video = SimVideo(None, shots, 15, (1280, 720), "bellot-lgpl21", 9, GEO)
    alts = [("5D", 0.64), ("JD", 0.26), ("9D", 0.01)]
    snaps = track(video, reader=InsideReader(GEO, "5D", "8C", alts, 0.23, holder_conf))[0]
    assert snaps[0].floor == frozenset({"8C", "KD"}) and snaps[0].faint == ()
    last = snaps[-1]
    assert last.floor == frozenset({"8C", "KD"})
    shares = dict(last.faint)
    if x > 520 or holder_conf > 0.5:
        assert shares == {}
    else:
        assert abs(shares["5D"] - 0.64 / 0.91) < 1e-6 and abs(shares["JD"] - 0.26 / 0.91) < 1e-6


def test_a_faint_card_that_stays_as_the_next_comes_was_a_trail_r2_7():
    # Seat 1's card reads faintly KH 0.65 (KD 0.14, TD 0.12) where it landed; no K lies on
    # the floor, so a KH takes nothing there (R2.3, R2.7). Seat 0's 8C (seen plainly) comes
    # while it stays: the KH was seat 1's trail, the 8C seat 0's trail (nothing sums to 8:
    # R2.2), and the KH lies on the floor from then on (the tracker keeps it at its place).
    table, clock = dealt(floor="9C 5H 4S QD")
    box = (600.0, 300.0, 680.0, 420.0)
    faint = (("KH", 0.65), ("KD", 0.14), ("TD", 0.12))
    snap = clock.snap("9C 5H 4S QD", faint)
    assert table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box)) == []
    kh, c8 = table.feed_snapshot(clock.snap("9C 5H 4S QD 8C"))
    assert (kh.type, kh.data["card"], kh.data["seat"], kh.data["verdict"]) == (
        "turn", "KH", 1, "trail"
    )  # fmt: skip
    assert kh.data["faint"] is True and kh.data["doubtful"] is True
    assert (c8.data["card"], c8.data["seat"], c8.data["verdict"]) == ("8C", 0, "trail")
    assert set(table.state.floor) == {"9C", "5H", "4S", "QD", "KH", "8C"}
    assert table.tracker.cards["KH"] == list(box)
    # seat 1's KS (seen plainly) takes the KH (R2.3)
    table.feed_snapshot(clock.snap("9C 5H 4S QD KH 8C KS"))
    (ks,) = table.feed_snapshot(clock.snap("9C 5H 4S QD 8C"))
    assert (ks.data["card"], ks.data["seat"], ks.data["takes"]) == ("KS", 1, ["KH"])


def test_a_faint_card_read_without_a_clear_leader_is_held_as_a_guess_r7():
    # KH 0.4 against KS 0.3: too close to judge. The turn is still seat 1's (the seat order
    # goes on) but held for the referee with KH as the best guess; the 8C is seat 0's.
    table, clock = dealt(floor="9C 5H 4S QD")
    faint = (("KH", 0.4), ("KS", 0.3))
    table.feed_snapshot(clock.snap("9C 5H 4S QD", faint, faint_box=FAINT_AT))
    held, c8 = table.feed_snapshot(clock.snap("9C 5H 4S QD 8C"))
    assert (held.type, held.data["verdict"], held.data["card"], held.data["seat"]) == (
        FOUL, "unreadable", "KH", 1
    )  # fmt: skip
    assert (c8.type, c8.data["card"], c8.data["seat"]) == (TURN, "8C", 0)


def test_a_faint_card_that_could_have_captured_is_held_not_judged_r2_6_r7():
    # A faint 9D (0.7) stays beside the 9C it could take (R2.6: capture is compulsory): a
    # missed capture if the read is right, so the referee decides; play goes on.
    table, clock = dealt(floor="9C 5H 4S QD")
    faint = (("9D", 0.7), ("6D", 0.1))
    table.feed_snapshot(clock.snap("9C 5H 4S QD", faint, faint_box=FAINT_AT))
    held, c8 = table.feed_snapshot(clock.snap("9C 5H 4S QD 8C"))
    assert (held.type, held.data["verdict"], held.data["card"]) == (FOUL, "unreadable", "9D")
    assert c8.data["seat"] == 0


def test_a_faint_card_adopted_as_a_trail_stays_on_the_floor_in_later_views():
    # The KS read at 0.08 is adopted where it lies (its turn was judged a trail); a 4C comes
    # next, read plainly: the floor is then {9C, KD, KS, 4C}, the KS kept at its place.
    from vision.scene import CardPlacement

    c9 = CardPlacement("9C", (420.0, 330.0), 4.0, 115.0)
    kd = CardPlacement("KD", (620.0, 330.0), -3.0, 115.0)
    ks = CardPlacement("KS", (820.0, 420.0), 2.0, 115.0)
    c4 = CardPlacement("4C", (520.0, 470.0), -5.0, 115.0)
    shots = [
        Shot(0.8, [c9, kd], [], frozenset({"9C", "KD"})),
        *lay_shots([c9, kd], ks),
        *lay_shots([c9, kd, ks], c4),
    ]

    def adopt(tracker: FloorTracker, snap: Snapshot) -> None:
        if snap.faint and "KS" not in tracker.cards:
            assert snap.faint_box is not None
            tracker.adopt("KS", snap.faint_box, 0.08)

    snaps = _track_faint(shots, adopt)
    assert [s.floor for s in snaps][-1] == frozenset({"9C", "KD", "KS", "4C"})


def test_a_restarted_table_keeps_a_faint_trail_where_it_lies():
    # The log holds where the faint KH lies: a table resumed from it keeps the KH there.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("9C 5H 4S QD"))
    box = (600.0, 300.0, 680.0, 420.0)
    snap = clock.snap("9C 5H 4S QD")
    faint = (("KH", 0.65), ("KD", 0.14))
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    table.feed_snapshot(clock.snap("9C 5H 4S QD 8C"))
    resumed = Table(events=log)
    assert resumed.tracker.cards["KH"] == list(box)
    assert resumed.state.to_dict() == table.state.to_dict()


def _guessed_faint_queen(restart_at: float | None) -> tuple[list, Table]:
    """Four dealt cards; seat 1 tosses a QH read only faintly (QH 0.80, TH 0.15), from its one
    lower-left index, at a square guessed around it that reaches off the card; seat 0 lays an
    8S (the QH is judged a trail, read whole from then on), seat 1 a 2D, and seat 0 scoops
    the QH. The table restarted from its log at `restart_at` (seconds) where given: the
    events of that run and the table at the end."""
    from tests.test_controller_tracker import GuessedFaintReader
    from vision.scene import CardPlacement

    def lay(code, x, y, turned):
        return CardPlacement(code, (x, y), turned, 115.0)

    deal = [lay("9C", 380, 300, 4), lay("5H", 850, 300, -3), lay("4S", 620, 260, 2),
            lay("KD", 900, 470, -5)]  # fmt: skip
    queen, eight, two = lay("QH", 480, 440, 0), lay("8S", 700, 480, 4), lay("2D", 300, 520, 3)
    top, bottom = (600.0, -40.0), (800.0, 760.0)  # seat 1's and seat 0's arms
    shots = [
        Shot(0.8, deal, [], frozenset(p.code for p in deal)),
        *lay_shots(deal, queen, top),
        *lay_shots([*deal, queen], eight, bottom),
        *lay_shots([*deal, queen, eight], two, top),
        *scoop_shots([*deal, queen, eight, two], queen, bottom),
    ]
    video = SimVideo(None, shots, 15, (1280, 720), "bellot-lgpl21", 9, GEO)
    reader = GuessedFaintReader(
        GEO, 0.8 + 1.6 + 0.5, [("QH", 0.80), ("TH", 0.15), ("TD", 0.01)]
    )  # as the 8S comes

    def start(events=None) -> Table:
        return Table("classic", 2, 0, geometry=GEO, recognizer=reader, events=events,
                     subscribers=[log.append], tracker_config=TrackerConfig(reference=1.0))  # fmt: skip

    log: list = []
    table = start()
    for t, frame, labels in video.frames(with_labels=True):
        reader.labels = labels
        if restart_at is not None and t >= restart_at:
            table, restart_at = start(list(log)), None
        table.feed_frame(frame, t)
    return log, table


def test_a_restarted_table_keeps_the_index_a_faint_trails_box_was_guessed_around_r2_7():
    # The faint QH's box is only a square guessed around its index: the turn logs that
    # index beside the box, and a table restarted just after it (before the QH is read
    # whole) adopts the QH there knowing the box a guess, as the live table knew it; the
    # rest of the round reads as the live table read it (the 2D a trail; the QH scooped,
    # seat 0 asked to show the card that took it).
    live_log, live = _guessed_faint_queen(None)
    log, table = _guessed_faint_queen(3.45)
    queen = next(e for e in log if e.type == TURN and e.data["card"] == "QH")
    assert (queen.data["verdict"], queen.data["faint"]) == ("trail", True)  # R2.7: no Q lay
    x1, y1, x2, y2 = queen.data["box"]
    ix1, iy1, ix2, iy2 = queen.data["index"]
    assert x1 < ix1 < ix2 < x2 and y1 < iy1 < iy2 < y2  # the box only guessed around it
    resumed = Table(events=[e for e in log if e.t <= queen.t])
    assert resumed.tracker.guessed_index(code="QH") == queen.data["index"]
    strip = [(e.type, e.data.get("card"), e.data.get("floor_after")) for e in log]
    assert strip == [(e.type, e.data.get("card"), e.data.get("floor_after")) for e in live_log]
    assert [e.type for e in log][-1] == PROMPT and log[-1].data["kind"] == "show_card"
    assert "QH" not in log[-1].data["floor_after"]
    assert table.state.to_dict()["floor"] == live.state.to_dict()["floor"]


def _laid(clock: Clock, cards: str, card: str, conf: float, reading: tuple) -> Snapshot:
    snap = clock.snap(cards)
    return Snapshot(
        snap.t,
        snap.floor,
        confidence=conf,
        confidences=((card, conf),),
        readings=((card, reading),),
    )


def _assert_taken_back(fix, turn, target: int, alt: str, card: str) -> None:
    """The camera corrected the earlier turn `target` to `alt`, and seat 1's card took its
    code back: `card`, a trail."""
    assert (fix.type, fix.data["target"], fix.data["payload"]) == (
        "referee", target, {"card": alt, "by": "camera"}
    )  # fmt: skip
    assert (turn.type, turn.data["card"], turn.data["seat"], turn.data["verdict"]) == (
        TURN, card, 1, "trail"
    )  # fmt: skip


def _guessed(clock: Clock, cards: str, guess: str, reading: tuple, conf: float) -> Snapshot:
    """A view whose new card `guess` is only a best guess (one deck ruled its read out)."""
    from dataclasses import replace

    return replace(_laid(clock, cards, guess, conf, reading), unsure=frozenset({guess}))


def test_a_doubtful_jack_that_took_one_five_was_the_five_r2_2_r2_4():
    # A card read doubtfully as JH (0.3; its read: JH 0.5, 5H 0.3, 6H 0.1) takes only the
    # 5C: a J takes the whole floor (R2.4), so as a JH it would be a wrong capture; the 5H,
    # the read's runner-up, takes exactly the 5C (R2.2: no two cards sum to 5 here). The
    # turn is the 5H's capture, marked doubtful, with what it was first read as.
    table, clock = dealt(floor="9C 5C 4S KD")
    reading = (("JH", 0.5), ("5H", 0.3), ("6H", 0.1))
    (laid,) = table.feed_snapshot(_laid(clock, "9C 5C 4S KD JH", "JH", 0.3, reading))
    assert laid.data["card"] == "JH"
    (turn,) = table.feed_snapshot(clock.snap("9C 4S KD"))
    assert turn.type == TURN
    assert (turn.data["card"], turn.data["read_as"], turn.data["verdict"]) == (
        "5H", "JH", "capture"
    )  # fmt: skip
    assert turn.data["takes"] == ["5C"] and turn.data["doubtful"] is True
    assert table.state.match.captured(1) == ("5H", "5C")


def test_a_plainly_read_jack_that_took_part_of_the_floor_is_a_foul_r2_4_r7():
    # The same capture with the JH read plainly (0.95): the foul stands for the referee.
    table, clock = dealt(floor="9C 5C 4S KD")
    reading = (("JH", 0.9), ("5H", 0.05))
    table.feed_snapshot(_laid(clock, "9C 5C 4S KD JH", "JH", 0.95, reading))
    (foul,) = table.feed_snapshot(clock.snap("9C 4S KD"))
    assert (foul.type, foul.data["card"], foul.data["foul"]) == (FOUL, "JH", "wrong_capture")
    assert "read_as" not in foul.data


def test_a_runner_up_under_half_the_reads_share_leaves_the_foul_r7():
    # Read doubtfully (0.3) but the read gives 5H only 0.2 against JH 0.6: the foul stands.
    table, clock = dealt(floor="9C 5C 4S KD")
    reading = (("JH", 0.6), ("5H", 0.2))
    table.feed_snapshot(_laid(clock, "9C 5C 4S KD JH", "JH", 0.3, reading))
    (foul,) = table.feed_snapshot(clock.snap("9C 4S KD"))
    assert (foul.data["card"], foul.data["foul"]) == ("JH", "wrong_capture")


def test_a_doubtful_ten_whose_runner_up_takes_waits_for_the_scoop_r2_2_r2_7():
    # A card read doubtfully as TC (0.30; its read: TC 0.50, 6C 0.41) lands on AH 5C 8S KD.
    # As a 10 it takes nothing (no floor cards sum to 10: 1+8 = 9, 5+8 = 13; R2.2), so as
    # read it would be a trail, final at once (R2.7); but the 6C, the read's runner-up with
    # over half its share, takes AH+5C (1+5 = 6). Its turn waits for the scoop: AH and 5C
    # leave with it, and the turn is the 6C's capture of them, marked doubtful, never a TC
    # trail followed by cards leaving unseen.
    table, clock = dealt(floor="AH 5C 8S KD")
    reading = (("TC", 0.5), ("6C", 0.41), ("9C", 0.03))
    (laid,) = table.feed_snapshot(_laid(clock, "AH 5C 8S KD TC", "TC", 0.3, reading))
    assert (laid.type, laid.data["card"]) == (CARD_LAID, "TC")
    (turn,) = table.feed_snapshot(clock.snap("8S KD"))
    assert turn.type == TURN
    assert (turn.data["card"], turn.data["read_as"], turn.data["verdict"]) == (
        "6C", "TC", "capture"
    )  # fmt: skip
    assert set(turn.data["takes"]) == {"AH", "5C"} and turn.data["doubtful"] is True
    assert set(table.state.match.captured(1)) == {"6C", "AH", "5C"}
    assert set(table.state.floor) == {"8S", "KD"}
    assert not [p for p in table.state.prompts if p.open]  # nobody is asked to show it


def test_a_doubtful_ten_that_stays_is_its_own_trail_r2_7():
    # The same doubtful TC, but it stays as seat 0's 3D comes: it took nothing, a trail of
    # the TC as read (a 6C there would have been a missed capture, R2.6); then the 3D trails.
    table, clock = dealt(floor="AH 5C 8S KD")
    reading = (("TC", 0.5), ("6C", 0.41), ("9C", 0.03))
    table.feed_snapshot(_laid(clock, "AH 5C 8S KD TC", "TC", 0.3, reading))
    tc, d3 = table.feed_snapshot(clock.snap("AH 5C 8S KD TC 3D"))
    assert (tc.type, tc.data["card"], tc.data["seat"], tc.data["verdict"]) == (
        TURN, "TC", 1, "trail"
    )  # fmt: skip
    assert (d3.data["card"], d3.data["seat"], d3.data["verdict"]) == ("3D", 0, "trail")
    assert set(table.state.floor) == {"AH", "5C", "8S", "KD", "TC", "3D"}


def test_a_plainly_read_ten_that_takes_nothing_is_a_trail_at_once_r2_7():
    # Read plainly (0.95; TC 0.9, 6C 0.05): the trail is final as soon as it lands.
    table, clock = dealt(floor="AH 5C 8S KD")
    reading = (("TC", 0.9), ("6C", 0.05))
    (turn,) = table.feed_snapshot(_laid(clock, "AH 5C 8S KD TC", "TC", 0.95, reading))
    assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "TC", "trail")


@pytest.mark.parametrize(
    "reading, foul",
    [
        ((("8D", 0.83), ("TD", 0.10), ("6D", 0.05)), True),  # TD under half the 8D's share
        ((("8D", 0.55), ("TD", 0.35), ("6D", 0.05)), False),  # TD over half of it
    ],
)
def test_a_capture_names_a_doubtful_trail_only_by_a_plausible_runner_up_r2_2_r7(reading, foul):
    # Seat 1 trails a card read doubtfully (0.3) as 8D on 2C QH 5S KD (as an 8D or a TD it
    # takes nothing: 2+5 = 7, R2.2, R2.7). Seat 0's TC, read plainly, lands: 2C+8D make 10,
    # so it waits for its scoop. It takes the "8D" alone, leaving the 2C: as read, a wrong
    # capture (a 10 must take 2C+8D, R2.2, R2.8). Were the trail a TD, the TC took it
    # legally. The camera names the trail TD only where the read gave TD at least half its
    # share for 8D; a read that named the 8D plainly (0.83 against 0.10) keeps it, and the
    # foul goes to the referee (R7), never explained away.
    table, clock = dealt(floor="2C QH 5S KD")
    (d8,) = table.feed_snapshot(_laid(clock, "2C QH 5S KD 8D", "8D", 0.3, reading))
    assert (d8.type, d8.data["card"], d8.data["verdict"]) == (TURN, "8D", "trail")
    (laid,) = table.feed_snapshot(clock.snap("2C QH 5S KD 8D TC"))
    assert (laid.type, laid.data["card"]) == (CARD_LAID, "TC")
    out = table.feed_snapshot(clock.snap("2C QH 5S KD"))
    if foul:
        (turn,) = out
        assert (turn.type, turn.data["card"], turn.data["foul"]) == (FOUL, "TC", "wrong_capture")
        assert turn.data["takes"] == ["8D"]
    else:
        fix, turn = out
        assert (fix.type, fix.data["target"], fix.data["payload"]) == (
            "referee", d8.id, {"card": "TD", "by": "camera", "capture": True}
        )  # fmt: skip
        assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "TC", "capture")
        assert turn.data["takes"] == ["TD"]


def _qh_read_kd_then_kc(clock: Clock, table: Table, second: str = "KC"):
    """Seat 1 trails a card read doubtfully (0.17) as KD, KD 0.71, QD 0.20 (a QH: as a K or
    a Q it takes nothing from 2S TH 5C 8D, R2.3, R2.7); seat 0 then lays `second`, read
    plainly, and leaves it lying as seat 1 trails a 9H. Returns the trail's and `second`'s
    turns."""
    reading = (("KD", 0.71), ("QD", 0.20), ("KS", 0.04))
    (kd,) = table.feed_snapshot(_laid(clock, "2S TH 5C 8D KD", "KD", 0.17, reading))
    assert (kd.type, kd.data["card"], kd.data["verdict"]) == (TURN, "KD", "trail")
    out = table.feed_snapshot(clock.snap(f"2S TH 5C 8D KD {second}"))
    out += table.feed_snapshot(clock.snap(f"2S TH 5C 8D KD {second} 9H"))  # seat 1: a trail
    (later,) = [e for e in out if e.type in (TURN, FOUL) and e.data["card"] == second]
    return kd, later


@pytest.mark.parametrize("second, witness", [("KC", True), ("6H", False)])
def test_a_foul_a_doubtful_trails_runner_up_explains_lets_a_capture_name_it_r2_3_r2_6(
    second, witness
):
    # The "KD" is a QH misread. Seat 0's KC left lying beside it is, as read, a missed
    # capture (a K must take the K, R2.3, R2.6): a foul pending for the referee. The QD the
    # read gave 0.20 (under half its 0.71 for KD, too little alone to rename a plain read)
    # would make that KC a legal trail (R2.7): a second witness against the read. Seat 1's
    # QC, read plainly, then takes the card: the camera names the trail QD (R2.3), the QC's
    # capture is legal, and the KC, judged again beside a Q, was a trail. Where seat 0
    # trailed a 6H instead (no foul), nothing but the read speaks for QD: the QC is judged
    # a trail as it lands (a Q beside a K, R2.3, R2.7), as before.
    table, clock = dealt(floor="2S TH 5C 8D")
    kd, later = _qh_read_kd_then_kc(clock, table, second)
    if witness:
        assert (later.type, later.data["card"], later.data["foul"]) == (
            FOUL, "KC", "missed_capture"
        )  # fmt: skip
    else:
        assert (later.type, later.data["card"], later.data["verdict"]) == (TURN, "6H", "trail")
    # seat 0's QC lands beside the "KD", then takes it
    out = table.feed_snapshot(clock.snap(f"2S TH 5C 8D KD {second} 9H QC"))
    if not witness:
        (trail,) = out
        assert (trail.type, trail.data["card"], trail.data["verdict"]) == (TURN, "QC", "trail")
        return
    (laid,) = out
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "QC", 0)
    fix, turn = table.feed_snapshot(clock.snap("2S TH 5C 8D KC 9H"))
    assert (fix.type, fix.data["target"], fix.data["payload"]) == (
        "referee", kd.id, {"card": "QD", "by": "camera", "capture": True}
    )  # fmt: skip
    assert (turn.type, turn.data["card"], turn.data["verdict"], turn.data["takes"]) == (
        TURN, "QC", "capture", ["QD"]
    )  # fmt: skip
    kc = next(tr for tr in table.state.turns() if tr.event_id == later.id)
    assert (kc.card, kc.verdict, kc.floor_before) == ("KC", "trail", ("2S", "5C", "8D", "TH", "QD"))
    assert table.state.fouls() == [] and table.state.pending() == []
    assert not table.state.errors


def test_a_referees_correct_of_a_card_lying_judges_again_the_fouls_that_saw_it_r2_6_r7():
    # The KC's missed capture rested on the "KD" read: the referee corrects that trail to the
    # QH it was. The KC, judged again on the renamed floor, was a legal trail (R2.7): no
    # foul waits, and its player keeps the turn's score.
    table, clock = dealt(floor="2S TH 5C 8D")
    kd, kc = _qh_read_kd_then_kc(clock, table)
    assert [f["event_id"] for f in table.state.fouls()] == [kc.id]
    table.referee("correct", kd.id, {"card": "QH"})
    turns = {tr.event_id: tr for tr in table.state.turns()}
    assert (turns[kd.id].card, turns[kd.id].verdict) == ("QH", "trail")
    assert (turns[kc.id].verdict, turns[kc.id].foul) == ("trail", None)
    assert "QH" in turns[kc.id].floor_after and "KD" not in turns[kc.id].floor_after
    assert table.state.fouls() == []


def test_a_doubtful_jack_left_lying_was_a_five_that_trailed_r2_4_r2_7():
    # A card read doubtfully as JH (0.34; JH 0.57, 5H 0.37) lies on 8H QS and stays as seat
    # 0's 6S comes: a J must take the floor (R2.4), so as a JH it would be a missed capture;
    # a 5H takes nothing there (R2.7), the read's runner-up with over half its share. It is
    # the 5H's trail, and the 5H lies on the floor from then on, for the turns and for the
    # 6S's turn judged in the same view. The real JH, seen plainly later, sweeps.
    table, clock = dealt(floor="8H QS 3C 2D")
    table.feed_snapshot(clock.snap("8H QS 3C 2D 5C"))  # seat 1 takes 3C+2D with the 5C
    (c5,) = table.feed_snapshot(clock.snap("8H QS"))
    assert (c5.data["card"], c5.data["takes"]) == ("5C", ["2D", "3C"])
    table.feed_snapshot(clock.snap("8H QS 9S"))  # seat 0 trails 9S
    reading = (("JH", 0.57), ("5H", 0.37), ("9H", 0.02))
    (laid,) = table.feed_snapshot(_laid(clock, "8H QS 9S JH", "JH", 0.34, reading))
    assert laid.type == "card_laid"
    h5, s6 = table.feed_snapshot(clock.snap("8H QS 9S JH 6S"))
    assert (h5.type, h5.data["card"], h5.data["read_as"], h5.data["verdict"]) == (
        TURN, "5H", "JH", "trail"
    )  # fmt: skip
    assert (s6.data["card"], s6.data["seat"], s6.data["verdict"]) == ("6S", 0, "trail")
    assert set(s6.data["floor_before"]) == {"8H", "QS", "9S", "5H"}
    assert set(table.state.floor) == {"8H", "QS", "9S", "5H", "6S"}
    assert not table.state.errors
    # the turns hold the 5H too: the real JH, read plainly, sweeps the floor (R2.4)
    table.feed_snapshot(clock.snap("8H QS 9S 5H 6S JH"))
    (jh,) = table.feed_snapshot(clock.snap(""))
    assert (jh.type, jh.data["card"], jh.data["verdict"]) == (TURN, "JH", "sweep")
    assert set(jh.data["takes"]) == {"8H", "QS", "9S", "5H", "6S"}


def test_the_real_jack_laid_beside_the_misread_one_claims_its_code_r1_1():
    # As above, but the real JH lands in the very view where the doubtful "JH" (a 5H) is seen
    # staying: while that card held the code, the tracker could only guess the new one (JD,
    # its plain read being JH 0.99). Once the first card is renamed 5H, the code is free (one
    # deck): the new card is the JH, laid plainly, and its sweep is scored, not held.
    table, clock = dealt(floor="8H QS 3C 2D")
    table.feed_snapshot(clock.snap("8H QS 3C 2D 5C"))
    table.feed_snapshot(clock.snap("8H QS"))
    table.feed_snapshot(clock.snap("8H QS 9S"))
    reading = (("JH", 0.57), ("5H", 0.37), ("9H", 0.02))
    table.feed_snapshot(_laid(clock, "8H QS 9S JH", "JH", 0.34, reading))
    snap = _guessed(clock, "8H QS 9S JH JD", "JD", (("JH", 0.99), ("JD", 0.01)), 0.66)
    h5, laid = table.feed_snapshot(snap)
    assert (h5.data["card"], h5.data["read_as"], h5.data["verdict"]) == ("5H", "JH", "trail")
    assert (laid.type, laid.data["card"], laid.data["seat"]) == ("card_laid", "JH", 0)
    (jh,) = table.feed_snapshot(clock.snap(""))
    assert (jh.type, jh.data["card"], jh.data["verdict"]) == (TURN, "JH", "sweep")
    assert set(jh.data["takes"]) == {"8H", "QS", "9S", "5H"}


def test_the_referee_confirms_a_doubtful_read_once_r7():
    # R7: every decision is written to the log. The 5H capture named from a doubtful JH read
    # is a legal turn marked doubtful; the referee confirms it (it stays as judged), and a
    # second confirmation is refused (the API checks with plan_decision), as is confirming a
    # turn read plainly.
    from controller.referee_actions import plan_decision
    from controller.store import Conflict

    table, clock = dealt(floor="9C 5C 4S KD")
    reading = (("JH", 0.5), ("5H", 0.3), ("6H", 0.1))
    table.feed_snapshot(_laid(clock, "9C 5C 4S KD JH", "JH", 0.3, reading))
    (turn,) = table.feed_snapshot(clock.snap("9C 4S KD"))
    assert plan_decision(table.state, "confirm", turn.id, {}) == (turn.id, {})
    decision = table.referee("confirm", turn.id)
    tr = table.state.turns()[-1]
    assert (tr.card, tr.verdict, tr.doubtful, tr.decided_by) == ("5H", "capture", True, decision.id)
    with pytest.raises(Conflict):
        plan_decision(table.state, "confirm", turn.id, {})
    table.feed_snapshot(clock.snap("9C 4S KD 2H"))  # seat 0 trails 2H, read plainly
    plain = table.state.turns()[-1]
    assert not plain.doubtful
    with pytest.raises(Conflict):
        plan_decision(table.state, "confirm", plain.event_id, {})


def _jh_doubtful_on(clock: Clock, table: Table) -> None:
    """Seat 1 takes 3C+2D with a plain 5C, seat 0 trails 9S, seat 1 lays a card read
    doubtfully as JH (JH 0.57, 5H 0.37) on 8H QS 9S."""
    table.feed_snapshot(clock.snap("8H QS 3C 2D 5C"))
    table.feed_snapshot(clock.snap("8H QS"))
    table.feed_snapshot(clock.snap("8H QS 9S"))
    reading = (("JH", 0.57), ("5H", 0.37), ("9H", 0.02))
    table.feed_snapshot(_laid(clock, "8H QS 9S JH", "JH", 0.34, reading))


def test_a_runner_up_never_names_a_card_lying_plainly_in_the_same_view_r1_1_r2_6():
    # The doubtful JH stays, and seat 0's 5H, read plainly, lands in the same view: the 5H
    # is that card, so the JH cannot be a 5H (one deck). As a JH left on a floor it had to
    # take, it is a missed capture (R2.4, R2.6), flagged for the referee.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("8H QS 3C 2D"))
    _jh_doubtful_on(clock, table)
    foul, h5 = table.feed_snapshot(clock.snap("8H QS 9S JH 5H"))
    assert (foul.type, foul.data["card"], foul.data["foul"]) == (FOUL, "JH", "missed_capture")
    assert (h5.data["card"], h5.data["seat"], h5.data["verdict"]) == ("5H", 0, "trail")
    assert not table.state.errors


def test_the_next_card_that_can_take_the_renamed_one_waits_for_its_scoop_r2_2():
    # The doubtful JH is a 5H that stays; seat 0's 5D, read plainly, lands in the same view.
    # With a J on the floor the 5D could take nothing; with the 5H it takes it (R2.2), so it
    # is a card laid, and its turn is the capture when the scoop is seen.
    table, clock = dealt(floor="8H QS 3C 2D")
    _jh_doubtful_on(clock, table)
    h5, laid = table.feed_snapshot(clock.snap("8H QS 9S JH 5D"))
    assert (h5.data["card"], h5.data["read_as"], h5.data["verdict"]) == ("5H", "JH", "trail")
    assert (laid.type, laid.data["card"], laid.data["seat"]) == ("card_laid", "5D", 0)
    (d5,) = table.feed_snapshot(clock.snap("8H QS 9S"))
    assert (d5.type, d5.data["card"], d5.data["verdict"], d5.data["takes"]) == (
        TURN, "5D", "capture", ["5H"]
    )  # fmt: skip


def test_what_this_view_reads_faintly_is_the_next_card_not_the_one_that_took_r7():
    # Seat 1 laid and scooped the KD with a card never seen; seat 0's card has landed in the
    # same view, read faintly as KH: it lies there, it took nothing. The capture is asked
    # about (show the card), never credited to the faint KH.
    table, clock = dealt()
    faint = (("KH", 0.6), ("KC", 0.2))
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H 4S", faint, faint_box=FAINT_AT))
    assert prompt.data["kind"] == "show_card"
    assert table.state.turns() == []


def test_a_faint_card_then_read_plainly_where_it_lies_is_one_card_r1_1():
    # The faint card (KD 0.6, KH 0.15) is read plainly as KH in the next view, where the
    # faint one lay: one card, seat 1's KH trail (no K on the floor: R2.3, R2.7), not a faint
    # trail and another card.
    table, clock = dealt(floor="9C 5H 4S QD")
    snap = clock.snap("9C 5H 4S QD")
    faint = (("KD", 0.6), ("KH", 0.15))
    box = (400.0, 200.0, 480.0, 320.0)
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    table.tracker.cards["KH"] = [402.0, 198.0, 483.0, 321.0]  # where the plain read lies
    (kh,) = table.feed_snapshot(clock.snap("9C 5H 4S QD KH"))
    assert (kh.data["card"], kh.data["seat"], kh.data["verdict"]) == ("KH", 1, "trail")
    assert "faint" not in kh.data
    assert table.state.to_play == 0


def test_a_card_read_plainly_elsewhere_as_a_faint_reads_runner_up_is_the_next_card_r2_7():
    # Seat 1's card is read only faintly (QS 0.6, KS 0.16, AH 0.12) where it lies. Seat 0
    # then lays a card read plainly as AH somewhere else: the faint card stayed while the
    # next came, so it trailed first (a QS takes nothing from 9C 5H 4S AS, R2.3, R2.7), and
    # the AH is seat 0's play, which can take the AS (R2.3) - not the faint card read again.
    table, clock = dealt(floor="9C 5H 4S AS")
    snap = clock.snap("9C 5H 4S AS")
    faint = (("QS", 0.6), ("KS", 0.16), ("AH", 0.12))
    box = (400.0, 200.0, 480.0, 320.0)
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    table.tracker.cards["AH"] = [700.0, 400.0, 780.0, 520.0]
    qs, ah = table.feed_snapshot(clock.snap("9C 5H 4S AS AH"))
    assert (qs.data["card"], qs.data["seat"], qs.data["verdict"]) == ("QS", 1, "trail")
    assert qs.data["faint"] is True
    assert (ah.type, ah.data["card"], ah.data["seat"]) == ("card_laid", "AH", 0)


def test_a_corrected_faint_guess_is_renamed_where_it_lies_and_after_a_restart():
    # R7: the referee names the held faint guess KH as KS: the tracker keeps the card at its
    # place as KS. A renamed read (the doubtful JH that was a 5H) logs where it lies, so a
    # restarted table keeps it there as the 5H.
    table, clock = dealt(floor="9C 5H 4S QD")
    box = (600.0, 300.0, 680.0, 420.0)
    snap = clock.snap("9C 5H 4S QD")
    faint = (("KH", 0.4), ("KS", 0.3))
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    held, _c8 = table.feed_snapshot(clock.snap("9C 5H 4S QD 8C"))
    table.referee("correct", held.id, {"card": "KS"})
    assert table.tracker.cards == {"KS": list(box)}

    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("8H QS 3C 2D"))
    _jh_doubtful_on(clock, table)
    table.tracker.cards["JH"] = list(box)  # where the real tracker saw the card
    (h5, _s6) = table.feed_snapshot(clock.snap("8H QS 9S JH 6S"))
    assert h5.data["card"] == "5H" and h5.data["box"] == list(box)
    assert table.tracker.cards["5H"] == list(box)
    resumed = Table(events=log)
    assert resumed.tracker.cards == {"5H": list(box)}


def test_a_plain_read_takes_its_code_back_from_an_earlier_doubtful_one_r1_1_r7():
    # Seat 0 trailed a card read doubtfully as TH (TH 0.53, QH 0.46) on 8H KS. Seat 1's card
    # is then read plainly as TH (0.99), so the tracker could only guess it (9H): one deck,
    # the TH was "played". The earlier read was the misread: the camera corrects that turn to
    # QH (a trail there too: no Q on the floor, R2.3, R2.7), the new card is the TH's trail,
    # and the QH lies on the floor, where seat 0's QD takes it (R2.3).
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("8H KS 3C 2D"))
    table.feed_snapshot(clock.snap("8H KS 3C 2D 5C"))
    table.feed_snapshot(clock.snap("8H KS"))  # seat 1: 5C takes 3C+2D
    reading = (("TH", 0.53), ("QH", 0.46), ("9H", 0.01))
    (th,) = table.feed_snapshot(_laid(clock, "8H KS TH", "TH", 0.24, reading))
    assert (th.data["card"], th.data["seat"], th.data["doubtful"]) == ("TH", 0, True)
    plain = _guessed(clock, "8H KS TH 9H", "9H", (("TH", 0.99), ("9H", 0.01)), 0.7)
    fix, turn = table.feed_snapshot(plain)
    assert (fix.type, fix.data["action"], fix.data["target"]) == ("referee", "correct", th.id)
    assert fix.data["payload"] == {"card": "QH", "by": "camera"}
    assert (turn.type, turn.data["card"], turn.data["seat"], turn.data["verdict"]) == (
        TURN, "TH", 1, "trail"
    )  # fmt: skip
    assert set(table.state.floor) == {"8H", "KS", "QH", "TH"}
    table.feed_snapshot(clock.snap("8H KS QH TH QD"))
    (qd,) = table.feed_snapshot(clock.snap("8H KS TH"))
    assert (qd.data["card"], qd.data["seat"], qd.data["takes"]) == ("QD", 0, ["QH"])
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_no_take_back_when_the_earlier_read_has_no_legal_runner_up_r7():
    # The earlier doubtful TH's only runner-up is the QS, which would have had to take the QD
    # lying there (R2.3, R2.6): no correction; the new card stays a guess held for the
    # referee. (As a QS it could take, so the TH waited for a scoop; the next card ends its
    # turn: a trail, R2.7.)
    table, clock = dealt(floor="8H QD 3C 2D")
    table.feed_snapshot(clock.snap("8H QD 3C 2D 5C"))
    table.feed_snapshot(clock.snap("8H QD"))
    reading = (("TH", 0.53), ("QS", 0.46))
    (laid,) = table.feed_snapshot(_laid(clock, "8H QD TH", "TH", 0.24, reading))
    assert (laid.type, laid.data["card"]) == (CARD_LAID, "TH")
    plain = _guessed(clock, "8H QD TH 9H", "9H", (("TH", 0.99), ("9H", 0.01)), 0.7)
    th, held = table.feed_snapshot(plain)
    assert (th.type, th.data["card"], th.data["verdict"]) == (TURN, "TH", "trail")
    assert (held.type, held.data["verdict"], held.data["card"]) == (FOUL, "unreadable", "9H")


def test_a_plain_read_of_a_fouls_code_names_the_foul_by_its_reads_weakest_code_r1_1_r7():
    # Seat 1's card, read doubtfully as JH (JH 0.81, 9H 0.07, 5H 0.05), took only the 5C: a J
    # takes the whole floor (R2.4), a wrong capture; the 5H is far under half the JH's share,
    # so the foul stands for the referee (R7). Seat 1's next card is read plainly as JH (0.98),
    # only a guess (JS) while the JH is "played": one deck, one of the two reads is wrong, and
    # the one whose play was a foul is. The camera corrects the foul to the code of its own
    # read that makes it legal, the 5H taking the 5C (R2.2), and the new card is the JH,
    # which sweeps the floor (R2.4).
    table, clock = dealt(floor="9C 5C 4S KD")
    reading = (("JH", 0.81), ("9H", 0.07), ("5H", 0.05))
    table.feed_snapshot(_laid(clock, "9C 5C 4S KD JH", "JH", 0.3, reading))
    (foul,) = table.feed_snapshot(clock.snap("9C 4S KD"))
    assert (foul.data["card"], foul.data["foul"]) == ("JH", "wrong_capture")
    table.feed_snapshot(clock.snap("9C 4S KD 2D"))  # seat 0 trails the 2D
    plain = _guessed(clock, "9C 4S KD 2D JS", "JS", (("JH", 0.98), ("JS", 0.01)), 0.7)
    fix, laid = table.feed_snapshot(plain)
    assert (fix.type, fix.data["target"], fix.data["payload"]) == (
        "referee", foul.id, {"card": "5H", "by": "camera"}
    )  # fmt: skip
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "JH", 1)
    (sweep,) = table.feed_snapshot(clock.snap(""))
    assert (sweep.data["card"], sweep.data["verdict"]) == ("JH", "sweep")
    assert sorted(sweep.data["takes"]) == ["2D", "4S", "9C", "KD"]
    assert sorted(table.state.match.captured(1)) == ["2D", "4S", "5C", "5H", "9C", "JH", "KD"]
    assert not table.state.errors


def _dealing(variant: str = "classic") -> tuple[Table, Clock]:
    """A two-player table waiting for its first deal; seat 1 plays first (R1.5)."""
    return Table(variant, 2, 0), Clock()


def test_a_deals_faint_fourth_card_is_dealt_and_the_next_card_is_the_first_play_r1_2_r2_4():
    # The dealer lays 2C 5S TH plainly and a 4th card read only faintly (QS 0.84, KC 0.48,
    # JS 0.18) at its place. Seat 1's JC then lands beside them, read plainly: a deal lays
    # 4 cards (R1.2), so the JC is the first play, not a dealt card (no misdeal prompt, R1.3).
    # A J takes the whole floor (R2.4): JC takes 2C 5S TH and the faint QS.
    log: list = []
    table, clock = Table("classic", 2, 0, subscribers=[log.append]), Clock()
    box = (700.0, 300.0, 780.0, 420.0)
    for cards in ("2C", "2C 5S", "2C 5S TH"):
        assert table.feed_snapshot(clock.snap(cards)) == []
    faint = (("QS", 0.84), ("KC", 0.48), ("JS", 0.18))
    snap = clock.snap("2C 5S TH")
    assert table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box)) == []
    started, laid = table.feed_snapshot(clock.snap("2C 5S TH JC"))
    assert started.type == ROUND_STARTED and set(started.data["floor"]) == {"2C", "5S", "TH", "QS"}
    assert started.data["faint"] == {"card": "QS", "share": 0.84, "box": list(box)}
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "JC", 1)
    assert table.tracker.cards["QS"] == list(box)  # kept at its place in later views
    (turn,) = table.feed_snapshot(clock.snap(""))
    assert (turn.data["card"], turn.data["verdict"]) == ("JC", "sweep")
    assert sorted(turn.data["takes"]) == ["2C", "5S", "QS", "TH"]
    assert [e for e in log if e.type == PROMPT] == []  # no misdeal prompt: no J was dealt


def _three_dealt_one_faint(faint: tuple) -> tuple[Table, Clock]:
    """A deal whose 2C 5S TH were read plainly and its 4th card only faintly (`faint`)."""
    table, clock = _dealing()
    for cards in ("2C", "2C 5S", "2C 5S TH"):
        table.feed_snapshot(clock.snap(cards))
    table.feed_snapshot(clock.snap("2C 5S TH", faint, faint_box=FAINT_AT))
    return table, clock


def test_a_faint_fourth_card_then_read_plainly_is_the_deal_itself_r1_2():
    # The 4th card read faintly (QS 0.6) is then read plainly as QS: the deal is the 4 cards
    # read, no play yet.
    table, clock = _three_dealt_one_faint((("QS", 0.6), ("KS", 0.2)))
    (started,) = table.feed_snapshot(clock.snap("2C 5S TH QS"))
    assert set(started.data["floor"]) == {"2C", "5S", "TH", "QS"}
    assert "faint" not in started.data
    assert table.state.turns() == []


def test_a_first_play_read_as_a_faint_dealt_cards_runner_up_is_the_first_play_r1_2():
    # The 4th dealt card is read only faintly (QS 0.61, KH 0.14, TS 0.13) at its place.
    # Seat 1's TS then lands elsewhere, read plainly: a runner-up of the faint read, but not
    # at the faint card's place, so it is another card: the deal is 2C 5S 9H QS (R1.2) and the
    # TS is the first play, a trail (no T, nothing sums to 10: R2.2, R2.7). Before, the TS was
    # taken for the faint card read plainly, dealt, and every later play went to the wrong
    # seat's pile (a rendered match scored 33/19 cards for 30/22).
    table, clock = _dealing()
    for cards in ("2C", "2C 5S", "2C 5S 9H"):
        table.feed_snapshot(clock.snap(cards))
    faint = (("QS", 0.61), ("KH", 0.14), ("TS", 0.13))
    table.feed_snapshot(clock.snap("2C 5S 9H", faint, faint_box=FAINT_AT))
    table.tracker.cards["TS"] = [900.0, 500.0, 980.0, 620.0]  # where the TS was read
    started, ts = table.feed_snapshot(clock.snap("2C 5S 9H TS"))
    assert started.type == ROUND_STARTED and set(started.data["floor"]) == {"2C", "5S", "9H", "QS"}
    assert (ts.type, ts.data["card"], ts.data["seat"], ts.data["verdict"]) == (
        TURN,
        "TS",
        1,
        "trail",
    )


def test_a_faint_read_beside_four_dealt_cards_is_no_dealt_card_after_the_fix_r1_2_r1_3():
    # Held-out match 398 (`benchmarks/table.py --cards any`): the dealer lays 2H 9H JD QH,
    # all read plainly, and the tossed QH's crown jewel is read faintly as a KD beside them
    # (KD 0.54, KS 0.15). A deal lays 4 cards (R1.2): the faint read is no 5th. The JD goes
    # back to the deck (R1.3) and its replacement 9D lands: the deal is 2H 9H QH 9D, no play
    # yet. Before, the faint KD was kept as the 4th dealt card and the 9D taken for the first
    # play (a missed capture of the 9H flagged, then every play of the round misjudged).
    log: list = []
    table, clock = Table("egyptian", 2, 0, subscribers=[log.append]), Clock()
    for cards in ("9H", "2H 9H"):
        assert table.feed_snapshot(clock.snap(cards)) == []
    faint = (("KD", 0.54), ("KS", 0.15), ("KH", 0.14))
    (prompt,) = table.feed_snapshot(clock.snap("2H 9H JD QH", faint, faint_box=FAINT_AT))
    assert prompt.type == PROMPT and prompt.data["kind"] == "misdeal_fix"
    assert table.feed_snapshot(clock.snap("2H 9H QH")) == []
    (started,) = table.feed_snapshot(clock.snap("2H 9H QH 9D"))
    assert started.type == ROUND_STARTED and set(started.data["floor"]) == {"2H", "9H", "QH", "9D"}
    assert "faint" not in started.data
    assert table.state.turns() == [] and [e for e in log if e.type == FOUL] == []


def test_a_restarted_table_keeps_a_faint_dealt_card_where_it_lies():
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    box = (700.0, 300.0, 780.0, 420.0)
    for cards in ("2C", "2C 5S", "2C 5S TH"):
        table.feed_snapshot(clock.snap(cards))
    snap = clock.snap("2C 5S TH")
    faint = (("QS", 0.84), ("KS", 0.05))
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    table.feed_snapshot(clock.snap("2C 5S TH 8D"))  # seat 1's 8D: a trail (nothing sums to 8)
    resumed = Table(events=log)
    assert resumed.tracker.cards["QS"] == list(box)
    assert set(resumed.state.floor) == {"2C", "5S", "TH", "QS", "8D"}
    assert resumed.state.to_dict() == table.state.to_dict()


def test_a_card_read_faintly_where_it_lay_after_a_capture_lies_on_r2_2_r2_3():
    # The floor is 2C QS. Seat 1's 2S takes the 2C (R2.2); as the hand scoops, the QS beside
    # it is read only faintly (JS 0.54, QS 0.23) at its own place. A 2 never takes a Q
    # (R2.1, R2.3), so the QS was not taken: the 2S's capture is legal and the QS lies on.
    table, clock = dealt(floor="2C QS 9H KD")
    box = (600.0, 300.0, 680.0, 420.0)
    table.tracker.cards["QS"] = list(box)
    table.feed_snapshot(clock.snap("2C QS 9H KD 2S"))
    snap = clock.snap("9H KD")
    faint = (("JS", 0.54), ("QS", 0.23), ("JD", 0.08))
    (turn,) = table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "2S", "capture")
    assert turn.data["takes"] == ["2C"]
    assert set(table.state.floor) == {"QS", "9H", "KD"}
    assert table.tracker.cards["QS"] == list(box)  # kept at its place in later views


def test_a_card_read_faintly_elsewhere_leaves_the_foul_to_the_referee_r7():
    # The same scoop, but the faint read lies away from where the QS lay: nothing says the
    # QS is still there, so the 2S taking it is a foul for the referee (R7).
    table, clock = dealt(floor="2C QS 9H KD")
    table.tracker.cards["QS"] = [600.0, 300.0, 680.0, 420.0]
    table.feed_snapshot(clock.snap("2C QS 9H KD 2S"))
    snap = clock.snap("9H KD")
    faint = (("JS", 0.54), ("QS", 0.23))
    (foul,) = table.feed_snapshot(
        Snapshot(snap.t, snap.floor, faint=faint, faint_box=(100.0, 500.0, 180.0, 620.0))
    )
    assert (foul.type, foul.data["foul"]) == (FOUL, "wrong_capture")


def test_a_plain_read_takes_its_code_back_from_an_earlier_faint_guess_r1_1_r7():
    # Seat 1's card is read only faintly where it lies (KD 0.86, QH 0.79: no clear leader),
    # so its trail is held with KD as a guess (R7); seat 0's JS sweeps the floor with it
    # (R2.4). Seat 1's next card is read plainly as KD (0.84): one deck, the KD was "taken",
    # so the tracker could only guess KH. A read too faint to accept never outweighs a plain
    # one, whatever its share: the camera corrects the held turn to QH (a trail: no Q lay there, R2.3, R2.7) and
    # the new card is the KD's trail on the empty floor.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("3D 9S KS 5C"))
    faint = (("KD", 0.86), ("QH", 0.79), ("QD", 0.14))
    table.feed_snapshot(clock.snap("3D 9S KS 5C", faint, faint_box=FAINT_AT))
    held, laid = table.feed_snapshot(clock.snap("3D 9S KS 5C JS"))
    assert (held.type, held.data["verdict"], held.data["card"], held.data["seat"]) == (
        FOUL, "unreadable", "KD", 1
    )  # fmt: skip
    assert (laid.data["card"], laid.data["seat"]) == ("JS", 0)
    (sweep,) = table.feed_snapshot(clock.snap(""))
    assert sweep.data["verdict"] == "sweep" and "KD" in sweep.data["takes"]
    plain = _guessed(clock, "KH", "KH", (("KD", 0.84), ("TD", 0.04), ("KH", 0.03)), 0.31)
    fix, turn = table.feed_snapshot(plain)
    _assert_taken_back(fix, turn, held.id, "QH", "KD")
    assert table.state.floor == ("KD",)
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_faint_dealt_card_is_remembered_through_the_dealers_fixes_r1_2_r1_3():
    # The dealer lays 2C, JC, QH and a 4th card read only faintly (QC 0.94, KC 0.93). The JC
    # goes back (R1.3) and its replacement JS too; the 8D replaces it. Seat 1's 5C then
    # lands: the deal was 2C QH 8D and the faint card (QC, the likelier code), and the 5C is
    # the first play - a trail (nothing sums to 5 there, R2.2), not a dealt card.
    table, clock = _dealing("lebanese")
    box = (700.0, 300.0, 780.0, 420.0)
    table.feed_snapshot(clock.snap("2C"))
    table.feed_snapshot(clock.snap("2C JC"))
    table.feed_snapshot(clock.snap("2C JC QH"))
    snap = clock.snap("2C JC QH")
    faint = (("QC", 0.94), ("KC", 0.93), ("KS", 0.04))
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    for cards in ("2C QH", "2C JS QH", "2C QH", "2C 8D QH"):
        assert [e.type for e in table.feed_snapshot(clock.snap(cards))] == []
    started, trail = table.feed_snapshot(clock.snap("2C 5C 8D QH"))
    assert set(started.data["floor"]) == {"2C", "8D", "QH", "QC"}
    assert (trail.type, trail.data["card"], trail.data["seat"], trail.data["verdict"]) == (
        TURN, "5C", 1, "trail"
    )  # fmt: skip


def test_a_first_dealt_card_read_faintly_on_an_empty_floor_is_dealt_r1_2_r1_3():
    # The dealer's first card lands on the empty floor and is read only faintly (QS 0.56,
    # JC 0.18, KC 0.15): nothing is read plainly yet. JH, QC and KC follow; the JH goes back
    # (R1.3), its replacement JD too, and the 3H replaces it. Seat 1's TC then lands: the
    # deal was QC KC 3H and the faint card (QS), and the TC is the first play - a trail
    # (no 10 lies there and nothing sums to 10, R2.2, R2.7), not a dealt card.
    table, clock = _dealing()
    box = (885.0, 305.0, 969.0, 425.0)
    snap = clock.snap("")
    faint = (("QS", 0.56), ("JC", 0.18), ("KC", 0.15))
    assert table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box)) == []
    for cards in ("JH", "JH QC", "JH KC QC"):
        table.feed_snapshot(clock.snap(cards))
    for cards in ("KC QC", "JD KC QC", "KC QC", "3H KC QC"):
        assert [e.type for e in table.feed_snapshot(clock.snap(cards))] in ([], [PROMPT])
    started, trail = table.feed_snapshot(clock.snap("3H KC QC TC"))
    assert (started.type, set(started.data["floor"])) == (ROUND_STARTED, {"3H", "KC", "QC", "QS"})
    assert (trail.type, trail.data["card"], trail.data["seat"], trail.data["verdict"]) == (
        TURN, "TC", 1, "trail"
    )  # fmt: skip


def test_a_faint_dealt_card_read_plainly_with_the_first_play_is_dealt_r1_2_r2_2():
    # The dealer's first card lands on the empty floor, read only faintly (KC 0.71, KH 0.12);
    # 6S, 4H and 5S follow, read plainly. The KC is read plainly at last in the view where
    # seat 1's 4C lands too: a deal lays 4 cards (R1.2), so the deal is KC 6S 4H 5S and the
    # 4C is the first play, taking the 4H (R2.2). Before, the deal waited for a floor of 4,
    # took KC 6S 5S and the next play's 5D for it, and every later play of the round went to
    # the wrong seat (a rendered held-out match, three plays held for the referee).
    table, clock = _dealing()
    snap = clock.snap("")
    faint = (("KC", 0.71), ("KH", 0.12), ("KD", 0.06))
    assert table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=FAINT_AT)) == []
    for cards in ("6S", "4H 6S", "4H 5S 6S"):
        assert table.feed_snapshot(clock.snap(cards)) == []
    started, laid = table.feed_snapshot(clock.snap("4C 4H 5S 6S KC"))
    assert (started.type, set(started.data["floor"])) == (ROUND_STARTED, {"KC", "6S", "4H", "5S"})
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "4C", 1)
    (turn,) = table.feed_snapshot(clock.snap("5S 6S KC"))
    assert (turn.data["card"], turn.data["verdict"], turn.data["takes"]) == (
        "4C",
        "capture",
        ["4H"],
    )
    assert table.state.to_play == 0


def test_a_faint_read_too_weak_to_count_a_card_leaves_the_deal_as_read_r1_2():
    # A read under half the probability (KS 0.3) is no card: the 4 cards read plainly are
    # the deal.
    table, clock = _three_dealt_one_faint((("KS", 0.3), ("QS", 0.2)))
    (started,) = table.feed_snapshot(clock.snap("2C 5S TH 8D"))
    assert set(started.data["floor"]) == {"2C", "5S", "TH", "8D"}
    assert table.state.turns() == []


def test_a_card_kept_unread_after_a_sweep_was_swept_too_r2_4():
    # Seat 1's JS sweeps 9C 5H 4S KD (R2.4). After the scoop no read names the KD, but its
    # place changed less than a lifted card's usually does (a white card off a white table),
    # so the tracker kept it, unread. A J takes the whole floor: leaving the KD would be a
    # wrong capture, taking it is the legal sweep; the KD went with the others.
    table, clock = dealt()
    table.tracker.cards["KD"] = [600.0, 300.0, 680.0, 420.0]
    table.feed_snapshot(clock.snap("9C 5H 4S KD JS"))
    snap = clock.snap("KD")
    (turn,) = table.feed_snapshot(Snapshot(snap.t, snap.floor, unread=frozenset({"KD"})))
    assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "JS", "sweep")
    assert sorted(turn.data["takes"]) == ["4S", "5H", "9C", "KD"]
    assert table.state.floor == ()
    assert "KD" not in table.tracker.cards  # later views no longer keep it


def test_a_card_read_where_it_lies_after_a_sweep_leaves_the_foul_to_the_referee_r2_4_r7():
    # The same sweep, but the KD is read plainly where it lies: the player left it, a wrong
    # capture for the referee (R7).
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD JS"))
    (foul,) = table.feed_snapshot(clock.snap("KD"))
    assert (foul.type, foul.data["foul"]) == (FOUL, "wrong_capture")
    assert table.state.floor == ("KD",)


def test_a_plain_read_of_a_code_a_weak_doubtful_read_holds_takes_it_back_r1_1_r7():
    # Seat 1 trailed a card read doubtfully as TC (TC 0.71, 8C 0.14, 6C 0.13); seat 0's JS
    # swept it away with the floor (R2.4). Seat 1's next card is read plainly as TC (0.94):
    # one deck, so the earlier read was the misread. The camera corrects that turn to the
    # likeliest runner-up that keeps it legal (8C: a trail there too, nothing sums to 8,
    # R2.2, R2.7), and the new card is the TC's trail - never a duplicate card.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("5D QH KS 4H"))
    reading = (("TC", 0.71), ("8C", 0.14), ("6C", 0.13))
    (doubt,) = table.feed_snapshot(_laid(clock, "5D QH KS 4H TC", "TC", 0.24, reading))
    assert (doubt.data["card"], doubt.data["seat"], doubt.data["doubtful"]) == ("TC", 1, True)
    table.feed_snapshot(clock.snap("5D QH KS 4H TC JS"))
    (sweep,) = table.feed_snapshot(clock.snap(""))
    assert sweep.data["verdict"] == "sweep" and "TC" in sweep.data["takes"]
    fix, turn = table.feed_snapshot(_laid(clock, "TC", "TC", 0.7, (("TC", 0.94), ("TD", 0.04))))
    _assert_taken_back(fix, turn, doubt.id, "8C", "TC")
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def _weak_tc_swept(reading: tuple) -> tuple[Table, list, object, Clock]:
    """Seat 1 trailed a card read doubtfully as TC (`reading`); seat 0's JS swept it away
    with the floor (R2.4). Returns the table, its log, the doubtful turn and the clock."""
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("5D QH KS 4H"))
    (doubt,) = table.feed_snapshot(_laid(clock, "5D QH KS 4H TC", "TC", 0.24, reading))
    table.feed_snapshot(clock.snap("5D QH KS 4H TC JS"))
    (sweep,) = table.feed_snapshot(clock.snap(""))
    assert sweep.data["verdict"] == "sweep" and "TC" in sweep.data["takes"]
    return table, log, doubt, clock


def test_a_plain_read_takes_its_code_even_from_a_weak_reads_last_code_in_play_r1_1_r7():
    # The TC's read gave 4H 0.2 and 8C only 0.05; the 4H lay on the floor and went with the
    # sweep (R2.4), so of that read only the 8C is still in play. Seat 1's next card is read
    # plainly as TC (0.94): one deck, the earlier card was not the TC, whatever it was, and
    # the 8C is the one code its read leaves (a trail: nothing sums to 8, R2.2, R2.7).
    table, log, doubt, clock = _weak_tc_swept((("TC", 0.71), ("4H", 0.2), ("8C", 0.05)))
    fix, turn = table.feed_snapshot(_laid(clock, "TC", "TC", 0.7, (("TC", 0.94), ("TD", 0.04))))
    _assert_taken_back(fix, turn, doubt.id, "8C", "TC")
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_plain_read_of_a_code_the_weak_read_cannot_give_up_is_held_never_a_duplicate_r7():
    # The TC's read named no other code still in play (the 4H went with the sweep), so the
    # earlier turn keeps the TC. Seat 1's next card, read plainly as TC, cannot be named
    # surely: its play is held for the referee with its guess (R7 `unreadable`), never
    # scored as a duplicate card, and every event still applies to the state.
    table, log, doubt, clock = _weak_tc_swept((("TC", 0.71), ("4H", 0.2)))
    (held,) = table.feed_snapshot(_laid(clock, "TC", "TC", 0.7, (("TC", 0.94), ("4H", 0.04))))
    assert (held.type, held.data["verdict"], held.data["seat"]) == (FOUL, "unreadable", 1)
    kept = next(tr for tr in table.state.turns() if tr.event_id == doubt.id)
    assert (kept.card, kept.verdict) == ("TC", "trail")
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_the_rounds_last_card_read_faintly_then_gathered_was_a_trail_r3_5_r8_7():
    # Round 1's 48th card, the QS, trails beside 5D 8S JH (no Q lies there: a trail, R2.3,
    # R2.7), and the last capturer then takes what is left (R3.5). The camera reads the QS
    # only faintly (QS 0.62, KS 0.2) before the floor is cleared. No capture by it explains
    # the cleared floor: it was the round's last play, a trail; the round ends with its 48
    # plays and the true score, and nobody is asked to show a card.
    from controller.simulator import simulate
    from engine.record import score_record

    video = simulate("classic", 2, 60, rounds=1, fouls=0, fast_share=0.0)
    last = video.game.rounds[0].plays[-1]
    assert (last.card, set(last.floor_before)) == ("QS", {"5D", "8S", "JH"})
    assert set(last.floor_after) == {"5D", "8S", "JH", "QS"}
    log: list = []
    table = Table("classic", 2, video.game.rounds[0].dealer, subscribers=[log.append])
    for t, floor in video.still_floors():
        if floor == frozenset(last.floor_after):
            faint = (("QS", 0.62), ("KS", 0.2))
            snap = Snapshot(t, floor - {"QS"}, faint=faint, faint_box=(600.0, 300, 680, 420))
        else:
            snap = Snapshot(t, floor)
        table.feed_snapshot(snap)
    ended = [e for e in log if e.type == "round_ended"]
    assert len(ended) == 1 and "short" not in ended[0].data
    final = [e for e in log if e.type in (TURN, FOUL)][-1]
    assert (final.data["card"], final.data["verdict"], final.data["play"]) == ("QS", "trail", 47)
    assert final.data["faint"] is True
    assert not [e for e in log if e.type == PROMPT and e.data["kind"] == "show_card"]
    assert table.result()["rounds"] == score_record(video.game.record)["rounds"]
    assert "QS" not in table.tracker.cards  # gathered with the leftovers: no card lies there
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_code_a_weak_read_holds_read_again_less_than_plainly_names_the_runner_up_r1_1_r7():
    # The swept TC was read doubtfully (TC 0.71). Seat 1's next card reads TC 0.6, TD 0.3:
    # not plainly enough to take the code back. One deck, the TC is the earlier turn's, so
    # the new card is its read's likeliest code still in play, the TD, a trail on the empty
    # floor (R2.7), marked doubtful - never a duplicate card, and no camera correction.
    table, log, doubt, clock = _weak_tc_swept((("TC", 0.71), ("8C", 0.14), ("6C", 0.13)))
    (turn,) = table.feed_snapshot(_laid(clock, "TC", "TC", 0.7, (("TC", 0.6), ("TD", 0.3))))
    assert (turn.type, turn.data["card"], turn.data["seat"], turn.data["verdict"]) == (
        TURN, "TD", 1, "trail"
    )  # fmt: skip
    assert turn.data["doubtful"] is True
    assert not [e for e in log if e.type == "referee"]
    kept = next(tr for tr in table.state.turns() if tr.event_id == doubt.id)
    assert kept.card == "TC"
    assert table.state.floor == ("TD",)
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_faint_jack_dealt_and_sent_back_leaves_its_replacement_dealt_r1_2_r1_3():
    # The dealer lays 2C 5S TH and a 4th card read only faintly as JH (0.7). A J goes back to
    # the deck (R1.3), and the 8D laid next is its replacement, not a first play: the deal
    # is 2C 5S TH 8D, and nobody has played yet.
    table, clock = _three_dealt_one_faint((("JH", 0.7), ("QH", 0.1)))
    assert table.feed_snapshot(clock.snap("2C 5S TH")) == []  # the J taken back
    (started,) = table.feed_snapshot(clock.snap("2C 5S TH 8D"))
    assert set(started.data["floor"]) == {"2C", "5S", "TH", "8D"}
    assert "faint" not in started.data
    assert table.state.turns() == []


def test_a_faint_read_where_a_dealt_card_lies_is_that_card_not_a_fourth_r1_2():
    # The faint read (QS 0.8) came from where the TH lies (read plainly there): it is the
    # TH read again, not a 4th card. The 8D laid next is the 4th dealt card.
    box = (700.0, 300.0, 780.0, 420.0)
    table, clock = _dealing()
    for cards in ("2C", "2C 5S", "2C 5S TH"):
        table.feed_snapshot(clock.snap(cards))
    table.tracker.cards["TH"] = list(box)  # where the tracker saw the TH
    snap = clock.snap("2C 5S TH")
    faint = (("QS", 0.8), ("KS", 0.1))
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=box))
    (started,) = table.feed_snapshot(clock.snap("2C 5S TH 8D"))
    assert set(started.data["floor"]) == {"2C", "5S", "TH", "8D"}
    assert table.state.turns() == []


def test_a_restarted_table_takes_a_code_back_as_the_live_one_would_r1_1_r7():
    # The weak TC read is in the log (the turn's `reading`); the table restarts after the
    # sweep. Seat 1's next card read plainly as TC takes the code back exactly as the live
    # table does: the camera corrects the earlier turn to 8C, the new card is the TC's trail.
    reading = (("TC", 0.71), ("8C", 0.14), ("6C", 0.13))
    table, log, doubt, clock = _weak_tc_swept(reading)
    assert doubt.data["reading"] == [["TC", 0.71], ["8C", 0.14], ["6C", 0.13]]
    resumed = Table(events=list(log), subscribers=[log.append])
    plain = _laid(clock, "TC", "TC", 0.7, (("TC", 0.94), ("TD", 0.04)))
    fix, turn = resumed.feed_snapshot(plain)
    _assert_taken_back(fix, turn, doubt.id, "8C", "TC")
    assert not resumed.state.errors
    assert replay(log).to_dict() == resumed.state.to_dict()


def test_a_restarted_table_keeps_a_code_the_earlier_turn_kept_r1_1_r7():
    # The swept TC (read TC 0.71) kept its code when seat 1's next card read only TC 0.6: that
    # card was named TD, and the TC is the earlier turn's for the rest of the round. The turn
    # logs it (`kept`). The table restarts; seat 0 lays a card read plainly TC 0.94. The
    # restarted table, like the live one, does not take the code back from the earlier turn
    # (no camera correction to 8C): both see the same card laid.
    table, log, doubt, clock = _weak_tc_swept((("TC", 0.71), ("8C", 0.14), ("6C", 0.13)))
    (turn,) = table.feed_snapshot(_laid(clock, "TC", "TC", 0.7, (("TC", 0.6), ("TD", 0.3))))
    assert (turn.data["card"], turn.data["kept"]) == ("TD", ["TC"])
    resumed = Table(events=list(log), subscribers=[])
    plain = _laid(clock, "TD TC", "TC", 0.7, (("TC", 0.94), ("6C", 0.04)))
    for t in (table, resumed):
        (laid,) = t.feed_snapshot(plain)
        assert (laid.type, laid.data["card"], laid.data["seat"]) == ("card_laid", "TC", 0)
        assert not [e for e in t.state.turns() if e.decided_by]
        assert next(tr for tr in t.state.turns() if tr.event_id == doubt.id).card == "TC"


def test_a_table_restarted_between_a_laid_card_and_its_capture_logs_its_read_r2_3_r7():
    # Seat 1 lays a card read doubtfully as KH (KH 0.6, KS 0.3) on 9C 5H 4S KD: it can take
    # the KD (R2.3), so the table waits for the capture. The table restarts, then the KD
    # goes. The capture's turn logs the card's read (a later plain KH read may take the code
    # back, R1.1) exactly as a table that never stopped does.
    log: list = []
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("9C 5H 4S KD"))
    reading = (("KH", 0.6), ("KS", 0.3))
    (laid,) = table.feed_snapshot(_laid(clock, "9C 5H 4S KD KH", "KH", 0.3, reading))
    assert (laid.type, laid.data["reading"]) == ("card_laid", [["KH", 0.6], ["KS", 0.3]])
    resumed = Table(events=list(log), subscribers=[])
    cleared = clock.snap("9C 5H 4S")
    turns = [t.feed_snapshot(cleared) for t in (table, resumed)]
    for (turn,) in turns:
        assert (turn.data["card"], turn.data["verdict"], turn.data["takes"]) == (
            "KH", "capture", ["KD"]
        )  # fmt: skip
        assert turn.data["doubtful"] is True
        assert turn.data["reading"] == [["KH", 0.6], ["KS", 0.3]]
    assert turns[0][0].data == turns[1][0].data


def test_a_restarted_table_keeps_a_code_a_laid_cards_naming_kept_r1_1_r7():
    # As above, but seat 1 trailed the TH first, so seat 0's card read TC 0.6 (named TD) can
    # take it and is laid: the kept TC is logged with the lay. The table restarts before the
    # capture; both tables then see the same capture (a basra, R3.4) and, for a card read
    # plainly TC 0.94, no take-back from the earlier turn: it keeps the TC, and the new card
    # is a duplicate for the referee (R7), on the restarted table as on the live one.
    table, log, doubt, clock = _weak_tc_swept((("TC", 0.71), ("8C", 0.14), ("6C", 0.13)))
    table.feed_snapshot(clock.snap("TH"))
    (laid,) = table.feed_snapshot(_laid(clock, "TH TC", "TC", 0.7, (("TC", 0.6), ("TD", 0.3))))
    assert (laid.type, laid.data["card"], laid.data["kept"]) == ("card_laid", "TD", ["TC"])
    resumed = Table(events=list(log), subscribers=[])
    cleared, plain = clock.snap(""), _laid(clock, "TC", "TC", 0.7, (("TC", 0.94), ("6C", 0.04)))
    seen = []
    for t in (table, resumed):
        capture, _score = t.feed_snapshot(cleared)
        assert (capture.data["card"], capture.data["verdict"]) == ("TD", "capture")
        seen.append(
            [(e.type, e.data.get("card"), e.data.get("action")) for e in t.feed_snapshot(plain)]
        )
        assert next(tr for tr in t.state.turns() if tr.event_id == doubt.id).card == "TC"
    assert seen[0] == seen[1] == [("foul", "TC", None)]


def _faint_kh_trailed(log: list, then: str = "7C"):
    """Seat 1's card lies read faintly as KH 0.65, QS 0.14, TD 0.12 (truly a QH) on a floor of
    9C 5H 4S 8D: no K lies there, so it is judged a KH trail (R2.3, R2.7), doubtful; seat
    0's card `then`, read plainly, trails beside it (a 7C: no 7 and nothing summing to 7,
    R2.2; a QH: no Q)."""
    table = Table("classic", 2, 0, subscribers=[log.append])
    clock = Clock()
    table.feed_snapshot(clock.snap("9C 5H 4S 8D"))
    faint = (("KH", 0.65), ("QS", 0.14), ("TD", 0.12))
    table.feed_snapshot(clock.snap("9C 5H 4S 8D", faint, faint_box=FAINT_AT))
    kh, next_trail = table.feed_snapshot(clock.snap(f"9C 5H 4S 8D {then}"))
    assert (kh.data["card"], kh.data["verdict"], kh.data["faint"]) == ("KH", "trail", True)
    assert (next_trail.data["card"], next_trail.data["seat"], next_trail.data["verdict"]) == (
        then, 0, "trail"
    )  # fmt: skip
    return table, clock, kh


def test_a_card_that_takes_a_faint_trail_names_it_by_the_capture_r2_3_r7():
    # Seat 1's QC (read plainly) takes nothing from the floor as read, but the "KH" lies on
    # a faint read whose runner-up QS a Q takes (R2.3): its turn waits for the scoop rather
    # than being judged a trail at once. The QC and the "KH" leave together: only a Q takes a
    # lone card with a Q, so the camera corrects the faint trail to QS (its read's likeliest
    # code a Q takes, still in play) and the QC's capture of the QS is legal. Before, the QC
    # was judged a trail and the scoop asked seat 0 to show a card it never played.
    log: list = []
    table, clock, kh = _faint_kh_trailed(log)
    (laid,) = table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C KH QC"))
    assert (laid.type, laid.data["card"], laid.data["seat"]) == (CARD_LAID, "QC", 1)
    fix, turn = table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C"))
    assert (fix.type, fix.data["target"], fix.data["payload"]) == (
        "referee", kh.id, {"card": "QS", "by": "camera", "capture": True}
    )  # fmt: skip
    assert (turn.type, turn.data["card"], turn.data["seat"], turn.data["verdict"]) == (
        TURN, "QC", 1, "capture"
    )  # fmt: skip
    assert turn.data["takes"] == ["QS"] and "QS" in turn.data["floor_before"]
    assert turn.data["doubtful"] is True
    assert sorted(table.state.match.captured(1)) == ["QC", "QS"]
    assert table.state.to_play == 0
    assert not [p for p in table.state.prompts if p.open]
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_card_waiting_on_a_faint_trail_that_stays_is_a_trail_r2_7():
    # The QC waits as above, but seat 0's 3D comes while it still lies there: the QC took
    # nothing (a trail, R2.7), the faint KH keeps its name, and the 3D is seat 0's trail.
    log: list = []
    table, clock, kh = _faint_kh_trailed(log)
    table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C KH QC"))
    qc, d3 = table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C KH QC 3D"))
    assert (qc.data["card"], qc.data["seat"], qc.data["verdict"]) == ("QC", 1, "trail")
    assert (d3.data["card"], d3.data["seat"], d3.data["verdict"]) == ("3D", 0, "trail")
    assert set(table.state.floor) == {"9C", "5H", "4S", "8D", "7C", "KH", "QC", "3D"}
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_trail_beside_only_plain_reads_is_judged_at_once_r2_7():
    # The KH read plainly: nothing lies there on a doubtful read, so the QC is a trail at once.
    table, clock = dealt(floor="9C 5H 4S 8D")
    table.feed_snapshot(clock.snap("9C 5H 4S 8D KH"))
    table.feed_snapshot(clock.snap("9C 5H 4S 8D KH 7C"))
    (qc,) = table.feed_snapshot(clock.snap("9C 5H 4S 8D KH 7C QC"))
    assert (qc.type, qc.data["card"], qc.data["verdict"]) == (TURN, "QC", "trail")


def test_a_restarted_table_names_the_faint_trail_by_the_capture_as_the_live_one_r2_3_r7():
    # The table restarts between the QC laid and the scoop: it corrects the faint trail to QS
    # and judges the capture exactly as the table that never stopped.
    log: list = []
    table, clock, kh = _faint_kh_trailed(log)
    table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C KH QC"))
    resumed = Table(events=list(log), subscribers=[])
    scooped = clock.snap("9C 5H 4S 8D 7C")
    live, again = (t.feed_snapshot(scooped) for t in (table, resumed))
    assert [(e.type, e.data) for e in live] == [(e.type, e.data) for e in again]
    assert [e.type for e in live] == ["referee", TURN]
    assert resumed.state.to_dict() == table.state.to_dict()


def test_no_name_for_a_faint_trail_that_would_make_a_later_play_a_foul_r2_6_r7():
    # The faint "KH" trail as above, but seat 0 then trails a QH beside it (read plainly).
    # Seat 1's QC takes the QH and the "KH": as read, a Q took a K (a foul, R2.3). Its read's
    # QS would make that capture legal, but then the QH trailed beside a QS it had to take
    # (R2.6): the camera does not name it so, and the foul is left to the referee (R7).
    log: list = []
    table, clock, _kh = _faint_kh_trailed(log, then="QH")
    table.feed_snapshot(clock.snap("9C 5H 4S 8D KH QH QC"))
    (foul,) = table.feed_snapshot(clock.snap("9C 5H 4S 8D"))
    assert (foul.type, foul.data["card"], foul.data["verdict"]) == (FOUL, "QC", "foul")
    assert not [e for e in log if e.type == "referee"]


def test_the_real_card_of_a_code_a_capture_gave_takes_it_back_r1_1_r2_3():
    # After the QC took the faint trail named QS (its read's only Q), the real QS is laid by
    # seat 0, read plainly (0.9). One deck: the trail was another Q. The camera names it
    # again, the first Q still in play in deck order that keeps the QC's capture legal (a Q
    # takes a Q, R2.3; QH), and the QS is seat 0's trail (no Q on the floor): no held guess.
    log: list = []
    table, clock, kh = _faint_kh_trailed(log)
    table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C KH QC"))
    table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C"))
    assert "QS" in table._soft_gone()  # only the capture's guess holds it
    plain = _read_as(clock.snap("9C 5H 4S 8D 7C QS"), "QS", (("QS", 0.9), ("QD", 0.05)))
    fix, turn = table.feed_snapshot(plain)
    assert (fix.type, fix.data["target"], fix.data["payload"]) == (
        "referee", kh.id, {"card": "QH", "by": "camera", "capture": True}
    )  # fmt: skip
    assert (turn.type, turn.data["card"], turn.data["seat"], turn.data["verdict"]) == (
        TURN, "QS", 0, "trail"
    )  # fmt: skip
    assert sorted(table.state.match.captured(1)) == ["QC", "QH"]
    assert not table.state.errors
    assert replay(log).to_dict() == table.state.to_dict()
    # a table restarted from the log takes codes back the same way
    resumed = Table(events=list(log), subscribers=[])
    assert resumed._by_capture == table._by_capture


def test_a_code_a_capture_gave_is_taken_back_by_a_read_naming_it_first_r1_1_r2_3():
    # As above, but the real QS is read only 0.67 (KS 0.19): not plain enough to take a code
    # back from an ordinary doubtful read, but the trail's QS was only the capture's guess
    # among the Qs in play: the QS takes it, the trail is named QH, no held guess.
    log: list = []
    table, clock, kh = _faint_kh_trailed(log)
    table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C KH QC"))
    table.feed_snapshot(clock.snap("9C 5H 4S 8D 7C"))
    plain = _read_as(clock.snap("9C 5H 4S 8D 7C QS"), "QS", (("QS", 0.67), ("KS", 0.19)))
    fix, turn = table.feed_snapshot(plain)
    assert (fix.data["target"], fix.data["payload"]["card"]) == (kh.id, "QH")
    assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "QS", "trail")


def _read_as(snap: Snapshot, code: str, reading: tuple) -> Snapshot:
    """`snap` with the card `code` new in it read so (its confidence the read's top share)."""
    from dataclasses import replace

    return replace(snap, confidences=((code, reading[0][1]),), readings=((code, reading),))


def _show_shots(placed: list, shown) -> list[Shot]:
    """A card laid on the floor to show it, then taken back to its owner."""
    base = (800.0, 760.0)
    x, y = shown.center
    back = [(base, (x + (800.0 - x) * k / 4, y + (700.0 - y) * k / 4), shown) for k in range(4)]
    return [
        *lay_shots(placed, shown),
        Shot(0.4, placed, back, frozenset()),
        Shot(0.9, placed, [], frozenset(p.code for p in placed)),
    ]


def _floor_placed() -> list:
    """Where a rendered table's floor 9C 5D 8C KD lies (seat 1 plays first)."""
    from vision.scene import CardPlacement

    return [
        CardPlacement("9C", (420.0, 300.0), 4.0, 115.0),
        CardPlacement("5D", (600.0, 300.0), -3.0, 115.0),
        CardPlacement("8C", (780.0, 300.0), 2.0, 115.0),
        CardPlacement("KD", (960.0, 300.0), -2.0, 115.0),
    ]


def _refereed(
    shots: list, reader, fps: int = 15, restart_at: float | None = None, down_s: float = 0.0
) -> tuple[Table, list]:
    """A two-player classic table (seat 1 first) refereeing the rendered `shots` (filmed at
    `fps`) from frames read by `reader`; its events. From `restart_at` on, a table restarted
    from the events logged so far referees the rest (the frames of the `down_s` seconds the
    controller was down unseen)."""
    video = SimVideo(None, shots, fps, (1280, 720), "bellot-lgpl21", 9, GEO)
    log: list = []
    table = Table("classic", 2, 0, recognizer=reader, subscribers=[log.append])
    for t, frame, labels in video.frames(with_labels=True):
        if restart_at is not None and t >= restart_at:
            if t < restart_at + down_s:
                continue
            table = Table("classic", 2, 0, recognizer=reader, events=list(log),
                          subscribers=[log.append])  # fmt: skip
            restart_at = None
        reader.labels = labels
        if hasattr(reader, "frame"):
            reader.frame = frame  # (a reader whose closer looks find cards in the frame)
        table.feed_frame(frame, t)
    return table, log


def _plays(log: list) -> list:
    """(seat, card, verdict, cards taken) of every turn and foul in `log`."""
    return [(e.data["seat"], e.data["card"], e.data["verdict"], e.data.get("takes"))
            for e in log if e.type in (TURN, FOUL)]  # fmt: skip


@pytest.mark.parametrize("lifted", [False, True])
def test_a_faint_trail_then_a_capture_laid_and_scooped_unseen_keeps_its_turn_r2_7(lifted):
    # A rendered table; the floor is 9C 5D 8C KD (seat 1 plays first). Seat 1 trails a QH,
    # read only faintly (QH 0.56, KD 0.18, KH 0.14 of its read: a Q takes only a Q, R2.3,
    # and none lies there, R2.7). Seat 0 lays an 8H on the 8C and scoops both in one motion
    # (R2.2): the camera sees the 8C leave, never the 8H. The QH's place did not change, so
    # it lies on: seat 1's QH trail comes first, then seat 0 is asked to show its card, and
    # the 8H shown is seat 0's capture of the 8C. Where the QH itself was lifted with the 8C
    # (`lifted`: the faint card may have made the capture), nothing is credited to it: the
    # prompt asks for the card, and the 8H shown is seat 1's play.
    from vision.scene import CardPlacement

    c9, d5, c8, kd = _floor_placed()
    qh = CardPlacement("QH", (520.0, 470.0), 3.0, 115.0)
    h8 = CardPlacement("8H", (760.0, 480.0), -4.0, 115.0)
    floor = [c9, d5, c8, kd]
    shots = [Shot(1.0, floor, [], frozenset({"9C", "5D", "8C", "KD"})), *lay_shots(floor, qh)]
    after = [c9, d5, kd] if lifted else [c9, d5, kd, qh]
    if lifted:
        shots += scoop_shots([*floor, qh], qh)[:2]  # the QH goes first, then the 8C
        shots += scoop_shots([c9, d5, c8, kd], c8)
    else:
        shots += scoop_shots([*floor, qh], c8)
    shots += _show_shots(after, h8)
    reader = FaintReader(GEO, "QH", [("QH", 0.56), ("KD", 0.18), ("KH", 0.14)])
    table, log = _refereed(shots, reader)
    turns = _plays(log)
    prompts = [(e.data["seat"], e.data["kind"]) for e in log if e.type == PROMPT]
    if lifted:
        assert prompts == [(1, "show_card")]
        assert turns[0][:2] == (1, "8H")
    else:
        assert turns == [(1, "QH", "trail", []), (0, "8H", "capture", ["8C"])]
        assert prompts == [(0, "show_card")]
        assert set(table.state.floor) == {"9C", "5D", "KD", "QH"}


TOP, BOTTOM = (700.0, -40.0), (400.0, 760.0)  # arms' bases: seat 1's edge, seat 0's


@pytest.mark.parametrize(
    "sweeper, turns",
    [
        # seat 0's arm took the floor: the faint QH was seat 1's own card
        (BOTTOM, [(1, "QH", "unreadable", []), (0, "JD", "sweep", ["5D", "8C", "9C", "QH", "KD"])]),
        # seat 1's own arm took the floor: the card read faintly may be the JD itself
        (TOP, [(1, "JD", "sweep", ["5D", "8C", "9C", "KD"])]),
    ],
)
def test_a_faint_trail_swept_unseen_by_the_next_players_jack_keeps_its_turn_r2_4_r2_7(
    sweeper, turns
):
    # A rendered table; the floor is 9C 5D 8C KD (seat 1, at the top edge, plays first).
    # Seat 1 trails a QH, read only faintly (QH 0.46, QD 0.21, TH 0.19, TD 0.09, JD 0.06 of
    # its read: a Q takes only a Q, R2.3, and none lies there, R2.7). Seat 0, at the bottom
    # edge (DESIGN: seats as seen by the camera), lays a JD and sweeps the whole floor, the
    # QH with it (R2.4), in one motion: the camera sees the floor go, never the JD. The
    # prompt asks seat 1 for its card; the arm that took the floor came from seat 0's edge,
    # so the JD shown is seat 0's: seat 1's QH trail comes first (its read too unclear to
    # judge: held for the referee with QH as the guess, R7), then seat 0's JD sweep of all
    # five cards (a J sweep is no basra, R3.2; seat 1 plays next). Where seat 1's own arm took
    # the floor, the faint card may have been the JD itself: seat 1's sweep, as before.
    from vision.scene import CardPlacement

    c9, d5, c8, kd = _floor_placed()
    qh = CardPlacement("QH", (520.0, 470.0), 3.0, 115.0)
    jd = CardPlacement("JD", (760.0, 480.0), -4.0, 115.0)
    floor = [c9, d5, c8, kd]
    shots = [Shot(1.0, floor, [], frozenset({"9C", "5D", "8C", "KD"}))]
    shots += lay_shots(floor, qh, base=TOP)
    shots += scoop_shots([*floor, qh], qh, base=sweeper, rest=[])  # the whole floor
    shots += _show_shots([], jd)
    alts = [("QH", 0.46), ("QD", 0.21), ("TH", 0.19), ("TD", 0.09), ("JD", 0.06)]
    table, log = _refereed(shots, FaintReader(GEO, "QH", alts))
    assert _plays(log) == turns
    prompts = [(e.data["seat"], e.data["kind"]) for e in log if e.type == PROMPT]
    assert prompts == [(1, "show_card")]
    assert table.state.floor == ()
    assert "QH" not in table.tracker.cards  # swept: never kept where it lay
    assert table.state.to_play == (1 if sweeper == BOTTOM else 0)
    if sweeper == BOTTOM:
        held = next(e for e in log if e.type in (TURN, FOUL))
        assert "best possible guess QH" in held.data["reason"]


class MisReader(FaintReader):
    """Reads the exact labels plainly, but one card as another code (`misread`: true code ->
    code read), as surely as the rest."""

    def __init__(self, geometry: TableGeometry, misread: dict):
        super().__init__(geometry, "", [])
        self.misread = misread

    def observe(self, image, t):
        seen = super().observe(image, t)
        for card in seen.cards:
            code = self.misread.get(card.code, card.code)
            card.code, card.alts = code, [(code, 0.97)]
        return seen


@pytest.mark.parametrize(
    "sweeper, fps, restart",
    [(TOP, 15, False), (BOTTOM, 15, False), (TOP, 8, False), (TOP, 15, True), (BOTTOM, 15, True)],
    ids=["own-15fps", "next-15fps", "own-8fps", "own-restarted", "next-restarted"],
)
def test_a_trail_its_own_player_scoops_with_the_floor_is_held_not_a_missed_play_r2_4_r7(
    sweeper, fps, restart
):
    # A rendered table; the floor is 9C 5D 8C KD (seat 1, at the top edge, plays first).
    # Seat 1 lays a JC that the camera reads plainly as a QC: a Q takes only a Q (R2.3), so
    # it is judged a trail at once. Seat 1's own arm then sweeps the whole floor, the JC
    # with it (R2.4), before anything else comes: the card judged a trail made a capture its
    # read cannot make. Its trail is taken back (the camera's `undo`) and the play held for
    # the referee with its card unknown (R7 `unreadable`), the floor empty and seat 0 to
    # play: no play is asked of seat 0 and none credited to it. Where seat 0's arm took the
    # floor instead (a card laid and scooped unseen), the QC trail stands and seat 0 is
    # asked to show its card. A slower camera (8 fps) sees the sweeping arm in fewer frames
    # but for as long: the same verdicts. A table restarted between the trail and the sweep
    # (`restart`: the log holds the trail) gives the same verdicts too.
    from vision.scene import CardPlacement

    c9, d5, c8, kd = _floor_placed()
    jc = CardPlacement("JC", (520.0, 470.0), 3.0, 115.0)
    floor = [c9, d5, c8, kd]
    shots = [Shot(1.0, floor, [], frozenset({"9C", "5D", "8C", "KD"}))]
    shots += lay_shots(floor, jc, base=TOP)
    # (restarted while the QC lies still, once judged: 0.4 s before that still view's end)
    restart_at = sum(s.duration for s in shots) - 0.4 if restart else None
    shots += scoop_shots([*floor, jc], jc, base=sweeper, rest=[])  # the whole floor
    table, log = _refereed(shots, MisReader(GEO, {"JC": "QC"}), fps, restart_at)
    seen = [(e.type, e.data.get("seat"), e.data.get("card"), e.data.get("verdict") or
             e.data.get("action") or e.data.get("kind"))
            for e in log if e.type in (TURN, FOUL, REFEREE, PROMPT)]  # fmt: skip
    trail = (TURN, 1, "QC", "trail")
    if sweeper == TOP:
        assert seen == [trail, (REFEREE, None, None, "undo"), (FOUL, 1, None, "unreadable")]
        held = log[-1].data
        assert held["floor_before"] == ["5D", "8C", "9C", "KD"]
        assert held["floor_after"] == []
        assert "read as QC" in held["reason"]
        assert [tr.card for tr in table.state.current_round.live_turns()] == [None]
        assert table.state.to_play == 0
        assert table.state.floor == ()
        again = replay(log)  # the log alone gives the same table (a restart)
        assert (again.floor, again.to_play) == ((), 0)
        assert [tr.card for tr in again.current_round.live_turns()] == [None]
    else:
        assert seen == [trail, (PROMPT, 0, None, "show_card")]
        assert table.state.to_play == 0
        assert table.state.floor == ("5D", "8C", "9C", "QC", "KD")  # until a card is shown


@pytest.mark.parametrize(
    "faint, arm, still, missed",
    [
        ((("KD", 0.7), ("KS", 0.2), ("QD", 0.05)), 1, True, True),
        # the 2H came from seat 0's own edge: seat 0's play, the faint read no card of its
        ((("KD", 0.7), ("KS", 0.2), ("QD", 0.05)), 0, True, False),
        # its place changed as the 2H came (lifted, or never a card lying there)
        ((("KD", 0.7), ("KS", 0.2), ("QD", 0.05)), 1, False, False),
        # read as the 9C lying on the floor: perhaps that card itself, read again
        ((("9C", 0.7), ("KS", 0.2)), 1, True, False),
        # read as a card gone, but too faintly to tell it is one
        ((("KD", 0.3), ("KS", 0.2)), 1, True, False),
    ],
)
def test_a_faint_card_read_only_as_cards_gone_is_the_seat_to_plays_unseen_play_r1_1_r1_5_r7(
    faint, arm, still, missed
):
    # Seat 1's KS takes the KD (R2.3). Seat 0's card is read only faintly where it lands:
    # KD 0.7, KS 0.2, QD 0.05 of its read. KD and KS are gone this round (one deck, R1.1) and
    # QD has too small a share to name it: no code names the card (a QH read so, seen on a
    # dark tossed table). It lies there as the 2H comes from seat 1's edge (R1.5: turns pass
    # in order): seat 0 laid a card no read names. Its turn is held for the referee, card
    # unknown and nothing taken (R7), and the 2H is seat 1's trail; seat 0 plays next.
    # Otherwise the 2H is seat 0's play, as before.
    table, clock = dealt()
    table.feed_snapshot(clock.snap("9C 5H 4S KD KS"))
    (ks,) = table.feed_snapshot(clock.snap("9C 5H 4S"))
    assert (ks.data["card"], ks.data["seat"], ks.data["takes"]) == ("KS", 1, ["KD"])
    table.turns.lies_still = lambda box: still  # (no pixels: what they would say)
    view = clock.snap("9C 5H 4S", faint, faint_box=FAINT_AT)
    assert table.feed_snapshot(replace(view, arms=((0, 0.4),))) == []
    view = clock.snap("9C 5H 4S 2H")
    events = table.feed_snapshot(replace(view, arms=((arm, 0.4),)))
    if missed:
        held, trail = events
        assert (held.type, held.data["seat"], held.data["card"], held.data["verdict"]) == (
            FOUL, 0, None, "unreadable"
        )  # fmt: skip
        assert held.data["floor_before"] == held.data["floor_after"] == ["4S", "5H", "9C"]
        assert held.data["t_landed"] == 4.0  # when the faint card was first seen lying there
        assert "could not name (read as KD, played earlier" in held.data["reason"]
    else:
        (trail,) = events
    assert (trail.type, trail.data["card"], trail.data["verdict"]) == (TURN, "2H", "trail")
    assert trail.data["seat"] == (1 if missed else 0)
    assert table.state.to_play == (0 if missed else 1)


class PlainFrom(FaintReader):
    """A FaintReader whose faint card is read plainly from the time `plain_from` on."""

    def __init__(self, geometry: TableGeometry, faint: str, alts: list, plain_from: float):
        super().__init__(geometry, faint, alts)
        self.code, self.plain_from = faint, plain_from

    def observe(self, image, t):
        self.faint = "" if t >= self.plain_from else self.code
        return super().observe(image, t)


@pytest.mark.parametrize("restart", [False, True])
def test_a_card_no_read_names_is_held_then_named_where_it_lies_when_read_r1_1_r2_7_r7(restart):
    # A rendered table; the floor is 9C 5D 8C KD (seat 1, at the top edge, plays first).
    # Seat 1's KS takes the KD (R2.3). Seat 0's QH is read only faintly, KD 0.7, KS 0.2,
    # QD 0.05 of its read: codes gone this round (one deck, R1.1), or too faint to name it.
    # Seat 1's 2H comes from its edge while the QH lies there: seat 0's play is held, card
    # unknown, and the 2H is seat 1's trail (R2.7, R1.5). Seat 0's 8H takes the 8C (R2.2);
    # in that view the QH is read plainly where it lay since, its place untouched by the
    # capture: the camera names seat 0's held play a QH trail (R2.7), lying in every floor
    # since. No foul, no extra play; seat 1 plays next. A table restarted after the 2H's
    # trail (`restart`: the held play and where the QH lies are in the log) does the same.
    from vision.scene import CardPlacement

    c9, d5, c8, kd = _floor_placed()
    ks = CardPlacement("KS", (940.0, 470.0), -3.0, 115.0)
    qh = CardPlacement("QH", (420.0, 480.0), 3.0, 115.0)
    h2 = CardPlacement("2H", (640.0, 160.0), 5.0, 115.0)
    h8 = CardPlacement("8H", (780.0, 480.0), -4.0, 115.0)
    shots = [Shot(1.0, [c9, d5, c8, kd], [], frozenset({"9C", "5D", "8C", "KD"}))]
    shots += lay_shots([c9, d5, c8, kd], ks, base=TOP)
    shots += scoop_shots([c9, d5, c8, kd, ks], ks, base=TOP, rest=[c9, d5, c8])
    shots += lay_shots([c9, d5, c8], qh, base=BOTTOM)
    shots += lay_shots([c9, d5, c8, qh], h2, base=TOP)
    # (restarted while the 2H lies still, once judged: 0.4 s before that still view's end)
    restart_at = sum(s.duration for s in shots) - 0.4 if restart else None
    shots += lay_shots([c9, d5, c8, qh, h2], h8, base=BOTTOM)
    plain_from = sum(s.duration for s in shots)  # the QH read plainly from the 8H's scoop on
    shots += scoop_shots([c9, d5, c8, qh, h2, h8], h8, base=BOTTOM, rest=[c9, d5, qh, h2])
    reader = PlainFrom(GEO, "QH", [("KD", 0.7), ("KS", 0.2), ("QD", 0.05)], plain_from)
    table, log = _refereed(shots, reader, restart_at=restart_at)
    held = next(e for e in log if e.type == FOUL)
    assert _plays(log) == [
        (1, "KS", "capture", ["KD"]),
        (0, None, "unreadable", []),
        (1, "2H", "trail", []),
        (0, "8H", "capture", ["8C"]),
    ]
    x0, y0, x1, y1 = held.data["box"]  # the log holds where the QH lies (for a restart)
    assert abs((x0 + x1) / 2 - 420) < 10 and abs((y0 + y1) / 2 - 480) < 10
    (named,) = [e for e in log if e.type == REFEREE]
    assert (named.data["target"], named.data["payload"]) == (
        held.id,
        {"card": "QH", "floor_after": ["5D", "8C", "9C", "QH"], "lay": True, "by": "camera"},
    )  # fmt: skip
    turns = [(tr.seat, tr.card, tr.verdict) for tr in table.state.current_round.live_turns()]
    assert turns == [(1, "KS", "capture"), (0, "QH", "trail"), (1, "2H", "trail"),
                     (0, "8H", "capture")]  # fmt: skip
    assert table.state.fouls() == [] and table.state.to_play == 1
    assert set(table.state.floor) == {"9C", "5D", "QH", "2H"}
    assert replay(log).to_dict() == table.state.to_dict()  # a restart agrees


def test_a_faint_trail_read_plainly_with_the_next_card_that_can_take_came_first_r2_2_r2_7():
    # Seat 1's KH is read faintly (KH 0.88) where it lands; before the camera settles again
    # seat 0's 2D lands too, and both are read plainly in one view. The 2D could take the 2C
    # with or without the KH there (R2.3), so that alone gives no order; but the KH was seen
    # alone first: it trailed (no K lies there, R2.7), seat 0's 2D waits for its scoop and
    # takes the 2C (R2.3).
    table, clock = dealt(floor="9C 5H 4S 2C")
    faint = (("KH", 0.88), ("JC", 0.07), ("KD", 0.03))
    assert table.feed_snapshot(clock.snap("9C 5H 4S 2C", faint, faint_box=FAINT_AT)) == []
    kh, laid = table.feed_snapshot(clock.snap("9C 5H 4S 2C 2D KH"))
    assert (kh.type, kh.data["seat"], kh.data["card"], kh.data["verdict"]) == (
        TURN, 1, "KH", "trail"
    )  # fmt: skip
    assert kh.data["doubtful"] is True
    assert (laid.type, laid.data["seat"], laid.data["card"]) == (CARD_LAID, 0, "2D")
    (d2,) = table.feed_snapshot(clock.snap("9C 5H 4S KH"))
    assert (d2.data["seat"], d2.data["card"], d2.data["takes"]) == (0, "2D", ["2C"])


def test_two_cards_from_nowhere_that_can_both_take_are_asked_about_r7():
    # The same view with nothing read before it: either card may have come first, and the
    # 2D could take the 2C either way: the referee is asked, nothing is judged.
    table, clock = dealt(floor="9C 5H 4S 2C")
    (prompt,) = table.feed_snapshot(clock.snap("9C 5H 4S 2C 2D KH"))
    assert (prompt.type, prompt.data["kind"]) == (PROMPT, "unreadable")
    assert table.state.turns() == []


def _armed_view(clock: Clock, cards: str, seat: int) -> Snapshot:
    """The next view, `seat`'s arm alone seen reaching in over it."""
    view = clock.snap(cards)
    return Snapshot(view.t, view.floor, arms=((seat, 0.4),))


def _faint_ten_dealt(log: list, plain: str = "3H 7H 9S") -> tuple[Table, Clock]:
    """Classic, two players: the dealer lays `plain` read plainly and a 4th card read only
    faintly (TC 0.54, 6C 0.46, QC 0.07); seat 1's KS lands, a trail (R2.3): the deal is
    `plain` and the TC, named from the faint read and kept at its place (the tracker keeps it
    in every view after: here the views list it)."""
    table, clock = Table("classic", 2, 0, subscribers=[log.append]), Clock()
    cards = plain.split()
    for k in range(1, 4):
        table.feed_snapshot(clock.snap(" ".join(cards[:k])))
    snap = clock.snap(plain)
    faint = (("TC", 0.54), ("6C", 0.46), ("QC", 0.07))
    table.feed_snapshot(Snapshot(snap.t, snap.floor, faint=faint, faint_box=FAINT_AT))
    started, trail = table.feed_snapshot(_armed_view(clock, plain + " KS", 1))
    assert started.data["faint"]["card"] == "TC" and trail.data["verdict"] == "trail"
    return table, clock


def test_a_faint_dealt_card_taken_by_a_card_its_runner_up_pairs_is_that_runner_up_r1_2_r2_2():
    # Fresh held-out match 530 (`benchmarks/table.py --cards any --setup lebanese:3`): the
    # dealt 6C was read only faintly (TC 0.54, 6C 0.46) and dealt as the TC. Seat 0's 6D
    # comes, a trail beside a TC (no 6 and no cards making 6: R2.2), and seat 0's own arm then
    # scoops it with the "TC": a 6 cannot take a 10, but it takes the 6C (R2.2) that the faint
    # read gave nearly as much. The camera names the dealt card 6C and makes the 6D's trail
    # that capture; before, the 6D was held unread (R7) and every later play of the round
    # was judged on a floor holding a TC that was not there.
    log: list = []
    table, clock = _faint_ten_dealt(log)
    started = next(e for e in log if e.type == ROUND_STARTED)
    assert started.data["readings"]["TC"] == [["TC", 0.54], ["6C", 0.46], ["QC", 0.07]]
    (six,) = table.feed_snapshot(_armed_view(clock, "3H 7H 9S TC KS 6D", 0))
    assert (six.data["card"], six.data["verdict"]) == ("6D", "trail")
    named, took = table.feed_snapshot(_armed_view(clock, "3H 7H 9S KS", 0))
    assert (named.type, named.data["target"], named.data["payload"]) == (
        REFEREE, started.id, {"was": "TC", "card": "6C", "by": "camera", "capture": True}
    )  # fmt: skip
    assert (took.data["target"], took.data["payload"]) == (
        six.id, {"card": "6D", "by": "camera", "floor_after": ["3H", "7H", "9S", "KS"]}
    )  # fmt: skip
    assert table.state.rounds[0].floor == ("3H", "7H", "9S", "6C")
    assert table.state.match.captured(0) == ("6D", "6C")
    assert table.state.fouls() == [] and table.state.to_play == 1
    assert replay(log).to_dict() == table.state.to_dict()


def test_a_faint_dealt_card_no_runner_up_explains_leaves_the_play_held_r7():
    # The same deal, but seat 0's card is a 5D: neither the TC nor any code the faint read
    # gave pairs with it or makes 5 (R2.2), so its lifting the "TC" stays held for the
    # referee, card unknown (R7), the deal as read.
    log: list = []
    table, clock = _faint_ten_dealt(log)
    (five,) = table.feed_snapshot(_armed_view(clock, "3H 7H 9S TC KS 5D", 0))
    assert (five.data["card"], five.data["verdict"]) == ("5D", "trail")
    out = table.feed_snapshot(_armed_view(clock, "3H 7H 9S KS", 0))
    assert [(e.type, e.data.get("action")) for e in out][:1] == [(REFEREE, "undo")]
    assert [f["kind"] for f in table.state.fouls()] == ["unreadable"]
    assert table.state.rounds[0].floor == ("3H", "7H", "9S", "TC")


def test_a_restarted_table_names_a_faint_dealt_card_by_its_runner_up_as_the_live_one_r1_2():
    # The faint dealt card's read is in the log (`readings` of the round's start); the table
    # restarts before seat 0's 6D comes. The 6D's capture of 2H 4S and the "TC" makes the
    # same correction on both (the dealt card was the 6C, R2.2).
    log: list = []
    table, clock = _faint_ten_dealt(log, "2H 4S 9S")
    resumed = Table(events=list(log))
    for view in (_armed_view(clock, "2H 4S 9S TC KS 6D", 0), _armed_view(clock, "9S KS", 0)):
        live, again = table.feed_snapshot(view), resumed.feed_snapshot(view)
        assert [(e.type, e.data) for e in again] == [(e.type, e.data) for e in live]
    assert live[0].data["payload"]["card"] == "6C"
    assert resumed.state.to_dict() == table.state.to_dict()


def test_a_capture_of_a_faint_dealt_card_its_runner_up_makes_legal_names_it_r1_2_r2_2():
    # Dealt 2H 4S 9S and the 6C read faintly as TC (0.54; 6C 0.46). Seat 0's 6D lands: it
    # takes 2H 4S (2 + 4 = 6, R2.2), so its turn waits for the scoop, which takes the "TC"
    # too. A 6 cannot take a 10, but the 6C is the faint read's runner-up, and with it the
    # capture is legal (the pair and the sum, R2.2): the camera names the dealt card 6C and
    # the 6D's capture stands, no foul.
    log: list = []
    table, clock = _faint_ten_dealt(log, "2H 4S 9S")
    (laid,) = table.feed_snapshot(_armed_view(clock, "2H 4S 9S TC KS 6D", 0))
    assert (laid.type, laid.data["card"]) == (CARD_LAID, "6D")
    named, turn = table.feed_snapshot(_armed_view(clock, "9S KS", 0))
    started = next(e for e in log if e.type == ROUND_STARTED)
    assert (named.type, named.data["target"], named.data["payload"]) == (
        REFEREE, started.id, {"was": "TC", "card": "6C", "by": "camera", "capture": True}
    )  # fmt: skip
    assert (turn.type, turn.data["card"], turn.data["verdict"]) == (TURN, "6D", "capture")
    assert sorted(turn.data["takes"]) == ["2H", "4S", "6C"]
    assert table.state.fouls() == []
