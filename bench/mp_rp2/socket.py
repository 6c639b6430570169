"""A stand-in for the `socket` module of a Wi-Fi build, for measurements only (bench/rp2_bench.py copies it to the
emulated Pico, whose RPI_PICO firmware has no network and so no socket module). It has what the firmware's MQTT
client (fb.mqtt, fb.dns) needs to be built and to try: the constants, and getaddrinfo for a literal address. A socket
cannot be opened (OSError EHOSTUNREACH, as with Wi-Fi down), so the client stays disconnected and retries with its
backoff. On a Pico W or an ESP32 the real module is part of the firmware image and takes no heap."""

AF_INET = 2
SOCK_STREAM = 1
SOCK_DGRAM = 2
IPPROTO_TCP = 6
TCP_NODELAY = 1
SOL_SOCKET = 1
SO_REUSEADDR = 4


def getaddrinfo(host, port, af=0, type=0, proto=0, flags=0):
    return [(AF_INET, type or SOCK_STREAM, 0, "", (host, port))]


def socket(af=AF_INET, type=SOCK_STREAM, proto=0):
    raise OSError(113)  # EHOSTUNREACH: no network
