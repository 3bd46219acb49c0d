"""A race-server bot of the load generator: plays random legal moves from its own view.

Bots speak the protocol with plain MessagePack maps over `WSClient` and are
driven by callbacks, one per inbound frame, without a task per message. Each
bot plays uniformly random legal moves computed from its own view
(docs/rules.md §7.3, the same view-only rebuild as client/bots): after an ack
the view is updated from `revealed`, the visible game is rebuilt only when a
card was revealed (otherwise the move is simply played on it), and
`legal_moves()` gives the choices. A bot whose game is won or without a legal
move declares `finish`; its group (`RaceGroup`, a `movegen.Group`) then starts a new race.

Latencies: move→ack at the mover; move→rival-progress at each rival (the
intended time of (race, player, n) is looked up in a table shared by the bots
of this process).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import msgspec

from client.bots.board import visible_game
from protocol import rules
from protocol.rules.cards import FACE_OF_CODE
from protocol.rules.engine import Game
from protocol.rules.games import DRAW

from .pacing import Mode, Recorder, Sender, now
from .wsclient import WSClient, open_ws


class _Generator(Protocol):
    @property
    def sent_log(self) -> dict[tuple[str, int], float] | None: ...


class RaceGroup(Protocol):
    """What a bot needs of its group (movegen.Group: its race's game and size, the generator's
    fan-out log, and to be told when the race ends)."""

    @property
    def game(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def gen(self) -> _Generator: ...
    def on_end(self, bot: Bot, msg: dict[str, Any]) -> None: ...


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder()
encode = _enc.encode
decode = _dec.decode


class Hot(msgspec.Struct, gc=False):
    """The fields a bot reads of the two frames of every move, `ack` and `progress`.

    Decoding into this struct skips the rest (`ver`, `home`, `at`, ...) and
    builds no dict: ~0.6 µs instead of ~0.95 µs a frame. Any other frame is
    decoded again as a plain map.
    """

    t: str
    race: str = ""
    player: str = ""
    n: int = 0
    move: str = ""
    revealed: list[tuple[str, str]] = []
    won: bool = False
    status: str = ""


_hot = msgspec.msgpack.Decoder(Hot)
_HotError = (msgspec.ValidationError, msgspec.DecodeError)

# Moves chosen from one legal-move list before it is recomputed (each checked
# legal on the current visible game first; a stale one triggers a recompute).
REFRESH = 4


class Bot(Sender):
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
        "rid",
        "futs",
        "events",
        "table",
        "done",
        "move_out",
        "game",
        "started",
        "resyncing",
        "fresh",
        "picked_full",
    )

    def __init__(
        self,
        group: RaceGroup,
        idx: int,
        rec: Recorder,
        mode: Mode,
        table: dict[tuple[str, str, int], list[float]],
        seed: int,
    ) -> None:
        super().__init__(rec, mode, seed)
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
        self.picked_full = False  # the last pick() computed legal_moves() in full
        self.move_out = ""
        self.rid = 0
        self.futs: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.table = table
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
        async with asyncio.timeout(30):
            welcome = await self.request({"t": "hello", "v": 1, "name": name})
        self.pid = welcome["player"]

    def on_close(self) -> None:
        for f in self.futs.values():
            if not f.done():
                f.set_exception(ConnectionError("closed"))
        self.futs.clear()
        self.stop_timer()

    # --- inbound

    def on_message(self, data: bytes) -> None:
        try:
            hot = _hot.decode(data)
        except _HotError:  # a frame with other types under these names: not ack/progress
            hot = None
        if hot is not None:
            if hot.t == "ack":
                self.on_ack(hot)
                return
            if hot.t == "progress":
                self.on_progress(hot)
                return
        msg = decode(data)
        t = msg["t"]
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

    def on_ack(self, msg: Hot) -> None:
        self.replied()
        rec = self.rec
        mv = msg.move
        self.n = msg.n
        revealed = msg.revealed
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
        if msg.won or msg.status not in ("", "playing"):
            self.game_over(declare=False)  # won: nothing to declare
            return
        self.next_after_ack()

    def on_progress(self, msg: Hot) -> None:
        key = (msg.race, msg.player, msg.n)
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
        self.stop_timer()
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
        self.picked_full = False
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
        self.picked_full = True
        if not legal:
            return None
        return legal[0] if len(legal) == 1 else legal[self.rng.randrange(len(legal))]

    def can_send(self) -> bool:
        return not self.done

    def held(self) -> bool:
        return self.resyncing

    def send_one(self, intended: float) -> None:
        """Send a random legal move (declare `finish` when there is none)."""
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
            # counted with the move it chose, inside the window: a share of the moves sent
            # (counted at every pick it reached 1.037 once, from picks outside the window and
            # the last pick that found no move)
            if self.picked_full:
                rec.full_legal += 1
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
        self.send_next()

    def kick(self) -> None:
        """Closed loop: start sending (if idle and in a race)."""
        if self.race:
            super().kick()
