"""`solrace bots`: run a bot worker (client/bots/service.py) against a server.

    solrace bots --url ws://127.0.0.1:8765/ws --redis redis://127.0.0.1:6379/0 [--max-bots 4] ...

`solrace serve` starts one itself (its BOT_WORKERS setting); run this where
the server's setting is 0, with the server's Redis URL (or SOLRACE_REDIS, which
keeps a password out of the process list). Several --url: failover between
server processes sharing one Redis. SIGTERM/SIGINT: stop, ending the bots in play
and releasing their leases, so that a live worker resumes them in their races.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal

from client.bots.service import BotService, Limits
from server.config import REDIS_SCHEMES, Settings, check_range
from server.config.checks import check_redis_url
from server.logs import add_log_arguments, env_refusal, setup_logging
from server.storage.resp import PASSWORD_FLAG_WARNING, auth_refusal, url_has_password

from . import say_failure


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = Settings()
    parser.add_argument(
        "--url", action="append", required=True, help="server WebSocket URL (repeat: failover)"
    )
    parser.add_argument("--redis", default=None, help="the server's Redis URL (default: env SOLRACE_REDIS)")
    parser.add_argument(
        "--max-bots", type=int, default=d.bots_max, help=f"bots played at once (default {d.bots_max})"
    )
    parser.add_argument(
        "--think-ms",
        type=int,
        default=d.bot_think_ms,
        help=f"search time per move, ms (default {d.bot_think_ms})",
    )
    parser.add_argument(
        "--move-ms",
        type=int,
        default=d.bot_move_ms,
        help=f"pause between moves, ms (default {d.bot_move_ms})",
    )
    parser.add_argument(
        "--wait-s",
        type=int,
        default=d.bot_wait_s,
        help=f"wait for a start before leaving, s (default {d.bot_wait_s})",
    )
    parser.add_argument(
        "--nice", type=int, default=5, help="lower this process's CPU priority by this much (default 5)"
    )
    parser.add_argument(
        "--parent",
        type=int,
        default=None,
        metavar="PID",
        help="the pid of the process that started this worker (its parent, as `solrace serve` passes "
        "its own): stop once that parent is gone",
    )
    add_log_arguments(parser)


#: The bounds of `solrace bots`, each with the server setting whose range (RANGES) it shares.
BOUNDS = {
    "max_bots": "bots_max",
    "think_ms": "bot_think_ms",
    "move_ms": "bot_move_ms",
    "wait_s": "bot_wait_s",
    "nice": "bot_nice",
}


#: A worker whose stop has not ended this long after it began exits all the same: a bot's
#: connection to a server that is gone can keep its close waiting, and the leases of its
#: bots age out for another worker anyway.
STOP_GRACE_S = 5.0


async def serve(service: BotService) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stopping() -> None:
        if not stop.is_set():
            stop.set()
            loop.call_later(STOP_GRACE_S, os._exit, 0)

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping)

    async def orphaned() -> None:
        # The worker runs in a session of its own: nothing else ends it when its server is killed
        # (the service's loop looks too, between requests: a wait for one may be long).
        while not service.orphaned():
            await asyncio.sleep(1)
        stopping()

    watch = None if service.parent is None else asyncio.create_task(orphaned())
    print(f"solrace bots: worker {service.worker}, up to {service.limits.max_bots} bots", flush=True)
    try:
        await service.run(stop)
    finally:
        loop.call_later(STOP_GRACE_S, os._exit, 0)  # the event loop's own shutdown is bounded too
        if watch is not None:
            watch.cancel()


#: How long the start's check of the Redis password waits for an answer (none: checked later).
AUTH_CHECK_S = 5.0


async def refused_password(redis_url: str) -> str | None:
    """Redis' refusal of the URL's credentials (a wrong or missing password), or None: also when
    Redis does not answer now (it may be restarting: the worker waits for it as it runs)."""
    from redis.exceptions import AuthenticationError, RedisError, ResponseError

    from server.storage.bots import connect

    redis = connect(redis_url)
    try:
        async with asyncio.timeout(AUTH_CHECK_S):
            await redis.ping()
    except AuthenticationError as exc:
        return str(exc)
    except ResponseError as exc:
        return str(exc) if str(exc).startswith(("NOAUTH", "WRONGPASS")) else None
    except (RedisError, OSError, TimeoutError):
        return None
    finally:
        with contextlib.suppress(Exception):
            await redis.aclose()
    return None


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def run(args: argparse.Namespace) -> int:
    refused = env_refusal()
    if refused is not None:
        say_failure("bots", f"solrace bots: {refused}")
        return 2
    setup_logging(args.log_level, args.log_format)
    redis_url = args.redis or os.environ.get("SOLRACE_REDIS", "")
    if not redis_url:
        say_failure("bots", "solrace bots: give the server's Redis URL (--redis or SOLRACE_REDIS)")
        return 2
    if not redis_url.startswith(REDIS_SCHEMES):
        say_failure(
            "bots",
            f"solrace bots: the Redis URL must start with {', '.join(REDIS_SCHEMES)}, not {redis_url!r}",
        )
        return 2
    try:
        # As `solrace serve` reads it: a bad port or db was a traceback from the password
        # check below, or (a db that is no number) a worker retrying forever.
        check_redis_url(redis_url)
    except ValueError as exc:
        say_failure("bots", f"solrace bots: {exc}")
        return 2
    for name, setting in BOUNDS.items():
        try:
            check_range(setting, getattr(args, name), flag="--" + name.replace("_", "-"))
        except ValueError as exc:
            say_failure("bots", f"solrace bots: {exc}")
            return 2
    if args.parent is not None and args.parent != os.getppid() and _running(args.parent):
        # Watched as the parent (a pid that is not could be reused by another process): any
        # other pid stopped the worker at once, saying its server was gone. (A parent that
        # died already is gone indeed: the worker says so and stops.)
        say_failure(
            "bots", f"solrace bots: --parent {args.parent} is not this worker's parent ({os.getppid()})"
        )
        return 2
    # A wrong password never heals: say it and stop, rather than retry unseen forever.
    refused = asyncio.run(refused_password(redis_url))
    if refused is not None:
        said = auth_refusal(redis_url, refused) or f"Redis refused the password of the Redis URL: {refused}"
        say_failure("bots", f"solrace bots: {said}")
        return 2
    if args.redis and url_has_password(args.redis):
        logging.getLogger("solrace.bots").warning("%s", PASSWORD_FLAG_WARNING)
    if args.nice > 0:
        os.nice(args.nice)  # the server, on the same machine, goes first
    limits = Limits(max_bots=args.max_bots, think_ms=args.think_ms, move_ms=args.move_ms, wait_s=args.wait_s)
    asyncio.run(serve(BotService(args.url, redis_url, limits, parent=args.parent)))
    return 0
