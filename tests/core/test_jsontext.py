"""host/jsontext.py: the journal's canonical text is exactly what json.dumps always wrote (journals written before
read and check the same); documents and readings give back the same values as the standard library."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flickboard.jsontext import canonical, compact, has_float, loads

JOURNAL = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False, "allow_nan": False}

# What a record holds: no floats (none is ever written), any text but lone surrogates (the session escapes them).
text = st.text(alphabet=st.characters(exclude_categories=("Cs",)))
record_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text.filter(lambda s: len(s) < 7), inner, max_size=4),
)
finite = st.floats(allow_nan=False, allow_infinity=False)
documents = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text.filter(lambda s: len(s) < 7), inner, max_size=4),
)


@settings(max_examples=500, deadline=None)
@given(doc=record_values)
def test_the_canonical_text_is_the_one_json_dumps_wrote(doc: Any) -> None:
    assert canonical(doc) == json.dumps(doc, **JOURNAL)


@settings(max_examples=300, deadline=None)
@given(doc=documents)
def test_floats_and_big_integers_keep_their_text_too(doc: Any) -> None:
    assert canonical(doc) == json.dumps(doc, **JOURNAL)


def test_fixed_cases() -> None:
    fixed = ['café ✓ \x00 \x7f "q" \\ \u2028', 2**70, -0.0, 1e300, 1e-7, (1, "a", (True, None)), {"b": [1.5], "a": {}}]
    for doc in fixed:
        assert canonical(doc) == json.dumps(doc, **JOURNAL), doc
    assert json.loads(compact({"b": "é", "a": [1, None]})) == {"b": "é", "a": [1, None]}
    with pytest.raises(ValueError):
        canonical({"x": math.nan})
    with pytest.raises(TypeError):
        canonical({"x": object()})
    with pytest.raises(TypeError):
        compact({"x": object()})


@settings(max_examples=300, deadline=None)
@given(doc=documents, before=st.sampled_from(["", " ", "\n\t"]), after=st.sampled_from(["", " ", "\r\n"]))
def test_reading_gives_what_json_loads_gives(doc: Any, before: str, after: str) -> None:
    text = before + json.dumps(doc) + after
    assert loads(text) == json.loads(text)
    assert loads(text.encode()) == json.loads(text)
    assert has_float(loads(text)) == has_float(json.loads(text))


@pytest.mark.parametrize("bad", ["", "{", "[1,]", "NaN", "[Infinity]", '{"a": -Infinity}', "1 2", "'a'", "\ud800"])
def test_what_is_not_json_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        loads(bad)


def test_has_float() -> None:
    assert not has_float({"a": [1, "1.5", None, True]}) and has_float({"a": [1, {"b": 1.0}]}) and has_float(2.5)
