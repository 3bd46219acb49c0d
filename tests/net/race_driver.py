"""The client side of the network tests: two players race through one server.

Run as a script (inside the client's network namespace):

    python race_driver.py --url ws://ADDR:PORT/ws --game racing-aces --strategy greedy

Two `client.connect` players create and join a two-seat race, ready up and
each play it with a bot strategy (real legal moves chosen from the player's
own board) until the game is won or the strategy declares it finished. Every
move's send → ack time is measured around `Client.move`. When the race is
over, the `replay` is fetched. One JSON document goes to stdout:

    {"race", "game", "players": [{"player", "name", "acks": [[n, move, ms, dup]],
     "won", "finished", "errors", "rate_limited"}], "replay": {player: [move, ...]},
     "ranking": [[player, rank, status]], "disconnects": int,
     "server_move_ms": float | None, "seconds": float}

`server_move_ms` is the server's own mean time per move (frame received to
ack written) from its `/metrics`: what the ack time adds to the round trip
inside the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import client
from client.bots.strategies import make
from client.library import ConnectionLost
from protocol.messages import End, Started
from protocol.messages.constants import ErrorCode

T = TypeVar("T")


async def patiently(request: Callable[[], Awaitable[T]]) -> T:
    """A request, sent again after the wait the server asks for while it is rate-limited."""
    while True:
        try:
            return await request()
        except client.ServerError as exc:
            if exc.code != ErrorCode.RATE_LIMITED:
                raise
            await asyncio.sleep((exc.retry_ms or 100) / 1000)


async def play(c: client.Client, race: str, strategy_name: str) -> dict[str, Any]:
    """Play this player's game to its end; every ack logged with its round trip."""
    await c.wait_for(Started, lambda ev: ev.race == race, timeout=30)
    board = c.board(race)
    strategy = make(strategy_name)
    strategy.new_game()
    acks: list[list[Any]] = []
    errors: list[str] = []
    rate_limited = 0
    finished = False
    while not board.won:
        move = await asyncio.to_thread(strategy.choose, board.view)
        if move is None:
            break
        sent = time.perf_counter()
        try:
            ack = await c.move(race, move)
        except client.ServerError as exc:
            if exc.code == ErrorCode.RATE_LIMITED:
                # Nothing was applied: wait as told and send the same move again.
                rate_limited += 1
                await asyncio.sleep((exc.retry_ms or 100) / 1000)
                continue
            # Any other refusal is a finding: the board and the server must agree.
            errors.append(f"{move}: {exc.code} {exc.message}")
            break
        acks.append([ack.n, ack.move, (time.perf_counter() - sent) * 1000, ack.dup])
    if not board.won:
        # Declared finished (or stopped by an error): either way the race can end.
        await patiently(lambda: c.finish(race))
        finished = True
    return {
        "player": c.player,
        "name": c.name,
        "acks": acks,
        "won": board.won,
        "finished": finished,
        "errors": errors,
        "rate_limited": rate_limited,
    }


def server_move_ms(ws_url: str) -> float | None:
    """The server's mean time from a move frame received to its ack written, in ms,
    from `/metrics` (None if the server does not publish it)."""
    parts = urllib.parse.urlsplit(ws_url)
    with urllib.request.urlopen(f"http://{parts.netloc}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    values = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in ("solrace_move_latency_seconds_sum", "solrace_move_latency_seconds_count"):
            values[name] = float(value)
    count = values.get("solrace_move_latency_seconds_count")
    if not count:
        return None
    return values["solrace_move_latency_seconds_sum"] / count * 1000


async def race(url: str, game: str, strategy: str) -> dict[str, Any]:
    began = time.perf_counter()
    async with (
        client.connect(url, name="near", reconnect=True) as a,
        client.connect(url, name="far", reconnect=True) as b,
    ):
        snap = await a.create(game, seats=2)
        await b.join(snap.race)
        await a.ready(snap.race)
        await b.ready(snap.race)
        players = await asyncio.gather(play(a, snap.race, strategy), play(b, snap.race, strategy))
        end = await a.wait_for(End, lambda ev: ev.race == snap.race, timeout=60)
        replay = await patiently(lambda: a.replay(snap.race))
        # A dropped connection would be retried silently by the library: count them.
        disconnects = sum(1 for c in (a, b) for ev in c.pending_events() if isinstance(ev, ConnectionLost))
    return {
        "race": snap.race,
        "game": game,
        "players": players,
        "replay": {p.player: [mv for mv, _at in p.moves] for p in replay.players},
        "ranking": [[r.player, r.rank, r.status] for r in end.ranking],
        "disconnects": disconnects,
        "server_move_ms": await asyncio.to_thread(server_move_ms, url),
        "seconds": time.perf_counter() - began,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", required=True)
    parser.add_argument("--game", default="racing-aces")
    parser.add_argument("--strategy", default="greedy")
    args = parser.parse_args(argv)
    result = asyncio.run(race(args.url, args.game, args.strategy))
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
