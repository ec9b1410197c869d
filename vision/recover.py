"""Trainable weights recovered from the shipped ONNX models (the int8 classifier, the detector).

So a shipped model can be trained further without its checkpoint; train side (torch, onnx).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _dequantized(model) -> dict[str, np.ndarray]:
    """Every constant the graph holds, QDQ weights and biases dequantised: name -> array."""
    from onnx import numpy_helper

    consts = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in consts:
            continue
        q, scale = consts[node.input[0]], consts[node.input[1]]
        zero = consts[node.input[2]] if len(node.input) > 2 else np.zeros_like(scale)
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        if scale.ndim == 1 and q.ndim > 1:  # per channel along `axis`
            shape = [1] * q.ndim
            shape[axis] = -1
            scale, zero = scale.reshape(shape), zero.reshape(shape)
        consts[node.output[0]] = (q - zero) * scale
    return consts


def recover_state(onnx_path: Path, calibration: np.ndarray | None = None) -> dict:
    """An `IndexNet` state dict equal in function to the ONNX classifier (int8 or float).

    The export folded each BatchNorm into its convolution (weight W, bias b). The recovered
    BatchNorm is set so that it computes the same in evaluation AND training mode: with the
    per-channel mean m and deviation s of the convolution's output over `calibration` crops
    (N, 3, H, W floats in [0, 1]), running mean m, running variance s^2, scale s and shift
    m + b, so batch statistics near m and s leave the function as it was. Without crops the
    BatchNorm is the identity plus b (exact in evaluation mode only).
    """
    import onnx
    import torch

    from vision.train_cls import IndexNet

    model = onnx.load(str(onnx_path))
    consts = _dequantized(model)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    width = int(consts[convs[0].input[1]].shape[0])  # the first convolution's channels
    net = IndexNet(nc=int(consts[gemm.input[1]].shape[0]), width=width)
    blocks = list(net.features)
    if len(convs) != len(blocks):
        raise ValueError(f"{onnx_path}: {len(convs)} convolutions, IndexNet has {len(blocks)}")
    eps = blocks[0][1].eps
    with torch.no_grad():
        for node, blk in zip(convs, blocks, strict=True):
            w = torch.tensor(consts[node.input[1]], dtype=torch.float32)
            b = torch.tensor(consts[node.input[2]], dtype=torch.float32)
            blk[0].weight.copy_(w)
            _fold_back(blk[1], b, torch.zeros_like(b), torch.ones_like(b))
        lin = net.head[3]
        trans_b = next((a.i for a in gemm.attribute if a.name == "transB"), 0)
        w = consts[gemm.input[1]]
        lin.weight.copy_(torch.tensor(w if trans_b else w.T, dtype=torch.float32))
        lin.bias.copy_(torch.tensor(consts[gemm.input[2]], dtype=torch.float32))
        if calibration is not None and len(calibration):
            x = torch.tensor(calibration, dtype=torch.float32)
            net.eval()
            for blk in blocks:
                y = blk[0](x)  # the convolution alone: BatchNorm's input
                mean = y.mean(dim=(0, 2, 3))
                std = (y.var(dim=(0, 2, 3), unbiased=False) + eps).sqrt()
                _fold_back(blk[1], blk[1].bias.clone(), mean, std)
                x = blk(x)
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def _fold_back(bn, fused_bias, mean, std) -> None:
    """Set a BatchNorm after a convolution whose fused bias is `fused_bias` so that it computes
    conv + bias in evaluation mode, and the same in training mode on batches whose per-channel
    statistics are near `mean` and `std` (scale std, shift mean + bias, running mean/variance)."""
    bn.running_mean.copy_(mean)
    bn.running_var.copy_(std**2 - bn.eps)
    bn.weight.copy_(std)
    bn.bias.copy_(mean + fused_bias)


def recover_detector(onnx_path: Path, arch: Path, calibration: np.ndarray):
    """An ultralytics model of `arch` (yaml) computing what the exported detector computes.

    The export keeps the module names of the weights (`model.4.cv1.conv.weight`) with each
    BatchNorm folded into its convolution's weight and bias; every BatchNorm is rebuilt as in
    `recover_state`, from the statistics of its input over `calibration` frames (N, 3, H, W
    floats in [0, 1], H and W multiples of 32).
    """
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics import YOLO

    weights = {
        i.name: numpy_helper.to_array(i) for i in onnx.load(str(onnx_path)).graph.initializer
    }
    yolo = YOLO(str(arch))
    net = yolo.model
    modules = dict(net.named_modules())
    state = net.state_dict()
    stats: dict[str, tuple] = {}
    hooks = []
    with torch.no_grad():
        for name, w in weights.items():
            if not name.endswith(".weight") or name not in state:
                continue
            prefix = name[: -len(".weight")]
            bias = torch.tensor(weights.get(prefix + ".bias", np.zeros(w.shape[0], np.float32)))
            state[name].copy_(torch.tensor(w))
            owner = prefix[: -len(".conv")] if prefix.endswith(".conv") else None
            bn = modules.get(f"{owner}.bn") if owner else None
            if bn is None:  # a plain convolution (the heads' last layers, DFL)
                if prefix + ".bias" in state:
                    state[prefix + ".bias"].copy_(bias)
                continue
            _fold_back(bn, bias, torch.zeros_like(bias), torch.ones_like(bias))

            def grab(mod, inp, _out, key=owner):
                x = inp[0]
                stats[key] = (x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), unbiased=False))

            hooks.append(bn.register_forward_hook(grab))
        missing = [k for k in state if k.endswith(".conv.weight") and k not in weights]
        if missing:
            raise ValueError(f"{onnx_path} lacks weights for {missing[:3]} of {arch}")
        net.eval()
        net(torch.tensor(calibration, dtype=torch.float32))
        for h in hooks:
            h.remove()
        for owner, (mean, var) in stats.items():
            bn = modules[f"{owner}.bn"]
            _fold_back(bn, bn.bias.clone(), mean, (var + bn.eps).sqrt())
    return yolo


def main(argv: list[str] | None = None) -> None:
    """`python -m vision.recover MODEL.onnx OUT.pt [--crops DIR]`: weights to train further."""
    import argparse

    import torch

    from vision.deck import CODES
    from vision.train_cls import load_folder

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("onnx", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--crops", type=Path, default=None, help="crop folder to calibrate on")
    ap.add_argument("--count", type=int, default=1024)
    a = ap.parse_args(argv)
    calib = None
    if a.crops:
        x, _ = load_folder(a.crops, 48, list(CODES))
        pick = np.random.default_rng(0).permutation(len(x))[: a.count]
        calib = x[pick].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    torch.save(recover_state(a.onnx, calib), a.out)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
