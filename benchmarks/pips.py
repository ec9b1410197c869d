"""How often `vision.pips` counts a card, how often wrongly, and what a count costs.

Renders café tables of each deck (`vision.dataset.table_scene`: overlaps, hands in 60 %) and
counts every face-up card twice: on its exact outline (the label's) and on the outline the
recogniser finds (`vision.outline`, where the card stands out). A count that differs from a
number card's rank, or any count of an ace or a court card, is wrong.

    python3 benchmarks/pips.py [--tables 30] [--seed 11] [--decks bellot-lgpl21,knoll-pd,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dataset import table_scene  # noqa: E402
from vision.deck import Deck  # noqa: E402
from vision.outline import card_outline  # noqa: E402
from vision.pips import RANK_PIPS, pip_count  # noqa: E402

DECKS = "bellot-lgpl21,knoll-pd,aguilar-lgpl3,kennard-cc0-2color"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=30, help="tables rendered per deck")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--decks", default=DECKS)
    a = ap.parse_args()
    times = []
    print("deck | outline | cards | counted right | counted wrong | no count | no outline")
    for name in a.decks.split(","):
        deck = Deck.load(name)
        rng = np.random.default_rng(a.seed)
        tally = {"exact": Counter(), "found": Counter()}
        for _ in range(a.tables):
            img, labels = table_scene(rng, deck, (1280, 720), 0.6)
            for lab in labels:
                if not lab.face_up:
                    continue
                want = RANK_PIPS.get(lab.code[0], 0)
                for kind, quad in (("exact", lab.quad), ("found", card_outline(img, lab.box))):
                    t = tally[kind]
                    t["cards"] += 1
                    if quad is None:
                        t["no outline"] += 1
                        continue
                    t0 = time.perf_counter()
                    got = pip_count(img, quad)
                    times.append(time.perf_counter() - t0)
                    t["none" if got is None else "right" if got == want else "wrong"] += 1
        for kind, t in tally.items():
            print(
                f"{name} | {kind} | {t['cards']} | {t['right']} | {t['wrong']} | {t['none']}"
                f" | {t['no outline']}"
            )
    ms = np.array(times) * 1000
    print(f"a count: median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms")


if __name__ == "__main__":
    main()
