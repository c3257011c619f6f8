"""Screens of the orch-tui app."""
