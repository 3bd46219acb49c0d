"""The load generator: bots over lean WebSocket connections, open or closed loop.

Bots (`Bot`) speak the protocol with plain MessagePack maps over `WSClient`
and are driven by callbacks, one per inbound frame, without a task per
message. Each race group (`Group`) creates a race, the others join, all
ready; each bot then plays uniformly random legal moves computed from its
own view (docs/rules.md §7.3, the same view-only rebuild as client/bots): after
an ack the view is updated from `revealed`, the visible game is rebuilt only
when a card was revealed (otherwise the move is simply played on it), and
`legal_moves()` gives the choices. A bot whose game is won or without a
legal move declares `finish`; when the race ends, the group creates a new
one.

Two ways to send:

* **closed loop** (capacity): a bot sends its next move as soon as the ack
  of the previous one arrives; with enough bots the server is saturated and
  accepted moves/s is its capacity.
* **open loop** (latency): every bot has a fixed schedule (`rate` moves/s,
  random phase). A move's latency is measured from its *intended* send time,
  so a slow server cannot hide its latency by slowing the generator down
  (coordinated omission): when the ack of the previous move has not arrived
  when the next is due, the due time is kept and the move goes out the moment
  the ack arrives, its latency still counted from the due time.

Latencies: move→ack at the mover; move→rival-progress at each rival (the
intended time of (race, player, n) is looked up in a table shared by the
bots of this process). `EchoConn` does the same against the echo baseline.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array
from collections import deque
from typing import Any

import msgspec

from client.bots.board import visible_game
from protocol import rules
from protocol.rules.cards import FACE_OF_CODE
from protocol.rules.engine import Game
from protocol.rules.games import DRAW

from .wsclient import WSClient, frame, open_ws

_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder()
encode = _enc.encode
decode = _dec.decode
now = time.perf_counter


class Recorder:
    """Latency samples (seconds) and counters of one measurement window."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.on = False
        self.t0 = self.t1 = 0.0
        self.ack = array("d")
        self.rival = array("d")
        self.done = 0  # ops completed inside the window
        self.sent = 0
        self.errors: dict[str, int] = {}
        self.late_sends = 0  # sends that went out after their due time (server behind schedule)
        self.draws = 0  # of `sent`: draws (the rest are card moves); the move mix
        self.full_legal = 0  # full legal_moves() computations (the rest: a cached candidate, checked)

    def start(self) -> None:
        self.reset()
        self.on = True
        self.t0 = now()

    def stop(self) -> None:
        self.on = False
        self.t1 = now()

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


# Moves chosen from one legal-move list before it is recomputed (each checked
# legal on the current visible game first; a stale one triggers a recompute).
REFRESH = 4


class Mode:
    """How bots send right now: idle, closed loop, or open loop at `per_bot` moves/s."""

    def __init__(self) -> None:
        self.kind = "idle"
        self.per_bot = 0.0


# --------------------------------------------------------------------- race server bots


