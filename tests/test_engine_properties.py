"""Property tests: plans against a brute force, judge against plans, whole rounds, fast path.

RULES.md R2.2, R2.8, R8.1 (plans), R7 (judge), R4 (scores), R8.7 (52 cards), via hypothesis.
"""

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.captures import count_takes, plans
from engine.cards import FULL_DECK, card_index, value
from engine.fastplay import fast_round, fast_rules
from engine.match import Match, all_cards_accounted
from engine.referee import judge
from engine.rules import CLASSIC, ERAM, VARIANTS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NUMBER_HEAVY = [c for c in FULL_DECK if c[0] in "A23456789T"] + ["JS", "QH", "KD"]


def _partitionable(values, v):
    """Brute force: can these values be split into disjoint groups each summing to v?"""
    if not values:
        return True
    first, rest = values[0], values[1:]
    for k in range(len(rest) + 1):
        for combo in itertools.combinations(range(len(rest)), k):
            if first + sum(rest[i] for i in combo) == v:
                left = [rest[i] for i in range(len(rest)) if i not in combo]
                if _partitionable(left, v):
                    return True
    return False


def brute_force(rules, floor, card):
    """Every legal take set by subset enumeration (R2.2, R2.8, R8.1), small floors only."""
    v = value(card)
    matches = [f for f in floor if f[0] == card[0]]
    others = [f for f in floor if f[0] != card[0] and 0 < value(f) < v]
    valid = []
    for k in range(len(others) + 1):
        for sub in itertools.combinations(others, k):
            if _partitionable([value(c) for c in sub], v):
                valid.append(frozenset(sub) | frozenset(matches))
    valid = [s for s in set(valid) if s]
    if rules.capture_mode.value == "plans":
        keep = [s for s in valid if not any(s < t for t in valid)]
    else:
        top = max((len(s) for s in valid), default=0)
        keep = [s for s in valid if len(s) == top]
    ordered = sorted(
        (tuple(sorted(s, key=card_index)) for s in keep),
        key=lambda t: (-len(t), [card_index(c) for c in t]),
    )
    return ordered[: rules.max_plans] if rules.max_plans else ordered


@st.composite
def floor_and_card(draw, max_floor=10):
    cards = draw(
        st.lists(st.sampled_from(NUMBER_HEAVY), min_size=1, max_size=max_floor + 1, unique=True)
    )
    card = draw(st.sampled_from([c for c in cards if c[0] in "A23456789T" and c != "7D"] or ["TD"]))
    floor = [c for c in cards if c != card]
    return floor, card


@SETTINGS
@given(floor_and_card(), st.sampled_from([CLASSIC, ERAM]))
def test_every_plan_is_legal_and_maximal_against_brute_force(fc, rules):
    floor, card = fc
    got = [p.takes for p in plans(rules, floor, card).plans]
    assert got == brute_force(rules, floor, card)
    if rules is CLASSIC:
        assert count_takes(rules, floor, card) == len(got)


@SETTINGS
@given(floor_and_card(), st.sampled_from([CLASSIC, ERAM]), st.data())
def test_judge_agrees_with_plans(fc, rules, data):
    floor, card = fc
    outcome = plans(rules, floor, card)
    legal = {p.takes for p in outcome.plans}
    for p in outcome.plans:
        after = [c for c in floor if c not in p.takes]
        v = judge(rules, floor, card, after)
        assert v.foul is None and v.takes == p.takes and v.basra_points == p.basra_points
    # any other removed subset (with the played card gone) is a wrong capture
    k = data.draw(st.integers(0, len(floor)))
    removed = tuple(sorted(data.draw(st.permutations(floor))[:k], key=card_index))
    after = [c for c in floor if c not in removed]
    v = judge(rules, floor, card, after)
    if removed in legal:
        assert v.foul is None
    else:
        assert v.foul == "wrong_capture"
        assert list(v.legal) == [p.takes for p in outcome.plans][:12]
    # leaving the card on the floor is a missed capture exactly when a plan exists
    v = judge(rules, floor, card, [*floor, card])
    assert v.foul == ("missed_capture" if legal else None)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 2**31), st.data())
