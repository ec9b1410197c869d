"""Benchmark of the table controller on rendered matches, with the real recogniser.

For each match: render it (controller.simulator), encode it to mp4 and decode it again (as a
camera file would arrive), referee it with `Table` + `vision.recognizer.Recognizer`, and
compare with the true record. Prints the share scored exactly, fouls flagged / false fouls,
verdict latency (video time from the table settling to the verdict, queued as if frames
arrived live at the video's rate), whether processing keeps up with the frame rate, how
often the arm a play's view saw most came from the edge of that play's seat (`arm_seat`), and
how many closer looks (second reads of a crop) the tracker made (`closer_looks`).

    python3 benchmarks/table.py                      # 20 whole matches, 30 fps
    python3 benchmarks/table.py --matches 4 --rounds 1 --fps 15 --json
    python3 benchmarks/table.py --labels             # exact labels instead of the recogniser
    python3 benchmarks/table.py --setup lebanese:3   # one rule set and player count only
    python3 benchmarks/table.py --videos V --trace T # reuse videos in V; per-match traces in T
    python3 benchmarks/table.py --exposure 0.3       # a dark camera: every frame's light x 0.3
    python3 benchmarks/table.py --restart-every 20   # restarted from its log every 20 s of video
    python3 benchmarks/table.py --restart-check 8    # a restarted table beside it, compared

A trace (`--trace DIR`, one text file per match) interleaves, in video time, the true marks
(a card touching the floor, landing, scooped, shown), every settled floor snapshot the tracker
emitted (codes, least confidence, guesses, unreadable cards, arms seen: seat:seconds) and
every event: the first line where they part shows where a misread began.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace as NS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.simulator import CARD_TURNS  # noqa: E402

# Variants x player counts the benchmark cycles through (ERAM is 2 players only, R V6).
SETUPS = [
    ("classic", 2),
    ("egyptian", 4),
    ("lebanese", 2),
    ("yemeni", 4),
    ("jordanian", 2),
    ("eram", 2),
    ("classic", 4),
    ("jordanian", 4),
    ("egyptian", 2),
    ("yemeni", 2),
]


class LabelReader:
    """Exact labels of the current frame (diagnostic: separates the controller from vision)."""

    def __init__(self, geometry, size, margin) -> None:
        w, h = size
        x1, y1, x2, y2 = geometry.floor_box(w, h)
        mx, my = int(w * margin), int(h * margin)
        self.ox, self.oy = max(0, x1 - mx), max(0, y1 - my)
        self.shape = (min(h, y2 + my) - self.oy, min(w, x2 + mx) - self.ox)
        self.labels: list = []

    def observe(self, image, t):
        if image.shape[:2] != self.shape:
            return NS(t=t, cards=[])  # a closer look elsewhere: the labels are the floor crop's
        off = (self.ox, self.oy, self.ox, self.oy)
        cards = [
            NS(
                code=lab.code,
                confidence=0.97,
                box=[b - o for b, o in zip(lab.box, off, strict=True)],
            )
            for lab in self.labels
        ]
        return NS(t=t, cards=cards)


def render_match(i: int, args, folder: Path) -> tuple[Path, dict, list | None]:
    """Render match i (or reuse it from `folder`): the video, its truth, and (--labels) the
    exact labels of every frame."""
    import cv2

    from controller.simulator import simulate

    variant, players = args.setup or SETUPS[i % len(SETUPS)]
    seed = args.seed + i
    rounds = args.rounds or None  # 0: the whole match, until the rule set's target is reached
    name = (
        f"{variant}-{players}p-s{seed}-r{rounds or 'all'}-f{args.fouls}-{args.fps}fps-{args.deck}"
    ) + ("" if args.cards == "upright" else f"-{args.cards}")
    path, truth_path = folder / f"{name}.mp4", folder / f"{name}.json"
    if path.exists() and truth_path.exists() and not args.labels:
        return path, json.loads(truth_path.read_text()), None
    video = simulate(
        variant, players, seed, rounds=rounds, fouls=args.fouls, fps=args.fps,
        misdeal=(i % 3 == 0), deck=args.deck, cards=args.cards,
    )  # fmt: skip
    t0 = time.perf_counter()
    labels_by_frame = [] if args.labels else None
    part = path.with_suffix(".part.mp4")
    writer = cv2.VideoWriter(str(part), cv2.VideoWriter_fourcc(*"mp4v"), args.fps, video.size)
    for _t, frame, labels in video.frames(with_labels=True):
        writer.write(frame)
        if labels_by_frame is not None:
            labels_by_frame.append(labels)
    writer.release()
    part.rename(path)
    truth = {
        "variant": variant,
        "players": players,
        "seed": seed,
        "dealer": video.game.rounds[0].dealer,
        "record": video.game.record,
        "fouls": video.game.fouls,
        "marks": video.marks(),
        "size": list(video.size),
        "render_s": time.perf_counter() - t0,
    }
    truth_path.write_text(json.dumps(truth))
    return path, truth, labels_by_frame


def _count_arm(arms: dict, e, seen: int | None, truth: dict, players: int) -> None:
    """Count a play's event (a card laid, a turn) against the arm its view saw most."""
    if e.type not in ("card_laid", "turn", "foul") or e.data.get("play") is None:
        return
    rounds = truth["record"]["rounds"]
    r = e.data.get("round")
    if r is None or r >= len(rounds):
        return
    arms["plays"] += 1
    if seen is not None:
        arms["seen"] += 1
        arms["right"] += seen == (rounds[r]["dealer"] + 1 + e.data["play"]) % players


