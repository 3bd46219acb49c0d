"""What the race screen says and decides around its commands, as plain functions over the
:class:`RaceModel` (no terminal needed to test them): the help and the command line's
placeholder for the race's state (once it is over, the key that hides its ranking),
whether hints may be given, why `menu` is refused, when `finish` asks to be confirmed,
whether a rematch may be asked or taken (and where a rival's offer shows), which seated
race a relaunch goes back to, and the header. ``play_app`` and ``menu_flow`` act on what
they return."""

from __future__ import annotations

from typing import Any, Literal

from rich.markup import escape

from protocol.messages import MAX_MOVE_LEN
from protocol.rules.facts import facts_of, game_name
from protocol.rules.games import GAMES

from .model import RaceModel
from .text import clock, plural

# Each whole in the status line's 3 rows from 80 columns on (tests/tui/test_play_help.py).
HELP = (
    "Click a card, then a pile (deeper in a column: a run); double-click sends it home; the stock draws. "
    "Or type w>f3  t2:3>t5  d (draw); Tab completes.  "
    "Commands: ready unready start leave finish refresh hint rules menu quit"
)
#: The command line's placeholder until the session opens: nothing it offers would act yet.
CONNECTING_PLACEHOLDER = "connecting…: ctrl+q quits"
#: ...and once connecting failed.
CANNOT_CONNECT_PLACEHOLDER = "not connected: 'retry' connects again, ctrl+q quits"


def connecting_help(connection: str, failed: bool = False) -> str:
    """The status line until the session opens (``connection``: race_text.connection_text's
    "connecting to HOST…"), and what a command typed meanwhile is told: no race, move or
    command acts before then (HELP's would have done nothing); once connecting ``failed``,
    'retry' (a server started meanwhile) or quitting is left."""
    if failed:
        return f"{connection}: nothing to act on ('retry' connects again, ctrl+q quits)"
    return f"{connection} Moves and commands work once connected; ctrl+q quits."


#: The code of the error a request for the player (a move, a command typed) is refused with
#: while the connection is lost: not sent (play_app's PlayApp.request).
NOT_SENT = "not-sent"


def not_sent_text(t: str) -> str:
    """Why the request ``t`` (a `move`, a command's) was not sent: the connection is lost,
    and it is to be done again once it is back."""
    again = "play it again" if t == "move" else "type it again"
    return f"not sent — the connection to the server is lost (reconnecting…): {again} once reconnected"


#: A request sent just before the connection dropped, whose answer did not come (the server
#: may have done it or not: said with what shows which, once reconnected).
LOST_BEFORE_ANSWER = "the connection dropped before the server answered"
#: ...a race command's (ready, start, leave, finish…).
LOST_COMMAND = f"{LOST_BEFORE_ANSWER}: once reconnected, the race shows whether it was done"


