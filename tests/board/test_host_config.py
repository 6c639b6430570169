"""Bridge configuration (host/config.py): precedence defaults < TOML < environment < command line,
one-line validation errors, and passwords that never show."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from flickboard.config import BridgeConfig, ConfigError, MqttUrl, load_config, mask_url, parse_mqtt_url


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "bridge.toml"
    p.write_text(text)
    return p


def test_defaults() -> None:
    cfg = load_config(env={})
    assert cfg == BridgeConfig()
    assert cfg.mqtt is None and cfg.serial == () and cfg.boards is None
    assert (cfg.client_id, cfg.keepalive, cfg.log_level) == ("flickboard-bridge", 30, "INFO")


def test_precedence_defaults_toml_env_cli(tmp_path: Path) -> None:
    toml = write(
        tmp_path,
        'mqtt = "mqtt://toml-host"\nserial = ["/dev/ttyACM0"]\nboards = ["t1", "t2"]\n'
        'client_id = "from-toml"\nkeepalive = 45\nlog_level = "debug"\n',
    )
    # TOML over defaults
    cfg = load_config(toml, env={})
    assert cfg.mqtt == MqttUrl("mqtt", "toml-host", 1883)
    assert cfg.serial == ("/dev/ttyACM0",) and cfg.boards == ("t1", "t2")
    assert (cfg.client_id, cfg.keepalive, cfg.log_level) == ("from-toml", 45, "DEBUG")
    # environment over TOML (lists comma-separated); untouched keys keep the TOML value
    env = {"FLICKBOARD_MQTT": "mqtt://env-host:1884", "FLICKBOARD_BOARDS": "e1, e2", "FLICKBOARD_KEEPALIVE": "60"}
    cfg = load_config(toml, env=env)
    assert cfg.mqtt is not None and (cfg.mqtt.host, cfg.mqtt.port) == ("env-host", 1884)
    assert cfg.boards == ("e1", "e2") and cfg.keepalive == 60 and cfg.client_id == "from-toml"
    # command line over environment; None means "not given"
    cli = {"mqtt": "mqtt://cli-host", "serial": "auto", "boards": None, "keepalive": 90}
    cfg = load_config(toml, env=env, cli=cli)
    assert cfg.mqtt is not None and cfg.mqtt.host == "cli-host"
    assert cfg.serial == ("auto",) and cfg.boards == ("e1", "e2") and cfg.keepalive == 90


def test_toml_file_from_environment_and_discovery(tmp_path: Path) -> None:
    toml = write(tmp_path, 'boards = ["x"]\n')
    assert load_config(env={"FLICKBOARD_CONFIG": str(toml)}).boards == ("x",)
    assert load_config(env={"FLICKBOARD_CONFIG": str(toml), "FLICKBOARD_BOARDS": "+"}).boards is None
    assert load_config(env={"FLICKBOARD_CONFIG": str(toml)}, cli={"boards": []}).boards is None


def test_urls() -> None:
    u = parse_mqtt_url("mqtts://ann:s%40cret@broker.club:8884")
    assert (u.scheme, u.host, u.port, u.username, u.password, u.tls) == (
        "mqtts",
        "broker.club",
        8884,
        "ann",
        "s@cret",
        True,
    )
    assert parse_mqtt_url("mqtts://h").port == 8883 and parse_mqtt_url("MQTT://h").port == 1883
    assert parse_mqtt_url("mqtt://[::1]:1999").host == "::1"


@pytest.mark.parametrize(
    ("source", "value", "message"),
    [
        ("mqtt", "http://u:hunter2@h", "unsupported MQTT URL 'http://u:***@h': scheme 'http'"),
        ("mqtt", "broker:1883", "unsupported MQTT URL"),
        ("mqtt", "mqtt://:1883", "has no host"),
        ("mqtt", "mqtt://h:99999", "out of range"),
        ("mqtt", "mqtt://h:abc", "bad MQTT URL"),
        ("mqtt", "mqtt://h/topic", "must not have a path"),
        ("boards", "ok,bad id", "bad board id 'bad id'"),
        ("boards", "bridge", "'bridge' is reserved"),
        ("keepalive", "soon", "must be an integer, got 'soon'"),
        ("keepalive", "1", "keepalive must be 5-3600 seconds"),
        ("log_level", "loud", "log level must be one of"),
        ("client_id", " ", "client id must be 1-64"),
    ],
)
def test_env_validation_errors(source: str, value: str, message: str) -> None:
    var = f"FLICKBOARD_{source.upper()}"
    with pytest.raises(ConfigError) as e:
        load_config(env={var: value})
    text = str(e.value)
    assert text.startswith(f"{var}: ") and message in text and "\n" not in text
    assert "hunter2" not in text


def test_tls_rules(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^FLICKBOARD_MQTT: mqtts:// needs a CA file"):
        load_config(env={"FLICKBOARD_MQTT": "mqtts://h"})
    with pytest.raises(ConfigError, match=r"^--ca-file: CA file '.*nope.pem' does not exist"):
        load_config(env={"FLICKBOARD_MQTT": "mqtts://h"}, cli={"ca_file": str(tmp_path / "nope.pem")})
    with pytest.raises(ConfigError, match=r"plain mqtt://; use mqtts://"):
        load_config(env={"FLICKBOARD_MQTT": "mqtt://h", "FLICKBOARD_CA_FILE": "system"})
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    cfg = load_config(env={"FLICKBOARD_MQTT": "mqtts://h", "FLICKBOARD_CA_FILE": str(ca)})
    assert cfg.mqtt is not None and cfg.mqtt.tls and cfg.ca_file == str(ca)
    assert load_config(env={"FLICKBOARD_MQTT": "mqtts://h", "FLICKBOARD_CA_FILE": "system"}).ca_file == "system"


def test_toml_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"bridge.toml: unknown key 'mqtt_url' \(known: mqtt, serial"):
        load_config(write(tmp_path, 'mqtt_url = "mqtt://h"\n'), env={})
    with pytest.raises(ConfigError, match=r"bridge.toml: not valid TOML"):
        load_config(write(tmp_path, "mqtt = \n"), env={})
    with pytest.raises(ConfigError, match=r"bridge.toml: keepalive: must be an integer, got a boolean"):
        load_config(write(tmp_path, "keepalive = true\n"), env={})
    with pytest.raises(ConfigError, match=r"bridge.toml: serial: must be a string or a list of strings"):
        load_config(write(tmp_path, "serial = [1, 2]\n"), env={})
    with pytest.raises(ConfigError, match=r"missing.toml: config file not found"):
        load_config(tmp_path / "missing.toml", env={})
    with pytest.raises(ConfigError, match=r"unknown command-line setting 'colour'"):
        load_config(env={}, cli={"colour": "red"})


def test_passwords_are_masked(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    toml = write(tmp_path, 'mqtt = "mqtt://club:hunter2@broker.lan:1883"\n')
    cfg = load_config(toml, env={})
    assert cfg.mqtt is not None and cfg.mqtt.password == "hunter2" and cfg.mqtt.username == "club"
    for text in (str(cfg), repr(cfg), str(cfg.mqtt), repr(cfg.mqtt), f"{cfg}", f"{cfg.mqtt!r}"):
        assert "hunter2" not in text, text
    assert str(cfg.mqtt) == "mqtt://club:***@broker.lan:1883"
    assert mask_url("mqtts://u:p@w@h:1") == "mqtts://u:***@h:1"
    assert mask_url("mqtt://h:1883") == "mqtt://h:1883" and mask_url("mqtt://user@h") == "mqtt://user@h"
    with pytest.raises(ConfigError) as e:
        load_config(env={"FLICKBOARD_MQTT": "mqtts://club:hunter2@h"})
    assert "hunter2" not in str(e.value)


@pytest.mark.parametrize("board", ["t1\n", "", "x" * 33, "a/b", "bridge", "tä"])
def test_one_board_id_rule_at_every_entry(board: str, tmp_path: Path) -> None:
    """Settings, the bridge's input, the web page, the board wire and the MQTT link refuse the same ids, with the
    same reason (a trailing newline too: the rule ends with \\Z, not $)."""
    from flickboard import config
    from flickboard.board import protocol
    from flickboard.board.bridge import Bridge, GameSetup
    from flickboard.board.links import _check_board
    from flickboard.displays.web import command as web

    why = config.board_problem(board)
    assert why is not None and "\n" not in why
    setting = config.board_problem(board.strip())  # settings trim each id ("t1\n" in a file is t1)
    if board.strip() and setting:
        with pytest.raises(ConfigError) as e:
            load_config(env={"FLICKBOARD_BOARDS": board})
        assert str(e.value) == f"FLICKBOARD_BOARDS: {setting}"
    res = Bridge(tmp_path, GameSetup("tournament-2019", ("Ana", "Ben"))).mqtt_input(board, b'{"line": "hit"}')
    assert not res["ok"] and res["message"] == why
    parser = argparse.ArgumentParser()
    web.configure_parser(parser)
    with pytest.raises(web.WebError) as page:
        web.web_config(parser.parse_args(["--mqtt", "mqtt://h", "--board", board]))
    assert str(page.value) == f"--board: {why}"
    with pytest.raises(ValueError) as refused:
        _check_board(board)
    assert str(refused.value) == why
    wire = json.dumps({"v": 1, "b": board, "bt": 1, "s": 1, "t": 0, "m": "heartbeat", "f": {}}).encode()
    with pytest.raises(protocol.ProtocolError) as bad:
        protocol.decode_payload(wire, None)
    assert str(bad.value) == f"schema: {why}"
    assert config.is_board_id("t1") and config.board_problem("table-2_b") is None


def test_the_broker_password_stays_off_the_command_line(tmp_path: Path) -> None:
    """Issue 19, 7: every command takes the broker password from a file or the environment, so `ps` does not show
    it; the user name is each command's own (in its URL); a bridge's settings file is refused by the other
    commands rather than making them log in as the bridge."""
    from flickboard.config import client_settings

    pw = tmp_path / "pw"
    pw.write_text("s3cret pass\n")
    url, ca = client_settings(None, "mqtt://scorer@h", None, str(pw), env={})
    assert (url.username, url.password, ca) == ("scorer", "s3cret pass", None)
    url, _ = client_settings(None, "mqtt://scorer@h", None, None, env={"FLICKBOARD_MQTT_PASSWORD": "from-env"})
    assert url.password == "from-env"
    url, _ = client_settings(None, "mqtt://h", None, None, env={"FLICKBOARD_MQTT_PASSWORD": "from-env"})
    assert url.password is None  # no user named: nobody to log in as
    settings = tmp_path / "web.toml"
    settings.write_text(f'mqtt = "mqtts://web@h"\nca_file = "system"\npassword_file = "{pw}"\n')
    url, ca = client_settings(str(settings), None, None, None, env={})
    assert (str(url), url.password, ca) == ("mqtts://web:***@h:8883", "s3cret pass", "system")
    url, _ = client_settings(str(settings), "mqtt://other@h2", None, None, env={})  # the command line wins
    assert (url.username, url.host, url.password) == ("other", "h2", "s3cret pass")
    bridge_toml = tmp_path / "bridge.toml"
    bridge_toml.write_text('mqtt = "mqtt://flickboard-bridge:x@h"\nplayers = ["A", "B"]\n')
    for args, words in [
        ((str(bridge_toml), None, None, None), "unknown key 'players'"),
        ((None, None, None, None), "give the broker"),
        ((None, "mqtt://u:inline@h", None, str(pw)), "give it once"),
        ((None, "mqtt://h", None, str(pw)), "needs the user name"),
        ((None, "mqtt://u@h", None, str(tmp_path / "nope")), "not found"),
    ]:
        with pytest.raises(ConfigError, match=words) as e:
            client_settings(*args, env={})  # type: ignore[arg-type]
        assert "s3cret" not in str(e.value) and "inline" not in str(e.value) and "\n" not in str(e.value)
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        client_settings(None, "mqtt://u@h", None, str(tmp_path / "empty"), env={})
    cfg = load_config(None, env={"FLICKBOARD_PASSWORD_FILE": str(pw)}, cli={"mqtt": "mqtt://flickboard-bridge@h"})
    assert cfg.mqtt is not None and cfg.mqtt.password == "s3cret pass" and "s3cret" not in repr(cfg)
