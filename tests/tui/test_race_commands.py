"""The race screen's decisions as plain functions (client/tui/race_commands.py): why `menu`
is refused, when `finish` asks first, where hints may be given, which help is shown,
which seated race a relaunch goes back to."""

from __future__ import annotations

from client.tui.model import PlayerRow, RaceModel
from client.tui.race_commands import (
    LOBBY_HELP,
    OVER_HELP,
    QUEUE_HELP,
    RACE_HELP,
    finish_prompt,
    help_text,
    hints_possible,
    menu_refusal,
)


def model(status: str, my_status: str | None = "playing", home: int = 3, seats: int = 2) -> RaceModel:
    m = RaceModel(me="p1", race_id="r1", status=status, total=52, seats=seats)
    m.players["p1"] = PlayerRow("p1", "ada", home=home)
    m.my_status = my_status
    return m


def test_menu_is_refused_while_the_players_game_is_on() -> None:
    assert "'leave' it first" in (menu_refusal(model("lobby"), None) or "")
    assert "about to start" in (menu_refusal(model("countdown"), None) or "")
    assert "'finish' declares it over" in (menu_refusal(model("running"), None) or "")
    assert "Daily challenge takes you back" in (menu_refusal(model("running"), "r1") or "")
    assert menu_refusal(model("running", my_status="finished"), None) is None  # the others play on
    assert menu_refusal(model("finished"), None) is None
    assert menu_refusal(RaceModel(me="p1", status="running"), None) is None  # no seat: watching


def test_finish_asks_first_while_cards_are_out() -> None:
    assert finish_prompt(model("running"), None) == (
        "'finish' ends your game now, with 3/52 cards home: type 'finish' again to confirm"
    )
    assert "your one ranked attempt of the day" in (finish_prompt(model("running"), "r1") or "")
    assert finish_prompt(model("running", home=52), None) is None
    assert finish_prompt(model("running", my_status="won"), None) is None
    assert finish_prompt(model("lobby"), None) is None


def test_hints_and_the_help_follow_the_race() -> None:
    solo, duo = model("running", seats=1), model("running")
    assert hints_possible(solo, True, None) and not hints_possible(solo, True, "r1")
    assert not hints_possible(duo, True, None) and hints_possible(duo, False, None)  # offline: always
    assert help_text(solo, True) == RACE_HELP + " hint" and help_text(duo, False) == RACE_HELP
    assert help_text(model("lobby"), True) == LOBBY_HELP and help_text(model("queued"), True) == QUEUE_HELP
    over = model("finished", my_status="finished")
    over.ranking = [{"rank": 1, "player": "p1"}]
    assert help_text(over, False) == OVER_HELP and "ctrl+r hides it" in OVER_HELP
    assert "menu" not in help_text(over, False, "back to the arena")


def test_the_placeholder_once_my_game_is_over_and_in_a_race_for_the_arena() -> None:
    from client.tui.race_commands import PLACEHOLDERS, placeholder

    assert placeholder("running") == PLACEHOLDERS["running"]
    # my game over while the race runs on: the menu, and no analysis until the race is over
    assert placeholder("running", mine_over=True) == PLACEHOLDERS["mine-over"]
    assert "analysis" not in PLACEHOLDERS["mine-over"]
    # once the race is over its ranking is under the board, and ctrl+r hides it
    assert placeholder("finished") == PLACEHOLDERS["finished"] + " · ctrl+r: ranking"
    arena = "back to the arena"
    assert "menu" not in placeholder("lobby", arena) and "menu" not in placeholder("running", arena)
    assert placeholder("running", arena, mine_over=True) == "ctrl+q goes back to the arena"
    assert placeholder("finished", arena) == "ctrl+q goes back to the arena · ctrl+r: ranking"


def test_a_relaunch_goes_back_only_to_a_race_the_players_game_in_goes_on() -> None:
    from client.tui.race_commands import seat_on_resume

    assert seat_on_resume(model("lobby", my_status=None), "r1") == "playing"
    assert seat_on_resume(model("countdown"), "r1") == "playing"
    assert seat_on_resume(model("running"), "r1") == "playing"
    # my game over while the race runs on for the others: left to them, and said
    assert seat_on_resume(model("running", my_status="finished"), "r1") == "over"
    assert seat_on_resume(model("finished", my_status="won"), "r1") == "gone"
    assert seat_on_resume(model("running"), "r2") == "gone"  # another race came back
    unseated = model("running")
    unseated.players.clear()
    assert seat_on_resume(unseated, "r1") == "gone"


