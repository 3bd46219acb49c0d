"""A server that runs no solver worker (docs/protocol.md §3 `hint`, `analysis`): a request
that would need one is answered `internal` at once, not after `HINT_WAIT_S`/`ANALYSIS_WAIT_S`."""

from __future__ import annotations

from wsclient import player


async def test_hint_and_analysis_without_a_solver_worker_are_internal_at_once(make_server):
    # Waits far longer than any test: an answer that waited for them would time the test out.
    app = await make_server(solver_request_workers=0, hint_wait_s=600.0, analysis_wait_s=600.0)
    a = await player(app.ws_url, "ada")
    rid = (await a.request("create", game="racing-aces", seats=1))["race"]
    await a.request("ready", race=rid)
    await a.wait(lambda m: m.get("t") == "start" and m["race"] == rid)
    hint = await a.request("hint", race=rid)
    assert (hint["t"], hint["code"]) == ("error", "internal"), hint
    assert "solver worker" in hint["message"]
    assert (await a.request("finish", race=rid))["t"] == "ok"
    await a.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    analysis = await a.request("analysis", race=rid)
    assert (analysis["t"], analysis["code"]) == ("error", "internal"), analysis
