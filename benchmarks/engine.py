"""Benchmark of the rules engine: random self-play rounds/s and plans/judge latency.

Run: `python benchmarks/engine.py [--quick] [--cpu] [--worst]`. Latencies are measured with cold caches
(every memo cleared before each call), so they are the first-time cost a table would see.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import groups  # noqa: E402
from engine.captures import count_takes, plans  # noqa: E402
from engine.cards import FULL_DECK  # noqa: E402
from engine.fastplay import fast_rules  # noqa: E402
from engine.referee import judge  # noqa: E402
from engine.rules import CLASSIC, ERAM  # noqa: E402
from engine.selfplay import _selfplay_slow, selfplay  # noqa: E402

NUMBERS = [c for c in FULL_DECK if c[0] in "A23456789T"]


CLOCK = time.perf_counter


def timed(fn, *args, **kw):
    groups.clear_caches()
    t = CLOCK()
    fn(*args, **kw)
    return (CLOCK() - t) * 1000


def floors(rng: random.Random, n: int, size_lo: int, size_hi: int):
    for _ in range(n):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        card = next(c for c in deck if c[0] in "A23456789T")
        floor = [c for c in deck if c != card][: rng.randint(size_lo, size_hi)]
        yield floor, card


def worst_floors():
    """Hand-picked hard floors: small cards with a 10, 40-card floors."""
    out = [([r + s for r in "A2345" for s in "SHDC"][:18], "TD", "18 cards of A-5, 10 played")]
    small = [r + s for r in "A2345" for s in "SHDC"]
    out.append((small[:19] + ["6S", "7S", "8S", "9S"], "TD", "A-5 x4 (-1) + 6-9, 10 played"))
    forty = [c for c in FULL_DECK if c[0] in "A23456789" and c != "9S"][:35] + [
        "TS",
        "TH",
        "JS",
        "QS",
        "KS",
    ]
    out.append((forty, "TD", "40 cards: A-9 (no 9S), 10s, pictures; 10 played"))
    no_ace = [c for c in FULL_DECK if c[0] in "23456789T" and c != "TD"][:40]
    out.append((no_ace, "TD", "40 cards without aces, 10 played"))
    # the worst of 300 random 25-40-card number floors for ERAM: only 10 plans exist, so the
    # whole maximal-plan search runs to prove there is no 11th
    few = [
        "3H",
        "4S",
        "AS",
        "8D",
        "9S",
        "7C",
        "4D",
        "AD",
        "6C",
        "9D",
        "7D",
        "7S",
        "6H",
        "9C",
        "5S",
        "TC",
        "5H",
        "3D",
        "2C",
        "8C",
        "5D",
        "7H",
        "AC",
        "6S",
        "TS",
        "8H",
        "TH",
        "3C",
        "3S",
        "9H",
        "2D",
        "4H",
        "4C",
        "6D",
        "8S",
        "AH",
        "5C",
        "2H",
    ]
    out.append((few, "TD", "38 numbers, 10 played, only 10 ERAM plans"))
    # found by `--worst` against the previous search (25 ms, 18 ms and 13 ms for ERAM plans)
    for text, card, label in (
        (
            "5C 9H 7D 3C 8S 9S 8D 2S 4D 4S TD 5D 6D 9C 7C 6S 8H 2C 6H 5H 4H 6C 2D 7H 4C 3S "
            "9D 7S 3D 8C 2H 3H AC AH 5S TC TH",
            "TS",
            "adversarial 37 numbers, 6 ERAM plans",
        ),
        (
            "2H 2S TC 7C 9D 4H 8H 3H 9C 8C 8D 7H 2D 8S 2C 6S 5D AH 3S 7D 4D 5S 3D 9H TS 4S "
            "6C 9S TH 6H AD",
            "TD",
            "adversarial 31 numbers, 6 ERAM plans",
        ),
        (
            "8S 3S 3H 7H 2D AC 2H 6C 4H 4D 7C 6D 5D 5C 4S 6H 2S TH 3C 2C 9H 3D 4C 5S AH 5H "
            "AD 6S AS",
            "TS",
            "adversarial 29 numbers, 4 + many ERAM plans",
        ),
    ):
        out.append((text.split(), card, label))
    return out


def latency(label, rules, cases, limit=12):
    p_ms, j_ms, c_ms = [], [], []
    for floor, card in cases:
        p_ms.append(timed(plans, rules, floor, card, limit=limit))
        c_ms.append(timed(count_takes, rules, floor, card))
        first = plans(rules, floor, card, limit=1).plans
        after = [c for c in floor if c not in first[0].takes] if first else [*floor, card]
        j_ms.append(timed(judge, rules, floor, card, after))
        wrong = floor[1:] + ([card] if not first else [])
        j_ms.append(timed(judge, rules, floor, card, wrong))
    for name, xs in (("plans(first 12)", p_ms), ("count", c_ms), ("judge", j_ms)):
        print(
            f"  {label:<38} {rules.name:<8} {name:<16} median {statistics.median(xs):7.2f} ms"
            f"   max {max(xs):7.2f} ms   (n={len(xs)})"
        )
    return max(p_ms), max(j_ms), max(c_ms)


def _cost(rules, floor, card) -> float:
    """The slowest of plans (first 12), count and judge (of the last offered plan) on a floor,
    each from cold caches, in ms."""
    p = timed(plans, rules, floor, card, limit=12)
    c = timed(count_takes, rules, floor, card)
    offered = plans(rules, floor, card, limit=12).plans
    after = [x for x in floor if x not in offered[-1].takes] if offered else [*floor, card]
    return max(p, c, timed(judge, rules, floor, card, after))


def adversarial(rules, seeds: int, steps: int, rng: random.Random):
    """Hill-climb over 20-40-card number floors (swap, add or drop a card, change the card
    played) towards the slowest `_cost`; returns the worst (ms, floor, card) per seed."""
    out = []
    for _ in range(seeds):
        deck = list(NUMBERS)
        rng.shuffle(deck)
        card = deck.pop()
        floor = deck[: rng.randint(28, 39)]
        worst = _cost(rules, floor, card)
        for _ in range(steps):
            f2, c2 = list(floor), card
            pool = [x for x in NUMBERS if x not in f2 and x != c2]
            r = rng.random()
            if not pool:
                f2.pop(rng.randrange(len(f2)))
            elif r < 0.1:
                c2 = rng.choice(pool)
            elif r < 0.2 and len(f2) < 40:
                f2.append(rng.choice(pool))
            elif r < 0.3 and len(f2) > 20:
                f2.pop(rng.randrange(len(f2)))
            else:
                f2[rng.randrange(len(f2))] = rng.choice(pool)
            x = _cost(rules, f2, c2)
            if x > worst:
                worst, floor, card = x, f2, c2
        out.append((worst, floor, card))
    return sorted(out, key=lambda t: -t[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer games and floors")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time latencies in process CPU time (a shared, loaded machine)",
    )
    ap.add_argument(
        "--worst",
        action="store_true",
        help="also search for adversarial floors (hill-climbing, about 30 s) and time them",
    )
    args = ap.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    games = 1500 if args.quick else 6000
    n_floors = 100 if args.quick else 400

    print("random self-play, 2 players, one process (random card, first plan):")
    for rules in (CLASSIC, ERAM):
        fast_rules(rules).memo.clear()
        cold = selfplay(rules, 2, games, seed=1)
        t = time.process_time()
        warm = selfplay(rules, 2, games, seed=2)
        warm_cpu = warm["rounds"] / (time.process_time() - t)
        slow = _selfplay_slow(rules, 2, max(20, games // 60), seed=3)
        print(
            f"  {rules.name:<8} fast path: {cold['rounds_per_second']:>8,.0f} rounds/s wall from"
            f" a cold memo ({cold['rounds']} rounds); warm {warm['rounds_per_second']:>8,.0f}"
            f" rounds/s wall, {warm_cpu:>8,.0f} rounds/s of CPU time ({warm['rounds']} rounds);"
            f"  through Match: {slow['rounds_per_second']:,.0f} rounds/s wall"
        )

    clock = "process CPU time" if args.cpu else "wall time"
    print(
        f"latency ({clock}), caches cleared before every call"
        " (goal: plans <= 50 ms, judge <= 10 ms):"
    )
    rng = random.Random(42)
    worst = [0.0, 0.0, 0.0]
    for rules in (CLASSIC, ERAM):
        for label, lo, hi in (
            ("random floors of 0-12 cards", 0, 12),
            ("random floors of 13-40 cards", 13, 40),
        ):
            got = latency(label, rules, list(floors(rng, n_floors, lo, hi)))
            worst = [max(a, b) for a, b in zip(worst, got, strict=True)]
        for floor, card, label in worst_floors():
            got = latency(label, rules, [(floor, card)])
            worst = [max(a, b) for a, b in zip(worst, got, strict=True)]
    if args.worst:
        print("adversarial search (hill-climbing towards the slowest plans/count/judge):")
        for rules in (CLASSIC, ERAM):
            found = adversarial(rules, 6 if args.quick else 12, 150 if args.quick else 300, rng)
            for _ms, floor, card in found[:2]:
                label = f"adversarial {len(floor)} cards, {card} played"
                got = latency(label, rules, [(floor, card)])
                worst = [max(a, b) for a, b in zip(worst, got, strict=True)]
                print(f"    floor: {' '.join(floor)}")
    print(f"worst: plans {worst[0]:.2f} ms, judge {worst[1]:.2f} ms, count {worst[2]:.2f} ms")


if __name__ == "__main__":
    main()