def test_whole_round_accounts_for_52_cards_and_scores_add_up(variant, seed, data):
    rules = VARIANTS[variant]
    players = data.draw(st.sampled_from(rules.players))
    rng = random.Random(seed)
    m = Match(rules, players, dealer=rng.randrange(players))
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    m.start_round(deck=deck)
    basras = [0] * m.sides
    while not m.round_over:
        hand = m.hands[m.to_play]
        r = m.play(hand[rng.randrange(len(hand))])
        basras[r.side] += r.basra_points
    s = m.end_round()
    assert all_cards_accounted(m) and sum(s.cards) == 52
    assert s.basra_points == basras
    for i in range(m.sides):
        assert s.score[i] == s.most_cards[i] + s.point_cards[i] + s.basra_points[i]
    assert sum(s.point_cards) == sum(rules.card_points(c) for c in FULL_DECK)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 2**31), st.data())
def test_fast_path_scores_exactly_like_match(variant, seed, data):
    rules = VARIANTS[variant]
    players = data.draw(st.sampled_from(rules.players))
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    choices = [rng.randrange(1 << 30) for _ in range(48)]
    dealer = rng.randrange(players)
    pending = data.draw(st.sampled_from([0, 30]))
    fast = fast_round(fast_rules(rules), players, dealer, deck, choices, pending)
    m = Match(rules, players, dealer)
    m.pending = pending
    m.start_round(deck=[FULL_DECK[i] for i in deck])
    for c in choices:
        hand = m.hands[m.to_play]
        m.play(hand[c % len(hand)])
    assert fast == m.end_round()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(NUMBER_HEAVY), min_size=12, max_size=30, unique=True))
def test_eram_first_12_plans_match_the_exhaustive_order_on_big_floors(cards):
    # R8.1: the first 12 of every maximal plan in order, whichever way they are searched
    import itertools

    from engine.captures import iter_takes

    card = next((c for c in cards if c[0] in "A23456789T" and c != "7D"), None)
    if card is None:
        return
    floor = [c for c in cards if c != card]
    exhaustive = list(itertools.islice(iter_takes(ERAM, floor, card), 12))
    assert [p.takes for p in plans(ERAM, floor, card).plans] == exhaustive
    for takes in exhaustive:
        after = [c for c in floor if c not in takes]
        assert judge(ERAM, floor, card, after).foul is None


def _reference_maximal(v, c, memo):
    """The plain recursion over count vectors, with a quadratic filter (no size bars)."""
    from engine import groups

    if c in memo:
        return memo[c]
    if groups.best(v, c) == 0:
        res = {0}
    elif groups.best(v, c) == groups.total(c):
        res = {c}
    else:
        high = (c.bit_length() - 1) >> 2
        cands = set(_reference_maximal(v, c & ~(15 << (4 * high)), memo))
        for s, _n in groups.shapes(v)[high]:
            if groups.fits(s, c):
                cands.update(s + w for w in _reference_maximal(v, c - s, memo))
        res = {u for u in cands if not any(u != k and groups.fits(u, k) for k in cands)}
    memo[c] = res
    return res


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([5, 6, 7, 8, 9, 10]), st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_maximal_vectors_with_size_bars_match_the_plain_recursion(v, counts):
    # R2.8 ERAM on value counts of any size, up to a full deck's 4 of each value
    from engine import groups

    c = groups.restrict(v, sum(k << (4 * j) for j, k in enumerate(counts)))
    want = _reference_maximal(v, c, {})
    groups.clear_caches()
    assert groups.maximal(v, c) == frozenset(want)
    for need in (1, groups.best(v, c) - 2, groups.best(v, c)):
        got = groups.maximal_at_least(v, c, need)
        assert got == frozenset(u for u in want if groups.total(u) >= max(need, 0))
