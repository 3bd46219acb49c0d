// The four games: names, blurbs and board layouts (docs/rules.md §2–§5).
//
// A layout (`cols`) is a list of columns side by side; a column is a list of
// rows; a row is a list of groups; a group has a label
// and piles drawn side by side with one "fan":
//   top   — only the top card is drawn (foundations), with a count badge
//   down  — cards overlap downward so every card is readable (tableau, reserves)
//   stock — the card back with the count of cards left; clicking draws
//   waste — the top card with the count of cards under it

const range = (p, a, b) => Array.from({ length: b - a + 1 }, (_, i) => `${p}${a + i}`);

export const GAMES = {
  "racing-aces": {
    name: "Racing Aces",
    decks: 3,
    total: 156,
    blurb: "Three decks. Sixteen foundations in four groups — Aces and Sevens build up, Sixes and Kings build down, any suit. Three open reserves, six one-card tableau spots refilled from the stock.",
    hints: Object.fromEntries([
      ...range("f", 0, 3).map((p) => [p, "A"]),
      ...range("f", 4, 7).map((p) => [p, "6"]),
      ...range("f", 8, 11).map((p) => [p, "7"]),
      ...range("f", 12, 15).map((p) => [p, "K"]),
    ]),
    cols: [
      [[{ label: "Reserves", piles: range("r", 0, 2), fan: "down", expect: 13 }]],
      [
        [
          { label: "Aces ↑ A→K", piles: range("f", 0, 3), fan: "top" },
          { label: "Sixes ↓ 6→A", piles: range("f", 4, 7), fan: "top" },
        ],
        [
          { label: "Sevens ↑ 7→K", piles: range("f", 8, 11), fan: "top" },
          { label: "Kings ↓ K→A", piles: range("f", 12, 15), fan: "top" },
        ],
        [
          { label: "Tableau", piles: range("t", 0, 5), fan: "down", expect: 1 },
          { label: "Stock", piles: ["s"], fan: "stock" },
          { label: "Waste", piles: ["w"], fan: "waste" },
        ],
      ],
    ],
  },
  "double-aces-and-kings": {
    name: "Double Aces and Kings",
    decks: 4,
    total: 208,
    blurb: "Four decks. Eight Aces foundations build up and eight Kings foundations build down, any suit. Four open reserves and eight tableau spots — no refill: fill gaps yourself.",
    hints: Object.fromEntries([...range("f", 0, 7).map((p) => [p, "A"]), ...range("f", 8, 15).map((p) => [p, "K"])]),
    cols: [
      [
        [
          { label: "Stock", piles: ["s"], fan: "stock" },
          { label: "Waste", piles: ["w"], fan: "waste" },
        ],
        [{ label: "Reserves", piles: range("r", 0, 3), fan: "down", expect: 13 }],
      ],
      [
        [{ label: "Aces ↑ A→K", piles: range("f", 0, 7), fan: "top" }],
        [{ label: "Kings ↓ K→A", piles: range("f", 8, 15), fan: "top" }],
        [{ label: "Tableau", piles: range("t", 0, 7), fan: "down", expect: 1 }],
      ],
    ],
  },
  "rouge-et-noir": {
    name: "Rouge et Noir",
    decks: 2,
    total: 104,
    blurb: "Two decks. Build the tableau down in alternating colours and move runs. Colour foundations build up in one colour; complete K…A runs go to the sequence foundations. Each draw deals a card to every column.",
    hints: { f0: "A", f1: "A", f2: "A", f3: "A", f4: "K…A", f5: "K…A", f6: "K…A", f7: "K…A" },
    cols: [[
      [
        { label: "Colour ↑ A→K (pairs f0·f1, f2·f3)", piles: range("f", 0, 3), fan: "top" },
        { label: "Sequences K…A", piles: range("f", 4, 7), fan: "top" },
        { label: "Stock", piles: ["s"], fan: "stock" },
      ],
      [{ label: "Tableau", piles: range("t", 0, 9), fan: "down", expect: 12 }],
    ]],
  },
  "fours-up": {
    name: "Fours Up",
    decks: 2,
    total: 104,
    blurb: "Two decks. Eight foundations start on the 4s and build up in suit, wrapping K→A→2→3. Tableau builds down K…4, any suit; runs move together.",
    hints: Object.fromEntries(range("f", 0, 7).map((p) => [p, "4"])),
    cols: [[
      [{ label: "Foundations 4→K→A→3, in suit", piles: range("f", 0, 7), fan: "top" }],
      [
        { label: "Tableau", piles: range("t", 0, 5), fan: "down", expect: 10 },
        { label: "Stock", piles: ["s"], fan: "stock" },
        { label: "Waste", piles: ["w"], fan: "waste" },
      ],
    ]],
  },
};

export const GAME_IDS = Object.keys(GAMES);

export function gameName(id) {
  return (GAMES[id] && GAMES[id].name) || id;
}
