"""Server settings: every limit has a name, a default and a line of docs.

Each setting can be given as a command-line flag (``--max-frame 8192``) or a
``SOLRACE_*`` environment variable (``SOLRACE_MAX_FRAME=8192``); flags win over
the environment, the environment over the defaults. The names in capitals are
the ones docs/protocol.md §7 uses and `welcome.limits` reports.

    settings.py  the settings: names, defaults, docs (a new setting goes here)
    checks.py    what values they may take: RANGES and the other checks
    flags.py     the flags and SOLRACE_* variables
"""

from .checks import RANGES, REDIS_SCHEMES, check_range
from .settings import Settings

__all__ = ["RANGES", "REDIS_SCHEMES", "Settings", "check_range"]
