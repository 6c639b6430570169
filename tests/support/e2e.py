"""End-to-end rig, all real parts: Mosquitto (host/sim/broker.py), the firmware on the simulated board under the
MicroPython unix port, the `flickboard bridge` process, and a paho client that plays the scorer and the display.

The board's serial console goes through `Relay`, a USB cable that can be pulled: the board process's pipes on one
side, a pseudo-terminal behind a stable symlink (like /dev/serial/by-id/...) on the other.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tty
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from fb import proto  # (the firmware's encoder: board lines exactly as a board writes them)
from paho.mqtt.enums import CallbackAPIVersion

from flickboard import lifecycle
from flickboard.core import journal
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.driver import Driver
from flickboard.sim.random_game import random_match
from flickboard.sim.simulator import SimBoard, spawn_board

__all__ = ["proto"]

FLICKBOARD = str(Path(sys.executable).parent / "flickboard")
BOARD = "sim1"
SHOT_MS = 3000  # > the baseline rest window (2.5 s) + the next puck's placement


def game(seed: int) -> str:
    return random_match(seed, "tournament-2019", ["Ana", "Ben"], sensor_exact=True)


def replay_summary(transcript: str, tmp: Path) -> dict[str, Any]:
    """What `flickboard replay --json` says about the same game: the reference score."""
    path = tmp / "game.pich"
    path.write_text(transcript)
    p = subprocess.run([FLICKBOARD, "replay", "--json", str(path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


SCORE_KEYS = ("games", "totals", "games_won", "over", "winner", "match_shootout")


def same_score(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a[k] == b[k] for k in SCORE_KEYS)


class Watcher:
    """A display and a scorer on the broker: the retained scoreboard, the moments, the health, and manual entries
    through the input topic."""

    def __init__(
        self, port: int, board: str = BOARD, login: tuple[str, str] | None = None, ca_file: str | None = None
    ) -> None:
        """`login`: (user, password) on a broker that refuses anonymous clients; `ca_file`: connect over TLS."""
        self.board = board
        self.cond = threading.Condition()
        self.scoreboard: dict[str, Any] | None = None
        self.health: dict[str, Any] | None = None
        self.moments: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.online_seen: set[object] = set()  # every board_link.online value the scoreboards showed
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"watcher-{uuid.uuid4().hex[:6]}")
        topics = [f"flickboard/{board}/{k}" for k in ("scoreboard", "events", "result")] + ["flickboard/bridge/health"]
        if login is not None:
            self.c.username_pw_set(*login)
        if ca_file is not None:
            self.c.tls_set(ca_certs=ca_file)
        self.c.on_connect = lambda c, *_: c.subscribe([(t, 1) for t in topics])
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        doc = json.loads(msg.payload)
        with self.cond:
            kind = msg.topic.rsplit("/", 1)[-1]
            if kind == "scoreboard":
                self.scoreboard = doc
                self.online_seen.add(doc["board_link"]["online"])
            elif kind == "health":
                self.health = doc
            elif kind == "events":
                self.moments.append(doc)
            elif kind == "result":
                self.results.append(doc)
            self.cond.notify_all()

    def processed(self) -> int:
        with self.cond:
            link = (self.scoreboard or {}).get("board_link") or {}
            return int(link.get("processed") or 0)

    def send(self, req: dict[str, Any]) -> dict[str, Any]:
        rid = uuid.uuid4().hex[:10]
        self.c.publish(f"flickboard/{self.board}/input", json.dumps({**req, "id": rid}), qos=1)
        deadline = time.monotonic() + 20
        with self.cond:
            while True:
                for r in self.results:
                    if r.get("id") == rid:
                        return r
                left = deadline - time.monotonic()
                if left <= 0:
                    return {"ok": False, "message": f"no result for {req} within 20 s"}
                self.cond.wait(left)

    def enter(self, line: str) -> dict[str, Any]:
        return self.send({"line": line})

    def wait(self, pred: Any, timeout: float = 20) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not pred(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


class Relay:
    """The board's USB cable: copies between the board process and a pty reached through a stable symlink."""

    def __init__(self, proc: subprocess.Popen[bytes], link: Path) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self.link = link
        self.to_board = proc.stdin.fileno()
        self.from_board = proc.stdout.fileno()
        self.lock = threading.Lock()
        self.master: int | None = None
        self.slave: int | None = None
        self.dropped = 0  # bytes the board wrote while unplugged
        self.plug()
        threading.Thread(target=self._board_to_host, daemon=True).start()

    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        tmp = self.link.with_suffix(".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(slave))
        os.replace(tmp, self.link)
        with self.lock:
            self.master, self.slave = master, slave
        self.reader = threading.Thread(target=self._host_to_board, args=(master,), daemon=True)
        self.reader.start()

    def unplug(self) -> None:
        """Both ends of the pty go away: the bridge's next read fails, as when a USB cable is pulled."""
        with self.lock:
            master, slave = self.master, self.slave
            self.master = self.slave = None
        self.reader.join(2)  # a read blocked on the master would keep it open (no hang-up) until it returns
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)

    def inject(self, data: bytes) -> None:
        """Bytes on the wire as if the board had sent them (noise, garbage)."""
        with self.lock:
            if self.master is not None:
                os.write(self.master, data)

    def _board_to_host(self) -> None:
        while True:
            try:
                data = os.read(self.from_board, 4096)
            except OSError:
                return
            if not data:
                return
            self._out(data)

    def _out(self, data: bytes) -> None:
        """Bytes from the board onto the cable; lost (and counted) while it is unplugged."""
        with self.lock:
            if self.master is None:
                self.dropped += len(data)
                return
            try:
                os.write(self.master, data)
            except OSError:
                self.dropped += len(data)

    def _host_to_board(self, master: int) -> None:
        while self.master == master:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            try:
                os.write(self.to_board, data)
            except OSError:
                return


