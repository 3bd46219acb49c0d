"""A second, independent reading of docs/rules.md: which moves are legal, and what a move does.

The engine (``protocol/rules``) is one implementation of docs/rules.md, tuned for
speed (precomputed acceptance tables shared by the move checker and the move
generator). This module is another one, written from the document alone and kept
deliberately plain: for every pile that may give cards it asks every other pile
whether the rule of the governing section lets it take them. It shares no code
with the engine, and reads a position only through its position text
(docs/rules.md §7.1).

- ``Position.from_text`` / ``Position.to_text``: the position text of §7.1.
- ``legal_moves(position)``: every legal move (§1.3 notation), each with its
  *kind*, such as ``"waste > empty tableau"`` (``MOVE_KINDS`` lists the kinds
  each game's section allows).
- ``play(position, move)``: the position a legal move leads to, with its
  automatic effects (§2.5 refill, §4.6 flip, §4.7 deal), the cards it reveals
  (§7.4), and the names of those effects (``EFFECTS``).
- ``candidate_moves(position)``: moves that only the rules about their source
  make illegal, for checking the engine's ``is_legal`` beyond its own list.
- ``special_cases(position, move)``: the corner rules a legal move relies on
  (``SPECIAL_CASES``), so that a test can count that it has met them.

tests/rules/test_rules_independent.py compares the engine with this module at
every position of random games.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial

RANKS = "A23456789TJQK"
RANK_OF_CHARACTER = {character: n + 1 for n, character in enumerate(RANKS)}
RED_SUITS = "dh"
KING = 13
#: A Rouge et Noir sequence foundation takes a whole K..A run (§4.5).
WHOLE_RUN = 13

#: A move as (source pile, number of cards, destination pile).
Move = tuple[str, int, str]


# -- §1.1 cards -----------------------------------------------------------------


def rank(card: str) -> int:
    """Rank 1 (A) to 13 (K) of a text code such as ``Th`` (§1.1)."""
    return RANK_OF_CHARACTER[card[0]]


def suit(card: str) -> str:
    """Suit letter of a text code (§1.1)."""
    return card[1]


def is_red(card: str) -> bool:
    """Hearts and diamonds are red, clubs and spades black (§1.1)."""
    return card[1] in RED_SUITS


# -- §1.2, §2.1, §3.1, §4.1, §5.1 the piles of each game ------------------------


@dataclass(frozen=True)
class Layout:
    """The piles of one game, from the layout table of its section."""

    decks: int
    foundations: int
    reserves: int
    tableau: int
    waste: bool

    @property
    def total(self) -> int:
        """Cards in the game (§1.1: 52 per deck)."""
        return 52 * self.decks

    def pile_names(self) -> list[str]:
        """All pile names in canonical order (§1.2): f, r, t, then s and w."""
        names = [f"f{i}" for i in range(self.foundations)]
        names += [f"r{i}" for i in range(self.reserves)]
        names += [f"t{i}" for i in range(self.tableau)]
        return names + ["s"] + (["w"] if self.waste else [])


RACING_ACES = "racing-aces"
DOUBLE_ACES_AND_KINGS = "double-aces-and-kings"
ROUGE_ET_NOIR = "rouge-et-noir"
FOURS_UP = "fours-up"

LAYOUTS: dict[str, Layout] = {
    RACING_ACES: Layout(decks=3, foundations=16, reserves=3, tableau=6, waste=True),  # §2.1
    DOUBLE_ACES_AND_KINGS: Layout(decks=4, foundations=16, reserves=4, tableau=8, waste=True),  # §3.1
    ROUGE_ET_NOIR: Layout(decks=2, foundations=8, reserves=0, tableau=10, waste=False),  # §4.1
    FOURS_UP: Layout(decks=2, foundations=8, reserves=0, tableau=6, waste=True),  # §5.1
}

#: §2.1 and §3.1: (first rank, step) of each foundation, f0 first.
ACES_AND_KINGS_GROUPS: dict[str, list[tuple[int, int]]] = {
    RACING_ACES: [(1, +1)] * 4 + [(6, -1)] * 4 + [(7, +1)] * 4 + [(13, -1)] * 4,
    DOUBLE_ACES_AND_KINGS: [(1, +1)] * 8 + [(13, -1)] * 8,
}

#: §4.4: the two colour foundation pairs of Rouge et Noir.
PARTNER = {"f0": "f1", "f1": "f0", "f2": "f3", "f3": "f2"}
COLOUR_FOUNDATIONS = ["f0", "f1", "f2", "f3"]
SEQUENCE_FOUNDATIONS = ["f4", "f5", "f6", "f7"]


def pile_kind(game_id: str, name: str) -> str:
    """What a pile is, in the words of the game's layout table."""
    if name[0] == "f":
        if game_id == ROUGE_ET_NOIR:
            return "colour foundation" if name in COLOUR_FOUNDATIONS else "sequence foundation"
        return "foundation"
    return {"r": "reserve", "t": "tableau", "s": "stock", "w": "waste"}[name[0]]


