// Arenas (docs/protocol.md §5a): the list of arenas, and an arena's page with its live
// standings, your current and past races, the time left and the featured race (watched
// through the spectate view, with the spectator delay, switching to the next featured race
// when it ends). While you are joined, each race
// the server pairs you into opens by itself (app.js asks `paired`).
import { arenaListEl, featuredEl, leftText, standingsPanel, winnersPanel } from "./arena_views.js";
import { gameName } from "./games.js";
import { ordinal, utcSpanText } from "./words.js";

const ARENA_KEY = "solrace.arenaRaces"; // race id -> arena id, to lead back from a race

export function rememberArenaRace(race, arena) {
  try {
    const map = JSON.parse(localStorage.getItem(ARENA_KEY) || "{}");
    map[race] = arena;
    const keys = Object.keys(map);
    for (const k of keys.slice(0, Math.max(0, keys.length - 100))) delete map[k];
    localStorage.setItem(ARENA_KEY, JSON.stringify(map));
  } catch (e) {
    /* private mode */
  }
}

export function arenaOf(race) {
  try {
    return JSON.parse(localStorage.getItem(ARENA_KEY) || "{}")[race] || null;
  } catch (e) {
    return null;
  }
}

/**
 * The arena pages. ctx: {conn, h, $, toast, errText, myId, go(hash), setPending(snap), now()}
 */
export class ArenaPage {
  constructor(ctx) {
    this.ctx = ctx;
    this.list = null;
    this.id = null; // the arena shown, null: the list
    this.data = null; // `arena` reply
    this.board = null; // `arena_standings` or the last `arena_update`
    this.error = null;
    this.watching = null;
    this.joined = new Set(); // arenas joined from this page: their races open by themselves
    this.opened = new Set(); // races opened by `paired`
    this.offset = 0; // server clock - local clock
    this.infos = new Map(); // arena id -> its last `arena` reply (for the race page of its races)
    this.asking = new Set(); // arenas whose `arena` is being asked for the race page
    // Your current race's status as last heard: the `arena` reply names the race, not whether it
    // has started, and the server refuses a berserk once it has (`race-started`).
    this.mine = null; // {race, status, starts_at}, status null until known
    ctx.conn.on("arena_update", (m) => this.onUpdate(m));
    ctx.conn.on("race", (s) => this.heard(s.race, s.status, s.starts_at));
    ctx.conn.on("start", (m) => this.heard(m.race, "running", m.starts_at));
    ctx.conn.on("end", (m) => this.heard(m.race, "finished"));
  }

  now() {
    return Date.now() + this.offset;
  }

  async openList() {
    this.id = null;
    this.error = null;
    await this.unwatch();
    try {
      this.list = await this.ctx.conn.request({ t: "arenas" });
      this.offset = this.list.now - Date.now();
    } catch (e) {
      this.error = e.code === "unknown-type" ? "Arenas are not available on this server." : this.ctx.errText(e);
    }
    this.render();
  }

  async open(id) {
    if (this.id !== id) {
      await this.unwatch();
      this.data = this.board = null;
    }
    this.id = id;
    this.error = null;
    this.render();
    await this.refresh(true);
  }

  async refresh(watch = false) {
    const { conn } = this.ctx;
    const id = this.id;
    try {
      const data = await conn.request({ t: "arena", arena: id });
      if (id !== this.id) return;
      this.data = data;
      this.infos.set(id, data);
      this.offset = data.now - Date.now();
      if (data.joined) this.joined.add(id);
      else this.joined.delete(id);
      for (const r of data.races) rememberArenaRace(r.race, id);
      if (data.race) rememberArenaRace(data.race, id);
      this.followMine(data.race);
      if (watch || !this.board) {
        this.board = await conn.request({ t: "arena_standings", arena: id, top: 10, around: 2, watch: true });
        this.watching = id;
      }
    } catch (e) {
      this.error = e.code === "no-arena" ? "No such arena." : this.ctx.errText(e);
    }
    this.render();
  }

  /** The page shows `race` as ours: learn its status once (a resync), then from its events. */
  async followMine(race) {
    if (!race || (this.mine && this.mine.race === race)) return;
    const mine = (this.mine = { race, status: null, starts_at: null });
    try {
      const st = await this.ctx.conn.request({ t: "resync", race });
      // an event heard meanwhile is newer than the reply, or as new
      if (this.mine === mine && mine.status === null) this.heard(race, st.race.status, st.race.starts_at);
    } catch (e) {
      /* unknown: no Berserk offered, the race page still has it */
    }
  }

  /** A status heard for `race` (its snapshot, start or end): kept if it is your current race. */
  heard(race, status, startsAt) {
    const mine = this.mine;
    if (!mine || mine.race !== race) return;
    mine.status = status;
    if (startsAt) mine.starts_at = startsAt;
    this.render();
  }

  /** Whether your current race is known not to have started (its countdown may be over before `start` comes). */
  notStarted(race) {
    const mine = this.mine;
    if (!mine || mine.race !== race || !["lobby", "countdown"].includes(mine.status)) return false;
    return !(mine.starts_at && this.now() >= mine.starts_at);
  }