#: No race on screen (none chosen yet, or the one asked for was refused: a `--join` of a race
#: that started or does not exist): the menu or quit, nothing of a lobby's.
NO_RACE_HELP = (
    "No race here: 'menu' chooses one (join another, create one, a quick match…); "
    "ctrl+q quits.  Commands: menu quit"
)
#: Waiting in the quick-match queue: no board, no seat yet; the generic HELP (moves, ready,
#: start, finish…) offered nothing that acts there.
QUEUE_HELP = (
    "Waiting for rivals: the race starts once they come (a casual one may get a bot); "
    "'leave' or 'menu' stops waiting.  Commands: leave rules menu quit"
)
#: In a lobby: what readies and starts it. Not `menu`: refused while you hold a seat there
#: (menu_refusal); `leave` gives it up, and the menu opens.
LOBBY_HELP = (
    "'ready' when set ('unready' takes it back); the host's 'start' begins with those present once "
    "all are ready; 'leave' gives up your seat.  Commands: ready unready start leave rules quit"
)
#: In the countdown: nothing of the lobby's acts any more (`race-started`), nor `menu`.
COUNTDOWN_HELP = "The race is about to start: moves once it does.  Commands: rules quit"
#: While the race runs ("hint" is added where hints are given).
RACE_HELP = (
    "Click a card, then a pile (deeper in a column: a run); double-click: home; the stock draws. "
    "Or type w>f3  t2:3>t5  d (draw); Tab completes; PgUp/PgDn scroll the board.  "
    "Commands: finish legal refresh rules menu quit"
)
#: The player's own game is over while the others play on: no move, `finish` nor `legal`,
#: and no analysis until the race is over (analysis.not_over_text).
MINE_OVER_HELP = (
    "Your game is over; the race goes on for the others (their bars under the board). Its final "
    "ranking comes when it ends, then 'analysis'; {way} meanwhile.  Commands: refresh rules menu quit"
)
#: Once the race is over (its final ranking under the board).
OVER_HELP = (
    "The race is over: its final ranking is under the board (ctrl+r hides it or shows it again; "
    "PgUp/PgDn scroll); 'analysis' says where each win was lost.  Commands: analysis menu quit"
)
#: Where a finished race's replay is, said before OVER_HELP's commands (online: offline, the
#: menu has no "Your races"; nor in a race played for another app, which has no menu).
OVER_REPLAY = "  Its replay: 'menu', then Your races."
#: A daily attempt once over: its race stays sealed until the day closes (docs/protocol.md §5),
#: so its analysis and replay are refused until then; no rematch either.
DAILY_OVER_HELP = (
    "Your daily attempt is over: its ranking is under the board (ctrl+r hides it; PgUp/PgDn scroll). "
    "Its analysis and replay are sealed until the day closes (00:00 UTC), then in Your races.  "
    "Commands: menu quit"
)
#: What `refresh` says once the race the server has is on screen.
REFRESHED = "refreshed: the race as the server has it now"
#: The command line's reminder of the ranking's key once the race is over.
RANKING_KEY = " · ctrl+r: ranking"
PLACEHOLDERS = {
    "queued": "command: leave (stop waiting), rules, menu, quit",
    # Not `menu`: refused while you hold a seat; `leave` gives it up and opens the menu.
    "lobby": "command: ready, unready, start, leave, rules, quit",
    # Not `menu`: it is refused until the player's own game is over (menu_refusal).
    "countdown": "moves once the race starts; command: rules, quit",
    "running": "move (w>f3, t2:3>t5, d to draw) or command (finish, menu, quit)",
    "finished": "command: analysis, menu (another race), quit",
    # Your own game over while the others play on: no analysis until the race is over.
    "mine-over": "the others play on; command: menu (another race), quit",
    # A daily attempt's race stays sealed (no analysis) until the day closes.
    "daily-over": "command: menu (another race), quit",
    "none": "command: menu (choose a race), quit",
}
#: What the finished race's placeholder offers first, by the rematch command at hand.
REMATCH_PLACEHOLDERS = {"rematch": "rematch (same players), ", "accept": "accept (the rematch), "}
PLACEHOLDER = "move (w>f3, t2:3>t5, draw) or command (ready, start, finish, quit)"


def placeholder(
    status: str,
    back_to: str | None = None,
    mine_over: bool = False,
    rematch: RematchWord = "",
    daily: bool = False,
) -> str:
    """The command line's placeholder for the race's state (``mine_over``: the player's own
    game is over while the race runs on: the menu, no analysis yet); a race played for another
    app (``back_to``: `solrace arena`) has no menu, and ctrl+q goes back there. Once the race
    is over, ``rematch`` (:func:`rematch_word`) comes first; a ``daily`` attempt's offers no
    analysis (sealed until the day closes)."""
    if status == "none" and back_to:
        return f"ctrl+q goes {back_to}"
    ranking = RANKING_KEY if status == "finished" else ""
    if status == "running" and mine_over:
        status = "mine-over"
    elif status == "finished" and daily:
        status = "daily-over"
    text = PLACEHOLDERS.get(status, PLACEHOLDER)
    if status == "finished" and rematch and ranking:
        # "(another race)" gives way, so that the line fits 80 columns.
        text = text.replace("command: ", "command: " + REMATCH_PLACEHOLDERS[rematch]).replace(
            " (another race)", ""
        )
    if not back_to:
        return text + ranking
    if status in ("finished", "mine-over"):
        return f"ctrl+q goes {back_to}" + ranking
    return text.replace("menu, ", "").replace(", menu", "")


