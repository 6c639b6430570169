"""`flickboard serve`: a site from one file, kept running, and its systemd unit (docs/service.md).

The journey is played with real parts: a live Mosquitto, the real firmware under MicroPython on a simulated board that
talks to the broker with its own MQTT client, and `flickboard serve` started from a config file as systemd would start
it. Halfway through the game the bridge part is killed with SIGKILL; serve starts it again, the web server and the
integrations go on untouched, the board keeps sending, and at the end the journal holds every event the board sent
exactly once, with the score of a fault-free replay. SIGTERM then stops serve and every part."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from e2e import FLICKBOARD, game
from faults import FaultRig, prefix
from procs import alive, descendants

from flickboard.sim.broker import Broker, free_port

LINES = 10  # the first entries of a random legal game: a few sensor shots


class Serve:
    """`flickboard serve --config FILE` in a process of its own, its output in a file."""

    def __init__(self, config: Path, tmp: Path) -> None:
        self.log = tmp / "serve.log"
        with self.log.open("wb") as f:
            self.proc = subprocess.Popen(
                [FLICKBOARD, "serve", "--config", str(config)], stdout=f, stderr=subprocess.STDOUT, cwd=tmp
            )
        self.code: int | None = None

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def pids(self, part: str) -> list[int]:
        """Every process the part has had, in order (serve says each start)."""
        return [int(n) for n in re.findall(rf"^serve: {part} started.*?, pid (\d+):", self.output(), re.M)]

    def wait_for(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output():
            assert self.proc.poll() is None, f"serve ended ({self.proc.returncode})\n{self.output()[-3000:]}"
            assert time.monotonic() < deadline, f"no {text!r} from serve\n{self.output()[-3000:]}"
            time.sleep(0.05)

    def stop(self) -> int:
        if self.code is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.code = self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.code = self.proc.wait()
        return self.code


def test_serve_runs_the_site_and_a_bridge_killed_mid_game_comes_back_with_nothing_lost(
    broker: Broker, tmp_path: Path
) -> None:
    transcript = prefix(game(seed=5), LINES)
    rig = FaultRig(broker, tmp_path, transcript, via="mqtt", bridge=False)
    site = tmp_path / "club"
    site.mkdir()
    port = free_port()
    config = site / "flickboard.toml"
    config.write_text(
        f'mqtt = "{broker.url}"\n\n'
        f'[bridge]\nboards = ["{rig.board_id}"]\njournals = "{rig.journals}"\nplayers = ["Ana", "Ben"]\n'
        'match = "games:1"\nclient_id = "e2e-bridge"\n\n'
        f'[web]\nport = {port}\nkey_file = "club.key"\n\n'
        "[integrations]\nhomeassistant = true\n"
    )
    serve = Serve(config, tmp_path)
    rig.bridge = serve  # what the rig stops at the end, and whose output it shows when something fails
    try:
        serve.wait_for("bridge: flickboard bridge: mqtt")
        serve.wait_for("web: flickboard web: http://")
        serve.wait_for("integrations: flickboard integrations:")
        parts = descendants(serve.proc.pid)
        shots = [h["name"] for h in rig.scenario["holds"] if h["name"].startswith("shot-")]
        when = shots[len(shots) // 2]  # halfway through the game
        killed: list[int] = []

        def kill_the_bridge(hold: str) -> None:
            if hold == when:
                time.sleep(0.05)  # the shot's events are on their way
                killed.append(serve.pids("bridge")[-1])
                os.kill(killed[0], signal.SIGKILL)

        rig.play(after_go=kill_the_bridge)
        out = rig.outcome("the bridge part SIGKILLed under serve")
        assert killed, f"the game never reached {when}"
        assert out.events > 3 and out.journaled == out.events, out
        assert out.lost == 0 and out.duplicated == 0 and out.declared_lost == 0, out
        assert out.score_ok is True and not out.needs_review, out
        text = serve.output()
        assert "serve: bridge stopped after" in text and "(signal 9)" in text, text[-3000:]
        assert len(serve.pids("bridge")) == 2 and serve.pids("bridge")[0] == killed[0], text[-3000:]
        assert len(serve.pids("web")) == 1 and len(serve.pids("integrations")) == 1, text[-3000:]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/tv/{rig.board_id}", timeout=10) as page:
            assert page.status == 200  # the web part served all along, from the same process
        assert (site / "club.key").is_file()  # relative paths are the config file's folder's
    finally:
        rig.close()  # stops serve with SIGTERM
    assert serve.code == 0, serve.output()[-3000:]
    assert alive(parts) == set(), "parts left running after serve stopped"
    assert serve.output().rstrip().endswith("serve: stopped (1 restart)"), serve.output()[-2000:]


def test_serve_killed_outright_takes_its_parts_with_it(broker: Broker, tmp_path: Path) -> None:
    """`kill -9` of serve (no chance to clean up): the kernel sends each part SIGTERM (host/lifecycle.py), and none is
    left running to hold a journal or a port."""
    config = tmp_path / "flickboard.toml"
    config.write_text(f'mqtt = "{broker.url}"\n[bridge]\nboards = ["t1"]\n[web]\nport = {free_port()}\n')
    serve = Serve(config, tmp_path)
    try:
        serve.wait_for("bridge: flickboard bridge: mqtt")
        serve.wait_for("web: flickboard web: http://")
        parts = descendants(serve.proc.pid)
        assert len(parts) >= 2, parts
        serve.proc.kill()
        serve.proc.wait(10)
        deadline = time.monotonic() + 30
        while alive(parts) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert alive(parts) == set(), "a part outlived serve"
    finally:
        if serve.proc.poll() is None:
            serve.stop()


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([FLICKBOARD, *args], capture_output=True, text=True, timeout=60, cwd=cwd, check=False)
    assert "Traceback" not in p.stdout + p.stderr, p.stderr
    return p


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('mqtt = "mqtt://localhost"\n[bridges]\nboards = ["t1"]\n', "unknown key or section 'bridges'"),
        ('mqtt = "mqtt://localhost"\n[web]\nprot = 8080\n', "[web]: unknown option 'prot'"),
        ('mqtt = "mqtt://localhost"\n[web]\nport = "eighty"\n', "invalid int value: 'eighty'"),
        ('mqtt = "mqtt://localhost"\n[bridge]\nboards = ["t1"]\nstdin = true\n', "'stdin' is not an option here"),
        ('mqtt = "mqtt://localhost"\n[tournament]\nfile = "open.jsonl"\n', "there is no tournament"),
        ('mqtt = "mqtt://localhost"\n', "no part to run"),
        ("[web]\nport = 8080\n", "[web]: give the broker"),
        ("[web\n", "not valid TOML"),
    ],
)
def test_a_mistake_in_the_file_is_one_line_and_starts_nothing(text: str, said: str, tmp_path: Path) -> None:
    (tmp_path / "flickboard.toml").write_text(text)
    p = run("serve", "--config", "flickboard.toml", cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == "", p.stdout
    assert len(p.stderr.splitlines()) == 1 and said in p.stderr and "flickboard.toml" in p.stderr, p.stderr


def test_the_file_maps_to_each_parts_own_options(tmp_path: Path) -> None:
    """Lists, flags and a tournament's hall become the commands a person would type."""
    from flickboard.cli.main import build_parser
    from flickboard.cli.serve import read_site

    (tmp_path / "open.jsonl").write_text("")
    (tmp_path / "flickboard.toml").write_text(
        'mqtt = "mqtt://web@broker.lan"\npassword_file = "site.pass"\n'
        '[bridge]\nmqtt = "mqtt://bridge@broker.lan"\nboards = ["t1", "t2"]\nplayers = ["Ana", "Ben"]\n'
        '[integrations]\nhomeassistant = true\nha_commands = true\nboard = ["t1", "t2"]\n'
        '[tournament]\nfile = "open.jsonl"\nboards = ["t1"]\n'
    )
    parts = {p.name: p.argv for p in read_site(tmp_path / "flickboard.toml", build_parser)}
    assert parts == {
        "bridge": ["bridge", "--mqtt", "mqtt://bridge@broker.lan", "--password-file", "site.pass",
                   "--boards", "t1,t2", "--players", "Ana", "Ben"],
        "integrations": ["integrations", "--mqtt", "mqtt://web@broker.lan", "--password-file", "site.pass",
                         "--homeassistant", "--ha-commands", "--board", "t1", "--board", "t2"],
        "hall": ["tournament", "run", "open.jsonl", "--mqtt", "mqtt://web@broker.lan", "--password-file",
                 "site.pass", "--boards", "t1"],
    }  # fmt: skip


