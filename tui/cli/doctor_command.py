"""``orch-tui doctor``: the project's readiness, one line a check (``core.doctor``).

Apart from the other subcommands so that it loads only what its checks need: with a plainly
valid config and a provider that needs no API, neither pydantic nor the run's state.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.config.files import ConfigError
from orch_tui.core.loop.exit_codes import EXIT_FAILED, EXIT_SUCCESS
from orch_tui.tui.cli.failing import fail
from orch_tui.tui.cli.shared import doctor_project


def doctor(config_path: Path | None, model: str | None, provider: str | None) -> int:
    """``doctor --model M --provider P`` checks what a run with them would use."""
    from orch_tui.core.config.dotenv import provider_env
    from orch_tui.core.doctor import local_report, model_findings, offline_model_findings

    try:
        paths, config = doctor_project(config_path, provider)
        env = provider_env(paths.root)
    except ConfigError as exc:
        return fail(str(exc))
    config.model.name = model or config.model.name
    config.model.provider = provider or config.model.provider
    offline = offline_model_findings(config.model.provider)
    if offline is None:  # doctor_project read the whole config for it
        from orch_tui.core.config.models import Config

        assert isinstance(config, Config)
        offline = model_findings(config, env)
    findings = [*local_report(paths, config), *offline]
    for finding in findings:
        print(finding.line())
    return EXIT_SUCCESS if all(finding.ok for finding in findings) else EXIT_FAILED
