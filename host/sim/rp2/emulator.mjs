// The emulated Pico: the real MicroPython rp2 firmware in rp2040js, driven by host/sim/rp2/rig.py.
//
//   node emulator.mjs --bootrom ROM.bin (--uf2 FIRMWARE.uf2 | --flash IMAGE.bin) --serial-fd N [--link PORT]
//                     [--scratch DIR]
//
// Control: one JSON object per line on stdin (requests {"id", "op", ...}); on stdout one JSON object per line:
// a response {"id", "ok", ...} to each request, or an event {"ev", ...}. The USB CDC bytes travel, raw, on the
// socket --serial-fd (host/sim/rp2/rig.py relays them to a pseudo-terminal). Stdin at end of file: the rig's
// parent is gone, so this process exits.
//
// What this program models, beside the chip rp2040js emulates:
//  - the flash chip: the boot ROM's flash_range_erase / flash_range_program are trapped (a BKPT at their
//    entry) and done here on the flash array, with the typical erase and program times of a W25Q16 flash;
//  - resets: the watchdog (machine.reset, a watchdog timeout) re-creates the chip with the same flash; the
//    USB device leaves the bus and comes back, as a real one does;
//  - the USB host: enumerates the CDC device, raises DTR while a program has the port open, passes OUT bytes
//    only when it has some (an idle host sends nothing), and stops taking IN packets while it is not reading;
//  - the board's parts, as "lines": GPIO 0-29 and the channels of 74HC4067 multiplexers (100 + 16*mux + ch).
//    A line is driven 0 or 1, or released (null): a released GPIO reads its pad's pull-up / pull-down (the
//    RP2040's, as the firmware set it); a GPIO the firmware drives as an output reads its own level. A mux's
//    signal pin follows the channel its select outputs choose, at once, or floats while /E is high;
//  - timelines: line changes at exact emulated nanoseconds, applied by clock alarms;
//  - faults a test injects: the GPIO interrupt held off over a window (as a long critical section, a flash write,
//    holds it), and the PIO made to count late (stepped only every so many µs, as rp2040js's own stepping on the
//    wall clock did);
//  - pacing: "fast" skips idle time (WFI) and runs as fast as it can; "realtime" never runs ahead of the
//    wall clock; "hold" stops the chip. run_until runs to an emulated time, then holds.
// Emulated time ("t_ns") is counted from the start of this process and runs on across resets.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { RP2040 } from 'rp2040js';

const FLASH_BASE = 0x10000000;
const FLASH_BYTES = 2 * 1024 * 1024; // the Pico's W25Q16: 2 MiB
const SECTOR = 4096;
const ERASE_NS_PER_SECTOR = 45e6; // W25Q16JV typical sector erase: 45 ms
const PROGRAM_NS_PER_PAGE = 0.4e6; // typical page (256 bytes) program: 0.4 ms
const SLICE_MS = 8; // wall time per run slice before I/O gets a turn
const MAX_LAG_NS = 20e6; // realtime: an emulator behind the wall clock by more than this does not catch up
const MUX_LINE_BASE = 100;
const USB_AVAILABLE = 1 << 10;
const WATCHDOG_REASON_TIMER = 1;

// ---- arguments ----------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    out[a.slice(2)] = argv[i + 1];
    i++;
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
if (!args.bootrom || !(args.uf2 || args.flash)) {
  process.stderr.write('usage: emulator.mjs --bootrom ROM --uf2 FIRMWARE.uf2 | --flash IMAGE [--serial-fd N]\n');
  process.exit(2);
}

// ---- output to the rig ------------------------------------------------------------------------------------

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

const logCounts = new Map();
const LOG_KINDS = 500; // distinct messages passed on at most; the rest are counted only
function log(level, msg) {
  if (!logCounts.has(msg) && logCounts.size >= LOG_KINDS) return;
  const n = (logCounts.get(msg) || 0) + 1;
  logCounts.set(msg, n);
  if (n <= 3) send({ ev: 'log', level, msg: n === 3 ? msg + ' (repeats are not shown)' : msg, t_ns: nowNs() });
}

const logger = {
  debug() {},
  info() {},
  warn(component, msg) {
    log('warn', `[${component}] ${msg}`);
  },
  error(component, msg) {
    log('error', `[${component}] ${msg}`);
  },
};

// ---- images -----------------------------------------------------------------------------------------------

function readBootrom(path) {
  const data = fs.readFileSync(path);
  if (data.length !== 16384) throw new Error(`${path} is not an RP2040 boot ROM (16384 bytes)`);
  return new Uint32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
}

