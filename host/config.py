"""Bridge configuration: defaults < TOML file < environment < command line, validated, secrets masked.

    cfg = load_config(toml_path, env=os.environ, cli={"mqtt": args.mqtt, "serial": args.serial, ...})

Every setting has one name used everywhere: the TOML key, the `cli` mapping key, and (upper-cased, with
`FLICKBOARD_` in front) the environment variable:

| setting     | TOML / cli      | environment            | default               |
|-------------|-----------------|------------------------|-----------------------|
| MQTT broker | `mqtt`          | `FLICKBOARD_MQTT`      | none (no MQTT)        |
| serial ports| `serial`        | `FLICKBOARD_SERIAL`    | none (no serial)      |
| boards      | `boards`        | `FLICKBOARD_BOARDS`    | none (discover all)   |
| CA file     | `ca_file`       | `FLICKBOARD_CA_FILE`   | none                  |
| password    | `password_file` | `FLICKBOARD_PASSWORD_FILE` | none (in the URL)  |
| client id   | `client_id`     | `FLICKBOARD_CLIENT_ID` | `flickboard-bridge`   |
| bridge id   | `bridge_id`     | `FLICKBOARD_BRIDGE_ID` | from the client id    |

(`client_id` names the persistent session; on the secured broker of docs/security.md the user name is the
client id, so there the user names it. `bridge_id` names the bridge's own topics, `flickboard/bridge/<id>/status`
and `…/health`, and is in each of its scoreboards: by default the client id with every character that a board id
may not have turned into `-`, cut to 32, since the client id is already fixed and unique per bridge on a broker.)

| keepalive s | `keepalive`     | `FLICKBOARD_KEEPALIVE` | 30                    |
| log level   | `log_level`     | `FLICKBOARD_LOG_LEVEL` | `INFO`                |
| journals    | `journals`      | `FLICKBOARD_JOURNALS`  | `journals`            |
| rule set    | `rules`         | `FLICKBOARD_RULES`     | `tournament-2019`     |
| players     | `players`       | `FLICKBOARD_PLAYERS`   | `North`, `South`      |
| match format| `match`         | `FLICKBOARD_MATCH`     | the rule set's        |

`journals`, `rules`, `players` and `match` set up the game of a board that has none yet (a board's game can
be replaced at any time with a `new` request on its input topic, docs/mqtt.md).

The TOML file is `toml_path`, else `$FLICKBOARD_CONFIG`, else none. Lists (`serial`, `boards`) are TOML
arrays (a single string is accepted too) and comma-separated in the environment. `mqtt` is a URL:
`mqtt://[user[:password]@]host[:port]` (port 1883) or `mqtts://…` (port 8883), which needs `ca_file`: the
broker's CA certificate, or `system` for the operating system's trust store. `password_file` holds the broker
password (its first line), so that it is not on the command line where `ps` shows it; the URL then names the user
only (`mqtts://flickboard-bridge@host`). `serial` entries are device
paths (prefer `/dev/serial/by-id/…`) or `auto` (find boards by USB VID/PID). `boards` empty or `+` means
"every board that shows up" (discovery through `flickboard/+/status`).

Errors are `ConfigError` with one line naming the source (`FLICKBOARD_MQTT: …`, `bridge.toml: …`,
`--mqtt: …`). Passwords never appear in `str()`/`repr()` of the config or in an error message.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = [
    "DEFAULTS",
    "KEYS",
    "SYSTEM_CA",
    "BridgeConfig",
    "ConfigError",
    "MqttUrl",
    "client_settings",
    "load_config",
    "mask_url",
    "parse_mqtt_url",
]

BOARD_ID = re.compile(r"[A-Za-z0-9_-]{1,32}\Z")  # \Z, not $: "t1\n" is not a board id
RESERVED_BOARDS = frozenset({"bridge"})  # flickboard/bridge/status is the bridge's own topic
BOARD_ID_RULE = "1-32 of A-Z a-z 0-9 _ -"


def board_problem(board: object) -> str | None:
    """Why `board` cannot name a board, in one line; None when it can. The one check every entry point uses."""
    if not isinstance(board, str) or not BOARD_ID.match(board):
        text = board if isinstance(board, str) else type(board).__name__
        return f"bad board id {text[:40]!r} ({BOARD_ID_RULE})"
    if board in RESERVED_BOARDS:
        return f"{board!r} is reserved (flickboard/{board}/status is the bridge's own topic)"
    return None


def is_board_id(board: object) -> bool:
    return board_problem(board) is None


def bridge_id_problem(bridge: object) -> str | None:
    """Why `bridge` cannot name a bridge (its topics `flickboard/bridge/<id>/…`), in one line; None when it can.
    The same characters as a board id."""
    if not isinstance(bridge, str) or not BOARD_ID.match(bridge):
        text = bridge if isinstance(bridge, str) else type(bridge).__name__
        return f"bad bridge id {text[:40]!r} ({BOARD_ID_RULE})"
    return None


def is_bridge_id(bridge: object) -> bool:
    return bridge_id_problem(bridge) is None


def default_bridge_id(client_id: str) -> str:
    """The bridge id of a bridge that names none: its MQTT client id (fixed, and unique per bridge on a broker)
    with every character a bridge id may not have turned into `-`, cut to 32."""
    text = re.sub(r"[^A-Za-z0-9_-]", "-", client_id)[:32]
    return text or "flickboard-bridge"


SYSTEM_CA = "system"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
KEYS = (
    "mqtt",
    "serial",
    "boards",
    "ca_file",
    "password_file",
    "client_id",
    "bridge_id",
    "keepalive",
    "log_level",
    "journals",
    "rules",
    "players",
    "match",
)
DEFAULTS: dict[str, Any] = {
    "mqtt": None,
    "serial": (),
    "boards": None,
    "ca_file": None,
    "password_file": None,
    "client_id": "flickboard-bridge",
    "bridge_id": None,  # from the client id
    "keepalive": 30,
    "log_level": "INFO",
    "journals": "journals",
    "rules": "tournament-2019",
    "players": ("North", "South"),
    "match": None,
}


class ConfigError(ValueError):
    """A bad setting; the message is one line that names where the value came from."""


_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)([^/]*)@")  # greedy: up to the authority's last "@"


def mask_url(url: str) -> str:
    """The URL with any password replaced by `***` (`mqtt://u:***@h`); safe to print or log."""

    def repl(m: re.Match[str]) -> str:
        user, sep, _ = m.group(2).partition(":")
        return f"{m.group(1)}{user}{':***' if sep else ''}@"

    return _USERINFO.sub(repl, url)


@dataclass(frozen=True)
class MqttUrl:
    """A parsed broker URL. `str()` and `repr()` mask the password; `password` itself is the clear text."""

    scheme: str
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def tls(self) -> bool:
        return self.scheme == "mqtts"

    def __str__(self) -> str:
        auth = ""
        if self.username is not None:
            auth = self.username + (":***" if self.password is not None else "") + "@"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{auth}{host}:{self.port}"

    def __repr__(self) -> str:
        return f"MqttUrl({str(self)!r})"


def parse_mqtt_url(url: str, source: str = "mqtt") -> MqttUrl:
    """`mqtt://[user[:password]@]host[:port]` or `mqtts://…`; ConfigError (password masked) otherwise."""
    shown = mask_url(url)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise ConfigError(f"{source}: bad MQTT URL {shown!r}: {e}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("mqtt", "mqtts"):
        what = f"scheme {scheme!r}" if scheme else "no scheme"
        raise ConfigError(
            f"{source}: unsupported MQTT URL {shown!r}: {what} (use mqtt://host:port or mqtts://host:port)"
        )
    if not parts.hostname:
        raise ConfigError(f"{source}: MQTT URL {shown!r} has no host (use mqtt://host:port)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(f"{source}: MQTT URL {shown!r} must not have a path, query or fragment")
    if port is None:
        port = 8883 if scheme == "mqtts" else 1883
    if not 1 <= port <= 65535:
        raise ConfigError(f"{source}: MQTT URL {shown!r}: port must be 1-65535")
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return MqttUrl(scheme, parts.hostname, port, user or None, password)


@dataclass(frozen=True)
class BridgeConfig:
    """The effective bridge settings (see the module docstring). Safe to print: the password is masked."""

    mqtt: MqttUrl | None = None
    serial: tuple[str, ...] = ()
    boards: tuple[str, ...] | None = None  # None: discover every board
    ca_file: str | None = None  # a path, or SYSTEM_CA
    password_file: str | None = None  # where the broker password came from (it is in `mqtt`, masked)
    client_id: str = "flickboard-bridge"
    bridge_id: str = "flickboard-bridge"  # its own topics flickboard/bridge/<id>/...; load_config derives it
    keepalive: int = 30
    log_level: str = "INFO"
    journals: str = "journals"  # one folder per board, one journal per match
    rules: str = "tournament-2019"  # the game a board without one starts with
    players: tuple[str, ...] = ("North", "South")
    match: str | None = None  # None: the rule set's match format


def _as_list(value: Any, source: str) -> tuple[str, ...]:
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise ConfigError(f"{source}: must be a string or a list of strings, got {type(value).__name__}")
    return tuple(v for v in items if v)


def _as_str(value: Any, source: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{source}: must be a string, got {type(value).__name__}")
    return value


def _as_int(value: Any, source: str) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{source}: must be an integer, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ConfigError(f"{source}: must be an integer, got {value!r}")


def _normalise(key: str, value: Any, source: str) -> Any:
    """Check one raw value's type and turn it into the BridgeConfig field type (None: unset)."""
    if key == "mqtt":
        text = _as_str(value, source).strip()
        return parse_mqtt_url(text, source) if text else None
    if key == "serial":
        return _as_list(value, source)
    if key == "boards":
        boards = _as_list(value, source)
        if not boards or boards == ("+",):
            return None
        for b in boards:
            problem = board_problem(b)
            if problem:
                raise ConfigError(f"{source}: {problem}")
        return tuple(dict.fromkeys(boards))
    if key in ("ca_file", "password_file"):
        text = _as_str(value, source).strip()
        return text or None
    if key == "client_id":
        text = _as_str(value, source).strip()
        if not 1 <= len(text) <= 64 or not text.isprintable():
            raise ConfigError(f"{source}: client id must be 1-64 printable characters")
        return text
    if key == "bridge_id":
        text = _as_str(value, source).strip()
        problem = bridge_id_problem(text)
        if problem:
            raise ConfigError(f"{source}: {problem}")
        return text
    if key == "keepalive":
        n = _as_int(value, source)
        if not 5 <= n <= 3600:
            raise ConfigError(f"{source}: keepalive must be 5-3600 seconds, got {n}")
        return n
    if key == "log_level":
        level = _as_str(value, source).strip().upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"{source}: log level must be one of {', '.join(LOG_LEVELS)}, got {value!r}")
        return level
    if key in ("journals", "rules"):
        text = _as_str(value, source).strip()
        if not text:
            raise ConfigError(f"{source}: must not be empty")
        return text
    if key == "players":
        players = _as_list(value, source)
        if not 2 <= len(players) <= 6:
            raise ConfigError(
                f"{source}: give 2 to 6 players (Pichenotte and Québec: 2 or 4; Flicochet: 2 to 6), not {len(players)}"
            )
        return players
    if key == "match":
        text = _as_str(value, source).strip()
        return text or None
    raise AssertionError(key)


