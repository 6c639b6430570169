"""The scoring key: what a phone must hold to send entries or act as the organiser (docs/displays.md, "Who can
score"). Made here, read from the environment or a file, compared in one normal form."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flickboard.displays.web.config import WebError

KEY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # no 0/O, 1/I/L, U: read aloud and typed on a phone
KEY_LENGTH = 8
KEY_ENV = "FLICKBOARD_WEB_KEY"
KEY_COOKIE = "flickboard_key"
KEY_HEADER = "X-Flickboard-Key"
KEY_MAX_AGE = 400 * 24 * 3600  # seconds a phone keeps the key (browsers cap a cookie at 400 days)


def new_key() -> str:
    """A scoring key of KEY_LENGTH characters from KEY_ALPHABET (about 39 bits), as `ABCD-EFGH`."""
    raw = "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))
    return shown_key(raw)


def normal_key(text: str) -> str:
    """A key as it is compared: upper case, without spaces and dashes (a phone may add either)."""
    return "".join(ch for ch in text.upper() if ch not in " -\t")


def shown_key(key: str) -> str:
    """A key as people read it: in groups of four."""
    k = normal_key(key)
    return "-".join(k[i : i + 4] for i in range(0, len(k), 4))


def key_problem(key: str) -> str | None:
    k = normal_key(key)
    if len(k) < KEY_LENGTH or len(k) > 64 or not k.isascii() or not k.isalnum():
        return f"a scoring key is {KEY_LENGTH} to 64 letters and digits (dashes and spaces are ignored)"
    return None


def load_key(env: dict[str, str], key_file: str | None) -> tuple[str, str]:
    """(the scoring key, where it came from): FLICKBOARD_WEB_KEY, else --key-file (made with a new key the first
    time, readable by its owner only, then kept), else a new key for this run. Raises WebError."""
    given = env.get(KEY_ENV)
    if given is not None and key_file is not None:
        raise WebError(f"give the scoring key one way: {KEY_ENV} or --key-file, not both")
    if given is not None:
        problem = key_problem(given)
        if problem:
            raise WebError(f"{KEY_ENV}: {problem}")
        return given.strip(), f"from {KEY_ENV}"
    if key_file is None:
        return new_key(), "new for this run; --key-file keeps one across restarts"
    path = Path(key_file)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        key = new_key()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(key + "\n")
        except OSError as e:
            raise WebError(f"--key-file {key_file}: cannot write it: {e.strerror or e}") from None
        return key, f"new, kept in {key_file}"
    except (OSError, UnicodeDecodeError) as e:
        raise WebError(f"--key-file {key_file}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    problem = key_problem(text)
    if problem:
        raise WebError(f"--key-file {key_file}: {problem}")
    return text, f"from {key_file}"


# ---------------------------------------------------------------- the broker side
