"""A move whose reply Redis never gave (docs/protocol.md §6 `internal`): when the connection was
lost after the move was sent (a Redis paused or stalled past the reply timeout, a dropped
connection), the move may be stored, and the error says so instead of "had no effect"."""

from __future__ import annotations

from protocol.messages import ErrorCode
from server.core.moves import UNCONFIRMED, Failed, refusal
from server.storage.moves import decode_reply
from server.storage.resp import ReplyLost


def test_a_reply_lost_with_its_connection_may_have_been_stored() -> None:
    reply = decode_reply(ReplyLost("redis connection lost: no reply within 30 s"))
    assert isinstance(reply, Failed)
    error, state_follows = refusal(7, reply)
    assert error.code == ErrorCode.INTERNAL and error.rid == 7 and not state_follows
    assert error.message == UNCONFIRMED and "same n" in error.message


def test_a_move_never_sent_had_no_effect() -> None:
    reply = decode_reply(ConnectionError("redis unavailable"))
    assert isinstance(reply, Failed)
    error, _ = refusal(7, reply)
    assert error.code == ErrorCode.INTERNAL and error.message.endswith("had no effect")
