"""The still reads' last look at a photo: faint indices, away from every card already read,
seen alike at many scales. Pure: the detector and classifier come in as functions.

A card the detector scores only faintly (a webcam's card held up, a novelty deck's indices) is
dropped by the usual reads. Here the frame is read at several sizes with a very low score
floor; the boxes lying at one place form a cluster, and a cluster names a card only where most
sizes found a box there and read it as the same code, surely on average (models/HISTORY.md:
the measured separation from card backs, jokers and empty tables).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.boxes import iou

SIZES = (256, 320, 416, 512, 640, 800, 960)  # detector input sizes read (the long side)
FLOOR = 0.02  # the least detector score of a box looked at
SAME_PLACE_IOU = 0.3  # boxes overlapping this much lie at one place


@dataclass(frozen=True)
class FaintRead:
    """One card named by the last look: its code, how sure (the agreeing reads' mean
    probability times the share of sizes agreeing), its index box and the code shares."""

    code: str
    conf: float
    box: list[float]
    alts: list[tuple[str, float]]


def last_look(
    detect: Callable[[int, float], tuple[np.ndarray, np.ndarray]],
    read: Callable[[np.ndarray], np.ndarray],
    names: list[str],
    agree: int,
    sure: float,
    sizes: tuple[int, ...] = SIZES,
    skip: Callable[[list[float]], bool] | None = None,
) -> list[FaintRead]:
    """Cards named by faint indices found alike at many sizes.

    `detect(size, floor)` gives the index boxes (N, 4 frame pixels) and scores (N,) of one pass;
    `read(boxes)` the classifier's probabilities (N, len(names)) of those boxes' crops, every
    quarter turn averaged. A place counts where at least `agree` of the sizes put a box there,
    read as one code by at least `agree` sizes with a mean probability of at least `sure`. One
    deck: a code is named once (its surest place). A place whose surest box `skip` rejects
    (one already read) is not read at all.
    """
    boxes, scores, size_of = [], [], []
    for size in sizes:
        b, s = detect(size, FLOOR)
        boxes.append(np.asarray(b, np.float64).reshape(-1, 4))
        scores.append(np.asarray(s, np.float64).reshape(-1))
        size_of.append(np.full(len(boxes[-1]), size))
    if not sum(len(b) for b in boxes):
        return []
    box, score, at = np.concatenate(boxes), np.concatenate(scores), np.concatenate(size_of)
    places = _places(box, score)
    # only a place enough sizes saw can be named: read only those (a frame's many faint boxes
    # elsewhere cost nothing more)
    places = [p for p in places if len(set(at[p].tolist())) >= agree]
    if skip is not None:
        places = [p for p in places if not skip([float(v) for v in box[p[0]]])]
    if not places:
        return []
    members = np.concatenate(places)
    probs = np.zeros((len(box), len(names)))
    probs[members] = read(box[members])
    found: dict[str, FaintRead] = {}
    for p in places:
        codes = np.argmax(probs[p], axis=1)
        best = None
        for k in set(codes.tolist()):
            voters = p[codes == k]
            n_sizes = len(set(at[voters].tolist()))
            mean = float(probs[voters, k].mean())
            if best is None or (n_sizes, mean) > best[:2]:
                best = (n_sizes, mean, k, voters)
        n_sizes, mean, k, voters = best
        if n_sizes < agree or mean < sure:
            continue
        share = probs[p].mean(axis=0)
        top = np.argsort(-share)[:5]
        seed = voters[int(np.argmax(score[voters]))]
        faint = FaintRead(
            names[k],
            mean * n_sizes / len(sizes),
            [float(v) for v in box[seed]],
            [(names[int(j)], float(share[j])) for j in top],
        )
        if names[k] not in found or faint.conf > found[names[k]].conf:
            found[names[k]] = faint
    return sorted(found.values(), key=lambda r: -r.conf)


def _places(box: np.ndarray, score: np.ndarray) -> list[np.ndarray]:
    """The boxes grouped by place: the surest box left and every box left overlapping it."""
    order = list(np.argsort(-score))
    left = np.ones(len(box), bool)
    out = []
    for i in order:
        if not left[i]:
            continue
        # (the box itself always: one clipped to nothing at the frame's edge overlaps nothing)
        here = [i] + [
            j for j in np.flatnonzero(left) if j != i and iou(box[i], box[j]) > SAME_PLACE_IOU
        ]
        left[here] = False
        out.append(np.array(here, int))
    return out
