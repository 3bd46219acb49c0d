"""`solrace deal`: deal a game from a seed and show it with its legal moves.

A debugging and verification aid: it runs the same rules code as the server,
so `solrace deal GAME --seed S --moves "..."` reproduces any player's position
from a published seed and move log.
"""

from __future__ import annotations

import argparse
import sys

from protocol import rules

from .race_link import utf8_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=sorted(rules.GAMES), help="game id")
    parser.add_argument("--seed", type=utf8_text, help="deal seed (default: a fresh random one, printed)")
    parser.add_argument(
        "--moves",
        default="",
        help='moves to play first, separated by spaces or commas, e.g. "w>f0 draw t2:3>t5"',
    )


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else rules.random_seed()
    game = rules.GAMES[args.game]
    moves = args.moves.replace(",", " ").split()
    try:
        g = rules.replay(game.id, seed, moves)
    except rules.IllegalMove as e:
        # In words: the move, where it is in --moves (from 1), and why; not the code.
        where = f" (move {e.index + 1} of --moves)" if e.index is not None else ""
        print(f"solrace deal: {e.move!r}{where} is illegal: {e.message}", file=sys.stderr)
        return 1
    legal = g.legal_moves()
    print(f"game:        {game.id} ({game.name}), rules v{rules.RULES_VERSION}, deal v{rules.DEAL_VERSION}")
    print(f"seed:        {seed}")
    print(f"fingerprint: {rules.seed_commitment(seed)}")
    if moves:
        print(f"played:      {len(moves)} move" + ("" if len(moves) == 1 else "s"))
    print(f"home:        {g.cards_home}/{g.total}" + ("  (won)" if g.won else ""))
    print(f"position:    {g.to_text()}")
    print(f"view:        {g.view_text()}")
    print(f"legal ({len(legal)}): {' '.join(legal) if legal else '(none)'}")
    return 0
