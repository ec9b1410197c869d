"""The live table: frames in, refereed events out, published to the scoreboard and subscribers.

`Table` wires the floor tracker (motion, recognition), the turn tracker and the engine's
referee; every verdict, prompt and score change becomes an `Event` folded by `TableState`.
How it names cards read faintly, doubtfully or not at all: `controller.table_naming`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from controller import events as ev
from controller.elimination import MIN_SHARE, camera_correction, laid_correction, settle_held
from controller.errors import UserError
from controller.events import Event
from controller.referee_actions import try_decision
from controller.store import Conflict
from controller.table_geometry import TableGeometry
from controller.table_naming import (
    CardNaming,
    _newly_held,
    _renamed,
    _rounded,
    _sorted,
)
from controller.table_state import OK, PENDING, UNREADABLE, TableState, held_guess, replay
from controller.tracker import FloorTracker, TrackerConfig, same_place
from controller.turns import (
    CardLaid,
    DealFixed,
    MisdealPrompt,
    MissedPlay,
    NewDeal,
    ObservedTurn,
    Reread,
    RoundStart,
    ShowCancelled,
    ShowCardPrompt,
    Snapshot,
    TrailScooped,
    TurnTracker,
    UnreadablePrompt,
    UnseenNamed,
)

Subscriber = Callable[[Event], None]


@dataclass
class Latency:
    """When a turn's outcome settled on the table (video time) and when its verdict came."""

    card: str | None
    t_landed: float
    t_verdict: float

    @property
    def seconds(self) -> float:
        return self.t_verdict - self.t_landed


