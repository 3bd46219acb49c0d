"""`solrace verify`: re-deal and re-play a finished race or daily, and confirm
or refute its published result.

Input: a replay document — the protocol's `replay` reply (docs/protocol.md
§3), or a daily's published replays (§5 `daily_replay`) — read from a JSON or
MessagePack file, or fetched from a server (`--race ID`, or `--daily GAME --date
YYYY-MM-DD [--player ID]`, with `--url ws://HOST:PORT/ws`, default the local
server's, as the other commands). Its fields:

    game, seed, rules_version?, deal_version?, commitment?, starts_at?,
    ranking: [{rank, player, name, status, won, home, moves, time_ms, home_at_ms,
               last_move_ms?}],
    players: [{player, name, moves: [[move, at], ...], starts_at?, ended_ms?}]

What is checked, independently of the server's code:

1. The deal's fingerprint, ``sha256(seed)`` (the document's ``commitment``):
   the one in the document and the one given with ``--fingerprint`` (the one
   you saw when the race or the day opened: that is what makes the check
   meaningful; ``--commitment``, its old name, still works).
2. The deal: the seed is re-dealt with docs/rules.md §8 (``rules.deal``) and every
   player's moves are re-played with the rules engine; an illegal move, or a
   move after the game was won, refutes.
3. Every figure of the ranking against the re-play: ``won``, ``status``,
   ``home``, ``moves``; with the start time (``starts_at``, or inferred from
   one player and then checked against the others) also ``time_ms`` of a win
   and ``home_at_ms`` (start → the first moment the final home count was
   reached; 0 if it is the count dealt home, as Fours Up's 4s), and
   ``last_move_ms`` when given (start → the last move; nil with no move).
   A player's ``ended_ms`` (a race's replay: the end of their game) must be
   their ``time_ms`` when they have one, and never before their last move.
4. The order, by the rule of ``protocol.ranking``: winners by ``time_ms``;
   then ``home`` (more first), then ``home_at_ms``, then **more** ``moves``
   (a player who made no move ranks below one who played); equal keys share
   a rank (1, 1, 3).
5. A certified deal's proof (``proof``, with ``par``): the solver's winning
   line, re-played from the deal, must win, and ``par`` must be its length.

Exit code 0 when everything checks (CONFIRMED), 1 when something does not
(REFUTED, with each difference), 2 when the input cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client import cli
from protocol import rules
from protocol.ranking import entry_key

from . import InputError
from .race_link import RACE_HELP, add_source_arguments, add_token_argument, fetch, load, race_source, token_of


@dataclass
class Report:
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the seed was checked against a fingerprint, its sha256 (given, or published by the server)
    committed: bool = False

    @property
    def confirmed(self) -> bool:
        return not self.problems

    def text(self) -> str:
        lines = [f"ok    {c}" for c in self.checked]
        lines += [f"note  {n}" for n in self.notes]
        lines += [f"FAIL  {p}" for p in self.problems]
        if self.confirmed and self.committed:
            lines.append(
                "CONFIRMED: the seed is the one its fingerprint (sha256 of the seed) promised, "
                "and the published result follows from it and the moves"
            )
        elif self.confirmed:
            lines.append(
                "CONFIRMED: the published result follows from the seed and the moves "
                "(the seed itself is unchecked: no fingerprint to check it against)"
            )
        else:
            n = len(self.problems)
            lines.append(f"REFUTED: {n} problem" + ("" if n == 1 else "s"))
        return "\n".join(lines)


@dataclass
class Replayed:
    """What re-playing one player's moves gives."""

    won: bool
    home: int
    moves: int
    win_at: int | None  # time of the winning move
    first_at: dict[int, int | None]  # home count -> time first reached (None: at the start)
    last_at: int | None  # time of the last move (None: no move)


def _replay_player(game: str, seed: str, who: str, moves: list[Any], report: Report) -> Replayed | None:
    try:
        g = rules.deal(game, seed)
    except ValueError as e:
        raise InputError(str(e)) from None
    first_at: dict[int, int | None] = {g.cards_home: None}  # Fours Up deals its 4s home
    win_at: int | None = None  # set by the winning move
    prev_at: int | None = None
    for i, item in enumerate(moves):
        try:
            move, at = str(item[0]), int(item[1])
        except (TypeError, ValueError, IndexError):
            raise InputError(f"{who}: move {i + 1} is not [move, at]: {item!r}") from None
        if win_at is not None:
            report.problems.append(f"{who}: move {i + 1} {move!r} was played after the game was won")
            return None
        try:
            g.play(move)
        except rules.IllegalMove as e:
            report.problems.append(f"{who}: move {i + 1} {move!r} is illegal ({e.code}: {e.message})")
            return None
        if prev_at is not None and at < prev_at:
            report.problems.append(f"{who}: move {i + 1} {move!r} is timed before the move before it")
        prev_at = at
        first_at.setdefault(g.cards_home, at)
        if g.won:
            win_at = at
    return Replayed(g.won, g.cards_home, len(moves), win_at, first_at, prev_at)