def over(**fields: object) -> RaceModel:
    m = model("finished", my_status="finished")
    m.ranking = [{"rank": 1, "player": "p1"}]
    for k, v in fields.items():
        setattr(m, k, v)
    return m


def test_a_rematch_is_asked_as_the_browser_offers_it() -> None:
    from client.tui.race_commands import rematch_refusal

    assert rematch_refusal(over(), None, None, True) is None
    assert "once the race is over" in (rematch_refusal(model("running"), None, None, True) or "")
    assert "daily attempt has no rematch" in (rematch_refusal(over(), "r1", None, True) or "")
    assert "daily attempt has no rematch" in (rematch_refusal(over(daily=True), None, None, True) or "")
    assert "arena race" in (rematch_refusal(over(arena="a1"), None, None, True) or "")
    assert "ctrl+q goes back to the arena" in (rematch_refusal(over(), None, "back to the arena", True) or "")
    assert "need a server" in (rematch_refusal(over(), None, None, False) or "")
    watched = over()
    watched.players.clear()
    assert "did not play" in (rematch_refusal(watched, None, None, True) or "")


def test_an_offer_for_this_race_makes_accept_the_command_over_rematch() -> None:
    from client.tui.race_commands import offer_for, placeholder, rematch_word

    offer = {"t": "rematch", "race": "r1", "rematch": "r2", "by": "p2", "name": "bob"}
    elsewhere = dict(offer, race="r0")
    assert offer_for(over(), offer) is offer and offer_for(over(), elsewhere) is None
    assert rematch_word(over(), None, None, None, True) == "rematch"
    assert rematch_word(over(), offer, None, None, True) == "accept"
    assert rematch_word(over(), elsewhere, None, None, True) == "rematch"
    assert rematch_word(over(), None, "r1", None, True) == ""  # a daily attempt
    assert rematch_word(over(), offer, None, "back to the arena", True) == ""
    assert rematch_word(model("running"), offer, None, None, True) == ""
    assert help_text(over(), False, None, "rematch").endswith("Commands: rematch analysis menu quit")
    assert help_text(over(), False, None, "accept").endswith("Commands: accept analysis menu quit")
    assert help_text(over(), False) == OVER_HELP
    assert placeholder("finished", rematch="rematch").startswith(
        "command: rematch (same players), analysis, menu, quit"
    )
    assert placeholder("finished", rematch="accept").startswith(
        "command: accept (the rematch), analysis, menu, quit"
    )
    # fits an 80-column command line
    assert max(len(placeholder("finished", rematch=w)) for w in ("rematch", "accept")) <= 76


def test_an_offer_shows_for_the_race_on_screen_or_the_one_the_menu_left_and_no_other() -> None:
    from client.tui.race_commands import offer_place

    offer = {"t": "rematch", "race": "r1", "rematch": "r2", "by": "p2", "name": "bob"}
    blank = RaceModel(me="p1")  # the menu's screen: no race
    assert offer_place(offer, over(), None, None) == "race"
    assert offer_place(offer, blank, over(), None) == "menu"
    assert offer_place(dict(offer, race="r0"), over(), over(), None) == ""  # a race put behind earlier
    assert offer_place(offer, blank, None, None) == ""  # the first menu: no race left for it
    assert offer_place(offer, over(), None, "back to the arena") == ""
    watched = over()
    watched.players.clear()
    assert offer_place(offer, watched, None, None) == offer_place(offer, blank, watched, None) == ""


def test_the_end_help_says_where_the_replay_is_online() -> None:
    # "Your races" replays it (the menu's, online): the race's end said nothing of a replay.
    over = model("finished", my_status="finished")
    over.ranking = [{"rank": 1, "player": "p1"}]
    assert "Your races" in help_text(over, False, online=True)
    assert "Your races" not in help_text(over, False)  # offline: the menu has no Your races
    assert "Your races" not in help_text(over, False, "back to the arena", online=True)
