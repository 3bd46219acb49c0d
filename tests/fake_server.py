"""A tiny in-process protocol server, for testing the client library alone.

It speaks enough of docs/protocol.md (hello/token resume, create/join/ready,
start, move with duplicate and out-of-sync handling, progress, finish,
resync with missed events, ping) over real WebSockets, using the real rules
engine and codec, with hooks to misbehave: drop a connection after a move is
applied (before the ack), or withhold an event to make a version gap. It is
not the server: the integration tests against server/ live next to it.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any

import websockets
from waiting import DEADLINE
from websockets.asyncio.server import ServerConnection

from protocol import messages as m
from protocol import rules


@dataclass
class Seat:
    player: str
    name: str
    game: rules.Game | None = None
    n: int = 0
    last_move: str | None = None
    last_revealed: tuple[tuple[str, str], ...] = ()
    status: str = "waiting"
    ready: bool = False

    def dealt(self) -> rules.Game:
        """The seat's game (dealt when the race starts)."""
        assert self.game is not None, "the race has not started"
        return self.game


@dataclass
class FakeRace:
    race: str
    game: str
    seats: int
    seed: str
    ver: int = 0
    status: str = "lobby"
    players: dict[str, Seat] = field(default_factory=dict)
    events: list[Any] = field(default_factory=list)  # public events, by ver

    def snapshot(self) -> m.RaceSnapshot:
        return m.RaceSnapshot(
            race=self.race,
            ver=self.ver,
            game=self.game,
            status=self.status,
            private=False,
            seats=self.seats,
            time_limit_s=600,
            host="",
            created=0,
            starts_at=None,
            deadline=None,
            commitment=rules.seed_commitment(self.seed),
            seed=None,
            total=rules.GAMES[self.game].total,
            players=[
                m.PlayerInfo(
                    player=s.player,
                    name=s.name,
                    ready=s.ready,
                    n=s.n,
                    home=s.game.cards_home if s.game else 0,
                    status=s.status,
                    at=None,
                )
                for s in self.players.values()
            ],
            ranking=None,
        )


