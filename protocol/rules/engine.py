"""The game state and the one move engine shared by all games.

A ``Game`` is a list of piles (lists of faces, bottom first, last = top), a
parallel list of face-down counts (only Rouge et Noir tableau piles are ever
non-zero; face-down cards are always the bottom ``down[i]`` cards of a pile),
and a running ``cards_home`` count. The game's ``GameDef`` supplies the pile
kinds and precomputed acceptance tables; this module only interprets them.

Checking a move never mutates anything; the move is applied only once it is
known legal, so a refused move leaves the game exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import CODE, DOWN_CODE, NAME, RANK, RED
from .errors import IllegalMove
from .facts import game_def
from .games import DRAW, GameDef, Kind, NotationError, Parsed
from .view import View

_NOT_AVAILABLE = "not-available"
_NOT_ACCEPTED = "not-accepted"
_RUN_LENGTH = 13  # a sequence foundation takes exactly one whole K..A run


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a legal move did, for the server to forward to the player.

    ``revealed`` lists (pile name, card code) for every card that became visible
    to the player because of this move: the card drawn to the waste, a stock
    card refilled onto a tableau pile, a flipped card, the cards a Rouge et Noir
    draw deals (in pile order).
    """

    move: str
    revealed: tuple[tuple[str, str], ...]
    cards_home: int
    won: bool


