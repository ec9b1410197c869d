"""The emulated scoreboard: builds the firmware and harness on demand and runs them in simavr.

SimBoard owns one scoreboard-sim process: its pty path, and every decoded display change.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
HARNESS_DIR = FIRMWARE_DIR / "harness"
ELF = FIRMWARE_DIR / "build" / "scoreboard.elf"
TEST_ELF = FIRMWARE_DIR / "build" / "scoreboard-test.elf"  # + a "hang" message, for tests only
HARNESS = HARNESS_DIR / "scoreboard-sim"
SELFTEST_US = 400_000  # firmware/src/config.h SELFTEST_MS: all segments lit after power-on


class SimUnavailable(RuntimeError):
    """The emulator cannot run here (avr-gcc, simavr or make missing, or the build failed)."""


def missing_tools() -> str | None:
    """A one-line reason the emulator cannot be built here, or None when it can."""
    for tool in ("make", "avr-gcc", "cc"):
        if shutil.which(tool) is None:
            return (
                f"{tool} is not installed (apt-get install gcc-avr avr-libc simavr libsimavr-dev)"
            )
    if not Path("/usr/include/simavr/sim_avr.h").exists() and not _pkg_config_ok():
        return "libsimavr-dev is not installed (apt-get install simavr libsimavr-dev)"
    return None


def _pkg_config_ok() -> bool:
    try:
        r = subprocess.run(["pkg-config", "--exists", "simavr"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def ensure_built() -> tuple[Path, Path]:
    """Build the firmware ELF and the harness if they are stale; (elf, harness)."""
    reason = sim_available()
    if reason:
        raise SimUnavailable(reason)
    lock_path = FIRMWARE_DIR / "build" / ".lock"  # build/ is git-ignored
    lock_path.parent.mkdir(exist_ok=True)
    with open(lock_path, "w") as lock:  # parallel tests must not race make
        fcntl.flock(lock, fcntl.LOCK_EX)
        for folder in (FIRMWARE_DIR, HARNESS_DIR):
            r = subprocess.run(
                ["make", "-s", "-C", str(folder)], capture_output=True, text=True, timeout=300
            )
            if r.returncode != 0:
                tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["?"]
                raise SimUnavailable(f"building {folder.name} failed: {tail[0]}")
    return ELF, HARNESS


@dataclass
class DisplayEvent:
    """One change of what the digits show, as the harness decoded it."""

    t_host: float  # time.monotonic() when the line arrived
    t_us: int  # simulated microseconds since power-on
    text: str
    intensity: int
    shutdown: bool
    raw: dict = field(repr=False, default_factory=dict)


class SimBoard:
    """One emulated scoreboard (firmware in simavr). start() -> self; .port is the pty path."""

    def __init__(
        self,
        on_display: Callable[[DisplayEvent], None] | None = None,
        *,
        test_build: bool = False,
        max_events: int | None = None,
    ) -> None:
        self.test_build = test_build
        self.max_events = max_events  # None: keep every change (tests); else the latest ones
        self.port: str | None = None
        self.events: list[DisplayEvent] = []
        self._proc: subprocess.Popen[str] | None = None
        self._cond = threading.Condition()
        self._on_display = on_display
        self._exited = False
        self.started = 0.0

    # -- life cycle -------------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> SimBoard:
        elf, harness = ensure_built()
        if self.test_build:
            elf = TEST_ELF
        self.started = time.monotonic()
        self._proc = subprocess.Popen(
            [str(harness), str(elf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        threading.Thread(target=self._read, name="scoreboard-sim-reader", daemon=True).start()
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.port is None and not self._exited:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        if self.port is None:
            self.kill()
            raise SimUnavailable("the emulator did not report its pty")
        return self

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def kill(self) -> None:
        """Pull the plug: SIGKILL, as abrupt as a cable yanked out."""
        if self._proc and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=5)

    def stop(self) -> None:
        """End the emulator (SIGTERM: the harness leaves with _exit at once)."""
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> SimBoard:
        return self.start() if self._proc is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the digits show ---------------------------------------------------------------
    @property
    def display(self) -> DisplayEvent | None:
        with self._cond:
            return self.events[-1] if self.events else None

    @property
    def text(self) -> str | None:
        d = self.display
        return d.text if d else None

    def wait_for(
        self, want: str | Callable[[DisplayEvent], bool], timeout: float = 2.0, since: int = 0
    ) -> DisplayEvent | None:
        """The first display event (index >= since) matching want, waiting up to timeout."""
        match = want if callable(want) else (lambda e: e.text == want)
        deadline = time.monotonic() + timeout
        with self._cond:
            i = since
            while True:
                while i < len(self.events):
                    if match(self.events[i]):
                        return self.events[i]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or self._exited:
                    return None
                self._cond.wait(left)

    def settled(self, quiet: float = 0.1, timeout: float = 2.0) -> str | None:
        """What the digits show once the boot self-test is over and `quiet` s pass unchanged."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._cond:
                last = self.events[-1] if self.events else None
            booted = last is not None and last.t_us >= SELFTEST_US
            if booted and time.monotonic() - last.t_host >= quiet:
                return last.text
            time.sleep(0.02)
        return self.text

    def texts(self, since: int = 0) -> list[str]:
        with self._cond:
            return [e.text for e in self.events[since:]]

    def _read(self) -> None:
        assert self._proc and self._proc.stdout
        for line in self._proc.stdout:
            t = time.monotonic()
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            kind = ev.get("event")
            with self._cond:
                if kind == "pty":
                    self.port = ev["path"]
                elif kind == "display":
                    d = DisplayEvent(t, ev["t_us"], ev["text"], ev["intensity"], ev["shutdown"], ev)
                    self.events.append(d)
                    if self.max_events and len(self.events) > self.max_events:
                        del self.events[: len(self.events) - self.max_events // 2]
                    if self._on_display:
                        self._on_display(d)
                self._cond.notify_all()
        with self._cond:
            self._exited = True
            self._cond.notify_all()


def sim_available() -> str | None:
    """None when the emulator can be built and run here, else the reason it cannot."""
    if os.environ.get("BASRA_NO_SIMAVR"):
        return "BASRA_NO_SIMAVR is set"
    return missing_tools()