class FakeServer:
    def __init__(self) -> None:
        self.tokens: dict[str, tuple[str, str]] = {}
        self.races: dict[str, FakeRace] = {}
        self.conns: dict[str, set[ServerConnection]] = {}
        self.ids = itertools.count(1)
        self.frames_in: list[m.ClientMessage] = []
        # Hooks.
        self.drop_before_ack: int = 0  # drop the connection instead of the next k acks (move applied)
        self.withhold_next_progress: bool = False  # skip sending one progress event (a ver gap)
        # Hold the acks of this player's moves (applied, progress published) until the event is
        # set: a rival's progress then overtakes the ack, as on a real server.
        self.hold_acks_of: str | None = None
        self.acks_released = asyncio.Event()
        self.url = ""
        self._server: Any = None

    async def __aenter__(self) -> FakeServer:
        self._server = await websockets.serve(self.handle, "127.0.0.1", 0, compression=None)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()
        await self._server.wait_closed()

    async def kick_all(self) -> None:
        for conns in self.conns.values():
            for ws in list(conns):
                await ws.close(m.CloseCode.RESTART, "restart")

    # -- protocol ----------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        player = None
        try:
            async for frame in ws:
                assert isinstance(frame, bytes), "the clients under test send binary frames only"
                try:
                    msg = m.decode_client(frame)
                except m.ProtocolError as e:
                    await ws.send(m.encode(e.to_error()))
                    continue
                self.frames_in.append(msg)
                if player is None:
                    if not isinstance(msg, m.Hello):
                        await ws.send(
                            m.encode(m.Error(code="hello-first", message="hello first", rid=msg.rid))
                        )
                        continue
                    if msg.token is not None:
                        if msg.token not in self.tokens:
                            await ws.send(m.encode(m.Error(code="bad-token", message="?", rid=msg.rid)))
                            continue
                        player, name = self.tokens[msg.token]
                        token = msg.token
                    else:
                        player, name = f"p{next(self.ids)}", msg.name or "player"
                        token = secrets.token_hex(8)
                        self.tokens[token] = (player, name)
                    self.conns.setdefault(player, set()).add(ws)
                    races = [r.race for r in self.races.values() if player in r.players]
                    await ws.send(
                        m.encode(
                            m.Welcome(
                                v=1,
                                player=player,
                                name=name,
                                token=token,
                                races=races,
                                time=0,
                                limits=dict(m.DEFAULT_LIMITS),
                                rid=msg.rid,
                            )
                        )
                    )
                    continue
                await self.on_message(ws, player, msg)
        finally:
            if player is not None:
                self.conns[player].discard(ws)

    async def send_to(self, player: str, msg: m.ServerMsg) -> None:
        for ws in list(self.conns.get(player, ())):
            try:
                await ws.send(m.encode(msg))
            except websockets.ConnectionClosed:
                pass

    async def publish(self, r: FakeRace, ev: Any, *, skip: str | None = None) -> None:
        r.events.append(ev)
        for p in r.players:
            if p != skip:
                await self.send_to(p, ev)

    def bump(self, r: FakeRace) -> int:
        r.ver += 1
        return r.ver

    async def on_message(self, ws: ServerConnection, player: str, msg: m.ClientMessage) -> None:
        async def reply(out: m.ServerMsg) -> None:
            await ws.send(m.encode(msgspec_replace(out, rid=msg.rid)))

        async def error(code: str, **extra: Any) -> None:
            await reply(m.Error(code=code, message=code, **extra))

        if isinstance(msg, m.Ping):
            await reply(m.Pong(time=1_700_000_000_000))
        elif isinstance(msg, m.Create):
            r = FakeRace(
                race=f"r{next(self.ids)}",
                game=msg.game,
                seats=msg.seats or m.DEFAULT_SEATS,
                seed=rules.random_seed(),
            )
            self.races[r.race] = r
            r.players[player] = Seat(player=player, name=self.name_of(player))
            self.bump(r)
            r.events.append(r.snapshot())
            await reply(r.snapshot())
        elif isinstance(msg, (m.Join, m.Ready, m.Resync, m.Move, m.Finish)):
            found = self.races.get(msg.race)
            if found is None:
                await error("no-such-race")
                return
            r = found
            if isinstance(msg, m.Join):
                r.players.setdefault(player, Seat(player=player, name=self.name_of(player)))
                self.bump(r)
                await self.publish(r, r.snapshot(), skip=player)
                await reply(r.snapshot())
            elif isinstance(msg, m.Ready):
                r.players[player].ready = msg.ready is not False  # absent or nil: true
                r.players[player].status = "ready"
                self.bump(r)
                await self.publish(r, r.snapshot(), skip=player)
                await reply(r.snapshot())
                if len(r.players) == r.seats and all(s.ready for s in r.players.values()):
                    await self.start(r)
            elif isinstance(msg, m.Resync):
                seat = r.players.get(player)
                you = None
                if seat is not None and seat.game is not None:
                    you = m.You(
                        n=seat.n,
                        view=seat.game.view_text(),
                        legal=seat.game.legal_moves(),
                        home=seat.game.cards_home,
                        status=seat.status,
                    )
                events = None if msg.since is None else [e for e in r.events if e.ver > msg.since]
                await reply(m.State(race=r.snapshot(), you=you, events=events))
            elif isinstance(msg, m.Move):
                await self.move(ws, r, player, msg, reply, error)
            elif isinstance(msg, m.Finish):
                seat = r.players[player]
                seat.status = "finished"
                ver = self.bump(r)
                await self.publish(r, self.progress(r, seat, ver), skip=player)
                await reply(m.Ok(ver=ver))
        else:
            await error("internal", message="not in the fake")

    async def start(self, r: FakeRace) -> None:
        r.status = "running"
        ver = self.bump(r)
        r.events.append(r.snapshot())
        for seat in r.players.values():
            seat.game = rules.deal(r.game, r.seed)
            seat.status = "playing"
            await self.send_to(
                seat.player,
                m.Started(
                    race=r.race,
                    ver=ver,
                    starts_at=0,
                    deadline=600_000,
                    commitment=rules.seed_commitment(r.seed),
                    total=seat.game.total,
                    view=seat.game.view_text(),
                    n=0,
                ),
            )

    def progress(self, r: FakeRace, seat: Seat, ver: int) -> m.Progress:
        assert seat.game is not None
        return m.Progress(
            race=r.race,
            ver=ver,
            player=seat.player,
            n=seat.n,
            home=seat.game.cards_home,
            total=seat.game.total,
            status=seat.status,
            at=0,
        )

    async def move(
        self, ws: ServerConnection, r: FakeRace, player: str, msg: m.Move, reply: Any, error: Any
    ) -> None:
        seat = r.players.get(player)
        if seat is None or seat.game is None:
            await error("race-not-running")
            return
        g = seat.game
        if msg.n == seat.n - 1 and msg.move == seat.last_move:
            await reply(self.ack(r, seat, seat.last_revealed, msg, dup=True))
            return
        if msg.n != seat.n:
            await error("out-of-sync", n=seat.n)
            await ws.send(
                m.encode(
                    m.State(
                        race=r.snapshot(),
                        you=m.You(
                            n=seat.n,
                            view=g.view_text(),
                            legal=g.legal_moves(),
                            home=g.cards_home,
                            status=seat.status,
                        ),
                    )
                )
            )
            return
        try:
            res = g.apply(msg.move)
        except rules.IllegalMove as e:
            await error("illegal-move", reason=e.code)
            return
        seat.n += 1
        seat.last_move, seat.last_revealed = msg.move, res.revealed
        if res.won:
            seat.status = "won"
        ver = self.bump(r)
        ev = self.progress(r, seat, ver)
        if self.withhold_next_progress:
            self.withhold_next_progress = False
            r.events.append(ev)
        else:
            await self.publish(r, ev, skip=player)
        if self.drop_before_ack > 0:
            self.drop_before_ack -= 1
            await ws.close(m.CloseCode.RESTART, "dropped before the ack")
            return
        if self.hold_acks_of == player:
            await self.acks_released.wait()
        await reply(self.ack(r, seat, res.revealed, msg, dup=False, ver=ver))

    def ack(
        self, r: FakeRace, seat: Seat, revealed: Any, msg: m.Move, *, dup: bool, ver: int | None = None
    ) -> m.Ack:
        """`ver`: the version of the move's progress event (a duplicate: the race's current)."""
        g = seat.game
        assert g is not None
        return m.Ack(
            race=r.race,
            n=seat.n,
            ver=r.ver if ver is None else ver,
            move=seat.last_move or msg.move,
            revealed=list(revealed),
            home=g.cards_home,
            won=g.won,
            status=seat.status,
            at=0,
            dup=dup,
            view=g.view_text() if msg.view else None,
            legal=g.legal_moves() if msg.view else None,
        )

    def name_of(self, player: str) -> str:
        for p, name in self.tokens.values():
            if p == player:
                return name
        return player


def msgspec_replace(msg: Any, **changes: Any) -> Any:
    import msgspec

    return msgspec.structs.replace(msg, **changes)


async def wait_until(pred: Any, timeout: float = DEADLINE) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.01)
