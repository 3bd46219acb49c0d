"""`hint` and `analysis` through the client library's typed methods (docs/protocol.md §3),
against a real server with one solver worker process and a real Redis (tests/conftest.py).

The replies are the typed structs (`HintData`, `AnalysisData`); a refusal is `ServerError`
with the protocol's code, `solver-busy` with `retry_ms`, raised as is (the library retries
no refused request: the caller decides, as for `rate-limited`). Their default timeouts
outlast the server's own waits (`HINT_WAIT_S`, `ANALYSIS_WAIT_S`), so that a busy solver
is reported as `solver-busy`, not as a client-side timeout.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from waiting import DEADLINE

import client
from client.library import ServerError
from protocol import messages as m

pytestmark = pytest.mark.timeout(180)

GAME = "fours-up"

# One request worker and no certify worker (no pools to fill): it does only what the tests ask.
# The server's waits are long, so that a loaded machine still gets its answer.
SOLVER = dict(
    certify_workers=0,
    solver_request_workers=1,
    certified_games="none",
    analysis_nodes=3000,
    hint_wait_s=DEADLINE * 2 / 3,
    analysis_wait_s=DEADLINE * 2 / 3,
)
VERDICTS = {"won", "never-winnable", "lost-at", "still-winnable", "unknown"}


async def code_of(coro: object) -> ServerError:
    with pytest.raises(ServerError) as e:
        await coro  # type: ignore[misc]
    return e.value


async def analysis_when_done(c: client.Client, race: str) -> m.AnalysisData:
    """Ask until the analysis is done: each `solver-busy` came after the server's own wait."""
    end = time.monotonic() + DEADLINE
    while True:
        try:
            return await c.analysis(race, timeout=DEADLINE)
        except ServerError as e:
            if e.code != m.ErrorCode.SOLVER_BUSY or time.monotonic() > end:
                raise


async def solo(c: client.Client, **create: Any) -> m.RaceSnapshot:
    """A running casual race of one seat."""
    snap = await c.request(m.Create(game=GAME, seats=1, **create))
    await c.ready(snap.race)
    await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=DEADLINE)
    return snap


async def test_a_hint_in_a_casual_race_of_one_seat_is_a_legal_move_or_none(make_server) -> None:
    app = await make_server(**SOLVER)
    async with client.connect(app.ws_url, name="ada") as ada:
        snap = await solo(ada)
        state = await ada.resync(snap.race)
        assert state.you is not None
        hint = await ada.hint(snap.race, timeout=DEADLINE)
        assert type(hint) is m.HintData
        assert hint.race == snap.race and hint.n == 0
        assert hint.move is None or hint.move in state.you.legal
        # The move it suggests is played like any other, and the next hint is for the next count.
        played = hint.move or "draw"
        ack = await ada.move(snap.race, played)
        assert ack.n == 1
        again = await ada.hint(snap.race)  # the default timeout
        assert type(again) is m.HintData and again.n == 1
        state = await ada.resync(snap.race)
        assert state.you is not None and (again.move is None or again.move in state.you.legal)


async def test_a_race_of_two_seats_gets_hints_forbidden(make_server) -> None:
    app = await make_server(**SOLVER)
    async with client.connect(app.ws_url, name="ada") as ada, client.connect(app.ws_url, name="bob") as bob:
        duel = await ada.create(GAME, seats=2)
        await bob.join(duel.race)
        for c in (ada, bob):
            await c.ready(duel.race)
        for c in (ada, bob):
            await c.wait_for(m.Started, lambda ev: ev.race == duel.race, timeout=DEADLINE)
        for c in (ada, bob):
            refused = await code_of(c.hint(duel.race))
            assert refused.code == m.ErrorCode.HINTS_FORBIDDEN, refused
        # A casual solo race created without hints is refused the same way.
        no_hints = await solo(ada, hints=False)
        assert (await code_of(ada.hint(no_hints.race))).code == m.ErrorCode.HINTS_FORBIDDEN


async def test_analysis_after_the_end_and_of_a_private_race_with_its_invite(make_server) -> None:
    app = await make_server(**SOLVER)
    async with client.connect(app.ws_url, name="ada") as ada, client.connect(app.ws_url, name="bob") as bob:
        snap = await solo(ada, private=True)
        assert snap.invite
        assert (await code_of(ada.analysis(snap.race))).code == m.ErrorCode.RACE_NOT_OVER
        await ada.move(snap.race, "draw")
        await ada.finish(snap.race)
        await ada.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=DEADLINE)
        mine = await analysis_when_done(ada, snap.race)  # solver-busy after the server's wait: ask again
        assert type(mine) is m.AnalysisData and mine.race == snap.race
        (row,) = mine.players
        assert type(row) is m.PlayerAnalysis
        assert row.player == ada.player and row.name == "ada" and row.verdict in VERDICTS and row.text
        # Someone else needs the private race's invite, which the method sends.
        assert (await code_of(bob.analysis(snap.race))).code == m.ErrorCode.PRIVATE_RACE
        theirs = await bob.analysis(snap.race, snap.invite, timeout=DEADLINE)
        assert theirs.players == mine.players


async def test_solver_busy_is_raised_with_retry_ms_not_a_timeout_and_not_retried(make_server) -> None:
    app = await make_server(**{**SOLVER, "hint_wait_s": 1.0, "analysis_wait_s": 1.0})
    assert app.certifier is not None
    async with client.connect(app.ws_url, name="ada") as ada:
        running = await solo(ada)
        over = await solo(ada)
        await ada.finish(over.race)
        await ada.wait_for(m.End, lambda ev: ev.race == over.race, timeout=DEADLINE)
        # The client's own timeout is below the server's waits: the methods' defaults outlast them.
        ada.timeout = 0.2
        # The request worker is busy: both requests queue behind this and the server gives up first.
        blocker = asyncio.ensure_future(app.certifier.ask(time.sleep, 4.0))
        hint, analysis = await asyncio.gather(
            code_of(ada.hint(running.race)), code_of(ada.analysis(over.race))
        )
        for refused in (hint, analysis):
            assert refused.code == m.ErrorCode.SOLVER_BUSY and refused.retry_ms == 2000, refused
        # Each was asked once: the library does not ask again by itself.
        assert app.metrics.errors["solver-busy"] == 2
        # The analysis went on in the server: once the worker is free, asking again gets it
        # (and the worker has nothing left queued when the server stops).
        await blocker
        again = await analysis_when_done(ada, over.race)
        assert [p.player for p in again.players] == [ada.player]
