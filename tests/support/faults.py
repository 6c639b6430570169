"""Fault injection on the end-to-end rig (tests/support/e2e.py), all real parts: Mosquitto, the firmware under the
MicroPython unix port, real pseudo-terminals, the `flickboard bridge` process.

Every scenario plays a scripted game (the first shots of a random legal game, or a hand-made burst of sensor
events), injects one fault while the board's events are happening, and measures the outcome against two oracles
that do not depend on the bridge:

- the board's own record of what it sent: every protocol line the firmware wrote to its console, read straight
  from the board process (`Tap`), decoded. An event the board sent is *lost* when it is neither in the journal
  nor in a range the journal declares lost (a `gap`: shown, held for review); *duplicated* when the journal has
  it twice.
- the score of a fault-free run: `flickboard replay` of the same game's transcript.

`tests/system/test_faults.py` runs each scenario once, on a short game; `make soak` (tests/support/soak.py) runs them
all on many seeds and writes the table in docs/reliability.md."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import random
import select
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from e2e import SCORE_KEYS, SHOT_MS, BridgeProc, Relay, Watcher, bridge_args, game, proto, replay_summary
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.board.protocol import BoardMessage, ProtocolError, decode_line, decode_payload
from flickboard.core import journal
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.broker import Broker, free_port
from flickboard.sim.driver import Driver, DriverError
from flickboard.sim.simulator import spawn_board

EVENT_KINDS = ("shot_start", "pass", "baseline_rest", "stuck", "clear", "count")
DROP_S = 10.0  # fault 4: how long the board's network is down, on the board's own clock


# ---- the board's own record ------------------------------------------------------------------------------------


class Tap:
    """Every protocol line the board wrote to its console, decoded, in order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.msgs: list[BoardMessage] = []
        self.tail: collections.deque[bytes] = collections.deque(maxlen=120)  # the latest lines, for a failure
        self._buf = b""

    def feed(self, data: bytes) -> list[bytes]:
        """Bytes from the board; returns the complete lines (with their newline) they finished."""
        self._buf += data
        *lines, self._buf = self._buf.split(b"\n")
        out = []
        for ln in lines:
            out.append(ln + b"\n")
            self.tail.append(ln)
            try:
                msg = decode_line(ln)
            except ProtocolError:
                continue
            with self.lock:
                self.msgs.append(msg)
        return out

    def emitted(self) -> set[tuple[int, int]]:
        """(boot, seq) of every reliable message the board sent, however often it sent it."""
        with self.lock:
            return {(m.boot, m.seq) for m in self.msgs if m.reliable}

    def clock_us(self) -> int:
        """The board's clock at its latest line (µs since its boot)."""
        with self.lock:
            return self.msgs[-1].t_us if self.msgs else 0

    def last(self, kind: str) -> BoardMessage | None:
        with self.lock:
            return next((m for m in reversed(self.msgs) if m.kind == kind), None)

    def lines(self, kinds: tuple[str, ...]) -> list[BoardMessage]:
        with self.lock:
            return [m for m in self.msgs if m.kind in kinds]