function flashFromUf2(path) {
  const uf2 = fs.readFileSync(path);
  const flash = new Uint8Array(FLASH_BYTES).fill(0xff);
  let blocks = 0;
  for (let off = 0; off + 512 <= uf2.length; off += 512) {
    const view = new DataView(uf2.buffer, uf2.byteOffset + off, 512);
    if (view.getUint32(0, true) !== 0x0a324655 || view.getUint32(4, true) !== 0x9e5d5157) continue;
    const addr = view.getUint32(12, true);
    const size = view.getUint32(16, true);
    if (addr < FLASH_BASE || addr + size > FLASH_BASE + FLASH_BYTES || size > 476) {
      throw new Error(`${path}: a block at 0x${addr.toString(16)} is outside the Pico's flash`);
    }
    flash.set(uf2.subarray(off + 32, off + 32 + size), addr - FLASH_BASE);
    blocks++;
  }
  if (!blocks) throw new Error(`${path} holds no UF2 blocks`);
  return flash;
}

function flashFromImage(path) {
  const data = fs.readFileSync(path);
  if (data.length !== FLASH_BYTES) throw new Error(`${path} is not a flash image of the Pico (${FLASH_BYTES} bytes)`);
  return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
}

// The boot ROM's public function table: 16-bit codes of two letters, each with a 16-bit address.
function romFunction(bootrom, a, b) {
  const bytes = new Uint8Array(bootrom.buffer);
  const u16 = (at) => bytes[at] | (bytes[at + 1] << 8);
  const want = a.charCodeAt(0) | (b.charCodeAt(0) << 8);
  for (let at = u16(0x14); u16(at) !== 0; at += 4) {
    if (u16(at) === want) return u16(at + 2) & ~1;
  }
  throw new Error(`the boot ROM has no function ${a}${b}`);
}

const BKPT_ERASE = 0xe1;
const BKPT_PROGRAM = 0xe2;

// ---- the board ----------------------------------------------------------------------------------------------

const bootrom = readBootrom(args.bootrom);
const eraseAt = romFunction(bootrom, 'R', 'E');
const programAt = romFunction(bootrom, 'R', 'P');
// Each trapped function starts with BKPT #n; BX LR: the handler below does the work, then the function returns.
function patchRom(rom) {
  const bytes = new Uint8Array(rom.buffer);
  for (const [at, code] of [
    [eraseAt, BKPT_ERASE],
    [programAt, BKPT_PROGRAM],
  ]) {
    bytes[at] = code;
    bytes[at + 1] = 0xbe;
    bytes[at + 2] = 0x70; // BX LR
    bytes[at + 3] = 0x47;
  }
}

let flash = args.flash ? flashFromImage(args.flash) : flashFromUf2(args.uf2);

let mcu = null; // the current chip
let baseNs = 0; // emulated ns before the current chip's clock started
let cyclesBase = 0;
let resets = 0;
let resetPending = null; // a reset cause, done at the end of the current instruction batch
let holdOnReset = false;
let halted = null; // why the core stopped (a breakpoint in the firmware)

function nowNs() {
  return mcu ? baseNs + mcu.clock.nanos : baseNs;
}

function cycles() {
  return mcu ? cyclesBase + mcu.core.cycles : cyclesBase;
}

function createChip(watchdogReason) {
  const chip = new RP2040();
  chip.logger = logger;
  chip.loadBootrom(bootrom); // resets the core; the flash array is filled with 0xff
  patchRom(chip.bootrom);
  chip.flash.set(flash);
  flash = chip.flash.subarray(0, FLASH_BYTES); // the chip's own array from now on
  const watchdog = chip.peripherals[0x40058];
  watchdog.onWatchdogTrigger = () => {
    if (!resetPending) resetPending = watchdog.reason === WATCHDOG_REASON_TIMER ? 'watchdog' : 'reset';
  };
  watchdog.reason = watchdogReason; // REASON survives a watchdog reset (0 after a power cycle)
  chip.onBreak = (code) => onBreak(chip, code);
  chip.core.PC = FLASH_BASE; // boot2 at the start of flash, as the boot ROM would run it
  mcu = chip;
  pioClock.attach(chip);
  parts.attach(chip);
  usb.attach(chip);
  gpioIrq.reset();
  timeline.arm();
  pwm.reset();
}

function onBreak(chip, code) {
  const core = chip.core;
  const at = (core.PC - 2) & ~1;
  const r = core.registers;
  if (code === BKPT_ERASE && at === eraseAt) {
    const addr = r[0] >>> 0;
    const count = r[1] >>> 0;
    if (addr + count <= FLASH_BYTES) flash.fill(0xff, addr, addr + count);
    busy(chip, Math.ceil(count / SECTOR) * ERASE_NS_PER_SECTOR);
    return;
  }
  if (code === BKPT_PROGRAM && at === programAt) {
    const addr = r[0] >>> 0;
    const data = r[1] >>> 0;
    const count = r[2] >>> 0;
    if (addr + count <= FLASH_BYTES) {
      for (let i = 0; i < count; i++) flash[addr + i] &= chip.readUint8(data + i); // NOR flash: bits only clear
    }
    busy(chip, Math.ceil(count / 256) * PROGRAM_NS_PER_PAGE);
    return;
  }
  halted = `the firmware stopped at a breakpoint (BKPT #${code}) at 0x${at.toString(16)}`;
  send({ ev: 'halt', reason: halted, t_ns: nowNs() });
  if (stopWaiter !== null) {
    send({ id: stopWaiter, ok: false, error: halted }); // run_until will not get there
    stopWaiter = null;
    stopAt = Infinity;
  }
}

