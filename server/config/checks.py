"""What values the settings may take: the range of every numeric one and the checks
of the others, run when a `Settings` is made (a value from a flag, a SOLRACE_* variable
or a test is refused alike).

What the checks use is imported inside them, when needed: server.net imports this
package, so it cannot be imported at the top.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import TYPE_CHECKING

from ..net.addresses import parse_networks

if TYPE_CHECKING:
    from .settings import Settings


#: The longest lifetime a setting may give a Redis key: Redis refuses an expiry whose time in
#: ms overflows (`invalid expire time`), which would fail every request that sets one.
TEN_YEARS_S = 10 * 365 * 86_400
#: The most worker processes of one kind a process starts.
MAX_WORKERS = 256

#: The range of every numeric setting, (least, most), None: unbounded. A value outside it is
#: refused at start, in one line, instead of running a broken server (a 0 ms sweep is a busy
#: loop, a 0 s session lifetime fails every hello, a 0-byte frame limit closes every client).
#: Every value that reaches a system call, Redis or argon2 has a most too: past what these take
#: (a send buffer beyond a C int, an expiry past Redis' 64 bits, argon2's 32-bit memory) the
#: server would start and then fail every request of a kind.
#: Some settings have further checks in `check_settings`.
RANGES: dict[str, tuple[float | None, float | None]] = {
    "port": (0, 65535),
    "redis_wait_replicas": (0, 100),
    "redis_wait_timeout_ms": (1, 3_600_000),
    "redis_timeout_s": (0.001, 3600),
    "redis_maxmemory_mb": (-1, 1 << 24),  # 16 TiB; in bytes it must fit Redis' 64 bits
    "max_frame": (256, 1 << 24),
    "rate": (1, None),
    "burst": (1, None),
    "max_name": (1, None),
    "max_seats": (1, None),
    "time_limit_min_s": (1, None),
    "time_limit_max_s": (1, None),
    "time_limit_s": (1, None),
    "max_races_per_player": (1, None),
    "countdown_ms": (0, 600_000),
    "spectator_delay_ms": (0, 86_400_000),
    "spectator_flush_ms": (10, 3_600_000),
    "outbound_queue": (1, None),
    "outbound_bytes": (1024, None),
    "resync_events": (1, 1_000_000),
    "hello_timeout_s": (0.1, 3600),
    "session_ttl_s": (60, TEN_YEARS_S),
    "fresh_session_ttl_s": (60, TEN_YEARS_S),
    "new_sessions_per_min": (0, None),
    "max_conn_per_player": (1, None),
    "max_conn_per_addr": (1, None),
    "outbound_total": (1024, None),
    "stream_maxlen": (16, 1_000_000),
    "finished_ttl_s": (60, TEN_YEARS_S),
    "lobby_ttl_s": (60, TEN_YEARS_S),
    "lobby_away_ms": (100, TEN_YEARS_S * 1000),
    "sweep_ms": (10, 3_600_000),
    "max_list": (1, 10_000),
    "max_spectating": (0, None),
    "max_public_lobbies_per_addr": (0, None),
    "redis_pool": (1, 10_000),
    "rate_close": (1, None),
    "sndbuf": (0, 1 << 30),  # SO_SNDBUF takes a C int
    "ping_interval_s": (0, None),
    "ping_timeout_s": (0.1, None),
    "close_timeout_s": (0.1, None),
    "max_pending_per_addr": (0, None),
    "max_connections": (0, None),
    "daily_time_limit_s": (1, None),
    "daily_replay_top": (1, 10_000),
    "arena_update_ms": (50, None),
    "arena_tick_ms": (50, None),
    "arena_create": (0, 1),
    "certify_workers": (0, MAX_WORKERS),
    "certify_nice": (0, 19),
    "solver_request_workers": (0, MAX_WORKERS),
    "certify_pool": (0, None),
    "certify_nodes": (1, None),
    "certify_batch": (1, None),
    "certify_backoff_s": (0, None),
    "analysis_nodes": (1, None),
    "hint_nodes": (1, None),
    "hint_wait_s": (0.001, None),
    "analysis_wait_s": (0.001, None),
    "password_hash_passes": (1, 100),
    "password_hash_memory_kib": (1024, 1 << 22),  # 4 GiB per hash
    "rated_form_ms": (50, None),
    "bot_workers": (0, MAX_WORKERS),
    "bot_nice": (0, 19),
    "bots_max": (1, None),
    "bot_think_ms": (1, None),
    "bot_move_ms": (0, None),
    "bot_wait_s": (1, 86_400),
    "quick_bot_after_s": (0, None),
}
#: What a Redis URL may start with: redis-py's schemes and ours (server/storage/failover.py, cluster.py).
#: `solrace serve` refuses rediss:// all the same (_check_names); `solrace bots` takes it.
REDIS_SCHEMES = ("redis://", "rediss://", "unix://", "redis+sentinel://", "redis+cluster://")


def check_range(name: str, value: float, flag: str | None = None) -> None:
    """ValueError naming `flag` (the setting's own flag by default) if `value` is outside the
    range of setting `name`; `solrace bots` checks its flags with its server settings' ranges."""
    least, most = RANGES[name]
    flag = flag or "--" + name.replace("_", "-")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{flag} must be a finite number, not {value}")
    if (least is not None and value < least) or (most is not None and value > most):
        if most is None:
            bounds = f"at least {_number(least)}"
        elif least is None:
            bounds = f"at most {_number(most)}"
        else:
            bounds = f"{_number(least)} to {_number(most)}"
        raise ValueError(f"{flag} must be {bounds}, not {_number(value)}")


def _number(x: float | None) -> str:
    return "-" if x is None else str(int(x)) if float(x).is_integer() else str(x)


def check_settings(settings: Settings) -> None:
    """Refuse, with a ValueError naming the flag, a value that would run a broken server."""
    for name in RANGES:
        check_range(name, getattr(settings, name))
    _check_names(settings)
    if settings.redis_wait_replicas and settings.redis_timeout_s * 1000 <= settings.redis_wait_timeout_ms:
        # A WAIT holds the move pipe's connection for up to --redis-wait-timeout-ms.
        raise ValueError(
            f"--redis-timeout-s ({settings.redis_timeout_s:g} s) must be longer than "
            f"--redis-wait-timeout-ms ({settings.redis_wait_timeout_ms} ms) with --redis-wait-replicas "
            "(a WAIT holds the move pipe's connection that long)"
        )
    if settings.redis_wait_replicas and settings.redis.startswith("redis+cluster://"):
        raise ValueError("--redis-wait-replicas does not work with a cluster (redis+cluster://): give 0")
    _check_wire_bounds(settings)
    parse_networks(settings.metrics_from, "metrics-from", private=True)  # ValueError naming the setting
    if settings.redis_fsync not in ("always", "everysec", "no"):
        raise ValueError(f"--redis-fsync must be always, everysec or no, not {settings.redis_fsync!r}")
    if settings.arena_schedule.strip() not in ("", "off"):
        from protocol.rules import GAMES

        from ..arena.schedule import parse_schedule

        parse_schedule(settings.arena_schedule, list(GAMES))  # ValueError naming the setting


def _check_names(settings: Settings) -> None:
    """The settings that name things: a URL, networks, games, a folder."""
    if settings.redis and not settings.redis.startswith(REDIS_SCHEMES):
        raise ValueError(f"--redis must start with one of {', '.join(REDIS_SCHEMES)}, not {settings.redis!r}")
    if settings.redis.startswith("rediss://"):
        # redis-py would speak TLS, but the move pipe and the pub/sub connection (storage/resp.py)
        # speak plain RESP: half the server's connections would fail against a TLS-only port.
        raise ValueError(
            "--redis: rediss:// (TLS to Redis) is not supported: the server's own connections "
            "speak plain TCP; reach a TLS-only Redis through a local TLS tunnel (stunnel, say) "
            "with redis://"
        )
    if settings.redis:
        check_redis_url(settings.redis)
    for origin in (o.strip() for o in settings.allowed_origins.split(",")):
        # An origin is a page's scheme and host (and port), as a browser's `Origin` says it:
        # anything else ("play.example.com", a path) never matches, so it would admit nobody.
        if origin and not _ORIGIN_RE.fullmatch(origin.rstrip("/")):
            raise ValueError(
                f"--allowed-origins: {origin!r} is not an origin (http:// or https://, a host, "
                "perhaps a port: https://play.example.com)"
            )
    for name in ("trusted_proxies", "limit_exempt"):
        parse_networks(getattr(settings, name), name.replace("_", "-"))  # ValueError naming the setting
    if settings.certified_games not in ("all", "none"):
        from protocol.rules import GAMES

        unknown = [g for g in settings.certified_games.split(",") if g.strip() and g.strip() not in GAMES]
        if unknown:
            raise ValueError(
                f"--certified-games: no game {', '.join(unknown)} (all, none, or some of {', '.join(GAMES)})"
            )
    if settings.static and not os.path.isdir(settings.static):
        raise ValueError(f"--static: {settings.static} is not a folder")


_ORIGIN_RE = re.compile(r"https?://[^/\s?#@]+", re.IGNORECASE)


def check_redis_url(url: str) -> None:
    """The parts of a Redis URL, read as the store will read them (redis-py for redis://,
    rediss:// and unix://, server/storage/cluster.py and failover.py for ours): a port that is
    no number 1 to 65535, a db that is no number, a sentinel URL without its service would each
    fail the start with a traceback. The URL is said without its password. `solrace serve`
    (through `check_settings`) and `solrace bots` refuse with it; only the worker takes
    rediss://, which the server refuses before."""
    from redis.asyncio.connection import parse_url

    from ..storage.resp import redact_url

    def refuse(what: str) -> ValueError:
        return ValueError(f"--redis {what}: {redact_url(url)!r}")

    def port_of(value: str) -> None:
        if not (value.isascii() and value.isdigit() and 1 <= int(value) <= 65535):
            raise refuse("has a port that is not a number 1 to 65535")

    def db_of(value: str) -> None:
        if not (value.isascii() and value.isdigit()):
            raise refuse("has a db that is not a number")

    def ports_of(hosts: str) -> None:
        for host in hosts.split(","):
            if host.rpartition("]")[2].count(":") == 1:  # host:port, [v6]:port
                port_of(host.rpartition(":")[2])

    scheme, _, rest = url.partition("://")
    hosts, _, path = rest.rpartition("@")[2].partition("/")
    path = path.partition("?")[0]
    if scheme in ("redis", "rediss"):
        if not hosts:
            raise refuse("names no host (e.g. redis://127.0.0.1:6379/0)")
        ports_of(hosts)
        if path:
            db_of(path)
    if scheme in ("redis", "rediss", "unix"):
        try:
            kwargs = parse_url(url)  # its query parameters too (?db=, ?socket_timeout=...)
        except ValueError as exc:
            raise refuse(str(exc).rstrip(".")) from None
        if scheme == "unix" and not kwargs.get("path"):
            raise refuse("names no socket (e.g. unix:///run/redis.sock)")
    elif scheme == "redis+cluster":
        if not any(hosts.split(",")):
            raise refuse("names no node (e.g. redis+cluster://127.0.0.1:7000)")
        ports_of(hosts)
    elif scheme == "redis+sentinel":
        parts = [p for p in path.split("/") if p]
        if not parts or len(parts) > 2:
            raise refuse(
                "must name the monitored primary: redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[/DB]"
            )
        if len(parts) == 2:
            db_of(parts[1])
        ports_of(hosts.replace(" ", ""))


def _check_wire_bounds(settings: Settings) -> None:
    """The limits that bound a request's fields may only narrow the wire format's bounds
    (docs/protocol.md §7), and the defaults a request falls back on must lie within
    them: `welcome.limits` then says exactly what is accepted."""
    from protocol import messages as m

    if not 1 <= settings.max_name <= m.MAX_NAME:
        raise ValueError(
            f"--max-name must be 1 to {m.MAX_NAME} (the wire format's bound), not {settings.max_name}"
        )
    if not m.DEFAULT_SEATS <= settings.max_seats <= m.MAX_SEATS:
        raise ValueError(
            f"--max-seats must be {m.DEFAULT_SEATS} (the default of create and quick) to {m.MAX_SEATS}"
            f" (the wire format's bound), not {settings.max_seats}"
        )
    least, most = settings.time_limit_min_s, settings.time_limit_max_s
    if not m.MIN_TIME_LIMIT_S <= least <= most <= m.MAX_TIME_LIMIT_S:
        raise ValueError(
            f"--time-limit-min-s and --time-limit-max-s must lie within {m.MIN_TIME_LIMIT_S}..{m.MAX_TIME_LIMIT_S} s"
            f" (the wire format's bounds), the least first, not {least}..{most}"
        )
    # Below the least, every daily attempt would be refused as too close to the close.
    for name in ("time_limit_s", "daily_time_limit_s"):
        value = getattr(settings, name)
        if not least <= value <= most:
            # A default pushed out by --time-limit-min-s or -max-s: say it is one, or the operator
            # looks for a value they never gave.
            default = next(f.default for f in dataclasses.fields(settings) if f.name == name)
            raise ValueError(
                f"--{name.replace('_', '-')} must lie within --time-limit-min-s..--time-limit-max-s, "
                f"{least}..{most} s, not {value}"
                + (" (its default: give it too)" if value == default else "")
            )