def tap_stdout(proc: subprocess.Popen[bytes], tap: Tap) -> None:
    """Read a board's console (stdout) into `tap` until it closes (a board whose only link is MQTT)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()

    def run() -> None:
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            tap.feed(data)

    threading.Thread(target=run, daemon=True).start()


class TapRelay(Relay):
    """The USB cable of tests/support/e2e.py, which also records every line the board writes (`tap`), unplugged or not,
    and can deliver the board's lines in a shuffled order (`reorder`): lines are collected in windows of up to
    `window` lines (or 0.25 s) and each window is written out permuted."""

    def __init__(self, proc: subprocess.Popen[bytes], link: Path, tap: Tap, reorder: random.Random | None = None):
        self.tap = tap
        self.reorder = reorder
        self.window = 4
        self.windows_reordered = 0  # windows whose reliable lines went out in another order than they came
        super().__init__(proc, link)

    def _board_to_host(self) -> None:
        pending: list[bytes] = []
        since = 0.0
        while True:
            ready, _, _ = select.select([self.from_board], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.from_board, 4096)
                except OSError:
                    return
                if not data:
                    return
                lines = self.tap.feed(data)
                if self.reorder is None:
                    self._out(data)
                    continue
                if lines and not pending:
                    since = time.monotonic()
                pending += lines
            if pending and (len(pending) >= self.window or time.monotonic() - since >= 0.25):
                order = pending[:]
                self.reorder.shuffle(order)
                if len(order) > 1 and order == pending:
                    order.reverse()
                if _seqs(order) != _seqs(pending):
                    self.windows_reordered += 1
                for ln in order:
                    self._out(ln)
                pending = []


def _seqs(lines: list[bytes]) -> list[int]:
    out = []
    for ln in lines:
        try:
            msg = decode_line(ln)
        except ProtocolError:
            continue
        if msg.reliable:
            out.append(msg.seq)
    return out


# ---- the board's network ---------------------------------------------------------------------------------------


class Proxy:
    """The board's network path to the broker: a TCP relay on its own loopback port. `cut()` closes every
    connection through it and refuses new ones (the board sees its socket closed, then a broker it cannot reach);
    `restore()` opens the path again on the same port."""

    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.port = free_port()
        self.lock = threading.Lock()
        self.conns: list[socket.socket] = []
        self.up = False
        self.cuts = 0
        self.refused = 0  # connection attempts while cut
        self._listener: socket.socket | None = None
        self.restore()
        threading.Thread(target=self._accept, daemon=True).start()

    def restore(self) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(8)
        with self.lock:
            self._listener = s
            self.up = True

    def cut(self) -> None:
        with self.lock:
            self.up = False
            self.cuts += 1
            listener, self._listener = self._listener, None
            conns, self.conns = self.conns, []
        if listener is not None:
            listener.close()  # nobody listens: a new connection is refused
        for c in conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
            c.close()

    def close(self) -> None:
        self.cut()

    def _accept(self) -> None:
        while True:
            with self.lock:
                listener = self._listener
            if listener is None:
                time.sleep(0.01)
                continue
            try:
                ready, _, _ = select.select([listener], [], [], 0.05)
                if not ready:
                    continue
                a, _ = listener.accept()
            except (OSError, ValueError):
                continue
            try:
                b = socket.create_connection(self.target, timeout=2)
            except OSError:
                a.close()
                continue
            with self.lock:
                if not self.up:
                    a.close()
                    b.close()
                    continue
                self.conns += [a, b]
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peer = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 0.1)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        raise OSError("closed")
                    peer[s].sendall(data)
        except (OSError, ValueError):
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()


class RawWatcher:
    """A subscriber on the board's raw topic: the order in which the broker delivers the board's messages."""

    def __init__(self, port: int, board: str) -> None:
        self.lock = threading.Lock()
        self.arrivals: list[tuple[float, BoardMessage]] = []
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"raw-{os.getpid()}-{random.getrandbits(24)}")
        self.c.on_connect = lambda c, *_: c.subscribe(f"flickboard/{board}/raw", 1)
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            m = decode_payload(msg.payload, None)
        except ProtocolError:
            return
        with self.lock:
            self.arrivals.append((time.monotonic(), m))

    def reliable_after(self, t: float) -> list[int]:
        with self.lock:
            return [m.seq for at, m in self.arrivals if at >= t and m.reliable]

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


# ---- one scripted game under a fault ------------------------------------------------------------------------------


def prefix(transcript: str, lines: int | None) -> str:
    """The transcript's header and its first `lines` entries: a shorter game, scored the same way."""
    if lines is None:
        return transcript
    head, _, body = transcript.partition("\n\n")
    kept = [ln for ln in body.splitlines() if ln.strip()][:lines]
    return head + "\n\n" + "\n".join(kept) + "\n"


