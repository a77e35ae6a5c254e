"""Password hashes of review accounts: Argon2id (argon2-cffi), with the scrypt form of older accounts.

Each Argon2id hash or verification holds its memory (64 MiB with argon2-cffi's defaults) while it runs,
so a burst of logins must not run them all at once: at most ``AT_ONCE`` run together in a process and
the rest wait their turn. Memory then stays bounded however many wrong passwords arrive together.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from functools import lru_cache

AT_ONCE = 2  # hashes computed together: 2 x 64 MiB at most, and a login still waits only for one other
_turns = threading.BoundedSemaphore(AT_ONCE)


def hash_password(password: str) -> str:
    """An Argon2id hash in its standard PHC string ($argon2id$v=19$m=…), argon2-cffi's defaults (RFC 9106's
    low-memory profile)."""
    with _turns:
        return _hasher().hash(password)


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` hashes: an Argon2 hash, or the scrypt form that accounts made
    before Argon2 hold (``scrypt$n$r$p$salt$digest``) until their next login rehashes them."""
    with _turns:
        if stored.startswith("scrypt$"):
            return _check_scrypt(password, stored)
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return _hasher().verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False


def needs_rehash(stored: str) -> bool:
    return stored.startswith("scrypt$") or _hasher().check_needs_rehash(stored)


@lru_cache(maxsize=1)
def decoy() -> str:
    """A hash to check a password against when the name is unknown (as slow as a real one)."""
    return hash_password(secrets.token_urlsafe(16))


@lru_cache(maxsize=1)
def _hasher():
    from argon2 import PasswordHasher

    return PasswordHasher()


def _check_scrypt(password: str, stored: str) -> bool:
    try:
        _, n, r, p, salt, digest = stored.split("$")
        again = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                               maxmem=64 * 2 ** 20, dklen=32)
    except ValueError:
        return False
    return hmac.compare_digest(again.hex(), digest)
