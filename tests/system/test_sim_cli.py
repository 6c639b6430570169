"""`flickboard sim`: the real firmware on the simulated board, from a random game or a scenario, on the terminal
or behind a pseudo-terminal that a bridge opens like a USB port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial  # type: ignore[import-untyped]

from flickboard.board.protocol import decode_line, encode_command
from flickboard.sim.board_scenario import HOLE

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")


def sim_random(seed: int, t: Path) -> str:
    p = subprocess.run(
        [FLICKBOARD, "sim", "--random-game", "--seed", str(seed), "--write-transcript", str(t)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def seed4(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    t = tmp_path_factory.mktemp("sim") / "game.pich"
    return sim_random(4, t), t


def test_random_game_on_the_simulated_board(seed4: tuple[str, Path]) -> None:
    stdout, t = seed4
    msgs = [decode_line(ln) for ln in stdout.splitlines()]
    assert msgs[0].kind == "hello" and msgs[0].board == "sim1"
    reliable = [m.seq for m in msgs if m.reliable]
    assert reliable == list(range(1, len(reliable) + 1)), "every event once, in order"
    body = [ln.split("#")[0].split() for ln in t.read_text().splitlines() if ln.startswith("shot")]
    starts = sum(1 for m in msgs if m.kind == "shot_start")
    bases = sum(words.count("base") for words in body)
    assert starts == len(body) + bases, "a puck leaves the baseline for every shot (and each ditched baseline puck)"
    holes = sum(1 for m in msgs if m.kind == "pass" and m.fields["n"] == "hole")
    assert holes == sum(1 for words in body for w in words if w.rsplit(":", 1)[-1] in HOLE)
    replay = subprocess.run([FLICKBOARD, "replay", "--strict", str(t)], capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0 and "Match over" in replay.stdout


def test_the_same_seed_plays_the_same_game(seed4: tuple[str, Path], tmp_path: Path) -> None:
    again = tmp_path / "again.pich"
    stdout = sim_random(4, again)

    def reliable(out: str) -> list[tuple[int, str, int]]:
        return [(m.seq, m.kind, m.t_us) for m in map(decode_line, out.splitlines()) if m.reliable]

    assert again.read_text() == seed4[1].read_text()
    assert reliable(stdout) == reliable(seed4[0])


def test_pty_mode_is_opened_like_a_usb_board(tmp_path: Path) -> None:
    scenario = {"profile": "pico_w", "events": [{"at_ms": 50, "beam": "hole", "dur_us": 800}], "end_ms": 200}
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    proc = subprocess.Popen(
        [FLICKBOARD, "sim", str(tmp_path / "s.json"), "--pty", "--run-on", "--board", "bench"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("simulated board bench on /dev/"), first
        port = serial.Serial(first.split(" on ")[1].split()[0], 115200, timeout=0.2)
        port.write(encode_command({"c": "ping", "id": 1}).encode())  # the bridge pings after every open
        seen: dict[str, object] = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not {"hello", "pass", "reply"} <= seen.keys():
            line = port.readline().decode().strip()
            if line.startswith("FB1|"):
                m = decode_line(line)
                seen[m.kind] = m
        assert {"hello", "pass", "reply"} <= seen.keys(), seen
        assert seen["pass"].board == "bench" and seen["pass"].fields["dur_us"] == 800  # type: ignore[attr-defined]
        port.close()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) in (0, 130)


def test_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    for args in (
        ["sim"],
        ["sim", str(tmp_path / "missing.json")],
        ["sim", str(tmp_path / "bad.json")],
        ["sim", "--random-game", "--mqtt", "mqtts://h:8883"],
    ):
        p = subprocess.run([FLICKBOARD, *args], capture_output=True, text=True, timeout=30, env=os.environ)
        assert p.returncode == 2 and p.stderr.startswith("flickboard: ") and p.stderr.count("\n") == 1, p.stderr
        assert "Traceback" not in p.stderr


def test_each_run_of_sim_is_a_new_boot_of_its_board(tmp_path: Path) -> None:
    """A real board counts its boots in flash; `flickboard sim` counts them per board id in its state folder, so a
    bridge takes a restarted simulated board for a new boot instead of dropping all it says as duplicates (issue 20,
    6). Another board id has its own count; a board id that could not name a board (or a folder) is refused."""
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"profile": "pico_w", "events": [], "end_ms": 50}))
    env = {**os.environ, "FLICKBOARD_STATE": str(tmp_path / "state")}

    def boot(board: str) -> int:
        p = subprocess.run(
            [FLICKBOARD, "sim", str(scenario), "--board", board], capture_output=True, text=True, timeout=60, env=env
        )
        assert p.returncode == 0, p.stderr
        hello = decode_line(p.stdout.splitlines()[0])
        assert hello.kind == "hello" and f"(boot {hello.boot})" in p.stderr
        return hello.boot

    assert [boot("t7"), boot("t7"), boot("t8"), boot("t7")] == [1, 2, 1, 3]
    assert (tmp_path / "state" / "sim" / "t7" / "boot_id").read_text().strip() == "3"
    bad = subprocess.run(
        [FLICKBOARD, "sim", str(scenario), "--board", "../x"], capture_output=True, text=True, timeout=60, env=env
    )
    assert bad.returncode == 2 and "bad board id" in bad.stderr and not (tmp_path / "x").exists()