@dataclass
class Outcome:
    """What one run of a scenario gave, measured against the board's own record and a fault-free replay."""

    fault: str
    events: int = 0  # reliable messages the board sent (hello, sensor events, faults)
    journaled: int = 0  # board events in the journal
    lost: int = 0  # sent, yet neither journaled nor declared lost: silently lost
    duplicated: int = 0  # journaled more than once
    declared_lost: int = 0  # in a `gap` the journal holds (shown, held for review)
    score_ok: bool | None = None  # the score equals the fault-free replay (None: not applicable)
    needs_review: bool = False
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class FaultRig:
    """One board and one bridge process. `via`: "serial" (the board's console through a `TapRelay` pty), "mqtt"
    (the firmware's own MQTT client through a `Proxy`), or "both" (every event over both links at once)."""

    def __init__(
        self,
        broker: Broker,
        tmp: Path,
        transcript: str | None = None,
        scenario: dict[str, Any] | None = None,
        via: str = "serial",
        board: str = "sim1",
        reorder: random.Random | None = None,
        tune: Callable[[dict[str, Any]], None] | None = None,
        realtime: bool = False,
        bridge: bool = True,
    ) -> None:
        """`realtime`: the board's clock runs at the wall clock's pace (else as fast as it can); `bridge=False`: no
        bridge process of its own (the caller sets `bridge` to what runs one, with `output()` and `stop()`)."""
        self.broker = broker
        self.tmp = tmp
        self.board_id = board
        self.transcript = transcript
        self.control = Path(tempfile.mkdtemp(dir=tmp, prefix="control-"))
        self.journals = tmp / "journals"
        if scenario is None:
            assert transcript is not None
            scenario = from_transcript(parse_transcript(transcript), board_id=board, holds=True, shot_ms=SHOT_MS)
        scenario["control"] = str(self.control)
        scenario.setdefault("heartbeat_ms", 1000)
        if tune is not None:
            tune(scenario)
        self.scenario = scenario
        self.tap = Tap()
        self.relay: TapRelay | None = None
        self.proxy: Proxy | None = None
        link: list[str] = []
        if via in ("mqtt", "both"):
            self.proxy = Proxy(broker.port)
            scenario["mqtt"] = {"host": "127.0.0.1", "port": self.proxy.port}
            link = ["--mqtt", f"mqtt://127.0.0.1:{broker.port}"]
        if via in ("serial", "both"):
            self.board = spawn_board(
                scenario, realtime=realtime, pty=False, stdout=subprocess.PIPE, stdin=subprocess.PIPE
            )
            self.relay = TapRelay(self.board.proc, tmp / f"usb-flickboard-{board}", self.tap, reorder)
            link = ["--serial", str(self.relay.link), "--mqtt", f"mqtt://127.0.0.1:{broker.port}"]
        else:
            self.board = spawn_board(scenario, realtime=realtime, pty=False, stdout=subprocess.PIPE)
            tap_stdout(self.board.proc, self.tap)
        self.watcher = Watcher(broker.port, board)
        if bridge:
            self.bridge = BridgeProc([*link, "--boards", board, *bridge_args(self.journals)], tmp)
        self.started = time.monotonic()

    # -- running

    def play(self, after_go: Callable[[str], None] | None = None) -> None:
        assert self.transcript is not None
        try:
            Driver(
                self.transcript, self.control, self.watcher.enter, self.watcher.processed, timeout=90, after_go=after_go
            ).run()
        except DriverError as e:  # what each side said, to tell which one stopped
            board = b"\n".join(self.tap.tail).decode(errors="replace")[-4000:]
            bridge = self.bridge.output()[-4000:]
            try:
                said = self.broker.log.read_text(errors="replace").splitlines()
                broker = "\n".join(ln for ln in said if "Saving in-memory database" not in ln)[-4000:]
            except OSError as oe:
                broker = str(oe)
            raise AssertionError(
                f"{e}\n--- the bridge said:\n{bridge}\n--- the board said:\n{board}\n--- the broker's log:\n{broker}"
            ) from None

    def hold(self, name: str, timeout: float = 60) -> int:
        """Wait for the board to stand at hold `name`; its high-water seq."""
        at = self.control / f"{name}.at"
        deadline = time.monotonic() + timeout
        while not at.exists():
            assert time.monotonic() < deadline, f"the board did not reach {name}"
            time.sleep(0.01)
        return int(at.read_text().strip() or 0)

    def next_hold(self, name: str) -> str:
        names = [h["name"] for h in self.scenario["holds"]]
        return names[names.index(name) + 1]

    def go(self, name: str) -> None:
        (self.control / f"{name}.go").touch()

    def wait_processed(self, seq: int, timeout: float = 60) -> None:
        assert self.watcher.wait(lambda w: w.processed() >= seq, timeout), (
            f"the bridge has {self.watcher.processed()} of {seq}\n{self.bridge.output()[-3000:]}"
        )

    def wait_board_clock(self, us: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.tap.clock_us() < us:
            assert time.monotonic() < deadline, f"the board's clock did not reach {us} µs"
            time.sleep(0.005)

    # -- measuring

    def records(self) -> list[dict[str, Any]]:
        paths = sorted((self.journals / self.board_id).glob("*.jsonl"))
        assert len(paths) == 1, paths
        return journal.read(str(paths[0])).records

    def final(self) -> dict[str, Any]:
        """The retained scoreboard as a display that connects now gets it, once it covers the whole journal."""
        late = Watcher(self.broker.port, self.board_id)
        try:
            n = len(self.records())
            seen = late.wait(lambda w: w.scoreboard is not None and w.scoreboard["entries"] == n)
            got = None if late.scoreboard is None else late.scoreboard["entries"]
            assert seen, f"no retained scoreboard of {n} entries (got {got})\n{self.bridge.output()[-3000:]}"
            assert late.scoreboard is not None
            return late.scoreboard
        finally:
            late.close()

    def outcome(self, fault: str) -> Outcome:
        final = self.final()
        recs = [r for r in self.records() if r.get("src") == "board"]
        events = [(r["bt"], r["s"]) for r in recs if r["m"] != "gap"]
        declared: set[tuple[int, int]] = set()
        for r in recs:
            if r["m"] == "gap":
                declared |= {(r["bt"], s) for s in range(r["f"]["first"], r["f"]["last"] + 1)}
        emitted = self.tap.emitted()
        out = Outcome(fault)
        out.events = len(emitted)
        out.journaled = len(events)
        out.duplicated = len(events) - len(set(events))
        out.lost = len(emitted - set(events) - declared)
        out.declared_lost = len(declared - set(events))
        out.needs_review = bool(final["needs_review"])
        if events != sorted(events):
            out.notes.append("journal not in the board's order")
        if self.transcript is not None:
            out.score_ok = score_matches(final["score"], replay_summary(self.transcript, self.tmp))
        out.seconds = time.monotonic() - self.started
        self.final_doc = final
        return out

    def close(self) -> None:
        self.watcher.close()
        self.bridge.stop()
        if self.relay is not None:
            self.relay.unplug()
        if self.proxy is not None:
            self.proxy.close()
        self.board.stop()


def score_matches(score: dict[str, Any], expected: dict[str, Any]) -> bool:
    """The bridge's score equals the replay's: the match, and the game in progress (the sensors' twenties are
    provisional on the bridge, confirmed in the replay: the same count)."""
    if any(score[k] != expected[k] for k in SCORE_KEYS):
        return False
    a, b = dict(score.get("current") or {}), dict(expected.get("current") or {})
    a.pop("provisional_twenties", None)
    b.pop("provisional_twenties", None)
    return a == b and score["questions"] == expected["questions"]


# ---- the seven faults -------------------------------------------------------------------------------------------


def _shot_holds(transcript: str) -> int:
    """How many sensor shots (holds shot-1..shot-N) the game's board timeline has."""
    sc = from_transcript(parse_transcript(transcript), holds=True)
    return sum(1 for h in sc["holds"] if h["name"].startswith("shot-"))


def _at(transcript: str, fraction: float) -> str:
    return f"shot-{max(1, round(_shot_holds(transcript) * fraction))}"


def broker_restart(broker_factory: Callable[[], Broker], tmp: Path, seed: int, lines: int | None) -> Outcome:
    """1. Mosquitto restarted mid-game, with persistence on (retained scoreboards and the bridge's persistent
    session survive) while an MQTT board plays."""
    broker = broker_factory()
    transcript = prefix(game(seed), lines)
    rig = FaultRig(broker, tmp, transcript, via="mqtt")
    when = _at(transcript, 0.5)

    def fault(hold: str) -> None:
        if hold == when:
            broker.restart()

    try:
        rig.play(after_go=fault)
        out = rig.outcome("1. broker restarted mid-game")
        if "session resumed" not in rig.bridge.output():
            out.notes.append("the bridge's persistent session did not survive the restart")
    finally:
        rig.close()
        broker.close()
    return out


def bridge_kill9(broker: Broker, tmp: Path, seed: int, lines: int | None) -> Outcome:
    """2. The bridge killed with SIGKILL while a shot's events come in, and started again."""
    transcript = prefix(game(seed), lines)
    rig = FaultRig(broker, tmp, transcript, via="serial")
    when = _at(transcript, 0.5)

    def fault(hold: str) -> None:
        if hold == when:
            time.sleep(0.05)
            rig.bridge.kill9()
            rig.bridge.start()

    try:
        rig.play(after_go=fault)
        out = rig.outcome("2. bridge SIGKILLed mid-game")
    finally:
        rig.close()
    return out


def serial_unplug(broker: Broker, tmp: Path, seed: int, lines: int | None) -> Outcome:
    """3. The serial cable pulled while a shot's events are sent, plugged back in."""
    transcript = prefix(game(seed), lines)
    rig = FaultRig(broker, tmp, transcript, via="serial")
    when = _at(transcript, 0.5)

    def fault(hold: str) -> None:
        if hold == when:
            assert rig.relay is not None
            rig.relay.unplug()
            rig.hold(rig.next_hold(hold))  # the shot's events are sent into the void
            rig.relay.plug()

    try:
        rig.play(after_go=fault)
        out = rig.outcome("3. serial unplugged mid-burst")
        assert rig.relay is not None
        if rig.relay.dropped == 0:
            out.notes.append("the unplug lost no bytes")
    finally:
        rig.close()
    return out


def network_drop(broker: Broker, tmp: Path, seed: int, lines: int | None, realtime: bool = False) -> Outcome:
    """4. The board's network (its MQTT connection) cut for DROP_S of its own clock while a shot's events happen:
    the socket is closed under it and the broker refuses it, then the path comes back. `realtime`: the board's
    clock is the wall clock, so the 10 s are 10 s of wall time too."""
    transcript = prefix(game(seed), lines)
    when = _at(transcript, 0.5)
    k = int(when.split("-")[1])
    quiet_ms = int(DROP_S * 1000) * 4  # the shot after the drop waits this long: the board's backoff catches up

    def tune(sc: dict[str, Any]) -> None:
        nxt = next((h["at_ms"] for h in sc["holds"] if h["name"] in (f"shot-{k + 1}", "end")), None)
        assert nxt is not None
        for item in [*sc["events"], *sc["holds"]]:
            if item["at_ms"] >= nxt:
                item["at_ms"] += quiet_ms
        sc["end_ms"] += quiet_ms

    rig = FaultRig(broker, tmp, transcript, via="mqtt", tune=tune, realtime=realtime)
    raw = RawWatcher(broker.port, rig.board_id)
    cut_at = [0.0]
    restored = [0.0]
    window = [0, 0]  # the board's clock when its network went down and came back
    assert rig.proxy is not None
    proxy = rig.proxy

    def fault(hold: str) -> None:
        if hold != when:
            return
        window[0] = rig.tap.clock_us()
        cut_at[0] = time.monotonic()
        proxy.cut()
        rig.wait_board_clock(window[0] + int(DROP_S * 1e6))
        window[1] = rig.tap.clock_us()
        restored[0] = time.monotonic()
        proxy.restore()

    try:
        rig.play(after_go=fault)
        out = rig.outcome("4b. board network down 10 s, in real time" if realtime else "4. board network down 10 s")
        out.notes.append(f"down for {restored[0] - cut_at[0]:.1f} s of wall time")
        after = raw.reliable_after(restored[0])
        first_seen: list[int] = []
        for s in after:
            if s not in first_seen:
                first_seen.append(s)
        if first_seen != sorted(first_seen):
            out.notes.append(f"delivered out of order after the reconnect: {first_seen}")
        if not after:
            out.notes.append("nothing was resent after the reconnect")
        hb = rig.tap.last("heartbeat")
        if hb is None or hb.fields.get("rc", 0) < 1:
            out.notes.append("the board never reconnected")
        during = [m.seq for m in rig.tap.lines(EVENT_KINDS) if window[0] <= m.t_us <= window[1]]
        if not during:
            out.notes.append("no event happened while the network was down")
        out.notes.append(f"sent while down: {during}")
        out.notes.append(f"resent after reconnect: {first_seen}")
    finally:
        raw.close()
        rig.close()
    return out


def network_drop_realtime(broker: Broker, tmp: Path, seed: int, lines: int | None) -> Outcome:
    """4, with the board running at the wall clock's pace (the first 12 entries of the game: it takes real time)."""
    return network_drop(broker, tmp, seed, 12 if lines is None else min(lines, 12), realtime=True)


def duplicates(broker: Broker, tmp: Path, seed: int, lines: int | None) -> Outcome:
    """5. Every event over both links at once (USB serial and MQTT), and on top the lines already delivered sent
    again on both links."""
    transcript = prefix(game(seed), lines)
    rig = FaultRig(broker, tmp, transcript, via="both")
    when = _at(transcript, 0.5)
    pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"dup-{os.getpid()}")
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()

    def fault(hold: str) -> None:
        if hold != when:
            return
        assert rig.relay is not None
        for m in rig.tap.lines(("hello", *EVENT_KINDS)):
            rig.relay.inject((proto.frame(m.raw) + "\n").encode())
            pub.publish(f"flickboard/{rig.board_id}/raw", m.raw.encode(), qos=1)

    try:
        rig.play(after_go=fault)
        out = rig.outcome("5. duplicate delivery (both links)")
        health = rig.watcher.health or {}
        dups = health.get("protocol", {}).get("counters", {}).get("duplicates", 0)
        out.notes.append(f"duplicates dropped by the bridge: {dups}")
        if dups < out.events:
            out.notes.append("fewer duplicates arrived than events: both links did not both deliver")
    finally:
        pub.loop_stop()
        pub.disconnect()
        rig.close()
    return out


