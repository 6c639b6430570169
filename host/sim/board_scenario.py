"""A simulated-board timeline generated from a game: what the sensors would see if the transcript were played
on an instrumented board (firmware/fb/sim.py reads the result; docs/firmware.md).

Per shot, at `shot_ms` intervals: a puck rests on the baseline in the shooter's quadrant and leaves it
(`shot_start`); then, for each fact of the shot, the evidence the sensors give:
    in, in-rebound, in-by-rebound   a pass of the hole beam
    ditch, off, rebound             a pass of a ditch beam
    edge                            the hole beam stays broken past its stuck limit, then clears (A-4)
    base                            a puck comes to rest on the baseline (`baseline_rest`) and is later lifted
                                    off to the ditch by hand (which the strip also sees as a puck leaving)
Contact, calls, zones and the hand rule leave no sensor evidence: they stay manual inputs. Shots of a twenties
shoot-out are entered by hand too: they give no events (`is_sensor_shot`).

With `holds=True` the timeline also has hold points for a driver that plays the game in lock-step with the
board (firmware/fb/sim.py): `shot-K` 200 ms before the K-th sensor shot's first event (its puck being
placed), and `end` after the last shot. The board stops at each one until the driver lets it go on.

`evidence_exact` tells whether the sensor-made facts of a shot (hole passes, baseline rests) are exactly the
ones the bridge (host/core/evidence.py) would enter, so a game replayed on the board with the remaining facts
typed by hand gives the same transcript (`random_match(..., sensor_exact=True)`).
"""

from __future__ import annotations

import json
from typing import Any

from flickboard.board import files
from flickboard.core.session import Applied, Fold, fold_entries
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.engine import Shot, State
from flickboard.rules.transcript import Transcript

HOLE = {"in", "in-rebound", "in-by-rebound"}
DITCH = {"ditch", "off", "rebound"}
PROFILES = files.profiles_dir()
PUCK_SEGMENTS = 2  # neighbouring hall sensors a puck's magnet switches (hardware/README.md: one to three)


def segments_per_quadrant(profile: str) -> int:
    """Hall sensors per quadrant on a board profile's baseline strip."""
    doc = json.loads((PROFILES / f"{profile}.json").read_text())
    strip = next(s for s in doc["sensors"] if s["kind"] == "hall")
    return int(strip["count"]) // int(strip.get("quadrants", 4))


def puck_at(q: int, place: int, per_quadrant: int) -> int:
    """The first strip segment of a puck at `place` (0 .. per_quadrant - PUCK_SEGMENTS) of quadrant q's baseline;
    it covers PUCK_SEGMENTS from there (the scenario's `width`)."""
    return (q - 1) * per_quadrant + min(place, per_quadrant - PUCK_SEGMENTS)


def quadrant_of(seat: int, seats: int) -> int:
    """Quadrants 1-4 clockwise; singles players sit facing each other (1 and 3)."""
    return seat * 2 + 1 if seats == 2 else seat + 1


def is_sensor_shot(applied: Applied) -> bool:
    """A shot the board sees: a `Shot` line with a player due to shoot, outside a twenties shoot-out."""
    return isinstance(applied.line, Shot) and applied.before.shootout is None and applied.before.to_shoot() is not None


def sensor_shots(fold: Fold) -> list[Applied]:
    """The fold's entries in effect that are sensor shots, in order (shot K of the timeline is item K-1)."""
    return [a for a in fold.stack if is_sensor_shot(a)]


def evidence_exact(game: Pichenotte, before: State, shot: Shot) -> bool:
    """Whether the shot's hole and baseline facts are exactly, in order, what the bridge makes of the sensor
    events they cause, with no other facts entered yet (the rest are typed by hand after the shot):
    a hole pass is `in` while the shooting puck is on the board, else `SIDE:in` for the shooter's side if it
    has a puck on the board, else for the opponent's; a baseline rest is `base` of the shooting puck. The
    rebound twenties (`in-rebound`, `in-by-rebound`) and another puck's `SIDE:base` are never exact: the
    sensors cannot tell them from a plain twenty or attribute them."""
    seat = before.to_shoot()
    if seat is None or before.game is None:
        return False
    own = game.setup.side_of(seat)
    board = list(before.game.board)
    board[own] += 1  # the shot puts the shooting puck on the board
    shooter_on = True
    for fact in shot.facts:
        if fact.what in ("in-rebound", "in-by-rebound"):
            return False
        if fact.what == "base":
            if fact.side is not None or not shooter_on:
                return False
            shooter_on = False
            board[own] -= 1
        elif fact.what == "in":
            if shooter_on:
                if fact.side is not None:
                    return False
                shooter_on = False
                board[own] -= 1
            else:
                side = own if board[own] > 0 else 1 - own
                if fact.side != side:
                    return False
                board[side] -= 1
    return True


def from_transcript(
    t: Transcript, profile: str = "pico_w", board_id: str = "sim", shot_ms: int = 4000, holds: bool = False
) -> dict[str, Any]:
    """The timeline of the transcript's sensor shots, one every `shot_ms`; with `holds`, the hold points."""
    game = Pichenotte.from_header(t.header)
    fold = fold_entries(game, [(i, text, "manual") for i, (_, text) in enumerate(t.lines, 1)])
    seats = len(game.setup.players)
    per_q = segments_per_quadrant(profile)
    events: list[dict[str, Any]] = []
    stops: list[dict[str, Any]] = []
    shots = 0
    for applied in sensor_shots(fold):
        assert isinstance(applied.line, Shot)
        seat = applied.before.to_shoot()
        assert seat is not None
        q = quadrant_of(seat, seats)
        t0 = 1000 + shots * shot_ms
        shots += 1
        stops.append({"at_ms": t0 - 500, "name": f"shot-{shots}"})  # before the puck is placed
        puck = {"hall": "baseline", "seg": puck_at(q, per_q // 4, per_q), "width": PUCK_SEGMENTS}
        events.append({"at_ms": t0 - 300, **puck, "present": True})  # puck placed
        events.append({"at_ms": t0, **puck, "present": False})  # ...and flicked
        for k, fact in enumerate(applied.line.facts):
            at = t0 + 400 + 150 * k
            if fact.what in HOLE:
                events.append({"at_ms": at, "beam": "hole", "dur_us": 900})
            elif fact.what in DITCH:
                events.append({"at_ms": at, "beam": f"ditch{(q + 1) % 4 + 1}", "dur_us": 4000})
            elif fact.what == "edge":
                events.append({"at_ms": at, "beam": "hole", "dur_us": 2_000_000})
            elif fact.what == "base":
                rest = {"hall": "baseline", "seg": puck_at(q, 3 * per_q // 4, per_q), "width": PUCK_SEGMENTS}
                events.append({"at_ms": at, **rest, "present": True})
                # R-5A: removed to the ditch as soon as the shot is completed
                events.append({"at_ms": t0 + 800, **rest, "present": False})
    end = 1000 + shots * shot_ms
    scenario: dict[str, Any] = {"profile": profile, "board_id": board_id, "hall_start": [], "events": events}
    if holds:
        stops.append({"at_ms": end, "name": "end"})
        scenario["holds"] = stops
        end += 500
    scenario["end_ms"] = end
    return scenario
