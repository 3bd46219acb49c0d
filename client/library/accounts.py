"""The typed requests of accounts and ratings (docs/protocol.md §9): one method each.

An account token (`PLAYER.SECRET`) from `claim` or `login` goes in `hello` (`token=`)
to play as the account. `claim` makes this connection's guest the account at once, so
the client keeps the new token for its reconnections (the guest's resumes nothing from
then on); `login` leaves this connection what it was: connect again with its token.
After `logout` this client's token resumes nothing (`bad-token`).
"""

from __future__ import annotations

from protocol import messages as m

from .daily import DailyCalls


class AccountCalls(DailyCalls):
    """Claim, log in, log out; profiles and rating boards."""

    async def claim(self, name: str, password: str) -> m.Account:
        """Make this guest the account `name` (the same player id); its token replaces the
        guest's here. Errors `bad-name`, `bad-password`, `name-taken`, `already-account`."""
        acct: m.Account = await self.request(m.Claim(name=name, password=password))
        self.token, self.name = acct.token, acct.name
        return acct

    async def login(self, name: str, password: str) -> m.Account:
        """A new session of account `name`: `.token` for a `hello` on a new connection.
        Errors `bad-login` (unknown name or wrong password), `login-limited` (`.retry_ms`)."""
        acct: m.Account = await self.request(m.Login(name=name, password=password))
        return acct

    async def logout(self) -> m.Ok:
        """Revoke this connection's account token (`not-logged-in` if it has none)."""
        ok: m.Ok = await self.request(m.Logout())
        return ok

    async def profile(self, player: str | None = None) -> m.ProfileData:
        """An account's ratings, rated races and daily streaks (default yours);
        `no-such-account` for a guest."""
        data: m.ProfileData = await self.request(m.Profile(player=player))
        return data

    async def rating_board(
        self, game: str, top: int | None = None, around: int | None = None
    ) -> m.RatingBoardData:
        """A game's established ratings, best first: `top`, `around` yours, yours (`me`)."""
        data: m.RatingBoardData = await self.request(m.RatingBoard(game=game, top=top, around=around))
        return data
