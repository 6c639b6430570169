"""`make typecheck`: mypy (strict, as pyproject.toml configures it) on the `flickboard` package of this checkout.

The package is made of two top-level folders (`host/` is `flickboard`, `rules/` is `flickboard.rules`: pyproject.toml's
`package-dir`). mypy names a module after the folders its file is in, and would call `host/core/journal.py`
`host.core.journal`; so this hands mypy every file with the module name the package gives it, and the errors still
name the files as they are in the checkout.

    python tests/support/typecheck.py          # exit 0: no issues; 1: errors (listed); 2: mypy could not run
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource

ROOT = Path(__file__).resolve().parents[2]


BOARD_FILES = (ROOT / "firmware", ROOT / "hardware")  # mapped into the package as data: `make fwcheck` checks them


def package_dirs(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Path]:
    """Each mapped package of host code and its folder, from `[tool.setuptools.package-dir]`. The board's files that
    the package carries (host/board/files.py) are MicroPython, type-checked against its stubs by `make fwcheck`."""
    doc = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    dirs = {name: ROOT / folder for name, folder in doc["tool"]["setuptools"]["package-dir"].items()}
    return {name: d for name, d in dirs.items() if not any(d.is_relative_to(b) for b in BOARD_FILES)}


def sources(dirs: dict[str, Path]) -> list[BuildSource]:
    """Every module of the package, named as installed: a folder mapped on its own (`flickboard.rules`) is left to
    its own mapping, not read again as part of its parent."""
    found: dict[str, BuildSource] = {}
    roots = {folder.resolve() for folder in dirs.values()}
    for name, folder in dirs.items():
        for path in sorted(folder.rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            if any(r != folder.resolve() and path.resolve().is_relative_to(r) for r in roots):
                continue
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            module = ".".join([name, *parts])
            found[module] = BuildSource(str(path.relative_to(ROOT)), module)
    return sorted(found.values(), key=lambda s: s.module)


def main() -> int:
    _, options = process_options(["--config-file", str(ROOT / "pyproject.toml")], require_targets=False)
    todo = sources(package_dirs())
    try:
        result = build.build(todo, options, stdout=sys.stdout, stderr=sys.stderr)
    except CompileError as e:
        print("\n".join(e.messages))
        return 2
    for line in result.errors:
        print(line)
    files = {line.split(":", 1)[0] for line in result.errors if ": error:" in line}
    errors = sum(": error:" in line for line in result.errors)
    if errors:
        print(f"Found {errors} error{'s' * (errors != 1)} in {len(files)} file{'s' * (len(files) != 1)} "
              f"(checked {len(todo)} source files)")  # fmt: skip
        return 1
    print(f"Success: no issues found in {len(todo)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