SHADOW_S = 6.0  # how long a table restarted beside the live one referees (--restart-check)


def _gist(e) -> str:
    """What a user sees of an event: its kind, seat, card, verdict, the floor it left..."""
    keys = ("seat", "card", "verdict", "foul", "takes", "floor_after", "kind", "action")
    return " ".join([e.type, *(f"{k}={e.data[k]}" for k in keys if e.data.get(k) is not None)])


def _watch(table, args, trace: list, arm_of_view: list) -> None:
    """Wrap `table.feed_snapshot`: note the arm each snapshot saw most (`arm_of_view`), and,
    with --trace, a line for each snapshot (`trace`)."""
    feed_snap = table.feed_snapshot

    def with_arm(snap):
        arm_of_view[0] = max(snap.arms, key=lambda a: a[1])[0] if snap.arms else None
        return feed_snap(snap)

    table.feed_snapshot = with_arm
    if args.trace is not None:
        feed_snapshot = table.feed_snapshot

        def traced(snap):
            unsure = f" guess {sorted(snap.unsure)}" if snap.unsure else ""
            unread = f" unreadable {snap.unreadable}" if snap.unreadable else ""
            if snap.faint:
                unread += " faint " + " ".join(f"{c}:{p:.2f}" for c, p in snap.faint[:5])
            for code, reading in snap.readings:
                unread += f" read {code}=" + ",".join(f"{c}:{p:.2f}" for c, p in reading[:3])
            if snap.unsure:  # where the guessed cards lie, and every card of the view
                boxes = table.tracker.cards
                unread += " at " + " ".join(
                    f"{c}:{','.join(str(round(v)) for v in boxes[c])}"
                    for c in sorted(snap.floor)
                    if c in boxes
                )
            if snap.arms:
                unread += " arms " + ",".join(f"{seat}:{n:.2f}s" for seat, n in snap.arms)
            trace.append(
                (
                    snap.t,
                    1,
                    f"SNAP  {sorted(snap.floor)} conf {snap.confidence:.2f}{unsure}{unread}",
                )
            )
            return feed_snapshot(snap)

        table.feed_snapshot = traced


