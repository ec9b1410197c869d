"""The wire protocol in isolation: framing, CRC, payload layouts, and garbage handling.

Layouts are those of firmware_bridge/PROTOCOL.md; expected bytes are worked out by hand there.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.display import DisplayState
from firmware_bridge.glyphs import word_cells


def test_crc_is_crc16_ccitt_false():
    # the published check value of CRC-16/IBM-3740 (CCITT-FALSE) over "123456789"
    assert p.crc16(b"123456789") == 0x29B1


def reference_crc(data: bytes) -> int:
    """CRC-16/CCITT-FALSE bit by bit (poly 0x1021, init 0xFFFF), independent of the crc package."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def test_state_frame_layout():
    frame = p.state_frame(7, DisplayState(56, 7, turn=0, brightness=8))
    # type 01, seq 07, left 0x0038, right 0x0007, turn 00, brightness 08
    raw = bytes([0x01, 0x07, 0x00, 0x38, 0x00, 0x07, 0x00, 0x08])
    assert frame == p.Frame(0x01, 7, raw[2:])
    crc = reference_crc(raw)
    hi, lo = crc >> 8, crc & 0xFF
    assert hi and lo  # no zero in the CRC, so the COBS blocks below are the whole story
    # COBS by hand: blocks [01 07] [38] [07] [08 hi lo], each led by its length + 1
    cobs = bytes([0x03, 0x01, 0x07, 0x02, 0x38, 0x02, 0x07, 0x04, 0x08, hi, lo])
    assert p.encode(frame) == b"\x00" + cobs + b"\x00"
    assert p.decode(cobs) == frame


def test_no_turn_and_announce_layouts():
    assert p.state_frame(1, DisplayState(101, 98)).payload == bytes([0, 101, 0, 98, 0xFF, 8])
    f = p.announce_frame(9, 0, "bAsrA", seconds=3.0)
    assert f.type == 0x02 and f.payload == bytes([0x00, 30]) + b"bAsrA"
    assert p.announce_frame(9, None, "7d", 0.5).payload == bytes([0xFF, 5]) + b"7d"
    assert p.brightness_frame(3, 15) == p.Frame(0x03, 3, bytes([15]))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, "KOMI"), "cannot show 'K'"),
        ((0, "bAsrA!"), "cannot show '!'"),
        ((2, "FOUL"), "side must be 0, 1 or none"),
        ((0, "123456789"), "more than 8 digits"),
    ],
)
def test_announce_rejects_what_the_digits_cannot_show(args, message):
    with pytest.raises(ValueError, match=message):
        p.announce_frame(1, *args)


def test_announce_duration_bounds():
    with pytest.raises(ValueError, match="0.1..25.5 s"):
        p.announce_frame(1, 0, "FOUL", seconds=30)
    with pytest.raises(ValueError, match="0.1..25.5 s"):
        p.announce_frame(1, 0, "FOUL", seconds=0)


def test_words_fold_case_to_what_seven_segments_draw():
    # s and S are both the 5 shape; A and a both the upper-case A; '.' joins the cell before
    assert word_cells("bAsrA") == word_cells("bASrA") == [0x1F, 0x77, 0x5B, 0x05, 0x77]
    assert word_cells("7d") == [0x70, 0x3D]
    assert word_cells("1.5") == [0x30 | 0x80, 0x5B]


def test_decoder_splits_a_stream_and_reports_garbage():
    a = p.encode(p.ping_frame(1))
    b = p.encode(p.state_frame(2, DisplayState(1, 2)))
    items = p.Decoder().feed(b"\x13\x37" + a + b"\x01\x02\x03" + b)
    frames = [i for i in items if isinstance(i, p.Frame)]
    errors = [i for i in items if isinstance(i, p.FrameError)]
    assert frames == [p.ping_frame(1), p.state_frame(2, DisplayState(1, 2))]
    assert len(errors) == 2


def test_a_flipped_bit_is_caught():
    wire = bytearray(p.encode(p.state_frame(5, DisplayState(56, 7, 0))))
    for i in range(1, len(wire) - 1):
        for bit in range(8):
            bad = bytearray(wire)
            bad[i] ^= 1 << bit
            out = [x for x in p.Decoder().feed(bytes(bad)) if isinstance(x, p.Frame)]
            assert out == [], f"flip of bit {bit} in byte {i} went unnoticed"


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 0xFF), st.integers(0, 0xFF), st.binary(max_size=p.MAX_PAYLOAD))
def test_any_frame_round_trips(kind, seq, payload):
    frame = p.Frame(kind, seq, payload)
    assert p.Decoder().feed(p.encode(frame)) == [frame]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_garbage_never_raises(blob):
    for item in p.Decoder().feed(blob):
        assert isinstance(item, p.Frame | p.FrameError)
