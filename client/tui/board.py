"""Board layout: plain functions, no terminal (text beside the board: text.py; clicks and typed
moves on it: board_input.py).

Everything the terminal clients show is computed here from docs/rules.md §7.3 view
texts, so it can be unit-tested without textual. The widgets in
``client.tui.widgets`` only paint the :class:`Canvas` this module produces and
hand mouse positions back to :func:`Canvas.hit`.

The board of each game is laid out on a character grid, in the labelled pile
groups of the game's facts (``protocol.rules.facts``), one row of groups under
the other (a game too tall for 80x24 that way has rows of its own, TERMINAL_ROWS):

* foundations as a row of slots, each labelled with its pile name so that the
  notation (``w>f3``) can be read off the screen; an empty one shows the rank
  it starts with (``A``, ``K…A`` for a whole run);
* reserves as one row each, fanned left to right, the playable top at the
  right end, with the card count;
* single-card tableaus as a row of slots; building tableaus (Rouge et Noir,
  Fours Up) as columns, top card at the bottom, face-down cards as backs;
* the stock as a back with its count, the waste fanned with its count.

A card is three characters wide: rank right-aligned (``10`` for ten) and the
suit symbol, e.g. `` 9♣`` or ``10♥``; backs are ``░░░``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.rules.cards import RANK_CHARS, SUIT_CHARS, card_name
from protocol.rules.facts import Group, facts_of
from protocol.rules.games import GAMES, GameDef, Kind

# --------------------------------------------------------------------------
# Views

RED_SUITS = frozenset("dh")
BACK = "░░░"
EMPTY = " · "
CARD_W = 3
SLOT = 4  # card width + one space


@dataclass(frozen=True)
class Board:
    """A parsed view text: pile name -> cards bottom first (None = face down)."""

    game: str
    piles: dict[str, tuple[str | None, ...]]
    order: tuple[str, ...]
    stock: int

    @property
    def home(self) -> int:
        return sum(len(c) for n, c in self.piles.items() if n.startswith("f"))

    @property
    def total(self) -> int:
        game = GAMES.get(self.game)
        if game is not None:
            return game.total
        return self.home + self.stock + sum(len(c) for n, c in self.piles.items() if not n.startswith("f"))

    def cards(self, name: str) -> tuple[str | None, ...]:
        return self.piles.get(name, ())


def parse_view(text: str) -> Board:
    """Parse a view text (docs/rules.md §7.3): ``game f0: … t0:????Qh … s:#67 w:``.

    Also accepts a full position text (face-down cards ``~Kh`` are shown as
    backs, a stock written as cards is counted), so a spectator or a test may
    feed either.
    """
    parts = text.split()
    if not parts:
        raise ValueError("empty view text")
    game, piles, order, stock = parts[0], {}, [], 0
    for token in parts[1:]:
        name, sep, body = token.partition(":")
        if not sep or not name:
            raise ValueError(f"bad pile token {token!r}")
        if name == "s":
            if body.startswith("#"):
                stock = int(body[1:])
            else:
                stock = len(body.replace("~", "")) // 2
            order.append(name)
            continue
        cards: list[str | None] = []
        i = 0
        while i < len(body):
            if body[i] == "~":
                cards.append(None)
                i += 3
            elif body.startswith("??", i):
                cards.append(None)
                i += 2
            else:
                code = body[i : i + 2]
                if len(code) != 2 or code[0] not in RANK_CHARS or code[1] not in SUIT_CHARS:
                    raise ValueError(f"bad card {code!r} in {token!r}")
                cards.append(code)
                i += 2
        piles[name] = tuple(cards)
        order.append(name)
    return Board(game, piles, tuple(order), stock)


def card_text(code: str | None) -> str:
    """Three-character face of a card: `` 9♣``, ``10♥``, `` K♠``; backs ``░░░``."""
    if code is None:
        return BACK
    return f"{card_name(code):>{CARD_W}}"


def is_red(code: str | None) -> bool:
    return code is not None and code[1] in RED_SUITS


# --------------------------------------------------------------------------
# The canvas: positioned, styled, clickable text cells

STYLE_RED = "bold red3 on grey93"
STYLE_BLACK = "bold black on grey93"
STYLE_BACK = "bright_white on dark_blue"
STYLE_BACK_ALT = "bright_white on blue3"
STYLE_EMPTY = "grey50"
STYLE_LABEL = "cyan"
STYLE_TITLE = "bold"
STYLE_DIM = "grey62"
STYLE_SELECTED = "bold black on yellow"
STYLE_TARGET = "bold white on green4"


@dataclass(frozen=True)
class Cell:
    x: int
    y: int
    text: str
    style: str = ""
    pile: str | None = None
    #: index of the card in its pile (bottom = 0); None: the pile as a whole
    index: int | None = None

    @property
    def width(self) -> int:
        return len(self.text)


@dataclass
class Canvas:
    cells: list[Cell] = field(default_factory=list)

    def put(
        self, x: int, y: int, text: str, style: str = "", pile: str | None = None, index: int | None = None
    ) -> None:
        self.cells.append(Cell(x, y, text, style, pile, index))

    @property
    def width(self) -> int:
        return max((c.x + c.width for c in self.cells), default=0)

    @property
    def height(self) -> int:
        return max((c.y + 1 for c in self.cells), default=0)

    def hit(self, x: int, y: int) -> tuple[str, int | None] | None:
        """The (pile, card index) under a character position, if any.

        Cells added later win (cards are drawn over their pile's slot).
        """
        for c in reversed(self.cells):
            if c.pile is not None and c.y == y and c.x <= x < c.x + c.width:
                return c.pile, c.index
        return None

    def lines(self) -> list[str]:
        """Plain text rendering (for tests and logs)."""
        rows = [[" "] * self.width for _ in range(self.height)]
        for c in self.cells:
            for i, ch in enumerate(c.text):
                rows[c.y][c.x + i] = ch
        return ["".join(r).rstrip() for r in rows]

    def text(self) -> str:
        return "\n".join(self.lines())

    def where(self, pile: str, index: int | None = None) -> tuple[int, int]:
        """A clickable position on ``pile`` (its card ``index``, else its top/slot)."""
        best = None
        for c in self.cells:
            if c.pile != pile:
                continue
            if index is None or c.index == index:
                best = c
                if index is not None:
                    break
        if best is None:
            raise KeyError((pile, index))
        return best.x + best.width // 2, best.y


@dataclass(frozen=True)
class Marks:
    """What to highlight: the selected source (pile, run length) and legal targets."""

    selected: tuple[str, int] | None = None
    targets: frozenset[str] = frozenset()


def _card_style(code: str | None, index: int = 0) -> str:
    if code is None:  # alternate shades so that stacked backs can be counted
        return STYLE_BACK if index % 2 == 0 else STYLE_BACK_ALT
    return STYLE_RED if is_red(code) else STYLE_BLACK


class _Painter:
    def __init__(self, board: Board, marks: Marks):
        self.b = board
        self.m = marks
        self.c = Canvas()
        #: what an empty foundation takes first (``A``, ``K…A``), shown in its empty slot
        self.hints: dict[str, str] = {}

    def style_for(self, pile: str, index: int, code: str | None) -> str:
        sel = self.m.selected
        n = len(self.b.cards(pile))
        if sel and sel[0] == pile and index >= n - sel[1]:
            return STYLE_SELECTED
        if pile in self.m.targets and index == n - 1:
            return STYLE_TARGET
        return _card_style(code, index)

    def empty_style(self, pile: str) -> str:
        return STYLE_TARGET if pile in self.m.targets else STYLE_EMPTY

    def slot(self, x: int, y: int, pile: str) -> None:
        """A labelled single slot showing the pile's top card (foundations, single tableaus)."""
        self.c.put(x, y, f"{pile:^{CARD_W}}", STYLE_LABEL, pile, None)
        cards = self.b.cards(pile)
        if cards:
            i = len(cards) - 1
            # A hidden top (a spectator's board: a waste card a rival has not drawn) says how
            # many cards the pile holds, as the face-up top's rank does.
            text = card_text(cards[i]) if cards[i] is not None else f"{len(cards):^{CARD_W}}"
            self.c.put(x, y + 1, text, self.style_for(pile, i, cards[i]), pile, i)
        else:
            hint = self.hints.get(pile)
            text = f"{hint:^{CARD_W}}" if hint else EMPTY
            self.c.put(x, y + 1, text, self.empty_style(pile), pile, None)

    def group(self, x: int, y: int, title: str, piles: list[str]) -> int:
        """A titled row of slots; returns the x after it."""
        self.c.put(x, y, title, STYLE_TITLE)
        for i, p in enumerate(piles):
            self.slot(x + i * SLOT, y + 1, p)
        return x + len(piles) * SLOT

    def fan(self, x: int, y: int, pile: str, label: str, limit: int | None = None) -> None:
        """A face-up pile fanned left to right, top card at the right end."""
        cards = self.b.cards(pile)
        self.c.put(x, y, f"{label:<3}", STYLE_LABEL, pile, None)
        self.c.put(x + 3, y, f"{len(cards):>3} ", STYLE_DIM, pile, None)
        x0 = x + 7
        shown = list(enumerate(cards))
        if limit is not None and len(shown) > limit:
            self.c.put(x0, y, "…", STYLE_DIM, pile, None)
            x0 += 2
            shown = shown[-limit:]
        if not shown:
            self.c.put(x0, y, EMPTY, self.empty_style(pile), pile, None)
        for j, (i, code) in enumerate(shown):
            self.c.put(x0 + j * SLOT, y, card_text(code), self.style_for(pile, i, code), pile, i)

    def stock(self, x: int, y: int) -> None:
        self.c.put(x, y, " s ", STYLE_LABEL, "s", None)
        n = self.b.stock
        self.c.put(x, y + 1, BACK if n else EMPTY, STYLE_BACK if n else STYLE_EMPTY, "s", None)
        self.c.put(x + SLOT, y + 1, f"{n}", STYLE_DIM, "s", None)

    def columns(self, x: int, y: int, piles: list[str]) -> int:
        """Building tableau piles as columns, bottom card on top row; returns rows used."""
        rows = 1
        for k, p in enumerate(piles):
            px = x + k * SLOT
            self.c.put(px, y, f"{p:^{CARD_W}}", STYLE_LABEL, p, None)
            cards = self.b.cards(p)
            if not cards:
                self.c.put(px, y + 1, EMPTY, self.empty_style(p), p, None)
            for i, code in enumerate(cards):
                self.c.put(px, y + 1 + i, card_text(code), self.style_for(p, i, code), p, i)
            rows = max(rows, 1 + max(len(cards), 1))
        return rows


def layout_board(board: Board, marks: Marks | None = None) -> Canvas:
    """Lay out a board on a character canvas (see the module doc).

    The groups, their labels and their order come from the game's facts
    (``protocol.rules.facts``): each row of groups becomes a band of the
    canvas, groups side by side, the columns of the layout one under the other.
    """
    p = _Painter(board, marks or Marks())
    game = GAMES.get(board.game)
    if game is None:  # a game this version does not know: every pile in order, one per line
        for y, name in enumerate(board.order):
            if name == "s":
                p.c.put(0, y, f"s   {board.stock:>3} ", STYLE_LABEL, "s", None)
            else:
                p.fan(0, y, name, name)
        return p.c
    facts = facts_of(game)
    p.hints = facts["hints"]
    stacked = [row for col in facts["cols"] for row in col]
    rows, gap = _terminal_rows(board.game, stacked), TIGHT_GAP
    if rows is None:
        rows, gap = stacked, GROUP_GAP
    y = 0
    for row in rows:
        x, height = 0, 0
        for group in row:
            width, used = _group(p, game, x, y, group)
            x += width + gap
            height = max(height, used)
        y += height
    return p.c


GROUP_GAP = 3
WASTE_SHOWN = 6  # the waste is fanned to its last cards
#: The games whose groups, stacked as the facts' columns are, need more rows than an 80x24
#: terminal gives the board (Double Aces and Kings: 17, for 14 at most): their rows of groups
#: in the terminal, each group named by its first pile. Racing Aces' arrangement (reserves,
#: the foundations side by side, then tableau, stock and waste), in 11 rows.
TERMINAL_ROWS: dict[str, tuple[tuple[str, ...], ...]] = {
    "double-aces-and-kings": (("r0",), ("f0", "f8"), ("t0", "s", "w")),
}
#: The gap between the groups of TERMINAL_ROWS: with 3, eight tableau spots, the stock and
#: the waste take 78 columns, and a board beside a vertical scrollbar (the watch app's) has 76.
TIGHT_GAP = 2


def _terminal_rows(game_id: str, stacked: list[list[Group]]) -> list[list[Group]] | None:
    """``game_id``'s own rows of groups (TERMINAL_ROWS), or None: the facts' rows, as stacked.
    Rows that no longer name every group of the facts, each once, are not used: a pile a
    newer version adds must show all the same."""
    own = TERMINAL_ROWS.get(game_id)
    groups = {group["piles"][0]: group for row in stacked for group in row}
    if own is None or sorted(first for row in own for first in row) != sorted(groups):
        return None
    return [[groups[first] for first in row] for row in own]


def _group(p: _Painter, game: GameDef, x: int, y: int, group: Group) -> tuple[int, int]:
    """Draw one labelled group of piles at (x, y); returns its (width, height)."""
    label, piles = group["label"], group["piles"]
    p.c.put(x, y, label, STYLE_TITLE)
    kinds = {game.kinds[game.index[name]] for name in piles}
    if group["fan"] == "stock":
        p.stock(x, y + 1)
        return max(len(label), SLOT + len(str(p.b.stock))), 3
    if group["fan"] == "waste":
        for name in piles:
            p.fan(x, y + 2, name, name, limit=WASTE_SHOWN)
        return max(len(label), 9 + WASTE_SHOWN * SLOT), 3
    if kinds == {Kind.RESERVE}:  # one line each, fanned left to right, top card at the right end
        for i, name in enumerate(piles):
            p.fan(x, y + 1 + i, name, name)
        widest = max(len(p.b.cards(name)) for name in piles)
        return max(len(label), 7 + max(widest, 1) * SLOT), 1 + len(piles)
    if any(game.runs[game.index[name]] for name in piles):  # building tableau: columns
        return max(len(label), len(piles) * SLOT), 1 + p.columns(x, y + 1, piles)
    for i, name in enumerate(piles):  # foundations and one-card tableau spots: a slot each
        p.slot(x + i * SLOT, y + 1, name)
    return max(len(label), len(piles) * SLOT), 3
