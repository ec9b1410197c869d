"""The corner-index classifier's own training loop (torch): crops held in memory, light
augmentation, AdamW with a one-cycle schedule, exported to ONNX with softmax probabilities.

Runs only in the training environment; faster to converge on this CPU than ultralytics' loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from vision.deck import CODES


def load_folder(root: Path, size: int, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """All crops of root/<CODE>/*.jpg as (N, size, size, 3) uint8 RGB and their class indices."""
    xs, ys = [], []
    for k, code in enumerate(names):
        for p in sorted((root / code).glob("*.jpg")):
            img = cv2.imread(str(p))
            if img is None:
                continue
            if img.shape[:2] != (size, size):
                img = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
            xs.append(img[:, :, ::-1])
            ys.append(k)
    return np.stack(xs), np.array(ys, np.int64)


def block(c1: int, c2: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c1, c2, 3, stride, 1, bias=False), nn.BatchNorm2d(c2), nn.SiLU())


class IndexNet(nn.Module):
    """VGG-style: stride 1 first so that a 48 px glyph keeps its strokes; softmax output."""

    def __init__(self, nc: int = 52, width: int = 32) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            block(3, w, 1),
            block(w, 2 * w, 2),
            block(2 * w, 2 * w, 1),
            block(2 * w, 4 * w, 2),
            block(4 * w, 4 * w, 1),
            block(4 * w, 8 * w, 2),
            block(8 * w, 8 * w, 1),
        )
        self.head = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * w, nc)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.head(self.features(x))
        return logits if self.training else torch.softmax(logits, 1)


def _uniform(g: torch.Generator, dev, *shape: int, lo: float, hi: float) -> torch.Tensor:
    """Draws uniform in [lo, hi) from `g`, on `dev`."""
    return torch.empty(*shape, device=dev).uniform_(lo, hi, generator=g)


def cover(x: torch.Tensor, g: torch.Generator, share: float) -> torch.Tensor:
    """Another card lying over part of the index: in `share` of the batch, the crop beyond a
    straight edge at a random angle (8-35 % of the crop: a labelled index is at least 60 %
    uncovered) is replaced by another crop of the batch or by plain paper, the edge sometimes
    drawn dark (a card's rim, its shadow). Single-corner cards on the floor are mostly such."""
    n, _, h, w = x.shape
    dev = x.device
    pick = torch.rand(n, generator=g, device=dev) < share
    if not bool(pick.any()):
        return x
    yy, xx = torch.meshgrid(
        torch.linspace(-1, 1, h, device=dev), torch.linspace(-1, 1, w, device=dev), indexing="ij"
    )
    ang = torch.rand(n, generator=g, device=dev) * 2 * np.pi
    d = xx[None] * torch.cos(ang)[:, None, None] + yy[None] * torch.sin(ang)[:, None, None]
    frac = _uniform(g, dev, n, lo=0.08, hi=0.35)
    ranked = d.reshape(n, -1).sort(dim=1).values
    at = ((1 - frac) * (h * w - 1)).long()
    t = ranked.gather(1, at[:, None])[:, 0]  # per crop: the edge that leaves `frac` beyond it
    mask = (d > t[:, None, None]).float()[:, None]  # n,1,h,w: 1 where covered
    other = torch.roll(x, 1, 0).flip(3)
    paper = _uniform(g, dev, n, 3, 1, 1, lo=0.75, hi=1.0).expand_as(x)
    plain = (torch.rand(n, 1, 1, 1, generator=g, device=dev) < 0.4).float()
    top = plain * paper + (1 - plain) * other
    rim = ((d - t[:, None, None]).abs() < 0.05).float()[:, None]
    dark = (torch.rand(n, 1, 1, 1, generator=g, device=dev) < 0.5).float() * _uniform(
        g, dev, n, 1, 1, 1, lo=0.2, hi=0.7
    )
    covered = x * (1 - mask) + top * mask
    covered = covered * (1 - rim * dark)
    return torch.where(pick[:, None, None, None], covered, x)


def lr_scale(step: int, warm: int, frac: float) -> float:
    """The learning rate's share at `step`: a linear warm-up over `warm` steps, then cosine
    decay to 2 % as `frac` (of the steps or of the time box) goes from 0 to 1."""
    return min(1.0, (step + 1) / max(1, warm)) * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * frac)))


def augment(
    x: torch.Tensor, g: torch.Generator, quarter_turns: bool = False, cover_share: float = 0.0
) -> torch.Tensor:
    """Batch-wise photometric and small geometric jitter on float images in [0, 1]; with
    `quarter_turns`, each crop also turned 0-3 quarter turns (squared-up crops, which the
    runtime reads all four ways); `cover_share` of the crops partly covered (`cover`). The
    draws come from `g`, on x's device (a CUDA generator for a batch on the GPU)."""
    n = x.shape[0]
    dev = x.device

    def uniform(*shape: int, lo: float, hi: float) -> torch.Tensor:
        return _uniform(g, dev, *shape, lo=lo, hi=hi)

    if quarter_turns:
        turns = torch.randint(0, 4, (n,), generator=g, device=dev)
        for k in (1, 2, 3):
            pick = turns == k
            if bool(pick.any()):
                x[pick] = torch.rot90(x[pick], k, (2, 3))
    if cover_share > 0:
        x = cover(x, g, cover_share)
    # colour: brightness, contrast, per-channel gain, sometimes grey
    b = uniform(n, 1, 1, 1, lo=-0.2, hi=0.2)
    c = uniform(n, 1, 1, 1, lo=0.6, hi=1.4)
    gain = uniform(n, 3, 1, 1, lo=0.85, hi=1.15)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = ((x - mean) * c + mean + b) * gain
    grey = torch.rand(n, generator=g, device=dev) < 0.15
    x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    # shift by up to 4 px and scale by +-10 % through an affine grid
    theta = torch.zeros(n, 2, 3, device=dev)
    s = uniform(n, lo=0.9, hi=1.1)
    a = uniform(n, lo=-0.25, hi=0.25)  # radians: +-14 degrees
    theta[:, 0, 0] = s * torch.cos(a)
    theta[:, 0, 1] = -s * torch.sin(a)
    theta[:, 1, 0] = s * torch.sin(a)
    theta[:, 1, 1] = s * torch.cos(a)
    theta[:, :, 2] = uniform(n, 2, lo=-0.12, hi=0.12)
    grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    x = nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=False)
    # resolution: a share of the batch seen as an index 14-34 px tall (a far or blurred
    # webcam index upscaled to the crop size), the rest sharp
    low = torch.rand(n, generator=g, device=dev) < 0.35
    if bool(low.any()):
        r = int(torch.randint(14, 35, (1,), generator=g, device=dev))
        size = list(x.shape[2:])
        small = nn.functional.interpolate(x[low], size=(r, r), mode="area")
        x[low] = nn.functional.interpolate(small, size=size, mode="bilinear", align_corners=False)
    # specks: a share of the batch with scattered white and black pixels (webcam sensor
    # noise, the dotted frames of some real photo sets)
    speck = torch.rand(n, 1, 1, 1, generator=g, device=dev) < 0.2
    dots = torch.rand(x.shape[0], 1, *x.shape[2:], generator=g, device=dev)
    amount = uniform(n, 1, 1, 1, lo=0.002, hi=0.02)
    x = torch.where(speck & (dots < amount / 2), torch.ones_like(x), x)
    x = torch.where(speck & (dots > 1 - amount / 2), torch.zeros_like(x), x)
    x = x + torch.randn(x.shape, generator=g, device=dev) * uniform(n, 1, 1, 1, lo=0, hi=0.05)
    return x.clamp(0, 1)


def train(
    data: Path,
    out_onnx: Path,
    size: int = 48,
    epochs: int = 10,
    seconds: float | None = None,
    batch: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    init: Path | None = None,
    log: Callable[[str], None] = print,
    warmup_steps: int | None = None,
    ema: float | None = None,
    quarter_turns: bool = False,
    cover_share: float = 0.0,
) -> dict:
    """Train on data/train, report accuracy on data/val, export the best epoch to out_onnx.

    Every epoch is saved at once (time-boxed runs never lose work): `<out>.epNN.pt` and
    `<out>.epNN.onnx` beside out_onnx, `<out>.last.pt` (weights + optimiser + step, for
    resuming) and, whenever the held-out top-1 improves, out_onnx and `<out>.pt`.

    With `seconds`, the run is a wall-clock box: the cosine decay follows elapsed time (so the
    learning rate has decayed when the box closes, whatever else loads the CPU) and the last,
    possibly partial, epoch is evaluated and saved when the time is up. `init` continues from
    saved weights (a state dict or a `.last.pt` checkpoint); the warm-up is then short.
    `ema` (a decay per step, e.g. 0.999) evaluates and exports an exponential moving average
    of the weights and BatchNorm statistics instead of the last step's: one epoch's held-out
    figure then varies far less from the next (torch.optim.swa_utils). `quarter_turns`
    trains on crops turned any quarter turn and scores the held-out crops read all four ways
    and averaged, as the runtime reads squared-up crops (`vision.crops.square_up`).
    `cover_share` of each batch is partly covered by another crop or plain paper (`cover`).
    """
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    names = list(CODES)
    xtr, ytr = load_folder(data / "train", size, names)
    xva, yva = load_folder(data / "val", size, names)
    log(f"classifier data: {len(ytr)} train crops, {len(yva)} val crops")
    model = IndexNet(len(names))
    if init is not None and init.exists():
        state = torch.load(init, weights_only=True)
        model.load_state_dict(state.get("model", state))
        log(f"classifier: continuing from {init}")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    averaged = None
    if ema:
        from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

        averaged = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(ema), use_buffers=True)
    net = averaged.module if averaged is not None else model  # what is evaluated and exported
    steps_per_epoch = max(1, len(ytr) // batch)
    xtr_t = torch.from_numpy(xtr).permute(0, 3, 1, 2).contiguous()
    xva_t = torch.from_numpy(xva).permute(0, 3, 1, 2).float() / 255.0
    ytr_t = torch.from_numpy(ytr)
    yva_t = torch.from_numpy(yva)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    t0 = time.time()
    history = []
    best = (-1.0, None)
    total_steps = epochs * steps_per_epoch
    if warmup_steps is None:
        warmup_steps = 50 if init is not None else steps_per_epoch // 3
    warm = max(1, warmup_steps)
    step = 0
    epoch = 0
    out_onnx.parent.mkdir(parents=True, exist_ok=True)
    stem = out_onnx.with_suffix("")
    out_of_time = False
    while epoch < epochs and not out_of_time:
        model.train()
        perm = torch.randperm(len(ytr_t), generator=g)
        run_loss = 0.0
        done = 0
        for k in range(steps_per_epoch):
            if seconds and time.time() - t0 >= seconds:
                out_of_time = True
                break
            idx = perm[k * batch : (k + 1) * batch]
            xb = augment(xtr_t[idx].float() / 255.0, g, quarter_turns, cover_share)
            # linear warm-up, then cosine decay to 2 % over the total steps or the time box
            frac = min(1.0, step / max(1, total_steps))
            if seconds:
                frac = min(1.0, (time.time() - t0) / seconds)
            scale = lr_scale(step, warm, frac)
            for group in opt.param_groups:
                group["lr"] = float(lr * scale)
            loss = loss_fn(model(xb), ytr_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if averaged is not None:
                averaged.update_parameters(model)
            step += 1
            done += 1
            run_loss += float(loss.detach())
        if done == 0:
            break
        acc = accuracy(net, xva_t, yva_t, quarter_turns)
        epoch += 1
        history.append(
            {
                "epoch": epoch,
                "steps": done,
                "loss": round(run_loss / done, 4),
                "val_top1": acc,
                "lr": round(opt.param_groups[0]["lr"], 6),
                "seconds": round(time.time() - t0, 1),
            }
        )
        log(
            f"classifier epoch {epoch}/{epochs}{' (partial)' if done < steps_per_epoch else ''}: "
            f"loss {history[-1]['loss']}, held-out top1 {acc:.4f}, {history[-1]['seconds']} s"
        )
        # save every epoch at once: a killed run keeps everything up to here
        state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        torch.save(state, Path(f"{stem}.ep{epoch:02d}.pt"))
        export_onnx(net, Path(f"{stem}.ep{epoch:02d}.onnx"), size)
        torch.save(
            {"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch},
            Path(f"{stem}.last.pt"),
        )
        if acc >= best[0]:
            best = (acc, state)
            torch.save(state, out_onnx.with_suffix(".pt"))
            export_onnx(net, out_onnx, size)
    model.load_state_dict(best[1])
    return {
        "epochs": epoch,
        "seconds": round(time.time() - t0, 1),
        "val_top1": best[0],
        "history": history,
        "train_crops": len(ytr),
        "val_crops": len(yva),
    }


@torch.no_grad()
def accuracy(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor, quarter_turns: bool = False
) -> float:
    """Held-out top-1; with `quarter_turns`, each crop read all four ways and averaged."""
    model.eval()
    hits = 0
    for k in range(0, len(y), 512):
        xb = x[k : k + 512]
        turns = range(4) if quarter_turns else range(1)
        probs = sum(model(torch.rot90(xb, t, (2, 3))) for t in turns)
        hits += int((probs.argmax(1) == y[k : k + 512]).sum())
    return round(hits / max(1, len(y)), 4)


def export_onnx(model: nn.Module, path: Path, size: int) -> None:
    model.eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(
        model,
        dummy,
        str(path),
        input_names=["images"],
        output_names=["probs"],
        dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )


def main(argv: list[str] | None = None) -> None:
    """`python -m vision.train_cls DATA OUT.onnx [--seconds S] [--init W.pt] ...`"""
    import argparse
    import json

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("data", type=Path, help="folder with train/<CODE>/*.jpg and val/<CODE>/*.jpg")
    ap.add_argument("out", type=Path, help="ONNX path for the best epoch")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=None, help="wall-clock box")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", type=Path, default=None)
    ap.add_argument("--warmup-steps", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--ema", type=float, default=None, help="weight-average decay per step")
    ap.add_argument(
        "--quarter-turns", action="store_true", help="squared-up crops: any quarter turn"
    )
    ap.add_argument(
        "--cover", type=float, default=0.0, help="share of crops partly covered by another card"
    )
    a = ap.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    r = train(
        a.data, a.out, epochs=a.epochs, seconds=a.seconds, batch=a.batch, lr=a.lr,
        seed=a.seed, init=a.init, warmup_steps=a.warmup_steps, ema=a.ema, quarter_turns=a.quarter_turns,
        cover_share=a.cover,
    )  # fmt: skip
    print(json.dumps(r))


if __name__ == "__main__":
    main()
