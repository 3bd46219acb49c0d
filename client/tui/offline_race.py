"""One offline race: the rules engine for the player, simulated rivals beside it.

``LocalRace`` keeps every seat's game and answers like a server would (snapshots,
progress, the end and its ranking) on the events queue of the one player it serves;
``client.tui.offline.LocalSession`` drives it.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from protocol import ranking
from protocol.messages import ErrorCode
from protocol.rules.engine import Game, MoveResult, deal
from protocol.rules.facts import game_def

from ..bots.strategies import GreedyStrategy
from .errors import ServerError
from .session import now_ms


@dataclass
class Seat:
    player: str
    name: str
    game: Game | None = None
    n: int = 0
    status: str = "waiting"
    ready: bool = False
    bot: bool = False
    at: int | None = None
    moves: list[tuple[str, int]] = field(default_factory=list)
    #: (time, cards home after the move) for every move, for the ranking's ``home_at_ms``
    home_log: list[tuple[int, int]] = field(default_factory=list)
    initial_home: int = 0  # Fours Up deals its 4s home
    end_at: int | None = None

    @property
    def home(self) -> int:
        return self.game.cards_home if self.game is not None else 0

    def dealt(self) -> Game:
        """The seat's game, once the race has started."""
        if self.game is None:
            raise ServerError(ErrorCode.RACE_NOT_RUNNING, "the race has not started")
        return self.game


@dataclass(frozen=True)
class Pace:
    """How fast offline races run: the countdown, and the simulated rivals' moves (one every
    ``rival_interval`` seconds; a rival finishes after ``rival_max_moves``)."""

    countdown_ms: int = 3000
    rival_interval: float = 0.5
    rival_max_moves: int = 10_000


