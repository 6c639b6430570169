"""`flickboard flash`: the firmware onto a board over its USB port, from a checkout or an installed flickboard.

    flickboard flash --board pico_w --port /dev/ttyACM0 [--config config.json]
    flickboard flash --board pico_w --to FOLDER       # the same files in a folder, to copy by hand

It compiles the firmware this flickboard carries for the board's processor (host/board/files.py: mpy-cross, or the
sources as they are without it), adds the board's profile and an optional config.json, and puts them on the board
the safe way host/board/flash.py describes (safe mode, a staging folder, a swap, the board's hello). `make flash`
does the same from a checkout. What is missing (mpremote, the port, a profile) is said in one sentence.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from flickboard.board import files
from flickboard.errors import UserError

MPREMOTE_HINT = "pipx install 'flickboard[board]' (or pip install mpremote beside flickboard)"


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--board",
        metavar="PROFILE",
        help=f"the board's profile: {', '.join(files.profile_names())} (hardware/README.md)",
    )
    p.add_argument("--port", metavar="PORT", help="the board's serial port, e.g. /dev/ttyACM0 (/dev/serial/by-id/...)")
    p.add_argument(
        "--config",
        metavar="FILE",
        help="a config.json to put on the board: its id, Wi-Fi and broker (docs/firmware.md)",
    )
    p.add_argument(
        "--to",
        metavar="FOLDER",
        help="write the board's files into FOLDER instead (no board needed; copy them by hand)",
    )


def run_flash(args: argparse.Namespace, out: TextIO) -> int:
    if not args.board:
        raise UserError(f"say which board: --board PROFILE, one of: {', '.join(files.profile_names())}")
    try:
        profile = files.load_profile(args.board)
    except files.FilesError as e:
        raise UserError(str(e)) from None
    config = Path(args.config) if args.config else None
    if config is not None:
        try:
            json.loads(config.read_text(encoding="utf-8"))
        except OSError as e:
            raise UserError(f"cannot read {config}: {e.strerror or e}") from None
        except ValueError as e:
            raise UserError(f"{config} is not valid JSON ({e}); see config.example.json in docs/firmware.md") from None
    if args.to is None:
        _check_board_side(args.port)

    def say(line: str) -> None:
        print(f"==> {line}", file=out, flush=True)

    if "experimental" in str(profile.get("board", "")):
        say(f"{args.board} is experimental (docs/firmware.md, 'The ESP32 profile is experimental'): build a Pico W")

    from flickboard.board import flash  # pyserial and the board side: loaded when there is something to flash

    with tempfile.TemporaryDirectory(prefix="flickboard-firmware-") as tmp:
        build = Path(tmp)
        try:
            files.build(str(profile["port"]), build, say=say)
        except files.FilesError as e:
            raise UserError(str(e)) from None
        if args.to is not None:
            return _write_folder(build, args.board, config, Path(args.to), say)
        try:
            flash.flash(args.port, args.board, build, config, say=lambda line: print(line, file=out, flush=True))
        except flash.FlashError as e:
            raise UserError(f"flash: {e}") from None
        except KeyboardInterrupt:
            raise UserError(
                "flash: stopped; if the copy had started, the board stays in safe mode until it is flashed again"
            ) from None
    return 0


def _check_board_side(port: str | None) -> None:
    """The port given and there, and mpremote installed: each missing one said in a sentence."""
    if not port:
        raise UserError(f"say which serial port the board is on: --port PORT ({_ports()}), or --to FOLDER")
    if not os.path.exists(port):
        raise UserError(
            f"no board at {port}: plug it in (a data USB cable, not charge-only) or pick another port ({_ports()})"
        )
    from flickboard.board import flash

    try:
        flash.mpremote_exe()
    except flash.FlashError:
        raise UserError(f"flashing a board needs mpremote, which is not installed: {MPREMOTE_HINT}") from None


def _ports() -> str:
    """The serial ports there are now, for a message."""
    list_ports: Any = importlib.import_module("serial.tools.list_ports")  # pyserial ships no type information
    found = sorted(p.device for p in list_ports.comports())
    return "serial ports here: " + ", ".join(found) if found else "no serial port is connected"


def _write_folder(build: Path, board: str, config: Path | None, to: Path, say: Callable[[str], None]) -> int:
    """The board's files, as flashing would stage them, in the folder `to` (new or empty)."""
    from flickboard.board import flash

    if to.exists() and (not to.is_dir() or any(to.iterdir())):
        raise UserError(f"{to} is not an empty folder: give a new or empty one")
    with tempfile.TemporaryDirectory(prefix="flickboard-stage-") as tmp:
        staged = flash.stage(build, board, config, Path(tmp))
        shutil.copytree(staged, to, dirs_exist_ok=True)
    count = sum(1 for p in to.rglob("*") if p.is_file())
    say(f"{count} files for a {board} board in {to}: copy them to the board's root (e.g. mpremote cp -r {to}/. :)")
    return 0
