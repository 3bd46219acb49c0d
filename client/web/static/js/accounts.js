// Accounts and ratings in the browser (docs/protocol.md §9): claim this player
// as an account, log in on another browser, log out, change the password; a
// profile per account (ratings per game with their history, rated races with
// replay links, daily streaks) and a rating leaderboard per game, both drawn by
// ratings_views.js.
//
// An account's token (PLAYER.SECRET, the only tokens with a dot) replaces the
// guest's in localStorage, so every hello after a claim or a login is the
// account's.
import { GAME_IDS, gameName } from "./games.js";
import { boardEl, profileEl, ratingText } from "./ratings_views.js";
import { signedText } from "./words.js";

const TOKEN_KEY = "solrace.token";
const NAME_KEY = "solrace.name";

/** True when this browser holds an account token. */
export function loggedIn() {
  return (localStorage.getItem(TOKEN_KEY) || "").includes(".");
}

// The account name rule (protocol/accounts.py; the reserved names: server/ratings/accounts.py
// name_problem): 3 to 20 ASCII letters, digits, _ or -, starting with a letter or digit, not a
// reserved name nor a bot's.
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

/** Say a refused form's reason in the form itself, tied to its fields (a screen reader reads it
 *  with them, and now: role=alert), the first field focused; `text` null clears it. The toast
 *  says it too, but goes in seconds. It is cleared as soon as a field is edited (refusalClears):
 *  it said why what was sent was refused, not what is typed now. */
function formError(form, text) {
  if (!form) return;
  const fields = [...form.querySelectorAll("input:not([hidden])")];
  let p = form.querySelector(".form-error");
  if (!text) {
    if (p) p.remove();
    for (const f of fields) {
      f.removeAttribute("aria-invalid");
      // a box's own rule (data-rule: the password's) stays its description
      if (f.dataset.rule) f.setAttribute("aria-describedby", f.dataset.rule);
      else f.removeAttribute("aria-describedby");
    }
    return;
  }
  if (!p) {
    p = document.createElement("p");
    p.className = "form-error error";
    p.id = `${form.id}-error`;
    p.setAttribute("role", "alert");
    form.appendChild(p);
  }
  p.textContent = text.charAt(0).toUpperCase() + text.slice(1); // a sentence of its own (the toast's follows "Could not …: ")
  for (const f of fields) {
    f.setAttribute("aria-invalid", "true");
    f.setAttribute("aria-describedby", f.dataset.rule ? `${f.dataset.rule} ${p.id}` : p.id);
  }
  if (fields.length) fields[0].focus();
}

/** Show a sent form at work until its answer comes (a login can take seconds: the password's hash
 *  is slow by design): its submit button disabled and saying `text` ("Logging in…"), the form
 *  aria-busy. Returns what puts it back (on a refusal; a success redraws the page). */
function formBusy(form, text) {
  const button = form && form.querySelector("button[type=submit]");
  if (!button) return () => {};
  const label = button.textContent;
  button.disabled = true;
  button.textContent = text;
  form.setAttribute("aria-busy", "true");
  return () => {
    button.disabled = false;
    button.textContent = label;
    form.removeAttribute("aria-busy");
  };
}

/** A form's `oninput`: a field edited clears the form's refusal. Kept, it went on saying "that
 *  name is taken." over another name, while the browser's own check (a password under 8
 *  characters) kept the form from being sent again. */
const refusalClears = (e) => formError(e.currentTarget, null);

// The server's password rule (protocol/accounts.py password_problem; PASSWORD_MIN and
// PASSWORD_MAX, tests/web/test_password_rule_shown.py checks them): said beside a new password's
// box before anything is sent, not only once a password is refused.
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;
const PASSWORD_RULE = `A password has ${PASSWORD_MIN} to ${PASSWORD_MAX} characters, not only spaces, and is not the account's name.`;

/** A new password's box with its rule under it, the rule tied to the box (aria-describedby,
 *  kept by formError beside a refusal's reason). `attrs`: the input's own. */
