// A replay's data, no DOM: re-dealing the seed and re-playing every player's moves
// (`rebuild`), a daily attempt's replay out of its day's published replays, and the day
// a replay route carries. The replay page (replay.js) draws what these return.

import { deal } from "./rules.js";

/** The daily day of a replay route, `&daily=GAME&date=YYYY-MM-DD`, or null. */
export function dailyOfRoute(hash) {
  const game = /[#&]daily=([\w-]+)/.exec(hash || "");
  const date = /[#&]date=(\d{4}-\d{2}-\d{2})/.exec(hash || "");
  return game && date ? { game: game[1], date: date[1] } : null;
}

/** A `replay` and a snapshot of one attempt, from a day's `daily_replay` (null if not published). */
export function fromDailyReplay(day, race) {
  const p = (day.players || []).find((x) => x.race === race);
  if (!p) return null;
  const rep = {
    race,
    game: day.game,
    rules_version: day.rules_version,
    deal_version: day.deal_version,
    seed: day.seed,
    ranking: (day.ranking || []).filter((r) => r.player === p.player),
    players: [{ player: p.player, name: p.name, moves: p.moves }],
  };
  return { rep, snap: { starts_at: p.starts_at, commitment: day.commitment } };
}

/** Re-play a replay message: every player's view after each of their moves, and the merged timeline. */
export function rebuild(rep, startsAt) {
  const players = rep.players.map((p, pi) => {
    const g = deal(rep.game, rep.seed);
    const views = [g.viewText()];
    const homes = [g.home];
    let broken = null;
    for (let i = 0; i < p.moves.length; i++) {
      try {
        g.play(p.moves[i][0]);
      } catch (err) {
        broken = { index: i, move: p.moves[i][0] };
        break;
      }
      views.push(g.viewText());
      homes.push(g.home);
    }
    return { ...p, pi, views, homes, broken, total: g.total };
  });
  const events = [];
  for (const p of players) {
    const played = p.views.length - 1;
    p.moves.slice(0, played).forEach(([move, at], n) => events.push({ pi: p.pi, n: n + 1, move, at }));
  }
  events.sort((a, b) => a.at - b.at || a.pi - b.pi || a.n - b.n);
  for (const p of players) p.stepOf = [0];
  events.forEach((e, i) => (players[e.pi].stepOf[e.n] = i + 1));
  const start = startsAt || (events.length ? events[0].at : 0);
  return { players, events, start };
}
