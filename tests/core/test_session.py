"""The session API the sensor bridge will call: journal first, then effect (the journal is the truth).

Every test drives `flickboard.core.session.Session` on a real journal file and checks both the session's summary and
what is on disk (read back with `flickboard.core.journal.read`, the lock-free reader).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from flickboard.core import journal
from flickboard.core.journal import JournalError
from flickboard.core.scoreboard import scoreboard_doc
from flickboard.core.session import Fold, Session, _fold_record, fold_entries
from flickboard.rules.base import Source
from flickboard.rules.pichenotte import Pichenotte

PLAYERS = ["North", "South"]


def make_game(rules: str = "tournament-2019") -> Pichenotte:
    return Pichenotte.create(rules, PLAYERS)


def new_session(tmp_path: Path, rules: str = "tournament-2019") -> Session:
    return Session.create(str(tmp_path / "j.jsonl"), make_game(rules))


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True)


def settled(doc: dict[str, Any]) -> dict[str, Any]:
    """A summary without the refusal count, to compare states reached through different entries."""
    out = copy.deepcopy(doc)
    del out["rejected_inputs"]
    return out


def fold_summary(lines: list[str], rules: str = "tournament-2019") -> dict[str, Any]:
    """The summary of a fresh fold of these lines, numbered 1, 2, 3..."""
    game = make_game(rules)
    fold = fold_entries(game, [(i, text, "manual") for i, text in enumerate(lines, 1)])
    return game.summary(fold.state, len(fold.rejected))


def submit_all(session: Session, lines: list[str]) -> None:
    for text in lines:
        out = session.submit(text)
        assert out.accepted, f"set-up line {text!r} was refused: {out.message}"


# North breaks with a free shot, South touches it; now North shoots a contact shot with one South puck on
# the board (so 'South:in' is possible) and entry 3 is North's shot.
OPENING = ["shot zone", "shot hit"]


# ---------------------------------------------------------------- journal first


def test_every_input_is_on_disk_once_submit_returns(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    path = session.journal.path
    inputs: list[tuple[str, Source, bool]] = [
        ("shot zone", "manual", True),
        ("bogus words", "manual", False),  # garbled
        ("shot hit", "manual", True),
        ("in", "sensor", False),  # sensor evidence with no shot open
        ("begin", "manual", True),
        ("in", "sensor", True),
        ("end", "manual", True),
        ("choose leave", "manual", False),  # illegal: no choice is asked
        ("hit", "manual", True),
    ]
    for i, (text, source, accepted) in enumerate(inputs, 1):
        out = session.submit(text, source)
        assert (out.n, out.accepted) == (i, accepted), out.message
        snap = journal.read(path)
        assert snap.torn_bytes == 0
        assert len(snap.records) == i
        rec = snap.records[-1]
        assert (rec["n"], rec["in"], rec["src"]) == (i, text, source)
    assert session.summary()["rejected_inputs"] == 3
    assert [r[0] for r in session.fold.rejected] == [2, 4, 8]
    session.close()


def test_blank_and_comment_lines_are_not_inputs(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    for text in ("", "   ", "# a comment", "  # indented comment"):
        out = session.submit(text)
        assert (out.n, out.accepted) == (0, False)
    assert journal.read(session.journal.path).records == []
    assert session.summary()["rejected_inputs"] == 0
    session.close()


def test_input_is_journaled_before_it_takes_effect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = new_session(tmp_path)
    submit_all(session, OPENING)
    before = dump(session.summary())
    seen: list[tuple[str, int]] = []
    real_append = session.journal.append

    def spying_append(entry: dict[str, Any]) -> int:
        # At the moment the entry is written, the session must still show the old state.
        seen.append((dump(session.summary()), len(journal.read(session.journal.path).records)))
        return real_append(entry)

    monkeypatch.setattr(session.journal, "append", spying_append)
    out = session.submit("shot hit South:ditch")
    assert out.accepted
    assert seen == [(before, 2)]
    after = session.summary()
    assert dump(after) != before
    assert after["current"]["in_ditch"] == [0, 1]
    session.close()


def test_input_that_cannot_be_journaled_takes_no_effect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = new_session(tmp_path)
    submit_all(session, OPENING)
    before = dump(session.summary())
    fold = session.fold

    def failing_append(entry: dict[str, Any]) -> int:
        raise JournalError("disk full (simulated)")

    monkeypatch.setattr(session.journal, "append", failing_append)
    with pytest.raises(JournalError, match="disk full"):
        session.submit("shot hit South:ditch")
    assert session.fold is fold
    assert dump(session.summary()) == before
    assert len(journal.read(session.journal.path).records) == 2
    session.close()


# (lines already in effect, the refused line)
REFUSED = [
    ([], "bogus"),
    ([], "shot Zed"),  # not a player
    ([], "shot South"),  # North breaks
    ([], "shot call"),  # a free shot: nothing to declare
    ([], "forfeit North nap"),  # not a forfeit reason
    ([], "undo"),  # nothing to undo
    ([], "end"),  # no shot in progress
    ([], "confirm ²"),  # a Unicode digit is not an entry number
    ([], "zones North ³"),  # ...nor a zone value
    ([], "correct ¹ -"),
    ([], "confirm " + "9" * 5000),  # too long for int()
    (["shot zone"], "choose leave"),  # no failed declared twenty
    (["shot zone"], "zones North 15"),  # the game is not over
    (["shot zone"], "confirm"),  # no provisional twenty
    (["shot zone"], "in @sensor"),  # sensor evidence with no shot open
    (["shot zone"], "correct 7 -"),  # no entry 7
    (["shot zone"], "shot hit in in"),  # the shooting puck is already in the hole
    (["shot zone", "shot hit"], "shot hit South:ditch South:ditch"),  # South has one puck on the board
    (["shot zone", "shot hit"], "shot zone"),  # zone only matters on a free shot
    (["shot zone", "begin"], "shot hit"),  # North's shot is still open
    (["shot zone", "shot hit", "shot call"], "shot hit"),  # South must choose first (decision 3)
]


@pytest.mark.parametrize(("setup", "bad"), REFUSED, ids=[bad[:30] for _, bad in REFUSED])
def test_refused_input_is_journaled_counted_and_changes_nothing(tmp_path: Path, setup: list[str], bad: str) -> None:
    session = new_session(tmp_path)
    submit_all(session, setup)
    before = session.summary()
    state, stack = session.state, list(session.fold.stack)
    out = session.submit(bad)
    assert not out.accepted
    assert out.n == len(setup) + 1
    assert out.message
    after = session.summary()
    assert after["rejected_inputs"] == before["rejected_inputs"] + 1
    assert settled(after) == settled(before)
    assert session.state is state
    assert session.fold.stack == stack
    assert session.fold.rejected[-1] == (out.n, bad, out.message)
    rec = journal.read(session.journal.path).records[-1]
    assert (rec["n"], rec["in"]) == (out.n, bad)
    session.close()
    # The refusal is part of the record: a restart counts it again.
    resumed = Session.resume(session.journal.path)
    assert dump(resumed.summary()) == dump(after)
    resumed.close()


def test_undecodable_bytes_are_refused_and_journaled(tmp_path: Path) -> None:
    """What a terminal in surrogateescape mode hands over for invalid UTF-8 must be journaled and refused,
    not crash the bridge (bad input is refused, counted and never changes the score)."""
    session = new_session(tmp_path)
    submit_all(session, ["shot zone"])
    before = session.summary()
    out = session.submit("shot \udcff\udcfe hit")
    assert (out.n, out.accepted) == (2, False)
    assert settled(session.summary()) == settled(before)
    assert session.summary()["rejected_inputs"] == 1
    rec = journal.read(session.journal.path).records[-1]
    assert rec["n"] == 2 and rec["in"].startswith("shot ") and rec["in"].endswith(" hit")
    assert session.submit("shot hit").accepted
    live = dump(session.summary())
    session.close()
    resumed = Session.resume(session.journal.path)
    assert dump(resumed.summary()) == live
    resumed.close()


# ---------------------------------------------------------------- undo and corrections


def test_undo_masks_the_latest_entry_in_effect_repeatedly(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    lines = ["shot zone", "shot hit", "shot hit South:ditch"]
    submit_all(session, lines)
    session.submit("bogus")  # entry 4, refused: not in effect, so undo skips it
    for keep, undone in ((2, 3), (1, 2), (0, 1)):
        out = session.submit("undo")
        assert out.accepted, out.message
        assert out.message.startswith(f"undid entry {undone}:")
        assert settled(session.summary()) == settled(fold_summary(lines[:keep]))
    out = session.submit("undo")
    assert not out.accepted
    assert "nothing to undo" in out.message
    assert settled(session.summary()) == settled(fold_summary([]))
    assert session.summary()["rejected_inputs"] == 2
    # Nothing was edited: every line, undos included, is still in the journal.
    assert [r["in"] for r in journal.read(session.journal.path).records] == [
        *lines,
        "bogus",
        "undo",
        "undo",
        "undo",
        "undo",
    ]
    session.close()


def test_undo_then_new_input_continues_from_the_earlier_state(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    submit_all(session, ["shot zone", "shot hit", "undo", "shot miss"])
    assert settled(session.summary()) == settled(fold_summary(["shot zone", "shot miss"]))
    session.close()


def test_correct_replaces_an_entry_and_refolds_the_later_ones(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    submit_all(session, ["shot zone", "shot hit", "shot hit", "shot hit"])
    assert session.summary()["current"]["in_ditch"] == [0, 0]
    out = session.submit("correct 2 shot hit North:ditch")
    assert out.accepted, out.message
    assert out.n == 5
    assert out.message == "entry 2 now reads: shot hit North:ditch"
    expected = fold_summary(["shot zone", "shot hit North:ditch", "shot hit", "shot hit"])
    assert settled(session.summary()) == settled(expected)
    assert session.summary()["current"]["in_ditch"] == [1, 0]
    assert [a.n for a in session.fold.stack] == [1, 2, 3, 4]
    # A correction is an entry too: undo after it masks the latest entry in effect (entry 4).
    assert session.submit("undo").message.startswith("undid entry 4:")
    assert settled(session.summary()) == settled(fold_summary(["shot zone", "shot hit North:ditch", "shot hit"]))
    session.close()


def test_correct_dash_strikes_an_entry(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    submit_all(session, ["shot zone", "penalty South", "shot hit"])
    assert session.summary()["current"]["penalties"] == [0, 20]
    out = session.submit("correct 2 -")
    assert out.accepted, out.message
    assert "struck out" in out.message
    assert settled(session.summary()) == settled(fold_summary(["shot zone", "shot hit"]))
    assert [a.n for a in session.fold.stack] == [1, 3]
    session.close()


def test_correction_that_would_make_a_later_entry_illegal_is_refused(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    # Entry 3 knocks South's only puck into the ditch; if South's entry 2 had missed, there would be no
    # South puck to knock (and North's shot would be a free shot).
    submit_all(session, ["shot zone", "shot hit", "shot hit South:ditch"])
    before = session.summary()
    state, stack = session.state, list(session.fold.stack)
    out = session.submit("correct 2 shot miss")
    assert not out.accepted
    assert "entry 3" in out.message
    assert settled(session.summary()) == settled(before)
    assert session.summary()["rejected_inputs"] == 1
    assert session.state is state
    assert session.fold.stack == stack
    session.close()


@pytest.mark.parametrize(
    ("lines", "bad"),
    [
        (["shot zone", "shot hit", "undo"], "correct 2 shot miss"),  # entry 2 was undone
        (["shot zone", "shot hit", "undo"], "correct 3 -"),  # an undo is not an input in effect
        (["shot zone", "bogus", "shot hit"], "correct 2 shot hit"),  # entry 2 was refused
        (["shot zone"], "correct 1 undo"),  # a correction replaces with a plain input
        (["shot zone"], "correct 1 correct 1 -"),
        (["shot zone"], "correct 1 shot South"),  # not South's break
    ],
)
def test_correcting_an_entry_not_in_effect_is_refused(tmp_path: Path, lines: list[str], bad: str) -> None:
    session = new_session(tmp_path)
    for text in lines:
        session.submit(text)
    before = session.summary()
    out = session.submit(bad)
    assert not out.accepted
    assert settled(session.summary()) == settled(before)
    assert session.summary()["rejected_inputs"] == before["rejected_inputs"] + 1
    session.close()


# ---------------------------------------------------------------- sensor evidence


def sensor_in(session: Session, how: str, fact: str = "in") -> int:
    """Submit sensor evidence either as '@sensor' text or with source='sensor'; returns its entry."""
    out = session.submit(f"{fact} @sensor") if how == "text" else session.submit(fact, source="sensor")
    assert out.accepted, out.message
    return out.n


SENSOR_FORMS = ["text", "source"]


def current(session: Session) -> dict[str, Any]:
    cur = session.summary()["current"]
    assert isinstance(cur, dict)
    return cur


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_sensor_twenty_is_provisional_until_confirmed(tmp_path: Path, how: str) -> None:
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin"])
    n = sensor_in(session, how)
    assert n == 4
    cur = current(session)
    assert cur["provisional_twenties"] == [{"entry": 4, "side": "North"}]
    assert cur["twenties"] == [1, 0]
    assert cur["shot_open"] is True
    out = session.submit("confirm")
    assert out.accepted, out.message
    cur = current(session)
    assert cur["provisional_twenties"] == []
    assert cur["twenties"] == [1, 0]
    assert cur["shot_open"] is True
    assert not session.submit("confirm").accepted  # nothing left to confirm
    submit_all(session, ["end", "hit"])
    assert current(session)["twenties"] == [1, 0]
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_confirm_n_clears_only_that_twenty(tmp_path: Path, how: str) -> None:
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin"])
    first = sensor_in(session, how)
    second = sensor_in(session, how, "South:in")  # North knocked South's puck in as well
    assert current(session)["provisional_twenties"] == [
        {"entry": first, "side": "North"},
        {"entry": second, "side": "South"},
    ]
    assert current(session)["twenties"] == [1, 1]
    assert session.submit(f"confirm {second}").accepted
    assert current(session)["provisional_twenties"] == [{"entry": first, "side": "North"}]
    out = session.submit(f"confirm {second}")
    assert not out.accepted
    assert f"entry {second} is not a provisional twenty" in out.message
    assert session.submit(f"confirm {first}").accepted
    assert current(session)["provisional_twenties"] == []
    assert current(session)["twenties"] == [1, 1]
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_the_end_of_the_shot_makes_a_sensor_twenty_final(tmp_path: Path, how: str) -> None:
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin", "hit"])
    sensor_in(session, how)
    assert len(current(session)["provisional_twenties"]) == 1
    submit_all(session, ["end"])
    cur = current(session)
    assert cur["provisional_twenties"] == []
    assert cur["twenties"] == [1, 0]
    assert cur["shot_open"] is False
    assert cur["to_shoot"] == "South"
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_sensor_twenty_stays_provisional_while_the_shot_asks_a_question(tmp_path: Path, how: str) -> None:
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin"])
    n = sensor_in(session, how)
    submit_all(session, ["end"])
    doc = session.summary()
    assert [q["kind"] for q in doc["questions"]] == ["contact"]
    assert doc["current"]["provisional_twenties"] == [{"entry": n, "side": "North"}]
    submit_all(session, ["hit"])
    assert current(session)["provisional_twenties"] == []
    assert current(session)["twenties"] == [1, 0]
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_correcting_a_sensor_twenty_to_the_opponents_puck_moves_it(tmp_path: Path, how: str) -> None:
    """docs/transcript.md: 'correct 14 Ben:in' - the shooter knocked one of the opponent's pucks in."""
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin"])
    n = sensor_in(session, how)
    assert current(session)["on_board"] == [1, 1]  # North's shooting puck is on the rail
    out = session.submit(f"correct {n} South:in")
    assert out.accepted, out.message
    cur = current(session)
    assert cur["twenties"] == [0, 1]
    assert cur["on_board"] == [2, 0]  # North's puck is back on the board, South's went in
    # A player's correction settles the evidence: the twenty is no longer provisional.
    assert cur["provisional_twenties"] == []
    submit_all(session, ["end", "hit"])
    cur = current(session)
    assert cur["twenties"] == [0, 1]
    assert cur["to_shoot"] == "South"
    assert cur["shot_kind"] == "contact"
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_correcting_a_sensor_twenty_to_edge_removes_it(tmp_path: Path, how: str) -> None:
    """A-4: a puck standing on edge in the hole is not a twenty; it stays on the board (15 zone)."""
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin"])
    n = sensor_in(session, how)
    out = session.submit(f"correct {n} edge")
    assert out.accepted, out.message
    cur = current(session)
    assert cur["twenties"] == [0, 0]
    assert cur["on_board"] == [2, 1]
    assert cur["provisional_twenties"] == []
    submit_all(session, ["end", "hit"])
    assert current(session)["twenties"] == [0, 0]
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
def test_entries_in_effect_remember_sensor_evidence_however_it_was_marked(tmp_path: Path, how: str) -> None:
    """The stack is what `export --transcript` writes back ('@sensor' when the source is the sensor): both
    ways of marking evidence must survive that round trip, provisional twenty included."""
    session = new_session(tmp_path)
    submit_all(session, [*OPENING, "begin"])
    sensor_in(session, how)
    assert [a.source for a in session.fold.stack] == ["manual", "manual", "manual", "sensor"]
    lines = [session.game.format(a.line) + (" @sensor" if a.source == "sensor" else "") for a in session.fold.stack]
    assert lines[-1] == "in @sensor"
    assert dump(fold_summary(lines)) == dump(session.summary())
    session.close()


