"""How index reads become cards: pooling two corners, one code per deck, fragments dropped."""

from __future__ import annotations

import numpy as np
import pytest

from vision.recognizer import (
    IndexHit,
    Recognizer,
    _drop_fragments,
    _plausible_cards,
    _plausible_indices,
    _strong_first,
)


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


def _hit(rec: Recognizer, box, probs: dict[str, float], det_conf: float = 0.9) -> IndexHit:
    p = np.full(len(rec.names), 1e-4, np.float32)
    for code, v in probs.items():
        p[rec.names.index(code)] = v
    p /= p.sum()
    k = int(np.argmax(p))
    return IndexHit(list(box), det_conf, rec.names[k], float(p[k]), p)


def test_two_corners_of_one_card_pool_into_one_read(rec):
    card = ([100.0, 100.0, 200.0, 240.0], 0.9)
    hits = [
        _hit(rec, [105, 105, 120, 135], {"7H": 0.5, "7D": 0.4}),
        _hit(rec, [180, 205, 195, 235], {"7H": 0.8, "7D": 0.1}),
    ]
    cards = rec.assemble(hits, [card], 640, 480)
    assert [d.code for d in cards] == ["7H"]
    assert cards[0].alts[0][0] == "7H" and cards[0].alts[1][0] == "7D"


def test_another_cards_index_inside_a_card_box_is_read_as_that_other_card(rec):
    # two overlapping cards, the lower one's box not detected: its corner index (9S) lies
    # inside the top card's box beside the top card's own index (KD). Both reads are sure and
    # name different cards, so they are two cards (one deck: RULES.md R1.1), not one pooled
    # read, in a photo and in the video reads the table controller takes (since 2026-12-04:
    # a floor pushed together lost a card a box; tests/test_vision_overlap.py)
    still = Recognizer(still=True)
    top = ([100.0, 100.0, 220.0, 270.0], 0.9)
    hits = [
        _hit(rec, [105, 105, 122, 135], {"KD": 0.85, "KH": 0.1}, det_conf=0.52),
        _hit(rec, [190, 150, 207, 180], {"9S": 0.95, "9C": 0.03}, det_conf=0.36),
    ]
    for reads in (still, rec):
        out = {d.code: d for d in reads.assemble(hits, [top], 640, 480)}
        assert set(out) == {"KD", "9S"}
        assert out["KD"].confidence > out["9S"].confidence
    # reads that never split (`pair_split_sure` above 1) pool them and name the card on top
    pooling = Recognizer()
    pooling.pair_split_sure = 1.01
    assert [d.code for d in pooling.assemble(hits, [top], 640, 480)] == ["KD"]


def test_an_unsure_misread_corner_still_pools_with_the_sure_one():
    # the same card's far corner read unsure as another rank: one card, named by the pool
    still = Recognizer(still=True)  # the reading that may split two reads in one box
    card = ([100.0, 100.0, 200.0, 240.0], 0.9)
    hits = [
        _hit(still, [105, 105, 120, 135], {"QD": 0.9, "KD": 0.05}),
        _hit(still, [180, 205, 195, 235], {"KD": 0.45, "QD": 0.3, "JD": 0.2}, det_conf=0.5),
    ]
    assert [d.code for d in still.assemble(hits, [card], 640, 480)] == ["QD"]


def test_a_second_card_read_as_a_taken_code_gets_its_runner_up(rec):
    # one deck has one 7H (RULES.md R1.1): the less sure of two 7H reads on two separate
    # cards is the card its classifier thought next likeliest, 7D
    cards = [([100.0, 100.0, 200.0, 240.0], 0.9), ([300.0, 100.0, 400.0, 240.0], 0.9)]
    hits = [
        _hit(rec, [105, 105, 120, 135], {"7H": 0.9, "7D": 0.05}),
        _hit(rec, [305, 105, 320, 135], {"7H": 0.55, "7D": 0.35, "8H": 0.05}),
    ]
    out = {d.code: d for d in rec.assemble(hits, cards, 640, 480)}
    assert set(out) == {"7H", "7D"}
    assert out["7D"].box[0] == 300.0
    assert out["7D"].confidence < out["7H"].confidence


