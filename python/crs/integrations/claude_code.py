"""Claude Code hooks: the guard on every tool call of a Claude Code session.

`crs hook claude-code` is the hook command. Claude Code runs it once per event, a fresh
process each time, with the event's JSON on stdin (hooks reference, code.claude.com/docs/en/
hooks: `session_id`, `cwd`, `hook_event_name`, and for tool events `tool_name`,
`tool_input`, `tool_use_id`, `tool_response` or `error`, for `Stop` and `SubagentStop`
`last_assistant_message` and `stop_hook_active`). The project is the payload's `cwd` (its
`$CLAUDE_PROJECT_DIR` when the cwd lies inside it), the session is `session_id`, and a
subagent's (the payload has an `agent_id`) is `<session_id>/agent:<agent_id>`, so parallel
subagents reading the same files are not one looping agent; the guard's state is the
project's (`Guard.open`), shared by every session and every parallel hook process of the
project.

- `PreToolUse`: `before_call`. BLOCK or STOP: `permissionDecision` `deny` (`ask` with
  `--on-block ask`), with the guard's message for the model as `permissionDecisionReason`;
  NUDGE: the message as `additionalContext`; ALLOW: no output.
- `PostToolUse`, `PostToolUseFailure`: `after_call(result=tool_response)` or
  `after_call(error=error)` (a user's interrupt records nothing); a nudge as
  `additionalContext`; after a success a STOP also as `decision: block` with the message as
  `reason` (shown to Claude next to the tool result).
- A STOP (a budget, or a loop that went on after its nudges and blocks) on any of these also
  ends the agent's turn the documented way: `continue: false`, with the reason for the user
  as `stopReason`.
- `Stop`, `SubagentStop`: `on_message(last_assistant_message)`, the monologue check: the agent
  ending turn after turn with the same answer and no tool call (another Stop hook or `/goal`
  keeps it going). A NUDGE is a `systemMessage` for the user, and `additionalContext` for
  the model only when `stop_hook_active` says something else already keeps it going (at Stop,
  context alone would make Claude continue); a BLOCK or STOP is `continue: false` with
  `stopReason`, which ends the turn whatever other Stop hooks decided. `Stop` also saves a
  backup when the journal tail is long (between turns, where time is cheap).
- `UserPromptSubmit`: `new_turn(prompt)`: the same answer to prompts that ask nothing new
  ("any update?", the request again) is a monologue across turns; a new question is not.
- `SessionStart`: the failures learned in earlier sessions, as `additionalContext`.

The hook fails open: any internal error (a bad payload, a locked or damaged journal, a bug)
is logged to stderr and to `<home>/logs/claude-code.log`, and the hook exits 0 with no
output, so the tool runs as if crs were not installed. Only exit code 2 would block, and the
hook never uses it: its refusals are the documented JSON.

`crs hook install claude-code [--user|--project|--local] [--print]` merges the hooks block
into the chosen `settings.json`, keeping every other setting and hook.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from crs._errors import InvalidArgumentError

__all__ = [
    "EVENTS",
    "HookReply",
    "SettingsError",
    "handle",
    "hook_argv",
    "hook_command",
    "install",
    "main",
    "merge_settings",
    "settings_path",
]

EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
)
"""The Claude Code hook events `crs hook claude-code` answers."""

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
MARKER = "crs hook claude-code"
"""Every hook command crs installs contains this text (how a reinstall finds its own)."""
HOOK_TIMEOUT_S = 10
BACKUP_AFTER = 512  # journal records replayed on open above which a hook saves a backup
BACKUP_AFTER_ON_STOP = 64  # the same at Stop (between turns, where time is cheap)
_MAX_REMEMBERED = 10


@dataclass(frozen=True, slots=True)
class HookReply:
    """What the hook process writes: `stdout` (a JSON document or ""), its exit code."""

    stdout: str = ""
    exit_code: int = 0

    @staticmethod
    def of(doc: Mapping[str, Any] | None) -> HookReply:
        return HookReply(json.dumps(doc, separators=(",", ":")) if doc else "")


class SettingsError(Exception):
    """A settings file crs refuses to change (malformed JSON, or `hooks` of the wrong shape)."""


# ---------------------------------------------------------------------------- logging


def _home(home: str | os.PathLike[str] | None) -> Path:
    if home is not None:
        return Path(home).expanduser()
    env = os.environ.get("CRS_HOME")
    return Path(env).expanduser() if env else Path.home() / ".crs"


def _log(home: Path, message: str, stderr: IO[str] | None) -> str:
    """One line to stderr and to `<home>/logs/claude-code.log` (the line); never raises."""
    # inside: start-up (a hook that logs nothing does not load datetime)
    import datetime as _dt

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    line = f"{stamp} crs hook claude-code [{os.getpid()}]: {message}\n"
    with contextlib.suppress(Exception):
        if stderr is not None:
            stderr.write(line)
            stderr.flush()
    with contextlib.suppress(Exception):
        logs = home / "logs"
        logs.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(logs / "claude-code.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode(errors="replace"))
        finally:
            os.close(fd)
    return line


# ---------------------------------------------------------------------------- the hook


def _project(
    payload: Mapping[str, Any], cwd_default: str | None = None, root: str | None = None
) -> str:
    """The payload's `cwd` (else `cwd_default`, else this process's), or the project root
    `root` (default `$CLAUDE_PROJECT_DIR`) when the cwd lies inside it."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        cwd = cwd_default or os.getcwd()
    if root is None:
        root = os.environ.get("CLAUDE_PROJECT_DIR")
    project = cwd
    if root:
        with contextlib.suppress(ValueError, OSError):
            # inside the project as written (a symlink in it may lead elsewhere) or resolved
            if any(
                os.path.commonpath([norm(cwd), norm(root)]) == norm(root)
                for norm in (os.path.abspath, os.path.realpath)
            ):
                project = root
    if not os.path.isdir(project):  # removed, or made up: no project state for it
        from crs._check import brief  # inside: a bad payload only (the hook stays lean)

        raise ValueError(f"the project directory is not a directory: {brief(project)}")
    return project


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        got = "an empty string" if value == "" else type(value).__name__  # never the value
        raise ValueError(f"payload field {name!r} must be a non-empty string, got {got}")
    return value


