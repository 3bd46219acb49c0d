// How to play (#howto=GAME): each game's layout, moves and goal in plain
// words, a legend of its pile groups (also shown under the board in a race),
// and a small position the reader can play, checked by the browser's copy of
// the rules engine.
import { Board } from "./board.js";
import { GAMES, GAME_IDS, gameName } from "./games.js";
import { position } from "./rules.js";
import { boardPileText, groupLabelText, moveText } from "./words.js";
import { parseView } from "./cards.js";

/** Per game: what each pile group is for, keyed by the group's first pile. */
export const LEGENDS = {
  "racing-aces": {
    f0: "build up from an Ace to the King, any suit",
    f4: "build down from a Six to the Ace, any suit",
    f8: "build up from a Seven to the King, any suit",
    f12: "build down from a King to the Ace, any suit",
    r0: "13 open cards each; only the top card plays; nothing goes back",
    t0: "one card each; an emptied spot is refilled from the stock",
    s: "click to turn the next card onto the waste (one pass)",
    w: "its top card plays",
  },
  "double-aces-and-kings": {
    f0: "build up from an Ace to the King, any suit",
    f8: "build down from a King to the Ace, any suit",
    r0: "13 open cards each; only the top card plays; nothing goes back",
    t0: "one card each; an emptied spot stays empty until you fill it",
    s: "click to turn the next card onto the waste (one pass)",
    w: "its top card plays",
  },
  "rouge-et-noir": {
    f0: "build up from an Ace in one colour; the first two piles are a pair, the last two another, and a pair starts with one red and one black Ace",
    f4: "take only a complete run King down to Ace in alternating colours",
    t0: "build down in alternating colours; move runs; only a King (or a run led by one) fills a gap",
    s: "click to deal one card onto every tableau pile",
  },
  "fours-up": {
    f0: "start on the 4s; build up in suit, King then Ace, 2 and 3",
    t0: "build down from King to 4, any suit; runs move together; a gap takes anything",
    s: "click to turn the next card onto the waste (one pass)",
    w: "its top card plays",
  },
};

/** [group label, what it is for] for a game's legend, in board order. */
export function legendOf(game) {
  const g = GAMES[game];
  const text = LEGENDS[game] || {};
  const out = [];
  for (const col of (g && g.cols) || []) {
    for (const row of col) {
      for (const group of row) {
        const t = text[group.piles[0]];
        if (t) out.push([groupLabelText(group), t]); // as the board labels the group
      }
    }
  }
  return out;
}

