"""``dataclasses`` imported with its ``inspect`` put off (issue 26): still every dataclass's."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from orch_tui.core.util.dataclasses_first import import_dataclasses

import_dataclasses()
print("inspect" in sys.modules, "dataclasses" in sys.modules)
from dataclasses import dataclass, fields

@dataclass
class Plain:
    x: int
    y: str = "a"

print(Plain.__doc__, "inspect" in sys.modules, type(sys.modules["inspect"]).__name__)
import inspect
print(inspect.signature(Plain), [f.name for f in fields(Plain(1))], inspect is sys.modules["inspect"])
import dataclasses
print(dataclasses.inspect is inspect)
"""


def test_inspect_is_imported_when_dataclasses_first_reads_it_and_is_the_real_module() -> None:
    """An undocumented ``@dataclass`` gets its signature as its docstring, as always; only then
    is ``inspect`` imported, as the real module, the one everyone else imports."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == [
        "False True",
        "Plain(x: int, y: str = 'a') True module",
        "(x: int, y: str = 'a') -> None ['x', 'y'] True",
        "True",
    ]


def test_nothing_is_put_off_once_inspect_is_imported() -> None:
    script = (
        "import inspect, sys\n"
        "from orch_tui.core.util.dataclasses_first import import_dataclasses\n"
        "import_dataclasses()\n"
        "import dataclasses\n"
        "print(dataclasses.inspect is inspect)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["True"]
