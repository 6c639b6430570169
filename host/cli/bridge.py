"""`flickboard bridge`: the bridge process, with its links, its terminal and its stop. (`enter` and `scoreboard`, the
commands that talk to a running bridge, are host/cli/remote.py.)"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from flickboard import lifecycle
from flickboard.board import protocol
from flickboard.board.bridge import Bridge, BridgeError, GameSetup
from flickboard.board.links import REFUSALS, LinkState, MqttLink, NoBoardFound, SerialLink
from flickboard.config import BridgeConfig, ConfigError, load_config
from flickboard.errors import UserError

log = logging.getLogger("flickboard.bridge")


def _config(args: Any) -> BridgeConfig:
    cli = {
        "mqtt": args.mqtt,
        "serial": args.serial or None,
        "boards": args.boards,
        "ca_file": args.ca_file,
        "password_file": args.password_file,
        "client_id": args.client_id,
        "bridge_id": getattr(args, "bridge_id", None),
        "keepalive": args.keepalive,
        "log_level": args.log_level,
        "journals": args.journals,
        "rules": args.rules,
        "players": args.players,
        "match": args.match,
    }
    try:
        return load_config(args.config, cli=cli)
    except ConfigError as e:
        raise UserError(str(e)) from None


class Running:
    """A bridge with its links started (`start_bridge`); `stop()` closes the links, then the journals."""

    def __init__(self, bridge: Bridge, serial: list[SerialLink], mqtt_link: MqttLink | None, links: list[str]) -> None:
        self.bridge = bridge
        self.serial = serial
        self.mqtt = mqtt_link
        self.links = links

    def stop(self) -> None:
        for link in self.serial:
            link.stop()
        if self.mqtt is not None:
            self.bridge.tick()
            self.mqtt.stop()
        self.bridge.close()


def start_bridge(cfg: BridgeConfig) -> Running:
    """The bridge of `cfg` with its serial and MQTT links started. Raises UserError (one line)."""
    if cfg.mqtt is None and not cfg.serial:
        raise UserError("give a board link: --serial PORT (or auto) and/or --mqtt URL (see: flickboard bridge -h)")
    holder: dict[str, MqttLink] = {}

    def publish(topic: str, payload: bytes, qos: int, retain: bool) -> None:
        link = holder.get("mqtt")
        if link is not None:
            link.publish(topic, payload, qos=qos, retain=retain)

    try:
        bridge = Bridge(
            cfg.journals, GameSetup(cfg.rules, cfg.players, cfg.match), cfg.boards, publish, bridge_id=cfg.bridge_id
        )
    except BridgeError as e:
        raise UserError(str(e)) from None

    def on_state(s: LinkState) -> None:
        bridge.link_state(s.link, s.name, s.connected, s.reason)

    mqtt_link: MqttLink | None = None
    if cfg.mqtt is not None:
        try:
            mqtt_link = MqttLink(
                cfg.mqtt,
                cfg.client_id,
                cfg.boards,
                bridge.mqtt_payload,
                ca_file=cfg.ca_file,
                on_state=on_state,
                on_board=bridge.board_state,
                on_input=bridge.mqtt_input,
                on_unlisted=bridge.unlisted_board,
                keepalive=cfg.keepalive,
                batch=bridge.batch,
                bridge_id=cfg.bridge_id,
            )
        except (ValueError, OSError) as e:
            bridge.close()
            raise UserError(f"MQTT {cfg.mqtt}: {e}") from None
        m = holder["mqtt"] = mqtt_link
        bridge.mqtt_send = m.send_command
        inbox = m.inbox
        assert inbox is not None
        bridge.mqtt_backlog = inbox.depth
        bridge.link_counters[f"mqtt {cfg.mqtt}"] = lambda: {
            "payloads": m.payloads,
            "ignored": m.ignored,
            "unlisted": m.unlisted,
            **{f"refused_{reason}": m.refused.get(reason, 0) for reason in REFUSALS},
            "batches": inbox.batches,
            "dropped": inbox.dropped,
        }
        m.start()
    serial_links: list[SerialLink] = []
    for port in cfg.serial:
        link = _serial_link(bridge, port, on_state)
        try:
            link.start()
        except NoBoardFound as e:
            if cfg.mqtt is None and len(cfg.serial) == 1:
                bridge.close()
                raise UserError(str(e)) from None
            log.warning("serial auto: %s; going on without it", e)
            continue
        serial_links.append(link)
        bridge.link_counters[f"serial {port}"] = _serial_counters(link)
    links = [f"serial {p}" for p in cfg.serial] + ([f"mqtt {cfg.mqtt}"] if cfg.mqtt else [])
    return Running(bridge, serial_links, mqtt_link, links)


def run_bridge(args: Any, out: TextIO) -> int:
    cfg = _config(args)
    logging.basicConfig(
        level=cfg.log_level, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr, force=True
    )
    stop = threading.Event()
    with lifecycle.on_stop_signals(stop.set):  # SIGINT, SIGTERM, SIGHUP: the links close, the status says offline
        running = start_bridge(cfg)
        try:
            bridge = running.bridge
            ident = f"; bridge id {cfg.bridge_id}" if cfg.mqtt is not None else ""
            print(
                f"flickboard bridge: {', '.join(running.links)}; journals in {cfg.journals}/{ident}",
                file=out,
                flush=True,
            )
            for b, bg in sorted(bridge.games.items()):
                print(f"  board {b}: {bg.session.journal.path}", file=out, flush=True)
                for n, why in bg.session.fold.review:  # a hold found at start: said before anything else
                    print(f"    on hold since entry {n}: {why}", file=out, flush=True)
            print("  type an entry for the board's game, or 'board ID' to switch boards; Ctrl-C stops", file=out,
                  flush=True)  # fmt: skip
            if args.stdin or sys.stdin.isatty():
                threading.Thread(target=_read_entries, args=(bridge, out, stop), daemon=True).start()
            while not stop.wait(0.25):
                bridge.tick()
        finally:
            running.stop()
    print("flickboard bridge: stopped", file=out, flush=True)
    return 0


def _serial_link(bridge: Bridge, port: str, on_state: Callable[[LinkState], None]) -> SerialLink:
    box: list[SerialLink] = []

    def on_line(device: str, line: str) -> None:
        bridge.serial_line(device, line, box[0].send)

    link = SerialLink(
        port,
        on_line,
        on_state=on_state,
        ping_line=lambda: protocol.encode_command({"c": "ping"}),
        batch=bridge.batch,
    )
    box.append(link)
    return link


def _serial_counters(link: SerialLink) -> Callable[[], dict[str, int]]:
    return lambda: {
        "lines": link.lines,
        "noise": link.noise,
        "oversize": link.oversize,
        "opens": link.opens,
        "failures": link.failures,
    }


def _read_entries(bridge: Bridge, out: TextIO, stop: threading.Event) -> None:
    """Manual entries typed at the bridge's terminal, for one board at a time."""
    board = next(iter(sorted(bridge.games)), None)
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        words = line.split()
        if words[0] == "board" and len(words) == 2:
            board = words[1]
            print(f"entries now go to board {board}", file=out, flush=True)
            continue
        if board is None:
            print("no board yet: type 'board ID' first", file=out, flush=True)
            continue
        try:
            res = bridge.mqtt_input(board, json.dumps({"line": line}).encode())
        except BridgeError as e:
            print(f"refused: {e}", file=out, flush=True)
            continue
        mark = f"[{res['entry']}] " if res.get("entry") else ""
        print(f"{mark}{'' if res['ok'] else 'refused: '}{res['message']}", file=out, flush=True)
    stop.set()
