"""The Ray engine's task in place (``--workspace``) on a node that cannot see the batch folder,
and its events' way back to the driver when the queue is gone."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.batch.ray_engine import EXIT_NOT_HERE, _forwarding, run_in_place
from orch_tui.core.batch.run_one import RunTask


class Sink:
    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, item: Any) -> None:
        self.items.append(item)


class DeadSink:
    def put(self, item: Any) -> None:
        raise RuntimeError("the actor died")


def test_a_task_in_place_on_a_node_without_the_folder_says_which_node(tmp_path: Path) -> None:
    task = RunTask("one", tmp_path / "elsewhere" / "one", ())
    sink = Sink()

    assert run_in_place(task, sink) == (EXIT_NOT_HERE, socket.gethostname())
    assert not (tmp_path / "elsewhere").exists()  # nothing was made or started there
    assert sink.items == []


def test_events_go_to_the_sink_tagged_with_the_run_and_a_dead_sink_does_not_stop_the_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sink = Sink()
    _forwarding(sink, "alpha")({"event": "run_started"})
    assert sink.items == [("alpha", {"event": "run_started"})]

    with caplog.at_level(logging.WARNING):
        _forwarding(DeadSink(), "beta")({"event": "model_turn"})  # must not raise
    assert "beta's events are not forwarded" in caplog.text
