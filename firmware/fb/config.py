"""Configuration: a board profile (/profiles/<name>.json) + the board's own /config.json overrides.

    cfg, problems = load(profiles_dir, profile, user_path)
        problems: the bad overrides that were skipped (report each as a fault)
    cfg.data        effective config (validated, defaults filled); see docs/protocol.md "Configuration"
    cfg.sensor(name), cfg.get(key) -> (ok, value), cfg.set(key, value) -> (ok, message)
    next_boot_id(path) -> int    persisted boot counter (random >= 2**30 when the file cannot be written)

Effective config keys: board_id, profile, board, port, has_wifi (the profile's "wifi": bool), led,
safe_mode_pin, ir_carrier, ir_carrier2 (a second carrier or None), watchdog_ms, heartbeat_ms, outbox_size, wifi {ssid, password},
mqtt {host, port, user, password, tls}, sensors [list in profile order]. A bad profile raises
ConfigError (a build bug); a bad override never applies: load() skips it with a message, set()
refuses it and leaves memory and flash unchanged.
"""

import json
import os


class ConfigError(Exception):
    pass


BEAM_DEFAULTS = {
    "pull": "up",
    "invert": False,
    "min_pulse_us": 200,
    "min_gap_us": 1000,
    "stuck_ms": 2000,
    "counter": None,
    "rebound_ms": 0,
    "max_pass_ms": 0,
}
HALL_DEFAULTS = {"pins": None, "mux": None, "active_low": True, "settle_ms": 30, "quadrants": 4, "rest_window_ms": 2500, "puck_max": 3}
USER_DEFAULTS = {
    "board_id": "flickboard",
    "heartbeat_ms": 10000,
    "outbox_size": 64,
    "wifi": {"ssid": None, "password": None},
    "mqtt": {"host": None, "port": 1883, "user": None, "password": None, "tls": False},
}
SECRETS = ("wifi.password", "mqtt.password")
MAX_HALL = 128  # sensors per hall strip: eight 74HC4067s on one set of select lines
_ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(v[k]) for k in v}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _ident(v, what, maxlen):
    if not isinstance(v, str) or not 0 < len(v) <= maxlen:
        raise ConfigError(what + " must be a string of 1.." + str(maxlen) + " characters")
    for ch in v:
        if ch not in _ID_CHARS:
            raise ConfigError(what + " may only use letters, digits, _ and -")
    return v


def _int(v, what, lo, hi):
    if not _is_int(v) or not lo <= v <= hi:
        raise ConfigError(what + " must be an integer " + str(lo) + ".." + str(hi) + ", not " + _show(v))
    return v


def _bool(v, what):
    if not isinstance(v, bool):
        raise ConfigError(what + " must be true or false, not " + _show(v))
    return v


def _str(v, what, maxlen, nullable=True):
    if v is None and nullable:
        return v
    if not isinstance(v, str) or len(v) > maxlen:
        raise ConfigError(what + " must be a string of at most " + str(maxlen) + " characters")
    return v


def _choice(v, what, options):
    if v not in options or isinstance(v, bool) or (v is not None and not isinstance(v, str)):
        raise ConfigError(what + " must be one of " + ", ".join([json.dumps(o) for o in options]))
    return v


def _show(v):
    try:
        s = json.dumps(v)
    except Exception:
        s = repr(v)
    return s if len(s) <= 24 else s[:24] + "..."


def _pin(v, what):
    return _int(v, what, 0, 48)


def _known(d, allowed, what):
    for k in d:
        if k not in allowed:
            raise ConfigError(what + ": unknown setting " + _show(k))


PROFILE_KEYS = ("profile", "board", "port", "wifi", "led", "safe_mode_pin", "ir_carrier", "ir_carrier2", "watchdog_ms",
                "sensors")
BEAM_KEYS = ("name", "kind", "pin", "pull", "invert", "min_pulse_us", "min_gap_us", "stuck_ms", "counter",
             "rebound_ms", "max_pass_ms")  # fmt: skip
