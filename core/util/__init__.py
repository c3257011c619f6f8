"""Small helpers every layer may use: atomic writes, safe text, wording.

- ``atomic``: Atomic, durable file writes, and :class:`Commit`: files made durable together, then a state.
- ``digests``: SHA-256 and BLAKE2b digests without loading OpenSSL at a run's start.
- ``markdown_text``: Text from models, tests and files, written into Markdown so that it reads as written.
- ``patterns``: ``LazyPattern``: a regular expression compiled on its first use, not when its module loads.
- ``plain_values``: A dataclass as plain data, as ``dataclasses.asdict`` gives it, without its deep copy.
- ``record_init``: A record's ``__init__``, written and compiled when it is first looked up, not as the class is made.
- ``records``: ``@record``: a dataclass that compiles nothing until it is first made, and shares the rest.
- ``stdlib_first``: ``dataclasses`` and ``pathlib`` imported first, without the ``inspect`` and ``urllib.parse`` they rarely read.
- ``terminal_text``: Text someone else chose (the model, its tests, a file), made safe to show on a terminal.
- ``timestamps``: The time stamp of events and state files.
- ``worker_threads``: A few reused threads that run calls and hand back each one's outcome: the fsyncs' pool.
- ``wording``: Counted nouns in messages: "1 attempt", "2 attempts", "1 entry".
"""
