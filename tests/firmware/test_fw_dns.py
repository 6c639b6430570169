"""The board's broker lookup (firmware/fb/dns.py, fb/mqtt.py "DNS") under the REAL MicroPython unix port, against a
real DNS server (dnsmasq) and a real Mosquitto: the name is looked up once, again only when the address stops
working, and a lookup nobody answers never holds the main loop (on a board it would starve the watchdog)."""

from __future__ import annotations

import socket
from pathlib import Path

from dns_server import Dnsmasq, dnsmasq
from mqtt_firmware import Firmware

from flickboard.sim.broker import mosquitto

NAME = "broker.flickboard.test"


def test_name_looked_up_once_across_broker_restarts(tmp_path: Path) -> None:
    with mosquitto() as b, dnsmasq({NAME: "127.0.0.1"}) as dns:
        fw = Firmware(tmp_path, b, "d1", host=NAME, dns=["127.0.0.1", dns.port], bmin=100, bmax=300)
        try:
            fw.wait(lambda e: e["ev"] == "up", 10)
            for n in (1, 2):
                b.restart()
                fw.wait(lambda e, n=n: e["ev"] == "up" and e["reconnects"] == n, 10)
            s = fw.stats_where(lambda e: e["connects"] == 3, 5)
            assert s["lookups"] == 1, s
            assert dns.queries(NAME) == 1
        finally:
            fw.stop()


def test_unanswered_lookup_never_holds_the_loop(tmp_path: Path) -> None:
    """A DNS server that never answers: the client gives up after its tries, says so, backs off and asks again,
    and no poll of the main loop takes long (getaddrinfo would have blocked for seconds)."""
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    try:
        with mosquitto() as b:
            fw = Firmware(tmp_path, b, "d2", host=NAME, dns=["127.0.0.1", silent.getsockname()[1]], bmin=100, bmax=200)
            try:
                down = fw.wait(lambda e: e["ev"] == "down", 10)[1]
                assert down["reason"] == f"DNS: {NAME}: no answer from 127.0.0.1 after 3 tries", down
                s = fw.stats_where(lambda e: e["lookups"] >= 2, 10)
                assert s["connects"] == 0 and s["max_poll_ms"] < 50, s
            finally:
                fw.stop()
    finally:
        silent.close()


def test_refused_name_is_a_failed_attempt(tmp_path: Path) -> None:
    with mosquitto() as b, dnsmasq({"other.flickboard.test": "127.0.0.1"}) as dns:
        fw = Firmware(tmp_path, b, "d3", host=NAME, dns=["127.0.0.1", dns.port], bmin=100, bmax=200)
        try:
            down = fw.wait(lambda e: e["ev"] == "down", 10)[1]
            assert down["reason"] == f"DNS: {NAME}: refused", down
            assert fw.stats_where(lambda e: e["lookups"] >= 2, 10)["connects"] == 0
        finally:
            fw.stop()


def test_moved_broker_is_looked_up_again(tmp_path: Path) -> None:
    """The broker moves to another address (same name, same port): after three failed connects to the old address
    the client asks again and follows it."""
    with mosquitto() as first, dnsmasq({NAME: "127.0.0.1"}) as dns:
        fw = Firmware(tmp_path, first, "d4", host=NAME, dns=["127.0.0.1", dns.port], bmin=100, bmax=300)
        try:
            fw.wait(lambda e: e["ev"] == "up", 10)
            port = first.port
            first.stop()
            dns.set({NAME: "127.0.0.2"})
            with mosquitto(port=port, host="127.0.0.2"):
                fw.wait(lambda e: e["ev"] == "up" and e["reconnects"] == 1, 15)
                s = fw.stats_where(lambda e: e["connects"] == 2, 5)
                assert s["lookups"] == 2, s
                assert dns.queries(NAME) == 2
        finally:
            fw.stop()


def test_failed_lookup_falls_back_to_the_last_address(tmp_path: Path) -> None:
    """The broker restarts while the DNS server is gone: after the failed connects the lookup gets no answer, and
    the client keeps trying the address that worked, so the board comes back with the broker."""
    with mosquitto() as b:
        dns = Dnsmasq({NAME: "127.0.0.1"})
        fw = Firmware(tmp_path, b, "d5", host=NAME, dns=["127.0.0.1", dns.port], bmin=100, bmax=300)
        try:
            fw.wait(lambda e: e["ev"] == "up", 10)
            b.stop()
            dns.close()
            fw.stats_where(lambda e: e["lookups"] >= 2, 20)  # asked again, and nobody answered
            fw.stats_where(lambda e: e["lookups"] >= 2 and e["state"] == "wait", 10)  # then tried the old address
            b.restart()
            fw.wait(lambda e: e["ev"] == "up" and e["reconnects"] == 1, 15)
        finally:
            fw.stop()
            dns.close()
