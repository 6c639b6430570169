"""`flickboard accuracy JOURNAL`: how well the board's sensors agreed with what the players finally recorded.

Sensors give evidence; the journal gives truth (docs/performance.md, "Accuracy"). The truth of each shot is the
match as it stands after every confirmation, correction, undo and typed entry: the shot log of the fold over the
whole journal. The evidence is what each sensor reported during that shot: the board events the fold applied while
the shot was open. Per shot and per kind of evidence, the two counts are matched:

    twenty-hole beam  `pass`           the twenties credited in the shot
    ditch beams       `pass`           pucks entered as gone into the ditch, plus the shooting puck the rules send
                                       there (no contact, a short free shot, a failed call): it may or may not cross
                                       a beam, so it is never counted as a miss
    baseline strip    `shot_start`     the shot itself (a shot begun by hand is a miss of the strip)
    baseline strip    `baseline_rest`  pucks entered as resting on the baseline (`base`)
    twenty-hole beam  `stuck`          pucks entered as standing on edge in the hole (`edge`, rule A-4)

detections = min(evidence, truth), false triggers = evidence beyond the truth, misses = truth beyond the evidence.
A sensor event outside any shot (the review "no shot in progress") or dismissed with `dismiss` is a false trigger
too, counted on its own column as well. Where several ditch beams reported in one shot, the earliest events are the
detections. Misses of the ditch beams cannot be told apart, so they are given for the beams together.

Latency is the delivery delay of each event: the journal's wall-clock time minus the board's clock, relative to the
fastest event of the same boot (the two clocks are not synchronised; the fastest event stands for "no delay").
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

from flickboard.core.journal import JournalError, read
from flickboard.core.session import Fold, Held, game_of
from flickboard.errors import UserError
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.engine import State

HOLE = "hole"


@dataclass
class SensorStats:
    sensor: str
    evidence: str  # what the sensor's events stand for
    events: int = 0
    detections: int = 0
    false_triggers: int = 0
    outside_shot: int = 0
    misses: int | None = 0  # None: not attributable to one sensor (ditch beams)
    delays_ms: list[float] = field(default_factory=list)

    def doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "sensor": self.sensor,
            "evidence": self.evidence,
            "events": self.events,
            "detections": self.detections,
            "misses": self.misses,
            "false_triggers": self.false_triggers,
            "outside_a_shot": self.outside_shot,
        }
        if self.delays_ms:
            d["latency_ms"] = {
                "p50": round(statistics.median(self.delays_ms), 1),
                "max": round(max(self.delays_ms), 1),
            }
        else:
            d["latency_ms"] = None
        return d


ShotKey = tuple[int, int]  # (game number, shot number)


def _open_shot(state: State) -> ShotKey | None:
    g = state.game
    if g is None or g.shot is None or g.points is not None or state.shootout is not None:
        return None
    return (g.number, g.shot.number)


class _Recorder(list[Held]):
    """The fold's queue of board events: notes, for each event it lets go, the shot open at that moment."""

    def __init__(self, fold: Fold) -> None:
        super().__init__()
        self.fold = fold
        self.dismissing = False
        self.done: list[tuple[Held, ShotKey | None, bool]] = []  # (event, shot, dismissed)

    def pop(self, index: Any = -1) -> Held:
        held = super().pop(index)
        self.done.append((held, None if self.dismissing else _open_shot(self.fold.state), self.dismissing))
        return held


@dataclass
class _Kind:
    name: str  # the evidence, for the report
    sensors: list[str]
    truth: dict[ShotKey, int]


def _truth(state: State) -> dict[str, dict[ShotKey, int]]:
    """Per shot of the final state: twenties, ditch pucks (entered; and removed by rule), rests, edges, the shot."""
    out: dict[str, dict[ShotKey, int]] = {k: {} for k in ("twenty", "ditch", "ruled", "base", "edge", "shot")}

    def add(key: ShotKey, facts: tuple[tuple[str, str], ...], twenties: tuple[int, int], ruled: bool) -> None:
        names = [f.rsplit(":", 1)[-1] for f, _ in facts]
        out["shot"][key] = 1
        out["twenty"][key] = sum(twenties)
        out["ditch"][key] = names.count("ditch")
        out["ruled"][key] = 1 if ruled else 0
        out["base"][key] = names.count("base")
        out["edge"][key] = names.count("edge")

    for r in state.log:  # the shooting puck sent to the ditch by rule: no contact, a short free shot, a failed call
        add((r.game, r.number), r.facts, r.twenties, "to the ditch" in r.result or "removed the shooting" in r.result)
    g = state.game
    if g is not None and g.shot is not None and g.points is None:
        add((g.number, g.shot.number), g.shot.facts, g.shot.twenties, g.shot.contact is False)
    return out


