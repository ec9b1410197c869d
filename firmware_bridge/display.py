"""What the scoreboard should show (DisplayState) and the layout of its eight digits.

The firmware renders on the device; this Python layout serves the text:// board and checks.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from firmware_bridge.glyphs import DP, SEGMENTS, cells_text, word_cells

MAX_TOTAL = 9999
MAX_BRIGHTNESS = 15


@dataclass(frozen=True)
class DisplayState:
    """Both sides' match totals, whose turn (side 0, 1 or None) and LED brightness (0..15)."""

    left: int
    right: int
    turn: int | None = None
    brightness: int = 8

    def __post_init__(self) -> None:
        for name in ("left", "right"):
            value = getattr(self, name)
            try:
                if isinstance(value, bool):
                    raise TypeError
                value = operator.index(value)  # ints, and numpy integers too
            except TypeError:
                raise ValueError(f"{name} total must be a whole number, not {value!r}") from None
            object.__setattr__(self, name, value)
            if not 0 <= value <= MAX_TOTAL:
                raise ValueError(f"{name} total {value} does not fit 4 digits (0..{MAX_TOTAL})")
        if self.turn not in (None, 0, 1):
            raise ValueError(f"turn must be side 0, 1 or none, not {self.turn!r}")
        b = self.brightness
        if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= MAX_BRIGHTNESS:
            raise ValueError(f"brightness must be 0..{MAX_BRIGHTNESS}, not {b!r}")


def check_side(side: int | None) -> None:
    """ValueError unless side is 0, 1 or None."""
    if side not in (None, 0, 1):
        raise ValueError(f"side must be 0, 1 or none, not {side!r}")


def _number_cells(value: int) -> list[int]:
    digits = str(value).rjust(4)
    return [SEGMENTS[c] for c in digits]


def score_cells(state: DisplayState) -> list[int]:
    """Cells 0-3: side 0's total, 4-7: side 1's, right-aligned; DP of cell 3/7 marks the turn."""
    cells = _number_cells(state.left) + _number_cells(state.right)
    if state.turn is not None:
        cells[3 + 4 * state.turn] |= DP
    return cells


def announce_cells(side: int | None, word: str) -> list[int]:
    """The word on side 0's end, side 1's end, or centred for no side."""
    cells = word_cells(word)
    n = len(cells)
    start = 0 if side == 0 else 8 - n if side == 1 else (8 - n) // 2
    return [0] * start + cells + [0] * (8 - start - n)


def render_text(state: DisplayState) -> str:
    """The digits' text for a state, in the harness's format (e.g. '  56.   7')."""
    return cells_text(score_cells(state))
