"""The load generator's bot without sockets: legal moves only, the fast frame paths."""

from __future__ import annotations

import msgspec

from client.loadgen import botcpu
from client.loadgen.movegen import MoveGen
from client.loadgen.wsclient import _BINARY_HEAD, frame
from protocol.rules.engine import deal


def test_binary_head_table_is_the_frame_header() -> None:
    for n in range(126):
        payload = bytes(range(n))
        assert _BINARY_HEAD[n] + payload == frame(payload)


def test_bot_plays_only_legal_moves_and_decodes_its_frames() -> None:
    # The stand-in server applies every move the bot sends with the rules
    # engine (an illegal one raises), answers with a real ack and progress.
    r = botcpu.measure(3000)
    assert r["moves"] == 3000
    assert r["errors"] == 0
    assert 0 < r["draw_share"] < 1
    assert 0 < r["full_legal_share"] <= 1


def test_full_legal_counts_only_the_moves_sent_in_the_window() -> None:
    # A share of the moves sent: picks made once the window has closed (the bench reads
    # Redis's stats after it, while the bots play on) and a pick that finds no move are not
    # counted (counted at every pick, a bench window once reported a share of 1.037).
    enc = msgspec.msgpack.Encoder()
    gen = MoveGen("127.0.0.1", 0, 1, 2, "fours-up", seed=1)
    gen.mode.kind = "closed"
    mover, _rival = gen.groups[0].bots
    mover.ws = botcpu._Wire()  # type: ignore[assignment]
    mover.pid = "p" * 12
    g = deal("fours-up", "1")
    rec = gen.rec
    rec.start()
    mover.on_message(enc.encode({"t": "start", "race": "r" * 16, "n": 0, "view": g.view_text()}))
    mover.legal = []  # the first move: legal_moves() in full
    mover.kick()
    assert (rec.sent, rec.full_legal) == (1, 1)
    rec.stop()
    mover.legal = []  # the next pick computes in full, after the window
    assert mover.pick() is not None
    assert (rec.sent, rec.full_legal) == (1, 1)
    rec.on = True
    mover.legal = []
    mover.vg = None  # no position: no move, nothing sent, nothing counted
    assert mover.pick() is None
    assert (rec.sent, rec.full_legal) == (1, 1)
