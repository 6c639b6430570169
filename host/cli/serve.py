"""`flickboard serve --config flickboard.toml`: everything a site runs, from one file, kept running.

The file names the broker once and has a section per part; a part runs when its section is there:

    mqtt = "mqtt://localhost"            # every part's broker (a section may name its own, with its own user)

    [bridge]                             # the options of `flickboard bridge`, as TOML keys
    boards = ["table-1", "table-2"]
    [web]                                # `flickboard web`
    host = "0.0.0.0"
    key_file = "club.key"
    [integrations]                       # `flickboard integrations`
    homeassistant = true
    [tournament]                         # the hall of a tournament: `flickboard web` runs it, with its pages;
    file = "open.jsonl"                  # without [web], `flickboard tournament run` does

Each key is an option of the part's own command, written with `_` (`key_file` is `--key-file`): a string or a
number is its value, `true` a flag, a list a repeated option (or, for an option that takes several words or a
comma-separated list, those). The options are checked before anything starts, with the part's own parser, so a
mistake is one line naming the file, the section and the option. Relative paths are relative to the file's folder:
every part runs there.

Each part is its own process (the `flickboard` command itself), so that one that dies takes nothing else with it:
it is started again after 1 s, then 2, 4, ... up to a minute while it keeps dying, and from 1 s again once it has run
a minute. Nothing is lost meanwhile: the bridge's journals are on disk, a board keeps what was not acknowledged and
sends it again, and the broker keeps the bridge's messages for its persistent session. Every line a part writes
is passed on with the part's name in front. SIGTERM, SIGINT or SIGHUP stops every part (SIGTERM, then SIGKILL for
one that has not ended within STOP_S) and then serve itself; the parts end too when serve is killed outright
(host/lifecycle.py).

`--print-systemd-unit` prints a systemd unit that starts `serve` at boot with this file (docs/service.md).
"""

from __future__ import annotations

import argparse
import getpass
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from flickboard import lifecycle
from flickboard.config import ConfigError, parse_mqtt_url
from flickboard.errors import UserError

PARTS = ("bridge", "web", "integrations", "tournament")  # the sections, in the order the parts start
BROKER_KEYS = ("mqtt", "ca_file", "password_file")  # the file's top level: every part's broker settings
# options a section may not have: a one-shot action, or what the file says elsewhere ([tournament] for the web's)
REFUSED = {"bridge": ("stdin",), "integrations": ("retract",), "web": ("tournament", "issue_key", "revoke_key")}
FIRST_DELAY_S = 1.0
MAX_DELAY_S = 60.0
STABLE_S = 60.0  # a part that ran this long starts again after FIRST_DELAY_S when it dies
STOP_S = 20.0  # how long the parts have to stop before they are killed
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
STDOUT = subprocess.STDOUT  # a part's errors go with its output


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="TOML", required=True, help="the site's file: the broker and a section per part")
    p.add_argument(
        "--print-systemd-unit",
        action="store_true",
        help="print a systemd unit that runs this at boot, and exit (docs/service.md)",
    )
    p.add_argument("--user", help="with --print-systemd-unit: the user the service runs as (default: you)")


@dataclass
class Part:
    """One part of the site: its command line (after `flickboard`) and its process."""

    name: str
    argv: list[str]
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    due: float | None = 0.0  # when to start it (None: not to be started)
    delay: float = FIRST_DELAY_S
    starts: int = 0
    last: deque[str] = field(default_factory=lambda: deque(maxlen=3))  # its last lines, said when it dies
    reader: threading.Thread | None = None


# ---------------------------------------------------------------- the file


Parsers = Callable[[str], argparse.ArgumentParser]  # the flickboard parser with one command set up (cli/main.py)


