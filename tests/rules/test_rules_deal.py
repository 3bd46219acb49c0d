"""The deal (docs/rules.md §8): layout shape, card multiset, determinism, and
pinned seed -> layout vectors so the algorithm can never drift silently."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from protocol import rules
from protocol.rules.deal import random_words, shuffle, uniform

ZERO_SEED = "00000000000000000000000000000000"

# --- an independent, deliberately naive reimplementation of docs/rules.md §8 ---


def naive_words(seed: str):
    k = 0
    while True:
        block = hashlib.sha256(seed.encode("utf-8") + bytes([0]) + k.to_bytes(8, "big")).digest()
        for i in range(4):
            yield int.from_bytes(block[8 * i : 8 * i + 8], "big")
        k += 1


def naive_shuffle(cards: list[int], seed: str) -> list[int]:
    cards = list(cards)
    words = naive_words(seed)
    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        while True:
            w = next(words)
            if w < (2**64 // m) * m:
                break
        j = w % m
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def code(card_id: int) -> str:
    return "A23456789TJQK"[card_id % 13] + "cdhs"[card_id % 52 // 13]


def naive_deal_text(game_id: str, seed: str) -> str:
    """The position text of a fresh deal, written straight from docs/rules.md §2.2,
    §3.2, §4.2, §5.2 and §7.1."""
    piles: dict[str, str] = {}
    if game_id in ("racing-aces", "double-aces-and-kings"):
        decks, nf, nr, nt = (3, 16, 3, 6) if game_id == "racing-aces" else (4, 16, 4, 8)
        cards = naive_shuffle(list(range(decks * 52)), seed)
        piles.update({f"f{i}": "" for i in range(nf)})
        reserves: dict[str, list[int]] = {f"r{i}": [] for i in range(nr)}
        for _ in range(13):
            for r in reserves.values():
                r.append(cards.pop(0))
        piles.update({name: "".join(map(code, r)) for name, r in reserves.items()})
        for i in range(nt):
            piles[f"t{i}"] = code(cards.pop(0))
        piles["s"] = "".join(map(code, reversed(cards)))
        piles["w"] = ""
    elif game_id == "rouge-et-noir":
        cards = naive_shuffle(list(range(104)), seed)
        piles.update({f"f{i}": "" for i in range(8)})
        sizes = [8, 7, 6, 5, 4, 3, 2, 1, 1, 0]
        tab: list[list[str]] = [[] for _ in sizes]
        for row in range(8):
            for i, size in enumerate(sizes):
                if size > row:
                    tab[i].append(("" if row == size - 1 else "~") + code(cards.pop(0)))
        piles.update({f"t{i}": "".join(t) for i, t in enumerate(tab)})
        piles["s"] = "".join(map(code, reversed(cards)))
    else:
        deck = list(range(104))
        fours = [c for c in deck if c % 13 == 3]
        rest = [c for c in deck if c % 13 != 3]
        piles.update({f"f{i}": code(c) for i, c in enumerate(fours)})
        cards = naive_shuffle(rest, seed)
        for i in range(6):
            piles[f"t{i}"] = code(cards.pop(0))
        piles["s"] = "".join(map(code, reversed(cards)))
        piles["w"] = ""
    return " ".join([game_id] + [f"{k}:{v}" for k, v in piles.items()])


def test_word_stream_matches_spec():
    ours = random_words("solrace")
    theirs = naive_words("solrace")
    assert [next(ours) for _ in range(40)] == [next(theirs) for _ in range(40)]
    # And literally, in case both sides drift together.
    w = random_words("solrace")
    assert [next(w) for _ in range(6)] == [
        0x3B7A00A60632F95D,
        0x622159585CEE0436,
        0x18E6C1D05AABDE77,
        0xBCDF2334E92D333C,
        0xDEC287AB11B014B7,
        0x65767AA07053EBD2,
    ]


def test_uniform_rejects_words_in_the_biased_tail():
    m = 3
    limit = (2**64 // m) * m
    words = iter([limit, 2**64 - 1, limit - 1, 7])
    assert uniform(words, m) == (limit - 1) % m
    assert uniform(iter([5]), 1) == 0


def test_unicode_seed_is_hashed_as_utf8():
    assert shuffle(list(range(52)), "é☃") == naive_shuffle(list(range(52)), "é☃")


@pytest.mark.parametrize("game_id", list(rules.GAMES))
@pytest.mark.parametrize("seed", ["solrace", ZERO_SEED, "", "a", "x" * 200, "é☃ seed"])
def test_deal_matches_naive_reimplementation(game_id, seed):
    assert rules.deal(game_id, seed).to_text() == naive_deal_text(game_id, seed)


SHAPES = {
    "racing-aces": dict(r=[13] * 3, t=[1] * 6, s=111, f=[0] * 16),
    "double-aces-and-kings": dict(r=[13] * 4, t=[1] * 8, s=148, f=[0] * 16),
    "rouge-et-noir": dict(r=[], t=[8, 7, 6, 5, 4, 3, 2, 1, 1, 0], s=67, f=[0] * 8),
    "fours-up": dict(r=[], t=[1] * 6, s=90, f=[1] * 8),
}


@pytest.mark.parametrize("game_id", list(rules.GAMES))
def test_deal_shape_and_card_multiset(game_id):
    game = rules.GAMES[game_id]
    shape = SHAPES[game_id]
    for seed in ("solrace", ZERO_SEED, rules.random_seed()):
        g = rules.deal(game_id, seed)
        names = game.pile_names
        assert [len(g.pile(n)) for n in names if n[0] == "r"] == shape["r"]
        assert [len(g.pile(n)) for n in names if n[0] == "t"] == shape["t"]
        assert [len(g.pile(n)) for n in names if n[0] == "f"] == shape["f"]
        assert g.stock_count == shape["s"] == game.stock_size
        if "w" in names:
            assert g.pile("w") == []
        counts = Counter(c.lstrip("~") for n in names for c in g.pile(n))
        assert len(counts) == 52 and set(counts.values()) == {game.decks}
        assert sum(counts.values()) == game.total
        assert g.cards_home == sum(shape["f"]) and not g.won


def test_rouge_et_noir_deal_faces():
    g = rules.deal("rouge-et-noir", "solrace")
    for i, size in enumerate([8, 7, 6, 5, 4, 3, 2, 1, 1, 0]):
        p = g.pile(f"t{i}")
        assert [c.startswith("~") for c in p] == [True] * max(size - 1, 0) + [False] * min(size, 1)


@pytest.mark.parametrize("game_id", list(rules.GAMES))
def test_same_seed_same_deal_different_seeds_differ(game_id):
    assert rules.deal(game_id, "abc").to_text() == rules.deal(game_id, "abc").to_text()
    texts = {rules.deal(game_id, f"seed-{i}").to_text() for i in range(20)}
    assert len(texts) == 20


def test_random_seed_and_commitment():
    seeds = {rules.random_seed() for _ in range(50)}
    assert len(seeds) == 50
    for s in seeds:
        assert len(s) == 32 and all(c in "0123456789abcdef" for c in s)
    assert rules.seed_commitment("solrace") == hashlib.sha256(b"solrace").hexdigest()
    assert rules.seed_commitment("é") == hashlib.sha256("é".encode()).hexdigest()


def test_deal_rejects_unknown_game_and_non_string_seed():
    with pytest.raises(ValueError):
        rules.deal("klondike", "x")
    with pytest.raises(TypeError):
        rules.deal("racing-aces", 12)  # type: ignore[arg-type]


def test_worked_example_of_the_rules_document():
    """docs/rules.md §8.6 shows the deal of the seed `example`: it must stay true."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    example = text.split("### 8.6 Worked example", 1)[1].split("\n### ", 1)[0]
    words = random_words("example")
    for _ in range(5):
        assert str(next(words)) in example
    shown = [line for line in example.splitlines() if line.startswith("racing-aces ")]
    assert shown == [rules.deal("racing-aces", "example").to_text()]
    assert rules.seed_commitment("example") in example
    fours_up = rules.deal("fours-up", "example")
    assert " ".join(f"t{i}:{fours_up.pile(f't{i}')[0]}" for i in range(6)) in example


