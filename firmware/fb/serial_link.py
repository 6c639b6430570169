"""USB serial link: protocol frames out on stdout, host command lines in from stdin, never blocking.

    link = SerialLink()                  # board / MicroPython: select.poll on sys.stdin
    link.send(line)                      # one frame + "\\n", in a single write (or skipped, see below)
    link.service(dispatcher, t_us)       # read what is there, run each complete line, write the replies

A host that opens the port and never reads fills the USB CDC buffer. The port's write then waits for room, up
to 500 ms per call on the rp2 port, and sixteen lines in one pass would starve the watchdog. So a line is written
only when the port says it can take more (select.poll, POLLOUT); otherwise it is skipped and counted in `skipped`.
At most one write per line can wait, and only while the buffer fills up; after that the port reports itself full
and nothing waits at all. The write that waited in vain wrote part of its line (counted in `cut`): the next line
starts with a newline, so the host sees that part as one bad line and the next one whole. Nothing reliable is
lost: events stay in the outbox, and the host gets them again with `ping` once it reads (a heartbeat's
high-water mark shows what it missed).

Incoming bytes collect in a pre-allocated buffer of max_line + 1 bytes. A longer line is cut there and
the rest discarded up to its newline; the cut line (still too long) gets the `oversize` error reply
from proto.decode. Blank lines are ignored. Ctrl-C (0x03) normally never reaches this code on a board: the
MicroPython console turns it into KeyboardInterrupt, which main.py lets through so mpremote can take over. A
Ctrl-C that arrived while the board was still starting (before the console watched for it) is waiting in stdin
as a plain byte: reading it raises KeyboardInterrupt all the same.
"""

import sys

from fb import proto


class SerialLink:
    def __init__(self, read=None, write=None, max_line=proto.MAX_LINE, max_bytes_per_call=256):
        """read(): bytes available now (b"" if none, None at end of input); write(str). Defaults: stdio."""
        self.max_line = max_line
        self.max_bytes = max_bytes_per_call
        self._buf = bytearray(max_line + 1)
        self._n = 0
        self._over = False
        self.closed = False
        self.lines_in = 0
        self.oversize = 0
        self.sent = 0
        self.skipped = 0  # lines not written: the host was not reading (the port had no room)
        self.cut = 0  # lines the port wrote only part of (it stopped waiting for room)
        self._cut = False  # the last line was cut: the next begins with a newline
        if read is None:
            read = self._stdin_reader()
        if write is None:
            write = _stdout_writer()
        self._read = read
        self._write = write

    def _stdin_reader(self):
        import select

        stream = getattr(sys.stdin, "buffer", sys.stdin)
        poller = select.poll()
        poller.register(sys.stdin, select.POLLIN)
        max_bytes = self.max_bytes
        # MicroPython's ipoll() returns the poller itself: no list is made each pass when nothing came.
        check = getattr(poller, "ipoll", poller.poll)

        def read():
            out = b""
            while len(out) < max_bytes:
                flags = 0
                for ev in check(0):
                    flags = ev[1]
                if not flags:
                    break
                if not flags & select.POLLIN:
                    return out if out else None  # hang-up / error without data: end of input
                b = stream.read(1)
                if not b:
                    return out if out else None
                if isinstance(b, str):
                    b = b.encode()
                out += b
            return out

        return read

    def send(self, line):
        """Write one line; False when it was skipped because the port had no room (see the module docstring)."""
        text = "\n" + line + "\n" if self._cut else line + "\n"
        done = self._write(text)
        if done is False:
            self.skipped += 1
            return False
        if done is not True and done is not None and done < len(text):
            self.cut += 1  # the port gave up on the rest: end that line before the next, which must start clean
            self._cut = True
            return False
        self._cut = False
        self.sent += 1
        return True

    def poll(self):
        """Complete lines (bytes, no newline) received since the last call."""
        data = self._read()
        if not data and data is not None:
            return ()  # nothing came: the usual pass allocates nothing
        lines = []
        if data is None:
            self.closed = True
            if self._n:  # a half line at end of input is still answered (as a bad line)
                lines.append(bytes(self._buf[: self._n]))
                self._n = 0
            return lines
        buf = self._buf
        for b in data:
            if b == 3:  # Ctrl-C that reached stdin as data (it came before the console took it as an interrupt)
                raise KeyboardInterrupt
            if b == 10:  # "\n"
                if self._n or self._over:
                    n = self._n
                    if not self._over and n and buf[n - 1] == 13:
                        n -= 1
                    if self._over:
                        self.oversize += 1
                    if n:
                        lines.append(bytes(buf[:n]))
                        self.lines_in += 1
                self._n = 0
                self._over = False
            elif self._n <= self.max_line:
                buf[self._n] = b
                self._n += 1
                if self._n > self.max_line:
                    self._over = True
        return lines

    def service(self, dispatcher, t_us):
        """Read, dispatch every complete line, send the replies. Returns the number of lines handled."""
        lines = self.poll()
        for ln in lines:
            for out in dispatcher.handle(ln, t_us):
                self.send(out)
        return len(lines)


def _stdout_writer():
    """write(s) to stdout's byte stream: the number of bytes the port took (all of them, or fewer when it gave up
    waiting for room), or False without writing when it cannot take more now (POLLOUT)."""
    import select

    out = getattr(sys.stdout, "buffer", sys.stdout)
    flush = getattr(out, "flush", None)
    poller = select.poll()
    poller.register(sys.stdout, select.POLLOUT)
    check = getattr(poller, "ipoll", poller.poll)
    as_text = sys.implementation.name == "micropython"  # its byte stream reads a str in place; CPython's wants bytes

    def write(s):
        flags = 0
        for ev in check(0):
            flags = ev[1]
        if not flags & select.POLLOUT:
            return False
        n = out.write(s if as_text else s.encode())
        if flush is not None:
            flush()
        return n

    return write
