"""Rule sets as data: one frozen `RuleSet` value per variant of RULES.md (V1-V6).

A café's house rule is a new `RuleSet` value (e.g. `dataclasses.replace(CLASSIC, target=151)`),
never new code: every rule the engine applies reads one of these named fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RulesError(ValueError):
    """Unknown variant or a player count the variant does not allow."""


class CaptureMode(StrEnum):
    LARGEST_HAUL = "largest_haul"  # R2.8 Classic family: every maximum-haul set is legal
    PLANS = "plans"  # R2.8 ERAM: maximal plans with ids, at most max_plans offered


class SevenDBasra(StrEnum):
    NONE = "none"  # no 7D sweep basra (or no 7D power at all)
    SUM_LE_10 = "sum_le_10"  # R3.3: only number cards summing to 10 or less
    YEMENI = "yemeni"  # V4 / R8.4: the three Yemeni cases
    COUNT_LE_10_NO_QK = "count_le_10_no_qk"  # V6 / R8.3: <= 10 cards, no Q or K


class BasraRule(StrEnum):
    CLEAR = "clear"  # R3.1: clearing the floor with a number card, Q or K
    SINGLE_CARD = "single_card"  # V3: only on a single card, cases (a) and (b)


class BasraValue(StrEnum):
    FIXED = "fixed"  # basra_points each (R4.4)
    DOUBLE_CARD = "double_card"  # V5: twice the card's value, pictures 10


@dataclass(frozen=True)
class RuleSet:
    """Every rule that differs between variants, by name (defaults are Classic, V1)."""

    name: str = "classic"
    target: int = 101  # R5.1
    cards_per_deal: int = 4  # R1.2
    cards_per_deal_3p: int = 4  # V3: 3 players get 4 cards a deal
    players: tuple[int, ...] = (2, 4)  # R1.1
    seven_d_sweeps: bool = True  # R2.4 (Lebanese: an ordinary 7)
    seven_d_basra: SevenDBasra = SevenDBasra.SUM_LE_10  # R3.3
    floor_returns_7d: bool = True  # R1.3: the 7D goes back from the initial floor
    jack_basra_points: int = 0  # J on a lone J (V2, V3, V4); 0 = never a basra (R3.2)
    basra_rule: BasraRule = BasraRule.CLEAR
    basra_value: BasraValue = BasraValue.FIXED
    basra_points: int = 10  # R4.4
    most_cards_points: int = 30  # R4.1
    most_cards_carry: bool = True  # R4.2: a 26-26 tie carries the points to the next round
    point_cards: tuple[tuple[str, int], ...] = (("J", 1), ("A", 1), ("2C", 2), ("TD", 3))  # R4.3
    round_cap: int | None = 30  # R5.2
    capture_mode: CaptureMode = CaptureMode.LARGEST_HAUL  # R2.8
    max_plans: int | None = None  # R8.1: ERAM offers at most 12
    description: str = ""

    def deal_size(self, players: int) -> int:
        """Cards dealt to each player per deal (R1.2, R1.4, V3)."""
        return self.cards_per_deal_3p if players == 3 else self.cards_per_deal

    def check_players(self, players: int) -> None:
        """RulesError unless the variant allows this many players (R1.1, V3, V6)."""
        if players not in self.players:
            allowed = " or ".join(str(p) for p in self.players)
            raise RulesError(f"{self.name} is played by {allowed} players, not {players}")

    def card_points(self, code: str) -> int:
        """Point-card value of one card (R4.3); entries are a rank letter or a full code."""
        total = 0
        for key, pts in self.point_cards:
            if key == code or key == code[0]:
                total += pts
        return total


CLASSIC = RuleSet(name="classic", description="V1 Classic: R1-R5 as written")
EGYPTIAN = RuleSet(
    name="egyptian",
    target=121,
    point_cards=(),
    jack_basra_points=20,
    description="V2 Egyptian: no point cards, J on a lone J is a 20 basra, target 121",
)
LEBANESE = RuleSet(
    name="lebanese",
    cards_per_deal=6,
    cards_per_deal_3p=4,
    players=(2, 3, 4),
    seven_d_sweeps=False,
    seven_d_basra=SevenDBasra.NONE,
    floor_returns_7d=False,
    jack_basra_points=10,
    basra_rule=BasraRule.SINGLE_CARD,
    most_cards_points=3,
    most_cards_carry=False,
    description="V3 Lebanese: 6 cards a deal, plain 7D, basra only on a single card, most cards 3",
)
YEMENI = RuleSet(
    name="yemeni",
    seven_d_basra=SevenDBasra.YEMENI,
    jack_basra_points=20,
    description="V4 Yemeni: J on a lone J is a 20 basra, three 7D basra cases",
)
JORDANIAN = RuleSet(
    name="jordanian",
    basra_value=BasraValue.DOUBLE_CARD,
    description="V5 Jordanian: a basra is worth twice the card that made it",
)
ERAM = RuleSet(
    name="eram",
    target=121,
    players=(2,),
    seven_d_basra=SevenDBasra.COUNT_LE_10_NO_QK,
    round_cap=None,
    capture_mode=CaptureMode.PLANS,
    max_plans=12,
    description="V6 ERAM: capture plans by id, 7D basra by count, no round cap, target 121",
)

VARIANTS: dict[str, RuleSet] = {
    r.name: r for r in (CLASSIC, EGYPTIAN, LEBANESE, YEMENI, JORDANIAN, ERAM)
}


def get_ruleset(name: str) -> RuleSet:
    """The RuleSet of a variant by name (case-insensitive); RulesError names unknown ones."""
    key = str(name).strip().lower()
    if key not in VARIANTS:
        raise RulesError(f"unknown variant {name!r} (choose from {', '.join(VARIANTS)})")
    return VARIANTS[key]
