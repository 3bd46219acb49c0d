"""What the terminal race app writes where the board is not (the lobby) and under it
(the final ranking, and a rated race's rating change), and on the status line when a race
starts, or does not, as it goes (a move done, the row of legal moves) and once it is over: plain functions of the race model, no terminal."""

from __future__ import annotations

import textwrap
from typing import Any
from urllib.parse import urlsplit

from rich.cells import cell_len
from rich.text import Text

from client.cli import DEFAULT_URL
from protocol.rules.facts import game_name

from .board import card_text
from .errors import REPLY_LOST, ServerError
from .intent import BOT_LEVELS, Intent
from .links import make_link
from .model import PlayerRow, RaceModel
from .race_commands import LOST_BEFORE_ANSWER, NOT_SENT, RematchWord
from .ratings_text import change_text, rated_needs_account
from .recent_text import shell_lines
from .text import clock, marked_name, plural, ranking_lines, tie_break_notes

#: What a rated race's result says until its `rating` event comes (docs/protocol.md §9).
RATING_PENDING = "rated race: your new rating comes once the ratings are updated…"

#: Why "Race a bot" found no bot (`no-bots`: every bot worker's slots are taken).
NO_BOT = "no bot is free right now (the server's bot workers are all busy): try again in a moment"


#: Where the final ranking is and the keys around it, said when the race ends.
RANKING_KEYS = "the final ranking is under the board (ctrl+r hides it; PgUp/PgDn scroll the board)"


#: What the way on says first once the race is over, by the rematch command at hand
#: (race_commands.rematch_word).
REMATCH_NEXT = {"rematch": "'rematch' for the same players again, ", "accept": "'accept' for the rematch, "}


def next_text(back_to: str | None, rematch: RematchWord = "") -> str:
    """Where to go once the race, or the player's own game, is over: the rematch when one
    may be asked or taken (``rematch``), the menu, or ctrl+q back to the app this race was
    played for (``back_to``: `solrace arena`)."""
    if back_to:
        return f"ctrl+q: {back_to}"
    return REMATCH_NEXT.get(rematch, "") + "'menu' for another race, ctrl+q to quit"


def event_text(
    ev: dict[str, Any], m: RaceModel, back_to: str | None, rematch: RematchWord = ""
) -> str | None:
    """What the status line says of a race event once ``m`` took it in, None: nothing new
    (`start` says the help: the app's). Once the race is over, ``rematch``
    (race_commands.rematch_word) is the way on it names first."""
    t = ev.get("t")
    if t == "end":
        return f"race over — {RANKING_KEYS}; " + next_text(back_to, rematch)
    if t == "rating" and m.rating is not None:
        return f"your {rating_change_text(m.rating)} — " + next_text(back_to, rematch)
    if t == "race" and ev.get("status") == "countdown":
        return "countdown…"
    return None


#: What the legal moves' row says when they do not all fit it, and what shows them all.
LEGAL_MORE = " … and {} more: type legal"
#: ...and once `legal` showed them all: how to fold them again.
LEGAL_FOLD = "  ('legal' folds them)"


def legal_text(legal: list[str], width: int | None = None, rows: int = 1, every: bool = False) -> str:
    """The legal moves under the board: how many, and as many of them as ``rows`` rows of
    ``width`` cells hold, then how many more and the `legal` command that shows them all (at
    80 columns the row was cut, the rest of them nowhere). ``every``: all of them (the
    `legal` command's), however many rows they take."""
    if not legal:
        return "legal: (asking…)"
    head = f"legal ({len(legal)}):"
    if every:
        return f"{head} {' '.join(legal)}{LEGAL_FOLD}"
    if width is None or rows_needed(f"{head} {' '.join(legal)}", width) <= rows:
        return f"{head} {' '.join(legal)}"
    shown = len(legal) - 1
    while (
        shown > 0
        and rows_needed(f"{head} {' '.join(legal[:shown])}{LEGAL_MORE.format(len(legal) - shown)}", width)
        > rows
    ):
        shown -= 1
    return f"{head} {' '.join(legal[:shown])}{LEGAL_MORE.format(len(legal) - shown)}"