def _aces_and_kings_kinds() -> frozenset[str]:
    sources = ["reserve", "waste", "tableau", "foundation"]
    targets = ["foundation", "empty foundation", "empty tableau"]
    return frozenset(["draw"] + [f"{s} > {t}" for s in sources for t in targets])


#: Every kind of move a game's section allows (§2.4, §3.3, §4.3–§4.5, §4.7, §5.5),
#: as ``legal_moves`` names them: "SOURCE > [empty ]DESTINATION", a run's source
#: being "tableau run".
MOVE_KINDS: dict[str, frozenset[str]] = {
    RACING_ACES: _aces_and_kings_kinds(),
    DOUBLE_ACES_AND_KINGS: _aces_and_kings_kinds(),
    ROUGE_ET_NOIR: frozenset(
        {
            "draw",
            "tableau > tableau",
            "tableau > empty tableau",
            "tableau run > tableau",
            "tableau run > empty tableau",
            "tableau > colour foundation",
            "tableau > empty colour foundation",
            "colour foundation > tableau",
            "colour foundation > empty tableau",
            "tableau run > empty sequence foundation",
        }
    ),
    FOURS_UP: frozenset(
        ["draw", "tableau run > tableau", "tableau run > empty tableau"]
        + [
            f"{source} > {target}"
            for source in ("waste", "tableau", "foundation")
            for target in ("foundation", "empty foundation", "tableau", "empty tableau")
            # An empty foundation takes only a 4, and no 4 can ever reach the waste:
            # the 4s start on the foundations (§5.2), not in the stock.
            if (source, target) != ("waste", "empty foundation")
        ]
    ),
}

#: Rules that only some legal moves rely on (``special_cases``), per game: the
#: late-game and corner rules a test must see listed at least once.
SPECIAL_CASES: dict[str, frozenset[str]] = {
    RACING_ACES: frozenset({"§2.4 a full foundation gives its top", "§2.4 a card changes group"}),
    DOUBLE_ACES_AND_KINGS: frozenset({"§2.4 a full foundation gives its top", "§2.4 a card changes group"}),
    ROUGE_ET_NOIR: frozenset({"§4.4 an ace beside its partner's ace", "§4.3 the upper part of a run moves"}),
    FOURS_UP: frozenset({"§5.3 an A on a K", "§5.5 a base 4 leaves its foundation"}),
}

#: The automatic effects that ``play`` reports, per game.
EFFECTS: dict[str, frozenset[str]] = {
    RACING_ACES: frozenset({"§2.5 refill", "§2.5 no refill: the stock is empty"}),
    DOUBLE_ACES_AND_KINGS: frozenset({"§3.3 no refill"}),
    ROUGE_ET_NOIR: frozenset(
        {"§4.6 flip", "§4.7 draw onto an empty tableau pile", "§4.7 the last, short draw"}
    ),
    FOURS_UP: frozenset({"§5.4 no refill"}),
}


# -- §7.1 positions -------------------------------------------------------------


