"""Transcript files: a header of `[Key "value" ...]` tags, then one input per line (docs/transcript.md).

Game-independent: the header's `Game` tag picks the engine; the body lines are that game's notation.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

_TAG = re.compile(r"^\[(\w+)\s*(.*)\]\s*$")


class TranscriptError(ValueError):
    """A transcript that cannot be read; str() names the line and the problem."""


@dataclass
class Transcript:
    header: dict[str, list[str]] = field(default_factory=dict)
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, text) of each input


def parse_transcript(text: str, name: str = "transcript") -> Transcript:
    t = Transcript()
    body = False
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _TAG.match(line)
        if m and not body:
            key = m.group(1).capitalize()
            try:
                values = shlex.split(m.group(2))
            except ValueError as e:
                raise TranscriptError(f"{name}:{no}: cannot read tag {key}: {e}") from None
            if key in t.header:
                raise TranscriptError(f"{name}:{no}: tag {key} appears twice")
            t.header[key] = values
            continue
        if m:
            raise TranscriptError(f"{name}:{no}: header tags go before the first input")
        body = True
        t.lines.append((no, line))
    return t


def format_header(header: dict[str, list[str]]) -> str:
    out = []
    for key, values in header.items():
        out.append(f"[{key} " + " ".join('"' + v.replace('"', "'") + '"' for v in values) + "]")
    return "\n".join(out)