HALL_KEYS = (
    "name", "kind", "count", "pins", "mux", "active_low", "settle_ms", "quadrants", "rest_window_ms", "puck_max"
)


def check_sensor(s, port):
    """Validate one sensor dict with defaults filled in place; returns the list of pins it uses."""
    if not isinstance(s, dict):
        raise ConfigError("each sensor must be an object")
    name = _ident(s.get("name"), "sensor name", 16)
    w = "sensors." + name
    kind = s.get("kind")
    if kind == "beam":
        _known(s, BEAM_KEYS, w)
        for k in BEAM_DEFAULTS:
            if k not in s:
                s[k] = BEAM_DEFAULTS[k]
        pin = _pin(s.get("pin"), w + ".pin")
        _choice(s["pull"], w + ".pull", ("up", "down", None))
        if port == "esp32" and 34 <= pin <= 39 and s["pull"] is not None:
            raise ConfigError(w + ".pull must be null: ESP32 GPIO34-39 have no internal pull resistors")
        _bool(s["invert"], w + ".invert")
        _int(s["min_pulse_us"], w + ".min_pulse_us", 20, 100000)
        _int(s["min_gap_us"], w + ".min_gap_us", 0, 1000000)
        _int(s["stuck_ms"], w + ".stuck_ms", 50, 600000)
        _int(s["rebound_ms"], w + ".rebound_ms", 0, 1000)
        _int(s["max_pass_ms"], w + ".max_pass_ms", 0, 600000)
        if s["max_pass_ms"] and s["max_pass_ms"] >= s["stuck_ms"]:
            raise ConfigError(w + ".max_pass_ms must be shorter than stuck_ms")
        if s["stuck_ms"] * 1000 <= s["min_pulse_us"]:
            raise ConfigError(w + ".stuck_ms must be longer than min_pulse_us")
        _choice(s["counter"], w + ".counter", ("pio", "pcnt", None))
        if s["counter"] == "pio" and port != "rp2":
            raise ConfigError(w + '.counter "pio" exists only on rp2 (RP2040)')
        if s["counter"] == "pcnt" and port != "esp32":
            raise ConfigError(w + '.counter "pcnt" exists only on esp32')
        return [pin]
    if kind == "hall":
        _known(s, HALL_KEYS, w)
        for k in HALL_DEFAULTS:
            if k not in s:
                s[k] = _copy(HALL_DEFAULTS[k])
        count = _int(s.get("count"), w + ".count", 1, MAX_HALL)
        _bool(s["active_low"], w + ".active_low")
        _int(s["settle_ms"], w + ".settle_ms", 0, 10000)
        _int(s["rest_window_ms"], w + ".rest_window_ms", 100, 60000)
        _int(s["quadrants"], w + ".quadrants", 1, 4)
        _int(s["puck_max"], w + ".puck_max", 1, 16)
        pins, mux = s["pins"], s["mux"]
        if (pins is None) == (mux is None):
            raise ConfigError(w + ": give exactly one of pins (direct) or mux (74HC4067)")
        used = []
        if pins is not None:
            if not isinstance(pins, list) or len(pins) != count:
                raise ConfigError(w + ".pins must be a list of count (" + str(count) + ") pins")
            for i, p in enumerate(pins):
                used.append(_pin(p, w + ".pins[" + str(i) + "]"))
        else:
            if not isinstance(mux, dict):
                raise ConfigError(w + ".mux must be an object {select, signal, enable}")
            _known(mux, ("select", "signal", "enable"), w + ".mux")
            sel = mux.get("select")
            if not isinstance(sel, list) or len(sel) != 4:
                raise ConfigError(w + ".mux.select must be a list of 4 pins")
            for i, p in enumerate(sel):
                used.append(_pin(p, w + ".mux.select[" + str(i) + "]"))
            # One 74HC4067 has 16 channels: a longer strip uses a second one on the same select lines,
            # with its own signal pin (signal: [first, second]).
            sig = mux.get("signal")
            signals = sig if isinstance(sig, list) else [sig]
            need = (count + 15) // 16
            if len(signals) != need:
                raise ConfigError(
                    w + ".mux.signal: " + str(count) + " sensors need " + str(need) + " multiplexer signal pin(s)"
                )
            for i, p in enumerate(signals):
                used.append(_pin(p, w + ".mux.signal" + ("[" + str(i) + "]" if isinstance(sig, list) else "")))
            if "enable" not in mux:
                mux["enable"] = None
            if mux["enable"] is not None:
                used.append(_pin(mux["enable"], w + ".mux.enable"))
        return used
    raise ConfigError(w + '.kind must be "beam" or "hall"')