def _read_toml(path: Path, keys: tuple[str, ...] = KEYS) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(keys)})")
    return data


def load_config(
    toml_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    cli: Mapping[str, Any] | None = None,
) -> BridgeConfig:
    """Merge defaults < TOML < environment < cli and validate. `env` defaults to os.environ; in `cli`, a
    None value means "not given on the command line" (cli keys are the TOML keys)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {k: DEFAULTS[k] for k in KEYS}
    sources: dict[str, str] = dict.fromkeys(KEYS, "default")
    if toml_path is None and env.get("FLICKBOARD_CONFIG"):
        toml_path = env["FLICKBOARD_CONFIG"]
    layers: list[tuple[str, Mapping[str, Any]]] = []
    if toml_path is not None:
        layers.append(("toml", _read_toml(Path(toml_path))))
    layers.append(("env", {k: env[f"FLICKBOARD_{k.upper()}"] for k in KEYS if f"FLICKBOARD_{k.upper()}" in env}))
    if cli:
        unknown = [k for k in cli if k not in KEYS]
        if unknown:
            raise ConfigError(f"unknown command-line setting {unknown[0]!r} (known: {', '.join(KEYS)})")
        layers.append(("cli", {k: v for k, v in cli.items() if v is not None}))
    for kind, layer in layers:
        for key, raw in layer.items():
            if kind == "toml":
                source = f"{toml_path}: {key}"
            elif kind == "env":
                source = f"FLICKBOARD_{key.upper()}"
            else:
                source = "--" + key.replace("_", "-")
            values[key] = _normalise(key, raw, source)
            sources[key] = source
    warn_password_in_url(values["mqtt"], sources["mqtt"])
    if values["password_file"] is not None:
        values["mqtt"] = _with_password_file(values["mqtt"], values["password_file"], sources)
    if values["bridge_id"] is None:
        values["bridge_id"] = default_bridge_id(values["client_id"])
    cfg = BridgeConfig(**values)
    _check_tls(cfg, sources)
    return cfg


def _with_password_file(url: MqttUrl | None, path: str, sources: Mapping[str, str]) -> MqttUrl:
    where = sources["password_file"]
    if url is None:
        raise ConfigError(f"{where}: a password file is given but no broker URL")
    if url.username is None:
        raise ConfigError(f"{sources['mqtt']}: the password file needs the user name in the URL (mqtt://USER@host)")
    if url.password is not None:
        raise ConfigError(f"{sources['mqtt']}: the password is in the URL and in {where}: give it once")
    try:
        with open(path, encoding="utf-8") as f:
            password = f.readline().rstrip("\r\n")
    except FileNotFoundError:
        raise ConfigError(f"{where}: password file {path!r} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or e
        raise ConfigError(f"{where}: cannot read the password file {path!r}: {why}") from None
    if not password:
        raise ConfigError(f"{where}: the password file {path!r} is empty")
    return replace(url, password=password)


def warn_password_in_url(url: MqttUrl | None, source: str) -> None:
    """One line on stderr when the broker password is inside --mqtt: any user of the machine reads it with `ps`."""
    if url is not None and url.password is not None and source == "--mqtt":
        print(
            "flickboard: warning: the broker password is inside --mqtt, where anyone on this machine can read it "
            f"(ps): put it alone in a file only you can read and give --password-file FILE (or {PASSWORD_ENV})",
            file=sys.stderr,
            flush=True,
        )


CLIENT_KEYS = ("mqtt", "ca_file", "password_file")
PASSWORD_ENV = "FLICKBOARD_MQTT_PASSWORD"


def client_settings(
    config: str | Path | None,
    mqtt: str | None,
    ca_file: str | None,
    password_file: str | None,
    env: Mapping[str, str] | None = None,
) -> tuple[MqttUrl, str | None]:
    """The broker of a command that reads or sends (`web`, `enter`, `scoreboard`, `integrations`): its settings
    file (`config`: `mqtt`, `ca_file`, `password_file` and nothing else, so a bridge's settings file, whose user is
    the bridge's, is refused rather than used) < the command line. The password: in the URL (where `ps` shows it),
    from the password file, or from the environment variable FLICKBOARD_MQTT_PASSWORD; the user name is always the
    command's own, in its URL. Returns (broker, CA file); ConfigError in one line."""
    env = os.environ if env is None else env
    values: dict[str, Any] = dict.fromkeys(CLIENT_KEYS)
    sources = {k: "--" + k.replace("_", "-") for k in CLIENT_KEYS}
    if config is not None:
        for key, raw in _read_toml(Path(config), CLIENT_KEYS).items():
            values[key] = _normalise(key, raw, f"{config}: {key}")
            sources[key] = f"{config}: {key}"
    for key, raw in (("mqtt", mqtt), ("ca_file", ca_file), ("password_file", password_file)):
        if raw is not None:
            values[key] = _normalise(key, raw, sources[key] if config is None else "--" + key.replace("_", "-"))
            sources[key] = "--" + key.replace("_", "-")
    url: MqttUrl | None = values["mqtt"]
    if url is None:
        raise ConfigError("give the broker: --mqtt URL, or `mqtt` in the settings file (--config)")
    warn_password_in_url(url, sources["mqtt"])
    if values["password_file"] is not None:
        url = _with_password_file(url, values["password_file"], sources)
    elif url.username is not None and url.password is None and env.get(PASSWORD_ENV):
        url = replace(url, password=env[PASSWORD_ENV])
    return url, values["ca_file"]


def _check_tls(cfg: BridgeConfig, sources: Mapping[str, str]) -> None:
    if cfg.mqtt is not None and cfg.mqtt.tls:
        if cfg.ca_file is None:
            raise ConfigError(
                f"{sources['mqtt']}: mqtts:// needs a CA file: set ca_file (FLICKBOARD_CA_FILE, --ca-file) to the "
                f"broker's CA certificate, or to {SYSTEM_CA!r} for the system trust store"
            )
        if cfg.ca_file != SYSTEM_CA and not Path(cfg.ca_file).is_file():
            raise ConfigError(f"{sources['ca_file']}: CA file {cfg.ca_file!r} does not exist or is not a file")
    elif cfg.ca_file is not None:
        where = "no MQTT URL is set" if cfg.mqtt is None else "the MQTT URL is plain mqtt://"
        raise ConfigError(f"{sources['ca_file']}: a CA file is given but {where}; use mqtts://")


def add_broker_arguments(p: Any) -> None:
    """The broker options of `web`, `enter`, `scoreboard` and `integrations` (an argparse parser)."""
    p.add_argument("--mqtt", metavar="URL", help="broker: mqtt://[user@]host[:port] or mqtts://...")
    p.add_argument("--ca-file", help="for mqtts://: the broker's CA certificate ('system': the system store)")
    p.add_argument(
        "--password-file",
        metavar="FILE",
        help=f"the broker password, on the file's first line (or in the environment variable {PASSWORD_ENV}); "
        "a password inside --mqtt shows in `ps`",
    )
    p.add_argument("--config", metavar="TOML", help="settings file with mqtt, ca_file, password_file")


def broker_of(args: Any) -> tuple[MqttUrl, str | None]:
    """(broker, CA file) from the options `add_broker_arguments` adds; ConfigError in one line."""
    return client_settings(args.config, args.mqtt, args.ca_file, args.password_file)
