"""AWTRIX 3 (a 32x8 pixel clock, e.g. the Ulanzi TC001): a custom app per board with the score, and a
notification on a twenty, a game's end and the match's end (in Québec Pichenottes and Flicochet: a manche's or
a round's end and the game's end; their progress bar is the leader's way to the target).

The app is `<prefix>/custom/flickboard_<board>`: the match points of each side in its colour, a progress bar
of the game's shots in the colour of the side to shoot, and a `lifetime`, so the clock drops the app when
updates stop. It is sent on every scoreboard and again every third of the lifetime while the bridge that keeps
the board is online (its own status); when that bridge (or this process) stops, the score is stale and the app goes
away on its own. The app
is never deleted with an empty payload: AWTRIX deletes every app whose name starts with the one given, so
deleting `flickboard_t1` would delete `flickboard_t10` too.

With buttons on (`--awtrix-buttons`, one board), holding the clock's right button for a second confirms the
provisional twenty and holding the left one undoes, through the same checked path as a person's entry
(commands.py). AWTRIX 3 publishes each button's state on `<prefix>/stats/buttonLeft`, `…/buttonSelect` and
`…/buttonRight`: `1` when pressed, `0` when released. A short press is the clock's own (it moves through the apps)
and enters nothing; the middle button is left alone (a short press dismisses a notification, a long one opens the
clock's menu).

Formats: the AWTRIX 3 MQTT API, "Custom Apps and Notifications" (https://blueforcer.github.io/awtrix3/#/api).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from flickboard.displays.integrations.commands import Commands
from flickboard.displays.integrations.common import (
    SIDE_COLORS,
    TEAM_COLORS,
    WHITE,
    Boards,
    Integration,
    Publish,
    hex_color,
)

log = logging.getLogger("flickboard.integrations")

DEFAULT_LIFETIME = 120  # seconds
BUTTONS = {"buttonLeft": "undo", "buttonRight": "confirm"}  # the clock's button -> the command a long press sends
HOLD = 1.0  # seconds a button must be held for its command: a short press is the clock's own navigation


def app_name(board: str) -> str:
    return f"flickboard_{board}"


class Awtrix(Integration):
    name = "awtrix"

    def __init__(
        self,
        publish: Publish,
        boards: Boards,
        prefix: str,
        lifetime: int = DEFAULT_LIFETIME,
        clock: Callable[[], float] = time.monotonic,
        *,
        commands: Commands | None = None,
        board: str | None = None,
        hold: float = HOLD,
    ) -> None:
        super().__init__(publish, boards)
        self.prefix = prefix
        self.lifetime = lifetime
        self.clock = clock
        self.sent_at: dict[str, float] = {}  # board -> when its app was last sent
        self.paused: set[str] = set()  # boards whose bridge says offline: the score is stale, the app not kept alive
        self.commands = commands  # buttons on: where a long press goes
        self.board = board  # ... for this board (the one the clock's buttons score)
        self.hold = hold
        self.pressed: dict[str, float] = {}  # button -> when it went down

    def describe(self) -> str:
        buttons = f"; buttons for {self.board}" if self.commands is not None and self.board else ""
        return f"AWTRIX 3 ({self.prefix}{buttons})"

    def button_topic(self, button: str) -> str:
        return f"{self.prefix}/stats/{button}"

    def topics(self) -> list[str]:
        if self.commands is None or self.board is None:
            return []
        return [self.button_topic(b) for b in BUTTONS]

    def on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        button = topic.rsplit("/", 1)[-1]
        command = BUTTONS.get(button)
        if command is None or self.commands is None or self.board is None:
            return
        state = payload.strip()
        if retained:  # a kept state is no press: it would come back at every restart
            return
        if state == b"1":
            self.pressed[button] = self.clock()
        elif state == b"0":
            down = self.pressed.pop(button, None)
            if down is None:
                return  # released without a press we saw (we connected while it was held)
            held = self.clock() - down
            if held >= self.hold:
                self.commands.press("awtrix", self.board, command)
            else:
                log.info("awtrix: %s pressed %.1f s: hold it %g s to %s", button, held, self.hold, command)
        else:
            self.commands.ignore("awtrix", self.board, command, f"unknown button state {state[:16]!r} on {button}")

    def on_removed(self, board: str) -> None:
        self.sent_at.pop(board, None)  # no longer kept alive: the clock drops the app when its lifetime runs out
        self.paused.discard(board)

    def app_topic(self, board: str) -> str:
        return f"{self.prefix}/custom/{app_name(board)}"

    @property
    def notify_topic(self) -> str:
        return f"{self.prefix}/notify"

    # ---------------------------------------------------------------- the app

    def app(self, doc: dict[str, Any]) -> dict[str, Any]:
        score = doc["score"]
        sides = [s["name"] for s in score["sides"]]
        colors = TEAM_COLORS if score.get("game") == "flicochet" else SIDE_COLORS
        a, b = (f"{p:g}" for p in score["totals"])
        text: list[dict[str, Any]] = []
        if score["over"]:
            winner = score.get("winner")
            color = colors[sides.index(winner)] if winner in sides else WHITE
            text.append({"t": f"{winner} wins " if winner else "over ", "c": hex_color(color, False)})
        text += [
            {"t": a, "c": hex_color(colors[0], False)},
            {"t": ":", "c": hex_color(WHITE, False)},
            {"t": b, "c": hex_color(colors[1], False)},
        ]
        app: dict[str, Any] = {
            "text": text,
            "color": hex_color(WHITE),
            "lifetime": self.lifetime,
            "lifetimeMode": 0,
        }
        current = score.get("current")
        if isinstance(current, dict) and current.get("shots_per_game"):
            shooter = current.get("to_shoot")
            shooter_side = next((i for i, s in enumerate(score["sides"]) if shooter in s["players"]), None)
            app["progress"] = round(100 * current.get("shots_played", 0) / current["shots_per_game"])
            app["progressC"] = hex_color(WHITE if shooter_side is None else SIDE_COLORS[shooter_side])
            app["progressBC"] = "#202020"
        elif isinstance(current, dict) and isinstance(score.get("target"), int) and score["target"] > 0:
            # Québec Pichenottes, Flicochet: the leader's way to the target, in the colour of the side to play
            player = current.get("to_play") or current.get("to_flick")
            side = next((i for i, s in enumerate(score["sides"]) if player in s["players"]), None)
            app["progress"] = min(100, round(100 * max(score["totals"]) / score["target"]))
            app["progressC"] = hex_color(WHITE if side is None else colors[side])
            app["progressBC"] = "#202020"
        return app

    def send_app(self, board: str) -> None:
        doc = self.boards.docs.get(board)
        if doc is not None:
            self.send(self.app_topic(board), self.app(doc))
            self.sent_at[board] = self.clock()

    def on_scoreboard(self, board: str, doc: dict[str, Any]) -> None:
        self.send_app(board)

    def on_bridge(self, board: str, online: bool | None) -> None:
        if online is False:
            self.paused.add(board)
        elif board in self.paused:  # back after an offline spell: show the score again at once
            self.paused.discard(board)
            self.send_app(board)

    def tick(self, now: float) -> None:
        for board, at in list(self.sent_at.items()):
            if board not in self.paused and now - at >= self.lifetime / 3:  # stale: the lifetime takes the app away
                self.send_app(board)

    # ---------------------------------------------------------------- notifications

    def notification(self, board: str, m: dict[str, Any]) -> dict[str, Any] | None:
        t = m["type"]
        if t == "twenty" or (t == "shootout-shot" and m.get("in") is True):
            side = m.get("side")
            return {"text": f"TWENTY {side}", "color": hex_color(self.boards.side_color(board, side)), "duration": 5}
        if t == "game-over" and "totals" in m:  # Québec Pichenottes, Flicochet: the game is the whole match
            winner = m.get("winner")
            tot = m.get("totals")
            pts = tot if isinstance(tot, list) and len(tot) == 2 else ["?", "?"]
            return {
                "text": f"{winner} WINS {pts[0]}-{pts[1]}",
                "color": hex_color(self.boards.side_color(board, winner)),
                "rainbow": True,
                "duration": 10,
            }
        if t in ("manche-over", "round-over"):
            sides = self.boards.sides(board) or ["?", "?"]
            points = m.get("points")
            pts = points if isinstance(points, list) and len(points) == 2 else ["?", "?"]
            what = "MANCHE" if t == "manche-over" else "ROUND"
            number = m.get("manche") if t == "manche-over" else m.get("round")
            winner = self.boards.round_winner(board, points)
            return {
                "text": f"{what} {number}: {sides[0]} {pts[0]}-{pts[1]} {sides[1]}",
                "color": hex_color(self.boards.side_color(board, winner)),
                "duration": 6,
            }
        if t == "game-over":
            sides = self.boards.sides(board) or ["?", "?"]
            points = m.get("points")
            pts = points if isinstance(points, list) and len(points) == 2 else ["?", "?"]
            winner = m.get("winner")
            text = f"GAME {m.get('game')}: {sides[0]} {pts[0]}-{pts[1]} {sides[1]}"
            text += f", {winner} wins" if winner else ", tied"
            return {"text": text, "color": hex_color(self.boards.side_color(board, winner)), "duration": 8}
        if t == "match-over":
            winner = m.get("winner")
            return {
                "text": f"{winner} WINS THE MATCH",
                "color": hex_color(self.boards.side_color(board, winner)),
                "rainbow": True,
                "duration": 10,
            }
        return None

    def on_moment(self, board: str, moment: dict[str, Any]) -> None:
        note = self.notification(board, moment)
        if note is not None:
            self.send(self.notify_topic, note)
