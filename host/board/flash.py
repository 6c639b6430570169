"""`make flash`: put the compiled firmware on a board over its USB serial port, safely, with mpremote.

A running board has its watchdog on (fb/app.py), and once started a watchdog cannot be stopped: after Ctrl-C and
a soft reset it still runs, and copying the firmware (over an ESP32's UART, more than 8 s) would be cut short by a
reset. So, in four steps, each a short mpremote session:

1. Safe mode: Ctrl-C stops the app, a file `/safemode` is written (well under a second, inside the watchdog's
   time) and the board is reset. A reset clears the watchdog, and main.py does not start the app while
   `/safemode` exists: the board sits at the REPL with no watchdog.
2. Wait until the board is back on its port (a Pico's USB goes away during a reset) and check it is in safe mode.
3. Copy the new firmware into a staging folder, `/fb.stage`, beside the old one, then swap on the board: `/fb` and
   `/profiles` are replaced whole (so a profile that no longer applies is gone), `boot.py`, `main.py` and a given
   `config.json` are renamed over the old ones, and a `config.json` that names a profile the board no longer has is
   pointed at the new one. `/safemode` is removed last.
4. Reset, and wait until the board says hello with the new firmware (pinged over its port, as the bridge does).

If the copy is cut short (a cable pulled, mpremote killed), the old `/fb` is untouched and `/safemode` is still
there: the board stays in safe mode until `make flash` runs again, which starts by removing the unfinished stage.

    python -m flickboard.board.flash --board pico_w --port /dev/ttyACM0 --build build/firmware/rp2 \
        [--config firmware/config.json] [--frozen build/frozen [--frozen-board RPI_PICO]]

With --frozen, the board gets MicroPython with the Flickboard modules frozen in (`make firmware-frozen`,
flickboard.board.frozen) instead of the modules as files: in safe mode, the board is asked which fb/ its image holds
(the frozen module `fbimage`); if it is not this checkout's, the board is sent to its boot loader and the UF2 copied
onto the drive it shows (RPI-RP2), or, where no such drive is mounted, the person is told to copy it. Then the same
copy and swap, without fb/: `/fb` is removed from the board, since a folder there would be imported before the frozen
package."""

from __future__ import annotations

import argparse
import glob
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from flickboard import lifecycle
from flickboard.board import files, frozen
from flickboard.board.protocol import BoardMessage, ProtocolError, decode_line, encode_command

serial: Any = importlib.import_module("serial")  # pyserial ships no type information
ROOT = Path(__file__).resolve().parents[2]
PROFILES = files.profiles_dir()
STAGE = "fb.stage"
MARK = "flickboard-flash:"  # what the board prints for us; anything else on the console is noise

# Board side (MicroPython), run with `mpremote exec`. How to tell that the board has been through a reset, not
# only the soft reset mpremote does when it connects: its USB port went away (a Pico's does, with the board); or
# main.py, starting in safe mode, rewrote the word "flash" in /safemode as "on"; or its ms since boot started
# again from zero (a board behind a USB-serial chip, an ESP32, keeps its port).
ENTER_SAFE_MODE = f"import time\nopen('safemode', 'w').write('flash')\nprint('{MARK} safe mode on', time.ticks_ms())"

# What is there, for step 2: the safe-mode file's word (or -) and the ms since boot.
STATE = f"""import time
try:
    _w = open('safemode').read() or 'on'
except OSError:
    _w = '-'
print('{MARK}', _w, time.ticks_ms())
"""

# Board side: remove an unfinished stage (a flash that was cut short).
_RM = """import os
def _rm(p):
    try:
        mode = os.stat(p)[0]
    except OSError:
        return
    if mode & 0x4000:
        for n in os.listdir(p):
            _rm(p + '/' + n)
        os.rmdir(p)
    else:
        os.remove(p)
"""
CLEAN = _RM + f"_rm('{STAGE}')\nprint('{MARK} stage clean')\n"

