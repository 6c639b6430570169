"""Where the rig finds the MicroPython rp2 firmware image and the RP2040 boot ROM, and Node with rp2040js.

The images come from a folder: $RP2_IMAGES when set, else `../shared/firmware-images/` beside the repository when it
exists. The folder holds the MicroPython v1.28.0 RPI_PICO UF2 (any file named RPI_PICO*v1.28.0*.uf2) and the
RP2040 B1 boot ROM (rp2040-bootrom-B1.bin, 16,384 bytes).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
DEFAULT_IMAGES = REPO.parent / "shared" / "firmware-images"
BOOTROM_NAME = "rp2040-bootrom-B1.bin"
BOOTROM_BYTES = 16384
UF2_PATTERN = "RPI_PICO*v1.28.0*.uf2"
EMULATOR = HERE / "emulator.mjs"
NODE_MODULES = HERE / "node_modules"

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
    return Path(env).expanduser() if env else DEFAULT_IMAGES


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
        raise RigError("the emulated Pico needs Node.js: run 'make rp2' (or apt-get install nodejs), then try again.")
    if not (NODE_MODULES / "rp2040js" / "package.json").is_file():
        raise RigError(f"rp2040js is not installed in {NODE_MODULES}: run 'make rp2' (it runs npm ci there).")
    return found
