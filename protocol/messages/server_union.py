"""`ServerMessage`, the union of every message the server sends (the decoders' type), and
`SERVER_TYPES`, its members. A new server message gets its line here."""

from __future__ import annotations

from typing import TypeAlias, get_args

from .server_accounts import Account, ProfileData, RatingBoardData, RatingChange, RecentRaces
from .server_base import ServerMsg
from .server_daily_arena import (
    ArenaData,
    ArenaListData,
    ArenaStandingsData,
    ArenaUpdate,
    DailyInfo,
    DailyReplayData,
    HistoryData,
    LeaderboardData,
    LeaderboardUpdate,
)
from .server_lobby import Error, Ok, Pong, Queued, RaceList, RematchOffer, Welcome
from .server_race import (
    Ack,
    AnalysisData,
    Boards,
    End,
    HintData,
    Progress,
    RaceSnapshot,
    ReplayData,
    Started,
    State,
)

ServerMessage: TypeAlias = (
    Welcome
    | Pong
    | Ok
    | Error
    | RaceSnapshot
    | Queued
    | Started
    | Ack
    | Progress
    | End
    | State
    | ReplayData
    | RaceList
    | Boards
    | DailyInfo
    | LeaderboardData
    | LeaderboardUpdate
    | HistoryData
    | DailyReplayData
    | ArenaListData
    | ArenaData
    | ArenaStandingsData
    | ArenaUpdate
    | HintData
    | AnalysisData
    | Account
    | ProfileData
    | RecentRaces
    | RatingBoardData
    | RatingChange
    | RematchOffer
)
SERVER_TYPES: tuple[type[ServerMsg], ...] = get_args(ServerMessage)
