"""`solrace analyze`: where each player of a finished race lost the win.

Input: the same replay document `solrace verify` reads (a JSON or MessagePack
file, or `--url ... --race ID` fetched from a server; see client/cli/verify.py).
For each player's move log the solver, knowing the whole deal, finds the
last position from which a win was still possible and the move that lost it,
with a winning line from there:

    alice: won until move 37, t2>f5; a winning line from there: ...

Each solver run has a budget (`--nodes`, `--seconds`); where it runs out the
answer says "unknown" and what was proved. The first line after the header
says what was proved about the deal itself, keeping a proof apart from a
budget that ran out:

    deal: winnable (proved)
    deal: lost (proved: no line wins it)
    deal: unknown (the budget ran out before a win or a proof of loss)

A player's line is wrapped to the terminal's width (80 columns when the output is not a
terminal), its continuation lines indented.

Exit code 0 when every player was analysed, 2 when the input cannot be read
or a move log is illegal.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import msgspec

from protocol import rules
from protocol.rules.facts import game_name
from protocol.solver import ANALYSIS_NODES, Analysis, analyze

from . import InputError
from .checks import positive_float, positive_int
from .race_link import (
    RACE_HELP,
    add_source_arguments,
    add_token_argument,
    check_versions,
    fetch,
    load,
    race_source,
    token_of,
    utf8_text,
)


class Player(msgspec.Struct):
    """A player of the document, as analyze reads it: its moves are `[move, at]` pairs, or
    plain moves."""

    player: str | None = None
    name: str | None = None
    moves: list[str | tuple[str, int]] = []


class Document(msgspec.Struct):
    players: list[Player] | None = None


def analyze_document(
    doc: dict[str, Any],
    *,
    seed: str | None = None,
    nodes: int = ANALYSIS_NODES,
    seconds: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[tuple[str, Analysis]]:
    """(player label, analysis) for every player with a move log in ``doc``; ``progress``
    hears what is being analysed before each player's (seconds of solving each)."""
    game = doc.get("game")
    seed = seed or doc.get("seed")
    if game not in rules.GAMES:
        raise InputError(f"unknown or missing game: {game!r}")
    if not isinstance(seed, str) or not seed:
        raise InputError("the document has no seed (give --seed)")
    check_versions(doc)
    try:
        players = msgspec.convert(doc, Document).players or []
    except msgspec.ValidationError as e:  # a wrong shape is the input's fault, not a traceback
        raise InputError(f"the document is malformed ({e})") from None
    out: list[tuple[str, Analysis]] = []
    for p in players:
        who = p.name or p.player or "?"
        moves = [m if isinstance(m, str) else m[0] for m in p.moves]
        if progress is not None:
            progress(f"analysing {who}'s {len(moves)} moves ({len(out) + 1} of {len(players)})…")
        try:
            result = analyze(game, seed, moves, nodes=nodes, seconds=seconds)
        except rules.IllegalMove as e:
            raise InputError(f"{who}: illegal move log: {e}") from None
        out.append((who, result))
    return out


def deal_line(results: list[tuple[str, Analysis]]) -> str:
    """What was proved about the deal, from every player's analysis: winnable
    if any proved a winnable position (every position of a game is reachable
    from the deal), lost if one proved the deal lost, else unknown."""
    found = {a.deal for _who, a in results}
    if "won" in found:
        return "deal: winnable (proved)"
    if "lost" in found:
        return "deal: lost (proved: no line wins it)"
    return "deal: unknown (the budget ran out before a win or a proof of loss)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--race", metavar="ID_OR_LINK", help=RACE_HELP)
    parser.add_argument("--seed", type=utf8_text, help="the revealed seed, if the document lacks it")
    parser.add_argument(
        "--nodes",
        type=positive_int,
        default=ANALYSIS_NODES,
        help=f"positions per solver run (default {ANALYSIS_NODES}, the server's analysis budget: "
        "the same answer as the browser's result view)",
    )
    parser.add_argument("--seconds", type=positive_float, help="wall-time cap per solver run")
    add_token_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        if args.race:
            urls, race, invite = race_source(args.race, args.url)
            doc = asyncio.run(fetch(urls, race=race, invite=invite, token=token_of(args)))
        elif args.url:
            raise InputError("with --url give --race ID")
        elif args.file:
            doc = load(args.file)
        else:
            raise InputError("give a replay file, or --url with --race")
        results = analyze_document(
            doc, seed=args.seed, nodes=args.nodes, seconds=args.seconds, progress=_progress_line()
        )
    except (InputError, OSError) as e:
        print(f"solrace analyze: {e}", file=sys.stderr)
        return 2
    if sys.stderr.isatty():
        print("\r\x1b[K", end="", file=sys.stderr)  # clear the progress line
    # The game's name, as the replay viewers head a race (the id for a game unknown here).
    print(f"{game_name(str(doc.get('game')))} · seed {args.seed or doc.get('seed')}")
    print(deal_line(results))
    width = shutil.get_terminal_size((80, 24)).columns
    for who, result in results:
        print(wrap(f"{who}: {result.text()}  [{result.solves} solver runs, {result.nodes} positions]", width))
    return 0


def wrap(text: str, width: int, indent: str = "    ") -> str:
    """``text`` folded to ``width`` columns, the lines after the first indented by ``indent``.

    A winning line runs to hundreds of moves, unreadable as one terminal line. Lines break
    only at spaces, so a move (``t2:3>t5``) is never split, even one wider than the room."""
    return textwrap.fill(
        text,
        width=max(width, len(indent) + 1),
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _progress_line() -> Callable[[str], None] | None:
    """On a terminal, one line of stderr rewritten with what is being analysed: a run
    can take seconds per player, and silence looks like a hang. Nothing when piped."""
    if not sys.stderr.isatty():
        return None

    def show(text: str) -> None:
        print("\r\x1b[K" + text, end="", file=sys.stderr, flush=True)

    return show