class Table(CardNaming):
    """One physical table refereeing one match.

    Table(variant, players, dealer) starts a new match (event `match_started`);
    Table(..., events=[...]) resumes from stored events, continuing ids and state exactly.
    `recognizer` is anything with `observe(image, t)`; `bridge` is a ScoreboardBridge.
    """

    def __init__(
        self,
        variant: str = "classic",
        players: int = 2,
        dealer: int = 0,
        *,
        match_id: str | None = None,
        geometry: TableGeometry | None = None,
        recognizer: Any = None,
        bridge: Any = None,
        events: Iterable[Event] | None = None,
        subscribers: Iterable[Subscriber] = (),
        tracker_config: TrackerConfig | None = None,
    ) -> None:
        from engine.rules import RulesError, get_ruleset

        try:
            rules = get_ruleset(variant)
            rules.check_players(players)
        except RulesError as exc:
            raise UserError(str(exc)) from None
        if not 0 <= dealer < players:
            raise UserError(f"dealer must be a seat from 0 to {players - 1}, not {dealer}")
        self.rules = rules
        self.geometry = geometry or TableGeometry.default(players)
        self.bridge = bridge
        self._subscribers: list[Subscriber] = list(subscribers)
        recognize = recognizer.observe if recognizer is not None else None
        self.tracker = FloorTracker(self.geometry, recognize, tracker_config or TrackerConfig())
        self.tracker.learn = False  # calibrated from the logged confidences (see _emit)
        self.turns = TurnTracker(
            self._can_capture,
            self._bad_initial,
            explain=self._explain,
            trail_of=self._trail_of,
            plain_of=self._plain_of,
            deal_faint=self._deal_faint,
            still_lying=self._still_lying,
            still_gone=self._still_gone,
            last_play=self._last_play,
            one_play=self._one_play,
            could_take=self._could_take,
            runner_takes=self._runner_takes,
            lies_still=self.tracker.lies_still,
            placed_before=self._placed_before,
            misread=self._misread,
            replaced=self._replaced,
            reached=self._reached,
            players=players,
        )
        self.latencies: list[Latency] = []
        self._show_prompt: int | None = None
        self._renames: dict[str, str] = {}  # cards renamed while one view's intents are judged
        self._readings: dict[int, tuple] = {}  # turn event id -> its doubtful card's read
        self._faint_turns: set[int] = set()  # of those, the turns of cards read too faintly
        # trails whose code a capture gave (`_doubtful_taken`): turn id -> that correction's id
        self._by_capture: dict[int, int] = {}
        self._soft: frozenset[str] = frozenset()  # codes only weak doubtful reads hold
        self._kept: set[str] = set()  # of those, codes whose earlier turn could not give them up
        self._kept_unlogged: set[str] = set()  # of those, codes the log does not hold yet
        self._deal_reads: dict[str, tuple] = {}  # code -> its read, while a deal is laid
        self._dealt_readings: dict[str, tuple] = {}  # the round's dealt cards' reads
        self._boxes: dict[str, list[float]] = {}  # where each card lay in the last view
        self._side_events: list[Event] = []  # events appended while an intent was prepared
        self._misdeal_prompt: int | None = None
        past = list(events or [])
        if past:
            for e in past:
                self._calibrate(e)
                self._note_by_capture(e)  # (only this round's turns are ever looked up)
            self.state = replay(past)
            if not self.state.started:
                raise UserError("the stored events hold no match_started")
            self.match_id = self.state.match_id
            self._resume()
            self._restore_round(past)
        else:
            self.state = TableState()
            self.match_id = match_id or uuid.uuid4().hex[:12]
            self._emit(
                ev.MATCH_STARTED,
                {"variant": rules.name, "players": players, "dealer": dealer},
                0.0,
            )
            self.turns.expect_deal(require_empty=False)
        self._update_gone()
        self._show_display()

    # ---- subscribers and publishing --------------------------------------------------------
    def subscribe(self, fn: Subscriber) -> None:
        """Call `fn(event)` for every new event (the store, the dashboard's WebSocket...)."""
        self._subscribers.append(fn)

    def _emit(self, type_: str, data: dict[str, Any], t: float) -> Event:
        if type_ in (ev.TURN, ev.FOUL, ev.CARD_LAID) and self._kept_unlogged:
            # codes an earlier doubtful turn kept (`_not_own`): a restarted table keeps them
            data = dict(data, kept=sorted(self._kept_unlogged))
            self._kept_unlogged = set()
        if _logs_boxes(type_, data) and self.tracker.cards and "boxes" not in data:
            # where each card the camera knows lies: a restarted table's tracker keeps them
            # there (`FloorTracker.resume`), as the live one kept them (a card read weakly
            # at its known place is still there)
            boxes = self.tracker.cards
            data = dict(data, boxes={c: _rounded(boxes[c]) for c in sorted(boxes)})
            unnamed = sorted(self.tracker.unnamed & set(boxes))
            if unnamed:
                data["unread"] = unnamed  # kept with no read naming them (their places still)
        e = Event(self.state.last_event_id + 1, self.match_id, type_, float(t), data)
        self.state.apply(e)  # the live state is the fold over the events: replay agrees
        self._calibrate(e)
        self._note_by_capture(e)
        for fn in self._subscribers:
            fn(e)
        return e

    def _note_by_capture(self, e: Event) -> None:
        """Remember a camera correction that named a trail by the capture that took it (only
        a guess among the codes its read allows: a plain read of its code may take it back)."""
        if e.type == ev.REFEREE and e.data.get("payload", {}).get("capture"):
            self._by_capture[int(e.data["target"])] = e.id

    def _calibrate(self, e: Event) -> None:
        """The tracker's thresholds follow the confidences of the cards the log holds as read
        (turns, round floors): a table resumed from its log has exactly the same thresholds."""
        if e.type in (ev.TURN, ev.FOUL) and e.data.get("card_confidence") is not None:
            self.tracker.calibrate([e.data["card_confidence"]])
        elif e.type == ev.ROUND_STARTED:
            self.tracker.calibrate(e.data.get("confidences") or [])

    def _show_display(self) -> None:
        if self.bridge is None:
            return
        from firmware_bridge.bridge import DisplayState

        totals = self.state.live_totals
        seat = self.state.to_play
        turn = None if seat is None else self._side(seat)
        # The board has two ends: with 3 players (Lebanese) it shows seats 0 and 1.
        self.bridge.show(
            DisplayState(left=totals[0], right=totals[1], turn=turn if turn in (0, 1) else None)
        )

    def _announce(self, side: int | None, word: str) -> None:
        if self.bridge is not None:
            self.bridge.announce(side=side if side in (0, 1) else None, word=word)

    def _side(self, seat: int) -> int:
        return seat % 2 if self.state.players == 4 else seat

    def _placed_before(self, code: str, at: tuple[float, ...] | None = None) -> bool:
        """Whether the card `code` of this view lies where no card landed in it: it lay
        there before, unread (False where no pixels tell: observations fed); and, where `at`
        is given, at that place."""
        box = self.tracker.cards.get(code)
        if box is None or (at is not None and not same_place(box, at)):
            return False
        return self.tracker.lay_before(box)

    def _replaced(self, back: frozenset[str], added: frozenset[str]) -> frozenset[str] | None:
        """Of the cards that came (`added`), those lying where the dealt cards `back` lay when
        the misdeal prompt asked them back (R1.3: each replacement dealt into its gap); None
        where a place is unknown (a log from before prompts held them) or holds no new card or
        more than one."""
        cards, new = self.tracker.cards, set()
        asked = self._asked_back()
        for code in back:
            place = asked.get(code)
            at = [c for c in added if place and c in cards and same_place(cards[c], place)]
            if len(at) != 1:
                return None
            new.add(at[0])
        return frozenset(new)

    def _guessed_around(self, box=None, code: str | None = None) -> dict[str, list[float]]:
        """What the log holds beside a card's `box` (or the known box of the card `code`)
        that was only guessed around its one index: {"index": that index}, else nothing (a
        restarted table adopts the card knowing so)."""
        guessed = self.tracker.guessed_index(box, code)
        return {} if guessed is None else {"index": _rounded(guessed)}

    def _asked_back(self) -> dict[str, list[float]]:
        """Where the dealt cards the open `misdeal_fix` prompts name lay when they were asked
        back (the prompts' `places`; the newest prompt's last)."""
        places: dict[str, list[float]] = {}
        for p in self.state.prompts:
            if p.open and p.kind == "misdeal_fix":
                places.update(p.data.get("places") or {})
        return places

    def _reached(self, arms: tuple[tuple[int, float], ...]) -> int | None:
        """How many seats after the seat to play (R1.5: turns pass to the next seat) the arm
        seen most over the floor came from (`Snapshot.arms`: seat, seconds); None with
        no arm seen, or two seen as often."""
        seat = self.state.to_play
        if seat is None or not arms:
            return None
        most = max(n for _, n in arms)
        seats = [s for s, n in arms if n == most]
        if len(seats) > 1:
            return None
        return (seats[0] - seat) % self.state.players

    # ---- input --------------------------------------------------------------------------------
    def feed_frame(self, frame: np.ndarray, t: float) -> list[Event]:
        """One camera frame at time `t` (seconds); returns the events it caused."""
        snap = self.tracker.feed(frame, t)
        if snap is None:
            return []
        out = self.feed_snapshot(snap)
        if self.tracker.queued is not None:
            # a restarted table's first view, held back, came first; then this frame's
            snap, self.tracker.queued = self.tracker.queued, None
            out += self.feed_snapshot(snap)
        return out

    def feed_observation(self, obs: Any, size: tuple[int, int] = (1280, 720)) -> list[Event]:
        """One recogniser observation of a still table (accumulated until settled)."""
        snap = self.tracker.feed_observation(obs, size)
        return self.feed_snapshot(snap) if snap is not None else []

    def feed_snapshot(self, snap: Snapshot) -> list[Event]:
        """One settled floor snapshot; returns the events it caused."""
        if self.state.phase == "finished":
            return []
        out: list[Event] = []
        self._renames = {}
        if self.turns.mode == "deal":
            self._deal_reads.update(snap.readings)  # how each dealt card was read
            snap = self._gathered(snap)
        snap = self._reread_lying(snap)
        out += self._side_events  # the camera's corrections it made
        self._side_events = []
        intents = self.turns.step(snap)
        for i, intent in enumerate(intents):
            if self._renames:
                intent = _renamed(intent, self._renames)  # a card renamed by an earlier turn
                intent = self._claim_freed(intent, snap)
                if i == len(intents) - 1:
                    intent = self._trail_that_can_take(intent)
            intent = self._take_back(intent, snap)
            out += self._side_events  # the camera's corrections it made
            self._side_events = []
            if self.state.phase != "playing" and not isinstance(
                intent, (RoundStart, MisdealPrompt)
            ):
                # The round ended (48 plays counted) within this view: a further play the
                # view holds is one more than the round has (a play counted that never
                # happened); the next deal is read from the floor as it is.
                continue
            out += self._handle(intent)
        self._update_gone()
        self._boxes = dict(self.tracker.cards)
        return out

    def _update_gone(self) -> None:
        """Tell the tracker which codes cannot be on the floor now (one physical deck). A code
        only a weak doubtful read holds (`_soft_gone`) may still come: a plain read of it
        takes it back (`_take_back`). And which dealt cards an open `misdeal_fix` prompt asks
        the dealer to take back (R1.3)."""
        self.tracker.returning = frozenset(
            c
            for p in self.state.prompts
            if p.open and p.kind == "misdeal_fix"
            for c in p.data.get("cards", ())
        )
        if self.state.phase != "playing" or self.turns.mode == "deal":
            self.tracker.gone, self._soft = frozenset(), frozenset()
            self._kept, self._kept_unlogged = set(), set()
            return
        self._soft = self._soft_gone() - self._kept
        gone = self._gone_this_round() - self.turns.on_floor()
        self.tracker.gone = frozenset(gone - self._soft)

    # ---- referee decisions ------------------------------------------------------------------
    def referee(
        self, action: str, target: int | None = None, payload: dict | None = None, t: float = 0.0
    ) -> Event:
        """Record a referee decision (R7) and recompute the state from the log."""
        data = {"action": action, "target": target, "payload": dict(payload or {})}
        before = self.state.floor
        # Try the decision on a copy first: a request the fold cannot apply changes nothing.
        probe = self.state.copy()
        errors = len(probe.errors)
        t = t or self.state.last_t
        probe.apply(Event(probe.last_event_id + 1, self.match_id, ev.REFEREE, t, data))
        if len(probe.errors) > errors:
            raise UserError(probe.errors[-1])
        e = self._emit(ev.REFEREE, data, t)
        if action == "end_round":
            # The referee ended the round (R7): its score and the match's fate follow.
            for typ, d in self.state.round_end_events():
                self._emit(typ, d, t)
        self.after_decision(action, before)
        return e

    def after_decision(self, action: str, floor_before: tuple[str, ...]) -> None:
        """Put the camera's side in step with a referee decision now in the state, whichever
        process recorded it (`referee` here, or `serve` through the store, followed by
        `run`): after an ended round it waits for the next deal (what lies on the floor now
        is last round's), after a changed floor it reads plays from the floor as decided."""
        if action == "end_round":
            self._show_prompt = None
            if self.state.phase == "dealing":
                self.turns.expect_deal(require_empty=True, leftovers=self._leftovers())
        elif self.state.phase == "playing" and (
            self.state.floor != floor_before or self._show_prompt is not None
        ):
            gone = set(floor_before) - set(self.state.floor)
            came = set(self.state.floor) - set(floor_before)
            if len(gone) == 1 and len(came) == 1:
                # a card lying there renamed (a corrected read): the tracker keeps its place
                self.tracker.rename(gone.pop(), came.pop(), 1.0)
            self.turns.set_floor(self.state.floor)
            self._show_prompt = None
        self._update_gone()
        self._show_display()

    # ---- intents -> events ----------------------------------------------------------------
    def _handle(self, intent: Any) -> list[Event]:
        if isinstance(intent, RoundStart):
            return self._round_start(intent)
        if isinstance(intent, MisdealPrompt):
            names = " ".join(intent.cards)
            e = self._emit(
                ev.PROMPT,
                {
                    "kind": "misdeal_fix",
                    "text": f"return {names} to the deck, deal a replacement",
                    "seat": self._next_dealer(),
                    "cards": list(intent.cards),
                    "floor": _sorted(intent.floor),
                    "places": {
                        c: _rounded(self.tracker.cards[c])
                        for c in intent.cards
                        if c in self.tracker.cards
                    },
                },
                intent.t,
            )
            self._misdeal_prompt = e.id
            self._announce(None, "7d" if intent.cards == ("7D",) else "UAit")
            return [e]
        if isinstance(intent, ShowCardPrompt):
            seat = self.state.to_play
            e = self._emit(
                ev.PROMPT,
                {
                    "kind": "show_card",
                    "text": "show the card you played",
                    "seat": seat,
                    "floor_before": _sorted(intent.floor_before),
                    "floor_after": _sorted(intent.floor_after),
                },
                intent.t,
            )
            self._show_prompt = e.id
            self._announce(None if seat is None else self._side(seat), "UAit")
            return [e]
        if isinstance(intent, CardLaid):
            rnd = self.state.current_round
            data = {
                "round": rnd.index,
                "play": len(rnd.live_turns()),
                "seat": self.state.to_play,
                "card": intent.card,
                "floor_before": _sorted(intent.floor_before),
                "floor": _sorted(intent.floor),
            }
            # When it landed and how sure the read was: a restarted table's turn keeps both.
            if intent.t_landed is not None:
                data["t_landed"] = intent.t_landed
            data["confidence"] = intent.confidence
            if intent.card_confidence is not None:
                data["card_confidence"] = round(intent.card_confidence, 3)
            if intent.reading:
                data["reading"] = _logged_reading(intent.reading)  # (its turn may log it too)
            if intent.shown:
                data["shown"] = True  # shown after the prompt: a restarted table waits for it
            return [self._emit(ev.CARD_LAID, data, intent.t)]
        if isinstance(intent, ShowCancelled):
            closes, self._show_prompt = self._show_prompt, None
            data = {"kind": "cleared", "text": "the floor is as before: no turn", "seat": None}
            return [self._emit(ev.PROMPT, {**data, "closes": closes}, intent.t)]
        if isinstance(intent, UnreadablePrompt):
            extra = _sorted(intent.seen - intent.floor_before)
            gone = _sorted(intent.floor_before - intent.seen)
            text = "check the floor:"
            if extra:
                text += " unexpected " + " ".join(extra)
            if gone:
                text += " missing " + " ".join(gone)
            if intent.unreadable:
                n = intent.unreadable
                text += f" {n} unreadable card{'s' if n > 1 else ''}: show it to the camera"
            return [
                self._emit(
                    ev.PROMPT,
                    {"kind": "unreadable", "text": text, "seat": self.state.to_play},
                    intent.t,
                )
            ]
        if isinstance(intent, ObservedTurn):
            return self._turn(intent)
        if isinstance(intent, Reread):
            return self._reread(intent)
        if isinstance(intent, DealFixed):
            return self._deal_fixed(intent)
        if isinstance(intent, NewDeal):
            return self._new_deal(intent)
        if isinstance(intent, MissedPlay):
            return self._missed_play(intent)
        if isinstance(intent, UnseenNamed):
            return self._unseen_named(intent)
        if isinstance(intent, TrailScooped):
            return self._trail_scooped(intent)
        raise TypeError(f"unknown intent {intent!r}")

    def _reread(self, intent: Reread) -> list[Event]:
        """A card that did not move was read better: correct the turn that played it (the
        fold renames it in the later floors too and re-judges, R7), or tell the referee."""
        rnd = self.state.current_round
        live = rnd.live_turns() if rnd is not None and not rnd.ended else []
        played = [tr for tr in live if tr.card == intent.was]
        tried = (
            self._camera_correction(played[-1].event_id, intent.card, intent.t) if played else None
        )
        text = f"the camera re-read {intent.was} as {intent.card}: check the floor"
        return self._corrected_or_asked(tried, intent.was, intent.card, text, intent.t)

    def _deal_fixed(self, intent: DealFixed) -> list[Event]:
        """The dealer did R1.3 after the round started on a misread J (`DealFixed`): the camera
        corrects the deal (the card taken back is its replacement, R7: the referee sees who
        decided), or, where the log cannot take that, tells the referee."""
        rnd = self.state.current_round
        tried = None
        if rnd is not None and not rnd.ended:
            tried = self._camera_correction(rnd.event_id, intent.card, intent.t, was=intent.was)
        if tried is not None:
            tried[0]["payload"]["returned"] = True  # taken back by the dealer, not re-read
            self._dealt_readings.pop(intent.was, None)
            reading = _read_back(_logged_reading(intent.reading))
            if _has_runner_up(reading):
                self._dealt_readings[intent.card] = reading  # `settle_held` may name it by that
                tried[0]["payload"]["reading"] = _logged_reading(reading)  # (for a restart)
        text = f"the dealer replaced {intent.was} with {intent.card}: check the floor"
        return self._corrected_or_asked(tried, intent.was, intent.card, text, intent.t)

    def _corrected_or_asked(
        self, tried: tuple[dict, TableState] | None, was: str, card: str, text: str, t: float
    ) -> list[Event]:
        """The camera's correction `tried` (its data, and the state it makes) recorded; or,
        where the log could not take it (None), a `reread` prompt telling the referee `text`."""
        if tried is not None:
            out = [self._emit(ev.REFEREE, tried[0], t)]
            self._show_display()
            return out
        data = {"kind": "reread", "text": text, "seat": None, "cards": [was, card]}
        return [self._emit(ev.PROMPT, data, t)]

    def _next_dealer(self) -> int:
        m = self.state.match
        return int(getattr(m, "dealer", 0))

    def _round_start(self, intent: RoundStart) -> list[Event]:
        self._readings.clear()  # a take-back looks only at this round's turns
        self._faint_turns.clear()
        self._by_capture.clear()
        # as the log holds them (3 decimals): a restarted table judges by the same shares
        self._dealt_readings = {
            c: _read_back(_logged_reading(self._deal_reads.get(c, ()))) for c in intent.floor
        }
        self._deal_reads = {}
        if intent.faint is not None and intent.faint_reading:
            # the card read too faintly: its read (a runner-up may name it, as any dealt card's)
            self._dealt_readings[intent.faint[0]] = _read_back(
                _logged_reading(intent.faint_reading)
            )
        doubtful = {c: r for c, r in self._dealt_readings.items() if _has_runner_up(r)}
        out = []
        data: dict[str, Any] = {
            "round": len(self.state.rounds),
            "dealer": self._next_dealer(),
            "floor": _sorted(intent.floor),
        }
        if self._misdeal_prompt is not None:
            data["closes"] = self._misdeal_prompt
            self._misdeal_prompt = None
        if intent.confidences:
            data["confidences"] = [round(c, 3) for c in intent.confidences]
        if intent.misdeal:
            data["misdeal"] = list(intent.misdeal)  # R1.3 not done: the referee is told
        if doubtful:
            # the dealt cards read with a runner-up (`settle_held` may name one by it at the
            # round's end): a restarted table reads them from the log
            data["readings"] = {c: _logged_reading(r) for c, r in doubtful.items()}
        if intent.faint is not None:
            # the 4th dealt card, read too faintly, named from that read: kept at its place
            card, share, box = intent.faint
            data["faint"] = {"card": card, "share": round(share, 3), "box": _rounded(box)}
            data["faint"].update(self._guessed_around(box))
            self.tracker.adopt(card, box, share)
        out.append(self._emit(ev.ROUND_STARTED, data, intent.t))
        if intent.misdeal:
            out.append(
                self._emit(
                    ev.PROMPT,
                    {
                        "kind": "misdeal",
                        "text": "misdeal: " + " ".join(intent.misdeal) + " stayed on the floor",
                        "seat": data["dealer"],
                    },
                    intent.t,
                )
            )
            self._announce(None, "FOUL")
        self._show_display()
        return out

    def _turn(self, obs: ObservedTurn) -> list[Event]:
        from engine.referee import JudgeError, judge

        st = self.state
        m = st.match
        seat = m.to_play
        before, after = _sorted(obs.floor_before), _sorted(obs.floor_after)
        data: dict[str, Any] = {
            "round": st.current_round.index,
            "play": len(st.current_round.live_turns()),
            "seat": seat,
            "card": obs.card,
            "floor_before": before,
            "floor_after": after,
            "t_landed": obs.t_landed,
            "confidence": round(obs.confidence, 3),
        }
        if obs.card_confidence is not None:
            data["card_confidence"] = round(obs.card_confidence, 3)
        if (
            obs.confidence < self.tracker.sure
            or obs.inferred
            or obs.by_capture
            or obs.faint_box is not None
            or obs.unshown
        ):
            data["doubtful"] = True  # a legal verdict the referee may want to confirm
        if obs.by_capture:
            data["by_capture"] = True  # read too faintly alone: the cards it took named it
        if obs.unshown:
            data["reason"] = f"read only faintly as {obs.card}, not shown when asked: check it"
        if (obs.shown or obs.unshown) and self._show_prompt is not None:
            data["prompt"] = self._show_prompt  # the prompt it answers (unanswered if unshown)
            self._show_prompt = None
        kind = ev.TURN
        out_first: list[Event] = []  # the camera's corrections the turn rests on
        if obs.unsure:
            # One deck: every plausible reading of the card was impossible (R7 `unreadable`):
            # held for the referee with the best possible guess, never silently scored.
            data.update(
                _held(UNREADABLE, UNREADABLE),
                reason=f"the card could not be read; best possible guess {obs.card}",
            )
            kind = ev.FOUL
        elif obs.card is not None and obs.card in self._gone_this_round():
            data.update(_held("foul", "duplicate_card"))
            kind = ev.FOUL
        else:
            try:
                v = judge(self.rules, before, obs.card, after, tuple(m.history))
                if v.verdict == "foul":
                    named = self._runner_up(obs, before, after, tuple(m.history))
                    if named is not None:
                        # a doubtful read whose play is a foul, and a runner-up of the same
                        # read that makes it legal (it takes exactly those cards, or nothing
                        # when it stayed): the read was wrong, the card is renamed
                        code, v, after = named
                        data["read_as"], data["card"] = obs.card, code
                        data["floor_after"], data["doubtful"] = after, True
                        if code in after:
                            lies = self.tracker.cards.get(obs.card)
                            if lies is not None:  # where it lies (a restarted table keeps it)
                                data["box"] = _rounded(lies)
                                data.update(self._guessed_around(code=obs.card))
                            self._rename_lying(obs.card, code, obs.confidence)
                    else:
                        fixed = self._doubtful_taken(obs, before, after, tuple(m.history))
                        if fixed is not None:
                            # a card it took lay on a doubtful read (a faint QH read KC, taken
                            # by a QC): the camera corrects that trail, the capture is legal
                            correction, before = fixed
                            # (a dealt card so named keeps no read for the round's end)
                            self._dealt_readings.pop(correction["payload"].get("was"), None)
                            out_first.append(self._emit(ev.REFEREE, correction, obs.t))
                            m = self.state.match  # (the correction rebuilt the match)
                            v = judge(self.rules, before, obs.card, after, tuple(m.history))
                            data["floor_before"], data["doubtful"] = before, True
                data.update(v.to_dict())
                if v.verdict == "foul":
                    kind = ev.FOUL
                    data["status"] = PENDING
            except JudgeError as exc:
                data.update(_held(UNREADABLE, UNREADABLE), reason=str(exc))
                kind = ev.FOUL
        if obs.faint_box is not None:
            data["faint"] = True  # read too faintly to accept; it stayed: a trail
            data["box"] = _rounded(obs.faint_box)  # where it lies
            data.update(self._guessed_around(obs.faint_box))
            if obs.card is not None and not obs.cleared:
                self.tracker.adopt(obs.card, obs.faint_box, obs.confidence)
        remember = data.get("doubtful") and obs.reading and data.get("card") == obs.card
        if remember:
            # what was read of it: a later plain read may take the code back (a restarted
            # table reads it from the log)
            data["reading"] = _logged_reading(obs.reading)
        out = [*out_first, self._emit(kind, data, obs.t)]
        if remember:
            self._remember_read(out[-1])
        self.latencies.append(Latency(obs.card, obs.t_landed, obs.t))
        side = self._side(seat)
        if kind == ev.FOUL:
            self._announce(side, "FOUL")
        elif data.get("basra"):
            self._announce(side, "bAsrA")  # R3.4: shown the moment it is scored
        if data.get("basra"):
            out.append(self._score_event(obs.t))
        if m.round_over:
            out += self._end_round(obs.t)
        self._show_display()
        return out

    def _gone_this_round(self) -> set[str]:
        """Cards played or captured earlier this round: one deck, they cannot come back."""
        gone: set[str] = set()
        guesses: set[str] = set()
        rnd = self.state.current_round
        for tr in rnd.live_turns() if rnd else []:
            # a card held as only a guess (R7 `unreadable`, not yet decided) names no card:
            # the card of that code may still come (its true card is another), also once a
            # capture has taken it
            if held_guess(tr):
                guesses.add(tr.card)
            elif tr.card:
                gone.add(tr.card)
            gone |= set(tr.floor_before) - set(tr.floor_after) - (guesses - gone)
        return gone - set(self.state.floor)

    def _score_event(self, t: float) -> Event:
        return self._emit(ev.SCORE, self.state.score_data(), t)

    def _trail_scooped(self, intent: TrailScooped) -> list[Event]:
        """The card just judged a trail left the floor with other cards, scooped by its own
        player: its trail is taken back (the camera's own `undo`) and the play held for the
        referee with its card unknown (R7 `unreadable`: the read named a card that cannot
        take them); the cards taken go to that player's side meanwhile. At the round's end
        the one deck may name it (`_settle_held`)."""
        rnd = self.state.current_round
        live = rnd.live_turns() if rnd is not None and not rnd.ended else []
        if not live or live[-1].card != intent.read_as:
            gone = MissedPlay(intent.floor_before | {intent.read_as}, intent.floor_after, intent.t)
            return self._missed_play(gone)
        # (nothing else seen leave: it took only cards never seen there, a capture all the same)
        alone = intent.floor_before == intent.floor_after
        unseen = intent.unseen_lying and self._held_unseen() is not None
        if unseen:
            took = (self._took_unseen if alone else self._taken_as_read)(live[-1], intent)
            if took:
                return [self._emit(ev.REFEREE, data, intent.t) for data in took]
        named = self._dealt_taken(live[-1], intent)
        if named:
            # it took a card dealt on a doubtful read, named by its runner-up (`_dealt_taken`)
            self._dealt_readings.pop(named[0]["payload"]["was"], None)
            return [self._emit(ev.REFEREE, data, intent.t) for data in named]
        undo = {"action": "undo", "target": live[-1].event_id, "payload": {"by": "camera"}}
        out = [self._emit(ev.REFEREE, undo, intent.t)]
        taken = " ".join(_sorted(intent.floor_before - intent.floor_after))
        reason = (
            f"the card read as {intent.read_as} left the floor with {taken}, which it cannot "
            "take: name it"
            if taken
            else f"the card read as {intent.read_as} left the floor alone, with cards the "
            "camera did not see: name it"
        )
        held = MissedPlay(intent.floor_before, intent.floor_after, intent.t, alone)
        reading = None
        if alone and unseen:
            # it took the card laid unseen, of its own rank (`_took_unseen`), but several codes
            # of that rank are still in play: its read is kept for the round's end, where the
            # one deck names both plays (`settle_held`: the read tells which is which)
            reading = self._readings.get(live[-1].event_id) or ((intent.read_as, 1.0),)
        return out + self._missed_play(held, reason, reading)

    def _held_unseen(self) -> Any | None:
        """The round's last play held with its card unknown that took nothing (a card laid
        where the camera never saw it), not yet decided; None where there is none."""
        rnd = self.state.current_round
        live = rnd.live_turns() if rnd is not None and not rnd.ended else []
        held = [
            tr for tr in live
            if tr.card is None and tr.verdict == UNREADABLE and not tr.decided_by
            and tr.floor_before == tr.floor_after
        ]  # fmt: skip
        return held[-1] if held else None

    def _took_unseen(self, trail: Any, intent: TrailScooped) -> list[dict]:
        """The camera's `correct`s (data) for a card judged a trail and lifted alone by its
        own player while a card laid unseen lay there still (`_held_unseen`): it took that
        card, which shares its rank (one card alone: a pair, R2.2, R2.3). Where one code of
        that rank is still in play (one deck, R1.1), the unseen play is named that code,
        lying in every floor since (`lay`), and the trail becomes its capture. Empty where
        the rank leaves several codes, or the log would not take them legally."""
        from engine.cards import FULL_DECK, rank

        held, card = self._held_unseen(), intent.read_as
        if held is None:
            return []
        out = set(self.state.floor) | self._gone_this_round() | {card}
        codes = [c for c in FULL_DECK if rank(c) == rank(card) and c not in out]
        if len(codes) != 1:
            return []
        named = laid_correction(held.event_id, codes[0], held.floor_after)
        took = camera_correction(trail.event_id, card)
        took["payload"]["floor_after"] = _sorted(intent.floor_after)
        probe = self._legal_after([named, took], intent.t)
        if probe is None or _newly_held(self.state, probe, held.event_id):
            return []  # (a play since could have taken it, R2.6: the referee decides)
        return [named, took]

    def _taken_as_read(self, trail: Any, intent: TrailScooped) -> list[dict]:
        """The camera's `correct` (data) for a card judged a trail and lifted by its own
        player with cards seen there that its read cannot take, while a card laid unseen lay
        there (`_held_unseen`): with that card or without, it is its capture as read, a foul
        pending for the referee (R7), its card kept (the unseen card may be named at the
        round's end: one deck). Empty where the log would not take it."""
        took = camera_correction(trail.event_id, intent.read_as)
        took["payload"]["floor_after"] = _sorted(intent.floor_after)
        try:
            try_decision(self.state, "correct", trail.event_id, took["payload"], intent.t)
        except Conflict:
            return []
        return [took]

    def _legal_after(self, corrections: list[dict], t: float) -> TableState | None:
        """The state the camera's `correct`s (data), applied in turn, make, where the log
        takes each and leaves its turn legal (R2); None otherwise."""
        probe = self.state
        for data in corrections:
            try:
                probe = try_decision(probe, "correct", data["target"], data["payload"], t)
            except Conflict:
                return None
            if next(tr for tr in probe.turns() if tr.event_id == data["target"]).is_foul:
                return None
        return probe

    def _unseen_named(self, intent: UnseenNamed) -> list[Event]:
        """The card a seat laid unseen, read at last where it lay since: the camera corrects
        that held play (its card unknown, nothing taken) to a trail of it, lying in every
        floor since (`lay`); the plays since are judged again with it there. Nothing where
        no such play waits, or where that trail was not legal (R2.6: the referee decides)."""
        tr = self._held_unseen()
        if tr is None:
            return []
        data = laid_correction(tr.event_id, intent.card, tr.floor_after)
        if self._legal_after([data], intent.t) is None:
            return []
        return [self._emit(ev.REFEREE, data, intent.t)]

    def _missed_play(
        self, intent: MissedPlay, reason: str | None = None, reading: tuple | None = None
    ) -> list[Event]:
        """Cards left the floor with a card nobody saw (not shown when asked): the turn is
        held for the referee with its card unknown (R7 `unreadable`); the cards taken go to
        the player's side meanwhile, and the seat order goes on. The referee names the card
        with `correct` (the turn is then judged). `reason`: what the referee is told;
        `reading`: what was read of the card, where something was (kept for the round's end)."""
        st = self.state
        before, after = _sorted(intent.floor_before), _sorted(intent.floor_after)
        taken = " ".join(c for c in before if c not in after)
        data: dict[str, Any] = {
            "round": st.current_round.index,
            "play": len(st.current_round.live_turns()),
            "seat": st.match.to_play,
            "card": None,
            "floor_before": before,
            "floor_after": after,
            "t_landed": intent.t,
            "confidence": 0.0,
            **_held(UNREADABLE, UNREADABLE),
            "reason": reason or _missed_reason(intent, taken),
        }
        if intent.captured:
            data["captured"] = True  # it left the floor with cards never seen there
        if self._show_prompt is not None:
            data["prompt"] = self._show_prompt  # the prompt it answers (unanswered)
            self._show_prompt = None
        if reading:
            data["reading"] = _logged_reading(reading)
        if intent.at is not None:
            data["box"] = _rounded(intent.at)  # where the card lies (a restarted table keeps it)
        out = [self._emit(ev.FOUL, data, intent.t)]
        if reading:
            self._remember_read(out[-1])
        self._announce(self._side(data["seat"]), "FOUL")
        if st.match.round_over:
            out += self._end_round(intent.t)
        return out

    def _new_deal(self, intent: NewDeal) -> list[Event]:
        """The next round is being dealt before 48 plays were seen (the camera missed some):
        what the turns made of the dealt cards is taken back (the camera's own `undo`), the
        prompts they raised are settled, and the round ends short, scored from the plays seen;
        the referee is told (R7). Then the deal is read afresh, every code possible again."""
        out: list[Event] = []
        rnd = self.state.current_round
        for tr in reversed(rnd.live_turns()):
            if tr.t <= intent.t_cleared:
                break
            data = {"action": "undo", "target": tr.event_id, "payload": {"by": "camera"}}
            out.append(self._emit(ev.REFEREE, data, intent.t))
        for p in self.state.prompts:  # raised by the clearing and the dealt cards
            if (
                p.open
                and p.t >= intent.t_cleared
                and p.kind in ("show_card", "unreadable", "reread")
            ):
                note = {"kind": "cleared", "text": "the next deal began: no turn", "seat": None}
                out.append(self._emit(ev.PROMPT, {**note, "closes": p.event_id}, intent.t))
        self._show_prompt = None
        seen = len(rnd.live_turns())
        out += self._end_round(intent.t, short=True)
        text = (
            f"round {rnd.index + 1} ended after {seen} of 48 plays: the camera missed "
            f"{48 - seen}; check the round's score"
        )
        out.append(
            self._emit(
                ev.PROMPT,
                {"kind": "short_round", "text": text, "seat": None, "round": rnd.index},
                intent.t,
            )
        )
        self.tracker.read_afresh()
        return out

    def _end_round(self, t: float, short: bool = False) -> list[Event]:
        # one deck: the cards never seen this round name the plays held for want of them
        out = [] if short else self._settle_held(t)
        probe = self.state.match.copy()
        short = short and not probe.round_over
        score = probe.end_round(short=short)
        from controller.table_state import _round_score_dict

        data = {"round": self.state.current_round.index, **_round_score_dict(score)}
        if short:
            data.update(short=True, plays=probe.plays_in_round)
        out.append(self._emit(ev.ROUND_ENDED, data, t))
        out += [self._emit(typ, d, t) for typ, d in self.state.round_end_events()]
        if not self.state.match.finished:
            if short:
                self.turns.expect_deal(require_empty=False)  # the floor was seen cleared
            else:
                self.turns.expect_deal(require_empty=True, leftovers=self._leftovers())
        return out

    def _settle_held(self, t: float) -> list[Event]:
        """The round has had all its plays: the plays held with their card unknown or only
        guessed are named by the cards never seen (`controller.elimination`), corrected by the
        camera (R7: the referee sees who decided, and may correct again)."""
        out = []
        for data in settle_held(self.state, self._readings, self._dealt_readings, t):
            before = self.state.floor
            out.append(self._emit(ev.REFEREE, data, t))
            self.after_decision("correct", before)  # a card lying there renamed: follow it
        return out

    def _gathered(self, snap: Snapshot) -> Snapshot:
        """Before a deal: a card the last round left on the floor (R3.5) that the tracker
        keeps though no read has named it since its place changed (a white card lifted off a
        pale cloth changes its place too little for a lift) was gathered with the others; the
        tracker forgets it and the deal is read without it."""
        stale = snap.unread & self._leftovers()
        if not stale:
            return snap
        for code in stale:
            self.tracker.forget(code)
        return replace(snap, floor=snap.floor - stale, unread=snap.unread - stale)

    def _leftovers(self) -> frozenset[str]:
        """The cards the last round left on the floor (R3.5: the last capturer takes them):
        its last turn's floor, or the floor it was dealt when it ended with no turn."""
        if not self.state.rounds:
            return frozenset()
        rnd = self.state.rounds[-1]
        live = rnd.live_turns()
        return frozenset(live[-1].floor_after if live else rnd.floor)

    def _resume(self) -> None:
        """Put the turn tracker back where the stored events left it."""
        st = self.state
        if st.phase == "playing":
            self.turns.set_floor(st.floor)
            laid = st.laid
            show = next((p for p in reversed(st.prompts) if p.open and p.kind == "show_card"), None)
            if laid is not None and not laid.get("shown"):
                self.turns.resume_laid(
                    laid["card"],
                    laid["floor_before"],
                    laid["floor"],
                    laid.get("t_landed", st.last_t),  # logs from before t_landed was kept
                    laid.get("confidence", 1.0),
                    laid.get("card_confidence"),
                    _read_back(laid.get("reading", ())),
                )
            elif show is not None and show.data:
                self.turns.resume_show(show.data["floor_before"], show.data["floor_after"])
                self._show_prompt = show.event_id
                if laid is not None and laid["t_landed"] >= show.t:
                    # the card shown for it, not yet gone back
                    self.turns.resume_shown(
                        laid["card"], laid["t_landed"], laid["confidence"],
                        laid.get("card_confidence"),
                    )  # fmt: skip
            else:
                live = st.current_round.live_turns()
                if live and live[-1].shown and live[-1].card:
                    self.turns.resume_showing(live[-1].card, live[-1].floor_after)
                elif live and _trail_at_once(live[-1], st.floor):
                    last = live[-1]
                    self.turns.resume_trail(last.card, last.floor_before, last.floor_after)
        elif st.phase == "dealing":
            if st.rounds and st.rounds[-1].dealt:  # the floor was seen cleared for this deal
                self.turns.expect_deal(require_empty=False)
            else:
                self.turns.expect_deal(require_empty=bool(st.rounds), leftovers=self._leftovers())
            fix = next(
                (p for p in reversed(st.prompts) if p.open and p.kind == "misdeal_fix"), None
            )
            if fix is None:
                # each card on the floor lies there since the log's floor (dealt since): as
                # if seen landing (a dealt card read faintly, accepted live for its landing,
                # would be missed read afresh)
                self.tracker.resume({}, dealt=True)
            else:
                self._misdeal_prompt = fix.event_id
                # the deal's cards where the camera knew they lay (a faint one kept live for
                # its place's stillness is kept so: read afresh, it would be missed)
                dealt = set(fix.data.get("floor") or ())
                boxes = {c: b for c, b in (fix.data.get("boxes") or {}).items() if c in dealt}
                self.tracker.resume(boxes, fix.data.get("unread", ()), dealt=True)
                # (logs from before the forty-first session hold no floor and places: the
                # table waits for the fixed deal to lie still, `TurnTracker.replaced`)
                self.turns.resume_misdeal(
                    frozenset(fix.data.get("floor") or ()), frozenset(fix.data.get("cards") or ())
                )

    def _remember_read(self, e: Event) -> None:
        """Keep a doubtful turn's read (`reading` in its data) for `_take_back`, and whether
        it was read too faintly to accept."""
        self._readings[e.id] = _read_back(e.data["reading"])
        if e.data.get("faint"):
            self._faint_turns.add(e.id)

    def _restore_round(self, past: list[Event]) -> None:
        """A restarted table: cards read too faintly, or renamed from their first read, that
        trailed or were dealt this round and still lie on the floor are kept at their places
        under their names (the log holds where they lie), and this round's doubtful reads (of
        turns and of dealt cards) and the codes doubtful turns kept are remembered as the live
        table remembered them; the camera knows where the cards on the floor lie (`boxes`)."""
        rnd = self.state.current_round
        if self.state.phase != "playing" or rnd is None:
            return
        floor = set(self.state.floor)
        boxes: dict[str, list[float]] = {}  # where the camera last knew its cards lay
        unnamed: list[str] = []  # ... and which of them no read named then
        for e in past:
            d = e.data
            payload = d.get("payload") or {}
            if e.type == ev.REFEREE and d.get("target") == rnd.event_id and payload.get("was"):
                # a dealt card renamed (by the referee, or by the camera: the dealer's
                # replacement, with its read, or a runner-up a capture named)
                self._dealt_readings.pop(payload["was"], None)
                if payload.get("reading"):
                    self._dealt_readings[payload["card"]] = _read_back(payload["reading"])
            if d.get("round") != rnd.index:
                continue
            if e.type == ev.ROUND_STARTED:
                self._dealt_readings = {
                    c: _read_back(d.get("readings", {}).get(c, ())) for c in d["floor"]
                }
            if e.type in (ev.TURN, ev.FOUL, ev.CARD_LAID):
                self._kept.update(d.get("kept", ()))
            dealt = d.get("faint") if e.type == ev.ROUND_STARTED else None
            if dealt and dealt.get("card") in floor:
                share = float(dealt.get("share", 0.0))
                self.tracker.adopt(dealt["card"], dealt["box"], share, dealt.get("index"))
            if e.type in (ev.TURN, ev.FOUL) and d.get("box") and d.get("card") in floor:
                conf = float(d.get("confidence", 0.0))
                self.tracker.adopt(d["card"], d["box"], conf, d.get("index"))
            if e.type in _SEEN_WITH_BOXES and d.get("boxes"):
                boxes, unnamed = d["boxes"], d.get("unread", ())
            if e.type in (ev.TURN, ev.FOUL) and d.get("reading"):
                self._remember_read(e)  # this round's doubtful reads, as the live table kept
        laid = self.state.laid
        # (a card shown after a prompt is no card of the floor: it goes back to its owner)
        laid_card = laid["card"] if laid and not laid.get("shown") else None
        lying = floor | ({laid_card} if laid_card else set())
        self.tracker.resume({c: box for c, box in boxes.items() if c in lying}, unnamed, laid_card)
        self._resume_unseen(past)

    def _resume_unseen(self, past: list[Event]) -> None:
        """A restarted table: where the round's last play held with its card unknown took
        nothing (`_held_unseen`: a card laid that nobody saw or could name) and no card has
        left the floor since, the turns wait, as the live table did, for that card read where
        it lies (the log holds where, when a faint read told)."""
        held = self._held_unseen()
        if held is None or held.captured or self._show_prompt is not None:
            return
        live = self.state.current_round.live_turns()
        since = live[[tr.event_id for tr in live].index(held.event_id) + 1 :]
        if any(not set(tr.floor_before) <= set(tr.floor_after) for tr in since):
            return  # cards left: a card read later is no longer sure to be it
        box = next((e.data.get("box") for e in past if e.id == held.event_id), None)
        self.turns.resume_unseen(box)

    # ---- results ----------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        """The `score --json` shape plus `fouls` (DESIGN.md, `run --json`)."""
        out = self.state.score()
        out["fouls"] = [
            {"round": f["round"], "play": f["play"], "card": f["card"], "kind": f["kind"]}
            for f in self.state.fouls()
        ]
        return out


