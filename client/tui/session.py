"""The connection the terminal apps talk through, and an offline stand-in.

The apps need very little from a connection: ``request(t, **fields)`` sends a
request and returns the reply as a dict (docs/protocol.md), raising
:class:`ServerError` for an ``error`` reply; unsolicited events arrive on the
``events`` queue as dicts; ``server_now()`` is the server clock in ms.

* :class:`LocalSession` plays races offline with the rules engine against
  simulated rivals (``solrace play --offline``); tests use it to drive the UI
  without a server.
* ``client.tui.net`` adapts the asyncio client library to this interface.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol import ranking
from protocol.rules.engine import Game, MoveResult, deal
from protocol.rules.facts import UnknownGame, game_def


class ServerError(Exception):
    """An ``error`` reply: ``code`` (stable), ``message`` and extra fields."""

    def __init__(self, code: str, message: str = "", **extra: Any):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.extra = extra

    def describe(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.extra.items() if k not in ("t", "rid"))
        return " ".join(x for x in (self.code, extra, self.message and f"— {self.message}") if x)


class Session(Protocol):
    player: str
    name: str
    events: asyncio.Queue[dict[str, Any]]

    def server_now(self) -> int: ...

    async def request(self, t: str, **fields: Any) -> dict[str, Any]: ...

    async def close(self) -> None: ...


def now_ms() -> int:
    return int(time.time() * 1000)


# ---------------------------------------------------------------------------
# Offline: the rules engine and simulated rivals


def _greedy(game: Game, rng: random.Random) -> str | None:
    legal = game.legal_moves()
    if not legal:
        return None
    home = [m for m in legal if ">f" in m and not m.startswith("f")]
    if home:
        return rng.choice(home)
    if "draw" in legal and rng.random() < 0.7:
        return "draw"
    useful = [m for m in legal if not m.startswith("f")]
    return rng.choice(useful or legal)


@dataclass
class _Seat:
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
            raise ServerError("race-not-running", "the race has not started")
        return self.game


class LocalRace:
    def __init__(
        self,
        owner: LocalSession,
        game_id: str,
        seats: int,
        time_limit_s: int,
        private: bool,
        host: str,
        seed: str | None,
    ):
        self.owner = owner
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
        self.seats: list[_Seat] = []
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

    def bump(self) -> int:
        self.ver += 1
        return self.ver

    def emit(self, msg: dict[str, Any]) -> None:
        self.owner.events.put_nowait(msg)

    def begin_countdown(self) -> None:
        self.status = "countdown"
        starts_at = self.starts_at = now_ms() + self.owner.countdown_ms
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
        me = self.owner.seat(self)
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

    async def _bot(self, s: _Seat) -> None:
        rng = random.Random(s.player)
        while s.status == "playing" and self.status == "running":
            await asyncio.sleep(self.owner.rival_interval)
            m = _greedy(s.dealt(), rng)
            if m is None or s.n >= self.owner.rival_max_moves:
                self.finish(s)
                return
            self.apply(s, m)

    def apply(self, s: _Seat, move: str) -> MoveResult:
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

    def progress(self, s: _Seat) -> None:
        if s is self.owner.seat(self) and not self.owner.spectating(self):
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

    def finish(self, s: _Seat) -> None:
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


class LocalSession:
    """An offline server in-process: one race at a time, simulated rivals.

    ``rivals`` bots join every race this player creates or quick-matches; they
    play a greedy strategy, one move every ``rival_interval`` seconds.
    ``watch_demo`` starts a public all-bot race that ``races``/``spectate``
    can show (for ``solrace watch --offline``).
    """

    def __init__(
        self,
        name: str = "you",
        rivals: int = 1,
        countdown_ms: int = 3000,
        rival_interval: float = 0.5,
        rival_max_moves: int = 10_000,
        seed: str | None = None,
        watch_demo: bool = False,
        time_limit_s: int = 600,
    ):
        self.player = "p-local"
        self.name = name
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.rivals = rivals
        self.countdown_ms = countdown_ms
        self.rival_interval = rival_interval
        self.rival_max_moves = rival_max_moves
        self.seed = seed
        self.time_limit_s = time_limit_s
        self.races: dict[str, LocalRace] = {}
        self._watching: set[str] = set()
        self._spectate_task: asyncio.Task[None] | None = None
        self.sent: list[dict[str, Any]] = []  # every request, for tests
        self.watch_demo = watch_demo
        self._demo_started = False

    def server_now(self) -> int:
        return now_ms()

    async def close(self) -> None:
        for r in self.races.values():
            for t in r.tasks:
                t.cancel()
        if self._spectate_task:
            self._spectate_task.cancel()

    def seat(self, race: LocalRace) -> _Seat | None:
        return next((s for s in race.seats if s.player == self.player), None)

    def spectating(self, race: LocalRace) -> bool:
        return race.id in self._watching

    def _race(self, rid: str) -> LocalRace:
        race = self.races.get(rid)
        if race is None:
            raise ServerError("no-such-race", f"no race {rid!r}")
        return race

    def _new_race(self, game: str, seats: int, time_limit_s: int, private: bool, host: str) -> LocalRace:
        try:
            game_def(game)
        except UnknownGame as e:
            raise ServerError("unknown-game", str(e)) from None
        race = LocalRace(self, game, seats, time_limit_s, private, host, self.seed)
        self.races[race.id] = race
        return race

    def _add_bots(self, race: LocalRace, count: int, ready: bool) -> None:
        for i in range(count):
            race.seats.append(
                _Seat(
                    f"p-bot{i + 1}",
                    f"bot-{i + 1}",
                    bot=True,
                    ready=ready,
                    status="ready" if ready else "waiting",
                )
            )

    async def request(self, t: str, **f: Any) -> dict[str, Any]:
        self.sent.append({"t": t, **f})
        await asyncio.sleep(0)
        handler = getattr(self, f"_do_{t}", None)
        if handler is None:
            raise ServerError("unknown-type", t)
        reply: dict[str, Any] = handler(**f)
        return reply

    def _do_ping(self) -> dict[str, Any]:
        return {"t": "pong", "time": now_ms()}

    def _do_quick(self, game: str, seats: int = 2) -> dict[str, Any]:
        race = self._new_race(game, seats, self.time_limit_s, False, "")
        race.seats.append(_Seat(self.player, self.name, status="ready", ready=True))
        self._add_bots(race, seats - 1, True)

        def seat_them() -> None:
            race.begin_countdown()
            self.events.put_nowait(race.snapshot())

        asyncio.get_running_loop().call_later(0.05, seat_them)
        return {"t": "queued", "game": game, "seats": seats}

    def _do_unqueue(self, game: str) -> dict[str, Any]:
        return {"t": "ok"}

    def _do_create(
        self, game: str, seats: int = 2, time_limit_s: int = 600, private: bool = False
    ) -> dict[str, Any]:
        race = self._new_race(game, seats, time_limit_s, private, self.player)
        race.seats.append(_Seat(self.player, self.name))
        self._add_bots(race, min(self.rivals, seats - 1), True)
        return race.snapshot()

    def _do_join(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        if self.seat(r) is None:
            if len(r.seats) >= r.seats_n:
                raise ServerError("race-full", "every seat is taken")
            if r.status != "lobby":
                raise ServerError("race-started", "the race has begun")
            r.seats.append(_Seat(self.player, self.name))
            r.bump()
        return r.snapshot()

    def _do_ready(self, race: str, ready: bool = True) -> dict[str, Any]:
        r = self._race(race)
        s = self.seat(r)
        if s is None:
            raise ServerError("not-in-race")
        if r.status != "lobby":
            raise ServerError("race-started")
        s.ready = ready
        s.status = "ready" if ready else "waiting"
        r.bump()
        if len(r.seats) == r.seats_n and all(x.ready for x in r.seats):
            r.begin_countdown()
        return r.snapshot()

    def _do_start(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        if r.host != self.player:
            raise ServerError("not-host", "only the host may start")
        if not all(x.ready for x in r.seats):
            raise ServerError("not-ready", "everyone must be ready")
        r.begin_countdown()
        return r.snapshot()

    def _do_leave(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        r.seats = [s for s in r.seats if s.player != self.player]
        r.bump()
        return r.snapshot()

    def _do_move(self, race: str, n: int, move: str, view: bool = False) -> dict[str, Any]:
        from protocol.rules.errors import IllegalMove

        r = self._race(race)
        s = self.seat(r)
        if s is None:
            raise ServerError("not-in-race")
        if r.status != "running":
            raise ServerError("race-not-running", "the race is not running")
        if s.status != "playing":
            raise ServerError("game-over", "your game is over")
        if n != s.n:
            asyncio.get_running_loop().call_soon(self.events.put_nowait, self._do_resync(race))
            raise ServerError("out-of-sync", "move count mismatch", n=s.n)
        try:
            result = r.apply(s, move)
        except IllegalMove as e:
            raise ServerError("illegal-move", str(e), reason=getattr(e, "code", "illegal")) from None
        ack = {
            "t": "ack",
            "race": race,
            "n": s.n,
            "move": move,
            "revealed": [list(x) for x in result.revealed],
            "home": s.home,
            "won": result.won,
            "status": s.status,
            "at": s.at,
        }
        if view:
            ack["view"] = s.dealt().view_text()
            ack["legal"] = s.dealt().legal_moves()
        return ack

    def _do_finish(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        s = self.seat(r)
        if s is None:
            raise ServerError("not-in-race")
        if r.status != "running":
            raise ServerError("race-not-running")
        r.finish(s)
        return {"t": "ok"}

    def _do_resync(self, race: str, since: int | None = None) -> dict[str, Any]:
        r = self._race(race)
        s = self.seat(r)
        out: dict[str, Any] = {"t": "state", "race": r.snapshot(), "events": None}
        if s is not None and s.game is not None:
            out["you"] = {
                "n": s.n,
                "view": s.game.view_text(),
                "legal": s.game.legal_moves(),
                "home": s.home,
                "status": s.status,
            }
        return out

    def _do_races(self, game: str | None = None) -> dict[str, Any]:
        if self.watch_demo and not self._demo_started:
            self._demo_started = True
            for g in ("racing-aces", "fours-up"):
                race = self._new_race(g, 2, self.time_limit_s, False, "")
                self._add_bots(race, 2, True)
                race.begin_countdown()
        out = []
        for r in sorted(self.races.values(), key=lambda r: -r.created):
            if r.private or r.status == "finished" or (game and r.game_id != game):
                continue
            out.append(
                {
                    "race": r.id,
                    "game": r.game_id,
                    "status": r.status,
                    "players": [{"name": s.name, "home": s.home, "status": s.status} for s in r.seats],
                    "total": r.total,
                    "starts_at": r.starts_at,
                    "deadline": r.deadline,
                    "spectators": int(r.id in self._watching),
                }
            )
        return {"t": "race_list", "races": out}

    def _do_spectate(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        if r.private:
            raise ServerError("private-race")
        if self.seat(r) is not None:
            raise ServerError("is-player")
        self._watching.add(race)

        async def flush() -> None:
            while race in self._watching and r.status != "finished":
                await asyncio.sleep(0.2)
                if r.status == "running":
                    self.events.put_nowait(r.boards())

        self._spectate_task = asyncio.ensure_future(flush())
        return r.snapshot()

    def _do_unspectate(self, race: str) -> dict[str, Any]:
        self._watching.discard(race)
        return {"t": "ok"}
