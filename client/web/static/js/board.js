// Draws one player's board from a view text and turns clicks, drags and keys into
// moves in docs/rules.md §1.3 notation, offering only the moves the server listed
// as legal (`legal` from an ack or a resync).
//
// Keys (an interactive board): Tab and Shift+Tab go from pile to pile (a pile's stop is its top
// face-up card, or the pile itself when it has none: an empty pile, the stock); in a pile whose
// cards fan down, ArrowUp and ArrowDown move to the face-up card above or below (to take a run
// from there). Enter acts as a click on the focused card or pile, "h" as a double-click (sends
// the card home), Escape clears the selection. Space and "d" stay the race page's draw (app.js).
import { GAMES } from "./games.js";
import { parseView, cardEl, cardName } from "./cards.js";
import { pileText } from "./words.js";

// Gaps in card widths: between piles of a group, between groups; narrower
// ones when the board would not fit the width otherwise (phones).
const WIDE = { gap: 0.16, group: 0.55 };
const NARROW = { gap: 0.07, group: 0.3 };

// Two clicks (or taps) on one card within this time are a double-click. A page cannot read the
// platform's own setting; half a second is the usual default (Windows, GTK, Chromium's own).
const DOUBLE_CLICK_MS = 500;

const sameCard = (a, b) => !!a && !!b && a.pile === b.pile && a.idx === b.idx;

/** Parse the legal list into {draw, from: Map("src:k" -> [{dst, move}])}. */
export function indexLegal(legal) {
  const idx = { draw: false, from: new Map() };
  for (const m of legal || []) {
    if (m === "draw") {
      idx.draw = true;
      continue;
    }
    const g = /^([a-z]+\d*)(?::(\d+))?>([a-z]+\d*)$/.exec(m);
    if (!g) continue;
    const key = `${g[1]}:${g[2] ? parseInt(g[2], 10) : 1}`;
    if (!idx.from.has(key)) idx.from.set(key, []);
    idx.from.get(key).push({ dst: g[3], move: m });
  }
  return idx;
}

/** A Board's `marks` for one move: its source and destination piles as `${kind}-from` and
 *  `${kind}-to` (a draw marks the stock); none for no move. */
export function moveMarks(move, kind) {
  if (!move) return new Map();
  const m = /^([a-z]+\d*)(?::\d+)?>([a-z]+\d*)$/.exec(move);
  return new Map(m ? [[m[1], `${kind}-from`], [m[2], `${kind}-to`]] : [["s", `${kind}-from`]]);
}

const groupUnits = (g, sp) => g.piles.length + (g.piles.length - 1) * sp.gap;

/** Card widths a row needs; with `wrap`, groups go on lines of their own. */
function rowUnits(row, sp, wrap) {
  if (wrap) return Math.max(...row.map((g) => groupUnits(g, sp)));
  return row.reduce((w, g, i) => w + groupUnits(g, sp) + (i ? sp.group : 0), 0);
}

/** Card widths needed across: columns side by side, or stacked when `stacked`. */
function layoutUnits(game, sp, stacked, wrap) {
  const widths = game.cols.map((col) => Math.max(...col.map((row) => rowUnits(row, sp, wrap))));
  if (stacked) return Math.max(...widths) + 0.3;
  return widths.reduce((a, w, i) => a + w + (i ? sp.group : 0), 0) + 0.3;
}

// Whether the last input was a key (not a pointer): the focus ring shows for keyboard play only.
// Not :focus-visible: the board puts the focus back itself after each redraw, and Chromium's
// heuristic for such a focus() then depends on timing (a redraw landing between a click and
// its handler showed the ring after a mouse click).
let keyboardInput = false;
document.addEventListener("keydown", () => (keyboardInput = true), true);
document.addEventListener("pointerdown", () => (keyboardInput = false), true);

