"""JSON text from one encoder made once, and read with the C scanner called directly.

`json.dumps(obj, **options)` and even a kept `json.JSONEncoder(**options).encode` build a new C encoder on every
call. Under a flood the bridge encodes thousands of small documents a second (journal lines, scoring moments, acks),
and building the encoder costs as much as the encoding. `encoder(**options)` returns a function that gives the same
text as `json.dumps(obj, **options)`, with the C encoder built once.

The one difference: there is no check for circular references (a document that contains itself), which the
bridge's documents never do; such a document raises RecursionError instead of ValueError.

Reading is the other way round: `JSONDecoder.decode` (and so `json.loads`) adds two Python calls and a regular
expression around its C scanner, for every line. `reader(decoder)` calls the scanner directly when the text is
one JSON value and nothing else, which is how every journal line and board message is written, and falls back
to `decoder.decode` for anything else, with its own result and its own errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _json
from typing import Any


def encoder(
    *,
    sort_keys: bool = False,
    separators: tuple[str, str] = (", ", ": "),
    ensure_ascii: bool = True,
    allow_nan: bool = True,
) -> Callable[[Any], str]:
    """A function equal to `lambda obj: json.dumps(obj, sort_keys=..., separators=..., ensure_ascii=...,
    allow_nan=...)`: TypeError for a value JSON cannot hold, ValueError for NaN or infinity when not allowed."""
    plain = _json.JSONEncoder(
        sort_keys=sort_keys, separators=separators, ensure_ascii=ensure_ascii, allow_nan=allow_nan, check_circular=False
    )
    make = getattr(_json, "c_make_encoder", None)  # CPython's C encoder (absent from the type stubs)
    if make is None:  # a Python without the C accelerator: the encoder's own method
        return plain.encode
    item_separator, key_separator = separators
    strings = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    chunks = make(None, plain.default, strings, None, key_separator, item_separator, sort_keys, False, allow_nan)
    join = "".join

    def encode(obj: Any) -> str:
        if isinstance(obj, str):  # as JSONEncoder.encode does: a lone string is encoded directly
            return strings(obj)
        return join(chunks(obj, 0))

    return encode


def reader(decoder: json.JSONDecoder) -> Callable[[str], Any]:
    """A function equal to `decoder.decode`: the same value, or the same error."""
    scan = decoder.scan_once  # type: ignore[attr-defined]  # set in JSONDecoder.__init__, not in the stubs

    def decode(text: str) -> Any:
        try:
            value, end = scan(text, 0)
            if end == len(text):
                return value
        except (StopIteration, ValueError):  # not a value at the very start, or a broken one: decode says why
            pass
        return decoder.decode(text)

    return decode