@dataclass
class Position:
    """A position as its text tells it (§7.1): each pile's card codes, bottom
    first, and how many of its bottom cards lie face down."""

    game_id: str
    piles: dict[str, list[str]]
    face_down: dict[str, int]

    @classmethod
    def from_text(cls, text: str) -> Position:
        """Read a position text: ``GAME NAME:CARDS ...``, ``~`` before a face-down card."""
        game_id, *fields = text.split(" ")
        piles: dict[str, list[str]] = {}
        face_down: dict[str, int] = {}
        for item in fields:
            name, _, cards = item.partition(":")
            codes = [code for code in cards.split("~") if code]
            piles[name] = [code[i : i + 2] for code in codes for i in range(0, len(code), 2)]
            face_down[name] = cards.count("~")
        expected = LAYOUTS[game_id].pile_names()
        if list(piles) != expected:
            raise ValueError(f"{game_id} has the piles {expected}, not {list(piles)}")
        return cls(game_id, piles, face_down)

    def to_text(self) -> str:
        """The position text (§7.1)."""
        return " ".join([self.game_id] + [f"{name}:{self.pile_text(name)}" for name in self.piles])

    def pile_text(self, name: str) -> str:
        """One pile's cards as the position text writes them (``~`` before a face-down card)."""
        down = self.face_down[name]
        cards = self.piles[name]
        return "".join("~" + card for card in cards[:down]) + "".join(cards[down:])

    def copy(self) -> Position:
        """An independent copy."""
        return Position(self.game_id, {n: list(c) for n, c in self.piles.items()}, dict(self.face_down))

    def names(self, letter: str) -> list[str]:
        """The piles of one kind (``f``, ``r``, ``t``), in canonical order."""
        return names_of_kind(self.game_id, letter)

    def face_up(self, name: str) -> list[str]:
        """The pile's face-up cards, bottom first (face-down ones lie beneath them, §4.6)."""
        return self.piles[name][self.face_down[name] :]

    def top(self, name: str) -> str | None:
        """The pile's top card if there is one and it is face up (§1.2)."""
        pile = self.piles[name]
        return pile[-1] if len(pile) > self.face_down[name] else None

    @property
    def cards_home(self) -> int:
        """Cards on all the foundations together (§1.5)."""
        return sum(len(self.piles[name]) for name in self.names("f"))

    @property
    def won(self) -> bool:
        """All the game's cards are on the foundations (§1.5)."""
        return self.cards_home == LAYOUTS[self.game_id].total


@cache
def names_of_kind(game_id: str, letter: str) -> list[str]:
    """The game's piles whose names start with ``letter``, in canonical order (§1.2)."""
    return [name for name in LAYOUTS[game_id].pile_names() if name[0] == letter]


def move_text(source: str, count: int, destination: str) -> str:
    """The one spelling of a move (§1.3)."""
    return f"{source}>{destination}" if count == 1 else f"{source}:{count}>{destination}"


def parse_move(move: str) -> Move:
    """(source, number of cards, destination) of a ``SRC>DST`` or ``SRC:N>DST`` move."""
    source, _, destination = move.partition(">")
    source, _, count = source.partition(":")
    return source, int(count or 1), destination


def move_kind(position: Position, source: str, count: int, destination: str) -> str:
    """The kind of a move, e.g. ``"tableau run > empty tableau"`` (see ``MOVE_KINDS``)."""
    what = pile_kind(position.game_id, source) + (" run" if count > 1 else "")
    empty = "" if position.piles[destination] else "empty "
    return f"{what} > {empty}{pile_kind(position.game_id, destination)}"


# -- legal moves ----------------------------------------------------------------


def legal_moves(position: Position) -> dict[str, str]:
    """Every legal move of the position, mapped to its kind (``MOVE_KINDS``).

    ``draw`` is legal whenever the stock holds cards, in every game (§1.3); the
    other moves are the game's: ``aces_and_kings_moves``,
    ``rouge_et_noir_moves``, ``fours_up_moves``.
    """
    moves: dict[str, str] = {}
    if position.piles["s"]:
        moves["draw"] = "draw"
    game_moves = {
        RACING_ACES: aces_and_kings_moves,
        DOUBLE_ACES_AND_KINGS: aces_and_kings_moves,
        ROUGE_ET_NOIR: rouge_et_noir_moves,
        FOURS_UP: fours_up_moves,
    }[position.game_id]
    for source, count, destination in game_moves(position):
        moves[move_text(source, count, destination)] = move_kind(position, source, count, destination)
    return moves


def aces_and_kings_next_rank(position: Position, foundation: str) -> int | None:
    """§2.3 (and §3.1): the rank a foundation accepts, in any suit: its group's
    first rank when it is empty, otherwise one rank on from its top in the group's
    direction. Ranks stop at A and K, so a full pile accepts nothing (None)."""
    first, step = ACES_AND_KINGS_GROUPS[position.game_id][int(foundation[1:])]
    pile = position.piles[foundation]
    if not pile:
        return first
    next_rank = rank(pile[-1]) + step
    return next_rank if 1 <= next_rank <= KING else None


