"""Wi-Fi station + MQTT broker link for the app: one object, one non-blocking `poll(now_ms)`.

Topics (per board, see docs/protocol.md): `flickboard/<board>/status` (retained `online`/`offline`: birth and
last will), `flickboard/<board>/raw` (protocol lines, QoS 1; `events` is the bridge's stream of scoring moments) and `flickboard/<board>/cmd` (host -> board,
subscribed with QoS 1 and resubscribed after every reconnect).

Wi-Fi (boards with the `network` module): the station is activated and `connect(ssid, password)` is called;
`poll` then only looks at `isconnected()`/`status()` (rate-limited, non-blocking). A join that does not
succeed within `wifi_timeout_ms`, or that fails early (wrong password, no AP found, connect failed) is
abandoned with `disconnect()` and retried after an exponential backoff with jitter (bounded by
`wifi_backoff_max_ms`); `wifi_errors` counts the failures and `wifi_last_error` says why. When the station
loses its connection while MQTT is up, the client is dropped at once (no waiting for the keepalive to
notice) and reconnected as soon as Wi-Fi is back. Nothing here ever resets the board.

Ports without `network` (the unix port, CPython in tests and the simulator) have no Wi-Fi to manage:
the network is treated as always up and only the broker connection is managed.

DNS: the broker's name is looked up without blocking (fb.dns) by asking the DNS server the station got from DHCP,
or `dns` when given; see fb.mqtt, "DNS".
"""

import sys

try:
    import network
except ImportError:  # unix port, CPython
    network = None  # type: ignore[assignment]

from fb.mqtt import MQTTClient, _add, _bits, _diff

W_DOWN = 0  # waiting (backoff) before the next join
W_JOINING = 1
W_UP = 2
WIFI_STATE_NAMES = ("down", "joining", "up")


