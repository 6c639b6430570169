"""What of a refusal a French reader would still get in English, for the sweeps of the engines' and the tournament's
refusals (tests/rules, tests/tournament)."""

from __future__ import annotations

from flickboard import i18n
from flickboard.rules.text import Message


def untranslated(text: object) -> list[str]:
    """What of `text` French would say in English: the text itself when it is not a Message, its template when the
    French catalogue lacks it (or has it with other fields), and the same for each Message among its values."""
    found = i18n._message(text)
    if found is None:
        return [f"not a Message: {text!r}"]
    template, values = found
    out = [] if i18n.gettext("fr", template) is not template else [template]
    for value in values.values():
        if isinstance(value, Message):
            out += untranslated(value)
    return out