def test_the_systemd_unit_runs_serve_at_boot_after_its_broker(tmp_path: Path) -> None:
    folder = tmp_path / "club night"  # a space in the path: quoted where systemd needs it
    folder.mkdir()
    (folder / "flickboard.toml").write_text('mqtt = "mqtt://localhost"\n[bridge]\nboards = ["t1"]\n')
    p = run("serve", "--config", "flickboard.toml", "--print-systemd-unit", cwd=folder)
    assert p.returncode == 0, p.stderr
    unit = tmp_path / "flickboard.service"
    unit.write_text(p.stdout)
    lines = p.stdout.splitlines()
    exe = str(Path(sys.executable).parent / "flickboard")
    assert f'ExecStart={exe} serve --config "{folder}/flickboard.toml"' in lines, p.stdout
    assert f"WorkingDirectory={folder}" in lines and "WantedBy=multi-user.target" in lines, p.stdout
    assert "After=network-online.target mosquitto.service" in lines, p.stdout
    verified = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and verified.stdout + verified.stderr == "", verified.stdout + verified.stderr

    # A broker on another machine is not a unit of this one; a unit with a mistake in it does not verify.
    (folder / "flickboard.toml").write_text('mqtt = "mqtt://broker.lan"\n[bridge]\nboards = ["t1"]\n')
    p = run("serve", "--config", "flickboard.toml", "--print-systemd-unit", cwd=folder)
    assert "After=network-online.target" in p.stdout.splitlines() and "mosquitto" not in p.stdout
    unit.write_text(p.stdout.replace("ExecStart=/", "ExecStart="))
    broken = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert broken.returncode != 0, "systemd-analyze verify passes anything: this test could not fail"
