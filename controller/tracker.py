"""From camera frames to settled floor snapshots: motion gating, occlusion, confidence, one deck.

Every frame gets a cheap motion test (a downscaled grey image differenced with the last one);
the recogniser runs only once the table has been still for a moment and looks different from
the last snapshot; reads are accumulated until they agree, then one `Snapshot` is emitted.

One physical deck (RULES R1.1): a detection whose code cannot be there (captured or played
earlier this round: `FloorTracker.gone`, set by the Table; or lying untouched elsewhere on the
floor; or already named in this read) is re-read as the classifier's best runner-up that can
be (`Detection.alts`); with no plausible runner-up it is a guess (`Snapshot.unsure`: its turn is
held as `unreadable`), with none at all it is counted in `Snapshot.unreadable` (a prompt).

Swapping the recogniser's model needs no recalibration: the confidence thresholds are fractions
of the learnt reference (the median confidence of the cards read so far; the Table feeds it
the confidences it logs, so a resumed table has the same thresholds). Set
`TrackerConfig.reference` only to pin it (1.0 makes `accept`/`sure`/`doubt` absolute).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from controller.table_geometry import FLOOR, TableGeometry
from controller.turns import Snapshot
from vision.boxes import index_lengths_outside, iou
from vision.cleanup import WHITE_SHARE, exposure_gain

# A card box whose inner part changed at most this much since the last snapshot is untouched.
UNTOUCHED_MOST = 0.04
# A known card's box read this many times larger, over another card's centre, is two cards
# boxed as one (a card's box turns at most 1.4 times larger as the card turns 45 degrees)
SWALLOW_GROWTH = 1.5
# A known card's box read unsurely overlapping its known place less than this (intersection
# over union), neither holding nor lying within KNOWN_WITHIN of the other, is read off its
# place: the card keeps its known box (cards lie still till taken)
MOVED_IOU = 0.5
KNOWN_WITHIN = 0.8
FAINT_GUESSES_KEPT = 8  # faint reads' boxes guessed around an index, remembered for `adopt`
# Two reads whose card boxes overlap this much (intersection over union) lie at one place: one
# card (a card laid on another covers it, and it is not read there any more)
ONE_PLACE_IOU = 0.8
# ... and at this much, however sure the new read: a card laid on another is never that well
# aligned with it (two reads of one card, its corners read as two codes)
SAME_BOX_IOU = 0.95
# a closer look's box overlapping a card the first look named by this share of the smaller
# box, its read listing that card's code: that card seen again (a tossed queen's box cut
# short in one look and read as another suit in the other: 45 %)
SECOND_LOOK_SHARE = 0.4
# a closer look's box of a card the first look named, read as that card at least as surely,
# holding this share of the first box and at most GROWN_MOST times its area: the card's whole
# box, the first cut short (a tossed 9C boxed 105x108 px, read whole at 133x133 holding 95 %
# of it, at 0.3 of the light at 131x134 holding 89 %)
GROWN_HOLDS = 0.8
GROWN_MOST = 2.0
# Another card's index read inside a card's box tells a card landed there where that box
# changed by this share or more (a 5D tossed over the corner of an 8C: 0.30 of the 8C's box,
# 0.296 at 0.3 of the light; its far corner over the TH beside it: 0.18) ...
INSIDE_CHANGED = 0.1
# ... and that index is read at least this share as surely as the card whose box holds it
# (the 5D 0.23, the 8C whose corner it covered 0.24; a KC read in the figure of a QD read
# 0.65 sure, as a 4C beside it was scooped: 0.13)
INSIDE_AS_SURE = 0.5
# A read of a card's own code holding this share of its known box reads it at its place
# (a tossed QH adopted from a faint read at its lower corner, read again over its top: 37 %)
KNOWN_HELD = 0.3
# A weaker new read whose box holds a surer read's lone corner index (the card only guessed
# around it), or lies at most this many index lengths beside it, is that card's body boxed
# short of its corner: one card (a QH tossed aslant read from its lower index, its body boxed
# apart, the box's edge 0.6 index lengths above it, read KC 0.18: a phantom KC in a deal)
INDEX_BESIDE = 1.0
# Two lone corner indices read as one code (each box only guessed around its index), their
# centres at most this many index lengths apart, are one card's two corners read apart (a
# card's long side is about 5 index lengths, its diagonal 6: a tossed QS read from one corner
# by the whole view's read and from the other by a closer look, 5.4 index lengths apart,
# counted a QS trail and a QC foul)
CORNERS_APART = 6.5
# A new read whose box lies inside a known card's (this share of it inside) and is at most
# this share of its size is a part of that card seen alone (a 6S's lower half boxed apart as
# a 7H landed beside it, 56 % of its box, read TS 0.47 with 6S 0.28): with the card's code
# among its unsure read's codes, it is that card misread, not a card laid on it
PART_INSIDE = 0.8
PART_AREA = 0.75
# ... and at most this share of its size, whatever its unsure read names: a part this small is
# never a card laid on it (a QH's corner boxed alone as a scoop beside it lifted two cards,
# 14 % of its box, read JD 0.72 at 0.19: a phantom JD played)
PART_ALONE = 0.3
# A card may have landed where this share of its box's inner part changed since the last
# snapshot, in detail or in colour (a QH tossed aslant on a check of its own grey, its box
# half over the cloth beside it: the detail of 0.26 of that box changed, the colour of 0.36)
LANDED_SHARE = 0.3
# A card missed by a read at a place that changed, beside cards that landed or left, is judged
# by the rest of its place when at least this share of its inner part lies outside their
# reach (`FloorTracker._beside_changes`)
BESIDE_REST = 0.25
# ... and is still there when that rest changed at most this share, in detail and in colour
# (a card lying untouched beside them: none of it; a QD swept with the cards beside it, its
# box looser than the card: 0.26 of the rest in detail, 0.31 in colour)
BESIDE_STILL = 0.15
# A missed card whose place changed less than `lifted_change` but at least this share, as
# much as a card landing there changes (a lift is a landing undone), with nothing new near it
# and nothing read there, was lifted: a white card off a pale check (0.32-0.57 of its place
# on held-out pale checks; a card beside a landing one changes up to 0.3: `_lifted_alone`)
LIFTED_ALONE = LANDED_SHARE
# how far (motion image pixels) a card's edge changes the motion image's detail beside it
# (`_detail`'s 9 x 9 blur after a 3 x 3 one)
DETAIL_REACH = 5


@dataclass
class TrackerConfig:
    small_width: int = 160  # motion is judged on a grey image this wide
    pixel_threshold: float = 7.0  # grey-level change that counts as moving (after blur)
    motion_fraction: float = 0.0015  # share of floor pixels that must change to be "motion"
    settle_s: float = 0.1  # still this long before the recogniser runs ...
    settle_frames: int = 2  # ... and for at least this many frames (a hand may pause)
    min_reads: int = 1  # reads accumulated before a snapshot may be accepted
    max_reads: int = 4  # give up waiting for agreement after this many
    # Confidence thresholds are FRACTIONS of the reference confidence: the median confidence of
    # the cards accepted so far (a true read's typical confidence). The tracker learns it from
    # the reads themselves, so a retrained recogniser whose confidences shift needs no
    # recalibration. `reference` fixes it instead (1.0 makes the fractions absolute).
    accept: float = 0.4  # mean confidence over the reads for a NEW card to be on the floor
    sure: float = 0.85  # a card read this surely needs no second read
    doubt: float = 0.22  # a mean between doubt and sure asks for another read (until two
    # reads in a row agree: the frames of a still table barely differ, more reads add nothing)
    accept_landed: float = 0.25  # ... for a new card where the pixels changed (it landed there)
    # A card's untouched place read surely as another code, at least this much surer than the
    # code it was given: the earlier read was the misread, the card is renamed (goal: a later
    # correct read of the same physical card corrects an earlier misread).
    reread_margin: float = 0.15
    reference: float | None = None  # None: learnt from the reads; a number: fixed
    reference_start: float = 0.45  # the prior for the learnt reference (worth 3 reads)
    reference_window: int = 60  # accepted card confidences the learnt reference remembers
    # One physical deck (RULES R1.1): a code that cannot be there (captured or played earlier
    # this round, or lying elsewhere on the floor) is re-read as the classifier's best runner-up
    # that is still possible, if that one has at least this share of the pooled probability.
    alt_min_share: float = 0.08
    crop_margin: float = 0.04  # the recogniser sees the floor's box plus this margin
    arm_patience_s: float = 1.5  # a "hand" still over the edge this long in all is read anyway
    # ... before a restarted tracker's first read, told against the first frame it saw, which
    # may hold a hand itself (then every view after differs there as if a hand stayed): short
    # (hands pausing over the floor paused 0.1 s at a time in rendered matches; 0.6 s left a
    # card's whole still view unread after 2 of 908 restarts, 0.3 after none)
    boot_patience_s: float = 0.3
    arm_depth: float = 0.05  # ... a hand reaches at least this far (share of the frame's
    # width) past the floor's edge: a players' pile spilling over the line is no hand
    focus_reads: bool = True  # read again, closer, where something new lies unread
    focus_min_px: int = 25  # ... if at least this many changed motion pixels (a card: ~140)
    focus_wider: float = 2.0  # ... and again this many card heights around it if nothing there
    # a new card read too faintly to accept even where it landed is read again closer, this
    # many of its box's longer side around it (a card tossed aslant on a checked cloth: its
    # indices missed in the floor view, its crown's jewel read K; closer, both corners read)
    faint_closer: float = 0.5
    # A card no read names any more is gone only if most of its place changed (a lifted card:
    # 0.87-0.97 of it, measured on rendered matches; a card beside a landing one: up to 0.3)
    lifted_change: float = 0.6
    # ... of its detail (edges, pips: a light change is none), or of its colour changed by
    # this much beyond the whole floor's change: a card lifted off a cloth whose colours are
    # of its grey (a pip-dense card on a yellow and green gingham) changes little detail
    lifted_level: float = 40.0
    # ... in a view brought up as the recogniser brings up a dark frame (its `expose_white`:
    # a card's paper at 0.3 of full light changed only 0.06 of a lifted QH's colour)
    expose_white: float = 235.0
    covered_share: float = 0.5  # ... or it lies under a new card covering this much of it


@dataclass
class Read:
    """One recogniser pass: the best confidence per card code on the floor."""

    t: float
    floor: dict[str, float]
    others: dict[str, float]
    boxes: dict[str, list[float]] = field(default_factory=dict)  # floor cards, frame pixels
    # floor cards whose code is a best guess: every plausible reading was impossible (one deck)
    unsure: set[str] = field(default_factory=set)
    # floor detections that no possible code names: (box, confidence)
    unreadable: list[tuple[list[float], float]] = field(default_factory=list)
    # floor detections whose best read names a code gone this round: code -> confidence
    gone_named: dict[str, float] = field(default_factory=dict)
    # what each floor detection's classifier said: named code -> [(code, share), ...], and
    # the same for the detections no possible code names (their boxes' order)
    alts: dict[str, list] = field(default_factory=dict)
    unreadable_alts: list[list] = field(default_factory=list)
    # floor cards whose box is only a guess around their one index read: that index's box
    index: dict[str, list[float]] = field(default_factory=dict)
    # floor detections read as another code in the very box of a card named here: another
    # card's index inside that card's box (the recogniser keeps the box around it), its own
    # body not found: (box, confidence, alts), and that card's confidence
    inside: list[tuple[list[float], float, list, float]] = field(default_factory=list)

    def take(self, code: str) -> tuple:
        """Remove a floor card's read; what `put` needs to bring it back."""
        parts = (self.floor, self.boxes, self.alts, self.index)
        return tuple(d.pop(code, None) for d in parts) + (code in self.unsure,)

    def put(self, code: str, taken: tuple) -> None:
        """Bring back a floor card's read removed by `take`."""
        for d, v in zip((self.floor, self.boxes, self.alts, self.index), taken[:4], strict=True):
            if v is not None:
                d[code] = v
        if taken[4]:
            self.unsure.add(code)
        else:
            self.unsure.discard(code)


