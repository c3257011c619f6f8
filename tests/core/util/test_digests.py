"""The digests a run's start takes without OpenSSL are hashlib's, byte for byte."""

from __future__ import annotations

import hashlib

import pytest

from orch_tui.core.util import digests

DATA = [b"", b"abc", "spec é\n".encode(), bytes(range(256)) * 300]


@pytest.mark.parametrize("data", DATA)
def test_the_digests_are_hashlibs(data: bytes) -> None:
    assert digests.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert digests.blake2b_16(data) == hashlib.blake2b(data, digest_size=16).digest()
    fed = digests.sha256()
    fed.update(data)
    fed.update(b"\0")
    assert fed.hexdigest() == hashlib.sha256(data + b"\0").hexdigest()


def test_without_cpythons_own_modules_hashlib_is_taken() -> None:
    assert digests._builtin(("no_such_module",), "sha256") is hashlib.sha256
