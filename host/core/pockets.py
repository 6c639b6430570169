"""Board events for the games other than Pichenotte: what a sensor event means in a Québec Pichenottes partie
(a pocket game: `react`) and in Flicochet (a table game scored by hand: `by_hand`). The Pichenotte mapping is
host/core/evidence.py; each game names the one it uses (its `sensors`, looked up in host/core/session.py SENSORS).

    Québec Pichenottes
    pass of beam `pocketN`     -> `pocket N @sensor`: a piece entered pocket N. Which piece it was is entered by
                                  hand on the shot line (`shot red@N`); the engine refuses a shot line that leaves
                                  a seen pocket unnamed, so no pocketed piece is forgotten
    stuck `pocketN`            -> review: a piece is stuck in the pocket's beam, or the beam is blocked
    other beams, hall strip    -> a note: a Québec board has no twenty hole, ditch or baseline
    Flicochet
    any sensor event           -> a note: Flicochet is scored by hand (seed 004 has no board to instrument)
    Both
    gap, count, fault, stuck   -> the same needs-review holds as for Pichenotte (host/core/evidence.board_health)
"""

from __future__ import annotations

import re
from typing import Any

from flickboard.core.evidence import Step, board_health
from flickboard.rules.quebec import Quebec
from flickboard.rules.quebec.engine import POCKETS

_POCKET = re.compile(r"pocket([0-9]{1,2})$")


def by_hand(title: str, kind: str, fields: dict[str, Any]) -> Step:
    """A board event in a game scored by hand (`title` names it): noted, and nothing else."""
    if kind == "hello":
        return board_health(kind, fields) or Step()
    sensor = str(fields.get("n", ""))
    return Step(note=f"{title} is scored by hand: the board's {kind} event ({sensor or '-'}) is not used")


def react(game: Quebec, state: Any, kind: str, fields: dict[str, Any]) -> Step:
    """A board event in a Québec Pichenottes partie."""
    sensor = str(fields.get("n", ""))
    m = _POCKET.match(sensor)
    if m is not None and int(m.group(1)) not in POCKETS:
        return Step(review=f"beam {sensor} names no pocket of the board (pockets 1 to 4): check the board profile")
    if kind == "pass" and m is not None:
        if state.over or state.manche is None:
            return Step(review=f"a piece entered pocket {m.group(1)} with no manche in play: enter what happened")
        return Step(line=f"pocket {m.group(1)} @sensor")
    if kind == "stuck" and m is not None:
        return Step(
            review=f"the beam of pocket {m.group(1)} stays blocked: take out the piece stuck there (or check the "
            "sensor), then type 'reviewed'"
        )
    health = board_health(kind, fields)
    if health is not None:
        return health
    return Step(note=f"a Québec Pichenottes board scores pockets only: {kind} ({sensor or '-'}) is not used")
