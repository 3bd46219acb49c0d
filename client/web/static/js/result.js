// The result panel of a finished race (on the race page and the watch page): the ranking, the
// seed checked against the commitment (or, for a daily attempt, where it will be revealed), the
// arena points or rating it earned, the solver's analysis, and what to play next.
import { analysisPendingText, requestAnalysis } from "./analysis_wait.js";
import { sha256Hex } from "./sha256.js";
import { dailyOf } from "./daily_attempts.js";
import { arenaOf } from "./arena.js";
import { analysisItem, boardPileText, errorText as errText, homeText, nameMarks, resultHeading, tieBreakNotes, timeCell, verifyText, verifyTitle } from "./words.js";
import { loggedIn } from "./accounts.js";
import { isBot } from "./botrace.js";
import { $, announce, h } from "./dom.js";
import { placeIn, restorePlace } from "./keep_place.js";
import { askRematch, createRace, quick, takeRematch } from "./matchmaking.js";
import { STATUS_LABEL } from "./players.js";
import { app, conn, myId, pages, withInvite } from "./state.js";

/** The race is over (its `end` event, or a finished snapshot): keep it, check its seed, fetch what the panel shows. */
export function setEnd(end) {
  app.end = end;
  app.verify = null;
  app.lastMoves = null;
  if (end.seed && (end.ranking || []).some((r) => !r.won && r.status === "timeout")) fetchLastMoves(end.race);
  const race = app.race;
  if (race && race.seed !== end.seed) race.seed = end.seed;
  const commitment = race && race.commitment;
  if (end.seed && commitment) {
    sha256Hex(end.seed).then(({ hex, how }) => {
      app.verify = { ok: hex === commitment, hex, how };
      if (app.route.kind === "race" || app.route.kind === "watch") renderResult();
    });
  }
}

/** When a daily attempt's day ({game, date} from dailyOf) closes: the next midnight UTC (docs/protocol.md §5); NaN if unknown. */
export function dailyClosesAt(daily) {
  const opens = daily && daily.date ? Date.parse(`${daily.date}T00:00:00Z`) : NaN;
  return opens + 86400000;
}

/** Whether a daily attempt's day has closed at `now` (server time). */
export function dailyClosed(daily, now = conn.now()) {
  const closes = dailyClosesAt(daily);
  return Number.isFinite(closes) && now >= closes;
}

// A daily attempt's result reads differently once its day has closed (the seed is out, the
// replay opens): a result left on screen across the close is redrawn then, not at the next
// event, which may never come (the race is over). The timer (app.dayCloseTimer) is cleared
// when the page is left (leaveResult).
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1; // setTimeout fires at once past this

function redrawAtClose(daily) {
  clearTimeout(app.dayCloseTimer);
  app.dayCloseTimer = null;
  if (!daily) return;
  const wait = dailyClosesAt(daily) - conn.now();
  if (!Number.isFinite(wait)) return;
  // Early by a server clock estimate that moved meanwhile, the redraw arms the timer again.
  app.dayCloseTimer = setTimeout(() => {
    app.dayCloseTimer = null;
    renderResult();
  }, Math.min(Math.max(0, wait), LONGEST_TIMEOUT_MS));
}

/** The race or watch page is left: nothing of its result is redrawn any more. */
export function leaveResult() {
  redrawAtClose(null);
}

/** A daily attempt's sealed result: where its seed is (or will be) revealed, with links. */
function dailySealedNote(daily) {
  const page = daily ? `#daily=${daily.game}${daily.date ? `&date=${daily.date}` : ""}` : "#daily";
  if (dailyClosed(daily))
    return h(
      "div",
      { class: "muted", id: "sealed" },
      `This deal was the ${daily.date} daily challenge. The day is closed: its seed is revealed on `,
      h("a", { id: "sealed-day", href: page }, "the day's page"),
      ", where your browser checks it against the deal's fingerprint, and ",
      h("a", { id: "sealed-replay", href: `#replay=${app.race && app.race.race}` }, "your replay"),
      " is open.",
    );
  return h(
    "div",
    { class: "muted", id: "sealed" },
    "This deal is a daily challenge: its seed is revealed after the day closes (UTC), on ",
    h("a", { id: "sealed-day", href: page }, "the daily page"),
    ", where your browser checks it against the deal's fingerprint.",
  );
}

/** The Rematch button's tooltip: a rematch is always casual, with an ordinary deal (docs/protocol.md §3 `rematch`). */
function rematchTitle(race, practice) {
  if (practice) return "A new deal of this game, on the same clock: it starts when you are ready";
  if (race.rated) return "The same players, game and clock, a new deal: a casual race (a rematch is never rated)";
  return `The same players, a new deal, the same game, seats and clock${race.certified ? " (an ordinary deal: not certified winnable)" : ""}`;
}

let arenaWait = null; // {race, over}: the arena points of this race are being waited for

