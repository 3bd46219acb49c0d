"""What spectators may see of a race (server/core/spectators.py `spectator_boards`): no card a
rival still playing has not seen. Every player has the same deal, so a player watching their own
race from a second identity would otherwise read their coming stock cards on a rival's board."""

from __future__ import annotations

import random
from collections import Counter

from protocol import rules
from server.core.spectators import spectator_boards, unseen_places

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
    # The three stock cards `a` drew are b's next three: hidden, even a face b has seen a copy
    # of elsewhere (its place on the waste would tell b which of their stock cards it is).
    assert waste(a_view) == "??????"
    # Everything else on a's board is as it is.
    assert a_view.replace(waste(a_view), "") == ahead.view_text().replace(waste(ahead.view_text()), "")

    # `b` draws the same cards: now both have seen them, and a's board shows in full.
    now = dealt("draw", "draw", "draw")
    boards = spectator_boards(seen, [("a", 3, ahead, True), ("b", 3, now, True)])
    assert boards[0][2] == ahead.view_text()


def test_what_a_player_saw_once_stays_seen() -> None:
    seen: dict[str, Counter[int]] = {}
    spectator_boards(seen, [("a", 0, dealt(), True), ("b", 1, dealt("draw"), True)])
    # b's drawn card is no more on view in this later sample (a board made for the test: in
    # play a face-up card stays face up somewhere); b has taken it from the stock, so the
    # waste place is no secret to b, and its face, once seen, stays seen
    later = dealt("draw")
    later.piles[later.game.waste_idx].pop()  # type: ignore[index]
    ahead = dealt("draw")
    boards = spectator_boards(seen, [("a", 1, ahead, True), ("b", 1, later, True)])
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


def _random_play(game: rules.Game, rng: random.Random, moves: int, *, draw: bool = True) -> None:
    for _ in range(moves):
        legal = sorted(m for m in game.legal_moves() if draw or m != "draw")
        if not legal:
            return
        game.play(rng.choice(legal))


def test_a_card_the_rival_sees_in_the_same_place_is_shown_whatever_else_is_hidden() -> None:
    """Three decks: a face can lie face up in three places. The copy where the rival's own
    board shows it is shown first; were its allowance spent on a copy elsewhere (drawn from
    the stock), the rival would see that copy's face, and by elimination where it came from.
    The exception: a place that may hold a card of the deal the rival has not seen is `??`
    whatever the rival's board shows there (the same face there may be another copy)."""
    for game in ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up"):
        ahead, behind = rules.deal(game, SEED), rules.deal(game, SEED)
        _random_play(ahead, random.Random(game), 80)
        ((_a, _n, view), _b) = spectator_boards({}, [("a", 80, ahead, True), ("b", 0, behind, True)])
        shown = [t.partition(":")[2] for t in view.split()[1:]]
        unseen = unseen_places(ahead, behind)
        stock = ahead.game.stock_idx
        same_places = 0
        for i, pile in enumerate(ahead.piles):
            if i == stock:
                continue
            theirs = behind.piles[i]
            for j in range(ahead.down[i], len(pile)):
                if (i, j) in unseen:
                    assert _pairs(shown[i])[j] == "??", (game, i, j, view)
                elif j < len(theirs) and j >= behind.down[i] and theirs[j] == pile[j]:
                    same_places += 1
                    assert _pairs(shown[i])[j] == rules.card_code(pile[j]), (game, i, j, view)
        assert same_places, game  # the reserves at least


def test_a_rival_who_has_seen_all_a_player_has_sees_their_board_in_full() -> None:
    for game in ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up"):
        rng = random.Random(game)
        player = rules.deal(game, SEED)
        _random_play(player, rng, 60)
        rival = player.copy()  # the same moves and more: the rival has seen all the player has
        _random_play(rival, rng, 40)
        ((_a, _n, view), _b) = spectator_boards({}, [("a", 60, player, True), ("b", 100, rival, True)])
        assert view == player.view_text(), game


