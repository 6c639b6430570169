"""`flickboard tournament …` as the organiser types it: the installed console script, run through a whole evening
(10 entrants from a spreadsheet's CSV, a 3-round Swiss, results, standings with a tie broken by twenties, a top-4
single elimination, the champion). Every refused command is one line on stderr, exit code 2, no traceback, and the
journal's bytes do not change."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flickboard.tournament import dumps, read

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]

ENTRANTS_CSV = """name,partner,seed,club
Ana Costa,,1,Santa Fe
Ben Okafor,,2,Lyon
Cat Dubois,,3,Santa Fe
Dan Meyer,,4,Montréal
Eve Laurent,,,Lyon
Fay Nguyen,,,Montréal
Gus Pereira,,,Santa Fe
Hal Berg,,,Lyon
Ivy Moreau,,,Montréal
Jon Silva,,,Santa Fe
"""
# Each entrant's confirmed twenties in every match it plays: level entrants are then told apart by twenties.
TWENTIES = {
    "Ana Costa": 5,
    "Ben Okafor": 3,
    "Cat Dubois": 4,
    "Dan Meyer": 2,
    "Eve Laurent": 6,
    "Fay Nguyen": 1,
    "Gus Pereira": 3,
    "Hal Berg": 2,
    "Ivy Moreau": 4,
    "Jon Silva": 0,
}


def fb(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FLICKBOARD_DEBUG", None)
    return subprocess.run([*FLICKBOARD, *args], capture_output=True, text=True, timeout=60, cwd=cwd, env=env)


def ok(*args: str, cwd: Path) -> str:
    p = fb("tournament", *args, cwd=cwd)
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    return p.stdout


def refused(cwd: Path, journal: str, *args: str) -> str:
    """Run a command that must be refused: one line, exit 2, and the journal's bytes unchanged."""
    before = (cwd / journal).read_bytes()
    p = fb("tournament", *args, cwd=cwd)
    assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stdout + p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("flickboard: "), p.stderr
    assert (cwd / journal).read_bytes() == before, args
    return lines[0]


def winner_of(a: str, b: str, r: int) -> str:
    """A fixed, varied choice: the alphabetically first in rounds 1 and 3, the later in round 2."""
    first = min(a, b)
    return first if r != 2 else (b if first == a else a)


class Evening:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.out: dict[str, str] = {}

    def run(self, key: str, *args: str) -> str:
        self.out[key] = ok(*args, cwd=self.folder)
        return self.out[key]


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Evening]:
    folder = tmp_path_factory.mktemp("evening")
    (folder / "entrants.csv").write_text(ENTRANTS_CSV, encoding="utf-8")
    e = Evening(folder)
    e.run("new", "new", "spring.jsonl", "--name", "Spring Open")
    e.run("add", "add", "spring.jsonl", "--from", "entrants.csv")
    e.run(
        "start", "start", "spring.jsonl", "swiss", "--format", "swiss", "--rounds", "3",
        "--tiebreaks", "twenties,buchholz,points",
    )  # fmt: skip
    for r in (1, 2, 3):
        e.run(f"pair{r}", "pair", "spring.jsonl", "swiss", "--boards", "table-1", "table-2", "table-3")
        e.run(f"auto{r}", "assign", "spring.jsonl", "--auto", "table-4", "table-5", "table-6")
        ev = read(str(folder / "spring.jsonl"))
        for mid in ev.stages["swiss"].rounds[r - 1]:
            a, b = ev.matches[mid].sides
            w = winner_of(a, b, r)
            pts = "310-240" if w == a else "240-310"
            tw = f"{TWENTIES[a]}-{TWENTIES[b]}"
            e.run(f"result {mid}", "result", "spring.jsonl", mid, w.split()[0], "--points", pts, "--twenties", tw,
                  "--confirmed")  # fmt: skip
    e.run("standings swiss", "standings", "spring.jsonl", "swiss")
    e.run(
        "final", "start", "spring.jsonl", "final", "--format", "single-elimination", "--top", "4", "--from", "swiss",
        "--match", "wins:2",
    )  # fmt: skip
    e.run("auto final", "assign", "spring.jsonl", "--auto", "table-1", "table-2")
    for mid in ("final/W1-1", "final/W1-2", "final/W2-1"):
        ev = read(str(folder / "spring.jsonl"))
        a, b = ev.matches[mid].sides
        e.run(f"result {mid}", "result", "spring.jsonl", mid, a, "--games", "2-1")
    e.run("bracket", "bracket", "spring.jsonl", "final")
    e.run("standings", "standings", "spring.jsonl")
    e.run("show", "show", "spring.jsonl")
    yield e


