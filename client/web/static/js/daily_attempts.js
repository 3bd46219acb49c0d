// Which races are daily attempts, as this browser remembers them (localStorage, the last 50):
// a race page, its result, its replay and the lobby's recent races say "daily" and link the
// day without asking the server. Kept apart from the daily page (daily.js), which those
// modules need not load.

const DAILY_KEY = "solrace.dailies"; // race id -> "game|date", to recognise attempt races

export function rememberDailyRace(race, game, date) {
  try {
    const map = JSON.parse(localStorage.getItem(DAILY_KEY) || "{}");
    map[race] = `${game}|${date || ""}`;
    const keys = Object.keys(map);
    for (const k of keys.slice(0, Math.max(0, keys.length - 50))) delete map[k];
    localStorage.setItem(DAILY_KEY, JSON.stringify(map));
  } catch (e) {
    /* private mode */
  }
}

export function dailyOf(race) {
  try {
    const v = JSON.parse(localStorage.getItem(DAILY_KEY) || "{}")[race];
    if (!v) return null;
    const [game, date] = v.split("|");
    return { game, date };
  } catch (e) {
    return null;
  }
}

/** The replay page of a daily attempt, with its day: once the race's own record has expired
 *  (--finished-ttl-s), the replay page falls back to the day's published replays. */
export function dailyReplayHref(race, game, date) {
  return `#replay=${race}&daily=${game}&date=${date}`;
}
