"""Every JSON text the host writes or reads on its hot paths, through orjson (a maintained C library), with
public APIs only.

- `canonical(obj)`: the journal's canonical form, over which a record's CRC is taken: sorted keys, no spaces, UTF-8
  as is (not \\u-escaped), no NaN or infinity. For every value a record holds (strings, integers, booleans, null,
  lists and objects of them) orjson writes exactly the text `json.dumps(obj, sort_keys=True, separators=(",", ":"),
  ensure_ascii=False, allow_nan=False)` always wrote, so journals written before read and check the same. A float,
  which no record holds today, is written by the standard library, so its text is what it always was too
  (orjson writes `1e-7` where Python writes `1e-07`).
- `compact(obj)`: a document for the displays (scoreboards, scoring moments): no spaces, UTF-8.
Whatever orjson cannot write (integers beyond 64 bits), or, in the canonical form, write exactly (floats, keys that
are not strings), goes through the standard library.
- `loads(text)`: the value of one JSON text (str or UTF-8 bytes), exactly as `json.loads` gives it; ValueError for
  anything else (NaN and infinity included, which are not JSON).
- `read(text)`: the same value, and whether it holds a float (the board protocol refuses them); `has_float(obj)`.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def has_float(v: Any) -> bool:
    t = type(v)
    if t is float:
        return True
    if t is dict:
        return any(has_float(x) for x in v.values())
    if t is list or t is tuple:
        return any(has_float(x) for x in v)
    return False


def canonical(obj: Any) -> str:
    """The canonical text of `obj`; TypeError for a value JSON cannot hold, ValueError for NaN or infinity."""
    if not has_float(obj):
        try:
            return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, a key that is not a string, or not JSON at all
            pass
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def compact(obj: Any) -> str:
    """`obj` as compact JSON, for a display to parse (not a canonical text: a float may be written `1e-7`, where
    Python writes `1e-07`); TypeError for a value JSON cannot hold."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, or not JSON at all
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    """The value of one JSON text; ValueError when it is not one (NaN and infinity included)."""
    return read(text)[0]


def read(text: str | bytes) -> tuple[Any, bool]:
    """(the value of one JSON text, whether it holds a float); ValueError when it is not JSON. orjson reads an
    integer beyond 64 bits as a float: a value with a float in it is read again by the standard library, exactly
    (floats are rare here: the board protocol refuses them, and no journal record holds one)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = _STRAY  # a lone surrogate escape, or not JSON: the standard library says which
    if value is not _STRAY and not has_float(value):
        return value, False
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("not valid JSON: nested too deep") from None
    return value, has_float(value)


_STRAY = object()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
