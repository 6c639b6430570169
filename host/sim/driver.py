"""Plays the people's part of a game against a bridge, in lock-step with a board that stops at hold points (for
`flickboard demo`, `flickboard demo --rp2` and the end-to-end tests).

The board plays the sensor part of a transcript (host/sim/board_scenario.py, with hold points before every sensor shot
and one at the end). The driver plays the rest, as a scorer with a phone would: before a shot it says `declare` when
the player called a twenty; after the shot's sensor events have reached the bridge it enters what the sensors cannot
see (hit or miss, zone or short, whose puck went into the ditch, a puck on edge); and it enters every other line
(the opponent's choice, the zones, shoot-out shots) as it comes. Then it lets the board go on to the next shot.

    driver = Driver(transcript_text, holds, enter=..., processed=...)
    driver.run()          # raises DriverError when the bridge refuses an entry or the board stops answering

`holds` is how the board stops: a control directory of the simulated board (firmware/fb/sim.py: it writes
NAME.at with its high-water mark and waits for NAME.go; `FileHolds`, also made from a plain path), or the emulated
Pico, which the rig itself holds between shots (host/sim/rp2/game.py `RigGame`). Either way the driver asks for the
board's high-water mark at the hold and waits until the bridge has journaled that far, so the manual facts of a
shot always come after its sensor events, as they would at a table. One driver for both boards means the real rp2
port is checked against exactly the same people's part as the simulated board.

`enter(line)` sends one manual entry and returns the bridge's answer (`{"ok", "entry", "message"}`);
`processed()` is the board's last event the bridge has journaled (the scoreboard's `board_link.processed`).
`first_shots(transcript, n)` is the part of a game up to its n-th sensor shot (a quick game for slow boards).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from flickboard.core.session import fold_entries
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.engine import Facts, Shot
from flickboard.rules.transcript import format_header, parse_transcript
from flickboard.sim.board_scenario import is_sensor_shot

SENSED = frozenset({"in", "in-rebound", "in-by-rebound"})  # hole passes: the board gives them


class DriverError(Exception):
    """One line: what went wrong in the lock-step game."""


@dataclass(frozen=True)
class Item:
    """One step of the people's part: a sensor shot (`declare`?, then `after` once its events are in) or a line."""

    shot: int = 0  # 1-based sensor shot number, 0 for a plain manual line
    declare: bool = False
    after: str | None = None  # what the scorer enters once the shot's sensor events are in
    line: str | None = None  # a manual line (shot == 0)


def plan(transcript: str) -> tuple[Pichenotte, list[Item]]:
    """The transcript split into sensor shots and manual lines, in order."""
    t = parse_transcript(transcript)
    game = Pichenotte.from_header(t.header)
    fold = fold_entries(game, [(i, text, "manual") for i, (_, text) in enumerate(t.lines, 1)])
    if fold.rejected:
        n, text, why = fold.rejected[0]
        raise DriverError(f"the game's transcript has an illegal line {n} ({text!r}): {why}")
    items: list[Item] = []
    k = 0
    for a in fold.stack:
        if isinstance(a.line, Shot) and is_sensor_shot(a):
            k += 1
            items.append(Item(shot=k, declare=a.line.call, after=_after(game, a.line)))
        else:
            items.append(Item(line=game.format(a.line)))
    return game, items


def _after(game: Pichenotte, shot: Shot) -> str | None:
    """The part of a whole shot the sensors cannot see, as a line of facts for the open shot."""
    facts = tuple(f for f in shot.facts if f.what not in SENSED and not (f.what == "base" and f.side is None))
    if not facts and shot.contact is None and shot.zone is None:
        return None
    return game.format(Facts(facts=facts, contact=shot.contact, zone=shot.zone))


class Holds(Protocol):
    """A board that stops at the named hold points of its timeline (shot-1, shot-2, ..., end)."""

    def reach(self, name: str, timeout: float) -> int:
        """Wait until the board stands at hold `name`; return its high-water mark there (the last reliable seq it
        assigned). Raises DriverError (or the board's own error) after `timeout` seconds."""
        ...

    def release(self, name: str) -> None:
        """Let the board go on from hold `name`."""
        ...


