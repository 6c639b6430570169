"""Sentences that can be said in another language: a `Message` is the English sentence (it *is* that str, so every
caller that prints it, compares it or writes it to JSON keeps working) and it remembers its template and its values,
so that a display can look the template up in a catalogue (flickboard/i18n) and say it in the players' language.

The rules stay pure: they only mark their sentences; the catalogues, and the choice of language, are the host's.
`make catalogues` extracts every `Message("...")` and `N_("...")` into the template of the catalogues.
"""

from __future__ import annotations

from typing import Any


class Message(str):
    """An English sentence made from `template` (str.format fields) and `values`; str(message) is the sentence."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Message:
        self = super().__new__(cls, template.format(**values) if values else template)
        self.template = template
        self.values = values
        return self

    def __reduce__(self) -> Any:  # copies and pickles keep the template
        return (_rebuild, (self.template, self.values))


def _rebuild(template: str, values: dict[str, Any]) -> Message:
    return Message(template, **values)


def N_(template: str) -> str:
    """Marks a sentence (or a word) for the catalogues where it is defined; a display translates it where it says it."""
    return template


def message_of(error: BaseException) -> str:
    """The sentence an exception was raised with, a `Message` when it was one (str(error) would lose it)."""
    if len(error.args) == 1 and isinstance(error.args[0], str):
        return error.args[0]
    return str(error)
