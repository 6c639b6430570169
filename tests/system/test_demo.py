"""`make demo` (the README's main command) on this machine: the whole chain with a private Mosquitto, and the
serial-only fallback when Mosquitto cannot be started."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

import pytest

from flickboard.sim import demo
from flickboard.sim.broker import BrokerError

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")


def test_flickboard_demo_plays_a_whole_game_through_mqtt(tmp_path: Path) -> None:
    p = subprocess.run([FLICKBOARD, "demo", "--journals", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = p.stdout
    assert "private Mosquitto on mqtt://127.0.0.1:" in out
    assert "TWENTY for" in out and "(provisional: confirm or correct)" in out, "twenties come from the hole beam"
    assert "went into the ditch (ditch" in out, "ditch passes come from the ditch beams"
    assert "MATCH OVER" in out and "Final: Ana" in out and "The same as `flickboard replay`" in out
    assert "Traceback" not in p.stderr and "WARNING" not in p.stderr
    journals = list(tmp_path.rglob("*.jsonl"))
    assert len(journals) == 1
    replay = subprocess.run([FLICKBOARD, "replay", "--strict", str(journals[0])], capture_output=True, text=True)
    assert replay.returncode == 0 and "Match over" in replay.stdout, replay.stderr


def test_without_mosquitto_the_demo_runs_serial_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_broker(*_a: object, **_k: object) -> None:
        raise BrokerError("Mosquitto is not installed: sudo apt-get install mosquitto")

    monkeypatch.setattr(demo, "start_mosquitto", no_broker)
    out = io.StringIO()
    args = argparse.Namespace(seed=3, live=False, serial_only=False, journals=str(tmp_path))
    assert demo.run(args, out) == 0, out.getvalue()[-2000:]
    text = out.getvalue()
    assert "Mosquitto is not installed" in text and "running serial-only" in text
    assert "The same as `flickboard replay`" in text