export class Board {
  /**
   * root: element to draw into. opts: {interactive, onMove(move) -> Promise,
   * minCard, maxCard, maxHeight (px, for the tallest column, optional)}
   */
  constructor(root, opts = {}) {
    this.root = root;
    this.opts = { interactive: false, minCard: 30, maxCard: 96, ...opts };
    this.view = null;
    this.legal = indexLegal([]);
    this.sel = null; // {pile, k}
    this.busy = false;
    this.drag = null;
    // The last two taps or clicks, {pile, idx, at} (null for a drag, and forgotten once one plays
    // a move): a double-click is two of them on one card. The board pairs them itself: with a mouse,
    // Chromium sends no dblclick (nor click) at all, as the first click redraws the board and the
    // element it pressed is gone; and with a finger the browser pairs two quick taps a few px apart
    // even on different piles (a destination, then the next card where it was), which must not count.
    this.taps = [null, null];
    this.marks = new Map(); // pile -> class, e.g. the last move's piles in a replay
    this.root.classList.add("board");
    if (this.opts.interactive) {
      this.root.classList.add("interactive-board");
      this.bindPointer();
      this.root.addEventListener("keydown", (e) => this.onKey(e));
      this.root.addEventListener("focusin", () => this.root.classList.toggle("keys", keyboardInput));
      // a click on the card that already has the focus moves no focus (no focusin): the ring goes here
      this.root.addEventListener("pointerdown", () => this.root.classList.remove("keys"), true);
    }
    this.resizeObs = new ResizeObserver(() => {
      const w = this.root.clientWidth;
      if (w && w !== this.lastWidth) this.render();
    });
    this.resizeObs.observe(this.root);
  }

  destroy() {
    this.resizeObs.disconnect();
    this.root.innerHTML = "";
  }

  set(viewText, legal) {
    this.view = parseView(viewText);
    if (legal !== undefined) this.legal = indexLegal(legal);
    if (this.sel && !this.movesFrom(this.sel.pile, this.sel.k).length) this.sel = null;
    this.render();
  }

  setLegal(legal) {
    this.legal = indexLegal(legal);
    this.render();
  }

  movesFrom(pile, k) {
    return this.legal.from.get(`${pile}:${k}`) || [];
  }

  targets() {
    if (!this.sel) return new Map();
    return new Map(this.movesFrom(this.sel.pile, this.sel.k).map((m) => [m.dst, m.move]));
  }

  /**
   * The card width that fits the board's width: the layout's columns side by
   * side, else stacked, else with narrower gaps, else with each row's groups
   * wrapped. Never wider than the board: a phone must not scroll sideways.
   */
  cardWidth() {
    const game = GAMES[this.view.game];
    const width = this.root.clientWidth || 800;
    const tries = [
      [WIDE, false, false],
      [WIDE, true, false],
      [NARROW, true, false],
      [NARROW, true, true],
    ];
    const options = tries.map(([sp, stacked, wrap]) => ({ sp, stacked, wrap, cw: Math.floor(width / layoutUnits(game, sp, stacked, wrap)) }));
    // the most compact layout whose cards are comfortable, else whose cards are readable
    // (wrapping groups makes a tall board), else the widest cards there are
    const compact = options.filter((o) => !o.wrap);
    const pick =
      compact.find((o) => o.cw >= 44) ||
      compact.find((o) => o.cw >= this.opts.minCard) ||
      options[options.length - 1];
    this.stacked = pick.stacked && game.cols.length > 1;
    this.wrap = pick.wrap;
    this.sp = pick.sp;
    const fits = pick.cw;
    return Math.max(Math.min(this.opts.minCard, fits), Math.min(this.opts.maxCard, fits));
  }

  render() {
    if (!this.view) return;
    const game = GAMES[this.view.game];
    if (!game) {
      this.root.textContent = `Unknown game ${this.view.game}`;
      return;
    }
    this.lastWidth = this.root.clientWidth;
    // the elements are all replaced below: where the keyboard focus was, to put it back
    const focus = this.opts.interactive ? this.focusedPlace() : null;
    const cw = this.cardWidth();
    const ch = Math.round(cw * 1.4);
    this.cw = cw;
    this.ch = ch;
    this.root.style.setProperty("--cw", `${cw}px`);
    this.root.style.setProperty("--ch", `${ch}px`);
    const sp = this.sp;
    this.root.style.gap = `${Math.round(cw * sp.group)}px`;
    this.root.dataset.game = this.view.game;
    this.root.classList.toggle("stacked", this.stacked);
    this.root.classList.toggle("wrap", this.wrap);
    const targets = this.targets();
    const frag = document.createDocumentFragment();
    for (const col of game.cols) {
      const colEl = document.createElement("div");
      colEl.className = "col";
      for (const row of col) {
        const rowEl = document.createElement("div");
        rowEl.className = "row";
        rowEl.style.gap = `${Math.round(cw * 0.22)}px ${Math.round(cw * sp.group)}px`;
        for (const group of row) {
          const gEl = document.createElement("div");
          gEl.className = `group fan-${group.fan}`;
          const label = document.createElement("div");
          label.className = "glabel";
          label.textContent = group.label;
          gEl.appendChild(label);
          const piles = document.createElement("div");
          piles.className = "piles";
          piles.style.gap = `${Math.round(cw * sp.gap)}px`;
          for (const name of group.piles) {
            const pileEl = this.pileEl(name, group, game, targets);
            if (this.opts.interactive) this.tabStops(pileEl, name, targets);
            piles.appendChild(pileEl);
          }
          gEl.appendChild(piles);
          rowEl.appendChild(gEl);
        }
        colEl.appendChild(rowEl);
      }
      frag.appendChild(colEl);
    }
    this.root.replaceChildren(frag);
    if (focus) this.restoreFocus(focus);
  }