def test_a_duplicate_without_a_card_of_its_own_is_dropped(rec):
    # the same code twice with no card box around the second: likely the same card's other
    # corner read alone, so it is not turned into some other card
    cards = [([100.0, 100.0, 200.0, 240.0], 0.9)]
    hits = [
        _hit(rec, [105, 105, 120, 135], {"KS": 0.9}),
        _hit(rec, [400, 300, 415, 330], {"KS": 0.6, "KC": 0.3}),
    ]
    assert [d.code for d in rec.assemble(hits, cards, 640, 480)] == ["KS"]


def test_a_rank_found_alone_inside_its_whole_index_is_dropped():
    boxes = np.array(
        [
            [100, 100, 130, 160],  # the whole index: rank above suit
            [102, 100, 128, 128],  # the rank alone, inside it
            [300, 300, 330, 360],  # another card's index
        ],
        np.float32,
    )
    assert list(_drop_fragments(boxes)) == [0, 2]


def test_a_weakly_scored_index_is_kept_only_where_no_plain_one_lies():
    # Plainly scored indices (>= 0.25) as before: the rank alone inside its whole index is
    # dropped. A weak one (0.1-0.25) joins only where it overlaps none of them: a large weak
    # box around a plain index never removes it, and a weak box on a plain one is dropped.
    boxes = np.array(
        [
            [100, 100, 130, 160],  # plain: a whole index
            [102, 100, 128, 128],  # plain: its rank alone
            [90, 90, 200, 250],  # weak: a large box around the plain index
            [104, 104, 131, 158],  # weak: the same index again
            [300, 300, 330, 360],  # weak: an index nothing else found
        ],
        np.float32,
    )
    scores = np.array([0.8, 0.5, 0.2, 0.15, 0.12], np.float32)
    kept, conf = _strong_first(boxes, scores, 0.25)
    assert kept.tolist() == [[100, 100, 130, 160], [300, 300, 330, 360]]
    assert conf.tolist() == pytest.approx([0.8, 0.12])


def test_an_index_larger_than_any_card_seen_is_not_an_index():
    # a webcam frame: one card 160 px long, and an "index" 300 px long (a face read as one)
    cards = np.array([[100, 100, 210, 260]], np.float32)
    idx = np.array([[105, 105, 130, 140], [20, 0, 320, 280], [185, 225, 208, 258]], np.float32)
    assert _plausible_indices(idx, cards, 0.7).tolist() == [0, 2]
    # a close-up with no whole card seen: an index may fill much of the frame
    assert _plausible_indices(idx, np.zeros((0, 4), np.float32), 0.7).tolist() == [0, 1, 2]


def test_an_unsure_index_with_no_card_around_it_is_not_reported(rec):
    # a read as unsure as 0.125 (index 0.5 sure, class 0.25) is a card where the detector
    # also saw the card around it, but alone it is more often a wall or a face in a webcam
    # frame: a lone read must be at least `lone_min_confidence` sure (models/README.md)
    assert rec.min_confidence < 0.125 < rec.lone_min_confidence
    probs = {"QD": 0.25, "QH": 0.2, "KD": 0.2, "KH": 0.2, "QS": 0.15}
    hit = _hit(rec, [105, 105, 120, 135], probs, det_conf=0.5)
    card = ([100.0, 100.0, 200.0, 240.0], 0.9)
    assert [d.code for d in rec.assemble([hit], [card], 640, 480)] == ["QD"]
    assert rec.assemble([hit], [], 640, 480) == []
    sure = _hit(rec, [105, 105, 120, 135], {"QD": 0.6}, det_conf=0.5)
    assert [d.code for d in rec.assemble([sure], [], 640, 480)] == ["QD"]