def test_ten_entrants_come_from_the_spreadsheet(evening: Evening) -> None:
    lines = evening.out["add"].splitlines()
    assert len(lines) == 10
    assert lines[0] == "entrant 1: Ana Costa (seed 1, Santa Fe)" and lines[9] == "entrant 10: Jon Silva (Santa Fe)"
    ev = read(str(evening.folder / "spring.jsonl"))
    assert [e.seed for e in ev.entrants.values()][:5] == [1, 2, 3, 4, None]
    assert ev.entrants["Dan Meyer"].club == "Montréal"


def test_three_swiss_rounds_are_paired_without_a_rematch_and_put_on_boards(evening: Evening) -> None:
    ev = read(str(evening.folder / "spring.jsonl"))
    st = ev.stages["swiss"]
    assert len(st.rounds) == 3 and st.complete and st.closed_by == "final"
    pairs = [frozenset(m.sides) for m in st.matches.values()]
    assert len(pairs) == len(set(pairs)) == 15
    for r in (1, 2, 3):
        out = evening.out[f"pair{r}"].splitlines()
        assert out[0] == f"swiss, round {r} of 3"
        assert out[1].split() == ["Table", "Board", "Match", "Entrant", "Entrant", "State"]
        assert f"table-1  swiss/R{r}-1" in out[2] and "ready: waiting for a board" in out[5]
        auto = evening.out[f"auto{r}"].splitlines()  # two matches left for three free boards
        assert auto[0].startswith(f"table-4: swiss/R{r}-") and auto[1].startswith(f"table-5: swiss/R{r}-")
        assert auto[2] == "table-6: no match ready for them now"
    assert {m.board for m in st.matches.values()} == {f"table-{k}" for k in range(1, 6)}


def test_the_standings_show_the_chain_and_a_tie_broken_by_twenties(evening: Evening) -> None:
    out = evening.out["standings swiss"].splitlines()
    assert out[0].startswith("swiss: Swiss, round 3 of 3, 10 entrants") and out[0].endswith("complete")
    assert out[1] == "  tie-breaks: twenties, buchholz, points"
    assert out[2].split() == ["#", "Entrant", "P", "W", "L", "20s", "Buch", "Pts"]
    ev = read(str(evening.folder / "spring.jsonl"))
    rows = ev.table(ev.stages["swiss"]).rows
    assert len(out) == 3 + 10 + 1
    for line, row in zip(out[3:13], rows, strict=True):
        assert line.split()[-6:] == [str(x) for x in (3, row.wins, row.losses, row.twenties, row.buchholz,
                                                       row.points_for)]  # fmt: skip
    note = out[-1]
    assert note.startswith("  Ties: ") and note.count("\n") == 0
    by_twenties = [r for r in rows if r.decided_by == "twenties"]
    assert by_twenties, "the hand-picked results give a tie broken by twenties"
    r = by_twenties[0]
    nxt = rows[rows.index(r) + 1]
    assert r.wins == nxt.wins and r.twenties > nxt.twenties
    assert f"{r.entrant} over {nxt.entrant} on twenties ({r.twenties}-{nxt.twenties})" in note


