"""The board's parts around the emulated RP2040, wired as a board profile (hardware/profiles/*.json) says.

Every part drives a "line": a GPIO (0-29), or a channel of a 74HC4067 multiplexer (line 100 + 16 * chip + channel,
chips numbered in the order of the profile's `mux.signal` pins). A line is driven 0 or 1, or released (None):
a released GPIO reads the pull-up or pull-down the firmware set on its pad (the emulator models the RP2040's
pads), and reads 0 when it has neither.

  - IR receivers (beams): driven 0 while the beam is intact and 1 while it is broken (a modulated receiver's output
    is low while it sees the carrier); the profile's `invert` flips that.
  - Hall sensors: `active_low` (the default) sensors are open-drain: they pull their line low while a magnet is over
    them and release it otherwise (the firmware's pull-up makes it read 1). Active-high sensors drive 1 / 0.
  - The 74HC4067s behind a hall strip with `mux`: the emulator watches the `select` outputs (and `/E`, `enable`,
    when the profile has one) and puts the chosen channel on each chip's signal pin at once, in emulated time;
    with /E high the signal pin floats to its pull. Any number of chips share the select lines (`signal`: a pin
    or a list of pins, 16 segments each; `count` says how many segments are wired).
  - The safe-mode button: a push button from `safe_mode_pin` to GND (pressed: 0; released: the line floats).
  - The IR carriers (`ir_carrier.pin`, `ir_carrier2.pin`): outputs the emulator measures (frequency and duty, from
    their edges).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flickboard.board import files
from flickboard.sim.rp2.images import RigError

PROFILES = files.profiles_dir()
MUX_LINE_BASE = 100
Level = int | None


@dataclass(frozen=True)
class Beam:
    name: str
    pin: int
    invert: bool

    def level(self, broken: bool) -> int:
        return int(broken) ^ int(self.invert)


@dataclass(frozen=True)
class Hall:
    name: str
    lines: tuple[int, ...]  # one per segment
    active_low: bool

    def level(self, present: bool) -> Level:
        if self.active_low:
            return 0 if present else None  # open drain: pulls low over a magnet, else lets go
        return 1 if present else 0


@dataclass(frozen=True)
class Wiring:
    profile: str
    beams: dict[str, Beam] = field(default_factory=dict)
    halls: dict[str, Hall] = field(default_factory=dict)
    muxes: tuple[dict[str, Any], ...] = ()  # for the emulator: {"select", "enable", "signals"}
    safe_mode_pin: int | None = None
    ir_pin: int | None = None
    ir2_pin: int | None = None  # the second carrier (the second hole beam's 56 kHz LED)

    def beam(self, name: str) -> Beam:
        try:
            return self.beams[name]
        except KeyError:
            raise RigError(
                f"profile {self.profile} has no beam named {name!r} (it has: {_names(self.beams)})"
            ) from None

    def hall(self, name: str) -> Hall:
        try:
            return self.halls[name]
        except KeyError:
            raise RigError(
                f"profile {self.profile} has no hall strip {name!r} (it has: {_names(self.halls)})"
            ) from None

    def hall_line(self, name: str, seg: int) -> int:
        strip = self.hall(name)
        if not 0 <= seg < len(strip.lines):
            raise RigError(f"hall strip {name} has segments 0..{len(strip.lines) - 1}, not {seg}")
        return strip.lines[seg]

    def idle(self) -> list[tuple[int, Level]]:
        """Every part at rest: beams intact, no magnet on any hall segment, the safe-mode button released."""
        out: list[tuple[int, Level]] = [(b.pin, b.level(False)) for b in self.beams.values()]
        for h in self.halls.values():
            out.extend((line, h.level(False)) for line in h.lines)
        if self.safe_mode_pin is not None:
            out.append((self.safe_mode_pin, None))
        return out


def _names(d: dict[str, Any]) -> str:
    return ", ".join(sorted(d)) or "none"


def load_profile(profile: str | Path | dict[str, Any]) -> dict[str, Any]:
    """A profile by name (hardware/profiles/NAME.json), by path, or as a dict already read."""
    if isinstance(profile, dict):
        return profile
    path = Path(profile)
    if path.suffix != ".json":
        path = PROFILES / f"{profile}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        raise RigError(f"no board profile {path}") from None
    except ValueError as e:
        raise RigError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise RigError(f"{path} is not a board profile (a JSON object)")
    return data


def wiring(profile: str | Path | dict[str, Any]) -> Wiring:
    """The parts a profile wires to the Pico."""
    p = load_profile(profile)
    name = str(p.get("profile", "?"))
    if p.get("port") != "rp2":
        raise RigError(f"profile {name} is for {p.get('port')!r}: the emulated Pico runs rp2 profiles only")
    beams: dict[str, Beam] = {}
    halls: dict[str, Hall] = {}
    muxes: list[dict[str, Any]] = []
    chips = 0
    for s in p.get("sensors") or []:
        kind = s.get("kind")
        if kind == "beam":
            beams[s["name"]] = Beam(s["name"], int(s["pin"]), bool(s.get("invert", False)))
        elif kind == "hall":
            count = int(s["count"])
            active_low = bool(s.get("active_low", True))
            if s.get("pins"):
                lines = tuple(int(x) for x in s["pins"])
            elif s.get("mux"):
                mux = s["mux"]
                signals = mux["signal"] if isinstance(mux["signal"], list) else [mux["signal"]]
                if 16 * len(signals) < count:
                    raise RigError(f"profile {name}: {count} hall segments need {(count + 15) // 16} mux signal pins")
                muxes.append({"select": list(mux["select"]), "enable": mux.get("enable"), "signals": list(signals)})
                lines = tuple(MUX_LINE_BASE + 16 * chips + i for i in range(count))
                chips += len(signals)
            else:
                raise RigError(f"profile {name}: hall strip {s['name']} has neither pins nor mux")
            halls[s["name"]] = Hall(s["name"], lines, active_low)
    ir = p.get("ir_carrier")
    return Wiring(
        profile=name,
        beams=beams,
        halls=halls,
        muxes=tuple(muxes),
        safe_mode_pin=p.get("safe_mode_pin"),
        ir_pin=ir.get("pin") if isinstance(ir, dict) else None,
        ir2_pin=ir2.get("pin") if isinstance(ir2 := p.get("ir_carrier2"), dict) else None,
    )