// The CPU waits in the boot ROM while the flash chip erases or programs: time passes, cycles are spent.
function busy(chip, ns) {
  chip.clock.tick(ns);
  chip.core.cycles += Math.round((ns * chip.clkSys) / 1e9);
}

// ---- PIO: stepped in emulated time -------------------------------------------------------------------------------
// rp2040js steps the PIO state machines from a wall-clock timer (1000 instructions per turn of Node's event loop),
// whatever the emulated time. Here they run in emulated time instead: each enabled state machine executes one
// instruction per (clock divider) cycle of clk_sys, caught up just before anything can observe or change them: an
// input edge, a CPU access to a PIO register, the end of each run slice. A state machine stalled on WAIT spends its
// cycles doing nothing (an edge releases it at the edge's exact time, through rp2040js's own GPIO hook).

const pioClock = {
  chip: null,
  lastNs: 0,
  acc: new Map(), // state machine -> fractional cycles carried over (clock dividers)
  // A fault a test injects (op "pio_lag"): the state machines are stepped only once this many ns have passed since
  // their last step, so what they count shows up to that late (an edge still releases a WAIT at once, through
  // rp2040js's GPIO hook). 0: exact, the normal case. It stays set across resets.
  lagNs: 0,

  setLag(ns) {
    this.sync(); // the state machines catch up first, under the old setting
    this.lagNs = ns;
  },

  attach(chip) {
    this.chip = chip;
    this.lastNs = 0;
    this.acc = new Map();
    for (const block of chip.pio) {
      block.run = () => {}; // no wall-clock stepping
      const read = block.readUint32.bind(block);
      const write = block.writeUint32.bind(block);
      block.readUint32 = (offset) => {
        this.sync();
        return read(offset);
      };
      block.writeUint32 = (offset, value) => {
        this.sync();
        write(offset, value);
      };
    }
  },

  sync() {
    const chip = this.chip;
    if (!chip) return;
    const cycleNs = 1e9 / chip.clkSys;
    if (this.lagNs > 0 && chip.clock.nanos - this.lastNs < this.lagNs) return;
    const cycles = Math.floor((chip.clock.nanos - this.lastNs) / cycleNs);
    if (cycles <= 0) return;
    this.lastNs += cycles * cycleNs;
    for (const block of chip.pio) {
      if (block.stopped) continue;
      let stepped = false;
      for (const sm of block.machines) {
        if (!sm.enabled) continue;
        const div = sm.clockDivInt === 0 ? 65536 : sm.clockDivInt + sm.clockDivFrac / 256;
        let due = (this.acc.get(sm) || 0) + cycles / div;
        let n = Math.floor(due);
        due -= n;
        while (n > 0) {
          if (sm.waiting) {
            sm.checkWait();
            if (sm.waiting) break; // stalled: the rest of these cycles change nothing
          }
          sm.step();
          stepped = true;
          n--;
          // A pin the state machine drives reaches the board's parts at once (a multiplexer's select lines: the
          // next instruction may read its output).
          if (block.pinValues !== block.oldPinValues || block.pinDirections !== block.oldPinDirections) {
            block.checkChangedPins();
          }
        }
        this.acc.set(sm, n > 0 ? 0 : due);
      }
      if (stepped) block.checkChangedPins();
    }
  },
};

// ---- parts: lines, pulls, multiplexers ----------------------------------------------------------------------

