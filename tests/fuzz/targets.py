"""Fuzz targets: each takes one input (bytes) and raises only when the product misbehaves: an exception that is not
the documented refusal, or a refused input that changed the score. The same targets run under hypothesis in
`make test` (tests/system/test_fuzz.py, a fixed-seed slice) and under atheris, coverage-guided, in `make fuzz`
(tests/fuzz/run.py).

- `decoder`: a board line (serial) and a payload (MQTT). Allowed: a `BoardMessage`, or a `ProtocolError` with
  a code and a one-line reason; the delivery tracker takes any decoded message.
- `transcript`: a transcript file's text. Allowed: a `TranscriptError` or a game `ValueError` naming the problem,
  or a fold whose summary is JSON.
- `manual_entry`: one typed line in a game in progress. Allowed: accepted, or refused with a one-line reason and
  nothing changed.
- `mqtt_input`: a request on `flickboard/<board>/input`. Allowed: an answer `{ok, message, ...}` of one line; when
  `ok` is false the score is unchanged.
- `session`: a sequence of up to 40 inputs (typed lines and board events). Allowed: no exception; a refused line
  changes nothing; replaying the journal gives the same state.
- `journal`: up to 4 edits (bits flipped, bytes overwritten, inserted or deleted, the end cut off) to a bridge's
  journal, then the bridge's resume (`Session.resume(damaged_ok=True)`). Allowed: a `JournalError` (or, for a
  damaged set-up naming no known game, a `ValueError`) of one line;
  else every record read is one that was written (nothing invented), no byte of the damaged file is lost (only a
  torn tail moves, into its side file), and each damaged line is held for a person.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.board.protocol import BoardMessage, ProtocolError, Tracker, decode_line, decode_payload
from flickboard.core.journal import JournalError
from flickboard.core.session import Fold, Session, fold_entries, fold_records
from flickboard.rules import games
from flickboard.rules.pichenotte import RULE_SETS, Pichenotte
from flickboard.rules.transcript import TranscriptError, parse_transcript


class Feed:
    """Choices drawn from the fuzzer's bytes (0 once they run out), so a mutation of the input is a different
    sequence and coverage guidance works on sequences too."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.i = 0

    def byte(self) -> int:
        if self.i >= len(self.data):
            return 0
        b = self.data[self.i]
        self.i += 1
        return b

    def pick(self, n: int) -> int:
        v = self.byte() | self.byte() << 8
        return v % n

    def text(self, limit: int = 40) -> str:
        n = self.pick(limit + 1)
        out = bytes(self.byte() for _ in range(n))
        return out.decode("utf-8", "replace")

    @property
    def done(self) -> bool:
        return self.i >= len(self.data)


def one_line(msg: str) -> None:
    assert isinstance(msg, str) and msg and "\n" not in msg and "Traceback" not in msg, repr(msg)


# ---- the protocol decoder -------------------------------------------------------------------------------------


def decoder(data: bytes) -> None:
    decoded: list[BoardMessage] = []
    for decode in (lambda: decode_line(data), lambda: decode_payload(data, "fb-01")):
        try:
            decoded.append(decode())
        except ProtocolError as e:
            one_line(e.reason)
            assert e.code, e
    tracker = Tracker()
    for msg in decoded:
        assert msg.kind and isinstance(msg.fields, dict)
        if msg.reliable:
            assert msg.seq >= 1, msg
        v = tracker.accept(msg)
        if v.new and (msg.reliable or msg.kind == "gap"):
            tracker.processed(msg)
        json.dumps(tracker.status())


# ---- the transcript parser --------------------------------------------------------------------------------------


