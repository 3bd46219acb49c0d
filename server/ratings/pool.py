"""The rated quick-match pool of each game, in Redis, shared by every process.

Players ``join`` with their μ and the race size they want and ``leave`` when
they give up. An entry is the player's, whichever of their connections (on
whichever process) asked: each connection that joins *holds* it (a random id,
in a set next to the pool), and its ``release`` when it closes drops the entry
only if no holder is left. Any process may call ``form`` (the server calls
it every second, and on every arrival): it reads the pool, forms races with
the pure ``matchmaking.form_races`` and takes each group out with one Lua
script that removes all its members only if every one of them still waits
with the entry the group was formed from. Two processes forming at the same
moment therefore never put one player in two races; a group one of them
lost is simply formed again on the next call from what is left.

Each ``join`` may also bring the token with which that request claimed the
entry's seat (storage/seats.lua, handlers/rated_queue.py) and the login session it
was made with: the entry carries its tokens (a set next to the pool) and its
session (``{mm:G}:sessions``, read by ``seats.PoolSessions``), and whatever
takes it out (``form``, ``leave``, the last holder's ``release``) takes its
holders, tokens and session in the same step and returns the tokens, so that
only those claims are given back. A player joining again while their group is
being seated makes a new entry, with holders, tokens and a session of its own,
which the seating neither forgets, gives back nor takes.

An entry nobody kept alive for ``stale_ms`` (one held only by connections of a
process that died without ``leave``) is dropped by ``form``. Each ``join`` of a player
already waiting notes its time in the entry (``seen``), which keeps its place (its
``joined``, which matchmaking goes by), and so does ``keep``, which each process
calls for the entries its open connections hold a few times within ``stale_ms``
(handlers/rated_queue.py ``keep_alive``): a player who waits, however long, is never
dropped, since no client queues again while it waits. ``keep`` keeps only an entry
that still waits and that one of the given connections still holds: one taken out is
never made again. A holder set expires ``stale_ms`` after its last join or keep, so
the ids of a dead process's connections keep nothing longer; a token set twice
that, so that it outlives its entry until ``form`` drops it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import keys, scripts
from .common import Clock, compact_json, text
from .matchmaking import DEFAULT_CURVE, Curve, Waiting, form_races
from .rating import MAX_PLAYERS, MIN_PLAYERS
from .seats import TTL_S as SESSIONS_TTL_S

STALE_MS = 600_000


def _entry(mu: float, joined_ms: int, seats: int, seen_ms: int | None = None) -> str:
    """An entry's text, as stored and compared. ``seen`` comes last, and only once the player
    queued again (scripts.JOIN writes it there), so that an entry never refreshed reads as
    entries always did."""
    entry: dict[str, Any] = {"mu": mu, "joined": joined_ms, "seats": seats}
    if seen_ms is not None:
        entry["seen"] = seen_ms
    return compact_json(entry)


def _text_of(w: Waiting) -> str:
    return _entry(w.mu, w.joined_ms, w.seats, w.seen_ms)


@dataclass(frozen=True, slots=True)
class Taken:
    """What a player's entry carried when it was taken out: the connections that held it, the
    tokens of the requests that claimed its seat, and the login session it was made with."""

    holders: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    session: str = ""


@dataclass(frozen=True, slots=True)
class Formed:
    """A group ``form`` took out of the pool: its members, and what each one's entry carried."""

    members: list[Waiting]
    taken: dict[str, Taken]

    def claims(self) -> dict[str, tuple[str, ...]]:
        """Each member's claims on its entry's seat."""
        return {p: t.claims for p, t in self.taken.items()}


def _left(reply: Any) -> tuple[str, ...] | None:
    """The reply of DROP, LEAVE or RELEASE_HOLD: the tokens of the entry that left, None if none did."""
    return tuple(text(t) for t in reply[1:]) if int(reply[0]) else None


