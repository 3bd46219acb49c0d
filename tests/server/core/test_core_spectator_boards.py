"""What spectators may see of a race (server/core/spectators.py `spectator_boards`): no card a
rival still playing has not seen. Every player has the same deal, so a player watching their own
race from a second identity would otherwise read their coming stock cards on a rival's board."""

from __future__ import annotations

from collections import Counter

from protocol import rules
from server.core.spectators import spectator_boards

GAME, SEED = "racing-aces", "spectated"


def dealt(*moves: str) -> rules.Game:
    g = rules.deal(GAME, SEED)
    for mv in moves:
        g.play(mv)
    return g


def waste(view: str) -> str:
    return next(t for t in view.split() if t.startswith("w:"))[2:]


def test_a_rivals_drawn_cards_are_hidden_until_every_player_has_seen_them() -> None:
    seen: dict[str, Counter[int]] = {}
    ahead, behind = dealt("draw", "draw", "draw"), dealt()
    boards = spectator_boards(seen, [("a", 3, ahead, True), ("b", 0, behind, True)])
    (a, _n, a_view), (b, _m, b_view) = boards
    assert (a, b) == ("a", "b")
    assert b_view == behind.view_text()  # the player behind shows nothing the other has not seen
    # The three stock cards `a` drew: `b` has not seen them (unless a copy of the same face
    # lies face up on b's board, three decks being dealt: counted per face, and the copies
    # both boards show, in the piles before the waste, count first).
    shown_b = Counter(c for t in behind.view_text().split()[1:] for c in _cards(t))
    shown_b.subtract(c for t in ahead.view_text().split()[1:] if not t.startswith("w:") for c in _cards(t))
    expected = ""
    for code in _pairs(waste(ahead.view_text())):
        expected += code if shown_b[code] > 0 else "??"
        shown_b[code] -= 1
    assert waste(a_view) == expected and "??" in expected
    # Everything else on a's board is as it is.
    assert a_view.replace(waste(a_view), "") == ahead.view_text().replace(waste(ahead.view_text()), "")

    # `b` draws the same cards: now both have seen them, and a's board shows in full.
    now = dealt("draw", "draw", "draw")
    boards = spectator_boards(seen, [("a", 3, ahead, True), ("b", 3, now, True)])
    assert boards[0][2] == ahead.view_text()


def test_what_a_player_saw_once_stays_seen() -> None:
    seen: dict[str, Counter[int]] = {}
    spectator_boards(seen, [("a", 0, dealt(), True), ("b", 1, dealt("draw"), True)])
    # b's drawn card goes back to its stock at a redeal in a real game; here b simply has it
    # no more on view (a board from before the draw): it stays seen
    ahead = dealt("draw")
    boards = spectator_boards(seen, [("a", 1, ahead, True), ("b", 1, dealt(), True)])
    assert boards[0][2] == ahead.view_text()


def test_players_no_longer_playing_hide_nothing() -> None:
    """A rival who finished, resigned or ran out of time cannot use what a spectator sees."""
    ahead = dealt("draw", "draw")
    boards = spectator_boards({}, [("a", 2, ahead, True), ("b", 0, dealt(), False)])
    assert boards[0][2] == ahead.view_text()
    alone = spectator_boards({}, [("a", 2, ahead, True)])
    assert alone[0][2] == ahead.view_text()


def _pairs(body: str) -> list[str]:
    return [body[i : i + 2] for i in range(0, len(body), 2)]


def _cards(token: str) -> list[str]:
    name, _, body = token.partition(":")
    return [] if name == "s" else [c for c in _pairs(body) if c != "??"]


def test_a_card_the_rival_sees_in_the_same_place_is_shown_whatever_else_is_hidden() -> None:
    """Three decks: a face can lie face up in three places. The copy where the rival's own
    board shows it is shown first; were its allowance spent on a copy elsewhere (drawn from
    the stock), the rival would see that copy's face, and by elimination where it came from."""
    import random

    for game in ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up"):
        ahead, behind = rules.deal(game, SEED), rules.deal(game, SEED)
        rng = random.Random(game)
        for _ in range(80):
            legal = sorted(ahead.legal_moves())
            if not legal:
                break
            ahead.play(rng.choice(legal))
        ((_a, _n, view), _b) = spectator_boards({}, [("a", 80, ahead, True), ("b", 0, behind, True)])
        shown = [t.partition(":")[2] for t in view.split()[1:]]
        stock = ahead.game.stock_idx
        for i, pile in enumerate(ahead.piles):
            if i == stock:
                continue
            theirs = behind.piles[i]
            for j in range(ahead.down[i], len(pile)):
                same = j < len(theirs) and j >= behind.down[i] and theirs[j] == pile[j]
                if same:
                    assert _pairs(shown[i])[j] == rules.card_code(pile[j]), (game, i, j, view)
