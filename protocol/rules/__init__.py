"""solrace rules engine: the four patience games of docs/rules.md (rules version 1).

Pure and synchronous: no I/O, no clocks, no global state. The server uses it
to validate every move, the clients to show positions, and anyone to verify a
finished race from its published seed and move logs.

Layout
------
``cards``     cards as ints ("faces" 0..51) with precomputed rank/suit/colour/code
``deal``      the bit-exact seeded shuffle of docs/rules.md §8, seeds and commitments
``games``     pile kinds, their acceptance tables, and the four games as data
``facts``     what clients show of each game: names, blurbs, labelled pile groups
``engine``    ``Game``: the one move checker / generator / applier for all games
``view``      ``View``: what a player may see
``position``  parsing of position texts and view texts

Quick use::

    from protocol import rules
    g = rules.deal("racing-aces", rules.random_seed())
    g.legal_moves()            # ['draw', 'r0>f0', ...]
    result = g.apply("draw")   # MoveResult(move='draw', revealed=(('w', '7h'),), ...)
    g.view_text()              # what the player sees; g.to_text() is the whole truth
    rules.from_text(g.to_text()) == g

Game API
--------
``deal(game_id, seed)``, ``replay(game_id, seed, moves)``, ``from_text(text)``
make a ``Game``; on it: ``legal_moves()``, ``play(m)``, ``apply(m) ->
MoveResult``, ``check(m)``, ``is_legal(m)``, ``copy()``, ``to_text()``,
``view() -> View``, ``view_text()``, ``pile(name)`` (codes, ``~`` for face
down), and the facts ``game``, ``game_id``, ``cards_home``, ``total``,
``won``, ``stock_count``. ``view_from_text(text) -> View`` is for clients.
A ``Game`` pickles and copies cheaply (its ``GameDef`` travels by id).
``game_facts()`` is every game's display facts as JSON-able data;
``game_def(game_id)`` refuses an unknown game with ``UnknownGame``.

Errors
------
``IllegalMove`` (``.code``, ``.move``, ``.index`` from ``replay``) codes (docs/rules.md §6):

``bad-notation``   not ``draw``/``SRC>DST``/``SRC:K>DST``, or a non-canonical
                   spelling (``t2:1>t5``, ``t2:02>t5``, ``t01>t5``)
``no-such-pile``   a pile name the game does not have (``w`` in Rouge et Noir)
``same-pile``      source and destination are the same pile
``not-available``  the source cannot give: empty, too few face-up cards, not a
                   run, runs from a non-tableau pile, the stock or a sequence
                   foundation as a source
``not-accepted``   the destination refuses: wrong card, a reserve/stock/waste
                   destination, a run to a foundation, colour → colour, …
``stock-empty``    ``draw`` with an empty stock

``PositionError`` (a ``ValueError``) for a position or view text that is
malformed or cannot occur in its game.
"""

from __future__ import annotations

from .cards import card_code, card_name, parse_card
from .deal import DEAL_VERSION, random_seed, seed_commitment
from .engine import Game, MoveResult, deal, replay
from .errors import ILLEGAL_MOVE_CODES, IllegalMove, PositionError
from .facts import UnknownGame, game_def, game_facts, game_name
from .games import GAMES, GameDef
from .position import from_text, view_from_text
from .view import View

RULES_VERSION = 1

__all__ = [
    "DEAL_VERSION",
    "GAMES",
    "ILLEGAL_MOVE_CODES",
    "RULES_VERSION",
    "Game",
    "GameDef",
    "IllegalMove",
    "MoveResult",
    "PositionError",
    "UnknownGame",
    "View",
    "card_code",
    "card_name",
    "deal",
    "from_text",
    "game_def",
    "game_facts",
    "game_name",
    "parse_card",
    "random_seed",
    "replay",
    "seed_commitment",
    "view_from_text",
]