def test_the_top_four_go_to_a_single_elimination_and_a_champion_is_crowned(evening: Evening) -> None:
    ev = read(str(evening.folder / "spring.jsonl"))
    top4 = [r.entrant for r in ev.table(ev.stages["swiss"]).rows[:4]]
    final = ev.stages["final"]
    assert final.entrants == top4
    start = evening.out["final"]
    assert "seeding: 1. " + top4[0] in start and "Semi-finals" in start and "winner of W1-1" in start
    auto = evening.out["auto final"].splitlines()  # the longest-waiting entrants take the first free board
    assert [line[:9] for line in auto] == ["table-1: ", "table-2: "]
    assert sorted(line[9:] for line in auto) == [
        f"final/W1-1  {top4[0]} vs {top4[3]}",
        f"final/W1-2  {top4[1]} vs {top4[2]}",
    ]
    # the numbers in the match's order, the order they were typed in (R-1-B "a match is won by ..." says the winner)
    assert f"final/W2-1: {top4[0]} beat {top4[1]} (games {top4[0]} 2 – 1 {top4[1]})" in evening.out["result final/W2-1"]
    assert f"stage final is complete: {top4[0]} is the champion" in evening.out["result final/W2-1"]
    assert ev.champion(final) == top4[0]
    bracket = evening.out["bracket"]
    assert "Semi-finals" in bracket and "\n  Final\n" in bracket and f"Champion: {top4[0]}" in bracket
    assert f"(1) {top4[0]}" in bracket and f"{top4[0]} beat {top4[3]} (games {top4[0]} 2 – 1 {top4[3]})" in bracket
    final_table = evening.out["standings"].splitlines()
    assert final_table[0] == "Spring Open: final standings"
    assert final_table[2].split()[:3] == ["1", *top4[0].split()]
    places = [line.split()[0] for line in final_table[2:]]
    assert places == ["1", "2", "3", "3", "5", "6", "7", "8", "9", "10"]
    assert "Next: the event is over" in evening.out["show"]


def test_a_journal_re_read_gives_the_same_event(evening: Evening) -> None:
    path = str(evening.folder / "spring.jsonl")
    assert dumps(read(path)) == dumps(read(path))
    assert not read(path).rejected


