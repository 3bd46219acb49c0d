// Racing a bot and rematches (docs/protocol.md §3 `bot`, `rematch`): the requests,
// without the page; app.js draws the buttons and routes to the race.

/** The bot levels: the client/bots strategies, as a player would name them. */
export const BOT_LEVELS = [
  ["random", "Easy · random"],
  ["greedy", "Medium · greedy"],
  ["search", "Hard · search"],
];

/** Bots have player ids starting "bot-" (the server mints every id). */
export function isBot(pid) {
  return typeof pid === "string" && pid.startsWith("bot-");
}

/**
 * Requests one after another: `steps[0]()` is the first message, `steps[i](race)` the next ones,
 * made from the first reply (the race's snapshot); a step that gives null ends the run early. It
 * resolves with the last reply. With `onLate`, a step whose reply comes after its timeout (net.js
 * LATE_REPLY_MS) goes on from there when that reply comes, and `onLate` gets the last reply, or the
 * error that stopped the steps: what the player asked for may have happened after all.
 */
function inTurn(conn, steps, onLate = null) {
  let race = null;
  const from = async (i) => {
    let reply = null;
    for (; i < steps.length; i++) {
      const msg = steps[i](race);
      if (!msg) break;
      const k = i;
      reply = await conn.request(msg, undefined, { onLate: onLate && ((late) => lateStep(k, late)) });
      if (k === 0) race = reply;
    }
    return reply;
  };
  const lateStep = (k, reply) => {
    if (reply.t === "error") return onLate(reply);
    if (k === 0) race = reply;
    from(k + 1).then(
      (last) => onLate(last || reply),
      (e) => e.code !== "timeout" && onLate(e), // a step timed out again: its own late reply goes on
    );
  };
  return from(0);
}

/** A private two-seat race of `game` with a bot of `level`, and us ready: its snapshot. */
export function raceBot(conn, game, level, timeLimitS, onLate = null) {
  return inTurn(
    conn,
    [
      () => ({ t: "create", game, seats: 2, time_limit_s: timeLimitS, private: true }),
      (race) => ({ t: "bot", race: race.race, level }),
      (race) => ({ t: "ready", race: race.race, ready: true }),
    ],
    onLate,
  );
}

/** A bot of `level` in a free seat of a race in its lobby. */
export async function addBot(conn, race, level) {
  await conn.request({ t: "bot", race, level });
}

/** Ask for (or take a seat in) the rematch of a finished race: its snapshot. Ready at once when
 *  it has rivals (it starts when they are: accepting makes them ready), not a practice's (one
 *  seat): as its first race, it starts when the player says so (the race page's "I'm ready"),
 *  not on a countdown already running when the page comes. */
export function rematch(conn, race, onLate = null) {
  return inTurn(
    conn,
    [
      () => ({ t: "rematch", race }),
      (snap) => (snap.seats === 1 ? null : { t: "ready", race: snap.race, ready: true }),
    ],
    onLate,
  );
}

/** Accept a rematch offer: take the seat (with the new race's invite if it is private) and be ready. */
export function acceptRematch(conn, race, invite, onLate = null) {
  return inTurn(
    conn,
    [
      () => (invite ? { t: "join", race, invite } : { t: "join", race }),
      () => ({ t: "ready", race, ready: true }),
    ],
    onLate,
  );
}
