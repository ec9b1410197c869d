"""Fine-tuning phase of the shipped detector: its weights taken back from the ONNX file, trained on.

`python -m vision.finetune_det WORK [--hours 1.2]` reproduces the 2026-12-02 phase (model card);
`--webcam-share 0.5 --seed 91 --hours 1.0` the still-photo detector tried on 2026-12-03 (not
shipped: it traded the rendered held-out deck for the webcam frames; model card, History);
`--frames 1200 --table-tiles 1600 --threads 2 --seed 131 --lr0 3e-4 --hours 0.95` the café-table
fine-tune tried on 2026-12-04 (not shipped either: its boxes read worse; model card, History).
"""

from __future__ import annotations

import argparse
import glob
from pathlib import Path

import numpy as np

from vision.deck import HOLDOUT_DECK, TRAIN_DECKS
from vision.train import MODELS, REPO, offline_env


def make_data(
    root: Path,
    frames: int,
    real: Path | None,
    seed: int = 77,
    webcam_share: float = 0.0,
    table_tiles: int = 0,
) -> Path:
    """Rendered detector frames (train decks, 60 % synthetic designs, `webcam_share` of them
    seen as a cheap webcam would: `vision.webcam`; held-out deck for val), `table_tiles` more
    cut from rendered café tables at the still reads' scale (`write_table_tiles`; as many of
    the held-out deck join val), plus the labelled real training photos where `real` exists;
    returns the data.yaml."""
    from vision.dataset import DET_NAMES, write_data_yaml, write_detection_set, write_table_tiles

    write_detection_set(root, "val", [HOLDOUT_DECK], 120, (320, 320), 8)
    write_detection_set(
        root, "train", list(TRAIN_DECKS), frames, (320, 320), seed, synth_share=0.6,
        webcam_share=webcam_share,
    )  # fmt: skip
    if table_tiles:
        write_table_tiles(root, "val", [HOLDOUT_DECK], 120, 9, synth_share=0.0)
        write_table_tiles(root, "train", list(TRAIN_DECKS), table_tiles, seed + 1000)
    yaml = write_data_yaml(root, DET_NAMES)
    if real is not None and (real / "classes.txt").exists():
        from vision.realdata import join_detection_set

        join_detection_set(real, root)
    return yaml


def start_weights(work: Path, onnx: Path, data: Path) -> Path:
    """The shipped detector as an ultralytics checkpoint (BatchNorm re-folded on 64 frames)."""
    import cv2

    from vision.recover import recover_detector

    files = sorted(glob.glob(str(data / "images" / "train" / "*")))
    pick = np.random.default_rng(0).permutation(len(files))[:64]
    x = np.stack(
        [cv2.resize(cv2.imread(files[i]), (256, 256))[:, :, ::-1].transpose(2, 0, 1) for i in pick]
    )
    yolo = recover_detector(onnx, REPO / "vision" / "arch" / "card_det.yaml", x / 255.0)
    path = work / "det_start.pt"
    yolo.save(str(path))
    return path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("work", type=Path, help="scratch folder")
    ap.add_argument("--hours", type=float, default=1.2, help="wall-clock box (ultralytics time)")
    ap.add_argument("--frames", type=int, default=2400)
    ap.add_argument("--onnx", type=Path, default=MODELS / "card_index_det.onnx")
    ap.add_argument("--real", type=Path, default=REPO.parent / "shared/data/real/ammememe")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=77, help="the rendered frames' draw")
    ap.add_argument(
        "--webcam-share", type=float, default=0.0, help="share of frames seen as a cheap webcam's"
    )
    ap.add_argument(
        "--table-tiles", type=int, default=0, help="frames cut from rendered café tables"
    )
    ap.add_argument("--lr0", type=float, default=4e-4)
    a = ap.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    offline_env(a.work)
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(a.threads)
    data = a.work / "det_data"
    real = a.real if a.real.exists() else None
    yaml = make_data(data, a.frames, real, a.seed, a.webcam_share, a.table_tiles)
    model = YOLO(str(start_weights(a.work, a.onnx, data)))
    model.train(
        data=str(yaml), imgsz=256, epochs=40, time=a.hours, batch=16, nbs=16, workers=1,
        device="cpu", amp=False, pretrained=True, project=str(a.work), name="det",
        exist_ok=True, plots=False, seed=5, deterministic=False, degrees=0.0, fliplr=0.5,
        flipud=0.5, mosaic=1.0, close_mosaic=3, scale=0.5, hsv_h=0.03, hsv_s=0.6, hsv_v=0.4,
        warmup_epochs=0.1, warmup_bias_lr=0.0, optimizer="AdamW", lr0=a.lr0, lrf=0.1, save_period=1,
    )  # fmt: skip
    print(a.work / "det" / "weights" / "best.pt")


if __name__ == "__main__":
    main()