@pytest.fixture
def mid_round(tmp_path: Path) -> Path:
    """Six entrants, a 3-round Swiss, round 1 paired, its first match decided and the second on table-2."""
    (tmp_path / "entrants.csv").write_text("Name;Seed;Club\nAna;1;A\nBen;2;B\nCat;;A\nDan;;B\nEve;;A\nFay;;B\n")
    ok("new", "e.jsonl", "--name", "Club night", cwd=tmp_path)
    ok("add", "e.jsonl", "--from", "entrants.csv", cwd=tmp_path)
    ok("start", "e.jsonl", "swiss", "--format", "swiss", "--rounds", "3", cwd=tmp_path)
    ok("pair", "e.jsonl", "swiss", cwd=tmp_path)
    ok("result", "e.jsonl", "swiss/R1-1", "ana", "--points", "300-200", cwd=tmp_path)
    ok("assign", "e.jsonl", "R1-2", "table-2", cwd=tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["withdraw", "e.jsonl", "Bne"], ["there is no entrant named Bne; did you mean 'Ben'?"]),
        (
            ["result", "e.jsonl", "swiss/R1-2", "Bne"],
            ["Bne is not in this match: it is Ben or Eve; did you mean 'Ben'?"],
        ),
        (["result", "e.jsonl", "swiss/R1-2", "Ana"], ["Ana is not in this match: it is Ben or Eve"]),
        (["result", "e.jsonl", "swiss/R1-1", "Ana"], ["match swiss/R1-1 is already decided", "correct"]),
        (["walkover", "e.jsonl", "swiss/R1-1", "Ana"], ["already decided"]),
        (["result", "e.jsonl", "swiss/R1-9", "Ana"], ["there is no match swiss/R1-9; did you mean 'swiss/R1-"]),
        (["result", "e.jsonl", "swiss/R1-2", "Ben", "--points", "300:20x"], ["--points is two numbers a-b"]),
        (["result", "e.jsonl", "swiss/R1-2", "Ben", "--confirmed"], ["give them with --twenties"]),
        (["result", "e.jsonl", "swiss/R1-2", "Ben", "--journal", "nope.jsonl"], ["no such game journal: nope.jsonl"]),
        (["correct", "e.jsonl", "swiss/R1-2", "Ben"], ["has no result to correct"]),
        (["pair", "e.jsonl", "swiss"], ["round 1 of stage swiss still has 2 matches to play"]),
        (["pair", "e.jsonl", "swis"], ["there is no stage named swis; did you mean 'swiss'?"]),
        (
            ["start", "e.jsonl", "final", "--format", "single-elimination", "--top", "4", "--from", "swiss"],
            ["stage final cannot start yet: stage swiss is not finished: round 1 of 3"],
        ),
        (["start", "e.jsonl", "rr", "--format", "round-robin", "--tiebreaks", "h2h,buchols"], ["did you mean"]),
        (["start", "e.jsonl", "rr", "--format", "round-robin", "--rules", "tournament-2091"], ["no rule set"]),
        (["start", "e.jsonl", "swiss", "--format", "round-robin"], ["there is already a stage named swiss"]),
        (["start", "e.jsonl", "s2", "--format", "swiss"], ["a Swiss stage needs --rounds N"]),
        (["start", "e.jsonl", "s2", "--format", "knockout"], ["invalid choice: 'knockout'"]),
        (["assign", "e.jsonl", "swiss/R1-3", "table-2"], ["board table-2 is playing swiss/R1-2"]),
        (["assign", "e.jsonl", "swiss/R1-1", "table-3"], ["match swiss/R1-1 is already decided"]),
        (["add", "e.jsonl", "Ana"], ["there is already an entrant named Ana"]),
        (["add", "e.jsonl", "Gil", "--seed", "2"], ["seed 2 is already taken"]),
        (["add", "e.jsonl", "--from", "bad.csv"], ["bad.csv line 3: there is already an entrant named Hal"]),
        (["new", "e.jsonl", "--name", "Again"], ["e.jsonl already exists"]),
        (["show", "missing.jsonl"], ["there is no tournament missing.jsonl"]),
        (["bracket", "e.jsonl", "swiss"], ["not a bracket"]),
        (["shootout", "e.jsonl", "swiss", "Ana=3", "Ben"], ["NAME=TWENTIES"]),
        (["export", "e.jsonl"], ["say what to write"]),
        (["show", "entrants.csv"], ["entrants.csv"]),
        ([], ["say what to do: flickboard tournament new"]),
    ],
)
def test_a_bad_command_is_one_line_and_changes_nothing(mid_round: Path, args: list[str], fragments: list[str]) -> None:
    (mid_round / "bad.csv").write_text("name,seed\nHal,\nHal,\n", encoding="utf-8")
    line = refused(mid_round, "e.jsonl", *args)
    for f in fragments:
        assert f in line, (f, line)


def test_a_csv_with_one_bad_row_adds_nobody(mid_round: Path) -> None:
    (mid_round / "late.csv").write_text("name,seed,club\nGil,,C\nHana,x,C\n", encoding="utf-8")
    line = refused(mid_round, "e.jsonl", "add", "e.jsonl", "--from", "late.csv")
    assert "late.csv line 3: the seed is a whole number" in line
    assert "Gil" not in read(str(mid_round / "e.jsonl")).entrants