def _call_id(payload: Mapping[str, Any]) -> str | None:
    """The payload's `tool_use_id`, or None when it is missing or not text (the call is
    decided without it rather than not at all; its value is never quoted). One longer than
    the guard takes is shortened (`call_key`: the same id, the same key, so its PreToolUse
    and PostToolUse still pair)."""
    value = payload.get("tool_use_id")
    if not isinstance(value, str) or not value:
        return None
    if len(value) > 256:
        # inside: only a long id pays for it (the hook's start-up stays as it is)
        from crs.guard._text import call_key

        return call_key(value)  # type: ignore[no-any-return]
    return value


def load_payload(data: bytes | str) -> Any:
    """The hook's JSON payload. Bytes that are not UTF-8, and lone surrogates (JavaScript's
    JSON.stringify writes a string cut between the halves of a pair as `\\ud83d`), become
    U+FFFD: the call is still guarded, rather than skipped as undecodable."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes | bytearray) else data
    payload = json.loads(text)
    if "\\ud" in text or "\\uD" in text:  # the only way a surrogate gets in
        # inside: only such a payload needs it (the hook's start-up stays as it is)
        from crs.guard._text import valid_text

        payload = valid_text(payload)
    return payload


class _LockStats(threading.local):
    """This thread's waits for and holds of the decision lock (the hook server's trace)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.count = 0
        self.wait_max = 0.0
        self.hold_max = 0.0


LOCK_STATS = _LockStats()


@contextlib.contextmanager
def _decision(guard: Any) -> Iterator[None]:
    """Hold the project's writer lock across a decision and its record: a parallel hook of
    the same project decides after this one, on a state that includes it."""
    writing = getattr(guard.crs, "_writing", None)
    if writing is None:
        yield
        return
    stats = LOCK_STATS
    t0 = time.perf_counter()
    with writing():
        t1 = time.perf_counter()
        try:
            yield
        finally:
            stats.count += 1
            stats.wait_max = max(stats.wait_max, t1 - t0)
            stats.hold_max = max(stats.hold_max, time.perf_counter() - t1)


