"""The Lua scripts of races (this folder's ``*.lua``), called by EVALSHA.

``move``    one accepted move, a declared finish or a duplicate's re-ack (the hot path)
``commit``  compare-and-set of a race record, publishing its events
``load``    a whole race (the race hash and every seat's game) in one call
``quick``   the quick-match queue: queue a player, take out a full group
``positions`` the spectator boards: every player's count and position, then the time
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

_HERE = Path(__file__).parent


class Script:
    """A Lua script called by EVALSHA, reloaded on NOSCRIPT (e.g. after a Redis restart)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.source = (_HERE / f"{name}.lua").read_text()
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()

    async def __call__(self, r: aioredis.Redis, keys: list[str], args: list[Any]) -> Any:
        try:
            return await r.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await r.eval(self.source, len(keys), *keys, *args)


MOVE = Script("move")
COMMIT = Script("commit")
LOAD = Script("load")
QUICK = Script("quick")
POSITIONS = Script("positions")
