"""`flickboard enter` and `flickboard scoreboard`: a manual entry sent to a running bridge over MQTT and its answer,
and a terminal view of a board's retained scoreboard. Both are short-lived clients of the broker: they load the MQTT
client and the scoreboard's text, not the bridge, its links or the web server (tests/system/test_startup.py)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TextIO

import paho.mqtt.client as mqtt

from flickboard.config import ConfigError, MqttUrl, broker_of
from flickboard.errors import UserError
from flickboard.mqtt import (
    MAX_DOCUMENT,
    RESULT,
    SCOREBOARD,
    BridgeWatch,
    PayloadGuard,
    Subscriber,
    board_topic,
    publish_entry,
)
from flickboard.mqtt import client as mqtt_client

# ---------------------------------------------------------------- a one-shot MQTT client


class OneShotClient:
    """A short-lived MQTT client for `enter` and `scoreboard`: connect, subscribe, wait for messages. It follows
    every bridge's status too (`bridges`, a BridgeWatch), so it can tell whether the bridge keeping a board is online;
    those messages are kept as well (a change wakes `wait_for`)."""

    def __init__(
        self,
        url: MqttUrl,
        ca_file: str | None,
        topics: list[str],
        route: Callable[[str, bytes], bool] | None = None,
    ) -> None:
        """`route(topic, payload)`: sees every message first; True means it took it (it is not kept)."""
        self.bridges = BridgeWatch()
        # the bridges' statuses first: the broker sends the retained messages in this order, so `scoreboard --once`
        # knows whether the scoreboard's bridge is online when the scoreboard comes
        topics = [*BridgeWatch.TOPICS, *topics]
        self.messages: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.error: str | None = None
        self.refused = 0  # messages too long to read
        self.answered = threading.Event()  # the broker answered: refused, or every subscription answered
        try:
            c = mqtt_client(url, f"flickboard-cli-{uuid.uuid4().hex[:8]}", ca_file, entries=True)
        except ValueError as e:
            raise UserError(f"--ca-file: {e}") from None

        def refused(rc: Any) -> None:
            self.error = f"the broker refused the connection: {rc}"
            self.answered.set()

        def subscribed(refused_topics: list[str]) -> None:
            # the bridges' statuses only add to what is shown: a broker that refuses them refuses nothing asked for
            refused_topics = [t for t in refused_topics if t not in BridgeWatch.TOPICS]
            if refused_topics:
                self.error = f"the broker refused the subscription to {', '.join(refused_topics)} (docs/security.md)"
            self.answered.set()

        def on_message(_c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
            dropped = guard.take()
            if dropped is not None:
                self.refused += 1
                if self.refused == 1:  # said once; the count is in `refused`
                    print(
                        f"flickboard: a message of {dropped} bytes on {msg.topic[:100]} was not read "
                        f"(longer than {MAX_DOCUMENT})",
                        file=sys.stderr,
                    )
                return
            self.bridges.feed(msg.topic, bytes(msg.payload))
            if route is not None and route(msg.topic, bytes(msg.payload)):
                return
            with self.cond:
                self.messages.append((msg.topic, bytes(msg.payload)))
                self.cond.notify_all()

        c.on_message = on_message
        guard = PayloadGuard(c, MAX_DOCUMENT)  # a 100 MB message is dropped unread
        self.subscriber = Subscriber(c, lambda: topics, refused=refused, subscribed=subscribed)
        self.client = c
        self.url = url

    def __enter__(self) -> OneShotClient:
        try:
            self.client.connect(self.url.host, self.url.port, keepalive=30)
        except OSError as e:
            raise UserError(f"cannot reach the broker {self.url}: {e.strerror or e}") from None
        self.client.loop_start()
        if not self.answered.wait(10) or self.error:
            self.client.loop_stop()
            raise UserError(self.error or f"the broker {self.url} did not answer within 10 s")
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()

    def wait_for(self, pred: Callable[[str, bytes], bool], timeout: float) -> tuple[str, bytes] | None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.messages:
                    if pred(*m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)


def _broker(args: Any) -> tuple[MqttUrl, str | None]:
    try:
        return broker_of(args)
    except ConfigError as e:
        raise UserError(str(e)) from None


def run_enter(args: Any, out: TextIO) -> int:
    """Send one manual entry (or a new match) to a running bridge and print its answer. Without an entry: type
    entries one by one (on a terminal, with Tab completing the board's game's words), or read them from a pipe."""
    url, ca_file = _broker(args)
    if args.new:
        if not args.players:
            raise UserError("--new needs --players (and optionally --rules, --match or --target)")
        req: dict[str, Any] = {"new": {"players": args.players}}
        if args.rules:
            req["new"]["rules"] = args.rules
        if args.match:
            req["new"]["match"] = args.match
        if args.target:
            req["new"]["target"] = args.target
    else:
        line = " ".join(args.line).strip()
        if not line:
            return _enter_lines(args, url, ca_file, out)
        req = {"line": line}
    with OneShotClient(url, ca_file, [board_topic(args.board, RESULT), board_topic(args.board, SCOREBOARD)]) as c:
        res = _send(c, args.board, req, args.timeout)
    print(_answer(res), file=out)
    return 0 if res["ok"] else 1


def _send(c: OneShotClient, board: str, req: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Publish `req` with a fresh id on the board's input topic and wait for its answer. UserError (one line) when
    none comes, saying so when the bridge that keeps the board is offline."""
    rid = uuid.uuid4().hex[:12]
    # The broker sends the retained bridge statuses and the board's scoreboard right after the subscription's answer:
    # a moment for them, so that an entry for a board whose bridge is offline is not sent at all.
    c.wait_for(lambda t, _p: t == board_topic(board, SCOREBOARD), RETAINED_WAIT_S)
    owner = _owner(c, board)
    if owner is not None and owner[1] is False:  # it would only expire on the broker: say so now
        raise UserError(
            f"the bridge {owner[0]!r} that keeps board {board} is offline: nothing was sent; enter it again when it "
            "is back"
        )
    publish_entry(c.client, board, json.dumps({"id": rid, **req}), timeout)

    def mine(t: str, payload: bytes) -> bool:
        if t != board_topic(board, RESULT):
            return False
        with contextlib.suppress(ValueError):
            doc = json.loads(payload)
            return isinstance(doc, dict) and doc.get("id") == rid
        return False

    got = c.wait_for(mine, timeout)
    if got is None:
        owner = _owner(c, board)
        if owner is not None and owner[1] is False:
            raise UserError(
                f"no answer within {timeout:g} s: the bridge {owner[0]!r} that keeps board {board} is offline; "
                "nothing was entered, and it will not be entered later: enter it again when the bridge is back"
            )
        raise UserError(
            f"no answer from a bridge for board {board} within {timeout:g} s: nothing was entered, and it will not "
            "be entered later; is the bridge running?"
        )
    res: dict[str, Any] = json.loads(got[1])
    return res


