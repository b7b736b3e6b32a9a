"""The guard's plain data: actions, codes, the call handle, verdicts, learned failures."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from crs._errors import CRSError


class Action(enum.StrEnum):
    """What the agent may do with a call, mildest first (the escalation ladder)."""

    ALLOW = "allow"  # run it
    NUDGE = "nudge"  # run it, and tell the model it is going in circles
    BLOCK = "block"  # do not run it; the model should do something else
    STOP = "stop"  # do not run it; the agent should stop and hand back to the user


class VerdictCode(enum.StrEnum):
    """Why a verdict was given."""

    OK = "ok"
    POLLING = "polling"
    REPEATED_CALL = "repeated_call"
    CYCLE = "cycle"
    ERROR_LOOP = "error_loop"
    NO_PROGRESS = "no_progress"
    KNOWN_FAILURE = "known_failure"
    BUDGET = "budget"
    MONOLOGUE = "monologue"
    RETRY_BUDGET = "retry_budget"


@dataclass(frozen=True)
class Call:
    """The handle `before_call` returns (`verdict.call`) and `after_call` takes."""

    tool: str
    signature: str  # hex digest of tool + canonical arguments (commentary fields left out)
    call_id: str  # the caller's id (e.g. Claude Code's tool_use_id) or a fresh one
    session_id: str
    step: int  # 1-based position in the session's call sequence

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "signature": self.signature,
            "call_id": self.call_id,
            "session_id": self.session_id,
            "step": self.step,
        }


@dataclass(frozen=True)
class Verdict:
    """The guard's decision on a call, a result or a message."""

    action: Action
    code: VerdictCode
    reason: str  # for a person
    message: str  # for the model: redirects, never echoes the repeated arguments
    evidence: tuple[int, ...]  # step numbers the verdict rests on
    call: Call | None

    @property
    def allowed(self) -> bool:
        """ALLOW or NUDGE: the tool may run."""
        return self.action is Action.ALLOW or self.action is Action.NUDGE

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: enums as their str values."""
        return {
            "action": str(self.action),
            "code": str(self.code),
            "reason": self.reason,
            "message": self.message,
            "evidence": list(self.evidence),
            "call": None if self.call is None else self.call.to_dict(),
            "allowed": self.allowed,
        }


@dataclass(frozen=True, slots=True)
class LearnedFailure:
    """A hard failure the guard remembers across sessions (refused while the workspace is
    unchanged)."""

    id: str
    tool: str
    signature: str
    error: str  # sanitized, shortened
    fingerprint: str
    session_id: str
    created_at: int  # unix ms
    step: int = 0
    preview: str = ""  # sanitized, shortened view of the arguments (for people)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "signature": self.signature,
            "error": self.error,
            "fingerprint": self.fingerprint,
            "session_id": self.session_id,
            "created_at": self.created_at,
            "step": self.step,
            "preview": self.preview,
        }


# The guard makes a Call and a Verdict or two per tool call; a frozen dataclass's __init__
# costs about 1 us a field-set, so the guard builds them by installing their __dict__ in one
# step (same objects: equality, hashing, repr and replace() are the dataclass's own).
_new = object.__new__
_set = object.__setattr__


def make_call(tool: str, signature: str, call_id: str, session_id: str, step: int) -> Call:
    c = _new(Call)
    _set(
        c,
        "__dict__",
        {
            "tool": tool,
            "signature": signature,
            "call_id": call_id,
            "session_id": session_id,
            "step": step,
        },
    )
    return c


def make_verdict(
    action: Action,
    code: VerdictCode,
    reason: str,
    message: str,
    evidence: tuple[int, ...],
    call: Call | None,
) -> Verdict:
    v = _new(Verdict)
    _set(
        v,
        "__dict__",
        {
            "action": action,
            "code": code,
            "reason": reason,
            "message": message,
            "evidence": evidence,
            "call": call,
        },
    )
    return v


_ALLOW_OK: dict[str, Any] = {
    "action": Action.ALLOW,
    "code": VerdictCode.OK,
    "reason": "",
    "message": "",
    "evidence": (),
    "call": None,
}


def allow_verdict(call: Call | None) -> Verdict:
    """`make_verdict(ALLOW, OK, "", "", (), call)`, the common verdict (a copy of a template
    dict is cheaper than building one)."""
    v = _new(Verdict)
    d = _ALLOW_OK.copy()
    d["call"] = call
    _set(v, "__dict__", d)
    return v


class GuardBlockedError(CRSError):
    """A guarded call was blocked (raised by `Guard.tool` and `Guard.guarded`); `.verdict`
    says why."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"{verdict.action}: {verdict.reason}")
        self.verdict = verdict


class GuardStoppedError(GuardBlockedError):
    """The guard says STOP: the agent should stop and hand back to the user."""
