"""The bridge's links (host/board/links.py) with real parts only: a real pty for serial (and the real firmware on
the simulated board behind it), a real Mosquitto for MQTT."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import tty
import uuid
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import paho.mqtt.client as mqtt
import pytest
from firmware_runner import FIRMWARE, ROOT, micropython_exe
from paho.mqtt.enums import CallbackAPIVersion
from serial.tools.list_ports_common import ListPortInfo

from flickboard.board.links import LinkState, MqttLink, NoBoardFound, SerialLink, find_ports, select_ports
from flickboard.board.protocol import ProtocolError, decode_line
from flickboard.mqtt import BRIDGE_STATUS, STATUS, bridge_topic
from flickboard.sim.broker import Broker

T = TypeVar("T")
PROFILES = str(ROOT / "hardware" / "profiles")


def frame(obj: dict[str, Any]) -> str:
    body = json.dumps(obj, separators=(",", ":"))
    return f"FB1|{body}|{zlib.crc32(body.encode()):08x}"


PING = frame({"c": "ping"})


class Collector:
    """Thread-safe list of whatever a link's callbacks deliver, with waiting."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.cond = threading.Condition()

    def __call__(self, *args: Any) -> None:
        with self.cond:
            self.items.append(args if len(args) > 1 else args[0])
            self.cond.notify_all()

    def wait_for(self, pred: Callable[[list[Any]], bool], timeout: float = 10) -> list[Any]:
        with self.cond:
            ok = self.cond.wait_for(lambda: pred(self.items), timeout)
            assert ok, f"timed out; got {self.items}"
            return list(self.items)


def wait_until(pred: Callable[[], T], timeout: float = 10, what: str = "condition") -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Pty:
    """The board's end of a virtual serial port: the link opens `path` (the slave), the test plays the board
    on `master`."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        self.path = os.ttyname(self.slave)
        self.buf = b""
        self.fds_open = True

    def write(self, text: str) -> None:
        os.write(self.master, text.encode())

    def read_line(self, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0, f"no line from the link; got {self.buf!r}"
            r, _, _ = select.select([self.master], [], [], left)
            if r:
                self.buf += os.read(self.master, 4096)
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def close(self) -> None:
        """Close both ends, once (fd numbers are reused at once: a second close could hit another file)."""
        fds, self.fds_open = (self.master, self.slave) if self.fds_open else (), False
        for fd in fds:
            os.close(fd)


def point(link_path: Path, target: str) -> None:
    """Atomically (re)point the stable path at a pty, like udev's /dev/serial/by-id/ symlinks on replug."""
    tmp = link_path.with_suffix(".new")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target)
    os.replace(tmp, link_path)


# ---------------------------------------------------------------------------------------------- serial


