"""The frozen firmware's build and flash logic (host/board/frozen.py, host/board/flash.py FIRMWARE=frozen), without
building MicroPython: the build itself takes many minutes and is `make firmware-frozen`, outside make test. The
image booting and playing a game on the emulated Pico is figure 7's comparison (`make bench BENCH_ARGS="--only
frozen"`), which says in its table when there is no current image to measure.

What is checked here: the manifest freezes the fb/ folder as it is at build time (the package, never a list of
its files, which another change to fb/ would leave stale); an image is current only for the fb/ it was built from;
`make flash FIRMWARE=frozen` stages no fb/ and removes /fb on the board (run under the real MicroPython unix port);
it says in one sentence what to do without an image.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from firmware_runner import FIRMWARE, ROOT, check_micropython

from flickboard.board import flash, frozen


def _fb(tmp: Path) -> Path:
    fb = tmp / "firmware" / "fb"
    fb.mkdir(parents=True)
    (fb / "__init__.py").write_text("VERSION = '0'\n")
    (fb / "app.py").write_text("def run(profile):\n    pass\n")
    return fb


def _stamp(out: Path, board: str, fb: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    frozen.image(out, board).write_bytes(b"UF2\n")
    frozen.stamp_path(out, board).write_text(json.dumps({"fb_sha256": frozen.fb_digest(fb)}))


def test_the_manifest_freezes_the_fb_package_as_the_folder_holds_it(tmp_path: Path) -> None:
    fb = _fb(tmp_path)
    text = frozen.manifest_text(fb, tmp_path / "extra", board_manifest=True)
    assert f'package("fb", base_path={str(fb.parent)!r})' in text
    assert "$(BOARD_DIR)/manifest.py" in text  # the board's own frozen modules stay (the Pico W's network bundle)
    assert "app.py" not in text and "__init__" not in text  # no list of files that could go stale
    assert "$(PORT_DIR)/boards/manifest.py" in frozen.manifest_text(fb, tmp_path, board_manifest=False)


def test_the_image_names_every_module_of_fb(tmp_path: Path) -> None:
    """What the build records as frozen is every module the folder holds now, the checkout's fb/ included."""
    real = sorted("fb/" + p.relative_to(FIRMWARE / "fb").as_posix() for p in (FIRMWARE / "fb").rglob("*.py"))
    assert frozen.fb_modules(FIRMWARE / "fb") == [m for m in real if "__pycache__" not in m]
    fb = _fb(tmp_path)
    (fb / "extra_module.py").write_text("X = 1\n")
    assert frozen.fb_modules(fb) == ["fb/__init__.py", "fb/app.py", "fb/extra_module.py"]


def test_an_image_is_stale_once_fb_changes(tmp_path: Path) -> None:
    fb = _fb(tmp_path)
    out = tmp_path / "out"
    assert frozen.current("RPI_PICO_W", out, fb)[0] is None
    _stamp(out, "RPI_PICO_W", fb)
    uf2, why = frozen.current("RPI_PICO_W", out, fb)
    assert uf2 == frozen.image(out, "RPI_PICO_W") and why == ""
    (fb / "new.py").write_text("Y = 2\n")  # a module added (another fix to the firmware)
    uf2, why = frozen.current("RPI_PICO_W", out, fb)
    assert uf2 is None and "make firmware-frozen FROZEN_BOARD=RPI_PICO_W" in why
    (fb / "new.py").unlink()
    assert frozen.current("RPI_PICO_W", out, fb)[0] is not None
    (fb / "app.py").write_text("def run(profile):\n    return 1\n")  # a module changed
    assert frozen.current("RPI_PICO_W", out, fb)[0] is None


def test_make_flash_frozen_says_what_to_do_without_an_image(tmp_path: Path) -> None:
    with pytest.raises(flash.FlashError, match="make firmware-frozen FROZEN_BOARD=RPI_PICO_W"):
        flash.frozen_image("pico_w", tmp_path)
    with pytest.raises(flash.FlashError, match="no frozen firmware for esp32_devkit"):
        flash.frozen_image("esp32_devkit", tmp_path)


def test_the_frozen_stage_holds_no_fb(tmp_path: Path) -> None:
    build = tmp_path / "build"
    (build / "fb").mkdir(parents=True)
    (build / "fb" / "app.mpy").write_bytes(b"M")
    for name in ("boot.py", "main.py"):
        (build / name).write_text("# " + name)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    files = flash.stage(build, "pico_w", None, tmp_path / "a")
    assert (files / "fb" / "app.mpy").is_file()
    bare = flash.stage(build, "pico_w", None, tmp_path / "b", frozen=True)
    assert not (bare / "fb").exists()
    assert sorted(p.relative_to(bare).as_posix() for p in bare.rglob("*") if p.is_file()) == [
        "boot.py",
        "main.py",
        "profiles/pico_w.json",
    ]