const parts = {
  drive: new Map(), // line -> 0 | 1 | null (released); lines absent from the map are released
  muxes: [], // {select: [pins], enable: pin|null, signals: [pins]}
  muxOfSignal: new Map(), // signal pin -> [group index, chip number]
  muxPins: new Set(), // select and enable pins
  chip: null,
  unlisten: [],

  configure(muxes) {
    // One entry per group of 74HC4067s sharing select (and enable) lines; each chip of a group has its own
    // signal pin. Chips are numbered in order across groups: chip c's channel ch is line 100 + 16 * c + ch.
    this.muxes = muxes.map((m) => ({ select: m.select, enable: m.enable ?? null, signals: m.signals }));
    this.muxOfSignal.clear();
    this.muxPins.clear();
    let chipNo = 0;
    this.muxes.forEach((m, k) => {
      for (const pin of m.signals) this.muxOfSignal.set(pin, [k, chipNo++]);
      for (const p of m.select) this.muxPins.add(p);
      if (m.enable !== null) this.muxPins.add(m.enable);
    });
    this.refreshAll();
  },

  attach(chip) {
    this.chip = chip;
    chip.gpio.forEach((gpio, pin) => {
      gpio.addListener(() => this.onPinChange(pin));
    });
    this.refreshAll();
  },

  onPinChange(pin) {
    pwm.onPinChange(pin);
    this.refresh(pin);
    if (this.muxPins.has(pin)) for (const sig of this.muxOfSignal.keys()) this.refresh(sig);
  },

  // The level a pin of the MCU sits at: its own output, else what drives it from outside, else its pull.
  level(pin) {
    const gpio = this.chip.gpio[pin];
    if (gpio.outputEnable) return gpio.outputValue ? 1 : 0;
    let v = this.external(pin);
    if (v === null) {
      if (gpio.pullupEnabled && gpio.pulldownEnabled) v = gpio.rawInputValue ? 1 : 0; // bus keeper
      else v = gpio.pullupEnabled ? 1 : 0; // pulled down, or floating: read as 0
    }
    return v;
  },

  external(pin) {
    const mux = this.muxOfSignal.get(pin);
    if (mux === undefined) return this.drive.get(pin) ?? null;
    const m = this.muxes[mux[0]];
    if (m.enable !== null && this.outLevel(m.enable) !== 0) return null; // /E high: the output floats
    let ch = 0;
    m.select.forEach((p, bit) => {
      if (this.outLevel(p)) ch |= 1 << bit;
    });
    return this.drive.get(MUX_LINE_BASE + 16 * mux[1] + ch) ?? null;
  },

  // The level the MCU puts on a select or enable line (a pin it does not drive sits at its pull).
  outLevel(pin) {
    const gpio = this.chip.gpio[pin];
    if (gpio.outputEnable) return gpio.outputValue ? 1 : 0;
    return gpio.pullupEnabled ? 1 : 0;
  },

  refresh(pin) {
    const gpio = this.chip.gpio[pin];
    const v = this.level(pin) === 1;
    if (gpio.rawInputValue !== v) {
      pioClock.sync(); // the PIO has seen every earlier edge before it sees this one (unless made to lag)
      gpio.setInputValue(v);
    }
  },

  refreshAll() {
    if (!this.chip) return;
    for (let pin = 0; pin < this.chip.gpio.length; pin++) this.refresh(pin);
  },

  set(line, value) {
    if (value === null) this.drive.delete(line);
    else this.drive.set(line, value ? 1 : 0);
    if (!this.chip) return;
    if (line < MUX_LINE_BASE) {
      this.refresh(line);
    } else {
      for (const sig of this.muxOfSignal.keys()) this.refresh(sig);
    }
  },
};

// ---- timeline: line changes at exact emulated times ---------------------------------------------------------

const timeline = {
  items: [], // [t_ns, line, value], sorted by time (stable for equal times); also [t_ns, GPIO_IRQ, 1 | 0] (held
  // off, released) and [t_ns, PIO_LAG, ns]
  alarm: null,
  applied: 0,

  add(changes) {
    const now = nowNs();
    for (const c of changes) {
      if (c[0] < now) throw new Error(`a change at ${c[0]} ns is in the past (now ${now} ns)`);
    }
    this.items.push(...changes);
    this.items.sort((a, b) => a[0] - b[0]);
    this.arm();
  },

  clear() {
    this.items = [];
    this.arm();
  },

  arm() {
    if (!mcu) return;
    if (!this.alarm || this.alarm.clock !== mcu.clock) this.alarm = mcu.clock.createAlarm(() => this.fire());
    this.alarm.cancel();
    if (this.items.length) this.alarm.schedule(Math.max(0, this.items[0][0] - nowNs()));
  },

  fire() {
    const now = nowNs();
    let n = 0;
    while (n < this.items.length && this.items[n][0] <= now) {
      const [, line, value] = this.items[n];
      if (line === GPIO_IRQ) gpioIrq.hold(value === 1);
      else if (line === PIO_LAG) pioClock.setLag(value);
      else parts.set(line, value);
      n++;
    }
    this.items.splice(0, n);
    this.applied += n;
    if (this.items.length) this.alarm.schedule(this.items[0][0] - now);
  },
};

// ---- the GPIO interrupt held off: a fault a test injects ---------------------------------------------------
// While held, IO_IRQ_BANK0 stays pending in the NVIC but is not taken, as when the firmware runs a long critical
// section with interrupts off (a flash write): the GPIOs latch their edges meanwhile, and the handler runs once the
// hold ends. A pin that had two or more edges in the hold gets one call for all of them: those edges are lost to
// the IRQ, and only a hardware edge counter still counts them.

const GPIO_IRQ = 'gpio_irq'; // the timeline's name for it
const PIO_LAG = 'pio_lag'; // the timeline's name for a change of pioClock.lagNs
const IO_IRQ_BANK0 = 13;

const gpioIrq = {
  held: false,
  saved: 0, // the NVIC enable bit as the firmware had set it

  hold(on) {
    const core = mcu.core;
    const bit = 1 << IO_IRQ_BANK0;
    if (on && !this.held) {
      this.saved = core.enabledInterrupts & bit;
      core.enabledInterrupts &= ~bit;
      this.held = true;
    } else if (!on && this.held) {
      core.enabledInterrupts |= this.saved;
      this.held = false;
      core.interruptsUpdated = true;
      if (core.waiting && core.checkForInterrupts()) core.waiting = false; // a sleeping core wakes for it
    }
  },

  reset() {
    this.held = false; // a new chip starts with its own NVIC
  },
};

