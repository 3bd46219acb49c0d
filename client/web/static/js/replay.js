// The replay viewer (#replay=RACE, optionally &step=N): fetches a finished
// race's seed and move logs (`replay`, docs/protocol.md §3), re-deals the seed
// and re-plays every player's moves in the browser, and shows the boards side
// by side with a shared timeline: step, play, jump to any move; a chart of
// cards home per player; the seed checked against the race's commitment.
//
// A race's own record is kept `--finished-ttl-s` (30 days by default). A daily
// attempt's link may carry its day, #replay=RACE&daily=GAME&date=DATE: once the
// race record is gone, the attempt is replayed from the day's published replays
// (`daily_replay`, docs/protocol.md §5), which are kept longer.
import { requestAnalysis } from "./analysis_wait.js";
import { Board, moveMarks } from "./board.js";
import { dailyOf } from "./daily_attempts.js";
import { gameName } from "./games.js";
import { parseView } from "./cards.js";
import { dailyOfRoute, fromDailyReplay, rebuild } from "./replay_data.js";
import { keyForTarget } from "./dom.js";
import { sha256Hex } from "./sha256.js";
import { analysisPanel, homeChart, moveList, rankingTable, verifyPanel } from "./replay_views.js";
import { NOT_A_RACE_ID, NO_SUCH_RACE, boardPileText, clockText, errorText, homeText, isRaceId, moveText, nameMarks } from "./words.js";

const SPEEDS = [1, 2, 5, 10, 30];

export class ReplayPage {
  /** ctx: {conn, h, $, copyLink(url)} */
  constructor(ctx) {
    this.ctx = ctx;
    this.reset();
    document.addEventListener("keydown", (e) => {
      if (document.body.dataset.route !== "replay" || !this.data) return;
      if (e.defaultPrevented || keyForTarget(e)) return; // Space on a button presses it
      const keys = {
        ArrowLeft: () => this.go(this.step - 1),
        ArrowRight: () => this.go(this.step + 1),
        Home: () => this.go(0),
        End: () => this.go(this.data.events.length),
        " ": () => (this.timer ? this.pause() : this.play()),
      };
      if (!keys[e.key]) return;
      e.preventDefault();
      keys[e.key]();
    });
  }

  reset() {
    clearInterval(this.timer);
    this.timer = null;
    this.id = null;
    this.daily = null; // {game, date} of a daily attempt's route
    this.fromDaily = false; // replayed from the day's published replays
    this.rep = null;
    this.snap = null;
    this.data = null;
    this.step = 0;
    this.error = null;
    this.errorCode = null;
    this.verify = null;
    this.speed = 5;
    this.boards = [];
  }

  leave() {
    for (const b of this.boards) b.board.destroy();
    this.reset();
  }

  async open(id, step) {
    this.leave();
    this.id = id;
    this.daily = dailyOfRoute(location.hash);
    if (!isRaceId(id)) {
      this.error = NOT_A_RACE_ID;
      return this.render();
    }
    this.render();
    const { conn } = this.ctx;
    try {
      // A private race's invite, if this browser has it (from the race's link).
      const invite = this.ctx.inviteOf ? this.ctx.inviteOf(id) : null;
      const extra = invite ? { invite } : {};
      const [rep, st] = await Promise.all([conn.request({ t: "replay", race: id, ...extra }), conn.request({ t: "resync", race: id, ...extra })]);
      if (this.id !== id) return;
      this.rep = rep;
      this.snap = st.race;
    } catch (e) {
      if (e.code === "disconnected" || this.id !== id) return;
      if (e.code === "no-such-race") {
        // Its record expired: a daily attempt may still be among its day's published replays.
        const old = await this.fromDay(id);
        if (this.id !== id) return;
        if (!old) {
          this.error = NO_SUCH_RACE;
          return this.render();
        }
        this.rep = old.rep;
        this.snap = old.snap;
        this.fromDaily = true;
      } else {
        this.error = e.code === "race-not-over" ? "This race is not over yet: its replay opens when it ends." : errorText(e);
        this.errorCode = e.code;
        return this.render();
      }
    }
    this.data = rebuild(this.rep, this.snap && this.snap.starts_at);
    this.step = Math.max(0, Math.min(this.data.events.length, Number.isFinite(step) ? step : 0));
    const commitment = this.snap && this.snap.commitment;
    if (this.rep.seed && commitment) {
      sha256Hex(this.rep.seed).then(({ hex, how }) => {
        this.verify = { ok: hex === commitment, hex, how };
        const el = document.getElementById("replay-verify");
        if (el) el.replaceWith(verifyPanel(this.ctx.h, this.verify, this.rep, this.data));
      });
    }
    this.render();
  }

  /** The attempt `id` from its day's published replays (the route's day), or null. */
  async fromDay(id) {
    if (!this.daily) return null;
    try {
      const day = await this.ctx.conn.request({ t: "daily_replay", game: this.daily.game, date: this.daily.date });
      return fromDailyReplay(day, id);
    } catch (e) {
      return null; // no-replay: not among the published top; daily-open: not final
    }
  }

