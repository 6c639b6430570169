"""A simulated-board timeline generated from a game: what the sensors would see if the transcript were played
on an instrumented board (firmware/fb/sim.py reads the result; docs/firmware.md).

Per shot, at `shot_ms` intervals: a puck rests on the baseline in the shooter's quadrant and leaves it
(`shot_start`); then, for each fact of the shot, the evidence the sensors give:
    in, in-rebound, in-by-rebound   a pass of the hole beam
    ditch, off, rebound             a pass of a ditch beam
    edge                            the hole beam stays broken past its stuck limit, then clears (A-4)
    base                            a puck comes to rest on the baseline (`baseline_rest`) and is later lifted
                                    off to the ditch by hand (which the strip also sees as a puck leaving)
Contact, calls, zones and the hand rule leave no sensor evidence: they stay manual inputs.
"""

from __future__ import annotations

from typing import Any

from rules.pichenotte import Pichenotte
from rules.pichenotte.engine import Shot
from rules.transcript import Transcript

from .session import fold_entries

HOLE = {"in", "in-rebound", "in-by-rebound"}
DITCH = {"ditch", "off", "rebound"}
SEGMENTS_PER_QUADRANT = 4  # the shipped profiles: 16 hall sensors, 4 per quadrant


def quadrant_of(seat: int, seats: int) -> int:
    """Quadrants 1-4 clockwise; singles players sit facing each other (1 and 3)."""
    return seat * 2 + 1 if seats == 2 else seat + 1


def from_transcript(
    t: Transcript, profile: str = "pico_w", board_id: str = "sim", shot_ms: int = 4000
) -> dict[str, Any]:
    game = Pichenotte.from_header(t.header)
    fold = fold_entries(game, [(i, text, "manual") for i, (_, text) in enumerate(t.lines, 1)])
    seats = len(game.setup.players)
    events: list[dict[str, Any]] = []
    shots = 0
    for applied in fold.stack:
        if not isinstance(applied.line, Shot):
            continue
        seat = applied.before.to_shoot()
        if seat is None:
            continue
        q = quadrant_of(seat, seats)
        seg = (q - 1) * SEGMENTS_PER_QUADRANT + 1
        t0 = 1000 + shots * shot_ms
        shots += 1
        events.append({"at_ms": t0 - 300, "hall": "baseline", "seg": seg, "present": True})  # puck placed
        events.append({"at_ms": t0, "hall": "baseline", "seg": seg, "present": False})  # ...and flicked
        for k, fact in enumerate(applied.line.facts):
            at = t0 + 400 + 150 * k
            if fact.what in HOLE:
                events.append({"at_ms": at, "beam": "hole", "dur_us": 900})
            elif fact.what in DITCH:
                events.append({"at_ms": at, "beam": f"ditch{(q + 1) % 4 + 1}", "dur_us": 4000})
            elif fact.what == "edge":
                events.append({"at_ms": at, "beam": "hole", "dur_us": 2_000_000})
            elif fact.what == "base":
                rest = (q - 1) * SEGMENTS_PER_QUADRANT + 3
                events.append({"at_ms": at, "hall": "baseline", "seg": rest, "present": True})
                # R-5A: removed to the ditch as soon as the shot is completed
                events.append({"at_ms": t0 + 800, "hall": "baseline", "seg": rest, "present": False})
    end = 1000 + shots * shot_ms
    return {"profile": profile, "board_id": board_id, "hall_start": [], "events": events, "end_ms": end}
