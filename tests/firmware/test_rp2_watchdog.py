"""The watchdog, safe mode and flashing on the emulated Pico (host/sim/rp2): the real rp2 port, where a started watchdog
cannot be stopped. `make flash` onto a running board (with a watchdog shorter than the copy), a flash cut short,
safe mode by file and by pin, a crash that restarts the app without a reset loop, and a REPL after Ctrl-C that
outlives the watchdog's timeout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from rp2_board import TEST_CONFIG, Host, flashed

from flickboard.board import flash
from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.parts import load_profile

BUILD = flash.ROOT / "build" / "firmware" / "rp2"  # made by the session's first `make flash` (rp2_board.flashed)


def console(host: Host) -> str:
    """What the board printed that is not protocol (main.py's `flickboard: ...` lines, the REPL)."""
    host._pump()
    return "\n".join(b.decode(errors="replace") for b in host.noise)


def power_cycle(board: Pico) -> None:
    """Reset the chip and wait until it has started again (its USB port is a new one: reopen it after)."""
    n = len(board.resets)
    board.reset()
    board.wait_reset(n + 1)


def run_emulated(board: Pico, host: Host, us: float) -> None:
    """Let `us` of board time pass as fast as the emulator can, reading the console meanwhile."""
    end = board.now_us() + us
    board.go("fast")
    while board.now_us() < end:
        host._pump()
    board.go("realtime")


def test_make_flash_onto_a_running_board_whose_watchdog_is_shorter_than_the_copy(tmp_path: Path) -> None:
    """A board runs a profile with a 1 s watchdog. Copying the firmware takes several seconds: copied after a Ctrl-C
    and a soft reset (mpremote's way), the watchdog would reset the board mid-copy. make flash puts it in safe mode
    first (a reset clears the watchdog), stages, swaps: the flash completes, the other profile is gone, and
    config.json names the profile the board has."""
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    fast = {**load_profile("pico_w"), "profile": "wd1", "watchdog_ms": 1000}
    (profiles / "wd1.json").write_text(json.dumps(fast))
    with Pico(flash=flashed("pico_w"), pace="realtime") as board, Host(board) as host:
        assert host.hello().fields["prof"] == "pico_w"
        host.close()
        said: list[str] = []
        flash.flash(board.port, "wd1", BUILD, None, profiles, say=said.append)
        assert said[-1].startswith("==> done: board rp2rig runs the new firmware (profile wd1, boot "), said
        host.reopen()
        hello = host.hello()
        assert hello.fields["prof"] == "wd1", "main.py took the only profile on the board"
        resets = len(board.resets)
        host.close()

        out = board.make_flash("pico_w")  # onto the running board, 1 s watchdog on
        assert "==> done: board rp2rig runs the new firmware (profile pico_w" in out, out
        host.reopen()
        again = host.hello()
        assert again.fields["prof"] == "pico_w" and again.boot > hello.boot
        assert len(board.resets) - resets == 2, board.resets  # safe mode, then the new firmware: no watchdog reset
        host.close()
        listing = board.mpremote("fs", "ls", ":profiles")
        assert "pico_w.json" in listing and "wd1.json" not in listing, listing
        config = json.loads(board.mpremote("fs", "cat", ":config.json").strip().splitlines()[-1])
        assert config == {**TEST_CONFIG, "profile": "pico_w"}, config


def test_a_flash_cut_short_leaves_the_old_firmware_in_safe_mode(tmp_path: Path) -> None:
    """The copy stops halfway (a cable pulled, make killed): the board keeps its old /fb and stays in safe mode at
    every start, whether by the file or by the button; the next make flash finishes the job."""
    with Pico(flash=flashed("pico_w"), pace="realtime") as board, Host(board) as host:
        host.hello()
        host.close()
        before = flash.port_id(board.port)
        flash.wait_in_safe_mode(board.port, flash.enter_safe_mode(board.port), before)
        local = flash.stage(BUILD, "pico_w", None, tmp_path)
        (local / "main.py").unlink()  # half a copy: no main.py, no swap
        board.mpremote("fs", "cp", "-r", str(local), ":")
        power_cycle(board)
        host.reopen()
        seen = len(host.msgs)
        run_emulated(board, host, 3e6)
        text = console(host)
        assert "flickboard: safe mode: the file /safemode exists" in text, text
        assert not [m for m in host.msgs[seen:] if m.kind == "hello"], "the app did not start"
        host.close()
        listing = board.mpremote("fs", "ls", ":")
        assert "fb/" in listing and "fb.stage/" in listing, listing

        # Safe mode by the button, too (the file still there, but the pin alone would do).
        board.press_safe_mode(True)
        board.mpremote("fs", "rm", ":safemode")
        power_cycle(board)
        host.reopen()
        seen = len(host.msgs)
        run_emulated(board, host, 3e6)
        assert "safe mode: the safe-mode pin 26 is held low" in console(host)
        assert not [m for m in host.msgs[seen:] if m.kind == "hello"]
        board.press_safe_mode(False)
        host.close()

        out = board.make_flash("pico_w")
        assert "==> done" in out, out
        host.reopen()
        assert host.hello().fields["prof"] == "pico_w"
        host.close()
        assert "fb.stage" not in board.mpremote("fs", "ls", ":")


def test_a_crashing_app_restarts_every_ten_seconds_never_in_a_reset_loop() -> None:
    """An override the board cannot honour (a pin the RP2040 does not have) makes the app crash at start. main.py
    prints the error, waits 10 s feeding the watchdog the app had started, and soft-resets: about three starts in
    thirty seconds, no watchdog reset in between."""
    with Pico(flash=flashed("pico_w"), pace="realtime") as board, Host(board) as host:
        host.hello()
        host.close()
        bad = {**TEST_CONFIG, "profile": "pico_w", "sensors": {"ditch4": {"pin": 40}}}
        board.press_safe_mode(True)
        power_cycle(board)
        board.mpremote("exec", f"with open('config.json', 'w') as f:\n    f.write({json.dumps(bad)!r})")
        board.press_safe_mode(False)
        power_cycle(board)
        host.reopen()
        resets = len(board.resets)
        run_emulated(board, host, 31e6)
        text = console(host)
        crashes = text.count("flickboard: app crashed:")
        assert 3 <= crashes <= 4, text[-2000:]
        assert "restarting in 10 s" in text and "invalid pin" in text.lower(), text[-2000:]
        assert len(board.resets) == resets, f"the chip was reset: {board.resets[resets:]}"


def test_after_ctrl_c_the_repl_outlives_the_watchdog_and_a_soft_reset_restarts_the_app() -> None:
    """Ctrl-C stops the app; the watchdog it started cannot be stopped, so main.py feeds it from a timer while the
    REPL waits. Fifteen seconds later (twice the watchdog's 8 s) the REPL still answers; Ctrl-D restarts the app."""
    with Pico(flash=flashed("pico_w"), pace="realtime") as board, Host(board) as host:
        first = host.hello()
        resets = len(board.resets)
        assert host.port is not None
        host.port.write(b"\x03")
        host.collect(lambda: "stopped by Ctrl-C" in console(host), timeout=30)
        run_emulated(board, host, 15e6)
        host.port.write(b"print(6 * 7)\r\n")
        host.collect(lambda: "42" in console(host).split("stopped by Ctrl-C")[-1], timeout=30)
        assert len(board.resets) == resets, f"the watchdog reset the board: {board.resets[resets:]}"
        host.port.write(b"\x04")  # soft reset: main.py runs again and starts the app
        again = host.wait_kind("hello", timeout=60)
        assert again.boot == first.boot + 1
        run_emulated(board, host, 10e6)
        assert len(board.resets) == resets, "the app feeds the watchdog again"


def test_make_flash_says_what_to_do_without_a_board() -> None:
    p = subprocess.run(
        ["make", "--no-print-directory", "-C", str(flash.ROOT), "flash", "BOARD=pico_w", "PORT=/dev/nonexistent"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert p.returncode != 0
    assert "No board at /dev/nonexistent: plug it in" in p.stdout + p.stderr


def test_mqtt_set_on_a_board_without_network_is_a_fault_not_a_crash_loop() -> None:
    """A Pico W profile with a broker set, on MicroPython built for a plain Pico (no network module, as on the
    rig): the board says so in a `config` fault and runs on USB serial, instead of crashing at every start."""
    with Pico(flash=flashed("pico_w"), pace="realtime") as board, Host(board, expect=("fault:config",)) as host:
        host.hello()
        host.close()
        config = {**TEST_CONFIG, "profile": "pico_w", "wifi": {"ssid": "club"}, "mqtt": {"host": "192.168.1.10"}}
        board.press_safe_mode(True)
        power_cycle(board)
        board.mpremote("exec", f"with open('config.json', 'w') as f:\n    f.write({json.dumps(config)!r})")
        board.press_safe_mode(False)
        power_cycle(board)
        host.reopen()
        hello = host.hello()
        fault = host.wait(lambda m: m.kind == "fault" and m.fields.get("code") == "config", timeout=30, what="fault")
        assert fault.boot == hello.boot and "no network support" in fault.fields["msg"], fault.fields
        assert "app crashed" not in console(host)
