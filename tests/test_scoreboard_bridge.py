"""The bridge against the real firmware in simavr: convergence, faults, unplug and replug.

What the digits show is read from the emulator's decoded MAX7219 traffic (SimBoard events).
"""

from __future__ import annotations

import os
import time

import pytest

from firmware_bridge.bridge import DisplayState, ScoreboardBridge
from firmware_bridge.faultproxy import FaultProxy
from firmware_bridge.sim import SimBoard, sim_available

_why = sim_available()


def simavr(test):
    """Mark a test as needing the emulator; skip it, saying why, where it cannot run."""
    test = pytest.mark.skipif(_why is not None, reason=f"scoreboard emulator unavailable: {_why}")(
        test
    )
    return pytest.mark.simavr(test)


def shown(left: int, right: int, turn: int | None = None, dark: int | None = None) -> str:
    """The digits for two totals, each right-aligned in four digits, with the turn's DP after
    that side's last digit, and side `dark` blank (a flashing side), written out by hand."""
    halves = [f"{left:>4}", f"{right:>4}"]
    if turn is not None:
        halves[turn] += "."
    if dark is not None:
        halves[dark] = "    "  # the whole side goes dark, its turn point too
    return "".join(halves)


def booted(board: SimBoard) -> SimBoard:
    assert board.wait_for("  UAit  ", timeout=5) is not None, "the board never finished booting"
    return board


def test_text_board_needs_no_emulator():
    with ScoreboardBridge("text://") as b:
        b.show(DisplayState(56, 7, turn=0))
        assert b.wait_synced(2)
        assert b.display_text() == "  56.   7"
        b.announce(1, "FOUL", seconds=0.5)
        assert b.wait_synced(2)
        h = b.health()
        assert h["link"] == "up" and h["in_sync"] and h["naks"] == 0


def test_a_port_that_only_echoes_is_not_mistaken_for_a_board():
    """loop:// hands every frame straight back: nothing ever ACKs, so the link never comes up."""
    with ScoreboardBridge("loop://", reconnect_interval=0.05) as b:
        b.show(DisplayState(1, 2))
        assert not b.wait_link(1.2)
        h = b.health()
        assert h["link"] == "connecting" and h["acked"] == 0
        assert h["last_error"] == "no answer from loop://"


def test_bad_values_are_refused_before_they_reach_the_wire():
    with pytest.raises(ValueError, match="left total 10000 does not fit"):
        DisplayState(10000, 0)
    with pytest.raises(ValueError, match="turn must be side 0, 1 or none"):
        DisplayState(1, 2, turn=2)
    with pytest.raises(ValueError, match="brightness must be 0..15"):
        DisplayState(1, 2, brightness=16)
    b = ScoreboardBridge("text://")
    with pytest.raises(ValueError, match="cannot show 'K'"):
        b.announce(0, "KOMI")
    with pytest.raises(ValueError, match="side must be 0, 1 or none"):
        b.announce(2, "FOUL")
    with pytest.raises(ValueError, match="more than 8 digits"):
        b.announce(0, "bAsrAbAsrA")


def test_callers_never_block_while_no_device_is_there():
    b = ScoreboardBridge(lambda: None, reconnect_interval=0.05).start()
    try:
        t0 = time.perf_counter()
        for i in range(200):
            b.show(DisplayState(i, 0))
        b.announce(0, "bAsrA")
        assert time.perf_counter() - t0 < 0.5  # a blocking call would wait out timeouts
        time.sleep(0.2)
        h = b.health()
        assert h["link"] == "connecting" and not h["connected"] and not h["in_sync"]
        assert "no device" in h["last_error"]
    finally:
        b.close()


@simavr
def test_sim_url_starts_the_emulator_and_the_latest_state_wins():
    with ScoreboardBridge("sim://") as b:
        assert b.wait_link(10)
        for i in range(40):  # a burst: only the last must reach the digits
            b.show(DisplayState(i, 40 - i, turn=i % 2))
        assert b.wait_synced(3)
        assert shown(39, 1, 1) == "  39   1."
        assert b.sim.wait_for(shown(39, 1, 1), timeout=2) is not None
        assert b.display_text() == "  39   1."
        h = b.health()
        assert h["device"] == "basra-scoreboard 1.0.0"
        assert h["rtt_ms"]["median"] < 50
        assert h["acked"] < 40  # intermediate states were skipped, not queued