const PAGES = {
  "racing-aces": {
    intro: "A race to put three decks — 156 cards — onto sixteen foundations. Everything you may play is face up from the start; the stock feeds the tableau.",
    layout: [
      "Sixteen foundations in four groups of four: Aces build up A, 2 … K; Sixes build down 6, 5 … A; Sevens build up 7, 8 … K; Kings build down K, Q … A. Suits do not matter.",
      "Three reserves of 13 face-up cards, fanned so you can read them all. Only the top card of a reserve plays, and nothing is ever put back on a reserve.",
      "Six tableau spots of one card each, and the stock with its waste.",
    ],
    moves: [
      "Move one card at a time: the top card of a reserve, the waste, a tableau spot or even a foundation, onto any foundation that takes it — whatever its group.",
      "When a tableau spot empties, the next stock card fills it at once. Once the stock is gone, an empty spot takes any card you put there.",
      "Draw turns the stock's top card onto the waste. There is only one pass through the stock.",
      "Nothing wraps: nothing goes on a King in an upward pile or on an Ace in a downward one.",
    ],
    win: "All 156 cards on the foundations.",
    tip: "Plan the reserves: a card buried in a reserve is only free when the cards above it have gone home.",
    example: {
      spec: { f0: "As2h3c", f12: "KdQs", r0: "9c4d", t0: "Jh", s: "8c7h", w: "5s" },
      goal: "Get four more cards home. The 4♦ and 5♠ climb the Aces pile, the J♥ goes on the Queen, and watch the stock refill the tableau spot.",
      done: (g) => g.home >= 9,
    },
  },
  "double-aces-and-kings": {
    intro: "Four decks, 208 cards, and two kinds of foundation: eight build up from Aces and eight build down from Kings.",
    layout: [
      "Eight Aces foundations build up A … K and eight Kings foundations build down K … A, any suit.",
      "Four reserves of 13 face-up cards: only the top card plays, nothing goes back.",
      "Eight tableau spots of one card each, the stock and its waste.",
    ],
    moves: [
      "Move one card at a time: the top card of a reserve, the waste, a tableau spot or a foundation, onto a foundation that takes it.",
      "An emptied tableau spot is not refilled: it stays empty until you put a card there — any card. Use the gaps to dig into the reserves.",
      "Draw turns the stock's top card onto the waste; one pass only.",
    ],
    win: "All 208 cards on the foundations.",
    tip: "Empty spots are precious: park a reserve card there to free the one beneath it.",
    example: {
      spec: { f0: "Ah2c", f8: "KsQh", r0: "Jd3s", t1: "4h", s: "9d", w: "Jc" },
      goal: "Put three more cards home: the 3♠ and the 4♥ on the Aces, the J♣ on the Queen. The emptied tableau spot stays empty.",
      done: (g) => g.home >= 7,
    },
  },
  "rouge-et-noir": {
    intro: "Two decks and a tableau that hides its cards face down, like Klondike. Build in alternating colours, move whole runs, and send complete King-to-Ace runs home.",
    layout: [
      "Four colour foundations in two pairs (the first two, the last two) build up from an Ace in one colour: red on red, black on black.",
      "Four sequence foundations take only a complete run from King down to Ace in alternating colours.",
      "Ten tableau piles of 8, 7, 6, 5, 4, 3, 2, 1, 1 and 0 cards: only the top card is face up. There is no waste.",
    ],
    moves: [
      "On the tableau, build down by one in alternating colour (a red 8 on a black 9). A run — cards in that order — moves as one.",
      "Only a King, or a run led by a King, goes into an empty tableau pile.",
      "A top card goes to a colour foundation of its colour. An Ace may start a pile only if the other pile of its pair is empty or starts with an Ace of the other colour.",
      "When a face-down card is uncovered it turns face up.",
      "Draw deals one stock card onto every tableau pile, empty ones included, until the stock runs out.",
    ],
    win: "All 104 cards home: 52 on the colour foundations and four complete runs on the sequence foundations.",
    tip: "Before drawing, make every move you want: a draw covers every pile.",
    example: {
      spec: { f0: "Ad", t0: "~3c8h", t1: "~4s9c", t2: "2d", t3: "Ac", t4: "Td" },
      goal: "Put the 2♦ on the A♦, start the second pile of the pair with the A♣, put the 8♥ on the 9♣ (a card turns face up), then move the run 9♣ 8♥ onto the 10♦.",
      done: (g) => g.home >= 3 && g.piles[g.def.index.t4].length === 3,
    },
  },
  "fours-up": {
    intro: "Two decks whose eight 4s start on the foundations. Build each foundation up in suit, round the corner from King to Ace, and stop at the 3.",
    layout: [
      "Eight foundations, each starting on a 4: they build up in suit, 5, 6 … King, then Ace, 2, 3. A 3 ends the pile.",
      "Six tableau piles of one card each, the stock and its waste.",
    ],
    moves: [
      "On the tableau, a card goes on one rank higher, any suit, from King down to 4: nothing goes on a 4, 3, 2 or Ace.",
      "A run of such cards moves as one. An empty pile takes any card or run; it is not refilled.",
      "The waste's top card goes to a foundation or the tableau; a tableau top card goes to a foundation.",
      "A foundation's top card, even the 4 it started on, may move back to the tableau or to another foundation that takes it.",
      "Draw turns the stock's top card onto the waste; one pass only.",
    ],
    win: "All 104 cards on the foundations.",
    tip: "Aces, 2s and 3s can never rest on a tableau card: keep an empty pile for them.",
    example: {
      spec: { f0: "4c5c6c", f1: "4d", t0: "9h8s7c", t1: "Tc", t2: "5d", s: "Ks", w: "" },
      goal: "Send the 7♣ and the 5♦ home, then move the run 9♥ 8♠ onto the 10♣.",
      done: (g) => g.home >= 6 && g.piles[g.def.index.t1].length === 3,
    },
  },
};

export class HowtoPage {
  /** ctx: {h, $} */
  constructor(ctx) {
    this.ctx = ctx;
    this.board = null;
    this.game = GAME_IDS[0];
  }

