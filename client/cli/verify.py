"""`solrace verify`: re-deal and re-play a finished race or daily, and confirm
or refute its published result.

Input: a replay document — the protocol's `replay` reply (docs/protocol.md
§3), or a daily's published replays (§5 `daily_replay`) — read from a JSON or
MessagePack file, or fetched from a server (`--race ID`, or `--daily GAME --date
YYYY-MM-DD [--player ID]`, with `--url ws://HOST:PORT/ws`, default the local
server's, as the other commands). Its fields:

    game, seed, rules_version?, deal_version?, commitment?, starts_at?,
    race? (a race's replay: one start for all), date? (a daily's: one per attempt),
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
3. Every figure of the ranking against the re-play: ``won``, ``status`` (one of
   won, finished, timeout; won exactly for a win; a timeout has no ``time_ms``),
   ``home``, ``moves``; a win must have its ``time_ms`` and every row a
   ``home_at_ms``. With the start time (``starts_at``, or inferred from one
   player and then checked against the others) also ``time_ms`` of a win
   (a finish's never before the last move) and ``home_at_ms`` (start → the first
   moment the final home count was reached; 0 if it is the count dealt home,
   as Fours Up's 4s), and ``last_move_ms`` (start → the last move; nil with no
   move; a daily attempt recorded before servers kept it may lack it).
   A player's ``ended_ms`` (a race's replay: the end of their game) must be
   their ``time_ms`` when they have one, and never before their last move.
   One row and one move log per player, the same players in both.
4. The order, by the rule of ``protocol.ranking``, over the figures the moves
   give (not the document's own): winners by ``time_ms``; then ``home`` (more
   first), then ``home_at_ms``, then **more** ``moves`` (a player who made no
   move ranks below one who played); equal keys share a rank (1, 1, 3), and
   the first is 1 (only one entry of a daily, ``--player``, has its board's
   rank, which the document cannot show).
5. A certified deal's proof (``proof``, with ``par``): the solver's winning
   line, re-played from the deal, must win, and ``par`` must be its length.

Exit code 0 when everything checks (CONFIRMED), 1 when something does not
(REFUTED, with each difference), 2 when the input cannot be read (a field of
the wrong type or shape included: the document is malformed).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client import cli
from protocol import rules
from protocol.ranking import DECLARED, TIMEOUT, WON, SortKey, sort_key

from . import InputError
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
from .replay_document import Document, Row, shape


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

    def key(self, start: int) -> SortKey:
        """The ranking key these figures give from ``start``: the order is checked with what
        the moves give, not with the document's own figures (a figure set to nil ranked as
        the latest, and its check was skipped)."""
        if self.won and self.win_at is not None:
            return sort_key(True, self.win_at - start, self.home, None, self.moves)
        reached = self.first_at[self.home]
        return sort_key(False, None, self.home, 0 if reached is None else reached - start, self.moves)


def _replay_player(
    game: str, seed: str, who: str, moves: list[tuple[str, int]], report: Report
) -> Replayed | None:
    try:
        g = rules.deal(game, seed)
    except ValueError as e:
        raise InputError(str(e)) from None
    first_at: dict[int, int | None] = {g.cards_home: None}  # Fours Up deals its 4s home
    win_at: int | None = None  # set by the winning move
    prev_at: int | None = None
    for i, (move, at) in enumerate(moves):
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


def _twice(ids: list[str]) -> list[str]:
    """The ids listed more than once, sorted."""
    return sorted(who for who, n in Counter(ids).items() if n > 1)


def verify(doc: dict[str, Any], *, seed: str | None = None, commitment: str | None = None) -> Report:
    """Check a replay document (see the module doc); never raises on a bad
    result, only on an unreadable document (InputError)."""
    report = Report()
    if not isinstance(doc, dict):
        raise InputError("the replay is not a map")
    game = doc.get("game")
    if game not in rules.GAMES:
        raise InputError(f"unknown game {game!r}")
    check_versions(doc)
    d = shape(doc)
    # A daily's document: each attempt has its own start; `--player` fetches one entry of its board.
    daily = d.date is not None
    published = d.seed
    if seed and published and seed != published:
        report.problems.append(f"the document's seed {published!r} is not the given seed {seed!r}")
    seed = seed or published
    if not seed:
        raise InputError("no seed: the seed is revealed only once the race or day is over")

    # 1. the fingerprint (the wire's `commitment`): sha256 of the seed
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()
    given = [(c, src) for c, src in ((commitment, "given"), (d.commitment, "published")) if c]
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

    # 2. the moves; one row and one move log per player: an extra row for a player ranked
    # them twice, and only their last row was checked
    players = d.players or []
    ranking = sorted(d.ranking or [], key=lambda e: (e.rank, e.player))
    twice = _twice([e.player for e in ranking])
    for who in twice:
        report.problems.append(f"{who}: ranked more than once")
    for who in _twice([p.player for p in players]):
        report.problems.append(f"{who}: moves published more than once")
    replayed: dict[str, Replayed] = {}
    for p in players:
        if p.player in replayed:
            continue
        r = _replay_player(game, seed, p.player, p.moves, report)
        if r is not None:
            replayed[p.player] = r
            label = f"{p.name} ({p.player})" if p.name else p.player
            report.checked.append(
                f"{label}: {r.moves} moves legal, {r.home} cards home" + (" (won)" if r.won else "")
            )
    ranked, logged = {e.player for e in ranking}, {p.player for p in players}
    for who in sorted(ranked - logged):
        report.problems.append(f"{who}: ranked, but no moves published")
    for who in sorted(logged - ranked):
        report.problems.append(f"{who}: moves published, but not ranked")

    # 3. the figures
    for e in ranking:
        r = replayed.get(e.player)
        if r is None:
            continue
        who = e.player
        for name, want in (("won", r.won), ("home", r.home), ("moves", r.moves)):
            if getattr(e, name) != want:
                report.problems.append(
                    f"{who}: recorded {name} {getattr(e, name)!r}, the replay gives {want!r}"
                )
        if e.status not in (WON, DECLARED, TIMEOUT):
            report.problems.append(f"{who}: status {e.status!r} is none of {WON}, {DECLARED}, {TIMEOUT}")
        elif e.won != (e.status == WON):
            report.problems.append(f"{who}: status {e.status!r} contradicts won={e.won!r}")
        if e.status == TIMEOUT and e.time_ms is not None:
            # docs/protocol.md `end`: time_ms is the win or the finish, nil for a timeout
            report.problems.append(f"{who}: status {TIMEOUT!r}, but time_ms {e.time_ms} (a timeout has none)")
        if r.won and e.time_ms is None:
            report.problems.append(f"{who}: won, but no time_ms")
        if e.home_at_ms is None:
            report.problems.append(f"{who}: no home_at_ms (every ranking row has one)")

    # Start times: given per player or per race, else inferred from one player.
    starts: dict[str, int] = {}
    for p in players:
        s = p.starts_at if p.starts_at is not None else d.starts_at
        if s is not None:
            starts[p.player] = s
    if not starts and d.race is not None:
        # One race: one start for everyone; infer it from a player who tells it.
        for e in ranking:
            r = replayed.get(e.player)
            if r is None or e.player in twice:  # not from a row that may be a fake one
                continue
            reached = r.first_at[r.home]
            if r.won and e.time_ms is not None and r.win_at is not None:
                inferred = r.win_at - e.time_ms
            elif e.home_at_ms is not None and reached is not None:
                inferred = reached - e.home_at_ms
            elif e.last_move_ms is not None and r.last_at is not None:
                inferred = r.last_at - e.last_move_ms
            else:
                continue
            starts = dict.fromkeys(logged, inferred)
            report.notes.append(
                f"start time inferred from {e.player}'s figures; the others are checked against it"
            )
            break
    if not starts:
        report.notes.append("times not checked (no start time in the document)")
    timed: set[str] = set()
    mistimed: set[str] = set()  # "ok" is said of the players whose times all match
    for e in ranking:
        r = replayed.get(e.player)
        if r is None or e.player not in starts:
            continue
        who, start, before = e.player, starts[e.player], len(report.problems)
        reached = r.first_at[r.home]
        want_at = 0 if reached is None else reached - start
        if e.home_at_ms is not None and e.home_at_ms != want_at:
            report.problems.append(f"{who}: recorded home_at_ms {e.home_at_ms}, the replay gives {want_at}")
        want_last = None if r.last_at is None else r.last_at - start
        if e.last_move_ms is None and want_last is not None and daily:
            # A daily attempt recorded before the server kept the figure lacks it (it does not rank).
            report.notes.append(f"{who}: last_move_ms not recorded (the replay gives {want_last})")
        elif e.last_move_ms != want_last:
            report.problems.append(
                f"{who}: recorded last_move_ms {e.last_move_ms}, the replay gives {want_last}"
            )
        if r.won and r.win_at is not None and e.time_ms is not None and e.time_ms != r.win_at - start:
            report.problems.append(
                f"{who}: recorded time_ms {e.time_ms}, the replay gives {r.win_at - start}"
            )
        if not r.won and e.time_ms is not None and want_last is not None and e.time_ms < want_last:
            report.problems.append(
                f"{who}: finished at time_ms {e.time_ms}, before their last move at {want_last}"
            )
        (timed if len(report.problems) == before else mistimed).add(who)
    if timed - mistimed:
        n = len(timed - mistimed)
        report.checked.append(f"times of {n} player" + ("" if n == 1 else "s") + " match their moves")
    rows = {}
    for e in reversed(ranking):  # a player's first row (a second one is a problem above)
        rows[e.player] = e
    ends = 0
    for p in players:
        row = rows.get(p.player)
        if p.ended_ms is None or row is None:
            continue
        before = len(report.problems)
        if row.time_ms is not None and p.ended_ms != row.time_ms:
            report.problems.append(f"{p.player}: ended_ms {p.ended_ms}, but time_ms {row.time_ms}")
        if row.last_move_ms is not None and p.ended_ms < row.last_move_ms:
            report.problems.append(
                f"{p.player}: ended_ms {p.ended_ms}, before their last move at {row.last_move_ms}"
            )
        ends += len(report.problems) == before
    if ends:
        report.checked.append(
            f"the end of {ends} player"
            + ("'s game" if ends == 1 else "s' games")
            + " (ended_ms) fits their figures"
        )

    _check_proof(game, seed, doc, report)
    _check_order(ranking, replayed, starts, d, report)
    return report


def _check_order(
    ranking: list[Row], replayed: dict[str, Replayed], starts: dict[str, int], d: Document, report: Report
) -> None:
    """4. The ranks, by the rule of protocol.ranking over the figures the moves give."""
    if not ranking:
        return
    if d.date is not None and len(ranking) == 1 and ranking[0].rank != 1:
        # `daily_replay --player`: one entry of the day's board, whose other entries are not here
        report.notes.append(
            f"rank {ranking[0].rank} not checked: the document holds one entry of the day's board"
        )
        return
    keys: dict[str, SortKey] = {}
    ranked = list(dict.fromkeys(e.player for e in ranking))
    for who in ranked:
        r = replayed.get(who)
        # A race has one start for everyone: the moments of its moves order alike without it
        # (and so do one player's).
        start = 0 if d.race is not None or len(ranked) == 1 else starts.get(who)
        if r is None:
            report.notes.append(f"ranking order not checked: {who}'s result does not re-play")
            return
        if start is None:
            report.problems.append(f"ranking order cannot be checked: no start (starts_at) for {who}")
            return
        keys[who] = r.key(start)
    bad = False
    for e in ranking:
        want = 1 + sum(1 for k in keys.values() if k < keys[e.player])
        if e.rank != want:
            report.problems.append(f"{e.player}: ranked {e.rank}, the ranking rule gives {want}")
            bad = True
    if not bad:
        n = len(ranking)
        report.checked.append(
            f"ranking order follows the rule for {n} "
            + ("entry" if n == 1 else "entries")
            + " (ranked by the figures their moves give)"
        )


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
        "--daily",
        metavar="GAME",
        type=utf8_text,
        help=f"a closed daily's game (on --url, default {cli.DEFAULT_URL})",
    )
    parser.add_argument("--date", type=utf8_text, help="with --daily: the day, YYYY-MM-DD (UTC)")
    parser.add_argument(
        "--player", type=utf8_text, help="with --daily: one player's entry (default: every published one)"
    )
    parser.add_argument(
        "--seed", type=utf8_text, help="the revealed seed, if the document lacks it (or to compare)"
    )
    parser.add_argument(
        "--fingerprint",
        "--commitment",  # its old name, still read
        dest="commitment",
        metavar="SHA256",
        type=utf8_text,
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
