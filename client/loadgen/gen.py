"""The load generators in one import: the bots' (movegen, bot), the echo baseline's
(echogen) and what they share (pacing: open and closed loop, the recorder), with the
MessagePack codec of the bots' frames."""

from __future__ import annotations

from .bot import Bot, decode, encode
from .echogen import EchoConn, EchoGen
from .movegen import Group, MoveGen
from .pacing import Generator, Mode, Recorder, Sender, now

__all__ = [
    "Bot",
    "EchoConn",
    "EchoGen",
    "Generator",
    "Group",
    "Mode",
    "MoveGen",
    "Recorder",
    "Sender",
    "decode",
    "encode",
    "now",
]
