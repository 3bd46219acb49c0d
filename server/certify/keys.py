"""The Redis keys of server/certify.

=============================  ======  ================================================
key                            type    contents
=============================  ======  ================================================
``certify:pool:GAME``          list    certified deals ready to deal, one JSON map each:
                                       ``seed``, ``line`` (the solver's winning line, a
                                       list of moves); taken with LPOP, so one entry is
                                       dealt once
``certify:analysis:RACE``      string  the `analysis` reply's players (JSON) of a finished
                                       race; lives as long as a finished race
``certify:daily:GAME:DATE``    string  the certified daily seed's index k and line (JSON)
=============================  ======  ================================================
"""

from __future__ import annotations


def pool(game: str) -> str:
    return "certify:pool:" + game


def analysis(race: str) -> str:
    return "certify:analysis:" + race


def daily(game: str, date: str) -> str:
    return f"certify:daily:{game}:{date}"
