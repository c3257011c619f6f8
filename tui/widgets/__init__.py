"""Widgets of the orch-tui app: the diff view (``diff_view``), its row model (``diff_rows``)
and the proposal's file list (``file_list``)."""
