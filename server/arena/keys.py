"""Redis key layout of the arenas.

Every key of one arena shares the hash tag ``{arena:ID}``, so the whole arena
lives in one Redis Cluster slot and every Lua script below touches one slot.

==============================  ======  ==========================================================
key                             type    contents
==============================  ======  ==========================================================
``{arena:ID}:meta``             hash    the arena (id, game, starts, duration_ms, ends, seats,
                                        berserk, time_limit_s, name), created; after the end
                                        finalized (ms) and entries (count). Permanent.
``{arena:ID}:joined``           set     players joined now (withdrawing removes them)
``{arena:ID}:free``             zset    joined players not in a race → ms since they are free
``{arena:ID}:busy``             hash    player → the arena race they are in
``{arena:ID}:races``            hash    race → JSON {race, players, formed, seq}: formed, not
                                        yet applied
``{arena:ID}:berserk``          hash    ``RACE|PLAYER`` → 1: that player took half the clock
``{arena:ID}:standings``        hash    player → JSON standing (scoring.Standing). Permanent.
``{arena:ID}:board``            zset    player → packed standings score (scoring.pack). Permanent.
``{arena:ID}:results``          hash    race → JSON {race, players, formed, formed_seq, applied,
                                        seq, ranking, points, berserk}: every applied race.
                                        Permanent (the proof of every point).
``{arena:ID}:h:PLAYER``         list    JSON [race, rank, points] of the player's races, oldest
                                        first. Permanent.
``{arena:ID}:last``             hash    player → the last race they played (no immediate rematch)
``{arena:ID}:seq``              string  counter ordering pairings and applies
``{arena:ID}:final``            string  JSON final standings [{rank, standing}...], written once
                                        at finalization. Permanent.
``{arena:ID}:live``             pubsub  JSON {race, seq} after each applied race, {final} once
                                        finalized (channel)
``{arenas}:index``              zset    arena id → start ms (listing; its own slot)
``{arena-player:PID}:podiums``  hash    arena id → JSON podium place (results.Podium) of the
                                        player, written after finalization. Permanent.
==============================  ======  ==========================================================

Transient keys (joined, free, busy, races, berserk, seq, last) are deleted at
finalization. Should it never run (every process down for longer than the arena loop looks
back, base.py ``active``: an arena that started more than a day and an hour ago is never
looked at again), they expire on their own: each script that writes one of them gives it a
TTL of ``WORK_KEEP_MS`` past the arena's end (past now, once the end is behind) in the same
step (scripts.py ``WORK_TTL``), so none expires while the arena runs nor in its grace.
"""

from __future__ import annotations

INDEX = "{arenas}:index"

#: How long an arena's transient keys outlive its end, should its finalization never run: two
#: days, past its grace (the race clock, at most an hour, and the countdown) and past the
#: arena loop's look-back (base.py ``active``), so a finalization that does run still finds them.
WORK_KEEP_MS = 2 * 86_400_000


def tag(arena_id: str) -> str:
    return "{arena:" + arena_id + "}"


def meta(arena_id: str) -> str:
    return tag(arena_id) + ":meta"


def joined(arena_id: str) -> str:
    return tag(arena_id) + ":joined"


def free(arena_id: str) -> str:
    return tag(arena_id) + ":free"


def busy(arena_id: str) -> str:
    return tag(arena_id) + ":busy"


def races(arena_id: str) -> str:
    return tag(arena_id) + ":races"


def berserk(arena_id: str) -> str:
    return tag(arena_id) + ":berserk"


def standings(arena_id: str) -> str:
    return tag(arena_id) + ":standings"


def board(arena_id: str) -> str:
    return tag(arena_id) + ":board"


def results(arena_id: str) -> str:
    return tag(arena_id) + ":results"


def history(arena_id: str, player: str) -> str:
    return tag(arena_id) + ":h:" + player


def last(arena_id: str) -> str:
    return tag(arena_id) + ":last"


def seq(arena_id: str) -> str:
    return tag(arena_id) + ":seq"


def final(arena_id: str) -> str:
    return tag(arena_id) + ":final"


def channel(arena_id: str) -> str:
    return tag(arena_id) + ":live"


def podiums(player: str) -> str:
    """A player's podium places over every arena (their own slot: read with their profile)."""
    return "{arena-player:" + player + "}:podiums"
