"""`basra-table recognize`, `eval` and `train`: the card recogniser's command-line face.

Heavy imports (onnxruntime, ultralytics) happen inside the commands, never at registration.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from controller.errors import UserError


def _recognizer(
    models: Path | None, det_size: int | None, min_confidence: float | None, still: bool = True
):
    """Single-photo reads (`still`), or the table controller's video reads."""
    from vision.recognizer import ModelMissingError, Recognizer

    if det_size is not None and (det_size < 64 or det_size > 2048):
        raise UserError(f"--det-size must be between 64 and 2048, got {det_size}")
    if min_confidence is not None and not 0 <= min_confidence <= 1:
        raise UserError(f"--min-confidence must be between 0 and 1, got {min_confidence}")
    try:
        return Recognizer(models, det_size=det_size, min_confidence=min_confidence, still=still)
    except ModelMissingError as exc:
        raise UserError(str(exc)) from None


def recognize(
    images: list[Path] = typer.Argument(..., help="Image files to read (JPEG, PNG …)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list, one object per image."),
    out: Path | None = typer.Option(None, "--out", help="Write annotated images into this folder."),
    models: Path | None = typer.Option(None, "--models", help="Folder with the ONNX models."),
    det_size: int | None = typer.Option(
        None, "--det-size", help="Detector input, long side in px (default: fitted to the cards)."
    ),
    min_confidence: float | None = typer.Option(
        None, "--min-confidence", help="Report cards at or above this confidence."
    ),
) -> None:
    """Recognise the cards in each image: code, confidence, box and outline."""
    import cv2

    from vision.image_file import ImageFileError, read_image

    rec = _recognizer(models, det_size, min_confidence)
    if out is not None and out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")
    results, failed = [], 0
    for path in images:
        try:
            img = read_image(path)
        except ImageFileError as why:
            _unreadable(path, str(why))
            failed += 1
            continue
        cards = rec.recognize(img)
        results.append({"image": str(path), "cards": [c.to_dict() for c in cards]})
        if out is not None:  # the folder is made only when there is something to put in it
            try:
                out.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UserError(f"--out {out}: cannot make the folder ({exc.strerror})") from None
            cv2.imwrite(str(out / f"{path.stem}.annotated.png"), annotate(img, cards))
        if not as_json:
            found = " ".join(f"{c.code}({c.confidence:.2f})" for c in cards) or "no cards"
            print(f"{path}: {found}")
    if as_json:
        print(json.dumps(results, indent=1))
    if failed:
        _exit_2()


def annotate(img, cards):
    """A copy of the image with each card's outline and code drawn on it."""
    import cv2
    import numpy as np

    vis = img.copy()
    for c in cards:
        q = np.array(c.quad, np.int32)
        cv2.polylines(vis, [q], True, (0, 220, 0), 2)
        x, y = int(c.box[0]), max(14, int(c.box[1]) - 4)
        label = f"{c.code} {c.confidence:.2f}"
        cv2.putText(vis, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4)
        cv2.putText(vis, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 1)
    return vis


def evaluate(
    dataset: Path = typer.Argument(..., help="A YOLO (images/+labels/) or Pascal VOC folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the full report as JSON."),
    models: Path | None = typer.Option(None, "--models", help="Folder with the ONNX models."),
    det_size: int | None = typer.Option(
        None, "--det-size", help="Detector input, long side in px (default: fitted to the cards)."
    ),
    limit: int = typer.Option(0, "--limit", help="Evaluate at most this many images (0: all)."),
    min_confidence: float | None = typer.Option(None, "--min-confidence"),
    video: bool = typer.Option(
        False,
        "--video",
        help="Read each image as the table controller reads a video frame (faster: one "
        "classifier, no extra views, the face reader only on a figure-or-number doubt; the 60 ms"
        " target's reads), not as a photo.",
    ),
) -> None:
    """Card-set precision/recall/F1 per image and per class, worst confusions, frames/s."""
    from rich.console import Console
    from rich.progress import Progress

    from vision.evaluate import DatasetError, load_dataset
    from vision.evaluate import evaluate as run_eval

    if limit < 0:
        raise UserError(f"--limit must be 0 or more, got {limit}")
    try:
        samples = load_dataset(dataset)
    except DatasetError as exc:
        raise UserError(str(exc)) from None
    if limit:
        samples = samples[:limit]
    rec = _recognizer(models, det_size, min_confidence, still=not video)
    console = Console(stderr=True)  # the bar only on a terminal: a pipe gets the report alone
    with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(f"eval {dataset}", total=len(samples))
        report = run_eval(rec, samples, lambda k: progress.update(task, completed=k))
    report["dataset"] = str(dataset)
    report["reads"] = "video" if video else "still"
    for image in report["per_image"]:
        if "error" in image:  # the figures leave it out; the command ends with exit 2
            _unreadable(image["image"], image["error"])
    if as_json:
        print(json.dumps(report, indent=1))
    else:
        _print_report(dataset, report)
    if report["unreadable"]:
        _exit_2()