def _classify(kind: str, sensor: str, sensors: dict[str, str]) -> str | None:
    """Which evidence a board event is, or None when it is none of those the report matches."""
    beam = sensors.get(sensor, "beam" if kind in ("pass", "stuck") else "hall")
    if kind == "pass" and beam == "beam":
        return "twenty" if sensor.startswith(HOLE) else "ditch"
    if kind == "stuck" and sensor.startswith(HOLE):
        return "edge"
    if kind == "shot_start":
        return "shot"
    if kind == "baseline_rest":
        return "base"
    return None


EVIDENCE = {
    "twenty": "pucks through the twenty hole",
    "ditch": "pucks into the ditch",
    "shot": "shots begun (a puck leaving the baseline)",
    "base": "pucks resting on the baseline",
    "edge": "a puck on edge in the hole (A-4)",
}


def _at_us(stamp: object) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        dt = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return int(dt.timestamp() * 1_000_000)


def analyse(records: list[dict[str, Any]], game: Pichenotte) -> dict[str, Any]:
    """The accuracy report of a journal's records (docs/performance.md)."""
    fold = Fold(game, game.start())
    rec = _Recorder(fold)
    fold.queue = rec
    sensors: dict[str, str] = {}  # name -> beam | hall, from the boards' hello
    for r in records:
        if r.get("src") == "board":
            if r["m"] == "hello":
                for s in r["f"].get("sn") or []:
                    if isinstance(s, dict) and isinstance(s.get("n"), str):
                        sensors[s["n"]] = str(s.get("k"))
            fold.event(r["n"], r["m"], r["f"])
        else:
            rec.dismissing = str(r.get("in", "")).split()[:1] == ["dismiss"]
            fold.step(r["n"], r["in"], r.get("src", "manual"))
            rec.dismissing = False
    truth = _truth(fold.state)
    by_n = {r["n"]: r for r in records}

    # Delivery delay: journal time minus board time, relative to the fastest event of the same boot.
    offsets: dict[tuple[str, int], int] = {}
    delays: dict[int, int] = {}
    for r in records:
        at = _at_us(r.get("at"))
        if r.get("src") != "board" or at is None or not r.get("t"):
            continue
        d = at - int(r["t"])
        delays[r["n"]] = d
        key = (str(r.get("board")), int(r.get("bt", 0)))
        offsets[key] = min(offsets.get(key, d), d)

    stats: dict[str, SensorStats] = {}
    per_shot: dict[str, dict[ShotKey, list[str]]] = defaultdict(lambda: defaultdict(list))
    for held, shot, dismissed in rec.done:
        sensor = str(held.fields.get("n", ""))
        kind = _classify(held.kind, sensor, sensors)
        if kind is None:
            continue
        label = f"{sensor} {held.kind}"
        st = stats.setdefault(label, SensorStats(sensor, EVIDENCE[kind]))
        st.events += 1
        record = by_n.get(held.n)
        if record is not None and held.n in delays:
            boot = (str(record.get("board")), int(record.get("bt", 0)))
            st.delays_ms.append((delays[held.n] - offsets[boot]) / 1000)
        if shot is None or dismissed:
            st.false_triggers += 1
            st.outside_shot += 1
            continue
        per_shot[kind][shot].append(label)
    queued = len(fold.queue)  # events still waiting at the end of the journal: not judged yet

    group_misses: dict[str, int] = {}
    for kind, shots in truth.items():
        if kind == "ruled":
            continue
        seen_kind = kind in per_shot or any(_classify_name(kind, n, k) for n, k in sensors.items())
        if not seen_kind:
            continue
        misses = 0
        for shot_key, expected in shots.items():
            labels = per_shot[kind].get(shot_key, [])
            allowed = expected + (truth["ruled"].get(shot_key, 0) if kind == "ditch" else 0)
            for i, label in enumerate(labels):
                st = stats[label]
                if i < allowed:
                    st.detections += 1
                else:
                    st.false_triggers += 1
            misses += max(0, expected - len(labels))
        group_misses[kind] = misses
        owners = {label for label, st in stats.items() if st.evidence == EVIDENCE[kind]}
        if len(owners) == 1:
            stats[owners.pop()].misses = misses
        else:
            for label in owners:
                stats[label].misses = None
    rows = [stats[k].doc() for k in sorted(stats)]
    for kind in ("twenty", "ditch", "shot", "base", "edge"):
        if group_misses.get(kind) and not any(s.evidence == EVIDENCE[kind] for s in stats.values()):
            rows.append(
                SensorStats(
                    _sensor_of(kind, sensors), EVIDENCE[kind], misses=group_misses[kind]
                ).doc()  # a sensor that never reported anything still misses what happened
            )
    ditch_misses = group_misses.get("ditch")
    return {
        "format": "flickboard-accuracy",
        "version": 1,
        "shots": len(truth["shot"]),
        "sensor_events": sum(1 for r in records if r.get("src") == "board" and r["m"] not in ("hello", "gap", "fault")),
        "waiting_unjudged": queued,
        "sensors": rows,
        "ditch_misses_all_beams": ditch_misses,
    }


