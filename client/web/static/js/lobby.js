// The lobby page: a tile per game (quick match, practice alone, a new race, a bot race, daily, how to play),
// the races we sit in ("Your races"), the races we played lately ("Your recent races", drawn
// by lobby_recent.js) and the live public races (also the watch list's table).
import { GAMES, GAME_IDS, gameName } from "./games.js";
import { loggedIn } from "./accounts.js";
import { BOT_LEVELS } from "./botrace.js";
import { $, h, setBanner, toast } from "./dom.js";
import { placeIn, restorePlace } from "./keep_place.js";
import { recentEl } from "./lobby_recent.js";
import { createRace, practise, quick, startBotRace } from "./matchmaking.js";
import { app, conn, inviteSuffix, myId } from "./state.js";
import { isRaceId, nameMarks, raceStatusText } from "./words.js";

export async function refreshRaces() {
  if (conn.status !== "online") return;
  try {
    const reply = await conn.request({ t: "races" });
    app.raceList = reply.races || [];
    app.raceList.forEach(noteMyRace);
    const box = $("#race-list");
    if (box) box.replaceChildren(raceListEl());
    const mine = $("#my-races");
    if (mine) mine.replaceWith(myRacesEl());
  } catch (e) {
    /* shown on next refresh */
  }
}

// ---------------------------------------------------------------- "Your races"

// The welcome names the races we sit in by their ids only: their game and status come from
// their snapshots, the race list or the race page we left. Kept in localStorage too, so that
// after a reload "Your races" names each race at once, not "Race r1a2b3…" until a snapshot
// comes (for a private race, the race list never names it).
const LABELS_KEY = "solrace.myRaces"; // [[race id, game, status], …], the latest noted last
const LABELS_KEPT = 32; // the server seats a player in 8 unfinished races at most (MAX_RACES_PER_PLAYER)

function storedLabels() {
  try {
    const list = JSON.parse(localStorage.getItem(LABELS_KEY) || "[]");
    return new Map(Array.isArray(list) ? list.filter((e) => Array.isArray(e) && typeof e[0] === "string").map(([id, game, status]) => [id, [game || null, status || null]]) : []);
  } catch (e) {
    return new Map(); // unreadable: the labels come back with the snapshots
  }
}

function storeLabels(labels) {
  try {
    localStorage.setItem(LABELS_KEY, JSON.stringify([...labels].slice(-LABELS_KEPT).map(([id, [game, status]]) => [id, game, status])));
  } catch (e) {
    /* private mode or full: the labels live in memory only */
  }
}

/** The labels kept by an earlier visit of this browser, into app.raceGames / app.raceStatus (at start). */
export function restoreRaceLabels() {
  for (const [id, [game, status]] of storedLabels()) {
    if (game) app.raceGames[id] = game;
    if (status) app.raceStatus[id] = status;
  }
}

/** Note the game and status of a race we sit in, in memory and in localStorage. */
export function rememberMyRace(id, game, status) {
  if (game) app.raceGames[id] = game;
  if (status) app.raceStatus[id] = status;
  const labels = storedLabels();
  const label = [app.raceGames[id] || null, app.raceStatus[id] || null];
  const old = labels.get(id);
  if (old && old[0] === label[0] && old[1] === label[1]) return; // race lists and snapshots repeat themselves
  labels.delete(id); // to the end: past the bound, the races noted longest ago go first
  labels.set(id, label);
  storeLabels(labels);
}

/** At the welcome: the races it lists are all those we still sit in; the stored labels of the others go. */
export function keepRaceLabelsOf(ids) {
  const labels = storedLabels();
  const keep = new Set(ids || []);
  const before = labels.size;
  for (const id of [...labels.keys()]) if (!keep.has(id)) labels.delete(id);
  if (labels.size !== before) storeLabels(labels);
}

function forgetRaceLabel(id) {
  const labels = storedLabels();
  if (labels.delete(id)) storeLabels(labels);
}

/** Note the game and status of a race we sit in (from its snapshot, the race list or its start), for "Your races". */
export function noteMyRace(r) {
  if (!r || !r.race || !app.me) return;
  // a race the welcome listed, or one we sit in since (its snapshot names us): noted at once, so
  // that a tab closed in the race finds its game in "Your races" at the next visit
  const seated = (r.players || []).some((p) => p.player === myId());
  if (!seated && !(app.me.races || []).includes(r.race)) return;
  rememberMyRace(r.race, r.game, r.status);
}