# Board side: the swap, once the whole stage is on the board. Safe to run again after an interruption.
SWAP = (
    _RM
    + """import json
def _ex(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False
S = '%(stage)s'
for d in ('fb', 'profiles'):
    if _ex(S + '/' + d):
        _rm(d + '.old')
        if _ex(d):
            os.rename(d, d + '.old')
        os.rename(S + '/' + d, d)
for f in ('boot.py', 'main.py', 'config.json'):
    if _ex(S + '/' + f):
        if _ex(f):
            os.remove(f)
        os.rename(S + '/' + f, f)
if _ex('config.json'):
    try:
        with open('config.json') as fh:
            c = json.load(fh)
    except ValueError:
        c = None
    if isinstance(c, dict) and isinstance(c.get('profile'), str) and not _ex('profiles/' + c['profile'] + '.json'):
        print('%(mark)s config.json named profile', c['profile'], 'which is not on the board; now %(board)s')
        c['profile'] = '%(board)s'
        with open('config.json.tmp', 'w') as fh:
            json.dump(c, fh)
        os.remove('config.json')
        os.rename('config.json.tmp', 'config.json')
for d in %(drop)r:
    _rm(d)
for d in ('fb.old', 'profiles.old', S):
    _rm(d)
os.remove('safemode')
print('%(mark)s swapped')
"""
)


# Board side: which fb/ its MicroPython image holds frozen in (the module make firmware-frozen adds), or "-".
FROZEN_STATE = f"""try:
    import fbimage
    print('{MARK} frozen', fbimage.FB_SHA256)
except ImportError:
    print('{MARK} frozen -')
"""
BOOTLOADER = "import machine\nmachine.bootloader()\n"
# Where a desktop mounts a Pico's boot-loader drive (its label is RPI-RP2; INFO_UF2.TXT is on it).
DRIVE_GLOBS = ("/media/*/RPI-RP2", "/media/RPI-RP2", "/run/media/*/RPI-RP2", "/Volumes/RPI-RP2", "/mnt/RPI-RP2")


class FlashError(Exception):
    """One line for the person flashing: what went wrong and what to do."""


def mpremote_exe() -> str:
    here = Path(sys.executable).parent / "mpremote"
    found = str(here) if here.exists() else shutil.which("mpremote")
    if not found:
        raise FlashError("mpremote is missing: run 'make flash' (it installs it into .venv)")
    return found