def _guarded(tool: str, args: Mapping[str, Any] | None, decide: Callable[[str, Any], Any]) -> Any:
    """`decide(tool, args)`; a `tool_input` the guard refuses (nested too deep, a number too
    long to print) is the model's: the call is decided by a stand-in, as the frameworks' and
    MCP's calls are (`crs.guard._record.guarded`), not left unguarded by failing open. So is
    a tool name it refuses (too long, a credential in it: an MCP server's naming), under a
    stand-in name (`crs.guard._record.stand_in_tool`)."""
    try:
        return decide(tool, args)
    except InvalidArgumentError as exc:
        # inside: only a refused tool_input, tool name (or result) pays for importing it
        from crs.guard._record import guarded, stand_in_tool

        if str(exc).startswith("tool:"):
            tool = stand_in_tool(tool)
        return guarded(tool, args, functools.partial(decide, tool))


def _arguments(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The call's arguments: `tool_input`, an object. One that is not (a string, a list, a
    number: not what Claude Code sends, but what another harness or a hostile payload may)
    is the call's one argument, `{"tool_input": ...}`, so distinct inputs stay distinct
    calls (as no arguments, every such call of a tool was one, and two different failures
    refused the next, different, input)."""
    args = payload.get("tool_input")
    if args is None or isinstance(args, Mapping):
        return args
    return {"tool_input": args}


def _pre_tool_use(guard: Any, payload: Mapping[str, Any], on_block: str) -> HookReply:
    tool = _text(payload.get("tool_name"), "tool_name")
    args = _arguments(payload)
    call_id = _call_id(payload)
    # (the canonical form outside the lock: a big tool_input does not hold other hooks)
    hold = functools.partial(_decision, guard)
    v = _guarded(tool, args, lambda t, a: guard._before_held(t, a, call_id, hold))
    action = str(v.action)
    if action == "allow":
        return HookReply()
    if action == "nudge":
        return HookReply.of(_specific("PreToolUse", additionalContext=_for_model(v)))
    ask = on_block == "ask" and action == "block"
    doc = _specific(
        "PreToolUse",
        permissionDecision="ask" if ask else "deny",
        permissionDecisionReason=v.reason if ask else _for_model(v),
    )
    return HookReply.of(_stopping(doc, v))


def _post_tool_use(guard: Any, payload: Mapping[str, Any], failed: bool) -> HookReply:
    event = "PostToolUseFailure" if failed else "PostToolUse"
    tool = _text(payload.get("tool_name"), "tool_name")
    mapping = _arguments(payload)
    call_id = _call_id(payload)
    if failed and payload.get("is_interrupt"):
        return HookReply()  # the user stopped it: not the tool's failure
    # Only the decision and the record are under the lock: the canonical form, the digest
    # and the previews of a big tool_input or tool_response are computed before it.
    hold = functools.partial(_decision, guard)
    if failed:
        error = payload.get("error")
        error_text = str(error) if error else "the tool call failed"
        v = _guarded(
            tool, mapping, lambda t, a: guard._after_held(t, a, call_id, hold, error=error_text)
        )
    else:
        result = payload.get("tool_response")

        def after(t: str, a: Any) -> Any:
            try:
                return guard._after_held(t, a, call_id, hold, result=result)
            except InvalidArgumentError as exc:
                if not str(exc).startswith("result"):
                    raise
                # inside: only a result the guard cannot digest (nested too deep, too big)
                from crs.guard._record import record_with

                def record(r: Any, _e: str | None) -> Any:
                    return guard._after_held(t, a, call_id, hold, result=r)

                return record_with(record, result, None)

        v = _guarded(tool, mapping, after)
    action = str(v.action)
    if action == "allow" or not (v.message or v.reason):
        return HookReply()
    doc: dict[str, Any]
    if action in ("block", "stop") and not failed:
        # the documented refusal of a result: the reason next to it, for Claude (not the same
        # text a second time as additionalContext)
        doc = {"decision": "block", "reason": _for_model(v)}
    else:
        doc = _specific(event, additionalContext=_for_model(v))
    return HookReply.of(_stopping(doc, v))


def _stopping(doc: dict[str, Any], v: Any) -> dict[str, Any]:
    """`doc`, and for a STOP the documented end of the agent's turn: `continue: false` with
    the reason for the user as `stopReason` (not shown to Claude)."""
    if str(v.action) == "stop":
        doc.update({"continue": False, "stopReason": _for_user(v)})
    return doc


def _for_user(v: Any) -> str:
    code = f" ({v.code})" if getattr(v, "code", "") else ""
    return f"crs stopped the agent{code}: {v.reason or v.message}"


def _stop(guard: Any, payload: Mapping[str, Any], event: str) -> HookReply:
    """`Stop` / `SubagentStop`: the turn's last message is an agent message (monologue
    check). Only what ends or informs is answered: at Stop, context or `decision: block`
    would make Claude go on, the opposite of what a repeating agent needs."""
    text = payload.get("last_assistant_message")
    if not isinstance(text, str) or not text.strip():
        return HookReply()  # an older Claude Code, or a turn with no text: nothing to check
    with _decision(guard):
        v = guard.on_message(text)
    action = str(v.action)
    if action == "allow":
        return HookReply()
    if action == "nudge":
        doc: dict[str, Any] = {"systemMessage": f"crs: {v.reason}"}
        if payload.get("stop_hook_active") is True:  # another hook keeps it going anyway
            doc.update(_specific(event, additionalContext=_for_model(v)))
        return HookReply.of(doc)
    return HookReply.of({"continue": False, "stopReason": _for_user(v)})


def _session_start(guard: Any) -> HookReply:
    remembered = guard.learned()
    if not remembered:
        return HookReply()
    lines = [
        f"crs (the loop guard of this project) remembers {len(remembered)} failed tool "
        "call(s) from earlier work here. The identical call is refused while the workspace "
        "is unchanged; change the code or the command first:"
    ]
    for f in remembered[:_MAX_REMEMBERED]:
        what = f" {f.preview}" if getattr(f, "preview", "") else ""
        lines.append(f"- {f.tool}{what}: {_one_line(f.error)}")
    if len(remembered) > _MAX_REMEMBERED:
        lines.append(f"- ... and {len(remembered) - _MAX_REMEMBERED} more")
    return HookReply.of(_specific("SessionStart", additionalContext="\n".join(lines)))


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _for_model(v: Any) -> str:
    return str(v.message or v.reason or "crs: this call repeats what already failed")


def _specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


def _maybe_backup(guard: Any, threshold: int) -> None:
    """Save the project's backup when opening it replayed more than `threshold` records,
    so the next hook loads the backup and a short tail instead of the whole journal."""
    crs = guard.crs
    info = getattr(crs, "project_info", None)
    if info is not None and info().replayed_records > threshold:
        crs.save_project_backup()


def event_of(payload: Any) -> tuple[str, str] | None:
    """(event, session) of a payload crs answers, None for another event; ValueError for
    a payload that is not a JSON object or has no session."""
    if not isinstance(payload, Mapping):
        raise ValueError(f"the hook payload must be a JSON object, got {type(payload).__name__}")
    event = payload.get("hook_event_name")
    if event not in EVENTS:
        return None  # an event crs does not handle: no opinion
    session = _text(payload.get("session_id"), "session_id")
    agent = payload.get("agent_id")
    if isinstance(agent, str) and agent:  # a subagent's call: its own sequence of calls
        session = f"{session}/agent:{agent}"
    return str(event), session


def tool_fingerprint(event: str, project: str) -> Callable[[], str] | None:
    """For a tool event, the guard's fingerprint: the workspace's at this call, computed at
    most once (a git process). The guard asks for it only to learn a failure or to match a
    failure learned earlier, so it is computed then, except for a failure event, where it
    is certain to be needed: computed now, before any lock is taken, not while parallel hooks
    wait."""
    if event not in _TOOL_EVENTS:
        return None
    # inside: start-up (the hook imports the guard only for an event it decides)
    from crs.guard import workspace_fingerprint

    value: list[str] = []

    def fingerprint() -> str:
        if not value:
            value.append(workspace_fingerprint(project))
        return value[0]

    if event == "PostToolUseFailure":
        fingerprint()
    return fingerprint


def open_guard(
    project: str,
    session: str,
    home: str | os.PathLike[str] | None,
    fingerprint: Callable[[], str] | None,
) -> Any:
    """`Guard.open` of the hook's session (`open_project` opens again by itself when
    another process checkpointed the journal while it was read)."""
    # inside: start-up, as above
    from crs.guard import Guard

    return Guard.open(project, session, home, fingerprint=fingerprint)


def answer(guard: Any, payload: Mapping[str, Any], event: str, on_block: str) -> HookReply:
    """The reply to one event of `event_of(payload)`, decided by `guard` (the session's)."""
    if event == "PreToolUse":
        return _pre_tool_use(guard, payload, on_block)
    if event in ("PostToolUse", "PostToolUseFailure"):
        return _post_tool_use(guard, payload, event == "PostToolUseFailure")
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")  # the user's text (only its word digests are kept)
        with _decision(guard):
            guard.new_turn(prompt if isinstance(prompt, str) else None)
    elif event == "SessionStart":
        return _session_start(guard)
    elif event in ("Stop", "SubagentStop"):
        return _stop(guard, payload, event)
    return HookReply()  # UserPromptSubmit


def handle(
    payload: Mapping[str, Any],
    *,
    home: str | os.PathLike[str] | None = None,
    on_block: str = "deny",
) -> HookReply:
    """Answer one hook event in this process (raises on a bad payload or an internal
    error; `main` fails open around it). The hook server answers with the same functions."""
    parsed = event_of(payload)
    if parsed is None:
        return HookReply()
    event, session = parsed
    project = _project(payload)
    guard = open_guard(project, session, home, tool_fingerprint(event, project))
    try:
        reply = answer(guard, payload, event, on_block)
        _maybe_backup(guard, BACKUP_AFTER_ON_STOP if event == "Stop" else BACKUP_AFTER)
        return reply
    finally:
        guard.close()


def _trace(path: str, event: Any, t0: float, guard_error: str, via: str) -> None:
    """One JSON line per invocation to `$CRS_HOOK_TRACE` (benchmarks and tests)."""
    # inside: only a traced run (benchmarks, tests) reads the lock statistics
    from crs._journal._local import LocalJournal

    waits = LocalJournal.process_lock_waits()
    row = {
        "pid": os.getpid(),
        "via": via,
        "event": event,
        "ms": round((time.perf_counter() - t0) * 1000, 3),
        "locks": waits[0],
        "lock_wait_max_ms": round(waits[2] * 1000, 3),
        "lock_hold_max_ms": round(LocalJournal.process_lock_hold_max() * 1000, 3),
        "error": guard_error,
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def run(
    stdin: IO[str],
    stdout: IO[str],
    stderr: IO[str],
    *,
    home: str | os.PathLike[str] | None = None,
    on_block: str = "deny",
    data: bytes | str | None = None,
    t0: float | None = None,
    via: str = "in-process",
) -> int:
    """Read one payload from `stdin` (or take `data`), answer on `stdout`; the exit code.
    Fails open. `t0` (perf_counter) and `via` are for the `$CRS_HOOK_TRACE` line."""
    if t0 is None:
        t0 = time.perf_counter()
    base = _home(home)
    event: Any = None
    error = ""
    reply = HookReply()
    try:
        if data is None:
            data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        payload = load_payload(data)
        if isinstance(payload, dict):
            event = payload.get("hook_event_name")
        reply = handle(payload, home=home, on_block=on_block)
    except Exception as exc:  # fail open: the user's tool must run
        error = f"{type(exc).__name__}: {exc}"
        _log(base, f"{event or 'hook'} failed open ({error})", stderr)
        reply = HookReply()
    if reply.stdout:
        stdout.write(reply.stdout + "\n")
        stdout.flush()
    trace = os.environ.get("CRS_HOOK_TRACE")
    if trace:
        with contextlib.suppress(Exception):
            _trace(trace, event, t0, error, via)
    return reply.exit_code


# ---------------------------------------------------------------------------- install


SOFT_EXIT = " || exit 1"
"""The end of the installed command: Claude Code reads a PreToolUse hook's exit code 2 as
"block the tool call", and Python exits 2 when its script is missing (crs uninstalled, a
checkout moved, with the hooks left in the settings): every tool call was refused. Any
failure of the command is exit 1 instead (a non-blocking error: shown to the user, the tool
runs); the hook itself always exits 0."""


def hook_argv(on_block: str = "deny") -> list[str]:
    """The hook's command as an argument vector: this Python, the hook's thin client file
    (the same as `-m crs hook claude-code`, without importing the `crs` package: 20 ms less
    a hook)."""
    client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hook_client.py")
    argv = [sys.executable, client, *MARKER.split()]
    return argv + (["--on-block", "ask"] if on_block == "ask" else [])


def hook_command(on_block: str = "deny") -> str:
    """The command line Claude Code runs (through its shell): `hook_argv`, quoted, then
    `SOFT_EXIT`."""
    # inside: start-up (only the installer quotes a command line)
    import shlex

    python, client, *rest = hook_argv(on_block)
    return f"{shlex.quote(python)} {shlex.quote(client)} {' '.join(rest)}{SOFT_EXIT}"


def settings_path(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
    """`user`: `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR` if set); `project`:
    `<project>/.claude/settings.json`; `local`: `<project>/.claude/settings.local.json`."""
    if scope == "user":
        config = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(config).expanduser() if config else Path.home() / ".claude") / "settings.json"
    base = Path(project_dir if project_dir is not None else os.getcwd()) / ".claude"
    if scope == "project":
        return base / "settings.json"
    if scope == "local":
        return base / "settings.local.json"
    from crs._check import brief  # inside: a bad scope only

    raise ValueError(f"scope: must be 'user', 'project' or 'local', got {brief(scope)}")


def _ours(handler: Any) -> bool:
    return isinstance(handler, Mapping) and MARKER in str(handler.get("command", ""))


def merge_settings(settings: Mapping[str, Any], command: str) -> dict[str, Any]:
    """`settings` with crs's hook on every event of `EVENTS`, everything else kept.

    A crs hook already there (any command containing `MARKER`) is updated in place, so
    merging twice gives the same result; other hooks, matchers and settings are untouched.

    Raises:
        SettingsError: `settings` or its `hooks` do not have the documented shape.
    """
    if not isinstance(settings, Mapping):
        raise SettingsError("the settings file does not hold a JSON object")
    out: dict[str, Any] = json.loads(json.dumps(settings))  # a deep copy of plain JSON
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError('"hooks" must be an object mapping event names to lists')
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list) or not all(
            isinstance(g, dict) and isinstance(g.get("hooks", []), list) for g in groups
        ):
            raise SettingsError(f'"hooks.{event}" must be a list of {{"hooks": [...]}} objects')
        mine = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
        found = False
        for group in groups:
            kept = []
            for h in group.get("hooks", []):
                if _ours(h):
                    if not found:
                        kept.append(mine)
                        found = True
                    continue  # a duplicate of ours
                kept.append(h)
            if "hooks" in group:
                group["hooks"] = kept
        hooks[event] = [g for g in groups if g.get("hooks") or "hooks" not in g]
        if not found:
            group_new: dict[str, Any] = {"hooks": [mine]}
            if event in _TOOL_EVENTS:
                group_new = {"matcher": "*", **group_new}
            hooks[event].append(group_new)
    return out


def install(
    path: Path, command: str, *, write: bool = True, root: Path | None = None
) -> tuple[str, bool, Path | None]:
    """Merge crs's hooks into the settings file at `path`.

    Returns (the new file text, whether it differs from the old, the backup path). The
    old file is copied to `<name>.<UTC time>.bak` before it is replaced (atomically, mode
    kept); an unchanged file is not rewritten.

    Raises:
        SettingsError: the file is not UTF-8 JSON, not of the documented shape, or cannot
            be read or written (nothing is written). A symlink is followed: the file it
            names is the one updated, the link stays; with `root` (a project's settings),
            only to a file inside `root`.
    """
    if path.is_symlink():  # a dotfile manager's link: the file it names gets the hooks
        target = Path(os.path.realpath(path))
        inside = root is None or target.is_relative_to(os.path.realpath(root))
        if not inside:  # a checkout's link to a file of the user's: not crs's to change
            raise SettingsError(f"{path}: a symlink to {target}, outside the project; not followed")
        path = target
    old_text = None
    try:
        old_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        pass
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not valid UTF-8 text ({exc.reason}); fix it first") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if old_text is not None and old_text.strip():
        try:
            settings = json.loads(old_text)
        except json.JSONDecodeError as exc:
            raise SettingsError(f"{path}: not valid JSON ({exc}); fix it first") from None
    else:
        settings = {}
    try:
        merged = merge_settings(settings, command)
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc}") from None
    text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    changed = old_text is None or json.loads(old_text or "{}") != merged
    backup = None
    if write and changed:
        try:
            backup = _replace(path, text, old_text is not None)
        except OSError as exc:
            raise SettingsError(f"{path}: cannot write it ({exc.strerror or exc})") from None
    return text, changed, backup