class FileHolds:
    """The simulated board's holds: its control directory (firmware/fb/sim.py, `flickboard sim --control DIR`)."""

    def __init__(self, control: str | Path) -> None:
        self.control = Path(control)

    def reach(self, name: str, timeout: float) -> int:
        at = self.control / f"{name}.at"
        deadline = time.monotonic() + timeout
        while not at.exists():
            if time.monotonic() > deadline:
                raise DriverError(f"the simulated board did not reach {name} within {timeout:g} s")
            time.sleep(0.005)
        return int(at.read_text().strip() or 0)

    def release(self, name: str) -> None:
        (self.control / f"{name}.go").touch()


def first_shots(transcript: str, n: int) -> str:
    """The transcript cut just before its (n+1)-th sensor shot: the game's first n sensor shots and the lines between
    them. The whole transcript when it has no more than n."""
    t = parse_transcript(transcript)
    game = Pichenotte.from_header(t.header)
    fold = fold_entries(game, [(i, text, "manual") for i, (_, text) in enumerate(t.lines, 1)])
    shots = [a.n for a in fold.stack if is_sensor_shot(a)]
    if len(shots) <= n:
        return transcript
    keep = [text for _, text in t.lines[: shots[n] - 1]]
    header = {**t.header, "Event": [*t.header.get("Event", []), f"its first {n} sensor shots"]}
    return format_header(header) + "\n\n" + "\n".join(keep) + "\n"


class Driver:
    def __init__(
        self,
        transcript: str,
        control: str | Path | Holds,
        enter: Callable[[str], dict[str, Any]],
        processed: Callable[[], int],
        say: Callable[[str], None] = lambda _s: None,
        timeout: float = 60.0,
        after_go: Callable[[str], None] | None = None,
    ) -> None:
        """`control`: the board's holds (a path is the simulated board's control directory). `after_go(name)`:
        called right after the board is let go on from hold `name` (tests inject faults)."""
        self.game, self.items = plan(transcript)
        self.holds: Holds = FileHolds(control) if isinstance(control, str | Path) else control
        self.enter = enter
        self.processed = processed
        self.say = say
        self.timeout = timeout
        self.after_go = after_go
        self.entries = 0

    def run(self) -> None:
        pending: str | None = None  # the open sensor shot's manual part, entered once its events are in
        open_shot = False
        next_hold = 1
        for item in self.items:
            if item.shot:
                self._sync(f"shot-{item.shot}")
                if pending:
                    self._enter(pending)
                pending = None
                if item.declare:
                    self._enter("declare")
                self._go(f"shot-{item.shot}")
                next_hold = item.shot + 1
                pending, open_shot = item.after, True
            else:
                assert item.line is not None
                if open_shot:  # the sensor shot is over before anything else happens
                    self._sync(self._hold_name(next_hold))
                    if pending:
                        self._enter(pending)
                    self._enter("end")
                    pending, open_shot = None, False
                self._enter(item.line)
        self._sync("end")
        if pending:
            self._enter(pending)
        if open_shot:
            self._enter("end")
        self._go("end")

    def _hold_name(self, k: int) -> str:
        return f"shot-{k}" if any(i.shot == k for i in self.items) else "end"

    def _enter(self, line: str) -> None:
        res = self.enter(line)
        if not res.get("ok"):
            raise DriverError(f"the bridge refused {line!r}: {res.get('message')}")
        self.entries += 1
        self.say(f"entered: {line}")

    def _sync(self, name: str) -> None:
        """Wait until the board stands at hold `name` and the bridge has journaled all it sent before."""
        deadline = time.monotonic() + self.timeout
        seq = self.holds.reach(name, self.timeout)
        while self.processed() < seq:
            if time.monotonic() > deadline:
                raise DriverError(
                    f"the bridge has the board's events up to {self.processed()}, not {seq}, after {self.timeout:g} s"
                )
            time.sleep(0.005)

    def _go(self, name: str) -> None:
        self.holds.release(name)
        if self.after_go is not None:
            self.after_go(name)
