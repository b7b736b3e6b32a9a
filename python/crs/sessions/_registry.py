"""Adapters and the registry that picks one for a target (spec ecc-session-v1.md §6).

Auto-detection tries `claude-history` first, then `dmux-tmux`. A target is a string (a plan
file, a session name, `claude:<id|alias|latest>`, a `.tmp` session file) or a structured
target `{"type": ..., "value": ...[, "adapterId": ...]}`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from crs._errors import InvalidArgumentError, SessionError, UnknownAdapterError
from crs.sessions import _claude, _dmux
from crs.sessions._model import (
    DEFAULT_HISTORY_LIMIT,
    AdapterInfo,
    CanonicalSnapshot,
    RecordResult,
    SessionContext,
    StructuredTarget,
)
from crs.sessions._recorder import persist_canonical_snapshot

_TARGET_TYPE_TO_ADAPTER = {
    "plan": "dmux-tmux",
    "session": "dmux-tmux",
    "claude-history": "claude-history",
    "claude-alias": "claude-history",
    "session-file": "claude-history",
}


@runtime_checkable
class SessionAdapter(Protocol):
    """What the registry needs from an adapter."""

    id: str
    description: str
    target_types: tuple[str, ...]

    def can_open(self, target: str, context: SessionContext) -> bool:
        """Whether this adapter reads `target` (always, when `context.adapter_id` names it)."""
        ...

    def read(self, target: str, context: SessionContext) -> CanonicalSnapshot:
        """Read `target` into a validated canonical snapshot, without recording it."""
        ...


class OpenSession:
    """A target opened by an adapter; each `get_snapshot()` reads it afresh and records it."""

    def __init__(
        self, adapter: SessionAdapter, target: str, context: SessionContext, persist: bool
    ) -> None:
        self.adapter = adapter
        self.target = target
        self.context = context
        self._persist = persist
        self.last_record: RecordResult | None = None
        """Where the latest `get_snapshot()` recorded its snapshot."""

    @property
    def adapter_id(self) -> str:
        """The id of the adapter that reads this target."""
        return self.adapter.id

    def get_snapshot(self) -> CanonicalSnapshot:
        """Read the target, record the snapshot (unless persistence is off) and return it."""
        snapshot = self.adapter.read(self.target, self.context)
        self.last_record = persist_canonical_snapshot(
            snapshot,
            persist=self._persist and self.context.persist,
            home=self.context.home,
            recording_dir=self.context.recording_dir,
            history_limit=self.context.history_limit,
        )
        return snapshot

    def __repr__(self) -> str:
        return f"<OpenSession {self.adapter.id} {self.target!r}>"


class _AdapterBase:
    id: str
    description: str
    target_types: tuple[str, ...]

    def __init__(self, *, persist: bool = True) -> None:
        self.persist = persist

    def _forced(self, context: SessionContext) -> bool | None:
        if context.adapter_id:
            return context.adapter_id == self.id
        return None

    def open(self, target: str, context: SessionContext | None = None) -> OpenSession:
        """Open `target`; nothing is read until `get_snapshot()`."""
        adapter: SessionAdapter = self  # type: ignore[assignment]
        return OpenSession(adapter, target, context or SessionContext(), self.persist)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"


class DmuxTmuxAdapter(_AdapterBase):
    """Reads tmux/worktree orchestration sessions from plan files or session names.

    Args:
        tmux: the tmux command prefix, e.g. `("tmux", "-L", "mysocket")` for a private server.
        clock: seconds since the epoch, for worker health (a running worker whose status was
            updated more than 5 minutes ago is `stale`); inject one in tests.
        persist: False never records snapshots read through this adapter.
    """

    id = _dmux.ADAPTER_ID
    description = _dmux.DESCRIPTION
    target_types = _dmux.TARGET_TYPES

    def __init__(
        self,
        *,
        tmux: Sequence[str] = ("tmux",),
        clock: Callable[[], float] = time.time,
        persist: bool = True,
    ) -> None:
        super().__init__(persist=persist)
        if isinstance(tmux, str) or not tmux or not all(isinstance(a, str) for a in tmux):
            raise InvalidArgumentError(
                f"tmux: must be a non-empty sequence of strings such as ('tmux', '-L', 'name'), "
                f"got {tmux!r}"
            )
        self.tmux = tuple(tmux)
        self.clock = clock

    def can_open(self, target: str, context: SessionContext) -> bool:
        """True for a plan file (`.json`) or a session with a coordination directory."""
        forced = self._forced(context)
        if forced is not None:
            return forced
        cwd = context.resolved_cwd()
        return _dmux.is_plan_file_target(target, cwd) or _dmux.is_session_name_target(target, cwd)

    def read(self, target: str, context: SessionContext) -> CanonicalSnapshot:
        """Read the session's worker files and tmux panes into a canonical snapshot."""
        return _dmux.collect_dmux_snapshot(
            target, context.resolved_cwd(), tmux=self.tmux, clock=self.clock
        )


