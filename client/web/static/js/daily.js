// The daily challenge page (docs/protocol.md §5): today's deal per game, one
// ranked attempt, the live leaderboard, the player's history, and after the
// close the revealed seed checked against the commitment.
import { GAMES, GAME_IDS, gameName } from "./games.js";
import { sha256Hex } from "./sha256.js";
import { dailyReplayHref, rememberDailyRace } from "./daily_attempts.js";
import { boardPanel, entryLine, historyPanel } from "./daily_views.js";
import { timeLeftText, utcDateTimeText, verifyText, verifyTitle } from "./words.js";

/** What the page says of a day the server refuses (`bad-message`, field `date`): a day before
 *  its history window (docs/protocol.md §5, History window), or no day at all (a link's
 *  `&date=`). It said "The server refused a malformed request." of a day picked in the past. */
function badDayText(date) {
  const d = String(date || "");
  const day = /^\d{4}-\d{2}-\d{2}$/.test(d) ? new Date(`${d}T00:00:00Z`) : null;
  const real = day && !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === d;
  return real ? `${d} is too long ago: this server keeps the daily challenges of the last year or so. Pick a later day.` : `"${d}" is not a day (YYYY-MM-DD): check the link, or pick a day.`;
}

/**
 * The daily page controller. ctx: {conn, h, $, toast, errText, myId, go(hash), setPending(snap)}
 */
export class DailyPage {
  constructor(ctx) {
    this.ctx = ctx;
    this.game = GAME_IDS[0];
    this.date = null; // null: today
    this.info = null;
    this.board = null;
    this.history = null;
    this.error = null;
    this.verify = null;
    this.replays = null; // player -> race of the replays `daily_replay` publishes (a final day)
    this.watching = null; // {game, date}
    this.refetchTimer = null;
    this.visit = 0; // counts opens and leaves: a reply to an earlier visit's watch is stale
    this.closing = 0; // the visit whose open day has reached its close: its info is being asked again
    this.finalWait = 0; // the visit whose closed day is being asked again until it is final
    ctx.conn.on("leaderboard_update", (m) => this.onUpdate(m));
  }

  async open(game, date) {
    this.visit += 1;
    this.game = GAMES[game] ? game : this.game;
    this.date = date || null;
    this.info = this.board = this.history = this.error = this.verify = this.replays = null;
    this.render();
    await this.unwatch();
    try {
      this.info = await this.ctx.conn.request(this.infoRequest());
    } catch (e) {
      this.error =
        e.code === "unknown-type"
          ? "The daily challenge is not available on this server."
          : e.code === "daily-not-open"
            ? "That day has not begun yet."
            : e.code === "bad-message" && e.field === "date"
              ? badDayText(this.date)
              : this.ctx.errText(e);
      return this.render();
    }
    await this.show();
  }

  /** The `daily` request of the page's route: today's (no date), or the route's day. */
  infoRequest() {
    return this.date ? { t: "daily", game: this.game, date: this.date } : { t: "daily", game: this.game };
  }

  /** Draw the day of `this.info`: its seed checked, its board (watched while open), your record, its replays. */
  async show() {
    const info = this.info;
    const visit = this.visit;
    if (info.seed && info.commitment) {
      sha256Hex(info.seed).then(({ hex, how }) => {
        if (this.info !== info) return;
        this.verify = { ok: hex === info.commitment, hex, how };
        this.render();
      });
    }
    await Promise.all([this.fetchBoard(true), this.fetchHistory(), this.fetchReplays()]);
    this.render();
    if (visit === this.visit && info.status !== "open" && !info.final) this.awaitFinal();
  }

  /**
   * The open day on screen has reached its close (by the server's clock as this browser
   * estimates it): ask for the route's day again, once, and retry with a backoff while the
   * server still says open (its clock may be a moment behind ours), until the day shown is
   * closed, or, with no date in the route, the next day has opened. Then draw it afresh.
   */
  async reloadAtClose() {
    const visit = this.visit;
    if (this.closing === visit) return;
    this.closing = visit;
    const was = this.info;
    this.render(); // "Closed", the play button gone, while we ask
    // done once the server no longer says the day shown is open (its clock a moment behind ours)
    await this.askUntil(visit, [0, 1000, 2000, 4000, 8000, 15000, 30000], (info) => !(info.status === "open" && info.date === was.date));
  }