/** Under an arena race's result: the arena points it earned (once the arena counted it), and what comes next. */
function arenaResultView(race, myRank) {
  const arena = arenaOf(race.race);
  if (!arena) return null;
  const arenaPage = pages.arena;
  const info = arenaPage.arenaInfo(arena);
  const got = myRank ? arenaPage.pointsOf(arena, race.race) : null;
  if (myRank && !got && (!arenaWait || arenaWait.race !== race.race)) {
    const wait = (arenaWait = { race: race.race, over: false });
    const still = () => app.route.kind === "race" && app.raceId === race.race;
    arenaPage.awaitPoints(arena, race.race, still).then(() => {
      wait.over = true;
      if (still()) renderResult();
    });
  }
  const waiting = arenaWait && arenaWait.race === race.race && !arenaWait.over;
  const over = info && (info.arena.status === "over" || arenaPage.now() >= info.arena.ends);
  const name = (info && info.arena.name) || "the arena";
  return h(
    "div",
    { class: "arena-result", id: "arena-result" },
    myRank
      ? got
        ? h("p", { id: "arena-points" }, h("b", {}, `+${got.points} arena point${got.points === 1 ? "" : "s"}`), ` in ${name} (#${got.rank} in this race).`)
        : h("p", { class: "muted", id: "arena-points-wait" }, waiting ? `Counting your points in ${name}…` : `Your points are in the standings of ${name}.`)
      : null,
    h(
      "p",
      { class: "muted small", id: "arena-next" },
      over
        ? "The arena is over: no more pairings."
        : info && !info.joined
          ? "You have withdrawn: join the arena again on its page to race on."
          : "While you stay joined, the arena pairs you again by itself: your next race opens here within seconds. Withdraw on the arena's page to stop.",
    ),
  );
}

