"""The private Mosquitto broker (host/sim/broker.py) that `make demo` and the tests start: a real broker one can
connect to, restartable on the same port, and one-line errors when it cannot start."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

import flickboard.sim.broker
from flickboard.sim.broker import BrokerError, find_mosquitto, mosquitto, start_mosquitto


def round_trip(port: int) -> bytes:
    """Subscribe, publish to oneself with QoS 1, return what came back."""
    got: list[bytes] = []
    done = threading.Event()
    subscribed = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-broker-{port}")

    def on_message(_c: object, _u: object, m: mqtt.MQTTMessage) -> None:
        got.append(bytes(m.payload))
        done.set()

    c.on_message = on_message
    c.on_subscribe = lambda *a: subscribed.set()
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        c.subscribe("t/x", 1)
        assert subscribed.wait(10)
        c.publish("t/x", b"hello", qos=1).wait_for_publish(10)
        assert done.wait(10), "nothing came back from the broker"
    finally:
        c.disconnect()
        c.loop_stop()
    return got[0]


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_a_broker_one_can_use_restart_keeps_the_port() -> None:
    with mosquitto() as b:
        assert b.url == f"mqtt://127.0.0.1:{b.port}" and b.host == "127.0.0.1"
        assert round_trip(b.port) == b"hello"
        port, conf = b.port, b.conf
        assert ("user root" in conf.read_text()) == (os.geteuid() == 0)
        b.restart()
        assert b.port == port and round_trip(b.port) == b"hello"
        b.stop()
        assert not listening(port)
        b.restart()  # a stopped broker starts again too
        assert listening(port)
    assert not listening(port) and not conf.exists(), "stopped and its files removed"


def test_two_brokers_get_two_ports() -> None:
    a = start_mosquitto()
    try:
        with mosquitto() as b:
            assert a.port != b.port and listening(a.port) and listening(b.port)
    finally:
        a.close()
    assert not listening(a.port)


def test_missing_mosquitto_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_mosquitto() is not None, "make test installs mosquitto"
    monkeypatch.setattr(flickboard.sim.broker, "find_mosquitto", lambda: None)
    with pytest.raises(BrokerError) as e:
        start_mosquitto()
    assert str(e.value) == (
        "Mosquitto is not installed: sudo apt-get install mosquitto (make test/make demo install it)"
    )


def test_found_on_path_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "mosquitto"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_mosquitto() == str(fake)


def test_a_port_in_use_is_one_line() -> None:
    with mosquitto() as first:
        with pytest.raises(BrokerError) as e:
            start_mosquitto(port=first.port)
        assert str(e.value) == f"cannot start mosquitto: port {first.port} on 127.0.0.1 is already in use"
        assert round_trip(first.port) == b"hello", "the first broker is unharmed"


def test_a_broker_that_stops_at_start_says_why_in_one_line() -> None:
    """A real failure: mosquitto refuses a configuration line and exits; its own reason is the message."""
    with pytest.raises(BrokerError) as e:
        start_mosquitto("no_such_option true")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("mosquitto stopped as it started (port "), msg
    assert "no_such_option" in msg, msg


def test_no_user_line_when_not_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only root needs `user root` (mosquitto would switch users); anyone else gets a plain configuration."""
    monkeypatch.setattr(flickboard.sim.broker.os, "geteuid", lambda: 1000)
    with mosquitto() as b:
        assert "user" not in b.conf.read_text()
        assert round_trip(b.port) == b"hello"