// ---- PWM: frequency and duty measured on an output pin -----------------------------------------------------

const pwm = {
  watched: new Set(),
  edges: new Map(), // pin -> {last: level, rises: [t_ns], highs: [ns]}

  watch(pins) {
    for (const p of pins) this.watched.add(p);
    this.reset();
  },

  reset() {
    this.edges.clear();
    for (const p of this.watched) this.edges.set(p, { last: null, riseAt: null, rises: [], highs: [] });
  },

  onPinChange(pin) {
    const e = this.edges.get(pin);
    if (!e) return;
    const gpio = mcu.gpio[pin];
    const v = gpio.outputEnable && gpio.outputValue ? 1 : 0;
    if (v === e.last) return;
    const t = nowNs();
    if (v === 1) {
      e.rises.push(t);
      if (e.rises.length > 17) e.rises.shift();
      e.riseAt = t;
    } else if (e.riseAt !== null) {
      e.highs.push(t - e.riseAt);
      if (e.highs.length > 16) e.highs.shift();
    }
    e.last = v;
  },

  measure(pin) {
    const e = this.edges.get(pin);
    if (!e) throw new Error(`pin ${pin} is not watched (watch it in "configure")`);
    const gpio = mcu.gpio[pin];
    const level = gpio.outputEnable ? (gpio.outputValue ? 1 : 0) : null;
    const stale = e.rises.length && nowNs() - e.rises[e.rises.length - 1] > 2 * this.period(e);
    if (e.rises.length < 3 || !e.highs.length || stale) return { freq_hz: 0, duty: null, level };
    const period = this.period(e);
    const high = e.highs.reduce((a, b) => a + b, 0) / e.highs.length;
    return { freq_hz: 1e9 / period, duty: high / period, level };
  },

  period(e) {
    if (e.rises.length < 2) return Infinity;
    return (e.rises[e.rises.length - 1] - e.rises[0]) / (e.rises.length - 1);
  },
};

// ---- the USB host ---------------------------------------------------------------------------------------------

function setupPacket(requestType, request, value, index, length) {
  return new Uint8Array([
    requestType,
    request,
    value & 0xff,
    value >> 8,
    index & 0xff,
    index >> 8,
    length & 0xff,
    length >> 8,
  ]);
}

