"""A manual-entry request (docs/mqtt.md, "Manual entries"): `{"id": ..., "line": "..."}` or
`{"id": ..., "new": {"players": [...], "rules": ..., "match": ..., "target": ..., "replaces": ...}}`, read and checked
in one place for every way it arrives — the bridge's input topic and the web page's POST. A request this module accepts
is well formed; whether the game takes the line, or the rule set the players, is the game's to say (and the bridge's
whether the board still shows the journal a `new` request `replaces`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flickboard.rules import games
from flickboard.rules.names import name_problem

# The words of an entry that steer the session's sensor side rather than the game (core/session.py): `declare` only
# where the game's sensors take it; `hold WHY` puts the sensor side on hold for a person, with WHY as the review
# item (the bridge journals one when a board seems forged or the journal is damaged).
HOST_WORDS = ("reviewed", "dismiss", "declare", "hold")
MAX_INPUT = 2048  # bytes of one manual-entry payload
MAX_LINE = 200  # characters of one notation line
MAX_REPLACES = 300  # characters of a `new` request's `replaces`: the journal path its sender saw on the scoreboard
NEW_KEYS = ("rules", "players", "match", "target", "replaces", "replaces_entries")


class RequestError(ValueError):
    """A request that cannot be taken: one line; `rid` is its id when it had a readable one."""

    def __init__(self, reason: str, rid: object = None) -> None:
        super().__init__(reason)
        self.rid = rid


@dataclass(frozen=True)
class Request:
    """A well-formed request: a notation `line`, or the set-up of a `new` match (only the keys given)."""

    rid: str | int | None
    line: str | None = None
    new: dict[str, Any] | None = None


def read_request(payload: bytes, with_id: bool = True) -> Request:
    """The request in `payload`, or RequestError. `with_id=False`: the sender may not give an id (the web page
    adds its own)."""
    if len(payload) > MAX_INPUT:
        raise RequestError(f"request of {len(payload)} bytes, longer than {MAX_INPUT}")
    try:
        req = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RequestError('not JSON: send a JSON object, {"line": "..."} or {"new": {...}}') from None
    if not isinstance(req, dict):
        raise RequestError('not a JSON object: send {"line": "..."} or {"new": {...}}')
    rid = req.get("id") if with_id else None
    if (
        rid is not None
        and not (isinstance(rid, str) and len(rid) <= 64)
        and not (isinstance(rid, int) and not isinstance(rid, bool))
    ):
        raise RequestError('"id" must be a string of up to 64 characters or an integer')
    known = ("id", "line", "new") if with_id else ("line", "new")
    unknown = sorted(set(req) - set(known))
    if unknown:
        raise RequestError(f"unknown key {unknown[0][:20]!r} (known: {', '.join(known)})", rid)
    if ("line" in req) == ("new" in req):
        raise RequestError('give exactly one of "line" or "new"', rid)
    if "line" in req:
        return Request(rid, line=_line(req["line"], rid))
    return Request(rid, new=_new(req["new"], rid))


def _line(line: object, rid: object) -> str:
    if not isinstance(line, str) or not line.strip():
        raise RequestError('"line" must be a non-empty string', rid)
    if len(line) > MAX_LINE or "\n" in line or "\r" in line:
        raise RequestError(f'"line" must be one line of at most {MAX_LINE} characters', rid)
    if line.strip().startswith("#"):
        raise RequestError("a comment is not an entry", rid)
    return line.strip()


def _new(new: object, rid: object) -> dict[str, Any]:
    if not isinstance(new, dict) or set(new) - set(NEW_KEYS):
        raise RequestError('"new" is an object with "players", and optionally "rules", "match" or "target"', rid)
    rules = new.get("rules")
    if rules is not None and not isinstance(rules, str):
        raise RequestError(f'"new": unknown rule set {type(rules).__name__!r} (see flickboard rules list)', rid)
    try:
        game = games.find_rules(rules) if rules else None  # None: the board's current rule set
    except games.GameError:
        shown = (rules or "")[:40]
        raise RequestError(f'"new": unknown rule set {shown!r} (see flickboard rules list)', rid) from None
    players = new.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise RequestError('"new": "players" must be a list of names', rid)
    for p in players:
        problem = name_problem(p)
        if problem:
            raise RequestError(f'"new": {problem}', rid)
    counts = games.player_counts(rules or None)  # no rule set named: what some game takes; the bridge checks further
    if len(players) not in counts:
        said = (
            games.players_said(rules) if rules else f"at least {counts[0]} players (up to {counts[-1]} in some games)"
        )
        raise RequestError(f'"new": {games.title(game) if game else "a game"} takes {said}, not {len(players)}', rid)
    out: dict[str, Any] = {"players": [p.strip() for p in players]}
    if rules:
        out["rules"] = rules
    if "replaces" in new:  # the journal its sender saw on the board (null: none); the bridge compares, nothing else
        seen = new["replaces"]
        if seen is not None and not (isinstance(seen, str) and 0 < len(seen) <= MAX_REPLACES):
            raise RequestError(
                f'"new": "replaces" must be the journal path the board\'s scoreboard showed (a string of at most '
                f"{MAX_REPLACES} characters), or null when it showed none",
                rid,
            )
        out["replaces"] = seen
    if "replaces_entries" in new:  # how many entries that journal had then: a game gone on since is not the one seen
        n = new["replaces_entries"]
        if "replaces" not in new or type(n) is not int or n < 0:
            raise RequestError(
                '"new": "replaces_entries" is the count of entries the journal in "replaces" showed (a whole number of '
                "at least 0), given with it",
                rid,
            )
        out["replaces_entries"] = n
    for key, example, ours in (
        ("match", "games:8 or wins:2", game in (None, "pichenotte")),
        ("target", "31", game != "pichenotte"),
    ):
        value = new.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        if not ours:
            which = (
                "Pichenotte's match format" if key == "match" else "the points Québec Pichenottes and Flicochet play to"
            )
            raise RequestError(f'"new": "{key}" is {which}, not an option of {games.title(game or "pichenotte")}', rid)
        if isinstance(value, int) and not isinstance(value, bool) and key == "target":
            value = str(value)
        if not isinstance(value, str):
            raise RequestError(f'"new": "{key}" must be a string such as {example}', rid)
        out[key] = value.strip()
    return out
