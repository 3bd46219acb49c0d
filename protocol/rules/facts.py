"""What a client shows of each game: its name, a blurb, and how its piles are grouped.

The rules of a game live in ``games.py``; this module adds what a player needs to
read the board, so that every client (the terminal one, the bots, the web client
through the server) names and groups the piles the same way. ``game_facts()`` is
the JSON-able form sent to clients.

A layout (``cols``) is a list of columns side by side; a column is a list of
rows; a row is a list of groups; a group has a label and piles drawn side by side
with one *fan*:

* ``top``: only the top card is drawn (foundations), with a count badge;
* ``down``: cards overlap downward so that every card is readable (tableau,
  reserves); ``expect`` is how many cards the pile usually holds, so a client
  can reserve the room;
* ``stock``: the card back with the count of cards left; clicking draws;
* ``waste``: the top card with the count of cards under it.

The fan of a group and the ``hints`` (the rank an empty foundation starts with)
follow from the pile kinds of the game, so they cannot disagree with the rules.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from .cards import RANK_CHARS
from .games import FOUNDATION_KINDS, GAMES, GameDef, Kind

Fan = Literal["top", "down", "stock", "waste"]


class Group(TypedDict):
    label: str
    piles: list[str]
    fan: Fan
    expect: NotRequired[int]


class Facts(TypedDict):
    name: str
    decks: int
    total: int
    blurb: str
    hints: dict[str, str]
    cols: list[list[list[Group]]]


class UnknownGame(ValueError):
    """A game id this version of the rules does not know."""

    def __init__(self, game_id: object):
        super().__init__(f"unknown game {game_id!r}; this version knows {', '.join(GAMES)}")
        self.game_id = game_id


def game_def(game_id: object) -> GameDef:
    """The GameDef of ``game_id``; raises UnknownGame (one-line message) if there is none."""
    game = GAMES.get(game_id) if isinstance(game_id, str) else None
    if game is None:
        raise UnknownGame(game_id)
    return game


def game_name(game_id: str) -> str:
    """The game's name for people, or the id itself for a game this version does not know."""
    game = GAMES.get(game_id)
    return game.name if game is not None else game_id


# A group as declared below: label, piles, and (for "down" piles) the usual height.
_Decl = tuple[str, list[str]] | tuple[str, list[str], int]


def _names(prefix: str, lo: int, hi: int) -> list[str]:
    """Pile names ``prefix+lo`` .. ``prefix+hi``, both included."""
    return [f"{prefix}{i}" for i in range(lo, hi + 1)]


_BLURBS: dict[str, str] = {
    "racing-aces": "Three decks. Sixteen foundations in four groups — Aces and Sevens build up, "
    "Sixes and Kings build down, any suit. Three open reserves, six one-card tableau spots "
    "refilled from the stock.",
    "double-aces-and-kings": "Four decks. Eight Aces foundations build up and eight Kings "
    "foundations build down, any suit. Four open reserves and eight tableau spots — no refill: "
    "fill gaps yourself.",
    "rouge-et-noir": "Two decks. Build the tableau down in alternating colours and move runs. "
    "Colour foundations build up in one colour; complete K…A runs go to the sequence "
    "foundations. Each draw deals a card to every column.",
    "fours-up": "Two decks. Eight foundations start on the 4s and build up in suit, wrapping "
    "K→A→2→3. Tableau builds down K…4, any suit; runs move together.",
}

_LAYOUTS: dict[str, list[list[list[_Decl]]]] = {
    "racing-aces": [
        [[("Reserves", _names("r", 0, 2), 13)]],
        [
            [("Aces ↑ A→K", _names("f", 0, 3)), ("Sixes ↓ 6→A", _names("f", 4, 7))],
            [("Sevens ↑ 7→K", _names("f", 8, 11)), ("Kings ↓ K→A", _names("f", 12, 15))],
            [("Tableau", _names("t", 0, 5), 1), ("Stock", ["s"]), ("Waste", ["w"])],
        ],
    ],
    "double-aces-and-kings": [
        [
            [("Stock", ["s"]), ("Waste", ["w"])],
            [("Reserves", _names("r", 0, 3), 13)],
        ],
        [
            [("Aces ↑ A→K", _names("f", 0, 7))],
            [("Kings ↓ K→A", _names("f", 8, 15))],
            [("Tableau", _names("t", 0, 7), 1)],
        ],
    ],
    "rouge-et-noir": [
        [
            [
                ("Colour ↑ A→K (pairs f0·f1, f2·f3)", _names("f", 0, 3)),
                ("Sequences K…A", _names("f", 4, 7)),
                ("Stock", ["s"]),
            ],
            [("Tableau", _names("t", 0, 9), 12)],
        ]
    ],
    "fours-up": [
        [
            [("Foundations 4→K→A→3, in suit", _names("f", 0, 7))],
            [("Tableau", _names("t", 0, 5), 10), ("Stock", ["s"]), ("Waste", ["w"])],
        ]
    ],
}


def _fan(kind: Kind) -> Fan:
    if kind in FOUNDATION_KINDS:
        return "top"
    if kind == Kind.STOCK:
        return "stock"
    if kind == Kind.WASTE:
        return "waste"
    return "down"


def _group(game: GameDef, decl: _Decl) -> Group:
    label, piles = decl[0], decl[1]
    fans = {_fan(game.kinds[game.index[p]]) for p in piles}
    if len(fans) != 1:
        raise ValueError(f"{game.id}: group {label!r} mixes piles drawn differently")
    group = Group(label=label, piles=list(piles), fan=fans.pop())
    if len(decl) == 3:
        group["expect"] = decl[2]
    return group


def _hint(game: GameDef, pile: int) -> str:
    """What an empty foundation takes first, as a rank (or a whole run)."""
    p = game.piles[pile]
    if p.kind == Kind.FOUNDATION:
        return RANK_CHARS[p.start - 1]
    if p.kind == Kind.COLOUR:
        return "A"
    if p.kind == Kind.SUIT_WRAP:
        return "4"
    return "K…A"  # a sequence foundation takes one whole K..A run


def facts_of(game: GameDef) -> Facts:
    """The display facts of one game (a fresh, JSON-able dict)."""
    return Facts(
        name=game.name,
        decks=game.decks,
        total=game.total,
        blurb=_BLURBS[game.id],
        hints={game.pile_names[i]: _hint(game, i) for i in game.found_idx},
        cols=[[[_group(game, decl) for decl in row] for row in col] for col in _LAYOUTS[game.id]],
    )


def game_facts() -> dict[str, Facts]:
    """Every game's display facts, keyed by game id, in the shape clients load as JSON."""
    return {game_id: facts_of(game) for game_id, game in GAMES.items()}