class ClaudeHistoryAdapter(_AdapterBase):
    """Reads Claude Code's local session history (`~/.claude/session-data`, `~/.claude/sessions`).

    Args:
        user_home: the home directory holding `.claude` (default `$HOME`, `$USERPROFILE`, the
            user's).
        persist: False never records snapshots read through this adapter.
    """

    id = _claude.ADAPTER_ID
    description = _claude.DESCRIPTION
    target_types = _claude.TARGET_TYPES

    def __init__(
        self, *, user_home: str | os.PathLike[str] | None = None, persist: bool = True
    ) -> None:
        super().__init__(persist=persist)
        self.user_home = user_home

    def can_open(self, target: str, context: SessionContext) -> bool:
        """True for a `claude:`/`claude-history:`/`history:` target or a `.tmp` session file."""
        forced = self._forced(context)
        if forced is not None:
            return forced
        return _claude.parse_claude_target(target) is not None or _claude.is_session_file_target(
            target, context.resolved_cwd()
        )

    def read(self, target: str, context: SessionContext) -> CanonicalSnapshot:
        """Resolve the session file and read it into a canonical snapshot."""
        return _claude.collect_claude_snapshot(target, context.resolved_cwd(), self.user_home)


def create_default_adapters() -> list[SessionAdapter]:
    """The default adapters in detection order: `claude-history`, then `dmux-tmux`."""
    return [ClaudeHistoryAdapter(), DmuxTmuxAdapter()]


def normalize_structured_target(
    target: str | StructuredTarget, context: SessionContext
) -> tuple[str, SessionContext]:
    """Turn a structured target into the string target and context the adapters take.

    Raises:
        InvalidArgumentError: the target is neither a string nor a `{type, value}` mapping
            with non-empty strings, or `context` is not a `SessionContext`.
    """
    if not isinstance(context, SessionContext):
        raise InvalidArgumentError(
            f"context: must be a crs.sessions.SessionContext, got {type(context).__name__}"
        )
    if isinstance(target, str):
        return target, context
    if not isinstance(target, dict):
        raise InvalidArgumentError(
            "target: must be a string or a {'type': ..., 'value': ...} mapping, "
            f"got {type(target).__name__}"
        )
    value = target.get("value")
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentError("Structured session targets require a non-empty string value")
    raw_type = target.get("type")
    kind = raw_type.strip() if isinstance(raw_type, str) else ""
    if not kind:
        raise InvalidArgumentError("Structured session targets require a non-empty type")
    adapter_id = (
        target.get("adapterId") or _TARGET_TYPE_TO_ADAPTER.get(kind) or context.adapter_id or None
    )
    context = replace(context, adapter_id=adapter_id)
    if kind in ("claude-history", "claude-alias"):
        return f"claude:{value.strip()}", context
    return value.strip(), context


