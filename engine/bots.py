"""Simple computer players: a random bot and a greedy one that a beginner can learn against.

Each returns the card to play and the take set chosen (None: the first plan, R8.1).
"""

from __future__ import annotations

import random

from engine.match import Match


def random_move(m: Match, rng: random.Random) -> tuple[str, tuple[str, ...] | None]:
    """A random card from hand; among several plans a random one."""
    hand = m.hands[m.to_play] if m.hands is not None else []
    card = hand[rng.randrange(len(hand))]
    outcome = m.legal(card)
    if len(outcome.plans) > 1:
        return card, rng.choice(outcome.plans).takes
    return card, None


def greedy_move(m: Match) -> tuple[str, tuple[str, ...] | None]:
    """The capture worth most (basra, point cards, cards taken); otherwise trail the card
    that gives least away (no points, low value, never a J or a sweeping 7D)."""
    rules = m.rules
    hand = m.hands[m.to_play] if m.hands is not None else []
    best: tuple[float, str, tuple[str, ...] | None] | None = None
    for card in hand:
        outcome = m.legal(card)
        for plan in outcome.plans:
            taken = (*plan.takes, card)
            worth = (
                plan.basra_points * 2
                + sum(rules.card_points(c) for c in taken) * 3
                + len(taken)
                - (4 if outcome.kind == "sweep" and len(plan.takes) < 3 else 0)
            )
            if best is None or worth > best[0]:
                best = (worth, card, plan.takes)
    if best is not None and best[0] > 0:
        return best[1], best[2]
    trails = [c for c in hand if not m.legal(c).plans] or list(hand)

    def giveaway(c: str) -> tuple[int, int, int]:
        sweeper = c[0] == "J" or (c == "7D" and rules.seven_d_sweeps)
        return (int(sweeper), rules.card_points(c), "A23456789TJQK".index(c[0]))

    return min(trails, key=giveaway), None
