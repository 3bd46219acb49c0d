"""The race core: the rules of running races, as plain code over plain data (no I/O).

Each function takes what happened (a request, a typed reply of the move
script, a published event's head, the clock) and returns what must be done
(a new race, events in version order, frames, recipients, the next timer);
server/handlers and server/service.py do it. Tested alone in tests/server/core.

``races``        the race record and its lifecycle, one front for the four below:
  ``record``       the data: `Race`, `Player`, the statuses, `RaceError`
  ``lobby``        before the start: create, join, leave, ready, the host's start
  ``lifecycle``    the clock's due step (each player's own deadline), the start, the end and its
                   ranking rows, key lifetimes
  ``race_views``   the race snapshot, the race list entry, the published proof
``transitions``  the clock's start and end as data: new race, events, player records, next timer
``checks``       request checks that need no race (game, seats, time limit, seat limit)
``privacy``      who may see, join, spectate a race: players, invite holders, daily attempts
``rated``        rated races: seats with their login session, entrants, when to re-check one
``recent``       a player's recent races: the entry a finished race leaves for each player, its kind
``moves``        the move path's decisions: the cached game, fast or slow path, acks and refusals
``room``         one race on this process: event order, who receives what, its timer
``spectators``   spectator boards: sampling and the delay
``deal_track``   a player's game with each card numbered by its place in the deal (for spectators)
``race_list``    the race list: which indexed races show, which leave the index
``presence``     who waits in a public lobby: the list's filter, the away clock, the release
``gap_fill``     after a pub/sub reconnect: what a room missed, the retries
``frames``       the progress event, built in one place
``session``      a connection's session: its player and where it takes part
``hello``        hello's decisions: resume or create, the new-session limit, what it rejoins
"""
