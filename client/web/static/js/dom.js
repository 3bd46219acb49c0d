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

/** A page's box for passing notes, if it shows one: `data-notes="side"` under the side buttons
 *  (the race and watch pages'), `"board"` above the board, which the CSS shows on phones only
 *  (there the side panel lies under a board that can be taller than the screen). */
function notesBox(which) {
  const box = $(`#main [data-notes="${which}"]`);
  if (!box || box.closest("[hidden]")) return null;
  // the side box is display:none while empty; the board box only where it is not used
  return which === "side" || getComputedStyle(box).display !== "none" ? box : null;
}

/** A passing note (returned): `content` is a string, or an array of strings and elements (a marked name).
 *  `kind`: its classes ("info", "good", "warn", "error"; more after a space). It goes to `into`,
 *  else to the page's notes box (on a phone the one above the board, where the player looks;
 *  else the one under the side buttons: a note at the screen's bottom lay over the buttons and
 *  the board's cards), else over the bottom of the screen. */
export function toast(content, kind = "info", ms = 3500, into = null) {
  const t = h("div", { class: `toast ${kind}` }, content);
  const box = into || notesBox("board") || notesBox("side");
  if (!box) {
    fading(t, $("#toasts"), ms);
    return t;
  }
  const trim = () => {
    while (box.children.length > NOTES_SHOWN) box.firstElementChild.remove();
  };
  if (box.dataset.notes !== "board") {
    fading(t, box, ms);
    trim();
    return t;
  }
  // Above the board: it stays where it is on screen while notes come and go (a card under a
  // finger stays under it), and a note is brought into sight when the player sees the board's
  // top; one scrolled further down a tall board keeps their place.
  const boardTopSeen = box.getBoundingClientRect().bottom >= visibleTop() - 1; // (scrolled to a fraction of a pixel)
  keepBelowStill(box, () => {
    // (between taps: near the page's top the box keeps the room a note leaves, keepBelowStill)
    fading(t, box, ms, (remove) => whenStill(() => keepBelowStill(box, remove)));
    trim();
  });
  // (by hand, not scrollIntoView: that would bring it under a header that sticks)
  const bringIn = () => {
    const hidden = visibleTop() - t.getBoundingClientRect().top;
    if (t.isConnected && !t.classList.contains("gone") && hidden > 0) window.scrollBy(0, -hidden);
  };
  if (boardTopSeen) whenStill(bringIn);
  return t;
}

/** A note answering a press of a button (a hint, "Link copied", a refused finish): in the notes
 *  box nearest that button, scrolled into sight (reveal). */
export function answer(content, kind = "info", ms = 3500) {
  // (Safari focuses no button it clicks or taps: then the last thing pressed)
  const focused = document.activeElement !== document.body ? document.activeElement : null;
  const pressed = focused || (lastPressed && lastPressed.isConnected ? lastPressed : null);
  const boxes = [notesBox("board"), notesBox("side")].filter(Boolean);
  // (an empty box is not drawn: it would show under what comes before it)
  const place = (box) => (box.getClientRects().length || !box.previousElementSibling ? box : box.previousElementSibling).getBoundingClientRect();
  const away = (box) => (pressed ? Math.abs(place(box).bottom - pressed.getBoundingClientRect().bottom) : 0);
  boxes.sort((a, b) => away(a) - away(b));
  return reveal(toast(content, kind, ms, boxes[0] || null));
}

/** A note that answers a press of a button above it (a hint, "Link copied"): scrolled into sight
 *  if it is in the page's flow and the button was at the screen's bottom edge (a phone's). */
export function reveal(note) {
  if (note && note.isConnected && note.closest("[data-notes]")) note.scrollIntoView({ block: "nearest" });
  return note;
}

/** Where the page's visible part starts: under the header where it sticks (wider screens). */
function visibleTop() {
  const top = $("header.top");
  const pos = top ? getComputedStyle(top).position : "";
  return pos === "sticky" || pos === "fixed" ? Math.max(0, top.getBoundingClientRect().bottom) : 0;
}

