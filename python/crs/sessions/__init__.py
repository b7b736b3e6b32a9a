"""`crs.sessions`: the `ecc.session.v1` session contract, its adapters and its recorder.

Read an orchestration session (a dmux/tmux plan or session name) or a Claude Code history
entry into one canonical snapshot, validate it, and record it in a SQLite state store::

    from crs.sessions import inspect_session_target
    snapshot = inspect_session_target("claude:latest")
    for worker in snapshot["workers"]:
        print(worker["id"], worker["state"], worker["health"])

`SessionBridge(crs).sync(target)` then feeds the workers' state changes into a `crs.CRS`, as
step records and history entries of the CRS session with the same id.

The implementation lives in private modules; this file is the public API of the subpackage.
"""

import contextlib as _contextlib

from crs._errors import (
    ContractError,
    ContractErrorDetails,
    SessionError,
    TmuxNotFoundError,
    UnknownAdapterError,
)
from crs.sessions._bridge import (
    BridgedChange,
    SessionBridge,
    StepMapping,
    map_worker_state,
    worker_node_id,
)
from crs.sessions._claude import SessionMetadata, SessionRecord, parse_session_metadata
from crs.sessions._dmux import Pane, list_tmux_panes
from crs.sessions._model import (
    DEFAULT_HISTORY_LIMIT,
    SESSION_RECORDING_SCHEMA_VERSION,
    SESSION_SCHEMA_VERSION,
    AdapterInfo,
    Aggregates,
    CanonicalSnapshot,
    RecordResult,
    SessionContext,
    SessionInfo,
    SourceTarget,
    StructuredTarget,
    Worker,
    WorkerIntent,
    WorkerOutputs,
    WorkerRuntime,
    build_aggregates,
    sanitize_path_segment,
)
from crs.sessions._recorder import (
    HistoryEntry,
    WorkerStateChange,
    fallback_recording_path,
    persist_canonical_snapshot,
    read_session_history,
    store_path,
    worker_state_changes,
)
from crs.sessions._registry import (
    AdapterRegistry,
    ClaudeHistoryAdapter,
    DmuxTmuxAdapter,
    OpenSession,
    SessionAdapter,
    create_default_adapters,
    inspect_session_target,
    list_adapters,
    normalize_structured_target,
)
from crs.sessions._validate import validate_canonical_snapshot

# This is the public API of crs.sessions (sorted; a test checks it).
__all__ = [
    "AdapterInfo",
    "AdapterRegistry",
    "Aggregates",
    "BridgedChange",
    "CanonicalSnapshot",
    "ClaudeHistoryAdapter",
    "ContractError",
    "ContractErrorDetails",
    "DEFAULT_HISTORY_LIMIT",
    "DmuxTmuxAdapter",
    "HistoryEntry",
    "OpenSession",
    "Pane",
    "RecordResult",
    "SESSION_RECORDING_SCHEMA_VERSION",
    "SESSION_SCHEMA_VERSION",
    "SessionAdapter",
    "SessionBridge",
    "SessionContext",
    "SessionError",
    "SessionInfo",
    "SessionMetadata",
    "SessionRecord",
    "SourceTarget",
    "StepMapping",
    "StructuredTarget",
    "TmuxNotFoundError",
    "UnknownAdapterError",
    "Worker",
    "WorkerIntent",
    "WorkerOutputs",
    "WorkerRuntime",
    "WorkerStateChange",
    "build_aggregates",
    "create_default_adapters",
    "fallback_recording_path",
    "inspect_session_target",
    "list_adapters",
    "list_tmux_panes",
    "map_worker_state",
    "normalize_structured_target",
    "parse_session_metadata",
    "persist_canonical_snapshot",
    "read_session_history",
    "sanitize_path_segment",
    "store_path",
    "validate_canonical_snapshot",
    "worker_node_id",
    "worker_state_changes",
]


def _publish() -> None:
    # Objects defined here report `crs.sessions` as their module (errors stay `crs`).
    for name in __all__:
        obj = globals()[name]
        module = getattr(obj, "__module__", "")
        if isinstance(module, str) and module.startswith("crs.sessions."):
            with _contextlib.suppress(AttributeError, TypeError):
                obj.__module__ = "crs.sessions"


_publish()
