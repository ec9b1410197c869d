"""The scoreboard wire protocol: COBS-framed messages with a sequence number and CRC-16.

Frame = 0x00, COBS(type, seq, payload, crc16 big-endian), 0x00. Layout in PROTOCOL.md.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from cobs import cobs
from crc import Calculator, Crc16

from firmware_bridge.display import DisplayState, check_side
from firmware_bridge.glyphs import word_cells

PROTO_VERSION = 1
MAX_PAYLOAD = 18
MAX_FRAME = 2 + MAX_PAYLOAD + 2
TURN_NONE = SIDE_NONE = 0xFF

_CRC = Calculator(Crc16.IBM_3740)  # CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF


class MsgType(IntEnum):
    """Message types; host to device below 0x80, device to host from 0x80."""

    STATE = 0x01
    ANNOUNCE = 0x02
    BRIGHTNESS = 0x03
    PING = 0x04
    VERSION = 0x05
    ACK = 0x80
    NAK = 0x81
    HELLO = 0x82


class NakReason(IntEnum):
    """Why the device refused a frame (the NAK payload)."""

    CRC = 1
    SHORT = 2
    TYPE = 3
    LENGTH = 4
    VALUE = 5
    OVERFLOW = 6
    COBS = 7


class FrameError(ValueError):
    """A received packet that is not a valid frame."""


@dataclass(frozen=True)
class Frame:
    """One decoded message."""

    type: int
    seq: int
    payload: bytes = b""


def crc16(data: bytes) -> int:
    """CRC-16/IBM-3740 of data."""
    return _CRC.checksum(data)


def encode(frame: Frame) -> bytes:
    """The bytes on the wire, with a leading delimiter that ends any partial frame first."""
    if len(frame.payload) > 250:
        raise ValueError(f"payload of {len(frame.payload)} bytes is too long")
    raw = bytes([frame.type, frame.seq & 0xFF]) + frame.payload
    raw += crc16(raw).to_bytes(2, "big")
    return b"\x00" + cobs.encode(raw) + b"\x00"


def decode(packet: bytes) -> Frame:
    """Decode one packet (the bytes between delimiters); FrameError says what was wrong."""
    try:
        raw = cobs.decode(packet)
    except cobs.DecodeError as exc:
        raise FrameError(f"bad COBS: {exc}") from None
    if len(raw) < 4:
        raise FrameError(f"frame of {len(raw)} bytes is too short")
    if crc16(raw[:-2]) != int.from_bytes(raw[-2:], "big"):
        raise FrameError("CRC mismatch")
    return Frame(raw[0], raw[1], bytes(raw[2:-2]))


class Decoder:
    """Splits a byte stream into frames; garbage and overlong runs become FrameErrors."""

    def __init__(self, max_packet: int = 64) -> None:
        self._buf = bytearray()
        self._max = max_packet
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        for b in data:
            if b == 0:
                if self._overflow:
                    out.append(FrameError("overlong packet"))
                elif self._buf:
                    try:
                        out.append(decode(bytes(self._buf)))
                    except FrameError as exc:
                        out.append(exc)
                self._buf.clear()
                self._overflow = False
            elif len(self._buf) >= self._max:
                self._overflow = True
            else:
                self._buf.append(b)
        return out


def state_frame(seq: int, state: DisplayState) -> Frame:
    """STATE: left u16, right u16, turn (0, 1, 0xFF), brightness — the whole display."""
    turn = TURN_NONE if state.turn is None else state.turn
    payload = struct.pack(">HHBB", state.left, state.right, turn, state.brightness)
    return Frame(MsgType.STATE, seq, payload)


def announce_frame(seq: int, side: int | None, word: str, seconds: float = 3.0) -> Frame:
    """ANNOUNCE: side, duration in tenths of a second, word (ASCII, '.' = DP of the cell before)."""
    check_side(side)
    word_cells(word)  # ValueError naming an undrawable character
    tenths = round(seconds * 10)
    if not 1 <= tenths <= 255:
        raise ValueError(f"announce duration must be 0.1..25.5 s, not {seconds!r}")
    data = word.encode("ascii")
    if len(data) > MAX_PAYLOAD - 2:
        raise ValueError(f"word {word!r} is longer than {MAX_PAYLOAD - 2} bytes")
    side_byte = SIDE_NONE if side is None else side
    return Frame(MsgType.ANNOUNCE, seq, bytes([side_byte, tenths]) + data)


def brightness_frame(seq: int, level: int) -> Frame:
    """BRIGHTNESS: one byte, 0..15."""
    DisplayState(0, 0, None, level)  # validates
    return Frame(MsgType.BRIGHTNESS, seq, bytes([level]))


def ping_frame(seq: int) -> Frame:
    return Frame(MsgType.PING, seq)


def version_frame(seq: int) -> Frame:
    return Frame(MsgType.VERSION, seq)


@dataclass(frozen=True)
class PingReply:
    """What the device reports in its ACK to a PING."""

    uptime_ms: int
    frames_ok: int
    frames_bad: int
    rx_overflows: int


def acked_type(frame: Frame) -> int | None:
    """For an ACK, the type of the message it acknowledges."""
    return frame.payload[0] if frame.type == MsgType.ACK and frame.payload else None


def parse_ping_reply(frame: Frame) -> PingReply:
    """Decode the extra bytes of a PING's ACK."""
    if acked_type(frame) != MsgType.PING or len(frame.payload) != 11:
        raise FrameError("not a PING acknowledgement")
    return PingReply(*struct.unpack(">IHHH", frame.payload[1:]))


def parse_version_reply(frame: Frame) -> tuple[int, str]:
    """(protocol version, firmware name and version) from a VERSION's ACK."""
    if acked_type(frame) != MsgType.VERSION or len(frame.payload) < 2:
        raise FrameError("not a VERSION acknowledgement")
    return frame.payload[1], frame.payload[2:].decode("ascii", "replace")


def nak_reason(frame: Frame) -> NakReason | int | None:
    """For a NAK, its reason."""
    if frame.type != MsgType.NAK or not frame.payload:
        return None
    try:
        return NakReason(frame.payload[0])
    except ValueError:
        return frame.payload[0]


_RESET_BITS = ((8, "watchdog"), (4, "brown-out"), (2, "external"), (1, "power-on"))


def reset_cause(frame: Frame) -> str:
    """For a HELLO, why the board (re)started: watchdog, brown-out, external, power-on."""
    flags = frame.payload[1] if frame.type == MsgType.HELLO and len(frame.payload) > 1 else 0
    return next((name for bit, name in _RESET_BITS if flags & bit), "unknown")
