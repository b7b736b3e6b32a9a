"""`Guard`: one object that decides every tool call (issue 12).

Flow per tool call::

    v = guard.before_call(tool, args)        # cheap; writes nothing unless it refuses
    if v.allowed:
        result = run(tool, args)             # with v.message shown to the model on NUDGE
        guard.after_call(v.call, result=result)   # one journal record (one fsync, durable)

The unit of progress is the (signature, result digest) pair: the same pair again is no
progress. `after_call` sees the result and detects loops once their block has fully
repeated (nudge); `before_call` predicts from history whether a call would repeat a pair
and, once the session was nudged, refuses it (block), and stops after blocks persist.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import inspect
import itertools
import logging
import os
import re
import reprlib
import shlex
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from crs import _core
from crs._check import brief
from crs._errors import (
    CRSClosedError,
    CRSError,
    InvalidArgumentError,
    JournalClosedError,
    JournalError,
    JournalUnavailableError,
    StaleOpError,
)
from crs._reasoning._sanitizer import QUIET, SecretSanitizer
from crs.guard import _canon, _repeat, _results, _turns
from crs.guard._observe import GuardEventKind, GuardObserver, Observers, notify, observed
from crs.guard._policy import (
    CLOCK_PATTERN,
    CREATES,
    HARD_MAX_REPEATS,
    THINK_PATTERN,
    GuardPolicy,
    Limits,
    limits_for,
)
from crs.guard._policy import field_key as _field_key
from crs.guard._results import Guessed as _Guessed
from crs.guard._results import GuessedJSON as _GuessedJSON
from crs.guard._state import HARD, NUDGED, OK, TRANSIENT, GuardPart, SessionState, SigState
from crs.guard._state import step_taken as _step_taken
from crs.guard._text import MAX_CALL_ID as _MAX_CALL_ID
from crs.guard._text import valid_text
from crs.guard._verdict import (
    Action,
    Call,
    GuardBlockedError,
    GuardStoppedError,
    LearnedFailure,
    Verdict,
    VerdictCode,
    allow_verdict,
    make_verdict,
)

_F = TypeVar("_F", bound=Callable[..., Any])
# a call's identity (`Guard._identify`): tool, limits, signature, canonical args, polls, mutates
_Identity = tuple[str, Limits, str, dict[str, Any], bool, bool]
# what a finished call's record says of its outcome (`Guard._outcome`)
_Outcome = tuple[int, str, str, str, dict[str, str] | None]
_log = logging.getLogger("crs.guard")
_SANITIZER = SecretSanitizer()
_sanitize = _SANITIZER.sanitize
_quiet_view = QUIET.view  # the preview of ASCII text the sanitizer cannot change
_secret_key = _canon._secret_key
_ALLOW, _NUDGE, _BLOCK, _STOP = Action.ALLOW, Action.NUDGE, Action.BLOCK, Action.STOP
# (an enum member read through its class costs ~0.2 us: the hot path reads these)
_OK, _POLLING = VerdictCode.OK, VerdictCode.POLLING
_digest_text = _core.digest_text
_THINKS = re.compile(THINK_PATTERN).search  # thinking tools: no near-duplicates
_CLOCKS = re.compile(CLOCK_PATTERN).search  # tools that read the clock: readings are answers
_CLOCK_TOOLS: dict[str, bool] = {}  # (the test's answer per tool name: a regex costs ~0.4 us)


def _reads_clock(tool: str) -> bool:
    got = _CLOCK_TOOLS.get(tool)
    if got is None:
        if len(_CLOCK_TOOLS) >= 4096:  # made-up names: start over
            _CLOCK_TOOLS.clear()
        got = _CLOCK_TOOLS[tool] = _CLOCKS(tool) is not None
    return got


_CODES = {str(c): c for c in VerdictCode}  # VerdictCode(text), without the enum call
_READONLY_SHELL = re.compile(
    r"^\s*(cat|ls|ll|grep|rg|ag|find|fd|head|tail|less|more|wc|pwd|echo|printf|which|whoami|"
    r"file|stat|tree|du|df|env|printenv|date|uname|id|ps|diff|cmp|sort|uniq|cut|awk|jq|"
    r"git\s+(status|log|diff|show|branch|remote|rev-parse|ls-files|blame|grep)|"
    r"sed\s+-n|"
    rf"{_canon.REMOTE_READS}|"  # kubectl get, docker ps, helm status, a plain curl (fresh10)
    # PowerShell's reads (cmdlet names are case-insensitive) and their aliases (fresh9)
    r"dir|gci|gc|sls|(?i:get-(childitem|content|item|itemproperty|location|process|service|"
    r"command|date)|select-string|test-path|resolve-path|measure-object))"
    r"\b(?![^|;&]*(>|\btee\b|-i\b))"
)
# A result that says the edit or write changed nothing ("No changes made to app.py", "nothing
# to commit", "0 replacements"): the call did not change the workspace, whatever its tool's
# name says, so it does not make the same failure after it new (fresh14).
_NO_CHANGE = re.compile(
    r"\s*(?:no\s+changes?(?:\s+were)?\s+(?:made|applied|to\s+apply)|"
    r"nothing\s+to\s+(?:change|commit|update)|"
    r"0\s+(?:replacements|changes|occurrences)(?:\s+made|\s+replaced)?\b|"
    r"(?:the\s+)?file\s+(?:is\s+|was\s+)?unchanged)",
    re.IGNORECASE,
)
# An argument asking the tool to wait before it answers (a wait, sleep, poll or yield time),
# its camelCase words split (`yieldTimeMs` is `yield_Time_Ms`).
_WAIT_KEY = re.compile(r"(?i)(^|[_.\-])(wait|sleep|poll|yield)([_.\-]|$)")
_camel_split = functools.partial(re.compile(r"(?<=[a-z0-9])(?=[A-Z])").sub, "_")
# Tool-name words of taking from a queue or a mailbox (SQS's `receive_message`, Azure's
# `peek_messages`, a `dequeue`, a Kafka `consume`): an empty answer is a wait (fresh24).
_QUEUE_READ = re.compile(r"(?i)(^|[_.\-:/ ])(peek|receive|dequeue|consume)([_.\-:/ ]|$)")


@functools.lru_cache(maxsize=1024)
def _queue_read(tool: str) -> bool:
    return _QUEUE_READ.search(_camel_split(tool)) is not None


def _nothing_came(result: Any) -> bool:
    """An empty answer: nothing, an empty text, list or object (or one as JSON text), or an
    object whose list fields are all empty (`{"Messages": []}`)."""
    t = type(result)
    if result is None:
        return True
    if t is str:
        return result.strip() in ("", "[]", "{}", "null")
    if t is list or t is tuple:
        return not result
    if t is dict:
        lists = [v for v in result.values() if type(v) is list]
        return not result or (bool(lists) and not any(lists))
    return False


# Code that sleeps a positive time before it looks again (`time.sleep(30)`,
# `await asyncio.sleep(5)`, `Start-Sleep -Seconds 10`): a code interpreter's poll.
_CODE_KEYS = frozenset(("code", "source", "python", "program", "cell", "snippet"))
# Arguments that name what a multi-action tool does (`process(action="wait")`)
_ACTION_KEYS = frozenset(("action", "op", "operation", "method", "mode", "verb", "subcommand"))
# the names whose str value may make `_waits` true (a positive number may too)
_WAIT_ARGS = _CODE_KEYS | _ACTION_KEYS
_CODE_SLEEP = re.compile(
    r"(?<![\w])(?:\w+\.)?sleep\s*\(\s*(?:[1-9]|0?\.\d*[1-9])|(?i:\bStart-Sleep\b)"
)


def _waits(canon: Mapping[str, Any], poll: Callable[[str], Any]) -> bool:
    """A call that sends nothing (no free text: empty or identifiers only) and asks to wait
    for a positive time (`write_stdin(session_id=7, chars="", yield_time_ms=30000)`): it
    reads what a running process printed meanwhile, a poll whatever the tool's name. Code
    that sleeps before it looks again (`_CODE_SLEEP`) is one too, and so is a call whose
    action says it waits (`process(action="wait", session_id=...)`, `op: "poll"`: the words
    of `poll_pattern`, the action's value matched as a tool name is; fresh8)."""
    for k, v in canon.items():  # cheap first: most calls have no number to wait on
        t = type(v)
        if (t is int or t is float) and v > 0 and _WAIT_KEY.search(_camel_split(k)) is not None:
            break  # (`yield_time_ms`, `yieldTimeMs`, `wait-seconds`)
        if t is str:
            if k in _CODE_KEYS and _CODE_SLEEP.search(v) is not None:
                return True
            if k in _ACTION_KEYS and len(v) <= 64 and poll(v) is not None:
                return True
    else:
        return False
    for k, v in canon.items():
        t = type(v)
        if t is dict or t is list:
            return False
        if (
            t is str
            and v
            and not _canon._is_ident(k, v)
            and not (
                " " not in v and _canon._id_key(k)  # (`runId: "r-7Hq2Lm"`: an id; fresh20)
            )
        ):
            return False
    return True


# A call that only moves the view of a page (`browser_action(action="scroll_down")`,
# `scroll_page`, `scrollUp`): what a page shows changes, not what another tool answers.
_SCROLL = re.compile(r"(?i)(?:^|[_.\-])scroll(?:$|[_.\-])")


# An input action of a browser or computer-use agent: a click, a key press, typing.
_INPUT = re.compile(
    r"(?i)(?:^|[_.\- ])(click|left_click|right_click|double_click|dblclick|triple_click|tap|"
    r"press|key|keypress|type|fill|submit|drag|hover|select_option)(?:$|[_.\- ])"
)


def _action_says(pattern: re.Pattern[str], canon: Mapping[str, Any], hint: str = "") -> bool:
    """Whether a call's action (`action: "left_click"`, `op: "scroll_down"`) matches
    `pattern`, read as a tool name is (camelCase split); `hint`, when given, a substring
    (either case) the value must hold first (no regex for most values)."""
    if _ACTION_KEYS.isdisjoint(canon):
        return False
    up = hint.upper()
    for k in _ACTION_KEYS:
        v = canon.get(k)
        if (
            type(v) is str
            and (not hint or hint in v or up in v)
            and len(v) <= 64
            and pattern.search(_camel_split(v)) is not None
        ):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _input_tool(tool: str) -> bool:
    return _INPUT.search(_camel_split(tool)) is not None


def _inputs(tool: str, canon: Mapping[str, Any]) -> bool:
    """Whether the call is an input action: its tool's name says so (`browser_click`,
    `press_key`), or its action does (`computer(action="left_click")`)."""
    return _input_tool(tool) or _action_says(_INPUT, canon)


def _scrolls(tool: str, canon: Mapping[str, Any]) -> bool:
    """Whether the call only scrolls: its tool's name says scroll, or its action does
    (`action: "scroll_down"`, matched as a tool name is, camelCase split)."""
    # (cheap first: most calls are no scroll, and no regex runs for them)
    if ("croll" in tool or "CROLL" in tool) and _SCROLL.search(_camel_split(tool)) is not None:
        return True
    return _action_says(_SCROLL, canon, "croll")


_MSG_WS = re.compile(r"\s+")
_WITH_DIGIT = re.compile(r"[\w.:/#-]*\d[\w.:/#-]*")


def _result_shape(result: Any) -> str:
    """A digest of a result with every word that carries a digit (an id, a number, a time)
    as `#`: two records made by one call have the same shape."""
    text = result[:4096] if type(result) is str else _BOUNDED.repr(result)
    return _canon.short_digest(_MSG_WS.sub(" ", _WITH_DIGIT.sub("#", text)).strip())


SAID = "5a1d" * 4
"""The result digest of a call that only printed its own words (`Guard._says`)."""
_SAID_PAIR = ":" + SAID
_SHELL_META = re.compile(r"[|;&<>`$(){}*?\\]")
_SENTENCE_END = re.compile(r"[.!?;]+(?:\s|$)")


def _echo(canon: dict[str, Any]) -> list[str]:
    """The arguments a result or error may echo: str values of at least 4 characters."""
    return [v for v in canon.values() if type(v) is str and len(v) >= 4]


# The in-memory engines of `Guard()`s (no journal): a child forked while a thread of its
# parent was inside one (its lock held, the state maybe half updated) hung on that lock at
# its first call (red team 9). In the child such an engine is closed (every change raises
# `CRSClosedError` saying to make a new Guard; reads answer, the lock freed); one no
# thread was inside at the fork goes on in the child as a copy.
_MEMORY_ENGINES: weakref.WeakSet[Any] = weakref.WeakSet()


def _watch_memory_forks(engine: Any) -> None:
    from crs._journal._base import on_fork_child  # (loaded with the engine already)

    on_fork_child(_memory_engines_in_child)
    _MEMORY_ENGINES.add(engine)


def _memory_engines_in_child() -> None:
    from crs._journal._base import free_in_child

    for engine in list(_MEMORY_ENGINES):
        kernel = engine._kernel
        locks = [kernel.lock, getattr(kernel.history, "_lock", None)]
        if not [free_in_child(lock) for lock in locks if lock is not None].count(True):
            continue
        kernel.close_in_child(
            "a thread of the parent process was inside this in-memory guard when the process "
            f"forked (this is the child, {os.getpid()}): its state may be half updated; make "
            "a new Guard() in the child"
        )


def _names_tool(tool: str, text: str) -> bool:
    """Whether an error `text` names the `tool` called, as a word of its own ("Unknown tool:
    Miro", "Tool 'jira' not found"; not `ls` inside "false"): 3 characters or more."""
    if len(tool) < 3 or not text:
        return False
    at = text.find(tool)
    while at >= 0:
        end = at + len(tool)
        if (at == 0 or not _wordish(text[at - 1])) and (
            end == len(text) or not _wordish(text[end])
        ):
            return True
        at = text.find(tool, at + 1)
    return False


def _wordish(c: str) -> bool:
    return c.isalnum() or c == "_"


def _waited_since(s: SessionState, step: int) -> bool:
    """Whether a call that waits (`sleep`, a positive wait time) ran after `step`."""
    for n, _pair, sig in reversed(s.tail):
        if n <= step:
            return False
        if getattr(s.sigs.get(sig), "waits", False):
            return True
    return False


def _cycle_reps(tail: Sequence[tuple[int, str, str]], pair: str, per: int, fence: int) -> int:
    """How many times in a row the block of `per` pairs ending with `pair` (the current
    call, not yet in `tail`) came back, after the `fence` step."""
    seq = [t[1] for t in tail if t[0] > fence]
    seq.append(pair)
    k = len(seq) - per
    while k > 0 and seq[k - 1] == seq[k - 1 + per]:
        k -= 1
    return (len(seq) - k) // per


def _recurs(tail: Sequence[tuple[int, str, str]], pair: str, need: int, period: int) -> bool:
    """`pair` ran at least `need - 1` times among the last `need * period` calls of `tail`
    (the current run, not yet in `tail`, makes `need`)."""
    window = need * period
    m = len(tail)
    count = 0
    for i in range(m - 1, max(m - window, 0) - 1, -1):
        if tail[i][1] == pair:
            count += 1
            if count + 1 >= need:
                return True
    return False


_GENERIC_ERROR_WORDS = frozenset(
    {"exit", "exited", "code", "status", "error", "failed", "failure", "command"}
    | {"returned", "non", "zero", "with", "process", "the", "a", "an", "of"}
    | {"runtime", "exception", "called", "subprocess"}  # RuntimeError, CalledProcessError
)


def _says_something(err: str) -> bool:
    """An error text with a word beyond an exit status ("Exit code 1", "Command failed
    with exit status 2"): a message that names what went wrong."""
    return any(
        not t.isdigit() and t not in _GENERIC_ERROR_WORDS for t in _canon._tokens(err[:2000])
    )


def _sentences(norm: str) -> set[str]:
    """The sentences of a normalized message that have at least four words (short formulae,
    "Done.", "Thinking...", repeat naturally)."""
    return {t for t in (x.strip() for x in _SENTENCE_END.split(norm)) if t.count(" ") >= 3}


FP_CACHE_S = 1.0
_DIGITS = re.compile(r"\d+")


_time_ns = time.time_ns
_perf = time.perf_counter
_new, _set = object.__new__, object.__setattr__


_canon_flat = _core.canon_flat  # the one-pass call identity (see _canon.call_identity)
_identify_flat = _core.identify_flat  # the same, plus what `Guard._identify` needs
_READING_MAX = 2 * _canon.READING_MAX_CHARS  # (a result `_canon.reading_digest` may take)
# `field_key` of an argument name, remembered: the names repeat on every call
_field_key_of = functools.lru_cache(maxsize=4096)(_field_key)
_PATH_KEYS = _canon.PATH_KEYS
_BEFORE, _AFTER = GuardEventKind.BEFORE_CALL, GuardEventKind.AFTER_CALL


_MAX_STEP = 1 << 63
_SIGNATURE = re.compile(r"[0-9a-f]{1,128}").fullmatch  # `Call.signature`: a hex digest


# A tool or command that checks the workspace (tests, a build, a linter, a type check): its
# answer is a function of the workspace, so with the workspace unchanged it cannot change.
_VERIFY = re.compile(
    r"(?i)(^|[_.\-:/ ])(test|tests|pytest|jest|vitest|mocha|build|make|lint|eslint|ruff|mypy|"
    r"tsc|compile|cargo|gradle|gradlew|mvn|ctest|tox|nox|typecheck)([_.\-:/ ]|$)"
)


def _command_says(
    test: Callable[[str], Any], canon: Mapping[str, Any], commands: frozenset[str]
) -> bool:
    """Whether `test` finds what it looks for at the start of the call's shell command."""
    for k, v in canon.items():
        if k in commands and type(v) is str and test(v[:200]) is not None:
            return True
    return False


def _verifies(tool: str, canon: dict[str, Any], commands: frozenset[str]) -> bool:
    """Whether the call runs tests, a build, a linter or a type check (its tool's name, or
    the start of its shell command, says so: `run_tests`, `npm test`, `cargo build`)."""
    return _VERIFY.search(tool) is not None or _command_says(_VERIFY.search, canon, commands)


def _acts_between_waits(s: SessionState, sigs: set[str], polling: bool) -> bool:
    """A cycle whose calls other than its waits are all input actions (click, wait, click,
    wait, the same screen after each): the waits do not make it a poll. A wait excuses a
    look again at something that moves by itself, not an action that changed nothing
    (fresh21). Judged at the action (the current call does not wait)."""
    if polling:
        return False
    acts = [st for g in sigs if (st := s.sigs.get(g)) is not None and not st.waits]
    return bool(acts) and all(st.inputs for st in acts)


# A call that reads content (a file, a log, a search's matches): what it returns may start
# as an error report does and be the content (a crash log, a grep for `Error:`), so a
# failure only guessed from such a text is not learned for later sessions (rt11).
_READER_TOOL = re.compile(
    r"(?i)(?:^|[^a-z])(?:read|view|cat|tail|head|grep|rg|search|find|logs?|show|open|less)"
    r"(?:$|[^a-z])|(?<=[a-z])(?:Read|View|Cat|Tail|Head|Grep|Search|Find|Logs?|Show|Open)"
    r"(?:$|[^a-z])"
)
_READER_COMMAND = re.compile(
    r"\s*(?:(?:sudo|command|exec|nice|timeout \S+)\s+)?"
    r"(?:cat|head|tail|grep|egrep|fgrep|zgrep|rg|ag|ack|less|more|zcat|bat|journalctl|awk"
    r"|sed|jq|strings|nl|sort|uniq|wc|cut)\b"
    r"|\s*(?:docker|kubectl|podman|heroku|fly|gh run|git) (?:\S+ )*?(?:logs?|show|view)\b"
)


# What goes before the program a shell command runs and says nothing of what it does: a
# change of directory (`cd /repo && `, `cd logs; `, `cd /repo` and a line break, which the
# canonical form joins with a space), variables (`LC_ALL=C `, `env X=1 `), `time`, a shell
# running a script (`bash -lc '...`), the program's directory (`/usr/bin/tail`).
_COMMAND_LEAD = re.compile(
    r"\s*(?:(?:cd|pushd)\s+(?:'[^'\n]*;'\s*|[^\s;&|']+;\s*"
    r"|(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s;&|']++)(?:\s*'?(?:&&|;)'?\s*|\s*'\n'\s*|\s+(?=[^\s'\"])))"
    r"|'\n'\s*"  # (a line continued, `\` then a line break, in the canonical form)
    r"|(?:bash|sh|zsh|dash|ksh)\s+-(?:l?c|cl)\s+['\"]?"  # (`bash -lc 'cat x'`)
    r"|time\s+"
    r"|(?:env\s+)?(?:(?:[A-Za-z_]\w*=(?:\"[^\"\n]*\"|'[^'\n]*'|\S*)|'[A-Za-z_]\w*=[^'\n]*')\s+)+"
    r"|env\s+)*"
    r"(?:[^\s;&|']*/)?"
)


def _command_head(command: str) -> str:
    """The command from the program it runs on (`cd /repo && cat x` -> `cat x`; rt12)."""
    return command[_COMMAND_LEAD.match(command).end() :]  # type: ignore[union-attr]


def _reader_match(command: str) -> Any:
    return _READER_COMMAND.match(_command_head(command))


def _reads(tool: str, canon: dict[str, Any], commands: frozenset[str]) -> bool:
    """Whether the call reads content: its tool's name says so (`Read`, `read_file`,
    `tail_logs`, `grep`) or its shell command starts with a reader (`cat`, `tail`, `grep`,
    `journalctl`, `docker logs`), after a `cd DIR &&`, variables or the program's directory
    (`cd /repo && cat crash.log`, `/usr/bin/tail`, `LC_ALL=C grep`: rt12)."""
    return _READER_TOOL.search(tool) is not None or _command_says(_reader_match, canon, commands)


# A file reader whose own failures name it first (`tail: cannot open 'x' for reading: ...`,
# `sed: can't read x: ...`, `jq: error: ...`), POSIX's `prog: message`; the name it may print
# instead (`zcat` prints `gzip:`, Debian's `awk` `mawk:`).
_FILE_READER = re.compile(
    r"\s*(?:(?:sudo|command|exec|nice|timeout \S+)\s+)?"
    r"(cat|head|tail|grep|egrep|fgrep|zgrep|rg|zcat|awk|sed|jq|strings|nl|sort|uniq|wc|cut)\s"
)
_READER_ALIASES = {
    "egrep": ("grep",),
    "fgrep": ("grep",),
    "zgrep": ("grep", "gzip"),
    "zcat": ("gzip",),
    "awk": ("gawk", "mawk", "nawk"),
}
# What a shell says when it cannot run the command (`bash: rg: command not found`).
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "busybox"})
_PROGRAM = re.compile(r"(?:(?i:error|fatal):\s*)?([\w./+-]{1,80}):")  # (`Error: tail: ...`)
_SEGMENT = re.compile(r"'?[|;&\n()]+'?")  # (the canonical form quotes them: `'|'`)


