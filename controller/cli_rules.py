"""`basra-table rules plans|judge`, `score` and `play`: the rules engine on the command line.

Thin I/O over `engine`: parse options, call the engine, print JSON (`--json`) or a rich table;
bad input becomes a UserError (one line, exit 2).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.errors import UserError

rules_app = typer.Typer(
    name="rules",
    help="Ask the rules engine: legal plans of a play, referee verdict of a turn.",
    no_args_is_help=True,
)

Variant = Annotated[
    str | None,
    typer.Option("--variant", "-v", help="classic, egyptian, lebanese, yemeni, jordanian or eram"),
]
Floor = Annotated[
    str | None, typer.Option("--floor", help='the floor before the play, e.g. "9C 5H 4S KD"')
]
PlayOpt = Annotated[str | None, typer.Option("--play", help="the card played, e.g. 9D")]
History = Annotated[
    Path | None,
    typer.Option("--history", help='JSON list of earlier plays of the round: {"floor", "play"}'),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


def register(app: typer.Typer) -> None:
    app.add_typer(rules_app, name="rules")
    app.command("score", help="Replay a game record and print per-round and total scores.")(
        score_cmd
    )
    app.command("play", help="Play a terminal game against a simple bot (moves on stdin).")(
        play_cmd
    )


# ---- helpers ------------------------------------------------------------------------------------


def _required(**options: str | None) -> None:
    """A missing required option is bad input: one line, exit 2 (an empty --floor is fine)."""
    for name, val in options.items():
        if val is None:
            raise UserError(f"--{name} is required")


def _ruleset(name: str) -> Any:
    from engine.rules import RulesError, get_ruleset

    try:
        return get_ruleset(name)
    except RulesError as exc:
        raise UserError(f"--variant: {exc}") from None


def _cards(text: str, option: str) -> tuple[str, ...]:
    from engine.cards import CardError, parse_cards

    try:
        return parse_cards(text, option)
    except CardError as exc:
        raise UserError(f"{option}: {exc}") from None


def _card(text: str, option: str) -> str:
    from engine.cards import CardError, parse_card

    try:
        return parse_card(text)
    except CardError as exc:
        raise UserError(f"{option}: {exc}") from None


def _history(path: Path | None) -> tuple:
    """Read --history: a JSON list of {"floor": "…" | [...], "play": "…"}."""
    from engine.captures import Play
    from engine.cards import CardError, parse_card, parse_cards

    if path is None:
        return ()
    obj = _read_json(path, "--history: ")
    if not isinstance(obj, list):
        raise UserError('--history: expected a JSON list of {"floor": …, "play": …}')
    out = []
    for i, item in enumerate(obj):
        if not isinstance(item, dict) or "floor" not in item or "play" not in item:
            raise UserError(f'--history[{i}]: expected an object with "floor" and "play"')
        if not isinstance(item["floor"], str | list):
            raise UserError(f'--history[{i}].floor: expected card codes ("9C 5H" or a list)')
        try:
            floor = parse_cards(item["floor"], "floor")
            play = parse_card(item["play"])
        except CardError as exc:
            raise UserError(f"--history[{i}]: {exc}") from None
        if play in floor:
            raise UserError(f"--history[{i}]: the played card {play} is already on the floor")
        out.append(Play(floor, play))
    return tuple(out)


def _read_json(path: Path, prefix: str) -> Any:
    """A JSON file's value; a missing, unreadable, non-UTF-8 or malformed file is a UserError
    starting with `prefix` (a UTF-8 byte-order mark is allowed)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"{prefix}cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{prefix}{path} is not valid JSON (not UTF-8 text)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{prefix}{path} is not valid JSON ({exc.msg}, line {exc.lineno})"
        ) from None


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


# ---- rules plans / judge ------------------------------------------------------------------------


