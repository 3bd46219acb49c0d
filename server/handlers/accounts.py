"""Accounts on the wire (docs/protocol.md §9): claim, login, logout, password, profile, rating boards.

The stores are server/ratings (``Accounts``, ``Ratings``); this module only
turns requests into their calls and their errors into protocol errors.

A connection is *logged in* when its ``hello`` carried an account token
(``PLAYER.SECRET``) or it claimed an account; ``logged_in`` keeps, per
connection, the token and its session id. Each request that needs an account
re-checks the token in Redis, so a session revoked by another process (log
out everywhere, a password change) stops counting at once.

Revoking is not enough for a connection already open with a revoked token: it
still plays as the account's player (moves, the daily, casual races). So
``logout``, ``logout_all`` and ``password`` close (1008) every other connection of the
player whose token no longer holds, on every process: here at once, elsewhere
through a ``revoked`` notice, which names the asking connection (a random id per
connection) so that it is spared. A connection whose token still holds (a login
made since; for ``password``, the asker's own token) stays.

The notice goes out on one channel (``REVOKED_CHANNEL``) that every process
subscribed to before it took its first connection, not on the player's
channel: a process subscribes to that one at the player's first hello there,
and Redis may take that SUBSCRIBE after the notice. And a ``hello`` checks its
token before its connection is one of the player's (``players``), where a close
looks: so once registered, it checks the token again (``recheck``). A close
that missed the connection ran before that second check, hence after the
revocation, which the check then sees; a revocation the check does not see
comes later, and so does its close, which finds the connection.

A guest's player id becomes the account's when claimed; the guest's token
then stops resuming it (``resume`` refuses it), so that logging out
everywhere leaves no way back in but the password.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode
from protocol.rules import GAMES

from ..core import hello as hello_rules
from ..core.races import RaceError
from ..core.session import Session
from ..ratings import AccountError, Accounts, Rating, RatingError, Ratings
from ..ratings import keys as rkeys
from ..ratings.accounts_store import session_id
from ..retries import retried
from ..storage.sessions import Resumed
from ..tasks import sweep_every

if TYPE_CHECKING:  # pragma: no cover
    from ..daily import Daily
    from ..service import Service

log = logging.getLogger("solrace.accounts")

HISTORY_LIMIT = 50  # rated races per game in a profile
RECENT_RACES = 20  # rated races of every game in a profile
REVOKED = "revoked"  # the notice of revoked sessions (never sent to a client)
REVOKED_REASON = "session revoked: log in again"
# Every process's channel of `revoked` notices (player, spared connection), subscribed at start.
REVOKED_CHANNEL = "{accounts}:revoked"
#: How often each process settles the name reservations that claims left behind (s): none
#: outlives names.RESERVATION_LAPSE_MS by more than this.
RESERVATION_SWEEP_S = 60.0


@dataclass(frozen=True, slots=True)
class LoggedIn:
    player: str
    name: str
    session: str  # the session id (sha256 of the token's secret)
    token: str


def account_error(exc: AccountError | RatingError) -> RaceError:
    extra: dict[str, Any] = {}
    retry = getattr(exc, "extra", {}).get("retry_after_ms")
    if isinstance(retry, int) and retry > 0:
        extra["retry_ms"] = int(retry)
    return RaceError(ErrorCode(exc.code), exc.message, **extra)


def rating_value(r: Rating) -> m.RatingValue:
    return m.RatingValue(rating=r.display, mu=r.mu, sigma=r.sigma, races=r.races, provisional=r.provisional)


def rating_value_json(d: dict[str, Any]) -> m.RatingValue:
    return m.RatingValue(
        rating=int(d["rating"]),
        mu=float(d["mu"]),
        sigma=float(d["sigma"]),
        races=int(d["races"]),
        provisional=bool(d["provisional"]),
    )


def rated_race(game: str, e: dict[str, Any]) -> m.RatedRace:
    return m.RatedRace(
        race=e["race"],
        game=game,
        at=int(e["at"]),
        rank=int(e["rank"]),
        players=int(e["players"]),
        weight=float(e["weight"]),
        before=rating_value_json(e["before"]),
        after=rating_value_json(e["after"]),
    )


def board_entry(e: dict[str, Any]) -> m.RatingEntry:
    return m.RatingEntry(**{k: e[k] for k in m.RatingEntry.__struct_fields__})


class AccountHandlers:
    def __init__(self, svc: Service, accounts: Accounts, ratings: Ratings, daily: Daily | None) -> None:
        self.svc = svc
        self.accounts = accounts
        self.ratings = ratings
        self.daily = daily
        self.logged_in: weakref.WeakKeyDictionary[Session, LoggedIn] = weakref.WeakKeyDictionary()
        # Run with the player id once sessions of theirs were revoked (the rated pool's clean-up).
        self.revoke_hooks: list[Callable[[str], Awaitable[None]]] = []
        self._resume_guest = svc.resume

    def install(self) -> None:
        svc = self.svc
        svc.handlers.update(
            {
                m.Claim: self.claim,
                m.Login: self.login,
                m.Logout: self.logout,
                m.LogoutAll: self.logout_all,
                m.ChangePassword: self.change_password,
                m.Profile: self.profile,
                m.RatingBoard: self.board,
            }
        )
        svc.resume = self.resume
        svc.session.registered_hooks.append(self.recheck)
        svc.session.account_names_held = self.accounts.names.held
        svc.store.sessions.account_key = rkeys.account  # read in the guest's resume round trip
        # Before the service starts: its bus confirms this subscription before it takes connections.
        svc.bus.subscribe(REVOKED_CHANNEL)
        svc.bus_hooks[REVOKED_CHANNEL.encode()] = self.on_revoked_notice
        # The notice on a player's channel, as processes of earlier versions publish it.
        svc.notice_hooks[REVOKED] = self.on_revoked
        svc.spawn(self.reservations_sweep())

    async def reservations_sweep(self) -> None:
        """Every RESERVATION_SWEEP_S: the name reservations of claims that stopped half-way
        lapse (ratings/names.py `settle_lapsed`; every process does it, each settle is
        checked against the reservation as read)."""

        async def settle() -> None:
            if settled := await self.accounts.names.settle_lapsed():
                log.info("%d lapsed name reservations settled", settled)

        await sweep_every(self.svc, RESERVATION_SWEEP_S, settle, "the name reservations' sweep failed")

    # --- identity ---------------------------------------------------------------------------

    async def resume(self, s: Session, token: str) -> Resumed | None:
        """hello's token: an account's session, or a guest's (not once it became an account)."""
        if "." in token:
            sess = await self.accounts.resume(token)  # and renews it: a session lives from its last use
            if sess is None:
                return None
            self.logged_in[s] = LoggedIn(sess.player, sess.name, sess.session, token)
            await self.svc.store.touch_player(sess.player, sess.name)
            return Resumed(sess.player, sess.name, None, True)
        found = await self._resume_guest(s, token)
        if found is not None and found.account:
            # Claimed: only the account's own sessions resume it now. A guest token that
            # outlived its claim (claims before tokens were ended) has just cut the
            # account's records' life to a guest's: end it, and undo that.
            await self.svc.store.sessions.end_session(token)
            acct = await self.accounts.account(found.player)
            if acct is not None:
                await self.svc.store.touch_player(acct.player, acct.name)
            return None
        return found

    async def recheck(self, s: Session) -> None:
        """hello made `s` one of its player's connections: its account token must still hold
        (see the module docstring), else it is closed as a revocation closes the others."""
        li = self.logged_in.get(s)
        if li is None or await self.accounts.session(li.token) is not None:
            return
        self.logged_in.pop(s, None)
        if s.transport is not None:
            s.transport.abort(CloseCode.POLICY, REVOKED_REASON)
        raise hello_rules.unknown_token()

    def conn_id(self, s: Session) -> str:
        """The connection's random id (the Session's, which the casual quick-match uses too): it
        names the connection that asked to revoke sessions in the `revoked` notice, and a holder
        of a rated pool entry."""
        return s.conn_id

    async def account_of(self, s: Session) -> LoggedIn:
        """The connection's account session, still valid; else `not-logged-in`."""
        li = self.logged_in.get(s)
        if li is not None and await self.accounts.session(li.token) is not None:
            return li
        self.logged_in.pop(s, None)
        raise RaceError(ErrorCode.NOT_LOGGED_IN, "log in to an account first")

    # --- requests ---------------------------------------------------------------------------

    async def claim(self, s: Session, msg: m.Claim) -> m.Account:
        try:
            login = await self.accounts.claim(
                s.player,
                msg.name,
                msg.password,
                s.addr or None,
                limited=not self.svc.session.limit_exempt(s.addr),
            )
        except AccountError as exc:
            raise account_error(exc) from None
        # The account is made and the token is the client's: what follows must not turn the
        # reply into an error (the claim could not be sent again: `already-account`).
        for other in list(self.svc.players.get(s.player, ())):
            other.name = login.name
        sid = session_id(login.token.partition(".")[2])
        self.logged_in[s] = LoggedIn(login.player, login.name, sid, login.token)
        await retried(
            lambda: self.svc.store.touch_player(login.player, login.name),
            f"claim of {login.player}: its name and records' life not updated (its next hello does it)",
            log,
        )
        guest = s.guest_token
        if guest is not None:  # the guest's token resumes nothing from now on
            # (Left, `resume` ends it: the player is an account now.)
            await retried(
                lambda: self.svc.store.sessions.end_session(guest),
                f"claim of {login.player}: its guest token not ended (its next hello does it)",
                log,
            )
            for other in self.svc.players.get(s.player, ()):
                other.guest_token = None
        return m.Account(rid=msg.rid, player=login.player, name=login.name, token=login.token)

    async def login(self, s: Session, msg: m.Login) -> m.Account:
        address = s.addr or "?"
        try:
            login = await self.accounts.login(msg.name, msg.password, address)
        except AccountError as exc:
            raise account_error(exc) from None
        return m.Account(rid=msg.rid, player=login.player, name=login.name, token=login.token)

    async def logout(self, s: Session, msg: m.Logout) -> m.Ok:
        li = await self.account_of(s)  # a token revoked meanwhile (elsewhere) is not logged in
        self.logged_in.pop(s, None)
        await self.accounts.logout(li.token)
        await self._close_others(s, li.player)  # the token's other connections, wherever they are
        return m.Ok(rid=msg.rid)

    async def logout_all(self, s: Session, msg: m.LogoutAll) -> m.Ok:
        li = await self.account_of(s)
        await self.accounts.logout_everywhere(li.player)
        self.logged_in.pop(s, None)
        await self._close_others(s, li.player)
        return m.Ok(rid=msg.rid)

    async def change_password(self, s: Session, msg: m.ChangePassword) -> m.Ok:
        li = await self.account_of(s)
        try:
            await self.accounts.change_password(li.token, msg.old, msg.new)
        except AccountError as exc:
            raise account_error(exc) from None
        await self._close_others(s, li.player)
        return m.Ok(rid=msg.rid)

    # --- revoked sessions -------------------------------------------------------------------

    async def _close_others(self, s: Session, pid: str) -> None:
        """After `s` revoked sessions of `pid`: close the player's connections that relied on
        them, here at once and on every other process by the notice (`s` is spared)."""
        conn_id = self.conn_id(s)
        try:
            await self.close_revoked(pid, conn_id)
        except Exception as exc:  # the notice below closes them too, once it comes back
            self.svc.failed("could not close the connections of revoked sessions", exc)
        notice = m.encode({"t": REVOKED, "player": pid, "spare": conn_id})
        await self.svc.store.redis.publish(REVOKED_CHANNEL, notice)
        await self._revoked(pid)

    async def _revoked(self, pid: str) -> None:
        for hook in self.revoke_hooks:
            try:
                await hook(pid)
            except Exception as exc:
                self.svc.failed("could not clean up after revoked sessions", exc)

    def on_revoked_notice(self, channel: bytes, data: bytes) -> None:
        """A `revoked` notice on `REVOKED_CHANNEL`: every process gets each one."""
        try:
            pid = str(msgspec.msgpack.decode(data)["player"])
        except Exception:
            log.warning("a malformed revoked notice")
            return
        if pid in self.svc.players:
            self.on_revoked(pid, data)

    def on_revoked(self, pid: str, data: bytes) -> None:
        """A `revoked` notice for `pid`'s connections here."""
        try:
            notice = msgspec.msgpack.decode(data)
            spare = str(notice.get("spare", ""))
        except Exception:
            log.warning("a malformed revoked notice for %s", pid)
            return
        self.svc.spawn(self.close_revoked(pid, spare))

    async def close_revoked(self, pid: str, spare: str) -> None:
        """Close (1008) each connection of `pid` here but the one with id `spare` that is not
        logged in with a token that still holds: it was opened with a revoked token, logged out,
        or opened as the guest before the claim. A token that holds (a login made since the
        revocation, the token of a `password` change) keeps its connections."""
        holds: dict[str, bool] = {}
        for c in list(self.svc.players.get(pid, ())):
            if spare and c.conn_id == spare:
                continue
            li = self.logged_in.get(c)
            if li is not None:
                if li.token not in holds:
                    holds[li.token] = await self.accounts.session(li.token) is not None
                if holds[li.token]:
                    continue
            self.logged_in.pop(c, None)
            conn = c.transport
            if conn is not None:
                conn.abort(CloseCode.POLICY, REVOKED_REASON)

    async def profile(self, s: Session, msg: m.Profile) -> m.ProfileData:
        pid = msg.player or s.player
        acct = await self.accounts.account(pid)
        if acct is None:
            raise RaceError(ErrorCode.NO_SUCH_ACCOUNT, "this player has no account")
        games = sorted(GAMES)
        current = await self.ratings.ratings(pid, games)
        ratings: list[m.GameRating] = []
        recent: list[m.RatedRace] = []
        for game in games:
            history = [rated_race(game, e) for e in await self.ratings.history(game, pid, HISTORY_LIMIT)]
            recent += history[:RECENT_RACES]
            ratings.append(m.GameRating(game=game, rating=rating_value(current[game]), history=history))
        recent.sort(key=lambda r: r.at, reverse=True)
        daily: list[m.DailyStreak] = []
        if self.daily is not None:
            for game in games:
                h = await self.daily.history(pid, game, 0)
                if h["played"]:
                    daily.append(
                        m.DailyStreak(
                            game=game,
                            played=h["played"],
                            wins=h["wins"],
                            streak=h["streak"],
                            best_streak=h["best_streak"],
                        )
                    )
        return m.ProfileData(
            rid=msg.rid,
            player=pid,
            name=acct.name,
            created=acct.created_ms,
            ratings=ratings,
            races=recent[:RECENT_RACES],
            daily=daily,
        )

    async def board(self, s: Session, msg: m.RatingBoard) -> m.RatingBoardData:
        if msg.game not in GAMES:
            raise RaceError(ErrorCode.UNKNOWN_GAME, f"no such game {msg.game!r}")
        b = await self.ratings.leaderboard(
            msg.game,
            10 if msg.top is None else msg.top,
            s.player,
            2 if msg.around is None else msg.around,
        )
        return m.RatingBoardData(
            rid=msg.rid,
            game=msg.game,
            count=b["count"],
            top=[board_entry(e) for e in b["top"]],
            around=[board_entry(e) for e in b["around"]],
            me=board_entry(b["me"]) if b["me"] is not None else None,
        )
