"""`flickboard demo`: the whole chain on one machine, with nothing to plug in.

A private Mosquitto on a free loopback port; a board behind a pseudo-terminal, as a USB board; the bridge following
it and publishing to the broker; a terminal scoreboard that reads the broker; and a scorer (host/sim/driver.py) entering
what the sensors cannot see through the bridge's input topic. One full game of Pichenotte is played; the final
scoreboard must equal `flickboard replay` of the same game, or the demo fails. Without Mosquitto it runs serial-only
and says so.

The board is the simulated board (the real firmware under the MicroPython unix port, on simulated pins), or with
`--rp2` the emulated Pico (the real MicroPython rp2 firmware in rp2040js, host/sim/rp2): the same timeline drives its
GPIOs, and the same scorer plays the people's part. `--shots N` plays only the game's first N sensor shots (the
emulated Pico runs slower than real time), checked against a replay of the same part.
"""

from __future__ import annotations

import datetime
import json
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from flickboard import lifecycle
from flickboard.cli.bridge import Running, start_bridge
from flickboard.cli.remote import OneShotClient
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.core.scoreboard import final_line, moment_text, text_view
from flickboard.core.session import fold_entries
from flickboard.errors import UserError
from flickboard.mqtt import DISPLAY_KINDS, board_topics, publish_entry
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.broker import Broker, BrokerError, start_mosquitto
from flickboard.sim.driver import Driver, DriverError, FileHolds, Holds, first_shots
from flickboard.sim.random_game import random_match
from flickboard.sim.simulator import SimBoard, SimError, micropython, spawn_board

BOARD = "demo"
PLAYERS = ["Ana", "Ben"]
RULES = "tournament-2019"
DEFAULT_SEED = 7
RP2_SHOT_MS = 3000  # the emulated Pico's time between shots (> the baseline rest window, 2.5 s): it runs slowly


class DemoError(Exception):
    """One line for the user."""


class Display:
    """The terminal scoreboard: a line per scoring moment (or, live on a terminal, the whole board redrawn)."""

    def __init__(self, out: TextIO, redraw: bool) -> None:
        self.out = out
        self.redraw = redraw
        self.doc: dict[str, Any] | None = None
        self.lock = threading.Lock()
        self.updates = 0

    def message(self, topic: str, payload: bytes) -> None:
        kind = topic.rsplit("/", 1)[-1]
        try:
            doc = json.loads(payload)
        except ValueError:
            return
        with self.lock:
            if kind == "scoreboard":
                self.doc = doc
                self.updates += 1
                if self.redraw:
                    self.out.write("\x1b[H\x1b[2J" + text_view(doc) + "\n")
                    self.out.flush()
            elif kind == "events" and not self.redraw:
                line = moment_text(doc)
                if line and doc.get("type") != "shot":
                    line = "  " + line
                elif line and self.doc is not None:
                    line = f"{line:<28} {_standing(self.doc)}"
                if line:
                    print(line, file=self.out, flush=True)

    def route(self, topic: str, payload: bytes) -> bool:
        """For the MQTT client: scoreboards and moments are the display's; results are left for the scorer."""
        if topic.endswith("/result"):
            return False
        self.message(topic, payload)
        return True

    def processed(self) -> int:
        with self.lock:
            link = (self.doc or {}).get("board_link") or {}
            return int(link.get("processed") or 0)


def _standing(doc: dict[str, Any]) -> str:
    """`twenties Ana 2 · Ben 1`, from a scoreboard document."""
    score = doc.get("score") or {}
    cur = score.get("current") or {}
    names = [s["name"] for s in score.get("sides", [])]
    tw = cur.get("twenties") or [0, 0]
    return "twenties " + " · ".join(f"{n} {t}" for n, t in zip(names, tw, strict=False))


def expected_summary(transcript: str) -> dict[str, Any]:
    t = parse_transcript(transcript)
    game = Pichenotte.from_header(t.header)
    fold = fold_entries(game, [(i, text, "manual") for i, (_, text) in enumerate(t.lines, 1)])
    return game.summary(fold.state)


