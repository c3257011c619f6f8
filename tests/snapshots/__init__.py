"""Snapshot tests of whole screens (pytest-textual-snapshot)."""
