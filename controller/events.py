"""Events: the append-only record of everything that happens at a table.

Every verdict, prompt, score change and referee decision is one `Event`; the store
persists them, the dashboard and scoreboard subscribe, and state is rebuilt by replay.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# Event types (see docs/CONTRACTS.md for the payload of each).
MATCH_STARTED = "match_started"
ROUND_STARTED = "round_started"
PROMPT = "prompt"
TURN = "turn"
FOUL = "foul"
REFEREE = "referee"
SCORE = "score"
ROUND_ENDED = "round_ended"
MATCH_ENDED = "match_ended"
CARD_LAID = "card_laid"  # a played card lies on the floor, its capture not yet seen

EVENT_TYPES = frozenset(
    {
        MATCH_STARTED,
        ROUND_STARTED,
        PROMPT,
        TURN,
        FOUL,
        REFEREE,
        SCORE,
        ROUND_ENDED,
        MATCH_ENDED,
        CARD_LAID,
    }
)


@dataclass(frozen=True)
class Event:
    """One thing that happened at a table; `id` increases strictly within a match."""

    id: int
    match_id: str
    type: str
    t: float
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> Event:
        return cls(
            id=int(obj["id"]),
            match_id=str(obj["match_id"]),
            type=str(obj["type"]),
            t=float(obj["t"]),
            data=dict(obj.get("data") or {}),
        )
