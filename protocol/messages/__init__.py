"""Every message of the solrace wire protocol (docs/protocol.md), typed, and its codec.

Usage (server side)::

    from protocol import messages as m

    try:
        msg = m.decode_client(frame)          # validated, typed
    except m.ProtocolError as e:
        await ws.send(m.encode(e.to_error()))  # bad-frame / bad-message / unknown-type
    else:
        match msg:
            case m.Move(race=race, n=n, move=mv): ...
    await ws.send(m.encode(m.Ack(rid=msg.rid, race=..., n=..., ...)))

Client side: `m.decode_server(frame)` and `m.encode(m.Move(...))`.

Layout: `types` (the Structs and the two unions), `codec` (decode/encode and
`ProtocolError`), `constants` (version, error and close codes, statuses,
limits with their defaults).
"""

from .codec import ProtocolError, decode_client, decode_server, encode, encode_into
from .constants import (
    DEFAULT_LIMITS,
    DEFAULT_SEATS,
    DEFAULT_TIME_LIMIT_S,
    MAX_COUNT,
    MAX_FRAME,
    MAX_ID_LEN,
    MAX_MOVE_LEN,
    MAX_NAME,
    MAX_RID,
    MAX_SEATS,
    MAX_TIME_LIMIT_S,
    MAX_TOKEN_LEN,
    MIN_QUICK_SEATS,
    MIN_SEATS,
    MIN_TIME_LIMIT_S,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    CloseCode,
    ErrorCode,
    PlayerStatus,
    RaceStatus,
)
from .types import (
    CLIENT_TYPES,
    SERVER_TYPES,
    Ack,
    Boards,
    BoardView,
    ClientMessage,
    ClientMsg,
    Create,
    Daily,
    DailyEntry,
    DailyInfo,
    DailyReplay,
    DailyReplayData,
    DailyReplayPlayer,
    DailyStart,
    DailyYou,
    End,
    Error,
    Finish,
    Hello,
    History,
    HistoryData,
    HistoryDay,
    Join,
    Leaderboard,
    LeaderboardData,
    LeaderboardUnwatch,
    LeaderboardUpdate,
    Leave,
    Move,
    Ok,
    Ping,
    PlayerInfo,
    Pong,
    Progress,
    Queued,
    Quick,
    RaceEvent,
    RaceList,
    Races,
    RaceSnapshot,
    RaceSummary,
    RankEntry,
    Ready,
    Replay,
    ReplayData,
    ReplayPlayer,
    Resync,
    ServerMessage,
    ServerMsg,
    Spectate,
    Start,
    Started,
    State,
    SummaryPlayer,
    Unqueue,
    Unspectate,
    Welcome,
    You,
)

__all__ = [name for name in dir() if not name.startswith("_")]