  /** Moves made by each player after the first `step` events of the timeline. */
  countsAt(step) {
    const counts = this.data.players.map(() => 0);
    for (let i = 0; i < step; i++) counts[this.data.events[i].pi] = this.data.events[i].n;
    return counts;
  }

  timeAt(step) {
    const d = this.data;
    return step > 0 ? d.events[step - 1].at - d.start : 0;
  }

  go(step) {
    const n = this.data ? this.data.events.length : 0;
    this.step = Math.max(0, Math.min(n, step));
    if (this.step >= n) this.pause();
    this.update();
  }

  play() {
    if (!this.data || this.timer) return;
    if (this.step >= this.data.events.length) this.step = 0;
    let clock = this.timeAt(this.step);
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      clock += (now - last) * this.speed;
      last = now;
      const ev = this.data.events;
      let s = this.step;
      while (s < ev.length && ev[s].at - this.data.start <= clock) s++;
      if (s !== this.step) this.go(s);
      if (this.step >= ev.length) this.pause();
    }, 60);
    this.update();
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    const b = document.getElementById("replay-play");
    if (b) b.textContent = "▶ Play";
  }

  /** The route of this replay at this step (keeping the daily day it came with). */
  route() {
    const day = this.daily ? `&daily=${this.daily.game}&date=${this.daily.date}` : "";
    return `#replay=${this.id}${this.step ? `&step=${this.step}` : ""}${day}`;
  }

  link() {
    return `${location.origin}${location.pathname}${this.route()}`;
  }

  // ------------------------------------------------------------------ drawing

  /** Beside an error: the day's leaderboard for a daily attempt not found or not public yet,
   *  watching a race not over (a private race or a daily attempt cannot be watched). */
  errorLink() {
    const { h } = this.ctx;
    const day = this.daily || (this.id && dailyOf(this.id));
    if (this.error === NO_SUCH_RACE || this.errorCode === "daily-open") return day ? h("a", { class: "btn ghost", id: "replay-day", href: `#daily=${day.game}&date=${day.date}` }, "The day's leaderboard") : null;
    if (this.errorCode !== "race-not-over" || !this.id) return null;
    // One's own daily attempt under way cannot be watched: it can be played.
    return day ? h("a", { class: "btn ghost", href: `#race=${this.id}` }, "Back to the attempt") : h("a", { class: "btn ghost", href: `#watch=${this.id}` }, "Watch it live");
  }

  render() {
    const { h, $ } = this.ctx;
    const main = $("#main");
    if (!main || document.body.dataset.route !== "replay") return;
    for (const b of this.boards) b.board.destroy();
    this.boards = [];
    if (this.error || !this.data) {
      main.replaceChildren(
        h(
          "div",
          { class: "replay" },
          this.error
            ? h(
                "div",
                { class: "panel error-panel" },
                h("h2", { id: "replay-error" }, this.error),
                h("a", { class: "btn", href: "#/" }, "Lobby"),
                " ",
                this.errorLink(),
              )
            : h("p", { class: "muted loading" }, "Loading the replay…"),
        ),
      );
      return;
    }
    const d = this.data;
    const n = d.events.length;
    const slider = h("input", { type: "range", id: "replay-slider", min: 0, max: n, value: this.step, "aria-label": "move", oninput: (e) => this.go(parseInt(e.target.value, 10)) });
    const controls = h(
      "div",
      { class: "replay-controls" },
      h("button", { class: "btn small", id: "replay-first", title: "to the deal", onclick: () => this.go(0) }, "« Deal"),
      h("button", { class: "btn small", id: "replay-back", title: "one move back", onclick: () => this.go(this.step - 1) }, "‹ Back"),
      h("button", { class: "btn small primary", id: "replay-play", onclick: () => (this.timer ? this.pause() : this.play()) }, "▶ Play"),
      h("button", { class: "btn small", id: "replay-next", title: "one move on", onclick: () => this.go(this.step + 1) }, "Next ›"),
      h("button", { class: "btn small", id: "replay-last", title: "to the end", onclick: () => this.go(n) }, "End »"),
      h(
        "label",
        { class: "muted small" },
        "Speed ",
        h("select", { id: "replay-speed", onchange: (e) => (this.speed = parseFloat(e.target.value)) }, SPEEDS.map((s) => h("option", { value: s, selected: s === this.speed }, `${s}×`))),
      ),
      slider,
      h("span", { id: "replay-pos", class: "replay-pos" }),
    );
    const jump = (step) => (this.pause(), this.go(step));
    const ranking = new Map((this.rep.ranking || []).map((r) => [r.player, r]));
    // by place, as the result table lists them (the race page's players too, once ranked); a
    // player without a place (none is, in a finished race) after those with one, by seat
    const place = (p) => (ranking.get(p.player) || { rank: Infinity }).rank;
    const panels = [...d.players].sort((a, b) => place(a) - place(b)).map((p) => {
      const r = ranking.get(p.player);
      const el = h(
        "section",
        { class: "replay-player", dataset: { player: p.player } },
        h("div", { class: "replay-name" }, r ? h("span", { class: "rank" }, `#${r.rank}`) : null, " ", h("b", {}, p.name), nameMarks(h, p), " ", h("span", { class: "replay-stat muted small" })),
        h("div", { class: "replay-last muted small" }),
        h("div", { class: "replay-board" }),
        homeChart(d, p, jump),
        moveList(h, d, p, jump, (pile) => boardPileText(this.rep.game, pile)),
      );
      return { p, el };
    });
    const snap = this.snap || {};
    main.replaceChildren(
      h(
        "div",
        { class: "replay", id: "replay-page" },
        h(
          "div",
          { class: "replay-head" },
          h("h1", {}, `Replay · ${gameName(this.rep.game)}`),
          h("div", { class: "muted small" }, `${d.players.length} player${d.players.length > 1 ? "s" : ""} · ${n} moves · ${snap.starts_at ? new Date(snap.starts_at).toLocaleString() : ""}`),
          this.fromDaily
            ? h("p", { class: "muted small", id: "replay-from-daily" }, "This attempt's race record has expired: replayed from ", h("a", { href: `#daily=${this.daily.game}&date=${this.daily.date}` }, `the published replays of ${gameName(this.rep.game)}, ${this.daily.date}`), ".")
            : null,
        ),
        h("div", { class: "panel replay-bar" }, controls),
        h("div", { class: `replay-boards ${d.players.length > 1 ? "many" : ""}` }, panels.map((x) => x.el)),
        h(
          "div",
          { class: "panel" },
          h("h2", {}, "Result"),
          rankingTable(h, this.rep, d),
          h("div", {}, "Seed ", h("code", { id: "replay-seed" }, this.rep.seed)),
          h("div", {}, "Deal's fingerprint ", h("code", {}, snap.commitment || "—")),
          verifyPanel(h, this.verify, this.rep, d),
          analysisPanel(h, this.analysis, (pile) => boardPileText(this.rep.game, pile)),
          h(
            "div",
            { class: "result-actions" },
            this.analysis || this.fromDaily ? null : h("button", { class: "btn", id: "replay-analyze", onclick: () => this.analyze() }, "Where was the win lost?"),
            h("button", { class: "btn", id: "replay-link", onclick: () => this.ctx.copyLink(this.link()) }, "Copy a link to this move"),
            h("a", { class: "btn ghost", href: "#/" }, "Lobby"),
          ),
        ),
      ),
    );
    for (const { p, el } of panels) {
      const board = new Board(el.querySelector(".replay-board"), { interactive: false, minCard: 22, maxCard: 70, maxColumnPx: 300 });
      this.boards.push({ p, el, board, drawn: null });
    }
    this.update();
  }

  /** The solver's post-race analysis (computed by the server after the end, cached there). */
  async analyze() {
    const id = this.id;
    const asked = { pending: true, since: Date.now() };
    this.analysis = asked;
    this.render();
    try {
      const invite = this.ctx.inviteOf ? this.ctx.inviteOf(id) : null;
      const msg = { t: "analysis", race: id, ...(invite ? { invite } : {}) };
      const rep = await requestAnalysis(this.ctx.conn, msg, "replay-analysis", asked.since, () => this.analysis === asked);
      if (this.id !== id) return;
      this.analysis = { players: rep.players };
    } catch (e) {
      if (this.id !== id) return;
      this.analysis = { error: errorText(e) };
    }
    this.render();
  }

  update() {
    const d = this.data;
    if (!d || !document.getElementById("replay-page")) return;
    const counts = this.countsAt(this.step);
    const end = Math.max(1, d.events.length ? d.events[d.events.length - 1].at - d.start : 1);
    const t = this.timeAt(this.step);
    for (const b of this.boards) {
      const n = counts[b.p.pi];
      const view = b.p.views[n];
      if (view !== b.drawn) {
        const last = n > 0 ? b.p.moves[n - 1] : null;
        b.board.marks = moveMarks(last && last[0], "last");
        b.board.set(view, []);
        b.drawn = view;
        const text = last ? `last: ${moveText(last[0], (pile) => parseView(b.p.views[n - 1]).piles[pile], (pile) => boardPileText(this.rep.game, pile))} at ${clockText(last[1] - d.start)}` : "the deal";
        b.el.querySelector(".replay-last").textContent = text;
      }
      b.el.querySelector(".replay-stat").textContent = `${n}/${b.p.views.length - 1} moves · ${homeText(b.p.homes[n], b.p.total)} home`;
      const cursor = b.el.querySelector(".replay-chart .cursor");
      if (cursor) {
        const x = (t / end) * 300;
        cursor.setAttribute("x1", x);
        cursor.setAttribute("x2", x);
      }
    }
    const slider = document.getElementById("replay-slider");
    if (slider) slider.value = this.step;
    const pos = document.getElementById("replay-pos");
    if (pos) pos.textContent = `move ${this.step}/${d.events.length} · ${clockText(t)}`;
    const playBtn = document.getElementById("replay-play");
    if (playBtn) playBtn.textContent = this.timer ? "❚❚ Pause" : "▶ Play";
    const want = this.route();
    if (location.hash !== want) history.replaceState(null, "", want);
  }
}
