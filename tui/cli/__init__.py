"""The command line: argument parsing, the commands and the headless printer (no Textual).

- ``commands``: ``orch-tui``: the command line (DESIGN section 6): ``main`` and the subcommands' dispatch.
- ``executable``: The ``orch-tui`` executable: the garbage collector waits for start-up to end.
- ``parse``: Argument parsing: the run's options, each subcommand's, and which subcommand was named.
- ``spec_run``: ``orch-tui SPEC``: the review screen on a terminal, or ``--auto`` headless.
- ``run``: Running a spec: ``--auto`` headless with the printer, and opening a run for the review screen.
- ``resume_hint``: The command that resumes a stopped run: the one given, less ``--fresh`` and a spent ``--guidance``.
- ``state_commands``: The subcommands about the project and its run: status, reset, restore.
- ``doctor_command``: ``orch-tui doctor``: the project's readiness, one line a check (``core.doctor``).
- ``history_command``: ``orch-tui history``: the browser, the runs as text, an export, the costs.
- ``failing``: Failing with a message: ``fail`` and ``Refused``, with nothing of the project loaded.
- ``shared``: What the commands share: the project's paths and config, its lock (and ``failing``'s).
- ``printer``: ``--auto`` output: one line per step, or one JSON event per line with ``--json``.
- ``batch_command``: ``orch-tui batch``: many specs at once, each its own headless run in its own folder.
- ``__main__``: ``python -m orch_tui.tui.cli``: the ``orch-tui`` executable by module (batch workers use it).
- ``inbox_command``: ``orch-tui inbox``: the batch runs that finished and wait for a person.
- ``verify_command``: ``orch-tui verify [--mutation] [--json]``: the checks again on the finished workspace.
"""