  /**
   * Ask for the route's day after each of `waits` (ms) until `settled(info)`, then show that
   * info; stops when the page moves on (left, another day: `visit` is stale) or `stop()` says so.
   * Offline, a try is skipped: the reconnect opens the page again.
   */
  async askUntil(visit, waits, settled, stop = () => false) {
    for (const wait of waits) {
      if (wait) await new Promise((r) => setTimeout(r, wait));
      if (visit !== this.visit || stop()) return;
      if (this.ctx.conn.status !== "online") continue;
      let info;
      try {
        info = await this.ctx.conn.request(this.infoRequest());
      } catch (e) {
        continue;
      }
      if (visit !== this.visit) return;
      if (settled(info)) {
        await this.switchTo(info);
        return;
      }
    }
  }

  /**
   * A closed day is final (its board frozen, its top replays published, docs/protocol.md §5)
   * a short grace after its close: while this page shows it closed but not final, ask again a
   * few times, with a backoff, and draw it again once final.
   */
  async awaitFinal() {
    const visit = this.visit;
    if (this.finalWait === visit) return;
    this.finalWait = visit;
    await this.askUntil(
      visit,
      [5000, 10000, 15000, 20000, 30000, 60000],
      (info) => info.final || info.date !== this.info.date,
      () => !this.info || this.info.final,
    );
  }

  /** Replace the day shown by `info` (the same day, later; or the next day), without a blank page between. */
  async switchTo(info) {
    this.visit += 1; // the old day's late replies and watch are stale from now on
    await this.unwatch();
    this.info = info;
    this.board = this.history = this.verify = this.replays = null;
    this.flash = null;
    await this.show();
  }

  /** A final day publishes the replays of its top entries (docs/protocol.md §5 `daily_replay`). */
  async fetchReplays() {
    const d = this.info;
    if (!d || !d.final || !d.entries) return;
    const visit = this.visit;
    try {
      const rep = await this.ctx.conn.request({ t: "daily_replay", game: d.game, date: d.date });
      if (visit !== this.visit) return;
      this.replays = new Map((rep.players || []).map((p) => [p.player, p.race]));
    } catch (e) {
      if (visit === this.visit) this.replays = new Map(); // no-replay: nothing published
    }
  }

  /** The replay page of `e`'s attempt, with its day (dailyReplayHref), or null. */
  replayHref(e) {
    const race = this.replayOf(e);
    return race ? dailyReplayHref(race, this.info.game, this.info.date) : null;
  }

  /** The race to replay for a leaderboard entry, or null: a closed day's published top, and your own. */
  replayOf(e) {
    const d = this.info;
    if (!d || d.status === "open" || !e || !e.race) return null;
    if (e.player === this.ctx.myId()) return e.race; // `replay` of your own attempt opens at the close
    return this.replays && this.replays.has(e.player) ? this.replays.get(e.player) || e.race : null;
  }

  async fetchBoard(watch = false) {
    const q = { t: "leaderboard", game: this.game, top: 10, around: 3 };
    if (this.date) q.date = this.date;
    const live = watch && this.info && this.info.status === "open";
    if (live) q.watch = true;
    const visit = this.visit;
    try {
      const board = await this.ctx.conn.request(q);
      if (live && visit !== this.visit) {
        // Left (or reopened) while the watch was on its way: it is no one's any more.
        this.ctx.conn.request({ t: "leaderboard_unwatch", game: board.game, date: board.date }).catch(() => {});
        return;
      }
      this.board = board;
      if (live) this.watching = { game: board.game, date: board.date };
    } catch (e) {
      this.board = { error: this.ctx.errText(e) };
    }
  }

  async fetchHistory() {
    try {
      this.history = await this.ctx.conn.request({ t: "history", game: this.game, days: 10 });
    } catch (e) {
      this.history = null;
    }
  }

  async unwatch() {
    const w = this.watching;
    this.watching = null;
    if (w && this.ctx.conn.status === "online") {
      this.ctx.conn.request({ t: "leaderboard_unwatch", game: w.game, date: w.date }).catch(() => {});
    }
  }

  leave() {
    this.visit += 1; // also ends a reload at the close and a wait for the final day
    clearTimeout(this.refetchTimer);
    this.unwatch();
  }