def reordered(broker: Broker, tmp: Path, seed: int, lines: int | None) -> Outcome:
    """6. The board's lines delivered out of order: every window of up to 4 lines on the cable shuffled."""
    transcript = prefix(game(seed), lines)
    rig = FaultRig(broker, tmp, transcript, via="serial", reorder=random.Random(seed))
    try:
        rig.play()
        out = rig.outcome("6. reordered delivery")
        assert rig.relay is not None
        out.notes.append(f"windows delivered out of order: {rig.relay.windows_reordered}")
        if rig.relay.windows_reordered == 0:
            out.notes.append("nothing was reordered")
    finally:
        rig.close()
    return out


BURST = 12  # fault 7: sensor events while the link is down, three times the outbox


def outbox_overflow(broker: Broker, tmp: Path, seed: int, lines: int | None) -> Outcome:
    """7. A burst of BURST ditch passes while the cable is out, on a board whose outbox holds 4 lines: the board
    drops the oldest, says so with a `gap`, and the bridge puts the game on hold for review."""
    rnd = random.Random(seed)
    events = [
        {"at_ms": 1000 + 40 * i, "beam": f"ditch{rnd.randint(1, 4)}", "dur_us": 3000 + rnd.randint(0, 2000)}
        for i in range(BURST)
    ]
    scenario = {
        "profile": "pico_w",
        "board_id": "sim1",
        "hall_start": [],
        "events": events,
        "holds": [{"at_ms": 500, "name": "burst"}, {"at_ms": 2500, "name": "after"}],
        "end_ms": 3000,
        "outbox_size": 4,
    }
    rig = FaultRig(broker, tmp, scenario=scenario, via="serial")
    assert rig.relay is not None
    try:
        rig.wait_processed(rig.hold("burst"))  # the hello is in
        with rig.watcher.cond:
            assert rig.watcher.scoreboard is not None
            before = rig.watcher.scoreboard["score"]
        rig.relay.unplug()
        rig.go("burst")
        high = rig.hold("after")
        rig.relay.plug()
        rig.wait_processed(high)
        rig.go("after")
        out = rig.outcome("7. outbox overflow")
        doc = rig.final_doc
        hb = rig.tap.last("heartbeat")
        dropped = int(hb.fields.get("drop", -1)) if hb is not None else -1
        if dropped != out.declared_lost:
            out.notes.append(f"the board dropped {dropped}, the journal declares {out.declared_lost} lost")
        texts = " ".join(i["text"] for i in doc["review"])
        if "lost events" not in texts:
            out.notes.append(f"no review item names the lost events: {texts!r}")
        out.score_ok = doc["score"]["totals"] == before["totals"] and doc["score"]["current"] == before["current"]
    finally:
        rig.close()
    return out


