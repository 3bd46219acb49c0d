// Waiting for a finished race's analysis (docs/protocol.md §3 `analysis`). The server's
// solver works through the players one after another, seconds each, and answers
// `solver-busy` after ANALYSIS_WAIT_S while it goes on; the page asks again meanwhile and
// says how long it has waited, so that a long race does not look stuck.

/** How long a page keeps asking: a race of 8 is about a minute of one solver worker on a
 * quiet machine (estimated from the per-player figures of docs/benchmarks.md "Analysis"),
 * and a busy server takes longer. */
const ANALYSIS_PATIENCE_MS = 300_000;

/** Below this, the wait is not worth a number. */
const QUIET_MS = 3_000;

/** The pending line, `sinceMs` after the page asked. */
export function analysisPendingText(sinceMs, nowMs = Date.now()) {
  const waited = nowMs - sinceMs;
  if (!(waited >= QUIET_MS)) return "Analysing the race…"; // (no start known: no number)
  return `Analysing the race… ${Math.floor(waited / 1000)} s so far: the solver studies each player's game in turn, seconds each.`;
}

/** Asks `conn` for the analysis `msg` until the solver has it (or ANALYSIS_PATIENCE_MS pass:
 * the refusal is thrown), keeping the pending line, the element `id`, current once a second
 * while `pending()` holds. Only its text changes: nothing is drawn again, so focus and
 * selection stay where they are. */
export async function requestAnalysis(conn, msg, id, sinceMs, pending) {
  const timer = setInterval(() => {
    const el = document.getElementById(id);
    if (!pending()) clearInterval(timer);
    else if (el) el.textContent = analysisPendingText(sinceMs);
  }, 1000);
  try {
    return await conn.requestWhileBusy(msg, "solver-busy", ANALYSIS_PATIENCE_MS);
  } finally {
    clearInterval(timer);
  }
}