@rules_app.command("plans")
def plans_cmd(
    variant: Variant = None,
    floor: Floor = None,
    play: PlayOpt = None,
    history: History = None,
    as_json: JsonOpt = False,
) -> None:
    """The legal outcomes of one play (RULES.md R2, R3, R8.1)."""
    from engine.captures import plans_unchecked

    _required(variant=variant, floor=floor, play=play)
    rules = _ruleset(variant)
    fl = _cards(floor, "--floor")
    card = _card(play, "--play")
    if card in fl:
        raise UserError(f"--play: {card} is already on the floor")
    outcome = plans_unchecked(rules, fl, card, _history(history))
    if as_json:
        _print_json(outcome.to_dict())
        return
    from rich.table import Table

    con = _console()
    con.print(f"{rules.name}: {card} on [{' '.join(fl) or 'empty floor'}] -> {outcome.kind}")
    if not outcome.plans:
        con.print("no capture: the card stays on the floor (trail)")
        return
    table = Table("id", "takes", "cards", "basra")
    for p in outcome.plans:
        table.add_row(
            str(p.id), " ".join(p.takes), str(len(p.takes)), f"{p.basra_points}" if p.basra else "-"
        )
    con.print(table)


@rules_app.command("judge")
def judge_cmd(
    variant: Variant = None,
    floor: Floor = None,
    play: PlayOpt = None,
    after: Annotated[str | None, typer.Option("--after", help="the floor after the play")] = None,
    history: History = None,
    as_json: JsonOpt = False,
) -> None:
    """The referee verdict for an observed turn (RULES.md R7, R8.10)."""
    from engine.referee import JudgeError, judge

    _required(variant=variant, floor=floor, play=play, after=after)
    rules = _ruleset(variant)
    fl = _cards(floor, "--floor")
    card = _card(play, "--play")
    aft = _cards(after, "--after")
    try:
        v = judge(rules, fl, card, aft, _history(history))
    except JudgeError as exc:
        raise UserError(str(exc)) from None
    if as_json:
        _print_json(v.to_dict())
        return
    con = _console()
    head = v.verdict if v.foul is None else f"foul: {v.foul}"
    if v.basra:
        head += f" (basra, {v.basra_points} points)"
    con.print(f"{rules.name}: {card} on [{' '.join(fl) or 'empty floor'}] -> {head}")
    if v.takes:
        con.print(f"takes: {' '.join(v.takes)}")
    if v.foul and v.legal:
        con.print("legal: " + " | ".join(" ".join(t) for t in v.legal))


# ---- score --------------------------------------------------------------------------------------


def score_cmd(
    record: Annotated[Path, typer.Argument(help="a game record (JSON, DESIGN.md)")],
    as_json: JsonOpt = False,
) -> None:
    """Replay a game record and print per-round and total scores."""
    from engine.record import RecordError, load_record, replay, score_match

    obj = _read_json(record, "")
    if not isinstance(obj, dict):  # a JSON string would be taken for a path by load_record
        raise UserError(f"{record}: a game record is a JSON object")
    try:
        rec = load_record(obj)
        m = replay(rec)
    except RecordError as exc:
        raise UserError(f"{record}: {exc}") from None
    result = score_match(m)
    if as_json:
        _print_json(result)
        return
    from rich.table import Table

    sides = "team" if rec.players == 4 else "player"
    table = Table(title=f"{rec.variant}, {rec.players} players")
    table.add_column("round")
    for s in range(m.sides):
        table.add_column(f"{sides} {s}: cards / most / points / basras / score", justify="right")
    table.add_column("pending", justify="right")
    for i, r in enumerate(m.rounds):
        table.add_row(
            str(i + 1),
            *[
                f"{r.cards[s]} / {r.most_cards[s]} / {r.point_cards[s]} / {r.basras[s]} / "
                f"{r.score[s]}"
                for s in range(m.sides)
            ],
            str(r.pending),
        )
    table.add_row("total", *[str(t) for t in m.totals], "")
    con = _console()
    con.print(table)
    if m.finished:
        con.print("draw" if m.winner is None else f"winner: {sides} {m.winner}")
    else:
        con.print("not finished")


# ---- play ---------------------------------------------------------------------------------------


def play_cmd(
    variant: Variant = "classic",
    seed: Annotated[int | None, typer.Option("--seed", help="shuffle seed")] = None,
    players: Annotated[int, typer.Option("--players", help="2, 3 or 4 (you are seat 0)")] = 2,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="stop after this many rounds")
    ] = None,
) -> None:
    """Play against simple bots: type a card (e.g. 9D), and a plan id where there is a choice."""
    from engine.rules import RulesError

    rules = _ruleset(variant)
    try:
        rules.check_players(players)
    except RulesError as exc:
        raise UserError(f"--players: {exc}") from None
    if rounds is not None and rounds < 1:
        raise UserError("--rounds must be 1 or more")
    TerminalGame(rules, players, random.Random(seed), rounds).run(sys.stdin)