def test_a_card_read_from_one_index_alone_says_where_that_index_lies(rec):
    # no card box around the QD's one index: its box is only a square guessed around the
    # index (the card may lie on any side of it), and the read says so (`Detection.index`:
    # the one place known to be the card, for the table's tracker to tell a lift by)
    sure = _hit(rec, [105, 105, 120, 135], {"QD": 0.6}, det_conf=0.5)
    (alone,) = rec.assemble([sure], [], 640, 480)
    assert alone.index == [105.0, 105.0, 120.0, 135.0]
    assert alone.box == [37.5, 45.0, 187.5, 195.0]  # 2.5 index lengths (30 px) each way
    card = ([100.0, 100.0, 200.0, 240.0], 0.9)
    (held,) = rec.assemble([sure], [card], 640, 480)
    assert held.index is None and held.box == card[0]
    corner = _hit(rec, [180, 205, 195, 235], {"QD": 0.7}, det_conf=0.5)  # both corners
    (both,) = rec.assemble([sure, corner], [], 640, 480)
    # the box the two corners span, no side under 0.9 of their distance (125 px): the card
    # lies about them at whatever angle (here upright, its sides 100 and 140 px)
    assert both.index is None and both.box == [93.75, 105.0, 206.25, 235.0]
    # a card lying aslant, its two corners level (held-out match 377, a queen of hearts
    # tossed onto the floor, no card box found): not the thin strip they span (136 x 24 px)
    # but a box about them as tall as 0.9 of their distance apart (112 px)
    left = _hit(rec, [860, 469, 881, 487], {"QH": 0.75}, det_conf=0.26)
    right = _hit(rec, [968, 463, 996, 483], {"QH": 0.93}, det_conf=0.28)
    (queen,) = rec.assemble([left, right], [], 1280, 720)
    x1, y1, x2, y2 = queen.box
    assert (x1, x2) == (860.0, 996.0) and y2 - y1 == pytest.approx(100.45, abs=0.01)
    assert y1 < 430 and y2 > 520  # the card spans y 414-542 in the frame


def test_a_single_photo_wants_a_lone_read_surer_than_video_does(rec):
    # a webcam frame's face read as a faint king of spades (0.16-0.22 in the hand-held photos):
    # a single photo (`still`) keeps a read with no card box around it only from 0.2 sure;
    # video reads, which the table controller was tuned on, from 0.15
    still = Recognizer(still=True)
    assert (rec.lone_min_confidence, still.lone_min_confidence) == (0.15, 0.2)
    probs = {"KS": 0.18, "7S": 0.12, **{c: 0.1 for c in ("KC", "JS", "QS", "KH", "JC", "9S", "8S")}}
    faint = _hit(rec, [200, 100, 260, 170], probs, det_conf=1.0)
    (read,) = rec.assemble([faint], [], 640, 480)
    assert read.code == "KS" and 0.15 <= read.confidence < 0.2
    assert still.assemble([faint], [], 640, 480) == []
    card = ([190.0, 90.0, 330.0, 290.0], 0.9)  # inside a detected card it is a card in both
    assert [d.code for d in still.assemble([faint], [card], 640, 480)] == ["KS"]


def test_a_suit_pip_beside_a_corner_is_the_cards_own_print(rec):
    # the held-out design's queen of clubs (bellot) prints a big club beside each corner index;
    # the detector took one for an index and the classifier read it KC 0.72: a king of clubs
    # beside the queen, which the table controller judged a trail. A lone read of the card's
    # suit within 1.5 index lengths of one of its two agreeing corners is that corner's print
    # (a video frame of benchmarks/table.py's classic 4-player match, round 2)
    card = ([779.0, 423.0, 861.0, 536.0], 0.84)
    top = _hit(rec, [777, 429, 789, 458], {"QC": 0.91}, det_conf=0.55)
    bottom = _hit(rec, [849, 500, 863, 529], {"QC": 0.93}, det_conf=0.45)
    pip = _hit(rec, [821, 519, 838, 532], {"KC": 0.72, "QC": 0.1}, det_conf=0.28)
    assert [d.code for d in rec.assemble([top, bottom, pip], [card], 1280, 720)] == ["QC"]
    # the same with the card's box cut short above the club (the table controller's view of
    # the floor alone: the club read alone, the phantom king judged a trail before)
    short = ([778.0, 424.0, 858.0, 521.0], 0.8)
    assert [d.code for d in rec.assemble([top, bottom, pip], [short], 1280, 720)] == ["QC"]
    # another suit there is another card's corner under this one's box, as before
    other = _hit(rec, [821, 519, 838, 532], {"KH": 0.72, "QH": 0.1}, det_conf=0.28)
    out = rec.assemble([top, bottom, other], [card], 1280, 720)
    assert sorted(d.code for d in out) == ["KH", "QC"]
    # and so is a club farther from both corners (1.7 index lengths and more)
    far = _hit(rec, [814, 470, 826, 490], {"KC": 0.72, "QC": 0.1}, det_conf=0.28)
    assert sorted(d.code for d in rec.assemble([top, bottom, far], [card], 1280, 720)) == [
        "KC",
        "QC",
    ]
    # and so is a club read surely (0.97): an index, not a print (a jack of the suit lying
    # by the card's corner in a heap read 0.99 was dropped as one before)
    sure = _hit(rec, [821, 519, 838, 532], {"JC": 0.97, "QC": 0.01}, det_conf=0.28)
    assert sorted(d.code for d in rec.assemble([top, bottom, sure], [card], 1280, 720)) == [
        "JC",
        "QC",
    ]


