"""End-to-end tests: the installed orch-tui against local servers, and in a real terminal through tmux."""
