"""Hold points of the simulated board: the real firmware under MicroPython stops its simulated clock at each
hold until the host driver lets it go on, and keeps answering the host meanwhile (firmware/fb/sim.py); a game
turned into a timeline gets one hold before each sensor shot and one at the end (host/sim/board_scenario.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from flickboard.board.protocol import BoardMessage, ack_command, decode_line, encode_command
from flickboard.cli.files import sample_path
from flickboard.core.session import fold_entries
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.engine import Shot
from flickboard.rules.transcript import Transcript, format_header, parse_transcript
from flickboard.sim.board_scenario import from_transcript, is_sensor_shot, segments_per_quadrant, sensor_shots
from flickboard.sim.simulator import board_command

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")
QUIET_S = 0.4  # how long a held board must stay silent (real time) before the test lets it go on


class Reader:
    """Decodes the board's stdout on a thread, so the test can wait for lines with a timeout."""

    def __init__(self, stream: IO[str]) -> None:
        self.msgs: list[BoardMessage] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self.thread.start()

    def _run(self, stream: IO[str]) -> None:
        for line in stream:
            m = decode_line(line)
            with self.lock:
                self.msgs.append(m)

    def snapshot(self) -> list[BoardMessage]:
        with self.lock:
            return list(self.msgs)

    def wait(self, what: str, pred: Callable[[list[BoardMessage]], bool], timeout: float = 30) -> list[BoardMessage]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msgs = self.snapshot()
            if pred(msgs):
                return msgs
            time.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}; got {[m.raw for m in self.snapshot()]}")

    def wait_seq(self, seq: int) -> None:
        """Until the reliable line `seq` was read (the board writes it before it writes the hold's .at file)."""
        self.wait(f"seq {seq}", lambda ms: any(m.reliable and m.seq == seq for m in ms))

    def high_water(self) -> int:
        return max((m.seq for m in self.snapshot() if m.reliable), default=0)


def wait_file(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path.name} did not appear within {timeout} s")


def start_firmware(scenario: dict[str, object], tmp: Path) -> subprocess.Popen[str]:
    (tmp / "s.json").write_text(json.dumps(scenario))
    cmd, env = board_command(tmp / "s.json")
    return subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def hole(at_ms: int) -> dict[str, object]:
    return {"at_ms": at_ms, "beam": "hole", "dur_us": 800}