def _answer(res: dict[str, Any]) -> str:
    mark = f"[{res['entry']}] " if res.get("entry") else ""
    return f"{mark}{'' if res['ok'] else 'refused: '}{res['message']}"


RETAINED_WAIT_S = 0.5  # at most, for a board with no retained scoreboard (a new one)
ENTER_WORDS = ("quit", "exit", "help")  # `flickboard enter`'s own words, as a line's first word
BRIDGE_WORDS = ("declare", "this", "reviewed", "dismiss")  # the words that steer the sensor side (docs/mqtt.md)


def _game_of(doc: Any) -> Any:
    """The game a board's scoreboard is about (its kind, rules and players), for its words and its help; None when
    the document does not say it in a way this version reads."""
    from flickboard.rules import games

    score = doc.get("score") if isinstance(doc, dict) else None
    if not isinstance(score, dict) or not isinstance(score.get("players"), list):
        return None
    try:
        return games.create(score.get("game"), [str(p) for p in score["players"]], rules=score.get("rules"))
    except (ValueError, TypeError):
        return None


def _enter_lines(args: Any, url: MqttUrl, ca_file: str | None, out: TextIO) -> int:
    """Entries typed one per line and sent to the bridge, each answered before the next. On a terminal the prompt is
    prompt_toolkit's (host/cli/play.py): Tab completes the words of the board's game, as its retained scoreboard
    says it, and its player and side names; Up recalls a line. From a pipe (or without prompt_toolkit), plain lines.
    Exits 0 when every entry was taken, 1 when one was refused or not answered."""
    from flickboard.cli.play import completion_words, prompt_session
    from flickboard.rules import games

    tty = sys.stdin.isatty()
    scoreboard = board_topic(args.board, SCOREBOARD)
    words: list[str] = list(BRIDGE_WORDS)
    failed = sent = 0
    with OneShotClient(url, ca_file, [board_topic(args.board, RESULT), scoreboard]) as c:
        c.wait_for(lambda t, _p: t == scoreboard, 2 if tty else 0.5)  # the retained scoreboard: the game's words
        reader: Any = None
        if tty:
            with contextlib.suppress(ImportError):
                reader = prompt_session(words, ENTER_WORDS)
            owner = _owner(c, args.board)
            live = "" if owner is None or owner[1] is not False else f" (its bridge {owner[0]} is offline)"
            print(f"entries for board {args.board}{live}: one per line; Tab completes, Ctrl-D leaves", file=out)
        game = None
        while True:
            with c.cond:
                docs = [p for t, p in c.messages if t == scoreboard]
            if docs:
                with contextlib.suppress(ValueError):
                    game = _game_of(json.loads(docs[-1])) or game
            if game is not None:
                words[:] = sorted({*completion_words(game), *BRIDGE_WORDS})
            try:
                line = reader.prompt(f"{args.board}> ") if reader is not None else input()
            except EOFError:
                break
            except KeyboardInterrupt:
                if reader is None:
                    raise
                continue
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line in ENTER_WORDS[:2]:
                break
            if line == "help":
                print(games.help_for(game) if game is not None else "no scoreboard for this board yet", file=out)
                continue
            sent += 1
            try:
                res = _send(c, args.board, {"line": line}, args.timeout)
            except UserError as e:
                print(f"not entered: {e}", file=out, flush=True)
                failed += 1
                continue
            failed += not res["ok"]
            print(_answer(res), file=out, flush=True)
    if not sent and not tty:
        raise UserError("give the entry to send, e.g. flickboard enter --board sim1 hit (or one per line on stdin)")
    return 1 if failed else 0


