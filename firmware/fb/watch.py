"""The `watch` stream (docs/protocol.md; `flickboard watch`; the bench test in hardware/README.md).

For `seconds` after a `watch` command, a `reply` to `watch` (with the command's id) each time a sensor's live state
changes, with every sensor's state and the seconds left; the last one says 0. It goes to USB, and to MQTT too when
it was asked for there. The board looks every EVERY_MS: a puck slid along the baseline at walking pace changes it
far more slowly; a puck dropping through a beam may come and go between two looks (its event says it). A bench
tool: each look builds the states' dict, so it is not for a game (it stops by itself). fb.app imports this module
only when a host first asks for a stream, so it costs a board nothing otherwise.
"""

from fb.proto import PREFIX

EVERY_MS = 20


class Stream:
    def __init__(self, app, seconds, rid, via_mqtt):
        self.app = app
        self.until = app.uptime.now_ms() + 1000 * seconds
        self.rid = rid
        self.via_mqtt = via_mqtt
        self.last = app.sensors.live()
        self.next = 0

    def rebase(self, d_ms):
        self.until -= d_ms
        self.next -= d_ms

    def step(self, now_ms, now):
        """Look now and then; send on a change. True once the stream has ended."""
        if now_ms < self.next:
            return False
        self.next = now_ms + EVERY_MS
        app = self.app
        live = app.sensors.live()
        done = now_ms >= self.until
        if live == self.last and not done:
            return False
        self.last = live
        left = 0 if done else (self.until - now_ms + 999) // 1000
        line = app.enc.reply(now, "watch", self.rid, True, {"s": left, "sensors": live})
        if app.serial is not None:
            app.serial.send(line)
        if self.via_mqtt and app.mqtt is not None:
            app.mqtt.publish(line[len(PREFIX) : line.rindex("|")], 0)  # MQTT carries the bare JSON
        return done
