"""The daily challenge on the wire: request handlers and race-server hooks.

``install(service, daily)`` plugs the daily challenge into a running race
service (server/service.py) without the race code knowing about dailies:

- handlers for ``daily``, ``daily_start``, ``leaderboard`` (with ``watch``),
  ``leaderboard_unwatch``, ``history`` and ``daily_replay``
  (docs/protocol.md §5);
- ``daily_start`` creates the attempt's race through the service: a private
  one-seat race with the daily seed, *sealed* (its seed never appears in its
  snapshots or its ``end``; the daily's seed is published by ``daily`` after
  the close), which counts down at once;
- the end of a race is reported to ``Daily.record`` when the race is a daily
  attempt (the service's ``end_hooks``);
- ``spectate`` and ``replay`` of an attempt's race are refused with
  ``daily-open`` until the day closes (``spectate_guard``, ``replay_guard``);
- live leaderboard updates come over the service's pub/sub bus
  (``bus_hooks``) and go to every local connection watching that day. Each
  watched day costs this process a pub/sub channel: a connection watches at
  most ``MAX_LEADERBOARD_WATCHES`` days at once (one more is refused with
  ``too-many-races``, like ``spectate`` beyond its limit), and only a day the
  request names validly (a known game, a day served) is ever subscribed.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus
from protocol.ranking import Result
from protocol.rules import GAMES

from ..tasks import sweep_every
from . import keys as daily_keys
from .service import Attempt, Daily, DailyDeal, DailyError

if TYPE_CHECKING:  # pragma: no cover
    from server.core.record import Race
    from server.core.session import Session as Conn
    from server.service import Service

log = logging.getLogger("solrace.daily")

#: How often each process finalizes the closed days nobody asked about since (s), and how
#: many days back it looks (the moves that make a day's replays are kept a week after it).
FINALIZE_SWEEP_S = 300.0
FINALIZE_LOOKBACK_DAYS = 6

#: Most leaderboards (game and day) one connection watches at once: every game's
#: board of today and of yesterday (around midnight) fit.
MAX_LEADERBOARD_WATCHES = 8

_ENTRY_FIELDS = (
    "rank",
    "player",
    "name",
    "status",
    "won",
    "home",
    "total",
    "moves",
    "time_ms",
    "home_at_ms",
    "race",
    "last_move_ms",
)


def _entry(e: dict[str, Any]) -> m.DailyEntry:
    fields: dict[str, Any] = {k: e.get(k) for k in _ENTRY_FIELDS}
    return m.DailyEntry(**fields, account=bool(e.get("account")))


def _maybe_entry(e: dict[str, Any] | None) -> m.DailyEntry | None:
    return None if e is None else _entry(e)


class DailyHandlers:
    def __init__(self, service: Service, daily: Daily) -> None:
        self.service = service
        self.daily = daily
        # channel -> local connections watching that day's board
        self.watchers: dict[str, set[Conn]] = {}
        # connection -> the channels it watches (at most MAX_LEADERBOARD_WATCHES)
        self.watching: dict[Conn, set[str]] = {}

    def install(self) -> None:
        s = self.service
        s.handlers.update(
            {
                m.Daily: self.info,
                m.DailyStart: self.start,
                m.Leaderboard: self.leaderboard,
                m.LeaderboardUnwatch: self.unwatch,
                m.History: self.history,
                m.DailyReplay: self.replay,
            }
        )
        s.spectate_guard = self.guard
        s.replay_guard = self.guard
        s.end_hooks.append(self.on_end)
        self.daily.before_finalize = self.record_unrecorded
        s.disconnect_hooks.append(self.on_disconnect)
        s.bus_hooks[b"{daily:"] = self.on_bus
        s.spawn(self.finalizer())

    async def finalizer(self) -> None:
        """Every FINALIZE_SWEEP_S: the closed days past their grace that no request made final
        (Daily.finalize_closed; every process does it, the finalization is idempotent)."""

        async def finalize() -> None:
            for game, date in await self.daily.finalize_closed(FINALIZE_LOOKBACK_DAYS):
                log.info("daily %s %s: made final by the sweep", game, date)

        await sweep_every(self.service, FINALIZE_SWEEP_S, finalize, "the daily finalization sweep failed")

    # --- errors ------------------------------------------------------------------

    @staticmethod
    def _race_error(exc: DailyError) -> Exception:
        from server.core.races import RaceError

        if exc.code == "bad-date":
            return RaceError(ErrorCode.BAD_MESSAGE, exc.message, field="date")
        return RaceError(ErrorCode(exc.code), exc.message)

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except DailyError as exc:
            raise self._race_error(exc) from None

    async def _by_account_names(self, *entries: dict[str, Any] | None) -> None:
        """Entries keep the name their player raced under: a guest who has claimed an
        account since is shown by the account's name, and marked an account (read now, in
        place); a guest named like an account is not marked."""
        named = await self.service.store.account_names(e["player"] for e in entries if e is not None)
        for e in entries:
            if e is not None and e["player"] in named:
                e["name"], e["account"] = named[e["player"]], True

    # --- requests ----------------------------------------------------------------

    async def _repair(self, game: str, date: str, pid: str) -> tuple[str | None, dict[str, Any] | None]:
        """The player's attempt race and entry; records a finished attempt whose end
        was never recorded (the process that ended it died in between)."""
        race_id = await self.daily.attempt(game, pid, date)
        if race_id is None:
            return None, None
        return race_id, await self._recorded(game, date, pid, race_id)

    async def _recorded(self, game: str, date: str, pid: str, race_id: str) -> dict[str, Any] | None:
        """The attempt's entry; recorded first if its race is over and it was not."""
        entry = await self.daily.entry(game, date, pid)
        if entry is None:
            _now, race = await self.service.store.load_race(race_id)
            if race is not None and race.status == RaceStatus.FINISHED:
                await self.on_end(race, await self.service.store.move_logs(race))
                entry = await self.daily.entry(game, date, pid)
        return entry

    async def record_unrecorded(self, game: str, date: str) -> None:
        """Before the day is final: every finished attempt whose end was not recorded (an end
        hook that failed, a process that died) is recorded now; once final, it never could be."""
        for pid, race_id in (await self.daily.attempts_of(game, date)).items():
            await self._recorded(game, date, pid, race_id)

    async def info(self, conn: Conn, msg: m.Daily) -> m.DailyInfo:
        info = await self._call(self.daily.info(msg.game, msg.date))
        you = None
        race, entry = await self._repair(msg.game, info["date"], conn.player)
        await self._by_account_names(entry)
        if race is not None:
            you = m.DailyYou(race=race, status="done" if entry else "playing", entry=_maybe_entry(entry))
        return m.DailyInfo(rid=msg.rid, you=you, **info)

    async def start(self, conn: Conn, msg: m.DailyStart) -> m.RaceSnapshot:
        pid = conn.pid
        assert pid is not None
        if msg.game in GAMES:
            await self._repair(msg.game, self.daily.today(), pid)

        async def create(deal: DailyDeal, player: str, time_limit_s: int) -> str:
            race = await self.service.lobby.create_solo(
                conn,
                deal.game,
                deal.seed,
                time_limit_s,
                sealed=True,
                proof=deal.proof if deal.certified else None,
            )
            return race.race

        async def discard(race: str) -> None:
            await self.service.lobby.abandon_solo(race, pid)

        lobby = self.service.lobby
        att = await self._call(self.daily.start(msg.game, pid, create, discard))
        await self._discard_orphans(pid, att)
        # Bound: count it down (a resumed attempt already does, unless the process that made
        # it stopped before this step). Its clock is cut first to what is left of the day: an
        # attempt resumed hours after it was made must still end by the close.
        await self._call(self._cut_clock(att.race, att.date))
        await lobby.start_solo(att.race, pid)
        return await lobby.attach(conn, msg, att.race)

    async def _discard_orphans(self, pid: str, att: Attempt) -> None:
        """Take the player out of their races made for this attempt that did not become it:
        sealed lobbies marked as their attempt of the same game and day, but not its race. A
        start leaves one behind only when Redis failed through its bind and every try to
        give its claim back (``Daily._unbind``): the race then held the player's seat, in a
        lobby they cannot leave, until it expired. Best effort: a failure is logged, and the
        next start tries again. The races are read only when the player holds a seat besides
        the attempt's: an orphan holds one, and taking it back is all this does."""
        try:
            if not await self.service.store.seat_ids(pid) - {att.race}:
                return
            rids = [rid for rid in await self.service.store.player_races(pid) if rid != att.race]
            if not rids:
                return
            races = await self.service.store.load_races(rids)
            for rid, race in zip(rids, races, strict=True):
                if isinstance(race, BaseException) or race is None:
                    continue
                if not race.sealed or race.status != RaceStatus.LOBBY:
                    continue
                if await self.daily.race_daily(rid) == (att.game, att.date, pid):
                    log.info("daily %s %s: discarding %s's orphan race %s", att.game, att.date, pid, rid)
                    await self.service.lobby.abandon_solo(rid, pid)
        except Exception as exc:
            self.service.failed(f"could not discard {pid}'s orphan daily races", exc)

    async def _cut_clock(self, race_id: str, date: str) -> None:
        """Cut the clock of an attempt's race still in its lobby so that, counted down now,
        its deadline is at most the day's close (``Daily.attempt_limit``, on the Redis clock
        of the race); ``daily-closing`` if too little is left (it then never starts)."""

        def cut(race: Race, now: int) -> Race:
            if race.status != RaceStatus.LOBBY:
                return race
            limit = self.daily.attempt_limit(date, race.time_limit_s, now)
            if limit == race.time_limit_s:
                return race
            race = race.copy()
            race.time_limit_s = limit
            return race

        await self.service.lobby.mutate(race_id, cut)

    async def leaderboard(self, conn: Conn, msg: m.Leaderboard) -> m.LeaderboardData:
        # A watcher subscribes before the board is read: an entry recorded meanwhile is then
        # in the board or in an update (subscribing after the read could miss it for good).
        # Only once the game and date are checked (that writes nothing), and within the limit.
        channel = None
        watched = False
        if msg.watch:
            date = await self._call(self.daily.checked_date(msg.game, msg.date))
            channel = self.daily.channel(msg.game, date)
            watched = channel in self.watching.get(conn, ())
            if not watched:
                self._check_watch_limit(conn)  # no await between the check and the add
            self._add_watch(conn, channel)
        try:
            board = await self._call(
                self.daily.leaderboard(
                    msg.game,
                    msg.date,
                    conn.pid,
                    10 if msg.top is None else msg.top,
                    3 if msg.around is None else msg.around,
                )
            )
        except Exception:
            if channel is not None and not watched:
                self._drop_watch(conn, channel)
            raise
        await self._by_account_names(*board["top"], *board["around"], board["me"])
        if channel is not None and channel != self.daily.channel(msg.game, board["date"]):
            self._drop_watch(conn, channel)  # the day turned meanwhile: watch the day read
            self._add_watch(conn, self.daily.channel(msg.game, board["date"]))
        return m.LeaderboardData(
            rid=msg.rid,
            game=board["game"],
            date=board["date"],
            status=board["status"],
            final=board["final"],
            count=board["count"],
            top=[_entry(e) for e in board["top"]],
            around=[_entry(e) for e in board["around"]],
            me=_maybe_entry(board["me"]),
        )

    async def unwatch(self, conn: Conn, msg: m.LeaderboardUnwatch) -> m.Ok:
        if msg.date:
            self._drop_watch(conn, self.daily.channel(msg.game, msg.date))
        else:
            # Every day of the game this connection watches: "today" may have changed at
            # midnight since the watch began (yesterday's then went on, counted in the limit).
            prefix = daily_keys.channel_prefix(msg.game)
            for channel in [c for c in self.watching.get(conn, ()) if c.startswith(prefix)]:
                self._drop_watch(conn, channel)
        return m.Ok(rid=msg.rid)

    def _check_watch_limit(self, conn: Conn) -> None:
        from server.core.races import RaceError

        if len(self.watching.get(conn, ())) >= MAX_LEADERBOARD_WATCHES:
            raise RaceError(
                ErrorCode.TOO_MANY_RACES,
                f"this connection already watches {MAX_LEADERBOARD_WATCHES} leaderboards: "
                "leaderboard_unwatch one first",
            )

    def _add_watch(self, conn: Conn, channel: str) -> None:
        conns = self.watchers.setdefault(channel, set())
        if not conns:
            self.service.bus.subscribe(channel)
        conns.add(conn)
        self.watching.setdefault(conn, set()).add(channel)

    def _drop_watch(self, conn: Conn, channel: str) -> None:
        mine = self.watching.get(conn)
        if mine is not None:
            mine.discard(channel)
            if not mine:
                del self.watching[conn]
        conns = self.watchers.get(channel)
        if conns is None:
            return
        conns.discard(conn)
        if not conns:
            del self.watchers[channel]
            self.service.bus.unsubscribe(channel)

    async def on_disconnect(self, conn: Conn) -> None:
        for channel in list(self.watching.get(conn, ())):
            self._drop_watch(conn, channel)

    async def history(self, conn: Conn, msg: m.History) -> m.HistoryData:
        h = await self._call(
            self.daily.history(msg.player or conn.player, msg.game, 30 if msg.days is None else msg.days)
        )
        days = [m.HistoryDay(**{k: d.get(k) for k in m.HistoryDay.__struct_fields__}) for d in h.pop("days")]
        return m.HistoryData(rid=msg.rid, days=days, **h)

    async def replay(self, conn: Conn, msg: m.DailyReplay) -> m.DailyReplayData:
        doc = await self._call(self.daily.replay(msg.game, msg.date, msg.player))
        await self._by_account_names(*doc["ranking"], *doc["players"])
        return m.DailyReplayData(
            rid=msg.rid,
            game=doc["game"],
            date=doc["date"],
            rules_version=doc["rules_version"],
            deal_version=doc["deal_version"],
            seed=doc["seed"],
            commitment=doc["commitment"],
            total=doc["total"],
            ranking=[m.RankEntry(**e) for e in doc["ranking"]],
            players=[
                m.DailyReplayPlayer(
                    player=p["player"],
                    name=p["name"],
                    starts_at=p["starts_at"],
                    race=p["race"],
                    moves=[(mv, at) for mv, at in p["moves"]],
                    account=bool(p.get("account")),
                    ended_ms=p.get("ended_ms"),
                )
                for p in doc["players"]
            ],
        )

    # --- hooks -----------------------------------------------------------------------

    async def guard(self, conn: Conn, race: Any) -> None:
        """spectate/replay of a daily attempt's race: refused while its day is open."""
        await self._call(self.daily.check_public(race.race, bool(race.sealed)))

    async def on_end(self, race: Any, logs: dict[str, list[tuple[int, int, str]]]) -> None:
        """A race ended: if it is a daily attempt, record its result (idempotent)."""
        found = await self.daily.race_daily(race.race)
        if found is None:
            return
        game, date, player = found
        row = next((r for r in race.ranking or [] if r["player"] == player), None)
        if row is None:
            log.error("daily race %s ended without a ranking row for %s", race.race, player)
            return
        result = Result(
            status=row["status"],
            won=row["won"],
            home=row["home"],
            total=race.total,
            moves=row["moves"],
            time_ms=row["time_ms"],
            home_at_ms=row["home_at_ms"],
            last_move_ms=row.get("last_move_ms"),
        )
        moves = [[mv, at] for at, _home, mv in logs.get(player, [])]
        named = await self.service.store.account_names([player])  # claimed during the attempt
        name = named.get(player, row["name"])
        seat = next((p for p in race.players if p.player == player), None)
        # The end of the attempt's game (its last status change): a timeout's ranking row lacks it.
        ended_ms = (
            None if seat is None or seat.at is None or race.starts_at is None else seat.at - race.starts_at
        )
        await self.daily.record(
            game,
            date,
            player,
            name,
            race.race,
            result,
            moves,
            race.starts_at,
            account=player in named,
            ended_ms=ended_ms,
        )

    def on_bus(self, channel: bytes, data: bytes) -> None:
        """A live leaderboard update (JSON from Daily.record) → watchers of that day."""
        conns = self.watchers.get(channel.decode())
        if not conns:
            return
        try:
            u = json.loads(data)
            frame = m.encode(
                m.LeaderboardUpdate(
                    game=u["game"], date=u["date"], entry=_entry(u["entry"]), count=u["count"]
                )
            )
        except Exception:
            log.warning("bad leaderboard update on %r", channel, exc_info=True)
            return
        for c in list(conns):
            c.send(frame)


def install(service: Service, daily: Daily) -> DailyHandlers:
    h = DailyHandlers(service, daily)
    h.install()
    return h


__all__ = ["DailyHandlers", "install"]