@pytest.mark.parametrize("how", SENSOR_FORMS)
@pytest.mark.parametrize("fact", ["in", "hit", "ditch", "South:in"])
def test_sensor_evidence_with_no_shot_open_is_refused(tmp_path: Path, how: str, fact: str) -> None:
    session = new_session(tmp_path)
    submit_all(session, OPENING)
    before = session.summary()
    out = session.submit(f"{fact} @sensor") if how == "text" else session.submit(fact, source="sensor")
    assert not out.accepted
    assert "no shot in progress" in out.message
    assert settled(session.summary()) == settled(before)
    assert session.summary()["rejected_inputs"] == 1
    # The same words typed by a person are a whole shot.
    assert session.submit(fact).accepted
    session.close()


# ---------------------------------------------------------------- resume

EVERYTHING: list[str | tuple[str, Source]] = [
    "shot zone",
    "bogus",
    "shot hit",
    "begin",
    "in @sensor",
    "correct 5 South:in",
    "end",
    "hit",
    "shot South call",
    "choose ditch",
    "undo",
    "choose leave",
    "penalty North",
    "correct 13 penalty South",
    "shot hit South:off",
    "begin",
    ("in", "sensor"),
    ("North:in", "sensor"),  # South knocks a North puck in
    "confirm 18",
    "in @sensor",  # refused: the shooting puck is already in the hole
]