def check(d):
    """Validate an effective config dict in place (defaults filled). Raises ConfigError."""
    _ident(d.get("profile"), "profile", 32)
    _str(d.get("board"), "board", 64, False)
    port = _choice(d.get("port"), "port", ("rp2", "esp32"))
    _bool(d.get("has_wifi"), "wifi (profile)")
    led = d.get("led")
    if not (led is None or led == "LED" or (_is_int(led) and 0 <= led <= 48)):
        raise ConfigError('led must be "LED", a pin 0..48 or null')
    safe = d.get("safe_mode_pin")
    if safe is not None:
        _pin(safe, "safe_mode_pin")
    ir_pin = _carrier(d.get("ir_carrier"), "ir_carrier")
    ir2_pin = _carrier(d.get("ir_carrier2"), "ir_carrier2")
    if ir2_pin is not None and ir2_pin == ir_pin:
        raise ConfigError("ir_carrier2.pin " + str(ir2_pin) + " is also ir_carrier's pin")
    _int(d.get("watchdog_ms"), "watchdog_ms", 1000, 8388 if port == "rp2" else 60000)
    _ident(d.get("board_id"), "board_id", 32)
    _int(d.get("heartbeat_ms"), "heartbeat_ms", 1000, 3600000)
    _int(d.get("outbox_size"), "outbox_size", 4, 1024)
    wifi = d.get("wifi")
    if not isinstance(wifi, dict):
        raise ConfigError("wifi must be an object {ssid, password}")
    _known(wifi, ("ssid", "password"), "wifi")
    _str(wifi.get("ssid"), "wifi.ssid", 32)
    _str(wifi.get("password"), "wifi.password", 64)
    m = d.get("mqtt")
    if not isinstance(m, dict):
        raise ConfigError("mqtt must be an object {host, port, user, password, tls}")
    _known(m, ("host", "port", "user", "password", "tls"), "mqtt")
    _str(m.get("host"), "mqtt.host", 128)
    _int(m.get("port"), "mqtt.port", 1, 65535)
    _str(m.get("user"), "mqtt.user", 64)
    _str(m.get("password"), "mqtt.password", 128)
    _bool(m.get("tls"), "mqtt.tls")
    sensors = d.get("sensors")
    if not isinstance(sensors, list) or not sensors:
        raise ConfigError("sensors must be a non-empty list")
    names = []
    pins = {}  # type: dict
    for s in sensors:
        for p in check_sensor(s, port):
            if p in pins:
                raise ConfigError("pin " + str(p) + " is used by both " + pins[p] + " and " + s["name"])
            pins[p] = s["name"]
        if s["name"] in names:
            raise ConfigError("two sensors are named " + s["name"])
        names.append(s["name"])
    for what, p in (("led", led), ("safe_mode_pin", safe), ("ir_carrier.pin", ir_pin), ("ir_carrier2.pin", ir2_pin)):
        if _is_int(p) and p in pins:
            raise ConfigError(what + " " + str(p) + " is also used by " + pins[p])
    return d


def _carrier(ir, what):
    """An IR carrier {pin, freq_hz, duty_u16} or None; its pin."""
    if ir is None:
        return None
    if not isinstance(ir, dict):
        raise ConfigError(what + " must be an object {pin, freq_hz, duty_u16} or null")
    _known(ir, ("pin", "freq_hz", "duty_u16"), what)
    pin = _pin(ir.get("pin"), what + ".pin")
    _int(ir.get("freq_hz"), what + ".freq_hz", 1000, 100000)
    _int(ir.get("duty_u16"), what + ".duty_u16", 0, 65535)
    return pin


