// The lobby's "Your recent races" panel: its list asked for and kept here (`recent`), drawn into
// the lobby (lobby.js) by `recentEl`, redrawn in place as replies come and as its rows'
// clock-dependent words change.
import { dailyReplayHref } from "./daily_attempts.js";
import { $, h } from "./dom.js";
import { gameName } from "./games.js";
import { dailyClosed } from "./result.js";
import { app, conn, myId } from "./state.js";
import { agoText, ordinal, signedText } from "./words.js";

// The player's own latest finished races (docs/protocol.md §9 `recent`), guests' too. Asked
// once per lobby visit (app.js, at the route's entry and after a welcome), not at every
// re-render, and again when a race of ours ends: its entry is written moments after the end
// (a rated race's rating change a moment later), so that request asks again a few times until
// the race is in the list.
export const recent = {
  player: null, // whose list `races` is: another identity (a login, a logout) shows nothing of it
  races: [],
  more: false, // the "More" toggle: up to RECENT_MORE rows instead of RECENT_SHOWN
  asked: 0, // requests sent
  applied: 0, // the request whose reply is shown: an older reply coming late is not
};
const RECENT_SHOWN = 5;
const RECENT_MORE = 20;
const RECENT_RETRIES = 4; // after an end: asked again 0.5, 1, 2, 4 s later until the race is listed

/** Ask for our recent races and redraw the lobby's panel; with `expect` (a race that just ended),
 *  ask again a few times until it is listed. */
export async function refreshRecent(expect = null, tries = 0) {
  if (conn.status !== "online" || !app.me) return;
  const player = myId();
  if (tries && recent.player === player && listed(recent.races, expect)) return; // listed meanwhile
  const seq = ++recent.asked;
  let races;
  try {
    races = (await conn.request({ t: "recent", limit: RECENT_MORE })).races || [];
  } catch (e) {
    return; // an older server (unknown-type), a lost connection: the panel stays as it is
  }
  if (player !== myId()) return; // someone else meanwhile: their own visit asks for theirs
  if (seq > recent.applied) {
    recent.applied = seq;
    recent.player = player;
    recent.races = races;
    drawRecent();
  }
  if (expect && tries < RECENT_RETRIES && !listed(races, expect)) {
    setTimeout(() => refreshRecent(expect, tries + 1), 500 * 2 ** tries);
  }
}

/** Race `id` is in `races`, with its rating change if it was rated (written moments after the entry). */
function listed(races, id) {
  const r = races.find((x) => x.race === id);
  return !!r && (!r.rated || !!r.after);
}

function drawRecent() {
  const el = $("#recent-races");
  if (el) el.replaceWith(recentEl());
}

// A lobby left open: its rows' "5 min ago" and a daily attempt's sealed replay change with the
// clock alone. Checked every RECENT_TICK_MS and redrawn only when what they say has changed,
// never under the keyboard's focus (a redraw replaces the links).
const RECENT_TICK_MS = 10_000;
let recentFace = ""; // what the shown rows' clock-dependent parts said when drawn

function faceOf(shown, now) {
  return shown.map((r) => `${agoText(r.at, now)}${r.kind === "daily" && dailyClosed(dailyDayOf(r), now) ? "+" : ""}`).join("|");
}

function redrawRecentIfStale() {
  const el = $("#recent-races");
  if (!el || el.hidden || document.hidden || el.contains(document.activeElement)) return;
  if (faceOf(shownRecent(), conn.now()) !== recentFace) drawRecent();
}
setInterval(redrawRecentIfStale, RECENT_TICK_MS);
document.addEventListener("visibilitychange", redrawRecentIfStale); // a tab come back: at once

function shownRecent() {
  const races = recent.player && recent.player === myId() ? recent.races : [];
  return races.slice(0, recent.more ? RECENT_MORE : RECENT_SHOWN);
}

