"""The Ray engine's task in place (``--workspace``) on a node that cannot see the batch folder."""

from __future__ import annotations

import socket
from pathlib import Path

from orch_tui.core.batch.ray_engine import EXIT_NOT_HERE, run_in_place
from orch_tui.core.batch.run_one import RunTask


def test_a_task_in_place_on_a_node_without_the_folder_says_which_node(tmp_path: Path) -> None:
    task = RunTask("one", tmp_path / "elsewhere" / "one", ())

    assert run_in_place(task) == (EXIT_NOT_HERE, socket.gethostname())
    assert not (tmp_path / "elsewhere").exists()  # nothing was made or started there
