"""The referee API: FastAPI app over the venue store, its WebSocket and the dashboard files.

Reads are open on the venue network; every write needs the venue's bearer token. Bad requests
get a 4xx JSON body `{"error": "…"}` and change nothing; state always comes from the event log.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from fastapi import Depends, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from controller import api_token
from controller.api_models import (
    CalibrationOut,
    Correction,
    CreateMatch,
    ErrorOut,
    EventOut,
    HealthOut,
    MatchOut,
    RefereeOut,
    StateOut,
    Target,
)
from controller.api_state import StateCache
from controller.errors import UserError
from controller.events import REFEREE, SCORE, Event
from controller.live_view import LiveView
from controller.referee_actions import RefereeSink, plan_decision, try_decision
from controller.store import Conflict, NotFound, Store

DASHBOARD = Path(__file__).with_name("dashboard")
VERSION = "0.1.0"

_ERRORS = {400: {"model": ErrorOut}, 404: {"model": ErrorOut}, 409: {"model": ErrorOut}}
_WRITE_ERRORS = {**_ERRORS, 401: {"model": ErrorOut}, 422: {"model": ErrorOut}}


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(
    store: Store,
    token_digest: str,
    live: LiveView | None = None,
    referee_sink: RefereeSink | None = None,
    on_match_created: Callable[[Any], None] | None = None,
    health_extra: Callable[[], dict[str, Any]] | None = None,
) -> FastAPI:
    """Build the app. `referee_sink(match_id, action, target, payload) -> Event` routes decisions
    through a live controller when one runs in this process (default: append to the store);
    `on_match_created(MatchInfo)` lets a demo start playing a newly created match."""
    app = FastAPI(
        title="basra-table referee API",
        version=VERSION,
        description="Matches, event logs, live state and referee decisions of one venue.",
    )
    live = live or LiveView()
    states = StateCache(store)
    write_lock = threading.Lock()
    bearer = HTTPBearer(auto_error=False, description="The venue token shown at first start")

    def sink(match_id: str, action: str, target: int | None, payload: dict) -> Event:
        if referee_sink is not None:
            return referee_sink(match_id, action, target, payload)
        data = {"action": action, "target": target, "payload": payload}
        return store.append_new(match_id, REFEREE, data)

    app.state.store = store
    app.state.live = live

    # -- errors: always one JSON line ---------------------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=headers)

    @app.exception_handler(UserError)
    async def _user_error(_: Request, exc: UserError) -> JSONResponse:
        status = 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Conflict) else 400
        return JSONResponse({"error": str(exc)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            if err.get("type") == "json_invalid":
                why = (err.get("ctx") or {}).get("error", "")
                parts.append(f"the request body is not valid JSON ({why})".replace(" ()", ""))
                continue
            loc = [str(x) for x in err.get("loc", ())]
            where = loc[0] if loc else "request"
            name = ".".join(loc[1:]) or where
            parts.append(f"{name}: {err.get('msg', 'invalid')}")
        return JSONResponse({"error": "; ".join(parts) or "invalid request"}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    def require_token(
        cred: HTTPAuthorizationCredentials | None = Depends(bearer),
    ) -> None:
        if cred is None:
            raise ApiError(401, "missing bearer token: send 'Authorization: Bearer <token>'")
        if not api_token.check(token_digest, cred.credentials):
            raise ApiError(401, "wrong bearer token")

    # -- reads --------------------------------------------------------------------------------

    @app.get("/api/health", response_model=HealthOut, tags=["venue"])
    def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "version": VERSION,
            "db": str(store.path),
            "matches": len(store.matches()),
            "live": referee_sink is not None or on_match_created is not None,
            "scoreboard": health_extra() if health_extra else None,
        }

    @app.get("/api/matches", response_model=list[MatchOut], tags=["matches"])
    def list_matches(table_id: str | None = None) -> list[dict[str, Any]]:
        return [m.to_dict() for m in store.matches(table_id)]

    @app.get(
        "/api/matches/{match_id}", response_model=MatchOut, responses=_ERRORS, tags=["matches"]
    )
    def get_match(match_id: str) -> dict[str, Any]:
        return store.match(match_id).to_dict()

    @app.get(
        "/api/matches/{match_id}/state",
        response_model=StateOut,
        responses=_ERRORS,
        tags=["matches"],
    )
    def get_state(match_id: str) -> dict[str, Any]:
        return states.get(match_id)

    @app.get(
        "/api/matches/{match_id}/events",
        response_model=list[EventOut],
        responses=_ERRORS,
        tags=["matches"],
    )
    def get_events(
        match_id: str,
        after: int = Query(0, ge=0, description="Only events with a larger id"),
        limit: int = Query(1000, ge=1, le=10000),
    ) -> list[dict[str, Any]]:
        store.match(match_id)
        return [e.to_dict() for e in store.events(match_id, after=after, limit=limit)]

    @app.get("/api/matches/{match_id}/events.jsonl", responses=_ERRORS, tags=["export"])
    def export_jsonl(match_id: str) -> PlainTextResponse:
        return PlainTextResponse(store.export_jsonl(match_id), media_type="application/x-ndjson")

    @app.get("/api/matches/{match_id}/record", responses=_ERRORS, tags=["export"])
    def export_record(match_id: str) -> dict[str, Any]:
        return store.export_record(match_id)

    @app.get("/api/tables", response_model=list[CalibrationOut], tags=["venue"])
    def list_tables() -> list[dict[str, Any]]:
        return [_table_out(t) for t in store.tables()]

    @app.get(
        "/api/tables/{table_id}/calibration",
        response_model=CalibrationOut,
        responses=_ERRORS,
        tags=["venue"],
    )
    def get_calibration(table_id: str) -> dict[str, Any]:
        return _table_out(store.table(table_id))

    @app.get("/api/tables/{table_id}/view", responses=_ERRORS, tags=["camera"])
    def camera_view(table_id: str) -> dict[str, Any]:
        """The newest frame's overlay: its size, the floor polygon and the outlined cards."""
        frame = live.get(table_id)
        if frame is None:
            raise ApiError(404, f"no camera frame from table {table_id!r} yet")
        return frame.overlay()

    @app.get("/api/tables/{table_id}/frame.jpg", responses=_ERRORS, tags=["camera"])
    def camera_frame(table_id: str) -> Response:
        frame = live.get(table_id)
        if frame is None:
            raise ApiError(404, f"no camera frame from table {table_id!r} yet")
        return Response(
            frame.jpeg,
            media_type="image/jpeg",
            headers={"Cache-Control": "no-store", "X-Frame-Seq": str(frame.seq)},
        )

    # -- writes (bearer token) ----------------------------------------------------------------

    auth = [Depends(require_token)]

    @app.post(
        "/api/matches",
        response_model=MatchOut,
        status_code=201,
        responses=_WRITE_ERRORS,
        dependencies=auth,
        tags=["matches"],
    )
    def create_match(body: CreateMatch) -> dict[str, Any]:
        with write_lock:
            info = store.create_match(
                variant=body.variant,
                players=body.players,
                seat_names=body.seat_names,
                dealer=body.dealer,
                table_id=body.table_id,
            )
        if on_match_created is not None:
            on_match_created(info)
        return store.match(info.id).to_dict()

    @app.put(
        "/api/tables/{table_id}/calibration",
        response_model=CalibrationOut,
        responses=_WRITE_ERRORS,
        dependencies=auth,
        tags=["venue"],
    )
    def put_calibration(table_id: str, calibration: dict[str, Any]) -> dict[str, Any]:
        _check_calibration(calibration)
        return _table_out(store.put_calibration(table_id, calibration))

    def decide(match_id: str, action: str, target: int | None, payload: dict) -> dict[str, Any]:
        with write_lock:
            state = states.table_state(match_id)
            target, payload = plan_decision(state, action, target, payload)
            trial = try_decision(state, action, target, payload, time.time())
            event = sink(match_id, action, target, payload)
            if action == "end_round" and not any(
                e.type == SCORE for e in store.events(match_id, after=event.id)
            ):
                # No live table in this process followed the ended round with its score and
                # the match's fate: written here (a `run` process following the log reads
                # them as they are, and waits for the next deal).
                for typ, data in trial.round_end_events():
                    store.append_new(match_id, typ, data)
        return {"event": event.to_dict(), "state": states.get(match_id)}

    ref = {
        "response_model": RefereeOut,
        "status_code": 201,
        "responses": _WRITE_ERRORS,
        "dependencies": auth,
        "tags": ["referee"],
    }

    @app.post("/api/matches/{match_id}/confirm", **ref)
    def confirm(match_id: str, body: Target) -> dict[str, Any]:
        """Confirm a doubtful read as the camera saw it."""
        return decide(match_id, "confirm", body.target, {})

    @app.post("/api/matches/{match_id}/correct", **ref)
    def correct(match_id: str, body: Correction) -> dict[str, Any]:
        """Correct the card read for a turn (or name the card of an unreadable turn), or, with
        `was` and a round's `round_started` event as target, a dealt card misread."""
        payload = {"card": body.card} if body.was is None else {"card": body.card, "was": body.was}
        return decide(match_id, "correct", body.target, payload)

    @app.post("/api/matches/{match_id}/fouls/{target}/accept", **ref)
    def accept_foul(match_id: str, target: int) -> dict[str, Any]:
        """Accept a foul: the turn stands as the camera saw it (RULES.md R7)."""
        return decide(match_id, "accept_foul", target, {})

    @app.post("/api/matches/{match_id}/fouls/{target}/reject", **ref)
    def reject_foul(match_id: str, target: int) -> dict[str, Any]:
        """Reject a foul: the turn does not count and the player plays again."""
        return decide(match_id, "reject_foul", target, {})

    @app.post("/api/matches/{match_id}/undo", **ref)
    def undo(match_id: str) -> dict[str, Any]:
        """Undo the last turn that is still in force."""
        return decide(match_id, "undo", None, {})

    @app.post("/api/matches/{match_id}/end-round", **ref)
    def end_round(match_id: str) -> dict[str, Any]:
        """End the round in progress as the camera saw it (RULES.md R7): for a round whose
        plays the camera partly missed and that no next deal will end (the match's last);
        scored from the plays seen, leftovers to the last capturer (R3.5)."""
        return decide(match_id, "end_round", None, {})

    # -- live stream --------------------------------------------------------------------------

    @app.websocket("/api/matches/{match_id}/ws")
    async def stream(websocket: WebSocket, match_id: str, after: int = 0) -> None:
        """Sends {"type": "state", …} once, then {"type": "events", "events": […], "state": …}
        whenever the log grows (also when another process appends to the same file)."""
        await websocket.accept()
        try:
            state = await anyio.to_thread.run_sync(states.get, match_id)
        except UserError as exc:
            await websocket.send_json({"type": "error", "error": str(exc)})
            await websocket.close(code=4404)
            return
        first = await anyio.to_thread.run_sync(lambda: store.events(match_id, after=after))
        await websocket.send_json(
            {"type": "state", "events": [e.to_dict() for e in first], "state": state}
        )
        last = first[-1].id if first else after
        closed = asyncio.Event()

        async def watch_close() -> None:
            try:
                while True:
                    await websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError):
                closed.set()

        watcher = asyncio.create_task(watch_close())
        try:
            while not closed.is_set():
                head = await anyio.to_thread.run_sync(store.last_event_id, match_id)
                if head > last:
                    new = await anyio.to_thread.run_sync(store.events, match_id, last)
                    state = await anyio.to_thread.run_sync(states.get, match_id)
                    await websocket.send_json(
                        {"type": "events", "events": [e.to_dict() for e in new], "state": state}
                    )
                    last = new[-1].id if new else last
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(closed.wait(), timeout=0.1)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            watcher.cancel()

    # -- dashboard ----------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(DASHBOARD / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=DASHBOARD), name="static")
    return app


def _table_out(t: Any) -> dict[str, Any]:
    return {"table_id": t.id, "name": t.name, "calibration": t.calibration, "updated": t.updated}


def _check_calibration(calibration: dict[str, Any]) -> None:
    """Accept only what controller.table_geometry can load (floor polygon, one seat a player)."""
    from controller.table_geometry import TableGeometry

    seats = calibration.get("seats")
    players = len(seats) if isinstance(seats, list) else 2
    if players not in (2, 3, 4):
        raise ApiError(422, f"calibration: seats lists {players} points; a table seats 2 to 4")
    try:
        TableGeometry.from_dict(calibration, players, where="calibration")
    except UserError as exc:
        raise ApiError(422, str(exc)) from None
