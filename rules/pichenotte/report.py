"""Projections of a Pichenotte state: the stable summary document (`replay --json`, docs/transcript.md)
and the shot log rows (`export`). Pure functions of the state."""

from __future__ import annotations

from typing import Any

from .engine import Game, State
from .options import Options

SUMMARY_VERSION = 1


def _game_doc(state: State, g: Game) -> dict[str, Any]:
    sides = state.setup.sides
    return {
        "number": g.number,
        "breaker": state.setup.players[g.breaker],
        "points": list(g.points) if g.points is not None else None,
        "twenties": list(g.rail),
        "ditch": list(g.ditch),
        "zones": [list(z) if z is not None else None for z in g.zones],
        "penalties": [20 * p for p in g.penalties],
        "forfeit": {"side": sides[g.forfeit[0]], "reason": g.forfeit[1]} if g.forfeit else None,
        "winner": sides[g.winner] if g.winner is not None else None,
        "tied": g.points is not None and g.points[0] == g.points[1] and not g.forfeit,  # a forfeit is lost, not tied
        "decided_by_shootout": g.shootout_winner,
    }


def summary(options: Options, state: State, rejected: int = 0) -> dict[str, Any]:
    setup = state.setup
    sides = setup.sides
    current: dict[str, Any] | None = None
    g = state.game
    if g is not None and g.points is None:
        seat = state.to_shoot()
        current = {
            "game": g.number,
            "breaker": setup.players[g.breaker],
            "shots_played": g.shots - (1 if g.shot else 0),
            "shots_per_game": state.game_shots,
            "to_shoot": setup.players[seat] if seat is not None else None,
            "shot_kind": state.next_kind(),
            "shot_open": g.shot is not None,
            "in_hand": [state.hand(0), state.hand(1)],
            "on_board": list(g.board),
            "in_ditch": list(g.ditch),
            "twenties": list(g.rail),
            "penalties": [20 * p for p in g.penalties],
            "provisional_twenties": [{"entry": ref, "side": sides[s]} for ref, s in g.provisional],
        }
    so = state.shootout
    return {
        "format": "flickboard-summary",
        "version": SUMMARY_VERSION,
        "game": "pichenotte",
        "rules": options.name,
        "match": state.match.spec(),
        "players": list(setup.players),
        "sides": [{"name": sides[i], "players": [setup.players[s] for s in setup.seats_of(i)]} for i in (0, 1)],
        "games": [_game_doc(state, x) for x in state.games],
        "totals": list(state.totals()),
        "games_won": list(state.wins()),
        "current": current,
        "questions": [
            {"kind": q.kind, "side": sides[q.side], "text": q.text, "answers": list(q.answers)}
            for q in state.questions()
        ],
        "shootout": None
        if so is None
        else {
            "purpose": so.purpose,
            "shots": list(so.shots),
            "twenties": list(so.twenties),
            "to_shoot": setup.players[(so.first + sum(so.shots)) % state.seats],
        },
        "match_shootout": list(state.shootout_result) if state.shootout_result else None,
        "over": state.over,
        "winner": sides[state.winner] if state.winner is not None else None,
        "rejected_inputs": rejected,
    }


LOG_FIELDS = (
    "game",
    "shot",
    "player",
    "side",
    "kind",
    "contact",
    "free_zone",
    "facts",
    "result",
    "twenties_a",
    "twenties_b",
)


def shot_rows(state: State) -> list[dict[str, Any]]:
    """One row per finished shot, for CSV/JSON export."""
    setup = state.setup
    rows = []
    for r in state.log:
        rows.append(
            {
                "game": r.game,
                "shot": r.number,
                "player": setup.players[r.seat],
                "side": setup.sides[r.side],
                "kind": r.kind,
                "contact": {None: "", True: "hit", False: "miss"}[r.contact],
                "free_zone": {None: "", True: "zone", False: "short"}[r.zone],
                "facts": " ".join(f for f, _ in r.facts),
                "result": r.result,
                "twenties_a": r.twenties[0],
                "twenties_b": r.twenties[1],
            }
        )
    return rows
