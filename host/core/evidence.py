"""From sensor events to session inputs: what one board event means for the game in progress.

Pure: `react(game, state, shot_evidence, declared, kind, fields)` returns one `Step` — a notation line to apply
now (marked `@sensor`), or a reason to wait, or a review item, or a note. The session's fold (host/core/session.py)
keeps the board events in a queue and applies them in order, re-asking `react` after every input, so a sensor
never runs ahead of a person: while a question is open, the events behind it wait for the answer.

    shot_start in quadrant q   -> `end` of the open shot (once its questions and checks are settled), then
                                  `begin PLAYER` for the player seated at q (`begin PLAYER call` after `declare`)
    pass of the hole beam      -> a provisional twenty: the shooting puck (`in`) while it is on the board, then
                                  another puck of the shooter's side if one is on the board, else the
                                  opponent's (`SIDE:in`); confirm or correct it
    pass of a ditch beam       -> counted; the shot cannot end while more pucks passed than were entered
    baseline_rest              -> `base` for the shooting puck while it is on the board, else review; when
                                  that puck is lifted off the same segment, the strip's `shot_start` is
                                  known for the removal it is, not a shot
    stuck hole beam            -> the A-4 question: the shot cannot end until `edge` is entered (or `reviewed`)
    stuck ditch beam           -> a puck rests across it: a ditch pass (during a shot), and a note that this part
                                  of the ditch is blind until it is cleared; never a review hold
    other stuck beam, count,   -> review: a person checks the board and the last shot, then types `reviewed`
    gap, fault
    chatter                    -> a note: the beam flickered and counted nothing; no puck is guessed

Nothing is guessed silently: where the sensors cannot tell, the game waits or goes on a review hold, and the
step says what to enter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from flickboard.rules.immutable import evolve, fast_init
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.engine import OpenShot, State
from flickboard.rules.text import Message

DITCH_FACTS = ("ditch", "off", "rebound", "in-rebound", "base")


@fast_init
@dataclass(frozen=True)
class ShotEvidence:
    """What the sensors saw during the open shot that only a person can attribute."""

    ditch_passes: int = 0
    hole_stuck: int = 0
    # (segment, shot number) where a puck came to rest on the baseline: out of bounds, soon lifted off (R-5A)
    rested: tuple[tuple[int, int], ...] = ()


class Step(NamedTuple):
    line: str | None = None  # a notation line to apply now
    done: bool = True  # the event is fully handled; False: apply `line`, then react to the same event again
    wait: str | None = None  # cannot go on yet: what a person must enter first (the event stays queued)
    review: str | None = None  # a needs-review hold: what is wrong and what to check (the event is used up)
    note: str | None = None  # shown, nothing to do
    evidence: ShotEvidence | None = None  # the open shot's evidence after this step (None: unchanged)
    moment: str | None = None  # a scoring moment for the events stream ("ditch-pass", "edge")


def quadrant_seats(players: int) -> dict[int, int]:
    """Quadrant (1-4, clockwise) -> seat. Singles players sit facing each other in quadrants 1 and 3."""
    return {1: 0, 3: 1} if players == 2 else {q: q - 1 for q in (1, 2, 3, 4)}


def _fact_name(fact: str) -> str:
    return fact.rsplit(":", 1)[-1]


class Unsettled(NamedTuple):
    """Something the sensors saw in the open shot that the entries do not account for yet."""

    kind: str  # "ditch": pucks went into the ditch, nobody said whose; "edge": a puck stands on edge in the hole
    unaccounted: int  # how many
    shooter: str  # the player whose shot it is


def unsettled(game: Pichenotte, shot: OpenShot, ev: ShotEvidence) -> list[Unsettled]:
    """What the sensors saw in the open shot that the entries do not account for yet (empty: nothing)."""
    out: list[Unsettled] = []
    who = game.setup.players[shot.seat]
    names = [_fact_name(f) for f, _ in shot.facts]
    # Pucks that may cross a ditch beam: ditch-type facts, and the shooting puck removed by rule after a miss
    # (or a missed call the opponent may have ditched); more passes than that cannot be attributed.
    allowed = sum(1 for f in names if f in DITCH_FACTS)
    if shot.puck == "board" and (shot.contact is False or shot.kind == "call"):
        allowed += 1
    if ev.ditch_passes > allowed:
        out.append(Unsettled("ditch", ev.ditch_passes - allowed, who))
    edges = names.count("edge")
    if ev.hole_stuck > edges:
        out.append(Unsettled("edge", ev.hole_stuck - edges, who))
    return out


def open_checks(game: Pichenotte, shot: OpenShot, ev: ShotEvidence) -> list[str]:
    """The open shot's unsettled sensor evidence in the scorer's words, with the notation that settles it."""
    out: list[str] = []
    for u in unsettled(game, shot, ev):
        if u.kind == "ditch":
            seen = ev.ditch_passes
            out.append(
                Message(
                    "{seen} puck(s) went into the ditch during {shooter}'s shot but {known} are accounted for: enter "
                    "whose ('ditch' for the shooting puck, 'SIDE:ditch' for another), or 'reviewed' if the sensor was "
                    "wrong",
                    seen=seen,
                    shooter=u.shooter,
                    known=seen - u.unaccounted,
                )
            )
        else:
            out.append(
                Message(
                    "a puck stands on edge in the twenty hole during {shooter}'s shot (A-4): it is not a twenty and "
                    "scores 15 - enter 'edge' (or 'SIDE:edge'), or 'reviewed' if no puck is there",
                    shooter=u.shooter,
                )
            )
    return out


def react(game: Pichenotte, state: State, ev: ShotEvidence, declared: bool, kind: str, fields: dict[str, Any]) -> Step:
    sensor = str(fields.get("n", ""))
    g = state.game
    shot = g.shot if g is not None and g.points is None else None
    if state.shootout is not None and kind in ("shot_start", "pass", "baseline_rest"):
        return Step(note="twenties shoot-out: each shot is entered by hand ('shot in' or 'shot miss')")
    if kind == "shot_start":
        seg = fields.get("seg")
        lifted = [r for r in ev.rested if r[0] == seg]
        if lifted:  # the out-of-bounds puck that rested there is lifted off (R-5A): not a shot
            left = tuple(r for r in ev.rested if r != lifted[0])
            return Step(note="the puck out of bounds on the baseline was lifted off", evidence=evolve(ev, rested=left))
        return _shot_start(game, state, ev, declared, int(fields.get("q", 0)))
    if kind == "pass" and sensor.startswith("hole"):
        if shot is None:
            return Step(review="a puck passed the twenty hole with no shot in progress: enter what happened")
        if shot.puck != "board":
            # Another puck went in: the shooter's if one is on the board, else the opponent's (provisional,
            # correctable).
            assert g is not None
            own = game.setup.side_of(shot.seat)
            for side in (own, 1 - own):
                if g.board[side] > 0:
                    return Step(line=f"{game.setup.sides[side]}:in @sensor")
            return Step(review="a second puck passed the twenty hole, but no other puck is on the board")
        return Step(line="in @sensor")
    if kind == "pass" and sensor.startswith("ditch"):
        if shot is None:
            return Step(review=f"a puck passed {sensor} with no shot in progress: enter what happened")
        return Step(
            evidence=evolve(ev, ditch_passes=ev.ditch_passes + 1),
            note=f"a puck went into the ditch ({sensor}): say whose ('ditch' or 'SIDE:ditch')",
            moment="ditch-pass",
        )
    if kind == "stuck" and sensor.startswith("ditch"):
        # A puck came to rest across the beam (a ditch too shallow for the beam's height, hardware/README.md): it
        # went into the ditch and stays there, so it counts as a pass; the beam is blind until it is cleared.
        blind = f"{sensor} is blocked by a puck resting across it: that part of the ditch is not watched until it is "
        blind += "cleared"
        if shot is None:
            return Step(note=blind)
        return Step(
            evidence=evolve(ev, ditch_passes=ev.ditch_passes + 1),
            note=f"a puck went into the ditch ({sensor}): say whose ('ditch' or 'SIDE:ditch'); {blind}",
            moment="ditch-pass",
        )
    if kind == "clear" and sensor.startswith("ditch"):
        # After a `stuck`, or alone: a block too long for a falling puck and too short for a resting one (a shooter's
        # fingers in the ditch: the beam's max_pass_ms, hardware/README.md), which counts no puck.
        return Step(note=f"{sensor} is clear again: the ditch there is watched (a block that is no puck counts none)")
    if kind == "baseline_rest":
        if shot is not None and shot.puck == "board":
            seg = fields.get("seg")
            rested = (*ev.rested, (seg, shot.number)) if isinstance(seg, int) else ev.rested
            return Step(line="base @sensor", evidence=evolve(ev, rested=rested))
        return Step(
            review=f"a puck came to rest on the baseline in quadrant {fields.get('q')}: enter whose (SIDE:base)"
        )
    if kind == "stuck" and sensor.startswith("hole"):
        if shot is None:
            return Step(review="the twenty hole beam is blocked with no shot in progress: clear it or check the sensor")
        return Step(
            evidence=evolve(ev, hole_stuck=ev.hole_stuck + 1),
            note="a puck stands on edge in the twenty hole (A-4): enter 'edge'",
            moment="edge",
        )
    return board_health(kind, fields) or Step()  # clear: nothing to do


def board_health(kind: str, fields: dict[str, Any]) -> Step | None:
    """The board's own health events, the same in every game: a blocked beam, a miscount, lost events, a fault,
    a restart. None: `kind` is not one of them."""
    sensor = str(fields.get("n", ""))
    if kind == "stuck":
        return Step(review=f"beam {sensor} is blocked: clear it or check the sensor, then type 'reviewed'")
    if kind == "count":
        return Step(
            review=f"{sensor} saw {fields.get('seen')} edges but reported {fields.get('expected')}: an event may be "
            "lost - check the last shot, then type 'reviewed'"
        )
    if kind == "chatter":
        return Step(
            note=f"beam {sensor} flickered ({fields.get('bursts')} burst(s), {fields.get('edges')} edges) and counted "
            "no puck: if it keeps happening, check its wiring and alignment"
        )
    if kind == "gap":
        return Step(
            review=f"the board lost events {fields.get('first')}..{fields.get('last')}: check the shots since then, "
            "then type 'reviewed'"
        )
    if kind == "fault":
        return Step(review=f"board fault: {fields.get('msg', fields.get('code', '?'))} - type 'reviewed' when checked")
    if kind == "hello":
        return Step(note=f"board started (firmware {fields.get('fw', '?')}, profile {fields.get('prof', '?')})")
    return None


def _shot_start(game: Pichenotte, state: State, ev: ShotEvidence, declared: bool, q: int) -> Step:
    setup = game.setup
    seat = quadrant_seats(len(setup.players)).get(q)
    if seat is None:
        return Step(review=f"a shot started from quadrant {q}, where nobody is seated: enter the shot by hand")
    g = state.game
    if state.questions():
        q0 = state.questions()[0]
        return Step(
            wait=Message("answer first: {question} ({answers})", question=q0.text, answers=" / ".join(q0.answers))
        )
    if g is not None and g.shot is not None:
        checks = open_checks(game, g.shot, ev)
        if checks:
            return Step(wait=checks[0])
        return Step(line="end @sensor", done=False)
    if state.over:
        return Step(note="a shot started, but the match is over: start a new match")
    due = state.to_shoot()
    if due is None:
        return Step(wait=Message("no shot is due: enter what ends the game (zones, forfeit) before the next shot"))
    if due != seat:
        return Step(
            review=f"a shot started from {setup.players[seat]}'s quadrant, but it is {setup.players[due]}'s turn "
            "(R-2): enter the shot by hand, then type 'reviewed'"
        )
    if declared and state.next_kind() == "free":
        return Step(
            line=f"begin {setup.players[seat]} @sensor",
            evidence=_next_shot(state, ev),
            note="the declared twenty does not apply: no opponent puck is on the board, it is a free shot (R-9)",
        )
    call = " call" if declared else ""
    return Step(line=f"begin {setup.players[seat]}{call} @sensor", evidence=_next_shot(state, ev))


def _next_shot(state: State, ev: ShotEvidence) -> ShotEvidence:
    """Fresh evidence for the shot about to begin; a puck that rested on the baseline during the shot just over
    may still be lifted off, older ones are forgotten."""
    shots = state.game.shots if state.game is not None else 0
    return ShotEvidence(rested=tuple(r for r in ev.rested if r[1] >= shots))
