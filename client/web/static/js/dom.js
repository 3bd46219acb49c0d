// The small DOM helpers every page uses: h() builds an element, $() finds one, toast() and the
// banner tell the player something, fmtClock() writes a duration the way the race clock shows it.

export const $ = (sel, root = document) => root.querySelector(sel);

export function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    // Through the CSSOM, never a `style` attribute: the Content-Security-Policy refuses inline
    // style attributes (style-src without 'unsafe-inline'), not properties set from a script.
    else if (k === "style") {
      if (typeof v !== "object") throw new TypeError("h(): give style as {property: value}");
      for (const [prop, val] of Object.entries(v)) el.style.setProperty(prop, String(val));
    }
    else if (k === "html") el.innerHTML = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

// What the browser itself gives keys to: typing into a field, or Space/Enter pressing a
// button, link, disclosure or a card (role=button). A page-wide key shortcut leaves these alone.
const TYPED = "input, select, textarea, [contenteditable='true']";
const PRESSED = "button, a[href], summary, [role='button']";

/** Whether a key on `target` belongs to it rather than to a page shortcut: any key in a field,
 *  Space (and Enter) on something a press activates. */
export function keyForTarget(e) {
  const t = e.target && e.target.closest ? e.target : null;
  if (!t) return false;
  if (t.closest(TYPED)) return true;
  return (e.key === " " || e.key === "Enter") && !!t.closest(PRESSED);
}

/** Say `text` to a screen reader (a polite live region, never drawn): what the eye gets from
 *  motion or colour (the countdown, a card that shakes, the result). The same text twice in a
 *  row is said again. */
export function announce(text) {
  const say = $("#say");
  if (!say) return;
  say.textContent = say.textContent === text ? text + "\u00a0" : text;
}

// A page's notes box shows the newest few: more would push the last ones out of a wide screen's
// sticky side panel.
const NOTES_SHOWN = 2;

/** The page's own box for passing notes (`data-notes`: the race page's, under its side buttons),
 *  if it shows one; else null, and notes go to the fixed box at the screen's bottom. */
function notesBox() {
  const box = $("#main [data-notes]");
  return box && !box.closest("[hidden]") ? box : null;
}

/** A passing note (returned): `content` is a string, or an array of strings and elements (a marked name).
 *  `kind`: its classes ("info", "good", "warn", "error"; more after a space). It goes to `into`,
 *  else to the page's notes box (the race page's, in the side panel's flow under its buttons: at
 *  the screen's bottom, on a phone, a note lay over the buttons and the board), else over the
 *  bottom of the screen. */
export function toast(content, kind = "info", ms = 3500, into = null) {
  const t = h("div", { class: `toast ${kind}` }, content);
  const box = into || notesBox();
  fading(t, box || $("#toasts"), ms);
  if (box) while (box.children.length > NOTES_SHOWN) box.firstElementChild.remove();
  return t;
}

/** A note that answers a press of a button above it (a hint, "Link copied"): scrolled into sight
 *  if it is in the page's flow and the button was at the screen's bottom edge (a phone's). The
 *  notes nobody asked for (a rival's finish) leave the page where the player has it. */
export function reveal(note) {
  if (note && note.isConnected && note.closest("[data-notes]")) note.scrollIntoView({ block: "nearest" });
}

/** `t` shown in `box` for `ms`, then faded out and removed. */
function fading(t, box, ms) {
  box.appendChild(t);
  setTimeout(() => t.classList.add("gone"), ms);
  setTimeout(() => t.remove(), ms + 400);
}

/** The banner under the header (quick-match queue, rematch offer, a race over elsewhere); null hides it. */
export function setBanner(content) {
  const b = $("#banner");
  if (!content) {
    b.hidden = true;
    b.replaceChildren();
    return;
  }
  b.hidden = false;
  b.replaceChildren(content);
}

export function fmtClock(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return "–:––";
  const neg = ms < 0;
  let s = Math.floor(Math.abs(ms) / 1000);
  const hh = Math.floor(s / 3600);
  s -= hh * 3600;
  const mm = Math.floor(s / 60);
  const ss = s - mm * 60;
  const body = hh ? `${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}` : `${mm}:${String(ss).padStart(2, "0")}`;
  return (neg ? "-" : "") + body;
}

export function copyLink(link) {
  const done = () => reveal(toast("Link copied", "good", 1500));
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => prompt("Copy this link", link));
  else prompt("Copy this link", link);
}
