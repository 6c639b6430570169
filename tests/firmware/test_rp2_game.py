"""A game end to end on the emulated Pico (host/sim/rp2): the real MicroPython rp2 firmware, flashed with `make flash`,
has its GPIOs driven from the game's timeline (host/sim/board_scenario.py) at exact emulated times -> its USB port ->
the `flickboard bridge` process -> Mosquitto -> a display that connects at the end and reads the retained
scoreboard, which must equal `flickboard replay` of the same game. The scorer (host/sim/driver.py, the one `make demo`
uses) enters what the sensors cannot see while the rig holds the chip between shots.

Then `make demo-rp2` (the same chain inside `flickboard demo --rp2`, its board flashed by the demo itself),
`flickboard sim --rp2` (a scenario behind the port, its holds), the one sentence without the firmware images, and
every stop signal taking the emulator, the broker and the bridge down with the command.

The emulated Pico runs slower than real time while the firmware is busy (its idle main loop keeps it busy), so the
games here are the first few shots of the demo's game: they have twenties (the hole beam), a puck into the ditch (a
ditch beam), a zone and a declared twenty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import procs
import pytest
import serial
from e2e import FLICKBOARD, BridgeProc, Watcher, bridge_args, game, replay_summary
from rp2_board import ALARMS, TEST_CONFIG, flashed

from flickboard.board.protocol import ProtocolError, decode_line, encode_command
from flickboard.core import journal
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.broker import Broker
from flickboard.sim.demo import RP2_SHOT_MS, same_score
from flickboard.sim.driver import Driver, first_shots
from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.game import RigGame
from flickboard.sim.rp2.images import REPO

SEED = 7  # the demo's game
SHOTS = 4  # its first four sensor shots: a zone, a puck into the ditch, a declared twenty made, two twenties at once
BOARD = str(TEST_CONFIG["board_id"])


@pytest.fixture(scope="module")
def rp2_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The flash images `flickboard demo --rp2` and `sim --rp2` make for themselves, for this module only: the first
    test that needs one makes it from this checkout, as a user's first run does."""
    return tmp_path_factory.mktemp("rp2-build")


