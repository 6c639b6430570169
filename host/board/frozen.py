"""`make firmware-frozen`: MicroPython for the Pico, built from source with the Flickboard modules frozen in.

Frozen modules are compiled into the firmware image and run from flash: their bytecode and constant strings stay in
flash instead of being loaded into the heap, as `.mpy` files on the board's file system are. The image is built from
MicroPython's own sources, pinned below by commit, with the board's own frozen modules plus every module under
`firmware/fb/` as that folder holds it when the build runs (the manifest names the package, not a list of files).
`boot.py`, `main.py`, the profile and `config.json` stay files on the board: MicroPython runs a frozen `main.py` in
preference to the file, which would leave a maker no way to change it without building again.

    python -m flickboard.board.frozen build --board RPI_PICO_W [--out build/frozen] [--jobs 2]
    python -m flickboard.board.frozen where --board RPI_PICO_W      # the cached image, or why there is none

What it needs: git, make, cmake, a host C compiler (for mpy-cross) and the Arm cross compiler (Debian and Ubuntu:
`apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake build-essential git`),
and the sources: by default from GitHub; $FLICKBOARD_GIT_URL is a template for another place, with {owner} and
{name} in it (e.g. `/srv/mirror/{owner}/{name}.git`). Everything is kept under the output folder: a second build
fetches nothing and recompiles only what changed (a changed fb/ module: about a minute).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from flickboard.board import files

FIRMWARE = files.firmware_dir()
_CHECKOUT = files.checkout()
DEFAULT_OUT = (_CHECKOUT if _CHECKOUT is not None else Path()) / "build" / "frozen"

# MicroPython v1.28.0, the release the stock images are, and the commit of each library its rp2 port builds with
# (the submodule commits v1.28.0 names; checked against the tree after checkout).
MICROPYTHON = ("micropython", "micropython", "e0e9fbb17ed6fd06bb76e266ae554784c9c80804")
VERSION = "v1.28.0"


@dataclass(frozen=True)
class Lib:
    path: str
    owner: str
    name: str
    commit: str


LIBS = {
    "pico-sdk": Lib("lib/pico-sdk", "raspberrypi", "pico-sdk", "a1438dff1d38bd9c65dbd693f0e5db4b9ae91779"),
    "tinyusb": Lib("lib/tinyusb", "hathach", "tinyusb", "aa0fc2e08f1c2dd6f026a431e8989357fbb4c5bf"),
    "mbedtls": Lib("lib/mbedtls", "Mbed-TLS", "mbedtls", "107ea89daaefb9867ea9121002fbbdf926780e98"),
    "micropython-lib": Lib(
        "lib/micropython-lib", "micropython", "micropython-lib", "8380c7bb8f9e5e5260e9539156742925e00366b2"
    ),
    "cyw43-driver": Lib(
        "lib/cyw43-driver", "georgerobotics", "cyw43-driver", "055d64274b014dd7b1c2fc94d26e8a18face7124"
    ),
    "lwip": Lib("lib/lwip", "lwip-tcpip", "lwip", "77dcd25a72509eb83f72b033d219b1d40cd8eb95"),
    "btstack": Lib("lib/btstack", "bluekitchen", "btstack", "77e752abd6a0992334047a48038a5a3960e5c6bc"),
}
BASE_LIBS = ("pico-sdk", "tinyusb", "mbedtls", "micropython-lib")
# MicroPython's board name -> the libraries its build reads. The Pico W adds Wi-Fi (CYW43, lwIP) and Bluetooth.
BOARDS = {
    "RPI_PICO_W": (*BASE_LIBS, "cyw43-driver", "lwip", "btstack"),
    "RPI_PICO": BASE_LIBS,
}
# Flickboard's profiles -> the MicroPython board whose image they run on.
PROFILE_BOARD = {"pico_w": "RPI_PICO_W", "pico_w_pockets": "RPI_PICO_W"}

# The board's own frozen modules (its manifest, else the port's), then Flickboard's firmware package as the folder
# holds it, and a module that says which fb/ that was (make flash FIRMWARE=frozen reads it on the board).
MANIFEST = """# Written by flickboard.board.frozen (make firmware-frozen).
include({base_manifest!r})
package("fb", base_path={base!r})
module("fbimage.py", base_path={extra!r})
"""
# Frozen beside fb/: the digest of the fb/ in the image (fb_digest), so that a board can say which one it runs.
IMAGE_MODULE = """# Written by make firmware-frozen: the Flickboard modules frozen into this MicroPython image.
FB_SHA256 = {digest!r}
BOARD = {board!r}
MICROPYTHON = {version!r}
"""


class BuildError(Exception):
    """What stopped the build, in one sentence for a person."""


def git_url(owner: str, name: str) -> str:
    template = os.environ.get("FLICKBOARD_GIT_URL") or "https://github.com/{owner}/{name}.git"
    return template.format(owner=owner, name=name)


def run(cmd: list[str], cwd: Path | None = None, quiet: bool = True) -> str:
    p = subprocess.run(cmd, cwd=cwd, text=True, capture_output=quiet)
    if p.returncode != 0:
        tail = "\n".join(((p.stdout or "") + (p.stderr or "")).strip().splitlines()[-25:])
        raise BuildError(f"{' '.join(cmd)} failed (exit {p.returncode}) in {cwd or '.'}:\n{tail}")
    return p.stdout or ""


def checkout(where: Path, owner: str, name: str, commit: str, tag: str | None = None) -> None:
    """`where` holds exactly `commit` of owner/name (and `tag`, which MicroPython's version string comes from), fetched
    once: only that commit when the server allows it."""
    mark = where / ".flickboard-source"
    if mark.is_file() and mark.read_text().strip() == commit:
        return
    url = git_url(owner, name)
    print(f"==> fetching {owner}/{name} {commit[:10]} from {url}", flush=True)
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    run(["git", "init", "-q"], cwd=where)
    want = [commit] if tag is None else [f"+refs/tags/{tag}:refs/tags/{tag}"]
    try:
        try:
            run(["git", "fetch", "-q", "--depth", "1", url, *want], cwd=where)
        except BuildError:
            run(["git", "fetch", "-q", url, *want], cwd=where)  # a server that will not serve one commit by id
        run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", "-f", commit], cwd=where)
    except BuildError:
        if not Path(url).is_dir():
            raise
        export(Path(url), commit, where)  # a local copy that lacks some large files: take the tree as it is
    mark.write_text(commit + "\n")


def export(gitdir: Path, commit: str, where: Path) -> None:
    """Write `commit`'s files from the repository `gitdir` into `where`, leaving out (and naming) any it lacks."""
    listing = run(["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-z", commit]).split("\0")
    entries = []
    for line in filter(None, listing):
        meta, path = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob":
            entries.append((mode, sha, path))
    batch = "".join(sha + "\n" for _m, sha, _p in entries).encode()
    p = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "--batch"], input=batch, capture_output=True)
    data, pos, lacking = p.stdout, 0, []
    for mode, _sha, path in entries:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        pos = end + 1
        if header[-1] == b"missing":
            lacking.append(path)
            continue
        size = int(header[2])
        body, pos = data[pos : pos + size], pos + size + 1
        target = where / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(body.decode())
        else:
            target.write_bytes(body)
            if mode == "100755":
                target.chmod(0o755)
    if lacking:
        print(f"    ({len(lacking)} files not in {gitdir}, left out: {', '.join(lacking[:5])})", flush=True)


