"""What the framework integrations share (`crs.guard._record`, also what the guard's own
decorator uses): recording a result the guard cannot digest, deciding a call whose arguments it
cannot take as they are."""

from __future__ import annotations

from crs.guard._record import abefore_call, arecord_result, before_call, call_for, record_result

__all__ = ["abefore_call", "arecord_result", "before_call", "call_for", "record_result"]