  /** Make a pile reachable by keyboard: its top face-up card is its Tab stop (the pile itself when
   *  it shows none); its other face-up cards are reached with the arrows. Each is named in words. */
  tabStops(pileEl, name, targets) {
    const faces = [...pileEl.querySelectorAll(".card.face[data-idx]")];
    const stop = faces.length ? faces[faces.length - 1] : pileEl;
    const dest = targets.has(name) ? ", takes the selected cards" : "";
    for (const c of faces) {
      c.tabIndex = c === stop ? 0 : -1;
      c.setAttribute("role", "button");
      const selected = c.classList.contains("selected") ? ", selected" : "";
      c.setAttribute("aria-label", `${cardName(c.dataset.card)}, ${pileText(name)}${selected}${dest}`);
    }
    if (stop !== pileEl) return;
    pileEl.tabIndex = 0;
    pileEl.setAttribute("role", "button");
    const what = name === "s" ? `${this.view.stock} card${this.view.stock === 1 ? "" : "s"}` : "no card to play";
    pileEl.setAttribute("aria-label", `${pileText(name)}, ${what}${dest}`);
  }

  /** Where the focus is on this board: {pile, idx (null: the pile itself), top (its Tab stop)}. */
  focusedPlace() {
    const a = document.activeElement;
    if (!a || a === this.root || !this.root.contains(a)) return null;
    const h = this.hit(a);
    if (!h) return null;
    const faces = h.pileEl.querySelectorAll(".card.face[data-idx]");
    const top = h.cardE !== a || a === faces[faces.length - 1];
    return { pile: h.pile, idx: h.cardE === a ? h.idx : null, top };
  }

  /** Focus the same place after a redraw: the same card if it was one below the top and is still
   *  there face up, else the pile's Tab stop (a destination's new top card, a source's next one). */
  restoreFocus(place) {
    const pileEl = this.root.querySelector(`.pile[data-pile="${place.pile}"]`);
    if (!pileEl) return;
    const stop = pileEl.querySelector('[tabindex="0"]') || pileEl;
    const card = place.top ? null : pileEl.querySelector(`.card.face[data-idx="${place.idx}"]`);
    this.focusIn(pileEl, card || stop, { preventScroll: true });
  }

  /** Focus `el` in its pile, and make it the pile's Tab stop (a roving tabindex). */
  focusIn(pileEl, el, opts) {
    for (const c of pileEl.querySelectorAll('.card[tabindex="0"]')) c.tabIndex = -1;
    el.tabIndex = 0;
    el.focus(opts);
  }

  pileEl(name, group, game, targets) {
    const { cw, ch } = this;
    const el = document.createElement("div");
    el.className = "pile";
    el.dataset.pile = name;
    el.style.width = `${cw}px`;
    if (this.marks.has(name)) el.classList.add(this.marks.get(name));
    if (targets.has(name)) el.classList.add("target");
    if (name === "s") {
      const n = this.view.stock;
      el.style.height = `${ch}px`;
      el.classList.add("stock");
      if (n > 0) {
        const back = cardEl(null);
        back.classList.add("stock-card");
        el.appendChild(back);
      } else {
        el.appendChild(this.slot("∅"));
      }
      const count = document.createElement("div");
      count.className = "count stock-count";
      count.textContent = n;
      el.appendChild(count);
      if (this.legal.draw && this.opts.interactive) el.classList.add("can-draw");
      el.title = `Stock: ${n} card${n === 1 ? "" : "s"}${this.legal.draw ? " — click to draw" : ""}`;
      return el;
    }
    const cards = this.view.piles[name] || [];
    const len = cards.length;
    const selFrom = this.sel && this.sel.pile === name ? len - this.sel.k : -1;
    if (group.fan === "down") {
      // face-down cards peek less than face-up ones; squeeze tall columns
      let up = 0.36 * cw;
      let down = 0.16 * cw;
      const maxH = Math.max(3 * ch, this.opts.maxColumnPx || window.innerHeight * 0.6);
      let h = ch;
      for (let i = 0; i < len - 1; i++) h += cards[i] ? up : down;
      if (h > maxH) {
        const f = (maxH - ch) / (h - ch);
        up *= f;
        down *= f;
        h = maxH;
      }
      const expectH = ch + Math.max(0, (group.expect || 1) - 1) * 0.36 * cw;
      el.style.height = `${Math.ceil(Math.max(h, Math.min(expectH, maxH)))}px`;
      if (!len) el.appendChild(this.slot(game.hints[name] || ""));
      let y = 0;
      cards.forEach((code, i) => {
        const c = cardEl(code);
        c.style.top = `${Math.round(y)}px`;
        c.style.zIndex = i + 1;
        c.dataset.idx = i;
        if (code && this.opts.interactive && this.movesFrom(name, len - i).length) c.classList.add("can");
        if (selFrom >= 0 && i >= selFrom) c.classList.add("selected");
        el.appendChild(c);
        y += code ? up : down;
      });
      return el;
    }
    // top-only piles: foundations and waste
    el.style.height = `${ch}px`;
    if (!len) {
      el.appendChild(this.slot(group.fan === "waste" ? "" : game.hints[name] || ""));
    } else {
      if (len > 1) {
        const under = cardEl(cards[len - 2]);
        under.classList.add("under");
        el.appendChild(under);
      }
      const top = cardEl(cards[len - 1]);
      top.dataset.idx = len - 1;
      if (this.opts.interactive && this.movesFrom(name, 1).length) top.classList.add("can");
      if (selFrom >= 0) top.classList.add("selected");
      el.appendChild(top);
    }
    if (len > 1 || group.fan === "waste") {
      const count = document.createElement("div");
      count.className = "count";
      count.textContent = len;
      el.appendChild(count);
    }
    return el;
  }

