// The games: names, blurbs and board layouts, as the server serves them at
// /games.json from the engine's own definitions (protocol/rules/facts.py), so
// the browser, the terminal client and the bots show the same facts.
//
// A layout (`cols`) is a list of columns side by side; a column is a list of
// rows; a row is a list of groups; a group has a label
// and piles drawn side by side with one "fan":
//   top   — only the top card is drawn (foundations), with a count badge
//   down  — cards overlap downward so every card is readable (tableau, reserves)
//   stock — the card back with the count of cards left; clicking draws
//   waste — the top card with the count of cards under it

async function load() {
  const response = await fetch(new URL("/games.json", location.href));
  if (!response.ok) throw new Error(`/games.json: ${response.status}`);
  return response.json();
}

export const GAMES = await load();

export const GAME_IDS = Object.keys(GAMES);

export function gameName(id) {
  return (GAMES[id] && GAMES[id].name) || id;
}
