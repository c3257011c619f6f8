"""Installing a project's declared dependencies into its ``.venv``: outside the sandbox, with
the network, wheels only, and an environment holding nothing but the checks' allowlist and the
installer's own settings (an index, a proxy, certificates)."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.sandbox import NO_SANDBOX
from orch_tui.core.config.plain import is_secret_env_name
from orch_tui.core.util.atomic import write_text_atomic
from orch_tui.core.util.records import record

if TYPE_CHECKING:
    from orch_tui.core.config.models import Config

INSTALL_CHECK = "dependencies"
"""The name of the installation when it fails, as a check in the report."""

INSTALL_OUTPUT = "install-output.txt"
"""The installer's output, beside the attempt's reports."""

_INSTALLER_ENV_PREFIXES = ("PIP_", "UV_")
_INSTALLER_ENV_NAMES = frozenset(
    {
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
    }
)  # fmt: skip


@record(frozen=True)
class Installing:
    """One installation: ``what`` for people, the installer's ``args``, where its output goes."""

    what: str
    args: list[str]
    report_dir: Path
    running: Path | None


def install(
    config: Config,
    workspace: Path,
    python: str,
    installing: Installing,
    say: Callable[[str], None],
    on_output: Callable[[str], None] | None,
) -> CheckResult | None:
    """Run the installer; the failed check when it fails, else None."""
    installer = installer_command(Path(python))
    if installer is None:
        return failed_install(
            installing.args,
            f"cannot install {installing.what}: orch-tui's environment has no pip (22.3 or "
            "later) and uv is not on the PATH; install one of them",
        )
    say(f"installing {installing.what} into {Path(python).parent.parent} …")
    result = run_check(
        CheckSpec(INSTALL_CHECK, [*installer, *installing.args]),
        workspace,
        installing.report_dir,
        timeout_s=config.checks.timeout_seconds,
        max_output_bytes=config.checks.max_output_bytes,
        extra_env_allow=installer_env_names(),
        on_output=on_output,
        sandbox=NO_SANDBOX,  # it needs the network; it installs only what the files declare
        running=installing.running,
    )
    installing.report_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(installing.report_dir / INSTALL_OUTPUT, result.output, durable=False)
    if result.passed:
        return None
    result.error = result.error or (
        f"installing {installing.what} failed (exit code {result.exit_code}); "
        "the installer's output says why"
    )
    return result


def installer_command(python: Path) -> list[str] | None:
    """The command that installs into ``python``'s environment: uv, else orch-tui's pip."""
    uv = shutil.which("uv")
    if uv is not None:
        # --no-build: wheels only, so no package's build code runs outside the sandbox;
        # --no-config: no uv.toml or [tool.uv] of the project's redirects the install.
        return [uv, "pip", "install", "--no-config", "--no-build", "--python", str(python)]
    from importlib.metadata import PackageNotFoundError  # 8 ms: lazily
    from importlib.metadata import version as installed

    try:
        version = installed("pip")
    except PackageNotFoundError:
        return None
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) < (22, 3):  # --python came in pip 22.3
        return None
    return [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "--disable-pip-version-check",
        "install",
        "--only-binary=:all:",  # wheels only: no package's build code runs outside the sandbox
    ]


def installer_env_names() -> list[str]:
    """The variables of ours the installer gets besides the checks' allowlist: pip's and uv's
    settings (an index, a proxy, certificates), never one that may hold an API key."""
    return sorted(
        name
        for name in os.environ
        if (name.startswith(_INSTALLER_ENV_PREFIXES) or name.upper() in _INSTALLER_ENV_NAMES)
        and not is_secret_env_name(name)
    )


def failed_install(command: list[str], error: str) -> CheckResult:
    return CheckResult(INSTALL_CHECK, command, None, False, 0.0, "", 0, [], error)
