"""host/jsontext.py gives exactly json.dumps's text, with its encoder built once."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.jsontext import encoder, reader

OPTIONS: list[dict[str, Any]] = [
    {},
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False, "allow_nan": False},  # the journal's
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": True},  # host -> board commands
]

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
)


@pytest.mark.parametrize("options", OPTIONS)
@settings(max_examples=300, deadline=None)
@given(doc=documents)
def test_the_same_text_as_json_dumps(options: dict[str, Any], doc: Any) -> None:
    assert encoder(**options)(doc) == json.dumps(doc, **options)


@pytest.mark.parametrize("options", OPTIONS)
def test_fixed_cases_and_tuples(options: dict[str, Any]) -> None:
    enc = encoder(**options)
    for doc in ['café ✓ \x00 "q" \\', 2**70, -0.0, 1e300, (1, "a", (True, None)), {"b": [1.5], "a": {"z": ()}}]:
        assert enc(doc) == json.dumps(doc, **options)


def test_what_json_refuses_is_refused_the_same_way() -> None:
    strict = encoder(allow_nan=False)
    with pytest.raises(ValueError):
        strict({"x": math.nan})
    with pytest.raises(ValueError):
        strict([math.inf])
    assert encoder()(math.nan) == "NaN"
    with pytest.raises(TypeError, match="not JSON serializable"):
        encoder()({"x": object()})
    with pytest.raises(TypeError):
        encoder(sort_keys=True)({1: "a", "b": 2})  # keys of mixed types cannot be sorted, as in json.dumps


@settings(max_examples=300, deadline=None)
@given(doc=documents, before=st.sampled_from(["", " ", "\n\t"]), after=st.sampled_from(["", " ", "\r\n"]))
def test_the_reader_gives_what_decode_gives(doc: Any, before: str, after: str) -> None:
    text = before + json.dumps(doc) + after
    assert reader(json.JSONDecoder())(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", " ", "{", '{"a":1}x', '{"a":1} {"b":2}', "\ufeff{}", "[1,]", "NaN", "'a'", "1 2"])
def test_the_reader_refuses_what_decode_refuses(text: str) -> None:
    hooked = json.JSONDecoder(parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    for decoder in (json.JSONDecoder(), hooked):
        try:
            expected: Any = ("ok", decoder.decode(text))
        except ValueError as e:
            expected = ("error", type(e), str(e))
        try:
            got: Any = ("ok", reader(decoder)(text))
        except ValueError as e:
            got = ("error", type(e), str(e))
        assert got == expected