def hints_possible(m: RaceModel, online: bool, daily_race: str | None) -> bool:
    """Whether hints may be given (server/certify/rules.py): in a casual race of one seat
    that is not a daily attempt; offline, always."""
    return not online or (m.seats == 1 and not m.rated and m.race_id != daily_race)


def help_text(
    m: RaceModel,
    hints: bool,
    back_to: str | None = None,
    rematch: RematchWord = "",
    online: bool = False,
    daily_race: str | None = None,
) -> str:
    """The status line's help for the race's state; without `menu` in a race played for
    another app (``back_to``); once the race is over, with ``rematch`` (:func:`rematch_word`)
    and, ``online``, where its replay is; a daily attempt's (``daily_race``, or the
    snapshot's `daily`) stays sealed until the day closes."""
    if m.status == "none":
        return no_race_text(back_to) if back_to else NO_RACE_HELP
    if m.status == "queued":
        text = QUEUE_HELP
    elif m.status == "lobby":
        text = LOBBY_HELP
    elif m.status == "countdown":
        text = COUNTDOWN_HELP
    elif m.status == "running" and m.my_status not in (None, "playing"):
        way = f"ctrl+q goes {back_to}" if back_to else "'menu' for another race"
        text = MINE_OVER_HELP.format(way=way)
    elif m.status == "running":
        text = RACE_HELP + (" hint" if hints else "")
    elif m.status == "finished" and m.ranking and is_daily(m, daily_race):
        text = DAILY_OVER_HELP
    elif m.status == "finished" and m.ranking:
        text = OVER_HELP.replace("Commands: ", f"Commands: {rematch} " if rematch else "Commands: ")
        if online and not back_to:
            text = text.replace("  Commands: ", OVER_REPLAY + "  Commands: ")
    else:
        text = HELP
    text = for_game(text, m.game)
    return text.replace(" menu", "") if back_to else text


def is_daily(m: RaceModel, daily_race: str | None) -> bool:
    """Whether the race on screen is a daily attempt (the snapshot's `daily`, or the race this
    app started or resumed as today's attempt)."""
    return m.daily or (m.race_id is not None and m.race_id == daily_race)


def too_long_text(game: str | None) -> str:
    """What a move longer than any move is told, in words: the server's refusal of it named
    its message's field ("`move`: Expected `str` of length <= 16")."""
    return for_game(
        f"not a move: too long (a move is at most {MAX_MOVE_LEN} characters: w>f3, t2:3>t5 or d)", game
    )


def rules_text(game: str | None) -> str:
    """What `rules` says: how ``game`` is played, in the blurb the browser's game pages open
    with (the terminal had no word of a game's rules anywhere), or, with no game on screen,
    where the games are."""
    if game not in GAMES:
        return "no game here yet: 'menu' lists the games; 'rules' then tells how the one chosen is played"
    return f"{game_name(game)}: {facts_of(GAMES[game])['blurb']}"


def looks_like_a_move(text: str) -> bool:
    """Whether a line that is no command is meant as a move (the server judges it): a draw or
    anything with the notation's ">"; any other word is a command mistyped."""
    return ">" in text or text.lower() in ("d", "draw")


def unknown_text(text: str, game: str | None = None) -> str:
    """What a line that is neither a command nor a move is told (it was sent as a move, and
    the server's "not a move: expected draw, SRC>DST or SRC:K>DST" never named `help`)."""
    return for_game(
        f"{text!r} is not a command: 'help' lists them; a move is w>f3, t2:3>t5 or d (draw)", game
    )


def for_game(text: str, game: str | None) -> str:
    """``text``'s move example from the waste, ``w>f3``, as one from the tableau for a game
    with no waste (Rouge et Noir: "w>f3" typed as told was answered "no pile 'w'")."""
    found = GAMES.get(game or "")
    if found is None or "w" in found.pile_names:
        return text
    return text.replace("w>f3", "t1>f0")


