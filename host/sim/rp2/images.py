"""Where the rig finds the MicroPython rp2 firmware image and the RP2040 boot ROM, and Node with rp2040js.

The images come from a folder: $RP2_IMAGES when set, else `../shared/firmware-images/` beside the repository when it
exists. The folder holds the MicroPython v1.28.0 RPI_PICO UF2 (any file named RPI_PICO*v1.28.0*.uf2) and the
RP2040 B1 boot ROM (rp2040-bootrom-B1.bin, 16,384 bytes).

The emulator (emulator.mjs) runs where rp2040js is installed beside it: in a checkout, this folder (`make rp2` runs
`npm ci` here); in an installed flickboard, whose package folder is not ours to write, a copy of its files in the user's
cache ($XDG_CACHE_HOME/flickboard/rp2, else ~/.cache/flickboard/rp2), where the first use runs `npm ci`.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from flickboard import lifecycle
from flickboard.board import files

HERE = Path(__file__).resolve().parent
CHECKOUT = files.checkout()  # None for an installed flickboard
REPO = CHECKOUT if CHECKOUT is not None else files.PACKAGE
DEFAULT_IMAGES = CHECKOUT.parent / "shared" / "firmware-images" if CHECKOUT is not None else None
BOOTROM_NAME = "rp2040-bootrom-B1.bin"
BOOTROM_BYTES = 16384
UF2_PATTERN = "RPI_PICO*v1.28.0*.uf2"
EMULATOR_FILES = ("emulator.mjs", "package.json", "package-lock.json")


def cache_dir() -> Path:
    """The user's cache for flickboard: $XDG_CACHE_HOME/flickboard, else ~/.cache/flickboard."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "flickboard"


EMULATOR_DIR = HERE if CHECKOUT is not None else cache_dir() / "rp2"
EMULATOR = EMULATOR_DIR / "emulator.mjs"
NODE_MODULES = EMULATOR_DIR / "node_modules"

HOW_TO_GET = (
    "download the MicroPython v1.28.0 RPI_PICO firmware (a .uf2 from https://micropython.org/download/RPI_PICO/) and "
    f"the RP2040 B1 boot ROM ({BOOTROM_NAME}, 16 KiB, built from github.com/raspberrypi/pico-bootrom), put both in "
    "one folder, and point RP2_IMAGES at it"
)


class RigError(Exception):
    """Something the rig cannot do, in one sentence for a person."""


@dataclass(frozen=True)
class Images:
    uf2: Path
    bootrom: Path


def images_dir() -> Path:
    env = os.environ.get("RP2_IMAGES")
    if env:
        return Path(env).expanduser()
    if DEFAULT_IMAGES is None:
        raise RigError(f"the emulated Pico needs the MicroPython rp2 firmware and the RP2040 boot ROM: {HOW_TO_GET}.")
    return DEFAULT_IMAGES


def find_images(folder: Path | None = None) -> Images:
    """The UF2 and the boot ROM, or a RigError saying what to download and where to put it."""
    where = folder if folder is not None else images_dir()
    uf2s = sorted(where.glob(UF2_PATTERN)) if where.is_dir() else []
    rom = where / BOOTROM_NAME
    if not uf2s or not rom.is_file():
        missing = " and ".join(
            name for name, ok in (("the RPI_PICO v1.28.0 .uf2", bool(uf2s)), (BOOTROM_NAME, rom.is_file())) if not ok
        )
        raise RigError(f"the emulated Pico needs {missing} in {where}: {HOW_TO_GET}.")
    if rom.stat().st_size != BOOTROM_BYTES:
        raise RigError(f"{rom} is not an RP2040 boot ROM (it must be {BOOTROM_BYTES} bytes): {HOW_TO_GET}.")
    return Images(uf2=uf2s[-1], bootrom=rom)


def node() -> str:
    """The Node.js executable, with rp2040js installed beside the emulator (make rp2 does both)."""
    found = shutil.which("node") or shutil.which("nodejs")
    if not found:
        how = "run 'make rp2'" if CHECKOUT is not None else "install it (Debian: sudo apt-get install nodejs npm)"
        raise RigError(f"the emulated Pico needs Node.js: {how}, then try again.")
    if CHECKOUT is None:
        _install_emulator()
    if not (NODE_MODULES / "rp2040js" / "package.json").is_file():
        raise RigError(f"rp2040js is not installed in {NODE_MODULES}: run 'make rp2' (it runs npm ci there).")
    return found


def _install_emulator() -> None:
    """An installed flickboard's emulator: its files copied to the cache, and rp2040js installed there by npm (pinned
    by package-lock.json) the first time, and again when the files change with a new flickboard."""
    fresh = all((EMULATOR_DIR / n).is_file() and filecmp.cmp(HERE / n, EMULATOR_DIR / n, False) for n in EMULATOR_FILES)
    if fresh and (NODE_MODULES / "rp2040js" / "package.json").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RigError("the emulated Pico installs rp2040js with npm, which is not installed (Debian: sudo apt-get "
                       "install npm)")  # fmt: skip
    try:
        EMULATOR_DIR.mkdir(parents=True, exist_ok=True)
        for name in EMULATOR_FILES:
            shutil.copy(HERE / name, EMULATOR_DIR / name)
    except OSError as e:
        raise RigError(f"cannot keep the emulator in {EMULATOR_DIR}: {e.strerror or e}") from None
    print(f"==> installing rp2040js (the RP2040 emulator) with npm into {EMULATOR_DIR}", file=sys.stderr, flush=True)
    done = lifecycle.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(EMULATOR_DIR)], 600)
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise RigError(f"npm could not install rp2040js into {EMULATOR_DIR}: {why[-1] if why else 'no reason given'}")
