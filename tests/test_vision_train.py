"""The training path end to end (tiny): render, train both models one epoch, export, load, predict.

Runs `basra-table train --smoke` in the training environment named by BASRA_TRAIN_PYTHON
(ultralytics and torch never enter the runtime environment).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from vision.recognizer import Recognizer

REPO = Path(__file__).resolve().parents[1]
TRAIN_PYTHON = os.environ.get("BASRA_TRAIN_PYTHON")


@pytest.mark.train
@pytest.mark.slow
@pytest.mark.skipif(
    not TRAIN_PYTHON, reason="BASRA_TRAIN_PYTHON is unset (no training environment)"
)
def test_smoke_training_exports_models_the_runtime_loads(tmp_path):
    out = tmp_path / "models"
    proc = subprocess.run(
        [
            TRAIN_PYTHON,
            "-m",
            "controller.cli",
            "train",
            "--smoke",
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(out),
        ],  # fmt: skip
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(summary["seconds"]) == {"data", "det", "cls", "export"}
    meta = json.loads((out / "recognizer.json").read_text())
    assert len(meta["cls_names"]) == 52
    assert (out / meta["detector"]).stat().st_size > 100_000
    # the runtime (this interpreter: onnxruntime, no torch) loads and runs what was exported
    assert "torch" not in sys.modules
    rec = Recognizer(out, min_confidence=0.0)
    frame = cv2.imread(str(REPO / "tests" / "data" / "vision" / "rendered_bellot_0.jpg"))
    cards = rec.recognize(frame)
    assert isinstance(cards, list)
    assert all(c.code in meta["cls_names"] for c in cards)
    assert "torch" not in sys.modules


def test_train_without_the_train_extra_is_a_clear_error(capsys):
    pytest.importorskip("onnxruntime")
    try:
        import ultralytics  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("this interpreter has the train extra")
    from controller.cli import run

    assert run(["train", "--smoke"]) == 2
    err = capsys.readouterr().err
    assert "train extra" in err and err.count("\n") == 1