def test_the_swap_for_a_frozen_image_removes_fb_on_the_board(tmp_path: Path) -> None:
    """The board side of the swap, under the real MicroPython unix port in a folder that stands in for the board's
    file system: /fb goes (it would be imported before the frozen package), the rest is swapped as always."""
    board = tmp_path / "board"
    for path, text in {
        "fb/app.py": "old",
        "profiles/pico_w.json": "{}",
        "main.py": "old main",
        "safemode": "on",
        f"{flash.STAGE}/main.py": "new main",
        f"{flash.STAGE}/boot.py": "new boot",
        f"{flash.STAGE}/profiles/pico_w.json": '{"profile": "pico_w"}',
    }.items():
        (board / path).parent.mkdir(parents=True, exist_ok=True)
        (board / path).write_text(text)
    swap = flash.SWAP % {"stage": flash.STAGE, "board": "pico_w", "mark": flash.MARK, "drop": ("fb",)}
    script = tmp_path / "swap.py"
    script.write_text(f"import os\nos.chdir({str(board)!r})\n" + swap)
    out = check_micropython(script.read_text())
    assert "swapped" in out
    left = sorted(os.path.relpath(os.path.join(d, f), board) for d, _s, fs in os.walk(board) for f in fs)
    assert left == ["boot.py", "main.py", "profiles/pico_w.json"]
    assert (board / "main.py").read_text() == "new main"


def test_make_flash_offers_the_frozen_image_and_refuses_an_unknown_firmware() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "firmware-frozen:" in makefile and "FIRMWARE=frozen" in makefile
    assert "--frozen $(FROZEN_OUT) --frozen-board $(FROZEN_BOARD)" in makefile


def test_put_image_copies_the_uf2_onto_the_boot_loaders_drive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board runs another image: it is sent to its boot loader, the UF2 goes onto the RPI-RP2 drive, and the board
    is asked again once it is back. The board and mpremote are stand-ins here (the emulated Pico has no boot-loader
    drive); the copy onto the emulated Pico of an image it already runs is figure 7's flashing."""
    uf2 = tmp_path / "RPI_PICO_W-v1.28.0-flickboard.uf2"
    uf2.write_bytes(b"UF2" * 100)
    drive = tmp_path / "RPI-RP2"
    port = tmp_path / "ttyACM0"
    port.touch()
    runs: list[tuple[str, ...]] = []
    answers = iter(["-", "abc"])

    def fake_mpremote(p: str, *args: str, timeout: float = 120) -> object:
        runs.append(args)
        if args[1] == flash.BOOTLOADER:  # the board goes: its port too, and the drive appears
            port.unlink()
            drive.mkdir()
            (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\n")
        return None

    def copied(src: Path, dst: Path) -> None:
        dst.write_bytes(src.read_bytes())
        port.touch()  # the board restarts into the new image

    monkeypatch.setattr(flash, "mpremote", fake_mpremote)
    monkeypatch.setattr(flash, "frozen_on_board", lambda p: next(answers))
    monkeypatch.setattr(flash.shutil, "copyfile", copied)
    monkeypatch.setattr(flash.time, "sleep", lambda s: None)
    monkeypatch.setenv("FLICKBOARD_UF2_DRIVE", str(drive))
    said: list[str] = []
    flash.put_image(str(port), uf2, "abc", said.append, wait_s=1)
    assert (drive / uf2.name).read_bytes() == uf2.read_bytes()
    assert [a[1] for a in runs] == [flash.BOOTLOADER]
    assert any("copying" in s for s in said)


def test_put_image_says_what_to_copy_where_no_drive_is_mounted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flash, "mpremote", lambda p, *a, timeout=120: None)
    monkeypatch.setattr(flash, "frozen_on_board", lambda p: "-")
    monkeypatch.setattr(flash.time, "sleep", lambda s: None)
    monkeypatch.setenv("FLICKBOARD_UF2_DRIVE", str(tmp_path / "nothing-here"))
    uf2 = tmp_path / "image.uf2"
    with pytest.raises(flash.FlashError, match=r"copy .*image\.uf2 onto the RPI-RP2 drive.*run make flash FIRMWARE="):
        flash.put_image(str(tmp_path / "tty"), uf2, "abc", print, wait_s=0.01)


def test_put_image_leaves_a_board_that_runs_the_image_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(flash, "frozen_on_board", lambda p: "abc")
    monkeypatch.setattr(
        flash, "mpremote", lambda *a, **k: pytest.fail("no boot loader for a board that runs the image")
    )
    said: list[str] = []
    flash.put_image("/dev/x", tmp_path / "i.uf2", "abc", said.append)
    assert said and "already runs" in said[0]
