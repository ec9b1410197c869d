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


_DEC: dict[int, dict[int, bool]] = {v: {0: True} for v in range(1, 11)}


def decomposable(v: int, c: int) -> bool:
    """True when all cards of `c` split into disjoint groups summing to v."""
    if value_sum(c) % v:
        return False
    return _dec(c, _DEC[v], shapes(v))


def _dec(c: int, memo: dict[int, bool], shp) -> bool:
    """Exact cover: the highest card left must lie in a group whose largest part it is, so
    only those shapes are tried (no "leave it out" branch, unlike `best`); the caller has
    checked that the value sum is a multiple of v, which every step keeps."""
    r = memo.get(c)
    if r is not None:
        return r
    high = (c.bit_length() - 1) >> 2
    r = False
    for s, _n in shp[high]:
        if (c + GUARD - s) & GUARD == GUARD and _dec(c - s, memo, shp):
            r = True
            break
    memo[c] = r
    return r


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


REMAINDER_SLACK = 7


def maximal(v: int, c: int) -> frozenset[int]:
    """The inclusion-maximal used-count vectors (R2.8 ERAM plans, before suits are chosen);
    {0} when no group fits.

    Two exact searches, chosen by shape: where few cards must stay (slack = cards left by the
    largest haul, at most REMAINDER_SLACK) the cards left over are searched, which is bounded
    by the group-free multisets (4,573 for v = 10: about 3 ms at worst); otherwise the groups
    are (crossover measured on random and adversarial count vectors).
    """
    b = best(v, c)
    if b == 0:
        return frozenset((0,))
    if total(c) - b <= REMAINDER_SLACK:
        memo = _REM[v]
        r = memo.get(c)
        if r is None:
            r = memo[c] = _maximal_by_remainder(v, c)
        return r
    return maximal_at_least(v, c, 0)


def _maximal_by_remainder(v: int, c: int) -> frozenset[int]:
    """Maximal u <=> the remainder r = c - u is minimal among remainders of decomposable
    vectors; a minimal remainder holds no whole group. Breadth-first over remainders by size,
    growing only group-free ones that hold no remainder already found.

    Each remainder is grown only by cards of its highest value or above (every multiset comes
    once, from its parent without its highest card; both prunings are inherited by subsets,
    so nothing is lost), and it carries the bit set of its subset sums up to v, so "holds a
    group" is one bit test (a group is two or more cards: values here are all below v)."""
    sm = value_sum(c)
    memo, shp = _DEC[v], shapes(v)
    need = sm % v
    full = (1 << (v + 1)) - 1
    vbit = 1 << v
    avail = unpack(c)
    found: list[int] = []
    # found remainders by (value index j, count of j): r holds none of them, so r + one card
    # of j can only hold one whose count of j is exactly r's count + 1
    by_field: list[list[list[int]]] = [[[] for _ in range(16)] for _ in range(FIELDS)]
    level = [(0, 0, 0, 1)]  # (remainder, its value sum, lowest value index to add, sums)
    while level:
        grow = []
        for item in level:  # first every find of this size, then the next size
            r, rs = item[0], item[1]
            if rs % v == need and _dec(c - r, memo, shp):
                found.append(r)  # level order: no remainder found later is below it
                for j, n in enumerate(unpack(r)):
                    if n:
                        by_field[j][n].append(r)
            else:
                grow.append(item)
        nxt = []
        for r, rs, lo, sums in grow:
            for j in range(lo, v - 1):
                n = ((r >> (4 * j)) & 15) + 1
                if n > avail[j]:
                    continue
                s2 = (sums | (sums << (j + 1))) & full
                if s2 & vbit:
                    continue  # r2 would hold a group
                r2 = r + UNIT[j]
                for f in by_field[j][n]:
                    if (r2 + GUARD - f) & GUARD == GUARD:
                        break
                else:
                    nxt.append((r2, rs + j + 1, j, s2))
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
    for d in (_BEST, _OPT, _MAXN, _REM, _DEC):
        for v in d:
            d[v].clear()
    for v in _BEST:
        _BEST[v][0] = 0
        _DEC[v][0] = True
