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
    assert set(summary["seconds"]) == {"data", "det", "cls", "face", "export"}
    meta = json.loads((out / "recognizer.json").read_text())
    assert len(meta["cls_names"]) == 52
    assert meta["orient"] == "edges"  # trained on squared-up crops, as the runtime cuts them
    assert (out / meta["detector"]).stat().st_size > 100_000
    # one classifier a width (the smoke run's 12 and 8; the shipped 48 and 32): still reads
    # average them, video reads use the last
    assert meta["still"]["classifiers"] == ["card_index_cls_w12.onnx", "card_index_cls_w8.onnx"]
    assert meta["classifier"] == "card_index_cls_w8.onnx"
    assert all((out / f).is_file() for f in meta["still"]["classifiers"])
    # the runtime (this interpreter: onnxruntime, no torch) loads and runs what was exported
    assert "torch" not in sys.modules
    rec = Recognizer(out, min_confidence=0.0)
    frame = cv2.imread(str(REPO / "tests" / "data" / "vision" / "rendered_bellot_0.jpg"))
    cards = rec.recognize(frame)
    assert isinstance(cards, list)
    assert all(c.code in meta["cls_names"] for c in cards)
    # single photos also read each card's face with the trained face reader
    assert (out / meta["still"]["face"]).is_file() and meta["still"]["face_weight"] > 0
    still = Recognizer(out, min_confidence=0.0, still=True)
    assert still.face is not None
    assert all(c.code in meta["cls_names"] for c in still.recognize(frame))
    assert "torch" not in sys.modules
    assert len(still.classifiers) == 2 and len(rec.classifiers) == 1


