"""SHA-256 and BLAKE2b digests without loading OpenSSL at a run's start.

``hashlib`` loads ``_hashlib``, OpenSSL's libcrypto, as it is imported: ~3–4 ms of every
command's start (issue 26) for the spec's digest and the trial copies' tag. CPython's own
implementations (``_sha2``, ``_sha256`` before Python 3.12, ``_blake2``) give the same digests;
``hashlib`` is the fallback on a build without them.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hashlib import _Hash


def _builtin(names: tuple[str, ...], attribute: str) -> Any:
    """``attribute`` of the first of ``names`` that imports, else ``hashlib``'s."""
    for name in names:
        try:
            return getattr(importlib.import_module(name), attribute)
        except (ImportError, AttributeError):
            continue
    return getattr(importlib.import_module("hashlib"), attribute)


_SHA256 = _builtin(("_sha2", "_sha256"), "sha256")


def sha256(data: bytes = b"") -> _Hash:
    """A SHA-256 hash object, as ``hashlib.sha256(data)``: fed with ``update``."""
    hashed: _Hash = _SHA256(data)
    return hashed


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of ``data`` in hexadecimal, as ``hashlib.sha256(data).hexdigest()``."""
    return str(_SHA256(data).hexdigest())


def blake2b_16(data: bytes) -> bytes:
    """The 16-byte BLAKE2b digest of ``data``, as ``hashlib.blake2b(data, digest_size=16)``."""
    return bytes(_blake2b()(data, digest_size=16).digest())


@functools.cache
def _blake2b() -> Any:
    """BLAKE2b, loaded when first asked for: only outlining a workspace's files needs it."""
    return _builtin(("_blake2",), "blake2b")
