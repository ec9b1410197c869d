"""The scoreboard bridge: keeps a scoreboard showing the latest state over an unreliable link.

A worker thread owns the port; callers only drop the wanted state into a slot (never blocking).
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import logging
import os
import random
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import serial

from firmware_bridge import protocol as p
from firmware_bridge.display import DisplayState, check_side
from firmware_bridge.sim import SimBoard, SimUnavailable
from firmware_bridge.textboard import TextBoard

__all__ = ["DisplayState", "ScoreboardBridge"]

log = logging.getLogger("firmware_bridge.bridge")

PortSpec = str | Callable[[], str | None]


class _LinkLost(Exception):
    """The device stopped answering or the port failed: close and reconnect."""


@dataclass
class _Request:
    """A one-off frame whose reply a caller waits for (ping, version)."""

    build: Callable[[int], p.Frame]
    frame: p.Frame | None = None
    done: threading.Event = field(default_factory=threading.Event)
    reply: p.Frame | None = None
    rtt: float | None = None


@dataclass
class _Announce:
    frame: p.Frame
    expires: float


def _check_url_scheme(url: str) -> None:
    """ValueError unless pyserial has a handler for the URL's scheme (socket://, loop:// …)."""
    scheme = url.split("://", 1)[0].lower()
    for package in serial.protocol_handler_packages:
        try:
            importlib.import_module(f".protocol_{scheme}", package)
        except ImportError:
            continue
        return
    raise ValueError(
        f"unknown URL scheme {scheme}:// (use a device path, socket://, loop://, sim:// or text://)"
    )


