"""The exception tree of crs. Every error raised on purpose by crs derives from `CRSError`.

Where the meaning fits, a class also inherits the builtin a caller would naturally catch
(`ValueError` for bad input, `LookupError` for missing things, `TimeoutError` for locks).
Where the Go package wraps one sentinel in another, the Python class inherits both, so
`except` works for either (a soft disproof is a `DeltaValidationError` *and* a
`HardSoftBoundaryViolationError`)::

    CRSError
    ├── InvalidArgumentError (ValueError)          a public call got an argument it cannot take
    ├── NilDeltaError (ValueError)
    ├── NilContextError (ValueError)               the seed's ErrNilContext; never raised
    ├── DeltaValidationError (ValueError)
    │   ├── HardSoftBoundaryViolationError
    │   └── DeltaTargetNotFoundError (LookupError)  also an IndexNotFoundError
    ├── DeltaConflictError
    ├── SnapshotStaleError
    ├── ApplyRollbackError
    ├── IndexNotFoundError (LookupError)
    ├── UnknownQueryTypeError (ValueError)
    ├── DeltaHistoryClosedError
    ├── GraphQueryClosedError
    ├── GraphNotAvailableError
    ├── ContractError (ValueError)                 ecc.session.v1 snapshot violates the contract
    ├── SessionError                               an orchestration session target cannot be read
    │   ├── UnknownAdapterError (ValueError)       no session adapter has the requested id
    │   └── TmuxNotFoundError                      the tmux program is not installed
    ├── SanitizationError                          redacting secrets failed; nothing was recorded
    ├── ReadOnlyReplicaError                       a read replica's state was asked to change
    ├── CRSClosedError                             a closed CRS was asked to change
    ├── JournalError
    │   ├── JournalClosedError
    │   ├── JournalCorruptedError
    │   ├── JournalFullError
    │   ├── JournalDegradedError
    │   ├── JournalSequenceGapError
    │   ├── JournalUnavailableError (ConnectionError)  the journal's server cannot be reached
    │   ├── JournalLockedError (TimeoutError)      another process holds the journal's writer lock
    │   └── NilDeltaJournalError (ValueError)
    ├── PersistenceError
    │   ├── BackupCorruptedError
    │   ├── BackupVersionMismatchError
    │   ├── BackupNotFoundError (LookupError)
    │   ├── BackupLockFailedError (TimeoutError)
    │   ├── MetadataCorruptedError
    │   ├── PersistenceManagerClosedError
    │   └── RestoreInProgressError
    └── SessionRestoreError
        ├── SessionIdentifierNilError (ValueError)
        ├── ProjectPathEmptyError (ValueError)
        ├── CheckpointTooOldError
        ├── ProjectHashMismatchError
        ├── SchemaVersionMismatchError
        └── TooManyModifiedFilesError
"""

from __future__ import annotations

from typing import Any, TypedDict


class CRSError(Exception):
    """Base class of every error crs raises on purpose."""


class CRSClosedError(CRSError):
    """A closed CRS was asked to change; nothing changed (reads still see the last state)."""


class InvalidArgumentError(CRSError, ValueError):
    """A public call got an argument it cannot take; the message names it and what is allowed."""


class NilDeltaError(CRSError, ValueError):
    """`apply` was given `None` instead of a delta."""


class NilContextError(CRSError, ValueError):
    """The Go package's `ErrNilContext` ("context must not be nil").

    crs has no `context.Context` parameters (spec README §2: the API is synchronous), so
    nothing raises it; the class exists so that code written against the seed's names can
    still name it.
    """


class IndexNotFoundError(CRSError, LookupError):
    """An index name is not one of the six indexes."""


class DeltaValidationError(CRSError, ValueError):
    """A delta failed validation against the snapshot it would apply to; nothing was changed."""


class HardSoftBoundaryViolationError(DeltaValidationError):
    """A soft signal (e.g. an LLM guess) tried a hard action such as disproving a node."""


class DeltaTargetNotFoundError(DeltaValidationError, IndexNotFoundError):
    """A delta names an entry (e.g. a constraint to remove or update) that does not exist."""


class DeltaConflictError(CRSError):
    """A delta committed after the base snapshot conflicts with this one; re-read and retry."""


class SnapshotStaleError(CRSError):
    """The base snapshot is older than the epoch limit allows; take a fresh snapshot."""


class ApplyRollbackError(CRSError):
    """An apply failed part-way and every change was rolled back."""


class UnknownQueryTypeError(CRSError, ValueError):
    """An analytics query type is not one of `AnalyticsQueryType`."""


class DeltaHistoryClosedError(CRSError):
    """The delta history worker was closed; create a new CRS to query history."""


class GraphQueryClosedError(CRSError):
    """The graph query adapter was closed."""


class GraphNotAvailableError(CRSError):
    """No graph provider is set; call `set_graph_provider` first."""


class ContractErrorDetails(TypedDict):
    """One violation of the ecc.session.v1 contract."""

    loc: tuple[str | int, ...]
    msg: str
    type: str


class ContractError(CRSError, ValueError):
    """A snapshot violates the ecc.session.v1 contract.

    `str(err)` is the first violation's message (byte for byte the reference's);
    `err.errors()` lists every violation.
    """

    def __init__(self, message: str, errors: list[ContractErrorDetails] | None = None) -> None:
        super().__init__(message)
        self._errors: list[ContractErrorDetails] = list(errors or [])

    def errors(self) -> list[ContractErrorDetails]:
        """Every violation found, in validation order."""
        return list(self._errors)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self._errors))


