"""Storage: everything that talks to Redis, and nothing else does.

``keys``            the key layout (one hash tag per race)
``scripts``         the Lua scripts (``*.lua`` here), called by EVALSHA
``records``         a race record as stored, and decoded from the LOAD script
``positions``       the compact stored position of a player's game
``moves``           the typed move pipe: one hand-packed EVALSHA per move, typed replies
``store``           ``Store``: the connections, and every read and write through its parts:
``race_records``    races: load, compare-and-set commit, public index, timers
``player_games``    players' games in a race: the move cache's loader, logs, positions, events
``players``         players across races: names, seats, their channel, quick-match
``recent``          each player's recent races: a capped list, written at each race's end
``parts``           what those parts share (the client, the settings, the clock)
``resp``            a minimal pipelined RESP client (the move pipe, pub/sub)
``cluster``         Redis Cluster routing of the move pipe
``embedded_redis``  a private redis-server when no Redis URL is given, supervised
``health``          can Redis take writes (`/healthz`); one log line per outage
"""

from __future__ import annotations

from ..core.moves import Applied, Duplicate, Failed, MoveReply, Refused
from .health import OUTAGE, is_outage
from .keys import (
    PUBLIC,
    TIMERS,
    log_key,
    new_race_id,
    player_channel,
    player_key,
    profile_key,
    race_channel,
    race_key,
    stream_key,
    valid_race_id,
)
from .moves import MovePipe
from .positions import (
    PositionCache,
    decode_position,
    encode_position,
    position_text,
    replay,
    revealed_text,
)
from .scripts import MOVE
from .store import Conflict, PlayerGame, PlayerLoad, Store

__all__ = [
    "MOVE",
    "OUTAGE",
    "PUBLIC",
    "TIMERS",
    "Applied",
    "Conflict",
    "Duplicate",
    "Failed",
    "MovePipe",
    "MoveReply",
    "PlayerGame",
    "PlayerLoad",
    "PositionCache",
    "Refused",
    "Store",
    "decode_position",
    "encode_position",
    "log_key",
    "new_race_id",
    "player_channel",
    "player_key",
    "position_text",
    "profile_key",
    "race_channel",
    "race_key",
    "replay",
    "revealed_text",
    "stream_key",
    "valid_race_id",
    "is_outage",
]
