// Keyboard play on an interactive Board (mixed into its class by board.js): Tab stops, the focus
// kept through redraws, and the keys.
//
// Keys (an interactive board): Tab and Shift+Tab, or ArrowLeft and ArrowRight, go from pile to
// pile (a pile's stop is its top face-up card, or the pile itself when it has none: an empty
// pile, the stock); in a pile whose cards fan down, ArrowUp and ArrowDown move to the face-up
// card above or below (to take a run from there). Enter and Space act as a click on the focused
// card or pile (they press a button: a card is one; Space only in keyboard play: after a mouse
// click it still draws), "h" as a double-click (sends the card home), Escape clears the
// selection. "d", and Space where no button has the focus, are the race page's draw (app.js).
// A click with no pointer (a screen reader pressing a card) is a click too.
import { cardName } from "./cards.js";
import { boardPileText } from "./words.js";

// Whether the last input was a key (not a pointer): the focus ring shows for keyboard play only.
// Not :focus-visible: the board puts the focus back itself after each redraw, and Chromium's
// heuristic for such a focus() then depends on timing (a redraw landing between a click and
// its handler showed the ring after a mouse click).
let keyboardInput = false;
document.addEventListener("keydown", () => (keyboardInput = true), true);
document.addEventListener("pointerdown", () => (keyboardInput = false), true);

/** Board methods (Object.assign'd to Board.prototype). */
export const keyInput = {
  bindKeys() {
    this.root.addEventListener("keydown", (e) => this.onKey(e));
    // Pointers play through pointerdown/up (board_pointer.js); a click event with no pointer
    // behind it (detail 0: a screen reader's or a script's activation) plays as Enter does.
    this.root.addEventListener("click", (e) => {
      if (e.detail !== 0 || getComputedStyle(this.root).pointerEvents === "none") return;
      const h = this.hit(e.target);
      if (h) this.click(h);
    });
    this.root.addEventListener("focusin", () => this.root.classList.toggle("keys", keyboardInput));
    // a click on the card that already has the focus moves no focus (no focusin): the ring goes here
    this.root.addEventListener("pointerdown", () => this.root.classList.remove("keys"), true);
  },

  /** Make a pile reachable by keyboard: its top face-up card is its Tab stop (the pile itself when
   *  it shows none); its other face-up cards are reached with the arrows. Each is named in words. */
  tabStops(pileEl, name, targets) {
    const faces = [...pileEl.querySelectorAll(".card.face[data-idx]")];
    const stop = faces.length ? faces[faces.length - 1] : pileEl;
    const dest = targets.has(name) ? ", takes the selected cards" : "";
    const backs = name === "s" ? 0 : pileEl.querySelectorAll(".card.back").length; // the stock's back is itself
    const under = backs ? `, ${backs} face down` : "";
    const pile = boardPileText(this.view.game, name); // as the hints and replays name it
    for (const c of faces) {
      c.tabIndex = c === stop ? 0 : -1;
      c.setAttribute("role", "button");
      const selected = c.classList.contains("selected") ? ", selected" : "";
      c.setAttribute("aria-label", `${cardName(c.dataset.card)}, ${pile}${c === stop ? under : ""}${selected}${dest}`);
    }
    if (stop !== pileEl) return;
    pileEl.tabIndex = 0;
    pileEl.setAttribute("role", "button");
    const what = name === "s" ? `${this.view.stock} card${this.view.stock === 1 ? "" : "s"}` : "no card to play";
    pileEl.setAttribute("aria-label", `${pile}, ${what}${under}${dest}`);
  },

  /** Where the focus is on this board: {pile, idx (null: the pile itself), top (its Tab stop)}. */
  focusedPlace() {
    const a = document.activeElement;
    if (!a || a === this.root || !this.root.contains(a)) return null;
    const h = this.hit(a);
    if (!h) return null;
    const faces = h.pileEl.querySelectorAll(".card.face[data-idx]");
    const top = h.cardE !== a || a === faces[faces.length - 1];
    return { pile: h.pile, idx: h.cardE === a ? h.idx : null, top };
  },

  /** Focus the same place after a redraw: the same card if it was one below the top and is still
   *  there face up, else the pile's Tab stop (a destination's new top card, a source's next one). */
  restoreFocus(place) {
    const pileEl = this.root.querySelector(`.pile[data-pile="${place.pile}"]`);
    if (!pileEl) return;
    const stop = pileEl.querySelector('[tabindex="0"]') || pileEl;
    const card = place.top ? null : pileEl.querySelector(`.card.face[data-idx="${place.idx}"]`);
    this.focusIn(pileEl, card || stop, { preventScroll: true });
  },

  /** Focus the board's first place to play from: the stock's Tab stop (a draw is where a deal
   *  starts), else the board's first Tab stop. At the start of a race (race_play.js). */
  focusStart() {
    const stock = this.root.querySelector('.pile[data-pile="s"]');
    const stop = stock && stock.tabIndex === 0 ? stock : (stock && stock.querySelector('[tabindex="0"]')) || this.root.querySelector('[tabindex="0"]');
    if (stop) stop.focus({ preventScroll: true });
  },

  /** Focus `el` in its pile, and make it the pile's Tab stop (a roving tabindex). */
  focusIn(pileEl, el, opts) {
    for (const c of pileEl.querySelectorAll('.card[tabindex="0"]')) c.tabIndex = -1;
    el.tabIndex = 0;
    el.focus(opts);
  },

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // offline, the race page takes the pointer off the board (pointer-events: none): keys too
    if (getComputedStyle(this.root).pointerEvents === "none") return;
    const h = this.hit(e.target);
    if (!h) return;
    // Space is a press only in keyboard play (the ring shows): after a mouse click the card
    // keeps the focus, and Space stays the race page's draw (app.js).
    if (e.key === "Enter" || (e.key === " " && this.root.classList.contains("keys"))) {
      e.preventDefault();
      if (!e.repeat) this.click(h);
    } else if (e.key === "h" || e.key === "H") {
      e.preventDefault();
      if (!e.repeat && !this.sendHome(h.pile, h.idx)) this.nope(h.cardE);
    } else if ((e.key === "ArrowUp" || e.key === "ArrowDown") && h.cardE) {
      const next = h.pileEl.querySelector(`.card.face[data-idx="${h.idx + (e.key === "ArrowUp" ? -1 : 1)}"]`);
      if (!next) return;
      e.preventDefault();
      this.focusIn(h.pileEl, next);
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      // pile to pile without a Tab per foundation: the next (or previous) pile's Tab stop
      const stops = [...this.root.querySelectorAll(".pile")]
        .map((p) => (p.tabIndex === 0 ? p : p.querySelector('[tabindex="0"]')))
        .filter(Boolean);
      const at = stops.findIndex((el) => el.closest(".pile") === h.pileEl);
      const next = stops[at + (e.key === "ArrowRight" ? 1 : -1)];
      if (at < 0 || !next) return;
      e.preventDefault();
      next.focus();
    } else if (e.key === "Escape" && this.sel) {
      this.sel = null;
      this.render();
    }
  },
};