  async unwatch() {
    const w = this.watching;
    this.watching = null;
    if (w && this.ctx.conn.status === "online") this.ctx.conn.request({ t: "arena_unwatch", arena: w }).catch(() => {});
  }

  leave() {
    this.unwatch();
  }

  onUpdate(m) {
    if (m.arena !== this.watching) return;
    this.board = m;
    if (this.data) this.data.featured = m.featured;
    this.render();
    // your own line moved: your races list and current race may have too
    this.refresh(false);
  }

  /** A race snapshot came unasked: is it a race an arena paired us into? */
  paired(snap) {
    if (!this.joined.size || snap.status !== "countdown") return false;
    if (!(snap.players || []).some((p) => p.player === this.ctx.myId())) return false;
    if (this.opened.has(snap.race)) return false; // opened already
    this.opened.add(snap.race);
    rememberArenaRace(snap.race, this.id && this.joined.has(this.id) ? this.id : [...this.joined][0]);
    return true;
  }

  /**
   * The featured race being watched (#watch=RACE&arena=ID) has ended: once the arena
   * features another, watch that one (while this page still shows the ended race).
   */
  async follow(arena, ended) {
    const still = () => location.hash.includes(`watch=${ended}`) && location.hash.includes(`arena=${arena}`);
    while (still()) {
      await new Promise((r) => setTimeout(r, 2000));
      if (!still() || this.ctx.conn.status !== "online") continue;
      try {
        const d = await this.ctx.conn.request({ t: "arena", arena });
        if (d.featured && d.featured !== ended && still()) {
          this.ctx.go(`watch=${d.featured}&arena=${arena}`);
          return;
        }
        if (d.arena.status === "over" && !d.featured) return;
      } catch (e) {
        return;
      }
    }
  }

  async join() {
    const id = this.id;
    // Joined after the timeout (net.js LATE_REPLY_MS): the arena's races open by themselves as
    // when the reply is in time; its page, if still open, shows the player in.
    const onLate = (data) => {
      if (data.t === "error") return;
      this.joined.add(id);
      if (document.body.dataset.route !== "arena" || this.id !== id) return this.ctx.toast("The server answered late: you are in the arena after all.", "good");
      this.data = data;
      this.refresh(false);
    };
    try {
      this.data = await this.ctx.conn.request({ t: "arena_join", arena: id }, undefined, { onLate });
      this.joined.add(id);
    } catch (e) {
      if (e.code === "timeout") this.ctx.toast("The server did not answer in time: you may still be in the arena.", "warn");
      else this.ctx.toast(e.code === "arena-over" ? "This arena is over." : `Could not join: ${this.ctx.errText(e)}`, "error");
    }
    this.refresh(false);
  }

  /** Berserk `race` of `arena` (this page's arena by default): the race's snapshot, or null. */
  async berserk(race, arena = this.id) {
    try {
      const snap = await this.ctx.conn.request({ t: "arena_berserk", arena, race });
      this.ctx.toast("Berserk: half the clock, one more point if you win.", "info");
      return snap;
    } catch (e) {
      this.ctx.toast(e.code === "race-started" ? "Too late: the race has started." : `Could not berserk: ${this.ctx.errText(e)}`, "error");
      return null;
    }
  }

  // ------------------------------------------------------------ the race page

  /**
   * For the race page of a race of arena `id`: its last `arena` reply (`arena`: the summary,
   * with `name` and `berserk`; `joined`; `races`: your finished races with their points), or
   * null until it comes. Asked once per arena, again with `fresh`; ctx.onArena(id) is called
   * when it arrives.
   */
  arenaInfo(id, fresh = false) {
    const have = this.infos.get(id) || null;
    if ((!have || fresh) && !this.asking.has(id)) this.ask(id);
    return have;
  }

  async ask(id) {
    this.asking.add(id);
    try {
      const d = await this.ctx.conn.request({ t: "arena", arena: id });
      this.infos.set(id, d);
      this.offset = d.now - Date.now();
      // still joined: the next race the arena pairs us into opens by itself, from any page
      if (d.joined) this.joined.add(id);
      else this.joined.delete(id);
      for (const r of d.races) rememberArenaRace(r.race, id);
      if (this.ctx.onArena) this.ctx.onArena(id);
    } catch (e) {
      /* the race page goes on without the arena's name */
    } finally {
      this.asking.delete(id);
    }
  }

  /** The arena result of `race` (`{race, rank, points}`) once the arena has counted it, else null. */
  pointsOf(id, race) {
    const d = this.infos.get(id);
    return (d && d.races.find((r) => r.race === race)) || null;
  }

  /**
   * The race ended: ask the arena again until it has counted the race (it is applied within
   * moments of the end), while `still()` (the race page still shows it). True once counted.
   */
  async awaitPoints(id, race, still) {
    for (let i = 0; i < 20 && still(); i++) {
      if (i) await new Promise((r) => setTimeout(r, 1000));
      if (!still()) return false;
      if (this.ctx.conn.status === "online" && !this.asking.has(id)) await this.ask(id);
      if (this.pointsOf(id, race)) return true;
    }
    return false;
  }