def test_serial_filters_noise_sends_pings_and_survives_unplug(tmp_path: Path) -> None:
    stable = tmp_path / "ttyFB"
    pty = Pty()
    point(stable, pty.path)
    lines, states = Collector(), Collector()
    link = SerialLink(
        str(stable), lines, on_state=states, ping_line=lambda: PING, backoff_initial=0.05, backoff_max=0.4
    )
    link.start()
    try:
        assert pty.read_line() == PING, "a ping after opening, so the board resends what is not acked"
        assert states.wait_for(lambda s: len(s) >= 1)[0] == LinkState("serial", str(stable), True, "opened")

        hello = frame({"v": 1, "b": "fb-01", "bt": 1, "s": 1, "t": 5, "m": "hello"})
        ev = frame({"v": 1, "b": "fb-01", "bt": 1, "s": 2, "t": 9, "m": "pass", "dur_us": 800, "n": "hole"})
        pty.write("MicroPython v1.23.0 on 2024-06-02; Raspberry Pi Pico W with RP2040\r\n>>> \r\n")
        pty.write(hello + "\r\n")
        pty.write('Traceback (most recent call last):\n  File "main.py", line 1\n')
        pty.write(ev[:20])  # a line in two writes still arrives whole
        time.sleep(0.1)
        pty.write(ev[20:] + "\n\n")
        pty.write("x" * 5000 + "\n")  # oversize: dropped, counted
        got = lines.wait_for(lambda xs: len(xs) >= 2)
        assert got == [(str(stable), hello), (str(stable), ev)]
        wait_until(lambda: (link.noise, link.oversize) == (4, 1), what="noise and oversize counts")
        assert link.lines == 2

        assert link.send(frame({"c": "ack", "bt": 1, "s": 2}))
        assert pty.read_line() == frame({"c": "ack", "bt": 1, "s": 2})

        # Unplug: udev removes the stable link and both ends of the pty go away (a dangling link to the freed
        # /dev/pts/N could reach an unrelated pty that reuses the number).
        stable.unlink()
        pty.close()
        down = states.wait_for(lambda s: len(s) >= 2)[1]
        assert not down.connected and down.reason
        assert not link.send("FB1|{}"), "nothing to write to while unplugged"
        # the read that failed, then failed re-opens with backoff (each reported, if at all, before the next)
        wait_until(lambda: link.failures >= 3, what="failed re-opens with backoff")
        assert len(states.items) == 2, "one disconnect report, not one per retry"

        # Replug: a new pty behind the same stable path; the link re-opens it, pings, and lines flow again.
        pty2 = Pty()
        try:
            point(stable, pty2.path)
            assert pty2.read_line() == PING
            assert states.wait_for(lambda s: len(s) >= 3)[2].connected
            ev3 = frame({"v": 1, "b": "fb-01", "bt": 1, "s": 3, "t": 20, "m": "pass", "dur_us": 900, "n": "hole"})
            pty2.write("boot noise\n" + ev3 + "\n")
            assert lines.wait_for(lambda xs: len(xs) >= 3)[2] == (str(stable), ev3)
            assert link.opens == 2 and link.noise == 5
        finally:
            link.stop()
            pty2.close()
    finally:
        link.stop()
        pty.close()
    assert not link.connected


def test_serial_line_that_is_not_utf8_is_refused_as_such(tmp_path: Path) -> None:
    """A byte that is not UTF-8 on the wire (a glitch, a wrong baud rate) reaches the decoder as it came, with a CRC
    that matches its bytes, and is refused as `encoding`, not taken for a CRC mismatch."""
    pty = Pty()
    lines = Collector()
    link = SerialLink(pty.path, lines, ping_line=lambda: PING)
    link.start()
    try:
        assert pty.read_line() == PING
        body = b'{"v":1,"b":"fb-01","bt":1,"s":2,"t":9,"m":"pass","dur_us":800,"n":"h\xffle"}'
        os.write(pty.master, b"FB1|" + body + b"|%08x\n" % zlib.crc32(body))
        (_, text), *_ = lines.wait_for(lambda xs: len(xs) >= 1)
        with pytest.raises(ProtocolError) as e:
            decode_line(text)
        assert e.value.code == "encoding" and "byte 0xff" in e.value.reason, e.value
    finally:
        link.stop()
        pty.close()


