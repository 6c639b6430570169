"""Tests for flickboard.core.journal: format, torn-tail recovery, corruption, locking, real crashes."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fuzz import targets

from flickboard.core.journal import Journal, JournalCorrupt, JournalError, JournalInUse, read

WRITER = Path(__file__).resolve().parents[1] / "support" / "journal_writer.py"
_spec = importlib.util.spec_from_file_location("journal_writer", WRITER)
assert _spec is not None and _spec.loader is not None
_writer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_writer)
entry_for: Callable[[int], dict[str, Any]] = _writer.entry_for

SETUP: dict[str, Any] = {"players": ["Ann", "Bo"], "target": 100, "note": "café ✓"}
ENTRIES: list[dict[str, Any]] = [
    {"src": "manual", "in": "shot hit", "at": "2026-11-22T10:00:00Z"},
    {"src": "camera", "in": "shot miss", "at": "2026-11-22T10:00:05Z", "conf": 0.5},
    {"src": "manual", "in": "undo", "at": "2026-11-22T10:00:09Z", "extra": [1, None, True]},
]


# An independent implementation of the on-disk format, straight from the spec.
def canonical(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def line(obj: dict[str, Any]) -> bytes:
    crc = f"{zlib.crc32(canonical(obj).encode('utf-8')):08x}"
    return (canonical({**obj, "crc": crc}) + "\n").encode("utf-8")


def header() -> dict[str, Any]:
    return {"n": 0, "kind": "flickboard-journal", "version": 1, "setup": SETUP}


def make_journal(tmp_path: Path, count: int = 3) -> str:
    path = str(tmp_path / "game.jsonl")
    with Journal.create(path, SETUP) as j:
        for entry in ENTRIES[:count]:
            j.append(entry)
    return path


def expect_corrupt(path: str, *fragments: str) -> None:
    def side_files() -> list[str]:
        return sorted(f for f in os.listdir(os.path.dirname(path)) if ".torn-" in f)

    before = side_files()
    data = Path(path).read_bytes()
    with pytest.raises(JournalCorrupt) as info:
        Journal.open(path)
    for fragment in fragments:
        assert fragment in str(info.value)
    assert Path(path).read_bytes() == data
    assert side_files() == before  # nothing set aside either


def test_round_trip(tmp_path: Path) -> None:
    path = str(tmp_path / "game.jsonl")
    with Journal.create(path, SETUP) as j:
        assert [j.append(e) for e in ENTRIES] == [1, 2, 3]
        assert j.records == [{**e, "n": i} for i, e in enumerate(ENTRIES, 1)]
    with Journal.open(path) as j:
        assert j.header == SETUP
        assert j.records == [{**e, "n": i} for i, e in enumerate(ENTRIES, 1)]
        assert j.torn is None
        assert j.append({"src": "manual", "in": "end"}) == 4
    raw = Path(path).read_bytes()
    expected = [header()] + [{**e, "n": i} for i, e in enumerate(ENTRIES, 1)]
    expected.append({"src": "manual", "in": "end", "n": 4})
    assert raw == b"".join(line(r) for r in expected)  # canonical lines with spec crc
    assert all('"crc":"' in text for text in raw.decode("utf-8").splitlines())


def test_create_refuses_existing_file_and_open_refuses_missing(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    data = Path(path).read_bytes()
    with pytest.raises(JournalError, match="already exists"):
        Journal.create(path, {})
    assert Path(path).read_bytes() == data
    with pytest.raises(JournalError, match="does not exist"):
        Journal.open(str(tmp_path / "nope.jsonl"))


def test_torn_tail_is_set_aside(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    good = Path(path).read_bytes()
    fragment = line({"src": "manual", "in": "shot hit ✓", "n": 4})[:25]
    with open(path, "ab") as f:
        f.write(fragment)
    with Journal.open(path) as j:
        assert [r["n"] for r in j.records] == [1, 2, 3]
        assert j.torn is not None
        assert (j.torn.offset, j.torn.length) == (len(good), len(fragment))
        assert j.torn.saved_to == f"{path}.torn-{len(good)}"
        message = j.torn.message()
        assert f"{len(fragment)} bytes at offset {len(good)}" in message
        assert j.torn.saved_to in message and "incomplete" in message
        assert Path(j.torn.saved_to).read_bytes() == fragment
        assert Path(path).read_bytes() == good  # ends at the last good newline
        assert j.append({"src": "manual", "in": "again"}) == 4
    with Journal.open(path) as j:
        assert j.torn is None
        assert j.records[-1] == {"src": "manual", "in": "again", "n": 4}


def test_same_torn_offset_twice_keeps_both_fragments(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    saved = []
    for fragment in (b'{"n":4,"sr', b'{"n":4,"src":"x'):
        with open(path, "ab") as f:
            f.write(fragment)
        with Journal.open(path) as j:
            assert j.torn is not None
            saved.append(j.torn.saved_to)
    assert saved[0] != saved[1]
    assert [Path(p).read_bytes() for p in saved] == [b'{"n":4,"sr', b'{"n":4,"src":"x']


def flip(path: str, line_index: int) -> None:
    lines = Path(path).read_bytes().splitlines(keepends=True)
    target = lines[line_index]
    at = target.index(b'"in":"') + 6  # a character inside a string value: still valid JSON
    lines[line_index] = target[:at] + bytes([target[at] ^ 0x01]) + target[at + 1 :]
    Path(path).write_bytes(b"".join(lines))


def test_crc_mismatch_on_the_complete_last_line_is_damage_not_a_torn_write(tmp_path: Path) -> None:
    """Issue 19: one flipped byte in the last, complete (acknowledged) line was set aside as 'incomplete, never
    acknowledged'. A line that ends with its newline was written whole: it is damage, and nothing is cut off."""
    path = make_journal(tmp_path)
    flip(path, 3)
    expect_corrupt(path, "line 4", "checksum", "damage, not a torn write")
    data = Path(path).read_bytes()
    damaged = data.splitlines(keepends=True)[3]
    with Journal.open(path, damaged_ok=True) as j:
        assert j.torn is None
        assert [r["n"] for r in j.records] == [1, 2] and j.count == 3
        [d] = j.damaged
        assert (d.line, d.offset, d.length) == (4, len(data) - len(damaged), len(damaged))
        assert d.saved_to is not None and Path(d.saved_to).read_bytes() == damaged
        assert d.seen is not None and d.seen["n"] == 3  # what it seems to say, for the person who checks
        assert "line 4" in d.message(path) and "left out" in d.message(path)
        assert j.append({"src": "manual", "in": "four"}) == 4  # its number is not given again
    assert Path(path).read_bytes().startswith(data)  # the damaged line is still where it was
    with Journal.open(path, damaged_ok=True) as j:  # opened again: the same damage, the copy kept as it is
        assert [r["n"] for r in j.records] == [1, 2, 4] and [d.line for d in j.damaged] == [4]


