# Flickboard board firmware (MicroPython). Modules are small and have one job each; see docs/firmware.md.
VERSION = "0.1.0"