def transcript(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    try:
        t = parse_transcript(text, "fuzz.pich")
    except TranscriptError as e:
        one_line(str(e))
        return
    try:
        game = games.from_header(t.header)
    except ValueError as e:
        one_line(str(e))
        return
    fold = fold_entries(game, [(i, line, "manual") for i, (_, line) in enumerate(t.lines, 1)])
    for _, _, reason in fold.rejected:
        one_line(reason)
    json.dumps(game.summary(fold.state, len(fold.rejected)), allow_nan=False)


# ---- a typed line in a game in progress ------------------------------------------------------------------------

MIDGAME = [
    "shot zone",
    "shot hit Ana:ditch",
    "shot call in",
    "shot in Ben:in",
    "shot zone",
    "shot hit",
]
_base: tuple[Pichenotte, Fold] | None = None


def _midgame() -> tuple[Pichenotte, Fold]:
    global _base
    if _base is None:
        game = Pichenotte.create("tournament-2019", ["Ana", "Ben"])
        fold = fold_entries(game, [(i, t, "manual") for i, t in enumerate(MIDGAME, 1)])
        assert not fold.rejected, fold.rejected
        _base = (game, fold)
    return _base


def snapshot(game: Any, fold: Fold) -> str:
    """Everything a refused input must leave alone: the score, the entries in effect, the sensor side."""
    doc = game.summary(fold.state, 0)
    return json.dumps(
        [doc, [a.n for a in fold.stack], [h.n for h in fold.queue], fold.review, fold.waiting, fold.declared],
        sort_keys=True,
        default=str,
    )


def manual_entry(data: bytes) -> None:
    game, base = _midgame()
    before = snapshot(game, base)
    trial = base.copy()
    text = data.decode("utf-8", "replace")
    out = trial.step(len(MIDGAME) + 1, text)
    if not out.accepted:
        one_line(out.message)
        assert snapshot(game, trial) == before, f"refused {text!r} changed the game"
    json.dumps(game.summary(trial.state, len(trial.rejected)), allow_nan=False)
    assert snapshot(game, base) == before, "the base fold was changed in place"


# ---- the MQTT input topic ---------------------------------------------------------------------------------------

_bridge: Bridge | None = None


def bridge() -> Bridge:
    global _bridge
    if _bridge is None:
        tmp = Path(tempfile.mkdtemp(prefix="flickboard-fuzz-"))
        _bridge = Bridge(tmp / "journals", GameSetup("tournament-2019", ("Ana", "Ben")), ("t1",), None)
        atexit.register(shutil.rmtree, tmp, True)
        atexit.register(_bridge.close)  # runs first: the journals are closed, then removed
    return _bridge


def _score(b: Bridge) -> str:
    doc = b.scoreboard("t1")
    score = dict(doc["score"])
    score.pop("rejected_inputs", None)  # a line the rules refuse is journaled and counted, by design
    return json.dumps([score, doc["review"], doc["queued"], doc["open_shot"]], sort_keys=True)


def mqtt_input(data: bytes) -> None:
    b = bridge()
    before = _score(b)
    answer = b.mqtt_input("t1", data)
    assert set(answer) >= {"ok", "message", "entry", "id", "board"}, answer
    one_line(answer["message"])
    if not answer["ok"]:
        assert _score(b) == before, f"a refused request changed the score: {data!r} -> {answer}"
    json.dumps(answer)


# ---- sequences of session inputs ------------------------------------------------------------------------------

LINES = [
    "shot hit", "shot miss", "shot zone", "shot short", "shot call in", "shot call", "shot in", "shot hit in",
    "shot miss ditch", "shot hit Ben:ditch", "shot hit Ana:in", "shot hit South:in", "shot zone in", "choose ditch",
    "choose replay", "hit", "miss", "zone", "short", "end", "in", "Ben:ditch", "Ana:base", "edge", "declare",
    "declare this", "reviewed", "reviewed checked", "dismiss", "confirm", "confirm 3", "undo", "correct 2 shot hit",
    "correct 1 -", "correct 99 shot miss", "Ana 15 10 10 5", "Ben 5 5", "zones Ana 10 5", "forfeit Ana phone",
    "forfeit Ben tired", "shot", "shot hit hit", "xyzzy", "shot hit Nobody:in", "#", "", "   ", "penalty Ana",
]  # fmt: skip
KINDS = ["hello", "shot_start", "pass", "baseline_rest", "stuck", "clear", "count", "fault", "gap"]
SENSORS = ["hole", "ditch1", "ditch2", "ditch3", "ditch4", "baseline"]


def _event(f: Feed, seq: int) -> tuple[str, dict[str, Any]]:
    kind = KINDS[f.pick(len(KINDS))]
    if kind == "hello":
        return kind, {"fw": "1.0", "prof": "pico_w", "rst": "power", "sn": [{"k": "beam", "n": "hole"}]}
    if kind in ("shot_start", "baseline_rest"):
        return kind, {"n": "baseline", "q": 1 + f.pick(4), "seg": 1 + f.pick(16)}
    if kind in ("pass", "clear"):
        return kind, {"n": SENSORS[f.pick(5)], "dur_us": 100 + f.pick(5_000_000)}
    if kind == "stuck":
        return kind, {"n": SENSORS[f.pick(5)], "after_ms": 50 + f.pick(10_000)}
    if kind == "count":
        return kind, {"n": SENSORS[f.pick(5)], "expected": f.pick(9), "seen": f.pick(9)}
    if kind == "fault":
        return kind, {"code": "exception", "msg": "fuzz"}
    first = max(1, seq - f.pick(5))
    return kind, {"first": first, "last": seq, "lost": seq - first + 1}


def session(data: bytes) -> None:
    f = Feed(data)
    rules = sorted(RULE_SETS)[f.pick(len(RULE_SETS))]
    game = Pichenotte.create(rules, ["Ana", "Ben"] if f.pick(2) else ["Ann", "Bob", "Cat", "Dan"])
    fold = Fold(game, game.start())
    records: list[dict[str, Any]] = []
    seq = 0
    for n in range(1, 41):
        if f.done and n > 1:
            break
        choice = f.pick(8)
        if choice < 2:  # a board event, as the bridge folds it once journaled
            seq += 1
            kind, fields = _event(f, seq)
            out = fold.event(n, kind, fields)
            records.append({"n": n, "src": "board", "m": kind, "f": fields})
            one_line(out.message)
            continue
        text = LINES[f.pick(len(LINES))] if choice < 7 else f.text()
        if choice == 6:
            text = f"{text} {f.text(8)}"
        text = text.strip()
        if not text or text.startswith("#"):
            continue  # not an input: Session.submit does not journal it
        before = snapshot(game, fold)
        trial = fold.copy()
        out = trial.step(n, text)
        records.append({"n": n, "src": "manual", "in": text})
        if not out.accepted:
            one_line(out.message)
            assert snapshot(game, trial) == before, f"refused {text!r} changed the game"
        fold = trial
        json.dumps(game.summary(fold.state, len(fold.rejected)), allow_nan=False)
    replay = fold_records(game, records)
    assert snapshot(game, replay) == snapshot(game, fold), "replaying the journal gives another state"
    assert len(replay.rejected) == len(fold.rejected)


# ---- a damaged journal ----------------------------------------------------------------------------------------


_BASE: list[bytes] = []


def _base_journal() -> bytes:
    """A bridge journal to damage: board events, typed entries, a refused one and a hold (made once)."""
    if not _BASE:
        tmp = Path(tempfile.mkdtemp(prefix="fb-fuzz-journal-"))
        atexit.register(shutil.rmtree, tmp, True)
        s = Session.create(str(tmp / "base.jsonl"), Pichenotte.create("tournament-2019", ["Ana", "Ben"]))
        s.record(
            "t1", 7, 1, "hello", {"fw": "1.0", "prof": "pico_w", "rst": "power", "sn": [{"k": "beam", "n": "hole"}]}
        )
        s.record("t1", 7, 2, "shot_start", {"n": "baseline", "q": 1, "seg": 3}, 1000)
        s.record("t1", 7, 3, "pass", {"n": "hole", "dur_us": 900}, 2000)
        s.submit("zone")
        s.submit("xyzzy")
        s.hold("board t1 seems to have two boots alive", {"hold": "two-boots", "boots": [7, 9]})
        s.record("t1", 7, 4, "shot_start", {"n": "baseline", "q": 3, "seg": 9}, 3000)
        s.close()
        _BASE.append((tmp / "base.jsonl").read_bytes())
    return _BASE[0]


def journal(data: bytes) -> None:
    f = Feed(data)
    base = _base_journal()
    b = bytearray(base)
    for _ in range(1 + f.pick(4)):
        op, pos = f.pick(5), f.pick(len(b) + 1)
        if op == 0 and b:
            b[min(pos, len(b) - 1)] ^= 1 << f.pick(8)
        elif op == 1 and b:
            b[min(pos, len(b) - 1)] = f.byte()
        elif op == 2:
            b[pos:pos] = bytes(f.byte() for _ in range(1 + f.pick(8)))
        elif op == 3:
            del b[pos : pos + 1 + f.pick(40)]
        else:
            del b[pos:]
    damaged = bytes(b)
    tmp = Path(tempfile.mkdtemp(prefix="fb-fuzz-journal-"))
    try:
        path = tmp / "j.jsonl"
        path.write_bytes(damaged)
        try:
            s = Session.resume(str(path), damaged_ok=True)
        except (JournalError, ValueError) as e:  # ValueError: a damaged set-up names no game this version knows
            one_line(str(e))
            return
        written = {r["n"]: r for r in _records(base)}
        for r in s.journal.stream():
            if r.get("src") == "bridge" and r.get("hold") == "damage":
                continue  # written by this resume
            assert written.get(r["n"]) == r, f"record {r['n']} was never written: {r}"
        held = sum(1 for r in s.journal.stream() if r.get("hold") == "damage")
        assert held == len(s.journal.damaged), "a damaged line is not held"
        s.close()
        after = path.read_bytes()
        torn = b"".join(p.read_bytes() for p in sorted(tmp.glob("*.torn-*")))
        kept = damaged[: len(damaged) - len(torn)]
        assert after.startswith(kept) and damaged == kept + torn, "a byte of the damaged journal was lost"
        assert not torn or b"\n" not in torn, "a complete line was taken for a torn write"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _records(data: bytes) -> list[dict[str, Any]]:
    out = []
    for line in data.splitlines()[1:]:
        rec = json.loads(line)
        rec.pop("crc")
        out.append(rec)
    return out


TARGETS = {
    "decoder": decoder,
    "transcript": transcript,
    "manual_entry": manual_entry,
    "mqtt_input": mqtt_input,
    "session": session,
    "journal": journal,
}