def _merge(base, over):
    """Deep merge of dicts (over wins); other values replace."""
    for k in over:
        v = over[k]
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = _copy(v)
    return base


def effective(profile, user):
    """Build (not validate) the effective config from a profile dict and a user override dict."""
    d = {}
    for k in USER_DEFAULTS:
        d[k] = _copy(USER_DEFAULTS[k])
    if not isinstance(profile, dict):
        raise ConfigError("a profile must be a JSON object")
    for k in profile:
        if k not in PROFILE_KEYS:
            raise ConfigError("profile: unknown setting " + _show(k))
    for k in ("profile", "board", "port", "led", "safe_mode_pin", "ir_carrier", "ir_carrier2", "watchdog_ms"):
        d[k] = profile.get(k)
    d["has_wifi"] = profile.get("wifi")
    d["sensors"] = _copy(profile.get("sensors"))
    if not isinstance(user, dict):
        raise ConfigError("config.json must be a JSON object")
    for k in user:
        v = user[k]
        if k == "sensors":
            if not isinstance(v, dict):
                raise ConfigError("sensors overrides must be an object {name: {settings}}")
            if not isinstance(d["sensors"], list):
                raise ConfigError("profile has no sensor list")
            for name in v:
                s = _find(d["sensors"], name)
                if s is None:
                    raise ConfigError("sensors." + str(name) + ": no such sensor in profile " + str(d["profile"]))
                ov = v[name]
                if not isinstance(ov, dict):
                    raise ConfigError("sensors." + name + " must be an object")
                for f in ov:
                    if f in ("name", "kind"):
                        raise ConfigError("sensors." + name + "." + f + " cannot be overridden")
                _merge(s, ov)
        elif k in ("wifi", "mqtt"):
            if not isinstance(v, dict):
                raise ConfigError(k + " must be an object")
            _merge(d[k], v)
        elif k in ("board_id", "heartbeat_ms", "outbox_size"):
            d[k] = _copy(v)
        elif k == "profile":
            pass  # chooses the profile file (see load); not a setting
        else:
            raise ConfigError("unknown setting " + _show(k))
    return d


def _find(sensors, name):
    for s in sensors:
        if isinstance(s, dict) and s.get("name") == name:
            return s
    return None


