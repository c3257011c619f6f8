"""The prompt templates shipped in ``core/attempt/prompts/`` (package data).

A ``prompts/`` folder beside ``orchestrator.toml`` overrides them file by file: a
``prompts/patch.md`` there replaces the packaged ``patch.md`` and uses the same ``$names``;
a ``$name`` the packaged template does not have is an error naming the file (a misspelt
``$failurs`` would otherwise reach the model as written).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template

_PACKAGED = Path(__file__).with_name("prompts")
"""The packaged templates: read by path, as the themes are, since ``importlib.resources`` (with
the zipfile, bz2 and lzma modules it loads) cost a run's start several milliseconds."""


@cache
def template(name: str) -> Template:
    return Template((_PACKAGED / f"{name}.md").read_text(encoding="utf-8"))


class PromptTemplateError(Exception):
    """A template in ``prompts/`` that cannot be filled in; the message names the file."""


def render(name: str, folder: Path | None = None, **values: object) -> str:
    """Template ``name`` filled in: ``folder/<name>.md`` when it exists, else the packaged one.

    :class:`PromptTemplateError` for an override with a placeholder the packaged one lacks."""
    texts = {key: str(value) for key, value in values.items()}
    override = folder / f"{name}.md" if folder is not None else None
    if override is not None and override.is_file():
        problem = override_problem(override)
        if problem:
            raise PromptTemplateError(problem)
        return Template(override.read_text(encoding="utf-8")).safe_substitute(texts)
    return template(name).substitute(texts)


def override_problem(path: Path) -> str | None:
    """What is wrong with the override ``path`` (``prompts/<name>.md``), or None: a
    placeholder the packaged template does not fill, or a ``$`` that starts none."""
    try:
        packaged = template(path.stem)
    except FileNotFoundError:
        return None  # not a prompt orch-tui reads: a note of the person's
    try:
        override = Template(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read the prompt template {path}: {exc}"
    if not override.is_valid():
        return (
            f"the prompt template {path} has a $ that starts no placeholder "
            "(write $$ for a dollar sign)"
        )
    known = packaged.get_identifiers()
    unknown = [name for name in override.get_identifiers() if name not in known]
    if not unknown:
        return None
    return (
        f"the prompt template {path} uses {', '.join('$' + n for n in unknown)}, which "
        f"{path.stem}.md does not fill; it can use {', '.join('$' + n for n in known) or 'none'}"
    )


def override_problems(folder: Path) -> list[str]:
    """:func:`override_problem` of every template in ``folder`` (``prompts/``)."""
    found = sorted(folder.glob("*.md")) if folder.is_dir() else []
    return [problem for path in found if (problem := override_problem(path))]
