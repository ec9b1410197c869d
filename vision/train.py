"""End-to-end training of the shipped models: render data, train the index detector and the
index classifier with ultralytics (offline, CPU), export both to ONNX and check they load.

Runs only in the training environment (the `train` extra); the runtime never imports it.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from vision.deck import CODES, HOLDOUT_DECK, TRAIN_DECKS

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
DET_ONNX = "card_index_det.onnx"
CLS_ONNX = "card_index_cls.onnx"
FACE_ONNX = "card_face_cls.onnx"
STAGES = ("data", "det", "cls", "face", "export")  # what `run` does, in this order


@dataclass
class TrainConfig:
    """Everything that decides the shipped model; `smoke()` is the tiny CI variant."""

    work: Path = REPO / "runs" / "train"
    out: Path = MODELS
    seed: int = 7
    det_images: int = 1800
    det_val_images: int = 120
    render_size: int = 320  # training frames are rendered at this size ...
    det_size: int = 256  # ... and the detector trains at this one
    det_epochs: int = 8
    det_synth_share: float = 0.5  # share of detector frames drawn with synthetic deck designs
    det_batch: int = 16
    det_model: str = str(Path(__file__).resolve().parent / "arch" / "card_det.yaml")
    det_hours: float | None = None  # a time budget overrides det_epochs (ultralytics `time`)
    cls_images: int = 2600  # frames rendered for classifier crops (val: held-out deck)
    cls_val_images: int = 150
    cls_render_size: int = 512
    cls_art_per_class: int = 300  # extra crops cut straight from the artwork, per card code
    cls_synth_designs: int = 96  # synthetic deck designs (indices redrawn in other typefaces)
    cls_synth_per_class: int = 900  # crops cut from them, per card code
    # café-table frames whose crops are cut where the shipped detector (models/) puts its
    # index boxes: the crops the classifier is given at run time (val: the held-out deck)
    cls_det_images: int = 2400
    cls_det_val_images: int = 150
    cls_det_size: tuple[int, int] = (1280, 720)
    cls_size: int = 48
    cls_epochs: int = 6
    cls_batch: int = 64
    cls_hours: float | None = None  # a time budget overrides cls_epochs
    # the shipped still reads' classifiers: one per width, each trained from scratch for
    # `cls_minutes` by `vision.train_gpu` (on a GPU where there is one; the shipped two had
    # 11 minutes of an H200) and written as card_index_cls_w<W>.onnx; still reads average
    # them and video reads use the last. One width of 32 is the CPU recipe (`train_cls`,
    # `cls_epochs`), written as card_index_cls.onnx and read by both
    cls_widths: tuple[int, ...] = (48, 32)
    cls_minutes: float = 30.0
    cls_lr: float = 0.003
    cls_ema: float | None = 0.999  # exported weights: a moving average over steps
    cls_cover: float = 0.3  # share of crops partly covered, as by a card lying over the index
    face_images: int = 13600  # frames rendered for face-reader crops (val: held-out deck)
    face_val_images: int = 400
    face_render_size: tuple[int, int] = (640, 480)
    face_synth_share: float = 0.375  # share of face frames whose number cards' pips are redrawn
    face_epochs: int = 20
    face_hours: float | None = None  # a time budget overrides face_epochs
    face_lr: float = 0.003
    # the face read's figure / rank / suit exponents, multiplied into the corner reads (tuned)
    face_court_weight: float = 0.5
    face_weight: float = 0.4
    face_suit_weight: float = 0.3
    train_decks: tuple[str, ...] = TRAIN_DECKS
    val_deck: str = HOLDOUT_DECK
    threads: int = 2
    stages: tuple[str, ...] = STAGES
    resume_det: str | None = None
    min_confidence: float = 0.1
    # labelled real photos (vision.realdata.TRAIN_PARTS of them) join both training sets when
    # this folder exists (it does on the developers' machines, not on a user's)
    real_dir: Path | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def smoke(cls, work: Path, out: Path) -> TrainConfig:
        return cls(
            work=work,
            out=out,
            det_images=8,
            det_val_images=4,
            det_epochs=1,
            det_batch=4,
            cls_images=8,
            cls_val_images=4,
            cls_render_size=256,
            cls_art_per_class=2,
            cls_synth_designs=2,
            cls_synth_per_class=2,
            cls_det_images=2,
            cls_det_val_images=1,
            cls_epochs=1,
            cls_batch=16,
            cls_widths=(12, 8),
            cls_minutes=0.1,
            face_images=6,
            face_val_images=2,
            face_render_size=(320, 240),
            face_epochs=1,
            threads=1,
        )


def offline_env(work: Path) -> None:
    """Point ultralytics at a config folder inside the project and keep it off the network."""
    cfg = work / "yolo_config"
    cfg.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    os.environ.setdefault("YOLO_VERBOSE", "False")
    font = cfg / "Arial.ttf"
    if not font.exists():
        import matplotlib

        src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copy(src, font)


def make_data(cfg: TrainConfig, progress) -> dict:
    """Render the detector set (train: four decks, val: the held-out deck) and the crops."""
    from vision.artcrops import write_art_crops, write_synth_crops
    from vision.dataset import (
        DET_NAMES,
        write_crop_set,
        write_data_yaml,
        write_detection_set,
        write_face_crop_set,
    )

    det = cfg.work / "det_data"
    crops = cfg.work / "cls_data"
    for p in (det, crops):
        if p.exists():
            shutil.rmtree(p)
    size = (cfg.render_size, cfg.render_size)
    summary = {}
    jobs = [
        ("det_train", det, "train", list(cfg.train_decks), cfg.det_images, cfg.seed, True),
        ("det_val", det, "val", [cfg.val_deck], cfg.det_val_images, cfg.seed + 1, False),
    ]
    for name, root, split, decks, count, seed, synth in jobs:
        task = progress.add_task(f"render {name}", total=count)
        summary[name] = write_detection_set(
            root, split, decks, count, size, seed,
            progress=lambda k, task=task: progress.update(task, completed=k),
            synth_share=cfg.det_synth_share if synth else 0.0,
        )  # fmt: skip
    csize = (cfg.cls_render_size, cfg.cls_render_size)
    jobs = [
        ("cls_train", "train", list(cfg.train_decks), cfg.cls_images, cfg.seed + 2),
        ("cls_val", "val", [cfg.val_deck], cfg.cls_val_images, cfg.seed + 3),
    ]
    for name, split, decks, count, seed in jobs:
        task = progress.add_task(f"render {name}", total=count)
        summary[name] = write_crop_set(
            crops, split, decks, count, csize, seed,
            progress=lambda k, task=task: progress.update(task, completed=k),
        )  # fmt: skip
    task = progress.add_task("cut artwork crops", total=1)
    summary["cls_art"] = write_art_crops(
        crops / "train", list(cfg.train_decks), cfg.cls_art_per_class, cfg.seed + 4
    )
    progress.update(task, completed=1)
    task = progress.add_task("draw synthetic deck designs", total=cfg.cls_synth_designs)
    summary["cls_synth"] = write_synth_crops(
        crops / "train", list(cfg.train_decks), cfg.cls_synth_designs, cfg.cls_synth_per_class,
        cfg.seed + 5, progress=lambda k, task=task: progress.update(task, completed=k),
    )  # fmt: skip
    summary.update(_detector_crops(cfg, crops, progress))
    faces = cfg.work / "face_data"
    if faces.exists():
        shutil.rmtree(faces)
    jobs = [
        ("face_train", "train", list(cfg.train_decks), cfg.face_images, cfg.seed + 7, True),
        ("face_val", "val", [cfg.val_deck], cfg.face_val_images, cfg.seed + 8, False),
    ]
    for name, split, decks, count, seed, synth in jobs:
        task = progress.add_task(f"render {name}", total=count)
        summary[name] = write_face_crop_set(
            faces, split, decks, count, cfg.face_render_size, seed,
            progress=lambda k, task=task: progress.update(task, completed=k),
            synth_share=cfg.face_synth_share if synth else 0.0,
        )  # fmt: skip
    _fill_missing_classes(faces, whole=True)
    write_data_yaml(det, DET_NAMES)
    real = cfg.real_dir
    if real is not None and (real / "classes.txt").exists():
        from vision.realdata import (
            join_detection_set,
            write_real_crops,
            write_real_detector_crops,
        )

        task = progress.add_task("real photos", total=1)
        summary["det_real"] = join_detection_set(real, det)
        summary["cls_real"] = write_real_crops(real, crops / "train", seed=cfg.seed + 6)
        if cfg.cls_det_images:
            summary["cls_real_det"] = write_real_detector_crops(real, crops / "train")
        progress.update(task, completed=1)
    else:
        summary["real"] = f"no labelled real photos at {real}: rendered data only"
    _fill_missing_classes(crops)
    return summary


def _detector_crops(cfg: TrainConfig, crops: Path, progress) -> dict:
    """Classifier crops cut where the shipped detector (models/) finds indices on rendered
    café tables (`vision.dataset.write_detector_crop_set`), both splits."""
    from vision.dataset import write_detector_crop_set

    summary: dict = {}
    if not cfg.cls_det_images:
        return summary
    jobs = [
        ("cls_det_train", "train", list(cfg.train_decks), cfg.cls_det_images, cfg.seed + 9, 0.6),
        ("cls_det_val", "val", [cfg.val_deck], cfg.cls_det_val_images, cfg.seed + 10, 0.0),
    ]
    for name, split, decks, count, seed, synth in jobs:
        task = progress.add_task(f"render {name}", total=count)
        summary[name] = write_detector_crop_set(
            crops, split, decks, count, cfg.cls_det_size, seed, synth_share=synth,
            progress=lambda k, task=task: progress.update(task, completed=k),
        )  # fmt: skip
    return summary


def _fill_missing_classes(crops: Path, whole: bool = False) -> None:
    """Ultralytics needs every class in both splits; a tiny run may miss some. `whole`: the
    face reader's crops (the whole card), else an index's."""
    import cv2
    import numpy as np

    from vision.crops import face_crop, index_crop, square_up
    from vision.deck import Deck

    for split, deck in (("train", TRAIN_DECKS[0]), ("val", HOLDOUT_DECK)):
        for code in CODES:
            folder = crops / split / code
            if folder.exists() and any(folder.iterdir()):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            face = Deck.load(deck).faces[code]
            rgba = face.image
            a = rgba[:, :, 3:4].astype(np.float32) / 255
            img = (rgba[:, :, :3] * a + 128 * (1 - a)).astype(np.uint8)
            if whole:
                crop = face_crop(img, (0, 0, img.shape[1], img.shape[0]))
            else:
                crop = square_up(index_crop(img, face.indices[0]))
            cv2.imwrite(str(folder / "art.jpg"), crop)


def train_detector(cfg: TrainConfig) -> Path:
    from ultralytics import YOLO

    model = YOLO(cfg.resume_det or cfg.det_model)
    model.train(
        data=str(cfg.work / "det_data" / "data.yaml"),
        imgsz=cfg.det_size,
        epochs=cfg.det_epochs,
        **({"time": cfg.det_hours} if cfg.det_hours else {}),
        batch=cfg.det_batch,
        nbs=cfg.det_batch,  # one optimiser step per batch: more steps for the same CPU
        workers=min(2, cfg.threads),
        device="cpu",
        amp=False,
        pretrained=bool(cfg.resume_det),  # False would rebuild the model from scratch
        project=str(cfg.work),
        name="det",
        exist_ok=True,
        plots=False,
        seed=cfg.seed,
        deterministic=False,
        degrees=0.0,
        fliplr=0.5,
        flipud=0.5,
        mosaic=1.0,
        close_mosaic=max(1, cfg.det_epochs // 4),
        scale=0.5,
        hsv_h=0.03,
        hsv_s=0.6,
        hsv_v=0.4,
        warmup_epochs=0.3,
        warmup_bias_lr=0.0,
        verbose=False,
    )
    return cfg.work / "det" / "weights" / "best.pt"


def _train_net(cfg: TrainConfig, log, name: str, onnx: str, epochs: int, hours, lr: float) -> dict:
    """One `vision.train_cls` run on work/<name>_data, straight to ONNX in work/<name>."""
    from vision.train_cls import train

    (cfg.work / name).mkdir(parents=True, exist_ok=True)
    return train(
        cfg.work / f"{name}_data",
        cfg.work / name / onnx,
        size=cfg.cls_size,
        epochs=epochs,
        seconds=hours * 3600 if hours else None,
        batch=cfg.cls_batch,
        lr=lr,
        seed=cfg.seed,
        log=log,
        ema=cfg.cls_ema,
        quarter_turns=True,  # squared-up crops lie any quarter turn round
        cover_share=cfg.cls_cover,
    )


def cls_files(cfg: TrainConfig) -> list[str]:
    """The classifier files `export` writes, in `cls_widths` order."""
    if tuple(cfg.cls_widths) == (32,):
        return [CLS_ONNX]
    return [f"card_index_cls_w{w}.onnx" for w in cfg.cls_widths]


def train_classifier(cfg: TrainConfig, log) -> dict:
    """The index classifier(s): `vision.train_cls` for the one-width CPU recipe, else one
    `vision.train_gpu.train` run of `cls_minutes` per width on the crops packed."""
    if cls_files(cfg) == [CLS_ONNX]:
        return _train_net(cfg, log, "cls", CLS_ONNX, cfg.cls_epochs, cfg.cls_hours, cfg.cls_lr)
    import torch

    from vision.train_gpu import pack_folder, train

    run_dir = cfg.work / "cls"
    run_dir.mkdir(parents=True, exist_ok=True)
    data = cfg.work / "cls_data"
    for split in ("train", "val"):
        pack_folder(data / split, run_dir / f"{split}.npz")
    gpu = torch.cuda.is_available()
    results = {}
    for width in cfg.cls_widths:
        r = train(
            f"w{width}", width, [str(run_dir / "train.npz")], run_dir / "val.npz", None, run_dir,
            cfg.cls_minutes * 60, lr=cfg.cls_lr, batch=512 if gpu else cfg.cls_batch,
            ema=cfg.cls_ema or 0.999, cover_share=cfg.cls_cover, seed=cfg.seed,
            round_steps=250 if gpu else 50,
        )  # fmt: skip
        last = r["history"][-1] if r["history"] else {}
        log(f"classifier w{width}: {r['steps']} steps, held-out top1 {last.get('val_top1')}")
        results[f"w{width}"] = {"steps": r["steps"], "val_top1": last.get("val_top1")}
    return results


def train_face(cfg: TrainConfig, log) -> dict:
    """The face reader: the index classifier's network and loop on whole-card crops
    (`vision.crops.face_crop`)."""
    return _train_net(cfg, log, "face", FACE_ONNX, cfg.face_epochs, cfg.face_hours, cfg.face_lr)


def export(cfg: TrainConfig) -> dict:
    """Export the detector to ONNX, copy both models into cfg.out and describe them."""
    from ultralytics import YOLO

    cfg.out.mkdir(parents=True, exist_ok=True)
    det = YOLO(str(cfg.work / "det" / "weights" / "best.pt"))
    p = det.export(format="onnx", imgsz=cfg.det_size, dynamic=True, simplify=True, opset=17)
    shutil.copy(p, cfg.out / DET_ONNX)
    from vision.quantize import quantize_classifier
    from vision.train_gpu import export as export_weights

    files = cls_files(cfg)
    for width, name in zip(cfg.cls_widths, files, strict=True):
        if name != CLS_ONNX:  # a train_gpu run's weights: to float ONNX first
            export_weights(cfg.work / "cls" / f"w{width}.pt", width, cfg.work / "cls" / name)
        quantize_classifier(
            cfg.work / "cls" / name, cfg.out / name, cfg.work / "cls_data" / "train",
            size=cfg.cls_size, count=min(512, 64 * cfg.cls_batch),
        )  # fmt: skip
    shutil.copy(cfg.work / "face" / FACE_ONNX, cfg.out / FACE_ONNX)  # fp32: a few reads a photo
    from vision.recognizer import Recognizer as R

    meta = {
        "detector": DET_ONNX,
        "classifier": files[-1],
        "det_names": ["index", "card"],
        "cls_names": list(CODES),
        "cls_size": cfg.cls_size,
        "orient": "edges",
        "det_train_size": cfg.det_size,
        "index_conf": 0.25,
        "card_conf": 0.3,
        "min_confidence": cfg.min_confidence,
        "half_turn": True,
        "card_px": R.CARD_PX,
        "expose_white": R.EXPOSE_WHITE,
        "classifier_int8": True,
        "half_turn_below": R.HALF_TURN_BELOW,
        "lone_min_confidence": R.LONE_MIN_CONFIDENCE,
        "pair_split_sure": R.PAIR_SPLIT_SURE,
        "pair_min_joint": R.PAIR_MIN_JOINT,
        "low_index_conf": R.LOW_INDEX_CONF,
        "low_index_sure": R.LOW_INDEX_SURE,
        "weak_first_read": R.WEAK_FIRST_READ,
        "bare_look": R.BARE_LOOK,
        "corner_mates": R.CORNER_MATES,
        "face": FACE_ONNX,
        **R.VIDEO_FACE,
        "still": {
            **R.STILL,
            **({"classifiers": files} if len(files) > 1 else {}),
            "face_doubt": 0.0,
            "face_turns": 4,
            "face": FACE_ONNX,
            "face_court_weight": cfg.face_court_weight,
            "face_weight": cfg.face_weight,
            "face_suit_weight": cfg.face_suit_weight,
        },
    }
    (cfg.out / "recognizer.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def run(cfg: TrainConfig) -> dict:
    """Run the configured stages with rich progress; return a summary (also saved as JSON)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    cfg.work.mkdir(parents=True, exist_ok=True)
    offline_env(cfg.work)
    import torch

    torch.set_num_threads(cfg.threads)
    console = Console(stderr=True)
    summary: dict = {"config": {k: str(v) for k, v in asdict(cfg).items()}, "seconds": {}}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        stages = progress.add_task("stages", total=len(cfg.stages))
        for stage in cfg.stages:
            t0 = time.time()
            progress.update(stages, description=f"stage: {stage}")
            if stage == "data":
                summary["data"] = make_data(cfg, progress)
            elif stage == "det":
                summary["det_weights"] = str(train_detector(cfg))
            elif stage == "cls":
                summary["cls"] = train_classifier(cfg, console.log)
            elif stage == "face":
                summary["face"] = train_face(cfg, console.log)
            elif stage == "export":
                summary["export"] = export(cfg)
            else:
                raise ValueError(f"unknown stage {stage!r}")
            summary["seconds"][stage] = round(time.time() - t0, 1)
            progress.advance(stages)
    (cfg.work / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    return summary
