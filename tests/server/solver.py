"""A small greedy player for Fours Up, used to find winning deals for tests.

Not a strategy of record: home moves first, then waste to the tableau, then
moves that empty a tableau pile, else draw. It wins a fair share of deals,
so trying seeds in order finds a winnable one quickly and deterministically.
"""

from __future__ import annotations

from protocol import rules


def _score(g: rules.Game, move: str) -> int | None:
    if move == "draw":
        return None
    src, dst = move.split(">")
    if dst.startswith("f") and not src.startswith("f"):
        return 0
    if src.startswith("f"):
        return None  # never take cards back
    if src == "w":
        return 1 if g.pile(dst) else 3  # onto a card; onto an empty pile only if nothing better
    # tableau run to another pile: worth it only if it empties its pile onto a card
    base = src.split(":")[0]
    k = int(src.split(":")[1]) if ":" in src else 1
    if len(g.pile(base)) == k and g.pile(dst):
        return 2
    return None


def greedy(game_id: str, seed: str, max_moves: int = 2000) -> list[str] | None:
    """The greedy line of moves; returned only if it wins the deal."""
    g = rules.deal(game_id, seed)
    moves: list[str] = []
    while not g.won and len(moves) < max_moves:
        best = None
        for mv in g.legal_moves():
            s = _score(g, mv)
            if s is not None and (best is None or s < best[0]):
                best = (s, mv)
        if best is None or best[0] == 3:
            if g.stock_count:
                best = (9, "draw")
            elif best is None:
                return None
        g.play(best[1])
        moves.append(best[1])
    return moves if g.won else None


def _rank(g: rules.Game, move: str) -> int | None:
    """Search order of a move (None: never tried)."""
    if move == "draw":
        return 4
    src, dst = move.split(">")
    if src.startswith("f"):
        return None  # never take cards back
    if dst.startswith("f"):
        return 0
    base = src.split(":")[0]
    k = int(src.split(":")[1]) if ":" in src else 1
    empties_source = base != "w" and len(g.pile(base)) == k
    if g.pile(dst):
        return 1 if src == "w" else 2 if empties_source else 3
    return None if empties_source else 5  # to an empty pile: never a whole pile


def solve(game_id: str, seed: str, max_nodes: int = 100_000) -> list[str] | None:
    """Depth-first search over the whole deal (the test knows the seed); a winning line or None."""
    start = rules.deal(game_id, seed)
    seen = {start.to_text()}
    stack: list[tuple[rules.Game, list[str]]] = [(start, [])]
    nodes = 0
    while stack and nodes < max_nodes:
        g, path = stack.pop()
        nodes += 1
        children = []
        for mv in g.legal_moves():
            r = _rank(g, mv)
            if r is not None:
                children.append((r, mv))
        children.sort(reverse=True)  # the best move is pushed last, popped first
        for _r, mv in children:
            child = g.copy()
            child.play(mv)
            if child.won:
                return path + [mv]
            key = child.to_text()
            if key not in seen:
                seen.add(key)
                stack.append((child, path + [mv]))
    return None


def winning_deal(game_id: str = "fours-up", tries: int = 500) -> tuple[str, list[str]]:
    """The first seed ("%032x" of 0, 1, 2, ...) the greedy player wins, and its moves."""
    for i in range(tries):
        seed = f"{i:032x}"
        line = greedy(game_id, seed) or solve(game_id, seed)
        if line is not None:
            return seed, line
    raise RuntimeError("no winnable deal found")


def losing_line(game_id: str, seed: str, n: int) -> list[str]:
    """Up to n greedy moves (for races nobody finishes)."""
    g = rules.deal(game_id, seed)
    moves: list[str] = []
    while len(moves) < n:
        legal = [mv for mv in g.legal_moves() if _score(g, mv) is not None]
        mv = legal[0] if legal else ("draw" if g.stock_count else None)
        if mv is None:
            break
        g.play(mv)
        moves.append(mv)
    return moves