def test_the_board_stops_at_a_hold_and_still_answers_the_host(tmp_path: Path) -> None:
    control = tmp_path / "control"
    control.mkdir()
    scenario = {
        "profile": "pico_w",
        "board_id": "held",
        "events": [hole(100), hole(300), hole(700), hole(1000)],
        "holds": [{"at_ms": 500, "name": "first"}, {"at_ms": 900, "name": "second"}],
        "control": str(control),
        "end_ms": 1200,
    }
    proc = start_firmware(scenario, tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        out = Reader(proc.stdout)
        text = wait_file(control / "first.at")
        seq = int(text)
        assert text == f"{seq}\n" and seq == 3, "hello and the two passes before the hold"
        assert not (control / "first.at.tmp").exists()
        out.wait_seq(seq)
        time.sleep(QUIET_S)
        held = out.snapshot()
        assert out.high_water() == seq, "nothing after the hold's time while held"
        assert all(m.t_us < 500_000 for m in held), [m.raw for m in held]

        # The host is still answered, on a frozen clock: a ping gets its reply and the un-acked lines again...
        proc.stdin.write(encode_command({"c": "ping", "id": 1}))
        proc.stdin.flush()
        msgs = out.wait("the ping reply", lambda ms: any(m.kind == "reply" and m.fields["id"] == 1 for m in ms))
        reply = next(m for m in msgs if m.kind == "reply" and m.fields["id"] == 1)
        assert reply.fields["ok"] and reply.fields["d"] == {"q": seq} and reply.seq == seq
        assert reply.t_us < 500_000, "simulated time does not move during a hold"
        out.wait("the resends", lambda ms: sum(1 for m in ms if m.reliable) == 2 * seq)
        # ...and an ack empties the outbox: the next ping finds nothing pending
        proc.stdin.write(encode_command(ack_command(1, seq)) + encode_command({"c": "ping", "id": 2}))
        proc.stdin.flush()
        msgs = out.wait("the second reply", lambda ms: any(m.kind == "reply" and m.fields["id"] == 2 for m in ms))
        assert next(m for m in msgs if m.kind == "reply" and m.fields["id"] == 2).fields["d"] == {"q": 0}
        assert out.high_water() == seq and not (control / "second.at").exists()

        (control / "first.go").touch()
        assert wait_file(control / "second.at") == f"{seq + 1}\n", "one more pass (at 700 ms) before the next hold"
        msgs = out.wait("the pass at 700 ms", lambda ms: out.high_water() == seq + 1)
        assert [m.t_us // 1000 for m in msgs if m.kind == "pass"][-1] == 700
        time.sleep(QUIET_S)
        assert out.high_water() == seq + 1
        (control / "second.go").touch()
        assert proc.wait(30) == 0
        out.thread.join(10)
        passes = [m.t_us // 1000 for m in out.snapshot() if m.kind == "pass"]
        assert passes == [100, 300, 100, 300, 700, 1000], "the resends during the hold, then the rest"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_held_board_with_lines_nobody_acked_still_beats_on_the_wall_clock(tmp_path: Path) -> None:
    """A real board keeps sending heartbeats; a held one's clock is frozen. While lines wait for an ack it still
    beats every heartbeat_ms of real time, so a host that missed those lines sees the high-water mark and asks for
    them again; once they are acked it is quiet."""
    control = tmp_path / "control"
    control.mkdir()
    scenario = {"profile": "pico_w", "board_id": "held", "events": [hole(100), hole(300)], "heartbeat_ms": 1000,
                "holds": [{"at_ms": 500, "name": "h"}], "control": str(control), "end_ms": 800}  # fmt: skip
    proc = start_firmware(scenario, tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        out = Reader(proc.stdout)
        seq = int(wait_file(control / "h.at"))
        out.wait_seq(seq)
        before = len(out.snapshot())
        msgs = out.wait("two heartbeats while held", lambda ms: sum(m.kind == "heartbeat" for m in ms[before:]) >= 2)
        beats = [m for m in msgs[before:] if m.kind == "heartbeat"]
        assert all(b.seq == seq and b.fields["q"] == seq and b.t_us < 500_000 for b in beats), [b.raw for b in beats]
        # The ack, then a ping: its reply comes once the ack was taken (the board reads its input in order) and says
        # nothing is left to beat for. The bytes reach the board on the host's time, not within some fixed delay.
        proc.stdin.write(encode_command(ack_command(1, seq)) + encode_command({"c": "ping", "id": 1}))
        proc.stdin.flush()
        msgs = out.wait(
            "the ping reply after the ack", lambda ms: any(m.kind == "reply" and m.fields["id"] == 1 for m in ms)
        )
        assert next(m for m in msgs if m.kind == "reply" and m.fields["id"] == 1).fields["d"] == {"q": 0}, (
            "the ack taken"
        )
        quiet = len(out.snapshot())
        time.sleep(2.5)
        assert [m.raw for m in out.snapshot()[quiet:] if m.kind == "heartbeat"] == [], "acked: no beat while held"
        (control / "h.go").touch()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_without_a_control_directory_the_holds_are_ignored(tmp_path: Path) -> None:
    scenario = {"profile": "pico_w", "events": [hole(700)], "holds": [{"at_ms": 500, "name": "h"}], "end_ms": 900}
    proc = start_firmware(scenario, tmp_path)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert [m.kind for m in map(decode_line, out.splitlines()) if m.reliable] == ["hello", "pass"]
    assert not list(tmp_path.glob("h.*"))


def test_a_game_runs_in_lock_step_with_its_driver(tmp_path: Path) -> None:
    """`flickboard sim GAME --control DIR`: the board stops before every sensor shot and at the end; at each
    stop its .at file holds the last sequence number it printed, and it prints no event until the .go file."""
    game = Path(sample_path())
    scenario = from_transcript(parse_transcript(game.read_text()), holds=True)
    holds = scenario["holds"]
    control = tmp_path / "control"  # flickboard sim creates it
    proc = subprocess.Popen(
        [FLICKBOARD, "sim", str(game), "--control", str(control)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        out = Reader(proc.stdout)
        starts_at_holds = []
        for h in holds:
            seq = int(wait_file(control / f"{h['name']}.at"))
            out.wait_seq(seq)
            time.sleep(QUIET_S / 2)
            msgs = out.snapshot()
            assert out.high_water() == seq, f"the board ran past hold {h['name']}"
            assert all(m.t_us < h["at_ms"] * 1000 for m in msgs if m.reliable)
            starts_at_holds.append(sum(1 for m in msgs if m.kind == "shot_start"))
            (control / f"{h['name']}.go").touch()
        assert proc.wait(60) == 0
        assert sorted(p.name for p in control.iterdir()) == sorted(
            [f"{h['name']}.at" for h in holds] + [f"{h['name']}.go" for h in holds]
        )
        out.thread.join(10)
        reliable = [m.seq for m in out.snapshot() if m.reliable]
        assert reliable == list(range(1, len(reliable) + 1))
        # At hold shot-K the shots before it have started, shot K has not (a puck lifted off the baseline by
        # hand also reads as a start).
        lifted = [e["at_ms"] for e in scenario["events"] if "hall" in e and not e["present"]]
        assert starts_at_holds == [sum(1 for t in lifted if t < h["at_ms"]) for h in holds]
        assert starts_at_holds[:3] == [0, 1, 2]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---- the hold points of a game's timeline


def shootout_transcript() -> Transcript:
    """A games:1 match tied with plain shots and zones of 5, decided by a twenties shoot-out."""
    game = Pichenotte.create("tournament-2019", ["North", "South"], match="games:1")
    state = game.start()
    lines: list[str] = []

    def play(text: str) -> None:
        nonlocal state
        line = game.parse(text)
        assert line is not None
        state = game.apply(state, line).state  # type: ignore[arg-type]
        lines.append(text)

    while state.to_shoot() is not None:
        play("shot hit" if state.next_kind() == "contact" else "shot zone")
    for q in state.questions():
        assert q.kind == "zones" and state.game is not None
        play(f"zones {game.setup.sides[q.side]} " + " ".join(["5"] * state.game.board[q.side]))
    assert state.shootout is not None, "the tie goes to a shoot-out"
    first = state.to_shoot()
    while not state.over:
        play("shot in" if state.to_shoot() == first else "shot miss")
    return parse_transcript(format_header(game.header()) + "\n\n" + "\n".join(lines) + "\n")


def test_a_hold_before_every_sensor_shot_and_one_at_the_end() -> None:
    t = parse_transcript(Path(sample_path()).read_text())
    plain = from_transcript(t)
    held = from_transcript(t, holds=True)
    assert "holds" not in plain and held["events"] == plain["events"]
    holds = held["holds"]
    per_q = segments_per_quadrant("pico_w")
    shots = [e for e in held["events"] if e.get("hall") and not e["present"] and e["seg"] % per_q == per_q // 4]
    assert [h["name"] for h in holds] == [f"shot-{k}" for k in range(1, len(shots) + 1)] + ["end"]
    assert len(shots) == 24, "the sample game's 24 shots"
    times = [h["at_ms"] for h in holds]
    assert times == sorted(times) and holds[-1]["at_ms"] < held["end_ms"] == plain["end_ms"] + 500
    for k, shot in enumerate(shots):
        assert holds[k]["at_ms"] == shot["at_ms"] - 500
        # every event of shot K lies between its hold and the next one
        mine = [e["at_ms"] for e in held["events"] if holds[k]["at_ms"] < e["at_ms"] < holds[k + 1]["at_ms"]]
        assert shot["at_ms"] - 300 == min(mine) and shot["at_ms"] in mine
    assert not [e for e in held["events"] if e["at_ms"] < holds[0]["at_ms"] or e["at_ms"] > holds[-1]["at_ms"]]


def test_shootout_shots_are_entered_by_hand_no_events_no_holds() -> None:
    t = shootout_transcript()
    shot_lines = [text for _, text in t.lines if text.startswith("shot")]
    game = Pichenotte.from_header(t.header)
    fold = fold_entries(game, [(i, text, "manual") for i, (_, text) in enumerate(t.lines, 1)])
    shootout = [a for a in fold.stack if a.before.shootout is not None]
    assert shootout and not any(is_sensor_shot(a) for a in shootout)
    assert not any(is_sensor_shot(a) for a in fold.stack if not isinstance(a.line, Shot)), "zones are no shot"
    n = len(sensor_shots(fold))
    assert n == len(shot_lines) - len(shootout) > 0
    scenario = from_transcript(t, holds=True)
    assert [h["name"] for h in scenario["holds"]] == [f"shot-{k}" for k in range(1, n + 1)] + ["end"]
    placed = [e for e in scenario["events"] if e.get("present") is True]
    assert len(placed) == n, "one puck placed per sensor shot, none for the shoot-out"
    assert not [e for e in scenario["events"] if "beam" in e], "the shoot-out's twenties give no hole passes"
    assert scenario["end_ms"] == 1000 + n * 4000 + 500