def rows_needed(text: str, width: int) -> int:
    """The rows ``text`` takes wrapped between words at ``width`` cells (a word longer than a
    row takes rows of its own)."""
    rows, used = 1, 0
    for word in text.split(" "):
        size = cell_len(word)
        if used and used + 1 + size > width:
            rows, used = rows + 1, 0
        used += (1 if used else 0) + size
        while used > width:
            rows, used = rows + 1, used - width
    return rows


def move_done_text(move: str, ack: dict[str, Any]) -> str:
    """What the status line says of an accepted move: the cards it turned face up, a win."""
    revealed = ", ".join(f"{p}←{card_text(c).strip()}" for p, c in ack.get("revealed") or [])
    return (
        f"{move} ✓"
        + (f"  revealed {revealed}" if revealed else "")
        + ("  — YOU WON!" if ack.get("won") else "")
    )


def ranking_toggled_text(hidden: bool) -> str:
    """What ctrl+r says once it hid the final ranking, or showed it again."""
    if hidden:
        return "ranking hidden: the board has its rows (ctrl+r shows the ranking again)"
    return RANKING_KEYS


def connection_text(
    session: object | None, server_url: str | None, failed: bool = False, lost: bool = False
) -> str:
    """The connection's state as the play app and its menu say it: "connecting to HOST…"
    until the session opens (or "cannot connect to HOST" once that failed), then "connected
    to HOST", or "offline" for the in-process session (it has no `online`); once it dropped
    and until it is back (``lost``), that it is being reconnected."""
    host = urlsplit(server_url).netloc if server_url else ""
    at = f" to {host}" if host else ""
    if failed:
        return f"cannot connect{at}"
    if lost:
        return "connection lost — reconnecting…"
    if session is None:
        return f"connecting{at}…"
    if not getattr(session, "online", False):
        return "offline: a practice race against local bots"
    return f"connected{at}"


def learn_text(game: str | None) -> str:
    """The line that points a player waiting for a race to the `rules` command: the wait is
    the time to learn the game."""
    return f"'rules' tells how {game_name(game or '')} is played"


#: The widest line the board shows whole at 80 columns (it has a column of padding each side).
BOARD_COLUMNS = 78


def unreachable_text(server_url: str | None) -> str:
    """The board once no server answered (the status line has the reason): the ways on. It
    said only "cannot connect: …ConnectionRefusedError…", a dead end for a player who ran
    `solrace play` before any server. A line each, whole in 80 columns (the board does not
    wrap)."""
    return "\n".join(
        [
            f"No solrace server answered at {server_url or 'the address given'}.",
            "Start one there (solrace serve; in the project's folder: make run),",
            "or name the right one: solrace play --url ws://HOST:PORT/ws",
            "or practise without a server: solrace play --offline",
            "",
            "'retry' connects again (once a server runs there); ctrl+q quits",
        ]
    )