def test_walkover_correct_withdraw_and_undo(mid_round: Path) -> None:
    ok("walkover", "e.jsonl", "swiss/R1-2", "Ben", "--reason", "no show", cwd=mid_round)
    out = ok("correct", "e.jsonl", "swiss/R1-1", "Ana", "--points", "310-200", "--reason", "card", cwd=mid_round)
    assert "(points Ana 310 – 200 " in out and ", corrected)" in out
    ev = read(str(mid_round / "e.jsonl"))
    third = ev.matches["swiss/R1-3"]
    out = ok("withdraw", "e.jsonl", third.sides[1], "--reason", "went home", cwd=mid_round)
    assert out.splitlines() == [
        f"{third.sides[1]} is withdrawn (went home)",
        f"  swiss/R1-3: {third.sides[0]} wins by walkover",
    ]
    assert ok("undo", "e.jsonl", cwd=mid_round) == f"undone: entry {ev.count + 1}, withdraw {third.sides[1]}\n"
    assert read(str(mid_round / "e.jsonl")).entrants[third.sides[1]].active
    ok("result", "e.jsonl", "swiss/R1-3", third.sides[0], cwd=mid_round)
    out = ok("pair", "e.jsonl", "swiss", cwd=mid_round)
    assert out.startswith("swiss, round 2 of 3\n")


def test_a_shootout_breaks_a_tie_the_chain_left(tmp_path: Path) -> None:
    ok("new", "e.jsonl", "--name", "Tie night", cwd=tmp_path)
    for name in ("Ana", "Ben", "Cat"):
        ok("add", "e.jsonl", name, cwd=tmp_path)
    ok("start", "e.jsonl", "rr", "--format", "round-robin", "--tiebreaks", "h2h,shootout", cwd=tmp_path)
    ev = read(str(tmp_path / "e.jsonl"))
    beats = {"Ana": "Ben", "Ben": "Cat", "Cat": "Ana"}  # a circle: the mini-league leaves all three level
    for m in ev.stages["rr"].matches.values():
        a, b = m.sides
        ok("result", "e.jsonl", m.id, a if beats[a] == b else b, cwd=tmp_path)
    out = ok("standings", "e.jsonl", cwd=tmp_path)
    level = [r.entrant for r in read(str(tmp_path / "e.jsonl")).table(ev.stages["rr"]).rows]
    assert sorted(level) == ["Ana", "Ben", "Cat"]
    assert f"{', '.join(level)} still level after the whole chain (a shoot-out decides" in out
    out = ok("shootout", "e.jsonl", "rr", "Cat=7", "Ana=5", "Ben=2", cwd=tmp_path)
    assert out.splitlines()[0] == "shoot-out in stage rr: Cat 7, Ana 5, Ben 2"
    assert "Cat over Ana on the shoot-out (7-5); Ana over Ben on the shoot-out (5-2)." in out


def test_doubles_teams_and_pools_into_a_double_elimination(tmp_path: Path) -> None:
    ok("new", "d.jsonl", "--name", "Doubles", cwd=tmp_path)
    teams = [("Ana", "Ben"), ("Cat", "Dan"), ("Eve", "Fay"), ("Gus", "Hal"), ("Ivy", "Jon"), ("Kim", "Lea")]
    for k, (a, b) in enumerate(teams, 1):
        ok("add", "d.jsonl", a, "--partner", b, "--seed", str(k), cwd=tmp_path)
    out = ok("start", "d.jsonl", "pools", "--format", "pools", "--pools", "2", "--match", "games:2", cwd=tmp_path)
    assert "pools, 2 pools, 6 entrants" in out
    ev = read(str(tmp_path / "d.jsonl"))
    for m in ev.stages["pools"].matches.values():
        best = min(m.sides, key=lambda e: ev.entrants[e].seed or 0)  # the better seed wins
        games, points = ("2-0", "200-100") if best == m.sides[0] else ("0-2", "100-200")
        ok("result", "d.jsonl", m.id, best.split()[0], "--games", games, "--points", points, cwd=tmp_path)
    out = ok("standings", "d.jsonl", "pools", cwd=tmp_path)
    assert "  Pool 1" in out and "  Pool 2" in out
    out = ok("start", "d.jsonl", "playoff", "--format", "double-elimination", "--top", "2", "--from", "pools",
             "--no-reset", cwd=tmp_path)  # fmt: skip
    assert "one grand final" in out and "Winners bracket" in out and "Losers bracket" in out
    assert "Grand final" in out and "reset" not in out.split("Grand final")[1]
    ev = read(str(tmp_path / "d.jsonl"))
    while ev.champion(ev.stages["playoff"]) is None:
        m = next(m for m in ev.stages["playoff"].matches.values() if m.state == "ready")
        ok("result", "d.jsonl", m.id, m.sides[1], cwd=tmp_path)  # the lower seed wins every match
        ev = read(str(tmp_path / "d.jsonl"))
    out = ok("bracket", "d.jsonl", cwd=tmp_path)
    assert f"Champion: {ev.champion(ev.stages['playoff'])}" in out and "Ana & Ben" in out