def _programs(command: str) -> set[str]:
    """The programs a shell command runs (the first word of each of its pipeline's and
    list's commands, wrappers and `VAR=x` skipped; and their aliases), and the shells."""
    names = set(_SHELLS)
    for part in _SEGMENT.split(command[:2000]):
        words = _command_head(part).split()
        while words and (
            "=" in words[0] or words[0] in ("sudo", "command", "exec", "nice", "env", "xargs")
        ):
            words.pop(0)
        if words and words[0] == "timeout" and len(words) > 2:
            words = words[2:]
        if words:
            name = words[0].strip("'\"").rsplit("/", 1)[-1]
            names.add(name)
            names.update(_READER_ALIASES.get(name, ()))
    return names


def _read_content(error: str, tool: str, canon: dict[str, Any], commands: frozenset[str]) -> bool:
    """Whether a failure guessed from a text (`_results.Guessed`) may be the content a read
    returned: the call reads (`_reads`) and the text spells a JSON failure object (a JSON
    document a read returned is data: a config, a record; rt12), or has more than one line
    (a file, a log, a traceback, a search's matches; a read that failed says so in a line),
    or, for a shell command that runs a file reader (`tail -1 app.log`, `head -1 run.log`,
    `grep`, `sed -n 1p`), does not start with the name of a program it runs or of the shell
    (a file reader's own failures do: `tail: cannot open ...`; `ValueError: x` and `fatal:
    ...` are the lines it read; rt12), or else its first word is one the call searched for
    (`grep -rn 'Error:'`)."""
    if not _reads(tool, canon, commands):
        return False
    if type(error) is _GuessedJSON:
        return True
    text = error.strip()
    if "\n" in text:
        return True
    for k, v in canon.items():
        if (
            k in commands
            and type(v) is str
            and _FILE_READER.match(_command_head(v[:400])) is not None
        ):
            named = _PROGRAM.match(text[:200])
            return named is None or named.group(1).rsplit("/", 1)[-1] not in _programs(v)
    word = text[:40].split(":", 1)[0].split()[:1]
    if not word or len(word[0]) < 4:
        return False
    head = word[0].lower()
    return any(type(v) is str and head in v.lower() for v in canon.values())


def _read_result(result: Any) -> tuple[Any, str | None]:
    """(result, error) as the guard judges a result given without an error: a failure the
    result reports (`_results.unwrap`: an envelope's `isError`, a non-zero exit, an error
    text) is the call's error; an envelope or a wrapper of one text is what it carries."""
    if type(result) is str:  # (the usual result: only its text is read)
        failed = _results.failure_text(result)
        if failed is None:
            return result, None
    else:
        got, failed = _results.unwrap(result)
        if failed is None:
            return got, None
    if len(failed) > _canon.MAX_VALUE_CHARS or not _encodes(failed):
        return result, None  # (judged as the result, whose checks name `result`)
    return None, failed


