"""What the ratings screen writes (docs/protocol.md §9, docs/ratings.md): your profile's
ratings per game and a game's rating board, with the browser's provisional marker
(``1032?``, and how many rated races to go). Plain functions of the wire dicts, no terminal."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from protocol.rules.facts import game_name

from .text import plural

#: Rated races a rating needs before it stops being provisional (docs/ratings.md §2,
#: PROVISIONAL_RACES; the rating map's `provisional` says which, this says how far).
PROVISIONAL_RACES = 10
PROVISIONAL_HELP = (
    f"A ? after a rating means provisional: it has counted in fewer than {PROVISIONAL_RACES} "
    "rated races, so it is still a rough estimate, and it stays off the rating boards until then."
)
GUEST_TEXT = (
    "You play as a guest: guests have no rating. To play rated races, make this player an "
    "account (solrace play --claim NAME: its races and daily history stay with it) or log in "
    "to yours (solrace play --login NAME)."
)


def rated_needs_account(game: str | None = None, mode: str = "quick") -> str:
    """Why a guest cannot play a rated race, and the one command that logs in and plays it."""
    flags = f"--game {game} --{mode} --rated" if game else f"--{mode} --rated"
    return (
        "rated races are for accounts, and you play as a guest: log in and play in one go with "
        f"solrace play --login NAME {flags} (or first make this guest an account: --claim NAME)"
    )


def rating_text(r: dict[str, Any]) -> str:
    """The displayed rating, ``1032?`` while provisional."""
    return f"{r.get('rating', '?')}{'?' if r.get('provisional') else ''}"


def races_to_go(r: dict[str, Any]) -> int:
    """Rated races still needed before a provisional rating is established (at least 1)."""
    return max(1, PROVISIONAL_RACES - int(r.get("races") or 0))


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def change_text(before: dict[str, Any], after: dict[str, Any]) -> str:
    """A rating change: ``1000? → 1016? (+16)``."""
    delta = int(after.get("rating") or 0) - int(before.get("rating") or 0)
    return f"{rating_text(before)} → {rating_text(after)} ({signed(delta)})"


def game_rating_line(g: dict[str, Any]) -> str:
    """One game of the profile: its rating, provisional or not, and the rated races that counted."""
    r = g.get("rating") or {}
    name = f"{game_name(str(g.get('game', '')))}:"
    races = int(r.get("races") or 0)
    if not races and not g.get("history"):
        return f"{name:<24} not played rated yet · starts at {rating_text(r)}"
    mark = "?" if r.get("provisional") else " "  # the digits line up, the ? after them
    line = f"{name:<24} {r.get('rating', '?'):>5}{mark}  {plural(races, 'rated race')}"
    if r.get("provisional"):
        line += f" · provisional: {plural(races_to_go(r), 'more rated race')} to go"
    return line


def rated_race_line(race: dict[str, Any]) -> str:
    """One rated race of the profile: its game, your place, your rating before and after."""
    return (
        f"{game_name(str(race.get('game', ''))):<22} {race.get('rank', '?')} of {race.get('players', '?')}"
        f"  {change_text(race.get('before') or {}, race.get('after') or {})}"
    )


def profile_text(profile: dict[str, Any], recent: int = 5) -> Text:
    """Your ratings per game (played first), then your latest rated races."""
    t = Text()
    t.append(f"{profile.get('name', '?')} — ratings\n", style="bold")
    ratings = list(profile.get("ratings") or [])
    played = sorted(
        enumerate(ratings),
        key=lambda ig: (
            -int((ig[1].get("rating") or {}).get("races") or 0),
            -len(ig[1].get("history") or []),
            ig[0],
        ),
    )
    for _, g in played:
        t.append("  " + game_rating_line(g) + "\n")
    races = list(profile.get("races") or [])
    if races:
        t.append("latest rated races\n", style="bold")
        for race in races[:recent]:
            t.append("  " + rated_race_line(race) + "\n")
    else:
        t.append("no rated race yet: solrace play --game GAME --quick --rated (or the menu's rated box)\n")
    if any((g.get("rating") or {}).get("provisional") for g in ratings):
        t.append(PROVISIONAL_HELP, style="dim")
    return t


def my_game_rating(profile: dict[str, Any] | None, game: str) -> dict[str, Any] | None:
    """Your rating map in ``game`` from your profile (None without a profile)."""
    for g in (profile or {}).get("ratings") or []:
        if isinstance(g, dict) and g.get("game") == game:
            found: dict[str, Any] = g
            return found
    return None


def standing_line(board: dict[str, Any], mine: dict[str, Any] | None, logged_in: bool) -> str:
    """Where you stand on a game's board: your rank, or why you are not on it."""
    game = game_name(str(board.get("game", "")))
    me = board.get("me")
    if me:
        return (
            f"you: #{me.get('rank', '?')} of {board.get('count', '?')} · rating {me.get('rating', '?')} · "
            f"{plural(int(me.get('races') or 0), 'rated race')}"
        )
    if not logged_in:
        return "you: a guest, so no rating (solrace play --claim NAME or --login NAME)"
    if mine is None:
        return "you: not on this board"
    r = mine.get("rating") or {}
    races = int(r.get("races") or 0)
    if not races and not mine.get("history"):
        return (
            f"you: no rated {game} race yet (you start at {rating_text(r)}); "
            f"play {PROVISIONAL_RACES} rated races to be on the board"
        )
    if r.get("provisional"):
        n = races_to_go(r)
        return (
            f"you: {rating_text(r)}, provisional — {plural(n, 'more rated race')} to be on the board "
            f"({races} of {PROVISIONAL_RACES} so far)"
        )
    return f"you: rating {rating_text(r)} · {plural(races, 'rated race')}"


def board_pending_text(game: str, note: str) -> Text:
    """The board's place while ``game``'s board is asked for, or when it could not be had:
    headed by that game, so that the old game's board never stands under the new choice."""
    t = Text()
    t.append(f"{game_name(game)} rating board", style="bold")
    t.append(f": {note}")
    return t


def board_text(
    board: dict[str, Any], mine: dict[str, Any] | None = None, logged_in: bool = False, me: str | None = None
) -> Text:
    """A game's rating board (established ratings only, best first), your line in bold,
    the entries around yours when you are below the top, and where you stand."""
    count = int(board.get("count") or 0)
    me = me or (board.get("me") or {}).get("player")
    t = Text()
    t.append(
        f"{game_name(str(board.get('game', '')))} ratings · {plural(count, 'rated player')}\n", style="bold"
    )
    t.append(standing_line(board, mine, logged_in) + "\n")
    top = list(board.get("top") or [])

    def rows(entries: list[dict[str, Any]]) -> None:
        for e in entries:
            mine_row = e.get("player") == me
            t.append(
                f"{'*' if mine_row else ' '}{e.get('rank', '?'):>3}. {str(e.get('name', '?'))[:20]:<20} "
                f"{e.get('rating', '?'):>5}  {plural(int(e.get('races') or 0), 'race')}\n",
                style="bold green" if mine_row else None,
            )

    if top:
        rows(top)
    else:
        t.append(f"no established {game_name(str(board.get('game', '')))} rating yet\n")
    shown = {e.get("player") for e in top}
    around = [e for e in board.get("around") or [] if e.get("player") not in shown]
    if around:
        t.append("   …\n")
        rows(around)
    t.append(f"a rating shows here after {PROVISIONAL_RACES} rated races", style="dim")
    return t