def run_match(i: int, args, recognizer, folder: Path) -> dict:
    import cv2

    from controller.table import Table
    from controller.table_geometry import TableGeometry
    from engine.record import score_record

    path, truth, labels_by_frame = render_match(i, args, folder)
    variant, players = truth["variant"], truth["players"]
    geometry = TableGeometry.default(players)
    size = tuple(truth["size"])
    tracker_reader = None
    if labels_by_frame is not None:
        from controller.tracker import TrackerConfig

        tracker_reader = LabelReader(geometry, size, TrackerConfig().crop_margin)
    events: list = []
    trace: list[tuple[float, int, str]] = []
    # the arm each snapshot saw most (`Snapshot.arms`), against the seat of the play it
    # showed (R1.5: the seat after the dealer plays first)
    arms = {"plays": 0, "seen": 0, "right": 0}
    arm_of_view: list[int | None] = [None]

    def new_table(past: list | None = None, log: list | None = None) -> Table:
        """The table refereeing the video: a new one, or (`past`: the events logged so far)
        one restarted from its log, as `run --resume` restarts it; one logging into `log`
        instead referees beside the live one, unwatched (--restart-check)."""
        table = Table(
            variant, players, truth["dealer"], geometry=geometry,
            recognizer=tracker_reader or recognizer, events=past,
            subscribers=[(events if log is None else log).append],
        )  # fmt: skip
        if log is None:
            _watch(table, args, trace, arm_of_view)
        return table

    table = new_table()
    restarts, next_restart = 0, args.restart_every or float("inf")
    retired: list = []  # the trackers of the tables restarted (their counts add up)
    # --restart-check: a table restarted from the log referees beside the live one for
    # SHADOW_S of video (its own events after the log's), then is compared and dropped
    shadow: tuple | None = None
    checks = {"restarts": 0, "differed": 0, "lagged": 0}
    next_check = args.restart_check or float("inf")

    cap = cv2.VideoCapture(str(path))
    dt = 1.0 / args.fps
    done_at = 0.0  # when the (simulated live) processing queue finishes each frame
    finish_of_event: dict[int, float] = {}
    proc: list[float] = []
    k = 0
    while True:
        a = time.perf_counter()
        ok, frame = cap.read()
        if not ok:
            break
        if args.exposure != 1.0:  # an under-exposed camera: less light, the same scene
            frame = cv2.convertScaleAbs(frame, alpha=args.exposure)
        if tracker_reader is not None:
            tracker_reader.labels = labels_by_frame[k] if k < len(labels_by_frame) else []
        before = len(events)
        table.feed_frame(frame, k * dt)
        took = time.perf_counter() - a
        if shadow is not None:
            twin, twin_events, until, start = shadow
            twin.feed_frame(frame, k * dt)
            if k * dt >= until:
                shadow = None
                mine = [_gist(e) for e in twin_events[start:]]
                live = [_gist(e) for e in events[start:]]
                n = min(len(mine), len(live))
                if mine[:n] != live[:n]:
                    checks["differed"] += 1
                    trace.append((k * dt, 3, f"RESTART-DIFF restarted {mine} | live {live}"))
                elif len(mine) != len(live):
                    checks["lagged"] += 1
                    trace.append((k * dt, 3, f"RESTART-LAG restarted {mine} | live {live}"))
        elif k * dt >= next_check and table.tracker.settled:
            twin_events = list(events)
            twin = new_table(list(events), twin_events)
            shadow = (twin, twin_events, k * dt + SHADOW_S, len(events))
            checks["restarts"] += 1
            next_check = k * dt + args.restart_check
            trace.append((k * dt, 3, "RESTART-CHECK a table restarted from the log, beside"))
        if k * dt >= next_restart and table.tracker.settled:
            # the controller restarted (a power cut): a new table from the log goes on from
            # the next frame, as `run --resume` does (its first views set its reference)
            retired.append(table.tracker)
            table = new_table(list(events))
            restarts, next_restart = restarts + 1, k * dt + args.restart_every
            trace.append((k * dt, 3, "RESTART the table, from its log"))
        proc.append(took)
        arrival = k * dt
        done_at = max(arrival, done_at) + took
        for e in events[before:]:
            finish_of_event[e.id] = done_at
            _count_arm(arms, e, arm_of_view[0], truth, players)
        k += 1
    cap.release()
    if not args.keep:
        path.unlink(missing_ok=True)
    score = score_record(truth["record"])
    result = table.result()
    if args.trace is not None:
        ends = [("rounds", result.get("rounds"), score["rounds"])]
        ends += [(k, result.get(k), score[k]) for k in ("totals", "winner")]
        _write_trace(args.trace / f"{path.stem}.trace", truth, events, trace, ends)
    exact = all(result.get(k) == score[k] for k in ("rounds", "totals", "winner"))
    # Rounds scored exactly (the round's whole score line), and rounds the controller ended
    # short (the next deal seen before 48 plays): one missed play must not cost later rounds.
    got = result.get("rounds") or []
    rounds_exact = sum(1 for a, b in zip(got, score["rounds"], strict=False) if a == b)
    rounds_short = sum(1 for rnd in table.state.rounds if getattr(rnd, "short", False))
    injected = {(f["round"], f["play"], f["card"], f["kind"]) for f in truth["fouls"]}
    flagged = {(f["round"], f["play"], f["card"], f["kind"]) for f in result["fouls"]}
    marks, touch = {}, {}
    for m in truth["marks"]:
        if m["kind"] in ("landed", "shown"):
            marks[(m["round"], m["play"])] = m["t"]
        elif m["kind"] == "touch":
            touch[(m["round"], m["play"])] = m["t"]
    lat_video, lat_live, lat_fouls, lat_touch = [], [], [], []
    for e in events:
        if e.type not in ("turn", "foul"):
            continue
        key = (e.data.get("round"), e.data.get("play"))
        if key not in marks:
            continue
        lv = e.t - marks[key]
        ll = finish_of_event[e.id] - marks[key]
        if e.type == "foul":
            lat_fouls.append(ll)
        else:
            lat_video.append(lv)
            lat_live.append(ll)
            if e.data.get("verdict") == "trail" and key in touch:
                lat_touch.append(finish_of_event[e.id] - touch[key])  # from the card's touch
    duration = k * dt
    trackers = [*retired, table.tracker]
    return {
        "match": i,
        "name": path.stem,
        "variant": variant,
        "players": players,
        "seed": truth["seed"],
        "rounds": len(truth["record"]["rounds"]),
        "exact": exact,
        "rounds_exact": rounds_exact,
        "rounds_short": rounds_short,
        "rounds_seen": len(got),
        "totals": result["totals"],
        "true_totals": score["totals"],
        "fouls_injected": len(injected),
        "fouls_flagged": len(injected & flagged),
        "false_fouls": sorted(flagged - injected),
        "prompts": [e.data.get("kind") for e in events if e.type == "prompt"],
        "turns": sum(1 for e in events if e.type in ("turn", "foul")),
        "latency_video": lat_video,
        "latency_live": lat_live,
        "latency_fouls": lat_fouls,
        "latency_trail_touch": lat_touch,
        "frames": k,
        "video_s": duration,
        "process_s": sum(proc),
        "frame_p95_ms": _pct(proc, 95) * 1000,
        "arms": arms,
        "reads": sum(tr.reads_done for tr in trackers),
        # codes one deck ruled out, re-read as a runner-up
        "rereads": sum(tr.rereads for tr in trackers),
        # second reads of a crop around a place (`FloorTracker.focus_reads`: changes nothing
        # read explains, faint cards just laid)
        "closer_looks": sum(tr.focus_reads for tr in trackers),
        "merged": sum(tr.merged for tr in trackers),  # second looks at one card dropped
        # unmoved cards read better later, corrected
        "renames": sum(len(tr.renames) for tr in trackers),
        "restarts": restarts,
        "restart_checks": checks,
        "held_unreadable": sum(
            1 for e in events if e.type == "foul" and e.data.get("verdict") == "unreadable"
        ),
        "render_s": truth.get("render_s"),
        "errors": table.state.errors,
    }


