"""The keys of `flickboard web` (docs/security.md, "Who can do what"): made here, read from the environment or a file,
compared in one normal form.

- **the scoring key** (FLICKBOARD_WEB_KEY, --key-file): scores every board the server follows; the head scorer's.
- **scorers' keys** (--scorer-keys FILE, issued with --issue-key): each scores only the boards it was issued for.
- **the organiser's key** (FLICKBOARD_ORGANISER_KEY, --organiser-key-file): the organiser's page and its acts, and
  the console; it scores nothing.

`Keys.grant(given)` says what a key given by a browser may do (None: it is no key of this server's)."""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from flickboard.config import board_problem
from flickboard.displays.web.config import WebError

KEY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # no 0/O, 1/I/L, U: read aloud and typed on a phone
KEY_LENGTH = 8
KEY_ENV = "FLICKBOARD_WEB_KEY"
KEY_COOKIE = "flickboard_key"
KEY_HEADER = "X-Flickboard-Key"
ORGANISER_ENV = "FLICKBOARD_ORGANISER_KEY"
ORGANISER_COOKIE = "flickboard_organiser"
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


def load_key(
    env: dict[str, str], key_file: str | None, env_name: str = KEY_ENV, option: str = "--key-file"
) -> tuple[str, str]:
    """(the key, where it came from): the environment variable `env_name`, else the file given with `option` (made
    with a new key the first time, readable by its owner only, then kept), else a new key for this run. Raises
    WebError."""
    given = env.get(env_name)
    if given is not None and key_file is not None:
        what = "scoring key" if env_name == KEY_ENV else "organiser's key"
        raise WebError(f"give the {what} one way: {env_name} or {option}, not both")
    if given is not None:
        problem = key_problem(given)
        if problem:
            raise WebError(f"{env_name}: {problem}")
        return given.strip(), f"from {env_name}"
    if key_file is None:
        return new_key(), f"new for this run; {option} keeps one across restarts"
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
            raise WebError(f"{option} {key_file}: cannot write it: {e.strerror or e}") from None
        return key, f"new, kept in {key_file}"
    except (OSError, UnicodeDecodeError) as e:
        raise WebError(f"{option} {key_file}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    problem = key_problem(text)
    if problem:
        raise WebError(f"{option} {key_file}: {problem}")
    return text, f"from {key_file}"


# ---------------------------------------------------------------- scorers' keys, each for its boards


@dataclass(frozen=True)
class Grant:
    """What a key may do: score `boards` (None: every board; empty: none), and act as the organiser."""

    who: str  # in words, for refusals and the terminal: "the organiser's key", "a scorer's key for table-1"
    boards: frozenset[str] | None
    organiser: bool = False

    def scores(self, board: str) -> bool:
        return self.boards is None or board in self.boards


def read_scorer_keys(path: str) -> dict[str, frozenset[str]]:
    """The scorers' keys file: one key a line, then the boards it scores (`ABCD-EFGH table-1 table-2`); `#` starts a
    comment. A missing file has no keys. Raises WebError for a line that is not a key and boards."""
    keys: dict[str, frozenset[str]] = {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return keys
    except (OSError, UnicodeDecodeError) as e:
        raise WebError(f"--scorer-keys {path}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        problem = key_problem(words[0])
        bad = [b for b in words[1:] if board_problem(b)]
        if problem or bad or len(words) < 2:
            why = problem or (f"bad board id {bad[0][:40]!r}" if bad else "no board after the key")
            raise WebError(f"--scorer-keys {path}, line {n}: {why} (a line is: KEY BOARD [BOARD ...])")
        keys[normal_key(words[0])] = frozenset(words[1:])
    return keys


def issue_scorer_key(path: str, boards: list[str]) -> str:
    """A new scorer's key for `boards`, appended to the keys file (made readable by its owner only); the key."""
    bad = [b for b in boards if board_problem(b)]
    if not boards or bad:
        raise WebError(f"--issue-key: {board_problem(bad[0]) if bad else 'name the boards the key scores'}")
    read_scorer_keys(path)  # a damaged file is said before anything is added
    key = new_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(f"{key} {' '.join(dict.fromkeys(boards))}\n")
    except OSError as e:
        raise WebError(f"--scorer-keys {path}: cannot write it: {e.strerror or e}") from None
    return key


def revoke_scorer_key(path: str, key: str) -> list[str]:
    """The key's line taken out of the keys file; the boards it scored (WebError when it is not there)."""
    wanted = normal_key(key)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError as e:
        raise WebError(f"--scorer-keys {path}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    kept, boards = [], []
    for line in lines:
        words = line.split("#", 1)[0].split()
        if words and normal_key(words[0]) == wanted:
            boards = words[1:]
        else:
            kept.append(line)
    if not boards:
        raise WebError(f"--revoke-key: no key {shown_key(key)} in {path}")
    tmp = f"{path}.new"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.writelines(kept)
    os.replace(tmp, path)
    return boards


class Keys:
    """Every key of the server: the scoring key (every board), the organiser's, and the scorers' keys file, read again
    when it changes (so a key issued or revoked while the server runs counts at once)."""

    def __init__(self, scoring: str, organiser: str, scorer_file: str | None = None) -> None:
        self.scoring, self.organiser, self.scorer_file = scoring, organiser, scorer_file
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._scorers: dict[str, frozenset[str]] = {}
        if scorer_file is not None:
            self._scorers = read_scorer_keys(scorer_file)
        if normal_key(scoring) == normal_key(organiser):
            raise WebError("the organiser's key must not be the scoring key: give each its own")

    def scorers(self) -> dict[str, frozenset[str]]:
        path = self.scorer_file
        if path is None:
            return {}
        with self._lock:
            try:
                st = os.stat(path)
                stamp = (st.st_size, st.st_mtime_ns)
            except OSError:
                stamp = None
            if stamp != self._stamp:
                try:
                    self._scorers = read_scorer_keys(path) if stamp is not None else {}
                    self._stamp = stamp
                except WebError:
                    pass  # a file half written, or damaged: the keys read last stay, until it reads again
            return self._scorers

    def grant(self, given: str) -> Grant | None:
        g = normal_key(given).encode()
        if hmac.compare_digest(g, normal_key(self.organiser).encode()):
            return Grant("the organiser's key", frozenset(), organiser=True)
        if hmac.compare_digest(g, normal_key(self.scoring).encode()):
            return Grant("the scoring key for every board", None)
        found = None
        for key, boards in self.scorers().items():  # every key compared, in constant time each
            if hmac.compare_digest(g, key.encode()):
                found = boards
        if found is not None:
            return Grant(f"a scorer's key for {', '.join(sorted(found))}", found)
        return None


# ---------------------------------------------------------------- the broker side
