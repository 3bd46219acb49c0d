// The parts of the arena pages drawn from their data alone (docs/protocol.md §5a): the list of
// arenas, the time left, the featured race's panel, the winners and the standings. The page
// (arena.js) owns the requests, the watch, joining and Berserk, and the server clock's offset.

import { gameName } from "./games.js";
import { countText, nameMarks, timeLeftText, utcDateTimeText, utcTimeText } from "./words.js";

/** What an arena's clock says at `now` (the server's time): before it starts, while it runs, after. */
export function leftText(a, now) {
  if (now < a.starts) return `starts in ${timeLeftText(a.starts - now)}`;
  if (now < a.ends) return `${timeLeftText(a.ends - now)} left`;
  return a.final ? "final standings" : "over: the last races are finishing";
}

/** The list of arenas (`arenas` reply, null while it comes; `error`: why there is none), at `now`. */
export function arenaListEl(h, list, error, now) {
  const head = h("div", { class: "daily-head" }, h("h1", {}, "Arenas"), h("p", { class: "muted" }, "Join an arena and you are paired into race after race, with players of close standing, until it ends (withdraw to stop). Each race scores its placement (in a race of n players: n points for 1st, n − 1 for 2nd, down to 1 for last; players tied for a place each get its points) and 1 more for finishing the deal (every card home). A player who made no move scores 0 whatever their place: a 2nd place can earn nothing. Two wins in a row put you on fire: from your third race on, each race counts double (placement and finish bonus) until one you do not win. Berserk, where the arena allows it, before a race starts: half your clock, and 1 more point if you win (not doubled). The standings are live."));
  if (error) return h("div", { class: "arena" }, head, h("div", { class: "panel error-panel" }, h("h2", {}, error)));
  if (!list) return h("div", { class: "arena" }, head, h("p", { class: "muted" }, "Loading…"));
  // the arenas of the next hour, running or ended; later ones (scheduled, listed before the
  // server creates them: opening or joining one creates it) under "Later today", or "Later"
  // once one starts on a later UTC day (the list runs a day ahead): that one's start with its date
  const soon = list.now + 3600_000;
  const today = (ms) => Math.floor(ms / 86_400_000) === Math.floor(list.now / 86_400_000);
  const startsText = (ms) => (today(ms) ? utcTimeText(ms) : utcDateTimeText(ms));
  const whenText = (a) =>
    a.status === "running" ? `running, started ${startsText(a.starts)}` : a.status === "over" ? `over, started ${startsText(a.starts)}` : `starts ${startsText(a.starts)}`;
  const row = (a, later) =>
    h(
      "tr",
      { class: `arena-row ${a.status}${later ? " later" : ""}`, dataset: { arena: a.id } },
      // the hourly arenas share a name ("Hourly Racing Aces": the one over, the one running,
      // the next): each link's name says which, by its state and start
      h("td", {}, h("a", { href: `#arena=${a.id}`, "aria-label": `${a.name || a.id}, ${whenText(a)}` }, a.name || a.id)),
      h("td", {}, gameName(a.game)),
      later ? h("td", {}, startsText(a.starts)) : h("td", {}, a.status),
      h("td", {}, leftText(a, now)),
      h("td", { class: "num" }, String(a.players)),
    );
  const table = (rows, cls, third) =>
    h("table", { class: `ranking ${cls}` }, h("thead", {}, h("tr", {}, h("th", {}, "Arena"), h("th", {}, "Game"), h("th", {}, third), h("th", {}, "Time"), h("th", {}, "Players"))), h("tbody", {}, rows));
  const rows = list.arenas.filter((a) => a.starts < soon).map((a) => row(a, false));
  const laterOnes = list.arenas.filter((a) => a.starts >= soon);
  const later = laterOnes.map((a) => row(a, true));
  return h(
    "div",
    { class: "arena" },
    head,
    h("h2", { id: "arena-now" }, "Now and within the hour"),
    rows.length ? table(rows, "arena-list", "Status") : h("p", { class: "muted" }, "No arena now or within the hour."),
    later.length ? h("h2", { id: "arena-later" }, laterOnes.every((a) => today(a.starts)) ? "Later today" : "Later") : null,
    later.length ? table(later, "arena-list arena-later", "Starts") : null,
  );
}

/** The featured race: watched with the spectator delay, unless it is yours (the server refuses `is-player`). */
export function featuredEl(h, d, arena) {
  if (!d.featured) return h("p", { class: "muted" }, "No race being played.");
  if (d.featured === d.race)
    return h("p", { id: "arena-featured-mine" }, "The race of the highest-ranked players is yours. ", h("a", { class: "btn", href: `#race=${d.race}` }, "Back to your race"));
  return h("p", {}, "The race of the highest-ranked players, shown with the spectator delay. ", h("a", { class: "btn", id: "arena-watch", href: `#watch=${d.featured}&arena=${arena}` }, "Watch it"));
}

/** Once the standings are final: the podium (the first three places with points). */
export function winnersPanel(h, b) {
  if (!b || !b.final) return null;
  const medals = ["🥇", "🥈", "🥉"];
  const podium = b.top.filter((r) => r.rank <= 3 && r.points > 0);
  return h(
    "div",
    { class: "panel", id: "arena-winners" },
    h("h2", {}, "Winners"),
    podium.length
      ? h("ol", { class: "arena-podium" }, podium.map((r) => h("li", { dataset: { player: r.player, rank: String(r.rank) } }, `${medals[r.rank - 1]} `, nameEl(h, r), ` · ${r.points} pt${r.points === 1 ? "" : "s"}`)))
      : h("p", { class: "muted" }, "Nobody scored in this arena."),
  );
}

/**
 * A standings row's name: a link to the player's profile for an account (the row's
 * `account`, docs/protocol.md §5a, read as the rows are sent: a guest who claimed an account
 * since shows as one), plain text for a guest or a bot, who have none.
 */
function nameEl(h, r) {
  const name = r.account ? h("a", { class: "profile-link", href: `#profile=${r.player}` }, r.name) : h("span", {}, r.name);
  return h("span", { class: "standing-name" }, name, nameMarks(h, r));
}

/** The standings (`arena_standings` or an `arena_update`, null while it comes): the top, then the players around `me`. */
export function standingsPanel(h, b, me) {
  if (!b) return h("div", { class: "panel" }, h("h2", {}, "Standings"), h("p", { class: "muted" }, "Loading…"));
  const line = (r) =>
    h(
      "tr",
      { class: r.player === me ? "me" : "", dataset: { player: r.player } },
      h("td", { class: "num" }, String(r.rank)),
      h("td", {}, nameEl(h, r), r.fire ? h("span", { title: "on fire: a win counts double" }, " 🔥") : null),
      h("td", { class: "num points" }, String(r.points)),
      h("td", { class: "num" }, `${r.wins}/${r.races}`),
    );
  const rows = b.top.map(line);
  const shown = new Set(b.top.map((r) => r.player));
  const rest = b.around.filter((r) => !shown.has(r.player));
  if (rest.length) rows.push(h("tr", { class: "gap" }, h("td", { colspan: "4" }, "…")), ...rest.map(line));
  return h(
    "div",
    { class: "panel" },
    h("h2", {}, b.final ? "Final standings" : "Standings", h("span", { class: "muted small" }, ` · ${countText(b.count, "player")}`)),
    h("table", { class: "ranking arena-standings", id: "arena-standings" }, h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Points"), h("th", {}, "Wins"))), h("tbody", {}, rows)),
    b.count ? null : h("p", { class: "muted", id: "arena-nobody" }, b.final ? "Nobody played in this arena." : "Nobody has joined yet."),
  );
}
