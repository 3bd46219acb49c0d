// The ways into a race that the lobby and the result panel both offer: quick match (with its
// banner while we wait), a new race, a race against a bot, and rematches (asked or offered).
import { gameName } from "./games.js";
import { errorText as errText, nameMarks } from "./words.js";
import { loggedIn } from "./accounts.js";
import { acceptRematch, raceBot, rematch } from "./botrace.js";
import { h, setBanner, toast } from "./dom.js";
import { app, conn, inviteSuffix, keepInvite } from "./state.js";

export async function quick(game, seats = 2, rated = app.rated && loggedIn()) {
  if (app.queued) await unqueue();
  try {
    await conn.request(rated ? { t: "quick", game, seats, rated } : { t: "quick", game, seats });
    app.queued = { game, seats, rated };
    renderQueueBanner();
  } catch (e) {
    toast(`Quick match failed: ${errText(e)}`, "error");
  }
}

async function unqueue() {
  const q = app.queued;
  app.queued = null;
  renderQueueBanner();
  if (q) conn.request({ t: "unqueue", game: q.game }).catch(() => {});
}

export function renderQueueBanner() {
  if (!app.queued) return setBanner(null);
  setBanner(
    h(
      "div",
      { class: "queue" },
      h("span", { class: "spinner" }),
      `Looking for ${app.queued.seats - 1 === 1 ? "a rival" : `${app.queued.seats - 1} rivals`} for ${app.queued.rated ? "a rated " : ""}${gameName(app.queued.game)}… `,
      app.queued.rated ? null : quickBotNote(),
      h("button", { class: "btn small ghost", id: "unqueue", onclick: unqueue }, "Cancel"),
    ),
  );
}

/** How long before a bot takes the empty seats of a quick-match (the server's QUICK_BOT_AFTER_S). */
function quickBotNote() {
  const after = app.me && app.me.limits && app.me.limits.QUICK_BOT_AFTER_S;
  return after ? h("span", { class: "muted small" }, `(a bot joins after ${after} s if nobody comes) `) : null;
}

/** A new race (the lobby's "Create race…" form); `limit` null: on the server's clock (TIME_LIMIT_S). */
export async function createRace(game, seats, limit, priv, rated = app.rated && loggedIn()) {
  try {
    // A rated race runs on the server's clock and has at least 2 seats.
    const clock = limit == null ? {} : { time_limit_s: limit };
    const msg = rated ? { t: "create", game, seats: Math.max(2, seats), private: priv, rated } : { t: "create", game, seats, ...clock, private: priv };
    const race = await conn.request(msg);
    keepInvite(race);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}${inviteSuffix(race.race)}`;
  } catch (e) {
    toast(`Could not create the race: ${errText(e)}`, "error");
  }
}

/** Practice alone (the terminal's "Practice alone"): a private race of one seat on the server's
 *  clock, never rated (whatever the Rated box says), where the server gives hints. */
export function practise(game) {
  return createRace(game, 1, null, true, false);
}

export async function startBotRace(game, level, limit) {
  try {
    const race = await raceBot(conn, game, level, limit);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  } catch (e) {
    toast(`Could not start a race with a bot: ${errText(e)}`, "error");
  }
}

export async function askRematch(raceId) {
  try {
    const race = await rematch(conn, raceId);
    app.rematchOffer = null;
    setBanner(null);
    // a practice's new deal waits for its "I'm ready", which takes the focus (the Rematch button is gone)
    if (race.seats === 1 && race.status === "lobby") app.focusReady = race.race;
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  } catch (e) {
    toast(`No rematch: ${errText(e)}`, "error");
  }
}

export async function takeRematch(offer) {
  try {
    const race = await acceptRematch(conn, offer.rematch, offer.invite);
    app.rematchOffer = null;
    setBanner(null);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  } catch (e) {
    app.rematchOffer = null;
    setBanner(null);
    toast(`Could not join the rematch: ${errText(e)}`, "error");
  }
}

/** Whether the page at hand is the race an offer is for: its result panel shows the offer. */
function onOffersRace(offer) {
  return app.route.kind === "race" && app.raceId === offer.race;
}

export function renderRematchBanner() {
  const offer = app.rematchOffer;
  if (!offer || onOffersRace(offer)) return;
  setBanner(
    h(
      "div",
      { class: "queue rematch-offer" },
      // one flex item: the mark beside the name, not spaced off by the banner's gap
      h("span", {}, offer.name, nameMarks(h, { account: offer.account, player: offer.by }), " offers a rematch."),
      h("button", { class: "btn small primary", id: "accept-rematch-banner", onclick: () => takeRematch(offer) }, "Accept"),
      " ",
      h("button", { class: "btn small ghost", onclick: () => ((app.rematchOffer = null), setBanner(null)) }, "No thanks"),
    ),
  );
}

/** At a route change: an offer's banner gives way on its race's page (the result panel has the
 *  offer) and comes back elsewhere while the offer stands, unless another banner holds the place. */
export function routeRematchBanner() {
  const banner = document.getElementById("banner");
  const offer = app.rematchOffer;
  if (!banner) return;
  if (banner.querySelector(".rematch-offer")) {
    if (!offer || onOffersRace(offer)) setBanner(null);
  } else if (offer && banner.hidden) renderRematchBanner();
}
