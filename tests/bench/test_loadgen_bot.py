"""The load generator's bot without sockets: legal moves only, the fast frame paths."""

from __future__ import annotations

from client.loadgen import botcpu
from client.loadgen.wsclient import _BINARY_HEAD, frame


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
