"""Pydantic request and response models of the referee API (what /docs shows).

Plain shapes only: the app in controller/api.py fills them from the store and the replayed state.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Variant = Literal["classic", "egyptian", "lebanese", "yemeni", "jordanian", "eram"]


class ErrorOut(BaseModel):
    error: str = Field(description="One line naming what was wrong")


class CreateMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    variant: Variant = "classic"
    players: Literal[2, 3, 4] = 2
    seat_names: list[str] | None = Field(
        default=None, description="One name per seat in turn order (default 'Seat 0' …)"
    )
    dealer: int = Field(default=0, ge=0, le=3, description="The first round's dealer (seat)")
    table_id: str = Field(default="table-1", min_length=1, max_length=64)


class MatchOut(BaseModel):
    id: str
    table_id: str
    variant: str
    players: int
    dealer: int
    seat_names: list[str]
    created: float
    status: Literal["live", "finished"]
    last_event_id: int


class EventOut(BaseModel):
    id: int
    match_id: str
    type: str
    t: float
    data: dict[str, Any]


class StateOut(BaseModel):
    """The match state rebuilt from its event log (never stored)."""

    match: MatchOut
    last_event_id: int
    summary: dict[str, Any] = Field(description="What the dashboard shows: scores, turn, …")
    table_state: dict[str, Any] = Field(description="controller.table_state.TableState as JSON")


class Target(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: int = Field(ge=1, description="The id of the event the decision is about")


class Correction(Target):
    card: str = Field(min_length=2, max_length=3, description="The card actually played, '9D'")
    was: str | None = Field(
        default=None,
        min_length=2,
        max_length=3,
        description="With a round's round_started event as target: the dealt card misread",
    )


class RefereeOut(BaseModel):
    event: EventOut
    state: StateOut


class CalibrationOut(BaseModel):
    table_id: str
    name: str
    calibration: dict[str, Any] | None
    updated: float


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    db: str
    matches: int
    live: bool = Field(description="Whether a controller runs in this process")
    scoreboard: dict[str, Any] | None = None
