"""The typed requests of accounts and ratings (docs/protocol.md §9): one method each.

An account token (`PLAYER.SECRET`) from `claim` or `login` goes in `hello` (`token=`)
to play as the account. `claim` makes this connection's guest the account at once, so
the client keeps the new token for its reconnections (the guest's resumes nothing from
then on); `login` leaves this connection what it was: connect again with its token.
After `logout` this client's token resumes nothing (`bad-token`), nor after `logout_all`
(which ends every session of the account, on every device); after `change_password` this
client's token still holds and every other session of the account ends. `recent` is any
player's own latest finished races, a guest's too.
"""

from __future__ import annotations

from protocol import messages as m

from .daily import DailyCalls


class AccountCalls(DailyCalls):
    """Claim, log in, log out (here or everywhere), change the password; profiles, rating
    boards, your recent races."""

    async def claim(self, name: str, password: str) -> m.Account:
        """Make this guest the account `name` (the same player id); its token replaces the
        guest's here. Errors `bad-name`, `bad-password`, `name-taken`, `already-account`."""
        acct: m.Account = await self.request(m.Claim(name=name, password=password))
        self._token, self._name = acct.token, acct.name
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

    async def logout_all(self) -> m.Ok:
        """Revoke every token of this connection's account, this one included (every device);
        the connection stays open, no longer logged in. `not-logged-in` if it has none."""
        ok: m.Ok = await self.request(m.LogoutAll())
        return ok

    async def change_password(self, old: str, new: str) -> m.Ok:
        """Change the account's password. Every other token of the account is revoked (their
        connections are closed), this connection's token stays valid: nothing new to keep.
        Errors `not-logged-in`, `bad-login` (`old` is wrong), `bad-password` (`new` breaks
        the rules), `login-limited` (`.retry_ms`), `conflict`."""
        ok: m.Ok = await self.request(m.ChangePassword(old=old, new=new))
        return ok

    async def recent(self, limit: int | None = None) -> m.RecentRaces:
        """Your own latest finished races, newest first (`limit` 1-50; None: the server's
        20). Guests and accounts alike; a rated race's entry carries your rating `before`
        and `after` once it is rated. An entry's `race` can be `replay`ed (a daily
        attempt's only once its day has closed)."""
        data: m.RecentRaces = await self.request(m.Recent(limit=limit))
        return data

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
