"""Server messages about one race: its snapshot, start, moves (`ack`, `progress`), end,
`state` for a resync, the spectators' `boards`, its `replay`, and the solver's hints and
post-race analysis."""

from __future__ import annotations

from typing import TypeAlias

from .server_base import Nested, ResultRow, ServerMsg

# --- nested (untagged) structures of race messages ----------------------------------


class PlayerInfo(Nested):
    """A seated player in a race snapshot."""

    player: str
    name: str
    ready: bool
    n: int
    home: int
    status: str  # PlayerStatus
    at: int | None  # time of the last status change; nil before the start
    berserk: bool = False  # an arena player on half the clock (docs/protocol.md §5a)
    account: bool = False  # seated as an account (docs/protocol.md §3); absent: a guest or a bot


class RankEntry(ResultRow):
    rank: int  # 1-based
    player: str
    name: str
    status: str
    won: bool
    home: int
    moves: int
    time_ms: int | None  # start → win/finish; nil for a timeout
    home_at_ms: int | None  # start → the moment the final `home` was reached
    last_move_ms: int | None = None  # start → the player's last move; nil with none (shown, not ranked)
    account: bool = False  # the player raced as an account (false: a guest or a bot)


class You(Nested):
    """A seated player's own state inside `state`."""

    n: int
    view: str
    legal: list[str]
    home: int
    status: str


class BoardView(Nested):
    player: str
    n: int
    view: str


class ReplayPlayer(Nested, omit_defaults=False):
    """Every field is sent, defaults included: `ended_ms` is always present (for a finished
    race it is never nil); its default only lets messages of servers before it decode as nil."""

    player: str
    name: str
    moves: list[tuple[str, int]]  # [move, at]
    account: bool = False  # as in PlayerInfo
    # start → the end of the player's game: the win, the declaration, or their clock running
    # out (the race's deadline, or a berserk player's own), which a timeout's RankEntry lacks
    ended_ms: int | None = None


# --- the race, from its snapshot to its replay ---------------------------------------


class RaceSnapshot(ServerMsg, tag="race"):
    race: str
    ver: int
    game: str
    status: str  # RaceStatus
    private: bool
    seats: int
    time_limit_s: int
    host: str  # "" for quick-match races
    created: int
    starts_at: int | None
    deadline: int | None
    commitment: str
    seed: str | None  # only once finished
    total: int
    players: list[PlayerInfo]
    ranking: list[RankEntry] | None
    invite: str | None = None  # a private race's secret: only in direct replies to its players
    certified: bool | None = None  # the deal was proved winnable (its proof is published at the end)
    rated: bool = False  # a rated race (docs/protocol.md §9); absent: casual
    daily: bool = False  # a daily challenge attempt (§5); absent: not one
    arena: str | None = None  # the arena that paired this race (§8); absent: none


class Started(ServerMsg, tag="start"):
    """The start event, to each player: their own view of the deal."""

    race: str
    ver: int
    starts_at: int
    deadline: int
    commitment: str
    total: int
    view: str
    # 0, but for a connection seated after the start (its moves so far); required, so that
    # raw clients see it on the wire
    n: int


class Ack(ServerMsg, tag="ack", gc=False):
    race: str
    n: int  # the new move count
    ver: int  # race version of the progress event this move produced (dup: current)
    move: str
    revealed: list[tuple[str, str]]  # [pile, card] that became visible
    home: int
    won: bool
    status: str
    at: int
    dup: bool = False  # a retried duplicate, acknowledged again, not re-applied
    view: str | None = None  # only if the move asked for it
    legal: list[str] | None = None  # only if the move asked for it


class Progress(ServerMsg, tag="progress", gc=False):
    race: str
    ver: int
    player: str
    n: int
    home: int
    total: int
    status: str
    at: int


class End(ServerMsg, tag="end"):
    race: str
    ver: int
    seed: str | None  # nil for a daily attempt's race (the daily reveals it after the close)
    ranking: list[RankEntry]
    proof: list[str] | None = None  # a certified deal: the solver's winning line
    par: int | None = None  # its length in moves


RaceEvent: TypeAlias = RaceSnapshot | Progress | End


class State(ServerMsg, tag="state"):
    """Reply to `resync` (and follow-up of `out-of-sync`).

    `race` is a full snapshot (it carries its own `t: "race"`); `events` are
    the public race events after `since`, oldest first, or nil if too old.
    """

    race: RaceSnapshot
    you: You | None = None
    events: list[RaceEvent] | None = None


class ReplayData(ServerMsg, tag="replay"):
    race: str
    game: str
    rules_version: int
    deal_version: int
    seed: str
    commitment: str  # sha256(seed), as the race published it before its start
    ranking: list[RankEntry]
    players: list[ReplayPlayer]
    proof: list[str] | None = None  # a certified deal: the solver's winning line
    par: int | None = None  # its length in moves
    # The race's start (its countdown's end), which `ended_ms` and the ranking's figures count
    # from: without it a checker could only infer it, and a shift of every `at` went unseen.
    # Optional only for replies of servers before it.
    starts_at: int | None = None


class Boards(ServerMsg, tag="boards"):
    race: str
    at: int
    boards: list[BoardView]


# --- the solver: hints and post-race analysis (docs/protocol.md §3) ----------------


class HintData(ServerMsg, tag="hint"):
    race: str
    n: int  # the move count the hint is for
    move: str | None  # nil: no move helps (the player is stuck)


class PlayerAnalysis(Nested):
    player: str
    name: str
    verdict: str  # won, never-winnable, lost-at, still-winnable, unknown
    text: str  # one sentence, e.g. "won until move 37, t2>f5; a winning line from there: ..."
    last_winnable: int | None  # moves after which the game was still proved winnable
    first_lost: int | None  # moves after which it was proved lost
    losing_move: str | None  # the move number last_winnable + 1, that lost it
    line: list[str]  # a winning line from the position after last_winnable moves


class AnalysisData(ServerMsg, tag="analysis"):
    race: str
    players: list[PlayerAnalysis]
