"""Writing ``orchestrator.toml``: the commented default (``orch-tui init``)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import asdict, fields, is_dataclass
from pathlib import Path
from typing import Any

import tomli_w

from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.models import Config
from orch_tui.core.util.atomic import write_text_atomic

_HEADER = """\
# orch-tui configuration. Every key is optional: the values below are the defaults.
# Paths are relative to the folder holding this file. Docs: README.md, "Configuration".
"""


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):  # an inline table: tomli-w would write a table of its own
        items = ", ".join(f"{_toml_key(key)} = {_toml_value(item)}" for key, item in value.items())
        return f"{{ {items} }}" if items else "{}"
    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _toml_key(key: str) -> str:
    return tomli_w.dumps({key: 0}).rsplit("=", 1)[0].strip()


def _comment(text: str | None) -> list[str]:
    return [f"# {line}".rstrip() for line in (text or "").splitlines()]


def field_docstrings(model: type) -> dict[str, str]:
    """The docstring under each field of ``model``'s class body, by field name."""
    try:
        source = textwrap.dedent(inspect.getsource(model))
    except (OSError, TypeError):  # no source shipped: the file gets no comments
        return {}
    (body,) = ast.parse(source).body
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for field, after in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[field.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _section_lines(name: str, section: Any, doc: str | None) -> list[str]:
    lines = ["", *_comment(doc), f"[{name}]"]
    docs = field_docstrings(type(section))
    for key in (field.name for field in fields(section)):
        value = getattr(section, key)
        lines += _comment(docs.get(key))
        if value is None:
            lines.append(f"# {key} =")
        else:
            dumped = [asdict(item) for item in value] if _dataclasses(value) else value
            lines.append(f"{key} = {_toml_value(dumped)}")
    return lines


def _dataclasses(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and is_dataclass(value[0])


def default_config_text() -> str:
    """The commented default configuration, generated from the models' docstrings."""
    config = Config()
    docs = field_docstrings(Config)
    lines = [_HEADER.rstrip()]
    for name in (field.name for field in fields(Config)):
        value = getattr(config, name)
        if is_dataclass(value):
            lines += _section_lines(name, value, docs.get(name))
    lines += ["", *_comment(docs.get("prices"))]
    for model_id, price in config.prices.items():
        lines.append(f'[prices."{model_id}"]')
        lines += [f"{key} = {_toml_value(val)}" for key, val in asdict(price).items()]
    return "\n".join(lines) + "\n"


def write_default_config(path: Path) -> None:
    """``orch-tui init``: refuses to overwrite an existing file."""
    if path.exists():
        raise ConfigError(f"{path} already exists; remove it first to write the default")
    write_text_atomic(path, default_config_text())
