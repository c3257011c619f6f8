"""The exit codes of a run (DESIGN.md section 6): what ``orch-tui SPEC`` returns to the shell."""

EXIT_SUCCESS = 0
EXIT_FAILED = 1
EXIT_SAFETY = 2
EXIT_STATE = 3
EXIT_NEEDS_HELP = 4
EXIT_INTERRUPTED = 130
