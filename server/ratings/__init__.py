"""Accounts, ratings per game, matchmaking by rating.

Layout
------
``accounts``       names, password rules, argon2id hashing, login attempt buckets (pure)
``rating``         openskill (Weng–Lin Plackett–Luce) updates, provisional, displayed
                   rating, the fairness rule against farming (pure)
``matchmaking``    forming races from a pool of waiting players by rating (pure)
``keys``           the Redis key layout (hash tags: one slot per operation)
``scripts``        the Lua scripts (apply a rated race once, compare-and-set, claim)
``accounts_store`` ``Accounts``: claim, login, sessions, password change (Redis)
``store``          ``Ratings``: rated races exactly once, ratings, histories, leaderboards (Redis)
``pool``           ``Pool``: the rated quick-match pool in Redis, formed by any process
``common``         small helpers of the Redis-backed modules (clock, reply text, JSON)

The request handlers call ``Accounts``, ``Ratings`` and ``Pool``.

docs/ratings.md explains the choices and the numbers.
"""

from __future__ import annotations

from .accounts import (
    ACCOUNT_POLICY,
    ADDRESS_POLICY,
    PASSWORD_POLICY,
    AccountError,
    Bucket,
    Decision,
    LoginPolicy,
    check_name,
    check_password,
    hash_password,
    name_key,
    verify_password,
)
from .accounts_store import Account, Accounts, Login, Session
from .matchmaking import Curve, Waiting, form_races, window
from .pool import Pool
from .rating import NEW, Entrant, Rating, RatingError, display, fairness_weights, pair_weight, rate_race
from .store import PlayerChange, RaceOutcome, Ratings

__all__ = [
    "ACCOUNT_POLICY",
    "ADDRESS_POLICY",
    "Account",
    "AccountError",
    "Accounts",
    "Bucket",
    "Curve",
    "Decision",
    "Entrant",
    "Login",
    "LoginPolicy",
    "NEW",
    "PASSWORD_POLICY",
    "PlayerChange",
    "Pool",
    "RaceOutcome",
    "Rating",
    "RatingError",
    "Ratings",
    "Session",
    "Waiting",
    "check_name",
    "check_password",
    "display",
    "fairness_weights",
    "form_races",
    "hash_password",
    "name_key",
    "pair_weight",
    "rate_race",
    "verify_password",
    "window",
]