def lobby_text(m: RaceModel, server_url: str | None, refused: str | None = None, online: bool = True) -> str:
    """The race's seats and how to invite, before it starts (`server_url` makes links; an
    offline race, not ``online``, has no one to invite: its other seats are local bots); with
    no race, the menu's "choose a game…", or why the race asked for was refused (``refused``,
    :func:`start_refused_text`): what to do then is said with it, in lines whole in 80
    columns (the board does not wrap: a refused join's went off the screen)."""
    if m.status == "none":
        if refused:
            return textwrap.fill(refused, BOARD_COLUMNS, break_long_words=False, break_on_hyphens=False)
        return "choose a game…"
    if m.status == "queued":
        if m.rated:  # bots never sit in a rated race (server/handlers/rated.py)
            waiting = f"Rated quick match: waiting for rivals of close rating for {game_name(m.game or '')}…"
            waiting += "\n(accounts only: a rated race seats no bot)"
        else:
            waiting = f"Quick match: waiting for rivals for {game_name(m.game or '')}…"
            waiting += "\n(the server may seat a bot if nobody comes soon)"
        return (
            waiting + f"\n\n{learn_text(m.game)}\n'menu' (or 'leave') stops waiting and goes back to the menu"
        )
    lines = [
        f"Race {m.race_id} · {game_name(m.game or '')} · {m.status}",
        f"seats {len(m.players)}/{m.seats} · time limit {clock(m.time_limit_s * 1000)}"
        + (" · private" if m.private else "")
        + (" · rated" if m.rated else ""),
        "",
    ]
    for row in m.ordered():
        name = marked_name(row.who())
        lines.append(
            f"  {'✔' if row.ready else '·'} {name}{'  (host)' if row.player == m.host else ''}"
            f"{'  (you)' if row.player == m.me else ''}"
        )
    if m.status in ("lobby", "countdown"):
        lines += ["", learn_text(m.game)]
    if m.status == "lobby" and m.seats == 1:
        lines += ["", "a race of your own: type 'ready' to begin"]
    elif m.status == "lobby":
        lines += [
            "",
            "type 'ready' when set"
            + ("; 'start' begins with those present, once all are ready" if m.host == m.me else ""),
        ]
        # The link alone on its line: whole in 80 columns, and copied without the rest.
        if not online:
            # Nobody else can reach an in-process race: an invitation would be a dead end.
            lines += ["offline: the other seats are local bots (no one else can join)"]
        elif len(m.players) >= m.seats:
            # An invitation to a full lobby only earns its taker "every seat is taken".
            watch = "" if m.private else f" (others may watch: solrace watch --race {m.race_id})"
            lines += ["every seat is taken" + watch]
        elif m.private and m.invite and server_url:
            # A private race opens only with its secret: share the whole link.
            lines += [
                "invite with this link (a browser, or: solrace play --join 'LINK'):",
                make_link(server_url, m.race_id or "", m.invite),
            ]
        elif not m.private:
            lines += invite_lines(m.race_id or "", server_url)
            if server_url:
                lines += ["or the link:", make_link(server_url, m.race_id or "")]
    return "\n".join(lines)


def invite_lines(race: str, server_url: str | None) -> list[str]:
    """The command that joins a public race, with the server's ``--url`` unless it is the
    default one (without it the command went to 127.0.0.1:8765, whatever server the race is
    on), whole in 80 columns: broken between its arguments when it is longer."""
    units = ["solrace play", f"--join {race}"]
    if server_url and server_url != DEFAULT_URL:
        units.append(f"--url {server_url}")
    whole = "invite: " + " ".join(units)
    return [whole] if cell_len(whole) <= BOARD_COLUMNS else ["invite:", *shell_lines(units, BOARD_COLUMNS)]


def lobby_waits_text(m: RaceModel) -> str:
    """What the lobby waits for now, for the status line: the seats left free, then the
    player's own `ready`, the rivals still unready, or (all ready, seats free) the host's
    `start`."""
    free = m.seats - len(m.players)
    seats = "every seat is taken" if free <= 0 else f"{free} seat{'s' if free > 1 else ''} free"
    me = m.players.get(m.me) if m.me is not None else None
    unready = [marked_name(r.who()) for r in m.ordered() if not r.ready and r.player != m.me]
    if me is not None and not me.ready:
        wait = "type 'ready' when set"
    elif unready:
        wait = f"waiting for {', '.join(unready)} to be ready"
    elif m.host == m.me:
        wait = "'start' begins with those present, or wait for more"
    else:
        wait = "waiting for more players, or for the host to start"
    return f"{seats}: {wait}"


