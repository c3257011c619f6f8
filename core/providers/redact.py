"""Keys taken out of text a server sends back before it is shown or stored.

A server's error message can echo the key it refused (``invalid x-api-key: sk-ant-…``); that
text goes into ``state.json``, the event log and the screen. Every :class:`ModelError` passes
its text through :func:`redact`, which replaces the keys the providers were given
(:func:`register_secret`), the values of key-like variables in the environment, and anything
shaped like a key or a bearer token.
"""

from __future__ import annotations

import os
import re

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
"""Shorter values are not taken for keys: replacing them would garble ordinary words."""

_KEY_SHAPES = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{12,}"  # Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…) keys
    r"|(?i:\bbearer\s+)[A-Za-z0-9._\-~+/=]{12,}"
    r"|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"  # AWS access key ids
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
)
_SECRET_NAMES = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|^AWS_", re.IGNORECASE)
_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a key a provider was given, so no message shows it."""
    if value and len(value) >= MIN_SECRET_CHARS:
        _registered.add(value)


def _secrets() -> list[str]:
    found = set(_registered)
    found.update(
        value
        for name, value in os.environ.items()
        if _SECRET_NAMES.search(name) and len(value) >= MIN_SECRET_CHARS
    )
    return sorted(found, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every known key and anything shaped like one replaced by ``[redacted]``."""
    for secret in _secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)