def run_everything(session: Session) -> None:
    for item in EVERYTHING:
        if isinstance(item, str):
            session.submit(item)
        else:
            session.submit(*item)


def test_resume_gives_the_same_summary_as_the_live_session(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    run_everything(session)
    live = session.summary()
    assert live["rejected_inputs"] == 2
    assert live["current"]["provisional_twenties"] == [{"entry": 17, "side": "South"}]
    stack = [(a.n, a.line, a.source) for a in session.fold.stack]
    rejected = list(session.fold.rejected)
    path = session.journal.path
    session.close()
    resumed = Session.resume(path)
    assert resumed.journal.torn is None
    assert json.dumps(resumed.summary(), sort_keys=True) == json.dumps(live, sort_keys=True)
    assert [(a.n, a.line, a.source) for a in resumed.fold.stack] == stack
    assert resumed.fold.rejected == rejected
    # The resumed session carries on numbering where the journal left off.
    out = resumed.submit("end")
    assert out.n == len(EVERYTHING) + 1
    resumed.close()


def test_resume_sets_aside_a_torn_last_record(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    run_everything(session)
    live = dump(session.summary())
    path = session.journal.path
    session.close()
    # A crash in the middle of writing entry 21: half a line, no newline.
    good_size = os.path.getsize(path)
    half = b'{"at":"2026-11-22T10:00:00.000000Z","crc":"00000000","in":"end","n":21,"sr'
    with open(path, "ab") as f:
        f.write(half)
    assert journal.read(path).torn_bytes == len(half)
    resumed = Session.resume(path)
    torn = resumed.journal.torn
    assert torn is not None
    assert (torn.offset, torn.length) == (good_size, len(half))
    assert Path(torn.saved_to).read_bytes() == half
    assert os.path.getsize(path) == good_size
    records = journal.read(path).records
    assert len(records) == len(EVERYTHING)
    game = resumed.game
    fold = fold_entries(game, [(r["n"], r["in"], r["src"]) for r in records])
    assert dump(resumed.summary()) == dump(game.summary(fold.state, len(fold.rejected))) == live
    # The torn entry never happened; the next input takes its number.
    out = resumed.submit("end")
    assert out.n == len(EVERYTHING) + 1
    assert journal.read(path).torn_bytes == 0
    resumed.close()


def test_resume_refuses_a_journal_of_an_unknown_game_or_a_broken_set_up(tmp_path: Path) -> None:
    path = str(tmp_path / "other.jsonl")
    journal.Journal.create(path, {"game": "chess", "header": {}}).close()
    with pytest.raises(ValueError, match="not a scoring session of a game this version knows"):
        Session.resume(path)
    # The lock was released: the journal can be opened again.
    journal.Journal.open(path).close()
    broken = str(tmp_path / "broken.jsonl")
    journal.Journal.create(broken, {"game": "flicochet", "header": {}}).close()
    with pytest.raises(ValueError, match="needs a Players tag"):
        Session.resume(broken)
    journal.Journal.open(broken).close()


# --- a long match: the session holds only the newest entries in effect ---------------------------------------


def long_match(tmp_path: Path) -> tuple[Session, list[str]]:
    """A session of several random games, far more entries than Session.KEEP."""
    from flickboard.rules.transcript import parse_transcript
    from flickboard.sim.random_game import random_match

    text = random_match(11, "tournament-2019", PLAYERS, match="games:10")
    lines = [t for _, t in parse_transcript(text).lines]
    assert len(lines) > 3 * Session.KEEP
    session = Session.create(
        str(tmp_path / "long.jsonl"), Pichenotte.create("tournament-2019", PLAYERS, match="games:10")
    )
    submit_all(session, lines)
    return session, lines


def full_fold_summary(session: Session) -> dict[str, Any]:
    """What folding the whole journal from the start gives (nothing trimmed)."""
    from flickboard.core.session import fold_records

    fold = fold_records(session.game, journal.read(session.journal.path).records)
    return session.game.summary(fold.state, len(fold.rejected))


def entries_summary(session: Session, lines: list[str]) -> dict[str, Any]:
    """The summary of a fresh fold of these lines in the session's game."""
    fold = fold_entries(session.game, [(i, text, "manual") for i, text in enumerate(lines, 1)])
    return session.game.summary(fold.state, len(fold.rejected))


def test_a_long_match_keeps_a_bounded_stack_and_the_same_state(tmp_path: Path) -> None:
    session, lines = long_match(tmp_path)
    assert len(session.fold.stack) < 2 * Session.KEEP and session.fold.base > 0
    assert session.fold.base + len(session.fold.stack) == len(lines)
    assert dump(session.summary()) == dump(full_fold_summary(session))
    session.close()
    resumed = Session.resume(str(tmp_path / "long.jsonl"))
    assert len(resumed.fold.stack) < 2 * Session.KEEP
    assert dump(resumed.summary()) == dump(full_fold_summary(resumed))
    resumed.close()


def test_undo_reaches_below_the_entries_held(tmp_path: Path) -> None:
    """Undo after undo goes back past what the session holds in memory: it folds the journal again, and every
    step gives what a fold of the whole journal gives."""
    session, lines = long_match(tmp_path)
    held = len(session.fold.stack)
    for i in range(held + 5):
        out = session.submit("undo")
        assert out.accepted, (i, out.message)
        if i in (held - 1, held, held + 4):
            assert dump(session.summary()) == dump(full_fold_summary(session))
    assert dump(settled(session.summary())) == dump(settled(entries_summary(session, lines[: -(held + 5)])))
    session.close()


def test_an_old_entry_can_still_be_corrected(tmp_path: Path) -> None:
    """`correct 1 ...` in a long match: entry 1 is long gone from memory, not from the journal."""
    session, lines = long_match(tmp_path)
    out = session.submit(f"correct 1 {lines[0]}")
    assert out.accepted, out.message
    assert dump(settled(session.summary())) == dump(settled(entries_summary(session, lines)))
    assert dump(session.summary()) == dump(full_fold_summary(session))
    out = session.submit("correct 99999 shot miss")
    assert not out.accepted and "not in effect" in out.message
    session.close()


def test_a_journal_with_undos_and_corrections_far_back_resumes(tmp_path: Path) -> None:
    """A restart folds the journal holding only the newest entries, like the live session. An entry that reaches
    further back than that (a run of undos, a correction of an early entry, accepted or refused) must not stop the
    restart: the fold takes it as a live session does, by folding what came before it in full."""
    session, lines = long_match(tmp_path)
    assert session.submit(f"correct 1 {lines[0]}").accepted
    refused = session.submit("correct 2 shot miss Ana:ditch Ana:ditch Ana:ditch")
    assert not refused.accepted
    held = len(session.fold.stack)
    for _ in range(held + 3):
        assert session.submit("undo").accepted
    assert session.submit(lines[-(held + 3)]).accepted
    expected = dump(full_fold_summary(session))
    assert dump(session.summary()) == expected
    session.close()
    resumed = Session.resume(str(tmp_path / "long.jsonl"))
    assert dump(resumed.summary()) == expected
    assert len(resumed.fold.stack) < 2 * Session.KEEP and resumed.fold.base > 0
    assert resumed.fold.rejected == full_fold(resumed).rejected
    resumed.close()


def full_fold(session: Session) -> Any:
    from flickboard.core.session import fold_records

    return fold_records(session.game, journal.read(session.journal.path).records)


def test_a_fold_leaves_no_reference_cycles_and_the_collector_as_it_found_it(tmp_path: Path) -> None:
    """The fold pauses the cyclic garbage collector while it runs. That is only sound if nothing it makes needs
    that collector; and the collector must be on again afterwards, also when a fold fails."""
    import gc

    from flickboard.core.session import fold_records

    session, _ = long_match(tmp_path)
    records = journal.read(session.journal.path).records
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        fold = fold_records(session.game, records, Session.KEEP)
        assert gc.isenabled()
        del fold
        gc.collect()
        ours = [o for o in gc.garbage if type(o).__module__.startswith(("rules", "host"))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert ours == []
    with pytest.raises(KeyError):
        fold_records(session.game, [{"src": "board"}])  # a record without its fields
    assert gc.isenabled()
    gc.disable()
    try:
        fold_records(session.game, records[:10])
        assert not gc.isenabled()  # a caller that had paused it keeps it paused
    finally:
        gc.enable()
    session.close()


# ---------------------------------------------------------------- holds (issue 19)


def test_a_hold_is_journaled_holds_the_sensor_queue_and_reviewed_clears_it(tmp_path: Path) -> None:
    s = new_session(tmp_path)
    out = s.hold("board t1 seems to have two boots alive: check it", {"hold": "two-boots", "boots": [7, 99]})
    assert out.accepted and out.n == 1 and s.fold.review == [(1, "board t1 seems to have two boots alive: check it")]
    s.record("t1", 7, 1, "shot_start", {"n": "baseline", "q": 1, "seg": 1})
    assert len(s.fold.queue) == 1  # a sensor event waits behind the hold
    [rec] = [r for r in s.journal.records if r["src"] == "bridge"]
    assert rec["in"].startswith("hold board t1") and rec["boots"] == [7, 99]
    s.close()
    again = Session.resume(str(tmp_path / "j.jsonl"))  # the hold is part of the truth: back after a restart
    assert again.fold.review == [(1, "board t1 seems to have two boots alive: check it")] and len(again.fold.queue) == 1
    assert again.submit("reviewed").accepted and again.fold.review == [] and again.fold.queue == []
    assert not again.submit("hold").accepted  # a hold says why


def test_resume_with_a_damaged_line_holds_the_game_once_and_reads_the_rest(tmp_path: Path) -> None:
    s = new_session(tmp_path)
    submit_all(s, [*OPENING, "shot miss"])
    s.close()
    path = tmp_path / "j.jsonl"
    data = path.read_bytes()
    at = data.index(b'"in":"shot hit"') + 11
    path.write_bytes(data[:at] + b"H" + data[at + 1 :])  # "shot hit" -> "shot Hit": the checksum fails
    with pytest.raises(JournalError, match="damaged at line 3"):
        Session.resume(str(path))  # refused unless the caller takes damage (the bridge does)
    again = Session.resume(str(path), damaged_ok=True)
    assert [n for n, _, _ in again.fold.rejected] == [] and again.journal.count == 4
    [(n, why)] = again.fold.review
    assert n == 4 and "line 3 of the journal is damaged" in why and "it seems to read 'shot Hit'" in why
    again.close()
    third = Session.resume(str(path), damaged_ok=True)
    assert len(third.fold.review) == 1 and third.journal.count == 4  # not held a second time
    third.close()


def _flood(s: Session, count: int, boot: int = 7) -> None:
    """`count` board events of a real game's kinds, journaled in one group commit (as the bridge does under a flood)."""
    for i in range(count):  # a shot with a twenty, then beams flickering: notes in order, no question asked
        if i < 2:
            kind, fields = [
                ("shot_start", {"n": "baseline", "q": 1, "seg": 3}),
                ("pass", {"n": "hole", "dur_us": 900}),
            ][i]
        else:
            kind, fields = "chatter", {"n": "ditch", "bursts": i, "edges": 2 * i}
        s.record("t1", boot, i + 1, kind, fields, 1000 * i, sync=False)
    s.journal.sync()


def _unbounded(path: str) -> Fold:
    """The same journal folded with every waiting event in memory (no reader): the fold as it was before."""
    snap = journal.read(path)
    fold = Fold(make_game(), make_game().start())
    for r in snap.records:
        _fold_record(fold, r)
    return fold


def test_a_review_holds_a_bounded_window_in_memory_and_reads_the_rest_back_in_order(tmp_path: Path) -> None:
    """Issue 19: while a review was open, every later board event stayed in memory (300,000 events: 217 MB, all held
    again on resume). Now at most Fold.QUEUE_WINDOW wait in memory; the rest is read back from the journal, in
    order, when the review clears: the same game as with everything in memory."""
    s = new_session(tmp_path)
    s.record("t1", 6, 1, "stuck", {"n": "hole", "after_ms": 3000})  # a review: "beam hole is blocked"
    _flood(s, 5000)
    assert len(s.fold.queue) == 1024  # was 5000: every waiting event in memory
    assert Fold.QUEUE_WINDOW == 1024 and s.fold.spilled == 5000 - 1024
    assert scoreboard_doc("t1", s, {}, "now")["queued"] == 5000  # what the displays say still waits
    path = str(tmp_path / "j.jsonl")
    s.close()
    again = Session.resume(path)  # held again on resume: the same window, not every event
    assert len(again.fold.queue) == Fold.QUEUE_WINDOW and again.fold.waiting_events == 5000
    out = again.submit("reviewed")
    assert out.accepted
    ref = _unbounded(path)
    assert dump(again.summary()) == dump(ref.game.summary(ref.state, len(ref.rejected)))
    assert again.fold.review == ref.review == [] and again.fold.waiting_events == len(ref.queue) == 0
    assert again.fold.sensor_events == ref.sensor_events == 5001
    assert again.fold.notes[-1][0] == 5001 and "(4999 burst(s)" in again.fold.notes[-1][1]  # the last, read back
    assert again.fold.notes == ref.notes and again.fold.evidence == ref.evidence
    again.close()


def test_a_board_whose_strip_sees_none_of_the_pucks_is_said_plainly(tmp_path: Path) -> None:
    """Issue 33: pucks without a magnet (a player's own set) are invisible to the baseline strip, and nothing told the
    scorer: shots simply did not start. A board whose hello lists a strip, whose beams see pucks while its strip sends
    nothing, is now named on the scoreboard (`strip_unseen`, and a note), from the journal alone (a replay says the
    same); one strip event clears it. A board without a strip never says it."""
    s = new_session(tmp_path)
    sn = [{"n": "hole", "k": "beam"}, {"n": "ditch1", "k": "beam"}, {"n": "baseline", "k": "hall", "c": 128}]
    s.record("t1", 4, 1, "hello", {"fw": "1.0", "prof": "pico_w", "sn": sn, "rst": "power"})
    assert s.submit("begin North").accepted  # the scorer starts the shots by hand: the strip said nothing
    s.record("t1", 4, 2, "pass", {"n": "hole", "dur_us": 900})
    s.record("t1", 4, 3, "pass", {"n": "ditch1", "dur_us": 4000})
    assert scoreboard_doc("t1", s, {}, "now")["strip_unseen"] is None  # two pucks: not yet
    s.record("t1", 4, 4, "pass", {"n": "hole", "dur_us": 800})
    said = scoreboard_doc("t1", s, {}, "now")["strip_unseen"]
    assert said is not None and "strip has seen no puck while the beams saw 3" in said and "begin PLAYER" in said
    assert [t for _, t in s.fold.notes if "strip has seen no puck" in t] == [said]
    from flickboard.displays.terminal import big_view

    assert "PUCKS NOT SEEN: the board's baseline strip" in big_view(scoreboard_doc("t1", s, {}, "now"), width=200)
    path = str(tmp_path / "j.jsonl")
    s.close()
    again = Session.resume(path)
    assert scoreboard_doc("t1", again, {}, "now")["strip_unseen"] == said  # the journal says it again
    again.record("t1", 4, 5, "shot_start", {"n": "baseline", "q": 3, "seg": 70})  # the strip sees a puck
    assert scoreboard_doc("t1", again, {}, "now")["strip_unseen"] is None
    again.close()

    (tmp_path / "plain").mkdir()
    plain = new_session(tmp_path / "plain")
    plain.record("t2", 1, 1, "hello", {"fw": "1.0", "prof": "beams", "sn": sn[:2], "rst": "power"})
    for k in range(5):
        plain.record("t2", 1, 2 + k, "pass", {"n": "hole", "dur_us": 900})
    assert scoreboard_doc("t2", plain, {}, "now")["strip_unseen"] is None
    plain.close()
