"""Seven-segment glyphs: which characters the scoreboard can draw, and how words become cells.

Mirrors firmware/src/glyphs.c (bit 7 DP, then segments A..G) so words are checked before sending.
"""

from __future__ import annotations

DP = 0x80

# Segment patterns, MAX7219 no-decode order (A=0x40 ... G=0x01). Case folds to the drawable form.
SEGMENTS: dict[str, int] = {
    " ": 0x00, "-": 0x01, "_": 0x08,
    "0": 0x7E, "1": 0x30, "2": 0x6D, "3": 0x79, "4": 0x33,
    "5": 0x5B, "6": 0x5F, "7": 0x70, "8": 0x7F, "9": 0x7B,
    "A": 0x77, "B": 0x1F, "C": 0x4E, "D": 0x3D, "E": 0x4F, "F": 0x47, "G": 0x5E, "H": 0x37,
    "I": 0x06, "J": 0x3C, "L": 0x0E, "N": 0x15, "O": 0x7E, "P": 0x67, "Q": 0x73, "R": 0x05,
    "S": 0x5B, "T": 0x0F, "U": 0x3E, "Y": 0x3B,
    "a": 0x77, "b": 0x1F, "c": 0x0D, "d": 0x3D, "e": 0x4F, "f": 0x47, "g": 0x7B, "h": 0x17,
    "i": 0x10, "j": 0x3C, "l": 0x0E, "n": 0x15, "o": 0x1D, "p": 0x67, "q": 0x73, "r": 0x05,
    "s": 0x5B, "t": 0x0F, "u": 0x1C, "y": 0x3B,
}  # fmt: skip

# Reading segments back as text: digits win where a letter shares the pattern (S=5, O=0).
_READ_ORDER = "0123456789AbCcdEFGHhIiJLnoPqrtUuy-_ "
_CHAR_OF: dict[int, str] = {}
for _c in _READ_ORDER:
    _CHAR_OF.setdefault(SEGMENTS[_c] if _c in SEGMENTS else SEGMENTS[_c.upper()], _c)

MAX_CELLS = 8


def word_cells(word: str) -> list[int]:
    """Segment cells for a word; '.' lights the previous cell's DP. ValueError names a bad char."""
    cells: list[int] = []
    for ch in word:
        if ch == ".":
            if cells and not cells[-1] & DP:
                cells[-1] |= DP
            else:
                cells.append(DP)
        elif ch in SEGMENTS:
            cells.append(SEGMENTS[ch])
        else:
            raise ValueError(f"a 7-segment digit cannot show {ch!r} (in word {word!r})")
        if len(cells) > MAX_CELLS:
            raise ValueError(f"word {word!r} needs more than {MAX_CELLS} digits")
    return cells


def cells_text(cells: list[int]) -> str:
    """The text a row of cells reads as: one character per digit, '.' after a lit DP."""
    out = []
    for seg in cells:
        out.append(_CHAR_OF.get(seg & 0x7F, "?"))
        if seg & DP:
            out.append(".")
    return "".join(out)