const usb = {
  ctrl: null,
  state: 'off', // off -> address -> config9 -> config -> configure -> ready
  configTotal: 0,
  config: [],
  inEp: -1,
  outEp: -1,
  commInterface: 0,
  open: false, // a program has the port open: DTR and RTS up
  reading: true, // the rig's switch: the host takes IN packets
  backpressure: false, // the relay cannot take more bytes now
  dtrSent: null,
  pendingControl: false,
  outArmed: 0, // OUT transfers the device has armed and the host has not answered
  outQueue: [], // bytes from the host waiting for an armed OUT transfer
  heldIn: [], // IN buffer-control offsets the host has not taken yet
  serial: null,
  stats: { in: 0, out: 0 },

  attach(chip) {
    const ctrl = chip.usbCtrl;
    this.ctrl = ctrl;
    this.state = 'off';
    this.config = [];
    this.inEp = this.outEp = -1;
    this.dtrSent = null;
    this.pendingControl = false;
    this.outArmed = 0;
    this.heldIn = [];
    this.outQueue = [];
    ctrl.onUSBEnabled = () => ctrl.resetDevice();
    ctrl.onResetReceived = () => {
      this.state = 'address';
      ctrl.sendSetupPacket(setupPacket(0x00, 5, 1, 0, 0)); // SET_ADDRESS 1
    };
    ctrl.onEndpointWrite = (ep, data) => this.onIn(ep, data);
    ctrl.onEndpointRead = (ep) => {
      if (ep !== this.outEp || ep <= 0) return;
      this.outArmed++;
      this.feedOut();
    };
    const original = ctrl.DPRAMUpdated.bind(ctrl);
    ctrl.DPRAMUpdated = (offset, value) => {
      if (this.inEp > 0 && offset === 0x80 + 8 * this.inEp && value & USB_AVAILABLE && !this.takesIn()) {
        this.heldIn.push(offset); // the IN packet waits in the device until the host polls again
        return;
      }
      original(offset, value);
    };
    this.original = original;
  },

  takesIn() {
    return this.open && this.reading && !this.backpressure;
  },

  onIn(ep, data) {
    if (ep === 0) {
      this.onControl(data);
      return;
    }
    if (ep === this.inEp && data.length) {
      this.stats.in += data.length;
      if (this.serial && !this.serial.write(Buffer.from(data))) {
        this.backpressure = true;
      }
    }
  },

  onControl(data) {
    const ctrl = this.ctrl;
    switch (this.state) {
      case 'address':
        if (data.length === 0) {
          this.state = 'config9';
          ctrl.sendSetupPacket(setupPacket(0x80, 6, 0x0200, 0, 9)); // GET_DESCRIPTOR configuration, 9 bytes
        }
        break;
      case 'config9':
        if (data.length >= 9) {
          this.configTotal = data[2] | (data[3] << 8);
          this.config = [];
          this.state = 'config';
          ctrl.sendSetupPacket(setupPacket(0x80, 6, 0x0200, 0, this.configTotal));
        }
        break;
      case 'config':
        this.config.push(...data);
        if (this.config.length >= this.configTotal) {
          this.parseConfig();
          this.state = 'configure';
          ctrl.sendSetupPacket(setupPacket(0x00, 9, 1, 0, 0)); // SET_CONFIGURATION 1
        }
        break;
      case 'configure':
        if (data.length === 0) {
          this.state = 'ready';
          send({ ev: 'usb', attached: true, t_ns: nowNs() });
          this.sync();
        }
        break;
      case 'ready':
        if (data.length === 0 && this.pendingControl) {
          this.pendingControl = false;
          this.sync();
        }
        break;
    }
  },

  parseConfig() {
    const d = this.config;
    let cls = -1;
    for (let i = 0; i + 1 < d.length && d[i] >= 2; i += d[i]) {
      const len = d[i];
      const type = d[i + 1];
      if (type === 4 && len >= 9) {
        cls = d[i + 5];
        if (cls === 2) this.commInterface = d[i + 2]; // CDC communication interface
      } else if (type === 5 && len >= 7 && cls === 10 && (d[i + 3] & 3) === 2) {
        if (d[i + 2] & 0x80) this.inEp = d[i + 2] & 0xf;
        else this.outEp = d[i + 2] & 0xf;
      }
    }
  },

  // Brings the device's view in line with the host: DTR/RTS follow the port being open; held IN packets go.
  sync() {
    if (this.state !== 'ready') return;
    if (!this.pendingControl && this.dtrSent !== this.open) {
      this.dtrSent = this.open;
      this.pendingControl = true;
      // SET_CONTROL_LINE_STATE: DTR and RTS up while a program has the port open, down when it closes it
      this.ctrl.sendSetupPacket(setupPacket(0x21, 0x22, this.open ? 3 : 0, this.commInterface, 0));
    }
    if (this.takesIn() && this.heldIn.length) {
      const held = this.heldIn;
      this.heldIn = [];
      for (const offset of held) this.original(offset, mcu.usbDPRAMView.getUint32(offset, true));
    }
    this.feedOut();
  },

  fromHost(bytes) {
    if (this.state !== 'ready') {
      this.stats.dropped = (this.stats.dropped || 0) + bytes.length; // no device on the bus
      return;
    }
    this.outQueue.push(bytes);
    this.feedOut();
  },

  feedOut() {
    while (this.outArmed > 0 && this.outQueue.length) {
      const first = this.outQueue[0];
      const n = Math.min(64, first.length);
      const packet = new Uint8Array(first.subarray(0, n));
      if (n === first.length) this.outQueue.shift();
      else this.outQueue[0] = first.subarray(n);
      this.outArmed--;
      this.stats.out += n;
      this.ctrl.endpointReadDone(this.outEp, packet);
    }
  },
};

if (args['serial-fd']) {
  const serial = new net.Socket({ fd: Number(args['serial-fd']), readable: true, writable: true });
  serial.on('data', (chunk) => usb.fromHost(new Uint8Array(chunk)));
  serial.on('drain', () => {
    usb.backpressure = false;
    usb.sync();
  });
  serial.on('error', () => {});
  serial.on('close', () => {
    usb.serial = null;
  });
  usb.serial = serial;
}

// ---- running ----------------------------------------------------------------------------------------------------

let mode = 'hold'; // 'hold' | 'fast' | 'realtime'
let stopAt = Infinity; // run_until target (global ns)
let stopWaiter = null; // request id answered when stopAt is reached
let anchor = null; // realtime: [wall ms, emulated ns]
let idleWall = null; // fast: the wall ms when the chip was last seen asleep with nothing due
let scheduled = false;

function kick() {
  if (!scheduled && mode !== 'hold') {
    scheduled = true;
    setImmediate(loop);
  }
}

function setMode(m) {
  mode = m;
  anchor = m === 'realtime' ? [performance.now(), nowNs()] : null;
  kick();
}

function reachedStop() {
  stopAt = Infinity;
  mode = 'hold';
  if (stopWaiter !== null) {
    const id = stopWaiter;
    stopWaiter = null;
    respond(id, state());
  }
}

