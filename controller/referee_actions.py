"""The referee's decisions as log entries: which event each one may target, checked up front.

A decision is a `referee` event {action, target, payload}. `plan_decision` names what is wrong
with a decision (missing event, wrong kind, already settled) before anything is written, and
`try_decision` folds it into a copy of the replayed state to prove the replay accepts it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.errors import UserError
from controller.events import REFEREE, Event
from controller.store import Conflict, NotFound
from controller.table_state import OK, PENDING, UNDONE, RoundLog, TableState

# (match_id, action, target, payload) -> the appended referee event
RefereeSink = Callable[[str, str, "int | None", dict[str, Any]], Event]

ACTIONS = ("confirm", "correct", "accept_foul", "reject_foul", "undo", "end_round")


def plan_decision(
    state: TableState, action: str, target: int | None, payload: dict[str, Any]
) -> tuple[int | None, dict[str, Any]]:
    """Check a decision against the replayed state; returns (target, payload) to record.

    Raises NotFound (no such turn or prompt), UserError (bad card, wrong kind) or Conflict
    (already settled, nothing to undo); nothing is written in any case.
    """
    if action not in ACTIONS:
        raise UserError(f"unknown referee action {action!r} (one of: {', '.join(ACTIONS)})")
    if action == "undo":
        rnd = state.current_round
        live = rnd.live_turns() if rnd is not None and not rnd.ended else []
        if not live:
            raise Conflict("nothing to undo: no turn played yet in the current round")
        return live[-1].event_id, {}
    if action == "end_round":
        rnd = state.current_round
        if rnd is None or rnd.ended or state.phase != "playing":
            raise Conflict("no round in progress to end")
        return None, {}
    assert target is not None
    dealt = next((rnd for rnd in state.rounds if rnd.event_id == target), None)
    if dealt is not None:
        return target, _deal_correction(dealt, action, payload)
    turn = next((tr for tr in state.turns() if tr.event_id == target), None)
    if payload.get("was") is not None and turn is not None:
        raise UserError(f"event {target} is no round's deal: `was` names a dealt card")
    prompt = next((p for p in state.prompts if p.event_id == target), None)
    if turn is None and prompt is None:
        raise NotFound(f"no turn or prompt with event id {target} in this match")
    payload = dict(payload)
    if prompt is not None:
        if action != "confirm":
            raise UserError(f"event {target} is a {prompt.kind} prompt: it can only be confirmed")
        if not prompt.open:
            raise Conflict(f"prompt {target} is already closed")
        return target, payload
    assert turn is not None
    if turn.status == UNDONE:
        raise Conflict(f"turn {target} was undone")
    if action in ("accept_foul", "reject_foul"):
        if not turn.is_foul:
            raise UserError(f"turn {target} is a legal {turn.verdict}, not a foul")
        if turn.status != PENDING:
            raise Conflict(f"foul {target} was already decided ({turn.status})")
    elif action == "confirm":
        doubtful = turn.doubtful and turn.decided_by is None and turn.status == OK
        if turn.status != PENDING and not doubtful:
            raise Conflict(f"turn {target} is not awaiting a decision ({turn.status})")
    elif action == "correct":
        from engine.cards import CardError, parse_card

        try:
            payload["card"] = parse_card(str(payload.get("card", "")))
        except CardError as exc:
            raise UserError(f"card: {exc}") from None
        if payload["card"] == turn.card:
            raise UserError(f"turn {target} already reads {payload['card']}: use confirm")
    return target, payload


def _deal_correction(rnd: RoundLog, action: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The payload of a `correct` of a round's deal: the dealt card misread and the card."""
    from engine.cards import CardError, parse_card

    if action != "correct":
        raise UserError(
            f"event {rnd.event_id} is round {rnd.index + 1}'s deal: it can only be corrected"
        )
    if payload.get("was") is None:
        raise UserError(
            f"event {rnd.event_id} is round {rnd.index + 1}'s deal: name the dealt card misread (was)"
        )
    try:
        was, card = parse_card(str(payload["was"])), parse_card(str(payload.get("card", "")))
    except CardError as exc:
        raise UserError(f"card: {exc}") from None
    if was not in rnd.floor:
        raise UserError(f"round {rnd.index + 1} was dealt {' '.join(rnd.floor)}, not {was}")
    if card == was:
        raise UserError(f"round {rnd.index + 1} was already dealt {was}: nothing to correct")
    return {"was": was, "card": card}


def try_decision(
    state: TableState, action: str, target: int | None, payload: dict[str, Any], t: float
) -> TableState:
    """Fold the decision into a copy of the state; Conflict if the replay cannot apply it."""
    trial = state.copy()
    before = len(trial.errors)
    event = Event(
        id=state.last_event_id + 1,
        match_id=state.match_id,
        type=REFEREE,
        t=t,
        data={"action": action, "target": target, "payload": payload},
    )
    try:
        trial.apply(event)
    except ValueError as exc:
        raise Conflict(f"{action} of event {target} cannot be applied: {exc}") from None
    if len(trial.errors) > before:
        raise Conflict(f"{action} of event {target} cannot be applied: {trial.errors[-1]}")
    return trial
