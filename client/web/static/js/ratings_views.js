// The parts of the account pages drawn from their data alone (docs/protocol.md §9): an
// account's profile (its ratings per game with their graphs, rated races with replay links,
// arena podiums, daily streaks) and a game's rating board with your own standing. The page
// (accounts.js) owns the requests and the forms, and says whether this browser is a guest's.

import { gameName } from "./games.js";
import { nameMarks, signedText, utcDateTimeText } from "./words.js";

/** A rating as shown: "1500", provisional "1500?". */
export function ratingText(r) {
  return r.provisional ? `${r.rating}?` : String(r.rating);
}

/** Rated races a rating needs to stop being provisional (docs/ratings.md §2, PROVISIONAL_RACES). */
const PROVISIONAL_RACES = 10;
const PROVISIONAL_HELP = `A ? after a rating means provisional: it has counted in fewer than ${PROVISIONAL_RACES} rated races, so it is still a rough estimate, and it stays off the rating boards until then.`;

/** Rated races still needed before a provisional rating is established. */
function racesToGo(r) {
  return Math.max(1, PROVISIONAL_RACES - (r.races || 0));
}

/** An account's profile (`profile` reply). */
export function profileEl(h, p) {
  const isPlayed = (g) => g.rating.races > 0 || g.history.length > 0;
  const played = p.ratings.filter(isPlayed);
  // the games played most first (rated races that counted, then races played); the rest after, marked
  const cards = p.ratings
    .map((g, i) => [g, i])
    .sort(([a, i], [b, j]) => b.rating.races - a.rating.races || b.history.length - a.history.length || i - j)
    .map(([g]) => g);
  return h(
    "div",
    { class: "profile", id: "profile", dataset: { player: p.player } },
    // a profile is an account's: marked as its name is everywhere else
    h("h1", {}, p.name, nameMarks(h, { account: true, player: p.player }), h("span", { class: "muted small" }, ` · since ${new Date(p.created).toLocaleDateString()}`)),
    h(
      "div",
      { class: "rating-cards" },
      cards.map((g) =>
        h(
          "section",
          { class: `panel rating-card${isPlayed(g) ? "" : " unplayed"}`, dataset: { game: g.game, played: isPlayed(g) ? "yes" : "no" } },
          h("h2", {}, gameName(g.game)),
          isPlayed(g)
            ? h(
                "p",
                { class: "rating-big" },
                h("b", { class: "rating-value" }, String(g.rating.rating)),
                g.rating.provisional ? h("span", { class: "pill provisional", title: PROVISIONAL_HELP }, `provisional · ${racesToGo(g.rating)} more rated race${racesToGo(g.rating) === 1 ? "" : "s"}`) : null,
              )
            : h("p", { class: "small not-played" }, "Not played rated yet · starts at ", h("b", { class: "rating-value" }, String(g.rating.rating))),
          h("p", { class: "muted small rated-races" }, `${g.rating.races} rated race${g.rating.races === 1 ? "" : "s"}`),
          g.history.length ? graphEls(h, g.history) : null,
        ),
      ),
    ),
    played.some((g) => g.rating.provisional) || p.races.some((r) => r.after.provisional) ? h("p", { class: "muted small rating-legend", id: "rating-legend" }, PROVISIONAL_HELP) : null,
    h("h2", {}, "Recent rated races"),
    p.races.length ? racesEl(h, p.races) : h("p", { class: "muted", id: "no-rated-races" }, played.length ? "" : "No rated race yet."),
    p.arenas && p.arenas.length
      ? [
          h("h2", {}, "Arena podiums"),
          h(
            "table",
            { class: "arena-podiums", id: "arena-podiums" },
            h("thead", {}, h("tr", {}, h("th", {}, "Arena"), h("th", {}, "Game"), h("th", {}, "Ended"), h("th", {}, "Place"), h("th", {}, "Points"))),
            h("tbody", {}, p.arenas.map((a) => h("tr", { dataset: { arena: a.arena } }, h("td", {}, h("a", { href: `#arena=${a.arena}` }, a.name)), h("td", {}, gameName(a.game)), h("td", {}, utcDateTimeText(a.ends)), h("td", {}, `${a.rank} of ${a.players}`), h("td", {}, a.points)))),
          ),
        ]
      : null,
    p.daily.length
      ? [
          h("h2", {}, "Daily challenges"),
          h(
            "table",
            { class: "daily-streaks" },
            h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Played"), h("th", {}, "Won"), h("th", {}, "Streak"), h("th", {}, "Best"))),
            h("tbody", {}, p.daily.map((d) => h("tr", {}, h("td", {}, gameName(d.game)), h("td", {}, d.played), h("td", {}, d.wins), h("td", {}, d.streak), h("td", {}, d.best_streak)))),
          ),
        ]
      : null,
  );
}