class Bot:
    __slots__ = (
        "ws",
        "group",
        "idx",
        "pid",
        "race",
        "n",
        "view",
        "vg",
        "legal",
        "rng",
        "inflight",
        "owed",
        "rid",
        "futs",
        "events",
        "rec",
        "mode",
        "table",
        "timer",
        "due",
        "done",
        "move_out",
        "game",
        "started",
        "resyncing",
        "fresh",
    )

    def __init__(
        self,
        group: Group,
        idx: int,
        rec: Recorder,
        mode: Mode,
        table: dict[tuple[str, str, int], list[float]],
        seed: int,
    ) -> None:
        self.ws: WSClient | None = None
        self.group = group
        self.idx = idx
        self.pid = ""
        self.race = ""
        self.n = 0
        self.view: rules.View | None = None
        self.vg: Game | None = None
        self.legal: list[str] = []  # candidates: the legal moves of a recent position
        self.fresh = 0  # moves chosen from `legal` since it was computed
        self.rng = random.Random(seed)
        self.inflight: float | None = None  # intended time of the move awaiting its ack
        self.move_out = ""
        self.owed: deque[float] = deque()  # due times that passed while a move was in flight
        self.rid = 0
        self.futs: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.rec = rec
        self.mode = mode
        self.table = table
        self.timer: asyncio.TimerHandle | None = None
        self.due = 0.0
        self.done = False  # own game over (won / finished)
        self.game = group.game
        self.started: asyncio.Future[None] | None = None
        self.resyncing = False

    # --- requests (setup path: futures are fine there)

    def request(self, msg: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        self.rid += 1
        msg["rid"] = self.rid
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.futs[self.rid] = fut
        self.send(msg)
        return fut

    def send(self, msg: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None:
            raise ConnectionError("not connected")
        ws.send(encode(msg))

    async def connect(self, host: str, port: int, name: str) -> None:
        self.ws = await open_ws(host, port, "/ws", on_message=self.on_message, on_close=self.on_close)
        welcome = await asyncio.wait_for(self.request({"t": "hello", "v": 1, "name": name}), 30)
        self.pid = welcome["player"]

    def on_close(self) -> None:
        for f in self.futs.values():
            if not f.done():
                f.set_exception(ConnectionError("closed"))
        self.futs.clear()
        if self.timer is not None:
            self.timer.cancel()

    # --- inbound

    def on_message(self, data: bytes) -> None:
        msg = decode(data)
        t = msg["t"]
        if t == "ack":
            self.on_ack(msg)
        elif t == "progress":
            self.on_progress(msg)
        else:
            rid = msg.get("rid")
            if rid is not None and rid in self.futs:
                fut = self.futs.pop(rid)
                if not fut.done():
                    if t == "error":
                        fut.set_exception(RuntimeError(f"{msg.get('code')}: {msg.get('message')}"))
                    else:
                        fut.set_result(msg)
                if t == "error" and msg.get("code") in (
                    "out-of-sync",
                    "illegal-move",
                    "game-over",
                    "race-not-running",
                    "rate-limited",
                    "internal",
                ):
                    self.on_move_error(msg)
                return
            if t == "error":
                self.on_move_error(msg)
            elif t == "start":
                self.on_start(msg)
            elif t == "end":
                self.group.on_end(self, msg)
            elif t == "state":
                self.on_state(msg)

    def on_start(self, msg: dict[str, Any]) -> None:
        self.race = msg["race"]
        self.n = msg.get("n", 0)
        self.set_view(rules.view_from_text(msg["view"]))
        self.done = False
        if self.started is not None and not self.started.done():
            self.started.set_result(None)

    def set_view(self, view: rules.View) -> None:
        self.view = view
        self.vg = visible_game(view)
        self.legal = self.vg.legal_moves()
        self.fresh = 0

    def on_ack(self, msg: dict[str, Any]) -> None:
        t = now()
        rec = self.rec
        intended = self.inflight
        self.inflight = None
        if rec.on and intended is not None:
            rec.ack.append(t - intended)
            rec.done += 1
        mv = msg["move"]
        self.n = msg["n"]
        revealed = msg.get("revealed") or ()
        # The visible game follows the move in place; what the move turned up
        # (filler in the visible game) is overwritten with the revealed cards,
        # so it stays a function of what this player has seen (docs/rules.md §7.3).
        vg = self.vg
        if vg is None:  # an ack before the start: out of step with the server
            rec.error("client-view-mismatch")
            self.resync()
            return
        try:
            got = vg._play(mv)
            if got or revealed:
                if not got or len(got) != len(revealed):
                    raise ValueError("revealed")
                names = vg.game.pile_names
                piles = vg.piles
                for (i, _f), (pile, card) in zip(got, revealed):
                    if names[i] != pile:
                        raise ValueError("revealed")
                    piles[i][-1] = FACE_OF_CODE[card]
        except (ValueError, KeyError, rules.IllegalMove, rules.PositionError):
            rec.error("client-view-mismatch")
            self.resync()
            return
        if msg.get("won") or msg.get("status") not in (None, "playing"):
            self.game_over(declare=False)  # won: nothing to declare
            return
        self.next_after_ack()

    def on_progress(self, msg: dict[str, Any]) -> None:
        key = (msg["race"], msg["player"], msg["n"])
        entry = self.table.get(key)
        if entry is None:
            return
        if self.rec.on:
            self.rec.rival.append(now() - entry[0])
        entry[1] -= 1
        if entry[1] <= 0:
            del self.table[key]

    def on_move_error(self, msg: dict[str, Any]) -> None:
        code = msg.get("code", "?")
        self.rec.error(code)
        self.inflight = None
        if code in ("game-over", "race-not-running"):
            self.game_over()
        elif code == "rate-limited":
            self.next_after_ack()
        else:
            self.resync()

    def resync(self) -> None:
        if self.resyncing or not self.race:
            return
        self.resyncing = True
        self.rid += 1
        self.send({"t": "resync", "rid": self.rid, "race": self.race})

    def on_state(self, msg: dict[str, Any]) -> None:
        self.resyncing = False
        you = msg.get("you")
        if not you:
            return
        self.n = you["n"]
        self.set_view(rules.view_from_text(you["view"]))
        if you.get("status") != "playing":
            self.game_over()
        else:
            self.next_after_ack()

    def game_over(self, declare: bool = True) -> None:
        if self.done:
            return
        self.done = True
        self.owed.clear()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not declare:
            return
        self.rid += 1
        self.send({"t": "finish", "rid": self.rid, "race": self.race})

    # --- sending

    def pick(self) -> str | None:
        """A uniformly random move of a recent legal-move list, if it is still
        legal here (checked on the visible game, a few µs); else, and every
        REFRESH moves, the full `legal_moves()` of the view. None: no legal move."""
        legal = self.legal
        vg = self.vg
        if vg is None:
            return None
        if legal and self.fresh < REFRESH:
            mv = legal[self.rng.randrange(len(legal))]
            parsed = vg.game.parse_cache.get(mv)
            if parsed == DRAW:
                ok = bool(vg.piles[vg.game.stock_idx])
            else:
                ok = parsed is not None and vg._refusal(*parsed) is None
            if ok:
                self.fresh += 1
                return mv
        legal = self.legal = vg.legal_moves()
        self.fresh = 0
        self.rec.full_legal += 1
        if not legal:
            return None
        return legal[0] if len(legal) == 1 else legal[self.rng.randrange(len(legal))]

    def send_move(self, intended: float) -> None:
        mv = self.pick()
        if mv is None:
            self.game_over()
            return
        self.inflight = intended
        self.move_out = mv
        self.rid += 1
        rec = self.rec
        if rec.on:
            rec.sent += 1
            if mv == DRAW:
                rec.draws += 1
        log = self.group.gen.sent_log
        if log is not None:
            log[(self.pid, self.n + 1)] = intended
        rivals = self.group.players - 1
        if rivals and rec.on:
            self.table[(self.race, self.pid, self.n + 1)] = [intended, rivals]
        self.send({"t": "move", "rid": self.rid, "race": self.race, "n": self.n, "move": mv})

    def next_after_ack(self) -> None:
        if self.done or self.ws is None or self.ws.closed:
            return
        kind = self.mode.kind
        if kind == "closed":
            self.send_move(now())
        elif kind == "open" and self.owed:
            intended = self.owed.popleft()
            if self.rec.on:
                self.rec.late_sends += 1
            self.send_move(intended)

    def arm(self, start: float) -> None:
        """Open loop: first due time at `start` + a random phase, then every 1/rate."""
        interval = 1.0 / self.mode.per_bot
        self.due = start + self.rng.random() * interval
        self.owed.clear()
        self._schedule()

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(max(0.0, self.due - now()), self.tick)

    def tick(self) -> None:
        self.timer = None
        if self.mode.kind != "open" or self.done:
            return
        due = self.due
        if self.inflight is None and not self.resyncing and not self.owed:
            self.send_move(due)
        else:
            self.owed.append(due)
        self.due = due + 1.0 / self.mode.per_bot
        self._schedule()

    def kick(self) -> None:
        """Closed loop: start sending (if idle)."""
        if self.inflight is None and not self.done and self.race:
            self.send_move(now())


class Group:
    """One race of `players` bots: create, join, ready, play; a new race when it ends."""

    def __init__(self, gen: MoveGen, idx: int, players: int, game: str) -> None:
        self.gen = gen
        self.idx = idx
        self.players = players
        self.game = game
        self.bots: list[Bot] = []
        self.race = ""
        self.running = False
        self.races_played = 0

    async def setup_race(self) -> None:
        host = self.bots[0]
        snap = await asyncio.wait_for(
            host.request({"t": "create", "game": self.game, "seats": self.players, "time_limit_s": 7200}), 30
        )
        rid = snap["race"]
        self.race = rid
        loop = asyncio.get_running_loop()
        started: list[asyncio.Future[None]] = []
        for b in self.bots:
            b.started = loop.create_future()
            started.append(b.started)
            b.race = ""
        for b in self.bots[1:]:
            await asyncio.wait_for(b.request({"t": "join", "race": rid}), 30)
        await asyncio.gather(
            *(asyncio.wait_for(b.request({"t": "ready", "race": rid}), 30) for b in self.bots)
        )
        await asyncio.wait_for(asyncio.gather(*started), 60)
        self.running = True
        self.races_played += 1

    def on_end(self, bot: Bot, msg: dict[str, Any]) -> None:
        if bot is not self.bots[0] or msg.get("race") != self.race:
            return
        self.running = False
        for b in self.bots:
            b.race = ""
            b.done = True
            if b.timer is not None:
                b.timer.cancel()
                b.timer = None
        self.gen.spawn(self.restart())

    async def restart(self) -> None:
        try:
            await self.setup_race()
        except Exception as exc:  # counted, the group stays down
            self.gen.rec.error(f"restart:{type(exc).__name__}")
            return
        mode = self.gen.mode
        for b in self.bots:
            if mode.kind == "closed":
                b.kick()
            elif mode.kind == "open":
                b.arm(now())


class MoveGen:
    def __init__(self, host: str, port: int, races: int, players: int, game: str, seed: int = 1) -> None:
        self.host = host
        self.port = port
        self.rec = Recorder()
        self.mode = Mode()
        self.table: dict[tuple[str, str, int], list[float]] = {}
        self.sent_log: dict[tuple[str, int], float] | None = None  # fan-out mode: (player, n) -> intended
        self.groups = [Group(self, i, players, game) for i in range(races)]
        self.tasks: set[asyncio.Task[None]] = set()
        rng = random.Random(seed)
        for g in self.groups:
            g.bots = [Bot(g, j, self.rec, self.mode, self.table, rng.getrandbits(32)) for j in range(players)]

    @property
    def bots(self) -> list[Bot]:
        return [b for g in self.groups for b in g.bots]

    def spawn(self, coro: Any) -> None:
        t = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)

    async def setup(self, concurrency: int = 64) -> None:
        sem = asyncio.Semaphore(concurrency)

        async def one(g: Group) -> None:
            async with sem:
                for b in g.bots:
                    await b.connect(self.host, self.port, f"bench-{g.idx}-{b.idx}")
                await g.setup_race()

        await asyncio.gather(*(one(g) for g in self.groups))

    def set_closed(self) -> None:
        self.mode.kind = "closed"
        for b in self.bots:
            b.kick()

    def set_open(self, total_rate: float) -> None:
        self.mode.kind = "open"
        self.mode.per_bot = total_rate / max(1, len(self.bots))
        t = now()
        for b in self.bots:
            if not b.done:
                b.arm(t)

    async def quiesce(self, timeout: float = 10.0) -> None:
        self.mode.kind = "idle"
        for b in self.bots:
            b.owed.clear()
            if b.timer is not None:
                b.timer.cancel()
                b.timer = None
        end = now() + timeout
        while now() < end and any(b.inflight is not None for b in self.bots):
            await asyncio.sleep(0.02)
        self.table.clear()

    def sample_frame(self) -> bytes:
        """A move frame as the bots send it (the echo baseline's message)."""
        b = self.groups[0].bots[0]
        return encode(
            {"t": "move", "rid": 123456, "race": b.race or "r" + "0" * 15, "n": 123, "move": "t2:3>t5"}
        )

    def close(self) -> None:
        for b in self.bots:
            if b.ws is not None:
                b.ws.close()


# --------------------------------------------------------------------- echo baseline


class EchoConn:
    __slots__ = ("ws", "rec", "mode", "inflight", "owed", "payload", "frame", "timer", "due", "rng")

    def __init__(self, rec: Recorder, mode: Mode, payload: bytes, seed: int) -> None:
        self.ws: WSClient | None = None
        self.rec = rec
        self.mode = mode
        self.inflight: float | None = None
        self.owed: deque[float] = deque()
        self.payload = payload
        self.frame = frame(payload)
        self.timer: asyncio.TimerHandle | None = None
        self.due = 0.0
        self.rng = random.Random(seed)

    def on_message(self, data: bytes) -> None:
        t = now()
        intended = self.inflight
        self.inflight = None
        rec = self.rec
        if rec.on and intended is not None:
            rec.ack.append(t - intended)
            rec.done += 1
        kind = self.mode.kind
        if kind == "closed":
            self.send(now())
        elif kind == "open" and self.owed:
            if rec.on:
                rec.late_sends += 1
            self.send(self.owed.popleft())

    def send(self, intended: float) -> None:
        self.inflight = intended
        if self.rec.on:
            self.rec.sent += 1
        ws = self.ws
        if ws is None:
            raise ConnectionError("not connected")
        ws.send_frame(self.frame)

    def arm(self, start: float) -> None:
        interval = 1.0 / self.mode.per_bot
        self.due = start + self.rng.random() * interval
        self.owed.clear()
        self.timer = asyncio.get_running_loop().call_later(max(0.0, self.due - now()), self.tick)

    def tick(self) -> None:
        self.timer = None
        if self.mode.kind != "open":
            return
        if self.inflight is None and not self.owed:
            self.send(self.due)
        else:
            self.owed.append(self.due)
        self.due += 1.0 / self.mode.per_bot
        self.timer = asyncio.get_running_loop().call_later(max(0.0, self.due - now()), self.tick)


class EchoGen:
    def __init__(self, host: str, port: int, conns: int, payload: bytes, seed: int = 2) -> None:
        self.host = host
        self.port = port
        self.rec = Recorder()
        self.mode = Mode()
        rng = random.Random(seed)
        self.conns = [EchoConn(self.rec, self.mode, payload, rng.getrandbits(32)) for _ in range(conns)]

    async def setup(self, concurrency: int = 64) -> None:
        sem = asyncio.Semaphore(concurrency)

        async def one(c: EchoConn) -> None:
            async with sem:
                c.ws = await open_ws(self.host, self.port, "/", on_message=c.on_message)

        await asyncio.gather(*(one(c) for c in self.conns))

    def set_closed(self) -> None:
        self.mode.kind = "closed"
        t = now()
        for c in self.conns:
            if c.inflight is None:
                c.send(t)

    def set_open(self, total_rate: float) -> None:
        self.mode.kind = "open"
        self.mode.per_bot = total_rate / max(1, len(self.conns))
        t = now()
        for c in self.conns:
            c.arm(t)

    async def quiesce(self, timeout: float = 10.0) -> None:
        self.mode.kind = "idle"
        for c in self.conns:
            c.owed.clear()
            if c.timer is not None:
                c.timer.cancel()
                c.timer = None
        end = now() + timeout
        while now() < end and any(c.inflight is not None for c in self.conns):
            await asyncio.sleep(0.02)

    def close(self) -> None:
        for c in self.conns:
            if c.ws is not None:
                c.ws.close()
