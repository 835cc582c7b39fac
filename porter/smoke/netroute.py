"""Which of this host's addresses (and interfaces) leads to another host: what a node of a
multi-node smoke run tells gloo to use (GLOO_SOCKET_IFNAME) and shows in the report.

gloo otherwise takes the address the host name resolves to, which on a machine with several
interfaces (or in a network namespace) is often a loopback address the other nodes cannot reach.
"""

from __future__ import annotations

import fcntl
import socket
import struct

_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def _ipv4_of(name: str) -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            raw = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
        except OSError:
            return None
    return socket.inet_ntoa(raw[20:24])


def interface_of(address: str) -> str | None:
    """The interface holding the IPv4 ``address`` (None: none here, or not IPv4)."""
    try:
        names = socket.if_nameindex()
    except OSError:
        return None
    return next((name for _, name in names if _ipv4_of(name) == address), None)


def route_to(host: str, port: int) -> tuple[str | None, str | None]:
    """(this host's address on the route to ``host``, the interface holding it); (None, None) when
    ``host`` does not resolve or no route leads there.  No packet is sent (a UDP socket's connect)."""
    try:
        family, _, _, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect(addr)
            local = s.getsockname()[0]
    except OSError:
        return None, None
    return local, interface_of(local) if family == socket.AF_INET else None
