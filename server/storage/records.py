"""A race record as stored: the hash fields a commit writes, and the LOAD script's reply decoded."""

from __future__ import annotations

import json
from typing import Any

from ..core import races as R


def text_or_none(v: bytes | None) -> str | None:
    return v.decode() if v is not None else None


def int_or_none(v: bytes | None) -> int | None:
    return int(v) if v not in (None, b"") else None


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[0::2], flat[1::2]))


def _seat(p: R.Player) -> dict[str, Any]:
    seat: dict[str, Any] = {"player": p.player, "name": p.name, "ready": p.ready}
    if p.session:  # rated races only
        seat["session"] = p.session
    if p.berserk:  # arena races only
        seat["berserk"] = True
    if p.account:
        seat["account"] = True
    return seat


def race_fields(r: R.Race) -> dict[str, Any]:
    """The race hash fields a commit writes (never `live`/`spectators`: scripts count those)."""
    return {
        "race": r.race,
        "game": r.game,
        "total": r.total,
        "seats": r.seats,
        "time_limit_s": r.time_limit_s,
        "private": int(r.private),
        "host": r.host,
        "created": r.created,
        "seed": r.seed,
        "commitment": r.commitment,
        "rules_version": r.rules_version,
        "deal_version": r.deal_version,
        "quick": int(r.quick),
        "sealed": int(r.sealed),
        "invite": r.invite,
        "certified": int(r.certified),
        "proof": r.proof,
        "hints": int(r.hints),
        "rated": int(r.rated),
        "arena": r.arena,
        "listed_from": r.listed_from,
        "status": r.status,
        "starts_at": "" if r.starts_at is None else r.starts_at,
        "deadline": "" if r.deadline is None else r.deadline,
        "ended": "" if r.ended is None else r.ended,
        "players": json.dumps([_seat(p) for p in r.players]),
        "ranking": "" if r.ranking is None else json.dumps(r.ranking),
    }


def race_from_load(reply: list[Any]) -> tuple[int, R.Race | None]:
    """Decode the LOAD script's reply into (server time, Race or None)."""
    now = int(reply[0])
    if len(reply) < 2:
        return now, None
    h = _pairs(reply[1])
    if b"race" not in h:
        # Not a race: a spectator count left alone by a server before spectators.lua.
        return now, None
    r = R.Race(
        race=h[b"race"].decode(),
        game=h[b"game"].decode(),
        total=int(h[b"total"]),
        seats=int(h[b"seats"]),
        time_limit_s=int(h[b"time_limit_s"]),
        private=h[b"private"] == b"1",
        host=h[b"host"].decode(),
        created=int(h[b"created"]),
        seed=h[b"seed"].decode(),
        commitment=h[b"commitment"].decode(),
        rules_version=int(h[b"rules_version"]),
        deal_version=int(h[b"deal_version"]),
        quick=h.get(b"quick") == b"1",
        sealed=h.get(b"sealed") == b"1",
        invite=(h.get(b"invite") or b"").decode(),
        certified=h.get(b"certified") == b"1",
        proof=(h.get(b"proof") or b"").decode(),
        hints=h.get(b"hints") != b"0",
        rated=h.get(b"rated") == b"1",
        arena=(h.get(b"arena") or b"").decode(),  # absent in races stored before the field
        listed_from=int(h.get(b"listed_from") or 0),  # the same
        status=h[b"status"].decode(),
        ver=int(h[b"ver"]),
        starts_at=int_or_none(h.get(b"starts_at")),
        deadline=int_or_none(h.get(b"deadline")),
        ended=int_or_none(h.get(b"ended")),
        spectators=int(h.get(b"spectators") or 0),
    )
    ranking = h.get(b"ranking")
    r.ranking = json.loads(ranking) if ranking else None
    seats = json.loads(h[b"players"])
    states = {reply[i].decode(): _pairs(reply[i + 1]) for i in range(2, len(reply), 2)}
    for s in seats:
        p = R.Player(
            s["player"],
            s["name"],
            ready=s["ready"],
            session=s.get("session", ""),
            berserk=s.get("berserk", False),
            account=s.get("account", False),
        )
        p.status = R.READY if p.ready else R.WAITING
        st = states.get(p.player)
        if st:  # the game has started: the per-player hash is the truth
            p.n = int(st.get(b"n", 0))
            p.home = int(st.get(b"home", 0))
            p.status = st[b"status"].decode() if b"status" in st else p.status
            p.at = int_or_none(st.get(b"at"))
        r.players.append(p)
    return now, r