def test_serial_with_the_real_simulated_board(tmp_path: Path) -> None:
    """The real firmware (MicroPython unix port, simulated pins) on the board end of a pty; the link opens the
    tty. Whatever the board wrote before the port was opened is flushed by the open: the ping brings it back."""
    scenario = {
        "profile": "pico_w",
        "board_id": "sim1",
        "hall_start": [3],
        "events": [
            {"at_ms": 100, "beam": "hole", "dur_us": 800},
            {"at_ms": 200, "hall": "baseline", "seg": 3, "present": False},
            {"at_ms": 300, "beam": "ditch2", "dur_us": 5000},
        ],
        "end_ms": None,
        "heartbeat_ms": 60000,
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    master, slave = os.openpty()
    tty.setraw(slave)  # no echo: the board must not read its own output back
    env = {**os.environ, "MICROPYPATH": f"{FIRMWARE}:.frozen"}
    proc = subprocess.Popen(
        [micropython_exe(), str(FIRMWARE / "simboard.py"), str(path), "--profiles", PROFILES, "--realtime"],
        stdin=master,
        stdout=master,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    os.close(master)  # the board process holds it now
    lines: Collector = Collector()
    link = SerialLink(os.ttyname(slave), lines, ping_line=lambda: frame({"c": "ping", "id": 1}))
    try:
        time.sleep(0.6)  # the board boots and plays its events before the host opens the port
        link.start()

        def msgs() -> list[dict[str, Any]]:
            return [json.loads(line[4:].rpartition("|")[0]) for _, line in list(lines.items)]

        # A heartbeat carries the latest seq (it is not an event of its own): one sent at boot, when the port opened
        # before the board's first pass (a slow machine), says s 1 too, and must not stand in for the hello.
        events = ("reply", "heartbeat")
        wait_until(lambda: {m["s"] for m in msgs() if m["m"] not in events} >= {1, 2, 3, 4}, 20, "hello and events")
        got = {m["s"]: m for m in msgs() if m["m"] not in events}
        assert got[1]["m"] == "hello" and got[1]["b"] == "sim1" and got[1]["prof"] == "pico_w"
        assert [got[s]["m"] for s in (2, 3, 4)] == ["pass", "shot_start", "pass"]
        assert any(m["m"] == "reply" and m["c"] == "ping" and m["ok"] for m in msgs()), "the board answered the ping"

        assert link.send(frame({"c": "status", "id": 7}))
        wait_until(lambda: any(m["m"] == "reply" and m["id"] == 7 for m in msgs()), 10, "status reply")
        assert link.noise == 0
    finally:
        link.stop()
        proc.kill()
        proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
        os.close(slave)


def port_info(device: str, vid: int | None, pid: int | None) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


def test_select_ports_by_usb_id_prefers_by_id_paths(tmp_path: Path) -> None:
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    devs = tmp_path / "dev"
    devs.mkdir()
    for name in ("ttyACM0", "ttyACM1", "ttyUSB0", "ttyUSB1", "ttyS0"):
        (devs / name).touch()
    (by_id / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00").symlink_to(devs / "ttyACM0")
    infos = [
        port_info(str(devs / "ttyACM0"), 0x2E8A, 0x0005),  # Pico, any PID of Raspberry Pi
        port_info(str(devs / "ttyACM1"), 0x303A, 0x1001),  # ESP32-S3 native USB
        port_info(str(devs / "ttyUSB0"), 0x1A86, 0x7523),  # CH340
        port_info(str(devs / "ttyUSB1"), 0x1A86, 0x1234),  # WCH, unknown PID
        port_info(str(devs / "ttyS0"), None, None),  # a built-in UART
    ]
    assert select_ports(infos, by_id) == [
        str(by_id / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"),
        str(devs / "ttyACM1"),
        str(devs / "ttyUSB0"),
    ]
    assert select_ports([port_info(str(devs / "ttyUSB0"), 0x10C4, 0xEA60)], tmp_path / "missing") == [
        str(devs / "ttyUSB0")
    ]
    assert select_ports(infos[3:], by_id) == []


def test_find_ports_without_a_board_says_what_to_do(tmp_path: Path) -> None:
    """With no board among the machine's ports (given here, so the test reads the same on a machine that has
    a board plugged in), one line says what was seen and what to do."""
    for infos, seen in (
        ([], "no serial ports at all"),
        ([port_info("/dev/ttyS0", None, None)], "/dev/ttyS0 (no USB id)"),
    ):
        with pytest.raises(NoBoardFound) as e:
            find_ports(tmp_path, infos)
        msg = str(e.value)
        assert msg.startswith("no Flickboard found on USB: ") and seen in msg
        assert msg.endswith("plug it in or pass --serial /dev/ttyACM0") and "\n" not in msg
    link = SerialLink("auto", lambda port, line: None, finder=lambda: find_ports(tmp_path, []))
    with pytest.raises(NoBoardFound, match="no Flickboard found on USB"):
        link.start()


# ------------------------------------------------------------------------------------------------ mqtt


class Peer:
    """A plain paho client playing the boards and the scoreboard side."""

    def __init__(self, b: Broker, subscribe: list[str] | None = None) -> None:
        self.msgs = Collector()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"peer-{uuid.uuid4().hex[:8]}")
        self.c.on_message = lambda c, u, m: self.msgs(m.topic, bytes(m.payload), m.retain)
        subscribed = threading.Event()
        self.c.on_subscribe = lambda *a: subscribed.set()
        self.c.connect(b.host, b.port)
        self.c.loop_start()
        if subscribe:
            self.c.subscribe([(t, 1) for t in subscribe])
            assert subscribed.wait(10)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def url(b: Broker) -> str:
    return f"mqtt://bridge:pw-s3cret@{b.host}:{b.port}"


def test_mqtt_events_commands_status_and_board_presence(broker: Broker) -> None:
    payloads, boards, states = Collector(), Collector(), Collector()
    watcher = Peer(broker, [BRIDGE_STATUS, "flickboard/+/cmd"])
    board = Peer(broker)
    link = MqttLink(url(broker), "bridge-t1", None, payloads, on_board=boards, on_state=states, keepalive=10)
    link.start()
    try:
        assert link.wait_ready(10) and link.connected
        assert watcher.msgs.wait_for(lambda m: (BRIDGE_STATUS, b"online", False) in m)
        up = states.items[0]
        assert up.link == "mqtt" and up.connected and "pw-s3cret" not in up.name and up.name.endswith(f":{broker.port}")

        board.publish("flickboard/b1/status", b"online", retain=True)
        board.publish("flickboard/b1/raw", b'{"v":1,"b":"b1","bt":1,"s":1}')
        board.publish("flickboard/b2/raw", b'{"v":1,"b":"b2","bt":4,"s":9}')
        board.publish("flickboard/b1/events", b'{"scoring":"moment"}')  # the bridge's own stream: not read back
        board.publish("flickboard/bridge/raw", b"not a board")
        board.publish("flickboard/b1/status", b"offline", retain=True)
        board.publish("flickboard/b1/status", b"what?")
        got = payloads.wait_for(lambda p: len(p) >= 2)
        assert got == [("b1", b'{"v":1,"b":"b1","bt":1,"s":1}'), ("b2", b'{"v":1,"b":"b2","bt":4,"s":9}')]
        assert boards.wait_for(lambda b: len(b) >= 2) == [("b1", True), ("b1", False)]
        # ignored: the bridge's own status (flickboard/+/status matches it), bridge/raw, the unknown status
        wait_until(lambda: link.ignored == 3, what="ignored count")
        assert link.boards_online == {"b1": False} and link.board_online("b1") is False
        assert link.board_online("b9") is None

        link.send_command("b1", frame({"c": "ack", "bt": 1, "s": 1})[4:].rpartition("|")[0])
        assert watcher.msgs.wait_for(lambda m: any(t == "flickboard/b1/cmd" for t, _, _ in m))
        assert ("flickboard/b1/cmd", b'{"c":"ack","bt":1,"s":1}', False) in watcher.msgs.items
        with pytest.raises(ValueError, match="bad board id"):
            link.send_command("b1/../x", "{}")
        link.publish("flickboard/b1/scoreboard", b"{}", qos=1, retain=True).wait_for_publish(5)
    finally:
        link.stop()
    # A clean stop says offline too (the last will only covers a crash).
    assert watcher.msgs.wait_for(lambda m: (BRIDGE_STATUS, b"offline", False) in m)
    late = Peer(broker, [BRIDGE_STATUS, "flickboard/b1/scoreboard"])
    assert late.msgs.wait_for(lambda m: len(m) >= 2)
    assert (BRIDGE_STATUS, b"offline", True) in late.msgs.items
    assert ("flickboard/b1/scoreboard", b"{}", True) in late.msgs.items
    for p in (watcher, board, late):
        p.close()


def test_mqtt_listed_boards_only(broker: Broker) -> None:
    payloads = Collector()
    unlisted = Collector()
    board = Peer(broker)
    board.publish("flickboard/b3/status", b"online", retain=True)  # already on the broker before the bridge
    link = MqttLink(url(broker), "bridge-t2", ["b1"], payloads, on_unlisted=unlisted)
    link.start()
    try:
        assert link.wait_ready(10)
        board.publish("flickboard/b2/raw", b"other")
        board.publish("flickboard/b2/status", b"online", retain=True)
        board.publish("flickboard/b1/raw", b"mine")
        assert payloads.wait_for(lambda p: len(p) >= 1) == [("b1", b"mine")]
        # Boards on the broker but not on the list are flagged by their presence, never followed.
        assert sorted(unlisted.wait_for(lambda u: len(u) >= 2)) == [("b2", True), ("b3", True)]
        board.publish("flickboard/b2/status", b"offline", retain=True)
        assert unlisted.wait_for(lambda u: len(u) >= 3)[-1] == ("b2", False)
        time.sleep(0.2)
        assert payloads.items == [("b1", b"mine")], "b2 is not followed: not even subscribed"
        assert link.unlisted == 3 and link.payloads == 1
    finally:
        link.stop()
        board.close()
    with pytest.raises(ValueError, match="bad board id"):
        MqttLink(url(broker), "x", ["ok", "no/slash"], payloads)
    with pytest.raises(ValueError, match="mqtts needs a CA file"):
        MqttLink(f"mqtts://{broker.host}:{broker.port}", "x", None, payloads)


LINK_SCRIPT = """
import sys, time
from flickboard.board.links import MqttLink
link = MqttLink({url!r}, "bridge-killed", None, lambda board, payload: None, keepalive=30, bridge_id="killed")
link.start()
assert link.wait_ready(10)
print("ready", flush=True)
time.sleep(60)
"""


def test_mqtt_last_will_when_the_bridge_process_dies(broker: Broker) -> None:
    script = LINK_SCRIPT.format(root=str(ROOT), url=url(broker))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", proc.stderr
        own = bridge_topic("killed", STATUS)
        watcher = Peer(broker, [own])
        assert watcher.msgs.wait_for(lambda m: len(m) >= 1)[0] == (own, b"online", True)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert watcher.msgs.wait_for(lambda m: len(m) >= 2)[1][:2] == (own, b"offline")  # its own last will
        watcher.close()
        late = Peer(broker, [own, BRIDGE_STATUS])
        assert late.msgs.wait_for(lambda m: len(m) >= 2)
        assert (own, b"offline", True) in late.msgs.items
        # The deprecated shared status is not its will: another bridge's boards are not marked stale by this one.
        assert (BRIDGE_STATUS, b"online", True) in late.msgs.items
        late.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (proc.stdout, proc.stderr):
            if f is not None:
                f.close()


def test_mqtt_resubscribes_after_a_broker_restart(broker: Broker) -> None:
    payloads, states = Collector(), Collector()
    link = MqttLink(url(broker), "bridge-t3", None, payloads, on_state=states)
    link.start()
    try:
        assert link.wait_ready(10)
        board = Peer(broker)
        board.publish("flickboard/b1/raw", b"before")
        assert payloads.wait_for(lambda p: len(p) >= 1) == [("b1", b"before")]
        board.close()

        broker.restart()  # persistence off: the broker forgets the session, its subscriptions and retained msgs
        states.wait_for(lambda s: any(not x.connected for x in s), 10)
        wait_until(lambda: link.connects >= 2 and link.wait_ready(0), 20, "reconnect and resubscribe")
        board = Peer(broker)
        board.publish("flickboard/b1/raw", b"after")
        assert payloads.wait_for(lambda p: len(p) >= 2)[1] == ("b1", b"after")
        watcher = Peer(broker, [BRIDGE_STATUS])
        assert watcher.msgs.wait_for(lambda m: len(m) >= 1)[0] == (BRIDGE_STATUS, b"online", True)
        watcher.close()
        board.close()
    finally:
        link.stop()


def test_mqtt_with_the_real_simulated_board(broker: Broker, tmp_path: Path) -> None:
    """The real firmware's own MQTT client (simulated board, MicroPython unix port) to the link, and back."""
    payloads, boards = Collector(), Collector()
    link = MqttLink(url(broker), "bridge-sim", ["simq"], payloads, on_board=boards)
    link.start()
    assert link.wait_ready(10)
    scenario = {
        "profile": "pico_w",
        "board_id": "simq",
        "events": [{"at_ms": 300, "beam": "hole", "dur_us": 800}],
        "end_ms": None,
        "heartbeat_ms": 60000,
        "mqtt": {"host": broker.host, "port": broker.port},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    env = {**os.environ, "MICROPYPATH": f"{FIRMWARE}:.frozen"}
    proc = subprocess.Popen(
        [micropython_exe(), str(FIRMWARE / "simboard.py"), str(path), "--profiles", PROFILES, "--realtime"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )
    try:
        assert boards.wait_for(lambda b: ("simq", True) in b, 20)

        def msgs() -> list[dict[str, Any]]:
            return [json.loads(p) for b, p in list(payloads.items) if b == "simq"]

        wait_until(lambda: any(m["m"] == "pass" for m in msgs()), 20, "the pass event over MQTT")
        assert msgs()[0]["m"] == "hello" and msgs()[0]["b"] == "simq"
        link.send_command("simq", json.dumps({"c": "status", "id": 5}))
        wait_until(lambda: any(m["m"] == "reply" and m["id"] == 5 and m["ok"] for m in msgs()), 20, "status reply")
        proc.kill()  # the board's last will: offline
        assert boards.wait_for(lambda b: ("simq", False) in b, 60)
    finally:
        link.stop()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        assert proc.stdin is not None
        proc.stdin.close()


def test_serial_reader_survives_a_batch_that_fails_and_a_send_to_a_dead_port(tmp_path: Path) -> None:
    """The end of a batch sends the acks: if that fails (here the batch's own exit raises once), the line is
    said in the log and the reader goes on. A send to a port whose other end is gone returns False; it does not
    raise (pyserial's drain raises termios.error there, which is not an OSError)."""
    pty = Pty()
    lines = Collector()
    failures = {"left": 1}

    @contextlib.contextmanager
    def batch() -> Iterator[None]:
        yield
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("the acks could not be sent (injected)")

    link = SerialLink(pty.path, lines, batch=batch, backoff_initial=0.05)
    link.start()
    try:
        wait_until(lambda: link.connected, what="the port open")
        first = frame({"v": 1, "b": "fb-01", "bt": 1, "s": 1, "t": 5, "m": "hello"})
        second = frame({"v": 1, "b": "fb-01", "bt": 1, "s": 2, "t": 9, "m": "pass", "dur_us": 800, "n": "hole"})
        pty.write(first + "\n")
        lines.wait_for(lambda got: len(got) == 1)
        wait_until(lambda: failures["left"] == 0, what="the failing batch")
        pty.write(second + "\n")
        got = lines.wait_for(lambda got: len(got) == 2)
        assert [text for _, text in got] == [first, second], "the reader went on after the failed batch"
        os.close(pty.master)  # the board's end goes away: the cable is pulled
        pty.fds_open = False
        os.close(pty.slave)
        assert link.send(PING) is False
    finally:
        link.stop()


def test_mqtt_retained_and_oversized_input_is_never_taken(broker: Broker, caplog: pytest.LogCaptureFixture) -> None:
    """A retained entry or board event is the broker's copy of an old message: it comes again with every new
    subscription, so taken as input a retained `undo` would be one more undo at every bridge restart (issue 19, 3).
    A payload longer than the protocol allows is refused before it is copied or decoded. Both are counted and each
    kind is said once per topic; live messages still arrive."""
    board = Peer(broker)
    board.publish("flickboard/b1/input", b'{"line": "undo"}', retain=True)
    board.publish("flickboard/b1/raw", b'{"v":1,"b":"b1","bt":1,"s":1,"t":0,"m":"hello"}', retain=True)
    payloads, inputs = Collector(), Collector()
    for restart in range(3):  # every start of the bridge subscribes again and is handed the retained copies
        link = MqttLink(url(broker), f"bridge-retained-{restart}", None, payloads, on_input=inputs)
        link.start()
        try:
            assert link.wait_ready(10)
            wait_until(lambda lk=link: lk.refused.get("retained", 0) >= 2, 10, "the retained copies")
            board.publish("flickboard/b1/raw", b"x" * 4097)
            board.publish("flickboard/b1/input", b"y" * 2049)
            board.publish("flickboard/b1/raw", b"live")
            board.publish("flickboard/b1/input", b'{"line": "hit"}')
            payloads.wait_for(lambda p, n=restart: len(p) > n)
            inputs.wait_for(lambda p, n=restart: len(p) > n)
            assert link.refused == {"retained": 2, "oversized": 2}, link.refused
        finally:
            link.stop()
    assert payloads.items == [("b1", b"live")] * 3
    assert inputs.items == [("b1", b'{"line": "hit"}')] * 3
    said = [r.getMessage() for r in caplog.records if "not taken" in r.getMessage()]
    assert len(said) == 4 * 3 and all("flickboard/b1/" in s for s in said), said  # once per link, reason, topic
    board.close()


def test_a_100_mb_message_on_an_open_broker_is_dropped_unread_by_the_bridge(broker: Broker, tmp_path: Path) -> None:
    """On a broker without the documented size limit, one 100 MB message on a board's topic took the bridge to
    452 MB (issue 19, 4). The real bridge process now reads it in pieces and drops it: it grows by a few MB, counts
    it (`refused_oversized`), acknowledges it (the board's next event still arrives) and scores nothing from it."""
    from e2e import BridgeProc
    from fb import proto

    journals = tmp_path / "journals"
    args = ["--mqtt", broker.url, "--boards", "b1", "--journals", str(journals), "--players", "Ana", "Ben"]
    bridge = BridgeProc([*args, "--client-id", "big-message-bridge"], tmp_path)
    watcher = Peer(broker, ["flickboard/bridge/health", "flickboard/b1/cmd"])
    try:
        wait_until(lambda: "connected" in bridge.output(), 20, "the bridge on the broker")
        assert bridge.proc is not None
        pid = bridge.proc.pid

        def peak() -> int:
            status = Path(f"/proc/{pid}/status").read_text()
            return int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1]) * 1024

        before = peak()
        watcher.publish("flickboard/b1/raw", b"{" + b" " * (100 << 20) + b"}")
        enc = proto.Encoder("b1", 3, 0)
        enc.hello(0, "1", "pico_w", [], "power")
        watcher.publish("flickboard/b1/raw", enc.last_json.encode())  # after it: still heard, and acked
        watcher.msgs.wait_for(lambda m: any(t == "flickboard/b1/cmd" and b'"ack"' in p for t, p, _ in m), 30)
        grown = peak() - before
        assert grown < 30 << 20, f"the bridge grew by {grown >> 20} MB reading a 100 MB message"
        assert "104857602 bytes" in bridge.output() and "not taken" in bridge.output(), bridge.output()[-2000:]
    finally:
        watcher.close()
        bridge.stop()
    assert "Traceback" not in bridge.output()
