// Arenas (docs/protocol.md §5a): the list of arenas, and an arena's page with its live
// standings, your current and past races, the time left and the featured race (watched
// through the spectate view, with the spectator delay, switching to the next featured race
// when it ends). While you are joined, each race
// the server pairs you into opens by itself (app.js asks `paired`).
import { gameName } from "./games.js";
import { countText, nameMarks, utcTimeText } from "./words.js";

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

function left(ms) {
  let s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return h ? `${h}h ${String(m).padStart(2, "0")}m` : `${m}:${String(s).padStart(2, "0")}`;
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
    try {
      this.data = await this.ctx.conn.request({ t: "arena_join", arena: this.id });
      this.joined.add(this.id);
    } catch (e) {
      this.ctx.toast(e.code === "arena-over" ? "This arena is over." : `Could not join: ${this.ctx.errText(e)}`, "error");
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
    if (el && this.data) el.textContent = this.leftText(this.data.arena);
    if (this.ctx.$("#arena-berserk") && this.data && !this.notStarted(this.data.race)) this.render();
  }

  leftText(a) {
    const now = this.now();
    if (now < a.starts) return `starts in ${left(a.starts - now)}`;
    if (now < a.ends) return `${left(a.ends - now)} left`;
    return a.final ? "final standings" : "over: the last races are finishing";
  }

  // ------------------------------------------------------------------ drawing

  render() {
    const { $ } = this.ctx;
    const main = $("#main");
    if (!main || document.body.dataset.route !== "arena") return;
    main.replaceChildren(this.id === null ? this.listView() : this.arenaView());
  }

  listView() {
    const { h } = this.ctx;
    const head = h("div", { class: "daily-head" }, h("h1", {}, "Arenas"), h("p", { class: "muted" }, "Join an arena and you are paired into race after race, with players of close standing, until it ends (withdraw to stop). Each race scores its placement (in a race of n players: n points for 1st, n − 1 for 2nd, down to 1 for last; players tied for a place each get its points) and 1 more for finishing the deal (every card home). A player who made no move scores 0 whatever their place: a 2nd place can earn nothing. Two wins in a row put you on fire: from your third race on, each race counts double (placement and finish bonus) until one you do not win. Berserk, where the arena allows it, before a race starts: half your clock, and 1 more point if you win (not doubled). The standings are live."));
    if (this.error) return h("div", { class: "arena" }, head, h("div", { class: "panel error-panel" }, h("h2", {}, this.error)));
    if (!this.list) return h("div", { class: "arena" }, head, h("p", { class: "muted" }, "Loading…"));
    // the arenas of the next hour, running or ended; later ones (scheduled, listed before the
    // server creates them: opening or joining one creates it) under "Later today"
    const soon = this.list.now + 3600_000;
    const row = (a, later) =>
      h(
        "tr",
        { class: `arena-row ${a.status}${later ? " later" : ""}`, dataset: { arena: a.id } },
        h("td", {}, h("a", { href: `#arena=${a.id}` }, a.name || a.id)),
        h("td", {}, gameName(a.game)),
        later ? h("td", {}, utcTimeText(a.starts)) : h("td", {}, a.status),
        h("td", {}, this.leftText(a)),
        h("td", { class: "num" }, String(a.players)),
      );
    const table = (rows, cls, third) =>
      h("table", { class: `ranking ${cls}` }, h("thead", {}, h("tr", {}, h("th", {}, "Arena"), h("th", {}, "Game"), h("th", {}, third), h("th", {}, "Time"), h("th", {}, "Players"))), h("tbody", {}, rows));
    const rows = this.list.arenas.filter((a) => a.starts < soon).map((a) => row(a, false));
    const later = this.list.arenas.filter((a) => a.starts >= soon).map((a) => row(a, true));
    return h(
      "div",
      { class: "arena" },
      head,
      h("h2", { id: "arena-now" }, "Now and within the hour"),
      rows.length ? table(rows, "arena-list", "Status") : h("p", { class: "muted" }, "No arena now or within the hour."),
      later.length ? h("h2", { id: "arena-later" }, "Later today") : null,
      later.length ? table(later, "arena-list arena-later", "Starts") : null,
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
        h("span", { id: "arena-when" }, `${utcTimeText(a.starts)}–${utcTimeText(a.ends)}`),
        " · ",
        h("span", { id: "arena-left" }, this.leftText(a)),
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
          ? h("p", { class: "muted" }, "Waiting for a pairing…")
          : null,
      d.races.length
        ? h("ol", { class: "arena-races" }, d.races.map((r) => h("li", {}, h("a", { href: `#replay=${r.race}` }, `#${r.rank}`), ` · ${r.points} pt${r.points === 1 ? "" : "s"}`)))
        : h("p", { class: "muted" }, "No race finished yet."),
    );
    const featured = h(
      "div",
      { class: "panel", id: "arena-featured" },
      h("h2", {}, "Featured race"),
      this.featuredEl(d),
    );
    return h("div", { class: "arena" }, head, this.winnersPanel(), h("div", { class: "daily-grid" }, h("div", {}, mine, featured), this.standingsPanel()));
  }

  /** The featured race: watched with the spectator delay, unless it is yours (the server refuses `is-player`). */
  featuredEl(d) {
    const { h } = this.ctx;
    if (!d.featured) return h("p", { class: "muted" }, "No race being played.");
    if (d.featured === d.race)
      return h("p", { id: "arena-featured-mine" }, "The race of the highest-ranked players is yours. ", h("a", { class: "btn", href: `#race=${d.race}` }, "Back to your race"));
    return h("p", {}, "The race of the highest-ranked players, shown with the spectator delay. ", h("a", { class: "btn", id: "arena-watch", href: `#watch=${d.featured}&arena=${this.id}` }, "Watch it"));
  }

  /** Once the standings are final: the podium (the first three places with points). */
  winnersPanel() {
    const { h } = this.ctx;
    const b = this.board;
    if (!b || !b.final) return null;
    const medals = ["🥇", "🥈", "🥉"];
    const podium = b.top.filter((r) => r.rank <= 3 && r.points > 0);
    return h(
      "div",
      { class: "panel", id: "arena-winners" },
      h("h2", {}, "Winners"),
      podium.length
        ? h("ol", { class: "arena-podium" }, podium.map((r) => h("li", { dataset: { player: r.player, rank: String(r.rank) } }, `${medals[r.rank - 1]} `, this.nameEl(r), ` · ${r.points} pt${r.points === 1 ? "" : "s"}`)))
        : h("p", { class: "muted" }, "Nobody scored in this arena."),
    );
  }

  /**
   * A standings row's name: a link to the player's profile for an account (the row's
   * `account`, docs/protocol.md §5a, read as the rows are sent: a guest who claimed an account
   * since shows as one), plain text for a guest or a bot, who have none.
   */
  nameEl(r) {
    const { h } = this.ctx;
    const name = r.account ? h("a", { class: "profile-link", href: `#profile=${r.player}` }, r.name) : h("span", {}, r.name);
    return h("span", { class: "standing-name" }, name, nameMarks(h, r));
  }

  standingsPanel() {
    const { h, myId } = this.ctx;
    const b = this.board;
    if (!b) return h("div", { class: "panel" }, h("h2", {}, "Standings"), h("p", { class: "muted" }, "Loading…"));
    const me = myId();
    const line = (r) =>
      h(
        "tr",
        { class: r.player === me ? "me" : "", dataset: { player: r.player } },
        h("td", { class: "num" }, String(r.rank)),
        h("td", {}, this.nameEl(r), r.fire ? h("span", { title: "on fire: a win counts double" }, " 🔥") : null),
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
}