function racesEl(h, races) {
  return h(
    "table",
    { class: "rated-races", id: "rated-races" },
    h("thead", {}, h("tr", {}, h("th", {}, "When"), h("th", {}, "Game"), h("th", {}, "Place"), h("th", {}, "Rating"), h("th", {}, ""))),
    h(
      "tbody",
      {},
      races.map((r) =>
        h(
          "tr",
          { dataset: { race: r.race } },
          h("td", {}, new Date(r.at).toLocaleString()),
          h("td", {}, gameName(r.game)),
          h("td", {}, `${r.rank} of ${r.players}`),
          h("td", {}, `${ratingText(r.before)} → ${ratingText(r.after)} (${signedText(r.after.rating - r.before.rating)})`),
          h("td", {}, h("a", { class: "btn small ghost", href: `#replay=${r.race}` }, "Replay")),
        ),
      ),
    ),
  );
}

/** The rating before the oldest rated race, then after each, oldest to newest (`history` is newest first). */
function ratingPoints(history) {
  return [history[history.length - 1].before.rating, ...history.slice().reverse().map((r) => r.after.rating)];
}

/** The graph of `history`, and its range in words: the line alone has no scale. */
function graphEls(h, history) {
  const pts = ratingPoints(history);
  return [graphEl(pts), h("p", { class: "muted small rating-range" }, `lowest ${Math.min(...pts)} · highest ${Math.max(...pts)}`)];
}

/** Ratings, oldest to newest, as a small line graph. */
function graphEl(pts) {
  const lo = Math.min(...pts);
  const hi = Math.max(...pts);
  const w = 220;
  const ht = 60;
  const x = (i) => (pts.length === 1 ? w / 2 : (i * w) / (pts.length - 1));
  const y = (v) => (hi === lo ? ht / 2 : ht - 4 - ((v - lo) * (ht - 8)) / (hi - lo));
  const d = pts.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${ht}`);
  svg.setAttribute("class", "rating-graph");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `rating from ${pts[0]} to ${pts[pts.length - 1]}`);
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", "2");
  svg.appendChild(path);
  return svg;
}

/** My own place on the board page, on the board or not (provisional, never played, a guest). */
function standingEl(h, b, { guest, mine }) {
  const line = (...parts) => h("p", { class: "my-standing", id: "my-standing" }, ...parts);
  if (b.me) {
    const e = b.me;
    return line(h("b", {}, "You: "), `#${e.rank} of ${b.count} · rating ${e.rating} · ${e.races} rated race${e.races === 1 ? "" : "s"}`);
  }
  if (guest) return line("Guests have no rating: ", h("a", { href: "#account" }, "make this player an account"), " to play rated races.");
  const g = mine && (mine.ratings || []).find((x) => x.game === b.game);
  if (!g) return null;
  const r = g.rating;
  // (the start's rating plain, as the profile says it: "1000?" read as a question)
  if (!r.races && !g.history.length) return line(h("b", {}, "You: "), `no rated ${gameName(b.game)} race yet (you start at ${r.rating}). `, `Play ${PROVISIONAL_RACES} rated races to be on the board.`);
  if (r.provisional) {
    const n = racesToGo(r);
    return line(
      h("b", {}, "You: "),
      h("span", { class: "rating-value", title: PROVISIONAL_HELP }, ratingText(r)),
      `, provisional — ${n} more rated race${n === 1 ? "" : "s"} to be on the board (${r.races} of ${PROVISIONAL_RACES} so far).`,
    );
  }
  // established, but not on the board yet (it was read before the board changed)
  return line(h("b", {}, "You: "), `rating ${r.rating} · ${r.races} rated races`);
}

/** A game's rating board (`rating_board` reply, null while it comes); `mine`: my own profile, for my standing off the board. */
export function boardEl(h, b, { guest, mine }) {
  if (!b) return h("p", { class: "muted" }, "Loading…");
  const row = (e, isMe) =>
    h(
      "tr",
      { class: isMe ? "me" : "", dataset: { player: e.player } },
      h("td", {}, e.rank),
      h("td", {}, h("a", { href: `#profile=${e.player}` }, e.name)),
      h("td", {}, e.rating),
      h("td", {}, e.races),
    );
  const me = b.me && b.me.player;
  return h(
    "section",
    { class: "panel rating-board", id: "rating-board" },
    h("h1", {}, `${gameName(b.game)} ratings`),
    standingEl(h, b, { guest, mine }),
    h("p", { class: "muted small" }, `${b.count} rated player${b.count === 1 ? "" : "s"}; a rating shows here after ${PROVISIONAL_RACES} rated races.`),
    h("p", { class: "muted small rating-legend", id: "rating-legend" }, PROVISIONAL_HELP),
    b.top.length
      ? h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Rating"), h("th", {}, "Races"))),
          h("tbody", {}, b.top.map((e) => row(e, e.player === me))),
        )
      : h("p", { class: "muted", id: "board-empty" }, `No established ${gameName(b.game)} rating yet.`),
    b.me && !b.top.some((e) => e.player === me)
      ? h("table", { class: "around" }, h("tbody", {}, b.around.map((e) => row(e, e.player === me))))
      : null,
  );
}
