"""Round scoring and match decisions: most cards with carry, point cards, basras, winners.

Pure functions of per-side tallies (RULES.md R4, R5, V2, V3, V6, R8.8, R8.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.rules import RuleSet

DECK_SIZE = 52


@dataclass(frozen=True)
class RoundScore:
    """One round's score per side (lists indexed by side) and the carry left after it."""

    cards: list[int]
    most_cards: list[int]
    point_cards: list[int]
    basras: list[int]
    basra_points: list[int]
    score: list[int]
    pending: int
    leftover_side: int | None = None  # who took the cards left on the floor (R3.5)

    def to_dict(self) -> dict:
        return {
            "cards": list(self.cards),
            "most_cards": list(self.most_cards),
            "point_cards": list(self.point_cards),
            "basras": list(self.basras),
            "basra_points": list(self.basra_points),
            "score": list(self.score),
            "pending": self.pending,
        }


def score_round(
    rules: RuleSet,
    captured: Sequence[Sequence[str]],
    basras: Sequence[int],
    basra_pts: Sequence[int],
    pending: int,
    leftover_side: int | None = None,
    unseen: Sequence[int] | None = None,
) -> RoundScore:
    """Score a finished round from each side's captured cards and basras (R4, V2, V3, V6);
    `unseen`: cards of unknown code in each side's pile (a card the camera never saw took
    cards, R7), counted for most cards and worth no points."""
    cards = [len(c) + (unseen[i] if unseen else 0) for i, c in enumerate(captured)]
    points = [sum(rules.card_points(c) for c in pile) for pile in captured]
    return score_tallies(rules, cards, points, basras, basra_pts, pending, leftover_side)


def score_tallies(
    rules: RuleSet,
    cards: Sequence[int],
    points: Sequence[int],
    basras: Sequence[int],
    basra_pts: Sequence[int],
    pending: int,
    leftover_side: int | None = None,
) -> RoundScore:
    """Score a round from per-side tallies: cards held, point-card points, basras (R4)."""
    sides = len(cards)
    cards = list(cards)
    most = [0] * sides
    top = max(cards)
    leaders = [i for i, n in enumerate(cards) if n == top]
    # R4.1: 27+ of 52 with two sides; R8.8: strictly the most with three players
    if len(leaders) == 1 and (sides != 2 or 2 * top > DECK_SIZE):
        most[leaders[0]] = rules.most_cards_points + pending
        pending = 0
    elif len(leaders) > 1 and (sides != 2 or 2 * top == DECK_SIZE) and rules.most_cards_carry:
        pending += rules.most_cards_points  # R4.2 / V6: a 26-26 tie carries (V3: nothing)
    score = [most[i] + points[i] + basra_pts[i] for i in range(sides)]
    return RoundScore(
        cards, most, list(points), list(basras), list(basra_pts), score, pending, leftover_side
    )


def decide(rules: RuleSet, totals: Sequence[int], rounds_played: int) -> tuple[bool, int | None]:
    """(finished, winner side or None for a draw) after a round (R5.1, R5.2, V6, R8.8, R8.9)."""
    top = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == top]
    if top >= rules.target and len(leaders) == 1:
        return True, leaders[0]
    if rules.round_cap is not None and rounds_played >= rules.round_cap:
        return True, leaders[0] if len(leaders) == 1 else None
    return False, None