@simavr
def test_faults_at_one_percent_the_display_ends_on_the_latest_state():
    board = booted(SimBoard().start())
    proxy = FaultProxy(board.port, rate=0.01, seed=7).start()
    b = ScoreboardBridge(proxy.url, ack_timeout=0.04).start()
    try:
        assert b.wait_link(5)
        allowed = {"8.8.8.8.8.8.8.8.", "  UAit  ", "bA5rA   ", "   bA5rA"}
        for i in range(60):
            b.show(DisplayState(100 + i, 2 * i, turn=i % 2))
            allowed |= {shown(100 + i, 2 * i, i % 2, dark) for dark in (None, 0, 1)}
            if i % 20 == 10:
                b.announce(i % 2, "bAsrA", seconds=0.3)
            time.sleep(0.01)
        b.show(DisplayState(123, 45, turn=1))
        assert b.wait_synced(10), b.health()
        assert board.wait_for(" 123  45.", timeout=3) is not None
        time.sleep(0.4)  # an announcement still flashing ends by now
        assert board.text == " 123  45."
        faults = proxy.to_device, proxy.to_host
        injected = sum(c.dropped + c.corrupted + c.duplicated + c.delayed for c in faults)
        assert injected > 0, "the proxy injected no faults: the test proved nothing"
        h = b.health()
        assert h["retries"] + h["naks"] + h["timeouts"] > 0
        # nothing the bridge never sent ever appeared: only whole states and the word
        assert set(board.texts()) <= allowed | {shown(123, 45, 1, d) for d in (None, 0, 1)}
    finally:
        b.close()
        proxy.close()
        board.stop()


def take_pty(path: str) -> list[int]:
    """Open ptys until one gets `path` (freed once every side has closed it); keep them open."""
    fds: list[int] = []
    for _ in range(50):
        master, slave = os.openpty()
        fds += [master, slave]
        if os.ttyname(slave) == path:
            return fds
        time.sleep(0.01)
    return fds


class Socket:
    """Where the board is plugged in, as the bridge finds it: a callable or a glob of links
    (like /dev/serial/by-id/*), the link named after the board's pty so it changes on replug."""

    def __init__(self, how: str, folder) -> None:
        self.how, self.folder, self.path = how, folder, None

    @property
    def port(self):
        return (lambda: self.path) if self.how == "callable" else str(self.folder / "ttySB*")

    def plug(self, board: SimBoard) -> None:
        if self.how == "callable":
            self.path = board.port
        else:
            link = self.folder / f"ttySB{board.port.rsplit('/', 1)[1]}"
            link.symlink_to(board.port)

    def unplug(self) -> None:
        self.path = None
        for link in self.folder.glob("ttySB*"):
            link.unlink()


@simavr
@pytest.mark.parametrize("how", ["callable", "glob"])
def test_unplug_and_replug_under_a_new_path_converges_within_a_second(how, tmp_path):
    socket = Socket(how, tmp_path)
    a = booted(SimBoard().start())
    socket.plug(a)
    b = ScoreboardBridge(socket.port, reconnect_interval=0.05).start()
    hold: list[int] = []
    board2 = None
    try:
        b.show(DisplayState(30, 20, turn=0))
        assert b.wait_synced(5)
        assert a.wait_for("  30.  20", timeout=2) is not None

        a.kill()  # unplug
        socket.unplug()
        deadline = time.monotonic() + 2
        while b.health()["connected"] and time.monotonic() < deadline:
            time.sleep(0.01)
        h = b.health()
        assert not h["connected"] and h["disconnects"] == 1
        hold = take_pty(a.port)  # so the board must come back under another path

        b.show(DisplayState(40, 20, turn=1))  # the game goes on while it is unplugged
        assert not b.wait_synced(0.2)

        board2 = SimBoard().start()  # replug
        assert board2.port != a.port
        socket.plug(board2)
        returned = time.monotonic()
        shown = board2.wait_for("  40  20.", timeout=3)
        assert shown is not None, board2.texts()
        assert shown.t_host - returned < 1.0
        assert b.wait_synced(1)
        h = b.health()
        assert h["connected"] and h["reconnects"] == 1
    finally:
        b.close()
        a.stop()
        if board2:
            board2.stop()
        for fd in hold or ():
            os.close(fd)


@simavr
def test_a_device_reset_makes_the_bridge_resend_the_state():
    """The HELLO a rebooted board sends (e.g. after its watchdog fired) triggers a resend."""
    with ScoreboardBridge("sim://") as b:
        b.show(DisplayState(8, 9, turn=None))
        assert b.wait_synced(5)
        assert b.sim.wait_for("   8   9", timeout=2)
        first = b.sim
        first.kill()  # sim:// owns the emulator: it starts it again, like a power cycle
        deadline = time.monotonic() + 5
        while (b.sim is first or b.sim.text != "   8   9") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b.sim is not first and b.sim.text == "   8   9"
