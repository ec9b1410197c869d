"""The text scoreboard (`text://`): a serial-port stand-in that answers like the firmware.

For machines without simavr: frames are checked and ACKed/NAKed, the display is logged as text.
"""

from __future__ import annotations

import logging
import struct
import sys
import threading
import time

from firmware_bridge import protocol as p
from firmware_bridge.display import DisplayState, announce_cells, render_text
from firmware_bridge.glyphs import cells_text

log = logging.getLogger("firmware_bridge.text")


class TextBoard:
    """Implements read/write/in_waiting/close/cancel_read like a pyserial port.

    `text://` logs each display change; `text://stdout` or `text://stderr` also prints it.
    """

    def __init__(self, url: str = "text://") -> None:
        target = url.removeprefix("text://")
        if target not in ("", "stdout", "stderr"):
            raise ValueError(f"text:// takes stdout, stderr or nothing, not {target!r}")
        self._stream = {"stdout": sys.stdout, "stderr": sys.stderr}.get(target)
        self._decoder = p.Decoder()
        self._out = bytearray()
        self._cond = threading.Condition()
        self._cancel = False
        self._state: DisplayState | None = None
        self._brightness = 8
        self._t0 = time.monotonic()
        self.text = "  UAit  "
        self.is_open = True
        self._reply(p.Frame(p.MsgType.HELLO, 0, bytes([p.PROTO_VERSION, 0])))

    # -- pyserial-like surface --------------------------------------------------------------
    timeout: float | None = None

    @property
    def in_waiting(self) -> int:
        with self._cond:
            return len(self._out)

    def write(self, data: bytes) -> int:
        for item in self._decoder.feed(bytes(data)):
            if isinstance(item, p.FrameError):
                self._reply(p.Frame(p.MsgType.NAK, 0, bytes([p.NakReason.CRC])))
            else:
                self._handle(item)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        with self._cond:
            while not self._out and not self._cancel and self.is_open:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._cond.wait(left)
            self._cancel = False
            data = bytes(self._out[:size])
            del self._out[:size]
            return data

    def cancel_read(self) -> None:
        with self._cond:
            self._cancel = True
            self._cond.notify_all()

    def reset_input_buffer(self) -> None:
        with self._cond:
            self._out.clear()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        with self._cond:
            self.is_open = False
            self._cond.notify_all()

    # -- the device side --------------------------------------------------------------------
    def _reply(self, frame: p.Frame) -> None:
        with self._cond:
            self._out += p.encode(frame)[1:]
            self._cond.notify_all()

    def _ack(self, frame: p.Frame, extra: bytes = b"") -> None:
        self._reply(p.Frame(p.MsgType.ACK, frame.seq, bytes([frame.type]) + extra))

    def _nak(self, frame: p.Frame, reason: p.NakReason) -> None:
        self._reply(p.Frame(p.MsgType.NAK, frame.seq, bytes([reason])))

    def _show(self, text: str) -> None:
        if text != self.text:
            self.text = text
            log.info("scoreboard [%s]", text)
            if self._stream:
                print(f"scoreboard [{text}]", file=self._stream, flush=True)

    def _handle(self, f: p.Frame) -> None:
        t = f.type
        try:
            if t == p.MsgType.STATE and len(f.payload) == 6:
                left, right, turn, bright = struct.unpack(">HHBB", f.payload)
                self._state = DisplayState(left, right, None if turn == 0xFF else turn, bright)
                self._show(render_text(self._state))
            elif t == p.MsgType.ANNOUNCE and len(f.payload) >= 2:
                side = None if f.payload[0] == 0xFF else f.payload[0]
                self._show(cells_text(announce_cells(side, f.payload[2:].decode("ascii"))))
                if self._state:
                    self._show(render_text(self._state))
            elif t == p.MsgType.BRIGHTNESS and len(f.payload) == 1:
                DisplayState(0, 0, None, f.payload[0])
                self._brightness = f.payload[0]
            elif t == p.MsgType.PING and not f.payload:
                up = int((time.monotonic() - self._t0) * 1000) & 0xFFFFFFFF
                self._ack(f, struct.pack(">IHHH", up, 0, 0, 0))
                return
            elif t == p.MsgType.VERSION and not f.payload:
                self._ack(f, bytes([p.PROTO_VERSION]) + b"basra-textboard 1.0.0")
                return
            elif t in list(p.MsgType):
                self._nak(f, p.NakReason.LENGTH)
                return
            else:
                self._nak(f, p.NakReason.TYPE)
                return
        except (ValueError, UnicodeDecodeError):
            self._nak(f, p.NakReason.VALUE)
            return
        self._ack(f)