class SessionError(CRSError):
    """An orchestration session target cannot be found, read or parsed."""


class UnknownAdapterError(SessionError, ValueError):
    """No session adapter has the requested id; `crs session adapters` lists them."""


class TmuxNotFoundError(SessionError):
    """The tmux program is not installed, so dmux sessions cannot be read."""


class ReadOnlyReplicaError(CRSError):
    """A mutating call on a read replica's CRS: it only applies its source journal's entries.

    Make the change on the writer (the CRS that journals to the source); the replica sees it
    once the entry arrives.
    """


class SanitizationError(CRSError):
    """Redacting secrets failed, so nothing was recorded (fail-closed).

    The message names the field or path and the kind of failure, never the text itself; the
    original exception is not chained, because its message may quote the secret.
    """


class JournalError(CRSError):
    """Base class of journal errors."""


class JournalClosedError(JournalError):
    """The journal is closed; open a new one."""


class JournalCorruptedError(JournalError):
    """A journal record failed its integrity check (CRC-32C or framing)."""


class JournalFullError(JournalError):
    """The journal reached its size limit; checkpoint it or raise `max_journal_bytes`."""


class JournalDegradedError(JournalError):
    """The journal cannot be used as it is (a directory it cannot open, a server that is away),
    or runs in degraded (in-memory) mode, where writes are not durable.

    `str(err)` is the whole message, advice for whoever raised it included; `err.problem` is
    the bare cause ("cannot open journal at …: Permission denied") and `err.fix` what to
    change on disk or retry ("" when nothing specific), for a caller that gives advice of
    its own: `Guard.open` and the CLI name the data directory, not `JournalConfig` options.
    """

    def __init__(self, message: str, *, problem: str | None = None, fix: str = "") -> None:
        super().__init__(message)
        self.problem: str = message if problem is None else problem
        self.fix: str = fix

    def __reduce__(self) -> tuple[Any, ...]:
        return (_degraded_error, (type(self), str(self), self.problem, self.fix))


def _degraded_error(
    cls: type[JournalDegradedError], message: str, problem: str, fix: str
) -> JournalDegradedError:
    return cls(message, problem=problem, fix=fix)


class JournalSequenceGapError(JournalError):
    """Replay found a gap in sequence numbers."""


class JournalUnavailableError(JournalError, ConnectionError):
    """The journal's server (NATS) cannot be reached and degraded mode is off; retry later."""


class JournalLockedError(JournalError, TimeoutError):
    """Another writer holds the journal's lock; close it, wait longer, or open read-only."""


class NilDeltaJournalError(JournalError, ValueError):
    """`append` was given `None` instead of a delta."""


class PersistenceError(CRSError):
    """Base class of backup errors."""


class BackupCorruptedError(PersistenceError):
    """A backup failed its content-hash check; nothing was loaded."""


class BackupVersionMismatchError(PersistenceError):
    """A backup was written in a format version this crs cannot read."""


class BackupNotFoundError(PersistenceError, LookupError):
    """No backup exists for the project."""


class BackupLockFailedError(PersistenceError, TimeoutError):
    """The backup lock could not be acquired in time; another process holds it."""


class MetadataCorruptedError(PersistenceError):
    """The backup metadata file failed its integrity check."""


class PersistenceManagerClosedError(PersistenceError):
    """The persistence manager is closed."""


class RestoreInProgressError(PersistenceError):
    """A restore is already running for this project."""


class SessionRestoreError(CRSError):
    """Base class of session restore errors."""


class SessionIdentifierNilError(SessionRestoreError, ValueError):
    """A session identifier is required."""


class ProjectPathEmptyError(SessionRestoreError, ValueError):
    """The project path is empty."""


class CheckpointTooOldError(SessionRestoreError):
    """The checkpoint is older than the configured maximum age."""


class ProjectHashMismatchError(SessionRestoreError):
    """The checkpoint belongs to another project."""


class SchemaVersionMismatchError(SessionRestoreError, BackupVersionMismatchError):
    """The checkpoint's schema version (`BackupMetadata.schema_version`) is not
    `CURRENT_SCHEMA_VERSION`. Raised by `PersistenceManager.load_backup` too, so it is also a
    `BackupVersionMismatchError` (an `except` for either catches it);
    `SessionRestorer.try_restore` reports it as an incompatible checkpoint."""


class TooManyModifiedFilesError(SessionRestoreError):
    """More files changed than `max_files_to_refresh`; a full rebuild is recommended."""


class StaleOpError(CRSError):
    """Private (not exported): an op was built on a state another writer of the shared
    journal moved meanwhile (a guard step it took); nothing was written, the caller builds
    it again on the caught-up state (`StateKernel.commit_op`'s `fresh`)."""


class AppendRaceError(JournalError):
    """Private (not exported): a conditional append (a NATS project journal's record sent
    with the sequence of the last record of its subject this writer applied, JetStream's
    ``Nats-Expected-Last-Subject-Sequence``) was refused because another writer's record came
    first; nothing was stored. `last` is the subject's last sequence as the server said."""

    def __init__(self, message: str, *, last: int) -> None:
        super().__init__(message)
        self.last = last
