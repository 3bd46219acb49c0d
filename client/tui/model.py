"""What a terminal client knows about one race, updated from wire messages.

Plain data and plain functions: :class:`RaceModel` takes the protocol's
messages as dicts (docs/protocol.md: ``race``, ``start``, ``ack``,
``progress``, ``end``, ``state``, ``boards``, ``rating``) and keeps the race
snapshot, every player's progress, the player's own board and legal moves, the
clock, the final ranking, and a rated race's rating change. The textual apps render it; tests drive it directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.clock import own_deadline
from protocol.rules.games import GAMES

from .board import Board, parse_view
from .text import commitment_ok


@dataclass
class PlayerRow:
    player: str
    name: str
    home: int = 0
    n: int = 0
    status: str = "waiting"
    ready: bool = False
    berserk: bool = False  # an arena player who took half the clock
    account: bool = False  # seated as an account (the snapshot's `account`)

    def who(self) -> dict[str, Any]:
        """The row as a player map, for the name marks (text.py `marked_name`)."""
        return {"player": self.player, "name": self.name, "account": self.account}


@dataclass
class RaceModel:
    me: str | None = None
    race_id: str | None = None
    game: str | None = None
    status: str = "none"  # none, queued, lobby, countdown, running, finished
    ver: int = 0
    host: str = ""
    seats: int = 0
    private: bool = False
    #: a rated race (docs/protocol.md §9), or the rated quick-match queue
    rated: bool = False
    #: a daily challenge attempt (the snapshot's `daily`, docs/protocol.md §3)
    daily: bool = False
    #: the arena that paired this race (the snapshot's `arena`, docs/protocol.md §5a)
    arena: str | None = None
    #: a rated race's rating change for the player (their map of the `rating` event:
    #: rank, weight, before, after), once the ratings are updated
    rating: dict[str, Any] | None = None
    invite: str | None = None  # a private race's secret (handed to its players)
    time_limit_s: int = 0
    starts_at: int | None = None
    deadline: int | None = None
    commitment: str | None = None
    seed: str | None = None
    total: int = 0
    players: dict[str, PlayerRow] = field(default_factory=dict)
    ranking: list[dict[str, Any]] | None = None
    # the player's own game
    n: int = 0
    view: str | None = None
    legal: list[str] = field(default_factory=list)
    my_status: str | None = None
    # spectators: latest delayed boards
    boards: dict[str, tuple[int, str]] = field(default_factory=dict)
    boards_at: int | None = None
    #: set when a race event's `ver` jumped: the client should `resync`
    gap: bool = False
    #: the version of the race snapshot last applied (a reply's, an event's or a state's)
    snapshot_ver: int = 0

    # -- derived ----------------------------------------------------------

    @property
    def board(self) -> Board | None:
        return parse_view(self.view) if self.view else None

    @property
    def seeded(self) -> bool:
        return self.me is not None and self.me in self.players

    @property
    def commitment_verified(self) -> bool | None:
        if not self.seed:
            return None
        return commitment_ok(self.seed, self.commitment)

    def countdown_ms(self, now: int) -> int | None:
        if self.status == "countdown" and self.starts_at is not None:
            return max(0, self.starts_at - now)
        return None

    @property
    def my_deadline(self) -> int | None:
        """When the player's own clock runs out: the race's deadline, earlier for a berserk."""
        me = self.players.get(self.me) if self.me is not None else None
        berserk = me is not None and me.berserk
        return own_deadline(self.deadline, self.starts_at, self.time_limit_s, berserk)

    def remaining_ms(self, now: int, own: bool = False) -> int | None:
        """Time left on the race's clock, or on the player's own when `own` (a berserk's half)."""
        deadline = self.my_deadline if own else self.deadline
        if deadline is None or self.status in ("finished", "none", "lobby"):
            return None
        return max(0, deadline - now)

    def ordered(self) -> list[PlayerRow]:
        return list(self.players.values())

    # -- updates ----------------------------------------------------------

    def _ver(self, msg: dict[str, Any]) -> None:
        v = msg.get("ver")
        if v is None:
            return
        if self.ver and v > self.ver + 1:
            self.gap = True
        self.ver = max(self.ver, v)

    def apply(self, msg: dict[str, Any]) -> None:
        """Apply one server message (reply or event) about this race."""
        t = msg.get("t")
        handler = getattr(self, f"_on_{t}", None)
        if handler is None:
            return
        rid = msg.get("race")
        if t == "state":
            rid = (msg.get("race") or {}).get("race")
        if self.race_id is not None and rid is not None and rid != self.race_id:
            return
        handler(msg)

    def _on_queued(self, msg: dict[str, Any]) -> None:
        self.status = "queued"
        self.game = msg.get("game", self.game)
        self.seats = msg.get("seats", self.seats)
        self.rated = bool(msg.get("rated"))

    def _on_race(self, snap: dict[str, Any], from_state: bool = False) -> None:
        ver = snap.get("ver") or 0
        if not from_state:
            if self.race_id == snap.get("race") and ver < self.snapshot_ver:
                # Older than the snapshot on hand: a reply that a newer event overtook on the
                # server, or the reverse. It would show seats as they were (a rival's `ready`
                # undone). Not against `ver`: a move's ack may come before an older event.
                self.invite = snap.get("invite") or self.invite
                return
            self._ver(snap)
        else:
            self.ver = max(self.ver, ver)
        self.snapshot_ver = ver
        self.race_id = snap.get("race", self.race_id)
        self.game = snap.get("game", self.game)
        self.status = snap.get("status", self.status)
        self.host = snap.get("host", self.host)
        self.seats = snap.get("seats", self.seats)
        self.private = snap.get("private", self.private)
        self.rated = bool(snap.get("rated", self.rated))
        self.daily = bool(snap.get("daily", self.daily))
        self.arena = snap.get("arena") or self.arena
        self.invite = snap.get("invite") or self.invite
        self.time_limit_s = snap.get("time_limit_s", self.time_limit_s)
        self.starts_at = snap.get("starts_at", self.starts_at)
        self.deadline = snap.get("deadline", self.deadline)
        self.commitment = snap.get("commitment") or self.commitment
        self.seed = snap.get("seed") or self.seed
        self.total = snap.get("total") or self.total or (GAMES[self.game].total if self.game in GAMES else 0)
        if snap.get("ranking"):
            self.ranking = snap["ranking"]
        if "players" in snap:
            rows = {}
            for p in snap["players"]:
                pid = p.get("player")
                rows[pid] = PlayerRow(
                    pid,
                    p.get("name") or pid,
                    p.get("home", 0),
                    p.get("n", 0),
                    p.get("status", "waiting"),
                    bool(p.get("ready")),
                    bool(p.get("berserk")),
                    bool(p.get("account")),
                )
            self.players = rows

    def _on_start(self, msg: dict[str, Any]) -> None:
        self._ver(msg)
        self.status = "running"
        self.starts_at = msg.get("starts_at", self.starts_at)
        self.deadline = msg.get("deadline", self.deadline)
        self.commitment = msg.get("commitment") or self.commitment
        self.total = msg.get("total") or self.total
        self.view = msg.get("view", self.view)
        self.n = msg.get("n", 0)
        self.my_status = "playing"
        for row in self.players.values():
            if row.status in ("waiting", "ready"):
                row.status = "playing"

    def _on_ack(self, msg: dict[str, Any]) -> None:
        # the player's own move is a race event too: note its version (no gap
        # check: a rival's progress may be handled before this reply)
        self.ver = max(self.ver, msg.get("ver") or 0)
        self.n = msg.get("n", self.n)
        if msg.get("view"):
            self.view = msg["view"]
        if msg.get("legal") is not None:
            self.legal = list(msg["legal"])
        self.my_status = msg.get("status", self.my_status)
        if self.me in self.players:
            row = self.players[self.me]
            row.n = self.n
            row.home = msg.get("home", row.home)
            row.status = self.my_status or row.status

    def declared_finished(self) -> None:
        """The player's own `finish` was accepted: the server sends its progress
        event only to the others, so the player's own row changes here."""
        self.my_status = "finished"
        if self.me in self.players:
            self.players[self.me].status = "finished"

    def _on_progress(self, msg: dict[str, Any]) -> None:
        self._ver(msg)
        if (msg.get("ver") or 0) <= self.snapshot_ver:
            # Already in the snapshot on hand: a repeat after a resync, whose event feed ran
            # behind Redis (docs/protocol.md §1). It would put a rival's row back.
            return
        pid = str(msg["player"])
        row = self.players.get(pid)
        if row is None:
            row = self.players[pid] = PlayerRow(pid, pid)
        row.n = msg.get("n", row.n)
        row.home = msg.get("home", row.home)
        row.status = msg.get("status", row.status)
        if msg.get("total"):
            self.total = msg["total"]

    def _on_end(self, msg: dict[str, Any]) -> None:
        self._ver(msg)
        self.status = "finished"
        self.seed = msg.get("seed") or self.seed
        self.ranking = msg.get("ranking") or self.ranking
        for r in self.ranking or []:
            row = self.players.get(str(r.get("player")))
            if row is not None:
                row.home = r.get("home", row.home)
                row.status = r.get("status", row.status)
                row.n = r.get("moves", row.n)
            if r.get("player") == self.me and r.get("status"):
                self.my_status = r["status"]  # a game the clock ended says so, not "playing"

    def _on_rating(self, msg: dict[str, Any]) -> None:
        """A rated race's ratings were updated: keep the player's own change."""
        self.rated = True
        for p in msg.get("players") or []:
            if p.get("player") == self.me:
                self.rating = p

    def _on_state(self, msg: dict[str, Any]) -> None:
        snap = msg.get("race") or {}
        self._on_race(snap, from_state=True)
        self.gap = False
        you = msg.get("you")
        if you:
            self.n = you.get("n", self.n)
            self.view = you.get("view") or self.view
            self.legal = list(you.get("legal") or [])
            self.my_status = you.get("status", self.my_status)
            if self.me in self.players:
                self.players[self.me].home = you.get("home", self.players[self.me].home)
        for ev in msg.get("events") or []:
            if ev.get("ver", 0) > snap.get("ver", 0):
                self.apply(ev)

    def _on_boards(self, msg: dict[str, Any]) -> None:
        self.boards_at = msg.get("at", self.boards_at)
        for b in msg.get("boards") or []:
            self.boards[b.get("player")] = (b.get("n", 0), b.get("view", ""))
