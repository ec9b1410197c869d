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


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Batch-wise photometric and small geometric jitter on float images in [0, 1]."""
    n = x.shape[0]
    # colour: brightness, contrast, per-channel gain, sometimes grey
    b = torch.empty(n, 1, 1, 1).uniform_(-0.2, 0.2, generator=g)
    c = torch.empty(n, 1, 1, 1).uniform_(0.6, 1.4, generator=g)
    gain = torch.empty(n, 3, 1, 1).uniform_(0.85, 1.15, generator=g)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = ((x - mean) * c + mean + b) * gain
    grey = torch.rand(n, generator=g) < 0.15
    x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    # shift by up to 4 px and scale by +-10 % through an affine grid
    theta = torch.zeros(n, 2, 3)
    s = torch.empty(n).uniform_(0.9, 1.1, generator=g)
    a = torch.empty(n).uniform_(-0.25, 0.25, generator=g)  # radians: +-14 degrees
    theta[:, 0, 0] = s * torch.cos(a)
    theta[:, 0, 1] = -s * torch.sin(a)
    theta[:, 1, 0] = s * torch.sin(a)
    theta[:, 1, 1] = s * torch.cos(a)
    theta[:, :, 2] = torch.empty(n, 2).uniform_(-0.12, 0.12, generator=g)
    grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    x = nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=False)
    x = x + torch.randn(x.shape, generator=g) * torch.empty(n, 1, 1, 1).uniform_(
        0, 0.05, generator=g
    )
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
) -> dict:
    """Train on data/train, report accuracy on data/val, export the best epoch to out_onnx.

    With `seconds`, the epoch count is fitted to the time budget after the first epoch.
    """
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    names = list(CODES)
    xtr, ytr = load_folder(data / "train", size, names)
    xva, yva = load_folder(data / "val", size, names)
    log(f"classifier data: {len(ytr)} train crops, {len(yva)} val crops")
    model = IndexNet(len(names))
    if init is not None and init.exists():
        model.load_state_dict(torch.load(init, weights_only=True))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
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
    warm = max(1, steps_per_epoch // 3)
    step = 0
    epoch = 0
    while epoch < epochs:
        model.train()
        perm = torch.randperm(len(ytr_t), generator=g)
        run_loss = 0.0
        for k in range(steps_per_epoch):
            idx = perm[k * batch : (k + 1) * batch]
            xb = augment(xtr_t[idx].float() / 255.0, g)
            # linear warm-up, then cosine decay to 2 % over the (possibly re-fitted) total
            frac = min(1.0, step / max(1, total_steps))
            scale = min(1.0, (step + 1) / warm) * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * frac)))
            for group in opt.param_groups:
                group["lr"] = lr * scale
            loss = loss_fn(model(xb), ytr_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            run_loss += float(loss.detach())
        acc = accuracy(model, xva_t, yva_t)
        epoch += 1
        history.append(
            {"epoch": epoch, "loss": round(run_loss / steps_per_epoch, 4), "val_top1": acc}
        )
        log(
            f"classifier epoch {epoch}/{epochs}: loss {history[-1]['loss']}, held-out top1 {acc:.4f}"
        )
        if acc >= best[0]:
            best = (acc, {k: v.clone() for k, v in model.state_dict().items()})
        if seconds and epoch == 1:  # fit the schedule to the time budget
            per = time.time() - t0
            epochs = max(2, min(60, int(seconds / per)))
            total_steps = epochs * steps_per_epoch
    model.load_state_dict(best[1])
    torch.save(best[1], out_onnx.with_suffix(".pt"))
    export_onnx(model, out_onnx, size)
    return {
        "epochs": epoch,
        "seconds": round(time.time() - t0, 1),
        "val_top1": best[0],
        "history": history,
        "train_crops": len(ytr),
        "val_crops": len(yva),
    }


@torch.no_grad()
def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    hits = 0
    for k in range(0, len(y), 512):
        hits += int((model(x[k : k + 512]).argmax(1) == y[k : k + 512]).sum())
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