class LocalRace:
    """One race, for ``me``: its events go on ``events``, as a server's to that player."""

    def __init__(
        self,
        me: str,
        events: asyncio.Queue[dict[str, Any]],
        pace: Pace,
        game_id: str,
        seats: int,
        time_limit_s: int,
        private: bool,
        host: str,
        seed: str | None,
    ):
        self.me = me
        self.events = events
        self.pace = pace
        #: ``me`` watches it (`spectate`): the delayed boards are sent, and every progress
        self.watched = False
        self.id = "local-" + secrets.token_hex(3)
        self.game_id = game_id
        self.seats_n = seats
        self.time_limit_s = time_limit_s
        self.private = private
        self.host = host
        self.seed = seed or secrets.token_hex(16)
        self.commitment = hashlib.sha256(self.seed.encode()).hexdigest()
        self.created = now_ms()
        self.status = "lobby"
        self.starts_at: int | None = None
        self.deadline: int | None = None
        self.ver = 1
        self.seats: list[Seat] = []
        self.ranking: list[dict[str, Any]] | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.total = game_def(game_id).total

    def snapshot(self) -> dict[str, Any]:
        return {
            "t": "race",
            "race": self.id,
            "ver": self.ver,
            "game": self.game_id,
            "status": self.status,
            "private": self.private,
            "seats": self.seats_n,
            "time_limit_s": self.time_limit_s,
            "host": self.host,
            "created": self.created,
            "starts_at": self.starts_at,
            "deadline": self.deadline,
            "commitment": self.commitment,
            "seed": self.seed if self.status == "finished" else None,
            "total": self.total,
            "players": [
                {
                    "player": s.player,
                    "name": s.name,
                    "ready": s.ready,
                    "n": s.n,
                    "home": s.home,
                    "status": s.status,
                    "at": s.at,
                }
                for s in self.seats
            ],
            "ranking": self.ranking,
        }

    def seat_of(self, player: str) -> Seat | None:
        return next((s for s in self.seats if s.player == player), None)

    def bump(self) -> int:
        self.ver += 1
        return self.ver

    def emit(self, msg: dict[str, Any]) -> None:
        self.events.put_nowait(msg)

    def begin_countdown(self) -> None:
        self.status = "countdown"
        starts_at = self.starts_at = now_ms() + self.pace.countdown_ms
        deadline = self.deadline = starts_at + self.time_limit_s * 1000
        self.bump()
        self.tasks.append(asyncio.ensure_future(self._run(starts_at, deadline)))

    async def _run(self, starts_at: int, deadline: int) -> None:
        await asyncio.sleep(max(0, starts_at - now_ms()) / 1000)
        self.status = "running"
        for s in self.seats:
            s.game = deal(self.game_id, self.seed)
            s.initial_home = s.game.cards_home
            s.status = "playing"
            s.at = self.starts_at
        self.emit(self.snapshot() | {"ver": self.bump()})
        me = self.seat_of(self.me)
        if me is not None:
            self.emit(
                {
                    "t": "start",
                    "race": self.id,
                    "ver": self.bump(),
                    "starts_at": self.starts_at,
                    "deadline": self.deadline,
                    "commitment": self.commitment,
                    "total": self.total,
                    "view": me.dealt().view_text(),
                    "n": 0,
                }
            )
        for s in self.seats:
            if s.bot:
                self.tasks.append(asyncio.ensure_future(self._bot(s)))
        await asyncio.sleep(max(0, deadline - now_ms()) / 1000)
        for s in self.seats:
            if s.status == "playing":
                s.status = "timeout"
                s.at = self.deadline
        self.end()

    async def _bot(self, s: Seat) -> None:
        # The server's greedy bot (docs/bots.md): it never returns to a position it has been
        # in, so it finishes when it has nothing new to try, not at the clock.
        strategy = GreedyStrategy(max_moves=self.pace.rival_max_moves)
        while s.status == "playing" and self.status == "running":
            await asyncio.sleep(self.pace.rival_interval)
            m = strategy.choose(s.dealt())
            if m is None:
                self.finish(s)
                return
            self.apply(s, m)

    def apply(self, s: Seat, move: str) -> MoveResult:
        result = s.dealt().apply(move)
        s.n += 1
        s.at = now_ms()
        s.moves.append((move, s.at))
        s.home_log.append((s.at, s.home))
        if result.won:
            s.status = "won"
            s.end_at = s.at
        self.progress(s)
        if result.won:
            self.maybe_end()
        return result

    def progress(self, s: Seat) -> None:
        if s.player == self.me and not self.watched:
            return  # progress goes to the *other* members
        self.emit(
            {
                "t": "progress",
                "race": self.id,
                "ver": self.bump(),
                "player": s.player,
                "n": s.n,
                "home": s.home,
                "total": self.total,
                "status": s.status,
                "at": s.at,
            }
        )

    def finish(self, s: Seat) -> None:
        if s.status == "playing":
            s.status = "finished"
            s.at = s.end_at = now_ms()
            self.progress(s)
            self.maybe_end()

    def maybe_end(self) -> None:
        if all(s.status in ("won", "finished", "timeout") for s in self.seats):
            self.end()

    def end(self) -> None:
        if self.status == "finished":
            return
        self.status = "finished"
        for t in self.tasks:
            if t is not asyncio.current_task():
                t.cancel()
        starts_at = self.starts_at if self.starts_at is not None else now_ms()
        rows = ranking.rank(
            [
                ranking.entry(
                    player=s.player,
                    name=s.name,
                    status=s.status,
                    home=s.home,
                    moves=s.n,
                    at=s.end_at,
                    starts_at=starts_at,
                    log=s.home_log,
                    initial_home=s.initial_home,
                )
                for s in self.seats
            ]
        )
        self.ranking = rows
        self.emit({"t": "end", "race": self.id, "ver": self.bump(), "seed": self.seed, "ranking": rows})

    def boards(self) -> dict[str, Any]:
        return {
            "t": "boards",
            "race": self.id,
            "at": now_ms(),
            "boards": [
                {"player": s.player, "n": s.n, "view": s.game.view_text()}
                for s in self.seats
                if s.game is not None
            ],
        }
