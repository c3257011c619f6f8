"""Opening a batch: its folder under ``batches/``, its record, and one project folder a spec.

The batch id comes from the specs and the options, so the same command finds the same batch
and resumes it; ``--batch ID`` names one explicitly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.batch.record import BatchRecord, RunRecord, load_batch
from orch_tui.core.batch.run_one import prepare_folder
from orch_tui.core.batch.specs import BatchSpec
from orch_tui.core.util.timestamps import utc_now

BATCHES_DIR = "batches"


def batch_id_for(specs: Sequence[BatchSpec], options: dict[str, object]) -> str:
    """A stable id for these specs and options: the same command, the same batch."""
    key = json.dumps([[s.name, str(s.path)] for s in specs] + [options], sort_keys=True)
    return "batch-" + hashlib.sha256(key.encode()).hexdigest()[:10]


def batch_folder(
    root: Path, specs: Sequence[BatchSpec], options: dict[str, object], batch_id: str | None
) -> Path:
    """``batches/<batch_id>/`` in the project folder ``root``."""
    return root / BATCHES_DIR / (batch_id or batch_id_for(specs, options))


def open_batch(
    folder: Path, specs: Sequence[BatchSpec], options: dict[str, object], config: Path | None
) -> tuple[BatchRecord, bool]:
    """The batch's record (a new one, or the one found with any new spec added) and whether it
    was found; each spec's project folder made ready. Call it holding the batch's lock."""
    record = load_batch(folder)
    resumed = record is not None
    if record is None:
        record = BatchRecord(batch_id=folder.name, created_at=utc_now(), options=dict(options))
    known = {run.name for run in record.runs}
    for spec in specs:
        if spec.name not in known:
            record.runs.append(RunRecord(name=spec.name, spec=str(spec.path)))
    for spec in specs:
        prepare_folder(folder / spec.name, spec.path, config)
    record.save(folder)
    return record, resumed
