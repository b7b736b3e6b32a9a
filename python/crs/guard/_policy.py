"""Thresholds of the guard: one `GuardPolicy`, per-tool `ToolPolicy` overrides, hard caps."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from crs._check import brief
from crs._errors import InvalidArgumentError

COMMENTARY_FIELDS: frozenset[str] = frozenset(
    {
        "description",
        "reason",
        "reasoning",
        "thought",
        "thoughts",
        "explanation",
        "rationale",
        "justification",
        "comment",
        "note",
        "notes",
        "intent",
        "purpose",
        "summary",
        "why",
        "goal",
    }
)
"""Argument fields that carry the model's commentary, not the call's identity."""

CONTENT_FIELDS: frozenset[str] = frozenset({"description", "summary", "comment", "note", "notes"})
"""Commentary fields (as `field_key` spells them) that are a record's content in a call of a
tool that creates or changes records (`create_issue(summary=..., description=...)`,
`add_comment(comment=...)`): kept in its signature. Not for a tool that runs a command
(Claude Code's `Bash` `description` says what the command does)."""

COMMAND_FIELDS: frozenset[str] = frozenset(
    {"command", "cmd", "script", "shell", "bash", "commandline", "command_line", "cmdline"}
)
"""Argument fields holding a shell command (normalised by shlex split and join)."""

MUTATING_PATTERN = (
    r"(?i)(^|[_.\-:/ ])(edit|write|patch|create|delete|remove|rm|move|mv|rename|replace|insert|"
    r"apply|update|save|append|modify|mkdir|touch|commit|notebookedit|multiedit|str_replace|"
    r"editor|overwrite|upsert|put|creation|deletion|insertion|removal|writer|creator|"
    r"python|ipython|jupyter|notebook|exec|execute|eval|code_interpreter|install|build)"
    r"([_.\-:/ ]|$)|^(Edit|Write|MultiEdit|NotebookEdit)$"
)
"""Tools whose success changes the workspace (the in-memory guard's fingerprint). `editor`,
`overwrite`, `upsert` and `put` since fresh7: OpenHands' `file_editor` and `claude_editor`
edit as `str_replace_editor` does, and `put_file`, `overwrite_file`, `upsert_file` write.
The nouns of those verbs since fresh11: BabyAGI's `task_creation_agent` creates tasks,
CrewAI's `file_writer_tool` writes, a `record_deletion` deletes."""

POLL_PATTERN = r"(?i)(^|[_.\-:/ ;&])(wait|poll|sleep|watch)([_.\-:/ ;&]|$)"
"""Tools, or shell commands, that wait for something to change (`sleep 30 && kubectl get`):
an unchanged result is expected for a while (`poll_repeat` applies, not `repeat_nudge`)."""

SHELL_PATTERN = (
    r"(?i)^(bash|shell|sh|zsh|terminal|run|run_command|run_shell|exec|execute|"
    r"execute_command|run_terminal_cmd|local_shell|shell_command|computer)$"
)
"""Tools that run shell commands: a successful command that is not read-only (`cat`, `ls`,
`grep`, `git status` ...) counts as a workspace change."""

RUNS_PATTERN = (
    r"(?i)(^|[_.\-:/ ])(exec|execute|run|shell|bash|sh|zsh|terminal|command|cmd)([_.\-:/ ]|$)"
)
"""Tools whose name says they run a command (`fabric_exec`, `execute_command`,
`run_in_terminal`): when the call carries a shell command, the command, not the name,
says whether it changes the workspace (`cat`, `ls`, `git status` do not)."""

EDITS_PATTERN = (
    r"(?i)(^|[_.\-:/ ])(edit|write|patch|create|delete|remove|move|rename|replace|insert|"
    r"apply|update|save|append|modify|commit|str_replace)([_.\-:/ ]|$)"
)
"""Tool-name words that say the tool edits whatever its command field says."""

CLOCK_PATTERN = (
    r"(?i)(^|__|[.:/])(get[_-]?)?(current[_-]?|local[_-]?|system[_-]?|utc[_-]?)?"
    r"(time|date|datetime|clock|now|today)([_-]?(now|utc|local))?$"
)
"""Tools that read the clock (`get_current_time`, the MCP time server's tool, `current_time`,
`now`, `getDate`): read between other calls, each answer is a new time whatever its masked
digest says, so the rule of a pair repeated within the session (`repeat_in_session`) leaves
them out; read again and again in a row with nothing else between, the clock is a loop
(the repeat and cycle rules hold). Not `time_series_query`, `update_timestamp`,
`convert_time`: the whole name (after a server prefix: `mcp__time__`, `functions.`) is
about the clock."""

THINK_PATTERN = (
    r"(?i)(^|[_.:/-])(think|thinking|think_tool|sequentialthinking|sequential_thinking|"
    r"reflect)$"
)
"""Tools through which the model thinks aloud (Anthropic's `think`, the MCP server's
`sequentialthinking`): their `thought` is the call's content, not commentary on it, and
their result acknowledges whatever the thought; two thoughts that share words are not one
call said again (no near-duplicates; the same thought again is still a repeat, fresh6)."""

_SEP = r"[_.\-:/ ]"
_CREATE_VERBS = r"(create|add|insert|post|send|submit|publish|place|book|schedule)"
_RECORDS = (
    r"(post|article|page|issue|ticket|bug|comment|reply|review|email|mail|message|msg|sms|"
    r"notification|tweet|toot|event|invite|invitation|order|invoice|payment|charge|refund|"
    r"transfer|booking|reservation|appointment|meeting|row|record|entry|document|task|todo|"
    r"note|card|lead|contact|customer|user|account|subscription|release|pull|pr|draft|"
    r"expense|transaction|shipment|campaign|webhook)(s|es)?"
)
_MEMORY = r"(memory|memories|passage|passages)"  # an agent's memory store (fresh11)
_MEMORY_VERBS = r"(append|save|store|remember|write|create|add|insert)"
_READS = r"(get|list|read|fetch|search|find|check|view|show|query|count|describe|watch|poll|wait)"
_WORDS = rf"({_SEP}+[^_.\-:/ ]+)?{_SEP}+"  # the next word, or the one after it
CREATES_PATTERN = (
    rf"(?i)^(?!.*(^|{_SEP}){_READS}({_SEP}|$))(.*(^|{_SEP})("
    rf"publish|{_CREATE_VERBS}{_WORDS}{_RECORDS}|{_RECORDS}{_SEP}+{_CREATE_VERBS}"
    rf"|{_MEMORY_VERBS}{_WORDS}{_MEMORY}|{_MEMORY}{_SEP}+{_MEMORY_VERBS}"
    rf")({_SEP}|$))"
)
"""Tools whose name says each successful run creates a record (`create_issue`,
`send_email`, `insert_row`, `add_comment`, `post_message`, `wordpress_publish`,
`issue_create`): a creating verb and the name of a record (the next word, or the one after
it), or `publish`, with no word of reading (`get`, `list`, `check`, `search` ...: a
`check_new_messages` reads). A verb alone says too little (`send_keys` types into a
terminal, `add_numbers` adds, `http_post` may query, `create_file` writes the same file
again), and so does a record alone. The guard takes a tool it finds this way as creating
only once a run with the same arguments succeeded again with another answer of the same
shape (a new id): see `ToolPolicy.creates`. A memory store's writes (`save_memory`,
`core_memory_append`, `archival_memory_insert`, `add_memories`) make a memory each: the
same memory saved again is a duplicate, as the same issue filed again is (fresh11)."""

THOUGHT_FIELDS: frozenset[str] = frozenset({"thought", "thoughts", "reasoning", "reflection"})
"""The fields that carry a thinking tool's thought (`thought`, autonomys' `thoughts`, a
deep-research `think_tool`'s `reflection`): kept in its signature. Its other commentary
fields (`description`, `note`) stay commentary, left out as for any tool (fresh7)."""

HARD_MAX_REPEATS = 50
"""No policy lets the same call with the same result repeat more often than this."""
HARD_MAX_POLLS = 500
"""No policy lets one call be polled more often than this in a session."""


def _positive(name: str, value: Any, *, optional: bool = False, floor: int = 1) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < floor:
        raise InvalidArgumentError(f"{name}: must be an int >= {floor}, got {brief(value)}")


def _seconds(name: str, value: Any, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise InvalidArgumentError(
            f"{name}: must be a finite number of seconds >= 0, got {brief(value)}"
        )


@dataclass(frozen=True)
class ToolPolicy:
    """Overrides for one tool; None keeps the guard policy's value. Every threshold stays
    under the hard caps (`HARD_MAX_REPEATS`, `HARD_MAX_POLLS`).

    `creates`: each successful run of the tool creates a record (a post, an issue, an
    email, a row, an order), so the same call succeeding twice made a duplicate, whatever
    the results say. True: the second success of one call in a request is nudged and a
    third run refused; False: never (no inference from the name either); None: inferred
    from the name (`GuardPolicy.creates_pattern`), confirmed by a second success whose
    answer differs from the first only in words that carry a digit (a new id). A tool that
    creates records is `mutating` unless that is set."""

    repeat_nudge: int | None = None
    poll_repeat: int | None = None
    poll_budget: int | None = None
    max_failures: int | None = None
    transient_retries: int | None = None
    max_calls: int | None = None
    mutating: bool | None = None
    polling: bool | None = None
    learn_failures: bool | None = None
    ignore_fields: frozenset[str] = frozenset()
    creates: bool | None = None

    def __post_init__(self) -> None:
        for name in (
            "repeat_nudge",
            "poll_repeat",
            "poll_budget",
            "max_failures",
            "transient_retries",
        ):
            _positive(f"ToolPolicy.{name}", getattr(self, name), optional=True)
        _positive("ToolPolicy.max_calls", self.max_calls, optional=True)
        for name in ("mutating", "polling", "learn_failures", "creates"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, bool):
                raise InvalidArgumentError(
                    f"ToolPolicy.{name}: must be a bool or None, got {brief(v)}"
                )
        object.__setattr__(
            self, "ignore_fields", _names("ToolPolicy.ignore_fields", self.ignore_fields)
        )


def _names(name: str, value: Any) -> frozenset[str]:
    if not isinstance(value, set | frozenset | list | tuple) or not all(
        isinstance(v, str) for v in value
    ):
        raise InvalidArgumentError(f"{name}: must be a collection of str, got {brief(value)}")
    return frozenset(value)


@dataclass(frozen=True)
class GuardPolicy:
    """When the guard nudges, blocks and stops.

    Loops are judged on (signature, result digest) pairs: the same pair again is no
    progress. A loop is reported once its block has fully repeated: `repeat_nudge` identical
    pairs in a row, or a block of 2..`max_period` pairs seen twice in a row. After a nudge,
    a call predicted to continue the loop is blocked; `stop_after_blocks` blocks in a row
    give STOP.

    Args:
        repeat_nudge: identical (call, result) pairs in a row before a nudge.
        repeat_in_session: occurrences of one pair (unchanged workspace) before a nudge,
            however far apart.
        max_period: the longest cycle looked for.
        no_progress_window: completed calls in a row that produced nothing new.
        poll_budget: runs of one polled call (its result changes between runs) that bring
            back a result it returned before, in an unchanged workspace: polling that goes
            round the same states. A run with a result never seen before is new data
            (reading a stream, progress), not counted.
        max_failures: hard failures in a row of one call before it is blocked (error loop).
        transient_retries: transient failures (timeout, rate limit, 5xx, network) in a row of
            one call before it is blocked (retry budget).
        stop_after_blocks: blocks in a row before STOP.
        cooldown_s: a block is half-open again after this many seconds.
        near_duplicate: similarity (0..1, token Jaccard; MinHash for long texts) of the
            free-text arguments from which a reworded call of the same tool, on the same
            resources, with the same result as an earlier one counts as the same call.
        poll_repeat: identical results in a row allowed to a call that waits (`sleep`,
            `wait`, `watch`, `poll` in its tool name or command).
        monologue_repeats: the same (or a near-identical) agent message in a row, with no
            tool call in between, before a nudge.
        monologue_max: agent messages in a row with no tool call before a nudge.
        max_calls, max_calls_per_tool, max_wall_time_s: budgets per session (None = none);
            exceeding one gives STOP with code budget.
        known_failure_ttl_s: how long a learned failure is remembered.
        learn_failures: remember hard failures (refused while the workspace is unchanged).
        commentary_fields, command_fields: argument fields left out of the signature / shell
            commands normalised with shlex.
        mutating_pattern, poll_pattern: regexes over tool names (and, for polling, shell
            commands) of tools that change the workspace / wait for a change; a camelCase
            name is also tried with its words split (`editFile` as `edit_File`).
        creates_pattern: a regex over tool names of tools that may create a record with
            each run (`create_issue`, `send_email`); None: no inference, only
            `ToolPolicy.creates`.
        tools: per-tool overrides.
    """

    repeat_nudge: int = 3
    repeat_in_session: int = 5
    max_period: int = 8
    no_progress_window: int = 12
    poll_budget: int = 30
    max_failures: int = 2
    transient_retries: int = 3
    stop_after_blocks: int = 3
    cooldown_s: float = 300.0
    near_duplicate: float = 0.3
    poll_repeat: int = 6
    monologue_repeats: int = 3
    monologue_max: int = 12
    max_calls: int | None = None
    max_calls_per_tool: int | None = None
    max_wall_time_s: float | None = None
    known_failure_ttl_s: float = 7 * 24 * 3600.0
    learn_failures: bool = True
    commentary_fields: frozenset[str] = COMMENTARY_FIELDS
    command_fields: frozenset[str] = COMMAND_FIELDS
    mutating_pattern: str = MUTATING_PATTERN
    poll_pattern: str = POLL_PATTERN
    creates_pattern: str | None = CREATES_PATTERN
    tools: Mapping[str, ToolPolicy] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (
            "repeat_nudge",
            "repeat_in_session",
            "no_progress_window",
            "poll_budget",
            "max_failures",
            "transient_retries",
            "stop_after_blocks",
            "monologue_repeats",
            "monologue_max",
            "poll_repeat",
        ):
            _positive(
                f"GuardPolicy.{name}", getattr(self, name), floor=2 if "repeat" in name else 1
            )
        _positive("GuardPolicy.max_period", self.max_period, floor=1)
        if self.max_period > 32:
            raise InvalidArgumentError(
                f"GuardPolicy.max_period: must be <= 32, got {self.max_period}"
            )
        _positive("GuardPolicy.max_calls", self.max_calls, optional=True)
        _positive("GuardPolicy.max_calls_per_tool", self.max_calls_per_tool, optional=True)
        _seconds("GuardPolicy.max_wall_time_s", self.max_wall_time_s, optional=True)
        _seconds("GuardPolicy.cooldown_s", self.cooldown_s)
        _seconds("GuardPolicy.known_failure_ttl_s", self.known_failure_ttl_s)
        nd = self.near_duplicate
        if isinstance(nd, bool) or not isinstance(nd, int | float) or not 0 < nd <= 1:
            raise InvalidArgumentError(
                f"GuardPolicy.near_duplicate: must be in (0, 1], got {brief(nd)}"
            )
        if not isinstance(self.learn_failures, bool):
            raise InvalidArgumentError("GuardPolicy.learn_failures: must be a bool")
        object.__setattr__(
            self,
            "commentary_fields",
            _names("GuardPolicy.commentary_fields", self.commentary_fields),
        )
        object.__setattr__(
            self, "command_fields", _names("GuardPolicy.command_fields", self.command_fields)
        )
        for name in ("mutating_pattern", "poll_pattern", "creates_pattern"):
            if name == "creates_pattern" and self.creates_pattern is None:
                continue
            try:
                re.compile(getattr(self, name))
            except (re.error, TypeError) as exc:
                raise InvalidArgumentError(f"GuardPolicy.{name}: not a regex ({exc})") from None
        if not isinstance(self.tools, Mapping) or not all(
            isinstance(k, str) and isinstance(v, ToolPolicy) for k, v in self.tools.items()
        ):
            raise InvalidArgumentError(
                f"GuardPolicy.tools: must map tool names to ToolPolicy, got {brief(self.tools)}"
            )
        object.__setattr__(self, "tools", dict(self.tools))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, frozenset):
                v = sorted(v)
            elif f.name == "tools":
                v = {
                    k: {
                        g.name: (sorted(x) if isinstance(x, frozenset) else x)
                        for g in fields(t)
                        for x in [getattr(t, g.name)]
                    }
                    for k, t in v.items()
                }
            out[f.name] = v
        return out


@dataclass(frozen=True, slots=True)
class Limits:
    """The effective thresholds for one tool (policy, tool override, hard caps)."""

    repeat_nudge: int
    poll_repeat: int
    poll_budget: int
    max_failures: int
    transient_retries: int
    max_calls: int | None
    mutating: bool
    polling: bool
    shell: bool
    learn_failures: bool
    # the call's shell command decides whether it mutates (a tool that runs commands, with
    # no explicit ToolPolicy.mutating): `cat` through `fabric_exec` is a read
    command_decides: bool
    # `ignore_fields` by `field_key` (case, `_` and `-` aside): `Description`, `Reason`
    ignore_keys: frozenset[str]
    ignore_fields: frozenset[str]
    # each success creates a record: CREATES (ToolPolicy.creates), MAY_CREATE (the name says
    # so: confirmed by a second success answering with another id) or 0
    creates: int


MAY_CREATE, CREATES = 1, 2  # `Limits.creates`

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _named(pattern: re.Pattern[str], tool: str) -> bool:
    """`pattern` finds its word in the tool's name, the words of a camelCase name split
    (`editFile`, `applyPatch`, `waitForDeploy` name what `edit_file`, `apply_patch`,
    `wait_for_deploy` do)."""
    if pattern.search(tool) is not None:
        return True
    split = _CAMEL.sub("_", tool)
    return split != tool and pattern.search(split) is not None


def limits_for(
    policy: GuardPolicy, tool: str, mutating_re: re.Pattern[str], poll_re: re.Pattern[str]
) -> Limits:
    t = policy.tools.get(tool) or ToolPolicy()

    def pick(a: Any, b: Any) -> Any:
        return b if a is None else a

    # a thinking tool's thought is its content: kept in its signature (fresh6), its other
    # commentary is not (fresh7)
    commentary = policy.commentary_fields
    if _named(_THINKS_RE, tool):
        commentary = frozenset(f for f in commentary if field_key(f) not in THOUGHT_FIELDS)
    creates = _creates(policy, t, tool)
    mutating = pick(t.mutating, t.creates is True or _named(mutating_re, tool))
    command_decides = t.mutating is None and _named(_RUNS_RE, tool) and not _named(_EDITS_RE, tool)
    if (creates or mutating) and not command_decides:
        # what a tool that creates or changes a record is given as its description, summary,
        # comment or note is the record's content (Jira's `summary`, a calendar event's,
        # Linear's `description`, a comment added), not the model's commentary on the call:
        # two issues filed with other summaries are two calls, not a duplicate (rt10)
        commentary = frozenset(f for f in commentary if field_key(f) not in CONTENT_FIELDS)

    return Limits(
        repeat_nudge=min(pick(t.repeat_nudge, policy.repeat_nudge), HARD_MAX_REPEATS),
        poll_repeat=min(pick(t.poll_repeat, policy.poll_repeat), HARD_MAX_REPEATS),
        poll_budget=min(pick(t.poll_budget, policy.poll_budget), HARD_MAX_POLLS),
        max_failures=min(pick(t.max_failures, policy.max_failures), HARD_MAX_REPEATS),
        transient_retries=min(
            pick(t.transient_retries, policy.transient_retries), HARD_MAX_REPEATS
        ),
        max_calls=pick(t.max_calls, policy.max_calls_per_tool),
        # a tool that creates records changes the world with each success
        mutating=mutating,
        polling=pick(t.polling, _named(poll_re, tool)),
        shell=re.match(SHELL_PATTERN, tool) is not None
        or re.match(SHELL_PATTERN, _CAMEL.sub("_", tool)) is not None,
        learn_failures=pick(t.learn_failures, policy.learn_failures),
        ignore_fields=commentary | t.ignore_fields,
        ignore_keys=frozenset(field_key(k) for k in commentary | t.ignore_fields),
        command_decides=command_decides,
        creates=creates,
    )


@lru_cache(maxsize=64)
def _creates_re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _creates(policy: GuardPolicy, t: ToolPolicy, tool: str) -> int:
    if t.creates is not None:
        return CREATES if t.creates else 0
    pattern = policy.creates_pattern
    if pattern is None:
        return 0
    return MAY_CREATE if _named(_creates_re(pattern), tool) else 0


@lru_cache(maxsize=4096)
def field_key(name: str) -> str:
    """An argument name as the commentary fields are matched: lower case, `_` and `-` left
    out (`Description`, `REASON`, `Just-ification` are commentary fields)."""
    return name.lower().replace("_", "").replace("-", "")


_RUNS_RE = re.compile(RUNS_PATTERN)
_THINKS_RE = re.compile(THINK_PATTERN)
_EDITS_RE = re.compile(EDITS_PATTERN)
