"""``orch-tui history``: the history browser, the runs as text without a terminal, one run
exported as Markdown, and the costs per day and model."""

from __future__ import annotations

import sys
from pathlib import Path

from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.loop.exit_codes import EXIT_SUCCESS
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.tui.cli.failing import fail
from orch_tui.tui.cli.parse import run_parser
from orch_tui.tui.cli.spec_run import run_spec


def history(paths: ProjectPaths, config: Config, export: str | None, chain: bool = False) -> int:
    if export:
        from orch_tui.core.history.chain_export import export_chain_markdown
        from orch_tui.core.history.detail import HistoryError
        from orch_tui.core.history.export import export_markdown

        report = export_chain_markdown if chain else export_markdown
        try:
            sys.stdout.write(report(paths.logs, export))
        except HistoryError as exc:
            return fail(str(exc))
        return EXIT_SUCCESS
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        return _print_runs(paths)
    from orch_tui.tui.app import run_history_app

    try:
        chosen = run_history_app(paths, config)
    except ConfigError as exc:
        return fail(str(exc))
    if chosen is None:
        return EXIT_SUCCESS
    spec = Path(chosen.spec_path)
    argv = [str(spec if spec.is_absolute() else paths.root / spec)]
    if paths.config.is_file():
        argv += ["--config", str(paths.config)]
    return run_spec(run_parser().parse_args(argv))


def _print_runs(paths: ProjectPaths) -> int:
    """``orch-tui history`` without a terminal: the runs list as tab-separated lines, each
    led by the run's id (what ``history --export`` and ``--script logs/<run_id>`` take)."""
    from orch_tui.core.history.index import list_runs
    from orch_tui.core.history.resume import mark_resumable
    from orch_tui.tui.widgets.run_columns import RUN_COLUMNS, cell_texts

    print("\t".join(["Run", *(column.heading for column in RUN_COLUMNS)]))
    for run in mark_resumable(list_runs(paths.logs), paths.state):
        cells = [run.run_id, *cell_texts(run)]
        print("\t".join(escape_controls(text).replace("\t", " ") for text in cells))
    return EXIT_SUCCESS
