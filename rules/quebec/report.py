"""Projections of a Québec Pichenottes state: the stable summary document (`flickboard-summary`, version 1,
the same envelope as Pichenotte's; docs/rules-coverage.md, Québec part, lists the fields). Pure functions of the
state."""

from __future__ import annotations

from typing import Any

from .engine import COLOURS, Manche, State
from .options import Options

SUMMARY_VERSION = 1


def _compteuses(state: State, m: Manche) -> list[dict[str, Any]]:
    sides = state.setup.sides
    return [
        {"value": c.value, "where": c.where, "side": sides[c.side] if c.side is not None else None}
        for c in m.compteuses
    ]


def _manche_doc(state: State, m: Manche) -> dict[str, Any]:
    sides = state.setup.sides
    return {
        "number": m.number,
        "breaker": state.setup.players[m.breaker],
        "colours": list(m.colours),
        "points": list(m.points) if m.points is not None else None,
        "dames_left": [state.dames - m.pocketed[COLOURS.index(c)] if c else None for c in m.colours],
        "compteuses": _compteuses(state, m),
        "compteuse_points_lost": list(m.lost),
        "finished": [sides[s] for s in m.finished],
        "shots": m.shots,
    }


def summary(options: Options, state: State, rejected: int = 0) -> dict[str, Any]:
    setup = state.setup
    sides = setup.sides
    m = state.manche
    current: dict[str, Any] | None = None
    if m is not None and not state.over:
        current = {
            "manche": m.number,
            "breaker": setup.players[m.breaker],
            "to_play": setup.players[m.seat],
            "turn_shots": m.turn_shots,
            "shots": m.shots,
            "colours": list(m.colours),
            "dames_on_board": {c: state.on_board(c) for c in COLOURS},
            "dames_left": [state.dames_left(0), state.dames_left(1)],
            "compteuses": _compteuses(state, m),
            "compteuses_returned": m.returned,
            "pocket_evidence": list(m.evidence),
        }
    return {
        "format": "flickboard-summary",
        "version": SUMMARY_VERSION,
        "game": "pichenottes-quebec",
        "rules": options.name,
        "target": state.target,
        "players": list(setup.players),
        "sides": [{"name": sides[i], "players": [setup.players[s] for s in setup.seats_of(i)]} for i in (0, 1)],
        "rounds": [_manche_doc(state, x) for x in state.manches],
        "totals": list(state.totals()),
        "current": current,
        "questions": [
            {"kind": q.kind, "side": sides[q.side], "text": q.text, "answers": list(q.answers)}
            for q in state.questions()
        ],
        "over": state.over,
        "winner": sides[state.winner] if state.winner is not None else None,
        "rejected_inputs": rejected,
    }


LOG_FIELDS = ("manche", "shot", "player", "side", "pocketed", "off", "result", "stops")


def shot_rows(state: State) -> list[dict[str, Any]]:
    """One row per shot, for CSV/JSON export."""
    return [
        {
            "manche": r.manche,
            "shot": r.number,
            "player": state.setup.players[r.seat],
            "side": state.setup.sides[r.side],
            "pocketed": " ".join(r.pocketed),
            "off": " ".join(r.off),
            "result": r.result,
            "stops": " ".join(r.stops),
        }
        for r in state.log
    ]
