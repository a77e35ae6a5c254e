"""Raw HTML, compressed and content-addressed, so pages can be re-parsed without a recrawl.

``<root>/<sha[:2]>/<sha>.html.gz``, where sha is the SHA-256 of the body as
served. Writing is atomic (temporary file, then rename) and idempotent: a body
already stored is not written again.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path


class RawStore:
    def __init__(self, root: Path | str):
        self.root = Path(root)
        self._made: set[str] = set()  # fan-out directories known to exist (a mkdir per page is a syscall)

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / f"{digest}.html.gz"

    def put(self, body: bytes) -> str:
        digest = hashlib.sha256(body).hexdigest()
        target = self.path(digest)
        if not target.exists():
            if digest[:2] not in self._made:
                target.parent.mkdir(parents=True, exist_ok=True)
                self._made.add(digest[:2])
            tmp = target.with_name(f".tmp-{digest}-{os.getpid()}")
            # mtime=0 keeps the compressed bytes a function of the body alone.
            tmp.write_bytes(gzip.compress(body, compresslevel=6, mtime=0))
            os.replace(tmp, target)
        return digest

    def get(self, digest: str) -> bytes:
        try:
            return gzip.decompress(self.path(digest).read_bytes())
        except FileNotFoundError:
            raise KeyError(f"raw page {digest} is not in {self.root}") from None

    def __contains__(self, digest: str) -> bool:
        return self.path(digest).exists()
