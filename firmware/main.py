# Flickboard entry point. MicroPython runs boot.py, then this file, at every (soft) reset.
#
# It stays small so that it cannot be the thing that breaks: it loads the board profile, honours safe mode, then
# hands over to fb.app.run(profile). Safe mode (the app is not started, the REPL stays free for mpremote):
#   - a file named `safemode` at the root of the board's filesystem (`mpremote fs touch :safemode`), or
#   - the profile's `safe_mode_pin` held low (a button to GND) while the board starts.
# The app starts the watchdog, and nothing can stop it again short of a reset. So:
#   - a crash in the app is printed, then the board waits RETRY_S seconds, feeding the watchdog, and soft-resets:
#     never a tight reboot loop;
#   - Ctrl-C (while the app runs or during that wait) leaves the REPL to a person or mpremote, and a timer keeps
#     feeding the watchdog while the REPL waits. A soft reset ends the timer (mpremote's soft reset too): then the
#     watchdog resets the board within its timeout and the app starts again, unless safe mode is on. For a long
#     session, or to copy files, use safe mode (make flash does); a reset clears the watchdog.
import json
import os
import sys
import time

SAFE_FILE = "safemode"
PROFILES = "profiles"
CONFIG = "config.json"
RETRY_S = 10
# Profile used when the board holds several and config.json names none: by sys.platform.
DEFAULT_PROFILE = {"rp2": "pico_w", "esp32": "esp32_devkit"}


def say(msg):
    print("flickboard: " + msg)


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError:
        return None
    except ValueError as e:
        say("%s is not valid JSON (%s); ignoring it" % (path, e))
        return None


def profile_name():
    """Which /profiles/<name>.json to use: config.json's "profile" if the board has it, else the only one, else
    the port's default."""
    try:
        names = [n[:-5] for n in os.listdir(PROFILES) if n.endswith(".json")]
    except OSError:
        names = []
    config = read_json(CONFIG)
    if isinstance(config, dict) and isinstance(config.get("profile"), str):
        if config["profile"] in names or not names:
            return config["profile"]
        say("config.json names profile %s, which is not in /%s" % (config["profile"], PROFILES))
    if len(names) == 1:
        return names[0]
    return DEFAULT_PROFILE.get(sys.platform)


def load_profile():
    name = profile_name()
    if name is None:
        say("no board profile found in /%s" % PROFILES)
        return None
    profile = read_json(PROFILES + "/" + name + ".json")
    if not isinstance(profile, dict):
        say("board profile /%s/%s.json is missing or unreadable" % (PROFILES, name))
        return None
    return profile


def mark_started():
    """make flash writes "flash" in /safemode before it resets the board: "on" tells it the board has started again
    (a soft reset, which mpremote does on connecting, does not run main.py)."""
    try:
        with open(SAFE_FILE) as f:
            word = f.read()
        if word == "flash":
            with open(SAFE_FILE, "w") as f:
                f.write("on")
    except OSError:
        pass


def pin_held_low(number):
    """True when the pin reads low three times over ~4 ms (internal pull-up on); False where there is no Pin."""
    try:
        from machine import Pin

        pin = Pin(number, Pin.IN, Pin.PULL_UP)
        for _ in range(3):
            time.sleep_ms(2)
            if pin.value():
                return False
        return True
    except Exception:  # no machine.Pin (unix port) or not a valid pin on this board
        return False


def safe_mode(profile):
    """The reason for safe mode, or None to start the app."""
    if exists(SAFE_FILE):
        mark_started()
        return "the file /%s exists (remove it with: mpremote rm :%s)" % (SAFE_FILE, SAFE_FILE)
    pin = profile.get("safe_mode_pin") if isinstance(profile, dict) else None
    if isinstance(pin, int) and pin_held_low(pin):
        return "the safe-mode pin %d is held low" % pin
    return None


def running_watchdog(app):
    """The watchdog the app started, or None (it crashed before starting one, or there is no app)."""
    return getattr(app, "watchdog", None) if app is not None else None


def wait_fed(seconds, wdt):
    """Sleep, feeding the watchdog: a KeyboardInterrupt (Ctrl-C) comes through."""
    end = time.ticks_add(time.ticks_ms(), int(seconds * 1000))
    while time.ticks_diff(end, time.ticks_ms()) > 0:
        if wdt is not None:
            wdt.feed()
        time.sleep_ms(100)


def keep_fed(wdt):
    """Feed the watchdog from a timer while the REPL waits; a soft reset stops the timer. Returns the timer."""
    if wdt is None:
        return None
    from machine import Timer

    def feed(_t):
        wdt.feed()

    for ident in (-1, 0):  # a virtual timer (rp2); the ESP32 has hardware timers 0-3 only
        try:
            return Timer(ident, mode=Timer.PERIODIC, period=1000, callback=feed)
        except (ValueError, TypeError, OSError):
            pass
    say("could not keep the watchdog fed: the board restarts within its timeout")
    return None


def soft_reset():
    try:
        import machine

        machine.soft_reset()
    except (ImportError, AttributeError):
        pass
    raise SystemExit(3)


def import_app():
    """(fb.app, None); (None, None) when the app is not on the board; (None, error) when importing it fails."""
    try:
        return __import__("fb.app", None, None, ("run",)), None
    except ImportError as e:
        if "'fb.app'" in str(e) or "'fb'" in str(e):
            return None, None
        return None, e
    except Exception as e:  # a syntax or run-time error in the app's modules
        return None, e


def main(retry_s=RETRY_S):
    """Start the app; returns a word saying why it did not (tests call it with retry_s=0)."""
    profile = load_profile()
    reason = safe_mode(profile)
    if reason is not None:
        say("safe mode: " + reason + "; the app is not started, the REPL is free")
        return "safe"
    app, failure = import_app()
    if app is None and failure is None:
        say("firmware app missing (fb/app); copy the firmware with 'make flash'. The REPL is free.")
        return "missing"
    if app is not None:
        try:
            app.run(profile)
            say("app stopped; the REPL is free")
            return "returned"
        except KeyboardInterrupt:
            keep_fed(running_watchdog(app))
            say("stopped by Ctrl-C; the REPL is yours (a soft reset restarts the app)")
            return "stopped"
        except Exception as e:
            failure = e
    say("app crashed:")
    sys.print_exception(failure)
    wdt = running_watchdog(app)
    say("restarting in %d s (Ctrl-C now for the REPL)" % retry_s)
    try:
        wait_fed(retry_s, wdt)
    except KeyboardInterrupt:
        keep_fed(wdt)
        say("restart cancelled; the REPL is yours (a soft reset restarts the app)")
        return "crashed"
    soft_reset()
    return "crashed"


if __name__ == "__main__":
    main()
