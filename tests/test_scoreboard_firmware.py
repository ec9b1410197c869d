"""The scoreboard firmware running in simavr: what the decoded digits show for each message.

Frames are built by hand here (protocol.encode) and sent raw over the emulator's pty, so these
tests check the firmware itself, not the bridge. Display layout per firmware_bridge/PROTOCOL.md.
"""

from __future__ import annotations

import random
import struct
import time

import pytest
import serial

from firmware_bridge import protocol as p
from firmware_bridge.sim import SimBoard, sim_available

_why = sim_available()
pytestmark = [
    pytest.mark.simavr,
    pytest.mark.skipif(_why is not None, reason=f"scoreboard emulator unavailable: {_why}"),
]


class RawLink:
    """A bare pyserial connection to the emulated board: frames out, frames back."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board
        self.port = serial.Serial(board.port, 115200, timeout=0.05)
        self.decoder = p.Decoder()
        self.hellos = 0
        self.seq = 0

    def close(self) -> None:
        self.port.close()

    def send_raw(self, data: bytes) -> None:
        self.port.write(data)

    def replies(
        self, timeout: float = 0.5, want: int = 1, until_ack: bool = False
    ) -> list[p.Frame]:
        out: list[p.Frame] = []
        deadline = time.monotonic() + timeout
        while len(out) < want and time.monotonic() < deadline:
            for item in self.decoder.feed(self.port.read(max(1, self.port.in_waiting))):
                assert not isinstance(item, p.FrameError), f"device sent a bad frame: {item}"
                if item.type == p.MsgType.HELLO:
                    self.hellos += 1
                else:
                    out.append(item)
                    if until_ack and item.type == p.MsgType.ACK:
                        return out
        return out

    def request(self, frame: p.Frame, timeout: float = 0.5) -> p.Frame:
        self.send_raw(p.encode(frame))
        got = self.replies(timeout)
        assert got, f"no reply to {frame}"
        return got[0]

    def next_seq(self) -> int:
        self.seq = (self.seq + 1) & 0xFF
        return self.seq

    def state(self, left: int, right: int, turn: int = 0xFF, brightness: int = 8) -> p.Frame:
        payload = struct.pack(">HHBB", left, right, turn, brightness)
        return self.request(p.Frame(p.MsgType.STATE, self.next_seq(), payload))

    def sync(self) -> None:
        """The boot banner may come before the port is open: a ping proves the link."""
        for _ in range(10):
            self.send_raw(p.encode(p.ping_frame(self.next_seq())))
            if self.replies(0.2):
                return
        raise AssertionError("the emulated board never answered a ping")


def is_ack(frame: p.Frame, seq: int, of: int) -> bool:
    return frame.type == p.MsgType.ACK and frame.seq == seq and p.acked_type(frame) == of


def settle(board: SimBoard, quiet: float = 0.15) -> str | None:
    """Wait until no display change for `quiet` s; what the digits show then."""
    n = len(board.events)
    while True:
        time.sleep(quiet)
        if len(board.events) == n:
            return board.text
        n = len(board.events)


@pytest.fixture(scope="module")
def board():
    b = SimBoard().start()
    assert b.wait_for("  UAit  ", timeout=5) is not None, "the board never finished booting"
    yield b
    b.stop()


@pytest.fixture()
def link(board):
    link = RawLink(board)
    link.sync()
    yield link
    link.close()


def test_boot_self_test_lights_every_segment_then_waits_for_the_host():
    with SimBoard() as b:
        first = b.wait_for(lambda e: True, timeout=3)
        assert first is not None and first.text == "8.8.8.8.8.8.8.8."
        assert first.intensity == 8 and not first.shutdown
        wait = b.wait_for("  UAit  ", timeout=3)
        assert wait is not None
        # the self-test lasts 400 ms of device time
        assert 350_000 <= wait.t_us - first.t_us <= 450_000


@pytest.mark.parametrize(
    ("left", "right", "turn", "shown"),
    [
        (56, 7, 0, "  56.   7"),  # side 0 to play: DP after its total
        (56, 7, 1, "  56   7."),  # side 1 to play
        (101, 98, 0xFF, " 101  98"),  # R5.1: the target 101 fits
        (9999, 0, 0xFF, "9999   0"),
        (0, 0, 0xFF, "   0   0"),
    ],
)
def test_state_shows_both_totals_and_whose_turn(board, link, left, right, turn, shown):
    reply = link.state(left, right, turn)
    assert is_ack(reply, link.seq, p.MsgType.STATE)
    assert board.wait_for(shown, timeout=1, since=max(0, len(board.events) - 2)) is not None
    assert settle(board) == shown


def test_basra_announcement_flashes_the_word_and_blinks_the_side(board, link):
    """R3.4: a basra is shown to the whole table the moment it is scored."""
    link.state(66, 7, 1)
    settle(board)
    start = len(board.events)
    reply = link.request(p.announce_frame(link.next_seq(), 0, "bASrA", seconds=1.0))
    assert is_ack(reply, link.seq, p.MsgType.ANNOUNCE)
    assert board.wait_for("  66   7.", timeout=2.5, since=start + 1) is not None
    seen = board.texts(start)
    # the word on side 0's end (S reads as 5 on seven segments), alternating with the
    # scores with side 0 dark; then the plain scores again.
    assert seen[:4] == ["bA5rA   ", "       7.", "bA5rA   ", "       7."]
    assert seen[-1] == "  66   7."
    assert set(seen) == {"bA5rA   ", "       7.", "  66   7."}
    flashes = [e for e in board.events[start:] if e.text == "bA5rA   "]
    # 1.0 s at 250 ms per phase: the word shows in phases 0 and 2
    assert len(flashes) == 2
    assert 450_000 <= flashes[1].t_us - flashes[0].t_us <= 550_000


@pytest.mark.parametrize(
    ("side", "word", "on", "off"),
    [
        (1, "FOUL", "    F0UL", "  12    "),  # R7: a foul, at side 1's end
        (None, "7d", "   7d   ", "  12  34"),  # the 7D komi, centred, nobody blinks
        (0, "UAit", "UAit    ", "      34"),
    ],
)
def test_other_words(board, link, side, word, on, off):
    link.state(12, 34)
    settle(board)
    start = len(board.events)
    reply = link.request(p.announce_frame(link.next_seq(), side, word, seconds=0.6))
    assert is_ack(reply, link.seq, p.MsgType.ANNOUNCE)
    assert board.wait_for("  12  34", timeout=2, since=start + 2) is not None
    seen = board.texts(start)
    assert seen[0] == on
    if off != "  12  34":
        assert seen[1] == off


def test_brightness_changes_intensity_only(board, link):
    link.state(5, 6)
    settle(board)
    reply = link.request(p.brightness_frame(link.next_seq(), 3))
    assert is_ack(reply, link.seq, p.MsgType.BRIGHTNESS)
    ev = board.wait_for(lambda e: e.intensity == 3, timeout=1)
    assert ev is not None and ev.text == "   5   6"
    link.state(5, 6, brightness=15)  # the full state carries brightness too
    ev = board.wait_for(lambda e: e.intensity == 15, timeout=1)
    assert ev is not None and ev.text == "   5   6"


def test_ping_and_version(link):
    reply = link.request(p.ping_frame(link.next_seq()))
    assert is_ack(reply, link.seq, p.MsgType.PING)
    info = p.parse_ping_reply(reply)
    assert info.uptime_ms > 0
    reply = link.request(p.version_frame(link.next_seq()))
    assert is_ack(reply, link.seq, p.MsgType.VERSION)
    assert p.parse_version_reply(reply) == (1, "basra-scoreboard 1.0.0")


def _nak(reply: p.Frame) -> p.NakReason | int | None:
    assert reply.type == p.MsgType.NAK, f"expected a NAK, got {reply}"
    return p.nak_reason(reply)


def test_bad_frames_are_naked_and_change_nothing(board, link):
    link.state(40, 30, 0)
    assert settle(board) == "  40.  30"
    before = len(board.events)
    good = p.encode(p.state_frame(link.next_seq(), _state(99, 99)))

    corrupted = bytearray(good)
    corrupted[5] ^= 0x04  # one bit of the payload
    link.send_raw(bytes(corrupted))
    assert _nak(link.replies()[0]) == p.NakReason.CRC

    link.send_raw(good[:-4] + b"\x00")  # truncated: CRC bytes lost
    assert _nak(link.replies()[0]) in (p.NakReason.CRC, p.NakReason.SHORT, p.NakReason.COBS)

    link.send_raw(b"\x00\x02\x01\x00")  # a one-byte frame
    assert _nak(link.replies()[0]) == p.NakReason.SHORT

    cases = [
        (p.Frame(p.MsgType.STATE, 1, struct.pack(">HHBB", 10000, 0, 0, 8)), p.NakReason.VALUE),
        (p.Frame(p.MsgType.STATE, 2, struct.pack(">HHBB", 1, 2, 2, 8)), p.NakReason.VALUE),
        (p.Frame(p.MsgType.STATE, 3, struct.pack(">HHBB", 1, 2, 0, 16)), p.NakReason.VALUE),
        (p.Frame(p.MsgType.STATE, 4, b"\x00\x01"), p.NakReason.LENGTH),
        (p.Frame(p.MsgType.ANNOUNCE, 5, b"\x00\x0aKW"), p.NakReason.VALUE),
        (p.Frame(p.MsgType.ANNOUNCE, 6, b"\x02\x0aFOUL"), p.NakReason.VALUE),
        (p.Frame(p.MsgType.ANNOUNCE, 7, b"\x00\x0a123456789"), p.NakReason.VALUE),
        (p.Frame(p.MsgType.BRIGHTNESS, 8, b"\x10"), p.NakReason.VALUE),
        (p.Frame(0x33, 9, b""), p.NakReason.TYPE),
        (p.Frame(p.MsgType.ACK, 10, b"\x01"), p.NakReason.TYPE),
    ]
    for frame, reason in cases:
        reply = link.request(frame)
        assert reply.seq == frame.seq and _nak(reply) == reason, frame

    link.send_raw(b"\x00" + bytes(range(1, 200)) + b"\x00")  # far longer than any frame
    assert _nak(link.replies()[0]) == p.NakReason.OVERFLOW

    time.sleep(0.3)
    assert len(board.events) == before and board.text == "  40.  30"
    # and the link still works
    assert is_ack(link.state(41, 30, 0), link.seq, p.MsgType.STATE)
    assert board.wait_for("  41.  30", timeout=1) is not None


def _state(left, right, turn=None):
    from firmware_bridge.display import DisplayState

    return DisplayState(left, right, turn)


def test_random_garbage_never_hangs_or_shows_garbage(board, link):
    link.state(77, 12, 1)
    assert settle(board) == "  77  12."
    start = len(board.events)
    rng = random.Random(4)
    for _ in range(8):
        blob = bytes(rng.randrange(256) for _ in range(512))
        link.send_raw(blob)
        time.sleep(0.05)  # 512 bytes take 44 ms on the wire at 115200 baud
    # pathological runs: a NAK storm (each 2-byte packet earns a 7-byte NAK, so the board
    # cannot keep up and must drop), delimiters only, and one endless packet
    for blob in (b"\x01\x00" * 500, b"\x00" * 1000, b"\xff" * 1000):
        link.send_raw(blob)
    # still alive and answering once the backlog is read, without a watchdog reset (no
    # HELLO), and the display untouched
    link.send_raw(p.encode(p.ping_frame(link.next_seq())))
    replies = link.replies(timeout=3.0, want=1000, until_ack=True)
    acks = [r for r in replies if r.type == p.MsgType.ACK]
    assert len(acks) == 1 and is_ack(acks[0], link.seq, p.MsgType.PING)
    assert all(r.type == p.MsgType.NAK for r in replies if r is not acks[0])
    assert link.hellos == 0
    assert p.parse_ping_reply(acks[0]).frames_bad > 0
    assert board.texts(start) == [] and board.text == "  77  12."


def test_the_watchdog_resets_a_stuck_board_and_the_bridge_restores_the_display():
    """The test build's message 0x7E hangs the CPU with interrupts off (never in production)."""
    from firmware_bridge.bridge import DisplayState, ScoreboardBridge

    with SimBoard(test_build=True) as b:
        assert b.wait_for("  UAit  ", timeout=5) is not None
        with ScoreboardBridge(b.port) as bridge:
            bridge.show(DisplayState(12, 34, turn=0))
            assert bridge.wait_synced(3)
            assert b.wait_for("  12.  34", timeout=2) is not None
            hung = len(b.events)
            raw = serial.Serial(b.port, 115200, timeout=0.1)
            try:
                raw.write(p.encode(p.Frame(0x7E, 1)))
                t0 = time.monotonic()
                reset = b.wait_for("8.8.8.8.8.8.8.8.", timeout=3, since=hung)
                assert reset is not None, "the watchdog never reset the board"
                # WDTO_500MS: nominally 500 ms (slack for a loaded machine)
                assert 0.4 <= reset.t_host - t0 <= 1.5
                back = b.wait_for("  12.  34", timeout=2, since=b.events.index(reset))
                assert back is not None, b.texts(hung)
                assert bridge.health()["last_reset"] == "watchdog"
            finally:
                raw.close()