class AdapterRegistry:
    """The adapters to choose from, in detection order (default: `create_default_adapters()`)."""

    def __init__(self, adapters: Sequence[SessionAdapter] | None = None) -> None:
        self.adapters: list[SessionAdapter] = (
            list(adapters) if adapters is not None else create_default_adapters()
        )

    def get_adapter(self, adapter_id: str) -> SessionAdapter:
        """The adapter with this id.

        Raises:
            UnknownAdapterError: no adapter has this id.
        """
        for adapter in self.adapters:
            if adapter.id == adapter_id:
                return adapter
        raise UnknownAdapterError(f"Unknown session adapter: {adapter_id}")

    def list_adapters(self) -> list[AdapterInfo]:
        """`[{id, description, targetTypes}]` for each adapter, in detection order."""
        return [
            {"id": a.id, "description": a.description, "targetTypes": list(a.target_types)}
            for a in self.adapters
        ]

    def select(
        self, target: str | StructuredTarget, context: SessionContext | None = None
    ) -> tuple[SessionAdapter, str, SessionContext]:
        """The adapter for `target`, with the normalized target and context it gets.

        Raises:
            UnknownAdapterError: a forced adapter id is not registered.
            SessionError: no adapter can open the target.
        """
        text, ctx = normalize_structured_target(target, context or SessionContext())
        if ctx.adapter_id:
            return self.get_adapter(ctx.adapter_id), text, ctx
        for adapter in self.adapters:
            if adapter.can_open(text, ctx):
                return adapter, text, ctx
        raise SessionError(f"No session adapter matched target: {text}")

    def open(
        self, target: str | StructuredTarget, context: SessionContext | None = None
    ) -> OpenSession:
        """Select an adapter and open `target` with it."""
        adapter, text, ctx = self.select(target, context)
        return OpenSession(adapter, text, ctx, getattr(adapter, "persist", True))

    def __repr__(self) -> str:
        return f"<AdapterRegistry {[a.id for a in self.adapters]}>"


def list_adapters() -> list[AdapterInfo]:
    """The default adapters as `[{id, description, targetTypes}]`.

    >>> [a["id"] for a in list_adapters()]
    ['claude-history', 'dmux-tmux']
    """
    return AdapterRegistry().list_adapters()


def inspect_session_target(
    target: str | StructuredTarget,
    *,
    cwd: str | os.PathLike[str] | None = None,
    adapter_id: str | None = None,
    persist: bool = True,
    home: str | os.PathLike[str] | None = None,
    recording_dir: str | os.PathLike[str] | None = None,
    history_limit: int = DEFAULT_HISTORY_LIMIT,
    adapters: Sequence[SessionAdapter] | None = None,
) -> CanonicalSnapshot:
    """Read a session target into a canonical snapshot and record it.

    Args:
        target: a plan file, a session name, `claude:<id|alias|latest>`, a `.tmp` session file,
            or a structured target `{"type": ..., "value": ...}`.
        cwd: directory relative targets resolve against (default: the process's).
        adapter_id: force this adapter instead of auto-detecting.
        persist: False validates without recording.
        home: directory of the SQLite store (default `$CRS_HOME`, else `~/.crs`).
        recording_dir: directory of the JSON fallback recordings.
        history_limit: history entries kept per session.
        adapters: the adapters to choose from (default: `create_default_adapters()`).

    Returns:
        The validated `ecc.session.v1` snapshot.

    Raises:
        UnknownAdapterError: `adapter_id` names no adapter.
        SessionError: no adapter matched, or the target cannot be read.
        InvalidArgumentError: a malformed structured target.
    """
    context = SessionContext(
        cwd=cwd,
        adapter_id=adapter_id,
        persist=persist,
        home=home,
        recording_dir=recording_dir,
        history_limit=history_limit,
    )
    return AdapterRegistry(adapters).open(target, context).get_snapshot()
