"""The fast internal path for random self-play: integer cards, packed floors, memoised turns.

Every turn's outcome comes from the public engine (`iter_takes`, `basra_points`) on a
representative floor and is memoised by (floor key, played kind); the hot loop only looks up.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.captures import Play, basra_points, is_sweeper, iter_takes
from engine.cards import FULL_DECK, value
from engine.match import misdeal_cards
from engine.rules import BasraRule, RuleSet
from engine.scoring import RoundScore, score_tallies

# Floor kinds: 0..9 plain A..T, 10 = 2C, 11 = TD, 12 = J, 13 = Q, 14 = K (a 7D on the floor
# is a plain 7, R2.5). Played kinds: the same, plus 15 = a 7D that sweeps.
K_2C, K_TD, K_J, K_Q, K_K, K_7D = 10, 11, 12, 13, 14, 15
BITS = 3
FLAG = 1 << (BITS * 15)  # V3(b): the last play trailed beside a lone card
OTHER = FLAG << 1  # in a memo key: the floor holds cards outside the played kind's mask
ALL = FLAG - 1
CNT = 48  # bits 48..53 of a floor key: how many cards are on the floor
ONE = 1 << CNT
COUNT = 63 << CNT
UNITF = tuple(1 << (BITS * k) for k in range(15))
_FLOOR_SUITS = {2: "SHD", 7: "DSHC", 10: "SHC"}  # plain kinds; specials have their own kind
_PLAY_SUITS = {2: "SHD", 7: "SHC", 10: "SHC"}
MEMO_LIMIT = 2_000_000


def floor_kind(code: str) -> int:
    if code == "2C":
        return K_2C
    if code == "TD":
        return K_TD
    r = code[0]
    if r in "JQK":
        return {"J": K_J, "Q": K_Q, "K": K_K}[r]
    return value(code) - 1


def supported(rules: RuleSet) -> bool:
    """The kinds keep every card the rules tell apart (point cards by rank, 2C, TD)."""
    return all(len(k) == 1 or k in ("2C", "TD") for k, _ in rules.point_cards)


class FastRules:
    """Per-RuleSet tables and the memo of turn outcomes."""

    def __init__(self, rules: RuleSet) -> None:
        if not supported(rules):
            raise ValueError(f"{rules.name}: point cards the fast path cannot tell apart")
        self.rules = rules
        self.play_kind = [self._play_kind(c) for c in FULL_DECK]
        self.floor_unit = [UNITF[floor_kind(c)] for c in FULL_DECK]
        self.misdeal = [bool(misdeal_cards(rules, (c,))) for c in FULL_DECK]
        self.memo: dict[int, tuple[int | None, int]] = {}
        self.leftover: dict[int, tuple[int, int]] = {}
        self.masks, self.omasks = self._masks()

    def _masks(self) -> tuple[list[int], list[int]]:
        """Per played kind: the floor kinds its outcome depends on, and all the others."""
        masks = []
        pointless = [k for k in range(15) if k != K_J and not self.rules.card_points(self._rep(k))]
        self.dummies = [c for k in pointless for c in self._decode(4 << (BITS * k))]
        for k in range(16):
            if k == K_7D:
                kinds = range(15)  # its basra depends on the whole floor
            elif k == K_J:  # a J sweep: only the floor's points, size and lone J matter
                kinds = [j for j in range(15) if j not in pointless]
            elif k in (K_Q, K_K):
                kinds = [k]
            else:
                v = 2 if k == K_2C else 10 if k == K_TD else k + 1
                kinds = (
                    [j for j in range(v)] + ([K_2C] if v >= 2 else []) + ([K_TD] if v == 10 else [])
                )
            m = sum(7 << (BITS * j) for j in kinds)
            masks.append(m | (COUNT if k == K_J else 0))
        flag = FLAG if self.rules.basra_rule is BasraRule.SINGLE_CARD else 0
        omasks = [0 if k == K_J else ALL & ~m for k, m in enumerate(masks)]  # J: COUNT says it
        return [m | flag for m in masks], omasks

    @staticmethod
    def _rep(k: int) -> str:
        """A representative card of a floor kind."""
        if k < 10:
            return "A23456789T"[k] + ("C" if k == 6 else "S")
        return {K_2C: "2C", K_TD: "TD", K_J: "JS", K_Q: "QS", K_K: "KS"}[k]

    def _play_kind(self, code: str) -> int:
        if code == "7D" and self.rules.seven_d_sweeps:
            return K_7D
        return floor_kind(code)

    def _decode(self, key: int) -> list[str]:
        """A representative concrete floor for a key (suits chosen per kind)."""
        floor = []
        for k in range(15):
            n = (key >> (BITS * k)) & 7
            if not n:
                continue
            if k < 10:
                rank = "A23456789T"[k]
                suits = _FLOOR_SUITS.get(k + 1, "SHDC")
                floor += [rank + s for s in suits[:n]]
            elif k in (K_2C, K_TD):
                floor.append("2C" if k == K_2C else "TD")
            else:
                floor += ["JQK"[k - K_J] + s for s in "SHDC"[:n]]
        return floor

    def _rep_play(self, floor: list[str], k: int) -> str:
        if k == K_7D:
            return "7D"
        if k == K_2C:
            return "2C"
        if k == K_TD:
            return "TD"
        rank = "A23456789TJQK"[k] if k < 10 else "JQK"[k - K_J]
        suits = _PLAY_SUITS.get(k + 1, "SHDC") if k < 10 else "SHDC"
        if rank == "7" and not self.rules.seven_d_sweeps:
            suits = "SHCD"
        for s in reversed(suits):
            if rank + s not in floor:
                return rank + s
        raise AssertionError("no free card for kind")  # impossible with one deck

    def turn(self, sub: int, k: int) -> tuple[int | None, int]:
        """(key delta to subtract, packed gain: cards taken incl. the played card | their
        points << 8 | basra points << 16 | basras << 28) for played kind k on the floor part
        `sub` that can matter to it."""
        flag = sub & FLAG
        floor = self._decode(sub & ALL)
        if k == K_J:
            floor += self.dummies[: ((sub & COUNT) >> CNT) - len(floor)]
        if sub & OTHER:
            floor.append("QS" if k == K_K else "KS")  # a card the play cannot take
        card = self._rep_play(floor, k)
        history: tuple[Play, ...] = ()
        if flag and len(floor) == 2:
            history = (Play((floor[0],), floor[1]),)
        takes = next(iter_takes(self.rules, floor, card, 1), ())
        if takes:
            pts = basra_points(self.rules, floor, card, takes, history)
            n = len(takes) + 1
            points = sum(self.rules.card_points(c) for c in takes) + self.rules.card_points(card)
            delta: int | None = sum(UNITF[floor_kind(c)] for c in takes) + len(takes) * ONE
            if is_sweeper(self.rules, card):
                delta = None  # the whole floor goes: the loop clears the key
        else:
            pts = n = points = 0
            delta = -UNITF[floor_kind(card)] - ONE
        res = (delta, (n | points << 8 | pts << 16 | (1 << 28 if pts else 0)) if n else 0)
        if len(self.memo) > MEMO_LIMIT:
            self.memo.clear()
        self.memo[(sub << 4) | k] = res
        return res

    def left(self, key: int) -> tuple[int, int]:
        """(cards, points) of a floor key (the leftovers, R3.5)."""
        r = self.leftover.get(key)
        if r is None:
            floor = self._decode(key & ALL)
            r = (len(floor), sum(self.rules.card_points(c) for c in floor))
            self.leftover[key] = r
        return r


_TABLES: dict[RuleSet, FastRules] = {}


def fast_rules(rules: RuleSet) -> FastRules:
    """The FastRules of a rule set, kept per process so its memo stays warm."""
    fr = _TABLES.get(rules)
    if fr is None:
        fr = _TABLES[rules] = FastRules(rules)
    return fr


def fast_round(
    fr: FastRules,
    players: int,
    dealer: int,
    deck: Sequence[int],
    choices: Sequence[int],
    pending: int,
) -> RoundScore:
    """One round from a deck of card indices (top first); turn i plays hand[c % len(hand)]
    for c = choices[i] (48 of them) and takes the first plan (R8.1). Same result as a Match."""
    rules = fr.rules
    n = rules.deal_size(players)
    sides = 2 if players in (2, 4) else players
    play_kind = fr.play_kind
    memo = fr.memo
    kinds = [play_kind[c] for c in deck]
    order = [(dealer + i) % players for i in range(1, players + 1)]
    hands: list[list[int]] = [kinds[i * n : i * n + n] for i in range(players)]
    pos = n * players
    floor = list(deck[pos : pos + 4])
    rest_ids = list(deck[pos + 4 :])
    bad = fr.misdeal
    if bad[floor[0]] or bad[floor[1]] or bad[floor[2]] or bad[floor[3]]:
        while bad[floor[0]] or bad[floor[1]] or bad[floor[2]] or bad[floor[3]]:  # R1.3, R8.6
            for i in range(4):
                if bad[floor[i]]:
                    rest_ids.append(floor[i])
                    floor[i] = rest_ids.pop(0)
        rest = [play_kind[c] for c in rest_ids]
    else:
        rest = kinds[pos + 4 :]
    unit = fr.floor_unit
    key = unit[floor[0]] + unit[floor[1]] + unit[floor[2]] + unit[floor[3]] + 4 * ONE
    gain = [0] * sides  # packed per side: cards | points << 8 | basra pts << 16 | basras << 28
    side_of = [s % 2 if players == 4 else s for s in range(players)]
    turns = [(hands[t], side_of[order[t]]) for _ in range(n) for t in range(players)]
    per_deal = n * players
    masks, omasks = fr.masks, fr.omasks
    single = rules.basra_rule is BasraRule.SINGLE_CARD
    nflag = ~FLAG if single else -1
    turn = fr.turn
    last = None
    deal_pos = 0
    start = 0
    n_rest = len(rest)
    while True:
        for (hand, side), c in zip(turns, choices[start : start + per_deal], strict=False):
            k = hand.pop(c % len(hand))
            sub = key & masks[k]
            if key & omasks[k]:
                sub |= OTHER
            try:
                d, got = memo[(sub << 4) | k]
            except KeyError:
                d, got = turn(sub, k)
            key = 0 if d is None else (key & nflag) - d
            if got:
                gain[side] += got
                last = side
            elif single and key >> CNT == 2:
                key |= FLAG
        start += per_deal
        if deal_pos >= n_rest:
            break
        for h in hands:  # R1.4: 4 (or 6) more each, same order
            h.extend(rest[deal_pos : deal_pos + n])
            deal_pos += n
    cards = [g & 255 for g in gain]
    points = [(g >> 8) & 255 for g in gain]
    basra_pts = [(g >> 16) & 4095 for g in gain]
    basras = [g >> 28 for g in gain]
    if last is not None:
        c, p = fr.left(key)
        cards[last] += c
        points[last] += p
    return score_tallies(rules, cards, points, basras, basra_pts, pending, last)


def play_kind_slice(play_kind: list[int], stock: Sequence[int], pos: int, n: int) -> list[int]:
    return [play_kind[c] for c in stock[pos : pos + n]]


__all__ = ["FastRules", "fast_round", "supported", "is_sweeper"]