  slot(text) {
    const s = document.createElement("div");
    s.className = "slot";
    s.textContent = text;
    return s;
  }

  // ---- interaction -------------------------------------------------------

  bindPointer() {
    // Touch: the board has touch-action: none (no page pan under a finger) and
    // captures the pointer, so a drag keeps its events wherever the finger goes;
    // a cancelled pointer (the browser took the gesture) drops the drag cleanly.
    this.root.addEventListener("pointerdown", (e) => this.onDown(e));
    this.root.addEventListener("pointermove", (e) => this.onMoveEv(e));
    this.root.addEventListener("pointerup", (e) => this.onUp(e));
    this.root.addEventListener("pointercancel", (e) => this.onCancel(e));
    this.root.addEventListener("lostpointercapture", (e) => this.onCancel(e));
    // A real mouse never gets here (see `taps`); the browser's dblclick of two taps still does.
    this.root.addEventListener("dblclick", (e) => this.onDbl(e));
  }

  hit(target) {
    const pileEl = target && target.closest ? target.closest(".pile") : null;
    if (!pileEl || !this.root.contains(pileEl)) return null;
    const cardE = target.closest(".card");
    const idx = cardE && cardE.dataset.idx !== undefined ? parseInt(cardE.dataset.idx, 10) : null;
    return { pile: pileEl.dataset.pile, idx, pileEl, cardE };
  }

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
  }

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
  }

  onCancel(e) {
    if (!this.drag || this.drag.id !== e.pointerId) return;
    // lostpointercapture also follows a normal pointerup, which has already ended the drag
    this.dropDrag();
  }

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
  }

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
  }

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
  }

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
  }

  /** Shake a card that cannot do what was asked. */
  nope(cardE) {
    if (!cardE) return;
    cardE.classList.remove("nope");
    void cardE.offsetWidth;
    cardE.classList.add("nope");
  }

  onDbl(e) {
    // with the pointer captured, the event's target is the board itself
    const h = this.hit(document.elementFromPoint(e.clientX, e.clientY));
    if (!h) return;
    // both clicks on this card: not a tap elsewhere, then one here that only selects (and not a
    // pair the board has already played: `play` forgets the taps)
    if (!this.taps.every((t) => sameCard(t, h))) return;
    this.sendHome(h.pile, h.idx);
  }

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
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // offline, the race page takes the pointer off the board (pointer-events: none): keys too
    if (getComputedStyle(this.root).pointerEvents === "none") return;
    const h = this.hit(e.target);
    if (!h) return;
    if (e.key === "Enter") {
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
    } else if (e.key === "Escape" && this.sel) {
      this.sel = null;
      this.render();
    }
  }

  async play(move) {
    // a click that plays a move is never the first of a double-click
    this.taps = [null, null];
    this.sel = null;
    this.render();
    if (!this.opts.onMove) return;
    this.busy = true;
    this.root.classList.add("busy");
    try {
      await this.opts.onMove(move);
    } finally {
      this.busy = false;
      this.root.classList.remove("busy");
    }
  }
}