def test_two_lone_corners_of_one_card_pool_into_one_read(rec):
    # a phone close-up where the detector saw both corner indices but no card box: the two
    # corners lie about 3.5 index lengths apart and both say "an ace", one of clubs, one of
    # spades. They are one card (one read, its suit from the pool), not two aces
    hits = [
        _hit(rec, [100, 100, 130, 150], {"AC": 0.45, "AS": 0.4, "AH": 0.1}, det_conf=0.7),
        _hit(rec, [230, 260, 260, 310], {"AS": 0.35, "AC": 0.3, "4C": 0.2}, det_conf=0.6),
    ]
    out = rec.assemble(hits, [], 640, 480)
    assert [d.code for d in out] == ["AC"]
    # the same two reads far apart (two cards' indices across the frame) stay two reads
    hits[1].box = [530, 400, 560, 450]
    assert len(rec.assemble(hits, [], 640, 480)) == 2


def test_a_corner_lying_on_the_card_beside_joins_its_own_card(rec):
    # Video reads. The 6S lies over the QC's left edge (held-out match 190): the 6S's bottom-right corner is
    # inside both card boxes, and the QC's (smaller) box alone would take it, reading the 6S
    # twice (a duplicate the table tracker named 6D and 8S). It lies where the 6S's top-left
    # corner mirrored about the 6S box's centre lies, so it joins the 6S: one 6S, one QC.
    six = ([314.0, 424.0, 411.0, 549.0], 0.84)
    queen = ([397.0, 426.0, 492.0, 546.0], 0.84)
    hits = [
        _hit(rec, [316, 436, 331, 462], {"6S": 0.9, "TS": 0.05}, det_conf=0.59),
        _hit(rec, [395, 507, 410, 534], {"6S": 0.8, "TS": 0.1}, det_conf=0.62),
        _hit(rec, [403, 434, 416, 459], {"QC": 0.98}, det_conf=0.47),
        _hit(rec, [480, 509, 495, 538], {"QC": 0.96}, det_conf=0.57),
    ]
    groups = rec._group(hits, [six, queen])
    assert sorted(([m.code for m in members], box) for members, box in groups) == [
        (["6S", "6S"], six[0]),
        (["QC", "QC"], queen[0]),
    ]
    out = rec.assemble(hits, [six, queen], 1280, 720)
    assert sorted((d.code, d.box) for d in out) == [("6S", six[0]), ("QC", queen[0])]
    # still reads keep the smallest box (measured: models/HISTORY.md, twenty-second session)
    assert Recognizer(still=True).corner_mates is False and rec.corner_mates is True
    # a lone corner in two boxes, its mate nowhere: the smallest box holds it, as before
    lone = [hits[1], hits[2], hits[3]]
    (held,) = [box for members, box in rec._group(lone, [six, queen]) if members[0].code == "6S"]
    assert held == (queen[0] if _area(queen[0]) < _area(six[0]) else six[0])


