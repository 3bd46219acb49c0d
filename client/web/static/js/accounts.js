// Accounts and ratings in the browser (docs/protocol.md §9): claim this player
// as an account, log in on another browser, log out, change the password; a
// profile per account (ratings per game with their history, rated races with
// replay links, daily streaks) and a rating leaderboard per game.
//
// An account's token (PLAYER.SECRET, the only tokens with a dot) replaces the
// guest's in localStorage, so every hello after a claim or a login is the
// account's.
import { GAME_IDS, gameName } from "./games.js";
import { nameMarks, signedText, utcDateTimeText } from "./words.js";

const TOKEN_KEY = "solrace.token";
const NAME_KEY = "solrace.name";

/** True when this browser holds an account token. */
export function loggedIn() {
  return (localStorage.getItem(TOKEN_KEY) || "").includes(".");
}

function ratingText(r) {
  return r.provisional ? `${r.rating}?` : String(r.rating);
}

// The account name rule of server/ratings/accounts.py (name_problem): 3 to 20 ASCII letters,
// digits, _ or -, starting with a letter or digit, not a reserved name nor a bot's.
const ACCOUNT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{2,19}$/;
const RESERVED_NAMES = new Set(["admin", "administrator", "bot", "guest", "moderator", "root", "server", "solrace", "system"]);

/**
 * What the claim form offers as the account's name: the guest's own name (from the welcome),
 * so keeping it takes only a password; empty when the server would refuse it as an account
 * name (spaces, accents…), where a pre-filled value would only earn a "bad name" refusal.
 */
function claimName(welcome) {
  const name = (welcome && welcome.name) || "";
  const key = name.toLowerCase();
  return ACCOUNT_NAME_RE.test(name) && !RESERVED_NAMES.has(key) && !key.startsWith("bot-") ? name : "";
}

/** Rated races a rating needs to stop being provisional (docs/ratings.md §2, PROVISIONAL_RACES). */
const PROVISIONAL_RACES = 10;
const PROVISIONAL_HELP = `A ? after a rating means provisional: it has counted in fewer than ${PROVISIONAL_RACES} rated races, so it is still a rough estimate, and it stays off the rating boards until then.`;

/** Rated races still needed before a provisional rating map is established. */
function racesToGo(r) {
  return Math.max(1, PROVISIONAL_RACES - (r.races || 0));
}

/**
 * The account page controller (routes #account, #profile=PID, #ratings=GAME).
 * ctx: {conn, h, $, toast, errText, go(hash), onRating(event)}
 */
/** Say a refused form's reason in the form itself, tied to its fields (a screen reader reads it
 *  with them, and now: role=alert), the first field focused; `text` null clears it. The toast
 *  says it too, but goes in seconds. */
function formError(form, text) {
  if (!form) return;
  const fields = [...form.querySelectorAll("input:not([hidden])")];
  let p = form.querySelector(".form-error");
  if (!text) {
    if (p) p.remove();
    for (const f of fields) f.removeAttribute("aria-invalid");
    return;
  }
  if (!p) {
    p = document.createElement("p");
    p.className = "form-error error";
    p.id = `${form.id}-error`;
    p.setAttribute("role", "alert");
    form.appendChild(p);
  }
  p.textContent = text;
  for (const f of fields) {
    f.setAttribute("aria-invalid", "true");
    f.setAttribute("aria-describedby", p.id);
  }
  if (fields.length) fields[0].focus();
}

export class AccountPage {
  constructor(ctx) {
    this.ctx = ctx;
    this.kind = "account";
    this.id = null;
    this.profile = null;
    this.board = null;
    this.mine = null; // on the board page: my own profile (my rating in the game, provisional or not)
    this.error = null;
    this.active = false; // the page is on screen (between open and leave)
    this.changes = new Map(); // race id -> its `rating` event
    ctx.conn.on("rating", (m) => this.onRating(m));
  }

  async open(kind, id) {
    this.active = true;
    this.kind = kind;
    this.id = id || null;
    this.profile = this.board = this.mine = this.error = null;
    this.render();
    const { conn } = this.ctx;
    try {
      if (kind === "ratings") {
        this.id = this.id || GAME_IDS[0];
        const [board, mine] = await Promise.all([
          conn.request({ t: "rating_board", game: this.id, top: 20 }),
          // the board lists established ratings only: my own rating (maybe provisional) is in my profile
          loggedIn() ? conn.request({ t: "profile" }).catch(() => null) : null,
        ]);
        this.board = board;
        this.mine = mine;
      } else if (kind === "profile" || loggedIn()) {
        this.profile = await conn.request(this.id ? { t: "profile", player: this.id } : { t: "profile" });
      }
    } catch (e) {
      this.error = e.code === "no-such-account" ? "This player has no account." : this.ctx.errText(e);
    }
    if (this.active) this.render();
  }

  leave() {
    this.active = false;
  }

