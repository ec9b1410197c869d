"""Random self-play: whole matches by simple bots, as timing figures or as a game record.

`selfplay` drives the fast internal path (engine.fastplay); `random_match` plays through the
public `Match` and returns a DESIGN.md game record.
"""

from __future__ import annotations

import random
import time

import numpy as np

from engine.cards import FULL_DECK
from engine.fastplay import fast_round, fast_rules, supported
from engine.match import Match
from engine.rules import RuleSet, get_ruleset
from engine.scoring import decide

_BATCH = 512


def _rules(variant: str | RuleSet, players: int) -> RuleSet:
    rules = variant if isinstance(variant, RuleSet) else get_ruleset(variant)
    rules.check_players(players)
    return rules


def selfplay(variant: str | RuleSet, players: int, games: int, seed: int) -> dict:
    """Play `games` whole matches of random bots (random card, first plan) and time them.

    Returns the `simulate --json` shape: {"games", "rounds", "seconds", "rounds_per_second"}.
    """
    rules = _rules(variant, players)
    if games < 0:
        raise ValueError("games must be 0 or more")
    if not supported(rules):
        return _selfplay_slow(rules, players, games, seed)
    fr = fast_rules(rules)
    gen = np.random.default_rng(seed)
    decks: list[list[int]] = []
    choices: list[list[int]] = []
    sides = 2 if players in (2, 4) else players
    rounds = 0
    start = time.perf_counter()
    for g in range(games):
        dealer = g % players
        totals = [0] * sides
        pending = 0
        played = 0
        while True:
            if not decks:
                decks = np.argsort(gen.random((_BATCH, 52)), axis=1).tolist()
                choices = gen.integers(0, 1 << 30, size=(_BATCH, 48)).tolist()
            s = fast_round(fr, players, dealer, decks.pop(), choices.pop(), pending)
            pending = s.pending
            played += 1
            for i in range(sides):
                totals[i] += s.score[i]
            finished, _winner = decide(rules, totals, played)
            dealer = (dealer + 1) % players
            if finished:
                break
        rounds += played
    return _result(games, rounds, time.perf_counter() - start)


def _result(games: int, rounds: int, seconds: float) -> dict:
    """The `simulate --json` shape (DESIGN.md)."""
    return {
        "games": games,
        "rounds": rounds,
        "seconds": round(seconds, 6),
        "rounds_per_second": round(rounds / seconds, 1) if seconds > 0 else 0.0,
    }


def _selfplay_slow(rules: RuleSet, players: int, games: int, seed: int) -> dict:
    rng = random.Random(seed)
    rounds = 0
    start = time.perf_counter()
    for g in range(games):
        m = _play_match(rules, players, rng, dealer=g % players)
        rounds += len(m.rounds)
    return _result(games, rounds, time.perf_counter() - start)


def _play_match(
    rules: RuleSet, players: int, rng: random.Random, dealer: int = 0, max_rounds: int = 1000
) -> Match:
    m = Match(rules, players, dealer)
    while not m.finished and len(m.rounds) < max_rounds:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        m.start_round(deck=deck)
        while not m.round_over:
            hand = m.hands[m.to_play]  # type: ignore[index]
            card = hand[rng.randrange(len(hand))]
            outcome = m.legal(card)
            takes = rng.choice(outcome.plans).takes if len(outcome.plans) > 1 else None
            m.play(card, takes)
        m.end_round()
    return m


def random_match(
    variant: str | RuleSet, players: int, seed: int, dealer: int | None = None
) -> dict:
    """A whole match played by random bots (random card, random legal plan) through `Match`,
    as a DESIGN.md game record (`engine.record.score_record` replays it)."""
    rules = _rules(variant, players)
    rng = random.Random(seed)
    first = rng.randrange(players) if dealer is None else dealer  # R1.5: first dealer at random
    return _play_match(rules, players, rng, first).export()