# Pinned layouts: changing any of these is a new deal algorithm version
# (docs/rules.md §9).
PINNED = {
    ("racing-aces", "solrace"): (
        "racing-aces f0: f1: f2: f3: f4: f5: f6: f7: f8: f9: f10: f11: f12: f13: f14: f15: "
        "r0:3h6h9s9c4d5s2dQc9c2sAhJd2h r1:Th8hQhKs3h7cQhKhQc8d8cAdJd "
        "r2:8h7c3s8s6cKd4sTh8cAd5cAh3d t0:Kh t1:3s t2:Jc t3:2s t4:9s t5:8d s:Tc9d8h7dKsAc7d4d7s"
        "Ac6sKh4hQs3h5cJh4c5h3cKcTcQcAsTs7s3sJcJd6c5d6d7dTd5s4sKc5h3dQh2c2c6h9s9h6sKdQd6s5d7sJs"
        "3dAh4c6d2cTh9d4hJc6h4cJs8c8d4s5c3c9dQd8s2d2s9cKc3c2hQsKsKd6d9hTs7h7h8s9h2d5h5sTs5dAdJs"
        "Td4h7cQdQsJh7h6c4d2hAcAsTcTdAsJh w:"
    ),
    ("racing-aces", "00000000000000000000000000000000"): (
        "racing-aces f0: f1: f2: f3: f4: f5: f6: f7: f8: f9: f10: f11: f12: f13: f14: f15: "
        "r0:Kd3cKsQd7dKc2c8dJc9hKdTc5h r1:8c4cAh8d6h2c2cAh9h3hTc8s2h "
        "r2:4sAd4s5dKc4d5dAcAsTd3s9d4d t0:Ac t1:3c t2:Jd t3:Jd t4:7s t5:6c s:8s7h2h6hQh5s6d3d8s"
        "4hAd9dQsKsKh5c2d6d3d4d9c2dJsKdAdQs7h7c6s7c8cJd2d9c3d5sQhJs7c3hJcKc4c2s6h4cTh5dQs5h4h3c"
        "5c6cThQcQdAs6d8hTs7h4sAcTs6s7dKh2s9c6sTh8d8hKsQc5c5s6c9s2s7d5hQcTc9hJh7sTdQdJhAhJs3h9s"
        "Jh2h7s9s9dAsQh3sJc4h8h8cKhTs3sTd w:"
    ),
    ("double-aces-and-kings", "solrace"): (
        "double-aces-and-kings f0: f1: f2: f3: f4: f5: f6: f7: f8: f9: f10: f11: f12: f13: f14:"
        " f15: r0:7s6hKdJh6dQs5s9dQd5s7dQh7c r1:9c8cAhTh8d9hAc9s4d8sAc4s3h "
        "r2:Ts2dAs9c5d7s4s5c4d2d3cAhQd r3:Js3dKcKs2sJd8sTd2hQh6cJhQd t0:Jc t1:5d t2:5h t3:8d "
        "t4:6d t5:5s t6:Kd t7:3s s:Tc9dThKc9s9d8hJc3d6s9hQd8hQsKh4h9cAd6s7hAcThKdJd9c5c3s4dQcTc"
        "4c2s4cTc2cAh3h7d5dQcKd7d2h6d4sKhAd8h5cTd5sJcKc6hJdTs5c7sAs2sAd3c2sJs3c6s4c4h7cKcTs4hJc"
        "5hKs7sJhQh9s2h9sKh2h8d9hAh3dTc2d2d4c6d3sTdKs3s6s6hAd3c2cJdKs9d7h4hQh8c6c3dJhJs7h8h4dAs"
        "Kh2c5dTs8cTh3h3h7c9hAsAc8s6cJsQs7c8sQcQc5h2cTd4s8d6h5h6cQs7d7h8c w:"
    ),
    ("double-aces-and-kings", "00000000000000000000000000000000"): (
        "double-aces-and-kings f0: f1: f2: f3: f4: f5: f6: f7: f8: f9: f10: f11: f12: f13: f14:"
        " f15: r0:Ah6dQcAh2c2s4h6c6cTs7c5s6h r1:KdTh4s8h9h7c9s5dKd6h4sQd2c "
        "r2:6sJcAcJh3dQhJd9hTcAcTdJc3h r3:2h5cQd7d2dAhAd2sKd9c7h8d2h t0:8h t1:9s t2:Tc t3:6s "
        "t4:Th t5:9c t6:5c t7:3d s:8sAs4c3c4h7h2d5h5hJs9s9sKc8dTd4cJc3h8hJdQd6d3d7s9dQs4sQh6h8c"
        "8c6sKh4c6hJh6cJsKh3cAh7d3dQcQd9cAs9d7s3c4h9d5cJdAc9cKc5d3hJd5c6sTc5sKs6c8c7hKcJh2hTs4c"
        "8dTdKhTc3cKh4h3sAsKs2s6dKs2sTs9hQsKs9dQs5dAdKc5h7cTs2dAs7d2cKd2cJcQc2h5d8sJs4sQsJs3s7c"
        "Qh8c4dAcTh9h7s3s5s4dTd7h8s8dQc3hAd7s7dTh8sAd8h5h4dJh3s4dQh6d2d5s w:"
    ),
    ("rouge-et-noir", "solrace"): (
        "rouge-et-noir f0: f1: f2: f3: f4: f5: f6: f7: t0:~Ts~7h~3d~Th~4d~9c~8d3h "
        "t1:~5d~8c~Ks~Jd~Qd~2d3c t2:~As~Ks~6h~7s~6d5c t3:~4c~5h~Ah~9dKh t4:~Ac~5d~8dJh "
        "t5:~6c~6d5h t6:~7s6c t7:3d t8:3h t9: s:Tc6s8h4d5s9h8cQs2hKdKhKd2cQc2d7hTsTcQd2h8hJcJs8"
        "s6s7c3s2s9s9s2cTdTh7d9hAd9cTdAdQh9d4hJdQc4s3cKc4cJhQh4h8sKcJc3sAs4sAh5s2sJs7dQs5cAc6h7"
        "c"
    ),
    ("rouge-et-noir", "00000000000000000000000000000000"): (
        "rouge-et-noir f0: f1: f2: f3: f4: f5: f6: f7: t0:~9h~Ts~Kd~9h~9d~2c~8d7s "
        "t1:~8s~2h~8h~Tc~Kh~5h9c t2:~Ks~2d~Tc~7s~7h4c t3:~Jd~6s~Th~KhKs t4:~3s~5s~Qs2s "
        "t5:~Kc~5h6h t6:~6dAs t7:4h t8:7c t9: s:8sQd3sJsAd9c2s7h2dQsQc9dJh8cTd3h7cAc7dJcTsTd3d8"
        "c9s4dAh6s9s4h3d5c4s5c5d2h4dAdAhQh3cQc5dJd6dQhTh8d4s6c6hKdAs5sJs3c3h2c4cQdJhAc8hJc7d6cK"
        "c"
    ),
    ("fours-up", "solrace"): (
        "fours-up f0:4c f1:4d f2:4h f3:4s f4:4c f5:4d f6:4h f7:4s t0:3c t1:Qh t2:Ah t3:9c t4:3h"
        " t5:6h s:2dKdJc3s5hTd2cAd9dJhAh7d7c3c8d9d6d3s8hAcAdKdKsTh6hTc2hQd5d2h2s5cKc7hKcTs5hJsK"
        "h3hJh9hAs8sQhJsKhKs6c5c3d6s6d8h2c9c6s7s2s9sTs7s8d5sTcQcAc5s8cQd8cJdJd9s7d2d8sTd9hQsQs7"
        "h5d6c3dAs7cThQcJc w:"
    ),
    ("fours-up", "00000000000000000000000000000000"): (
        "fours-up f0:4c f1:4d f2:4h f3:4s f4:4c f5:4d f6:4h f7:4s t0:Ah t1:Jh t2:9c t3:Ad t4:6d"
        " t5:3h s:3h7h5s6cJd5c6sAsQd5dJsTdAcKh8sQd8h3sKd3c6dKcKcJh9s2c3sQcQh2h7c6sAh7sJc2sAdThT"
        "s2h3cQs7h9h6h8h2s7d6hKs9hAcTh8d9dTdAs2d5s3dKhKs8d8c9dTc8c2c9cTc2d7sJs7cQhJc5c9sTsQcKd6"
        "c5h8sJd5d3dQs5h7d w:"
    ),
}


@pytest.mark.parametrize("game_id,seed", list(PINNED))
def test_pinned_deal(game_id, seed):
    assert rules.deal(game_id, seed).to_text() == "".join(PINNED[game_id, seed])