export function renderResult() {
  const box = $("#result");
  if (!box) return;
  const end = app.end;
  if (!end) {
    redrawAtClose(null);
    box.replaceChildren();
    return;
  }
  const race = app.race || {};
  const v = app.verify;
  const myRank = (end.ranking || []).find((r) => r.player === myId());
  const daily = dailyOf(race.race);
  const sealed = !end.seed;
  const offer = app.rematchOffer && app.rematchOffer.race === race.race ? app.rematchOffer : null;
  redrawAtClose(sealed && daily && !dailyClosed(daily) ? daily : null);
  const tied = !!myRank && (end.ranking || []).some((r) => r !== myRank && r.rank === myRank.rank);
  const players = (end.ranking || []).length;
  const practice = !daily && !!race.private && players < 2;
  const heading = resultHeading(!!daily, myRank, players, race.total, tied, practice);
  const solo = practice && race.seats === 1; // a practice: a race of one seat
  const first = box.dataset.said !== race.race;
  if (first) {
    box.dataset.said = race.race; // once per race, not on every redraw of the panel
    announce(heading);
  }
  // drawn again (the seed checked, the analysis come): the focus stays on what had it
  const place = placeIn(box);
  box.replaceChildren(
    h(
      "div",
      { class: "panel result-panel", id: "result-panel" },
      // (focusable from script: it takes the focus when the race ends under a lost one)
      h("h2", { id: "result-title", tabindex: -1 }, heading),
      pages.account.ratingLine(race.race, myId()),
      arenaResultView(race, myRank),
      h(
        "table",
        { class: "ranking" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Result", "Home", "Moves"].map((x) => h("th", {}, x)), h("th", { title: TIME_TITLE }, "Time"))),
        h(
          "tbody",
          {},
          (end.ranking || []).map((r) => {
            const t = timeCell(r, app.lastMoves && app.lastMoves.get(r.player));
            return h(
              "tr",
              { class: r.player === myId() ? "mine" : "", dataset: { player: r.player } },
              h("td", {}, r.rank),
              h("td", { class: "name" }, r.name, nameMarks(h, r)),
              h("td", {}, h("span", { class: `pill p-${r.status}` }, r.won ? "won" : STATUS_LABEL[r.status] || r.status)),
              h("td", {}, homeText(r.home, race.total)),
              h("td", {}, r.moves, end.par ? h("span", { class: "muted small par" }, ` / par ${end.par}`) : null),
              h("td", { class: "time", title: t.title }, h("span", { class: "tlabel" }, t.label), " ", t.text),
            );
          }),
        ),
      ),
      tieBreakNotes(end.ranking || []).length
        ? h("div", { class: "muted small", id: "tie-break" }, tieBreakNotes(end.ranking || []).map((n) => h("div", {}, n)))
        : null,
      sealed
        ? h(
            "div",
            { class: "fair" },
            h("div", {}, "Deal's fingerprint ", h("code", {}, race.commitment || "—")),
            dailySealedNote(daily),
          )
        : h(
        "div",
        { class: "fair" },
        h("div", {}, "Seed ", h("code", { id: "seed" }, end.seed || "—")),
        h("div", {}, "Deal's fingerprint ", h("code", {}, race.commitment || "—")),
        h(
          "div",
          { id: "verify", class: `verify ${v ? (v.ok ? "ok" : "bad") : ""}`, title: verifyTitle(v) },
          verifyText(v),
        ),
      ),
      h(
        "div",
        { class: "result-actions" },
        daily ? h("a", { class: "btn primary", id: "to-leaderboard", href: `#daily=${daily.game}` }, "See the leaderboard") : null,
        arenaOf(race.race) ? h("a", { class: "btn primary", id: "to-arena", href: `#arena=${arenaOf(race.race)}` }, "Back to the arena") : null,
        offer && !daily ? h("button", { class: "btn primary", id: "accept-rematch", onclick: () => takeRematch(offer) }, h("span", {}, "Accept ", offer.name, nameMarks(h, { account: offer.account, player: offer.by }), "'s rematch")) : null, // one span: the mark stays beside the name, not a flex item spaced off
        // (a practice's rematch is a new deal of your own: no one to meet again)
        myRank && !daily && !offer && !arenaOf(race.race) ? h("button", { class: "btn primary", id: "rematch-btn", onclick: () => askRematch(race.race), title: rematchTitle(race, solo) }, solo ? "New deal" : "Rematch") : null,
        // "again" only to a player of a quick match (no host): not to a spectator, nor after a race made by hand
        race.game && !daily && !arenaOf(race.race) ? h("button", { class: "btn", id: "quick-again", onclick: () => quick(race.game).then(() => (location.hash = "/")) }, myRank && !race.host ? "Quick match again" : "Quick match") : null,
        // Not after a bot race: the new race would wait for a human in the bot's seat (Rematch deals again with the bot).
        // Nor after a practice: it would be the New deal button's race again, a second button for it.
        race.game && !daily && !solo && !arenaOf(race.race) && !(race.players || []).some((p) => isBot(p.player)) ? h("button", { class: "btn", onclick: () => createRace(race.game, race.seats, race.time_limit_s, race.private, !!race.rated && loggedIn()) }, "New race, same settings") : null,
        sealed && !dailyClosed(daily) ? null : h("a", { class: "btn", id: "to-replay", href: `#replay=${race.race}` }, "Watch the replay"),
        sealed || (app.analysis && app.analysis.race === race.race && !app.analysis.error)
          ? null
          : h("button", { class: "btn", id: "analyze", onclick: () => fetchAnalysis(race.race) }, app.analysis && app.analysis.error ? "Try the analysis again" : "Where was the win lost?"),
        h("a", { class: "btn ghost", href: "#/" }, "Lobby"),
      ),
      analysisView(race.race),
    ),
  );
  restorePlace(box, place);
  if (first && focusLost()) $("#result-title").focus();
  // opened from the lobby's "Analysis" link (#race=ID&analysis): asked for once, as the button would
  const r = app.route;
  if (r.kind === "race" && r.analysis && r.id === race.race && !sealed && !(app.analysis && app.analysis.race === race.race)) fetchAnalysis(race.race);
}

/** Whether the focus is nowhere the player put it: on the page's body (the button pressed, such
 *  as Finish my game, is gone), or on the board, now over, its game-over cover, or the option to
 *  mark the cards that can move, hidden with the game (race_play.js). Then the
 *  result, new, takes it, which brings it into sight: on a phone it lies above the board, and the
 *  player who pressed Finish my game (under the board) or played to the end saw only "done". */
function focusLost() {
  const at = document.activeElement;
  return !at || at === document.body || !at.isConnected || !!at.closest("#board, #board-cover, #mark-movable-box");
}

/** The solver's post-race analysis of a finished race: per player, where the win was lost. */
async function fetchAnalysis(raceId) {
  const asked = { race: raceId, pending: true, since: Date.now() };
  app.analysis = asked;
  renderResult();
  try {
    const rep = await requestAnalysis(conn, withInvite({ t: "analysis", race: raceId }), "analysis", asked.since, () => app.analysis === asked);
    if (app.analysis.race !== raceId) return;
    app.analysis = { race: raceId, players: rep.players };
  } catch (e) {
    if (app.analysis.race !== raceId) return;
    app.analysis = { race: raceId, error: `No analysis: ${errText(e)}` };
  }
  renderResult();
}

function analysisView(raceId) {
  const a = app.analysis;
  if (!a || a.race !== raceId) return null;
  if (a.pending) return h("div", { id: "analysis", class: "muted" }, analysisPendingText(a.since));
  if (a.error) return h("div", { id: "analysis", class: "bad" }, a.error);
  return h(
    "ul",
    { id: "analysis", class: "analysis" },
    a.players.map((p) => analysisItem(h, p, (pile) => boardPileText(app.race && app.race.game, pile))),
  );
}

const TIME_TITLE = "Winners: the time to win. Others: when they stopped, or their last move when the clock ran out.";

/** After the end of a public race: each player's last move time, from the race's replay. */
async function fetchLastMoves(raceId) {
  try {
    const [rep, st] = await Promise.all([conn.request(withInvite({ t: "replay", race: raceId })), conn.request(withInvite({ t: "resync", race: raceId }))]);
    const start = st.race && st.race.starts_at;
    if (!start || raceId !== app.raceId) return;
    app.lastMoves = new Map(rep.players.map((p) => [p.player, p.moves.length ? p.moves[p.moves.length - 1][1] - start : null]));
    renderResult();
  } catch (e) {
    /* the column falls back to "time up" */
  }
}
