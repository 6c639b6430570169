"""The non-interactive commands, run as a user runs them (the installed console script) and through
main(argv, out). Every error is one plain line on stderr starting "flickboard: ", exit code 2, no traceback."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flickboard.cli.files import sample_path
from flickboard.cli.main import main
from flickboard.core.journal import Journal
from flickboard.rules.pichenotte.report import LOG_FIELDS

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]
SAMPLE = Path(sample_path())

# A whole singles game, then game 2 ends early: Ben forfeits after Ana's declared twenty.
FORFEIT_GAME = (
    SAMPLE.read_text(encoding="utf-8").replace('[Match "games:1"]', '[Match "games:2"]')
    + "\nshot Ben zone\nshot Ana call in\nforfeit Ben phone\n"
)


def run(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FLICKBOARD_DEBUG", None)
    return subprocess.run(
        [*FLICKBOARD, *args], input=stdin, capture_output=True, text=True, timeout=30, cwd=cwd or ROOT, env=env
    )


def call(*args: str) -> tuple[int, str]:
    """main(argv, out) in this process."""
    out = io.StringIO()
    return main(list(args), out), out.getvalue()


def assert_user_error(p: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stdout + p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("flickboard: "), p.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def summary_of(path: Path | str) -> dict[str, object]:
    p = run("replay", "--json", str(path))
    assert p.returncode == 0, p.stderr
    doc: dict[str, object] = json.loads(p.stdout)
    return doc


# ---------------------------------------------------------------- rules


def test_rules_list_names_every_games_rule_sets() -> None:
    p = run("rules", "list")
    assert p.returncode == 0 and p.stderr == ""
    lines = p.stdout.splitlines()
    assert lines[0].startswith("Pichenotte (--game pichenotte")
    names = [line.split()[0] for line in lines[1:5]]
    assert names == ["beginner", "beginner-advanced", "santa-fe-2018", "tournament-2019"]
    for name in ("officiel", "officiel-17-2", "flicochet", "flicochet+double-jack", "flicochet+school"):
        assert any(line.split()[:1] == [name] for line in lines), name
    rc, out = call("rules")
    assert rc == 0 and out == p.stdout
    rc, out = call("rules", "list", "--game", "quebec")
    assert rc == 0 and "officiel-17-2" in out and "tournament-2019" not in out


def test_rules_show_prints_the_options() -> None:
    rc, out = call("rules", "show", "tournament-2019")
    assert rc == 0
    assert out.startswith("Pichenotte · tournament-2019: Tournament rules version 9")
    for option in ("failed declared twenty", "free shot", "rebounds", "post values 25/50", "match", "shoot-out"):
        assert f"  {option}" in out
    assert "8 games, most total points wins" in out
    assert "10 zone" in out


# ---------------------------------------------------------------- replay


def test_replay_sample_prints_the_scoreboard() -> None:
    p = run("replay", "--sample")
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line.split() for line in p.stdout.splitlines() if line.startswith(("Ana ", "Ben "))}
    assert rows["Ana"][1:] == ["115*", "115", "1"]
    assert rows["Ben"][1:] == ["65", "65", "0"]
    assert "penalties Ben -20" in p.stdout
    assert "Match over: Ana wins." in p.stdout


def test_replay_json_is_the_documented_summary() -> None:
    doc = summary_of(SAMPLE)
    assert doc["format"] == "flickboard-summary" and doc["version"] == 1
    assert doc["game"] == "pichenotte" and doc["rules"] == "tournament-2019" and doc["match"] == "games:1"
    assert doc["players"] == ["Ana", "Ben"]
    assert doc["sides"] == [{"name": "Ana", "players": ["Ana"]}, {"name": "Ben", "players": ["Ben"]}]
    assert doc["games"] == [
        {
            "number": 1,
            "breaker": "Ana",
            "points": [115, 65],
            "twenties": [3, 2],
            "ditch": [4, 6],
            "zones": [[15, 10, 10, 5, 15], [15, 15, 10, 5]],
            "penalties": [0, 20],
            "forfeit": None,
            "winner": "Ana",
            "tied": False,
            "decided_by_shootout": False,
        }
    ]
    assert doc["totals"] == [115, 65] and doc["games_won"] == [1, 0]
    assert doc["current"] is None and doc["questions"] == [] and doc["shootout"] is None
    assert doc["over"] is True and doc["winner"] == "Ana" and doc["rejected_inputs"] == 0
    rc, out = call("replay", "--sample", "--json")
    assert rc == 0 and json.loads(out) == doc


def test_replay_json_reports_forfeits(tmp_path: Path) -> None:
    f = tmp_path / "forfeit.pich"
    f.write_text(FORFEIT_GAME, encoding="utf-8")
    doc = summary_of(f)
    games = doc["games"]
    assert isinstance(games, list) and len(games) == 2
    g2 = games[1]
    assert g2["breaker"] == "Ben"  # singles: the Hammer breaks the next game
    assert g2["forfeit"] == {"side": "Ben", "reason": "phone"}
    assert g2["points"] == [20, 0] and g2["twenties"] == [1, 0] and g2["winner"] == "Ana"
    assert doc["totals"] == [135, 65] and doc["games_won"] == [2, 0] and doc["winner"] == "Ana"


def test_replay_strict_exits_1_and_names_the_refused_line(tmp_path: Path) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    lineno = next(i for i, line in enumerate(lines, 1) if line.startswith("shot Ben hit ")) + 1
    lines.insert(lineno - 1, "shot Ben hit")  # a typo: entered twice, and it is Ana's shot
    f = tmp_path / "typo.pich"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lenient = run("replay", str(f))
    assert lenient.returncode == 0
    assert "1 input(s) refused" in lenient.stdout and "Match over: Ana wins." in lenient.stdout
    strict = run("replay", "--strict", str(f))
    assert strict.returncode == 1, strict.stderr
    assert "Traceback" not in strict.stderr
    assert f"warning: typo.pich line {lineno}: refused 'shot Ben hit'" in strict.stderr
    assert "it is Ana's shot, not Ben's" in strict.stderr
    assert run("replay", "--strict", "--sample").returncode == 0


# ---------------------------------------------------------------- export


def test_export_csv_json_transcript_and_round_trip(tmp_path: Path) -> None:
    p = run("export", str(SAMPLE), "--csv", "out.csv", "--json", "out.json", "--transcript", "out.pich", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    for name in ("out.csv", "out.json", "out.pich"):
        assert f"wrote {name}" in p.stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert tuple(reader.fieldnames or ()) == LOG_FIELDS
    assert len(rows) == 24  # one per shot: 12 pucks each
    assert [r["shot"] for r in rows] == [str(i) for i in range(1, 25)]
    assert rows[0]["player"] == "Ana" and rows[0]["kind"] == "free" and rows[0]["free_zone"] == "zone"
    assert rows[3]["contact"] == "miss" and "ditch" in rows[3]["result"]
    exported = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert exported["summary"] == summary_of(SAMPLE)
    assert [r["shot"] for r in exported["shots"]] == list(range(1, 25))
    # The transcript written back replays to the same summary.
    assert summary_of(tmp_path / "out.pich") == summary_of(SAMPLE)


def test_export_to_stdout() -> None:
    rc, out = call("export", str(SAMPLE), "--csv", "-")
    assert rc == 0
    assert out.splitlines()[0] == ",".join(LOG_FIELDS)
    assert len(out.splitlines()) == 25


def test_a_play_session_journal_replays_and_exports(tmp_path: Path) -> None:
    body = [line.split("#")[0].strip() for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    inputs = [line for line in body if line and not line.startswith("[")]
    inputs.insert(1, "shot Ana hit")  # refused: it is Ben's shot
    p = run(
        "play", "--players", "Ana", "Ben", "--match", "games:1", "--journal", "j/club.jsonl",
        cwd=tmp_path, stdin="\n".join(inputs) + "\n",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "  refused [2]: it is Ben's shot, not Ana's" in p.stdout
    assert "  ok [30] zones Ben 15 15 10 5" in p.stdout
    assert "GAME 1 OVER: 115-65, won by Ana" in p.stdout
    assert p.stdout.rstrip().endswith("Journal saved: j/club.jsonl")
    journal = tmp_path / "j" / "club.jsonl"
    doc = summary_of(journal)
    assert doc["rejected_inputs"] == 1
    assert {**doc, "rejected_inputs": 0} == summary_of(SAMPLE)
    e = run("export", "j/club.jsonl", "--csv", "shots.csv", "--transcript", "club.pich", cwd=tmp_path)
    assert e.returncode == 0, e.stderr
    assert len((tmp_path / "shots.csv").read_text(encoding="utf-8").splitlines()) == 25
    assert summary_of(tmp_path / "club.pich") == summary_of(SAMPLE)


# ---------------------------------------------------------------- errors


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder of bad inputs: a transcript with a bad header, a non-journal, a corrupt journal...
    (shared: every test that uses it checks that it changed nothing)"""
    tmp_path = tmp_path_factory.mktemp("bad-inputs")
    (tmp_path / "bad-header.pich").write_text('[Rules "tournament-2019"\n[Players "A" "B"]\nshot hit\n')
    (tmp_path / "no-rules.pich").write_text('[Players "A" "B"]\nshot hit\n')
    (tmp_path / "chess.pich").write_text('[Game "chess"]\n[Rules "tournament-2019"]\n[Players "A" "B"]\n')
    (tmp_path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    (tmp_path / "other.json").write_text('{"hello": "world"}\n')
    (tmp_path / "folder").mkdir()
    good = tmp_path / "good.jsonl"
    p = run("play", "--players", "A", "B", "--journal", str(good), stdin="shot zone\nshot hit\nshot miss\n")
    assert p.returncode == 0, p.stderr
    lines = good.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace("shot hit", "shot HIT")  # checksum no longer matches, not the last line
    (tmp_path / "corrupt.jsonl").write_text("".join(lines), encoding="utf-8")
    yield tmp_path


ERROR_CASES = [
    ((), "say what to do"),
    (("bogus",), "invalid choice: 'bogus'"),
    (("rules", "bogus"), "rules: argument action"),
    (("rules", "show", "nope"), "unknown rule set 'nope'"),
    (("rules", "show"), "which rule set?"),
    (("replay",), "give a transcript or journal"),
    (("replay", "/nonexistent"), "no such file: /nonexistent"),
    (("replay", "bad-header.pich"), "bad-header.pich:2: header tags go before the first input"),
    (("replay", "no-rules.pich"), "needs a Rules tag"),
    (("replay", "chess.pich"), "unknown game 'chess'"),
    (("replay", "picture.png"), "neither a transcript nor a journal"),
    (("replay", "folder"), "is a directory"),
    (("replay", "other.json"), "is not a usable journal"),
    (("replay", "corrupt.jsonl"), "is damaged at line 3"),
    (("replay", "--json", "--bogus"), "unrecognized arguments: --bogus"),
    (("export",), "export: the following arguments are required: file"),
    (("export", "good.jsonl"), "say what to write"),
    (("export", "x"), "say what to write"),
    (("export", "/nonexistent", "--csv", "-"), "no such file"),
    (("export", "corrupt.jsonl", "--csv", "-"), "is damaged at line 3"),
    (("export", "good.jsonl", "--csv", "no/such/dir/x.csv"), "cannot write no/such/dir/x.csv"),
    (("play",), "name the players"),
    (("play", "--players"), "play: argument --players: expected at least one argument"),
    (("play", "--players", "A"), "give 2 players (singles) or 4"),
    (("play", "--players", "A", "B", "C"), "give 2 players (singles) or 4"),
    (("play", "--players", "A", "B", "--rules", "bogus"), "unknown rule set 'bogus'"),
    (("play", "--players", "A", "A"), "player names must differ"),
    (("play", "--players", "hit", "B"), "'hit' cannot be a name"),
    (("play", "--players", "A", "B", "--match", "forever"), "'forever' is not a match format"),
    (("play", "--players", "A", "B", "--breaker", "C"), "the breaker 'C' is not one of the players"),
    (("play", "--players", "A", "B", "--journal", "good.jsonl"), "already exists: continue it with"),
    (("play", "--players", "A", "B", "--journal", "folder"), "is a directory"),
    (("play", "--resume", "missing.jsonl"), "journal missing.jsonl does not exist"),
    (("play", "--resume", "chess.pich"), "chess.pich is not a journal"),
    (("play", "--resume", "other.json"), "is not a usable journal"),
    (("play", "--resume", "corrupt.jsonl"), "is damaged at line 3"),
    (("play", "--resume", "folder"), "is a directory"),
    (("play", "--resume", "good.jsonl", "--players", "A", "B"), "leave out --game, --players"),
]


@pytest.mark.parametrize(("args", "message"), ERROR_CASES, ids=[" ".join(a) or "no-args" for a, _ in ERROR_CASES])
def test_errors_are_one_line_exit_2(files: Path, args: tuple[str, ...], message: str) -> None:
    before = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    p = run(*args, cwd=files)
    assert_user_error(p, message)
    after = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file() and p.name in before}
    assert after == before  # a refused command changes nothing (a corrupt journal stays as it was)


