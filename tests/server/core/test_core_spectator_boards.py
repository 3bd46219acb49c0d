"""What spectators may see of a race (server/core/spectators.py `spectator_boards`): no card of
the deal a rival still playing has not seen. Every player has the same deal, so a player watching
their own race from a second identity would otherwise read their coming stock cards and their
face-down cards on a rival's board."""

from __future__ import annotations

import random

import pytest

from protocol import rules
from server.core.deal_track import DealTrack
from server.core.spectators import spectator_boards

GAMES = ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up")
GAME, SEED = "racing-aces", "spectated"


def track(*moves: str, game: str = GAME, seed: str = SEED) -> DealTrack:
    t = DealTrack(rules.deal(game, seed))
    for mv in moves:
        t.play(mv)
    return t


def pile(view: str, name: str) -> str:
    return next(t for t in view.split() if t.startswith(name + ":"))[len(name) + 1 :]


def pairs(body: str) -> list[str]:
    return [body[i : i + 2] for i in range(0, len(body), 2)]


def random_moves(t: DealTrack, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        legal = sorted(t.game.legal_moves())
        if not legal:
            return
        t.play(rng.choice(legal))


@pytest.mark.parametrize("game", GAMES)
def test_a_track_follows_every_card_of_the_deal_through_random_play(game: str) -> None:
    """The place numbers move as the faces do (draws, moves of runs, refills, flips), every
    place once; a player has seen all but their stock and face-down cards."""
    for n in range(8):
        rng = random.Random(f"{game}{n}")
        t = track(game=game, seed=f"t{n}")
        dealt = [f for p in t.game.piles for f in p]
        for _ in range(rng.randrange(30, 200)):
            legal = sorted(t.game.legal_moves())
            if not legal:
                break
            t.play(rng.choice(legal))
            for places, faces in zip(t.places, t.game.piles, strict=True):
                assert [dealt[x] for x in places] == faces
        assert sorted(x for p in t.places for x in p) == list(range(len(dealt)))
        g = t.game
        hidden = set(t.places[g.game.stock_idx])
        for i, d in enumerate(g.down):
            hidden.update(t.places[i][:d])
        assert t.unseen() == hidden


def test_an_illegal_move_changes_no_track() -> None:
    t = track("draw")
    before = [p[:] for p in t.places]
    with pytest.raises(rules.IllegalMove):
        t.play("s>f1")
    assert (t.places, t.n) == (before, 1)


def test_a_rivals_drawn_cards_are_hidden_on_the_waste_until_every_player_has_drawn_them() -> None:
    ahead, behind = track("draw", "draw", "draw"), track()
    (a, n, a_view), (b, m, b_view) = spectator_boards([("a", ahead, True), ("b", behind, True)])
    assert (a, n, b, m) == ("a", 3, "b", 0)
    assert b_view == behind.game.view_text()  # b's board holds nothing a has not seen
    # a's three stock cards are b's next three: `??` on the waste (its place tells no face)
    assert pile(a_view, "w") == "??????"
    assert a_view.replace("w:??????", "") == ahead.game.view_text().replace(
        "w:" + pile(ahead.game.view_text(), "w"), ""
    )
    # b draws the same cards: both have seen them, and a's board shows in full
    level = track("draw", "draw", "draw")
    assert spectator_boards([("a", ahead, True), ("b", level, True)])[0][2] == ahead.game.view_text()


def test_a_stock_card_played_home_is_not_shown_on_the_foundation() -> None:
    """The audit's case: the rival ahead in the stock plays a drawn card home, where its face
    would show (and by the rival's stock count, which of the watcher's own coming draws it
    is). The foundation is cut below it, with no `??` to count: a foundation's next place
    takes one face."""
    for n in range(200):
        rng = random.Random(n)
        ahead = track(seed=f"home{n}")
        for _ in range(150):
            home = [m for m in ahead.game.legal_moves() if m.startswith("w>f")]
            if home:
                ahead.play(home[0])
                break
            legal = sorted(m for m in ahead.game.legal_moves() if not m.startswith("w>"))
            ahead.play("draw" if "draw" in legal and rng.random() < 0.7 else rng.choice(legal))
        else:
            continue
        dst = ahead.game.game.index[home[0].partition(">")[2]]
        behind = track(seed=f"home{n}")
        view = spectator_boards([("a", ahead, True), ("b", behind, True)])[0][2]
        shown = pairs(pile(view, home[0].partition(">")[2]))
        assert len(shown) == len(ahead.game.piles[dst]) - 1 and "??" not in shown, view
        return
    pytest.fail("no random game played a waste card home")


def test_a_card_turned_up_where_the_rival_has_it_face_down_cuts_its_pile() -> None:
    """Rouge et Noir: a tableau card turned up by the player is one the rival still has face
    down. Neither it nor the cards played onto it are shown (they would bound its face)."""
    rng = random.Random(3)
    for n in range(100):
        ahead = track(game="rouge-et-noir", seed=f"r{n}")
        behind = track(game="rouge-et-noir", seed=f"r{n}")
        random_moves(ahead, rng, 60)
        g = ahead.game
        turned = [
            i for i in g.game.tab_idx if g.down[i] < behind.game.down[i] and len(g.piles[i]) > g.down[i]
        ]
        if not turned:
            continue
        view = spectator_boards([("a", ahead, True), ("b", behind, True)])[0][2]
        for i in turned:
            assert pile(view, g.game.pile_names[i]) == "??" * g.down[i], view
        return
    pytest.fail("no random game turned up a card")


@pytest.mark.parametrize("game", GAMES)
def test_no_shown_card_is_one_a_rival_still_playing_has_not_seen(game: str) -> None:
    """Random races, both players moving: every card shown on a board is the face at that place
    and a card of the deal the rival has seen; `??` only face down or on the waste; a pile
    shown is the player's pile up to where it is cut."""
    for n in range(6):
        rng = random.Random(f"{game}{n}")
        player, rival = track(game=game, seed=f"x{n}"), track(game=game, seed=f"x{n}")
        common = [m for m in range(rng.randrange(40))]
        for _ in common:
            legal = sorted(player.game.legal_moves())
            if not legal:
                break
            mv = rng.choice(legal)
            player.play(mv)
            rival.play(mv)
        for step in range(120):
            for who in (player, rival) if step % 3 else (player,):
                random_moves(who, rng, 1)
            if step % 7:
                continue
            unseen = rival.unseen()
            view = spectator_boards([("p", player, True), ("r", rival, True)])[0][2]
            g = player.game
            for i, token in enumerate(view.split()[1:]):
                name, _, body = token.partition(":")
                if name == "s":
                    assert body == f"#{len(g.piles[i])}"
                    continue
                cards = pairs(body)
                assert len(cards) <= len(g.piles[i])
                for j, code in enumerate(cards):
                    if code == "??":
                        assert j < g.down[i] or i == g.game.waste_idx, (game, n, step, token)
                        assert j < g.down[i] or player.places[i][j] in unseen
                        continue
                    assert code == rules.card_code(g.piles[i][j]), (game, n, step, token)
                    assert player.places[i][j] not in unseen, (game, n, step, token)
                if len(cards) < len(g.piles[i]):  # cut: at a card the rival has not seen
                    assert player.places[i][len(cards)] in unseen, (game, n, step, token)


def test_players_no_longer_playing_hide_nothing() -> None:
    """A rival who finished, resigned or ran out of time cannot use what a spectator sees."""
    ahead = track("draw", "draw")
    boards = spectator_boards([("a", ahead, True), ("b", track(), False)])
    assert boards[0][2] == ahead.game.view_text()
    assert spectator_boards([("a", ahead, True)])[0][2] == ahead.game.view_text()