def test_the_spreadsheet_can_be_read_again_and_names_are_found_by_a_word(tmp_path: Path) -> None:
    """An organiser who adds late rows to the spreadsheet (or whose import was cut short) reads the whole file again:
    the rows already registered exactly so are skipped. A first name or a surname finds an entrant when it is the
    only one with it."""
    (tmp_path / "early.csv").write_text(ENTRANTS_CSV.splitlines()[0] + "\n" + "\n".join(ENTRANTS_CSV.splitlines()[1:4]))
    (tmp_path / "all.csv").write_text(ENTRANTS_CSV + "Ana Silva,,,Lyon\n", encoding="utf-8")
    ok("new", "e.jsonl", "--name", "Open", cwd=tmp_path)
    assert len(ok("add", "e.jsonl", "--from", "early.csv", cwd=tmp_path).splitlines()) == 3
    out = ok("add", "e.jsonl", "--from", "all.csv", cwd=tmp_path).splitlines()
    assert out[0] == "entrant 4: Dan Meyer (seed 4, Montréal)" and out[-2] == "entrant 11: Ana Silva (Lyon)"
    assert out[-1] == "already registered: Ana Costa, Ben Okafor, Cat Dubois"
    assert "Ana Costa is withdrawn" in ok("withdraw", "e.jsonl", "costa", cwd=tmp_path)
    line = refused(tmp_path, "e.jsonl", "disqualify", "e.jsonl", "Ana", "--reason", "x")
    assert line == "flickboard: Ana could be Ana Costa, Ana Silva: type the whole name"
    (tmp_path / "changed.csv").write_text("name,seed\nBen Okafor,7\n", encoding="utf-8")
    line = refused(tmp_path, "e.jsonl", "add", "e.jsonl", "--from", "changed.csv")
    assert line == "flickboard: changed.csv line 2: there is already an entrant named Ben Okafor"


def test_after_a_kill_mid_append_the_next_command_sets_the_torn_line_aside(mid_round: Path) -> None:
    """What a kill -9 in the middle of an append leaves: part of a line at the end. Reading skips it; the next command
    that writes sets it aside (and says so), and the event is the one of the complete lines."""
    path = mid_round / "e.jsonl"
    complete = path.read_bytes()
    before = dumps(read(str(path)))
    torn = b'{"act":"result","match":"swiss/R1-2","sid'
    path.write_bytes(complete + torn)
    assert dumps(read(str(path))) == before
    assert ok("show", "e.jsonl", cwd=mid_round).startswith("Club night · 6 entrants")
    p = fb("tournament", "result", "e.jsonl", "swiss/R1-2", "Ben", cwd=mid_round)
    assert p.returncode == 0, p.stderr
    warning = f"warning: journal e.jsonl: the last record ({len(torn)} bytes at offset {len(complete)}) was incomplete"
    assert p.stderr.startswith(warning) and p.stderr.count("\n") == 1
    assert p.stdout.startswith("swiss/R1-2: Ben beat Eve")
    assert path.read_bytes().startswith(complete) and (mid_round / f"e.jsonl.torn-{len(complete)}").exists()
    assert read(str(path)).matches["swiss/R1-2"].winner == "Ben"