# the events that log where the camera's known cards lie (`boxes`)
_SEEN_WITH_BOXES = (ev.ROUND_STARTED, ev.TURN, ev.FOUL, ev.CARD_LAID)


def _logs_boxes(type_: str, data: dict[str, Any]) -> bool:
    """Whether an event logs `boxes`: those of `_SEEN_WITH_BOXES`, and a `misdeal_fix`
    prompt (the deal it asks to fix, for a table restarted before the fix)."""
    return type_ in _SEEN_WITH_BOXES or (type_ == ev.PROMPT and data.get("kind") == "misdeal_fix")


def _trail_at_once(tr: Any, floor: tuple[str, ...]) -> bool:
    """Whether the turn `tr` is a card read plainly and judged a trail as it landed, the
    floor it left still the floor (`TurnTracker.resume_trail`)."""
    return (
        tr.verdict == "trail" and tr.card is not None and not (tr.shown or tr.doubtful)
        and tr.status == OK and tr.decided_by is None and set(tr.floor_after) == set(floor)
    )  # fmt: skip


def _missed_reason(intent: MissedPlay, taken: str) -> str:
    """What the referee is told of a play held with its card unknown (`taken`: what it took)."""
    if intent.read_as:
        return (
            f"a card was laid that the camera could not name (read as {intent.read_as}, "
            "played earlier this round): name it"
        )
    if taken:
        return f"{taken} left the floor with a card the camera did not see: name it"
    return "a card was laid that the camera did not see: name it"


def _held(verdict: str, foul: str) -> dict:
    """Turn fields of a play held for the referee: nothing taken, nothing scored, pending."""
    return dict(
        verdict=verdict, foul=foul, takes=[], basra=False, basra_points=0, legal=[], status=PENDING
    )


def _has_runner_up(reading: tuple) -> bool:
    """Whether a read gives a code other than its likeliest a share a round's end may name it
    by (`elimination.MIN_SHARE`)."""
    return any(p >= MIN_SHARE for _c, p in reading[1:])


def _logged_reading(reading: tuple) -> list[list]:
    """A read as the log holds it: [[code, share], ...], likeliest first, to 3 decimals."""
    return [[c, round(float(p), 3)] for c, p in reading]


def _read_back(logged) -> tuple[tuple[str, float], ...]:
    """A read from the log ([[code, share], ...]) as the Table holds reads."""
    return tuple((c, float(p)) for c, p in logged)