class Pool:
    def __init__(
        self, redis: Any, clock: Clock, curve: Curve = DEFAULT_CURVE, stale_ms: int = STALE_MS
    ) -> None:
        self.redis = redis
        self.clock = clock
        self.curve = curve
        self.stale_ms = stale_ms
        self._join = redis.register_script(scripts.JOIN)
        self._take = redis.register_script(scripts.TAKE)
        self._drop = redis.register_script(scripts.DROP)
        self._release = redis.register_script(scripts.RELEASE_HOLD)
        self._leave = redis.register_script(scripts.LEAVE)
        self._restore = redis.register_script(scripts.RESTORE)
        self._keep = redis.register_script(scripts.KEEP)

    async def join(
        self,
        game: str,
        player: str,
        mu: float,
        seats: int,
        holder: str = "",
        claim: str = "",
        session: str = "",
    ) -> bool:
        """Wait for a rated race of ``seats``; False if already waiting for that size
        (the player keeps their place). Joining for another size replaces the entry.
        ``holder``: the asking connection's id, which holds the entry until ``release``;
        ``claim``: the token with which the request claimed the entry's seat, which the entry
        carries until it is taken out; ``session``: the login session the entry is made with
        (a player already waiting: their entry's from now on)."""
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise ValueError(f"a rated race has {MIN_PLAYERS} to {MAX_PLAYERS} seats")
        now = self.clock()
        return bool(
            await self._join(
                keys=self._entry_keys(game, player),
                args=[
                    player,
                    _entry(mu, now, seats),
                    seats,
                    holder,
                    self.stale_ms,
                    claim,
                    self._tokens_ms,
                    session,
                    SESSIONS_TTL_S,
                    now,
                ],
            )
        )

    async def release(self, game: str, player: str, holder: str) -> tuple[str, ...] | None:
        """``holder`` lets go of the player's entry (its connection closed): the claims the
        entry carried if it left with it, the last holder, else None."""
        pool, held, tokens, sessions, gone = self._entry_keys(game, player)
        reply = await self._release(
            keys=[held, pool, tokens, sessions, gone], args=[holder, player, self._tokens_ms]
        )
        return _left(reply)

    async def keep(self, game: str, player: str, holders: Iterable[str]) -> bool:
        """Keep the player's entry from going stale while connections of a live process hold
        it (module docstring): if it still waits and one of ``holders`` still holds it, it is
        seen now (its place kept), and its holders, tokens and session live on as after a
        ``join``. True if kept; False if there is no such entry (it was taken out, or is now a
        new entry of the player's that none of ``holders`` holds): nothing is written then."""
        pool, held, tokens, sessions, _gone = self._entry_keys(game, player)
        args = [player, self.clock(), self.stale_ms, self._tokens_ms, SESSIONS_TTL_S, *holders]
        return bool(await self._keep(keys=[pool, held, tokens, sessions], args=args))

    async def leave(self, game: str, player: str) -> tuple[str, ...] | None:
        """Take the player's entry out, whoever holds it: the claims it carried, None if there
        was none."""
        return _left(await self._leave(keys=self._entry_keys(game, player), args=[player, self._tokens_ms]))

    @property
    def _tokens_ms(self) -> int:
        return 2 * self.stale_ms

    @staticmethod
    def _entry_keys(game: str, player: str) -> list[str]:
        """The pool, the player's holder and token sets, the pool's sessions and the player's
        gone set (one slot)."""
        return [
            keys.pool(game),
            keys.held(game, player),
            keys.claim_tokens(game, player),
            keys.pool_sessions(game),
            keys.gone(game, player),
        ]

    @staticmethod
    def _member_keys(game: str, players: Iterable[str]) -> list[str]:
        """The pool and its sessions, then each player's holder, token and gone sets."""
        out = [keys.pool(game), keys.pool_sessions(game)]
        for p in players:
            out += [keys.held(game, p), keys.claim_tokens(game, p), keys.gone(game, p)]
        return out

    async def has(self, game: str, player: str) -> bool:
        return bool(await self.redis.hexists(keys.pool(game), player))

    async def holders(self, game: str, player: str) -> tuple[str, ...]:
        """The ids of the connections holding the player's entry."""
        return tuple(sorted(text(h) for h in await self.redis.smembers(keys.held(game, player))))

    async def restore(
        self, game: str, group: list[Waiting], taken: Mapping[str, Taken]
    ) -> dict[str, tuple[str, ...]]:
        """Put back players that ``form`` took out but who were not seated after all, each with
        their entry as it was (their waiting time kept) unless they joined again meanwhile,
        and with what it carried (``taken``: its holders and claims, merged into a new entry's,
        and its session, unless a new entry has one), less what they did meanwhile: one who
        left the pool, or whose every holder let go, is not put back. Those players, each with
        the claims their entry carried (the caller's to give back)."""
        if not group:
            return {}
        args: list[Any] = [self.stale_ms, self._tokens_ms, SESSIONS_TTL_S]
        for w in group:
            t = taken.get(w.player, Taken())
            args += [w.player, _text_of(w), " ".join(t.holders), " ".join(t.claims), t.session]
        flat = [
            text(x)
            for x in await self._restore(keys=self._member_keys(game, (w.player for w in group)), args=args)
        ]
        return {p: tuple(tokens.split()) for p, tokens in zip(flat[::2], flat[1::2], strict=True)}

    async def waiting(self, game: str) -> list[Waiting]:
        raw = await self.redis.hgetall(keys.pool(game))
        out = []
        for player, entry in raw.items():
            d = json.loads(entry)
            seen = int(d["seen"]) if "seen" in d else None
            out.append(Waiting(text(player), float(d["mu"]), int(d["joined"]), int(d["seats"]), seen))
        return out

    async def form(self, game: str, dropped: dict[str, tuple[str, ...]] | None = None) -> list[Formed]:
        """The races this call took out of the pool. The players whose stale entries it
        dropped are added to ``dropped``, each with the claims their entry carried (their
        seat is the caller's to let go; their session left with the entry)."""
        now = self.clock()
        pool = await self.waiting(game)
        fresh = []
        for w in pool:
            # Stale from the player's last `quick` for it or its last `keep`, not from the join
            # (which keeps its place): a player still waiting is no process that died without `leave`.
            if now - (w.joined_ms if w.seen_ms is None else w.seen_ms) >= self.stale_ms:
                claims = _left(
                    await self._drop(keys=self._entry_keys(game, w.player), args=[w.player, _text_of(w)])
                )
                if claims is not None and dropped is not None:
                    dropped[w.player] = claims
            else:
                fresh.append(w)
        taken = []
        for group in form_races(fresh, now, self.curve):
            args: list[Any] = []
            for w in group:
                args += [w.player, _text_of(w)]
            reply = await self._take(keys=self._member_keys(game, (w.player for w in group)), args=args)
            if reply:
                carried = {
                    w.player: Taken(tuple(map(text, holders)), tuple(map(text, claims)), text(session))
                    for w, (holders, claims, session) in zip(group, reply, strict=True)
                }
                taken.append(Formed(group, carried))
        return taken