/** `change` (notes added to or taken from a box above the board) done with what follows the box
 *  left where it was on screen: the page scrolls by what the box grew or shrank (the browser's
 *  own scroll anchoring may have done it: then this scrolls by nothing). Near the page's top the
 *  page cannot scroll up by all the box shrank: the box keeps that room, empty (the next note
 *  takes it), until the player scrolls it out of sight (giveRoomBack). */
function keepBelowStill(box, change) {
  const before = box.getBoundingClientRect().bottom;
  const kept = box.offsetHeight - window.scrollY; // as low as the box can go with the page scrolled up to its top
  change();
  box.style.removeProperty("min-height");
  if (box.offsetHeight < kept) {
    box.style.setProperty("min-height", `${kept}px`);
    giveRoomBack(box);
  }
  // as much room under the page as the notes take over the board: near the page's end it could
  // not scroll by what they grew
  const page = box.closest(".race-page");
  if (page) page.style.setProperty("--notes-room", `${box.offsetHeight}px`);
  const moved = box.getBoundingClientRect().bottom - before;
  if (moved) window.scrollBy(0, moved);
}

// Notes boxes that keep room (keepBelowStill), watched for the player's scroll
const keeping = new WeakSet();

/** The room `box` keeps given back once the player has scrolled it, and all above it, out of
 *  sight (at the scroll's end: the page scrolls up by as much, and nothing seen moves). */
function giveRoomBack(box) {
  if (keeping.has(box)) return;
  keeping.add(box);
  let idle = 0;
  const stop = () => {
    keeping.delete(box);
    window.removeEventListener(ending, onScroll);
  };
  const check = () => {
    if (!box.isConnected || !box.style.minHeight) return void stop();
    if (box.getBoundingClientRect().bottom > visibleTop() + 1) return;
    whenStill(() => {
      if (box.isConnected && box.style.minHeight && box.getBoundingClientRect().bottom <= visibleTop() + 1) keepBelowStill(box, () => {});
      if (!box.isConnected || !box.style.minHeight) stop();
    });
  };
  // (no scrollend in older Safaris: a pause in the scroll events, after a flick's glide too)
  const ending = "onscrollend" in window ? "scrollend" : "scroll";
  const onScroll = ending === "scrollend" ? check : () => {
    clearTimeout(idle);
    idle = setTimeout(check, 150);
  };
  window.addEventListener(ending, onScroll);
}

// Pointers down on the page now: while one is (a tap, a drag), or a card is selected for a
// tap-then-tap move, the page is not scrolled under the player's finger.
const pointersDown = new Set();
let lastPressed = null; // what the last pointer pressed (answer)
document.addEventListener(
  "pointerdown",
  (e) => {
    pointersDown.add(e.pointerId);
    lastPressed = e.target instanceof Element ? e.target : null;
  },
  true,
);
for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, (e) => pointersDown.delete(e.pointerId), true);

/** `fn` run now if the player is not moving a card, else once they are done (after the board
 *  has handled the release). */
function whenStill(fn) {
  if (!pointersDown.size && !$("#main .card.selected")) return void fn();
  const again = () => {
    for (const type of ["pointerup", "pointercancel", "keyup"]) document.removeEventListener(type, again);
    setTimeout(() => whenStill(fn), 0);
  };
  for (const type of ["pointerup", "pointercancel", "keyup"]) document.addEventListener(type, again);
}

/** `t` shown in `box` for `ms`, then faded out and removed (through `removing`, given the removal). */
function fading(t, box, ms, removing = (remove) => remove()) {
  box.appendChild(t);
  setTimeout(() => t.classList.add("gone"), ms);
  setTimeout(() => t.isConnected && removing(() => t.remove()), ms + 400);
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
  const done = () => answer("Link copied", "good", 1500);
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => prompt("Copy this link", link));
  else prompt("Copy this link", link);
}
