"""Projections of a Flicochet state: the stable summary document (`replay --json`). Pure functions of the state."""

from __future__ import annotations

from typing import Any

from .engine import LETTERS, SIDES, Round, State
from .options import Options

SUMMARY_VERSION = 1


def _round_doc(state: State, r: Round) -> dict[str, Any]:
    return {
        "number": r.number,
        "start": SIDES[r.start],
        "start_player": state.setup.players[state.setup.members(r.start)[r.firsts[r.start]]],
        "points": list(r.points) if r.points is not None else None,
        "jack_points": [list(p) if p is not None else None for p in r.jack_points],
        "orders": ["".join(LETTERS[s] for s in o) if o is not None else None for o in r.orders],
        "jacks": list(r.jacks),
        "penalties": list(r.penalties),
        "knocked_off_by_opponent": list(r.knocked),
        "off_table": list(r.off),
        "ended": r.ended,
    }


def summary(options: Options, state: State, rejected: int = 0) -> dict[str, Any]:
    setup = state.setup
    r = state.round
    current: dict[str, Any] | None = None
    if r is not None and not state.over:
        who = state.to_flick()
        placer = state.placer_player()
        current = {
            "round": r.number,
            "start": SIDES[r.start],
            "start_player": setup.players[state.order_of(r.start)[0]],
            "flicks_played": r.flicks[0] + r.flicks[1],
            "to_flick": setup.players[who] if who is not None else None,
            "to_place_jack": setup.players[placer] if placer is not None else None,
            "jacks": list(r.jacks),
            "in_hand": [state.hand(0), state.hand(1)],
            "in_hand_by_player": {setup.players[p]: state.player_hand(p) for p in range(len(setup.players))},
            "on_table": list(r.table),
            "off_table": list(r.off),
            "penalties": list(r.penalties),
            "knocked_off_by_opponent": list(r.knocked),
            "jack_points": [list(p) if p is not None else None for p in r.jack_points],
        }
    return {
        "format": "flickboard-summary",
        "version": SUMMARY_VERSION,
        "game": "flicochet",
        "rules": options.name,
        "variants": list(options.layers),
        "target": state.target,
        "jacks": options.jacks,
        "players": list(setup.players),
        "sides": [{"name": SIDES[s], "players": [setup.players[p] for p in setup.members(s)]} for s in (0, 1)],
        "rounds": [_round_doc(state, x) for x in state.rounds],
        "totals": list(state.totals()),
        "current": current,
        "questions": [
            {
                "kind": q.kind,
                "side": SIDES[q.side] if q.side is not None else None,
                "text": q.text,
                "answers": list(q.answers),
            }
            for q in state.questions()
        ],
        "over": state.over,
        "winner": SIDES[state.winner] if state.winner is not None else None,
        "rejected_inputs": rejected,
    }


LOG_FIELDS = ("round", "start", "start_player", "red", "white", "orders", "jacks", "penalties", "off_table", "ended")


def round_rows(state: State) -> list[dict[str, Any]]:
    """One row per finished round, for CSV/JSON export."""
    rows = []
    for r in state.rounds:
        d = _round_doc(state, r)
        pts = d["points"] or [None, None]
        rows.append(
            {
                "round": d["number"],
                "start": d["start"],
                "start_player": d["start_player"],
                "red": pts[0],
                "white": pts[1],
                "orders": " / ".join(o or "-" for o in d["orders"]),
                "jacks": " ".join(d["jacks"]),
                "penalties": f"{d['penalties'][0]} {d['penalties'][1]}",
                "off_table": f"{d['off_table'][0]} {d['off_table'][1]}",
                "ended": d["ended"] or "",
            }
        )
    return rows
