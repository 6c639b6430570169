"""The languages Flickboard speaks: gettext catalogues (locale/<lang>/LC_MESSAGES/flickboard.po), read with Babel
when first needed, and the choice of language for a game, a command or a page.

English is the source language: every sentence in the code is English, marked for extraction (`Message(...)` in the
rules, `_("...")` in the host, `T("...")` in the pages), and a catalogue says it in another language. A sentence a
catalogue lacks, leaves empty, marks fuzzy or gets wrong (a `{field}` missing or misspelt) is said in English:
a display never fails for want of a translation. docs/translating.md is the translator's side.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "SOURCE",
    "Translator",
    "catalogue",
    "choose",
    "elide",
    "languages",
    "said",
    "say",
    "translator",
]

DOMAIN = "flickboard"
LOCALE_DIR = Path(__file__).resolve().with_name("locale")
SOURCE = "en"  # the language of the code's own sentences
# A game whose rule sheet, and players, speak a language of their own is said in it unless someone picks another.
GAME_LANGUAGES = {"pichenottes-quebec": "fr"}
# Elision (docs/translating.md): in these languages, a word of this list written before a `{field}` loses its last
# letter to an apostrophe when the value begins with a vowel: "le coup de {player}" with Éloïse is "le coup d'Éloïse".
# The pages do the same with the same list (/api/messages, common.js `T`).
ELISIONS: dict[str, tuple[str, ...]] = {"fr": ("de", "que", "le", "la", "ne", "jusque", "lorsque", "puisque")}
VOWELS = "aeiouy"

Translator = Callable[..., str]


def _po(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def languages() -> tuple[str, ...]:
    """The languages there is something to say in: English and every language with a catalogue."""
    found = sorted(p.name for p in LOCALE_DIR.iterdir() if p.is_dir() and _po(p.name).is_file())
    return (SOURCE, *(lang for lang in found if lang != SOURCE))


def known(lang: str | None) -> str | None:
    """The language `lang` names, as a catalogue is named ("fr-CA", "fr_CA.UTF-8", "FR" → "fr"); None when there is
    no such catalogue (or no name)."""
    if not lang:
        return None
    base = re.split(r"[-_.@]", lang.strip().lower(), maxsplit=1)[0]
    return base if base in languages() else None


def accepted(header: str | None) -> list[str]:
    """The languages of an HTTP Accept-Language header, most wanted first (`fr-CA,fr;q=0.9,en;q=0.5`)."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((header or "").split(",")):
        name, _, params = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q\s*=\s*([0-9.]+)", params)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        if name and q > 0:
            ranked.append((-q, i, name.strip()))
    return [name for _, _, name in sorted(ranked)]


def choose(asked: str | None = None, game: str | None = None, browser: str | None = None) -> str:
    """The language to speak: the one the user picked (`--lang`, a page's `?lang=`), else the game's own (Québec
    Pichenottes: French), else the first of the browser's (Accept-Language) there is a catalogue for, else English."""
    for lang in (asked, GAME_LANGUAGES.get(game or ""), *accepted(browser)):
        if known(lang):
            return known(lang) or SOURCE
    return SOURCE


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """The translated sentences of `lang`: {English template: translation}, without the empty or fuzzy ones."""
    path = _po(lang)
    if lang == SOURCE or not path.is_file():
        return {}
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        cat = read_po(f, locale=lang, domain=DOMAIN)
    return {
        m.id: m.string
        for m in cat
        if m.id and isinstance(m.id, str) and isinstance(m.string, str) and m.string and not m.fuzzy
    }


_FIELDS = re.compile(r"\{([^{}]*)\}")


def _fields(template: str) -> set[str]:
    return set(_FIELDS.findall(template.replace("{{", "").replace("}}", "")))


def gettext(lang: str, template: str) -> str:
    """`template` in `lang`, or `template` itself when the catalogue lacks it or has it with other `{fields}`."""
    said = catalogue(lang).get(template) if lang != SOURCE else None
    if said is None or _fields(said) != _fields(template):
        return template
    return said


def _message(text: object) -> tuple[str, dict[str, Any]] | None:
    """The template and values of a rules' `Message` (flickboard/rules/text.py), None for any other text."""
    template, values = getattr(text, "template", None), getattr(text, "values", None)
    return (
        (template, values) if isinstance(text, str) and isinstance(template, str) and isinstance(values, dict) else None
    )


def _vowel(value: object) -> bool:
    """Does `value`, as said, begin with a vowel (a, e, i, o, u, y, accented or not, either case)?"""
    first = str(value)[:1]
    return bool(first) and unicodedata.normalize("NFD", first)[0].lower() in VOWELS


@functools.cache
def _elision(lang: str) -> re.Pattern[str] | None:
    words = ELISIONS.get(lang)
    if not words:
        return None
    # one of the words, not the end of a longer one ("onde {x}" is left alone), a space, then a {field}
    return re.compile(r"(?<![^\W\d_])(" + "|".join(words) + r") \{(\w+)\}", re.IGNORECASE)


def elide(template: str, lang: str, values: dict[str, Any]) -> str:
    """`template` (a sentence in `lang`, before its fields are filled in) with "de {player}" written "d'{player}" where
    the value begins with a vowel, for each word `lang` elides (ELISIONS); unchanged in a language without elision."""
    pattern = _elision(lang)
    if pattern is None or not values:
        return template

    def one(m: re.Match[str]) -> str:
        word, field = m.group(1), m.group(2)
        if field not in values or not _vowel(values[field]):
            return m.group(0)
        return word[:-1] + "'{" + field + "}"

    return pattern.sub(one, template)


def said(text: object) -> dict[str, Any] | None:
    """A rules' `Message` as JSON, for a screen that says it in its own language (common.js `FB.T` reads it):
    `{"text": template, "values": {...}}`, a value that is itself a message the same way; None for other text."""
    message = _message(text)
    if message is None:
        return None
    values = {k: said(v) or (v if isinstance(v, int | float) else str(v)) for k, v in message[1].items()}
    return {"text": message[0], "values": values}


def say(text: str, lang: str, /, **values: Any) -> str:
    """`text` in `lang`: a `Message` (and the messages among its values) is looked up by its template; a plain
    sentence is looked up as it is (with `values` filled in); anything not in the catalogue stays English."""
    message = _message(text)
    if message is not None:
        template, values = message[0], {**message[1], **values}
    else:
        template = str(text)
    values = {k: say(v, lang) if _message(v) is not None else v for k, v in values.items()}
    translated = gettext(lang, template)
    if translated is not template:  # the language's own sentence: its elisions (an English one keeps its words)
        translated = elide(translated, lang, values)
    for said in (translated, template):
        try:
            return said.format(**values) if values else said
        except (KeyError, IndexError, ValueError):  # not a template after all: said as written
            continue
    return template


def translator(lang: str) -> Translator:
    """A `_` for one language: `_("{who} to shoot", who="Ann")` → "Ann to shoot" or "À Ann de jouer"."""

    def _(template: str, /, **values: Any) -> str:
        return say(template, lang, **values)

    return _
