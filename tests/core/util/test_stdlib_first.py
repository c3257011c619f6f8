"""``dataclasses`` and ``pathlib`` imported with a rarely read import put off (issue 26): each
still gets the real module, the one everyone else imports, the first time it reads from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orch_tui.core.util import stdlib_first


def _run(script: str) -> list[str]:
    """What ``script`` prints, run with ``import_stdlib_first`` as its first call, by a fresh
    interpreter without ``site``: an editable install's finder would have imported ``pathlib``."""
    module = Path(stdlib_first.__file__)
    preamble = (
        "import sys\n"
        "first = {'__name__': 'stdlib_first'}\n"
        f"exec(compile(open({str(module)!r}).read(), {str(module)!r}, 'exec'), first)\n"
        "first['import_stdlib_first']()\n"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", preamble + script], capture_output=True, text=True, check=True
    )
    return result.stdout.splitlines()


def test_dataclasses_imports_inspect_when_it_first_reads_it_and_gets_the_real_module() -> None:
    """An undocumented ``@dataclass`` gets its signature as its docstring, as always; only then
    is ``inspect`` imported, as the real module."""
    script = (
        "print('inspect' in sys.modules, 'dataclasses' in sys.modules)\n"
        "from dataclasses import dataclass, fields\n"
        "@dataclass\n"
        "class Plain:\n"
        "    x: int\n"
        "    y: str = 'a'\n"
        "print(Plain.__doc__, 'inspect' in sys.modules, type(sys.modules['inspect']).__name__)\n"
        "import dataclasses, inspect\n"
        "print(inspect.signature(Plain), [f.name for f in fields(Plain(1))])\n"
        "print(dataclasses.inspect is inspect is sys.modules['inspect'])\n"
    )
    assert _run(script) == [
        "False True",
        "Plain(x: int, y: str = 'a') True module",
        "(x: int, y: str = 'a') -> None ['x', 'y']",
        "True",
    ]


def test_pathlib_imports_urllib_parse_when_a_path_is_first_made_a_uri() -> None:
    script = (
        "from pathlib import Path\n"
        "print('urllib.parse' in sys.modules, 'ipaddress' in sys.modules)\n"
        "print(Path('/tmp/a b/ü').as_uri(), type(sys.modules['urllib.parse']).__name__)\n"
        "import urllib.parse\n"
        "print(urllib.parse is sys.modules['urllib.parse'], urllib.parse.quote('a b'))\n"
    )
    assert _run(script) == [
        "False False",
        "file:///tmp/a%20b/%C3%BC module",
        "True a%20b",
    ]


def test_nothing_is_put_off_once_either_module_is_imported() -> None:
    script = (
        "import inspect, urllib.parse, sys\n"
        "from orch_tui.core.util.stdlib_first import import_stdlib_first\n"
        "import_stdlib_first()\n"
        "import dataclasses, pathlib\n"
        "print(dataclasses.inspect is inspect, pathlib.urlquote_from_bytes is"
        " urllib.parse.quote_from_bytes)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["True", "True"]
