"""Append-only, crash-safe journal of every input to a Flickboard game session.

Format: JSON Lines, UTF-8, every line ends with "\\n".  Line 1 is the header
``{"n":0,"kind":"flickboard-journal","version":1,"setup":{...}}``; each later line
is one entry, numbered n = 1, 2, 3... with no gaps.  Every record carries "crc":
the CRC-32 (8 lowercase hex digits) of its canonical JSON (sorted keys, compact
separators, UTF-8) without the "crc" key; the line is that canonical JSON with
"crc" added, so it stays readable with ``tail``.

Crash guarantees: append() writes the whole line with a single write() on an
O_APPEND descriptor and fsyncs before it returns, so an acknowledged entry
survives a crash and a crash leaves at most one incomplete last line.  A caller
that takes many entries at once (the bridge under a flood of board events) may
append with sync=False and call sync() once for the lot: one fsync for all
(group commit).  It must not acknowledge any of them before sync() returns; if
sync() fails, every entry since the last good sync is cut off the file.  open()
moves such a torn tail (an unterminated last line: the only thing a crash mid-write
leaves) into ``<path>.torn-<offset>`` and truncates the journal to its last complete
line.  A complete line that fails its check (a flipped bit, a bad edit, a missing
record) is damage, never a torn write: open() raises JournalCorrupt and changes
nothing, or with damaged_ok=True leaves the line where it is, copies it to
``<path>.damaged-<offset>``, lists it in ``damaged`` and reads every other line
(host/core/session.py then journals a hold for a person).
Only one process at a time may hold a journal (flock on ``<path>.lock``).
"""

from __future__ import annotations

import bisect
import fcntl
import json
import os
import time
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, NamedTuple, NoReturn

from flickboard.jsontext import canonical, loads
from flickboard.rules.text import Message

KIND = "flickboard-journal"
VERSION = 1


class JournalError(Exception):
    """A journal problem, described in one sentence for the user."""


class JournalInUse(JournalError):
    """Another process holds the journal."""


class JournalCorrupt(JournalError):
    """A damaged record that is not the torn last one."""


class HeaderDamaged(JournalCorrupt):
    """Line 1 (the set-up) is complete but cannot be used; the lines after it may still be read (`salvage`)."""


@dataclass(frozen=True)
class TornTail:
    """An incomplete last record that open() found and set aside."""

    offset: int
    length: int
    saved_to: str

    def message(self) -> str:
        journal = self.saved_to.rsplit(".torn-", 1)[0]
        return Message(
            "journal {journal}: the last record ({length} bytes at offset {offset}) was incomplete — the process "
            "stopped while writing it; it was never acknowledged and has been set aside in {saved}",
            journal=journal,
            length=self.length,
            offset=self.offset,
            saved=self.saved_to,
        )


def _canonical(obj: dict[str, Any]) -> str:
    return canonical(obj)


def _crc(obj: dict[str, Any]) -> str:
    return f"{zlib.crc32(_canonical(obj).encode('utf-8')):08x}"


def _string(s: str) -> str:
    return canonical(s)


def _value(v: Any) -> str:
    """One value as canonical JSON: ints and strings formatted directly (most of a record), the rest by the
    encoder. The same text as `_canonical` would give."""
    if type(v) is int:
        return str(v)
    if type(v) is str:
        return _string(v)
    return canonical(v)


def _encode(record: dict[str, Any]) -> bytes:
    """The full line for a record; raises TypeError/ValueError if JSON can't hold it.

    Built once: the canonical JSON (for the checksum) and the line (with "crc" in its sorted place) are joins of
    the same key-value parts."""
    if "crc" in record:
        raise ValueError("a record must not set 'crc'")
    keys = sorted(record)
    if not all(type(k) is str for k in keys):
        raise TypeError("record keys must be strings")
    parts = [f"{_string(k)}:{_value(record[k])}" for k in keys]
    crc = f"{zlib.crc32(('{' + ','.join(parts) + '}').encode('utf-8')):08x}"
    at = bisect.bisect(keys, "crc")
    parts.insert(at, f'"crc":"{crc}"')
    return ("{" + ",".join(parts) + "}\n").encode("utf-8")


_loads = loads


