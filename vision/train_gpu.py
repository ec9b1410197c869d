"""Trains corner-index classifiers on one GPU while CPU workers render more crops for them.

Packs (crops as JPEG mosaics) carry what was rendered beforehand; workers add chunks as they go.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.deck import CODES

SIZE = 48  # the classifier's input
COLS = 64  # crops per mosaic row


def _grid(x: np.ndarray) -> np.ndarray:
    """(N, SIZE, SIZE, 3) crops as one image, COLS a row (the last row padded black)."""
    rows = -(-len(x) // COLS)
    pad = np.zeros((rows * COLS - len(x), SIZE, SIZE, 3), np.uint8)
    g = np.concatenate([x, pad]).reshape(rows, COLS, SIZE, SIZE, 3)
    return g.transpose(0, 2, 1, 3, 4).reshape(rows * SIZE, COLS * SIZE, 3)


def save_pack(out: Path, x_rgb: np.ndarray, y: np.ndarray, quality: int = 90) -> None:
    """Crops (N, SIZE, SIZE, 3 RGB uint8) and class indices as JPEG mosaics of 16,384 each."""
    parts = {}
    for k, s in enumerate(range(0, len(y), 16384)):
        ok, buf = cv2.imencode(
            ".jpg", _grid(x_rgb[s : s + 16384, :, :, ::-1]), [cv2.IMWRITE_JPEG_QUALITY, quality]
        )
        parts[f"m{k:03d}"] = buf.ravel()
    np.savez(out, labels=np.asarray(y, np.int16), **parts)


def load_pack(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """A pack (`save_pack`) or a worker's chunk back as (N, SIZE, SIZE, 3) RGB and labels."""
    with np.load(path) as z:
        y = z["labels"].astype(np.int64)
        if "x" in z:
            return z["x"], y
        xs = []
        for key in sorted(k for k in z.files if k.startswith("m")):
            g = cv2.imdecode(z[key], cv2.IMREAD_COLOR)[:, :, ::-1]
            rows = g.shape[0] // SIZE
            xs.append(
                g.reshape(rows, SIZE, COLS, SIZE, 3)
                .transpose(0, 2, 1, 3, 4)
                .reshape(-1, SIZE, SIZE, 3)
            )
    return np.ascontiguousarray(np.concatenate(xs)[: len(y)]), y


def pack_folder(root: Path, out: Path) -> int:
    """root/<CODE>/*.jpg (any crop size: resized as `train_cls.load_folder` does) as one pack."""
    from vision.train_cls import load_folder

    x, y = load_folder(root, SIZE, list(CODES))
    save_pack(out, x, y)
    return len(y)


def _small(crop_bgr: np.ndarray) -> np.ndarray:
    return cv2.resize(crop_bgr, (SIZE, SIZE), interpolation=cv2.INTER_AREA)[:, :, ::-1]


def work(out: Path, seed: int, deadline: float, chunk: int = 1024, art_per_frame: int = 10) -> int:
    """Render until `deadline` (epoch seconds): café tables of the train decks (60 % drawn with
    synthetic designs, a quarter `degrade`d) cut where the shipped detector puts its index boxes,
    and `art_per_frame` artwork crops a frame (three in four from fresh synthetic designs), saved
    as out/w<seed>_<k>.npz chunks of `chunk` crops."""
    from vision.artcrops import art_crop
    from vision.dataset import pick_deck, table_detector_crops
    from vision.deck import TRAIN_DECKS, Deck
    from vision.recognizer import Recognizer
    from vision.synthdeck import synth_deck

    cv2.setNumThreads(1)
    rec = Recognizer(None, still=True)
    rng = np.random.default_rng(seed)
    decks = [Deck.load(d) for d in TRAIN_DECKS]
    table_designs: list = []
    art_designs: list = []
    xs: list[np.ndarray] = []
    ys: list[int] = []
    written = 0
    frame = 0

    def flush() -> None:
        nonlocal written, xs, ys
        if not ys:
            return
        tmp = out / f"w{seed}_{written:05d}.part.npz"
        np.savez(tmp, x=np.stack(xs), labels=np.array(ys, np.int16))
        os.replace(tmp, out / f"w{seed}_{written:05d}.npz")
        written += 1
        xs, ys = [], []

    out.mkdir(parents=True, exist_ok=True)
    while time.time() < deadline:
        base = decks[frame % len(decks)]
        deck = pick_deck(rng, base, table_designs, 0.6, 48)
        for code, crop in table_detector_crops(rec, rng, deck, (1280, 720)):
            xs.append(_small(crop))
            ys.append(CODES.index(code))
        if frame % 6 == 0:
            art_designs = (art_designs + [synth_deck(rng, base)])[-24:]
        for _ in range(art_per_frame):
            code = CODES[int(rng.integers(len(CODES)))]
            if rng.random() < 0.75:
                design = art_designs[int(rng.integers(len(art_designs)))]
            else:
                design = decks[int(rng.integers(len(decks)))]
            xs.append(_small(art_crop(rng, design, code)))
            ys.append(CODES.index(code))
        frame += 1
        if len(ys) >= chunk:
            flush()
    flush()
    return frame


