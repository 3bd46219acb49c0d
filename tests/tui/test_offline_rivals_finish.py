"""An offline race's rivals play the server's greedy bot (docs/bots.md): with nothing new to
try they finish, so the race ends with its players, not at its 10-minute clock. (They played
draws and foundation shuffles until the clock ran out, and the ranking, analysis and replay
waited for it.)"""

from __future__ import annotations

from waiting import until as loop_until

from client.tui.offline import LocalSession

from .helpers import offline_race_running


async def test_the_rivals_finish_and_the_race_ends_before_its_clock() -> None:
    cap = 3000  # a rival past it finishes anyway: theirs must end well before
    session = LocalSession(name="ada", countdown_ms=20, rival_interval=0.0005, rivals=2, rival_max_moves=cap)
    await session.request("quick", game="racing-aces", seats=3)
    race = await offline_race_running(session)
    await session.request("finish", race=race.id)
    await loop_until(lambda: race.status == "finished", what="the race's end")
    assert race.deadline is not None and race.seats
    assert all(s.status in ("won", "finished") for s in race.seats)
    assert all(s.n < cap for s in race.seats if s.bot), [s.n for s in race.seats]
    assert all(s.at is not None and s.at < race.deadline for s in race.seats)
    await session.close()
