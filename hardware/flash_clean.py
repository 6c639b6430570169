# Run on the board by `make flash` (mpremote run) before copying: removes the previous /fb package, so a stale
# fb/*.py from an earlier copy cannot shadow the new fb/*.mpy (MicroPython prefers .py when both exist).
import os


def _rm(path):
    try:
        mode = os.stat(path)[0]
    except OSError:
        return
    if mode & 0x4000:  # directory
        for name in os.listdir(path):
            _rm(path + "/" + name)
        os.rmdir(path)
    else:
        os.remove(path)


_rm("/fb")
print("flash: old /fb removed")