def _env(rp2_build: Path, **more: str) -> dict[str, str]:
    """The environment of a command the tests start: no make jobserver of ours, the module's image folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return {**env, "RP2_BUILD": str(rp2_build), **more}


def _retained(port: int, board: str, entries: int) -> dict[str, Any]:
    """The retained scoreboard as a display that connects now receives it, once it has all `entries`."""
    late = Watcher(port, board)
    try:
        assert late.wait(lambda w: w.scoreboard is not None and w.scoreboard["entries"] == entries), (
            "no final retained scoreboard"
        )
        assert late.scoreboard is not None
        return late.scoreboard
    finally:
        late.close()


def test_a_game_on_the_emulated_pico_through_the_bridge_to_the_retained_scoreboard(
    broker: Broker, tmp_path: Path
) -> None:
    transcript = first_shots(game(SEED), SHOTS)
    scenario = from_transcript(parse_transcript(transcript), board_id=BOARD, holds=True, shot_ms=RP2_SHOT_MS)
    journals = tmp_path / "journals"
    with Pico(flash=flashed("pico_w"), pace="hold") as board:
        rig = RigGame(board, scenario)
        board.go("realtime")
        board.wait_usb()
        link = ["--serial", board.port, "--mqtt", f"mqtt://127.0.0.1:{broker.port}", "--boards", BOARD]
        bridge = BridgeProc([*link, *bridge_args(journals)], tmp_path)
        watcher = Watcher(broker.port, BOARD)
        try:
            rig.start(watcher.processed)
            Driver(transcript, rig, watcher.enter, watcher.processed, timeout=60).run()
            paths = sorted((journals / BOARD).glob("*.jsonl"))
            assert len(paths) == 1, paths
            records = journal.read(str(paths[0])).records
            final = _retained(broker.port, BOARD, len(records))
            moments = list(watcher.moments)
        finally:
            watcher.close()
            assert bridge.stop() == 0
        assert not board.halted and not board.resets, "the board ran the whole game without a reset"
    expected = replay_summary(transcript, tmp_path)
    assert same_score(final["score"], expected), (final["score"]["current"], expected["current"])
    assert expected["current"]["shots_played"] == SHOTS
    keys = [(r["bt"], r["s"]) for r in records if r["src"] == "board"]
    assert [s for _, s in keys] == list(range(1, len(keys) + 1)) and len({b for b, _ in keys}) == 1, "each event once"
    kinds = [r["m"] for r in records if r["src"] == "board"]
    assert kinds[0] == "hello" and kinds.count("shot_start") == SHOTS, kinds
    assert not [k for k in kinds if k in ALARMS], kinds  # a game without faults raises no alarm
    assert final["board_link"]["via"].startswith("serial") and final["board_link"]["online"]
    assert not final["needs_review"] and final["waiting"] is None and final["queued"] == 0
    twenties = sum(expected["current"]["twenties"])
    provisional = [m for m in moments if m["type"] == "twenty" and m["provisional"]]
    assert twenties == 3 and len(provisional) == twenties, "every twenty came from the hole beam"
    assert any(m["type"] == "ditch-pass" for m in moments), "the ditch beams were seen"
    assert "Traceback" not in bridge.output()


def test_make_demo_rp2_plays_the_chain_on_the_emulated_pico(rp2_build: Path, tmp_path: Path) -> None:
    """`make demo-rp2`: a private Mosquitto, the emulated Pico flashed with this checkout's firmware (the demo makes
    the image itself, here from nothing), the bridge, the terminal scoreboard, the scripted scorer, and the check
    against a replay."""
    args = f"DEMO_ARGS=--shots {SHOTS} --journals {tmp_path}"
    fresh = not list(rp2_build.glob("pico_w-demo-*.img"))  # (unless a test run before this one made it)
    p = subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), "demo-rp2", args],
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(rp2_build),
    )
    out = p.stdout
    assert p.returncode == 0, out[-3000:] + p.stderr[-3000:]
    assert "private Mosquitto on mqtt://127.0.0.1:" in out
    if fresh:
        assert "flashing this checkout's firmware onto a blank emulated Pico" in out and "saved " in out
    assert "emulated Pico (the real MicroPython rp2 firmware in rp2040js), board 'demo'" in out
    assert "TWENTY for" in out and "(provisional: confirm or correct)" in out, "twenties come from the hole beam"
    assert "went into the ditch (ditch" in out, "ditch passes come from the ditch beams"
    assert f"shot {SHOTS}/24" in out and "The same as `flickboard replay`" in out
    assert "Traceback" not in p.stderr and "WARNING" not in p.stderr
    assert len(list(rp2_build.glob("pico_w-demo-*.img"))) == 1
    journals = list(tmp_path.rglob("*.jsonl"))
    assert len(journals) == 1
    replay = subprocess.run([FLICKBOARD, "replay", "--strict", str(journals[0])], capture_output=True, text=True)
    assert replay.returncode == 0 and f"shot {SHOTS}/24" in replay.stdout, replay.stdout + replay.stderr


def _start(cmd: list[str], env: dict[str, str], until: str, timeout: float = 300) -> tuple[subprocess.Popen[str], str]:
    """A flickboard command, read until a line of its output contains `until`; (process, that line)."""
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=procs.as_a_terminal_starts_it,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if until in line:
            return proc, line
        assert time.monotonic() < deadline, "".join(seen)
    proc.wait()
    raise AssertionError(f"exit {proc.returncode} before {until!r}:\n{''.join(seen)}")


def _kill(proc: subprocess.Popen[str], started: set[procs.Proc]) -> None:
    """After a failed check: whatever is left goes, so one failure does not leave processes to the next test."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    procs.kill_all(started)


def _stop_and_check(proc: subprocess.Popen[str], sig: int, started: set[procs.Proc]) -> str:
    """Send `sig`; the command stops with what it started."""
    proc.send_signal(sig)
    rest, _ = proc.communicate(timeout=30)
    left = procs.left_behind(started)
    assert not left, f"left behind after {signal.Signals(sig).name}: {procs.names(left)}"
    assert "Traceback" not in rest, rest
    return rest


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stopped_demo_rp2_stops_the_emulator_the_broker_and_the_board(
    sig: int, rp2_build: Path, tmp_path: Path
) -> None:
    """Stopped in the middle of the game (Ctrl-C, kill, a closed terminal): nothing it started is left."""
    cmd = [FLICKBOARD, "demo", "--rp2", "--journals", str(tmp_path)]
    proc, _ = _start(cmd, _env(rp2_build), "shot 1:")
    started = procs.descendants(proc.pid)
    try:
        assert {"node", "mosquitto"} <= procs.names(started), procs.names(started)
        _stop_and_check(proc, sig, started)
        assert proc.returncode != 0
    finally:
        _kill(proc, started)