function newPasswordBox(h, ruleId, attrs) {
  const input = h("input", { ...attrs, type: "password", autocomplete: "new-password", required: true, minlength: PASSWORD_MIN, maxlength: PASSWORD_MAX, "aria-describedby": ruleId, dataset: { rule: ruleId } });
  return [input, h("span", { class: "field-rule muted", id: ruleId }, PASSWORD_RULE)];
}

/**
 * The account page controller (routes #account, #profile=PID, #ratings=GAME).
 * ctx: {conn, h, $, toast, errText, go(hash), onRating(event)}
 */
export class AccountPage {
  constructor(ctx) {
    this.ctx = ctx;
    this.kind = "account";
    this.id = null;
    this.profile = null;
    this.board = null;
    this.mine = null; // on the board page: my own profile (my rating in the game, provisional or not)
    this.error = null;
    this.guestSelf = false; // the profile asked for is our own, and we are a guest: there is none
    this.active = false; // the page is on screen (between open and leave)
    this.changes = new Map(); // race id -> its `rating` event
    this.notes = new Set(); // the notes this page's forms gave (at the screen's bottom): gone with the page
    ctx.conn.on("rating", (m) => this.onRating(m));
  }

  async open(kind, id) {
    this.active = true;
    this.kind = kind;
    this.id = id || null;
    this.profile = this.board = this.mine = this.error = null;
    this.guestSelf = false;
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
      const me = conn.welcome && conn.welcome.player;
      this.guestSelf = e.code === "no-such-account" && kind === "profile" && (!this.id || this.id === me);
      this.error = e.code === "no-such-account" ? "This player has no account." : this.ctx.errText(e);
    }
    if (this.active) this.render();
  }

  leave() {
    this.active = false;
    // "You are now the account …" went on to the next page (the lobby, a race) at the screen's
    // bottom: what the account page's forms said belongs to the account page
    for (const t of this.notes) t.remove();
    this.notes.clear();
  }

  /** A passing note about this page's forms (claimed, logged in or out, password changed or not), gone when the page is left. */
  note(text, kind) {
    const t = this.ctx.toast(text, kind);
    if (t) this.notes.add(t);
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
    const { conn, errText } = this.ctx;
    const idle = formBusy(form, "Creating the account…");
    try {
      const acct = await conn.request({ t: "claim", name, password });
      localStorage.setItem(TOKEN_KEY, acct.token);
      localStorage.setItem(NAME_KEY, acct.name);
      this.note(`You are now the account ${acct.name}.`, "info");
      conn.reconnect(); // a hello with the account's token: the same player, logged in
    } catch (e) {
      idle();
      const why = claimError(e, errText, name);
      this.note(`Could not claim: ${why}`, "error");
      formError(form, why);
    }
  }

  async login(name, password, form = null) {
    const { conn, errText } = this.ctx;
    const idle = formBusy(form, "Logging in…");
    try {
      const acct = await conn.request({ t: "login", name, password });
      localStorage.setItem(TOKEN_KEY, acct.token);
      localStorage.setItem(NAME_KEY, acct.name);
      this.note(`Logged in as ${acct.name}.`, "info");
      conn.reconnect();
    } catch (e) {
      idle();
      this.note(`Could not log in: ${accountError(e, errText)}`, "error");
      formError(form, accountError(e, errText));
    }
  }

  async logout(everywhere) {
    const { conn, errText } = this.ctx;
    try {
      await conn.request({ t: everywhere ? "logout_all" : "logout" });
    } catch (e) {
      if (e.code !== "not-logged-in") return this.note(errText(e), "error");
    }
    localStorage.removeItem(TOKEN_KEY); // the next hello makes a new guest
    localStorage.removeItem(NAME_KEY); // with a name of its own, not the account's
    this.note(everywhere ? "Logged out on every device." : "Logged out.", "info");
    conn.reconnect();
  }

  async changePassword(old, nw, form = null) {
    const { conn, errText } = this.ctx;
    try {
      await conn.request({ t: "password", old, new: nw });
      this.note("Password changed; your other devices are logged out.", "info");
    } catch (e) {
      this.note(`Could not change the password: ${accountError(e, errText)}`, "error");
      formError(form, accountError(e, errText));
    }
  }

  // --- views (the profile and the rating board: ratings_views.js) ----------------------------

  render() {
    const { h, $ } = this.ctx;
    const main = $("#main");
    if (!main) return;
    let body;
    if (this.guestSelf) body = this.guestProfileEl();
    else if (this.error) body = h("p", { class: "error", id: "account-error" }, this.error);
    else if (this.kind === "ratings") body = boardEl(h, this.board, { guest: !loggedIn(), mine: this.mine });
    else if (this.kind === "profile") body = this.profile ? profileEl(h, this.profile) : h("p", { class: "muted" }, "Loading…");
    else body = loggedIn() ? [this.actionsEl(), this.profile ? profileEl(h, this.profile) : h("p", { class: "muted" }, "Loading…")] : this.guestEl();
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
          oninput: refusalClears,
          onsubmit: (e) => {
            e.preventDefault();
            formError(e.target, null);
            submit(e.target.account.value.trim(), e.target.password.value, e.target);
          },
        },
        h("h2", {}, title),
        h("p", { class: "muted" }, text),
        h("label", {}, "Name ", h("input", { name: "account", autocomplete: "username", required: true, maxlength: 20, value: name || null })),
        id === "claim-form"
          ? h("label", {}, "Password ", newPasswordBox(h, `${id}-password-rule`, { name: "password" }))
          : h("label", {}, "Password ", h("input", { name: "password", type: "password", autocomplete: "current-password", required: true, minlength: PASSWORD_MIN })),
        h("button", { class: "btn primary", type: "submit" }, button),
      );
    return h(
      "div",
      { class: "account-forms" },
      form("claim-form", "Keep this player", "Make this player an account: your races and daily history stay with it, you can log in on other devices, and you can play rated races.", "Create account", (n, p, f) => this.claim(n, p, f), claimName(conn.welcome)),
      form("login-form", "Log in", "Already have an account? Log in to play as it on this browser. This guest's races and daily history stay with the guest: to keep them, create an account from it instead.", "Log in", (n, p, f) => this.login(n, p, f)),
    );
  }

  /** Our own profile while we are a guest: there is none, and the way to one is an account. */
  guestProfileEl() {
    const { h } = this.ctx;
    return h(
      "section",
      { class: "panel guest-profile", id: "guest-profile" },
      h("h2", {}, "You are playing as a guest"),
      h(
        "p",
        {},
        "Only accounts have a profile. Create an account from this player to keep your races and daily history, see your ratings here, play rated races and log in on other devices.",
      ),
      h(
        "p",
        { class: "guest-profile-actions" },
        h("a", { class: "btn primary", id: "guest-profile-claim", href: "#account" }, "Create an account"),
        h("a", { class: "btn ghost", id: "guest-profile-login", href: "#account" }, "Log in"),
      ),
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
          oninput: refusalClears,
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
        newPasswordBox(h, "password-form-rule", { name: "new", placeholder: "new password", "aria-label": "new password" }),
        h("button", { class: "btn small", type: "submit" }, "Change password"),
      ),
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

/** Why a claim of the account `name` was refused: a name of the rule's shape refused as
 *  `bad-name` is reserved (the server's, a bot's: RESERVED_NAMES, "bot-…"). The rule alone
 *  ("names are 3 to 20 letters…") was said of "admin", which follows it. */
function claimError(e, errText, name) {
  if (e && e.code === "bad-name" && ACCOUNT_NAME_RE.test(name || "")) return "that name is reserved: pick another.";
  return accountError(e, errText);
}

function accountError(e, errText) {
  return ACCOUNT_ERRORS[e && e.code] || errText(e);
}