def verify(doc: dict[str, Any], *, seed: str | None = None, commitment: str | None = None) -> Report:
    """Check a replay document (see the module doc); never raises on a bad
    result, only on an unreadable document (InputError)."""
    report = Report()
    if not isinstance(doc, dict):
        raise InputError("the replay is not a map")
    game = doc.get("game")
    if game not in rules.GAMES:
        raise InputError(f"unknown game {game!r}")
    for name, ours in (("rules_version", rules.RULES_VERSION), ("deal_version", rules.DEAL_VERSION)):
        theirs = doc.get(name)
        if theirs is not None and theirs != ours:
            raise InputError(f"{name} {theirs} is not the one this verifier implements ({ours})")
    published = doc.get("seed")
    if seed and published and seed != published:
        report.problems.append(f"the document's seed {published!r} is not the given seed {seed!r}")
    seed = seed or published
    if not seed or not isinstance(seed, str):
        raise InputError("no seed: the seed is revealed only once the race or day is over")

    # 1. the fingerprint (the wire's `commitment`): sha256 of the seed
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()
    given = [(c, src) for c, src in ((commitment, "given"), (doc.get("commitment"), "published")) if c]
    if not given:
        report.notes.append(
            "no fingerprint (sha256 of the seed) to check the seed against (pass --fingerprint)"
        )
    for c, src in given:
        if c.lower() == digest:
            report.committed = True
            report.checked.append(f"the seed matches the {src} fingerprint (sha256 of the seed) {c[:16]}…")
        else:
            report.problems.append(
                f"the seed's fingerprint (sha256 of the seed) {digest} differs from the {src} fingerprint {c}"
            )

    # 2. the moves
    players = doc.get("players") or []
    ranking = sorted(doc.get("ranking") or [], key=lambda e: (e["rank"], str(e["player"])))
    entries = {str(e["player"]): e for e in ranking}
    replayed: dict[str, Replayed] = {}
    for p in players:
        who = str(p.get("player"))
        r = _replay_player(game, seed, who, p.get("moves") or [], report)
        if r is not None:
            replayed[who] = r
            label = f"{p['name']} ({who})" if p.get("name") else who
            report.checked.append(
                f"{label}: {r.moves} moves legal, {r.home} cards home" + (" (won)" if r.won else "")
            )
    for who in entries.keys() - {str(p.get("player")) for p in players}:
        report.problems.append(f"{who}: ranked, but no moves published")
    for who in {str(p.get("player")) for p in players} - entries.keys():
        report.problems.append(f"{who}: moves published, but not ranked")

    # 3. the figures
    for who, e in entries.items():
        r = replayed.get(who)
        if r is None:
            continue
        for name, want in (("won", r.won), ("home", r.home), ("moves", r.moves)):
            if e.get(name) != want:
                report.problems.append(f"{who}: recorded {name} {e.get(name)!r}, the replay gives {want!r}")
        if bool(e.get("won")) != (e.get("status") == "won"):
            report.problems.append(f"{who}: status {e.get('status')!r} contradicts won={e.get('won')!r}")

    # Start times: given per player or per race, else inferred from one player.
    starts: dict[str, int] = {}
    for p in players:
        s = p.get("starts_at", doc.get("starts_at"))
        if s is not None:
            starts[str(p.get("player"))] = int(s)
    if not starts and doc.get("race") is not None:
        # One race: one start for everyone; infer it from a player who tells it.
        for who, e in entries.items():
            r = replayed.get(who)
            if r is None:
                continue
            if r.won and e.get("time_ms") is not None and r.win_at is not None:
                inferred = r.win_at - e["time_ms"]
            elif e.get("home_at_ms") is not None and r.first_at[r.home] is not None:
                inferred = r.first_at[r.home] - e["home_at_ms"]
            else:
                continue
            starts = {w: inferred for w in entries}
            report.notes.append(
                f"start time inferred from {who}'s figures; the others are checked against it"
            )
            break
    if not starts:
        report.notes.append("times not checked (no start time in the document)")
    timed = 0
    for who, e in entries.items():
        r = replayed.get(who)
        if r is None or who not in starts:
            continue
        start = starts[who]
        reached = r.first_at[r.home]
        want_at = 0 if reached is None else reached - start
        if e.get("home_at_ms") is not None and e["home_at_ms"] != want_at:
            report.problems.append(
                f"{who}: recorded home_at_ms {e['home_at_ms']}, the replay gives {want_at}"
            )
        want_last = None if r.last_at is None else r.last_at - start
        if e.get("last_move_ms") is not None and e["last_move_ms"] != want_last:
            report.problems.append(
                f"{who}: recorded last_move_ms {e['last_move_ms']}, the replay gives {want_last}"
            )
        if r.won and r.win_at is not None and e.get("time_ms") != r.win_at - start:
            report.problems.append(
                f"{who}: recorded time_ms {e.get('time_ms')}, the replay gives {r.win_at - start}"
            )
        timed += 1
    if timed:
        report.checked.append(f"times of {timed} player" + ("" if timed == 1 else "s") + " match their moves")
    ends = 0
    for p in players:
        who, ended, e = str(p.get("player")), p.get("ended_ms"), entries.get(str(p.get("player")))
        if ended is None or e is None:
            continue
        ends += 1
        if e.get("time_ms") is not None and ended != e["time_ms"]:
            report.problems.append(f"{who}: ended_ms {ended}, but time_ms {e['time_ms']}")
        if e.get("last_move_ms") is not None and ended < e["last_move_ms"]:
            report.problems.append(f"{who}: ended_ms {ended}, before their last move at {e['last_move_ms']}")
    if ends:
        report.checked.append(
            f"the end of {ends} player"
            + ("'s game" if ends == 1 else "s' games")
            + " (ended_ms) fits their figures"
        )

    _check_proof(game, seed, doc, report)

    # 4. the order
    if ranking:
        try:
            keys = [entry_key(e) for e in ranking]
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"a ranking entry lacks a field: {exc}") from None
        base = ranking[0]["rank"]
        bad = False
        for i, e in enumerate(ranking):
            better = sum(1 for k in keys if k < keys[i])
            want = base + better if base != 1 else 1 + better
            if e["rank"] != want:
                report.problems.append(f"{e['player']}: ranked {e['rank']}, the ranking rule gives {want}")
                bad = True
        if not bad:
            what = "ranking order" if base == 1 else f"ranking order (from rank {base})"
            report.checked.append(
                f"{what} follows the rule for {len(ranking)} " + ("entry" if len(ranking) == 1 else "entries")
            )
    return report