/** The lobby's "Your races": a button per unfinished race we sit in, with its game and status once known. */
function myRacesEl() {
  const ids = (app.me && app.me.races) || [];
  if (!ids.length) return h("p", { class: "resume", id: "my-races", hidden: true });
  return h(
    "p",
    { class: "resume", id: "my-races" },
    "Your races: ",
    ids.map((id) => {
      const game = app.raceGames[id];
      const status = app.raceStatus[id];
      return h(
        "a",
        { class: "btn small my-race", href: `#race=${id}${inviteSuffix(id)}`, title: `race ${id}`, dataset: { race: id } },
        game ? gameName(game) : `Race ${id.slice(0, 6)}…`,
        status && status !== "finished" ? h("span", { class: `pill p-${status}` }, raceStatusText(status)) : null,
      );
    }),
  );
}

/** The end of a race we sit in but are not looking at (we left it once our game was over). */
export function otherRaceEnded(m) {
  if (app.me && app.me.races) app.me.races = app.me.races.filter((id) => id !== m.race);
  forgetRaceLabel(m.race);
  const mine = (m.ranking || []).find((r) => r.player === myId());
  if (!mine) return;
  const game = app.raceGames[m.race];
  // alone in it (a practice), no rank to tell: "#1 of 1" even with no card home
  const how = m.ranking.length < 2 ? (mine.won ? "all cards home" : `${mine.home} cards home`) : `you finished #${mine.rank} of ${m.ranking.length}`;
  const text = `Your ${game ? `${gameName(game)} ` : ""}race is over: ${how}. `;
  const link = h("a", { class: "btn small primary", id: "see-result", href: `#race=${m.race}${inviteSuffix(m.race)}`, onclick: () => setBanner(null) }, "See the result");
  if (app.queued) return toast(text, "info", 8000); // the banner says we are looking for a race
  setBanner(h("div", { class: "queue race-over" }, text, link, h("button", { class: "btn small ghost", onclick: () => setBanner(null) }, "Close")));
  if (app.route.kind === "lobby") renderLobby();
}

// ---------------------------------------------------------------- the page

/** The table of live public races (the lobby's, and the watch list's). */
export function raceListEl() {
  const races = app.raceList;
  if (!races.length) return h("p", { class: "muted" }, "No public race right now. Start one!");
  return h(
    "table",
    { class: "races" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Players"), h("th", {}, "Status"), h("th", {}, ""))),
    h(
      "tbody",
      {},
      races.map((r) =>
        h(
          "tr",
          { dataset: { race: r.race } },
          h("td", {}, gameName(r.game), r.rated ? h("span", { class: "pill rated" }, "rated") : null),
          h(
            "td",
            {},
            h("div", { class: "who-list" }, (r.players || []).map((p) =>
              h(
                "span",
                { class: "mini-player" },
                p.name,
                nameMarks(h, p),
                r.status !== "lobby" ? h("span", { class: "mini-bar" }, h("i", { style: { width: `${Math.round((100 * p.home) / (r.total || 1))}%` } })) : null,
              ),
            )),
          ),
          h("td", {}, h("span", { class: `pill p-${r.status}` }, r.status), r.spectators ? h("span", { class: "muted small" }, ` · ${r.spectators} watching`) : null),
          h(
            "td",
            { class: "actions" },
            r.status !== "lobby" ? null
              : r.players.length < r.seats ? h("a", { class: "btn small", href: `#race=${r.race}` }, "Join")
              : h("span", { class: "muted small" }, "full"),
            h("a", { class: "btn small ghost", href: `#watch=${r.race}` }, "Watch"),
          ),
        ),
      ),
    ),
  );
}

// A lobby form's choices survive the lobby's re-renders (welcome, daily probe, reconnects):
// a re-render used to put them back to their defaults under the player's eyes.
function keepChoices(key) {
  return (e) => {
    const f = e.currentTarget;
    app.formChoices[key] = Object.fromEntries(
      [...f.elements].filter((el) => el.name).map((el) => [el.name, el.type === "checkbox" ? el.checked : el.value]),
    );
  };
}

function chosen(key, name, fallback) {
  const c = app.formChoices[key];
  return c && name in c ? c[name] : fallback;
}

/** The button that opens and closes a tile's form: it says whether the form is open (for a
 *  screen reader), opening scrolls the form into view and puts the focus in it, and Escape there
 *  closes it and gives the focus back to the button. `label` names the game: four tiles have the same buttons. */
function disclosure(form, act, label, text, remember) {
  const button = h("button", { class: "btn", dataset: { act }, "aria-label": label, "aria-expanded": String(!form.hidden) }, text);
  const toggle = (open) => {
    form.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    remember(open);
  };
  button.addEventListener("click", (e) => {
    toggle(form.hidden);
    if (form.hidden) return;
    // Opened below the fold (a 1280x720 screen: under the tiles' buttons), it is brought into view.
    form.scrollIntoView({ block: "nearest" });
    // a keyboard press (detail 0) goes on in the form; a mouse click leaves the focus alone
    if (e.detail === 0) form.querySelector("select, input, button").focus();
  });
  form.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    toggle(false);
    button.focus();
  });
  return button;
}

