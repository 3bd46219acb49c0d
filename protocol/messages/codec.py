"""The one codec of the wire protocol: MessagePack <-> typed messages.

Design:

* One `msgspec.msgpack.Decoder` per direction, built once over the tagged
  union, so decoding a frame is a single C call that parses, dispatches on
  `t` and validates every field constraint (types, ranges, lengths, unknown
  keys) without building an intermediate dict. That single call is also the
  hot path for `move` frames (about 0.3 µs); there is no separate slower
  "validate" step to skip.
* Errors are translated *after* the fact, on the cold path only: a refused
  frame is first decoded untyped (any malformed part, such as invalid UTF-8
  in a field the typed decoder never read as text, makes it `bad-frame`),
  then msgspec's
  `ValidationError` message is parsed into a stable `ErrorCode` and the
  offending field name, and the request's `rid` is recovered with a lenient
  second decode so that the server can echo it in the `error` reply.
* `decode_client` is total: for any input whatsoever it returns a
  `ClientMessage` or raises `ProtocolError` (fuzzed in
  tests/client/test_codec.py).
* `encode` is the bound method of one shared `msgspec.msgpack.Encoder`: no
  Python frame on the way, so encoding an `ack` or `progress` costs a few
  hundred nanoseconds. `encode_into` lets a sender reuse one buffer.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from .client_messages import CLIENT_TYPES, ClientMessage
from .constants import MAX_RID, ErrorCode
from .server_lobby import Error
from .server_union import SERVER_TYPES, ServerMessage

__all__ = [
    "ProtocolError",
    "decode_client",
    "decode_server",
    "encode",
    "encode_into",
]


class ProtocolError(Exception):
    """A frame that is not a valid message.

    `code` is one of `bad-frame`, `bad-message`, `unknown-type`; `field` names
    the offending key for `bad-message` (None if unknown); `rid` is the
    request id of the frame if one could be read, so the reply can carry it.
    """

    __slots__ = ("code", "field", "message", "rid")

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        field: str | None = None,
        rid: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.rid = rid

    def to_error(self) -> Error:
        """The `error` message the server sends back for this frame."""
        return Error(code=self.code.value, message=self.message, field=self.field, rid=self.rid)

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {self.message!r}, field={self.field!r})"


_client_decoder = msgspec.msgpack.Decoder(ClientMessage)
_server_decoder = msgspec.msgpack.Decoder(ServerMessage)
_encoder = msgspec.msgpack.Encoder()

#: Encode any message (or plain value) to MessagePack bytes.
encode = _encoder.encode
#: Encode into a reusable `bytearray` (resized to fit): `encode_into(msg, buf)`.
encode_into = _encoder.encode_into


def decode_client(frame: bytes) -> ClientMessage:
    """Decode and validate one inbound frame; raise `ProtocolError` otherwise."""
    try:
        return _client_decoder.decode(frame)
    except msgspec.ValidationError as exc:
        raise _classify(frame, str(exc), _CLIENT_TAGS) from None
    except Exception as exc:  # DecodeError, TypeError (str frame), anything else
        raise _bad_frame(frame, exc) from None


def decode_server(frame: bytes) -> ServerMessage:
    """Decode one frame from the server (client side); same errors as above."""
    try:
        return _server_decoder.decode(frame)
    except msgspec.ValidationError as exc:
        raise _classify(frame, str(exc), _SERVER_TAGS) from None
    except Exception as exc:
        raise _bad_frame(frame, exc) from None


# --- cold path: turning msgspec's messages into stable codes -----------------------

# "Expected `int` >= 0 - at `$.n`", "Invalid value 'x' - at `$.t`",
# "Expected `str`, got `int` - at `key` in `$`"
_AT = re.compile(r" - at `(.*?)`(?: in `(.*?)`)?$")
# "Object missing required field `race`", "Object contains unknown field `zz`"
_FIELD = re.compile(r"field `(.*?)`")
_TOP_FIELD = re.compile(r"^\$\.([^.\[]+)")
# What a failed pattern means, per field (the default is the display-name rule).
#: The message types (`t`) of each direction.
_CLIENT_TAGS: frozenset[object] = frozenset(cls.__struct_config__.tag for cls in CLIENT_TYPES)
_SERVER_TAGS: frozenset[object] = frozenset(cls.__struct_config__.tag for cls in SERVER_TYPES)
_PATTERN_MEANING = {
    "date": "`date`: must be a UTC date written YYYY-MM-DD",
    "arena": "`arena`: an arena id is a-z, 0-9 and -, not starting with -",
}


class _RidProbe(msgspec.Struct):
    """Reads only `rid` from a frame that failed validation (unknown keys ignored)."""

    rid: Any = None


_rid_decoder = msgspec.msgpack.Decoder(_RidProbe)


def probe_rid(frame: Any) -> int | None:
    """The `rid` of a frame, if it has a valid one, whatever else is wrong with it."""
    try:
        rid = _rid_decoder.decode(frame).rid
    except Exception:
        # A map with a key that is not a string is still a map whose `rid` any MessagePack
        # reader finds (a bad-frame that echoes it, docs/protocol.md §1): read it untyped.
        try:
            untyped = msgspec.msgpack.decode(frame)
        except Exception:
            return None
        rid = untyped.get("rid") if isinstance(untyped, dict) else None
    if type(rid) is int and 0 <= rid <= MAX_RID:
        return rid
    return None


def _bad_frame(frame: Any, exc: BaseException) -> ProtocolError:
    if isinstance(frame, str):
        return ProtocolError(ErrorCode.BAD_FRAME, "text frames are refused; send binary MessagePack")
    if not isinstance(frame, (bytes, bytearray, memoryview)):
        return ProtocolError(ErrorCode.BAD_FRAME, f"frame must be bytes, not {type(frame).__name__}")
    if isinstance(exc, RecursionError):  # well-formed, but deeper than any message goes
        return ProtocolError(ErrorCode.BAD_FRAME, "MessagePack nested too deeply")
    return ProtocolError(ErrorCode.BAD_FRAME, f"not valid MessagePack: {exc}")


def _classify(frame: Any, text: str, tags: frozenset[object]) -> ProtocolError:
    """Map a msgspec ValidationError message onto (code, field).

    A frame that is not well-formed MessagePack throughout is `bad-frame`
    whatever else is wrong with it: the typed decoder stops at the first
    field it refuses, so invalid UTF-8 inside a field it never read as a
    string (an int-typed field, an unknown key) is found by decoding the
    whole frame untyped. Only refused frames pay for that second decode.
    """
    try:
        untyped = msgspec.msgpack.decode(frame)
    except Exception as exc:  # DecodeError; anything else is no better a frame
        return _bad_frame(frame, exc)
    at = _AT.search(text)
    path = at.group(1) if at else None
    detail = text[: at.start()] if at else text
    if at is None and text.startswith("Expected `object`"):
        # The top-level value is not a map: a framing error.
        return ProtocolError(ErrorCode.BAD_FRAME, f"a frame must be one MessagePack map: {text}")
    if at is not None and path == "key":
        return ProtocolError(ErrorCode.BAD_FRAME, "map keys must be strings", rid=probe_rid(frame))
    rid = probe_rid(frame)
    field: str | None = None
    if path is not None:
        m = _TOP_FIELD.match(path)
        field = m.group(1) if m else None
    else:
        m = _FIELD.search(text)
        field = m.group(1) if m else None
    if field == "t":
        if text.startswith("Object missing required field"):
            return ProtocolError(ErrorCode.BAD_MESSAGE, "missing message type `t`", field="t", rid=rid)
        last = untyped.get("t") if isinstance(untyped, dict) else None
        if text.startswith("Invalid value") and isinstance(last, str) and last in tags:
            # The type is known, but a first `t` key named another: the key is there twice.
            return ProtocolError(ErrorCode.BAD_MESSAGE, "message type `t` given twice", field="t", rid=rid)
        return ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type: {detail}", field="t", rid=rid)
    if text.startswith("Object missing required field"):
        message = f"missing field `{field}`"
    elif text.startswith("Object contains unknown field"):
        message = f"unknown field `{field}`"
    elif "matching regex" in detail:
        # The regex itself is no help to a human; say what it means.
        message = _PATTERN_MEANING.get(
            field or "", f"`{field}`: must be printable, without leading or trailing spaces"
        )
    else:
        message = f"`{field}`: {detail}" if field else detail
    return ProtocolError(ErrorCode.BAD_MESSAGE, message, field=field, rid=rid)
