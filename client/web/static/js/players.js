// The players of a race as the race page, the watch page and the result panel show them:
// each one's progress bar and status, ranked once the race is over.
import { countText, nameMarks } from "./words.js";
import { h } from "./dom.js";
import { app, myId } from "./state.js";

export const STATUS_LABEL = {
  waiting: "waiting",
  ready: "ready",
  playing: "playing",
  won: "won",
  finished: "finished",
  timeout: "time up",
};

export function playerRows(race) {
  const total = race.total || 1;
  // no place shown in a race of one (a practice, a daily attempt): "#1" of one, under a heading that
  // says "Practice over: 8/104 cards home" (result.js: no rival to rank against)
  const alone = (race.players || []).length < 2;
  const ranked = new Map(((app.end && app.end.ranking) || race.ranking || []).map((r) => [r.player, r]));
  // ranked (the race is over): by place; before, by seat
  const place = (p) => (ranked.get(p.player) || { rank: Infinity }).rank;
  const players = ranked.size ? [...(race.players || [])].sort((a, b) => place(a) - place(b)) : race.players || [];
  return players.map((p) => {
    const pct = Math.round((100 * (p.home || 0)) / total);
    const mine = p.player === myId();
    const rk = ranked.get(p.player);
    return h(
      "li",
      { class: `prog ${mine ? "mine" : ""} st-${p.status}`, dataset: { player: p.player } },
      h(
        "div",
        { class: "prog-head" },
        rk && !alone ? h("span", { class: "rank" }, `#${rk.rank}`) : null,
        // "(you)" after the marks, not in the name's box: where the name fills the line they go
        // under it together (a ✓ alone made a third line)
        h("span", { class: "pwho" }, h("span", { class: "pname", title: p.name }, p.name), nameMarks(h, p), mine ? h("span", { class: "you" }, " (you)") : null),
        // stacked: an arena's "berserk" beside the status left the name a few letters
        h(
          "span",
          { class: "prog-pills" },
          h("span", { class: `pill p-${p.status}` }, STATUS_LABEL[p.status] || p.status),
          p.berserk ? h("span", { class: "pill p-berserk", title: "took half the clock for one more point if they win" }, "berserk") : null,
        ),
      ),
      h("div", { class: "bar", title: `${p.home}/${total} cards home` }, h("i", { style: { width: `${pct}%` } })),
      h("div", { class: "prog-foot muted small" }, h("span", { class: "home" }, `${p.home || 0}/${total} home`), h("span", { class: "moves" }, countText(p.n || 0, "move"))),
    );
  });
}
