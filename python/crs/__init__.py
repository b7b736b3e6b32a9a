"""crs: a persistent, queryable reasoning state for AI agent loops.

Records every step, detects loops, fires circuit breakers on disproven tool paths, learns
clauses from failures, journals every change to a crash-safe log and restores state in the
next session. The implementation lives in private modules; this file is the public API.
"""

import contextlib as _contextlib

from crs import _core

# ---------------------------------------------------------------- persistence (backups, restore)
from crs._backup_format import (
    BACKUP_FORMAT_VERSION,
    CURRENT_SCHEMA_VERSION,
    BackupImage,
    BackupMetadata,
    LoadedBackup,
)

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
    SchemaVersionMismatchError,
    SessionError,
    SessionIdentifierNilError,
    SessionRestoreError,
    SnapshotStaleError,
    TooManyModifiedFilesError,
    UnknownQueryTypeError,
)
from crs._persistence import (
    BackupOptions,
    BackupSource,
    BackupTarget,
    DefaultPersistenceConfig,
    JSONExportSource,
    PersistenceConfig,
    PersistenceManager,
    validate_project_hash,
)
from crs._session_restore import (
    CHECKPOINT_KEY_HASH_BYTES,
    DEFAULT_CHECKPOINT_MAX_AGE,
    DEFAULT_MAX_FILES_TO_REFRESH,
    DEFAULT_SESSION_RESTORE_RETRIES,
    LOCK_FILE_NAMES,
    PROJECT_HASH_LENGTH,
    DefaultSessionRestorerConfig,
    ReplayJournal,
    ReplayRecord,
    RestoreResult,
    RestoreTarget,
    SessionIdentifier,
    SessionRestoredEvent,
    SessionRestoreFailedEvent,
    SessionRestorer,
    SessionRestorerConfig,
    compute_lock_file_hash,
    compute_project_hash,
    find_files_modified_since,
)

__version__: str = _core.__version__

# This is the public API. Each name is also listed in __all__ (sorted; a test checks it).
__all__ = [
    "ApplyRollbackError",
    "BACKUP_FORMAT_VERSION",
    "BackupCorruptedError",
    "BackupImage",
    "BackupLockFailedError",
    "BackupMetadata",
    "BackupNotFoundError",
    "BackupOptions",
    "BackupSource",
    "BackupTarget",
    "BackupVersionMismatchError",
    "CHECKPOINT_KEY_HASH_BYTES",
    "CRSError",
    "CURRENT_SCHEMA_VERSION",
    "CheckpointTooOldError",
    "ContractError",
    "ContractErrorDetails",
    "DEFAULT_CHECKPOINT_MAX_AGE",
    "DEFAULT_MAX_FILES_TO_REFRESH",
    "DEFAULT_SESSION_RESTORE_RETRIES",
    "DefaultPersistenceConfig",
    "DefaultSessionRestorerConfig",
    "DeltaConflictError",
    "DeltaHistoryClosedError",
    "DeltaValidationError",
    "GraphNotAvailableError",
    "GraphQueryClosedError",
    "HardSoftBoundaryViolationError",
    "IndexNotFoundError",
    "InvalidArgumentError",
    "JSONExportSource",
    "JournalClosedError",
    "JournalCorruptedError",
    "JournalDegradedError",
    "JournalError",
    "JournalFullError",
    "JournalSequenceGapError",
    "LOCK_FILE_NAMES",
    "LoadedBackup",
    "MetadataCorruptedError",
    "NilDeltaError",
    "NilDeltaJournalError",
    "PROJECT_HASH_LENGTH",
    "PersistenceConfig",
    "PersistenceError",
    "PersistenceManager",
    "PersistenceManagerClosedError",
    "ProjectHashMismatchError",
    "ProjectPathEmptyError",
    "ReplayJournal",
    "ReplayRecord",
    "RestoreInProgressError",
    "RestoreResult",
    "RestoreTarget",
    "SchemaVersionMismatchError",
    "SessionError",
    "SessionIdentifier",
    "SessionIdentifierNilError",
    "SessionRestoreError",
    "SessionRestoreFailedEvent",
    "SessionRestoredEvent",
    "SessionRestorer",
    "SessionRestorerConfig",
    "SnapshotStaleError",
    "TooManyModifiedFilesError",
    "UnknownQueryTypeError",
    "__version__",
    "compute_lock_file_hash",
    "compute_project_hash",
    "find_files_modified_since",
    "validate_project_hash",
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
