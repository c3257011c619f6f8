"""The orch-tui test suite: it mirrors core/ and tui/, with support/, snapshots/ and e2e/."""
