"""Server endpoints: the URLs given, one endpoint per address a host name resolves to."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from websockets.exceptions import InvalidURI
from websockets.proxy import get_proxy
from websockets.uri import parse_uri


@dataclass(frozen=True)
class Endpoint:
    """One place to connect to: a server URL and, when its host name resolves to
    several addresses, the one address to use (`host`, `port`); None: the URL as is."""

    url: str
    host: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        return self.url if self.host is None else f"{self.url} at {self.host}"


def websocket_url(url: str) -> str:
    """`url` as a WebSocket URL: a web page's address (``http://HOST:PORT/``, the link the
    lobby shows, ``https`` too) is its server's socket, ``ws://HOST:PORT/ws``; others as given."""
    u = urlsplit(url)
    if u.scheme not in ("http", "https") or not u.netloc:
        return url
    scheme = "wss" if u.scheme == "https" else "ws"
    return f"{scheme}://{u.netloc}{u.path if u.path.rstrip('/').endswith('/ws') else '/ws'}"


async def endpoints(urls: Sequence[str]) -> list[Endpoint]:
    """The endpoints of `urls`, in order: one per URL, or one per address of a
    URL whose host name resolves to several (in the resolver's order). A web page's
    http(s) address stands for its server's socket (`websocket_url`).

    A URL that cannot be parsed or resolved stays whole: connecting to it
    reports the error. Through a configured proxy the name is the proxy's
    business, so the URL stays whole too.
    """
    loop = asyncio.get_running_loop()
    out: list[Endpoint] = []
    for url in map(websocket_url, urls):
        try:
            uri = parse_uri(url)
        except InvalidURI:
            out.append(Endpoint(url))
            continue
        if _is_address(uri.host) or get_proxy(uri) is not None:
            out.append(Endpoint(url))
            continue
        try:
            infos = await loop.getaddrinfo(uri.host, uri.port, type=socket.SOCK_STREAM)
        except OSError:
            out.append(Endpoint(url))
            continue
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if len(addresses) <= 1:
            out.append(Endpoint(url))
        else:
            out.extend(Endpoint(url, address, uri.port) for address in addresses)
    return out


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
