"""Round and match state for a digital game (deck known) and a physical table (floor only).

Deals (R1, R8.6), turn order, re-deals, captures with basras, referee-accepted fouls,
leftovers to the last capturer (R3.5), round scoring and the match decision (R4, R5).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from engine.captures import (
    Outcome,
    Play,
    basra_points,
    is_legal_take,
    iter_takes,
    kind_of,
    plans_unchecked,
)
from engine.cards import FULL_DECK, CardError, card_index, parse_card, parse_cards, sort_cards
from engine.referee import JudgeError, Verdict, foul, judge, observed
from engine.rules import RuleSet
from engine.scoring import RoundScore, decide, score_round

PLAYS_PER_ROUND = 48  # R8.7: 52 - 4 floor cards


class IllegalPlay(ValueError):
    """A play (or round action) the rules forbid; the match state is unchanged."""


@dataclass(frozen=True)
class PlayResult:
    """What one applied turn did."""

    seat: int
    side: int
    card: str
    kind: str  # "capture" | "trail" | "sweep" | "foul" (a forced turn)
    takes: tuple[str, ...]
    basra: bool
    basra_points: int
    floor_after: tuple[str, ...]


def misdeal_cards(rules: RuleSet, floor: Sequence[str]) -> tuple[str, ...]:
    """Cards that must go back from an initial floor (R1.3): every J, and the 7D unless V3."""
    return tuple(c for c in floor if c[0] == "J" or (c == "7D" and rules.floor_returns_7d))


def deal_floor(rules: RuleSet, stock: list[str]) -> list[str]:
    """Take the initial floor from the top of `stock` and fix it (R1.3, R8.6); mutates stock."""
    floor = stock[:4]
    del stock[:4]
    while misdeal_cards(rules, floor):
        for i in range(4):
            if misdeal_cards(rules, (floor[i],)):
                stock.append(floor[i])
                floor[i] = stock.pop(0)
    return floor


class Match:
    """A whole match: rounds, turns, scores. Seats 0..n-1; with 4 players sides are seat % 2."""

    def __init__(self, rules: RuleSet, players: int = 2, dealer: int = 0) -> None:
        rules.check_players(players)
        if not 0 <= dealer < players:
            raise IllegalPlay(f"dealer must be a seat 0..{players - 1}, not {dealer}")
        self.rules = rules
        self.players = players
        self.sides = 2 if players in (2, 4) else players
        self.dealer = dealer
        self.round_no = -1  # 0-based index of the current (or last) round
        self.to_play = (dealer + 1) % players
        self.hands: list[list[str]] | None = None
        self.stock: list[str] = []
        self.plays_in_round = 0
        self.in_round = False
        self.totals = [0] * self.sides
        self.pending = 0
        self.rounds: list[RoundScore] = []
        self.finished = False
        self.winner: int | None = None
        self.log: list[dict] = []  # per round: dealer, deck|floor, plays (game-record format)
        self._floor: list[str] = []
        self._seen: set[str] = set()
        self._captured: list[list[str]] = [[] for _ in range(self.sides)]
        self._unseen_cards = [0] * self.sides  # unknown cards that took (R7 `unreadable`)
        self._basras = [0] * self.sides
        self._basra_pts = [0] * self.sides
        self._last_capturer: int | None = None
        self._history: list[Play] = []
        self._floor_seen: list[str] | None = None  # see_floor before the next play

    # -- views -------------------------------------------------------------------------
    @property
    def floor(self) -> tuple[str, ...]:
        return tuple(self._floor)

    @property
    def history(self) -> tuple[Play, ...]:
        return tuple(self._history)

    @property
    def physical(self) -> bool:
        return self.hands is None

    @property
    def round_over(self) -> bool:
        return self.in_round and self.plays_in_round >= PLAYS_PER_ROUND

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def captured(self, side: int) -> tuple[str, ...]:
        """Cards a side has captured this round (card order)."""
        return sort_cards(self._captured[side])

    def seen(self) -> frozenset[str]:
        """Every card seen this round: initial floor and every card played."""
        return frozenset(self._seen)

    def copy(self) -> Match:
        """An independent copy (undo, what-if)."""
        return copy.deepcopy(self, {id(self.rules): self.rules})

    # -- rounds ------------------------------------------------------------------------
    def check_floor(self, floor: Sequence[str]) -> Verdict | None:
        """A `misdeal` foul when an initial floor holds a J (or 7D, not V3) (R1.3), else None."""
        bad = misdeal_cards(self.rules, parse_cards(floor, "the initial floor"))
        return foul("misdeal", bad) if bad else None

    def start_round(
        self,
        deck: Sequence[str] | None = None,
        floor: Sequence[str] | None = None,
        as_seen: bool = False,
    ) -> None:
        """Start the next round: digital from a 52-card `deck` (top first), or physical from
        the initial `floor` as seen after the R1.3 fix (hands unknown). `as_seen`: a physical
        floor on which the R1.3 fix was not done (a J or 7D stayed; the referee has been told
        of the misdeal) is played on as it lies, not refused (R7)."""
        if self.finished:
            raise IllegalPlay("the match is over")
        if self.in_round:
            raise IllegalPlay("the current round is not finished")
        if (deck is None) == (floor is None):
            raise IllegalPlay("start a round with either a deck or an initial floor")
        try:
            if deck is not None:
                cards = list(parse_cards(deck, "the deck"))
                if len(cards) != 52:
                    raise IllegalPlay(f"a deck has 52 cards, not {len(cards)}")
                n = self.rules.deal_size(self.players)
                hands: list[list[str]] = [[] for _ in range(self.players)]
                self._deal(cards, hands, n)
                fl = deal_floor(self.rules, cards)
                self.hands, self.stock = hands, cards
            else:
                fl = list(parse_cards(floor or (), "the initial floor"))
                if len(fl) != 4:
                    raise IllegalPlay(f"the initial floor has 4 cards, not {len(fl)}")
                bad = misdeal_cards(self.rules, fl)
                if bad and not as_seen:
                    raise IllegalPlay(
                        f"misdeal: {' '.join(bad)} on the initial floor must be returned "
                        "and replaced (R1.3)"
                    )
                self.hands, self.stock = None, []
        except CardError as exc:
            raise IllegalPlay(str(exc)) from exc
        self.round_no += 1
        self.in_round = True
        self.plays_in_round = 0
        self.to_play = (self.dealer + 1) % self.players  # R1.5
        self._floor = sorted(fl, key=card_index)
        self._seen = set(fl)
        self._captured = [[] for _ in range(self.sides)]
        self._unseen_cards = [0] * self.sides
        self._basras = [0] * self.sides
        self._basra_pts = [0] * self.sides
        self._last_capturer = None
        self._history = []
        self._floor_seen = None
        entry: dict = {"dealer": self.dealer}
        if deck is not None:
            entry["deck"] = list(parse_cards(deck))
        else:
            entry["floor"] = list(fl)
        entry["plays"] = []
        self.log.append(entry)

    def _deal(self, stock: list[str], hands: list[list[str]], n: int) -> None:
        """Deal a block of n to each player from the player after the dealer (R1.2)."""
        for k in range(1, self.players + 1):
            seat = (self.dealer + k) % self.players
            hands[seat].extend(stock[:n])
            del stock[:n]

    # -- turns -------------------------------------------------------------------------
    def legal(self, card: str) -> Outcome:
        """The legal outcomes of `card` on the current floor (same as `plans`)."""
        return plans_unchecked(self.rules, self.floor, parse_card(card), self.history)

    def _check_turn(self, card: str) -> str:
        if not self.in_round:
            raise IllegalPlay("no round in progress")
        if self.round_over:
            raise IllegalPlay("the round is over (48 plays)")
        try:
            card = parse_card(card)
        except CardError as exc:
            raise IllegalPlay(str(exc)) from exc
        if self.hands is not None:
            if card not in self.hands[self.to_play]:
                raise IllegalPlay(f"{card} is not in the hand of seat {self.to_play}")
        elif card in self._seen:
            where = "on the floor" if card in self._floor else "already played this round"
            raise IllegalPlay(f"{card} is {where}")
        return card

    def play(self, card: str, takes: Sequence[str] | None = None) -> PlayResult:
        """Apply a legal play; `takes=None` takes the first plan (R8.1). IllegalPlay otherwise."""
        card = self._check_turn(card)
        floor = self.floor
        if takes is None:
            first = next(iter_takes(self.rules, floor, card, 1), ())
            chosen = tuple(first)
        else:
            try:
                chosen = sort_cards(parse_cards(takes, "takes"))
            except CardError as exc:
                raise IllegalPlay(f"{card}: {exc}") from exc
            if chosen:
                if not is_legal_take(self.rules, floor, card, chosen):
                    raise IllegalPlay(
                        f"{card} cannot take {' '.join(chosen)} from {' '.join(floor) or 'an empty floor'}"
                    )
            elif next(iter_takes(self.rules, floor, card, 1), None) is not None:
                raise IllegalPlay(f"{card} must capture (R2.6): it cannot be trailed here")
        pts = basra_points(self.rules, floor, card, chosen, self._history) if chosen else 0
        kind = kind_of(self.rules, card, bool(chosen))
        entry: str | dict = card
        if takes is not None and chosen:
            first = next(iter_takes(self.rules, floor, card, 1), ())
            if tuple(first) != chosen:
                entry = {"card": card, "takes": list(chosen)}
        return self._apply(card, chosen, kind, pts, entry)

    def force(
        self,
        card: str,
        floor_after: Sequence[str] | None = None,
        takes: Sequence[str] | None = None,
    ) -> PlayResult:
        """Apply a referee-accepted foul as it physically happened (R7): the cards removed from
        the floor (and the played card, if it vanished) go to the player's side; no basra."""
        card = self._check_turn(card)
        floor = self.floor
        try:
            if floor_after is not None:
                _b, _c, after, removed, stayed = observed(floor, card, floor_after)
                vanished = not stayed
                entry: dict = {"card": card, "force": True, "floor_after": list(after)}
            else:
                removed = sort_cards(parse_cards(takes or (), "takes"))
                missing = [c for c in removed if c not in floor]
                if missing:
                    raise IllegalPlay(f"{card}: {' '.join(missing)} not on the floor")
                vanished = bool(removed)
                entry = {"card": card, "force": True, "takes": list(removed)}
        except (JudgeError, CardError) as exc:
            raise IllegalPlay(str(exc)) from exc
        return self._apply(card, removed, "foul", 0, entry, vanished=vanished)

    def see_floor(self, floor: Sequence[str]) -> None:
        """A physical table: the floor is as the camera sees it now (plays that changed it
        were missed, R7: the game goes on from the floor as it physically is). Cards gone
        from it are in nobody's pile; cards new on it count as seen this round."""
        if not self.in_round or not self.physical:
            raise IllegalPlay("only a physical round in progress has a floor to see")
        try:
            cards = parse_cards(floor, "the floor seen")
        except CardError as exc:
            raise IllegalPlay(str(exc)) from exc
        self._floor = sorted(cards, key=card_index)
        self._seen |= set(cards)
        self._floor_seen = list(self.floor)  # the next play's record carries it

    def _record(self, entry: str | dict) -> None:
        """Append a play to the round's record (with the floor seen before it, if any)."""
        if self._floor_seen is not None:
            entry = {"card": entry} if isinstance(entry, str) else dict(entry)
            entry["floor_before"], self._floor_seen = self._floor_seen, None
        self.log[-1]["plays"].append(entry)

    def unseen(self, floor_after: Sequence[str], captured: bool = False) -> PlayResult:
        """A physical turn whose card the camera never saw (R7 `unreadable`, held for the
        referee): the cards that left the floor go to the side of the player to play (the
        unknown card with them); play goes on from `floor_after` as seen, and the turn counts
        (the seat order goes on). `captured`: the card was seen leave the floor with cards
        never seen there (a capture all the same: it and one card it took go to the pile,
        and its side is the last capturer, R3.5)."""
        if not self.in_round:
            raise IllegalPlay("no round in progress")
        if not self.physical:
            raise IllegalPlay("only a physical turn can be unseen (the hands are known)")
        if self.round_over:
            raise IllegalPlay("the round is over (48 plays)")
        try:
            after = parse_cards(floor_after, "the floor after the play")
        except CardError as exc:
            raise IllegalPlay(str(exc)) from exc
        removed = sort_cards(c for c in self._floor if c not in set(after))
        seat = self.to_play
        side = self.side_of(seat)
        self._history.append(Play(self.floor, ""))
        self._floor = sorted(after, key=card_index)  # the game goes on from the floor as seen
        self._seen |= set(after)
        if removed or captured:
            self._captured[side].extend(removed)
            # the card that took them went to the pile too (and, taking only cards never
            # seen, at least one of those)
            self._unseen_cards[side] += 1 if removed else 2
            self._last_capturer = side
        self.plays_in_round += 1
        self.to_play = (seat + 1) % self.players
        entry: dict = {"card": None, "force": True, "floor_after": list(after)}
        if captured and not removed:
            entry["captured"] = True
        self._record(entry)
        return PlayResult(seat, side, "", "foul", removed, False, 0, self.floor)

    def _apply(
        self,
        card: str,
        takes: tuple[str, ...],
        kind: str,
        pts: int,
        entry: str | dict,
        vanished: bool | None = None,
    ) -> PlayResult:
        seat = self.to_play
        side = self.side_of(seat)
        self._history.append(Play(self.floor, card))
        if self.hands is not None:
            self.hands[seat].remove(card)
        self._seen.add(card)
        gone = set(takes)
        self._floor = [c for c in self._floor if c not in gone]
        took_card = bool(takes) if vanished is None else vanished
        if took_card:
            self._captured[side].extend(takes)
            self._captured[side].append(card)
            self._last_capturer = side
        else:
            self._floor.append(card)
            self._floor.sort(key=card_index)
        if pts:
            self._basras[side] += 1
            self._basra_pts[side] += pts
        self.plays_in_round += 1
        self.to_play = (seat + 1) % self.players
        self._record(entry)
        if self.hands is not None and not any(self.hands) and self.stock:
            self._deal(self.stock, self.hands, self.rules.deal_size(self.players))  # R1.4
        return PlayResult(seat, side, card, kind, takes, pts > 0, pts, self.floor)

    # -- referee -----------------------------------------------------------------------
    def judge_turn(self, seat: int, card: str, floor_after: Sequence[str]) -> Verdict:
        """Judge an observed turn against the match state (R7); changes nothing.

        Adds to `judge`: `out_of_turn` (not this seat's turn), `duplicate_card` (the played
        card, or a card on the floor after, was already captured or played this round).
        """
        if not self.in_round or self.round_over:
            raise IllegalPlay("no turn to judge: no round in progress")
        try:
            c = parse_card(card)
            after = parse_cards(floor_after, "the floor after the play")
        except CardError as exc:
            raise JudgeError(str(exc)) from exc
        floor = self.floor
        removed = sort_cards(x for x in floor if x not in set(after))
        if c not in floor and c in self._seen:
            return foul("duplicate_card", removed)
        again = [x for x in after if x in self._seen and x not in floor and x != c]
        if again:
            return foul("duplicate_card", removed)
        if self.hands is not None and c not in self.hands[seat % self.players]:
            return foul("duplicate_card", removed)
        if seat != self.to_play:
            return foul("out_of_turn", removed)
        return judge(self.rules, floor, c, after, self._history)

    # -- round end ---------------------------------------------------------------------
    def end_round(self, short: bool = False) -> RoundScore:
        """Score the finished round: leftovers to the last capturer (R3.5), R4 scoring,
        totals, the match decision (R5), and the deal passes on (R1.5).

        `short`: a physical round that ended (the camera saw the next deal, or the referee
        ended it) before all 48 plays were seen: scored from the plays seen (R7: the referee
        is told and may correct the turns); the record marks it `"short": true`."""
        if short and not self.physical:
            raise IllegalPlay("only a physical round can end short (its deck is known)")
        if not self.in_round or not (self.round_over or short):
            raise IllegalPlay(
                f"the round is not finished ({self.plays_in_round} of {PLAYS_PER_ROUND} plays)"
            )
        if not self.round_over:
            self.log[-1]["short"] = True
        leftover = self._last_capturer
        if leftover is not None and self._floor:
            self._captured[leftover].extend(self._floor)  # R3.5: never a basra
            self._floor = []
        score = score_round(
            self.rules,
            self._captured,
            self._basras,
            self._basra_pts,
            self.pending,
            leftover,
            unseen=self._unseen_cards,
        )
        self.pending = score.pending
        self.rounds.append(score)
        self.totals = [t + s for t, s in zip(self.totals, score.score, strict=True)]
        self.in_round = False
        self.finished, self.winner = decide(self.rules, self.totals, len(self.rounds))
        self.dealer = (self.dealer + 1) % self.players  # R1.5; V6: dealer alternates
        self.to_play = (self.dealer + 1) % self.players
        return score

    def export(self, include_current: bool = False) -> dict:
        """This match as a DESIGN.md game record (completed rounds; optionally the current)."""
        rounds = self.log if include_current or not self.in_round else self.log[:-1]
        return {
            "variant": self.rules.name,
            "players": self.players,
            "rounds": [copy.deepcopy(r) for r in rounds],
        }


def all_cards_accounted(m: Match) -> bool:
    """After end_round: 52 distinct cards across the sides' piles and the floor (unassigned)."""
    cards = list(itertools.chain.from_iterable(m._captured)) + list(m._floor)
    return len(cards) == 52 and set(cards) == set(FULL_DECK)