def mpremote(port: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    try:
        return lifecycle.run([mpremote_exe(), "connect", port, *args], timeout=timeout)
    except subprocess.TimeoutExpired:
        raise FlashError(
            f"mpremote did not finish within {timeout:g} s on {port}: the board does not answer. Hold the safe-mode "
            "button while resetting it, then flash it again"
        ) from None


def said(p: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines the board printed for us (after MARK)."""
    return [ln.split(MARK, 1)[1].strip() for ln in p.stdout.splitlines() if MARK in ln]


def _why(p: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (p.stderr + p.stdout).splitlines() if ln.strip() and MARK not in ln]
    return lines[-1] if lines else f"exit code {p.returncode}"


def stage(
    build: Path, board: str, config: Path | None, into: Path, profiles: Path = PROFILES, frozen: bool = False
) -> Path:
    """The local copy of what goes on the board, under the name of the board's staging folder (without fb/ for a
    board whose image has the modules frozen in)."""
    profile = profiles / f"{board}.json"
    if not profile.is_file():
        names = " ".join(sorted(p.stem for p in profiles.glob("*.json")))
        raise FlashError(f"no board profile {board!r}: choose one of: {names}")
    if not (build / "fb").is_dir():
        raise FlashError(f"no compiled firmware in {build}: run make firmware")
    out = into / STAGE
    if frozen:
        out.mkdir()
    else:
        shutil.copytree(build / "fb", out / "fb")
    for name in ("boot.py", "main.py"):
        shutil.copy(build / name, out / name)
    (out / "profiles").mkdir()
    shutil.copy(profile, out / "profiles" / f"{board}.json")
    if config is not None:
        try:
            json.loads(config.read_text())
        except (OSError, ValueError) as e:
            raise FlashError(f"{config} is not valid JSON ({e}); fix it (see firmware/config.example.json)") from None
        shutil.copy(config, out / "config.json")
    return out


def port_id(port: str) -> tuple[int, int, str] | None:
    """What the port is now (None: gone): a board that resets on USB leaves behind a new device node."""
    try:
        st = os.stat(port)
    except OSError:
        return None
    return (st.st_ino, st.st_rdev, os.path.realpath(port))


def enter_safe_mode(port: str) -> int:
    """Safe mode on, then a reset; returns the board's ms since boot just before the reset."""
    p = mpremote(port, "exec", ENTER_SAFE_MODE, "+", "reset", timeout=30)
    got = [ln for ln in said(p) if ln.startswith("safe mode on")]
    if got:
        return int(got[0].split()[-1])
    raise FlashError(
        f"could not reach the board's REPL on {port} ({_why(p)}): is another program (a serial monitor, Thonny, "
        "the bridge) using the port? If the board is stuck, hold its safe-mode button while resetting it"
    )


def wait_in_safe_mode(port: str, before_ms: int, before_port: object, timeout: float = 30) -> None:
    """Until the board answers again after its reset, in safe mode. `before_ms`: its ms since boot before the reset;
    `before_port`: port_id() before it."""
    deadline = time.monotonic() + timeout
    why = "no answer"
    went = False
    settle = time.monotonic() + 2  # watch the port closely while a reset would take it away
    while time.monotonic() < settle:
        if port_id(port) != before_port:
            went = True
            break
        time.sleep(0.05)
    while time.monotonic() < deadline:
        went = went or port_id(port) != before_port
        if os.path.exists(port):
            p = mpremote(port, "exec", STATE, timeout=15)
            got = said(p)
            if got:
                word, ms = got[0].split()[0], int(got[0].split()[-1])
                if word == "-":
                    raise FlashError("the board did not keep its /safemode file: is its filesystem full or damaged?")
                if went or word != "flash" or ms < before_ms:
                    return
            why = "it has not reset yet" if got else _why(p)
        time.sleep(0.5)
    raise FlashError(f"the board did not come back on {port} within {timeout:g} s after its reset ({why})")


def frozen_on_board(port: str) -> str:
    """The digest of the fb/ frozen into the board's image ("-": none); the board must be at its REPL."""
    p = mpremote(port, "exec", FROZEN_STATE, timeout=15)
    got = [ln.split()[-1] for ln in said(p) if ln.startswith("frozen")]
    if not got:
        raise FlashError(f"could not ask the board which firmware image it runs ({_why(p)})")
    return got[0]


def boot_drive() -> Path | None:
    """A mounted RPI-RP2 drive (a Pico in its boot loader): $FLICKBOARD_UF2_DRIVE, else where desktops mount it."""
    env = os.environ.get("FLICKBOARD_UF2_DRIVE")
    places = [Path(env)] if env else [Path(p) for g in DRIVE_GLOBS for p in sorted(glob.glob(g))]
    for place in places:
        if (place / "INFO_UF2.TXT").is_file():
            return place
    return None


def put_image(port: str, uf2: Path, digest: str, say: Any, wait_s: float = 20) -> None:
    """Make the board run the frozen image `uf2` (whose fb/ has `digest`), the board in safe mode at its REPL."""
    if frozen_on_board(port) == digest:
        say(f"==> the board already runs {uf2.name}")
        return
    say("==> the board's MicroPython is not this image: sending it to its boot loader (drive RPI-RP2)")
    mpremote(port, "exec", BOOTLOADER, timeout=15)  # the board drops the connection as it goes
    deadline = time.monotonic() + wait_s
    drive = boot_drive()
    while drive is None and time.monotonic() < deadline:
        time.sleep(0.5)
        drive = boot_drive()
    if drive is None:
        raise FlashError(
            f"the board is in its boot loader: copy {uf2} onto the RPI-RP2 drive it shows (mount it if your system "
            "does not), wait for the board to restart, then run make flash FIRMWARE=frozen again to copy the profile "
            "and settings (the board stays in safe mode until then)"
        )
    say(f"==> copying {uf2.name} onto {drive}")
    shutil.copyfile(uf2, drive / uf2.name)
    deadline = time.monotonic() + 60
    while not os.path.exists(port) and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(2)  # MicroPython mounts its file system, then USB comes up
    if frozen_on_board(port) != digest:
        raise FlashError(f"the board restarted but does not run {uf2.name}: copy it onto the RPI-RP2 drive by hand")


def copy_and_swap(port: str, local: Path, board: str, drop: tuple[str, ...] = ()) -> None:
    swap = SWAP % {"stage": STAGE, "board": board, "mark": MARK, "drop": drop}
    p = mpremote(port, "exec", CLEAN, "+", "fs", "cp", "-r", str(local), ":", "+", "exec", swap, timeout=600)
    got = said(p)
    for line in got:
        if line.startswith("config.json"):
            print("==> " + line)
    if "swapped" not in got:
        raise FlashError(
            f"the copy did not finish ({_why(p)}). The board keeps its previous firmware and stays in safe mode: "
            "flash it again"
        )


def flash(
    port: str,
    board: str,
    build: Path,
    config: Path | None,
    profiles: Path = PROFILES,
    say: object = print,
    frozen: tuple[Path, str] | None = None,
) -> None:
    """`frozen`: (the UF2, the digest of its fb/) to run MicroPython with the modules frozen in (see the module's
    docstring); None: the modules as files."""
    out = say if callable(say) else print
    with tempfile.TemporaryDirectory(prefix="flickboard-flash-") as tmp:
        local = stage(build, board, config, Path(tmp), profiles, frozen=frozen is not None)
        out(f"==> safe mode on the board at {port} (the app stops; a reset clears its watchdog)")
        before = port_id(port)
        wait_in_safe_mode(port, enter_safe_mode(port), before)
        if frozen is not None:
            put_image(port, frozen[0], frozen[1], out)
        files = sum(1 for p in local.rglob("*") if p.is_file())
        out(f"==> copying {files} files into /{STAGE}, then swapping them in")
        copy_and_swap(port, local, board, drop=("fb",) if frozen is not None else ())
    before = port_id(port)
    p = mpremote(port, "reset", timeout=30)
    if p.returncode not in (0, 1):  # the board drops the connection as it resets
        out(f"(the final reset said: {_why(p)}; unplug and plug the board in if it does not start)")
    hello = wait_for_hello(port, before)
    if hello is None:
        out(
            f"==> done: {board} restarts with the new firmware, but said no hello within {HELLO_S} s; watch its "
            f"console with: mpremote connect {port} repl (docs/firmware.md, First boot)"
        )
    else:
        out(
            f"==> done: board {hello.board} runs the new firmware (profile {hello.fields.get('prof')}, "
            f"boot {hello.boot})"
        )


HELLO_S = 30


def wait_for_hello(port: str, before: object, timeout: float = HELLO_S) -> BoardMessage | None:
    """After the final reset: the board's hello, once its port is back (a ping makes it send what is unacked)."""
    deadline = time.monotonic() + timeout
    settle = time.monotonic() + 2
    while time.monotonic() < settle and port_id(port) == before:  # a board on USB takes its port away as it resets
        time.sleep(0.05)
    while time.monotonic() < deadline:
        try:
            with serial.Serial(port, timeout=0.1) as link:
                link.write(encode_command({"c": "ping"}).encode())
                buf = b""
                while time.monotonic() < deadline:
                    buf += link.read(link.in_waiting or 1)
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        try:
                            msg = decode_line(line)
                        except ProtocolError:
                            continue
                        if msg.kind == "hello":
                            return msg
        except (OSError, serial.SerialException):  # not back yet, or gone again while it resets
            time.sleep(0.2)
    return None


def frozen_image(board: str, out: Path, mp_board: str | None = None) -> tuple[Path, str]:
    """(the UF2, its fb/ digest) of make firmware-frozen for the profile `board`, if it is there and current."""
    name = mp_board or frozen.PROFILE_BOARD.get(board)
    if name not in frozen.BOARDS:
        raise FlashError(
            f"there is no frozen firmware for {mp_board or board} (only {', '.join(frozen.BOARDS)}): "
            "flash it without FIRMWARE=frozen"
        )
    uf2, why = frozen.current(name, out)
    if uf2 is None:
        raise FlashError(why)
    return uf2, frozen.fb_digest(frozen.FIRMWARE / "fb")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m flickboard.board.flash", description="copy the firmware to a board (make flash)"
    )
    ap.add_argument("--board", required=True, help="a profile in hardware/profiles/")
    ap.add_argument("--port", required=True, help="the board's serial port")
    ap.add_argument("--build", required=True, type=Path, help="the compiled firmware for the board's port")
    ap.add_argument("--config", type=Path, help="a config.json to put on the board")
    ap.add_argument("--profiles", type=Path, default=PROFILES, help="where the board profiles are")
    ap.add_argument("--frozen", type=Path, help="the folder of make firmware-frozen: the modules frozen in")
    ap.add_argument("--frozen-board", help="the MicroPython board of the frozen image (default: the profile's)")
    a = ap.parse_args(argv)
    try:
        if not os.path.exists(a.port):
            raise FlashError(
                f"no board at {a.port}: plug it in (a data USB cable, not charge-only) or pick another port"
            )
        image = None
        if a.frozen is not None:
            image = frozen_image(a.board, a.frozen, a.frozen_board)
        flash(a.port, a.board, a.build, a.config, a.profiles, frozen=image)
    except FlashError as e:
        print(f"make flash: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("make flash: stopped; if the copy had started, the board stays in safe mode: run make flash again")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