def test_a_card_turned_up_where_the_rival_has_it_face_down_is_hidden() -> None:
    """The reviewer's case. Rouge et Noir, two decks: the rival has seen one Jc (the top of
    t4). The player moves that Jc to t9 and turns up t1's fifth card, the other Jc. Were it
    shown because the rival has seen a Jc, the rival would know their own face-down t1 card."""
    game, seed = "rouge-et-noir", "s0"
    rival = rules.deal(game, seed)
    g = rival.game
    t1, t4, t9, f4 = (g.index[n] for n in ("t1", "t4", "t9", "f4"))
    jc = rival.piles[t4][-1]
    assert rules.card_code(jc) == "Jc" and rival.piles[t1][4] == jc and rival.down[t1] > 4
    player = rival.copy()
    player.piles[t9].append(player.piles[t4].pop())
    player.piles[f4].extend(player.piles[t1][5:])  # only where the cards lie matters here
    del player.piles[t1][5:]
    player.down[t1] = 4
    boards = dict(
        (pid, view) for pid, _n, view in spectator_boards({}, [("p", 5, player, True), ("r", 0, rival, True)])
    )
    view = boards["p"].split()
    assert "t1:" + "??" * 5 in view  # not ????????Jc
    assert "t9:Jc" in view  # the copy the rival saw, moved there by play
    assert (t1, 4) in unseen_places(player, rival)
    # Once the rival has turned it up too, it is shown.
    rival.piles[f4].extend(rival.piles[t1][5:])
    del rival.piles[t1][5:]
    rival.down[t1] = 4
    boards = dict(
        (pid, view) for pid, _n, view in spectator_boards({}, [("p", 5, player, True), ("r", 5, rival, True)])
    )
    assert "t1:????????Jc" in boards["p"].split()


def test_waste_cards_past_the_rivals_draws_are_hidden_whatever_faces_the_rival_has_seen() -> None:
    """The waste holds the stock's cards in the deal's order: a waste card the rival has not
    drawn is one of their next stock cards, even if they have seen its face elsewhere."""
    game = "double-aces-and-kings"  # four decks: many faces seen twice over
    for n in range(200):
        seed = f"w{n}"
        player, rival = rules.deal(game, seed), rules.deal(game, seed)
        for _ in range(3):
            player.play("draw")
        rival.play("draw")
        w = player.game.waste_idx
        assert w is not None
        rivals = Counter(f for i, p in enumerate(rival.piles) if i != rival.game.stock_idx for f in p)
        if rivals[player.piles[w][1]] or rivals[player.piles[w][2]]:
            break  # the old rule, faces only, showed it
    else:
        raise AssertionError("no seed where the rival has seen a copy of a coming stock card")
    ((_p, _n, view), _r) = spectator_boards({}, [("p", 3, player, True), ("r", 1, rival, True)])
    assert waste(view) == rules.card_code(player.piles[w][0]) + "????"
    assert view.replace(waste(view), "") == player.view_text().replace(waste(player.view_text()), "")
    # A card left the waste (made for the test: its top went home), and the rival has drawn
    # two. The waste's card j is at most the (3 - 2 + j)-th drawn: its first is one the rival
    # has drawn; its second is in truth too, but could be the third had the second gone.
    player.piles[w].pop()
    rival.play("draw")
    ((_p, _n, view), _r) = spectator_boards({}, [("p", 3, player, True), ("r", 2, rival, True)])
    assert waste(view) == rules.card_code(player.piles[w][0]) + "??"
    assert unseen_places(player, rival) == {(w, 1)}


def test_racing_aces_tableau_cards_are_hidden_when_one_may_be_a_refill_the_rival_has_not_drawn() -> None:
    player, rival = dealt("draw", "draw"), dealt("draw")
    tableau = {(i, 0) for i in player.game.tab_idx}
    w = player.game.waste_idx
    assert not tableau & unseen_places(player, rival)  # every card taken lies on the waste
    player.piles[w].pop()  # type: ignore[index]  # the top went home (made for the test)
    # the card the rival has not drawn is not on the waste: it may have refilled any tableau
    # pile (or be the one card left on the waste, had the other left it)
    assert unseen_places(player, rival) == tableau | {(w, 0)}
    ((_p, _n, view), _r) = spectator_boards({}, [("p", 3, player, True), ("r", 1, rival, True)])
    assert [t for t in view.split() if t.startswith("t")] == [f"t{i}:??" for i in range(6)]


