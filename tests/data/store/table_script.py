"""Scripted physical games for the store/API tests, and the controller driver the crash test kills.

`play_script` plays a seeded game with the engine and returns the settled floor snapshots a
camera would see (laid card, then the floor after the scoop), optionally with injected fouls.
Run as a program it is a controller: a real `controller.table.Table` resumed from the store,
fed snapshots as JSON lines on stdin, appending every event to the SQLite store.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def play_script(
    variant: str = "classic",
    players: int = 2,
    dealer: int = 0,
    seed: int = 1,
    rounds: int = 1,
    fouls: dict[tuple[int, int], str] | None = None,
    dt: float = 1.0,
    stop_after: tuple[int, int] | None = None,
):
    """Returns (snapshots [(t, [cards…])…], match) for `rounds` rounds of a seeded game.

    fouls maps (round, play) to "missed_capture" (the card could capture but is left lying) or
    "wrong_capture" (the player takes one card too few); the match applies them as accepted.
    A foul is moved to the next play when the player holds no capturing card.
    stop_after=(round, play) ends the script mid-round, once that play is on the table.
    """
    from engine.match import Match
    from engine.rules import get_ruleset

    rng = random.Random(seed)
    fouls = dict(fouls or {})
    m = Match(get_ruleset(variant), players=players, dealer=dealer)
    snaps: list[tuple[float, list[str]]] = []
    t = 0.0

    def snap(floor) -> None:
        nonlocal t
        t += dt
        snaps.append((round(t, 3), sorted(floor)))

    from engine.cards import FULL_DECK

    for r in range(rounds):
        if m.finished:
            break
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        if r:
            snap([])  # the floor is cleared between rounds
        m.start_round(deck=deck)
        snap(m.floor)
        play = 0
        while not m.round_over:
            seat = m.to_play
            before = list(m.floor)
            hand = list(m.hands[seat])
            kind = fouls.get((r, play))
            if kind is not None:
                capturing = [c for c in hand if m.legal(c).plans]
                if kind == "missed_capture" and capturing:
                    card = capturing[0]
                    snap(before + [card])
                    m.force(card, before + [card])
                elif kind == "wrong_capture" and capturing:
                    card = capturing[0]
                    takes = list(m.legal(card).plans[0].takes)
                    after = [c for c in before if c not in takes[:-1]]  # one card too few
                    snap(before + [card])
                    snap(after)
                    m.force(card, after)
                else:  # no capturing card in hand: the foul comes a turn later
                    later = play + 1
                    while (r, later) in fouls:
                        later += 1
                    fouls[(r, later)] = kind
                    kind = None
            if kind is None:
                card = rng.choice(hand)
                res = m.play(card)
                snap(before + [card])
                if res.takes:
                    snap(res.floor_after)
            if stop_after == (r, play):
                return snaps, m
            play += 1
        m.end_round()
    return snaps, m


def main(argv: list[str]) -> int:
    """Driver: `table_script.py DB MATCH_ID VARIANT PLAYERS DEALER`; snapshots on stdin.

    The product's own wiring (controller.live_tables.LiveTables: a real Table resumed from
    the store, each step's events appended in one durable transaction) fed by JSON lines.
    """
    from controller.live_tables import LiveTables
    from controller.store import NotFound, Store
    from controller.turns import Snapshot

    db, match_id, variant, players, dealer = argv
    store = Store(db)
    try:
        info = store.match(match_id)
    except NotFound:
        info = store.create_match(variant, int(players), dealer=int(dealer), match_id=match_id)
    live = LiveTables(store)
    table = live.open(info)
    out = sys.stdout
    out.write(json.dumps({"ready": table.state.last_event_id, "state": table.state.to_dict()}))
    out.write("\n")
    out.flush()
    for line in sys.stdin:
        t, floor = json.loads(line)
        live.feed_snapshot(match_id, Snapshot(t=t, floor=frozenset(floor)))
        out.write(f"ack {t} {table.state.last_event_id}\n")
        out.flush()
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