def _area(box) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def test_a_corner_just_outside_a_card_box_cut_short_joins_its_card(rec):
    # A queen of clubs tossed aslant onto the floor (held-out match 377, `benchmarks/table.py
    # --cards any`): the detector's box for it stops at the lower-left corner index, so that
    # corner lay alone. Read QC on its own, it outscored the box's other corner and took the
    # box's place with a square guessed around it; the box's own read (a print beside the
    # corner read KC there a moment before) then counted as a fourth card of the deal. A lone
    # index just outside a box holding one corner, read alike and as far from that corner as a
    # card's two corners lie, is the card's other corner: one QC, its box grown to hold both.
    card = ([698.0, 437.0, 789.0, 528.0], 0.59)
    upper = _hit(rec, [746, 432, 771, 449], {"QC": 0.89, "TC": 0.05}, det_conf=0.35)
    lower = _hit(rec, [699, 528, 720, 546], {"QC": 0.75, "QS": 0.1}, det_conf=0.45)
    (queen,) = rec.assemble([upper, lower], [card], 1280, 720)
    assert (queen.code, queen.box, queen.index) == ("QC", [698.0, 437.0, 789.0, 546.0], None)
    # the two corners agree, so the read is surer than either corner's alone
    assert queen.confidence > 0.75 * 0.45
    # a lone index naming another card there is that card, beside this one, as before
    other = _hit(rec, [699, 528, 720, 546], {"9S": 0.9, "9C": 0.05}, det_conf=0.45)
    assert sorted(d.code for d in rec.assemble([upper, other], [card], 1280, 720)) == ["9S", "QC"]
    # and a QC read farther off (two index lengths beyond the box) is no corner of this card
    far = _hit(rec, [690, 570, 711, 588], {"QC": 0.75, "QS": 0.1}, det_conf=0.45)
    groups = rec._group([upper, far], [card])
    assert sorted(len(members) for members, _box in groups) == [1, 1]


def test_an_unsure_corner_just_outside_a_card_box_joins_its_card_though_read_as_another(rec):
    # Held-out three-player match 532 (`benchmarks/table.py --cards any --setup lebanese:3`):
    # one card's far corner lay just outside its box, read unsure as another code, and was
    # kept as a card of its own. A JC dealt over a 5H's upper corner: there, outside both
    # cards' boxes, the index read JH 0.39 (the jack's J, the five's heart), so the floor
    # was dealt five cards (RULES.md R1.2: four), the dealer's return of the JC (R1.3) read as
    # a misdeal and a dealt card as a play. Read less surely than a card's own corner, as a
    # code it could be, and lying where that corner mirrored about the grown box lies, it is
    # that card's corner: the floor holds the 5H and the JC, no JH.
    five = ([496.0, 218.0, 576.0, 344.0], 0.87)
    jack = ([382.0, 243.0, 502.0, 323.0], 0.81)
    hits = [
        _hit(rec, [562, 302, 575, 330], {"5H": 0.74, "JH": 0.1, "6H": 0.02}, det_conf=0.63),
        _hit(rec, [476, 228, 502, 244], {"JH": 0.39, "JD": 0.21, "JC": 0.08}, det_conf=0.43),
        _hit(rec, [387, 310, 416, 325], {"JC": 0.91, "JS": 0.02}, det_conf=0.3),
    ]
    assert sorted(d.code for d in rec.assemble(hits, [five, jack], 1280, 720)) == ["5H", "JC"]
    # A QH tossed aslant, its box cut short above (match 532 again, a closer look): its upper
    # corner, one index length above the box, read QD 0.39, QH 0.30 (a joint chance 0.24 with
    # the lower corner's QH 0.73, above what two different cards reach) and not where the cut
    # box mirrors the lower corner: still the queen's corner, no QD beside her.
    queen = ([94.0, 156.0, 176.0, 250.0], 0.45)
    lower = _hit(rec, [153, 235, 176, 261], {"QH": 0.73, "TH": 0.21}, det_conf=0.38)
    upper = _hit(rec, [134, 127, 148, 147], {"QD": 0.39, "QH": 0.3, "TH": 0.09}, det_conf=0.47)
    (card,) = rec.assemble([lower, upper], [queen], 640, 480)
    assert (card.code, card.box) == ("QH", [94.0, 127.0, 176.0, 250.0])
    # a corner read there unsure as a card the queen's corner is unlikely to be is another card
    other = _hit(rec, [134, 127, 148, 147], {"5D": 0.45, "6D": 0.3, "QH": 0.02}, det_conf=0.47)
    assert sorted(d.code for d in rec.assemble([lower, other], [queen], 640, 480)) == ["5D", "QH"]
    # and so is one read surer than the queen's own corner
    sure = _hit(rec, [134, 127, 148, 147], {"QD": 0.8, "QH": 0.15}, det_conf=0.47)
    assert sorted(d.code for d in rec.assemble([lower, sure], [queen], 640, 480)) == ["QD", "QH"]


