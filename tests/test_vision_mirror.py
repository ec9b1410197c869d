"""The still reads' detector pass over the frame mirrored left to right (`Recognizer._mirror_look`):
what it finds that the plain passes miss, and that its boxes come back where the cards lie.

The webcam frame is from the ammememe hand-held set (CC BY 4.0; tests/data/vision/README.md).
"""

from __future__ import annotations

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


def test_a_card_only_the_mirrored_pass_finds_is_read(still, monkeypatch):
    img = cv2.imread(str(KING))
    seen = []
    real = Recognizer._run_detector

    def spy(self, frame, det_size, region=None, weak=False):
        seen.append((frame, det_size))
        return real(self, frame, det_size, region, weak)

    monkeypatch.setattr(Recognizer, "_run_detector", spy)
    assert [d.code for d in still.recognize(img)] == ["KS"]
    read = seen[0][0]  # the frame as the models read it (this one median-filtered first)
    mirrored = [size for frame, size in seen if np.array_equal(frame, read[:, ::-1])]
    fitted = seen[1][1]
    assert mirrored == [max(Recognizer.COARSE_SIZE, round(fitted * 0.7 / 32) * 32)]
    plain = Recognizer(still=True)
    plain.mirror_look = False
    assert plain.recognize(img) == []


def test_the_mirrored_boxes_come_back_onto_the_cards(still):
    """Mirrored back, the pass's card boxes and its plainly scored index boxes lie where the same
    pass over the frame itself puts them (a box left mirrored, or shifted by the region's cut,
    would not); its weak index boxes are where the two views differ, and may lie elsewhere."""
    frame = cv2.imread(str(RENDERED))
    coarse = still._run_detector(frame, still.COARSE_SIZE)
    size, _ = still._pick_size(frame, coarse)
    region = still._region(frame, coarse)
    small = max(still.COARSE_SIZE, round(size * still.small_look / 32) * 32)
    direct = still._run_detector(frame, small, region, weak=True)
    nothing = [np.zeros((0, 4), np.float32), np.zeros(0, np.float32)] * 2
    back = still._mirror_look(frame, nothing, size, region)
    cards = [max(_iou(b, d) for d in direct[2]) for b in back[2]]
    assert len(cards) == 5 and min(cards) > 0.8  # the five cards of the frame
    plain = back[0][back[1] >= still.index_conf]
    indices = [max(_iou(b, d) for d in direct[0]) for b in plain]
    assert len(indices) >= 8 and min(indices) > 0.3 and np.median(indices) > 0.6


def test_video_reads_do_not_mirror():
    assert Recognizer().mirror_look is False and Recognizer(still=True).mirror_look is True


def test_the_mirrored_pass_adds_index_boxes_only_where_none_was_found(still):
    """Found index boxes stay as they are; a mirrored box joins them only where none of them
    overlaps it by IoU 0.3 or more (the same index put slightly elsewhere would be read twice)."""
    frame = cv2.imread(str(RENDERED))
    size = 1280
    nothing = [np.zeros((0, 4), np.float32), np.zeros(0, np.float32)] * 2
    mirrored = still._mirror_look(frame, nothing, size, None)[0]
    found = still._run_detector(frame, 896, None, weak=True)
    joined = still._mirror_look(frame, found, size, None)
    assert np.array_equal(joined[0][: len(found[0])], found[0])
    added = joined[0][len(found[0]) :]
    new = [m for m in mirrored if max(_iou(m, f) for f in found[0]) < 0.3]
    assert 0 < len(added) == len(new) < len(mirrored)