function loop() {
  scheduled = false;
  if (mode === 'hold' || halted || resetting) return;
  const sliceEnd = performance.now() + SLICE_MS;
  let limit = stopAt;
  if (mode === 'realtime') {
    const wall = performance.now();
    let target = anchor[1] + (wall - anchor[0]) * 1e6;
    if (target - nowNs() > MAX_LAG_NS) {
      anchor = [wall, nowNs() + MAX_LAG_NS]; // behind: do not rush to catch up
      target = anchor[1];
    }
    limit = Math.min(limit, target);
  }
  const core = mcu.core;
  const clock = mcu.clock;
  const cycleNs = 1e9 / mcu.clkSys;
  let limitLocal = limit - baseNs;
  // Fast, and the chip asleep with no alarm due (a REPL waiting for a key): there is no idle time to skip to, and
  // a real chip's time goes on meanwhile, so it goes on with the wall clock until something wakes the chip.
  if (mode === 'fast' && core.waiting && !clock.nextAlarm) {
    const wall = performance.now();
    if (idleWall !== null) {
      const step = Math.min((wall - idleWall) * 1e6, limitLocal - clock.nanos);
      if (step > 0) clock.tick(step);
    }
    idleWall = wall;
  } else {
    idleWall = null;
  }
  while (!resetPending && !halted && clock.nanos < limitLocal && performance.now() < sliceEnd) {
    for (let i = 0; i < 20000; i++) {
      if (core.waiting) {
        const next = clock.nextAlarm ? clock.nextAlarm.nanos : Infinity;
        if (next >= limitLocal) {
          if (limitLocal !== Infinity) clock.tick(limitLocal - clock.nanos);
          break;
        }
        clock.tick(next - clock.nanos);
      } else {
        clock.tick(core.executeInstruction() * cycleNs);
      }
      if (resetPending || halted || clock.nanos >= limitLocal) break;
    }
    if (core.waiting && !clock.nextAlarm && limitLocal === Infinity) break; // asleep with nothing due: wait for I/O
  }
  pioClock.sync();
  if (resetPending) {
    const cause = resetPending;
    resetPending = null;
    doReset(cause);
  }
  if (stopAt !== Infinity && nowNs() >= stopAt) reachedStop();
  if (mode === 'hold' || halted || resetting) return;
  scheduled = true;
  const ahead = mode === 'realtime' && nowNs() >= limit;
  if (ahead || (mcu.core.waiting && !mcu.clock.nextAlarm)) setTimeout(loop, 1);
  else setImmediate(loop);
}

// A reset in two steps. The chip stops; if it was on the USB bus, the bytes it sent are flushed to the rig and the
// rig is told the device left the bus; the rig lets a program holding the port read what was sent (as a real host
// reads it within microseconds, long before the device vanishes), removes the port, and answers "usb_gone". Then the
// new chip starts with the same flash.
let resetting = null;

function doReset(cause) {
  if (resetting) return;
  const reason = cause === 'power' ? 0 : mcu.peripherals[0x40058].reason;
  resetting = { cause, reason, timer: null };
  if (usb.state !== 'ready') {
    finishReset();
    return;
  }
  usb.state = 'gone';
  const announce = () => {
    if (!resetting || resetting.announced) return;
    resetting.announced = true;
    send({ ev: 'usb', attached: false, t_ns: nowNs() });
    resetting.timer = setTimeout(finishReset, 10000); // the rig did not answer: go on without it
  };
  const serial = usb.serial;
  if (serial && serial.writableLength > 0) {
    serial.once('drain', announce);
    setTimeout(announce, 1000); // a host that stopped reading does not get the rest
  } else {
    announce();
  }
}

function finishReset() {
  if (!resetting) return;
  const { cause, reason, timer } = resetting;
  if (timer) clearTimeout(timer);
  baseNs += mcu.clock.nanos;
  cyclesBase += mcu.core.cycles;
  resets++;
  halted = null;
  usb.stats.dropped = 0;
  createChip(reason);
  resetting = null;
  send({ ev: 'reset', cause, n: resets, t_ns: nowNs() });
  if (holdOnReset) {
    holdOnReset = false;
    mode = 'hold';
  } else if (mode === 'realtime') {
    anchor = [performance.now(), nowNs()];
  }
  checkResetWaiters();
  kick();
}

// ---- requests -----------------------------------------------------------------------------------------------------

function respond(id, body) {
  send({ id, ok: true, ...body });
}

function state() {
  return {
    t_ns: nowNs(),
    cycles: cycles(),
    resets,
    mode,
    halted,
    usb: {
      attached: usb.state === 'ready',
      open: usb.open,
      reading: usb.reading,
      held_in: usb.heldIn.length,
      bytes_in: usb.stats.in,
      bytes_out: usb.stats.out,
    },
    pending_changes: timeline.items.length,
    applied_changes: timeline.applied,
    pio_lag_ns: pioClock.lagNs,
    gpio_irq_held: gpioIrq.held,
  };
}

function lineValue(v) {
  if (v === null || v === 0 || v === 1) return v;
  throw new Error(`a line is driven 0, 1 or null (released), not ${JSON.stringify(v)}`);
}

