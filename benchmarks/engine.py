"""Benchmark of the rules engine: random self-play rounds/s and plans/judge latency.

Run: `python benchmarks/engine.py [--quick]`. Latencies are measured with cold caches
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer games and floors")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time latencies in process CPU time (a shared, loaded machine)",
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
    print(f"worst: plans {worst[0]:.2f} ms, judge {worst[1]:.2f} ms, count {worst[2]:.2f} ms")


if __name__ == "__main__":
    main()