def manifest_text(fb: Path, extra: Path, board_manifest: bool) -> str:
    """The manifest: the board's own (`board_manifest`: the board has one, else the port's), the package fb/ from the
    folder as it is when the build runs (every module in it, whatever they are), and fbimage.py from `extra`."""
    base = "$(BOARD_DIR)/manifest.py" if board_manifest else "$(PORT_DIR)/boards/manifest.py"
    return MANIFEST.format(base_manifest=base, base=str(fb.resolve().parent), extra=str(extra))


def fb_digest(fb: Path) -> str:
    """A digest of every module under fb/ (names and contents): the image is stale when it changes."""
    h = hashlib.sha256()
    for f in sorted(fb.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        h.update(f.relative_to(fb).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def fb_modules(fb: Path) -> list[str]:
    """The module names the manifest freezes: every .py under fb/, as `fb/name.py`."""
    return sorted("fb/" + f.relative_to(fb).as_posix() for f in fb.rglob("*.py") if "__pycache__" not in f.parts)


def sources(out: Path, board: str) -> Path:
    """MicroPython at the pinned commit with the libraries `board` needs, under out/src; returns its folder."""
    owner, name, commit = MICROPYTHON
    mpy = out / "src" / "micropython"
    checkout(mpy, owner, name, commit, tag=VERSION)
    for key in BOARDS[board]:
        lib = LIBS[key]
        pinned = run(["git", "ls-tree", commit, lib.path], cwd=mpy).split()
        if len(pinned) < 3 or pinned[2] != lib.commit:
            raise BuildError(f"MicroPython {VERSION} names {lib.path} at {pinned[2:3]}, not {lib.commit}")
        checkout(mpy / lib.path, lib.owner, lib.name, lib.commit)
    return mpy


def tools() -> None:
    missing = [t for t in ("git", "make", "cmake", "cc", "arm-none-eabi-gcc") if shutil.which(t) is None]
    if missing:
        raise BuildError(
            f"building the firmware needs {', '.join(missing)}: on Debian or Ubuntu, apt-get install "
            "gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake build-essential git"
        )


def image(out: Path, board: str) -> Path:
    return out / f"{board}-{VERSION}-flickboard.uf2"


def stamp_path(out: Path, board: str) -> Path:
    return out / f"{board}-{VERSION}-flickboard.json"


def build(board: str, out: Path, jobs: int = 2, fb: Path | None = None) -> Path:
    """Build (or bring up to date) the frozen image for `board`; returns the UF2's path."""
    if board not in BOARDS:
        raise BuildError(f"no frozen build for board {board!r}: choose one of {', '.join(BOARDS)}")
    fb = fb or FIRMWARE / "fb"
    tools()
    out = out.resolve()
    started = time.monotonic()
    mpy = sources(out, board)
    print("==> building mpy-cross (MicroPython's compiler, for the frozen bytecode)", flush=True)
    run(["make", f"-j{jobs}", "-C", "mpy-cross"], cwd=mpy)
    manifest = out / f"manifest-{board}.py"
    extra = out / f"extra-{board}"
    extra.mkdir(exist_ok=True)
    module = IMAGE_MODULE.format(digest=fb_digest(fb), board=board, version=VERSION)
    if not (extra / "fbimage.py").is_file() or (extra / "fbimage.py").read_text() != module:
        (extra / "fbimage.py").write_text(module)
    own = (mpy / "ports" / "rp2" / "boards" / board / "manifest.py").is_file()
    manifest.write_text(manifest_text(fb, extra, own))
    build_dir = out / f"build-{board}"
    n = len(fb_modules(fb))
    print(f"==> building MicroPython {VERSION} for {board} with fb/ frozen in ({n} modules)", flush=True)
    # cmake and make directly, as ports/rp2/Makefile does, without picotool (which pico-sdk would fetch from the
    # network): an RP2040 image needs no signing, and MicroPython's own uf2conv.py makes the UF2 from the binary.
    # cmake runs every time (a few seconds): the cache then always holds these settings.
    run(
        [
            "cmake",
            "-S",
            "ports/rp2",
            "-B",
            str(build_dir),
            f"-DMICROPY_BOARD={board}",
            f"-DMICROPY_BOARD_DIR={mpy / 'ports' / 'rp2' / 'boards' / board}",
            f"-DMICROPY_FROZEN_MANIFEST={manifest}",
            "-DPICO_BUILD_DOCS=0",
            "-DPICO_NO_PICOTOOL=1",
        ],
        cwd=mpy,
    )
    run(["make", f"-j{jobs}", "-C", str(build_dir)], cwd=mpy)
    uf2 = image(out, board)
    run(
        [sys.executable, "tools/uf2conv.py", "-c", "-b", "0x10000000", "-f", "RP2040", "-o", str(uf2),
         str(build_dir / "firmware.bin")],
        cwd=mpy,
    )  # fmt: skip
    stamp = {
        "board": board,
        "micropython": VERSION,
        "commit": MICROPYTHON[2],
        "libs": {k: LIBS[k].commit for k in BOARDS[board]},
        "modules": fb_modules(fb),
        "fb_sha256": fb_digest(fb),
        "uf2_sha256": hashlib.sha256(uf2.read_bytes()).hexdigest(),
        "uf2_bytes": uf2.stat().st_size,
        "seconds": round(time.monotonic() - started),
    }
    stamp_path(out, board).write_text(json.dumps(stamp, indent=1) + "\n")
    print(f"==> {uf2} ({stamp['uf2_bytes']:,} bytes, {stamp['seconds']} s)", flush=True)
    return uf2


def current(board: str, out: Path = DEFAULT_OUT, fb: Path | None = None) -> tuple[Path | None, str]:
    """(the cached image, "") when it exists and froze the fb/ there is now; else (None, why not)."""
    fb = fb or FIRMWARE / "fb"
    uf2, stamp = image(out, board), stamp_path(out, board)
    if not uf2.is_file() or not stamp.is_file():
        return None, f"no frozen image for {board} in {out}: build it with make firmware-frozen FROZEN_BOARD={board}"
    try:
        info = json.loads(stamp.read_text())
    except ValueError:
        return None, f"{stamp} is unreadable: build again with make firmware-frozen FROZEN_BOARD={board}"
    if info.get("fb_sha256") != fb_digest(fb):
        again = f"make firmware-frozen FROZEN_BOARD={board}"
        return None, f"{uf2} holds another fb/ than this checkout's: build it again with {again}"
    return uf2, ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flickboard.board.frozen", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the image (fetching the pinned sources the first time)")
    w = sub.add_parser("where", help="print the cached image's path, or why there is none")
    for p in (b, w):
        p.add_argument("--board", default="RPI_PICO_W", help=f"MicroPython board: {' | '.join(BOARDS)}")
        p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    b.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "build":
            build(args.board, args.out, args.jobs)
            return 0
        uf2, why = current(args.board, args.out)
        print(uf2 if uf2 is not None else why)
        return 0 if uf2 is not None else 1
    except BuildError as e:
        print(f"make firmware-frozen: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