def _encodes(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _bad_call(call: Call) -> str:
    """The message for a `Call` whose fields `before_call`/`call_for` never make."""
    for name, value, ok in (
        ("step", call.step, type(call.step) is int and 0 < call.step < _MAX_STEP),
        ("signature", call.signature, type(call.signature) is str and _SIGNATURE(call.signature)),
        (
            "call_id",
            call.call_id,
            type(call.call_id) is str and len(call.call_id) <= _MAX_CALL_ID,
        ),
        ("tool", call.tool, type(call.tool) is str),
    ):
        if not ok:
            return (
                f"call.{name}: not what before_call or call_for make, got {brief(value)}; "
                "pass the Call they returned"
            )
    return "call: not a Call of before_call or call_for"  # pragma: no cover - one field is bad


# what `Guard._after` adds to a step's record as it judges the call (dropped when the call is
# judged again at another step: `StaleOpError`)
_JUDGED = ("a", "cr", "cs", "cv", "cd", "v", "ev", "lp", "lf", "fx")

# A message's or a user turn's record judged on a state that other writers' records moved
# (they came first: a NATS race, another process's append) is judged again on the caught-up
# state, up to this many times; then it is sent as built, after them.
_REJUDGE = 8


def _stale(payload: dict[str, Any]) -> bool:
    """`commit_op`'s `fresh` for a record judged on the state: other writers' records came in
    since, so it no longer holds (judged again)."""
    return False


def _landed(s: SessionState, p: dict[str, Any]) -> int:
    """The step a guard.step record `p` was stored at, found among the session's recent
    records (it came back on a NATS feed after its append raised: the server had it), or 0.
    A record is its signature, result, outcome and millisecond (another writer's record of
    the same call in the same millisecond would be the same call), stored at the step it
    reserved or after it (a step taken first moves a record on, never back): an identical
    call of this guard recorded just before it in the same millisecond (a fast machine) is
    not it."""
    sig, ts, res, kind, n = p["g"], p["ts"], p["r"], p["k"], p["n"]
    for r in reversed(s.recent):
        if r[6] == ts and r[2] == sig and r[3] == res and r[4] == kind and r[0] >= n:
            return int(r[0])
    return 0


def _not_landed(part: GuardPart, p: dict[str, Any]) -> bool:
    """`commit_op`'s `fresh` check of a record sent again (`Guard._resend`): False once the
    first send came back on the feed (applied by the catch-up: not sent a second time)."""
    s = part.sessions.get(p["s"])
    return s is None or not _landed(s, p)


_MAX_UNACKED = 256  # records kept to be sent again (`Guard._resend`), newest


def _step_free(part: GuardPart, p: dict[str, Any]) -> bool:
    """`StateKernel.commit_op`'s `fresh` check of a guard.step or guard.refuse record, run
    only when a catch-up under the journal's lock applied other writers' records."""
    s = part.sessions.get(p["s"])
    return s is None or not _step_taken(s, p["n"])


def _renumbered(s: SessionState, call: Call, step: int = 0) -> Call:
    """`call` at the session's next free step (reserved, as `_make_call` reserves one), or
    at `step`: the one its record was stored at (`SessionState.free_step`)."""
    if not step:
        last = s.last_step
        step = s.reserved = (s.reserved if s.reserved > last else last) + 1
    return dataclasses.replace(call, step=step)  # (a rare path: the frozen class's own copy)


def _at_step(v: Verdict, call: Call) -> Verdict:
    """`v` of `call` renumbered after its record was stored (`_renumbered` with a step)."""
    return make_verdict(v.action, v.code, v.reason, v.message, v.evidence, call)


def _bad_call_id(call_id: Any) -> str:
    """The message for a `call_id` the guard does not take (nothing is stored)."""
    if type(call_id) is str and len(call_id) > _MAX_CALL_ID:
        return (
            f"call_id: at most {_MAX_CALL_ID} characters, got {len(call_id)} "
            f"({brief(call_id)}); pass a shorter id, or None for one the guard makes "
            "(crs.guard._text.call_key shortens a long one deterministically)"
        )
    return f"call_id: must be a non-empty str or None, got {brief(call_id)}"


def _check_args(
    policy: GuardPolicy | None, session: Any, fingerprint: Callable[[], str] | None
) -> GuardPolicy:
    """The policy (a default one for None), once `Guard`'s arguments are checked."""
    if policy is None:
        policy = GuardPolicy()
    if not isinstance(policy, GuardPolicy):
        raise InvalidArgumentError(f"policy: must be a GuardPolicy or None, got {brief(policy)}")
    if not isinstance(session, str) or not session or len(session) > 256:
        raise InvalidArgumentError(
            f"session: must be a non-empty str of at most 256 characters, got {brief(session)}"
        )
    try:
        session.encode()
    except UnicodeEncodeError:
        raise InvalidArgumentError("session: contains a lone surrogate") from None
    if fingerprint is not None and not callable(fingerprint):
        raise InvalidArgumentError(f"fingerprint: must be a callable, got {brief(fingerprint)}")
    _no_secret("session", session)
    return policy


_MAX_TOOLS = 4096  # tool names whose limits a guard keeps (`Guard._limits`)
_BACKUP_AT_CLOSE = 4096  # journal records past the backups above which close() saves one
_MAX_CLOCKS = 1024  # sessions whose age a guard keeps for the wall-time budget
_MAX_PENDING = 4096  # calls a guard keeps between before_call and after_call (`Guard._pending`)


def _drop_oldest_half(pending: dict[str, Any]) -> None:
    """Forget the older half of the calls that were never reported (an agent that never
    calls after_call): their after_call, if it comes, is recorded as a Call this guard did not
    hand out is (`Guard._check_foreign`). Under the guard's lock; the dict is rebuilt in place
    (deleting its oldest keys one by one would leave finding the next oldest slow)."""
    keep = list(itertools.islice(pending.items(), len(pending) // 2, None))
    pending.clear()
    pending.update(keep)


def _no_secret(name: str, value: str) -> None:
    """Refuse a session id or tool name holding a credential: both are stored and shown as
    they are (the journal, `learned()`, `crs guard status`, the dashboard), where the
    sanitizer redacts every other text."""
    if _sanitize(value) != value:
        raise InvalidArgumentError(
            f"{name}: holds what looks like a credential (the secret sanitizer would redact "
            f"it), and a {name} is stored as it is; name it by something that is not a secret"
        )


def _check_path(name: str, value: Any) -> None:
    """`Guard.open`'s `project` and `home`: a path the file system can take."""
    if not isinstance(value, str | os.PathLike):
        raise InvalidArgumentError(f"{name}: must be a path, got {brief(value)}")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise InvalidArgumentError(f"{name}: must be a str path, got {brief(text)}")
    if "\x00" in text:
        raise InvalidArgumentError(f"{name}: contains a NUL character, got {brief(text)}")


# How far another process's wall clock may run ahead of this one's (ms): a stamp further in
# the future means this clock was set back.
_CLOCK_SKEW_MS = 2_000
# How far ahead of this clock a learned failure's stamp may be and still hold (ms): machines
# sharing a journal (NATS) differ by a little; a stamp further ahead comes from a clock that
# ran ahead (or this one was set back), and a failure so stamped would live its TTL from
# that future (30 days ahead: refused for 37 days): it is not in force here (rt11).
_LEARNED_SKEW_MS = 600_000
# How much of a failure's text is sanitized for its record (400 characters are kept: a
# secret cut at this bound is still a long high-entropy run, redacted).
_ERROR_SANITIZED = 1 << 16
# The longest workspace fingerprint kept as it is; a longer one is kept as its digest.
_FP_CHARS = 256


def _in_force(created_at: int, now: int, ttl: float) -> bool:
    """Whether a failure learned at `created_at` (ms) still holds at `now`."""
    return -_LEARNED_SKEW_MS <= now - created_at <= ttl


def _twin_id(call_id: str, step: int) -> str:
    """The id of a call whose caller's id another pending call has: the id and its step."""
    tail = f"~{step}"
    return call_id[: _MAX_CALL_ID - len(tail)] + tail


def _now_ms() -> int:
    return _time_ns() // 1_000_000


_BOUNDED = reprlib.Repr()  # keyword arguments need Python 3.12
_BOUNDED.maxlevel, _BOUNDED.maxstring, _BOUNDED.maxother, _BOUNDED.maxlong = 3, 200, 200, 40


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


if TYPE_CHECKING:
    from crs._journal._nats_async import NATSJournalConfig


def _default_fingerprint(
    project: str | os.PathLike[str], home: str | os.PathLike[str] | None, on_nats: bool
) -> Callable[[], str]:
    """`Guard.open`'s default fingerprint: the project's git state, leaving out crs's own
    data directory when it lives inside the project."""
    # inside: start-up (an in-memory guard needs no fingerprint of a project)
    from crs.guard._fingerprint import ProjectFingerprint

    if on_nats:
        return ProjectFingerprint(project)
    # inside: start-up, as above
    from crs._home import default_home
    from crs._persistence._load import compute_project_hash

    data = Path(home).expanduser() if home is not None else default_home()
    key = compute_project_hash(str(Path(project).resolve()))
    # crs's own files never change the workspace's fingerprint
    return ProjectFingerprint(project, exclude=(data, data / key, data / "index.json"))


def _open_project_state(
    project: str | os.PathLike[str],
    session: str,
    home: str | os.PathLike[str] | None,
    nats: str | NATSJournalConfig | None,
) -> Any:
    """`Guard.open`'s CRS: the project's data directory, or its NATS stream."""
    if nats is None:
        # inside: start-up (an in-memory guard loads no persistence)
        from crs._project import open_project

        return open_project(project, home, session_id=session)
    # inside: start-up, as above
    from crs._project import open_nats_project

    return open_nats_project(project, nats, session_id=session)


class Guard:
    """Decides every tool call of an agent session: allow, nudge, block or stop.

    `Guard(policy)` keeps everything in memory (in a private `CRS`);
    `Guard.open(project, session)` keeps it in the project's durable CRS (journal,
    backups), so a new process continues where the last one stopped and failures are
    remembered across sessions. Thread-safe; a context manager.

    >>> g = Guard()
    >>> v = g.before_call("read_file", {"path": "a.py"})
    >>> v.action, g.after_call(v.call, result="print(1)").action
    (<Action.ALLOW: 'allow'>, <Action.ALLOW: 'allow'>)
    """

    def __init__(
        self,
        policy: GuardPolicy | None = None,
        *,
        session: str = "default",
        fingerprint: Callable[[], str] | None = None,
        observers: Iterable[GuardObserver] = (),
        _crs: Any = None,
        _owns: bool = True,
        _durable: bool = False,
        _observers: Observers | None = None,
    ) -> None:
        policy = _check_args(policy, session, fingerprint)
        # inside: start-up (`import crs.guard` does not load the engine until a Guard is made)
        from crs._crs import CRS

        if _crs is None:
            _crs = CRS()
            _watch_memory_forks(_crs)
        elif not isinstance(_crs, CRS):
            raise InvalidArgumentError(f"_crs: must be a crs.CRS, got {brief(_crs)}")
        self._crs = _crs
        self._owns = _owns
        self._durable = _durable
        self._part: GuardPart = _crs._parts["guard"]
        self._lock: threading.RLock = _crs._lock
        self._kernel = _crs._kernel  # every fact the guard learns is one op committed here
        # whether a step's record still has its step once other writers' records came in
        self._fresh = functools.partial(_step_free, self._part)
        self.policy = policy
        self.session_id = session
        self._fingerprint = fingerprint
        self._fp_cache: tuple[tuple[int, int, int], float, str] | None = None
        self._mut_re = re.compile(policy.mutating_pattern)
        self._poll_re = re.compile(policy.poll_pattern)
        self._commands = policy.command_fields
        self._limits: dict[str, Limits] = {}
        self._prefix = os.urandom(4).hex()
        self._closed = False
        # call_id -> (poll command, mutating, canonical args) until after_call
        # per reserved call: (polls, mutates, canonical arguments, the Call handed out, the
        # limits of its tool)
        self._pending: dict[str, tuple[bool, bool, dict[str, Any], Call, Limits]] = {}
        # the call_ids of the last calls recorded, in two generations of up to 4096 (a Call
        # reported twice is refused; deleting a dict's oldest keys one by one makes finding
        # the next oldest slow)
        self._recorded: set[str] = set()
        self._recorded_old: set[str] = set()
        # A NATS project journal takes an idempotency key per record: an after_call whose
        # append raised unavailable (the server went away; the record may have reached it
        # anyway) keeps its record, judged, to send again under the same key
        # (`_resend`): call_id -> (record, verdict, Call, key).
        self._idem = bool(getattr(_crs._kernel.journal, "idempotent", False))
        self._keys = itertools.count(1)
        self._key_prefix = f"g.{os.urandom(8).hex()}."
        self._unacked: dict[str, tuple[dict[str, Any], Verdict | None, Call, str]] = {}
        self._sigs_cache: dict[str, bytes] = {}
        self._cmd_kinds: dict[str, tuple[bool, bool]] = {}  # command -> (polls, only reads)
        # Shared by every session of the engine (with_session); see crs.guard._observe.
        self._observers = _observers if _observers is not None else Observers(observers)

    # ------------------------------------------------------------------ construction

    @classmethod
    def open(
        cls,
        project: str | os.PathLike[str],
        session: str,
        home: str | os.PathLike[str] | None = None,
        policy: GuardPolicy | None = None,
        *,
        fingerprint: Callable[[], str] | None = None,
        observers: Iterable[GuardObserver] = (),
        nats: str | NATSJournalConfig | None = None,
        must_exist: bool = False,
    ) -> Guard:
        """A durable guard on the project's CRS (`crs.open_project(project, home)`).

        `project` is the project's directory (its path is also the key of its state in
        `home`). It need not exist: a program may name its project by a path that is not a
        checkout on this machine (a checkout moved away, a temporary directory not made
        yet), and the state is created in `home`. `must_exist=True` refuses a path that is
        not a directory with `InvalidArgumentError` naming ``project`` and creates nothing,
        as the CLIs do (`crs guard ... --project` with a typo). With `nats` as a
        `NATSJournalConfig` the subject is the config's and the path is not checked.

        Everything the guard learns is journaled (one record per finished call) and kept in
        the project's backups; a later `Guard.open` of the project continues from there.
        The default fingerprint is the project's git state (`ProjectFingerprint`).

        With `nats` (a server URL such as ``"nats://127.0.0.1:4222"``, or a
        `crs.NATSJournalConfig`), the project's memory is a NATS JetStream stream instead of
        a data directory (`home` must then be None): guards on several machines share what
        they learn, each seeing the others' records as they arrive (docs/guard-api.md,
        "Several machines"). A bad URL raises `InvalidArgumentError` naming ``nats``; an
        unreachable server raises `JournalUnavailableError` after the connect timeout.
        """
        _check_path("project", project)
        if home is not None:
            _check_path("home", home)
            if os.path.lexists(home) and not os.path.isdir(home):  # (a file: red team 5)
                raise InvalidArgumentError(
                    f"home: not a directory: {brief(os.fspath(home))} (nothing was created; "
                    "give crs's data directory, or None for $CRS_HOME, else ~/.crs)"
                )
        # every argument is checked before the project's state is opened (or created)
        policy = _check_args(policy, session, fingerprint)
        watchers = Observers(observers)
        if nats is not None and home is not None:
            raise InvalidArgumentError(
                "home: a guard on NATS keeps nothing in a data directory; give home or nats, "
                "not both"
            )
        if not isinstance(must_exist, bool):
            raise InvalidArgumentError(f"must_exist: must be a bool, got {brief(must_exist)}")
        keyed = nats is not None and not isinstance(nats, str)  # the config names the subject
        if must_exist and not keyed and not os.path.isdir(project):
            raise InvalidArgumentError(
                f"project: no such directory: {os.fspath(project)!r} (nothing was created; "
                "give the project's directory, or open without must_exist)"
            )
        if fingerprint is None:
            fingerprint = _default_fingerprint(project, home, nats is not None)
        crs = _open_project_state(project, session, home, nats)
        try:
            return cls(
                policy,
                session=session,
                fingerprint=fingerprint,
                _crs=crs,
                _durable=True,
                _observers=watchers,
            )
        except BaseException:
            crs.close()
            raise

    def with_session(self, session: str) -> Guard:
        """Another session on the same engine and project (closing it leaves the engine open)."""
        return Guard(
            self.policy,
            session=session,
            fingerprint=self._fingerprint,
            _crs=self._crs,
            _owns=False,
            _durable=self._durable,
            _observers=self._observers,
        )

    def add_observer(self, observer: GuardObserver) -> None:
        """Call `observer(event)` on every decision of this engine's guards (all sessions);
        see `crs.guard.GuardEvent`. Adding the same observer twice adds it once."""
        self._observers.add(observer)

    def remove_observer(self, observer: GuardObserver) -> bool:
        """Stop calling `observer`; False if it was not registered."""
        return self._observers.remove(observer)

    @property
    def crs(self) -> Any:
        """The CRS engine holding what the guard knows."""
        return self._crs

    @property
    def durable(self) -> bool:
        return self._durable

    # ------------------------------------------------------------------ helpers

    def _limits_for(self, tool: str) -> Limits:
        lim = self._limits.get(tool)
        if lim is None:
            _no_secret("tool", tool)  # (once per tool name: the name is stored as it is)
            if len(self._limits) >= _MAX_TOOLS:  # made-up names must not grow it for ever
                self._limits.clear()
            lim = self._limits[tool] = limits_for(self.policy, tool, self._mut_re, self._poll_re)
        return lim

    def _session(self) -> SessionState:
        return self._part.session(self.session_id)

    def _check_open(self) -> None:
        if self._closed:
            raise CRSClosedError("guard: closed; open a new Guard")
        if self._kernel.closed:  # a with_session guard whose parent closed the engine
            why = self._kernel.closed_why or "its engine was closed (by the guard it came from)"
            raise CRSClosedError(f"guard: {why}")

    def _fp(self, s: SessionState) -> str:
        """The workspace fingerprint, computed at most once per finished call."""
        if self._fingerprint is None:
            return f"mem:{self._part.changes}"
        # One computation serves a batch of calls: until the next finished or refused call
        # or user turn (the user may have edited something), and for at most FP_CACHE_S s.
        key = (s.calls, s.blocks, s.turns)
        now = time.monotonic()
        cache = self._fp_cache
        if cache is not None and cache[0] == key and now - cache[1] < FP_CACHE_S:
            return cache[2]
        try:
            value = self._fingerprint()
        except Exception as exc:  # a broken fingerprint must not break the agent's calls
            _log.warning(
                "fingerprint %r failed (%s): the workspace counts as changed",
                self._fingerprint,
                exc,
            )
            value = None
        if not isinstance(value, str) or not value:
            if value is not None:
                _log.warning(
                    "fingerprint %r returned %r, not a non-empty str", self._fingerprint, value
                )
            # An unknown workspace matches nothing: a failure learned in it is never refused.
            return f"unknown:{os.urandom(8).hex()}"
        if len(value) > _FP_CHARS:
            # A fingerprint is compared, never read: a long one (a `git diff`'s text) was
            # stored whole in every learned failure (10 MB each) and shown by `learned()`,
            # the CLI and the dashboard; one over 64 MiB made every failure's record too
            # large to journal. Its digest compares the same (rt12).
            value = "blake2b:" + _canon._blake_hex(value.encode("utf-8", "surrogatepass"), 16)
        self._fp_cache = (key, now, value)
        return value

    def _minhash(self, text: str) -> bytes:
        sig = self._sigs_cache.get(text)
        if sig is None:
            if len(self._sigs_cache) > 512:
                self._sigs_cache.clear()
            sig = self._sigs_cache[text] = _core.minhash_signature(text)
        return sig

    def call_for(
        self, tool: str, args: Mapping[str, Any] | None = None, call_id: str | None = None
    ) -> Call:
        """The handle of a call without deciding it (for a process that did not make the
        `before_call`, e.g. a PostToolUse hook)."""
        return self._make_call(tool, args, call_id, False)  # type: ignore[return-value]

    def _identify(self, tool: Any, args: Mapping[str, Any] | None) -> _Identity:
        """(tool, limits, signature, canonical arguments, polls, mutates) of a call: its
        identity, computed from the arguments alone (no state read, no lock held)."""
        lim = self._limits.get(tool) if type(tool) is str else None
        if lim is None:
            tool = _canon.check_tool(tool)
            lim = self._limits_for(tool)
        # the arguments' canonical form and signature: plain ones in one Rust pass, which
        # leaves out the commentary fields spelt another way and says whether the call
        # may wait (False: `_waits` is False)
        drop = lim.ignore_fields
        got = (
            _identify_flat(
                tool, args, drop, lim.ignore_keys, self._commands, _PATH_KEYS, _WAIT_ARGS
            )
            if type(args) is dict
            else None
        )
        if got is None:
            got = self._slow_identity(tool, args, lim)
        sig, canon, cmd, waits = got
        poll = lim.polling
        mut = lim.mutating
        if waits and not poll and not cmd and canon and _waits(canon, self._poll_re.search):
            poll = True
        if cmd:
            kinds = self._cmd_kinds.get(cmd)
            if kinds is None:
                if len(self._cmd_kinds) >= 1024:
                    self._cmd_kinds.clear()
                # (polls, only reads): agents run a few commands again and again
                kinds = self._cmd_kinds[cmd] = (
                    self._poll_re.search(cmd) is not None,
                    _READONLY_SHELL.match(cmd) is not None,
                )
            if not poll and kinds[0]:
                poll = True
            if not mut or lim.command_decides:
                # a shell command changes the workspace unless it only reads, whatever the
                # name of the tool that runs it (`fabric_exec`, `execute_command`)
                mut = not kinds[1]
        return tool, lim, sig, canon, poll, mut

    def _slow_identity(
        self, tool: str, args: Mapping[str, Any] | None, lim: Limits
    ) -> tuple[str, dict[str, Any], str, bool]:
        """`_identify`'s `_core.identify_flat` for what it declines (and its reference:
        tests/guard check they agree): (signature, canonical arguments, shell command, True)."""
        drop = lim.ignore_fields
        if type(args) is dict and args:
            # a commentary field spelt another way (`Description`, `Reason`) is one too
            keys = lim.ignore_keys
            for k in args:
                if type(k) is str and k not in drop and _field_key_of(k) in keys:
                    args = {
                        a: v
                        for a, v in args.items()
                        if type(a) is not str or _field_key_of(a) not in keys
                    }
                    break
        got = None if args is None else _canon_flat(tool, args, drop, self._commands, _PATH_KEYS)
        if got is None:
            got = _canon.python_identity(tool, args, drop, self._commands)
        return (*got, True)

    def _make_call(
        self,
        tool: Any,
        args: Mapping[str, Any] | None,
        call_id: str | None,
        decide: bool,
        ident: _Identity | None = None,
        again: int = 0,
    ) -> Call | Verdict:
        """The call's handle (signature, reserved step, pending entry) and, with `decide`,
        its verdict, under one acquisition of the lock (the hot path of `before_call`).
        `ident`: the call's `_identify`, computed already (outside a lock); `again`: how
        many times a refusal of it was judged again (other writers' records came in)."""
        if ident is None:
            ident = self._identify(tool, args)
        tool, lim, sig, canon, poll, mut = ident
        if call_id is not None and (
            type(call_id) is not str or not call_id or len(call_id) > _MAX_CALL_ID
        ):
            raise InvalidArgumentError(_bad_call_id(call_id))
        sid = self.session_id
        asked = call_id
        with self._lock:
            part = self._part
            s = part.sessions.get(sid) or part.session(sid)
            if not decide and call_id is not None:
                held = self._pending.get(call_id)
                if held is not None and held[3].signature == sig and held[3].tool == tool:
                    return held[3]  # its before_call's handle: the step it reserved
            last = s.last_step
            step = s.reserved = (s.reserved if s.reserved > last else last) + 1
            pending = self._pending
            if call_id is None:
                call_id = f"{self._prefix}-{step}"
            elif call_id in pending:
                # another call under this id is still out (two calls at once, one id: a
                # caller that reuses ids): this one gets its own, or the first after_call
                # took the other's entry and the second was refused as "recorded already"
                call_id = _twin_id(call_id, step)
            if len(pending) >= _MAX_PENDING:  # before_calls never reported: keep the newest
                _drop_oldest_half(pending)
            call = _new(Call)  # make_call, inline (the hot path)
            _set(
                call,
                "__dict__",
                {
                    "tool": tool,
                    "signature": sig,
                    "call_id": call_id,
                    "session_id": sid,
                    "step": step,
                },
            )
            entry = pending[call_id] = (poll, mut, canon, call, lim)
            if not decide:
                return call
            v = self._decide(s, call, lim)
            if v is None:
                st = s.sigs.get(sig)
                if st is not None and st.changes and st.runs:
                    return make_verdict(
                        _ALLOW,
                        _POLLING,
                        "the result of this call changes between runs (polling)",
                        "",
                        (),
                        call,
                    )
                return allow_verdict(call)
            if v.action is _BLOCK or v.action is _STOP:
                payload = {
                    "s": sid,
                    "n": step,
                    "t": tool,
                    "g": sig,
                    "c": str(v.code),
                    "act": str(v.action),
                    "ts": _now_ms(),
                    **self._previews(call_id, None),
                }
                try:
                    stored = self._kernel.commit_op(
                        "guard.refuse",
                        payload,
                        bump_generation=False,
                        checked=part.apply_refuse,  # built here: no need to check it again
                        # other writers' records came in under the lock (a `crs guard
                        # forget`, the call's success elsewhere): judged again on them
                        fresh=self._fresh if again >= _REJUDGE else _stale,
                    )
                    if stored != step:  # (NATS: another writer's record came first)
                        v = _at_step(v, _renumbered(s, call, stored))
                except StaleOpError:
                    # another writer took the step or wrote what may change the decision
                    # (nothing written): decided again on the caught-up state, at the next
                    # free step (this one if still free: a NATS record of another session
                    # came first), under the caller's id (this attempt's entry removed)
                    if s.reserved == step and not _step_taken(s, step):
                        s.reserved = step - 1
                    if pending.get(call_id) is entry:
                        del pending[call_id]
                    return self._make_call(tool, args, asked, decide, ident, again + 1)
                except JournalClosedError:
                    raise
                except JournalError as exc:
                    # The refusal stands whether or not its record could be written (a full
                    # disk): an integration that fails open on an error would run the call.
                    # Unrecorded, it does not count towards the ladder (nothing changed).
                    _log.warning(
                        "refused %s (%s) but could not record the refusal: %s", tool, v.code, exc
                    )
            return v

    # ------------------------------------------------------------------ before

    def before_call(
        self, tool: str, args: Mapping[str, Any] | None = None, *, call_id: str | None = None
    ) -> Verdict:
        """Decide a call before it runs. Writes nothing unless it refuses the call.

        Timed, logged and observed (`crs.guard._observe`, inline rather than by `observed`:
        this is the hot path).

        Raises:
            InvalidArgumentError: `tool` is not a tool name, or `args` is not JSON data
                (the message names the argument); nothing is recorded.
        """
        if self._closed or self._kernel.closed:
            self._check_open()
        if self._observers._items:
            t0 = _perf()
            v: Verdict = self._make_call(tool, args, call_id, True)  # type: ignore[assignment]
            notify(self, _BEFORE, v, _perf() - t0, None)
            return v
        v = self._make_call(tool, args, call_id, True)  # type: ignore[assignment]
        if v.action is not _ALLOW:
            notify(self, _BEFORE, v, 0.0, None)
        return v

    def _session_seconds(self, sid: str, s: SessionState) -> float:
        """How long session `s` has run (the wall-time budget): by the wall clock until this
        guard first looked (the session may have begun in another process, yesterday), then
        by this process's monotonic clock. A clock set back or forward while the agent runs
        (an NTP step, a suspended laptop's resync) changes nothing, and a first call stamped
        ahead of this clock (a writer whose clock ran ahead) counts from the first look
        rather than not before the stamp (a 60 s budget lasted the day the clock was
        ahead)."""
        clocks = self._part.clocks
        seen = clocks.get(sid)
        if seen is None or seen[0] != s.started:
            wall = max(0, _now_ms() - s.started) / 1000.0
            seen = clocks[sid] = (s.started, time.monotonic(), wall)
            if len(clocks) > _MAX_CLOCKS:
                del clocks[next(iter(clocks))]
        return seen[2] + (time.monotonic() - seen[1])

    def _refuse(
        self,
        s: SessionState,
        call: Call,
        code: VerdictCode,
        reason: str,
        message: str,
        evidence: tuple[int, ...],
    ) -> Verdict:
        if s.blocks + 1 >= self.policy.stop_after_blocks:
            return make_verdict(
                _STOP,
                code,
                f"{reason}; {s.blocks + 1} refusals in a row: stop",
                message + " Several calls in a row were refused: stop here and report to "
                "the user what you tried and what blocks you.",
                evidence,
                call,
            )
        return make_verdict(_BLOCK, code, reason, message, evidence, call)

    def _decide(self, s: SessionState, call: Call, lim: Limits) -> Verdict | None:
        pol = self.policy
        # budgets: STOP
        if pol.max_calls is not None and s.calls >= pol.max_calls:
            return make_verdict(
                _STOP,
                VerdictCode.BUDGET,
                f"session budget of {pol.max_calls} calls used up",
                "The session's budget of tool calls is used up. Stop and report "
                "to the user what you found so far.",
                (),
                call,
            )
        if lim.max_calls is not None and s.tool_calls.get(call.tool, 0) >= lim.max_calls:
            return make_verdict(
                _STOP,
                VerdictCode.BUDGET,
                f"budget of {lim.max_calls} calls of {call.tool} used up",
                "The budget for this tool is used up. Stop and report to the user "
                "what you found so far.",
                (),
                call,
            )
        if (
            pol.max_wall_time_s is not None
            and s.calls
            and self._session_seconds(call.session_id, s) >= pol.max_wall_time_s
        ):
            return make_verdict(
                _STOP,
                VerdictCode.BUDGET,
                f"session wall-time budget of {pol.max_wall_time_s:g} s used up",
                "The session's time budget is used up. Stop and report to the user "
                "what you found so far.",
                (),
                call,
            )
        sig = s.sigs.get(call.signature)
        # remembered failures: the same call in an unchanged workspace
        ids = self._part.by_sig.get(call.signature)
        if ids and lim.learn_failures:
            v = self._known_failure(s, call, ids)
            if v is not None:
                return v
        if sig is not None:
            now = _now_ms()
            # Another call's success lifts an error-loop block once (half-open): one trial.
            # A trial that failed the same way again (nothing changed) re-opens it until
            # the workspace changes or the cooldown passes, however many other calls succeed.
            retried = (
                sig.hard > lim.max_failures and sig.same > lim.max_failures and sig.epoch == s.epoch
            ) or (
                # so does a transient one with no wait since it failed (fresh10)
                sig.transient > lim.transient_retries
                and sig.same > lim.transient_retries
                and sig.epoch == s.epoch
                and not _waited_since(s, sig.fail_step)
            )
            # The cooldown runs on the wall clock (the state is shared by processes); a last
            # failure stamped further ahead than clock skew (the clock was set back) counts
            # as long past rather than holding the block for the cooldown plus the step.
            since = now - sig.fail_ms
            half_open = (
                (s.last_ok_step > sig.fail_step and not retried)
                or since >= pol.cooldown_s * 1000
                or since < -_CLOCK_SKEW_MS
            )
            if (
                sig.hard >= lim.max_failures
                and not half_open
                and not (  # the user's turn asked for this many runs ("run it 5 times")
                    sig.hard < s.asked and sig.fail_step - s.turn_step >= sig.hard
                )
                and not self._changed_since_failure(s, call, sig)
            ):
                return self._refuse(
                    s,
                    call,
                    VerdictCode.ERROR_LOOP,
                    f"{call.tool} failed {sig.hard} times in a row with this call "
                    f"(last at step {sig.fail_step}): {_short(sig.last_err, 160)}",
                    f"This call failed {sig.hard} times in a row. Read the error, fix its "
                    "cause or change the arguments; running it unchanged will fail again.",
                    (sig.fail_step,),
                )
            if (
                sig.transient >= lim.transient_retries
                and not half_open
                and sig.fail_step > s.turn_step  # a user turn since: a fresh retry budget
            ):
                return self._refuse(
                    s,
                    call,
                    VerdictCode.RETRY_BUDGET,
                    f"{call.tool} hit {sig.transient} transient errors in a row "
                    f"(last at step {sig.fail_step}): {_short(sig.last_err, 160)}",
                    f"This call hit a transient error {sig.transient} times in a row "
                    "(timeout, rate limit or network). Wait before retrying, or get what you "
                    "need another way.",
                    (sig.fail_step,),
                )
            if sig.polls >= 2 * lim.poll_budget and sig.changes and sig.epoch == s.epoch:
                return self._refuse(
                    s,
                    call,
                    VerdictCode.POLLING,
                    f"{call.tool} polled {sig.polls} times (budget {lim.poll_budget})",
                    f"This call was polled {sig.polls} times. Stop polling: report the "
                    "current state to the user or do something else.",
                    (),
                )
            if sig.dups and lim.creates and sig.made > s.answered and sig.epoch == s.epoch:
                # a call that creates a record, run twice already: a third copy
                said = f" and returned: {sig.made_view}" if sig.made_view else ""
                return self._refuse(
                    s,
                    call,
                    VerdictCode.REPEATED_CALL,
                    f"{call.tool} would create another duplicate: it succeeded with these "
                    f"arguments {sig.dups + 1} times (first at step {sig.made})",
                    f"This call already succeeded at step {sig.made}{said}, and again after "
                    "that: the record exists, more than once. Do not create it again: use the "
                    "record that exists, or say what blocks you.",
                    (sig.made,),
                )
            if s.level >= NUDGED and sig.epoch == s.epoch:
                pair = f"{sig.cluster or call.signature}:{sig.res}"
                if pair in s.loop_pairs or (
                    s.loop_code == VerdictCode.NO_PROGRESS and pair in s.pairs
                ):
                    return self._refuse(
                        s,
                        call,
                        _CODES.get(s.loop_code) or VerdictCode(s.loop_code),
                        *self._loop_words(s, call),
                    )
        return None

    def _changed_since_failure(self, s: SessionState, call: Call, sig: SigState) -> bool:
        """The workspace fingerprint moved since the signature's last failure in this session
        (the user edited a file out of band): the block of an error loop lifts, as it does
        for the agent's own edits. Known only when the failure was learned (its record keeps
        the fingerprint it failed in)."""
        for fid in reversed(self._part.by_sig.get(call.signature) or ()):
            lf = self._part.failures[fid]
            if lf["session_id"] == self.session_id and lf.get("step") == sig.fail_step:
                return bool(lf["fingerprint"] != self._fp(s))
        return False

    def _loop_words(self, s: SessionState, call: Call) -> tuple[str, str, tuple[int, ...]]:
        ev = s.loop_steps
        code = s.loop_code
        if code == VerdictCode.CYCLE:
            reason = (
                f"{call.tool} would continue the cycle seen at steps "
                f"{', '.join(map(str, ev))} after the model was told"
            )
            message = (
                "You are repeating a cycle of calls that returns the same results "
                "every time. Do not run it again: change the approach (a different "
                "tool, other inputs), or say what blocks you."
            )
        elif code == VerdictCode.NO_PROGRESS:
            reason = (
                f"{call.tool} would repeat a result already seen; the last calls made no progress"
            )
            message = (
                "Your recent calls produced nothing new and this one would not either. "
                "Summarise what you know and choose a different next step."
            )
        else:
            reason = (
                f"{call.tool} would repeat a call that returned the same result at "
                f"steps {', '.join(map(str, ev))}"
            )
            message = (
                "This exact call already returned the same result several times; it "
                "will not change. Use the result you have, try a different approach, "
                "or say what blocks you."
            )
        return reason, message, ev

    def _known_failure(self, s: SessionState, call: Call, ids: list[str]) -> Verdict | None:
        now = _now_ms()
        ttl = self.policy.known_failure_ttl_s * 1000
        fp: str | None = None
        for fid in reversed(ids):
            lf = self._part.failures[fid]
            if not _in_force(lf["created_at"], now, ttl):
                continue
            if lf["session_id"] == self.session_id:
                # In its own session a failure is the error-loop rule's (a second try is
                # legitimate; two in a row are refused): remembered failures are for later
                # sessions.
                continue
            if fp is None:
                fp = self._fp(s)
            if lf["fingerprint"] != fp:
                continue
            where = f"in session {lf['session_id']}"
            # The model gets the error without the call's own argument values in it.
            pending = self._pending.get(call.call_id)
            echo: list[str] = []
            for k, val in (pending[2] if pending else {}).items():
                if type(val) is str:
                    words = val.split()[1:] if k in self._commands else [val]
                    echo += [w for w in words if len(w) >= 3]
            told = _canon.without(lf["error"], echo).replace("\x00", "…")
            return self._refuse(
                s,
                call,
                VerdictCode.KNOWN_FAILURE,
                f"{call.tool} failed {where} (step {lf['step']}) in this same workspace: "
                f"{_short(lf['error'], 200)} [learned failure {fid}]",
                "This exact call already failed in this unchanged workspace, with: "
                f"{_short(told, 200)}. Change something first (fix the cause, or "
                "change the arguments) instead of running it again.",
                (lf["step"],) if lf["session_id"] == self.session_id else (),
            )
        return None

    # ------------------------------------------------------------------ after

    def after_call(
        self,
        call: Call,
        result: Any = None,
        error: BaseException | str | None = None,
    ) -> Verdict:
        """Record a finished call (one journal record) and say what it shows.

        Returns ALLOW, or NUDGE when this call completed a loop (the model should be told
        `verdict.message`), or STOP when the session must stop. Timed, logged and observed
        as `before_call` is.

        Raises:
            InvalidArgumentError: `call` is not a `Call` of this session, or `result` /
                `error` cannot be digested; nothing is recorded.
        """
        if self._observers._items:
            t0 = _perf()
            v = self._after(call, result, error)
            notify(self, _AFTER, v, _perf() - t0, error)
            return v
        v = self._after(call, result, error)
        if v.action is not _ALLOW or error is not None:
            notify(self, _AFTER, v, 0.0, error)
        return v

    def _before_held(
        self,
        tool: str,
        args: Mapping[str, Any] | None,
        call_id: str | None,
        hold: Callable[[], contextlib.AbstractContextManager[Any]],
    ) -> Verdict:
        """`before_call` with only the decision (and a refusal's record) inside `hold()`
        (the caller's lock across processes, e.g. the project's writer lock of a hook): the
        arguments' canonical form and signature are computed before it is taken."""
        if self._closed or self._kernel.closed:
            self._check_open()
        t0 = _perf()
        ident = self._identify(tool, args)
        with hold():
            v: Verdict = self._make_call(tool, args, call_id, True, ident)  # type: ignore[assignment]
            if v.call is not None:
                self._release(v.call)
        if self._observers._items or v.action is not _ALLOW:
            notify(self, _BEFORE, v, _perf() - t0, None)
        return v

    def _release(self, call: Call) -> None:
        """Give back the step of a decided call whose result another `Guard` will record (a
        hook's PreToolUse: its PostToolUse reserves the step again, `_after_held`), unless a
        record took it (a refusal): the session's steps stay consecutive."""
        with self._lock:
            got = self._pending.get(call.call_id)
            if got is not None and got[3] is call:
                del self._pending[call.call_id]
            s = self._session()
            if s.reserved == call.step and s.last_step < call.step:
                s.reserved = call.step - 1

    def _after_held(
        self,
        tool: str,
        args: Mapping[str, Any] | None,
        call_id: str | None,
        hold: Callable[[], contextlib.AbstractContextManager[Any]],
        result: Any = None,
        error: BaseException | str | None = None,
    ) -> Verdict:
        """`call_for` then `after_call` (a process that did not make the `before_call`: a
        PostToolUse hook) with only the step's reservation, the decision and the record
        inside `hold()`: the canonical form, the result's digest, the features and the
        previews (the work that grows with the call's size) are computed before it is taken."""
        if self._closed or self._kernel.closed:
            self._check_open()
        t0 = _perf()
        ident = self._identify(tool, args)
        if error is None and result is not None:
            result, error = _read_result(result)
        pre = (ident, self._outcome(ident[3], ident[5], result, error, tool))
        with hold():
            call: Call = self._make_call(tool, args, call_id, False, ident)  # type: ignore[assignment]
            self._pending.pop(call.call_id, None)  # (its outcome is computed: `pre`)
            v = self._after(call, result, error, pre)
        if self._observers._items or v.action is not _ALLOW or error is not None:
            notify(self, _AFTER, v, _perf() - t0, error)
        return v

    def _after(
        self,
        call: Call,
        result: Any,
        error: BaseException | str | None,
        pre: tuple[_Identity, _Outcome] | None = None,
    ) -> Verdict:
        if self._closed or self._kernel.closed:
            self._check_open()
        if type(call) is not Call and not isinstance(call, Call):
            raise InvalidArgumentError(
                f"call: must be a Call from before_call or call_for, got {type(call).__name__}"
            )
        cid, step, sig = call.call_id, call.step, call.signature
        extra = self._pending.get(cid) if type(cid) is str else None
        # (the fields of the Call `before_call` handed out, its pending entry's, are valid:
        # it made them, and a Call is frozen)
        if (extra is None or extra[3] is not call) and (
            type(step) is not int
            or not 0 < step < _MAX_STEP
            or type(sig) is not str
            or _SIGNATURE(sig) is None
            or type(cid) is not str
            or len(cid) > _MAX_CALL_ID
            or type(call.tool) is not str
        ):
            # a Call built by hand: what it says is journaled, and a bad field would make
            # every later open of the project fail on replaying it
            raise InvalidArgumentError(_bad_call(call))
        if call.session_id != self.session_id:
            raise InvalidArgumentError(
                f"call: belongs to session {brief(call.session_id)}, not "
                f"{brief(self.session_id)}; use the guard of that session (with_session)"
            )
        if pre is None:
            if error is None and result is not None:
                result, error = _read_result(result)
            if extra is not None:  # (taken from `_pending` under the lock, below)
                poll, mut, canon, _, lim = extra  # (the limits of its tool, as `_limits` has)
            else:
                lim = self._limits.get(call.tool) or self._limits_for(_canon.check_tool(call.tool))
                poll, mut, canon = lim.polling, lim.mutating, {}
            kind, res, err, feat, views = self._outcome(canon, mut, result, error, call.tool)
        else:  # computed before the caller took its lock (`_after_held`)
            (_, lim, _, canon, poll, mut), (kind, res, err, feat, views) = pre
        if (
            mut
            and kind == OK
            and type(result) is str
            and len(result) < 300
            and _NO_CHANGE.match(result) is not None
        ):
            mut = False  # an edit that says it changed nothing (fresh14)
        polling = lim.polling or poll
        if not polling and kind == OK:
            if _queue_read(call.tool):
                # a read of a queue or a mailbox that found nothing waits for what others will
                # put there (azure-sdk-for-python #40913: an output queue peeked until the
                # function's reply lands): a poll's patience; the same message delivered
                # again is a repeat
                polling = _nothing_came(result)
            elif type(result) is dict and _canon.unfinished_run(result):
                # a run that says it has not ended ("running", its end time empty: an Airflow
                # DAG run looked at until it finishes; fresh27) is waited for, as a call named
                # for waiting is
                polling = True
        ts = _time_ns() // 1_000_000
        p: dict[str, Any] = {
            "s": call.session_id,
            "n": call.step,
            "t": call.tool,
            "g": call.signature,
            "r": res,
            "k": kind,
            "ts": ts,
        }
        if mut:
            p["m"] = 1
        if polling:
            p["w"] = 1  # a call that waits (the cycle rule treats its cycles as polling)
        if (
            "croll" in call.tool or "CROLL" in call.tool or not _ACTION_KEYS.isdisjoint(canon)
        ) and _scrolls(call.tool, canon):
            p["sc"] = 1  # a call that only scrolls a page (no break in another call's run)
        if _inputs(call.tool, canon):
            p["ia"] = 1  # an input action (a click, a key press): waits between do not excuse it
        if err:
            p["e"] = err
        if feat:
            p["x"] = feat[:2000]
        if views is not None:
            p.update(views)
        # the decision and the record, under the lock: all that reads or changes the state
        with self._lock:
            part = self._part
            s = part.sessions.get(call.session_id) or part.session(call.session_id)
            if extra is not None and self._pending.pop(cid, None) is not extra:
                extra = None  # reported at once by another thread, or dropped (`_MAX_PENDING`)
            if extra is None or extra[3] is not call:  # (not the Call before_call handed out)
                self._check_foreign(call, s)
                if self._unacked:
                    again = self._unacked.pop(cid, None)
                    if again is not None:
                        return self._resend(s, cid, *again)
            if call.step <= s.last_step and _step_taken(s, call.step):
                # another writer of the session stored this step since it was reserved (its
                # records came in with a catch-up): the call takes the next free one
                call = _renumbered(s, call)
                p["n"] = call.step
            while True:
                alias = ""
                if feat and res in s.text_res:  # (a result no candidate has: none)
                    alias = self._near_duplicate(s, call, res, feat, kind, result)
                    if alias:
                        p["a"] = alias
                cluster = alias or call.signature
                if lim.creates and kind == OK and not polling:
                    v = self._created(s, call, res, lim, canon, result, p)
                else:
                    v = None
                # (a new (call, result): `_detect` says nothing of it; not called)
                if v is None and (kind != OK or f"{cluster}:{res}" in s.pairs):
                    v = self._detect(
                        s, call, kind, res, cluster, polling, lim, canon, result, err, feat
                    )
                if v is not None and v.action is not _ALLOW:
                    p["v"] = str(v.code)
                    p["ev"] = list(v.evidence)
                    p["lp"] = sorted(self._loop_pairs_of(s, v))
                if (
                    kind == HARD
                    and lim.learn_failures
                    and (
                        not isinstance(error, _Guessed)
                        or not _read_content(error, call.tool, canon, self._commands)
                    )
                ):
                    # (a failure guessed from the start of what a read returned may be the
                    # content: it counts in this session, a later one does not refuse it; rt11)
                    fp = self._fp(s)
                    p["lf"] = {
                        "id": f"{call.signature[:12]}-{_canon.short_digest(fp)}",
                        "tool": call.tool,
                        "signature": call.signature,
                        "error": p["e"],
                        "fingerprint": fp,
                        "session_id": call.session_id,
                        "created_at": ts,
                        "step": call.step,
                        "epoch": s.epoch,
                        "preview": _short(_SANITIZER.sanitize(_canon.preview(canon)), 160),
                    }
                elif kind == OK:
                    ids = part.by_sig.get(call.signature)
                    if ids:  # it ran and succeeded: what was learned about it no longer holds
                        p["fx"] = list(ids)
                key = f"{self._key_prefix}{next(self._keys)}" if self._idem else None
                try:
                    kernel = self._kernel
                    if kernel.journal is None:
                        # in memory: what `commit_op` does without a journal (no record, no
                        # other writer), inline (the hot path)
                        with kernel.lock:
                            if kernel.closed:
                                kernel.check_open("guard.step")
                            stored = part.apply_step(p)
                    else:
                        # built here: the handler's check is for records read back (replay)
                        stored = kernel.commit_op(
                            "guard.step",
                            p,
                            bump_generation=False,
                            checked=part.apply_step,
                            fresh=self._fresh,
                            msg_id=key,
                        )
                    if stored != call.step:
                        # a NATS stream has no writer lock: another writer's record of this
                        # step came first in the stream, and every reader stores this one at
                        # the next step (`SessionState.free_step`)
                        call = _renumbered(s, call, stored)
                        v = None if v is None else _at_step(v, call)
                    break
                except JournalUnavailableError:
                    if key is not None:  # kept, to be sent again as it is (`_resend`)
                        self._keep_unacked(cid, p, v, call, key)
                    raise
                except StaleOpError:
                    # another writer took the step meanwhile (seen under the journal's lock,
                    # nothing written), or a NATS record came first: judged again on the
                    # caught-up state, at the next step (this one if still free)
                    s = part.sessions.get(call.session_id) or part.session(call.session_id)
                    if _step_taken(s, call.step):
                        call = _renumbered(s, call)
                        p["n"] = call.step
                    for key in _JUDGED:
                        p.pop(key, None)
            done = self._recorded
            done.add(cid)
            if len(done) > 4096:
                self._recorded_old = done
                self._recorded = set()
            if v is None:
                return allow_verdict(call)
            return v

    def _keep_unacked(
        self, cid: str, p: dict[str, Any], v: Verdict | None, call: Call, key: str
    ) -> None:
        unacked = self._unacked
        unacked[cid] = (p, v, call, key)
        if len(unacked) > _MAX_UNACKED:
            del unacked[next(iter(unacked))]

    def _resend(
        self,
        s: SessionState,
        cid: str,
        p: dict[str, Any],
        v: Verdict | None,
        call: Call,
        key: str,
    ) -> Verdict:
        """The after_call of a Call whose record's append raised unavailable (a NATS server
        away), given again (the lock is held): the record as it was judged is sent again
        under its idempotency key, so the server stores it once if the first send reached it
        after all (nats-py sends what it buffered once it reconnects); once that first send
        came back on the feed (applied as the stream has it), it is not sent again. The
        verdict is the one the call was judged with, at the step the record is stored at."""
        part = self._part
        while True:
            stored = _landed(s, p)
            if stored:
                break
            try:
                stored = self._kernel.commit_op(
                    "guard.step",
                    p,
                    bump_generation=False,
                    checked=part.apply_step,
                    fresh=functools.partial(_not_landed, part),
                    msg_id=key,
                )
                break
            except JournalUnavailableError:
                self._keep_unacked(cid, p, v, call, key)
                raise
            except StaleOpError:
                s = part.sessions.get(call.session_id) or part.session(call.session_id)
        if stored != call.step:
            call = _renumbered(s, call, stored)
            v = None if v is None else _at_step(v, call)
        done = self._recorded
        done.add(cid)
        if len(done) > 4096:
            self._recorded_old = done
            self._recorded = set()
        return allow_verdict(call) if v is None else v

    def _check_foreign(self, call: Call, s: SessionState) -> None:
        """A `Call` that is not the one `before_call`/`call_for` handed out for its call_id
        (pending): refused when its call was recorded already (an `after_call` sent twice)
        or its step was never reserved (a Call built or edited by hand: a step past every
        reserved one would be journaled, and every later step of the session would run past
        the largest step there is)."""
        if call.call_id in self._recorded or call.call_id in self._recorded_old:
            raise InvalidArgumentError(
                f"call: {brief(call.call_id)} was recorded already; after_call records a call "
                "once (a call that runs again needs a new before_call)"
            )
        top = s.reserved if s.reserved > s.last_step else s.last_step
        if call.step > top:
            raise InvalidArgumentError(
                f"call.step: {call.step} was never reserved by before_call or call_for of "
                f"session {brief(self.session_id)} (the last is {top}); pass the Call they "
                "returned"
            )

    def _created(
        self,
        s: SessionState,
        call: Call,
        res: str,
        lim: Limits,
        canon: dict[str, Any],
        result: Any,
        p: dict[str, Any],
    ) -> Verdict | None:
        """A call that creates a record succeeded (`ToolPolicy.creates`, or a name that says
        so). Its first success in the request is remembered with a view of what it returned
        (`cv` in the record); a second success of the same call is a duplicate (`cd`): a
        nudge. A tool inferred from its name counts only once a success brought another
        answer of the same shape (a new id, `_result_shape`)."""
        p["cr"] = 1
        st = s.sigs.get(call.signature)
        if st is None or st.made <= s.answered:  # the first success in this request
            if lim.creates != CREATES:
                p["cs"] = _result_shape(result)
            if type(result) is str:
                text = result[:400]
            elif isinstance(result, BaseException | str):
                text = str(result)[:400]
            else:
                text = _BOUNDED.repr(result)
            text = _canon.without(" ".join(text.split()), _echo(canon))
            view = _short(_SANITIZER.sanitize(text), 120).replace("\x00", "…")
            if view:
                p["cv"] = view
            return None
        # Inferred from the name, it takes another answer of the same shape: a record made
        # again has another id, so its answer differs only in the words that carry a digit
        # (`4812`, `#43`, `msg-7f3a9`). The same answer again is the repeat rules'; a poll's
        # answer differs in its words (`queued`, `running`), as another agent's reply does.
        if lim.creates != CREATES and (
            res == st.made_res or _result_shape(result) != st.made_shape
        ):
            return None
        p["cd"] = 1
        said = f" and returned: {st.made_view}" if st.made_view else ""
        return self._nudge(
            s,
            call,
            VerdictCode.REPEATED_CALL,
            f"{call.tool} succeeded again with the same arguments (first at step {st.made}): "
            "it created a duplicate",
            f"This call already succeeded at step {st.made}{said}. The record it created "
            "exists; running it again with the same arguments created another copy. Do not "
            "run it again: use the record that exists (update it if something must change), "
            "or say what blocks you.",
            (st.made, call.step),
        )

    def _outcome(
        self,
        canon: dict[str, Any],
        mut: bool,
        result: Any,
        error: BaseException | str | None,
        tool: str = "",
    ) -> _Outcome:
        """What a finished call's record says of its outcome, from the call and its result
        alone (no state read, no lock held): (kind, result digest, sanitized error text,
        near-duplicate features, previews of a durable guard or None)."""
        # A result that echoes the call's own arguments ("no results for '<query>'") is
        # judged without them: the echo is not new information. (`_core.digest_text` given
        # the arguments picks the same echo: their str values of at least 4 characters.)
        if error is not None:
            echo = _echo(canon)
            etext = _canon.error_text(error)
            if _names_tool(tool, etext):
                # the error names the tool called ("Unknown tool: Miro"): judged without
                # it, as an echo of the arguments is (fresh16)
                echo.append(tool)
            kind = TRANSIENT if _canon.is_transient(error, etext) else HARD
            res = _canon.error_digest(_canon.without(etext, echo))
            # (only its start is kept: the sanitizer's pass over a 20 MB text took 3.6 s, a
            # token of 20 million characters tested for randomness char by char; rt12)
            err = _short(_SANITIZER.sanitize(etext[:_ERROR_SANITIZED]), 400) if etext else ""
        else:
            err = ""
            kind = OK
            got = _digest_text(result, canon) if type(result) is str else None
            res = got if got is not None else _canon.result_digest(result, _echo(canon))
            # a clock reading (fresh11; it has a `:`, looked for first: most results do not)
            if type(result) is str and len(result) <= _READING_MAX and ":" in result:
                res = _canon.reading_digest(result) or res
            if (
                type(result) is str
                and len(result) < 4096
                and not self._commands.isdisjoint(canon)  # (a call with a shell command)
                and self._says(canon, result)
            ):
                res = SAID  # the command printed its own words: it told nothing
        feat = ""
        if canon and (kind != OK or not mut):
            feat = _canon.features(canon, self._commands, _sanitize)
        views = None
        if self._durable:  # what a person sees in `crs dashboard` (sanitized, short)
            views = self._previews("", canon, error if error is not None else result)
        return kind, res, err, feat, views

    def _says(self, canon: dict[str, Any], result: str) -> bool:
        """A shell `echo`/`printf` of literal words whose output is those words (`echo 'All
        set.'` answered "All set."): the agent talking to itself through the shell."""
        commands = self._commands
        for k, cmd in canon.items():  # (one or two arguments, usually)
            if k not in commands or type(cmd) is not str:
                continue
            if not cmd.startswith(("echo ", "printf ")):
                return False
            if _SHELL_META.search(cmd) is not None:
                return False
            try:
                words = shlex.split(cmd)[1:]
            except ValueError:
                return False
            while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
                words = words[1:]
            said = " ".join(words).replace("\\n", " ")
            return " ".join(said.split()) == " ".join(result.split())
        return False

    def _previews(
        self, call_id: str, canon: dict[str, Any] | None, outcome: Any = None
    ) -> dict[str, str]:
        """Short sanitized views of the arguments (and result) for people, durable guards only."""
        if not self._durable:
            return {}
        if canon is None:
            pending = self._pending.get(call_id)
            canon = pending[2] if pending is not None else {}
        # Both views are whitespace-normalised before they are sanitized; `_short` runs
        # again only when the sanitizer changed a view (or it is longer than its limit).
        fast = None
        if len(canon) == 1:  # one argument (the usual call): ASCII text with nothing to redact
            ((k, v),) = canon.items()
            if type(v) is str and not _secret_key(k):
                fast = _quiet_view(v, 160)  # (quiet whole, so quiet once cut)
        if fast is not None:
            out = {"pv": fast}
        else:
            view = _canon.preview(canon)  # at most 160 characters
            clean = _SANITIZER.sanitize(view)
            out = {"pv": clean if clean is view else _short(clean, 160)}
        if outcome is not None:
            if type(outcome) is str:
                fast = _quiet_view(outcome[:400], 120)  # ASCII with nothing to redact
                if fast is not None:
                    out["rv"] = fast
                    return out
                text = outcome
            elif isinstance(outcome, str):
                text = outcome
            elif isinstance(outcome, BaseException):
                text = f"{type(outcome).__name__}: {_BOUNDED.repr(outcome.args)}"
            else:
                # bounded depth and length: no RecursionError; a long binary (an image) is
                # shown by its length, its repr never built (`in_order`; rt11)
                text = _BOUNDED.repr(_canon.in_order(outcome))
            view = " ".join(text[:400].split())
            clean = _SANITIZER.sanitize(view)
            out["rv"] = clean if clean is view and len(clean) <= 120 else _short(clean, 120)
        return out

    def _loop_pairs_of(self, s: SessionState, v: Verdict) -> set[str]:
        ev = set(v.evidence)
        return {pair for n, pair, _ in s.tail if n in ev}

    def _near_duplicate(
        self, s: SessionState, call: Call, res: str, feat: str, kind: int, result: Any
    ) -> str:
        """The cluster of an earlier call of the same tool with the same result whose
        arguments are a near-duplicate of this one's (`_canon.similar`), or ""."""
        if f"{call.signature}:{res}" in s.pairs:
            return ""
        if res not in s.text_res:  # (most results are new)
            return ""
        texts = s.texts
        if _THINKS(call.tool) is not None:
            return ""
        if kind == OK and _canon.names_new_id(result):
            return ""  # a handle to something made for this call: no evidence (fresh10)
        t = self.policy.near_duplicate
        run = self._near_run(s, call, res, feat, t)  # the run just before, continued
        if run:
            return run
        for _, tool, cluster, r, other in reversed(texts):
            if (
                r == res
                and tool == call.tool
                and cluster != call.signature
                and _canon.similar(feat, other, t)
            ):
                return "" if self._answer_varies(s, call, res, feat, cluster) else cluster
        return ""

    def _answer_varies(
        self, s: SessionState, call: Call, res: str, feat: str, cluster: str
    ) -> bool:
        """Whether a call that differs from this one in one word of its text
        (`_canon.one_word_apart`; of neither this signature nor the candidate `cluster`)
        brought another answer in the session: what differs between such calls (a lead's
        id in a prompt) changed the answer, so it says which item is asked,
        and calls that differ in it are a walk over items that some answers happen to share
        (the same rubric for twelve leads, ACCEPT or REJECT), not one call re-parameterised
        (fresh8). Rewordings (several words changed) are not evidence: a search reworded
        again and again after a first answer of its own is still one call."""
        for _, tool, cl, r, other in s.texts:
            if (
                r != res
                and tool == call.tool
                and cl != cluster
                and cl != call.signature
                and _canon.one_word_apart(feat, other)
            ):
                return True
        return False

    def _near_run(self, s: SessionState, call: Call, res: str, feat: str, t: float) -> str:
        """The cluster of the run of calls just before this one (at least two, in a row:
        the same tool, the same resources, the same result, already near-duplicates of
        each other) when this call's words are a near-duplicate of the words of the whole
        run: a search reworded once more takes its words from the earlier wordings
        (`github.*issue`, `create_issue`, then `mcp_github_create.*`), each close to the
        run though not to any one of them (fresh6). "" otherwise."""
        tail, texts = s.tail, s.texts
        if not tail or not texts or texts[-1][0] != tail[-1][0] or texts[-1][3] != res:
            return ""  # the call just before is no near-duplicate candidate (the usual case)
        ident, _, mine = feat.partition("|")
        if not mine:
            return ""
        words: set[str] = set()
        clusters: list[str] = []
        j = len(tail) - 1
        for n, tool, cl, r, other in reversed(texts):
            if j < 0 or n != tail[j][0] or r != res or tool != call.tool or cl == call.signature:
                break
            oi, _, ot = other.partition("|")
            if oi != ident:
                break
            clusters.append(cl)
            words.update(ot.split())
            j -= 1
            if len(tail) - 1 - j >= self.policy.max_period:
                break
        if len(clusters) < 2 or len(set(clusters)) == len(clusters):
            return ""  # no run, or no two of its calls near-duplicates of each other
        cluster = clusters[0]
        sa = set(mine.split())
        return cluster if len(sa & words) >= t * len(sa | words) else ""

    def _detect(
        self,
        s: SessionState,
        call: Call,
        kind: int,
        res: str,
        cluster: str,
        polling: bool,
        lim: Limits,
        canon: dict[str, Any],
        result: Any = None,
        err: str = "",
        feat: str | None = None,
    ) -> Verdict | None:
        pol = self.policy
        if kind == TRANSIENT:
            if cluster == call.signature:
                return None  # its own retry budget is before_call's (RETRY_BUDGET)
            return self._variant_retries(s, call, cluster, lim)
        if kind == HARD:
            v = self._error_streak(s, call, res, lim, canon, feat)
            if v is None and _names_tool(call.tool, err):
                v = self._tool_errors(s, call, res, lim, canon, err)
            if v is not None:
                return v
        n = call.step
        pair = f"{cluster}:{res}"
        if pair not in s.pairs:  # a new (call, result): no repeat, cycle, stale stretch or poll
            return None
        tail = s.tail
        # A user turn after the agent answered is a new request: asking again for the same
        # thing is the user's call, so runs in a row and cycles start after it (the same
        # pair again and again, rule 3, still counts across turns).
        fence = s.answered
        # 1. the same pair in a row (what the agent printed to itself in between, `echo
        # 'Done again.'`, is no call that did something: it does not break the run)
        run = 1
        steps = [n]
        scrolled = False
        for i in range(len(tail) - 1, -1, -1):
            if tail[i][0] <= fence:
                break
            if tail[i][1] != pair:
                if tail[i][1].endswith(_SAID_PAIR) and not pair.endswith(_SAID_PAIR):
                    continue
                # a scroll of a page between two runs of another tool's call changes what
                # the page shows, not what that call answers: no break (`ls`, scroll, `ls`;
                # Kilo Code's and Roo Code's detectors skip scrolls alike; fresh13)
                sc = s.sigs.get(tail[i][2])
                if sc is not None and sc.scrolls and sc.tool != call.tool:
                    scrolled = True
                    continue
                break
            run += 1
            steps.append(tail[i][0])
        # A waiting poll's patience: `poll_repeat` identical answers, twice that while the
        # answer says the work is still under way ("deploying", "Pending": a build or a
        # deploy takes minutes, polled every few seconds; fresh9). An end state ("ready",
        # "failed") or any other answer keeps `poll_repeat`.
        patience = lim.poll_repeat
        if kind == OK and _canon.in_progress(result):
            patience = min(2 * patience, HARD_MAX_REPEATS)
        need = patience if polling else lim.repeat_nudge
        if s.asked and steps[-1] > s.turn_step:
            # the user's turn asked for this many runs ("call it 10 times"): the run is the
            # task, up to the count asked (`Guard.new_turn`; the hard bound stays)
            need = max(need, s.asked + 1)
        if run >= need and not polling and self._watches_outside(s, call, canon):
            # its answer already changed with the workspace unchanged, and it names no
            # workspace path: it reads something outside (a CI run, a job, a service) that
            # moves by itself. It gets one look more than a read (not a waiting poll's
            # patience: it does not wait, and a harness that answers a repeated call with a
            # notice, "same input as before", changes its answer once too).
            need = min(lim.repeat_nudge + 1, max(lim.poll_repeat, lim.repeat_nudge))
        if run >= need:
            return self._nudge(
                s,
                call,
                VerdictCode.REPEATED_CALL,
                f"{call.tool} returned the same result {run} times in a row"
                + (" (scrolls of a page aside)" if scrolled else ""),
                "This call returned the same result several times in a row; "
                "running it again will not change it. Use the result you have, "
                "or try a different approach.",
                tuple(sorted(steps)),
            )
        # 2. a cycle of 2..max_period pairs, fully repeated
        m = len(tail)
        for per in range(2, pol.max_period + 1):
            if 2 * per > m + 1 or tail[m - 2 * per + 1][0] <= fence:
                break
            if tail[m - per][1] != pair:
                continue
            ok = True
            for j in range(1, per):
                if tail[m - j][1] != tail[m - per - j][1]:
                    ok = False
                    break
            if not ok:
                continue
            block = [tail[m - j][1] for j in range(1, per)] + [pair]
            sigs = {tail[m - j][2] for j in range(1, per)} | {call.signature}
            if len(set(block)) < 2:
                continue
            if len(sigs) < 2 and (per != 2 or not _inputs(call.tool, canon)):
                # one call alternating results: polling, not a cycle; but an input action
                # whose answers flip back and forth (Star, Unstar, Star, Unstar: a toggle
                # clicked again and again) undoes itself each time (fresh22)
                continue
            if (
                polling or any(getattr(s.sigs.get(g), "waits", False) for g in sigs)
            ) and not _acts_between_waits(s, sigs, polling):
                # a cycle with a wait in it (sleep, then check) is polling: reported once
                # the block came back `poll_repeat` times, as a polled call in a row is
                if polling and not all(getattr(s.sigs.get(g), "waits", False) for g in sigs):
                    # judged at the look, not at the wait: the look's answer tells whether
                    # the work is still under way (`patience`; fresh9)
                    continue
                reps = _cycle_reps(tail, pair, per, fence)
                if reps < patience:
                    continue
            ev = (*(tail[k][0] for k in range(m - 2 * per + 1, m)), n)
            return self._nudge(
                s,
                call,
                VerdictCode.CYCLE,
                f"the last {2 * per} calls repeat a cycle of {per} calls with the same results",
                f"Your last {2 * per} calls repeat the same cycle of {per} calls "
                "with the same results each time; going round again will not "
                "help. Change the approach, not just the order.",
                ev,
            )
        seen = s.pairs.get(pair)
        stale = seen is not None and seen[1] == s.epoch
        # 3. the same pair again and again (not for polling): `need` runs, at least `need - 1`
        # of them among the last `need * max_period` calls (it comes back within the longest
        # period the guard calls a cycle: a central file re-opened every twenty calls of a
        # long read-only exploration is not a loop), with nothing changed in between: no
        # workspace change, and no call whose result differs from its own last run (the
        # world moved: a "Next" click answered "clicked" every time, each followed by the
        # same extract bringing a new page, is progress). A near-duplicate only
        # corroborates: it counts when nothing new at all came since the pair's last run
        # (clicks at other coordinates, each followed by a new screen, are progress; a
        # user's message is new input: replies through a `send_message` tool, fresh6).
        need = min(max(pol.repeat_in_session, lim.repeat_nudge), HARD_MAX_REPEATS)
        if kind == OK and _verifies(call.tool, canon, self._commands):
            # a check of the workspace (tests, a build, a linter) run again on the same
            # workspace answers the same: `repeat_nudge` runs, other calls between or not
            # (reads and searches between re-runs of one failing test; fresh19). A check
            # that fails (an error) has the failure streak and the memory instead.
            need = lim.repeat_nudge
        if s.asked:
            need = max(need, s.asked + 1)  # (runs the user's turn asked for, as rule 1)
        if seen is not None and _waited_since(s, seen[2]):
            # the agent waited before it looked again (sleep 60, then the job's status):
            # the pair is polled, as a cycle with a wait in it is (rule 2), so it gets a
            # poll's patience, `poll_repeat` runs (fresh7)
            need = max(need, patience)
        if (
            stale
            and not polling
            and seen is not None
            and seen[0] + 1 >= need
            and not _reads_clock(call.tool)  # a clock read between other work: a new time
            and (
                (
                    cluster == call.signature
                    and s.moved_step <= seen[2]
                    and _recurs(tail, pair, need, pol.max_period)
                )
                or (n - seen[2] - 1 <= s.stale and seen[2] > s.turn_step)
            )
        ):
            return self._nudge(
                s,
                call,
                VerdictCode.REPEATED_CALL,
                f"{call.tool} returned the same result {seen[0] + 1} times "
                "with nothing changed in between",
                "You keep running this call and it keeps returning the same "
                "result, with nothing changed in between. Use the result you "
                "have, or try something different.",
                (seen[2], n),
            )
        # 4. nothing new for a while
        window = pol.no_progress_window
        recent = {t[2] for t in list(tail)[-(window - 1) :]} | {call.signature}
        if (
            stale
            and s.stale + 1 >= window
            and any(getattr(s.sigs.get(g), "waits", False) for g in recent)
        ):
            # waits and looks: a poll, judged at the look, with a poll's patience per call of
            # the cycle while the look says the work is under way (fresh9)
            if polling:
                recent = set()
            elif patience > lim.poll_repeat:
                window = max(window, patience * len(recent))
        if (
            stale and s.stale + 1 >= window and len(recent) > 1
        ):  # (one call repeating is the rules above, with its own thresholds)
            ev = (*(t[0] for t in list(tail)[-(window - 1) :]), n)
            return self._nudge(
                s,
                call,
                VerdictCode.NO_PROGRESS,
                f"the last {s.stale + 1} calls produced nothing new",
                "Your last calls produced nothing new. Step back, summarise "
                "what you know, and choose a different next step.",
                ev,
            )
        return self._poll_check(s, call, lim) if stale else None

    def _error_streak(
        self,
        s: SessionState,
        call: Call,
        res: str,
        lim: Limits,
        canon: dict[str, Any],
        feat: str | None = None,
    ) -> Verdict | None:
        """The same hard error, `max_failures + 1` times in a row, from calls of one tool on
        the same resources (equal identifiers: program, paths, ids) spelled differently:
        other words or flags, `./convert.py` for `convert.py`. Re-spelling
        the call does not fix what failed; each spelling alone has its own failure count
        (fresh6). Calls on other resources (another file probed) are not part of it.
        `feat`: the call's features when its outcome computed them (a failure's are: not
        computed again, rt12: 20 MB of one token took seconds)."""
        if feat is None:
            feat = _canon.features(canon, self._commands, _sanitize)
        if not feat:
            return None
        ident = feat.partition("|")[0]
        need = lim.max_failures + 1
        suffix = ":" + res
        seen = {n: (tool, f) for n, tool, _, r, f in s.texts if r == res}
        steps = [call.step]
        sigs = {call.signature}
        tail = s.tail
        for i in range(len(tail) - 1, max(len(tail) - need, -1), -1):
            n, pair, g = tail[i]
            hit = seen.get(n)
            if (
                n <= s.answered
                or not pair.endswith(suffix)
                or hit is None
                or hit[0] != call.tool
                or hit[1].partition("|")[0] != ident
            ):
                break
            steps.append(n)
            sigs.add(g)
        if len(steps) < need or len(sigs) < 2:
            return None
        # "The same error" must say something: an exit status alone ("exit code 1", a grep
        # that found nothing) is no evidence that different words asked the same thing.
        said = {tail[-1][2], *sigs} - {call.signature}
        if not any(_says_something(s.sigs[g].last_err) for g in said if g in s.sigs):
            return None
        return self._nudge(
            s,
            call,
            VerdictCode.ERROR_LOOP,
            f"{call.tool} failed the same way {len(steps)} times in a row, the call "
            "spelled differently each time",
            "The same error came back several times in a row although you changed how the "
            "call is written. Read the error and fix its cause; another spelling of the "
            "same call will fail the same way.",
            tuple(sorted(steps)),
        )

    def _tool_errors(
        self, s: SessionState, call: Call, res: str, lim: Limits, canon: dict[str, Any], err: str
    ) -> Verdict | None:
        """The same hard error naming the tool called (its name left out: "Unknown tool:
        Miro", "Unknown tool: Jira"), `max_failures + 1` times in a row: the agent is
        calling tools that are not there (or not usable), one new name after another
        (fresh16), or one such tool with new arguments each time ("Tool exec not found"
        for `ls`, `pwd`, `{"input": "whoami"}`: no two calls share a signature; fresh19).
        An error that echoes the call's arguments is about what
        the call asked (another file probed), not about the tool: not part of it (the
        digests of the run are equal, so none of them echoed its arguments). (fresh16)"""
        if any(e in err for e in _echo(canon)):
            return None
        need = lim.max_failures + 1
        suffix = ":" + res
        steps = [call.step]
        tools = {call.tool}
        tail = s.tail
        for i in range(len(tail) - 1, max(len(tail) - need, -1), -1):
            n, pair, g = tail[i]
            st = s.sigs.get(g)
            if (
                n <= s.answered
                or not pair.endswith(suffix)
                or st is None
                or not st.hard
                or not _names_tool(st.tool, st.last_err)
            ):
                break
            steps.append(n)
            tools.add(st.tool)
        if len(steps) < need:
            return None
        what = (
            f"{len(steps)} calls in a row to {len(tools)} different tools failed the same "
            "way, each error naming the tool called"
            if len(tools) > 1
            else f"{len(steps)} calls of {call.tool} in a row, each with other arguments, "
            "failed the same way, each error naming the tool itself"
        )
        said = (
            "Each of these tools failed with the same error about the tool itself (is it "
            "there, set up, allowed?)."
            if len(tools) > 1
            else "This tool fails with the same error about itself whatever you pass it (is "
            "it there, set up, allowed?): other arguments will not help."
        )
        return self._nudge(
            s,
            call,
            VerdictCode.ERROR_LOOP,
            what,
            f"{said} Use one of the tools you were given that works, or ask the user for "
            "what you need.",
            tuple(sorted(steps)),
        )

    def _watches_outside(self, s: SessionState, call: Call, canon: dict[str, Any]) -> bool:
        st = s.sigs.get(call.signature)
        return st is not None and st.changes > 0 and not _canon.names_path(canon, self._commands)

    def _variant_retries(
        self, s: SessionState, call: Call, cluster: str, lim: Limits
    ) -> Verdict | None:
        """A transient failure of a re-parameterised variant (another timeout, another
        limit) of a call that failed the same way: the variants share one retry budget."""
        base = s.sigs.get(cluster)
        if (
            base is None
            or not base.transient
            or base.fail_step <= s.turn_step
            or base.epoch != s.epoch
            or base.transient + 1 <= lim.transient_retries
        ):
            return None
        return self._nudge(
            s,
            call,
            VerdictCode.RETRY_BUDGET,
            f"{call.tool} hit {base.transient + 1} transient errors in a row with variants "
            f"of one call (first at step {base.fail_step}): {_short(base.last_err, 160)}",
            "This call keeps hitting the same transient error however its parameters "
            "change (timeout, retries, limits). Find the cause (is the service running?) "
            "or get what you need another way.",
            (base.fail_step, call.step),
        )

    def _poll_check(self, s: SessionState, call: Call, lim: Limits) -> Verdict | None:
        # 5. polling past its budget (runs that brought back an earlier result)
        sig = s.sigs.get(call.signature)
        n = call.step
        if (
            sig is not None
            and sig.changes
            and sig.epoch == s.epoch
            and sig.polls + 1 == lim.poll_budget
        ):
            return self._nudge(
                s,
                call,
                VerdictCode.POLLING,
                f"{call.tool} polled {sig.polls + 1} times",
                "This call has been polled many times. Consider reporting "
                "progress to the user instead of polling further.",
                (n,),
            )
        return None

    def _nudge(
        self,
        s: SessionState,
        call: Call,
        code: VerdictCode,
        reason: str,
        message: str,
        evidence: tuple[int, ...],
    ) -> Verdict:
        if s.level >= NUDGED and s.nudges + 1 > self.policy.stop_after_blocks:
            return make_verdict(
                _STOP,
                code,
                f"{reason}; the loop went on after {s.nudges} nudges: stop",
                message + " You were told several times: stop here and report to the user.",
                evidence,
                call,
            )
        return make_verdict(_NUDGE, code, reason, message, evidence, call)

    # ------------------------------------------------------------------ messages, turns

    @observed(GuardEventKind.MESSAGE)
    def on_message(self, text: str) -> Verdict:
        """An agent turn with no tool call (monologue check); journaled."""
        self._check_open()
        if not isinstance(text, str):
            raise InvalidArgumentError(f"text: must be a str, got {type(text).__name__}")
        try:
            text.encode()
        except UnicodeEncodeError:
            raise InvalidArgumentError(
                "text: contains a lone surrogate (not valid UTF-8)"
            ) from None
        # Numbers (counters, times) do not make a message new: "thinking... 1", "... 2".
        norm = _MSG_WS.sub(" ", _DIGITS.sub("#", text.strip().lower()[:100_000]))
        digest = _canon.result_digest(norm)
        # What is kept of the message to compare the next one with (journaled: a new process
        # continues): a MinHash sketch and its sentences' digests, of the sanitized text.
        clean = _sanitize(text[:100_000])
        clean = norm if clean == text else _MSG_WS.sub(" ", _DIGITS.sub("#", clean.lower()))
        clean = clean.strip()
        sk = _turns.sketch(self._minhash(clean)) if clean else ""
        sents = _turns.sentence_digests(_sentences(clean)) if clean else []
        with self._lock:
            # judged on the state as it is; another writer's record that came first (a
            # NATS race, or another process's append under the journal's lock: nothing
            # written) is applied, and the message judged again with it
            for attempt in range(_REJUDGE + 1):
                s = self._session()
                msgs = s.msgs
                # a message of a turn that follows up the same answer (`new_turn(text)`): the
                # one that answer has at this place
                answer: list[str] = s.echo[0]
                again = answer[len(msgs)] if len(msgs) < len(answer) else None
                if not s.echo[3] or not s.replaying():
                    again = None
                # (a near-identical text is judged against the last message: the answer's own
                # when it is one message)
                ref = msgs[-1] if msgs else again if len(answer) == 1 else None
                if (
                    ref is not None
                    and digest != ref
                    and len(norm) >= 40
                    and s.last_sketch
                    and (
                        _turns.sketch_similarity(sk, s.last_sketch) >= 0.8
                        or not s.last_sents.isdisjoint(sents)
                    )
                ):
                    # a near-identical message, or one that says a sentence of the last one
                    # again, counts as the same one
                    digest = ref
                # The run of agent messages (journaled as digests: a new process continues): the
                # words it used, its messages that brought (almost) none that was new (stale),
                # and the restatements in a row.
                words = frozenset(
                    _turns.word_digests(_turns.stems(set(_canon._tokens(clean)) - _canon._STOP))
                )
                running = s.msg_streak > 0
                stale = 3 * len(words - s.msg_run) < len(words) if running else False
                stale = stale or not words
                stales = (s.msg_stale if running else 0) + stale
                # stale messages in a row, each in words of its own (fresh10)
                stale_row = s.msg_stale_row if running else 0
                stale_row = 0 if not stale else stale_row + (digest not in msgs)
                # A restatement: (almost) nothing new to the run, and its words a near-duplicate
                # of the last message's (the same test as reworded calls). `monologue_repeats`
                # of them in a row (that many + 1 messages saying one thing) is a monologue
                # (fresh6): one more than for the same words, as rewording is weaker evidence.
                lw = s.msg_last
                restates = (
                    stale
                    and bool(words)
                    and len(words & lw) >= self.policy.near_duplicate * len(words | lw)
                )
                restated = (s.msg_restated if running else 0) + 1 if restates else 0
                seq = [*msgs, digest]
                found, cap = self._message_loop(seq, s.msg_streak + 1, stales)
                by_echo = False
                if found is None and digest == again and len(msgs) + 1 == len(answer):
                    found = self._echo_loop(s.echo[1] + 1, bool(s.echo[4]))
                    by_echo = found is not None
                    # after calls (to unrelated requests, fresh15) the evidence is weaker than
                    # a text-only answer to a follow-up: a nudge each time, never more
                    cap = cap or (by_echo and bool(s.echo[4]))
                if found is None and restated >= self.policy.monologue_repeats:
                    found = (
                        f"the agent said the same thing in other words {restated + 1} "
                        "times in a row without acting"
                    )
                if found is None and stale_row >= self.policy.monologue_repeats:
                    found = (
                        f"{stale_row} agent messages in a row without acting, none saying "
                        "anything new"
                    )
                # A canned reply (fresh17, fresh19, fresh21): one long text (a stock phrase is
                # short, `CANNED_WORDS`) opening the answer, in text only, to new requests in a
                # row: it ignores what was asked. A nudge each time, never more.
                canned = 0
                if not msgs and s.last_step == s.turn_step and len(words) >= _turns.CANNED_WORDS:
                    prev = s.canned
                    if prev[1] and prev[0] == digest and prev[2] == s.turns - 1:
                        # the run goes on, to a new request or a follow-up answered alike
                        # ("Would you like me to make these changes?" after every "yes",
                        # bolt.new #3644; fresh24)
                        canned = min(prev[1] + 1, _turns.MAX_CANNED)
                    elif s.new_ask:
                        canned = 1  # a new request opens a run (follow-ups alone: the echo's)
                    if found is None and canned >= self.policy.monologue_repeats:
                        found = (
                            f"the agent opened its answer to {canned} user turns in a row with "
                            "the same reply, word for word"
                        )
                        cap = True
                # The run the last turn ended on (the same message twice or more in a row),
                # answered to the user's next message with that message again, no call
                # since: the turn changed nothing it says; the run goes on (fresh23). A
                # nudge each time, as a canned reply.
                carried = s.carry[1]
                if (
                    found is None
                    and carried
                    and digest == s.carry[0]
                    and s.last_step == s.turn_step
                    and all(m == digest for m in msgs)
                    and carried + len(msgs) + 1 >= self.policy.monologue_repeats
                ):
                    found = (
                        f"the agent said the same thing {carried + len(msgs) + 1} times in a "
                        "row without acting, the user's message between"
                    )
                    cap = True
                if found is None and len(text) >= _repeat.MIN_SPAN:
                    # one message stuck on a passage it says over and over (crs.guard._repeat)
                    rep = _repeat.repetition(text)
                    if rep is not None:
                        found = (
                            f"the agent's message says the same {rep[0]}-character passage "
                            f"{rep[1]} times over"
                        )
                payload: dict[str, Any] = {"s": self.session_id, "d": digest, "ts": _now_ms()}
                if sk:
                    payload["h"] = sk
                    if sents:
                        payload["sn"] = sents
                payload["mw"] = sorted(words)
                if stale:
                    payload["st"] = 1
                if restates:
                    payload["rs"] = 1
                if canned:
                    payload["cn"] = canned
                if found is not None:
                    payload["v"] = 1
                try:
                    self._kernel.commit_op(
                        "guard.msg",
                        payload,
                        bump_generation=False,
                        fresh=_stale if attempt < _REJUDGE else None,
                    )
                    break
                except StaleOpError:
                    continue
            if found is None:
                return allow_verdict(None)
            # apply_msg counted this one
            flags = (s.echo[2] if by_echo else s.msg_flags) - 1
            action = _NUDGE if flags <= 0 or cap else _BLOCK if flags == 1 else _STOP
            return make_verdict(
                action,
                VerdictCode.MONOLOGUE,
                found,
                "You gave the same reply to different requests. Read the user's latest "
                "message and answer what it asks, or ask the user what they need."
                if canned >= self.policy.monologue_repeats
                else "You are repeating yourself without acting. Make a tool call that moves "
                "the task forward, or ask the user for what you need.",
                (),
                None,
            )

    def _message_loop(self, seq: list[str], streak: int, stale: int) -> tuple[str | None, bool]:
        """(what loops, or None; whether it is only a nudge). `stale`: messages of this run
        that brought (almost) no word it had not used in the run yet."""
        pol = self.policy
        run = 1
        while run < len(seq) and seq[-1 - run] == seq[-1]:
            run += 1
        if run >= pol.monologue_repeats:
            return f"the agent said the same thing {run} times in a row without acting", False
        # the same message `monologue_repeats` times among the run's last ones, one other
        # message between them (a farewell said again around one reworded, fresh16)
        last = seq[-pol.monologue_repeats - 1 :]
        if len(last) > pol.monologue_repeats and last.count(seq[-1]) >= pol.monologue_repeats:
            return (
                f"the agent said the same thing {pol.monologue_repeats} times in its last "
                f"{len(last)} messages without acting"
            ), False
        for per in range(2, 5):
            if (
                len(seq) >= 2 * per
                and seq[-2 * per : -per] == seq[-per:]
                and len(set(seq[-per:])) > 1
            ):
                return (
                    f"the agent's last {2 * per} messages repeat a cycle of {per} without "
                    "a tool call"
                ), False
        # A long run of messages counts by what it says: reworded lines that bring nothing
        # new (goodbyes, "I'll do it") are a monologue; a long answer that keeps saying new
        # things (a design written out in sections) is not repeating itself: only a very
        # long one gets a nudge, and never more.
        if streak >= pol.monologue_max and stale >= max(2, pol.monologue_max // 2):
            return (
                f"{streak} agent messages in a row without a tool call, {stale} of them "
                "saying nothing new"
            ), False
        if stale >= pol.monologue_max:
            return f"{stale} agent messages in a row saying nothing new", False
        if streak >= 2 * pol.monologue_max:
            return f"{streak} agent messages in a row without a tool call", True
        return None, False

    def _echo_loop(self, turns: int, calls: bool = False) -> str | None:
        """What loops when the agent gave the same answer to `turns` user turns in a row,
        each after the first asking nothing new, with no tool call (or, `calls`, after the
        same calls with the same results, fresh15): or None."""
        if turns < self.policy.monologue_repeats:
            return None
        if calls:
            return (
                f"the agent gave the same answer after the same calls with the same results "
                f"to {turns} user turns in a row"
            )
        return (
            f"the agent gave the same answer to {turns} user turns in a row without acting "
            "(the user asked nothing new)"
        )

    def new_turn(self, text: str | None = None) -> None:
        """A user message: escalation starts over (the history, and loop detection over it,
        is kept across turns).

        `text`, the user's message (optional): a turn that asks nothing new (a ping, "any
        update?", the request again) answered with the same text as the turn before, with
        no tool call, continues a monologue across turns; a new question does not. Only the
        digests of its sanitized words are kept (`crs.guard._turns`)."""
        self._check_open()
        payload: dict[str, Any] = {"s": self.session_id}
        digests: list[str] | None = None
        if text is not None:
            if not isinstance(text, str):
                raise InvalidArgumentError(
                    f"text: must be a str or None, got {type(text).__name__}"
                )
            # the user's text is observed, not judged: lone surrogates are repaired
            text = _sanitize(valid_text(text[:100_000]))
            digests = _turns.words(text)
            asked = _turns.repeats_asked(text)
            if asked:
                payload["rp"] = asked  # "run it 5 times": five runs of one call are the task
        with self._lock:
            for attempt in range(_REJUDGE + 1):  # (judged again as `on_message`'s)
                if digests is not None:
                    payload["u"] = digests
                    payload.pop("f", None)
                    if _turns.asks_nothing_new(digests, self._session().ask):
                        payload["f"] = 1
                try:
                    self._kernel.commit_op(
                        "guard.turn",
                        payload,
                        bump_generation=False,
                        fresh=_stale if attempt < _REJUDGE and digests is not None else None,
                    )
                    break
                except StaleOpError:
                    continue

    # ------------------------------------------------------------------ async

    async def abefore_call(
        self, tool: str, args: Mapping[str, Any] | None = None, *, call_id: str | None = None
    ) -> Verdict:
        """`before_call` that never blocks the event loop on an fsync."""
        if not self._durable:
            return self.before_call(tool, args, call_id=call_id)
        import asyncio  # inside: start-up (`import crs` stays asyncio-free; a loop has it)

        return await asyncio.to_thread(self.before_call, tool, args, call_id=call_id)

    async def aafter_call(
        self, call: Call, result: Any = None, error: BaseException | str | None = None
    ) -> Verdict:
        """`after_call` that never blocks the event loop on an fsync (durable guards write
        in a worker thread)."""
        if not self._durable:
            return self.after_call(call, result=result, error=error)
        import asyncio  # inside: start-up (`import crs` stays asyncio-free; a loop has it)

        return await asyncio.to_thread(self.after_call, call, result, error)

    async def aon_message(self, text: str) -> Verdict:
        if not self._durable:
            return self.on_message(text)
        import asyncio  # inside: start-up (`import crs` stays asyncio-free; a loop has it)

        return await asyncio.to_thread(self.on_message, text)

    # ------------------------------------------------------------------ memory

    def learned(self) -> list[LearnedFailure]:
        """The failures the guard remembers (project-wide for a durable guard), newest first."""
        now = _now_ms()
        ttl = self.policy.known_failure_ttl_s * 1000
        with self._lock:
            rows = [f for f in self._part.failures.values() if _in_force(f["created_at"], now, ttl)]
        rows.sort(key=lambda f: f["created_at"], reverse=True)
        return [
            LearnedFailure(
                id=f["id"],
                tool=f["tool"],
                signature=f["signature"],
                error=f["error"],
                fingerprint=f["fingerprint"],
                session_id=f["session_id"],
                created_at=f["created_at"],
                step=f.get("step", 0),
                preview=f.get("preview", ""),
            )
            for f in rows
        ]

    def forget(self, failure_id: str) -> bool:
        """Forget a learned failure (journaled); False if there is no such failure."""
        self._check_open()
        if not isinstance(failure_id, str) or not failure_id:
            raise InvalidArgumentError(
                f"failure_id: must be a non-empty str, got {brief(failure_id)}"
            )
        with self._lock:
            if failure_id not in self._part.failures:
                return False
            self._kernel.commit_op("guard.forget", {"id": failure_id}, bump_generation=False)
            return True

    def status(self) -> dict[str, Any]:
        """The session's figures, plain data."""
        with self._lock:
            s = self._session()
            return {
                "session_id": self.session_id,
                "durable": self._durable,
                "calls": s.calls,
                "last_step": s.last_step,
                "tool_calls": dict(s.tool_calls),
                "started_at": s.started,
                "level": "nudged" if s.level >= NUDGED else "calm",
                "loop_code": s.loop_code,
                "loop_steps": list(s.loop_steps),
                "refusals_in_a_row": s.blocks,
                "workspace_changes": s.epoch,
                "turns": s.turns,
                "learned_failures": len(self._part.failures),
                "sessions": len(self._part.sessions),
            }

    def explain(self) -> dict[str, Any]:
        """What the guard knows about the session, plain data: status, the recent steps
        (signature and result digests, kind, verdict), learned failures and the policy."""
        with self._lock:
            s = self._session()
            recent = [
                {
                    "step": r[0],
                    "tool": r[1],
                    "signature": r[2],
                    "result": r[3],
                    "kind": {0: "ok", 1: "failure", 2: "transient", -1: "refused"}[r[4]],
                    "verdict": r[5],
                    "at": r[6],
                }
                for r in s.recent
            ]
        return {
            "status": self.status(),
            "recent": recent,
            "learned": [f.to_dict() for f in self.learned()],
            "policy": self.policy.to_dict(),
        }

    # ------------------------------------------------------------------ plain Python tools

    @overload
    def tool(self, fn: _F, *, name: str | None = None) -> _F: ...
    @overload
    def tool(self, fn: None = None, *, name: str | None = None) -> Callable[[_F], _F]: ...
    def tool(self, fn: Callable[..., Any] | None = None, *, name: str | None = None) -> Any:
        """Decorator: guard a plain Python function (sync or async) as a tool.

        Its keyword arguments (positional ones bound by name) are the call's arguments; a
        refused call raises `GuardBlockedError` (`GuardStoppedError` on STOP); an exception
        of the function is recorded as a failure and re-raised.
        """
        if name is not None and not isinstance(name, str):
            raise InvalidArgumentError(f"name: must be a str or None, got {brief(name)}")

        def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
            if not callable(f):
                raise InvalidArgumentError(f"fn: must be a callable, got {brief(f)}")
            tool_name = name or getattr(f, "__name__", None) or "tool"
            sig = inspect.signature(f)
            # inside: a decorated tool's record goes on when the journal cannot take it
            from crs.guard._record import aran, ran

            def bind(a: tuple[Any, ...], kw: dict[str, Any]) -> dict[str, Any]:
                try:
                    b = sig.bind(*a, **kw)
                except TypeError:
                    return _plain_args({"args": list(a), **kw})  # type: ignore[no-any-return]
                b.apply_defaults()
                out = dict(b.arguments)
                for pname, prm in sig.parameters.items():
                    if prm.kind is prm.VAR_KEYWORD and pname in out:
                        out.update(out.pop(pname))
                return _plain_args(out)  # type: ignore[no-any-return]

            if inspect.iscoroutinefunction(f):

                @functools.wraps(f)
                async def awrapper(*a: Any, **kw: Any) -> Any:
                    v = await self.abefore_call(tool_name, bind(a, kw))
                    _raise_unless_allowed(v)
                    call: Call = v.call  # type: ignore[assignment]
                    try:
                        out = await f(*a, **kw)
                    except Exception as exc:
                        await aran(call, functools.partial(self.aafter_call, call, error=exc))
                        raise
                    await aran(call, functools.partial(_arecord_output, self, call, out))
                    return out

                return awrapper

            @functools.wraps(f)
            def wrapper(*a: Any, **kw: Any) -> Any:
                v = self.before_call(tool_name, bind(a, kw))
                _raise_unless_allowed(v)
                call: Call = v.call  # type: ignore[assignment]
                try:
                    out = f(*a, **kw)
                except Exception as exc:
                    ran(call, functools.partial(self.after_call, call, error=exc))
                    raise
                ran(call, functools.partial(_record_output, self, call, out))
                return out

            return wrapper

        if fn is None:
            return wrap
        return wrap(fn)

    @contextlib.contextmanager
    def guarded(self, tool: str, args: Mapping[str, Any] | None = None) -> Iterator[GuardedCall]:
        """Context manager around a call: refused calls raise `GuardBlockedError`; set
        `outcome.result` inside the block; an exception is recorded as the call's error.

        >>> g = Guard()
        >>> with g.guarded("ls", {"path": "."}) as out:
        ...     out.result = "a.py b.py"
        >>> out.verdict.action
        <Action.ALLOW: 'allow'>
        """
        v = self.before_call(tool, _plain_args(args))
        _raise_unless_allowed(v)
        assert v.call is not None
        out = GuardedCall(v)
        call = v.call
        from crs.guard._record import ran  # inside: as for `tool`

        try:
            yield out
        except Exception as exc:
            ran(call, functools.partial(self.after_call, call, error=exc))
            raise
        out.verdict = ran(call, functools.partial(_record_output, self, call, out.result))

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Close the guard (and its engine, unless it came from `with_session`); idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._owns:
            if self._durable:
                self._backup_if_long()
            self._crs.close()

    def _backup_if_long(self) -> None:
        """Save the project's backup at close when its journal holds more than
        `_BACKUP_AT_CLOSE` records past the backups: the next open loads it and a short
        tail instead of replaying every call since (a long-lived writer saved none; the
        Claude Code hook saves its own). Never raises: the guard closes regardless."""
        crs = self._crs
        project = getattr(getattr(crs, "_persist", None), "project", None)
        if project is None or self._kernel.closed:  # (NATS, a forked child: nothing)
            return
        pm, key, _ = project
        try:
            if crs.journal_position() - pm.journal_checkpoint_position(key) > _BACKUP_AT_CLOSE:
                crs.save_project_backup()
        except (CRSError, OSError) as exc:
            _log.warning("closing the guard: the project's backup was not saved (%s)", exc)

    def __enter__(self) -> Guard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        kind = "durable" if self._durable else "memory"
        return f"<Guard session={brief(self.session_id)} {kind} calls={self._session().calls}>"


class GuardedCall:
    """What `Guard.guarded` yields: set `.result`; `.verdict` is the before verdict, then
    the after verdict."""

    __slots__ = ("result", "verdict")

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.result: Any = None


_PLAIN = (str, int, bool, type(None))  # (float: NaN and the infinities are not JSON)
_MAX_PLAIN_DEPTH = 64  # deeper than the guard takes (it says so, naming the argument)


def _plain_args(args: Mapping[str, Any] | None) -> Any:
    """The arguments of a plain Python tool (`Guard.tool`, `Guard.guarded`) as JSON data:
    the Python values that are not JSON get one deterministic form each, so the same call
    made twice has the same signature and two different ones do not (never a repr that
    names a memory address). Raises `InvalidArgumentError` naming the argument of a value
    with no such form."""
    if args is None or not isinstance(args, Mapping):
        return args  # (the guard says what is wrong with it)
    for v in args.values():
        if type(v) not in _PLAIN:
            break
    else:
        return args  # (the usual call: nothing to convert)
    return {k: _plain(v, f"args[{k!r}]" if type(k) is str else "args", 1) for k, v in args.items()}


def _plain(value: Any, name: str, depth: int) -> Any:
    """`value` as JSON data (see `_plain_args`); `name` says where it is, for the error."""
    t = type(value)
    if t in _PLAIN:
        return value
    if t is float:
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if depth > _MAX_PLAIN_DEPTH:
        return value  # (the guard refuses it as nested too deep)
    if isinstance(value, Mapping):
        return {
            (_key(k, name) if type(k) is not str else k): _plain(v, f"{name}[{k!r}]", depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_plain(v, f"{name}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, set | frozenset):
        items = [_plain(v, f"{name} item", depth + 1) for v in value]
        # inside: only a set needs an order of its items' JSON forms
        import json

        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if isinstance(value, enum.Enum):
        return _plain(value.value, name, depth)
    if isinstance(value, str):  # a subclass: its text (not what its __str__ makes of it)
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return _plain(float.__float__(value), name, depth)
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        return os.fsdecode(path) if isinstance(path, bytes) else path
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        # inside: only bytes need them
        import base64
        import hashlib

        if len(data) <= 4096:
            return "base64:" + base64.b64encode(data).decode()
        return f"sha256:{hashlib.sha256(data).hexdigest()}:{len(data)}"
    # (only modules a value could come from are looked at: none is imported for it)
    dt = sys.modules.get("datetime")
    if dt is not None and isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if dt is not None and isinstance(value, dt.timedelta):
        return f"{value.total_seconds()!r}s"
    dec = sys.modules.get("decimal")
    if dec is not None and isinstance(value, dec.Decimal):
        return str(value)
    uid = sys.modules.get("uuid")
    if uid is not None and isinstance(value, uid.UUID):
        return str(value)
    raise InvalidArgumentError(
        f"{name}: a {t.__name__} has no canonical form the guard can compare between calls "
        "(JSON data has one, and so do paths, dates and times, decimals, UUIDs, bytes, sets, "
        "tuples and enums); pass one of those (an id or a path rather than the object)"
    )


def _key(key: Any, name: str) -> Any:
    """A mapping key of a plain Python tool's argument: a path, a UUID, an enum... as its str
    form (JSON's keys are str); another key is left for the guard to judge."""
    got = _plain(key, f"{name} key", _MAX_PLAIN_DEPTH)
    return got if type(got) is str else key


def _raise_unless_allowed(v: Verdict) -> None:
    if v.action is _STOP:
        raise GuardStoppedError(v)
    if v.action is _BLOCK:
        raise GuardBlockedError(v)


def _record_output(guard: Guard, call: Call, out: Any) -> Verdict:
    """`after_call` of what a decorated or guarded tool gave: the tool has run, so its value
    reaches the caller whatever the guard makes of it (text with lone surrogates repaired, an
    undigestible result recorded by its type: `crs.guard._record.record_result`)."""
    try:
        return guard.after_call(call, result=out)
    except InvalidArgumentError:
        # inside: only a result the guard refused needs the integrations' fallback
        from crs.guard._record import record_result

        return record_result(guard, call, out, None)


async def _arecord_output(guard: Guard, call: Call, out: Any) -> Verdict:
    try:
        return await guard.aafter_call(call, result=out)
    except InvalidArgumentError:
        # inside: as above
        from crs.guard._record import arecord_result

        return await arecord_result(guard, call, out, None)
