"""``python -m orch_tui.tui.cli``: the ``orch-tui`` executable by module (batch workers use it)."""

from orch_tui.tui.cli.executable import main

main()