def _classify_name(kind: str, name: str, k: str) -> bool:
    """Does the board's hello list a sensor that gives this evidence?"""
    if kind in ("twenty", "edge"):
        return k == "beam" and name.startswith(HOLE)
    if kind == "ditch":
        return k == "beam" and not name.startswith(HOLE)
    return k == "hall"


def _sensor_of(kind: str, sensors: dict[str, str]) -> str:
    names = sorted(n for n, k in sensors.items() if _classify_name(kind, n, k))
    return "+".join(names) if names else kind


def text_report(path: str, doc: dict[str, Any]) -> str:
    head = ["sensor", "evidence", "events", "detected", "missed", "false", "outside", "latency p50/max ms"]
    rows = [head]
    for s in doc["sensors"]:
        lat = s["latency_ms"]
        rows.append(
            [
                s["sensor"],
                s["evidence"],
                str(s["events"]),
                str(s["detections"]),
                "-" if s["misses"] is None else str(s["misses"]),
                str(s["false_triggers"]),
                str(s["outside_a_shot"]),
                "-" if lat is None else f"{lat['p50']}/{lat['max']}",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [f"{path}: {doc['shots']} shots, {doc['sensor_events']} sensor events"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    if doc["ditch_misses_all_beams"] is not None:
        lines.append(f"ditch beams together: {doc['ditch_misses_all_beams']} missed")
    if doc["waiting_unjudged"]:
        lines.append(f"{doc['waiting_unjudged']} sensor event(s) still wait for a person: not judged yet")
    if not doc["sensors"]:
        lines.append("no sensor events to judge in this journal")
    return "\n".join(lines)


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("journal", metavar="JOURNAL", help="a board's journal (journals/<board>/<match>.jsonl)")
    p.add_argument("--json", action="store_true", help="the report as a JSON document")


def run_accuracy(args: argparse.Namespace, out: TextIO) -> int:

    path = args.journal
    try:
        snap = read(path)
    except IsADirectoryError:
        raise UserError(f"{path} is a directory, not a journal") from None
    except JournalError as e:
        raise UserError(str(e)) from None
    except UnicodeDecodeError:
        raise UserError(f"{path} is not a journal") from None
    try:
        game = game_of(snap.header, path)
    except ValueError as e:
        raise UserError(str(e)) from None
    if not isinstance(game, Pichenotte):
        raise UserError(f"{path}: the board's sensors score Pichenotte; this journal is another game")
    doc = analyse(snap.records, game)
    if args.json:
        print(json.dumps(doc, indent=1), file=out)
    else:
        print(text_report(path, doc), file=out)
    return 0