def aces_and_kings_moves(position: Position) -> list[Move]:
    """Racing Aces §2.4 and Double Aces and Kings §3.3.

    Only single cards move. The top card of any reserve, the waste, any tableau
    pile or any foundation (full ones included) may go onto any other foundation
    that accepts it (§2.3), whatever its group, or onto any empty tableau pile;
    never onto an occupied tableau pile, and nothing goes onto a reserve, the
    stock or the waste (§1.4)."""
    moves: list[Move] = []
    takers: dict[int | None, list[str]] = {}  # rank -> the foundations that accept it
    for foundation in position.names("f"):
        takers.setdefault(aces_and_kings_next_rank(position, foundation), []).append(foundation)
    sources = position.names("r") + ["w"] + position.names("t") + position.names("f")
    for source in sources:
        card = position.top(source)
        if card is None:
            continue
        for foundation in takers.get(rank(card), []):
            if foundation != source:
                moves.append((source, 1, foundation))
        for tableau in position.names("t"):
            if tableau != source and not position.piles[tableau]:
                moves.append((source, 1, tableau))
    return moves


def rouge_et_noir_tableau_accepts(position: Position, pile: str, bottom: str) -> bool:
    """§4.3: a card (or run bottom) one rank below the top and of the other colour;
    an empty pile only a K (or a run whose bottom is a K)."""
    top = position.top(pile)
    if top is None:
        return rank(bottom) == KING
    return rank(bottom) == rank(top) - 1 and is_red(bottom) != is_red(top)


def colour_foundation_accepts(position: Position, foundation: str, card: str) -> bool:
    """§4.4: one rank up in the same colour (either suit of it), full at K. An empty
    one takes an A only if its partner is empty or has an A of the other colour at
    the bottom (the pair rule, judged on the piles as they are now)."""
    pile = position.piles[foundation]
    if pile:
        return rank(card) == rank(pile[-1]) + 1 and is_red(card) == is_red(pile[-1])
    if rank(card) != 1:
        return False
    partner = position.piles[PARTNER[foundation]]
    return not partner or (rank(partner[0]) == 1 and is_red(partner[0]) != is_red(card))


def is_alternating_run(cards: list[str]) -> bool:
    """§4.3: going up, each card one rank lower than the one under it, of the other colour."""
    return all(
        rank(upper) == rank(lower) - 1 and is_red(upper) != is_red(lower)
        for lower, upper in zip(cards, cards[1:])
    )


def rouge_et_noir_moves(position: Position) -> list[Move]:
    """Rouge et Noir §4.3–§4.5.

    - A tableau pile gives its face-up top card, or a run of its top N face-up
      cards (N ≥ 2), to another tableau pile that accepts the (bottom) card.
    - A single tableau top card may go to a colour foundation that accepts it (§4.4).
    - A run of exactly 13 cards, K to A, may go to an empty sequence foundation (§4.5).
    - A colour foundation's top card may go back to the tableau by the tableau rules,
      never to another foundation. Sequence foundations and the stock never give."""
    moves: list[Move] = []
    tableau = position.names("t")
    for source in tableau:
        face_up = position.face_up(source)
        for count in range(1, len(face_up) + 1):
            cards = face_up[-count:]
            if not is_alternating_run(cards):
                break  # a longer group contains this one, so it is no run either
            bottom = cards[0]
            for destination in tableau:
                if destination != source and rouge_et_noir_tableau_accepts(position, destination, bottom):
                    moves.append((source, count, destination))
            if count == 1:
                for foundation in COLOUR_FOUNDATIONS:
                    if colour_foundation_accepts(position, foundation, bottom):
                        moves.append((source, 1, foundation))
            if count == WHOLE_RUN and rank(bottom) == KING:
                for foundation in SEQUENCE_FOUNDATIONS:
                    if not position.piles[foundation]:
                        moves.append((source, count, foundation))
    for source in COLOUR_FOUNDATIONS:
        card = position.top(source)
        if card is None:
            continue
        for destination in tableau:
            if rouge_et_noir_tableau_accepts(position, destination, card):
                moves.append((source, 1, destination))
    return moves


def fours_up_foundation_accepts(position: Position, foundation: str, card: str) -> bool:
    """§5.3: the next rank of the same suit, K followed by A, 2, 3; a pile topped by
    a 3 is full and takes nothing; an empty pile takes any 4 and nothing else."""
    pile = position.piles[foundation]
    if not pile:
        return rank(card) == 4
    top = pile[-1]
    if rank(top) == 3:
        return False
    return suit(card) == suit(top) and rank(card) == rank(top) % 13 + 1


