"""Writes rendered training and test data: YOLO detection sets and classifier crop folders.

Detector classes are class-agnostic (0 corner index, 1 whole card); crops are named by card code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.crops import CROP_PX, face_crop, index_crop, square_up
from vision.deck import CODES, Deck
from vision.layout import random_layout, table_layout
from vision.scene import Camera, CardLabel, Light, Occluder, TableBackground, quad_box, render
from vision.webcam import degrade

DET_NAMES = ("index", "card")
CARD_MIN_VISIBLE = 0.45


def random_scene(
    rng: np.random.Generator,
    deck: Deck,
    size: tuple[int, int],
    occlusion: float = 0.35,
    scale: float = 1.0,
) -> tuple[np.ndarray, list[CardLabel]]:
    """One fully random training frame of `size` with its labels."""
    bg = TableBackground.random(rng, size)
    placements = random_layout(rng, size, scale)
    occ = [Occluder.random(rng, size) for _ in range(int(rng.random() < occlusion))]
    return render(bg, deck, placements, rng, occ, Light.random(rng), Camera.random(rng))


def yolo_line(cls: int, box, w: int, h: int) -> str:
    x1, y1, x2, y2 = box
    return f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"


def pick_deck(
    rng, deck: Deck, designs: list[Deck], share: float, most: int, pips: bool = False
) -> Deck:
    """`deck`, or in `share` of the calls one of the synthetic designs (`vision.synthdeck`;
    with `pips`, its number cards' pips redrawn too), made from `deck` until `most` exist."""
    if not share or rng.random() >= share:
        return deck
    if len(designs) < most:
        from vision.synthdeck import synth_deck

        designs.append(synth_deck(rng, deck, pips=pips))
    return designs[int(rng.integers(len(designs)))]


def _split_writer(root: Path, split: str) -> Callable[[str, np.ndarray, list[str]], None]:
    """A writer of one frame and its YOLO label lines into root/images|labels/split."""
    images, labels = root / "images" / split, root / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)

    def write(name: str, img: np.ndarray, lines: list[str]) -> None:
        cv2.imwrite(str(images / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (labels / f"{name}.txt").write_text("\n".join(lines) + "\n" if lines else "")

    return write


def write_detection_set(
    root: Path,
    split: str,
    decks: list[str],
    count: int,
    size: tuple[int, int],
    seed: int,
    crops: Path | None = None,
    crops_per_index: int = 1,
    progress: Callable[[int], None] | None = None,
    synth_share: float = 0.0,
    synth_designs: int = 24,
    webcam_share: float = 0.0,
) -> dict:
    """Render `count` frames into root/images/split and root/labels/split (YOLO format).

    With `crops`, every visible index is also cut out into crops/split/<CODE>/ for the classifier.
    A `synth_share` of the frames use synthetic deck designs (`vision.synthdeck`: the decks'
    faces with indices redrawn in other typefaces), `synth_designs` of them made as needed.
    A `webcam_share` of them are passed through `vision.webcam.degrade` (a cheap webcam's
    picture).
    """
    rng = np.random.default_rng(seed)
    write = _split_writer(root, split)
    loaded = [Deck.load(d) for d in decks]
    designs: list[Deck] = []
    n_idx = n_card = n_crop = 0
    for k in range(count):
        deck = pick_deck(rng, loaded[k % len(loaded)], designs, synth_share, synth_designs)
        img, labels = random_scene(rng, deck, size)
        if webcam_share and rng.random() < webcam_share:
            img = degrade(img, rng)
        h, w = img.shape[:2]
        lines = []
        for lab in labels:
            if not lab.face_up:
                continue
            for q in lab.indices:
                box = quad_box(q, w, h)
                if box[2] - box[0] < 2 or box[3] - box[1] < 2:
                    continue
                lines.append(yolo_line(0, box, w, h))
                n_idx += 1
                if crops is not None:
                    for _ in range(crops_per_index):
                        n_crop += _save_crop(crops / split / lab.code, img, box, rng, f"{seed}_{k}")
            if lab.visible >= CARD_MIN_VISIBLE:
                lines.append(yolo_line(1, lab.box, w, h))
                n_card += 1
        write(f"s{seed}_{k:05d}", img, lines)
        if progress:
            progress(k + 1)
    return {"images": count, "indices": n_idx, "cards": n_card, "crops": n_crop}


def write_table_tiles(
    root: Path,
    split: str,
    decks: list[str],
    count: int,
    seed: int,
    tile: int = 320,
    card_px: float = 162.0,
    synth_share: float = 0.6,
    synth_designs: int = 24,
    keep: float = 0.6,
) -> dict:
    """Detector frames cut from rendered 1280x720 café tables (`table_scene`: a floor with
    overlaps, capture piles, a hand in 60 %), scaled so a card's long side is `card_px` (the
    still reads' fitted scale once ultralytics brings a `tile` to its 256 px) and cut into
    `tile` squares about the cards; an index or card box is labelled where at least `keep` of
    it lies in the tile. `count` tiles, two per table, named t{seed}_{k}."""
    rng = np.random.default_rng(seed)
    write = _split_writer(root, split)
    loaded = [Deck.load(d) for d in decks]
    designs: list[Deck] = []
    n_idx = n_card = k = 0
    while k < count:
        deck = pick_deck(rng, loaded[k % len(loaded)], designs, synth_share, synth_designs)
        img, labels = table_scene(rng, deck, (1280, 720))
        sides = [  # each card's long side: its outline's longer edge
            float(np.linalg.norm(np.diff(np.asarray(lab.quad)[:3], axis=0), axis=1).max())
            for lab in labels
        ]
        if not sides:
            continue
        f = card_px / float(np.median(sides)) * rng.uniform(0.85, 1.15)
        img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        h, w = img.shape[:2]
        boxes = [
            (0, np.asarray(q, float) * f) for lab in labels if lab.face_up for q in lab.indices
        ]
        boxes += [(1, np.asarray(lab.quad, float) * f) for lab in labels
                  if lab.face_up and lab.visible >= CARD_MIN_VISIBLE]  # fmt: skip
        centres = [q.mean(axis=0) for c, q in boxes if c == 1] or [np.array([w / 2, h / 2])]
        for _ in range(2):
            cx, cy = centres[int(rng.integers(len(centres)))] + rng.uniform(-0.3, 0.3, 2) * tile
            x0 = int(np.clip(cx - tile / 2, 0, max(0, w - tile)))
            y0 = int(np.clip(cy - tile / 2, 0, max(0, h - tile)))
            cut = np.full((tile, tile, 3), 114, np.uint8)
            part = img[y0 : y0 + tile, x0 : x0 + tile]
            cut[: part.shape[0], : part.shape[1]] = part
            lines = []
            for cls, q in boxes:
                q = q - (x0, y0)
                area = max(float(np.prod(np.ptp(q, axis=0))), 1e-6)
                box = quad_box(q, tile, tile)  # clipped to the tile
                bw, bh = box[2] - box[0], box[3] - box[1]
                if bw < 2 or bh < 2 or bw * bh < keep * area:
                    continue
                lines.append(yolo_line(cls, box, tile, tile))
                n_idx += cls == 0
                n_card += cls == 1
            write(f"t{seed}_{k:05d}", cut, lines)
            k += 1
            if k >= count:
                break
    return {"images": count, "indices": n_idx, "cards": n_card}


def write_crop_set(
    root: Path,
    split: str,
    decks: list[str],
    count: int,
    size: tuple[int, int],
    seed: int,
    min_px: float = 16.0,
    gray: float = 0.15,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Classifier crops (root/split/<CODE>/*.jpg) cut from frames where indices are as large as
    in a full-resolution camera frame (at least `min_px` tall); some turned grey, as phones do."""
    rng = np.random.default_rng(seed)
    loaded = [Deck.load(d) for d in decks]
    n = 0
    for k in range(count):
        img, labels = random_scene(rng, loaded[k % len(loaded)], size, scale=1.35)
        h, w = img.shape[:2]
        if rng.random() < gray:
            img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        for lab in labels:
            for q in lab.indices if lab.face_up else []:
                box = quad_box(q, w, h)
                if max(box[2] - box[0], box[3] - box[1]) >= min_px:
                    n += _save_crop(root / split / lab.code, img, box, rng, f"c{seed}_{k}")
        if progress:
            progress(k + 1)
    return {"images": count, "crops": n}


def detector_crop_pairs(rec, img: np.ndarray, named) -> list[tuple[str, np.ndarray]]:
    """(code, crop) for every index box `rec`'s detector puts in `img` (as `Recognizer.find`
    gives them, before any is read), each named by the one code of `named` ((code, box) pairs
    in pixels) whose box it overlaps (IoU > 0.3); a box over no labelled index or over two
    codes' is skipped. Crops are squared up, CROP_PX square, BGR."""
    from vision.boxes import iou as _iou

    frame = rec.prepare(img)
    pairs = []
    for box in rec.find(frame)[0]:
        codes = {code for code, b in named if _iou(box, b) > 0.3}
        if len(codes) == 1:
            pairs.append((codes.pop(), square_up(index_crop(frame, box, CROP_PX))))
    return pairs


def write_pairs(root: Path, pairs: list[tuple[str, np.ndarray]], stem: str) -> int:
    """(code, crop) pairs written as root/<CODE>/<stem>_<j>.jpg. Returns how many."""
    for j, (code, crop) in enumerate(pairs):
        folder = root / code
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"{stem}_{j}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return len(pairs)


def detector_crops(rec, img: np.ndarray, named, root: Path, stem: str) -> int:
    """`detector_crop_pairs` written under root (`write_pairs`). Returns how many."""
    return write_pairs(root, detector_crop_pairs(rec, img, named), stem)


def table_detector_crops(
    rec, rng, deck: Deck, size: tuple[int, int], webcam_share: float = 0.25
) -> list[tuple[str, np.ndarray]]:
    """One rendered café table of `deck` (hands in 60 %, `webcam_share` `degrade`d) cut where
    `rec`'s detector puts its index boxes (`detector_crop_pairs`)."""
    img, labels = table_scene(rng, deck, size, 0.6)
    if rng.random() < webcam_share:
        img = degrade(img, rng)
    h, w = img.shape[:2]
    named = [(lab.code, quad_box(q, w, h)) for lab in labels if lab.face_up for q in lab.indices]
    return detector_crop_pairs(rec, img, named)


def write_detector_crop_set(
    root: Path,
    split: str,
    decks: list[str],
    count: int,
    size: tuple[int, int],
    seed: int,
    models: Path | None = None,
    synth_share: float = 0.6,
    webcam_share: float = 0.25,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Classifier crops (root/split/<CODE>/*.jpg) cut where the shipped detector puts its index
    boxes on rendered café tables (`Recognizer(still=True)`: every pass, weak boxes included),
    each named by the labelled index it overlaps (IoU > 0.3 with one code only): the crops the
    classifier is given at run time, box errors, covered corners and fragments as they come.
    `synth_share` of the frames use synthetic designs, `webcam_share` are `degrade`d."""
    from vision.recognizer import Recognizer

    rec = Recognizer(models, still=True)
    rng = np.random.default_rng(seed)
    loaded = [Deck.load(d) for d in decks]
    designs: list[Deck] = []
    n = 0
    for k in range(count):
        deck = pick_deck(rng, loaded[k % len(loaded)], designs, synth_share, 48)
        pairs = table_detector_crops(rec, rng, deck, size, webcam_share)
        n += write_pairs(root / split, pairs, f"d{seed}_{k}")
        if progress:
            progress(k + 1)
    return {"images": count, "crops": n}


def write_face_crop_set(
    root: Path,
    split: str,
    decks: list[str],
    count: int,
    size: tuple[int, int],
    seed: int,
    min_px: float = 40.0,
    progress: Callable[[int], None] | None = None,
    synth_share: float = 0.0,
    synth_designs: int = 48,
) -> dict:
    """Face-reader crops (root/split/<CODE>/*.jpg): every face-up card the detector is taught
    to find (at least `CARD_MIN_VISIBLE` of it in view, its box `min_px` long) cut by its box
    with detector-like noise (`vision.crops.face_crop`); frames alternate between the fully
    random scenes and overhead cafe tables, some turned grey. A `synth_share` of the frames
    use synthetic designs whose number cards' pips are drawn anew (`vision.synthdeck`: other
    pip shapes, sizes and layouts), `synth_designs` of them made as needed."""
    rng = np.random.default_rng(seed)
    loaded = [Deck.load(d) for d in decks]
    designs: list[Deck] = []
    n = 0
    for k in range(count):
        deck = pick_deck(rng, loaded[k % len(loaded)], designs, synth_share, synth_designs, True)
        if k % 2:
            img, labels = table_scene(rng, deck, size, 0.5)
        else:
            img, labels = random_scene(rng, deck, size, occlusion=0.5)
        h, w = img.shape[:2]
        if rng.random() < 0.1:
            img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        for j, lab in enumerate(labels):
            if not lab.face_up or lab.visible < CARD_MIN_VISIBLE:
                continue
            x1, y1, x2, y2 = lab.box
            bw, bh = x2 - x1, y2 - y1
            if max(bw, bh) < min_px:
                continue
            noise = rng.normal(0, 0.04, 4) * np.array([bw, bh, bw, bh])
            crop = face_crop(img, (x1 + noise[0], y1 + noise[1], x2 + noise[2], y2 + noise[3]))
            folder = root / split / lab.code
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"f{seed}_{k}_{j}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            n += 1
        if progress:
            progress(k + 1)
    return {"images": count, "crops": n}


def _save_crop(folder: Path, img, box, rng, stem: str) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    j = rng.normal(0, 0.06, 4) * np.array([bw, bh, bw, bh])  # detector-like box noise
    crop = square_up(index_crop(img, (x1 + j[0], y1 + j[1], x2 + j[2], y2 + j[3])))
    n = len(list(folder.glob(f"{stem}_*.jpg")))
    cv2.imwrite(str(folder / f"{stem}_{n}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return 1


def write_data_yaml(root: Path, names: tuple[str, ...], val: str = "val") -> Path:
    path = root / "data.yaml"
    body = [f"path: {root.resolve()}", "train: images/train", f"val: images/{val}", "names:"]
    body += [f"  {i}: {n}" for i, n in enumerate(names)]
    path.write_text("\n".join(body) + "\n")
    return path


def table_scene(
    rng: np.random.Generator, deck: Deck, size: tuple[int, int], occlusion: float = 0.6
) -> tuple[np.ndarray, list[CardLabel]]:
    """One overhead café-table frame (floor, edge piles, maybe a hand) with its labels."""
    bg = TableBackground.random(rng, size)
    placements = table_layout(rng, size)
    occ = [Occluder.random(rng, size) for _ in range(int(rng.random() < occlusion))]
    cam = Camera.random(rng)
    cam.tilt = min(cam.tilt, 0.04)
    return render(bg, deck, placements, rng, occ, Light.random(rng), cam)


def write_test_set(
    root: Path, deck: str, count: int, size: tuple[int, int], seed: int, occlusion: float = 0.6
) -> dict:
    """A rendered evaluation set in the layout of the real data: one box per visible index,
    class = card code (classes.txt / data.yaml list the 52 codes), images/ and labels/."""
    rng = np.random.default_rng(seed)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    d = Deck.load(deck)
    n_cards = 0
    for k in range(count):
        img, labels = table_scene(rng, d, size, occlusion)
        h, w = img.shape[:2]
        lines = []
        for lab in labels:
            if not lab.face_up or not lab.indices:
                continue
            n_cards += 1
            for q in lab.indices:
                lines.append(yolo_line(CODES.index(lab.code), quad_box(q, w, h), w, h))
        cv2.imwrite(str(root / "images" / f"t{k:04d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (root / "labels" / f"t{k:04d}.txt").write_text("\n".join(lines) + "\n" if lines else "")
    (root / "classes.txt").write_text("\n".join(CODES) + "\n")
    return {"images": count, "cards": n_cards}


def main() -> None:
    """`python -m vision.dataset OUT [--deck D --count N --seed S --size WxH]`: a rendered test set."""
    import argparse

    ap = argparse.ArgumentParser(description="Render a labelled test set of one deck design.")
    ap.add_argument("out", type=Path)
    ap.add_argument("--deck", default="bellot-lgpl21")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--occlusion", type=float, default=0.6)
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    print(write_test_set(a.out, a.deck, a.count, (w, h), a.seed, a.occlusion))


if __name__ == "__main__":
    main()
