"""Every request type of the protocol has a handler in a fully built server (the gateway
answers `hello` and `move` itself): a type added without one was answered "hello was
already said", which sent its author looking in the wrong place."""

from __future__ import annotations

from protocol import messages as m


async def test_every_client_message_type_has_a_handler(server) -> None:
    unhandled = [
        t.__name__ for t in m.CLIENT_TYPES if t not in (m.Hello, m.Move) and t not in server.service.handlers
    ]
    assert unhandled == []