def fours_up_tableau_accepts(position: Position, pile: str, bottom: str) -> bool:
    """§5.4: an empty pile takes any card or run; otherwise only a top of rank 5..K
    takes, and only a card (run bottom) exactly one rank below it, any suit."""
    top = position.top(pile)
    if top is None:
        return True
    return 5 <= rank(top) <= KING and rank(bottom) == rank(top) - 1


def is_descending_run(cards: list[str]) -> bool:
    """§5.4: going up, the rank drops by exactly one from each card to the next; suits do not matter."""
    return all(rank(upper) == rank(lower) - 1 for lower, upper in zip(cards, cards[1:]))


def fours_up_moves(position: Position) -> list[Move]:
    """Fours Up §5.5.

    - The waste's top card goes to a foundation or to the tableau.
    - A tableau pile's top card goes to a foundation or another tableau pile; a
      run of its top N cards (N ≥ 2) goes only to another tableau pile.
    - A foundation's top card, its base 4 included, goes to another foundation
      that accepts it, or to the tableau."""
    moves: list[Move] = []
    foundations = position.names("f")
    tableau = position.names("t")
    for source in ["w"] + foundations:
        card = position.top(source)
        if card is None:
            continue
        for foundation in foundations:
            if foundation != source and fours_up_foundation_accepts(position, foundation, card):
                moves.append((source, 1, foundation))
        for destination in tableau:
            if fours_up_tableau_accepts(position, destination, card):
                moves.append((source, 1, destination))
    for source in tableau:
        cards = position.piles[source]
        for count in range(1, len(cards) + 1):
            moving = cards[-count:]
            if not is_descending_run(moving):
                break
            for destination in tableau:
                if destination != source and fours_up_tableau_accepts(position, destination, moving[0]):
                    moves.append((source, count, destination))
            if count == 1:
                for foundation in foundations:
                    if fours_up_foundation_accepts(position, foundation, moving[0]):
                        moves.append((source, 1, foundation))
    return moves


#: What a pile would take, for ``candidate_moves``: a test of the (bottom) card,
#: and the fewest cards it takes at once.
Receiver = tuple[Callable[[str], bool], int]


def any_card(card: str) -> bool:
    return True


def has_rank(wanted: int | None, card: str) -> bool:
    return rank(card) == wanted


def receivers(position: Position) -> dict[str, Receiver]:
    """Every pile that can take cards now, with its own rule: the rules above, less
    every rule about the source; and every sequence foundation, for 12 cards or
    more (its being empty is a rule about itself). Only ``candidate_moves`` asks."""
    game_id = position.game_id
    rules: dict[str, Receiver] = {}
    for name, pile in position.piles.items():
        kind = pile_kind(game_id, name)
        if game_id in ACES_AND_KINGS_GROUPS:
            if kind == "foundation":
                rules[name] = (partial(has_rank, aces_and_kings_next_rank(position, name)), 1)
            elif kind == "tableau" and not pile:
                rules[name] = (any_card, 1)
        elif game_id == ROUGE_ET_NOIR:
            if kind == "tableau":
                rules[name] = (partial(rouge_et_noir_tableau_accepts, position, name), 1)
            elif kind == "colour foundation":
                rules[name] = (partial(colour_foundation_accepts, position, name), 1)
            elif kind == "sequence foundation":
                rules[name] = (any_card, WHOLE_RUN - 1)
        elif kind == "foundation":
            rules[name] = (partial(fours_up_foundation_accepts, position, name), 1)
        elif kind == "tableau":
            rules[name] = (partial(fours_up_tableau_accepts, position, name), 1)
    return rules


def candidate_moves(position: Position) -> list[str]:
    """``draw`` and every move whose destination would take the cards it names
    (``receivers``), whether or not the source may give them: the top card of any
    pile, the stock and the sequence foundations included, and the top cards of a
    tableau pile as long as their ranks go down one by one (whatever their colours,
    face-down cards included), and one card more. Such a move is legal exactly when
    ``legal_moves`` lists it; a test asks the engine's ``is_legal`` and ``play``
    about them all, to check that they apply the rules about sources (§1.2, §1.3,
    §4.3–§4.5, §6 ``not-available``) and the stock's end (§1.3) to moves that
    nobody lists, too."""
    moves = ["draw"]
    rules = receivers(position)
    for source, cards in position.piles.items():
        most = min(len(cards), 1)
        if source[0] == "t":
            while most < len(cards) and is_descending_run(cards[-most - 1 :]):
                most += 1
            most = min(len(cards), most + 1)
        for count in range(1, most + 1):
            bottom = cards[-count]
            for destination, (accepts, fewest) in rules.items():
                if destination != source and count >= fewest and accepts(bottom):
                    moves.append(move_text(source, count, destination))
    return moves


