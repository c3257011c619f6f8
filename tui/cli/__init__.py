"""The command line: argument parsing, the commands and the headless printer (no Textual).

- ``commands``: ``orch-tui``: the command line (DESIGN section 6).
- ``executable``: The ``orch-tui`` executable: the garbage collector waits for start-up to end.
- ``printer``: ``--auto`` output: one line per step, or one JSON event per line with ``--json``.
- ``verify_command``: ``orch-tui verify [--mutation] [--json]``: the checks again on the finished workspace.
"""
