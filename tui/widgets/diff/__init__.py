"""The diff view: a pure row model and highlighting beside the widget and its painting.

- ``rows``: The row model of a diff view: which old and new line each screen row shows.
- ``highlight``: Syntax spans for the lines of one side of a diff: Pygments, lexed lazily in chunks.
- ``lex_ahead``: Lexing ahead of the reviewer: the lines the next keys may show, a slice at a time.
- ``file_cache``: What the diff view computed for one file, kept while the reviewer moves between files.
- ``coverage_marks``: Coverage in the diff: per changed line whether a test runs it, per hunk which tests do.
- ``coverage_gutter``: The coverage half of the diff view's painting: marks beside line numbers, hunk notes.
- ``paint``: The painting half of the diff view: its rows as Strips of styled Segments.
- ``idle_work``: The diff view's work while the reviewer reads: lexing, then styling, ahead of the keys.
- ``view``: DiffView: a read-only, VS Code-style diff of one file change (Textual's Line API).
"""
