"""crs: a persistent, queryable reasoning state for AI agent loops.

Records every step, detects loops, fires circuit breakers on disproven tool paths, learns
clauses from failures, journals every change to a crash-safe log and restores state in the
next session. The implementation lives in private modules; this file is the public API.
"""

import contextlib as _contextlib

from crs import _core

# ---------------------------------------------------------------- errors
from crs._errors import (
    ApplyRollbackError,
    BackupCorruptedError,
    BackupLockFailedError,
    BackupNotFoundError,
    BackupVersionMismatchError,
    CheckpointTooOldError,
    ContractError,
    ContractErrorDetails,
    CRSError,
    DeltaConflictError,
    DeltaHistoryClosedError,
    DeltaValidationError,
    GraphNotAvailableError,
    GraphQueryClosedError,
    HardSoftBoundaryViolationError,
    IndexNotFoundError,
    InvalidArgumentError,
    JournalClosedError,
    JournalCorruptedError,
    JournalDegradedError,
    JournalError,
    JournalFullError,
    JournalSequenceGapError,
    MetadataCorruptedError,
    NilDeltaError,
    NilDeltaJournalError,
    PersistenceError,
    PersistenceManagerClosedError,
    ProjectHashMismatchError,
    ProjectPathEmptyError,
    RestoreInProgressError,
    SanitizationError,
    SchemaVersionMismatchError,
    SessionError,
    SessionIdentifierNilError,
    SessionRestoreError,
    SnapshotStaleError,
    TooManyModifiedFilesError,
    UnknownQueryTypeError,
)

# ---------------------------------------------------------------- trace
from crs._sanitizer import REDACTED, Sanitizer, SecretSanitizer, is_secret_key
from crs._trace import (
    DEFAULT_TRACE_MAX_STEPS,
    DefaultTraceConfig,
    ReasoningTrace,
    SecureTraceConfig,
    TraceConfig,
    TraceRecorder,
    TraceStep,
    TraceStepBuilder,
    trace_step_to_step_record,
)

# ---------------------------------------------------------------- shared types
from crs._types import (
    DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
    DEFAULT_CIRCUIT_BREAKER_THRESHOLDS,
    DEFAULT_INITIAL_PROOF_NUMBER,
    DEFAULT_SNAPSHOT_EPOCH_LIMIT,
    MAX_PROPAGATION_DEPTH,
    MAX_STEPS_PER_SESSION,
    PROOF_NUMBER_INFINITE,
    Actor,
    CircuitBreakerResult,
    ClauseScope,
    Config,
    Constraint,
    ConstraintType,
    ConstraintUpdate,
    Decision,
    DefaultConfig,
    DependencyEdge,
    ErrorCategory,
    FailureType,
    HistoryEntry,
    KeyValue,
    NodeFrequency,
    Outcome,
    ProofNumber,
    ProofStatus,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    SimilarityMatch,
    StepRecord,
    ToolParams,
)

__version__: str = _core.__version__

# This is the public API. Each name is also listed in __all__ (sorted; a test checks it).
__all__ = [
    "Actor",
    "ApplyRollbackError",
    "BackupCorruptedError",
    "BackupLockFailedError",
    "BackupNotFoundError",
    "BackupVersionMismatchError",
    "CRSError",
    "CheckpointTooOldError",
    "CircuitBreakerResult",
    "ClauseScope",
    "Config",
    "Constraint",
    "ConstraintType",
    "ConstraintUpdate",
    "ContractError",
    "ContractErrorDetails",
    "DEFAULT_CIRCUIT_BREAKER_THRESHOLD",
    "DEFAULT_CIRCUIT_BREAKER_THRESHOLDS",
    "DEFAULT_INITIAL_PROOF_NUMBER",
    "DEFAULT_SNAPSHOT_EPOCH_LIMIT",
    "DEFAULT_TRACE_MAX_STEPS",
    "Decision",
    "DefaultConfig",
    "DefaultTraceConfig",
    "DeltaConflictError",
    "DeltaHistoryClosedError",
    "DeltaValidationError",
    "DependencyEdge",
    "ErrorCategory",
    "FailureType",
    "GraphNotAvailableError",
    "GraphQueryClosedError",
    "HardSoftBoundaryViolationError",
    "HistoryEntry",
    "IndexNotFoundError",
    "InvalidArgumentError",
    "JournalClosedError",
    "JournalCorruptedError",
    "JournalDegradedError",
    "JournalError",
    "JournalFullError",
    "JournalSequenceGapError",
    "KeyValue",
    "MAX_PROPAGATION_DEPTH",
    "MAX_STEPS_PER_SESSION",
    "MetadataCorruptedError",
    "NilDeltaError",
    "NilDeltaJournalError",
    "NodeFrequency",
    "Outcome",
    "PROOF_NUMBER_INFINITE",
    "PersistenceError",
    "PersistenceManagerClosedError",
    "ProjectHashMismatchError",
    "ProjectPathEmptyError",
    "ProofNumber",
    "ProofStatus",
    "ProofUpdate",
    "ProofUpdateType",
    "REDACTED",
    "ReasoningTrace",
    "RestoreInProgressError",
    "SanitizationError",
    "Sanitizer",
    "SchemaVersionMismatchError",
    "SecretSanitizer",
    "SecureTraceConfig",
    "SessionError",
    "SessionIdentifierNilError",
    "SessionRestoreError",
    "SignalSource",
    "SimilarityMatch",
    "SnapshotStaleError",
    "StepRecord",
    "TooManyModifiedFilesError",
    "ToolParams",
    "TraceConfig",
    "TraceRecorder",
    "TraceStep",
    "TraceStepBuilder",
    "UnknownQueryTypeError",
    "__version__",
    "is_secret_key",
    "trace_step_to_step_record",
]


def _publish() -> None:
    # Public objects report `crs` as their module, so reprs and docs show the import path
    # users write (as httpx does), not the private module that defines them.
    for name in __all__:
        obj = globals()[name]
        if hasattr(obj, "__module__") and not isinstance(obj, str | int | float):
            # Builtins and constants refuse the assignment; they keep their module.
            with _contextlib.suppress(AttributeError, TypeError):
                obj.__module__ = "crs"


_publish()