def _unreadable(path, why: str) -> None:
    """The one line naming an image that could not be read, and why."""
    print(f"error: cannot read image {path}: {why}", file=sys.stderr)


def _exit_2() -> None:
    """Exit 2 once everything readable was reported: each unreadable image was named above."""
    import click

    raise click.exceptions.Exit(2)


def _print_report(dataset: Path, report: dict) -> None:
    left_out = f" ({report['unreadable']} unreadable, left out)" if report["unreadable"] else ""
    print(
        f"{dataset}: {report['images']} images{left_out}  precision {report['precision']:.4f}  "
        f"recall {report['recall']:.4f}  F1 {report['f1']:.4f}  "
        f"exact {report['exact_images']}/{report['images']}  {report['fps']:.1f} frames/s "
        f"(median {report['median_ms']:.0f} ms, {report['reads']} reads)"
    )
    if "localisation_recall" in report:
        print(f"localisation recall (whole-card boxes): {report['localisation_recall']:.4f}")
    print("worst classes:")
    for w in report["worst_classes"]:
        conf = ", ".join(f"{k}×{v}" for k, v in w["confused_with"].items()) or "-"
        print(
            f"  {w['class']:>3}  F1 {w['f1']:.3f}  tp {w['tp']} fp {w['fp']} fn {w['fn']}  "
            f"missed as: {conf}"
        )


def train(
    smoke: bool = typer.Option(False, "--smoke", help="A tiny run: few images, one epoch."),
    work: Path | None = typer.Option(None, "--work", help="Scratch folder (default runs/train)."),
    out: Path | None = typer.Option(
        None, "--out", help="Where the ONNX models go (default models/)."
    ),
    det_epochs: int | None = typer.Option(None, "--det-epochs", min=1),
    cls_epochs: int | None = typer.Option(None, "--cls-epochs", min=1),
    face_epochs: int | None = typer.Option(None, "--face-epochs", min=1),
    det_images: int | None = typer.Option(None, "--det-images", min=4),
    cls_widths: str | None = typer.Option(
        None,
        "--cls-widths",
        help="Comma-separated classifier widths (default 48,32: the still reads' two, each "
        "trained from scratch, on a GPU where there is one; 32 alone: the CPU recipe).",
    ),
    cls_minutes: float | None = typer.Option(
        None, "--cls-minutes", min=0.01, help="Time box per classifier of several widths."
    ),
    threads: int | None = typer.Option(None, "--threads", min=1),
    stages: str | None = typer.Option(
        None, "--stages", help="Comma-separated stages (default: data,det,cls,face,export)."
    ),
    real: Path | None = typer.Option(
        None,
        "--real",
        help="Labelled real photos to train on too (the ammememe folder; default "
        "../shared/data/real/ammememe where it exists).",
    ),
) -> None:
    """Reproduce the shipped models end to end (needs the `train` extra)."""
    try:
        import ultralytics  # noqa: F401
    except ImportError:
        raise UserError(
            "training needs the train extra (pip install -e '.[train]' in its own environment, "
            "e.g. /tmp/basra-train-venv); this Python lacks ultralytics"
        ) from None
    from vision.train import MODELS, REPO, STAGES, TrainConfig, run

    chosen = STAGES if stages is None else tuple(s.strip() for s in stages.split(",") if s.strip())
    bad = [s for s in chosen if s not in STAGES]
    if bad or not chosen:
        raise UserError(
            f"--stages: unknown stage {bad[0] if bad else '(none)'}; use {','.join(STAGES)}"
        )
    work = work or REPO / "runs" / ("smoke" if smoke else "train")
    out = out or (work / "models" if smoke else MODELS)
    cfg = TrainConfig.smoke(work, out) if smoke else TrainConfig(work=work, out=out)
    for name, value in (
        ("det_epochs", det_epochs),
        ("cls_epochs", cls_epochs),
        ("face_epochs", face_epochs),
        ("det_images", det_images),
        ("threads", threads),
    ):
        if value is not None:
            setattr(cfg, name, value)
    cfg.stages = chosen
    if cls_widths is not None:
        try:
            widths = tuple(int(w) for w in cls_widths.split(","))
        except ValueError:
            widths = ()
        if not widths or any(w < 4 or w > 256 for w in widths) or len(set(widths)) < len(widths):
            raise UserError(
                f"--cls-widths {cls_widths}: give distinct whole widths from 4 to 256, e.g. 48,32"
            )
        cfg.cls_widths = widths
    if cls_minutes is not None:
        cfg.cls_minutes = cls_minutes
    if real is not None and not (real / "classes.txt").exists():
        raise UserError(f"--real {real}: not a labelled photo folder (no classes.txt)")
    if not smoke:
        from vision.realdata import REAL_DEFAULT

        cfg.real_dir = real or (REAL_DEFAULT if REAL_DEFAULT.exists() else None)
    summary = run(cfg)
    print(json.dumps({"out": str(out), "seconds": summary["seconds"]}))


def register(app: typer.Typer) -> None:
    app.command("recognize")(recognize)
    app.command("eval")(evaluate)
    app.command("train")(train)