def _owner(c: OneShotClient, board: str) -> tuple[str | None, bool | None] | None:
    """(the id of the bridge that keeps the board's retained scoreboard, whether it is online); None without one."""
    topic = board_topic(board, SCOREBOARD)
    with c.cond:
        docs = [p for t, p in c.messages if t == topic]
    if not docs:
        return None
    try:
        doc = json.loads(docs[-1])
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    owner = doc.get("bridge")
    return (owner if isinstance(owner, str) else None), c.bridges.owner_online(doc)


def _newer_than(c: OneShotClient, seen: int) -> Callable[[str, bytes], bool]:
    return lambda _t, _p: len(c.messages) > seen


def run_scoreboard(args: Any, out: TextIO) -> int:
    """Show the board's retained scoreboard, then (unless --once) every update until Ctrl-C. On a terminal it is
    the big view (host/displays/terminal.py), redrawn in place; `--plain` (or a pipe) prints the plain text view."""
    from flickboard import i18n
    from flickboard.core.render import final_line, text_view
    from flickboard.displays.terminal import big_view, link_lines

    url, ca_file = _broker(args)
    topic = board_topic(args.board, SCOREBOARD)
    seen = 0
    color = args.color == "always" or (
        args.color == "auto" and out.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    )
    big = not args.plain and (out.isatty() or args.color == "always" or args.big)
    with OneShotClient(url, ca_file, [topic]) as c:
        while True:
            got = c.wait_for(_newer_than(c, seen), args.timeout if args.once else 3600)
            if got is None:
                if args.once:
                    raise UserError(f"no scoreboard for board {args.board} on {url} (is a bridge following it?)")
                continue
            with c.cond:
                boards = [p for t, p in c.messages if t == topic]
                seen = len(c.messages)
            if not boards:
                continue
            try:
                doc = json.loads(boards[-1])
                bridge_online = c.bridges.owner_online(doc)
                lang = i18n.choose(getattr(args, "lang", None), doc["score"].get("game"))
                if big:
                    width = shutil.get_terminal_size((100, 30)).columns
                    view = big_view(doc, width=width, color=color, bridge_online=bridge_online, lang=lang)
                else:
                    lines = [text_view(doc, lang), *(f"  {line}" for line in link_lines(doc, bridge_online))]
                    view = "\n".join(lines)
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                print("(a scoreboard message this version cannot read)", file=out, flush=True)
                if args.once:
                    return 1
                continue
            if out.isatty() and not args.once:
                out.write("\x1b[H\x1b[2J")
            print(view, file=out, flush=True)
            if args.once:
                print(final_line(doc), file=out)
                return 0
