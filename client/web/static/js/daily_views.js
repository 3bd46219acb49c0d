// The parts of the daily page drawn from its data alone: your entry's line, your record, the
// leaderboard. The page (daily.js) owns the requests and the day shown; which
// attempts have a replay it says through `replayHref(entry)` (null: none).

import { clockText, countText, nameMarks, timeCell } from "./words.js";

function timeTd(h, e) {
  const t = timeCell(e);
  return h("td", { class: "time", title: t.title }, h("span", { class: "tlabel" }, t.label), " ", t.text);
}

/** Your entry of the day `date` (from the `daily` reply, `count` attempts), or the leaderboard's fresher one. */
export function entryLine(h, e, count, { board, date, replayHref }) {
  // the leaderboard is fresher than the `daily` reply (it is refetched on every update)
  const b = board;
  if (b && !b.error && b.me && b.date === date) {
    e = b.me;
    count = b.count;
  }
  const replay = replayHref(e);
  return h(
    "div",
    { class: "my-entry", id: "daily-mine" },
    h("div", { class: "big-rank" }, `#${e.rank}`, h("span", { class: "muted small" }, ` of ${count}`)),
    h("div", {}, e.won ? `Won in ${clockText(e.time_ms)}` : `${e.home}/${e.total} home · ${e.status === "timeout" ? "time up" : e.status}`, ` · ${countText(e.moves, "move")}`),
    replay ? h("a", { class: "btn small", id: "daily-my-replay", href: replay }, "Watch your replay") : null,
  );
}

/** Your record in the game (`history`): days played, wins, streaks, the last days. */
export function historyPanel(h, hi) {
  if (!hi) return null;
  return h(
    "section",
    { class: "panel daily-history", id: "daily-history" },
    h("h2", {}, "Your record"),
    h(
      "div",
      { class: "stats" },
      stat(h, hi.played, "days played"),
      stat(h, hi.wins, "wins"),
      stat(h, hi.streak, `streak (best ${hi.best_streak})`),
      stat(h, hi.win_streak, `win streak (best ${hi.best_win_streak})`),
    ),
    hi.days && hi.days.length
      ? h(
          "table",
          { class: "ranking" },
          h("tbody", {}, hi.days.map((d) => h("tr", {}, h("td", {}, h("a", { href: `#daily=${hi.game}&date=${d.date}` }, d.date)), h("td", {}, d.won ? "won" : `${d.home}/${d.total}`), h("td", {}, d.rank ? `#${d.rank} of ${d.count}` : "")))),
        )
      : null,
  );
}

/**
 * The day's leaderboard (`board`, a `leaderboard` reply or {error}) of the day `info`: the top,
 * then the entries around yours; `me` your player id, `flash` the player whose entry just came,
 * `live` whether the board is watched, `published` whether the day's replays are known.
 */
export function boardPanel(h, { board, info, me, flash, live, published, replayHref }) {
  const b = board;
  const body = [];
  if (!b) body.push(h("p", { class: "muted" }, "Loading…"));
  else if (b.error) body.push(h("p", { class: "muted" }, b.error));
  else if (!b.count)
    body.push(
      h("p", { class: "muted", id: "daily-empty" }, (info && info.status !== "open") || b.status === "closed" ? "Nobody played this day." : "Nobody has played this deal yet. Be the first!"),
    );
  else {
    const closed = info && info.status !== "open";
    const winner = b.top && b.top[0] && published ? replayHref(b.top[0]) : null;
    if (winner) body.push(h("p", { class: "daily-winner" }, h("a", { class: "btn small primary", id: "daily-winner", href: winner }, `▶ Watch the winner, ${b.top[0].name}`)));
    const rows = [...b.top];
    const seen = new Set(rows.map((e) => e.player));
    const extra = (b.around || []).filter((e) => !seen.has(e.player));
    const row = (e) => {
      const replay = closed ? replayHref(e) : null;
      return h(
        "tr",
        { class: `${e.player === me ? "mine" : ""} ${e.player === flash ? "flash" : ""}`, dataset: { player: e.player } },
        h("td", {}, e.rank),
        h("td", { class: "name" }, e.name, nameMarks(h, e)),
        h("td", {}, h("span", { class: `pill p-${e.status}` }, e.won ? "won" : e.status === "timeout" ? "time up" : e.status)),
        h("td", {}, `${e.home}/${e.total}`),
        h("td", {}, e.moves),
        timeTd(h, e),
        closed ? h("td", { class: "replay" }, replay ? h("a", { class: "replay-link", href: replay, title: `Watch ${e.name}'s attempt` }, "replay") : null) : null,
      );
    };
    body.push(
      h(
        "table",
        { class: "ranking", id: "leaderboard" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Result", "Home", "Moves"].map((x) => h("th", {}, x)), h("th", { title: "Winners: the time to win. Others: when they stopped, or their last move when the clock ran out." }, "Time"), closed ? h("th", { title: "Published once the day is final: the top entries' replays, and your own" }, "Replay") : null)),
        h("tbody", {}, rows.map(row), extra.length ? h("tr", { class: "gap" }, h("td", { colspan: closed ? 7 : 6 }, "⋯")) : null, extra.map(row)),
      ),
    );
  }
  return h(
    "section",
    { class: "panel daily-board" },
    h("h2", {}, "Leaderboard", b && b.count ? h("span", { class: "muted small" }, ` · ${countText(b.count, "attempt")}`) : null, live ? h("span", { class: "pill p-running live" }, "live") : null),
    ...body,
  );
}

function stat(h, value, label) {
  return h("div", { class: "stat" }, h("b", {}, value ?? 0), h("span", { class: "muted small" }, label));
}
