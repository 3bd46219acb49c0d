"""The solrace asyncio client library: the whole protocol, typed events, local boards.

Used by the tests, the bots, the terminal client and the load benchmark::

    from client import connect

    async with connect("ws://127.0.0.1:8765/ws", name="ada") as c:
        snap = await c.create("racing-aces", seats=1)
        await c.ready(snap.race)
        start = await c.wait_for("start", lambda ev: ev.race == snap.race)
        board = c.board(snap.race)             # your view, kept up to date
        ack = await c.move(snap.race, "draw")  # n is tracked for you
        print(ack.revealed, board.view_text)

Once connected, `c.player`, `c.token` (keep it to resume: `connect(token=...)`),
`c.name` and `c.welcome` are the latest `welcome`'s (they stay after a close);
asked before the first one they raise `NotConnected`. A board's `view` (and
`view_text`) is there from its race's start for this player on; before, it
raises `NoView` (`board.has_view` says which).

Several servers (processes sharing one Redis) are given as a list; with
`reconnect=True` the client fails over between them and resumes its session
on whichever answers::

    c = await connect(["ws://a:8765/ws", "ws://b:8765/ws"], name="ada", reconnect=True)

Modules, by job: `connection` (the `Client`: connecting, reading,
reconnection, and `connect`), built up from `state` (what it knows),
`events` (the event buffer, `wait_for`), `requesting` (requests and moves),
`tracking` (boards and race versions from what is read), `calls` (one
method per request of races and watching, `hint` and `analysis` too),
`arena` (one per arena request), `daily` (daily challenges) and `accounts`
(claim, login, logout here or everywhere, the password, profiles, rating
boards, your recent races); `errors`, `endpoints`, and `board` (the pure
view update `apply_move` and the per-race `Board`). Everything public is
importable from `client.library` itself; `client.library.connection` keeps
the client, its errors and its events, as before.
"""

from .board import Board, NoView, ViewMismatch, apply_move, apply_move_text
from .connection import (
    Client,
    ConnectionLost,
    Disconnected,
    Endpoint,
    IllegalMoveError,
    NotConnected,
    Reconnected,
    ReplyLost,
    ServerError,
    Unreachable,
    connect,
    endpoints,
    event_kind,
)

__all__ = [
    "Board",
    "Client",
    "ConnectionLost",
    "Disconnected",
    "Endpoint",
    "IllegalMoveError",
    "NoView",
    "NotConnected",
    "Reconnected",
    "ReplyLost",
    "ServerError",
    "Unreachable",
    "ViewMismatch",
    "apply_move",
    "apply_move_text",
    "connect",
    "endpoints",
    "event_kind",
]
