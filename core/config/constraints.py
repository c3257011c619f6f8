"""The config fields' bounds and checks, as marks pydantic reads only when it validates.

The config's classes are plain dataclasses, so that a run whose config is plainly valid builds
them without importing pydantic (:mod:`orch_tui.core.config.plain`). Their fields carry these
marks in ``Annotated``; each becomes pydantic's own constraint or validator when a
``TypeAdapter`` is built (:mod:`orch_tui.core.config.checked`), so the checks and their error
messages are pydantic's, while importing this module loads neither pydantic nor
``annotated_types`` (20 ms on their own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema


class _Bound:
    """A number on one side of ``bound``; :attr:`relation` names the ``annotated_types``
    constraint pydantic checks it with."""

    relation = ""

    def __init__(self, bound: float) -> None:
        self.bound = bound

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        import annotated_types

        constraint = getattr(annotated_types, self.relation)(self.bound)
        return handler.generate_schema(Annotated[source, constraint])


class AtLeast(_Bound):
    """A number no smaller than ``bound`` (pydantic's ``ge``)."""

    relation = "Ge"


class Above(_Bound):
    """A number larger than ``bound`` (pydantic's ``gt``)."""

    relation = "Gt"


class _Wrapped:
    """A function pydantic runs around the field's own validation: after it when
    :attr:`after`, else before it."""

    after = True

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        wrap = (
            core_schema.no_info_after_validator_function
            if self.after
            else core_schema.no_info_before_validator_function
        )
        return wrap(self.function, handler(source))


class Checked(_Wrapped):
    """A value that, once of its type, passes the function, which returns it or raises
    ValueError with the sentence the error shows (pydantic's after-validator)."""


class Prepared(_Wrapped):
    """A value passed through the function before it is validated (pydantic's
    before-validator)."""

    after = False
