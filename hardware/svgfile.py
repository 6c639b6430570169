"""Writing a generated drawing, or checking that the committed one is up to date: what every drawing script of
hardware/ does with the SVG it makes (`python hardware/<script>.py [--check] [--out FILE]`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def main(argv: list[str] | None, doc: str, default_out: Path, make: Callable[[], str], script: str) -> int:
    """The command line of a drawing script: `make()` gives the SVG; --check compares it with the file instead of
    writing it. Returns the exit status (1: out of date)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the SVG is up to date")
    ap.add_argument("--out", type=Path, default=default_out, help="where to write the SVG (default: %(default)s)")
    args = ap.parse_args(argv)
    return write_or_check({args.out: make()}, args.check, script)


def write_or_check(files: dict[Path, str], check: bool, script: str) -> int:
    stale = 0
    for path, svg in files.items():
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != svg:
                print(f"{path} is out of date: run 'python hardware/{script}'.")
                stale += 1
            else:
                print(f"{path} is up to date.")
        else:
            path.write_text(svg, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if stale else 0