def _check_proof(game: str, seed: str, doc: dict[str, Any], report: Report) -> None:
    """5. A certified deal's published winning line wins when re-played from the deal."""
    proof = doc.get("proof")
    if proof is None:
        return
    if not isinstance(proof, list) or not all(isinstance(mv, str) for mv in proof):
        report.problems.append("the proof is not a list of moves")
        return
    try:
        won = rules.replay(game, seed, proof).won
    except rules.IllegalMove as exc:
        report.problems.append(f"the proof has an illegal move: {exc}")
        return
    if not won:
        report.problems.append(f"the proof ({len(proof)} moves) does not win the deal")
        return
    report.checked.append(f"the certified deal's proof wins in {len(proof)} moves")
    par = doc.get("par")
    if par is not None and par != len(proof):
        report.problems.append(f"par {par} is not the proof's length {len(proof)}")


# --- command ----------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--race", metavar="ID_OR_LINK", help=RACE_HELP)
    parser.add_argument(
        "--daily", metavar="GAME", help=f"a closed daily's game (on --url, default {cli.DEFAULT_URL})"
    )
    parser.add_argument("--date", help="with --daily: the day, YYYY-MM-DD (UTC)")
    parser.add_argument("--player", help="with --daily: one player's entry (default: every published one)")
    parser.add_argument("--seed", help="the revealed seed, if the document lacks it (or to compare)")
    parser.add_argument(
        "--fingerprint",
        "--commitment",  # its old name, still read
        dest="commitment",
        metavar="SHA256",
        help="the deal's fingerprint (sha256 of the seed) you saw when the race or day opened",
    )
    parser.add_argument("--save", metavar="FILE", help="also write the fetched document as JSON")
    add_token_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        # `--daily` alone is on the default server, as `--race` is: the daily screen of
        # `solrace play` prints the command without `--url` for that server.
        if args.url or args.race or args.daily:
            if bool(args.race) == bool(args.daily) or (args.daily and not args.date):
                raise InputError("give --race ID, or --daily GAME --date YYYY-MM-DD")
            if args.race:
                urls, race, invite = race_source(args.race, args.url)
            else:
                urls, race, invite = list(args.url or [cli.DEFAULT_URL]), None, None
            doc = asyncio.run(
                fetch(
                    urls,
                    race=race,
                    invite=invite,
                    daily=args.daily,
                    date=args.date,
                    player=args.player,
                    token=token_of(args),
                )
            )
            if args.save:
                Path(args.save).write_text(json.dumps(doc, indent=1))
        elif args.file:
            doc = load(args.file)
        else:
            raise InputError("give a replay file, --race ID, or --daily GAME --date YYYY-MM-DD")
        report = verify(doc, seed=args.seed, commitment=args.commitment)
    except (InputError, OSError) as e:
        print(f"solrace verify: {e}", file=sys.stderr)
        return 2
    print(report.text())
    return 0 if report.confirmed else 1
