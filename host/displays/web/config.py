"""How `flickboard web` is set up (`WebConfig`), and its one error (`WebError`: one line for the user)."""

from __future__ import annotations

from dataclasses import dataclass

from flickboard.config import MqttUrl
from flickboard.displays.web.limits import ALL_KEYS_RATE, BOARD_RATE, CLIENT_RATE, KEY_RATE, STREAMS_PER_ADDRESS

ANSWER_TIMEOUT = 10.0  # seconds an entry waits for the bridge's answer


class WebError(Exception):
    """One line for the user."""


@dataclass(frozen=True)
class WebConfig:
    mqtt: MqttUrl
    ca_file: str | None = None  # mqtts: a CA file, or None / "system" for the system trust store
    host: str = "127.0.0.1"
    port: int = 8080  # 0: any free port (tests)
    boards: tuple[str, ...] | None = None  # None: every board that shows up
    answer_timeout: float = ANSWER_TIMEOUT
    reconnect_max: int = 10  # seconds between attempts to reach a broker that went away, at most
    key: str | None = None  # the scoring key (compared as `normal_key` makes it); None: a new one for this run
    key_source: str = "new for this run"  # where the key came from, as the terminal says it
    organiser_key: str | None = None  # the organiser's key (key.py); None: a new one for this run
    organiser_source: str = "new for this run"
    scorer_keys: str | None = None  # the scorers' keys file (each key scores only its boards), or None
    allowed_hosts: tuple[str, ...] = ()  # more names the server answers for (a reverse proxy's, a DNS name)
    client_rate: tuple[float, float] = CLIENT_RATE  # entries per second and burst, per client address
    board_rate: tuple[float, float] = BOARD_RATE  # entries per second and burst, per board
    key_rate: tuple[float, float] = KEY_RATE  # wrong keys per second and burst, per client address
    all_keys_rate: tuple[float, float] = ALL_KEYS_RATE  # wrong keys per second and burst, from every address at once
    streams_per_address: int = STREAMS_PER_ADDRESS  # live pages at once from one client address
    lang: str | None = None  # the pages' language (--lang); None: the game's, else the browser's (flickboard/i18n)


# ---------------------------------------------------------------- refusals, keys and rates
