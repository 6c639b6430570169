"""The event as one JSON document: entrants, stages, rounds, matches with their results, standings, brackets'
placings and champions. A pure function of the fold; `dumps` writes it in the journal's canonical form (sorted
keys, no spaces, UTF-8), so folding the same journal twice gives the same bytes.

Slots not known yet and the empty side of a bye are null; a match's `state` says which ("waiting", "ready",
"done", "walkover" when an entrant is out, "bye", "void"). A tie-break shoot-out match has `"format": "shootout"`,
and a stage with shoot-out rounds lists them in `shootout_rounds` (both keys only when there are: the document of
an event without them is what it always was).
"""

from __future__ import annotations

from typing import Any

from flickboard.jsontext import canonical
from flickboard.tournament.event import EMPTY, PENDING, Event, Match, Outcome, Stage

FORMAT = "flickboard-tournament"
VERSION = 1


def _who(name: str) -> str | None:
    return None if name in (PENDING, EMPTY) else name


def _outcome(o: Outcome | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {
        "winner": o.winner,
        "walkover": o.walkover,
        "games": list(o.games) if o.games else None,
        "points": list(o.points) if o.points else None,
        "twenties": list(o.twenties) if o.twenties else None,
        "twenties_confirmed": o.confirmed,
        "shootout": list(o.shootout) if o.shootout else None,
        "source": o.source,
        "evidence": o.evidence,
        "reason": o.reason,
        "entry": o.entry,
        "replaces": list(o.replaced),
    }


def _match(m: Match) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": m.id,
        "label": m.label,
        "round": m.round,
        "pool": None if m.pool is None else m.pool + 1,
        "sides": [_who(s) for s in m.sides],
        "state": m.state,
        "board": m.board,
        "winner": _who(m.winner),
        "result": _outcome(m.outcome),
    }
    if m.format is not None:  # only a shoot-out match has its own format: an older event's document is unchanged
        doc["format"] = m.format
    return doc


def stage_doc(event: Event, st: Stage) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": st.name,
        "format": st.format,
        "options": st.options,
        "game": st.game,
        "rules": st.rules,
        "match": st.match,
        "tiebreaks": list(st.tiebreaks),
        "intake": st.intake,
        "entrants": list(st.entrants),
        "complete": st.complete,
        "closed_by": st.closed_by,
        "rounds": [
            {"round": r, "matches": ids, "byes": [e for rr, e in st.byes if rr == r]}
            for r, ids in enumerate(st.rounds, 1)
        ],
        "matches": [_match(m) for m in st.matches.values()],
        "shootouts": [{"entrants": list(s.entrants), "twenties": list(s.twenties)} for s in st.shootouts],
    }
    if st.shootout_rounds:  # (only when there are: an older event's document is unchanged)
        doc["shootout_rounds"] = [
            {"round": r.number, "entrants": list(r.entrants), "matches": list(r.matches)} for r in st.shootout_rounds
        ]
    if st.format == "pools":
        doc["pools"] = []
        for p, members in enumerate(st.pools):
            t = event.table(st, p)
            doc["pools"].append(
                {
                    "pool": p + 1,
                    "entrants": members,
                    "standings": [r.doc() for r in t.rows],
                    "unresolved": t.unresolved,
                }
            )
    elif st.format in ("round-robin", "swiss"):
        t = event.table(st)
        doc["standings"] = [r.doc() for r in t.rows]
        doc["unresolved"] = t.unresolved
    else:
        doc["champion"] = event.champion(st)
        doc["placings"] = [{"place": p, "entrant": e} for p, e in event.placings(st)]
    return doc


def document(event: Event) -> dict[str, Any]:
    """The whole event as a JSON-ready document."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": event.name,
        "entries": event.count,
        "entrants": [
            {
                "name": e.name,
                "players": list(e.players),
                "seed": e.seed,
                "club": e.club,
                "status": e.status,
                "reason": e.reason,
            }
            for e in event.entrants.values()
        ],
        "stages": [stage_doc(event, st) for st in event.stages.values()],
        "final_standings": [{"place": p, "entrant": e, "stage": s} for p, e, s in event.final_standings()],
        "undone": list(event.undone),
        "rejected": [{"entry": n, "reason": why} for n, why in event.rejected],
    }


def dumps(event: Event) -> bytes:
    """The document in canonical JSON, one line."""
    return (canonical(document(event)) + "\n").encode("utf-8")
