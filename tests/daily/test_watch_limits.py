"""Leaderboard watches on the wire: a bounded number per connection, and only of valid days.

Each watched day costs the server process a Redis pub/sub channel; unbounded watches (or a
watch subscribed before its game and date were checked) let one client make thousands.
"""

from __future__ import annotations

import pytest
from waiting import until

from client.library import ServerError, connect
from protocol import messages as m
from server.daily import days
from server.daily.handlers import MAX_LEADERBOARD_WATCHES

GAME = "racing-aces"

# Dates counted from the real clock's today, which must not change under the test.
pytestmark = pytest.mark.daily


def daily_channels(app) -> set[str]:
    return {c for c in app.service.bus.channels if c.startswith("{daily:")}


def past(today: str, back: int) -> str:
    return days.date_of_day(days.day_number(today) - back)


async def test_a_connection_watches_a_bounded_number_of_leaderboards(server):
    async with connect(server.ws_url, name="ada") as ada, connect(server.ws_url, name="bob") as bob:
        today = (await ada.request(m.Daily(game=GAME))).date
        dates = [past(today, back) for back in range(MAX_LEADERBOARD_WATCHES + 1)]
        for date in dates[:-1]:
            board = await ada.request(m.Leaderboard(game=GAME, date=date, watch=True))
            assert board.date == date
        assert len(daily_channels(server)) == MAX_LEADERBOARD_WATCHES
        # One more day is refused, and subscribes nothing.
        with pytest.raises(ServerError) as e:
            await ada.request(m.Leaderboard(game=GAME, date=dates[-1], watch=True))
        assert e.value.code == "too-many-races"
        assert len(daily_channels(server)) == MAX_LEADERBOARD_WATCHES
        # A day already watched may be asked again, and any board read without watching.
        await ada.request(m.Leaderboard(game=GAME, date=dates[0], watch=True))
        await ada.request(m.Leaderboard(game=GAME, watch=True))  # today, watched already
        await ada.request(m.Leaderboard(game=GAME, date=dates[-1]))
        # The limit is per connection: another one watches on its own count.
        await bob.request(m.Leaderboard(game=GAME, date=dates[-1], watch=True))
        assert len(daily_channels(server)) == MAX_LEADERBOARD_WATCHES + 1
        # An unwatch frees a place.
        await ada.request(m.LeaderboardUnwatch(game=GAME, date=dates[1]))
        await ada.request(m.Leaderboard(game=GAME, date=dates[-1], watch=True))
        with pytest.raises(ServerError) as e:
            await ada.request(m.Leaderboard(game=GAME, date=dates[1], watch=True))
        assert e.value.code == "too-many-races"
    # Gone with their connections.
    await until(lambda: not daily_channels(server), what="the watches dropped at the disconnect")


async def test_an_unwatch_without_a_date_stops_every_day_of_the_game(server):
    """Today's board watched before midnight is yesterday's after it: an unwatch without a
    date (today's) left it running, counted in the limit. It stops every day of the game."""
    async with connect(server.ws_url, name="ada") as ada:
        today = (await ada.request(m.Daily(game=GAME))).date
        for back in (0, 1):
            await ada.request(m.Leaderboard(game=GAME, date=past(today, back), watch=True))
        await ada.request(m.Leaderboard(game="fours-up", watch=True))
        assert len(daily_channels(server)) == 3
        await ada.request(m.LeaderboardUnwatch(game=GAME))
        assert daily_channels(server) == {f"{{daily:fours-up:{today}}}:live"}


async def test_a_watch_subscribes_only_once_its_game_and_date_are_checked(server, monkeypatch):
    bus = server.service.bus
    subscribed: list[str] = []
    real = bus.subscribe

    def subscribe(*channels: str) -> None:
        subscribed.extend(channels)
        real(*channels)

    monkeypatch.setattr(bus, "subscribe", subscribe)
    async with connect(server.ws_url, name="eve") as eve:
        today = (await eve.request(m.Daily(game=GAME))).date
        too_old = past(today, 10_000)
        refused = [
            ("chess", None, "unknown-game"),
            (GAME, "2025-02-30", "bad-message"),
            (GAME, "2999-01-01", "daily-not-open"),
            (GAME, too_old, "bad-message"),
            (GAME, "0001-01-01", "bad-message"),
        ]
        for game, date, code in refused:
            with pytest.raises(ServerError) as e:
                await eve.request(m.Leaderboard(game=game, date=date, watch=True))
            assert e.value.code == code, (game, date)
        assert not [c for c in subscribed if c.startswith("{daily:")]
        assert not daily_channels(server)
        # Refusals took no place either: a full set of valid watches still fits.
        for back in range(MAX_LEADERBOARD_WATCHES):
            await eve.request(m.Leaderboard(game=GAME, date=past(today, back), watch=True))
        assert len(daily_channels(server)) == MAX_LEADERBOARD_WATCHES
    r = server.daily.redis
    assert not [k async for k in r.scan_iter(match=f"*{too_old}*")]
    assert not [k async for k in r.scan_iter(match="*0001-01-01*")]