SCENARIOS: dict[str, Callable[..., Outcome]] = {
    "broker_restart": broker_restart,
    "bridge_kill9": bridge_kill9,
    "serial_unplug": serial_unplug,
    "network_drop": network_drop,
    "network_drop_realtime": network_drop_realtime,
    "duplicates": duplicates,
    "reordered": reordered,
    "outbox_overflow": outbox_overflow,
}


def as_json(o: Outcome) -> str:
    return json.dumps(o.__dict__)


# ---- bad input on the wire ---------------------------------------------------------------------------------------


class PtyBoard:
    """A board's USB port played by the test itself: whatever bytes it writes reach the bridge as if from a board;
    what the bridge sends back (acks, pings) is read and kept (`commands`), so the port never fills up."""

    def __init__(self, link: Path) -> None:
        import tty

        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(self.slave))
        self.link = link
        self.lock = threading.Lock()
        self.commands: list[bytes] = []
        self._stop = False
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        buf = b""
        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            buf += data
            *lines, buf = buf.split(b"\n")
            with self.lock:
                self.commands += lines

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]

    def opened(self, timeout: float = 20) -> bool:
        """Wait for the bridge's ping, sent once it has opened the port (bytes written before may be flushed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if any(b'"ping"' in c for c in self.commands):
                    return True
            time.sleep(0.01)
        return False

    def acked(self) -> int:
        """The highest seq the bridge has acked."""
        best = 0
        with self.lock:
            for ln in self.commands:
                if b'"ack"' in ln:
                    body = ln.split(b"|")[1]
                    best = max(best, int(json.loads(body)["s"]))
        return best

    def close(self) -> None:
        """Stop the reader, then close both ends, once. The order matters: a closed fd number is reused at once,
        and a reader still running would read the next file opened (a journal, read by the test right after)
        from under it: that once took the first 64 KB of a journal and failed the flood test."""
        self._stop = True
        self._reader.join(timeout=5)
        assert not self._reader.is_alive(), "the pty reader did not stop"
        fds, self.master, self.slave = [fd for fd in (self.master, self.slave) if fd >= 0], -1, -1
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def rss_kib(pid: int) -> int:
    """Resident memory of a process, KiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for process {pid}")
