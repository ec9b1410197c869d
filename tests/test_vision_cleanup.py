"""A photo's pixels made readable before the models read them (`vision.cleanup`), and the
still reads' second, smaller detector pass.

The two webcam frames are from the ammememe hand-held set (CC BY 4.0; tests/data/vision/README.md):
one carries the salt-and-pepper noise its dataset added to half its photos, the other is blurred
so that its index is found only at the smaller scale. A dark frame is the same rendered table
with its light scaled down, as an under-exposed camera in a dim café gives it.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cleanup import despeckle, expose, impulse_share, stretch_dim, white_level
from vision.recognizer import Recognizer, _union

DATA = Path(__file__).parent / "data" / "vision"
SPECKLED = DATA / "real" / "Ad-3abf0b45-3991-11ed-9c12-ec2e98cc7ff6_jpg.jpg"  # the ace of diamonds
BLURRED = DATA / "real" / "Ac-cf549b97-3991-11ed-958f-ec2e98cc7ff6_jpg.jpg"  # the ace of clubs
RENDERED = DATA / "rendered_bellot_0.jpg"


@pytest.fixture(scope="module")
def still() -> Recognizer:
    return Recognizer(still=True)


def _speckle(img: np.ndarray, share: float, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = img.copy()
    hit = rng.random(img.shape[:2]) < share
    out[hit] = np.where(rng.random((int(hit.sum()), 1)) < 0.5, 0, 255)
    return out


def test_specks_are_counted_on_a_speckled_frame_and_not_on_a_clean_one():
    clean = cv2.imread(str(RENDERED))
    assert impulse_share(clean) < 2e-5  # a rendered table: no isolated specks
    # 0.5 % of pixels set black or white: most land on smooth ground and are counted
    assert 0.002 < impulse_share(_speckle(clean, 0.005)) <= 0.005
    # the webcam frame its dataset noised: well above the still reads' threshold (2e-5)
    assert impulse_share(cv2.imread(str(SPECKLED))) > 5e-4


def test_despeckle_filters_a_speckled_frame_and_leaves_a_clean_one_alone():
    clean = cv2.imread(str(RENDERED))
    assert despeckle(clean, 2e-5) is clean
    noisy = _speckle(clean, 0.005)
    fixed = despeckle(noisy, 2e-5)
    assert impulse_share(fixed) < 2e-5
    # where the specks fell, the filtered frame is back near the clean one
    hit = np.any(noisy != clean, axis=2)
    err = lambda a: float(np.abs(a[hit].astype(int) - clean[hit].astype(int)).mean())  # noqa: E731
    assert err(noisy) > 80 and err(fixed) < err(noisy) / 5
    assert despeckle(noisy, 0.0) is noisy  # 0: off (video reads)


def test_a_dim_crop_is_stretched_and_a_crisp_one_is_not():
    dim = np.full((48, 48, 3), 120, np.uint8)
    dim[10:38, 20:28] = 70  # grey ink on grey paper: a span of 50 grey levels
    out = stretch_dim(dim, 160)
    assert out[0, 0, 0] >= 250 and out[20, 24, 0] <= 5
    crisp = np.full((48, 48, 3), 240, np.uint8)
    crisp[10:38, 20:28] = 20
    assert stretch_dim(crisp, 160) is crisp
    assert stretch_dim(dim, 0) is dim  # 0: off (video reads)


def test_a_speckled_webcam_frame_is_read_after_filtering(still):
    img = cv2.imread(str(SPECKLED))
    assert still.prepare(img) is not img
    assert [d.code for d in still.recognize(img)] == ["AD"]
    unfiltered = Recognizer(still=True)
    unfiltered.despeckle_above = 0.0
    # the specks hide the card from the models: unfiltered, the ace is not read (the still
    # classifiers trained on a GPU name two faint specks instead, 0.11 and 0.23; the earlier
    # ones named nothing)
    unread = unfiltered.recognize(img)
    assert "AD" not in [d.code for d in unread] and all(d.confidence < 0.3 for d in unread)


def test_a_blurred_webcam_frame_is_read_by_the_smaller_pass(still, monkeypatch):
    img = cv2.imread(str(BLURRED))
    sizes = []
    real = Recognizer._run_detector

    def spy(self, frame, det_size, region=None, weak=False, **kw):
        sizes.append(det_size)
        return real(self, frame, det_size, region, weak, **kw)

    monkeypatch.setattr(Recognizer, "_run_detector", spy)
    assert [d.code for d in still.recognize(img)] == ["AC"]
    coarse, fitted, small = sizes[:3]
    assert coarse == Recognizer.COARSE_SIZE and small == round(fitted * 0.7 / 32) * 32
    one_pass = Recognizer(still=True)
    one_pass.small_look = 1.0
    one_pass.mirror_look = one_pass.turn_look = 0.0  # the fitted pass alone (test_vision_views)
    one_pass.last_look_sure = 1.01  # (and no last look: test_vision_last_look)
    assert one_pass.recognize(img) == []


def test_video_reads_keep_the_frame_and_its_crops_as_they_are(still):
    video = Recognizer()
    assert (video.despeckle_above, video.small_look, video.stretch_below) == (0.0, 1.0, 0.0)
    noisy = _speckle(cv2.imread(str(RENDERED)), 0.005)
    assert video.prepare(noisy) is noisy
    # a dim crop at the classifiers' size: stretched for a photo, left for video
    dim = np.full((still.cls_size, still.cls_size, 3), 120, np.uint8)
    dim[10:38, 20:28] = 70
    assert still._sized(dim).max() >= 250 and video._sized(dim) is dim


def test_a_dark_frame_is_brought_up_until_its_white_reads_235():
    frame = np.full((400, 600, 3), 40, np.uint8)
    frame[100:220, 200:290] = (120, 120, 120)  # a card's paper, lit at half the usual light
    assert white_level(frame) == 120  # the brightest 0.5 %: the paper, not the table
    up = expose(frame, 235.0)
    assert up[150, 250].tolist() == [235, 235, 235] and up[0, 0].tolist() == [78, 78, 78]
    # a well-lit frame (white 200: it would gain under 1.25x) is left as it is, the very array
    lit = np.clip(frame.astype(int) * 5 // 3, 0, 255).astype(np.uint8)
    assert expose(lit, 235.0) is lit
    # a black frame is brought up 4x at most (an empty table in the dark stays dark) ...
    night = np.full((90, 160, 3), 20, np.uint8)
    assert expose(night, 235.0).max() == 80
    assert expose(frame, 0.0) is frame  # ... and 0 turns it off


def test_a_dark_camera_frame_is_read_as_well_as_a_lit_one():
    # every rendered table at a third of its light: read as is (the detector and classifiers
    # were trained on well-lit frames) most of its cards are lost
    truth = json.loads((DATA / "rendered_truth.json").read_text())
    video = Recognizer()
    as_is = Recognizer()
    as_is.expose_white = 0.0
    assert video.expose_white == Recognizer(still=True).expose_white == 235.0
    right = {"lit": 0, "dark": 0, "dark as is": 0}
    for k in range(3):
        name = f"rendered_bellot_{k}.jpg"
        lit = cv2.imread(str(DATA / name))
        dark = cv2.convertScaleAbs(lit, alpha=0.3)
        named = set(truth[name])
        right["lit"] += len(named & {d.code for d in video.recognize(lit)})
        right["dark"] += len(named & {d.code for d in video.recognize(dark)})
        right["dark as is"] += len(named & {d.code for d in as_is.recognize(dark)})
    assert right["dark"] >= right["lit"] >= 25  # of the 34 cards
    assert right["dark as is"] <= right["lit"] - 10


def test_two_passes_boxes_join_with_overlaps_kept_once():
    a = np.array([[0, 0, 10, 10], [50, 50, 60, 60]], np.float32)
    b = np.array([[1, 1, 11, 11], [100, 100, 110, 110]], np.float32)
    boxes, conf = _union(a, np.array([0.4, 0.9]), b, np.array([0.7, 0.3]))
    got = sorted(zip(boxes[:, 0].tolist(), conf.tolist(), strict=True))
    assert got == [(1.0, 0.7), (50.0, 0.9), (100.0, 0.3)]  # the surer of the overlapping two
    none = np.zeros((0, 4), np.float32)
    assert len(_union(none, np.zeros(0), none, np.zeros(0))[0]) == 0