def read_json(path):
    """Parsed JSON file, or None when it does not exist. Raises ConfigError when unreadable."""
    text = _read(path)
    if text is None:  # an interrupted atomic write leaves only the temp file: recover it
        text = _read(path + ".tmp")
    if text is None:
        return None
    try:
        return json.loads(text)
    except Exception:
        raise ConfigError(path + " is not valid JSON") from None


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def write_atomic(path, text):
    """Write temp file, then rename over the target (littlefs renames atomically)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    try:
        os.rename(tmp, path)
    except OSError:  # file systems whose rename refuses an existing target
        try:  # noqa: SIM105 (MicroPython has no contextlib)
            os.remove(path)
        except OSError:
            pass
        os.rename(tmp, path)


class Config:
    def __init__(self, profile, user, user_path=None):
        self.profile = profile
        self.user = user  # the override dict as persisted in config.json
        self.user_path = user_path
        self.data = check(effective(profile, user))

    def sensor(self, name):
        return _find(self.data["sensors"], name)

    def get(self, key=None):
        """(True, value) for a dotted key (None: everything; passwords shown as "***"), or (False, message)."""
        if key is None or key == "":
            v = _copy(self.data)
            for k in SECRETS:
                a, b = k.split(".")
                if v[a][b] is not None:
                    v[a][b] = "***"
            return True, v
        node = self.data
        for part in key.split("."):
            if isinstance(node, list):
                nxt = _find(node, part)
                found = nxt is not None
            elif isinstance(node, dict):
                found = part in node
                nxt = node.get(part)
            else:
                found = False
            if not found:
                return False, "no such setting " + _show(key)
            node = nxt
        if key in SECRETS and node is not None:
            node = "***"
        return True, _copy(node)

    def set(self, key, value):
        """Validate, then persist atomically and apply. (True, "") or (False, message); a refusal changes nothing."""
        try:
            if not isinstance(key, str) or not key:
                raise ConfigError("key must be a dotted setting name")
            parts = key.split(".")
            top = parts[0]
            if top not in ("board_id", "heartbeat_ms", "outbox_size", "wifi", "mqtt", "sensors"):
                raise ConfigError(_show(key) + " cannot be set (settable: board_id, heartbeat_ms, outbox_size, "
                                  "wifi.*, mqtt.*, sensors.<name>.*)")
            if top == "sensors" and len(parts) < 2:
                raise ConfigError("name a sensor: sensors.<name>[.<setting>]")
            if len(parts) > 2:  # the parent must exist and hold settings (no keys under a number)
                ok, parent = self.get(".".join(parts[:-1]))
                if not ok or not isinstance(parent, dict):
                    raise ConfigError("no such setting " + _show(key))
            over = value
            for part in reversed(parts[1:]):
                over = {part: over}
            user = _merge(_copy(self.user), {top: over})
            data = check(effective(self.profile, user))
            text = json.dumps(user)
        except ConfigError as e:
            return False, str(e)
        except Exception as e:
            return False, "invalid value: " + repr(e)
        if self.user_path is not None:
            try:
                write_atomic(self.user_path, text)
            except OSError as e:
                return False, "could not save " + self.user_path + ": " + repr(e)
        self.user = user
        self.data = data
        return True, ""


def load(profiles_dir, profile=None, user_path="/config.json"):
    """Load profile + overrides. Returns (Config, problems).

    profile: name (default: the "profile" key of config.json). Overrides that fail validation are
    skipped one top-level key (or one sensor) at a time, each with a message in `problems`.
    """
    problems = []
    try:
        user = read_json(user_path) if user_path else None
    except ConfigError as e:
        problems.append(str(e) + "; using the profile defaults")
        user = None
    if user is None:
        user = {}
    if not isinstance(user, dict):
        problems.append("config.json must be a JSON object; using the profile defaults")
        user = {}
    if profile is None:
        profile = user.get("profile")
    if not isinstance(profile, str):
        raise ConfigError("no board profile given (pass one, or set \"profile\" in config.json)")
    _ident(profile, "profile", 32)
    prof = read_json(profiles_dir.rstrip("/") + "/" + profile + ".json")
    if prof is None:
        raise ConfigError("no profile file " + profile + ".json in " + profiles_dir)
    Config(prof, {})  # the profile alone must be valid: raises ConfigError otherwise
    good = {}
    for k in sorted(user):  # sorted: the same outcome on every interpreter
        if k == "profile":
            good[k] = user[k]
        elif k == "sensors" and isinstance(user[k], dict):
            for name in sorted(user[k]):
                trial = _merge(_copy(good), {"sensors": {name: user[k][name]}})
                if _try(prof, trial, problems):
                    good = trial
        else:
            trial = _merge(_copy(good), {k: user[k]})
            if _try(prof, trial, problems):
                good = trial
    return Config(prof, good, user_path), problems


def _try(prof, user, problems):
    try:
        check(effective(prof, user))
        return True
    except ConfigError as e:
        problems.append("config.json ignored: " + str(e))
        return False


BOOT_RANDOM = 0x40000000  # boot ids at or above this are random (the counter could not be saved)


def next_boot_id(path="/boot_id"):
    """Increment and persist the boot counter; random id >= 2**30 if the file cannot be written."""
    n = 0
    try:
        with open(path) as f:
            n = int(f.read().strip())
        if not 0 <= n < BOOT_RANDOM - 1:
            n = 0
    except Exception:
        n = 0
    n += 1
    try:
        write_atomic(path, str(n))
        return n
    except Exception:
        b = os.urandom(4)
        return BOOT_RANDOM | (((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) & 0x3FFFFFFF)
