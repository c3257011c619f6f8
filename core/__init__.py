"""The orch-tui loop library: spec in, reviewed and tested project out.

Nothing in this package imports Textual or ``tui``: the TUI and the headless
mode are two clients of the same engine.
"""
