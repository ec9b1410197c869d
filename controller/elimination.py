"""One deck at a round's end (R1.1, R8.7): the cards the camera never saw name the plays it held.

A pure look at a `TableState` whose round has had all its 48 plays; the Table emits the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

from controller import events as ev
from controller.events import Event
from controller.table_state import PENDING, UNREADABLE, TableState, TurnRecord, history_before
from engine.cards import FULL_DECK, sort_cards
from engine.match import PLAYS_PER_ROUND

MOST_OPEN = 4  # more cards in question than this at once: too little is known to name them
MIN_SHARE = 0.08  # a doubtful read's runner-up this likely may be its card
# Several ways fit: the one the reads make at least this many times likelier than any other
# is taken (a code a read does not list counts as READ_FLOOR of it)
READ_MARGIN = 5.0
READ_FLOOR = 0.01

Reading = Sequence[tuple[str, float]]  # a card's read: (code, share), likeliest first


@dataclass(frozen=True)
class Open:
    """A card in question: a held play's, a doubtful read's, or a doubtfully read dealt card's
    (`target`: the turn's event, or the round's `round_started`; `code`: what it reads now)."""

    target: int
    code: str | None
    choices: frozenset[str]  # the codes it may be (a held play: any code in question)
    held: bool = False
    dealt: bool = False
    # a held play that took nothing, its card on no floor (laid where the camera never saw
    # it): the floor it left, where that card lies once named (a trail, R2.7)
    laid_on: tuple[str, ...] | None = None

    def correction(self, card: str) -> dict:
        """The `referee` event data by which the camera names this card `card`."""
        if self.laid_on is not None:
            return laid_correction(self.target, card, self.laid_on)
        return camera_correction(self.target, card, self.code if self.dealt else None)


def camera_correction(target: int, card: str, was: str | None = None) -> dict:
    """The data of a `referee` `correct` made by the camera: a turn's card is `card`, or,
    with `was`, a card of the deal (`target`: its `round_started`)."""
    payload = {"card": card, "by": "camera"}
    if was is not None:
        payload = {"was": was, **payload}
    return {"action": "correct", "target": target, "payload": payload}


def laid_correction(target: int, card: str, floor: Iterable[str]) -> dict:
    """The camera's `correct` of a play held with its card unknown that took nothing from
    `floor`: the card was `card`, laid there unseen and lying there since (`lay`, R2.7)."""
    data = camera_correction(target, card)
    data["payload"].update(floor_after=list(sort_cards([*floor, card])), lay=True)
    return data


def settle_held(
    state: TableState,
    readings: Mapping[int, Reading] | None = None,
    dealt: Mapping[str, Reading] | None = None,
    t: float = 0.0,
) -> list[dict]:
    """The `referee` `correct` events (data) that name the held plays of a round that has had
    all its plays, and the doubtful reads whose runner-up they free.

    Every card of the deck is dealt to the floor or played once a round (R1.1, R8.7), so the
    codes neither dealt nor read as a play are the cards of the plays held with their card
    unknown or only guessed (R7 `unreadable`). A doubtful read (`readings`: a turn's read, by
    event id; `dealt`: a dealt card's read, by its code) whose runner-up is one of those codes
    may be the misread that hid it: it joins, keeping its code or taking that runner-up; so
    does a play judged a foul on a doubtful read whose code a held play's read names more
    plainly, taking any code never seen (`read_better`). The
    cards are named only when the count matches (no code seen twice) and exactly one way of
    giving them out makes every held play legal (R2) and leaves every legal play legal (of
    several, one the reads make READ_MARGIN times likelier: `_likeliest`). When no way makes
    every held play legal, a held play that took nothing may be a foul after all (a card
    that could have captured and trailed, R2.6), unless another play of the round is an
    open foul (a hint of a misread): the one way there is, or the one the reads pick, is
    named, and its fouls are judged and left pending for the referee. Otherwise the cards stay with the referee (R7)."""
    rnd = state.current_round
    if rnd is None or rnd.ended:
        return []
    live = rnd.live_turns()
    held = [tr for tr in live if _open(tr) and tr.verdict == UNREADABLE]
    if not held or len(live) != PLAYS_PER_ROUND:
        return []
    readings, dealt = readings or {}, dealt or {}
    ids = {tr.event_id for tr in held}
    seen = list(rnd.floor) + [tr.card for tr in live if tr.event_id not in ids and tr.card]
    missing = set(FULL_DECK) - set(seen)
    if len(set(seen)) != len(seen) or len(missing) != len(held):
        return []

    def frees(read: Reading) -> frozenset[str]:
        """The codes never seen that a read names as likely enough runners-up."""
        return frozenset(c for c, s in read if c in missing and s >= MIN_SHARE)

    def read_better(tr: TurnRecord) -> bool:
        """Whether a held play's read names this foul's card more plainly than the foul's
        own read did (one deck: of two cards read as one code, the one whose play is illegal
        and read less plainly is the misread, whatever card it was: a sideways JD read 6D
        0.81 sweeping the floor, the real 6D later read 0.88 and held as a guess)."""
        if tr.verdict != "foul" or tr.event_id not in readings:
            return False  # (a foul read plainly keeps its code)
        own = dict(readings[tr.event_id]).get(tr.card or "", 0.0)
        return any(dict(readings.get(h.event_id, ())).get(tr.card or "", 0.0) > own for h in held)

    items = [
        Open(rnd.event_id, c, alts | {c}, dealt=True)
        for c in sorted(rnd.floor)
        if (alts := frees(dealt.get(c, ())))
    ]
    for tr in live:
        if tr.event_id in ids:
            unseen = (
                tr.card is None and not tr.captured and set(tr.floor_after) == set(tr.floor_before)
            )
            laid_on = tuple(tr.floor_after) if unseen else None
            items.append(Open(tr.event_id, tr.card, frozenset(), held=True, laid_on=laid_on))
        elif _open(tr) and read_better(tr):
            items.append(Open(tr.event_id, tr.card, frozenset(missing) | {tr.card}))
        elif _open(tr) and (alts := frees(readings.get(tr.event_id, ()))):
            items.append(Open(tr.event_id, tr.card, alts | {tr.card}))
    if len(items) > MOST_OPEN:
        return []
    codes = sorted(missing | {it.code for it in items if not it.held and it.code})
    base = state.copy()  # the log's errors and the round's verdicts as they are
    base.errors = []
    base._rebuild()
    known = set(base.errors)
    was = {tr.event_id: tr.verdict for tr in rnd.live_turns()}
    ways = [
        cards
        for cards in permutations(codes)
        if all(it.held or c in it.choices for c, it in zip(cards, items, strict=True))
    ]
    fits = [cards for cards in ways if _fits(state, items, cards, t, known, was)]
    fouls = [tr for tr in live if tr.event_id not in ids and _open(tr) and tr.is_foul]
    if not fits and not fouls:
        # no way is legal throughout: a held play may have been a foul (with no other foul
        # open this round: one there hints at a misread instead)
        fits = [cards for cards in ways if _fits(state, items, cards, t, known, was, True)]
    if len(fits) > 1:
        fits = _likeliest(fits, items, readings, dealt)
    if len(fits) != 1:
        return []
    return [
        it.correction(card)
        for it, card in zip(items, fits[0], strict=True)
        if card != it.code or it.held
    ]


def _likeliest(
    fits: list[tuple[str, ...]],
    items: list[Open],
    readings: Mapping[int, Reading],
    dealt: Mapping[str, Reading],
) -> list[tuple[str, ...]]:
    """Of several legal ways of naming the cards, the one the cards' own reads make at least
    READ_MARGIN times likelier than every other (the product of the share each read gives the
    code named, READ_FLOOR for a code it does not list): a plain 3S read on one held card and
    3S only 0.09 on another name the first the 3S. All of them when none stands out."""

    def likelihood(cards: tuple[str, ...]) -> float:
        p = 1.0
        for it, card in zip(items, cards, strict=True):
            read = dict(dealt.get(it.code or "", ()) if it.dealt else readings.get(it.target, ()))
            p *= max(read.get(card, 0.0), READ_FLOOR)
        return p

    ranked = sorted(fits, key=likelihood, reverse=True)
    if likelihood(ranked[0]) >= READ_MARGIN * likelihood(ranked[1]):
        return ranked[:1]
    return fits


def _open(tr: TurnRecord) -> bool:
    """Not decided by the referee (a held play, a foul, a doubtful read not yet confirmed)."""
    return tr.decided_by is None and (tr.status == PENDING or tr.doubtful)


def _fits(
    state: TableState,
    items: list[Open],
    cards: tuple[str, ...],
    t: float,
    known: set[str],
    was: dict[int, str],
    held_may_foul: bool = False,
) -> bool:
    """Whether these cards, all named, make every held play legal (with `held_may_foul`, a
    held play that took nothing may be judged a foul: a missed capture) and leave every legal play of the round legal (a renamed
    card lying on the floor is renamed in the later floors too). They are judged together:
    naming one before another may hold a code twice for a moment."""
    probe = state.copy()
    for it, card in zip(items, cards, strict=True):
        if card == it.code and not it.held:
            continue
        data = it.correction(card)
        probe.apply(Event(probe.last_event_id + 1, probe.match_id, ev.REFEREE, t, data))
        rnd = probe.current_round
        took = (
            card in rnd.floor
            if it.dealt
            else next(x for x in rnd.live_turns() if x.event_id == it.target).card == card
        )
        if not took:
            return False
    probe.errors = []
    probe._rebuild()
    if set(probe.errors) - known:
        return False
    # a held play that took nothing may have been a missed capture (R2.6); one that took
    # cards is never named a wrong capture this way
    live = probe.current_round.live_turns()
    may_foul = (
        {tr.event_id for tr in live if set(tr.floor_before) <= set(tr.floor_after)}
        & {it.target for it in items if it.held}
        if held_may_foul
        else set()
    )
    return not any(
        was[tr.event_id] != "foul" and tr.event_id not in may_foul and _foul_now(probe, tr)
        for tr in live
    )


def _foul_now(state: TableState, tr: TurnRecord) -> bool:
    """Whether the play is a foul (or unplayable) as its floors read now: a correction renames
    a card in the later floors without judging those plays again."""
    from engine.referee import JudgeError, judge

    if tr.is_foul or tr.card is None:
        return True
    rnd = state.current_round
    try:
        v = judge(
            state.rules, tr.floor_before, tr.card, tr.floor_after, history_before(state, rnd, tr)
        )
    except (JudgeError, ValueError):
        return True
    return v.verdict == "foul"
