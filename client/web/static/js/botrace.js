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

/** A private two-seat race of `game` with a bot of `level`, and us ready: its snapshot. */
export async function raceBot(conn, game, level, timeLimitS) {
  const race = await conn.request({ t: "create", game, seats: 2, time_limit_s: timeLimitS, private: true });
  await conn.request({ t: "bot", race: race.race, level });
  return await conn.request({ t: "ready", race: race.race, ready: true });
}

/** A bot of `level` in a free seat of a race in its lobby. */
export async function addBot(conn, race, level) {
  await conn.request({ t: "bot", race, level });
}

/** Ask for (or take a seat in) the rematch of a finished race: its snapshot. Ready at once when
 *  it has rivals (it starts when they are: accepting makes them ready), not a practice's (one
 *  seat): as its first race, it starts when the player says so (the race page's "I'm ready"),
 *  not on a countdown already running when the page comes. */
export async function rematch(conn, race) {
  const snap = await conn.request({ t: "rematch", race });
  if (snap.seats === 1) return snap;
  return await conn.request({ t: "ready", race: snap.race, ready: true });
}

/** Accept a rematch offer: take the seat (with the new race's invite if it is private) and be ready. */
export async function acceptRematch(conn, race, invite) {
  const join = { t: "join", race };
  if (invite) join.invite = invite;
  await conn.request(join);
  return await conn.request({ t: "ready", race, ready: true });
}
