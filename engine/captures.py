"""Legal outcomes of one play: captures, sweeps, trails, plans in R8.1 order and their basras.

Pure functions over card codes; the sum-group search itself lives in `engine.groups`.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import comb

from engine import groups
from engine.cards import (
    CardError,
    card_index,
    is_number,
    parse_card,
    parse_cards,
    sort_cards,
    value,
)
from engine.rules import BasraRule, BasraValue, CaptureMode, RuleSet, SevenDBasra


@dataclass(frozen=True)
class Play:
    """One earlier play of the round: the floor before it and the card played (for V3(b))."""

    floor: tuple[str, ...]
    play: str


@dataclass(frozen=True)
class Plan:
    """One legal capture: the cards it takes (card order) and the basra it scores."""

    id: int
    takes: tuple[str, ...]
    basra: bool
    basra_points: int

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "takes": list(self.takes),
            "basra": self.basra,
            "basra_points": self.basra_points,
        }


@dataclass(frozen=True)
class Outcome:
    """The legal outcomes of playing `card` on a floor: kind and plans (empty for a trail)."""

    card: str
    kind: str  # "capture" | "trail" | "sweep"
    plans: tuple[Plan, ...]

    def to_dict(self) -> dict:
        return {"card": self.card, "kind": self.kind, "plans": [p.to_dict() for p in self.plans]}


def is_sweeper(rules: RuleSet, card: str) -> bool:
    """J always sweeps; 7D sweeps unless the variant makes it a plain 7 (R2.4, V3)."""
    return card[0] == "J" or (card == "7D" and rules.seven_d_sweeps)


def kind_of(rules: RuleSet, card: str, has_plan: bool) -> str:
    """`trail` without a plan (R8.2), `sweep` for a J/7D sweep, else `capture`."""
    if not has_plan:
        return "trail"
    return "sweep" if is_sweeper(rules, card) else "capture"


def basra_value(rules: RuleSet, card: str) -> int:
    """Points of one basra made by `card` (R4.4; V5 doubles the card's value, pictures 10)."""
    if rules.basra_value is BasraValue.DOUBLE_CARD:
        return 2 * (value(card) or 10)
    return rules.basra_points


def seven_d_basra(rules: RuleSet, floor: Sequence[str]) -> bool:
    """Whether a 7D sweep of this (non-empty) floor is a basra (R3.3, V4, V6, R8.3, R8.4)."""
    test = rules.seven_d_basra
    if test is SevenDBasra.NONE:
        return False
    if test is SevenDBasra.COUNT_LE_10_NO_QK:  # V6, R8.3: a J does not block it
        return len(floor) <= 10 and not any(c[0] in "QK" for c in floor)
    numbers = all(is_number(c) for c in floor)
    total = sum(value(c) for c in floor)
    if test is SevenDBasra.SUM_LE_10:
        return numbers and total <= 10
    # SevenDBasra.YEMENI (V4, R8.4)
    if numbers and total < 10:
        return True
    if all(c[0] in "TQK" for c in floor):
        return True
    if not numbers:
        return False
    return _equal_groups(sorted(value(c) for c in floor), total)


def _equal_groups(values: list[int], total: int) -> bool:
    """V4 case 3: all number cards in >= 2 groups of one equal sum below 10."""
    for s in range(1, 10):
        if total % s or total // s < 2 or values[-1] > s:
            continue
        singles = values.count(s)
        rest = groups.pack(x for x in values if x < s)
        if singles == len(values) or groups.decomposable(s, rest):
            return True
    return False


def basra_points(
    rules: RuleSet,
    floor: Sequence[str],
    card: str,
    takes: Sequence[str],
    history: Sequence[Play] = (),
) -> int:
    """Points of the basra this legal capture makes, 0 when it makes none (R3, V2-V6)."""
    if not floor or len(takes) != len(floor):
        return 0
    if card[0] == "J":  # R3.2; V2/V4 J basra 20; V3 (a) J on a lone J
        return rules.jack_basra_points if len(floor) == 1 and floor[0][0] == "J" else 0
    if card == "7D" and rules.seven_d_sweeps:
        return basra_value(rules, card) if seven_d_basra(rules, floor) else 0
    if rules.basra_rule is BasraRule.CLEAR:  # R3.1
        return basra_value(rules, card)
    # V3, R8.5: only on a single card
    if len(floor) == 1:
        return basra_value(rules, card) if floor[0][0] == card[0] else 0
    if len(floor) == 2 and history and is_number(card):
        prev = history[-1]
        if len(prev.floor) == 1 and set(floor) == {prev.floor[0], prev.play}:
            x, y = prev.floor[0], prev.play
            if is_number(x) and is_number(y) and value(x) + value(y) == value(card):
                return basra_value(rules, card)
    return 0


class _Search:
    """The value-count view of one number-card play: rank matches and group candidates."""

    __slots__ = ("v", "matches", "by_value", "c")

    def __init__(self, floor: Sequence[str], card: str) -> None:
        v = value(card)
        self.v = v
        self.matches = tuple(sorted((f for f in floor if f[0] == card[0]), key=card_index))
        by_value: list[list[str]] = [[] for _ in range(groups.FIELDS)]
        for f in floor:
            fv = value(f)
            if 0 < fv < v:
                by_value[fv - 1].append(f)
        for lst in by_value:
            lst.sort(key=card_index)
        self.by_value = by_value
        self.c = groups.pack(value(f) for f in floor if 0 < value(f) < v)

    def used_vectors(self, mode: CaptureMode, cap: int | None = None) -> list[int]:
        """Classic: the largest-haul vectors. ERAM: the maximal ones; with a cap, only the
        largest sizes that hold at least `cap` concrete plans (lowering the size bar in
        steps), since plans come largest first (R8.1)."""
        if mode is not CaptureMode.PLANS:
            return list(groups.optimal(self.v, self.c))
        top = groups.best(self.v, self.c)
        if cap is None or top == 0:
            return list(groups.maximal(self.v, self.c))
        # every largest-haul vector is maximal, and they come first (R8.1)
        us = groups.maximal_at_least(self.v, self.c, top)
        if sum(self.count(u) for u in us) >= cap:
            return list(us)
        if groups.total(self.c) - top > groups.REMAINDER_SLACK:
            # many cards must stay: a size bar keeps the group search small
            us = groups.maximal_at_least(self.v, self.c, top - 2)
            if sum(self.count(u) for u in us) >= cap:
                return list(us)
        return list(groups.maximal(self.v, self.c))

    def concrete(self, u: int) -> Iterator[tuple[str, ...]]:
        """Concrete take sets with used counts u, in card order (R8.1), lazily."""
        blocks = []
        for j, n in enumerate(groups.unpack(u)):
            if n:
                blocks.append(itertools.combinations(self.by_value[j], n))
        for combo in itertools.product(*blocks):
            yield tuple(itertools.chain.from_iterable(combo)) + self.matches

    def count(self, u: int) -> int:
        k = 1
        for j, n in enumerate(groups.unpack(u)):
            if n:
                k *= comb(len(self.by_value[j]), n)
        return k


def _order_key(takes: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(card_index(c) for c in takes)


def iter_takes(
    rules: RuleSet, floor: Sequence[str], card: str, cap: int | None = None
) -> Iterator[tuple[str, ...]]:
    """Legal take sets for `card`, largest haul first, ties in card order (R8.1).

    Lazy: the first few come fast even where there are thousands. With `cap`, at least the
    first `cap` sets are right (ERAM searches only the largest sizes it needs); without it,
    every legal set comes (ERAM: every maximal plan, before the cap of 12).
    """
    if not floor:
        return
    if is_sweeper(rules, card):  # R2.4
        yield sort_cards(floor)
        return
    if not is_number(card):  # R2.3: Q and K by rank only
        same = tuple(sorted((f for f in floor if f[0] == card[0]), key=card_index))
        if same:
            yield same
        return
    s = _Search(floor, card)
    us = s.used_vectors(rules.capture_mode, cap)
    if us == [0]:
        if s.matches:
            yield s.matches
        return
    by_size: dict[int, list[int]] = {}
    for u in us:
        by_size.setdefault(groups.total(u), []).append(u)
    for size in sorted(by_size, reverse=True):
        gens = [s.concrete(u) for u in by_size[size]]
        if len(gens) == 1:
            yield from gens[0]
        else:
            yield from heapq.merge(*gens, key=_order_key)


def count_takes(rules: RuleSet, floor: Sequence[str] | str, card: str) -> int:
    """How many legal take sets exist (ERAM: how many maximal plans, before the cap of 12)."""
    floor, card = _validate(floor, card)
    if not floor:
        return 0
    if is_sweeper(rules, card) or not is_number(card):
        return 1 if any(True for _ in iter_takes(rules, floor, card)) else 0
    s = _Search(floor, card)
    us = s.used_vectors(rules.capture_mode)
    if us == [0]:
        return 1 if s.matches else 0
    return sum(s.count(u) for u in us)


def _validate(floor: Sequence[str], card: str) -> tuple[tuple[str, ...], str]:
    fl = parse_cards(floor, "the floor")
    c = parse_card(card)
    if c in fl:
        raise CardError(f"the played card {c} is already on the floor")
    return fl, c


def plans(
    rules: RuleSet,
    floor: Sequence[str] | str,
    card: str,
    history: Sequence[Play] = (),
    limit: int | None = None,
) -> Outcome:
    """The legal outcomes of playing `card` on `floor` (RULES.md R2, R3, R8.1, R8.2).

    Classic family: every maximum-haul set; ERAM: at most `rules.max_plans` maximal plans.
    `limit` caps how many plans are built (the first ones in R8.1 order).
    """
    fl, c = _validate(floor, card)
    return plans_unchecked(rules, fl, c, tuple(history), limit)


def plans_unchecked(
    rules: RuleSet,
    floor: tuple[str, ...],
    card: str,
    history: tuple[Play, ...] = (),
    limit: int | None = None,
) -> Outcome:
    """`plans` without input validation (callers that already hold normalised codes)."""
    cap = rules.max_plans
    if limit is not None:
        cap = limit if cap is None else min(cap, limit)
    takes_iter = iter_takes(rules, floor, card, cap)
    if cap is not None:
        takes_iter = itertools.islice(takes_iter, cap)
    out = []
    for i, takes in enumerate(takes_iter, start=1):
        pts = basra_points(rules, floor, card, takes, history)
        out.append(Plan(i, takes, pts > 0, pts))
    return Outcome(card, kind_of(rules, card, bool(out)), tuple(out))


def is_legal_take(rules: RuleSet, floor: Sequence[str], card: str, takes: Sequence[str]) -> bool:
    """Whether taking exactly `takes` is a legal capture for `card` (R2, R2.8, R8.1).

    Tests the observed set directly (rank matches, disjoint groups, maximality) instead of
    enumerating every plan, so it stays fast on any floor.
    """
    tk = set(takes)
    if not tk or len(tk) != len(takes) or not tk <= set(floor):
        return False
    if is_sweeper(rules, card):
        return len(tk) == len(floor)
    if not is_number(card):
        return tk == {f for f in floor if f[0] == card[0]}
    s = _Search(floor, card)
    if not set(s.matches) <= tk:
        return False
    rest = [t for t in tk if t[0] != card[0]]
    if any(not 0 < value(t) < s.v for t in rest):
        return False
    u = groups.pack(value(t) for t in rest)
    if not groups.decomposable(s.v, u):
        return False
    if rules.capture_mode is CaptureMode.LARGEST_HAUL:
        return groups.total(u) == groups.best(s.v, s.c)
    if rules.max_plans is None:
        return u in groups.maximal(s.v, s.c)
    want = tuple(sorted(tk, key=card_index))  # R8.1: only the offered plans are legal
    return want in itertools.islice(
        iter_takes(rules, floor, card, rules.max_plans), rules.max_plans
    )
