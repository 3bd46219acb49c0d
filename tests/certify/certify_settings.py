"""Settings of the tests/certify servers: one solver worker process and small pools."""

from __future__ import annotations

from typing import Any

GAME = "racing-aces"

# Small pools, one certify worker and one request worker: enough to see the refill without loading the machine.
CERTIFY: dict[str, Any] = dict(
    certified_games=GAME,
    certify_workers=1,
    solver_request_workers=1,
    certify_pool=2,
    certify_batch=6,
    certify_nodes=2500,
    analysis_nodes=3000,
    # The tests wait for answers on a loaded machine; test_certify_e2e's busy-solver test sets its own.
    hint_wait_s=120.0,
    analysis_wait_s=120.0,
)
