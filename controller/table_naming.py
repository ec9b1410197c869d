"""How the table names the cards the camera reads faintly, doubtfully or not at all.

One deck (R1.1), the rules (R2) and the round's shape (R8.7) decide: `CardNaming` is the part
of `Table` that answers the turn tracker's questions and corrects earlier reads by camera.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from controller import events as ev
from controller.elimination import camera_correction
from controller.referee_actions import try_decision
from controller.store import Conflict
from controller.table_state import UNREADABLE, TableState, held_guess, history_before
from controller.tracker import name_otherwise, same_place
from controller.turns import CardLaid, ObservedTurn, Snapshot
from engine.cards import FULL_DECK
from engine.match import PLAYS_PER_ROUND

# A card read too faintly to accept that stays as the next card comes is judged as a trail
# when its read gives its likeliest code still in play at least this share of the probability
# and this many times the runner-up's (held for the referee with that code as a guess when
# not; on the held-out deck the faint court cards that trailed read 0.61-0.66, runner-ups
# at most 0.2)
FAINT_TRAIL_SHARE = 0.5
FAINT_TRAIL_MARGIN = 3.0
# A card read this plainly (share of its read) as a code an earlier turn holds on a doubtful
# read takes the code back from it (`Table._take_back`)
TAKE_BACK_SHARE = 0.8


class CardNaming:
    """The `Table`'s naming of cards read faintly or doubtfully (a mixin: it uses the table's
    `state`, `rules`, `tracker`, `turns`, `_emit` and the reads it remembers this round)."""

    def _soft_gone(self) -> frozenset[str]:
        """Codes this round's turns hold only on a doubtful read that gave the code under
        TAKE_BACK_SHARE of its probability (its turn not decided by the referee), and that
        no other turn played: the card of that code may still come, read plainly. (A capture
        that took such a card keeps it soft: the code was still only that weak read's.)"""
        rnd = self.state.current_round
        if rnd is None:
            return frozenset()
        weak: set[str] = set()
        held: set[str] = set()
        for tr in rnd.live_turns():
            first = self._readings.get(tr.event_id)
            if (
                tr.card
                and first
                and tr.doubtful
                and self._undecided(tr)
                and dict(first).get(tr.card, 0.0) < TAKE_BACK_SHARE
            ):
                weak.add(tr.card)
            elif tr.card:
                held.add(tr.card)
        return frozenset(weak - held)

    def _capture_named(self, tr: Any) -> bool:
        """Whether the turn's card is only the camera's naming of it by the capture that took
        it (`_by_capture`: a guess among the codes that capture allows), not since decided
        otherwise."""
        return bool(tr.decided_by) and self._by_capture.get(tr.event_id) == tr.decided_by

    def _undecided(self, tr: Any) -> bool:
        """Whether no referee decided the turn (a capture's naming of it decides nothing)."""
        return not tr.decided_by or self._capture_named(tr)

    def _named_by_capture(self, code: str) -> bool:
        """Whether this round's one turn holding `code` holds it only as a capture named it."""
        holding = self._one_turn_holding(code)
        return holding is not None and self._capture_named(holding)

    def _one_turn_holding(self, code: str) -> Any | None:
        """This round's turn holding `code`, where exactly one does; else None."""
        rnd = self.state.current_round
        holding = [tr for tr in rnd.live_turns() if tr.card == code] if rnd is not None else []
        return holding[0] if len(holding) == 1 else None

    def _can_capture(self, floor: frozenset[str], card: str) -> bool:
        from engine.captures import plans

        try:
            return bool(
                plans(
                    self.rules, tuple(floor), card, tuple(self.state.match.history), limit=1
                ).plans
            )
        except ValueError:
            return True  # let the judge explain it

    def _explain(
        self, before: frozenset[str], after: frozenset[str], faint: dict[str, float]
    ) -> tuple[str, float] | None:
        """The card that took `before - after`, from a read too faint to accept (`faint`:
        code -> share of the read): the likeliest code still in play (one deck) whose play
        takes exactly those cards legally (R2), if the read gives it at least `alt_min_share`
        and at least half the share of its likeliest code still in play (a read that names
        another card more plainly leaves the turn to the referee: it may be a foul)."""
        m = self.state.match
        if m is None or not m.in_round:
            return None
        possible = self._in_play(faint, before | after)
        if not possible:
            return None
        top = possible[0][0]
        floor_before, floor_after = _sorted(before), _sorted(after)
        for share, code in possible:
            if share < max(self.tracker.config.alt_min_share, top / 2):
                break
            if self._legal(floor_before, code, floor_after, tuple(m.history)) is not None:
                return code, share
        return None

    def _legal(self, before: list[str], card: str, after: list[str], history):
        """The verdict on `card` taking `before` to `after`, when that play is legal (R2);
        None for a foul or a play the judge cannot read."""
        from engine.referee import JudgeError, judge

        try:
            v = judge(self.rules, before, card, after, history)
        except (JudgeError, ValueError):
            return None
        return None if v.verdict == "foul" else v

    def _runner_up(self, obs: ObservedTurn, before: list[str], after: list[str], history):
        """(code, verdict, floor_after) for a play judged a foul when its card was read doubtfully
        (under the tracker's `sure`) and a runner-up of the same read, still in play (one
        deck) and given at least `alt_min_share` and half the read's share for the code it
        named, takes exactly those cards legally (R2; a bellot 5 read as a J sweeping only
        part of the floor, or a J left lying where a 5 trails). None when no runner-up
        explains it: the foul stands for the referee (R7)."""
        card = obs.card
        if not obs.reading or card is None:
            return None
        conf = obs.card_confidence if obs.card_confidence is not None else obs.confidence
        if conf >= self.tracker.sure:
            return None
        lying = self.turns.on_floor() | set(self.tracker.cards)  # this view's cards (one deck)
        for code in self._runners(card, obs.reading, lying | set(before) | set(after)):
            seen = [code if c == card else c for c in after]  # a trail: it lies there
            v = self._legal(before, code, seen, history)
            if v is not None:
                return code, v, _sorted(seen)
        return None

    def _rename_lying(
        self, was: str, card: str, confidence: float, sure: bool = False, guess: bool = False
    ) -> None:
        """A card lying on the floor is `card`, not `was` (its turn's read was renamed): the
        turn tracker, the floor tracker and this view's later intents use the new name."""
        self.turns.rename(was, card, sure, guess)
        self.tracker.rename(was, card, confidence)
        self._renames[was] = card

    def _trail_that_can_take(self, intent: Any) -> Any:
        """The view's last card, judged by the turns a trail because nothing on the floor as
        first read could be taken, can take something now that an earlier card of the view
        was renamed (a 5 where a J was read): it is a card laid, its turn ends at the scoop."""
        if not (
            isinstance(intent, ObservedTurn)
            and intent.card is not None
            and not intent.shown
            and intent.floor_after == intent.floor_before | {intent.card}
            and self._can_capture(intent.floor_before, intent.card)
        ):
            return intent
        self.turns.resume_laid(
            intent.card,
            intent.floor_before,
            intent.floor_after,
            intent.t_landed,
            intent.confidence,
            intent.card_confidence,
            intent.reading,
        )
        return CardLaid(
            intent.card,
            intent.floor_before,
            intent.floor_after,
            intent.t,
            intent.t_landed,
            intent.confidence,
            intent.unsure,
            intent.card_confidence,
            intent.reading,
        )

    def _take_back(self, intent: Any, snap: Snapshot) -> Any:
        """A card of this view read plainly (at least TAKE_BACK_SHARE of its read) as a code an
        earlier turn of this round holds on a doubtful read, and so only guessed (one deck):
        the earlier read was the misread. Its turn is corrected by the camera to the runner-up
        of its own read that keeps it legal (any code of that read where the earlier play was
        judged a foul as read; R7; renamed where it lies), and this card takes
        the code (a foul as read that no runner-up makes legal: the likeliest that keeps it
        that foul). Nothing changes when no runner-up keeps the earlier turn legal. A card the
        tracker named by a code only a weak doubtful read holds (`_soft_gone`) takes it the
        same way when read plainly as it, from any code of the earlier read still in play;
        otherwise (read less plainly, or no code keeps the earlier turn legal) it is named as
        if the code were gone (`_not_own`): never a duplicate card."""
        card = getattr(intent, "card", None)
        rnd = self.state.current_round
        if not card or rnd is None or rnd.ended:
            return intent
        before = getattr(intent, "floor_before", self.turns.on_floor())
        own = card in self._soft and card not in before
        if not own and not getattr(intent, "unsure", False):
            return intent
        reading = snap.reading_of(card)
        if not reading:
            return intent
        code, plain = reading[0]
        taken = None
        if plain >= TAKE_BACK_SHARE and (code == card) == own:
            # a card read plainly as a soft code, or a guess whose plain read named a code
            taken = self._take_code(intent, snap, code, plain, own)
        elif own and getattr(intent, "unsure", False) and plain >= TAKE_BACK_SHARE:
            # a guess that fell on a soft code: its plain read's own code first
            taken = self._take_code(intent, snap, code, plain, False)
        elif own and code == card and self._named_by_capture(code):
            # a code a capture gave a trail, as a guess among the codes that capture allows:
            # any read naming it first takes it (the trail keeps an equal name)
            taken = self._take_code(intent, snap, code, plain, True)
        if taken is not None:
            return taken
        holding = self._one_turn_holding(card) if own else None
        if (
            holding is not None
            and held_guess(holding)
            and code == card
            and plain >= TAKE_BACK_SHARE
        ):
            # the earlier turn holds the code only as a guess of a play held for the referee
            # (R7 `unreadable`): it names no card, and this card, read plainly, is the code's
            return intent
        return self._not_own(intent, snap, card, reading) if own else intent

    def _take_code(
        self, intent: Any, snap: Snapshot, code: str, plain: float, own: bool
    ) -> Any | None:
        """`_take_back`'s correction: the earlier doubtful turn holding `code` is corrected by
        the camera to a code of its own read that keeps it legal (a foul as read, where no
        code does: its likeliest code that keeps it that foul), and the intent takes `code`
        (`own`: the intent's card is `code` already). None when nothing was corrected."""
        card = intent.card
        rnd = self.state.current_round
        earlier = next((tr for tr in reversed(rnd.live_turns()) if tr.card == code), None)
        first = self._readings.get(earlier.event_id) if earlier is not None else None
        if earlier is None or not first or not earlier.doubtful or not self._undecided(earlier):
            return None
        top = dict(first).get(code, first[0][1])
        if top >= plain and earlier.event_id not in self._faint_turns:
            return None  # (a read too faint to accept never outweighs a plain one)
        gone = self._gone_this_round()
        lying = self.turns.on_floor() | set(self.tracker.cards)
        # the earlier read's runner-ups: at least half its share for its code (and at least
        # `alt_min_share`); any still in play when the code itself is read plainly here (one
        # deck: the earlier card was not that code, whatever it was)
        # (so any code of its read when its play was judged a foul as read: the plain read
        # here says which of the two reads was wrong)
        foul = earlier.verdict == "foul"
        bar = 0.0 if own or foul else max(self.tracker.config.alt_min_share, top / 2)
        alts = list(first)
        captured = own and self._capture_named(earlier)
        if captured:
            # named by the capture that took it: any code in play that keeps that capture (and
            # every play since) legal, its read's first (the capture names the rank)
            alts += [(c, 0.0) for c in FULL_DECK if c not in dict(first)]
        same_foul = None
        for alt, share in alts:
            if alt in (code, card) or share < bar:
                continue
            if alt in gone or alt in lying:
                continue
            if captured:
                data = self._capture_correction(earlier.event_id, alt, snap.t)
                if data is None:
                    continue
                return self._took_code(intent, snap, data, code, alt, own, plain)
            tried = self._corrected(earlier.event_id, alt, snap.t)
            if tried is None:
                continue
            data, fixed = tried
            if not fixed.is_foul:
                return self._took_code(intent, snap, data, code, alt, own, plain)
            if foul and same_foul is None and (fixed.verdict, fixed.foul) == ("foul", earlier.foul):
                same_foul = data  # (the likeliest code that leaves it that foul)
        if same_foul is not None:
            # A foul as read, and as its runner-up: the play was that foul whatever its card,
            # and this plain read says which card it was not (one deck): its card is renamed,
            # the foul still held for the referee (a QH read QD 0.61, QH 0.32, took a QS and
            # a 9C; the QD came later read 0.97)
            alt = same_foul["payload"]["card"]
            return self._took_code(intent, snap, same_foul, code, alt, own, plain)
        return None

    def _took_code(
        self, intent: Any, snap: Snapshot, data: dict, code: str, alt: str, own: bool, plain: float
    ) -> Any:
        """`_take_code`'s correction `data` recorded (the earlier turn holding `code` named
        `alt`), and the intent holding `code`."""
        self._side_events.append(self._emit(ev.REFEREE, data, snap.t))
        if own:
            return replace(intent, unsure=False) if hasattr(intent, "unsure") else intent
        renames = {intent.card: code}
        if code in self.turns.on_floor():
            self._rename_lying(code, alt, 0.0)  # the misread card, where it lies
            renames[code] = alt
        return self._claim(intent, renames, snap.confidence_of(intent.card) or plain)

    def _not_own(self, intent: Any, snap: Snapshot, card: str, reading: tuple) -> Any:
        """A card named by a code only a weak doubtful read of an earlier turn holds, not read
        plainly as it or with no code of that read keeping the earlier turn legal: the
        earlier turn keeps the code (one deck), and this card is named as the tracker names a
        card whose code is gone (`tracker.name_otherwise`): its read's likeliest other code
        still in play, its confidence scaled by that code's share (a doubtful read), only a guess
        under `alt_min_share`. The code is no longer soft this round."""
        self._kept.add(card)
        self._kept_unlogged.add(card)
        out = self._gone_this_round() | {card} | self.turns.on_floor() | set(self.tracker.cards)
        conf = snap.confidence_of(card) or reading[0][1]
        named = name_otherwise(
            list(reading), lambda c: c not in out, conf, self.tracker.config.alt_min_share
        )
        if named is None:
            # no code of its read is still in play: the code kept, only as a guess (held, R7)
            self.turns.rename(card, card, guess=True)
            return replace(intent, unsure=True) if hasattr(intent, "unsure") else intent
        alt, sure_of, guess = named
        self._rename_lying(card, alt, sure_of, guess=guess)
        self.turns.rename(alt, alt, confidence=sure_of)
        changed = _renamed(intent, {card: alt})
        fields: dict[str, Any] = {}
        if guess and hasattr(changed, "unsure"):
            fields["unsure"] = True
        if hasattr(changed, "confidence"):
            fields["confidence"] = min(changed.confidence, sure_of)
        if hasattr(changed, "card_confidence"):
            fields["card_confidence"] = sure_of
        return replace(changed, **fields)

    def _camera_correction(
        self, target: int, card: str, t: float, was: str | None = None
    ) -> tuple[dict, TableState] | None:
        """The camera's `correct` of a turn to `card` (with `was`: of the deal's card `was`,
        `target` its `round_started`) and the state it would make, if the log takes it; None
        otherwise."""
        data = camera_correction(target, card, was)
        try:
            return data, try_decision(self.state, "correct", target, data["payload"], t)
        except Conflict:
            return None

    def _capture_correction(
        self, target: int, card: str, t: float, was: str | None = None
    ) -> dict | None:
        """The camera's `correct` of a trail a capture took to `card` (with `was`: of the
        deal's card `was`, `target` its `round_started`), marked as named by that capture,
        when the trail and every play since, judged again, stay legal; else None."""
        tried = self._camera_correction(target, card, t, was)
        if tried is None or _newly_held(self.state, tried[1], target):
            return None
        data = tried[0]
        return {**data, "payload": {**data["payload"], "capture": True}}

    def _corrected(self, target: int, card: str, t: float) -> tuple[dict, Any] | None:
        """The camera's `correct` of a turn to `card` and that turn as the log then judges it,
        if the log takes it; None otherwise."""
        tried = self._camera_correction(target, card, t)
        if tried is None:
            return None
        data, probe = tried
        return data, next(tr for tr in probe.turns() if tr.event_id == target)

    def _legal_correction(self, target: int, card: str, t: float) -> dict | None:
        """The camera's `correct` of a turn to `card`, if the log takes it and the turn is then
        legal (R2); None otherwise."""
        tried = self._corrected(target, card, t)
        return tried[0] if tried is not None and not tried[1].is_foul else None

    def _reread_lying(self, snap: Snapshot) -> Snapshot:
        """A card new in this view, read plainly (at least TAKE_BACK_SHARE of its read, more
        than the earlier read gave its own code), lies where a card of an earlier turn of the
        round lies, and is that turn's doubtful read's runner-up (a QH trailed and read TH
        0.52, QH 0.44, read QH 0.87 where it lay when a card was laid on it): the earlier read
        was the misread. The camera corrects the turn (legal, R2), the card is renamed where it
        lies, and the view holds it once, under its code."""
        rnd = self.state.current_round
        if rnd is None or rnd.ended or self.state.phase != "playing":
            return snap
        lying = self.turns.on_floor()
        for code in sorted(snap.floor - lying):
            box, read_now = self.tracker.cards.get(code), snap.reading_of(code)
            if box is None or not read_now or read_now[0][0] != code:
                continue
            if read_now[0][1] < TAKE_BACK_SHARE:
                continue  # not a plain read of it
            for tr in reversed(rnd.live_turns()):
                read = dict(self._readings.get(tr.event_id, ()))
                was = tr.card
                if not was or was not in lying or tr.decided_by:
                    continue
                lies = self.tracker.cards.get(was) or self._boxes.get(was)  # (read over)
                if lies is None or not same_place(box, lies):
                    continue
                if read.get(code, 0.0) < self.tracker.config.alt_min_share:
                    break  # not a runner-up of that card's read: another card (laid on it)
                if read.get(was, 1.0) >= read_now[0][1]:
                    break  # the earlier read was as plain as this one
                data = self._legal_correction(tr.event_id, code, snap.t)
                if data is None:
                    break
                self._side_events.append(self._emit(ev.REFEREE, data, snap.t))
                self._rename_lying(was, code, snap.confidence_of(code) or 0.0, sure=True)
                return replace(snap, floor=snap.floor - {was})
        return snap

    def _claim(self, intent: Any, renames: dict[str, str], conf: float) -> Any:
        """The intent's guessed card takes the code it was plainly read as (`renames` maps
        its guess to that code, and any card renamed for it): no longer a guess."""
        card = intent.card
        self._rename_lying(card, renames[card], conf, sure=True)
        changed = _renamed(intent, renames)
        fields: dict[str, Any] = {"unsure": False}
        if hasattr(changed, "card_confidence"):
            fields["card_confidence"] = conf
        return replace(changed, **fields)

    def _claim_freed(self, intent: Any, snap: Snapshot) -> Any:
        """A card of this view read only as a guess because its plain read named a code that
        an earlier turn of the same view has just renamed away (one deck: the code was held
        by a misread card): it is that code after all (a bellot 5H read as JH lay there when
        the real JH came)."""
        card = getattr(intent, "card", None)
        if not card or not getattr(intent, "unsure", False):
            return intent
        reading = snap.reading_of(card)
        freed = set(self._renames) - set(self._renames.values())
        if not reading or reading[0][0] not in freed:
            return intent
        return self._claim(intent, {card: reading[0][0]}, snap.confidence_of(card) or 0.0)

    def _doubtful_lying(self, floor: Iterable[str]) -> list[tuple[Any, tuple]]:
        """(turn, read) of this round's trails whose cards lie on `floor` under a code only a
        doubtful read gave them (read too faintly to accept, or less than the tracker's
        `sure`), not decided by the referee: their codes may be wrong."""
        rnd = self.state.current_round
        cards = set(floor)
        if rnd is None:
            return []
        return [
            (tr, self._readings[tr.event_id])
            for tr in rnd.live_turns()
            if tr.card in cards and tr.event_id in self._readings and not tr.decided_by
        ]

    def _other_names(
        self, lying: Iterable[str], played: str, out: Iterable[str]
    ) -> Iterator[tuple[Any, str]]:
        """(turn, code) for each card of `lying` on a doubtful trail's read (`_doubtful_lying`)
        and each other code of that read given at least `alt_min_share`, still in play (R1.1),
        not `played` and not among `out` (the cards seen), likeliest first. A card read plainly
        enough to accept (not too faintly) keeps its code against a runner-up under half the
        read's share for it, as `_runner_up` does: an 8D read 8D 0.83, TD 0.10 and taken by a
        TC was a foul (R2.2), never a TD."""
        gone = self._gone_this_round()
        skip = gone | set(out) | {played}
        least = self.tracker.config.alt_min_share
        for tr, read in self._doubtful_lying(lying):
            bar = least
            if tr.event_id not in self._faint_turns:
                bar = self._runner_bar(tr.card, read)
            for code, share in read:
                if share < least:
                    break
                if code == tr.card or code in skip:
                    continue
                if share >= bar or self._contested(tr, code):
                    yield tr, code

    def _contested(self, tr: Any, code: str) -> bool:
        """Whether a foul of this round still pending, played while `tr`'s card lay on the
        floor, is legal with that card named `code` instead: a second witness against its
        read, which then yields to a runner-up under `_runner_bar` (a QH trailed and read KD
        0.71, QD 0.20: the KC laid beside it was no missed capture, R2.1, and the QC laid next
        takes it)."""
        rnd = self.state.current_round
        live = rnd.live_turns() if rnd is not None else []
        since = [t for t in live if t.event_id > tr.event_id]
        for later in since:
            if tr.card not in later.floor_before:
                return False  # it left the floor: later plays never saw it
            if later.verdict != "foul" or later.decided_by or later.card is None:
                continue
            before = [code if c == tr.card else c for c in later.floor_before]
            after = [code if c == tr.card else c for c in later.floor_after]
            history = history_before(self.state, rnd, later)
            if self._legal(_sorted(before), later.card, _sorted(after), history) is not None:
                return True
        return False

    def _could_take(self, floor: frozenset[str], card: str) -> bool:
        """Whether `card`, which takes nothing from `floor` as read, takes something if a card
        lying there on a doubtful read (`_doubtful_lying`) is another code of that read
        (`_other_names`): a QH trailed and read KC 0.56, QS 0.14, and a QC laid next. Its turn
        then waits for the scoop (or the next card: a trail). Never for the round's last play
        (the floor is gathered after it, R3.5)."""
        if self._last_play():
            return False
        return any(
            self._can_capture((floor - {tr.card}) | {code}, card)
            for tr, code in self._other_names(floor, card, floor)
        )

    def _runner_takes(
        self,
        floor: frozenset[str],
        card: str,
        reading: tuple[tuple[str, float], ...],
        card_conf: float,
    ) -> bool:
        """Whether `card`, laid on `floor` and taking nothing there as read, was read
        doubtfully (under the tracker's `sure`) and a runner-up of its read that
        `_runner_up` could rename it to (at least `alt_min_share` and half the read's share
        for `card`, still in play, lying nowhere) takes something there: a 6C read TC 0.50,
        6C 0.41 laid on AH 5C. Its turn then waits for the scoop (or the next card: a
        trail). Never for the round's last play (the floor is gathered after it, R3.5)."""
        if not reading or card_conf >= self.tracker.sure or self._last_play():
            return False
        runners = self._runners(card, reading, set(floor) | set(self.tracker.cards))
        return any(self._can_capture(floor, code) for code in runners)

    def _runner_bar(self, card: str, reading: tuple) -> float:
        """The least share a runner-up of `card`'s read needs to name it: `alt_min_share`, and
        half the read's share for `card` (a read that names it plainly keeps it)."""
        top = dict(reading).get(card, reading[0][1] if reading else 0.0)
        return max(self.tracker.config.alt_min_share, top / 2)

    def _runners(self, card: str, reading: tuple, lying: Iterable[str]) -> Iterator[str]:
        """The codes of `card`'s read that may name it instead, likeliest first: given at
        least `_runner_bar`, still in play (one deck, R1.1) and not among `lying`."""
        bar, skip = self._runner_bar(card, reading), self._gone_this_round() | set(lying)
        for code, share in reading:
            if code != card and share >= bar and code not in skip:
                yield code

    def _doubtful_taken(
        self, obs: ObservedTurn, before: list[str], after: list[str], history
    ) -> tuple[dict, list[str]] | None:
        """A capture judged a foul because a card it took lies on a doubtful read
        (`_doubtful_lying`): the camera's `correct` of that card's trail to the likeliest other
        code of its read (`_other_names`) whose trail was legal, that leaves every later play
        legal, and that the card played takes legally with the rest (R2), and the floor before
        the capture under that name. The card played must be read plainly (not a guess). None
        when no code of the read does it: the foul stands (R7; a code the read never gave
        would explain away any foul that took that card)."""
        if obs.card is None or obs.unsure or obs.shown:
            return None
        taken = set(before) - set(after)
        for tr, code in self._other_names(taken, obs.card, [*before, *after]):
            moved = _sorted(code if c == tr.card else c for c in before)
            if self._legal(moved, obs.card, after, history) is None:
                continue
            data = self._capture_correction(tr.event_id, code, obs.t)
            if data is not None:
                return data, moved
        rnd = self.state.current_round
        for card, code in self._dealt_others(taken, obs.card, [*before, *after]):
            moved = _sorted(code if c == card else c for c in before)
            if self._legal(moved, obs.card, after, history) is None:
                continue
            data = self._capture_correction(rnd.event_id, code, obs.t, was=card)
            if data is not None:
                return data, moved
        return None

    def _dealt_others(
        self, lying: Iterable[str], played: str, out: Iterable[str]
    ) -> Iterator[tuple[str, str]]:
        """(card, code) for each card of `lying` dealt this round on a doubtful read (the
        deal's reads with a runner-up, a card read too faintly among them) and each other code
        of that read that may name it (`_runners`: at least half the read's share for the
        card), not `played` and not among `out` (the cards seen), likeliest first."""
        rnd = self.state.current_round
        if rnd is None or rnd.ended:
            return
        dealt = set(rnd.floor) & set(lying)
        for card in sorted(dealt):
            read = self._dealt_readings.get(card, ())
            for code in self._runners(card, read, {played, *out}):
                yield card, code

    def _dealt_taken(self, trail: Any, intent: Any) -> list[dict]:
        """The camera's `correct`s (data) for a card judged a trail and lifted by its own
        player with dealt cards its read cannot take (`TrailScooped`), where one of them was
        dealt on a doubtful read whose runner-up it takes legally with the rest (a 6C dealt
        and read faintly TC 0.54, 6C 0.46, taken by a 6D): that dealt card named so, and the
        trail made that capture, leaving every play of the round as legal as it was (R2).
        Empty where no runner-up does."""
        rnd = self.state.current_round
        taken = intent.floor_before - intent.floor_after
        seen = intent.floor_before | intent.floor_after
        for card, code in self._dealt_others(taken, intent.read_as, seen):
            named = self._camera_correction(rnd.event_id, code, intent.t, was=card)
            if named is None:
                continue
            took = camera_correction(trail.event_id, intent.read_as)
            took["payload"]["floor_after"] = _sorted(intent.floor_after)
            try:
                probe = try_decision(named[1], "correct", trail.event_id, took["payload"], intent.t)
            except Conflict:
                continue
            if not _newly_held(self.state, probe, rnd.event_id):
                named[0]["payload"]["capture"] = True
                return [named[0], took]
        return []

    def _in_play(self, faint: dict[str, float], lying: frozenset[str]) -> list[tuple[float, str]]:
        """(share, code) of a faint read's codes still in play (one deck: not played or
        taken this round, not among `lying`), likeliest first."""
        gone = self._gone_this_round()
        return sorted(
            ((share, code) for code, share in faint.items() if code not in gone | lying),
            reverse=True,
        )

    def _nameable(self, faint: dict[str, float], lying: frozenset[str]) -> list[tuple[float, str]]:
        """`_in_play`, where its likeliest code has at least `alt_min_share` of the read (enough
        to name a card by); empty otherwise."""
        possible = self._in_play(faint, lying)
        if not possible or possible[0][0] < self.tracker.config.alt_min_share:
            return []
        return possible

    def _one_play(self, before: frozenset[str], after: frozenset[str]) -> bool:
        """Whether one card still in play (one deck) takes exactly `before - after`, legally."""
        anything = {code: 1.0 for code in FULL_DECK}
        return self._explain(before, after, anything) is not None

    def _last_play(self) -> bool:
        """Whether the next play is the round's last (R8.7: 48 plays a round)."""
        m = self.state.match
        return m is not None and m.in_round and m.plays_in_round == PLAYS_PER_ROUND - 1

    def _trail_of(
        self,
        floor: frozenset[str],
        faint: dict[str, float],
        added: frozenset[str],
        box: tuple[float, ...],
    ) -> tuple[str, float, bool] | None:
        """The card read too faintly that stayed on `floor` while the next card came: the
        likeliest code still in play (one deck), with its share, and whether the read is
        plain enough to judge it (at least FAINT_TRAIL_SHARE of the read and FAINT_TRAIL_MARGIN
        times its runner-up in play, and a legal trail there, R2.7); otherwise its turn is
        held for the referee with that code as a guess (R7). None when no code is left."""
        m = self.state.match
        if m is None or not m.in_round:
            return None
        if self._lies_at(added, box):
            return None  # the card that came lies where the faint one was: it is that card
        possible = self._nameable(faint, floor | added)
        if not possible:
            return None
        share, code = possible[0]
        return code, share, _plain(possible) and not self._can_capture(floor, code)

    def _lies_at(self, codes: frozenset[str], box: tuple[float, ...]) -> bool:
        """Whether one of the cards `codes` lies, as the tracker knows it, where `box` is."""
        cards = self.tracker.cards
        return any(same_place(cards[c], box) for c in codes if c in cards)

    def _misread(
        self,
        floor: frozenset[str],
        faint: dict[str, float],
        added: frozenset[str],
        box: tuple[float, ...],
    ) -> bool:
        """Whether the card read too faintly at `box`, lying there as the next cards (`added`)
        came and none of them where it lies, was read as a card played earlier this round
        and gone from the floor (its likeliest code, with at least FAINT_TRAIL_SHARE of the
        read) and as no code still in play (none with `alt_min_share`): one deck (R1.1), so
        its read is wrong and names no card."""
        m = self.state.match
        if m is None or not m.in_round or not faint or self._lies_at(added, box):
            return False
        top = max(faint, key=faint.__getitem__)
        if faint[top] < FAINT_TRAIL_SHARE or top not in self._gone_this_round() - floor - added:
            return False
        return not self._nameable(faint, floor | added)

    def _plain_of(self, lying: frozenset[str], faint: dict[str, float]) -> tuple[str, float] | None:
        """The card read too faintly (`faint`) named plainly enough to judge its play: the
        likeliest code still in play (one deck; `lying`: on the floor) when it has at least
        FAINT_TRAIL_SHARE of the read and FAINT_TRAIL_MARGIN times its runner-up in play."""
        m = self.state.match
        if m is None or not m.in_round:
            return None
        possible = self._in_play(faint, lying)
        if not possible or not _plain(possible):
            return None
        share, code = possible[0]
        return code, share

    def _deal_faint(
        self,
        floor: frozenset[str],
        faint: dict[str, float],
        added: frozenset[str],
        box: tuple[float, ...],
    ) -> tuple[str, float] | None:
        """The 4th dealt card, read too faintly at `box` beside the 3 dealt cards read plainly
        (`floor`) when the first play (`added`) came: the likeliest code its read gives (a new
        deal: every code but those lying is in play), with its share; None when a card read
        plainly lies where the faint one was (it is that card) or the read gives no code at
        least FAINT_TRAIL_SHARE (too faint to count a card there)."""
        lying = floor | added
        if self._lies_at(lying, box):
            return None
        possible = sorted(((p, c) for c, p in faint.items() if c not in lying), reverse=True)
        if not possible or possible[0][0] < FAINT_TRAIL_SHARE:
            return None
        share, code = possible[0]
        return code, share

    def _foul_as_seen(
        self, before: frozenset[str], card: str, after: frozenset[str]
    ) -> tuple[list[str], tuple] | None:
        """The floor before (sorted) and the round's history when `card` taking `before` to
        `after` is not a legal play of the round in progress; None when it is (or no round)."""
        m = self.state.match
        if m is None or not m.in_round:
            return None
        history = tuple(m.history)
        floor_before = _sorted(before)
        if self._legal(floor_before, card, _sorted(after), history) is not None:
            return None
        return floor_before, history

    def _still_lying(
        self,
        before: frozenset[str],
        card: str,
        after: frozenset[str],
        faint: dict[str, float],
        box: tuple[float, ...],
    ) -> frozenset[str]:
        """Cards that seemed taken by `card` (from `before` to `after`) but lie on: read
        faintly at `box`, where the card lay in the last view (a hand's shadow or a nudge
        made its read faint), named by that read with at least `alt_min_share`, when the
        capture that took it is a foul and the capture without it is legal (R2: a 2 takes
        the 2, never the Q beside it). The tracker keeps it there. Nothing otherwise: a foul
        the read cannot explain stays for the referee (R7)."""
        seen = self._foul_as_seen(before, card, after)
        if seen is None:
            return frozenset()
        floor_before, history = seen
        bar = self.tracker.config.alt_min_share
        for code in sorted(before - after - {card}):
            lay = self._boxes.get(code)
            if faint.get(code, 0.0) < bar or lay is None or not same_place(lay, box):
                continue
            if self._legal(floor_before, card, _sorted(after | {code}), history) is not None:
                self.tracker.adopt(code, lay, self.tracker.reference)
                return frozenset({code})
        return frozenset()

    def _still_gone(
        self,
        before: frozenset[str],
        card: str,
        after: frozenset[str],
        unread: frozenset[str],
    ) -> frozenset[str]:
        """Cards the tracker kept on the floor though no read named them (`unread`: their
        place changed, but less than a lifted card's does - a white card lifted off a white
        table) that `card` took after all: the capture that left them is a foul, the one that
        took them all (or one of them) is legal (a J sweeps the whole floor, R2.4). The
        tracker forgets them. Nothing otherwise: a card read where it lies is never taken."""
        seen = self._foul_as_seen(before, card, after)
        if seen is None:
            return frozenset()
        floor_before, history = seen
        for gone in [unread, *(frozenset({c}) for c in sorted(unread))]:
            if self._legal(floor_before, card, _sorted(after - gone), history) is not None:
                for code in gone:
                    self.tracker.forget(code)
                return gone
        return frozenset()

    def _bad_initial(self, card: str) -> bool:
        """R1.3: a J on the initial floor, or the 7D unless the variant keeps it (Lebanese)."""
        return card[0] == "J" or (card == "7D" and self.rules.floor_returns_7d)

    # ---- results ----------------------------------------------------------------------------


def _newly_held(now: TableState, probe: TableState, since: int) -> bool:
    """Whether a turn of the round from event `since` on is a foul (or held) in `probe`, judged
    again on its floors there (a renamed card lies in them), but not in `now`."""
    from engine.referee import JudgeError, judge

    bad = ("foul", UNREADABLE)
    was = {tr.event_id: tr.verdict for tr in now.turns()}
    rnd = probe.current_round
    for tr in rnd.live_turns() if rnd is not None else []:
        if tr.event_id < since or was.get(tr.event_id) in bad:
            continue
        if tr.verdict in bad:
            return True
        if tr.card is None or tr.event_id == since:
            continue
        try:
            v = judge(
                probe.rules, tr.floor_before, tr.card, tr.floor_after,
                history_before(probe, rnd, tr),
            )  # fmt: skip
        except (JudgeError, ValueError):
            return True
        if v.verdict == "foul":
            return True
    return False


def _sorted(cards: Iterable[str]) -> list[str]:
    from engine.cards import sort_cards

    return list(sort_cards(cards))


def _renamed(intent: Any, renames: dict[str, str]) -> Any:
    """An intent with the cards renamed earlier in the same view renamed in it too."""
    from dataclasses import fields, is_dataclass

    if not is_dataclass(intent):
        return intent
    changes: dict[str, Any] = {}
    for f in fields(intent):
        value = getattr(intent, f.name)
        if isinstance(value, frozenset) and value & renames.keys():
            changes[f.name] = frozenset(renames.get(c, c) for c in value)
        elif f.name == "card" and value in renames:
            changes[f.name] = renames[value]
    return replace(intent, **changes) if changes else intent


def _rounded(box) -> list[float]:
    """A box as the log keeps it (pixels, one decimal)."""
    return [round(float(v), 1) for v in box]


def _plain(possible: list[tuple[float, str]]) -> bool:
    """Whether a faint read's likeliest code in play (`possible`: (share, code), likeliest
    first) is plain: at least FAINT_TRAIL_SHARE, and FAINT_TRAIL_MARGIN times its runner-up."""
    share = possible[0][0]
    runner = possible[1][0] if len(possible) > 1 else 0.0
    return share >= FAINT_TRAIL_SHARE and share >= FAINT_TRAIL_MARGIN * runner
