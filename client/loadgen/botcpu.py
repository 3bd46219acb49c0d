"""The CPU one bench bot spends per move, without sockets or a server.

    python -m client.loadgen.botcpu [MOVES]

A real Game plays the server's part (it applies each move the bot sends and
encodes the `ack` and the rival's `progress` as the server would); only the
bot's own work is timed: decoding its ack (which applies the move to its
visible game, picks and encodes the next move) and decoding a rival's
progress (the latency bookkeeping). Deterministic (same seeds, same moves),
so two versions of the bot compare on exactly the same moves; `solrace bench`
then shows what that is worth with sockets and a loaded machine.
"""

from __future__ import annotations

import sys
import time

import msgspec

from protocol.messages import server_race as T
from protocol.rules.engine import deal

from .movegen import MoveGen

MOVES_PER_GAME = 400  # like a bench race that does not end by itself: stop and deal anew
AT = 1_764_575_000_000


class _Wire:
    """Stands in for a bot's WSClient: keeps what the bot sends."""

    closed = False

    def __init__(self) -> None:
        self.out: list[bytes] = []

    def send(self, payload: bytes) -> None:
        self.out.append(payload)


def measure(moves: int, game: str = "fours-up") -> dict[str, float]:
    enc = msgspec.msgpack.Encoder()
    dec = msgspec.msgpack.Decoder()
    gen = MoveGen("127.0.0.1", 0, 1, 2, game, seed=1)
    gen.mode.kind = "closed"
    gen.rec.start()
    mover, rival = gen.groups[0].bots
    wire = _Wire()
    mover.ws, rival.ws = wire, _Wire()  # type: ignore[assignment]  # duck-typed stand-ins
    mover.pid, rival.pid = "p" * 12, "q" * 12
    clock = time.process_time
    spent = 0.0
    done = 0
    seed = 0
    while done < moves:
        seed += 1
        g = deal(game, str(seed))
        race = f"r{seed:015d}"
        mover.on_message(enc.encode({"t": "start", "race": race, "n": 0, "view": g.view_text()}))
        rival.race = race
        wire.out.clear()
        mover.inflight = None
        mover.kick()
        for _ in range(MOVES_PER_GAME):
            if not wire.out or done >= moves:
                break
            sent = dec.decode(wire.out.pop())
            if sent["t"] != "move":  # finish: no legal move left
                break
            n = sent["n"] + 1
            r = g.apply(sent["move"])
            status = "won" if r.won else "playing"
            ack = enc.encode(
                T.Ack(race=race, n=n, ver=n, move=r.move, revealed=list(r.revealed),
                      home=r.cards_home, won=r.won, status=status, at=AT)
            )  # fmt: skip
            progress = enc.encode(
                T.Progress(race=race, ver=n, player=mover.pid, n=n, home=r.cards_home,
                           total=g.total, status=status, at=AT)
            )  # fmt: skip
            t0 = clock()
            rival.on_message(progress)
            mover.on_message(ack)
            spent += clock() - t0
            done += 1
    rec = gen.rec
    return {
        "us_per_move": spent / max(1, done) * 1e6,
        "moves": done,
        "games": seed,
        "draw_share": rec.draws / max(1, rec.sent),
        "full_legal_share": rec.full_legal / max(1, rec.sent),
        "errors": sum(rec.errors.values()),
    }


def main() -> None:
    moves = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    r = measure(moves)
    print(
        f"bot CPU {r['us_per_move']:.2f} µs/move over {r['moves']} moves ({r['games']} games); "
        f"draws {r['draw_share']:.3f}, full legal_moves() {r['full_legal_share']:.3f}, errors {r['errors']}"
    )


if __name__ == "__main__":
    main()