  async withdraw() {
    try {
      this.data = await this.ctx.conn.request({ t: "arena_withdraw", arena: this.id });
    } catch (e) {
      this.ctx.toast(`Could not withdraw: ${this.ctx.errText(e)}`, "error");
    }
    this.joined.delete(this.id);
    this.refresh(false);
  }

  tick() {
    const el = this.ctx.$("#arena-left");
    if (el && this.data) el.textContent = leftText(this.data.arena, this.now());
    const waiting = this.ctx.$("#arena-waiting");
    if (waiting && this.data && waiting.dataset.before === "1" && this.now() >= this.data.arena.starts) this.render();
    if (this.ctx.$("#arena-berserk") && this.data && !this.notStarted(this.data.race)) this.render();
  }

  // ------------------------------------------------------------------ drawing
  // (the parts drawn from the page's data alone are in arena_views.js)

  render() {
    const { $ } = this.ctx;
    const main = $("#main");
    if (!main || document.body.dataset.route !== "arena") return;
    main.replaceChildren(this.id === null ? arenaListEl(this.ctx.h, this.list, this.error, this.now()) : this.arenaView());
  }

  /** Under "Your races" while joined with no race: before the start, that the first pairing
   *  comes with it (it said "Waiting for a pairing…" for the whole wait, with the start minutes
   *  away, as if the pairing were late); from the start, waiting for one. */
  waitingEl(a) {
    const before = this.now() < a.starts;
    return this.ctx.h(
      "p",
      { class: "muted", id: "arena-waiting", dataset: { before: before ? "1" : "0" } },
      before ? "You are in: your first race is paired when the arena starts." : "Waiting for a pairing…",
    );
  }

  arenaView() {
    const { h } = this.ctx;
    if (this.error) return h("div", { class: "arena" }, h("div", { class: "panel error-panel" }, h("h2", {}, this.error), h("a", { class: "btn", href: "#arenas" }, "All arenas")));
    const d = this.data;
    if (!d) return h("div", { class: "arena" }, h("p", { class: "muted" }, "Loading…"));
    const a = d.arena;
    const over = a.status === "over";
    const head = h(
      "div",
      { class: "daily-head" },
      h("h1", { id: "arena-title" }, a.name || a.id),
      h(
        "p",
        { class: "muted" },
        `${gameName(a.game)} · ${a.seats} seats · ${Math.round(a.time_limit_s / 60)} min races · `,
        h("span", { id: "arena-when" }, utcSpanText(a.starts, a.ends, this.now())),
        " · ",
        h("span", { id: "arena-left" }, leftText(a, this.now())),
      ),
      h(
        "p",
        { class: "arena-actions" },
        over
          ? null
          : d.joined
            ? h("button", { class: "btn", id: "arena-withdraw", onclick: () => this.withdraw() }, "Withdraw")
            : h("button", { class: "btn primary", id: "arena-join", onclick: () => this.join() }, "Join"),
        h("a", { class: "btn ghost", href: "#arenas" }, "All arenas"),
      ),
    );
    const mine = h(
      "div",
      { class: "panel" },
      h("h2", {}, "Your races"),
      d.race
        ? h(
            "p",
            { class: "arena-actions" },
            h("a", { class: "btn primary", id: "arena-current", href: `#race=${d.race}` }, "Back to your race"),
            a.berserk && this.notStarted(d.race) ? h("button", { class: "btn ghost", id: "arena-berserk", title: "half the clock of this race for one more point if you win it; only before it starts", onclick: () => this.berserk(d.race) }, "Berserk") : null,
          )
        : d.joined && !over
          ? this.waitingEl(a)
          : !over && d.races.length
            ? // out of the arena with races played: it showed only "Join", with no word of why
              // (the server takes out a player who made no move in their race, as a withdrawal)
              h("p", { class: "muted", id: "arena-out" }, "You are not being paired: you withdrew, or made no move in your last race. Join again to race on.")
            : null,
      d.races.length
        ? h(
            "ol",
            { class: "arena-races" },
            // each race: your place and points ("1st · 0 points"; it said "#1 · 0 pts", the
            // place as a link), and its replay
            d.races.map((r) => h("li", {}, `${ordinal(r.rank)} place · ${r.points} point${r.points === 1 ? "" : "s"} · `, h("a", { href: `#replay=${r.race}` }, "Replay"))),
          )
        : h("p", { class: "muted" }, "No race finished yet."),
    );
    const featured = h(
      "div",
      { class: "panel", id: "arena-featured" },
      h("h2", {}, "Featured race"),
      featuredEl(h, d, this.id),
    );
    return h("div", { class: "arena" }, head, winnersPanel(h, this.board), h("div", { class: "daily-grid" }, h("div", {}, mine, featured), standingsPanel(h, this.board, this.ctx.myId())));
  }
}
