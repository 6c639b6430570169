"""The board's side: the wire protocol (host/board/protocol.py), the USB serial and MQTT links that carry it, the
inbox that batches a flood, the bridge that turns a board's messages and people's entries into journaled games,
and flashing a board (make flash)."""