export function renderLobby() {
  const main = $("#main");
  const place = placeIn(main);
  const tiles = GAME_IDS.map((id) => {
    const g = GAMES[id];
    const ck = `create:${id}`;
    const bk = `bot:${id}`;
    const form = h(
      "form",
      {
        class: "create-form",
        // The lobby re-renders (welcome, daily probe, reconnects): an open form stays open.
        hidden: app.createOpen !== id,
        onchange: keepChoices(ck),
        onsubmit: (e) => {
          e.preventDefault();
          const f = e.target;
          app.createOpen = null;
          createRace(id, parseInt(f.seats.value, 10), parseInt(f.limit.value, 10) * 60, f.private.checked);
        },
      },
      h(
        "label",
        {},
        "Seats ",
        h("select", { name: "seats" }, [1, 2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: n, selected: n === +chosen(ck, "seats", 2) }, n))),
      ),
      h(
        "label",
        {},
        "Clock ",
        h(
          "select",
          { name: "limit" },
          [2, 5, 10, 15, 20, 30, 60].map((n) => h("option", { value: n, selected: n === +chosen(ck, "limit", 10) }, `${n} min`)),
        ),
      ),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "private", checked: chosen(ck, "private", false) }), " private"),
      h("button", { class: "btn", type: "submit" }, "Create"),
    );
    const botForm = h(
      "form",
      {
        class: "create-form bot-form",
        hidden: app.botOpen !== id,
        onchange: keepChoices(bk),
        onsubmit: (e) => {
          e.preventDefault();
          app.botOpen = null;
          startBotRace(id, e.target.level.value, parseInt(e.target.limit.value, 10) * 60);
        },
      },
      h("label", {}, "Level ", h("select", { name: "level" }, BOT_LEVELS.map(([v, label]) => h("option", { value: v, selected: v === chosen(bk, "level", "greedy") }, label)))),
      h("label", {}, "Clock ", h("select", { name: "limit" }, [2, 5, 10].map((n) => h("option", { value: n, selected: n === +chosen(bk, "limit", 5) }, `${n} min`)))),
      h("button", { class: "btn primary", type: "submit", dataset: { act: "bot-go" } }, "Race"),
    );
    return h(
      "section",
      { class: "tile", dataset: { game: id } },
      h("div", { class: "tile-head" }, h("h2", {}, g.name), h("span", { class: "muted small" }, `${g.decks} decks · ${g.total} cards`)),
      h("div", { class: "fan-deco", "aria-hidden": "true" }, decoCards(id)), // a picture: not read out as "A♠ 6♥ 7♦ K♣"
      h("p", { class: "blurb" }, g.blurb),
      h(
        "div",
        { class: "tile-actions" },
        h("button", { class: "btn primary", onclick: () => quick(id), dataset: { act: "quick" }, "aria-label": `Quick match: ${g.name}` }, "Quick match"),
        h(
          "button",
          { class: "btn", onclick: () => practise(id), dataset: { act: "practice" }, "aria-label": `Practice alone: ${g.name}`, title: "A private race of your own, with hints, on the usual clock" },
          "Practice",
        ),
        disclosure(form, "create", `Create race… (${g.name})`, "Create race…", (open) => (app.createOpen = open ? id : null)),
        disclosure(botForm, "bot", `Race a bot… (${g.name})`, "Race a bot…", (open) => (app.botOpen = open ? id : null)),
        // named with their game, as the buttons beside them: a screen reader's list of links read
        // "Daily" and "How to play" four times each, beside the header's own
        app.daily.supported ? h("a", { class: "btn ghost", href: `#daily=${id}`, dataset: { act: "daily" }, "aria-label": `Daily challenge: ${g.name}` }, "Daily") : null,
        h("a", { class: "btn ghost", href: `#howto=${id}`, dataset: { act: "howto" }, "aria-label": `How to play: ${g.name}` }, "How to play"),
      ),
      form,
      botForm,
    );
  });
  main.replaceChildren(
    h(
      "div",
      { class: "lobby" },
      h(
        "section",
        { class: "hero" },
        h("h1", {}, "Race the same deal."),
        h("p", {}, "Everyone gets the same shuffled layout. Move fastest, get every card home first. The server checks every move and proves the deal was fair."),
        h(
          "form",
          {
            class: "join-form",
            onsubmit: (e) => {
              e.preventDefault();
              joinByText(e.target.link.value);
            },
          },
          h("input", { name: "link", placeholder: "Paste a race link or id to join", "aria-label": "race link or id to join", autocomplete: "off" }),
          h("button", { class: "btn", type: "submit" }, "Join"),
        ),
        loggedIn()
          ? h(
              "label",
              { class: "check rated-toggle", title: "Rated races are between accounts, on the server's clock; they change your rating" },
              h("input", { type: "checkbox", id: "rated-toggle", checked: app.rated, onchange: (e) => {
                app.rated = e.target.checked;
                localStorage.setItem("solrace.rated", app.rated ? "1" : "0");
              } }),
              " Rated (quick match and new races)",
            )
          : null,
        myRacesEl(),
      ),
      recentEl(),
      h("div", { class: "tiles" }, tiles),
      h("section", { class: "panel" }, h("h2", {}, "Live races"), h("div", { id: "race-list" }, raceListEl())),
    ),
  );
  restorePlace(main, place);
}

