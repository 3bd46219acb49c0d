"""Where a server process checks and makes password hashes (argon2): threads of its own, and a
bound on the requests waiting for them (server/ratings/accounts_store.py uses it)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .accounts import AccountError

# Argon2 work of a process (docs/ratings.md §6): threads of its own, each hash 64 MiB at the
# default cost; at most HASH_MOST requests (claims, logins, password changes) in hand at once,
# running or waiting, the last HASH_OWNERS of those places kept for owners (a login from an
# address known to the account, a password change); beyond, refused at once, to retry after
# HASH_BUSY_RETRY_MS. Without a bound, a few addresses spending their login allowance on
# unknown names made every login wait tens of seconds behind their hashes.
HASH_THREADS = 2
HASH_MOST = 16
HASH_OWNERS = 4
HASH_BUSY_RETRY_MS = 2_000


class Hashing:
    """The argon2 work of a process: ``threads`` of its own (not asyncio's default pool, which
    other work shares), and at most ``most`` requests in hand (``slot``), running or waiting;
    the last ``owners`` places only for owners. Beyond, a request is refused at once: never
    queued without bound."""

    def __init__(self, threads: int = HASH_THREADS, most: int = HASH_MOST, owners: int = HASH_OWNERS) -> None:
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="argon2")
        self.most = most
        self.owners = owners
        self.busy = 0

    @contextlib.contextmanager
    def slot(self, code: str, *, owner: bool = False) -> Iterator[None]:
        """A place for one request's hashes, or ``code`` (``login-limited``, ``claim-limited``)
        with ``retry_after_ms``."""
        if self.busy >= (self.most if owner else self.most - self.owners):
            raise AccountError(
                code, "the server is busy checking passwords", retry_after_ms=HASH_BUSY_RETRY_MS
            )
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)