  onUpdate(m) {
    if (!this.watching || m.game !== this.watching.game || m.date !== this.watching.date) return;
    if (this.info) this.info.entries = m.count;
    this.flash = m.entry && m.entry.player;
    clearTimeout(this.refetchTimer);
    // Everything that shows a rank moves together: the board, your line, your record.
    this.refetchTimer = setTimeout(async () => {
      await Promise.all([this.fetchBoard(false), this.fetchHistory()]);
      this.render();
    }, 300);
  }

  async start(tries = 0) {
    const { conn, h } = this.ctx;
    const game = this.game;
    const date = this.info && this.info.date;
    const from = location.hash;
    const started = (snap) => {
      rememberDailyRace(snap.race, game, date);
      this.ctx.setPending(snap);
      this.ctx.go(`race=${snap.race}`);
    };
    // An attempt started after the timeout (net.js LATE_REPLY_MS) is the day's one attempt: it
    // opens if the player is still on this page, else a note offers it.
    const onLate = (snap) => {
      if (snap.t === "error") return;
      if (location.hash === from) return started(snap);
      rememberDailyRace(snap.race, game, date);
      const link = h("a", { href: `#race=${snap.race}` }, "Open it");
      this.ctx.toast(h("span", {}, "The server answered late: your daily attempt has started. ", link), "good", 20000);
    };
    try {
      started(await conn.request({ t: "daily_start", game }, undefined, { onLate }));
    } catch (e) {
      if (e.code === "daily-busy" && tries < 10) {
        setTimeout(() => this.start(tries + 1), 300);
        return;
      }
      if (e.code === "timeout") {
        this.ctx.toast("The server did not answer in time: your attempt may still start.", "warn");
        return this.open(this.game, this.date);
      }
      const text = {
        "daily-done": "You have played today's deal already: see the leaderboard.",
        // docs/protocol.md §5: refused under 35 s before the close (the 30 s shortest attempt
        // plus 5 s for the countdown); the error carries no figure, the day's `closes` does.
        "daily-closing": `Too late to start: the day closes in under 35 seconds${this.closingLeft()}. Come back tomorrow.`,
      }[e.code];
      this.ctx.toast(text || `Could not start: ${this.ctx.errText(e)}`, "error");
      this.open(this.game, this.date);
    }
  }

  closingLeft() {
    const d = this.info;
    if (!d || !d.closes) return "";
    const s = Math.ceil((d.closes - this.ctx.conn.now()) / 1000);
    return s > 0 && s < 35 ? ` (${s} s left)` : "";
  }

  // ------------------------------------------------------------------ drawing
  // (the parts drawn from the page's data alone are in daily_views.js)

  render() {
    const { h, $ } = this.ctx;
    const main = $("#main");
    if (!main || document.body.dataset.route !== "daily") return;
    const tabs = h(
      "nav",
      { class: "tabs" },
      GAME_IDS.map((id) =>
        h("a", { class: `tab ${id === this.game ? "on" : ""}`, href: `#daily=${id}${this.date ? `&date=${this.date}` : ""}`, dataset: { game: id } }, gameName(id)),
      ),
    );
    const dateInput = h("input", {
      type: "date",
      id: "daily-date",
      value: (this.info && this.info.date) || this.date || "",
      onchange: (e) => this.ctx.go(`daily=${this.game}${e.target.value ? `&date=${e.target.value}` : ""}`),
    });
    const head = h(
      "div",
      { class: "daily-head" },
      h("h1", {}, "Daily challenge"),
      h("p", { class: "muted" }, "One deal per game per UTC day, the same for everyone. One ranked attempt. The seed is committed at the opening and revealed after the close."),
      h("div", { class: "daily-bar" }, tabs, h("label", { class: "muted small" }, "Day ", dateInput, this.date ? h("a", { class: "btn small ghost", href: `#daily=${this.game}` }, "Today") : null)),
    );
    if (this.error) {
      main.replaceChildren(h("div", { class: "daily" }, head, h("div", { class: "panel error-panel" }, h("h2", {}, this.error))));
      return;
    }
    main.replaceChildren(
      h(
        "div",
        { class: "daily" },
        head,
        h("div", { class: "daily-grid" }, h("div", {}, this.infoPanel(), historyPanel(h, this.history)), this.leaderboard()),
      ),
    );
    this.tick();
  }

