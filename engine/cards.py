"""Card codes and card order: parsing `9D`/`10d`, values, sorting, the 52-card deck.

A card is a normalised code string everywhere outside the engine's hot loops; internally
`card_index` (rank * 4 + suit) gives an int whose natural order is card order (R8.1).
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "SHDC"
FULL_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_INDEX = {code: i for i, code in enumerate(FULL_DECK)}


class CardError(ValueError):
    """A token that is not a card code, or a duplicated card."""


def parse_card(token: str) -> str:
    """Normalise one card code: `"10d"` -> `"TD"`; CardError names a bad token."""
    if not isinstance(token, str):
        raise CardError(f"not a card code: {token!r}")
    text = token.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if text not in _INDEX:
        raise CardError(f"unknown card {token.strip()!r} (expected rank A23456789TJQK + suit SHDC)")
    return text


def parse_cards(cards: str | Iterable[str], what: str = "cards") -> tuple[str, ...]:
    """Parse a space/comma separated string or an iterable of codes; duplicates are an error."""
    tokens = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    out = tuple(parse_card(t) for t in tokens)
    seen: set[str] = set()
    for code in out:
        if code in seen:
            raise CardError(f"duplicate card {code} in {what}")
        seen.add(code)
    return out


def card_index(code: str) -> int:
    """0..51 in card order (rank A..K, then suit S H D C)."""
    return _INDEX[code]


def card_key(code: str) -> int:
    """Sort key giving card order (R8.1)."""
    return _INDEX[code]


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """The cards in card order."""
    return tuple(sorted(cards, key=_INDEX.__getitem__))


def rank(code: str) -> str:
    """The rank letter of a card code."""
    return code[0]


def value(code: str) -> int:
    """Capture value (R2.1): A = 1, 2..T = face value, J/Q/K = 0 (no value)."""
    r = RANKS.index(code[0])
    return r + 1 if r <= 9 else 0


def is_number(code: str) -> bool:
    """A..T take part in sums; J, Q, K never do (R2.1)."""
    return code[0] not in "JQK"
