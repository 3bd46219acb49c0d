"""Terminal clients: `solrace play`, `solrace watch` and `solrace arena` (textual).

* ``board``   — plain functions: parse view texts, lay out every game's piles on
  a character canvas (labels, cards, backs, stock, waste), map clicks to move
  notation, format bars, clocks and rankings. No terminal needed to test.
* ``model``   — ``RaceModel``: one race as seen by a player or spectator,
  updated from the protocol's messages (dicts).
* ``session`` — the ``Session`` interface the apps use, and ``LocalSession``,
  an offline stand-in (rules engine + simulated rivals) for practice and tests.
* ``net``     — ``NetSession`` over the asyncio client library; token file.
* ``widgets``, ``play_app``, ``watch_app`` — thin textual layers; ``browse`` the frame that
  ``watch_app`` and ``arena_app`` share (a list, then one item). ``play_app`` is the race
  screen; ``command_line`` what a line typed there does (and its Tab completion);
  ``menu_flow`` its way in and out (connect, resume a seated race, the menu, start
  the chosen race; the `menu` command, and a finished race's `rematch` and `accept`, a
  rival's offer shown on the menu too); ``race_commands`` and ``race_text`` what it decides
  and says, as plain functions.
* ``arena_view`` (plain functions: the arena list, standings, winners),
  ``arena_net`` (the arena requests through the library) and ``arena_app``
  (list arenas, open one, join, withdraw, berserk, live standings).
* ``menu`` (the play app's first screen, its ``Intent`` in ``intent``), from which
  ``daily_screen`` (today's daily per game, its leaderboard; text in ``daily_text``),
  ``ratings_screen`` (your ratings, a game's rating board; text in ``ratings_text``)
  and ``recent_screen`` ("Your races": your latest races and how to check each; text in
  ``recent_text``) open; ``player_net`` sends their requests through the library.
  ``race_text`` writes the race screen's lobby and result (a rated race's rating change).
* ``account`` — ``solrace play --login``, ``--claim``, ``--logout``, ``--logout-all``,
  ``--password``: the account token in the token file.
"""
