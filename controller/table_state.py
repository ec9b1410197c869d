"""The fold over a table's event log: `replay(events) -> TableState`.

The live table and any replay of its stored events go through `TableState.apply`, so both
reach the same state; referee decisions (confirm, correct, accept/reject a foul, undo) are
applied here and the score is recomputed by the engine from the resulting turns.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from controller import events as ev
from controller.events import Event

# Turn statuses. A legal turn is `ok`; a foul or unreadable turn starts `pending` (R7: it
# never silently changes the score) and becomes `accepted` or `rejected` by the referee;
# an undone turn no longer counts.
OK = "ok"
PENDING = "pending"
ACCEPTED = "accepted"
REJECTED = "rejected"
UNDONE = "undone"

UNREADABLE = "unreadable"
# prompts about a round's plays, settled when the referee ends the round as seen (R7)
ROUND_QUESTIONS = ("show_card", "unreadable", "reread")
REFEREE_ACTIONS = ("confirm", "correct", "accept_foul", "reject_foul", "undo", "end_round")


class ReplayError(ValueError):
    """An event log that cannot be folded (ids out of order, a turn before the match...)."""


@dataclass
class TurnRecord:
    """One turn as the camera saw it and the engine judged it (and the referee decided)."""

    event_id: int
    round: int
    seat: int
    card: str | None
    verdict: str  # capture | trail | sweep | foul | unreadable
    foul: str | None  # missed_capture | wrong_capture | misdeal | unreadable | None
    takes: tuple[str, ...]
    basra: bool
    basra_points: int
    legal: tuple[tuple[str, ...], ...]
    floor_before: tuple[str, ...]
    floor_after: tuple[str, ...]
    status: str = OK
    t: float = 0.0
    decided_by: int | None = None  # the referee event that decided it
    shown: bool = False  # the card was read when its player showed it (after a prompt)
    doubtful: bool = False  # a legal verdict on a doubtful read (the referee may confirm it)
    read_as: str | None = None  # what the camera first read the card as (a runner-up named it)
    # an unseen card seen leave the floor with cards never seen there (a capture all the same)
    captured: bool = False

    @property
    def is_foul(self) -> bool:
        return self.verdict in ("foul", UNREADABLE)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["takes"] = list(self.takes)
        d["legal"] = [list(x) for x in self.legal]
        d["floor_before"] = list(self.floor_before)
        d["floor_after"] = list(self.floor_after)
        return d


@dataclass
class RoundLog:
    """One round: its dealer, its initial floor (after the R1.3 fix) and its turns."""

    index: int
    dealer: int
    floor: tuple[str, ...]
    turns: list[TurnRecord] = field(default_factory=list)
    ended: bool = False
    short: bool = False  # ended before all 48 plays were seen (the next deal, or the referee)
    dealt: bool = False  # ended by the next deal seen on the floor (it lies there already)
    event_id: int = 0  # its `round_started` event (a `correct` of it renames a dealt card)

    def live_turns(self) -> list[TurnRecord]:
        return [tr for tr in self.turns if tr.status != UNDONE]


@dataclass
class Prompt:
    event_id: int
    kind: str
    text: str
    seat: int | None
    open: bool = True
    data: dict[str, Any] = field(default_factory=dict)
    t: float = 0.0  # video time it was raised


@dataclass
class TableState:
    """Everything known about a match at a table, rebuilt from its events alone."""

    match_id: str = ""
    variant: str = "classic"
    players: int = 2
    first_dealer: int = 0
    rounds: list[RoundLog] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)
    last_event_id: int = 0
    last_t: float = 0.0
    started: bool = False
    laid: dict[str, Any] | None = None  # a card lying on the floor, its turn not yet judged
    errors: list[str] = field(default_factory=list)
    match: Any = None  # engine.match.Match, rebuilt from the turns
    _rules: Any = None

    # ---- derived views -------------------------------------------------------------------
    @property
    def rules(self):
        if self._rules is None:
            from engine.rules import get_ruleset

            self._rules = get_ruleset(self.variant)
        return self._rules

    @property
    def current_round(self) -> RoundLog | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def phase(self) -> str:
        """`new` (no match yet), `dealing`, `playing` or `finished`."""
        if not self.started:
            return "new"
        if self.match is not None and self.match.finished:
            return "finished"
        rnd = self.current_round
        if rnd is None or rnd.ended:
            return "dealing"
        return "playing"

    @property
    def floor(self) -> tuple[str, ...]:
        return tuple(self.match.floor) if self.match is not None and self.rounds else ()

    @property
    def to_play(self) -> int | None:
        return self.match.to_play if self.phase == "playing" else None

    @property
    def totals(self) -> list[int]:
        if self.match is None:
            return [0, 0] if self.players != 3 else [0, 0, 0]
        return list(self.match.totals)

    @property
    def live_totals(self) -> list[int]:
        """Totals plus the basras already scored in the round in progress (R3.4: live)."""
        out = self.totals
        rnd = self.current_round
        if rnd is None or rnd.ended:
            return out
        for tr in rnd.live_turns():
            if tr.status == OK and tr.basra_points:
                out[self.side_of(tr.seat)] += tr.basra_points
        return out

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def turns(self) -> list[TurnRecord]:
        return [tr for rnd in self.rounds for tr in rnd.turns]

    def fouls(self) -> list[dict[str, Any]]:
        """Every turn flagged as a foul (resolved or not), `run --json` shape plus status."""
        out = []
        for rnd in self.rounds:
            for i, tr in enumerate(rnd.live_turns()):
                if tr.is_foul:
                    out.append(
                        {
                            "round": rnd.index,
                            "play": i,
                            "card": tr.card,
                            "kind": tr.foul,
                            "status": tr.status,
                            "event_id": tr.event_id,
                        }
                    )
        return out

    def pending(self) -> list[dict[str, Any]]:
        """Turns awaiting a referee decision, and open prompts."""
        out = [
            {"event_id": f["event_id"], "type": "foul", "kind": f["kind"], "card": f["card"]}
            for f in self.fouls()
            if f["status"] == PENDING
        ]
        out += [
            {"event_id": p.event_id, "type": "prompt", "kind": p.kind, "text": p.text}
            for p in self.prompts
            if p.open
        ]
        return out

    def score(self) -> dict[str, Any]:
        """The `basra-table score --json` shape for the rounds played so far."""
        m = self.match
        rounds = [_round_score_dict(s) for s in (m.rounds if m is not None else [])]
        return {
            "rounds": rounds,
            "totals": self.totals,
            "winner": m.winner if m is not None else None,
            "finished": bool(m.finished) if m is not None else False,
        }

    def score_data(self) -> dict[str, Any]:
        """The data of a `score` event for the state as it stands (R3.4: a basra shows the
        moment it is scored; derived, so the fold itself ignores it)."""
        rnd = self.current_round
        return {
            "totals": self.live_totals,
            "match_totals": self.totals,
            "rounds": self.score()["rounds"],
            "round": rnd.index if rnd is not None else 0,
        }

    def round_end_events(self) -> list[tuple[str, dict[str, Any]]]:
        """The derived events that follow an ended round: its `score`, and `match_ended`
        when it decided the match (type, data)."""
        out: list[tuple[str, dict[str, Any]]] = [(ev.SCORE, self.score_data())]
        m = self.match
        if m is not None and m.finished:
            out.append((ev.MATCH_ENDED, {"winner": m.winner, "totals": m.totals}))
        return out

    def to_dict(self) -> dict[str, Any]:
        rnd = self.current_round
        return {
            "match_id": self.match_id,
            "variant": self.variant,
            "players": self.players,
            "phase": self.phase,
            "round": rnd.index if rnd else None,
            "dealer": rnd.dealer if rnd else self.first_dealer,
            "to_play": self.to_play,
            "floor": list(self.floor),
            "plays_in_round": len(rnd.live_turns()) if rnd else 0,
            "last_event_id": self.last_event_id,
            "score": self.score(),
            "live_totals": self.live_totals,
            "fouls": self.fouls(),
            "pending": self.pending(),
            "last_turn": self.turns()[-1].to_dict() if self.turns() else None,
            "laid": self.laid,
            "errors": list(self.errors),
        }

    # ---- the fold --------------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        """Fold one event into the state. Raises ReplayError for a log that cannot be folded."""
        if event.id <= self.last_event_id:
            raise ReplayError(
                f"event {event.id} is not after event {self.last_event_id} (ids must increase)"
            )
        if self.match_id and event.match_id != self.match_id:
            raise ReplayError(f"event {event.id} belongs to match {event.match_id!r}")
        self.last_event_id = event.id
        self.last_t = event.t
        handler = _HANDLERS.get(event.type)
        if handler is None:
            raise ReplayError(f"event {event.id}: unknown type {event.type!r}")
        handler(self, event)

    def copy(self) -> TableState:
        clone = replace(
            self,
            rounds=[replace(r, turns=[replace(t) for t in r.turns]) for r in self.rounds],
            prompts=[replace(p) for p in self.prompts],
            errors=list(self.errors),
        )
        clone.match = self.match.copy() if self.match is not None else None
        return clone

    # Internal: the engine's match rebuilt from the turn log (after a referee decision).
    def _rebuild(self) -> None:
        from engine.match import Match

        m = Match(self.rules, players=self.players, dealer=self.first_dealer)
        for rnd in self.rounds:
            _start_round(m, rnd)
            guesses: set[str] = set()  # codes this round's held guesses named
            for tr in rnd.live_turns():
                self._apply_turn(m, tr, guesses)
                if held_guess(tr):
                    guesses.add(tr.card)
            if rnd.ended:
                if m.round_over or rnd.short:
                    m.end_round(short=rnd.short and not m.round_over)
                else:
                    self.errors.append(
                        f"round {rnd.index}: ended with {len(rnd.live_turns())} plays, not 48"
                    )
        self.match = m

    def _apply_turn(
        self, m, tr: TurnRecord, guesses: frozenset[str] | set[str] = frozenset()
    ) -> None:
        """Apply one turn to the match: legal ones by the engine's rules, others as seen
        (`guesses`: codes held guesses of this round named before it)."""
        from engine.match import IllegalPlay

        if tr.floor_before and set(tr.floor_before) != set(m.floor) and m.physical:
            # The camera missed plays before this one (R7): go on from the floor it saw.
            try:
                m.see_floor(list(tr.floor_before))
            except (ValueError, KeyError) as exc:
                self.errors.append(f"event {tr.event_id}: {exc}")
        if tr.card is None or held_guess(tr):
            # R7: cards left the floor and the card that took them was never seen or only
            # guessed (held for the referee, who names it with `correct`): they go to the
            # player's side. A guess is not the card played: its code may still come (one
            # deck), so the engine does not count it as played.
            try:
                m.unseen(list(tr.floor_after), captured=tr.card is None and tr.captured)
            except (ValueError, KeyError) as exc:
                self.errors.append(f"event {tr.event_id}: the played card is unknown: {exc}")
            return
        if tr.verdict not in ("foul", UNREADABLE):
            try:
                m.play(tr.card, takes=list(tr.takes) if tr.takes else None)
                return
            except IllegalPlay:
                pass  # an earlier decision changed the floor: take the turn as seen
        try:
            # R7 / DESIGN "after a foul the game goes on from the floor as it physically is".
            m.force(tr.card, list(tr.floor_after))
        except (ValueError, KeyError) as exc:
            if tr.card not in guesses:  # (a held guess named its code: the guess was wrong)
                self.errors.append(f"event {tr.event_id}: cannot apply {tr.card}: {exc}")
            # the card's code is taken (a held guess named it): the play still counts, from
            # the floor as seen (R8.7: the round has 48 plays, the seat order goes on)
            with contextlib.suppress(ValueError, KeyError):
                m.unseen(list(tr.floor_after))


def held_guess(tr: TurnRecord) -> bool:
    """A turn held for the referee (R7 `unreadable`, pending) whose card is only a guess."""
    return bool(tr.card) and tr.verdict == UNREADABLE and tr.status == PENDING


def _start_round(m, rnd: RoundLog) -> None:
    # the floor as the camera saw it: one still holding a J or 7D is a misdeal the controller
    # has already told the referee of (R1.3 prompt), and play goes on from it (R7)
    m.start_round(floor=list(rnd.floor), as_seen=True)


def _round_score_dict(s: Any) -> dict[str, Any]:
    """A RoundScore in the `score --json` shape (its own to_dict when it has one)."""
    if hasattr(s, "to_dict"):
        d = s.to_dict()
    else:
        d = asdict(s) if hasattr(s, "__dataclass_fields__") else dict(s)
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}


# ---- handlers per event type ------------------------------------------------------------
def _match_started(st: TableState, e: Event) -> None:
    from engine.match import Match

    if st.started:
        raise ReplayError(f"event {e.id}: a second match_started")
    d = e.data
    st.match_id = e.match_id
    st.variant = str(d.get("variant", "classic"))
    st.players = int(d.get("players", 2))
    st.first_dealer = int(d.get("dealer", 0))
    st._rules = None
    st.match = Match(st.rules, players=st.players, dealer=st.first_dealer)
    st.started = True


def _need_match(st: TableState, e: Event) -> None:
    if not st.started:
        raise ReplayError(f"event {e.id} ({e.type}) comes before match_started")


def _round_started(st: TableState, e: Event) -> None:
    _need_match(st, e)
    rnd = st.current_round
    if rnd is not None and not rnd.ended:
        raise ReplayError(f"event {e.id}: round {rnd.index} has not ended")
    index = int(e.data.get("round", len(st.rounds)))
    if index != len(st.rounds):
        raise ReplayError(f"event {e.id}: round {index} started, expected {len(st.rounds)}")
    log = RoundLog(
        index=index,
        dealer=int(e.data.get("dealer", 0)),
        floor=tuple(e.data["floor"]),
        event_id=e.id,
    )
    st.rounds.append(log)
    _start_round(st.match, log)
    for p in st.prompts:  # the dealer's R1.3 fix is done once the round starts
        if p.kind == "misdeal_fix":
            p.open = False


def _turn(st: TableState, e: Event) -> None:
    _need_match(st, e)
    rnd = st.current_round
    if rnd is None or rnd.ended:
        raise ReplayError(f"event {e.id}: a turn outside a round")
    d = e.data
    verdict = str(d.get("verdict", "foul" if e.type == ev.FOUL else "trail"))
    status = OK if e.type == ev.TURN else str(d.get("status", PENDING))
    tr = TurnRecord(
        event_id=e.id,
        round=rnd.index,
        seat=int(d.get("seat", st.match.to_play)),
        card=d.get("card"),
        verdict=verdict,
        foul=d.get("foul"),
        takes=tuple(d.get("takes") or ()),
        basra=bool(d.get("basra", False)),
        basra_points=int(d.get("basra_points", 0)),
        legal=tuple(tuple(x) for x in d.get("legal") or ()),
        floor_before=tuple(d.get("floor_before") or ()),
        floor_after=tuple(d.get("floor_after") or ()),
        status=status,
        t=e.t,
        shown=d.get("prompt") is not None,
        doubtful=bool(d.get("doubtful")),
        read_as=d.get("read_as"),
        captured=bool(d.get("captured")),
    )
    guesses = {t.card for t in rnd.live_turns() if held_guess(t)}
    rnd.turns.append(tr)
    st.laid = None
    st._apply_turn(st.match, tr, guesses)
    prompt_id = d.get("prompt")
    if prompt_id is not None:
        _close_prompt(st, int(prompt_id))


def _prompt(st: TableState, e: Event) -> None:
    _need_match(st, e)
    d = e.data
    seat = d.get("seat")
    st.prompts.append(
        Prompt(
            e.id,
            str(d.get("kind", "")),
            str(d.get("text", "")),
            None if seat is None else int(seat),
            data=dict(d),
            t=e.t,
        )
    )
    if d.get("closes") is not None:  # a note that settles an earlier prompt
        _close_prompt(st, int(d["closes"]))
        st.prompts[-1].open = False
        if st.laid is not None and st.laid.get("shown"):
            st.laid = None  # (the card shown for it went back: no turn)


def _close_prompt(st: TableState, event_id: int) -> bool:
    for p in st.prompts:
        if p.event_id == event_id:
            p.open = False
            return True
    return False


def _find_turn(st: TableState, event_id: int) -> tuple[RoundLog, TurnRecord] | None:
    for rnd in st.rounds:
        for tr in rnd.turns:
            if tr.event_id == event_id:
                return rnd, tr
    return None


def _referee(st: TableState, e: Event) -> None:
    """Referee decisions (R7): every one is an event, and the score is recomputed."""
    _need_match(st, e)
    d = e.data
    action = d.get("action")
    target = d.get("target")
    payload = d.get("payload") or {}
    if action not in REFEREE_ACTIONS:
        st.errors.append(f"event {e.id}: unknown referee action {action!r}")
        return
    if action == "undo":
        _undo(st, e, target)
        return
    if action == "end_round":
        _end_round_by_referee(st, e)
        return
    if target is None:
        st.errors.append(f"event {e.id}: {action} needs a target event id")
        return
    target = int(target)
    if action == "confirm" and _close_prompt(st, target):
        return
    dealt = next((rnd for rnd in st.rounds if rnd.event_id == target), None)
    if action == "correct" and dealt is not None:
        _correct_deal(st, e, dealt, payload)
        return
    found = _find_turn(st, target)
    if found is None:
        st.errors.append(f"event {e.id}: {action}: no turn with event id {target}")
        return
    rnd, tr = found
    if tr.status == UNDONE:
        st.errors.append(f"event {e.id}: {action}: turn {target} was undone")
        return
    if action == "correct":
        _correct(st, e, rnd, tr, payload)
    elif action in ("confirm", "accept_foul"):
        if tr.is_foul:
            tr.status = ACCEPTED
            tr.decided_by = e.id
        elif action == "confirm" and tr.doubtful:
            tr.decided_by = e.id  # the doubtful read confirmed as the camera saw it
    elif action == "reject_foul" and tr.is_foul:
        tr.status = REJECTED
        tr.decided_by = e.id
    st._rebuild()


def _end_round_by_referee(st: TableState, e: Event) -> None:
    """R7: the referee ends the round in progress as the camera saw it (the last round of a
    match whose plays the camera partly missed has no next deal to end it): scored from the
    plays seen, leftovers to the last capturer (R3.5)."""
    rnd = st.current_round
    if rnd is None or rnd.ended or st.match is None or not st.match.in_round:
        st.errors.append(f"event {e.id}: end_round: no round in progress")
        return
    rnd.ended = True
    rnd.short = not st.match.round_over
    st.laid = None
    st.match.end_round(short=rnd.short)
    # the round's questions about its plays are settled by ending it as seen
    for p in st.prompts:
        if p.open and p.kind in ROUND_QUESTIONS:
            p.open = False


def _undo(st: TableState, e: Event, target: Any) -> None:
    rnd = st.current_round
    live = rnd.live_turns() if rnd is not None and not rnd.ended else []
    if not live:
        st.errors.append(f"event {e.id}: undo: no turn to undo in the current round")
        return
    last = live[-1]
    if target is not None and int(target) != last.event_id:
        st.errors.append(
            f"event {e.id}: undo: turn {target} is not the last turn ({last.event_id})"
        )
        return
    last.status = UNDONE
    last.decided_by = e.id
    st._rebuild()


def _correct(st: TableState, e: Event, rnd: RoundLog, tr: TurnRecord, payload: dict) -> None:
    """Re-judge a turn with the card (and/or floor after) the referee says is right."""
    from engine.cards import CardError, parse_card, parse_cards
    from engine.referee import JudgeError, judge

    try:
        card = parse_card(payload["card"]) if payload.get("card") else tr.card
        after = (
            tuple(parse_cards(payload["floor_after"]))
            if payload.get("floor_after") is not None
            else tr.floor_after
        )
    except (CardError, TypeError) as exc:
        st.errors.append(f"event {e.id}: correct: {exc}")
        return
    if card is None:
        st.errors.append(f"event {e.id}: correct: which card was played?")
        return
    old = tr.card
    if old is not None and card != old and old in after and payload.get("floor_after") is None:
        after = _renamed(after, old, card)
    history = history_before(st, rnd, tr)
    try:
        v = judge(st.rules, tr.floor_before, card, after, history)
    except (JudgeError, ValueError) as exc:
        st.errors.append(f"event {e.id}: correct: {exc}")
        return
    tr.card = card
    tr.floor_after = after
    _take_verdict(tr, v)
    tr.decided_by = e.id
    if payload.get("lay") and old is None and card in after:
        _lay_unseen(st, rnd, rnd.turns[rnd.turns.index(tr) + 1 :], card)
    # A misread card that stayed on the floor is the corrected card in later floors too,
    # until it leaves the floor (the code seen after that is the real card of that code),
    # and the fouls still pending that saw it are judged again (a KC laid beside a QH
    # misread KD was no missed capture, R2.1); a play judged legal, or decided by the
    # referee, keeps its verdict (a correction never makes a foul of another play)
    if old is not None and old != card and card in after:
        saw = _rename_while_lying(rnd.turns[rnd.turns.index(tr) + 1 :], old, card)
        fouls = [t for t, *_was in saw if t.verdict == "foul"]
        for later, v in _judged_again(st, rnd, fouls, keep_going=True):
            _take_verdict(later, v)


def _correct_deal(st: TableState, e: Event, rnd: RoundLog, payload: dict) -> None:
    """A card of the round's deal was misread: `was` is `card` (payload), in the dealt floor
    and in every floor of the round after it; the plays that saw it are judged again (a play
    the referee decided keeps its decision)."""
    from engine.cards import CardError, parse_card
    from engine.referee import JudgeError

    try:
        was, card = (
            parse_card(str(payload.get("was", ""))),
            parse_card(str(payload.get("card", ""))),
        )
    except CardError as exc:
        st.errors.append(f"event {e.id}: correct the deal: {exc}")
        return
    played = {tr.card for tr in rnd.live_turns()}
    if was not in rnd.floor or card in rnd.floor or card in played:
        st.errors.append(
            f"event {e.id}: correct the deal: round {rnd.index + 1} was dealt "
            f"{' '.join(rnd.floor)}; {was} cannot become {card}"
        )
        return
    floor = rnd.floor
    rnd.floor = _renamed(rnd.floor, was, card)
    saw = _rename_while_lying(rnd.live_turns(), was, card)  # the plays that saw the dealt card
    try:  # judged again with the whole round renamed (Lebanese V3(b))
        judged = _judged_again(st, rnd, [tr for tr, *_old in saw])
    except (JudgeError, ValueError) as exc:
        rnd.floor = floor
        for tr2, before, after, takes in saw:
            tr2.floor_before, tr2.floor_after, tr2.takes = before, after, takes
        st.errors.append(f"event {e.id}: correct the deal: {exc}")
        return
    for tr, v in judged:
        _take_verdict(tr, v)
    st._rebuild()


def _lay_unseen(st: TableState, rnd: RoundLog, turns: list[TurnRecord], card: str) -> None:
    """A card laid unseen, named later (`correct` with `lay`), lay on the floor through the
    plays since: it joins their floors until the first that took cards (seen or never seen:
    `captured`), which took it too unless the rules say it stayed (R2: a 4 that took 3+A
    leaves a Q; a J's sweep takes it); those plays are judged again with it there (R2.6).
    Floors that hold it already (it was read) end the run."""
    from engine.cards import sort_cards
    from engine.referee import JudgeError, judge

    since = []
    for later in turns:
        if later.status == UNDONE:
            continue
        if card in later.floor_before:
            break
        before = tuple(sort_cards([*later.floor_before, card]))
        kept = tuple(sort_cards([*later.floor_after, card]))
        took = set(later.floor_before) - set(later.floor_after)
        later.floor_before = before
        since.append(later)
        if not took and not later.captured:
            later.floor_after = kept
            continue
        if later.card is None:
            # a held play took cards with it, perhaps (the referee names them); one that left
            # with cards never seen there (`captured`) took this one
            break
        try:
            history = history_before(st, rnd, later)
            stays = judge(st.rules, before, later.card, kept, history).verdict != "foul"
            taken = judge(st.rules, before, later.card, later.floor_after, history).verdict
        except (JudgeError, ValueError):
            break
        if stays and taken == "foul":
            later.floor_after = kept
            continue
        break
    for later, v in _judged_again(st, rnd, since, keep_going=True):
        _take_verdict(later, v)


def _judged_again(
    st: TableState, rnd: RoundLog, turns: list[TurnRecord], keep_going: bool = False
) -> list[tuple[TurnRecord, Any]]:
    """The engine's verdict on each of `turns` on its floors as they are now, for the live
    plays with a card that no referee decided and that are not held unreadable. A play the
    engine cannot judge raises, or with `keep_going` is left out (it keeps its verdict)."""
    from engine.referee import JudgeError, judge

    live = {id(tr) for tr in rnd.live_turns()}
    judged = []
    for tr in turns:
        if id(tr) not in live or tr.card is None or tr.decided_by is not None:
            continue
        if tr.verdict == UNREADABLE:
            continue
        try:
            history = history_before(st, rnd, tr)
            judged.append((tr, judge(st.rules, tr.floor_before, tr.card, tr.floor_after, history)))
        except (JudgeError, ValueError):
            if not keep_going:
                raise
    return judged


def _renamed(cards: tuple[str, ...], old: str, new: str) -> tuple[str, ...]:
    return tuple(new if c == old else c for c in cards)


def _rename_while_lying(
    turns: list[TurnRecord], old: str, new: str
) -> list[tuple[TurnRecord, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """A misread card renamed in the floors (and takes) of `turns`, from the first, for as long
    as it lies on the floor before them (the code seen after it left is the real card of that
    code); returns each renamed turn with its floors and takes as they were, to put back."""
    was = []
    for tr in turns:
        if old not in tr.floor_before:
            break
        was.append((tr, tr.floor_before, tr.floor_after, tr.takes))
        tr.floor_before = _renamed(tr.floor_before, old, new)
        tr.floor_after = _renamed(tr.floor_after, old, new)
        tr.takes = _renamed(tr.takes, old, new)  # and who took it
    return was


def _take_verdict(tr: TurnRecord, v: Any) -> None:
    """A turn judged again: the engine's verdict, what it takes and scores (a foul pending)."""
    tr.verdict, tr.foul, tr.takes = v.verdict, v.foul, tuple(v.takes)
    tr.basra, tr.basra_points = bool(v.basra), int(v.basra_points)
    tr.legal = tuple(tuple(x) for x in v.legal)
    tr.status = PENDING if v.verdict == "foul" else OK


def history_before(st: TableState, rnd: RoundLog, tr: TurnRecord) -> tuple:
    """The round's plays before `tr` as engine Play values (Lebanese V3(b) needs them)."""
    from engine.captures import Play

    out = []
    for other in rnd.live_turns():
        if other is tr:
            break
        if other.card is not None:
            out.append(Play(floor=tuple(other.floor_before), play=other.card))
    return tuple(out)


def _card_laid(st: TableState, e: Event) -> None:
    _need_match(st, e)
    st.laid = dict(e.data)


def _round_ended(st: TableState, e: Event) -> None:
    _need_match(st, e)
    rnd = st.current_round
    if rnd is None or rnd.ended:
        raise ReplayError(f"event {e.id}: round_ended without a round in progress")
    rnd.ended = True
    st.laid = None
    # `short`: the camera saw the next deal before all 48 plays (missed plays): the round is
    # scored from the plays seen; the controller's prompt tells the referee (R7).
    rnd.short = bool(e.data.get("short")) and not st.match.round_over
    rnd.dealt = rnd.short
    if st.match.round_over or rnd.short:
        st.match.end_round(short=rnd.short)
    else:
        st.errors.append(f"round {rnd.index}: ended with {len(rnd.live_turns())} plays, not 48")


def _derived(st: TableState, e: Event) -> None:
    """`score` and `match_ended` carry what the engine computed; the fold recomputes it."""
    _need_match(st, e)


_HANDLERS = {
    ev.MATCH_STARTED: _match_started,
    ev.ROUND_STARTED: _round_started,
    ev.PROMPT: _prompt,
    ev.TURN: _turn,
    ev.FOUL: _turn,
    ev.REFEREE: _referee,
    ev.SCORE: _derived,
    ev.ROUND_ENDED: _round_ended,
    ev.MATCH_ENDED: _derived,
    ev.CARD_LAID: _card_laid,
}


def replay(events: Iterable[Event | dict]) -> TableState:
    """Fold a match's events (in id order) into its state: the same as the live table's."""
    st = TableState()
    for e in events:
        st.apply(e if isinstance(e, Event) else Event.from_dict(e))
    return st
