"""A fixed-seed slice of the fuzz targets (tests/fuzz/targets.py) under hypothesis: bad input to the protocol
decoder, the transcript parser, a typed entry, the MQTT input topic and whole sequences of session inputs gives a
clear one-line refusal, never a crash, and never changes the score. `make fuzz` runs the same targets for much
longer, coverage-guided, with atheris."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from fuzz import targets
from hypothesis import given, settings
from hypothesis import strategies as st


def reproducible(examples: int) -> settings:
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None, print_blob=False)


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=True), st.text(max_size=12)
)
VALUES = st.recursive(SCALARS, lambda v: st.lists(v, max_size=3) | st.dictionaries(st.text(max_size=4), v, max_size=3))
ENVELOPE = st.fixed_dictionaries(
    {},
    optional={
        "v": st.one_of(st.just(1), VALUES),
        "b": st.one_of(st.just("fb-01"), st.text(max_size=40)),
        "bt": st.one_of(st.integers(0, 9), VALUES),
        "s": st.one_of(st.integers(0, 9), VALUES),
        "t": st.one_of(st.integers(0, 10**9), VALUES),
        "m": st.one_of(st.sampled_from([*targets.KINDS, "heartbeat", "reply", "nope"]), VALUES),
        "n": st.one_of(st.sampled_from(targets.SENSORS), VALUES),
        "dur_us": st.one_of(st.integers(0, 10**7), VALUES),
        "first": st.integers(-2, 12),
        "last": st.integers(-2, 12),
        "lost": st.integers(-2, 12),
        "q": VALUES,
        "seg": VALUES,
    },
)


def frame(obj: dict[str, Any]) -> bytes:
    body = json.dumps(obj, separators=(",", ":")).encode()
    return b"FB1|" + body + b"|" + f"{zlib.crc32(body):08x}".encode()


BOARD_BYTES = st.one_of(
    st.binary(max_size=300),
    ENVELOPE.map(frame),  # a valid frame and CRC: the schema checks are reached
    ENVELOPE.map(lambda o: json.dumps(o).encode()),  # an MQTT payload
    st.tuples(ENVELOPE.map(frame), st.binary(max_size=8), st.integers(0, 200)).map(
        lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :]  # a frame with bytes spliced in
    ),
)


@reproducible(800)
@given(BOARD_BYTES)
def test_decoder_refuses_with_a_code_and_a_reason(data: bytes) -> None:
    targets.decoder(data)


HEADER = st.lists(
    st.one_of(
        st.sampled_from(
            [
                '[Game "pichenotte"]',
                '[Rules "tournament-2019"]',
                '[Rules "beginner"]',
                '[Match "games:1"]',
                '[Players "Ana" "Ben"]',
                '[Players "Ann" "Bob" "Cat" "Dan"]',
                '[Sides "Ana" "Ben"]',
                '[Breaker "Ana"]',
                '[Game "pichenottes-quebec"]',
                '[Game "flicochet"]',
                "[Players]",
                '[Rules "nope"]',
                "[Match games:x]",
            ]
        ),
        st.text(max_size=20),
    ),
    max_size=7,
)
BODY = st.lists(st.one_of(st.sampled_from(targets.LINES), st.text(max_size=20)), max_size=20)


@reproducible(300)
@given(HEADER, BODY)
def test_transcript_parser_refuses_with_a_line_and_a_reason(header: list[str], body: list[str]) -> None:
    targets.transcript(("\n".join(header) + "\n\n" + "\n".join(body)).encode("utf-8", "surrogatepass"))


ENTRY = st.one_of(
    st.sampled_from(targets.LINES),
    st.tuples(st.sampled_from(targets.LINES), st.text(max_size=15)).map(" ".join),
    st.text(max_size=60),
    st.binary(max_size=60).map(lambda b: b.decode("utf-8", "replace")),
)


@reproducible(600)
@given(ENTRY)
def test_a_refused_entry_changes_nothing(text: str) -> None:
    targets.manual_entry(text.encode("utf-8", "surrogatepass"))


REQUEST = st.one_of(
    st.binary(max_size=80),
    st.fixed_dictionaries(
        {},
        optional={
            "line": st.one_of(ENTRY, VALUES),
            "id": st.one_of(st.integers(), st.text(max_size=70), VALUES),
            "new": st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "rules": st.one_of(st.sampled_from(["beginner", "nope"]), VALUES),
                        "players": st.one_of(st.just(["A", "B"]), VALUES),
                        "match": VALUES,
                    },
                ),
                VALUES,
            ),
            "lines": VALUES,
        },
    ).map(lambda d: json.dumps(d).encode()),
)


@reproducible(250)
@given(REQUEST)
def test_mqtt_input_answers_in_one_line_and_a_refusal_scores_nothing(payload: bytes) -> None:
    targets.mqtt_input(payload)


@reproducible(300)
@given(st.binary(min_size=1, max_size=240))
def test_random_session_sequences_keep_the_score_honest(data: bytes) -> None:
    targets.session(data)


@pytest.mark.parametrize("name", sorted(targets.TARGETS))
def test_each_target_catches_a_misbehaving_product(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The targets can fail: a decoder that raises something else, a fold that changes the score on a refusal, an
    answer with a traceback in it are each reported."""
    if name == "decoder":
        monkeypatch.setattr(targets, "decode_line", lambda _d: (_ for _ in ()).throw(KeyError("m")))
        with pytest.raises(KeyError):
            targets.decoder(b"FB1|{}|00000000")
    elif name == "transcript":
        monkeypatch.setattr(targets, "parse_transcript", lambda *_: (_ for _ in ()).throw(IndexError("x")))
        with pytest.raises(IndexError):
            targets.transcript(b"anything")
    elif name == "manual_entry":
        monkeypatch.setattr(targets, "snapshot", _changing_snapshot())
        with pytest.raises(AssertionError, match="changed the game"):
            targets.manual_entry(b"xyzzy")
    elif name == "mqtt_input":
        b = targets.bridge()
        monkeypatch.setattr(b, "mqtt_input", lambda *_: {"ok": False, "message": "Traceback (most recent call last):"})
        with pytest.raises(AssertionError):
            targets.mqtt_input(b"{}")
    else:
        monkeypatch.setattr(targets, "fold_records", lambda game, _r: targets.Fold(game, game.start()))
        with pytest.raises(AssertionError, match="replaying"):
            targets.session(bytes([0, 0, 2, 0, 0, 0, 9, 0] * 4))


def _changing_snapshot() -> Any:
    calls = iter(range(10**6))
    return lambda *_: str(next(calls))