def train(
    name: str,
    width: int,
    packs: list[str],
    val: Path,
    chunks: Path | None,
    out: Path,
    seconds: float,
    lr: float = 3e-3,
    batch: int = 512,
    init: Path | None = None,
    warmup_steps: int = 300,
    ema: float = 0.999,
    cover_share: float = 0.3,
    seed: int = 0,
    round_steps: int = 250,
) -> dict:
    """Train one `IndexNet(width)` for `seconds` on the packs (`PATH[:REPEAT]`) and whatever
    chunks appear in `chunks` meanwhile (read between rounds of `round_steps` steps), quarter
    turns and covering as `train_cls`, the cosine decay following elapsed time; evaluate the
    weights' moving average on `val` each round (all four turns) and save it as out/<name>.pt."""
    import torch
    from torch import nn
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    from vision.train_cls import IndexNet, accuracy, augment, lr_scale

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    if dev == "cuda":  # the CPU only feeds the GPU: leave the cores to the render workers
        torch.set_num_threads(2)
    torch.manual_seed(seed)
    g = torch.Generator(device=dev).manual_seed(seed)
    if dev == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True

    def to_dev(x: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(x).to(dev).permute(0, 3, 1, 2).contiguous()

    xs, ys = [], []
    for spec in packs:
        path, _, rep = spec.partition(":")
        x, y = load_pack(Path(path))
        for _ in range(int(rep or 1)):
            xs.append(to_dev(x))
            ys.append(torch.from_numpy(y).to(dev))
    xtr, ytr = torch.cat(xs), torch.cat(ys)
    xv, yv = load_pack(val)
    xva = to_dev(xv).float() / 255.0
    yva = torch.from_numpy(yv).to(dev)
    model = IndexNet(len(CODES), width).to(dev)
    if init is not None:
        state = torch.load(init, map_location=dev, weights_only=True)
        model.load_state_dict(state.get("model", state))
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    averaged = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(ema), use_buffers=True)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    seen: set[str] = set()
    history = []
    t0 = time.time()
    step = 0
    print(f"{name}: width {width}, {len(ytr)} crops packed, {len(yva)} val, {dev}", flush=True)
    while time.time() - t0 < seconds:
        if chunks is not None and chunks.exists():
            fresh = [p for p in sorted(chunks.glob("*.npz")) if p.name not in seen]
            got_x, got_y = [xtr], [ytr]
            for p in fresh:
                if ".part" in p.name:
                    continue
                try:
                    x, y = load_pack(p)
                except (OSError, ValueError, KeyError):
                    continue
                seen.add(p.name)
                got_x.append(to_dev(x))
                got_y.append(torch.from_numpy(y).to(dev))
            if len(got_x) > 1:
                xtr, ytr = torch.cat(got_x), torch.cat(got_y)
        model.train()
        run_loss = torch.zeros((), device=dev)
        done = 0
        for _ in range(round_steps):
            frac = (time.time() - t0) / seconds
            if frac >= 1:
                break
            idx = torch.randint(0, len(ytr), (batch,), device=dev, generator=g)
            xb = augment(xtr[idx].float() / 255.0, g, True, cover_share)
            scale = lr_scale(step, warmup_steps, frac)
            for group in opt.param_groups:
                group["lr"] = float(lr * scale)
            with torch.autocast(dev, dtype=torch.bfloat16, enabled=dev == "cuda"):
                loss = loss_fn(model(xb.contiguous(memory_format=torch.channels_last)), ytr[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            averaged.update_parameters(model)
            run_loss += loss.detach()
            step += 1
            done += 1
        if done == 0:
            break
        acc = accuracy(averaged.module, xva, yva, True)
        history.append(
            {
                "step": step,
                "crops": len(ytr),
                "loss": round(float(run_loss) / done, 4),
                "val_top1": acc,
                "seconds": round(time.time() - t0, 1),
            }
        )
        print(f"{name}: {json.dumps(history[-1])}", flush=True)
    state = {k: v.detach().float().cpu() for k, v in averaged.module.state_dict().items()}
    if width > 48:  # keeps the file under the 16 MiB a lent machine sends back
        state = {k: v.half() if v.is_floating_point() else v for k, v in state.items()}
    out.mkdir(parents=True, exist_ok=True)
    torch.save(state, out / f"{name}.pt")
    return {"name": name, "width": width, "steps": step, "history": history}


def export(weights: Path, width: int, out: Path) -> None:
    """A saved `train` result (fp16 or fp32) as the float ONNX classifier `vision.quantize`
    makes int8 (the runtime's input and output: `train_cls.export_onnx`)."""
    import torch

    from vision.train_cls import IndexNet, export_onnx

    state = torch.load(weights, map_location="cpu", weights_only=True)
    net = IndexNet(len(CODES), width)
    net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    export_onnx(net, out, SIZE)


def run(args: argparse.Namespace) -> int:
    """Workers and trainers as child processes; the trainers' output gathered in out/train.log
    (a trainer that fails has its output's end printed at once)."""
    import contextlib
    import tempfile

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    chunks = Path(args.chunks)
    chunks.mkdir(parents=True, exist_ok=True)
    logs = Path(tempfile.mkdtemp(prefix="train_gpu_"))
    t0 = time.time()
    env = dict(os.environ, BASRA_VISION_THREADS="1", PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    me = [sys.executable, "-m", "vision.train_gpu"]
    deadline = str(t0 + args.seconds - 60)
    with contextlib.ExitStack() as files:
        workers = []
        for k in range(args.workers):
            err = files.enter_context(open(logs / f"worker{k}.err", "w"))
            seed = str(args.seed_base + k)  # a new base a run: chunks are named by seed
            cmd = [*me, "work", str(chunks), "--seed", seed, "--deadline", deadline]
            workers.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err))
        trainers = []
        for spec in args.net:
            name, width, *rest = spec.split(":")
            cmd = [*me, "train", name, width, str(args.val), str(out), "--chunks", str(chunks)]
            cmd += ["--seconds", str(args.seconds), "--packs", *args.packs]
            if rest and rest[0]:
                cmd += ["--init", rest[0]]
            if len(rest) > 1:
                cmd += ["--lr", rest[1]]
            log = files.enter_context(open(logs / f"{name}.log", "w"))
            proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
            trainers.append((name, proc))
        codes: dict[str, int] = {}
        while len(codes) < len(trainers):
            time.sleep(5)
            for name, proc in trainers:
                if name not in codes and proc.poll() is not None:
                    codes[name] = proc.returncode
                    print(f"[{time.time() - t0:.0f}s] {name} exited {proc.returncode}", flush=True)
                    if proc.returncode:
                        print((logs / f"{name}.log").read_text()[-3000:], flush=True)
            if int(time.time() - t0) % 60 < 5:
                n_chunks = len(list(chunks.glob("*.npz")))
                print(f"[{time.time() - t0:.0f}s] chunks {n_chunks}", flush=True)
        for w in workers:
            w.kill()
    with open(out / "train.log", "w") as f:
        for name, _ in trainers:
            f.write((logs / f"{name}.log").read_text())
        for k in range(args.workers):
            f.write(f"worker {k}: " + (logs / f"worker{k}.err").read_text()[-2000:] + "\n")
    print(json.dumps(codes))
    return 0 if all(c == 0 for c in codes.values()) else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="crop folder -> pack")
    p.add_argument("root", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("work", help="render chunks until a deadline")
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--deadline", type=float, required=True)
    p = sub.add_parser("train", help="one classifier")
    p.add_argument("name")
    p.add_argument("width", type=int)
    p.add_argument("val", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--packs", nargs="+", required=True, help="PATH[:REPEAT]")
    p.add_argument("--chunks", type=Path)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--init", type=Path)
    p.add_argument("--lr", type=float)
    p = sub.add_parser("export", help="saved weights -> float ONNX")
    p.add_argument("weights", type=Path)
    p.add_argument("width", type=int)
    p.add_argument("out", type=Path)
    p = sub.add_parser("run", help="workers and trainers together")
    p.add_argument("out", type=Path)
    p.add_argument("--val", type=Path, required=True)
    p.add_argument("--packs", nargs="+", required=True)
    p.add_argument("--net", action="append", required=True, help="NAME:WIDTH[:INIT[:LR]]")
    p.add_argument("--workers", type=int, default=11)
    p.add_argument("--seconds", type=float, default=420)
    p.add_argument("--chunks", default="/tmp/chunks")
    p.add_argument(
        "--seed-base",
        type=int,
        default=1000,
        help="worker k renders with seed BASE+k: give each run on one machine its own",
    )
    a = ap.parse_args(argv)
    if a.cmd == "pack":
        print(pack_folder(a.root, a.out))
    elif a.cmd == "work":
        print(work(a.out, a.seed, a.deadline))
    elif a.cmd == "export":
        export(a.weights, a.width, a.out)
    elif a.cmd == "train":
        lr = a.lr or (5e-4 if a.init else 3e-3)
        warm = 100 if a.init else 300
        r = train(
            a.name,
            a.width,
            a.packs,
            a.val,
            a.chunks,
            a.out,
            a.seconds,
            lr=lr,
            init=a.init,
            warmup_steps=warm,
        )
        print(json.dumps({k: r[k] for k in ("name", "width", "steps")}))
    else:
        return run(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
