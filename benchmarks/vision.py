"""Benchmark of the card recogniser: ms per 1280x720 frame (median, p95), import and load time,
and the size of the runtime install (onnxruntime + OpenCV headless + numpy + models).

Usage: python benchmarks/vision.py [--frames 40] [--threads N] [--models DIR] [--spin] [--json]
(--spin also times onnxruntime's spinning thread pools against the default still ones: three
rounds of one child process each way, in turn, so neither pool set steals the other's cores.)
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def dist_size(name: str) -> int:
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        return 0
    total = 0
    for f in dist.files or []:
        p = Path(dist.locate_file(f))
        if p.is_file():
            total += p.stat().st_size
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument(
        "--det-size", type=int, default=None, help="fixed detector size (default: fitted)"
    )
    ap.add_argument(
        "--spin", action="store_true", help="also compare spinning thread pools (child runs)"
    )
    ap.add_argument("--pools", choices=("still", "spin"), default="still", help=argparse.SUPPRESS)
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    code = (
        "import time; t=time.perf_counter(); import vision.recognizer as r; t1=time.perf_counter();"
        "x=r.Recognizer(); t2=time.perf_counter(); import sys;"
        "print(t1-t, t2-t1, 'torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    import_s, load_s, torch_loaded = float(out[0]), float(out[1]), out[2] == "True"

    import numpy as np

    from vision.dataset import table_scene
    from vision.deck import Deck
    from vision.recognizer import Recognizer

    rng = np.random.default_rng(11)
    deck = Deck.load("bellot-lgpl21")
    frames = [table_scene(rng, deck, (1280, 720))[0] for _ in range(min(a.frames, 12))]
    rec = Recognizer(
        a.models, det_size=a.det_size, threads=a.threads or None, spin=a.pools == "spin"
    )
    for f in frames[:3]:
        rec.recognize(f)  # warm-up
    times = []
    for k in range(a.frames):
        f = frames[k % len(frames)]
        t = time.perf_counter()
        rec.recognize(f)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    models = sum(p.stat().st_size for p in (a.models or REPO / "models").glob("*.onnx"))
    runtime = {n: dist_size(n) for n in ("onnxruntime", "opencv-python-headless", "numpy")}
    figures = {
        "frame": "1280x720",
        "det_size": a.det_size,
        "threads": rec.det.get_session_options().intra_op_num_threads,
        "frames": a.frames,
        "median_ms": round(times[len(times) // 2], 1),
        "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
        "import_s": round(import_s, 3),
        "model_load_s": round(load_s, 3),
        "torch_loaded": torch_loaded,
        "models_mb": round(models / 1e6, 2),
        "runtime_install_mb": round((sum(runtime.values()) + models) / 1e6, 1),
        "runtime_parts_mb": {k: round(v / 1e6, 1) for k, v in runtime.items()},
    }
    if a.spin:
        medians: dict[str, list[float]] = {"still": [], "spin": []}
        for _ in range(3):
            for pools in medians:
                cmd = [sys.executable, __file__, "--frames", str(a.frames), "--json"]
                cmd += ["--pools", pools] + (["--det-size", str(a.det_size)] if a.det_size else [])
                cmd += ["--models", str(a.models)] if a.models else []
                child = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
                medians[pools].append(json.loads(child.stdout)["median_ms"])
        figures["still_pools_median_ms"] = medians["still"]
        figures["spinning_pools_median_ms"] = medians["spin"]
        figures["spin_over_still"] = round(
            sorted(medians["spin"])[1] / sorted(medians["still"])[1], 2
        )
    if a.json:
        print(json.dumps(figures, indent=1))
    else:
        for k, v in figures.items():
            print(f"{k:>20}: {v}")


if __name__ == "__main__":
    main()