def _write_trace(out: Path, truth: dict, events: list, trace: list, ends=()) -> None:
    """The true marks, the tracker's snapshots and the table's events, in video time; then
    each of `ends` (what, scored, true) that differs: the score lines that went wrong."""
    rows = list(trace)
    for m in truth["marks"]:
        what = " ".join(f"{k}={m[k]}" for k in ("round", "play", "card") if m.get(k) is not None)
        rows.append((m["t"], 0, f"TRUTH {m['kind']} {what}"))
    keys = ("round", "play", "seat", "card", "read_as", "by_capture", "faint", "verdict", "foul")
    keys += ("kind", "text", "floor_after", "action", "target", "payload")
    for e in events:
        data = {k: e.data[k] for k in keys if e.data.get(k) is not None}
        rows.append((e.t, 2, f"EVENT {e.id} {e.type} {json.dumps(data)}"))
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# {truth['variant']} {truth['players']}p seed {truth['seed']}: true fouls "
             f"{json.dumps(truth['fouls'])}"]  # fmt: skip
    lines += [f"{t:8.2f} {text}" for t, _order, text in sorted(rows, key=lambda r: r[:2])]
    for what, got, true in ends:
        if what == "rounds" and got != true:
            got, true = got or [], true or []
            for k in range(max(len(got), len(true))):
                a = got[k] if k < len(got) else None
                b = true[k] if k < len(true) else None
                if a != b:
                    lines.append(f"# round {k} scored {json.dumps(a)}")
                    lines.append(f"# round {k} true   {json.dumps(b)}")
        elif got != true:
            lines.append(f"# {what} scored {json.dumps(got)}, true {json.dumps(true)}")
    out.write_text("\n".join(lines) + "\n")


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def _setup(text: str) -> tuple[str, int]:
    from engine.rules import get_ruleset

    variant, _, players = text.partition(":")
    try:
        get_ruleset(variant)
        n = int(players)
    except (KeyError, ValueError):
        raise argparse.ArgumentTypeError(f"expected VARIANT:PLAYERS, got {text!r}") from None
    return variant, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument(
        "--rounds", type=int, default=0, help="rounds rendered per match (0: the whole match)"
    )
    ap.add_argument("--fouls", type=int, default=1, help="fouls injected per match")
    ap.add_argument("--fps", type=int, default=30, choices=(15, 30))
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="index of the first match")
    ap.add_argument(
        "--deck", default="aguilar-lgpl3", help="card design (bellot-lgpl21 is held out)"
    )
    ap.add_argument(
        "--setup",
        type=_setup,
        default=None,
        help="VARIANT:PLAYERS for every match (lebanese:3 is the only 3-player one); default: "
        "the rule sets and player counts in turn",
    )
    ap.add_argument(
        "--exposure",
        type=float,
        default=1.0,
        help="each frame's light times this as it arrives (0.3: an under-exposed camera in a "
        "dim café); the videos are rendered as before",
    )
    ap.add_argument(
        "--cards",
        choices=CARD_TURNS,
        default="upright",
        help="how laid cards lie: upright to the camera, facing the seat that laid them, or at "
        "any angle (the same match is played each way)",
    )
    ap.add_argument("--labels", action="store_true", help="exact labels, not the recogniser")
    ap.add_argument("--videos", type=Path, help="keep rendered videos here and reuse them")
    ap.add_argument("--render-only", action="store_true", help="render the videos, stop")
    ap.add_argument("--trace", type=Path, help="write a trace of each match into this folder")
    ap.add_argument("--models", type=Path, default=None, help="model folder (default models/)")
    ap.add_argument(
        "--restart-every",
        type=float,
        default=0.0,
        metavar="S",
        help="restart the table from its log every S seconds of video, at the next still view "
        "read (a controller restarted after a power cut, `run --resume`); 0: never",
    )
    ap.add_argument(
        "--restart-check",
        type=float,
        default=0.0,
        metavar="S",
        help=f"every S seconds of video (at the next still view read), a table restarted from "
        f"the log referees beside the live one for {SHADOW_S:.0f} s; counts the restarts whose "
        "events differed from the live table's (the live table goes on untouched); 0: never",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.keep = args.videos is not None
    if args.render_only:
        if args.videos is None:
            ap.error("--render-only needs --videos DIR")
        args.videos.mkdir(parents=True, exist_ok=True)
        for i in range(args.first, args.first + args.matches):
            path, truth, _ = render_match(i, args, args.videos)
            print(f"{path.name}: {truth.get('render_s', 0):.0f} s", flush=True)
        return

    recognizer = None
    if not args.labels:
        from vision.recognizer import Recognizer

        recognizer = Recognizer(args.models)
    rows = []
    with tempfile.TemporaryDirectory(prefix="basra-bench-") as tmp:
        folder = args.videos or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(args.first, args.first + args.matches):
            row = run_match(i, args, recognizer, folder)
            rows.append(row)
            if not args.json:
                print(
                    f"match {i:2d} {row['variant']:9s} {row['players']}p: "
                    f"{'exact' if row['exact'] else 'WRONG'} {row['totals']} "
                    f"rounds {row['rounds_exact']}/{row['rounds']} exact "
                    f"(true {row['true_totals']}), fouls {row['fouls_flagged']}/"
                    f"{row['fouls_injected']}, false {len(row['false_fouls'])}, "
                    f"{row['process_s']:.0f} s for {row['video_s']:.0f} s of video, "
                    f"{row['closer_looks']} closer looks"
                    + (f", {row['restarts']} restarts" if args.restart_every else "")
                    + (
                        ", restarted beside: {restarts}, {differed} differed, {lagged} lagged".format(
                            **row["restart_checks"]
                        )
                        if args.restart_check
                        else ""
                    ),
                    flush=True,
                )
                if args.trace is not None and not row["exact"]:
                    print(f"  trace: {args.trace}/{row['name']}.trace", flush=True)
    lat = [x for r in rows for x in r["latency_live"]]
    latv = [x for r in rows for x in r["latency_video"]]
    latf = [x for r in rows for x in r["latency_fouls"]]
    latt = [x for r in rows for x in r["latency_trail_touch"]]
    video_s = sum(r["video_s"] for r in rows)
    process_s = sum(r["process_s"] for r in rows)
    summary = {
        "reader": "exact labels" if args.labels else "vision.recognizer.Recognizer",
        "matches": len(rows),
        "rounds_per_match": args.rounds or "whole match",
        "rounds": sum(r["rounds"] for r in rows),
        "fps": args.fps,
        "exposure": args.exposure,
        "deck": args.deck,
        "scored_exactly": sum(r["exact"] for r in rows),
        "share_exact": round(sum(r["exact"] for r in rows) / max(1, len(rows)), 3),
        "rounds_scored_exactly": sum(r["rounds_exact"] for r in rows),
        "rounds_ended": sum(r["rounds_seen"] for r in rows),
        "rounds_ended_short": sum(r["rounds_short"] for r in rows),
        "fouls_injected": sum(r["fouls_injected"] for r in rows),
        "fouls_flagged": sum(r["fouls_flagged"] for r in rows),
        "false_fouls": sum(len(r["false_fouls"]) for r in rows),
        "prompts": sum(len(r["prompts"]) for r in rows),
        "prompt_kinds": {
            k: sum(r["prompts"].count(k) for r in rows)
            for k in sorted({k for r in rows for k in r["prompts"]})
        },
        "restarts": sum(r["restarts"] for r in rows),
        "restart_checks": {
            k: sum(r["restart_checks"][k] for r in rows) for k in ("restarts", "differed", "lagged")
        },
        "rereads": sum(r["rereads"] for r in rows),
        "merged": sum(r["merged"] for r in rows),
        "renames": sum(r["renames"] for r in rows),
        "held_unreadable": sum(r["held_unreadable"] for r in rows),
        "turns": sum(r["turns"] for r in rows),
        # plays' views (a card laid, a turn) whose arm was seen, and of those how many came
        # from the play's true seat's edge
        "arm_seat": {k: sum(r["arms"][k] for r in rows) for k in ("plays", "seen", "right")},
        "latency_ms": {
            "median": round(statistics.median(lat) * 1000) if lat else None,
            "p95": round(_pct(lat, 95) * 1000) if lat else None,
            "video_only_median": round(statistics.median(latv) * 1000) if latv else None,
            "video_only_p95": round(_pct(latv, 95) * 1000) if latv else None,
            "fouls_median": round(statistics.median(latf) * 1000) if latf else None,
            "trail_from_touch_median": round(statistics.median(latt) * 1000) if latt else None,
            "trail_from_touch_p95": round(_pct(latt, 95) * 1000) if latt else None,
        },
        "video_seconds": round(video_s, 1),
        "processing_seconds": round(process_s, 1),
        "realtime_factor": round(process_s / video_s, 3) if video_s else None,
        "keeps_up": bool(video_s and process_s < video_s),
        "frame_ms_p95": round(_pct([r["frame_p95_ms"] for r in rows], 95), 1),
        "reads_per_video_second": round(sum(r["reads"] for r in rows) / max(video_s, 1e-9), 2),
        "closer_looks_per_video_minute": round(
            60 * sum(r["closer_looks"] for r in rows) / max(video_s, 1e-9), 1
        ),
        "wrong": [
            {k: r[k] for k in ("match", "variant", "players", "seed", "totals", "true_totals")}
            for r in rows
            if not r["exact"]
        ],
        "false_foul_list": [(r["match"], f) for r in rows for f in r["false_fouls"]],
        # what the log's fold could not apply (a play the engine refused: the round's count
        # of plays is then short of what the camera saw)
        "state_errors": [(r["match"], e) for r in rows for e in r["errors"]],
    }
    if args.json:
        print(json.dumps(summary))
        return
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
