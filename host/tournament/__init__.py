"""The tournament director's core: a tournament is a journal of the director's acts, and the draw, the pairings,
the brackets and the standings are a pure fold of it (issue 21; the `flickboard tournament` commands, the web pages
and the boards' results are built on this).

Public API (everything else is internal):

    from flickboard.tournament import Director, read, fold, dumps, document, proposals, ActError, PairingError

    with Director.create("spring-open.jsonl", "Spring Open") as d:       # or Director.open(path) to go on
        d.add_entrant("Ana", seed=1, club="Santa Fe")                    # doubles: players=["Ana", "Ben"]
        d.start_stage("swiss", "swiss", options={"rounds": 5}, rules="tournament-2019",
                      tiebreaks=["buchholz", "median-buchholz", "h2h", "twenties", "points", "diff", "shootout"])
        d.pair_round("swiss")                                            # round 1, 2, ...
        d.assign("swiss/R1-1", "table-1")
        d.result("swiss/R1-1", "Ana", points=[310, 250], twenties=[6, 4], twenties_confirmed=True,
                 source="board", evidence={"journal": "journals/table-1/....jsonl"})
        d.shootout_matches("swiss")                                      # a tie the chain left: shoot-out matches
        d.start_stage("final", "single-elimination", intake={"from": "swiss", "top": 8})
        d.event            # the fold: Event (entrants, stages, matches); d.event.table(stage) the standings,
                           # d.event.placings(stage) a bracket's, d.event.final_standings() the whole event's
    proposals.next_match(d.event)   # the match the next free board should take (longest-waiting first)
    read(path)             # the same Event from the file, without the lock (a live director may be writing)
    dumps(event)           # the whole event as canonical JSON bytes (identical for identical journals)

`Director.act(dict)` takes any act below as a dict; the named methods build them. Each act is checked against the
event (`ActError` names what is wrong, and nothing is written), then appended durably (host/core/journal.py: one
checked line, fsynced before `act` returns), then folded. A torn last line after a crash is set aside by
`Director.open` as a game's resume does.

Acts ("act": ...) and their fields:
- `entrant`: name, players (1, or 2 for a doubles team), seed (1 = best, or null), club.
- `withdraw` / `disqualify`: entrant, reason. Their unplayed matches are lost by walkover; they are not paired again.
- `stage`: name, format (round-robin | swiss | single-elimination | double-elimination | pools), options
  ({"rounds": N} Swiss, {"reset": bool} double elimination, {"pools": N} pools), game, rules, match (a game's match
  format: "games:8" for Pichenotte, the target for Québec and Flicochet), tiebreaks (the chain, see standings.py;
  null: the format's usual one), intake (null: every active entrant; {"from": STAGE, "top": N}: the first N of a
  finished stage, or of each pool), entrants (the seeding order, from `proposals.seeding`).
- `pair`: stage, round, pairs [[a, b], ...], bye (a Swiss round, from `proposals.next_round`). Round robins and
  pools schedule every round when they start (roundrobin.py); brackets fill in as results come (brackets.py).
- `assign`: match, board.
- `result`: match, sides (the match's, in order), winner, games, points, twenties (each [a, b] or null),
  twenties_confirmed, shootout ([a, b]: the match's own twenties shoot-out, R-1-B), source (board | phone |
  organiser), evidence ({"journal": path, ...}: required from a board; the board's confirmed twenties come with it).
- `walkover`: match, winner, reason.   `correct`: a result's fields again, and reason; it replaces the match's result.
- `shootout`: stage, entrants, twenties: a twenties shoot-out among tied entrants, for the chain's `shootout` key,
  played on paper and entered as counts.
- `shootout-round`: stage, round (1, 2, ... in the stage), entrants (a group still level at the end of the chain, in
  standings order), pairs (every two of them once, in that order; from `proposals.shootout_rounds`): shoot-out
  matches "<stage>/SO<round>-<k>" with the Pichenotte match format `shootout` (only the R-1-B shoot-out, 12 pucks
  each then one each, scored by the engine), played on boards like any match once the stage's own matches are all
  decided. A result of one gives `shootout` [a, b], the winner's the higher. The round ranks the tied by shoot-out
  wins, then shoot-out twenties, once all its matches are decided; any still level get a further round.
- `undo`: ref, the entry number of the last act still in effect.

Match ids are "<stage>/<label>": "R2-3" (round 2, pair 3), "P1/R2-3" (pool 1), "W1-2", "L2-1", "GF1", "GF2", "SO1-2"
(shoot-out round 1, pair 2).

Modules: event.py (the fold and the checks), director.py (the journal), proposals.py (seeding, Swiss pairs, the
next match for a free board),
swiss.py (the matching), roundrobin.py (circle method, pools), brackets.py (seeded brackets), standings.py (the
tie-break chain), columns.py (the standings' columns, as every screen shows them), document.py (the JSON
document).
"""

from __future__ import annotations

from flickboard.tournament import proposals
from flickboard.tournament.director import Director, read
from flickboard.tournament.document import document, dumps
from flickboard.tournament.event import ActError, Event, fold
from flickboard.tournament.standings import DEFAULT_CHAIN, SWISS_CHAIN, TIEBREAKS
from flickboard.tournament.swiss import PairingError

__all__ = [
    "DEFAULT_CHAIN",
    "SWISS_CHAIN",
    "TIEBREAKS",
    "ActError",
    "Director",
    "Event",
    "PairingError",
    "document",
    "dumps",
    "fold",
    "proposals",
    "read",
]