class Game:
    """One player's game: a position of one of ``GAMES`` plus the moves on it."""

    __slots__ = ("game", "piles", "down", "cards_home")

    def __init__(self, game: GameDef, piles: list[list[int]], down: list[int]):
        self.game = game
        self.piles = piles
        self.down = down
        self.cards_home = sum(len(piles[i]) for i in game.found_idx)

    # -- facts ---------------------------------------------------------------

    @property
    def game_id(self) -> str:
        return self.game.id

    @property
    def total(self) -> int:
        return self.game.total

    @property
    def won(self) -> bool:
        return self.cards_home == self.game.total

    @property
    def stock_count(self) -> int:
        return len(self.piles[self.game.stock_idx])

    def pile(self, name: str) -> list[str]:
        """Card codes of a pile, bottom first, face-down ones prefixed ``~``."""
        i = self.game.index[name]
        d = self.down[i]
        return [DOWN_CODE[f] if n < d else CODE[f] for n, f in enumerate(self.piles[i])]

    def copy(self) -> Game:
        g = Game.__new__(Game)
        g.game = self.game
        g.piles = [p[:] for p in self.piles]
        g.down = self.down[:]
        g.cards_home = self.cards_home
        return g

    __copy__ = copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.game is other.game and self.piles == other.piles and self.down == other.down

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"<Game {self.to_text()}>"

    # -- text ----------------------------------------------------------------

    def to_text(self) -> str:
        """The position text of docs/rules.md §7.1 (the whole truth: server side only)."""
        g = self.game
        parts = [g.id]
        names = g.pile_names
        down = self.down
        for i, p in enumerate(self.piles):
            d = down[i]
            if d:
                parts.append(
                    names[i] + ":" + "".join([DOWN_CODE[f] for f in p[:d]] + [CODE[f] for f in p[d:]])
                )
            else:
                parts.append(names[i] + ":" + "".join([CODE[f] for f in p]))
        return " ".join(parts)

    def view(self) -> View:
        g = self.game
        piles = []
        for i, p in enumerate(self.piles):
            if i == g.stock_idx:
                continue
            d = self.down[i]
            piles.append((g.pile_names[i], (None,) * d + tuple(CODE[f] for f in p[d:])))
        return View(g.id, tuple(piles), self.stock_count, self.cards_home, g.total)

    def view_text(self) -> str:
        """The player's view text: face-down cards as ``??``, the stock as ``s:#N``."""
        g = self.game
        parts = [g.id]
        names = g.pile_names
        down = self.down
        stock_idx = g.stock_idx
        for i, p in enumerate(self.piles):
            if i == stock_idx:
                parts.append(f"s:#{len(p)}")
                continue
            d = down[i]
            parts.append(names[i] + ":" + "??" * d + "".join([CODE[f] for f in p[d:]]))
        return " ".join(parts)

    # -- moves ---------------------------------------------------------------

    def _accepts(self, d: int, f: int) -> bool:
        """Does pile ``d`` take face ``f`` (as a single card or a run's bottom)?"""
        p = self.piles[d]
        g = self.game
        if p:
            return f in g.acc_top[d][p[-1]]
        if g.takes_any[d]:
            return True
        if g.pair_rule[d]:
            return f in self._pair_aces(d)
        return f in g.acc_empty[d]

    def _pair_aces(self, d: int) -> tuple[int, ...]:
        """Aces an empty colour foundation may start with (the pair rule)."""
        other = self.piles[self.game.partner[d]]
        if not other:
            return _ACES
        if RANK[other[0]] != 1:
            return ()
        return _ACES_OF_RED[1 - RED[other[0]]]

    def _refusal(self, s: int, k: int, d: int) -> str | None:
        """None if moving the top ``k`` cards of ``s`` onto ``d`` is legal, else
        the IllegalMove code. Pure: never changes the game."""
        g = self.game
        sp = self.piles[s]
        n = len(sp)
        if not g.gives[s] or n - self.down[s] < k:
            return _NOT_AVAILABLE
        if k > 1:
            if not g.runs[s]:
                return _NOT_AVAILABLE
            acc = g.acc_top[s]
            for i in range(n - k, n - 1):
                if sp[i + 1] not in acc[sp[i]]:
                    return _NOT_AVAILABLE
        kind = g.kinds[d]
        if kind == Kind.SEQUENCE:
            if k == _RUN_LENGTH and g.is_tab[s] and not self.piles[d]:
                return None
            return _NOT_ACCEPTED
        if not g.receives[d]:
            return _NOT_ACCEPTED
        if g.is_found[d] and (k > 1 or not g.home_ok[s]):
            return _NOT_ACCEPTED
        return None if self._accepts(d, sp[n - k]) else _NOT_ACCEPTED

    def _parse(self, move: str) -> Parsed:
        try:
            return self.game.parse_move(move)
        except NotationError as e:
            raise IllegalMove(e.code, move, str(e)) from None

    def _illegal(self, move: str, code: str, s: int, k: int, d: int) -> IllegalMove:
        names = self.game.pile_names
        what = "the top card" if k == 1 else f"the top {k} cards"
        if code == _NOT_AVAILABLE:
            msg = f"{names[s]} cannot give {what}"
            sp = self.piles[s]
            if s == self.game.stock_idx:
                msg += ": the stock deals only by draw"
            elif not self.game.gives[s]:
                msg += f": nothing ever leaves {names[s]}"
            elif not sp:
                msg += f": {names[s]} is empty"
            elif k > 1 and not self.game.runs[s]:
                msg += ": only tableau runs move together"
            elif len(sp) - self.down[s] < k:
                up = len(sp) - self.down[s]
                msg += f": only {up} face-up card{'' if up == 1 else 's'} there"
            else:
                msg += ": they are not a run"
        elif not self.game.receives[d]:
            # Never name the destination's top card here: the stock's is secret,
            # and this message goes to the player.
            msg = f"nothing may be moved onto {names[d]}"
        else:
            sp = self.piles[s]
            card = NAME[sp[len(sp) - k]]
            dp = self.piles[d]
            on = f"on {NAME[dp[-1]]}" if dp else "when empty"
            msg = f"{names[d]} does not take {card} {on}"
            if k > 1 and self.game.is_found[d]:
                msg += " (runs never go to this foundation)"
        return IllegalMove(code, move, msg)

    def check(self, move: str) -> None:
        """Raise IllegalMove if ``move`` is illegal here; otherwise do nothing."""
        parsed = self._parse(move)
        if parsed == DRAW:
            if not self.piles[self.game.stock_idx]:
                raise IllegalMove("stock-empty", move, "the stock is empty (there is no redeal)")
            return
        s, k, d = parsed
        code = self._refusal(s, k, d)
        if code is not None:
            raise self._illegal(move, code, s, k, d)

    def is_legal(self, move: str) -> bool:
        try:
            self.check(move)
        except IllegalMove:
            return False
        return True

    def _play(self, move: str) -> list[tuple[int, int]] | None:
        """Apply a move; return the (pile, face) pairs it revealed, or None."""
        g = self.game
        try:
            parsed = g.parse_cache.get(move)
        except TypeError:  # unhashable: certainly not a move
            parsed = None
        if parsed is None:
            parsed = self._parse(move)
        piles = self.piles
        if parsed == DRAW:
            stock = piles[g.stock_idx]
            if not stock:
                raise IllegalMove("stock-empty", move, "the stock is empty (there is no redeal)")
            if g.draw_to_tableau:
                revealed = []
                for t in g.tab_idx:
                    if not stock:
                        break
                    f = stock.pop()
                    piles[t].append(f)
                    revealed.append((t, f))
                return revealed
            waste = g.waste_idx
            assert waste is not None  # a game without a waste draws to its tableau
            f = stock.pop()
            piles[waste].append(f)
            return [(waste, f)]
        s, k, d = parsed
        code = self._refusal(s, k, d)
        if code is not None:
            raise self._illegal(move, code, s, k, d)
        sp = piles[s]
        if k == 1:
            piles[d].append(sp.pop())
        else:
            cut = len(sp) - k
            piles[d].extend(sp[cut:])
            del sp[cut:]
        if g.is_found[d] != g.is_found[s]:
            self.cards_home += k if g.is_found[d] else -k
        if sp:
            down = self.down[s]
            if down and down == len(sp):
                self.down[s] = down - 1
                return [(s, sp[-1])]
        elif g.refill and g.is_tab[s]:
            stock = piles[g.stock_idx]
            if stock:
                f = stock.pop()
                sp.append(f)
                return [(s, f)]
        return None

    def play(self, move: str) -> None:
        """Play a legal move in place; raise IllegalMove (game unchanged) if not."""
        self._play(move)

    def apply(self, move: str) -> MoveResult:
        """Like ``play``, and say what the move revealed (see MoveResult)."""
        revealed = self._play(move)
        names = self.game.pile_names
        return MoveResult(
            move,
            tuple((names[i], CODE[f]) for i, f in revealed) if revealed else (),
            self.cards_home,
            self.cards_home == self.game.total,
        )

    def legal_moves(self) -> list[str]:
        """Every legal move once, in canonical notation; ``draw`` first if legal.

        Each destination is filed under the faces it accepts, then each source's
        available card (or run bottom) is looked up once: the work is linear in
        piles and moves, not quadratic in pile pairs.
        """
        g = self.game
        piles = self.piles
        out: list[str] = []
        if piles[g.stock_idx]:
            out.append(DRAW)
        home: dict[int, list[int]] = {}
        tab: dict[int, list[int]] = {}
        tab_any: list[int] = []
        acc_top = g.acc_top
        acc_empty = g.acc_empty
        pair_rule = g.pair_rule
        for d in g.found_idx:
            p = piles[d]
            if p:
                wants = acc_top[d][p[-1]]
            elif pair_rule[d]:
                wants = self._pair_aces(d)
            else:
                wants = acc_empty[d]
            for f in wants:
                b = home.get(f)
                if b is None:
                    home[f] = [d]
                else:
                    b.append(d)
        empty_seq = [d for d in g.seq_idx if not piles[d]]
        takes_any = g.takes_any
        for d in g.tab_idx:
            p = piles[d]
            if p:
                wants = acc_top[d][p[-1]]
            elif takes_any[d]:
                tab_any.append(d)
                continue
            else:
                wants = acc_empty[d]
            for f in wants:
                b = tab.get(f)
                if b is None:
                    tab[f] = [d]
                else:
                    b.append(d)
        notation = g.notation
        gives = g.gives
        home_ok = g.home_ok
        runs = g.runs
        down = self.down
        for s, p in enumerate(piles):
            if not p or not gives[s]:
                continue
            top = p[-1]
            row = notation[s]
            # A pile never accepts its own top card, so no s == d checks.
            if home_ok[s]:
                b = home.get(top)
                if b:
                    out.extend([row[d] for d in b])
            b = tab.get(top)
            if b:
                out.extend([row[d] for d in b])
            if tab_any:
                out.extend([row[d] for d in tab_any])
            if runs[s]:
                acc = acc_top[s]
                run_rows = g.run_notation[s]
                i = len(p) - 2
                lowest = down[s]
                while i >= lowest and p[i + 1] in acc[p[i]]:
                    k = len(p) - i
                    rrow = run_rows[k]
                    b = tab.get(p[i])
                    if b:
                        out.extend([rrow[d] for d in b])
                    if tab_any:
                        out.extend([rrow[d] for d in tab_any])
                    if k == _RUN_LENGTH and empty_seq:
                        out.extend([rrow[d] for d in empty_seq])
                    i -= 1
        return out


_ACES = (0, 13, 26, 39)
_ACES_OF_RED = ((0, 39), (13, 26))  # black aces, red aces


def deal(game_id: str, seed: str) -> Game:
    """A new game of ``game_id`` dealt from ``seed`` (docs/rules.md §8)."""
    game = game_def(game_id)  # UnknownGame, a ValueError, for a game this version does not know
    if not isinstance(seed, str):
        raise TypeError("a seed is a string")
    piles, down = game.deal_layout(seed)
    return Game(game, piles, down)


def replay(game_id: str, seed: str, moves: Iterable[str]) -> Game:
    """Deal and play ``moves`` in order; an illegal one raises IllegalMove with
    ``.index`` set to its position in ``moves``."""
    g = deal(game_id, seed)
    for i, move in enumerate(moves):
        try:
            g._play(move)
        except IllegalMove as e:
            e.index = i
            raise
    return g
