"""Sum-group search on value counts: the largest haul and the maximal capture plans (R2.2, R2.8).

Floors are reduced to a packed count per value 1..9 (4 bits each), so an 18- or 40-card floor
is a small memoised search over counts instead of a search over card subsets.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

FIELDS = 9  # values 1..9 can be parts of a sum group (a group sums to at most 10)
UNIT = tuple(1 << (4 * j) for j in range(FIELDS))  # UNIT[v - 1] counts one card of value v
GUARD = sum(8 << (4 * j) for j in range(FIELDS))  # borrow detector: fields hold 0..7


def pack(values: Iterable[int]) -> int:
    """Packed counts of the given values (each 1..9)."""
    c = 0
    for v in values:
        c += UNIT[v - 1]
    return c


def unpack(c: int) -> list[int]:
    """Counts per value: index v - 1 holds the number of cards of value v."""
    return [(c >> (4 * j)) & 15 for j in range(FIELDS)]


def total(c: int) -> int:
    """Number of cards in a packed count."""
    n = 0
    while c:
        n += c & 15
        c >>= 4
    return n


def fits(part: int, whole: int) -> bool:
    """True when every field of `part` is <= the same field of `whole`."""
    return (whole + GUARD - part) & GUARD == GUARD


def _partitions(v: int, max_part: int) -> list[list[int]]:
    if v == 0:
        return [[]]
    out = []
    for p in range(min(v, max_part), 0, -1):
        for rest in _partitions(v - p, p):
            out.append([p, *rest])
    return out


@cache
def shapes(v: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For a played value v: per highest value index, the group shapes (packed, size).

    A shape is a multiset of two or more values below v summing to v (R2.2: any size, R6).
    The searches branch on the highest value left: few shapes hold a high card (9 only in
    9+1), so the search tree stays small.
    """
    by_high: list[list[tuple[int, int]]] = [[] for _ in range(FIELDS)]
    for parts in _partitions(v, v - 1):
        if len(parts) < 2 or max(parts.count(x) for x in parts) > 4:
            continue  # one deck holds at most 4 cards of a value
        by_high[max(parts) - 1].append((pack(parts), len(parts)))
    for lst in by_high:
        lst.sort(key=lambda s: (-s[1], s[0]))
    return tuple(tuple(lst) for lst in by_high)


def restrict(v: int, c: int) -> int:
    """Drop the counts of values >= v (they are rank matches or too big, never group parts)."""
    if v <= 1:
        return 0
    return c & ((1 << (4 * (v - 1))) - 1)


_BEST: dict[int, dict[int, int]] = {v: {0: 0} for v in range(1, 11)}


def value_sum(c: int) -> int:
    """Sum of the values of a packed count."""
    t = 0
    for j in range(FIELDS):
        t += (j + 1) * ((c >> (4 * j)) & 15)
    return t


def best(v: int, c: int) -> int:
    """The most cards of `c` (values < v) coverable by disjoint groups summing to v."""
    r = _BEST[v].get(c)
    if r is not None:
        return r
    return _best(v, c, total(c), value_sum(c), _BEST[v], shapes(v))


def _best(v: int, c: int, tot: int, sm: int, memo: dict[int, int], shp) -> int:
    """Branch and bound: every group sums to v, so when the sum is not a multiple of v at
    least one card stays; reaching that bound ends the search of this state."""
    r = memo.get(c)
    if r is not None:
        return r
    bound = tot - (1 if sm % v else 0)
    high = (c.bit_length() - 1) >> 2
    b = 0
    for s, n in shp[high]:
        if (c + GUARD - s) & GUARD == GUARD:
            x = n + _best(v, c - s, tot - n, sm - v, memo, shp)
            if x > b:
                b = x
                if b >= bound:
                    memo[c] = b
                    return b
    k = (c >> (4 * high)) & 15
    if tot - k > b:  # the highest value left out entirely
        x = _best(v, c & ~(15 << (4 * high)), tot - k, sm - k * (high + 1), memo, shp)
        if x > b:
            b = x
    memo[c] = b
    return b


def decomposable(v: int, c: int) -> bool:
    """True when all cards of `c` split into disjoint groups summing to v."""
    return best(v, c) == total(c)


_OPT: dict[int, dict[int, frozenset[int]]] = {v: {} for v in range(1, 11)}


def optimal(v: int, c: int) -> frozenset[int]:
    """Every distinct used-count vector reaching the largest haul `best(v, c)` (R2.8 Classic)."""
    memo = _OPT[v]
    r = memo.get(c)
    if r is not None:
        return r
    target = best(v, c)
    if target == 0:
        res: frozenset[int] = frozenset((0,))
    else:
        high = (c.bit_length() - 1) >> 2
        rest = c & ~(15 << (4 * high))
        acc: set[int] = set()
        if best(v, rest) == target:
            acc |= optimal(v, rest)
        for s, n in shapes(v)[high]:
            if (c + GUARD - s) & GUARD == GUARD and n + best(v, c - s) == target:
                acc.update(s + w for w in optimal(v, c - s))
        res = frozenset(acc)
    memo[c] = res
    return res


SIZE = 40  # encoded vectors carry their card count from this bit up (sorting = by size)
LOW = (1 << (4 * FIELDS)) - 1


@cache
def _shapes_enc(v: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(s + (n << SIZE) for s, n in lst) for lst in shapes(v))