# Three seeded entrants in a bracket of four (seed 1 has the bye), drawn by hand: Cy (3) beats Ben (2), then Ana (1).
DRAWN_BRACKET = """\
  Semi-finals    Final       Champion
  (1) Ana    ─┐
              ├─ (1) Ana ─┐
  bye        ─┘           │
                          ├─ (3) Cy
  (2) Ben    ─┐           │
              ├─ (3) Cy  ─┘
  (3) Cy     ─┘
"""


def test_the_bracket_is_drawn_with_who_went_on_to_the_champion(tmp_path: Path) -> None:
    ok("new", "ko.jsonl", "--name", "Cup", cwd=tmp_path)
    for seed, name in enumerate(("Ana", "Ben", "Cy"), 1):
        ok("add", "ko.jsonl", name, "--seed", str(seed), cwd=tmp_path)
    out = ok("start", "ko.jsonl", "ko", "--format", "single-elimination", cwd=tmp_path)
    assert "  (1) Ana    ─┐\n              ├─ (1) Ana ─┐\n" in out, out  # the bye sends Ana on at once
    ok("result", "ko.jsonl", "ko/W1-2", "Cy", cwd=tmp_path)
    ok("result", "ko.jsonl", "ko/W2-1", "Cy", cwd=tmp_path)
    out = ok("bracket", "ko.jsonl", cwd=tmp_path)
    assert DRAWN_BRACKET in out, out
    assert "ko/W2-1  (1) Ana  vs  (3) Cy  Cy beat Ana" in out  # the matches still listed, by their ids
    # On a terminal narrower than the drawing, the drawing would wrap into nonsense: it says so instead.
    main, sub = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "30"}
    with subprocess.Popen([*FLICKBOARD, "tournament", "bracket", "ko.jsonl"], stdout=sub, cwd=tmp_path, env=env) as p:
        os.close(sub)
        got = b""
        while chunk := _read_pty(main):
            got += chunk
        assert p.wait(60) == 0
    os.close(main)
    narrow = got.decode().replace("\r\n", "\n")
    wide = max(len(line) for line in DRAWN_BRACKET.splitlines())
    assert f"(the drawing needs a terminal {wide} characters wide; this one has 30: the rounds follow)" in narrow
    assert "─┐" not in narrow and "ko/W2-1  (1) Ana  vs  (3) Cy  Cy beat Ana" in narrow


def _read_pty(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # the other end closed
        return b""


def test_a_name_put_right_mid_event_and_a_partner_substituted(mid_round: Path) -> None:
    """As the organiser types them: a name of several words with an accent and an apostrophe, found again by one word
    of it; a doubles team's player replaced. A name too like another, or with the notation's marks, is refused."""
    out = ok("rename", "e.jsonl", "Ana", "Ana Costa d'Ávila", cwd=mid_round)
    assert out == "Ana is now Ana Costa d'Ávila\n"
    assert ok("standings", "e.jsonl", cwd=mid_round).count("Ana Costa d'Ávila") == 1
    ev = read(str(mid_round / "e.jsonl"))
    assert ev.matches["swiss/R1-1"].winner == "Ana Costa d'Ávila"
    said = refused(mid_round, "e.jsonl", "rename", "e.jsonl", "Ben", "ana costa d'avila")
    assert "already an entrant named Ana Costa d'Ávila" in said
    said = refused(mid_round, "e.jsonl", "rename", "e.jsonl", "Ben", "Ben: the second")
    assert "no ':' in a name" in said
    ok("add", "e.jsonl", "Gil Ferreira", "--partner", "Hana Lee", cwd=mid_round)
    out = ok("substitute", "e.jsonl", "Gil", "hana lee", "Ivo Marchetti", cwd=mid_round)
    assert out == "Gil Ferreira & Hana Lee: Gil Ferreira & Ivo Marchetti (Ivo Marchetti for Hana Lee)\n"
