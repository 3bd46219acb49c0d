"""The Redis key layout of races, sessions and the quick-match queues.

Every key of one race carries the hash tag ``{race:ID}`` so a race lives in one
Redis Cluster slot and each script touches one slot. Keys outside races live
on their own and are never touched by the move script.

=================================  ======  ==============================================
key                                type    contents
=================================  ======  ==============================================
``{race:ID}``                      hash    race record: game total seats time_limit_s
                                           private host created seed commitment
                                           rules_version deal_version quick status ver
                                           starts_at deadline ended live spectators
                                           rated arena (the pairing arena's id, or "")
                                           listed_from (a rematch: unlisted before, ms)
                                           players (JSON seats: player, name, ready)
                                           ranking (JSON, once finished)
``{race:ID}:p:PID``                hash    a player's game (from the start): n home
                                           status at last (last move) rev (its revealed
                                           cards) mt (its time); pos (compact position,
                                           see encode_position) is a snapshot at move
                                           count pn, stored at the deal and every
                                           SNAPSHOT_EVERY moves (no pn: stored before
                                           snapshots, pos is at n; the next move
                                           stores a snapshot)
``{race:ID}:log:PID``              list    move log, one "AT HOME MOVE" per move: the
                                           truth of the game (pos + the log after pn)
``{race:ID}:ev``                   stream  public race events, id ``VER-0``, field m =
                                           the msgpack frame as sent; MAXLEN ~
``{race:ID}:away``                 string  when (ms) the public lobby was first found with
                                           none of its people connected (core/presence.py);
                                           deleted by their hello or join; TTL the lobby's
``{race:ID}:void``                 string  "1": the race was found not stored after its
                                           creation failed (a matched group's, seating.py;
                                           a `create`'s; a lost arena pairing's) and given
                                           up: its create commit is refused (commit.lua);
                                           TTL VOID_TTL_MS (race_records.py)
``{race:ID}:void:joins``           set     tokens of the joins of the race found failed
                                           (lobby.py `taking_seat`: the player not seated,
                                           their seat given back): their commits are refused
                                           (commit.lua); TTL the race's, VOID_TTL_MS at least
``sess:SHA256(token)``             string  player id (+ " fresh" until the first seat); TTL
                                           FRESH_SESSION_TTL, then SESSION_TTL
``lim:sess:ADDR``                  string  sessions created from ADDR this minute
``lim:lobbies:ADDR``               zset    race id -> when noted (ms): public lobbies
                                           created from ADDR (some maybe started or
                                           gone since); TTL lobby_ttl_s from the last
``conns:{ADDR}``                   hash    open connections from ADDR (or "player PID"):
                                           PROC -> count, PROC:t -> expiry (ms)
``pl:{PID}``                       hash    name, sess (its session key), seated; TTL as the session
``pl:{PID}:races``                 set     race ids where the player holds a seat (and the
                                           seats reserved below; a quick entry's is quick:G:S)
``pl:{PID}:seating``               zset    reserved seat -> deadline (ms): a create or join in
                                           progress, a quick entry waiting (seats.lua)
``pl:{PID}:claims:HOLD``           set     tokens of the requests that claimed a queue
                                           entry's seat HOLD (quick:G:S, rquick:G): it
                                           goes with the last claim (seats.lua `drop`);
                                           the entry carries its tokens (quick:G:S's in
                                           ``{quick:G:S}:tok:PID``, rquick:G's in the
                                           rated pool's ``{mm:G}:tok:PID``, ratings/keys.py)
``pl:{PID}:bots``                  zset    "RACE BOT" -> when asked (ms): bots the player asked
                                           for with `bot` (handlers/bots.py counts those not in a
                                           started race); TTL 70 s + the bot wait, from the last
``pl:{PID}:recent``                zset    race id -> end time (ms): the player's latest
                                           finished races, at most RECENT_CAP (recent.py)
``pl:{PID}:recent:e``              hash    race id -> the race's entry (JSON), and
                                           race id + ":r" -> its rating change, once rated;
                                           both keys: the TTL of recent.py, renewed at hello
``quick:GAME:SEATS``               list    quick-match queue (player ids)
``{quick:GAME:SEATS}:held:PID``    set     ids of the connections that queued PID (its
                                           holders); same slot as the queue, same TTL
``{quick:GAME:SEATS}:tok:PID``     set     the seat claim tokens of PID's entry (one per
                                           `quick` that queued it); same slot, same TTL
``{quick:GAME:SEATS}:gone:PID``    set     PID's connections that let go of an entry, ``*``
                                           once PID unqueued (quick.lua); same slot, same TTL
``{quick:GAME:SEATS}:live``        hash    server process -> until when (ms) the entries its
                                           connections hold count as alive (quick.lua); same
                                           slot; TTL the marks' lifetime + the drop time
``races:timers``                   zset    race id -> next time the race must be looked
                                           at (starts_at in countdown, deadline running,
                                           a public lobby's away check in its lobby); a
                                           gone race's member goes when it comes due
``races:public``                   zset    race id -> created, public unfinished races;
                                           a gone race's member is dropped by a read, its
                                           timer's tick, or the leftovers sweep
                                           (handlers/leftovers.py)
``race:ID`` (pub/sub channel)              the race's events, as published frames
``player:PID`` (pub/sub channel)           notices for one player (quick-match seat)
=================================  ======  ==============================================

Lifetimes: a lobby expires after ``lobby_ttl_s`` without change; a started
race lives until its deadline plus a day; a finished race (seed, logs,
ranking) for ``finished_ttl_s``.
"""