class Link:
    def __init__(
        self,
        board,
        broker,
        port=1883,
        ssid=None,
        wifi_password=None,
        user=None,
        password=None,
        client_id=None,
        keepalive=30,
        on_command=None,
        hostname=None,
        wifi_timeout_ms=20000,
        wifi_backoff_min_ms=2000,
        wifi_backoff_max_ms=60000,
        dns=None,
        **mqtt_options
    ):
        self.board = board
        self.prefix = "flickboard/" + board + "/"
        self.status_topic = self.prefix + "status"
        self.raw_topic = self.prefix + "raw"
        self.cmd_topic = self.prefix + "cmd"
        self.on_command = on_command
        self.client = MQTTClient(
            client_id or ("flickboard-" + board),
            broker,
            port,
            user=user,
            password=password,
            keepalive=keepalive,
            will_topic=self.status_topic,
            will_msg=b"offline",
            birth_msg=b"online",
            on_message=self._on_message,
            dns_server=self._dns_server,
            **mqtt_options
        )
        self.dns = dns  # (ip, port) of the DNS server to ask; None: the one the station got from DHCP
        self.client.subscribe(self.cmd_topic, 1)
        # Wi-Fi
        self.ssid = ssid
        self.wifi_password = wifi_password
        self.wifi_timeout_ms = wifi_timeout_ms
        self.wifi_backoff_min_ms = wifi_backoff_min_ms
        self.wifi_backoff_max_ms = wifi_backoff_max_ms
        self.wifi_errors = 0
        self.wifi_reconnects = 0
        self.wifi_last_error = ""
        self.wifi_pm = ""  # what became of power saving (_no_power_saving)
        self._wlan = None
        self._w_attempt = 0
        self._w_next = None
        self._w_deadline = 0
        self._w_check = 0
        self._w_joins = 0
        if network is None or not ssid:
            self.wifi_state = W_UP  # no Wi-Fi to manage: the network is up
        else:
            self.wifi_state = W_DOWN
            if hostname:
                try:
                    network.hostname(hostname)
                except (AttributeError, OSError, ValueError):
                    pass
            self._wlan = network.WLAN(network.STA_IF)

    # ------------------------------------------------------------------ public API

    def poll(self, now_ms):
        """Drive Wi-Fi then MQTT. Returns True while MQTT is connected."""
        if self._wlan is not None:
            self._wifi(now_ms)
        if self.wifi_state == W_UP:
            self.client.poll(now_ms)
        return self.client.is_connected()

    def is_connected(self):
        return self.client.is_connected()

    def publish(self, payload, qos=1, topic=None, retain=False):
        """Publish on the events topic (or `topic`): see MQTTClient.publish for the return value."""
        return self.client.publish(topic or self.raw_topic, payload, qos, retain)

    def rssi(self):
        """Received signal strength in dBm, or None (no Wi-Fi, not connected, or not supported)."""
        if self._wlan is None or self.wifi_state != W_UP:
            return None
        try:
            return self._wlan.status("rssi")
        except (OSError, ValueError, TypeError):
            return None

    def stats(self):
        d = self.client.stats()
        d["wifi"] = WIFI_STATE_NAMES[self.wifi_state]
        d["wifi_errors"] = self.wifi_errors
        d["wifi_reconnects"] = self.wifi_reconnects
        d["wifi_last_error"] = self.wifi_last_error
        d["wifi_pm"] = self.wifi_pm
        d["rssi"] = self.rssi()
        return d

    def close(self, now_ms=0):
        self.client.disconnect(now_ms)

    # ------------------------------------------------------------------ internals

    def _dns_server(self):
        """Where the MQTT client sends its lookups (fb.dns): the configured server, else the station's (DHCP)."""
        if self.dns is not None:
            return self.dns
        if self._wlan is None:
            return None  # no Wi-Fi on this port: the host's resolver answers
        try:
            return network.ipconfig("dns")  # type: ignore[attr-defined,unused-ignore]  # MicroPython >= 1.24
        except (AttributeError, OSError, ValueError, TypeError):
            pass
        try:
            return self._wlan.ifconfig()[3]
        except (AttributeError, OSError, IndexError):
            return None

    def _on_message(self, topic, payload, retained):
        if topic == self.cmd_topic and self.on_command:
            self.on_command(payload)

    def _wifi_fail(self, reason, now):
        self.wifi_errors += 1
        self.wifi_last_error = reason
        w = self._wlan
        try:
            if w is not None:
                w.disconnect()
        except (AttributeError, OSError):
            pass
        n = self._w_attempt if self._w_attempt < 10 else 10
        d = self.wifi_backoff_min_ms << n
        if d > self.wifi_backoff_max_ms:
            d = self.wifi_backoff_max_ms
        half = d // 2
        self._w_next = _add(now, half + ((_bits(16) * (d - half + 1)) >> 16))
        self._w_attempt += 1
        self.wifi_state = W_DOWN

    def _no_power_saving(self, w):
        """Wi-Fi power saving off, or the radio sleeps between beacons and each MQTT packet waits up to ~300 ms for it.
        network.WLAN.PM_NONE exists on both ports from MicroPython 1.20 (rp2: the CYW43's 0xA11140, "performance"
        off; esp32: WIFI_PS_NONE). An older Pico W gets the CYW43 value itself; any other port keeps its own default.
        What happened is in the link's stats (`wifi_pm`), never silent."""
        pm = getattr(type(w), "PM_NONE", None)
        if pm is None:
            pm = getattr(w, "PM_NONE", None)
        if pm is None and sys.platform == "rp2":
            pm = 0xA11140  # the CYW43 driver's "no power saving" (its PM_NONE), for firmware older than 1.20
        if pm is None:
            self.wifi_pm = "default (this port has no PM_NONE)"
            return
        try:
            w.config(pm=pm)
            self.wifi_pm = "none"
        except (AttributeError, OSError, ValueError, TypeError) as e:
            self.wifi_pm = "refused: %r" % (e,)

    def _wifi(self, now):
        w = self._wlan
        if w is None:
            return
        st = self.wifi_state
        if st == W_DOWN:
            if self._w_next is not None and _diff(now, self._w_next) < 0:
                return
            try:
                w.active(True)
                self._no_power_saving(w)
                w.connect(self.ssid, self.wifi_password)
            except OSError as e:
                self._wifi_fail("connect: " + str(e), now)
                return
            self.wifi_state = W_JOINING
            self._w_deadline = _add(now, self.wifi_timeout_ms)
            self._w_check = now
            return
        if _diff(now, self._w_check) < 0:
            return
        self._w_check = _add(now, 100 if st == W_JOINING else 500)
        try:
            up = w.isconnected()
            status = w.status()
        except OSError:
            up = False
            status = -1
        if st == W_JOINING:
            if up:
                self.wifi_state = W_UP
                self._w_attempt = 0
                self._w_joins += 1
                if self._w_joins > 1:
                    self.wifi_reconnects += 1
                self.client.retry_now(now)
                return
            for name in ("STAT_WRONG_PASSWORD", "STAT_NO_AP_FOUND", "STAT_CONNECT_FAIL"):
                code = getattr(network, name, None)
                if code is not None and status == code:
                    self._wifi_fail(name[5:].lower().replace("_", " "), now)
                    return
            if _diff(now, self._w_deadline) >= 0:
                self._wifi_fail("join timeout (status %s)" % (status,), now)
            return
        if not up:  # W_UP and the station lost its connection
            self.client.drop("wifi down", now)
            self._w_attempt = 0
            self._wifi_fail("connection lost (status %s)" % (status,), now)
            self._w_next = _add(now, 500)  # first rejoin quickly; backoff applies after that
