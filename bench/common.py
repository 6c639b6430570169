"""Shared pieces of the benchmarks: statistics, the machine's state, and the board event streams they feed.

Every figure is reported beside its floor (the same measurement without the part under test), as medians, p99
and ratios: single absolute times on a shared machine say little.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fb import proto  # the board's encoder, under CPython: lines exactly as a board writes them (see __init__)

from flickboard.core.session import Fold
from flickboard.rules.pichenotte import Pichenotte

ROOT = Path(__file__).resolve().parent.parent
RULES = "tournament-2019"
PLAYERS = ("Ana", "Ben")
MATCH = "games:1000"  # one match that never ends within a benchmark
# As docs/mosquitto/mosquitto.conf: each small packet sent at once (docs/performance.md), and a window the bridge's
# batches fill (it acknowledges a message to the broker once journaled)
NODELAY = "set_tcp_nodelay true\nmax_inflight_messages 256"
CLUB_MATCH = "games:3"  # a match as a club plays it: the throughput benchmark plays them one after another


def percentile(samples: list[float], q: float) -> float:
    """The q-th percentile (0-100) by the nearest-rank method: a value that was really measured."""
    if not samples:
        raise ValueError("no samples")
    s = sorted(samples)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def summary(samples: Iterable[float], digits: int = 3) -> dict[str, Any]:
    s = list(samples)
    return {
        "n": len(s),
        "p50": round(statistics.median(s), digits),
        "p99": round(percentile(s, 99), digits),
        "max": round(max(s), digits),
        "mean": round(statistics.fmean(s), digits),
    }


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None


def machine() -> dict[str, Any]:
    """What the numbers were measured on, and how busy it was."""
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


def speed_probe(rounds: int = 5) -> float:
    """How fast the machine runs right now: milliseconds for one fixed piece of pure-Python work (tuples, strings,
    a dictionary: the kind of work the bridge does), the best of `rounds`. On a steady machine it gives the same
    number every time. On a shared virtual machine it can double from one hour to the next, and every figure
    moves with it: `make bench` takes it before each figure so that a slow run can be told from a slow change."""
    best = math.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        _probe_work()
        best = min(best, time.perf_counter() - t0)
    return round(best * 1000, 2)


def _probe_work() -> int:
    counts: dict[tuple[int, str], int] = {}
    total = 0
    for i in range(20000):
        key = (i % 97, str(i % 13))
        counts[key] = counts.get(key, 0) + i
        total += len(key[1])
    return total + len(counts)


def rss_kib(pid: int | str = "self") -> tuple[int, int]:
    """(current RSS, peak RSS) of a process in KiB, from /proc."""
    cur = peak = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    return cur, peak


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_game(match: str = MATCH) -> Pichenotte:
    return Pichenotte.create(RULES, list(PLAYERS), match=match)


def twenty_stream(n: int | None, match: str = MATCH) -> list[tuple[str, dict[str, Any]]]:
    """Board events that the rules take without a person: each shot is a puck leaving the baseline in the quadrant
    of the player whose turn it is, then a puck through the twenty hole. The fold applies every one of them (a
    `begin`, a provisional twenty, an `end`): the engine does its full work for each event.

    `n`: that many events. None: one whole match of `match`, to its end; so that someone wins it (tied games go to
    a shoot-out entered by hand), Ben's pucks come to rest on the baseline (out, to the ditch) instead. The last
    event is the shot start that closes the match's last shot."""
    game = new_game(match)
    fold = Fold(game, game.start())
    hole = ("pass", {"n": "hole", "dur_us": 800})
    rest = ("baseline_rest", {"n": "baseline", "q": 3, "seg": 12})
    shots = [  # the two singles seats: (shot start, what follows)
        (("shot_start", {"n": "baseline", "q": 1, "seg": 2}), hole),
        (("shot_start", {"n": "baseline", "q": 3, "seg": 10}), hole if n is not None else rest),
    ]
    out: list[tuple[str, dict[str, Any]]] = []
    while n is None or len(out) < n:
        for start, _ in shots:  # the seat whose turn it is: the one the rules take without a review
            trial = fold.copy()
            trial.event(len(out) + 1, *start)
            if n is None and trial.state.over:
                return [*out, start]
            g = trial.state.game
            if not trial.review and not trial.queue and g is not None and g.shot is not None:
                break
        else:
            raise RuntimeError(f"the twenty stream stalled after {len(out)} events: {trial.review or trial.notes}")
        then = hole if start is shots[0][0] else shots[1][1]
        trial.event(len(out) + 2, *then)
        if trial.review or trial.queue:
            raise RuntimeError(f"the twenty stream stalled after {len(out)} events: {trial.review or trial.waiting}")
        fold = trial
        out += [start, then]
    return out[:n]


def board_lines(events: list[tuple[str, dict[str, Any]]], board: str, boot: int = 1) -> list[str]:
    """Serial protocol lines for a board's boot: hello, then one line per event, 5 ms apart on the board clock."""
    enc = proto.Encoder(board, boot)
    sensors = [{"name": "hole", "kind": "beam"}, {"name": "baseline", "kind": "hall", "count": 16}]
    lines = [enc.hello(0, "bench", "pico_w", sensors, "power")]
    for i, (kind, fields) in enumerate(events):
        f = {k: v for k, v in fields.items() if k != "n"}
        lines.append(enc.event(kind, fields["n"], 5000 * (i + 1), f))
    return lines


def payload(line: str) -> bytes:
    """The bare JSON of a serial line: the MQTT payload of the same message."""
    return line[len(proto.PREFIX) : line.rindex("|")].encode()
