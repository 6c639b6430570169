"""`flickboard tournament export`: the results and standings as CSV, the JSON document, and the archive (the
tournament journal, every game journal its results name as evidence, the documents, a manifest of sha256 sums).
The archive's manifest matches its files, the same event gives the same archive bytes, and the archived journal
folds again to the same standings."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flickboard.tournament import Director, document, dumps, read
from flickboard.tournament import export as exports

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]


def fb(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FLICKBOARD_DEBUG", None)
    return subprocess.run(
        [*FLICKBOARD, *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd, env=env
    )


def ok(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    p = fb("tournament", *args, cwd=cwd)
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p


@pytest.fixture
def event(tmp_path: Path) -> Path:
    """Five entrants, a 2-round Swiss (a bye each round), two results with a real game journal as evidence (kept by
    `flickboard play`), one correction, and a final between the top two."""
    for k, who in enumerate((("Ana", "Ben"), ("Cat", "Dan")), 1):
        p = fb("play", "--players", *who, "--journal", f"games/g{k}.jsonl", cwd=tmp_path, stdin="shot zone\nshot hit\n")
        assert p.returncode == 0, p.stderr
    with Director.create(str(tmp_path / "club.jsonl"), "Club night") as d:
        for k, name in enumerate(("Ana", "Ben", "Cat", "Dan", "Eve"), 1):
            d.add_entrant(name, seed=k, club="Santa Fe" if k % 2 else "Lyon")
        d.start_stage("swiss", "swiss", options={"rounds": 2})
    evidence = iter(["games/g1.jsonl", "games/g2.jsonl"])
    for r in (1, 2):
        ok("pair", "club.jsonl", "swiss", "--boards", "t1", "t2", cwd=tmp_path)
        ev = read(str(tmp_path / "club.jsonl"))
        for mid in ev.stages["swiss"].rounds[r - 1]:
            a = ev.matches[mid].sides[0]
            extra = ["--journal", j] if (j := next(evidence, None)) else []
            ok("result", "club.jsonl", mid, a, "--points", "300-150", "--twenties", "4-2", "--confirmed", *extra,
               cwd=tmp_path)  # fmt: skip
    fix = ["--twenties", "4-2", "--confirmed", "--journal", "games/g1.jsonl", "--reason", "score card"]
    ok("correct", "club.jsonl", "swiss/R1-1", ev.matches["swiss/R1-1"].sides[0], "--points", "305-150", *fix,
       cwd=tmp_path)  # fmt: skip
    ok("start", "club.jsonl", "final", "--format", "single-elimination", "--top", "2", "--from", "swiss", cwd=tmp_path)
    ev = read(str(tmp_path / "club.jsonl"))
    ok("result", "club.jsonl", "final/W1-1", ev.matches["final/W1-1"].sides[1], "--games", "1-2", cwd=tmp_path)
    return tmp_path


def test_the_archive_holds_the_journals_the_documents_and_a_manifest_that_matches(event: Path) -> None:
    p = ok("export", "club.jsonl", "--archive", "club.zip", cwd=event)
    assert p.stdout == "" and p.stderr == "wrote club.zip: 7 files, 2 game journals\n"
    with zipfile.ZipFile(event / "club.zip") as z:
        names = z.namelist()
        files = {n: z.read(n) for n in names}
    manifest = json.loads(files.pop("manifest.json"))
    assert manifest["format"] == "flickboard-tournament-archive" and manifest["name"] == "Club night"
    assert sorted(f["path"] for f in manifest["files"]) == sorted(files)
    for f in manifest["files"]:
        assert hashlib.sha256(files[f["path"]]).hexdigest() == f["sha256"] and len(files[f["path"]]) == f["bytes"]
    assert manifest["evidence"] == {"games/g1.jsonl": "games/g1.jsonl", "games/g2.jsonl": "games/g2.jsonl"}
    assert manifest["missing"] == []
    assert files["tournament.jsonl"] == (event / "club.jsonl").read_bytes()
    for k in (1, 2):
        assert files[f"games/g{k}.jsonl"] == (event / "games" / f"g{k}.jsonl").read_bytes()
    # Re-folding the archived journal gives the same event: the same standings, the same document.
    again = event / "again.jsonl"
    again.write_bytes(files["tournament.jsonl"])
    archived, live = read(str(again)), read(str(event / "club.jsonl"))
    assert files["event.json"] == dumps(archived) == dumps(live)
    assert [r.doc() for r in archived.table(archived.stages["swiss"]).rows] == [
        r.doc() for r in live.table(live.stages["swiss"]).rows
    ]
    assert archived.final_standings() == live.final_standings()
    assert files["results.csv"].decode() == exports.results_csv(live)
    assert files["standings.csv"].decode() == exports.standings_csv(live)


def test_the_same_event_makes_the_same_archive_and_a_missing_game_journal_is_said(event: Path) -> None:
    ok("export", "club.jsonl", "--archive", "a.zip", cwd=event)
    ok("export", "club.jsonl", "--archive", "b.zip", cwd=event)
    assert (event / "a.zip").read_bytes() == (event / "b.zip").read_bytes()
    (event / "games" / "g2.jsonl").unlink()
    p = ok("export", "club.jsonl", "--archive", "c.zip", cwd=event)
    assert "warning: the game journal games/g2.jsonl named as evidence was not found" in p.stderr
    with zipfile.ZipFile(event / "c.zip") as z:
        manifest = json.loads(z.read("manifest.json"))
        assert manifest["missing"] == ["games/g2.jsonl"] and "games/g2.jsonl" not in z.namelist()


def test_an_archive_of_a_journal_being_written_keeps_its_complete_lines(event: Path) -> None:
    data = (event / "club.jsonl").read_bytes()
    torn = data + b'{"act":"undo","n":'
    manifest = exports.write_archive(str(event / "t.zip"), torn, str(event))
    with zipfile.ZipFile(event / "t.zip") as z:
        assert z.read("tournament.jsonl") == data
    assert manifest["entries"] == read(str(event / "club.jsonl")).count


def test_results_csv_has_a_row_per_match_and_bye(event: Path) -> None:
    p = ok("export", "club.jsonl", "--csv", "-", cwd=event)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert list(rows[0]) == list(exports.RESULT_FIELDS)
    ev = read(str(event / "club.jsonl"))
    assert len(rows) == len(ev.matches) + len(ev.stages["swiss"].byes)
    first = rows[0]
    m = ev.matches["swiss/R1-1"]
    assert (first["match"], first["side_a"], first["side_b"], first["winner"]) == (m.id, *m.sides, m.winner)
    assert (first["points_a"], first["points_b"], first["twenties_confirmed"]) == ("305", "150", "true")
    assert first["evidence"] == "games/g1.jsonl" and first["corrects"] and first["reason"] == "score card"
    assert first["board"] == "t1" and first["source"] == "organiser"
    byes = [r for r in rows if r["state"] == "bye"]
    assert [(r["match"], r["side_a"], r["winner"]) for r in byes] == [
        (f"swiss/R{rr}-bye", who, who) for rr, who in ev.stages["swiss"].byes
    ]
    final = rows[-1]
    assert final["match"] == "final/W1-1" and final["games_a"] == "1" and final["winner"] == final["side_b"]


def test_standings_csv_and_the_json_document(event: Path) -> None:
    p = ok("export", "club.jsonl", "--standings", "s.csv", "--json", "e.json", cwd=event)
    assert p.stderr == "wrote s.csv\nwrote e.json\n"
    ev = read(str(event / "club.jsonl"))
    assert (event / "e.json").read_bytes() == dumps(ev)
    assert json.loads((event / "e.json").read_text()) == document(ev)
    rows = list(csv.DictReader(io.StringIO((event / "s.csv").read_text(encoding="utf-8"))))
    final = [r for r in rows if r["table"] == "event"]
    assert [(int(r["rank"]), r["entrant"]) for r in final] == [(p, e) for p, e, _ in ev.final_standings()]
    assert final[0]["entrant"] == ev.champion(ev.stages["final"]) and final[0]["stage"] == "final"
    assert [r["entrant"] for r in rows if r["table"] == "bracket"] == [e for _, e in ev.placings(ev.stages["final"])]
    swiss = [r for r in rows if r["table"] == "stage" and r["stage"] == "swiss"]
    table = ev.table(ev.stages["swiss"]).rows
    assert [r["entrant"] for r in swiss] == [r.entrant for r in table]
    assert [int(r["twenties"]) for r in swiss] == [r.twenties for r in table]
    assert [int(r["buchholz"]) for r in swiss] == [r.buchholz for r in table]
    assert {r["club"] for r in swiss} == {"Santa Fe", "Lyon"}
