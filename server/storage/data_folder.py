"""The data folder of the private redis-server (storage/embedded_redis.py): its files are the
owner's alone (they hold every seed in play, the daily secret, password hashes), its password
lives there, and one server at a time may use it (a lock)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import secrets
from pathlib import Path

log = logging.getLogger("solrace.redis")

LOCK_NAME = "solrace.lock"
#: The private redis-server's password, in its data folder (readable by its owner only): any
#: local user can reach 127.0.0.1, and Redis holds the seeds of races in play and session
#: tokens. The same password for the folder's life, so an operator's redis-cli can use it.
PASSWORD_NAME = "redis.pass"
#: A config file beside it that sets the password: on redis-server's command line it would be
#: in every user's process list.
AUTH_CONF_NAME = "redis-auth.conf"
#: What redis-server writes in the data folder: the AOF (a file, or Redis 7's folder of them),
#: an RDB, rewrite temporaries. They hold every seed in play, the daily secret and password
#: hashes, so they are the owner's alone (`private_folder`).
REDIS_FILES = ("*.aof", "*.rdb", "appendonlydir", "temp-*")
#: The password's files, the owner's alone as well: left readable (made by hand, copied, an older
#: solrace), any local user could read the password.
SECRET_FILES = (PASSWORD_NAME, AUTH_CONF_NAME)


#: The free space a data folder needs for the private redis-server to be (re)started: thousands
#: of moves (`Supervisor`; a start that fails with less says the disk is full).
MIN_FREE_BYTES = 1 << 20


def free_bytes(folder: str | os.PathLike[str]) -> int | None:
    """The space free in `folder` for an ordinary user (`df`'s Avail; None: unknown).

    Root's redis-server may write past it, into the blocks a filesystem keeps back, but how
    many of those even root may use the kernel does not say: the free space ordinary users
    see is the one figure that means the same on every filesystem."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_frsize * st.f_bavail


def private_folder(data_dir: str | os.PathLike[str]) -> Path:
    """Make `data_dir` if missing (0700) and take group and other access off Redis' files in it.

    A folder made here is its owner's alone. One that already exists keeps its mode (it may
    be an operator's, e.g. a volume's mount point), but the files Redis left in it before (an
    older solrace wrote them 0644) are tightened: redis-server is started with umask 077
    (`EmbeddedRedis.start`), so what it writes from now on is 0600 anyway.
    """
    folder = Path(data_dir)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        why = "it is a file, not a folder" if exc.errno == errno.EEXIST else exc.strerror or str(exc)
        raise DataFolderError(
            f"cannot use {folder} as the data folder ({why}): pick another --data"
        ) from None
    for pattern in (*REDIS_FILES, *SECRET_FILES):
        for path in folder.glob(pattern):
            tighten(path)
            if path.is_dir() and not path.is_symlink():
                for inner in path.iterdir():
                    tighten(inner)
    return folder


def tighten(path: Path) -> None:
    """Take group and other access off `path` (it stays as it is if it is not ours)."""
    with contextlib.suppress(OSError):
        mode = path.lstat().st_mode
        if mode & 0o077 and not path.is_symlink():
            path.chmod(mode & 0o700)
            log.warning("took group and other access off %s (it holds race data or Redis' password)", path)


def private_password(data_dir: str | os.PathLike[str]) -> str:
    """The password of the private redis-server of `data_dir`: DATA/redis.pass, made (0600) once."""
    path = private_folder(data_dir) / PASSWORD_NAME
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    password = secrets.token_hex(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(password + "\n")
    return password


class DataFolderError(OSError):
    """The data folder cannot be made or used (an OSError: `solrace serve` says it in one line)."""


class DataFolderInUse(OSError):
    """Another server holds the data folder (an OSError: `solrace serve` says it in one line)."""


def lock_data_folder(data_dir: str | os.PathLike[str]) -> int:
    """Lock `data_dir` for this process: an exclusive `flock` on its `solrace.lock`, held until exit.

    Returns the locked file descriptor (pass it to children that must keep the
    lock while they live, as the private redis-server does). Raises
    `DataFolderInUse`, naming the holder's pid, when another process has it.
    """
    folder = private_folder(Path(data_dir).resolve())
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
            raise
        raise DataFolderInUse(
            f"the data folder {folder} is in use by another solrace serve (pid {holder}): "
            "stop it, or pick another --data"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd
