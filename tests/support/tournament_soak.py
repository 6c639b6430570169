"""`make soak`, the tournament part: a whole simulated event whose results come from the boards (issue 21).

128 entrants, 7 Swiss rounds (one game a match) into a top-8 single elimination (best of three games), on 32 boards
kept by 4 real bridges in this process (each with its own bridge id and journals, sharing one Mosquitto). The
director is its own process (this script's `director` command: the hall, host/tournament/hall.py, with a small loop
that pairs each round, gives each free board the next match and starts the playoff); each board's scorer plays the
match the hall opened on it with random legal entries (host/sim/random_game.py) through the bridge. Mid-round the
director is killed with SIGKILL and started again. The run checks that it reaches a champion with every match
decided by exactly one result, from its board, each from its own game journal, none held, and that the tournament
journal folds again to the same event; then writes its figures into docs/tournament.md ("Measured").

    .venv/bin/python tests/support/tournament_soak.py [--kill-round 3] [--doc FILE] [--no-write]

Exit status 1 when a check fails (the line says which).
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from flickboard import lifecycle  # noqa: E402
from flickboard.cli.bridge import Running, start_bridge  # noqa: E402
from flickboard.config import BridgeConfig, parse_mqtt_url  # noqa: E402
from flickboard.sim.broker import start_mosquitto  # noqa: E402
from flickboard.sim.random_game import random_match  # noqa: E402
from flickboard.tournament import ActError, Director, dumps, proposals, read  # noqa: E402
from flickboard.tournament.hall import Hall  # noqa: E402

DOC = ROOT / "docs" / "tournament.md"
BEGIN, END = "<!-- hall-soak:begin -->", "<!-- hall-soak:end -->"
ENTRANTS, ROUNDS, BRIDGES, PER_BRIDGE = 128, 7, 4, 8
BOARDS = [f"table-{i + 1}" for i in range(BRIDGES * PER_BRIDGE)]
RULES, SWISS_MATCH, PLAYOFF_MATCH = "tournament-2019", "games:1", "wins:2"
DEFAULT_PLAYERS = ("North", "South")


# ------------------------------------------------------------------------------------------- the director process


def peak_memory(pid: int | str = "self") -> int:
    """VmHWM of a process, in bytes (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def director_main(path: str, url: str) -> int:
    """Run the event to its champion: the hall takes the boards' results; this loop pairs, assigns, and starts the
    playoff. Started again after a kill, it goes on from the journals."""
    if not os.path.exists(path):
        tmp = path + ".new"
        with Director.create(tmp, "Simulated open") as d:
            for i in range(ENTRANTS):
                d.add_entrant(f"P{i:03d}", seed=i + 1 if i < 16 else None, club=f"club-{i % 9}")
            d.start_stage("swiss", "swiss", options={"rounds": ROUNDS}, rules=RULES, match=SWISS_MATCH)
        os.rename(tmp, path)  # the event appears whole or not at all (a kill before this starts it again)
    stop = threading.Event()
    hall = Hall(path, parse_mqtt_url(url), settle=0.5, say=lambda line: print(line, flush=True))
    with lifecycle.on_stop_signals(stop.set):
        lifecycle.follow_parent()  # the soak stopped: so does its director
        hall.start()
        rng = random.Random(os.getpid())
        try:
            while not stop.wait(0.2):
                with hall.director() as d:
                    champion = step(d, rng)
                if champion is not None:
                    print(f"champion: {champion}", flush=True)
                    time.sleep(0.5)
                    break
        finally:
            hall.stop()
            print(f"counts: {hall.counts} held: {len(hall.held)} peak: {peak_memory()}", flush=True)
    return 0 if not stop.is_set() else 1


def step(d: Director, rng: random.Random) -> str | None:
    """One look at the event: the next Swiss round, the playoff, a free board's next match; the champion once known."""
    ev = d.event
    swiss = ev.stages["swiss"]
    if "playoff" in ev.stages:
        champion = ev.champion(ev.stages["playoff"])
        if champion is not None:
            return champion
    elif swiss.complete:
        try:
            d.start_stage("playoff", "single-elimination", intake={"from": "swiss", "top": 8}, rules=RULES,
                          match=PLAYOFF_MATCH)  # fmt: skip
        except ActError as e:  # a tie across the cut: a twenties shoot-out among the tied (R-1-B)
            if "shoot-out" not in str(e):
                raise
            tied = next(g for g in ev.table(swiss).unresolved if len(g) > 1)
            d.shootout("swiss", tied, rng.sample(range(13), len(tied)))
        return None
    elif len(swiss.rounds) < ROUNDS and all(ev.matches[m].decided for m in (swiss.rounds or [[]])[-1]):
        d.pair_round("swiss")
    busy = {m.board for m in ev.matches.values() if m.board is not None and not m.decided}
    for board in BOARDS:
        if board in busy:
            continue
        mid = proposals.next_match(ev)
        if mid is None:
            break
        d.assign(mid, board)
    return None


# ------------------------------------------------------------------------------------------- the boards' side


class Scorers:
    """One scorer per board: when the board's bridge holds a new match (not the bridge's default players, not over),
    it types a whole random legal match of its rules and players, one line at a time, all boards in turn."""

    def __init__(self, running: list[Running]) -> None:
        self.running = running
        self.plans: dict[str, tuple[str, list[str]]] = {}  # board -> (journal, lines still to type)
        self.lines = 0
        self.matches = 0
        self.refused: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            typed = 0
            for r in self.running:
                bridge = r.bridge
                for board in sorted(bridge.games):
                    with bridge.lock:
                        typed += self.one(bridge, board)
            if not typed:
                time.sleep(0.02)

    def one(self, bridge: Any, board: str) -> int:
        session = bridge.games[board].session
        path = session.journal.path
        plan = self.plans.get(board)
        if plan is None or plan[0] != path:
            score = session.summary()
            lines: list[str] = []
            if tuple(score["players"]) != DEFAULT_PLAYERS and not score["over"]:
                text = random_match(zlib.crc32(path.encode()), score["rules"], score["players"], match=score["match"])
                lines = [ln for ln in text.splitlines() if ln and not ln.startswith("[")]
                self.matches += 1
            plan = self.plans[board] = (path, lines)
        if not plan[1]:
            return 0
        line = plan[1].pop(0)
        out = bridge.submit(board, line)
        self.lines += 1
        if not out.accepted:
            self.refused.append(f"{board} {path}: {line}: {out.message}")
        return 1


def wait(pred: Any, what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            raise SystemExit(f"tournament soak: timed out waiting for {what}")
        time.sleep(0.2)


def spawn(path: str, url: str, log: Path) -> subprocess.Popen[bytes]:
    out = log.open("ab")
    return lifecycle.spawn(
        [sys.executable, __file__, "director", path, url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=out,
        stderr=subprocess.STDOUT,
    )


def round_results(path: str, r: int) -> tuple[int, int]:
    """(results, matches) of Swiss round r so far, read without the lock."""
    try:
        ev = read(path)
    except Exception:  # not there yet
        return (0, 0)
    st = ev.stages.get("swiss")
    if st is None or len(st.rounds) < r:
        return (0, 0)
    ids = st.rounds[r - 1]
    return (sum(1 for m in ids if ev.matches[m].outcome is not None), len(ids))


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tournament-soak-") as d:
        tmp = Path(d)
        broker = start_mosquitto()
        running: list[Running] = []
        try:
            for b in range(BRIDGES):
                cfg = BridgeConfig(
                    mqtt=parse_mqtt_url(broker.url),
                    boards=tuple(BOARDS[b * PER_BRIDGE : (b + 1) * PER_BRIDGE]),
                    journals=str(tmp / f"room-{b + 1}"),
                    client_id=f"soak-bridge-{b + 1}-{uuid.uuid4().hex[:6]}",
                    bridge_id=f"room-{b + 1}",
                    log_level="WARNING",
                )
                r = start_bridge(cfg)
                running.append(r)
                assert r.mqtt is not None and r.mqtt.wait_ready(10), "a bridge did not connect"
            scorers = Scorers(running)
            scorers.thread.start()
            path, log = str(tmp / "open.jsonl"), tmp / "director.log"
            t0 = time.monotonic()
            proc = spawn(path, broker.url, log)
            # Mid-round: some of round K's results are in, not all.
            wait(lambda: round_results(path, args.kill_round)[0] >= 20, f"round {args.kill_round} under way", 900)
            before = round_results(path, args.kill_round)
            peak = peak_memory(proc.pid)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            killed_at = time.monotonic() - t0
            print(f"killed the director (SIGKILL): {before[0]} of {before[1]} results of round {args.kill_round} in")
            proc = spawn(path, broker.url, log)
            while proc.poll() is None:
                peak = max(peak, peak_memory(proc.pid))
                if time.monotonic() - t0 > args.timeout:
                    proc.kill()
                    raise SystemExit("tournament soak: no champion in time; see " + str(log))
                time.sleep(0.2)
            wall = time.monotonic() - t0
            said = log.read_text(errors="replace")
            scorers.stop.set()
            scorers.thread.join(5)
            restarted: dict[str, int] = {}
            for line in said.splitlines():
                if line.startswith("counts:"):
                    peak = max(peak, int(line.rsplit(" ", 1)[1]))
                    restarted = ast.literal_eval(line.split(" ", 1)[1].rsplit(" held:", 1)[0])
                    print(f"the director after its restart: {line}")
            problems = check(path, said, scorers, proc.returncode)
            said = said if problems else ""
            figures = measure(path, wall, peak, killed_at, before, scorers, args.kill_round, restarted)
        finally:
            for r in running:
                r.stop()
            broker.close()
    print(figures)
    for p in problems:
        print(f"PROBLEM: {p}")
    if problems:
        print("the director said:\n" + "\n".join(said.splitlines()[-40:]))
    if not args.no_write:
        write(args.doc, figures)
        print(f"wrote the figures into {args.doc}")
    return 1 if problems else 0


def check(path: str, said: str, scorers: Scorers, rc: int | None) -> list[str]:
    ev = read(path)
    out = []
    if rc != 0:
        out.append(f"the director exited with {rc}")
    swiss, playoff = ev.stages["swiss"], ev.stages.get("playoff")
    if playoff is None or ev.champion(playoff) is None:
        out.append("no champion")
    played = [m for st in ev.stages.values() for m in st.matches.values() if m.state not in ("bye", "void")]
    decided = Counter(r["match"] for _, r in ev.applied if r["act"] in ("result", "walkover", "correct"))
    lost = [m.id for m in played if decided[m.id] == 0]
    doubled = [k for k, v in decided.items() if v > 1]
    if lost or doubled:
        out.append(f"results lost: {lost[:5]} ({len(lost)}), doubled: {doubled[:5]} ({len(doubled)})")
    if len(swiss.matches) != ROUNDS * ENTRANTS // 2:
        out.append(f"{len(swiss.matches)} Swiss matches")
    outcomes = [m.outcome for m in played]
    if any(o is None or o.source != "board" or not o.evidence for o in outcomes):
        out.append("a result not from its board")
    journals = Counter(str(o.evidence["journal"]) for o in outcomes if o is not None and o.evidence)
    if any(v > 1 for v in journals.values()):
        out.append("a game journal gave two results")
    if "held for the organiser" in said:
        out.append("a result was held")
    if scorers.refused:
        out.append(f"entries refused: {scorers.refused[:3]}")
    if ev.rejected or dumps(read(path)) != dumps(ev):
        out.append("the journal does not fold again to the same event")
    return out


def measure(
    path: str,
    wall: float,
    peak: int,
    killed_at: float,
    before: tuple[int, int],
    sc: Scorers,
    kill_round: int,
    restarted: dict[str, int],
) -> str:
    ev = read(path)
    results = sum(1 for _, r in ev.applied if r["act"] == "result")
    playoff = ev.stages["playoff"]
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = [
        "| entrants | boards (bridges) | acts | results from boards | entries typed on the boards | wall time "
        "| results per second | director's peak memory | director killed | champion |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {ENTRANTS} | {len(BOARDS)} ({BRIDGES}) | {ev.count} | {results} | {sc.lines} | {wall:.0f} s "
        f"| {results / wall:.1f} | {peak / 2**20:.0f} MiB | SIGKILL at {killed_at:.0f} s, round {kill_round} with "
        f"{before[0]} of {before[1]} results in; after the restart {restarted.get('recognised', 0)} matches it had "
        f"asked for recognised on the boards' scoreboards, {restarted.get('results', 0)} results taken; none lost or "
        f"doubled | {ev.champion(playoff)} |",
        "",
        f"Generated by `make soak` (tests/support/tournament_soak.py) on {when}: {ROUNDS} Swiss rounds of one game "
        f"({RULES}), then the top 8 in a single elimination of best-of-three matches; {sc.lines / wall:.0f} entries "
        f"a second typed through the bridges, which is what bounds the results per second; Python "
        f"{platform.python_version()}, {platform.system()} {platform.machine()}, {os.cpu_count()} cores.",
    ]
    return "\n".join(rows)


SECTION = """## Measured

The whole event with the boards reporting their own results, in `make soak` (tests/support/tournament_soak.py):
{entrants} entrants on {boards} simulated boards kept by {bridges} real bridges (each with its own bridge id and
journals, all on one Mosquitto), {rounds} Swiss rounds into a top-8 single elimination. The director is its own
process: the hall (host/tournament/hall.py, `flickboard tournament run`) opens each assigned match on its board with
a `new` request and appends the board's result when its scoreboard says the match is over, while a small loop pairs
the rounds, gives each free board the next match and starts the playoff; each board's scorer types a random legal
match through its bridge. The director is killed with SIGKILL in the middle of a Swiss round and started again: it
reaches a champion with every match decided by exactly one result, each from its board and its own game journal,
none held, and the tournament journal folds again to the same event. Wall time counts from the director's start to
the champion, including the games being typed on all the boards at once; the peak memory is the director process's
(VmHWM, the larger of its two runs).

{begin}
{table}
{end}
"""


def write(doc: Path, figures: str) -> None:
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    if BEGIN in text and END in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        doc.write_text(f"{head}{BEGIN}\n{figures}\n{END}{tail}", encoding="utf-8")
        return
    section = SECTION.format(
        entrants=ENTRANTS, boards=len(BOARDS), bridges=BRIDGES, rounds=ROUNDS, begin=BEGIN, table=figures, end=END
    )
    doc.write_text((text.rstrip("\n") + "\n\n" if text else "") + section, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["director"]:
        return director_main(argv[1], argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--kill-round", type=int, default=3, help="the Swiss round the director is killed in")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds to reach a champion")
    ap.add_argument("--doc", type=Path, default=DOC)
    ap.add_argument("--no-write", action="store_true", help="print the figures only")
    args = ap.parse_args(argv)
    with lifecycle.interrupting():
        lifecycle.follow_parent()
        try:
            return run(args)
        except KeyboardInterrupt:
            print("tournament soak: stopped", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
