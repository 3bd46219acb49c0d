"""Who waits in a public lobby: the decisions about a lobby its people left (no I/O).

A public lobby is listed (`races`) and counts against its creator's address
(`--max-public-lobbies-per-addr`) for as long as someone sits in it: before
this, a lobby whose creator closed the tab stayed there for `--lobby-ttl-s`
(a day), and a stranger who joined it waited for nobody. So a public lobby
is *attended* while one of its seated persons (bots do not count: a bot
waits for people, and leaves once they are gone) has a live connection on
any server process, as the per-player connection counts in Redis say
(server/storage/sessions.py `connected`). An unattended lobby is left out
of the race list at once; once it has been unattended for
`--lobby-away-ms` (the *away grace*) without a break, every seat is given
back and the lobby is left empty (unlisted, counted by nobody). A person
who comes back within the grace finds their seat as they left it.

The clock of each public lobby is a timer in Redis like a race's deadline
(any process's sweeper ticks it, so a process that dies holds nothing):
`step` says, from the presence the tick read and the time the lobby was
first found unattended (its *away mark*, kept in Redis; cleared by every
hello and join of one of its people, which is how a short return that no
tick saw still restarts the grace), what the tick does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from .record import LOBBY, Race, is_bot

#: After a person's last connection on a process closes, the lobby's check is brought forward to
#: this long from then (ms): long enough for the closed connection to leave the counts in Redis
#: (server/net/admission.py writes a close at most BATCH_S, 50 ms, later).
SETTLE_MS = 1000


def watched(race: Race) -> bool:
    """A public lobby someone sits in (quick-match and arena races count down at once; private
    races are not listed and cost each of their players a seat, so they keep their seats)."""
    return race.status == LOBBY and not race.private and not race.quick and bool(race.players)


def people(race: Race) -> list[str]:
    """The seated players whose presence counts: every one but the bots."""
    return [p.player for p in race.players if not is_bot(p.player)]


def unattended(race: Race, connected: Collection[str]) -> bool:
    """A watched lobby none of whose people is connected (a lobby of bots alone too)."""
    return watched(race) and not any(pid in connected for pid in people(race))


def hidden(races: Iterable[Race | None | BaseException], connected: Collection[str]) -> set[str]:
    """The ids of the unattended lobbies among `races` as loaded (the race list leaves them out)."""
    return {r.race for r in races if isinstance(r, Race) and unattended(r, connected)}


@dataclass(frozen=True, slots=True)
class Step:
    """What one tick of a lobby's away clock does."""

    release: bool  # give every seat back now
    mark: bool  # the lobby is unattended: keep (or set) its away mark
    next_at: int | None  # when to look again (None: the lobby is no longer watched)


def step(race: Race, connected: Collection[str], away_since: int | None, now: int, away_ms: int) -> Step:
    """The tick of a lobby's away clock. `away_since`: its away mark (when it was first found
    unattended since someone last came), None if it has none; `connected`: its people who have
    a live connection now. An attended lobby is looked at again `away_ms` from now (a process
    that dies without its connections' close still lets its people's counts lapse, and the
    next look sees it); an unattended one when its grace ends."""
    if not watched(race):
        return Step(release=False, mark=False, next_at=None)
    if not unattended(race, connected):
        return Step(release=False, mark=False, next_at=now + away_ms)
    since = now if away_since is None else away_since
    if now - since >= away_ms:
        return Step(release=True, mark=True, next_at=None)
    return Step(release=False, mark=True, next_at=since + away_ms)


def release(race: Race, expected: Collection[str]) -> Race:
    """Every seat of an unattended lobby given back: the lobby is left empty, with no host.
    `expected`: the players the release was decided for; a lobby that changed its players
    since (a join) or left its lobby is returned unchanged (the next tick decides again)."""
    if not watched(race) or {p.player for p in race.players} != set(expected):
        return race
    r = race.copy()
    r.players = []
    r.host = ""
    return r
