"""Small helpers every layer may use: atomic writes, safe text, wording.

- ``atomic``: Atomic, durable file writes, and :class:`Commit`: files made durable together, then a state.
- ``markdown_text``: Text from models, tests and files, written into Markdown so that it reads as written.
- ``patterns``: ``LazyPattern``: a regular expression compiled on its first use, not when its module loads.
- ``plain_values``: A dataclass as plain data, as ``dataclasses.asdict`` gives it, without its deep copy.
- ``records``: ``@record``: a dataclass whose ``__eq__``, ``__repr__`` and ``__hash__`` are shared, not compiled.
- ``terminal_text``: Text someone else chose (the model, its tests, a file), made safe to show on a terminal.
- ``timestamps``: The time stamp of events and state files.
- ``worker_threads``: A few reused threads that run calls and hand back each one's outcome: the fsyncs' pool.
- ``wording``: Counted nouns in messages: "1 attempt", "2 attempts", "1 entry".
"""
