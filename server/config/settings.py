"""The server's settings: every limit has a name, a default and a line of docs.

The names in capitals are the ones docs/protocol.md §7 uses and `welcome.limits`
reports. What values each setting may take is checked in checks.py, how flags
and SOLRACE_* variables become settings in flags.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from dataclasses import dataclass, field, fields
from typing import Any

from protocol.solver.analysis import ANALYSIS_NODES

from . import flags
from .checks import check_settings


def _doc(text: str, limit: str | None = None) -> dict[str, Any]:
    """Field metadata: the help line and, for client-visible limits, the §7 name."""
    return {"doc": text, "limit": limit}


@dataclass(slots=True)
class Settings:
    # --- where to listen and what to store into
    host: str = field(default="127.0.0.1", metadata=_doc("address to listen on"))
    port: int = field(default=8765, metadata=_doc("port to listen on (0 picks a free one)"))
    redis: str = field(
        default="",
        metadata=_doc(
            "Redis URL: redis://[user:pass@]host:port/db, unix:///path, "
            "redis+cluster://host:port[,host:port...] or "
            "redis+sentinel://host:port[,host:port...]/SERVICE[/db]; a password belongs in the "
            "variable, not the flag (process lists show flags); empty starts a private redis-server"
        ),
    )
    data: str = field(default="./data", metadata=_doc("data folder of the private redis-server (AOF)"))
    redis_fsync: str = field(
        default="always",
        metadata=_doc(
            "appendfsync of the private redis-server: always (an ack survives a machine crash and a full "
            "disk), everysec (a machine crash may lose the last second of acks, a full disk the last ack), "
            "no (the OS decides)"
        ),
    )
    redis_wait_replicas: int = field(
        default=0,
        metadata=_doc(
            "acknowledge a move or a change of a race only once this many Redis replicas have it "
            "(WAIT); 0: as soon as the primary has it (not with a redis+cluster:// URL)"
        ),
    )
    redis_wait_timeout_ms: int = field(
        default=1000,
        metadata=_doc(
            "how long a move or race change waits for --redis-wait-replicas replicas before it fails "
            "(internal)"
        ),
    )
    redis_timeout_s: float = field(
        default=5.0,
        metadata=_doc(
            "a Redis that answers nothing this long while requests wait is taken for gone: the waiting "
            "requests fail (internal) and the connection is made again; longer than --redis-wait-timeout-ms"
        ),
    )
    redis_maxmemory_mb: int = field(
        default=-1,
        metadata=_doc(
            "maxmemory of the private redis-server, MiB, with the noeviction policy: past it Redis "
            "refuses writes (moves and new races fail with internal) instead of filling the machine's "
            "memory and swap; never evicts a race. -1: half the memory of the machine (or of its "
            "cgroup, if less); 0: no limit"
        ),
    )
    static: str = field(
        default="", metadata=_doc("folder served over HTTP at / ('': the web client, client/web/static)")
    )

    # --- limits reported to clients (docs/protocol.md §7)
    max_frame: int = field(
        default=4096, metadata=_doc("largest inbound frame in bytes; larger closes with 1009", "MAX_FRAME")
    )
    rate: int = field(
        default=30, metadata=_doc("message credits per second per player (shared by its connections)", "RATE")
    )
    burst: int = field(default=60, metadata=_doc("message credits a player may bank", "BURST"))
    max_name: int = field(default=24, metadata=_doc("longest display name, characters", "MAX_NAME"))
    max_seats: int = field(default=8, metadata=_doc("most seats in a race", "MAX_SEATS"))
    time_limit_min_s: int = field(
        default=30, metadata=_doc("shortest race clock, seconds", "MIN_TIME_LIMIT_S")
    )
    time_limit_max_s: int = field(
        default=7200, metadata=_doc("longest race clock, seconds", "MAX_TIME_LIMIT_S")
    )
    time_limit_s: int = field(
        default=600, metadata=_doc("race clock when create does not say", "TIME_LIMIT_S")
    )
    max_races_per_player: int = field(
        default=8, metadata=_doc("seats one player may hold in unfinished races", "MAX_RACES_PER_PLAYER")
    )
    countdown_ms: int = field(
        default=3000, metadata=_doc("countdown between 'all ready' and the start", "COUNTDOWN")
    )
    spectator_delay_ms: int = field(
        default=10000, metadata=_doc("how far in the past spectators see boards", "SPECTATOR_DELAY")
    )
    spectator_flush_ms: int = field(
        default=200, metadata=_doc("interval of spectator board updates", "SPECTATOR_FLUSH")
    )
    outbound_queue: int = field(
        default=256, metadata=_doc("messages queued for a slow client before it is closed", "OUTBOUND_QUEUE")
    )
    outbound_bytes: int = field(
        default=262144,
        metadata=_doc(
            "bytes a slow client may hold in the server (transport buffer + queue) before it is closed",
            "OUTBOUND_BYTES",
        ),
    )
    resync_events: int = field(
        default=256,
        metadata=_doc("most events in a `state` reply; more missed: the snapshot alone", "RESYNC_EVENTS"),
    )
    hello_timeout_s: float = field(
        default=10.0, metadata=_doc("seconds a new connection has to say hello", "HELLO_TIMEOUT")
    )
    session_ttl_s: int = field(
        default=7 * 86400,
        metadata=_doc(
            "lifetime of a session token once its player took a seat (until then "
            "--fresh-session-ttl-s), renewed at each hello",
            "SESSION_TTL",
        ),
    )
    fresh_session_ttl_s: int = field(
        default=6 * 3600,
        metadata=_doc(
            "lifetime of a session whose player never took a seat (then SESSION_TTL)", "FRESH_SESSION_TTL"
        ),
    )
    new_sessions_per_min: int = field(
        default=30,
        metadata=_doc(
            "sessions one client address may create per minute, all processes (0: no limit)",
            "NEW_SESSIONS_PER_MIN",
        ),
    )
    max_conn_per_player: int = field(
        default=8,
        metadata=_doc("open connections per player, all processes (counted in Redis)", "MAX_CONN_PER_PLAYER"),
    )
    max_conn_per_addr: int = field(
        default=64,
        metadata=_doc(
            "open connections per client address, all processes (counted in Redis)", "MAX_CONN_PER_ADDR"
        ),
    )

    # --- server-side tuning (not reported to clients)
    limit_exempt: str = field(
        default="127.0.0.0/8,::1",
        metadata=_doc(
            "comma-separated addresses or networks exempt from NEW_SESSIONS_PER_MIN, "
            "--max-public-lobbies-per-addr and the account claims per address (local tools: bench, "
            "bots on the server's machine); empty: none"
        ),
    )
    outbound_total: int = field(
        default=64 * 2**20,
        metadata=_doc(
            "bytes all slow clients of a process may hold together; past it the largest backlogs are closed"
        ),
    )
    stream_maxlen: int = field(default=1000, metadata=_doc("approximate length cap of a race's event stream"))
    finished_ttl_s: int = field(
        default=30 * 86400, metadata=_doc("how long a finished race (seed, logs) stays in Redis")
    )
    lobby_ttl_s: int = field(
        default=86400, metadata=_doc("how long a race may sit in its lobby before it expires")
    )
    lobby_away_ms: int = field(
        default=60_000,
        metadata=_doc(
            "how long a public lobby none of whose seated persons is connected (any process) keeps "
            "their seats; it leaves the race list at once, and is emptied after this"
        ),
    )
    sweep_ms: int = field(
        default=250, metadata=_doc("interval of the deadline sweeper (backstop of local timers)")
    )
    max_list: int = field(default=100, metadata=_doc("most races in a race_list reply"))
    max_spectating: int = field(
        default=16,
        metadata=_doc(
            "races one connection may spectate at once; one more is refused with too-many-races "
            "(unspectate, or the race's end, frees a slot)"
        ),
    )
    max_public_lobbies_per_addr: int = field(
        default=20,
        metadata=_doc(
            "open public lobbies (listed, not started) created from one client address, all "
            "processes (counted in Redis); one more public create is refused with too-many-races "
            "(0: no limit; --limit-exempt addresses are exempt)"
        ),
    )
    redis_pool: int = field(
        default=64, metadata=_doc("Redis connections for the cold paths (the move path has its own)")
    )
    rate_close: int = field(
        default=200, metadata=_doc("rate-limited messages in a row before closing with 1008", "RATE_CLOSE")
    )
    sndbuf: int = field(
        default=65536,
        metadata=_doc(
            "kernel send buffer of each websocket, bytes (0: the OS autotunes it, up to megabytes): with "
            "OUTBOUND_BYTES and OUTBOUND_QUEUE it bounds what a client that stops reading holds before "
            "it is closed"
        ),
    )
    ping_interval_s: float = field(
        default=20.0, metadata=_doc("keepalive ping interval, seconds (0: no pings)")
    )
    ping_timeout_s: float = field(
        default=20.0,
        metadata=_doc("a connection that answers no ping within this many seconds is closed (1011)"),
    )
    close_timeout_s: float = field(
        default=2.0,
        metadata=_doc("seconds to wait for the peer's close frame before dropping the TCP connection"),
    )
    trusted_proxies: str = field(
        default="",
        metadata=_doc(
            "comma-separated addresses or networks (10.0.0.0/8) of proxies whose X-Forwarded-For names "
            "the client address (for the per-address limits, --metrics-from and the log); empty: trust none"
        ),
    )
    allowed_origins: str = field(
        default="",
        metadata=_doc(
            "comma-separated origins (https://play.example.com) whose pages may open a WebSocket besides "
            "the server's own (the Origin naming the request's Host); a request with no Origin (not a "
            "browser) is always let in; empty: the server's own pages only"
        ),
    )
    max_pending_per_addr: int = field(
        default=64,
        metadata=_doc(
            "TCP connections one peer address may hold on a process beyond MAX_CONN_PER_ADDR (handshakes "
            "in progress, plain HTTP requests); one more is closed at accept, unread; --trusted-proxies "
            "are not counted"
        ),
    )
    max_connections: int = field(
        default=0,
        metadata=_doc(
            "TCP connections a process holds at once, all addresses; one more is closed at accept, "
            "unread (0: as many as the open-files limit leaves after 256 + --redis-pool)"
        ),
    )
    metrics_from: str = field(
        default="private",
        metadata=_doc(
            "comma-separated addresses or networks whose requests /metrics answers (others: 404); "
            "'private': loopback and the private ranges; the client address as --trusted-proxies tells it"
        ),
    )

    # --- daily challenges (server/daily, docs/protocol.md §5)
    daily_secret: str = field(
        default="",
        metadata=_doc(
            "HMAC key of the daily seeds; empty: one is generated once and kept in Redis. Prefer "
            "the environment variable to the flag (process lists show flags); never change it mid-day"
        ),
    )
    daily_time_limit_s: int = field(default=600, metadata=_doc("race clock of a daily attempt, seconds"))
    daily_replay_top: int = field(
        default=10, metadata=_doc("leaderboard entries whose replays are published once a day is final")
    )

    # --- arenas (server/arena, docs/arenas.md, docs/protocol.md §5a)
    arena_schedule: str = field(
        default="",
        metadata=_doc(
            "recurring arenas: a JSON list of rules (docs/arenas.md §1); empty: hourly 30-minute arenas "
            "of every game and a daily hour; 'off': none"
        ),
    )
    arena_update_ms: int = field(
        default=1000, metadata=_doc("least interval between two arena_update to a watcher", "ARENA_UPDATE")
    )
    arena_tick_ms: int = field(default=1000, metadata=_doc("interval of the arena loop (pairing, results)"))
    arena_create: int = field(
        default=0,
        metadata=_doc("1: any connection may create an arena with arena_create (tests, private servers)"),
    )

    # --- the solver: certified deals, hints, analysis (server/certify, docs/protocol.md §3)
    certified_games: str = field(
        default="all",
        metadata=_doc(
            "games whose quick-match races and dailies are dealt from the certified pool by default: "
            "all, none, or a comma-separated list of game ids (a game with an empty pool falls back to "
            "an ordinary deal, marked certified: false)"
        ),
    )
    certify_workers: int = field(
        default=1,
        metadata=_doc(
            "solver worker processes of this server process for the background work: the certified "
            "pools and dailies (0: none, races get ordinary deals)"
        ),
    )
    certify_nice: int = field(
        default=10,
        metadata=_doc(
            "niceness added to the certify workers, so that on a busy machine the races of the "
            "event loop go first (0: the server's own priority)"
        ),
    )
    solver_request_workers: int = field(
        default=1,
        metadata=_doc(
            "solver worker processes of this server process for what a player waits for (hints, "
            "analyses), at the server's own priority; 0: those go to the certify workers, after "
            "the batch in hand and at their niceness"
        ),
    )
    certify_pool: int = field(default=20, metadata=_doc("certified seeds kept ready per game"))
    certify_nodes: int = field(default=2500, metadata=_doc("solver budget per seed tried, positions"))
    certify_batch: int = field(default=8, metadata=_doc("seeds one worker job tries before reporting"))
    certify_backoff_s: float = field(
        default=60.0,
        metadata=_doc(
            "pause before retrying a game a whole batch of which certified nothing, once none of "
            "its first 256 seeds certified (doubles to 1 h)"
        ),
    )
    analysis_nodes: int = field(
        default=ANALYSIS_NODES,
        metadata=_doc("solver budget per position of an analysis (solrace analyze's default too)"),
    )
    hint_nodes: int = field(default=2000, metadata=_doc("player-side search budget of one hint, positions"))
    hint_wait_s: float = field(
        default=5.0,
        metadata=_doc(
            "longest wait for a hint; then the reply is solver-busy and the search is dropped",
            "HINT_WAIT_S",
        ),
    )
    analysis_wait_s: float = field(
        default=20.0,
        metadata=_doc(
            "longest wait for an analysis; then the reply is solver-busy, the analysis goes on "
            "and a later request gets it",
            "ANALYSIS_WAIT_S",
        ),
    )
    # --- accounts and ratings (server/ratings, docs/protocol.md §9)
    password_hash_passes: int = field(default=3, metadata=_doc("argon2id passes of a password hash"))
    password_hash_memory_kib: int = field(
        default=65536, metadata=_doc("argon2id memory of a password hash, KiB")
    )
    rated_form_ms: int = field(
        default=1000, metadata=_doc("interval at which each process forms rated quick-match races")
    )
    # --- bots (client/bots/service.py, docs/operations.md "Bots")
    bot_workers: int = field(
        default=1,
        metadata=_doc(
            "`solrace bots` worker processes `solrace serve` starts (0: none, for deployments that run "
            "`solrace bots` separately)"
        ),
    )
    bot_nice: int = field(
        default=5,
        metadata=_doc(
            "niceness added to the bot workers `solrace serve` starts, so that on a busy machine the "
            "races of the event loop go first (0: the server's own priority)"
        ),
    )
    bots_max: int = field(default=4, metadata=_doc("most bots one worker process plays at once"))
    bot_think_ms: int = field(default=100, metadata=_doc("time budget of a search bot's move, ms"))
    bot_move_ms: int = field(default=700, metadata=_doc("pause between a bot's moves, ms (its pace)"))
    bot_wait_s: int = field(
        default=600, metadata=_doc("seconds a bot waits in a lobby for the start before it leaves")
    )
    quick_bot_after_s: int = field(
        default=20,
        metadata=_doc(
            "seconds alone in a quick-match queue before a bot is seated (0: never)", "QUICK_BOT_AFTER_S"
        ),
    )

    def __post_init__(self) -> None:
        # Checked here, so that a flag and a SOLRACE_* variable are refused alike.
        check_settings(self)

    def limits(self) -> dict[str, int]:
        """The client-visible limits, keyed by their §7 names (`welcome.limits`)."""
        out: dict[str, int] = {}
        for f in fields(self):
            name = f.metadata.get("limit")
            if name:
                value = getattr(self, f.name)
                # welcome.limits is a map of ints: round fractional seconds up.
                out[name] = value if isinstance(value, int) else math.ceil(value)
        return out

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    # --- flags and environment

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """One flag per setting (flags.py)."""
        flags.add_arguments(cls, parser)

    @classmethod
    def from_env(
        cls, environ: dict[str, str] | None = None, args: argparse.Namespace | None = None
    ) -> Settings:
        """The settings of the SOLRACE_* variables and the flags given, flags first (flags.py)."""
        return flags.from_env(cls, environ, args)
