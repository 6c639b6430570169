"""The emulated Pico: the real MicroPython rp2 firmware (the official RPI_PICO v1.28.0 image) running in rp2040js, with
the board's parts around it and a pseudo-terminal for its USB port, so firmware changes are proven on the real port
(hard pin IRQs, PIO, the watchdog, littlefs, USB CDC, a 32-bit heap) without a board.

    from flickboard.sim.rp2 import Pico, RigError

    with Pico(flash=None, profile="pico_w", pace="fast", link=None) as board:
        board.port                    # the USB port: a symlink the rig owns (pyserial, mpremote, flickboard bridge)
        board.make_flash("pico_w")    # `make flash BOARD=pico_w PORT=<port>`, paced to real time
        board.save_flash("pico.img")  # the 2 MiB flash; Pico(flash="pico.img") starts from it

Starting. `Pico(flash=IMAGE)` starts from a saved flash image; `flash=None` is a blank Pico (MicroPython alone, its
file system formatted at first boot). `profile` (a name in hardware/profiles/, a path, or a dict) says how the parts
are wired; it must be the profile the flashed board runs. `pace`: "fast" runs as fast as it can and skips idle time,
"realtime" never runs ahead of the wall clock (for mpremote, the bridge, a person), "hold" starts stopped.
The images come from $RP2_IMAGES or ../shared/firmware-images/ (images.find_images); Node and rp2040js from
`make rp2`. Every failure is a RigError with one sentence for a person.

Time. Emulated time is counted in µs from the rig's start and runs on across resets.
    now_us() -> float           cycles() -> int (CPU cycles at 125 MHz; idle time spends none)
    go(pace="fast"|"realtime")  hold() -> float (the µs it stopped at)
    run_until(t_us, pace="fast")  run_for(us, pace="fast")     run, then hold
    state() -> dict             t_ns, cycles, resets, mode, halted, usb {attached, open, reading, held_in, ...}

Parts (host/sim/rp2/parts.py says how each is modelled). A "line" is a GPIO 0-29, or a 74HC4067 channel
(100 + 16 * chip + channel); a level is 0, 1, or None (released: the pad's pull decides).
    set_beam(name, broken)      set_hall(name, seg, present)      press_safe_mode(pressed=True)
    drive([(line, level), ...])                                   now
    schedule([(t_us, line, level), ...])                          at exact emulated times (fractions of a µs kept)
    schedule_beam(name, start_us, dur_us)   schedule_hall(name, t_us, seg, present)
    play(scenario, t0_us=None) -> float     the simulated board's scenario format (host/sim/rp2/scenario.py)
    output(pin) -> 0 | 1 | None             the level the firmware drives (None: not an output)
    pin(pin) -> dict                        output, out, in, func, pull, as the chip sees them
    ir_carrier(second=False) -> (freq_hz, duty)  measured on the profile's IR carrier pin (or ir_carrier2's)

Faults a test injects.
    hold_irq(start_us, end_us)              the GPIO interrupt held off, as a long critical section holds it: the
                                            handler runs once per pin when it ends, whatever the edges meanwhile
    pio_lag(us, at_us=None)                 the PIO stepped only every `us` µs (from now, or from at_us): a PIO edge
                                            counter counts late

USB and resets.
    wait_usb(timeout=30) -> port            the board is on the bus and its port exists
    usb_reading(on)                         off: the host keeps the port open but takes no more IN packets
    listen(heard)                           heard(bytes) with every byte the board sends on USB (a USB analyser)
    reset(hold=False)                       power cycle (the flash stays); wait_reset(count) -> the count-th reset
    mpremote(*args) -> output               mpremote on the port, paced to real time
    close()                                 the emulator stops, the port goes; also when this process dies

A reset (machine.reset(), the watchdog, reset()) takes the port away, as unplugging would: a program holding it
sees the device go, then opens the port again once the board is back on USB (wait_usb).

A game (host/sim/rp2/game.py): `RigGame(board, scenario)` plays a timeline with hold points in lock-step with the scorer
of host/sim/driver.py (`flickboard demo --rp2`, tests/firmware/test_rp2_game.py); `board_image(board_id)` is a flash
image of this checkout's firmware with a config.json, made with `make flash` once per firmware change (build/rp2/)."""

from flickboard.sim.rp2.images import Images, RigError, find_images
from flickboard.sim.rp2.rig import Pico

__all__ = ["Images", "Pico", "RigError", "find_images"]