function decoCards(game) {
  const sets = {
    "racing-aces": ["As", "6h", "7d", "Kc"],
    "double-aces-and-kings": ["Ah", "Ad", "Ks", "Kh"],
    "rouge-et-noir": ["Kd", "Qs", "Jh", "Tc"],
    "fours-up": ["4c", "4d", "4h", "4s"],
  }[game];
  return sets.map((c, i) => {
    const red = "dh".includes(c[1]);
    const s = { c: "♣", d: "♦", h: "♥", s: "♠" }[c[1]];
    return h("span", { class: `deco ${red ? "red" : ""}`, style: { "--i": i } }, (c[0] === "T" ? "10" : c[0]) + s);
  });
}

function joinByText(text) {
  const hash = joinHash(text);
  // anything but a race id (words.isRaceId) was mistyped or cut short: said here, in the lobby
  if (!hash) return toast("That is not a race link or id (an id is an r and 16 hex digits): check what you pasted.", "error", 6000);
  location.hash = hash;
}

const WORD = /^[\w-]+$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The page a pasted race link or id names, as a hash (without its "#"), or null. Every link of a
 * race this client makes opens what it names: a race's page `race=ID` (with its `&invite=` and
 * the lobby's `&analysis`), watching `watch=ID` (`&invite=`, an arena's `&arena=`), a replay
 * `replay=ID` (`&step=`, a daily attempt's `&daily=…&date=…`), whole addresses or their hash; the
 * id alone (and `ID&invite=…`) opens its race's page. Read as parameters, in any order, and
 * written back in the order app.js's router reads them.
 */
function joinHash(text) {
  const t = (text || "").trim();
  const at = t.indexOf("#");
  const params = new URLSearchParams((at >= 0 ? t.slice(at + 1) : t).replace(/^\//, ""));
  const extra = (name, shape) => {
    const v = params.get(name);
    return v !== null && shape.test(v) ? `&${name}=${v}` : "";
  };
  for (const kind of ["race", "watch", "replay"]) {
    const id = params.get(kind);
    if (id === null) continue;
    if (!isRaceId(id)) return null;
    if (kind === "race") return `race=${id}${extra("invite", WORD)}${params.has("analysis") ? "&analysis" : ""}`;
    if (kind === "watch") return `watch=${id}${extra("invite", WORD)}${extra("arena", WORD)}`;
    const daily = extra("daily", WORD);
    const date = extra("date", DAY);
    return `replay=${id}${extra("step", /^\d+$/)}${daily && date ? daily + date : ""}`;
  }
  const [first] = params.keys();
  return isRaceId(first) && params.get(first) === "" ? `race=${first}${extra("invite", WORD)}` : null;
}
