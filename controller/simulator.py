"""Rendered videos of whole matches played by bots: the table controller's proving ground.

`play_match` plays a match with the engine (optionally injecting fouls and a misdeal),
`choreograph` turns it into timed shots (hands reaching, laying, scooping), and `SimVideo`
renders those shots into frames with `vision.scene` (each static scene composed once).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.errors import UserError
from controller.table_geometry import TableGeometry

FOUL_KINDS = ("missed_capture", "wrong_capture")
# how laid cards lie: upright to the camera (within 10 degrees), facing the player who laid
# them (a player at the frame's left or right lays them across), or at any angle (tossed)
CARD_TURNS = ("upright", "seat", "any")


# ---- the game ------------------------------------------------------------------------------
@dataclass
class SimPlay:
    """One turn as it physically happens at the table."""

    round: int
    index: int  # 0-based in the round, as rounds[r].plays[i] of the record
    seat: int
    card: str
    floor_before: tuple[str, ...]
    floor_after: tuple[str, ...]
    foul: str | None = None  # an injected foul kind
    fast: bool = False  # laid and scooped in one motion (the card is then shown on request)


@dataclass
class SimRound:
    index: int
    dealer: int
    raw_floor: tuple[str, ...]  # the 4 cards first laid (may hold a J / 7D)
    fixes: list[tuple[int, str, str]]  # (slot, returned card, replacement), R1.3 / R8.6
    floor: tuple[str, ...]  # after the fix
    plays: list[SimPlay] = field(default_factory=list)
    redeal_after: list[int] = field(default_factory=list)  # play indices after which hands refill
    last_capturer_seat: int | None = None


@dataclass
class SimGame:
    variant: str
    players: int
    seed: int
    rounds: list[SimRound]
    record: dict
    fouls: list[dict]
    finished: bool


def _bot_choice(m, rng: np.random.Generator) -> tuple[str, tuple[str, ...] | None]:
    """A plausible player: usually captures when it can, plays some card otherwise."""
    hand = list(m.hands[m.to_play])
    rng.shuffle(hand)
    capturing = [(c, m.legal(c)) for c in hand]
    capturing = [(c, o) for c, o in capturing if o.plans]
    if capturing and rng.random() < 0.85:
        card, outcome = capturing[int(rng.integers(len(capturing)))]
        plan = outcome.plans[int(rng.integers(len(outcome.plans)))]
        return card, tuple(plan.takes)
    non = [c for c in hand if not m.legal(c).plans]
    if non:
        return non[0], None
    card, outcome = capturing[0]
    return card, tuple(outcome.plans[0].takes)


def _deck_for_round(rng: np.random.Generator, players: int, rules, misdeal: bool) -> list[str]:
    from engine.cards import FULL_DECK

    deck = list(FULL_DECK)
    rng.shuffle(deck)
    if misdeal:  # put a J among the 4 cards first laid on the floor (R1.3 must be fixed)
        first = players * rules.deal_size(players)
        if not any(c[0] == "J" for c in deck[first : first + 4]):
            j = next(i for i, c in enumerate(deck) if c[0] == "J")
            slot = first + int(rng.integers(4))
            deck[j], deck[slot] = deck[slot], deck[j]
    return deck


def _floor_fixes(
    rules, deck: list[str], players: int
) -> tuple[list[str], list[tuple[int, str, str]]]:
    """Replays R8.6 on the deck to know what the dealer does on camera."""
    from engine.match import misdeal_cards

    stock = list(deck[players * rules.deal_size(players) :])
    raw = stock[:4]
    floor = list(raw)
    del stock[:4]
    fixes = []
    while misdeal_cards(rules, floor):
        for i in range(4):
            if misdeal_cards(rules, (floor[i],)):
                stock.append(floor[i])
                new = stock.pop(0)
                fixes.append((i, floor[i], new))
                floor[i] = new
    return raw, fixes


def play_match(
    variant: str,
    players: int,
    seed: int,
    rounds: int | None = None,
    fouls: int = 0,
    misdeal: bool = False,
    fast_share: float = 0.06,
    dealer: int | None = None,
) -> SimGame:
    """A match played by bots with the engine; `fouls` turns become injected fouls."""
    from engine.match import Match
    from engine.rules import RulesError, get_ruleset

    try:
        rules = get_ruleset(variant)
        rules.check_players(players)
    except RulesError as exc:
        raise UserError(str(exc)) from None
    if rounds is not None and rounds < 1:
        raise UserError(f"--rounds must be at least 1, not {rounds}")
    if fouls < 0:
        raise UserError(f"--fouls must be 0 or more, not {fouls}")
    if seed < 0:
        raise UserError(f"--seed must be 0 or more, not {seed}")
    rng = np.random.default_rng(seed)
    first = int(rng.integers(players))  # R1.5: the first dealer is chosen at random
    if dealer is not None:
        if not 0 <= dealer < players:
            raise UserError(f"--dealer must be a seat from 0 to {players - 1}, not {dealer}")
        first = dealer
    m = Match(rules, players=players, dealer=first)
    # Foul slots: spread over the first rounds (turns 3..36, deferred at most to 45: never
    # the last plays, whose leftovers scoop would hide a missed capture).
    limit_rounds = rounds if rounds is not None else 10_000
    foul_slots: dict[tuple[int, int], str] = {}
    if fouls:
        n_rounds = min(limit_rounds, 3)
        picks = rng.choice(np.arange(3, 37), size=min(fouls, 34), replace=False)
        for k, p in enumerate(sorted(int(x) for x in picks)):
            r = k % n_rounds
            foul_slots[(r, p)] = FOUL_KINDS[int(rng.integers(2))]
    sim_rounds: list[SimRound] = []
    injected: list[dict] = []
    while not m.finished and len(sim_rounds) < limit_rounds:
        r = len(sim_rounds)
        deck = _deck_for_round(rng, players, rules, misdeal and r == 0)
        raw, fixes = _floor_fixes(rules, deck, players)
        dealer = m.dealer
        m.start_round(deck=deck)
        sr = SimRound(r, dealer, tuple(raw), fixes, tuple(m.floor))
        pending_fouls = {p: k for (rr, p), k in foul_slots.items() if rr == r}
        while not m.round_over:
            i = m.plays_in_round
            seat = m.to_play
            before = m.floor
            hand_sizes = [len(h) for h in m.hands]
            want = pending_fouls.get(i)
            done = False
            if want is not None:
                done = _inject(m, rng, want)
                if done:
                    sim = SimPlay(r, i, seat, m.log[-1]["plays"][-1]["card"], before, m.floor, want)
                    injected.append({"round": r, "play": i, "card": sim.card, "kind": want})
                else:  # no capturing card in hand: try a later turn (before the round's end)
                    later = next((j for j in range(i + 1, 46) if j not in pending_fouls), None)
                    if later is not None:
                        pending_fouls[later] = want
            if not done:
                card, takes = _bot_choice(m, rng)
                m.play(card, takes=list(takes) if takes else None)
                # A fast scoop right after a missed capture would look, from the floor alone,
                # like the previous player's late capture: the bots do not mix the two.
                after_foul = bool(sr.plays) and sr.plays[-1].foul is not None
                fast = bool(takes) and i < 46 and rng.random() < fast_share and not after_foul
                sim = SimPlay(r, i, seat, card, before, m.floor, None, fast)
            sr.plays.append(sim)
            if sum(len(h) for h in m.hands) > sum(hand_sizes) - 1:
                sr.redeal_after.append(i)
            if set(before) - set(sim.floor_after):
                sr.last_capturer_seat = seat
        m.end_round()
        sim_rounds.append(sr)
    record = m.export()
    return SimGame(rules.name, players, seed, sim_rounds, record, injected, bool(m.finished))


def _inject(m, rng: np.random.Generator, kind: str) -> bool:
    """Play a foul of `kind` if the player holds a capturing card (applied as m.force)."""
    from engine.cards import sort_cards

    hand = list(m.hands[m.to_play])
    rng.shuffle(hand)
    for card in hand:
        outcome = m.legal(card)
        if not outcome.plans:
            continue
        floor = list(m.floor)
        takes = list(outcome.plans[0].takes)
        if kind == "missed_capture":
            after = sort_cards([*floor, card])  # the card is left on the floor
        else:
            if outcome.kind == "sweep":
                continue  # a sweep has no "wrong" subset that stays a plausible mistake
            if len(takes) >= 2:
                keep = takes[int(rng.integers(len(takes)))]  # one card of the capture is left
                after = sort_cards([c for c in floor if c not in takes or c == keep])
            else:
                extra = [c for c in floor if c not in takes]
                if not extra:
                    continue
                grab = extra[int(rng.integers(len(extra)))]  # one card too many is taken
                after = sort_cards([c for c in floor if c not in takes and c != grab])
        m.force(card, floor_after=after)
        return True
    return False


# ---- choreography: the game as timed shots ------------------------------------------------
@dataclass
class Shot:
    """A stretch of video: the cards lying on the table and, while a hand moves, its poses."""

    duration: float
    cards: list[Any]  # vision.scene.CardPlacement lying on the table
    poses: list[tuple[tuple[float, float], tuple[float, float], Any]] = field(default_factory=list)
    # each pose: (arm base, hand tip, held CardPlacement or None)
    floor: frozenset[str] = frozenset()  # the true floor while this shot shows (when still)
    mark: dict | None = None  # what this shot's first frame means (for latency / tests)


@dataclass
class Timing:
    """Human timing (seconds); `fast` makes the still pauses short for quick tests."""

    lay: float = 0.36
    withdraw: float = 0.26
    pause_trail: tuple[float, float] = (0.45, 0.85)
    pause_capture: tuple[float, float] = (0.8, 1.25)  # "lies alone for about a second"
    scoop: float = 0.5
    after_scoop: tuple[float, float] = (0.45, 0.8)
    deal: float = 0.9
    prompt_wait: float = 0.8  # the dealer / player reacts to a prompt
    pose_hz: float = 7.0  # distinct arm renders per second (frames between are blended)


class Choreographer:
    """Places cards on the floor and in piles and writes the shots of a whole game."""

    def __init__(
        self,
        game: SimGame,
        geometry: TableGeometry,
        size,
        rng,
        card_h: float,
        cards: str = "upright",
    ):
        self.g = game
        self.cards = cards  # how a laid card lies: CARD_TURNS
        self.geo = geometry
        self.w, self.h = size
        self.rng = rng
        self.card_h = card_h
        self.slots = self._slots()
        self.at: dict[str, Any] = {}  # code -> CardPlacement on the floor
        self.piles: list[list[Any]] = [[] for _ in range(game.players)]
        self.shots: list[Shot] = []
        self.t = 0.0
        self.timing = Timing()

    # geometry helpers
    def _slots(self) -> list[tuple[float, float]]:
        x1, y1, x2, y2 = self.geo.floor_box(self.w, self.h)
        mx, my = self.card_h * 0.5, self.card_h * 0.62
        cols, rows = 7, 3
        out = []
        for r in range(rows):
            for c in range(cols):
                x = x1 + mx + (x2 - x1 - 2 * mx) * (c + 0.5) / cols
                y = y1 + my + (y2 - y1 - 2 * my) * (r + 0.5) / rows
                out.append((x, y))
        return out

    def _free_slot(self) -> tuple[float, float]:
        used = [p.center for p in self.at.values()]
        free = [  # floor cards lie apart: their corner indices stay readable
            s for s in self.slots if all(math.hypot(s[0] - u[0], s[1] - u[1]) > 70 for u in used)
        ]
        x, y = free[int(self.rng.integers(len(free)))] if free else self._random_spot()
        return (x + self.rng.uniform(-8, 8), y + self.rng.uniform(-6, 6))

    def _random_spot(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.geo.floor_box(self.w, self.h)
        m = self.card_h * 0.6
        return (self.rng.uniform(x1 + m, x2 - m), self.rng.uniform(y1 + m, y2 - m))

    def _seat_base(self, seat: int) -> tuple[float, float]:
        sx, sy = self.geo.seats[seat % len(self.geo.seats)]
        x, y = sx * self.w, sy * self.h
        # push the arm's base just off the nearest frame edge
        edge = self._edge(seat)
        jitter = self.rng.uniform(-60, 60)
        if edge == "b":
            return (x + jitter, self.h + 30.0)
        if edge == "t":
            return (x + jitter, -30.0)
        if edge == "l":
            return (-30.0, y + jitter)
        return (self.w + 30.0, y + jitter)

    def _pile_spot(self, seat: int) -> tuple[float, float]:
        sx, sy = self.geo.seats[seat % len(self.geo.seats)]
        x = min(max(sx * self.w, 30), self.w - 30)  # at the edge, partly out of the frame
        y = min(max(sy * self.h, 10), self.h - 10)
        off = 180 if len(self.geo.seats) == 2 else 0
        return (x + off, y) if abs(sy - 0.5) > abs(sx - 0.5) else (x, y + 120)

    def _placement(self, code: str, center, face_up: bool = True, seat: int | None = None):
        """A card lying at `center`: upright to the camera within 10 degrees; laid by `seat`
        with `cards` "seat", turned to face that player; with "any", at any angle (the same
        draws either way, so a match plays out alike and only the cards' turn differs)."""
        from vision.scene import CardPlacement

        angle = float(self.rng.uniform(-10, 10))
        if self.cards == "any" and seat is not None:
            angle *= 18.0
        elif self.cards == "seat" and seat is not None:
            angle += self._facing(seat)
        return CardPlacement(
            code,
            (float(center[0]), float(center[1])),
            angle,
            float(self.card_h * self.rng.uniform(0.97, 1.03)),
            face_up,
        )

    def _edge(self, seat: int) -> str:
        """The frame edge nearest the seat (l, r, t or b): the player's side of the table."""
        sx, sy = self.geo.seats[seat % len(self.geo.seats)]
        d = {"l": sx, "r": 1 - sx, "t": sy, "b": 1 - sy}
        return min(d, key=d.get)

    def _facing(self, seat: int) -> float:
        """The turn (degrees) of a card lying the right way up for the player at `seat`."""
        return {"b": 0.0, "t": 180.0, "l": 90.0, "r": -90.0}[self._edge(seat)]

    def _table_cards(self) -> list[Any]:
        out = []
        for pile in self.piles:
            out += pile[-3:]  # a pile shows its top few cards, face down
        return out + list(self.at.values())

    def _floor(self) -> frozenset[str]:
        return frozenset(self.at)

    # shot writers
    def _still(self, duration: float, mark: dict | None = None) -> None:
        self.shots.append(Shot(duration, self._table_cards(), [], self._floor(), mark))
        self.t += duration

    def _move(self, duration: float, base, start, end, held=None, mark=None) -> None:
        """A hand moving from `start` to `end` (held card follows the hand)."""
        n = max(2, round(duration * self.timing.pose_hz))
        poses = []
        for k in range(n):
            a = (k + 1) / n
            ease = 0.5 - 0.5 * math.cos(math.pi * a)
            tip = (start[0] + (end[0] - start[0]) * ease, start[1] + (end[1] - start[1]) * ease)
            tip = (tip[0] + self.rng.uniform(-4, 4), tip[1] + self.rng.uniform(-4, 4))
            card = None
            if held is not None:
                card = _moved(held, tip)
            poses.append((base, tip, card))
        self.shots.append(Shot(duration, self._table_cards(), poses, self._floor(), mark))
        self.t += duration

    def _edge_point(self, base) -> tuple[float, float]:
        """Where a withdrawing hand leaves the frame (just inside the edge)."""
        x, y = base
        return (min(max(x, -10), self.w + 10), min(max(y, -10), self.h + 10))

    def lay(self, seat: int, code: str, center=None, pause: float = 0.5, mark=None) -> None:
        base = self._seat_base(seat)
        center = center or self._free_slot()
        card = self._placement(code, center, seat=seat)
        self._move(self.timing.lay, base, self._edge_point(base), center, held=card)
        self.at[code] = card
        touch = {**mark, "kind": "touch"} if mark else None
        self._move(self.timing.withdraw, base, center, self._edge_point(base), mark=touch)
        self._still(pause, mark)  # the mark's time: the first frame with the hand gone

    def scoop(self, seat: int, codes: list[str], pause: float, mark=None, to_pile=True) -> None:
        base = self._seat_base(seat)
        spots = [self.at[c].center for c in codes if c in self.at]
        if not spots:
            return
        cx = sum(s[0] for s in spots) / len(spots)
        cy = sum(s[1] for s in spots) / len(spots)
        self._move(self.timing.scoop * 0.5, base, self._edge_point(base), (cx, cy))
        for c in codes:
            p = self.at.pop(c, None)
            if p is not None and to_pile:
                self.piles[seat].append(self._placement(c, self._pile_spot(seat), face_up=False))
        self._move(self.timing.scoop * 0.5, base, (cx, cy), self._edge_point(base))
        self._still(pause, mark)  # the mark's time: the first frame with the hand gone

    def deal_hands(self, dealer: int) -> None:
        """The dealer deals hands (face down, off the floor, at each player's edge)."""
        base = self._seat_base(dealer)
        for k in range(1, self.g.players + 1):
            seat = (dealer + k) % self.g.players
            spot = self._pile_spot(seat)
            spot = (spot[0] - 260, spot[1]) if len(self.geo.seats) == 2 else spot
            held = self._placement("AS", spot, face_up=False)
            self._move(self.timing.deal / self.g.players, base, self._edge_point(base), spot, held)
        self._still(0.3)

    # the whole game
    def write(self, fast_timing: bool = False) -> list[Shot]:
        tm = self.timing
        u = self.rng.uniform
        for sr in self.g.rounds:
            self._still(0.6 if sr.index == 0 else 0.4, {"kind": "round", "round": sr.index})
            self.deal_hands(sr.dealer)
            slots = []
            for code in sr.raw_floor:
                slot = self._free_slot()
                slots.append(slot)
                self.lay(sr.dealer, code, slot, pause=0.35)
            for slot, bad, new in sr.fixes:  # R1.3: the dealer returns a J / 7D, lays another
                self._still(tm.prompt_wait, {"kind": "misdeal_fix", "card": bad})
                self.scoop(sr.dealer, [bad], pause=0.3, to_pile=False)
                self.lay(sr.dealer, new, slots[slot], pause=0.5)
            self._still(0.4, {"kind": "round_started", "round": sr.index})
            for p in sr.plays:
                self._write_play(p, u)
                if p.index in sr.redeal_after and p.index < 47:
                    self.deal_hands(sr.dealer)
            leftovers = list(self.at)
            if leftovers:  # R3.5: the last capturer takes what is left
                seat = sr.last_capturer_seat if sr.last_capturer_seat is not None else sr.dealer
                self.scoop(seat, leftovers, pause=0.6)
            self._still(0.5, {"kind": "round_over", "round": sr.index})
            for pile in self.piles:
                pile.clear()
        return self.shots

    def _write_play(self, p: SimPlay, u) -> None:
        tm = self.timing
        mark = {"kind": "landed", "round": p.round, "play": p.index, "card": p.card}
        removed = [c for c in p.floor_before if c not in p.floor_after]
        stays = p.card in p.floor_after
        if p.fast:
            # Laid and scooped in one motion: the card is never seen lying still.
            base = self._seat_base(p.seat)
            target = self.at[removed[0]].center if removed else self._free_slot()
            card = self._placement(p.card, target, seat=p.seat)
            self._move(tm.lay, base, self._edge_point(base), target, held=card)
            for c in removed:
                self.at.pop(c, None)
            self.piles[p.seat].append(self._placement(p.card, self._pile_spot(p.seat), False))
            self._move(tm.withdraw, base, target, self._edge_point(base))
            self._still(tm.prompt_wait, {"kind": "scooped", "round": p.round, "play": p.index})
            # "show the card": the player lays it face up, then takes it back.
            slot = self._free_slot()
            self.lay(p.seat, p.card, slot, pause=0.0, mark={**mark, "kind": "shown"})
            self._still(u(0.6, 0.9))
            self.scoop(p.seat, [p.card], pause=u(*tm.after_scoop))
            return
        if not removed:
            pause = u(*tm.pause_trail)
            self.lay(p.seat, p.card, pause=pause, mark=mark)
            return
        self.lay(p.seat, p.card, pause=u(*tm.pause_capture), mark={**mark, "kind": "laid"})
        gone = removed + ([] if stays else [p.card])
        self.scoop(p.seat, gone, pause=u(*tm.after_scoop), mark=mark)


def _moved(p, tip):
    from vision.scene import CardPlacement

    return CardPlacement(
        p.code, (float(tip[0]), float(tip[1])), p.angle_deg, p.height_px, p.face_up
    )


# ---- rendering -----------------------------------------------------------------------------
@dataclass
class SimVideo:
    """A rendered match: iterate `frames()` for (t, BGR frame); `marks` say what happened when."""

    game: SimGame
    shots: list[Shot]
    fps: int
    size: tuple[int, int]
    deck_name: str
    seed: int
    geometry: TableGeometry

    @property
    def duration(self) -> float:
        return sum(s.duration for s in self.shots)

    def marks(self) -> list[dict]:
        """Each shot's mark with its start time (video seconds, on the frame grid)."""
        out, t = [], 0.0
        for s in self.shots:
            if s.mark is not None:
                out.append({**s.mark, "t": _on_grid(t, self.fps)})
            t += s.duration
        return out

    def still_floors(self) -> Iterator[tuple[float, frozenset[str]]]:
        """The true floor at the end of every still shot (what a perfect tracker settles on)."""
        t = 0.0
        for s in self.shots:
            t += s.duration
            if not s.poses and s.duration > 0:
                yield t, s.floor

    def frames(self, with_labels: bool = False) -> Iterator[tuple]:
        """(t, frame) per video frame; with_labels adds the exact face-up card labels shown."""
        from vision.deck import Deck
        from vision.scene import Camera, Light, Occluder, TableBackground, render, skin_tone

        rng = np.random.default_rng(self.seed)
        w, h = self.size
        try:
            deck = Deck.load(self.deck_name)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        bg = TableBackground.random(rng, (w, h), kind=str(rng.choice(["felt", "wood", "cloth"])))
        light_field = _light_field(rng, w, h)
        skin = skin_tone(rng)
        light = Light(gradient=0.0, tint=(1.0, 1.0, 1.0), glare=0, shadow=0.3)
        camera = Camera(blur=0.0, motion=0.0, noise=0.0, jpeg=100, tilt=0.0)
        noise = [rng.normal(0, 2.2, (h, w, 3)).astype(np.int16) for _ in range(5)]
        arm_w = 0.1 * min(w, h)

        def draw(cards) -> tuple[np.ndarray, list]:
            img, labels = render(
                bg, deck, list(cards), np.random.default_rng(7), None, light, camera
            )
            img = cv2.multiply(img, light_field, dtype=cv2.CV_8U)
            return img, [lab for lab in labels if lab.face_up and lab.indices]

        def draw_hand(still: tuple[np.ndarray, list], cards, pose) -> tuple[np.ndarray, list]:
            """The still scene with an arm: only the arm's box is re-rendered (cheap)."""
            base, tip, held = pose
            pts = [base, tip]
            if held is not None:
                pts += [
                    (held.center[0] + dx, held.center[1] + dy)
                    for dx in (-90, 90)
                    for dy in (-90, 90)
                ]
            pad = arm_w * 2.7 + 30  # palm and fingers reach past the tip
            x0 = int(max(0, min(p[0] for p in pts) - pad))
            y0 = int(max(0, min(p[1] for p in pts) - pad))
            x1 = int(min(w, max(p[0] for p in pts) + pad))
            y1 = int(min(h, max(p[1] for p in pts) + pad))
            sub = TableBackground(bg.image[y0:y1, x0:x1].copy(), bg.kind)
            placements = [_moved(c, (c.center[0] - x0, c.center[1] - y0)) for c in cards]
            if held is not None:
                placements.append(_moved(held, (held.center[0] - x0, held.center[1] - y0)))
            occ = Occluder(
                (float(base[0] - x0), float(base[1] - y0)),
                (float(tip[0] - x0), float(tip[1] - y0)),
                arm_w,
                skin,
            )
            crop, labels = render(
                sub, deck, placements, np.random.default_rng(7), [occ], light, camera
            )
            img = still[0].copy()
            img[y0:y1, x0:x1] = cv2.multiply(crop, light_field[y0:y1, x0:x1], dtype=cv2.CV_8U)
            inside = [_shift_label(lab, x0, y0) for lab in labels if lab.face_up and lab.indices]
            outside = [
                lab for lab in still[1]
                if lab.box[2] < x0 or lab.box[0] > x1 or lab.box[3] < y0 or lab.box[1] > y1
            ]  # fmt: skip
            return img, outside + inside

        dt = 1.0 / self.fps
        t_video = 0.0
        frame_no = 0
        gain_steps = _gain_steps(rng, self.duration)
        for shot in self.shots:
            end = t_video + shot.duration
            n = max(0, round(end * self.fps) - frame_no)
            if n == 0:
                t_video = end
                continue
            still = draw(shot.cards)
            drawn = [draw_hand(still, shot.cards, pose) for pose in shot.poses] or [still]
            for k in range(n):
                t = frame_no * dt
                # Between two hand poses the frame is a blend (the hand moves every frame).
                pos = k / max(1, n - 1) * (len(drawn) - 1)
                i0 = int(min(max(math.floor(pos), 0), len(drawn) - 1))
                i1 = min(i0 + 1, len(drawn) - 1)
                a = float(min(max(pos - i0, 0.0), 1.0))
                frame, labels = drawn[i0]
                if i1 != i0 and a > 0:
                    frame = cv2.addWeighted(frame, 1 - a, drawn[i1][0], a, 0)
                    if a >= 0.5:
                        labels = drawn[i1][1]
                img = _camera(frame, noise[frame_no % len(noise)], _gain(t, gain_steps))
                yield (t, img, labels) if with_labels else (t, img)
                frame_no += 1
            t_video = end


def _shift_label(lab, dx: int, dy: int):
    from vision.scene import CardLabel

    quad = [[x + dx, y + dy] for x, y in lab.quad]
    box = [lab.box[0] + dx, lab.box[1] + dy, lab.box[2] + dx, lab.box[3] + dy]
    return CardLabel(lab.code, quad, box, lab.indices, lab.visible, lab.face_up)


def _on_grid(t: float, fps: int) -> float:
    return round(t * fps) / fps


def _light_field(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A fixed, soft lamp falloff over the table (uneven light)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    r = np.hypot((xx - cx) / w, (yy - cy) / h)
    f = 1.05 - rng.uniform(0.15, 0.35) * r
    return cv2.merge([f, f, f]).astype(np.float32)


def _gain_steps(rng: np.random.Generator, duration: float) -> list[tuple[float, float]]:
    """Light changes: a lamp switched or a cloud, every half-minute or so."""
    steps, t = [], 0.0
    while t < duration:
        t += rng.uniform(20, 45)
        steps.append((t, float(rng.uniform(-0.07, 0.07))))
    return steps


def _gain(t: float, steps: list[tuple[float, float]]) -> float:
    g = 1.0 + 0.03 * math.sin(2 * math.pi * t / 17.0)  # slow drift
    for ts, d in steps:
        if t >= ts:
            g += d
    return g


def _camera(frame: np.ndarray, noise: np.ndarray, gain: float) -> np.ndarray:
    img = frame.astype(np.int16)
    img += noise
    out = cv2.convertScaleAbs(img, alpha=gain)
    return out


# ---- public entry points ---------------------------------------------------------------------
def simulate(
    variant: str = "classic",
    players: int = 2,
    seed: int = 0,
    rounds: int | None = None,
    fouls: int = 0,
    misdeal: bool = False,
    fps: int = 30,
    deck: str = "aguilar-lgpl3",
    size: tuple[int, int] = (1280, 720),
    fast_share: float = 0.06,
    geometry: TableGeometry | None = None,
    dealer: int | None = None,
    cards: str = "upright",
) -> SimVideo:
    """Play a match with bots and choreograph it; render lazily with `SimVideo.frames()`.
    `cards` (CARD_TURNS) says how laid cards lie; the match played is the same for each."""
    if fps not in (15, 30):
        raise UserError(f"--fps must be 15 or 30, not {fps}")
    if cards not in CARD_TURNS:
        raise UserError(f"--cards must be one of {', '.join(CARD_TURNS)}, not {cards!r}")
    from vision.deck import available_decks

    if deck not in available_decks():
        raise UserError(f"unknown deck {deck!r}; shipped: {', '.join(available_decks())}")
    game = play_match(variant, players, seed, rounds, fouls, misdeal, fast_share, dealer)
    geo = geometry or TableGeometry.default(players)
    rng = np.random.default_rng(seed + 1)
    card_h = 0.16 * size[1]
    shots = Choreographer(game, geo, size, rng, card_h, cards).write()
    return SimVideo(game, shots, fps, size, deck, seed, geo)


def write_video(video: SimVideo, out: str | Path) -> int:
    """Encode the frames to an mp4 file; returns the number of frames."""
    out = Path(out)
    if out.parent and not out.parent.exists():
        raise UserError(f"cannot write {out}: folder {out.parent} does not exist")
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), video.fps, video.size)
    if not writer.isOpened():
        raise UserError(f"cannot write video {out}")
    n = 0
    try:
        for _t, frame in video.frames():
            writer.write(frame)
            n += 1
    finally:
        writer.release()
    return n


def fouls_path(record_path: str | Path) -> Path:
    """Where the injected fouls list goes: beside the record, `NAME.fouls.json`."""
    p = Path(record_path)
    return p.with_name(p.stem + ".fouls.json")


def write_truth(video: SimVideo, record_path: str | Path) -> dict:
    """Write the true game record and, beside it, the injected fouls (and the timeline marks)."""
    rec = dict(video.game.record)
    p = Path(record_path)
    try:
        p.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
        truth = {
            "fouls": video.game.fouls,
            "fps": video.fps,
            "seed": video.seed,
            "deck": video.deck_name,
            "marks": video.marks(),
        }
        fouls_path(p).write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {p}: {exc.strerror or exc}") from None
    return rec
