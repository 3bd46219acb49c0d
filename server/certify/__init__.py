"""The solver inside the server: certified deals, hints, post-race analysis.

``keys``      the Redis keys of the pools and the analysis cache
``work``      what the worker processes run: pure functions over the solver
``rules``     pure decisions: which games are certified by default, who may get a hint
``pool``      the certified pools in Redis: take one entry atomically, add, count
``service``   the `Certifier`: the worker pool (a `ProcessPoolExecutor`), the
              background refill, the analysis cache
``handlers``  the `hint` and `analysis` requests, and the lobby's certified deal

The solver's CPU never runs on the event loop: every solve goes to the worker
processes, and creating a race never waits on one (an empty pool means an
ordinary deal, marked `certified: false`).
"""

from __future__ import annotations

from .service import Certifier

__all__ = ["Certifier"]