  /** The player's rating change in a rated race, once known (for the race's result), or null. */
  ratingLine(race, me) {
    const m = this.changes.get(race);
    const p = m && (m.players || []).find((x) => x.player === me);
    if (!p) return null;
    const delta = p.after.rating - p.before.rating;
    return this.ctx.h("p", { class: "rating-change", id: "rating-change" }, `Rating: ${ratingText(p.before)} → ${ratingText(p.after)} (${signedText(delta)})`);
  }

  onRating(m) {
    this.changes.set(m.race, m);
    this.ctx.onRating(m);
    const me = this.ctx.conn.welcome && this.ctx.conn.welcome.player;
    const p = (m.players || []).find((x) => x.player === me);
    if (p) {
      const delta = p.after.rating - p.before.rating;
      this.ctx.toast(`Rated ${gameName(m.game)}: ${ratingText(p.before)} → ${ratingText(p.after)} (${signedText(delta)})`, "info", 6000);
    }
    if (this.active && this.kind !== "ratings") this.open(this.kind, this.id);
  }

  // --- requests ------------------------------------------------------------------------------

  async claim(name, password, form = null) {
    const { conn, toast, errText } = this.ctx;
    try {
      const acct = await conn.request({ t: "claim", name, password });
      localStorage.setItem(TOKEN_KEY, acct.token);
      localStorage.setItem(NAME_KEY, acct.name);
      toast(`You are now the account ${acct.name}.`, "info");
      conn.reconnect(); // a hello with the account's token: the same player, logged in
    } catch (e) {
      toast(`Could not claim: ${accountError(e, errText)}`, "error");
      formError(form, accountError(e, errText));
    }
  }

  async login(name, password, form = null) {
    const { conn, toast, errText } = this.ctx;
    try {
      const acct = await conn.request({ t: "login", name, password });
      localStorage.setItem(TOKEN_KEY, acct.token);
      localStorage.setItem(NAME_KEY, acct.name);
      toast(`Logged in as ${acct.name}.`, "info");
      conn.reconnect();
    } catch (e) {
      toast(`Could not log in: ${accountError(e, errText)}`, "error");
      formError(form, accountError(e, errText));
    }
  }

  async logout(everywhere) {
    const { conn, toast, errText } = this.ctx;
    try {
      await conn.request({ t: everywhere ? "logout_all" : "logout" });
    } catch (e) {
      if (e.code !== "not-logged-in") return toast(errText(e), "error");
    }
    localStorage.removeItem(TOKEN_KEY); // the next hello makes a new guest
    localStorage.removeItem(NAME_KEY); // with a name of its own, not the account's
    toast(everywhere ? "Logged out on every device." : "Logged out.", "info");
    conn.reconnect();
  }

  async changePassword(old, nw, form = null) {
    const { conn, toast, errText } = this.ctx;
    try {
      await conn.request({ t: "password", old, new: nw });
      toast("Password changed; your other devices are logged out.", "info");
    } catch (e) {
      toast(`Could not change the password: ${accountError(e, errText)}`, "error");
      formError(form, accountError(e, errText));
    }
  }

  // --- views ---------------------------------------------------------------------------------

  render() {
    const { h, $ } = this.ctx;
    const main = $("#main");
    if (!main) return;
    let body;
    if (this.error) body = h("p", { class: "error", id: "account-error" }, this.error);
    else if (this.kind === "ratings") body = this.boardEl();
    else if (this.kind === "profile") body = this.profile ? this.profileEl(this.profile) : h("p", { class: "muted" }, "Loading…");
    else body = loggedIn() ? [this.actionsEl(), this.profile ? this.profileEl(this.profile) : h("p", { class: "muted" }, "Loading…")] : this.guestEl();
    main.replaceChildren(h("div", { class: "account-page" }, this.tabsEl(), body));
  }

  tabsEl() {
    const { h } = this.ctx;
    return h(
      "nav",
      { class: "tabs" },
      h("a", { class: `btn small ${this.kind === "account" ? "primary" : "ghost"}`, href: "#account" }, loggedIn() ? "My profile" : "Account"),
      GAME_IDS.map((g) =>
        h("a", { class: `btn small ${this.kind === "ratings" && this.id === g ? "primary" : "ghost"}`, href: `#ratings=${g}`, dataset: { board: g } }, `${gameName(g)} ratings`),
      ),
    );
  }

