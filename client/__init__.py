"""solrace clients: the asyncio library (`client.library`), bots, terminal and web.

`from client import connect` is the entry point of the library.
"""

from .library import (
    Board,
    Client,
    ConnectionLost,
    Disconnected,
    IllegalMoveError,
    NotConnected,
    NoView,
    Reconnected,
    ServerError,
    connect,
)

__all__ = [
    "Board",
    "Client",
    "ConnectionLost",
    "Disconnected",
    "IllegalMoveError",
    "NoView",
    "NotConnected",
    "Reconnected",
    "ServerError",
    "connect",
]