class TerminalGame:
    """The `play` loop: you are seat 0, bots take the other seats; moves come from a stream."""

    def __init__(self, rules: Any, players: int, rng: random.Random, max_rounds: int | None):
        from engine.match import Match

        self.rules = rules
        self.rng = rng
        self.max_rounds = max_rounds
        self.m = Match(rules, players, dealer=rng.randrange(players))
        self.out = sys.stdout

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def run(self, stream: Any) -> None:
        from engine.cards import FULL_DECK

        m = self.m
        lines = iter(stream.readline, "")
        self.say(f"Basra, {self.rules.name} ({self.rules.description})")
        self.say("You are seat 0. Type a card code (9D, TD, 10D); 'help' for help, 'quit' to stop.")
        while not m.finished and (self.max_rounds is None or len(m.rounds) < self.max_rounds):
            deck = list(FULL_DECK)
            self.rng.shuffle(deck)
            m.start_round(deck=deck)
            self.say(f"\n== round {m.round_no + 1}, dealer seat {m.dealer} ==")
            while not m.round_over:
                if m.to_play == 0:
                    if not self._human(lines):
                        self.say("input ended: game stopped")
                        return
                else:
                    self._bot()
            s = m.end_round()
            self.say(
                f"round {m.round_no + 1} over: cards {s.cards}, most cards {s.most_cards}, "
                f"point cards {s.point_cards}, basras {s.basra_points}, score {s.score}"
                + (f", pending {s.pending}" if s.pending else "")
            )
            self.say(f"totals: {m.totals}")
        if m.finished:
            self.say(
                "match drawn"
                if m.winner is None
                else ("you win!" if m.winner == 0 else f"side {m.winner} wins")
            )

    def _bot(self) -> None:
        from engine.bots import greedy_move

        m = self.m
        seat = m.to_play
        card, takes = greedy_move(m)
        r = m.play(card, takes)
        self._report(f"seat {seat}", r)

    def _report(self, who: str, r: Any) -> None:
        verb = "play" if who == "you" else "plays"
        if r.takes:
            extra = f", BASRA +{r.basra_points}" if r.basra else ""
            self.say(f"{who} {verb} {r.card} and takes {' '.join(r.takes)}{extra}")
        else:
            self.say(f"{who} {verb} {r.card} (stays on the floor)")

    def _human(self, lines: Any) -> bool:
        from engine.match import IllegalPlay

        m = self.m
        hand = m.hands[0]
        self.say(f"floor: {' '.join(m.floor) or '(empty)'}")
        self.say(f"your hand: {' '.join(hand)}")
        for c in hand:
            o = m.legal(c)
            if len(o.plans) > 1:
                choices = "; ".join(f"{p.id}: {' '.join(p.takes)}" for p in o.plans)
                self.say(f"  {c} has plans {choices}")
        while True:
            self.out.write("your play> ")
            self.out.flush()
            line = next(lines, None)
            if line is None:
                return False
            words = line.replace(",", " ").split()
            if not words:
                continue
            if words[0].lower() in ("quit", "exit", "q"):
                raise typer.Exit(0)
            if words[0].lower() in ("help", "?"):
                self.say(
                    "type a card from your hand; where it has several plans add the id: "
                    "'TD 2'. A card that can capture must capture (R2.6)."
                )
                continue
            try:
                card = _card(words[0], "card")
            except UserError as exc:
                self.say(str(exc))
                continue
            if card not in hand:
                self.say(f"{card} is not in your hand")
                continue
            o = m.legal(card)
            takes = None
            if len(o.plans) > 1:
                pid = words[1] if len(words) > 1 else None
                while pid is None or not pid.isdigit() or not 1 <= int(pid) <= len(o.plans):
                    if pid is not None:
                        self.say(f"no plan {pid!r} for {card}: choose 1-{len(o.plans)}")
                    self.out.write(f"plan id for {card} (1-{len(o.plans)})> ")
                    self.out.flush()
                    nxt = next(lines, None)
                    if nxt is None:
                        return False
                    pid = nxt.strip()
                takes = o.plans[int(pid) - 1].takes
            try:
                r = m.play(card, takes)
            except IllegalPlay as exc:
                self.say(str(exc))
                continue
            self._report("you", r)
            return True
