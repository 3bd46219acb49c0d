"""The Lua scripts of races (this folder's ``*.lua``), called by EVALSHA.

``move``    one accepted move, a declared finish or a duplicate's re-ack (the hot path)
``log_ttl`` a move log created by a player's first move gets the race's TTL (moves.py)
``commit``  compare-and-set of a race record, publishing its events
``load``    a whole race (the race hash and every seat's game) in one call; asked to, gives up
            a race not stored (its void mark, which makes ``commit`` refuse to create it)
``quick``   the quick-match queue: queue a player (held by its connection), take out a full
            group; a holder lets go, an entry leaves
``spectator_logs`` the spectator boards: every player's count, status and the moves of
            their log after those the caller has, then the time
``recent``  one finished race into a player's capped list of recent races (recent.py)
``reschedule`` a race's next timer after a tick that found nothing due, never later than one
            set in the future meanwhile (race_records.py)
``spectators`` a race's spectator count, changed only while the race exists
``seats``   a player's seats: reserve one (count and add in one step, MAX_RACES_PER_PLAYER),
            settle or give back reservations, prune the seats of gone races (players.py)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
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


async def pipelined(r: aioredis.Redis, script: Script, build: Callable[[Any], None]) -> list[Any]:
    """The replies (errors as exceptions) of one pipeline that `build` fills with its EVALSHAs
    of `script` and other commands; sent once more, after loading the script, when Redis had
    lost it (a restart)."""
    for _attempt in range(2):
        pipe = r.pipeline(transaction=False)
        build(pipe)
        replies: list[Any] = await pipe.execute(raise_on_error=False)
        if not any(isinstance(reply, NoScriptError) for reply in replies):
            break
        await r.script_load(script.source)
    return replies


MOVE = Script("move")
LOG_TTL = Script("log_ttl")
COMMIT = Script("commit")
LOAD = Script("load")
QUICK = Script("quick")
SPECTATOR_LOGS = Script("spectator_logs")
RECENT = Script("recent")
SEATS = Script("seats")
RESCHEDULE = Script("reschedule")
SPECTATORS = Script("spectators")