class BridgeProc:
    """`flickboard bridge` as its own process, so it can be killed with SIGKILL and started again."""

    def __init__(self, args: list[str], tmp: Path) -> None:
        self.args = args
        self.tmp = tmp
        self.runs = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.runs += 1
        self.log = self.tmp / f"bridge-{self.runs}.log"
        with self.log.open("wb") as f:
            self.proc = lifecycle.spawn([FLICKBOARD, "bridge", *self.args], stdout=f, stderr=subprocess.STDOUT)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return int(self.proc.returncode)

    def output(self) -> str:
        return "\n".join((self.tmp / f"bridge-{i}.log").read_text(errors="replace") for i in range(1, self.runs + 1))


def bridge_args(journals: Path) -> list[str]:
    return ["--journals", str(journals), "--players", "Ana", "Ben", "--match", "games:1", "--client-id", "e2e-bridge"]


class Rig:
    """One game on one board: `via` "serial" (board -> Relay pty -> bridge) or "mqtt" (the firmware's own MQTT
    client -> broker -> bridge). The bridge always publishes to the broker; the watcher scores through it."""

    def __init__(
        self, broker: Any, tmp: Path, seed: int, via: str = "serial", board: str = BOARD, bridge: bool = True
    ) -> None:
        """`bridge=False`: no bridge of its own (several rigs share one, see `bridge_args`)."""
        self.broker = broker
        self.tmp = tmp
        self.board_id = board
        self.transcript = game(seed)
        self.control = Path(tempfile.mkdtemp(dir=tmp, prefix="control-"))
        self.journals = tmp / "journals"
        scenario = from_transcript(parse_transcript(self.transcript), board_id=board, holds=True, shot_ms=SHOT_MS)
        scenario["control"] = str(self.control)
        self.relay: Relay | None = None
        if via == "mqtt":
            scenario["mqtt"] = {"host": "127.0.0.1", "port": broker.port}
            self.board: SimBoard = spawn_board(scenario, realtime=False, pty=False, stdout=subprocess.DEVNULL)
            self.link = ["--mqtt", f"mqtt://127.0.0.1:{broker.port}"]
        else:
            self.board = spawn_board(scenario, realtime=False, pty=False, stdout=subprocess.PIPE, stdin=subprocess.PIPE)
            self.relay = Relay(self.board.proc, tmp / f"usb-flickboard-{board}")
            self.link = ["--serial", str(self.relay.link), "--mqtt", f"mqtt://127.0.0.1:{broker.port}"]
        self.watcher = Watcher(broker.port, board)
        if bridge:
            args = [*self.link, "--boards", board, *bridge_args(self.journals)]
            self.bridge = BridgeProc(args, tmp)

    def play(self, after_go: Any = None) -> None:
        Driver(
            self.transcript, self.control, self.watcher.enter, self.watcher.processed, timeout=60, after_go=after_go
        ).run()

    def final(self) -> dict[str, Any]:
        """The retained scoreboard as a display that connects now receives it."""
        late = Watcher(self.broker.port, self.board_id)
        try:
            entries = self.journal_records()
            assert late.wait(lambda w: w.scoreboard is not None and w.scoreboard["entries"] == len(entries)), (
                f"no final retained scoreboard\n{self.bridge.output()[-3000:]}"
            )
            assert late.scoreboard is not None
            return late.scoreboard
        finally:
            late.close()

    def journal_records(self) -> list[dict[str, Any]]:
        paths = sorted((self.journals / self.board_id).glob("*.jsonl"))
        assert len(paths) == 1, paths
        return journal.read(str(paths[0])).records

    def board_keys(self) -> list[tuple[int, int]]:
        return [(r["bt"], r["s"]) for r in self.journal_records() if r["src"] == "board"]

    def close(self) -> None:
        self.watcher.close()
        if hasattr(self, "bridge"):
            self.bridge.stop()
        if self.relay is not None:
            self.relay.unplug()
        self.board.stop()
