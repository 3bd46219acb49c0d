"""The `race_list` reply (docs/protocol.md §4): which indexed races show, which leave the index."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from .race_views import summary
from .record import FINISHED, LOBBY, Race


def race_list(
    ids: Sequence[str],
    loaded: Sequence[Race | None | BaseException],
    game: str | None,
    most: int,
    unattended: Collection[str] = (),
    now: int = 0,
) -> tuple[list[dict[str, Any]], list[str]]:
    """(the entries shown, the ids to drop from the public index) from the indexed
    races, newest first, as loaded (a race, None when gone, or the error of its read).

    Shown: public races not finished, of `game` if given, at most `most`, but neither the
    `unattended` lobbies (none of their people connected: core/presence.py) nor the lobbies
    listed only from a time later than `now` (a fresh rematch); both stay indexed.
    Dropped: races gone or finished, and lobbies everybody left (seen before the list
    filled up). A race whose read failed is neither.
    """
    shown: list[dict[str, Any]] = []
    stale: list[str] = []
    for rid, race in zip(ids, loaded, strict=True):
        if isinstance(race, BaseException):
            continue
        if race is None or race.status == FINISHED or (race.status == LOBBY and not race.players):
            stale.append(rid)
            continue
        if race.private or rid in unattended or (game is not None and race.game != game):
            continue
        if race.status == LOBBY and now < race.listed_from:
            continue
        shown.append(summary(race))
        if len(shown) >= most:
            break
    return shown, stale
