"""Client addresses and the networks the settings name (--trusted-proxies, --limit-exempt,
--metrics-from): plain functions over `ipaddress`, with nothing of the server's, so that
checking the settings (server/config) and admitting connections (admission, gateway, http)
share them without importing each other."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: What `--metrics-from private` stands for: addresses no packet from the public internet
#: carries (loopback, RFC 1918, link-local, IPv6 unique-local, the RFC 2544 benchmarking range).
PRIVATE_NETWORKS = (
    "127.0.0.0/8",
    "::1/128",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "fc00::/7",
    "fe80::/10",
    "198.18.0.0/15",
)


def parse_networks(spec: str, setting: str, *, private: bool = False) -> list[Network]:
    """Comma-separated addresses or networks (host bits allowed); with `private`, the word
    `private` adds PRIVATE_NETWORKS. ValueError names the setting."""
    nets: list[Network] = []
    for item in (x.strip() for x in spec.split(",")):
        if not item:
            continue
        if private and item == "private":
            nets.extend(ipaddress.ip_network(x) for x in PRIVATE_NETWORKS)
            continue
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"--{setting}: {item!r} is not an address or a network") from None
    return nets


def in_networks(addr: str, nets: Iterable[Network]) -> bool:
    """Whether `addr` lies in one of `nets` (an IPv4-mapped IPv6 address as its IPv4 address,
    as a dual-stack socket reports IPv4 peers)."""
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(addr)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in nets)


def client_address(peer: str, forwarded: Sequence[str], trusted: Sequence[Network]) -> str:
    """The client's address: the peer's, or, from a trusted proxy, the last address of its
    X-Forwarded-For headers (`forwarded`): the hop our proxy added; earlier ones are the client's word."""
    if trusted and forwarded and in_networks(peer, trusted):
        last = forwarded[-1].split(",")[-1].strip()
        if last:
            return last
    return peer
