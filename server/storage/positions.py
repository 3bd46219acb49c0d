"""The compact stored position of a player's game, and the revealed-cards text of a move.

The move log is the truth of a player's game; the player hash keeps a
snapshot of it as a few bytes per pile (``encode_position``) at the deal and
then every ``SNAPSHOT_EVERY`` moves (``pos``, with ``pn`` the move count it
is at), so that a move's script usually stores no position at all. Reloads,
resyncs and spectator boards decode the snapshot back into a ``rules.Game``
and replay the log entries after it (``replay``: about a microsecond per
move, at most ``SNAPSHOT_EVERY`` - 1 of them).
"""

from __future__ import annotations

from typing import cast

from protocol import rules
from protocol.rules.games import DRAW as _DRAW

SNAPSHOT_EVERY = 32


def snapshot_due(n: int) -> bool:
    """Does move number `n` (1-based: the count after it) store the position with it?"""
    return n % SNAPSHOT_EVERY == 0


def log_move(entry: bytes) -> str:
    """The move notation of a move log entry ("AT HOME MOVE")."""
    return entry.split(b" ", 2)[2].decode()


def replay(pos: bytes, entries: list[bytes]) -> rules.Game:
    """The game of a stored snapshot `pos` after the move log `entries` that follow it."""
    g = decode_position(pos)
    for e in entries:
        g.play(log_move(e))
    return g


def encode_position(g: rules.Game) -> bytes:
    """The compact stored position of a game (a few µs, vs ~25 µs for the text).

    Game id, NUL, then for each pile in canonical order: its face-down count,
    its length, its cards (faces 0..51), one byte each. The position text of
    docs/rules.md (positions and views) is `position_text(data)`.
    """
    out: list[int] = []
    for d, p in zip(g.down, g.piles):
        out.append(d)
        out.append(len(p))
        out.extend(p)
    return g.game.id.encode() + b"\0" + bytes(out)


class PositionCache:
    """`encode_position` of one game as it moves, re-encoding only the piles a move touched.

    The compact position is written on every move; most of it does not
    change. `encode(move)` is called after `move` was played on the game: it
    re-encodes the piles that move can touch (a draw: the stock and the
    waste, or every tableau pile in Rouge et Noir; any other move: its source
    and its destination, whose face-down count a flip changes; and the stock
    whenever its length changed, by a draw or a refill — it only ever loses
    cards) and joins the cached rest. Anything it cannot place
    (no move given, a notation outside the game's parse table) re-encodes
    everything. The result is always byte for byte `encode_position(game)`
    (tests/server/test_server_redis.py checks it over random games).
    """

    __slots__ = ("game", "parts")

    def __init__(self, game: rules.Game) -> None:
        self.game = game
        self.parts: list[bytes] | None = None

    def encode(self, move: str | None = None) -> bytes:
        g = self.game
        parts = self.parts
        piles, down = g.piles, g.down
        gdef = g.game
        parsed = gdef.parse_cache.get(move) if (parts is not None and move is not None) else None
        if parsed is None:
            parts = [g.game.id.encode() + b"\0"]
            for d, p in zip(down, piles):
                parts.append(bytes((d, len(p))) + bytes(p))
            self.parts = parts
            return b"".join(parts)
        assert parts is not None
        touched: tuple[int, ...]
        if parsed is _DRAW:
            if gdef.draw_to_tableau:
                touched = gdef.tab_idx
            else:
                assert gdef.waste_idx is not None
                touched = (gdef.waste_idx,)
        else:
            src, _run, dst = cast(tuple[int, int, int], parsed)
            touched = (src, dst)
        st = gdef.stock_idx
        p = piles[st]
        if parts[st + 1][1] != len(p):  # the stock only ever loses cards: same length, same stock
            parts[st + 1] = bytes((down[st], len(p))) + bytes(p)
        for i in touched:
            p = piles[i]
            parts[i + 1] = bytes((down[i], len(p))) + bytes(p)
        return b"".join(parts)


def decode_position(data: bytes) -> rules.Game:
    gid, _, body = data.partition(b"\0")
    gdef = rules.GAMES[gid.decode()]
    piles: list[list[int]] = []
    down: list[int] = []
    i = 0
    for _name in gdef.pile_names:
        d, n = body[i], body[i + 1]
        piles.append(list(body[i + 2 : i + 2 + n]))
        down.append(d)
        i += 2 + n
    return rules.Game(gdef, piles, down)


def position_text(data: bytes) -> str:
    """The position text (docs/rules.md, positions and views) of a stored position."""
    return decode_position(data).to_text()


def revealed_text(revealed: tuple[tuple[str, str], ...]) -> str:
    if not revealed:  # most moves reveal nothing: no generator, no join (0.1 vs 0.4 µs)
        return ""
    return " ".join(f"{pile}:{card}" for pile, card in revealed)


def revealed_list(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for x in text.split():
        pile, _, card = x.partition(":")
        out.append((pile, card))
    return out