@pytest.mark.train
@pytest.mark.skipif(
    not TRAIN_PYTHON, reason="BASRA_TRAIN_PYTHON is unset (no training environment)"
)
@pytest.mark.parametrize("widths", ["abc", "48,48", "2", ""])
def test_train_refuses_bad_classifier_widths_in_one_line(tmp_path, widths):
    proc = subprocess.run(
        [TRAIN_PYTHON, "-m", "controller.cli", "train", "--smoke", "--work", str(tmp_path),
         "--cls-widths", widths],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--cls-widths" in proc.stderr and proc.stderr.strip().count("\n") == 0
    assert not any(tmp_path.iterdir())  # nothing rendered or trained


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


RECOVER_CHECK = r"""
import json, sys
from pathlib import Path
import cv2, numpy as np, onnxruntime as ort, torch
from vision.recover import recover_detector, recover_state
from vision.train import offline_env
from vision.train_cls import IndexNet

repo, work = Path(sys.argv[1]), Path(sys.argv[2])
offline_env(work)
frame = cv2.imread(str(repo / "tests/data/vision/rendered_bellot_0.jpg"))
rng = np.random.default_rng(0)
out = {}

def bn_train_mode(net):
    net.eval()
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.train()
            m.momentum = 0.0  # batch statistics used, running ones left alone

# classifier: the index crops the runtime cuts from the three rendered fixture frames
from vision.recognizer import Recognizer
rec = Recognizer(repo / "models")
crops = []
for k in range(3):
    f = cv2.imread(str(repo / f"tests/data/vision/rendered_bellot_{k}.jpg"))
    crops += [rec._crop(f, hit.box) for hit in rec.detect(f)[0]]
crops = np.stack(crops)
x = np.ascontiguousarray(crops[:, :, :, ::-1].transpose(0, 3, 1, 2)).astype(np.float32) / 255
sess = ort.InferenceSession(str(repo / "models/card_index_cls_cover.onnx"), providers=["CPUExecutionProvider"])
ref = sess.run(None, {sess.get_inputs()[0].name: x})[0]
net = IndexNet()
net.load_state_dict(recover_state(repo / "models/card_index_cls_cover.onnx", x))
net.eval()
with torch.no_grad():
    p_eval = net(torch.tensor(x)).numpy()
    bn_train_mode(net)
    p_batch = net(torch.tensor(x)).numpy()
out["cls_crops"] = len(x)
out["cls_agree"] = float((p_eval.argmax(1) == ref.argmax(1)).mean())
out["cls_batch_stats_diff"] = float(np.abs(p_batch - p_eval).max())
# the still reads' wider classifier: its width is read from the file
sess = ort.InferenceSession(str(repo / "models/card_index_cls_w48.onnx"), providers=["CPUExecutionProvider"])
ref = sess.run(None, {sess.get_inputs()[0].name: x})[0]
state = recover_state(repo / "models/card_index_cls_w48.onnx", x)
net = IndexNet(width=48)
net.load_state_dict(state)
net.eval()
with torch.no_grad():
    out["w48_agree"] = float((net(torch.tensor(x)).numpy().argmax(1) == ref.argmax(1)).mean())

# detector: the whole frame at 256 x 160 (padded to the 32 px grid as the runtime does)
img = np.full((160, 256, 3), 114, np.uint8)
img[:144] = cv2.resize(frame, (256, 144), interpolation=cv2.INTER_AREA)
x = img[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255
sess = ort.InferenceSession(str(repo / "models/card_index_det.onnx"), providers=["CPUExecutionProvider"])
ref = sess.run(None, {sess.get_inputs()[0].name: x})[0]
yolo = recover_detector(repo / "models/card_index_det.onnx", repo / "vision/arch/card_det.yaml", x)
net = yolo.model
net.eval()
with torch.no_grad():
    got = net(torch.tensor(x))
    got = (got[0] if isinstance(got, (list, tuple)) else got).numpy()
    bn_train_mode(net)
    batch = net(torch.tensor(x))
    batch = (batch[0] if isinstance(batch, (list, tuple)) else batch).numpy()
out["det_box_diff"] = float(np.abs(got[:, :4] - ref[:, :4]).max())
out["det_score_diff"] = float(np.abs(got[:, 4:] - ref[:, 4:]).max())
out["det_batch_stats_score_diff"] = float(np.abs(batch[:, 4:] - got[:, 4:]).max())
print(json.dumps(out))
"""


@pytest.mark.train
@pytest.mark.skipif(
    not TRAIN_PYTHON, reason="BASRA_TRAIN_PYTHON is unset (no training environment)"
)
def test_the_shipped_models_recover_to_weights_that_train_on(tmp_path):
    # vision.recover: the shipped ONNX files are all there is of the last training phases;
    # the weights taken back from them must compute what the files compute, also in training
    # mode (BatchNorm on batch statistics), or training further would start from a broken model
    proc = subprocess.run(
        [TRAIN_PYTHON, "-c", RECOVER_CHECK, str(REPO), str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OMP_NUM_THREADS": "1", "YOLO_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["cls_crops"] >= 20
    # int8 file vs its float weights: the same names but for int8 rounding (98 % of the 750
    # held-out crops; these ~56 fixture crops are harder, one crop is 1.8 %)
    assert got["cls_agree"] >= 0.9
    assert got["cls_batch_stats_diff"] < 1e-3
    assert got["w48_agree"] >= 0.9
    assert got["det_box_diff"] < 0.05 and got["det_score_diff"] < 1e-3  # px, probability
    assert got["det_batch_stats_score_diff"] < 1e-3


COVER_CHECK = r"""
import json
import numpy as np, torch
from vision.train_cls import cover

g = torch.Generator().manual_seed(0)
x = torch.rand(200, 3, 48, 48)
same = cover(x.clone(), g, 0.0)
y = cover(x.clone(), g, 1.0)
changed = (y - x).abs().amax(dim=1) > 1e-6  # n, h, w
share = changed.float().mean(dim=(1, 2))
# the covered part of each crop lies beyond one straight edge: its pixels are one side of a line
straight = []
yy, xx = np.mgrid[0:48, 0:48]
for m in changed[:50].numpy():
    # a half-plane: some direction orders the pixels so that the changed ones come last
    best = 0.0
    for a in np.radians(np.arange(0, 360, 2)):
        d = (xx * np.cos(a) + yy * np.sin(a)).ravel()
        beyond = d >= np.sort(d)[-int(m.sum())]
        best = max(best, float((beyond == m.ravel()).mean()))
    straight.append(best)
print(json.dumps({"unchanged": bool(torch.equal(same, x)), "min": float(share.min()),
                  "max": float(share.max()), "straight": min(straight)}))
"""


@pytest.mark.train
@pytest.mark.skipif(
    not TRAIN_PYTHON, reason="BASRA_TRAIN_PYTHON is unset (no training environment)"
)
def test_cover_augmentation_hides_part_of_each_index_beyond_a_straight_edge():
    # vision.train_cls.cover: another card lying over a corner index. A labelled index is at
    # least 60 % uncovered (vision.scene), so each covered crop keeps most of itself, and what
    # is covered lies beyond one straight edge (a card's side), not in blotches
    proc = subprocess.run(
        [TRAIN_PYTHON, "-c", COVER_CHECK], cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["unchanged"]  # share 0: nothing covered
    # 8-35 % of the crop beyond the edge, plus the drawn rim beside it
    assert got["min"] >= 0.05 and got["max"] <= 0.45
    assert got["straight"] >= 0.97


def test_a_crop_pack_gives_back_every_crop_and_its_code(tmp_path):
    # vision.train_gpu packs carry rendered crops to a lent GPU machine as JPEG mosaics: every
    # crop must come back in its place with its own code (a shift of one crop in the mosaic
    # would train every crop under its neighbour's name), and close to its pixels
    import numpy as np

    from vision.train_gpu import load_pack, save_pack

    rng = np.random.default_rng(0)
    n = 16384 + 70  # two mosaics, the last row of the second part-filled
    y = rng.integers(0, 52, n)
    x = np.zeros((n, 48, 48, 3), np.uint8)
    x[:] = (y * 4)[:, None, None, None]  # each crop one flat grey naming its code
    x[:, 8:40, 20:28, 0] = 255  # and a red bar, so that the channel order shows
    save_pack(tmp_path / "p.npz", x, y)
    back, labels = load_pack(tmp_path / "p.npz")
    assert back.shape == x.shape and list(labels) == list(y)
    assert np.abs(back.astype(int) - x).mean() < 3
    assert (
        np.abs(back[:, 2, 2, 1].astype(int) - y * 4).max() <= 6
    )  # its own grey, not a neighbour's
    bar = back[:, 24, 24].astype(int)
    assert (bar[:, 0] > 200).all() and (bar[:, 0] - bar[:, 2] > 25).all()  # red stays red


TRAIN_GPU_CHECK = r"""
import json, sys
from pathlib import Path
import numpy as np, torch
from vision.train_gpu import save_pack, train
from vision.train_cls import IndexNet
tmp = Path(sys.argv[1])
rng = np.random.default_rng(1)
y = rng.integers(0, 52, 600)
x = rng.integers(0, 255, (600, 48, 48, 3)).astype(np.uint8)
save_pack(tmp / "train.npz", x, y)
save_pack(tmp / "val.npz", x[:100], y[:100])
(tmp / "chunks").mkdir()
np.savez(tmp / "chunks" / "w0_00000.npz", x=x[:64], labels=y[:64].astype(np.int16))
r = train("t", 8, [str(tmp / "train.npz") + ":2"], tmp / "val.npz", tmp / "chunks", tmp,
          seconds=6, batch=32, round_steps=3)
net = IndexNet(52, 8)
net.load_state_dict(torch.load(tmp / "t.pt", weights_only=True))
import onnxruntime as ort
from vision.train_gpu import export
export(tmp / "t.pt", 8, tmp / "t.onnx")
s = ort.InferenceSession(str(tmp / "t.onnx"), providers=["CPUExecutionProvider"])
p = s.run(None, {s.get_inputs()[0].name: x[:5].transpose(0, 3, 1, 2).astype(np.float32) / 255})[0]
net.eval()
ref = net(torch.tensor(x[:5].transpose(0, 3, 1, 2).astype(np.float32) / 255)).detach().numpy()
print(json.dumps({"rounds": len(r["history"]), "crops": r["history"][0]["crops"],
                  "steps": r["steps"], "shape": list(p.shape),
                  "onnx_diff": float(abs(p - ref).max())}))
"""


@pytest.mark.train
@pytest.mark.skipif(
    not TRAIN_PYTHON, reason="BASRA_TRAIN_PYTHON is unset (no training environment)"
)
def test_gpu_trainer_trains_on_packs_and_new_chunks_and_exports_what_it_learnt(tmp_path):
    # vision.train_gpu.train on the CPU (the same code a lent GPU runs): a pack repeated twice
    # and a worker's chunk that appeared before the first round are all trained on, and the
    # weights saved load into the network of the width asked for and export to ONNX
    proc = subprocess.run(
        [TRAIN_PYTHON, "-c", TRAIN_GPU_CHECK, str(tmp_path)], cwd=REPO, capture_output=True,
        text=True, timeout=180, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["crops"] == 2 * 600 + 64
    assert got["rounds"] >= 1 and got["steps"] >= 3
    # exported as the runtime reads it: one probability per code, as the weights compute
    assert got["shape"] == [5, 52] and got["onnx_diff"] < 1e-4


def test_a_render_worker_writes_crops_named_by_the_code_they_show(tmp_path):
    # vision.train_gpu.work: what a GPU machine's CPUs render while the nets train. A crop filed
    # under another card's code (a shifted list, a code index off by one) would teach the
    # classifier that card; the shipped classifier reads these train-deck crops under their
    # own code far more often than not (a shuffled list: 1 in 52)
    import time

    import numpy as np
    import onnxruntime as ort

    from vision.train_gpu import load_pack, work

    frames = work(tmp_path, seed=5, deadline=time.time() + 4)
    chunks = sorted(tmp_path.glob("w5_*.npz"))
    assert frames >= 1 and chunks and not list(tmp_path.glob("*.part*"))
    x, y = load_pack(chunks[0])
    assert x.shape[1:] == (48, 48, 3) and x.dtype == np.uint8 and len(x) == len(y)
    assert len(y) >= 10 * frames and y.min() >= 0 and y.max() < 52
    s = ort.InferenceSession(
        str(REPO / "models" / "card_index_cls_w48.onnx"), providers=["CPUExecutionProvider"]
    )
    batch = np.ascontiguousarray(x.transpose(0, 3, 1, 2), np.float32) / 255.0
    read = s.run(None, {s.get_inputs()[0].name: batch})[0].argmax(1)
    assert float((read == y).mean()) >= 0.7