def test_journal_in_use_is_refused(files: Path) -> None:
    with Journal.open(str(files / "good.jsonl")):
        p = run("play", "--resume", "good.jsonl", cwd=files)
        assert_user_error(p, "is in use by another flickboard process", f"pid {os.getpid()}")
        # Reading never takes the lock: a live game can be replayed and exported.
        assert run("replay", "good.jsonl", cwd=files).returncode == 0
    assert run("play", "--resume", "good.jsonl", cwd=files).returncode == 0


def test_main_errors_in_process(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """main(argv, out) never raises for a user error, including argparse's own."""
    for args in ([], ["rules", "show", "nope"], ["replay", str(files / "corrupt.jsonl")], ["play", "--nope"]):
        rc, out = call(*args)
        err = capsys.readouterr().err
        assert rc == 2 and out == "", args
        assert err.startswith("flickboard: ") and err.count("\n") == 1, err


def test_internal_errors_are_one_line_too(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import flickboard.cli.files

    def boom(*_: object) -> object:
        raise RuntimeError("kaboom")

    monkeypatch.delenv("FLICKBOARD_DEBUG", raising=False)
    monkeypatch.setattr(flickboard.cli.files, "load", boom)
    rc, _ = call("replay", "--sample")
    err = capsys.readouterr().err
    assert rc == 70
    assert err.startswith("flickboard: internal error (RuntimeError: kaboom)") and err.count("\n") == 1


def test_console_script_is_installed() -> None:
    assert _SCRIPT.exists() or shutil.which("flickboard"), "pip install -e . installs the flickboard command"


def test_play_with_piped_input_echoes_each_line_and_hints(tmp_path: Path) -> None:
    """Scripts feed `play` from a pipe: no readline, each input echoed after the prompt, the markers kept."""
    p = run("play", "--players", "A", "B", "--journal", "p.jsonl", cwd=tmp_path, stdin="shot zone\nshoot hit\n")
    assert p.returncode == 0 and p.stderr == ""
    assert "> shot zone\n  ok [1] shot zone\n" in p.stdout
    assert "> shoot hit\n  refused [2]: 'shoot' is not a word of the notation, a side or a player" in p.stdout
    assert "(type 'help' for the notation)" in p.stdout
    assert p.stdout.endswith("> \nJournal saved: p.jsonl\n")