  infoPanel() {
    const { h } = this.ctx;
    const d = this.info;
    if (!d) return h("section", { class: "panel" }, h("p", { class: "muted loading" }, "Loading…"));
    const you = d.you;
    const closing = this.pastClose(); // open when asked, closed since: no more playing it
    let action;
    if (closing) {
      action = h("p", { class: "muted", id: "daily-closing" }, this.date ? "The day has closed: its seed is on its way…" : "The day has closed: the next day's deal is on its way…");
    } else if (d.status !== "open") {
      if (you && you.race) rememberDailyRace(you.race, d.game, d.date);
      action = you && you.entry ? this.myEntry(you.entry, d.entries) : h("p", { class: "muted" }, "This day is closed.");
    } else if (!you) {
      action = h("button", { class: "btn primary big", id: "daily-start", onclick: () => this.start() }, `Play today's ${gameName(d.game)}`);
    } else if (you.status === "playing") {
      action = h("a", { class: "btn primary big", id: "daily-resume", href: `#race=${you.race}` }, "Resume your attempt");
      rememberDailyRace(you.race, d.game, d.date);
    } else {
      action = you.entry ? this.myEntry(you.entry, d.entries) : h("p", {}, "Your attempt is over.");
    }
    const v = this.verify;
    return h(
      "section",
      { class: "panel daily-info", id: "daily-info" },
      h("h2", {}, `${gameName(d.game)} · ${d.date}`, " ", h("span", { class: `pill p-${d.status === "open" && !closing ? "running" : "finished"}` }, closing ? "closed" : d.status), d.final ? [" ", h("span", { class: "pill p-finished", id: "daily-final", title: "The leaderboard is frozen and its top replays are published" }, "results final")] : null),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, d.status === "open" && !closing ? "Closes in" : "Closed"),
        h("dd", { id: "daily-left", dataset: { closes: d.closes } }, d.status === "open" && !closing ? "" : utcDateTimeText(d.closes)),
        h("dt", {}, "Clock"),
        h("dd", {}, `${Math.round(d.time_limit_s / 60)} min`),
        // the day's entries on the board: everyone's attempts (one each), not yours
        h("dt", { id: "daily-entries-label" }, "Attempts by all players"),
        h("dd", { id: "daily-entries" }, d.entries),
        h("dt", {}, "Deal's fingerprint"),
        h("dd", {}, h("code", { title: "sha256(seed)" }, d.commitment)),
        d.seed ? h("dt", {}, "Seed") : null,
        d.seed ? h("dd", {}, h("code", { id: "daily-seed" }, d.seed)) : null,
      ),
      d.seed
        ? h(
            "div",
            { id: "daily-verify", class: `verify ${v ? (v.ok ? "ok" : "bad") : ""}`, title: verifyTitle(v) },
            verifyText(v),
          )
        : h("p", { class: "muted small" }, "The seed stays secret until the day closes."),
      h("div", { class: "daily-action" }, action),
    );
  }

  /** The leaderboard panel: a closed day's rows link the replays this page knows of (replayHref). */
  leaderboard() {
    const replayHref = (e) => this.replayHref(e);
    return boardPanel(this.ctx.h, { board: this.board, info: this.info, me: this.ctx.myId(), flash: this.flash, live: !!this.watching, published: !!this.replays, replayHref });
  }

  /** Your entry's line (`count` attempts): the leaderboard's, fresher, once it has come. */
  myEntry(e, count) {
    const replayHref = (x) => this.replayHref(x);
    return entryLine(this.ctx.h, e, count, { board: this.board, date: this.info && this.info.date, replayHref });
  }

  tick() {
    const d = this.info;
    if (!d || d.status !== "open") return;
    const left = d.closes - this.ctx.conn.now();
    if (left <= 0) return this.reloadAtClose(); // redraws itself: "Closed", then the new info
    const el = document.getElementById("daily-left");
    if (el) el.textContent = timeLeftText(left);
  }

  /** The open day on screen is past its close, its info being asked again (reloadAtClose). */
  pastClose() {
    const d = this.info;
    return !!d && d.status === "open" && this.closing === this.visit && this.ctx.conn.now() >= d.closes;
  }
}
