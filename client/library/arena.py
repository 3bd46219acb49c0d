"""The typed requests of arenas (docs/protocol.md §5a): one method each.

Live standings (`arena_standings(..., watch=True)`) arrive as `arena_update`
events: `wait_for(messages.ArenaUpdate, ...)`. A paired player gets each
arena race's `race` snapshot as an event, exactly as a quick-match player
does, and plays it with the race methods.
"""

from __future__ import annotations

from protocol import messages as m

from .calls import Calls


class ArenaCalls(Calls):
    """Arenas: list, one arena, join, withdraw, standings (and watching them), berserk."""

    async def arenas(self) -> m.ArenaListData:
        """The arenas running, starting within the hour, or ended within the day."""
        listing: m.ArenaListData = await self.request(m.Arenas())
        return listing

    async def arena(self, arena: str) -> m.ArenaData:
        """One arena and your place in it: joined, your race, your races, the featured race."""
        data: m.ArenaData = await self.request(m.ArenaGet(arena=arena))
        return data

    async def arena_join(self, arena: str) -> m.ArenaData:
        """Join (or rejoin): while the arena runs you are paired whenever you are free."""
        data: m.ArenaData = await self.request(m.ArenaJoin(arena=arena))
        return data

    async def arena_withdraw(self, arena: str) -> m.ArenaData:
        """No more pairing; your points stay and a race in progress still counts."""
        data: m.ArenaData = await self.request(m.ArenaWithdraw(arena=arena))
        return data

    async def arena_standings(
        self, arena: str, top: int | None = None, around: int | None = None, watch: bool = False
    ) -> m.ArenaStandingsData:
        """The standings (`top` rows, and `around` rows either side of yours); `watch` also
        sends `arena_update` events, coalesced, until `arena_unwatch` or the connection ends."""
        data: m.ArenaStandingsData = await self.request(
            m.ArenaStandings(arena=arena, top=top, around=around, watch=watch or None)
        )
        return data

    async def arena_unwatch(self, arena: str) -> m.Ok:
        ok: m.Ok = await self.request(m.ArenaUnwatch(arena=arena))
        return ok

    async def featured(self, arena: str) -> str | None:
        """The race of the highest-standing players being played (watch it with `spectate`)."""
        return (await self.arena(arena)).featured

    async def arena_berserk(self, arena: str, race: str) -> m.RaceSnapshot:
        """Take half the clock of your arena race before it starts, for a point more on a win."""
        snap: m.RaceSnapshot = await self.request(m.ArenaBerserk(arena=arena, race=race))
        return snap