def not_now_text(m: RaceModel) -> str:
    """Why a move typed while the race does not run goes nowhere, by the race's state (it said
    "the race is finished: moves wait for the start" once it was over)."""
    if m.status == "finished":
        return "the race is over: no more moves ('help' says what is left to do)"
    if m.status == "queued":
        return "no race yet: you are waiting for rivals, and moves wait for the start"
    if m.status == "countdown":
        return "the race is about to start: moves wait for the start"
    return "the race has not started: moves wait for the start ('help' says how it starts)"


#: A race command (ready, start, finish…) typed while waiting in the quick-match queue: no
#: race yet, and nothing to do for it to start (it said "no race here: 'menu' to choose one").
QUEUED_COMMAND = "no race yet: you are waiting for rivals, and the race starts by itself once they come ('leave' stops waiting)"


def no_race_text(back_to: str | None = None) -> str:
    """What a race command or a move says while there is no race on screen: what can be done
    instead (the menu, or ctrl+q back to the app this race was for, ``back_to``)."""
    if back_to:
        return f"no race here: ctrl+q goes {back_to}"
    return "no race here: 'menu' to choose one, ctrl+q to quit"


def menu_refusal(m: RaceModel, daily_race: str | None) -> str | None:
    """Why `menu` cannot leave the race yet (a seat in its lobby or countdown, or the
    player's own game still on), or None: the menu may open (the race may go on without
    them). The quick-match queue is left by the caller."""
    if m.me not in m.players:
        return None
    if m.status == "lobby":
        return "you hold a seat in this lobby: 'leave' it first, then 'menu'"
    if m.status == "countdown":
        return "the race is about to start: 'menu' is for once your game is over"
    if m.status != "running" or m.my_status not in (None, "playing"):
        return None
    if m.race_id == daily_race:
        return (
            "your daily attempt's clock keeps running: ctrl+q, and the menu's Daily challenge "
            "takes you back to it ('finish' would end your one ranked attempt)"
        )
    return "your game is on: 'finish' declares it over (your cards home count), then 'menu'"


#: The command that plays a finished race again: "rematch" (ask for one), "accept" (the one
#: offered), "" (neither).
RematchWord = Literal["rematch", "accept", ""]


def rematch_refusal(m: RaceModel, daily_race: str | None, back_to: str | None, online: bool) -> str | None:
    """Why `rematch` cannot be asked for the race on screen, or None: it may (as the browser's
    Rematch button: a finished race the player played in, not a daily attempt nor an arena
    race; docs/protocol.md §3 `rematch`)."""
    again = "'menu' for another race"
    if back_to:
        return f"an arena pairs its own races: no rematch here (ctrl+q goes {back_to})"
    if m.status != "finished" or not m.race_id:
        return "a rematch is for once the race is over"
    if m.me not in m.players:
        return "you did not play in this race: no rematch to ask for"
    if m.daily or m.race_id == daily_race:
        return f"a daily attempt has no rematch: one ranked attempt a day ({again})"
    if m.arena:
        return f"an arena pairs its own races: no rematch of an arena race ({again})"
    if not online:
        return f"rematches need a server: an offline race has none ({again})"
    return None


def offer_for(m: RaceModel, offer: dict[str, Any] | None) -> dict[str, Any] | None:
    """The rematch ``offer`` (a `rematch` event) when it is for the race on screen, else None."""
    return offer if offer is not None and m.race_id and offer.get("race") == m.race_id else None


def rematch_word(
    m: RaceModel, offer: dict[str, Any] | None, daily_race: str | None, back_to: str | None, online: bool
) -> RematchWord:
    """The rematch command the finished race's help and placeholder offer: "accept" while a
    rival's offer for it stands (the browser's "Accept X's rematch" in place of "Rematch"),
    "rematch" when one may be asked for, else ""."""
    if back_to or m.status != "finished":
        return ""
    if offer_for(m, offer) is not None:
        return "accept"
    return "rematch" if rematch_refusal(m, daily_race, back_to, online) is None else ""


#: Where a rival's rematch offer shows: "race" (the status line, for the race on screen),
#: "menu" (the menu opened from the race it is for), "" (nowhere).
OfferPlace = Literal["race", "menu", ""]


