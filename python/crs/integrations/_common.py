"""What the framework integrations share: recording a result the guard cannot digest
(`crs.guard._record`, also what the guard's own decorator uses)."""

from __future__ import annotations

from crs.guard._record import arecord_result, record_result

__all__ = ["arecord_result", "record_result"]
