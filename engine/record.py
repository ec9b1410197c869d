"""Game records (DESIGN.md): load and validate, replay through a Match, score, export.

Errors name the place in the record (`rounds[2].plays[17]: …`) so a user can fix the file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import CardError, parse_card, parse_cards
from engine.match import PLAYS_PER_ROUND, IllegalPlay, Match
from engine.referee import JudgeError
from engine.rules import RulesError, RuleSet, get_ruleset


class RecordError(ValueError):
    """A malformed or illegal game record; the message names where."""


@dataclass(frozen=True)
class PlayRecord:
    """One turn: the card, the set it takes (None: first plan), or a forced foul."""

    card: str | None  # None: a physical turn whose card was never seen (cards were taken)
    takes: tuple[str, ...] | None = None
    force: bool = False
    floor_after: tuple[str, ...] | None = None
    floor_before: tuple[str, ...] | None = None  # physical: the floor as seen (plays missed)
    captured: bool = False  # an unseen card that left with cards never seen (Match.unseen)


@dataclass(frozen=True)
class RoundRecord:
    """One round: digital (`deck`, 52 cards, top first) or physical (initial `floor`)."""

    dealer: int | None
    deck: tuple[str, ...] | None
    floor: tuple[str, ...] | None
    plays: tuple[PlayRecord, ...]
    short: bool = False  # physical: the camera saw the next deal before all 48 plays


@dataclass(frozen=True)
class Record:
    """A whole (possibly unfinished) match."""

    variant: str
    players: int
    rules: RuleSet
    rounds: tuple[RoundRecord, ...]


def _cards(obj: Any, where: str) -> tuple[str, ...]:
    if not isinstance(obj, list | tuple):
        raise RecordError(f"{where}: expected a list of card codes")
    try:
        return parse_cards(obj, where)
    except CardError as exc:
        raise RecordError(f"{where}: {exc}") from exc


def _play(obj: Any, where: str) -> PlayRecord:
    if isinstance(obj, str):
        try:
            return PlayRecord(parse_card(obj))
        except CardError as exc:
            raise RecordError(f"{where}: {exc}") from exc
    if not isinstance(obj, dict) or "card" not in obj:
        raise RecordError(f'{where}: expected a card code or an object with "card"')
    unknown = set(obj) - {"card", "takes", "force", "floor_after", "floor_before", "captured"}
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    seen = _cards(obj["floor_before"], f"{where}.floor_before") if "floor_before" in obj else None
    if obj["card"] is None:
        # a physical turn whose card the camera never saw, cards taken (Match.unseen)
        if obj.get("force") is not True or "floor_after" not in obj or "takes" in obj:
            raise RecordError(
                f'{where}.card: an unseen card (null) needs "force": true and "floor_after"'
            )
        after = _cards(obj["floor_after"], f"{where}.floor_after")
        captured = obj.get("captured", False)
        if not isinstance(captured, bool):
            raise RecordError(f"{where}.captured: expected true or false")
        return PlayRecord(None, None, True, after, seen, captured)
    try:
        card = parse_card(obj["card"])
    except CardError as exc:
        raise RecordError(f"{where}.card: {exc}") from exc
    if "captured" in obj:
        raise RecordError(f'{where}: "captured" is only for an unseen card (null)')
    force = obj.get("force", False)
    if not isinstance(force, bool):
        raise RecordError(f"{where}.force: expected true or false")
    takes = _cards(obj["takes"], f"{where}.takes") if "takes" in obj else None
    after = _cards(obj["floor_after"], f"{where}.floor_after") if "floor_after" in obj else None
    if after is not None and not force:
        raise RecordError(f'{where}: "floor_after" is only for a forced play ("force": true)')
    if force and (after is None) == (takes is None):
        raise RecordError(f'{where}: a forced play gives exactly one of "floor_after" or "takes"')
    return PlayRecord(card, takes, force, after, seen)


def load_record(obj_or_path: Any) -> Record:
    """Parse and validate a game record (a dict, JSON text, or a path to a JSON file)."""
    obj = obj_or_path
    if isinstance(obj, Path) or (isinstance(obj, str) and not obj.lstrip().startswith("{")):
        try:
            obj = Path(obj).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read {obj_or_path}: {exc.strerror or exc}") from exc
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(obj, dict):
        raise RecordError("a game record is a JSON object")
    try:
        rules = get_ruleset(obj.get("variant", ""))
    except RulesError as exc:
        raise RecordError(f"variant: {exc}") from exc
    players = obj.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise RecordError("players: expected 2, 3 or 4")
    try:
        rules.check_players(players)
    except RulesError as exc:
        raise RecordError(f"players: {exc}") from exc
    rounds_obj = obj.get("rounds")
    if not isinstance(rounds_obj, list):
        raise RecordError("rounds: expected a list of rounds")
    rounds = []
    for r, ro in enumerate(rounds_obj):
        where = f"rounds[{r}]"
        if not isinstance(ro, dict):
            raise RecordError(f"{where}: expected an object")
        dealer = ro.get("dealer")
        if dealer is not None and (
            not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players
        ):
            raise RecordError(f"{where}.dealer: expected a seat 0..{players - 1}")
        has_deck, has_floor = "deck" in ro, "floor" in ro
        if has_deck == has_floor:
            raise RecordError(f'{where}: give exactly one of "deck" (52 cards) or "floor"')
        deck = _cards(ro["deck"], f"{where}.deck") if has_deck else None
        if deck is not None and len(deck) != 52:
            raise RecordError(f"{where}.deck: a deck has 52 cards, not {len(deck)}")
        floor = _cards(ro["floor"], f"{where}.floor") if has_floor else None
        if floor is not None and len(floor) != 4:
            raise RecordError(f"{where}.floor: the initial floor has 4 cards, not {len(floor)}")
        plays_obj = ro.get("plays")
        if not isinstance(plays_obj, list):
            raise RecordError(f"{where}.plays: expected a list of plays")
        plays = tuple(_play(p, f"{where}.plays[{i}]") for i, p in enumerate(plays_obj))
        short = ro.get("short", False)
        if not isinstance(short, bool):
            raise RecordError(f"{where}.short: expected true or false")
        if short and floor is None:
            raise RecordError(f'{where}.short: only a physical round (with "floor") can be short')
        if short and len(plays) >= PLAYS_PER_ROUND:
            raise RecordError(
                f"{where}.short: a short round has fewer than {PLAYS_PER_ROUND} plays, "
                f"this one has {len(plays)}"
            )
        rounds.append(RoundRecord(dealer, deck, floor, plays, short))
    return Record(rules.name, players, rules, tuple(rounds))


def replay(record: Record, rules: RuleSet | None = None) -> Match:
    """Play the record through a Match; RecordError names the first bad round or play."""
    rules = rules or record.rules
    first = record.rounds[0].dealer if record.rounds and record.rounds[0].dealer is not None else 0
    m = Match(rules, record.players, first)
    for r, rd in enumerate(record.rounds):
        where = f"rounds[{r}]"
        if m.finished:
            raise RecordError(f"{where}: the match was already decided after rounds[{r - 1}]")
        if rd.dealer is not None and rd.dealer != m.dealer:
            raise RecordError(
                f"{where}.dealer: expected seat {m.dealer} (the deal passes on, R1.5), "
                f"got {rd.dealer}"
            )
        try:
            m.start_round(deck=rd.deck, floor=rd.floor)
        except IllegalPlay as exc:
            raise RecordError(f"{where}: {exc}") from exc
        if len(rd.plays) != PLAYS_PER_ROUND and not rd.short:
            raise RecordError(
                f"{where}.plays: a round has {PLAYS_PER_ROUND} plays, this one has {len(rd.plays)}"
            )
        for i, p in enumerate(rd.plays):
            try:
                if p.floor_before is not None:
                    if rd.floor is None:
                        raise IllegalPlay('"floor_before" is only for a physical round')
                    m.see_floor(p.floor_before)
                if p.card is None:
                    m.unseen(p.floor_after or (), captured=p.captured)
                elif p.force:
                    m.force(p.card, floor_after=p.floor_after, takes=p.takes)
                else:
                    m.play(p.card, takes=p.takes)
            except (IllegalPlay, JudgeError, CardError) as exc:
                raise RecordError(f"{where}.plays[{i}]: {exc}") from exc
        m.end_round(short=rd.short)
    return m


def score_match(m: Match) -> dict:
    """The `basra-table score --json` shape for a match's completed rounds."""
    return {
        "rounds": [s.to_dict() for s in m.rounds],
        "totals": list(m.totals),
        "winner": m.winner,
        "finished": m.finished,
    }


def score_record(record: Record | dict | str | Path) -> dict:
    """Replay a record and return the `basra-table score --json` shape (DESIGN.md)."""
    rec = record if isinstance(record, Record) else load_record(record)
    return score_match(replay(rec))


def export_record(m: Match, include_current: bool = False) -> dict:
    """A DESIGN.md game record of a Match (digital or physical)."""
    return m.export(include_current)


def dump_record(record: dict, indent: int | None = None) -> str:
    """The record as JSON text."""
    return json.dumps(record, indent=indent)


__all__: Sequence[str] = (
    "PlayRecord",
    "Record",
    "RecordError",
    "RoundRecord",
    "dump_record",
    "export_record",
    "load_record",
    "replay",
    "score_match",
    "score_record",
)
