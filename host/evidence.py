"""From sensor events to session inputs: what a board's evidence means for the game in progress.

Pure: `Evidence.react(state, kind, fields)` returns the notation lines to submit (marked `@sensor`) and any
"needs review" items; it keeps only per-shot counters. Nothing is guessed silently: where the sensors cannot
tell (whose puck went into the ditch, a beam stuck on a puck standing in the hole, a shot from the wrong
quadrant), the game is put on a visible review hold with what to enter, and a person settles it.

    shot_start in quadrant q   -> `end` of the open shot (if any), then `begin PLAYER` for the player seated at q
    pass of the hole beam      -> a provisional twenty: the shooting puck (`in`), or another of the shooter's
                                  pucks once the shooting puck is already in (`SIDE:in`); confirm or correct it
    pass of a ditch beam       -> counted; at the end of the shot, more ditch passes than ditch entries is a review
    baseline_rest              -> `base` for the shooting puck while it is on the board (correctable), else review
    stuck hole beam            -> review: the A-4 question, a puck on edge in the hole scores 15 (`edge`)
    count / gap / fault        -> review: the board lost or could not report events
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.pichenotte import Illegal, Pichenotte
from rules.pichenotte.engine import EndShot, State

DITCH_FACTS = ("ditch", "off", "rebound", "in-rebound")


@dataclass
class Reaction:
    lines: list[str] = field(default_factory=list)  # notation lines to submit, in order
    review: list[str] = field(default_factory=list)  # needs-review items: what is wrong and what to enter
    notes: list[str] = field(default_factory=list)  # informational (shown, nothing to do)


def quadrant_seats(players: int) -> dict[int, int]:
    """Quadrant (1-4, clockwise) -> seat. Singles players sit facing each other in quadrants 1 and 3."""
    return {1: 0, 3: 1} if players == 2 else {q: q - 1 for q in (1, 2, 3, 4)}


class Evidence:
    def __init__(self, game: Pichenotte) -> None:
        self.game = game
        self.seats = quadrant_seats(len(game.setup.players))
        self.ditch_passes = 0  # in the open shot

    def react(self, state: State, kind: str, fields: dict[str, Any], sensor: str = "") -> Reaction:
        r = Reaction()
        g = state.game
        shot = g.shot if g is not None else None
        if kind == "shot_start":
            self._shot_start(state, int(fields.get("q", 0)), r)
        elif kind == "pass" and sensor.startswith("hole"):
            if shot is None:
                r.review.append("a puck passed the twenty hole with no shot in progress: enter what happened")
            elif shot.puck == "hole":
                # Another puck went in: the shooter's if one is on the board, else the opponent's (provisional,
                # correctable); none on the board at all cannot be.
                assert g is not None
                own = self.game.setup.side_of(shot.seat)
                for side in (own, 1 - own):
                    if g.board[side] > 0:
                        r.lines.append(f"{self.game.setup.sides[side]}:in @sensor")
                        break
                else:
                    r.review.append("a second puck passed the twenty hole, but no other puck is on the board")
            else:
                r.lines.append("in @sensor")
        elif kind == "pass" and sensor.startswith("ditch"):
            if shot is None:
                r.review.append(f"a puck passed {sensor} with no shot in progress: enter what happened")
            else:
                self.ditch_passes += 1
                r.notes.append(f"a puck went into the ditch ({sensor}): say whose, e.g. 'ditch' or 'SIDE:ditch'")
        elif kind == "baseline_rest":
            if shot is not None and shot.puck == "board":
                r.lines.append("base @sensor")
            else:
                q = fields.get("q")
                r.review.append(f"a puck came to rest on the baseline in quadrant {q}: enter whose (SIDE:base)")
        elif kind == "stuck" and sensor.startswith("hole"):
            r.review.append(
                "a puck stands on edge in the twenty hole (A-4): it is not a twenty and scores 15 - enter 'edge' "
                "(or SIDE:edge), or correct the provisional twenty"
            )
        elif kind == "stuck":
            r.review.append(f"beam {sensor} is blocked: clear it or check the sensor")
        elif kind == "count":
            r.review.append(
                f"{sensor} saw {fields.get('seen')} edges but counted {fields.get('expected')}: an event may be "
                "lost, check the last shot"
            )
        elif kind == "gap":
            r.review.append(
                f"the board lost events {fields.get('first')}..{fields.get('last')}: check the shots since then"
            )
        elif kind == "fault":
            r.review.append(f"board fault: {fields.get('msg', fields.get('code', '?'))}")
        return r

    def _shot_start(self, state: State, q: int, r: Reaction) -> None:
        setup = self.game.setup
        seat = self.seats.get(q)
        if seat is None:
            r.review.append(f"a shot started from quadrant {q}, where nobody is seated")
            return
        g = state.game
        if g is not None and g.shot is not None:
            self._close_shot(state, r)
            if r.review:
                return
            try:  # the rules are pure: judge the next shot on the state after the end of this one
                state = self.game.apply(state, EndShot()).state
            except Illegal as e:
                r.review.append(f"the last shot cannot end: {e}")
                return
        if state.questions():
            q0 = state.questions()[0]
            r.review.append(f"{setup.players[seat]} shot before this was answered: {q0.text}")
            return
        due = state.to_shoot()
        if due is None:
            r.review.append(f"{setup.players[seat]} shot, but no shot is due: enter the zones or start the next game")
            return
        if due != seat:
            r.review.append(
                f"a shot started from {setup.players[seat]}'s quadrant, but it is {setup.players[due]}'s turn "
                "(R-2): enter the shot by hand"
            )
            return
        r.lines.append(f"begin {setup.players[seat]} @sensor")
        self.ditch_passes = 0

    def _close_shot(self, state: State, r: Reaction) -> None:
        """The next shot started: the open one is over. Check the ditch evidence, then end it."""
        g = state.game
        assert g is not None and g.shot is not None
        entered = sum(1 for what, _ in g.shot.facts if what.rsplit(":", 1)[-1] in DITCH_FACTS)
        if self.ditch_passes > entered:
            r.review.append(
                f"{self.ditch_passes} puck(s) went into the ditch during the last shot but {entered} "
                "ditch entr(y/ies) were made: add them (e.g. 'SIDE:ditch') before the next shot"
            )
            return
        r.lines.append("end @sensor")