def test_a_corner_lying_inside_the_card_beneath_joins_its_own_card_boxed_short(rec):
    # Video reads. A QS tossed half over a 6D (fresh held-out match 462, `benchmarks/table.py
    # --cards any`): the detector boxed the QS short of the part lying over the 6D, so the
    # QS's lower-left index lay inside the 6D's box, not the QS's. Kept with the 6D's box, it
    # was read as a second card at the 6D's very place (the table took it for the 6D read
    # twice) while the QS's own box was read KC. Not the 6D's corner, just outside the QS's
    # box and as far from the QS's own index as a card's two corners lie, it is the QS's
    # corner: the QS is read where it lies, its box grown to hold it; the 6D's box holds the 6D.
    six = ([192.0, 350.0, 291.0, 474.0], 0.84)
    queen = ([304.0, 345.0, 407.0, 457.0], 0.71)
    hits = [
        _hit(rec, [253, 442, 270, 470], {"6D": 0.85, "TD": 0.1}, det_conf=0.71),
        _hit(rec, [228, 343, 244, 370], {"6D": 0.8, "TD": 0.1}, det_conf=0.69),
        _hit(rec, [393, 379, 410, 399], {"QS": 0.75, "TS": 0.15}, det_conf=0.42),
        _hit(rec, [276, 395, 294, 419], {"QS": 0.7, "TS": 0.2}, det_conf=0.42),
        _hit(rec, [308, 409, 326, 429], {"KS": 0.5, "QS": 0.3}, det_conf=0.36),
    ]
    groups = rec._group(hits, [six, queen])
    assert sorted(([m.code for m in members], box) for members, box in groups) == [
        (["6D", "6D"], six[0]),
        (["QS", "KS", "QS"], [276.0, 345.0, 407.0, 457.0]),
    ]
    out = {d.code: d.box for d in rec.assemble(hits, [six, queen], 870, 560)}
    assert out == {"6D": six[0], "QS": [276.0, 345.0, 407.0, 457.0]}
    # a QS read there with no queen's box beside it (nor one whose own corners read QS) is
    # another card's corner inside the 6D's box, kept with that box as before
    alone = [hits[0], hits[1], hits[3]]
    assert sorted(
        ([m.code for m in members], box) for members, box in rec._group(alone, [six])
    ) == [
        (["6D", "6D"], six[0]),
        (["QS"], six[0]),
    ]
    other = _hit(rec, [393, 379, 410, 399], {"9H": 0.9, "9D": 0.05}, det_conf=0.42)
    held = rec._group([hits[0], hits[1], other, hits[3]], [six, queen])
    assert (["QS"], six[0]) in [([m.code for m in members], box) for members, box in held]