_MAXN: dict[int, dict[int, tuple[int, ...]]] = {v: {} for v in range(1, 11)}


_REM: dict[int, dict[int, frozenset[int]]] = {v: {} for v in range(1, 11)}


def maximal(v: int, c: int) -> frozenset[int]:
    """The inclusion-maximal used-count vectors (R2.8 ERAM plans, before suits are chosen);
    {0} when no group fits.

    Two exact searches, chosen by shape: on rich floors where nearly every card fits a group
    (slack = cards that must stay, at most 1, or 2 on 28+ cards) the few cards left over are
    searched; otherwise the groups are (crossover measured on random count vectors).
    """
    b = best(v, c)
    if b == 0:
        return frozenset((0,))
    slack = total(c) - b
    if slack <= 1 or (slack == 2 and b >= 26):
        memo = _REM[v]
        r = memo.get(c)
        if r is None:
            r = memo[c] = _maximal_by_remainder(v, c)
        return r
    return maximal_at_least(v, c, 0)


@cache
def _containing(v: int) -> tuple[tuple[int, ...], ...]:
    """Per value index: the shapes for v that hold that value."""
    return tuple(
        tuple(s for lst in shapes(v) for s, _n in lst if (s >> (4 * j)) & 15) for j in range(FIELDS)
    )


def _maximal_by_remainder(v: int, c: int) -> frozenset[int]:
    """Maximal u <=> the remainder r = c - u is minimal among remainders of decomposable
    vectors; a minimal remainder holds no whole group. Breadth-first over remainders by size,
    growing only group-free ones that hold no remainder already found."""
    cont = _containing(v)
    tot, sm = total(c), value_sum(c)
    found: list[int] = []
    level = {0: 0}  # remainder -> its value sum
    while level:
        nxt: dict[int, int] = {}
        for r, rs in level.items():
            if (sm - rs) % v == 0 and best(v, c - r) == tot - total(r):
                if not any(f != r and (r + GUARD - f) & GUARD == GUARD for f in found):
                    found.append(r)
                continue
            for j in range(v - 1):
                r2 = r + UNIT[j]
                if r2 in nxt or (c + GUARD - r2) & GUARD != GUARD:
                    continue
                if any((r2 + GUARD - s) & GUARD == GUARD for s in cont[j]):
                    continue
                if any((r2 + GUARD - f) & GUARD == GUARD for f in found):
                    continue
                nxt[r2] = rs + j + 1
        level = nxt
    return frozenset(c - r for r in found)


def maximal_at_least(v: int, c: int, need: int) -> frozenset[int]:
    """The maximal used-count vectors of `c` that hold at least `need` cards.

    D(c) = D(rest) + union over shapes s whose largest part is the highest value of c of
    (s + D(c - s)); a maximal element of D(c) is maximal in the part it comes from, so the
    recursion keeps only those. A vector dominating one of size >= need is itself of size
    >= need, so with a bar these are exactly the maximal vectors of that size, and branches
    that cannot reach it (known from the fast `best`) are never searched.
    """
    res = _maxs(v, c + (total(c) << SIZE), max(need, 0), _MAXN[v], _shapes_enc(v))
    return frozenset(x & LOW for x in res)


def _maxs(v: int, ce: int, need: int, memo: dict, shp: tuple) -> tuple[int, ...]:
    """`maximal_at_least` on size-encoded vectors (count << SIZE added to each)."""
    key = (ce << 6) | need
    r = memo.get(key)
    if r is not None:
        return r
    c = ce & LOW
    b = best(v, c)
    res: tuple[int, ...]
    if b < need:
        res = ()
    elif b == 0:
        res = (0,)
    elif b == ce >> SIZE:
        res = (ce,)
    else:
        high = (c.bit_length() - 1) >> 2
        k = (c >> (4 * high)) & 15
        rest = ce - (k << (4 * high)) - (k << SIZE)
        fitting = [s for s in shp[high] if (ce + GUARD - s) & GUARD == GUARD]
        if not fitting:  # the highest cards can join no group: they never matter
            res = _maxs(v, rest, need, memo, shp)
        else:
            cands: set[int] = set()
            for s in fitting:
                sub = _maxs(v, ce - s, max(need - (s >> SIZE), 0), memo, shp)
                cands.update([s + w for w in sub])
            for u in _maxs(v, rest, need, memo, shp):
                left = ce - u  # one more group with a high card would extend u: not maximal
                for s in fitting:
                    if (left + GUARD - s) & GUARD == GUARD:
                        break
                else:
                    cands.add(u)
            res = tuple(_maximal_only(cands))
    memo[key] = res
    return res


def _maximal_only(cands: set[int]) -> list[int]:
    """Drop every (size-encoded) vector dominated field by field by another one."""
    if len(cands) <= 1:
        return list(cands)
    keep: list[int] = []
    for u in sorted(cands, reverse=True):  # larger first: only they can dominate
        for k in keep:
            if (k + GUARD - u) & GUARD == GUARD:
                break
        else:
            keep.append(u)
    return keep


def clear_caches() -> None:
    """Forget memoised results (they are pure; this only bounds memory)."""
    for d in (_BEST, _OPT, _MAXN, _REM):
        for v in d:
            d[v].clear()
    for v in _BEST:
        _BEST[v][0] = 0
