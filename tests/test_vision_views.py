"""The still reads' detector passes over the frame seen otherwise (`Recognizer._other_views`:
mirrored left to right, turned half round): what they find that the plain passes miss, and
that their boxes come back where the cards lie.

The webcam frame is from the ammememe hand-held set (CC BY 4.0; tests/data/vision/README.md).
"""

from __future__ import annotations

import copy
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.recognizer import Recognizer, _iou

DATA = Path(__file__).parent / "data" / "vision"
KING = DATA / "real" / "Ks-74c77f7e-3992-11ed-8581-ec2e98cc7ff6_jpg.jpg"  # the king of spades
RENDERED = DATA / "rendered_bellot_0.jpg"


@pytest.fixture(scope="module")
def still() -> Recognizer:
    return Recognizer(still=True)


def _one_view(rec: Recognizer, frame, found, size, region, turned: bool):
    """`rec`'s other views with only the mirrored one (or only the turned one) read."""
    one = copy.copy(rec)
    one.mirror_look, one.turn_look = (0.0, 1.0) if turned else (0.7, 0.0)
    return one._other_views(frame, found, size, region)


NOTHING = [np.zeros((0, 4), np.float32), np.zeros(0, np.float32)] * 2


def test_a_card_only_the_other_views_find_is_read(still, monkeypatch):
    img = cv2.imread(str(KING))
    seen = []
    real = Recognizer._run_detector

    def spy(self, frame, det_size, region=None, weak=False, **kw):
        seen.append((frame, det_size))
        return real(self, frame, det_size, region, weak, **kw)

    monkeypatch.setattr(Recognizer, "_run_detector", spy)
    assert [d.code for d in still.recognize(img)] == ["KS"]
    read = seen[0][0]  # the frame as the models read it (a speckled one is median-filtered)
    fitted = seen[1][1]
    mirrored = [size for frame, size in seen if np.array_equal(frame, read[:, ::-1])]
    turned = [size for frame, size in seen if np.array_equal(frame, read[::-1, ::-1])]
    assert mirrored == [max(Recognizer.COARSE_SIZE, round(fitted * 0.7 / 32) * 32)]
    assert turned == [fitted]
    plain = Recognizer(still=True)
    plain.mirror_look = plain.turn_look = 0.0
    plain.last_look_sure = 1.01  # (no last look either: test_vision_last_look)
    assert plain.recognize(img) == []
    for mirror, turn in ((0.7, 0.0), (0.0, 1.0)):  # either view alone finds it
        plain.mirror_look, plain.turn_look = mirror, turn
        assert [d.code for d in plain.recognize(img)] == ["KS"]


@pytest.mark.parametrize("turned", [False, True], ids=["mirrored", "turned"])
def test_the_other_views_boxes_come_back_onto_the_cards(still, turned):
    """Brought back into the frame, a view's card boxes and its plainly scored index boxes lie
    where the same pass over the frame itself puts them (a box left mirrored, or shifted by the
    region's cut, would not); the few others, and its weak index boxes, are where two views
    differ."""
    frame = cv2.imread(str(RENDERED))
    coarse = still._run_detector(frame, still.COARSE_SIZE)
    size, _ = still._pick_size(frame, coarse)
    region = still._region(frame, coarse)
    at = size if turned else max(still.COARSE_SIZE, round(size * 0.7 / 32) * 32)
    direct = still._run_detector(frame, at, region, weak=True)
    back = _one_view(still, frame, NOTHING, size, region, turned)
    cards = [max(_iou(b, d) for d in direct[2]) for b in back[2]]
    assert len(cards) >= 4 and min(cards) > 0.8  # of the five cards lying in the frame
    plain = back[0][back[1] >= still.index_conf]
    indices = [max(_iou(b, d) for d in direct[0]) for b in plain]
    assert len(indices) >= 8 and np.mean(np.array(indices) > 0.2) >= 0.75
    assert np.median(indices) > 0.5


def test_video_reads_see_the_frame_only_as_it_is():
    video, photo = Recognizer(), Recognizer(still=True)
    assert (video.mirror_look, video.turn_look) == (0.0, 0.0)
    assert (photo.mirror_look, photo.turn_look) == (0.7, 1.0)


@pytest.mark.parametrize("turned", [False, True], ids=["mirrored", "turned"])
def test_another_view_adds_index_boxes_only_where_none_was_found(still, turned):
    """Found index boxes stay as they are; a box of another view joins them only where none of
    them overlaps it by IoU 0.3 or more (the same index put slightly elsewhere would be read
    twice)."""
    frame = cv2.imread(str(RENDERED))
    size = 1280
    other = _one_view(still, frame, NOTHING, size, None, turned)[0]
    found = still._run_detector(frame, size if turned else 896, None, weak=True)
    joined = _one_view(still, frame, found, size, None, turned)
    assert np.array_equal(joined[0][: len(found[0])], found[0])
    added = joined[0][len(found[0]) :]
    new = [m for m in other if max(_iou(m, f) for f in found[0]) < 0.3]
    assert 0 < len(added) == len(new) < len(other)
