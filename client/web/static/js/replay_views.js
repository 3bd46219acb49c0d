// The parts of the replay page drawn from its data alone (replay_data.js `rebuild`): the
// result table, the deal's checks, the analysis, each player's move list and chart. The page
// (replay.js) owns the step; a part that moves it is given a `jump(step)`.

import { parseView } from "./cards.js";
import { analysisPendingText } from "./analysis_wait.js";
import { analysisItem, boardPileText, clockText, homeText, moveText, nameMarks, timeCell, verifyText, verifyTitle } from "./words.js";

/** The result table, by place: rank, name and marks, result, cards home, moves (and par), time. */
export function rankingTable(h, rep, d) {
  const lastMove = new Map(d.players.map((p) => [p.player, p.moves.length ? p.moves[p.moves.length - 1][1] - d.start : null]));
  const total = d.players.length ? d.players[0].total : null; // one deal: every board has the same cards
  return h(
    "table",
    { class: "ranking" },
    h("thead", {}, h("tr", {}, ["#", "Player", "Result", "Home", "Moves", "Time"].map((x) => h("th", {}, x)))),
    h(
      "tbody",
      {},
      (rep.ranking || []).map((r) => {
        const t = timeCell(r, lastMove.get(r.player));
        return h(
          "tr",
          {},
          h("td", {}, r.rank),
          h("td", { class: "name" }, r.name, nameMarks(h, r)),
          h("td", {}, h("span", { class: `pill p-${r.status}` }, r.won ? "won" : r.status === "timeout" ? "time up" : r.status)),
          h("td", {}, homeText(r.home, total)),
          h("td", {}, r.moves, rep.par ? h("span", { class: "muted small par" }, ` / par ${rep.par}`) : null),
          h("td", { class: "time", title: t.title }, h("span", { class: "tlabel" }, t.label), " ", t.text),
        );
      }),
    ),
  );
}

/** The deal's checks: the seed against the commitment (`v`: {ok, hex, how}, null while
 *  checking) and every re-played board against the ranking. */
export function verifyPanel(h, v, rep, d) {
  const broken = d && d.players.find((p) => p.broken);
  const homeOk = d && !broken && d.players.every((p) => {
    const r = (rep.ranking || []).find((x) => x.player === p.player);
    return !r || r.home === p.homes[p.homes.length - 1];
  });
  return h(
    "div",
    { id: "replay-verify", class: "fair" },
    h("div", { class: `verify ${v ? (v.ok ? "ok" : "bad") : ""}`, title: verifyTitle(v) }, verifyText(v)),
    h(
      "div",
      { class: `verify ${homeOk ? "ok" : "bad"}`, id: "replay-check" },
      broken
        ? [`✘ ${broken.name}'s move ${broken.broken.index + 1} (`, brokenMove(h, rep, broken), ") is not legal in the re-dealt game"]
        : homeOk
          ? "✔ every board re-dealt from the seed and re-played in your browser reaches the cards home of the ranking"
          : "✘ a re-played board does not match the ranking",
    ),
  );
}

/** The move of `p` that did not play, in the board's words (its card, its piles as the board labels
 *  them), the engine's text its title. */
function brokenMove(h, rep, p) {
  const { index, move } = p.broken;
  const before = p.views[index] ? parseView(p.views[index]) : null; // the view the move met
  return h("span", { class: "move", title: move }, moveText(move, (pile) => before && before.piles[pile], (pile) => boardPileText(rep.game, pile)));
}

/** The solver's post-race analysis: pending, an error, or a line per player; null if not asked.
 *  `pileName(pile)` names a pile as the board labels it. */
export function analysisPanel(h, a, pileName) {
  if (!a) return null;
  if (a.pending) return h("div", { id: "replay-analysis", class: "muted" }, analysisPendingText(a.since));
  if (a.error) return h("div", { id: "replay-analysis", class: "bad" }, a.error);
  return h(
    "ul",
    { id: "replay-analysis", class: "analysis" },
    a.players.map((p) => analysisItem(h, p, pileName)),
  );
}

/** The player's moves in words, each a link to that moment (filled when first opened);
 *  `jump(step)` goes there; `pileName(pile)` names a pile as the board labels it. */
export function moveList(h, d, p, jump, pileName) {
  const list = h("ol", { class: "replay-moves-list" });
  const details = h("details", { class: "replay-moves" }, h("summary", {}, `Moves (${p.views.length - 1})`), list);
  details.addEventListener("toggle", () => {
    if (!details.open || list.childElementCount) return;
    const start = d.start;
    list.replaceChildren(
      ...p.moves.slice(0, p.views.length - 1).map(([move, at], i) => {
        const before = parseView(p.views[i]);
        return h(
          "li",
          {},
          h("button", { class: "linkish", dataset: { step: p.stepOf[i + 1] }, onclick: () => jump(p.stepOf[i + 1]) }, moveText(move, (pile) => before.piles[pile], pileName)),
          h("span", { class: "muted small" }, ` ${clockText(at - start)}`),
        );
      }),
    );
  });
  return details;
}

/** An SVG chart of cards home over the race's time, with a cursor; a click calls `jump(step)`. */
export function homeChart(d, p, jump) {
  const end = Math.max(1, d.events.length ? d.events[d.events.length - 1].at - d.start : 1);
  const W = 300;
  const H = 40;
  const pts = [`0,${H}`];
  p.homes.forEach((home, n) => {
    if (n === 0) return;
    const x = ((p.moves[n - 1][1] - d.start) / end) * W;
    pts.push(`${x.toFixed(1)},${(H - (home / p.total) * H).toFixed(1)}`);
  });
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "replay-chart");
  svg.setAttribute("aria-label", `${p.name}: cards home over time`);
  svg.innerHTML = `<polyline points="${pts.join(" ")}" fill="none" stroke="currentColor" stroke-width="1.5" vector-effect="non-scaling-stroke"/><line class="cursor" x1="0" x2="0" y1="0" y2="${H}" vector-effect="non-scaling-stroke"/>`;
  svg.addEventListener("click", (e) => {
    const box = svg.getBoundingClientRect();
    const t = ((e.clientX - box.left) / box.width) * end;
    let s = 0;
    while (s < d.events.length && d.events[s].at - d.start <= t) s++;
    jump(s);
  });
  const wrap = document.createElement("div");
  wrap.className = "replay-chart-wrap";
  wrap.title = "cards home over time — click to jump";
  wrap.appendChild(svg);
  return wrap;
}