def test_damaged_middle_lines_and_a_missing_record_are_listed_and_the_rest_is_read(tmp_path: Path) -> None:
    path = str(tmp_path / "game.jsonl")
    records = [header()] + [{"src": "manual", "in": f"entry {i}", "n": i} for i in range(1, 8)]
    lines = [line(r) for r in records]
    lines[2] = lines[2].replace(b"entry 2", b"entry X")  # checksum fails
    lines[3] = b"\x00\xff garbage\n"  # not JSON at all
    del lines[6]  # record 6 is missing: record 7 follows record 5
    Path(path).write_bytes(b"".join(lines))
    with Journal.open(path, damaged_ok=True) as j:
        assert [r["n"] for r in j.records] == [1, 4, 5, 7] and j.count == 7
        assert [(d.line, d.length > 0) for d in j.damaged] == [(3, True), (4, True), (7, False)]
        assert "checksum" in j.damaged[0].reason and "record 6 is missing" in j.damaged[2].reason
        assert j.damaged[1].seen is None and j.damaged[0].seen is not None
    snap = read(path, damaged_ok=True)
    assert [r["n"] for r in snap.records] == [1, 4, 5, 7] and len(snap.damaged) == 3


def test_crc_mismatch_in_middle_is_corrupt(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    flip(path, 2)
    expect_corrupt(path, "line 3", "checksum")


def test_garbage_line_in_middle_is_corrupt(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    lines = Path(path).read_bytes().splitlines(keepends=True)
    Path(path).write_bytes(lines[0] + lines[1] + b'{"n":2,"sr\n' + lines[3])
    expect_corrupt(path, "line 3", "not valid")


@pytest.mark.parametrize("missing", [1, 2, 3])
def test_n_gap_is_corrupt(tmp_path: Path, missing: int) -> None:
    path = str(tmp_path / "game.jsonl")
    records = [header()] + [{**e, "n": i} for i, e in enumerate(ENTRIES, 1)]
    records.append({"src": "manual", "in": "four", "n": 4})
    del records[missing]  # intact lines, even the last one: not a torn tail
    Path(path).write_bytes(b"".join(line(r) for r in records))
    expect_corrupt(path, f"line {missing + 1}", f"expected record n={missing}")


@pytest.mark.parametrize(
    "content",
    [
        b"",
        line(header())[:30],
        line(header())[:-1],
        line({"src": "manual", "in": "shot hit", "n": 1}),
        line({**header(), "kind": "something-else"}),
        line({**header(), "version": 2}),
        line({**header(), "setup": "not an object"}),
    ],
    ids=["empty", "torn-header", "header-no-newline", "no-header", "kind", "version", "setup"],
)
def test_missing_or_bad_header_is_corrupt(tmp_path: Path, content: bytes) -> None:
    path = str(tmp_path / "game.jsonl")
    Path(path).write_bytes(content)
    expect_corrupt(path, "line 1" if content.endswith(b"\n") else "no complete header")


def test_lock_excludes_a_second_opener(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    first = Journal.open(path)
    in_use = f"in use by another flickboard process \\(pid {os.getpid()}\\)"
    with pytest.raises(JournalInUse, match=in_use):
        Journal.open(path)
    with pytest.raises(JournalInUse):
        Journal.create(path, {})
    first.close()
    with Journal.open(path) as again:
        assert len(again.records) == 3


def test_an_opener_may_wait_for_a_holder_that_lets_go(tmp_path: Path) -> None:
    """`wait`: another process appends for a moment (the tournament's hall); the opener waits for it, and only a
    holder that keeps the lock past the wait is in use."""
    path = make_journal(tmp_path)
    first = Journal.open(path)
    with pytest.raises(JournalInUse):
        Journal.open(path, wait=0.2)
    threading.Timer(0.3, first.close).start()
    with Journal.open(path, wait=5) as after:
        assert len(after.records) == 3


def test_lock_held_by_another_process(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[2]); from flickboard.core.journal import Journal; "
            "j = Journal.open(sys.argv[1]); print('held', flush=True); sys.stdin.read()",
            path,
            str(Path(__file__).resolve().parents[2]),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(JournalInUse, match=f"pid {holder.pid}\\)"):
            Journal.open(path)
    finally:
        holder.communicate(timeout=5)
    with Journal.open(path) as j:
        assert j.append({"in": "after"}) == 4


@pytest.mark.parametrize(
    "bad",
    [{"in": object()}, {"in": float("nan")}, {"in": "\ud800"}, {"n": 7}, {"crc": "0"}],
    ids=["object", "nan", "lone-surrogate", "sets-n", "sets-crc"],
)
def test_append_refuses_unencodable_entries(tmp_path: Path, bad: dict[str, Any]) -> None:
    path = make_journal(tmp_path)
    data = Path(path).read_bytes()
    with Journal.open(path) as j:
        with pytest.raises(JournalError):
            j.append(bad)
        assert Path(path).read_bytes() == data
        assert j.append({"in": "fine"}) == 4
        assert len(j.records) == 4


def test_append_after_close_is_refused(tmp_path: Path) -> None:
    path = make_journal(tmp_path)
    j = Journal.open(path)
    j.close()
    j.close()  # idempotent
    with pytest.raises(JournalError, match="closed"):
        j.append({"in": "late"})


# --- real crashes: a subprocess appends, we SIGKILL it, then recover ---------------


def start_writer(path: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), path, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_and_collect(proc: subprocess.Popen[str], seen: list[str]) -> set[int]:
    proc.send_signal(signal.SIGKILL)
    rest, err = proc.communicate(timeout=10)
    assert proc.returncode in (-signal.SIGKILL, 0), err
    out = seen + rest.splitlines()
    return {int(text.split()[1]) for text in out if text.startswith("ack ")}


def check_recovered(path: str, acked: set[int]) -> None:
    with Journal.open(path) as j:
        assert j.header == {"test": "crash"}
        ns = [r["n"] for r in j.records]
        assert ns == list(range(1, len(ns) + 1))  # a gap-free prefix
        assert max(acked, default=0) <= len(ns)  # every acknowledged entry survived
        for r in j.records:  # with its exact content
            assert r == {**entry_for(r["n"]), "n": r["n"]}
        if j.torn is not None:
            assert j.torn.length > 0 and j.torn.offset == os.path.getsize(path)
            assert os.path.getsize(j.torn.saved_to) == j.torn.length
            assert str(j.torn.offset) in j.torn.message()
        assert j.append(entry_for(len(ns) + 1)) == len(ns) + 1


@pytest.mark.parametrize("k", [1, 7, 50])
def test_crash_after_k_acks(tmp_path: Path, k: int) -> None:
    path = str(tmp_path / "crash.jsonl")
    proc = start_writer(path, k + 200)
    seen: list[str] = []
    assert proc.stdout is not None
    while f"ack {k}" not in seen:
        text = proc.stdout.readline()
        assert text, f"writer stopped early: {proc.communicate()[1]}"
        seen.append(text.strip())
    acked = kill_and_collect(proc, seen)
    assert set(range(1, k + 1)) <= acked
    check_recovered(path, acked)


def test_crash_at_random_points(tmp_path: Path) -> None:
    """One journal, 20 kills at seeded random moments (some during open/recovery)."""
    rng = random.Random(20261122)
    path = str(tmp_path / "crash.jsonl")
    Journal.create(path, {"test": "crash"}).close()
    acked: set[int] = set()
    for i in range(20):
        proc = start_writer(path, 300)
        seen: list[str] = []
        if i % 2 == 0:  # somewhere in the stream of appends
            assert proc.stdout is not None
            seen.append(proc.stdout.readline().strip())
            time.sleep(rng.uniform(0, 0.01))
        else:  # anywhere, including start-up and torn-tail recovery
            time.sleep(rng.uniform(0, 0.08))
        acked |= kill_and_collect(proc, seen)
        check_recovered(path, acked)


# --- group commit: many appends, one fsync ---------------------------------------------------------------------


def test_entries_appended_without_sync_are_durable_after_sync(tmp_path: Path) -> None:
    path = str(tmp_path / "group.jsonl")
    with Journal.create(path, SETUP) as j:
        assert [j.append(e, sync=False) for e in ENTRIES] == [1, 2, 3]
        j.sync()
        j.sync()  # nothing more to do
        assert j.count == 3
    with Journal.open(path) as j:
        assert [r["in"] for r in j.records] == [e["in"] for e in ENTRIES]
    assert Path(path).read_bytes().splitlines()[1:] == [
        line({**e, "n": i}).rstrip(b"\n") for i, e in enumerate(ENTRIES, 1)
    ]


def test_a_failed_sync_cuts_off_every_entry_since_the_last_good_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "group.jsonl")
    j = Journal.create(path, SETUP)
    j.append(ENTRIES[0])
    durable = Path(path).read_bytes()
    j.append(ENTRIES[1], sync=False)
    j.append(ENTRIES[2], sync=False)

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device (injected)")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(JournalError, match="entries 2 to 3 could not be written"):
        j.sync()
    monkeypatch.undo()
    assert Path(path).read_bytes() == durable
    with pytest.raises(JournalError, match="closed"):
        j.append(ENTRIES[1])
    with Journal.open(path) as again:
        assert again.count == 1 and again.torn is None


def test_records_are_read_back_from_the_file_once_entries_are_appended(tmp_path: Path) -> None:
    """A live journal keeps no entry in memory after its first append; `records` still gives them all."""
    path = make_journal(tmp_path, 2)
    with Journal.open(path) as j:
        assert len(j.records) == 2
        j.append(ENTRIES[2])
        assert [r["n"] for r in j.records] == [1, 2, 3] and j.records[-1]["extra"] == [1, None, True]


@pytest.mark.parametrize(
    "entry",
    [
        {"src": "board", "board": "t-1", "bt": 3, "s": 9, "m": "pass", "f": {"n": "hole", "dur_us": 800}, "t": 5},
        {"in": 'say "hi" \\ then\ttab', "src": "manual", "ok": True, "none": None, "big": 2**70, "neg": -4},
        {"in": "café ✓ 𝄞", "ctl": "\x00\x1f\x7f", "list": [1, "a", {"z": 1, "a": [True]}], "": ""},
    ],
)
def test_each_line_is_the_canonical_json_of_its_record(tmp_path: Path, entry: dict[str, Any]) -> None:
    """The journal builds its lines itself; each must be exactly the spec's canonical JSON (an independent
    implementation above) with its CRC."""
    path = str(tmp_path / "canon.jsonl")
    with Journal.create(path, SETUP) as j:
        j.append(entry)
    assert Path(path).read_bytes().splitlines(keepends=True)[1] == line({**entry, "n": 1})


def test_a_line_with_the_right_checksum_but_not_in_canonical_form_is_still_read(tmp_path: Path) -> None:
    """Reading checks the bytes on disk directly when a line has the canonical shape, and falls back to encoding
    the record again when it does not: a line with extra spaces, keys out of order or the checksum in front still
    reads, as the format allows (docs/journal.md)."""
    path = tmp_path / "spaced.jsonl"
    entries = [
        {"n": 1, "src": "manual", "in": "shot hit", "at": "2026-11-22T10:00:00Z"},
        {"n": 2, "in": 'shot "in"', "src": "manual"},
        {"n": 3, "f": {"crc": "00000000", "n": "hole"}, "m": "pass", "src": "board"},
    ]
    lines = [line(header())]
    for e in entries:
        body = dict(e)
        crc = f"{zlib.crc32(canonical(body).encode('utf-8')):08x}"
        ordered = {"crc": crc, **dict(reversed(list(body.items())))}
        lines.append((json.dumps(ordered, ensure_ascii=True, separators=(", ", ": ")) + "\n").encode("utf-8"))
    lines[2] = b" \t" + lines[2][:-1] + b" \n"  # spaces around the object, as JSON allows
    path.write_bytes(b"".join(lines))
    with Journal.open(str(path)) as j:
        assert j.records == entries


@pytest.mark.parametrize(
    "old, new", [(b"shot hit", b"shot hjt"), (b"10:00:00", b"10:00:01"), (b'"manual"', b'"manuel"')]
)
def test_a_changed_byte_in_a_middle_line_is_caught(tmp_path: Path, old: bytes, new: bytes) -> None:
    """The fast check over the bytes on disk must catch what the full check catches: a changed value or a changed
    checksum."""
    path = make_journal(tmp_path)
    data = Path(path).read_bytes()
    first, second, rest = data.split(b"\n", 2)
    assert old in second
    Path(path).write_bytes(b"\n".join([first, second.replace(old, new), rest]))
    expect_corrupt(path, "line 2", "checksum")
    crc = second[second.find(b'"crc":"') + 7 :][:8]
    flipped = crc[:-1] + (b"0" if crc[-1:] != b"0" else b"1")
    Path(path).write_bytes(b"\n".join([first, second.replace(crc, flipped), rest]))
    expect_corrupt(path, "line 2", "checksum")


def test_random_damage_to_a_bridge_journal_loses_nothing_and_invents_nothing() -> None:
    """The `journal` fuzz target (tests/fuzz/targets.py; `make fuzz` runs it 20,000 times), 400 times here: up to four
    random edits to a bridge's journal, then the bridge's resume. Every record read was written, no byte is lost
    (only an unterminated tail moves to its side file), and every damaged line is held for a person."""
    rnd = random.Random(19)
    for _ in range(400):
        targets.journal(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(4, 30))))
