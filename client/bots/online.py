"""Bots that play races through the protocol, with the client library.

Each bot is one connection (one player). It plays from its own board, the
view the library keeps up to date from the start message and the acks'
revealed cards, so it sees exactly what a human player would see.

The strategy's choice is CPU work (``search`` looks ahead for tens of
milliseconds a move): it runs in a worker thread (``asyncio.to_thread``) so
that the event loop keeps reading and answering for every bot of the process
(acks, pings, the other bots' moves) while one bot thinks. The clients
connect with ``reconnect=True``: a dropped connection is retried, the move in
flight is resent with the same move number, and the board is resynced, so the
bot's game goes on. Given several server URLs (processes sharing one Redis),
a bot whose process dies resumes on another one (the library's failover).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import client
from protocol import messages as m

from .strategies import Strategy


@dataclass
class BotResult:
    name: str
    race: str = ""
    won: bool = False
    home: int = 0
    total: int = 0
    moves: int = 0
    rank: int | None = None
    status: str = ""
    errors: list[str] = field(default_factory=list)


async def play_race(
    c: client.Client,
    race: str,
    strategy: Strategy,
    result: BotResult,
    delay_ms: float = 0,
    start_timeout: float | None = 120,
    started: bool = False,
) -> None:
    """Wait for the start of ``race`` (unless ``started``: it runs already and the
    board is synced), then play it until won or stuck."""
    if not started:
        await c.wait_for(m.Started, lambda ev: ev.race == race, timeout=start_timeout)
    board = c.board(race)
    strategy.new_game()
    result.race = race
    result.total = board.total
    lost = 0  # consecutive requests lost to a dropped connection
    while not board.won:
        if not board.has_view:  # a resumed race whose resync failed: fetch it again
            lost += 1
            if c.closed or lost > RECONNECT_TRIES:
                result.errors.append("no view of the board")
                break
            await _resynced(c, race)
            continue
        move = await asyncio.to_thread(strategy.choose, board.view)
        if move is None:
            try:
                await _finish(c, race)
            except client.ServerError as e:  # the race may have ended meanwhile
                result.errors.append(e.code)
            except (client.Disconnected, TimeoutError) as e:
                result.errors.append(f"finish: {type(e).__name__}")
            break
        try:
            await c.move(race, move)
        except (client.Disconnected, TimeoutError) as e:
            # The connection dropped for longer than a reply's timeout. While
            # the client is still reconnecting, wait for it: it resends the
            # move and resyncs the board, and the bot chooses again from there.
            lost += 1
            if c.closed or lost > RECONNECT_TRIES:
                result.errors.append(f"connection: {type(e).__name__}")
                break
            await _resynced(c, race)
            continue
        except client.IllegalMoveError as e:
            # Cannot happen while board and server agree; do not loop on it.
            result.errors.append(f"illegal {move}: {e.reason}")
            await _finish(c, race)
            break
        except client.ServerError as e:
            if e.code == "out-of-sync":
                continue  # the library has resynced the board; choose again
            if e.code == "rate-limited":
                # Faster than the server's message credits: wait as told and
                # send the same move again (nothing was applied).
                await asyncio.sleep((e.retry_ms or 100) / 1000)
                continue
            result.errors.append(e.code)
            break  # race-not-running (time limit), game-over, ...
        lost = 0
        result.moves += 1
        if delay_ms:
            await asyncio.sleep(delay_ms / 1000)
    result.home = board.home
    result.won = board.won
    result.status = board.status


async def run_bots(
    url: str | Sequence[str],
    game: str,
    strategies: list[Strategy],
    *,
    race: str | None = None,
    invite: str | None = None,
    quick: bool = False,
    seats: int | None = None,
    time_limit_s: int = 600,
    delay_ms: float = 0,
    name_prefix: str = "bot",
    on_race: Callable[[str], None] | None = None,
    on_race_game: Callable[[str, str], None] | None = None,
    on_queued: Callable[[], None] | None = None,
) -> list[BotResult]:
    """Seat one bot per strategy in one race and play it to the end.

    ``url``: one server URL, or several (failover). ``race``: join that race
    (all bots ready up; its game is the race's, whatever ``game`` says), with
    ``invite`` if it is private.
    ``quick``: quick-match ``game`` with ``seats`` seats (default: as many as
    bots). Otherwise the first bot creates a public race of ``game`` with one
    seat per bot and the others join it. ``on_race(race)`` and
    ``on_race_game(race, game)`` are called once per race, the latter with the
    game the server says the race is of; ``on_queued()`` once every bot waits in the
    quick-match queue (it may wait long). Returns one result
    per bot, with its final rank from the ``end`` event.
    """
    names = [f"{name_prefix}-{i + 1}" for i in range(len(strategies))]
    results = [BotResult(n) for n in names]
    async with _connected(url, names) as clients:
        if race is None and not quick:
            snap = await clients[0].create(game, seats=len(clients), time_limit_s=time_limit_s)
            race = snap.race
        if race is not None:
            joined = [await c.join(race, invite) for c in clients]
            _announce(race, joined[0].game, on_race, on_race_game)
            for c in clients:
                await c.ready(race)
            races = [race] * len(clients)
        else:
            for c in clients:
                await c.quick(game, seats=seats or max(2, len(clients)))
            if on_queued is not None:
                on_queued()
            snaps = [await c.wait_for(m.RaceSnapshot, _of_game(game), timeout=None) for c in clients]
            races = [s.race for s in snaps]
            for r in sorted(set(races)):
                _announce(r, game, on_race, on_race_game)
        await asyncio.gather(
            *(play_race(c, r, s, res, delay_ms) for c, r, s, res in zip(clients, races, strategies, results))
        )
        for c, r, res in zip(clients, races, results):
            end = await c.wait_for(m.End, _in_race(r), timeout=time_limit_s + 30)
            for row in end.ranking:
                if row.player == c.player:
                    res.rank = row.rank
                    res.status = row.status
    return results


RECONNECT_TRIES = 5


def _announce(
    race: str,
    game: str,
    on_race: Callable[[str], None] | None,
    on_race_game: Callable[[str, str], None] | None,
) -> None:
    if on_race is not None:
        on_race(race)
    if on_race_game is not None:
        on_race_game(race, game)


def _of_game(game: str) -> Callable[[Any], bool]:
    return lambda snap: snap.game == game


def _in_race(race: str) -> Callable[[Any], bool]:
    return lambda ev: ev.race == race


async def _finish(c: client.Client, race: str) -> None:
    """Declare the game finished, waiting out the server's rate limit."""
    while True:
        try:
            await c.finish(race)
            return
        except client.ServerError as e:
            if e.code != "rate-limited":
                raise
            await asyncio.sleep((e.retry_ms or 100) / 1000)


async def _resynced(c: client.Client, race: str) -> None:
    """After a lost request: wait until the client is connected again and the
    board matches the server's (a move may or may not have been applied)."""
    try:
        await c.resync(race)
    except (client.Disconnected, TimeoutError, client.ServerError):
        await asyncio.sleep(0.5)


class _connected:
    """Open one client per name; close them all on exit."""

    def __init__(self, url: str | Sequence[str], names: list[str], reconnect: bool = True) -> None:
        self.url = url
        self.names = names
        self.reconnect = reconnect
        self.clients: list[client.Client] = []

    async def __aenter__(self) -> list[client.Client]:
        for n in self.names:
            c = client.connect(self.url, name=n, reconnect=self.reconnect)
            await c.open()
            self.clients.append(c)
        return self.clients

    async def __aexit__(self, *exc: object) -> None:
        for c in self.clients:
            await c.close()