const KIND_LABEL = { daily: "daily", arena: "arena", bot: "vs bot", quick: "quick match", private: "private", public: "public" };

/** A race's kind in words: a private race of one seat is a practice (the tiles' Practice button makes them). */
function kindLabel(r) {
  if (r.kind === "private" && r.players === 1) return "practice";
  return KIND_LABEL[r.kind] || r.kind;
}
const STATUS_WORDS = { won: "won", finished: "finished", timeout: "out of time" };

/** "1st of 2" in a race of several players; alone (a daily, a solo race), how it ended. */
export function placeText(r) {
  if (r.players > 1) return `${ordinal(r.rank)} of ${r.players}`;
  return STATUS_WORDS[r.status] || r.status;
}

/** A daily attempt's day: the entry's `date`; an entry written before it had one, the UTC date of its end. */
function dailyDayOf(r) {
  return { game: r.game, date: r.date || new Date(r.at).toISOString().slice(0, 10) };
}

function recentRow(r, now) {
  const daily = r.kind === "daily" ? dailyDayOf(r) : null;
  // a daily attempt's replay is sealed until its day closes (docs/protocol.md §5)
  const replay = daily ? (dailyClosed(daily, now) ? dailyReplayHref(r.race, daily.game, daily.date) : null) : `#replay=${r.race}`;
  const rated = r.rated && r.before && r.after ? r.after.rating - r.before.rating : null;
  return h(
    "li",
    { class: "recent-race", dataset: { race: r.race, kind: r.kind } },
    h("span", { class: "recent-game" }, gameName(r.game)),
    h("span", { class: "recent-when muted small", title: new Date(r.at).toLocaleString() }, agoText(r.at, now)),
    r.kind === "arena" && r.arena
      ? h("a", { class: "pill recent-kind", href: `#arena=${r.arena}`, title: "the arena's page" }, KIND_LABEL.arena)
      : h("span", { class: "pill recent-kind" }, kindLabel(r)),
    r.rated ? h("span", { class: "pill rated" }, "rated") : null,
    h("span", { class: `recent-place${r.rank === 1 && r.players > 1 ? " first" : ""}` }, placeText(r)),
    h("span", { class: "recent-home muted small" }, `${r.home}/${r.total} home`),
    rated !== null
      ? h("span", { class: `recent-rating ${rated > 0 ? "up" : rated < 0 ? "down" : ""}`, title: `rating ${r.before.rating} → ${r.after.rating}` }, signedText(rated))
      : null,
    h(
      "span",
      { class: "recent-links" },
      replay
        ? h("a", { class: "btn small ghost recent-replay", href: replay }, "Replay")
        : h("span", { class: "muted small recent-sealed", title: "a daily attempt's replay opens when its day closes (UTC)" }, "replay after the close"),
      daily ? null : h("a", { class: "btn small ghost recent-analysis", href: `#race=${r.race}&analysis`, title: "the race's result, with the solver's analysis: where the win was lost" }, "Analysis"),
    ),
  );
}

/** The lobby's "Your recent races": nothing for a player who has none. */
export function recentEl() {
  const races = recent.player && recent.player === myId() ? recent.races : [];
  if (!races.length) return h("section", { class: "panel recent", id: "recent-races", hidden: true });
  const now = conn.now();
  const shown = shownRecent();
  recentFace = faceOf(shown, now);
  return h(
    "section",
    { class: "panel recent", id: "recent-races" },
    h("h2", {}, "Your recent races"),
    h("ul", { class: "recent-list" }, shown.map((r) => recentRow(r, now))),
    races.length > RECENT_SHOWN
      ? h(
          "button",
          {
            class: "btn small ghost",
            id: "recent-more",
            onclick: () => {
              recent.more = !recent.more;
              drawRecent();
            },
          },
          recent.more ? "Fewer" : `More (${Math.min(races.length, RECENT_MORE) - RECENT_SHOWN})`,
        )
      : null,
  );
}
