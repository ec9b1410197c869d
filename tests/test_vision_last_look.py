"""The still reads' last look (`vision.last_look`): a faint index away from every card read,
found and read alike at most of its sizes, names a card; one seen at few sizes, read unsurely
or read differently does not, nor one inside a card already read.

The function is pure: the detector and classifier are given as functions here, so each case
states exactly what each size saw. The photos at the end are read by the shipped models.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.last_look import SIZES, last_look
from vision.recognizer import Recognizer

NAMES = ["7D", "1D", "KS", "QH"]
HERE = [100.0, 100.0, 130.0, 140.0]  # one index box, frame pixels
THERE = [600.0, 300.0, 630.0, 340.0]  # another, far from it


def _detect(seen: dict[int, list[list[float]]]):
    def detect(size: int, floor: float):
        boxes = seen.get(size, [])
        return np.array(boxes, np.float64).reshape(-1, 4), np.full(len(boxes), 0.05)

    return detect


def _read(by_box: dict[tuple, dict[str, float]], calls: list[int] | None = None):
    """A classifier reading each box (rounded) as given: {code: probability}."""

    def read(boxes: np.ndarray) -> np.ndarray:
        if calls is not None:
            calls.append(len(boxes))
        out = np.zeros((len(boxes), len(NAMES)))
        for i, b in enumerate(boxes):
            for code, p in by_box[tuple(round(float(v)) for v in b)].items():
                out[i, NAMES.index(code)] = p
        return out

    return read


def _shifted(box: list[float], dx: float) -> list[float]:
    return [box[0] + dx, box[1], box[2] + dx, box[3]]


def _key(box, dx: float = 0.0) -> tuple:
    return tuple(round(v) for v in _shifted(box, dx))


def _at(sizes, box=HERE, dx: float = 0.0) -> dict[int, list[list[float]]]:
    """The box found at each of `sizes`, `dx` px further right at each (the detector's grid
    falls differently at each size)."""
    return {s: [_shifted(box, dx * i)] for i, s in enumerate(sizes)}


def test_an_index_read_alike_at_five_of_seven_sizes_names_the_card():
    seen = _at(SIZES[:5], dx=1.0)
    reads = {_key(HERE, i): {"7D": 0.8, "1D": 0.2} for i in range(5)}
    (card,) = last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7)
    assert card.code == "7D"
    assert card.conf == pytest.approx(0.8 * 5 / 7)  # mean read x the share of sizes agreeing
    assert card.alts[0] == ("7D", pytest.approx(0.8))


def test_an_index_seen_at_four_sizes_is_not_enough():
    seen = _at(SIZES[:4], dx=1.0)
    calls: list[int] = []
    reads = {_key(HERE, i): {"7D": 0.95} for i in range(4)}
    assert last_look(_detect(seen), _read(reads, calls), NAMES, agree=5, sure=0.7) == []
    assert calls == []  # a place too few sizes saw is not even read


def test_an_unsure_read_on_average_names_nothing():
    seen = _at(SIZES, dx=1.0)
    reads = {_key(HERE, i): {"KS": 0.66, "QH": 0.34} for i in range(7)}  # a joker's figure
    assert last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7) == []


def test_reads_that_disagree_across_sizes_name_nothing():
    # four sizes read KS and three read QH, each surely: no code has five sizes
    seen = _at(SIZES, dx=1.0)
    reads = {_key(HERE, i): ({"KS": 0.9} if i < 4 else {"QH": 0.9}) for i in range(7)}
    assert last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7) == []


def test_the_code_most_sizes_agree_on_is_named():
    seen = _at(SIZES, dx=1.0)
    reads = {_key(HERE, i): ({"7D": 0.75} if i < 5 else {"1D": 0.99}) for i in range(7)}
    (card,) = last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7)
    assert (card.code, card.conf) == ("7D", pytest.approx(0.75 * 5 / 7))


def test_two_places_are_two_cards_and_one_code_is_named_once():
    seen = {s: [HERE, THERE] for s in SIZES}
    reads = {_key(HERE): {"KS": 0.9}, _key(THERE): {"QH": 0.8}}
    cards = last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7)
    assert [c.code for c in cards] == ["KS", "QH"]
    # one deck: two places read as the same code name it once, at the surer place
    reads = {_key(HERE): {"KS": 0.75}, _key(THERE): {"KS": 0.9}}
    (card,) = last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7)
    assert card.code == "KS" and card.box == THERE


def test_a_place_inside_a_card_already_read_is_not_read_again():
    seen = {s: [HERE, THERE] for s in SIZES}
    reads = {_key(HERE): {"KS": 0.9}, _key(THERE): {"QH": 0.8}}
    calls: list[int] = []

    def read_already(box: list[float]) -> bool:
        return box[0] < 500  # a card read already covers HERE

    cards = last_look(
        _detect(seen), _read(reads, calls), NAMES, agree=5, sure=0.7, skip=read_already
    )
    assert [c.code for c in cards] == ["QH"]
    assert calls == [7]  # only THERE's seven boxes were read


def test_a_box_clipped_to_nothing_at_the_frame_edge_is_a_place_of_its_own():
    flat = [0.0, 50.0, 0.0, 90.0]  # no area: overlaps nothing, not even itself
    seen = {s: [HERE, flat] for s in SIZES}
    reads = {_key(HERE): {"KS": 0.9}, _key(flat): {"QH": 0.9}}
    (card,) = last_look(_detect(seen), _read(reads), NAMES, agree=5, sure=0.7)
    assert card.code == "KS"  # seven flat places of one box each: none seen at five sizes


def test_nothing_found_names_nothing():
    assert last_look(_detect({}), _read({}), NAMES, agree=5, sure=0.7) == []


# -- the shipped models -------------------------------------------------------------------------

VISION = Path(__file__).parent / "data" / "vision"
HELD_UP = VISION / "real" / "Ks-7863c0ca-3992-11ed-a91f-ec2e98cc7ff6_jpg.jpg"


@pytest.fixture(scope="module")
def still() -> Recognizer:
    return Recognizer(still=True)


def test_a_card_held_up_that_every_other_pass_misses_is_read(still):
    # the king of spades held up to a webcam: no pass of the usual reads names it; the last
    # look finds its index at every one of its sizes and reads it KS at all of them
    img = cv2.imread(str(HELD_UP))
    assert [d.code for d in still.recognize(img)] == ["KS"]
    off = Recognizer(still=True)
    off.last_look_sure = 1.01
    assert off.recognize(img) == []


def test_cards_of_a_deck_the_detector_barely_sees_are_added_to_those_read(still):
    # a novelty deck (black and gold): the usual reads name two cards (JD and TC, the JC and
    # AS misread); the two of diamonds and the two of hearts, found only faintly, are added
    img = cv2.imread(str(VISION / "real" / "seq_IMG_7815_JPG.jpg"))
    off = Recognizer(still=True)
    off.last_look_sure = 1.01
    before = {d.code for d in off.recognize(img)}
    assert not before & {"2D", "2H"}
    after = {d.code for d in still.recognize(img)}
    assert after == before | {"2D", "2H"}


@pytest.mark.parametrize(
    "name",
    [
        "empty_table.jpg",  # "an empty table must give an empty list"
        # a joker held up: its figure is read QH at five sizes, but only 0.66 sure on average
        "real/Joker-12bf68b6-3993-11ed-99d4-ec2e98cc7ff6_jpg.jpg",
        # a card's back held up: its pattern read 6C 0.88 at one size, never alike at five
        "real/backcard-0311bc91-3993-11ed-9600-ec2e98cc7ff6_jpg.jpg",
    ],
)
def test_no_card_face_up_stays_empty(still, name):
    # the last look runs on each (nothing else is read) and names nothing
    assert still.recognize(cv2.imread(str(VISION / name))) == []


def test_video_reads_never_take_the_last_look():
    assert Recognizer().last_look_sure > 1.0
    meta = json.loads((Path(__file__).parents[1] / "models" / "recognizer.json").read_text())
    assert meta["still"]["last_look_sure"] == Recognizer(still=True).last_look_sure <= 1.0