def lobby_change_text(m: RaceModel, before: dict[str, PlayerRow] | None) -> str | None:
    """What the status line says once a `race` event changed the lobby's seats or readiness
    (``before``: its rows until then, None when the player saw no lobby of this race yet):
    who came, left or got ready, and what the race waits for now. The line said when the race
    was created ("share its id") would otherwise stay once a rival sat down."""
    if before is None or m.status != "lobby" or m.me not in m.players:
        return None
    if {p: r.ready for p, r in before.items()} == {p: r.ready for p, r in m.players.items()}:
        return None
    said = []
    for pid, row in m.players.items():
        was = before.get(pid)
        if pid == m.me:
            continue
        if was is None:
            said.append(f"{marked_name(row.who())} joined" + (" (ready)" if row.ready else ""))
        elif was.ready != row.ready:
            said.append(f"{marked_name(row.who())} is {'ready' if row.ready else 'no longer ready'}")
    said += [f"{marked_name(r.who())} left" for p, r in before.items() if p not in m.players and p != m.me]
    return " · ".join(said + [lobby_waits_text(m)])


def rating_change_text(change: dict[str, Any]) -> str:
    """The player's map of a `rating` event in one line: ``rating 1000? → 1016? (+16)``,
    with how much the race counted when it counted less (a repeated pairing)."""
    line = "rating " + change_text(change.get("before") or {}, change.get("after") or {})
    weight = change.get("weight")
    if isinstance(weight, (int, float)) and weight < 1:
        line += f" · this race counted {round(100 * weight)}% (repeated pairing)"
    return line


def result_text(m: RaceModel) -> Text:
    """The final ranking (the player's own line highlighted), a rated race's rating change
    and the seed's commitment check."""
    t = Text()
    t.append("Final ranking" + (" · rated" if m.rated else "") + "\n", style="bold")
    for line, r in zip(ranking_lines(m.ranking or []), m.ranking or []):
        t.append(line + "\n", style="bold green" if r.get("player") == m.me else None)
    for note in tie_break_notes(m.ranking or []):
        t.append(note + "\n", style="dim")
    if m.rated and m.seeded:
        if m.rating is not None:
            t.append(rating_change_text(m.rating) + "\n", style="bold")
        else:
            t.append(RATING_PENDING + "\n", style="dim")
    if m.seed is None:
        # A daily attempt's race is sealed (docs/protocol.md §5): the seed comes with the day's close.
        t.append(f"the seed stays secret until the day closes; the deal's fingerprint: {m.commitment}")
        return t
    t.append(f"seed {m.seed}  ")
    ok = m.commitment_verified
    if ok:
        t.append("✓ matches the deal's fingerprint", style="green")  # one row at 80 columns
    elif ok is False:
        t.append(f"✗ does NOT match the deal's fingerprint {m.commitment}", style="bold red")
    return t


def _offered_by(offer: dict[str, Any]) -> str:
    """Who offers a rematch (a `rematch` event), with the mark the server vouches for."""
    return marked_name(
        {"player": offer.get("by"), "name": offer.get("name"), "account": offer.get("account")}
    )


def rematch_offer_text(offer: dict[str, Any]) -> str:
    """What the status line says of a rival's rematch offer: who offers it and the command
    that takes it."""
    return f"{_offered_by(offer)} offers a rematch (race {offer.get('rematch')}): 'accept' takes it"


def menu_offer_text(offer: dict[str, Any]) -> str:
    """The menu's line of a rival's rematch offer for the race the menu was opened from
    (its Accept and No thanks buttons beside it)."""
    return f"{_offered_by(offer)} offers a rematch of race {offer.get('race')}:"


def rematch_not_ready_text(e: ServerError, race: str) -> str:
    """A rematch's seat was taken but the `ready` after it failed: the lobby is on screen."""
    return f"rematch {race}: you hold a seat, but not ready: {e.describe()} — type 'ready'"


#: The intents whose request may have seated the player even when its reply never came.
SEATING_MODES = ("create", "practice", "bot", "daily", "join")


