"""orchestrator.toml's typed dataclasses, `init`, .env, the UI state and where files live.

- ``checked``: A config validated by pydantic: what the plain read does not vouch for.
- ``constraints``: The config fields' bounds and checks, as marks pydantic reads only when it validates.
- ``dotenv``: Keys and base URLs from a ``.env`` file beside ``orchestrator.toml``.
- ``files``: The config file: where it is, how it is read, and the error a bad one raises.
- ``glance``: The two settings ``status`` needs, read without the config models.
- ``init_file``: Writing ``orchestrator.toml``: the commented default (``orch-tui init``).
- ``models``: ``orchestrator.toml`` parsed into typed dataclasses.
- ``plain``: The config read without pydantic when every value in it is plainly valid.
- ``paths``: Where a project's files live (DESIGN section 4).
- ``theme_names``: The theme names ``ui.theme`` accepts, and the default one.
- ``ui_state``: The person's UI choices (theme, diff layout), remembered in a file of orch-tui's own.
"""
