"""Frame -> observation on onnxruntime: find corner indices and cards, name each index, vote per card.

Plain data out (`Observation`, `Detection`); torch is never imported here.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import index_lengths_outside
from vision.boxes import iou as _iou
from vision.cleanup import despeckle, expose, stretch_dim
from vision.crops import CROP_PX, face_crop, index_crop, square_up
from vision.last_look import last_look
from vision.outline import card_outline
from vision.pips import RANK_PIPS, pip_count

MODELS = Path(__file__).resolve().parents[1] / "models"


@dataclass
class Detection:
    """One recognised card: code, confidence in [0, 1], outline and box in frame pixels."""

    code: str
    confidence: float
    quad: list[list[float]]
    box: list[float]
    zone: str | None = None
    # the classifier's runners-up for this card, surest first: (code, share of the pooled
    # probability); alts[0] is `code` itself. Lets a caller that knows which codes are still
    # possible (one physical deck) re-read a card without running the model again.
    alts: list[tuple[str, float]] = field(default_factory=list)
    # where no card was seen around the card's one index read, `box` is only a guess around
    # it (the card may lie on any side): that index's box, the one place known to be the card
    index: list[float] | None = None

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "confidence": round(self.confidence, 4),
            "box": [round(v, 1) for v in self.box],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
        }


@dataclass
class Observation:
    """Everything recognised in one frame taken at time t (seconds)."""

    cards: list[Detection] = field(default_factory=list)
    t: float = 0.0


@dataclass
class IndexHit:
    """A detected corner index with its classifier output (used by eval and debugging)."""

    box: list[float]
    det_conf: float
    code: str
    prob: float
    probs: np.ndarray


class ModelMissingError(RuntimeError):
    """The ONNX files are not where the recognizer looks for them."""


class Recognizer:
    """Two small ONNX models: a class-agnostic index/card detector and a 52-way index classifier.

    The detector only finds indices of the sizes it was trained on, so by default the frame is
    scaled to suit the cards in it (`det_size=None`): a cheap pass at `COARSE_SIZE` finds the
    cards, and the frame is read again scaled so that a card's long side is about `CARD_PX`
    detector pixels (a phone close-up is shrunk, a 4K overhead photo of a whole table is read
    near full size); with no card seen at the coarse pass it is read at `FALLBACK_SIZE`. A
    fixed `det_size` (the long side in px) skips all that. `min_confidence` is the calibrated
    floor below which a card is not reported (an empty table must give an empty list).
    `still` reads single photographs (the `recognize` and `eval` commands) with the settings of
    `recognizer.json`'s "still" section (`STILL`): the scale fitted so that a card is 130 px
    long, not 100, a card seen without an index looked at again larger, and every index read
    all four quarter turns round (video: only the unsure ones), by the classifiers of
    `classifiers` averaged (three shipped; video: `classifier` alone), and each card's face
    read too (`face`: figure or number, rank, suit multiplied into its corner reads; video:
    only whether it is a figure, and only where its corners waver between a figure and a
    number card, `face_doubt`). Photo sets read better so, but the table controller, tuned to
    the video reads, referees whole matches worse with the first, and the second would add a
    full-size detector pass to a fifth of table video frames (a face-down pile shows no index)
    for no measured gain there (models/README.md). Both kinds of read take two sure
    disagreeing reads in one card box for two cards (`pair_split_sure`) and keep an index the
    detector scores weakly where the classifier reads it sure inside a card (`low_index_conf`,
    `low_index_sure`).
    `spin` keeps onnxruntime's thread pools spinning between runs (off by default: the two
    models take turns on the same cores; `BASRA_VISION_SPIN=1` turns it on).
    """

    COARSE_SIZE = 256
    FALLBACK_SIZE = 640
    MAX_SIZE = 1280
    BARE_LOOK = 1.0  # a card seen with no index in it: the frame read again this much larger
    CARD_PX = 100.0  # video: the table controller's tracker is tuned to these reads
    EXPOSE_WHITE = 235.0  # a dark frame's white is brought up to this (video and still reads)
    INDEX_TO_CARD = 5.0  # a card's long side over its corner index's (the decks: 4.5-6)
    HALF_TURN_BELOW = 0.7  # a first read less sure than this is read the other 3 quarter turns
    LONE_MIN_CONFIDENCE = 0.15  # the least confidence of a read with no card box around it
    RUNNER_UP_SHARE = 0.08  # a duplicate read is renamed only to a runner-up at least this likely
    MAX_INDEX_TO_CARD = 0.7  # an "index" longer than this share of the largest card is not one
    # a "card" whose long side is under this many times its index's is that index boxed as a
    # card (a dim view, 0.3 of the light: a QS's index boxed 18 x 32 px), unless cut by an edge
    MIN_CARD_TO_INDEX = 1.5
    ROI_MARGIN = 0.5  # card lengths added around what the coarse pass saw
    ROI_MAX_SHARE = 0.8  # a region covering more of the frame than this: read it all
    PAIR_MIN_JOINT = 0.05  # the least chance that two corner reads name the same card
    # a chance above what two different cards' indices in one box reach (95 % of them: < 0.12)
    PAIR_LIKELY_JOINT = 0.12
    # what `basra-table train` writes (a recognizer.json without these keys reads as before
    # them: never split, no weak index, every quarter turn read):
    PAIR_SPLIT_SURE = 0.5  # ... judged only when both reads are this sure (1.01: never)
    # an index the detector scores LOW_INDEX_CONF up to `index_conf` is kept only inside a card
    # and where the classifier reads it LOW_INDEX_SURE sure; one whose first read is under
    # WEAK_FIRST_READ is dropped without the other quarter turns (fewer runs; the tuning and
    # report sets' card sets the same, though averaging may lift a rare one to LOW_INDEX_SURE)
    LOW_INDEX_CONF = 0.1
    LOW_INDEX_SURE = 0.7
    WEAK_FIRST_READ = 0.5
    # an index inside two overlapping card boxes joins the one where its opposite corner lies
    # (video reads: a card laid over another's edge was read twice; still reads keep the
    # smallest box, `STILL`)
    CORNER_MATES = True
    # video: the face reader says only whether a card is a figure, and reads only the cards
    # whose two likeliest codes are a figure and a number card, the second at least FACE_DOUBT
    # as likely (a 5 read as a J, a Q as a 10: the misreads that upset a refereed round)
    FACE_DOUBT = 0.05
    VIDEO_FACE = {
        "face_court_weight": 1.0,
        "face_weight": 0.0,
        "face_suit_weight": 0.0,
        "face_doubt": FACE_DOUBT,
        "face_turns": 1,  # one look: the same reads on the tuning sets and matches, 1/4 the cost
    }
    # single photos (`still`): the scale fitted larger, bare cards looked at again (video:
    # off), every index read four ways (video: the unsure); a speckled photo median-filtered,
    # the detector run again 0.7x smaller, dim crops stretched, a read with no card box around
    # it kept only from 0.2 sure (a face in a webcam frame), the frame read mirrored (0.7x
    # the fitted size) and turned half round (at the fitted size), a number card's pips
    # counted, a weakly scored index no card box holds kept where read 0.8 sure, and faint
    # indices away from every card read, read alike at 5 of 7 sizes 0.7 sure on average
    STILL = {
        "card_px": 130.0,
        "bare_look": 2.0,
        "half_turn_below": 1.01,
        "despeckle_above": 2e-5,
        "small_look": 0.7,
        "stretch_below": 160.0,
        "lone_min_confidence": 0.2,
        "mirror_look": 0.7,
        "turn_look": 1.0,
        "pip_other": 0.1,
        "lone_weak_sure": 0.8,
        "last_look_sure": 0.7,
        "last_look_agree": 5,
        "corner_mates": False,
    }
    OTHER_VIEW_NEW_IOU = 0.3  # a mirrored or turned pass's index box overlapping less is new
    LONE_PAIR_SPAN = (2.5, 6.0)  # index lengths between two lone indices of one card
    BODILESS_SURE = 0.8  # how surely each of a card's two corners is read, its body not found
    RESCALE_ABOVE = 1.5  # the fitted pass's cards call for a size this much larger or more
    RESCALE_MIN_CARDS = 4  # ... where it saw at least this many cards (merged rows of them)

    def __init__(
        self,
        models_dir: str | Path | None = None,
        det_size: int | None = None,
        min_confidence: float | None = None,
        threads: int | None = None,
        spin: bool | None = None,
        still: bool = False,
    ) -> None:
        import onnxruntime as ort

        folder = Path(models_dir) if models_dir else MODELS
        meta_path = folder / "recognizer.json"
        if not meta_path.exists():
            raise ModelMissingError(f"no recognizer model in {folder} (recognizer.json missing)")
        meta = json.loads(meta_path.read_text())
        if still:  # settings for single photographs override the video ones
            meta = {**meta, **meta.get("still", {})}
        self.meta = meta
        self.names: list[str] = meta["cls_names"]
        self.cls_size = int(meta["cls_size"])
        # the classifier reads crops squared up to their card's sides (`vision.crops.square_up`)
        if meta.get("orient") != "edges":
            raise ModelMissingError(
                f'{meta_path}: the classifier is not marked "orient": "edges" (one trained on'
                " ink-turned crops, before 2026-12-02, misreads squared-up ones); train a new"
                " one with `basra-table train`"
            )
        self.det_size = int(det_size) if det_size else None
        self.card_px = float(meta.get("card_px", self.CARD_PX))
        # the fitted pass reads only the region around the cards the coarse pass saw
        self.roi = os.environ.get("BASRA_VISION_ROI", "1") != "0"
        # a squared-up crop leaves a quarter-turn ambiguity the classifier learnt; reading all
        # four ways and averaging is a measured gain (models/HISTORY.md) ...
        self.half_turn = bool(meta.get("half_turn", True))
        # ... made on video only where the first read is unsure
        self.half_turn_below = float(meta.get("half_turn_below", self.HALF_TURN_BELOW))
        # a read with no detected card around its index is more often something else (a wall,
        # a face, a shirt in a webcam frame): it must be surer (models/README.md)
        self.lone_min_confidence = float(meta.get("lone_min_confidence", self.LONE_MIN_CONFIDENCE))
        self.pair_min_joint = float(meta.get("pair_min_joint", self.PAIR_MIN_JOINT))
        self.bare_look = float(meta.get("bare_look", self.BARE_LOOK))
        self.pair_split_sure = float(meta.get("pair_split_sure", 1.01))
        self.index_conf = float(meta.get("index_conf", 0.25))
        # an index the detector scores between `low_index_conf` and `index_conf` is kept only
        # when the classifier reads it at least `low_index_sure` and a card box holds it (the
        # same as `index_conf`: off); one whose first read is under `weak_first_read` is not
        # read the other quarter turns, only dropped (0: each read all its unsure ways)
        self.low_index_conf = float(meta.get("low_index_conf", self.index_conf))
        self.low_index_sure = float(meta.get("low_index_sure", 1.01))
        self.weak_first_read = float(meta.get("weak_first_read", 0.0))
        # ... and one no card box holds is kept where its read (all four quarter turns) is at
        # least `lone_weak_sure` (still reads: a webcam's card held up, never boxed; 1.01: off)
        self.lone_weak_sure = float(meta.get("lone_weak_sure", 1.01))
        # an index inside two overlapping card boxes joins the one holding its opposite corner
        # (video reads; still reads: the smallest box, as before; models/HISTORY.md)
        self.corner_mates = bool(meta.get("corner_mates", False))
        # faint indices away from every card read, read alike at `last_look_agree` of the last
        # look's sizes and `last_look_sure` sure on average, name cards (`vision.last_look`;
        # still reads; 1.01: off)
        self.last_look_sure = float(meta.get("last_look_sure", 1.01))
        self.last_look_agree = int(meta.get("last_look_agree", 5))
        self.card_conf = float(meta.get("card_conf", 0.3))
        # still reads (0 / 1 / 0: off): a frame with more than `despeckle_above` of its pixels
        # isolated specks is median-filtered first (`vision.cleanup`); the detector also reads
        # the frame `small_look` times the fitted size (a blurred webcam frame's indices are
        # found surer smaller); an index (or face) crop spanning under `stretch_below` grey
        # levels is stretched to full contrast
        self.despeckle_above = float(meta.get("despeckle_above", 0.0))
        # a dark frame is scaled up first, so that its white (a card's paper) reads
        # `expose_white` (`vision.cleanup.expose`: an under-exposed camera; 0: off)
        self.expose_white = float(meta.get("expose_white", 0.0))
        self.small_look = float(meta.get("small_look", 1.0))
        # still reads: the frame is also read mirrored left to right and turned half round, at
        # these times the fitted size, and the indices found only there join (0: off)
        self.mirror_look = float(meta.get("mirror_look", 0.0))
        self.turn_look = float(meta.get("turn_look", 0.0))
        self.stretch_below = float(meta.get("stretch_below", 0.0))
        # where a card's whole pip layout shows, the codes of the other ranks are weighed by
        # `pip_other` (`vision.pips`; 1: not counted)
        self.pip_other = float(meta.get("pip_other", 1.0))
        self._ranks = np.array([RANK_PIPS.get(n[0], 0) for n in self.names])
        self.min_confidence = float(
            min_confidence if min_confidence is not None else meta.get("min_confidence", 0.3)
        )
        opts = ort.SessionOptions()
        n = (
            threads
            or int(os.environ.get("BASRA_VISION_THREADS", "0"))
            or min(os.cpu_count() or 2, 4)
        )
        opts.intra_op_num_threads = n
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # the detector and the classifier take turns on the same cores: a thread pool left
        # spinning after its run steals them from the other's (median 43 -> 32 ms, p95 74 ->
        # 45 ms a 1280x720 frame on 2 cores; `benchmarks/vision.py --spin` compares the two)
        if spin is None:
            spin = os.environ.get("BASRA_VISION_SPIN", "0") == "1"
        if not spin:
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        # `classifiers` (the still reads: classifiers trained on different typeface draws and
        # augmentations) average their probabilities; `classifier` alone otherwise (video: one,
        # for speed)
        names = meta.get("classifiers") or [meta["classifier"]]
        for name in [meta["detector"], *names]:
            if not (folder / name).is_file():
                raise ModelMissingError(f"{meta_path}: names the model {name}, not in {folder}")
        self.det = ort.InferenceSession(str(folder / meta["detector"]), opts, providers=providers)
        self.classifiers = [
            ort.InferenceSession(str(folder / name), opts, providers=providers) for name in names
        ]
        self.cls = self.classifiers[0]
        self._det_in = self.det.get_inputs()[0].name
        self._cls_inputs = [s.get_inputs()[0].name for s in self.classifiers]
        # the face reader: a card's whole face (pips, figure) read from its box and multiplied
        # into its corner reads, three exponents (figure or number, rank, suit; all 0 or no
        # "face" named: not loaded)
        named = bool(meta.get("face"))
        self.face_weight = float(meta.get("face_weight", 0.0)) if named else 0.0
        self.face_suit_weight = float(meta.get("face_suit_weight", 0.0)) if named else 0.0
        self.face_court_weight = float(meta.get("face_court_weight", 0.0)) if named else 0.0
        # ... read only for cards whose corners waver between a figure and a number card, where
        # `face_doubt` is set (video reads; 0: every card, as for still reads)
        self.face_doubt = float(meta.get("face_doubt", 0.0))
        self.face_turns = min(4, max(1, int(meta.get("face_turns", 4))))  # quarter turns read
        self.face = None
        if max(self.face_weight, self.face_suit_weight, self.face_court_weight) > 0:
            if not (folder / meta["face"]).is_file():
                raise ModelMissingError(
                    f"{meta_path}: names the model {meta['face']}, not in {folder}"
                )
            self.face = ort.InferenceSession(str(folder / meta["face"]), opts, providers=providers)
            self._face_in = self.face.get_inputs()[0].name

    # -- public -------------------------------------------------------------------------------
    def observe(self, frame_bgr: np.ndarray, t: float = 0.0) -> Observation:
        """Recognise every face-up card in a BGR frame."""
        return Observation(self.recognize(frame_bgr), float(t))

    def recognize(self, frame_bgr: np.ndarray) -> list[Detection]:
        frame = self.prepare(frame_bgr)
        hits, cards = self._detect_prepared(frame)
        found = self.assemble(hits, cards, frame.shape[1], frame.shape[0], frame)
        if self.last_look_sure > 1.0:
            return found
        return sorted(found + self._last_look(frame, found), key=lambda d: (d.box[1], d.box[0]))

    def _last_look(self, frame: np.ndarray, found: list[Detection]) -> list[Detection]:
        """Cards the usual reads missed (still reads, `last_look_sure`): faint indices found and
        read alike at many sizes (`vision.last_look`), away from every card box and index
        already read, named by a code not already given out (one deck)."""
        h, w = frame.shape[:2]
        named = {d.code for d in found}

        def detect(size: int, floor: float):
            return self._run_detector(frame, size, weak=True, floor=floor)[:2]

        def read(boxes: np.ndarray) -> np.ndarray:
            crops = np.stack([self._crop(frame, b) for b in boxes])
            return self._turned(crops, (0, 1, 2, 3)).sum(axis=0) / 4

        held = np.array([d.box for d in found], np.float64).reshape(-1, 4)

        def skip(box: list[float]) -> bool:  # inside a card already read
            return bool(_centres_inside(np.array([box], np.float64), held).any())

        out = []
        agree, sure = self.last_look_agree, self.last_look_sure
        for r in last_look(detect, read, self.names, agree, sure, skip=skip):
            if r.code in named:
                continue
            hit = IndexHit(r.box, self.index_conf, r.code, r.conf, np.zeros(len(self.names)))
            box, guessed = self._card_box([hit], [], w, h)
            quad = [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]
            index = [float(v) for v in r.box] if guessed else None
            out.append(Detection(r.code, r.conf, quad, box, alts=r.alts, index=index))
        return out

    def prepare(self, frame_bgr: np.ndarray) -> np.ndarray:
        """The frame as the models read it: checked, brought up when dark (`expose_white`), and
        median-filtered when speckled (`despeckle_above`; still reads only)."""
        if frame_bgr is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("expected a BGR image of shape (h, w, 3)")
        return despeckle(expose(frame_bgr, self.expose_white), self.despeckle_above)

    def detect(
        self, frame_bgr: np.ndarray, prepared: bool = False
    ) -> tuple[list[IndexHit], list[tuple[list[float], float]]]:
        """Classified index hits and card boxes (box, confidence) of a frame, which is prepared
        first (`prepare`) unless `prepared`; give `assemble` the prepared frame."""
        return self._detect_prepared(frame_bgr if prepared else self.prepare(frame_bgr))

    def find(self, frame_bgr: np.ndarray):
        """The detector's boxes in a prepared frame, before any is read: index boxes and their
        scores (weak ones too, where these reads keep them; an "index" too long for the cards
        seen dropped), card boxes and theirs (a "card" hardly longer than an index it holds
        dropped: `MIN_CARD_TO_INDEX`), as (N, 4) pixel and (N,) arrays."""
        idx_boxes, idx_conf, card_boxes, card_conf = self._detect_scaled(frame_bgr)
        h, w = frame_bgr.shape[:2]
        cards = _plausible_cards(card_boxes, idx_boxes, self.MIN_CARD_TO_INDEX, w, h)
        card_boxes, card_conf = card_boxes[cards], card_conf[cards]
        keep = _plausible_indices(idx_boxes, card_boxes, self.MAX_INDEX_TO_CARD)
        return idx_boxes[keep], idx_conf[keep], card_boxes, card_conf

    def _detect_prepared(
        self, frame_bgr: np.ndarray
    ) -> tuple[list[IndexHit], list[tuple[list[float], float]]]:
        idx_boxes, idx_conf, card_boxes, card_conf = self.find(frame_bgr)
        # a weak index counts inside a card; one outside every card is not read at all, unless
        # `lone_weak_sure` (still reads) lets a sure read of it count
        weak = idx_conf < self.index_conf
        inside = np.ones(len(idx_boxes), bool)  # (asked only of weak ones: judged where any)
        if weak.any():
            inside = _centres_inside(idx_boxes, card_boxes).any(axis=1)
            held = ~weak | inside | (self.lone_weak_sure <= 1.0)
            idx_boxes, idx_conf = idx_boxes[held], idx_conf[held]
            weak, inside = weak[held], inside[held]
        hits: list[IndexHit] = []
        if len(idx_boxes):
            crops = np.stack([self._crop(frame_bgr, b) for b in idx_boxes])  # N,H,W,3 BGR
            probs = self._classify(crops)
            # a weak index whose first read is far from sure is dropped, not read again
            hopeless = weak & (probs.max(axis=1) < self.weak_first_read)
            if self.half_turn:  # an unsure first read: read the other three quarter turns too
                unsure = (probs.max(axis=1) < self.half_turn_below) & ~hopeless
                if unsure.any():
                    more = self._turned(crops[unsure], (1, 2, 3)).sum(axis=0)
                    probs[unsure] = (probs[unsure] + more) / 4
            for b, c, p, is_weak, drop, held in zip(
                idx_boxes, idx_conf, probs, weak, hopeless, inside, strict=True
            ):
                k = int(np.argmax(p))
                if is_weak:
                    # a weak index: only a sure read (surer outside every card), weighed as a
                    # plain one
                    if drop or p[k] < (self.low_index_sure if held else self.lone_weak_sure):
                        continue
                    c = self.index_conf
                hits.append(IndexHit(list(map(float, b)), float(c), self.names[k], float(p[k]), p))
        cards = [
            (list(map(float, b)), float(c)) for b, c in zip(card_boxes, card_conf, strict=True)
        ]
        return hits, cards

    def assemble(
        self,
        hits: list[IndexHit],
        cards: list[tuple[list[float], float]],
        w: int,
        h: int,
        frame: np.ndarray | None = None,
    ) -> list[Detection]:
        """Group index hits into cards and name each card once (one physical deck).

        Two indices inside the same detected card pool their class probabilities (a card shows
        its index twice); a code read on two separate cards goes to the surer read. With the
        frame (as `prepare` gave it), a card's `quad` is its outline where the card stands out
        (`vision.outline`), else its box's corners, and the face reader reads the card.
        """
        groups = self._group(hits, cards)
        # each group's corners pooled, weighed by how sure the detector is of each
        pools = [
            np.sum([m.det_conf * m.probs for m in members], axis=0)
            / sum(m.det_conf for m in members)
            for members, _box in groups
        ]
        faces = self._faces_of(groups, frame, pools)
        outlines: dict[tuple[float, ...], list[list[float]] | None] = {}

        def outline_of(box: list[float]) -> list[list[float]] | None:
            if tuple(box) not in outlines:
                outlines[tuple(box)] = card_outline(frame, box)
            return outlines[tuple(box)]

        pips = self._pips_of(groups, frame, outline_of)
        reads = []
        for g, (members, card_box) in enumerate(groups):
            corners = pooled = pools[g]
            # the face's read multiplied in (it picks among the corners' codes), and the pips
            # counted (the ranks they do not show are set back)
            factor = faces.get(g)
            if g in pips:
                counted = np.where(self._ranks == pips[g], 1.0, self.pip_other)
                factor = counted if factor is None else factor * counted
            if factor is not None:
                fused = pooled * factor
                pooled = fused / max(float(fused.sum()), 1e-12)
            k = int(np.argmax(pooled))
            # ... and how sure the read is lies halfway (geometric mean) between the corners'
            # word for the code picked and the fused read's: the face lifts a faint read less
            # than it re-ranks one (a joker's figure took two faint court reads over the floor
            # with the fused figure alone; tuning sets in models/HISTORY.md)
            conf = float(np.sqrt(corners[k] * pooled[k])) * max(m.det_conf for m in members)
            if len(members) > 1 and all(m.code == self.names[k] for m in members):
                conf = min(1.0, conf * 1.25)  # agreeing corners make a read surer
            share = pooled / max(float(pooled.sum()), 1e-9)
            top = np.argsort(-share)[:5]
            alts = [(self.names[int(j)], float(share[j])) for j in top]
            reads.append((conf, self.names[k], members, card_box, alts))
        reads.sort(key=lambda r: -r[0])
        out, seen = [], set()
        taken: list[list[float]] = []  # card boxes already named
        for conf, code, members, card_box, alts in reads:
            if conf < self.min_confidence:
                continue
            if card_box is None and conf < self.lone_min_confidence:
                continue
            if code in seen:
                # a second card read as a code already given out: one deck, so it is another
                # card; name it by its best runner-up still free, if it is a separate card
                free = [(c, p) for c, p in alts if c not in seen and p >= self.RUNNER_UP_SHARE]
                separate = card_box is not None and all(_iou(card_box, b) < 0.3 for b in taken)
                if not (free and separate):
                    continue
                code, conf = free[0][0], conf * free[0][1] / max(alts[0][1], 1e-9)
                if conf < self.min_confidence:
                    continue
                alts = free
            seen.add(code)
            if card_box is not None:
                taken.append(card_box)
            box, guessed = (card_box, False) if card_box else self._card_box(members, cards, w, h)
            quad = outline_of(card_box) if frame is not None and card_box else None
            quad = quad or [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]
            index = [float(v) for v in members[0].box] if guessed else None
            box = [float(v) for v in box]
            out.append(Detection(code, conf, quad, box, alts=alts, index=index))
        out.sort(key=lambda d: (d.box[1], d.box[0]))
        return out

    def _group(
        self, hits: list[IndexHit], cards
    ) -> list[tuple[list[IndexHit], list[float] | None]]:
        """Each index joins the smallest detected card containing its centre; two indices in one
        card pool only if they can be the same card's two corners (`_same_card`): where cards
        overlap, the index of the card beneath lies inside the box of the card on top."""
        by_card: dict[int, list[IndexHit]] = {}
        alone: list[IndexHit] = []
        boxes = np.array([box for box, _conf in cards], np.float64).reshape(-1, 4)
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        inside = _centres_inside(np.array([h.box for h in hits], np.float64).reshape(-1, 4), boxes)
        for hit, holders in zip(hits, inside, strict=True):
            js = np.flatnonzero(holders)
            if len(js) > 1 and self.corner_mates:
                # where card boxes overlap, an index in both is the card's whose opposite
                # corner it is (a card's two corners lie point-symmetric about its box's
                # centre, read alike), else the smallest box's
                mates = [j for j in js if _opposite_corner(hit, hits, boxes[j])]
                js = np.array(mates) if mates else js
            if len(js):
                by_card.setdefault(int(js[np.argmin(area[js])]), []).append(hit)
            else:
                alone.append(hit)
        # two sure corners of one card, each lying on another card (or one on the bare
        # floor), its own body unfound: a card of its own, not reads of the cards beneath
        bodiless = self._bodiless(by_card, alone, boxes)
        groups: list[tuple[list[IndexHit], list[float] | None]] = []
        owners: list[list[IndexHit]] = []  # each card's own corners (its surest pair)
        for j, members in by_card.items():
            # the surest pair is the card itself; the others lie inside its box but are other
            # cards' corners: they keep that box (it surrounds them) for the one-deck check ...
            pairs = _pair_up(members, self._same_card)
            # ... except a lone read of the card's own suit right beside one of its corners: the
            # corner's own print (a big suit pip beside the index, read as another rank)
            pairs = [pairs[0]] + [p for p in pairs[1:] if not _corner_print(pairs[0], p)]
            groups.extend((pair, cards[j][0]) for pair in pairs)
            owners.append(pairs[0])
        groups = self._strays_home(groups)
        # ... and so is one just outside the card's box (a box cut a little short)
        alone = [h for h in alone if not any(_corner_print(card, [h]) for card in owners)]
        # a lone index just outside a card box that holds only one corner, as far from it as a
        # card's two corners lie, and read as the same code or, less surely than that corner,
        # as a code it could be where the corner mirrored about the grown box lies (a JC's
        # corner over a 5H's, read JH 0.39) or likely the same card (`PAIR_LIKELY_JOINT`; a
        # QH's read QD 0.39, QH 0.30): that card's other corner, its box cut short (a card
        # lying aslant); the box grows to hold it
        for hit in sorted(alone, key=lambda m: -m.det_conf):
            for g, (members, box) in enumerate(groups):
                if len(members) != 1 or box is None or not _just_outside(hit, box):
                    continue
                (corner,) = members
                grown = [min(box[0], hit.box[0]), min(box[1], hit.box[1])]
                grown += [max(box[2], hit.box[2]), max(box[3], hit.box[3])]
                if self._corners_of_one(corner, hit) and (
                    corner.code == hit.code
                    or (
                        hit.prob < corner.prob
                        and (
                            _mirrored(corner, hit, grown)
                            or float(np.dot(corner.probs, hit.probs)) >= self.PAIR_LIKELY_JOINT
                        )
                    )
                ):
                    groups[g] = ([corner, hit], grown)
                    alone.remove(hit)
                    break
        # indices with no card box around them pair up where they can be one card's two
        # opposite corners: as far apart as those are and not naming clearly different cards
        groups.extend((pair, None) for pair in _pair_up(alone, self._corners_of_one))
        return groups + [(pair, None) for pair in bodiless]

    def _bodiless(
        self, by_card: dict[int, list[IndexHit]], alone: list[IndexHit], boxes: np.ndarray
    ) -> list[list[IndexHit]]:
        """Pairs of indices both read surely (`BODILESS_SURE`) as one code that can be one
        card's opposite corners (`_corners_of_one`), each inside a different card's box that
        holds no other index of that code, or one of them on the bare floor, and no detected
        card holding both, nor one just outside the other's box: that card's own two corners,
        its body not found (an AC laid between a 7S and an 8C, a corner over each, both read
        AC 0.95). Taken out of `by_card` and `alone`, they make a card of their own, boxed by
        them (`_card_box`), not reads of the cards they lie on. (Unsure corners are left as
        they were: a 3H read 0.93 in its own box and a faint 3H 0.26 in the box beside made a
        card over both.)"""
        place = [(j, hit) for j, members in by_card.items() for hit in members]
        place += [(None, hit) for hit in alone]
        place = [(j, hit) for j, hit in place if hit.prob >= self.BODILESS_SURE]
        place.sort(key=lambda s: -s[1].det_conf)

        def only_one(j: int | None, hit: IndexHit) -> bool:
            return j is None or sum(m.code == hit.code for m in by_card[j]) == 1

        used: set[int] = set()
        pairs: list[list[IndexHit]] = []
        for i, (j, a) in enumerate(place):
            if j is None or i in used or not only_one(j, a):
                continue  # (two bare-floor indices pair up in `_group`)
            for k, (jb, b) in enumerate(place):
                if (
                    k in used
                    or jb == j
                    or b.code != a.code
                    or not only_one(jb, b)
                    or not self._corners_of_one(a, b)
                    or _centres_inside(np.array([a.box, b.box], np.float64), boxes).all(0).any()
                    or _just_outside(b, boxes[j])  # (its card's box cut short: `_group`)
                    or (jb is not None and _just_outside(a, boxes[jb]))
                ):
                    continue
                used |= {i, k}
                pairs.append([a, b])
                break
        taken = {id(place[i][1]) for i in used}
        for j in list(by_card):
            by_card[j] = [m for m in by_card[j] if id(m) not in taken]
            if not by_card[j]:
                del by_card[j]
        alone[:] = [h for h in alone if id(h) not in taken]
        return pairs

    def _strays_home(
        self, groups: list[tuple[list[IndexHit], list[float] | None]]
    ) -> list[tuple[list[IndexHit], list[float] | None]]:
        """A lone index inside one card's box that is not that card's corner, lying just
        outside another card's box whose own corners hold an index read as the same code that
        it can be the opposite corner of (`_corners_of_one`): that card's corner, its box cut
        short where it lies over the first (a QS tossed half over a 6D, its index read inside
        the 6D's box). It joins that card, whose box grows to hold it."""
        owner: dict[tuple[float, ...], int] = {}
        for g, (_members, box) in enumerate(groups):
            if box is not None:
                owner.setdefault(tuple(box), g)
        moved: set[int] = set()
        for g, (members, box) in enumerate(groups):
            if box is None or len(members) != 1 or owner[tuple(box)] == g:
                continue
            (hit,) = members
            for h in sorted(set(owner.values()) - {owner[tuple(box)]}):
                mates, home = groups[h]
                if (
                    home is not None
                    and _just_outside(hit, home)
                    and any(m.code == hit.code and self._corners_of_one(m, hit) for m in mates)
                ):
                    grown = [min(home[0], hit.box[0]), min(home[1], hit.box[1])]
                    grown += [max(home[2], hit.box[2]), max(home[3], hit.box[3])]
                    groups[h] = ([*mates, hit], grown)
                    moved.add(g)
                    break
        return [group for g, group in enumerate(groups) if g not in moved]

    def _pips_of(self, groups, frame: np.ndarray | None, outline_of) -> dict[int, int]:
        """The pips counted (`vision.pips`) on each card whose outline stands out and whose
        whole layout shows, by group: only the group that owns the card box (its surest pair,
        listed first), not another card's corner lying inside it. Empty where `pip_other` is
        1 (off) or no frame is given."""
        if self.pip_other >= 1.0 or frame is None:
            return {}
        counted: dict[int, int] = {}
        owned: set[tuple[float, ...]] = set()
        for g, (_members, card_box) in enumerate(groups):
            if card_box is None or tuple(card_box) in owned:
                continue
            owned.add(tuple(card_box))
            quad = outline_of(card_box)
            count = pip_count(frame, quad) if quad else None
            if count is not None:
                counted[g] = count
        return counted

    def _faces_of(self, groups, frame: np.ndarray | None, pools) -> dict[int, np.ndarray]:
        """What the face reader multiplies into the reads of the groups it speaks for: whether
        the card is a figure, its rank and its suit, each to its own power (`face_court_weight`,
        `face_weight`, `face_suit_weight`: how far each is trusted beside the corners). Of the
        index groups sharing a card box it speaks for the one its face agrees with most (the
        others are corners of cards beneath or on top). Court figures are told from number
        cards but not from each other (J, Q and K share their probability): a design's figures
        are its own. `pools` holds each group's pooled corner read (`face_doubt` judges it)."""
        if self.face is None or frame is None:
            return {}
        boxes: dict[tuple, list[int]] = {}
        for g, (_members, card_box) in enumerate(groups):
            if card_box is not None:
                boxes.setdefault(tuple(card_box), []).append(g)
        if self.face_doubt:  # only cards whose read wavers between a figure and a number card
            boxes = {b: gs for b, gs in boxes.items() if any(self._doubt(pools[g]) for g in gs)}
        if not boxes:
            return {}
        probs = self._read_faces(np.stack([self._face_crop(frame, box) for box in boxes]))
        out = {}
        for p, gs in zip(probs, boxes.values(), strict=True):
            by = p.reshape(13, 4)  # CODES: rank-major, suits S H D C
            rank, suit = by.sum(axis=1), by.sum(axis=0)
            rank[_COURTS] = rank[_COURTS].mean()
            face = np.outer(rank, suit).ravel()
            joint = [float(np.dot(face, sum(m.probs for m in groups[g][0]))) for g in gs]
            figure = float(rank[_COURTS].sum())  # the chance that the card is a figure
            court = np.full(13, 1.0 - figure)
            court[_COURTS] = figure
            court = np.clip(court, 1e-6, 1.0) ** self.face_court_weight
            weight = np.outer(court * rank**self.face_weight, suit**self.face_suit_weight).ravel()
            out[gs[int(np.argmax(joint))]] = weight
        return out

    def _doubt(self, pooled: np.ndarray) -> bool:
        """Whether an index group's pooled read wavers between a figure and a number card: its
        two likeliest codes are one of each, the second at least `face_doubt` as likely."""
        first, second = np.argsort(-pooled)[:2]
        figure = [int(k) // 4 in _COURTS for k in (first, second)]
        return figure[0] != figure[1] and pooled[second] >= self.face_doubt * pooled[first]

    def _read_faces(self, crops: np.ndarray) -> np.ndarray:
        """The face reader's probabilities for BGR card crops (N, s, s, 3), `face_turns` quarter
        turns averaged (a squared-up card may lie either way up or across; the reader was
        trained on every turn)."""
        x = _net_input(crops)
        n = self.face_turns
        turns = np.concatenate([np.rot90(x, t, (2, 3)) for t in range(n)])  # a new, C-ordered array
        out = self.face.run(None, {self._face_in: turns})[0]  # one run: the turns batched
        return out.reshape(n, len(crops), -1).mean(axis=0)

    def _face_crop(self, frame: np.ndarray, box) -> np.ndarray:
        """The face reader's view of one card: square cut about its box, squared up, resized."""
        return self._sized(face_crop(frame, box, CROP_PX))

    def _corners_of_one(self, a: IndexHit, b: IndexHit) -> bool:
        """Whether two indices with no card box around them can be one card's opposite corners:
        `LONE_PAIR_SPAN` index lengths apart (a card's two corners lie 3.1-3.9 apart in 90 % of
        rendered pairs) and not naming clearly different cards (`PAIR_MIN_JOINT`)."""
        apart = np.hypot(
            (a.box[0] + a.box[2] - b.box[0] - b.box[2]) / 2,
            (a.box[1] + a.box[3] - b.box[1] - b.box[3]) / 2,
        )
        side = max(
            a.box[2] - a.box[0], a.box[3] - a.box[1], b.box[2] - b.box[0], b.box[3] - b.box[1]
        )
        lo, hi = self.LONE_PAIR_SPAN
        return (
            lo * side <= apart <= hi * side
            and float(np.dot(a.probs, b.probs)) >= self.pair_min_joint
        )

    def _same_card(self, a: IndexHit, b: IndexHit) -> bool:
        """Whether two index reads inside one card box can be that card's two corners: yes when
        either is unsure (`PAIR_SPLIT_SURE`: a misread corner of this card is likelier than
        another card), else when the chance that both name one card, sum(p_a * p_b), is at least
        `PAIR_MIN_JOINT`. Measured on rendered tables (models/README.md): 90 % of true pairs
        have a chance >= 0.3, and 95 % of two different cards' indices in one box < 0.12."""
        if min(a.prob, b.prob) < self.pair_split_sure:
            return True  # an unsure read is more likely this card's corner misread
        return float(np.dot(a.probs, b.probs)) >= self.pair_min_joint

    # -- internals -----------------------------------------------------------------------------
    def _classify(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities of squared-up BGR crops (N, size, size, 3), averaged over the
        classifiers."""
        x = _net_input(crops)
        runs = zip(self.classifiers, self._cls_inputs, strict=True)
        return np.mean([s.run(None, {name: x})[0] for s, name in runs], axis=0)

    def _turned(self, crops: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
        """Class probabilities of the crops read at each of `turns` quarter turns, (len(turns),
        N, classes): one run of each classifier over them all (the same reads as a run a turn,
        bit for bit, with less overhead)."""
        n = len(crops)
        probs = self._classify(np.concatenate([_quarter(crops, k) for k in turns]))
        return probs.reshape(len(turns), n, -1)

    def _crop(self, frame: np.ndarray, box) -> np.ndarray:
        """The classifier's view of one index: square cut, squared up, resized."""
        return self._sized(square_up(index_crop(frame, box, CROP_PX)))

    def _sized(self, crop: np.ndarray) -> np.ndarray:
        """A square crop (an index's or a face's) at the networks' input size, a dim one
        stretched (`stretch_below`)."""
        if crop.shape[0] != self.cls_size:
            crop = cv2.resize(crop, (self.cls_size, self.cls_size), interpolation=cv2.INTER_AREA)
        return stretch_dim(crop, self.stretch_below)

    def scale_for(self, frame: np.ndarray) -> int:
        """The detector input size (long side) that suits the cards in this frame."""
        if self.det_size:
            return self.det_size
        return self._pick_size(frame, *self._first_look(frame))[0]

    def _card_length(self, coarse) -> float | None:
        """A card's long side in frame pixels, from what the coarse pass saw: the cards' median,
        else ~5 indices (a close-up where no whole card is seen); None when it saw nothing."""
        idx_boxes, card_boxes = coarse[0], coarse[2]
        if len(card_boxes):
            return float(np.median((card_boxes[:, 2:] - card_boxes[:, :2]).max(axis=1)))
        if len(idx_boxes):
            sides = (idx_boxes[:, 2:] - idx_boxes[:, :2]).max(axis=1)
            return self.INDEX_TO_CARD * float(np.median(sides))
        return None

    def _pick_size(self, frame: np.ndarray, coarse, seen: int | None = None) -> tuple[int, bool]:
        """The fitted pass's size from what a pass at `seen` px (the coarse size) found, and
        whether that pass's boxes serve as the fitted pass's (its size is close enough)."""
        seen = seen or self.COARSE_SIZE
        long_side = max(frame.shape[:2])
        card = self._card_length(coarse)
        if card is None:
            return min(self.FALLBACK_SIZE, max(self.COARSE_SIZE, long_side)), False
        size = long_side * self.card_px / max(card, 1.0)
        size = int(np.clip(round(size / 32) * 32, self.COARSE_SIZE, self.MAX_SIZE))
        return size, abs(size - seen) <= 0.15 * seen

    def _first_look(self, frame: np.ndarray):
        """The pass the frame's scale is judged from, and its size: the coarse pass, unless it
        saw only "cards" so large that the frame would be read at the coarse size itself and
        yet no index shows in any of them. Cards laid side by side in rows (a whole deck laid
        out to check it) merge into a few such boxes when the frame is read that small, and a
        pass at that size sees no index at all; so a pass at `FALLBACK_SIZE` looks, and
        judges the scale instead where it sees the cards much smaller (`_rescale`). A
        close-up's lone card is as large as it looked and is judged as before."""
        coarse = self._run_detector(frame, self.COARSE_SIZE)
        idx, cards = coarse[0], coarse[2]
        if not len(cards) or _centres_inside(idx, cards).any():
            return coarse, self.COARSE_SIZE
        size = self._pick_size(frame, coarse)[0]
        wide = min(self.FALLBACK_SIZE, (max(frame.shape[:2]) + 31) // 32 * 32)
        if size > self.COARSE_SIZE * 1.15 or wide <= self.COARSE_SIZE:
            return coarse, self.COARSE_SIZE  # cards of a size whose indices are read fitted
        wider = self._run_detector(frame, wide)
        if len(wider[2]) > len(cards) and self._rescale(frame, wider, wide, size):
            return wider, wide  # it sees more cards, and much smaller: they had merged
        return coarse, self.COARSE_SIZE  # a close-up: its card is as large as it looked

    def _rescale(
        self, frame: np.ndarray, found, seen: int, size: int, least: int | None = None
    ) -> int | None:
        """The larger size a pass at `seen` px calls for, where it saw at least `least`
        (`RESCALE_MIN_CARDS`) cards much smaller than `size` took them for (`RESCALE_ABOVE`):
        many cards side by side that had merged into a few boxes. None otherwise (a close-up's
        lone card, a webcam frame's stray boxes: photo sets unchanged, models/HISTORY.md)."""
        if len(found[2]) < (least or self.RESCALE_MIN_CARDS):
            return None
        again = self._pick_size(frame, found, seen)[0]
        return again if again >= size * self.RESCALE_ABOVE else None

    def _detect_scaled(self, frame: np.ndarray):
        if self.det_size:
            return self._run_detector(frame, self.det_size)
        coarse, seen = self._first_look(frame)
        size, reuse = self._pick_size(frame, coarse, seen)
        region = self._region(frame, coarse) if self.roi else None
        found = coarse if reuse else self._run_detector(frame, size, region, weak=True)
        # the scale judged again from the fitted pass: where it sees more cards, and much
        # smaller, than the first look took for cards (cards side by side that merged into a
        # few boxes there), the frame is read again at the size that suits them. Where the
        # first look saw no card at all (a patterned cloth hides them when read that small)
        # the size was a guess: twice as many cards must agree (specks read as a few small
        # "cards" in an unfiltered speckled photo)
        again = None
        if len(found[2]) > len(coarse[2]):
            most = 1 if len(coarse[2]) else 2
            again = self._rescale(frame, found, size, size, most * self.RESCALE_MIN_CARDS)
        if again:
            size, region = again, self._region(frame, found) if self.roi else None
            found = self._run_detector(frame, size, region, weak=True)
        found = self._small_look(frame, found, size, region)
        found = self._other_views(frame, found, size, region)
        return self._bare_look(frame, found, size, region)

    def _small_look(self, frame: np.ndarray, found, size: int, region):
        """The boxes of a second pass `small_look` times smaller than the fitted one (never under
        the coarse size) joined to the fitted pass's, overlaps kept once (the surer box). A
        blurred frame's indices (a webcam's) are found surer when read smaller; a sharp frame
        loses little (tuning sets: rendered bellot 0.913 -> 0.912, rendered knoll 0.958 ->
        0.960, trained-on phone photos 0.926 -> 0.934; models/HISTORY.md)."""
        small = max(self.COARSE_SIZE, round(size * self.small_look / 32) * 32)
        if self.small_look >= 1.0 or small >= size:
            return found
        more = self._run_detector(frame, small, region, weak=True)
        # (dropping the weak boxes and fragments of the joined set again, as within one pass,
        # lost more than it saved: tuning sets 0.914 -> 0.904 / 0.958 -> 0.953 / 0.938 -> 0.940)
        idx, idx_conf = _union(found[0], found[1], more[0], more[1])
        cards, card_conf = _union(found[2], found[3], more[2], more[3])
        return [idx, idx_conf, cards, card_conf]

    def _other_views(self, frame: np.ndarray, found, size: int, region):
        """The boxes of passes over the frame seen otherwise, mirrored left to right at
        `mirror_look` times the fitted size and turned half round at `turn_look` times it (0:
        not read), each box brought back into the frame: their index boxes join the found ones
        only where none of those overlaps them by IoU `OTHER_VIEW_NEW_IOU` or more, their card
        boxes join by NMS. The detector's grid and learnt shapes fall differently on an index
        seen otherwise, so it finds some it missed (a card seen with no index is the largest
        loss on every set); a box it merely puts elsewhere on a found index is left out (joined
        by plain NMS, such doubled boxes were read as extra cards; models/HISTORY.md)."""
        h, w = frame.shape[:2]
        for turned, factor in ((False, self.mirror_look), (True, self.turn_look)):
            if not factor:
                continue
            seen = frame[::-1, ::-1] if turned else frame[:, ::-1]
            at = max(self.COARSE_SIZE, round(size * factor / 32) * 32)
            where = region
            if region is not None:
                x1, y1, x2, y2 = region
                where = (w - x2, h - y2, w - x1, h - y1) if turned else (w - x2, y1, w - x1, y2)
            more = self._run_detector(np.ascontiguousarray(seen), at, where, weak=True)
            for k in (0, 2):
                more[k][:, [0, 2]] = w - more[k][:, [2, 0]]
                if turned:
                    more[k][:, [1, 3]] = h - more[k][:, [3, 1]]
            new = np.array(
                [all(_iou(m, f) < self.OTHER_VIEW_NEW_IOU for f in found[0]) for m in more[0]],
                bool,
            )
            found = [
                np.concatenate([found[0], more[0][new]]),
                np.concatenate([found[1], more[1][new]]),
                *_union(found[2], found[3], more[2], more[3]),
            ]
        return found

    def _bare_look(self, frame: np.ndarray, found, size: int, region):
        """Where a card was found with no index inside it and the frame was read smaller than
        it is, read it again `BARE_LOOK` times larger (at most its own size) and add the indices
        found inside those cards only. A deck whose indices are small for its cards is missed at
        the fitted scale (real overhead photos: card-set F1 0.968 -> 0.977); a frame whose cards
        all show an index costs nothing more."""
        idx, idx_conf, cards, card_conf = found
        native = (max(frame.shape[:2]) + 31) // 32 * 32
        bigger = min(round(size * self.bare_look / 32) * 32, native, self.MAX_SIZE)
        if not len(cards) or bigger <= size:
            return found
        bare = ~_centres_inside(idx, cards).any(axis=0)
        if not bare.any():
            return found
        more, more_conf = self._run_detector(frame, bigger, region)[:2]
        keep = _centres_inside(more, cards[bare]).any(axis=1)
        idx, idx_conf = (
            np.concatenate([idx, more[keep]]),
            np.concatenate([idx_conf, more_conf[keep]]),
        )
        return [idx, idx_conf, cards, card_conf]

    def _region(self, frame: np.ndarray, coarse) -> tuple[int, int, int, int] | None:
        """The part of the frame worth the fitted detector pass: every card or index the coarse
        pass saw, widened by `ROI_MARGIN` card lengths (a card the coarse pass half saw lies
        near one it saw); None when that is most of the frame anyway."""
        card = self._card_length(coarse)
        if card is None:
            return None
        boxes = np.concatenate([coarse[0], coarse[2]])
        h, w = frame.shape[:2]
        m = self.ROI_MARGIN * card
        x1, y1 = max(0, int(boxes[:, 0].min() - m)), max(0, int(boxes[:, 1].min() - m))
        x2, y2 = min(w, int(boxes[:, 2].max() + m)), min(h, int(boxes[:, 3].max() + m))
        if (x2 - x1) * (y2 - y1) > self.ROI_MAX_SHARE * w * h:
            return None
        return x1, y1, x2, y2

    def _run_detector(
        self,
        frame: np.ndarray,
        det_size: int,
        region=None,
        weak: bool = False,
        floor: float | None = None,
    ):
        """Detector boxes (frame pixels) and scores, index and card, at `det_size`; with a
        `region` only that part of the scaled frame is read, cut on the detector's 32 px grid
        so what lies inside is seen exactly as in a whole-frame pass. Index boxes are kept
        from `index_conf`, from `low_index_conf` where `weak`, from `floor` where given."""
        h, w = frame.shape[:2]
        scale = det_size / max(h, w)
        nw, nh = max(32, round(w * scale)), max(32, round(h * scale))
        img = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
        ox = oy = 0
        if region is not None:
            x1, y1, x2, y2 = region
            ox, oy = int(x1 * nw / w) // 32 * 32, int(y1 * nh / h) // 32 * 32
            img = img[
                oy : min(nh, int(np.ceil(y2 * nh / h))), ox : min(nw, int(np.ceil(x2 * nw / w)))
            ]
        ih, iw = img.shape[:2]
        pw, ph = (iw + 31) // 32 * 32, (ih + 31) // 32 * 32
        canvas = np.full((ph, pw, 3), 114, np.uint8)
        canvas[:ih, :iw] = img
        out = self.det.run(None, {self._det_in: _net_input(canvas[None])})[0][0]  # (4+nc, N)
        boxes_c = out[:4].T
        scores = out[4:].T
        sx, sy = w / nw, h / nh
        result = []
        low = min(self.low_index_conf, self.index_conf) if weak else self.index_conf
        low = low if floor is None else floor
        for k, thr in ((0, low), (1, self.card_conf)):
            keep = scores[:, k] >= thr
            b = boxes_c[keep]
            s = scores[keep, k]
            xyxy = (
                np.stack(
                    [
                        b[:, 0] - b[:, 2] / 2,
                        b[:, 1] - b[:, 3] / 2,
                        b[:, 0] + b[:, 2] / 2,
                        b[:, 1] + b[:, 3] / 2,
                    ],
                    axis=1,
                )
                if len(b)
                else np.zeros((0, 4), np.float32)
            )
            if len(xyxy):
                xyxy, s = _nms(xyxy, s, thr)
                if k == 0:
                    xyxy, s = _strong_first(xyxy, s, self.index_conf)
            xyxy = (xyxy + np.array([ox, oy, ox, oy], np.float32)) * np.array(
                [sx, sy, sx, sy], np.float32
            )
            xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
            xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
            result += [xyxy, s]
        return result

    @staticmethod
    def _card_box(members: list[IndexHit], cards, w: int, h: int) -> tuple[list[float], bool]:
        """The smallest detected card holding every member's centre; else, for a card's two
        corners, the box they span, each side at least `CORNERS_TO_SIDE` times their
        distance (two corners of a card lying aslant span a thin strip); else, for one index,
        a square guessed around it (True: the card may lie on any side of it)."""
        centres = [((m.box[0] + m.box[2]) / 2, (m.box[1] + m.box[3]) / 2) for m in members]
        best = None
        for box, _conf in cards:
            bw, bh = box[2] - box[0], box[3] - box[1]
            mx, my = 0.05 * bw, 0.05 * bh
            if all(
                box[0] - mx <= x <= box[2] + mx and box[1] - my <= y <= box[3] + my
                for x, y in centres
            ):
                area = bw * bh
                if best is None or area < best[0]:
                    best = (area, box)
        if best is not None:
            return [float(v) for v in best[1]], False
        xs = [v for m in members for v in (m.box[0], m.box[2])]
        ys = [v for m in members for v in (m.box[1], m.box[3])]
        if len(members) > 1:
            (ax, ay), (bx, by) = centres[:2]
            least = CORNERS_TO_SIDE * float(np.hypot(bx - ax, by - ay))
            box = [min(xs), min(ys), max(xs), max(ys)]
            for lo, size in ((0, w), (1, h)):  # the thin side widened about its middle
                grow = max(0.0, least - (box[lo + 2] - box[lo])) / 2
                box[lo], box[lo + 2] = max(0.0, box[lo] - grow), min(size, box[lo + 2] + grow)
            return box, False
        cx, cy = centres[0]
        side = 2.5 * max(max(xs) - min(xs), max(ys) - min(ys))
        box = [max(0.0, cx - side), max(0.0, cy - side), min(w, cx + side), min(h, cy + side)]
        return box, True


_COURTS = [10, 11, 12]  # J, Q, K among the 13 ranks of `vision.deck.CODES`


CORNER_PRINT_REACH = 1.5  # index lengths from a corner's centre within which its print lies
CORNER_PRINT_SURE = 0.95  # a read this sure is an index, never a corner's print


def _corner_print(card: list[IndexHit], other: list[IndexHit]) -> bool:
    """Whether `other`, a lone index read in or near the box of a card read from both corners
    (`card`: two hits naming one code), is that card's own print beside a corner: it names the
    card's suit, its centre lies within `CORNER_PRINT_REACH` index lengths of a corner's, and
    it is read less than `CORNER_PRINT_SURE` (a print read as an index was 0.72; a jack of
    the same suit lying by a three's corner in a heap read 0.99)."""
    if len(card) != 2 or len(other) != 1 or card[0].code != card[1].code:
        return False
    (hit,) = other
    if hit.code[1] != card[0].code[1] or hit.prob >= CORNER_PRINT_SURE:
        return False
    hx, hy = (hit.box[0] + hit.box[2]) / 2, (hit.box[1] + hit.box[3]) / 2
    for corner in card:
        side = max(corner.box[2] - corner.box[0], corner.box[3] - corner.box[1])
        cx, cy = (corner.box[0] + corner.box[2]) / 2, (corner.box[1] + corner.box[3]) / 2
        if np.hypot(hx - cx, hy - cy) <= CORNER_PRINT_REACH * side:
            return True
    return False


MIRROR_OFF = 0.1  # box diagonals a card's corner may lie off its mirror image's place
OUTSIDE_REACH = 1.0  # index lengths outside a card's box within which its cut-off corner lies
# a card's box over the distance between its two corner indices' centres (rendered bellot and
# aguilar cards): its long side 1.06-1.31 at any angle, its short side 0.77 upright (median)
# and 1.21 at 35 degrees
CORNERS_TO_SIDE = 0.9


def _just_outside(hit: IndexHit, box) -> bool:
    """Whether an index's centre lies outside a card box by at most `OUTSIDE_REACH` index
    lengths (a corner the box was cut short of)."""
    return 0.0 < index_lengths_outside(hit.box, box) <= OUTSIDE_REACH


def _opposite_corner(hit: IndexHit, hits: list[IndexHit], box) -> bool:
    """Whether another index read as the same code lies, inside `box`, where `hit` mirrored
    about the box's centre lies (`_mirrored`): `hit` and it are that card's two corners."""
    held = np.array([box], np.float64)
    return any(
        _mirrored(hit, o, box)
        for o in hits
        if o is not hit
        and o.code == hit.code
        and _centres_inside(np.array([o.box], np.float64), held)[0, 0]
    )


def _mirrored(a: IndexHit, b: IndexHit, box) -> bool:
    """Whether `b`'s centre lies where `a`'s, mirrored about the centre of `box`, lies (within
    `MIRROR_OFF` of the box's diagonal): the place of the corner opposite `a` on a card so
    boxed."""
    mirror = [
        box[0] + box[2] - (a.box[0] + a.box[2]) / 2,
        box[1] + box[3] - (a.box[1] + a.box[3]) / 2,
    ]
    off = np.hypot(mirror[0] - (b.box[0] + b.box[2]) / 2, mirror[1] - (b.box[1] + b.box[3]) / 2)
    return bool(off <= MIRROR_OFF * np.hypot(box[2] - box[0], box[3] - box[1]))


def _pair_up(hits: list[IndexHit], can_pair) -> list[list[IndexHit]]:
    """Greedy, surest index first: each joins the first earlier one it can be the other corner
    of (`can_pair(a, b)`), two to a card; the rest stand alone."""
    pairs: list[list[IndexHit]] = []
    for hit in sorted(hits, key=lambda m: -m.det_conf):
        for pair in pairs:
            if len(pair) < 2 and can_pair(pair[0], hit):
                pair.append(hit)
                break
        else:
            pairs.append([hit])
    return pairs


def _net_input(bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 images (N, H, W, 3) as the networks read them: (N, 3, H, W) RGB float32 in
    [0, 1]. The channels are reordered on the bytes and divided in place, the same values as
    converting the strided view (4.6x faster on a 960x544 detector input, 1.4 ms)."""
    x = np.ascontiguousarray(bgr.transpose(0, 3, 1, 2)[:, ::-1]).astype(np.float32)
    x /= np.float32(255.0)
    return x


def _quarter(crops: np.ndarray, k: int) -> np.ndarray:
    """Square crops (N, s, s, 3) turned k quarter turns."""
    return np.ascontiguousarray(np.rot90(crops, k, (1, 2)))


def _centres_inside(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(len(points), len(boxes)) booleans: whether the centre of point box i lies in box j."""
    if not len(points) or not len(boxes):
        return np.zeros((len(points), len(boxes)), bool)
    cx = (points[:, 0:1] + points[:, 2:3]) / 2
    cy = (points[:, 1:2] + points[:, 3:4]) / 2
    return (
        (cx >= boxes[None, :, 0])
        & (cx <= boxes[None, :, 2])
        & (cy >= boxes[None, :, 1])
        & (cy <= boxes[None, :, 3])
    )


def _nms(boxes: np.ndarray, conf: np.ndarray, score_min: float = 0.0, iou: float = 0.5):
    """Boxes (x1, y1, x2, y2) scored above `score_min` after non-maximum suppression: of boxes
    overlapping more than `iou`, the surer is kept."""
    if not len(boxes):
        return boxes, conf
    xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
    keep = np.array(cv2.dnn.NMSBoxes(xywh.tolist(), conf.tolist(), score_min, iou)).reshape(-1)
    return boxes[keep], conf[keep]


def _union(a: np.ndarray, a_conf: np.ndarray, b: np.ndarray, b_conf: np.ndarray):
    """Two passes' boxes as one set (`_nms`: of two overlapping boxes the surer is kept)."""
    return _nms(np.concatenate([a, b]), np.concatenate([a_conf, b_conf]))


def _plausible_indices(idx: np.ndarray, cards: np.ndarray, most: float) -> np.ndarray:
    """Indices of the index boxes that could be a card's corner index: where whole cards are
    seen, none may be longer than `most` of the largest of them (a face or a shirt read as
    one huge "index" in a webcam frame); with no card seen (a close-up) all are kept."""
    if not len(idx) or not len(cards):
        return np.arange(len(idx))
    card = float((cards[:, 2:] - cards[:, :2]).max())
    sides = (idx[:, 2:] - idx[:, :2]).max(axis=1)
    return np.flatnonzero(sides <= most * card)


EDGE_PX = 2.0  # a box this near the image's edge is cut by it


def _plausible_cards(
    cards: np.ndarray, idx: np.ndarray, least: float, w: int, h: int
) -> np.ndarray:
    """Indices of the card boxes that could be a card: not one whose long side is under
    `least` times the long side of an index whose centre it holds (the index itself boxed as
    a card: it tells no more than the index, which is read as a lone one), unless the box
    touches the image's edge (a card mostly outside the frame)."""
    if not len(cards) or not len(idx):
        return np.arange(len(cards))
    edge = (
        (cards[:, 0] <= EDGE_PX)
        | (cards[:, 1] <= EDGE_PX)
        | (cards[:, 2] >= w - EDGE_PX)
        | (cards[:, 3] >= h - EDGE_PX)
    )
    card_side = (cards[:, 2:] - cards[:, :2]).max(axis=1)
    index_side = (idx[:, 2:] - idx[:, :2]).max(axis=1)
    holds = _centres_inside(idx.astype(np.float64), cards.astype(np.float64))  # (idx, cards)
    longest = np.where(holds, index_side[:, None], 0.0).max(axis=0)
    return np.flatnonzero(edge | (card_side >= least * longest))


def _strong_first(boxes: np.ndarray, scores: np.ndarray, strong: float):
    """Index boxes after NMS: those scored at least `strong` as before (fragments dropped),
    and the weaker ones only where they overlap none of those (their own fragments dropped)."""
    hi = scores >= strong
    sb, ss = boxes[hi], scores[hi]
    keep = _drop_fragments(sb)
    sb, ss = sb[keep], ss[keep]
    wb, ws = boxes[~hi], scores[~hi]
    if len(wb):
        alone = np.array([all(_iou(w, b) < 0.1 for b in sb) for w in wb], bool)
        alone &= ~_centres_inside(wb.astype(np.float64), sb.astype(np.float64)).any(axis=1)
        alone &= ~_centres_inside(sb.astype(np.float64), wb.astype(np.float64)).any(axis=0)
        wb, ws = wb[alone], ws[alone]
        keep = _drop_fragments(wb)
        wb, ws = wb[keep], ws[keep]
    return np.concatenate([sb, wb]), np.concatenate([ss, ws])


def _drop_fragments(boxes: np.ndarray, inside: float = 0.6) -> np.ndarray:
    """Indices of the boxes to keep: a box lying mostly (`inside` of its area) within a larger
    one is a fragment of it (the rank or the suit alone, found beside the whole index)."""
    if len(boxes) < 2:
        return np.arange(len(boxes))
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    x1 = np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    y1 = np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    x2 = np.minimum(boxes[:, None, 2], boxes[None, :, 2])
    y2 = np.minimum(boxes[:, None, 3], boxes[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    np.fill_diagonal(inter, 0)
    # fragment[i, j]: box i lies within box j, and j is the larger
    fragment = (inter >= inside * area[:, None]) & (area[None, :] > area[:, None])
    return np.flatnonzero(~fragment.any(axis=1))