  guestEl() {
    const { h, conn } = this.ctx;
    const form = (id, title, text, button, submit, name = "") =>
      h(
        "form",
        {
          class: "panel account-form",
          id,
          onsubmit: (e) => {
            e.preventDefault();
            formError(e.target, null);
            submit(e.target.account.value.trim(), e.target.password.value, e.target);
          },
        },
        h("h2", {}, title),
        h("p", { class: "muted" }, text),
        h("label", {}, "Name ", h("input", { name: "account", autocomplete: "username", required: true, maxlength: 20, value: name || null })),
        h("label", {}, "Password ", h("input", { name: "password", type: "password", autocomplete: id === "claim-form" ? "new-password" : "current-password", required: true, minlength: 8 })),
        h("button", { class: "btn primary", type: "submit" }, button),
      );
    return h(
      "div",
      { class: "account-forms" },
      form("claim-form", "Keep this player", "Make this player an account: your races and daily history stay with it, you can log in on other devices, and you can play rated races.", "Create account", (n, p, f) => this.claim(n, p, f), claimName(conn.welcome)),
      form("login-form", "Log in", "Already have an account? Log in to play as it on this browser. This guest's races and daily history stay with the guest: to keep them, create an account from it instead.", "Log in", (n, p, f) => this.login(n, p, f)),
    );
  }

  actionsEl() {
    const { h } = this.ctx;
    return h(
      "section",
      { class: "panel account-actions" },
      h("button", { class: "btn", id: "logout-btn", onclick: () => this.logout(false) }, "Log out"),
      h("button", { class: "btn ghost", id: "logout-all-btn", onclick: () => this.logout(true) }, "Log out everywhere"),
      h(
        "form",
        {
          class: "inline",
          id: "password-form",
          onsubmit: (e) => {
            e.preventDefault();
            formError(e.target, null);
            this.changePassword(e.target.old.value, e.target.new.value, e.target);
            e.target.reset();
          },
        },
        // the account's name, for password managers (and the accessibility of password forms)
        h("input", { name: "username", autocomplete: "username", value: (this.ctx.conn.welcome && this.ctx.conn.welcome.name) || "", hidden: true, readonly: true }),
        h("input", { name: "old", type: "password", placeholder: "current password", "aria-label": "current password", autocomplete: "current-password", required: true }),
        h("input", { name: "new", type: "password", placeholder: "new password", "aria-label": "new password", autocomplete: "new-password", required: true, minlength: 8 }),
        h("button", { class: "btn small", type: "submit" }, "Change password"),
      ),
    );
  }

  profileEl(p) {
    const { h } = this.ctx;
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
            h("p", { class: "muted small" }, `${g.rating.races} rated race${g.rating.races === 1 ? "" : "s"}`),
            g.history.length ? this.graphEl(g.history) : null,
          ),
        ),
      ),
      played.some((g) => g.rating.provisional) || p.races.some((r) => r.after.provisional) ? h("p", { class: "muted small rating-legend", id: "rating-legend" }, PROVISIONAL_HELP) : null,
      h("h2", {}, "Recent rated races"),
      p.races.length ? this.racesEl(p.races) : h("p", { class: "muted", id: "no-rated-races" }, played.length ? "" : "No rated race yet."),
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

  racesEl(races) {
    const { h } = this.ctx;
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

  /** The displayed rating after each rated race, oldest to newest, as a small line graph. */
  graphEl(history) {
    const pts = [history[history.length - 1].before.rating, ...history.slice().reverse().map((r) => r.after.rating)];
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
  standingEl(b) {
    const { h } = this.ctx;
    const line = (...parts) => h("p", { class: "my-standing", id: "my-standing" }, ...parts);
    if (b.me) {
      const e = b.me;
      return line(h("b", {}, "You: "), `#${e.rank} of ${b.count} · rating ${e.rating} · ${e.races} rated race${e.races === 1 ? "" : "s"}`);
    }
    if (!loggedIn()) return line("Guests have no rating: ", h("a", { href: "#account" }, "make this player an account"), " to play rated races.");
    const g = this.mine && (this.mine.ratings || []).find((x) => x.game === b.game);
    if (!g) return null;
    const r = g.rating;
    if (!r.races && !g.history.length) return line(h("b", {}, "You: "), `no rated ${gameName(b.game)} race yet (you start at ${ratingText(r)}). `, `Play ${PROVISIONAL_RACES} rated races to be on the board.`);
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

  boardEl() {
    const { h } = this.ctx;
    const b = this.board;
    if (!b) return h("p", { class: "muted" }, "Loading…");
    const row = (e, mine) =>
      h(
        "tr",
        { class: mine ? "me" : "", dataset: { player: e.player } },
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
      this.standingEl(b),
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
}

const ACCOUNT_ERRORS = {
  "bad-name": "names are 3 to 20 letters, digits, _ or -, starting with a letter or digit.",
  "bad-password": "passwords are 8 to 256 characters and not the name.",
  "name-taken": "that name is taken.",
  "already-account": "this player already is an account.",
  "login-limited": "too many attempts: wait a few minutes.",
  "claim-limited": "too many accounts made from this address: wait a few minutes.",
  "bad-login": "unknown name or wrong password.",
  "not-logged-in": "log in first.",
  conflict: "the password was changed meanwhile.",
};

function accountError(e, errText) {
  return ACCOUNT_ERRORS[e && e.code] || errText(e);
}