def special_cases(position: Position, move: str) -> list[str]:
    """The corner rules (``SPECIAL_CASES``) that a legal move relies on."""
    if move == "draw":
        return []
    source, count, destination = parse_move(move)
    piles = position.piles
    game_id = position.game_id
    cases = []
    if game_id in ACES_AND_KINGS_GROUPS and source[0] == "f":
        if aces_and_kings_next_rank(position, source) is None:
            cases.append("§2.4 a full foundation gives its top")
        groups = ACES_AND_KINGS_GROUPS[game_id]
        if destination[0] == "f" and groups[int(source[1:])] != groups[int(destination[1:])]:
            cases.append("§2.4 a card changes group")
    elif game_id == ROUGE_ET_NOIR:
        if destination in PARTNER and not piles[destination] and piles[PARTNER[destination]]:
            cases.append("§4.4 an ace beside its partner's ace")
        face_up = position.face_up(source)
        if count > 1 and len(face_up) > count and is_alternating_run(face_up[-count - 1 :]):
            cases.append("§4.3 the upper part of a run moves")
    elif game_id == FOURS_UP:
        if destination[0] == "f" and piles[destination] and rank(piles[destination][-1]) == KING:
            cases.append("§5.3 an A on a K")
        if source[0] == "f" and len(piles[source]) == 1:
            cases.append("§5.5 a base 4 leaves its foundation")
    return cases


# -- what a move does -----------------------------------------------------------


@dataclass
class Outcome:
    """What a legal move does: the new position, the cards it reveals as
    (pile, card) pairs in order (§7.4), and its automatic effects (``EFFECTS``)."""

    position: Position
    revealed: list[tuple[str, str]] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)


def play(position: Position, move: str) -> Outcome:
    """The outcome of a move that ``legal_moves`` lists; ``position`` is not changed."""
    after = position.copy()
    outcome = Outcome(after)
    if move == "draw":
        draw(outcome)
        return outcome
    source, count, destination = parse_move(move)
    piles = after.piles
    # §1.3: the top ``count`` cards move in one piece, keeping their order.
    moving = piles[source][-count:]
    del piles[source][-count:]
    piles[destination].extend(moving)
    if source[0] == "t":
        after_tableau_move(outcome, source)
    return outcome


def draw(outcome: Outcome) -> None:
    """§1.3 ``draw``: the stock's top card (the last one in the text, §7.1) goes face
    up onto the waste; in Rouge et Noir (§4.7) one card goes face up onto every
    tableau pile from t0 on, empty ones included, as long as the stock lasts."""
    position = outcome.position
    stock = position.piles["s"]
    if position.game_id != ROUGE_ET_NOIR:
        card = stock.pop()
        position.piles["w"].append(card)
        outcome.revealed.append(("w", card))
        return
    tableau = position.names("t")
    if len(stock) < len(tableau):
        outcome.effects.append("§4.7 the last, short draw")
    for pile in tableau:
        if not stock:
            break
        if not position.piles[pile]:
            outcome.effects.append("§4.7 draw onto an empty tableau pile")
        card = stock.pop()
        position.piles[pile].append(card)
        outcome.revealed.append((pile, card))


def after_tableau_move(outcome: Outcome, source: str) -> None:
    """The automatic effects on a tableau pile that a move took cards from.

    - Racing Aces §2.5: an emptied pile gets the stock's top card face up, unless
      the stock is empty.
    - Double Aces and Kings §3.3 (and Fours Up §5.4): no refill, ever.
    - Rouge et Noir §4.6: an uncovered face-down card turns face up."""
    position = outcome.position
    pile = position.piles[source]
    game_id = position.game_id
    if not pile:
        if game_id == RACING_ACES:
            stock = position.piles["s"]
            if stock:
                pile.append(stock.pop())
                outcome.revealed.append((source, pile[-1]))
                outcome.effects.append("§2.5 refill")
            else:
                outcome.effects.append("§2.5 no refill: the stock is empty")
        elif game_id == DOUBLE_ACES_AND_KINGS:
            outcome.effects.append("§3.3 no refill")
        elif game_id == FOURS_UP:
            outcome.effects.append("§5.4 no refill")
        return
    if position.face_down[source] == len(pile):
        position.face_down[source] -= 1
        outcome.revealed.append((source, pile[-1]))
        outcome.effects.append("§4.6 flip")