def _replace(path: Path, text: str, existed: bool) -> Path | None:
    """Write `text` to `path` atomically (mode kept), the old file first copied to
    `<name>.<UTC time>.bak`; the backup's path."""
    # inside: start-up (the hook itself never installs: it does not load these)
    import datetime as _dt
    import shutil

    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o644
    if existed:
        mode = path.stat().st_mode & 0o777
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = path.with_name(f"{path.name}.{stamp}.bak")
        shutil.copy2(path, backup)
    # inside: only the installer writes files (the hook's start-up stays as it is)
    import tempfile

    # a fresh file (O_EXCL): a name planted in the directory, a symlink, is never written
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".crs-tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, mode)
            os.write(fd, text.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return backup


# ---------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    """`crs hook claude-code [--on-block deny|ask] [--home DIR]` answered in this process,
    with no hook server (what the thin client `_hook_client` falls back to)."""
    # inside: start-up (the server and the client never parse arguments here)
    import argparse

    parser = argparse.ArgumentParser(prog="crs hook claude-code", add_help=False)
    parser.add_argument("--on-block", default="deny")
    parser.add_argument("--home")
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        known, extra = parser.parse_known_args(args)
    except SystemExit:  # a flag without its value: never exit 2 (that would block)
        known, extra = parser.parse_known_args([])[0], list(args)
    if known.on_block not in ("deny", "ask"):
        extra.append(f"--on-block {known.on_block}")
        known.on_block = "deny"
    for flag in extra:  # an unknown flag must not break the user's tools: note it, go on
        from crs._check import brief  # inside: an unknown flag only

        _log(_home(known.home), f"ignoring unknown argument {brief(flag)}", sys.stderr)
    return run(sys.stdin, sys.stdout, sys.stderr, home=known.home, on_block=known.on_block)


def main_install(scope: str, project_dir: str | None, print_only: bool, on_block: str) -> int:
    """`crs hook install claude-code`: exit 0 on success, 1 when the file is refused."""
    path = settings_path(scope, project_dir)
    root = None if scope == "user" else path.parent.parent  # a checkout's links stay in it
    if root is not None and not root.is_dir():  # a typo: nothing to install into
        print(f"crs: no such directory: {root}", file=sys.stderr)
        return 1
    try:
        text, changed, backup = install(
            path, hook_command(on_block), write=not print_only, root=root
        )
    except SettingsError as exc:
        print(f"crs: {exc}", file=sys.stderr)
        return 1
    if print_only:
        sys.stdout.write(text)
        return 0
    if not changed:
        print(f"crs hooks for Claude Code already installed in {path}")
    else:
        saved = f" (previous file saved as {backup})" if backup else ""
        print(f"crs hooks for Claude Code installed in {path}{saved}")
    return 0


def register(sub: Any) -> None:
    """Add `crs hook claude-code` and `crs hook install claude-code` to the CLI."""
    hook = sub.add_parser("hook", help="agent hooks: the Claude Code hook and its installer")
    hsub = hook.add_subparsers(dest="hook_command", metavar="HOOK", required=True)
    cc = hsub.add_parser(
        "claude-code", help="the Claude Code hook command: one event's JSON on stdin"
    )
    cc.add_argument("--on-block", choices=["deny", "ask"], default="deny")
    cc.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
    cc.set_defaults(
        func=lambda a: run(sys.stdin, sys.stdout, sys.stderr, home=a.home, on_block=a.on_block)
    )
    inst = hsub.add_parser("install", help="merge crs's hooks into Claude Code's settings.json")
    inst.add_argument("target", choices=["claude-code"])
    where = inst.add_mutually_exclusive_group()
    for scope, text in (
        ("user", "~/.claude/settings.json (every project)"),
        ("project", "<dir>/.claude/settings.json (the default; shared with the repository)"),
        ("local", "<dir>/.claude/settings.local.json (this checkout only)"),
    ):
        where.add_argument(f"--{scope}", dest="scope", action="store_const", const=scope, help=text)
    inst.add_argument("--dir", help="the project directory (default: the current directory)")
    inst.add_argument("--print", action="store_true", help="print the merged file, write nothing")
    inst.add_argument("--on-block", choices=["deny", "ask"], default="deny")
    inst.set_defaults(
        scope="project",
        func=lambda a: main_install(a.scope, a.dir, a.print, a.on_block),
    )