def _decode(line: bytes) -> dict[str, Any] | str:
    """The record on one line (without "crc"), or the reason it is not intact."""
    try:
        obj = _loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return Message("it is not valid UTF-8 JSON")
    if not isinstance(obj, dict):
        return Message("it is not a JSON object")
    crc = obj.pop("crc", None)
    if type(crc) is str and _crc_of_line(line) == crc:
        return obj
    try:
        intact = crc == _crc(obj)
    except ValueError:  # NaN/Infinity literals: never written by us
        intact = False
    return obj if intact else Message("its checksum does not match its content")


def _crc_of_line(line: bytes) -> str | None:
    """The checksum of a line as `_encode` writes it: the canonical JSON is the line without its "crc" member, so
    the bytes on disk can be checked as they are, without encoding the record again. None when the line does not
    have that shape; `_decode` then checks the record the slow way, so this only ever makes reading faster."""
    at = line.find(b'"crc":"')
    if at < 0 or line[at + 15 : at + 16] != b'"':
        return None
    if line[at - 1 : at] == b",":
        canonical = line[: at - 1] + line[at + 16 :]
    elif line[at + 16 : at + 17] == b",":
        canonical = line[:at] + line[at + 17 :]
    else:
        return None
    return f"{zlib.crc32(canonical):08x}"


@dataclass(frozen=True)
class Damage:
    """A complete line (it ends with its newline, so it is no torn write) that fails its check, or records missing
    between two good ones. Its bytes stay in the journal where they are; `open(damaged_ok=True)` also copies them to
    `saved_to`. `seen`: what the line seems to say (parsed, but not to be trusted), when it parses at all."""

    line: int  # 1-based line number in the file
    offset: int
    length: int
    reason: str
    seen: dict[str, Any] | None = None
    saved_to: str | None = None

    def message(self, path: str) -> str:
        values = {"path": path, "line": self.line, "length": self.length, "offset": self.offset, "reason": self.reason}
        if self.saved_to:
            return Message(
                "journal {path}: line {line} ({length} bytes at offset {offset}) is damaged: {reason}; it was left "
                "out of the game and every other line was read (a copy is in {saved})",
                saved=self.saved_to,
                **values,
            )
        return Message(
            "journal {path}: line {line} ({length} bytes at offset {offset}) is damaged: {reason}; it was left out "
            "of the game and every other line was read",
            **values,
        )


def _seen(line: bytes) -> dict[str, Any] | None:
    try:  # a flipped high bit makes a byte that is not UTF-8: read around it, as what the line seems to say
        obj = _loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _header_like(obj: dict[str, Any]) -> bool:
    return (
        obj.get("n") == 0
        and obj.get("kind") == KIND
        and obj.get("version") == VERSION
        and isinstance(obj.get("setup"), dict)
    )


class Scan(NamedTuple):
    setup: dict[str, Any]
    records: list[dict[str, Any]]  # the good entries
    end: int  # the end of the last complete line
    damage: list[Damage]
    last: int  # the last record number, a damaged line counting as the one it stands for