def offer_place(
    offer: dict[str, Any], on_screen: RaceModel, left: RaceModel | None, back_to: str | None
) -> OfferPlace:
    """Where a rival's rematch ``offer`` (a `rematch` event) shows: for the race on screen,
    on its status line; for the race the menu was opened from (``left``, by `menu`), on the
    menu (as the browser's banner away from the race's page); else nowhere: a race the player
    did not play in, one put behind earlier, or any race played for another app
    (``back_to``: an arena's, which has no rematches)."""
    if back_to:
        return ""
    if offer_for(on_screen, offer) and on_screen.me in on_screen.players:
        return "race"
    if left is not None and offer_for(left, offer) and left.me in left.players:
        return "menu"
    return ""


#: A race the token holds a seat in, once resumed: "playing" (go back to it), "over" (the
#: player's own game is over while the race runs on for the others), "gone" (nothing to go
#: back to).
SeatOnResume = Literal["playing", "over", "gone"]


def seat_on_resume(m: RaceModel, race: str) -> SeatOnResume:
    """What ``race``, just resumed into ``m``, is to the player: "playing" in its lobby or
    countdown, or while their own game goes on; "over" when it runs on only for the others
    (left to them, and said); else "gone" (finished, or no seat in it after all)."""
    if m.race_id != race or m.me not in m.players:
        return "gone"
    if m.status in ("lobby", "countdown") or m.my_status in (None, "playing"):
        return "playing"
    return "over" if m.status == "running" else "gone"


def finish_prompt(m: RaceModel, daily_race: str | None) -> str | None:
    """The question a `finish` asks first while the player's cards are still out (it ends
    their game for good), or None when there is nothing to confirm."""
    me = m.players.get(m.me or "")
    if m.status != "running" or m.my_status != "playing" or (me is not None and me.home >= m.total):
        return None
    home = f"{me.home}/{m.total}" if me is not None else "your"
    what = "your one ranked attempt of the day" if m.race_id == daily_race else "your game"
    return f"'finish' ends {what} now, with {home} cards home: type 'finish' again to confirm"


def info_text(
    m: RaceModel,
    now: int,
    connection: str,
    queued_since: int,
    selected: tuple[str, int] | None,
    lost: bool = False,
) -> str:
    """The header's two lines (markup): the game, race, state and clock; then the player's
    own progress, the deal's fingerprint (its commitment) and the selection. `connection` is said before any race,
    and while the connection is ``lost`` (in the race id's place: the line fits 80 columns);
    `queued_since`: when the wait in the quick-match queue began (server ms)."""
    game = game_name(m.game or "")
    parts = [f"[b]{game}[/b]" if game else "solrace"]
    if lost:
        parts.append(f"[b red]{escape(connection)}[/]")
    elif m.status == "none":  # no race yet: the menu, or connecting
        parts.append(escape(connection))
    if m.race_id and not lost:
        parts.append(f"race {m.race_id}")
    if m.rated:
        parts.append("[b magenta]rated[/]")
    if m.status != "none":
        parts.append(m.status)
    if m.status == "queued":
        parts.append(f"waiting {clock(now - queued_since)}")
    cd = m.countdown_ms(now)
    if cd is not None:
        parts.append(f"[b yellow]starts in {cd / 1000:.1f}s[/]")
    rem = m.remaining_ms(now, own=True)
    if rem is not None and m.status == "running":
        style = "b red" if rem < 30_000 else "b"
        parts.append(f"[{style}]{clock(rem)} left[/]")
    line2 = ""
    if m.status in ("running", "finished") and m.me in m.players:
        me = m.players[m.me]
        # On the second line: the first is full at 80 columns with a long game name.
        half = " (berserk: half the clock)" if me.berserk else ""
        line2 = f"you: {me.home}/{m.total} home · {plural(m.n, 'move')} · {m.my_status or me.status}{half}   "
    if m.commitment:
        # The deal's sha256, published before the start: the word a player reads, not the protocol's.
        line2 += f"fingerprint {m.commitment[:12]}…"
    if selected:
        line2 += f"   selected {selected[0]}" + (f":{selected[1]}" if selected[1] > 1 else "")
    return " · ".join(parts) + "\n" + line2