class _Usb:
    """A program on the board's port: its protocol lines, decoded."""

    def __init__(self, port: str) -> None:
        self.port = serial.Serial(port, timeout=0.05)
        self.buf = b""
        self.kinds: list[str] = []

    def read(self) -> list[dict[str, Any]]:
        self.buf += self.port.read(self.port.in_waiting or 1)
        got = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                m = decode_line(line)
            except ProtocolError:
                continue
            self.kinds.append(m.kind)
            got.append({"m": m.kind, "s": m.seq, "b": m.board, **m.fields})
        return got

    def until(self, kind: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.read():
                if m["m"] == kind:
                    return m
        raise AssertionError(f"no {kind} from the board within {timeout:.0f} s (got {self.kinds})")


def test_flickboard_sim_rp2_plays_a_scenario_behind_its_port(rp2_build: Path, tmp_path: Path) -> None:
    """The port is printed; the timeline waits for a program to open it; a hold stops the chip until its .go file
    (the .at file holds the board's high-water mark); the run ends with the scenario. Then SIGTERM and SIGHUP stop
    a board that runs on, emulator and all."""
    scenario = {
        "profile": "pico_w",
        "events": [{"at_ms": 300, "beam": "hole", "dur_us": 900}],
        "holds": [{"at_ms": 100, "name": "h1"}],
        "end_ms": 1500,
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    control = tmp_path / "control"
    env = _env(rp2_build, PYTHONFAULTHANDLER="1")
    cmd = [FLICKBOARD, "sim", "--rp2", str(path), "--board", "demo", "--control", str(control)]
    proc, line = _start(cmd, env, "emulated Pico demo on ")
    output: list[str] = []  # what it says from now on, read as it comes: a pipe nobody reads stops its writer
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: output.extend(proc.stdout or ()), daemon=True)
    reader.start()
    try:
        port = line.split(" on ", 1)[1].split(" (", 1)[0]
        time.sleep(1.0)
        assert not (control / "h1.at").exists(), "the timeline waits for a program on the port"
        usb = _Usb(port)
        try:
            # As a bridge does on opening a port: a ping, so the board sends again what nobody acknowledged. Its
            # hello may have gone out before the port was open, and bytes for a closed USB port are lost.
            usb.port.write((encode_command({"c": "ping"}) + "\n").encode())
            hello = usb.until("hello")
            assert hello["b"] == "demo" and hello["s"] == 1
            deadline = time.monotonic() + 60
            while not (control / "h1.at").exists():
                assert time.monotonic() < deadline, "the board never reached its hold"
                usb.read()
            assert (control / "h1.at").read_text() == "1\n"  # its hello
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                assert all(m["m"] != "pass" for m in usb.read()), "the chip is held: no beam pass yet"
            (control / "h1.go").touch()
            passed = usb.until("pass")
            assert passed["n"] == "hole" and abs(passed["dur_us"] - 900) <= 5
        finally:
            usb.port.close()
        try:
            assert proc.wait(120) == 0, "".join(output)
        except subprocess.TimeoutExpired:  # say where it was: its threads' stacks (faulthandler) and its last words
            proc.send_signal(signal.SIGABRT)
            proc.wait(30)
            reader.join(10)
            said = "".join(output)[-6000:]
            raise AssertionError(f"flickboard sim --rp2 still ran 120 s after its scenario's end:\n{said}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        proc, line = _start([FLICKBOARD, "sim", "--rp2", str(path), "--board", "demo", "--run-on"], env, " on ")
        started = procs.descendants(proc.pid)
        try:
            assert "node" in procs.names(started)
            port = line.split(" on ", 1)[1].split(" (", 1)[0]
            _stop_and_check(proc, sig, started)
            assert not os.path.lexists(port), "the port went with the board"
        finally:
            _kill(proc, started)


def test_without_the_firmware_images_sim_rp2_says_what_to_download(tmp_path: Path) -> None:
    env = _env(tmp_path / "build", RP2_IMAGES=str(tmp_path / "no-images"))
    for cmd in (["sim", "--rp2", "--random-game"], ["demo", "--rp2", "--serial-only", "--journals", str(tmp_path)]):
        p = subprocess.run([FLICKBOARD, *cmd], capture_output=True, text=True, timeout=60, env=env)
        assert p.returncode != 0 and "Traceback" not in p.stdout + p.stderr
        err = p.stderr.strip()
        assert len(err.splitlines()) == 1, err
        assert "download the MicroPython v1.28.0 RPI_PICO firmware" in err and "RP2_IMAGES" in err, err
