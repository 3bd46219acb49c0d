"""What the clock does to a race, as data: the start and the end (docs/protocol.md §3).

`due` (races.py) says which; `start` and `end` here compute the new race, the
events it publishes, in version order (old version + 1, + 2, ...), the
player records to write and the next timer. The clock handler
(server/handlers/clock.py) commits it compare-and-set and schedules the timer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol import messages as m
from protocol import rules
from protocol.messages import PlayerStatus

from . import races as R
from .berserk import time_out
from .frames import progress


@dataclass(slots=True)
class Transition:
    race: R.Race  # the new state, its version set
    events: list[bytes]  # frames published, the last one at race.ver
    players: dict[str, dict[str, object]] = field(default_factory=dict)  # player hash fields to write
    live: int | None = None  # players playing, when it is set (the start)
    timer: int | None = None  # when the clock must look at the race next (None: never)
    deal: rules.Game | None = None  # the dealt game (the start: every player's first position)


def start(race: R.Race) -> Transition:
    """countdown -> running: every player gets the same deal, from move 0."""
    dealt = rules.deal(race.game, race.seed)
    new = R.begin(race, dealt.cards_home)
    new.ver = race.ver + 1
    fields: dict[str, object] = {
        "n": 0,
        "home": dealt.cards_home,
        "status": PlayerStatus.PLAYING,
        "at": new.starts_at,
        "last": "",
        "rev": "",
        "mt": new.starts_at,
    }
    players: dict[str, dict[str, object]] = {}
    for p in new.players:
        # A berserk player's own deadline: the move script refuses their moves after it.
        own = R.own_deadline(new, p) if p.berserk else None
        players[p.player] = fields if own is None else {**fields, "dl": own}
    return Transition(
        race=new,
        events=[m.encode(m.RaceSnapshot(**R.snapshot(new)))],
        players=players,
        live=len(new.players),
        timer=R.next_timer(new),
        deal=dealt,
    )


def stop_out_of_time(race: R.Race, now: int) -> Transition:
    """running, still running: the berserk players whose half clock ran out are stopped
    (a progress event each, status timeout); the others play on."""
    new = time_out(race, now)
    before = {p.player: p.status for p in race.players}
    stopped = [p for p in new.players if before[p.player] != p.status]
    events = [
        progress(race.race, race.ver + i + 1, p.player, p.n, p.home, race.total, p.status, p.at or now)
        for i, p in enumerate(stopped)
    ]
    new.ver = race.ver + len(events)
    return Transition(
        race=new,
        events=events,
        players={p.player: {"status": p.status, "at": p.at} for p in stopped},
        live=sum(1 for p in new.players if p.status == PlayerStatus.PLAYING),
        timer=R.next_timer(new),
    )


def end(race: R.Race, now: int, logs: dict[str, list[tuple[int, int, str]]]) -> Transition:
    """running -> finished: each player stopped by the clock gets a progress event
    (status timeout), then the `end` with the ranking; `logs` are the move logs
    as (at, home, move), oldest first."""
    new = R.end(
        race,
        now,
        {pid: [(at, home) for at, home, _mv in rows] for pid, rows in logs.items()},
        rules.deal(race.game, race.seed).cards_home,
    )
    before = {p.player: p.status for p in race.players}
    stopped = [p for p in new.players if before[p.player] != p.status]
    events = [
        progress(race.race, race.ver + i + 1, p.player, p.n, p.home, race.total, p.status, p.at or now)
        for i, p in enumerate(stopped)
    ]
    new.ver = race.ver + len(events) + 1
    seed = None if new.sealed else new.seed
    ranking = [m.RankEntry(**e) for e in new.ranking or []]
    proof, par = R.published_proof(new)
    events.append(
        m.encode(m.End(race=race.race, ver=new.ver, seed=seed, ranking=ranking, proof=proof, par=par))
    )
    return Transition(
        race=new,
        events=events,
        players={p.player: {"status": p.status, "at": p.at} for p in stopped},
    )
