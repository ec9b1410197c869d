"""Referee verdicts for one observed turn at a physical table (RULES.md R7, R8.10).

`judge` compares the floor the camera saw before and after a play with the legal outcomes
and names a foul (missed or wrong capture) with the legal alternatives.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from engine.captures import (
    Play,
    basra_points,
    is_legal_take,
    is_sweeper,
    iter_takes,
)
from engine.cards import CardError, parse_card, parse_cards, sort_cards
from engine.rules import RuleSet

MAX_LEGAL_LISTED = 12  # alternatives listed in a verdict (R8.1 order)


class JudgeError(ValueError):
    """Impossible observation: a played card already on the floor, cards from nowhere."""


@dataclass(frozen=True)
class Verdict:
    """One turn's verdict: kind, foul (or None), what was taken, basra, legal alternatives."""

    verdict: str  # "capture" | "trail" | "sweep" | "foul"
    # None | missed_capture | wrong_capture | out_of_turn | duplicate_card | misdeal
    foul: str | None
    takes: tuple[str, ...]
    basra: bool
    basra_points: int
    legal: tuple[tuple[str, ...], ...]

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "foul": self.foul,
            "takes": list(self.takes),
            "basra": self.basra,
            "basra_points": self.basra_points,
            "legal": [list(t) for t in self.legal],
        }


def foul(kind: str, takes: Sequence[str] = (), legal: Sequence[Sequence[str]] = ()) -> Verdict:
    """A foul verdict (never scores a basra; R7)."""
    return Verdict("foul", kind, tuple(takes), False, 0, tuple(tuple(t) for t in legal))


def observed(
    floor_before: Sequence[str] | str, played: str, floor_after: Sequence[str] | str
) -> tuple[tuple[str, ...], str, tuple[str, ...], tuple[str, ...], bool]:
    """Parse an observed turn: (floor, card, after, removed, played card stayed).

    JudgeError for bad input (R8.10): the played card already on the floor, or cards that
    appear after the play from nowhere.
    """
    try:
        before = parse_cards(floor_before, "the floor before the play")
        card = parse_card(played)
        after = parse_cards(floor_after, "the floor after the play")
    except CardError as exc:
        raise JudgeError(str(exc)) from exc
    if card in before:
        raise JudgeError(f"the played card {card} was already on the floor")
    known = set(before) | {card}
    extra = [c for c in after if c not in known]
    if extra:
        raise JudgeError(
            f"cards on the floor after the play that were not there before: {' '.join(extra)}"
        )
    gone = set(after)
    removed = sort_cards(c for c in before if c not in gone)
    return before, card, after, removed, card in gone


def judge(
    rules: RuleSet,
    floor_before: Sequence[str] | str,
    played: str,
    floor_after: Sequence[str] | str,
    history: Sequence[Play] = (),
) -> Verdict:
    """The verdict for one observed turn (R7): capture, trail, sweep, or a foul.

    A played card left on the floor while it could capture is `missed_capture`; a removed set
    that is not a legal capture (including a played card that vanished with nothing taken,
    R8.10) is `wrong_capture`. The legal alternatives come in R8.1 order (at most 12).
    """
    before, card, _after, removed, stayed = observed(floor_before, played, floor_after)
    hist = tuple(history)

    def legal() -> tuple[tuple[str, ...], ...]:
        return tuple(itertools.islice(iter_takes(rules, before, card, _cap(rules)), _cap(rules)))

    if stayed:
        if removed:
            return foul("wrong_capture", removed, legal())
        alternatives = legal()
        if alternatives:
            return foul("missed_capture", (), alternatives)
        return Verdict("trail", None, (), False, 0, ())
    if not removed:  # R8.10: the played card vanished with nothing taken
        return foul("wrong_capture", (), legal())
    alternatives = legal()
    complete = len(alternatives) < _cap(rules) or (
        rules.max_plans is not None and rules.max_plans <= len(alternatives)
    )
    # a complete list holds every legal set (ERAM: every offered plan, R8.1): look it up
    ok = removed in alternatives if complete else is_legal_take(rules, before, card, removed)
    if not ok:
        return foul("wrong_capture", removed, alternatives)
    pts = basra_points(rules, before, card, removed, hist)
    kind = "sweep" if is_sweeper(rules, card) else "capture"
    return Verdict(kind, None, removed, pts > 0, pts, alternatives)


def _cap(rules: RuleSet) -> int:
    return min(MAX_LEGAL_LISTED, rules.max_plans or MAX_LEGAL_LISTED)