def _scan(path: str, data: bytes, damaged_ok: bool = False, collect: bool = True) -> Scan:
    """Verify every record: the setup, the good entries, the end of the last complete line and the damage.

    Only an unterminated last line is torn (a crash mid-write). A complete line that fails its check is damage:
    JournalCorrupt, or with `damaged_ok` a `Damage` and the reading goes on (the header must be intact).
    `collect=False`: check every line but keep none of the entries (a long journal's records are read again as a
    stream, `Journal.stream`)."""
    setup: dict[str, Any] | None = None
    records: list[dict[str, Any]] = []
    damage: list[Damage] = []
    pos = lineno = 0
    last_n = 0
    skipped = 0  # damaged lines since the last good record: each stands for one record number
    while (nl := data.find(b"\n", pos)) >= 0:  # an unterminated last line is torn
        lineno += 1
        raw = data[pos:nl]
        rec = _decode(raw)
        problem: str | None = None
        if isinstance(rec, str):
            problem = rec
        else:
            n = rec.get("n")
            if lineno == 1:
                if (
                    n != 0
                    or rec.get("kind") != KIND
                    or rec.get("version") != VERSION
                    or not isinstance(rec.get("setup"), dict)
                ):
                    raise JournalCorrupt(
                        f"journal {path} line 1 is not a {KIND} version {VERSION} header; nothing was changed"
                    )
                setup = rec["setup"]
            elif type(n) is not int or n <= last_n:
                problem = f"expected record n={last_n + skipped + 1} but found n={json.dumps(n)}"
            else:
                missing = n - last_n - 1 - skipped
                if missing > 0:
                    what = f"record {last_n + 1}" if n - last_n == 2 else f"records {last_n + 1} to {n - 1}"
                    problem = f"{what} {'is' if n - last_n == 2 else 'are'} missing before it"
                    if not damaged_ok:
                        raise JournalCorrupt(
                            f"journal {path} is damaged at line {lineno}: expected record "
                            f"n={last_n + skipped + 1} but found n={n}; nothing was changed"
                        )
                    damage.append(Damage(lineno, pos, 0, problem))
                if collect:
                    records.append(rec)
                last_n, skipped = n, 0
                pos = nl + 1
                continue
        if problem is not None:
            if lineno == 1 and nl + 1 == len(data):  # one line, and not a header: not a journal at all
                raise JournalCorrupt(f"journal {path} has no complete header; it is not a usable journal")
            if lineno == 1:
                seen = _seen(raw) if damaged_ok else None
                if seen is None or not _header_like(seen):
                    more = nl + 1 < len(data)
                    raise (HeaderDamaged if more else JournalCorrupt)(
                        f"journal {path} is damaged at line 1: {problem}; it has no usable header"
                    )
                # The set-up fails its check but still reads as one: it is taken as it seems to be, and said.
                setup = seen["setup"]
                damage.append(Damage(1, pos, nl + 1 - pos, problem, seen))
                pos = nl + 1
                continue
            if not damaged_ok:
                raise JournalCorrupt(
                    f"journal {path} is damaged at line {lineno}: {problem}; nothing was changed"
                    + (
                        " (a complete last line that fails its check is damage, not a torn write)"
                        if nl + 1 == len(data)
                        else ""
                    )
                )
            damage.append(Damage(lineno, pos, nl + 1 - pos, problem, _seen(raw)))
            skipped += 1
        pos = nl + 1
    if setup is None:
        raise JournalCorrupt(f"journal {path} has no complete header; it is not a usable journal")
    return Scan(setup, records, pos, damage, last_n + skipped)


