"""Redis key layout of accounts and ratings.

Every operation touches keys of one hash tag only, so each Lua script and
each compare-and-set stays in one Redis Cluster slot:

- a rated race's update touches only its game's ratings, ``{rating:GAME}``;
- an account's record and sessions share ``{acct:PLAYER}``;
- the name index is ``{accounts}:names`` (and ``:reserved`` in the same slot);
- a game's rated quick-match pool is one hash, ``{mm:GAME}:pool``;
- each login bucket is a key of its own.

One game's ratings live in one slot. A rated race ends every few minutes per
handful of players, so even a busy game is a light load for one shard.

==============================  ======  ==============================================================
key                             type    contents
==============================  ======  ==============================================================
``{rating:G}:players``          hash    player → JSON rating record (mu, sigma, races, name, at)
``{rating:G}:ver``              hash    player → version of that record (compare-and-set of updates)
``{rating:G}:board``            zset    player → ordinal (μ − 3σ); established (non-provisional) only
``{rating:G}:hist:P``           list    JSON entries of P's rated races of G, newest first, capped
``{rating:G}:race:R``           string  JSON outcome of rated race R: its "applied" marker; expires
``{rating:G}:pair:A|B``         string  JSON [end time, share] of A's and B's recent rated races of G;
                                        expires after the fairness window
``{mm:G}:pool``                 hash    rated quick-match pool of G: player → JSON (mu, joined, seats,
                                        seen: the last `quick` if later than the join)
``{mm:G}:sessions``             hash    player → login session id of their pool entry, written and taken
                                        out with it by the pool's scripts (``pool``, ``seats``)
``{mm:G}:held:P``               set     ids of the connections that queued for P's pool entry; expires
``{mm:G}:tok:P``                set     the seat claim tokens (``pl:{P}:claims:rquick:G``) of P's pool
                                        entry, one per rated ``quick`` that queued it; expires
``{mm:G}:gone:P``               set     P's connections that let go of a pool entry, ``*`` once P left
                                        the pool (a group taken out and put back heeds them); expires
``{rating:G}:pending``          zset    rated race → ms from which to check it was rated (``pending``)
``{accounts}:names``            hash    lower-cased name → player id
``{accounts}:reserved``         hash    lower-cased name → ms, while its account is being created (a
                                        claim stopped half-way: settled after a while, ``names``)
``{acct:P}``                    hash    name, key (lower-cased), pw (argon2id hash), created, updated,
                                        epoch (revocations: password changes, logout_all), claiming
                                        (ms; until the claim that made it is finished)
``{acct:P}:sessions``           hash    session id → expiry (ms); session id = sha256 of the secret;
                                        expires with its longest-lived session
``{acct:P}:known``              hash    digest of an address group P logged in from → until (ms); expires
``{login:name:KEY}``            string  login bucket ``tokens:at_ms`` of an account name; expires
``{login:addr:GROUP}``          string  login bucket of a client address group (``address_group``: an
                                        IPv4 address, an IPv6 /64); expires
``{login:pw:P:SESSION}``        string  bucket of ``password`` changes (old-password checks) made with
                                        one login session of account P; expires
==============================  ======  ==============================================================
"""

from __future__ import annotations

from ..storage.sessions import address_group

NAMES = "{accounts}:names"
RESERVED = "{accounts}:reserved"


def rating_tag(game: str) -> str:
    return "{rating:" + game + "}"


def players(game: str) -> str:
    return rating_tag(game) + ":players"


def versions(game: str) -> str:
    return rating_tag(game) + ":ver"


def board(game: str) -> str:
    return rating_tag(game) + ":board"


def history(game: str, player: str) -> str:
    return rating_tag(game) + ":hist:" + player


def race(game: str, race_id: str) -> str:
    return rating_tag(game) + ":race:" + race_id


def pair(game: str, pair_id: str) -> str:
    return rating_tag(game) + ":pair:" + pair_id


def account(player: str) -> str:
    return "{acct:" + player + "}"


def sessions(player: str) -> str:
    return "{acct:" + player + "}:sessions"


def known_addresses(player: str) -> str:
    """``{acct:P}:known`` hash: a hash of each address group an account logged in from →
    until when (ms) it is known; such an address is not held back by the name's login bucket."""
    return "{acct:" + player + "}:known"


def login_name(key: str) -> str:
    return "{login:name:" + key + "}"


def claim_address(address: str) -> str:
    """The claims bucket of a client address (its group, as `login_address`)."""
    return "{claim:addr:" + address_group(address) + "}"


def login_address(address: str) -> str:
    """The login bucket of a client address: counted by its group, as every per-address
    limit is (an IPv6 client by its /64, which one host can rotate through)."""
    return "{login:addr:" + address_group(address) + "}"


def password_change(player: str, session: str) -> str:
    """The bucket of ``password`` changes made with one login session (id ``session``) of ``player``."""
    return "{login:pw:" + player + ":" + session + "}"


def pool(game: str) -> str:
    return "{mm:" + game + "}:pool"


def pool_sessions(game: str) -> str:
    """``{mm:G}:sessions`` hash: player → login session id of their pool entry (``seats``)."""
    return "{mm:" + game + "}:sessions"


def held(game: str, player: str) -> str:
    """``{mm:G}:held:P`` set: the connections (random ids) that queued for P's pool entry (``pool``)."""
    return "{mm:" + game + "}:held:" + player


def gone(game: str, player: str) -> str:
    """``{mm:G}:gone:P`` set: P's connections (``held``) that let go of their pool entry, and ``*``
    once P left the pool (scripts.RESTORE puts back only what they left)."""
    return "{mm:" + game + "}:gone:" + player


def claim_tokens(game: str, player: str) -> str:
    """``{mm:G}:tok:P`` set: the tokens of the requests that claimed the seat of P's pool entry
    (storage/seats.lua): whatever takes the entry out gives back only those claims."""
    return "{mm:" + game + "}:tok:" + player


def pending(game: str) -> str:
    """``{rating:G}:pending`` zset: rated race → when to check that it was rated (``pending``)."""
    return rating_tag(game) + ":pending"