def read_site(path: Path, parsers: Parsers) -> list[Part]:
    """The parts the file names, each with a command line checked by `parsers(command)`, the command's own parser.
    UserError in one line otherwise."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file (an example is in docs/service.md)") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None
    unknown = [k for k in doc if k not in (*BROKER_KEYS, *PARTS)]
    if unknown:
        raise UserError(
            f"{path}: unknown key or section {unknown[0]!r} (the top level has {', '.join(BROKER_KEYS)} and the "
            f"sections [{'], ['.join(PARTS)}])"
        )
    broker = {k: doc[k] for k in BROKER_KEYS if k in doc}
    sections: dict[str, dict[str, Any]] = {}
    for name in PARTS:
        if name not in doc:
            continue
        if not isinstance(doc[name], dict):
            raise UserError(f"{path}: {name} must be a section, [{name}]")
        refused = [k for k in doc[name] if k.replace("-", "_") in REFUSED.get(name, ())]
        if refused:
            raise UserError(f"{path}: [{name}]: {refused[0]!r} is not an option here")
        sections[name] = dict(doc[name])
    if not sections:
        raise UserError(f"{path}: no part to run: add a section, [{'], ['.join(PARTS)}]")
    parts: list[Part] = []
    hall = sections.pop("tournament", None)
    if hall is not None:
        if not isinstance(hall.get("file"), str) or not hall["file"].strip():
            raise UserError(f'{path}: [tournament]: give the tournament\'s journal, file = "open.jsonl"')
        event = path.parent / hall["file"].strip()
        if not event.is_file():
            raise UserError(
                f"{path}: [tournament]: there is no tournament {event} (start one: flickboard tournament new "
                f"{shlex.quote(str(event))} --name NAME)"
            )
        if "web" in sections:  # the web server runs the hall itself, beside the tournament's pages
            extra = sorted(set(hall) - {"file"})
            if extra:
                raise UserError(
                    f"{path}: [tournament]: with [web], the web server runs the hall and takes only 'file', not "
                    f"{extra[0]!r}"
                )
            sections["web"]["tournament"] = hall["file"]
        else:
            sections["hall"] = hall
    for name, options in sections.items():
        merged = {**broker, **options}
        if "mqtt" not in merged and "config" not in merged and (name != "bridge" or "serial" not in merged):
            section = "tournament" if name == "hall" else name
            raise UserError(f'{path}: [{section}]: give the broker: mqtt = "mqtt://host" at the top of the file')
        parts.append(Part(name, _command(path, name, merged, parsers)))
    return parts


def _command(path: Path, name: str, options: dict[str, Any], parsers: Parsers) -> list[str]:
    """The part's command line from its section, checked by the part's own parser."""
    command = "tournament" if name == "hall" else name
    where = f"{path}: [{'tournament' if name == 'hall' else name}]"
    parser = parsers(command)
    sub = _subparser(parser, command)
    words: list[str] = []
    if name == "hall":
        sub = _subparser(sub, "run")
        words = ["run", str(options.pop("file")).strip()]
    actions = {a.dest: a for a in sub._actions if a.option_strings and a.dest != "help"}
    for key, value in options.items():
        action = actions.get(key.replace("-", "_"))
        if action is None:
            known = ", ".join(sorted(actions))
            raise UserError(f"{where}: unknown option {key!r} (known: {known})")
        words += _words(where, key, action, value)
    try:
        parser.parse_args([command, *words])
    except UserError as e:
        raise UserError(f"{where}: {e}") from None
    return [command, *words]


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            found: argparse.ArgumentParser = action.choices[name]
            return found
    raise AssertionError(name)


def _words(where: str, key: str, action: argparse.Action, value: Any) -> list[str]:
    """A TOML value as the words of one option."""
    flag = next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])
    if isinstance(action, argparse.BooleanOptionalAction):
        if not isinstance(value, bool):
            raise UserError(f"{where}: {key} is true or false")
        return [flag] if value else [f"--no-{flag[2:]}"]
    if action.nargs == 0:  # a flag
        if not isinstance(value, bool):
            raise UserError(f"{where}: {key} is true or false")
        return [flag] if value else []
    if isinstance(value, bool):
        if action.nargs == "?":  # an option whose value may be left out (integrations' homeassistant)
            return [flag] if value else []
        raise UserError(f"{where}: {key} takes a value, not {str(value).lower()}")
    if isinstance(value, list):
        items = [_scalar(where, key, v) for v in value]
        if isinstance(action, argparse._AppendAction):
            return [w for item in items for w in (flag, item)]
        if action.nargs in ("+", "*") or isinstance(action.nargs, int):
            return [flag, *items]
        return [flag, ",".join(items)]  # a comma-separated list (the bridge's boards)
    return [flag, _scalar(where, key, value)]


def _scalar(where: str, key: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise UserError(f"{where}: {key} takes a string or a number")
    return str(value)


# ---------------------------------------------------------------- running the parts


class Site:
    """The parts, each started, followed and started again; `stop()` ends them all."""

    def __init__(self, parts: list[Part], folder: Path, out: TextIO) -> None:
        self.parts = parts
        self.folder = folder
        self.out = out
        self.lock = threading.Lock()

    def say(self, line: str) -> None:
        with self.lock:
            print(line, file=self.out, flush=True)

    def start(self, part: Part) -> None:
        """Start the part's process (from the main thread: it is bound to end with this one, host/lifecycle.py)."""
        cmd = [sys.executable, "-m", "flickboard.cli.main", *part.argv]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        part.last.clear()
        try:
            part.proc = lifecycle.spawn(
                cmd,
                cwd=self.folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
        except OSError as e:
            part.proc = None
            self.say(f"serve: {part.name} could not start: {e.strerror or e}")
            self._again(part, time.monotonic())
            return
        part.started = time.monotonic()
        part.starts += 1
        part.due = None
        again = f" (start {part.starts})" if part.starts > 1 else ""
        self.say(f"serve: {part.name} started{again}, pid {part.proc.pid}: flickboard {shlex.join(part.argv)}")
        part.reader = threading.Thread(target=self._relay, args=(part, part.proc), name=f"serve-{part.name}")
        part.reader.daemon = True
        part.reader.start()

    def _relay(self, part: Part, proc: subprocess.Popen[bytes]) -> None:
        """Every line the part writes, with its name in front."""
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line.strip():
                part.last.append(line.strip())
            self.say(f"{part.name}: {line}")

    def check(self, now: float) -> None:
        """Start what is due; a part that ended is said and started again later."""
        for part in self.parts:
            if part.proc is not None and part.proc.poll() is not None:
                code = part.proc.returncode
                if part.reader is not None:
                    part.reader.join(2)  # its last lines first
                ran = now - part.started
                if ran >= STABLE_S:
                    part.delay = FIRST_DELAY_S
                why = f"signal {-code}" if code < 0 else f"exit status {code}"
                said = f": {part.last[-1]}" if part.last and code > 0 else ""  # its error, in its own words
                self.say(f"serve: {part.name} stopped after {ran:.0f} s ({why}{said}); starting it again in "
                         f"{part.delay:g} s")  # fmt: skip
                part.proc = None
                self._again(part, now)
            elif part.proc is None and part.due is not None and now >= part.due:
                self.start(part)

    def _again(self, part: Part, now: float) -> None:
        part.due = now + part.delay
        part.delay = min(part.delay * 2, MAX_DELAY_S)

    def stop(self) -> None:
        """SIGTERM to every part, then SIGKILL to those still running after STOP_S."""
        running = [p for p in self.parts if p.proc is not None and p.proc.poll() is None]
        for part in running:
            assert part.proc is not None
            part.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_S
        for part in running:
            assert part.proc is not None
            try:
                part.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(f"serve: {part.name} did not stop within {STOP_S:g} s: killing it")
                part.proc.kill()
                part.proc.wait()
        for part in self.parts:
            if part.reader is not None:
                part.reader.join(2)


def run_serve(args: argparse.Namespace, out: TextIO) -> int:
    path = Path(args.config).expanduser().absolute()
    parts = read_site(path, args.parsers)
    if args.print_systemd_unit:
        print(systemd_unit(path, args.user), file=out, end="")
        return 0
    site = Site(parts, path.parent, out)
    stop = threading.Event()
    with lifecycle.on_stop_signals(stop.set):
        site.say(f"serve: {', '.join(p.name for p in parts)} from {path}; SIGTERM or Ctrl-C stops them all")
        try:
            while not stop.is_set():
                site.check(time.monotonic())
                stop.wait(0.2)
        finally:
            site.say("serve: stopping")
            site.stop()
    restarts = sum(max(0, p.starts - 1) for p in parts)
    site.say(f"serve: stopped ({restarts} restart{'s' * (restarts != 1)})")
    return 0


# ---------------------------------------------------------------- the systemd unit


def systemd_unit(config: Path, user: str | None = None, command: Callable[[], str] | None = None) -> str:
    """A systemd service that runs `flickboard serve --config CONFIG` at boot as `user`, after the network and, when
    the broker is on this machine, after its Mosquitto; restarted if serve itself ever fails."""
    exe = (command or _flickboard)()
    broker = _local_broker(config)
    after = "network-online.target" + (" mosquitto.service" if broker else "")
    return "\n".join(
        [
            "# flickboard serve at boot: sudo cp this /etc/systemd/system/flickboard.service, then",
            "# sudo systemctl daemon-reload && sudo systemctl enable --now flickboard (docs/service.md)",
            "[Unit]",
            "Description=Flickboard: the bridge, pages and integrations of " + _specifiers(str(config)),
            f"Wants={after}",
            f"After={after}",
            "",
            "[Service]",
            "Type=exec",
            f"User={user or getpass.getuser()}",
            f"WorkingDirectory={_specifiers(str(config.parent))}",
            f"ExecStart={_word(exe)} serve --config {_word(str(config))}",
            "Environment=PYTHONUNBUFFERED=1",
            "Restart=on-failure",
            "RestartSec=5",
            "KillMode=mixed",  # SIGTERM to serve alone, which stops its parts in order; SIGKILL to all if it hangs
            f"TimeoutStopSec={STOP_S + 15:.0f}",
            "",
            "[Install]",
            "WantedBy=multi-user.target",
            "",
        ]
    )


def _flickboard() -> str:
    """The absolute path of this `flickboard` command (a pipx or venv install), for ExecStart."""
    beside = Path(sys.executable).parent / "flickboard"
    if beside.is_file():
        return str(beside.absolute())
    found = shutil.which("flickboard")
    if found is None:
        raise UserError("cannot tell where the flickboard command is installed: run this with its full path")
    return str(Path(found).absolute())


def _specifiers(text: str) -> str:
    """Text as systemd reads it where it expands specifiers (`%h`, ...): every % doubled."""
    return text.replace("%", "%%")


def _word(text: str) -> str:
    """One word of ExecStart=: specifiers escaped, and quoted when it has spaces, quotes or backslashes."""
    text = _specifiers(text).replace("$", "$$")
    if not any(c in text for c in " \t\"'\\;"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _local_broker(config: Path) -> bool:
    """The file's broker is on this machine (its Mosquitto is a unit to wait for)."""
    try:
        doc = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    urls = [doc.get("mqtt")] + [s.get("mqtt") for s in doc.values() if isinstance(s, dict)]
    for url in urls:
        if isinstance(url, str):
            try:
                if parse_mqtt_url(url).host in LOCAL_HOSTS:
                    return True
            except ConfigError:
                continue
    return False