def _fsync_dir(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _lock(path: str, wait: float = 0.0) -> int:
    """The journal's lock file, locked; `wait`: seconds to wait for another process that holds it (one that appends
    for a moment, as the tournament's hall does), polling, before JournalInUse."""
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise JournalInUse(f"journal {path} is in use by another flickboard process (pid {holder})") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _set_aside(path: str, fd: int, data: bytes, end: int) -> TornTail:
    """Move data[end:] to a new side file (fsynced), then truncate the journal to end."""
    saved_to, copy = f"{path}.torn-{end}", 1
    while True:  # a crash mid-recovery may have left one already: never overwrite it
        try:
            side = os.open(saved_to, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError:
            copy += 1
            saved_to = f"{path}.torn-{end}.{copy}"
    try:
        rest = memoryview(data)[end:]
        while rest:
            rest = rest[os.write(side, rest) :]
        os.fsync(side)
    finally:
        os.close(side)
    _fsync_dir(saved_to)
    os.ftruncate(fd, end)
    os.fsync(fd)
    return TornTail(offset=end, length=len(data) - end, saved_to=saved_to)


def _keep_copy(path: str, data: bytes, d: Damage) -> Damage:
    """A copy of a damaged line's bytes in `<path>.damaged-<offset>` (fsynced; one already there is kept). The line
    itself stays in the journal: nothing is ever deleted."""
    if not d.length:
        return d
    saved_to = f"{path}.damaged-{d.offset}"
    body = data[d.offset : d.offset + d.length]
    try:
        side = os.open(saved_to, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return replace(d, saved_to=saved_to)
    try:
        rest = memoryview(body)
        while rest:
            rest = rest[os.write(side, rest) :]
        os.fsync(side)
    finally:
        os.close(side)
    _fsync_dir(saved_to)
    return replace(d, saved_to=saved_to)


class Journal:
    """An open journal, exclusively held by this process until close()."""

    def __init__(
        self,
        path: str,
        fd: int,
        lock_fd: int,
        setup: dict[str, Any],
        records: list[dict[str, Any]] | None,
        size: int,
        torn: TornTail | None,
        count: int | None = None,
        damaged: list[Damage] | None = None,
        damaged_ok: bool = False,
    ) -> None:
        self.path = path
        self.header = setup
        self.count = len(records or ()) if count is None else count  # entries in the journal: the last one's n
        self.torn = torn
        self.damaged = damaged or []  # complete lines that fail their check (open with damaged_ok=True)
        self._damaged_ok = damaged_ok
        self._fd, self._lock_fd, self._size = fd, lock_fd, size
        self._synced = (size, self.count)  # the file's length and entries at the last fsync
        # The records read at open (the session folds them once); dropped at the first append, so a long-running
        # journal does not keep every entry in memory. `records` reads the file again when asked after that.
        self._loaded: list[dict[str, Any]] | None = records

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every entry (without "crc"), as on disk."""
        if self._loaded is None:
            self._loaded = _scan(self.path, _read_bytes(self.path), self._damaged_ok).records
        return self._loaded

    @classmethod
    def create(cls, path: str, setup: dict[str, Any]) -> Journal:
        try:
            line = _encode({"n": 0, "kind": KIND, "version": VERSION, "setup": setup})
        except (TypeError, ValueError, RecursionError) as e:
            raise JournalError(f"the setup for journal {path} cannot be stored as JSON ({e})") from None
        try:
            with ExitStack() as undo:
                lock_fd = _lock(path)
                undo.callback(os.close, lock_fd)
                try:
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
                except FileExistsError:
                    raise JournalError(f"journal {path} already exists; open it instead") from None
                undo.callback(os.unlink, path)  # runs after the close below, on failure only
                undo.callback(os.close, fd)
                if os.write(fd, line) != len(line):
                    raise OSError(f"short write to {path}")
                os.fsync(fd)
                _fsync_dir(path)
                undo.pop_all()
        except OSError as e:
            raise JournalError(f"journal {path} could not be created ({e})") from e
        return cls(path, fd, lock_fd, json.loads(line)["setup"], [], len(line), None)

    @classmethod
    def open(cls, path: str, damaged_ok: bool = False, collect: bool = True, wait: float = 0.0) -> Journal:
        """Open for appending. An incomplete last line is set aside (a torn write). A complete line that fails its
        check raises JournalCorrupt; with `damaged_ok` it is left where it is, copied to `<path>.damaged-<offset>`,
        listed in `damaged`, and every other line is read (the caller must say so and hold the game).
        `collect=False`: the entries are checked but not kept in memory (`records` and `stream` read them again).
        `wait`: seconds to wait for another process holding it before JournalInUse."""
        try:
            with ExitStack() as undo:
                try:
                    fd = os.open(path, os.O_RDWR | os.O_APPEND)
                except FileNotFoundError:
                    raise JournalError(f"journal {path} does not exist") from None
                undo.callback(os.close, fd)
                lock_fd = _lock(path, wait)
                undo.callback(os.close, lock_fd)
                with open(path, "rb") as f:
                    data = f.read()
                scan = _scan(path, data, damaged_ok, collect)
                torn = _set_aside(path, fd, data, scan.end) if scan.end < len(data) else None
                damaged = [_keep_copy(path, data, d) for d in scan.damage]
                del data  # (a long journal: its bytes are not kept either)
                undo.pop_all()
        except OSError as e:
            raise JournalError(f"journal {path} could not be opened ({e})") from e
        records = scan.records if collect else None
        return cls(path, fd, lock_fd, scan.setup, records, scan.end, torn, scan.last, damaged, damaged_ok)

    def stream(self) -> Iterator[dict[str, Any]]:
        """Every intact entry, as `records` has them, read from the file as it goes: a long journal is never all in
        memory. Entries appended while it runs may or may not be seen."""
        if self._loaded is not None:
            yield from self._loaded
            return
        for _, rec in self.read_from(0):
            yield rec

    def read_from(self, offset: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """The intact records from byte `offset` (the start of a line) on, each with the offset of its line, read from
        the file a block at a time (memory stays small whatever the journal's length). Damaged lines are left out."""
        with open(self.path, "rb") as f:
            f.seek(offset)
            rest = b""
            at = offset
            while block := f.read(1 << 20):
                rest += block
                pos = 0
                while (nl := rest.find(b"\n", pos)) >= 0:
                    rec = _decode(rest[pos:nl])
                    if not isinstance(rec, str) and type(rec.get("n")) is int and rec["n"] > 0:
                        yield at + pos, rec
                    pos = nl + 1
                at += pos
                rest = rest[pos:]

    def append(self, entry: dict[str, Any], sync: bool = True) -> int:
        """Write one entry durably and return its n (only once it is on disk).
        `sync=False`: written but not yet durable; `sync()` makes it so (see the module docstring)."""
        if self._fd < 0:
            raise JournalError(f"journal {self.path} is closed")
        n = self.count + 1
        if "n" in entry or "crc" in entry:
            raise JournalError(f"entry {n} for journal {self.path} must not set 'n' or 'crc'")
        try:
            line = _encode({**entry, "n": n})
        except (TypeError, ValueError, RecursionError) as e:
            raise JournalError(f"entry {n} for journal {self.path} cannot be stored as JSON ({e})") from None
        try:  # one write() per line: a crash leaves at most the last line incomplete
            if os.write(self._fd, line) != len(line):
                raise OSError(f"short write to {self.path}")
        except OSError as e:
            self._fail(n, e)
        self._size += len(line)
        self.count = n
        self._loaded = None
        if sync:
            self.sync()
        return n

    def sync(self) -> None:
        """Make every entry appended with sync=False durable: one fsync. On failure they are cut off the file (none
        of them may be acknowledged), the journal is closed and JournalError says which entries were lost."""
        if self._synced[1] == self.count:
            return
        if self._fd < 0:
            raise JournalError(
                f"journal {self.path}: entries {self._synced[1] + 1} to {self.count} could not be made durable "
                "before it was closed"
            )
        try:
            os.fsync(self._fd)
        except OSError as e:
            self._fail(self.count, e)
        self._synced = (self._size, self.count)

    def _fail(self, last: int, e: OSError) -> NoReturn:
        """Entries after the last good sync, up to `last`, are lost: cut them off and close (without the sync that
        `close` does: they must stay lost, so that nobody acknowledges them)."""
        with suppress(OSError):  # undo what is not durable; none of it was acknowledged
            os.ftruncate(self._fd, self._synced[0])
        self._close_fds()
        first = self._synced[1] + 1
        what = f"entry {last}" if first == last else f"entries {first} to {last}"
        raise JournalError(
            f"journal {self.path}: {what} could not be written ({e}); the journal was closed and must be reopened"
        ) from e

    def close(self) -> None:
        """Close, making entries appended with sync=False durable first. If that fsync fails they are cut off and a
        later `sync()` still raises, so nobody acknowledges them."""
        if self._fd >= 0 and self._synced[1] != self.count:
            with suppress(JournalError):  # said by the next sync()
                self.sync()
        self._close_fds()

    def _close_fds(self) -> None:
        for fd in (self._fd, self._lock_fd):  # closing the lock fd releases the flock
            if fd >= 0:
                os.close(fd)
        self._fd = self._lock_fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True)
class Snapshot:
    """A read-only view of a journal, taken without the lock (a live session may be writing it)."""

    path: str
    header: dict[str, Any]
    records: list[dict[str, Any]]
    torn_bytes: int  # length of an incomplete last record, left in place and not read
    damaged: tuple[Damage, ...] = ()  # read(damaged_ok=True): complete lines that fail their check, left out

    def torn_message(self) -> str | None:
        if not self.torn_bytes:
            return None
        return Message(
            "journal {path}: the last record ({n} bytes) is incomplete and was not read; 'flickboard play --resume' "
            "sets it aside",
            path=self.path,
            n=self.torn_bytes,
        )


def salvage(path: str) -> list[dict[str, Any]]:
    """Every intact entry of a journal whose set-up cannot be used (HeaderDamaged), in file order: what can still be
    read. Changes nothing and takes no lock."""
    out = []
    for line in _read_bytes(path).split(b"\n")[1:]:
        rec = _decode(line) if line else "empty"
        if not isinstance(rec, str) and type(rec.get("n")) is int and rec["n"] > 0:
            out.append(rec)
    return out


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise JournalError(f"journal {path} does not exist") from None
    except OSError as e:
        raise JournalError(f"journal {path} could not be read ({e})") from e


def read(path: str, damaged_ok: bool = False) -> Snapshot:
    """Verify and read every complete record; changes nothing on disk and takes no lock. A complete line that fails
    its check raises JournalCorrupt, or with `damaged_ok` is left out and listed in `damaged`."""
    data = _read_bytes(path)
    scan = _scan(path, data, damaged_ok)
    return Snapshot(path, scan.setup, scan.records, len(data) - scan.end, tuple(scan.damage))
