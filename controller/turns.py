"""From settled floor snapshots to turns: what was played, what was taken, when to prompt.

A pure state machine: `TurnTracker.step(snapshot)` returns plain intents (a round's initial
floor, a misdeal-fix prompt, an observed turn, a "show the card" prompt, a play the camera
missed, the next deal seen early); the Table judges them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Snapshot:
    """A settled view of the floor: the cards on it at video time `t`."""

    t: float
    floor: frozenset[str]
    confidence: float = 1.0
    t_still: float | None = None  # when the scene stopped moving (the card landed), if known
    unsure: frozenset[str] = frozenset()  # codes that are only a best guess (one deck)
    unreadable: int = 0  # cards seen on the floor that no possible code names
    confidences: tuple[tuple[str, float], ...] = ()  # (code, mean confidence) of the reads
    # (earlier code, code): a card that did not move, read better: the earlier read was wrong
    renamed: tuple[tuple[str, str], ...] = ()
    gone_read: frozenset[str] = frozenset()  # codes gone this round, read surely on the floor
    # cards just laid but read too faintly to be on `floor`: (code, share of the probability)
    faint: tuple[tuple[str, float], ...] = ()
    faint_box: tuple[float, ...] | None = None  # where the faintest-read card lies (pixels)
    # what the classifier said of each card new on the floor: (code, ((code, share), ...))
    readings: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()
    # cards no read named at a place that changed, kept as still there (too small a change
    # for a lift), and named by no read since: perhaps taken after all (a white card lifted
    # off a white table)
    unread: frozenset[str] = frozenset()
    # arms seen reaching in over the floor since the last snapshot, from each seat's edge:
    # (seat, seconds of moving video), seats in turn order (DESIGN: each player sits at an
    # edge)
    arms: tuple[tuple[int, float], ...] = ()

    def confidence_of(self, code: str) -> float | None:
        return next((c for k, c in self.confidences if k == code), None)

    def reading_of(self, code: str) -> tuple[tuple[str, float], ...]:
        return next((r for k, r in self.readings if k == code), ())


@dataclass(frozen=True)
class RoundStart:
    """The dealer laid the initial floor (after any R1.3 fix); `misdeal` if a J/7D stayed."""

    floor: frozenset[str]
    t: float
    misdeal: tuple[str, ...] = ()
    confidences: tuple[float, ...] = ()  # how surely each floor card was read
    # the 4th dealt card was read too faintly to accept and the first play came beside it:
    # (code, share of its read, box) - named from that read, held on the floor at that box
    faint: tuple[str, float, tuple[float, ...]] | None = None
    # what was read of that faint card: (code, share), likeliest first
    faint_reading: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class MisdealPrompt:
    """R1.3: the initial floor holds a J (or 7D): the dealer must return it and replace it."""

    cards: tuple[str, ...]
    t: float
    floor: frozenset[str] = frozenset()  # the dealt floor that holds them


@dataclass(frozen=True)
class ObservedTurn:
    """One turn as seen: the card played (None if never seen), floor before and after."""

    card: str | None
    floor_before: frozenset[str]
    floor_after: frozenset[str]
    t: float  # when the turn's outcome was settled (the verdict can be given)
    t_landed: float  # when the played card (or the scoop) was first seen settled
    shown: bool = False  # the card was identified only by the "show the card" prompt
    confidence: float = 1.0  # the least sure read the turn rests on
    unsure: bool = False  # the card's code is only a best guess (held for the referee)
    card_confidence: float | None = None  # how surely the played card itself was read
    inferred: bool = False  # one of two plays seen in one view: their order was inferred
    # the card was read too faintly to be accepted; the cards it took named it (`explain`)
    by_capture: bool = False
    # the card was read too faintly to be accepted and stayed as the next card came (a
    # trail): it lies at this box, and the tracker is told to keep it there
    faint_box: tuple[float, ...] | None = None
    # what the classifier said of the card: ((code, share), ...), surest first (its runner-ups
    # name the card when the read was doubtful and the play it makes is a foul: `Table`)
    reading: tuple[tuple[str, float], ...] = ()
    # the play was never shown when asked: only a read too faint to accept named its card
    unshown: bool = False
    # it was seen taken right after it (the round's last play: the leftovers, with it, went
    # to the last capturer, R3.5; or the next card's capture took it): it no longer lies at
    # `faint_box`
    cleared: bool = False


@dataclass(frozen=True)
class CardLaid:
    """A card that can capture was laid; its turn ends when cards leave (or the next lands)."""

    card: str
    floor_before: frozenset[str]
    floor: frozenset[str]
    t: float
    t_landed: float | None = None  # when it was first seen settled (the turn's t_landed)
    confidence: float = 1.0  # the recogniser's certainty about that snapshot
    unsure: bool = False  # the card's code is only a best guess (one deck)
    card_confidence: float | None = None  # how surely the laid card itself was read
    reading: tuple[tuple[str, float], ...] = ()  # what the classifier said of it (its turn's)
    # the card shown after a "show the card" prompt: its turn comes as it goes back
    shown: bool = False


@dataclass(frozen=True)
class NewDeal:
    """The next round's deal began before the turns saw all 48 plays (some were missed): the
    floor was cleared at `t_cleared`, then fresh cards came that were already played this
    round (one deck: only a new deal brings them back). The round ends short; what the turns
    made of the dealt cards since `t_cleared` is taken back."""

    t_cleared: float
    t: float
    gone_read: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DealFixed:
    """R1.3 done after the round started: before the first play the dealer took back the dealt
    card read `was` (so it was a J, or a 7D outside Lebanese: the camera misread it) and laid
    `card` in its place."""

    was: str
    card: str
    t: float
    reading: tuple[tuple[str, float], ...] = ()  # what the classifier said of `card`


@dataclass(frozen=True)
class ShowCardPrompt:
    """Cards left the floor but the played card was never seen (a fast lay-and-scoop)."""

    floor_before: frozenset[str]
    floor_after: frozenset[str]
    t: float


@dataclass(frozen=True)
class MissedPlay:
    """Cards left the floor (`floor_before` -> `floor_after`) with a card nobody saw, and the
    card laid next was the next player's play, not that card shown: the turn is held for the
    referee with its card unknown (R7 `unreadable`); play goes on from the floor as seen."""

    floor_before: frozenset[str]
    floor_after: frozenset[str]
    t: float
    # the card was seen leave the floor with cards never seen there (a capture all the same)
    captured: bool = False
    # it was seen, but read as this card, played earlier this round (one deck: a misread)
    read_as: str | None = None
    # where that card lies, when a faint read of it told (a restarted table keeps it)
    at: tuple[float, ...] | None = None


@dataclass(frozen=True)
class UnseenNamed:
    """A card new in this view whose place did not change in it lies where the seat that
    laid a card nobody saw left it (`MissedPlay` with no card left): read at last, it names
    that held play (a trail, R2.7), and is no new play."""

    card: str
    t: float


@dataclass(frozen=True)
class TrailScooped:
    """The card just judged a trail (read as `read_as`, laid on `floor_before`) left the
    floor with other cards, scooped by its own player's arm before anything else came: it
    made a capture its read cannot make (a J read QC sweeping). Its turn is taken back and
    held for the referee with its card unknown (R7 `unreadable`), taking the floor to
    `floor_after`; play goes on from the floor as seen. (No `card`: its code names no card,
    so nothing that renames or claims a view's cards touches it.)"""

    read_as: str
    floor_before: frozenset[str]
    floor_after: frozenset[str]
    t: float
    # a card laid unseen (`MissedPlay`, no card left) may lie there still, never read: when
    # this card left the floor alone, it took that one
    unseen_lying: bool = False


@dataclass(frozen=True)
class ShowCancelled:
    """The floor came back as it was before the "show the card" prompt: no turn happened."""

    t: float


@dataclass(frozen=True)
class Reread:
    """A card that did not move was read better: it is `card`, not `was` (one card, renamed
    wherever the turns hold it; the turn that played it is corrected)."""

    was: str
    card: str
    t: float


@dataclass(frozen=True)
class UnreadablePrompt:
    """A floor change no single turn explains (cards from nowhere); the floor is kept."""

    floor_before: frozenset[str]
    seen: frozenset[str]
    t: float
    unreadable: int = 0  # cards seen that no possible code names (one deck)


Intent = (
    RoundStart
    | MisdealPrompt
    | DealFixed
    | CardLaid
    | ObservedTurn
    | ShowCardPrompt
    | ShowCancelled
    | UnreadablePrompt
    | Reread
    | NewDeal
    | MissedPlay
    | UnseenNamed
    | TrailScooped
)

# A new deal lays 4 cards (DESIGN: dealt one by one, face up) on a cleared floor.
DEAL_FLOOR = 4
# Codes gone this round read surely on a fresh floor that prove a new deal. One is not enough
# even near the round's end: a misread of the last cards played names a gone code as often
# (seen on the held-out deck: the round's last JD read as the JD "played" by a misread).
NEW_DEAL_GONE = 2

# A capture by the card judged a trail just before is told by its own player's arm, seen
# reaching in for at least this many seconds of moving video (a lay and scoop: 0.33-0.47 s;
# three frames at 15 fps, the rate it was measured at, less a rounding margin)
SCOOP_ARM_S = 0.19

DEAL, IDLE, LAID, AWAIT_SHOW, SHOWING = "deal", "idle", "laid", "await_show", "showing"


@dataclass
class TurnTracker:
    """Turns a stream of settled snapshots into intents.

    can_capture(floor, card) says whether `card` played on `floor` takes anything (then the
    tracker waits for the scoop; otherwise the trail is final at once). bad_initial(card) says
    whether a card may not stay on the initial floor (R1.3: J, and 7D except in Lebanese).
    """

    can_capture: Callable[[frozenset[str], str], bool]
    bad_initial: Callable[[str], bool]
    # explain(floor_before, floor_after, faint) -> (card, share) or None: the card read too
    # faintly to be accepted (`Snapshot.faint`: code -> share) that took exactly these cards
    explain: (
        Callable[[frozenset[str], frozenset[str], dict[str, float]], tuple[str, float] | None]
        | None
    ) = None
    # trail_of(floor, faint, added, box) -> (card, share, sure) or None: the card read too
    # faintly at `box` that stayed on `floor` as the next cards (`added`) came (it took
    # nothing: a trail, or a missed capture)
    trail_of: (
        Callable[
            [frozenset[str], dict[str, float], frozenset[str], tuple[float, ...]],
            tuple[str, float, bool] | None,
        ]
        | None
    ) = None
    # deal_faint(floor, faint, added, box) -> (card, share) or None: the 4th dealt card, read
    # too faintly at `box` beside the 3 read plainly (`floor`), when the first play (`added`)
    # came beside it
    deal_faint: (
        Callable[
            [frozenset[str], dict[str, float], frozenset[str], tuple[float, ...]],
            tuple[str, float] | None,
        ]
        | None
    ) = None
    # still_lying(floor_before, card, floor_after, faint, box) -> codes: cards that seemed to
    # leave with a capture but lie on, read faintly at `box` (their place), when the play
    # that took them is a foul and the play without them is legal
    still_lying: (
        Callable[
            [frozenset[str], str, frozenset[str], dict[str, float], tuple[float, ...]],
            frozenset[str],
        ]
        | None
    ) = None
    # still_gone(floor_before, card, floor_after, unread) -> codes: cards the tracker kept
    # unread (`Snapshot.unread`) that the capture took after all, when the capture that left
    # them is a foul and the capture that took them is legal
    still_gone: (
        Callable[[frozenset[str], str, frozenset[str], frozenset[str]], frozenset[str]] | None
    ) = None
    # could_take(floor, card) -> whether `card`, taking nothing from `floor` as read, would
    # take a card lying there on a doubtful read were it another code of that read: its
    # turn then waits for the scoop like a card that can capture
    could_take: Callable[[frozenset[str], str], bool] | None = None
    # runner_takes(floor, card, reading, card_confidence) -> whether `card`, taking nothing
    # from `floor` as read, was read doubtfully and a runner-up of its own read would take
    # something there (a 6C read TC 0.50, 6C 0.41 laid on AH 5C): its turn waits for the
    # scoop, where the capture names it by that runner-up
    runner_takes: (
        Callable[[frozenset[str], str, tuple[tuple[str, float], ...], float], bool] | None
    ) = None
    # lies_still(box) -> whether the place `box` showed no change in this view (a card read
    # faintly there was not lifted; False where no pixels tell)
    lies_still: Callable[[tuple[float, ...]], bool] | None = None
    # placed_before(code, at) -> whether the card `code` of this view lay at a place that did
    # not change in it (it came in an earlier view, unread there), and at `at` where given
    placed_before: Callable[[str, tuple[float, ...] | None], bool] | None = None
    # misread(floor, faint, added, box) -> whether the card read too faintly at `box`, lying
    # there as the next cards (`added`) came, was read only as codes gone this round (one
    # deck: its read is wrong, and names no card)
    misread: (
        Callable[[frozenset[str], dict[str, float], frozenset[str], tuple[float, ...]], bool] | None
    ) = None
    # replaced(back, added) -> the cards of `added` lying where the dealt cards `back` lay
    # before the dealer took them back (R1.3: each replacement dealt into its gap), or None
    # where their places do not tell them from the first play
    replaced: Callable[[frozenset[str], frozenset[str]], frozenset[str] | None] | None = None
    # plain_of(lying, faint) -> (card, share) or None: a card read too faintly to accept
    # (`faint`: code -> share) named plainly enough to judge its play by that read
    plain_of: Callable[[frozenset[str], dict[str, float]], tuple[str, float] | None] | None = None
    # reached(arms) -> how many seats after the seat to play the arm a view saw
    # (`Snapshot.arms`) came from: 0 that seat, 1 the next, players - 1 the one before;
    # None when no arm tells (none seen, or two seen as often)
    reached: Callable[[tuple[tuple[int, float], ...]], int | None] | None = None
    players: int = 2  # how many seats play, in turn order
    # last_play() -> whether the next play is the round's last (R8.7: the 48th)
    last_play: Callable[[], bool] | None = None
    # one_play(floor_before, floor_after) -> whether one card still in play takes exactly
    # the cards that left, legally (R2)
    one_play: Callable[[frozenset[str], frozenset[str]], bool] | None = None
    mode: str = DEAL
    floor: frozenset[str] = frozenset()
    seen_empty: bool = True
    _last4: frozenset[str] | None = None
    _prompted: frozenset[str] = frozenset()
    _leftovers: frozenset[str] = frozenset()
    _card: str | None = None
    _laid: frozenset[str] = frozenset()
    _t_land: float = 0.0
    _conf: float = 1.0
    _unsure: bool = False
    _card_conf: float | None = None
    _reading: tuple[tuple[str, float], ...] = ()  # the laid card's read
    _after: frozenset[str] = frozenset()
    _unreadable: frozenset[str] | None = None
    _cleared_t: float | None = None  # when the floor was last seen empty in a round
    _show_snap: Snapshot | None = None  # the view where the card to show was laid (SHOWING)
    # the card shown after a prompt, read only faintly: what was read of it, and when
    _shown_faint: dict[str, float] = field(default_factory=dict)
    _shown_t: float | None = None
    _unexplained: frozenset[str] | None = None  # the last view no single play explained
    # when the seat to play's arm alone reached in and the view after showed nothing new (no
    # faint read either), since the last play
    _reached_t: float | None = None
    # a card nobody saw (or nobody could name) was laid as a trail (the seat to play reached
    # in unseen, or its card was read only as cards gone), and no card has left the floor
    # since: a card read later where it lies names that play
    _unseen: bool = False
    # where that card lies, when a faint read of it told: while its place shows no change, a
    # card read there later is it, whatever left the floor meanwhile
    _unseen_at: tuple[float, ...] | None = None
    _fresh: int = 0  # the most cards seen on the floor since (none left it)
    _faint: dict[str, float] = field(default_factory=dict)  # faint reads since the last play
    _faint_t: float | None = None  # when the first of them was seen settled
    _faint_box: tuple[float, ...] | None = None  # where the card read faintly lies
    # a card of the deal read faintly: what was read of it, and where it lies; and the view
    # before this one while dealing
    _deal_faint: tuple[dict[str, float], tuple[float, ...]] | None = None
    _deal_prev: frozenset[str] | None = None
    # while a "show the card" prompt is open: the card read too faintly before the cards left,
    # not credited with a turn (no legal capture explains it): its read, when it was first seen
    # lying, where (if known), and whether the arm that took them came from the next seat's
    # edge (then it may have been the seat to play's trail, taken by the next card: shown;
    # else the play nobody shows is judged by that read where it is plain: `_unshown_play`)
    _prompt_faint: tuple[dict[str, float], float, tuple[float, ...] | None, bool] | None = None
    # the last play, when it was a card judged a trail at once: (card, floor before, after)
    _last_trail: tuple[str, frozenset[str], frozenset[str]] | None = None
    # the round's dealt floor while no play has come (the dealer may still do R1.3), and the
    # dealt card the dealer took back, its replacement not yet laid
    _dealt_floor: frozenset[str] | None = None
    _returned: str | None = None
    log: list[str] = field(default_factory=list)

    # ---- control from the table -----------------------------------------------------------
    def resume_misdeal(self, dealt: frozenset[str], asked: frozenset[str]) -> None:
        """A restarted table while a misdeal prompt is open: the deal `dealt` was laid and the
        prompt asked the cards `asked` back (R1.3); it is not raised again for them."""
        self.seen_empty = True
        self._last4 = frozenset(dealt) or None
        self._prompted = frozenset(asked)

    def expect_deal(self, require_empty: bool = True, leftovers=frozenset()) -> None:
        """A new round: wait for the floor to be cleared (if asked) and 4 cards laid.

        `leftovers` are the last round's cards still on the floor (R3.5): a view holding all
        of them, or only some of them, is not a deal; any other view means the floor was
        cleared."""
        self.mode = DEAL
        self.seen_empty = not require_empty
        self._leftovers = frozenset(leftovers)
        self._last4 = None
        self._prompted = frozenset()
        self._cleared_t = None
        self._deal_faint, self._deal_prev = None, None
        self._unseen, self._unseen_at = False, None
        self._dealt_floor, self._returned = None, None

    def set_floor(self, floor: frozenset[str] | tuple[str, ...]) -> None:
        """The floor is known to be `floor` (round started, referee decision): wait for a play."""
        self.mode = IDLE
        if not self.floor <= frozenset(floor):
            # cards left: a card read later is no longer sure to be it
            self._unseen, self._unseen_at = False, None
        self.floor = frozenset(floor)
        self._faint, self._faint_t, self._faint_box = {}, None, None
        self._prompt_faint, self._last_trail = None, None
        self._reached_t = None
        self._dealt_floor, self._returned = None, None

    def _rename(self, was: str, card: str, t: float) -> Reread:
        def swap(cards: frozenset[str]) -> frozenset[str]:
            return frozenset(card if c == was else c for c in cards)

        self.floor, self._laid, self._after = swap(self.floor), swap(self._laid), swap(self._after)
        if self._card == was:
            self._card = card
        return Reread(was, card, t)

    def rename(
        self,
        was: str,
        card: str,
        sure: bool = False,
        guess: bool = False,
        confidence: float | None = None,
    ) -> None:
        """A card the turns hold is `card`, not `was` (the Table renamed it); `sure`: the
        card laid is no longer only a guess; `guess`: it is now only a guess; `confidence`:
        how surely it is now read (the card laid's turn rests on it)."""
        self._rename(was, card, 0.0)
        if self._card != card:
            return
        if sure or guess:
            self._unsure = guess
        if confidence is not None:
            self._conf, self._card_conf = min(self._conf, confidence), confidence

    def on_floor(self) -> frozenset[str]:
        """The codes that lie on the floor now as far as the turns know (with a laid or a
        shown card that may still lie there)."""
        if self.mode == LAID:
            return self.floor | self._laid
        if self.mode == AWAIT_SHOW:
            return self.floor | self._after
        if self.mode == SHOWING and self._card:
            return self.floor | {self._card}
        return self.floor

    # ---- the state machine ----------------------------------------------------------------
    def _handler(self) -> Callable[[Snapshot], list[Intent]]:
        return {
            DEAL: self._deal,
            IDLE: self._idle,
            LAID: self._laid_step,
            AWAIT_SHOW: self._await_show,
            SHOWING: self._showing,
        }[self.mode]

    def step(self, snap: Snapshot) -> list[Intent]:
        handler = self._handler()
        out: list[Intent] = []
        if self.mode != DEAL:  # a new round's deal: nothing played yet to rename
            deal = self._new_deal(snap)
            if deal is not None:
                return [deal]
            out += [self._rename(a, b, snap.t) for a, b in snap.renamed]
        out += handler(snap)
        if snap.unreadable and self.mode == IDLE and self.floor == snap.floor:
            # A card lies there that no possible code names (one deck): hold the turn and ask,
            # never guess; the next settled view that names it goes on from here.
            key = snap.floor | {f"?{snap.unreadable}"}
            if self._unreadable != key:
                self._unreadable = key
                out.append(UnreadablePrompt(self.floor, snap.floor, snap.t, snap.unreadable))
        return out

    def _new_deal(self, snap: Snapshot) -> NewDeal | None:
        """Whether the next round is being dealt though the turns still expect plays.

        Only a deal lays cards on a cleared floor that were already played this round (one
        deck): at least NEW_DEAL_GONE such codes read surely among at most 4 cards that came
        one by one with none taken."""
        n = len(snap.floor) + snap.unreadable
        if n == 0:
            self._cleared_t, self._fresh = snap.t, 0
            return None
        if self._cleared_t is None:
            return None
        if n < self._fresh or n > DEAL_FLOOR:
            self._cleared_t = None  # cards were taken, or play went on: not a deal
            return None
        self._fresh = n
        if len(snap.gone_read) >= NEW_DEAL_GONE:
            deal = NewDeal(self._cleared_t, snap.t, snap.gone_read)
            self.expect_deal(require_empty=False)
            return deal
        return None

    def _deal(self, snap: Snapshot) -> list[Intent]:
        s = snap.floor
        prev, self._deal_prev = self._deal_prev, s
        if not s:
            # the floor cleared: a new deal; its first card may be read only faintly
            self.seen_empty, self._deal_faint = True, None
            self._note_deal_faint(snap)
            return []
        left = self._leftovers
        if not self.seen_empty and not (left and (left <= s or s <= left)):
            # Last round's leftovers no longer lie there: they were taken (R3.5) and the deal
            # has begun (the reshuffled deck may deal one of their codes again). A new card
            # beside all the leftovers still lying is no deal: play went on (a play was
            # counted that never happened, so the round ended early); and some of them
            # alone are leftovers being gathered.
            self.seen_empty = True
        if not self.seen_empty or len(s) < 4:
            self._note_deal_faint(snap)
            return []  # last round's leftovers not yet cleared, or the deal is in progress
        started = self._faint_deal(snap, prev)
        if started is not None:
            return started
        self._note_deal_faint(snap)
        if len(s) == 4:
            bad = tuple(sorted(c for c in s if self.bad_initial(c)))
            self._last4 = s
            if bad:
                if frozenset(bad) != self._prompted:
                    self._prompted = frozenset(bad)
                    return [MisdealPrompt(bad, snap.t, s)]
                return []
            self.set_floor(s)
            self._dealt_floor = s  # no play yet: the dealer may still return a card (R1.3)
            return [RoundStart(s, snap.t, confidences=tuple(c for _k, c in snap.confidences))]
        # More than 4: play began. If it grew from a floor with a J/7D still on it, the dealer
        # skipped the R1.3 fix (a misdeal); start from that floor and read the play.
        fixed = self._fixed_beside_play(snap)
        if fixed is not None:
            return fixed
        last = self._last4
        if last is not None and last < s and len(s - last) == 1:
            return [self._dealt(last, snap, frozenset()), *self._idle(snap)]
        return self._faint_dealt_read(snap, prev)

    def _fixed_beside_play(self, snap: Snapshot) -> list[Intent] | None:
        """The dealer's R1.3 replacement and the first play came in one view (the seat to play
        laid its card before the camera saw the fixed deal lie still): the cards asked back
        are gone, the rest of the deal lies on, and one card more than the replacements came.
        The replacements are the cards lying where the cards taken back lay (`replaced`); the
        deal is the rest with them, and the card left over is the first play. None where the
        view is no such thing, or the places do not tell (read as before)."""
        last, back, s = self._last4, self._prompted, snap.floor
        if last is None or not back or self.replaced is None or back & s:
            return None
        kept = last - back
        added = s - kept
        if not kept < s or len(added) != len(back) + 1:
            return None
        new = self.replaced(back, added)
        if new is None or len(new) != len(back) or any(self.bad_initial(c) for c in new):
            return None
        dealt = kept | new
        self.log.append(f"{snap.t:.2f} {' '.join(sorted(new))} dealt for {' '.join(sorted(back))}")
        return [self._dealt(dealt, snap, dealt), *self._idle(snap)]

    def _faint_dealt_read(self, snap: Snapshot, prev: frozenset[str] | None) -> list[Intent]:
        """The deal's card read only faintly, read plainly at last in the view where the
        first play came too (the 3 cards read plainly before it, two new: the code its faint
        read named first and another): it is the 4th dealt card and the other is the first
        play (R1.2: a deal lays 4 cards), never a floor of 4 that the first play's capture
        left. Nothing otherwise: the deal waits for a floor of 4."""
        held = self._deal_faint
        if held is None or prev is None or len(prev) != DEAL_FLOOR - 1 or not prev < snap.floor:
            return []
        added, faint = snap.floor - prev, held[0]
        card = max(faint, key=faint.__getitem__)
        if len(added) != 2 or card not in added:
            return []
        return [self._dealt(prev | {card}, snap, prev | {card}), *self._idle(snap)]

    def _dealt(
        self,
        dealt: frozenset[str],
        snap: Snapshot,
        plain: frozenset[str],
        faint: tuple[str, float, tuple[float, ...]] | None = None,
        faint_read: dict[str, float] | None = None,
    ) -> RoundStart:
        """The round starts on `dealt`, seen in `snap` beside the first play (a J or 7D still
        among it: the dealer skipped the fix, a misdeal, R1.3); `plain`: its cards read
        plainly (their confidences are logged), `faint`: the one read too faintly, if any,
        and `faint_read` what was read of it."""
        self._deal_faint = None
        self.set_floor(dealt)
        conf = dict(snap.confidences)
        return RoundStart(
            dealt,
            snap.t,
            misdeal=tuple(sorted(c for c in dealt if self.bad_initial(c))),
            confidences=tuple(conf[c] for c in sorted(plain) if c in conf),
            faint=faint,
            faint_reading=tuple(sorted((faint_read or {}).items(), key=lambda cp: -cp[1])),
        )

    def _note_deal_faint(self, snap: Snapshot) -> None:
        """A card of the deal read too faintly to accept beside the cards read plainly (its
        index faint): remember what was read of it, and where, until the floor is cleared
        (the dealer's R1.3 fixes may come between)."""
        if not self.seen_empty or len(snap.floor) == DEAL_FLOOR:
            # (beside 4 cards read plainly a faint read is no dealt card: a deal lays 4, R1.2;
            # one of the 4 may still go back to the deck, R1.3, and its replacement come)
            self._deal_faint = None
        elif snap.faint and snap.faint_box is not None:
            held = self._deal_faint
            shares = dict(held[0]) if held is not None and held[1] == snap.faint_box else {}
            for code, share in snap.faint:
                shares[code] = max(share, shares.get(code, 0.0))
            self._deal_faint = (shares, snap.faint_box)

    def _faint_deal(self, snap: Snapshot, prev: frozenset[str] | None) -> list[Intent] | None:
        """The first play came beside a deal whose 4th card was read only faintly: the deal
        is the 3 cards read plainly in the view before (`prev`) and the faint one (named from
        its read, kept at its place), and the card that came is the first play - never a
        dealt card (R1.2)."""
        held = self._deal_faint
        if held is None or self.deal_faint is None or prev is None:
            return None
        faint, box = held
        s = snap.floor
        three, added = prev, s - prev
        if len(s) != DEAL_FLOOR or len(three) != DEAL_FLOOR - 1 or not three < s:
            return None
        if max(faint, key=faint.__getitem__) in added:
            # the faint card itself, now read plainly (a card that came read plainly as only
            # a runner-up of the faint read is another card unless it lies at its place:
            # `deal_faint`)
            return None
        named = self.deal_faint(three, faint, added, box)
        if named is None or named[0] in s or self.bad_initial(named[0]):
            # (a J or 7D read faintly may have gone back to the deck, R1.3: the card that came
            # may be its replacement)
            return None
        card, share = named
        start = self._dealt(three | {card}, snap, three, (card, share, box), faint)
        return [start, *self._idle(replace(snap, floor=s | {card}, faint=()))]

    def _idle(self, snap: Snapshot) -> list[Intent]:
        if self._dealt_floor is not None and snap.floor != self.floor:
            fixed = self._deal_fix(snap)
            if fixed is not None:
                return fixed
        f, s = self.floor, snap.floor
        prev, self._unexplained = self._unexplained, None
        earlier, box = self._faint, self._faint_box  # faint reads of views before this one
        # when the faint card was first seen lying there
        earlier_t = self._faint_t if self._faint_t is not None else _landed(snap)
        faint, faint_t = dict(earlier), self._faint_t
        for code, share in snap.faint:
            faint[code] = max(share, faint.get(code, 0.0))
            faint_t = _landed(snap) if faint_t is None else faint_t
        if s == f:
            # a card laid, read too faintly: remember what was read of it, and where
            self._faint, self._faint_t = faint, faint_t
            self._faint_box = box if box is not None else snap.faint_box
            if not snap.unreadable:
                self._unreadable = None
            if not faint and not snap.unreadable and self._one_arm(snap) == 0:
                self._reached_t = snap.t  # the seat to play reached in; nothing new showed
            return []
        self._faint, self._faint_t, self._faint_box = {}, None, None
        reached_t, self._reached_t = self._reached_t, None
        added, removed = s - f, f - s
        unseen_lying = self._unseen
        if removed:
            self._unseen_kept()
        elif added and self._unseen and self.placed_before is not None:
            still = [c for c in sorted(added) if self.placed_before(c, self._unseen_at)]
            if len(still) == 1 and len(added) - len(still) <= 1:
                # the card laid unseen, read at last where it lay since; the other card new in
                # this view (if any) is the next play
                self._unseen, self.floor = False, f | set(still)
                named = UnseenNamed(still[0], snap.t)
                rest = self._idle(snap) if len(added) > 1 else []
                return [named, *rest]
        if (
            added
            and not removed
            and earlier
            and box is not None
            # the faint card itself, now read plainly (a card that came read plainly as only a
            # runner-up of the faint read is another card unless it lies at its place:
            # `trail_of`)
            and max(earlier, key=earlier.__getitem__) not in added
            and self.trail_of is not None
        ):
            # The card read too faintly stays while the next card comes: it took nothing (a
            # trail, R2.7, or a missed capture): its turn comes first, then the next card's,
            # and it lies on the floor from now on (never a seat skipped).
            named = self.trail_of(f, earlier, added, box)
            if named is not None and named[0] not in s:
                card = named[0]
                turn = self._faint_trail(named, snap, earlier, earlier_t, box)
                return [turn, *self._idle(replace(snap, floor=s | {card}, faint=()))]
            if (
                named is None
                and self._one_arm(snap) == 1
                and self.lies_still is not None
                and self.lies_still(box)
                and self.misread is not None
                and self.misread(f, earlier, added, box)
            ):
                # It stays as the next card comes from the next seat's edge (R1.5: turns pass
                # in order), but its read names only cards played earlier this round (one
                # deck, R1.1: a misread): the seat to play laid a card no read names. Its turn
                # is held for the referee, card unknown (R7), and the card that came is the
                # next seat's play; read plainly later where it lies, it names that play.
                self._unseen, self._unseen_at = True, box
                read_as = _ranked(earlier)[0][0]
                missed = MissedPlay(f, f, earlier_t, read_as=read_as, at=box)
                return [missed, *self._idle(replace(snap, faint=()))]
        if removed and len(added) <= 1 and earlier and self.explain is not None:
            # Cards left and the card that took them was read, but too faintly to accept, in
            # the views before (what this view reads faintly is the next card): the one code
            # its read allows that takes exactly these cards legally is the card (a K that
            # took a K is a K; R2.3). Judged as seen, marked doubtful.
            after = f - removed
            named = self.explain(f, after, earlier)
            if named is not None and not (added and named[0] in added):
                card, share = named
                self.floor = after
                turn = ObservedTurn(
                    card, f, after, snap.t, earlier_t,
                    False, min(snap.confidence, share), False, None, by_capture=True,
                )  # fmt: skip
                return [turn, *(self._idle(snap) if added else [])]
        if (
            removed == f
            and not added
            and earlier
            and box is not None
            and self.trail_of is not None
            and self.last_play is not None
            and self.last_play()
        ):
            # The round's last card was read too faintly, then the floor was cleared, and no
            # capture by it explains that: once the 48th card is played the last capturer
            # takes what is left (R3.5, R8.7). The faint card took nothing: a trail, the
            # round's last play (held as a guess when its read is not plain enough, R7).
            named = self.trail_of(f, earlier, frozenset(), box)
            if named is not None:
                return [self._faint_trail(named, snap, earlier, earlier_t, box, cleared=True)]
        if len(added) == 1 and not removed:
            (card,) = added
            unsure = card in snap.unsure
            missed: list[Intent] = []
            if reached_t is not None and not earlier and self._one_arm(snap) == 1:
                # The seat to play reached in and nothing new showed, then this card came from
                # the next seat's edge (R1.5: turns pass in order): the seat to play laid a
                # card the camera never saw, taking nothing as seen. Its turn is held for the
                # referee, card unknown (R7), and this card is the next seat's play.
                missed = [MissedPlay(f, f, reached_t)]
                self._unseen = True
            if (
                not self.can_capture(f, card)
                and not (self.could_take is not None and self.could_take(f, card))
                and not (
                    self.runner_takes is not None
                    and self.runner_takes(f, card, snap.reading_of(card), _card_conf(snap, card))
                )
            ):
                self.floor = s  # a trail: final at once
                self._last_trail = (card, f, s)
                return [*missed, _seen_turn(card, f, s, snap)]
            self.mode, self._card, self._laid, self._t_land = LAID, card, s, _landed(snap)
            self._conf, self._unsure = snap.confidence, unsure
            self._card_conf = snap.confidence_of(card)
            self._reading = snap.reading_of(card)
            laid = CardLaid(
                card, f, s, snap.t, self._t_land, self._conf, unsure, self._card_conf, self._reading
            )
            return [*missed, laid]
        if not added and removed:
            scooped = self._trail_scooped(snap, removed, earlier)
            if scooped is not None:
                return [replace(scooped, unseen_lying=unseen_lying)]
            # Cards left but the played card was never seen: ask for it, never guess. (A card
            # read faintly before whose place did not change lies on: its trail comes first.)
            trail = self._faint_stayed(snap, earlier, earlier_t, box)
            if trail is not None:
                s = s | {trail.card}
            self.mode, self._after = AWAIT_SHOW, s
            self._shown_faint, self._shown_t = {}, None
            self._prompt_faint = None
            if trail is None and earlier:
                by_next = (
                    box is not None and self.reached is not None and self.reached(snap.arms) == 1
                )
                self._prompt_faint = (earlier, earlier_t, box, by_next)
            prompt = ShowCardPrompt(self.floor, s, snap.t)
            return [prompt] if trail is None else [trail, prompt]
        if len(added) == 1 and removed:
            # A card landed and cards left, the card staying: no capture leaves its own card
            # behind (R2.7: only a card that takes nothing stays), so another card took them
            # unseen (the camera missed that play): held for the referee, card unknown; the
            # card that stays is the next play.
            self.floor = f - removed
            return [MissedPlay(f, self.floor, _landed(snap)), *self._idle(snap)]
        if len(added) == 2 and not removed:
            # Two cards came, none left: two trails seen in one view (the camera missed the
            # moment between them), if in some order neither could take anything (R2.7).
            # Both are judged, marked doubtful: the order (so the seats) is inferred.
            orders = sorted([tuple(sorted(added)), tuple(sorted(added, reverse=True))])
            for x, y in orders:
                mid = f | {x}
                if not self.can_capture(f, x) and not self.can_capture(mid, y):
                    self.floor = s
                    return [
                        replace(_seen_turn(x, f, mid, snap), inferred=True),
                        replace(_seen_turn(y, mid, s, snap), inferred=True),
                    ]
            # Or a trail, then the next player's card that can take it, laid before the camera
            # settled (a QD trailed, a QS laid on it): the first is judged a trail, marked
            # doubtful, and the second waits for its scoop. Only where the second can take
            # something because the first lies there (one that could take from the floor
            # without it is no sign of this: cards from nowhere, asked about as before), or
            # where the first was read (faintly) in the views before, alone: it came first
            # (a KH trailed, read faintly, then a 2D laid to take the 2C).
            came = max(earlier, key=earlier.__getitem__) if earlier else None
            if came in added:
                orders = [(came, next(iter(added - {came})))]
            for x, y in orders:
                if not self.can_capture(f, x) and (
                    x == came or (not self.can_capture(f, y) and self.can_capture(f | {x}, y))
                ):
                    trail = replace(_seen_turn(x, f, f | {x}, snap), inferred=True)
                    self.floor = f | {x}
                    return [trail, *self._idle(snap)]
        if prev is not None and prev != s and _one_play(prev, s):
            # The table went on, by one play, from the view no play explained: that view was
            # the floor as it lay (the plays that made it were missed; the referee was told).
            # Go on from it, never stay stuck on a floor the table has left.
            self.floor = prev
            return self._idle(snap)
        # Several cards appeared (or appeared and left): no single play explains it.
        self._unexplained = s
        if self._unreadable != s:
            self._unreadable = s
            return [UnreadablePrompt(f, s, snap.t)]
        return []

    def _unseen_kept(self) -> None:
        """Cards left the floor: a card read later is no longer sure to be the one laid
        unseen, unless its place is known (`_unseen_at`) and showed no change (not taken)."""
        at = self._unseen_at
        if at is None or self.lies_still is None or not self.lies_still(at):
            self._unseen, self._unseen_at = False, None

    def _deal_fix(self, snap: Snapshot) -> list[Intent] | None:
        """The dealer's R1.3 fix after the round started on a dealt card misread (a J read as
        a Q): before the first play, one dealt card left, by an arm from the dealer's edge
        alone (the seat before the seat to play, R1.5), nothing come; then one card came,
        nothing else left: the card laid in its place (R1.3). None where the view is no step
        of that (play began: read as before, from the dealt floor)."""
        dealt, was, s = self._dealt_floor, self._returned, snap.floor
        assert dealt is not None
        if was is None:
            took = dealt - s
            if (
                self.floor == dealt
                and s < dealt
                and len(took) == 1
                and not snap.unreadable
                and not self._faint
                and not snap.faint
                and self._one_arm(snap) == self.players - 1
            ):
                (self._returned,) = took
                self.floor = s
                self.log.append(f"{snap.t:.2f} dealer took back {self._returned}")
                return []
            self._dealt_floor = None
            return None
        added, removed = s - self.floor, self.floor - s
        if not removed and added == {was}:
            self.floor, self._returned = dealt, None  # the card laid back: as dealt
            return []
        if not removed and len(added) == 1 and not snap.unreadable:
            (card,) = added
            self.floor, self._dealt_floor, self._returned = s, s, None
            self._faint, self._faint_t, self._faint_box = {}, None, None
            return [DealFixed(was, card, snap.t, snap.reading_of(card))]
        # (play began without a replacement: read as before, from the dealt floor)
        self.floor, self._dealt_floor, self._returned = dealt, None, None
        return None

    def _trail_scooped(
        self, snap: Snapshot, removed: frozenset[str], faint: dict[str, float]
    ) -> TrailScooped | None:
        """Cards left, nothing new came, and among them the card judged a trail at once in the
        last play, with nothing seen since (no card read even faintly), taken by an arm from
        its own player's edge alone, seen reaching in for at least SCOOP_ARM_S: that
        card took them (a capture its read cannot make: it was misread, or a card it took
        was). Its turn is taken back and held for the referee; None otherwise (another card,
        laid and scooped unseen, took them: the prompt asks for it; or, before the round's
        last play, the last capturer gathered the floor after that play, R3.5)."""
        last, self._last_trail = self._last_trail, None
        if last is None or faint or self.reached is None:
            return None
        if self.last_play is not None and self.last_play():
            return None  # the round's last card, unseen, then the floor gathered (R3.5)
        card, before, after = last
        if after != self.floor or card not in removed:
            return None
        if not self._one_arm_from(snap, self.players - 1):
            return None
        self.floor = self.floor - removed
        return TrailScooped(card, before, self.floor, snap.t)

    def _faint_stayed(
        self,
        snap: Snapshot,
        faint: dict[str, float],
        t_landed: float,
        box: tuple[float, ...] | None,
    ) -> ObservedTurn | None:
        """Cards left, nothing came, and the card read too faintly before (`faint`, at `box`)
        took none of them (`explain` named nothing) yet its place did not change: it lies
        on, a trail (R2.7), and the cards that left were taken by the next player's card,
        laid and scooped between two views (asked for next). None otherwise: the faint card
        may have made the capture itself (a misread, or a foul), and the prompt asks."""
        if (
            not faint
            or box is None
            or self.trail_of is None
            or self.lies_still is None
            or not self.lies_still(box)
        ):
            return None
        named = self.trail_of(self.floor, faint, frozenset(), box)
        if named is None or named[0] in self.floor:
            return None
        return self._faint_trail(named, snap, faint, t_landed, box)

    def _faint_before_shown(
        self, card: str, after: frozenset[str], snap: Snapshot
    ) -> list[ObservedTurn]:
        """The card shown after the prompt (`card`, which took the floor to `after`) was laid
        by the next player, whose arm reached in for the capture (`_prompt_faint`): the card
        read too faintly before it was the seat to play's own card, which took nothing (a
        trail, R2.7), and the capture took it with the rest when that is legal (a J sweeps it
        too, R2.4). Its trail comes first (named by its read, one deck: never the shown card),
        then the shown card's turn, the next seat's. Nothing when no such arm was seen (the
        faint card may have made the capture itself: the shown card is its play) or when the
        capture could not have taken it."""
        held, self._prompt_faint = self._prompt_faint, None
        if held is None or not held[3] or self.trail_of is None or self.explain is None:
            return []
        faint, t_landed, box, _by_next = held
        assert box is not None  # (the next seat's arm is judged only where it lies)
        others = {code: share for code, share in faint.items() if code != card}
        named = self.trail_of(self.floor, others, frozenset(), box)
        if named is None or named[0] in self.floor | after:
            return []
        if self.explain(self.floor | {named[0]}, after, {card: 1.0}) is None:
            return []
        return [self._faint_trail(named, snap, faint, t_landed, box, cleared=True)]

    def _faint_trail(
        self,
        named: tuple[str, float, bool],
        snap: Snapshot,
        faint: dict[str, float],
        t_landed: float,
        box: tuple[float, ...],
        cleared: bool = False,
    ) -> ObservedTurn:
        """The trail of a card read too faintly (`named` by `trail_of`: code, share, sure):
        it lies on the floor from now on. Its turn keeps what was read of it (a plain read of
        one of its codes later may take the code back: `Table._take_back`)."""
        card, share, sure = named
        f = self.floor
        self.floor = f | {card}
        return ObservedTurn(
            card, f, f | {card}, snap.t, t_landed,
            False, min(snap.confidence, share), not sure, None, faint_box=box,
            reading=_ranked(faint), cleared=cleared,
        )  # fmt: skip

    def _laid_step(self, snap: Snapshot) -> list[Intent]:
        laid, s = self._laid, snap.floor
        if s == laid:
            return []
        card, f = self._card, self.floor
        assert card is not None
        conf = min(self._conf, snap.confidence)
        if laid < s or (s == laid - {card} and self._one_arm_from(snap, 1)):
            # The next card came while this one still lay untouched, or this one alone left,
            # lifted by an arm from the next seat's edge (the next player's card, laid and
            # scooped between two views, took it: the prompt asks for that card): it trailed
            # (the engine decides whether that was a missed capture). Then read the next play.
            self.mode, self.floor = IDLE, laid
            turn = ObservedTurn(
                card, f, laid, snap.t, self._t_land, False, self._conf, self._unsure,
                self._card_conf, reading=self._reading,
            )  # fmt: skip
            return [turn, *self._idle(snap)]
        if self._unseen_at is not None and not s >= laid:
            self._unseen_kept()  # cards left: the card laid unseen may have gone with them
        if s < laid:  # cards left: the capture is complete
            if snap.faint and snap.faint_box is not None and self.still_lying is not None:
                # a card read faintly where one that seemed taken lay: it may lie there still
                kept = self.still_lying(f, card, s, dict(snap.faint), snap.faint_box)
                s = s | kept
                if s == laid:
                    return []
            if snap.unread & s and self.still_gone is not None:
                # a card kept unread where a hand passed: perhaps lifted with the others
                s = s - self.still_gone(f, card, s, snap.unread & s)
            self.mode, self.floor = IDLE, s
            return [
                ObservedTurn(
                    card,
                    f,
                    s,
                    snap.t,
                    self._t_land,
                    False,
                    conf,
                    self._unsure,
                    self._card_conf,
                    reading=self._reading,
                )
            ]
        # Cards left and a new one arrived between two settled views: the capture left
        # `laid & s`, then the next play.
        kept = laid & s
        self.mode, self.floor = IDLE, kept
        turn = ObservedTurn(
            card, f, kept, snap.t, self._t_land, False, conf, self._unsure, self._card_conf,
            reading=self._reading,
        )  # fmt: skip
        return [turn, *self._idle(snap)]

    def _one_arm(self, snap: Snapshot) -> int | None:
        """How many seats after the seat to play the one arm a view saw came from (`reached`);
        None where no arm, or more than one, was seen."""
        if self.reached is None or len(snap.arms) != 1:
            return None
        return self.reached(snap.arms)

    def _one_arm_from(self, snap: Snapshot, after: int) -> bool:
        """Whether one arm alone reached in over this view (none other seen), from the edge of
        the seat `after` seats after the seat to play (1: the next; players - 1: the one
        before), for at least SCOOP_ARM_S (a lay and scoop: 0.33-0.47 s)."""
        return (
            self.reached is not None
            and len(snap.arms) == 1
            and snap.arms[0][1] >= SCOOP_ARM_S
            and self.reached(snap.arms) == after
        )

    def _await_show(self, snap: Snapshot) -> list[Intent]:
        after, s = self._after, snap.floor
        if s == after and snap.faint:
            # a card shown, but read only faintly: remember what was read of it
            for code, share in snap.faint:
                self._shown_faint[code] = max(share, self._shown_faint.get(code, 0.0))
            self._shown_t = snap.t if self._shown_t is None else self._shown_t
            return []
        shown, self._shown_faint = self._shown_faint, {}
        if shown and s == after and self.explain is not None:
            # ... and taken back, nothing else come: the one code its read allows that took
            # exactly the cards that left, legally, is the card played (a J shown faintly
            # after an unseen sweep; R2, R7), judged as seen and marked doubtful. A read that
            # explains nothing leaves the prompt open, as before.
            named = self.explain(self.floor, after, shown)
            if named is not None:
                card, share = named
                first = self._faint_before_shown(card, after, snap)
                turn = ObservedTurn(
                    card, self.floor, after, snap.t, self._shown_t or snap.t, True,
                    min(snap.confidence, share), False, None, by_capture=True,
                )  # fmt: skip
                self.set_floor(after)
                return [*first, turn]
        if s == self.floor:  # the cards are back (or were never gone): no turn
            self.mode, self._prompt_faint = IDLE, None
            return [ShowCancelled(snap.t)]
        added = s - after
        if after <= s and len(added) == 1 and not added & self.floor:
            # A card laid after the prompt: shown, if it goes back to its owner; judged then
            # (logged as shown: a restarted table waits for it too, `resume_shown`).
            (card,) = added
            self.mode, self._card, self._show_snap = SHOWING, card, snap
            return [
                CardLaid(
                    card, self.floor, s, snap.t, snap.t, snap.confidence, card in snap.unsure,
                    snap.confidence_of(card), snap.reading_of(card), shown=True,
                )
            ]  # fmt: skip
        if not after <= s:
            if s < after and self.one_play is not None and self.one_play(self.floor, s):
                # more of the same capture (scooped in two motions): still that one card
                self._after = s
                return []
            # More cards left with nothing shown: the table went on. The play nobody showed
            # is held for the referee, and the views go on from the floor it left (R7).
            missed = self._unshown_play(after, snap.t)
            self.set_floor(after)
            return [missed, *self._idle(snap)]
        return []

    def _showing(self, snap: Snapshot) -> list[Intent]:
        if self._show_snap is None:
            return self._shown_lying(snap)
        card, after, s, shown = self._card, self._after, snap.floor, self._show_snap
        assert card is not None
        if card in s and s - {card} == after:
            return []  # still being shown
        self._show_snap = None
        if card not in s and not s < after:
            # Taken back (perhaps as the next card lands): it was the card played.
            first = self._faint_before_shown(card, after, snap)
            turn = ObservedTurn(
                card, self.floor, after, snap.t, shown.t, True, shown.confidence,
                card in shown.unsure, shown.confidence_of(card),
            )  # fmt: skip
            self.set_floor(after)
            return [*first, turn, *self._idle(snap)]
        # It stayed while the table went on (another card came), or it left with floor cards
        # (it captured them): it was the next player's play, never a shown card. The cards
        # that left before were taken by a card nobody saw: held for the referee; then the
        # card is read as the play it was, from the view where it landed.
        missed = self._unshown_play(after, shown.t)
        self.set_floor(after)
        if card not in s:
            # It left with floor cards: it took them, whatever one-card rule its read allows
            # (a misread card is judged as seen: the verdict tells the referee).
            self.floor = s
            conf = min(shown.confidence, snap.confidence)
            taken = ObservedTurn(
                card, after, s, snap.t, shown.t, False, conf, card in shown.unsure,
                shown.confidence_of(card),
            )  # fmt: skip
            return [missed, taken]
        out: list[Intent] = [missed, *self._idle(shown)]
        return out + self._handler()(snap)

    def _unshown_play(self, after: frozenset[str], t: float) -> ObservedTurn | MissedPlay:
        """The play that took the floor to `after` and was never shown: judged as the card
        read too faintly where its seat laid it (`_prompt_faint`, no other seat's arm seen)
        when that read names it plainly (`plain_of`; it took these cards, a foul: no code its
        read allows takes them legally, R2), marked doubtful; otherwise held for the referee,
        card unknown (R7)."""
        held, self._prompt_faint = self._prompt_faint, None
        if held is not None and not held[3] and self.plain_of is not None:
            faint, t_landed, _box, _by_next = held
            named = self.plain_of(self.floor | after, faint)
            if named is not None:
                card, share = named
                return ObservedTurn(
                    card, self.floor, after, t, t_landed, False, share,
                    reading=_ranked(faint), unshown=True,
                )  # fmt: skip
        return MissedPlay(self.floor, after, t)

    def _shown_lying(self, snap: Snapshot) -> list[Intent]:
        """A restarted table whose shown card's turn was already judged (a log written before
        shown cards were judged when taken back): wait for the card to go back."""
        card = self._card
        if card in snap.floor:
            if snap.floor - {card} == self._after:
                return []  # still being shown
            if self._after | {card} <= snap.floor:
                # The next play landed while the shown card still lies there: it was left on
                # the floor. Go on from the floor as it physically is (DESIGN: after a foul the
                # game goes on from the floor as seen), never wait for it to leave.
                self.set_floor(self._after | {card})
                return self._idle(snap)
            return []
        # The shown card went back to its owner: go on from the floor after the turn.
        self.set_floor(self._after)
        return self._idle(snap)

    def resume_laid(
        self,
        card: str,
        floor_before,
        floor,
        t: float,
        confidence: float = 1.0,
        card_confidence: float | None = None,
        reading: tuple[tuple[str, float], ...] = (),
    ) -> None:
        """A restarted table: the card was laid before the restart, its capture not yet seen.
        `t`, `confidence` and `reading`: when it landed, how sure that read was and what it
        said (the turn keeps all three)."""
        self.mode, self.floor = LAID, frozenset(floor_before)
        self._card, self._laid, self._t_land, self._conf = card, frozenset(floor), t, confidence
        self._unsure, self._card_conf, self._reading = False, card_confidence, tuple(reading)

    def resume_trail(self, card: str, floor_before, floor_after) -> None:
        """A restarted table: the last play was `card` judged a trail at once (its read can
        take nothing) and nothing has changed since: lifted with the floor by its own player,
        it is taken back (`TrailScooped`), as the live table would."""
        self._last_trail = (card, frozenset(floor_before), frozenset(floor_after))

    def resume_unseen(self, at: tuple[float, ...] | None) -> None:
        """A restarted table: the round's last play held, card unknown, is a card laid that
        nobody saw or could name, and no card has left the floor since: a card read later
        where it lies (at `at`, where known) names that play."""
        self._unseen, self._unseen_at = True, (tuple(at) if at else None)

    def resume_show(self, floor_before, floor_after) -> None:
        """A restarted table: the "show the card" prompt is still open."""
        self.mode, self.floor, self._after = (
            AWAIT_SHOW,
            frozenset(floor_before),
            frozenset(floor_after),
        )
        self._shown_faint, self._shown_t, self._prompt_faint = {}, None, None

    def resume_shown(
        self, card: str, t: float, confidence: float, card_confidence: float | None
    ) -> None:
        """A restarted table, the "show the card" prompt open (`resume_show`): the card
        `card` was shown at `t` (the view read `confidence` sure, the card itself
        `card_confidence`) and has not gone back yet: its turn comes as it goes."""
        conf = () if card_confidence is None else ((card, card_confidence),)
        self.mode, self._card = SHOWING, card
        self._show_snap = Snapshot(t, self._after | {card}, confidence, confidences=conf)

    def resume_showing(self, card: str, floor_after) -> None:
        """A restarted table: the last turn's card was being shown (it may still lie there)."""
        self.mode, self._card, self._after = SHOWING, card, frozenset(floor_after)
        self.floor = frozenset(floor_after)
        self._show_snap = None

    def resolve_shown(self, floor_after: frozenset[str]) -> None:
        """The referee named the unseen card: go on from the floor as it is."""
        self.set_floor(floor_after)


def _card_conf(snap: Snapshot, card: str) -> float:
    """How sure the read of `card` in `snap` was (the view's confidence where not kept)."""
    conf = snap.confidence_of(card)
    return snap.confidence if conf is None else conf


def _seen_turn(card: str, before, after, snap) -> ObservedTurn:
    """A turn whose played card was seen, finished by this snapshot (a trail, or a lay-and-take)."""
    return ObservedTurn(
        card,
        before,
        after,
        snap.t,
        _landed(snap),
        False,
        snap.confidence,
        card in snap.unsure,
        snap.confidence_of(card),
        reading=snap.reading_of(card),
    )


def _ranked(faint: dict[str, float]) -> tuple[tuple[str, float], ...]:
    """A faint read as a reading: (code, share), likeliest first."""
    return tuple(sorted(faint.items(), key=lambda kv: (-kv[1], kv[0])))


def _one_play(before: frozenset[str], after: frozenset[str]) -> bool:
    """Whether one play explains the change: a card laid, cards taken, or both at once."""
    added, removed = after - before, before - after
    return len(added) <= 1 and bool(added or removed)


def _landed(snap: Snapshot) -> float:
    return snap.t_still if snap.t_still is not None else snap.t