@dataclass
class FloorTracker:
    """Feed frames (or observations), get settled `Snapshot`s of the floor.

    `recognize(image, t)` is `vision.recognizer.Recognizer.observe` or anything returning an
    object with `.cards` of detections having `.code`, `.confidence` and `.box` (and, for the
    one-deck re-read, `.alts`: the classifier's top codes with their shares, surest first).
    """

    geometry: TableGeometry
    recognize: Callable[[np.ndarray, float], Any] | None = None
    config: TrackerConfig = field(default_factory=TrackerConfig)
    frames: int = 0
    reads_done: int = 0
    last_read: Read | None = None
    last_observation: Any = None
    _prev: np.ndarray | None = None
    _prev_t: float = 0.0
    _ref: np.ndarray | None = None
    _still_since: float | None = None
    _reads: list[Read] = field(default_factory=list)
    _done: bool = False
    _still_frames: int = 0
    _still_ref: np.ndarray | None = None
    _size: tuple[int, int] | None = None
    _mask: np.ndarray | None = None
    _inner: np.ndarray | None = None
    _deep: np.ndarray | None = None
    _border: tuple[np.ndarray, np.ndarray] = (np.zeros(0, int), np.zeros(0, int))
    moving: bool = False
    cards: dict[str, list[float]] = field(default_factory=dict)  # last snapshot's card boxes
    # ... of those whose box is only a guess around one index (`Detection.index`), that index
    _index: dict[str, list[float]] = field(default_factory=dict)
    kept: int = 0  # cards kept from pixels when a read disagreed (misread or missed)
    # cards of the last snapshot no read named at a place that changed, kept as still there
    # (the change too small for a lift), and since then named by no read: `Snapshot.unread`
    _unread: set[str] = field(default_factory=set)
    # the boxes of faint reads (`Snapshot.faint_box`) only guessed around one index: that
    # index, for a faint card its owner then `adopt`s there (the latest few)
    _faint_guesses: dict[tuple[float, ...], list[float]] = field(default_factory=dict)
    focus_reads: int = 0  # closer second looks at unexplained changes
    # One physical deck: codes that cannot be on the floor now (played or captured earlier
    # this round and not lying there). The Table keeps this up to date after every event.
    gone: frozenset[str] = frozenset()
    # Dealt cards the dealer was asked to take back to the deck (R1.3: a J, or the 7D outside
    # Lebanese, on the dealt floor). The Table keeps this up to date with its open prompts: a
    # new card over one's place is its replacement laid where it lay, not a card laid on it.
    returning: frozenset[str] = frozenset()
    rereads: int = 0  # detections re-read as a runner-up because their code was impossible
    renames: list[tuple[str, str]] = field(default_factory=list)  # (earlier code, better code)
    _known_conf: dict[str, float] = field(default_factory=dict)  # last snapshot's confidences
    # a restarted controller's cards from its log (`resume`), until its first snapshot; and
    # those its first still view missed (no read at their places), kept only where read,
    # with that view's snapshot, held back (`_withheld`)
    _resumed: frozenset[str] = frozenset()
    # ... and whether each card new in its first view was laid since its log's floor (a
    # restart in a deal: the log's floor was cleared, or lay as logged; `resume(dealt=True)`)
    _dealt_since: bool = False
    _unconfirmed: frozenset[str] = frozenset()
    _held_back: Snapshot | None = None
    # ... and whether that view read a card new (a card laid as the controller came back: the
    # view is given back whatever the next one reads, that play is not lost; `_hold`)
    _held_new: bool = False
    # of the resumed cards, those the live tracker kept with no read naming them: trusted
    _resumed_unnamed: frozenset[str] = frozenset()
    # ... and the card its log holds laid, its capture not yet seen (`resume`)
    _resumed_laid: str | None = None
    # the cards of the last snapshot that no read of its view named (kept for their places'
    # stillness): a restarted controller's log tells them (`resume`)
    unnamed: frozenset[str] = frozenset()
    # the view read after a held-back one given back first: the owner takes it next, at once
    queued: Snapshot | None = None
    merged: int = 0  # detections dropped as a second look at a card already named
    # The learnt reference: from this tracker's own snapshots (`learn`), or fed by its owner
    # through `calibrate` (the Table feeds the confidences it logs, so a resumed table that
    # replays its log has exactly the same thresholds).
    learn: bool = True
    _confs: list[float] = field(default_factory=list)  # accepted cards' confidences (recent)
    _delta: np.ndarray | None = None  # this read's changed pixels since the last snapshot
    _lifted: np.ndarray | None = None  # ... and where its colour changed (`_lifted_mask`)
    _colour: np.ndarray | None = None  # this read's view in colour, at the motion image's size
    _ref_colour: np.ndarray | None = None  # ... and the last snapshot's
    # arms seen reaching in since the last snapshot: seat -> seconds of moving video
    # (`Snapshot.arms`)
    _arms: dict[int, float] = field(default_factory=dict)
    # still time a "hand" over the floor's edge has held the read since the last snapshot: in
    # earlier still periods, and in this one
    _arm_held: float = 0.0
    _arm_held_now: float = 0.0
    # a restarted tracker (`resume`) has no snapshot's view to tell an arm or a new card's place
    # by until its first read: the first frame it saw stands in (a first view read with a hand
    # over the edge would become the reference, every view after held as "a hand still
    # there"; a card laid since, missed by the whole view's read, would go unlooked-for)
    _boot_view: np.ndarray | None = None
    _boot_view_wanted: bool = False

    @property
    def _since(self) -> np.ndarray | None:
        """The view a change is judged against: the last snapshot's, or a restarted tracker's
        first frame until its first snapshot (`_boot_view`)."""
        return self._ref if self._ref is not None else self._boot_view

    # ---- thresholds -------------------------------------------------------------------------
    @property
    def reference(self) -> float:
        """A true read's typical confidence: fixed by the config, or the median of the cards
        accepted so far (with `reference_start` worth three reads as the prior)."""
        cfg = self.config
        if cfg.reference is not None:
            return cfg.reference
        recent = self._confs[-cfg.reference_window :]
        return float(np.median([cfg.reference_start] * 3 + recent))

    def calibrate(self, confidences) -> None:
        """Remember the confidences of cards known to be real (for the learnt reference)."""
        self._confs += [float(c) for c in confidences]
        del self._confs[: -self.config.reference_window]

    @property
    def accept(self) -> float:
        return self.config.accept * self.reference

    @property
    def sure(self) -> float:
        return self.config.sure * self.reference

    @property
    def doubt(self) -> float:
        return self.config.doubt * self.reference

    # ---- frames -----------------------------------------------------------------------------
    def feed(self, frame: np.ndarray, t: float) -> Snapshot | None:
        """One camera frame at video time `t`; returns a snapshot when the floor settles."""
        self.frames += 1
        small = self._small(frame)
        prev, prev_t = self._prev, self._prev_t
        self._prev, self._prev_t = small, t
        if self._boot_view_wanted:
            self._boot_view, self._boot_view_wanted = small, False
        if prev is None:
            self._still_since = t
            return None
        # Moving: changed since the last frame, or drifted since the still period began (a
        # hand slowing down changes little from frame to frame, but it adds up).
        frac = self.config.motion_fraction
        self.moving = self._changed(small, prev, frac) or (
            self._still_ref is not None and self._changed(small, self._still_ref, frac)
        )
        if self.moving:
            self._arm_held, self._arm_held_now = self._arm_held + self._arm_held_now, 0.0
            seat = self._arm_seat(small) if self._ref is not None else None
            if seat is not None:  # (each frame counts for the time it stands for: any frame rate)
                self._arms[seat] = self._arms.get(seat, 0.0) + (t - prev_t)
            self._still_since, self._reads, self._done = None, [], False
            self._still_frames, self._still_ref = 0, None
            return None
        if self._still_since is None:
            self._still_since = prev_t  # the still scene first appeared in the previous frame
            self._still_ref = prev
        self._still_frames += 1
        if (
            self._done
            or t - self._still_since < self.config.settle_s - 1e-6
            or self._still_frames < self.config.settle_frames
        ):
            return None
        if (
            not self._reads
            and self._ref is not None
            and not self._changed(_detail(small), _detail(self._ref), self.config.motion_fraction)
        ):
            self._done = True  # still, and the same as the last snapshot: nothing to read
            return None
        if not self._reads and self._since is not None:
            # A hand rests over the floor's edge: wait for it to leave, but not for longer than
            # `arm_patience_s` of still views since the last snapshot, however many plays
            # elsewhere cut them up (the "hand" may be one the last snapshot's view held,
            # gone since: every view differs from that one there, and none would be read)
            waited = t - self._still_since
            cfg = self.config
            patience = cfg.arm_patience_s if self._ref is not None else cfg.boot_patience_s
            if self._arm_held + waited < patience and self._arm_from_edge(small):
                self._arm_held_now = waited
                return None
        if self.recognize is None:
            return None
        self._colour = self._small_colour(frame)
        snap = self._read(frame, t, small)
        if snap is not None:
            self._ref, self._ref_colour = small, self._colour
            arms = tuple(sorted(self._arms.items()))
            if self.queued is not None:  # (a view held back, given back first: no arm seen)
                self.queued = replace(self.queued, arms=arms)
            else:
                snap = replace(snap, arms=arms)
            self._arms, self._arm_held, self._arm_held_now = {}, 0.0, 0.0
            self._boot_view = None
        return snap

    def feed_observation(self, obs: Any, size: tuple[int, int]) -> Snapshot | None:
        """One recogniser observation taken while the table was still (no motion gating)."""
        self._size = size
        self._delta = self._lifted = None
        read = self._to_read(obs, size, (0, 0))
        return self._accumulate(read)

    def read_afresh(self) -> None:
        """Forget the last snapshot (its cards, their places, the reference view): the next
        still view is read anew, every code possible again (the next round's deal)."""
        self.cards, self._known_conf = {}, {}
        self._resumed = self._unconfirmed = self._resumed_unnamed = frozenset()
        self._held_back, self._resumed_laid, self._held_new = None, None, False
        self._dealt_since = False
        self._ref, self._delta, self._ref_colour, self._lifted = None, None, None, None
        self._arm_held = self._arm_held_now = 0.0
        self._boot_view, self._boot_view_wanted = None, False
        self.reset_still()

    def reset_still(self) -> None:
        """Forget the reads of the current still period (start accumulating afresh)."""
        self._reads, self._done = [], False

    # ---- internals ------------------------------------------------------------------------
    def _small_colour(self, frame: np.ndarray) -> np.ndarray | None:
        """The frame in colour at the motion image's size (None: a grey camera)."""
        if frame.ndim != 3 or self._mask is None:
            return None
        size = (self._mask.shape[1], self._mask.shape[0])
        return cv2.resize(frame, size, interpolation=cv2.INTER_AREA).astype(np.float32)

    def _lifted_mask(self) -> np.ndarray | None:
        """Where the colour changed by `lifted_level` or more since the last snapshot, beyond
        what changed over the whole floor (a light change), as it would at full exposure (a
        dark view's change scaled up as the recogniser brings up its frame); None with no
        colour to tell."""
        now, ref = self._colour, self._ref_colour
        if now is None or ref is None or now.shape != ref.shape or self._mask is None:
            return None
        d = cv2.absdiff(now, ref)
        d -= np.median(d[self._mask], axis=0)
        return d.max(axis=2) * self._exposure_gain(now, ref) >= self.config.lifted_level

    def _exposure_gain(self, *views: np.ndarray) -> float:
        """How much a dark camera's views would be brought up (`vision.cleanup.expose`): their
        white, the grey of the floor's brightest `WHITE_SHARE` in the brighter view (a card's
        paper where cards lie), to `expose_white`, by the recogniser's own rule
        (`exposure_gain`: 1 for a camera exposed for the table, as every rendered café table
        at full light). Read over the floor of the motion image's size, where
        `cleanup.white_level`'s sampling of a whole frame would leave too few pixels."""
        assert self._mask is not None
        white = max(
            float(np.percentile(v.mean(axis=2)[self._mask], 100.0 * (1.0 - WHITE_SHARE)))
            for v in views
        )
        return exposure_gain(white, self.config.expose_white)

    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        if self._size != (w, h) or self._mask is None:
            self._size = (w, h)
            sw = self.config.small_width
            sh = max(1, round(h * sw / w))
            self._mask = cv2.resize(self.geometry.floor_mask(w, h), (sw, sh)) > 127
            # The floor's inner part: a change there that reaches the frame's border is an arm
            # (the players' piles at the edges may spill a little over the floor's line).
            inner = cv2.erode(self._mask.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            self._inner = inner
            # An arm reaches well past the floor's line; a pile at a player's edge may spill
            # over it by a few pixels (RULES R1.1: captured cards go to the players' edges).
            k = 2 * max(1, round(self.config.arm_depth * sw)) + 1
            self._deep = cv2.erode(self._mask.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
            # the motion image's border pixels (rows, columns): where arms come in
            rows = np.concatenate([np.zeros(sw), np.full(sw, sh - 1), np.arange(sh), np.arange(sh)])
            cols = np.concatenate([np.arange(sw), np.arange(sw), np.zeros(sh), np.full(sh, sw - 1)])
            self._border = (rows.astype(int), cols.astype(int))
        sw, sh = self._mask.shape[1], self._mask.shape[0]
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        small = cv2.resize(grey, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        # global light changes cancelled against the floor's median grey, the cloth's: not
        # its mean, which falls as light cards leave it (a KC's dense detail, scaled with it
        # after four cards beside it were scooped, read as changed over 0.68 of its place)
        level = float(np.median(small[self._mask] if self._mask.any() else small))
        return small * (128.0 / max(level, 1.0))

    def _diff_mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return cv2.absdiff(a, b) > self.config.pixel_threshold

    def _changed(self, a: np.ndarray, b: np.ndarray, fraction: float) -> bool:
        moved = self._diff_mask(a, b)
        return float(moved[self._mask].mean()) > fraction

    def _arms_in(self, small: np.ndarray) -> list[tuple[float, float, int]]:
        """The changed blobs (since the last snapshot, or a restarted tracker's first view:
        `_boot_view`) that reach from the frame's border well into the floor: arms. Each as where
        it crosses the border (the mean of its border pixels, frame fractions) and how many
        border pixels it has."""
        ref = self._since
        assert ref is not None and self._deep is not None
        moved = self._diff_mask(_detail(small), _detail(ref)).astype(np.uint8)
        n, labels = cv2.connectedComponents(moved)
        if n <= 1:
            return []
        h, w = labels.shape
        ys, xs = self._border
        border = labels[ys, xs]
        on_floor = labels[self._deep & (moved > 0)]
        arms = []
        for k in set(np.unique(border).tolist()) - {0}:
            if int(np.count_nonzero(on_floor == k)) < 6:
                continue
            at = border == k
            x, y = (float(xs[at].mean()) + 0.5) / w, (float(ys[at].mean()) + 0.5) / h
            arms.append((x, y, int(at.sum())))
        return arms

    def _arm_from_edge(self, small: np.ndarray) -> bool:
        """True when a changed blob reaches from the frame's border into the floor (an arm)."""
        return bool(self._arms_in(small))

    def _arm_seat(self, small: np.ndarray) -> int | None:
        """The seat whose edge the widest arm in this frame reaches in from (DESIGN: each
        player sits at an edge of the frame); None with no arm."""
        arms = self._arms_in(small)
        if not arms:
            return None
        x, y, _ = max(arms, key=lambda a: a[2])
        seats = self.geometry.seats
        return min(range(len(seats)), key=lambda i: (x - seats[i][0]) ** 2 + (y - seats[i][1]) ** 2)

    def _read(self, frame: np.ndarray, t: float, small: np.ndarray) -> Snapshot | None:
        h, w = frame.shape[:2]
        x1, y1, x2, y2 = self.geometry.floor_box(w, h)
        mx, my = int(w * self.config.crop_margin), int(h * self.config.crop_margin)
        x1, y1, x2, y2 = max(0, x1 - mx), max(0, y1 - my), min(w, x2 + mx), min(h, y2 + my)
        ref = self._since
        self._delta = self._diff_mask(_detail(small), _detail(ref)) if ref is not None else None
        self._lifted = self._lifted_mask()
        obs = self.recognize(frame[y1:y2, x1:x2], t)
        self.last_observation = obs
        read = self._to_read(obs, (w, h), (x1, y1))
        if ref is not None and self.config.focus_reads:
            self._focus(frame, t, small, read)
            if self.config.faint_closer:
                self._closer(frame, t, read)
        if self._ref is None and self._resumed and self.config.faint_closer:
            self._look_where_logged(frame, t, read)
        return self._accumulate(read, small)

    def _look_where_logged(self, frame: np.ndarray, t: float, read: Read) -> None:
        """A restarted tracker's view before its first snapshot (`resume`) that misses a card
        its log holds: read again closer where the log says it lies, as the live tracker
        looked closer where it landed (a 2D tossed aslant on a pink gingham, read live from
        a closer look and missed by every floor view). A read of its code at that place
        names it there; anything else read there is left to the floor view's judgement."""
        w, h = frame.shape[:2][::-1]
        for code in sorted(self._resumed - set(read.floor)):
            box = self.cards[code]
            m = self.config.faint_closer * max(box[2] - box[0], box[3] - box[1])
            cards, (x1, y1) = self._look_closer(frame, t, box, m)
            here = [
                d
                for d in cards
                if d.code == code
                and same_place([d.box[0] + x1, d.box[1] + y1, d.box[2] + x1, d.box[3] + y1], box)
            ]
            if here and code not in read.floor:
                self._to_read(
                    [max(here, key=lambda d: float(d.confidence))], (w, h), (x1, y1), read
                )

    def _laid_here(self, code: str, box: list[float] | None) -> bool:
        """Whether a card read new as `code` at `box` was laid there since the last snapshot,
        so that it needs only `accept_landed` and is looked at closer where faint: the pixels
        there changed (`_landed`), or this is a restarted tracker's first view in a deal
        (`resume(dealt=True)`: each card new to it was laid since the log's floor)."""
        if self._ref is None and self._dealt_since and code not in self.cards:
            return True
        return box is not None and self._delta is not None and self._landed(box)

    def _closer(self, frame: np.ndarray, t: float, read: Read) -> None:
        """A new card read too faintly to be accepted where it landed: read again closer, the
        crop around its box alone (the detector sees its indices larger). A surer read of a card
        at the same place takes the faint one's; otherwise the faint read stands."""
        h, w = frame.shape[:2]
        bar = self.config.accept_landed * self.reference
        for code, conf in list(read.floor.items()):
            box = read.boxes.get(code)
            if box is None or conf >= bar or code in self.cards or not self._laid_here(code, box):
                continue
            m = self.config.faint_closer * max(box[2] - box[0], box[3] - box[1])
            cards, (x1, y1) = self._look_closer(frame, t, box, m)
            here = [
                d
                for d in cards
                if same_place([d.box[0] + x1, d.box[1] + y1, d.box[2] + x1, d.box[3] + y1], box)
            ]
            best = max(here, key=lambda d: float(d.confidence), default=None)
            if best is None or float(best.confidence) <= conf:
                continue
            before, faint = set(read.floor) - {code}, read.take(code)
            self._to_read([best], (w, h), (x1, y1), read)
            if set(read.floor) <= before:
                read.put(code, faint)  # the closer look named no card there: as it was

    def _focus(self, frame: np.ndarray, t: float, small: np.ndarray, read: Read) -> None:
        """Something new lies where no card was read, or another card's index was read inside
        a card's box that changed (`Read.inside`): look again, closer, at that place."""
        ref = self._since
        assert ref is not None and self._mask is not None and self._size is not None
        w, h = self._size
        sx, sy = small.shape[1] / w, small.shape[0] / h
        changed = self._diff_mask(_detail(small), _detail(ref)) & self._mask
        cover = np.zeros_like(changed)
        # each card's place with a margin: a fifth of its box (a box cut a little short), and
        # at least as far as its edge changes the detail beside it (`_reach`: the strip left
        # beside each long side of a card laid square to the camera was looked at closer,
        # twice, and held no card: 262 of a match's 291 closer looks)
        reach = self._reach()
        for bx1, by1, bx2, by2 in [*read.boxes.values(), *self.cards.values()]:
            mx, my = max((bx2 - bx1) * 0.2, reach), max((by2 - by1) * 0.2, reach)
            cover[
                max(0, int((by1 - my) * sy)) : int(math.ceil((by2 + my) * sy)),
                max(0, int((bx1 - mx) * sx)) : int(math.ceil((bx2 + mx) * sx)),
            ] = True
        rest = (changed & ~cover).astype(np.uint8)
        n, _labels, stats, _c = cv2.connectedComponentsWithStats(rest)
        card = 0.16 * h  # a card's height on a table seen from above, roughly
        blobs = sorted(
            (stats[k] for k in range(1, n) if stats[k][4] >= self.config.focus_min_px),
            key=lambda st: -st[4],
        )[:2]
        for bx, by, bw, bh, _area in blobs:
            blob = (bx / sx, by / sy, (bx + bw) / sx, (by + bh) / sy)
            for margin in (1.0, *((self.config.focus_wider,) if self.config.focus_wider else ())):
                # a wider look when the first found nothing there (the detector's fitted
                # scale differs with the crop's size: a card missed in one crop shows in another)
                if self._focus_look(frame, t, read, blob, margin * card):
                    break
        for box, _conf, alts, _holder in list(read.inside):
            # another card's index read inside a card's box that changed, its code new to the
            # floor: a card landed over that box's edge, its body not found (a QH tossed
            # between a 4C and a TS, its corner over the TS, the change beside them within
            # their margins): look there closer too
            code = alts[0][0] if alts else None
            if code is None or code in read.floor or code in self.cards or self._untouched(box):
                continue
            self._focus_look(frame, t, read, tuple(box), card)

    def _focus_look(
        self, frame: np.ndarray, t: float, read: Read, blob: tuple[float, ...], margin: float
    ) -> bool:
        """Read the frame around `blob` (pixels, `margin` around it) into `read`; whether a
        card new to the read now lies over the blob."""
        h, w = frame.shape[:2]
        cards, (x1, y1) = self._look_closer(frame, t, blob, margin)
        before, unnamed = set(read.boxes), len(read.unreadable)
        # Named into the same read: a card seen in both views is one card (one deck).
        self._to_read(cards, (w, h), (x1, y1), read)
        fresh = [read.boxes[c] for c in set(read.boxes) - before]
        fresh += [b for b, _conf in read.unreadable[unnamed:]]
        return any(_overlaps(b, blob) for b in fresh)

    def _look_closer(
        self, frame: np.ndarray, t: float, box, margin: float
    ) -> tuple[list, tuple[int, int]]:
        """The recogniser's cards in the crop of `box` and `margin` pixels around it (crop
        pixels), and the crop's corner in the frame. A card cut by the crop's edge is one the
        full view already read: left out, and so is a weaker read of one lone index lying in
        its box (`_corner_of_cut`)."""
        h, w = frame.shape[:2]
        x1, y1 = int(max(0, box[0] - margin)), int(max(0, box[1] - margin))
        x2, y2 = int(min(w, box[2] + margin)), int(min(h, box[3] + margin))
        self.focus_reads += 1
        obs = self.recognize(frame[y1:y2, x1:x2], t)
        edges = (x1 > 0, y1 > 0, x2 < w, y2 < h)
        cards, cut = [], []
        for d in getattr(obs, "cards", obs):
            (cut if _cut(d.box, x2 - x1, y2 - y1, edges) else cards).append(d)
        return [d for d in cards if not _corner_of_cut(d, cut)], (x1, y1)

    def _to_read(
        self, obs: Any, size: tuple[int, int], offset: tuple[int, int], read: Read | None = None
    ) -> Read:
        """Name the detections of one observation (crop at `offset`), into `read` if given."""
        w, h = size
        others: dict[str, float] = {} if read is None else read.others
        on_floor = []
        t = float(getattr(obs, "t", 0.0))
        for det in getattr(obs, "cards", obs):
            bx1, by1, bx2, by2 = det.box
            box = [bx1 + offset[0], by1 + offset[1], bx2 + offset[0], by2 + offset[1]]
            zone = self.geometry.zone((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, w, h)
            conf = float(det.confidence)
            if zone == FLOOR:
                alts = list(getattr(det, "alts", None) or [(det.code, 1.0)])
                index = getattr(det, "index", None)
                if index is not None:  # a box guessed around one index: where that lies
                    ix1, iy1, ix2, iy2 = index
                    index = [ix1 + offset[0], iy1 + offset[1], ix2 + offset[0], iy2 + offset[1]]
                on_floor.append((conf, det.code, box, alts, index))
            elif conf > others.get(det.code, -1.0):
                others[det.code] = conf
        second = read is not None  # a closer look at part of the floor already read
        if read is None:
            read = Read(t, {}, others)
        # One physical deck: each code exists once. The surest detections are named first; a
        # code that cannot be there is re-read as its best runner-up that can.
        for conf, code, box, alts, index in sorted(on_floor, key=lambda d: -d[0]):
            # a closer look's read of a card the first look named, the boxes overlapping less
            # (one cut short) and its code among the read's runners-up
            named = {c for c, _p in alts} if second else set()
            share = SECOND_LOOK_SHARE
            corners = {c for c in read.floor if _other_corner(index, alts, c, read.index.get(c))}
            seen = [
                c
                for c, b in read.boxes.items()
                if _within(box, b)
                or _within(b, box)
                or (c == code and _within(box, b, 0.2))
                or (c in named and (_within(box, b, share) or _within(b, box, share)))
                or self._body_of(box, read.index.get(c))
                or _corner_beside(index, alts, c, b)
                or c in corners
            ]
            if seen:
                self.merged += 1  # a second look at a card already named (its other corner)
                for c in corners:
                    if conf > read.floor[c]:
                        read.floor[c], read.alts[c] = conf, alts  # (the surer corner's read)
                holder = next((c for c in seen if read.boxes[c] == box), None)
                if code not in seen and holder is not None:
                    read.inside.append((box, conf, alts, read.floor[holder]))
                if second and code in seen and index is None:
                    _take_whole_box(read, code, conf, box)
                continue
            if second and self._shared_then_whole(read, code, conf):
                # the first look named it at a box it shared with another card's read (its
                # index inside that card's box); seen whole elsewhere, surer: it lies there
                read.boxes[code], read.floor[code], read.alts[code] = box, conf, alts
                read.index.pop(code, None)
                continue
            name, conf, unsure = self._name(code, conf, box, alts, read)
            if name is None:
                read.unreadable.append((box, conf))
                read.unreadable_alts.append(alts)
                continue
            read.floor[name], read.boxes[name], read.alts[name] = conf, box, alts
            if index is not None:
                read.index[name] = index
            if unsure:
                read.unsure.add(name)
        self._guess_beside_new(read)
        return read

    def _guess_beside_new(self, read: Read) -> None:
        """A card named only as a guess (every code its read gives cannot be there), new on
        the floor and lying within one box length of another new card read plainly (the
        nearest such), is that card's other corner misread (a QH tossed aslant, one corner read
        KC 0.76, a card gone, the other QH 0.43): one card, the plain read's code, as sure as
        the surer corner."""
        for guess in sorted(read.unsure):
            box = read.boxes.get(guess)
            if guess not in read.floor or box is None or self._at_a_known_place(box):
                continue
            beside = []
            for code in read.floor:
                other = read.boxes.get(code)
                if code in read.unsure or code in self.cards or other is None:
                    continue
                side = min(max(b[2] - b[0], b[3] - b[1]) for b in (box, other))
                if _overlaps(_grown(box, side), other) and not self._at_a_known_place(other):
                    beside.append((_centres_apart(box, other), code))
            if beside:  # (the nearest such card)
                code = min(beside)[1]
                self.merged += 1
                conf = read.take(guess)[0]
                read.unsure.discard(guess)
                read.floor[code] = max(read.floor[code], conf)

    def _at_a_known_place(self, box: list[float]) -> bool:
        """Whether a read at `box` lies at the known place of a card of the last snapshot."""
        return any(_at_known(box, k) for k in self.cards.values())

    @staticmethod
    def _shared_then_whole(read: Read, code: str, conf: float) -> bool:
        """Whether a closer look's read of `code`, `conf` sure, at a box of its own (not merged
        with the cards `read` names) places a card the first look named at a box it shared
        with another card's read (`Read.inside`) and read less surely."""
        if code not in read.floor or conf <= read.floor[code]:
            return False
        return any(read.boxes[code] == inside[0] for inside in read.inside)

    def _body_of(self, box: list[float], index: list[float] | None) -> bool:
        """Whether a detection at `box`, weaker than the read named from the lone corner index
        `index` (None: that read saw its card), is that card's body: the index lies in the
        box or `INDEX_BESIDE` index lengths beside it, and no card lay at the box."""
        if index is None or index_lengths_outside(index, box) > INDEX_BESIDE:
            return False
        return not self._at_a_known_place(box)

    def _name(
        self, code: str, conf: float, box: list[float], alts: list, read: Read
    ) -> tuple[str | None, float, bool]:
        """The code a detection is read as, its confidence, and whether that is only a guess.

        A code already named in this read, captured or played earlier this round (`gone`), or
        lying untouched elsewhere on the floor cannot be this card: the classifier's best
        runner-up that can be takes its place, its confidence scaled by its share of the
        probability. With no plausible runner-up the surest possible one is kept as a guess
        (`unsure`, with the detection's own confidence: a card lies there, only its name is in
        doubt; the turn it makes is held for the referee); with none at all, None."""
        if self._possible(code, box, read):
            return code, conf, False
        if code in self.gone and code not in read.floor:
            read.gone_named[code] = max(conf, read.gone_named.get(code, 0.0))
        named = name_otherwise(
            alts, lambda c: self._possible(c, box, read), conf, self.config.alt_min_share
        )
        if named is None:
            return None, conf, False
        self.rereads += 1
        return named

    def _possible(self, code: str, box: list[float], read: Read) -> bool:
        if code in read.floor or code in self.gone:
            return False
        known = self.cards.get(code)
        if known is None or _at_known(box, known):
            return True
        # The code's card lay elsewhere at the last snapshot: if that place did not change,
        # it still lies there and this is another card (unless it was boxed at another card's
        # place, and this is its own: `_boxed_apart`).
        return not self._untouched(known) or self._boxed_apart(code, box)

    def _boxed_apart(self, code: str, box: list[float]) -> bool:
        """Whether the card known as `code`, read now at `box`, lies there and was boxed at
        another card's place: its known box is another known card's too (two codes at one
        place: a card laid half over another, its index read inside the box of the card
        beneath while its own was not found), and no known card lies at `box`."""
        known = self.cards.get(code)
        if known is None or _at_known(box, known):
            return False
        shared = any(o != code and iou(b, known) >= ONE_PLACE_IOU for o, b in self.cards.items())
        return shared and not any(_at_known(b, box) for b in self.cards.values())

    def _whole_at_index(self, code: str, box: list[float], read_index: list[float] | None) -> bool:
        """Whether the card known as `code`, its known box only a guess around its one index
        (`_index`: a faint card adopted at the box its read guessed), is read now seen whole
        (no index of its own) at a box holding that index: the card's own box."""
        known_index = self._index.get(code)
        return known_index is not None and read_index is None and _inside(known_index, box)

    @property
    def settled(self) -> bool:
        """Whether the table lies still and this still view was read (a snapshot taken, or
        nothing changed since the last one): a controller restarted here loses no view."""
        return self._done and not self.moving

    def lies_still(self, box) -> bool:
        """Whether the place `box` showed no change in this view: a card lying there was
        not lifted (False where no pixels tell: observations fed)."""
        box = list(box)
        return self._changed_share(box) is not None and self._untouched(box)

    def lay_before(self, box) -> bool:
        """Whether a card at `box` lay there before this view: its place changed less than a
        card landing there changes it (`LANDED_SHARE`, in detail and in colour; a card beside
        a landing one changes a little of it). False where no pixels tell."""
        box = list(box)
        return self._changed_share(box) is not None and not self._landed(box)

    def _untouched(self, box: list[float], most: float = UNTOUCHED_MOST) -> bool:
        """Whether a card box's inner part shows no change (at most `most` of its pixels)
        since the last snapshot."""
        share = self._changed_share(box)
        return share is None or share <= most

    def _landed(self, box: list[float]) -> bool:
        """Whether a card may have landed at `box` since the last snapshot: `LANDED_SHARE` of
        its inner part changed in detail, or in colour beyond the whole floor's change."""
        if not self._untouched(box, LANDED_SHARE):
            return True
        colour = self._lifted
        share = None if colour is None else self._changed_share(box, colour)
        return share is not None and share > LANDED_SHARE

    def _changed_share(
        self,
        box: list[float],
        changed: np.ndarray | None = None,
        outside: Iterable[list[float]] = (),
    ) -> float | None:
        """The share of a card box's inner part that changed since the last snapshot (None:
        no pixels to tell, as when observations are fed; cards do not move by themselves), in
        the image's detail (`changed`: another change mask of the same size instead). With
        `outside`, only of its part outside those boxes (None where that part is under
        `BESIDE_REST` of the inner part: too little to tell)."""
        changed = self._delta if changed is None else changed
        if changed is None or self._size is None:
            return None
        sx = changed.shape[1] / self._size[0]
        sy = changed.shape[0] / self._size[1]
        x1, y1, x2, y2 = box
        mx, my = (x2 - x1) * 0.15, (y2 - y1) * 0.15
        a, b = max(0, int((x1 + mx) * sx)), int(math.ceil((x2 - mx) * sx))
        c, d = max(0, int((y1 + my) * sy)), int(math.ceil((y2 - my) * sy))
        patch = changed[c:d, a:b]
        if not patch.size:
            return 1.0
        outside = list(outside)
        if not outside:
            return float(patch.mean())
        keep = np.ones(patch.shape, bool)
        for ox1, oy1, ox2, oy2 in outside:  # (in the patch's own pixels)
            keep[
                max(0, int(oy1 * sy) - c) : max(0, int(math.ceil(oy2 * sy)) - c),
                max(0, int(ox1 * sx) - a) : max(0, int(math.ceil(ox2 * sx)) - a),
            ] = False
        if not keep.any() or keep.mean() < BESIDE_REST:
            return None
        return float(patch[keep].mean())

    def _accumulate(self, read: Read, small: np.ndarray | None = None) -> Snapshot | None:
        self.reads_done += 1
        self.last_read = read
        self._reads.append(read)
        n = len(self._reads)
        cfg = self.config
        accept, sure, doubt = self.accept, self.sure, self.doubt
        codes = set().union(*(r.floor for r in self._reads))
        mean = {c: sum(r.floor.get(c, 0.0) for r in self._reads) / n for c in codes}
        # A card of the last snapshot read again at its place, however weakly, is still there:
        # cards do not vanish by themselves, only a capture takes them (and then they are gone).
        here = {
            c
            for c in codes & set(self.cards)
            if any(c in r.boxes and _at_known(r.boxes[c], self.cards[c]) for r in self._reads)
        }
        doubtful = any(doubt < m < sure for c, m in mean.items() if c not in here)
        if n < cfg.min_reads or (doubtful and n < cfg.max_reads and not _agree(self._reads)):
            return None
        # A new card where the pixels changed since the last snapshot (something landed there)
        # needs less: the camera saw it arrive (since a restarted tracker's first frame: it
        # saw that much).
        landed = self._delta is not None
        bar = {
            c: cfg.accept_landed * self.reference
            if self._laid_here(c, read.boxes.get(c))
            else accept
            for c in mean
        }
        floor = {c for c, m in mean.items() if m >= bar[c]} | here
        trusted: set[str] = set()
        hold: frozenset[str] = frozenset()  # a first view held back whole: the cards it missed
        if self._ref is None and (self._resumed or self._resumed_unnamed):
            # a restarted controller's first view (`resume`): cards its log holds that the
            # live tracker kept unnamed (read by nothing, their places still) stay as they
            # stayed live while their places stay still since its first frame (a place that
            # changed was swept, as the live tracker would judge it: `doubted`); one that
            # misses the others may be covered (`_withheld`)
            trusted = {c for c in self._resumed_unnamed - floor if self._untouched(self.cards[c])}
            doubted = self._resumed_unnamed - floor - trusted
            # ... and one whose own code is read at its place only from an index inside
            # another detection's box (`Read.inside`: its body read as another card) lies
            # there still, as the live tracker keeps a card read as another where it lay
            trusted |= {
                c
                for c in self._resumed - floor
                for r in self._reads
                for box, _conf, alts, _holder in r.inside
                if alts and alts[0][0] == c and _at_known(box, self.cards[c])
            }
            floor |= trusted
            self._resumed_unnamed = frozenset()
            if small is not None:
                missed = self._resumed - floor
                self._resumed = frozenset()
                if missed and floor <= set(self.cards):
                    self._withheld(read, floor, mean, small, missed | doubted)
                    return None
                if missed:  # ... and a card new read: held back whole, at the end (`_hold`)
                    hold = frozenset(missed | doubted)
        back = self._give_back(floor) if self._held_back is not None else None
        boxes: dict[str, list[float]] = {}
        index: dict[str, list[float] | None] = {}  # a box guessed around one index: the index
        unsure: set[str] = set()
        for r in self._reads:
            boxes.update(r.boxes)
            index.update((c, r.index.get(c)) for c in r.boxes)
            unsure = (unsure - set(r.floor)) | r.unsure  # the latest read of each code decides
        for code in trusted:
            boxes[code] = self.cards[code]
        n_renames = len(self.renames)
        # a card kept unread stays so until a read names it again (its place no longer
        # changes once the lift is over: a white card gathered off a pale cloth)
        carried = {c for c in self._unread if c not in codes}
        self._unread = set()
        if small is not None and self._ref is not None:
            self._keep_untouched(floor, boxes, mean, index, unsure)
        self._unread |= carried & floor
        conf = min((mean.get(c, 1.0) for c in floor), default=1.0)
        if self.learn:
            self.calibrate(mean[c] for c in floor if c in mean)
        named = [boxes[c] for c in floor if c in boxes]
        # Only a detection as sure as a new card must be counts as a card nobody can name.
        unreadable = sum(1 for b, c in read.unreadable if c >= accept and not _covered(b, named))
        renamed = tuple(r for r in self.renames[n_renames:] if r[1] in floor)
        # Codes gone this round that the last read named surely on the floor: one or two are
        # misreads; several at once on a fresh floor are the next round's deal (the Table).
        gone_read = frozenset(c for c, v in read.gone_named.items() if v >= accept)
        faint, faint_box = self._faint(floor, boxes) if landed else ((), None)
        readings = self._readings(floor - set(self.cards))
        self._done, self._reads = True, []
        known = (self.cards, self._index, self._known_conf)  # (replaced below, not changed)
        self._unconfirmed = frozenset()
        self.unnamed = frozenset(floor - codes)
        self.cards = {c: boxes[c] for c in floor if c in boxes}
        self._index = {c: i for c in self.cards if (i := index.get(c)) is not None}
        self._known_conf = {c: mean.get(c, self._known_conf.get(c, 1.0)) for c in floor}
        snap = Snapshot(
            t=read.t,
            floor=frozenset(floor),
            confidence=conf,
            t_still=self._still_since,
            unsure=frozenset(unsure & floor),
            unreadable=unreadable,
            confidences=tuple(sorted((c, round(mean.get(c, 1.0), 3)) for c in floor)),
            renamed=renamed,
            gone_read=gone_read,
            faint=faint,
            faint_box=faint_box,
            readings=readings,
            unread=frozenset(self._unread & floor),
        )
        if back is not None:
            self.queued = snap  # the held-back view first, then this one (`_give_back`)
            return back
        if hold:
            assert small is not None
            return self._hold(snap, small, hold, *known)
        return snap

    def _hold(
        self, snap: Snapshot, small: np.ndarray, missed: frozenset[str], cards, index, conf
    ) -> None:
        """A restarted controller's first still view that reads a card new and misses cards
        its log holds (`missed`; `cards`, `index`, `conf`: what the tracker knew of them before
        this view; a hand laying the new card may cover them): held back whole, as `_withheld`
        holds a view with nothing new, the missed cards still known at their places; the next
        view tells whether they were covered (`_give_back`)."""
        missed = frozenset(c for c in missed - snap.floor if c in cards)
        self.cards.update((c, cards[c]) for c in missed)
        self._index.update((c, index[c]) for c in missed if c in index)
        self._known_conf.update((c, conf[c]) for c in missed if c in conf)
        self._unconfirmed, self._held_back, self._held_new = missed, snap, True
        self._ref, self._ref_colour = small, self._colour
        return None

    def _readings(self, new: set[str]) -> tuple:
        """What the classifier said of each card new on the floor, as (code, ((code, share),
        ...)) with the shares of its probability, surest first (the latest read of it)."""
        out = []
        for code in sorted(new):
            alts = next((r.alts[code] for r in reversed(self._reads) if code in r.alts), None)
            if not alts:
                continue
            total = sum(float(p) for _c, p in alts) or 1.0
            out.append((code, tuple((c, round(float(p) / total, 3)) for c, p in alts)))
        return tuple(out)

    def rename(self, was: str, code: str, confidence: float) -> None:
        """The card of the last snapshot named `was` is `code` (its owner renamed it)."""
        if was in self.cards:
            self.cards[code] = self.cards.pop(was)
            if was in self._index:
                self._index[code] = self._index.pop(was)
            self._known_conf.pop(was, None)
            self._known_conf[code] = float(confidence)

    def resume(
        self,
        boxes: dict[str, list[float]],
        unnamed=(),
        laid: str | None = None,
        dealt: bool = False,
    ) -> None:
        """A restarted controller: the cards its log last saw lie at `boxes` (code -> box);
        later reads keep them there like the cards of a last snapshot (a card read however
        weakly at its place is still there). A card adopted already keeps its own box. Those
        `unnamed` (the live tracker kept them, no read naming them) are kept as they were;
        `laid`: the card laid whose capture the log has not seen yet; `dealt`: restarted in a
        deal, so each card new in the first view was laid since the log's floor, as surely
        as if the camera had seen it land (it needs `accept_landed`)."""
        self._resumed_laid, self._dealt_since = laid, dealt
        for code, box in boxes.items():
            self.cards.setdefault(code, [float(v) for v in box])
        self._resumed_unnamed = frozenset(unnamed) & frozenset(self.cards)
        self._resumed = frozenset(self.cards) - self._resumed_unnamed
        if self._ref is None:
            self._boot_view, self._boot_view_wanted = self._prev, self._prev is None

    def forget(self, code: str) -> None:
        """The card `code` of the last snapshot is not there (its owner judged it taken):
        later reads no longer keep it."""
        self.cards.pop(code, None)
        self._index.pop(code, None)
        self._known_conf.pop(code, None)

    def guessed_index(self, box=None, code: str | None = None) -> list[float] | None:
        """The one index a box was only guessed around: a recent faint read's `box`
        (`Snapshot.faint_box`), or the known box of the card `code` (None: a card's own box,
        or neither known)."""
        if code is not None:
            return self._index.get(code)
        return self._faint_guesses.get(tuple(float(v) for v in box))

    def adopt(self, code: str, box, confidence: float, index=None) -> None:
        """A card read too faintly to accept lies at `box` as `code` (its owner judged it a
        trail): later reads keep it there like any card of the last snapshot. `index`: the
        one index that box was only guessed around (default: `guessed_index`; a restarted
        table reads it from the log)."""
        self.cards[code] = [float(v) for v in box]
        self._index.pop(code, None)
        guessed = self.guessed_index(box) if index is None else [float(v) for v in index]
        if guessed is not None:
            self._index[code] = guessed  # (the box only a guess around that index)
        self._known_conf[code] = float(confidence)

    def _faint(
        self, floor: set[str], boxes: dict
    ) -> tuple[tuple[tuple[str, float], ...], tuple[float, ...] | None]:
        """What the classifier said of the cards read too faintly to be accepted where the
        pixels changed (a card just laid): code -> its share of the detection's probability,
        the largest over those detections. Not a read of the floor: a capture may tell later
        which of them the card was (`TurnTracker.explain`). With the box of the detection
        whose top share is the largest (where the card lies)."""
        shares: dict[str, float] = {}
        best: list = [0.0, None, None]

        def add(alts: list, box: list[float], index: list[float] | None = None) -> None:
            total = sum(float(p) for _c, p in alts) or 1.0
            for code, p in alts:
                shares[code] = max(shares.get(code, 0.0), float(p) / total)
            top = max((float(p) for _c, p in alts), default=0.0) / total
            if top > best[0]:
                best[:] = [top, tuple(float(v) for v in box), index]

        taken = [boxes[c] for c in floor if c in boxes]
        for r in self._reads:
            for code, alts in r.alts.items():
                box = r.boxes.get(code)
                if code in floor or box is None or _covered(box, taken):
                    continue
                if not self._landed(box):
                    continue  # nothing landed there
                add(alts, box, r.index.get(code))
            for (box, _conf), alts in zip(r.unreadable, r.unreadable_alts, strict=False):
                if not _covered(box, taken) and self._landed(box):
                    add(alts, box)
            for box, conf, alts, holder in r.inside:
                # another card's index read inside a card's box where the pixels changed,
                # about as surely as that card: a card landed over part of it, its body not
                # found (a 5D tossed over an 8C's corner); not a code that card's own read
                # gives as a plausible runner-up (that card read again)
                new = bool(alts) and alts[0][0] not in floor and conf >= INSIDE_AS_SURE * holder
                new = new and not self._holder_reads_as(r, box, alts[0][0])
                if new and not self._untouched(box, INSIDE_CHANGED):
                    add(alts, box)
        if best[2] is not None:
            self._faint_guesses[best[1]] = [float(v) for v in best[2]]
            while len(self._faint_guesses) > FAINT_GUESSES_KEPT:
                del self._faint_guesses[next(iter(self._faint_guesses))]
        return tuple(sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))), best[1]

    def _holder_reads_as(self, read: Read, box: list[float], code: str) -> bool:
        """Whether the card `read` names at `box` is read as `code` too: its read gives that
        code a plausible runner-up's share (`alt_min_share`; a QS read QS 0.62, JC 0.14,
        whose box a closer look read JC 0.51 as the 8D beside it was taken)."""
        holder = next((c for c, b in read.boxes.items() if b == box), None)
        shares = dict(read.alts.get(holder, ())) if holder is not None else {}
        return float(shares.get(code, 0.0)) >= self.config.alt_min_share

    def _withheld(
        self, read: Read, floor: set[str], mean: dict, small: np.ndarray, missed: frozenset[str]
    ) -> None:
        """A restarted controller's first still view (`resume`) that misses cards its log
        holds (`missed`), nothing new read: a hand, or a card laid on them, may cover them. The
        view is held back; it is the reference later views are read against, and the cards
        it missed stay known, kept only where a read names them at their places (a card taken
        while the controller was down lies nowhere: its place's stillness keeps nothing).
        The next view tells which it was (`_give_back`). (`missed` holds the cards kept
        unnamed whose places changed too: kept so, where a view holds back.)"""
        self._ref, self._ref_colour = small, self._colour
        self._unconfirmed = frozenset(missed)
        conf = min((mean.get(c, 1.0) for c in floor), default=1.0)
        self._held_back = Snapshot(
            t=read.t, floor=frozenset(floor), confidence=conf, t_still=self._still_since,
            confidences=tuple(sorted((c, round(mean.get(c, 1.0), 3)) for c in floor)),
        )  # fmt: skip
        self._done, self._reads = True, []

    def _give_back(self, floor: set[str]) -> Snapshot | None:
        """The view after a restarted controller's first still view, held back
        (`_withheld`): where it reads every card that view missed, they were covered, and
        that view is dropped (None). Where some are still missing, they left by then: the
        held-back view is given back, as read but with the cards missed there that this
        view reads, ahead of this view (`queued`). Where the one card still missing is the
        card laid, the held-back view is dropped too: a card laid leaves with its capture,
        and a view that only missed reading it would split that capture in two (the card
        taken back, then a capture with no card)."""
        held, self._held_back = self._held_back, None
        assert held is not None
        new, self._held_new = self._held_new, False
        gone = self._unconfirmed - floor
        if new:
            # it read a card new: given back whatever this view reads (that play is not
            # lost), the missed cards this view reads put back, and the card laid too
            kept = gone if gone == {self._resumed_laid} else frozenset()
            return replace(held, floor=held.floor | (self._unconfirmed & floor) | kept)
        if not gone or gone == {self._resumed_laid}:
            return None
        return replace(held, floor=held.floor | (self._unconfirmed & floor))

    def _keep_untouched(
        self,
        floor: set[str],
        boxes: dict,
        mean: dict[str, float],
        index: dict | None = None,
        guesses: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        """A card whose patch of the image has not changed since the last snapshot is still
        there, whatever this read says: a read on it that names another card is a misread,
        and a read that misses it missed it. Only changed places are read afresh. A sure
        read of another code there renames the card, unless that code is only a guess
        (`guesses`: its own read named an impossible code, one deck)."""
        assert self._ref is not None and self._size is not None
        assert self._delta is not None  # this view's change, as `_read` found it
        lifted_mask = self._lifted

        def untouched(x1: float, y1: float, x2: float, y2: float) -> bool:
            return self._untouched([x1, y1, x2, y2])

        index = {} if index is None else index

        def listed(other: str) -> set[str]:  # every code the reads of `other` named
            return {c for r in self._reads for c, _p in r.alts.get(other, ())}

        shares: dict[str, float] = {}  # each missed card's `lift_share`, measured once
        colours: dict[str, float | None] = {}  # ... and the share of it in its colour

        def lift_share(code: str, known: list[float]) -> float:
            # how much of a missed card's place changed, in its detail or in its colour, the
            # larger
            if code in shares:
                return shares[code]
            share = self._changed_share(known) or 0.0
            colour = None if lifted_mask is None else self._changed_share(known, lifted_mask)
            colours[code] = colour
            share = max(share, colour or 0.0)
            if code in self._index:
                # its box is only a guess around its one index (the card may lie on any side,
                # so a lift changes a part of it only): the index's own place tells
                share = max(share, self._index_change(self._index[code], lifted_mask))
            shares[code] = share
            return share

        def changed_missed() -> list[str]:
            # the missed cards whose places changed (one kept unread since an earlier view,
            # its place untouched now, changes nothing beside it)
            return [o for o in missed if lift_share(o, self.cards[o]) > UNTOUCHED_MOST]

        def half_lifted(code: str) -> bool:  # a missed card's place changed like a pale lift
            known = self.cards[code]
            share = lift_share(code, known)
            return LIFTED_ALONE <= share < self.config.lifted_change and coloured(code)

        def coloured(code: str) -> bool:
            # a lift shows in the colour too, more than a place that hardly changed
            # (`BESIDE_STILL`): a card's white gives way to the cloth (0.27-0.55 of the places
            # of cards scooped off pale checks), where a dark view's grain, brought up, changes
            # the detail only (a QH lying on at a fifth of the light: 0.48 of its detail, none
            # of its colour; `lift_share` measured it)
            colour = colours[code]
            return colour is None or colour > BESIDE_STILL

        def lifted_with(code: str) -> set[str]:
            # the missed cards whose places changed like a pale lift, next to one another
            # (`_near`) from this card on: cards scooped together
            group, todo = {code}, [code]
            alike = [o for o in missed if o != code and half_lifted(o)]
            while todo:
                near = self._near(self.cards[todo.pop()], [self.cards[o] for o in alike])
                came = [o for o in alike if o not in group and self.cards[o] in near]
                group.update(came)
                todo += came
            return group

        def still_there(code: str, known: list[float]) -> bool:
            # a card this read missed, at a place that changed: still there if the place
            # changed too little for a card lifted off the table (a hand or a card landing
            # beside it), or a card just laid covers it (slapped on the card it will capture:
            # both leave with the scoop)
            share = lift_share(code, known)
            new = [boxes[o] for o in floor if o not in self.cards and o in boxes]
            if share < self.config.lifted_change:
                # too little for a lift, unless nothing else changed near it and no read saw
                # anything there: a white card lifted off a pale check changes only half its
                # place (0.52-0.57 in detail or colour: a TS and a TD scooped off a pink and
                # green gingham, nothing read there after). Cards scooped together off it
                # (a 6H laid half over the 6D it took: 0.54 and 0.50) are lifted together:
                # the same holds of each, the others set aside.
                if not half_lifted(code):
                    return True
                group = lifted_with(code)
                others = [self.cards[o] for o in changed_missed() if o not in group]
                return not all(self._lifted_alone(g, new, others, lifted_mask) for g in group)
            covering = [b for b in new if _within(known, b, self.config.covered_share)]
            if code in self.returning:
                # taken back and its replacement laid in its place (a JS and then a 6D at
                # the same box, no view between): the new card covers no card
                new = [b for b in new if b not in covering]
            elif covering:
                return True
            near = new + [self.cards[o] for o in missed if o != code]
            return self._beside_changes(code, known, near, lifted_mask)

        claimed: set[str] = set()  # new reads that renamed a known card: that card

        def new_reads() -> list[str]:  # the codes new on the floor, read at a box
            return [o for o in floor if o not in self.cards and o in boxes and o not in claimed]

        # Nothing new appears where nothing changed: an unsure read there is a phantom (a sure
        # one is a card that an earlier read missed).
        for other in new_reads():
            if (
                mean.get(other, 1.0) < self.sure
                and untouched(*boxes[other])
                and not self._inside_known(boxes[other])
            ):
                floor.discard(other)
                self.kept += 1
        missed = [o for o in self.cards if o not in floor]  # (as this read saw the floor)
        for code, (x1, y1, x2, y2) in self.cards.items():
            if code in self._unconfirmed and code not in floor:
                continue  # never seen since a restart: its still place tells nothing
            known = [x1, y1, x2, y2]
            share = self._changed_share(known)
            if share is not None and share > UNTOUCHED_MOST:
                # touched: trust the read, unless it lost the card where no lift could have
                # (a card kept because one just laid covers it may lie squarely under it)
                same_box = code in floor or share < self.config.lifted_change
                if code not in floor:
                    wholes = [
                        o
                        for o in new_reads()
                        if self._seen_whole(code, known, boxes[o], mean.get(o, 1.0))
                    ]
                    if len(wholes) == 1:
                        # the card seen whole at last: the earlier read of a part of it was
                        # wrong (the new read keeps its own, whole box)
                        claimed.add(wholes[0])
                        self.renames.append((code, wholes[0]))
                        continue
                if code not in floor and still_there(code, known):
                    floor.add(code)
                    boxes[code] = known
                    index[code] = self._index.get(code)
                    self.kept += 1
                    self._unread.add(code)
                if code in floor:
                    # an unsure read of a new code at that very place is this card misread
                    # (a hand or a card passed over it), not a card laid on it; so is any
                    # read of one at the very same box as a card read there, or kept there
                    # for a change too small for a lift
                    here = boxes.get(code, known)
                    beside = (b for o, b in [*self.cards.items(), *boxes.items()] if o != code)
                    off = code not in self._index and _moved_off(here, known)
                    if _swallows(here, known, beside) or (mean.get(code, 1.0) < self.sure and off):
                        # its box read grown over the card beside it (two cards boxed as
                        # one), or read unsurely off its place (cards lie still; a place only
                        # guessed around its index holds no better): it keeps its own place,
                        # or that card's lift would lift it
                        boxes[code] = here = known
                    for other in new_reads():
                        overlap = iou(boxes[other], here)
                        unsure = mean.get(other, 1.0) < self.sure
                        if (
                            (same_box and overlap >= SAME_BOX_IOU)
                            or (unsure and overlap >= ONE_PLACE_IOU)
                            # ... and so is an unsure read of part of it that names it too,
                            # or of all but its edge where nothing landed, whatever it names
                            # (its box cut short by a card landed over that edge: a 6C read TC
                            # 0.39 in 0.81 of its box as a 9S landed over it; a 6D read 7D
                            # 0.42, none of its read a 6, in 0.93 of its box as a 4D landed
                            # over its edge, 0.26 of that box's detail changed)
                            or (
                                unsure
                                and (
                                    (code in listed(other) and _part_of(boxes[other], here))
                                    or (
                                        _within(boxes[other], here, PART_INSIDE)
                                        and not self._landed(boxes[other])
                                    )
                                )
                            )
                            or (unsure and _part_of(boxes[other], here, PART_ALONE))
                        ):
                            floor.discard(other)
                            self.kept += 1
                continue
            renamed, seen_whole = None, False
            for other in new_reads():
                if not _inside(boxes[other], known):
                    continue
                floor.discard(other)  # the same physical card: one of the two reads is wrong
                if renamed is not None or other in guesses:
                    self.kept += 1
                elif self._rereads_better(code, mean.get(other, 0.0)):
                    renamed = other  # this read is sure and surer: the earlier one was wrong
                elif code not in floor and self._seen_whole(
                    code, known, boxes[other], mean.get(other, 1.0)
                ):
                    renamed, seen_whole = other, True  # ... or it read the card whole at last
                else:
                    self.kept += 1
            if renamed is not None:
                floor.discard(code)
                floor.add(renamed)
                claimed.add(renamed)
                if not seen_whole:  # (seen whole: its own box, the whole card)
                    boxes[renamed] = known
                    index[renamed] = self._index.get(code)
                self.renames.append((code, renamed))
                continue
            if code in floor and self._boxed_apart(code, boxes[code]):
                continue  # read at its own place at last: it lies there
            if code in floor and self._whole_at_index(code, boxes[code], index.get(code)):
                continue  # its box only a guess around its index: read whole there at last
            if code not in floor:
                self.kept += 1
            floor.add(code)
            boxes[code] = known
            index[code] = self._index.get(code)

    def _beside_changes(
        self,
        code: str,
        known: list[float],
        near: list[list[float]],
        lifted_mask: np.ndarray | None,
    ) -> bool:
        """Whether a card missed by this read, at a place that changed, changed only by the
        cards changing beside it (`near`: new cards' boxes, and the places of the other cards
        this read missed): the rest of its place (`_rest_change`) hardly changed
        (`BESIDE_STILL`; a 9H landing against a tossed QH; a KC whose neighbours, an AS above
        and an AH below, were scooped: 0.68 of its detail changed, none of its colour)."""
        if self._size is None or self._delta is None:
            return False
        near = self._near(known, near)
        if not near:
            return False
        rest = self._rest_change(code, known, near, lifted_mask)
        return rest is not None and rest <= BESIDE_STILL

    def _rest_change(
        self,
        code: str,
        known: list[float],
        near: list[list[float]],
        lifted_mask: np.ndarray | None,
    ) -> float | None:
        """How much of the rest of a card's place, beyond the cards changing beside it
        (`near`), changed: the image's detail changes up to `DETAIL_REACH` beyond a card's
        edge, so it is judged outside their boxes grown by that much, and the colour outside
        the boxes themselves, the larger; what lies outside is judged where at least
        `BESIDE_REST` of the place's inner part does (None where nothing tells)."""
        assert self._delta is not None
        grown = [_grown(b, self._reach()) for b in near]
        rest = [self._changed_share(known, self._delta, outside=grown)]
        if lifted_mask is not None:
            rest.append(self._changed_share(known, lifted_mask, outside=near))
        if code in self._index and not any(_overlaps(b, self._index[code]) for b in grown):
            # its box only a guess around its index: the index tells too, where no changing
            # card's edge reaches it
            rest.append(self._index_change(self._index[code], lifted_mask))
        told = [v for v in rest if v is not None]
        return max(told) if told else None

    def _reach(self) -> float:
        """How far (frame pixels) a card's edge changes the motion image's detail beside it:
        `DETAIL_REACH` motion pixels (a frame has been seen: `_size` is set)."""
        assert self._size is not None
        return DETAIL_REACH * self._size[0] / self.config.small_width

    def _near(self, known: list[float], boxes: list[list[float]]) -> list[list[float]]:
        """The boxes among `boxes` whose edges change the detail over the card box `known`:
        those within `DETAIL_REACH` of it."""
        reach = self._reach()
        return [b for b in boxes if _overlaps(_grown(b, reach), known)]

    def _lifted_alone(
        self,
        code: str,
        new: list[list[float]],
        missed: list[list[float]],
        lifted_mask: np.ndarray | None,
    ) -> bool:
        """Whether the change at the place of a card this view's reads missed can only be its
        lift: no card new to the floor (`new`) lies near it (`_near`), no detection of the
        reads, named or not, overlaps it (but another card's read at its own place: tossed
        cards' boxes overlap at their edges, a TC read where it lay 9 pixels over a scooped
        6D's box), and where other cards missed here, their places changed (`missed`: lifted
        with it), lie near it, the rest of its place beyond them changed like a lift too
        (`LIFTED_ALONE`): a card staying beside cards scooped changes only at its edges."""
        known = self.cards[code]
        if self._size is None or self._delta is None or self._near(known, new):
            return False
        seen = [u[0] for r in self._reads for u in r.unreadable] + [
            b
            for r in self._reads
            for c, b in r.boxes.items()
            if not (c in self.cards and self.cards[c] != known and same_place(self.cards[c], b))
        ]
        if any(_overlaps(b, known) for b in seen):
            return False
        near = self._near(known, missed)
        if not near:
            return True
        rest = self._rest_change(code, known, near, lifted_mask)
        return rest is not None and rest >= LIFTED_ALONE

    def _index_change(self, box: list[float], lifted_mask: np.ndarray | None) -> float:
        """The share of an index's box that changed since the last snapshot, in detail or in
        colour (`lifted_mask`), the larger: all of it (`_changed_share` reads a box's inner
        part)."""
        x1, y1, x2, y2 = box
        mx, my = (x2 - x1) * 0.15 / 0.7, (y2 - y1) * 0.15 / 0.7
        grown = [x1 - mx, y1 - my, x2 + mx, y2 + my]
        shares = [self._changed_share(grown)]
        if lifted_mask is not None:
            shares.append(self._changed_share(grown, lifted_mask))
        return max((v for v in shares if v is not None), default=0.0)

    def _rereads_better(self, code: str, conf: float) -> bool:
        """Whether a read at a card's untouched place that names another code, `conf` sure,
        should replace the code the card was given (a later, better look at the same card)."""
        return conf >= self.sure and self._surer(code, conf)

    def _surer(self, code: str, conf: float) -> bool:
        """Whether a read `conf` sure is `reread_margin` surer than the card `code`'s own."""
        return conf >= self._known_conf.get(code, 1.0) + self.config.reread_margin * self.reference

    def _seen_whole(self, code: str, known: list[float], box: list[float], conf: float) -> bool:
        """Whether an unsure new read at `box`, `conf` sure, is the card `code` (unread now)
        seen whole at last: the card's known box is a part of this one (its earlier read saw a
        part of it), that read was unsure too, and this one is `reread_margin` surer (a QH
        tossed in a deal, its lower half first read KC 0.18, then the whole card QH 0.31)."""
        return (
            self._known_conf.get(code, 1.0) < self.sure
            and conf < self.sure
            and self._surer(code, conf)
            and _part_of(known, box)
        )

    def _inside_known(self, box: list[float]) -> bool:
        """Whether a box's centre lies on a card of the last snapshot (handled there)."""
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in self.cards.values())


def _detail(small: np.ndarray) -> np.ndarray:
    """The image less its soft shading: card edges stay, slow light changes go."""
    return small - cv2.blur(small, (9, 9))


def _at_known(box: list[float], known: list[float]) -> bool:
    """Whether a read of a card's own code at `box` lies at its known place: its centre on
    that place (grown by a quarter), or over `KNOWN_HELD` of it (a faint card's box and a
    later read's of the same card may each hold a different part of it)."""
    return _inside(box, known, 0.25) or _within(known, box, KNOWN_HELD)


def _part_of(box: list[float], known: list[float], most: float = PART_AREA) -> bool:
    """Whether `box` is a part of the card boxed `known`: it lies inside that box (at least
    `PART_INSIDE` of it) and is at most `most` of its size (a card laid on another is boxed
    whole, as large as the card beneath)."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    known_area = (known[2] - known[0]) * (known[3] - known[1])
    return _within(box, known, PART_INSIDE) and area <= most * known_area


def _inside(box: list[float], known: list[float], margin: float = 0.0) -> bool:
    """Whether `box`'s centre lies on `known` (grown by `margin` of its size on every side)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    mx, my = (known[2] - known[0]) * margin, (known[3] - known[1]) * margin
    return known[0] - mx <= cx <= known[2] + mx and known[1] - my <= cy <= known[3] + my


def _swallows(box: list[float], known: list[float], others: Iterable[list[float]]) -> bool:
    """Whether a card's new box is its known one grown over another card's: half as large
    again, and holding the centre of a card box that the known one does not hold."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    if area < SWALLOW_GROWTH * (known[2] - known[0]) * (known[3] - known[1]):
        return False
    return any(_inside(o, box) and not _inside(o, known) for o in others)


def _corner_beside(index: list[float] | None, alts: list, code: str, box: list[float]) -> bool:
    """Whether a detection read from one lone index (`index`; its box only a guess) is a
    corner of the card `code` read at `box`: the index lies in that box or within
    `INDEX_BESIDE` index lengths of it (a box cut short), and its read gives `code` at least
    half the share of its likeliest code (a KH's corner read KD 0.50, KH 0.46 just above the
    KH's box)."""
    if index is None or index_lengths_outside(index, box) > INDEX_BESIDE:
        return False
    return _reads_as(alts, code)


def _reads_as(alts: list, code: str) -> bool:
    """Whether a read (`alts`: (code, share)) gives `code` at least half the share of its
    likeliest code."""
    shares = {c: float(p) for c, p in alts}
    return shares.get(code, 0.0) >= 0.5 * max(shares.values(), default=0.0)


def _other_corner(
    index: list[float] | None, alts: list, code: str, other: list[float] | None
) -> bool:
    """Whether a detection read from one lone index (`index`) is the other corner of the card
    `code` named from its own lone index `other`: its read gives `code` at least half the
    share of its likeliest code, and the two indices' centres lie more than one index length
    apart (another corner, not the same one read again) and within `CORNERS_APART` index
    lengths (one card's diagonal; one deck holds one such card)."""
    if index is None or other is None or not _reads_as(alts, code):
        return False
    side = max(index[2] - index[0], index[3] - index[1], other[2] - other[0], other[3] - other[1])
    return max(side, 1e-9) < _centres_apart(index, other) <= CORNERS_APART * max(side, 1e-9)


def _moved_off(box: list[float], known: list[float]) -> bool:
    """Whether a card's new box lies off its known one: overlapping it less than `MOVED_IOU`,
    neither holding `KNOWN_WITHIN` of it (the card seen whole) nor lying that much inside it
    (boxed tighter). A card lies still till it is taken, so such a box is the read's (a queen
    read 0.25 as a ten landed against her top, boxed 35-75 pixels to one side), not the
    card's."""
    return (
        iou(box, known) < MOVED_IOU
        and not _within(known, box, KNOWN_WITHIN)
        and not _within(box, known, KNOWN_WITHIN)
    )


def name_otherwise(
    alts: list, possible: Callable[[str], bool], conf: float, min_share: float
) -> tuple[str, float, bool] | None:
    """A card whose read's likeliest code cannot be it (one deck): the likeliest other code of
    its read (`alts`: (code, share), likeliest first) that `possible` allows, `conf` scaled by
    its share of the likeliest one's, and whether that is only a guess (under `min_share`:
    `conf` unscaled then, for a card surely lies there, only its name is in doubt). None when
    no other code is possible."""
    top = max(float(alts[0][1]), 1e-9) if alts else 1.0
    for alt, share in alts[1:]:  # surest first
        if not possible(alt):
            continue
        if float(share) >= min_share:
            return alt, conf * float(share) / top, False
        return alt, conf, True
    return None


def _centres_apart(a, b) -> float:
    """How far apart two boxes' centres lie, in pixels."""
    return math.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2)


def _grown(box, by: float) -> list[float]:
    """A box (x1, y1, x2, y2) grown by `by` on every side."""
    return [box[0] - by, box[1] - by, box[2] + by, box[3] + by]


def _overlaps(a, b) -> bool:
    """Whether two boxes (x1, y1, x2, y2) share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def same_place(a, b) -> bool:
    """Whether two card boxes are the same place: either's centre lies on the other."""
    return _inside(a, b) or _inside(b, a)


def _covered(box: list[float], named: list[list[float]]) -> bool:
    """Whether a box is the same place as one of the named cards' boxes."""
    return any(same_place(box, b) for b in named)


def _take_whole_box(read: Read, code: str, conf: float, box: list[float]) -> None:
    """A closer look read the card `read` names `code` again, at least as surely, boxed whole
    at `box` around the first look's box cut short (`GROWN_MOST` times its area at most): the
    card lies at `box` (a later look's box reaching past the short one is then the card's
    own, not another card beside it)."""
    first = read.boxes[code]
    area = (first[2] - first[0]) * (first[3] - first[1])
    card_sized = (box[2] - box[0]) * (box[3] - box[1]) <= GROWN_MOST * area
    if conf >= read.floor.get(code, 1.0) and _within(first, box, GROWN_HOLDS) and card_sized:
        read.boxes[code] = box
        read.index.pop(code, None)


def _within(box: list[float], other: list[float], share: float = 0.6) -> bool:
    """Whether most of `box` (at least `share` of its area) lies inside `other`."""
    w = min(box[2], other[2]) - max(box[0], other[0])
    h = min(box[3], other[3]) - max(box[1], other[1])
    area = max(1e-9, (box[2] - box[0]) * (box[3] - box[1]))
    return w > 0 and h > 0 and w * h / area >= share


def _corner_of_cut(det: Any, cut: list) -> bool:
    """Whether a detection read from one lone index (its card box only a guess around it) is a
    corner of a card in `cut` (cards a crop's edge cut), read apart: the index lies in that
    card's box, read less surely (a QH tossed aslant, cut by a closer look's edge and read
    0.49 there, its lower index read alone KC 0.18 inside its box: a phantom KC in a deal)."""
    index = getattr(det, "index", None)
    return index is not None and any(
        index_lengths_outside(index, d.box) == 0 and det.confidence < d.confidence for d in cut
    )


def _cut(box: list[float], w: int, h: int, cut: tuple[bool, bool, bool, bool], px: float = 3.0):
    """Whether a box in a crop touches one of the crop's edges that cut the frame."""
    left, top, right, bottom = cut
    return (
        (left and box[0] <= px)
        or (top and box[1] <= px)
        or (right and box[2] >= w - px)
        or (bottom and box[3] >= h - px)
    )


def _agree(reads: list[Read], tol: float = 0.05) -> bool:
    """Whether the last two reads name the same floor cards with about the same confidence."""
    if len(reads) < 2:
        return False
    a, b = reads[-2].floor, reads[-1].floor
    return a.keys() == b.keys() and all(abs(a[c] - b[c]) <= tol for c in a)