class ScoreboardBridge:
    """Drives one scoreboard. `port` is a pyserial URL or device path, a glob such as
    `/dev/ttyUSB*`, `sim://` (starts the emulator and owns it), `text://` (a text board),
    or a callable returning the current path (or None while the device is absent)."""

    def __init__(
        self,
        port: PortSpec,
        *,
        baudrate: int = 115200,
        ack_timeout: float = 0.05,
        heartbeat: float = 1.0,
        max_silence: float = 1.0,
        reconnect_interval: float = 0.1,
    ) -> None:
        if isinstance(port, str):
            if not port.strip():
                raise ValueError("scoreboard port is empty")
            if port.startswith("text://"):
                TextBoard(port).close()  # ValueError now, not in the worker
            elif "://" in port and not port.startswith("sim://"):
                _check_url_scheme(port)  # a typo'd scheme would retry in the worker forever
        elif not callable(port):
            raise TypeError(f"port must be a string or a callable, not {type(port).__name__}")
        self.port = port
        self.baudrate = baudrate
        self.ack_timeout = ack_timeout
        self.heartbeat = heartbeat
        self.max_silence = max_silence
        self.reconnect_interval = reconnect_interval

        self._cond = threading.Condition()
        self._want: DisplayState | None = None
        self._acked: DisplayState | None = None
        self._state_frame: tuple[DisplayState, p.Frame] | None = None
        self._announces: deque[_Announce] = deque(maxlen=4)
        self._requests: deque[_Request] = deque()
        self._seq = random.randrange(256)
        self._stop = False
        self._thread: threading.Thread | None = None
        self._conn: serial.SerialBase | TextBoard | None = None
        self._decoder = p.Decoder()
        self._last_rx = 0.0
        self._last_sent: p.Frame | None = None
        self._was_up = False
        self.sim: SimBoard | None = None
        self._rtts: deque[float] = deque(maxlen=200)
        self._stats = dict.fromkeys(
            (
                "frames_sent", "acked", "retries", "naks", "timeouts", "reconnects",
                "disconnects", "device_resets", "rx_errors", "announces_dropped",
            ),
            0,
        )  # fmt: skip
        self._link = "idle"
        self._path: str | None = None
        self._device: str | None = None
        self._last_error: str | None = None
        self._last_ack = 0.0
        self._failures = 0
        self._last_reset: str | None = None
        self._health_logged = time.monotonic()
        self._health_counts: dict[str, int] = {}
        self._nak: p.NakReason | int | None = None

    # -- the caller's side: never blocks ----------------------------------------------------
    def start(self) -> ScoreboardBridge:
        """Start the worker thread (returns at once)."""
        if self._thread is None:
            self._link = "connecting"
            self._thread = threading.Thread(target=self._run, name="scoreboard-bridge", daemon=True)
            self._thread.start()
        return self

    def show(self, state: DisplayState) -> None:
        """Make `state` the display's truth; the latest call wins, earlier ones may be skipped."""
        if not isinstance(state, DisplayState):
            raise TypeError("show() takes a DisplayState")
        with self._cond:
            self._want = state
            self._cond.notify_all()
        self._wake()

    def set_brightness(self, level: int) -> None:
        """Change only the brightness (0..15) of the current state."""
        with self._cond:
            base = self._want or DisplayState(0, 0)
        self.show(DisplayState(base.left, base.right, base.turn, level))

    def announce(self, side: int | None = None, word: str = "bAsrA", seconds: float = 3.0) -> None:
        """Flash `word` at side 0's or side 1's end (or centred) and blink that side's total.

        Dropped if the device cannot be reached before `seconds` have passed."""
        check_side(side)
        with self._cond:
            frame = p.announce_frame(self._next_seq(), side, word, seconds)
            self._announces.append(_Announce(frame, time.monotonic() + seconds))
            self._cond.notify_all()
        self._wake()

    def ping(self, timeout: float = 1.0) -> tuple[float, p.PingReply] | None:
        """Blocking: round-trip time in seconds and the device's counters, or None."""
        req = self._request(p.ping_frame, timeout)
        if req is None or req.reply is None or req.rtt is None:
            return None
        return req.rtt, p.parse_ping_reply(req.reply)

    def version(self, timeout: float = 1.0) -> tuple[int, str] | None:
        """Blocking: (protocol version, firmware name) or None."""
        req = self._request(p.version_frame, timeout)
        if req is None or req.reply is None:
            return None
        return p.parse_version_reply(req.reply)

    def wait_synced(self, timeout: float = 2.0) -> bool:
        """Blocking: True once the device has acknowledged the latest state and announcements."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._synced():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def wait_link(self, timeout: float = 2.0) -> bool:
        """Blocking: True once the link is up."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._link != "up":
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def display_text(self) -> str | None:
        """What the digits show, where the bridge can see it (sim:// and text://), else None."""
        if self.sim is not None:
            return self.sim.text
        conn = self._conn
        if isinstance(conn, TextBoard):
            return conn.text
        return None

    def health(self) -> dict:
        """Link health: state, counters, round-trip times, device identity, last error."""
        with self._cond:
            rtts = sorted(self._rtts)
            h: dict = {
                "port": self.port
                if isinstance(self.port, str)
                else getattr(self.port, "__name__", "callable"),
                "path": self._path,
                "link": self._link,
                "connected": self._link == "up",
                "in_sync": self._synced(),
                **self._stats,
                "rtt_ms": None,
                "last_ack_age_s": round(time.monotonic() - self._last_ack, 3)
                if self._last_ack
                else None,
                "device": self._device,
                "last_reset": self._last_reset,
                "last_error": self._last_error,
            }
        if rtts:
            h["rtt_ms"] = {
                "median": round(statistics.median(rtts) * 1000, 2),
                "p95": round(rtts[min(len(rtts) - 1, int(len(rtts) * 0.95))] * 1000, 2),
                "n": len(rtts),
            }
        return h

    def close(self) -> None:
        """Stop the worker, close the port, and end an emulator this bridge started."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=3)
        self._close_conn()
        if self.sim is not None:
            self.sim.stop()
        with self._cond:
            self._link = "closed"
            self._cond.notify_all()

    def __enter__(self) -> ScoreboardBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------
    def _synced(self) -> bool:
        return self._want == self._acked and not self._announces

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFF
        return self._seq

    def _request(self, build: Callable[[int], p.Frame], timeout: float) -> _Request | None:
        req = _Request(build)
        with self._cond:
            self._requests.append(req)
            self._cond.notify_all()
        self._wake()
        if not req.done.wait(timeout):
            with self._cond:
                if req in self._requests:
                    self._requests.remove(req)
            return None
        return req

    def _wake(self) -> None:
        conn = self._conn
        cancel = getattr(conn, "cancel_read", None)
        if cancel is not None:
            with contextlib.suppress(Exception):  # the port may be closing under us
                cancel()

    def _set_link(self, link: str, error: str | None = None) -> None:
        with self._cond:
            if error:
                self._last_error = error
            if link != self._link:
                log.info(
                    "scoreboard link %s -> %s%s", self._link, link, f": {error}" if error else ""
                )
                self._link = link
            self._cond.notify_all()

    def _resolve(self) -> str | None:
        spec = self.port
        if callable(spec):
            return spec()
        if spec.startswith("sim://"):
            if self.sim is None or not self.sim.alive:
                if self.sim is not None:
                    log.warning("the emulator exited; starting it again")
                self.sim = SimBoard(max_events=1000).start()  # a long demo must not grow
            return self.sim.port
        if "://" not in spec and any(c in spec for c in "*?["):
            matches = sorted(glob.glob(spec))
            return matches[0] if matches else None
        return spec

    def _open(self) -> None:
        path = self._resolve()
        if path is None:
            raise _LinkLost(f"no device matches {self.port!r}")
        self._path = path
        if path.startswith("text://"):
            conn: serial.SerialBase | TextBoard = TextBoard(path)
        else:
            try:
                conn = serial.serial_for_url(
                    path, baudrate=self.baudrate, timeout=0.05, write_timeout=1.0
                )
            except (serial.SerialException, OSError, ValueError) as exc:
                if "://" not in path and not os.path.exists(path):
                    raise _LinkLost(f"no device at {path}") from None
                raise _LinkLost(f"cannot open {path}: {exc}") from None
        self._conn = conn
        self._decoder = p.Decoder()
        self._last_rx = time.monotonic()

    def _close_conn(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # a dead port may fail to close in many ways
                conn.close()

    def _run(self) -> None:
        while not self._stop:
            try:
                self._open()
                self._sync()
                if self._was_up:
                    self._stats["reconnects"] += 1
                self._was_up = True
                self._set_link("up")
                self._serve()
            except _LinkLost as exc:
                self._lost(str(exc))
            except SimUnavailable as exc:  # will not fix itself soon: retry slowly
                self._lost(str(exc), wait=2.0)
            except (serial.SerialException, OSError) as exc:
                self._lost(f"port error: {exc}")
            except Exception as exc:  # noqa: BLE001 - the worker must outlive any surprise
                why = f"{type(exc).__name__}: {exc}"
                if why != self._last_error:
                    log.exception("scoreboard bridge error")
                self._lost(why)
        self._close_conn()

    def _lost(self, why: str, wait: float | None = None) -> None:
        if self._conn is not None and self._link == "up":
            self._stats["disconnects"] += 1
        self._close_conn()
        with self._cond:
            self._acked = None  # the device may have reset or missed frames: resend all
            self._device = None  # and it may be another board
            self._set_link("down" if self._was_up else "connecting", why)
            if not self._stop:
                self._cond.wait(self.reconnect_interval if wait is None else wait)

    def _sync(self) -> None:
        """Prove the device answers (a ping) before trusting the link; drop its boot chatter."""
        for _ in range(5):
            if self._stop:
                raise _LinkLost("closing")
            reply = self._transact(p.ping_frame(self._next_seq()), timeout=0.2)
            if reply is not None:
                for _ in range(3):
                    if self._device is not None:
                        break
                    v = self._transact(p.version_frame(self._next_seq()), timeout=0.2)
                    if v is not None:
                        self._device = p.parse_version_reply(v)[1]
                return
        raise _LinkLost(f"no answer from {self._path}")

    def _next_job(self) -> tuple[p.Frame, object] | None:
        with self._cond:
            if self._requests:
                req = self._requests[0]
                if req.frame is None:
                    req.frame = req.build(self._next_seq())
                return req.frame, req
            if self._want is not None and self._want != self._acked:
                if self._state_frame is None or self._state_frame[0] != self._want:
                    self._state_frame = (self._want, p.state_frame(self._next_seq(), self._want))
                return self._state_frame[1], self._state_frame[0]
            now = time.monotonic()
            while self._announces and self._announces[0].expires < now:
                self._announces.popleft()
                self._stats["announces_dropped"] += 1
                self._cond.notify_all()
            if self._announces:
                return self._announces[0].frame, self._announces[0]
            return None

    def _log_health(self) -> None:
        """Every minute, one line of link health when anything went wrong meanwhile."""
        now = time.monotonic()
        if now - self._health_logged < 60:
            return
        self._health_logged = now
        keys = ("retries", "naks", "timeouts", "reconnects", "device_resets", "rx_errors")
        counts = {k: self._stats[k] for k in keys}
        if counts != self._health_counts:
            self._health_counts = counts
            rtt = self.health()["rtt_ms"]
            log.info("scoreboard link on %s: %s, rtt %s", self._path, counts, rtt)

    def _serve(self) -> None:
        while not self._stop:
            self._log_health()
            job = self._next_job()
            if job is None:
                if time.monotonic() - self._last_rx >= self.heartbeat:
                    job = (p.ping_frame(self._next_seq()), None)
                else:
                    self._idle()
                    continue
            frame, owner = job
            reply = self._transact(frame, timeout=self.ack_timeout)
            if reply is not None:
                self._failures = 0
                self._done(frame, owner, reply)
                continue
            self._failures += 1
            if self._nak is not None:
                self._refused(frame, owner)
            if time.monotonic() - self._last_rx > self.max_silence:
                raise _LinkLost(f"no answer from {self._path} for {self.max_silence:.1f} s")

    def _refused(self, frame: p.Frame, owner: object) -> None:
        """A NAK: resend at once unless the device keeps refusing the same frame (backoff)."""
        reason = self._nak
        if reason in (p.NakReason.TYPE, p.NakReason.LENGTH, p.NakReason.VALUE):
            with self._cond:
                self._last_error = f"device refused {p.MsgType(frame.type).name}: {reason!r}"
                if isinstance(owner, _Request):  # a request fails rather than repeats
                    if self._requests and self._requests[0] is owner:
                        self._requests.popleft()
                    owner.done.set()
                    return
        if self._failures >= 3:
            with self._cond:
                self._cond.wait(min(0.01 * self._failures, 0.2))

    def _done(self, frame: p.Frame, owner: object, reply: p.Frame) -> None:
        with self._cond:
            if isinstance(owner, DisplayState):
                self._acked = owner
            elif isinstance(owner, _Announce):
                if self._announces and self._announces[0] is owner:
                    self._announces.popleft()
            elif isinstance(owner, _Request):
                owner.reply = reply
                owner.rtt = self._rtts[-1] if self._rtts else None
                if self._requests and self._requests[0] is owner:
                    self._requests.popleft()
                owner.done.set()
            self._cond.notify_all()

    def _idle(self) -> None:
        conn = self._conn
        assert conn is not None
        wait = self.heartbeat - (time.monotonic() - self._last_rx)
        # a cancellable read sleeps until woken; others (socket://) poll every 10 ms
        wait = min(wait, 0.25 if hasattr(conn, "cancel_read") else 0.01)
        self._read(max(wait, 0.001))

    def _transact(self, frame: p.Frame, timeout: float) -> p.Frame | None:
        """Send a frame and wait for its ACK; None on NAK, timeout or a device reset."""
        conn = self._conn
        assert conn is not None
        if self._last_sent == frame:
            self._stats["retries"] += 1
        self._last_sent = frame
        t0 = time.monotonic()
        conn.write(p.encode(frame))
        self._stats["frames_sent"] += 1
        deadline = t0 + timeout
        self._nak = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self._stats["timeouts"] += 1
                return None
            acked = None
            reset = False
            for item in self._read(left):  # in arrival order
                if item.type == p.MsgType.HELLO:
                    reset = True  # a reset after our ACK undoes it: the frame must go again
                    acked = None
                elif item.seq != frame.seq:
                    continue
                elif item.type == p.MsgType.ACK and p.acked_type(item) == frame.type:
                    acked = item
                    reset = False
                elif item.type == p.MsgType.NAK:
                    self._stats["naks"] += 1
                    self._nak = p.nak_reason(item)
                    log.debug("NAK %s for %s", self._nak, frame)
                    return None
            if acked is not None:
                now = time.monotonic()
                self._rtts.append(now - t0)
                self._last_ack = now
                self._stats["acked"] += 1
                return acked
            if reset:
                return None

    def _read(self, timeout: float) -> list[p.Frame]:
        """Frames received within timeout; a HELLO (device reset) also forgets the acked state."""
        conn = self._conn
        assert conn is not None
        conn.timeout = timeout
        data = conn.read(max(1, conn.in_waiting))
        if not data:
            return []
        out = []
        for item in self._decoder.feed(data):
            if isinstance(item, p.FrameError):
                self._stats["rx_errors"] += 1
                continue
            self._last_rx = time.monotonic()
            if item.type == p.MsgType.HELLO:
                cause = p.reset_cause(item)
                level = logging.WARNING if cause == "watchdog" else logging.INFO
                log.log(level, "scoreboard reset (%s): resending the state", cause)
                self._stats["device_resets"] += 1
                with self._cond:
                    self._acked = None
                    self._last_reset = cause
            out.append(item)
        return out