def start_refused_text(e: ServerError, intent: Intent, back_to: str | None = None) -> str:
    """Why the chosen race did not start, and the way back to the menu (or, for a race
    played for another app, ``back_to``: ctrl+q back there); a rematch asked or accepted
    stays on the finished race."""
    if back_to:
        return f"race {intent.race or ''}: {e.describe()} — ctrl+q goes {back_to}"
    if intent.mode in ("rematch", "accept"):
        if e.code == NOT_SENT:  # the command typed, said not sent as a move is
            return f"{intent.mode}: {e.describe()}"
        if e.code == "unknown-type":  # a server without rematches
            return "rematches need a server that has them: this one does not — 'menu' for another race"
        what = "no rematch" if intent.mode == "rematch" else "could not join the rematch"
        return f"{what}: {e.describe()} — 'menu' for another race"
    if e.code == "not-logged-in" and intent.rated:
        return rated_needs_account(intent.game, intent.mode) + " — 'menu' to choose again"
    if e.code == "no-bots":
        return f"{NO_BOT} — 'menu' to choose again"
    if e.code in ("timeout", REPLY_LOST) and intent.mode in SEATING_MODES:
        # Not "try again": the server may have made the race or taken the seat all the same.
        why = "the server did not answer in time" if e.code == "timeout" else LOST_BEFORE_ANSWER
        return (
            f"{why}; the race may be there all the same (solrace play, "
            "launched again, goes back to a race you hold a seat in) — 'menu' to choose again"
        )
    if intent.mode == "join":  # `--join RACE`: the race named, the server's reason in words
        return f"cannot join race {intent.race}: {e.describe()} — 'menu' for another race, ctrl+q to quit"
    return f"{e.describe()} — type 'menu' to choose again"


#: Why a `quick` sent again once reconnected may fail while the wait is not over: the
#: connection lost again (not sent, or its answer lost): the next `reconnected` sends it again.
REQUEUE_LATER = (NOT_SENT, "disconnected", REPLY_LOST)


def requeue_refused_text(e: ServerError, intent: Intent) -> str:
    """Why the wait in the quick-match queue, which the server ended with the lost connection,
    could not go on once reconnected (the `quick` sent again was refused), and the way on."""
    return "reconnected, but not back in the queue: " + start_refused_text(e, intent)


def started_text(intent: Intent, reply: dict[str, Any], online: bool = True) -> str:
    """What the player reads once the request that starts `intent` was answered (not
    ``online``: an in-process race, which nobody else can join)."""
    game = game_name(intent.game or "")
    if intent.mode == "quick":
        return f"waiting for {plural(intent.seats - 1, 'rival')} for {game}…" + (
            " (rated: players of close rating are matched first)" if intent.rated else ""
        )
    if intent.mode == "create":
        if intent.seats == 1:
            return f"race {reply.get('race')} created, a race of your own: type 'ready' to begin"
        share = f"share its id {reply.get('race')}" if online else "its other seats are local bots"
        return (
            f"race created: {share} — type 'ready' when set"
            " (or, once those present are ready, 'start' to begin with them)"
        )
    if intent.mode == "practice":
        return f"a {game} race of your own, with hints ('hint'): it starts now"
    if intent.mode == "daily":
        return f"today's {game} daily: your one ranked attempt" + (
            " (back to it: its clock never stops)" if reply.get("status") == "running" else ""
        )
    if intent.mode == "bot":
        level = dict(BOT_LEVELS).get(intent.level, intent.level)
        return f"a private {game} race against a bot ({level}): you are ready, it starts once the bot is"
    if intent.mode in ("rematch", "accept"):
        return (
            f"rematch {reply.get('race')}: you are ready ('unready' takes it back); it starts once "
            "every seat is taken and ready"
        )
    if intent.mode == "resume":
        return f"back in race {intent.race}"
    return f"joined {intent.race} — type 'ready'"
