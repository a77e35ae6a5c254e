"""Where the crawler may send a request: the configured site's hosts, and nothing else.

Every request goes through :class:`HostPolicy` — followed links, redirects, robots.txt and the
reachability check — so a page cannot send the crawler elsewhere (``302 Location:
http://169.254.169.254/...``). A host may be in the allowlist and still resolve to a private,
loopback or link-local address (DNS pointing a public name inward): such a request is refused
unless the site itself was configured as a non-public address, as the bundled mirror on
127.0.0.1 is. Each refusal has a reason, which the crawl records.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit


class Refused(Exception):
    """A request the policy does not allow; ``kind`` names the rule, the message says why."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def host_port(url: str) -> str:
    """``host:port`` of a URL with the scheme's default port made explicit, lower case.

    Raises ValueError for a URL whose host or port cannot be read (``http://[::1``).
    """
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower(), 0)
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}"


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


@lru_cache(maxsize=1024)
def _addresses(host: str) -> tuple[str, ...]:
    """The addresses a host name resolves to (cached for the process); () when it does not resolve."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return (host.strip("[]"),)
    except ValueError:
        pass
    try:
        return tuple(sorted({info[4][0] for info in socket.getaddrinfo(host, None)}))
    except (OSError, UnicodeError):
        return ()


def is_private_host(host: str) -> bool:
    """True when ``host`` is, or resolves to, a non-public address (localhost, 10.x, 169.254.x …).

    A name that does not resolve is not private: its request fails on its own, with a DNS error.
    """
    return any(not _public(a) for a in _addresses(host.lower().strip("[]")))


def _host_of(key: str) -> str:
    """The host of an allowlist entry: ``host``, ``host:port`` or ``[v6]:port``."""
    if key.startswith("["):
        return key[1:key.index("]")] if "]" in key else key
    return key.rsplit(":", 1)[0] if key.count(":") == 1 else key


@dataclass
class HostPolicy:
    """The hosts a crawl may request, as ``host:port`` or bare hosts (then any port of the scheme).

    ``allow_private`` is decided from the configured site: True when the site is itself on a
    non-public address (the mirror, a local copy); then requests to the allowed hosts are never
    refused for their address.
    """

    allowed: list[str]
    allow_private: bool | None = None  # None: decided from the allowed hosts
    _hosts: set[str] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self):
        self._hosts = {h.strip().lower() for h in self.allowed if h.strip()}
        if self.allow_private is None:
            self.allow_private = any(is_private_host(_host_of(h)) for h in self._hosts)

    def refusal(self, url: str) -> Refused | None:
        """Why ``url`` may not be requested, or None when it may."""
        try:
            scheme = urlsplit(url).scheme.lower()
            key = host_port(url)
        except ValueError as exc:
            return Refused("invalid_url", f"{url[:200]}: not a valid URL ({exc})")
        if scheme not in ("http", "https"):
            return Refused("scheme", f"{url[:200]}: only http and https are fetched")
        host, port = key.rsplit(":", 1)
        # A bare host in the allowlist stands for its default ports only.
        if key not in self._hosts and not (host in self._hosts and port in ("80", "443")):
            return Refused("offsite", f"{url[:200]}: {key} is not one of the site's hosts "
                                      f"({', '.join(sorted(self._hosts))})")
        if not self.allow_private and is_private_host(host):
            addresses = ", ".join(_addresses(host.strip("[]"))) or "unresolved"
            return Refused("private_address", f"{url[:200]}: {host} resolves to a non-public address "
                                              f"({addresses})")
        return None

    def check(self, url: str) -> None:
        refused = self.refusal(url)
        if refused is not None:
            raise refused