def test_a_card_whose_body_is_not_found_is_read_from_its_two_corners(rec):
    # Video reads. An AC laid between a 7S and an 8C (fresh held-out match 529,
    # `benchmarks/table.py --cards any --setup lebanese:3`), a corner over each: the detector
    # found no box for the AC, and its two corners, both read AC 0.95, lay inside the 7S's box
    # and the 8C's. Each was kept with the box around it, so the AC was read at the 8C's very
    # place (the table took it for the 8C read twice) and counted played only after the next
    # seat's capture. Two sure reads of one code, as far apart as a card's two corners, in two
    # different cards' boxes with no box holding both, are that card: read at the box they
    # span, the 7S and the 8C at theirs.
    seven = ([187.0, 101.0, 306.0, 215.0], 0.87)
    eight = ([381.0, 101.0, 503.0, 219.0], 0.75)
    hits = [
        _hit(rec, [376, 183, 393, 209], {"AC": 0.95, "AS": 0.03}, det_conf=0.59),
        _hit(rec, [213, 197, 243, 215], {"7S": 0.92, "7C": 0.05}, det_conf=0.52),
        _hit(rec, [441, 101, 471, 124], {"8C": 0.95, "6C": 0.03}, det_conf=0.45),
        _hit(rec, [264, 100, 292, 114], {"7S": 0.96, "7C": 0.02}, det_conf=0.41),
        _hit(rec, [408, 191, 432, 217], {"8C": 0.3, "6C": 0.25, "JS": 0.2}, det_conf=0.41),
        _hit(rec, [297, 112, 308, 137], {"AC": 0.95, "AS": 0.03}, det_conf=0.25),
    ]
    out = {d.code: d.box for d in rec.assemble(hits, [seven, eight], 870, 560)}
    assert set(out) == {"7S", "8C", "AC"}
    assert out["7S"] == seven[0] and out["8C"] == eight[0]
    ace = out["AC"]  # spanning both corners: x 297-393, y 112-209
    assert ace[0] <= 297 and ace[2] >= 393 and ace[1] <= 112 and ace[3] >= 209
    assert ace[2] - ace[0] < 110 and ace[3] - ace[1] < 110  # a card's size, not the two boxes'
    # one corner read unsurely (a faint AC 0.3 beside the 7S's): left with the box around it
    faint = _hit(rec, [297, 112, 308, 137], {"AC": 0.3, "7S": 0.25}, det_conf=0.25)
    groups = rec._group([*hits[:5], faint], [seven, eight])
    assert all(box is not None for _members, box in groups)


def test_an_index_boxed_as_a_card_is_read_as_a_lone_index(rec, monkeypatch):
    # Held-out match 526 at 0.3 of the light (floor crop 870 x 560): the detector boxed the
    # QS's index [459, 260, 479, 285] as a card [459, 254, 477, 286]. The tracker then held
    # the QS at that 18 x 32 px box and named the card seen whole there later TS (one deck).
    cards = np.array([[288, 220, 403, 340], [459, 254, 477, 286]], np.float32)
    idx = np.array([[285, 246, 309, 275], [459, 260, 479, 285]], np.float32)
    assert _plausible_cards(cards, idx, 1.5, 870, 560).tolist() == [0]
    # a card box 1.5 times its index's length or longer stands (a card 24 x 38 px holds
    # an index 25 px long: 1.52)
    small = np.array([[459, 250, 483, 288]], np.float32)
    assert _plausible_cards(small, idx[1:], 1.5, 870, 560).tolist() == [0]
    # ... and so does a box touching the image's edge: a card mostly outside it (a phone's
    # close-up, IMG_20220921_194141: a card box 204 x 189 px round an index 166 px long)
    edge = np.array([[436, 451, 640, 640]], np.float32)
    big = np.array([[460, 470, 600, 636]], np.float32)
    assert _plausible_cards(edge, big, 1.5, 640, 640).tolist() == [0]
    assert _plausible_cards(edge, big, 1.5, 700, 700).tolist() == []
    # no index: nothing to judge by
    assert _plausible_cards(cards, np.zeros((0, 4), np.float32), 1.5, 870, 560).tolist() == [0, 1]

    # what `find` gives the reads: the card box gone, the index kept (read as a lone index,
    # its card's box guessed around it)
    monkeypatch.setattr(
        rec,
        "_detect_scaled",
        lambda frame: (idx, np.array([0.47, 0.31]), cards, np.array([0.67, 0.36])),
    )
    found_idx, _ic, found_cards, found_conf = rec.find(np.zeros((560, 870, 3), np.uint8))
    assert found_cards.tolist() == [[288, 220, 403, 340]] and found_conf.tolist() == [0.67]
    assert found_idx.tolist() == idx.tolist()
