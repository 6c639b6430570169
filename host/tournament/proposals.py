"""What the director proposes before an act is appended: a stage's seeding and a Swiss round's pairs. Pure
functions of the event; the act then carries what they gave, so the fold never computes them again.

- `seeding(event, stage, intake)`: the entrants of a new stage in seeding order. From the entrants: the seeded ones
  by their seed, then the others in a draw whose random generator is seeded by the event's name, the stage's name
  and the entrants' names: the same journal always draws the same order. From an earlier stage: its qualifiers in
  the order `Event.intake` ranks them.
- `next_round(event, stage)`: the pairs and the bye of a Swiss stage's next round (host/tournament/swiss.py), from
  its standings: every active entrant ranked by wins and the stage's tie-break chain.
"""

from __future__ import annotations

import random
from typing import Any

from host.tournament import swiss
from host.tournament.event import ActError, Event


def seeding(event: Event, stage: str, intake: dict[str, Any] | None = None) -> list[str]:
    """The entrants of a new stage, in seeding order."""
    names = event.intake(intake)
    if intake is not None:
        return names
    seeded = sorted((event.entrants[e] for e in names if event.entrants[e].seed is not None), key=lambda e: e.seed or 0)
    rest = sorted(e for e in names if event.entrants[e].seed is None)
    random.Random("\x1f".join([event.name, stage, *sorted(names)])).shuffle(rest)
    return [e.name for e in seeded] + rest


def next_round(event: Event, stage: str) -> tuple[list[tuple[str, str]], str | None]:
    """The pairs and the bye of the next round of a Swiss stage; ActError or swiss.PairingError says why not."""
    st = event.stages.get(stage)
    if st is None or st.format != "swiss":
        raise ActError(f"there is no Swiss stage named {stage[:60]}")
    rows = [r for r in event.table(st).rows if event.entrants[r.entrant].active]
    return swiss.pair(
        [r.entrant for r in rows],
        {r.entrant: r.wins for r in rows},
        event.met(st),
        {e for _, e in st.byes},
    )
