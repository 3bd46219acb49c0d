"""`solrace watch` says that the boards come late while the bars are live: a spectator saw
the bars move with no card moved below them, and nothing said why (the boards are sent
`SPECTATOR_DELAY` late, an anti-cheat delay: docs/protocol.md §5). The delay is the one the
server's welcome says (here 10 min), else the documented 10 s."""

from __future__ import annotations

from client.tui.watch_text import SPECTATOR_DELAY_MS, boards_delay_text

from .helpers import rendered, until, watching_a_race


async def test_a_spectator_reads_that_the_boards_come_late(make_server, tmp_path) -> None:
    async with watching_a_race(make_server, tmp_path, "fours-up") as (_server, _a, _b, _race, app, pilot):
        info = app.query_one("#race-info")
        await until(pilot, lambda: "behind" in rendered(info), what="the delay said")
        said = rendered(info)
        # the server's own delay (watching_a_race's server sends the boards 10 min late)
        assert "bars live · boards 10 min behind (anti-cheat)" in said, said
        assert all(len(line) <= 78 for line in said.splitlines()), said


def test_the_delay_in_words() -> None:
    assert SPECTATOR_DELAY_MS == 10_000  # docs/protocol.md §7
    assert boards_delay_text(SPECTATOR_DELAY_MS, None) == (
        "bars live · boards 10 s behind (anti-cheat) · first ones coming…"
    )
    assert len(boards_delay_text(600_000, 599.6)) <= 78
    assert boards_delay_text(10_000, 12.4).endswith("boards 10 s behind (anti-cheat) · these from 12 s ago")
    assert boards_delay_text(0, 1.0) == "bars and boards live · these from 1 s ago"
