// Mouse and finger input on an interactive Board (mixed into its class by board.js): click to
// select then click a destination, drag a card or run there, a double-click sends a card home.
import { cardEl } from "./cards.js";
import { announce } from "./dom.js";

// Two clicks (or taps) on one card within this time are a double-click. A page cannot read the
// platform's own setting; half a second is the usual default (Windows, GTK, Chromium's own).
const DOUBLE_CLICK_MS = 500;

const sameCard = (a, b) => !!a && !!b && a.pile === b.pile && a.idx === b.idx;

/** Board methods (Object.assign'd to Board.prototype). */
export const pointerInput = {
  bindPointer() {
    // Touch: a face-up card has touch-action: none (no page pan under a finger on it;
    // the rest of the board pans up and down, app.css) and the board captures the pointer,
    // so a drag keeps its events wherever the finger goes; a cancelled pointer (the
    // browser took the gesture: a swipe from a gap) drops the drag cleanly.
    this.root.addEventListener("pointerdown", (e) => this.onDown(e));
    this.root.addEventListener("pointermove", (e) => this.onMoveEv(e));
    this.root.addEventListener("pointerup", (e) => this.onUp(e));
    this.root.addEventListener("pointercancel", (e) => this.onCancel(e));
    this.root.addEventListener("lostpointercapture", (e) => this.onCancel(e));
    // A real mouse never gets here (see `taps`); the browser's dblclick of two taps still does.
    this.root.addEventListener("dblclick", (e) => this.onDbl(e));
  },

  hit(target) {
    const pileEl = target && target.closest ? target.closest(".pile") : null;
    if (!pileEl || !this.root.contains(pileEl)) return null;
    const cardE = target.closest(".card");
    const idx = cardE && cardE.dataset.idx !== undefined ? parseInt(cardE.dataset.idx, 10) : null;
    return { pile: pileEl.dataset.pile, idx, pileEl, cardE };
  },

  onDown(e) {
    if (e.button !== 0 || !e.isPrimary) return;
    if (this.drag) this.dropDrag();
    const h = this.hit(e.target);
    this.drag = { id: e.pointerId, x: e.clientX, y: e.clientY, h, moved: false, ghost: null };
    try {
      this.root.setPointerCapture(e.pointerId);
    } catch (err) {
      /* a synthetic pointer without a capture target */
    }
  },

  /** Forget a drag in progress: no ghost left on screen, no selection. */
  dropDrag() {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    if (d.ghost) d.ghost.remove();
    if (d.moved) {
      this.sel = null;
      this.render();
    }
  },

  onCancel(e) {
    if (!this.drag || this.drag.id !== e.pointerId) return;
    // lostpointercapture also follows a normal pointerup, which has already ended the drag
    this.dropDrag();
  },

  onMoveEv(e) {
    const d = this.drag;
    if (!d || d.id !== e.pointerId || !d.h || d.h.idx === null) return;
    if (!d.moved) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 6) return;
      const len = (this.view.piles[d.h.pile] || []).length;
      const k = len - d.h.idx;
      if (!this.movesFrom(d.h.pile, k).length) return;
      d.moved = true;
      this.sel = { pile: d.h.pile, k };
      this.render();
      d.ghost = this.makeGhost(d.h.pile, d.h.idx);
      const r = this.root.querySelector(`.pile[data-pile="${d.h.pile}"] .card[data-idx="${d.h.idx}"]`);
      const box = r ? r.getBoundingClientRect() : { left: e.clientX, top: e.clientY };
      d.dx = e.clientX - box.left;
      d.dy = e.clientY - box.top;
    }
    if (d.ghost) {
      d.ghost.style.left = `${e.clientX - d.dx}px`;
      d.ghost.style.top = `${e.clientY - d.dy}px`;
    }
  },

  makeGhost(pile, idx) {
    const ghost = document.createElement("div");
    ghost.className = "drag-ghost";
    ghost.style.setProperty("--cw", `${this.cw}px`);
    ghost.style.setProperty("--ch", `${this.ch}px`);
    const cards = this.view.piles[pile].slice(idx);
    cards.forEach((code, i) => {
      const c = cardEl(code);
      c.style.top = `${Math.round(i * 0.36 * this.cw)}px`;
      ghost.appendChild(c);
    });
    document.body.appendChild(ghost);
    this.root.querySelectorAll(`.pile[data-pile="${pile}"] .selected`).forEach((c) => c.classList.add("lifted"));
    return ghost;
  },

  onUp(e) {
    const d = this.drag;
    if (!d || d.id !== e.pointerId) return;
    this.drag = null;
    const tap = d.moved || !d.h ? null : { pile: d.h.pile, idx: d.h.idx, at: e.timeStamp };
    this.taps = [this.taps[1], tap];
    if (d.moved) {
      if (d.ghost) d.ghost.remove();
      const under = document.elementFromPoint(e.clientX, e.clientY);
      const h = this.hit(under);
      const targets = this.targets();
      if (h && targets.has(h.pile)) {
        this.play(targets.get(h.pile));
      } else {
        this.sel = null;
        this.render();
      }
      return;
    }
    if (!d.h) return;
    const [first] = this.taps;
    if (sameCard(first, tap) && tap.at - first.at <= DOUBLE_CLICK_MS && this.sendHome(d.h.pile, d.h.idx)) return;
    this.click(d.h);
  },

  click(h) {
    if (this.busy) return;
    const targets = this.targets();
    if (this.sel && targets.has(h.pile)) {
      this.play(targets.get(h.pile));
      return;
    }
    if (h.pile === "s") {
      this.sel = null;
      if (this.legal.draw) this.play("draw");
      else this.render();
      return;
    }
    if (h.idx !== null && h.idx !== undefined) {
      const len = (this.view.piles[h.pile] || []).length;
      const k = len - h.idx;
      if (this.sel && this.sel.pile === h.pile && this.sel.k === k) {
        this.sel = null;
        this.render();
        return;
      }
      if (this.movesFrom(h.pile, k).length) {
        this.sel = { pile: h.pile, k };
        this.render();
        return;
      }
      this.nope(h.cardE);
    }
    if (this.sel) {
      this.sel = null;
      this.render();
    }
  },

  /** Shake a card that cannot do what was asked. */
  nope(cardE) {
    if (!cardE) return;
    announce(`no move for ${cardE.getAttribute("aria-label") || "this card"}`);
    cardE.classList.remove("nope");
    void cardE.offsetWidth;
    cardE.classList.add("nope");
  },

  onDbl(e) {
    // with the pointer captured, the event's target is the board itself
    const h = this.hit(document.elementFromPoint(e.clientX, e.clientY));
    if (!h) return;
    // both clicks on this card: not a tap elsewhere, then one here that only selects (and not a
    // pair the board has already played: `play` forgets the taps)
    if (!this.taps.every((t) => sameCard(t, h))) return;
    this.sendHome(h.pile, h.idx);
  },

  /** What a double-click on a card does: send it home (to the first foundation that takes it),
   *  else play its one move if it has just one. Whether a move was played. */
  sendHome(pile, idx) {
    if (idx === null || idx === undefined || pile === "s" || this.busy) return false;
    const len = (this.view.piles[pile] || []).length;
    const moves = this.movesFrom(pile, len - idx);
    const home = moves.find((m) => m.dst[0] === "f" && m.dst !== pile);
    const pick = home || (moves.length === 1 ? moves[0] : null);
    if (!pick) return false;
    this.play(pick.move);
    return true;
  },
};