const ops = {
  state: () => state(),
  configure(req) {
    parts.configure(req.muxes || []);
    pwm.watch(req.watch || []);
    return {};
  },
  drive(req) {
    for (const [line, v] of req.changes) parts.set(line, lineValue(v));
    return { t_ns: nowNs() };
  },
  schedule(req) {
    timeline.add(req.changes.map(([t, line, v]) => [t, line, lineValue(v)]));
    return { t_ns: nowNs(), pending: timeline.items.length };
  },
  clear_schedule() {
    timeline.clear();
    return {};
  },
  hold_irq(req) {
    // The GPIO interrupt held off from t0_ns to t1_ns (emulated), as a long critical section holds it.
    if (!(req.t1_ns > req.t0_ns)) throw new Error('hold_irq needs t0_ns < t1_ns');
    timeline.add([
      [req.t0_ns, GPIO_IRQ, 1],
      [req.t1_ns, GPIO_IRQ, 0],
    ]);
    return { t_ns: nowNs(), pending: timeline.items.length };
  },
  pio_lag(req) {
    // From now, or from t_ns (emulated) when given: the PIO stepped only every `ns`.
    const ns = Number(req.ns);
    if (!(ns >= 0)) throw new Error(`pio_lag takes ns >= 0, not ${JSON.stringify(req.ns)}`);
    if (req.t_ns === undefined || req.t_ns === null) pioClock.setLag(ns);
    else timeline.add([[req.t_ns, PIO_LAG, ns]]);
    return { t_ns: nowNs() };
  },
  run_until(req, id) {
    if (stopWaiter !== null) throw new Error('a run_until is already waiting');
    if (halted) throw new Error(halted);
    if (req.t_ns <= nowNs()) return state();
    stopAt = req.t_ns;
    stopWaiter = id;
    setMode(req.pace || 'fast');
    return null; // answered when the time is reached
  },
  go(req) {
    if (!['fast', 'realtime'].includes(req.pace)) throw new Error(`pace is "fast" or "realtime", not ${req.pace}`);
    setMode(req.pace);
    return state();
  },
  hold() {
    mode = 'hold';
    return state();
  },
  pin(req) {
    const gpio = mcu.gpio[req.pin];
    if (!gpio) throw new Error(`no GPIO ${req.pin}`);
    return {
      output: gpio.outputEnable,
      out: gpio.outputEnable ? (gpio.outputValue ? 1 : 0) : null,
      in: gpio.inputValue ? 1 : 0,
      func: gpio.functionSelect,
      pull: gpio.pullupEnabled ? (gpio.pulldownEnabled ? 'keeper' : 'up') : gpio.pulldownEnabled ? 'down' : null,
    };
  },
  pwm: (req) => pwm.measure(req.pin),
  usb(req) {
    if (req.open !== undefined) usb.open = !!req.open;
    if (req.reading !== undefined) usb.reading = !!req.reading;
    usb.sync();
    return state().usb;
  },
  save_flash(req) {
    fs.writeFileSync(req.path, flash);
    return { bytes: flash.length };
  },
  reset(req) {
    // The RUN pin / a power cycle: the chip starts again, with the same flash.
    holdOnReset = !!req.hold;
    if (mode === 'hold' || resetting) {
      doReset('power');
    } else {
      resetPending = 'power';
      kick();
    }
    return null; // answered with the reset event's state, below
  },
  usb_gone() {
    finishReset();
    return {};
  },
  quit() {
    shutdown(0);
    return {};
  },
};

const resetWaiters = [];

function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    send({ ev: 'log', level: 'error', msg: `bad request line: ${line.slice(0, 80)}` });
    return;
  }
  const id = req.id;
  try {
    const op = ops[req.op];
    if (!op) throw new Error(`unknown op ${req.op}`);
    const body = op(req, id);
    if (req.op === 'reset') {
      resetWaiters.push([id, resets + 1]);
      checkResetWaiters();
    } else if (body !== null) {
      respond(id, body);
    }
  } catch (e) {
    send({ id, ok: false, error: e.message });
  }
}

function checkResetWaiters() {
  for (let i = 0; i < resetWaiters.length; i++) {
    if (resets >= resetWaiters[i][1]) {
      respond(resetWaiters[i][0], state());
      resetWaiters.splice(i, 1);
      i--;
    }
  }
}

// The rig's port and scratch folder go with us, also when the rig died without cleaning up (--link, --scratch).
function cleanUp() {
  try {
    if (args.link && fs.lstatSync(args.link).isSymbolicLink()) fs.unlinkSync(args.link);
  } catch {
    // already gone
  }
  if (args.scratch && path.basename(args.scratch).startsWith('flickboard-rp2-')) {
    fs.rmSync(args.scratch, { recursive: true, force: true });
  }
}

function shutdown(code) {
  try {
    if (usb.serial) usb.serial.destroy();
    cleanUp();
  } finally {
    process.exit(code);
  }
}

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  handle(line);
  checkResetWaiters();
});
input.on('close', () => shutdown(0)); // the rig (our parent) is gone
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => shutdown(0));
process.stdout.on('error', () => shutdown(0));

createChip(0);
send({ ev: 'ready', flash_bytes: FLASH_BYTES, erase_at: eraseAt, program_at: programAt });
