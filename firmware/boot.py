# Flickboard boot.py: runs first at every reset, before main.py. Kept minimal and crash-proof on purpose: nothing
# here may stop the board from reaching the REPL. Board start-up (profile, safe mode, the app) is in main.py.
import gc
import sys

if sys.platform == "esp32":
    try:
        import esp

        esp.osdebug(None)  # no ESP-IDF log lines on the USB serial console: the host reads JSON lines there
    except Exception:
        pass

gc.collect()