  leave() {
    if (this.board) this.board.destroy();
    this.board = null;
  }

  open(game) {
    this.leave();
    this.game = PAGES[game] ? game : GAME_IDS[0];
    this.example = position(this.game, PAGES[this.game].example.spec);
    this.played = [];
    this.render();
  }

  render() {
    const { h, $ } = this.ctx;
    const main = $("#main");
    if (!main || document.body.dataset.route !== "howto") return;
    this.leave();
    const page = PAGES[this.game];
    const g = GAMES[this.game];
    const tabs = h(
      "nav",
      { class: "tabs" },
      GAME_IDS.map((id) => h("a", { class: `tab ${id === this.game ? "on" : ""}`, href: `#howto=${id}`, dataset: { game: id } }, gameName(id))),
    );
    const list = (items) => h("ul", {}, items.map((x) => h("li", {}, x)));
    main.replaceChildren(
      h(
        "div",
        { class: "howto", id: "howto", dataset: { game: this.game } },
        h("div", { class: "daily-bar" }, h("h1", {}, "How to play"), tabs),
        h(
          "section",
          { class: "panel howto-try" },
          h("h2", {}, `${g.name} — try it`),
          h("p", { id: "howto-goal" }, page.example.goal),
          h("div", { id: "howto-board" }),
          h("p", { id: "howto-status", class: "muted", "aria-live": "polite" }),
          h("div", { class: "result-actions" }, h("button", { class: "btn small", id: "howto-reset", onclick: () => this.open(this.game) }, "Start again")),
        ),
        h(
          "div",
          { class: "howto-grid" },
          h("section", { class: "panel" }, h("h2", {}, g.name), h("p", {}, page.intro), h("p", { class: "muted small" }, `${g.decks} decks · ${g.total} cards`), h("h3", {}, "Layout"), list(page.layout)),
          h("section", { class: "panel" }, h("h3", {}, "Moves"), list(page.moves), h("h3", {}, "Goal"), h("p", {}, page.win), h("h3", {}, "Tip"), h("p", {}, page.tip)),
          h("section", { class: "panel" }, h("h3", {}, "The piles"), legendEl(h, this.game), h("h3", {}, "Playing here"), list(PLAYING)),
        ),
        h("p", { class: "center" }, h("a", { class: "btn primary", href: "#/" }, "Race it in the lobby")),
      ),
    );
    this.board = new Board($("#howto-board"), { interactive: true, onMove: (m) => this.move(m), maxCard: 84 });
    this.draw();
  }

  draw() {
    const g = this.example;
    const done = PAGES[this.game].example.done(g);
    this.board.set(g.viewText(), done ? [] : g.legalMoves());
    const status = document.getElementById("howto-status");
    if (!status) return;
    const last = this.played[this.played.length - 1];
    status.className = done ? "good" : "muted";
    status.textContent = done
      ? `✔ Well done — that is the game. ${this.played.length} moves, ${g.home} cards home.`
      : last
        ? `You moved ${last}. ${g.home} cards home.`
        : "Click (or tap) a card, then where it goes — or drag it. Glowing piles take the selected card.";
  }

  async move(m) {
    const before = parseView(this.example.viewText());
    this.example.play(m);
    // the piles as the board above labels them ("Kings foundation 1", not "foundation 13")
    this.played.push(moveText(m, (pile) => before.piles[pile], (pile) => boardPileText(this.game, pile)));
    this.draw();
  }
}

const PLAYING = [
  "Click or tap a card to select it (in the tableau, click a card inside a pile to take the run from there up); the piles that take it glow. Click one to move. You can also drag.",
  "Double-click (or double-tap) a card to send it home when a foundation takes it.",
  "Click the stock, or press Space or D, to draw.",
  "With the keyboard: Tab (Shift+Tab back) goes from pile to pile, and ↑ ↓ from card to card inside a tableau pile. Enter selects the card, then Enter on a glowing pile moves it there; H sends the card home; Esc drops the selection.",
  "“Finish my game” stops your game and keeps the cards you have home.",
];

export function legendEl(h, game) {
  return h(
    "dl",
    { class: "legend-list" },
    legendOf(game).flatMap(([label, text]) => [h("dt", {}, label), h("dd", {}, text)]),
  );
}
