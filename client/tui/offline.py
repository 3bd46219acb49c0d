"""Offline races for the terminal apps: the rules engine against simulated rivals.

``LocalSession`` answers the same requests as a server connection
(client/tui/session.py's ``Session``), so ``solrace play --offline`` and the
apps' tests run without a server.
"""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.messages import ErrorCode
from protocol.rules.facts import UnknownGame, game_def

from .errors import ServerError
from .offline_race import LocalRace, Pace, Seat
from .session import now_ms


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
        self.pace = Pace(countdown_ms, rival_interval, rival_max_moves)
        self.seed = seed
        self.time_limit_s = time_limit_s
        self.races: dict[str, LocalRace] = {}
        self._spectate_task: asyncio.Task[None] | None = None
        self.sent: list[dict[str, Any]] = []  # every request, for tests
        self.watch_demo = watch_demo
        #: its spectators get the boards as they are (`spectate` below): no delay
        self.spectator_delay_ms = 0
        self._demo_started = False

    def server_now(self) -> int:
        return now_ms()

    async def close(self) -> None:
        for r in self.races.values():
            for t in r.tasks:
                t.cancel()
        if self._spectate_task:
            self._spectate_task.cancel()

    def seat(self, race: LocalRace) -> Seat | None:
        return race.seat_of(self.player)

    def _race(self, rid: str) -> LocalRace:
        race = self.races.get(rid)
        if race is None:
            raise ServerError(ErrorCode.NO_SUCH_RACE, "no such race")
        return race

    def _new_race(self, game: str, seats: int, time_limit_s: int, private: bool, host: str) -> LocalRace:
        try:
            game_def(game)
        except UnknownGame as e:
            raise ServerError(ErrorCode.UNKNOWN_GAME, str(e)) from None
        race = LocalRace(
            self.player, self.events, self.pace, game, seats, time_limit_s, private, host, self.seed
        )
        self.races[race.id] = race
        return race

    def _add_bots(self, race: LocalRace, count: int, ready: bool) -> None:
        for i in range(count):
            race.seats.append(
                Seat(
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
            raise ServerError(ErrorCode.UNKNOWN_TYPE, t)
        reply: dict[str, Any] = handler(**f)
        return reply

    def _do_ping(self) -> dict[str, Any]:
        return {"t": "pong", "time": now_ms()}

    def _do_quick(self, game: str, seats: int = 2) -> dict[str, Any]:
        race = self._new_race(game, seats, self.time_limit_s, False, "")
        race.seats.append(Seat(self.player, self.name, status="ready", ready=True))
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
        race.seats.append(Seat(self.player, self.name))
        self._add_bots(race, min(self.rivals, seats - 1), True)
        return race.snapshot()

    def _do_join(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        if self.seat(r) is None:
            if len(r.seats) >= r.seats_n:
                raise ServerError(ErrorCode.RACE_FULL, "every seat is taken")
            if r.status != "lobby":
                raise ServerError(ErrorCode.RACE_STARTED, "the race has begun")
            r.seats.append(Seat(self.player, self.name))
            r.bump()
        return r.snapshot()

    def _do_ready(self, race: str, ready: bool = True) -> dict[str, Any]:
        r = self._race(race)
        s = self.seat(r)
        if s is None:
            raise ServerError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
        if r.status != "lobby":
            raise ServerError(ErrorCode.RACE_STARTED, "the race has already started")
        s.ready = ready
        s.status = "ready" if ready else "waiting"
        r.bump()
        if len(r.seats) == r.seats_n and all(x.ready for x in r.seats):
            r.begin_countdown()
        return r.snapshot()

    def _do_start(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        if r.host != self.player:
            raise ServerError(ErrorCode.NOT_HOST, "only the host may start")
        if not all(x.ready for x in r.seats):
            raise ServerError(ErrorCode.NOT_READY, "everyone must be ready")
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
            raise ServerError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
        if r.status != "running":
            raise ServerError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
        if s.status != "playing":
            raise ServerError(ErrorCode.GAME_OVER, "your game is over")
        if n != s.n:
            asyncio.get_running_loop().call_soon(self.events.put_nowait, self._do_resync(race))
            raise ServerError(ErrorCode.OUT_OF_SYNC, "move count mismatch", n=s.n)
        try:
            result = r.apply(s, move)
        except IllegalMove as e:
            raise ServerError(ErrorCode.ILLEGAL_MOVE, str(e), reason=getattr(e, "code", "illegal")) from None
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
            raise ServerError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
        if r.status != "running":
            raise ServerError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
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

    def _do_replay(self, race: str, invite: str | None = None) -> dict[str, Any]:
        """A finished race's seed and every player's moves, as the server's `replay` has them."""
        r = self._race(race)
        if r.status != "finished":
            raise ServerError(ErrorCode.RACE_NOT_OVER, "the race is not over")
        return {
            "t": "replay",
            "race": r.id,
            "game": r.game_id,
            "seed": r.seed,
            "starts_at": r.starts_at,
            "ranking": r.ranking,
            "players": [{"player": s.player, "name": s.name, "moves": list(s.moves)} for s in r.seats],
        }

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
                    "seats": r.seats_n,
                    "total": r.total,
                    "starts_at": r.starts_at,
                    "deadline": r.deadline,
                    "spectators": int(r.watched),
                }
            )
        return {"t": "race_list", "races": out}

    def _do_spectate(self, race: str) -> dict[str, Any]:
        r = self._race(race)
        if r.private:
            raise ServerError(ErrorCode.PRIVATE_RACE, "this race is private")
        if self.seat(r) is not None:
            raise ServerError(ErrorCode.IS_PLAYER, "you play in this race")
        r.watched = True

        async def flush() -> None:
            while r.watched and r.status != "finished":
                await asyncio.sleep(0.2)
                if r.status == "running":
                    self.events.put_nowait(r.boards())

        self._spectate_task = asyncio.ensure_future(flush())
        return r.snapshot()

    def _do_unspectate(self, race: str) -> dict[str, Any]:
        r = self.races.get(race)
        if r is not None:
            r.watched = False
        return {"t": "ok"}