def test_rouge_et_noir_cards_drawn_past_the_rivals_draws_are_hidden() -> None:
    """A Rouge et Noir draw deals the next ten stock cards onto the ten tableau piles: where
    the player has drawn further, the rival would read their next draw there, card by card."""
    seed = "x2"  # the old rule (faces only) showed t4's second drawn card: a 2d the rival had seen
    rival = rules.deal("rouge-et-noir", seed)
    rival.play("draw")
    player = rival.copy()
    player.play("draw")
    _random_play(rival, random.Random(0), 40, draw=False)  # turns cards up the player has not
    ((_p, _n, view), _r) = spectator_boards({}, [("p", 2, player, True), ("r", 40, rival, True)])
    g = player.game
    for token in view.split()[1:]:
        name, _, body = token.partition(":")
        i = g.index[name]
        if i in g.tab_idx:
            d = player.down[i]
            if d:  # the dealt card turned up (seen by the rival) shown, the drawn cards on it hidden
                assert body == "??" * d + rules.card_code(player.piles[i][d]) + "??" * (
                    len(player.piles[i]) - d - 1
                )
            else:  # an emptied pile may have had a drawn card dealt to its bottom: all hidden
                assert body == "??" * len(player.piles[i]), token
    rival.play("draw")
    ((_p, _n, view), _r) = spectator_boards({}, [("p", 2, player, True), ("r", 41, rival, True)])
    assert view == player.view_text()


class _Tracked:
    """A game with the identity of each card: the place the deal put it in (pile, index of the
    dealt layout, the stock's included), and which cards a move (not a draw, turn or refill)
    has put where they lie."""

    def __init__(self, game: str, seed: str) -> None:
        self.game = rules.deal(game, seed)
        self.ids = [[(i, j) for j in range(len(p))] for i, p in enumerate(self.game.piles)]
        self.moved: set[tuple[int, int]] = set()

    def play(self, move: str) -> None:
        g, ids = self.game, self.ids
        stock = g.game.stock_idx
        before = [len(p) for p in g.piles]
        g.play(move)
        parsed = g.game.parse_move(move)
        if parsed == "draw":
            for i in sorted(i for i in range(len(ids)) if i != stock and len(g.piles[i]) > before[i]):
                ids[i].append(ids[stock].pop())
        else:
            s, k, d = parsed
            run = ids[s][-k:]
            del ids[s][-k:]
            ids[d].extend(run)
            self.moved.update(run)
            if len(g.piles[s]) > len(ids[s]):  # refilled from the stock
                ids[s].append(ids[stock].pop())
        assert [len(p) for p in ids] == [len(p) for p in g.piles]

    def face_up(self) -> set[tuple[int, int]]:
        g = self.game
        return {x for i, p in enumerate(self.ids) if i != g.game.stock_idx for x in p[g.down[i] :]}


def test_no_card_left_where_the_deal_put_it_is_shown_unless_the_rival_has_seen_it() -> None:
    """Random races: a shown card of the player's board is one of the deal the rival has seen,
    or one a move has put there (then counted per face, the module doc)."""
    for game in ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up"):
        for n in range(6):
            rng = random.Random(f"{game}{n}")
            player, rival = _Tracked(game, f"x{n}"), _Tracked(game, f"x{n}")
            for _ in range(rng.randrange(40)):  # a common start
                legal = sorted(player.game.legal_moves())
                if not legal:
                    break
                move = rng.choice(legal)
                player.play(move)
                rival.play(move)
            seen: dict[str, Counter[int]] = {}
            for step in range(120):
                for who in (player, rival) if step % 3 else (player,):
                    legal = sorted(who.game.legal_moves())
                    if legal:
                        who.play(rng.choice(legal))
                if step % 7:
                    continue
                boards = spectator_boards(seen, [("p", 0, player.game, True), ("r", 0, rival.game, True)])
                view = boards[0][2].split()[1:]
                known = rival.face_up()
                for i, token in enumerate(view):
                    name, _, body = token.partition(":")
                    if name == "s":
                        continue
                    for j, code in enumerate(_pairs(body)):
                        if code == "??":
                            continue
                        assert code == rules.card_code(player.game.piles[i][j])
                        card = player.ids[i][j]
                        assert card in known or card in player.moved, (game, n, step, name, j, boards[0][2])
