"""The tournament journal: every act appended first as one checked line, the event a pure fold of them (the same
bytes every time), corrections and undo as new entries, and a kill -9 mid-append handled as a game's journal
handles it (host/core/journal.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from flickboard.core import journal
from flickboard.core.journal import Journal, JournalError
from flickboard.tournament import ActError, Director, document, dumps, fold, read

Make = Callable[..., Director]
ROOT = Path(__file__).resolve().parents[2]


def win(d: Director, match: str, winner: str, pts: tuple[int, int] = (100, 50)) -> int:
    m = d.event.matches[match]
    return d.result(match, winner, points=list(pts if m.sides[0] == winner else pts[::-1]))


def test_every_act_is_one_checked_line_and_a_refused_act_writes_nothing(director: Make) -> None:
    d = director("A", "B", "C")
    d.start_stage("rr", "round-robin")
    size = os.path.getsize(d.path)
    with pytest.raises(ActError, match="already"):
        d.add_entrant("A")
    with pytest.raises(ActError, match="winner"):
        d.result("rr/R1-1", "Nobody", points=[1, 2])
    assert os.path.getsize(d.path) == size
    lines = Path(d.path).read_bytes().splitlines()
    assert len(lines) == 1 + 4  # the header, 3 entrants, the stage
    for n, raw in enumerate(lines):
        rec = json.loads(raw)
        crc = rec.pop("crc")
        canon = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert crc == f"{zlib.crc32(canon.encode()):08x}" and rec["n"] == n
    assert json.loads(lines[0])["setup"] == {"tournament": {"name": "Club open", "version": 1}}
    assert [json.loads(x)["act"] for x in lines[1:]] == ["entrant", "entrant", "entrant", "stage"]


def test_folding_the_same_journal_twice_gives_the_same_bytes(director: Make) -> None:
    d = director(*"ABCDE")
    d.start_stage("s", "swiss", options={"rounds": 2})
    d.pair_round("s")
    first_round = d.event.stages["s"].rounds[0]
    d.assign(first_round[0], "table-1")
    for m in first_round:
        win(d, m, d.event.matches[m].sides[0])
    d.pair_round("s")
    first, second = dumps(read(d.path)), dumps(read(d.path))
    assert first == second == dumps(d.event)
    assert dumps(fold(journal.read(d.path).records, "Club open")) == first
    doc = document(d.event)
    assert doc["format"] == "flickboard-tournament" and len(doc["stages"][0]["standings"]) == 5


def test_a_correction_changes_the_standings_and_keeps_the_audit(director: Make) -> None:
    d = director("A", "B", "C")
    d.start_stage("rr", "round-robin")
    st = d.event.stages["rr"]
    for m in list(st.matches.values()):
        win(d, m.id, min(m.sides))  # A beats B and C, B beats C
    assert [r.entrant for r in d.event.table(st).rows] == ["A", "B", "C"]
    ab = next(m for m in st.matches.values() if set(m.sides) == {"A", "B"})
    first = ab.outcome.entry  # type: ignore[union-attr]
    # The score card says B won that match.
    n = d.result(ab.id, "B", points=[90, 110] if ab.sides[0] == "A" else [110, 90], correct=True, reason="card")
    rows = d.event.table(st).rows
    # B now has two wins, A one: B goes top.
    assert [(r.entrant, r.wins) for r in rows] == [("B", 2), ("A", 1), ("C", 0)]
    out = ab.outcome
    assert out is not None and out.entry == n and out.replaced == (first,) and out.reason == "card"
    assert dumps(read(d.path)) == dumps(d.event)


def test_undo_takes_back_the_last_act_in_effect(director: Make) -> None:
    d = director(*"ABCD")
    d.start_stage("s", "swiss", options={"rounds": 3})
    d.pair_round("s")
    before_results = dumps(d.event)
    n = win(d, "s/R1-1", "A")
    assert d.event.matches["s/R1-1"].state == "done"
    with pytest.raises(ActError, match="last act"):
        d.act({"act": "undo", "ref": n - 1})
    u = d.undo()
    assert d.event.matches["s/R1-1"].state == "ready" and d.event.undone == [n, u]
    d.undo()  # the pairing of round 1
    assert d.event.stages["s"].rounds == [] and "s/R1-1" not in d.event.matches
    d.pair_round("s")  # the same round again, the same pairs
    assert [m.sides for m in d.event.stages["s"].matches.values()] == [["A", "C"], ["B", "D"]]
    assert dumps(read(d.path)) == dumps(d.event)
    assert before_results != dumps(d.event)  # the undone acts stay in the audit (`undone`)


def test_results_say_where_they_come_from(director: Make) -> None:
    d = director("A", "B")
    d.start_stage("rr", "round-robin")
    with pytest.raises(ActError, match="evidence"):
        d.result("rr/R1-1", "A", points=[300, 200], twenties=[5, 3], twenties_confirmed=True, source="board")
    with pytest.raises(ActError, match="confirmed twenties need"):
        d.result("rr/R1-1", "A", twenties_confirmed=True)
    with pytest.raises(ActError, match="source"):
        d.result("rr/R1-1", "A", source="rumour")
    with pytest.raises(ActError, match="sides"):
        d.act({"act": "result", "match": "rr/R1-1", "sides": ["B", "A"], "winner": "A", "source": "organiser"})
    d.result(
        "rr/R1-1",
        "A",
        points=[300, 200],
        twenties=[5, 3],
        twenties_confirmed=True,
        source="board",
        evidence={"journal": "journals/table-1/match.jsonl", "board": "table-1"},
    )
    row = d.event.table(d.event.stages["rr"]).rows[0]
    assert (row.entrant, row.twenties, row.points_for) == ("A", 5, 300)
    res = document(d.event)["stages"][0]["matches"][0]["result"]
    assert res["source"] == "board" and res["evidence"]["journal"] == "journals/table-1/match.jsonl"
    with pytest.raises(ActError, match="correction"):
        d.result("rr/R1-1", "B")


def test_a_disqualified_entrant_loses_the_next_bracket_match_by_walkover(director: Make) -> None:
    d = director("A", "B", "C", "D")
    d.start_stage("ko", "single-elimination")
    d.assign("ko/W1-1", "table-1")
    win(d, "ko/W1-1", "A")
    win(d, "ko/W1-2", "B")
    d.disqualify("B", "phone in use (001 NO a)")
    fin = d.event.matches["ko/W2-1"]
    assert fin.state == "walkover" and fin.winner == "A"
    assert d.event.champion(d.event.stages["ko"]) == "A"
    assert d.event.matches["ko/W1-1"].board == "table-1"


def test_a_game_journal_is_not_a_tournament(tmp_path: Path) -> None:
    path = str(tmp_path / "game.jsonl")
    Journal.create(path, {"players": ["A", "B"]}).close()
    with pytest.raises(JournalError, match="not a Flickboard tournament"):
        Director.open(path)
    with pytest.raises(JournalError, match="not a Flickboard tournament"):
        read(path)


def test_a_torn_last_line_is_set_aside_and_the_fold_is_the_same(director: Make) -> None:
    d = director("A", "B", "C")
    d.start_stage("rr", "round-robin")
    win(d, "rr/R1-1", d.event.matches["rr/R1-1"].sides[0])
    d.close()
    before = dumps(read(d.path))
    with open(d.path, "ab") as f:  # what a kill -9 in the middle of a write leaves: part of a line
        f.write(b'{"act":"result","match":"rr/R2-1","n":6,"points":[1')
    assert dumps(read(d.path)) == before  # a reader leaves it in place and does not read it
    again = Director.open(d.path)
    try:
        assert again.torn is not None and os.path.exists(again.torn.saved_to)
        assert dumps(again.event) == before
        again.assign("rr/R2-1", "table-2")  # and the event goes on
    finally:
        again.close()
    assert not Path(d.path).read_bytes().count(b'"points":[1\n')


WRITER = textwrap.dedent(
    """
    import sys
    from flickboard.tournament import Director
    d = Director.create(sys.argv[1], "Kill test")
    for i in range(12):
        d.add_entrant(f"P{i:02d}", seed=i + 1)
    d.start_stage("rr", "round-robin")
    print("ack", d.event.count, flush=True)
    for m in list(d.event.stages["rr"].matches.values()):
        a, b = m.sides
        d.assign(m.id, "table-1")
        print("ack", d.event.count, flush=True)
        d.result(m.id, a, points=[120, 80], twenties=[3, 1], twenties_confirmed=True)
        print("ack", d.event.count, flush=True)
    print("done", flush=True)
    """
)


def test_kill_9_mid_event_then_the_same_fold(tmp_path: Path) -> None:
    path = str(tmp_path / "event.jsonl")
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, path],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    acked = 0
    for line in proc.stdout:
        words = line.split()
        if words[0] == b"ack":
            acked = int(words[1])
        if acked >= 40:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    snapshot = read(path)
    assert snapshot.count >= acked  # every acknowledged act is on disk
    assert not snapshot.rejected
    with Director.open(path) as d:
        assert dumps(d.event) == dumps(snapshot) == dumps(read(path))
        # the director goes on where it stopped
        st = d.event.stages["rr"]
        for m in list(st.matches.values()):
            if m.state == "ready":
                d.result(m.id, m.sides[0], points=[120, 80])
        assert st.complete
        results = [r for _, r in d.event.applied if r["act"] == "result"]
        assert len(results) == len(st.matches) == len({r["match"] for r in results}) == 66


def test_a_match_goes_back_to_waiting_and_a_boards_game_may_be_abandoned_by_journaled_acts(director: Make) -> None:
    """`unassign`: a match off its board (the board refused it, or the organiser moves it), ready for another;
    `abandon`: the organiser's word that the unfinished game on a board may be replaced (the hall opens nothing over
    a game in progress without it). Both are acts of the journal: folded, undone, audited like the others."""
    d = director("A", "B", "C", "D")
    d.start_stage("rr", "round-robin")
    m = next(iter(d.event.matches))
    d.assign(m, "t1")
    d.unassign(m, "board t1 refused the match: the board is not followed by any bridge")
    assert d.event.matches[m].board is None and d.event.matches[m].state == "ready"
    with pytest.raises(ActError, match="not on a board"):
        d.unassign(m)
    d.assign(m, "t2")
    d.abandon("t2", "journals/t2/20261128-090000-000000.jsonl", "a friendly game left on the board")
    assert d.event.abandoned("t2") == {"journals/t2/20261128-090000-000000.jsonl"} and not d.event.abandoned("t1")
    with pytest.raises(ActError, match="abandon names the game"):
        d.abandon("t2", "")
    win(d, m, d.event.matches[m].sides[0])
    with pytest.raises(ActError, match="decided"):
        d.unassign(m)
    assert dumps(read(d.path)) == dumps(d.event)


def test_an_entrant_renamed_and_a_partner_substituted_keep_their_place_and_results(director: Make) -> None:
    """A name typed wrong at registration is put right mid-event, everywhere it stands (stages, matches, results,
    standings), from now on; a doubles team's player replaced keeps the team's results. Both are acts: undone like
    the others, and the journal folds to the same bytes."""
    d = director("Ana Costa", "Ben Dube", "Cy Lam", "Dee Roy")
    d.start_stage("rr", "round-robin")
    first = next(m for m in d.event.matches.values() if "Ben Dube" in m.sides)
    win(d, first.id, "Ben Dube")
    d.rename("Ben Dube", "Ben Dubé")
    ev = d.event
    assert "Ben Dube" not in ev.entrants and ev.entrants["Ben Dubé"].players == ("Ben Dubé",)
    assert ev.matches[first.id].winner == "Ben Dubé" and "Ben Dubé" in ev.stages["rr"].entrants
    assert ev.table(ev.stages["rr"]).rows[0].entrant == "Ben Dubé"
    with pytest.raises(ActError, match="already an entrant named Ana Costa"):
        d.rename("Cy Lam", "ana costa")
    with pytest.raises(ActError, match="singles entrant"):
        d.substitute("Cy Lam", "Cy Lam", "Eve Ng")
    d.add_entrant("Cy & Dee", players=["Cy Lam", "Dee Roy"])
    d.substitute("Cy & Dee", "Dee Roy", "Eve Ng")
    assert d.event.entrants["Cy & Dee"].players == ("Cy Lam", "Eve Ng")
    with pytest.raises(ActError, match="already plays in"):
        d.substitute("Cy & Dee", "Eve Ng", "cy lam")
    d.undo()
    d.undo()
    assert d.event.entrants.get("Cy & Dee") is None
    d.undo()
    assert "Ben Dube" in d.event.entrants and d.event.matches[first.id].winner == "Ben Dube"
    assert dumps(read(d.path)) == dumps(d.event)
