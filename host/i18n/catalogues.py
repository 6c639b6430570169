"""`make catalogues` (python -m flickboard.i18n.catalogues): extracts every marked sentence of the code and the pages
into the template (locale/flickboard.pot), then brings each language's catalogue up to it (a new sentence arrives
untranslated, a changed one fuzzy, a gone one obsolete). docs/translating.md says how a translator goes on from there.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from babel.messages.frontend import CommandLineInterface

from flickboard.i18n import DOMAIN, LOCALE_DIR

ROOT = LOCALE_DIR.parents[2]  # the checkout: host/i18n/locale -> the folder with babel.cfg
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
# The words that mark a sentence: Message() and N_() in the rules, _() in the host, T() in the pages' scripts.
KEYWORDS = ("Message", "N_", "_", "T")


def extract(output: Path = TEMPLATE) -> Path:
    """Writes the template of every marked sentence in host/ and rules/ (babel.cfg says which files) to `output`."""
    args = ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), "--no-default-keywords"]
    for k in KEYWORDS:
        args += ["-k", k]
    args += ["--add-location=file", "--sort-output", "--no-wrap", "--project=flickboard", f"--version={_version()}"]
    args += ["-o", str(output)]
    args += ["host", "rules"]
    _run(args)
    return output


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flickboard")
    except PackageNotFoundError:
        return "0"


# What a page's HTML says to people besides its text: FB.T's page translation (common.js) reads the same attributes.
HTML_ATTRIBUTES = ("placeholder", "title", "aria-label")


def extract_html(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, None, str, list[str]]]:
    """A Babel extractor for the pages' HTML (babel.cfg): every piece of text a person reads, each element's text
    (its spaces collapsed) and the attributes above; never a script's or a style's."""
    from html.parser import HTMLParser

    found: list[tuple[int, None, str, list[str]]] = []

    class Texts(HTMLParser):
        skip = 0

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in ("script", "style"):
                self.skip += 1
            for name, value in attrs:
                if name in HTML_ATTRIBUTES and value and value.strip():
                    found.append((self.getpos()[0], None, " ".join(value.split()), []))

        def handle_endtag(self, tag: str) -> None:
            if tag in ("script", "style"):
                self.skip = max(0, self.skip - 1)

        def handle_data(self, data: str) -> None:
            text = " ".join(data.split())
            if text and not self.skip and any(c.isalpha() for c in text):
                found.append((self.getpos()[0], None, text, []))

    parser = Texts(convert_charrefs=True)
    parser.feed(fileobj.read().decode(options.get("encoding", "utf-8")))
    parser.close()
    yield from found


def update() -> None:
    """Each language's catalogue brought up to the template (new, changed and gone sentences marked)."""
    _run(["pybabel", "-q", "update", "-i", str(TEMPLATE), "-d", str(LOCALE_DIR), "-D", DOMAIN, "--no-wrap"])


def new_language(lang: str) -> Path:
    """A catalogue for a new language, every sentence untranslated (the translator's first step)."""
    _run(["pybabel", "-q", "init", "-i", str(TEMPLATE), "-d", str(LOCALE_DIR), "-D", DOMAIN, "-l", lang, "--no-wrap"])
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def _run(args: list[str]) -> None:
    import os

    here = os.getcwd()
    os.chdir(ROOT)  # the template names the files relative to the checkout
    try:
        CommandLineInterface().run(args)  # type: ignore[no-untyped-call]
    finally:
        os.chdir(here)


def main(argv: list[str]) -> int:
    if argv[:1] == ["init"] and len(argv) == 2:
        print(f"==> new catalogue {new_language(argv[1]).relative_to(ROOT)}")
        return 0
    print(f"==> {extract().relative_to(ROOT)}: every marked sentence of host/ and rules/")
    update()
    print(
        "==> the catalogues updated: "
        + ", ".join(str(p.relative_to(ROOT)) for p in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
