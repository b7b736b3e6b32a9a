"""The guard: one object that decides every tool call of an agent (issue 12).

See `Guard` and docs/guard-api.md.
"""

from crs.guard._fingerprint import ProjectFingerprint, workspace_fingerprint
from crs.guard._guard import Guard, GuardedCall
from crs.guard._observe import GuardEvent, GuardEventKind, GuardObserver
from crs.guard._policy import HARD_MAX_POLLS, HARD_MAX_REPEATS, GuardPolicy, ToolPolicy
from crs.guard._verdict import (
    Action,
    Call,
    GuardBlockedError,
    GuardStoppedError,
    LearnedFailure,
    Verdict,
    VerdictCode,
)

__all__ = [
    "HARD_MAX_POLLS",
    "HARD_MAX_REPEATS",
    "Action",
    "Call",
    "Guard",
    "GuardBlockedError",
    "GuardPolicy",
    "GuardedCall",
    "GuardEvent",
    "GuardEventKind",
    "GuardObserver",
    "GuardStoppedError",
    "LearnedFailure",
    "ProjectFingerprint",
    "ToolPolicy",
    "Verdict",
    "VerdictCode",
    "workspace_fingerprint",
]