from __future__ import annotations

import hashlib
import secrets

# --- keys --------------------------------------------------------------------------------


def race_key(rid: str) -> str:
    return "{race:" + rid + "}"


def stream_key(rid: str) -> str:
    return "{race:" + rid + "}:ev"


def player_key(rid: str, pid: str) -> str:
    return "{race:" + rid + "}:p:" + pid


def log_key(rid: str, pid: str) -> str:
    return "{race:" + rid + "}:log:" + pid


def away_key(rid: str) -> str:
    """``{race:ID}:away``: when the public lobby was first found unattended (core/presence.py)."""
    return "{race:" + rid + "}:away"


def void_key(rid: str) -> str:
    """``{race:ID}:void``: the race was given up unstored; its create commit is refused."""
    return "{race:" + rid + "}:void"


def void_joins_key(rid: str) -> str:
    """``{race:ID}:void:joins``: the join attempts given up as failed; their commits are refused."""
    return "{race:" + rid + "}:void:joins"


def race_channel(rid: str) -> str:
    return "race:" + rid


def player_channel(pid: str) -> str:
    return "player:" + pid


def session_key(token: str) -> str:
    return "sess:" + hashlib.sha256(token.encode()).hexdigest()


def profile_key(pid: str) -> str:
    return "pl:{" + pid + "}"


def seats_key(pid: str) -> str:
    return "pl:{" + pid + "}:races"


def recent_key(pid: str) -> str:
    """``pl:{PID}:recent`` zset: race id -> end time, the player's latest races (storage/recent.py)."""
    return "pl:{" + pid + "}:recent"


def recent_entries_key(pid: str) -> str:
    """``pl:{PID}:recent:e`` hash: the entries of ``recent_key``'s races (same slot)."""
    return "pl:{" + pid + "}:recent:e"


def quick_key(game: str, seats: int) -> str:
    return f"quick:{game}:{seats}"


def quick_holders_prefix(game: str, seats: int) -> str:
    """The holder sets of one queue: ``quick_holders`` without the player. The hash tag is the
    whole (untagged) queue key, so that both hash to one cluster slot."""
    return "{" + quick_key(game, seats) + "}:held:"


def quick_holders(game: str, seats: int, pid: str) -> str:
    """``{quick:GAME:SEATS}:held:PID`` set: the connections (Session ``conn_id``) holding PID's entry."""
    return quick_holders_prefix(game, seats) + pid


def quick_tokens_prefix(game: str, seats: int) -> str:
    """The token sets of one queue (``quick_tokens`` without the player), in the queue's slot."""
    return "{" + quick_key(game, seats) + "}:tok:"


def quick_tokens(game: str, seats: int, pid: str) -> str:
    """``{quick:GAME:SEATS}:tok:PID`` set: the seat claims (seats.lua) carried by PID's entry."""
    return quick_tokens_prefix(game, seats) + pid


def quick_marks(game: str, seats: int) -> str:
    """``{quick:GAME:SEATS}:live`` hash: each server process holding entries of the queue ->
    until when (ms, Redis clock) they count as alive (quick.lua), in the queue's slot."""
    return "{" + quick_key(game, seats) + "}:live"


def quick_gone_prefix(game: str, seats: int) -> str:
    """The gone sets of one queue (``quick_gone`` without the player), in the queue's slot."""
    return "{" + quick_key(game, seats) + "}:gone:"


def quick_gone(game: str, seats: int, pid: str) -> str:
    """``{quick:GAME:SEATS}:gone:PID`` set: PID's connections that let go of their entry, and
    ``*`` once PID unqueued since their entry was last taken out of the queue (quick.lua: a
    group taken out and put back heeds them)."""
    return quick_gone_prefix(game, seats) + pid


TIMERS = "races:timers"
PUBLIC = "races:public"


def new_race_id() -> str:
    return "r" + secrets.token_hex(8)


def new_player_id() -> str:
    return "p" + secrets.token_hex(8)


def valid_race_id(rid: str) -> bool:
    """Race ids are ours ("r" + 16 hex); anything else is unknown (keeps keys clean)."""
    return len(rid) == 17 and rid[0] == "r" and all(c in "0123456789abcdef" for c in rid[1:])
