"""Redis key layout of the daily challenges.

Every key of one daily (one game, one UTC day) shares the hash tag
``{daily:GAME:DATE}``, so the whole day lives in one Redis Cluster slot and
each Lua script below touches a single slot.

=================================  ======  =====================================================
key                                type    contents
=================================  ======  =====================================================
``{daily}:secret``                 string  the server secret (64 hex), created once with SET NX
``{daily:G:D}:meta``               hash    game, date, opens, closes, commitment, total,
                                           time_limit_s; after the close also seed, finalized
                                           (ms), entries (count). Permanent.
``{daily:G:D}:attempts``           hash    player → ``race:ID`` (the one attempt) or
                                           ``pending:TOKEN:MS`` while its race is created.
                                           Expires a week after the close.
``{daily:G:D}:board``              zset    player → packed ranking score (protocol/ranking.py). Permanent.
``{daily:G:D}:entries``            hash    player → JSON entry (name, race, result, starts_at,
                                           recorded). Permanent.
``{daily:G:D}:moves``              hash    player → JSON ``[[move, at], …]`` of every attempt;
                                           expires a week after the close.
``{daily:G:D}:replays``            hash    the same for the top ``replay_top`` entries, copied
                                           at finalization. Permanent, public after the close.
``{daily:G:D}:certified``          string  JSON ``{k, line}``: the first candidate seed k the solver
                                           proved winnable (deals.py), found ahead of the day by
                                           the solver worker (server/certify). Expires after a week.
``{daily:G:D}:pick``               string  JSON ``{k, line}``: the candidate the day deals, pinned
                                           (SET NX) by the day's first deal; line nil for an
                                           ordinary deal. Permanent.
``{daily:G:D}:live``               pubsub  leaderboard updates (channel, not a key)
``{dailyrace:RACE}``               string  ``GAME|DATE|PLAYER``: marks a race as a daily attempt
                                           (secrecy checks); expires a week after the close
``{dailyp:PLAYER}:GAME``           hash    date → JSON summary of that day's result (history).
                                           Permanent.
=================================  ======  =====================================================
"""

from __future__ import annotations

SECRET = "{daily}:secret"


def tag(game: str, date: str) -> str:
    return "{daily:" + game + ":" + date + "}"


def meta(game: str, date: str) -> str:
    return tag(game, date) + ":meta"


def attempts(game: str, date: str) -> str:
    return tag(game, date) + ":attempts"


def board(game: str, date: str) -> str:
    return tag(game, date) + ":board"


def entries(game: str, date: str) -> str:
    return tag(game, date) + ":entries"


def moves(game: str, date: str) -> str:
    return tag(game, date) + ":moves"


def replays(game: str, date: str) -> str:
    return tag(game, date) + ":replays"


def channel(game: str, date: str) -> str:
    return tag(game, date) + ":live"


def channel_prefix(game: str) -> str:
    """What every day's `channel` of ``game`` starts with."""
    return "{daily:" + game + ":"


def race(race_id: str) -> str:
    return "{dailyrace:" + race_id + "}"


def history(player: str, game: str) -> str:
    return "{dailyp:" + player + "}:" + game


def certified(game: str, date: str) -> str:
    return tag(game, date) + ":certified"


def pick(game: str, date: str) -> str:
    return tag(game, date) + ":pick"
