"""Match state for the API and dashboard, rebuilt from the event log by the controller's replay.

`StateCache` replays a match only when its log has grown; `summary` is the part the dashboard
draws (scores, turn, floor, last verdict, decisions awaited, history) with the seat names.
"""

from __future__ import annotations

import threading
from typing import Any

from controller.store import MatchInfo, Store
from controller.table_state import ACCEPTED, OK, PENDING, TableState, replay


def sides_of(info: MatchInfo) -> list[list[str]]:
    """Side names: one per player, or teams of seats 0+2 and 1+3 with 4 players (R1.1)."""
    n = info.seat_names
    if info.players == 4:
        return [[n[0], n[2]], [n[1], n[3]]]
    return [[name] for name in n]


def summary(info: MatchInfo, st: TableState) -> dict[str, Any]:
    """What the dashboard shows; `round` counts from 1 here (the log counts from 0)."""
    rnd = st.current_round
    score = st.score()
    turns = st.turns()
    by_id = {tr.event_id: tr for tr in turns}
    plays: dict[int, int] = {}  # event id -> 1-based play number in its round (R8.7)
    for r in st.rounds:
        for i, tr in enumerate(r.live_turns()):
            plays[tr.event_id] = i + 1
    pending = []
    for item in st.pending():
        tr = by_id.get(item["event_id"])
        pending.append(
            {
                "id": item["event_id"],
                "type": item["type"],
                "kind": item["kind"],
                "text": item.get("text"),
                "round": tr.round + 1 if tr else None,
                "play": plays.get(tr.event_id) if tr else None,
                "seat": tr.seat if tr else None,
                "card": tr.card if tr else None,
                "legal": [list(x) for x in tr.legal] if tr else [],
                "takes": list(tr.takes) if tr else [],
                "floor_before": list(tr.floor_before) if tr else [],
                "floor_after": list(tr.floor_after) if tr else [],
            }
        )
    history = [_turn(tr, plays) for tr in turns[-80:]]
    live = [tr for tr in turns if tr.status != "undone"]
    return {
        "variant": info.variant,
        "players": info.players,
        "seat_names": list(info.seat_names),
        "sides": sides_of(info),
        "phase": st.phase,
        "round": rnd.index + 1 if rnd else 0,
        "dealer": rnd.dealer if rnd else info.dealer,
        "to_play": st.to_play,
        "floor": list(st.floor),
        "totals": list(score["totals"]) if st.started else [0] * len(sides_of(info)),
        "rounds": score["rounds"],
        "this_round": _this_round(st),
        "finished": score["finished"],
        "winner": score["winner"],
        "last_verdict": _turn(live[-1], plays) if live else None,
        "pending": pending,
        "history": history,
        "errors": list(st.errors),
    }


def _this_round(st: TableState) -> dict[str, list[int]] | None:
    """The round in progress per side: cards captured so far and basra points (R3.4: a basra
    is shown the moment it is scored, before the round's score exists)."""
    rnd, m = st.current_round, st.match
    if rnd is None or rnd.ended or m is None:
        return None
    n = len(m.totals)
    basra = [0] * n
    for tr in rnd.live_turns():
        if tr.basra and tr.status in (OK, ACCEPTED):
            basra[m.side_of(tr.seat)] += tr.basra_points
    return {"cards": [len(m.captured(side)) for side in range(n)], "basra_points": basra}


def _turn(tr: Any, plays: dict[int, int]) -> dict[str, Any]:
    d = tr.to_dict()
    d["id"] = tr.event_id
    d["round"] = tr.round + 1
    d["play"] = plays.get(tr.event_id)
    d["awaiting"] = tr.status == PENDING
    return d


class StateCache:
    """Replayed state per match, recomputed only when the match's log has grown."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[int, TableState, dict[str, Any]]] = {}

    def _load(self, match_id: str) -> tuple[TableState, dict[str, Any]]:
        info = self.store.match(match_id)
        with self._lock:
            hit = self._cache.get(match_id)
            if hit and hit[0] == info.last_event_id:
                return hit[1], hit[2]
        events = self.store.events(match_id)
        st = replay(events)
        last = events[-1].id if events else 0
        match = info.to_dict()
        match["last_event_id"] = last
        out = {
            "match": match,
            "last_event_id": last,
            "summary": summary(info, st),
            "table_state": st.to_dict(),
        }
        with self._lock:
            self._cache[match_id] = (last, st, out)
        return st, out

    def get(self, match_id: str) -> dict[str, Any]:
        """The API's state object (match, last_event_id, summary, table_state)."""
        return self._load(match_id)[1]

    def table_state(self, match_id: str) -> TableState:
        """A private copy of the replayed TableState (callers may fold into it)."""
        return self._load(match_id)[0].copy()