def same_score(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same match: finished games, totals, winner, and the game in progress (a part of a game, `--shots`)."""
    keys = ("games", "totals", "games_won", "over", "winner", "match_shootout", "current")
    return all(a.get(k) == b.get(k) for k in keys)


class SimGame:
    """The simulated board (firmware/ under the MicroPython unix port) behind a pty; it stops at its own holds."""

    def __init__(self, scenario: dict[str, Any], live: bool) -> None:
        self.control = Path(tempfile.mkdtemp(prefix="flickboard-demo-"))
        scenario["control"] = str(self.control)
        try:
            self.board: SimBoard = spawn_board(scenario, realtime=live, pty=True)
        except BaseException:
            shutil.rmtree(self.control, ignore_errors=True)
            raise
        self.port = self.board.port or ""
        self.holds: Holds = FileHolds(self.control)
        self.what = "simulated board (real firmware, MicroPython)"

    def start(self, processed: Callable[[], int]) -> None:
        """The board plays its timeline from its start; the holds keep it in step."""

    def stop(self) -> None:
        self.board.stop()
        shutil.rmtree(self.control, ignore_errors=True)


class PicoGame:
    """The emulated Pico (host/sim/rp2): this checkout's firmware flashed onto the real MicroPython rp2 port in
    rp2040js, its USB port a pty; the rig holds the chip between shots."""

    def __init__(self, scenario: dict[str, Any], say: Callable[[str], None]) -> None:
        from flickboard.sim.rp2 import Pico
        from flickboard.sim.rp2.game import RigGame, board_image

        image = board_image(BOARD, say=say)
        self.board = Pico(flash=image, pace="hold")
        try:
            self.game = RigGame(self.board, scenario)
            self.board.go("realtime")  # it boots and comes up on USB before the bridge opens the port
            self.port = self.board.wait_usb()
        except BaseException:
            self.board.close()
            raise
        self.holds: Holds = self.game
        self.what = "emulated Pico (the real MicroPython rp2 firmware in rp2040js)"

    def start(self, processed: Callable[[], int]) -> None:
        """Once the bridge has the board's hello: the timeline is scheduled from there."""
        self.game.start(processed)

    def stop(self) -> None:
        self.board.close()


def run(args: Any, out: TextIO) -> int:
    with lifecycle.interrupting():  # SIGTERM, SIGHUP: the same clean stop as Ctrl-C; the broker and board go with us
        lifecycle.follow_parent()
        return _run(args, out)


def _run(args: Any, out: TextIO) -> int:
    from flickboard.sim.rp2 import RigError

    rp2 = bool(getattr(args, "rp2", False))
    shots: int | None = getattr(args, "shots", None)
    if shots is not None and shots < 1:
        raise DemoError("--shots takes a number of shots, 1 or more")
    if not rp2:
        try:
            micropython()  # said before anything starts, when it is not installed
        except SimError as e:
            raise DemoError(str(e)) from None
    seed = DEFAULT_SEED if args.seed is None else args.seed
    transcript = random_match(seed, RULES, PLAYERS, sensor_exact=True)
    if shots is not None:
        transcript = first_shots(transcript, shots)
    expected = expected_summary(transcript)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    journals = Path(args.journals) / f"demo-{stamp}-{uuid.uuid4().hex[:4]}"
    broker: Broker | None = None
    board: SimGame | PicoGame | None = None
    running: Running | None = None
    client: OneShotClient | None = None
    started = time.monotonic()
    try:
        if not args.serial_only:
            try:
                broker = start_mosquitto()
                print(f"demo: private Mosquitto on {broker.url}", file=out, flush=True)
            except BrokerError as e:
                print(f"demo: {e}", file=out)
                print("demo: running serial-only over a pty; the scoreboard is printed by the bridge", file=out)
        if rp2:
            scenario = from_transcript(parse_transcript(transcript), board_id=BOARD, holds=True, shot_ms=RP2_SHOT_MS)
            board = PicoGame(scenario, say=lambda s: print(f"demo: {s}", file=out, flush=True))
        else:
            scenario = from_transcript(parse_transcript(transcript), board_id=BOARD, holds=True)
            board = SimGame(scenario, live=args.live)
        print(f"demo: {board.what}, board '{BOARD}', on {board.port}", file=out, flush=True)
        cfg = BridgeConfig(
            mqtt=parse_mqtt_url(broker.url) if broker else None,
            serial=(board.port,),
            boards=(BOARD,),
            client_id=f"flickboard-demo-{uuid.uuid4().hex[:6]}",
            journals=str(journals),
            rules=RULES,
            players=tuple(PLAYERS),
            match="games:1",
        )
        running = start_bridge(cfg)
        bridge = running.bridge
        display = Display(out, redraw=args.live and out.isatty())
        enter: Callable[[str], dict[str, Any]]
        if broker is not None:
            assert running.mqtt is not None
            if not running.mqtt.wait_ready(10):
                raise DemoError("the bridge could not subscribe at the private broker within 10 s")
            topics = board_topics([BOARD], DISPLAY_KINDS)
            client = OneShotClient(parse_mqtt_url(broker.url), None, topics, route=display.route)
            client.__enter__()
            enter = _mqtt_enter(client)
            processed = display.processed
        else:
            bridge.publish = lambda topic, payload, _q, _r: display.message(topic, payload)

            def enter(line: str) -> dict[str, Any]:
                return bridge.mqtt_input(BOARD, json.dumps({"line": line}).encode())

            def processed() -> int:
                return int(bridge.link_view(BOARD).get("processed") or 0)

        part = "" if shots is None else f", its first {shots} sensor shots"
        print(f"demo: bridge journaling to {journals}/{BOARD}/; playing seed {seed}{part}: Ana v Ben", file=out)
        board.start(processed)
        driver = Driver(transcript, board.holds, enter, processed, timeout=120.0)
        driver.run()
        final = _final_doc(bridge, display, broker is not None)
    except (DriverError, BrokerError, SimError, UserError, RigError) as e:
        raise DemoError(str(e)) from None
    finally:
        if client is not None:
            client.__exit__(None, None, None)
        if running is not None:
            running.stop()
        if board is not None:
            board.stop()
        if broker is not None:
            broker.close()
    print("", file=out)
    print(text_view(final), file=out)
    took = time.monotonic() - started
    sensor = final["sensor_events"]
    result = final_line(final) if final["score"]["over"] else f"{final_line(final)}, {_standing(final)}"
    print(f"\nFinal: {result}  ({sensor} sensor events, {driver.entries} manual entries, {took:.0f} s)", file=out)
    journal = final["journal"]
    if not same_score(final["score"], expected):
        print("demo: the bridge's score differs from a replay of the same game:", file=out)
        print(f"  bridge totals {final['score']['totals']}, replay totals {expected['totals']}", file=out)
        print(f"  bridge {final['score'].get('current')}\n  replay {expected.get('current')}", file=out)
        return 1
    print(f"The same as `flickboard replay` of the game. Journal: {journal}", file=out)
    return 0


def _mqtt_enter(client: OneShotClient) -> Callable[[str], dict[str, Any]]:
    def enter(line: str) -> dict[str, Any]:
        rid = uuid.uuid4().hex[:12]
        publish_entry(client.client, BOARD, json.dumps({"id": rid, "line": line}), 10)

        def mine(_t: str, p: bytes) -> bool:
            try:
                return bool(json.loads(p).get("id") == rid)
            except (ValueError, AttributeError):
                return False

        got = client.wait_for(mine, 10)
        if got is None:
            return {"ok": False, "message": f"no answer from the bridge to {line!r} within 10 s"}
        res: dict[str, Any] = json.loads(got[1])
        return res

    return enter


def _final_doc(bridge: Any, display: Display, via_mqtt: bool) -> dict[str, Any]:
    """The final scoreboard: as the display received it over MQTT (retained), else from the bridge."""
    if via_mqtt:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with display.lock:
                doc: dict[str, Any] | None = display.doc
            if doc is not None and doc["entries"] == bridge.scoreboard(BOARD)["entries"]:
                return doc
            time.sleep(0.02)
        raise DemoError("the final scoreboard did not arrive over MQTT within 10 s")
    final: dict[str, Any] = bridge.scoreboard(BOARD)
    return final
