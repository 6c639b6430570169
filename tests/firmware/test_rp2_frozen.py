"""MicroPython with fb/ frozen in (make firmware-frozen FROZEN_BOARD=RPI_PICO) on the emulated Pico: flashed with
`make flash FIRMWARE=frozen`, it boots, imports the frozen package (no /fb on the board) and reports beam passes.

Not part of make test: the image is not in the repository and takes minutes to build. `make soak-frozen` (and so
`make soak`) runs this file with FLICKBOARD_FROZEN=1, after saying whether there is a current image; without it
the file is not collected (tests/firmware/conftest.py); with it, a missing or stale image is a failure. Figure 7's
comparison (`make bench BENCH_ARGS="--only frozen"`) flashes and measures the same image.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from rp2_board import Host

from bench import rp2_bench
from flickboard.board import frozen
from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.images import Images, find_images


def test_the_frozen_image_boots_and_reports_passes() -> None:
    uf2, why = frozen.current(rp2_bench.FROZEN_BOARD)
    if uf2 is None:
        pytest.fail(why)
    with tempfile.TemporaryDirectory(prefix="fb-frozen-") as tmp:
        image = rp2_bench.flashed_frozen(uf2, Path(tmp))  # fails if make flash left /fb on the board
        with Pico(flash=image, pace="fast", images=Images(uf2=uf2, bootrom=find_images().bootrom)) as board:
            board.press_safe_mode(True)  # the REPL free: which fb the board imports
            board.reset()
            listing = board.mpremote("exec", "import fb.app, fbimage; print(fb.app.__file__, fbimage.FB_SHA256)")
            assert listing.split()[:2] == ["fb/app.py", frozen.fb_digest(frozen.FIRMWARE / "fb")], listing
            board.press_safe_mode(False)
            board.reset()
            board.go("fast")
            with Host(board) as host:
                host.ack(host.hello())
                t0 = board.now_us() + 20_000
                # 40 ms apart: the hole's two passes 80 ms apart, beyond its rebound_ms (60), so the second is a pass
                for k, name in enumerate(("hole", "ditch1", "hole", "ditch3")):
                    board.schedule_beam(name, t0 + 40_000 * k, 1000 + 500 * k)
                got = [host.wait_kind("pass", timeout=120) for _ in range(4)]
    assert [(m.fields["n"], m.fields["dur_us"]) for m in got] == [
        ("hole", 1000),
        ("ditch1", 1500),
        ("hole", 2000),
        ("ditch3", 2500),
    ]
