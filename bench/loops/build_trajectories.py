"""Builds bench/loops/trajectories.jsonl, the labelled loop benchmark (format: README.md).

Every trajectory is written out here by hand, translated from a public test case or user
report (its `source`); nothing is copied. The builder only saves typing (indices, step
labels); the committed JSONL is the data. Run it again after editing:

    python bench/loops/build_trajectories.py

Labels of a loop: `first_repeat`, the first event of the second occurrence of the repeated
unit; `earliest`, the event after which the unit has fully happened twice (the earliest
legitimate flag); `latest`, `earliest` plus 2p+1 further tool calls (p the period), the
latest acceptable flag. How a detector's flag maps onto an event index: README.md.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "trajectories.jsonl"

OH_SDK = {
    "repo": "OpenHands/software-agent-sdk",
    "path": "tests/cross/test_stuck_detector.py",
}
OH_V0 = {"repo": "All-Hands-AI/OpenHands", "path": "tests/unit/test_is_stuck.py"}
GEMINI = {
    "repo": "google-gemini/gemini-cli",
    "path": "packages/core/src/services/loopDetectionService.test.ts",
}
WATCHDOG = {"repo": "woodwater2026/agent-watchdog", "path": "tests/test_watchdog.py"}
ISSUE12 = {"issue": "crs issue 12 (What was measured)"}


def gh(repo: str, kind: str, num: int) -> dict[str, str]:
    return {"url": f"https://github.com/{repo}/{kind}/{num}"}


class T:
    """One trajectory under construction."""

    def __init__(self, tid: str, cls: str, loop: bool, source: dict[str, str], note: str):
        self.tid, self.cls, self.loop, self.source, self.note = (
            tid,
            cls,
            loop,
            source,
            note,
        )
        self.events: list[dict[str, Any]] = []
        self.first_repeat: int | None = None
        self.earliest: int | None = None
        self.period = 1

    def _add(self, ev: dict[str, Any]) -> int:
        self.events.append(ev)
        return len(self.events) - 1

    def user(self, text: str) -> int:
        return self._add({"type": "user", "text": text})

    def msg(self, text: str) -> int:
        return self._add({"type": "message", "text": text})

    def session(self, name: str) -> int:
        return self._add({"type": "session", "session": name})

    def workspace(self, note: str) -> int:
        return self._add({"type": "workspace", "note": note})

    def call(
        self,
        tool: str,
        args: dict[str, Any],
        result: Any = None,
        *,
        error: str | None = None,
        kind: str | None = None,
        thought: str | None = None,
        mutates: bool = False,
    ) -> int:
        ev: dict[str, Any] = {"type": "call", "tool": tool, "args": args}
        if error is not None:
            ev["error"] = error
            ev["error_kind"] = kind or "error"
        else:
            ev["result"] = result
        if thought is not None:
            ev["thought"] = thought
        if mutates:
            ev["mutates"] = True
        return self._add(ev)

    def mark(self, first_repeat: int, earliest: int, period: int = 1) -> None:
        self.first_repeat, self.earliest, self.period = first_repeat, earliest, period

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.tid,
            "class": self.cls,
            "loop": self.loop,
            "source": self.source,
            "note": self.note,
        }
        if self.loop:
            assert self.earliest is not None, self.tid
            assert self.first_repeat is not None, self.tid
            d["first_repeat"] = self.first_repeat
            d["earliest"] = self.earliest
            d["latest"] = self._latest()
        d["events"] = self.events
        return d

    def _latest(self) -> int:
        assert self.earliest is not None
        slack = 2 * self.period + 1
        calls_or_msgs = [
            i
            for i, e in enumerate(self.events)
            if i > self.earliest and e["type"] in ("call", "message")
        ]
        if len(calls_or_msgs) >= slack:
            return calls_or_msgs[slack - 1]
        return len(self.events) - 1


ALL: list[T] = []


def new(tid: str, cls: str, loop: bool, source: dict[str, str], note: str) -> T:
    t = T(tid, cls, loop, source, note)
    ALL.append(t)
    return t


def repeat_block(t: T, block: list[dict[str, Any]], times: int) -> list[list[int]]:
    """Appends `block` (call kwargs) `times` times; returns the indices per occurrence."""
    return [[t.call(**c) for c in block] for _ in range(times)]


def mark_cycle(t: T, occ: list[list[int]]) -> None:
    t.mark(occ[1][0], occ[1][-1], period=len(occ[0]))


# ---------------------------------------------------------------- repeated_call (period 1)

LS = {"tool": "terminal", "args": {"command": "ls"}, "result": "file1.txt\nfile2.txt"}

t = new(
    "oh-sdk-repeat-ls",
    "repeated_call",
    True,
    OH_SDK | {"case": "test_repeating_action_observation_stuck"},
    "Identical ls with identical output, six times in one turn.",
)
t.user("Please run ls")
o = repeat_block(t, [LS], 6)
mark_cycle(t, o)

t = new(
    "oh-v0-ls-empty-across-turn",
    "repeated_call",
    True,
    OH_V0 | {"case": "test_interactive_mode_resets_after_user_message"},
    "ls with empty output four times, a user message, then four more: the loop spans turns.",
)
t.user("List the workspace")
EMPTY_LS = {"tool": "terminal", "args": {"command": "ls"}, "result": ""}
o = repeat_block(t, [EMPTY_LS], 4)
t.user("Hello")
repeat_block(t, [EMPTY_LS], 4)
mark_cycle(t, o)

t = new(
    "gemini-identical-tool-call",
    "repeated_call",
    True,
    GEMINI | {"case": "should detect a loop on the TOOL_CALL_LOOP_THRESHOLD-th identical call"},
    "The same call with the same argument and result, seven times.",
)
t.user("Do the task")
o = repeat_block(t, [{"tool": "testTool", "args": {"param": "value"}, "result": "ok"}], 7)
mark_cycle(t, o)

t = new(
    "opencode-reread-same-file",
    "repeated_call",
    True,
    gh("anomalyco/opencode", "issues", 43800),
    "Productive start, then the same file read over and over with no new output.",
)
t.user("Add input validation to the signup handler")
t.call("glob", {"pattern": "src/**/*.ts"}, "src/app.ts\nsrc/signup.ts\nsrc/validate.ts")
t.call(
    "read",
    {"filePath": "/repo/src/validate.ts"},
    "export function isEmail(s: string) {...}",
)
t.call(
    "edit",
    {
        "filePath": "/repo/src/signup.ts",
        "oldString": "save(body)",
        "newString": "check(body)",
    },
    "Edit applied.",
    mutates=True,
)
SIGNUP = "import { check } from './validate'\nexport async function signup(body) { check(body) }"
o = repeat_block(
    t,
    [{"tool": "read", "args": {"filePath": "/repo/src/signup.ts"}, "result": SIGNUP}],
    7,
)
mark_cycle(t, o)

t = new(
    "opencode-git-status-repeat",
    "repeated_call",
    True,
    gh("anomalyco/opencode", "issues", 43673),
    "After a commit the agent keeps checking git status; nothing changes.",
)
t.user("Commit the change")
t.call("bash", {"command": "git add -A"}, "", mutates=True)
t.call(
    "bash",
    {"command": "git commit -m 'validate signup'"},
    "[main 1a2b3c4] validate signup",
    mutates=True,
)
CLEAN = "On branch main\nnothing to commit, working tree clean"
o = repeat_block(t, [{"tool": "bash", "args": {"command": "git status"}, "result": CLEAN}], 6)
mark_cycle(t, o)

t = new(
    "mimo-successful-bash-census",
    "repeated_call",
    True,
    gh("XiaomiMiMo/MiMo-Code", "issues", 2474),
    "A successful read-only bash census repeated with the same stdout (doom_loop asked once).",
)
t.user("Which file extensions does the repo use?")
CENSUS = "git ls-files | sed 's/.*\\.//' | sort | uniq -c | sort -rn | head -1"
o = repeat_block(t, [{"tool": "bash", "args": {"command": CENSUS}, "result": "2 lock"}], 8)
mark_cycle(t, o)

t = new(
    "opencode-doom-loop-across-turns",
    "repeated_call",
    True,
    gh("anomalyco/opencode", "issues", 50073),
    "Two identical reads per assistant message, across four 'continue' turns: a per-message "
    "counter of three never fires.",
)
t.user("Summarise the config loader")
CFG = {
    "tool": "read",
    "args": {"filePath": "/repo/config/loader.py"},
    "result": "def load(): ...",
}
first = [t.call(**CFG), t.call(**CFG)]
for _ in range(3):
    t.user("continue")
    t.call(**CFG)
    t.call(**CFG)
t.mark(first[1], first[1])

t = new(
    "vercel-key-order-variants",
    "repeated_call",
    True,
    gh("vercel/ai", "pull", 17610) | {"case": "review: JSON.stringify is key-order sensitive"},
    "The same search with its keys in a different order each time; same results.",
)
t.user("Find the pricing page")
RES = "1. https://example.com/pricing"
first_i = t.call("search", {"query": "acme pricing", "limit": 10}, RES)
second_i = t.call("search", {"limit": 10, "query": "acme pricing"}, RES)
for _ in range(3):
    t.call("search", {"query": "acme pricing", "limit": 10}, RES)
    t.call("search", {"limit": 10, "query": "acme pricing"}, RES)
t.mark(second_i, second_i)

t = new(
    "shell-whitespace-quoting-variants",
    "repeated_call",
    True,
    gh("QwenLM/qwen-code", "pull", 5944) | ISSUE12,
    "One grep spelled with different quoting and spacing; identical output.",
)
t.user("Where is parse_config defined?")
HIT = "src/config.py:12:def parse_config(path):"
variants = [
    'grep -rn "def parse_config" src/',
    "grep -rn 'def parse_config' src/",
    'grep  -rn "def parse_config"  src/',
    "grep -rn 'def parse_config' src/ ",
    'grep -rn "def parse_config" src/',
    "grep   -rn 'def parse_config' src/",
    'grep -rn "def parse_config" src/',
]
idx = [t.call("bash", {"command": v}, HIT) for v in variants]
t.mark(idx[1], idx[1])

t = new(
    "commentary-field-varies",
    "repeated_call",
    True,
    ISSUE12 | {"case": "commentary fields (description) left out of the signature"},
    "Claude Code style Bash calls: same command, a new description each time, same output.",
)
t.user("Check whether the auth tests pass")
OUT_AUTH = "Test Files  1 passed (1)\n     Tests  14 passed (14)"
descs = [
    "Run auth tests",
    "Re-run the auth tests",
    "Run the auth tests again to confirm",
    "Verify auth tests pass",
    "Run auth test suite once more",
    "Double-check the auth tests",
]
idx = [
    t.call("Bash", {"command": "npx vitest run auth", "description": d}, OUT_AUTH) for d in descs
]
t.mark(idx[1], idx[1])

t = new(
    "number-form-variants",
    "repeated_call",
    True,
    ISSUE12 | {"case": "canonical number forms"},
    "The same page requested as 2, 2.0 and 2 again; same content.",
)
t.user("Read the second page of the changelog")
PAGE = "## 1.4.0\n- faster startup"
forms: list[Any] = [2, 2.0, 2, 2.0, 2, 2.0]
idx = [
    t.call("fetch_page", {"url": "https://example.com/changelog", "page": p}, PAGE) for p in forms
]
t.mark(idx[1], idx[1])

t = new(
    "identical-empty-lemma-search",
    "repeated_call",
    True,
    gh("jsboige/CoursIA", "pull", 1237),
    "The same lemma search returning nothing, again and again (12 in the report).",
)
t.user("Prove gale_shapley_man_optimal")
t.call("read_goal", {}, "⊢ man_optimal (gale_shapley M W)")
o = repeat_block(
    t,
    [
        {
            "tool": "search_mathlib_lemmas",
            "args": {"query": "gale_shapley_man_optimal"},
            "result": [],
        }
    ],
    8,
)
mark_cycle(t, o)

t = new(
    "memory-empty-asked-again",
    "repeated_call",
    True,
    gh("quintonmiller/tailored-ai", "issues", 528),
    "core_memory says it is empty; the agent asks it again, identically.",
)
t.user("What did I tell you my sister's name was?")
o = repeat_block(
    t,
    [
        {
            "tool": "core_memory_search",
            "args": {"query": "sister name"},
            "result": "(core memory is empty)",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "oh-browse-same-page",
    "repeated_call",
    True,
    gh("OpenHands/OpenHands", "issues", 8269),
    "browse -> browse -> browse on one page whose content does not change.",
)
t.user("Find the release date on the project page")
PAGE_TXT = "Acme Widgets - Home. News: none."
o = repeat_block(
    t,
    [
        {
            "tool": "browser",
            "args": {"action": "goto", "url": "https://acme.test/"},
            "result": PAGE_TXT,
        }
    ],
    7,
)
mark_cycle(t, o)

# ---------------------------------------------------------------- cycle (period 2..4)

t = new(
    "oh-v0-ls-read-pattern",
    "cycle",
    True,
    OH_V0 | {"case": "test_is_stuck_repeating_action_observation_pattern"},
    "ls, read file1 alternating with the same outputs, across a 'Come on' user message.",
)
t.user("Come on")
BLOCK = [
    LS,
    {"tool": "read_file", "args": {"path": "file1.txt"}, "result": "File content"},
]
o = repeat_block(t, BLOCK, 2)
t.user("Come on")
repeat_block(t, BLOCK, 3)
mark_cycle(t, o)

t = new(
    "opencode-period2-lookup-search",
    "cycle",
    True,
    gh("anomalyco/opencode", "pull", 47845),
    "lookup, search, lookup, search ... with unchanged results (period 2).",
)
t.user("Find who owns the billing service")
o = repeat_block(
    t,
    [
        {
            "tool": "lookup",
            "args": {"name": "billing"},
            "result": "service billing: owner unknown",
        },
        {"tool": "search", "args": {"query": "billing owner"}, "result": "no matches"},
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "period3-read-grep-read",
    "cycle",
    True,
    ISSUE12 | {"case": "period-3 loop of successful calls"},
    "read app.py, grep handler, read routes.py, over and over; all succeed, nothing changes.",
)
t.user("Why does /health return 500?")
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"path": "src/app.py"},
            "result": "app = make_app()",
        },
        {
            "tool": "grep",
            "args": {"pattern": "def handler", "path": "src"},
            "result": "src/routes.py:40:def handler(req):",
        },
        {
            "tool": "read_file",
            "args": {"path": "src/routes.py"},
            "result": "def handler(req):\n    return db.ping()",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "period3-write-test-read",
    "cycle",
    True,
    gh("zeroclaw-labs/zeroclaw", "issues", 2152),
    "Writes the same content, runs the same failing test (reported as output), reads the test: "
    "period 3, every call succeeds, nothing changes.",
)
t.user("Make test_one pass")
FIX = "def fix(x):\n    return x + 1\n"
o = repeat_block(
    t,
    [
        {
            "tool": "write_file",
            "args": {"path": "src/fix.py", "content": FIX},
            "result": "wrote 31 bytes",
        },
        {
            "tool": "bash",
            "args": {"command": "pytest -q tests/test_fix.py"},
            "result": "F\nFAILED tests/test_fix.py::test_one - assert 2 == 3\n1 failed in 0.02s",
        },
        {
            "tool": "read_file",
            "args": {"path": "tests/test_fix.py"},
            "result": "def test_one():\n    assert fix(1) == 3",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "qwen-git-inspection-pingpong",
    "cycle",
    True,
    gh("QwenLM/qwen-code", "pull", 5944),
    "git status / git diff alternating on an unchanged tree.",
)
t.user("Prepare the commit")
o = repeat_block(
    t,
    [
        {
            "tool": "run_shell_command",
            "args": {"command": "git status --short"},
            "result": " M src/a.py",
        },
        {
            "tool": "run_shell_command",
            "args": {"command": "git diff"},
            "result": "-x = 1\n+x = 2",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "watchdog-period4-pattern",
    "cycle",
    True,
    WATCHDOG | gh("anomalyco/opencode", "pull", 47845),
    "A four-call plan/read/grep/read block repeated with the same results.",
)
t.user("Refactor the cache layer")
o = repeat_block(
    t,
    [
        {"tool": "todo_read", "args": {}, "result": "1. refactor cache [in progress]"},
        {
            "tool": "read_file",
            "args": {"path": "cache.py"},
            "result": "class Cache: ...",
        },
        {
            "tool": "grep",
            "args": {"pattern": "Cache("},
            "result": "api.py:3\nworker.py:9",
        },
        {"tool": "read_file", "args": {"path": "api.py"}, "result": "cache = Cache()"},
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "cycle-one-per-user-turn",
    "cycle",
    True,
    gh("NousResearch/hermes-agent", "issues", 71566),
    "One read+search occurrence per user turn, four 'keep going' turns: the loop is only "
    "visible across turns.",
)
t.user("Find the flaky test")
occ = []
for k in range(4):
    if k:
        t.user("keep going")
    occ.append(
        [
            t.call("read_file", {"path": "ci.log"}, "test_upload ... FAILED (timeout)"),
            t.call("search", {"query": "test_upload flaky"}, "no results"),
        ]
    )
mark_cycle(t, occ)

t = new(
    "edit-revert-pingpong",
    "cycle",
    True,
    gh("zeroclaw-labs/zeroclaw", "issues", 2152) | {"case": "ping-pong"},
    "Edits a line one way, then back, then again: two signatures alternating, same results.",
)
t.user("Fix the off-by-one")
o = repeat_block(
    t,
    [
        {
            "tool": "edit",
            "args": {"path": "lib.py", "old": "range(n)", "new": "range(n + 1)"},
            "result": "ok",
            "mutates": True,
        },
        {
            "tool": "edit",
            "args": {"path": "lib.py", "old": "range(n + 1)", "new": "range(n)"},
            "result": "ok",
            "mutates": True,
        },
    ],
    5,
)
mark_cycle(t, o)

# ---------------------------------------------------------------- error_loop

t = new(
    "oh-sdk-invalid-command",
    "error_loop",
    True,
    OH_SDK | {"case": "test_repeating_action_error_stuck"},
    "The same invalid command failing the same way.",
)
t.user("Please run the invalid command")
o = repeat_block(
    t,
    [
        {
            "tool": "terminal",
            "args": {"command": "invalid_command"},
            "error": "Command 'invalid_command' not found",
            "kind": "not_found",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "oh-v0-errors-vary-across-turn",
    "error_loop",
    True,
    OH_V0 | {"case": "test_is_stuck_repeating_action_error"},
    "The same invalid command, errors worded differently, a user message in between.",
)
t.user("Hello")
a = t.call(
    "terminal",
    {"command": "invalid_command"},
    error="Command not found",
    kind="not_found",
)
b = t.call(
    "terminal",
    {"command": "invalid_command"},
    error="Command still not found or another error",
    kind="not_found",
)
t.user("Done")
for e in [
    "Different error",
    "Command not found",
    "Command not found",
    "Command not found",
]:
    t.call("terminal", {"command": "invalid_command"}, error=e, kind="not_found")
t.mark(b, b)

SNIPPET = 'edit_file_by_replace(\'book_store.py\', to_replace="""def total(basket):'
t = new(
    "oh-v0-syntax-error-loop",
    "error_loop",
    True,
    OH_V0 | {"case": "test_is_stuck_invalid_syntax_error"},
    "The same cell failing with the same SyntaxError.",
)
t.user("Fix book_store.py")
o = repeat_block(
    t,
    [
        {
            "tool": "ipython",
            "args": {"code": SNIPPET},
            "error": "Cell In[1], line 42\n"
            "SyntaxError: invalid syntax. Perhaps you forgot a comma?",
            "kind": "syntax",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "gemini-readfile-missing-param",
    "error_loop",
    True,
    gh("google-gemini/gemini-cli", "issues", 4936),
    "ReadFile without its required parameter, the same apology each time.",
)
t.user("Read the deployment notes")
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"path": "/home/u/docs/deploy.md"},
            "error": "params must have required property 'absolute_path'",
            "kind": "invalid_args",
            "thought": "I apologize for the repeated errors. I will now use the correct "
            "parameter absolute_path to read the file.",
        }
    ],
    7,
)
mark_cycle(t, o)

t = new(
    "vercel-same-bad-argument",
    "error_loop",
    True,
    gh("vercel/ai", "pull", 17610) | {"case": "review: bad argument, error, same retry"},
    "Bad argument, error, same retry, same error (compareResults never sees tool errors).",
)
t.user("What's the weather in Paris?")
o = repeat_block(
    t,
    [
        {
            "tool": "get_weather",
            "args": {"city": "Paris, FR", "units": "kelvinn"},
            "error": "Invalid enum value. Expected 'metric' | 'imperial', received 'kelvinn'",
            "kind": "invalid_args",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "npm-test-rerun-unchanged",
    "error_loop",
    True,
    ISSUE12 | {"case": "two failing npm test runs"},
    "npm test fails; the agent reruns it without touching anything, four more times.",
)
t.user("Get the test suite green")
t.call("read", {"filePath": "/repo/package.json"}, '{"scripts": {"test": "jest"}}')
NPM_ERR = (
    "exit 1\nFAIL src/auth.test.ts\n  ● login > rejects bad password\nTests: 1 failed, 20 passed"
)
o = repeat_block(
    t,
    [
        {
            "tool": "bash",
            "args": {"command": "npm test"},
            "error": NPM_ERR,
            "kind": "exit_code",
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "sandbox-blocked-read-loop",
    "error_loop",
    True,
    gh("openclaw/openclaw", "issues", 80640),
    "read on a path outside the sandbox, retried identically (13,508 times in the report).",
)
t.user("Load the skill")
o = repeat_block(
    t,
    [
        {
            "tool": "read",
            "args": {"path": "/opt/skills/deploy/SKILL.md"},
            "error": "EACCES: path is outside the sandbox",
            "kind": "permission",
        }
    ],
    8,
)
mark_cycle(t, o)

t = new(
    "timeout-retried-forever",
    "error_loop",
    True,
    gh("MCERQUA/OpenVoiceUI", "issues", 96) | {"case": "retry budget"},
    "A status endpoint that times out every time, retried without end. Two retries of a "
    "transient error are legitimate, so the earliest flag is after the third timeout.",
)
t.user("Is the staging API up?")
o = repeat_block(
    t,
    [
        {
            "tool": "http_get",
            "args": {"url": "https://staging.internal/api/health"},
            "error": "timed out after 30s",
            "kind": "timeout",
        }
    ],
    9,
)
t.mark(o[1][0], o[2][0])

t = new(
    "rate-limit-hammered",
    "error_loop",
    True,
    gh("Lexus2016/hermes-agent-evolution", "issues", 1186),
    "A rate-limited call retried back to back with no backoff, 429 every time (earliest flag "
    "after the third, as for timeouts).",
)
t.user("Translate the 40 strings")
o = repeat_block(
    t,
    [
        {
            "tool": "translate",
            "args": {"text": "Save changes?", "target": "de"},
            "error": "429 Too Many Requests: rate limit exceeded",
            "kind": "rate_limit",
        }
    ],
    9,
)
t.mark(o[1][0], o[2][0])

# ---------------------------------------------------------------- no_progress (reworded)

t = new(
    "gemini-reworded-web-search",
    "no_progress",
    True,
    gh("google-gemini/gemini-cli", "issues", 28037),
    "The search is reformulated again and again; every form finds nothing.",
)
t.user("Search the web for the file format of 한국투자증권 etf_code.mst.")
qs = [
    "한국투자증권 etf_code.mst file format",
    "etf_code.mst file format specification",
    "한국투자증권 etf_code.mst 파일 형식",
    "KIS etf_code.mst format columns",
    "etf_code.mst master file layout Korea Investment",
    "한국투자증권 종목 마스터 etf_code.mst 구조",
    "etf_code.mst field layout",
]
idx = [t.call("google_web_search", {"query": q}, "No results found.") for q in qs]
t.mark(idx[1], idx[1])

t = new(
    "superplane-reworded-pattern-search",
    "no_progress",
    True,
    gh("superplanehq/superplane", "issues", 4103),
    "'Searching for patterns' with near-identical queries, each with zero matches.",
)
t.user("Build a deploy pipeline with a pre-deploy incident check")
t.call("list_integrations", {}, "github, pagerduty, slack")
qs = [
    "incident deployment gate pagerduty",
    "deployment gate pagerduty incident",
    "pagerduty incident gate for deployment",
    "incident gate deploy pagerduty",
    "pre-deploy pagerduty incident check",
    "pagerduty active incident deployment gate",
]
idx = [t.call("search_patterns", {"query": q}, {"patterns": []}) for q in qs]
t.mark(idx[1], idx[1])

t = new(
    "vercel-paraphrased-same-error",
    "no_progress",
    True,
    gh("vercel/ai", "issues", 17606) | {"case": "comment: paraphrased same-tool retries"},
    "The model re-calls create_ticket with paraphrased text; the same stable error each time.",
)
t.user("File a ticket about the login redirect loop")
bodies = [
    ("Login redirect loop", "Users get redirected back to /login after signing in."),
    (
        "Redirect loop on login",
        "After signing in, users are sent back to the login page.",
    ),
    ("Login page redirects in a loop", "Signing in sends the user to /login again."),
    (
        "Users stuck in login redirect",
        "Signed-in users are redirected to /login repeatedly.",
    ),
    ("Fix login redirect loop", "Signing in returns users to the login page again."),
    (
        "Login redirect loop after sign-in",
        "Users land on /login again after signing in.",
    ),
]
idx = [
    t.call(
        "create_ticket",
        {"project": "web", "title": ti, "body": bo},
        error="project 'web' is archived; tickets cannot be created",
        kind="invalid_args",
    )
    for ti, bo in bodies
]
t.mark(idx[1], idx[1])

t = new(
    "reworded-grep-empty",
    "no_progress",
    True,
    gh("openJiuwen-ai/jiuwenswarm", "issues", 3557) | {"case": "retrying a grep that is empty"},
    "Reworded regexes for one symbol; each finds nothing.",
)
t.user("Where is the retry policy configured?")
pats = [
    "retry_policy",
    "retryPolicy",
    "retry-policy",
    "RetryPolicy\\(",
    "retry_policy\\s*=",
    "set_retry_policy",
]
idx = [t.call("grep", {"pattern": p, "path": "."}, "") for p in pats]
t.mark(idx[1], idx[1])

t = new(
    "reworded-memory-search",
    "no_progress",
    True,
    gh("quintonmiller/tailored-ai", "issues", 528) | {"case": "reworded"},
    "The same question to memory, reworded; memory stays empty.",
)
t.user("When is my dentist appointment?")
qs = [
    "dentist appointment",
    "appointment with the dentist",
    "when is the user's dentist appointment",
    "dental appointment date",
    "dentist booking",
]
idx = [t.call("core_memory_search", {"query": q}, "(core memory is empty)") for q in qs]
t.mark(idx[1], idx[1])

t = new(
    "openclaw-varying-limit-same-error",
    "no_progress",
    True,
    gh("openclaw/openclaw", "issues", 80640) | {"case": "varying limit values"},
    "The same out-of-sandbox file with a different limit each time; the same error.",
)
t.user("Load the deploy skill")
idx = [
    t.call(
        "read",
        {"path": "/opt/skills/deploy/SKILL.md", "limit": lim},
        error="EACCES: path is outside the sandbox",
        kind="permission",
    )
    for lim in [200, 100, 50, 400, 20, 1000]
]
t.mark(idx[1], idx[1])

# ---------------------------------------------------------------- known_failure (sessions)

t = new(
    "later-session-npm-test",
    "known_failure",
    True,
    ISSUE12 | {"case": "a failure repeated in a later session"},
    "npm test fails at the end of session 1; session 2 starts on the unchanged tree and runs "
    "it again.",
)
t.user("Run the tests")
t.call("bash", {"command": "npm test"}, error=NPM_ERR, kind="exit_code")
t.msg("The auth test fails; I'll stop here for today.")
t.session("s2")
t.user("Continue with the failing tests")
rep = t.call("bash", {"command": "npm test"}, error=NPM_ERR, kind="exit_code")
t.call("read", {"filePath": "/repo/src/auth.test.ts"}, "it('rejects bad password', ...)")
t.mark(rep, rep - 1)

t = new(
    "later-session-docker-port",
    "known_failure",
    True,
    gh("openJiuwen-ai/jiuwenswarm", "pull", 396),
    "docker compose fails on a taken port; the next session tries the same thing.",
)
t.user("Start the dev database")
PORT = "Error: Bind for 0.0.0.0:5432 failed: port is already allocated"
t.call("bash", {"command": "docker compose up -d db"}, error=PORT, kind="exit_code")
t.session("s2")
t.user("Bring the stack up")
rep = t.call("bash", {"command": "docker compose up -d db"}, error=PORT, kind="exit_code")
t.call("bash", {"command": "docker ps"}, "CONTAINER ID   IMAGE   PORTS\n9f1   pg:16   5432")
t.mark(rep, rep - 1)

t = new(
    "later-session-cargo-build",
    "known_failure",
    True,
    gh("IBuySpy-Shared/basecoat", "issues", 135),
    "cargo build fails on an unresolved import; a later session repeats the same build.",
)
t.user("Build the crate")
E0432 = "error[E0432]: unresolved import `crate::net::Client`\nerror: could not compile `app`"
t.call("read_file", {"path": "src/lib.rs"}, "pub mod net;\nuse crate::net::Client;")
t.call("bash", {"command": "cargo build"}, error=E0432, kind="exit_code")
t.session("s2")
t.user("Let's get the build working")
rep = t.call("bash", {"command": "cargo build"}, error=E0432, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "three-sessions-same-failure",
    "known_failure",
    True,
    gh("aden-hive/hive", "issues", 7109),
    "The same failing migration in three sessions on an unchanged tree.",
)
MIG = "alembic.util.exc.CommandError: Can't locate revision identified by 'a1b2c3'"
t.user("Apply the migrations")
t.call("bash", {"command": "alembic upgrade head"}, error=MIG, kind="exit_code")
t.session("s2")
t.user("Migrate the database")
rep = t.call("bash", {"command": "alembic upgrade head"}, error=MIG, kind="exit_code")
t.session("s3")
t.user("Please run the migrations")
t.call("bash", {"command": "alembic upgrade head"}, error=MIG, kind="exit_code")
t.mark(rep, rep - 1)

# ---------------------------------------------------------------- monologue

t = new(
    "oh-sdk-monologue",
    "monologue",
    True,
    OH_SDK | {"case": "test_agent_monologue_stuck"},
    "Agent messages with no tool call and no user input in between.",
)
t.user("Hello")
idx = [t.msg(f"I'm thinking... {i}") for i in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "oh-v0-monologue",
    "monologue",
    True,
    OH_V0 | {"case": "test_is_stuck_monologue"},
    "After one command, the same sentence over and over.",
)
t.user("Hi there!")
t.msg("Hi there!")
t.user("How are you?")
t.call("terminal", {"command": "echo 42"}, "42", thought="I'm not stuck, he's stuck")
idx = [t.msg("I'm doing well, thanks for asking.") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "gemini-chanting-end-turn",
    "monologue",
    True,
    GEMINI | {"case": "should detect the specific user-provided loop example"},
    "The model chants that it will end the turn.",
)
t.user("Summarise the file")
CHANT = (
    "I will not output any text.\n  I will just end the turn.\n  I am done.\n"
    "  I will not do anything else.\n  I will wait for the user's next command.\n"
)
idx = [t.msg(CHANT) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "gemini-mark-complete-repeated",
    "monologue",
    True,
    GEMINI | {"case": "should detect the second specific user-provided loop example"},
    "The same completion sentence after the work is done.",
)
t.user("Add logs to the handler and verify the tests")
t.call(
    "edit",
    {"path": "h.py", "old": "def h():", "new": "def h():\n    log()"},
    "ok",
    mutates=True,
)
t.call("bash", {"command": "pytest -q"}, "12 passed")
DONE = (
    "I have added all the requested logs and verified the test file. "
    "I will now mark the task as complete.\n  "
)
idx = [t.msg(DONE) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "gemini-alternating-phrases",
    "monologue",
    True,
    GEMINI | {"case": "should detect a loop of alternating short phrases"},
    "Two short messages alternating, period 2.",
)
t.user("Go")
idx = []
for _ in range(5):
    idx.append(t.msg("Thinking..."))
    idx.append(t.msg("Done."))
t.mark(idx[2], idx[3], period=2)

# ================================================================ legitimate trajectories

t = new(
    "poll-training-job",
    "polling",
    False,
    gh("OpenHands/software-agent-sdk", "issues", 762),
    "Polls a training job every few minutes; the status changes each time.",
)
t.user("Start training and wait for it to finish (poll every 5 minutes)")
t.call("start_job", {"name": "train-42"}, {"id": "train-42", "status": "queued"})
for st in ["running 10%", "running 35%", "running 60%", "running 85%", "succeeded"]:
    t.call("check_job", {"id": "train-42"}, {"status": st})
t.msg("Training finished successfully.")

t = new(
    "pi-go-poll-bash-output",
    "polling",
    False,
    gh("dimetron/pi-go", "pull", 102),
    "Polls a background command's output with the same handle; output keeps growing.",
)
t.user("Run make test-coverage and report the total")
t.call("bash", {"command": "make test-coverage", "background": True}, {"bash_id": "b1"})
lines: list[str] = []
for k in range(12):
    lines.append(f"ok   pkg/mod{k:02d}   {0.1 * (k + 1):.1f}s  coverage: {60 + k}%")
    t.call("bash_output", {"bash_id": "b1"}, "\n".join(lines))
t.call(
    "bash_output",
    {"bash_id": "b1"},
    "\n".join([*lines, "total coverage: 71.3%", "[done]"]),
)
t.msg("Total coverage is 71.3%.")

t = new(
    "oh-wait-long-process",
    "polling",
    False,
    gh("OpenHands/OpenHands", "issues", 5355),
    "Sleeps and checks pods while a deployment rolls out; pod states change.",
)
t.user("Deploy and wait until all pods are ready")
t.call(
    "terminal",
    {"command": "kubectl apply -f deploy.yaml"},
    "deployment.apps/web configured",
)
for ready in ["0/3", "1/3", "1/3 (1 ContainerCreating)", "2/3", "3/3"]:
    t.call("terminal", {"command": "sleep 60 && kubectl get deploy web"}, f"web   {ready}")
t.msg("All three pods are ready.")

t = new(
    "poll-ci-checks",
    "polling",
    False,
    gh("deftai/directive", "issues", 1039),
    "Polls PR checks until they finish.",
)
t.user("Push and wait for CI")
t.call(
    "bash",
    {"command": "git push origin fix-auth"},
    "To origin\n * [new branch] fix-auth",
)
for s in ["pending 0/8", "pending 3/8", "pending 6/8", "pending 7/8", "pass 8/8"]:
    t.call("bash", {"command": "gh pr checks 123"}, s)
t.msg("CI passed.")

t = new(
    "tail-growing-log",
    "polling",
    False,
    gh("zeroclaw-labs/zeroclaw", "issues", 2152) | {"case": "legitimate polling"},
    "tail of a build log that grows between calls.",
)
t.user("Watch the build log and tell me when the image is pushed")
log: list[str] = []
steps = [
    "Step 1/6 FROM python:3.12",
    "Step 2/6 COPY . /app",
    "Step 3/6 RUN pip install -r requirements.txt",
    "Step 4/6 RUN pytest",
    'Step 5/6 CMD ["gunicorn"]',
    "Step 6/6 pushing registry/app:1.4",
    "pushed registry/app:1.4",
]
for s in steps:
    log.append(s)
    t.call("bash", {"command": "tail -n 20 /tmp/build.log"}, "\n".join(log))

t = new(
    "oh-empty-command-wait",
    "polling",
    False,
    gh("OpenHands/OpenHands", "pull", 10750),
    "Empty commands to see more output of a running install; new output each time.",
)
t.user("Install the dependencies")
t.call("terminal", {"command": "pip install -r requirements.txt"}, "Collecting numpy")
for k in range(8):
    t.call(
        "terminal",
        {"command": ""},
        f"Collecting pkg{k}\n  Downloading pkg{k}-1.0.tar.gz",
    )
t.call("terminal", {"command": ""}, "Successfully installed numpy pkg0 pkg1 pkg2")

t = new(
    "read-twelve-files",
    "distinct_reads",
    False,
    ISSUE12 | {"case": "reading 12 different files"},
    "Reads twelve different modules to understand a codebase.",
)
t.user("Explain how the plugin modules fit together")
for k in range(12):
    t.call(
        "read_file",
        {"path": f"src/plugins/mod_{k:02d}.py"},
        f"from .base import Plugin\n\nclass Mod{k:02d}(Plugin):\n    name = 'mod{k:02d}'\n"
        f"    def run(self, x):\n        return x * {k + 2}\n",
    )
t.msg("Each module subclasses Plugin and scales its input by a different factor.")

t = new(
    "gemini-file-move-imports",
    "distinct_reads",
    False,
    gh("google-gemini/gemini-cli", "issues", 5873),
    "Search references, git mv, update imports, for five components: repetitive but finite.",
)
t.user("Move the components into src/ui and fix the imports")
for comp in ["Button", "Modal", "Tooltip", "Tabs", "Avatar"]:
    t.call(
        "search_file_content",
        {"pattern": f"components/{comp}"},
        f"src/pages/Home.tsx:3:import {comp} from '../components/{comp}'",
    )
    t.call(
        "run_shell_command",
        {"command": f"git mv src/components/{comp}.tsx src/ui/{comp}.tsx"},
        "",
        mutates=True,
    )
    t.call(
        "replace",
        {
            "file_path": "src/pages/Home.tsx",
            "old_string": f"../components/{comp}",
            "new_string": f"../ui/{comp}",
        },
        "Successfully modified file",
        mutates=True,
    )

t = new(
    "similar-named-similar-files",
    "distinct_reads",
    False,
    ISSUE12 | {"case": "mod_00.py vs mod_01.py counted as a repeat"},
    "Twelve generated files with near-identical names and contents: distinct reads.",
)
t.user("Check that every generated handler registers itself")
for k in range(12):
    t.call(
        "read_file",
        {"path": f"gen/handler_{k:02d}.py"},
        f"# generated\nfrom registry import register\n\n@register('handler_{k:02d}')\n"
        f"def handler_{k:02d}(event):\n    return dispatch(event)\n",
    )
t.msg("All twelve handlers call register with their own name.")

t = new(
    "oh-sdk-different-actions",
    "distinct_reads",
    False,
    OH_SDK | {"case": "test_not_stuck_with_different_actions"},
    "ls, pwd, whoami, date: different commands.",
)
t.user("Please run different commands")
for cmd in ["ls", "pwd", "whoami", "date"]:
    t.call("terminal", {"command": cmd}, f"output from {cmd}")

t = new(
    "gemini-different-args",
    "distinct_reads",
    False,
    GEMINI | {"case": "should not detect a loop for different tool calls"},
    "One tool with different arguments and another tool; no call repeats.",
)
t.user("Collect the values")
for k in range(8):
    t.call("testTool", {"param": f"value{k}"}, f"result {k}")
    t.call("anotherTool", {"param": f"value{k}"}, f"other {k}")

t = new(
    "retry-after-timeout-succeeds",
    "retry_transient",
    False,
    ISSUE12 | {"case": "a retry after a timeout that then succeeds"},
    "A fetch times out once; the identical retry succeeds.",
)
t.user("Download the dataset index")
t.call(
    "http_get",
    {"url": "https://data.example.org/index.json"},
    error="timed out after 30s",
    kind="timeout",
)
t.call("http_get", {"url": "https://data.example.org/index.json"}, '{"files": 42}')
t.call("write_file", {"path": "index.json", "content": '{"files": 42}'}, "ok", mutates=True)

t = new(
    "two-timeouts-then-success",
    "retry_transient",
    False,
    gh("amd/gaia", "issues", 2160),
    "Two timeouts, then the third identical attempt works (a retry budget of two).",
)
t.user("Fetch the release notes")
for _ in range(2):
    t.call(
        "http_get",
        {"url": "https://api.example.com/releases/latest"},
        error="ReadTimeout: timed out",
        kind="timeout",
    )
t.call("http_get", {"url": "https://api.example.com/releases/latest"}, '{"tag": "v2.3.0"}')
t.msg("The latest release is v2.3.0.")

t = new(
    "rate-limit-backoff-success",
    "retry_transient",
    False,
    gh("Hereon-InstituteMS/openPASO", "pull", 59),
    "A 429, a backoff, and the same call succeeds; the run continues with other calls.",
)
t.user("Translate the UI strings")
t.call(
    "translate",
    {"text": "Save changes?", "target": "de"},
    error="429 Too Many Requests: rate limit exceeded",
    kind="rate_limit",
)
t.call("sleep", {"seconds": 5}, "")
t.call("translate", {"text": "Save changes?", "target": "de"}, "Änderungen speichern?")
t.call("translate", {"text": "Discard", "target": "de"}, "Verwerfen")
t.call("translate", {"text": "Open file", "target": "de"}, "Datei öffnen")

t = new(
    "server-error-then-success",
    "retry_transient",
    False,
    ISSUE12 | {"case": "transient errors (5xx) get a retry budget"},
    "A 503 from the package index, one retry, then normal work.",
)
t.user("Add requests to the project")
t.call(
    "bash",
    {"command": "uv add requests"},
    error="error: 503 Service Unavailable (pypi)",
    kind="server_error",
)
t.call("bash", {"command": "uv add requests"}, "Resolved 5 packages\n + requests==2.32.3")
t.call("read_file", {"path": "pyproject.toml"}, 'dependencies = ["requests>=2.32.3"]')

t = new(
    "flaky-network-several-urls",
    "retry_transient",
    False,
    gh("simplex-chat/simplexmq", "pull", 1227),
    "On a flaky network each of four downloads fails once and succeeds on retry.",
)
t.user("Mirror the four schema files")
for name in ["user", "order", "invoice", "refund"]:
    url = f"https://schemas.example.com/{name}.json"
    t.call(
        "http_get",
        {"url": url},
        error="ConnectionResetError: connection reset by peer",
        kind="network",
    )
    t.call("http_get", {"url": url}, f'{{"title": "{name}"}}')

t = new(
    "flaky-test-rerun-on-request",
    "retry_flaky",
    False,
    gh("roackb2/heddle", "issues", 7),
    "A flaky test fails; the user says it is flaky and asks for a rerun, which passes.",
)
t.user("Run the upload tests")
t.call(
    "bash",
    {"command": "pytest -q tests/test_upload.py"},
    error="exit 1\nFAILED tests/test_upload.py::test_resume - ConnectionResetError",
    kind="exit_code",
)
t.msg("test_resume failed with a connection reset.")
t.user("That one is flaky on this network, run it again")
t.call("bash", {"command": "pytest -q tests/test_upload.py"}, "6 passed in 3.4s")

t = new(
    "edit-test-progress",
    "edit_test_cycle",
    False,
    ISSUE12 | {"case": "edit-test-edit-test cycles that make progress"},
    "pytest after each edit; fewer failures each time until green.",
)
t.user("Fix the failing tests in tests/test_cart.py")
fails = [
    "3 failed, 9 passed: test_total, test_discount, test_tax",
    "2 failed, 10 passed: test_discount, test_tax",
    "1 failed, 11 passed: test_tax",
]
edits = [
    ("total = 0", "total = sum(i.price for i in items)"),
    ("discount = 0", "discount = rate * total"),
    ("tax = 0.2", "tax = TAX_RATE[region]"),
]
for f, (old, new_) in zip(fails, edits, strict=True):
    t.call(
        "bash",
        {"command": "pytest -q tests/test_cart.py"},
        error=f"exit 1\n{f}",
        kind="exit_code",
    )
    t.call("edit", {"path": "cart.py", "old": old, "new": new_}, "ok", mutates=True)
t.call("bash", {"command": "pytest -q tests/test_cart.py"}, "12 passed")

t = new(
    "tdd-red-green",
    "edit_test_cycle",
    False,
    gh("NousResearch/hermes-agent", "pull", 60087) | {"case": "legitimate repeats"},
    "Red-green TDD for four features: the same test command fails, passes, fails, passes.",
)
t.user("Implement slugify with tests, one behaviour at a time")
feats = ["lowercase", "spaces", "punctuation", "unicode"]
for k, feat in enumerate(feats):
    t.call(
        "write_file",
        {"path": f"tests/test_slug_{feat}.py", "content": f"def test_{feat}(): ..."},
        "ok",
        mutates=True,
    )
    t.call(
        "bash",
        {"command": "pytest -q"},
        error=f"exit 1\n1 failed, {k} passed: test_{feat}",
        kind="exit_code",
    )
    t.call(
        "edit",
        {"path": "slug.py", "old": f"# TODO {feat}", "new": f"handle_{feat}(s)"},
        "ok",
        mutates=True,
    )
    t.call("bash", {"command": "pytest -q"}, f"{k + 1} passed")

t = new(
    "git-status-between-edits",
    "edit_test_cycle",
    False,
    ISSUE12 | {"case": "repeated git status between edits"},
    "git status after each edit, add and commit; its output changes every time.",
)
t.user("Rename the config option and commit")
t.call("bash", {"command": "git status --short"}, "")
t.call("edit", {"path": "a.py", "old": "cfg.old", "new": "cfg.new"}, "ok", mutates=True)
t.call("bash", {"command": "git status --short"}, " M a.py")
t.call("edit", {"path": "b.py", "old": "cfg.old", "new": "cfg.new"}, "ok", mutates=True)
t.call("bash", {"command": "git status --short"}, " M a.py\n M b.py")
t.call("edit", {"path": "docs/config.md", "old": "old", "new": "new"}, "ok", mutates=True)
t.call("bash", {"command": "git status --short"}, " M a.py\n M b.py\n M docs/config.md")
t.call("bash", {"command": "git add -A"}, "", mutates=True)
t.call("bash", {"command": "git status --short"}, "M  a.py\nM  b.py\nM  docs/config.md")
t.call(
    "bash",
    {"command": "git commit -m 'rename option'"},
    "[main 77ab] rename option",
    mutates=True,
)
t.call("bash", {"command": "git status --short"}, "")

t = new(
    "fixed-arguments-after-error",
    "edit_test_cycle",
    False,
    ISSUE12 | {"case": "a changed signature (fixed arguments) runs"},
    "A wrong path fails; the corrected path works.",
)
t.user("Show me main.py")
t.call(
    "read_file",
    {"path": "src/main.py"},
    error="ENOENT: no such file or directory",
    kind="not_found",
)
t.call("glob", {"pattern": "**/main.py"}, "src/app/main.py")
t.call("read_file", {"path": "src/app/main.py"}, "def main():\n    serve()")

t = new(
    "build-fails-edit-passes",
    "edit_test_cycle",
    False,
    gh("SchneiderDaniel/cheasee-pi", "pull", 644),
    "make fails, the agent edits the Makefile, make passes.",
)
t.user("Fix the build")
t.call(
    "bash",
    {"command": "make"},
    error="make: *** No rule to make target 'gen.c'. Stop.",
    kind="exit_code",
)
t.call("read_file", {"path": "Makefile"}, "all: gen.c\n\tcc -o app main.c gen.c")
t.call(
    "edit",
    {"path": "Makefile", "old": "all: gen.c", "new": "all: gen\ngen:\n\t./gen.sh"},
    "ok",
    mutates=True,
)
t.call("bash", {"command": "make"}, "cc -o app main.c gen.c")

t = new(
    "edit-same-error-then-pass",
    "edit_test_cycle",
    False,
    ISSUE12 | {"case": "one failing test run blocked every later test run after an edit"},
    "Two different edits leave the same failure; the third fixes it. Each run follows an edit.",
)
t.user("Make test_parse pass")
PERR = "exit 1\nFAILED test_parse.py::test_dates - ValueError: bad date '2024-13-01'"
t.call("bash", {"command": "pytest -q test_parse.py"}, error=PERR, kind="exit_code")
t.call(
    "edit",
    {"path": "parse.py", "old": "%Y-%m-%d", "new": "%Y-%d-%m"},
    "ok",
    mutates=True,
)
t.call("bash", {"command": "pytest -q test_parse.py"}, error=PERR, kind="exit_code")
t.call(
    "edit",
    {"path": "test_parse.py", "old": "2024-13-01", "new": "2024-12-01"},
    "ok",
    mutates=True,
)
t.call(
    "bash",
    {"command": "pytest -q test_parse.py"},
    error=PERR.replace("13", "12"),
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "parse.py", "old": "%Y-%d-%m", "new": "%Y-%m-%d"},
    "ok",
    mutates=True,
)
t.call("bash", {"command": "pytest -q test_parse.py"}, "4 passed")

t = new(
    "out-of-band-edit-rerun",
    "edit_test_cycle",
    False,
    ISSUE12 | {"case": "workspace changed: it runs"},
    "The tests fail; the user fixes a fixture in their editor and asks for a rerun.",
)
t.user("Run the integration tests")
t.call(
    "bash",
    {"command": "pytest -q tests/integration"},
    error="exit 1\nE   fixture 'db_url' not found",
    kind="exit_code",
)
t.msg("The db_url fixture is missing; could you add it, or shall I?")
t.workspace("user added the db_url fixture to tests/conftest.py in their editor")
t.user("I added the fixture, run them again")
t.call("bash", {"command": "pytest -q tests/integration"}, "17 passed in 4.2s")

t = new(
    "lint-fix-converges",
    "edit_test_cycle",
    False,
    gh("NorthlandPositronics/Cogtrix", "pull", 196),
    "ruff check, ruff --fix, check, edit, check: results change each time.",
)
t.user("Make the linter happy")
t.call(
    "bash",
    {"command": "ruff check ."},
    error="exit 1\nFound 5 errors.",
    kind="exit_code",
)
t.call(
    "bash",
    {"command": "ruff check --fix ."},
    error="exit 1\nFound 5 errors (4 fixed, 1 remaining).",
    kind="exit_code",
    mutates=True,
)
t.call(
    "bash",
    {"command": "ruff check ."},
    error="exit 1\napp.py:3:1: F401 `os` imported but unused\nFound 1 error.",
    kind="exit_code",
)
t.call("edit", {"path": "app.py", "old": "import os\n", "new": ""}, "ok", mutates=True)
t.call("bash", {"command": "ruff check ."}, "All checks passed!")

t = new(
    "reread-after-edit",
    "edit_test_cycle",
    False,
    gh("dimetron/pi-go", "pull", 102) | {"case": "re-reading a changed file"},
    "Reads a file, edits it, reads it again: the content differs each time.",
)
t.user("Tidy up utils.py")
body = "def a(): pass\ndef b(): pass\ndef c(): pass"
t.call("read_file", {"path": "utils.py"}, body)
for fn in ["a", "b", "c"]:
    new_body = body.replace(f"def {fn}(): pass", f"def {fn}() -> None:\n    return None")
    t.call(
        "edit",
        {
            "path": "utils.py",
            "old": f"def {fn}(): pass",
            "new": f"def {fn}() -> None:\n    return None",
        },
        "ok",
        mutates=True,
    )
    body = new_body
    t.call("read_file", {"path": "utils.py"}, body)

t = new(
    "ls-after-creating-files",
    "edit_test_cycle",
    False,
    OH_SDK | {"case": "test_history_too_short (extended: ls output changes)"},
    "ls between file creations; the listing grows.",
)
t.user("Scaffold the package")
names: list[str] = []
t.call("terminal", {"command": "ls"}, "")
for n in ["__init__.py", "core.py", "cli.py", "py.typed"]:
    t.call("terminal", {"command": f"touch pkg/{n}"}, "", mutates=True)
    names.append(n)
    t.call("terminal", {"command": "ls"}, "\n".join(sorted(names)))

t = new(
    "later-session-after-fix",
    "session_memory",
    False,
    ISSUE12 | {"case": "after the workspace changed it runs"},
    "npm test fails in session 1; the user edits the code between sessions; session 2 runs "
    "it and it passes.",
)
t.user("Run the tests")
t.call("bash", {"command": "npm test"}, error=NPM_ERR, kind="exit_code")
t.session("s2")
t.workspace("user fixed src/auth.ts between sessions")
t.user("I fixed the auth check, please run the tests")
t.call("bash", {"command": "npm test"}, "Tests: 21 passed")

t = new(
    "later-session-different-call",
    "session_memory",
    False,
    ISSUE12 | {"case": "a remembered failure never blocks a different call"},
    "npm test failed in session 1; session 2 runs other npm scripts on the same tree.",
)
t.user("Run the tests")
t.call("bash", {"command": "npm test"}, error=NPM_ERR, kind="exit_code")
t.session("s2")
t.user("Build and lint it")
t.call("bash", {"command": "npm run build"}, "built in 3.1s")
t.call("bash", {"command": "npm run lint"}, "0 problems")
t.call("bash", {"command": "npm test -- --testPathPattern utils"}, "Tests: 6 passed")

t = new(
    "later-session-after-timeout",
    "session_memory",
    False,
    ISSUE12 | {"case": "transient errors are not remembered as hard failures"},
    "A timeout at the end of session 1 is not a reason to refuse the call in session 2.",
)
t.user("Sync the issue tracker")
t.call(
    "http_get",
    {"url": "https://tracker.example.com/api/issues"},
    error="timed out after 30s",
    kind="timeout",
)
t.session("s2")
t.user("Try the sync again")
t.call("http_get", {"url": "https://tracker.example.com/api/issues"}, '[{"id": 1}]')

t = new(
    "later-session-agent-fixed-it",
    "session_memory",
    False,
    gh("IBuySpy-Shared/basecoat", "issues", 135) | {"case": "fix applied"},
    "Session 1: the build fails, the agent edits the import; session 2 builds again.",
)
t.user("Build the crate")
t.call("bash", {"command": "cargo build"}, error=E0432, kind="exit_code")
t.call(
    "edit",
    {
        "path": "src/lib.rs",
        "old": "use crate::net::Client;",
        "new": "use crate::http::Client;",
    },
    "ok",
    mutates=True,
)
t.session("s2")
t.user("Build it again")
t.call("bash", {"command": "cargo build"}, "Finished `dev` profile in 4.1s")

t = new(
    "chat-no-tools",
    "conversation",
    False,
    OH_V0 | {"case": "test_is_stuck_monologue (user messages interrupt)"},
    "A plain Q&A: user and agent alternate, no tool calls.",
)
for q, a_ in [
    ("What is a mutex?", "A lock that lets one thread at a time into a section."),
    ("And a semaphore?", "A counter that lets up to N holders in."),
    ("Which should I use for a pool?", "A semaphore sized to the pool."),
    ("Thanks!", "You're welcome."),
]:
    t.user(q)
    t.msg(a_)

t = new(
    "status-messages-between-calls",
    "conversation",
    False,
    OH_V0 | {"case": "an observation between messages breaks a monologue"},
    "Short progress messages between tool calls.",
)
t.user("Upgrade the dependencies")
for k, (m, c, r) in enumerate(
    [
        ("Reading the lock file.", "cat uv.lock | head", "version = 1"),
        ("Upgrading.", "uv lock --upgrade", "Updated 12 packages"),
        ("Running the tests.", "pytest -q", "88 passed"),
        ("Checking the diff.", "git diff --stat", " uv.lock | 120 +++---"),
    ]
):
    t.msg(m)
    t.call("bash", {"command": c}, r, mutates=k == 1)
t.msg("Dependencies upgraded; the tests pass.")

t = new(
    "gemini-code-block-content",
    "conversation",
    False,
    GEMINI | {"case": "should not detect a loop when repetitive content is inside a code block"},
    "One answer with a repetitive code block and a list sharing a long prefix.",
)
t.user("Give me the resource list and a sample config")
listing = "\n".join(
    f"- projects/my-google-cloud-project-12345/locations/us-central1/services/{k}"
    for k in range(15)
)
t.call("list_services", {"project": "my-google-cloud-project-12345"}, listing)
t.msg(
    "Here are the services:\n"
    + listing
    + "\n```yaml\n"
    + "\n".join(f"- name: svc{k}\n  replicas: 1" for k in range(10))
    + "\n```"
)

t = new(
    "same-closing-line-each-turn",
    "conversation",
    False,
    gh("google-gemini/gemini-cli", "issues", 8234),
    "The agent ends four different tasks with the same polite line.",
)
for task, (cmd, out) in [
    ("Bump the version", ("bump2version patch", "1.4.1")),
    ("Tag the release", ("git tag v1.4.1", "")),
    ("Push the tag", ("git push --tags", "* [new tag] v1.4.1")),
    ("Publish", ("uv publish", "Uploaded crs-1.4.1.whl")),
]:
    t.user(task)
    t.call("bash", {"command": cmd}, out, mutates=True)
    t.msg("Done. Let me know if you need anything else.")

t = new(
    "research-reworded-new-results",
    "research",
    False,
    gh("vercel/ai", "issues", 17606) | {"case": "reworded calls whose results differ"},
    "Reworded searches that each return something new.",
)
t.user("How do asyncio timeouts cancel tasks?")
for q, r in [
    ("python asyncio timeout", "docs.python.org: asyncio.timeout() (3.11+)"),
    ("asyncio wait_for cancel behaviour", "wait_for cancels the inner task on timeout"),
    (
        "asyncio.timeout context manager 3.11",
        "TimeoutError raised after CancelledError",
    ),
    (
        "asyncio timeout shield",
        "asyncio.shield protects the inner task from cancellation",
    ),
]:
    t.call("web_search", {"query": q}, r)
t.msg("asyncio.timeout cancels the task and converts the CancelledError to TimeoutError.")

t = new(
    "reworded-once-then-found",
    "research",
    False,
    ISSUE12 | {"case": "a reworded call alone is never blocked"},
    "A search finds nothing; one rewording finds the symbol.",
)
t.user("Where do we set the HTTP timeout?")
t.call("grep", {"pattern": "http_timeout", "path": "."}, "")
t.call("grep", {"pattern": "HTTP_TIMEOUT", "path": "."}, "settings.py:8:HTTP_TIMEOUT = 30")
t.call("read_file", {"path": "settings.py"}, "HTTP_TIMEOUT = 30")

t = new(
    "data-blocks-analysis",
    "research",
    False,
    gh("google-gemini/gemini-cli", "issues", 7950),
    "Loads a large CSV block by block: one tool, a new offset each time.",
)
t.user("Summarise sales.csv")
for k in range(10):
    t.call(
        "read_file",
        {"path": "data/sales.csv", "offset": k * 1000, "limit": 1000},
        f"rows {k * 1000}-{k * 1000 + 999}: total {1000 + 37 * k}",
    )
t.msg("Total sales over 10,000 rows: 11,665.")


# ---------------------------------------------------------------- two 200-step sessions


def productive_coding(tid: str, seed: int) -> None:
    rng = random.Random(seed)
    t = new(
        tid,
        "long_productive",
        False,
        ISSUE12 | {"case": "two 200-step productive sessions"},
        "A long coding session: reads, greps, edits and test runs whose results change.",
    )
    t.user("Port the storage layer to the new API")
    passed = 40
    calls = 0
    files = [f"src/storage/part_{k:02d}.py" for k in range(60)]
    status: list[str] = []
    while calls < 200:
        k = calls // 4
        f = files[k % len(files)]
        r = rng.random()
        if calls % 4 == 0:
            t.call(
                "read_file",
                {"path": f},
                f"# {f}\nclass Part{k:02d}:\n    def get(self): ...",
            )
        elif calls % 4 == 1:
            t.call(
                "grep",
                {"pattern": f"Part{k:02d}", "path": "src"},
                f"src/api.py:{10 + k}:    Part{k:02d}()",
            )
        elif calls % 4 == 2:
            t.call(
                "edit",
                {"path": f, "old": "def get(self)", "new": f"def get(self, key_{k})"},
                "ok",
                mutates=True,
            )
            status.append(f" M {f}")
        else:
            passed += 1
            if r < 0.3:
                t.call("bash", {"command": "git status --short"}, "\n".join(status))
            else:
                t.call(
                    "bash",
                    {"command": "pytest -q tests/storage"},
                    f"{passed} passed, {max(0, 60 - passed)} failed",
                )
        calls += 1


def productive_analysis(tid: str, seed: int) -> None:
    rng = random.Random(seed)
    t = new(
        tid,
        "long_productive",
        False,
        gh("google-gemini/gemini-cli", "issues", 8232),
        "A long data-analysis session: SQL queries, chunked reads and plots, all different.",
    )
    t.user("Investigate the churn spike in March")
    calls = 0
    while calls < 200:
        k = calls
        kind = k % 5
        if kind == 0:
            t.call(
                "sql",
                {"query": f"SELECT count(*) FROM events WHERE day = {k // 5 + 1}"},
                [[rng.randint(900, 1500)]],
            )
        elif kind == 1:
            t.call(
                "read_file",
                {"path": "data/events.parquet", "offset": k * 500, "limit": 500},
                f"rows {k * 500}..{k * 500 + 499}: churned={rng.randint(0, 40)}",
            )
        elif kind == 2:
            t.call(
                "python",
                {"code": f"df[df.day == {k // 5 + 1}].groupby('plan').size()"},
                f"basic {rng.randint(100, 300)}\npro {rng.randint(10, 90)}",
            )
        elif kind == 3:
            t.call(
                "plot",
                {"series": "churn", "day": k // 5 + 1},
                f"saved plots/churn_{k}.png",
            )
        else:
            t.call(
                "sql",
                {"query": f"SELECT plan, avg(seats) FROM accounts WHERE cohort = {k}"},
                [
                    ["basic", round(rng.uniform(1, 3), 2)],
                    ["pro", round(rng.uniform(3, 9), 2)],
                ],
            )
        calls += 1
        if k % 50 == 49:
            t.msg(f"Progress: looked at days 1-{k // 5 + 1}.")


productive_coding("long-coding-session-200", 7)
productive_analysis("long-analysis-session-200", 11)


# ================================================================ fresh set
# Written at 11:35 UTC after branch `guard` had merged (and seen) the sets above, from
# sources the sets above do not use; kept out of git until the guard's final measurement,
# so it shows whether the guard's semantics generalise. Split "fresh".

FRESH_START = len(ALL)

t = new(
    "fresh-gemini-readfile-despite-user",
    "repeated_call",
    True,
    gh("google-gemini/gemini-cli", "issues", 8259),
    "The same ReadFile over and over, before and after the user asks it to stop.",
)
t.user("Add a phone field to the office details form")
OFFICE = '<form [formGroup]="form">\n  <input formControlName="name">\n</form>'
RF = {
    "tool": "read_file",
    "args": {"absolute_path": "C:\\app\\WebUI\\office-details.component.html"},
    "result": OFFICE,
}
o = repeat_block(t, [RF], 3)
t.user("try again, do not ReadFile office-details.component.html again and again")
repeat_block(t, [RF], 3)
mark_cycle(t, o)

t = new(
    "fresh-claude-code-wasted-read",
    "repeated_call",
    True,
    gh("anthropics/claude-code", "issues", 64882),
    "A file is read, then re-read while the harness answers 'unchanged' each time.",
)
t.user("Implement the retry option in client.ts")
t.call("Read", {"file_path": "/repo/src/client.ts"}, "export class Client { ... }")
WASTED = (
    "Wasted call — file unchanged since your last Read. Refer to that earlier tool_result instead."
)
o = repeat_block(
    t,
    [{"tool": "Read", "args": {"file_path": "/repo/src/client.ts"}, "result": WASTED}],
    6,
)
mark_cycle(t, o)

t = new(
    "fresh-pi-ls-inspection",
    "repeated_call",
    True,
    gh("earendil-works/pi", "issues", 6158),
    "ls of one directory six times, then ls -la five times; identical output in each group.",
)
t.user("Put custom.css into the Jupyter custom directory")
o = repeat_block(
    t,
    [
        {
            "tool": "bash",
            "args": {"command": "ls /home/dev/.jupyter/custom/"},
            "result": "custom.js",
        }
    ],
    6,
)
repeat_block(
    t,
    [
        {
            "tool": "bash",
            "args": {"command": "ls -la /home/dev/.jupyter/custom/"},
            "result": "-rw-r--r-- 1 dev dev 120 custom.js",
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "fresh-prime-diagnostic-across-turns",
    "repeated_call",
    True,
    gh("PrimeIntellect-ai/prime-agent", "issues", 1326),
    "The same diagnostic command after each 'let me try a different approach', across turns.",
)
t.user("Why does the schema validation fail?")
DIAG = {"command": 'python -c "import app.schema as s; print(s.validate(s.SAMPLE))"'}
thoughts = [
    "Let me try a different approach.",
    "Let me look at this from another angle.",
    "I'll try a different approach.",
    "Let me re-check the validation output.",
    "Trying another way.",
    "Let me try a different approach.",
]
idx = []
for k, th in enumerate(thoughts):
    if k in (2, 4):
        t.user("continue")
    idx.append(t.call("bash", DIAG, "True", thought=th))
t.mark(idx[1], idx[1])

t = new(
    "fresh-gemini-replace-non-unique",
    "error_loop",
    True,
    gh("google-gemini/gemini-cli", "issues", 2137),
    "replace with an old_string that occurs three times, failing the same way again and again.",
)
t.user("Rename the timeout constant")
o = repeat_block(
    t,
    [
        {
            "tool": "replace",
            "args": {
                "file_path": "/repo/cfg.py",
                "old_string": "TIMEOUT = 30",
                "new_string": "TIMEOUT_S = 30",
            },
            "error": "Failed to edit, expected 1 occurrence(s) but found 3.",
            "kind": "invalid_args",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "fresh-gemini-read-then-replace-cycle",
    "cycle",
    True,
    gh("google-gemini/gemini-cli", "issues", 3926),
    "Re-read the file, the same failing replace, re-read, the same replace ...",
)
t.user("Remove the duplicate getStatusColor function")
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"absolute_path": "/repo/src/pages/AIDocuments.tsx"},
            "result": "function getStatusColor() {}\n...\nfunction getStatusColor() {}",
        },
        {
            "tool": "replace",
            "args": {
                "file_path": "/repo/src/pages/AIDocuments.tsx",
                "old_string": "function getStatusColor() {}",
                "new_string": "",
            },
            "error": "Failed to edit, expected 1 occurrence(s) but found 2.",
            "kind": "invalid_args",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "fresh-aider-search-block-mismatch",
    "error_loop",
    True,
    gh("Aider-AI/aider", "issues", 424),
    "The same SEARCH/REPLACE block that does not match the file, resent.",
)
t.user("Make the rewards slide horizontally")
o = repeat_block(
    t,
    [
        {
            "tool": "apply_edit",
            "args": {
                "path": "client/src/pages/Rewards.js",
                "search": "<Carousel>\n  {rewards}\n</Carousel>",
                "replace": '<div className="slider">{rewards}</div>',
            },
            "error": "Rewards.js does not contain the *exact chunk* of SEARCH lines you specified.",
            "kind": "invalid_args",
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "fresh-claudette-noop-edit",
    "repeated_call",
    True,
    gh("mrdushidush/claudette", "pull", 77),
    "A byte-identical edit that reports ok and writes nothing, resent between failing tests.",
)
t.user("Make the regex tests pass")
EDIT = {
    "tool": "apply_diff",
    "args": {"path": "lexer.py", "before": 'r"^\\\\s*"', "after": 'r"^\\\\s*"'},
    "result": {"ok": True},
}
TEST = {
    "tool": "bash",
    "args": {"command": "pytest -q tests/test_lexer.py"},
    "result": "FAILED tests/test_lexer.py::test_ws - AssertionError\n1 failed",
}
o = repeat_block(t, [EDIT, TEST], 5)
mark_cycle(t, o)

t = new(
    "fresh-qwen-read-ranges-cycle",
    "cycle",
    True,
    gh("QwenLM/qwen-code", "issues", 2201),
    "Reads the first 100, then the first 150 lines of a file, over and over.",
)
t.user("What does the end of deploy.sh do?")
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"path": "deploy.sh", "offset": 0, "limit": 100},
            "result": "#!/bin/sh\n# lines 1-100",
        },
        {
            "tool": "read_file",
            "args": {"path": "deploy.sh", "offset": 0, "limit": 150},
            "result": "#!/bin/sh\n# lines 1-150",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "fresh-cline-recreate-files",
    "cycle",
    True,
    gh("cline/cline", "issues", 3493),
    "Lists, reads the plan, rewrites the same notes file with the same content, again and "
    "again (period 3; the write touches the file each time).",
)
t.user("Start on the project plan")
NOTES = "# Notes\n- set up project\n"
o = repeat_block(
    t,
    [
        {"tool": "list_files", "args": {"path": "."}, "result": "plan.md\nnotes.md"},
        {
            "tool": "read_file",
            "args": {"path": "plan.md"},
            "result": "1. set up project",
        },
        {
            "tool": "write_to_file",
            "args": {"path": "notes.md", "content": NOTES},
            "result": "File written",
            "mutates": True,
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "fresh-jiuwen-grep-path-forms",
    "no_progress",
    True,
    gh("openJiuwen-ai/agent-core", "issues", 766),
    "A zero-result grep repeated with the path spelled differently each time.",
)
t.user("Find where validate_schema is called")
idx = [
    t.call("grep", {"pattern": "validate_schema(", "path": p}, "No matches found")
    for p in ["src", "src/", "./src", "./src/", "src/.", "src"]
]
t.mark(idx[1], idx[1])

t = new(
    "fresh-browser-scroll-stagnant",
    "no_progress",
    True,
    gh("browser-use/browser-use", "pull", 4033),
    "Scrolls by different amounts; the page stays identical.",
)
t.user("Find the pricing table on the page")
PAGE_S = "Acme — Features. [Sign up] (end of page)"
t.call("browser_navigate", {"url": "https://acme.test/features"}, PAGE_S)
idx = [
    t.call("browser_scroll", {"direction": "down", "amount": a}, PAGE_S)
    for a in [500, 800, 1000, 1200, 600, 2000]
]
t.mark(idx[1], idx[1])

t = new(
    "fresh-agent-zero-same-message",
    "monologue",
    True,
    gh("agent0ai/agent-zero", "issues", 1056),
    "The agent sends the same message again and again.",
)
t.user("Set up the cron job")
idx = [t.msg("I'll now create the cron entry for the backup script.") for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "fresh-agentlab-dialogue-loop",
    "monologue",
    True,
    gh("SamuelSchmidgall/AgentLaboratory", "issues", 82),
    "Two agent lines alternating without going any further (period 2).",
)
t.user("Plan the experiment")
idx = []
for _ in range(5):
    idx.append(t.msg("Let's design the experiment around the baseline first."))
    idx.append(t.msg("Agreed, we should design the experiment around the baseline first."))
t.mark(idx[2], idx[3], period=2)

t = new(
    "fresh-later-session-make-target",
    "known_failure",
    True,
    gh("openJiuwen-ai/jiuwenswarm", "issues", 3557),
    "A make target that does not exist fails in session 1 and is tried again in session 2.",
)
t.user("Lint the project")
NOLINT = "make: *** No rule to make target 'lint'.  Stop."
t.call("bash", {"command": "make lint"}, error=NOLINT, kind="exit_code")
t.msg("There is no lint target.")
t.session("s2")
t.user("Run the linters before we commit")
rep = t.call("bash", {"command": "make lint"}, error=NOLINT, kind="exit_code")
t.call("read_file", {"path": "Makefile"}, "test:\n\tpytest")
t.mark(rep, rep - 1)

t = new(
    "fresh-later-session-missing-module",
    "known_failure",
    True,
    gh("Lexus2016/hermes-agent-evolution", "issues", 2360),
    "pnpm build fails on a missing workspace package; the next session builds again unchanged.",
)
t.user("Build the web app")
MOD = "Error: Cannot find module '@acme/ui' imported from apps/web/src/main.ts"
t.call("bash", {"command": "pnpm --filter web build"}, error=MOD, kind="exit_code")
t.session("s2")
t.user("Deploy the web app")
rep = t.call("bash", {"command": "pnpm --filter web build"}, error=MOD, kind="exit_code")
t.mark(rep, rep - 1)

# ---- fresh legitimate

t = new(
    "fresh-sleep-and-check",
    "polling",
    False,
    gh("open-octo/octo-agent", "pull", 795),
    "sleep 30 (identical, empty) then a status check whose output grows, until done.",
)
t.user("Run the migration in the background and tell me when it is done")
t.call("bash", {"command": "./migrate.sh &", "background": True}, {"pid": 4242})
for k in range(6):
    t.call("sleep", {"seconds": 30}, "")
    t.call(
        "process_output",
        {"pid": 4242},
        "\n".join(f"migrated table {j}" for j in range(k + 1)),
    )
t.call("process_output", {"pid": 4242}, "migration finished: 6 tables")

t = new(
    "fresh-dashboard-refresh",
    "polling",
    False,
    gh("browser-use/browser-use", "pull", 4033) | {"case": "waits excluded"},
    "Re-reads a job dashboard until the job leaves the queue.",
)
t.user("Wait for the export job and download it")
for st in [
    "queued (position 4)",
    "queued (position 2)",
    "running 20%",
    "running 70%",
    "done: export.csv ready",
]:
    t.call("browser_get_text", {"url": "https://app.test/jobs/77"}, st)
t.call("browser_click", {"selector": "#download"}, "download started")

t = new(
    "fresh-batched-parallel-reads",
    "distinct_reads",
    False,
    gh("daymanondev/pi-auto-pilot", "issues", 46),
    "Three batches of three reads of different files.",
)
t.user("Review the auth module")
for k, name in enumerate(
    [
        "login",
        "logout",
        "session",
        "token",
        "refresh",
        "scopes",
        "mfa",
        "audit",
        "errors",
    ]
):
    t.call(
        "read",
        {"path": f"src/auth/{name}.ts"},
        f"export function {name}() {{ /* {k} */ }}",
    )

t = new(
    "fresh-empty-last-pages",
    "distinct_reads",
    False,
    gh("microsoft/CEDAR.Core.Collector", "pull", 23),
    "Different endpoints each end with an empty last page: the same response to different "
    "requests is not a loop.",
)
t.user("Export teams, users and groups")
for ep in ["teams", "users", "groups", "projects"]:
    t.call(
        "http_get",
        {"url": f"https://api.test/{ep}?page=1"},
        f'[{{"id": 1, "kind": "{ep}"}}]',
    )
    t.call("http_get", {"url": f"https://api.test/{ep}?page=2"}, "[]")

t = new(
    "fresh-paginate-issues",
    "distinct_reads",
    False,
    gh("shaun0927/openchrome", "pull", 49),
    "Eight pages of one listing, each different.",
)
t.user("Collect all open bug reports")
for p in range(1, 9):
    t.call(
        "list_issues",
        {"repo": "acme/app", "label": "bug", "page": p},
        [f"#{100 * p + j}" for j in range(3)],
    )

t = new(
    "fresh-transient-across-turns",
    "retry_transient",
    False,
    gh("amd/gaia", "issues", 2160) | {"case": "recovery probe after a transient error"},
    "The mail API answers 503 in two turns; in the third turn the same call works.",
)
for k in range(3):
    t.user("Check my inbox" if k == 0 else "try again")
    if k < 2:
        t.call(
            "email_list",
            {"folder": "inbox", "limit": 20},
            error="503 Service Unavailable",
            kind="server_error",
        )
        t.msg("The mail service is unavailable right now.")
    else:
        t.call(
            "email_list",
            {"folder": "inbox", "limit": 20},
            [{"from": "ana", "subject": "hi"}],
        )
        t.msg("One new message, from Ana.")

t = new(
    "fresh-cargo-check-converges",
    "edit_test_cycle",
    False,
    gh("roackb2/heddle", "issues", 7) | {"case": "rerun verification after a code change"},
    "cargo check after each edit; the error changes until it compiles.",
)
t.user("Fix the build errors")
errs = [
    "error[E0308]: mismatched types: expected `u32`, found `i64`",
    "error[E0599]: no method named `as_str` found for `u32`",
    "error[E0425]: cannot find value `limit` in this scope",
]
fixes = [
    ("let n: i64", "let n: u32"),
    ("n.as_str()", "n.to_string()"),
    ("limit", "self.limit"),
]
for e, (old, new_) in zip(errs, fixes, strict=True):
    t.call("bash", {"command": "cargo check"}, error=f"exit 101\n{e}", kind="exit_code")
    t.call("edit", {"path": "src/main.rs", "old": old, "new": new_}, "ok", mutates=True)
t.call("bash", {"command": "cargo check"}, "Finished `dev` profile in 2.3s")

t = new(
    "fresh-later-session-passed-before",
    "session_memory",
    False,
    gh("IBuySpy-Shared/basecoat", "issues", 135) | {"case": "confidence self-corrects on success"},
    "Session 1: a test fails, the agent fixes it and it passes; session 2 runs it again.",
)
t.user("Fix test_totals")
t.call(
    "bash",
    {"command": "pytest -q tests/test_totals.py"},
    error="exit 1\nFAILED test_totals - assert 9 == 10",
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "totals.py", "old": "range(n)", "new": "range(n + 1)"},
    "ok",
    mutates=True,
)
t.call("bash", {"command": "pytest -q tests/test_totals.py"}, "3 passed")
t.session("s2")
t.user("Run the totals tests once more before the release")
t.call("bash", {"command": "pytest -q tests/test_totals.py"}, "3 passed")

t = new(
    "fresh-task-progress-updates",
    "conversation",
    False,
    gh("cline/cline", "issues", 7012) | {"case": "task_progress updates that change"},
    "Progress messages and todo updates between steps; each one different.",
)
t.user("Find out why the logs are duplicated")
steps3 = [
    (
        "Reading the logger setup.",
        "read_file",
        {"path": "src/log.py"},
        "logger = logging.getLogger()",
    ),
    (
        "Checking where it is imported.",
        "grep",
        {"pattern": "from src.log import"},
        "src/main.py:2\nsrc/worker.py:3",
    ),
    (
        "Looking at main.py.",
        "read_file",
        {"path": "src/main.py"},
        "setup_logging()\nsetup_logging()",
    ),
]
for k, (m, tool, args, res) in enumerate(steps3):
    t.msg(m)
    t.call(tool, args, res)
    t.call("update_todo", {"items": [f"step {j + 1} done" for j in range(k + 1)]}, "ok")
t.msg("setup_logging() is called twice in main.py, which adds two handlers.")

t = new(
    "fresh-new-term-after-empty",
    "research",
    False,
    gh("NousResearch/hermes-agent", "issues", 41490) | {"case": "the expected behaviour"},
    "A search finds nothing; the agent changes the term, then reads the file it found.",
)
t.user("How are CLI flags parsed?")
t.call("grep", {"pattern": "parse_args", "path": "src"}, "")
t.call("grep", {"pattern": "argparse", "path": "src"}, "src/cli.py:1:import argparse")
t.call(
    "read_file",
    {"path": "src/cli.py"},
    "import argparse\nparser = argparse.ArgumentParser()",
)
t.msg("Flags are parsed with argparse in src/cli.py.")

t = new(
    "fresh-reread-after-user-edit",
    "edit_test_cycle",
    False,
    gh("anthropics/claude-code", "issues", 53578) | {"case": "re-read after the file changed"},
    "The user edits a file in their editor; the agent re-reads it and sees the change.",
)
t.user("Look at config.yaml")
t.call("Read", {"file_path": "/repo/config.yaml"}, "port: 8080")
t.msg("The port is 8080.")
t.workspace("user changed the port in their editor")
t.user("I changed it, check again")
t.call("Read", {"file_path": "/repo/config.yaml"}, "port: 9090")

t = new(
    "fresh-crew-one-call-per-task",
    "long_productive",
    False,
    gh("crewAIInc/crewAI", "issues", 2881) | {"case": "one tool call per task"},
    "A crew runs ten tasks, each calling the search tool once with its own topic.",
)
topics = [
    "solar",
    "wind",
    "hydro",
    "geothermal",
    "tidal",
    "biomass",
    "nuclear",
    "hydrogen",
    "storage",
    "grid",
]
for tp in topics:
    t.user(f"Plan an article on {tp} energy")
    t.call("search", {"query": f"{tp} energy trends 2026"}, f"3 sources on {tp}")
    t.msg(f"Outline for the {tp} article is ready.")


t = new(
    "fresh-langchain-same-input",
    "repeated_call",
    True,
    gh("langchain-ai/langchain", "issues", 30608),
    "AgentExecutor calls one tool with exactly the same input again and again.",
)
t.user("When is the next train to Lyon?")
o = repeat_block(
    t,
    [
        {
            "tool": "train_times",
            "args": {"from": "Paris", "to": "Lyon"},
            "result": "next departure 14:04 (TGV 6611)",
        }
    ],
    7,
)
mark_cycle(t, o)

t = new(
    "fresh-crewai-tool-timeout-forever",
    "error_loop",
    True,
    gh("crewAIInc/crewAI", "issues", 737),
    "The same API call keeps timing out and keeps being retried (earliest after the third).",
)
t.user("Fetch the customer fields from the CRM")
o = repeat_block(
    t,
    [
        {
            "tool": "make_api_call",
            "args": {"endpoint": "/v2/customers/fields", "method": "GET"},
            "error": "Tool execution timed out after 60s",
            "kind": "timeout",
        }
    ],
    8,
)
t.mark(o[1][0], o[2][0])

t = new(
    "fresh-path-separator-variants",
    "repeated_call",
    True,
    gh("github/app", "issues", 581),
    "The same file read with backslashes, then forward slashes, alternating; same content.",
)
t.user("Summarise the settings module")
SET = "DEBUG = False\nALLOWED_HOSTS = ['*']"
paths = ["C:\\repo\\app\\settings.py", "C:/repo/app/settings.py"] * 3
idx = [t.call("read_file", {"path": p}, SET) for p in paths]
t.mark(idx[1], idx[1])

t = new(
    "fresh-hermes-blocked-then-reworded",
    "no_progress",
    True,
    gh("NousResearch/hermes-agent", "issues", 41490),
    "The same empty grep four times, then reworded greps that are just as empty.",
)
t.user("Where is the feature flag read?")
idx = [t.call("grep", {"pattern": "FEATURE_X", "path": "."}, "") for _ in range(4)]
for p in ["feature_x", "FeatureX", "feature-x"]:
    t.call("grep", {"pattern": p, "path": "."}, "")
t.mark(idx[1], idx[1])

t = new(
    "fresh-gemini-degenerate-text",
    "monologue",
    True,
    gh("google-gemini/gemini-cli", "issues", 5813),
    "After creating a file the model answers each step with the same degenerate text.",
)
t.user("Create the three component files")
t.call(
    "write_file",
    {"file_path": "/repo/src/A.tsx", "content": "export const A = () => null"},
    "ok",
    mutates=True,
)
idx = [t.msg("nynynynynynynynynynynynynynynynynynynynynynynyny") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "fresh-later-session-same-test-failure",
    "known_failure",
    True,
    gh("openJiuwen-ai/jiuwenswarm", "pull", 396)
    | {"case": "re-running a test that fails the same way"},
    "pytest fails in session 1; session 2 on the untouched tree runs it first thing.",
)
t.user("Check the payment tests")
PAY = "exit 1\nFAILED tests/test_pay.py::test_refund - KeyError: 'currency'"
t.call("bash", {"command": "pytest -q tests/test_pay.py"}, error=PAY, kind="exit_code")
t.call("read_file", {"path": "tests/test_pay.py"}, "def test_refund(): ...")
t.session("s2")
t.user("Let's continue on the payment tests")
rep = t.call("bash", {"command": "pytest -q tests/test_pay.py"}, error=PAY, kind="exit_code")
t.call(
    "read_file",
    {"path": "pay/refund.py"},
    "def refund(order): return order['currency']",
)
t.mark(rep, rep - 1)

t = new(
    "fresh-health-check-after-each-step",
    "edit_test_cycle",
    False,
    gh("roackb2/heddle", "issues", 7) | {"case": "the same verification command after each change"},
    "A deployment in four different steps, the same health check after each (always ok).",
)
t.user("Roll out the new version step by step, checking health after each")
for step in [
    "kubectl set image deploy/api api=api:1.5 --record",
    "kubectl rollout status deploy/api",
    "kubectl scale deploy/api --replicas=6",
    "kubectl annotate deploy/api release=1.5",
]:
    t.call("bash", {"command": step}, f"{step.split()[1]} done")
    t.call("bash", {"command": "curl -fsS https://api.test/health"}, '{"status": "ok"}')

t = new(
    "fresh-nonconsecutive-reread",
    "long_productive",
    False,
    gh("sashiko-dev/sashiko", "pull", 492)
    | {"case": "test_non_consecutive_duplicate_tool_call_runs"},
    "A file read early is read again thirty distinct calls later, to check one detail.",
)
t.user("Review the whole request pipeline")
CONF = "TIMEOUT = 30\nRETRIES = 3"
t.call("read_file", {"path": "pipeline/config.py"}, CONF)
for k in range(30):
    t.call("read_file", {"path": f"pipeline/stage_{k:02d}.py"}, f"def stage_{k}(req): ...")
t.call("read_file", {"path": "pipeline/config.py"}, CONF)
t.msg("Every stage honours TIMEOUT; RETRIES is only used by stage 7.")

t = new(
    "fresh-same-edit-many-files",
    "distinct_reads",
    False,
    gh("google-gemini/gemini-cli", "issues", 8234) | {"case": "multiple similar edits"},
    "One rename applied to twelve files: the same old/new strings, a different path each time.",
)
t.user("Rename fetchUser to loadUser everywhere")
for k in range(12):
    t.call(
        "replace",
        {
            "file_path": f"/repo/src/views/view{k:02d}.tsx",
            "old_string": "fetchUser(",
            "new_string": "loadUser(",
        },
        "Successfully modified file",
        mutates=True,
    )
t.call("bash", {"command": "npx tsc --noEmit"}, "")

t = new(
    "fresh-price-recheck",
    "polling",
    False,
    gh("crewAIInc/crewAI", "issues", 518),
    "The same quote asked for a few times while the market moves; the answer changes.",
)
t.user("Tell me when AAPL crosses 200")
for price in ["198.40", "199.10", "199.85", "200.20"]:
    t.call("get_quote", {"ticker": "AAPL"}, {"price": price})
t.msg("AAPL is at 200.20, above 200.")


# ================================================================ fresh2 set
# Written at 14:33 UTC from sources neither set above uses (Roo Code's ToolRepetitionDetector
# spec, goose's RepetitionInspector test and issues, LangChain's ToolCallLimitMiddleware tests,
# LangGraph, Codex CLI, Aider, Cline, AutoGPT, ... reports), committed before crs was run on
# them. Split "fresh2".

FRESH2_START = len(ALL)

ROO = {
    "repo": "RooCodeInc/Roo-Code",
    "path": "src/core/tools/__tests__/ToolRepetitionDetector.spec.ts",
}
GOOSE_T = {"repo": "block/goose", "path": "crates/goose/tests/repetition_inspector_tests.rs"}
LC_LIMIT = {
    "repo": "langchain-ai/langchain",
    "path": "libs/langchain_v1/tests/unit_tests/agents/middleware/implementations/"
    "test_tool_call_limit.py",
}

# ---- fresh2 loops

t = new(
    "f2-roo-empty-params",
    "repeated_call",
    True,
    ROO | {"case": "edge cases: should handle empty tool call"},
    "A tool without parameters called again and again with the same answer.",
)
t.user("Which files are open?")
o = repeat_block(t, [{"tool": "list_open_tabs", "args": {}, "result": "src/app.ts\nREADME.md"}], 5)
mark_cycle(t, o)

t = new(
    "f2-roo-param-order",
    "repeated_call",
    True,
    ROO | {"case": "should treat tools with same parameters in different order as identical"},
    "One search with its parameters in a different order each time; the same result.",
)
t.user("Find the TODOs in the parser")
HITS = "src/parser/lex.ts:14: // TODO handle CRLF"
idx = []
for order in [
    ("path", "regex", "file_pattern"),
    ("file_pattern", "path", "regex"),
    ("regex", "file_pattern", "path"),
    ("path", "file_pattern", "regex"),
]:
    vals = {"path": "src/parser", "regex": "TODO", "file_pattern": "*.ts"}
    idx.append(t.call("search_files", {k: vals[k] for k in order}, HITS))
t.mark(idx[1], idx[1])

t = new(
    "f2-goose-fetch-user",
    "repeated_call",
    True,
    GOOSE_T
    | {"case": "test_repetition_inspector_denies_after_exceeding_and_resets_on_param_change"},
    "fetch_user with the same id, the same record, over and over.",
)
t.user("Show me user 123's plan")
o = repeat_block(
    t, [{"tool": "fetch_user", "args": {"id": 123}, "result": {"id": 123, "plan": "pro"}}], 5
)
mark_cycle(t, o)

t = new(
    "f2-goose-mvn-test-batch",
    "repeated_call",
    True,
    gh("aaif-goose/goose", "issues", 9136),
    "One response asks for `mvn test` many times; every run prints the same failure.",
)
t.user("I fixed it, run the tests to confirm")
MVN = "Tests run: 42, Failures: 1, Errors: 0\n[ERROR] OrderServiceTest.refund:88 expected 10 got 0"
o = repeat_block(t, [{"tool": "shell", "args": {"command": "mvn test"}, "result": MVN}], 6)
mark_cycle(t, o)

t = new(
    "f2-codex-git-status",
    "repeated_call",
    True,
    gh("openai/codex", "issues", 7049),
    "git status -sb after a push that changed nothing, then again and again, same output.",
)
t.user("Push the branch and check CI")
ST = "## feat/shadcn-migration...origin/feat/shadcn-migration"
CD = "cd /Users/dev/Projects/app && "
t.call("shell", {"command": CD + "git status -sb"}, ST)
t.call("shell", {"command": CD + "git push origin feat/shadcn-migration"}, "Everything up-to-date")
idx = [t.call("shell", {"command": CD + "git status -sb"}, ST) for _ in range(5)]
t.mark(idx[0], idx[0])

t = new(
    "f2-codex-cd-true",
    "repeated_call",
    True,
    gh("openai/codex", "issues", 6970) | {"case": "in another session"},
    "`cd frontend && true` with no output, six times after an empty git status.",
)
t.user("Wrap up the frontend changes")
FE = "cd /home/dev/suite/frontend && "
t.call("shell", {"command": FE + "git status --short"}, "")
o = repeat_block(t, [{"tool": "shell", "args": {"command": FE + "true"}, "result": ""}], 6)
mark_cycle(t, o)

t = new(
    "f2-codex-echo-true",
    "no_progress",
    True,
    gh("openai/codex", "issues", 6970),
    "After the work is done: echo a new 'done' line, run `true`, echo another, `true` again...",
)
t.user("Finish the task")
t.call("shell", {"command": "git status -sb"}, "## main")
pairs = []
for line in ["All set.", "Done again.", "Final done", "Really done.", "Complete."]:
    a = t.call("shell", {"command": f"echo '{line}'"}, line)
    b = t.call("shell", {"command": "true"}, "")
    pairs.append([a, b])
t.mark(pairs[1][0], pairs[1][1], period=2)

t = new(
    "f2-autogpt-same-google",
    "repeated_call",
    True,
    gh("Significant-Gravitas/AutoGPT", "issues", 1994),
    "The same google query although it already got results, again and again.",
)
t.user("Which country minimises tax for a small IT company?")
Q = {"input": "personal income tax rates in countries with low business tax rates"}
RES = [{"title": "Tax rates by country 2023", "url": "https://taxes.test/rates"}]
o = repeat_block(t, [{"tool": "google", "args": Q, "result": RES}], 5)
mark_cycle(t, o)

t = new(
    "f2-langgraph-save-memory",
    "repeated_call",
    True,
    gh("langchain-ai/langgraph", "issues", 4231),
    "After retrieving the answer the ReAct agent saves the same memory until the recursion limit.",
)
t.user("What is our refund window?")
t.call("retrieve", {"query": "refund window"}, "Refunds are accepted within 30 days.")
MEM = {"memory": "User asked about the refund window (30 days)."}
o = repeat_block(t, [{"tool": "save_memory", "args": MEM, "result": "Memory saved."}], 7)
mark_cycle(t, o)

t = new(
    "f2-autonomys-current-time",
    "repeated_call",
    True,
    gh("autonomys/autonomys-agents", "issues", 226),
    "get_current_time called until the recursion limit; only the clock in the answer moves.",
)
t.user("Post the daily summary")
idx = [
    t.call("get_current_time", {}, {"time": f"2025-02-10T14:03:{s:02d}.{100 + 37 * s}Z"})
    for s in range(1, 9)
]
t.mark(idx[1], idx[1])

t = new(
    "f2-superplane-empty-resources",
    "no_progress",
    True,
    gh("superplanehq/superplane", "issues", 4123),
    "list_integration_resources, identical or slightly varied, always an empty list.",
)
t.user("Wire the GitHub trigger to the deploy stage")
t.call("list_components", {"canvas": "main"}, ["github-trigger", "deploy"])
idx = [
    t.call("list_integration_resources", a, [])
    for a in [
        {"integration": "github", "type": "repository"},
        {"integration": "github", "type": "repository"},
        {"integration": "github", "type": "repo"},
        {"integration": "github", "type": "repositories"},
        {"integration": "github", "type": "repository"},
        {"integration": "github"},
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f2-goose-404-varied-ids",
    "no_progress",
    True,
    gh("aaif-goose/goose", "pull", 8994),
    "The same 404 from an issue lookup, a different id each time, without changing approach.",
)
t.user("Summarise the top error-tracking issue")
idx = [
    t.call(
        "shell",
        {"command": f"pup error-tracking issues get {i}"},
        error="Error: 404 Not Found: issue does not exist",
        kind="not_found",
    )
    for i in ["a1b2c3", "a1b2c4", "b7d9e0", "a1b2c5", "c0ffee"]
]
t.mark(idx[1], idx[1])

t = new(
    "f2-langgraph-databricks-sql",
    "error_loop",
    True,
    gh("langchain-ai/langgraph", "issues", 6731),
    "The same SQL fails with the same namespace error until the recursion limit.",
)
t.user("How many orders shipped last week?")
SQL = {"query": "SELECT count(*) FROM main.sales.orders WHERE shipped >= date_sub(now(), 7)"}
o = repeat_block(
    t,
    [
        {
            "tool": "query_databricks",
            "args": SQL,
            "error": "[REQUIRES_SINGLE_PART_NAMESPACE] main.sales.orders requires a single-part "
            "namespace",
            "kind": "invalid_args",
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f2-aider-edit-already-applied",
    "error_loop",
    True,
    gh("Aider-AI/aider", "issues", 4098),
    "A SEARCH/REPLACE whose change is already in the file is retried three times, same error.",
)
t.user("Use ingest_json_recs in update.py")
EDIT = {
    "path": "scripts/update.py",
    "search": "    for f in json_files:\n        nodes += load_json_objects(f)",
    "replace": "    nodes = ingest_json_recs(args.json_dir, args.verbose)",
}
o = repeat_block(
    t,
    [
        {
            "tool": "apply_edit",
            "args": EDIT,
            "error": "SearchReplaceNoExactMatch: the SEARCH section must exactly match lines in "
            "scripts/update.py",
            "kind": "invalid_args",
        }
    ],
    3,
)
mark_cycle(t, o)
t.msg("The edit keeps failing; giving up on this block.")

t = new(
    "f2-codewhale-noop-edit",
    "repeated_call",
    True,
    gh("Hmbown/Codewhale", "issues", 1457),
    "edit_file with search equal to replace: '(no textual changes)', retried unchanged.",
)
t.user("Rename foo to bar in config.go")
NOOP = {"path": "config.go", "search": 'a := "foo"', "replace": 'a := "foo"'}
t.call("read_file", {"path": "config.go"}, 'package cfg\n\nfunc init() { a := "foo" }')
o = repeat_block(t, [{"tool": "edit_file", "args": NOOP, "result": "(no textual changes)"}], 4)
mark_cycle(t, o)

t = new(
    "f2-goose-declined-call",
    "error_loop",
    True,
    gh("aaif-goose/goose", "issues", 1971),
    "The user declines a shell command; the agent asks for the very same command again.",
)
t.user("Clean the build and rebuild")
o = repeat_block(
    t,
    [
        {
            "tool": "developer__shell",
            "args": {"command": "rm -rf build && make all"},
            "error": "The user declined to run this tool call.",
            "kind": "permission",
        }
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f2-codex-drizzle-rerun",
    "error_loop",
    True,
    gh("openai/codex", "issues", 3889),
    "A migration fails on its config; told to fix the config first, it reruns it unchanged.",
)
t.user("Apply the new drizzle migration")
DRZ = "Error: Cannot find schema at ./src/db/schema.ts (drizzle.config.ts: schema)"
a = t.call("shell", {"command": "bunx drizzle-kit migrate"}, error=DRZ, kind="exit_code")
t.user("The schema path in drizzle.config.ts is wrong. Fix that first, then migrate.")
b = t.call("shell", {"command": "bunx drizzle-kit migrate"}, error=DRZ, kind="exit_code")
t.call("shell", {"command": "bunx drizzle-kit migrate"}, error=DRZ, kind="exit_code")
t.call("shell", {"command": "bunx drizzle-kit migrate"}, error=DRZ, kind="exit_code")
t.mark(b, b)

t = new(
    "f2-langmanus-search-research",
    "cycle",
    True,
    gh("langmanus/langmanus", "issues", 61),
    "web search then crawl of the same page, the pair repeated until the recursion limit.",
)
t.user("Research the market share of RISC-V in 2024")
o = repeat_block(
    t,
    [
        {
            "tool": "tavily_search",
            "args": {"query": "RISC-V market share 2024"},
            "result": [{"url": "https://news.test/riscv-2024", "title": "RISC-V grows"}],
        },
        {
            "tool": "crawl",
            "args": {"url": "https://news.test/riscv-2024"},
            "result": "RISC-V shipments grew in 2024, analysts say. (no figures given)",
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f2-omega-apologies",
    "monologue",
    True,
    gh("singnet/Omega", "issues", 197),
    "After a correction: several apology messages in a row, the same meaning, reworded.",
)
t.user("There is no bug, the parentheses are balanced.")
idx = [
    t.msg(m)
    for m in [
        "I apologize for the false bug report. Is there anything else you'd like me to explore?",
        "I apologize for the false bug report. The parentheses are properly balanced.",
        "I apologize for the false bug report. I should have verified more carefully.",
        "I apologize for the false bug report; the parentheses are balanced after all.",
        "I apologize for the false bug report. Anything else you'd like me to look at?",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f2-goose-schema-monologue",
    "monologue",
    True,
    gh("aaif-goose/goose", "issues", 9640),
    "Three lines of intent about writing the schema, repeated with no tool call (period 3).",
)
t.user("Create the backend schema for the RPG manager")
SCHEMA_LINES = [
    "I'll write the schema to rpg-manager-app/backend/schema.sql.",
    "Wait, I'll also write the .env for the backend.",
    "Actually, I'll write the schema.",
]
idx = [t.msg(line) for _ in range(4) for line in SCHEMA_LINES]
t.mark(idx[3], idx[5], period=3)

t = new(
    "f2-autogpt-restart-same-task",
    "known_failure",
    True,
    gh("Significant-Gravitas/AutoGPT", "issues", 3211),
    "A task ends in an error; Auto-GPT starts over and runs the same failing step again.",
)
t.user("Scrape the product list into products.csv")
BS4 = "ModuleNotFoundError: No module named 'bs4'"
t.call(
    "write_to_file",
    {"filename": "scraper.py", "text": "import bs4\n..."},
    "File written",
    mutates=True,
)
t.call("execute_python_file", {"filename": "scraper.py"}, error=BS4, kind="exit_code")
t.session("s2")
t.user("Scrape the product list into products.csv")
rep = t.call("execute_python_file", {"filename": "scraper.py"}, error=BS4, kind="exit_code")
t.call("execute_python_file", {"filename": "scraper.py"}, error=BS4, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "f2-darkfactory-retry-invocation",
    "known_failure",
    True,
    gh("peter-stratton/dark-factory", "issues", 39),
    "A retry starts a new agent invocation with no memory; it runs the same failing build.",
)
t.user("Implement issue 12: retry policy")
GOT = "./retry.go:14:9: undefined: NewRetryPolicy\nFAIL\tgithub.com/acme/df [build failed]"
t.call("read_file", {"path": "retry.go"}, "package df\n\nfunc Do() { p := NewRetryPolicy() }")
t.call("bash", {"command": "go test ./..."}, error=GOT, kind="exit_code")
t.session("s2")
t.user("Retry: address the review comments on PR 31")
t.call("bash", {"command": "gh pr view 31 --comments"}, "reviewer: build is red")
rep = t.call("bash", {"command": "go test ./..."}, error=GOT, kind="exit_code")
t.mark(rep, rep - 1)

# ---- fresh2 legitimate

t = new(
    "f2-roo-mcp-read-output",
    "polling",
    False,
    gh("RooCodeInc/Roo-Code", "issues", 9502),
    "A debugger's output read in 8 KiB chunks: fifty consecutive read_output calls, each new data.",
)
t.user("Attach CDB to the service and list the loaded modules")
t.call("pty_start", {"command": "cdb -pn service.exe"}, {"session": "pty-1"})
for k in range(50):
    t.call(
        "read_output",
        {"session": "pty-1", "max_bytes": 8192},
        f"ModLoad: 00007ff8`{0x12340000 + k * 0x10000:08x} C:\\Windows\\System32\\mod{k:03d}.dll"
        f" ... (8192 bytes, total {8192 * (k + 1)})",
    )
t.msg("The service loads 50 modules; none are unsigned.")

t = new(
    "f2-roo-scroll-down",
    "polling",
    False,
    ROO | {"case": "should not count browser scroll_down actions as repetitions"},
    "Ten scroll_down actions through a long page; each shows new content.",
)
t.user("Read the changelog page and find the 2.0 breaking changes")
t.call("browser_action", {"action": "launch", "url": "https://docs.test/changelog"}, "v3.4 ...")
for k in range(10):
    t.call("browser_action", {"action": "scroll_down"}, f"Changelog v{3 - k / 10:.1f} section")
t.msg("2.0 removed the legacy config loader and renamed two flags.")

t = new(
    "f2-roo-files-interleaved",
    "distinct_reads",
    False,
    ROO | {"case": "should differentiate read_file calls with different files in nativeArgs"},
    "read_file of file1, file2, file1 again, then both in two orders.",
)
t.user("Compare the two handlers")
F1, F2 = "export const a = () => 1", "export const b = () => 2"
t.call("read_file", {"files": [{"path": "file1.ts"}]}, F1)
t.call("read_file", {"files": [{"path": "file2.ts"}]}, F2)
t.call("read_file", {"files": [{"path": "file1.ts"}]}, F1)
t.call("read_file", {"files": [{"path": "a.ts"}, {"path": "b.ts"}]}, "a.ts: A\nb.ts: B")
t.call("read_file", {"files": [{"path": "b.ts"}, {"path": "a.ts"}]}, "b.ts: B\na.ts: A")
t.msg("Both handlers are pure; file2's returns 2.")

t = new(
    "f2-roo-git-pull-many-cwds",
    "distinct_reads",
    False,
    ROO | {"case": "should handle tools with both params and nativeArgs (different cwd)"},
    "The same git pull in seven checkouts; most answer 'Already up to date.'",
)
t.user("Update all my checkouts")
for repo in ["api", "web", "infra", "docs", "cli", "sdk-py", "sdk-js"]:
    res = "Already up to date." if repo not in ("docs", "sdk-js") else "Fast-forward\n 2 files"
    t.call(
        "execute_command", {"command": "git pull --ff-only", "cwd": f"/home/user/src/{repo}"}, res
    )
t.msg("Seven checkouts updated; docs and sdk-js had new commits.")

t = new(
    "f2-crustly-ls-subdirs",
    "distinct_reads",
    False,
    {"repo": "jyjeanne/crustly", "path": "TOOL_LOOP_FIX_2025-11-30.md"},
    "ls of one directory after another while exploring a codebase.",
)
t.user("Give me a tour of this codebase")
for p, out in [
    ("./src", "cli/ tui/ llm/ main.rs"),
    ("./src/cli", "mod.rs args.rs"),
    ("./src/tui", "mod.rs app.rs widgets/"),
    ("./src/llm", "mod.rs agent/ provider/"),
    ("./src/llm/agent", "service.rs tools.rs"),
    ("./src/llm/provider", "openai.rs anthropic.rs"),
    ("./tests", "integration.rs"),
]:
    t.call("ls", {"path": p}, out)
t.call("read", {"path": "./src/main.rs"}, "fn main() { cli::run() }")
t.msg("A CLI and a TUI over one LLM agent service with two providers.")

t = new(
    "f2-goose-two-each",
    "distinct_reads",
    False,
    GOOSE_T | {"case": "allowed up to max_repetitions, counter resets on a parameter change"},
    "Two users looked up twice each (a re-check after a user question), then others.",
)
t.user("Compare the plans of users 123 and 456")
t.call("fetch_user", {"id": 123}, {"id": 123, "plan": "pro"})
t.call("fetch_user", {"id": 456}, {"id": 456, "plan": "free"})
t.user("Are you sure about 123? Check again.")
t.call("fetch_user", {"id": 123}, {"id": 123, "plan": "pro"})
t.call("fetch_user", {"id": 789}, {"id": 789, "plan": "team"})
t.msg("Yes: 123 is on pro, 456 on free, and 789 (same org) on team.")

t = new(
    "f2-cline-continue-after-timeouts",
    "retry_transient",
    False,
    gh("cline/cline", "issues", 10358),
    "Two SSH timeouts, the user says continue, one more timeout, then it goes through.",
)
t.user("Restart the API on the staging box")
SSH = {"command": "ssh staging 'sudo systemctl restart api'"}
t.call("execute_command", SSH, error="Command timed out after 60s", kind="timeout")
t.call("execute_command", SSH, error="Command timed out after 60s", kind="timeout")
t.msg("The SSH connection keeps timing out.")
t.user("continue\n\ncontinue (VPN is back)")
t.call("execute_command", SSH, error="Command timed out after 60s", kind="timeout")
t.call("execute_command", SSH, "")
t.call("execute_command", {"command": "ssh staging 'systemctl is-active api'"}, "active")

t = new(
    "f2-cline-resume-after-timeouts",
    "session_memory",
    False,
    gh("cline/cline", "issues", 10358) | {"case": "task resumption"},
    "A task dies on two timeouts; the resumed task runs the same command and it works.",
)
t.user("Deploy the worker")
DEP = {"command": "ssh prod 'cd /srv/worker && ./deploy.sh'"}
t.call("execute_command", DEP, error="Command timed out after 60s", kind="timeout")
t.call("execute_command", DEP, error="API overloaded, connection reset", kind="network")
t.session("s2")
t.user("continue")
t.call("execute_command", DEP, "deployed worker 2.4.1")
t.msg("Deployed 2.4.1.")

t = new(
    "f2-reasonix-edit-read-edit",
    "edit_test_cycle",
    False,
    gh("esengine/DeepSeek-Reasonix", "issues", 5503),
    "Two edits miss their old_string, the file is read again, the third edit lands.",
)
t.user("Make the retry count configurable in client.go")
t.call(
    "edit_file",
    {"path": "client.go", "old_string": "retries := 3", "new_string": "retries := cfg.Retries"},
    error="old_string not found in client.go",
    kind="invalid_args",
)
t.call(
    "edit_file",
    {"path": "client.go", "old_string": "\tretries := 3", "new_string": "\tretries := cfg.Retries"},
    error="old_string not found in client.go",
    kind="invalid_args",
)
t.call("read_file", {"path": "client.go"}, "func New() *Client {\n\tmaxRetries := 3\n}")
t.call(
    "edit_file",
    {"path": "client.go", "old_string": "\tmaxRetries := 3", "new_string": "\tmaxRetries := c.R"},
    "edited client.go",
    mutates=True,
)
t.call("bash", {"command": "go build ./..."}, "")

t = new(
    "f2-drizzle-fix-then-migrate",
    "edit_test_cycle",
    False,
    gh("openai/codex", "issues", 3889) | {"case": "expected behaviour"},
    "The migration fails, the agent fixes the config, the same migration then runs.",
)
t.user("Apply the new drizzle migration")
t.call("shell", {"command": "bunx drizzle-kit migrate"}, error=DRZ, kind="exit_code")
t.call(
    "read_file", {"path": "drizzle.config.ts"}, "export default { schema: './src/db/schema.ts' }"
)
t.call(
    "edit_file",
    {"path": "drizzle.config.ts", "old": "./src/db/schema.ts", "new": "./db/schema.ts"},
    "edited",
    mutates=True,
)
t.call("shell", {"command": "bunx drizzle-kit migrate"}, "[✓] migrations applied (1)")

t = new(
    "f2-user-fixes-then-rerun",
    "edit_test_cycle",
    False,
    gh("openai/codex", "issues", 3889) | {"case": "user fixes the config"},
    "The migration fails; the user edits the config and asks again; the same command now works.",
)
t.user("Apply the new drizzle migration")
t.call("shell", {"command": "bunx drizzle-kit migrate"}, error=DRZ, kind="exit_code")
t.msg("The schema path in drizzle.config.ts looks wrong.")
t.workspace("the user fixed drizzle.config.ts")
t.user("I fixed the config, try again")
t.call("shell", {"command": "bunx drizzle-kit migrate"}, "[✓] migrations applied (1)")

t = new(
    "f2-openmono-check-status",
    "polling",
    False,
    gh("StartupHakk/OpenMonoAgent.ai", "issues", 47),
    "Monitoring a background job: CheckStatus, sometimes the same progress twice, until done.",
)
t.user("Start the training job and tell me when it finishes")
t.call("StartJob", {"name": "train-resnet"}, {"job_id": "job-42"})
for st in [
    "running 12%",
    "running 12%",
    "running 31%",
    "running 31%",
    "running 58%",
    "running 80%",
    "running 97%",
    "succeeded",
]:
    t.call("CheckStatus", {"job_id": "job-42"}, {"status": st})
t.msg("Training finished.")

t = new(
    "f2-ci-poll-with-sleep",
    "polling",
    False,
    gh("IntertechInc/claude-agent-team-feedback", "issues", 99),
    "Waiting for a CI run: sleep and check, 'in_progress' four times, then completed.",
)
t.user("Wait for CI on my PR and tell me the result")
POLL = {"command": "sleep 30 && gh run view 991 --json status,conclusion"}
for _ in range(4):
    t.call("bash", POLL, {"status": "in_progress", "conclusion": ""})
t.call("bash", POLL, {"status": "completed", "conclusion": "success"})
t.msg("CI passed.")

t = new(
    "f2-langchain-run-limit-turns",
    "conversation",
    False,
    LC_LIMIT | {"case": "test_run_limit_with_multiple_human_messages"},
    "One search per question over several user messages in one thread.",
)
for q, query in [("Question 1", "test1"), ("Question 2", "test2"), ("Question 3", "test3")]:
    t.user(q)
    t.call("search", {"query": query}, f"Results for {query}")
    t.msg(f"Here is what I found for {query}.")

t = new(
    "f2-langchain-many-searches",
    "research",
    False,
    LC_LIMIT | {"case": "test_middleware_with_specific_tool"},
    "A research task: a dozen different searches and a few calculations.",
)
t.user("Compare the GDP growth of the G7 in 2023")
for c in ["US", "Japan", "Germany", "UK", "France", "Italy", "Canada"]:
    t.call("search", {"query": f"{c} GDP growth 2023"}, f"{c}: real GDP growth figure ...")
for c in ["US", "Japan", "Germany"]:
    t.call("search", {"query": f"{c} GDP growth 2023 revised"}, f"{c}: revised estimate ...")
t.call("calculator", {"expression": "(2.5+1.9-0.3+0.1+0.9+0.7+1.1)/7"}, "0.986")
t.call("calculator", {"expression": "2.5-0.986"}, "1.514")
t.msg("Average G7 growth was about 1%; the US led at 2.5%.")

t = new(
    "f2-tale-retry-rereads",
    "session_memory",
    False,
    gh("tale-project/tale", "pull", 3421),
    "A turn dies on a provider 502; the retried, fresh conversation re-reads the same files.",
)
t.user("Set up the VAT desk repair job")
FILES = [f"desk/{n}.py" for n in ["config", "rules", "rates", "export", "io", "cli"]]
for f in FILES:
    t.call("read_file", {"path": f}, f"# {f}\n...")
t.session("s2")
t.user("Set up the VAT desk repair job")
for f in FILES:
    t.call("read_file", {"path": f}, f"# {f}\n...")
t.call("edit_file", {"path": "desk/rates.py", "old": "0.19", "new": "0.20"}, "edited", mutates=True)
t.call("bash", {"command": "pytest desk -q"}, "12 passed")

t = new(
    "f2-hamroh-test-edit-cycle",
    "edit_test_cycle",
    False,
    gh("Rustam-Z/hamroh", "issues", 16) | {"case": "reset counter on successful tool call"},
    "pytest fails, edit, fails differently, edit, passes: the same command, results changing.",
)
t.user("Make the date parser accept ISO weeks")
PT = {"command": "pytest tests/test_dates.py -q"}
t.call("bash", PT, error="1 failed: test_iso_week - ValueError: unknown format", kind="exit_code")
t.call(
    "edit_file",
    {"path": "dates.py", "old": "FORMATS = [", "new": "FORMATS = ['%G-W%V',"},
    "edited",
    mutates=True,
)
t.call("bash", PT, error="1 failed: test_iso_week - missing weekday directive", kind="exit_code")
t.call(
    "edit_file",
    {"path": "dates.py", "old": "'%G-W%V'", "new": "'%G-W%V-%u'"},
    "edited",
    mutates=True,
)
t.call("bash", PT, "6 passed")

t = new(
    "f2-hamroh-rate-limit-retry",
    "retry_transient",
    False,
    gh("Rustam-Z/hamroh", "issues", 16) | {"case": "distinguish transient errors (retry ok)"},
    "A 429 twice, then the same request succeeds.",
)
t.user("Post the release notes to the channel")
POST = {"channel": "#releases", "text": "v1.8 is out"}
t.call("post_message", POST, error="429 Too Many Requests, retry after 2s", kind="rate_limit")
t.call("post_message", POST, error="429 Too Many Requests, retry after 4s", kind="rate_limit")
t.call("post_message", POST, {"ok": True, "ts": "1712.55"})

t = new(
    "f2-codewhale-long-edit-session",
    "long_productive",
    False,
    gh("Hmbown/Codewhale", "issues", 1457) | {"case": "multi-hour session, ~30 edit_file calls"},
    "A long refactor: thirty files read, edited and built, every edit a real change.",
)
t.user("Move every handler to the new Context type")
for k in range(30):
    f = f"internal/handlers/h{k:02d}.go"
    t.call("read_file", {"path": f}, f"func H{k}(w http.ResponseWriter, r *http.Request) {{}}")
    t.call(
        "edit_file",
        {
            "path": f,
            "search": f"func H{k}(w http.ResponseWriter, r *http.Request)",
            "replace": f"func H{k}(c *Context)",
        },
        "edited",
        mutates=True,
    )
    if k % 5 == 4:
        t.call("bash", {"command": "go build ./..."}, "" if k == 29 else f"{29 - k} handlers left")
t.call("bash", {"command": "go test ./..."}, "ok  \tgithub.com/acme/app/internal/handlers")

t = new(
    "f2-omega-one-apology-per-turn",
    "conversation",
    False,
    gh("singnet/Omega", "issues", 197) | {"case": "expected behavior"},
    "Corrected three times, the agent apologises once per correction and answers.",
)
for corr, ans in [
    ("That function is not recursive.", "I apologize, you're right: it iterates with a stack."),
    ("The file is memory.metta, not memory.py.", "I apologize, you're right: it's memory.metta."),
    ("There is no bug in the parser.", "I apologize, you're right: the parentheses balance."),
]:
    t.user(corr)
    t.msg(ans)

t = new(
    "f2-langgraph-memory-per-turn",
    "conversation",
    False,
    gh("langchain-ai/langgraph", "issues", 4231) | {"case": "expected behavior"},
    "One save_memory per user turn, each a different fact, and the time asked twice a day apart.",
)
for q, mem in [
    ("I prefer metric units.", "prefers metric units"),
    ("My team is in Berlin.", "team in Berlin"),
    ("Call me Sam.", "name: Sam"),
]:
    t.user(q)
    t.call("save_memory", {"memory": mem}, "Memory saved.")
    t.msg("Noted.")
t.user("What time is it?")
t.call("get_current_time", {}, {"time": "2025-02-10T09:00:00Z"})
t.user("And now? Is it lunch time yet?")
t.call("get_current_time", {}, {"time": "2025-02-10T12:31:00Z"})
t.msg("It's 12:31, lunch time.")


# ================================================================ fresh3 set
# Written at 16:45 UTC from sources no earlier split uses (SWE-agent, docker-agent, nanobot,
# langchain-gigachat, strands-agents, Kilo Code, Zed, pydantic-ai, smolagents, AutoGen,
# mini-agi, AutoControlGUI, stella, traceroost, weave-os router, fastclaw, mozilla/pilo,
# opencrabs, MCPJam, Pepper, oh-my-customcode, DeepCode, ThoughtCoding, codepatchbay,
# agent-validator, stepfun Step-Realtime-CLI, VTCode, vercel-labs/fx, dev-loops, fak,
# division-sh/swarm, strix, vscode-copilot-release, cds-snc/ai-answers, kimi-code ...),
# committed before crs was run on them. Split "fresh3".

FRESH3_START = len(ALL)

# ---- fresh3 loops

t = new(
    "f3-docker-agent-same-chunk",
    "repeated_call",
    True,
    gh("docker/docker-agent", "pull", 2123),
    "A drafter sub-agent reads the same diff chunk again and again; every read succeeds.",
)
t.user("Draft the release notes from the diff chunks in /tmp")
CHUNK = "diff --git a/cmd/root.go b/cmd/root.go\n@@ -12,6 +12,9 @@\n+\tcmd.AddCommand(newEvalCmd())"
t.call("list_directory", {"path": "/tmp"}, "drafter_chunk_1.diff\ndrafter_chunk_2.diff")
o = repeat_block(
    t, [{"tool": "read_file", "args": {"path": "/tmp/drafter_chunk_1.diff"}, "result": CHUNK}], 8
)
mark_cycle(t, o)

t = new(
    "f3-nanobot-history-same-window",
    "repeated_call",
    True,
    gh("HKUDS/nanobot", "pull", 3077),
    "read_file of history.jsonl with the same offset and limit, keys in varying order.",
)
t.user("What happened recently?")
HIST = '{"ts": "2026-04-11T09:12", "role": "user", "text": "remind me to call Ana"}\n...'
idx = []
for order in [
    ("path", "limit", "offset"),
    ("path", "offset", "limit"),
    ("limit", "offset", "path"),
    ("offset", "path", "limit"),
    ("path", "limit", "offset"),
    ("limit", "path", "offset"),
]:
    vals = {"path": "~/.nanobot/workspace/memory/history.jsonl", "limit": 50, "offset": 1}
    idx.append(t.call("read_file", {k: vals[k] for k in order}, HIST))
t.mark(idx[1], idx[1])

t = new(
    "f3-gigachat-empty-todos",
    "repeated_call",
    True,
    gh("ai-forever/langchain-gigachat", "pull", 69),
    "write_todos with an empty list on every turn: 'Updated todo list to []', forever.",
)
t.user("Plan the migration of the billing service")
t.call("read_file", {"path": "billing/README.md"}, "# Billing\nRuns on the legacy queue.")
o = repeat_block(
    t, [{"tool": "write_todos", "args": {"todos": []}, "result": "Updated todo list to []"}], 6
)
mark_cycle(t, o)

t = new(
    "f3-sweagent-submit-no-output",
    "repeated_call",
    True,
    gh("SWE-agent/SWE-agent", "issues", 971),
    "`submit` over and over, each time 'Your command ran successfully and did not produce "
    "any output.'",
)
t.user("Fix the off-by-one in pagination.py and submit")
t.call(
    "str_replace_editor",
    {"command": "str_replace", "path": "/repo/pagination.py", "old_str": "n - 1", "new_str": "n"},
    "The file /repo/pagination.py has been edited.",
    mutates=True,
)
SUBMIT_OUT = "Your command ran successfully and did not produce any output."
o = repeat_block(t, [{"tool": "bash", "args": {"command": "submit"}, "result": SUBMIT_OUT}], 6)
mark_cycle(t, o)

t = new(
    "f3-codeframe-same-signature",
    "repeated_call",
    True,
    gh("frankbria/codeframe", "pull", 820),
    "The same tool signature three times and more: a stuck agent that implements nothing.",
)
t.user("Implement task 740: return FAILED on loop detection")
t.call("search_code", {"pattern": "AgentStatus.COMPLETED"}, "core/react_agent.py:211")
REACT = "    if self._is_looping():\n        return AgentStatus.COMPLETED\n"
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"path": "codeframe/core/react_agent.py", "start": 200, "end": 230},
            "result": REACT,
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f3-stella-back-after-warning",
    "repeated_call",
    True,
    gh("macanderson/stella", "issues", 6480),
    "Three byte-identical reads of a data file; the agent is warned, tries eight other things, "
    "then goes back to the same command.",
)
t.user("Modernise the COBOL input reader")
READER = {"command": "python3 -c \"print(open('/app/src/INPUT.DAT','rb').read()[:80])\""}
DAT = "b'00012ACME CORP      0000150000\\r\\n00013GLOBEX         0000023000\\r\\n'"
o = repeat_block(t, [{"tool": "bash", "args": READER, "result": DAT}], 3)
for cmd, out in [
    ("od -c /app/src/INPUT.DAT | head -3", "0000000   0   0   0   1   2   A   C   M   E"),
    ("git diff /app/src/INPUT.DAT", ""),
    ("git checkout /app/src/INPUT.DAT", "Updated 1 path from the index"),
    ("wc -l /app/src/INPUT.DAT", "2 /app/src/INPUT.DAT"),
    ("file /app/src/INPUT.DAT", "/app/src/INPUT.DAT: ASCII text, with CRLF line terminators"),
    ("ls -la /app/src", "INPUT.DAT  reader.cbl  reader.py"),
    ("head -c 40 /app/src/reader.cbl", "       IDENTIFICATION DIVISION."),
    ("python3 /app/src/reader.py", "Traceback: ValueError: invalid literal for int()"),
]:
    t.call("bash", {"command": cmd}, out)
repeat_block(t, [{"tool": "bash", "args": READER, "result": DAT}], 3)
mark_cycle(t, o)

t = new(
    "f3-miniagi-install-every-prompt",
    "repeated_call",
    True,
    gh("muellerberndt/mini-agi", "issues", 47),
    "The same package installed again on every 'continue', always 'already satisfied'.",
)
t.user("Write a script that downloads the daily exchange rates")
PIP = "Requirement already satisfied: requests in /usr/lib/python3/dist-packages (2.31.0)"
idx = []
for _ in range(5):
    t.user("continue")
    idx.append(t.call("execute_shell", {"command": "pip install requests"}, PIP))
t.mark(idx[1], idx[1])

t = new(
    "f3-vtcode-argv-or-string",
    "repeated_call",
    True,
    gh("vinhnx/VTCode", "pull", 208),
    "One command sent as a single string, then as an argv list, then as a string again; the "
    "same output each time.",
)
t.user("Does the workspace build?")
CHECK = "error[E0425]: cannot find value `cfg` in this scope\n --> src/main.rs:14:9"
idx = [
    t.call("run_terminal_cmd", {"command": c}, CHECK)
    for c in [
        "cargo check",
        ["cargo", "check"],
        "cargo check",
        ["cargo", "check"],
        "cargo  check",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f3-kimi-grep-streak",
    "repeated_call",
    True,
    gh("MoonshotAI/kimi-code", "pull", 1518),
    "The exact same grep repeated; reminders at streaks 3/5/8 in the source project.",
)
t.user("Where is the session timeout configured?")
GREP = {"pattern": "SESSION_TIMEOUT", "path": "src", "output_mode": "content"}
o = repeat_block(t, [{"tool": "Grep", "args": GREP, "result": "No matches found"}], 8)
mark_cycle(t, o)

t = new(
    "f3-strands-repeated-batch",
    "cycle",
    True,
    gh("strands-agents/harness-sdk", "issues", 4262),
    "The same batch of two tool calls (same names, same inputs) asked for again and again.",
)
t.user("Compare the staging and production configs")
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"path": "deploy/staging.yaml"},
            "result": "replicas: 1\nimage: api:1.4.2\n",
        },
        {
            "tool": "read_file",
            "args": {"path": "deploy/production.yaml"},
            "result": "replicas: 3\nimage: api:1.4.1\n",
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f3-autocontrol-ping-pong",
    "cycle",
    True,
    {
        "url": "https://github.com/Integration-Automation/AutoControlGUI/pull/254",
        "case": "ping_pong",
    },
    "A computer-use agent alternates a click and a screenshot; the screen never changes.",
)
t.user("Open the Export dialog in the report viewer")
o = repeat_block(
    t,
    [
        {"tool": "click", "args": {"x": 412, "y": 88, "button": "left"}, "result": "clicked"},
        {"tool": "screenshot", "args": {}, "result": {"digest": "9f2c01ab", "title": "Report"}},
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f3-traceroost-edit-revert",
    "cycle",
    True,
    gh("traceroost/core", "pull", 215) | {"case": "edit_revert_cycle"},
    "Fix, test fails, revert the fix, the other test fails, re-apply the fix...: four calls "
    "repeated with the same results.",
)
t.user("Make both date tests pass")
FIX = {"path": "src/dates.ts", "old": "getMonth()", "new": "getMonth() + 1"}
REV = {"path": "src/dates.ts", "old": "getMonth() + 1", "new": "getMonth()"}
TEST = {"command": "npx vitest run tests/dates.test.ts"}
o = repeat_block(
    t,
    [
        {"tool": "edit_file", "args": FIX, "result": "edited src/dates.ts", "mutates": True},
        {
            "tool": "bash",
            "args": TEST,
            "error": "FAIL tests/dates.test.ts > formats December: expected '12' got '13'",
            "kind": "exit_code",
        },
        {"tool": "edit_file", "args": REV, "result": "edited src/dates.ts", "mutates": True},
        {
            "tool": "bash",
            "args": TEST,
            "error": "FAIL tests/dates.test.ts > formats January: expected '01' got '00'",
            "kind": "exit_code",
        },
    ],
    3,
)
mark_cycle(t, o)

t = new(
    "f3-stella-interleaved-failing-test",
    "error_loop",
    True,
    gh("macanderson/stella", "pull", 1902),
    "A failing cargo test with identical output every round, a different file read in between.",
)
t.user("Fix the failing parser test")
CT = {"command": "cargo test -p parser"}
CT_ERR = "test parse_nested ... FAILED\nthread 'parse_nested' panicked at 'unexpected token `}`'"
idx = []
for f in ["src/lexer.rs", "src/ast.rs", "src/parser.rs", "tests/nested.rs", "src/token.rs"]:
    idx.append(t.call("bash", CT, error=CT_ERR, kind="exit_code"))
    t.call("read_file", {"path": f}, f"// {f}\npub fn f() {{}}")
t.mark(idx[1], idx[1], period=2)

t = new(
    "f3-autocontrol-no-op-clicks",
    "no_progress",
    True,
    {
        "url": "https://github.com/Integration-Automation/AutoControlGUI/pull/254",
        "case": "no_op: the observation digest never changes",
    },
    "Clicks a few pixels apart, each followed by a screenshot with the same digest.",
)
t.user("Press the Save button in the dialog")
pairs = []
for x in [600, 604, 610, 598, 615]:
    a = t.call("click", {"x": x, "y": 420}, "clicked")
    b = t.call("screenshot", {}, {"digest": "51d7e0c4", "title": "Unsaved changes"})
    pairs.append([a, b])
t.mark(pairs[1][0], pairs[1][1], period=2)

t = new(
    "f3-copilot-codebase-search-reworded",
    "no_progress",
    True,
    gh("microsoft/vscode-copilot-release", "issues", 7160),
    "Agent mode searching the codebase in a loop: reworded searches, the same empty answer.",
)
t.user("Where do we validate the upload size?")
idx = [
    t.call("semantic_search", {"query": q}, "No results found in workspace.")
    for q in [
        "validate upload size",
        "upload size validation",
        "where is the upload size validated",
        "check maximum upload size",
        "upload size limit validation check",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f3-stepfun-timeout-escalation",
    "no_progress",
    True,
    gh("stepfun-ai/Step-Realtime-CLI", "pull", 111),
    "After run_command failures the model escalates timeout_ms each time; the same failure.",
)
t.user("Run the integration suite")
idx = [
    t.call(
        "run_command",
        {"command": "pnpm test:integration", "timeout_ms": ms},
        error="Error: connect ECONNREFUSED 127.0.0.1:5432 (database not running)",
        kind="exit_code",
    )
    for ms in [120000, 2e10, 2.4e37, 3.6e76]
]
t.mark(idx[1], idx[1])

t = new(
    "f3-kilo-apply-diff",
    "error_loop",
    True,
    gh("Kilo-Org/kilocode", "issues", 1129),
    "apply_diff attempted repeatedly with the same diff and the same failure.",
)
t.user("Add a null check to getUser in users.ts")
DIFF = {
    "path": "src/users.ts",
    "diff": "<<<<<<< SEARCH\n  return db.users[id]\n=======\n"
    "  return db.users[id] ?? null\n>>>>>>> REPLACE",
}
o = repeat_block(
    t,
    [
        {
            "tool": "apply_diff",
            "args": DIFF,
            "error": "No sufficiently similar match found (62% similar, needs 100%)",
            "kind": "invalid_args",
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f3-miniagi-mkdir-exists",
    "error_loop",
    True,
    gh("muellerberndt/mini-agi", "issues", 47) | {"case": "create the same folder over and over"},
    "mkdir succeeds the first time and fails with 'File exists' ever after.",
)
t.user("Set up a project folder for the crawler")
MK = {"command": "mkdir crawler"}
t.call("execute_shell", MK, "")
o = repeat_block(
    t,
    [
        {
            "tool": "execute_shell",
            "args": MK,
            "error": "mkdir: cannot create directory 'crawler': File exists",
            "kind": "exit_code",
        }
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f3-zed-recreate-file",
    "error_loop",
    True,
    gh("zed-industries/zed", "pull", 28372),
    "The agent keeps re-creating a file it just created instead of editing it.",
)
t.user("Create a Button component, then add a disabled prop")
BTN = {"path": "src/Button.tsx", "contents": "export function Button({ label }) { ... }"}
t.call("create_file", BTN, "Created src/Button.tsx", mutates=True)
BTN2 = {"path": "src/Button.tsx", "contents": "export function Button({ label, disabled }) {...}"}
o = repeat_block(
    t,
    [
        {
            "tool": "create_file",
            "args": BTN2,
            "error": "File already exists: src/Button.tsx. Use the edit tool to modify it.",
            "kind": "invalid_args",
        }
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f3-pydantic-infinite-retry-tool",
    "error_loop",
    True,
    gh("pydantic/pydantic-ai", "pull", 409) | {"case": "docs: infinite_retry_tool"},
    "A tool that always asks for a retry, called again and again with the same arguments.",
)
t.user("Begin!")
o = repeat_block(
    t,
    [
        {
            "tool": "infinite_retry_tool",
            "args": {},
            "error": "ModelRetry: Please try again.",
            "kind": "invalid_args",
        }
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f3-devloops-bad-flag",
    "error_loop",
    True,
    gh("mfittko/dev-loops", "issues", 483),
    "A script rejects a flag and prints its usage; the agent reruns it with the same flag.",
)
t.user("Watch the Copilot review cycle on PR 481")
WATCH = {"command": "node scripts/run-copilot-watch-cycle.mjs --pr 481 --timeout-ms 600000"}
USAGE = (
    "Unknown option: --timeout-ms\n"
    "Usage: run-copilot-watch-cycle.mjs --pr <n> [--probe-only] [--max-cycles <n>]"
)
o = repeat_block(t, [{"tool": "bash", "args": WATCH, "error": USAGE, "kind": "invalid_args"}], 4)
mark_cycle(t, o)

t = new(
    "f3-fx-unmatched-quote",
    "error_loop",
    True,
    gh("vercel-labs/fx", "pull", 862),
    "A command with an unmatched quote rerun unchanged but for spacing; the same parse error.",
)
t.user("Find where we log 'user not found")
PARSE = "bash: -c: line 1: unexpected EOF while looking for matching `\"'"
idx = [
    t.call("shell", {"command": c}, error=PARSE, kind="syntax")
    for c in [
        'grep -rn "user not found src/',
        'grep -rn  "user not found src/',
        'grep -rn "user not found src/ ',
        ' grep -rn "user not found src/',
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f3-pydantic-429-exhausted",
    "error_loop",
    True,
    gh("pydantic/pydantic-ai", "issues", 928),
    "A tool hits 429 Too Many Requests and is retried at once, again and again.",
)
t.user("Analyse the competition for our pricing page")
FETCH = {"url": "https://competitor.test/pricing"}
idx = [
    t.call(
        "fetch_website_content",
        FETCH,
        error="HTTPStatusError: 429 Too Many Requests",
        kind="rate_limit",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f3-strix-repeats-literal",
    "monologue",
    True,
    gh("usestrix/strix", "issues", 162),
    "Asked for a concise version, the agent repeats the same literal text over and over.",
)
t.user("Give me a concise version of those instructions, and don't go on forever.")
LIT = (
    "To fix the SSRF risk, validate the callback URL against an allowlist of hosts before "
    "making the request, and reject private IP ranges."
)
idx = [t.msg(LIT) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f3-autogen-auto-reply-thanks",
    "monologue",
    True,
    gh("microsoft/autogen", "issues", 254),
    "The code is done; the auto-reply exchange goes on with thank-you messages and no work.",
)
t.user("Write me a python script that prints the 10 largest files in a directory")
t.call("execute_code", {"code": "import os\n..."}, "exitcode: 0 (execution succeeded)")
idx = [
    t.msg(m)
    for m in [
        "You're welcome! If you have any other questions, feel free to ask. TERMINATE",
        "Thank you! If you need anything else, feel free to ask. TERMINATE",
        "You're welcome! If you have any other questions, feel free to ask. TERMINATE",
        "Thank you! If you need anything else, feel free to ask. TERMINATE",
        "You're welcome! If you have any other questions, feel free to ask. TERMINATE",
        "Thank you! If you need anything else, feel free to ask. TERMINATE",
    ]
]
t.mark(idx[2], idx[3], period=2)

t = new(
    "f3-fak-same-wall-next-session",
    "known_failure",
    True,
    gh("anthony-chaudhary/fak", "issues", 2132),
    "A fresh session walks into the refusal the previous session hit, with nothing changed.",
)
t.user("Land the resume watchdog change")
t.call("bash", {"command": "git status --short"}, " M internal/resume.go")
OFF = "guard: OFF_TRUNK: push to main refused; open a pull request from a lane branch"
t.call("bash", {"command": "git push origin HEAD:main"}, error=OFF, kind="permission")
t.session("s2")
t.user("Land the resume watchdog change")
t.call("bash", {"command": "git log --oneline -1"}, "3f2a9c1 resume: watchdog on stalled runs")
rep = t.call("bash", {"command": "git push origin HEAD:main"}, error=OFF, kind="permission")
t.mark(rep, rep - 1)

t = new(
    "f3-swarm-retry-same-exit",
    "known_failure",
    True,
    gh("division-sh/swarm", "issues", 1780),
    "A failed agent turn is retried as a new delivery; it runs the same failing step again.",
)
t.user("Handle event order.created 8812")
EXIT1 = "claude cli run failed: exit status 1 (invalid settings file .claude/settings.json)"
t.call(
    "run_agent",
    {"agent": "fulfilment", "event": "order.created:8812"},
    error=EXIT1,
    kind="exit_code",
)
t.session("s2")
t.user("Handle event order.created 8812")
rep = t.call(
    "run_agent",
    {"agent": "fulfilment", "event": "order.created:8812"},
    error=EXIT1,
    kind="exit_code",
)
t.mark(rep, rep - 1)

# ---- fresh3 legitimate

t = new(
    "f3-fastclaw-progressing-poll",
    "polling",
    False,
    gh("fastclaw-ai/fastclaw", "pull", 80),
    "The same status call with the same arguments; the progress moves every time.",
)
t.user("Export the analytics workspace and tell me when it's ready")
t.call("start_export", {"workspace": "analytics"}, {"export_id": "exp-77"})
for pct in [5, 18, 31, 47, 63, 78, 92]:
    t.call("get_export_status", {"export_id": "exp-77"}, {"state": "running", "percent": pct})
t.call("get_export_status", {"export_id": "exp-77"}, {"state": "done", "url": "s3://exp-77.zip"})
t.msg("The export is ready at s3://exp-77.zip.")

t = new(
    "f3-weave-empty-stdin-polls",
    "polling",
    False,
    gh("weave-os/router", "pull", 1123),
    "A long build launched once, then five identical empty write_stdin polls while it runs, "
    "then its output.",
)
t.user("Build the release binary")
t.call(
    "exec_command",
    {"cmd": "cargo build --release", "yield_time_ms": 10000},
    {"session_id": 7, "output": "   Compiling proc-macro2 v1.0.86"},
)
for _ in range(5):
    t.call("write_stdin", {"session_id": 7, "chars": "", "yield_time_ms": 30000}, {"output": ""})
t.call(
    "write_stdin",
    {"session_id": 7, "chars": "", "yield_time_ms": 30000},
    {"output": "    Finished `release` profile [optimized] target(s) in 3m 12s", "exit_code": 0},
)
t.msg("The release binary is built.")

t = new(
    "f3-pilo-next-month",
    "polling",
    False,
    gh("mozilla/pilo", "issues", 640),
    "A date picker's 'next month' button pressed six times; the page changes each time.",
)
t.user("Book the first free Saturday in September")
t.call("goto", {"url": "https://booking.test/calendar"}, "Calendar: March 2027 (no free days)")
for m in ["April", "May", "June", "July", "August", "September"]:
    t.call("click", {"role": "button", "name": "Next month"}, f"Calendar: {m} 2027 (3 free days)")
t.call("click", {"role": "gridcell", "name": "4 September 2027"}, "Selected 4 September 2027")
t.msg("Booked Saturday 4 September.")

t = new(
    "f3-opencrabs-paged-search",
    "distinct_reads",
    False,
    gh("adolfousier/opencrabs", "pull", 1557),
    "Sequential pagination: the same search, page 1 to 8, each page new results.",
)
t.user("List every open issue labelled 'flaky'")
for p in range(1, 9):
    t.call(
        "github_search_issues",
        {"q": "is:open label:flaky", "page": p, "per_page": 30},
        {"items": [f"#{1000 + 30 * p + k}" for k in range(3)], "page": p},
    )
t.msg("There are 236 open flaky issues; the list is in flaky.md.")

t = new(
    "f3-mcpjam-cursor-pages",
    "distinct_reads",
    False,
    gh("MCPJam/inspector", "pull", 4462),
    "tools/list followed through its cursors, an empty-string cursor included, to the end.",
)
t.user("Which tools does the Jira MCP server expose?")
cursors = [None, "", "b64:MjA=", "b64:NDA=", "b64:NjA="]
for k, c in enumerate(cursors):
    nxt = cursors[k + 1] if k + 1 < len(cursors) else None
    args = {"method": "tools/list"} if c is None else {"method": "tools/list", "cursor": c}
    t.call(
        "mcp_request",
        args,
        {"tools": [f"jira_tool_{20 * k + j}" for j in range(3)], "nextCursor": nxt},
    )
t.msg("The server exposes 94 tools.")

t = new(
    "f3-nanobot-history-paging",
    "distinct_reads",
    False,
    gh("HKUDS/nanobot", "pull", 3077) | {"case": "reading the history in windows"},
    "history.jsonl read in windows of 50 lines, a different offset each time.",
)
t.user("Summarise everything I asked you this week")
for off in [1, 51, 101, 151, 201]:
    t.call(
        "read_file",
        {"path": "~/.nanobot/workspace/memory/history.jsonl", "limit": 50, "offset": off},
        f'{{"line": {off}, "role": "user", "text": "..."}}\n... ({off + 49})',
    )
t.msg("You asked about 14 things this week; three reminders are still open.")

t = new(
    "f3-docker-agent-all-chunks",
    "distinct_reads",
    False,
    gh("docker/docker-agent", "pull", 2123) | {"case": "expected behaviour"},
    "Twelve diff chunks read once each, then the draft written.",
)
t.user("Draft the release notes from the diff chunks in /tmp")
for k in range(1, 13):
    t.call(
        "read_file",
        {"path": f"/tmp/drafter_chunk_{k}.diff"},
        f"diff --git a/pkg/m{k}.go b/pkg/m{k}.go\n+func New{k}() {{}}",
    )
t.call(
    "write_file", {"path": "RELEASE_NOTES.md", "content": "## v2.3\n..."}, "written", mutates=True
)

t = new(
    "f3-omc-readonly-gh-commands",
    "distinct_reads",
    False,
    gh("baekenough/oh-my-customcode", "issues", 1641),
    "Eight different read-only Bash commands in a row (gh, grep, pipes, $(...), a for loop).",
)
t.user("Why did CI fail on PR 88?")
for cmd, out in [
    (
        "gh pr view 88 --json statusCheckRollup -q '.statusCheckRollup[].conclusion'",
        "SUCCESS\nFAILURE",
    ),
    ("gh run list --branch feat/hooks --limit 3", "completed failure CI 19873\n..."),
    (
        'run_id=$(gh run list --branch feat/hooks -L1 --json databaseId -q ".[0].databaseId"); '
        'echo "run=$run_id"',
        "run=19873",
    ),
    (
        "gh run view 19873 --log-failed 2>&1 | grep -iE 'error|fail' | head -20",
        "npm audit: 1 high severity vulnerability",
    ),
    ("gh run view 19873 --json jobs -q '.jobs[].name'", "lint\ntest\naudit"),
    (
        "for j in lint test audit; do gh run view 19873 --job $j --json conclusion; done",
        '{"conclusion":"success"}\n{"conclusion":"success"}\n{"conclusion":"failure"}',
    ),
    ("grep -n 'audit' .github/workflows/ci.yml", "41:      - run: npm audit --audit-level=high"),
    ("cat package-lock.json | grep -n '\"semver\"' | head -3", '1022:    "semver": "5.7.1"'),
]:
    t.call("Bash", {"command": cmd}, out)
t.msg("CI fails on npm audit: semver 5.7.1 has a high-severity advisory.")

t = new(
    "f3-pepper-research-reads",
    "research",
    False,
    gh("skwallace36/Pepper", "issues", 49),
    "Legitimate exploration: fifteen read-only calls (greps with results, globs, reads).",
)
t.user("How does the simulator bridge dispatch touch events?")
t.call("Glob", {"pattern": "Sources/**/*Touch*.swift"}, "Sources/Bridge/TouchDispatcher.swift")
t.call("Read", {"file_path": "Sources/Bridge/TouchDispatcher.swift"}, "final class TouchDisp...")
for sym in ["dispatch(", "HIDEvent", "injectTouch", "TouchPhase", "coalesce"]:
    t.call("Grep", {"pattern": sym, "path": "Sources"}, f"Sources/Bridge/X.swift:12: {sym}...")
for f in ["HIDEventBuilder", "TouchPhase", "EventCoalescer", "BridgeServer", "SimDevice"]:
    t.call("Read", {"file_path": f"Sources/Bridge/{f}.swift"}, f"struct {f} {{ ... }}")
t.call("Glob", {"pattern": "Tests/**/*Touch*Tests.swift"}, "Tests/BridgeTests/TouchTests.swift")
t.call("Read", {"file_path": "Tests/BridgeTests/TouchTests.swift"}, "func testTap() {...}")
t.msg("Touches go BridgeServer -> TouchDispatcher -> HIDEventBuilder, coalesced per frame.")

t = new(
    "f3-codepatchbay-same-cmd-cwds",
    "distinct_reads",
    False,
    gh("changw98ic/codepatchbay", "issues", 16),
    "The same test command in five package directories; two print the same 'no tests' line.",
)
t.user("Run the tests of every package in the monorepo")
for pkg, out in [
    ("packages/core", "Tests: 41 passed, 41 total"),
    ("packages/cli", "Tests: 12 passed, 12 total"),
    ("packages/docs", "No tests found, exiting with code 0"),
    ("packages/bridge", "Tests: 9 passed, 9 total"),
    ("packages/types", "No tests found, exiting with code 0"),
]:
    t.call("shell", {"command": "npx jest --passWithNoTests", "cwd": pkg}, out)
t.msg("All packages pass; docs and types have no tests.")

t = new(
    "f3-autocontrol-distinct-clicks",
    "distinct_reads",
    False,
    {
        "url": "https://github.com/Integration-Automation/AutoControlGUI/pull/254",
        "case": "distinct-args not-repeat",
    },
    "Filling a form: a click and a screenshot per field, the screen different each time.",
)
t.user("Fill in the shipping form")
for k, (x, y, field) in enumerate(
    [(300, 200, "name"), (300, 240, "street"), (300, 280, "city"), (300, 320, "zip")]
):
    t.call("click", {"x": x, "y": y, "button": "left"}, "clicked")
    t.call("type_text", {"text": f"<{field}>"}, "typed")
    t.call("screenshot", {}, {"digest": f"a0{k}e7", "title": f"Shipping ({k + 1}/4 filled)"})
t.call("click", {"x": 520, "y": 400, "button": "left"}, "clicked")
t.call("screenshot", {}, {"digest": "ff0931", "title": "Order confirmed"})

t = new(
    "f3-traceroost-rerun-after-edits",
    "edit_test_cycle",
    False,
    gh("traceroost/core", "pull", 215) | {"case": "exact_tool_repeat resets on an edit"},
    "The same test run after each of three edits; the first two fixes do not change the "
    "failure, the third does.",
)
t.user("Fix the flaky-looking timezone test")
TZ = {"command": "npx vitest run tests/tz.test.ts"}
TZ_ERR = "FAIL tests/tz.test.ts > renders local time: expected '09:00' got '08:00'"
t.call("bash", TZ, error=TZ_ERR, kind="exit_code")
t.call(
    "edit_file",
    {"path": "src/tz.ts", "old": "getHours()", "new": "getUTCHours()"},
    "edited",
    mutates=True,
)
t.call("bash", TZ, error=TZ_ERR, kind="exit_code")
t.call(
    "edit_file",
    {"path": "tests/tz.test.ts", "old": "'UTC'", "new": "'Europe/Paris'"},
    "edited",
    mutates=True,
)
t.call("bash", TZ, error=TZ_ERR, kind="exit_code")
t.call("read_file", {"path": "vitest.config.ts"}, "export default { test: { env: { TZ: 'UTC' } } }")
t.call(
    "edit_file",
    {"path": "vitest.config.ts", "old": "TZ: 'UTC'", "new": "TZ: 'Europe/Paris'"},
    "edited",
    mutates=True,
)
t.call("bash", TZ, "Test Files 1 passed (1)")

t = new(
    "f3-validator-validate-fix-loop",
    "edit_test_cycle",
    False,
    gh("Codagent-AI/agent-validator", "pull", 56),
    "Validate, fix, re-validate, push, wait for CI: many blocks across different phases.",
)
t.user("Finish the feature and get CI green")
VAL = {"command": "agent-validate run"}
t.call("bash", VAL, error="2 gates failed: lint (3 errors), types (1 error)", kind="exit_code")
t.call(
    "edit_file",
    {"path": "src/hook.ts", "old": "let x = 1", "new": "const x = 1"},
    "edited",
    mutates=True,
)
t.call("bash", VAL, error="1 gate failed: types (1 error)", kind="exit_code")
t.call(
    "edit_file", {"path": "src/hook.ts", "old": "(e)", "new": "(e: Error)"}, "edited", mutates=True
)
t.call("bash", VAL, "all gates passed")
t.call(
    "bash",
    {"command": "git commit -am 'hook: loop detection'"},
    "[feat 9a1b2c3] hook",
    mutates=True,
)
t.call("bash", {"command": "git push -u origin feat"}, "branch 'feat' set up to track")
for st in ["queued", "in_progress", "in_progress", "in_progress", "completed/success"]:
    t.call("bash", {"command": "gh pr checks --watch=false"}, f"ci\t{st}")
t.msg("CI is green.")

t = new(
    "f3-pydantic-modelretry-fixed-args",
    "edit_test_cycle",
    False,
    gh("pydantic/pydantic-ai", "issues", 2927),
    "A tool asks for a retry with a hint; the model fixes its arguments and the call succeeds.",
)
t.user("How many bookings do we have on 3 March?")
t.call(
    "count_bookings",
    {"date": "03/03/2026"},
    error="ModelRetry: date must be YYYY-MM-DD",
    kind="invalid_args",
)
t.call("count_bookings", {"date": "2026-03-03"}, {"count": 42})
t.msg("42 bookings on 3 March.")

t = new(
    "f3-pydantic-429-then-ok",
    "retry_transient",
    False,
    gh("pydantic/pydantic-ai", "issues", 928) | {"case": "retry inside the tool works"},
    "Two 429s with back-off, then the same request succeeds; a 503 once later, then success.",
)
t.user("Analyse the competition for our pricing page")
FETCH = {"url": "https://competitor.test/pricing"}
t.call("fetch_website_content", FETCH, error="429 Too Many Requests", kind="rate_limit")
t.call("fetch_website_content", FETCH, error="429 Too Many Requests", kind="rate_limit")
t.call("fetch_website_content", FETCH, "Pro: $29/mo, Team: $79/mo")
F2 = {"url": "https://competitor2.test/pricing"}
t.call("fetch_website_content", F2, error="503 Service Unavailable", kind="server_error")
t.call("fetch_website_content", F2, "Basic: $19/mo, Business: $99/mo")
t.call("analyze_competition", {"prices": [29, 79, 19, 99]}, "median $54")

t = new(
    "f3-swarm-transient-then-new-session",
    "session_memory",
    False,
    gh("division-sh/swarm", "issues", 1780) | {"case": "a clean retry after a transient failure"},
    "A turn fails on a transient network error; the retried delivery, a new session, succeeds.",
)
t.user("Handle event order.created 8813")
t.call(
    "run_agent",
    {"agent": "fulfilment", "event": "order.created:8813"},
    error="connection reset by peer (api.anthropic.com)",
    kind="network",
)
t.session("s2")
t.user("Handle event order.created 8813")
t.call("run_agent", {"agent": "fulfilment", "event": "order.created:8813"}, "shipped 8813")

t = new(
    "f3-fak-clean-after-fix",
    "session_memory",
    False,
    gh("anthony-chaudhary/fak", "issues", 2132) | {"case": "a clean prior session"},
    "A push refused in one session; a lane branch is created, and the next session's push of "
    "that branch goes through; then a PR.",
)
t.user("Land the resume watchdog change")
t.call("bash", {"command": "git push origin HEAD:main"}, error=OFF, kind="permission")
t.call(
    "bash",
    {"command": "git switch -c lane/resume-watchdog"},
    "Switched to a new branch",
    mutates=True,
)
t.session("s2")
t.user("Open the PR for the resume watchdog")
t.call("bash", {"command": "git push -u origin lane/resume-watchdog"}, "branch set up to track")
t.call("bash", {"command": "gh pr create --fill"}, "https://git.test/fak/pull/2140")

t = new(
    "f3-thoughtcoding-user-asks-again",
    "conversation",
    False,
    gh("zengxinyueooo/ThoughtCoding", "issues", 33) | {"case": "cross-turn retry by the user"},
    "The user asks to look it up again, twice; the same query each time, answered each time.",
)
t.user("查一下北京现在的天气")
W = {"city": "北京"}
t.call("get_weather", W, {"city": "北京", "temp_c": 3, "sky": "晴"})
t.msg("北京现在 3°C，晴。")  # noqa: RUF001
t.user("再查一次")
t.call("get_weather", W, {"city": "北京", "temp_c": 3, "sky": "晴"})
t.msg("还是 3°C，晴。")  # noqa: RUF001
t.user("再查一次，我要出门了")  # noqa: RUF001
t.call("get_weather", W, {"city": "北京", "temp_c": 3, "sky": "晴"})
t.msg("依然 3°C，晴，出门注意保暖。")  # noqa: RUF001

t = new(
    "f3-deepcode-toolless-planning",
    "conversation",
    False,
    gh("HKUDS/DeepCode", "pull", 177),
    "Several tool-less iterations of planning, each a different step, then the work starts.",
)
t.user("Reproduce the paper's training loop in code")
for m in [
    "The paper trains with AdamW, a cosine schedule and 500 warm-up steps.",
    "Section 3.2 says gradients are clipped at 1.0 and the batch is 256 sequences.",
    "The evaluation runs every 2k steps on the held-out split, reporting perplexity.",
    "So the code needs a config module, a trainer and an eval hook, in that order.",
    "I'll write the config first, since the trainer reads every value from it.",
]:
    t.msg(m)
t.call(
    "write_file", {"path": "train/config.py", "content": "LR = 3e-4\n..."}, "written", mutates=True
)
t.call(
    "write_file",
    {"path": "train/trainer.py", "content": "class Trainer: ..."},
    "written",
    mutates=True,
)

t = new(
    "f3-gigachat-todos-progress",
    "conversation",
    False,
    gh("ai-forever/langchain-gigachat", "pull", 69) | {"case": "below the limit: kept"},
    "write_todos after each step, the list changing each time, work in between.",
)
t.user("Plan and do the migration of the billing service")
todo = ["read billing config", "port queue consumer", "update docs"]
t.call("write_todos", {"todos": [{"t": x, "done": False} for x in todo]}, "Updated todo list")
for k, x in enumerate(todo):
    t.call("read_file", {"path": f"billing/step{k}.md"}, f"notes for {x}")
    t.call(
        "write_todos",
        {"todos": [{"t": y, "done": j <= k} for j, y in enumerate(todo)]},
        "Updated todo list",
    )
t.msg("Migration done; all three steps are checked off.")

t = new(
    "f3-ai-answers-one-reformulation",
    "research",
    False,
    gh("cds-snc/ai-answers", "issues", 939),
    "A search with no results, one reformulated search that finds the page, then the answer.",
)
t.user("What is BOREALIS?")
t.call("web_search", {"query": "BOREALIS"}, "No results found.")
t.call(
    "web_search",
    {"query": "BOREALIS Bureau of Research Engineering site:canada.ca"},
    [
        {
            "title": "Bureau of Research, Engineering and Advanced Leadership in Innovation and "
            "Science",
            "url": "https://www.canada.ca/en/borealis.html",
        }
    ],
)
t.call("fetch_page", {"url": "https://www.canada.ca/en/borealis.html"}, "BOREALIS is ...")
t.msg("BOREALIS is the new Bureau of Research, Engineering and Advanced Leadership ...")


def long_git_status_session(tid: str, seed: int) -> None:
    """A long coding session with `git status` between edits and a commit every five files."""
    rng = random.Random(seed)
    t = new(
        tid,
        "long_productive",
        False,
        gh("traceroost/core", "pull", 215) | {"case": "re-running verification after each fix"},
        "A 150-call refactor: read, edit, git status, tests after each file, a commit every "
        "five files (so `git status` comes back clean, the same answer, after each commit).",
    )
    t.user("Port every module to the new logger")
    modified: list[str] = []
    passed = 120
    for k in range(30):
        f = f"src/mod_{k:02d}.py"
        t.call("read_file", {"path": f}, f"import logging\nlog = logging.getLogger({k})\n")
        t.call(
            "edit_file",
            {"path": f, "old": "import logging", "new": "from app.log import logger"},
            "edited",
            mutates=True,
        )
        modified.append(f)
        t.call(
            "bash",
            {"command": "git status --short"},
            "\n".join(f" M {m}" for m in modified),
        )
        passed += rng.randint(0, 2)
        t.call("bash", {"command": "pytest -q"}, f"{passed} passed in {rng.uniform(3, 6):.2f}s")
        if k % 5 == 4:
            t.call(
                "bash",
                {"command": f"git commit -qam 'logger: modules {k - 4}-{k}'"},
                "",
                mutates=True,
            )
            modified = []
            t.call("bash", {"command": "git status --short"}, "")
    t.msg("All 30 modules use the new logger; tests pass.")


long_git_status_session("f3-long-git-status-between-edits", 33)


# ================================================================ fresh4 set
# Written at 19:50 UTC from sources no earlier split uses (ai4s-research/open-science,
# CodexPlusPlus, Open Interpreter, Semantic Kernel, alibaba/page-agent, openclaw-memory-
# libravdb, google/adk-python, hamc/blastproof, getmaxun/maxun, osaurus, BrowserOS,
# github/copilot-cli, dyad, openai-agents-js, QwenPaw, openchrome, oh-my-hermes, deja-vu,
# oh-my-pi, LocalAI, noetic, cleverer-dsh, continue, renfield, sinas, anarlog, critique.sh and
# aitoolsguidebook pages, mini-swe-agent's published SWE-bench trajectories ...), committed
# before crs was run on them. Split "fresh4".

FRESH4_START = len(ALL)

SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
SYMPY_PY = "python -c \"from sympy import *; x,y=symbols('x y'); "
MINI_SWE = {
    "repo": "gruckion/mini-swe-agent",
    "path": "swebench_results/20251118_gemini-3-pro-74pct/trajs",
}
CRITIQUE = {"url": "https://www.critique.sh/blog/cursor-ai-dead-loop-tdd-sandbox"}
GUIDEBOOK = {"url": "https://aitoolsguidebook.com/en/articles/agent-loops-without-progress/"}

# ---- fresh4 loops

t = new(
    "f4-open-science-same-grep-after-told",
    "repeated_call",
    True,
    gh("ai4s-research/open-science", "issues", 121),
    "A schema error is investigated; the same grep comes back identical again and again, "
    "and the agent repeats it even after the user points the repetition out.",
)
t.user("The export fails with 'schema_version missing'; find out why")
t.call("read_file", {"path": "src/export/schema.ts"}, "export const SCHEMA = { version: 3 }")
GREP_SV = {"command": 'grep -rn "schema_version" src/export'}
GREP_OUT = "src/export/writer.ts:41:  // TODO schema_version"
o = repeat_block(t, [{"tool": "bash", "args": GREP_SV, "result": GREP_OUT}], 4)
t.user("You keep running the same grep. Try something else.")
t.msg("You're right, let me look more carefully.")
repeat_block(t, [{"tool": "bash", "args": GREP_SV, "result": GREP_OUT}], 3)
mark_cycle(t, o)

t = new(
    "f4-codexpp-shell-every-round",
    "repeated_call",
    True,
    gh("BigPizzaV3/CodexPlusPlus", "issues", 1748),
    "The tool result never reaches the next request, so every round the model says it will "
    "open the app (its text beside the call) and calls the same shell command again.",
)
t.user("打开微信")
idx = [
    t.call(
        "shell_command",
        {"command": "open -a WeChat"},
        {"exit_code": 0, "stdout": ""},
        thought="我来打开微信。",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f4-oi-pwd-still",
    "repeated_call",
    True,
    gh("openinterpreter/openinterpreter", "issues", 536),
    "Asked for pwd, the interpreter runs it forever, saying the directory 'is' and then "
    "'is still' the same.",
)
t.user("pwd")
occ = []
for k in range(6):
    c = t.call("execute", {"language": "shell", "code": "pwd"}, "/Users/jonny/projects")
    still = "" if k % 2 == 0 else "still "
    m = t.msg(f"The current working directory is {still}/Users/jonny/projects.")
    occ.append([c, m])
t.mark(occ[1][0], occ[1][0])

t = new(
    "f4-sk-same-kernel-function",
    "repeated_call",
    True,
    gh("microsoft/semantic-kernel", "issues", 6554),
    "A kernel function registered and also invoked directly: the model calls it again with "
    "the same arguments after every result.",
)
t.user("Summarise this week's telemetry for the checkout service")
SK_ARGS = {"service": "checkout", "window": "7d"}
SK_RES = {"p95_ms": 412, "errors": 37, "requests": 1204311}
o = repeat_block(
    t,
    [{"tool": "TelemetryPlugin-GetSummary", "args": SK_ARGS, "result": SK_RES}],
    6,
)
mark_cycle(t, o)

t = new(
    "f4-page-agent-same-click",
    "repeated_call",
    True,
    gh("alibaba/page-agent", "pull", 392),
    "The same click on the same element, four times and more; the form silently does not submit.",
)
t.user("Submit the contact form with my details")
t.call("input_text", {"index": 4, "text": "ana@example.test"}, "Typed into email field")
t.call("input_text", {"index": 5, "text": "Please call me back"}, "Typed into message field")
o = repeat_block(
    t,
    [
        {
            "tool": "click_element_by_index",
            "args": {"index": 12},
            "result": "Clicked button 'Send message'",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "f4-libravdb-memory-search-every-reply",
    "repeated_call",
    True,
    gh("xDarkicex/openclaw-memory-libravdb", "pull", 279),
    "A 'mandatory fresh' memory_search: the agent calls it again before every reply, the same "
    "query and the same hits.",
)
t.user("What did I say my sister's name was?")
MEM = {"query": "user's sister name"}
MEM_RES = [{"text": "User's sister is called Ilse", "score": 0.91}]
o = repeat_block(t, [{"tool": "memory_search", "args": MEM, "result": MEM_RES}], 6)
mark_cycle(t, o)

t = new(
    "f4-adk-forced-tool-mode",
    "repeated_call",
    True,
    gh("google/adk-python", "issues", 4179),
    "Tool choice forced to ANY: the sub-agent can only answer by calling its tool, so it "
    "calls it again and again with the same query.",
)
t.user("Which warehouse ships order 5521?")
ADK = {"query": "order 5521 warehouse"}
ADK_RES = {"rows": [{"order": 5521, "warehouse": "Leipzig-2"}]}
o = repeat_block(t, [{"tool": "external_search_tool", "args": ADK, "result": ADK_RES}], 7)
mark_cycle(t, o)

t = new(
    "f4-hermes-first-window-again",
    "repeated_call",
    True,
    gh("rlaope/oh-my-hermes", "pull", 1735),
    "The model needs a line past the first window of a big file and re-reads the first "
    "window: three full results, then 'unchanged' stubs.",
)
t.user("Change workflow_skill in src/skills/render.py to accept a timeout")
RENDER = {"path": "src/skills/render.py"}
FIRST_WIN = {
    "content": "1: import os\n2: ...\n1666: def _render_block(b):",
    "truncated": True,
    "next_offset": 1667,
}
o = repeat_block(t, [{"tool": "read_file", "args": RENDER, "result": FIRST_WIN}], 3)
STUB = {"status": "unchanged", "note": "file unchanged since your last read"}
repeat_block(t, [{"tool": "read_file", "args": RENDER, "result": STUB}], 3)
mark_cycle(t, o)

# cycles

t = new(
    "f4-blastproof-create-again",
    "cycle",
    True,
    gh("hamc/blastproof", "issues", 28),
    "The click works but the self-written assertion describes the form, so it fails; the "
    "agent goes back to the form and submits it again (each submit creates a record).",
)
t.user("Step: click the button that creates the issue")
t.call("navigate", {"url": "http://gitea.test/acme/app/issues/new"}, "New Issue form")
t.call("fill", {"label": "Title", "value": "Login fails"}, "ok: filled Title")
block = [
    {
        "tool": "click",
        "args": {"role": "button", "name": "Create Issue"},
        "result": 'ok: clicked role=button name="Create Issue"',
        "mutates": True,
    },
    {
        "tool": "assert",
        "args": {"expect": "a form or dialog for creating a new issue"},
        "error": "assertion failed: the page shows an existing issue, not a creation form",
        "kind": "exit_code",
    },
    {
        "tool": "click",
        "args": {"role": "button", "name": "New Issue"},
        "result": 'ok: clicked role=button name="New Issue"',
    },
]
o = repeat_block(t, block, 4)
mark_cycle(t, o)

t = new(
    "f4-critique-edit-test-revert",
    "cycle",
    True,
    CRITIQUE | {"case": "edits the assertion, reverts, re-applies the same patch"},
    "Edit the assertion, run the test (same failure), revert; the same three steps again.",
)
t.user("Fix the failing cart total test")
t.call("bash", {"command": "npm test -- cart"}, error="expected 42.5 to be 42.50", kind="exit_code")
block = [
    {
        "tool": "edit_file",
        "args": {"path": "test/cart.test.ts", "old": "toBe(42.50)", "new": "toBeCloseTo(42.5)"},
        "result": "edited",
        "mutates": True,
    },
    {
        "tool": "bash",
        "args": {"command": "npm test -- cart"},
        "error": "FAIL test/cart.test.ts > total: expected '42.5' to be '42.50' (string)",
        "kind": "exit_code",
    },
    {
        "tool": "bash",
        "args": {"command": "git checkout -- test/cart.test.ts"},
        "result": "Updated 1 path from the index",
        "mutates": True,
    },
]
o = repeat_block(t, block, 4)
mark_cycle(t, o)

t = new(
    "f4-maxun-next-page-stuck",
    "cycle",
    True,
    gh("getmaxun/maxun", "pull", 1118) | {"case": "no page progress"},
    "Click 'Next', extract the list: the page does not change, the same rows come back, and "
    "the agent clicks 'Next' again.",
)
t.user("Collect every product name from the catalogue")
t.call("navigate", {"url": "https://shop.test/catalogue"}, "Catalogue, page 1 of 9")
ROWS = ["Walnut desk", "Oak shelf", "Pine stool"]
t.call("extract", {"selector": ".product h3"}, ROWS)
block = [
    {"tool": "click", "args": {"selector": "a.next"}, "result": "clicked a.next"},
    {"tool": "extract", "args": {"selector": ".product h3"}, "result": ROWS},
]
o = repeat_block(t, block, 5)
t.mark(o[0][1], o[1][0], period=2)  # the cycle is [extract, click], from the first extract

t = new(
    "f4-osaurus-alternating-invalid-args",
    "cycle",
    True,
    gh("osaurus-ai/osaurus", "issues", 2350),
    "Two wrong argument shapes, each rejected the same way, tried in alternation.",
)
t.user("is it html or what")
block = [
    {
        "tool": "run_task",
        "args": {"path": "/tmp/out/program", "task": "inspect"},
        "error": "Unexpected property `path`. Allowed: content, contents, max_steps, task",
        "kind": "invalid_args",
    },
    {
        "tool": "run_task",
        "args": {"contents": "/tmp/out/program", "task": "inspect"},
        "error": "Property 'contents' must be an object",
        "kind": "invalid_args",
    },
]
o = repeat_block(t, block, 4)
mark_cycle(t, o)

# error loops

t = new(
    "f4-oi-same-failing-code",
    "error_loop",
    True,
    gh("openinterpreter/openinterpreter", "issues", 221),
    "The code fails and the interpreter runs the very same code again and again.",
)
t.user("Resize every image in ~/Pictures/trip to 1024px wide")
OI_CODE = {
    "language": "python",
    "code": "from PIL import Image\nimport glob\nfor p in glob.glob('~/Pictures/trip/*.jpg'):\n"
    "    Image.open(p).resize((1024, 768)).save(p)",
}
o = repeat_block(
    t,
    [
        {
            "tool": "execute",
            "args": OI_CODE,
            "error": "ModuleNotFoundError: No module named 'PIL'",
            "kind": "exit_code",
        }
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "f4-browseros-429-past-budget",
    "error_loop",
    True,
    gh("browseros-ai/BrowserOS", "issues", 762),
    "A page fetch rate-limited over and over with no back-off: 429 after 429.",
)
t.user("Summarise the top stories on the news site")
NEWS = {"url": "https://news.test/top"}
idx = [
    t.call("fetch_page", NEWS, error="HTTP 429: Too Many Requests", kind="rate_limit")
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f4-copilot-cli-429-then-timeouts",
    "error_loop",
    True,
    gh("github/copilot-cli", "issues", 2760),
    "A 429 with a long Retry-After; the client's timeout turns the wait into a transport "
    "failure and it retries at once: 429, timeout, 429, timeout ...",
)
t.user("Review the open pull request")
PRQ = {"url": "https://api.github.test/repos/acme/app/pulls/88/files"}
idx = []
for k in range(8):
    if k % 2 == 0:
        idx.append(
            t.call(
                "http_get",
                PRQ,
                error="429 Too Many Requests (Retry-After: 312)",
                kind="rate_limit",
            )
        )
    else:
        idx.append(t.call("http_get", PRQ, error="request timed out after 30s", kind="timeout"))
t.mark(idx[1], idx[2])

t = new(
    "f4-dyad-rerun-without-change",
    "error_loop",
    True,
    gh("dyad-sh/dyad", "pull", 3866) | {"case": "no-change rerun guard"},
    "run_tests fails; a dependency install fails too (nothing changed); run_tests again, the "
    "same failure; and again.",
)
t.user("Make the test suite pass")
RT_ERR = "1 failed: src/date.test.ts > formats ISO week (Cannot find module 'date-fns')"
a = t.call("run_tests", {}, error=RT_ERR, kind="exit_code")
t.call(
    "add_dependency",
    {"packages": ["date-fns@^9"]},
    error="npm ERR! notarget No matching version found for date-fns@^9",
    kind="not_found",
)
b = t.call("run_tests", {}, error=RT_ERR, kind="exit_code")
for _ in range(3):
    t.call("run_tests", {}, error=RT_ERR, kind="exit_code")
t.mark(b, b)

# no progress (reworded / re-parameterised, same result)

t = new(
    "f4-agents-js-refetch-candidates",
    "no_progress",
    True,
    gh("openai/openai-agents-js", "issues", 512),
    "No candidate is a documentation page, so the agent re-calls the search tool with small "
    "variations of the query; the same five results each time.",
)
t.user("Find the API documentation page of acme-payments.test")
CANDS = [
    {"url": "https://acme-payments.test/", "title": "Acme Payments"},
    {"url": "https://acme-payments.test/pricing", "title": "Pricing"},
    {"url": "https://acme-payments.test/blog", "title": "Blog"},
    {"url": "https://acme-payments.test/careers", "title": "Careers"},
    {"url": "https://acme-payments.test/contact", "title": "Contact"},
]
idx = [
    t.call("top_google_results", {"site": "acme-payments.test", "query": q}, CANDS)
    for q in [
        "acme payments api documentation",
        "acme payments API docs",
        "acme-payments api reference documentation",
        "acme payments developer documentation api",
        "api documentation acme payments",
        "acme payments docs api reference",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f4-qwenpaw-memory-search-rounds",
    "no_progress",
    True,
    gh("agentscope-ai/QwenPaw", "issues", 6113),
    "Every question starts an endless round of memory searches, reworded each time, all "
    "returning nothing.",
)
t.user("帮我把这周的周报整理一下")
idx = [
    t.call("memory_search", {"query": q}, {"results": []})
    for q in [
        "周报",
        "本周 周报",
        "这周的工作总结",
        "weekly report this week",
        "周报 模板",
        "本周工作 周报 整理",
        "上周 周报",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f4-openchrome-volatile-request-id",
    "no_progress",
    True,
    gh("shaun0927/openchrome", "pull", 1091),
    "The same page read again and again; only a volatile request id and timestamp in the "
    "arguments differ, the page text is the same.",
)
t.user("Is the order confirmation showing yet?")
PAGE = "Checkout - Step 3 of 3 - Review your order - [Place order]"
idx = []
for k in range(6):
    idx.append(
        t.call(
            "read_page",
            {
                "tabId": 7,
                "requestId": f"req-{9137 + 17 * k:05d}",
                "ts": 1767265200123 + 4211 * k,
            },
            PAGE,
        )
    )
t.mark(idx[1], idx[1])

# known failures (a later session, same workspace)

t = new(
    "f4-dejavu-command-not-found-next-session",
    "known_failure",
    True,
    gh("vshulcz/deja-vu", "pull", 1672),
    "One `command not found` hit session after session: the next session runs the same "
    "lint target in the same tree.",
)
t.user("Run the linters and fix what they report")
LINT_ERR = "make: golangci-lint: No such file or directory\nmake: *** [Makefile:31: lint] Error 127"
t.call("bash", {"command": "make lint"}, error=LINT_ERR, kind="not_found")
t.msg("golangci-lint is not installed here; I'll stop and report.")
t.session("s2")
t.user("Run the linters and fix what they report")
t.call("bash", {"command": "git status --short"}, "")
rep = t.call("bash", {"command": "make  lint"}, error=LINT_ERR, kind="not_found")
t.mark(rep, rep - 1)

t = new(
    "f4-critique-fresh-chat-same-build",
    "known_failure",
    True,
    CRITIQUE | {"case": "context rot: fresh Composer chat"},
    "The build fails; the user opens a fresh chat and the agent's first step is the same "
    "build on the untouched tree.",
)
t.user("Get the build green")
BUILD_ERR = "src/api/client.ts(88,14): error TS2339: Property 'retry' does not exist on type 'Opts'"
t.call("bash", {"command": "npm run build"}, error=BUILD_ERR, kind="exit_code")
t.call("read_file", {"path": "src/api/client.ts"}, "export interface Opts { timeout: number }")
t.session("s2")
t.user("Fresh start: the build is failing, please fix it")
rep = t.call("bash", {"command": "npm run build"}, error=BUILD_ERR, kind="exit_code")
t.mark(rep, rep - 1)

# monologues

t = new(
    "f4-oh-my-pi-ill-do-it",
    "monologue",
    True,
    gh("can1357/oh-my-pi", "issues", 8701),
    "After five reads and a plan, the output degenerates into short variants of 'I'll do it' "
    "with no tool call.",
)
t.user("Run the workflow in docs/workflow.md")
for k in range(5):
    t.call("read", {"path": f"docs/step{k + 1}.md"}, f"Step {k + 1}: ...")
t.msg("Plan: implement the parser, then the renderer, then wire both into the CLI.")
idx = [
    t.msg(m)
    for m in [
        "I'll do it. I'll implement it. I'll start.",
        "I'll begin coding. I'll write the code. I'll do it.",
        "I'll do it. I'll implement it. I'll start.",
        "I'll begin coding. I'll write the code. I'll do it.",
        "I'll do it. I'll implement it. I'll start.",
        "I'll begin coding. I'll write the code. I'll do it.",
    ]
]
t.mark(idx[2], idx[3], period=2)

t = new(
    "f4-localai-doing-well",
    "monologue",
    True,
    gh("mudler/LocalAI", "issues", 969),
    "A greeting answered with the same line over and over.",
)
t.user("How are you?")
idx = [t.msg("I am doing well, thank-you. How are you?") for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f4-osaurus-verbatim-answer",
    "monologue",
    True,
    gh("osaurus-ai/osaurus", "issues", 2350) | {"case": "verbatim loop after invalid_args"},
    "After two rejected calls the model stops calling tools and repeats the same two "
    "sentences until the token cap.",
)
t.user("is it html or what")
t.call(
    "run_task",
    {"path": "/tmp/out/program", "task": "inspect"},
    error="Unexpected property `path`. Allowed: content, contents, max_steps, task",
    kind="invalid_args",
)
t.msg("It is AppleScript. `use AppleScript version` and no extension were in the path I wrote.")
idx = [
    t.msg(m)
    for m in [
        "The answer is AppleScript; it begins with `use AppleScript version`.",
        "I do not generate or repeat the request.",
        "The answer is AppleScript; it begins with `use AppleScript version`.",
        "I do not generate or repeat the request.",
        "The answer is AppleScript; it begins with `use AppleScript version`.",
        "I do not generate or repeat the request.",
    ]
]
t.mark(idx[2], idx[3], period=2)

# ---- fresh4 legitimate

t = new(
    "f4-noetic-evolving-poll-with-sleep",
    "polling",
    False,
    gh("mattapperson/noetic", "pull", 74) | {"case": "evolving polling resets the streak"},
    "Sleep, check the job, sleep, check: the status moves on, sometimes staying the same for "
    "two checks.",
)
t.user("Re-index the search cluster and tell me when it's done")
t.call("start_reindex", {"cluster": "search-eu"}, {"job": "rx-204"})
for st in [
    "queued",
    "queued",
    "running: shard 1/4",
    "running: shard 1/4",
    "running: shard 2/4",
    "running: shard 3/4",
    "running: shard 3/4",
    "running: shard 4/4",
    "done: 48213771 documents",
]:
    t.call("bash", {"command": "sleep 20"}, "")
    t.call("check_job", {"job": "rx-204"}, {"status": st})
t.msg("The re-index finished: 48,213,771 documents.")

t = new(
    "f4-noetic-two-jobs-alternating",
    "polling",
    False,
    gh("mattapperson/noetic", "pull", 74) | {"case": "parallel pairing"},
    "Two exports polled in turn (a period-2 shape); each status changes between rounds.",
)
t.user("Export both regions and give me the links")
t.call("start_export", {"region": "eu"}, {"id": "ex-eu"})
t.call("start_export", {"region": "us"}, {"id": "ex-us"})
for eu, us in [(10, 4), (35, 12), (61, 30), (88, 52), (100, 77), (100, 100)]:
    t.call("export_status", {"id": "ex-eu"}, {"percent": eu, "done": eu == 100})
    t.call("export_status", {"id": "ex-us"}, {"percent": us, "done": us == 100})
t.msg("Both exports are done.")

t = new(
    "f4-guidebook-flakiness-check",
    "polling",
    False,
    GUIDEBOOK | {"case": "run the same command three times without touching code"},
    "To tell a flaky test from a real failure, the same test run three times with no change: "
    "pass, fail, pass; then the timestamp in the snapshot is fixed.",
)
t.user("The snapshot test fails sometimes. Is it flaky?")
SNAP = {"command": "npx jest test/header.snap.test.ts"}
t.call("bash", SNAP, "PASS test/header.snap.test.ts (1.21 s)")
t.call(
    "bash",
    SNAP,
    error="FAIL test/header.snap.test.ts: snapshot mismatch (- 10:41:07 + 10:41:09)",
    kind="exit_code",
)
t.call("bash", SNAP, "PASS test/header.snap.test.ts (1.18 s)")
t.call(
    "edit_file",
    {"path": "src/Header.tsx", "old": "new Date()", "new": "props.now"},
    "edited",
    mutates=True,
)
t.call("bash", SNAP, "PASS test/header.snap.test.ts (1.19 s)")
t.msg("It was flaky: the header rendered the current time. It now takes the time as a prop.")

t = new(
    "f4-page-agent-scroll-to-read",
    "distinct_reads",
    False,
    gh("alibaba/page-agent", "pull", 392) | {"case": "repeated scrolls to read content"},
    "The same scroll action four times; each brings new content into view.",
)
t.user("Read the terms page and tell me the cancellation notice period")
t.call("navigate", {"url": "https://saas.test/terms"}, "Terms of Service - 1. Scope ...")
for sec in [
    "2. Accounts ...",
    "3. Fees ...",
    "4. Term and renewal ...",
    "5. Cancellation: 30 days",
]:
    t.call("scroll_down", {"amount": "page"}, f"Visible: {sec}")
t.msg("The notice period is 30 days (section 5).")

t = new(
    "f4-maxun-next-across-pages",
    "distinct_reads",
    False,
    gh("getmaxun/maxun", "pull", 1118) | {"case": "the same Next selector across pages"},
    "Click 'Next', extract, over nine pages: the click says the same every time, the rows differ.",
)
t.user("Collect every product name from the catalogue")
t.call("navigate", {"url": "https://shop.test/catalogue"}, "Catalogue, page 1 of 9")
t.call("extract", {"selector": ".product h3"}, ["Walnut desk", "Oak shelf", "Pine stool"])
for p in range(2, 10):
    t.call("click", {"selector": "a.next"}, "clicked a.next")
    t.call("extract", {"selector": ".product h3"}, [f"Item {p}-{j}" for j in range(3)])
t.msg("27 products collected over 9 pages.")

t = new(
    "f4-cleverer-dsh-chunked-read",
    "distinct_reads",
    False,
    gh("Classicoke/cleverer-dsh", "issues", 1),
    "A big file read in segments, offset by offset, then one edit.",
)
t.user("Find where the retry policy is configured in server.log.ts and raise it to 5")
for k in range(10):
    t.call(
        "Read",
        {"file_path": "/repo/src/server.log.ts", "offset": 1 + 400 * k, "limit": 400},
        f"{1 + 400 * k}: ...\n{400 * (k + 1)}: // section {k}",
    )
t.call(
    "Edit",
    {
        "file_path": "/repo/src/server.log.ts",
        "old_string": "retries: 3",
        "new_string": "retries: 5",
    },
    "ok",
    mutates=True,
)
t.call(
    "Read",
    {"file_path": "/repo/src/server.log.ts", "offset": 3601, "limit": 400},
    "3601: ...\n3712:   retries: 5,",
)

t = new(
    "f4-continue-offset-hint-and-reread",
    "distinct_reads",
    False,
    gh("continuedev/continue", "pull", 12471),
    "read_file answers 'Use offset=N to continue reading'; the agent pages on, edits, and "
    "re-reads the edited window.",
)
t.user("Remove the deprecated flags from config/defaults.yaml")
for off, nxt in [(None, 2001), (2001, 4001), (4001, 6001), (6001, None)]:
    args: dict[str, Any] = {"path": "config/defaults.yaml"}
    if off is not None:
        args["offset"] = off
    body = f"lines {off or 1}-{(nxt or 6950) - 1}"
    if nxt is not None:
        body += f"\nUse offset={nxt} to continue reading."
    t.call("read_file", args, body)
t.call("grep_search", {"query": "deprecated: true", "path": "config"}, "config/defaults.yaml:2210")
t.call(
    "edit_existing_file",
    {"path": "config/defaults.yaml", "changes": "remove the 3 deprecated flags near line 2210"},
    "applied",
    mutates=True,
)
t.call(
    "read_file",
    {"path": "config/defaults.yaml", "offset": 2001},
    "lines 2001-4000 (3 fewer)\nUse offset=4001 to continue reading.",
)
t.msg("The three deprecated flags are gone.")

t = new(
    "f4-open-science-grep-dirs",
    "distinct_reads",
    False,
    gh("ai4s-research/open-science", "issues", 121) | {"case": "one pattern, several folders"},
    "The same pattern grepped folder by folder; three folders have no hit (the same empty "
    "answer for different calls), one has it.",
)
t.user("The export fails with 'schema_version missing'; find out why")
for d, out in [
    ("src/export", "src/export/writer.ts:41:  // TODO schema_version"),
    ("src/import", ""),
    ("src/shared", ""),
    ("scripts", ""),
    ("migrations", "migrations/0007_schema.sql:3:  schema_version INTEGER NOT NULL"),
]:
    t.call("bash", {"command": f'grep -rn "schema_version" {d}'}, out)
t.call("read_file", {"path": "migrations/0007_schema.sql"}, "ALTER TABLE ... schema_version ...")
t.call(
    "edit_file",
    {
        "path": "src/export/writer.ts",
        "old": "// TODO schema_version",
        "new": "row.schema_version = 7",
    },
    "edited",
    mutates=True,
)
t.call("bash", {"command": "npm test -- export"}, "Tests: 14 passed, 14 total")

t = new(
    "f4-openchrome-read-after-navigation",
    "distinct_reads",
    False,
    gh("shaun0927/openchrome", "pull", 1091)
    | {"case": "reset after the navigation target changes"},
    "The same page read between clicks; each click goes somewhere else, so each read differs.",
)
t.user("Check the three plan pages and compare their prices")
for plan, price in [("starter", 9), ("team", 29), ("business", 79)]:
    t.call("click", {"tabId": 7, "selector": f"a[href='/plans/{plan}']"}, "navigated")
    t.call("read_page", {"tabId": 7}, f"{plan.title()} plan - ${price} per month")
t.msg("Starter $9, Team $29, Business $79 a month.")

t = new(
    "f4-dyad-rerun-after-fix",
    "edit_test_cycle",
    False,
    gh("dyad-sh/dyad", "pull", 3866) | {"case": "a mutation unblocks a rerun"},
    "run_tests fails, a dependency is added, run_tests fails differently, an edit, then green.",
)
t.user("Make the test suite pass")
t.call("run_tests", {}, error=RT_ERR, kind="exit_code")
t.call("add_dependency", {"packages": ["date-fns@^3"]}, "added date-fns@3.6.0", mutates=True)
t.call(
    "run_tests",
    {},
    error="1 failed: src/date.test.ts > formats ISO week (expected 'W01' got '1')",
    kind="exit_code",
)
t.call(
    "edit_file",
    {"path": "src/date.ts", "old": "format(d, 'I')", "new": "format(d, \"'W'II\")"},
    "edited",
    mutates=True,
)
t.call("run_tests", {}, "12 passed")

t = new(
    "f4-critique-one-retry-same-error",
    "edit_test_cycle",
    False,
    CRITIQUE | {"case": "strike one: one retry with new information"},
    "The fix is wrong the first time (the same failure after the edit); the agent reads more, "
    "fixes the real cause and the test passes.",
)
t.user("Fix the failing cart total test")
CART = {"command": "npm test -- cart"}
CART_ERR = "FAIL test/cart.test.ts > total: expected '42.5' to be '42.50' (string)"
t.call("bash", CART, error=CART_ERR, kind="exit_code")
t.call("read_file", {"path": "src/cart.ts"}, "export const total = (xs) => String(sum(xs))")
t.call(
    "edit_file",
    {"path": "src/cart.ts", "old": "String(sum(xs))", "new": "String(round2(sum(xs)))"},
    "edited",
    mutates=True,
)
t.call("bash", CART, error=CART_ERR, kind="exit_code")
t.call("read_file", {"path": "src/format.ts"}, "export const round2 = (n) => Math.round(n*100)/100")
t.call(
    "edit_file",
    {"path": "src/cart.ts", "old": "String(round2(sum(xs)))", "new": "sum(xs).toFixed(2)"},
    "edited",
    mutates=True,
)
t.call("bash", CART, "Tests: 9 passed, 9 total")

t = new(
    "f4-renfield-403-fixed-next-session",
    "session_memory",
    False,
    gh("ebongard/renfield", "pull", 430),
    "A document search fails with 403 (a misconfigured URL); the URL is fixed; the next "
    "session runs the same search and it works.",
)
t.user("Find my last electricity invoice")
DOCS = {"query": "Stromrechnung", "limit": 5}
t.call("search_documents", DOCS, error="403 Forbidden (paperless)", kind="permission")
t.msg("The document store refused the request (403).")
t.workspace("PAPERLESS_API_URL corrected in .env")
t.session("s2")
t.user("Find my last electricity invoice")
t.call("search_documents", DOCS, [{"title": "Stromrechnung Nov 2026", "id": 812}])
t.msg("Your last electricity invoice is 'Stromrechnung Nov 2026'.")

t = new(
    "f4-dejavu-installed-then-runs",
    "session_memory",
    False,
    gh("vshulcz/deja-vu", "pull", 1672) | {"case": "the fix was recorded"},
    "`make lint` fails for a missing tool; the tool is installed; the next session's "
    "`make lint` runs.",
)
t.user("Run the linters and fix what they report")
t.call("bash", {"command": "make lint"}, error=LINT_ERR, kind="not_found")
t.call(
    "bash",
    {"command": "go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.61.0"},
    "go: downloading github.com/golangci/golangci-lint v1.61.0",
    mutates=True,
)
t.session("s2")
t.user("Run the linters and fix what they report")
t.call("bash", {"command": "make lint"}, "internal/db/pool.go:88:2: ineffectual assignment to err")

t = new(
    "f4-sinas-429-retry-delay",
    "retry_transient",
    False,
    gh("sinas-platform/sinas", "issues", 131),
    "A follow-up call rate-limited twice, honoured retryDelay, then it goes through; once "
    "more later for another sub-agent.",
)
t.user("Deep-search the three vendors and compare their SLAs")
for v in ["acme", "globex", "initech"]:
    t.call("deep_search", {"vendor": v}, f"{v}: 6 sources")
Q = {"prompt": "compare the SLAs found", "sources": 18}
t.call(
    "llm_followup",
    Q,
    error="429 RESOURCE_EXHAUSTED (retryDelay: 7s)",
    kind="rate_limit",
)
t.call("llm_followup", Q, error="429 RESOURCE_EXHAUSTED (retryDelay: 2s)", kind="rate_limit")
t.call("llm_followup", Q, "acme 99.95%, globex 99.9%, initech 99.5%")
Q2 = {"prompt": "list SLA exclusions", "sources": 18}
t.call("llm_followup", Q2, error="429 RESOURCE_EXHAUSTED (retryDelay: 4s)", kind="rate_limit")
t.call("llm_followup", Q2, "acme: planned maintenance; globex: force majeure")

t = new(
    "f4-anarlog-batch-429",
    "retry_transient",
    False,
    gh("fastrepl/anarlog", "pull", 6460),
    "A batch of lifecycle mails over a 10-per-second limit: two sends get a 429 and go "
    "through on the retry.",
)
t.user("Send the trial-ending mail to this week's cohort")
for k, name in enumerate(["ana", "ben", "chen", "dara", "eli", "fay"]):
    args = {"to": f"{name}@example.test", "template": "trial-ending"}
    if k in (2, 4):
        t.call(
            "send_email", args, error="429 Too Many Requests (Retry-After: 1)", kind="rate_limit"
        )
    t.call("send_email", args, {"id": f"msg-{k}", "status": "queued"})
t.msg("Six mails queued.")

t = new(
    "f4-copilot-cli-wait-retry-after",
    "retry_transient",
    False,
    gh("github/copilot-cli", "issues", 2760) | {"case": "Retry-After as a lower bound"},
    "A 429 with Retry-After: 60; the agent waits that long and the retry succeeds, twice in "
    "the session.",
)
t.user("Review the open pull request")
t.call("http_get", PRQ, error="429 Too Many Requests (Retry-After: 60)", kind="rate_limit")
t.call("bash", {"command": "sleep 60"}, "")
t.call("http_get", PRQ, [{"filename": "src/app.ts", "changes": 14}])
PRC = {"url": "https://api.github.test/repos/acme/app/pulls/88/comments"}
t.call("http_get", PRC, error="429 Too Many Requests (Retry-After: 60)", kind="rate_limit")
t.call("bash", {"command": "sleep 60"}, "")
t.call("http_get", PRC, [])
t.msg("One file changed, no comments yet; the change looks fine.")

t = new(
    "f4-oi-what-next-each-turn",
    "conversation",
    False,
    gh("openinterpreter/openinterpreter", "issues", 384),
    "Three requests, one after the other; after each the same closing question.",
)
for req, url in [
    ("open Edge", "https://www.microsoft.com/edge"),
    ("open Edge to visit sina.com.cn", "https://www.sina.com.cn"),
    ("now open the news section", "https://news.sina.com.cn"),
]:
    t.user(req)
    t.call(
        "execute",
        {"language": "python", "code": f"import webbrowser\nwebbrowser.open_new_tab({url!r})"},
        "True",
    )
    t.msg("What would you like me to do next?")

t = new(
    "f4-agents-js-candidates-once",
    "research",
    False,
    gh("openai/openai-agents-js", "issues", 512) | {"case": "analyse the candidates once"},
    "One search, two candidate pages opened, an answer.",
)
t.user("Find the API documentation page of docs-rich.test")
t.call(
    "top_google_results",
    {"site": "docs-rich.test", "query": "api documentation"},
    [
        {"url": "https://docs-rich.test/developers", "title": "Developers"},
        {"url": "https://docs-rich.test/api/v2", "title": "API v2 reference"},
    ],
)
t.call("fetch", {"url": "https://docs-rich.test/developers"}, "Developer hub: SDKs, guides ...")
t.call("fetch", {"url": "https://docs-rich.test/api/v2"}, "API v2 reference: endpoints ...")
t.msg('{"url": "https://docs-rich.test/api/v2"}')

t = new(
    "f4-sk-forecast-per-city",
    "research",
    False,
    gh("microsoft/semantic-kernel", "pull", 6544) | {"case": "the function used as intended"},
    "The same kernel function for four different cities, then a comparison.",
)
t.user("Where is it warmest this weekend: Lisbon, Rome, Athens or Valencia?")
for city, temp in [("Lisbon", 19), ("Rome", 17), ("Athens", 21), ("Valencia", 20)]:
    t.call("WeatherPlugin-GetForecast", {"city": city, "days": 2}, {"city": city, "max_c": temp})
t.msg("Athens, at 21°C.")

t = new(
    "f4-qwenpaw-one-memory-search",
    "research",
    False,
    gh("agentscope-ai/QwenPaw", "issues", 6113) | {"case": "the 1.0 behaviour"},
    "One memory search, then the matching skill does the work.",
)
t.user("帮我把这周的周报整理一下")
t.call("memory_search", {"query": "周报 模板"}, {"results": [{"text": "周报用三段式模板"}]})
t.call("run_skill", {"skill": "weekly_report", "week": "2026-W48"}, "周报已生成: reports/W48.md")
t.msg("周报已整理好，保存在 reports/W48.md。")  # noqa: RUF001


def mini_swe_validators_session(tid: str, seed: int) -> None:
    """A long bash-only SWE-bench session in mini-swe-agent's shape: greps over several
    folders, numbered views of file windows, a reproduction script run before and after each
    edit, the same test module re-run after each small edit (its output often the same)."""
    rng = random.Random(seed)
    t = new(
        tid,
        "long_productive",
        False,
        MINI_SWE
        | {
            "path": MINI_SWE["path"] + "/django__django-11099/django__django-11099.traj.json",
            "case": "bash-only run: grep, nl|sed views, reproduce.py, sed -i, runtests",
        },
        "A 120-call bash-only fix: the same validators test module re-run after each of many "
        "small edits (the same 'OK' each time), the reproduction script re-run after each "
        "edit, one edit that changed nothing visible, views of the same file before and after "
        "edits.",
    )
    t.user(
        "<pr_description>UsernameValidator allows trailing newline in usernames</pr_description>"
    )
    t.call(
        "bash", {"command": "ls -la"}, "AUTHORS\nCONTRIBUTING.rst\ndjango\ndocs\ntests\nsetup.py"
    )
    t.call(
        "bash",
        {"command": 'grep -rn "class .*UsernameValidator" django/'},
        "django/contrib/auth/validators.py:9:class ASCIIUsernameValidator(...)\n"
        "django/contrib/auth/validators.py:19:class UnicodeUsernameValidator(...)",
    )
    folders = ["django/contrib/auth", "django/core", "django/forms", "django/db", "django/utils"]
    for d in folders:
        hits = "" if d in ("django/db", "django/utils") else f"{d}/validators.py:7:from ... import"
        t.call("bash", {"command": f'grep -rln "RegexValidator" {d}'}, hits)
    files = ["django/contrib/auth/validators.py", "django/core/validators.py"]
    for lo, hi in [(1, 30), (1, 60), (60, 120), (120, 180)]:
        f = files[0] if lo == 1 and hi == 30 else files[1]
        t.call(
            "bash",
            {"command": f"nl -ba {f} | sed -n '{lo},{hi}p'"},
            f"{lo}\t...\n{hi}\t...  # {f}",
        )
    t.call(
        "bash",
        {
            "command": "cat <<'EOF' > reproduce.py\n"
            "from django.contrib.auth.validators import ...\nEOF"
        },
        "",
        mutates=True,
    )
    repro = {"command": "python reproduce.py"}
    bug = "ASCII: accepted 'joe\\n' (BUG)\nUnicode: accepted 'joe\\n' (BUG)"
    t.call("bash", repro, bug)
    t.call(
        "bash",
        {"command": "sed -i \"s/r'^\\[/r'\\\\A[/\" django/contrib/auth/validators.py"},
        "",
        mutates=True,
    )
    t.call("bash", repro, bug)  # the first sed matched nothing: same output after the edit
    view = {"command": f"nl -ba {files[0]} | sed -n '1,30p'"}
    t.call("bash", view, "9\tclass ASCIIUsernameValidator...\n10\t    regex = r'^[\\w.@+-]+$'")
    t.call(
        "bash",
        {
            "command": "sed -i \"s/regex = r'\\^\\[\\\\\\\\w.@+-\\]+\\$'/"
            f"regex = r'\\\\\\\\A[\\\\\\\\w.@+-]+\\\\\\\\Z'/\" {files[0]}"
        },
        "",
        mutates=True,
    )
    t.call("bash", view, "9\tclass ASCIIUsernameValidator...\n10\t    regex = r'\\A[\\w.@+-]+\\Z'")
    t.call("bash", repro, "ASCII: rejected 'joe\\n'\nUnicode: rejected 'joe\\n'")
    t.call("bash", {"command": "git diff"}, "diff --git a/django/contrib/auth/validators.py ...")
    tests = {"command": "cd /testbed && python tests/runtests.py auth_tests.test_validators -v 0"}
    t.call("bash", tests, "Ran 22 tests in 0.311s\n\nOK")
    # the same idiom elsewhere: one class at a time, the same test module after each edit
    other = [
        ("django/core/validators.py", "URLValidator", 60),
        ("django/core/validators.py", "EmailValidator", 160),
        ("django/core/validators.py", "validate_slug", 232),
        ("django/core/validators.py", "validate_unicode_slug", 240),
        ("django/core/validators.py", "validate_ipv4_address", 260),
        ("django/core/validators.py", "int_list_validator", 300),
        ("django/forms/fields.py", "SlugField", 1200),
        ("django/forms/fields.py", "GenericIPAddressField", 1180),
    ]
    core_tests = {"command": "cd /testbed && python tests/runtests.py validators -v 0"}
    for k, (f, name, line) in enumerate(other):
        t.call(
            "bash",
            {"command": f"nl -ba {f} | sed -n '{line},{line + 25}p'"},
            f"{line}\t{name} = ...\n{line + 25}\t...",
        )
        t.call(
            "bash",
            {"command": 'grep -n "\\\\$\'" ' + f'{f} | sed -n "1,5p"'},
            f"{line + 3}:    regex = ...$'",
        )
        t.call(
            "bash",
            {"command": f"sed -i '{line + 3}s/\\$'\"'\"'/\\\\Z'\"'\"'/' {f}"},
            "",
            mutates=True,
        )
        t.call(
            "bash",
            {"command": f"nl -ba {f} | sed -n '{line},{line + 25}p'"},
            f"{line}\t{name} = ...\n{line + 3}\t    regex = ...\\Z'",
        )
        t.call(
            "bash",
            {
                "command": 'python -c "from django.core import validators as v; '
                f"print('{name}', 'ok')\""
            },
            f"{name} ok",
        )
        t.call("bash", core_tests, f"Ran 11 tests in 0.0{rng.randint(41, 49)}s\n\nOK")
        t.call("bash", tests, "Ran 22 tests in 0.311s\n\nOK")
        t.call(
            "bash",
            {"command": "git diff --stat"},
            f" {k + 2} files changed, {2 * (k + 2)} insertions(+)",
        )
    for case in ["'joe\\n'", "'joe\\r\\n'", "'jo e'", "'joé'", "'joe\\t'", "'\\njoe'"]:
        t.call(
            "bash",
            {
                "command": f'python -c "from django.contrib.auth.validators import *; '
                f'ASCIIUsernameValidator()({case})"'
            },
            error="django.core.exceptions.ValidationError: ['Enter a valid username...']"
            f"  # {case}",
            kind="exit_code",
        )
    for mod in [
        "auth_tests",
        "validators",
        "forms_tests.field_tests",
        "model_fields",
        "admin_views",
    ]:
        n = rng.randint(80, 600)
        t.call(
            "bash",
            {"command": f"cd /testbed && python tests/runtests.py {mod} -v 0 --parallel 1"},
            f"Ran {n} tests in {rng.uniform(2, 30):.3f}s\n\nOK (skipped={rng.randint(0, 9)})",
        )
    t.call("bash", tests, "Ran 22 tests in 0.311s\n\nOK")
    t.call("bash", {"command": "rm reproduce.py"}, "", mutates=True)
    t.call(
        "bash",
        {"command": "git status --short"},
        " M django/contrib/auth/validators.py\n M django/core/validators.py\n"
        " M django/forms/fields.py",
    )
    t.call(
        "bash",
        {"command": SUBMIT},
        "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff --git a/django/contrib/auth/validators.py ...",
    )


def mini_swe_latex_session(tid: str, seed: int) -> None:
    """A long bash-only session on a printing bug: many python -c checks, the same failing
    test file re-run after edits (twice the same count: an edit that did not help), a stash
    and pop to compare with the original behaviour."""
    rng = random.Random(seed)
    t = new(
        tid,
        "long_productive",
        False,
        MINI_SWE | {"case": "bash-only run on sympy: python -c checks, bin/test after edits"},
        "An 85-call session: python -c checks of different expressions, the same test file "
        "after each edit (the failure count stays the same once), git stash / stash pop to "
        "compare, re-views of the edited function.",
    )
    t.user(
        "<pr_description>latex() prints Subs without parentheses around the expression"
        "</pr_description>"
    )
    t.call(
        "bash",
        {"command": 'grep -rn "def _print_Subs" sympy/'},
        "sympy/printing/latex.py:699:    def _print_Subs(self, subs):",
    )
    for d in ["sympy/printing", "sympy/core", "sympy/physics", "doc/src"]:
        t.call(
            "bash",
            {"command": f'grep -rln "Subs(" {d} | head -5'},
            "" if d == "doc/src" else f"{d}/x.py",
        )
    for lo in range(680, 760, 20):
        t.call(
            "bash",
            {"command": f"nl -ba sympy/printing/latex.py | sed -n '{lo},{lo + 19}p'"},
            f"{lo}\t...\n{lo + 19}\t...",
        )
    exprs = [
        "3*Subs(-x+y, (x,), (1,))",
        "Subs(x**2, x, 2)",
        "2*Subs(x+y, (x, y), (1, 2))",
        "Subs(x, x, 1)**2",
        "-Subs(x*y, y, 3)",
    ]
    results = [
        "3 \\left. - x + y \\right|_{\\substack{ x=1 }}",
        "\\left. x^{2} \\right|_{\\substack{ x=2 }}",
        "2 \\left. x + y \\right|_{...}",
        "...",
        "- \\left. x y \\right|_{...}",
    ]
    for e, r in zip(exprs, results, strict=True):
        t.call(
            "bash",
            {"command": f'{SYMPY_PY}print(latex({e}))"'},
            r,
        )
    test = {"command": "bin/test sympy/printing/tests/test_latex.py -k Subs"}
    t.call("bash", test, "tests finished: 2 passed, 0 failed, in 1.92 seconds")
    fails = [3, 3, 1, 0]
    for k, nf in enumerate(fails):
        t.call(
            "bash",
            {
                "command": f"sed -i '{703 + k}s/.*/        latex_expr = "
                'self.parenthesize(expr, PRECEDENCE["Mul"], strict=True)/\' '
                "sympy/printing/latex.py"
            },
            "",
            mutates=True,
        )
        t.call(
            "bash",
            {"command": "nl -ba sympy/printing/latex.py | sed -n '699,712p'"},
            "699\tdef _print_Subs(self, subs):\n"
            f"{703 + k}\t  latex_expr = self.parenthesize(...)  # v{k}",
        )
        for e, r in zip(exprs, results, strict=True):
            t.call(
                "bash",
                {"command": f'{SYMPY_PY}print(latex({e}))"'},
                r.replace("\\left.", f"\\left. \\left({k}"),
            )
        if nf:
            t.call(
                "bash",
                {"command": "bin/test sympy/printing/tests/test_latex.py"},
                error=f"tests finished: {154 - nf} passed, {nf} failed, "
                f"in 9.{rng.randint(10, 99)} seconds",
                kind="exit_code",
            )
        else:
            t.call(
                "bash",
                {"command": "bin/test sympy/printing/tests/test_latex.py"},
                "tests finished: 154 passed, in 9.77 seconds",
            )
        t.call(
            "bash",
            {
                "command": 'git stash && python -c "from sympy import *; '
                "print(latex(3*Subs(-Symbol('x')+1, Symbol('x'), 1)))\"; git stash pop"
            },
            f"Saved working directory\n3 \\left. - x + 1 \\right|_{{...}}\nOn branch master (v{k})",
            mutates=True,
        )
    t.call("bash", {"command": "git diff"}, "diff --git a/sympy/printing/latex.py ...")
    for mod in ["test_latex.py", "test_str.py", "test_pretty.py", "test_mathml.py", "test_repr.py"]:
        t.call(
            "bash",
            {"command": f"bin/test sympy/printing/tests/{mod}"},
            f"tests finished: {rng.randint(40, 300)} passed, in {rng.uniform(2, 20):.2f} seconds",
        )
    for k in range(12):
        t.call(
            "bash",
            {"command": f"bin/test sympy/printing/pretty/tests/test_pretty.py -k test_{k}"},
            f"tests finished: {rng.randint(1, 9)} passed, in 0.{rng.randint(10, 99)} seconds",
        )
    t.call(
        "bash",
        {"command": SUBMIT},
        "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff ...",
    )


def mini_swe_window_session(tid: str, seed: int) -> None:
    """A long session that pages through one big module in fixed windows, edits, and re-runs
    one pytest node after each edit; between files the same `git diff --stat`."""
    rng = random.Random(seed)
    t = new(
        tid,
        "long_productive",
        False,
        MINI_SWE | {"case": "bash-only run on astropy: sliding sed -n windows, pytest after edits"},
        "A 70-call session: one module paged 40 lines at a time, back to an earlier window "
        "after an edit, one pytest node re-run after each edit (failing the same way twice).",
    )
    t.user("<pr_description>Please support header rows in RestructuredText output</pr_description>")
    mod = "astropy/io/ascii/rst.py"
    for lo in range(1, 241, 40):
        t.call(
            "bash",
            {"command": f"sed -n '{lo},{lo + 39}p' {mod}"},
            f"# lines {lo}-{lo + 39} of {mod}",
        )
    for lo in range(1, 401, 40):
        t.call(
            "bash",
            {"command": f"sed -n '{lo},{lo + 39}p' astropy/io/ascii/fixedwidth.py"},
            f"# lines {lo}-{lo + 39} of fixedwidth.py",
        )
    node = {"command": "python -m pytest astropy/io/ascii/tests/test_rst.py -q -x -k header_rows"}
    errs = [
        "TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'",
        "TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'",
        "AssertionError: assert lines[0] == '===== ========'",
        None,
    ]
    t.call("bash", node, error=errs[0], kind="exit_code")
    window = {"command": f"sed -n '35,74p' {mod}"}
    for k, err in enumerate(errs[1:]):
        t.call("bash", window, f"# lines 35-74, version {k}")
        t.call(
            "bash",
            {"command": f"python - <<'EOF'\n# patch step {k}\nEOF"},
            f"patched step {k}",
            mutates=True,
        )
        t.call("bash", window, f"# lines 35-74, version {k + 1}")
        if err:
            t.call("bash", node, error=err, kind="exit_code")
        else:
            t.call("bash", node, "1 passed in 0.41s")
    for k in range(10):
        t.call(
            "bash",
            {
                "command": 'python -c "from astropy.table import QTable; import sys; '
                f"QTable({{'a': [{k}]}}).write(sys.stdout, format='ascii.rst', "
                "header_rows=['name', 'unit'])\""
            },
            f"===\n  a\n===\n  {k}\n===",
        )
    for suite in [
        "test_rst.py",
        "test_fixedwidth.py",
        "test_write.py",
        "test_read.py",
        "test_connect.py",
    ]:
        t.call(
            "bash",
            {"command": f"python -m pytest astropy/io/ascii/tests/{suite} -q"},
            f"{rng.randint(20, 400)} passed in {rng.uniform(1, 40):.2f}s",
        )
    t.call(
        "bash",
        {"command": "git diff --stat"},
        " astropy/io/ascii/rst.py | 22 ++++++++++++++++------",
    )
    t.call(
        "bash",
        {"command": SUBMIT},
        "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff ...",
    )


mini_swe_validators_session("f4-mini-swe-validators-long", 41)
mini_swe_latex_session("f4-mini-swe-latex-long", 43)
mini_swe_window_session("f4-mini-swe-windows-long", 47)


# ================================================================ fresh5 set
# Written at 22:45 UTC from sources no earlier split uses (earendil-works/pi #9637,
# MarimerLLC/rockbot, openclaw #130210 and #118402, hkust-nlp/AgentBoard, charmbracelet/crush,
# brightwave-inc/tidebreak, tah9m9/Eigenhelix, anthropics/claude-code #25995, run-llama/llama_index,
# intel/ipex-llm, reworkd/AgentGPT, Toloka/tolokaforge, joonspk-research/generative_agents,
# open-multi-agent, ChesterRa/cccc, DeusData/codebase-memory-mcp, Glitchedpixel-io/media-api,
# tambo-ai/tambo-cloud, 2389-research/tracker, cloudwego/eino, multica-ai/multica,
# EtanHey/cmuxlayer, agent-of-empires; legitimate: mastra, misty-step/harness-kit,
# modelcontextprotocol/typescript-sdk, openai-agents-python, zeroclaw #10503, AtomicBot-ai,
# QwenLM/qwen-code #9733, apache/maka, apexcloudwise/linear-axi, Octrafic, QVerisAI, ad-naan/Adnify,
# eclipse-theia/theia, BESTenergytrade/simply, AVADSA25/codec, Crypter-File-Transfer,
# rjmurillo/ai-agents, bewest/sdqctl, allenhutchison/obsidian-gemini, kubernetes-sigs/devops-bench),
# committed before crs was run on them. Split "fresh5".

FRESH5_START = len(ALL)
_r5 = random.Random(5005)


def _hex(n: int) -> str:
    return "".join(_r5.choice("0123456789abcdef") for _ in range(n))


# ---- fresh5 loops

t = new(
    "f5-pi-noop-display-counter",
    "repeated_call",
    True,
    gh("earendil-works/pi", "issues", 9637),
    "A lower-tier model slips into a groove: the same `echo noop` through the exec tool, "
    "byte-identical command and output; only the display name counts up (noop1, noop2, ...).",
)
t.user("Keep the fabric workspace tidy while I'm away")
t.call("fabric_exec", {"command": "ls -1 work/", "display_name": "list"}, "inbox\nnotes.md")
idx = [
    t.call("fabric_exec", {"command": "echo noop", "display_name": f"noop{k + 1}"}, "noop\n")
    for k in range(9)
]
t.mark(idx[1], idx[1])

t = new(
    "f5-rockbot-spawn-wisps-fresh-ids",
    "repeated_call",
    True,
    gh("MarimerLLC/rockbot", "issues", 464),
    "The same wisp dispatch again and again; every result embeds a fresh batch GUID, wisp id "
    "and elapsed time, so the raw results never match although nothing else differs.",
)
t.user("Summarise my inbox and draft replies to anything urgent")
WISP = {"definitions": [{"name": "summarise-inbox", "steps": 3, "model": "small"}]}
idx = []
for _ in range(6):
    ms = _r5.randint(900, 4000)
    idx.append(
        t.call(
            "spawn_wisps",
            WISP,
            f"batch-{_hex(18)}: 1 wisp dispatched\n  wisp-{_hex(16)} summarise-inbox: "
            f"completed 3/3 steps in {ms}ms\n({ms / 1000 + 0.2:.1f}s total)\n"
            "result: 14 messages, 0 urgent",
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f5-openclaw-wrapper-nonce-error",
    "error_loop",
    True,
    gh("openclaw/openclaw", "issues", 130210),
    "The same browser act call, byte-identical arguments, fails the same way 39 times; each "
    "error is wrapped in an untrusted-content envelope with a fresh random id.",
)
t.user("Open the command palette in the web IDE and run 'Format document'")
t.call("browser", {"action": "snapshot"}, "[e12] editor  [e40] status bar")
ACT = {"action": "act", "kind": "press", "key": "Control+Shift+K", "ref": "e12"}
idx = []
for _ in range(8):
    n = _hex(16)
    idx.append(
        t.call(
            "browser",
            ACT,
            error=f'<<<EXTERNAL_UNTRUSTED_CONTENT id="{n}">>>\nSource: API\n---\n'
            'Error: keyboard.press: Unknown key: "Control+Shift+K"\n'
            f'<<<END_EXTERNAL_UNTRUSTED_CONTENT id="{n}">>>',
            kind="invalid_args",
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f5-openclaw-exec-drifting-diagnostics",
    "error_loop",
    True,
    gh("openclaw/openclaw", "pull", 118402),
    "The same deploy command fails for the same reason each time, but the diagnostic text "
    "carries a timestamp, an attempt counter, a pid and an elapsed time that all change.",
)
t.user("Deploy the current branch to staging")
t.call("exec", {"command": "git rev-parse --short HEAD"}, "4be91c2")
idx = []
for k in range(7):
    idx.append(
        t.call(
            "exec",
            {"command": "./scripts/deploy.sh staging"},
            error=f"[2026-08-03T10:{14 + k:02d}:{_r5.randint(0, 59):02d}."
            f"{_r5.randint(0, 999):03d}Z]"
            f" deploy: attempt {k + 1}: pushing to registry.internal:5000 "
            f"(pid {_r5.randint(20000, 60000)})\n"
            "error: x509: certificate signed by unknown authority\n"
            f"exit status 1 after {_r5.uniform(1, 4):.2f}s",
            kind="exit_code",
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f5-webshop-search-reset-cycle",
    "no_progress",
    True,
    {"url": "https://github.com/hkust-nlp/AgentBoard/issues/30"},
    "WebShop: search, the results page, reset, search again with the query slightly "
    "reworded, the same results page, reset ... the progress rate stays at 0.",
)
t.user("Buy a long clip-in hair extension that looks natural, under 40 dollars")
PAGE1 = "WEB PAGE: {\n[Back to Search]\nPage 1 (Total results: 15)\n[Next >] }"
HOME = "WEB PAGE: {Let us begin shopping\n[Search]}"
Q = "long clip-in hair extension natural looking under 40 dollars"
t.call("search", {"query": Q}, PAGE1)
t.call(
    "search",
    {"query": Q},
    "WEB PAGE: {There is no [Search] button, you should click the [Back to Search] button "
    "first to search something }",
)
occ = []
for q in [
    Q,
    "long clip-in hair extension natural looking",
    "natural looking long clip in hair extensions under $40",
    "long clip-in hair extension natural looking",
]:
    a = t.call("reset", {}, HOME)
    b = t.call("search", {"query": q}, PAGE1)
    occ.append([a, b])
t.mark(occ[1][0], occ[1][1], period=2)

t = new(
    "f5-crush-view-grep-view-cycle",
    "cycle",
    True,
    gh("charmbracelet/crush", "issues", 2130),
    "A period-3 cycle of successful calls: view the loader, grep for its entry point, view "
    "the same window, and round again, every result the same.",
)
t.user("Fix the panic in the config loader when the file is empty")
CRUSH = [
    {
        "tool": "view",
        "args": {"file_path": "internal/config/load.go"},
        "result": "func Load(p string) (*Config, error) {\n\tb, _ := os.ReadFile(p)\n\t...",
    },
    {
        "tool": "grep",
        "args": {"pattern": "func Load", "path": "internal"},
        "result": "internal/config/load.go:18:func Load(p string) (*Config, error) {",
    },
    {
        "tool": "view",
        "args": {"file_path": "internal/config/load.go", "offset": 18, "limit": 30},
        "result": "18 func Load(p string) (*Config, error) {\n19 \tb, _ := os.ReadFile(p)\n"
        "20 \tvar c Config\n21 \t_ = json.Unmarshal(b, &c)\n22 \treturn &c, c.validate()",
    },
]
o = repeat_block(t, CRUSH, 4)
mark_cycle(t, o)

t = new(
    "f5-tidebreak-same-fetch-new-words",
    "repeated_call",
    True,
    gh("brightwave-inc/tidebreak", "issues", 1307),
    "The model re-issues the same fetch with the same arguments, each time with a freshly "
    "worded thought beside it, until the step ceiling.",
)
t.user("What is the per-minute request limit of the v2 API?")
t.call(
    "search_docs",
    {"query": "v2 rate limits"},
    [{"url": "https://docs.example.test/api/v2/limits", "title": "Limits"}],
)
LIM = {"url": "https://docs.example.test/api/v2/limits"}
LIM_RES = "Limits\nRequests are limited per key. Burst: 50. Sustained: see your plan page."
idx = [
    t.call("fetch_url", LIM, LIM_RES, thought=th)
    for th in [
        "Let me read the limits page.",
        "The page mentions bursts; let me check the sustained figure again.",
        "I should re-read the page to find the exact per-minute number.",
        "Maybe I missed a table; fetching the limits page once more.",
        "Checking the limits documentation again for the minute quota.",
        "One more look at the limits page.",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f5-eigenhelix-lint-test-rerun",
    "cycle",
    True,
    gh("tah9m9/Eigenhelix", "issues", 25),
    "The test loop detects lint failures but fixes nothing: lint (the same shellcheck "
    "warnings), tests (pass), lint, tests ... five cycles, identical results.",
)
t.user("Run the step-6 test loop until everything is green")
SC = (
    "scripts/step-7.sh:14:9: warning: Quote this to prevent word splitting. [SC2046]\n"
    "scripts/step-7.sh:31:5: warning: Declare and assign separately. [SC2155]\n2 warnings"
)
EH = [
    {"tool": "run_script", "args": {"name": "lint.sh"}, "error": SC, "kind": "exit_code"},
    {"tool": "run_script", "args": {"name": "test.sh"}, "result": "bats: 27 tests, 0 failures"},
]
o = repeat_block(t, EH, 5)
mark_cycle(t, o)

t = new(
    "f5-claude-code-add-revert-insurance",
    "cycle",
    True,
    gh("anthropics/claude-code", "issues", 25995),
    "Told to skip a feature, the agent removes the code, the tests break, it re-adds the "
    "code, the tests pass, it removes it again ...: a period-4 edit-revert cycle with the "
    "same test results, across the user's 'stop'.",
)
t.user("Skip the insurance feature for now, we'll do it next sprint")
t.call(
    "Edit",
    {"file_path": "src/spec/checkout.spec.md", "old_string": "## Insurance\n...", "new_string": ""},
    "The file src/spec/checkout.spec.md has been updated.",
    mutates=True,
)
INS_OLD = "<InsuranceSection quote={quote} />"
REMOVE = {
    "tool": "Edit",
    "args": {"file_path": "src/pages/Checkout.tsx", "old_string": INS_OLD, "new_string": ""},
    "result": "The file src/pages/Checkout.tsx has been updated.",
    "mutates": True,
}
ADD = {
    "tool": "Edit",
    "args": {
        "file_path": "src/pages/Checkout.tsx",
        "old_string": "<OrderSummary />",
        "new_string": "<OrderSummary />\n      " + INS_OLD,
    },
    "result": "The file src/pages/Checkout.tsx has been updated.",
    "mutates": True,
}
TEST = {"command": "npx vitest run src/pages"}
T_FAIL = "FAIL src/pages/Checkout.test.tsx > shows the insurance quote\n1 failed, 23 passed"
occ = []
for k in range(3):
    a = t.call(**REMOVE)
    b = t.call("Bash", TEST, error=T_FAIL, kind="exit_code")
    c = t.call(**ADD)
    d = t.call("Bash", TEST, "24 passed")
    occ.append([a, b, c, d])
    if k == 1:
        t.user("stop. you are making changes and reverting them over and over")
t.mark(occ[1][0], occ[1][3], period=4)

t = new(
    "f5-llamaindex-react-no-final-answer",
    "repeated_call",
    True,
    gh("run-llama/llama_index", "issues", 16982),
    "A ReAct agent gets its answer from the tool and, instead of a final answer, calls the "
    "same tool with the same input again, with the same thought, until max iterations.",
)
t.user("Who should I email about the Q3 newsletter?")
CONTACT = {"input": "marketing team contact for newsletter"}
CONTACT_RES = "Marketing team: newsletter@smartmailer.test (owner: Dana K.)"
idx = [
    t.call(
        "contacts_query_engine",
        CONTACT,
        CONTACT_RES,
        thought="I need to use a tool to find the marketing team's contact.",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[1])

t = new(
    "f5-ipex-tavily-reworded-loop",
    "no_progress",
    True,
    gh("intel/ipex-llm", "issues", 10468),
    "A small local model in a LangChain ReAct loop searches again and again, each query a "
    "rewording of the last; the single result is the same every time.",
)
t.user("What is the population of the capital of Australia?")
TAV = [
    {
        "url": "https://en.wikipedia.test/wiki/Canberra",
        "content": "Canberra is the capital city of Australia. Population 467,000 (2021).",
    }
]
idx = [
    t.call("tavily_search_results_json", {"query": q}, TAV)
    for q in [
        "population of the capital of Australia",
        "capital of Australia population",
        "What is the population of Australia's capital city",
        "population of Canberra capital of Australia",
        "Australia capital city population number",
        "how many people live in the capital of Australia",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f5-agentgpt-search-timeouts",
    "error_loop",
    True,
    gh("reworkd/AgentGPT", "issues", 580),
    "'Searching web for ...' for 25 minutes: the same search times out again and again.",
)
t.user("Research the best open-source vector databases for a small startup")
SRCH = {"query": "best open-source vector databases for startups"}
idx = [
    t.call("web_search", SRCH, error="Search request timed out after 30s", kind="timeout")
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f5-tolokaforge-please-wait-each-turn",
    "monologue",
    True,
    gh("Toloka/tolokaforge", "issues", 1141),
    "The agent answers every simulated-user turn with the identical sentence and never calls "
    "a tool; the user simulator keeps replying, so each message is a new turn.",
)
t.user("Please cancel my order #5521 and refund it to my card.")
replies = [
    "Okay, let me know when it's done.",
    "Is it cancelled yet?",
    "Any update on the refund?",
    "Hello? Can you confirm the cancellation?",
    "I'm still waiting.",
    "Please tell me when it's done.",
    "Are you there?",
]
idx = []
for r in replies:
    idx.append(t.msg("I am still working on completing the task right now please wait"))
    t.user(r)
idx.append(t.msg("I am still working on completing the task right now please wait"))
t.mark(idx[1], idx[1])

t = new(
    "f5-generative-agents-goodbye-loop",
    "monologue",
    True,
    gh("joonspk-research/generative_agents", "pull", 203),
    "Two personas finish their plan and then cannot stop saying goodbye: wrap-up lines, "
    "reworded each time, alternating between the two, with no action.",
)
t.user("[sim] Isabella meets Klaus at Hobbs Cafe at 14:00")
t.msg("Isabella: Hi Klaus! I'm hosting a Valentine's Day party at the cafe on the 14th.")
t.msg("Klaus: That sounds lovely. What time does it start, and can I bring anything?")
t.msg("Isabella: Five to seven in the evening. Maybe bring a friend or two!")
t.msg("Klaus: I'll ask Maria. I'm working on my paper about gentrification, but I'll come.")
idx = [
    t.msg(m)
    for m in [
        "Isabella: Sounds good, see you at the party!",
        "Klaus: See you there, Isabella!",
        "Isabella: Sounds great, see you then!",
        "Klaus: See you at the party, Isabella!",
        "Isabella: Sounds good! See you there!",
        "Klaus: See you then, Isabella!",
        "Isabella: Great, see you at the party!",
        "Klaus: See you there!",
    ]
]
t.mark(idx[2], idx[3], period=2)

t = new(
    "f5-oma-same-paragraph-no-tool",
    "monologue",
    True,
    gh("open-multi-agent/open-multi-agent", "pull", 254),
    "After two tool calls the agent keeps answering with the same paragraph, a word changed "
    "here and there, without calling a tool.",
)
t.user("Is the staging database reachable from the worker pool?")
t.call("run_check", {"check": "tcp", "host": "db.staging.internal", "port": 5432}, "open")
t.call("run_check", {"check": "dns", "host": "db.staging.internal"}, "10.4.2.17")
PARA = (
    "The staging database at db.staging.internal resolves to 10.4.2.17 and port 5432 is "
    "open, so the worker pool {v} reach it. If jobs still fail, check the credentials."
)
idx = [t.msg(PARA.format(v=v)) for v in ["can", "can", "should be able to", "can", "can", "can"]]
t.mark(idx[1], idx[1])

t = new(
    "f5-cccc-empty-next-cursor",
    "repeated_call",
    True,
    gh("ChesterRa/cccc", "pull", 50),
    "tools/list always returns nextCursor \"\"; the client treats any cursor as 'more pages' "
    "and requests the same page with the same cursor again and again.",
)
t.user("Connect to the cccc MCP server and list what it can do")
TOOLS8 = {
    "tools": [
        f"cccc_{n}" for n in ["inbox", "send", "read", "ack", "status", "join", "leave", "ping"]
    ]
}
t.call("mcp_list_tools", {"server": "cccc"}, TOOLS8 | {"nextCursor": ""})
idx = [
    t.call("mcp_list_tools", {"server": "cccc", "cursor": ""}, TOOLS8 | {"nextCursor": ""})
    for _ in range(7)
]
t.mark(idx[1], idx[1])

t = new(
    "f5-codebase-memory-nonadvancing-cursor",
    "repeated_call",
    True,
    gh("DeusData/codebase-memory-mcp", "issues", 1247),
    "tools/list returns a cursor that does not advance: asking for the next page returns the "
    "same eight tools and the same cursor, and the client keeps following it.",
)
t.user("Index this repository and show me its architecture")
CM_TOOLS = [
    "get_architecture",
    "get_code_snippet",
    "get_graph_schema",
    "index_repository",
    "query_graph",
    "search_code",
    "search_graph",
    "trace_path",
]
t.call("tools_list", {}, {"tools": CM_TOOLS, "nextCursor": "eyJvIjo4fQ=="})
idx = [
    t.call(
        "tools_list",
        {"cursor": "eyJvIjo4fQ=="},
        {"tools": CM_TOOLS, "nextCursor": "eyJvIjo4fQ=="},
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f5-media-api-cursor-never-null",
    "repeated_call",
    True,
    gh("Glitchedpixel-io/media-api", "issues", 66),
    "Paging through assets: three real pages, then the last cursor comes back unchanged with "
    "no items and the loop `while (next)` keeps asking for it.",
)
t.user("Export every asset title to a CSV")
pages = [(None, 3, ">i:3"), (">i:3", 3, ">i:6"), (">i:6", 1, ">i:7")]
n_item = 0
for cur, cnt, nxt in pages:
    args = {"limit": 3} | ({"cursor": cur} if cur else {})
    items = [{"id": n_item + j + 1, "title": f"asset {n_item + j + 1}"} for j in range(cnt)]
    n_item += cnt
    t.call("list_assets", args, {"items": items, "next": nxt})
idx = [
    t.call("list_assets", {"limit": 3, "cursor": ">i:7"}, {"items": [], "next": ">i:7"})
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f5-tambo-update-again",
    "repeated_call",
    True,
    gh("tambo-ai/tambo-cloud", "pull", 1038),
    "An update tool whose response does not say whether it worked: the model sends the same "
    "update with the same parameters again and again.",
)
t.user("Rename the revenue chart to 'Revenue (EUR)' and make it a line chart")
t.call("get_component", {"id": "w-12"}, {"id": "w-12", "title": "Revenue", "type": "bar"})
UPD = {"id": "w-12", "props": {"title": "Revenue (EUR)", "type": "line"}}
idx = [t.call("update_component", UPD, {"status": "accepted"}, mutates=True) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f5-tracker-cat-cat-test-cycle",
    "cycle",
    True,
    gh("2389-research/tracker", "issues", 531),
    "A tight loop that calls tools every turn without advancing: cat two files, run the "
    "tests (the same failure), and round again; no edit, no new test state.",
)
t.user("Make TestRetryBudget pass")
TR = [
    {
        "tool": "execute_shell",
        "args": {"command": "cat internal/retry/budget.go"},
        "result": "func (b *Budget) Allow() bool { return b.used < b.max }",
    },
    {
        "tool": "execute_shell",
        "args": {"command": "cat internal/retry/budget_test.go"},
        "result": "func TestRetryBudget(t *testing.T) { ... want 3 got 4 ... }",
    },
    {
        "tool": "execute_shell",
        "args": {"command": "go test ./internal/retry/..."},
        "error": "--- FAIL: TestRetryBudget (0.00s)\n    budget_test.go:22: want 3 got 4\nFAIL",
        "kind": "exit_code",
    },
]
o = repeat_block(t, TR, 4)
mark_cycle(t, o)

t = new(
    "f5-eino-grep-variants-no-files",
    "no_progress",
    True,
    gh("cloudwego/eino", "issues", 1300),
    "grep on an offloaded render prints 'No files found' for a key that is not there; the "
    "agent reads it as a bad path and retries spellings of the same key on the same file.",
)
t.user("Does the rendered chart set an auth-url annotation?")
t.call("helm_template", {"chart": "./charts/gateway"}, "(offloaded to /tmp/trunc/call-7f3a)")
TRUNC = "/tmp/trunc/call-7f3a"
idx = [
    t.call("grep", {"pattern": p, "path": TRUNC}, "No files found")
    for p in ["auth-url", "auth_url", "authUrl", "auth-url:", "auth.url", "auth-url="]
]
t.mark(idx[1], idx[1])

t = new(
    "f5-multica-dead-resume-next-session",
    "known_failure",
    True,
    gh("multica-ai/multica", "pull", 1285),
    "A persisted agent session became unresumable; every later run of the task resumes the "
    "dead id and fails the same way.",
)
t.user("Continue issue MUL-88")
RESUME = {"command": "claude --resume 8c1f2e70 -p 'continue the task' --output-format stream-json"}
DEAD = "No conversation found with session ID: 8c1f2e70"
t.call("bash", RESUME, error=DEAD, kind="exit_code")
t.session("s2")
t.user("Continue issue MUL-88")
rep = t.call("bash", RESUME, error=DEAD, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "f5-cmuxlayer-wrong-flag-next-session",
    "known_failure",
    True,
    gh("EtanHey/cmuxlayer", "issues", 423),
    "Auto-resume uses a flag that does not exist; after each app restart it injects the same "
    "command and gets the same usage error.",
)
t.user("Restore my agent panes")
CUR = {"command": "cursor agent --session 4d2e91"}
CUR_ERR = "error: unknown option '--session'\n(Did you mean --version?)"
t.call("terminal_send", {"surface": 81, "text": "cd ~/work/brainlayer"}, "ok")
t.call("bash", CUR, error=CUR_ERR, kind="invalid_args")
t.session("s2")
t.user("Restore my agent panes")
t.call("terminal_send", {"surface": 81, "text": "cd ~/work/brainlayer"}, "ok")
rep = t.call("bash", CUR, error=CUR_ERR, kind="invalid_args")
t.session("s3")
t.call("bash", CUR, error=CUR_ERR, kind="invalid_args")
t.mark(rep, rep - 1)

t = new(
    "f5-aoe-resume-probe-restart",
    "known_failure",
    True,
    gh("agent-of-empires/agent-of-empires", "pull", 2612),
    "A resume probe fails on a dead session id; each restart repeats the same restart with "
    "the same 'Restart Failed' instead of starting fresh.",
)
t.user("Restart session 3")
RS = {"command": "aoe session restart 3"}
RS_ERR = "Restart Failed: resume probe pane died (agent_session_id 5b9e0c11)"
t.call("bash", {"command": "aoe session list"}, "3  claude  dead  sid=5b9e0c11")
t.call("bash", RS, error=RS_ERR, kind="exit_code")
t.session("s2")
t.user("Restart session 3 again please")
rep = t.call("bash", RS, error=RS_ERR, kind="exit_code")
t.mark(rep, rep - 1)

# ---- fresh5 legitimate

t = new(
    "f5-mastra-firecrawl-status-poll",
    "polling",
    False,
    gh("mastra-ai/mastra", "issues", 5694),
    "Submit a crawl job, then check its status until it completes; the count grows (and "
    "stalls once between two checks).",
)
t.user("Crawl docs.acme.test and summarise what the product does")
t.call("firecrawl_crawl", {"url": "https://docs.acme.test", "limit": 40}, {"id": "crawl_91c"})
for k in [0, 6, 6, 14, 22, 31]:
    t.call(
        "firecrawl_crawl_status",
        {"id": "crawl_91c"},
        {"status": "scraping", "completed": k, "total": 40},
    )
t.call(
    "firecrawl_crawl_status",
    {"id": "crawl_91c"},
    {"status": "completed", "completed": 40, "total": 40, "data": "[40 pages]"},
)
t.msg("Acme is a hosted feature-flag service: SDKs for 9 languages, audit log, and SSO.")

t = new(
    "f5-harnesskit-pr-checks-sleep",
    "polling",
    False,
    gh("misty-step/harness-kit", "issues", 31),
    "Watching CI the way agents do: `gh pr checks`, `sleep 30`, again and again; the sleep is "
    "byte-identical each time, the checks move from pending to pass.",
)
t.user("Merge PR 214 once CI is green")
pend = [7, 7, 5, 4, 2, 1, 0]
for p in pend:
    done = 7 - p
    t.call(
        "bash",
        {"command": "gh pr checks 214"},
        f"{done} successful, {p} pending checks" + ("" if p else "\nAll checks were successful"),
    )
    if p:
        t.call("bash", {"command": "sleep 30"}, "")
t.call("bash", {"command": "gh pr merge 214 --squash"}, "Merged pull request #214")

t = new(
    "f5-mcp-sdk-constant-cursor-pages",
    "polling",
    False,
    gh("modelcontextprotocol/typescript-sdk", "issues", 2735),
    "A server that keeps its position server-side returns one constant cursor handle per "
    "page: the same call with the same cursor returns the next batch each time, until no "
    "cursor comes back.",
)
t.user("List every resource on the docs server")
t.call(
    "resources_list",
    {"server": "docs"},
    {"resources": [f"doc://{i}" for i in range(1, 21)], "nextCursor": "h"},
)
for page in range(1, 5):
    items = [f"doc://{i}" for i in range(page * 20 + 1, page * 20 + 21)]
    res: dict[str, Any] = {"resources": items}
    if page < 4:
        res["nextCursor"] = "h"
    t.call("resources_list", {"server": "docs", "cursor": "h"}, res)
t.msg("The docs server exposes 100 resources (doc://1 to doc://100).")

t = new(
    "f5-agents-python-auto-pagination",
    "distinct_reads",
    False,
    gh("openai/openai-agents-python", "pull", 4086),
    "Auto-pagination of an MCP server's tool list: five pages, five different cursors, "
    "different tools on each.",
)
t.user("Load all tools from the warehouse MCP server")
cur = None
for page in range(5):
    args = {"server": "warehouse"} | ({"cursor": cur} if cur else {})
    nxt = f"c{page + 1}" if page < 4 else None
    res = {"tools": [f"wh_tool_{page * 10 + j}" for j in range(10)]}
    if nxt:
        res["nextCursor"] = nxt
    t.call("list_tools", args, res)
    cur = nxt

t = new(
    "f5-zeroclaw-directory-membership",
    "research",
    False,
    gh("zeroclaw-labs/zeroclaw", "pull", 10503),
    "Checking seven names against a directory: seven different lookups, seven identical "
    "empty results; the answer is 'none of them is listed'.",
)
t.user("Are any of these people in the vendor directory: Ana Ruiz, Bo Chen, ...?")
for n in [
    "Ana Ruiz",
    "Bo Chen",
    "Carla Mendes",
    "Dmitri Volkov",
    "Emeka Obi",
    "Fatima Zahra",
    "Gus Lee",
]:
    t.call("directory_lookup", {"name": n}, [])
t.msg("None of the seven names is in the vendor directory.")

t = new(
    "f5-atomic-agent-wandering-fetch",
    "research",
    False,
    gh("AtomicBot-ai/atomic-agent", "issues", 458),
    "Answering a question from a repository: twelve fetches of twelve different files, one "
    "of them missing, the evidence found along the way.",
)
t.user("Was the malformed-tool-call problem with Mercury fixed, and how?")
files = [
    "README.md",
    "CHANGELOG.md",
    "src/providers/openai.ts",
    "src/providers/openai-strict-tools.ts",
    "src/providers/index.ts",
    "docs/providers.md",
    "src/loop/detector.ts",
    "tests/providers/strict.test.ts",
    "docs/strict-mode.md",
    "src/providers/inception.ts",
    "package.json",
    "docs/faq.md",
]
for k, f in enumerate(files):
    if f == "docs/strict-mode.md":
        t.call(
            "web_fetch",
            {"url": f"https://raw.example.test/atomic/main/{f}"},
            error="404",
            kind="not_found",
        )
    else:
        t.call(
            "web_fetch",
            {"url": f"https://raw.example.test/atomic/main/{f}"},
            f"# {f}\n(content {k}: {_hex(12)})",
        )
t.msg("Yes: strict mode constrains decoding to the tool schema (openai-strict-tools.ts).")

t = new(
    "f5-qwen-code-stage-verification",
    "edit_test_cycle",
    False,
    gh("QwenLM/qwen-code", "issues", 9733),
    "A six-stage scripted pipeline: write a stage script, run it, edit it, re-run it, verify "
    "the output on disk with the same listing command; every run advances the state.",
)
t.user("Execute the handoff in docs/pipeline-handoff.md, verifying each stage on disk")
t.call(
    "read_file",
    {"path": "docs/pipeline-handoff.md"},
    "6 stages: model, uv, rig, light, render, comp",
)
for k, st in enumerate(["model", "uv", "rig", "light", "render", "comp"]):
    script = f"stages/{k + 1}_{st}.py"
    t.call(
        "write_file",
        {"path": script, "content": f"# stage {st}\nrun('{st}')\n"},
        "written",
        mutates=True,
    )
    t.call(
        "run_shell_command",
        {"command": f"python {script}"},
        error=f"KeyError: '{st}_out'",
        kind="exit_code",
    )
    t.call(
        "edit",
        {"path": script, "old": f"run('{st}')", "new": f"run('{st}', out='{st}_out')"},
        "edited",
        mutates=True,
    )
    t.call(
        "run_shell_command",
        {"command": f"python {script}"},
        f"stage {st}: wrote out/{st}_out ({k * 3 + 2} files)",
    )
    t.call(
        "run_shell_command",
        {"command": "ls out/"},
        "\n".join(f"{s}_out" for s in ["model", "uv", "rig", "light", "render", "comp"][: k + 1]),
    )
t.msg("All six stages ran and their outputs are on disk.")

t = new(
    "f5-maka-edit-retest-same-failure",
    "edit_test_cycle",
    False,
    gh("apache/maka", "pull", 106),
    "Edit a file, re-run the same test: the first edit does not fix it (the very same "
    "failure), the second changes the failure, the third makes it pass.",
)
t.user("Fix the failing parser test")
PT = {"command": "npm test -- parser.test.ts"}
F1 = "FAIL parser.test.ts > parses trailing comma\n  expected [1,2] got SyntaxError"
F2 = "FAIL parser.test.ts > parses trailing comma\n  expected [1,2] got [1,2,undefined]"
t.call("bash", PT, error=F1, kind="exit_code")
t.call("read_file", {"path": "src/parser.ts"}, "function parseList(tokens) { ... }")
t.call(
    "edit_file",
    {"path": "src/parser.ts", "old": "if (t === ']')", "new": "if (t === ']' || t === ',]')"},
    "ok",
    mutates=True,
)
t.call("bash", PT, error=F1, kind="exit_code")
t.call(
    "edit_file",
    {"path": "src/lexer.ts", "old": "case ','", "new": "case ',': if (peek() === ']') break;"},
    "ok",
    mutates=True,
)
t.call("bash", PT, error=F2, kind="exit_code")
t.call(
    "edit_file",
    {
        "path": "src/parser.ts",
        "old": "items.push(parseValue())",
        "new": "if (peek() !== ']') items.push(parseValue())",
    },
    "ok",
    mutates=True,
)
t.call("bash", PT, "PASS parser.test.ts (12 tests)")
t.call("bash", {"command": "npm test"}, "Tests: 148 passed, 148 total")

t = new(
    "f5-linear-axi-429-then-success",
    "retry_transient",
    False,
    gh("apexcloudwise/linear-axi", "issues", 30),
    "A Linear query is rate-limited twice, then succeeds; the session goes on.",
)
t.user("Which of my team's issues are in progress?")
LQ = {"team": "ENG", "state": "In Progress"}
t.call("linear_list_issues", LQ, error="RATE_LIMITED: 429 (Retry-After: 1)", kind="rate_limit")
t.call("linear_list_issues", LQ, error="RATE_LIMITED: 429 (Retry-After: 2)", kind="rate_limit")
t.call(
    "linear_list_issues",
    LQ,
    [{"id": "ENG-412", "title": "Retry budget"}, {"id": "ENG-419", "title": "CSV export"}],
)
t.call("linear_get_issue", {"id": "ENG-412"}, {"assignee": "you", "estimate": 3})
t.msg("Two issues are in progress: ENG-412 (yours, 3 points) and ENG-419.")

t = new(
    "f5-octrafic-wait-and-retry",
    "retry_transient",
    False,
    gh("Octrafic/octrafic-cli", "pull", 73),
    "API tests hit 429s; after each the agent calls the wait tool with the Retry-After and "
    "retries that endpoint, which then passes: the wait call is identical every time.",
)
t.user("Run the API test plan against staging")
for ep in ["/v1/users", "/v1/orders", "/v1/invoices", "/v1/refunds"]:
    t.call(
        "ExecuteTest",
        {"endpoint": ep, "method": "GET"},
        error="HTTP 429 Too Many Requests (Retry-After: 2)",
        kind="rate_limit",
    )
    t.call("wait", {"seconds": 2, "reason": "rate limited (429)"}, "waited 2s")
    t.call(
        "ExecuteTest", {"endpoint": ep, "method": "GET"}, {"status": 200, "checks": "4/4 passed"}
    )
t.msg("All four endpoints pass once the rate limit is respected.")

t = new(
    "f5-qveris-503-429-backoff",
    "retry_transient",
    False,
    gh("QVerisAI/qveris-agent-toolkit", "pull", 144),
    "Tool discovery gets a 503, then a 429, then succeeds; the discovered tool runs.",
)
t.user("Get tomorrow's weather for Lisbon")
DQ = {"query": "weather forecast"}
t.call("discover_tools", DQ, error="503 Service Unavailable", kind="server_error")
t.call("discover_tools", DQ, error="429 Too Many Requests (Retry-After: 1)", kind="rate_limit")
t.call("discover_tools", DQ, [{"tool_id": "openmeteo.forecast"}])
t.call(
    "call_tool",
    {"tool_id": "openmeteo.forecast", "params": {"city": "Lisbon", "days": 2}},
    {"tomorrow": "22C, clear"},
)
t.msg("Tomorrow in Lisbon: 22°C and clear.")

t = new(
    "f5-adnify-long-design-answer",
    "conversation",
    False,
    gh("ad-naan/Adnify", "issues", 180),
    "A long, non-repetitive design answer (an OpenID binding scheme) streamed as sixteen "
    "sections with no tool call between them.",
)
t.user("Write up how we should bind WeChat OpenIDs to existing accounts")
t.call("read_file", {"path": "server/auth/login.ts"}, "export async function login(code) {...}")
t.call("read_file", {"path": "server/db/schema.sql"}, "CREATE TABLE users (id, phone, ...)")
for s in [
    "1. Background: users log in by phone today; the mini-program gives us an OpenID per app.",
    "2. Goals: one account per person, several OpenIDs per account, no forced re-registration.",
    "3. Current flow: login(code) exchanges the code for a session key and looks up the phone.",
    "4. Schema: a user_openids table (user_id, app_id, openid, unionid, bound_at), "
    "unique on (app_id, openid).",
    "5. Binding API: POST /bind with the login code and a phone verification token.",
    "6. Unbinding: allowed from settings; the last login method cannot be removed.",
    "7. Conflicts: an OpenID already bound elsewhere returns 409 with a support link.",
    "8. UnionID: when present it links the web and mini-program OpenIDs of the same person.",
    "9. Migration: backfill from the login log where phone and OpenID appear together.",
    "10. Security: verify the code server-side, never trust an OpenID sent by the client.",
    "11. Rate limits: five bind attempts per hour per phone number.",
    "12. Error codes: 40029 invalid code, 45011 too frequent, our own 409 for conflicts.",
    "13. Tests: unit tests for the binding rules, an end-to-end test with the WeChat sandbox.",
    "14. Rollout: behind a flag for staff, then 10% of new logins, then everyone.",
    "15. Open questions: do we allow binding two phones to one OpenID during migration?",
    "16. Summary: a separate table, a verified bind endpoint, UnionID when available.",
]:
    t.msg(s)

t = new(
    "f5-theia-external-change-reread",
    "distinct_reads",
    False,
    gh("eclipse-theia/theia", "pull", 17863),
    "The agent reads a settings file, a formatter rewrites it on save, the user edits it by "
    "hand: each change is followed by the same read, which returns new content.",
)
t.user("Add a proxy setting to .vscode/settings.json")
SET = {"path": ".vscode/settings.json"}
t.call("read_file", SET, '{"editor.tabSize": 2}')
t.call(
    "write_file",
    SET | {"content": '{"editor.tabSize": 2, "http.proxy": "http://proxy:3128"}'},
    "written",
    mutates=True,
)
t.workspace("format on save rewrote the file with 4-space indentation")
t.call("read_file", SET, '{\n    "editor.tabSize": 2,\n    "http.proxy": "http://proxy:3128"\n}')
t.user("I changed the proxy port by hand, please also add proxyStrictSSL false")
t.workspace("the user edited the proxy port to 8080")
t.call("read_file", SET, '{\n    "editor.tabSize": 2,\n    "http.proxy": "http://proxy:8080"\n}')
t.call(
    "write_file",
    SET
    | {
        "content": '{"editor.tabSize": 2, "http.proxy": "http://proxy:8080", '
        '"http.proxyStrictSSL": false}'
    },
    "written",
    mutates=True,
)
t.call(
    "read_file",
    SET,
    '{"editor.tabSize": 2, "http.proxy": "http://proxy:8080", "http.proxyStrictSSL": false}',
)

t = new(
    "f5-simply-pip-install-rerun",
    "edit_test_cycle",
    False,
    gh("BESTenergytrade/simply", "issues", 102),
    "pytest fails on a missing module; installing the requirements goes to the wrong "
    "interpreter so the re-run fails the same way; installing with `python -m pip` fixes it.",
)
t.user("Run the test suite on this fresh checkout")
MNF = (
    "ImportError while importing test module tests/test_market.py\n"
    "E   ModuleNotFoundError: No module named 'matplotlib'"
)
t.call("bash", {"command": "pytest -q"}, error=MNF, kind="exit_code")
t.call(
    "bash",
    {"command": "pip install -r requirements.txt"},
    "Requirement already satisfied: matplotlib in /usr/lib/python3/dist-packages",
    mutates=True,
)
t.call("bash", {"command": "pytest -q"}, error=MNF, kind="exit_code")
t.call("bash", {"command": "which python pytest"}, "/work/venv/bin/python\n/usr/bin/pytest")
t.call(
    "bash",
    {"command": "python -m pip install -r requirements.txt"},
    "Successfully installed matplotlib-3.9.2 pandas-2.2.3",
    mutates=True,
)
t.call("bash", {"command": "python -m pytest -q"}, "48 passed in 6.12s")

t = new(
    "f5-codec-until-green",
    "long_productive",
    False,
    gh("AVADSA25/codec", "pull", 192),
    "An until-green loop: run the tests, read a failure, fix it, regenerate the skill "
    "manifest (the same 'up to date' most times), check git status; six rounds, then commit.",
)
t.user("Get the test suite green without touching the tests")
fails = [7, 5, 5, 3, 1, 0]
for k, nf in enumerate(fails):
    if nf:
        t.call(
            "bash",
            {"command": "python -m pytest -q -x"},
            error=f"{nf} failed, {120 - nf} passed\nFAILED tests/test_skill_{k}.py::test_load",
            kind="exit_code",
        )
        t.call("read_file", {"path": f"codec/skills/skill_{k}.py"}, f"def load_{k}(): ...")
        t.call(
            "edit_file",
            {
                "path": f"codec/skills/skill_{k}.py",
                "old": f"def load_{k}(): ...",
                "new": f"def load_{k}(): return Skill({k})",
            },
            "ok",
            mutates=True,
        )
        t.call(
            "bash",
            {"command": "python scripts/regen_manifest.py"},
            "manifest up to date" if k % 3 else "manifest regenerated (1 skill changed)",
        )
        t.call(
            "bash",
            {"command": "git status --short"},
            "\n".join(f" M codec/skills/skill_{j}.py" for j in range(k + 1)),
        )
    else:
        t.call("bash", {"command": "python -m pytest -q -x"}, "120 passed in 14.3s")
t.call(
    "bash",
    {"command": "git add -A && git commit -m 'fix skill loaders'"},
    "[main 5c1d2e9] fix skill loaders",
    mutates=True,
)
t.call("bash", {"command": "git status --short"}, "")

t = new(
    "f5-crypter-check-runs-poll",
    "polling",
    False,
    gh("Crypter-File-Transfer/Crypter", "pull", 846),
    "Watching CI through the API: check runs queued, in progress, one fails; read its log, "
    "fix, push, and watch again until all pass.",
)
t.user("Push the branch and make sure CI passes")
REF = {"ref": "feat/upload-limits"}
for st in [
    "queued 7",
    "in_progress 3/7",
    "in_progress 5/7",
    "completed: 6 success, 1 failure (lint)",
]:
    t.call("get_check_runs", REF, st)
t.call("get_job_log", {"job": "lint"}, "src/Upload.cs(41,9): warning IDE0059 treated as error")
t.call(
    "edit_file", {"path": "src/Upload.cs", "old": "var size = 0;", "new": ""}, "ok", mutates=True
)
t.call(
    "bash",
    {"command": "git commit -am 'remove unused variable' && git push"},
    "pushed 1a2b3c4",
    mutates=True,
)
for st in ["queued 7", "in_progress 4/7", "completed: 7 success"]:
    t.call("get_check_runs", REF, st)

t = new(
    "f5-rjmurillo-pending-then-success",
    "polling",
    False,
    gh("rjmurillo/ai-agents", "issues", 2370),
    "A check poll says PENDING (with a contradictory AllPassing); the refresh says SUCCESS.",
)
t.user("Is PR 2351 ready to merge?")
t.call(
    "get_pr_checks",
    {"pr": 2351},
    {"checks": [{"name": "build", "state": "PENDING"}], "AllPassing": True},
)
t.call(
    "get_pr_checks",
    {"pr": 2351},
    {"checks": [{"name": "build", "state": "SUCCESS"}], "AllPassing": True},
)
t.msg("All checks pass now; the PR is ready to merge.")

t = new(
    "f5-multica-store-restored-next-session",
    "session_memory",
    False,
    gh("multica-ai/multica", "issues", 1925) | {"case": "healthy sessions remain resumable"},
    "Resuming fails because the session store was missing; between sessions it is restored, "
    "and the same resume then works.",
)
t.user("Continue issue MUL-90")
RES90 = {"command": "claude --resume 1d7a9b22 -p 'continue'"}
t.call("bash", RES90, error="No conversation found with session ID: 1d7a9b22", kind="exit_code")
t.workspace("the operator restored ~/.claude/projects from last night's backup")
t.session("s2")
t.user("Continue issue MUL-90")
t.call("bash", RES90, "Resumed session 1d7a9b22 (14 messages)")
t.call("bash", {"command": "git log --oneline -1"}, "9e8f7a6 MUL-90: wip")

t = new(
    "f5-cmuxlayer-right-flag-next-session",
    "session_memory",
    False,
    gh("EtanHey/cmuxlayer", "issues", 423) | {"case": "manual --resume works"},
    "The wrong flag fails in one session; in the next the corrected command, a different "
    "call, runs.",
)
t.user("Restore my agent panes")
t.call(
    "bash",
    {"command": "cursor agent --session 4d2e91"},
    error="error: unknown option '--session'",
    kind="invalid_args",
)
t.session("s2")
t.user("Use --resume this time")
t.call("bash", {"command": "cursor agent --resume 4d2e91"}, "Resumed chat 4d2e91")
t.call("terminal_send", {"surface": 81, "text": "continue"}, "ok")

t = new(
    "f5-sdqctl-commit-acks",
    "long_productive",
    False,
    {"repo": "bewest/sdqctl", "path": "docs/LOOP-STRESS-TEST.md", "case": "commit acknowledgments"},
    "Eight small fixes, each committed and acknowledged with the same short line; the "
    "messages repeat but work happens between them.",
)
t.user("Work through the TODO list in docs/todo.md, one commit per item")
t.call("read_file", {"path": "docs/todo.md"}, "\n".join(f"- item {k}" for k in range(8)))
for k in range(8):
    t.call(
        "edit_file",
        {"path": f"src/mod_{k}.py", "old": "TODO", "new": f"done_{k}()"},
        "ok",
        mutates=True,
    )
    t.call(
        "bash",
        {"command": f"git commit -am 'todo item {k}'"},
        f"[main {_hex(7)}] todo item {k}",
        mutates=True,
    )
    t.msg("Committed.")

t = new(
    "f5-obsidian-note-read-verify",
    "distinct_reads",
    False,
    {
        "repo": "allenhutchison/obsidian-gemini",
        "path": "docs/loop-detection.md",
        "case": "same file read three times in 30 s",
    },
    "The same note read three times within half a minute: before an append, to verify it, "
    "and after the user edited it in Obsidian; the content differs each time.",
)
t.user("Append today's meeting notes to notes/example.md")
NOTE = {"path": "notes/example.md"}
t.call("read_file", NOTE, "# Example\n- 2026-11-30: kickoff")
t.call("append_file", NOTE | {"text": "- 2026-12-01: planning"}, "ok", mutates=True)
t.call("read_file", NOTE, "# Example\n- 2026-11-30: kickoff\n- 2026-12-01: planning")
t.user("I fixed a typo in the note; can you add the action items under today's entry?")
t.workspace("the user edited notes/example.md in Obsidian")
t.call("read_file", NOTE, "# Example\n- 2026-11-30: kick-off\n- 2026-12-01: planning")
t.call("append_file", NOTE | {"text": "  - action: draft the budget"}, "ok", mutates=True)

t = new(
    "f5-devops-bench-pods-rollout",
    "polling",
    False,
    gh("kubernetes-sigs/devops-bench", "pull", 189),
    "Diagnose a failing deployment, fix it, and watch the pods: the same `kubectl get pods` "
    "again and again, its output moving from CrashLoopBackOff to Running (unchanged once).",
)
t.user("Diagnose why checkout is failing in the shop namespace, then fix it")
GP = {"command": "kubectl get pods -n shop -l app=checkout"}
t.call("bash", GP, "checkout-7d9f  0/1  CrashLoopBackOff  5  3m")
t.call(
    "bash",
    {"command": "kubectl logs -n shop checkout-7d9f --tail=20"},
    "Error: env STRIPE_KEY not set",
)
t.call("bash", {"command": "kubectl describe deploy -n shop checkout"}, "Environment: <none>")
t.call(
    "bash",
    {"command": "kubectl set env -n shop deploy/checkout --from=secret/stripe"},
    "deployment.apps/checkout env updated",
    mutates=True,
)
for out in [
    "checkout-7d9f  0/1  Terminating  5  4m\ncheckout-5c2a  0/1  ContainerCreating  0  2s",
    "checkout-5c2a  0/1  ContainerCreating  0  9s",
    "checkout-5c2a  0/1  ContainerCreating  0  9s",
    "checkout-5c2a  0/1  Running  0  21s",
    "checkout-5c2a  1/1  Running  0  34s",
]:
    t.call("bash", GP, out)
t.user("What would you change to stop it recurring?")
t.msg("Make the secret reference required in the chart and add a readiness probe on /health.")


# ================================================================ fresh6 set
# Written at 01:15 UTC (Dec 2) from sources no earlier split uses (checked against every
# `source` of the file): loops from huggingface/smolagents #1226, microsoft/vscode #256281,
# #332151 and #296123, octos-org/octos #284, web-infra-dev/midscene #704,
# grandamenium/cortextos #390, junjiem/dify-plugin-agent-mcp_sse #65, future-agi/future-agi
# #1201, bitrix24/b24jssdk #495, PrefectHQ/fastmcp #3167, LerianStudio/midaz-sdk-golang #241,
# dwgx/WindsurfAPI #116, thedotmack/claude-mem #3724, use-agent-os/agent-os #2216,
# clusterfudge/silica (tests/test_loop_detection.py), GCWing/OpenBitFun #690,
# eastreams/loong #936, langchain-ai/langchainjs #1404, MiniMax-AI/Mini-Agent #36,
# pipecat-ai/pipecat #3023, Extra-Chill/data-machine #1; legitimate sessions from
# microsoft/playwright-mcp #712, openclaw/notcrawl #109, Extra-Chill/data-machine #1950,
# HeitorM50/OsBiruBob #10, coder/coder #25091, mvanhorn/last30days-skill #971,
# Tencent/AI-Infra-Guard #651, VoltAgent/voltagent #430, JaidenSy/Arbiter #181,
# letta-ai/lettabot #43, esengine/DeepSeek-Reasonix #10071, Skyvern-AI/rustwright #197 and
# the loop sources' own legitimate counterparts. Committed before crs was run on them.
# Split "fresh6".

FRESH6_START = len(ALL)
_r6 = random.Random(6006)


def _hex6(n: int) -> str:
    return "".join(_r6.choice("0123456789abcdef") for _ in range(n))


# ---- fresh6 loops

t = new(
    "f6-smolagents-codeagent-repeats-step",
    "repeated_call",
    True,
    gh("huggingface/smolagents", "issues", 1226),
    "A CodeAgent has its answer after the first step but runs the same code snippet again "
    "and again, the same printed line each time (the code tool's name says python, so every "
    "run looks like it could change something).",
)
t.user("What does line 12 of the smolagents README say?")
CODE = {"code": "line = get_readme_line(12)\nprint(line)"}
LINE12 = (
    "Execution logs:\nsmolagents is a library that enables you to run powerful agents in a "
    "few lines of code.\nLast output from code snippet:\nNone"
)
idx = [t.call("python_interpreter", CODE, LINE12) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f6-vscode-create-same-file",
    "error_loop",
    True,
    gh("microsoft/vscode", "issues", 256281),
    "Agent mode repeats the same create-file instruction: the first creates the file, every "
    "later one is refused because the file exists, and it keeps issuing it.",
)
t.user("Scaffold a settings page component")
t.call("list_dir", {"path": "src/pages"}, "index.tsx\nprofile.tsx")
NEWFILE = {
    "filePath": "src/pages/settings.tsx",
    "content": "export default function Settings() {\n  return <h1>Settings</h1>;\n}\n",
}
t.call("create_file", NEWFILE, "Created src/pages/settings.tsx", mutates=True)
idx = [
    t.call(
        "create_file",
        NEWFILE,
        error="File already exists: src/pages/settings.tsx",
        kind="invalid_args",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f6-vscode-setup-script-loop",
    "error_loop",
    True,
    gh("microsoft/vscode", "issues", 332151),
    "The agent runs the same setup script in the terminal over and over; it fails the same "
    "way each time and only the explanation it attaches to the call changes.",
)
t.user("Set the repo up so I can run the dev server")
t.call(
    "read_file",
    {"filePath": "scripts/setup.sh", "startLine": 1, "endLine": 20},
    "#!/usr/bin/env bash\nset -e\npnpm install\npnpm build\n",
)
SETUP_ERR = "./scripts/setup.sh: line 3: pnpm: command not found\nCommand exited with code 127"
EXPL = [
    "Run the setup script to install dependencies",
    "Retry the setup script",
    "Run setup again to install everything needed",
    "Execute the project's setup script",
    "Try the setup script once more",
    "Run the setup script to prepare the repository",
]
idx = [
    t.call(
        "run_in_terminal",
        {"command": "./scripts/setup.sh", "explanation": e, "isBackground": False},
        error=SETUP_ERR,
        kind="exit_code",
    )
    for e in EXPL
]
t.mark(idx[1], idx[1])

t = new(
    "f6-octos-shell-variants-same-error",
    "no_progress",
    True,
    gh("octos-org/octos", "issues", 284),
    "The agent found the file, then loops in the shell trying to process it: each command is "
    "spelled a little differently, every one fails with the same missing module.",
)
t.user("Find last month's report and send me a CSV of it")
t.call("shell", {"command": "find /data -name 'report*.xlsx'"}, "/data/report-2026-10.xlsx")
t.call("shell", {"command": "ls /data"}, "convert.py\nreport-2026-10.xlsx")
MOD = (
    'Traceback (most recent call last):\n  File "convert.py", line 2, in <module>\n'
    "    import openpyxl\nModuleNotFoundError: No module named 'openpyxl'"
)
idx = [
    t.call("shell", {"command": c}, error=MOD, kind="exit_code")
    for c in [
        "cd /data && python3 convert.py report-2026-10.xlsx",
        "cd /data && python convert.py report-2026-10.xlsx",
        "cd /data && python3 ./convert.py report-2026-10.xlsx",
        "cd /data && python3 convert.py ./report-2026-10.xlsx",
        "cd /data && python3 -u convert.py report-2026-10.xlsx",
        "cd /data && /usr/bin/python3 convert.py report-2026-10.xlsx",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f6-midscene-scroll-up-cycle",
    "cycle",
    True,
    gh("web-infra-dev/midscene", "issues", 704),
    "Android: to list the installed apps the agent scrolls up, asks what is on screen, scrolls "
    "up again ... it is already at the top, so the screen and the answer never change.",
)
t.user("Which apps are currently installed on the device?")
t.call(
    "aiQuery",
    {"demand": "names of the apps visible on screen"},
    '["Clock", "Camera", "Settings", "Chrome", "Files", "Photos"]',
)
SCREEN = "Home screen, app drawer open at the top: Clock, Camera, Settings, Chrome, Files, Photos"
occ = repeat_block(
    t,
    [
        {"tool": "aiScroll", "args": {"direction": "up", "scrollType": "once"}, "result": SCREEN},
        {
            "tool": "aiQuery",
            "args": {"demand": "names of the apps visible on screen"},
            "result": '["Clock", "Camera", "Settings", "Chrome", "Files", "Photos"]',
        },
    ],
    5,
)
# The block's rotation that starts with the first query (query, scroll) has fully repeated
# at the second scroll (corrected after the first run: README.md, "fresh6").
t.mark(occ[0][1], occ[1][0], period=2)

t = new(
    "f6-cortextos-edit-read-cycle",
    "cycle",
    True,
    gh("grandamenium/cortextos", "pull", 390),
    "An Edit/Read wedge on one file: the edit's old string is not in the file, the agent "
    "reads the file (unchanged), tries the same edit, reads again ...",
)
t.user("Bump the retry limit in the worker config to 5")
CFG = "worker:\n  concurrency: 4\n  retry_limit: 3  # per job\n  backoff: exponential\n"
t.call("Read", {"file_path": "/repo/config/worker.yaml"}, CFG)
EDIT = {
    "file_path": "/repo/config/worker.yaml",
    "old_string": "retry_limit: 3\n",
    "new_string": "retry_limit: 5\n",
}
occ = repeat_block(
    t,
    [
        {
            "tool": "Edit",
            "args": EDIT,
            "error": "String to replace not found in file.",
            "kind": "invalid_args",
        },
        {"tool": "Read", "args": {"file_path": "/repo/config/worker.yaml"}, "result": CFG},
    ],
    5,
)
# The rotation that starts with the first read (read, failed edit) has fully repeated at
# the second failed edit (corrected after the first run: README.md, "fresh6").
t.mark(occ[0][1], occ[1][0], period=2)

t = new(
    "f6-dify-two-cities-cycle",
    "cycle",
    True,
    gh("junjiem/dify-plugin-agent-mcp_sse", "issues", 65),
    "A ReAct agent planning a train trip forgets each result: it looks up Changsha's "
    "stations, then Loudi's, then Changsha's again, then Loudi's ... the same answers.",
)
t.user("长沙到娄底的高铁怎么买票？")  # noqa: RUF001
occ = repeat_block(
    t,
    [
        {
            "tool": "search_stations",
            "args": {"city": "长沙"},
            "result": '{"stations": ["长沙南", "长沙", "长沙西"]}',
        },
        {
            "tool": "search_stations",
            "args": {"city": "娄底"},
            "result": '{"stations": ["娄底南", "娄底"]}',
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f6-future-agi-cosmetic-drift",
    "no_progress",
    True,
    gh("future-agi/future-agi", "pull", 1201),
    "The same knowledge-base search retried with cosmetic drift only: the query reworded a "
    "little and a client timestamp that changes every call; the answer never changes.",
)
t.user("What's the refund window for annual plans?")
KB = '{"hits": [{"id": "faq-17", "title": "Refunds for monthly plans", "score": 0.41}]}'
idx = []
for q in [
    "refund window annual plan",
    "annual plan refund window",
    "refund policy for annual plans",
    "annual subscription refund window",
    "refund window for the annual plan",
    "annual plans refund period",
]:
    idx.append(
        t.call(
            "search_kb",
            {"query": q, "top_k": 3, "client_ts": 1_790_000_000 + _r6.randint(0, 9999)},
            KB,
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f6-b24-cursor-alternates",
    "cycle",
    True,
    gh("bitrix24/b24jssdk", "issues", 495),
    "A portal whose pagination alternates between two cursors: the agent walking the deal "
    "list gets page A, then B, then A again, B again ... the same rows each time.",
)
t.user("Export every open deal to a spreadsheet")
t.call(
    "crm_deal_list",
    {"filter": {"STAGE_SEMANTIC_ID": "P"}},
    '{"result": [{"ID": 1}, {"ID": 2}], "next": "A"}',
)
occ = repeat_block(
    t,
    [
        {
            "tool": "crm_deal_list",
            "args": {"filter": {"STAGE_SEMANTIC_ID": "P"}, "start": "A"},
            "result": '{"result": [{"ID": 51}, {"ID": 52}], "next": "B"}',
        },
        {
            "tool": "crm_deal_list",
            "args": {"filter": {"STAGE_SEMANTIC_ID": "P"}, "start": "B"},
            "result": '{"result": [{"ID": 101}, {"ID": 102}], "next": "A"}',
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f6-fastmcp-cursor-never-ends",
    "repeated_call",
    True,
    gh("PrefectHQ/fastmcp", "pull", 3167),
    "A server that always returns the same nextCursor: the agent asks for the next page of "
    "tools with that cursor and gets the same page back, again and again.",
)
t.user("Which tools does the inventory server offer?")
t.call(
    "list_tools",
    {"server": "inventory"},
    '{"tools": ["get_item", "list_items"], "nextCursor": "p2"}',
)
PAGE2 = '{"tools": ["update_stock", "reserve_item"], "nextCursor": "p2"}'
idx = [t.call("list_tools", {"server": "inventory", "cursor": "p2"}, PAGE2) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f6-midaz-echoed-cursor-ratelimit",
    "repeated_call",
    True,
    gh("LerianStudio/midaz-sdk-golang", "pull", 241),
    "A gateway echoes the cursor it received: the same page again on every request; only the "
    "response's rate-limit counter (remaining requests) goes down each time.",
)
t.user("Sum this month's transactions for ledger L-7")
idx = []
for k in range(6):
    idx.append(
        t.call(
            "list_transactions",
            {"ledger_id": "L-7", "limit": 100, "cursor": "eyJpZCI6MTAwfQ"},
            {
                "items": [{"id": 101, "amount": "12.50"}, {"id": 102, "amount": "7.00"}],
                "pagination": {"next_cursor": "eyJpZCI6MTAwfQ", "limit": 100},
                "rate_limit": {"limit": 1000, "remaining": 993 - k},
            },
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f6-windsurf-reanalyse-loop",
    "monologue",
    True,
    gh("dwgx/WindsurfAPI", "issues", 116),
    "After the analysis is done the model analyses and summarises the same data again, and "
    "again: each message restates the same findings in slightly different words.",
)
t.user("Analyse the sales CSV and summarise the trend")
t.call("read_file", {"path": "sales.csv"}, "month,revenue\n2026-07,120\n2026-08,135\n2026-09,151\n")
SUMS = [
    "Analysis: revenue grew every month, from 120 in July to 151 in September, about 12% a "
    "month. Summary: steady growth.",
    "Let me analyse the data again. Revenue grew each month, from 120 in July to 151 in "
    "September, roughly 12% monthly. Summary: steady growth.",
    "Re-analysing the data: revenue rose every month from 120 (July) to 151 (September), "
    "around 12% a month. In summary, growth is steady.",
    "Analysis of the data: from July's 120 to September's 151 revenue grew each month, about "
    "12% monthly. Summary: steady growth.",
    "Let me summarise again: revenue grew every month, 120 in July to 151 in September, "
    "about 12% a month. Steady growth.",
    "Analysing once more: revenue increased monthly from 120 to 151 between July and "
    "September, approximately 12% per month. Summary: steady growth.",
]
idx = [t.msg(s) for s in SUMS]
t.mark(idx[1], idx[1])

t = new(
    "f6-claude-mem-expired-token-every-session",
    "known_failure",
    True,
    gh("thedotmack/claude-mem", "issues", 3724),
    "Every hook event re-initialises the memory worker, which spawns the SDK agent; the spawn "
    "fails on the same expired OAuth token each time, session after session.",
)
SPAWN = {"model": "claude-haiku", "resume": False, "prompt_file": "observer.md"}
AUTH = "401 authentication_error: OAuth token has expired. Please run /login."
t.user("PostToolUse hook: record the observation")
t.call("spawn_sdk_agent", SPAWN, error=AUTH, kind="permission")
t.session("s2")
t.user("PostToolUse hook: record the observation")
rep = t.call("spawn_sdk_agent", SPAWN, error=AUTH, kind="permission")
t.session("s3")
t.user("PostToolUse hook: record the observation")
t.call("spawn_sdk_agent", SPAWN, error=AUTH, kind="permission")
t.mark(rep, rep - 1)

t = new(
    "f6-agent-os-stranded-migration",
    "known_failure",
    True,
    gh("use-agent-os/agent-os", "issues", 2216),
    "An interrupted memory migration leaves the target half-made; every later start runs the "
    "migration again on the same tree and fails the same way.",
)
MIGR = {"command": "agentos migrate-memory --agent main"}
FEX = "FileExistsError: [Errno 17] File exists: 'data/agents/main/memory'"
t.user("Start the agent")
t.call("bash", {"command": "ls data"}, "agents\nmemory")
t.call("bash", MIGR, error=FEX, kind="exit_code")
t.session("s2")
t.user("Start the agent")
rep = t.call("bash", MIGR, error=FEX, kind="exit_code")
t.call("bash", {"command": "ls data/agents/main"}, "memory\nmemory.db")
t.mark(rep, rep - 1)

t = new(
    "f6-silica-test-runner-loop",
    "repeated_call",
    True,
    {
        "repo": "clusterfudge/silica",
        "path": "tests/test_loop_detection.py",
        "case": "test_test_runner_loop",
    },
    "The same test-runner pipeline through the shell tool, the same 139 passed / 10 failed "
    "each time, with nothing edited in between.",
)
t.user("Get the compiler test suite green")
RT = {
    "command": "cd /path/to/project && bash run_tests.sh 2>&1 | grep -E '(FAIL|Results)'",
    "timeout": 120,
}
RT_OUT = (
    "Exit code: 0\nSTDOUT:\nFAIL (run): 00051 (exit=1)\nFAIL (run): 00124 (exit=214)\n"
    "FAIL (compile): 00129\nFAIL (run): 00130 (exit=139)\nFAIL (compile): 00141\n"
    "FAIL (run): 00143 (exit=1)\nFAIL (compile): 00145\nFAIL (run): 00151 (exit=139)\n"
    "FAIL (compile): 00152\nFAIL (compile): 00209\nResults: 139 passed, 10 failed"
)
t.call("read_file", {"path": "run_tests.sh"}, "#!/bin/bash\nfor t in tests/*.c; do ...; done")
idx = [t.call("shell_execute", RT, RT_OUT) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f6-openbitfun-identical-rewrite",
    "repeated_call",
    True,
    gh("GCWing/OpenBitFun", "pull", 690),
    "The model regenerates the same file with Write again and again: identical path and "
    "content, the same 'wrote N bytes' each time; only the first write changed anything.",
)
t.user("Replace the mock data in the insights route with a real query")
ROUTE = (
    "import { db } from '@/lib/db';\n\nexport async function GET() {\n"
    "  const rows = await db.insight.findMany({ take: 20 });\n  return Response.json(rows);\n}\n"
)
t.call(
    "Read",
    {"file_path": "src/app/api/insights/route.ts"},
    "export async function GET() {\n  return Response.json(MOCK);\n}\n",
)
WR = {"file_path": "src/app/api/insights/route.ts", "content": ROUTE}
WROTE = f"Wrote {len(ROUTE)} bytes to src/app/api/insights/route.ts"
t.call("Write", WR, WROTE, mutates=True)
idx = [t.call("Write", WR, WROTE) for _ in range(5)]
t.mark(idx[0], idx[0])

t = new(
    "f6-openbitfun-periodic-three",
    "cycle",
    True,
    gh("GCWing/OpenBitFun", "pull", 690),
    "The periodic-signature case: grep, read, run the test, and round again; the same three "
    "results every round.",
)
t.user("Find out why the date parser test fails")
occ = repeat_block(
    t,
    [
        {
            "tool": "Grep",
            "args": {"pattern": "fn parse_date", "path": "src"},
            "result": "src/date.rs:14:pub fn parse_date(s: &str) -> Result<Date, Error> {",
        },
        {
            "tool": "Read",
            "args": {"file_path": "src/date.rs", "offset": 10, "limit": 30},
            "result": "pub fn parse_date(s: &str) -> Result<Date, Error> {\n"
            "    let p: Vec<_> = s.split('/').collect();\n    ...",
        },
        {
            "tool": "Bash",
            "args": {"command": "cargo test parse_date"},
            "error": "test date::tests::parse_iso ... FAILED\n"
            "thread 'date::tests::parse_iso' panicked at src/date.rs:41: index out of bounds\n"
            "test result: FAILED. 3 passed; 1 failed",
            "kind": "exit_code",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f6-loong-check-pingpong",
    "cycle",
    True,
    gh("eastreams/loong", "issues", 936),
    "Ping-pong between two tools: read the manifest, run cargo check, read the manifest, run "
    "cargo check ... nothing edited, the same error every time.",
)
t.user("The build broke after the dependency bump; fix it")
MANI = '[dependencies]\ntokio = { version = "1.40", features = ["rt"] }\nserde = "1"\n'
CHECK_ERR = (
    "error[E0433]: failed to resolve: could not find `main` in `tokio`\n"
    " --> src/main.rs:3:10\nerror: could not compile `loong` due to 1 previous error"
)
occ = repeat_block(
    t,
    [
        {"tool": "file_read", "args": {"path": "Cargo.toml"}, "result": MANI},
        {
            "tool": "shell",
            "args": {"command": "cargo check"},
            "error": CHECK_ERR,
            "kind": "exit_code",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f6-langchainjs-autogpt-weather",
    "repeated_call",
    True,
    gh("langchain-ai/langchainjs", "issues", 1404),
    "The AutoGPT example's perpetual cycle: the same web search for today's weather, the same "
    "results, each time with a fresh plan in the thoughts.",
)
t.user("Write a weather report for San Francisco today")
W = "San Francisco, CA: 61°F, fog clearing by noon, wind W 12 mph. (weather.example)"
idx = [
    t.call(
        "search",
        {"input": "weather in San Francisco today"},
        W,
        thought=f"I should check the weather for San Francisco today (attempt {k + 1}).",
    )
    for k in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f6-minimax-notion-timeouts",
    "error_loop",
    True,
    gh("MiniMax-AI/Mini-Agent", "issues", 36),
    "A remote MCP tool whose connection keeps timing out: the agent calls it again at once, "
    "every call ends in the same connect timeout.",
)
t.user("Create a Notion database for the reading list")
NDB = {"parent_page": "Reading", "title": "Reading list", "properties": {"Title": "title"}}
idx = [
    t.call(
        "notion-create-database",
        NDB,
        error="TypeError: fetch failed [cause]: ConnectTimeoutError: Connect Timeout Error "
        "(attempted address: api.notion.com:443, timeout: 10000ms)",
        kind="timeout",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f6-vscode-tool-search-regex-loop",
    "no_progress",
    True,
    gh("microsoft/vscode", "issues", 296123),
    "An MCP server failed to activate; the model searches the deferred tools again and again "
    "with reworded regexes, always told nothing matched.",
)
t.user("Create a GitHub issue for the flaky login test")
NONE = "No tools matched the pattern. 0 deferred tools loaded."
idx = [
    t.call("tool_search_tool_regex", {"pattern": p}, NONE)
    for p in [
        "github.*issue",
        "create_issue",
        "mcp_github_create.*",
        "github_issue",
        "issue.*create",
        "mcp_github_.*issue.*",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f6-pipecat-repeats-before-tool",
    "cycle",
    True,
    gh("pipecat-ai/pipecat", "issues", 3023),
    "The bot's words before a tool call never reach the context, so it says the same thing "
    "and calls the same tool again: message, call, message, call ... same result.",
)
t.user("What's the weather in Lisbon?")
occ = []
for _ in range(4):
    a = t.msg("Let me check the current weather in Lisbon for you.")
    b = t.call(
        "get_weather",
        {"location": "Lisbon, PT", "unit": "celsius"},
        '{"temp": 19, "conditions": "clear", "wind_kph": 14}',
    )
    occ.append([a, b])
mark_cycle(t, occ)

t = new(
    "f6-data-machine-duplicate-publish",
    "repeated_call",
    True,
    gh("Extra-Chill/data-machine", "issues", 1),
    "The handler tool is called again after a successful publish, with the same post each "
    "time; each call creates another copy, so only the new post's number differs.",
)
t.user("Publish today's event roundup to the site")
t.call("fetch_events", {"date": "2026-11-30"}, '[{"title": "Open mic"}, {"title": "Jazz trio"}]')
POST = {
    "title": "Event roundup: Nov 30",
    "content": "Open mic at 8pm. Jazz trio at 9pm.",
    "status": "publish",
}
idx = [
    t.call("wordpress_publish", POST, f'{{"post_id": {4812 + k}, "status": "publish"}}')
    for k in range(5)
]
t.mark(idx[1], idx[1])


# ---- fresh6 legitimate

t = new(
    "f6-playwright-mcp-login-flow",
    "distinct_reads",
    False,
    gh("microsoft/playwright-mcp", "issues", 712),
    "A browser login through the MCP tools: navigate, click, snapshot after each step; every "
    "snapshot shows a different page.",
)
t.user("Log in to the extensions site with GitHub and open my extensions")
t.call(
    "browser_navigate",
    {"url": "https://ext.ulauncher.io"},
    '- banner:\n  - button "Log In" [ref=e15]\n- main: "Browse extensions"',
)
t.call(
    "browser_click",
    {"element": "Log In button", "ref": "e15"},
    '- dialog:\n  - generic [ref=e31]: Continue with GitHub\n  - button "Close" [ref=e32]',
)
t.call(
    "browser_click",
    {"element": "Continue with GitHub", "ref": "e31"},
    '- heading "Sign in to GitHub"\n- textbox "Username or email" [ref=e7]\n'
    '- textbox "Password" [ref=e9]',
)
t.call(
    "browser_type",
    {"element": "Username", "ref": "e7", "text": "dev@example.org"},
    '- textbox "Username or email" [ref=e7]: dev@example.org',
)
t.call(
    "browser_type",
    {"element": "Password", "ref": "e9", "text": "********", "submit": True},
    '- heading "Authorize Ulauncher"\n- button "Authorize" [ref=e21]',
)
t.call(
    "browser_click",
    {"element": "Authorize", "ref": "e21"},
    '- banner:\n  - link "My extensions" [ref=e44]\n- main: "Welcome back"',
)
t.call(
    "browser_click",
    {"element": "My extensions", "ref": "e44"},
    '- list:\n  - listitem: "Clipboard history"\n  - listitem: "Emoji search"',
)
t.call(
    "browser_snapshot",
    {},
    '- list:\n  - listitem: "Clipboard history" (42 installs)\n'
    '  - listitem: "Emoji search" (17 installs)',
)
t.msg("You have two extensions: Clipboard history (42 installs) and Emoji search (17).")

t = new(
    "f6-fastmcp-healthy-pagination",
    "distinct_reads",
    False,
    gh("PrefectHQ/fastmcp", "pull", 3167),
    "A well-behaved server: list_resources page by page, each with a new cursor, until the "
    "last page has none.",
)
t.user("List every resource the docs server exposes")
cur = None
for k in range(6):
    args = {"server": "docs"} if cur is None else {"server": "docs", "cursor": cur}
    nxt = None if k == 5 else f"c{_hex6(10)}"
    page = {"resources": [f"docs://guide/{k * 3 + j}" for j in range(3)], "nextCursor": nxt}
    t.call("list_resources", args, page)
    cur = nxt
t.msg("The docs server exposes 18 resources (guide pages 0-17).")

t = new(
    "f6-notcrawl-long-listing",
    "long_productive",
    False,
    gh("openclaw/notcrawl", "pull", 109),
    "A healthy long listing: a 40-page block listing of one Notion page, each request with "
    "the cursor the last one returned, then a summary written to disk.",
)
t.user("Crawl the Engineering handbook page and save its outline")
cur = None
for k in range(40):
    args = {"block_id": "eng-handbook", "page_size": 100}
    if cur is not None:
        args["start_cursor"] = cur
    nxt = None if k == 39 else f"{_hex6(8)}-{_hex6(4)}-{_hex6(4)}-{_hex6(4)}-{_hex6(12)}"
    t.call(
        "notion_list_block_children",
        args,
        {
            "results": [
                f"heading_2: Section {k + 1}",
                f"paragraph: {k * 100 + 1}..{k * 100 + 100}",
            ],
            "next_cursor": nxt,
            "has_more": nxt is not None,
        },
    )
    cur = nxt
t.call(
    "write_file",
    {"path": "out/eng-handbook.md", "content": "# Engineering handbook\n..."},
    "wrote out/eng-handbook.md",
    mutates=True,
)
t.msg("Saved the outline of all 40 sections to out/eng-handbook.md.")

t = new(
    "f6-data-machine-inspect-between-edits",
    "edit_test_cycle",
    False,
    gh("Extra-Chill/data-machine", "pull", 1950),
    "Repeatable inspection tools called with the same parameters between edits: git status "
    "and a read of the file after each change, each answer new.",
)
t.user("Rename the 'venue' field to 'location' in the event importer")
t.call("workspace_git_status", {}, "clean")
t.call("workspace_read", {"path": "inc/Importer.php"}, "$venue = $row['venue'];\n...")
for k, (old, new_) in enumerate(
    [
        ("$venue = $row['venue'];", "$location = $row['location'];"),
        ("'venue' => $venue,", "'location' => $location,"),
        ("@param string $venue", "@param string $location"),
    ]
):
    t.call(
        "workspace_edit",
        {"path": "inc/Importer.php", "old": old, "new": new_},
        "edited inc/Importer.php (1 replacement)",
        mutates=True,
    )
    t.call("workspace_git_status", {}, f" M inc/Importer.php ({k + 1} hunks)")
    t.call(
        "workspace_read",
        {"path": "inc/Importer.php"},
        f"$location = $row['location'];\n... ({k + 1} of 3 renamed)",
    )
t.call("workspace_run", {"command": "composer test"}, "OK (48 tests, 112 assertions)")

t = new(
    "f6-osbirubob-rules-of-rereading",
    "distinct_reads",
    False,
    gh("HeitorM50/OsBiruBob", "issues", 10),
    "The redundant-read detector's own rules: two identical reads issued in parallel in one "
    "turn, the same path listed recursively and not, and re-reads after each write.",
)
t.user("Tidy the README's install section")
t.call("read_file", {"path": "README.md"}, "# OsBiruBob\n## Install\nnpm i\n## Usage\n...")
t.call("read_file", {"path": "README.md"}, "# OsBiruBob\n## Install\nnpm i\n## Usage\n...")
t.call("list_files", {"path": "docs", "recursive": False}, "domain-model.md\nguides/")
t.call(
    "list_files",
    {"path": "docs", "recursive": True},
    "domain-model.md\nguides/setup.md\nguides/observe.md",
)
t.call("read_file", {"path": "docs/guides/setup.md"}, "Requires Node 20.\n`npm ci`")
t.call(
    "write_file",
    {"path": "README.md", "content": "# OsBiruBob\n## Install\nRequires Node 20.\n"},
    "ok",
    mutates=True,
)
t.call("read_file", {"path": "README.md"}, "# OsBiruBob\n## Install\nRequires Node 20.\n")
t.call(
    "write_file",
    {"path": "README.md", "content": "# OsBiruBob\n## Install\nRequires Node 20.\n\n    npm ci\n"},
    "ok",
    mutates=True,
)
t.call(
    "read_file", {"path": "README.md"}, "# OsBiruBob\n## Install\nRequires Node 20.\n\n    npm ci\n"
)
t.msg("The install section now names Node 20 and uses npm ci.")

t = new(
    "f6-coder-batch-edits-eight-files",
    "edit_test_cycle",
    False,
    gh("coder/coder", "pull", 25091),
    "One feature as a batch: the same kind of edit in eight files (each answered the same "
    "way), then the build and the tests.",
)
t.user("Gate the computer-use tool behind the new experiment flag")
FILES = [
    "coderd/chat.go",
    "coderd/chat_test.go",
    "codersdk/chat.go",
    "site/src/api/chat.ts",
    "site/src/pages/Chat.tsx",
    "site/src/pages/Chat.stories.tsx",
    "docs/chat.md",
    "coderd/experiments.go",
]
for f in FILES:
    t.call("read_file", {"path": f}, f"// {f}\n... computerUse ...")
for f in FILES:
    t.call(
        "edit_files",
        {
            "files": [
                {
                    "path": f,
                    "edits": [
                        {
                            "search": "computerUse: true",
                            "replace": "computerUse: experiments.ComputerUse",
                        }
                    ],
                }
            ]
        },
        "Applied 1 edit(s) to 1 file(s).",
        mutates=True,
    )
t.call("execute", {"command": "make build"}, "build ok: 4 binaries")
t.call("execute", {"command": "go test ./coderd/... -run Chat"}, "ok  coderd  3.214s")

t = new(
    "f6-last30days-reddit-429-once",
    "retry_transient",
    False,
    gh("mvanhorn/last30days-skill", "pull", 971),
    "A search refused once with HTTP 429, retried after the declared backoff, answered; the "
    "research goes on.",
)
t.user("What did people say about the new Rust edition in the last 30 days?")
RQ = {"source": "reddit", "query": "rust 2024 edition", "days": 30}
t.call("web_research", RQ, error="HTTP 429 Too Many Requests (retry after 2s)", kind="rate_limit")
t.call("web_research", RQ, '{"posts": 38, "top": ["Edition migration went smoothly", "..."]}')
t.call(
    "web_research",
    {"source": "hackernews", "query": "rust 2024 edition", "days": 30},
    '{"posts": 12, "top": ["Async closures finally", "..."]}',
)
t.msg("Mostly positive: migrations were smooth; async closures were the headline feature.")

t = new(
    "f6-ai-infra-guard-two-429s",
    "retry_transient",
    False,
    gh("Tencent/AI-Infra-Guard", "pull", 651),
    "An LLM-backed scan step rate-limited twice with Retry-After, then answered; two retries "
    "are within any retry budget.",
)
t.user("Scan the filesystem MCP server for risky tools")
SC = {"server": "filesystem", "checks": ["tool_poisoning", "rug_pull"]}
t.call("mcp_scan", SC, error="429 Too Many Requests (Retry-After: 2)", kind="rate_limit")
t.call("mcp_scan", SC, error="429 Too Many Requests (Retry-After: 4)", kind="rate_limit")
t.call("mcp_scan", SC, '{"findings": [{"tool": "write_file", "risk": "medium"}]}')
t.msg("One medium finding: write_file can write outside the workspace root.")

t = new(
    "f6-voltagent-mcp-timeout-recovers",
    "retry_transient",
    False,
    gh("VoltAgent/voltagent", "issues", 430),
    "A slow MCP tool times out once; the error goes back to the model, which retries and gets "
    "the answer, then carries on.",
)
t.user("Summarise the open incidents")
t.call(
    "incidents_list",
    {"status": "open"},
    error="MCP tool call timed out after 30000ms",
    kind="timeout",
)
t.call("incidents_list", {"status": "open"}, '[{"id": 88, "title": "Checkout latency"}]')
t.call("incident_get", {"id": 88}, '{"id": 88, "severity": "SEV2", "owner": "payments"}')
t.msg("One open incident: #88 checkout latency (SEV2, payments).")

t = new(
    "f6-arbiter-connect-error-retry",
    "retry_transient",
    False,
    gh("JaidenSy/Arbiter", "issues", 181),
    "A transient connect error through the MCP proxy, retried after a second, succeeds; then "
    "a different call times out once and succeeds on the retry.",
)
t.user("Pull the latest policy decisions for the billing agent")
t.call(
    "proxy_call",
    {"upstream": "policy", "tool": "list_decisions", "agent": "billing"},
    error="httpx.ConnectError: [Errno 111] Connection refused",
    kind="network",
)
t.call(
    "proxy_call",
    {"upstream": "policy", "tool": "list_decisions", "agent": "billing"},
    '{"decisions": 14, "denied": 2}',
)
t.call(
    "proxy_call",
    {"upstream": "policy", "tool": "get_denials", "agent": "billing"},
    error="httpx.ReadTimeout: timed out after 30s",
    kind="timeout",
)
t.call(
    "proxy_call",
    {"upstream": "policy", "tool": "get_denials", "agent": "billing"},
    '{"denials": ["refund > 500", "export PII"]}',
)
t.msg("14 decisions, 2 denied: a refund over 500 and a PII export.")

t = new(
    "f6-silica-tests-improving",
    "edit_test_cycle",
    False,
    {
        "repo": "clusterfudge/silica",
        "path": "tests/test_loop_detection.py",
        "case": "test_loop_breaks_on_different_output",
    },
    "The same test-runner pipeline after each fix; the failures go down every run.",
)
t.user("Get the compiler test suite green")
FAILS = [10, 7, 4, 2, 0]
for k, n in enumerate(FAILS):
    if k:
        t.call(
            "edit_file",
            {"path": f"src/codegen_{k}.c", "old": "emit(r, 0)", "new": "emit(r, w)"},
            "ok",
            mutates=True,
        )
    t.call("shell_execute", RT, f"Exit code: 0\nSTDOUT:\nResults: {149 - n} passed, {n} failed")
t.msg("All 149 tests pass.")

t = new(
    "f6-lettabot-heartbeats",
    "conversation",
    False,
    gh("letta-ai/lettabot", "pull", 43),
    "Heartbeats on a timer: each one checks the inbox and the gateway, whose answers move "
    "(new mail, uptime), and replies that nothing needs doing, or does it.",
)
for k in range(6):
    t.user("[heartbeat] Check whether anything needs your attention.")
    t.call("gateway_status", {}, f"gateway: running, uptime {30 * (k + 1)}m, queue {k % 3}")
    mail = "0 new" if k % 2 == 0 else f"{k} new: invoice #{700 + k}"
    t.call("gmail_poll", {"label": "INBOX", "unread": True}, mail)
    if k % 2:
        t.call(
            "send_message",
            {"channel": "telegram", "text": f"New invoice #{700 + k} arrived."},
            "sent",
        )
    t.msg("HEARTBEAT_OK" if k % 2 == 0 else f"Forwarded invoice #{700 + k}.")

t = new(
    "f6-reasonix-continue-each-step",
    "conversation",
    False,
    gh("esengine/DeepSeek-Reasonix", "issues", 10071),
    "The harness ends the turn after every tool call, so the user types 'continue' again and "
    "again; each turn does the next, different step of the task.",
)
t.user("Fix the off-by-one in pager.go, rebuild, run the check and report the numbers")
STEPS = [
    ("read_file", {"path": "pager.go"}, "for i := 0; i <= len(items); i++ {"),
    ("edit_file", {"path": "pager.go", "old": "i <= len(items)", "new": "i < len(items)"}, "ok"),
    ("bash", {"command": "go build ./..."}, ""),
    ("bash", {"command": "go run ./cmd/check -pages 20"}, "pages=20 items=400 missing=0"),
    ("bash", {"command": "go test ./pager"}, "ok  pager  0.41s"),
]
for k, (tool, args, res) in enumerate(STEPS):
    if k:
        t.user("continue")
    t.call(tool, args, res, mutates=tool == "edit_file")
    t.msg(f"Step {k + 1} of 5 done.")
t.msg("Fixed: 20 pages, 400 items, none missing; the pager tests pass.")

t = new(
    "f6-agent-os-migration-after-cleanup",
    "session_memory",
    False,
    gh("use-agent-os/agent-os", "issues", 2216),
    "The stranded migration fails in session 1; the user removes the half-made directory; "
    "in session 2 the same migration runs and succeeds.",
)
t.user("Start the agent")
t.call("bash", MIGR, error=FEX, kind="exit_code")
t.msg("The migration target already exists; remove data/agents/main/memory and retry.")
t.workspace("the user moved the half-migrated data/agents/main/memory aside")
t.session("s2")
t.user("I cleaned it up, start the agent")
t.call("bash", MIGR, "migrated 212 memory files to data/agents/main/memory")
t.call("bash", {"command": "agentos start --agent main"}, "agent main listening on :7070")

t = new(
    "f6-midscene-scroll-to-find",
    "distinct_reads",
    False,
    gh("web-infra-dev/midscene", "issues", 704),
    "Scrolling down the app drawer until the app appears: every scroll shows new apps.",
)
t.user("Is the Slack app installed?")
PAGES = [
    "Clock, Camera, Settings, Chrome, Files, Photos",
    "Gmail, Maps, Meet, Messages, Phone, Play Store",
    "Signal, Slack, Spotify, Teams, Translate, YouTube",
]
t.call("aiQuery", {"demand": "names of the apps visible on screen"}, PAGES[0])
for p in PAGES[1:]:
    t.call("aiScroll", {"direction": "down", "scrollType": "once"}, f"App drawer: {p}")
    t.call("aiQuery", {"demand": "names of the apps visible on screen"}, p)
t.msg("Yes, Slack is installed.")

t = new(
    "f6-b24-long-deal-walk",
    "long_productive",
    False,
    gh("bitrix24/b24jssdk", "issues", 495),
    "'A 1200-page walk on a live portal is ordinary here': 45 pages of the deal list, each "
    "start offset the previous answer gave, then the export.",
)
t.user("Export every open deal to a spreadsheet")
for k in range(45):
    args = {"filter": {"STAGE_SEMANTIC_ID": "P"}, "start": 50 * k}
    t.call(
        "crm_deal_list",
        args,
        {"result": [{"ID": 50 * k + j + 1} for j in range(3)], "next": 50 * (k + 1), "total": 2250},
    )
t.call(
    "write_xlsx", {"path": "deals.xlsx", "rows": 2250}, "wrote deals.xlsx (2250 rows)", mutates=True
)
t.msg("Exported 2250 open deals to deals.xlsx.")

t = new(
    "f6-future-agi-eval-polling",
    "polling",
    False,
    gh("future-agi/future-agi", "pull", 1201),
    "'Legitimate iterative patterns like polling, where the arguments look the same but the "
    "results genuinely differ each call': an evaluation run polled until it finishes.",
)
t.user("Run the groundedness eval on yesterday's traces and tell me the score")
t.call(
    "start_eval",
    {"metric": "groundedness", "dataset": "traces-2026-11-30"},
    '{"run_id": "ev-311", "status": "queued"}',
)
for st in [
    '{"status": "queued"}',
    '{"status": "running", "progress": 0.1}',
    '{"status": "running", "progress": 0.4}',
    '{"status": "running", "progress": 0.7}',
    '{"status": "running", "progress": 0.9}',
    '{"status": "done", "score": 0.83}',
]:
    t.call("get_eval_status", {"run_id": "ev-311"}, st)
t.msg("Groundedness on yesterday's traces: 0.83.")

t = new(
    "f6-smolagents-reads-then-answers",
    "research",
    False,
    gh("huggingface/smolagents", "issues", 1226),
    "'With a stronger LLM this problem disappears': the agent reads the lines it needs, "
    "each a different snippet, and gives the final answer.",
)
t.user("What do lines 12 to 14 of the smolagents README say?")
for n in (12, 13, 14):
    t.call(
        "python_interpreter",
        {"code": f"print(get_readme_line({n}))"},
        f"Execution logs:\nline {n}: ...text of line {n}...\nLast output from code snippet:\nNone",
    )
t.call(
    "final_answer",
    {"answer": "Lines 12-14 describe running agents in a few lines of code."},
    "Lines 12-14 describe running agents in a few lines of code.",
)

t = new(
    "f6-vscode-setup-after-install",
    "edit_test_cycle",
    False,
    gh("microsoft/vscode", "issues", 332151),
    "The setup script fails on a missing tool, the agent installs it, and the same script "
    "then runs; the explanations differ as they naturally do.",
)
t.user("Set the repo up so I can run the dev server")
t.call(
    "run_in_terminal",
    {"command": "./scripts/setup.sh", "explanation": "Run the setup script", "isBackground": False},
    error=SETUP_ERR,
    kind="exit_code",
)
t.call(
    "run_in_terminal",
    {
        "command": "npm install -g pnpm@9",
        "explanation": "Install pnpm, which the script needs",
        "isBackground": False,
    },
    "added 1 package in 2s",
)
t.call(
    "run_in_terminal",
    {
        "command": "./scripts/setup.sh",
        "explanation": "Run the setup script again now that pnpm exists",
        "isBackground": False,
    },
    "Done in 41.2s",
)
t.call(
    "run_in_terminal",
    {"command": "pnpm dev", "explanation": "Start the dev server", "isBackground": True},
    "ready - started server on 0.0.0.0:3000",
)

t = new(
    "f6-dify-route-planned-once",
    "research",
    False,
    gh("junjiem/dify-plugin-agent-mcp_sse", "issues", 65),
    "The same trip planned by an agent that uses its results: both cities' stations once, "
    "then the trains between them, then the answer.",
)
t.user("长沙到娄底的高铁怎么买票？")  # noqa: RUF001
t.call("search_stations", {"city": "长沙"}, '{"stations": ["长沙南", "长沙", "长沙西"]}')
t.call("search_stations", {"city": "娄底"}, '{"stations": ["娄底南", "娄底"]}')
t.call(
    "search_trains",
    {"from": "长沙南", "to": "娄底南", "date": "2026-12-03"},
    '{"trains": ["G6117 07:12", "G1557 09:40", "G6133 13:05"]}',
)
t.call(
    "get_ticket_link",
    {"train": "G1557", "date": "2026-12-03"},
    '{"url": "https://kyfw.12306.cn/..."}',
)
t.msg("长沙南到娄底南有 G6117、G1557、G6133 等车次，可在 12306 购票。")  # noqa: RUF001

t = new(
    "f6-windsurf-analysis-followups",
    "conversation",
    False,
    gh("dwgx/WindsurfAPI", "issues", 116),
    "One analysis and one summary, then the user's follow-up questions, each answered once "
    "with something new.",
)
t.user("Analyse the sales CSV and summarise the trend")
t.call("read_file", {"path": "sales.csv"}, "month,revenue\n2026-07,120\n2026-08,135\n2026-09,151\n")
t.msg("Revenue grew every month, 120 to 151 from July to September (about 12% a month).")
t.user("Which month grew most?")
t.msg("September: +16, against +15 in August.")
t.user("Project October")
t.msg("At the same rate, October would be about 169.")
t.user("Plot it")
t.call(
    "python_interpreter",
    {"code": "plot_revenue('sales.csv', project=1)"},
    "Saved figure to revenue.png",
)
t.msg("Saved the chart with the October projection to revenue.png.")

t = new(
    "f6-octos-find-and-send",
    "distinct_reads",
    False,
    gh("octos-org/octos", "issues", 284),
    "The same request without the loop: the file is found, converted with the tool that "
    "exists, and sent.",
)
t.user("Find last month's report and send me a CSV of it")
t.call("shell", {"command": "find /data -name 'report*.xlsx'"}, "/data/report-2026-10.xlsx")
t.call(
    "shell",
    {"command": "cd /data && python3 convert.py report-2026-10.xlsx"},
    error=MOD,
    kind="exit_code",
)
t.call("shell", {"command": "pip install openpyxl"}, "Successfully installed openpyxl-3.1.5")
t.call(
    "shell",
    {"command": "cd /data && python3 convert.py report-2026-10.xlsx"},
    "wrote /data/report-2026-10.csv (1,204 rows)",
)
t.call("send_file", {"path": "/data/report-2026-10.csv", "to": "user"}, "sent")

t = new(
    "f6-rustwright-click-retries-differ",
    "distinct_reads",
    False,
    gh("Skyvern-AI/rustwright", "issues", 197),
    "A toggle on a busy page clicked, checked, clicked again after reading the state: each "
    "check shows a different state, so the second click is a decision, not a repeat.",
)
t.user("Turn on the beta-features toggle in settings")
t.call("page_goto", {"url": "https://app.example.com/settings"}, "Settings | Beta features: off")
t.call("locator_click", {"selector": "#beta-toggle"}, "clicked")
t.call("page_text", {"selector": "#beta-state"}, "Beta features: updating...")
t.call("page_text", {"selector": "#beta-state"}, "Beta features: off")
t.call("locator_click", {"selector": "#beta-toggle"}, "clicked")
t.call("page_text", {"selector": "#beta-state"}, "Beta features: on")
t.msg("Beta features are on (the first click did not stick on the busy page).")


# ================================================================ fresh7 set
# Written at 04:30 UTC (Dec 2) from sources no earlier split uses (checked against every
# `source` of the file; eleven are other issues or pull requests of repositories earlier
# splits cite: openclaw, claude-code, crewAI, cheasee-pi, lettabot, OpenHands,
# autonomys-agents, Aider, gemini-cli, docker-agent). Aimed at shapes that were only
# unit-tested so far: walks over items (tables, labels, keys, ids, pages, topics) with some
# empty answers, answers through `send_message`, `think`/`thinking`/sequential-thinking
# tools, batches over targets, cursor and offset pagination, polling a job to a terminal
# state, retries after rate limits, edits followed by the same test run; and their looping
# twins (the same page or terminal cursor again, the same empty search reworded, period-2
# and period-3 cycles of successes, a sub-agent re-delegating the same brief, a create
# repeated with identical arguments). Committed before crs was run on them. Split "fresh7".

FRESH7_START = len(ALL)
# ---- fresh7 loops

t = new(
    "f7-fred-response-repeated",
    "monologue",
    True,
    gh("ThalesGroup/fred", "issues", 1343),
    "After a retrieval-augmented answer the agent's response is repeated endlessly: the same "
    "answer message again and again with no tool call in between.",
)
t.user("Summarise the three open tickets in the support queue")
t.call(
    "support_list",
    {"queue": "open"},
    '[{"id": 311, "title": "Login loop on Safari"}, {"id": 312, "title": "CSV export empty"},'
    ' {"id": 317, "title": "Invoice PDF missing logo"}]',
)
ANS = (
    "There are three open tickets: #311 a login loop on Safari, #312 an empty CSV export and "
    "#317 an invoice PDF without the logo."
)
idx = [t.msg(ANS) for _ in range(6)]
t.mark(idx[1], idx[1])

_r7 = random.Random(7007)  # ids in results (message ids, agent ids, cursors)


def _hex7(n: int) -> str:
    return "".join(_r7.choice("0123456789abcdef") for _ in range(n))


t = new(
    "f7-tobira-send-retried-on-timeout",
    "repeated_call",
    True,
    gh("VladShifter/tobira-protocol", "issues", 5),
    "The send pipeline re-triggers the same send when no confirmation comes quickly: the same "
    "message to the same conversation four times in seconds, each acknowledged with a new "
    "message id.",
)
t.user("Reply to Khalil that the pilot starts Monday")
t.call("get_conversation", {"conversation_id": "c_88"}, '{"with": "khalilii", "last": "When?"}')
SEND = {"conversation_id": "c_88", "text": "Hi Khalil, the pilot starts on Monday at 9am."}
idx = [
    t.call(
        "send_message",
        SEND,
        {"status": "delivered", "message_id": f"m_{_hex7(12)}", "conversation_id": "c_88"},
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f7-openclaw-chained-sends",
    "no_progress",
    True,
    gh("openclaw/openclaw", "issues", 86167),
    "A successful message(action=send) wakes the model again, which reads its own reply as a "
    "cue to keep speaking: chained sends restating the first answer, each 'sent'.",
)
t.user("what time does the gym open tomorrow?")
t.call("web_fetch", {"url": "https://gym.example.com/hours"}, "Sat 08:00-20:00, Sun 09:00-18:00")
SENDS = [
    "The gym opens at 8:00 tomorrow (Saturday).",
    "Actually, also: tomorrow, Saturday, the gym opens at 8:00.",
    "Just to confirm, the gym opens tomorrow at 8:00, Saturday hours.",
    "Tomorrow (Saturday) the gym opens at 8:00, as I said.",
    "So yes, the gym opens at 8:00 tomorrow, Saturday.",
]
idx = [
    t.call("message", {"action": "send", "channel": "telegram", "text": s}, '{"ok": true}')
    for s in SENDS
]
t.mark(idx[1], idx[1])

t = new(
    "f7-shaft-subagent-reinvoked",
    "repeated_call",
    True,
    gh("ShaftHQ/SHAFT_ENGINE", "issues", 4083),
    "A completed subagent is re-invoked with the same instruction, verbatim, cycle after "
    "cycle; each time it answers that its work already merged.",
)
t.user("Make sure the flaky-locator fix lands")
t.call("gh_pr_view", {"number": 4049}, '{"state": "MERGED", "mergedAt": "06:53Z"}')
BRIEF = {
    "subagent_type": "bug-fixer",
    "description": "Land the flaky-locator fix",
    "prompt": "Fix the flaky locator in ElementActions, open a PR and get it merged.",
}
DONE = "PR #4049 already merged at 06:53Z; nothing left to do under my charter."
idx = [t.call("Task", BRIEF, DONE) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f7-claude-code-redelegation-cascade",
    "repeated_call",
    True,
    gh("anthropics/claude-code", "issues", 73958),
    "A background subagent does not do the work: it spawns another background agent with the "
    "same brief and reports 'dispatched'; the orchestrator re-dispatches the same brief, "
    "every answer naming a fresh agent id.",
)
t.user("Build the retry-queue feature: build, commit, push, open a PR, stop")
BRIEF = {
    "subagent_type": "general-purpose",
    "run_in_background": True,
    "prompt": "You are a bounded implementer: build the retry queue, commit, push, open a PR, "
    "then STOP.",
}
idx = [
    t.call(
        "Agent",
        BRIEF,
        f"I've dispatched this to a background agent (agent-{_hex7(10)}) and will report back.",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f7-indexable-redelegated-fetch",
    "no_progress",
    True,
    gh("indexable-inc/index", "issues", 2239),
    "A subagent given one gh command re-delegates it under other descriptions; each "
    "delegation comes back with the same PR JSON.",
)
t.user("Get PR 2231's state and CI status")
PRJSON = '{"number": 2231, "state": "OPEN", "checks": "2/3 passing", "mergeable": true}'
idx = [
    t.call("Task", {"description": d, "prompt": p}, PRJSON)
    for d, p in [
        ("Fetch PR 2231 details", "Run gh pr view 2231 --json state,statusCheckRollup"),
        ("Fetch PR 2231 details directly", "Run: gh pr view 2231 --json state and CI checks"),
        ("Fetch PR 2231 state and CI status", "Get the state and CI status of PR 2231 with gh"),
        ("Get PR 2231 JSON", "Run gh pr view 2231 and return the raw JSON"),
        ("Fetch PR 2231 raw details", "Return the raw gh pr view 2231 JSON, state and checks"),
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f7-ui-tars-long-keyword-empty-searches",
    "no_progress",
    True,
    gh("bytedance/UI-TARS-desktop", "issues", 698),
    "A long multi-step question turns into long search keywords that find nothing; the agent "
    "rewords them again and again, each answer saying nothing was found and echoing the query.",
)
t.user("Search the web for the file format of the etf_code.mst master file")
idx = []
for q in [
    "etf_code.mst file format",
    "etf_code.mst master file format specification",
    "format of etf_code.mst file",
    "etf_code.mst file layout fields",
    "etf_code.mst master file column format",
    "etf_code.mst file specification",
]:
    idx.append(
        t.call(
            "google_web_search",
            {"query": q},
            f'No search results or information found for query: "{q}"',
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f7-pds-same-offset",
    "repeated_call",
    True,
    gh("NASA-PDS/deep-archive", "issues", 137),
    "Paging the products of a collection, the start offset never advances: the same page at "
    "0 limit 50 is asked for again and again.",
)
t.user("Archive every product of the mess_rs_derived document collection")
t.call("get_collection", {"urn": "urn:nasa:pds:mess_rs_derived:document::1.0"}, '{"products": 83}')
PAGE = {
    "collection": "urn:nasa:pds:mess_rs_derived:document::1.0",
    "start": 0,
    "limit": 50,
}
ROWS = '{"start": 0, "hits": 83, "data": ["doc_0001", "doc_0002", "...", "doc_0050"]}'
idx = [t.call("products_of_a_collection", PAGE, ROWS) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f7-seatunnel-terminal-cursor",
    "repeated_call",
    True,
    gh("apache/seatunnel", "pull", 11098),
    "The API returns the same non-empty cursor for its terminal page with no data; the agent "
    "sends that cursor again and gets the same empty page.",
)
t.user("Export every audit event since Monday")
t.call("list_events", {"since": "2026-11-30"}, '{"data": ["e1", "e2", "e3"], "next": "cur_93"}')
t.call(
    "list_events", {"since": "2026-11-30", "cursor": "cur_93"}, '{"data": ["e4"], "next": "cur_94"}'
)
TERM = {"since": "2026-11-30", "cursor": "cur_94"}
idx = [t.call("list_events", TERM, '{"data": [], "next": "cur_94"}') for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f7-kimi-read-two-files-cycle",
    "cycle",
    True,
    gh("MoonshotAI/kimi-cli", "issues", 2637),
    "Resolving two merge conflicts, the agent says it will now emit the edits but emits the "
    "same two Read calls again, turn after turn.",
)
t.user("Resolve the merge conflicts in the two conflicted files")
t.call("Bash", {"command": "git diff --name-only --diff-filter=U"}, "src/api.py\nsrc/config.py")
A = "<<<<<<< HEAD\nTIMEOUT = 30\n=======\nTIMEOUT = 45\n>>>>>>> feature\n"
B = "<<<<<<< HEAD\nRETRIES = 3\n=======\nRETRIES = 5\n>>>>>>> feature\n"
occ = repeat_block(
    t,
    [
        {
            "tool": "Read",
            "args": {"path": "src/api.py", "line_offset": 40, "n_lines": 10},
            "result": A,
            "thought": "Now I will emit the Edit calls.",
        },
        {
            "tool": "Read",
            "args": {"path": "src/config.py", "line_offset": 12, "n_lines": 10},
            "result": B,
        },
    ],
    5,
)
mark_cycle(t, occ)

t = new(
    "f7-jcode-ls-thrash",
    "repeated_call",
    True,
    gh("1jehuang/jcode", "issues", 797),
    "Identical bash calls succeed and never stop: the same ls -la of one directory dozens of "
    "times in a row, the same listing each time.",
)
t.user("The download naming helper is broken, fix it")
LS7 = (
    "total 8\n-rw-r--r-- 1 dev staff 0 Aug  6 10:02 downloadNaming.ts\n"
    "-rw-r--r-- 1 dev staff 0 Aug  6 10:02 file.ts"
)
t.call("read", {"path": "web/src/lib/downloadNaming.ts"}, "(empty file)")
idx = [t.call("bash", {"command": "ls -la web/src/lib/"}, LS7) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f7-open-design-invented-class-cycle",
    "cycle",
    True,
    gh("nexu-io/open-design", "pull", 3375),
    "Looping on a class name it invented: a shell assertion fails, the agent re-reads the "
    "file, retries the same edit on the missing string, asserts again ...",
)
t.user("Move the sidebar toggle into the titlebar")
HTML = '<div class="tb-left">\n  <button id="sidebar-toggle"></button>\n</div>\n'
t.call("Read", {"file_path": "app/titlebar.html"}, HTML)
occ = repeat_block(
    t,
    [
        {
            "tool": "Bash",
            "args": {"command": "grep -q 'titlebar-left' app/titlebar.html"},
            "error": "Exit code 1",
            "kind": "exit_code",
        },
        {"tool": "Read", "args": {"file_path": "app/titlebar.html"}, "result": HTML},
        {
            "tool": "Edit",
            "args": {
                "file_path": "app/titlebar.html",
                "old_string": '<div class="titlebar-left">',
                "new_string": '<div class="titlebar-left">\n  <button id="sidebar-toggle">',
            },
            "error": "String to replace not found in file.",
            "kind": "invalid_args",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f7-paperclip-create-returns-existing",
    "repeated_call",
    True,
    gh("paperclipai/paperclip", "issues", 11668),
    "Issue create dedupes by title and answers with the existing issue; the agent, seeing no "
    "assignee wake up, creates the same task again and gets the same issue back each time.",
)
t.user("Hand the weekly report task to the reporting agent")
CREATE = {
    "title": "Weekly metrics report",
    "description": "Compile the weekly metrics and post them",
    "assigneeAgentId": "agent-b",
}
SAME = (
    '{"id": "iss_702", "title": "Weekly metrics report", "status": "blocked", '
    '"assignee": "agent-a"}'
)
idx = [t.call("create_issue", CREATE, SAME) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f7-paperclip-duplicate-create",
    "repeated_call",
    True,
    gh("paperclipai/paperclip", "issues", 7980),
    "The agent re-issues the same create call for one task; each call stores another "
    "identical issue, so only the new issue's number differs.",
)
t.user("File a ticket for the broken SSO redirect and assign it to the web agent")
TICKET = {
    "parentId": "iss_500",
    "title": "SSO redirect loops back to /login",
    "assigneeAgentId": "web-agent",
}
idx = [
    t.call("create_issue", TICKET, f'{{"identifier": "PAP-{41 + k}", "status": "todo"}}')
    for k in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f7-agentic-seek-back-to-results",
    "cycle",
    True,
    gh("Fosowl/agenticSeek", "issues", 249),
    "The browsing agent goes back to the results ('still 5'), opens the same article, goes "
    "back again, opens it again ...",
)
t.user("Find a timeline of the May 2025 India-Pakistan crisis")
t.call("web_search", {"query": "India Pakistan crisis May 2025 timeline"}, "5 results")
ART = "Four Days in May: the India-Pakistan crisis of 2025 | Stimson Center (article, 3,400 words)"
occ = repeat_block(
    t,
    [
        {
            "tool": "navigate",
            "args": {"url": "https://www.stimson.org/2025/four-days-in-may/"},
            "result": ART,
        },
        {"tool": "go_back", "args": {}, "result": "Search results: 5 links"},
    ],
    5,
)
mark_cycle(t, occ)

t = new(
    "f7-odpf-query-backlog-repeat",
    "repeated_call",
    True,
    gh("OpenDigitalProductFactory/opendigitalproductfactory", "pull", 3274),
    "A read tool called again and again with the same arguments and the same successful "
    "result, each answer stamped with the time it was generated.",
)
t.user("What is blocking the billing epic?")
idx = []
for k in range(6):
    idx.append(
        t.call(
            "query_backlog",
            {"epic": "BILL-7", "status": "blocked"},
            {
                "items": [{"key": "BILL-31", "blocked_by": "BILL-29"}],
                "generated_at": f"2026-07-18T10:{12 + k:02d}:0{k}Z",
            },
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f7-healthomics-poll-after-terminal",
    "repeated_call",
    True,
    gh("awslabs/mcp", "pull", 4493),
    "Polling a workflow run: after it reached a terminal status (FAILED) the agent keeps "
    "calling GetAHORun, the same answer each time.",
)
t.user("Run the variant-calling workflow and tell me when it's done")
t.call("StartAHORun", {"workflowId": "wf-77", "name": "vc-nov"}, '{"id": "4194589"}')
for st in ["PENDING", "RUNNING", "STOPPING"]:
    t.call("bash", {"command": "sleep 60"}, "")
    t.call("GetAHORun", {"id": "4194589"}, f'{{"id": "4194589", "status": "{st}"}}')
FAILED = '{"id": "4194589", "status": "FAILED", "failureReason": "task 12 exit code 137"}'
idx = [t.call("GetAHORun", {"id": "4194589"}, FAILED) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f7-hpe-429-forever",
    "error_loop",
    True,
    gh("nowireless4u/hpe-networking-mcp", "issues", 134),
    "A burst of tool calls trips the vendor's rate limit; the same call is retried at once, "
    "again and again, each answered 429.",
)
t.user("List the access points of site HQ")
RL = "429 Too Many Requests: rate limit exceeded, retry after 30 seconds"
idx = [
    t.call("mist_list_devices", {"site": "HQ", "type": "ap"}, error=RL, kind="rate_limit")
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f7-deep-research-same-reflection",
    "repeated_call",
    True,
    gh("langchain-ai/deep_research_from_scratch", "issues", 6),
    "The research agent's think_tool only returns what it was given; the agent calls it with "
    "the same reflection again and again instead of searching.",
)
t.user("Research the best coffee shops in SF by bean quality")
t.call("tavily_search", {"query": "best specialty coffee San Francisco bean quality"}, "5 results")
REFL = {
    "reflection": "I found five shops; I still need roast details for two. Next: search "
    "for their roasting sources."
}
idx = [t.call("think_tool", REFL, f"Reflection recorded: {REFL['reflection']}") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f7-openclaude-autofix-same-edit-cycle",
    "cycle",
    True,
    gh("Gitlawb/openclaude", "pull", 508),
    "The auto-fix loop feeds the test failure back; the model sends the same edit, which no "
    "longer matches, and the same failing test comes back each round.",
)
t.user("Fix the failing date-parsing test")
FAIL = "FAILED tests/test_dates.py::test_parse_iso - AssertionError: None != datetime(2026, 1, 2)"
t.call(
    "Edit",
    {
        "file_path": "src/dates.py",
        "old_string": "fmt = '%Y-%d-%m'",
        "new_string": "fmt = '%Y-%m-%d'",
    },
    "ok",
    mutates=True,
)
t.call("Bash", {"command": "pytest -q tests/test_dates.py"}, FAIL + "\n1 failed in 0.21s")
occ = repeat_block(
    t,
    [
        {
            "tool": "Edit",
            "args": {
                "file_path": "src/dates.py",
                "old_string": "fmt = '%Y-%d-%m'",
                "new_string": "fmt = '%Y-%m-%d'",
            },
            "error": "String to replace not found in file.",
            "kind": "invalid_args",
        },
        {
            "tool": "Bash",
            "args": {"command": "pytest -q tests/test_dates.py"},
            "result": FAIL + "\n1 failed in 0.21s",
        },
    ],
    4,
)
# The test run before the block starts the same cycle (test, failed edit) one call
# earlier: that rotation has fully repeated at the second failed edit.
t.mark(occ[0][1], occ[1][0], period=2)


t = new(
    "f7-gsd-planner-pattern-cycle",
    "cycle",
    True,
    gh("gsd-build/get-shit-done", "pull", 2355),
    "A planner's pattern discovery re-reads the same component, greps the same pattern and "
    "lists the same folder, round after round, with nothing new each time.",
)
t.user("Plan how to add a dark-mode toggle following the existing component patterns")
HEADER = "export function Header() {\n  const [open, setOpen] = useState(false);\n}\n"
COMPONENTS = "src/components/Header.tsx\nsrc/components/Footer.tsx\nsrc/components/Nav.tsx"
PATTERN_ROUND = [
    ("Read", {"file_path": "src/components/Header.tsx"}, HEADER),
    ("Grep", {"pattern": "useTheme", "path": "src"}, "No matches found"),
    ("Glob", {"pattern": "src/components/*.tsx"}, COMPONENTS),
]
occ = repeat_block(t, [{"tool": n, "args": a, "result": r} for n, a, r in PATTERN_ROUND], 4)
mark_cycle(t, occ)

t = new(
    "f7-crewai-delegation-loop",
    "repeated_call",
    True,
    gh("crewAIInc/crewAI", "issues", 330),
    "With allow_delegation the writer delegates the same work to the researcher with the "
    "same context again and again; the researcher answers the same.",
)
t.user("Write a blog post on AI agents in 2026")
DELEG = {
    "task": "Research the latest developments in AI agents",
    "context": "The blog post needs three concrete developments with sources.",
    "coworker": "Senior Research Analyst",
}
RES = (
    "Three developments: tool-use benchmarks, agent memory, cheaper long context. Sources attached."
)
idx = [t.call("Delegate work to coworker", DELEG, RES) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f7-cheasee-same-bash-failure-next-session",
    "known_failure",
    True,
    gh("SchneiderDaniel/cheasee-pi", "issues", 972),
    "Session lessons show the same bash call failing with the same arguments across sessions: "
    "the remote log command is refused for a key the backend lacks, and the next session "
    "runs it again on the unchanged setup.",
)
SSHE = "vps-1: Permission denied (publickey)."
JCTL = {"command": "journalctl -u gateway --since today"}
t.user("Why did the gateway restart last night?")
t.call("terminal", JCTL, error=SSHE, kind="permission")
t.msg("The terminal backend cannot reach the VPS; I cannot read its logs from here.")
t.session("s2")
t.user("Why did the gateway restart last night?")
rep = t.call("terminal", JCTL, error=SSHE, kind="permission")
t.call("terminal", JCTL, error=SSHE, kind="permission")
t.mark(rep, rep - 1)

t = new(
    "f7-nvidia-identical-failing-search",
    "error_loop",
    True,
    gh("NVIDIA-AI-Blueprints/video-search-and-summarization", "pull", 2170),
    "A video-search agent calls the same tool with the same canonical arguments after it "
    "failed, again and again, the same error each time.",
)
t.user("When did a forklift pass dock 3 this morning?")
VQ = {"query": "forklift passing dock 3", "stream_id": "cam-07", "start": "06:00", "end": "12:00"}
idx = [
    t.call(
        "video_search",
        VQ,
        error="stream 'cam-07' is not in the index; indexed streams: cam-01..cam-06",
        kind="not_found",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])


# ---- fresh7 legitimate

t = new(
    "f7-sql-agent-walks-tables",
    "distinct_reads",
    False,
    {"repo": "davidve0206/ai-analyst", "path": "documentation/agents/internal_data_agent.md"},
    "A database agent lists the tables, asks for each one's schema, then counts last month's "
    "rows in each; several tables are empty for that month.",
)
t.user("Which tables have data for November?")
TABLES = ["orders", "refunds", "invoices", "shipments", "returns", "coupons"]
t.call("list_tables", {}, json.dumps(TABLES))
for tb in TABLES:
    t.call(
        "get_table_schema",
        {"table": tb},
        f'{{"table": "{tb}", "columns": ["id", "{tb[:-1]}_date", "amount"]}}',
    )
COUNTS = {"orders": 412, "refunds": 0, "invoices": 398, "shipments": 0, "returns": 0, "coupons": 0}
for tb in TABLES:
    t.call(
        "execute_sql",
        {"query": f"SELECT count(*) FROM {tb} WHERE {tb[:-1]}_date >= '2026-11-01'"},
        f"[[{COUNTS[tb]}]]",
    )
t.msg("Only orders (412) and invoices (398) have November rows; the other four are empty.")

t = new(
    "f7-github-issues-by-label",
    "distinct_reads",
    False,
    gh("github/github-mcp-server", "issues", 2412),
    "Triage: list the open issues under each of seven labels; four labels have none.",
)
t.user("How many open issues are there per area label?")
LABELS = {
    "area/cli": '[{"number": 88}, {"number": 91}]',
    "area/ui": "[]",
    "area/api": '[{"number": 77}]',
    "area/docs": "[]",
    "area/ci": "[]",
    "area/auth": '[{"number": 102}, {"number": 103}, {"number": 110}]',
    "area/perf": "[]",
}
for lab, res in LABELS.items():
    t.call(
        "list_issues",
        {"owner": "acme", "repo": "tool", "state": "OPEN", "labels": [lab]},
        res,
    )
t.msg("cli 2, api 1, auth 3; ui, docs, ci and perf have no open issues.")

t = new(
    "f7-github-batch-label",
    "distinct_reads",
    False,
    gh("github/github-mcp-server", "pull", 313),
    "A batch: the same label added to eight issues one call each, every call acknowledged "
    "with the issue's label list.",
)
t.user("Label issues 10, 15, 20, 25, 30, 35, 40 and 45 as sprint-42")
for n in [10, 15, 20, 25, 30, 35, 40, 45]:
    t.call(
        "add_labels_to_issue",
        {"owner": "acme", "repo": "tool", "issue_number": n, "labels": ["sprint-42"]},
        '[{"name": "sprint-42"}]',
    )
t.msg("All eight issues carry sprint-42 now.")

t = new(
    "f7-slack-announce-channels",
    "distinct_reads",
    False,
    gh("letta-ai/lettabot", "pull", 269),
    "An agent with a messaging tool posts one announcement to five channels in silent mode "
    "(cron), one send per channel, each answered 'sent'.",
)
t.user("Cron: post the maintenance notice to every team channel")
for ch in ["#eng", "#support", "#sales", "#ops", "#design"]:
    t.call(
        "lettabot_message_send",
        {
            "channel": ch,
            "text": "Maintenance tonight 22:00-23:00 UTC; the dashboard will be read-only.",
        },
        "sent",
    )
t.msg("Posted to the five team channels.")

t = new(
    "f7-redis-walk-keys",
    "distinct_reads",
    False,
    gh("hepengju/redis-me", "issues", 134),
    "Reading one user's session keys one by one: preferences, cart, wishlist, last search, "
    "recent orders; three of them do not exist.",
)
t.user("What do we have cached for user 3?")
t.call("scan_keys", {"pattern": "user:3:*"}, '["user:3:prefs", "user:3:cart", "user:3:search"]')
for key, val in [
    ("user:3:prefs", '{"lang": "de", "currency": "EUR"}'),
    ("user:3:cart", "null"),
    ("user:3:wishlist", "null"),
    ("user:3:search", '"running shoes"'),
    ("user:3:orders", "null"),
]:
    t.call("get", {"key": key}, val)
t.msg("Only preferences (de, EUR) and the last search ('running shoes') are cached.")

t = new(
    "f7-orders-by-id-not-found",
    "distinct_reads",
    False,
    gh("StevetheRebel/group31", "issues", 19),
    "Checking eight order ids from a customer's email; four are not found (typos in the "
    "email), each a different id.",
)
t.user("The customer lists orders 1001 to 1008 as missing; which exist?")
for oid in range(1001, 1009):
    if oid in (1002, 1005, 1006, 1008):
        t.call(
            "get_order", {"order_id": oid}, error=f"404 Not Found: order {oid}", kind="not_found"
        )
    else:
        t.call("get_order", {"order_id": oid}, f'{{"id": {oid}, "status": "shipped"}}')
t.msg("1001, 1003, 1004 and 1007 exist and shipped; 1002, 1005, 1006 and 1008 do not exist.")

t = new(
    "f7-letta-send-message-chat",
    "conversation",
    False,
    gh("letta-ai/letta", "issues", 2693),
    "A Letta agent answers every user message through send_message; the tool's answer is the "
    "same 'None' each time, the replies differ.",
)
for q, a in [
    ("Hi! I'm Dana.", "Nice to meet you, Dana! How can I help today?"),
    ("Can you remind me what a mutex is?", "A mutex lets one thread at a time into a section."),
    ("And a semaphore?", "A semaphore lets up to N threads in at once."),
    ("Which should I use for a connection pool?", "A semaphore sized to the pool fits best."),
    ("Thanks! What about a read-write lock?", "It lets many readers or one writer in."),
    ("Great, that's all for now.", "Anytime, Dana. Good luck with the pool!"),
]:
    t.user(q)
    t.call("send_message", {"message": a, "request_heartbeat": False}, "None")

t = new(
    "f7-letta-memory-then-reply",
    "conversation",
    False,
    gh("letta-ai/letta", "pull", 1695),
    "Each turn the agent appends what it learned to core memory and replies through "
    "send_message; both tools answer the same way every time.",
)
for said, fact, reply in [
    ("Hi, I'm Omar.", "User's name is Omar.", "Hi Omar! Noted your name."),
    ("I work night shifts.", "Omar works night shifts.", "Got it: reminders after noon."),
    ("I'm allergic to peanuts.", "Omar is allergic to peanuts.", "I'll flag recipes with them."),
    ("My sister visits on Fridays.", "Omar's sister visits on Fridays.", "A Friday dinner idea?"),
    ("I prefer vegetarian dinners.", "Omar prefers vegetarian dinners.", "A chickpea curry, then?"),
]:
    t.user(said)
    t.call("core_memory_append", {"label": "human", "content": fact}, "None")
    t.call("send_message", {"message": reply}, "None")

t = new(
    "f7-inspect-think-tool-policy",
    "research",
    False,
    gh("UKGovernmentBEIS/inspect_ai", "pull", 1539),
    "A policy-heavy support task: the agent calls think after each tool output to check the "
    "rules before acting; every think answers the same empty string.",
)
t.user("Cancel my flight ZFA04B and refund it to my card")
t.call(
    "get_reservation",
    {"reservation_id": "ZFA04B"},
    '{"class": "economy", "booked": "2026-11-30", "insurance": false}',
)
t.call(
    "think",
    {
        "thought": "Booked two days ago, economy, no insurance: cancellation allowed within 24h "
        "only, or with insurance. Check the flight status first."
    },
    "",
)
t.call("get_flight_status", {"flight": "HAT170", "date": "2026-12-05"}, '"scheduled"')
t.call(
    "think",
    {
        "thought": "Flight is scheduled, not cancelled by the airline; the 24h window passed, so "
        "the rules refuse a refund; offer travel credit instead."
    },
    "",
)
t.call("get_user_details", {"user_id": "mia_li_3668"}, '{"membership": "gold"}')
t.call(
    "think",
    {
        "thought": "Gold members may get a travel credit of the fare; confirm with the user "
        "before any write action."
    },
    "",
)
t.msg("I can't refund ZFA04B, but as a gold member you can get a travel credit. Shall I?")

t = new(
    "f7-sequential-thinking-steps",
    "research",
    False,
    gh("OpenHands/OpenHands", "pull", 7643),
    "Sequential thinking: five numbered thoughts building one plan; each answer differs only "
    "by the thought number and history length.",
)
t.user("Plan the migration of the job queue from Redis to Postgres")
THOUGHTS = [
    "List what the Redis queue provides: FIFO, visibility timeout, retries, dead-letter.",
    "Postgres can do FIFO with SKIP LOCKED; visibility timeout becomes a locked_until column.",
    "Retries map to an attempts column; dead-letter is a status value plus an index.",
    "Run both queues in parallel behind a flag; drain Redis before switching readers.",
    "Order: schema, dual writes, shadow reads, flip the flag, remove Redis after a week.",
]
for n, th in enumerate(THOUGHTS, 1):
    t.call(
        "sequentialthinking",
        {"thought": th, "thoughtNumber": n, "totalThoughts": 5, "nextThoughtNeeded": n < 5},
        {
            "thoughtNumber": n,
            "totalThoughts": 5,
            "nextThoughtNeeded": n < 5,
            "thoughtHistoryLength": n,
        },
    )
t.msg("Plan: schema, dual writes, shadow reads, flag flip, then drop Redis after a week.")

t = new(
    "f7-think-tool-between-searches",
    "research",
    False,
    gh("autonomys/autonomys-agents", "pull", 379),
    "A research agent alternates searches with a thinking tool whose answer is always the "
    "same encouragement; each thought is about the new results.",
)
t.user("Compare three vector databases for a 10M-document corpus")
OKT = (
    '{"success": true, "message": "Great job taking a step back and thinking through the problem!"}'
)
for q, th in [
    (
        "pgvector 10 million vectors benchmark",
        "pgvector handles 10M with HNSW but needs lots of RAM; note index build time.",
    ),
    (
        "qdrant 10M documents memory usage",
        "Qdrant quantization cuts memory 4x; compare recall at that setting.",
    ),
    (
        "milvus 10M vectors latency",
        "Milvus scales out but operating it is heavier; weigh ops cost.",
    ),
    ("hnsw vs ivf recall 10M", "HNSW wins recall at our size; IVF only if memory is the limit."),
]:
    t.call("web_search", {"query": q}, f"8 results for {q}")
    t.call("thinking", {"thoughts": th}, OKT)
t.msg(
    "For 10M docs: Qdrant with quantization, pgvector if you want one database, "
    "Milvus for scale-out."
)

t = new(
    "f7-confluence-cursor-walk",
    "distinct_reads",
    False,
    gh("opensearch-project/data-prepper", "pull", 5440),
    "Crawling a Confluence space through its search cursors: fourteen pages, each cursor the "
    "one the previous page returned, the last page short.",
)
t.user("Index every page of the ENG space")
cur = None
for p in range(14):
    nxt = f"c{_hex7(10)}" if p < 13 else None
    args: dict[str, Any] = {"cql": "space=ENG and type=page", "limit": 25}
    if cur:
        args["cursor"] = cur
    n = 25 if p < 13 else 7
    t.call(
        "confluence_search",
        args,
        {"results": [f"ENG-{p * 25 + k}" for k in range(0, n, 6)], "size": n, "next": nxt},
    )
    cur = nxt
t.msg("Indexed 332 pages of ENG.")

t = new(
    "f7-pds-offset-walk",
    "distinct_reads",
    False,
    gh("NASA-PDS/deep-archive", "issues", 137),
    "The same collection paged properly: the start offset advances by 50 each call until the "
    "short last page.",
)
t.user("Archive every product of the mess_rs_derived data collection")
for start in range(0, 400, 50):
    n = 50 if start < 350 else 21
    t.call(
        "products_of_a_collection",
        {"collection": "urn:nasa:pds:mess_rs_derived:data::3.0", "start": start, "limit": 50},
        {
            "start": start,
            "hits": 371,
            "data": [f"prod_{start + 1:04d}", "...", f"prod_{start + n:04d}"],
        },
    )
t.msg("All 371 products archived.")

t = new(
    "f7-comfyui-poll-job",
    "polling",
    False,
    gh("artokun/comfyui-mcp", "pull", 317),
    "Before wait_for_job existed the agent polled get_job_status in a loop: queued, then "
    "running with the progress rising, then done.",
)
t.user("Render the product shot workflow and send me the image")
t.call("queue_prompt", {"workflow": "product_shot.json"}, '{"prompt_id": "p_5521"}')
for st in [
    '{"status": "queued", "position": 2}',
    '{"status": "queued", "position": 1}',
    '{"status": "running", "progress": 0.2}',
    '{"status": "running", "progress": 0.55}',
    '{"status": "running", "progress": 0.9}',
    '{"status": "done", "outputs": ["ComfyUI_00042_.png"]}',
]:
    t.call("bash", {"command": "sleep 5"}, "")
    t.call("get_job_status", {"prompt_id": "p_5521"}, st)
t.call("get_image", {"filename": "ComfyUI_00042_.png"}, "<image 1024x1024>")

t = new(
    "f7-healthomics-poll-running",
    "polling",
    False,
    gh("awslabs/mcp", "pull", 4493),
    "Waiting on a seven-minute run from the agent side: sleep, GetAHORun, the same RUNNING "
    "answer five times, then STOPPING while outputs export, then COMPLETED.",
)
t.user("Run the QC workflow and tell me when it's done")
t.call("StartAHORun", {"workflowId": "wf-12", "name": "qc-dec"}, '{"id": "5520011"}')
for st in [
    "PENDING",
    "RUNNING",
    "RUNNING",
    "RUNNING",
    "RUNNING",
    "RUNNING",
    "STOPPING",
    "COMPLETED",
]:
    t.call("bash", {"command": "sleep 60"}, "")
    t.call("GetAHORun", {"id": "5520011"}, f'{{"id": "5520011", "status": "{st}"}}')
t.msg("The QC run completed; outputs are in s3://runs/5520011/.")

t = new(
    "f7-nimbus-wait-for-job",
    "polling",
    False,
    gh("arjunrajlaboratory/NimbusImage", "pull", 1293),
    "A long segmentation job: wait_for_job with a ten-minute timeout answers stillRunning "
    "twice with the same progress, then the job's outcome.",
)
t.user("Segment the nuclei in dataset 7 and compute their areas")
t.call("run_worker", {"worker": "cellpose", "dataset": 7}, '{"jobId": "j_9001"}')
t.call(
    "wait_for_job",
    {"jobId": "j_9001", "timeout_s": 600},
    '{"stillRunning": true, "progress": "tiles 40/120"}',
)
t.call(
    "wait_for_job",
    {"jobId": "j_9001", "timeout_s": 600},
    '{"stillRunning": true, "progress": "tiles 40/120"}',
)
t.call(
    "wait_for_job", {"jobId": "j_9001", "timeout_s": 600}, '{"status": "success", "objects": 1832}'
)
t.call("compute_property", {"property": "area", "dataset": 7}, '{"jobId": "j_9002"}')
t.call("wait_for_job", {"jobId": "j_9002", "timeout_s": 600}, '{"status": "success"}')
t.msg("1,832 nuclei segmented; their areas are in the property table.")

t = new(
    "f7-m365-429-retry-after",
    "retry_transient",
    False,
    gh("OfficeDev/microsoft-365-agents-toolkit", "pull", 1459),
    "Deploying reads the resource group and is throttled twice with Retry-After: 5; the third "
    "try succeeds and the deployment goes on.",
)
t.user("Validate the function app deployment")
THR = "429 Too Many Requests (retry-after: 5)"
t.call("arm_get", {"path": "/subscriptions/s1/resourceGroups/rg-app"}, error=THR, kind="rate_limit")
t.call("bash", {"command": "sleep 5"}, "")
t.call("arm_get", {"path": "/subscriptions/s1/resourceGroups/rg-app"}, error=THR, kind="rate_limit")
t.call("bash", {"command": "sleep 5"}, "")
t.call(
    "arm_get",
    {"path": "/subscriptions/s1/resourceGroups/rg-app"},
    '{"name": "rg-app", "state": "Succeeded"}',
)
t.call(
    "arm_get",
    {"path": "/subscriptions/s1/resourceGroups/rg-app/providers/Microsoft.Web/sites/fn"},
    '{"state": "Running"}',
)
t.msg("The function app is deployed and running.")

t = new(
    "f7-thunderbird-429-per-endpoint",
    "retry_transient",
    False,
    gh("thunderbird/tbpro-add-on", "pull", 1173),
    "Uploading several files: two different uploads are rate-limited once each and succeed "
    "on their one retry.",
)
t.user("Upload the four attachments to Send")
for f in ["a.pdf", "b.pdf", "c.png", "d.zip"]:
    if f in ("b.pdf", "d.zip"):
        t.call(
            "send_upload",
            {"file": f},
            error="HTTP 429: slow down (Retry-After: 2)",
            kind="rate_limit",
        )
        t.call("bash", {"command": "sleep 2"}, "")
    t.call("send_upload", {"file": f}, f'{{"url": "https://send.example/{f}"}}')
t.msg("All four are uploaded.")

t = new(
    "f7-aider-test-after-edits",
    "edit_test_cycle",
    False,
    gh("Aider-AI/aider", "issues", 499),
    "The /test loop: run the tests, edit, run them again; each failure is a different one "
    "until they pass.",
)
t.user("/test pytest tests/test_cart.py")
TCART = {"command": "pytest -q tests/test_cart.py"}
t.call("run", TCART, "FAILED test_total - KeyError: 'qty'\n1 failed, 4 passed")
t.call(
    "edit_file",
    {"path": "cart.py", "diff": "- item['qty']\n+ item.get('quantity', 1)"},
    "applied",
    mutates=True,
)
t.call("run", TCART, "FAILED test_discount - assert 90 == 81\n1 failed, 4 passed")
t.call(
    "edit_file",
    {"path": "cart.py", "diff": "- total * 0.9\n+ total * 0.9 * 0.9 if vip else total * 0.9"},
    "applied",
    mutates=True,
)
t.call("run", TCART, "FAILED test_empty - ZeroDivisionError\n1 failed, 4 passed")
t.call(
    "edit_file", {"path": "cart.py", "diff": "+ if not items: return 0"}, "applied", mutates=True
)
t.call("run", TCART, "5 passed in 0.08s")

t = new(
    "f7-aider-same-failure-after-edits",
    "edit_test_cycle",
    False,
    gh("Aider-AI/aider", "issues", 3639),
    "Edits to three different places leave the same test failure until the third finds the "
    "cause; the test output is identical after the first two edits.",
)
t.user("Fix the failing timezone test")
TTZ = {"command": "pytest -q tests/test_tz.py::test_dst"}
FT = "FAILED tests/test_tz.py::test_dst - assert '01:30' == '02:30'\n1 failed in 0.12s"
t.call("bash", TTZ, FT)
t.call(
    "edit",
    {"path": "tz/convert.py", "old": "tz.localize(dt)", "new": "tz.localize(dt, is_dst=None)"},
    "ok",
    mutates=True,
)
t.call("bash", TTZ, FT)
t.call("edit", {"path": "tz/format.py", "old": "%H:%M", "new": "%H:%M %Z"}, "ok", mutates=True)
t.call("bash", TTZ, FT)
t.call(
    "edit",
    {"path": "tz/rules.py", "old": "transition - 1", "new": "transition"},
    "ok",
    mutates=True,
)
t.call("bash", TTZ, "1 passed in 0.10s")

t = new(
    "f7-adfa-edits-then-rereads",
    "edit_test_cycle",
    False,
    gh("appdevforall/plugin-examples", "pull", 100),
    "A run verifying its own edits: edit a file, read it back, edit the next, read it back, "
    "then edit the first again and read it again, each read showing the new content.",
)
t.user("Rename the Logger class to AppLogger everywhere")
for rnd in range(2):
    for f in ["Main.kt", "Logger.kt", "Util.kt"]:
        body = f"// {f} round {rnd + 1}\nclass AppLogger" + (" // doc" if rnd else "")
        t.call("edit_file", {"path": f"src/{f}", "content": body}, "written", mutates=True)
        t.call("read_file", {"path": f"src/{f}"}, body)
t.call("terminal", {"command": "./gradlew build"}, "BUILD SUCCESSFUL in 14s")

t = new(
    "f7-gemini-search-research-empty",
    "research",
    False,
    gh("google-gemini/gemini-cli", "issues", 22728),
    "Researching several different questions with web search; two of them find nothing, "
    "each answer echoing its query.",
)
t.user("For my talk: find stats on Rust adoption, Zig adoption, and Gleam adoption in industry")
for q, found in [
    ("Rust adoption survey 2026 industry", True),
    ("Zig language production users 2026", True),
    ("Gleam language industry adoption survey", False),
    ("Gleam language companies using in production", False),
    ("Stack Overflow survey 2026 most admired languages", True),
]:
    res = (
        f'Web search results for "{q}": 1. survey page ... 2. blog ...'
        if found
        else f'No search results or information found for query: "{q}"'
    )
    t.call("google_web_search", {"query": q}, res)
t.msg("Rust and Zig have survey numbers; I found no adoption data for Gleam.")

t = new(
    "f7-docker-agent-view-background-job",
    "polling",
    False,
    gh("docker/docker-agent", "issues", 3462),
    "A build started as a background job is checked with view_background_job after other "
    "work; its output grows each time until it exits.",
)
t.user("Build the image in the background and meanwhile update the changelog")
t.call("run_background_job", {"cmd": "docker build -t app ."}, '{"job_id": "bg_3"}')
t.call(
    "edit_file",
    {"path": "CHANGELOG.md", "content": "## 1.4.0\n- faster startup\n"},
    "ok",
    mutates=True,
)
t.call("view_background_job", {"job_id": "bg_3"}, "running\nStep 3/9 : RUN npm ci")
t.call("read_file", {"path": "Dockerfile"}, "FROM node:22\nRUN npm ci\n")
t.call("view_background_job", {"job_id": "bg_3"}, "running\nStep 6/9 : RUN npm run build")
t.call("bash", {"command": "sleep 20"}, "")
t.call("view_background_job", {"job_id": "bg_3"}, "exited 0\nSuccessfully tagged app:latest")
t.msg("Image built and the changelog updated.")


def _migration_walk(tid: str) -> None:
    """A long legitimate session: one table at a time, the same three steps each."""
    t = new(
        tid,
        "long_productive",
        False,
        {"repo": "plc1220/HelpUDoc", "path": "agent/prompts/data_agent/schema.md"},
        "A data migration walked table by table: describe, count, copy; 24 tables, many of "
        "them empty, every step on another table.",
    )
    t.user("Copy every table of the legacy schema into the new warehouse")
    r = random.Random(tid)
    names = [
        "accounts",
        "addresses",
        "audit_log",
        "banners",
        "carts",
        "categories",
        "coupons",
        "customers",
        "events",
        "faq",
        "gift_cards",
        "inventory",
        "invoices",
        "locales",
        "newsletters",
        "orders",
        "pages",
        "payments",
        "products",
        "refunds",
        "reviews",
        "sessions",
        "shipments",
        "wishlists",
    ]
    t.call("list_tables", {"schema": "legacy"}, json.dumps(names))
    for nm in names:
        rows = 0 if r.random() < 0.4 else r.randint(10, 90000)
        t.call(
            "describe_table",
            {"schema": "legacy", "table": nm},
            f'{{"table": "{nm}", "columns": {r.randint(3, 14)}}}',
        )
        t.call("execute_sql", {"query": f"SELECT count(*) FROM legacy.{nm}"}, f"[[{rows}]]")
        t.call(
            "execute_sql",
            {"query": f"INSERT INTO wh.{nm} SELECT * FROM legacy.{nm}"},
            f"INSERT 0 {rows}",
            mutates=True,
        )
    t.msg("All 24 tables copied.")


_migration_walk("f7-long-migration-walk")


def _triage_walk(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("microsoft/PowerToys", "pull", 47795),
        "A labelling agent walks 30 issues without a product label: read each, add the "
        "product label it maps to (the same label on many), a comment on the unclear ones.",
    )
    t.user("Label the Needs-Triage issues without a product label")
    r = random.Random(tid)
    prods = ["Product-FancyZones", "Product-PowerToys Run", "Product-Settings", "Product-Peek"]
    nums = sorted(r.sample(range(30000, 31000), 30))
    t.call("search_issues", {"q": "is:open label:Needs-Triage -label:Product-*"}, json.dumps(nums))
    for n in nums:
        area = r.choice(prods)
        t.call(
            "issue_read",
            {"owner": "microsoft", "repo": "PowerToys", "issue_number": n},
            f'{{"number": {n}, "area_field": "{area[8:]}"}}',
        )
        if r.random() < 0.2:
            t.call(
                "add_issue_comment",
                {
                    "owner": "microsoft",
                    "repo": "PowerToys",
                    "issue_number": n,
                    "body": "Which utility does this affect?",
                },
                '{"ok": true}',
            )
        else:
            t.call(
                "add_labels",
                {"owner": "microsoft", "repo": "PowerToys", "issue_number": n, "labels": [area]},
                '{"ok": true}',
            )
    t.msg("Labelled the issues; asked for details on the unclear ones.")


_triage_walk("f7-long-triage-walk")


# ================================================================ fresh8 set
# Written at 08:00 UTC (Dec 2) from sources no earlier split uses (checked against every
# `source` of the file; a few are other issues or pull requests of repositories earlier
# splits cite: langgraph, nanobot, hermes-agent, opencode, openclaw, browser-use, fastmcp).
# Frameworks' recursion-limit and max-iterations reports (LangGraph, NeMo Agent Toolkit,
# Haystack, DSPy, Agno, OpenRouter's agent SDK, forgecode), browser agents (Skyvern,
# Stagehand, browser-use), SQL agents (lumen, chalie), MCP clients (mcp2cli, fastmcp,
# vllm agentic-api) and the legitimate counterparts users asked loop detectors to leave
# alone (process waits, 429 backoff, cursor walks, load-more clicks, retry-with-fix loops,
# long iterative E2E work). Committed before crs was run on them. Split "fresh8".

FRESH8_START = len(ALL)
# ---- fresh8 loops

_r8 = random.Random(8008)  # ids, timestamps and durations in results


def _hex8(n: int) -> str:
    return "".join(_r8.choice("0123456789abcdef") for _ in range(n))


def _guid8() -> str:
    return f"{_hex8(8)}-{_hex8(4)}-{_hex8(4)}-{_hex8(4)}-{_hex8(12)}"


def _ts8(minute: int, second: int) -> str:
    return f"2026-03-19T14:{minute:02d}:{second:02d}.{_r8.randint(100, 999)}Z"


t = new(
    "f8-deerflow-search-crawl-cycle",
    "cycle",
    True,
    gh("bytedance/deer-flow", "issues", 55),
    "The researcher node alternates a web search and a crawl of its top hit until the "
    "recursion limit: the same query, the same page, each answer stamped with a new fetch "
    "time.",
)
t.user("Research how the EU AI Act classifies general-purpose models and write a brief")
t.call(
    "web_search",
    {"query": "EU AI Act general-purpose AI model obligations"},
    '[{"url": "https://artificialintelligenceact.eu/article/53/", "title": "Article 53"}]',
)
t.call(
    "crawl_tool",
    {"url": "https://artificialintelligenceact.eu/article/51/"},
    "Article 51: Classification of general-purpose AI models as models with systemic risk",
)
occ = []
for k in range(4):
    occ.append(
        [
            t.call(
                "web_search",
                {"query": "EU AI Act GPAI systemic risk classification"},
                {
                    "results": [
                        {"url": "https://artificialintelligenceact.eu/article/53/", "rank": 1},
                        {
                            "url": "https://digital-strategy.ec.europa.eu/en/policies/ai-pact",
                            "rank": 2,
                        },
                    ],
                    "fetched_at": _ts8(10 + k, 7 * k),
                },
            ),
            t.call(
                "crawl_tool",
                {"url": "https://artificialintelligenceact.eu/article/53/"},
                f"[crawled {_ts8(10 + k, 7 * k + 3)}] Article 53: Obligations for providers of "
                "general-purpose AI models: technical documentation, copyright policy, "
                "training-content summary.",
            ),
        ]
    )
mark_cycle(t, occ)

t = new(
    "f8-langgraph-set-status-key-order",
    "repeated_call",
    True,
    gh("langchain-ai/langgraph", "issues", 5548),
    "A ReAct agent whose tool answers 'Call set_status again' keeps calling it with the same "
    "status; the arguments come in either key order.",
)
t.user("Mark the nightly export as ready")
idx = []
for k in range(6):
    args = (
        {"status": "ready", "job": "nightly-export"}
        if k % 2 == 0
        else {"job": "nightly-export", "status": "ready"}
    )
    idx.append(t.call("set_status", args, "Call set_status again"))
t.mark(idx[1], idx[1])

t = new(
    "f8-nemo-mixture-reworded-delegation",
    "no_progress",
    True,
    gh("NVIDIA/NeMo-Agent-Toolkit", "pull", 1705),
    "A mixture-of-agents router keeps calling a nested tool-calling agent instead of "
    "answering: the same question reworded each time, the same answer back.",
)
t.user("What is the square root of 1764 plus 17?")
ANS8 = "sqrt(1764) = 42; 42 + 17 = 59"
idx = [
    t.call("math_agent", {"input_message": q}, ANS8)
    for q in [
        "compute the square root of 1764 plus 17",
        "what is sqrt(1764) + 17",
        "calculate the square root of 1764, then add 17",
        "square root of 1764 plus 17, please compute",
        "compute sqrt of 1764 and add 17 to it",
        "find the square root of 1764 and add 17",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f8-xalgorix-terminal-same-failure",
    "error_loop",
    True,
    gh("xalgorix/xalgorix", "pull", 159),
    "terminal_execute regenerated with identical arguments and an identical failing result, "
    "each error carrying its own timestamp, until the iteration cap.",
)
t.user("Scan the staging host for open services")
t.call("terminal_execute", {"command": "which nmap"}, "/usr/bin/nmap")
NMAP = {"command": "nmap -sV -p- staging.internal", "timeout": 600}
idx = [
    t.call(
        "terminal_execute",
        NMAP,
        error=f'[{_ts8(20 + k, 11)}] Failed to resolve "staging.internal".\n'
        "WARNING: No targets were specified, so 0 hosts scanned.\nexit status 1",
        kind="exit_code",
    )
    for k in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f8-nanobot-env-var-mechanisms",
    "no_progress",
    True,
    gh("HKUDS/nanobot", "pull", 5344),
    "The agent checks one environment variable through half a dozen spellings of a shell "
    "command; every one prints nothing.",
)
t.user("Which base URL is the OpenAI client configured with?")
idx = [
    t.call("exec", {"command": c}, "")
    for c in [
        'echo "$OPENAI_BASE_URL"',
        "printenv OPENAI_BASE_URL || true",
        "env | grep OPENAI_BASE_URL || true",
        "bash -lc 'echo $OPENAI_BASE_URL'",
        "printenv | grep -i openai_base_url || true",
        "echo ${OPENAI_BASE_URL:-}",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f8-haystack-parallel-finish-ignored",
    "cycle",
    True,
    gh("deepset-ai/haystack", "issues", 11392),
    "The model emits search and finish together each round; the exit check sees only the "
    "first, so the agent searches and finishes again and again until max_agent_steps.",
)
t.user("Which Python versions does the 2.x release support?")
occ = repeat_block(
    t,
    [
        {
            "tool": "search",
            "args": {"query": "supported Python versions 2.x release notes"},
            "result": "Haystack 2.x supports Python 3.9 to 3.13.",
        },
        {
            "tool": "finish",
            "args": {"answer": "Python 3.9 to 3.13."},
            "result": "Python 3.9 to 3.13.",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f8-egg-read-window-number-forms",
    "repeated_call",
    True,
    gh("jwbron/egg", "issues", 3595),
    "Twelve identical read_file calls against a window that never answers the question; "
    "the offset and limit come as ints, strings and floats.",
)
t.user("Find where compute_window is defined and report the line number")
WIN = "668    for seg in segments:\n669        acc += seg.weight\n...\n697    return acc"
forms = [(668, 30), ("668", "30"), (668.0, 30), (668, 30.0), ("668", 30), (668, "30")]
idx = [
    t.call(
        "read_file",
        {"path": "src/pipeline/window.py", "offset": o, "limit": lim},
        WIN,
    )
    for o, lim in forms
]
t.mark(idx[1], idx[1])

t = new(
    "f8-hermes-cronjob-list-streak",
    "repeated_call",
    True,
    gh("NousResearch/hermes-agent", "pull", 84665),
    "A mixed read/write cronjob tool called with action=list again and again, the same "
    "jobs each time, each listing stamped with the server's time.",
)
t.user("Set up a daily 7am digest job")
idx = [
    t.call(
        "cronjob",
        {"action": "list"},
        {
            "jobs": [{"id": "job_3", "schedule": "0 9 * * 1", "name": "weekly-report"}],
            "server_time": _ts8(30 + k, 2 * k),
        },
    )
    for k in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f8-dspy-react-search-after-answer",
    "no_progress",
    True,
    gh("stanfordnlp/dspy", "issues", 748),
    "A ReAct program that already found the answer keeps searching, rewording the query; "
    "the retriever returns the same passages.",
)
t.user("Aside from the Apple Remote, what other device can control the program Front Row?")
PASS8 = (
    "Front Row (software) | Front Row is a discontinued media center application for Mac OS "
    "X; it can be controlled by an Apple Remote or the keyboard function keys."
)
t.call("Search", {"query": "Front Row program Apple Remote"}, PASS8)
idx = [
    t.call("Search", {"query": q}, PASS8)
    for q in [
        "Front Row software controlled by devices",
        "devices that can control Front Row software",
        "Front Row media center control device besides Apple Remote",
        "what controls Front Row besides the Apple Remote",
        "Front Row software control keyboard function keys",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f8-lumen-sql-requoted-binder-error",
    "error_loop",
    True,
    gh("holoviz/lumen", "issues", 1419),
    "The SQL agent retries a failing query with the column quoted, spaced and cased "
    "differently; the database gives the same binder error every time.",
)
t.user("Total revenue per region for 2024")
t.call("describe_table", {"table": "sales"}, "region VARCHAR, amount DOUBLE, sold_on DATE")
BIND = (
    'Binder Error: Referenced column "revenue" not found in FROM clause!\n'
    'Candidate bindings: "sales.region", "sales.amount"'
)
idx = [
    t.call("execute_sql", {"query": q}, error=BIND, kind="invalid_args")
    for q in [
        "SELECT region, SUM(revenue) FROM sales WHERE year(sold_on) = 2024 GROUP BY region",
        'SELECT region, SUM("revenue") FROM sales WHERE year(sold_on) = 2024 GROUP BY region',
        "SELECT region,  SUM(revenue)  FROM sales  WHERE year(sold_on)=2024  GROUP BY region",
        "select region, sum(revenue) from sales where year(sold_on) = 2024 group by region",
        'SELECT "region", SUM("revenue") FROM "sales" WHERE year(sold_on) = 2024 GROUP BY 1',
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f8-chalie-db-query-insert-rejected",
    "error_loop",
    True,
    gh("chalie-ai/chalie", "issues", 404),
    "The executor retries the identical INSERT through a read-only db_query tool nine times; "
    "each is rejected the same way.",
)
t.user("Record an uncertainty for the trait conflict between 'punctual' and 'often late'")
INS = {
    "sql": "INSERT INTO uncertainties (trait_a, trait_b, reason) VALUES "
    "('punctual', 'often late', 'conflict')"
}
idx = [
    t.call(
        "db_query",
        INS,
        error="db_query is read-only: INSERT/UPDATE/DELETE statements are rejected",
        kind="permission",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f8-skyvern-open-screenshot-cycle",
    "cycle",
    True,
    gh("Skyvern-AI/skyvern", "issues", 400),
    "On a news front page the agent opens the same page and takes a screenshot, again and "
    "again; each screenshot comes back under a new artifact id.",
)
t.user("Find the latest news on nytimes.com")
occ = []
for _k in range(4):
    occ.append(
        [
            t.call(
                "goto_url",
                {"url": "https://www.nytimes.com/"},
                "Navigated to https://www.nytimes.com/ (status 200)",
            ),
            t.call(
                "take_screenshot",
                {"full_page": False},
                {"artifact_id": f"a_{_guid8()}", "elements": 412, "title": "The New York Times"},
            ),
        ]
    )
mark_cycle(t, occ)

t = new(
    "f8-stagehand-click-step-varies",
    "repeated_call",
    True,
    gh("browserbase/stagehand", "issues", 301),
    "act clicks its own debug overlay's 'Next' button again and again: the same method and "
    "element, only the step description and the why differ, the same answer each time.",
)
t.user("Close any popups, banners and terms that appear on the homepage")
t.call("goto", {"url": "https://zip.co/us"}, "loaded https://zip.co/us")
steps8 = [
    ("Clicked on the 'Next' button to potentially close a popup", "might be part of a popup"),
    ("Clicked the 'Next' button to move past the carousel", "may dismiss the overlay"),
    ("Clicking 'Next' again to close the popup", "the popup may still be open"),
    ("Click 'Next' to advance the banner", "banner might close after the last slide"),
    ("Pressed 'Next' on the overlay", "to reach the close control"),
    ("Clicked the Next button once more", "the overlay is still visible"),
]
idx = [
    t.call(
        "act",
        {"method": "click", "element": 0, "args": [], "step": s, "why": w, "completed": False},
        "clicked element 0 <button>Next</button>",
    )
    for s, w in steps8
]
t.mark(idx[1], idx[1])

t = new(
    "f8-browser-use-scroll-down-forever",
    "repeated_call",
    True,
    gh("browser-use/browser-use", "issues", 191),
    "Step after step the agent scrolls down by one page, evaluates 'Success' and sets the "
    "next goal to scroll down again; the page is at its end and nothing changes.",
)
t.user("Find the pricing of the team plan on the page")
t.call("go_to_url", {"url": "https://example-saas.io/"}, "Navigated to https://example-saas.io/")
t.call("scroll_down", {}, "Scrolled down the page by one page")
idx = [
    t.call(
        "scroll_down",
        {},
        "Scrolled down the page by one page",
        thought=f"Memory: Scrolled down the page ({k + 2} times). Next goal: scroll down again.",
    )
    for k in range(6)
]
t.mark(idx[0], idx[0])

t = new(
    "f8-agno-glob-unicode-pattern",
    "repeated_call",
    True,
    gh("agno-agi/agno", "issues", 6984),
    "A Qwen agent calls glob_file with the same non-ASCII pattern over and over past its "
    "soft tool-call limit; the listing never changes.",
)
t.user("汇总 data/数据 目录下的所有季度报表")
t.call("list_skills", {}, '["vfs", "excel"]')
LST8 = "data/数据/2025Q1.xlsx\ndata/数据/2025Q2.xlsx\ndata/数据/2025Q3.xlsx"
idx = [t.call("glob_file", {"pattern": "data/数据/*"}, LST8) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f8-openrouter-empty-args-invalid",
    "error_loop",
    True,
    gh("OpenRouterTeam/typescript-agent", "pull", 73),
    "Repeated empty {} calls that fail validation before they reach execute, round after round.",
)
t.user("What's the weather where our Lisbon office is?")
idx = [
    t.call(
        "get_weather",
        {},
        error="Invalid arguments for get_weather: 'location' is required",
        kind="invalid_args",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f8-openrouter-fanout-repeated",
    "cycle",
    True,
    gh("OpenRouterTeam/typescript-agent", "pull", 89),
    "The same fan-out of two parallel sh calls reissued round after round, the same "
    "outputs each time.",
)
t.user("Is my branch ahead of main?")
occ = repeat_block(
    t,
    [
        {
            "tool": "sh",
            "args": {"cmd": "git rev-list --count main..HEAD"},
            "result": "3",
        },
        {
            "tool": "sh",
            "args": {"cmd": "git log --oneline -3"},
            "result": "a1c9e02 fix parser\n77b1d3e add tests\n0e4f5aa bump deps",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f8-forgecode-read-patch-test-cycle",
    "cycle",
    True,
    gh("tailcallhq/forgecode", "pull", 2368),
    "A period-3 doom loop: read the file, a patch whose search text is not in it, the same "
    "failing test; round after round.",
)
t.user("Fix the off-by-one in paginate()")
SRC8 = (
    "def paginate(items, size):\n    return [items[i:i+size] for i in range(0, len(items)-1, size)]"
)
TFAIL8 = "FAILED tests/test_pages.py::test_last_page - assert 2 == 3\n1 failed, 11 passed"
occ = repeat_block(
    t,
    [
        {"tool": "read", "args": {"path": "src/pages.py"}, "result": SRC8},
        {
            "tool": "patch",
            "args": {
                "path": "src/pages.py",
                "search": "range(0, len(items) - 1, size)",
                "replace": "range(0, len(items), size)",
            },
            "error": "search text not found in src/pages.py",
            "kind": "not_found",
        },
        {
            "tool": "shell",
            "args": {"command": "pytest -q tests/test_pages.py"},
            "error": TFAIL8,
            "kind": "exit_code",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f8-opencode-failed-edit-then-read",
    "cycle",
    True,
    gh("anomalyco/opencode", "issues", 25254),
    "A failed edit, a read of the file, the identical failed edit, the same read: the "
    "pattern crosses messages so a detector of three identical calls in a row never fires.",
)
t.user("Rename the config key retries to max_retries in config.ts")
CFG8 = "export const config = {\n  retries: 3,\n  timeoutMs: 5000,\n}"
occ = repeat_block(
    t,
    [
        {
            "tool": "edit",
            "args": {
                "filePath": "src/config.ts",
                "oldString": "  retries: 3,\n  timeout: 5000,",
                "newString": "  max_retries: 3,\n  timeout: 5000,",
            },
            "error": "oldString not found in content",
            "kind": "not_found",
        },
        {"tool": "read", "args": {"filePath": "src/config.ts"}, "result": CFG8},
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f8-openclaw-exec-tail-unchanged",
    "repeated_call",
    True,
    gh("openclaw/openclaw", "issues", 128855),
    "Told to follow a backgrounded scan through the process tool, the agent tails the log "
    "through exec instead, again and again with no wait, the same last lines each time.",
)
t.user("Run the nightly scan and report the findings")
t.call(
    "exec",
    {"command": "bash run_scan.sh", "timeoutSeconds": 300},
    "Command still running (session neat-cloud, pid 179249). Use process "
    "(list/poll/log/write/kill) for follow-up.",
)
LOG8 = "[scan] 1204/3310 hosts\n[scan] rate limited by upstream, backing off"
idx = [t.call("exec", {"command": "tail -n 2 /tmp/scan.log"}, LOG8) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f8-vllm-repeated-cursor",
    "repeated_call",
    True,
    gh("vllm-project/agentic-api", "pull", 311),
    "tools/list returns the cursor it was given; the client keeps asking for the same page "
    "with the same cursor.",
)
t.user("Connect the docs MCP server and list its tools")
t.call("mcp_list_tools", {"server": "docs"}, '{"tools": ["search", "fetch"], "nextCursor": "p2"}')
PG8 = '{"tools": ["outline", "cite"], "nextCursor": "p2"}'
idx = [t.call("mcp_list_tools", {"server": "docs", "cursor": "p2"}, PG8) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f8-o8-failing-build-next-session",
    "known_failure",
    True,
    gh("hurttlocker/o8", "issues", 2448),
    "The same failing command five times in one packet; the next packet on the unchanged "
    "tree starts with it again.",
)
TSC8 = "src/lane.ts(41,7): error TS2322: Type 'string' is not assignable to type 'LaneId'."
BLD8 = {"command": "pnpm -C packages/lane build"}
t.user("Build the lane package")
t.call("bash", BLD8, error=TSC8, kind="exit_code")
t.call("read", {"path": "packages/lane/src/lane.ts"}, "41  const id: LaneId = raw.id")
t.msg("The build fails on a type error in lane.ts line 41; it needs a LaneId parse.")
t.session("s2")
t.user("Build the lane package")
rep = t.call("bash", BLD8, error=TSC8, kind="exit_code")
t.call("bash", BLD8, error=TSC8, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "f8-kernel-claude-after-compaction",
    "known_failure",
    True,
    gh("ariaxhan/kernel-claude", "issues", 25),
    "After context compaction (a new session) the agent retries the exact broken migration "
    "it had already seen fail, on the same tree.",
)
ALE8 = {"command": "alembic upgrade head"}
ALERR8 = "alembic.util.exc.CommandError: Can't locate revision identified by 'a41f0c2b9e11'"
t.user("Apply the pending migrations")
t.call("bash", {"command": "alembic current"}, "7d3e2a1b90f4")
t.call("bash", ALE8, error=ALERR8, kind="exit_code")
t.msg("The head revision points at a missing file; the migration chain is broken.")
t.session("s2")
t.user("Continue: apply the pending migrations")
rep = t.call("bash", ALE8, error=ALERR8, kind="exit_code")
t.call("bash", ALE8, error=ALERR8, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "f8-openrouter-identical-text",
    "monologue",
    True,
    gh("OpenRouterTeam/typescript-agent", "pull", 73),
    "Byte-identical assistant text across consecutive steps, no tool call in between.",
)
t.user("Summarise the release notes for 4.2")
t.call("fetch_url", {"url": "https://example.dev/releases/4.2"}, "4.2: streaming tools; ...")
TXT8 = "Release 4.2 adds streaming tool results and drops Node 16. Anything else?"
idx = [t.msg(TXT8) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f8-autogpt-next-web-repeating-answers",
    "monologue",
    True,
    gh("ElricLiu/AutoGPT-Next-Web", "issues", 91),
    "With looping set high the agent repeats the same steps and answers in slightly other "
    "words, never calling a tool.",
)
t.user("Plan a 3-day trip to Kyoto")
idx = [
    t.msg(s)
    for s in [
        "Task: research Kyoto attractions. Day 1: Fushimi Inari and Gion; "
        "Day 2: Arashiyama; Day 3: Kinkaku-ji.",
        "Executing task: research Kyoto attractions. Day 1 Fushimi Inari, Gion; "
        "Day 2 Arashiyama; Day 3 Kinkaku-ji.",
        "Task research Kyoto attractions: Day 1: Gion and Fushimi Inari, Day 2: Arashiyama, "
        "Day 3: Kinkaku-ji.",
        "Researching Kyoto attractions. Day 1: Fushimi Inari and Gion. Day 2: Arashiyama. "
        "Day 3: Kinkaku-ji.",
        "Task: research Kyoto attractions; Day 1 Fushimi Inari and Gion, Day 2 Arashiyama, "
        "Day 3 Kinkaku-ji.",
        "Executing: research Kyoto attractions. Day 1: Gion, Fushimi Inari; Day 2: Arashiyama; "
        "Day 3: Kinkaku-ji.",
    ]
]
t.mark(idx[1], idx[1])

# ---- fresh8 legitimate

t = new(
    "f8-hermes-process-wait-polling",
    "polling",
    False,
    gh("NousResearch/hermes-agent", "pull", 823),
    "A long build started in the background is followed through process wait: the same "
    "wait answers 'still running, no new output' four times, then the output, then exit 0.",
)
t.user("Build the docs site and tell me if it has broken links")
t.call(
    "terminal",
    {"command": "npm run build:docs", "background": True},
    '{"session_id": "proc_7f2a", "status": "started"}',
)
PW8 = {"action": "wait", "session_id": "proc_7f2a", "timeout": 60}
for _ in range(4):
    t.call("process", PW8, '{"status": "running", "new_output": ""}')
t.call("process", PW8, '{"status": "running", "new_output": "built 412 pages"}')
t.call(
    "process",
    PW8,
    '{"status": "exited", "exit_code": 0, "new_output": "link check: 0 broken links"}',
)
t.msg("The docs built (412 pages) with no broken links.")

t = new(
    "f8-rocketride-apify-429-then-ok",
    "retry_transient",
    False,
    gh("rocketride-org/rocketride-server", "pull", 1224),
    "An Apify actor call is rate limited twice and succeeds on the third try; a second "
    "actor later gets one 503 and then succeeds.",
)
t.user("Scrape the top 20 listings from the two marketplaces")
A1 = {"actor": "apify/web-scraper", "input": {"startUrls": ["https://market-a.example/top"]}}
A2 = {"actor": "apify/web-scraper", "input": {"startUrls": ["https://market-b.example/top"]}}
t.call("run_actor", A1, error="429 Too Many Requests: rate limit exceeded", kind="rate_limit")
t.call("run_actor", A1, error="429 Too Many Requests: rate limit exceeded", kind="rate_limit")
t.call("run_actor", A1, '{"datasetId": "ds_81", "items": 20}')
t.call("get_dataset_items", {"datasetId": "ds_81", "limit": 20}, "[20 listings from market A]")
t.call("run_actor", A2, error="503 Service Unavailable", kind="server_error")
t.call("run_actor", A2, '{"datasetId": "ds_82", "items": 20}')
t.call("get_dataset_items", {"datasetId": "ds_82", "limit": 20}, "[20 listings from market B]")
t.msg("Both marketplaces scraped: 40 listings.")

t = new(
    "f8-wave-agent-backoff-then-ok",
    "retry_transient",
    False,
    gh("netease-lcap/wave-agent", "pull", 291),
    "Backoff after 429s: the same completion request retried after 1 s and 2 s, the third "
    "try succeeds; the session goes on.",
)
t.user("Translate the changelog into Japanese")
t.call("read_file", {"path": "CHANGELOG.md"}, "## 3.1.0\n- faster startup\n- fix tray icon")
TR8 = {"text": "## 3.1.0\n- faster startup\n- fix tray icon", "target": "ja"}
t.call("translate", TR8, error="429 Too Many Requests", kind="rate_limit")
t.call("wait", {"seconds": 1}, "waited 1s")
t.call("translate", TR8, error="429 Too Many Requests", kind="rate_limit")
t.call("wait", {"seconds": 2}, "waited 2s")
t.call("translate", TR8, "## 3.1.0\n- 起動の高速化\n- トレイアイコンの修正")
t.call(
    "write_file",
    {"path": "CHANGELOG.ja.md", "content": "## 3.1.0\n- 起動の高速化\n- トレイアイコンの修正"},
    "wrote 2 lines",
    mutates=True,
)
t.msg("Wrote CHANGELOG.ja.md.")

t = new(
    "f8-hermes-webui-429-separate-calls",
    "retry_transient",
    False,
    gh("nesquena/hermes-webui", "issues", 4980),
    "A research chat where two different searches each hit one 429 and succeed on the retry.",
)
t.user("Compare the battery life of the two laptops I mentioned")
for q in ["ThinkPad X1 Carbon Gen 13 battery life test", "MacBook Air M4 battery life test"]:
    t.call("web_search", {"query": q}, error="HTTP 429: rate limit reached", kind="rate_limit")
    t.call("web_search", {"query": q}, f"[5 results for {q}]")
    t.call("web_fetch", {"url": f"https://reviews.example/{q.split()[0].lower()}"}, "14h video")
t.msg("Both last about 14 hours of video playback; the MacBook a little longer on web use.")

t = new(
    "f8-mcp2cli-tools-list-pages",
    "distinct_reads",
    False,
    gh("knowsuchagency/mcp2cli", "issues", 64),
    "A Craft CMS MCP server pages tools/list; the client follows nextCursor through six "
    "pages, each with other tools.",
)
t.user("List every tool the craft server exposes")
cur = None
for p in range(6):
    args: dict[str, Any] = {"server": "craft"}
    if cur is not None:
        args["cursor"] = cur
    nxt = None if p == 5 else _hex8(16)
    tools = [f"tool_{p * 9 + k}" for k in range(9)]
    t.call("list_tools", args, {"tools": tools, "nextCursor": nxt})
    cur = nxt
t.msg("54 tools across 6 pages, including get_entry and create_entry on the last page.")

t = new(
    "f8-fastmcp-empty-cursor-continues",
    "distinct_reads",
    False,
    gh("PrefectHQ/fastmcp", "pull", 5026),
    "A server returns an empty-string continuation cursor: the first page, then the page "
    "asked with cursor '', then the tools read one by one.",
)
t.user("What can the reports server do?")
t.call("list_tools", {"server": "reports"}, {"tools": ["daily", "weekly"], "nextCursor": ""})
t.call(
    "list_tools",
    {"server": "reports", "cursor": ""},
    {"tools": ["monthly", "export"], "nextCursor": None},
)
for nm in ["daily", "weekly", "monthly", "export"]:
    t.call("describe_tool", {"server": "reports", "name": nm}, f"{nm}: builds the {nm} report")
t.msg("Four tools: daily, weekly and monthly reports, and an export.")

t = new(
    "f8-egg-find-compute-window",
    "research",
    False,
    gh("jwbron/egg", "issues", 3595),
    "The counterpart: reading successive windows of a long file, then a grep, finds the "
    "definition; one window is re-read after the grep to quote it.",
)
t.user("Find where compute_window is defined and report the line number")
for off in [600, 630, 660, 690]:
    t.call(
        "read_file",
        {"path": "src/pipeline/window.py", "offset": off, "limit": 30},
        f"{off}    ... lines {off}-{off + 29} (no def compute_window)",
    )
t.call(
    "grep",
    {"pattern": "def compute_window", "path": "src/"},
    "src/pipeline/windows/core.py:212:def compute_window(segments, size):",
)
t.call(
    "read_file",
    {"path": "src/pipeline/windows/core.py", "offset": 205, "limit": 20},
    "212 def compute_window(segments, size):\n213     acc = 0.0",
)
t.msg("compute_window is defined in src/pipeline/windows/core.py at line 212.")

t = new(
    "f8-umbra-load-more-clicks",
    "distinct_reads",
    False,
    gh("internetarchive/umbra", "pull", 43),
    "A site reuses one load-more button: the same click answered 'clicked' each time, and "
    "each following extract returns the newly loaded posts, until the button is disabled.",
)
t.user("Archive every post on the department news page")
t.call("navigate", {"url": "https://news.dept.example.edu/"}, "loaded; 10 posts")
for k in range(7):
    t.call("click", {"selector": "a#load-more"}, "clicked")
    t.call(
        "extract",
        {"selector": "article.post h2"},
        json.dumps([f"Post {10 * (k + 1) + j}" for j in range(10)]),
    )
t.call("click", {"selector": "a#load-more"}, "element is disabled (class=disabled)")
t.msg("Archived 80 posts; the load-more button is now disabled.")

t = new(
    "f8-browser-use-varied-actions",
    "distinct_reads",
    False,
    gh("browser-use/browser-use", "pull", 3979),
    "Each step performs a different action (search, click, input, scroll to read); three "
    "scrolls in a row each show new content.",
)
t.user("Find the return policy for sale items on the shop")
t.call("go_to_url", {"url": "https://shop.example/"}, "Navigated to https://shop.example/")
t.call("click_element", {"index": 14}, "Clicked 'Help'")
t.call("input_text", {"index": 3, "text": "returns sale"}, "Input 'returns sale' into index 3")
t.call("click_element", {"index": 4}, "Clicked 'Search'")
t.call("click_element", {"index": 21}, "Clicked 'Returns & refunds'")
for part in [
    "Returns within 30 days of delivery...",
    "Items bought in a sale can be returned for store credit...",
    "Final-sale items (marked) cannot be returned...",
]:
    t.call("scroll_down", {}, f"Scrolled down the page by one page; visible: {part}")
t.msg("Sale items can be returned within 30 days for store credit, except final-sale items.")

t = new(
    "f8-haystack-chat-text-exits",
    "conversation",
    False,
    gh("deepset-ai/haystack", "pull", 12074),
    "A support chat: each user question ends in a plain text reply (exit_reason 'text'), "
    "some after one docs search; the replies share phrasing.",
)
QS8 = [
    ("How do I install the package?", "install", "pip install haystack-ai"),
    ("Does it support async pipelines?", "async pipelines", "AsyncPipeline exists since 2.6"),
    ("How do I add a custom component?", "custom component", "use the @component decorator"),
    ("Can the Agent stop on a tool call?", "exit_conditions", "set exit_conditions=['tool']"),
    ("What does max_agent_steps default to?", "max_agent_steps", "100"),
    ("Where are the release notes?", "release notes", "docs/releasenotes"),
]
for q, s, a in QS8:
    t.user(q)
    t.call("search_docs", {"query": s}, f"[docs] {a}")
    t.msg(f"According to the docs: {a}. Let me know if you need more detail on this.")

t = new(
    "f8-vibe-check-healthy-plan",
    "conversation",
    False,
    gh("kesslerio/vibe-check-mcp", "issues", 251),
    "An agent writes out an implementation plan step by step in several messages, each "
    "about a new part (OAuth, sessions, tests, timeline); healthy content, not a loop.",
)
t.user("Plan the user authentication work for this week")
for s in [
    "Step 1: set up OAuth with Google using their official SDK; register the redirect URI.",
    "Step 2: create session management: signed cookies, a 14-day refresh token, rotation.",
    "Step 3: add the account page: linked providers, sign-out of all devices.",
    "Step 4: tests: the OAuth callback with a stubbed provider, session expiry, CSRF checks.",
    "Step 5: rollout behind a flag to staff first, then 10% of users, watching error rates.",
    "Timeline: steps 1-2 by Wednesday, 3-4 by Friday; iterate on user feedback next week.",
]:
    t.msg(s)

t = new(
    "f8-dspy-go-optimizer-research",
    "research",
    False,
    gh("XiaoConstantine/dspy-go", "issues", 159),
    "Seven iterations of exploration: list the optimizers directory, read several files, "
    "grep for usages, then answer.",
)
t.user("How do I implement prompt optimization with dspy-go?")
t.call("list_dir", {"path": "pkg/optimizers"}, "copro.go\nmipro.go\nbootstrap_fewshot.go\nsimba.go")
for f in ["copro.go", "mipro.go", "bootstrap_fewshot.go"]:
    t.call("read_file", {"path": f"pkg/optimizers/{f}"}, f"// {f}: type ... struct; func New...")
t.call("grep", {"pattern": "optimizers.NewCOPRO", "path": "examples/"}, "examples/copro/main.go:31")
t.call("read_file", {"path": "examples/copro/main.go"}, "opt := optimizers.NewCOPRO(metric, ...)")
t.call("grep", {"pattern": "Compile(", "path": "pkg/optimizers/"}, "copro.go:88\nmipro.go:140")
t.msg("Create an optimizer (NewCOPRO or NewMIPRO) with a metric, then call Compile on it.")

t = new(
    "f8-fusion-e2e-fix-test",
    "edit_test_cycle",
    False,
    gh("Runfusion/Fusion", "pull", 2404),
    "Long single-step E2E debugging: edit, run the same e2e spec, read the trace, edit "
    "again; the failure moves, once stays the same after an edit, then passes; the same "
    "git status between edits of files already modified.",
)
t.user("Make the checkout e2e spec pass")
E2E8 = {"command": "pnpm exec playwright test e2e/checkout.spec.ts"}
GS8 = {"command": "git status --short"}
fails = [
    "1 failed: checkout > pays with card — locator('#pay') not found (12.4s)",
    "1 failed: checkout > pays with card — expected 'Paid' got 'Pending' (11.9s)",
    "1 failed: checkout > pays with card — expected 'Paid' got 'Pending' (12.2s)",
    "1 failed: checkout > shows receipt — timeout 5000ms waiting for receipt (14.0s)",
]
t.call("shell", E2E8, error=fails[0], kind="exit_code")
files8 = ["src/checkout/Pay.tsx", "src/checkout/api.ts", "src/checkout/api.ts", "src/receipt.tsx"]
for k, f in enumerate(files8):
    t.call("read_file", {"path": f}, f"// {f} (v{k})")
    t.call(
        "edit_file",
        {"path": f, "old": f"v{k} line", "new": f"v{k + 1} line"},
        "edited 1 hunk",
        mutates=True,
    )
    t.call("shell", GS8, " M src/checkout/Pay.tsx\n M src/checkout/api.ts\n M src/receipt.tsx")
    if k + 1 < len(fails):
        t.call("shell", E2E8, error=fails[k + 1], kind="exit_code")
    else:
        t.call("shell", E2E8, "4 passed (38.1s)")
t.msg("The checkout spec passes: the pay button id, the webhook status and the receipt wait.")

t = new(
    "f8-o8-retry-with-fix",
    "edit_test_cycle",
    False,
    gh("hurttlocker/o8", "issues", 2448),
    "A legitimate retry-with-fix loop: the same failing command after each fix, its error "
    "changing each time, until it builds.",
)
t.user("Get the lane package building")
BLDL = {"command": "pnpm -C packages/lane build"}
errs8 = [
    "src/lane.ts(41,7): error TS2322: Type 'string' is not assignable to type 'LaneId'.",
    "src/lane.ts(58,3): error TS2345: Argument of type 'number' is not assignable.",
    "src/route.ts(12,1): error TS2304: Cannot find name 'parseLane'.",
]
t.call("bash", BLDL, error=errs8[0], kind="exit_code")
for k in range(3):
    t.call(
        "edit",
        {"path": "packages/lane/src/lane.ts", "patch": f"fix {k}"},
        "applied",
        mutates=True,
    )
    if k < 2:
        t.call("bash", BLDL, error=errs8[k + 1], kind="exit_code")
    else:
        t.call("bash", BLDL, "built packages/lane in 3.2s")
t.msg("The lane package builds.")

t = new(
    "f8-kernel-claude-fixed-then-rerun",
    "session_memory",
    False,
    gh("ariaxhan/kernel-claude", "issues", 25),
    "The migration fails in session 1; the user restores the missing revision file; in "
    "session 2 the same command succeeds.",
)
t.user("Apply the pending migrations")
t.call("bash", {"command": "alembic upgrade head"}, error=ALERR8, kind="exit_code")
t.msg("A revision file is missing (a41f0c2b9e11); restore it and I will retry.")
t.workspace("the user restored migrations/versions/a41f0c2b9e11_add_orders.py")
t.session("s2")
t.user("Restored it, go ahead")
t.call("bash", {"command": "alembic upgrade head"}, "Running upgrade 7d3e2a1b90f4 -> a41f0c2b9e11")
t.call("bash", {"command": "alembic current"}, "a41f0c2b9e11 (head)")

t = new(
    "f8-chalie-write-granted-next-session",
    "session_memory",
    False,
    gh("chalie-ai/chalie", "issues", 404),
    "The INSERT is rejected by the read-only tool in session 1; the operator grants write "
    "access; session 2 runs the same statement and it succeeds.",
)
t.user("Record an uncertainty for the trait conflict")
t.call(
    "db_query",
    INS,
    error="db_query is read-only: INSERT/UPDATE/DELETE statements are rejected",
    kind="permission",
)
t.msg("The database tool is read-only; it needs write access to record this.")
t.workspace("the operator enabled writes for db_query in tools.yaml")
t.session("s2")
t.user("Writes are enabled now, record it")
t.call("db_query", INS, "INSERT 0 1")
t.call("db_query", {"sql": "SELECT count(*) FROM uncertainties"}, "[[1]]")

t = new(
    "f8-loom-background-task-output",
    "polling",
    False,
    gh("rjwalters/loom", "issues", 5013),
    "Three background subagents are dispatched; their outputs are checked after each sleep "
    "until all report completion.",
)
t.user("Run the three audits in the background and summarise them")
for nm in ["deps", "licenses", "secrets"]:
    t.call("Agent", {"prompt": f"Audit {nm}", "run_in_background": True}, f"started task_{nm}")
for k in range(4):
    t.call("Bash", {"command": "sleep 20"}, "")
    for nm in ["deps", "licenses", "secrets"]:
        done = (nm == "deps" and k >= 1) or (nm == "licenses" and k >= 2) or k >= 3
        t.call(
            "TaskOutput",
            {"task_id": f"task_{nm}", "block": False},
            f"completed: {nm} audit found {len(nm)} issues" if done else "status: running",
        )
t.msg("All three audits finished: deps 4, licenses 8, secrets 7 findings.")

t = new(
    "f8-autocorrode-check-status-polls",
    "polling",
    False,
    gh("awslabs/AutoCorrode", "pull", 270),
    "A proof check runs for minutes; its reduced status is polled after each sleep, the "
    "same long-running command named three times, then the check completes.",
)
t.user("Check the theory file and report the result")
t.call("ic2_check", {"file": "Memory.thy"}, '{"check_id": "c_41", "status": "started"}')
for k in range(5):
    t.call("shell", {"command": "sleep 15"}, "")
    st = (
        '{"status": "running", "done": 31, "total": 40, "long_running": "by (auto simp: mem_def)"}'
        if 1 <= k <= 3
        else '{"status": "running", "done": 12, "total": 40}'
        if k == 0
        else '{"status": "ok", "done": 40, "total": 40}'
    )
    t.call("ic2_status", {"check_id": "c_41"}, st)
t.msg("Memory.thy checks: 40/40 commands; command 32 took a long time (auto simp).")

t = new(
    "f8-openrouter-weather-batch",
    "distinct_reads",
    False,
    gh("OpenRouterTeam/typescript-agent", "pull", 73),
    "The legitimate side of a declared call identity: one tool for eight office cities, "
    "three of them answered with the same 'no station data'.",
)
t.user("Weather at each of our offices today?")
for city in ["Lisbon", "Porto", "Madrid", "Valencia", "Bilbao", "Seville", "Faro", "Braga"]:
    res = (
        '{"error": "no station data for this location"}'
        if city in ("Faro", "Braga", "Valencia")
        else f'{{"location": "{city}", "temp_c": {_r8.randint(14, 24)}}}'
    )
    t.call("get_weather", {"location": city, "units": "metric"}, res)
t.msg("Five offices have readings; Faro, Braga and Valencia have no station data today.")

t = new(
    "f8-agent-afk-qualify-fanout",
    "distinct_reads",
    False,
    gh("griffinwork40/agent-afk", "pull", 427),
    "An orchestrator's qualify loop sends one subagent per candidate with the same rubric; "
    "several come back with the same verdict text.",
)
t.user("Qualify the twelve inbound leads")
leads = [f"lead_{n}" for n in _r8.sample(range(100, 999), 12)]
for ld in leads:
    verdict = "ACCEPT: fits ICP" if _r8.random() < 0.5 else "REJECT: outside ICP"
    t.call(
        "Task",
        {"subagent_type": "qualifier", "prompt": f"Qualify {ld} against the ICP rubric"},
        verdict,
    )
t.msg("Qualified all twelve leads.")


def _nemo_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("NVIDIA/NeMo-Agent-Toolkit", "issues", 1720),
        "A DABstep-style data agent over many files: list, inspect, run code per question, "
        "write answers; 100+ calls, some code outputs identical (the same 'True').",
    )
    r = random.Random(tid)
    t.user("Answer the 20 DABstep questions in questions.jsonl using the payments data")
    t.call(
        "list_files", {"path": "data/"}, "payments.csv\nfees.json\nmerchant_data.json\nmanual.md"
    )
    t.call("read_file", {"path": "data/manual.md"}, "# Payments manual ... fee rules ...")
    for q in range(20):
        t.call("read_file", {"path": "questions.jsonl", "line": q + 1}, f"Q{q + 1}: ...")
        for s in range(r.randint(2, 4)):
            code = (
                f"df = load('payments.csv')\nans_{q}_{s} = step{s}(df, q={q})\nprint(ans_{q}_{s})"
            )
            out = "True" if r.random() < 0.2 else f"{r.uniform(0, 1000):.2f}"
            t.call("python", {"code": code}, out)
        t.call(
            "write_file",
            {"path": f"answers/q{q + 1}.txt", "content": f"{r.randint(0, 999)}"},
            "ok",
            mutates=True,
        )
    t.msg("All 20 answers written to answers/.")


_nemo_long("f8-nemo-dabstep-long-analysis")


def _refactor_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("Runfusion/Fusion", "pull", 2404),
        "A long refactor over 24 files: read, edit, the same git status between edits of "
        "files already modified, a test run every few files.",
    )
    r = random.Random(tid)
    t.user("Rename Task.status to Task.state across the engine")
    files = [
        f"src/engine/{n}.ts"
        for n in r.sample(
            [
                "executor",
                "queue",
                "step",
                "session",
                "logger",
                "store",
                "api",
                "cli",
                "retry",
                "lock",
                "timer",
                "events",
                "graph",
                "plan",
                "cache",
                "bus",
                "worker",
                "report",
                "config",
                "hooks",
                "metrics",
                "scheduler",
                "router",
                "index",
            ],
            24,
        )
    ]
    t.call("grep", {"pattern": "\\.status\\b", "path": "src/engine"}, "\n".join(files))
    passed = 300
    for k, f in enumerate(files):
        t.call("read_file", {"path": f}, f"// {f}: ... task.status ...")
        t.call(
            "edit_file", {"path": f, "old": "task.status", "new": "task.state"}, "ok", mutates=True
        )
        t.call("bash", {"command": "git status --short"}, f"{k + 1} files modified")
        if k % 4 == 3:
            passed += r.randint(0, 3)
            t.call("bash", {"command": "pnpm test --filter engine"}, f"{passed} passed")
    t.msg("Renamed status to state in 24 files; the engine tests pass.")


_refactor_long("f8-fusion-long-rename-refactor")


# ================================================================ fresh9 set
# Written at 20:00 UTC (Dec 2) from sources no earlier split uses (checked against every
# `source` of the file; a few are other issues of repositories earlier splits cite:
# openclaw, opencode, earendil-works/pi, hermes-agent, gemini-cli). CAMEL and OWL
# workforce reports, MCP clients (IBM mcp-cli, LM Studio, mcp-go, freebuff), PowerShell
# and git loops, cross-turn and cross-session failures, and the legitimate counterparts
# users asked for: deployment polls (DigitalOcean Gradient, azure-dev, agentic-hosting,
# agentregistry, notte), retries after transient errors (RA.Aid, vercel, kodeagent),
# checkpointed batches (RepoSweep, LLMs-Generator, iloveAgents, openlegion) and long
# migrations (konveyor/kai). Committed before crs was run on them. Split "fresh9".

FRESH9_START = len(ALL)
# ---- fresh9 loops

_r9 = random.Random(9009)  # ids, timestamps and durations in results


def _hex9(n: int) -> str:
    return "".join(_r9.choice("0123456789abcdef") for _ in range(n))


def _ts9(minute: int, second: int) -> str:
    return f"2026-05-07T09:{minute:02d}:{second:02d}.{_r9.randint(100, 999)}Z"


t = new(
    "f9-camel-workforce-search-error",
    "error_loop",
    True,
    gh("camel-ai/camel", "issues", 1366),
    "A workforce worker calls search_google again and again with the same query; every "
    "call fails the same way (the API key is not enabled for the Custom Search API).",
)
t.user("Extract the scene headings of script.txt and look up the film's release year")
t.call("read_file", {"path": "script.txt"}, "INT. DINER - NIGHT\n...\nEXT. HIGHWAY - DAWN")
GQ9 = {"query": "Night Diner screenplay film release year", "num_result_pages": 5}
GERR9 = (
    "Error: 403 Forbidden - Custom Search JSON API has not been used in project 4127 "
    "before or it is disabled."
)
idx = [t.call("search_google", GQ9, error=GERR9, kind="permission") for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f9-camel-chatagent-tools-after-answer",
    "cycle",
    True,
    gh("camel-ai/camel", "issues", 3362),
    "A ChatAgent told to write five candidate answers keeps calling its browser search and "
    "document search in turn after both have answered, the same two results each round.",
)
t.user("What is the warranty period of the X200 router?")
BR9 = {"tool": "browser_search", "args": {"query": "X200 router warranty period"}}
DS9 = {"tool": "search_documents", "args": {"query": "X200 warranty", "top_k": 3}}
occ = repeat_block(
    t,
    [
        {**BR9, "result": "X200 product page: 2-year limited warranty (support.example.com)"},
        {**DS9, "result": '[{"doc": "x200_manual.pdf", "page": 41, "text": "24 months"}]'},
    ],
    5,
)
mark_cycle(t, occ)

t = new(
    "f9-camel-humantoolkit-repeated-messages",
    "monologue",
    True,
    gh("camel-ai/camel", "issues", 2879),
    "After the human answers, the agent keeps printing the result and 'I have completed "
    "your request.' in turn, with no tool call.",
)
t.user("Ask me for one arithmetic operation and compute it")
t.call(
    "ask_human_via_console",
    {"question": "Please provide one mathematical operation you'd like to perform."},
    "56 * 78",
)
t.msg("You provided the operation: 56 * 78. I will calculate the result.")
idx = []
for _ in range(4):
    idx.append(t.msg("The result of 56 * 78 is 4368."))
    idx.append(t.msg("I have completed your request."))
t.mark(idx[2], idx[3], period=2)

t = new(
    "f9-owl-search-visit-extract-cycle",
    "cycle",
    True,
    gh("camel-ai/owl", "issues", 125),
    "After a few reasoning steps the OWL agent repeats a search, a page visit and a "
    "find-in-page, with the same results each round.",
)
t.user("Find the population of Reykjavik in the 2024 census")
t.call("search_wiki", {"entity": "Reykjavik"}, "Reykjavik is the capital of Iceland ...")
occ = repeat_block(
    t,
    [
        {
            "tool": "search_duckduckgo",
            "args": {"query": "Reykjavik population 2024 census"},
            "result": '[{"title": "Statistics Iceland", "href": "https://statice.is/pop"}]',
        },
        {
            "tool": "browse_url",
            "args": {"url": "https://statice.is/pop"},
            "result": "Population by municipality, 1 January 2024 (table, 64 rows)",
        },
        {
            "tool": "find_in_page",
            "args": {"url": "https://statice.is/pop", "text": "Reykjavík"},
            "result": "no match for 'Reykjavík' on the visible page",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f9-mcp-cli-navigate-is-error",
    "error_loop",
    True,
    gh("IBM/mcp-cli", "issues", 9),
    "A Puppeteer MCP tool answers isError for a URL without a scheme; the chat loop calls "
    "puppeteer_navigate with the same arguments again and again.",
)
t.user("visit google.com")
idx = [
    t.call(
        "puppeteer_navigate",
        {"url": "google.com"},
        error="Navigation failed: Protocol error (Page.navigate): Cannot navigate to invalid URL",
        kind="invalid_args",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[1])

t = new(
    "f9-mcp-cli-tool-on-wrong-server",
    "error_loop",
    True,
    gh("IBM/mcp-cli", "pull", 44),
    "With several MCP servers configured, a call to a tool of the second server is sent to "
    "the first; the model repeats the call on each 'unknown tool' answer.",
)
t.user("List the tables in the sqlite database")
idx = [
    t.call(
        "list_tables",
        {},
        error="MCP error -32601: Tool 'list_tables' not found on server 'filesystem'",
        kind="not_found",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f9-mcp-cli-denied-path-next-session",
    "known_failure",
    True,
    gh("IBM/mcp-cli", "pull", 26),
    "The filesystem server refuses a path outside its allowed directories; in the next "
    "session, nothing changed, the agent asks for the same file first.",
)
RD9 = {"path": "/etc/nginx/nginx.conf"}
DEN9 = "Access denied - path outside allowed directories: /etc/nginx/nginx.conf not in /srv/app"
t.user("Show me the nginx config")
t.call("read_file", RD9, error=DEN9, kind="permission")
t.msg("The filesystem server only allows /srv/app; /etc/nginx is outside it.")
t.session("s2")
t.user("Show me the nginx config")
rep = t.call("read_file", RD9, error=DEN9, kind="permission")
t.call("read_file", RD9, error=DEN9, kind="permission")
t.mark(rep, rep - 1)

t = new(
    "f9-lmstudio-firecrawl-repeat",
    "repeated_call",
    True,
    gh("lmstudio-ai/lmstudio-bug-tracker", "issues", 1362),
    "A Firecrawl MCP scrape succeeds, and the model calls it again and again with the same "
    "URL; each answer carries a new scrape id and cache time.",
)
t.user("Summarise https://docs.example.org/changelog")
SCR9 = {"url": "https://docs.example.org/changelog", "formats": ["markdown"]}
idx = []
for k in range(6):
    idx.append(
        t.call(
            "firecrawl_scrape",
            SCR9,
            {
                "markdown": "# Changelog\n## 3.2.0\n- new export API\n## 3.1.4\n- fixes",
                "metadata": {
                    "scrapeId": f"{_hex9(8)}-{_hex9(4)}-{_hex9(4)}-{_hex9(4)}-{_hex9(12)}",
                    "cachedAt": _ts9(10 + k, 3 * k),
                    "statusCode": 200,
                },
            },
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f9-mcp-go-limit-number-forms",
    "repeated_call",
    True,
    gh("mark3labs/mcp-go", "issues", 496),
    "A locally served model calls the same MCP tool repeatedly; the limit comes as 10, "
    "'10' and 10.0, the same answer each time.",
)
t.user("What are the latest alerts on cluster prod-eu?")
ALR9 = '[{"id": "a-311", "severity": "warning", "summary": "disk 81% on node-7"}]'
idx = [
    t.call("list_alerts", {"cluster": "prod-eu", "limit": lim}, ALR9)
    for lim in [10, "10", 10.0, 10, "10", 10.0]
]
t.mark(idx[1], idx[1])

t = new(
    "f9-gemini-web-search-reworded-korean",
    "no_progress",
    True,
    gh("google-gemini/gemini-cli", "issues", 28037),
    "google_web_search finds nothing for a file format; the agent rewords the Korean query "
    "again and again, the same empty answer each time.",
)
t.user("한국투자증권 etf_code.mst 파일 형식을 웹에서 찾아줘")
NOWEB9 = 'No search results or information found for query: "{q}"'
idx = [
    t.call("google_web_search", {"query": q}, NOWEB9.format(q=q))
    for q in [
        "한국투자증권 etf_code.mst file format",
        "한국투자증권 etf_code.mst 파일 형식",
        "etf_code.mst 파일 구조 한국투자증권",
        "KIS etf_code.mst format specification",
        "한국투자증권 마스터파일 etf_code.mst 레이아웃",
        "etf_code.mst 필드 정의",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f9-genericagent-blank-responses",
    "monologue",
    True,
    gh("lsdefine/GenericAgent", "pull", 225),
    "The model keeps answering with empty content (whitespace only) and no tool call; the "
    "handler retries until the turn cap.",
)
t.user("Tidy up the downloads folder")
t.call("list_dir", {"path": "~/Downloads"}, "setup.exe\nreport (1).pdf\nreport.pdf")
idx = [t.msg(s) for s in ["", " ", "\n", "", " \n", ""]]
t.mark(idx[1], idx[1])

t = new(
    "f9-pi-commit-hook-task-cycle",
    "cycle",
    True,
    gh("earendil-works/pi", "issues", 3960),
    "The commit at the end of a task fails in the pre-commit hook; the agent re-reads the "
    "task list, re-runs the task's check and commits again, the same hook failure each "
    "round.",
)
t.user("Finish Task 2 of the plan and commit")
t.call(
    "edit",
    {"path": "config/route.go", "old": "Backend string", "new": "Group string"},
    "ok",
    mutates=True,
)
CMT9 = {"command": 'git commit -am "config: wire group fields"'}
HOOK9 = "golangci-lint....Failed\nconfig/route.go:31:2: field Group is unused (unused)"
occ = repeat_block(
    t,
    [
        {"tool": "read", "args": {"path": "docs/plan.md"}, "result": "Task 2: Config ..."},
        {"tool": "bash", "args": {"command": "go build ./..."}, "result": ""},
        {"tool": "bash", "args": CMT9, "error": HOOK9, "kind": "exit_code"},
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f9-pi-ls-then-ls-la",
    "repeated_call",
    True,
    gh("earendil-works/pi", "issues", 6158),
    "The agent lists one directory six times, then the same directory with -la five times; "
    "the output within each group is identical.",
)
t.user("Add a custom.css to the Jupyter custom folder")
idx = [t.call("bash", {"command": "ls /home/dev/.jupyter/custom/"}, "custom.js") for _ in range(6)]
for _ in range(5):
    t.call(
        "bash",
        {"command": "ls -la /home/dev/.jupyter/custom/"},
        "total 12\ndrwxr-xr-x 2 dev dev 4096 .\ndrwxr-xr-x 5 dev dev 4096 ..\n"
        "-rw-r--r-- 1 dev dev  118 custom.js",
    )
t.mark(idx[1], idx[1])

t = new(
    "f9-freebuff-arg-tools-invalid-type",
    "cycle",
    True,
    gh("CodebuffAI/freebuff", "issues", 1353),
    "Every MCP tool that takes arguments is rejected by the client's schema check; the "
    "agent alternates the two tools it needs, the same invalid_type errors each time.",
)
t.user("Index the repo folder and run the size script")
t.call("tokennuke__list_repos", {}, '{"repos": 34}')
ZIDX9 = (
    'Invalid arguments: [{"code": "invalid_type", "expected": "string", '
    '"received": "undefined", "path": ["path"]}] Original tool call input: {}'
)
ZEXE9 = (
    'Invalid arguments: [{"code": "invalid_type", "expected": "string", '
    '"received": "undefined", "path": ["language"]}] Original tool call input: {}'
)
occ = repeat_block(
    t,
    [
        {
            "tool": "tokennuke__index_folder",
            "args": {"path": "/home/dev/repo"},
            "error": ZIDX9,
            "kind": "invalid_args",
        },
        {
            "tool": "ctx_execute",
            "args": {"language": "python", "code": "print(sum(1 for _ in open('a')))"},
            "error": ZEXE9,
            "kind": "invalid_args",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f9-openclaw-memory-ping-pong",
    "cycle",
    True,
    gh("openclaw/openclaw", "issues", 64500),
    "A heartbeat agent with memory citations on alternates memory_search and memory_get "
    "for the same note, the same two answers, until the circuit breaker.",
)
t.user("[heartbeat] check for pending reminders")
occ = repeat_block(
    t,
    [
        {
            "tool": "memory_search",
            "args": {"query": "pending reminders"},
            "result": '[{"id": "mem_0193", "score": 0.82, "snippet": "remind Ana: invoice"}]',
        },
        {
            "tool": "memory_get",
            "args": {"id": "mem_0193"},
            "result": '{"id": "mem_0193", "text": "remind Ana: invoice #88 due Friday"}',
        },
    ],
    6,
)
mark_cycle(t, occ)

t = new(
    "f9-openclaw-powershell-aliases",
    "no_progress",
    True,
    gh("openclaw/openclaw", "issues", 68923),
    "The agent lists one static directory again and again through PowerShell spellings of "
    "the same command (Get-ChildItem, -Path, gci, dir, ls), the same listing each time.",
)
t.user("Check the D:\\OpenClaw-Agents directory structure")
LST9 = (
    "Mode  LastWriteTime  Name\nd----  4/19/2026  agents\nd----  4/19/2026  logs\n"
    "-a---  config.json"
)
idx = [
    t.call("exec", {"command": c, "shell": "powershell"}, LST9)
    for c in [
        "Get-ChildItem D:\\OpenClaw-Agents",
        'Get-ChildItem -Path "D:\\OpenClaw-Agents"',
        "gci D:\\OpenClaw-Agents",
        "dir D:\\OpenClaw-Agents",
        "Get-ChildItem -LiteralPath 'D:\\OpenClaw-Agents'",
        "ls D:\\OpenClaw-Agents",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f9-opencode-commit-nothing-to-commit",
    "repeated_call",
    True,
    gh("anomalyco/opencode", "issues", 43800),
    "After the phase's work is committed the agent re-issues the same git add and commit "
    "again and again; git answers 'nothing to commit' each time.",
)
t.user("Commit phase 3 and move on to phase 4")
t.call(
    "bash",
    {"command": "git add -A && git commit -m 'phase 3: parser'"},
    "[main 4e1c2a9] phase 3: parser\n 3 files changed, 120 insertions(+)",
    mutates=True,
)
CMT9B = {"command": "git add -A && git commit -m 'phase 3: parser'"}
idx = [
    t.call(
        "bash",
        CMT9B,
        error="On branch main\nnothing to commit, working tree clean\nexit status 1",
        kind="exit_code",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f9-hermes-ssh-unverified-alternatives",
    "no_progress",
    True,
    gh("NousResearch/hermes-agent", "issues", 24012),
    "An SSH command to a Windows host times out; the agent tries one guessed variant after "
    "another (other flags, a sleep, a tar pipe), each failing with the same timeout.",
)
t.user("Copy the build log from the Windows box")
SSHERR9 = "ssh: connect to host win-build port 22: Connection timed out\nexit status 255"
idx = [
    t.call("terminal", {"command": c}, error=SSHERR9, kind="exit_code")
    for c in [
        "ssh win-build 'wsl.exe cat /build/log.txt'",
        "ssh -o ConnectTimeout=30 win-build 'wsl.exe cat /build/log.txt'",
        "sleep 5 && ssh win-build 'wsl.exe cat /build/log.txt'",
        "ssh win-build 'wsl.exe tar cf - /build/log.txt' | tar xf -",
        "ssh -4 win-build 'wsl.exe cat /build/log.txt'",
        "ssh -o ServerAliveInterval=10 win-build wsl.exe cat /build/log.txt",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f9-hermes-ssh-broken-next-session",
    "known_failure",
    True,
    gh("NousResearch/hermes-agent", "issues", 71566),
    "The SSH backend cannot reach the VPS; the agent concluded so in session 1, and in the "
    "next session, nothing fixed, it runs the same command first.",
)
JRN9 = {"command": "journalctl -u gateway --since today | tail -50"}
SSHB9 = "SSH backend error: ssh: Could not resolve hostname vps-main: Name or service not known"
t.user("Why did the gateway restart this morning?")
t.call("terminal", JRN9, error=SSHB9, kind="exit_code")
t.msg("The terminal backend is SSH to vps-main and that host does not resolve from here.")
t.session("s2")
t.user("Why did the gateway restart this morning?")
rep = t.call("terminal", JRN9, error=SSHB9, kind="exit_code")
t.call("terminal", JRN9, error=SSHB9, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "f9-kodeagent-rate-limit-multiplied",
    "error_loop",
    True,
    gh("barun-saha/kodeagent", "issues", 95),
    "Both the agent and its LLM client retry on error, so one rate-limited search is "
    "retried at once, again and again, the same 429 each time.",
)
t.user("Find three recent papers on speculative decoding")
idx = [
    t.call(
        "search_arxiv",
        {"query": "speculative decoding", "max_results": 3},
        error="429 Too Many Requests: rate limit exceeded, retry later",
        kind="rate_limit",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f9-iterate-persistent-llm-failure",
    "error_loop",
    True,
    gh("iterate/iterate", "pull", 1729),
    "A failed model request is fed back as input and retried; with a bad API key every "
    "retry fails the same way.",
)
t.user("Draft the weekly update for the #eng channel")
idx = [
    t.call(
        "llm_request",
        {"model": "gpt-5-mini", "messages": 14},
        error="401 Unauthorized: Incorrect API key provided: sk-...Qx7f",
        kind="permission",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f9-openlegion-empty-response-heartbeats",
    "error_loop",
    True,
    gh("openlegion-ai/openlegion", "pull", 971),
    "A translator worker's model call answers 'empty response' under a subscription "
    "throttle; the same locale task is retried at once, again and again.",
)
t.user("Translate strings/en.json into German")
t.call("read_file", {"path": "strings/en.json"}, '{"greeting": "Hello", "bye": "Goodbye"}')
idx = [
    t.call(
        "translate_locale",
        {"locale": "de", "source": "strings/en.json"},
        error="Anthropic OAuth error: model claude-sonnet returned empty response",
        kind="server_error",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[2])

t = new(
    "f9-kai-fix-revert-cycle",
    "cycle",
    True,
    gh("konveyor/kai", "pull", 437),
    "A migration fix loop: read the class, apply the same javax-to-jakarta patch, compile "
    "with the same error, revert, until max_iterations.",
)
t.user("Fix the migration issue in OrderResource.java")
JV9 = "src/main/java/com/acme/OrderResource.java"
MVN9 = (
    "[ERROR] OrderResource.java:[12,19] package jakarta.ws.rs does not exist\n[INFO] BUILD FAILURE"
)
occ = repeat_block(
    t,
    [
        {"tool": "read_file", "args": {"path": JV9}, "result": "import javax.ws.rs.GET; ..."},
        {
            "tool": "apply_patch",
            "args": {"path": JV9, "old": "javax.ws.rs", "new": "jakarta.ws.rs"},
            "result": "patched 4 lines",
            "mutates": True,
        },
        {"tool": "bash", "args": {"command": "mvn -q compile"}, "error": MVN9, "kind": "exit_code"},
        {
            "tool": "bash",
            "args": {"command": f"git checkout -- {JV9}"},
            "result": "",
            "mutates": True,
        },
    ],
    4,
)
mark_cycle(t, occ)

# ---- fresh9 legitimate

t = new(
    "f9-gradient-agent-deploy-poll",
    "polling",
    False,
    gh("digitalocean/gradient-python", "issues", 40),
    "A freshly started agent takes a while to deploy; its status is polled after each "
    "sleep, STATUS_DEPLOYING several times, then STATUS_RUNNING.",
)
t.user("Create the support agent and tell me when it is live")
t.call(
    "agents_create",
    {"name": "support-bot", "model": "llama3.3-70b"},
    '{"uuid": "5f0c6e2a-1d", "deployment": {"status": "STATUS_WAITING_FOR_DEPLOYMENT"}}',
    mutates=True,
)
for st in ["STATUS_DEPLOYING"] * 4 + ["STATUS_RUNNING"]:
    t.call("bash", {"command": "sleep 10"}, "")
    t.call("agents_retrieve", {"uuid": "5f0c6e2a-1d"}, f'{{"deployment": {{"status": "{st}"}}}}')
t.msg("support-bot is running.")

t = new(
    "f9-azure-dev-active-confirmed-twice",
    "polling",
    False,
    gh("Azure/azure-dev", "pull", 8175),
    "After an agent deploy the version's state is polled every 10 s; 'active' must be seen "
    "twice in a row to count, so the last two polls answer the same.",
)
t.user("Deploy the agent and wait until it is active")
t.call("azd_deploy", {"service": "agent"}, "Deploying service agent (version 7)", mutates=True)
for st in ["creating", "creating", "activating", "active", "active"]:
    t.call("bash", {"command": "sleep 10"}, "")
    t.call("agent_version_show", {"agent": "triage", "version": 7}, f'{{"status": "{st}"}}')
t.msg("Version 7 is active (confirmed twice).")

t = new(
    "f9-agentic-hosting-long-deploy-poll",
    "polling",
    False,
    gh("dennisonbertram/agentic-hosting", "issues", 16),
    "A Nixpacks build takes minutes: the service status is polled every 5 s with the same "
    "'deploying' answer nine times, then 'running'.",
)
t.user("Deploy the api service and confirm it is up")
t.call(
    "http_post",
    {"url": "/v1/services", "body": {"name": "api", "repo": "acme/api"}},
    '{"id": "svc_81", "status": "deploying"}',
    mutates=True,
)
for st in ["deploying"] * 9 + ["running"]:
    t.call("bash", {"command": "sleep 5"}, "")
    t.call("http_get", {"url": "/v1/services/svc_81"}, f'{{"id": "svc_81", "status": "{st}"}}')
t.call("http_get", {"url": "https://api-svc81.apps.example.net/health"}, "ok")
t.msg("api is running and healthy.")

t = new(
    "f9-agentregistry-mcp-deploy-wait",
    "polling",
    False,
    gh("agentregistry-dev/agentregistry", "pull", 296),
    "mcp deploy --wait polls the deployment until a terminal state; the agent then checks "
    "the tools it exposes.",
)
t.user("Deploy the weather MCP server to the staging provider")
t.call(
    "bash",
    {"command": "arctl mcp deploy weather --provider staging --wait"},
    "Waiting for deployment weather-7c2 ...",
    mutates=True,
)
for st in ["Pending", "Pending", "Progressing", "Progressing", "Ready"]:
    t.call("bash", {"command": "arctl deployment status weather-7c2"}, f"weather-7c2  {st}")
t.call("bash", {"command": "arctl mcp tools weather"}, "get_forecast\nget_alerts")
t.msg("weather is Ready with two tools.")

t = new(
    "f9-notte-agent-status-steps",
    "polling",
    False,
    gh("nottelabs/notte", "pull", 340),
    "A browser agent runs remotely; its status is fetched after a wait each time, the step "
    "count growing until it is done.",
)
t.user("Run the price-check agent on the three shops and give me the results")
t.call(
    "agent_start",
    {"task": "compare the price of the Acme kettle on 3 shops"},
    '{"agent_id": "ag_4410", "status": "active"}',
    mutates=True,
)
for k in range(1, 7):
    t.call("wait", {"seconds": 5}, "")
    st = "closed" if k == 6 else "active"
    t.call(
        "agent_status",
        {"agent_id": "ag_4410"},
        f'{{"status": "{st}", "steps": {3 * k}, "last_action": "step {3 * k}"}}',
    )
t.call("agent_result", {"agent_id": "ag_4410"}, "shop A 39.90, shop B 42.00, shop C 37.50")

t = new(
    "f9-raaid-llm-retry-with-delay",
    "retry_transient",
    False,
    gh("ai-christianson/RA.Aid", "issues", 167),
    "A tool's backend answers a temporary 'overloaded' error; the agent waits and retries, "
    "and the third attempt succeeds.",
)
t.user("Summarise the failing test output in ci.log")
t.call("read_file", {"path": "ci.log"}, "FAILED tests/test_io.py::test_read - OSError")
SUM9 = {"text_ref": "ci.log", "style": "bullet"}
t.call("summarise", SUM9, error="529 Overloaded: the model is overloaded", kind="server_error")
t.call("bash", {"command": "sleep 20"}, "")
t.call("summarise", SUM9, error="529 Overloaded: the model is overloaded", kind="server_error")
t.call("bash", {"command": "sleep 40"}, "")
t.call("summarise", SUM9, "- test_read fails: OSError opening fixtures/missing.bin")
t.msg("One failure: test_read cannot open fixtures/missing.bin.")

t = new(
    "f9-vercel-412-not-ready-then-ready",
    "retry_transient",
    False,
    gh("vercel/vercel", "pull", 1501),
    "Reading a new deployment's URL answers 412 'not ready' twice; retried after a longer "
    "interval, it answers READY.",
)
t.user("Deploy the docs site and give me the URL")
t.call(
    "bash",
    {"command": "vercel deploy --prebuilt"},
    "https://docs-9x2k.vercel.app (queued)",
    mutates=True,
)
DPL9 = {"id": "dpl_9x2k"}
t.call(
    "get_deployment",
    DPL9,
    error="412 Precondition Failed: deployment not ready",
    kind="server_error",
)
t.call("bash", {"command": "sleep 5"}, "")
t.call(
    "get_deployment",
    DPL9,
    error="412 Precondition Failed: deployment not ready",
    kind="server_error",
)
t.call("bash", {"command": "sleep 15"}, "")
t.call("get_deployment", DPL9, '{"readyState": "READY", "url": "docs-9x2k.vercel.app"}')
t.msg("Live at https://docs-9x2k.vercel.app.")

t = new(
    "f9-kodeagent-backoff-success",
    "retry_transient",
    False,
    gh("barun-saha/kodeagent", "pull", 96),
    "With one retry budget and backoff, a rate-limited search waits, retries twice and "
    "then succeeds; the agent goes on with the results.",
)
t.user("Find three recent papers on speculative decoding")
AX9 = {"query": "speculative decoding", "max_results": 3}
t.call("search_arxiv", AX9, error="429 Too Many Requests", kind="rate_limit")
t.call("wait", {"seconds": 4}, "")
t.call("search_arxiv", AX9, error="429 Too Many Requests", kind="rate_limit")
t.call("wait", {"seconds": 8}, "")
t.call("search_arxiv", AX9, "2502.01234 EAGLE-3; 2501.0932 Medusa-2; 2412.7781 SpecBench")
for pid in ["2502.01234", "2501.0932", "2412.7781"]:
    t.call("fetch_abstract", {"id": pid}, f"{pid}: abstract ...")
t.msg("Three papers: EAGLE-3, Medusa-2 and SpecBench.")

t = new(
    "f9-hermes-ssh-timeout-then-ok",
    "retry_transient",
    False,
    gh("NousResearch/hermes-agent", "issues", 24012),
    "The SSH command times out once while the box wakes from sleep; the same command after "
    "a wait succeeds (the known workflow, no guessed variants).",
)
t.user("Copy the build log from the Windows box")
SSHC9 = {"command": "ssh win-build 'wsl.exe cat /build/log.txt'"}
t.call(
    "terminal",
    SSHC9,
    error="ssh: connect to host win-build port 22: Connection timed out",
    kind="timeout",
)
t.call("terminal", {"command": "wakeonlan 3c:52:82:11:aa:07"}, "Sending magic packet")
t.call("terminal", {"command": "sleep 30"}, "")
t.call("terminal", SSHC9, "[build] 2026-05-07 09:12 ok: 412 targets, 0 failed")
t.msg("The build log shows 412 targets, none failed.")

t = new(
    "f9-kai-edit-compile-cycle",
    "edit_test_cycle",
    False,
    gh("konveyor/kai", "issues", 437),
    "Each fix changes the file and the compile output moves on: a missing dependency, then "
    "an API rename, then a clean build.",
)
t.user("Fix the migration issues in OrderResource.java")
t.call("read_file", {"path": JV9}, "import javax.ws.rs.GET; ...")
t.call(
    "apply_patch",
    {"path": JV9, "old": "javax.ws.rs", "new": "jakarta.ws.rs"},
    "patched 4 lines",
    mutates=True,
)
t.call("bash", {"command": "mvn -q compile"}, error=MVN9, kind="exit_code")
t.call(
    "apply_patch",
    {
        "path": "pom.xml",
        "old": "</dependencies>",
        "new": "<dependency>jakarta.ws.rs-api</dependency></dependencies>",
    },
    "patched 1 line",
    mutates=True,
)
t.call(
    "bash",
    {"command": "mvn -q compile"},
    error="[ERROR] OrderResource.java:[40,9] cannot find symbol: method getEntityTag()",
    kind="exit_code",
)
t.call(
    "apply_patch",
    {"path": JV9, "old": "getEntityTag()", "new": "getEntityTagValue()"},
    "patched 1 line",
    mutates=True,
)
t.call("bash", {"command": "mvn -q compile"}, "")
t.call("bash", {"command": "mvn -q test"}, "Tests run: 31, Failures: 0")

t = new(
    "f9-mcp-go-reinit-client-per-call",
    "research",
    False,
    gh("mark3labs/mcp-go", "issues", 326),
    "A stdio MCP server answers one call per client, so the agent re-initialises the "
    "client before each query: the same initialize call, a new session each time, and "
    "different queries after it.",
)
t.user("Look up the owners of the three services")
for svc in ["billing", "search", "auth"]:
    t.call(
        "mcp_initialize",
        {"server": "catalog", "transport": "stdio"},
        f'{{"sessionId": "{_hex9(16)}", "serverInfo": {{"name": "catalog"}}}}',
    )
    t.call(
        "mcp_call_tool",
        {"server": "catalog", "tool": "owner_of", "args": {"service": svc}},
        f'{{"service": "{svc}", "owner": "team-{svc}"}}',
    )
t.msg("billing: team-billing, search: team-search, auth: team-auth.")

t = new(
    "f9-reposweep-checkpointed-batches",
    "long_productive",
    False,
    gh("Andesha/RepoSweep", "issues", 16),
    "A judgment pass over a backlog in checkpointed batches: the same `review.sh next` "
    "call hands out the next batch each time, each item gets a verdict, then `apply`.",
)
t.user("Run the agent judgment pass over the flagged backlog")
num = 100
for b in range(6):
    items = list(range(num, num + 12))
    num += 12
    t.call(
        "bash",
        {"command": "./review.sh next"},
        f"batch {b + 1}: " + " ".join(f"#{i}" for i in items),
    )
    for i in items:
        t.call("gh_issue_view", {"number": i}, f"#{i}: title {i}; last activity 2024")
    t.call(
        "bash",
        {"command": "./review.sh apply verdicts.jsonl"},
        f"checkpoint {b + 1}: 12 rows filled",
        mutates=True,
    )
t.call("bash", {"command": "./review.sh next"}, "no rows left")
t.msg("All 72 flagged rows have a bin and a rationale.")

t = new(
    "f9-llms-generator-batch-selector",
    "polling",
    False,
    gh("derailed-dash/LLMs-Generator", "pull", 3),
    "A LoopAgent's batch selector is called with the same arguments each round and hands "
    "out the next batch (the iteration and the remaining count change) until none is left.",
)
t.user("Summarise every doc in the repository for llms.txt")
t.call("list_files", {"path": "docs"}, "41 markdown files")
rem = 5
for k in range(1, 7):
    if rem > 0:
        t.call(
            "process_batch_selection",
            {},
            f'{{"status": "batch_selected", "loop_iteration": {k}, '
            f'"files_in_batch": {8 if rem > 1 else 1}, "remaining_batches": {rem - 1}}}',
        )
        t.call("summarise_batch", {"iteration": k}, f"summaries for batch {k} written")
        rem -= 1
    else:
        t.call("process_batch_selection", {}, '{"status": "done"}')
t.call("write_file", {"path": "llms.txt", "content": "# Docs\n..."}, "ok", mutates=True)

t = new(
    "f9-iloveagents-batch-resumes",
    "distinct_reads",
    False,
    gh("AditthyaSS/iloveAgents", "issues", 612),
    "Batch mode: one screening agent over twenty resumes, one read and one score per "
    "file; several scores are the same.",
)
t.user("Screen the 20 resumes in inbox/ for the backend role")
for k in range(20):
    f = f"inbox/candidate_{k + 1:02d}.pdf"
    t.call("read_pdf", {"path": f}, f"Candidate {k + 1}: {3 + k % 6} years, Go, Postgres")
    t.call(
        "score_resume",
        {"path": f, "role": "backend"},
        f'{{"score": {[7, 6, 8, 7][k % 4]}, "verdict": "{["yes", "maybe"][k % 2]}"}}',
    )
t.msg("12 yes, 8 maybe; table in screening.csv.")

t = new(
    "f9-openlegion-locale-fanout",
    "distinct_reads",
    False,
    gh("openlegion-ai/openlegion", "pull", 971),
    "A translator fans out over twelve locales: translate, validate, write, each with the "
    "same 'ok' and the same validation answer.",
)
t.user("Translate strings/en.json into our 12 locales")
t.call("read_file", {"path": "strings/en.json"}, '{"greeting": "Hello", "bye": "Goodbye"}')
for loc in ["de", "fr", "es", "it", "pt", "nl", "pl", "sv", "ja", "ko", "zh", "tr"]:
    t.call(
        "translate_locale",
        {"locale": loc, "source": "strings/en.json"},
        f'{{"greeting": "<{loc}>", "bye": "<{loc}>"}}',
    )
    t.call("validate_json", {"path": f"strings/{loc}.json"}, "valid: 2 keys")
    t.call("write_file", {"path": f"strings/{loc}.json", "content": f"<{loc}>"}, "ok", mutates=True)
t.msg("12 locale files written and validated.")

t = new(
    "f9-camel-human-toolkit-interview",
    "conversation",
    False,
    gh("camel-ai/camel", "issues", 2879),
    "The agent asks the human a series of different questions through the console tool "
    "and computes each answer once.",
)
t.user("Quiz me: ask for five operations one by one and compute each")
for op, res in [
    ("56 * 78", 4368),
    ("91 - 17", 74),
    ("144 / 12", 12),
    ("7 ** 3", 343),
    ("15 + 27", 42),
]:
    t.call("ask_human_via_console", {"question": "Next operation?"}, op)
    t.call("calculator", {"expression": op}, str(res))
    t.msg(f"{op} = {res}.")
t.msg("That was five; all computed.")

t = new(
    "f9-gemini-web-search-refined",
    "research",
    False,
    gh("google-gemini/gemini-cli", "issues", 28037),
    "Three searches for a sparse topic: the first finds nothing, the reworded ones find "
    "different pages that the agent then reads.",
)
t.user("Find the file format of the KIS etf_code.mst master file")
t.call(
    "google_web_search",
    {"query": "한국투자증권 etf_code.mst file format"},
    'No search results or information found for query: "한국투자증권 etf_code.mst file format"',
)
t.call(
    "google_web_search",
    {"query": "KIS Developers master file layout etf"},
    "1. apiportal.koreainvestment.com/intro (master files)",
)
t.call(
    "web_fetch",
    {"url": "https://apiportal.koreainvestment.com/intro"},
    "Master files: kospi_code.mst, etf_code.mst ... see sample code on GitHub",
)
t.call(
    "google_web_search",
    {"query": "koreainvestment open-trading-api etf_code.mst github"},
    "1. github.com/koreainvestment/open-trading-api stocks_info/etf_code.py",
)
t.call(
    "web_fetch",
    {"url": "https://github.com/koreainvestment/open-trading-api/stocks_info/etf_code.py"},
    "fixed-width fields: code(9) std_code(12) name(...) ...",
)
t.msg("etf_code.mst is fixed-width; the field widths are in etf_code.py of the KIS repo.")

t = new(
    "f9-mcp-cli-allowed-dir-fixed",
    "session_memory",
    False,
    gh("IBM/mcp-cli", "pull", 26),
    "The read is refused in session 1; the user adds /etc/nginx to the server's allowed "
    "directories; in session 2 the same read succeeds.",
)
t.user("Show me the nginx config")
t.call("read_file", RD9, error=DEN9, kind="permission")
t.msg("The filesystem server only allows /srv/app; add /etc/nginx to its arguments.")
t.workspace("the user restarted the filesystem server with /etc/nginx allowed")
t.session("s2")
t.user("Allowed it now")
t.call("read_file", RD9, "worker_processes auto;\nevents { worker_connections 1024; }")
t.msg("nginx runs auto worker processes with 1024 connections each.")

t = new(
    "f9-lmstudio-firecrawl-many-pages",
    "distinct_reads",
    False,
    gh("lmstudio-ai/lmstudio-bug-tracker", "issues", 1362),
    "Twelve different changelog pages scraped once each; the answers share their layout "
    "and differ in their entries.",
)
t.user("Collect the 3.x changelog entries from the docs site")
for k in range(12):
    t.call(
        "firecrawl_scrape",
        {"url": f"https://docs.example.org/changelog/3.{k}", "formats": ["markdown"]},
        {
            "markdown": f"# 3.{k}\n- change {k}a\n- change {k}b",
            "metadata": {"scrapeId": f"{_hex9(8)}", "statusCode": 200},
        },
    )
t.msg("Collected 24 entries from 3.0 to 3.11.")

t = new(
    "f9-pi-ls-many-dirs",
    "distinct_reads",
    False,
    gh("earendil-works/pi", "issues", 6158),
    "Listing the Jupyter config tree folder by folder before writing a file; two folders "
    "are empty.",
)
t.user("Add a custom.css to the Jupyter custom folder")
for d, out in [
    ("/home/dev/.jupyter", "custom\nlab\nnbconfig\njupyter_server_config.py"),
    ("/home/dev/.jupyter/custom", "custom.js"),
    ("/home/dev/.jupyter/lab", "user-settings\nworkspaces"),
    ("/home/dev/.jupyter/lab/user-settings", ""),
    ("/home/dev/.jupyter/lab/workspaces", ""),
    ("/home/dev/.jupyter/nbconfig", "notebook.json"),
]:
    t.call("bash", {"command": f"ls {d}"}, out)
t.call(
    "write",
    {"path": "/home/dev/.jupyter/custom/custom.css", "content": ".cell{}"},
    "ok",
    mutates=True,
)
t.call("bash", {"command": "ls /home/dev/.jupyter/custom"}, "custom.css\ncustom.js")

t = new(
    "f9-openclaw-memory-heartbeat-distinct",
    "polling",
    False,
    gh("openclaw/openclaw", "issues", 64500),
    "Each heartbeat searches memory and fetches the note it found; the notes differ from "
    "one heartbeat to the next as reminders are added and done.",
)
for k, (mid, txt) in enumerate(
    [
        ("mem_0193", "remind Ana: invoice #88"),
        ("mem_0197", "call the plumber"),
        ("mem_0201", "renew the domain"),
        ("mem_0204", "book the dentist"),
    ]
):
    t.user(f"[heartbeat {k + 1}] check for pending reminders")
    t.call(
        "memory_search", {"query": "pending reminders"}, f'[{{"id": "{mid}", "snippet": "{txt}"}}]'
    )
    t.call("memory_get", {"id": mid}, f'{{"id": "{mid}", "text": "{txt}"}}')
    t.call("send_message", {"to": "owner", "text": f"Reminder: {txt}"}, "sent")

t = new(
    "f9-opencode-phases-commits",
    "edit_test_cycle",
    False,
    gh("anomalyco/opencode", "issues", 43800),
    "A multi-phase task: edit, test, commit each phase; the same clean `git status` after "
    "every commit.",
)
t.user("Implement phases 1-4 of PLAN.md, committing after each")
for ph, f in enumerate(["lexer", "parser", "checker", "emitter"], start=1):
    t.call("read", {"path": f"src/{f}.ts"}, f"// {f} stub")
    t.call(
        "edit",
        {"path": f"src/{f}.ts", "old": "// stub", "new": f"export function {f}()"},
        "ok",
        mutates=True,
    )
    t.call("bash", {"command": "pnpm test"}, f"{10 * ph} passed")
    t.call(
        "bash",
        {"command": f"git add -A && git commit -m 'phase {ph}: {f}'"},
        f"[main {_hex9(7)}] phase {ph}: {f}",
        mutates=True,
    )
    t.call("bash", {"command": "git status --short"}, "")
t.msg("Phases 1-4 are committed; 40 tests pass.")

t = new(
    "f9-mcp-cli-puppeteer-browse",
    "distinct_reads",
    False,
    gh("IBM/mcp-cli", "issues", 9),
    "With full URLs the Puppeteer tools work: navigate, screenshot and read text on four "
    "pages, one each.",
)
t.user("Visit the four status pages and tell me which are degraded")
for site in ["github", "npm", "pypi", "docker"]:
    u = f"https://status.{site}.example"
    t.call("puppeteer_navigate", {"url": u}, f"Navigated to {u}")
    t.call("puppeteer_screenshot", {"name": f"{site}-status"}, f"Screenshot '{site}-status' taken")
    t.call(
        "puppeteer_evaluate",
        {"script": "document.body.innerText.slice(0, 80)"},
        "All systems operational" if site != "npm" else "Degraded: package publishing",
    )
t.msg("Only npm is degraded (package publishing).")


def _kai_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("konveyor/kai", "pull", 437),
        "A long javax-to-jakarta migration over 20 classes: read, patch, compile, with the "
        "same clean compile answer after most files and a test run every five.",
    )
    r = random.Random(tid)
    t.user("Migrate the order service from javax to jakarta")
    t.call("bash", {"command": "grep -rl 'javax\\.' src/main/java"}, "20 files")
    names = r.sample(
        [
            "Order",
            "Invoice",
            "Customer",
            "Cart",
            "Payment",
            "Refund",
            "Shipment",
            "Stock",
            "Price",
            "Tax",
            "Coupon",
            "Review",
            "Address",
            "Vendor",
            "Report",
            "Audit",
            "Session",
            "Token",
            "Webhook",
            "Export",
        ],
        20,
    )
    for k, n in enumerate(names):
        p = f"src/main/java/com/acme/{n}Resource.java"
        t.call("read_file", {"path": p}, f"import javax.ws.rs.*; // {n}")
        t.call(
            "apply_patch",
            {"path": p, "old": "javax.", "new": "jakarta."},
            f"patched {r.randint(2, 9)} lines",
            mutates=True,
        )
        t.call("bash", {"command": "mvn -q compile"}, "")
        if k % 5 == 4:
            t.call("bash", {"command": "mvn -q test"}, f"Tests run: {100 + 7 * k}, Failures: 0")
    t.call("bash", {"command": "grep -rl 'javax\\.' src/main/java"}, "")
    t.msg("All 20 resources are on jakarta; the tests pass.")


_kai_long("f9-kai-long-jakarta-migration")


def _camel_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("camel-ai/camel", "issues", 1366),
        "A workforce over 15 scripts: a worker extracts the scene headings of each, another "
        "searches for the film, a third writes the record; some searches find nothing.",
    )
    r = random.Random(tid)
    t.user("Build the catalogue entry for each of the 15 scripts in scripts/")
    t.call("list_dir", {"path": "scripts"}, "15 files")
    for k in range(15):
        f = f"scripts/film_{k + 1:02d}.txt"
        t.call("read_file", {"path": f}, f"INT. ROOM {k} - DAY ... EXT. STREET {k} - NIGHT")
        t.call("extract_scene_headings", {"path": f}, f"{r.randint(20, 90)} headings")
        t.call(
            "search_google",
            {"query": f"film {k + 1} screenplay release year"},
            "[]" if r.random() < 0.3 else f'[{{"title": "Film {k + 1} ({1990 + k})"}}]',
        )
        t.call("write_record", {"id": k + 1, "path": f}, "ok", mutates=True)
    t.msg("15 records written; 4 films had no release year online.")


_camel_long("f9-camel-workforce-long-catalogue")


# ================================================================ fresh10 set
# Written at 10:05 UTC (Dec 3) from sources no earlier split uses (checked against every
# `source` of the file; some are other issues of repositories earlier splits cite: codex,
# goose, openclaw, qwen-code, aider, vscode, autogen, crewAI, OpenHands). Patch and edit
# tools failing the same way, parameters that count up with the same answer, results and
# errors carrying fresh ids, pids and timestamps, the same target probed through several
# tools, oscillating fixes, reworded acknowledgements, a proxy's default auto-reply, known
# failures in a later session; and the legitimate counterparts users asked for: bisecting,
# backoff retries, kubectl waits, task boards other agents change, batches of one tool,
# deep directory walks. Committed before crs was run on them. Split "fresh10".

FRESH10_START = len(ALL)
# ---- fresh10 loops

_r10 = random.Random(1010)  # ids, pids and timestamps in results


def _hex10(n: int) -> str:
    return "".join(_r10.choice("0123456789abcdef") for _ in range(n))


def _ts10(minute: int, second: int) -> str:
    return f"2026-09-14T14:{minute:02d}:{second:02d}.{_r10.randint(100, 999)}Z"


t = new(
    "f10-codex-begin-patch-loop",
    "error_loop",
    True,
    gh("openai/codex", "issues", 35361),
    "apply_patch answers 'The first line of the patch must be *** Begin Patch' for a patch "
    "that starts with it (the arguments are in the wrong shape); the model sends the same "
    "arguments again and again.",
)
t.user("Rename the helper parse_cfg to parse_config in src/cfg.py")
t.call("shell", {"command": ["bash", "-lc", "grep -n parse_cfg src/cfg.py"]}, "12:def parse_cfg(")
PATCH10 = {
    "command": [
        "apply_patch",
        "*** Begin Patch\n*** Update File: src/cfg.py\n@@\n-def parse_cfg(\n+def parse_config(\n"
        "*** End Patch",
    ]
}
BEGIN10 = "Invalid patch: The first line of the patch must be '*** Begin Patch'"
idx = [t.call("apply_patch", PATCH10, error=BEGIN10, kind="invalid_args") for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f10-holon-patch-hunk-respelt",
    "error_loop",
    True,
    gh("holon-run/holon", "issues", 1249),
    "ApplyPatch fails with invalid_patch_syntax again and again; the model resends one "
    "malformed diff, its hunk header re-spelt (@@ -40,6 +40,7 @@, @@ -40,6 +40,7@@, "
    "@@ -40 +40 @@), the same error each time.",
)
t.user("Review PR 88 and push the small fix to review.rs you suggested")
t.call("read_file", {"path": "src/review.rs"}, "fn score(...) {\n    let base = 1;\n ...")
DIFF10 = (
    "--- a/src/review.rs\n+++ b/src/review.rs\n{h}\n"
    "     let base = 1;\n-    let w = 2;\n+    let w = 3;\n"
)
SYN10 = "invalid_patch_syntax: hunk body does not match header line counts"
idx = [
    t.call("ApplyPatch", {"patch": DIFF10.format(h=h)}, error=SYN10, kind="syntax")
    for h in [
        "@@ -40,6 +40,7 @@",
        "@@ -40,6 +40,7@@",
        "@@ -40 +40 @@",
        "@@ -40,6 +40,7 @@",
        "@@ -40,6 +40,7 @@ fn score",
        "@@ -40 +40 @@",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f10-goose-analyze-depth-creep",
    "no_progress",
    True,
    gh("aaif-goose/goose", "issues", 5155),
    "The developer extension's analyze is called on the project root with max_depth 2, 3, "
    "4, ... forever; the project is two levels deep, so every answer is the same tree.",
)
t.user("inspect the project")
TREE10 = "radioquebrada/\n  index.html\n  css/ (2 files)\n  js/ (3 files)\n  assets/ (14 files)"
idx = [
    t.call(
        "analyze",
        {
            "path": "/Users/dor/radioquebrada",
            "focus": "",
            "follow_depth": 2,
            "force": False,
            "max_depth": d,
        },
        TREE10,
    )
    for d in range(2, 9)
]
t.mark(idx[1], idx[1])

t = new(
    "f10-openclaw-message-send-ids",
    "repeated_call",
    True,
    gh("openclaw/openclaw", "pull", 89109),
    "A model stuck in a tool loop sends the same message to the same channel again and "
    "again; each delivery answers with a new messageId, receipt and runId.",
)
t.user("Tell the #ops channel that the backup finished")
MSG10 = {"action": "send", "channel": "#ops", "text": "Nightly backup finished (412 GB, 0 errors)"}
idx = []
for k in range(7):
    idx.append(
        t.call(
            "message",
            MSG10,
            {
                "ok": True,
                "messageId": f"msg_{_hex10(16)}",
                "receipt": {"deliveredAt": _ts10(2, 5 * k), "id": f"rcpt-{_hex10(10)}"},
                "runId": f"{_hex10(8)}-{_hex10(4)}-{_hex10(4)}",
            },
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f10-pawwork-one-url-three-tools",
    "cycle",
    True,
    gh("Astro-Han/pawwork", "pull", 264),
    "The same blocked URL is probed through web_fetch, a curl in bash and the browser in "
    "turn; each answers the same 403, round after round.",
)
t.user("Get the pricing table from https://vendor.example.com/pricing")
URL10 = "https://vendor.example.com/pricing"
occ = repeat_block(
    t,
    [
        {
            "tool": "web_fetch",
            "args": {"url": URL10},
            "error": "HTTP 403 Forbidden (cf-mitigated: challenge)",
            "kind": "permission",
        },
        {
            "tool": "bash",
            "args": {"command": f"curl -sL {URL10} | head -c 300"},
            "result": "<!DOCTYPE html><title>Just a moment...</title> (403)",
        },
        {
            "tool": "browser_navigate",
            "args": {"url": URL10},
            "result": "Page title: Just a moment... | status 403 | Verify you are human",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f10-agenc-same-file-rewritten",
    "repeated_call",
    True,
    gh("tetsuo-ai/agenc-core", "pull", 78),
    "The model writes the same file with the same content again and again; every write "
    "succeeds, so a counter that only counted failures never stopped it.",
)
t.user("Add a .nvmrc pinning node 20")
NVM10 = {"path": ".nvmrc", "content": "20\n"}
idx = [t.call("write_file", NVM10, "Wrote 3 bytes to .nvmrc", mutates=True) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f10-convex-generate-image-again",
    "repeated_call",
    True,
    gh("get-convex/agent", "issues", 167),
    "generateImage succeeds, and the agent calls it again with the same prompt and size, "
    "over and over; each answer is a new storage id and URL.",
)
t.user("Make me a banner for the spring sale")
t.call(
    "promptBuilder",
    {"idea": "spring sale banner"},
    "Pastel flowers framing the words SPRING SALE, flat illustration, 3:1",
)
GEN10 = {
    "prompt": "Pastel flowers framing the words SPRING SALE, flat illustration, 3:1",
    "size": "1536x512",
}
idx = []
for _ in range(6):
    sid = _hex10(24)
    idx.append(
        t.call(
            "generateImage",
            GEN10,
            {"storageId": sid, "url": f"https://cdn.example.convex.cloud/api/storage/{sid}"},
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f10-qwen-shell-error-pgid",
    "error_loop",
    True,
    gh("QwenLM/qwen-code", "pull", 10916),
    "The same shell command fails the same way again and again; each failure block names a "
    "new process group id.",
)
t.user("Start the dev database")
idx = []
for _ in range(6):
    pgid = _r10.randint(30000, 60000)
    idx.append(
        t.call(
            "run_shell_command",
            {"command": "docker compose up -d db", "directory": "."},
            error=(
                "Command: docker compose up -d db\nDirectory: (root)\n"
                "Error: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                f"Is the docker daemon running?\nExit Code: 1\nProcess Group PGID: {pgid}"
            ),
            kind="exit_code",
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f10-soc-open-browser-cycle",
    "cycle",
    True,
    gh("OthersideAI/self-operating-computer", "issues", 18),
    "A computer-use agent opens the browser through Spotlight again and again: the hotkey, "
    "typing the app name, Enter and a screenshot, the same screen each round.",
)
t.user("Go to google.com and search for the weather in Lisbon")
occ = repeat_block(
    t,
    [
        {"tool": "press", "args": {"keys": ["command", "space"]}, "result": "ok"},
        {"tool": "write", "args": {"text": "Google Chrome"}, "result": "ok"},
        {"tool": "press", "args": {"keys": ["enter"]}, "result": "ok"},
        {
            "tool": "screenshot",
            "args": {},
            "result": "Chrome window, New Tab page, address bar empty",
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f10-autogen-continue-offers",
    "monologue",
    True,
    gh("microsoft/autogen", "issues", 1406),
    "After answering, the agents keep talking: the assistant offers further help again and "
    "again in other words, with no tool call and no user turn.",
)
t.user("What kind of steel fittings should I use for Trichloroethane?")
t.call(
    "search_catalog",
    {"query": "Trichloroethane compatible fittings"},
    "Stainless steel (316) fittings rated for chlorinated solvents",
)
t.msg("Stainless steel fittings are recommended for Trichloroethane. Source: Parker Catalog.")
idx = [
    t.msg(s)
    for s in [
        "I'm here to assist you further. How may I help you with Parker products or any "
        "other inquiries you might have?",
        "It seems there might be a misunderstanding. If you have any more questions about "
        "Parker products, please let me know how I can help you.",
        "I'm here to help. If you have further questions about Parker products or anything "
        "else, just let me know.",
        "If there is anything else I can help you with regarding Parker products, please "
        "let me know.",
        "I'm here to assist with any further questions about Parker products or other "
        "inquiries you may have.",
        "Please let me know if there's anything else I can assist you with regarding "
        "Parker products.",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f10-autogen-default-auto-reply",
    "monologue",
    True,
    gh("microsoft/autogen", "issues", 391),
    "The user proxy answers every message with its default auto-reply; the solver answers "
    "each with the same solution ending in TERMINATE, until the reply cap.",
)
t.user(
    "There are 10 people in a room. Each person shakes hands with every other person "
    "exactly once. How many handshakes are there in total?"
)
SOL10 = (
    "The number of handshakes is C(10, 2) = 10! / (2! * 8!) = 45. So there are 45 "
    "handshakes in total. TERMINATE"
)
t.msg(SOL10)
idx = []
for _ in range(6):
    t.user("default_auto_reply")
    idx.append(t.msg(SOL10))
t.mark(idx[0], idx[0])

t = new(
    "f10-surf-spot-search-visit-stamped",
    "cycle",
    True,
    gh("mozilla-ai/surf-spot-finder", "issues", 28),
    "A single agent searches for surf spots and visits the same page in turn until the "
    "recursion limit; the search answer carries its fetch time and the page its load time.",
)
t.user("Find the best surf spot near Lisbon for Saturday morning")
idx_occ = []
for k in range(5):
    a = t.call(
        "search_web",
        {"query": "best surf spots near Lisbon"},
        {
            "fetched_at": _ts10(20 + k, 7 * k % 60),
            "results": [
                {"title": "Surfing in Lisbon: Carcavelos, Costa da Caparica, Ericeira"},
                {"title": "Guincho beach surf guide"},
            ],
        },
    )
    b = t.call(
        "visit_webpage",
        {"url": "https://surf.example.com/lisbon"},
        f"# Lisbon surf spots\nCarcavelos: beach break ... (loaded in {_r10.randint(180, 900)} ms)",
    )
    idx_occ.append([a, b])
mark_cycle(t, idx_occ)

t = new(
    "f10-langchain-quickstart-weather-cycle",
    "cycle",
    True,
    gh("langchain-ai/docs", "issues", 2014),
    "The quickstart agent calls get_user_location and get_weather_for_location in turn, "
    "the same answers each round, until GRAPH_RECURSION_LIMIT.",
)
t.user("what is the weather outside?")
occ = repeat_block(
    t,
    [
        {"tool": "get_user_location", "args": {}, "result": "Florida"},
        {
            "tool": "get_weather_for_location",
            "args": {"city": "Florida"},
            "result": "It's always sunny in Florida!",
        },
    ],
    6,
)
mark_cycle(t, occ)

t = new(
    "f10-hermes-503-terminal-probes",
    "no_progress",
    True,
    gh("Lexus2016/hermes-agent-evolution", "issues", 349),
    "The model provider answers 503; the agent probes the endpoint from the terminal with "
    "one curl spelling after another, each printing the same 503.",
)
t.user("Why did the last answer fail?")
EP10 = "https://llm.example.net/v1/models"
idx = [
    t.call("terminal", {"command": c}, "HTTP/2 503")
    for c in [
        f"curl -sI {EP10} | head -1",
        f"curl -s -o /dev/null -w 'HTTP/2 %{{http_code}}' {EP10}",
        f"curl -sI {EP10} | grep HTTP",
        f"curl -sI -m 10 {EP10} | head -n1",
        f"curl --head --silent {EP10} | head -1",
        f"curl -sI {EP10} | sed -n 1p",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f10-kubectl-rollout-crashloop-cycle",
    "cycle",
    True,
    gh("kubernetes/kubectl", "issues", 738),
    "rollout status times out while the pod is in CrashLoopBackOff; the agent waits on the "
    "rollout and lists the pods in turn, the same timeout each round, only the restart "
    "count and age moving.",
)
t.user("Deploy api v2 and wait for it to be ready")
t.call(
    "bash",
    {"command": "kubectl apply -f k8s/api.yaml"},
    "deployment.apps/api configured",
    mutates=True,
)
idx_occ = []
for k in range(5):
    a = t.call(
        "bash",
        {"command": "kubectl rollout status deployment/api --timeout=60s"},
        error=(
            'Waiting for deployment "api" rollout to finish: 0 of 1 updated replicas are '
            "available...\nerror: timed out waiting for the condition"
        ),
        kind="exit_code",
    )
    b = t.call(
        "bash",
        {"command": "kubectl get pods -l app=api"},
        "NAME                   READY   STATUS             RESTARTS      AGE\n"
        f"api-7d9c6b5f4-x2k8q   0/1     CrashLoopBackOff   {k + 3} ({k + 1}m ago)   {2 * k + 4}m",
    )
    idx_occ.append([a, b])
mark_cycle(t, idx_occ)

t = new(
    "f10-meridian-missing-message-next-session",
    "known_failure",
    True,
    gh("rynfar/meridian", "pull", 807),
    "Resuming a conversation fails because a message inside it is gone (an identical "
    "attempt fails identically); in the next session the agent tries the same resume first.",
)
RES10 = {"session_id": "5b1e0c7a-3f", "resume": True}
MISS10 = (
    "Resume failed: message 0192 referenced by session 5b1e0c7a-3f is missing from the transcript"
)
t.user("Continue the refactor conversation from yesterday")
t.call("claude_resume", RES10, error=MISS10, kind="not_found")
t.msg("That conversation cannot be resumed: a message in its transcript is missing.")
t.session("s2")
t.user("Continue the refactor conversation from yesterday")
rep = t.call("claude_resume", RES10, error=MISS10, kind="not_found")
t.call("claude_resume", RES10, error=MISS10, kind="not_found")
t.mark(rep, rep - 1)

t = new(
    "f10-codex-apply-patch-not-found-next-session",
    "known_failure",
    True,
    gh("openai/codex", "issues", 45415),
    "apply_patch is not reachable as a PowerShell command; the failure comes back at the "
    "start of every task, the next session trying the same command first.",
)
APW10 = {"command": "apply_patch ./patch.diff", "shell": "powershell"}
APE10 = (
    "apply_patch : The term 'apply_patch' is not recognized as the name of a cmdlet, "
    "function, script file, or operable program."
)
t.user("Work on issue 41: fix the date format in the footer")
t.call("read_file", {"path": "src/Footer.tsx"}, "export const Footer = () => ...")
t.call("shell", APW10, error=APE10, kind="not_found")
t.call("write_file", {"path": "src/Footer.tsx", "content": "..."}, "ok", mutates=True)
t.msg("Fixed the footer; apply_patch was not available, so I wrote the file directly.")
t.session("s2")
t.user("Work on issue 42: the header logo is blurry")
t.call("read_file", {"path": "src/Header.tsx"}, "export const Header = () => ...")
rep = t.call("shell", APW10, error=APE10, kind="not_found")
t.call("shell", APW10, error=APE10, kind="not_found")
t.mark(rep, rep - 1)

t = new(
    "f10-squiggle-identical-search-replace",
    "error_loop",
    True,
    gh("quantified-uncertainty/squiggle", "pull", 4144),
    "The edit tool refuses a block whose search and replace texts are identical; the model "
    "sends the same block again and again.",
)
t.user("Make the mean of cost a lognormal from 10 to 30")
t.call("read_code", {}, "cost = normal(20, 5)\ntotal = cost * 12")
SR10 = {"search": "cost = normal(20, 5)", "replace": "cost = normal(20, 5)"}
SRE10 = "Search and Replace Failed: Error: Search and replace texts are identical"
idx = [t.call("edit_code", SR10, error=SRE10, kind="invalid_args") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f10-synergy-edit-read-cycle",
    "cycle",
    True,
    gh("SII-Holos/synergy", "pull", 4),
    "An edit fails because its old string is not in the file; the agent re-reads the file "
    "and sends the identical edit again, round after round.",
)
t.user("Set the retry count to 5 in src/net/client.ts")
occ = repeat_block(
    t,
    [
        {
            "tool": "edit",
            "args": {
                "filePath": "src/net/client.ts",
                "oldString": "const RETRIES = 3",
                "newString": "const RETRIES = 5",
            },
            "error": "oldString not found in content",
            "kind": "not_found",
        },
        {
            "tool": "read",
            "args": {"filePath": "src/net/client.ts"},
            "result": (
                "1  import { fetch } from './fetch'\n2  export const RETRIES: number = 3\n..."
            ),
        },
    ],
    5,
)
mark_cycle(t, occ)

t = new(
    "f10-aider-edit-format-apology-cycle",
    "cycle",
    True,
    gh("Aider-AI/aider", "issues", 770),
    "The SEARCH block does not match the file; aider reports the edit format error, the "
    "model apologises and resends the same block, round after round.",
)
t.user("Delete the legacy export block from src/export.php")
BLK10 = {
    "path": "src/export.php",
    "search": "// legacy export\nfunction export_v1($rows) {\n    return csv($rows);\n}\n",
    "replace": "",
}
EDE10 = (
    "The LLM did not conform to the edit format. SearchReplaceNoExactMatch: This SEARCH "
    "block failed to exactly match lines in src/export.php"
)
idx_occ = []
for _ in range(5):
    a = t.call("search_replace", BLK10, error=EDE10, kind="invalid_args")
    b = t.msg("I apologize for the mistake. Here is the corrected SEARCH/REPLACE block.")
    idx_occ.append([a, b])
mark_cycle(t, idx_occ)

t = new(
    "f10-codepipelines-oscillating-fixes",
    "cycle",
    True,
    {"url": "https://codepipelines.pages.dev/tips/fix-ai-agent-loop-revert-cycle-2026.html"},
    "Fix A breaks a second test, fix B (which undoes A) brings the first failure back; the "
    "agent alternates between the two identical edits, the same two failures each time.",
)
t.user("Fix the failing discount test")
FIXA10 = {
    "path": "src/pricing.py",
    "old": "return price * (1 - rate)",
    "new": "return round(price * (1 - rate), 2)",
}
FIXB10 = {
    "path": "src/pricing.py",
    "old": "return round(price * (1 - rate), 2)",
    "new": "return price * (1 - rate)",
}
TESTC10 = {"command": "pytest -q tests/test_pricing.py"}
occ = repeat_block(
    t,
    [
        {"tool": "edit_file", "args": FIXA10, "result": "ok", "mutates": True},
        {
            "tool": "bash",
            "args": TESTC10,
            "error": (
                "FAILED tests/test_pricing.py::test_bulk_total - assert 99.99 == 99.985\n"
                "1 failed, 7 passed"
            ),
            "kind": "exit_code",
        },
        {"tool": "edit_file", "args": FIXB10, "result": "ok", "mutates": True},
        {
            "tool": "bash",
            "args": TESTC10,
            "error": (
                "FAILED tests/test_pricing.py::test_discount - assert 8.999999 == 9.0\n"
                "1 failed, 7 passed"
            ),
            "kind": "exit_code",
        },
    ],
    3,
)
mark_cycle(t, occ)

t = new(
    "f10-vscode-reworded-acknowledgements",
    "monologue",
    True,
    gh("microsoft/vscode", "issues", 257867),
    "Asked for a workflow, the agent acknowledges the request again and again in other "
    "words, announcing the file it will create, with no tool call.",
)
t.user(
    "Create a GitHub Actions workflow that builds and pushes a Docker image on release and "
    "on merged pull requests, and update docker-compose.yml to use the image."
)
idx = [
    t.msg(s)
    for s in [
        "Understood. I will create a GitHub Actions workflow (docker-build.yml) that builds "
        "and pushes the Docker image, and update docker-compose.yml.",
        "Okay, I'll create a GitHub Actions workflow that builds and pushes the Docker image "
        "on release and merged pull requests, then update docker-compose.yml.",
        "Got it. I will create a workflow file docker-build.yml to build and push the Docker "
        "image, and then update docker-compose.yml to use it.",
        "Understood. I'll now create the GitHub Actions workflow for building and pushing the "
        "Docker image and update docker-compose.yml.",
        "Okay. Creating the workflow docker-build.yml that builds and pushes the image, then "
        "updating docker-compose.yml.",
        "Got it. I will create the docker-build.yml workflow and update docker-compose.yml to "
        "use the built image.",
    ]
]
t.mark(idx[1], idx[1])

# ---- fresh10 legitimate

t = new(
    "f10-ggcode-noncode-errors-then-edit",
    "edit_test_cycle",
    False,
    gh("topcheer/ggcode", "issues", 640),
    "Two failures that are not code failures (the user denies a command, the LSP server "
    "times out), then an ordinary edit, build and test.",
)
t.user("Add a --json flag to the status command")
t.call("read_file", {"path": "cmd/status.go"}, "func runStatus(cmd *cobra.Command) error {...}")
t.call("bash", {"command": "go run . status"}, error="permission denied by user", kind="permission")
t.call(
    "lsp_references",
    {"symbol": "runStatus"},
    error="MCP server 'gopls' timed out after 30s",
    kind="timeout",
)
t.call("grep", {"pattern": "runStatus", "path": "cmd"}, "cmd/status.go:14\ncmd/root.go:40")
t.call(
    "edit_file",
    {
        "path": "cmd/status.go",
        "old": "func runStatus(cmd",
        "new": "func runStatus(asJSON bool, cmd",
    },
    "ok",
    mutates=True,
)
t.call("bash", {"command": "go build ./..."}, "")
t.call("bash", {"command": "go test ./cmd/..."}, "ok  	example.com/tool/cmd	0.41s")
t.msg("status --json is in place; build and tests pass.")

t = new(
    "f10-anolisa-terminal-many-commands",
    "distinct_reads",
    False,
    gh("agentic-os-org/ANOLISA", "pull", 2719),
    "One terminal tool runs many different commands while investigating; several print "
    "nothing or the same short line.",
)
t.user("Find out why the agentsight service restarts every few minutes")
for cmd, out in [
    ("systemctl status agentsight --no-pager", "Active: active (running) since 14:02; 3min ago"),
    ("journalctl -u agentsight -n 50 --no-pager", "... panicked at 'index out of bounds' ..."),
    ("ls /var/lib/agentsight", "conversations.db\nconfig.toml"),
    ("grep -n max_calls /var/lib/agentsight/config.toml", ""),
    ("grep -rn 'index out of bounds' /var/log/agentsight", ""),
    ("cat /proc/loadavg", "0.41 0.38 0.30 1/311 4410"),
    ("free -m | head -2", "Mem: 15890 4120 8033"),
    ("df -h /var/lib", "/dev/sda2  120G  48G  66G  43% /"),
    ("sqlite3 /var/lib/agentsight/conversations.db 'select count(*) from calls'", "0"),
    ("sqlite3 /var/lib/agentsight/conversations.db 'select count(*) from tool_calls'", "0"),
    ("git -C /opt/agentsight log --oneline -3", "a1f 2719 fix(sight): match tool args\n..."),
]:
    t.call("terminal", {"command": cmd}, out)
t.msg("It panics on an empty tool-call history (both tables are empty); 2719 fixes that path.")

t = new(
    "f10-crustly-deep-directory-walk",
    "distinct_reads",
    False,
    {"repo": "jyjeanne/crustly", "path": "LOOP_THRESHOLD_UPDATE_2025-11-30.md"},
    "A deep analysis walks the source tree level by level with ls, ten levels down, each "
    "path different, then reads a few files.",
)
t.user("Deeply analyse the codebase in ./src, up to 10 sublevels")
path = "src"
for sub in ["llm", "agent", "tools", "fs", "walk", "filters", "glob", "pattern", "parse"]:
    t.call("ls", {"path": path}, f"{sub}/\nmod.rs")
    path = f"{path}/{sub}"
t.call("ls", {"path": path}, "mod.rs\ntokens.rs")
t.call("read", {"path": f"{path}/tokens.rs"}, "pub enum Token { Star, DoubleStar, ... }")
t.call("read", {"path": "src/llm/agent/service.rs"}, "impl AgentService { ... }")
t.msg("src is ten levels deep; the glob tokenizer is at the bottom, the agent loop at level 3.")

t = new(
    "f10-qwen-task-list-teammates",
    "polling",
    False,
    gh("QwenLM/qwen-code", "pull", 9492),
    "A lead agent polls the shared task board after each wait while teammates work; some "
    "polls answer the same, then tasks move on.",
)
t.user("Coordinate the team until all four tasks are done")
boards = [
    "T1 in_progress(ana) T2 in_progress(bo) T3 pending T4 pending",
    "T1 in_progress(ana) T2 in_progress(bo) T3 pending T4 pending",
    "T1 done T2 in_progress(bo) T3 in_progress(ana) T4 pending",
    "T1 done T2 in_progress(bo) T3 in_progress(ana) T4 pending",
    "T1 done T2 in_progress(bo) T3 in_progress(ana) T4 pending",
    "T1 done T2 done T3 in_progress(ana) T4 in_progress(bo)",
    "T1 done T2 done T3 done T4 in_progress(bo)",
    "T1 done T2 done T3 done T4 done",
]
for k, b in enumerate(boards):
    if k:
        t.call("wait", {"seconds": 30}, "waited 30s")
    t.call("task_list", {}, b)
t.msg("All four tasks are done.")

t = new(
    "f10-openhands-bisect-runs",
    "edit_test_cycle",
    False,
    gh("OpenHands/OpenHands", "issues", 1540),
    "A git bisect between a good and a bad commit: the same test command at each step, its "
    "answer alternating between pass and fail, and the same 'git bisect good/bad' commands "
    "moving to a new commit each time.",
)
t.user("Find the commit that broke tests/test_parser.py::test_unicode (v1.4 was good)")
t.call(
    "bash",
    {"command": "git bisect start HEAD v1.4"},
    "Bisecting: 63 revisions left to test after this (roughly 6 steps)\n"
    "[3f2a9c1] lexer: table-driven states",
    mutates=True,
)
TEST10 = {"command": "pytest -q tests/test_parser.py::test_unicode"}
left = 63
for verdict in ["bad", "good", "good", "bad", "good", "bad"]:
    passed = verdict == "good"
    if passed:
        t.call("bash", TEST10, "1 passed in 0.21s")
    else:
        t.call(
            "bash",
            TEST10,
            error=(
                "FAILED tests/test_parser.py::test_unicode - UnicodeDecodeError\n1 failed in 0.24s"
            ),
            kind="exit_code",
        )
    left //= 2
    t.call(
        "bash",
        {"command": f"git bisect {verdict}"},
        f"Bisecting: {left} revisions left to test after this\n[{_hex10(7)}] step",
        mutates=True,
    )
t.call(
    "bash",
    {"command": "git bisect log | tail -1"},
    "# first bad commit: [9be41d2] lexer: read input as bytes",
)
t.call("bash", {"command": "git bisect reset"}, "Previous HEAD position was 9be41d2", mutates=True)
t.msg("9be41d2 (lexer: read input as bytes) broke test_unicode.")

t = new(
    "f10-crewai-search-many-inputs",
    "research",
    False,
    gh("crewAIInc/crewAI", "issues", 1414),
    "A market researcher calls one search tool with many different queries for two "
    "industries; two queries return the same top result.",
)
t.user("Market analysis of AI in healthcare and AI in finance")
for q, r in [
    ("AI in healthcare market size 2026", "Grand View: $45bn, 37% CAGR"),
    ("AI in healthcare adoption hospitals", "62% of US hospitals pilot AI triage"),
    ("AI healthcare regulation FDA", "FDA list of AI-enabled devices: 950"),
    ("AI in healthcare startups funding", "Rock Health: $11bn in 2025"),
    ("AI in finance market size 2026", "Grand View: $38bn, 29% CAGR"),
    ("AI in finance fraud detection adoption", "Grand View: $38bn, 29% CAGR"),
    ("AI in finance regulation EU AI Act", "EU AI Act: credit scoring is high-risk"),
    ("AI in banking customer service chatbots", "Erica passed 2bn interactions"),
]:
    t.call("duckduckgo_results_json", {"query": q}, r)
t.msg("Healthcare: $45bn, FDA-cleared devices growing; finance: $38bn, fraud and credit lead.")

t = new(
    "f10-odysseus-fifteen-distinct-reads",
    "distinct_reads",
    False,
    gh("odysseus-dev/odysseus", "pull", 3183),
    "A legitimate batch of eighteen distinct calls to one tool in one round: each handler "
    "module read once, the answers of the same shape.",
)
t.user("Summarise what each of the 18 route handlers validates")
t.call("glob", {"pattern": "app/handlers/h*.py"}, "18 files")
for k in range(1, 19):
    t.call(
        "read_file",
        {"path": f"app/handlers/h{k:02d}.py"},
        f"def handle_{k:02d}(req):\n    validate(req, schema=S{k:02d})\n    ...",
    )
t.msg("Each handler validates its request against its own schema S01..S18; h07 and h12 skip auth.")

t = new(
    "f10-meridian-resume-refused-then-ok",
    "retry_transient",
    False,
    gh("rynfar/meridian", "pull", 811),
    "A resume lands while the previous process is still exiting and is refused with a "
    "wording that reads like 'not found'; after a short wait the same resume is retried, "
    "refused once more, and succeeds on the third attempt.",
)
t.user("Resume the session and answer my follow-up")
RS10 = {"session_id": "c41d9e2b-77", "resume": True}
NF10 = "No conversation found with session ID c41d9e2b-77"
t.call("claude_resume", RS10, error=NF10, kind="not_found")
t.call("bash", {"command": "sleep 1"}, "")
t.call("claude_resume", RS10, error=NF10, kind="not_found")
t.call("bash", {"command": "sleep 2"}, "")
t.call("claude_resume", RS10, '{"resumed": true, "turns": 14}')
t.call("answer", {"text": "Yes, the cache key includes the model name."}, "sent")

t = new(
    "f10-cmux-resume-backoff",
    "retry_transient",
    False,
    gh("manaflow-ai/cmux", "pull", 9024),
    "An agent session dies on an overloaded provider; it is resumed with a 1, 2 and 4 "
    "second backoff, failing three times the same way and succeeding on the fourth.",
)
t.user("Keep the migration agent running")
RSM10 = {"command": "claude --resume 9f2c0e1a"}
OVL10 = 'API Error: 529 {"type":"overloaded_error","message":"Overloaded"}'
for wait in [1, 2, 4]:
    t.call("bash", RSM10, error=OVL10, kind="server_error")
    t.call("bash", {"command": f"sleep {wait}"}, "")
t.call("bash", RSM10, "Resumed session 9f2c0e1a (42 turns). Continuing the migration ...")
t.msg("The session resumed after three overloaded answers.")

t = new(
    "f10-kubectl-wait-for-service",
    "polling",
    False,
    gh("kubernetes/kubernetes", "issues", 21588),
    "After kubectl create the service does not exist yet: kubectl get is polled after each "
    "sleep (NotFound three times), then the rollout is followed until it finishes.",
)
t.user("Create the web deployment and service and tell me when it serves")
t.call(
    "bash",
    {"command": "kubectl create -f k8s/web.json"},
    "deployment.apps/web created",
    mutates=True,
)
for _ in range(3):
    t.call(
        "bash",
        {"command": "kubectl get svc web"},
        error='Error from server (NotFound): services "web" not found',
        kind="not_found",
    )
    t.call("bash", {"command": "sleep 5"}, "")
t.call(
    "bash",
    {"command": "kubectl get svc web"},
    "web   LoadBalancer   10.0.41.7   <pending>   80:31380/TCP",
)
for out in [
    'Waiting for deployment "web" rollout to finish: 0 of 3 updated replicas are available...',
    'Waiting for deployment "web" rollout to finish: 0 of 3 updated replicas are available...',
    'Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...',
    'deployment "web" successfully rolled out',
]:
    t.call("bash", {"command": "kubectl rollout status deployment/web --timeout=20s"}, out)
t.msg("web is rolled out (3/3) behind a LoadBalancer service.")

t = new(
    "f10-openfaas-components-up",
    "polling",
    False,
    gh("openfaas/ofc-bootstrap", "issues", 86),
    "Bootstrapping waits for each component in turn (cert-manager, sealed-secrets, the "
    "gateway), polling its pods after a sleep until they run.",
)
t.user("Install the OpenFaaS Cloud stack")
for ns, states in [
    ("cert-manager", ["ContainerCreating", "ContainerCreating", "Running"]),
    (
        "kube-system -l app=sealed-secrets",
        ["Pending", "ContainerCreating", "ContainerCreating", "Running"],
    ),
    ("openfaas -l app=gateway", ["ContainerCreating", "Running"]),
]:
    t.call(
        "bash",
        {"command": f"helm upgrade --install {ns.split()[0]}-release ./charts"},
        "STATUS: deployed",
        mutates=True,
    )
    for st in states:
        t.call("bash", {"command": "sleep 10"}, "")
        t.call(
            "bash",
            {"command": f"kubectl get pods -n {ns}"},
            f"NAME  READY  STATUS  \npod-0  0/1  {st}",
        )
t.msg("cert-manager, sealed-secrets and the gateway are running.")

t = new(
    "f10-aicourses-spec-first-fix",
    "edit_test_cycle",
    False,
    {"url": "https://aicourses-blog.pages.dev/ai-for-developers/stop-ai-agent-breaking-codebase"},
    "The fix->break cycle the guide recommends instead: each fix attempt is a different "
    "edit, the failing test changes, and the run ends green.",
)
t.user("Fix the null-pointer error in the orders API handler")
TST10 = {"command": "npm test -- orders"}
t.call(
    "bash",
    TST10,
    error="TypeError: Cannot read properties of null (reading 'id') at handler.js:31\n1 failed",
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "api/orders/handler.js", "old": "order.id", "new": "order?.id"},
    "ok",
    mutates=True,
)
t.call("bash", TST10, error="expected 404, got 200 (orders.test.js:58)\n1 failed", kind="exit_code")
t.call(
    "edit",
    {
        "path": "api/orders/handler.js",
        "old": "if (!order?.id)",
        "new": "if (!order) return res.status(404).end();\n  if (!order.id)",
    },
    "ok",
    mutates=True,
)
t.call(
    "bash",
    TST10,
    error="expected body {error: 'not found'}, got '' (orders.test.js:61)\n1 failed",
    kind="exit_code",
)
t.call(
    "edit",
    {
        "path": "api/orders/handler.js",
        "old": "res.status(404).end()",
        "new": "res.status(404).json({ error: 'not found' })",
    },
    "ok",
    mutates=True,
)
t.call("bash", TST10, "14 passed")
t.msg("The handler returns 404 with an error body for a missing order; all 14 tests pass.")

t = new(
    "f10-holon-patch-recovered",
    "edit_test_cycle",
    False,
    gh("holon-run/holon", "issues", 1249),
    "Two patch failures with different errors, a re-read of the file, then a patch that "
    "applies and passing tests.",
)
t.user("Apply the review fix to src/review.rs")
t.call(
    "ApplyPatch",
    {"patch": "--- a/src/reveiw.rs\n+++ b/src/reveiw.rs\n@@ -40,6 +40,6 @@\n..."},
    error="missing_file: src/reveiw.rs",
    kind="not_found",
)
t.call(
    "ApplyPatch",
    {"patch": "--- a/src/review.rs\n+++ b/src/review.rs\n@@ -40 +40 @@\n-    let w = 2;"},
    error="invalid_patch_syntax: hunk body does not match header line counts",
    kind="syntax",
)
t.call(
    "read_file",
    {"path": "src/review.rs", "offset": 36, "limit": 10},
    "40      let w = 2;\n41      let base = 1;",
)
t.call(
    "ApplyPatch",
    {
        "patch": (
            "--- a/src/review.rs\n+++ b/src/review.rs\n@@ -40,1 +40,1 @@\n"
            "-    let w = 2;\n+    let w = 3;\n"
        )
    },
    "applied 1 hunk",
    mutates=True,
)
t.call("bash", {"command": "cargo test -p review"}, "test result: ok. 23 passed; 0 failed")
t.msg("Applied; 23 tests pass.")

t = new(
    "f10-goose-analyze-growing-depth",
    "distinct_reads",
    False,
    gh("aaif-goose/goose", "issues", 5155),
    "analyze on a deep project with max_depth 1, 2 and 3, each answer showing a deeper "
    "tree, then the agent reads the files it found.",
)
t.user("inspect the project")
for d, tree in [
    (1, "shop/\n  src/ backend/ docs/"),
    (2, "shop/\n  src/ (components/ pages/)\n  backend/ (api/ db/)\n  docs/"),
    (
        3,
        "shop/\n  src/components/ (Cart.tsx, Nav.tsx)\n"
        "  backend/api/ (orders.py, users.py)\n  backend/db/ (models.py)",
    ),
]:
    t.call(
        "analyze",
        {"path": "/Users/dev/shop", "focus": "", "follow_depth": 2, "force": False, "max_depth": d},
        tree,
    )
t.call(
    "text_editor",
    {"command": "view", "path": "/Users/dev/shop/backend/api/orders.py"},
    "def list_orders(...)",
)
t.call(
    "text_editor",
    {"command": "view", "path": "/Users/dev/shop/backend/db/models.py"},
    "class Order(Base): ...",
)
t.msg("A React front end over a Python API with three models.")

t = new(
    "f10-openclaw-digest-to-channels",
    "distinct_reads",
    False,
    gh("openclaw/openclaw", "pull", 89109),
    "A daily digest is sent to six channels, a different text to each; every delivery "
    "answers with its own messageId and receipt.",
)
t.user("Send today's digest to each team channel")
for ch, txt in [
    ("#ops", "2 incidents, both resolved"),
    ("#web", "release 4.2 shipped; 3 PRs waiting"),
    ("#data", "nightly ETL 41 min (-6)"),
    ("#mobile", "crash-free 99.7%"),
    ("#security", "1 new advisory (low)"),
    ("#support", "ticket backlog 38 (-12)"),
]:
    t.call(
        "message",
        {"action": "send", "channel": ch, "text": f"Daily digest: {txt}"},
        {"ok": True, "messageId": f"msg_{_hex10(16)}", "receipt": {"id": f"rcpt-{_hex10(10)}"}},
    )
t.msg("Digest sent to six channels.")

t = new(
    "f10-convex-banner-variations",
    "distinct_reads",
    False,
    gh("get-convex/agent", "issues", 167),
    "Four banner variations requested, each a different prompt; each answer is a new storage id.",
)
t.user("Give me four variations of the spring sale banner: pastel, neon, watercolour, photo")
for style in ["pastel flat illustration", "neon outline", "watercolour", "photographic"]:
    sid = _hex10(24)
    t.call(
        "generateImage",
        {"prompt": f"Flowers framing the words SPRING SALE, {style}, 3:1", "size": "1536x512"},
        {"storageId": sid, "url": f"https://cdn.example.convex.cloud/api/storage/{sid}"},
    )
t.msg("Here are the four variations.")

t = new(
    "f10-qwen-shell-failures-fixed",
    "edit_test_cycle",
    False,
    gh("QwenLM/qwen-code", "pull", 10916),
    "The same test command fails three times, but each failure is a different one as the "
    "agent fixes them (each block naming a new process group id), then passes.",
)
t.user("Get the test suite green")
TSH10 = {"command": "npm test", "directory": "."}
for err, fix in [
    ("Error: Cannot find module 'zod'", {"command": "npm install zod", "directory": "."}),
    ("TypeError: schema.parse is not a function (src/cfg.ts:9)", None),
    ("AssertionError: expected 'v2' to equal 'v3' (test/cfg.test.ts:22)", None),
]:
    t.call(
        "run_shell_command",
        TSH10,
        error=(
            f"Command: npm test\nDirectory: (root)\nError: {err}\nExit Code: 1\n"
            f"Process Group PGID: {_r10.randint(30000, 60000)}"
        ),
        kind="exit_code",
    )
    if fix:
        t.call("run_shell_command", fix, "added 1 package", mutates=True)
    else:
        t.call(
            "edit", {"file_path": "src/cfg.ts", "old": err[:12], "new": "fixed"}, "ok", mutates=True
        )
t.call("run_shell_command", TSH10, "Tests: 31 passed, 31 total")
t.msg("31 tests pass.")

t = new(
    "f10-pawwork-fallback-browser",
    "research",
    False,
    gh("Astro-Han/pawwork", "pull", 264),
    "web_fetch is blocked by a challenge page; the agent falls back to the browser once, "
    "which gets through, and reads the page's sections.",
)
t.user("Get the pricing table from https://vendor.example.com/pricing")
t.call(
    "web_fetch",
    {"url": URL10},
    error="HTTP 403 Forbidden (cf-mitigated: challenge)",
    kind="permission",
)
t.call("browser_navigate", {"url": URL10}, "Page title: Pricing | Vendor")
for sec in ["Starter", "Team", "Enterprise"]:
    t.call("browser_find", {"text": sec}, f"{sec}: ... per seat / month")
t.msg("Starter $9, Team $29, Enterprise on request.")

t = new(
    "f10-ensemble-fixed-between-sessions",
    "session_memory",
    False,
    gh("chrisbanes/ensemble", "issues", 95),
    "A step fails in session 1 on a missing dependency; the user installs it; in session 2 "
    "the same step is retried and passes.",
)
STEP10 = {"command": "npm run build"}
t.user("Run the build step of the plan")
t.call("bash", STEP10, error="sh: vite: command not found", kind="exit_code")
t.msg("vite is not installed in this workspace; run npm install -D vite.")
t.workspace("the user ran npm install -D vite")
t.session("s2")
t.user("Installed it, retry the step")
t.call("bash", STEP10, "vite v5.2.0 building for production... built in 3.1s")
t.msg("The build step passes now.")

t = new(
    "f10-surf-spot-forecast-per-spot",
    "research",
    False,
    gh("mozilla-ai/surf-spot-finder", "issues", 28),
    "One search, then the forecast for each of six spots; two spots answer 'no forecast data'.",
)
t.user("Find the best surf spot near Lisbon for Saturday morning")
t.call(
    "search_web",
    {"query": "surf spots near Lisbon"},
    "Carcavelos, Caparica, Ericeira, Guincho, Peniche, Sintra",
)
for spot, fc in [
    ("Carcavelos", "1.2 m, 11 s, offshore"),
    ("Costa da Caparica", "1.0 m, 10 s, cross-shore"),
    ("Ericeira", "1.8 m, 13 s, offshore"),
    ("Guincho", "no forecast data"),
    ("Peniche", "2.1 m, 13 s, onshore"),
    ("Praia Grande (Sintra)", "no forecast data"),
]:
    t.call("get_wave_forecast", {"spot": spot, "day": "saturday", "time": "08:00"}, fc)
t.msg("Ericeira: 1.8 m at 13 s with offshore wind on Saturday morning.")

t = new(
    "f10-autogen-questions-same-signoff",
    "conversation",
    False,
    gh("microsoft/autogen", "issues", 1406),
    "A product chat: five different questions, each answered and ended with the same "
    "sign-off line.",
)
SIGN10 = " Let me know if there's anything else I can help you with."
for q, a in [
    ("What fittings for Trichloroethane?", "Stainless steel 316 fittings."),
    ("And for hydraulic oil at 300 bar?", "Carbon steel 37° flare fittings rated to 345 bar."),
    ("Which O-ring material for that oil?", "Nitrile (NBR 90)."),
    ("Do you ship to Norway?", "Yes, through the Oslo distributor."),
    ("What is the lead time?", "Two to three weeks for stock items."),
]:
    t.user(q)
    t.call("search_catalog", {"query": q}, a)
    t.msg(a + SIGN10)

t = new(
    "f10-langchain-weather-cities",
    "research",
    False,
    gh("langchain-ai/docs", "issues", 2014),
    "The quickstart agent answers the weather for the user's city and then for four other "
    "cities the user names, one lookup each.",
)
t.user("what is the weather outside? and in Boston, Denver, Austin and Seattle?")
t.call("get_user_location", {}, "Florida")
for city, w in [
    ("Florida", "It's always sunny in Florida!"),
    ("Boston", "Cloudy, 12°C"),
    ("Denver", "Snow showers, -1°C"),
    ("Austin", "Sunny, 24°C"),
    ("Seattle", "Cloudy, 12°C"),
]:
    t.call("get_weather_for_location", {"city": city}, w)
t.msg("Sunny in Florida; Boston and Seattle cloudy at 12°C, Denver snowing, Austin 24°C.")

t = new(
    "f10-vscode-workflow-created",
    "edit_test_cycle",
    False,
    gh("microsoft/vscode", "issues", 257867),
    "The agent acknowledges once, writes the workflow, updates three compose files (the "
    "same 'File written' answer each time) and validates them.",
)
t.user(
    "Create a GitHub Actions workflow that builds and pushes a Docker image on release and "
    "on merged pull requests, and update the docker-compose files to use the image."
)
t.msg("I'll create .github/workflows/docker-build.yml and update the compose files.")
t.call(
    "create_file",
    {"path": ".github/workflows/docker-build.yml", "content": "name: docker-build\n..."},
    "File written",
    mutates=True,
)
for f in ["docker-compose.yml", "docker-compose.dev.yml", "docker-compose.prod.yml"]:
    t.call(
        "replace_string_in_file",
        {"path": f, "old": "build: .", "new": "image: ghcr.io/acme/app:latest"},
        "File written",
        mutates=True,
    )
for f in ["docker-compose.yml", "docker-compose.dev.yml", "docker-compose.prod.yml"]:
    t.call("run_in_terminal", {"command": f"docker compose -f {f} config -q"}, "")
t.msg("The workflow is in place and the three compose files use the built image.")

t = new(
    "f10-kubectl-crashloop-diagnosed",
    "edit_test_cycle",
    False,
    gh("kubernetes/kubectl", "issues", 738),
    "rollout status times out once; the agent looks at the pod, its events and logs, "
    "fixes the image tag, and the rollout then completes.",
)
t.user("Deploy api v2 and wait for it to be ready")
t.call(
    "bash",
    {"command": "kubectl apply -f k8s/api.yaml"},
    "deployment.apps/api configured",
    mutates=True,
)
t.call(
    "bash",
    {"command": "kubectl rollout status deployment/api --timeout=60s"},
    error="error: timed out waiting for the condition",
    kind="exit_code",
)
t.call(
    "bash",
    {"command": "kubectl get pods -l app=api"},
    "api-7d9c6b5f4-x2k8q   0/1   CrashLoopBackOff   3   4m",
)
t.call(
    "bash",
    {"command": "kubectl logs api-7d9c6b5f4-x2k8q --previous"},
    "exec /app/server: exec format error",
)
t.call(
    "edit_file",
    {"path": "k8s/api.yaml", "old": "image: acme/api:2.0-arm64", "new": "image: acme/api:2.0"},
    "ok",
    mutates=True,
)
t.call(
    "bash",
    {"command": "kubectl apply -f k8s/api.yaml"},
    "deployment.apps/api configured",
    mutates=True,
)
t.call(
    "bash",
    {"command": "kubectl rollout status deployment/api --timeout=60s"},
    'deployment "api" successfully rolled out',
)
t.msg("The arm64 image could not start on the amd64 nodes; with the multi-arch tag api v2 is up.")


def _materialize_bisect_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("MaterializeInc/materialize", "pull", 28251),
        "A CI auto-bisect over a first-parent commit range: at each step check out the "
        "chosen commit, build (the same 'Finished' line), run the one failing test and mark "
        "the commit; then the culprit is read and reverted on a branch.",
    )
    r = random.Random(tid)
    t.user("Find which merge broke test_kafka_sink_upsert between v0.99 and main, and revert it")
    t.call("bash", {"command": "git log --first-parent --oneline v0.99..main | wc -l"}, "214")
    t.call(
        "bash",
        {"command": "git bisect start --first-parent main v0.99"},
        "Bisecting: 107 revisions left to test after this (roughly 7 steps)",
        mutates=True,
    )
    left = 107
    for step in range(8):
        bad = r.random() < 0.5
        commit = "".join(r.choice("0123456789abcdef") for _ in range(9))
        t.call("bash", {"command": "git rev-parse --short HEAD"}, commit)
        t.call(
            "bash",
            {"command": "bin/mzcompose --find kafka-sink build"},
            f"Finished release [optimized] target(s) in {r.randint(240, 420)}.{r.randint(0, 9)}s",
        )
        test = {"command": "bin/mzcompose --find kafka-sink run default test_kafka_sink_upsert"}
        if bad:
            t.call(
                "bash",
                test,
                error="test_kafka_sink_upsert FAILED: expected 3 rows, got 4",
                kind="exit_code",
            )
        else:
            t.call("bash", test, f"test_kafka_sink_upsert PASSED in {r.randint(30, 90)}s")
        left //= 2
        t.call(
            "bash",
            {"command": f"git bisect {'bad' if bad else 'good'}"},
            f"Bisecting: {left} revisions left to test after this (step {step + 1})",
            mutates=True,
        )
    t.call(
        "bash",
        {"command": "git bisect log | tail -2"},
        "# first bad commit: [4be1c07e2] sink: dedupe by key",
    )
    t.call("bash", {"command": "git show --stat 4be1c07e2"}, "src/storage/sink/kafka.rs | 41 +++--")
    t.call("read_file", {"path": "src/storage/sink/kafka.rs"}, "fn dedupe(...) { ... }")
    t.call("bash", {"command": "git bisect reset"}, "Switched to branch 'main'", mutates=True)
    t.call(
        "bash",
        {"command": "git switch -c revert-4be1c07e2"},
        "Switched to a new branch",
        mutates=True,
    )
    t.call(
        "bash",
        {"command": "git revert --no-edit 4be1c07e2"},
        "[revert-4be1c07e2 9e0d1a2] Revert",
        mutates=True,
    )
    t.call(
        "bash",
        {"command": "bin/mzcompose --find kafka-sink build"},
        "Finished release [optimized] target(s) in 388.2s",
    )
    t.call(
        "bash",
        {"command": "bin/mzcompose --find kafka-sink run default test_kafka_sink_upsert"},
        "test_kafka_sink_upsert PASSED in 61s",
    )
    t.msg("4be1c07e2 (sink: dedupe by key) broke the upsert test; reverted on revert-4be1c07e2.")


_materialize_bisect_long("f10-materialize-auto-bisect-long")


def _qodo_cover_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("qodo-ai/qodo-cover", "issues", 103),
        "Test generation over fifteen functions: write a test, run the suite (some new tests "
        "fail and are rewritten once), read the coverage report, its percentage rising.",
    )
    r = random.Random(tid)
    t.user("Raise the coverage of app/calc.py above 90% with generated tests")
    t.call("read_file", {"path": "app/calc.py"}, "def add ... def sub ... (15 functions)")
    cov = 31
    passed = 4
    for k in range(15):
        fn = f"f{k:02d}"
        t.call(
            "write_file",
            {
                "path": f"tests/test_{fn}.py",
                "content": f"def test_{fn}():\n    assert calc.{fn}(2) == {k * 2}\n",
            },
            "ok",
            mutates=True,
        )
        run = {"command": "pytest -q --cov=app --cov-report=term tests"}
        if r.random() < 0.3:
            t.call(
                "bash",
                run,
                error=f"FAILED tests/test_{fn}.py::test_{fn} - assert {k * 2 + 1} == {k * 2}\n"
                f"1 failed, {passed} passed",
                kind="exit_code",
            )
            t.call(
                "write_file",
                {
                    "path": f"tests/test_{fn}.py",
                    "content": f"def test_{fn}():\n    assert calc.{fn}(2) == {k * 2 + 1}\n",
                },
                "ok",
                mutates=True,
            )
        passed += 1
        cov = min(96, cov + r.randint(3, 6))
        t.call(
            "bash",
            run,
            f"{passed} passed in {r.randint(2, 9)}.{r.randint(0, 9)}s\nTOTAL  212  {cov}%",
        )
    t.msg(f"{passed} tests; app/calc.py at {cov}% coverage.")


_qodo_cover_long("f10-qodo-cover-generation-long")


# ================================================================ fresh11 set
# Written at 10:20 UTC (Dec 3) from sources no earlier split uses (checked against every
# `source` of the file; a few are other issues of repositories earlier splits cite:
# browser-use, AutoGPT, llama_index, letta, openinterpreter, dify, vllm, n8n). Browser and
# computer-use agents (browser-use, Skyvern, Playwright/Chrome DevTools MCP, cua), data,
# SQL and RAG agents (Vanna, pandas-ai, LlamaIndex, liam's QA agent), classic autonomous
# agents (AutoGPT, BabyAGI, MetaGPT, Open Interpreter, agent-zero), memory agents (Letta),
# workflow agents (n8n, Dify) and tool-calling loops reported against LLM APIs and SDKs
# (Ollama, vLLM, Gemini through a proxy, langchainrb, spring-ai, PraisonAI, LiteLLM).
# Committed before crs was run on them. Split "fresh11"; ids start with "f11-".

FRESH11_START = len(ALL)
# ---- fresh11 loops

_r11 = random.Random(11011)  # ids, timestamps and durations in results


def _hex11(n: int) -> str:
    return "".join(_r11.choice("0123456789abcdef") for _ in range(n))


def _ts11(minute: int, second: int) -> str:
    return f"2026-06-11T14:{minute:02d}:{second:02d}.{_r11.randint(100, 999)}Z"


t = new(
    "f11-browser-use-element-not-clickable",
    "error_loop",
    True,
    gh("browser-use/browser-use", "issues", 554),
    "The agent clicks element 58 again and again; every click fails with 'Element not "
    "clickable with index 58 - most likely the page changed' and the page stays the same.",
)
t.user("Open the pricing page of example-shop.test and add the Pro plan to the cart")
t.call(
    "go_to_url", {"url": "https://example-shop.test/pricing"}, "Navigated to pricing (62 elements)"
)
CLK11 = {"index": 58}
ERR11 = "Element not clickable with index 58 - most likely the page changed"
idx = [t.call("click_element", CLK11, error=ERR11, kind="not_found") for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f11-browser-use-same-index-page-unchanged",
    "repeated_call",
    True,
    gh("browser-use/browser-use", "issues", 2901),
    "A form is filled field by field (indices 81, 89, 92), then the agent clicks the Next "
    "button (99) again and again; each click answers 'Clicked' and the page state (URL, "
    "title, element count) does not change.",
)
t.user("Enter my details, tick all checkboxes and press Next")
t.call("input_text", {"index": 81, "text": "Minji"}, "Input 'Minji' into element 81")
t.call("input_text", {"index": 89, "text": "Kim"}, "Input 'Kim' into element 89")
t.call("click_element_by_index", {"index": 92}, "Clicked element with index 92")
PAGE11 = (
    "Clicked element with index 99\n"
    "Page: https://pay.example.test/checkout/step-1 (Personal information), 104 elements"
)
idx = [
    t.call("click_element_by_index", {"index": 99, "while_holding_ctrl": False}, PAGE11)
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f11-skyvern-stuck-page-steps-count-up",
    "no_progress",
    True,
    gh("Skyvern-AI/skyvern", "issues", 671),
    "The page is frozen: Skyvern keeps scrolling and taking screenshots, each answer with "
    "a new step number, screenshot artifact id and timestamp, and the same page hash and "
    "visible text.",
)
t.user("For adoreme.com, view the Amelie Plus collection")
t.call("navigate", {"url": "https://adoreme.com"}, "loaded https://adoreme.com (hash 5d1c09)")
idx = []
for k in range(6):
    idx.append(
        t.call(
            "scroll",
            {"direction": "down", "amount": 800},
            f'{{"step": {k + 2}, "screenshot": "a_{_hex11(10)}", "at": "{_ts11(2, 10 + 7 * k)}", '
            '"page_hash": "5d1c09", "scroll_y": 0, "visible": "New arrivals | Bras | Panties"}',
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-autogpt-do-nothing",
    "repeated_call",
    True,
    gh("Significant-Gravitas/AutoGPT", "issues", 3693),
    "AutoGPT says it will read the articles, then runs do_nothing with no arguments and "
    "gets 'No action performed.', again and again, the same thought each time.",
)
t.user("Find the top 5 disposable fountain pens by overall quality")
t.call(
    "google",
    {"input": "best disposable fountain pens review"},
    '["https://pens.example/top10", "https://ink.example/disposable"]',
)
idx = [
    t.call(
        "do_nothing",
        {},
        "No action performed.",
        thought="I will start by reading the articles to determine the top 5 disposable "
        "fountain pens based on overall quality.",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f11-autogpt-unknown-command-placeholder",
    "error_loop",
    True,
    gh("Significant-Gravitas/AutoGPT", "issues", 3994),
    "After reading some code the model copies the prompt's template: COMMAND 'command "
    "name' with ARGUMENTS {'arg name': 'value'}; every call answers Unknown command.",
)
t.user("Analyse the two repositories and compare their plugin systems")
t.call("read_file", {"filename": "repo_a/plugins/__init__.py"}, "class PluginRegistry: ...")
t.call("read_file", {"filename": "repo_b/ext/loader.py"}, "def load_extensions(): ...")
UNK11 = (
    "Unknown command 'command name'. Please refer to the 'COMMANDS' list for available "
    "commands and only respond in the specified JSON format."
)
idx = [
    t.call("command name", {"arg name": "value"}, error=UNK11, kind="invalid_args")
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f11-autogpt-clone-again",
    "error_loop",
    True,
    gh("Significant-Gravitas/AutoGPT", "issues", 3644),
    "The agent clones Auto-GPT, then clones it again; git fails because the directory "
    "exists, and the agent keeps issuing the same clone.",
)
t.user("Clone auto-gpt so you can make updates to it")
CL11 = {
    "repo_url": "https://github.com/Significant-Gravitas/Auto-GPT.git",
    "clone_path": "auto_gpt_workspace/Auto-GPT",
}
t.call(
    "clone_repository",
    CL11,
    "Cloned https://github.com/Significant-Gravitas/Auto-GPT.git to auto_gpt_workspace/Auto-GPT",
)
EX11 = (
    "Error: Cmd('git') failed due to: exit code(128)\nstderr: "
    "'fatal: destination path 'auto_gpt_workspace/Auto-GPT' already "
    "exists and is not an empty directory.'"
)
idx = [t.call("clone_repository", CL11, error=EX11, kind="exit_code") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f11-foundry-ollama-deadline-tool-40",
    "repeated_call",
    True,
    gh("Azure-Samples/foundry-hosted-agentframework-demos", "issues", 3),
    "A local model does not understand the Responses API's function_call_output items and "
    "calls get_enrollment_deadline_info again and again; each answer is the same "
    "deadline with a new retrieval timestamp.",
)
t.user("When is the benefits enrollment deadline?")
idx = []
for k in range(8):
    idx.append(
        t.call(
            "get_enrollment_deadline_info",
            {},
            f'{{"deadline": "2026-11-15", "plan_year": 2027, "retrieved_at": "{_ts11(5, 3 * k)}"}}',
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-praisonai-ollama-price-multiply-cycle",
    "cycle",
    True,
    gh("MervinPraison/PraisonAI", "pull", 955),
    "With Ollama the tool summary came back empty, so the agent called get_stock_price and "
    "multiply in turn, forever, with the same answers.",
)
t.user("What is Google's stock price multiplied by 2?")
occ = repeat_block(
    t,
    [
        {
            "tool": "get_stock_price",
            "args": {"company_name": "Google"},
            "result": "The stock price of Google is 100",
        },
        {"tool": "multiply", "args": {"a": 100, "b": 2}, "result": "200"},
    ],
    5,
)
mark_cycle(t, occ)

t = new(
    "f11-vllm-required-tool-call-fresh-ids",
    "repeated_call",
    True,
    gh("vllm-project/vllm", "issues", 50399),
    "With tool_choice 'required' the server keeps emitting get_weather calls for the same "
    "city (first spelt 上海, then Shanghai); each result carries a new tool-call id.",
)
t.user("上海天气怎么样?")
t.call(
    "get_weather",
    {"city": "上海"},
    '{"tool_call_id": "chatcmpl-tool-a7477d8eaed314f1", "weather": "Shanghai: 24°C, cloudy"}',
)
idx = []
for _ in range(6):
    idx.append(
        t.call(
            "get_weather",
            {"city": "Shanghai"},
            f'{{"tool_call_id": "chatcmpl-tool-{_hex11(16)}", '
            '"weather": "Shanghai: 24°C, cloudy"}',
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-vllm-qwen-required-same-search",
    "repeated_call",
    True,
    gh("vllm-project/vllm", "issues", 21026),
    "Qwen3 bound with tool_choice='required' in LangChain: after the tool answers, the "
    "model chooses the same tool with the same query again, until the recursion limit.",
)
t.user("Summarise our refund policy for digital goods")
KB11 = {"query": "refund policy digital goods", "top_k": 4}
KBR11 = (
    '[{"doc": "policies/refunds.md", "chunk": 3, '
    '"text": "Digital goods are refundable within 14 days if not downloaded."}]'
)
idx = [t.call("search_knowledge_base", KB11, KBR11) for _ in range(7)]
t.mark(idx[1], idx[1])

t = new(
    "f11-cliproxy-gemini-ignores-result",
    "repeated_call",
    True,
    gh("router-for-me/CLIProxyAPI", "issues", 565),
    "Through the proxy, Gemini does not see the tool result and requests the same tool "
    "call again and again; the client runs it each time (the same plugin answer).",
)
t.user("查一下明天北京到上海的高铁")
TR11 = {"from": "北京", "to": "上海", "date": "2026-06-12"}
TRR11 = "G1 07:00-11:29 ¥662; G3 08:00-12:32 ¥662; G5 09:00-13:28 ¥662 (+14 more)"
t.call("search_trains", TR11, TRR11)
idx = [t.call("search_trains", dict(reversed(list(TR11.items()))), TRR11) for _ in range(5)]
t.mark(idx[0], idx[0])

t = new(
    "f11-langchainrb-forced-tool-choice",
    "repeated_call",
    True,
    gh("patterns-ai-core/langchainrb", "issues", 825),
    "The assistant's tool_choice forces the news retriever on every request and tool calls "
    "are auto-run, so it fetches the same AI headlines again and again.",
)
t.user("What's the latest news about AI?")
NW11 = {"q": "artificial intelligence", "page_size": 5}
NWR11 = (
    '{"status": "ok", "totalResults": 3121, "articles": ['
    '{"title": "Chip makers race to meet AI demand"}, '
    '{"title": "EU AI Act: what changes in August"}]}'
)
idx = [t.call("news_retriever__get_everything", NW11, NWR11) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f11-agent-zero-same-message-warning",
    "repeated_call",
    True,
    gh("agent0ai/agent-zero", "issues", 320),
    "The agent sends the same response again; the framework answers 'You have sent the "
    "same message again. You have to do something else!' and the agent sends it again.",
)
t.user("Summarise the meeting notes in notes/2026-06-10.md")
t.call(
    "code_execution_tool",
    {"runtime": "terminal", "code": "cat notes/2026-06-10.md"},
    "- budget approved\n- launch moved to July\n- hire two SREs",
)
RSP11 = {
    "text": "The meeting approved the budget, moved the launch to July and opened two SRE roles."
}
t.call("response", RSP11, "Message delivered.")
idx = [
    t.call(
        "response", RSP11, "You have sent the same message again. You have to do something else!"
    )
    for _ in range(5)
]
t.mark(idx[0], idx[1])

t = new(
    "f11-upstreet-agents-reply-each-other",
    "monologue",
    True,
    gh("UpstreetAI/usdk", "issues", 338),
    "Two agents in one chat answer the user, then keep replying to each other's messages "
    "with the same two pleasantries.",
)
t.user("Hi both, can you recommend a sci-fi novel?")
t.msg("[Ava] Try 'The Left Hand of Darkness' by Ursula K. Le Guin.")
t.msg("[Rex] Great pick! I'd add 'Hyperion' by Dan Simmons.")
idx = []
for _ in range(4):
    idx.append(t.msg("[Ava] Thanks Rex! Let me know if there's anything else I can help with."))
    idx.append(t.msg("[Rex] Thank you Ava! Happy to help anytime."))
t.mark(idx[2], idx[3], period=2)

t = new(
    "f11-metagpt-duplicated-prd",
    "monologue",
    True,
    gh("FoundationAgents/MetaGPT", "issues", 1005),
    "With a small local model only the product manager speaks, and it outputs the same "
    "PRD section again and again.",
)
t.user("create a 2048 game")
PRD11 = (
    "## Product Goals\n- Create an engaging 2048 game\n- Smooth, responsive controls\n"
    "- Attractive visual design\n## User Stories\n- As a player, I want to merge tiles ..."
)
idx = [t.msg(PRD11) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f11-vanna-sql-cosmetic-retries",
    "error_loop",
    True,
    gh("vanna-ai/vanna", "issues", 527),
    "vn.ask regenerates the SQL after an error, but each attempt only re-cases and "
    "re-quotes the same query; the column still does not exist.",
)
t.user("Which EU customers spent the most last quarter?")
COLERR11 = (
    'psycopg2.errors.UndefinedColumn: column "region" does not exist\n'
    "LINE 1: ...FROM customers WHERE region"
)
idx = [
    t.call("run_sql", {"sql": q}, error=COLERR11, kind="invalid_args")
    for q in [
        (
            "SELECT name, total_spent FROM customers WHERE region = 'EU' "
            "ORDER BY total_spent DESC LIMIT 10"
        ),
        (
            "select name, total_spent from customers where region = 'EU' "
            "order by total_spent desc limit 10"
        ),
        (
            'SELECT "name", "total_spent" FROM "customers" WHERE "region" '
            "= 'EU' ORDER BY \"total_spent\" DESC LIMIT 10"
        ),
        (
            "SELECT name, total_spent\nFROM customers\nWHERE region = "
            "'EU'\nORDER BY total_spent DESC\nLIMIT 10;"
        ),
        (
            "SELECT c.name, c.total_spent FROM customers c WHERE c.region "
            "= 'EU' ORDER BY c.total_spent DESC LIMIT 10"
        ),
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f11-pandasai-error-correction-reruns-original",
    "error_loop",
    True,
    gh("sinaptik-ai/pandas-ai", "issues", 1113),
    "The error-correction loop asks for corrected code, but executes the original code "
    "each time; the same KeyError comes back on every retry.",
)
t.user("Plot GDP per capita by country")
CODE11 = (
    "df['gdp_per_capita'] = df['gdp'] / df['population']\nresult "
    "= {'type': 'plot', 'value': df.plot.bar(x='country', y='gdp_per_capita')}"
)
KE11 = (
    "Traceback (most recent call last):\n"
    "  File \"<string>\", line 1, in <module>\nKeyError: 'population'"
)
t.call("get_dataframe_info", {"df": "dfs[0]"}, "columns: country, gdp, happiness_index (10 rows)")
idx = [t.call("execute_code", {"code": CODE11}, error=KE11, kind="exit_code") for _ in range(4)]
t.mark(idx[1], idx[1])

t = new(
    "f11-openinterpreter-same-fix-same-error",
    "error_loop",
    True,
    gh("openinterpreter/openinterpreter", "issues", 783),
    "Open Interpreter says it corrects the script, but runs the same code each time, and "
    "the same traceback comes back.",
)
t.user("Adapt receivemail.py so it only handles mails with subject 'RUN'")
RM11 = (
    "import imaplib\nm = imaplib.IMAP4_SSL('imap.gmail.com')\nm.login(USER, "
    "PASS)\nm.select('inbox')\ntyp, data = m.search(None, '(SUBJECT "
    '"RUN")\')'
)
TB11 = (
    'Traceback (most recent call last):\n  File "receivemail.py", '
    "line 3, in <module>\nNameError: name 'USER' is not defined"
)
idx = []
for k in range(5):
    idx.append(
        t.call(
            "execute",
            {"language": "python", "code": RM11},
            error=TB11,
            kind="exit_code",
            thought=[
                "Let me run the script.",
                "I will fix the error and try again.",
                "Let's correct the code and run it again.",
                "I'll fix this and retry.",
                "Trying again with the corrected code.",
            ][k],
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-dify-mcp-first-tool-repeated",
    "repeated_call",
    True,
    gh("langgenius/dify", "issues", 23185),
    "A chatflow agent node calls its first MCP tool; the first answer is the expected one, "
    "and the node calls the same tool with the same query again and again, each answer "
    "with a new conversation and message id.",
)
t.user("帮我查询订单 A-20931 的物流状态")
idx = []
for _ in range(6):
    idx.append(
        t.call(
            "order_lookup_chatflow",
            {"query": "订单 A-20931 物流状态"},
            f'{{"conversation_id": "{_hex11(8)}-{_hex11(4)}", "message_id": "{_hex11(8)}", '
            '"answer": "订单 A-20931 已于 6月10日 发出, 顺丰 SF1402938811, 预计 6月12日 送达。"}',
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-n8n-agent-creates-event-again",
    "repeated_call",
    True,
    gh("n8n-io/n8n", "issues", 13525),
    "An n8n AI agent triggers its calendar tool again and again for one request instead of "
    "once; each call creates the same event and answers with a new event id.",
)
t.user("Book a 30 minute call with Priya tomorrow at 10:00")
EV11 = {
    "summary": "Call with Priya",
    "start": "2026-06-12T10:00:00+02:00",
    "end": "2026-06-12T10:30:00+02:00",
    "attendees": ["priya@example.com"],
}
idx = []
for _ in range(5):
    idx.append(
        t.call(
            "Google_Calendar_Create_Event",
            EV11,
            f'{{"id": "{_hex11(26)}", "status": "confirmed", "summary": "Call with Priya"}}',
            mutates=True,
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-llamaindex-react-reworded-same-chunks",
    "no_progress",
    True,
    gh("run-llama/llama_index", "issues", 12699),
    "A ReAct agent over one query-engine tool already has its answer, but keeps asking the "
    "tool reworded questions; the retriever returns the same two chunks every time.",
)
t.user("What is the notice period in the employment contract?")
CH11 = (
    "[1] contract.pdf p.4: Either party may terminate this agreement with three months' "
    "written notice.\n[2] contract.pdf p.5: During probation the notice period is two weeks."
)
idx = [
    t.call("contract_docs", {"input": q}, CH11)
    for q in [
        "notice period employment contract",
        "What is the notice period?",
        "termination notice period in the contract",
        "How much notice is required to terminate?",
        "contract notice period length",
        "notice period for termination of employment",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f11-letta-core-memory-append-same",
    "repeated_call",
    True,
    gh("letta-ai/letta", "issues", 3116),
    "A Letta agent appends the same fact to its human block again and again in one turn; "
    "each append answers with the block, now holding the fact once more.",
)
t.user("By the way, my favourite colour is blue.")
idx = []
block = "First name: Chad"
for _ in range(5):
    block += "\nFavourite colour: blue"
    idx.append(
        t.call(
            "core_memory_append",
            {"label": "human", "content": "Favourite colour: blue"},
            f'{{"status": "OK", "block": "human", "chars": {len(block)}}}',
            mutates=True,
        )
    )
t.mark(idx[1], idx[1])

t = new(
    "f11-letta-archival-reworded-inserts",
    "no_progress",
    True,
    gh("letta-ai/letta", "issues", 3116),
    "The agent stores one fact in archival memory in four wordings in a row, each insert "
    "answering with a new passage id.",
)
t.user("Remember that I prefer blue for all the charts you make for me.")
idx = [
    t.call("archival_memory_insert", {"content": c}, f'{{"passage_id": "passage-{_hex11(8)}"}}')
    for c in [
        "User's favorite color is blue",
        "The user mentioned they like blue",
        "User prefers blue color",
        "Blue is the user's preferred color",
        "User likes the color blue for charts",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f11-vectara-undefined-tool-loop",
    "error_loop",
    True,
    gh("vectara/py-vectara-agentic", "pull", 62),
    "The instructions name a tool the agent does not have; it calls it again and again and "
    "gets 'tool not found' each time.",
)
t.user("Use the get_company_financials tool to get Acme's 2025 revenue")
NF11 = "Tool get_company_financials does not exist. Available tools: ask_filings, get_ticker"
idx = [
    t.call(
        "get_company_financials", {"company": "Acme", "year": 2025}, error=NF11, kind="not_found"
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f11-vanna-bad-password-next-session",
    "known_failure",
    True,
    gh("vanna-ai/vanna", "issues", 527),
    "The Postgres connection fails on the password; in the next session, nothing changed, "
    "the agent connects with the same settings first.",
)
PG11 = {"host": "db.internal", "dbname": "sales", "user": "analyst", "port": 5432}
PGE11 = (
    'psycopg2.OperationalError: connection to server at "db.internal" '
    "(10.0.3.7), port 5432 failed: FATAL:  password authentication "
    'failed for user "analyst"'
)
t.user("Connect to the sales database and list the tables")
t.call("connect_to_postgres", PG11, error=PGE11, kind="permission")
t.msg("The password for analyst is rejected; please check the credentials.")
t.session("s2")
t.user("Connect to the sales database and list the tables")
rep = t.call("connect_to_postgres", PG11, error=PGE11, kind="permission")
t.call("connect_to_postgres", PG11, error=PGE11, kind="permission")
t.mark(rep, rep - 1)

t = new(
    "f11-openinterpreter-pip-fails-next-session",
    "known_failure",
    True,
    gh("openinterpreter/openinterpreter", "pull", 435),
    "A package install fails (no wheel for the platform); in the next session, with the "
    "same environment, the interpreter runs the same install first.",
)
PIP11 = {"language": "shell", "code": "pip install pyaudio==0.2.11"}
PIPE11 = (
    "error: subprocess-exited-with-error\n  portaudio.h: No such file or directory\n"
    "ERROR: Failed building wheel for pyaudio"
)
t.user("Record 5 seconds from the microphone into test.wav")
t.call("execute", PIP11, error=PIPE11, kind="exit_code")
t.msg("pyaudio needs the portaudio headers, which are not installed.")
t.session("s2")
t.user("Record 5 seconds from the microphone into test.wav")
rep = t.call("execute", PIP11, error=PIPE11, kind="exit_code")
t.call("execute", PIP11, error=PIPE11, kind="exit_code")
t.mark(rep, rep - 1)

t = new(
    "f11-litellm-ratelimit-no-backoff",
    "error_loop",
    True,
    gh("BerriAI/litellm", "issues", 7669),
    "The router retries a tool-backed completion immediately after each 429 without "
    "honouring retry_after; the same rate-limit error comes back six times.",
)
t.user("Translate the release notes into German")
RL11 = (
    "litellm.RateLimitError: BedrockException - Too many requests, please wait before "
    "trying again. retry_after: 30"
)
idx = [
    t.call(
        "translate",
        {"text_file": "RELEASE_NOTES.md", "target": "de"},
        error=RL11,
        kind="rate_limit",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[2])


# ---- fresh11 legitimate

t = new(
    "f11-browser-use-form-varied-steps",
    "distinct_reads",
    False,
    gh("browser-use/browser-use", "issues", 2901),
    "The same form filled as the user asked: each field once, each checkbox once, then "
    "Next, the payment tab checked; every step acts on a new element.",
)
t.user("Enter my details, tick all checkboxes and press Next")
for fld, val in [(81, "Minji"), (84, "Kim"), (86, "minji@example.com"), (88, "+82 10 5555 0101")]:
    t.call("input_text", {"index": fld, "text": val}, f"Input '{val}' into element {fld}")
t.call("select_dropdown_option", {"index": 90, "text": "Korean"}, "Selected 'Korean' in element 90")
for cb in (92, 93, 94):
    t.call("click_element_by_index", {"index": cb}, f"Clicked element with index {cb}")
t.call(
    "click_element_by_index",
    {"index": 99},
    "Clicked element with index 99\n"
    "Page: https://pay.example.test/checkout/step-2 (Payment), 61 elements",
)
t.call("get_state", {}, "Tab 1: Payment - https://pay.example.test/checkout/step-2")
t.msg("All fields are filled and you are on the payment page.")

t = new(
    "f11-umbra-show-more-results",
    "polling",
    False,
    gh("internetarchive/umbra", "pull", 52),
    "A collection page reuses one 'Show more results' button: the agent clicks the same "
    "selector again and again, and each click reveals more artists, until it disappears.",
)
t.user("Capture every artist listed on the collection page")
t.call("navigate", {"url": "https://museum.example/collection/artists"}, "48 artists shown")
for n in (96, 144, 192, 240, 288, 336):
    t.call("click", {"selector": "button.show-more"}, f"clicked; {n} artists shown")
t.call(
    "click",
    {"selector": "button.show-more"},
    error="No element matches selector button.show-more",
    kind="not_found",
)
t.call("extract", {"selector": "li.artist a"}, "351 artist links")
t.msg("All 351 artists are loaded and captured.")

t = new(
    "f11-devtools-mcp-scroll-long-page",
    "distinct_reads",
    False,
    gh("ChromeDevTools/chrome-devtools-mcp", "issues", 561),
    "A long documentation page read by scrolling: the same PageDown key, each new snapshot "
    "showing the next headings, until the footer.",
)
t.user("Read the whole migration guide and list its breaking changes")
t.call(
    "navigate_page",
    {"url": "https://docs.example.dev/migrate/v5"},
    "Migrating to v5 | heading 'Overview'",
)
for sec in [
    "Config file renamed",
    "Node 20 required",
    "Default export removed",
    "Plugins API v2",
    "CLI flags",
    "Footer: Edit this page",
]:
    t.call("press_key", {"key": "PageDown"}, "")
    t.call("take_snapshot", {}, f"uid=1_3 heading '{sec}' ... (scrollY grows)")
t.msg(
    "Breaking changes: config file renamed, Node 20, no default export, Plugins API v2, CLI flags."
)

t = new(
    "f11-cua-anthropic-computer-use-session",
    "distinct_reads",
    False,
    gh("trycua/cua", "issues", 289),
    "An Anthropic computer-use loop: a screenshot after every action, each showing what "
    "the last click or typing changed.",
)
t.user("Open the Notes app and write down today's shopping list: milk, eggs, rice")
t.call("computer", {"action": "screenshot"}, "desktop, dock visible")
t.call("computer", {"action": "left_click", "coordinate": [512, 880]}, "clicked")
t.call("computer", {"action": "screenshot"}, "Notes app open, empty list")
t.call("computer", {"action": "key", "text": "cmd+n"}, "pressed")
t.call("computer", {"action": "screenshot"}, "new note, cursor in title")
t.call("computer", {"action": "type", "text": "Shopping\nmilk\neggs\nrice"}, "typed")
t.call("computer", {"action": "screenshot"}, "note 'Shopping' with milk, eggs, rice")
t.msg("The note 'Shopping' now lists milk, eggs and rice.")

t = new(
    "f11-cua-installer-progress-wait",
    "polling",
    False,
    gh("8gi-foundation/8gent-code", "issues", 1864),
    "A computer-use agent waits for an installer: wait, then a screenshot, the progress bar "
    "moving each time; twice the same percentage is read after a wait.",
)
t.user("Install the printer driver from the DMG in Downloads")
t.call("computer", {"action": "double_click", "coordinate": [300, 220]}, "installer opened")
for pct in ["12%", "31%", "31%", "58%", "80%", "80%", "100% - Installation complete"]:
    t.call("computer", {"action": "wait", "duration": 5}, "")
    t.call("computer", {"action": "screenshot"}, f"Installer: Installing driver... {pct}")
t.call("computer", {"action": "left_click", "coordinate": [640, 520]}, "clicked Close")
t.msg("The driver is installed.")

t = new(
    "f11-vanna-fix-query-after-schema",
    "edit_test_cycle",
    False,
    gh("vanna-ai/vanna", "issues", 527),
    "A SQL agent's query fails on a missing column; it reads the schema, rewrites the query "
    "with a join, gets an empty result for one quarter, widens the date range and gets rows.",
)
t.user("Which EU customers spent the most last quarter?")
t.call(
    "run_sql",
    {"sql": "SELECT name, total_spent FROM customers WHERE region = 'EU'"},
    error='column "region" does not exist',
    kind="invalid_args",
)
t.call("get_table_schema", {"table": "customers"}, "id, name, country_code, created_at")
t.call("get_table_schema", {"table": "countries"}, "code, name, continent, eu_member")
t.call(
    "run_sql",
    {
        "sql": (
            "SELECT c.name, SUM(o.amount) s FROM customers c JOIN countries "
            "k ON k.code = c.country_code JOIN orders o ON o.customer_id "
            "= c.id WHERE k.eu_member AND o.created_at >= '2026-04-01' "
            "AND o.created_at < '2026-07-01' GROUP BY c.name ORDER BY "
            "s DESC LIMIT 10"
        )
    },
    "(0 rows)",
)
t.call(
    "run_sql",
    {"sql": "SELECT MIN(created_at), MAX(created_at) FROM orders"},
    "2025-01-02 | 2026-03-30",
)
t.call(
    "run_sql",
    {
        "sql": (
            "SELECT c.name, SUM(o.amount) s FROM customers c JOIN countries "
            "k ON k.code = c.country_code JOIN orders o ON o.customer_id "
            "= c.id WHERE k.eu_member AND o.created_at >= '2026-01-01' "
            "AND o.created_at < '2026-04-01' GROUP BY c.name ORDER BY "
            "s DESC LIMIT 10"
        )
    },
    "Müller GmbH | 48210.00\nDupont SA | 39120.50\n... (10 rows)",
)
t.msg("The last quarter with data is Q1 2026; Müller GmbH leads with 48,210.")

t = new(
    "f11-liam-qa-sql-tests-retry",
    "edit_test_cycle",
    False,
    gh("liam-hq/liam", "pull", 3941),
    "A QA agent's SQL tests fail; it analyses the failures and regenerates the failing SQL, "
    "up to three rounds, with fewer failures each round.",
)
t.user("Generate and run the test cases for the orders schema")
t.call("generate_test_sql", {"requirements": "orders"}, "12 test cases written", mutates=True)
for rnd, (fail, ids) in enumerate([(4, "t3,t5,t8,t11"), (2, "t5,t11"), (0, "")]):
    t.call("run_tests", {"suite": "orders"}, f"12 run, {fail} failed" + (f": {ids}" if ids else ""))
    if fail:
        t.call(
            "analyze_test_failures",
            {"failed": ids.split(",")},
            f"{fail} SQL errors: wrong column names"
            if rnd == 0
            else "1 SQL error, 1 constraint violation",
        )
        t.call(
            "regenerate_sql",
            {"tests": ids.split(","), "attempt": rnd + 1},
            f"{fail} test cases rewritten",
            mutates=True,
        )
t.msg("All 12 tests pass after two regeneration rounds.")

t = new(
    "f11-pandasai-retry-new-code-succeeds",
    "edit_test_cycle",
    False,
    gh("sinaptik-ai/pandas-ai", "pull", 1687),
    "Code generation with retries: the first code fails, the second fails differently, "
    "the third runs; each retry sends new code.",
)
t.user("Which country has the highest GDP?")
t.call(
    "execute_code",
    {"code": "result = df.sort_values('GDP').iloc[-1]['country']"},
    error="KeyError: 'GDP'",
    kind="exit_code",
)
t.call(
    "execute_code",
    {"code": "result = df.sort_values('gdp').iloc[-1]['Country']"},
    error="KeyError: 'Country'",
    kind="exit_code",
)
t.call(
    "execute_code",
    {"code": "result = {'type': 'string', 'value': df.sort_values('gdp').iloc[-1]['country']}"},
    "{'type': 'string', 'value': 'United States'}",
)
t.msg("United States has the highest GDP.")

t = new(
    "f11-llamaindex-six-rag-tools-same-question",
    "distinct_reads",
    False,
    gh("run-llama/llama_index", "issues", 20290),
    "A ReAct agent with six citation RAG tools (info, data, market, brand, history, specs) "
    "asks each the same question; each tool answers from its own index.",
)
t.user("Give me a full profile of the Aurora X1 e-bike")
for tool, ans in [
    ("info", "Aurora X1: urban e-bike launched 2025 [info-3]"),
    ("data", "Range 90 km, 250 W motor, 21 kg [data-12]"),
    ("market", "Sold in 14 EU countries, 2nd in its segment [market-7]"),
    ("brand", "Aurora Mobility, Rotterdam, founded 2019 [brand-1]"),
    ("history", "Successor of the Aurora C2 (2022) [history-4]"),
    ("specs", "Shimano Nexus 5, hydraulic brakes, 540 Wh [specs-9]"),
]:
    t.call(tool, {"input": "Aurora X1 e-bike"}, ans)
t.msg("Aurora X1 profile with citations from all six sources.")

t = new(
    "f11-llamaindex-refined-queries-new-chunks",
    "research",
    False,
    gh("run-llama/llama_index", "issues", 17403),
    "A ReAct chat engine refines its retrieval query three times; each query returns new "
    "chunks that narrow the answer.",
)
t.user("Does our travel policy cover a partner's flight on a conference trip?")
t.call(
    "policy_docs",
    {"input": "travel policy flights"},
    "[1] travel.pdf p.2: Economy flights are reimbursed for employees.",
)
t.call(
    "policy_docs",
    {"input": "travel policy companion or partner travel"},
    "[2] travel.pdf p.7: Companion travel is not reimbursed, except ...",
)
t.call(
    "policy_docs",
    {"input": "companion travel exception conference"},
    "[3] travel.pdf p.7: ... when the companion is an invited speaker.",
)
t.msg("No, unless the partner is an invited speaker (travel.pdf p.7).")

t = new(
    "f11-letta-conversation-facts",
    "conversation",
    False,
    gh("letta-ai/letta", "issues", 689),
    "A MemGPT conversation: the user shares a new fact each turn, the agent appends each to "
    "its human block and replies through send_message.",
)
for fact, reply in [
    ("I just moved to Lisbon.", "Lisbon! How are you finding it?"),
    ("I work as a nurse.", "That's demanding work; night shifts?"),
    ("I have a cat called Miso.", "Miso is a lovely name."),
    ("I'm learning Portuguese.", "Boa sorte! How far along are you?"),
    ("I run on Sundays.", "Any favourite route by the river?"),
]:
    t.user(fact)
    t.call(
        "core_memory_append", {"label": "human", "content": fact}, '{"status": "OK"}', mutates=True
    )
    t.call("send_message", {"message": reply}, "None")

t = new(
    "f11-letta-code-memory-read-each-session",
    "session_memory",
    False,
    gh("letta-ai/letta-code", "issues", 417),
    "Each session starts by reading the project memory block (the same content) before "
    "new work; three sessions, three reads.",
)
MEM11 = "project: billing-service\nconventions: pytest, ruff, no ORMs\nopen: refund webhook"
for s, (task, f) in enumerate(
    [
        ("Add the refund webhook", "webhooks/refund.py"),
        ("Write tests for the refund webhook", "tests/test_refund.py"),
        ("Document the refund webhook", "docs/webhooks.md"),
    ]
):
    if s:
        t.session(f"s{s + 1}")
    t.user(task)
    t.call("memory_read", {"block": "project"}, MEM11)
    t.call("read_file", {"path": f}, f"# {f} (existing)")
    t.call("write_file", {"path": f, "content": f"... {task} ..."}, "written", mutates=True)
    t.msg(f"Done: {task.lower()}.")

t = new(
    "f11-n8n-think-five-times",
    "research",
    False,
    gh("n8n-io/n8n", "issues", 22771),
    "The user asks the agent to call Think five times and reflect on each output; five "
    "think calls with different thoughts.",
)
t.user("Call Think 5 times, reflect on each output, then give me a launch checklist")
for th in [
    "List what a product launch needs: docs, pricing, support, marketing.",
    "Reflect: pricing depends on the tier decision still open.",
    "Support needs a runbook and an on-call rota before launch.",
    "Marketing needs the press kit one week ahead.",
    "Order the checklist by lead time: pricing, press kit, runbook, docs.",
]:
    t.call("Think", {"thought": th}, th)
t.msg("Launch checklist: 1. pricing ... 4. docs.")

t = new(
    "f11-dify-current-time-ten-times",
    "polling",
    False,
    gh("langgenius/dify", "issues", 19589),
    "The user asks for the current_time plugin ten times with each result printed; the same "
    "call, each answer a later time.",
)
t.user("Call the current_time plugin 10 times, outputting each result immediately")
for k in range(10):
    t.call("current_time", {"timezone": "UTC"}, f"2026-06-11 14:07:{10 + 3 * k:02d}")
t.msg("Ten timestamps printed above.")

t = new(
    "f11-vllm-weather-six-cities",
    "distinct_reads",
    False,
    gh("vllm-project/vllm", "issues", 50399),
    "Parallel tool calls for one question about six cities: get_weather once per city.",
)
t.user("Compare the weather in Shanghai, Beijing, Shenzhen, Chengdu, Wuhan and Xi'an")
for c, w in [
    ("Shanghai", "24°C cloudy"),
    ("Beijing", "29°C sunny"),
    ("Shenzhen", "31°C rain"),
    ("Chengdu", "26°C cloudy"),
    ("Wuhan", "30°C sunny"),
    ("Xi'an", "27°C cloudy"),
]:
    t.call(
        "get_weather",
        {"city": c},
        f'{{"tool_call_id": "chatcmpl-tool-{_hex11(16)}", "weather": "{c}: {w}"}}',
    )
t.msg("Shenzhen is hottest and rainy; Shanghai the coolest.")

t = new(
    "f11-julep-litellm-429-then-ok",
    "retry_transient",
    False,
    gh("julep-ai/julep", "issues", 741),
    "A LiteLLM-backed tool answers 429 twice; the agent waits as told before each retry "
    "and the third attempt succeeds.",
)
t.user("Summarise the customer feedback export")
t.call("read_file", {"path": "exports/feedback.csv"}, "1,204 rows")
SUM11 = {"file": "exports/feedback.csv", "max_words": 200}
t.call(
    "summarize",
    SUM11,
    error="litellm.RateLimitError: 429 Too Many Requests, retry after 20s",
    kind="rate_limit",
)
t.call("bash", {"command": "sleep 20"}, "")
t.call(
    "summarize",
    SUM11,
    error="litellm.RateLimitError: 429 Too Many Requests, retry after 40s",
    kind="rate_limit",
)
t.call("bash", {"command": "sleep 40"}, "")
t.call("summarize", SUM11, "Top themes: slow sync (31%), pricing (22%), praise for support (18%).")
t.msg("Summary ready: slow sync is the top complaint.")

t = new(
    "f11-openhands-litellm-502-retry",
    "retry_transient",
    False,
    gh("OpenHands/OpenHands", "pull", 4167),
    "A completion-backed tool fails with a 502 APIError and then a timeout; the third try answers.",
)
t.user("Generate docstrings for utils/dates.py")
DS11 = {"path": "utils/dates.py", "style": "google"}
t.call("generate_docstrings", DS11, error="litellm.APIError: 502 Bad Gateway", kind="server_error")
t.call("generate_docstrings", DS11, error="Request timed out after 60s", kind="timeout")
t.call("generate_docstrings", DS11, "6 docstrings added", mutates=True)
t.call("bash", {"command": "python -m pytest -q tests/test_dates.py"}, "8 passed in 0.41s")
t.msg("Docstrings added; tests pass.")

t = new(
    "f11-kaapi-finetune-job-poll",
    "polling",
    False,
    gh("ProjectTech4DevAI/kaapi-backend", "issues", 347),
    "A fine-tuning job is polled after each wait: 'running' five times with the same "
    "trained-steps count twice (a slow checkpoint), then 'succeeded'.",
)
t.user("Start the fine-tune on train.jsonl and tell me the model id when it is done")
t.call(
    "fine_tuning_jobs_create",
    {"training_file": "file-7Hq2", "model": "gpt-4.1-mini"},
    '{"id": "ftjob-91x", "status": "queued"}',
    mutates=True,
)
for st, steps in [
    ("queued", 0),
    ("running", 40),
    ("running", 120),
    ("running", 120),
    ("running", 200),
    ("running", 260),
    ("succeeded", 300),
]:
    t.call("bash", {"command": "sleep 60"}, "")
    t.call(
        "fine_tuning_jobs_retrieve",
        {"id": "ftjob-91x"},
        f'{{"status": "{st}", "trained_steps": {steps}}}',
    )
t.msg("Done: ft:gpt-4.1-mini:acme::91x.")

t = new(
    "f11-pasqal-batch-running-poll",
    "polling",
    False,
    gh("pasqal-io/pasqal-cloud", "pull", 10),
    "A batch is polled while RUNNING; the answer is the same word four times (no counts), "
    "with a wait between, then DONE and the results are fetched.",
)
t.user("Submit the 40-job sweep and collect the results")
t.call(
    "create_batch",
    {"sequence": "sweep.json", "jobs": 40},
    '{"id": "b-5521", "status": "PENDING"}',
    mutates=True,
)
for st in ["PENDING", "RUNNING", "RUNNING", "RUNNING", "RUNNING", "DONE"]:
    t.call("wait", {"seconds": 30}, "waited 30s")
    t.call("get_batch", {"id": "b-5521"}, f'{{"id": "b-5521", "status": "{st}"}}')
t.call("get_batch_results", {"id": "b-5521"}, "40 results, 0 errors")
t.msg("All 40 jobs finished; results saved.")

t = new(
    "f11-babyagi-task-list-progress",
    "research",
    False,
    gh("yoheinakajima/babyagi", "issues", 75),
    "BabyAGI's loop: execute the top task, create new tasks from the result, reprioritise; "
    "each round a different task.",
)
t.user("Objective: plan a 3-day trip to Kyoto")
for task, res in [
    ("Research Kyoto's main districts", "Higashiyama, Arashiyama, Gion, Fushimi"),
    ("Find opening hours of Fushimi Inari", "open 24h, best before 8am"),
    ("Draft day 1 itinerary", "Fushimi Inari, Tofuku-ji, Gion evening"),
    ("Draft day 2 itinerary", "Arashiyama bamboo grove, Tenryu-ji, monkey park"),
    ("Draft day 3 itinerary", "Kinkaku-ji, Ryoan-ji, Nishiki market"),
]:
    t.call("execution_agent", {"objective": "plan a 3-day trip to Kyoto", "task": task}, res)
    t.call("task_creation_agent", {"last_task": task, "result": res}, f"2 new tasks after '{task}'")
    t.call("prioritization_agent", {"task_count": 5}, "task list reprioritised")
t.msg("Three-day Kyoto plan ready.")

t = new(
    "f11-metagpt-roles-pipeline",
    "long_productive",
    False,
    gh("FoundationAgents/MetaGPT", "issues", 1603),
    "A MetaGPT team builds a small game: PRD, design, one file per module written and "
    "tested, QA fixes; every step another artefact.",
)
t.user("create a 2048 game")
t.call("write_prd", {"idea": "2048 game"}, "docs/prd/2048.json written", mutates=True)
t.call(
    "write_design",
    {"prd": "docs/prd/2048.json"},
    "docs/system_design/2048.json written",
    mutates=True,
)
for mod in ["board", "tile", "moves", "score", "renderer", "input", "storage", "main"]:
    t.call(
        "write_code",
        {"filename": f"game/{mod}.py"},
        f"game/{mod}.py written ({_r11.randint(30, 120)} lines)",
        mutates=True,
    )
    t.call(
        "run_code",
        {"command": f"python -m pytest -q tests/test_{mod}.py"},
        f"{_r11.randint(2, 9)} passed",
    )
t.call("write_test", {"filename": "tests/test_e2e.py"}, "written", mutates=True)
t.call(
    "run_code",
    {"command": "python -m pytest -q"},
    error="1 failed: test_e2e::test_merge_twice",
    kind="exit_code",
)
t.call(
    "write_code",
    {"filename": "game/moves.py"},
    "game/moves.py rewritten (merge once per move)",
    mutates=True,
)
t.call("run_code", {"command": "python -m pytest -q"}, "41 passed")
t.msg("2048 is implemented and all 41 tests pass.")

t = new(
    "f11-vanna-password-fixed-between-sessions",
    "session_memory",
    False,
    gh("vanna-ai/vanna", "issues", 527),
    "The connection fails on the password; the user fixes the credentials out of band and "
    "in the next session the same connect succeeds.",
)
t.user("Connect to the sales database and list the tables")
t.call("connect_to_postgres", PG11, error=PGE11, kind="permission")
t.msg("The password for analyst is rejected; please check the credentials.")
t.workspace("the user rotated the analyst password in .env")
t.session("s2")
t.user("I fixed the password, try again")
t.call("connect_to_postgres", PG11, "connected (PostgreSQL 16.3)")
t.call(
    "run_sql",
    {"sql": "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"},
    "customers, orders, countries, refunds",
)
t.msg("Connected; four tables: customers, orders, countries, refunds.")

t = new(
    "f11-openinterpreter-tweaked-attempts",
    "edit_test_cycle",
    False,
    gh("openinterpreter/openinterpreter", "pull", 435),
    "Open Interpreter tweaks its attempt from each error trace: quoting fixed, then a "
    "missing import, then it works.",
)
t.user("Count the lines of every .py file under src and show the top 3")
t.call(
    "execute",
    {"language": "shell", "code": "find src -name '*.py' | xargs wc -l | sort -n | tail -4"},
    error="xargs: unmatched single quote",
    kind="exit_code",
)
t.call(
    "execute",
    {"language": "python", "code": "for p in sorted(Path('src').rglob('*.py')): print(p)"},
    error="NameError: name 'Path' is not defined",
    kind="exit_code",
)
t.call(
    "execute",
    {
        "language": "python",
        "code": (
            "from pathlib import Path\nc = sorted(((sum(1 for _ in open(p)), "
            "str(p)) for p in Path('src').rglob('*.py')))[-3:]\nprint(c)"
        ),
    },
    "[(412, 'src/cli.py'), (530, 'src/core.py'), (961, 'src/parser.py')]",
)
t.msg("Largest: parser.py (961), core.py (530), cli.py (412).")


def _browser_catalogue_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        gh("browser-use/browser-use", "issues", 554),
        "A long browser scrape over 15 result pages: extract the listing, open two products, "
        "go back, next page; the same Next click on each page, new content each time.",
    )
    r = random.Random(tid)
    t.user("Collect name, price and rating of every laptop under 1000 EUR on shop.example")
    t.call("go_to_url", {"url": "https://shop.example/laptops?max=1000"}, "page 1 of 15, 24 items")
    for p in range(1, 16):
        t.call(
            "extract_content",
            {"goal": "name, price, rating of each item"},
            f"page {p}: 24 items ({r.randint(0, 10**6)})",
        )
        for _ in range(2):
            i = r.randint(1, 24)
            t.call("click_element", {"index": 10 + i}, f"opened item {p}-{i}")
            t.call(
                "extract_content",
                {"goal": "full specs"},
                f"item {p}-{i}: {r.randint(8, 32)} GB RAM",
            )
            t.call("go_back", {}, f"back on page {p}")
        if p < 15:
            t.call("click_element", {"index": 60}, f"page {p + 1} of 15, 24 items")
    t.call("write_file", {"path": "laptops.csv"}, "360 rows", mutates=True)
    t.msg("360 laptops collected in laptops.csv.")


_browser_catalogue_long("f11-browser-use-long-catalogue-scrape")


# ================================================================ fresh12 set
# Written at 10:50 UTC (Dec 3) from the test suites of loop and repetition detectors no
# earlier split uses (checked against every `source` of the file): Code-Ally's LoopDetector
# (tool cycles, failures against one target, empty-search streaks, one thought stream) and
# ThinkingLoopDetector tests, devbv/diligent's LoopDetector (period 1-3 patterns over a
# window), 7shi/llm7shi's `detect_repetition` (degenerate output at the end of a text,
# exact and with a counter between the copies) and llm-interactive-proxy's
# TestRealWorldLoopDetection (chanting phrases, normal content). Each case, positive or
# negative, is one trajectory with the label its test asserts; where a peer's threshold
# differs from this file's label rules (earliest: the unit has fully happened twice), the
# rules decide and the note says so. Committed before crs was run on them. Split "fresh12".

FRESH12_START = len(ALL)
ALLY_LOOP = {"repo": "benhmoore/Code-Ally", "path": "src/agent/__tests__/LoopDetector.test.ts"}
ALLY_THINK = {
    "repo": "benhmoore/Code-Ally",
    "path": "src/agent/__tests__/ThinkingLoopDetector.test.ts",
}
DILIGENT = {"repo": "devbv/diligent", "path": "packages/core/test/loop-detector.test.ts"}
LLM7SHI = {"repo": "7shi/llm7shi", "path": "tests/test_monitor_repetition.py"}
LIP = {
    "repo": "matdev83/llm-interactive-proxy",
    "path": "tests/integration/test_real_world_loop_detection.py",
}
# ---- fresh12 loops


def _stuck(t: T, text: str) -> None:
    """One agent message stuck repeating itself, then the user interrupts it: the flag is due
    on the message (the user's turn leaves `latest` one step after it)."""
    m = t.msg(text)
    t.user("You are repeating yourself. Stop and answer in one line.")
    t.mark(m, m)


GREP12 = {"pattern": "foo", "path": "/src"}
GREP12_OUT = "/src/util.ts:12: export function foo(x: number) {"
t = new(
    "f12-ally-grep-exact-duplicate",
    "repeated_call",
    True,
    ALLY_LOOP | {"case": "should detect exact duplicate tool calls at threshold"},
    "The same Grep with the same answer again and again (the peer flags the third call "
    "before it runs; by this file's rules the unit has happened twice at the second).",
)
t.user("Where is foo defined?")
idx = [t.call("Grep", GREP12, GREP12_OUT) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-todo-key-order",
    "repeated_call",
    True,
    ALLY_LOOP
    | {"case": "distinguishes structured array arguments while ignoring object key order"},
    "A todo list moves pending -> in_progress -> completed, then the same completed list is "
    "written again and again, its keys in another order every other time.",
)
t.user("Build the parser and keep the todo list current")
t.call("todo-write", {"todos": [{"content": "Build parser", "status": "pending"}]}, "Todos updated")
t.call(
    "todo-write", {"todos": [{"content": "Build parser", "status": "in_progress"}]}, "Todos updated"
)
t.call(
    "write_file",
    {"path": "src/parser.ts", "content": "export function parse() {}"},
    "ok",
    mutates=True,
)
idx = []
for k in range(5):
    item = (
        {"status": "completed", "content": "Build parser"}
        if k % 2 == 0
        else {"content": "Build parser", "status": "completed"}
    )
    idx.append(t.call("todo-write", {"todos": [item]}, "Todos updated"))
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-patch-one-target-varied",
    "no_progress",
    True,
    ALLY_LOOP | {"case": "detects varied failed operations against the same semantic target"},
    "apply-patch on /repo/core.ts with a different hunk each time, each failing the same way "
    "(the peer flags the third failure against one target; here the second same failure).",
)
t.user("Fix the off-by-one in core.ts")
t.call("read", {"file_path": "/repo/core.ts"}, "for (let i = 0; i <= n; i++) {")
HUNKS12 = [
    "first attempted hunk",
    "materially different second hunk",
    "third attempted hunk",
    "fourth attempted hunk, context widened",
    "fifth attempted hunk",
    "sixth attempted hunk",
]
PFAIL12 = "apply-patch failed: hunk #1 does not match /repo/core.ts at line 40"
idx = [
    t.call(
        "apply-patch",
        {"file_path": "/repo/core.ts", "patch": h},
        error=PFAIL12,
        kind="exit_code",
    )
    for h in HUNKS12
]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-run-tests-after-two-edits",
    "no_progress",
    True,
    ALLY_LOOP | {"case": "detects failures issued together in one tool-call batch"},
    "run-tests fails, an edit, the same failure, another edit, the same failure again, and "
    "on: an edit that leaves a failure unchanged once is legitimate (fresh5), so the unit "
    "(edit, same failure) has happened twice at the third failure.",
)
t.user("Make the test suite pass")
RUN12 = {"command": "run-tests"}
RFAIL12 = "FAILED tests/test_cache.py::test_evict - AssertionError: 3 != 2\n1 failed, 41 passed"
t.call("Bash", RUN12, error=RFAIL12, kind="exit_code")
t.call("Bash", {"command": "edit-one"}, "edited src/cache.py", mutates=True)
t.call("Bash", RUN12, error=RFAIL12, kind="exit_code")
fr = t.call("Bash", {"command": "edit-two"}, "edited src/cache.py", mutates=True)
e = t.call("Bash", RUN12, error=RFAIL12, kind="exit_code")
for k in range(3, 6):
    t.call("Bash", {"command": f"edit-{k}"}, "edited src/cache.py", mutates=True)
    t.call("Bash", RUN12, error=RFAIL12, kind="exit_code")
t.mark(fr, e, period=2)

t = new(
    "f12-ally-same-patch-three-failures",
    "error_loop",
    True,
    ALLY_LOOP | {"case": "does not count a hypothetical fourth call after three recorded failures"},
    "The same patch sent again and again, failing the same way each time.",
)
t.user("Apply the review suggestion to handler.ts")
SAME12 = {"patch": "--- a/handler.ts\n+++ b/handler.ts\n@@ -3 +3 @@\n-  retry(1)\n+  retry(3)\n"}
idx = [
    t.call(
        "apply-patch",
        SAME12,
        error="apply-patch failed: context mismatch in handler.ts",
        kind="exit_code",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-failing-check-between-reads",
    "error_loop",
    True,
    ALLY_LOOP | {"case": "retains recurrent failures across unrelated intervening calls"},
    "The same failing check re-run between reads of other files (nothing edited): the "
    "failure recurs across the unrelated calls.",
)
t.user("Find out why the lint check fails")
LINT12 = {"command": "npm run lint"}
LERR12 = "src/api.ts:14:3 error 'token' is assigned a value but never used\n1 problem"
idx = []
for f in ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/e.ts"]:
    idx.append(t.call("Bash", LINT12, error=LERR12, kind="exit_code"))
    t.call("Read", {"file_path": f}, f"// {f}\nexport const x = 1;")
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-read-array-args",
    "repeated_call",
    True,
    ALLY_LOOP | {"case": "should handle array arguments in signature"},
    "Read with the same list of two files, the same contents each time.",
)
t.user("Compare a.ts and b.ts")
idx = [
    t.call(
        "Read",
        {"file_paths": ["/a.ts", "/b.ts"]},
        "=== /a.ts\nexport const a = 1;\n=== /b.ts\nexport const b = 2;",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-nested-object-args",
    "repeated_call",
    True,
    ALLY_LOOP | {"case": "should handle object arguments in signature"},
    "A tool whose argument is a nested object, called with the same object and answered the "
    "same, again and again.",
)
t.user("Apply config a=1 b=2 to the staging service")
idx = [
    t.call("Complex", {"config": {"a": 1, "b": 2}}, {"applied": False, "reason": "no change"})
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-empty-search-streak",
    "no_progress",
    True,
    ALLY_LOOP | {"case": "should detect consecutive empty search streak"},
    "Searches for one symbol spelt differently each time, all empty (the peer flags a streak "
    "of three empty searches; here the second empty answer for the same target).",
)
t.user("Find where the retry limit is configured")
idx = [
    t.call("Grep", {"pattern": p}, {"matches": []})
    for p in ["retryLimit", "retry_limit", "RetryLimit", "retry-limit", "retrylimit", "RETRY_LIMIT"]
]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-empty-args",
    "repeated_call",
    True,
    ALLY_LOOP | {"case": "should handle tool calls with empty arguments"},
    "A tool with no arguments called again and again with the same answer.",
)
t.user("What is the build status?")
idx = [t.call("Simple", {}, "status: idle") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-explore-plan-one-stream",
    "monologue",
    True,
    ALLY_LOOP | {"case": "should still detect repeated planning inside a single thought stream"},
    "One thought stream says the same plan three times in a row (a single message).",
)
t.user("Explore the repository and summarise the architecture")
_stuck(t, "\n".join(["Let me explore:\n1. Read the next relevant file."] * 3))

t = new(
    "f12-ally-repeated-question",
    "monologue",
    True,
    ALLY_THINK | {"case": "should detect same question asked 3+ times"},
    "The thinking asks the same question three times back to back in one message.",
)
t.user("The import fails on Windows only. Help?")
q = "What should I do about this problem?"
_stuck(t, f"{q} {q} {q}")

t = new(
    "f12-ally-repeated-action-db",
    "monologue",
    True,
    ALLY_THINK | {"case": 'should detect "I will" repeated 3+ times'},
    "The same intended action said three times in one message.",
)
t.user("The app cannot reach Postgres")
_stuck(t, " ".join(["I will check the database connection."] * 3))

t = new(
    "f12-ally-repeated-let-me",
    "monologue",
    True,
    ALLY_THINK | {"case": 'should detect "let me" action patterns'},
    "The same 'let me' statement three times in one message.",
)
t.user("Draft the requirements for the export feature")
_stuck(t, " ".join(["Let me analyze the requirements carefully."] * 3))

t = new(
    "f12-ally-reconsider-cycle",
    "monologue",
    True,
    ALLY_THINK | {"case": 'should detect "reconsider" patterns (2+ occurrences)'},
    "Reconstruction cycle: messages that reconsider the approach and land on the same plan "
    "each time (the peer counts two 'reconsider's in one stream; by this file's rules the "
    "unit, a reconsidered plan, has happened twice at the second message).",
)
t.user("Pick a caching strategy for the API")
idx = [
    t.msg(s)
    for s in [
        "Let me reconsider this approach. A write-through cache on the repository layer.",
        "After thinking, I should reconsider the solution. A write-through cache on the "
        "repository layer.",
        "Let me reconsider this once more. A write-through cache on the repository layer.",
        "I should reconsider the approach. A write-through cache on the repository layer.",
        "Reconsider: a write-through cache on the repository layer.",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f12-ally-go-back-cycle",
    "monologue",
    True,
    ALLY_THINK | {"case": 'should detect "go back to" patterns'},
    "The thinking goes back to the original idea, then to plan A, then back again: the same "
    "two plans alternating across messages.",
)
t.user("Should the importer stream or batch?")
idx = [
    t.msg(s)
    for s in [
        "Let me go back to the original idea: stream the rows one by one.",
        "No, I should go back to plan A: batch the rows in chunks of 1000.",
        "Let me go back to the original idea: stream the rows one by one.",
        "No, I should go back to plan A: batch the rows in chunks of 1000.",
        "Let me go back to the original idea: stream the rows one by one.",
        "No, I should go back to plan A: batch the rows in chunks of 1000.",
    ]
]
t.mark(idx[2], idx[3], period=2)

t = new(
    "f12-diligent-ls-three",
    "repeated_call",
    True,
    DILIGENT | {"case": "length-1: detects same call 3 times"},
    "bash ls three times and more with the same listing.",
)
t.user("What is in this directory?")
idx = [t.call("bash", {"command": "ls"}, "README.md\npackage.json\nsrc") for _ in range(4)]
t.mark(idx[1], idx[1])

t = new(
    "f12-diligent-ab-cycle",
    "cycle",
    True,
    DILIGENT | {"case": "length-2: detects A-B-A-B-A-B pattern"},
    "ls and a read of /tmp alternating with the same results.",
)
t.user("Check what the build left in /tmp")
o = repeat_block(
    t,
    [
        {"tool": "bash", "args": {"command": "ls"}, "result": "README.md\nsrc"},
        {"tool": "read", "args": {"path": "/tmp"}, "result": "build.log\ncache"},
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f12-diligent-abc-cycle",
    "cycle",
    True,
    DILIGENT | {"case": "length-3: detects A-B-C-A-B-C-A-B-C pattern"},
    "ls, read /a, write /b with the same content, round after round.",
)
t.user("Copy the settings from /a into /b")
o = repeat_block(
    t,
    [
        {"tool": "bash", "args": {"command": "ls"}, "result": "a\nb"},
        {"tool": "read", "args": {"path": "/a"}, "result": "mode=fast\nlevel=3"},
        {
            "tool": "write",
            "args": {"path": "/b", "content": "mode=fast\nlevel=3"},
            "result": "wrote 18 bytes",
            "mutates": True,
        },
    ],
    3,
)
mark_cycle(t, o)

t = new(
    "f12-diligent-loop-after-unique",
    "repeated_call",
    True,
    DILIGENT | {"case": "window limits stored signatures"},
    "Ten different commands, then one command repeated with the same output.",
)
t.user("Run the checks and report")
for i in range(10):
    t.call("bash", {"command": f"make check-{i}"}, f"check-{i}: ok")
idx = [
    t.call("bash", {"command": "make loop"}, "waiting for lock on build/.lock") for _ in range(4)
]
t.mark(idx[1], idx[1])

t = new(
    "f12-diligent-loop-then-break",
    "repeated_call",
    True,
    DILIGENT | {"case": "no false positive after breaking the pattern"},
    "ls three times with the same listing, then a read: the loop happened before the break.",
)
t.user("Look around the project")
idx = [t.call("bash", {"command": "ls"}, "README.md\nsrc\ntests") for _ in range(3)]
t.call("read", {"path": "/tmp"}, "build.log")
t.mark(idx[1], idx[1])

t = new(
    "f12-diligent-fail-later",
    "error_loop",
    True,
    DILIGENT | {"case": "detects loop in later calls (not just from start)"},
    "A read and a write, then one command failing the same way again and again.",
)
t.user("Deploy the site")
t.call("read", {"path": "/a"}, "deploy.sh")
t.call("write", {"path": "/b", "content": "target=prod"}, "ok", mutates=True)
idx = [
    t.call(
        "bash",
        {"command": "./deploy.sh"},
        error="deploy.sh: line 4: rsync: command not found",
        kind="exit_code",
    )
    for _ in range(4)
]
t.mark(idx[1], idx[1])

t = new(
    "f12-llm7shi-sentence-twenty",
    "monologue",
    True,
    LLM7SHI | {"case": "test_detect_repetition_formula (pattern length >= 21, 20 repetitions)"},
    "An answer whose end is one 40-character sentence twenty times over.",
)
t.user("Is the output file correct?")
_stuck(t, "I checked the first rows. " + "I will now verify the output once more. " * 20)

t = new(
    "f12-llm7shi-counter-quasi",
    "monologue",
    True,
    LLM7SHI | {"case": "test_detect_quasi_repetition_basic"},
    "An answer stuck on one step, a counter between the copies (quasi-repetition).",
)
t.user("List the steps to migrate the database")
_stuck(
    t,
    "Here is the plan. "
    + " ".join(f"Step {i}: back up the database before continuing." for i in range(1, 61)),
)

t = new(
    "f12-llm7shi-char-run",
    "monologue",
    True,
    LLM7SHI | {"case": "test_detect_repetition_mixed_content"},
    "Normal text, then a single character repeated 340 times to the end (degenerate output).",
)
t.user("Write a short greeting for the newsletter")
_stuck(t, "This is normal text. " + "x" * 340)

t = new(
    "f12-llm7shi-ten-char-unit",
    "monologue",
    True,
    LLM7SHI | {"case": "test_detect_repetition_basic (ten characters, 36 repetitions)"},
    "An answer that ends in one short phrase repeated 60 times.",
)
t.user("Summarise the incident")
_stuck(t, "The outage lasted 12 minutes. " + "and then " * 60)

t = new(
    "f12-lip-kiro-chant",
    "monologue",
    True,
    LIP | {"case": "test_example1_kiro_loop_detection"},
    "A documentation answer chanting one phrase twelve times.",
)
t.user("Where are the Kiro docs?")
_stuck(t, "Kiro docs are available. " * 12)

t = new(
    "f12-lip-platinum-chant",
    "monologue",
    True,
    LIP | {"case": "test_example2_platinum_futures_loop_detection"},
    "A market-data answer chanting one phrase twelve times.",
)
t.user("Tell me about CME platinum futures")
_stuck(t, "CME Platinum Futures info. " * 12)

# ---- fresh12 legitimate

t = new(
    "f12-ally-patch-fails-then-applies",
    "retry_transient",
    False,
    ALLY_LOOP | {"case": "clears prior failures when the identical call succeeds"},
    "apply-patch times out, the same patch is sent again and applies; work goes on.",
)
t.user("Apply the patch from the review")
P12 = {"patch": "same patch"}
t.call("apply-patch", P12, error="apply-patch timed out after 30s", kind="timeout")
t.call("apply-patch", P12, "Applied 1 hunk to src/review.ts", mutates=True)
t.call("Bash", {"command": "run-tests"}, "42 passed")
t.msg("The patch is applied and the tests pass.")

t = new(
    "f12-ally-patches-different-targets",
    "edit_test_cycle",
    False,
    ALLY_LOOP | {"case": "does not combine failures against different targets"},
    "Patches to three different files each fail their own way; each is fixed in turn.",
)
t.user("Apply the three review fixes")
for f, err in [
    ("/repo/a.ts", "hunk #1 does not match /repo/a.ts at line 8"),
    ("/repo/b.ts", "/repo/b.ts: no such file (renamed to b.tsx?)"),
    ("/repo/c.ts", "hunk #2 overlaps hunk #1 in /repo/c.ts"),
]:
    t.call("apply-patch", {"file_path": f, "patch": f"fix for {f}"}, error=err, kind="exit_code")
t.call("read", {"file_path": "/repo/a.ts"}, "const limit = 10;")
t.call(
    "apply-patch",
    {"file_path": "/repo/a.ts", "patch": "fix for a, new context"},
    "applied",
    mutates=True,
)
t.call("apply-patch", {"file_path": "/repo/b.tsx", "patch": "fix for b"}, "applied", mutates=True)
t.call(
    "apply-patch",
    {"file_path": "/repo/c.ts", "patch": "fix for c, one hunk"},
    "applied",
    mutates=True,
)
t.msg("All three fixes are in.")

t = new(
    "f12-ally-grep-twice",
    "research",
    False,
    ALLY_LOOP | {"case": "should not detect cycles below threshold"},
    "The same Grep twice (a check after reading), then the work moves on.",
)
t.user("Rename foo to fooBar everywhere")
t.call("Grep", GREP12, GREP12_OUT)
t.call("Read", {"file_path": "/src/util.ts"}, "export function foo(x: number) { return x + 1; }")
t.call("Grep", GREP12, GREP12_OUT)
t.call("Edit", {"file_path": "/src/util.ts", "old": "foo(", "new": "fooBar("}, "ok", mutates=True)
t.call("Grep", {"pattern": "fooBar", "path": "/src"}, "/src/util.ts:12: export function fooBar(")
t.msg("Renamed.")

t = new(
    "f12-ally-grep-different-patterns",
    "distinct_reads",
    False,
    ALLY_LOOP | {"case": "should treat different arguments as different calls"},
    "Grep for three different symbols, each with its own matches.",
)
t.user("Where are foo, bar and baz used?")
for p in ["foo", "bar", "baz"]:
    t.call("Grep", {"pattern": p, "path": "/src"}, f"/src/{p}.ts:1: export const {p} = 1;")
t.msg("Each is defined in its own module.")

t = new(
    "f12-ally-reread-once",
    "distinct_reads",
    False,
    ALLY_LOOP | {"case": "should track different files separately"},
    "a.ts, b.ts, then a.ts again to compare: one re-read.",
)
t.user("Do a.ts and b.ts export the same names?")
t.call("Read", {"file_path": "/test/a.ts"}, "export { x, y }")
t.call("Read", {"file_path": "/test/b.ts"}, "export { x, z }")
t.call("Read", {"file_path": "/test/a.ts"}, "export { x, y }")
t.msg("No: a.ts exports y, b.ts exports z.")

t = new(
    "f12-ally-empty-then-found",
    "research",
    False,
    ALLY_LOOP | {"case": "should reset empty streak on successful search"},
    "Two searches find nothing, the third finds the symbol; the work goes on.",
)
t.user("Find the retry policy")
t.call("Grep", {"pattern": "RetryPolicy"}, {"matches": []})
t.call("Grep", {"pattern": "backoff"}, {"matches": []})
t.call("Grep", {"pattern": "maxAttempts"}, {"matches": ["src/http/client.ts:33: maxAttempts: 5"]})
t.call("Read", {"file_path": "src/http/client.ts"}, "const maxAttempts = 5; // exponential")
t.msg("Retries are configured in src/http/client.ts (maxAttempts 5).")

t = new(
    "f12-ally-twenty-indexed-calls",
    "distinct_reads",
    False,
    ALLY_LOOP | {"case": "should respect maximum history size"},
    "Twenty calls of one tool on indices 0-19, each answering its own record.",
)
t.user("Dump records 0 to 19")
for i in range(20):
    t.call("Tool", {"index": i}, {"id": i, "name": f"record-{i:02d}", "size": 100 + 7 * i})
t.msg("Twenty records dumped.")

t = new(
    "f12-ally-explore-across-streams",
    "research",
    False,
    ALLY_LOOP | {"case": "should not detect repeated planning across completed thought streams"},
    "The same planning thought before each read, each read a different file: completed "
    "thought streams are not one repeated stream.",
)
t.user("Explore the repository and summarise the architecture")
for f in ["src/index.ts", "src/router.ts", "src/db.ts"]:
    t.call(
        "Read",
        {"file_path": f},
        f"// {f}\nexport default {{}}",
        thought="Let me explore:\n1. Read the next relevant file.",
    )
t.msg("index.ts wires the router; router.ts maps routes; db.ts wraps the pool.")

t = new(
    "f12-ally-why-short",
    "conversation",
    False,
    ALLY_THINK | {"case": "should filter short questions (< 10 chars)"},
    "A message of five short 'Why?'s: too short to be a repeated question.",
)
t.user("Explain the five whys technique")
t.msg("Why? Why? Why? Why? Why?")

t = new(
    "f12-ally-i-will-go",
    "conversation",
    False,
    ALLY_THINK | {"case": "should filter short actions (< 15 chars)"},
    "A short phrase four times in one message, too short to count as a repeated action.",
)
t.user("Give me a chant for the team run")
t.msg("I will go. I will go. I will go. I will go.")

t = new(
    "f12-ally-two-different-actions",
    "conversation",
    False,
    ALLY_THINK | {"case": "should NOT trigger below threshold (2 occurrences)"},
    "Two different 'I will' statements in one message.",
)
t.user("How will you start the refactor?")
t.msg("I will start with step one. I will begin with the basics.")

t = new(
    "f12-ally-reconsider-once",
    "conversation",
    False,
    ALLY_THINK | {"case": "should NOT trigger below threshold (1 occurrence)"},
    "One 'reconsider', then the agent proceeds.",
)
t.user("Should we keep the REST endpoint?")
t.msg("Let me reconsider this approach once. Then I will proceed: keep REST, add a GraphQL facade.")

t = new(
    "f12-ally-question-twice",
    "conversation",
    False,
    ALLY_THINK | {"case": "should NOT trigger below threshold (2 occurrences)"},
    "The same question twice in one message (rhetorical), then an answer.",
)
t.user("Why does the import fail on Windows?")
t.msg(
    "What should I do about this problem? What should I do about this problem? First, the "
    "path separator: the loader joins with '/', so use path.join."
)

t = new(
    "f12-diligent-ls-twice",
    "distinct_reads",
    False,
    DILIGENT | {"case": "no detection with insufficient calls"},
    "ls twice (the same listing), then an answer.",
)
t.user("What is in this directory?")
t.call("bash", {"command": "ls"}, "README.md\nsrc")
t.call("bash", {"command": "ls"}, "README.md\nsrc")
t.msg("A README and a src folder.")

t = new(
    "f12-diligent-different-commands",
    "distinct_reads",
    False,
    DILIGENT | {"case": "length-1: different inputs are not a loop"},
    "ls, pwd and date: one tool, three commands.",
)
t.user("Where am I and what time is it?")
t.call("bash", {"command": "ls"}, "README.md\nsrc")
t.call("bash", {"command": "pwd"}, "/home/dev/site")
t.call("bash", {"command": "date"}, "Thu Dec  3 10:52:01 UTC 2026")
t.msg("In /home/dev/site, 10:52 UTC.")

t = new(
    "f12-diligent-many-unique",
    "distinct_reads",
    False,
    DILIGENT | {"case": "window limits stored signatures (no detection over unique calls)"},
    "Ten different commands in a row, each with its own output.",
)
t.user("Run every check")
for i in range(10):
    t.call("bash", {"command": f"cmd-{i}"}, f"cmd-{i}: {i * 3} items ok")
t.msg("All ten checks pass.")

t = new(
    "f12-llm7shi-run-mid-text",
    "conversation",
    False,
    LLM7SHI | {"case": "test_detect_repetition_mixed_content (middle repetition)"},
    "A run of 340 equal characters in the middle of an answer that then goes on: "
    "repetition that does not reach the end is not a loop.",
)
t.user("Show me the fixture for the padding test")
t.msg("a" * 340 + " is the padded field; the parser must strip it and keep the different text.")

t = new(
    "f12-llm7shi-hello-57",
    "conversation",
    False,
    LLM7SHI | {"case": "test_detect_repetition_mixed_content (6 chars, 57 repetitions)"},
    "A greeting said 57 times at the user's request: below the 58 a six-character unit needs.",
)
t.user("Say hello 57 times")
t.msg("hello " * 57)

t = new(
    "f12-llm7shi-abcdef-57",
    "conversation",
    False,
    LLM7SHI | {"case": "test_detect_quasi_repetition_gap_boundary"},
    "A fixture string quoted in an answer: 'abcdef' 57 times, too few for its length.",
)
t.user("Give me the 342-character test string")
t.msg("abcdef" * 57)

t = new(
    "f12-llm7shi-ten-steps",
    "conversation",
    False,
    LLM7SHI | {"case": "test_detect_quasi_repetition_not_enough_reps"},
    "Ten numbered occurrences of one short word with a counter: too few to be stuck.",
)
t.user("Label the ten test rows")
t.msg("foo" + "".join(f"{i}foo" for i in range(1, 10)))

t = new(
    "f12-lip-normal-streaming",
    "conversation",
    False,
    LIP | {"case": "test_streaming_loop_detection_example1"},
    "A streamed answer of one sentence ten times, which the proxy's test keeps uncancelled "
    "(its threshold is six 40-character chunks).",
)
t.user("Send me ten lines of sample stream content")
t.msg("This is normal streaming content. " * 10)

t = new(
    "f12-lip-normal-doc",
    "conversation",
    False,
    LIP | {"case": "test_example3_no_loop_false_positive_check"},
    "A long, normal markdown answer with headings and similar list items: no loop.",
)
t.user("Document the deployment process")
t.msg(
    "# Deployment\n\n## Build\n\n- Run `npm ci` to install dependencies.\n- Run `npm run build` "
    "to produce the bundle in `dist/`.\n- Run `npm test` to check the bundle.\n\n## Release\n\n"
    "- Tag the commit with the version number.\n- Push the tag; CI builds the image.\n- CI "
    "pushes the image to the registry.\n\n## Rollout\n\n- Apply the manifest to staging.\n- "
    "Watch the rollout until every pod is ready.\n- Apply the manifest to production.\n- Watch "
    "the rollout until every pod is ready.\n\n## Rollback\n\n- Re-apply the previous manifest.\n"
    "- Watch the rollout until every pod is ready.\n- Open an incident note with the cause.\n"
)


# ================================================================ fresh13 set
# Written at 11:30 UTC (Dec 3) from the test suites of agent frameworks' own loop guards and
# limits no earlier split uses (checked against every `source` of the file): Kilo Code's
# ToolRepetitionDetector spec (the cases Roo Code's copy in fresh2 did not take: default and
# custom limits, resets, alias serialisation, scroll exemptions, interspersed calls, a
# missing action), Cline's consecutiveMistakeCount tests (replace_in_file retries, resets
# after a success, missing parameters), openai-agents-python's max_turns tests, smolagents'
# CodeAgent tests (max_steps, reset runs, a syntax error), mini-swe-agent's DefaultAgent
# tests (format errors, timeouts, cost and step limits), CrewAI's agent tests (repeated tool
# usage, a ten-step task), AutoGen's termination-condition tests (message counts, repeated
# "Hello"s) and Aider's edit-format reflection reports (#942, #1440). Each case, positive or
# negative, is one trajectory with the label its test asserts; where a peer's threshold
# differs from this file's label rules (earliest: the unit has fully happened twice), the
# rules decide and the note says so. Committed before crs was run on them. Split "fresh13".

FRESH13_START = len(ALL)
KILO = {
    "repo": "mschulkind/kilocode",
    "path": "src/core/tools/__tests__/ToolRepetitionDetector.spec.ts",
}
CLINE_MISTAKES = {
    "repo": "cline/cline",
    "path": "src/core/task/tools/handlers/__tests__/"
    "WriteToFileToolHandler.consecutiveMistakeCount.test.ts",
}
CLINE_NOTFOUND = {
    "repo": "cline/cline",
    "path": "src/core/task/tools/handlers/__tests__/ReadFileToolHandler.fileNotFound.test.ts",
}
OAI_TURNS = {"repo": "openai/openai-agents-python", "path": "tests/test_max_turns.py"}
SMOL = {"repo": "huggingface/smolagents", "path": "tests/test_agents.py"}
MSWEA = {"repo": "SWE-agent/mini-swe-agent", "path": "tests/agents/test_default.py"}
CREW = {"repo": "crewAIInc/crewAI", "path": "tests/agent_test.py"}
AUTOGEN_TERM = {
    "repo": "microsoft/autogen",
    "path": "python/packages/autogen-agentchat/tests/test_termination_condition.py",
}
MSWEA_FMT = (
    "Please always provide EXACTLY ONE action in triple backticks, found 0 actions. If you "
    "want to end the task, echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT."
)

# ---- fresh13 loops


def _again(
    t: T, times: int, tool: str, args: dict[str, Any], result: Any = None, **kw: Any
) -> None:
    """The same call `times` times with the same outcome; the unit has happened twice at the
    second (`first_repeat` and `earliest` there)."""
    idx = [t.call(tool, args, result, **kw) for _ in range(times)]
    t.mark(idx[1], idx[1])


t = new(
    "f13-kilo-default-limit-list-files",
    "repeated_call",
    True,
    KILO | {"case": "should default to a limit of 3 if no argument provided"},
    "list_files on the same folder with the same listing, again and again (the peer blocks "
    "the fourth identical call; by this file's rules the unit has happened twice at the "
    "second).",
)
t.user("Set up the project structure for the CLI")
idx = [
    t.call("list_files", {"path": "src", "recursive": "false"}, "src/index.ts\nsrc/cli.ts")
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f13-kilo-custom-limit-search",
    "repeated_call",
    True,
    KILO | {"case": "should require reaching the limit again after reset"},
    "The same search_files with the same matches, six times: the peer blocks the third, "
    "resets and blocks the sixth again.",
)
t.user("List every TODO in src")
_again(
    t,
    6,
    "search_files",
    {"path": "src", "regex": "TODO"},
    "src/cli.ts:14: // TODO parse --verbose\nsrc/io.ts:3: // TODO stream output",
)

t = new(
    "f13-kilo-alias-identical-serialisation",
    "cycle",
    True,
    KILO | {"case": "should handle different tool names with identical serialized JSON"},
    "One file read through two names of the same tool (the built-in and its MCP alias), "
    "alternating, the same content each time: a period-2 cycle.",
)
t.user("What does config.json set for the port?")
o = repeat_block(
    t,
    [
        {"tool": "read_file", "args": {"param": "config.json"}, "result": '{"port": 8080}'},
        {
            "tool": "mcp__fs__read_file",
            "args": {"param": "config.json"},
            "result": '{"port": 8080}',
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f13-kilo-limit-one-followup",
    "repeated_call",
    True,
    KILO | {"case": "should allow the 1st call but block on the 2nd call for limit 1"},
    "The same follow-up question asked of the user again and again, answered the same way.",
)
t.user("Add a dark mode toggle")
Q13 = {"question": "Should the toggle live in the header or in the settings page?"}
_again(t, 5, "ask_followup_question", Q13, "<answer>In the header.</answer>")

t = new(
    "f13-kilo-limit-five-click",
    "repeated_call",
    True,
    KILO | {"case": "should handle different limits correctly"},
    "The same browser click with the same unchanged page, seven times (the peer's limit of "
    "five blocks the sixth; here the second same answer).",
)
t.user("Submit the signup form on localhost:3000")
t.call("browser_action", {"action": "launch", "url": "http://localhost:3000/signup"}, "page loaded")
_again(
    t,
    7,
    "browser_action",
    {"action": "click", "coordinate": "450,300"},
    "screenshot: signup form, fields empty; console: (no new logs)",
)

t = new(
    "f13-kilo-click-still-counted",
    "repeated_call",
    True,
    KILO | {"case": "should still apply repetition detection to other browser_action types"},
    "Scrolls are exempt, clicks are not: the same click at [100, 200] with the same page.",
)
t.user("Open the pricing page")
_again(
    t,
    5,
    "browser_action",
    {"action": "click", "coordinate": "[100, 200]"},
    "screenshot: landing page; the pricing link did not respond",
)

t = new(
    "f13-kilo-ls-between-scrolls",
    "repeated_call",
    True,
    KILO
    | {
        "case": "should not interfere with repetition detection of other tools when scroll "
        "actions are interspersed"
    },
    "execute_command ls with the same listing, with scrolls of a docs page (new content each "
    "time) in between: the repeated ls is still one call repeated.",
)
t.user("Follow the install guide in the browser and check the project files")
LS13 = {"command": "ls"}
LS13_OUT = "package.json\nREADME.md\nsrc"
a = t.call("execute_command", LS13, LS13_OUT)
t.call("browser_action", {"action": "scroll_down"}, "screenshot: install guide, step 1 of 6")
t.call("browser_action", {"action": "scroll_down"}, "screenshot: install guide, step 2 of 6")
b = t.call("execute_command", LS13, LS13_OUT)
t.call("browser_action", {"action": "scroll_down"}, "screenshot: install guide, step 3 of 6")
t.call("execute_command", LS13, LS13_OUT)
t.call("browser_action", {"action": "scroll_down"}, "screenshot: install guide, step 4 of 6")
t.call("execute_command", LS13, LS13_OUT)
t.call("execute_command", LS13, LS13_OUT)
t.mark(b, b)

t = new(
    "f13-kilo-browser-missing-action",
    "error_loop",
    True,
    KILO
    | {"case": "should handle browser_action with missing or invalid action parameter gracefully"},
    "browser_action with no action, failing the same way each time.",
)
t.user("Take a screenshot of the dashboard")
_again(
    t,
    5,
    "browser_action",
    {},
    error="Missing value for required parameter 'action'. Please retry with complete response.",
    kind="invalid_args",
)

t = new(
    "f13-cline-replace-in-file-retries",
    "error_loop",
    True,
    CLINE_MISTAKES
    | {"case": "should accumulate failures across multiple retry attempts (bug fix verification)"},
    "replace_in_file with the same SEARCH block, failing to match each time (the peer stops "
    "at three consecutive mistakes; here the second same failure).",
)
t.user("Rename fetchUser to loadUser in api.ts")
t.call("read_file", {"path": "src/api.ts"}, "export async function fetchUser(id: string) {")
DIFF13 = {
    "path": "src/api.ts",
    "diff": "------- SEARCH\nexport function fetchUser(id) {\n=======\n"
    "export function loadUser(id) {\n+++++++ REPLACE",
}
_again(
    t,
    5,
    "replace_in_file",
    DIFF13,
    error="The SEARCH block:\nexport function fetchUser(id) {\n...does not match anything "
    "in the file.",
    kind="exit_code",
)

t = new(
    "f13-cline-failures-after-success",
    "error_loop",
    True,
    CLINE_MISTAKES | {"case": "should handle mixed success and failure scenarios"},
    "Two failed edits, a successful one (the counter resets), then one edit failing the same "
    "way three times in a row.",
)
t.user("Update the copyright year in the three headers")
t.call(
    "replace_in_file",
    {"path": "src/a.ts", "diff": "SEARCH // (c) 2024 => REPLACE // (c) 2026"},
    error="The SEARCH block does not match anything in the file.",
    kind="exit_code",
)
t.call(
    "replace_in_file",
    {"path": "src/a.ts", "diff": "SEARCH // Copyright 2024 => REPLACE // Copyright 2026"},
    error="The SEARCH block does not match anything in the file.",
    kind="exit_code",
)
t.call(
    "replace_in_file",
    {"path": "src/a.ts", "diff": "SEARCH // Copyright 2025 => REPLACE // Copyright 2026"},
    "Changes applied to src/a.ts",
    mutates=True,
)
B13 = {"path": "src/b.ts", "diff": "SEARCH // Copyright 2025 => REPLACE // Copyright 2026"}
_again(
    t,
    4,
    "replace_in_file",
    B13,
    error="The SEARCH block does not match anything in src/b.ts.",
    kind="exit_code",
)

t = new(
    "f13-cline-missing-diff-param",
    "error_loop",
    True,
    CLINE_MISTAKES
    | {"case": "should increment when diff parameter is missing for replace_in_file"},
    "replace_in_file sent without its diff again and again, the same missing-parameter "
    "error each time.",
)
t.user("Fix the typo in the README title")
_again(
    t,
    5,
    "replace_in_file",
    {"path": "README.md"},
    error="Missing value for required parameter 'diff'. Please retry with complete response.",
    kind="invalid_args",
)

t = new(
    "f13-cline-ghost-path-reread",
    "error_loop",
    True,
    CLINE_NOTFOUND | {"case": "the thrown error can be caught and wrapped as a tool error"},
    "The error reaches the model instead of crashing; here the model reads the same "
    "hallucinated path again and again and gets the same not-found error.",
)
t.user("Explain what utils/parse_flags.py does")
_again(
    t,
    5,
    "read_file",
    {"path": "utils/parse_flags.py"},
    error="Error reading file: File not found: /repo/utils/parse_flags.py",
    kind="not_found",
)

t = new(
    "f13-oai-max-turns-same-call",
    "repeated_call",
    True,
    OAI_TURNS | {"case": "test_non_streamed_max_turns"},
    "Each turn says a new number beside the same some_function call with the same output "
    "(the peer stops at max_turns=3; here the second identical call and result).",
)
t.user("user_message")
idx = [t.call("some_function", {"a": "b"}, "result", thought=str(k)) for k in range(1, 6)]
t.mark(idx[1], idx[1])

t = new(
    "f13-oai-structured-output-no-args",
    "repeated_call",
    True,
    OAI_TURNS | {"case": "test_structured_output_non_streamed_max_turns"},
    "An agent with a structured output type calls tool_1 with no arguments every turn and "
    "never returns the output.",
)
t.user("user_message")
_again(t, 5, "tool_1", {}, "result")

t = new(
    "f13-smol-fails-max-steps",
    "repeated_call",
    True,
    SMOL | {"case": "test_fails_max_steps"},
    "A code agent whose model never returns a final answer runs the same snippet with the "
    "same output step after step until max_steps=5.",
)
t.user("What is 2 multiplied by 3.6452?")
CODE13 = {"code": "result = 2 * 3.6452\nprint(result)"}
_again(t, 5, "python_interpreter", CODE13, "Stdout:\n7.2904\nOutput: None")

t = new(
    "f13-mswea-same-command-cost-limit",
    "repeated_call",
    True,
    MSWEA | {"case": "test_cost_limit_enforcement"},
    "A deterministic model answers the same echo every step, until the cost limit stops it "
    "(the limit counts dollars, not repeats; here the second identical step).",
)
t.user("Test cost limit")
_again(
    t, 5, "bash", {"command": "echo 'test'"}, "<returncode>0</returncode>\n<output>test\n</output>"
)

t = new(
    "f13-mswea-no-action-repeated",
    "monologue",
    True,
    MSWEA | {"case": "test_model_parse_actions_failures (no code blocks)"},
    "The model answers with no action block each time, and the framework's format reminder "
    "comes back as the next user message; the same reply to the same reminder.",
)
t.user("Fix the failing test in tests/test_io.py")
idx = []
for _ in range(5):
    idx.append(t.msg("I will look into the failing test and fix it."))
    t.user(MSWEA_FMT)
t.mark(idx[1], idx[1])

t = new(
    "f13-crewai-repeated-tool-usage",
    "repeated_call",
    True,
    CREW | {"case": "test_agent_repeated_tool_usage"},
    "get_final_answer() again and again: 42, then the framework's note that the same input "
    "was reused, each time (the unit with the same answer has happened twice at the third "
    "call).",
)
t.user("The final answer is 42. But don't give it until I tell you so, keep using the tool.")
REUSE13 = (
    "I tried reusing the same input, I must stop using this action input. I'll try something "
    "else instead."
)
idx = [t.call("get_final_answer", {}, 42)]
idx += [t.call("get_final_answer", {}, REUSE13) for _ in range(4)]
t.mark(idx[2], idx[2])

t = new(
    "f13-autogen-three-hellos",
    "monologue",
    True,
    AUTOGEN_TERM | {"case": "test_or_termination (three 'Hello' messages)"},
    "An assistant greets again and again with no tool call; the team's MaxMessageTermination(3) "
    "stops it at the third (here the second same message).",
)
t.user("Hi")
idx = [t.msg("Hello! How can I help you today?") for _ in range(4)]
t.mark(idx[1], idx[1])

t = new(
    "f13-aider-search-replace-repeats",
    "error_loop",
    True,
    gh("Aider-AI/aider", "issues", 942),
    "The same SEARCH/REPLACE block sent again after each 'did not conform to the edit "
    "format' reflection, failing the same way (aider allows three reflections).",
)
t.user("Use a dataclass for Config in settings.py")
EDIT13 = {
    "file": "settings.py",
    "search": "class Config:\n    def __init__(self, debug=False):",
    "replace": "@dataclass\nclass Config:\n    debug: bool = False",
}
_again(
    t,
    4,
    "search_replace",
    EDIT13,
    error="The LLM did not conform to the edit format.\n# 1 SEARCH/REPLACE block failed "
    "to match!\nSearchReplaceNoExactMatch: This SEARCH block failed to exactly match "
    "lines in settings.py",
    kind="exit_code",
)

t = new(
    "f13-aider-reflections-exhausted-reworded",
    "no_progress",
    True,
    gh("Aider-AI/aider", "issues", 1440),
    "Three reflections each send a reworded SEARCH block for the same lines, each failing "
    "to match the same way, until 'Only 3 reflections allowed, stopping.'",
)
t.user("Add a --dry-run flag to the menu builder")
for k, srch in enumerate(
    [
        "def build(menu):\n    items = load()",
        "def build(menu):\n  items = load()",
        "def build(menu) :\n    items = load()",
        "def build(menu):\n    items=load()",
    ]
):
    i = t.call(
        "search_replace",
        {"file": "menu/builder.py", "search": srch, "replace": srch + "  # dry_run"},
        error="The LLM did not conform to the edit format.\n# 1 SEARCH/REPLACE block failed "
        "to match!\nSearchReplaceNoExactMatch: This SEARCH block failed to exactly match "
        "lines in menu/builder.py",
        kind="exit_code",
    )
    if k == 1:
        t.mark(i, i)

# ---- fresh13 legitimate

t = new(
    "f13-kilo-different-tools",
    "distinct_reads",
    False,
    KILO | {"case": "should allow execution for different tool calls"},
    "Three different tools in a row, each with its own answer.",
)
t.user("Get oriented in this repository")
t.call("list_files", {"path": "."}, "package.json\nsrc\ntests")
t.call("read_file", {"path": "package.json"}, '{"name": "cli", "scripts": {"test": "vitest"}}')
t.call("execute_command", {"command": "npm test"}, "Test Files 4 passed (4)")
t.msg("A TypeScript CLI with vitest; the four test files pass.")

t = new(
    "f13-kilo-reset-by-other-call",
    "distinct_reads",
    False,
    KILO | {"case": "should reset the counter when different tool calls are made"},
    "A read, another file's read, then the first file again to compare: one re-read.",
)
t.user("Do the two configs agree on the timeout?")
t.call("read_file", {"path": "config/dev.json"}, '{"timeout": 30}')
t.call("read_file", {"path": "config/prod.json"}, '{"timeout": 60}')
t.call("read_file", {"path": "config/dev.json"}, '{"timeout": 30}')
t.msg("No: dev uses 30 s, prod 60 s.")

t = new(
    "f13-kilo-scroll-up-long-page",
    "distinct_reads",
    False,
    KILO | {"case": "should not count browser scroll_up actions as repetitions"},
    "Ten scroll_up actions back through a long changelog, each showing an earlier section.",
)
t.user("Find when the --json flag was added; start from the bottom of the changelog")
t.call("browser_action", {"action": "launch", "url": "http://localhost:8000/CHANGELOG"}, "v0.1.0")
for k in range(10):
    t.call(
        "browser_action",
        {"action": "scroll_up"},
        f"screenshot: changelog section v0.{k + 2}.0 ({3 + k % 4} entries)",
    )
t.msg("--json arrived in v0.7.0.")

t = new(
    "f13-kilo-zero-limit-distinct-steps",
    "distinct_reads",
    False,
    KILO | {"case": "should never block when limit is 0 (unlimited)"},
    "With the guard off, ten execute_command calls that each run a different migration step "
    "with its own output: nothing to block in the first place.",
)
t.user("Run the ten migrations one by one")
for k in range(10):
    t.call(
        "execute_command",
        {"command": f"npm run migrate -- --step {k + 1}"},
        f"migration {k + 1:03d}_step applied ({2 + k} statements)",
        mutates=True,
    )
t.msg("All ten migrations applied.")

t = new(
    "f13-cline-reset-after-success",
    "edit_test_cycle",
    False,
    CLINE_MISTAKES
    | {"case": "should reset counter and allow new operations after successful operation"},
    "Two different failed edits, the file re-read, a successful edit, then one failure on "
    "another file fixed at once.",
)
t.user("Replace the deprecated logger calls")
t.call(
    "replace_in_file",
    {"path": "src/log.ts", "diff": "SEARCH log.warn( => REPLACE logger.warn("},
    error="The SEARCH block does not match anything in the file.",
    kind="exit_code",
)
t.call(
    "replace_in_file",
    {"path": "src/log.ts", "diff": "SEARCH console.warn( => REPLACE logger.warn("},
    error="The SEARCH block does not match anything in the file.",
    kind="exit_code",
)
t.call("read_file", {"path": "src/log.ts"}, "export const warn = (m) => oldLog.warn(m)")
t.call(
    "replace_in_file",
    {"path": "src/log.ts", "diff": "SEARCH oldLog.warn( => REPLACE logger.warn("},
    "Changes applied to src/log.ts",
    mutates=True,
)
t.call(
    "replace_in_file",
    {"path": "src/app.ts", "diff": "SEARCH oldLog.info( => REPLACE logger.info("},
    error="The SEARCH block does not match anything in the file.",
    kind="exit_code",
)
t.call(
    "replace_in_file",
    {"path": "src/app.ts", "diff": "SEARCH oldLog.debug( => REPLACE logger.debug("},
    "Changes applied to src/app.ts",
    mutates=True,
)
t.msg("Both files use the new logger.")

t = new(
    "f13-cline-ghost-path-recovered",
    "research",
    False,
    CLINE_NOTFOUND | {"case": "extractFileContent throws on a non-existent path"},
    "A hallucinated path fails with not-found once; the model lists the folder and reads the "
    "right file.",
)
t.user("Explain what the flag parser does")
t.call(
    "read_file",
    {"path": "utils/parse_flags.py"},
    error="Error reading file: File not found: /repo/utils/parse_flags.py",
    kind="not_found",
)
t.call("list_files", {"path": "utils"}, "flags.py\n__init__.py")
t.call("read_file", {"path": "utils/flags.py"}, "def parse(argv): ...  # splits --key=value")
t.msg("utils/flags.py splits --key=value pairs into a dict.")

t = new(
    "f13-oai-resume-final-turn",
    "research",
    False,
    OAI_TURNS | {"case": "test_max_turns_resume_runs_final_turn"},
    "some_function twice with the same output, the turn limit hit, then the run resumed "
    "with 'Finish without tools.' and a final answer.",
)
t.user("user_message")
t.call("some_function", {"a": "b"}, "result", thought="1")
t.call("some_function", {"a": "b"}, "result", thought="2")
t.user("Finish without tools.")
t.msg("final answer")

t = new(
    "f13-oai-resume-default-prompt",
    "research",
    False,
    OAI_TURNS | {"case": "test_max_turns_resume_sync_uses_default_prompt"},
    "Two lookups with different arguments, the turn limit, then the resume prompt and an "
    "answer from what was gathered.",
)
t.user("What is the weather in Paris and in Rome?")
t.call("get_weather", {"city": "Paris"}, {"temp_c": 14, "sky": "cloudy"})
t.call("get_weather", {"city": "Rome"}, {"temp_c": 19, "sky": "clear"})
t.user(
    "Return a final answer to the query using ONLY the information already gathered in the "
    "conversation so far."
)
t.msg("Paris: 14 °C and cloudy. Rome: 19 °C and clear.")

t = new(
    "f13-smol-reset-runs",
    "conversation",
    False,
    SMOL | {"case": "test_reset_conversations (run with reset=False, then reset=True)"},
    "The same question asked in three runs; each run computes it once and answers.",
)
for _ in range(3):
    t.user("What is 2 multiplied by 3.6452?")
    t.call("python_interpreter", {"code": "final_answer(2 * 3.6452)"}, "7.2904")
    t.msg("7.2904")

t = new(
    "f13-smol-syntax-error-then-answer",
    "research",
    False,
    SMOL | {"case": "test_code_agent_syntax_error_show_offending_lines"},
    "A snippet fails with an indentation error that names the offending line; the agent "
    "then ends with an answer saying so.",
)
t.user("What is 2 multiplied by 3.6452?")
t.call(
    "python_interpreter",
    {"code": 'a = 2\nb = a * 2\n    print("Failing due to unexpected indent")'},
    error='IndentationError: unexpected indent (line 3)\n    print("Failing due to unexpected '
    'indent")',
    kind="syntax",
)
t.call("final_answer", {"answer": "got an error"}, "got an error")
t.msg("got an error")

t = new(
    "f13-mswea-format-errors-recover",
    "retry_transient",
    False,
    MSWEA | {"case": "test_format_error_handling"},
    "No action block, then two action blocks (two different format errors), then one "
    "correct action that submits.",
)
t.user("Test format errors")
t.msg("No code blocks here")
t.user(MSWEA_FMT)
t.msg("Multiple blocks: echo 'first' and echo 'second'")
t.user(MSWEA_FMT.replace("found 0 actions", "found 2 actions"))
t.call(
    "bash",
    {"command": "echo 'done'\necho 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'"},
    "done\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
)

t = new(
    "f13-mswea-timeout-recovers",
    "retry_transient",
    False,
    MSWEA | {"case": "test_timeout_handling"},
    "A long sleep times out once; the next command is a different one that finishes.",
)
t.user("Test timeout handling")
t.call(
    "bash", {"command": "sleep 5"}, error="The command timed out after 1 seconds", kind="timeout"
)
t.call(
    "bash",
    {"command": "echo 'recovered'\necho 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'"},
    "recovered\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
)

t = new(
    "f13-mswea-multiple-steps",
    "distinct_reads",
    False,
    MSWEA | {"case": "test_multiple_steps_before_completion"},
    "Four steps, each a different command with its own output, then the submission.",
)
t.user("Multi-step task")
for w in ["first", "second", "third"]:
    t.call(
        "bash", {"command": f"echo '{w}'"}, f"<returncode>0</returncode>\n<output>{w}\n</output>"
    )
t.call(
    "bash",
    {"command": "echo 'completed all steps'\necho 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'"},
    "completed all steps\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
)

t = new(
    "f13-mswea-timeout-partial-output",
    "retry_transient",
    False,
    MSWEA | {"case": "test_timeout_captures_partial_output"},
    "A command prints its result then sleeps past the timeout; the partial output is kept "
    "and the agent finishes with another command.",
)
t.user("Test timeout with partial output")
t.call(
    "bash",
    {"command": "echo $((111*9)); sleep 10"},
    error="The command timed out after 1 seconds. Partial output:\n999",
    kind="timeout",
)
t.call(
    "bash",
    {"command": "echo 'recovered'\necho 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'"},
    "recovered\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
)

t = new(
    "f13-crewai-ten-steps",
    "distinct_reads",
    False,
    CREW | {"case": "test_agent_max_iterations_stops_loop (get_data for step1..step10)"},
    "One get_data tool called for ten different steps, each with its own data.",
)
t.user("Use get_data for step1 through step10 and summarise all data collected")
for k in range(1, 11):
    t.call("get_data", {"step": f"step{k}"}, f"Data for step{k}: {k * 11} rows")
t.msg("Ten steps collected, 605 rows in all.")

t = new(
    "f13-autogen-hello-world",
    "conversation",
    False,
    AUTOGEN_TERM | {"case": "test_or_termination (Hello, World: not terminated)"},
    "A greeting and a different reply: two messages, nothing repeated.",
)
t.user("Hello")
t.msg("World! What shall we work on?")
t.user("Summarise yesterday's standup notes")
t.call("read_file", {"path": "notes/standup.md"}, "- API freeze Friday\n- Docs review pending")
t.msg("API freeze on Friday; the docs review is still pending.")

t = new(
    "f13-autogen-hello-twice",
    "conversation",
    False,
    AUTOGEN_TERM | {"case": "test_or_termination (two 'Hello' messages: not terminated)"},
    "Two identical greetings to two greetings from the user, then real work.",
)
t.user("hi")
t.msg("Hello!")
t.user("hello?")
t.msg("Hello!")
t.user("Count the open issues labelled bug")
t.call("list_issues", {"label": "bug", "state": "open"}, {"count": 7})
t.msg("Seven open bugs.")

t = new(
    "f13-autogen-function-call-termination",
    "research",
    False,
    AUTOGEN_TERM | {"case": "test_function_call_termination"},
    "Another function runs first, then test_function runs once and the team stops there.",
)
t.user("Prepare the report, then run test_function")
t.call("another_function", {}, "")
t.call("test_function", {}, "")
t.msg("Done.")

t = new(
    "f13-aider-reflection-fixes-edit",
    "edit_test_cycle",
    False,
    gh("Aider-AI/aider", "issues", 1440),
    "One edit fails to match, the reflection shows the real lines, the corrected block "
    "applies and the lint passes.",
)
t.user("Rename the KDS menu title")
t.call(
    "search_replace",
    {"file": "menu.py", "search": "TITLE = 'Menu'", "replace": "TITLE = 'KDS Menu'"},
    error="The LLM did not conform to the edit format.\n# 1 SEARCH/REPLACE block failed to "
    'match!\nDid you mean to match: TITLE = "Menu"',
    kind="exit_code",
)
t.call(
    "search_replace",
    {"file": "menu.py", "search": 'TITLE = "Menu"', "replace": 'TITLE = "KDS Menu"'},
    "Applied edit to menu.py",
    mutates=True,
)
t.call("bash", {"command": "flake8 menu.py"}, "")
t.msg("Renamed; flake8 is clean.")


# ================================================================ fresh14 set
# Written at 11:45 UTC (Dec 3) from user reports of loops and of wrongful stops in IDE and
# CLI agents no earlier split uses (checked against every `source` of the file): GitHub
# Copilot agent mode (microsoft/vscode, microsoft/vscode-copilot-release,
# microsoft/copilot-intellij-feedback, github/app), Zed's agent panel, Continue, Warp's
# agent mode, Aider (other issues than #942/#1440), Amazon Q Developer CLI, Zencoder (via
# laz-001/ai-ide-eval) and Claude Code issues not used yet. Each report is one trajectory
# labelled by what the report says is wrong (a loop the user complains of) or right (work a
# limit or a guard stopped that a careful user would not want stopped), translated to this
# file's classes and label rules. Committed before crs was run on them. Split "fresh14".

FRESH14_START = len(ALL)
COPILOT_REL = "microsoft/vscode-copilot-release"

# ---- fresh14 loops

t = new(
    "f14-copilot-8124-same-search",
    "repeated_call",
    True,
    gh(COPILOT_REL, "issues", 8124),
    "Agent mode returns tool_calls round after round: the same file search with the same "
    "matches, every 20-40 s, until the user stops it.",
)
t.user("Add a loading spinner to the dashboard page")
t.call("file_search", {"query": "**/Dashboard*.tsx"}, "src/pages/Dashboard.tsx")
t.call(
    "read_file",
    {"filePath": "src/pages/Dashboard.tsx", "startLine": 1, "endLine": 80},
    "export function Dashboard() { const data = useData(); ... }",
)
_again(
    t,
    7,
    "grep_search",
    {"query": "useData", "isRegexp": False},
    "src/hooks/useData.ts:3\nsrc/pages/Dashboard.tsx:12",
)

t = new(
    "f14-vscode-284924-unzip-grep",
    "repeated_call",
    True,
    gh("microsoft/vscode", "issues", 284924),
    "\"I'll use run_in_terminal. I'll use unzip -p ... | cut ... | grep ...\", the same "
    "pipeline with the same output, eight times.",
)
t.user("Which entries of export.zip mention the customer id 4711?")
UNZ14 = {"command": "unzip -p export.zip data.csv | cut -d, -f1,4 | grep 4711"}
_again(
    t,
    8,
    "run_in_terminal",
    UNZ14,
    "4711,Berlin\n4711,Hamburg",
    thought="I'll use run_in_terminal. I'll use unzip -p ... | cut ... | grep ...",
)

t = new(
    "f14-copilot-12137-rereads-file",
    "repeated_call",
    True,
    gh(COPILOT_REL, "issues", 12137),
    "GPT-4.1 in agent mode reads the same file range again and again, every two seconds, "
    "with the same content.",
)
t.user("Explain what the config loader does with missing keys")
_again(
    t,
    7,
    "read_file",
    {"filePath": "/app/src/config/loader.py", "startLine": 1, "endLine": 120},
    "def load(path):\n    raw = yaml.safe_load(open(path))\n    return {**DEFAULTS, **raw}",
)

t = new(
    "f14-copilot-7863-same-edit",
    "repeated_call",
    True,
    gh(COPILOT_REL, "issues", 7863),
    "Claude 3.7 in agent mode applies the same edit to the same file over and over; each "
    "edit reports the same +7 -1 and nothing else changes.",
)
t.user("Finish the CSV export function")
t.call("read_file", {"filePath": "src/export.ts"}, "export function toCsv(rows) {\n  // TODO\n}")
EDIT14 = {
    "filePath": "src/export.ts",
    "oldString": "  // TODO",
    "newString": "  const head = Object.keys(rows[0]).join(',');\n  return [head, ...rows.map(r => "
    "Object.values(r).join(','))].join('\\n');",
}
_again(t, 6, "replace_string_in_file", EDIT14, "Edited src/export.ts (+7 -1)", mutates=True)

t = new(
    "f14-copilot-8134-one-file-cycle",
    "cycle",
    True,
    gh(COPILOT_REL, "issues", 8134),
    "The agent keeps working on one file only: read it, apply the same change, get the "
    "same errors, and again; it never moves on to the other tasks.",
)
t.user("Migrate the three services to the new logger")
o = repeat_block(
    t,
    [
        {
            "tool": "read_file",
            "args": {"filePath": "src/services/billing.ts"},
            "result": "import { log } from '../legacy/log';\n...",
        },
        {
            "tool": "insert_edit_into_file",
            "args": {
                "filePath": "src/services/billing.ts",
                "code": "import { logger } from '../logger';",
            },
            "result": "Edited src/services/billing.ts",
            "mutates": True,
        },
        {
            "tool": "get_errors",
            "args": {"filePaths": ["src/services/billing.ts"]},
            "result": "billing.ts:14 Cannot find name 'log'.",
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f14-copilot-8598-same-mistake",
    "error_loop",
    True,
    gh(COPILOT_REL, "issues", 8598),
    "The agent circles the same problem, making the same mistake every time even when the "
    "user points it out: the same build fails the same way after each of their turns.",
)
t.user("Fix the build")
BUILD14 = {"command": "go build ./..."}
BERR14 = "internal/api/handler.go:42:9: undefined: store.Open"
a = t.call("run_in_terminal", BUILD14, error=BERR14, kind="exit_code")
t.msg("Now the build should pass.")
t.user("It still fails with the same error, you made the same mistake")
b = t.call("run_in_terminal", BUILD14, error=BERR14, kind="exit_code")
t.msg("Fixed, the build passes now.")
t.user("No, same error again")
t.call("run_in_terminal", BUILD14, error=BERR14, kind="exit_code")
t.msg("Fixed, the build passes now.")
t.call("run_in_terminal", BUILD14, error=BERR14, kind="exit_code")
t.mark(b, b)

t = new(
    "f14-intellij-397-continue-same-message",
    "monologue",
    True,
    gh("microsoft/copilot-intellij-feedback", "issues", 397),
    "Copilot in PyCharm states the action it is about to take and does not take it; each "
    '"continue" gets the same message back, no tool call.',
)
t.user("Implement parse_header in protocol.py")
t.call("read_file", {"path": "protocol.py"}, "def parse_header(buf: bytes) -> Header:\n    ...")
SAY14 = (
    "I'll now implement parse_header in protocol.py: read the 4-byte length prefix, "
    "validate the magic number and return a Header with the version and flags."
)
a = t.msg(SAY14)
t.user("continue")
b = t.msg(SAY14)
t.user("continue")
t.msg(SAY14)
t.user("continue")
t.msg(SAY14)
t.mark(b, b)

t = new(
    "f14-zed-28931-lint-nonstop",
    "repeated_call",
    True,
    gh("zed-industries/zed", "issues", 28931),
    "GPT-4.1 in Zed's agent panel runs the lint and typecheck again and again; they print "
    "nothing, so it never learns that they passed.",
)
t.user("Run the lint and the typecheck and fix what they report")
o = repeat_block(
    t,
    [
        {
            "tool": "terminal",
            "args": {"command": "bun run lint && bun run typecheck", "cd": "app"},
            "result": "",
        }
    ],
    7,
)
mark_cycle(t, o)

t = new(
    "f14-zed-57778-thinking-loop",
    "monologue",
    True,
    gh("zed-industries/zed", "issues", 57778),
    "The model says it is stuck in a thinking loop and will delegate, then says it again, "
    "word for word, with no tool call.",
)
t.user("Apply the Split fixes to CanParse.Detail.cs and CW.cs")
t.call(
    "edit_file",
    {"path": "src/CanParse.Detail.cs", "mode": "edit"},
    "Edited src/CanParse.Detail.cs",
    mutates=True,
)
LOOP14 = (
    "I'm in a massive thinking loop. Let me just stop and delegate the remaining work to a "
    "sub-agent. The edits to CanParse.Detail.cs and CW.cs were made but they seem to have "
    "reformatted the entire files (adding newlines to braces). The actual Split fixes may or "
    "may not have been applied. Let me just delegate to a sub-agent to verify and fix."
)
a = t.msg(LOOP14)
b = t.msg(LOOP14)
for _ in range(4):
    t.msg(LOOP14)
t.mark(b, b)

t = new(
    "f14-continue-6776-recreate-file",
    "error_loop",
    True,
    gh("continuedev/continue", "issues", 6776),
    "Continue's agent mode creates a class, then tries to create the same file again and "
    "again, not recognising that it already exists.",
)
t.user("Create a UserRepository class in src/main/java/app/UserRepository.java")
NEWF14 = {
    "filepath": "src/main/java/app/UserRepository.java",
    "contents": "package app;\n\npublic class UserRepository {\n}\n",
}
t.call("create_new_file", NEWF14, "Created src/main/java/app/UserRepository.java", mutates=True)
_again(
    t,
    5,
    "create_new_file",
    NEWF14,
    error="File src/main/java/app/UserRepository.java already exists",
    kind="exit_code",
)

t = new(
    "f14-warp-8645-output-loop",
    "monologue",
    True,
    gh("warpdotdev/warp", "issues", 8645),
    'After "Warp is overloaded" errors the agent resumes and puts out the same plan '
    "announcement over and over, consuming credits, no tool call.",
)
t.user("Implement the plan, commit by commit")
SAY14W = (
    "Alright, let's get back to it. I'll check out the first commit in our plan to "
    "create the config module. I'm starting now. First, I'll check out the commit. "
    "Then I'll create the file. I'll let you know when it's done."
)
a = t.msg(SAY14W)
b = t.msg(SAY14W)
for _ in range(4):
    t.msg(SAY14W)
t.mark(b, b)

t = new(
    "f14-warp-5914-circle-reads",
    "cycle",
    True,
    gh("warpdotdev/warp", "issues", 5914),
    "Asked how to add SQL support, the agent looks at the repository package, its "
    "implementation and the Task model, then the same three again, in circles.",
)
t.user("I want to add SQL database support. How would you approach it?")
o = repeat_block(
    t,
    [
        {
            "tool": "read_files",
            "args": {"paths": ["internal/repository/repository.go"]},
            "result": "type Repository interface { Add(Task) error; List() []Task }",
        },
        {
            "tool": "read_files",
            "args": {"paths": ["internal/repository/memory.go"]},
            "result": "type memoryRepo struct { tasks []Task }",
        },
        {
            "tool": "read_files",
            "args": {"paths": ["internal/model/task.go"]},
            "result": "type Task struct { ID int; Title string; Done bool }",
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f14-warp-7673-planning-loop",
    "monologue",
    True,
    gh("warpdotdev/warp", "issues", 7673),
    "Told five times to proceed, the agent restates what remains to be done and that it "
    "will work autonomously, and does no work.",
)
t.user("Here is the plan; implement it")
PLAN14 = (
    "Remaining work: 1) add the settings schema, 2) wire the CLI flag, 3) write the "
    "migration, 4) update the docs. I can work autonomously through the rest of this "
    "and will only prompt you if I need a decision."
)
a = t.msg(PLAN14)
t.user("proceed")
b = t.msg(PLAN14)
for _ in range(3):
    t.user("proceed")
    t.msg(PLAN14)
t.mark(b, b)

t = new(
    "f14-aider-1090-lint-fix-loop",
    "no_progress",
    True,
    gh("Aider-AI/aider", "issues", 1090),
    "Asked to fix a lint error, aider tries edit after edit that change no code and the "
    "linter reports the same error each time: it loops without adding or changing code.",
)
t.user("Attempt to fix lint errors? y")
LINT14 = {"command": "npx eslint src/App.jsx"}
LERR14 = "src/App.jsx 12:7 error 'setOpen' is assigned a value but never used no-unused-vars"
t.call(
    "search_replace",
    {"file": "src/App.jsx", "search": "const [open, setOpen]", "replace": "const [open, setOpen]"},
    "No changes made to src/App.jsx",
)
a = t.call("run", LINT14, error=LERR14, kind="exit_code")
b0 = t.call(
    "search_replace",
    {
        "file": "src/App.jsx",
        "search": "  const [open, setOpen] =",
        "replace": "  const [open, setOpen] =",
    },
    "No changes made to src/App.jsx",
)
b = t.call("run", LINT14, error=LERR14, kind="exit_code")
for k in range(3):
    t.call(
        "search_replace",
        {
            "file": "src/App.jsx",
            "search": f"useState(false){';' * (k % 2)}",
            "replace": f"useState(false){';' * (k % 2)}",
        },
        "No changes made to src/App.jsx",
    )
    t.call("run", LINT14, error=LERR14, kind="exit_code")
t.mark(b0, b, period=2)

t = new(
    "f14-claude-59318-same-grep",
    "repeated_call",
    True,
    gh("anthropics/claude-code", "issues", 59318),
    "An open-ended exploration scans modules, then runs the exact same grep 30+ times with "
    "the same output until the user interrupts.",
)
t.user("How should this project integrate with an external CLI tool?")
for mod in ("core", "cli", "plugins"):
    t.call("Bash", {"command": f"ls src/{mod}"}, f"src/{mod}/index.ts\nsrc/{mod}/types.ts")
GREP14 = {"command": 'grep -rn "spawn(" src --include=*.ts'}
_again(t, 9, "Bash", GREP14, "src/cli/run.ts:18:  const child = spawn(cmd, args)")

t = new(
    "f14-claude-21929-background-test-hangs",
    "error_loop",
    True,
    gh("anthropics/claude-code", "issues", 21929),
    "A failing test run in the background hangs; the agent runs it over and over for an "
    "hour, each run timing out the same way (transient: two retries are legitimate).",
)
t.user("Get the integration tests green")
IT14 = {"command": "npm run test:integration -- orders.spec.ts", "run_in_background": True}
idx = [
    t.call("Bash", IT14, error="Command timed out after 2m 0.0s", kind="timeout") for _ in range(6)
]
t.mark(idx[1], idx[2])

t = new(
    "f14-claude-35166-after-compact",
    "known_failure",
    True,
    gh("anthropics/claude-code", "issues", 35166),
    "With 100+ MCP tools filling the context, a request fails on the context size; after "
    "/compact (a new session on the same, unchanged setup) the same request is sent again "
    "and fails the same way, for hours.",
)
WIKI14 = {"url": "https://wiki.internal/display/ENG/ingest-spec", "format": "markdown"}
WERR14 = "Prompt is too long: 212453 tokens > 200000 maximum"
t.user("Write ingest.py from the wiki spec")
t.call("mcp__wiki__fetch_page", WIKI14, error=WERR14, kind="invalid_args")
t.msg("The context window is exhausted; compact or clear the context.")
t.session("s2")
t.user("Write ingest.py from the wiki spec")
rep = t.call("mcp__wiki__fetch_page", WIKI14, error=WERR14, kind="invalid_args")
t.call("mcp__wiki__fetch_page", WIKI14, error=WERR14, kind="invalid_args")
t.call("mcp__wiki__fetch_page", WIKI14, error=WERR14, kind="invalid_args")
t.mark(rep, rep - 1)

# ---- fresh14 legitimate

t = new(
    "f14-copilot-12224-long-refactor",
    "edit_test_cycle",
    False,
    gh(COPILOT_REL, "issues", 12224),
    "A long refactor the iteration cap keeps pausing: twelve modules edited one by one, "
    "the test suite after each with more tests passing.",
)
t.user("Move every module from callbacks to async/await, run the tests after each")
for k in range(12):
    t.call(
        "replace_string_in_file",
        {
            "filePath": f"src/mod{k:02d}.js",
            "oldString": "function (err, res)",
            "newString": "async function ()",
        },
        f"Edited src/mod{k:02d}.js (+{9 + k} -{12 + k})",
        mutates=True,
    )
    t.call(
        "run_in_terminal",
        {"command": "npm test"},
        f"Tests: {2 * (k + 1)} failed, {180 + 4 * k} passed, 204 total"
        if k < 11
        else "Tests: 204 passed, 204 total",
    )
t.msg("All twelve modules use async/await; 204/204 tests pass.")

t = new(
    "f14-vscode-293709-prompt-to-continue",
    "distinct_reads",
    False,
    gh("microsoft/vscode", "issues", 293709),
    'Even with max requests set high the user keeps getting "Copilot has been working for '
    'a while": an audit that reads twenty different route files once each.',
)
t.user("Audit every route handler for missing auth checks")
for k in range(20):
    t.call(
        "read_file",
        {"filePath": f"src/routes/r{k:02d}.ts", "startLine": 1, "endLine": 60},
        f"router.{('get', 'post', 'put')[k % 3]}('/v1/res{k}', "
        f"{'requireAuth, ' if k % 4 else ''}handler{k})",
    )
t.msg("Five handlers lack requireAuth: r00, r04, r08, r12, r16.")

t = new(
    "f14-copilot-10499-complex-task",
    "research",
    False,
    gh(COPILOT_REL, "issues", 10499),
    'The relatively complex task before the "Continue to iterate?" prompt: searches for '
    "different symbols, each with its own answer, then a summary.",
)
t.user("Find where session tokens are created, stored, refreshed and revoked")
for q, r in [
    ("createSession", "src/auth/session.ts:22"),
    ("storeToken", "src/auth/store.ts:9\nsrc/auth/redis.ts:31"),
    ("refreshToken", "src/auth/refresh.ts:14"),
    ("revokeToken", "src/auth/revoke.ts:7\nsrc/admin/users.ts:88"),
    ("TOKEN_TTL", "src/config.ts:5"),
    ("onLogout", "src/web/logout.ts:3"),
]:
    t.call("grep_search", {"query": q, "isRegexp": False}, r)
t.msg(
    "Created in session.ts, stored in Redis (store.ts/redis.ts), refreshed in "
    "refresh.ts, revoked in revoke.ts and from the admin page."
)

t = new(
    "f14-copilot-app-3113-rate-limit-retry",
    "retry_transient",
    False,
    gh("github/app", "issues", 3113),
    "What the user asks for: a temporary rate limit is waited out and the same request "
    "retried, which succeeds on the second retry.",
)
t.user("Generate the migration for the new orders table")
GEN14 = {"command": "npx prisma migrate dev --name orders --create-only"}
t.call(
    "run_in_terminal",
    GEN14,
    error="You've hit your rate limit. Please wait for your limit to reset in under a minute",
    kind="rate_limit",
)
t.call(
    "run_in_terminal",
    GEN14,
    error="You've hit your rate limit. Please wait for your limit to reset in under a minute",
    kind="rate_limit",
)
t.call("run_in_terminal", GEN14, "Prisma Migrate created migrations/20261203_orders")
t.msg("Migration created.")

t = new(
    "f14-claude-36677-loop-polling",
    "polling",
    False,
    gh("anthropics/claude-code", "issues", 36677),
    "/loop is meant to repeat: the same status check every few minutes while the workflow "
    "moves from queued to done (the report is that it fired only once).",
)
t.user("/loop 5m check the release workflow and tell me when it finishes")
RUN14 = {"command": "gh run view 8812734 --json status,conclusion,jobs"}
for s in [
    "queued",
    "in_progress (build 1/4)",
    "in_progress (build 3/4)",
    "in_progress (publish)",
    "completed: success",
]:
    t.call("Bash", RUN14, f"status: {s}")
t.msg("The release workflow finished successfully.")

t = new(
    "f14-claude-45892-multi-phase-build",
    "edit_test_cycle",
    False,
    gh("anthropics/claude-code", "issues", 45892),
    'A multi-phase build a subagent stopped at 40 % claiming "Maximum Steps Reached": '
    "each phase writes new files and the build grows.",
)
t.user("Build the full-stack app in phases: API, database, frontend, tests")
for k, ph in enumerate(
    [
        "api/server.ts",
        "api/routes.ts",
        "db/schema.sql",
        "db/seed.ts",
        "web/App.tsx",
        "web/List.tsx",
        "web/Form.tsx",
        "tests/api.test.ts",
    ]
):
    t.call(
        "Write",
        {"file_path": ph, "content": f"// phase {k + 1}: {ph}\n..."},
        f"File created successfully at: {ph}",
        mutates=True,
    )
    t.call("Bash", {"command": "npm run build"}, f"built {k + 1} modules in {1.2 + 0.3 * k:.1f}s")
t.msg("All four phases are in place and the build passes.")

t = new(
    "f14-zed-60706-rate-limit-countdown",
    "retry_transient",
    False,
    gh("zed-industries/zed", "issues", 60706),
    "The agent hits a rate limit, waits for the countdown and continues with the same "
    "request, which then succeeds.",
)
t.user("Rename the fetch helpers to load* across src")
t.call(
    "grep",
    {"regex": "fetch[A-Z]\\w+\\(", "include_pattern": "src/**/*.ts"},
    "src/api.ts: fetchUser(, fetchOrders(",
)
EDZ14 = {"path": "src/api.ts", "mode": "edit", "display_description": "rename fetch helpers"}
t.call("edit_file", EDZ14, error="Rate limit exceeded; retrying in 40s", kind="rate_limit")
t.call("edit_file", EDZ14, "Edited src/api.ts", mutates=True)
t.msg("Renamed fetchUser and fetchOrders to loadUser and loadOrders.")

t = new(
    "f14-zed-29833-consecutive-tool-limit",
    "distinct_reads",
    False,
    gh("zed-industries/zed", "pull", 29833),
    "The consecutive tool-use limit blocks a thread that is doing distinct work: fourteen "
    "different files listed and read for a survey.",
)
t.user("Summarise what each crate in crates/ is for")
for k, c in enumerate(
    [
        "editor",
        "gpui",
        "language",
        "project",
        "workspace",
        "terminal",
        "git",
        "lsp",
        "rope",
        "text",
        "theme",
        "settings",
        "client",
        "fs",
    ]
):
    t.call(
        "read_file",
        {"path": f"crates/{c}/Cargo.toml"},
        f'[package]\nname = "{c}"\ndescription = "{c} crate ({k + 3} deps)"',
    )
t.msg("A one-line summary for each of the fourteen crates follows.")

t = new(
    "f14-zencoder-25-actions",
    "distinct_reads",
    False,
    gh("laz-001/ai-ide-eval", "issues", 29),
    "The agent stops without notice after about 25 actions that were all different: "
    "translating test files one after another.",
)
t.user("Port the test files in tests/legacy to pytest")
for k in range(13):
    t.call(
        "read_file",
        {"path": f"tests/legacy/test_case_{k:02d}.py"},
        f"class Case{k}(unittest.TestCase):\n    def test_{k}(self): ...",
    )
    t.call(
        "write_file",
        {"path": f"tests/test_case_{k:02d}.py", "content": f"def test_{k}():\n    ..."},
        f"wrote tests/test_case_{k:02d}.py",
        mutates=True,
    )
t.msg("All thirteen files ported.")

t = new(
    "f14-warp-7396-npm-install-progress",
    "polling",
    False,
    gh("warpdotdev/warp", "issues", 7396),
    "A slow npm install: the agent reads the same terminal block a few times while it "
    "progresses, then moves on once it has finished (what the user expected).",
)
t.user("Initialise the Next.js site from the instructions")
t.call("run_command", {"command": "npm install framer-motion next-themes"}, "started (block 7)")
for s in [
    "added 48 packages, resolving...",
    "added 131 packages, fetching...",
    "added 212 packages in 41s",
]:
    t.call("read_block", {"block": 7}, s)
t.call("run_command", {"command": "npm run dev -- --port 3001"}, "ready on :3001")
t.msg("Dependencies installed and the dev server runs on :3001.")

t = new(
    "f14-warp-7378-paste-output-turns",
    "conversation",
    False,
    gh("warpdotdev/warp", "issues", 7378),
    "The user pastes each command's output as a new turn and the agent answers each with "
    "the next, different step.",
)
t.user("Set up the Postgres container for the app")
t.msg("Run: docker run -d --name pg -e POSTGRES_PASSWORD=dev -p 5432:5432 postgres:16")
t.user("Output: 3f9c1e2b7a1d (container id)")
t.msg("Good. Now create the database: docker exec pg createdb -U postgres app")
t.user("Output: (nothing)")
t.msg("Empty output means success. Run the migrations: npm run db:migrate")
t.user("Output: 4 migrations applied")
t.msg("The database is ready; start the app with npm run dev.")

t = new(
    "f14-aider-3450-three-reflections",
    "edit_test_cycle",
    False,
    gh("Aider-AI/aider", "issues", 3450),
    "The reflections aider caps at three: each fixes a different lint error reported by "
    "the previous round, and the third leaves the file clean.",
)
t.user("Add type hints to utils.py")
t.call(
    "search_replace",
    {"file": "utils.py", "search": "def slug(s):", "replace": "def slug(s: str) -> str:"},
    "Applied edit to utils.py",
    mutates=True,
)
t.call(
    "lint",
    {"cmd": "flake8 utils.py"},
    error="utils.py:1:1: F401 'os' imported but unused",
    kind="exit_code",
)
t.call(
    "search_replace",
    {"file": "utils.py", "search": "import os\n", "replace": ""},
    "Applied edit to utils.py",
    mutates=True,
)
t.call(
    "lint",
    {"cmd": "flake8 utils.py"},
    error="utils.py:9:80: E501 line too long (96 > 79)",
    kind="exit_code",
)
t.call(
    "search_replace",
    {
        "file": "utils.py",
        "search": "return '-'.join(",
        "replace": "return '-'.join(  # noqa: E501\n",
    },
    "Applied edit to utils.py",
    mutates=True,
)
t.call("lint", {"cmd": "flake8 utils.py"}, "")
t.msg("Type hints added; flake8 is clean.")

t = new(
    "f14-aider-4398-fix-until-build-passes",
    "edit_test_cycle",
    False,
    gh("Aider-AI/aider", "issues", 4398),
    "A moved constant breaks other files; the build is re-run after each fix and reports "
    "fewer errors each time until it passes.",
)
t.user("Move MAX_RETRIES to config.py and fix whatever breaks")
t.call(
    "search_replace",
    {"file": "config.py", "search": "", "replace": "MAX_RETRIES = 5\n"},
    "Applied edit to config.py",
    mutates=True,
)
for k, f in enumerate(["client.py", "worker.py", "cli.py"]):
    t.call(
        "run",
        {"command": "python -m compileall -q . && pytest -q"},
        error=f"{3 - k} errors: NameError: name 'MAX_RETRIES' is not defined ({f})",
        kind="exit_code",
    )
    t.call(
        "search_replace",
        {
            "file": f,
            "search": "import time\n",
            "replace": "import time\nfrom config import MAX_RETRIES\n",
        },
        f"Applied edit to {f}",
        mutates=True,
    )
t.call("run", {"command": "python -m compileall -q . && pytest -q"}, "57 passed in 3.1s")
t.msg("MAX_RETRIES lives in config.py; the three users import it and 57 tests pass.")

t = new(
    "f14-amazonq-1343-stateless-sessions",
    "session_memory",
    False,
    gh("aws/amazon-q-developer-cli", "issues", 1343),
    "Q CLI keeps no memory between sessions, so the next day's session re-reads the "
    "action log; it has grown since, and the summary is new.",
)
t.user("Summarise today's actions from logs/actions.log")
t.call(
    "fs_read", {"path": "logs/actions.log", "mode": "Line"}, "09:10 deploy api\n11:02 rotate keys"
)
t.msg("Two actions today: an API deploy and a key rotation.")
t.workspace("the next day's actions were appended to logs/actions.log")
t.session("s2")
t.user("Summarise today's actions from logs/actions.log")
t.call(
    "fs_read",
    {"path": "logs/actions.log", "mode": "Line"},
    "09:10 deploy api\n11:02 rotate keys\n08:45 scale workers\n10:30 deploy web",
)
t.msg("Today: workers scaled and the web app deployed.")

t = new(
    "f14-warp-8645-overloaded-then-resume",
    "retry_transient",
    False,
    gh("warpdotdev/warp", "issues", 8645),
    'The part of the report that is fine: two "Warp is overloaded" errors, then the same '
    "step succeeds and the work goes on.",
)
t.user("Create the empty commits of the plan")
JJ14 = {"command": "jj new -m 'step 1: config module'"}
t.call("run_command", JJ14, error="Warp is overloaded. Please try again.", kind="server_error")
t.call("run_command", JJ14, error="Warp is overloaded. Please try again.", kind="server_error")
t.call("run_command", JJ14, "Working copy now at: kxqv 3a1f step 1: config module")
t.call(
    "run_command",
    {"command": "jj new -m 'step 2: loader'"},
    "Working copy now at: zpwt 9c0e step 2: loader",
)
t.msg("Both plan commits exist.")


# ================================================================ fresh15 set
# Written at 14:15 UTC (Dec 3) from source families no earlier split uses (checked against
# every `source` of the file; some are other issues of repositories earlier splits cite:
# agno, google/adk-python, semantic-kernel, pydantic-ai, deer-flow, lmstudio-bug-tracker,
# OpenHands): agent frameworks' limit and exit-condition reports (Agno's tool_call_limit,
# ADK's LoopAgent and exit_loop, Semantic Kernel's auto function calling and process
# framework, Pydantic AI's retries, Haystack's exit conditions, LangGraph recursion limits
# hit by AgentK, LibreChat, PostHog, cluster-whisperer and others), chat front ends and MCP
# clients looping on tools (AnythingLLM, better-chatbot, Chainlit's cookbook, LM Studio, Open
# WebUI), SWE-smith's format-error requeries, llama_deploy's text-to-SQL loop, and pages on
# Cursor and Windsurf loops (caum.systems, dredyson.com, error.wtf, aitoolsguidebook's
# tool-call-stuck article). Each report is one trajectory labelled by what the source says is
# wrong (a loop) or right (work a limit stopped, or the working case the report contrasts
# with), translated to this file's classes and label rules. Committed before crs was run on
# them. Split "fresh15".

FRESH15_START = len(ALL)
AGNO = "agno-agi/agno"
ADK = "google/adk-python"
SK = "microsoft/semantic-kernel"
PYD_TOOLS = {"repo": "pydantic/pydantic-ai", "path": "tests/test_tools.py"}
PYD_LIMITS = {"repo": "pydantic/pydantic-ai", "path": "tests/test_usage_limits.py"}
HAY_AGENT = {"repo": "deepset-ai/haystack", "path": "test/components/agents/test_agent.py"}

# ---- fresh15 loops

t = new(
    "f15-agno-8304-limit-reached-same-tool",
    "error_loop",
    True,
    gh(AGNO, "issues", 8304),
    "After tool_call_limit is reached every further call is refused with 'Tool call limit "
    "reached ... Don't try to execute it again.'; the model requests the same knowledge "
    "search anyway, hundreds of times.",
)
t.user("What does our travel policy say about upgrades to business class?")
t.call(
    "search_knowledge_base",
    {"query": "business class upgrade policy"},
    "Travel policy 4.2: upgrades are allowed on flights over 6 hours with manager approval.",
)
t.call(
    "get_employee_profile",
    {"employee_id": "E-2231"},
    {"grade": "L5", "manager": "E-1042"},
)
LIM15 = (
    "Tool call limit reached. Tool call search_knowledge_base not executed. "
    "Don't try to execute it again."
)
_again(
    t,
    7,
    "search_knowledge_base",
    {"query": "business class upgrade approval"},
    error=LIM15,
    kind="permission",
)

t = new(
    "f15-agno-7133-get-skill-again",
    "repeated_call",
    True,
    gh(AGNO, "issues", 7133),
    "With Skills, the agent calls get_skill for the same skill again and again (100+ calls "
    "in one run), each time receiving the same instructions, before finishing the run.",
)
t.user("Turn the meeting notes into a one-page summary")
t.call("list_skills", {}, ["summarise-notes", "draft-email", "make-slides"])
SKILL15 = (
    "# summarise-notes\n1. Read the notes file.\n2. Group items by topic.\n"
    "3. Write at most one page with decisions first."
)
_again(t, 8, "get_skill", {"name": "summarise-notes"}, SKILL15)

t = new(
    "f15-agno-160-no-then-repeats",
    "repeated_call",
    True,
    gh(AGNO, "issues", 160),
    "tool_call_limit=2 is set, yet after the user answers 'no' the assistant executes the "
    "same report tool over and over without answering (phidata assistant on Ollama).",
)
t.user("Generate the MSBR report for application APP-88")
REP15 = {"app_id": "APP-88", "period": "2024-03"}
REPOUT15 = "MSBR report for APP-88 (2024-03): 14 incidents, availability 99.2%."
t.call("generate_msbr_report", REP15, REPOUT15)
t.msg("Here is the MSBR report for APP-88. Do you want the CI details as well?")
t.user("no")
idx = [t.call("generate_msbr_report", REP15, REPOUT15) for _ in range(6)]
t.mark(idx[0], idx[0])

t = new(
    "f15-agno-5248-search-knowledge-eight",
    "no_progress",
    True,
    gh(AGNO, "pull", 5248),
    "'Search for Sherlock Holmes in the knowledge base' triggers search_knowledge up to "
    "eight times in one run, each query a rewording, the same chunks each time (the pull "
    "request adds per-tool limits because one call was wanted).",
)
t.user("Search for Sherlock Holmes in the knowledge base")
CH15 = [
    {"doc": "sherlock.pdf", "chunk": 3, "text": "Sherlock Holmes is a consulting detective..."},
    {"doc": "sherlock.pdf", "chunk": 4, "text": "He lives at 221B Baker Street with Watson."},
]
idx = [
    t.call("search_knowledge_base", {"query": q}, CH15)
    for q in [
        "Sherlock Holmes",
        "Sherlock Holmes detective",
        "who is Sherlock Holmes",
        "Holmes Baker Street",
        "Sherlock Holmes character",
        "information about Sherlock Holmes",
        "Sherlock Holmes stories",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f15-adk-2988-exit-loop-again",
    "repeated_call",
    True,
    gh(ADK, "issues", 2988),
    "A LoopAgent's refiner calls exit_loop_tool_function, which sets escalate and returns "
    "{}, but the loop does not end: the agent calls it again and again, each call marked "
    "complete with the same empty result.",
)
t.user("Refine the SQL for monthly active users until it runs cleanly")
t.call(
    "execute_sql",
    {"sql": "SELECT date_trunc('month', ts) m, count(DISTINCT user_id) FROM events GROUP BY m"},
    [["2025-07-01", 10231], ["2025-08-01", 11020]],
)
_again(t, 7, "exit_loop_tool_function", {}, {})

t = new(
    "f15-adk-1100-last-agent-endless",
    "repeated_call",
    True,
    gh(ADK, "issues", 1100),
    "A LoopAgent gets stuck after its first iteration: the last sub-agent endlessly calls "
    "its save function for a search term whose results were already saved.",
)
t.user("Find family-friendly accommodation in Lisbon for August")
t.call("select_search_term", {}, {"selected_search_term": "Lisbon family apartment August"})
t.call(
    "web_search",
    {"query": "Lisbon family apartment August"},
    "1. Alfama Family Loft ... 2. Belém Garden House ... 3. Parque Suites ...",
)
SAVE15 = {
    "search_term": "Lisbon family apartment August",
    "summary": "Alfama Family Loft (2 bedrooms), Belém Garden House (garden), Parque Suites",
}
_again(t, 7, "save_search_results", SAVE15, {"status": "saved", "is_term_processed": True})

t = new(
    "f15-adk-3672-write-verify-cycle",
    "cycle",
    True,
    gh(ADK, "issues", 3672),
    "A LoopAgent with file-management MCP tools produces the right file, but the loop does "
    "not terminate: the same write and the same check repeat until max_iterations (and a "
    "429) end it.",
)
t.user("Create notes/todo.md with three items: buy milk, call Ana, pay rent")
o = repeat_block(
    t,
    [
        {
            "tool": "write_file",
            "args": {"path": "notes/todo.md", "content": "- buy milk\n- call Ana\n- pay rent\n"},
            "result": "Successfully wrote to notes/todo.md",
            "mutates": True,
        },
        {
            "tool": "read_file",
            "args": {"path": "notes/todo.md"},
            "result": "- buy milk\n- call Ana\n- pay rent\n",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f15-agentk-13-assign-recursion",
    "error_loop",
    True,
    gh("mikekelly/AgentK", "issues", 13),
    "Whenever the system tries to do something, assigning software_engineer to the same "
    "clean-up task ends with 'Recursion limit of 25 reached'; the orchestrator assigns it "
    "again, with the same failure.",
)
t.user("Clean up or recover the incomplete files in the tools and agents directories")
t.call("list_directory", {"path": "tools"}, "assign_agent_to_task.py\nread_file.py\n__init__.py")
ASSIGN15 = {
    "agent_name": "software_engineer",
    "task": "clean-up or recover the incomplete or corrupted files in tools and agents",
}
ERR15 = (
    "An error occurred while assigning software_engineer to task: Recursion limit of 25 "
    "reached without hitting a stop condition."
)
_again(t, 6, "assign_agent_to_task", ASSIGN15, error=ERR15, kind="exit_code")

t = new(
    "f15-chainlit-45-same-function",
    "repeated_call",
    True,
    gh("Chainlit/cookbook", "issues", 45),
    "In the openai-functions example with the user's own functions, the app often calls the "
    "same function again and again and only breaks out when it reaches MAX_ITER.",
)
t.user("What's the weather like in Boston?")
_again(
    t,
    6,
    "get_current_weather",
    {"location": "Boston, MA", "unit": "fahrenheit"},
    {"location": "Boston, MA", "temperature": "72", "forecast": ["sunny", "windy"]},
)

t = new(
    "f15-anythingllm-4223-mcp-loops",
    "repeated_call",
    True,
    gh("Mintplex-Labs/anything-llm", "issues", 4223),
    "Claude on Bedrock calls an MCP server that returns code snippets of an internal React "
    "library; sometimes once, sometimes 7 or 8 times, although the server answers correctly "
    "the first time.",
)
t.user("How do I use the DataTable component from our UI library?")
SNIP15 = (
    "```tsx\nimport { DataTable } from '@acme/ui';\n<DataTable rows={rows} columns={cols} "
    "pageSize={20} />\n```"
)
_again(t, 8, "acme_ui_get_snippet", {"component": "DataTable"}, SNIP15)

t = new(
    "f15-betterchatbot-144-tool-until-crash",
    "repeated_call",
    True,
    gh("keinsaasforever/better-chatbot", "issues", 144),
    "The chatbot calls a tool of the user's own MCP provider, gets a successful response, "
    "and instead of stopping keeps calling the same tool until the PC crashes.",
)
t.user("Which of my servers are offline?")
_again(
    t,
    9,
    "homelab_server_status",
    {"filter": "offline"},
    {"offline": ["nas-02"], "checked": 7},
)

t = new(
    "f15-lmstudio-970-ghost-first-query",
    "repeated_call",
    True,
    gh("lmstudio-ai/lmstudio-bug-tracker", "issues", 970),
    "With a PostgreSQL MCP server, after the first successful tool call every new user "
    "message re-executes the first query (list all tables) and gets the same table list, "
    "whatever the user asked.",
)
LIST15 = {"sql": "SELECT table_name FROM information_schema.tables WHERE table_schema='public'"}
TABLES15 = [["users"], ["orders"], ["products"]]
t.user("List all tables")
t.call("postgres_query", LIST15, TABLES15)
t.msg("The database has three tables: users, orders and products.")
t.user("Count the users in the database")
a = t.call("postgres_query", LIST15, TABLES15)
t.msg("The database has three tables: users, orders and products.")
t.user("How many orders were placed last week?")
t.call("postgres_query", LIST15, TABLES15)
t.msg("The database has three tables: users, orders and products.")
t.user("Show the five most expensive products")
t.call("postgres_query", LIST15, TABLES15)
t.msg("The database has three tables: users, orders and products.")
t.mark(a, a + 1, period=2)

t = new(
    "f15-llamadeploy-190-table-desc-loop",
    "repeated_call",
    True,
    gh("run-llama/llama_deploy", "issues", 190),
    "A llama-agents text-to-SQL system loops in the terminal: the control plane hands the "
    "table description service the same task again and again, 'table descriptions "
    "fetched: 3' each time.",
)
t.user("Which city has the highest population?")
_again(
    t,
    8,
    "table_desc_service",
    {"task": "Which city has the highest population?"},
    "table descriptions fetched :  3",
)

t = new(
    "f15-sk-9729-incomplete-run",
    "repeated_call",
    True,
    gh(SK, "issues", 9729),
    "An Assistant agent run ends with status 'incomplete' (and, in a second report, "
    "content_filter), which the SDK does not handle: it keeps polling the finished run "
    "forever.",
)
t.user("Summarise the attached quarterly report")
t.call("create_run", {"thread_id": "thread_q3", "assistant_id": "asst_reports"}, {"id": "run_7"})
t.call("get_run", {"thread_id": "thread_q3", "run_id": "run_7"}, {"status": "in_progress"})
_again(
    t,
    7,
    "get_run",
    {"thread_id": "thread_q3", "run_id": "run_7"},
    {"status": "incomplete", "incomplete_details": {"reason": "max_completion_tokens"}},
)

t = new(
    "f15-sk-12330-step-agent-cycle",
    "cycle",
    True,
    gh(SK, "issues", 12330),
    "A Process step calls an AzureAIAgent that shares the step's Kernel; the agent decides "
    "to call the same step function, which calls the agent again, over and over.",
)
t.user("Classify the incoming support ticket T-5512")
o = repeat_block(
    t,
    [
        {
            "tool": "ClassifyStep-classify_ticket",
            "args": {"ticket_id": "T-5512"},
            "result": "Invoking agent TicketClassifier for T-5512",
        },
        {
            "tool": "TicketClassifier",
            "args": {"message": "Classify ticket T-5512"},
            "result": "Calling function ClassifyStep-classify_ticket",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f15-pydantic-infinite-retry-tool",
    "error_loop",
    True,
    PYD_TOOLS | {"case": "infinite_retry_tool (exceeded max retries count of 5)"},
    "A tool that always raises ModelRetry('Please try again.'): the model calls it again "
    "after every retry prompt until the retry count (5) or the request limit ends the run.",
)
t.user("Begin infinite retry loop!")
_again(t, 6, "infinite_retry_tool", {}, error="Please try again.", kind="invalid_args")

t = new(
    "f15-swesmith-23-format-error-requery",
    "error_loop",
    True,
    gh("SWE-bench/SWE-smith", "issues", 23),
    "SWE-agent requeries the model after a FormatError ('Your output was not formatted "
    "correctly...'); the model answers with the same xml-style function call each time, and "
    "each is rejected the same way.",
)
t.user("Fix the failing test in the repository at /testbed")
FIND15 = {"command": 'find /testbed -type f -name "*.py" | grep -v "__pycache__" | sort'}
FMT15 = (
    "Your output was not formatted correctly. You must always include one discussion and "
    "one command as part of your response."
)
_again(t, 5, "bash", FIND15, error=FMT15, kind="syntax")

t = new(
    "f15-errorwtf-cascade-false-complete",
    "cycle",
    True,
    {"url": "https://error.wtf/up/report.md"},
    "Cascade claims a file is COMPLETE and VERIFIED, the user finds it truncated, Cascade "
    "apologises and writes it again, and claims success again: the repair spiral repeats "
    "with the same content and the same claim.",
)
t.user("Generate really-full-output.md with the complete output of every test module")
FULL15 = {
    "path": "reports/really-full-output.md",
    "content": "# Full output\n## test_core\n... 212 lines ...\n## test_io\n(truncated)",
}
o = []
for _ in range(4):
    a = t.call("write_to_file", FULL15, "Created file reports/really-full-output.md", mutates=True)
    b = t.msg("really-full-output.md is now COMPLETE and VERIFIED: every module's output is in it.")
    t.user("It is not complete: test_io is truncated again. Check before you claim success.")
    o.append([a, b])
t.mark(o[1][0], o[1][1], period=2)

t = new(
    "f15-dredyson-begin-of-sentence-tokens",
    "monologue",
    True,
    {
        "url": "https://dredyson.com/fix-agent-gets-stuck-on-thinking-outputs-repeated-"
        "begin_of_sentence-tokens-a-complete-beginners-step-by-step-guide/"
    },
    "The Cursor agent hangs on 'Thinking' and then loops, the same run of "
    "'begin_of_sentence | >%<' tokens scrolling by message after message.",
)
t.user("Why does the build fail on the CI runner?")
t.call("read_file", {"path": ".github/workflows/ci.yml"}, "jobs:\n  build:\n    runs-on: ubuntu")
BOS15 = "<\uff5cbegin\u2581of\u2581sentence\uff5c>"
TOK15 = " ".join([f"{BOS15} >%< Auto CID co debase"] * 12)
m = [t.msg(TOK15) for _ in range(5)]
# Label corrected after the first run (it said m[1]): by this file's rule for a message that
# repeats a passage inside itself (fresh12's `_stuck` cases), the unit has happened twice in
# the first such message, so the flag is due there.
t.mark(m[0], m[0])

t = new(
    "f15-caum-cursor-retry-cycle",
    "cycle",
    True,
    {"url": "https://caum.systems/cursor-agent-retry-loop/"},
    "The coding agent retries the same repair: search for the same symbol, the same edit to "
    "the same file, the same test error, in a circle (the page's example shape: same symbol, "
    "same file, same error).",
)
t.user("Fix the failing parse_date test")
o = repeat_block(
    t,
    [
        {
            "tool": "search",
            "args": {"query": "def parse_date"},
            "result": "src/dates.py:14: def parse_date(s):",
        },
        {
            "tool": "edit",
            "args": {
                "path": "src/dates.py",
                "old": "return datetime.strptime(s, '%Y-%m-%d')",
                "new": "return datetime.strptime(s.strip(), '%Y-%m-%d')",
            },
            "result": "Edit failed: old string not found in src/dates.py",
        },
        {
            "tool": "run_tests",
            "args": {"path": "tests/test_dates.py"},
            "error": "FAILED tests/test_dates.py::test_iso_with_time - ValueError: unconverted "
            "data remains: T10:00",
            "kind": "exit_code",
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f15-adk-3672-429-at-once",
    "error_loop",
    True,
    gh(ADK, "issues", 3672),
    "The same LoopAgent run goes on until the model answers 429 RESOURCE_EXHAUSTED; the "
    "next iterations send the same request at once and get the same 429.",
)
t.user("Create notes/shopping.md with eggs and bread")
t.call(
    "write_file",
    {"path": "notes/shopping.md", "content": "- eggs\n- bread\n"},
    "Successfully wrote to notes/shopping.md",
    mutates=True,
)
EX15 = {"agent": "file_checker", "prompt": "Check notes/shopping.md and exit if it is correct"}
idx = [
    t.call(
        "run_sub_agent",
        EX15,
        error="429 RESOURCE_EXHAUSTED. Quota exceeded for generate_content requests per minute.",
        kind="rate_limit",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f15-openhands-4454-placeholder-next-session",
    "known_failure",
    True,
    gh("OpenHands/software-agent-sdk", "issues", 4454),
    "A placeholder mcp.example.com entry in agent_settings.mcp_config makes the MCP "
    "connection fail; it hits again in a later conversation with the same unchanged "
    "settings, the same MCPError each time.",
)
MCPA15 = {"server": "https://mcp.example.com/mcp"}
MCPE15 = "MCPError: MCP Connection Failure: could not resolve host mcp.example.com"
t.user("Start a conversation about the flaky upload test")
t.call("mcp_list_tools", MCPA15, error=MCPE15, kind="not_found")
t.msg("The MCP server at mcp.example.com cannot be reached, so the conversation cannot start.")
t.session("s2")
t.user("Start a conversation about the flaky upload test")
rep = t.call("mcp_list_tools", MCPA15, error=MCPE15, kind="not_found")
t.call("mcp_list_tools", MCPA15, error=MCPE15, kind="not_found")
t.call("mcp_list_tools", MCPA15, error=MCPE15, kind="not_found")
t.mark(rep, rep - 1)

t = new(
    "f15-agno-8838-web-search-dominates",
    "no_progress",
    True,
    gh(AGNO, "issues", 8838),
    "A single tool dominates the run: the paid web search is called again and again with "
    "re-parameterised queries (result counts, date filters) and returns the same results "
    "(the report asks for a per-tool cap, e.g. three web searches).",
)
t.user("What is the latest stable version of PostgreSQL?")
WEB15 = [{"title": "PostgreSQL 17.2 released", "url": "https://www.postgresql.test/about/news/"}]
idx = [
    t.call("web_search", {"query": "latest PostgreSQL stable version", "max_results": n}, WEB15)
    for n in (5, 3, 10, 5, 8, 1)
]
t.mark(idx[1], idx[1])

# ---- fresh15 legitimate

t = new(
    "f15-librechat-14181-code-exploration",
    "distinct_reads",
    False,
    gh("danny-avila/LibreChat", "issues", 14181),
    "A sub-agent's code exploration (a lot of searching and reading related code) is cut off "
    "by 'Recursion limit of 75 reached'; every step was a new search or a new file.",
)
t.user("Explore how authentication tokens are refreshed in this repo")
mods = [
    "auth/refresh",
    "auth/session",
    "auth/jwt",
    "middleware/requireAuth",
    "models/Session",
    "routes/oauth",
    "strategies/google",
    "strategies/github",
    "strategies/openid",
    "services/tokenStore",
    "cache/keyv",
    "config/auth",
    "utils/crypto",
    "routes/logout",
    "client/useRefresh",
    "client/authContext",
    "client/interceptors",
    "tests/refresh.spec",
]
for k, mname in enumerate(mods):
    t.call(
        "grep", {"pattern": "refresh", "path": f"api/{mname}"}, f"api/{mname}.js:{10 + k}: refresh"
    )
    t.call(
        "read_file", {"path": f"api/{mname}.js"}, f"// {mname}\nmodule.exports = {{ ... }} // {k}"
    )
t.msg("Tokens are refreshed by auth/refresh on a 401, using the session stored in tokenStore.")

t = new(
    "f15-posthog-44196-dashboard-steps",
    "research",
    False,
    gh("PostHog/posthog", "pull", 44196),
    "Creating a dashboard needs more than the agent's 48 steps: one insight query, one "
    "insight creation per chart, then the dashboard; each step is new.",
)
t.user("Build a growth dashboard: signups, activation, retention, revenue, churn by week")
metrics = [
    "signups",
    "activation",
    "week-1 retention",
    "week-4 retention",
    "revenue",
    "churn",
    "DAU",
    "WAU",
    "MAU",
    "trial conversions",
    "paid seats",
    "NPS responses",
]
ids = []
for k, mt in enumerate(metrics):
    t.call(
        "run_trends_query",
        {"event": mt.replace(" ", "_"), "interval": "week", "date_from": "-90d"},
        {"series": [100 + 7 * k, 110 + 5 * k, 120 + 3 * k]},
    )
    t.call(
        "create_insight",
        {"name": f"{mt.title()} by week", "query": {"event": mt.replace(" ", "_")}},
        {"id": 9100 + k, "short_id": f"ins{k:02d}"},
    )
    ids.append(9100 + k)
t.call("create_dashboard", {"name": "Growth", "insight_ids": ids}, {"id": 77, "tiles": 12})
t.msg("The Growth dashboard has 12 tiles, one per metric.")

t = new(
    "f15-cluster-whisperer-72-deploy-retry",
    "edit_test_cycle",
    False,
    gh("wiggitywhitney/cluster-whisperer", "issues", 72),
    "A deploy workflow that legitimately needs more steps than LangGraph's default 25: vector "
    "search, a failed deploy, learn from the error, a fixed retry, describe, more searches.",
)
t.user("Deploy a Postgres database for the demo app in the demo namespace")
t.call("vector_search", {"query": "postgres database crd"}, ["sqls.devopstoolkit.live", "cnpg"])
t.call(
    "kubectl_apply",
    {"manifest": "apiVersion: devopstoolkit.live/v1\nkind: SQL\nspec: {size: tiny}"},
    error="admission webhook denied: spec.region is required",
    kind="invalid_args",
)
t.call("vector_search", {"query": "SQL claim spec region values"}, ["region: us-east1 | eu-west1"])
t.call(
    "kubectl_apply",
    {
        "manifest": "apiVersion: devopstoolkit.live/v1\nkind: SQL\nspec: {size: tiny, region: "
        "us-east1}"
    },
    "sql.devopstoolkit.live/demo-db created",
    mutates=True,
)
t.call("kubectl_describe", {"kind": "sql", "name": "demo-db"}, "Status: Synced=True Ready=False")
t.call("kubectl_get", {"kind": "pods", "namespace": "demo"}, "demo-db-0   0/1   Init:0/1")
t.call("vector_search", {"query": "cnpg cluster init container slow"}, ["initdb takes ~60s"])
t.call("sleep", {"seconds": 60}, "")
t.call("kubectl_describe", {"kind": "sql", "name": "demo-db"}, "Status: Synced=True Ready=True")
t.msg("demo-db is ready in the demo namespace.")

t = new(
    "f15-lifebuild-189-many-operations",
    "research",
    False,
    gh("sociotechnica-org/lifebuild", "issues", 189),
    "A complex request legitimately needs more than the loop's 15 iterations: each tool "
    "call creates or moves a different task.",
)
t.user("Set up the kitchen renovation project: tasks for each phase, owners and due dates")
tasks = [
    "Measure kitchen",
    "Pick layout",
    "Order cabinets",
    "Hire electrician",
    "Hire plumber",
    "Demolition",
    "Rough plumbing",
    "Rough electrical",
    "Drywall",
    "Paint",
    "Install cabinets",
    "Countertops",
    "Backsplash",
    "Appliances",
    "Final inspection",
    "Clean up",
    "Photos",
]
t.call("create_project", {"name": "Kitchen renovation"}, {"project_id": "p-31"})
for k, tk in enumerate(tasks):
    t.call(
        "create_task",
        {"project_id": "p-31", "title": tk, "due": f"2025-{5 + k // 6:02d}-{1 + k % 28:02d}"},
        {"task_id": f"t-{400 + k}"},
    )
t.msg("The project has 17 tasks across the phases, each with a due date.")

t = new(
    "f15-kern-161-step-limit-continue",
    "conversation",
    False,
    gh("oguzbilgic/kern-ai", "issues", 161),
    "The agent stops silently at maxSteps mid-task; the user says 'continue' and it goes on "
    "with the next, different steps.",
)
t.user("Add type hints to every function in utils/")
files = ["strings", "dates", "paths", "numbers", "net", "env"]
for f in files[:3]:
    t.call("read_file", {"path": f"utils/{f}.py"}, f"def f_{f}(x):\n    return x")
    t.call(
        "edit_file",
        {"path": f"utils/{f}.py", "old": f"def f_{f}(x):", "new": f"def f_{f}(x: str) -> str:"},
        f"Edited utils/{f}.py",
        mutates=True,
    )
t.msg("Reached step limit (6/6).")
t.user("continue")
for f in files[3:]:
    t.call("read_file", {"path": f"utils/{f}.py"}, f"def f_{f}(x):\n    return x")
    t.call(
        "edit_file",
        {"path": f"utils/{f}.py", "old": f"def f_{f}(x):", "new": f"def f_{f}(x: str) -> str:"},
        f"Edited utils/{f}.py",
        mutates=True,
    )
t.call("bash", {"command": "mypy utils"}, "Success: no issues found in 6 source files")
t.msg("All six modules in utils/ are typed and mypy passes.")

t = new(
    "f15-sk-13205-research-rounds",
    "research",
    False,
    gh(SK, "issues", 13205),
    "A research agent that needs more auto-invoke rounds than a quick search: different "
    "queries, then the pages they found, then a summary.",
)
t.user("Research how the EU AI Act classifies emotion recognition systems")
qs = [
    "EU AI Act emotion recognition prohibited workplace",
    "EU AI Act Annex III emotion recognition high-risk",
    "AI Act Article 5 emotion recognition education",
    "AI Act emotion recognition definition Article 3",
]
for k, q in enumerate(qs):
    t.call("web_search", {"query": q}, [{"url": f"https://eur-lex.test/doc{k}", "title": q}])
for k in range(4):
    t.call("fetch_page", {"url": f"https://eur-lex.test/doc{k}"}, f"Article text {k}: ...")
t.msg("Emotion recognition is prohibited at work and in education, and high-risk elsewhere.")

t = new(
    "f15-pydantic-failed-tool-not-counted",
    "retry_transient",
    False,
    PYD_LIMITS | {"case": "test_failed_tool_calls_not_counted"},
    "A flaky tool raises ModelRetry('Temporary failure, please retry') once; the retry "
    "succeeds and the run ends within tool_calls_limit=1.",
)
t.user("test")
t.call("flaky_tool", {"x": "a"}, error="Temporary failure, please retry", kind="server_error")
t.call("flaky_tool", {"x": "a"}, "a-success")
t.msg("a-success")

t = new(
    "f15-adk-2692-quality-loop-works",
    "edit_test_cycle",
    False,
    gh(ADK, "issues", 2692),
    "The case the report says usually works: a coordinator drafts an answer, the quality "
    "checker tests it and asks for changes, the draft changes, and the checker calls exit_loop "
    "once the answer is satisfactory.",
)
t.user("Which of our regions had falling sales in Q2, and why?")
drafts = [
    ("EMEA and APAC fell.", "Missing reasons; cite the sales data."),
    ("EMEA fell 4% (fewer deals); APAC fell 2%.", "APAC reason missing."),
    ("EMEA fell 4% (fewer deals); APAC fell 2% (a distributor left).", "OK"),
]
for k, (d, verdict) in enumerate(drafts):
    t.call(
        "query_sales", {"quarter": "Q2", "breakdown": ["region", "reason"][: k + 1]}, f"rows {k}"
    )
    t.call("coordinator_answer", {"draft": d}, d)
    t.call("quality_check", {"answer": d}, verdict)
t.call("exit_loop", {}, {})
t.msg("EMEA fell 4% on fewer deals; APAC fell 2% after a distributor left.")

t = new(
    "f15-haystack-weather-exit-condition",
    "distinct_reads",
    False,
    HAY_AGENT | {"case": "weather_tool fixture with exit_conditions=['text', 'weather_tool']"},
    "An agent whose exit conditions are a text reply or the weather tool: one weather call "
    "per city asked about, each a different location with its own report.",
)
for city, rep in [
    ("Berlin", {"weather": "mostly sunny", "temperature": 7, "unit": "celsius"}),
    ("Paris", {"weather": "mostly cloudy", "temperature": 8, "unit": "celsius"}),
    ("Rome", {"weather": "sunny", "temperature": 14, "unit": "celsius"}),
]:
    t.user(f"What is the weather in {city}?")
    t.call("weather_tool", {"location": city}, rep)
    t.msg(f"{city}: {rep['weather']}, {rep['temperature']} °C.")

t = new(
    "f15-openwebui-9755-user-and-posts",
    "distinct_reads",
    False,
    gh("open-webui/open-webui", "issues", 9755),
    "The use case the feature request wants: fetch a user's info and their latest posts "
    "(two tools), then the same for another user.",
)
for uid, name in [("12345", "Ana"), ("67890", "Ben")]:
    t.user(f"Provide info on user with id {uid} along with its latest posts.")
    t.call("get_user_info", {"user_id": uid}, {"id": uid, "name": name, "joined": "2023"})
    t.call("get_latest_posts", {"user_id": uid, "limit": 3}, [f"{name} post {i}" for i in range(3)])
    t.msg(f"{name} joined in 2023; latest posts listed above.")

t = new(
    "f15-lmstudio-970-expected-per-message",
    "conversation",
    False,
    gh("lmstudio-ai/lmstudio-bug-tracker", "issues", 970),
    "The report's expected behaviour: each new message processed independently, each MCP "
    "query the one the current message asks for.",
)
for q, sql, res in [
    (
        "List all tables",
        "SELECT table_name FROM information_schema.tables",
        [["users"], ["orders"]],
    ),
    ("Count users in database", "SELECT count(*) FROM users", [[4210]]),
    (
        "How many orders last week?",
        "SELECT count(*) FROM orders WHERE ts > now() - interval '7 days'",
        [[388]],
    ),
    ("Count users in database again please", "SELECT count(*) FROM users", [[4212]]),
]:
    t.user(q)
    t.call("postgres_query", {"sql": sql}, res)
    t.msg(f"Result: {res}")

t = new(
    "f15-chainlit-45-three-cities",
    "distinct_reads",
    False,
    gh("Chainlit/cookbook", "issues", 45),
    "The weather example working as meant: one function call per city the user asks for, "
    "then the answer.",
)
t.user("Compare the weather in Boston, Denver and Miami")
for c, tmp in [("Boston, MA", "72"), ("Denver, CO", "65"), ("Miami, FL", "88")]:
    t.call(
        "get_current_weather",
        {"location": c, "unit": "fahrenheit"},
        {"location": c, "temperature": tmp, "forecast": ["sunny"]},
    )
t.msg("Miami is warmest (88 °F), then Boston (72 °F) and Denver (65 °F).")

t = new(
    "f15-aitoolsguidebook-slow-install",
    "polling",
    False,
    {"url": "https://aitoolsguidebook.com/en/articles/cursor-agent-mode-tool-call-stuck/"},
    "npm install on a fresh node_modules takes minutes and the agent UI shows 'running' "
    "with no progress: the agent is not stuck, just slow; it checks back after waits until "
    "the install ends.",
)
t.user("Install the dependencies and start the dev server")
t.call("run_in_background", {"command": "npm install"}, {"pid": 4242})
for _ in range(4):
    t.call("sleep", {"seconds": 45}, "")
    t.call("process_status", {"pid": 4242}, "running")
t.call("sleep", {"seconds": 45}, "")
t.call("process_status", {"pid": 4242}, "exited 0: added 1387 packages in 4m")
t.call("run_in_background", {"command": "npm run dev"}, {"pid": 4307})
t.msg("Dependencies are installed and the dev server is starting.")

t = new(
    "f15-sk-9729-run-completes",
    "polling",
    False,
    gh(SK, "issues", 9729),
    "The case that 'functions correctly most of the time': the run is polled after waits "
    "through queued and in_progress until it completes, then the messages are read.",
)
t.user("Summarise the attached quarterly report")
t.call("create_run", {"thread_id": "thread_q3", "assistant_id": "asst_reports"}, {"id": "run_8"})
for st in ["queued", "in_progress", "in_progress", "in_progress", "completed"]:
    t.call("sleep", {"seconds": 2}, "")
    t.call("get_run", {"thread_id": "thread_q3", "run_id": "run_8"}, {"status": st})
t.call("list_messages", {"thread_id": "thread_q3"}, ["Q3 revenue rose 6% ..."])
t.msg("Q3 revenue rose 6%, driven by services.")

t = new(
    "f15-adk-3672-429-backoff",
    "retry_transient",
    False,
    gh(ADK, "issues", 3672),
    "The same 429 RESOURCE_EXHAUSTED handled as the quota asks: wait, retry, and the check "
    "goes through.",
)
t.user("Create notes/shopping.md with eggs and bread")
t.call(
    "write_file",
    {"path": "notes/shopping.md", "content": "- eggs\n- bread\n"},
    "Successfully wrote to notes/shopping.md",
    mutates=True,
)
for wait in (10, 30):
    t.call(
        "run_sub_agent",
        EX15,
        error="429 RESOURCE_EXHAUSTED. Quota exceeded for generate_content requests per minute.",
        kind="rate_limit",
    )
    t.call("sleep", {"seconds": wait}, "")
t.call("run_sub_agent", EX15, {"verdict": "correct", "escalate": True})
t.msg("notes/shopping.md is correct.")

t = new(
    "f15-openhands-4454-entry-removed",
    "session_memory",
    False,
    gh("OpenHands/software-agent-sdk", "issues", 4454),
    "The fix the report names: after the placeholder entry is removed from settings.json, "
    "new conversations start again and the MCP call succeeds.",
)
t.user("Start a conversation about the flaky upload test")
t.call("mcp_list_tools", MCPA15, error=MCPE15, kind="not_found")
t.msg("The MCP server at mcp.example.com cannot be reached.")
t.workspace("The user removed the mcp.example.com entry from settings.json.")
t.session("s2")
t.user("Start a conversation about the flaky upload test")
t.call("mcp_list_tools", MCPA15, {"tools": []})
t.call("run_tests", {"path": "tests/test_upload.py"}, "1 failed, 11 passed")
t.msg("One upload test fails; the conversation can go on without MCP tools.")

t = new(
    "f15-caum-structural-progress",
    "edit_test_cycle",
    False,
    {"url": "https://caum.systems/cursor-agent-retry-loop/"},
    "The other answer to the page's question 'is this workflow still making structural "
    "progress?': search, edit, test, with the error moving after each edit until green.",
)
t.user("Fix the failing parse_date tests")
errs = [
    "ValueError: unconverted data remains: T10:00",
    "ValueError: time data '2024-01-02 10:00' does not match format",
    None,
]
for k, e in enumerate(errs):
    t.call(
        "search",
        {"query": ["def parse_date", "fromisoformat", "strptime("][k]},
        f"src/dates.py:{14 + k}",
    )
    t.call(
        "edit",
        {"path": "src/dates.py", "old": f"v{k}", "new": f"v{k + 1}"},
        "Applied edit to src/dates.py",
        mutates=True,
    )
    if e:
        t.call(
            "run_tests",
            {"path": "tests/test_dates.py"},
            error=f"FAILED test_iso - {e}",
            kind="exit_code",
        )
    else:
        t.call("run_tests", {"path": "tests/test_dates.py"}, "6 passed in 0.08s")
t.msg("parse_date accepts dates with times now; all six tests pass.")

t = new(
    "f15-dredyson-after-fix-answer",
    "conversation",
    False,
    {
        "url": "https://dredyson.com/fix-agent-gets-stuck-on-thinking-outputs-repeated-"
        "begin_of_sentence-tokens-a-complete-beginners-step-by-step-guide/"
    },
    "After the fix the guide walks through (a new chat, the cache cleared), the agent answers "
    "the same question in a few distinct messages.",
)
t.user("Why does the build fail on the CI runner?")
t.call("read_file", {"path": ".github/workflows/ci.yml"}, "jobs:\n  build:\n    runs-on: ubuntu")
t.msg("The workflow pins Node 16, but package.json requires Node 20.")
t.msg("Change actions/setup-node to node-version: 20 in the build job.")
t.user("Do it")
t.call(
    "edit_file",
    {"path": ".github/workflows/ci.yml", "old": "node-version: 16", "new": "node-version: 20"},
    "Edited .github/workflows/ci.yml",
    mutates=True,
)
t.msg("Updated; the next CI run will use Node 20.")

t = new(
    "f15-deerflow-1849-complex-subagent",
    "long_productive",
    False,
    gh("bytedance/deer-flow", "issues", 1849),
    "A complex task run by a sub-agent hits the recursion limit of 50 although every step is "
    "new (the report raises max_turns to 500): a 60-call survey of a data directory, one "
    "file at a time.",
)
t.user("Profile every CSV in data/raw: rows, columns, null counts, and write a report")
for k in range(20):
    t.call(
        "bash",
        {"command": f"wc -l data/raw/part_{k:02d}.csv"},
        f"{1000 + 37 * k} data/raw/part_{k:02d}.csv",
    )
    t.call("bash", {"command": f"head -1 data/raw/part_{k:02d}.csv"}, "id,ts,region,amount,status")
    t.call(
        "python",
        {
            "code": "import pandas as pd; "
            f"print(pd.read_csv('data/raw/part_{k:02d}.csv').isna().sum().sum())"
        },
        str((k * 7) % 13),
    )
t.call(
    "write_file",
    {"path": "reports/profile.md", "content": "# Profile\n..."},
    "Wrote reports/profile.md",
    mutates=True,
)
t.msg("Profiled 20 CSV files; the report is in reports/profile.md.")

t = new(
    "f15-agno-5248-one-search-per-tool",
    "research",
    False,
    gh(AGNO, "pull", 5248),
    "The per-tool limits the pull request adds, used as meant: one knowledge search, one "
    "text formatting call, one web search, each answering a different part of the question.",
)
t.user("Find Sherlock Holmes in the knowledge base, format his address, and check the museum")
t.call("search_knowledge_base", {"query": "Sherlock Holmes"}, CH15)
t.call("format_text", {"text": "221b baker street"}, "221B BAKER STREET")
t.call(
    "web_search",
    {"query": "Sherlock Holmes Museum opening hours"},
    [{"title": "Museum open daily 9:30-18:00"}],
)
t.msg("Holmes lives at 221B Baker Street; the museum there opens daily 9:30-18:00.")

t = new(
    "f15-axl-383-fifty-calls",
    "distinct_reads",
    False,
    gh("Observal/Axl", "issues", 383),
    "A prompt that legitimately needs 50+ tool calls is stopped at 50 ('this is not the "
    "behavior in other harnesses'): a license audit reading each dependency's manifest once.",
)
t.user("Audit the licenses of every dependency in vendor/")
for k in range(26):
    t.call(
        "read_file",
        {"path": f"vendor/dep{k:02d}/LICENSE"},
        f"{['MIT', 'Apache-2.0', 'BSD-3-Clause'][k % 3]} License ... ({k})",
    )
    t.call(
        "read_file",
        {"path": f"vendor/dep{k:02d}/package.json"},
        f'{{"name": "dep{k:02d}", "version": "1.{k}.0"}}',
    )
t.msg("26 dependencies: 9 MIT, 9 Apache-2.0, 8 BSD-3-Clause; no copyleft licenses.")


# ================================================================ fresh16 set
# Written at 18:40 UTC (Dec 4) from sources no earlier split uses (checked against every
# `source` of the file; one, amd/gaia #2160, is another issue of a repository an earlier split
# cites): Pythagora's GPT Pilot (#437, #424, #313), polywrap/PolyGPT #30,
# mistralai/mistral-vibe (#83, #990), FlowiseAI/Flowise #5620, microsoft/FluidFramework
# pull request #26686, agentlang-ai/agentlang #332, jsmestad/minga #401,
# google-antigravity/antigravity-cli #768, bradtaylorsf/alpha-loop #431, danhicks853/
# theappapp's LOOP_DETECTION_FIXED.md, the Cursor forum's "infinite cache read loop" thread,
# the devgent.org and bugicodes.com pages on Windsurf Cascade errors and hangs, and the test
# suite of vjsingh1984/victor's tool loop detector (`tests/unit/test_tool_loop_detector.py`,
# one trajectory per test case, positive or negative, with the label its test asserts);
# legitimate sessions from itayinbarr/little-coder #81, whoz-oss/coday pull request #861,
# countbot-ai/CountBot pull request #118, berenddeboer/ready-for-agent pull request #1141,
# getsentry/sentry pull request #110596, microsoft/agent-framework #6449, livekit/
# deploy-action pull request #26, daily-co/pipecat-cloud pull request #133, amd/gaia #2160
# and the loop sources' own counterparts. Each report is one trajectory labelled by what the
# source says is wrong (a loop) or right (legitimate work, or the working case the report
# contrasts with), translated to this file's classes and label rules; where a peer's
# threshold differs from these rules, the rules decide (the note says so). Committed before
# crs was run on them. Split "fresh16".

FRESH16_START = len(ALL)
PILOT = "Pythagora-io/gpt-pilot"
VIBE = "mistralai/mistral-vibe"
VICTOR = {"repo": "vjsingh1984/victor", "path": "tests/unit/test_tool_loop_detector.py"}
APPAPP = {"repo": "danhicks853/theappapp", "path": "LOOP_DETECTION_FIXED.md"}
CURSOR_CACHE = {
    "url": "https://forum.cursor.com/t/warning-infinite-cache-read-loop-in-v2-4-x-agent-"
    "thinking-mode-96m-tokens-spike/151035"
}
DEVGENT = {"url": "https://devgent.org/en/windsurf-cascade-internal-error-en/"}
BUGI = {
    "url": "https://bugicodes.com/fix/windsurf-cascade-stuck-5-tested-fixes-for-freezing-"
    "spinning-and-internal-errors/"
}

# ---- fresh16 loops

t = new(
    "f16-gptpilot-437-reimplements-feature",
    "cycle",
    True,
    gh(PILOT, "issues", 437),
    "GPT Pilot implements the requested hello-world feature, then returns and does the same "
    "several more times: the same file written with the same content and the same run "
    "printing the same greeting.",
)
t.user("Create a Node script that prints Hello, world!")
t.call("list_directory", {"path": "."}, ["package.json"])
HELLO16 = "console.log('Hello, world!');\n"
o = repeat_block(
    t,
    [
        {
            "tool": "write_file",
            "args": {"path": "index.js", "content": HELLO16},
            "result": "Saved index.js",
            "mutates": True,
        },
        {"tool": "run_command", "args": {"command": "node index.js"}, "result": "Hello, world!"},
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f16-gptpilot-424-gratitude-loop",
    "monologue",
    True,
    gh(PILOT, "issues", 424),
    "The agents are stuck trying to end the conversation: message after message of thanks "
    "and farewells about the same JSON automation-steps topic, no tool call, no new content.",
)
t.user("Design the JSON format for the automation steps")
t.call(
    "write_file",
    {"path": "docs/steps.schema.json", "content": '{"type": "array", "items": {"$ref": "#/step"}}'},
    "Saved docs/steps.schema.json",
    mutates=True,
)
BYE16 = (
    "As we part ways, please don't hesitate to reach out if you have any more questions about "
    "JSON objects representing automation steps. I'll be here, ready to help and learn from "
    "your expertise. Keep on coding and happy developing!"
)
idx = [t.msg(BYE16) for _ in range(2)]
t.msg(
    "I think it's safe to say that our conversation about JSON objects representing automation "
    "steps has come to a close. Thank you again for sharing your expertise and insights."
)
idx += [t.msg(BYE16) for _ in range(3)]
t.mark(idx[1], idx[1])

t = new(
    "f16-gptpilot-313-same-passing-test",
    "repeated_call",
    True,
    gh(PILOT, "issues", 313),
    "In the debugging recursion each level runs the same test command; going back up, it runs "
    "again although it passed and nothing changed in between.",
)
t.user("Fix the failing date formatter test")
t.call("read_file", {"path": "src/format.js"}, "export const fmt = d => d.toISOString()...")
t.call(
    "edit_file",
    {"path": "src/format.js", "old": "toISOString()", "new": "toISOString().slice(0, 10)"},
    "Edited src/format.js",
    mutates=True,
)
NPMT16 = {"command": "npm test"}
PASS16 = "format\n  ✓ formats dates as YYYY-MM-DD\n\n  5 passing (41ms)"
_again(t, 5, "run_command", NPMT16, PASS16)

t = new(
    "f16-polygpt-30-repeats-command",
    "repeated_call",
    True,
    gh("polywrap/PolyGPT", "issues", 30),
    "The agent repeats the same command with the same result; the maintainers propose loop "
    "detection that tells the agent when it repeats a series of steps.",
)
t.user("Get the ETH balance of vitalik.eth")
t.call("LearnWrap", {"namespace": "ens"}, "ens wrap: getResolver, getAddress, getContentHash ...")
BAL16 = {
    "uri": "wrap://ens/ethers.wraps.eth",
    "method": "getBalance",
    "args": {"address": "vitalik.eth"},
}
_again(t, 4, "InvokeWrap", BAL16, {"balance": "962.37 ETH"})

t = new(
    "f16-mistralvibe-83-flake8-message-cycle",
    "cycle",
    True,
    gh(VIBE, "issues", 83),
    "During a code audit the agent says 'Most nézzük meg a kód minőséget:' and runs the same "
    "flake8 command, gets 'Flake8 hibák száma: 1' and says the same again, ten times over.",
)
t.user("Végezz teljes auditot a projekten")
t.call("bash", {"command": "ls"}, "app\ntests\nsetup.cfg\nREADME.md")
t.call("bash", {"command": "pytest -q"}, "24 passed in 1.92s")
FLAKE16 = {"command": "flake8 app | wc -l | xargs -I{} echo 'Flake8 hibák száma: {}'"}
occ = []
for _ in range(6):
    m = t.msg("Most nézzük meg a kód minőséget:")
    c = t.call("bash", FLAKE16, "Flake8 hibák száma: 1")
    occ.append([m, c])
mark_cycle(t, occ)

t = new(
    "f16-mistralvibe-990-grep-fails-endlessly",
    "error_loop",
    True,
    gh(VIBE, "issues", 990),
    "Asked to backport a patch, the agent gets stuck endlessly running the same grep, which "
    "fails the same way each time.",
)
t.user("Review the patch and backport it to Python 3.6")
t.call("read_file", {"path": "fix.patch"}, "--- a/lib/parse.py\n+++ b/lib/parse.py\n@@ ...")
GREP16 = {"command": 'grep -n "class Parser" lib/parse_compat.py'}
_again(
    t,
    6,
    "bash",
    GREP16,
    error="grep: lib/parse_compat.py: No such file or directory (exit code 2)",
    kind="exit_code",
)

t = new(
    "f16-flowise-5620-supervisor-hello",
    "repeated_call",
    True,
    gh("FlowiseAI/Flowise", "issues", 5620),
    "A plain 'Hello' to a Supervisor multi-agent flow: the supervisor calls its SQL worker again "
    "and again with the same greeting (the first answer was enough) until Max Iterations.",
)
t.user("Hello")
GREET16 = "Hello! I can answer questions about the sales database. What would you like to know?"
_again(t, 5, "sql_agent", {"input": "Hello"}, GREET16)

t = new(
    "f16-fluid-26686-always-tool-call",
    "repeated_call",
    True,
    gh("microsoft/FluidFramework", "pull", 26686),
    "The tree agent's model always answers with a tool call, so the agent loops: the same "
    "tree read with the same state, again and again (the pull request adds a cap).",
)
t.user("Add a 'Done' column to the board")
t.call(
    "edit_tree",
    {"code": "root.columns.insertAtEnd({ title: 'Done', cards: [] })"},
    "Edit applied",
    mutates=True,
)
TREE16 = {"columns": [{"title": "Todo"}, {"title": "Doing"}, {"title": "Done"}]}
_again(t, 6, "get_tree", {}, TREE16)

t = new(
    "f16-agentlang-332-triage-cycle",
    "cycle",
    True,
    gh("agentlang-ai/agentlang", "issues", 332),
    "A two-step flow (ticketTriager, then triageDnsEntry on 'DNS') gets stuck repeating the same "
    "steps over and over with the same outputs.",
)
t.user("Triage ticket T-4411: api.example.org does not resolve from the office")
o = repeat_block(
    t,
    [
        {"tool": "ticketTriager", "args": {"ticket": "T-4411"}, "result": "DNS"},
        {
            "tool": "triageDnsEntry",
            "args": {"ticket": "T-4411", "host": "api.example.org"},
            "result": {"record": "A", "status": "missing in office resolver", "action": "escalate"},
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f16-minga-401-read-edit-cycle",
    "cycle",
    True,
    gh("jsmestad/minga", "issues", 401),
    "A model misreading tool output enters an infinite read-edit cycle: read the file, try "
    "the same edit, which fails the same way, read again (the issue adds a turn limit).",
)
t.user("Rename the config key :max_depth to :agent_max_turns")
t.call("grep", {"pattern": ":max_depth", "path": "lib"}, "lib/agent/config.ex:12: max_depth: 25")
CFG16 = "defmodule Agent.Config do\n  @defaults [\n    max_depth: 25,\n  ]\nend\n"
o = repeat_block(
    t,
    [
        {"tool": "read_file", "args": {"path": "lib/agent/config.ex"}, "result": CFG16},
        {
            "tool": "edit_file",
            "args": {
                "path": "lib/agent/config.ex",
                "old": "max_depth: 25,\n  ]",
                "new": "agent_max_turns: 25,\n  ]",
            },
            "error": "old text not found in lib/agent/config.ex",
            "kind": "not_found",
        },
    ],
    5,
)
mark_cycle(t, o)

t = new(
    "f16-victor-deepseek-same-window",
    "repeated_call",
    True,
    VICTOR | {"case": "test_deepseek_same_file_loop"},
    "DeepSeek reads the same line window of one file six times without progress (the peer "
    "warns at the third and breaks at the fourth; by this file's rules the unit has happened "
    "twice at the second).",
)
t.user("Why does the web search client time out?")
WIN16 = {"path": "investor_homelab/utils/web_search_client.py", "start_line": 200, "end_line": 200}
_again(t, 6, "read", WIN16, "200:        resp = self.session.get(url, timeout=self.timeout)")

t = new(
    "f16-victor-path-aliases",
    "no_progress",
    True,
    VICTOR | {"case": "test_file_path_aliases_normalized"},
    "The same file read four times through path, file, filepath and file_path: semantically "
    "identical calls with the same content (the peer breaks at the fourth).",
)
t.user("Read foo.py and tell me what it exports")
FOO16 = "def foo():\n    return 42\n\n__all__ = ['foo']\n"
idx = [t.call("read", {key: "foo.py"}, FOO16) for key in ["path", "file", "filepath", "file_path"]]
t.mark(idx[1], idx[1])

t = new(
    "f16-victor-offset-aliases",
    "no_progress",
    True,
    VICTOR | {"case": "test_line_offset_aliases_normalized"},
    "One window of foo.py read with its offset spelt start_line, start, offset and begin, the "
    "same lines each time.",
)
t.user("Show me foo.py from line 10")
LINES16 = "10: def foo():\n11:     return 42"
idx = [
    t.call("read", {"path": "foo.py", key: 10}, LINES16)
    for key in ["start_line", "start", "offset", "begin"]
]
t.mark(idx[1], idx[1])

t = new(
    "f16-victor-query-aliases",
    "no_progress",
    True,
    VICTOR | {"case": "test_query_aliases_normalized"},
    "code_search for 'def foo' as query, search, pattern and keyword: one search four times "
    "with the same hits.",
)
t.user("Where is foo defined?")
HITS16 = ["src/foo.py:1: def foo():"]
idx = [
    t.call("code_search", {key: "def foo"}, HITS16)
    for key in ["query", "search", "pattern", "keyword"]
]
t.mark(idx[1], idx[1])

t = new(
    "f16-victor-dot-slash",
    "repeated_call",
    True,
    VICTOR | {"case": "test_path_normalization_removes_dot_slash"},
    "foo.py read as ./foo.py and foo.py in turn, four times, the same content each time.",
)
t.user("Summarise foo.py")
idx = [t.call("read", {"path": p}, FOO16) for p in ["./foo.py", "foo.py", "./foo.py", "foo.py"]]
t.mark(idx[1], idx[1])

t = new(
    "f16-victor-numeric-offset",
    "repeated_call",
    True,
    VICTOR | {"case": "test_numeric_offset_coercion"},
    "One window read with offset 10, '10', 10 and 10: the number and its string are one "
    "argument, the same lines each time.",
)
t.user("Show foo.py from offset 10")
idx = [t.call("read", {"path": "foo.py", "offset": off}, LINES16) for off in [10, "10", 10, 10]]
t.mark(idx[1], idx[1])

t = new(
    "f16-victor-diminishing-returns",
    "no_progress",
    True,
    VICTOR | {"case": "test_detect_identical_results"},
    "Five code searches with different queries, every one with the same result (the peer "
    "flags diminishing returns at the fifth; by this file's rules at the second).",
)
t.user("Find where the retry policy is configured")
SAME16 = ["src/http/client.py:88: RETRIES = 3"]
idx = [
    t.call("code_search", {"query": q}, SAME16)
    for q in [
        "retry policy",
        "RETRIES constant",
        "number of retries",
        "retry configuration",
        "max retries",
    ]
]
t.mark(idx[1], idx[1])

t = new(
    "f16-victor-interleaved-read-symbol",
    "cycle",
    True,
    VICTOR | {"case": "test_deepseek_interleaved_reads"},
    "Reads of one file interleaved with the same symbol lookup in it, four rounds, the same "
    "answers: the read/symbol pair is a period-2 cycle.",
)
t.user("Explain WebSearchClient")
o = repeat_block(
    t,
    [
        {
            "tool": "read",
            "args": {"path": "utils/web_search_client.py"},
            "result": "class WebSearchClient:\n    def __init__(self, timeout=10): ...",
        },
        {
            "tool": "symbol",
            "args": {"file_path": "utils/web_search_client.py", "symbol": "WebSearchClient"},
            "result": {"kind": "class", "line": 14, "methods": ["search", "close"]},
        },
    ],
    4,
)
mark_cycle(t, o)

t = new(
    "f16-theappapp-unknown-tools",
    "error_loop",
    True,
    APPAPP,
    "The agent loops hallucinating tools: 'Unknown tool: interview_tool', then Miro, Jira, "
    "Zoom..., each a new name failing the same way (the fix normalises the error signature so "
    "the loop detector sees one error).",
)
t.user("Plan the user research for the onboarding redesign")
t.call("file_system", {"op": "read", "path": "docs/brief.md"}, "Goal: reduce onboarding drop-off")
idx = [
    t.call(
        name,
        {"action": "create", "topic": "onboarding research"},
        error=f"Unknown tool: {name}",
        kind="invalid_args",
    )
    for name in ["interview_tool", "Miro", "Jira", "Zoom", "Calendly", "Notion"]
]
t.mark(idx[1], idx[1])

t = new(
    "f16-cursorforum-cache-read-reviewing",
    "monologue",
    True,
    CURSOR_CACHE,
    "The agent gets stuck in a 'Reviewing/Examining' state for hours: the same review "
    "status again and again, no new code, the cache reads exploding.",
)
t.user("Refactor the OrderService to use the repository pattern")
t.call("read_file", {"path": "src/Services/OrderService.cs"}, "public class OrderService { ... }")
REV16 = "Reviewing the changes to OrderService and examining the repository interfaces..."
idx = [t.msg(REV16) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f16-alphaloop-431-auth-failure-queue",
    "known_failure",
    True,
    gh("bradtaylorsf/alpha-loop", "issues", 431),
    "An agent auth failure is not session-fatal: each queued issue starts a new agent session "
    "that fails with the same authentication error on the unchanged setup, burning the whole "
    "queue in seconds. The commands differ (one issue each), so the repeated unit is the "
    "failure: it has happened twice after the second session's run, and the third session's "
    "run is the one to refuse.",
)
AUTH16 = "Invalid API key · Please run /login (exit 1)"
calls = []
for k, num in enumerate([101, 102, 103, 104, 105]):
    if k:
        t.session(f"s{k + 1}")
    t.user(f"Work issue #{num} from the queue")
    calls.append(
        t.call(
            "run_agent",
            {"command": f"claude -p 'Implement issue #{num}' --output-format json"},
            error=AUTH16,
            kind="permission",
        )
    )
    t.msg(f"The agent run for #{num} failed; moving to the next issue.")
t.mark(calls[1], calls[1])

t = new(
    "f16-devgent-expired-token-next-session",
    "known_failure",
    True,
    DEVGENT,
    "An expired auth token makes Cascade's model call fail; a new session on the unchanged "
    "setup hits the same error at once (the fix is to sign in again, not to retry).",
)
t.user("Add a dark mode toggle to the settings page")
MODEL16 = {"model": "claude-sonnet", "task": "dark mode toggle"}
EXP16 = "Unauthenticated: your auth token has expired. Please sign in again."
t.call("cascade_step", MODEL16, error=EXP16, kind="permission")
t.msg("Cascade has encountered an internal error in this step.")
t.session("s2")
u = t.user("Add a dark mode toggle to the settings page")
c = t.call("cascade_step", MODEL16, error=EXP16, kind="permission")
t.call("cascade_step", MODEL16, error=EXP16, kind="permission")
t.call("cascade_step", MODEL16, error=EXP16, kind="permission")
t.mark(c, u)

t = new(
    "f16-bugicodes-terminal-completion-hang",
    "error_loop",
    True,
    BUGI,
    "A custom shell theme keeps Cascade from detecting that a command finished: every run of "
    "the same command times out the same way, and the agent keeps waiting and re-running.",
)
t.user("Run the unit tests")
TEST16 = {"command": "npm test", "cwd": "/home/dev/shop"}
idx = [
    t.call(
        "run_terminal_command",
        TEST16,
        error="command did not report completion within 120s",
        kind="timeout",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[2])

t = new(
    "f16-antigravity-768-venv-names",
    "no_progress",
    True,
    gh("google-antigravity/antigravity-cli", "issues", 768),
    "A project-setup skill creates a venv, then goes ahead to create another one with a "
    "different name, and gets stuck in that loop.",
)
t.user("/project-setup https://github.com/ROHIT318/fastapi-project.git feature/new-build")
t.call(
    "run_command",
    {"command": "git clone -b feature/new-build https://github.com/ROHIT318/fastapi-project.git"},
    "Cloning into 'fastapi-project'... done.",
    mutates=True,
)
idx = [
    t.call(
        "run_command",
        {"command": f"python -m venv {name}", "cwd": "fastapi-project"},
        "",
        mutates=True,
    )
    for name in [".venv", "venv", "env", ".env", "venv2", "pyenv"]
]
t.mark(idx[1], idx[1])

# ---- fresh16 legitimate

t = new(
    "f16-littlecoder-81-build-edit-build",
    "edit_test_cycle",
    False,
    gh("itayinbarr/little-coder", "issues", 81),
    "Build script fails on a build error, the model edits the source, calls the same build "
    "script again: the harness called it 'the exact same tool call', but the environment "
    "changed and the build moves on to the next error, then passes.",
)
t.user("Make the project build")
BUILD16 = {"command": "./scripts/build.sh"}
t.call(
    "bash",
    BUILD16,
    error="src/main.rs:14:5: error[E0425]: cannot find value `cfg` in this scope",
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "src/main.rs", "old": "run(cfg)", "new": "run(config)"},
    "Edited src/main.rs",
    mutates=True,
)
t.call(
    "bash",
    BUILD16,
    error="src/net.rs:31:9: error[E0308]: mismatched types: expected `u16`, found `i32`",
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "src/net.rs", "old": "let port = 8080;", "new": "let port: u16 = 8080;"},
    "Edited src/net.rs",
    mutates=True,
)
t.call("bash", BUILD16, "Finished release [optimized] target(s) in 12.4s")
t.msg("The build passes.")

t = new(
    "f16-coday-861-transient-then-ok",
    "retry_transient",
    False,
    gh("whoz-oss/coday", "pull", 861),
    "The review of the repetition detector: a tool that legitimately fails a few times in a "
    "row with transient errors while the agent retries correctly must not count as a loop.",
)
t.user("Fetch the consultant's availability for March")
AV16 = {"consultant_id": "C-7731", "month": "2026-03"}
t.call("get_availability", AV16, error="503 Service Unavailable", kind="server_error")
t.call("get_availability", AV16, error="503 Service Unavailable", kind="server_error")
t.call("get_availability", AV16, {"free_days": [3, 4, 10, 11, 17], "booked_days": 14})
t.msg("C-7731 is free on March 3, 4, 10, 11 and 17.")

t = new(
    "f16-countbot-118-retry-third-succeeds",
    "retry_transient",
    False,
    gh("countbot-ai/CountBot", "pull", 118),
    "Retries made to work: a network tool that fails twice with a retryable error and "
    "succeeds the third time (the pull request's test), then the answer.",
)
t.user("搜索一下今天上海的天气")
WS16 = {"query": "上海 今天 天气"}
t.call("web_search", WS16, error="ConnectionResetError: connection reset by peer", kind="network")
t.call("web_search", WS16, error="ConnectionResetError: connection reset by peer", kind="network")
t.call("web_search", WS16, [{"title": "上海天气", "snippet": "多云, 14-19°C, 东风3级"}])
t.msg("上海今天多云, 14 到 19 度, 东风 3 级。")

t = new(
    "f16-readyforagent-1141-silent-retry",
    "retry_transient",
    False,
    gh("berenddeboer/ready-for-agent", "pull", 1141),
    "A known-session continuation produces no output in the startup window (a transient "
    "provider stall); it is retried exactly once with the same session and prompt and "
    "succeeds, so the review does not restart.",
)
t.user("Apply the review findings on PR #88")
CONT16 = {"session": "ses_4f1c", "prompt": "Apply the findings listed in review.md"}
t.call(
    "continue_turn",
    CONT16,
    error="AgentBackendStartupTimeoutError: no stdout within 90s",
    kind="timeout",
)
t.call("continue_turn", CONT16, {"status": "completed", "files_changed": 3})
t.call("run_command", {"command": "npm test"}, "Tests: 42 passed, 42 total")
t.msg("The findings are applied and the tests pass.")

t = new(
    "f16-sentry-110596-rerun-on-request",
    "conversation",
    False,
    gh("getsentry/sentry", "pull", 110596),
    "The user asks Autofix to run the root-cause step again; the agent should re-run it "
    "rather than say it already did (the pull request steers it to), and the new run looks "
    "again with the issue's newer events.",
)
t.user("Find the root cause of issue PROJ-1A2")
RC16 = {"issue": "PROJ-1A2", "step": "root_cause"}
t.call(
    "run_autofix_step",
    RC16,
    {"run": 1, "cause": "Null user in checkout when the session expired", "confidence": 0.62},
)
t.msg("The likely root cause: a null user in checkout after the session expired.")
t.user("That doesn't look right, re-run the root cause analysis")
t.call(
    "run_autofix_step",
    RC16,
    {
        "run": 2,
        "cause": "Race between cart merge and login redirect drops user",
        "confidence": 0.81,
    },
)
t.msg("The second run points to a race between the cart merge and the login redirect.")

t = new(
    "f16-minga-401-continue-long-task",
    "long_productive",
    False,
    gh("jsmestad/minga", "issues", 401),
    "The turn limit's other side: a task that genuinely needs more iterations hits the limit, "
    "the user types /continue and the agent carries on with new edits and checks.",
)
t.user("Port the 18 legacy keybinding modules to the new Keymap API")
for k in range(18):
    if k == 9:
        t.msg("Turn limit reached (20/20). Use /continue to resume.")
        t.user("/continue")
    t.call(
        "read_file",
        {"path": f"lib/keys/legacy_{k:02d}.ex"},
        f'defmodule Keys.Legacy{k:02d} do\n  bind("C-{chr(97 + k)}", :cmd_{k})\nend',
    )
    t.call(
        "write_file",
        {
            "path": f"lib/keymap/mod_{k:02d}.ex",
            "content": f'Keymap.bind(:normal, "C-{chr(97 + k)}", :cmd_{k})\n',
        },
        f"Wrote lib/keymap/mod_{k:02d}.ex",
        mutates=True,
    )
t.call("run_command", {"command": "mix test test/keymap"}, "36 tests, 0 failures")
t.msg("All 18 modules are ported; the keymap tests pass.")

t = new(
    "f16-victor-different-args",
    "distinct_reads",
    False,
    VICTOR | {"case": "test_no_loop_with_different_arguments"},
    "One tool, different arguments: foo.py, then bar.py, each read once.",
)
t.user("Compare foo.py and bar.py")
t.call("read_file", {"path": "foo.py"}, FOO16)
t.call("read_file", {"path": "bar.py"}, "def bar():\n    return foo() + 1\n")
t.msg("bar() wraps foo() and adds one.")

t = new(
    "f16-victor-counter-resets",
    "distinct_reads",
    False,
    VICTOR | {"case": "test_counter_resets_with_different_call"},
    "foo.py read twice, bar.py, then foo.py again: the peer's counter resets on the different "
    "call and it asserts no loop.",
)
t.user("Check how foo.py and bar.py fit together")
t.call("read_file", {"path": "foo.py"}, FOO16)
t.call("read_file", {"path": "foo.py"}, FOO16)
t.call("read_file", {"path": "bar.py"}, "def bar():\n    return foo() + 1\n")
t.call("read_file", {"path": "foo.py"}, FOO16)
t.msg("bar.py imports foo() from foo.py.")

t = new(
    "f16-victor-read-write-read",
    "edit_test_cycle",
    False,
    VICTOR | {"case": "test_no_contention_with_mixed_operations"},
    "Read foo.py, edit it, read it again: the re-read follows a write, the content changed.",
)
t.user("Make foo return 43")
t.call("read_file", {"path": "foo.py"}, FOO16)
t.call(
    "edit_files",
    {"path": "foo.py", "old": "return 42", "new": "return 43"},
    "Edited foo.py",
    mutates=True,
)
t.call("read_file", {"path": "foo.py"}, "def foo():\n    return 43\n\n__all__ = ['foo']\n")

t = new(
    "f16-victor-different-values",
    "distinct_reads",
    False,
    VICTOR | {"case": "test_different_values_still_different"},
    "Normalisation must not conflate different values: foo.py at offsets 10 and 20, bar.py at "
    "10, baz.py at 30.",
)
t.user("Show me the four call sites")
for path, off in [("foo.py", 10), ("foo.py", 20), ("bar.py", 10), ("baz.py", 30)]:
    t.call("read", {"path": path, "offset": off}, f"{off}: call_site_{path[:3]}_{off}()")
t.msg("Four call sites, one per window.")

t = new(
    "f16-victor-varied-results",
    "research",
    False,
    VICTOR | {"case": "test_no_detection_with_varied_results"},
    "Five code searches with different queries and different results each time.",
)
t.user("Map out the HTTP layer")
for k, q in enumerate(["class HttpClient", "def request", "RETRIES", "def close", "timeout="]):
    t.call("code_search", {"query": q}, [f"src/http/mod{k}.py:{10 + k}: {q}"])
t.msg("The HTTP layer is five modules under src/http.")

t = new(
    "f16-victor-varied-tools",
    "edit_test_cycle",
    False,
    VICTOR | {"case": "test_no_cycle_with_varied_tools"},
    "Read, edit, test, commit: four different tools in sequence, no cycle.",
)
t.user("Fix the off-by-one in paginate()")
t.call("read_file", {"path": "src/page.py"}, "def paginate(xs, n):\n    return xs[: n - 1]\n")
t.call(
    "edit_files",
    {"path": "src/page.py", "old": "xs[: n - 1]", "new": "xs[:n]"},
    "Edited src/page.py",
    mutates=True,
)
t.call("run_tests", {"path": "tests/test_page.py"}, "3 passed in 0.04s")
t.call(
    "git",
    {"args": ["commit", "-am", "Fix paginate off-by-one"]},
    "[main 4e1a2b9] Fix",
    mutates=True,
)

t = new(
    "f16-victor-very-long-history",
    "long_productive",
    False,
    VICTOR | {"case": "test_very_long_history"},
    "A hundred calls over five tools, each with its own id: a long run of different calls "
    "the peer must not flag.",
)
t.user("Reconcile the 100 invoices in batch 2026-11")
tools16 = ["fetch_invoice", "match_payment", "check_tax", "update_ledger", "notify_owner"]
for i in range(100):
    tool = tools16[i % 5]
    t.call(
        tool,
        {"id": i},
        {"id": i, "tool": tool, "ok": True, "amount": 100 + 7 * i},
        mutates=tool == "update_ledger",
    )
t.msg("All 100 invoices are reconciled.")

t = new(
    "f16-agentframework-6449-many-iterations",
    "research",
    False,
    gh("microsoft/agent-framework", "issues", 6449),
    "A request that needs more function-calling iterations than a small per-request cap: the "
    "maintainers answer that max_iterations is configured on the client for exactly such "
    "work; every call here asks something new.",
)
t.user("For each of our 14 warehouses, get today's stock level of SKU A-100")
for k in range(14):
    t.call(
        "get_stock",
        {"warehouse": f"WH-{k + 1:02d}", "sku": "A-100"},
        {"warehouse": f"WH-{k + 1:02d}", "on_hand": (k * 37) % 120},
    )
t.msg("Stock of A-100 across the 14 warehouses is listed above; WH-01 has none.")

t = new(
    "f16-livekit-26-status-until-running",
    "polling",
    False,
    gh("livekit/deploy-action", "pull", 26),
    "After a deploy, the agent status is checked until it returns 'Running' or a timeout is "
    "reached: the same status call between waits, the status moving from Pending to Running.",
)
t.user("Deploy the voice agent and wait until it is running")
t.call("lk_agent_deploy", {"agent": "voice-bot"}, {"deployment": "dep-77", "status": "Pending"})
ST16 = {"agent": "voice-bot"}
for status in ["Pending", "Pending", "Pending", "Building", "Building", "Running"]:
    t.call("sleep", {"seconds": 10}, "")
    t.call("lk_agent_status", ST16, {"agent": "voice-bot", "status": status})
t.msg("voice-bot is running.")

t = new(
    "f16-pipecatcloud-133-wait-new-deployment",
    "polling",
    False,
    gh("daily-co/pipecat-cloud", "pull", 133),
    "When updating an agent, the CLI waits for the deployment id to change before checking "
    "readiness: the same describe call answers the old id a few times, then the new one, then "
    "ready.",
)
t.user("Update the support-bot image to v2.3 and tell me when it is live")
t.call(
    "pcc_deploy",
    {"agent": "support-bot", "image": "registry.example.com/support-bot:2.3"},
    {"accepted": True},
)
DESC16 = {"agent": "support-bot"}
answers = [
    {"deployment_id": "d-101", "ready": True},
    {"deployment_id": "d-101", "ready": True},
    {"deployment_id": "d-102", "ready": False},
    {"deployment_id": "d-102", "ready": False},
    {"deployment_id": "d-102", "ready": True},
]
for ans in answers:
    t.call("sleep", {"seconds": 5}, "")
    t.call("pcc_agent_status", DESC16, ans)
t.msg("support-bot v2.3 (deployment d-102) is live.")

t = new(
    "f16-gaia-2160-recovery-probe",
    "conversation",
    False,
    gh("amd/gaia", "issues", 2160),
    "After a window of 401s, later queries in the same session must probe the tool again "
    "rather than answer from history ('we are still running into an authentication "
    "issue'): the next query's call succeeds, and so does the first query asked again.",
)
t.user("Any new mail from the auditors?")
MAIL16 = {"folder": "INBOX", "from": "auditors@example.com", "unread": True}
t.call("search_mail", MAIL16, error="401 Unauthorized: token rejected", kind="permission")
t.msg("I'm running into an authentication issue with the mailbox right now.")
t.user("Did the bank send the statement?")
t.call(
    "search_mail",
    {"folder": "INBOX", "from": "statements@bank.example", "unread": True},
    [{"subject": "Your November statement", "received": "2026-07-17T08:40:00Z"}],
)
t.msg("Yes: 'Your November statement' arrived this morning.")
t.user("And the auditors, anything now?")
t.call(
    "search_mail",
    MAIL16,
    [{"subject": "Q3 audit: open items", "received": "2026-07-17T09:12:00Z"}],
)
t.msg("One new mail from the auditors: 'Q3 audit: open items'.")

t = new(
    "f16-gptpilot-313-test-after-change",
    "edit_test_cycle",
    False,
    gh(PILOT, "issues", 313),
    "The issue's own rule: a passed command need not run again unless something changed. "
    "Here each run follows an edit, so the same test command is re-run legitimately, the "
    "same suite passing after each change.",
)
t.user("Add a weekday and a month-name helper to the formatter, with tests")
NPMT16B = {"command": "npm test"}
t.call("run_command", NPMT16B, "format\n  ✓ formats dates as YYYY-MM-DD\n\n  5 passing (40ms)")
t.call(
    "edit_file",
    {
        "path": "src/format.js",
        "old": "export const fmt",
        "new": "export const weekday = ...\nexport const fmt",
    },
    "Edited src/format.js",
    mutates=True,
)
t.call(
    "edit_file",
    {
        "path": "test/format.test.js",
        "old": "describe('format'",
        "new": "it('weekday')...\ndescribe('format'",
    },
    "Edited test/format.test.js",
    mutates=True,
)
t.call(
    "run_command",
    NPMT16B,
    "format\n  ✓ formats dates as YYYY-MM-DD\n  ✓ weekday\n\n  6 passing (44ms)",
)
t.call(
    "edit_file",
    {
        "path": "src/format.js",
        "old": "export const fmt",
        "new": "export const monthName = ...\nexport const fmt",
    },
    "Edited src/format.js",
    mutates=True,
)
t.call(
    "run_command",
    NPMT16B,
    "format\n  ✓ formats dates as YYYY-MM-DD\n  ✓ weekday\n\n  6 passing (41ms)",
)
t.call(
    "edit_file",
    {
        "path": "test/format.test.js",
        "old": "describe('format'",
        "new": "it('monthName')...\ndescribe('format'",
    },
    "Edited test/format.test.js",
    mutates=True,
)
t.call(
    "run_command",
    NPMT16B,
    "format\n  ✓ formats dates as YYYY-MM-DD\n  ✓ weekday\n  ✓ monthName\n\n  7 passing (45ms)",
)
t.msg("Both helpers are added with tests; 7 passing.")

t = new(
    "f16-mistralvibe-83-audit-done-once",
    "distinct_reads",
    False,
    gh(VIBE, "issues", 83),
    "What the reporter expected of the audit: each check run once and the agent moving on "
    "(flake8, mypy, bandit, coverage), with the same short lead-in before several of them.",
)
t.user("Végezz teljes auditot a projekten")
t.msg("Most nézzük meg a kód minőséget:")
t.call("bash", {"command": "flake8 app | wc -l"}, "1")
t.msg("Most nézzük meg a típusokat:")
t.call("bash", {"command": "mypy app"}, "Success: no issues found in 31 source files")
t.msg("Most nézzük meg a biztonságot:")
t.call("bash", {"command": "bandit -q -r app"}, "No issues identified.")
t.call("bash", {"command": "pytest -q --cov=app"}, "24 passed in 2.31s\nTOTAL 87%")
t.msg("Audit kész: 1 flake8 hiba, típusok rendben, nincs biztonsági hiba, 87% lefedettség.")

t = new(
    "f16-flowise-5620-greeting-then-question",
    "conversation",
    False,
    gh("FlowiseAI/Flowise", "issues", 5620),
    "What the report expected: a greeting answered at once without tools, then a real "
    "question sent once to the SQL worker.",
)
t.user("Hello")
t.msg("Hello! I can answer questions about the sales database.")
t.user("How many orders did we ship in October?")
t.call(
    "sql_agent",
    {"input": "How many orders did we ship in October?"},
    "SELECT count(*) FROM orders WHERE shipped_at >= '2025-10-01' AND shipped_at < '2025-11-01' "
    "-> 4812",
)
t.msg("4,812 orders shipped in October.")

t = new(
    "f16-alphaloop-431-queue-works",
    "session_memory",
    False,
    gh("bradtaylorsf/alpha-loop", "issues", 431),
    "The queue working as meant: one agent session per queued issue, the same kind of command "
    "with a different issue each time, each run completing.",
)
for k, num in enumerate([201, 202, 203, 204]):
    if k:
        t.session(f"s{k + 1}")
    t.user(f"Work issue #{num} from the queue")
    t.call(
        "run_agent",
        {"command": f"claude -p 'Implement issue #{num}' --output-format json"},
        {"issue": num, "status": "success", "pr": 900 + k},
        mutates=True,
    )
    t.msg(f"Issue #{num} is done: PR #{900 + k}.")

t = new(
    "f16-devgent-resend-after-network-error",
    "retry_transient",
    False,
    DEVGENT,
    "A transient network error fails one Cascade step; resending the prompt (the page's "
    "seventh fix) works, and the work goes on.",
)
t.user("Add a dark mode toggle to the settings page")
STEP16 = {"model": "claude-sonnet", "task": "dark mode toggle"}
t.call(
    "cascade_step",
    STEP16,
    error="Cascade has encountered an internal error in this step: network error",
    kind="network",
)
t.call("cascade_step", STEP16, {"edits": ["src/settings/Theme.tsx"], "status": "done"})
t.call("run_command", {"command": "npm run typecheck"}, "Found 0 errors.")
t.msg("The toggle is added and the types check.")


# ================================================================ fresh17 set
# Written at 19:55 UTC (Dec 4) from sources no earlier split uses (checked against every
# `source` of the file; some are other issues of repositories earlier splits cite:
# google-gemini/gemini-cli, langchain-ai/langchain, openclaw/openclaw, agent0ai/agent-zero,
# anthropics/claude-code, OpenHands/OpenHands): nexu-io/looper #74, kirodotdev/Kiro #10079,
# Team-Commonly/commonly #508, first-tree-ai/first-tree pull request #347, elizaOS/eliza pull
# request #4331, EKKOLearnAI/hermes-studio #267, langchain #26019 and #2323,
# NatLabRockies/openstudio-mcp pull request #26, gemini-cli #8259, #7525 and #15384, openclaw
# #118355, agent-zero #1056, claude-code #18864, OpenHands #10350,
# TransformerOptimus/SuperAGI #323 and openonion/connectonion #106. Each report is one
# trajectory labelled by what the source says is wrong (a loop) or right (legitimate work,
# or the working case the report contrasts with), translated to this file's classes and
# label rules. Committed before crs was run on them. Split "fresh17".

FRESH17_START = len(ALL)
LOOPER = gh("nexu-io/looper", "issues", 74)
KIRO = gh("kirodotdev/Kiro", "issues", 10079)
COMMONLY = gh("Team-Commonly/commonly", "issues", 508)
FIRSTTREE = gh("first-tree-ai/first-tree", "pull", 347)
ELIZA = gh("elizaOS/eliza", "pull", 4331)
HSTUDIO = gh("EKKOLearnAI/hermes-studio", "issues", 267)
LC26019 = gh("langchain-ai/langchain", "issues", 26019)
LC2323 = gh("langchain-ai/langchain", "issues", 2323)
OSMCP = gh("NatLabRockies/openstudio-mcp", "pull", 26)
GEM8259 = gh("google-gemini/gemini-cli", "issues", 8259)
GEM7525 = gh("google-gemini/gemini-cli", "issues", 7525)
GEM15384 = gh("google-gemini/gemini-cli", "issues", 15384)
OC118355 = gh("openclaw/openclaw", "issues", 118355)
AZ1056 = gh("agent0ai/agent-zero", "issues", 1056)
CC18864 = gh("anthropics/claude-code", "issues", 18864)
OH10350 = gh("OpenHands/OpenHands", "issues", 10350)
SUPERAGI = gh("TransformerOptimus/SuperAGI", "issues", 323)
CONNECT = gh("openonion/connectonion", "issues", 106)

# ---- fresh17 loops

CODEX17 = {"command": "codex exec --model gpt-5.5 'fix the failing CI job for PR #212'"}
CODEX17_ERR = (
    "exit status 1: The 'gpt-5.5' model requires a newer version of Codex. Please upgrade to "
    "the latest app or CLI and try again."
)
t = new(
    "f17-looper-74-model-error-next-loop",
    "known_failure",
    True,
    LOOPER,
    "The configured Codex CLI is too old for the configured model; the failure is "
    "deterministic, yet each restarted fixer loop runs the same agent command and fails the "
    "same way (the report asks for it to be terminal, not retried).",
)
t.user("Fix the failing CI job for PR #212")
t.call("run_agent", CODEX17, error=CODEX17_ERR, kind="exit_code")
t.msg("The agent run failed; the loop will restart.")
t.session("s2")
u = t.user("Fix the failing CI job for PR #212")
c = t.call("run_agent", CODEX17, error=CODEX17_ERR, kind="exit_code")
t.call("run_agent", CODEX17, error=CODEX17_ERR, kind="exit_code")
t.mark(c, u)

t = new(
    "f17-looper-74-retried-as-transient",
    "error_loop",
    True,
    LOOPER,
    "Within one worker loop the same deterministic configuration failure is classified as "
    "retryable and the same command is restarted again and again with the same error.",
)
t.user("Work through the queued review comments on PR #215")
t.call(
    "git",
    {"args": "fetch origin pull/215/head"},
    "From github.com:acme/app\n * branch pull/215/head",
)
CODEX17B = {"command": "codex exec --model gpt-5.5 'address review comments on PR #215'"}
idx = [t.call("run_agent", CODEX17B, error=CODEX17_ERR, kind="exit_code") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f17-kiro-10079-wait-timeout-loop",
    "error_loop",
    True,
    KIRO,
    "The command finishes but the agent does not notice: it waits until the timeout, then "
    "runs the same command again, and again (transient timeouts past the retry budget).",
)
t.user("Install the dependencies and run the unit tests")
t.call("read_file", {"path": "package.json"}, '{"scripts": {"test": "vitest run"}}')
TO17 = "Command did not report completion within 300s; timed out waiting for it to finish."
idx = [
    t.call("execute_bash", {"command": "npm install && npm test"}, error=TO17, kind="timeout")
    for _ in range(6)
]
t.mark(idx[1], idx[2])

t = new(
    "f17-commonly-508-ack-pingpong",
    "cycle",
    True,
    COMMONLY,
    'Two agents @mention each other with acknowledgments ("confirmed, parked" / '
    '"acknowledged"), each reply waking the other, about fifteen rounds with no new '
    "artifact or decision.",
)
t.user("@Theo coordinate with @Cody on the login page; park it until the design review.")
o = repeat_block(
    t,
    [
        {
            "tool": "post_message",
            "args": {
                "pod": "engineering",
                "text": "@Cody confirmed, login page parked until the design review.",
            },
            "result": {"delivered": True},
        },
        {
            "tool": "post_message",
            "args": {
                "pod": "engineering",
                "text": "@Theo acknowledged, standing by until the design review.",
            },
            "result": {"delivered": True},
        },
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "f17-firsttree-347-bare-ack-echo",
    "monologue",
    True,
    FIRSTTREE,
    'Two agents in a group chat answer each other with bare acknowledgments ("@developer .", '
    '"@architect (待命中)"), over and over, with no tool call and no information.',
)
t.user("@architect please hand the schema task to @developer")
t.call(
    "create_task", {"title": "Design the orders schema", "assignee": "developer"}, {"id": "T-41"}
)
idx = []
for _ in range(5):
    idx.append(t.msg("@developer ."))
    idx.append(t.msg("@architect (待命中)"))
t.mark(idx[2], idx[3], period=2)

t = new(
    "f17-eliza-4331-canned-reply",
    "monologue",
    True,
    ELIZA,
    "During an ongoing group-chat conversation the agent sends the same canned response to "
    "every message (the pull request prevents exactly that).",
)
CANNED17 = (
    "Thanks for reaching out! I'm here to help with anything related to the project. Let me "
    "know what you need and I'll do my best to assist."
)
t.user("hey, when is the next community call?")
m1 = t.msg(CANNED17)
t.user("is the token migration finished?")
m2 = t.msg(CANNED17)
t.user("can you link the docs for running a node?")
t.msg(CANNED17)
t.user("why do you keep saying the same thing?")
t.msg(CANNED17)
t.mark(m2, m2)

t = new(
    "f17-hermesstudio-267-mention-echo",
    "monologue",
    True,
    HSTUDIO,
    "In a group chat an agent keeps @mentioning another agent with the same sentence, pulling "
    "it back in, and they repeat each other (复读) without end.",
)
t.user("@研究员 帮我整理一下本周的竞品动态")
t.call("web_search", {"query": "本周 竞品 发布 动态"}, ["A 公司发布 2.0 版本", "B 公司完成融资"])
t.msg("本周动态已整理：A 公司发布 2.0 版本，B 公司完成融资。")  # noqa: RUF001
ECHO17 = "@写手 请根据上面的竞品动态写一段总结，@研究员 会补充数据来源。"  # noqa: RUF001
idx = [t.msg(ECHO17) for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f17-langchain-26019-flight-status",
    "repeated_call",
    True,
    LC26019,
    "A LangGraph customer-support agent calls the flight-information tool again and again "
    "without using its output or answering the user.",
)
t.user("What time is my flight?")
FL17 = {
    "ticket_no": "7240005432906569",
    "flight_no": "LX0112",
    "departure_airport": "CDG",
    "scheduled_departure": "2024-05-03 12:09",
    "status": "Scheduled",
}
_again(t, 6, "fetch_user_flight_information", {"passenger_id": "3442 587242"}, [FL17])

t = new(
    "f17-langchain-2323-llm-math-error",
    "error_loop",
    True,
    LC2323,
    "An error in the llm-math tool makes the agent call it again with the same input, an "
    "endless agent loop of the same failure.",
)
t.user("What is Olivia Wilde's boyfriend's age raised to the 0.23 power?")
t.call("Search", {"query": "Olivia Wilde boyfriend"}, "Harry Styles")
t.call("Search", {"query": "Harry Styles age"}, "29 years")
MATH17 = {"question": "29^0.23"}
ERR17 = "ValueError: unknown format from LLM: 29 ** 0.23 = ?"
idx = [t.call("Calculator", MATH17, error=ERR17, kind="invalid_args") for _ in range(5)]
t.mark(idx[1], idx[1])

t = new(
    "f17-langchain-2323-search-loop",
    "repeated_call",
    True,
    LC2323,
    "A commenter's loop on the search tool: the same query with the same answer until the "
    "token limit (the workaround is a prompt saying not to reuse the same input).",
)
t.user("Who won the 2022 Tour de France and what team were they on?")
t.call("Search", {"query": "2022 Tour de France winner"}, "Jonas Vingegaard")
_again(
    t,
    5,
    "Search",
    {"query": "Jonas Vingegaard team 2022"},
    "Jonas Vingegaard rode for Team Jumbo-Visma in 2022.",
)

t = new(
    "f17-openstudio-26-find-files-reworded",
    "no_progress",
    True,
    OSMCP,
    "The agent loops on finding model files: the same search re-spelt (glob forms, case) with "
    "the same empty answer (the pull request adds guardrails against these loops).",
)
t.user("Load the office building model and list its thermal zones")
t.call("list_files", {"directory": "/runs"}, ["baseline/", "notes.txt"])
pats = ["*.osm", "**/*.osm", "*.OSM", "./*.osm", "**/*.OSM", "*.osm*"]
idx = [t.call("find_files", {"pattern": p}, "No files found.") for p in pats]
t.mark(idx[1], idx[1])

t = new(
    "f17-openstudio-26-dir-respelt",
    "no_progress",
    True,
    OSMCP,
    "The same directory listed through re-spelt paths (trailing slash, ./, absolute), the same "
    "listing each time, while the file it looks for is not there.",
)
t.user("Find the weather file for the Chicago run")
LIST17 = ["in.osm", "run/", "reports/"]
paths = ["/runs/chicago", "/runs/chicago/", "./runs/chicago", "runs/chicago", "/runs//chicago"]
idx = [t.call("list_files", {"directory": p}, LIST17) for p in paths]
t.mark(idx[1], idx[1])

t = new(
    "f17-gemini-8259-readfile-again",
    "repeated_call",
    True,
    GEM8259,
    "The user says not to read the component template again and again; the agent reads the "
    "same file four more times with the same content, until the loop is halted.",
)
t.user("try again, do not ReadFile office-details.component.html again and again")
HTML17 = '<div class="office-details">\n  <h2>{{ office.name }}</h2>\n</div>'
_again(
    t,
    4,
    "read_file",
    {"absolute_path": "C:\\src\\S.WebUI\\office-details.component.html"},
    HTML17,
)

t = new(
    "f17-gemini-7525-stale-log",
    "cycle",
    True,
    GEM7525,
    "The agent reads the test log, says it still sees the old log and will clear its cache "
    "and read it again, and reads the same log with the same content, again and again.",
)
t.user("Run the tests and tell me why the integration test fails")
t.call("run_shell_command", {"command": "npm test > test_run.log 2>&1"}, "")
LOG17 = "FAIL test/api.spec.ts\n  ✕ returns 200 for /health (12 ms)\nTests: 1 failed, 14 passed"
occ = []
for _ in range(4):
    r = t.call("read_file", {"path": "test_run.log"}, LOG17)
    m = t.msg("I am still seeing the old log file. I will try to clear my cache and read it again.")
    occ.append([r, m])
mark_cycle(t, occ)

t = new(
    "f17-gemini-15384-ill-execute",
    "error_loop",
    True,
    GEM15384,
    'The agent announces "I\'ll execute." and emits the same shell call, which fails before '
    "running, then announces it again: the same message and the same failed call, over and "
    "over.",
)
t.user("Build the relwithdebinfo preset and run the three debug scenes")
CMAKE17 = {
    "command": "cmake --build --preset linux-relwithdebinfo && ./build/relwithdebinfo/app "
    'full_debug run_and_exit > full_debug.log 2>&1; echo "full_debug: $?"'
}
MAL17 = "Malformed function call: the tool call could not be parsed and was not executed."
occ = []
for _ in range(5):
    m = t.msg("I'll execute.")
    c = t.call("run_shell_command", CMAKE17, error=MAL17, kind="invalid_args")
    occ.append([m, c])
t.mark(occ[1][0], occ[1][-1], period=2)

t = new(
    "f17-openclaw-118355-send-again",
    "repeated_call",
    True,
    OC118355,
    "After message.send succeeds (deliveryStatus sent, a messageId), the agent sends the "
    "identical message again without user input, again and again; each answer has a new id.",
)
t.user("Post the ferry schedule for tomorrow in #iba-ilha")
t.call(
    "web_fetch",
    {"url": "https://ferry.example.org/schedule?date=tomorrow"},
    "06:30, 09:00, 13:15, 17:40",
)
SEND17 = {
    "channel": "discord:1514733173156876288",
    "text": "Ferry schedule for tomorrow: 06:30, 09:00, 13:15, 17:40.",
}
idx = [
    t.call(
        "message.send",
        SEND17,
        {"deliveryStatus": "sent", "messageId": str(1514790000000000000 + 7919 * k)},
    )
    for k in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f17-agentzero-1056-same-message-again",
    "monologue",
    True,
    AZ1056,
    'The framework answers "You have sent the same message again. You have to do something '
    'else!" and the agent sends the same message again, forever.',
)
t.user("Summarise the three PDFs in /work/reports")
t.call(
    "code_execution_tool",
    {"runtime": "terminal", "code": "ls /work/reports"},
    "q1.pdf\nq2.pdf\nq3.pdf",
)
SAME17 = (
    "I will now read the reports and summarise them. First I need to extract the text from "
    "each PDF and then combine the key points into one summary."
)
idx = []
for _ in range(4):
    idx.append(t.msg(SAME17))
    t.user("You have sent the same message again. You have to do something else!")
t.mark(idx[1], idx[1])

t = new(
    "f17-claude-18864-empty-update-loop",
    "repeated_call",
    True,
    CC18864,
    "In plan mode, asked to return a specification file to empty, the agent writes the same "
    'empty content again and again, its plan stuck at "0 of 3 done".',
)
t.user("Reset docs/spec.md to an empty file")
t.call("Read", {"file_path": "docs/spec.md"}, "# Spec\n\n## Goals\n...")
_again(
    t,
    5,
    "Write",
    {"file_path": "docs/spec.md", "content": ""},
    "File updated. Plan progress: 0 of 3 done.",
    mutates=True,
)

# ---- fresh17 legitimate

t = new(
    "f17-openhands-10350-continue-long-command",
    "polling",
    False,
    OH10350,
    "A long-running command is continued by sending an empty command several times in a row, "
    "each answer with new output; the issue says this must not be flagged as stuck.",
)
t.user("Set up the environment and run the test suite")
t.call(
    "execute_bash",
    {"command": "pip install -r requirements.txt"},
    "Collecting numpy\n[The command has no new output after 30 seconds. Send empty command "
    "to continue]",
)
for line in [
    "Collecting pandas\nCollecting scipy",
    "Building wheel for scipy (pyproject.toml) ...",
    "Building wheel for scipy (pyproject.toml) ... done",
    "Successfully installed numpy-1.26.4 pandas-2.2.2 scipy-1.13.0",
]:
    t.call("execute_bash", {"command": ""}, line)
t.call("execute_bash", {"command": "pytest -q"}, "38 passed in 4.21s")
t.msg("Environment is set up and all 38 tests pass.")

t = new(
    "f17-kiro-10079-command-completes",
    "edit_test_cycle",
    False,
    KIRO,
    "The expected behaviour: each command's completion is detected and the agent moves on, "
    "fixing the failures the test run reports one after another.",
)
t.user("Install the dependencies and run the unit tests")
t.call("execute_bash", {"command": "npm install"}, "added 412 packages in 18s")
t.call(
    "execute_bash",
    {"command": "npm test"},
    "FAIL src/date.test.ts: expected '2024-05-03' got '03/05/2024'",
)
t.call(
    "edit_file",
    {"path": "src/date.ts", "old": "toLocaleDateString()", "new": "toISOString().slice(0, 10)"},
    "ok",
    mutates=True,
)
t.call(
    "execute_bash",
    {"command": "npm test"},
    "FAIL src/money.test.ts: expected '1,000.00' got '1000'",
)
t.call(
    "edit_file",
    {"path": "src/money.ts", "old": "String(v)", "new": "fmt.format(v)"},
    "ok",
    mutates=True,
)
t.call("execute_bash", {"command": "npm test"}, "Test Files 6 passed (6)\nTests 41 passed (41)")
t.msg("All 41 tests pass.")

t = new(
    "f17-kiro-10079-dev-server-poll",
    "polling",
    False,
    KIRO,
    "A background dev server is checked after waits until it reports ready; each check is "
    "after a sleep and the output moves (the report's expected behaviour: notice completion).",
)
t.user("Start the dev server and open the dashboard")
t.call("execute_bash", {"command": "npm run dev > dev.log 2>&1 &"}, "[1] 48213")
for out in [
    "vite v5.2.0 building for development...",
    "vite v5.2.0 building for development...\ntransforming (812) src/pages/Dashboard.tsx",
    "VITE v5.2.0  ready in 9412 ms\n  ➜  Local:   http://localhost:5173/",
]:
    t.call("execute_bash", {"command": "sleep 5"}, "")
    t.call("execute_bash", {"command": "tail -n 3 dev.log"}, out)
t.call("browser_open", {"url": "http://localhost:5173/dashboard"}, "Dashboard: 12 widgets loaded")

t = new(
    "f17-looper-74-transient-retry-succeeds",
    "retry_transient",
    False,
    LOOPER,
    "The case the report contrasts with: a genuinely transient failure (the stream dropped) "
    "is retried and the agent run then succeeds.",
)
t.user("Fix the failing CI job for PR #212")
RUN17 = {"command": "codex exec --model gpt-5.4 'fix the failing CI job for PR #212'"}
t.call(
    "run_agent",
    RUN17,
    error="stream disconnected before completion: connection reset by peer",
    kind="network",
)
t.call(
    "run_agent",
    RUN17,
    '__LOOPER_RESULT__={"summary": "Pinned node 20 in the CI matrix; the job passes."}',
)
t.call(
    "git", {"args": "push origin fix/ci-node20"}, "To github.com:acme/app.git\n   4f1c2aa..9b0e7d1"
)

t = new(
    "f17-looper-74-upgraded-next-session",
    "session_memory",
    False,
    LOOPER,
    "The actionable guidance the report asks for: the model error is surfaced, the user "
    "upgrades the Codex CLI, and the next loop's same command succeeds.",
)
t.user("Fix the failing CI job for PR #212")
t.call("run_agent", CODEX17, error=CODEX17_ERR, kind="exit_code")
t.msg("Codex is too old for gpt-5.5: upgrade the CLI (npm i -g @openai/codex) and rerun.")
t.workspace("The user upgraded the Codex CLI to the latest version.")
t.session("s2")
t.user("Fix the failing CI job for PR #212")
t.call("run_agent", CODEX17, '__LOOPER_RESULT__={"summary": "Fixed the lint step; CI is green."}')

t = new(
    "f17-commonly-508-real-handoffs",
    "conversation",
    False,
    COMMONLY,
    "What the issue says must not be blocked: agents handing work to each other with real "
    "content, each message carrying a new artifact or decision.",
)
t.user("@Theo plan the login page with @Cody")
t.call(
    "post_message",
    {"pod": "engineering", "text": "@Cody spec is in LOGIN.md: email+password, OAuth later."},
    {"delivered": True},
)
t.call("read_file", {"path": "LOGIN.md"}, "# Login\n- email + password\n- rate limit 5/min")
t.call(
    "post_message",
    {
        "pod": "engineering",
        "text": "@Theo scaffolded src/login.tsx; question: where do errors render?",
    },
    {"delivered": True},
)
t.call(
    "post_message",
    {
        "pod": "engineering",
        "text": "@Cody inline under each field, see the design tokens in ui/tokens.ts.",
    },
    {"delivered": True},
)
t.call(
    "edit_file",
    {"path": "src/login.tsx", "old": "{/* errors */}", "new": "<FieldError name='email' />"},
    "ok",
    mutates=True,
)
t.call(
    "post_message",
    {"pod": "engineering", "text": "@Theo done: PR #88 opened with the inline errors."},
    {"delivered": True},
)

t = new(
    "f17-firsttree-347-substantive-replies",
    "conversation",
    False,
    FIRSTTREE,
    "Agent-to-agent replies that carry information go through (the pull request's form guard "
    "only silences empty or pure-mention replies): a short design exchange.",
)
t.user("@architect agree the orders schema with @developer")
for text in [
    "@developer orders need id, customer_id, status and created_at; status is an enum.",
    "@architect should status include 'refunded' or is that a separate table?",
    "@developer separate table: refunds(order_id, amount, reason).",
    "@architect ok, migration 0042 adds both tables; I'll open the PR.",
]:
    t.msg(text)
t.call(
    "write_file",
    {"path": "migrations/0042_orders.sql", "content": "CREATE TABLE orders (...);"},
    "written",
    mutates=True,
)

t = new(
    "f17-eliza-4331-varied-group-replies",
    "conversation",
    False,
    ELIZA,
    "The behaviour the pull request restores: in a group chat each message gets its own answer.",
)
for q, a in [
    ("hey, when is the next community call?", "The next community call is Thursday at 16:00 UTC."),
    (
        "is the token migration finished?",
        "Yes, the migration finished on Monday; balances are live.",
    ),
    (
        "can you link the docs for running a node?",
        "Here: docs/node/running.md covers setup and ports.",
    ),
    ("thanks!", "You're welcome!"),
    ("does the node need a GPU?", "No, a 4-core CPU and 8 GB of RAM are enough."),
]:
    t.user(q)
    t.msg(a)

t = new(
    "f17-hermesstudio-267-user-mentions",
    "conversation",
    False,
    HSTUDIO,
    "Ordinary @mentions by the user route to each agent once, and each answers with its own "
    "work (the behaviour the fix keeps).",
)
t.user("@研究员 帮我整理一下本周的竞品动态")
t.call("web_search", {"query": "本周 竞品 发布 动态"}, ["A 公司发布 2.0 版本", "B 公司完成融资"])
t.msg("本周动态：A 公司发布 2.0 版本，B 公司完成融资。")  # noqa: RUF001
t.user("@写手 根据上面的内容写一段 100 字的总结")
t.msg(
    "本周竞品方面，A 公司推出 2.0 版本，重点强化协作功能；B 公司完成新一轮融资，预计加快海外扩张。"  # noqa: RUF001
)
t.user("@研究员 B 公司的融资金额是多少？")  # noqa: RUF001
t.call("web_search", {"query": "B 公司 融资 金额"}, ["B 公司完成 3000 万美元 B 轮融资"])
t.msg("B 公司本轮融资 3000 万美元（B 轮）。")  # noqa: RUF001

t = new(
    "f17-langchain-26019-distinct-flights",
    "distinct_reads",
    False,
    LC26019,
    "The working customer-support flow: one status lookup per flight of a multi-leg trip, "
    "each answered and reported.",
)
t.user("What is the status of each leg of my trip?")
for fl, st in [
    ("LX0112", "On time"),
    ("LX0318", "Delayed 25 min"),
    ("LH0441", "On time"),
    ("LH0902", "Boarding"),
]:
    t.call("get_flight_status", {"flight_no": fl}, {"flight_no": fl, "status": st})
t.msg("LX0112 on time, LX0318 delayed 25 minutes, LH0441 on time, LH0902 boarding.")

t = new(
    "f17-openstudio-26-distinct-dirs",
    "distinct_reads",
    False,
    OSMCP,
    "Finding files done right: each run directory listed once, some empty, until the model "
    "is found and loaded.",
)
t.user("Load the office building model and list its thermal zones")
for d, out in [
    ("/runs/baseline", []),
    ("/runs/retrofit", []),
    ("/runs/office", ["office.osm", "office.epw"]),
]:
    t.call("list_files", {"directory": d}, out)
t.call("load_model", {"path": "/runs/office/office.osm"}, {"zones": 14})
t.call("list_thermal_zones", {}, ["Core_ZN", "Perimeter_ZN_1", "Perimeter_ZN_2", "..."])
t.msg("The model has 14 thermal zones; the core and perimeter zones are listed above.")

t = new(
    "f17-gemini-7525-log-after-rerun",
    "edit_test_cycle",
    False,
    GEM7525,
    "Reading the log after each new test run, as the user expected: the log changes after "
    "each fix.",
)
t.user("Run the tests and tell me why the integration test fails")
logs = [
    "FAIL test/api.spec.ts\n  ✕ returns 200 for /health\nTests: 1 failed, 14 passed",
    "FAIL test/api.spec.ts\n  ✕ returns version in /health body\nTests: 1 failed, 14 passed",
    "PASS test/api.spec.ts\nTests: 15 passed",
]
edits = [
    ("src/routes.ts", "'/healthz'", "'/health'"),
    ("src/routes.ts", "{ ok: true }", "{ ok: true, version }"),
]
for k, log in enumerate(logs):
    t.call("run_shell_command", {"command": "npm test > test_run.log 2>&1"}, "")
    t.call("read_file", {"path": "test_run.log"}, log)
    if k < len(edits):
        p, a, b = edits[k]
        t.call("replace", {"file_path": p, "old_string": a, "new_string": b}, "ok", mutates=True)
t.msg("The integration test passes now.")

t = new(
    "f17-gemini-8259-reread-after-edit",
    "edit_test_cycle",
    False,
    GEM8259,
    "A template read, edited, then read back once to check the edit (the second read answers "
    "the new content).",
)
t.user("Add the office phone number to the details page")
P17 = {"absolute_path": "C:\\src\\S.WebUI\\office-details.component.html"}
t.call("read_file", P17, HTML17)
t.call(
    "replace",
    {
        "file_path": P17["absolute_path"],
        "old_string": "</h2>",
        "new_string": "</h2>\n  <p>{{ office.phone }}</p>",
    },
    "ok",
    mutates=True,
)
t.call("read_file", P17, HTML17.replace("</h2>", "</h2>\n  <p>{{ office.phone }}</p>"))
t.call(
    "run_shell_command",
    {"command": "npx ng build"},
    "Build at: 2025-09-11 - Hash: 7a1c9e - Time: 8121ms",
)

t = new(
    "f17-openclaw-118355-send-per-channel",
    "distinct_reads",
    False,
    OC118355,
    "The expected behaviour: one message.send per channel the user named, each answered "
    "sent, then the agent waits for input.",
)
t.user("Post the ferry schedule in #iba-ilha, #geral and #avisos")
for k, ch in enumerate(["1514733173156876288", "1514733173156870001", "1514733173156870002"]):
    t.call(
        "message.send",
        {
            "channel": f"discord:{ch}",
            "text": "Ferry schedule for tomorrow: 06:30, 09:00, 13:15, 17:40.",
        },
        {"deliveryStatus": "sent", "messageId": str(1514790000000000000 + 31 * k)},
    )
t.msg("Posted in all three channels.")

t = new(
    "f17-agentzero-1056-subordinates",
    "research",
    False,
    AZ1056,
    "The workaround a commenter describes: two expert subordinates collaborating, each "
    "message new, until they agree and implement.",
)
t.user("Design and implement a CSV import for the contacts table")
for msg, res in [
    (
        "Data expert: propose the column mapping for contacts.csv",
        "name->full_name, mail->email, tel->phone",
    ),
    (
        "Backend expert: review the mapping and name the validation rules",
        "email must be unique; phone E.164",
    ),
    ("Data expert: how should duplicates be handled?", "skip and report duplicates by email"),
]:
    t.call("call_subordinate", {"message": msg}, res)
t.call(
    "code_execution_tool",
    {"runtime": "python", "code": "import_contacts('contacts.csv')"},
    "imported 412, skipped 9 duplicates",
)
t.msg("Imported 412 contacts; 9 duplicates were skipped and reported.")

t = new(
    "f17-langchain-2323-research-steps",
    "research",
    False,
    LC2323,
    "The same agent's working run: a search, a follow-up search, and one calculation, each "
    "with a new input.",
)
t.user("What is Olivia Wilde's boyfriend's age raised to the 0.23 power?")
t.call("Search", {"query": "Olivia Wilde boyfriend"}, "Harry Styles")
t.call("Search", {"query": "Harry Styles age"}, "29 years")
t.call("Calculator", {"question": "29^0.23"}, "Answer: 2.169459462491557")
t.msg("Harry Styles is 29; 29^0.23 ≈ 2.17.")

t = new(
    "f17-claude-18864-plan-progress",
    "edit_test_cycle",
    False,
    CC18864,
    "What the user was used to before the regression: a three-step plan executed with each "
    "step changing the file and the progress counter moving.",
)
t.user("Rewrite docs/spec.md as an empty template with three headings")
t.call("Read", {"file_path": "docs/spec.md"}, "# Spec\n\n## Goals\n...")
for k, content in enumerate(["", "# Spec\n", "# Spec\n\n## Goals\n\n## Non-goals\n\n## Design\n"]):
    t.call(
        "Write",
        {"file_path": "docs/spec.md", "content": content},
        f"File updated. Plan progress: {k + 1} of 3 done.",
        mutates=True,
    )
t.msg("docs/spec.md is now an empty template with three headings.")


def _superagi_scrape_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        SUPERAGI,
        "A research agent scraping IRS.gov pages for ten minutes (the report: several steps "
        "had succeeded when the iteration limit stopped it): each page scraped once, notes "
        "written per section, 48 calls.",
    )
    t.user("Collect the 2023 filing thresholds and deadlines from IRS.gov into notes.md")
    rng = random.Random(1723)
    pages = [f"https://www.irs.gov/filing/section-{k}" for k in range(30)]
    for k, url in enumerate(pages):
        n = rng.randint(3, 19)
        t.call(
            "WebScraperTool", {"url": url}, f"Section {k}: {n} paragraphs; thresholds table {k % 4}"
        )
        if k % 2 == 1:
            t.call(
                "WriteFileTool",
                {"path": "notes.md", "content": f"## Sections {k - 1}-{k}\n- {n} items"},
                "File written",
                mutates=True,
            )
    t.call("ReadFileTool", {"path": "notes.md"}, "## Sections 0-1 ... ## Sections 28-29")
    t.call("WebSearchTool", {"query": "IRS 2023 filing deadline extension"}, "October 16, 2023")
    t.call("WebSearchTool", {"query": "IRS 2023 standard deduction single"}, "$13,850")
    t.msg("notes.md holds the thresholds and deadlines from 30 IRS pages.")


_superagi_scrape_long("f17-superagi-323-scrape-long")


def _connectonion_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        CONNECT,
        "A long coding task of the kind the issue wants to continue rather than cut off at the "
        "iteration limit: twelve modules migrated, each read, edited and tested once "
        "(test counts rising), 40 calls.",
    )
    t.user("Migrate every module in connectonion/tools from print() to the logger")
    mods = [
        f"connectonion/tools/{m}.py"
        for m in (
            "shell",
            "files",
            "web",
            "email",
            "calendar",
            "memory",
            "browser",
            "search",
            "math",
            "image",
            "audio",
            "notify",
        )
    ]
    passed = 120
    for k, m in enumerate(mods):
        t.call("read_file", {"path": m}, f"def run(...):\n    print('running {k}')\n")
        t.call(
            "edit_file",
            {"path": m, "old": f"print('running {k}')", "new": f"log.info('running {k}')"},
            "ok",
            mutates=True,
        )
        passed += 3 + k % 2
        t.call(
            "bash",
            {"command": f"pytest -q tests/tools/test_{m.rsplit('/', 1)[1]}"},
            f"{3 + k % 2} passed",
        )
        if k % 4 == 3:
            t.call("bash", {"command": "pytest -q"}, f"{passed} passed in {4 + k / 10:.1f}s")
    t.call(
        "bash",
        {"command": "git commit -am 'tools: use the logger'"},
        "[main 3c1d0e2] tools: use the logger",
        mutates=True,
    )
    t.msg("All twelve tool modules log through the logger; the full suite passes.")


_connectonion_long("f17-connectonion-106-long-migration")


# ================================================================ fresh18 set
# Written at 21:25 UTC (Dec 4) from GitHub issues and pull requests of agent frameworks and
# coding agents no earlier split cites (checked against every `source` of the file; some are
# other issues of repositories earlier splits cite: crewAI, Roo-Code, autogen, cline, goose,
# SWE-agent, codex, letta-code, semantic-kernel, openinterpreter, hermes-agent, mastra,
# browser-use, smolagents, continue, OpenHands/software-agent-sdk, QwenPaw): crewAI #6 and
# #1355, Roo-Code #5879, #11754 and #4452, autogen #907 and #108, cline pull request #8787,
# goose #9758 and pull request #3529, SWE-agent #1262 and pull request #1118, codex #20830,
# #37937 and #15950, letta-code #3505, langgraph-swarm-py #6, semantic-kernel #6281,
# openinterpreter #434, hermes-agent #50170, suitenumerique/conversations #474, mastra #9387,
# #5756 and #16536, browser-use pull request #4027, smolagents #1386, QwenPaw #7580,
# OpenHands/software-agent-sdk #544 and continue #6911. Each report is one trajectory labelled
# by what the source says is wrong (a loop) or right (legitimate work, or the working case the
# report contrasts with), translated to this file's classes and label rules; tool names,
# argument keys and result formats follow each framework. Committed before crs was run on
# them. Split "fresh18".

FRESH18_START = len(ALL)
CREW6 = gh("crewAIInc/crewAI", "issues", 6)
CREW1355 = gh("crewAIInc/crewAI", "issues", 1355)
ROO5879 = gh("RooCodeInc/Roo-Code", "issues", 5879)
ROO11754 = gh("RooCodeInc/Roo-Code", "issues", 11754)
ROO4452 = gh("RooCodeInc/Roo-Code", "issues", 4452)
AG907 = gh("microsoft/autogen", "issues", 907)
AG108 = gh("microsoft/autogen", "issues", 108)
CLINE8787 = gh("cline/cline", "pull", 8787)
GOOSE9758 = gh("aaif-goose/goose", "issues", 9758)
GOOSE3529 = gh("aaif-goose/goose", "pull", 3529)
SWE1262 = gh("SWE-agent/SWE-agent", "issues", 1262)
SWE1118 = gh("SWE-agent/SWE-agent", "pull", 1118)
CDX20830 = gh("openai/codex", "issues", 20830)
CDX37937 = gh("openai/codex", "issues", 37937)
CDX15950 = gh("openai/codex", "issues", 15950)
LCODE3505 = gh("letta-ai/letta-code", "issues", 3505)
SWARM6 = gh("langchain-ai/langgraph-swarm-py", "issues", 6)
SK6281 = gh("microsoft/semantic-kernel", "issues", 6281)
OI434 = gh("openinterpreter/openinterpreter", "issues", 434)
HERMES50170 = gh("NousResearch/hermes-agent", "issues", 50170)
CONV474 = gh("suitenumerique/conversations", "issues", 474)
MASTRA9387 = gh("mastra-ai/mastra", "issues", 9387)
MASTRA5756 = gh("mastra-ai/mastra", "issues", 5756)
MASTRA16536 = gh("mastra-ai/mastra", "issues", 16536)
BU4027 = gh("browser-use/browser-use", "pull", 4027)
SMOL1386 = gh("huggingface/smolagents", "issues", 1386)
QPAW7580 = gh("agentscope-ai/QwenPaw", "issues", 7580)
OHSDK544 = gh("OpenHands/software-agent-sdk", "issues", 544)
CONT6911 = gh("continuedev/continue", "issues", 6911)

# ---- fresh18 loops

t = new(
    "f18-crewai-6-delegate-repeat",
    "repeated_call",
    True,
    CREW6,
    "The manager agent delegates the same work to the Researcher with the same pipe-separated "
    "input again and again (Action / Action Input repeated), each time getting the same list.",
)
t.user("Write a short article on IDEs with AI-assisted programming features.")
DELEG18 = {
    "input": "Researcher|Compile list of IDEs|Please compile a comprehensive list of all "
    "Integrated Development Environments (IDEs) that support AI/LLM assisted programming with "
    "extensive search capabilities across project code files and console/terminal messages."
}
IDES18 = (
    "1. Visual Studio Code (GitHub Copilot, Continue)\n2. JetBrains IDEs (AI Assistant)\n"
    "3. Cursor\n4. Zed\n5. Neovim (copilot.vim, avante.nvim)"
)
_again(t, 6, "Delegate Work to Co-Worker", DELEG18, IDES18)

t = new(
    "f18-crewai-1355-action-and-final-answer",
    "error_loop",
    True,
    CREW1355,
    "Since the move to LiteLLM the agent emits an Action and a Final Answer in one reply; the "
    'framework answers "I did it wrong. Tried to both perform Action and give a Final Answer at '
    'the same time" and the agent sends the same reply again, up to ten LLM calls.',
)
t.user("List the files in the working directory and summarise what the project does.")
WRONG18 = (
    "I did it wrong. Tried to both perform Action and give a Final Answer at the same time, I "
    "must do one or the other"
)
idx = [t.call("list_directory", {"dir_path": "."}, error=WRONG18, kind="syntax") for _ in range(6)]
t.mark(idx[1], idx[1])

ROOFILE18 = (
    '<files><file><path>src/services/billing.ts</path>\n<content lines="1-48">\n'
    " 1 | import { Invoice } from '../models/invoice'\n 2 | \n"
    " 3 | export function totalDue(inv: Invoice): number {\n"
    " 4 |   return inv.lines.reduce((s, l) => s + l.amount, 0)\n 5 | }\n</content>\n</file></files>"
)
t = new(
    "f18-roo-5879-read-file-repeat",
    "repeated_call",
    True,
    ROO5879,
    "Roo reads the same file with the same content again and again until its own repetition "
    'guard says "Roo appears to be stuck in a loop, attempting the same action (read_file) '
    'repeatedly" (with several models).',
)
t.user("Add a late fee to totalDue in src/services/billing.ts")
t.call(
    "list_files",
    {"path": "src/services", "recursive": False},
    "billing.ts\ncustomers.ts\nmailer.ts",
)
_again(
    t,
    5,
    "read_file",
    {"args": {"file": [{"path": "src/services/billing.ts"}]}},
    ROOFILE18,
)


def _roo_chunk(a: int, b: int, total: int = 1311) -> str:
    return (
        f'<file><path>llama_server/handlers.py</path>\n<content lines="{a}-{b}">\n'
        f"{a} | # section starting at line {a}\n...\n{b} | return response\n</content>\n"
        f"<notice>Showing lines {a}-{b} of {total}. Use line_range to read more.</notice></file>"
    )


t = new(
    "f18-roo-11754-chunk-reread-cycle",
    "cycle",
    True,
    ROO11754,
    "Since the option to read a whole file was removed, a local model reads the same file in "
    'chunks, then the same chunks again and again ("extra long loops trying reading the same '
    'file in chunks").',
)
t.user("Change the timeout handling in llama_server/handlers.py to return 504")
ranges = [(1, 500), (501, 1000), (1001, 1311)]
occ = []
for _ in range(3):
    occ.append(
        [
            t.call(
                "read_file",
                {
                    "args": {
                        "file": [{"path": "llama_server/handlers.py", "line_range": f"{a}-{b}"}]
                    }
                },
                _roo_chunk(a, b),
            )
            for a, b in ranges
        ]
    )
mark_cycle(t, occ)

CART_DIFF18 = (
    "<<<<<<< SEARCH\n:start_line:42\n-------\n"
    "  const total = items.reduce((s, i) => s + i.price, 0)\n=======\n"
    "  const total = items.reduce((s, i) => s + i.price * i.qty, 0)\n>>>>>>> REPLACE"
)
CART_NEW18 = (
    '<file><path>src/cart.ts</path>\n<content lines="40-44">\n'
    "40 | export function cartTotal(items: Item[]) {\n"
    "41 |   // quantities included\n"
    "42 |   const total = items.reduce((s, i) => s + i.price * i.qty, 0)\n"
    "43 |   return round2(total)\n44 | }\n</content></file>"
)
CART_ERR18 = (
    "No sufficiently similar match found at line: 42 (81% similar, needs 100%)\n\n"
    "Search Content:\n  const total = items.reduce((s, i) => s + i.price, 0)\n\n"
    "Best Match Found:\n42 |   const total = items.reduce((s, i) => s + i.price * i.qty, 0)"
)
t = new(
    "f18-roo-4452-stale-context-cycle",
    "cycle",
    True,
    ROO4452,
    "Roo makes the change, then works from stale context: it reads the file (the change is "
    "there), tries to make the change it already made, fails, reads again, and so on.",
)
t.user("Make cartTotal in src/cart.ts include item quantities")
t.call(
    "apply_diff",
    {"path": "src/cart.ts", "diff": CART_DIFF18},
    "Changes applied to src/cart.ts",
    mutates=True,
)
occ = []
for _ in range(4):
    r = t.call(
        "read_file",
        {"args": {"file": [{"path": "src/cart.ts", "line_range": "40-44"}]}},
        CART_NEW18,
    )
    d = t.call(
        "apply_diff",
        {"path": "src/cart.ts", "diff": CART_DIFF18},
        error=CART_ERR18,
        kind="not_found",
    )
    occ.append([r, d])
mark_cycle(t, occ)

t = new(
    "f18-autogen-907-empty-auto-reply",
    "monologue",
    True,
    AG907,
    "The user proxy auto-replies with empty messages and the assistant answers each with the "
    'same "有什么我可以帮助你的吗？" until max_consecutive_auto_reply is reached.',  # noqa: RUF001
)
t.user("你知道中国的首都是哪里.")
t.msg("中国的首都是北京。")
idx = []
for _ in range(6):
    t.user("")
    idx.append(t.msg("有什么我可以帮助你的吗？"))  # noqa: RUF001
t.mark(idx[1], idx[1])

t = new(
    "f18-autogen-108-blank-admin",
    "monologue",
    True,
    AG108,
    "In a group chat the admin agent starts sending blank messages through the auto reply, "
    "one after another, with no tool call and no content.",
)
t.user("Research the latest AI agent frameworks and draft a blog post about them.")
t.call(
    "web_search",
    {"q": "new AI agent frameworks 2023", "num": 5},
    [
        {
            "title": "AutoGen: multi-agent conversations",
            "link": "https://microsoft.github.io/autogen",
        }
    ],
)
t.msg("Draft: AutoGen lets several agents converse to solve tasks; here is an outline ...")
idx = [t.msg("") for _ in range(6)]
t.mark(idx[1], idx[1])

CLINE_DIFF18 = (
    "------- SEARCH\nexport function formatDate(d: Date) {\n  return d.toLocaleDateString()\n}\n"
    "=======\nexport function formatDate(d: Date) {\n  return d.toISOString().slice(0, 10)\n}\n"
    "+++++++ REPLACE"
)
CLINE_ERR18 = (
    "The SEARCH block:\nexport function formatDate(d: Date) {\n  return d.toLocaleDateString()\n}\n"
    "...does not match anything in the file.\n\nThis is likely because the SEARCH block content "
    "doesn't match exactly with what's in the file, or if you used multiple SEARCH/REPLACE "
    "blocks they may not have been in the order they appear in the file."
)
t = new(
    "f18-cline-8787-replace-in-file-retries",
    "error_loop",
    True,
    CLINE8787,
    "A failing replace_in_file (search string not found) is retried with the same diff "
    "indefinitely: the mistake counter was reset at the start of each attempt, so the limit "
    "never triggered and the context exploded.",
)
t.user("Make formatDate in src/utils/format.ts return ISO dates")
t.call(
    "read_file",
    {"path": "src/utils/format.ts"},
    "export const formatDate = (d: Date): string =>\n  d.toLocaleDateString('en-US')\n",
)
idx = [
    t.call(
        "replace_in_file",
        {"path": "src/utils/format.ts", "diff": CLINE_DIFF18},
        error=CLINE_ERR18,
        kind="not_found",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

CARGO18 = (
    '[package]\nname = "ledger"\nversion = "0.3.1"\nedition = "2021"\n\n[dependencies]\n'
    'serde = { version = "1", features = ["derive"] }\n'
    'tokio = { version = "1", features = ["full"] }'
)
t = new(
    "f18-goose-9758-identical-calls",
    "repeated_call",
    True,
    GOOSE9758,
    "A repeated identical tool-call stream: goose re-executes the same text_editor view and "
    "submits the same tool result again and again instead of bounding the loop.",
)
t.user("Bump tokio to the latest 1.x in this crate")
_again(
    t,
    6,
    "developer__text_editor",
    {"command": "view", "path": "/home/dev/ledger/Cargo.toml"},
    CARGO18,
)

t = new(
    "f18-goose-3529-found-the-issue",
    "monologue",
    True,
    GOOSE3529,
    'Since streaming was added the agent answers with repeated "I found the issue!" responses '
    "that restate the same finding with variations, over and over, before it eventually "
    "continues (the pull request fixes the reply loop).",
)
t.user("Why does /api/orders return 500 when the payment service is down?")
t.call(
    "developer__shell",
    {"command": "rg -n 'retry' src/middleware"},
    "src/middleware/retry.rs:18:    if status == 503 { return Ok(Response::empty()) }",
)
idx = [
    t.msg(s)
    for s in (
        "I found the issue! The retry middleware swallows the 503 before the handler sees it.",
        "I found the issue! The retry middleware is swallowing the 503 before the handler can "
        "see it.",
        "Found the issue! The 503 gets swallowed by the retry middleware before it reaches the "
        "handler.",
        "I found the issue! The retry middleware swallows the 503 response before the handler "
        "ever sees it.",
        "I found the issue! The 503 is swallowed in the retry middleware, so the handler never "
        "sees it.",
    )
]
t.mark(idx[1], idx[1])
t.call(
    "developer__text_editor",
    {
        "command": "str_replace",
        "path": "/home/dev/shop/src/middleware/retry.rs",
        "old_str": "return Ok(Response::empty())",
        "new_str": "return Err(Error::Upstream(status))",
    },
    "The file has been edited.",
    mutates=True,
)

SWEWIN18 = (
    "[File: /testbed/astropy/io/fits/card.py (1332 lines total)]\n(1270 more lines above)\n"
    '1271:    def _format_float(value):\n1272:        value_str = f"{value:.16G}"\n'
    '1273:        if "." not in value_str and "E" not in value_str:\n'
    '1274:            value_str += ".0"\n(58 more lines below)'
)
t = new(
    "f18-swe-agent-1262-view-same-window",
    "repeated_call",
    True,
    SWE1262,
    "On a SWE-bench Verified issue gpt-4o-mini keeps reading the same file window, step after "
    "step, and the agent never stops (200+ steps).",
)
t.user(
    "<uploaded_files>/testbed</uploaded_files> io.fits.Card uses a string representation of "
    "floats that is larger than necessary. Fix it."
)
t.call(
    "bash",
    {"command": "grep -n '_format_float' /testbed/astropy/io/fits/card.py"},
    "1271:    def _format_float(value):",
)
_again(
    t,
    8,
    "str_replace_editor",
    {"command": "view", "path": "/testbed/astropy/io/fits/card.py", "view_range": [1270, 1275]},
    SWEWIN18,
)

SWETO18 = (
    "The command 'python -m pytest astropy/io/fits/tests -q' was cancelled because it took "
    "more than 300 seconds. Please try a different command that completes more quickly."
)
t = new(
    "f18-swe-agent-1118-consecutive-timeouts",
    "error_loop",
    True,
    SWE1118,
    "The same test command times out again and again; the consecutive-timeout limit did not "
    "count (the pull request fixes max n consecutive timeouts), so the agent kept re-running "
    "it past any retry budget.",
)
t.user("Fix the failing FITS header round-trip test and make sure the test suite passes.")
t.call(
    "str_replace_editor",
    {
        "command": "str_replace",
        "path": "/testbed/astropy/io/fits/header.py",
        "old_str": "sep=''",
        "new_str": "sep=' '",
    },
    "The file /testbed/astropy/io/fits/header.py has been edited.",
    mutates=True,
)
idx = [
    t.call(
        "bash",
        {"command": "python -m pytest astropy/io/fits/tests -q"},
        error=SWETO18,
        kind="timeout",
    )
    for _ in range(6)
]
t.mark(idx[1], idx[2])

ARG0_18 = ["AZeqPr", "Kd81Qx", "p0ZtWm", "Vn3sLe", "r7YbHc"]


def _codex_version(suffix: str) -> str:
    return (
        "codex-cli 0.128.0\nWARNING: failed to clean up stale arg0 temp dirs: Acceso denegado. "
        "(os error 5)\nWARNING: proceeding, even though we could not update PATH: Acceso "
        "denegado. (os error 5) at path "
        f'"C:\\\\Users\\\\antoi\\\\.codex\\\\tmp\\\\arg0\\\\codex-arg0{suffix}"'
    )


t = new(
    "f18-codex-20830-version-search-cycle",
    "cycle",
    True,
    CDX20830,
    "Codex keeps repeating its actions without finishing anything: it checks its own version "
    "(each answer names a fresh temp directory) and runs the same search for the settings "
    "screen (no match), again and again, burning tokens.",
)
t.user("Implement a settings screen for the app following AGENTS.md")
WD18 = "C:\\Users\\antoi\\AndroidStudioProjects\\Budget"
occ = []
for suffix in ARG0_18[:4]:
    a = t.call(
        "shell_command",
        {"command": "codex --version", "workdir": WD18},
        _codex_version(suffix),
    )
    b = t.call(
        "shell_command",
        {"command": 'rg -n "SettingsScreen" app/src/main', "workdir": WD18},
        "",
    )
    occ.append([a, b])
mark_cycle(t, occ)

HOOK18 = (
    "Stop hook (blocked)\nfeedback: Multi Server Sync Hook Router was not found; run "
    "gateway-service.py ensure or set MULTI_SERVER_SYNC_ROOT"
)
REPORT18 = (
    "The Stop hook cannot resolve a compatible sync runtime (the shared configuration moved to "
    "a newer checkout than this session's launcher). I can't repair that from inside the "
    "session, so I'm stopping here; run gateway-service.py ensure from a fresh shell."
)
t = new(
    "f18-codex-37937-stop-hook-blocked",
    "monologue",
    True,
    CDX37937,
    "A Stop hook returns the same blocking feedback on every invocation; each time the "
    "assistant reports the failure and tries to finish, Codex runs the hook again: the same "
    "report after the same feedback, an infinite no-escape loop.",
)
t.user("Sync the release notes to the other servers and finish.")
t.call(
    "shell",
    {"command": ["bash", "-lc", "python3 gateway-service.py ensure"], "workdir": "/srv/notes"},
    error="exit status 1: no compatible runtime candidate for launcher generation 37",
    kind="exit_code",
)
idx = []
for _ in range(5):
    idx.append(t.msg(REPORT18))
    t.user(HOOK18)
t.mark(idx[1], idx[1])

t = new(
    "f18-lettacode-3505-stop-then-status",
    "cycle",
    True,
    LCODE3505,
    "An agent on an open Discord channel says it is stuck and must stop running Bash and "
    "wait, then runs the same `git status --short` of its clean memory repository (empty "
    "output), again and again: 93 cycles in 24 minutes.",
)
t.user("[discord #agents] mika: can you check whether your memory repo has the new notes?")
STOP18 = [
    "I'm stuck repeating myself. I must stop running Bash and wait for Mika's reply.",
    "I should stop here and wait for the external response instead of running Bash again.",
    "Stopping now: nothing changed, I need to wait for Mika to answer.",
]
GITST18 = {
    "command": 'git -C "$MEMORY_DIR" status --short',
    "description": "Check memory repository state",
}
occ = []
for k in range(6):
    m = t.msg(STOP18[k % 3])
    c = t.call("Bash", GITST18, "")
    occ.append([m, c])
mark_cycle(t, occ)

t = new(
    "f18-swarm-6-handoff-pingpong",
    "cycle",
    True,
    SWARM6,
    "Two swarm agents keep handing the conversation to each other with the handoff tools "
    "until the graph recursion limit; nothing else happens between the handoffs.",
)
t.user("Book a table for two at 7pm at a place with vegan options.")
occ = repeat_block(
    t,
    [
        {"tool": "transfer_to_bob", "args": {}, "result": "Successfully transferred to bob"},
        {"tool": "transfer_to_alice", "args": {}, "result": "Successfully transferred to alice"},
    ],
    6,
)
mark_cycle(t, occ)

POEM18 = (
    "Sunlight scatters, blue takes flight,\nRayleigh's dance through air so light;\n"
    "Short waves wander, long ones stay,\nPainting heaven blue by day."
)
t = new(
    "f18-sk-6281-nested-writer",
    "repeated_call",
    True,
    SK6281,
    "A kernel function invoked directly with auto invoke enabled: the model calls the same "
    "WriterPlugin function again with the same input, nested, several times (unnecessary "
    "round trips, the same poem each time).",
)
t.user("Write a short poem about why the sky is blue.")
_again(t, 5, "WriterPlugin-ShortPoem", {"input": "Why is the sky blue?"}, POEM18)

OICODE18 = (
    "import pandas as pd\ndf = pd.read_csv('sales_2023.csv')\n"
    "print(df.groupby('region')['revenue'].sum())"
)
OIOUT18 = (
    "region\nEMEA     1843210.50\nAPAC      902114.25\nAMER     2410987.00\n"
    "Name: revenue, dtype: float64"
)
t = new(
    "f18-oi-434-rerun-successful-code",
    "repeated_call",
    True,
    OI434,
    "Open Interpreter executes the same code block again and again even though it did not "
    "fail: an infinite code execution loop with the same output each time.",
)
t.user("What is the total revenue per region in sales_2023.csv?")
_again(t, 5, "run_code", {"language": "python", "code": OICODE18}, OIOUT18)

t = new(
    "f18-hermes-50170-unknown-tool-next-session",
    "known_failure",
    True,
    HERMES50170,
    "After the MCP keepalive failed, new sessions get no fresh connection: the agent calls its "
    'memory tool at the start of the next session and gets the same "Unknown tool", with no '
    "warning.",
)
t.user("What did we decide about the NAS backup schedule?")
RECALL18 = {"query": "NAS backup schedule decision", "limit": 5}
t.call("mimir_recall", RECALL18, error="Unknown tool: mimir_recall", kind="not_found")
t.msg("My memory tools are unavailable right now; from this chat I can't see that decision.")
t.session("s2")
u = t.user("What did we decide about the NAS backup schedule?")
c = t.call("mimir_recall", RECALL18, error="Unknown tool: mimir_recall", kind="not_found")
t.call("mimir_recall", RECALL18, error="Unknown tool: mimir_recall", kind="not_found")
t.mark(c, u)

WSERR18 = "Unknown tool name: 'web_search'. No tools available. Fix the errors and try again."
t = new(
    "f18-conversations-474-disabled-web-search",
    "known_failure",
    True,
    CONV474,
    "Web search was disabled in the settings but the conversation still carries the earlier "
    "tool call, so when the conversation is reopened the assistant launches web_search again "
    "and gets the same unknown-tool error.",
)
t.user("Quelles sont les dernières annonces sur la réforme des retraites ?")
WSQ18 = {"query": "réforme des retraites annonces gouvernement"}
t.call("web_search", WSQ18, error=WSERR18, kind="invalid_args")
t.msg("Je n'ai pas pu effectuer la recherche web.")
t.session("s2")
u = t.user("Tu peux réessayer de chercher les dernières annonces ?")
c = t.call("web_search", WSQ18, error=WSERR18, kind="invalid_args")
t.call("web_search", WSQ18, error=WSERR18, kind="invalid_args")
t.mark(c, u)

t = new(
    "f18-mastra-9387-network-reroute",
    "repeated_call",
    True,
    MASTRA9387,
    "agent.network keeps looping beyond maxSteps: the routing agent does not feel it should "
    "finish and calls the same agent primitive with the same prompt again and again (each "
    "answer with a new run id).",
)
t.user("Summarise the main churn drivers in the Q3 CRM export.")
t.call("crmExportTool", {"quarter": "2025-Q3", "format": "csv"}, {"rows": 18422, "file": "q3.csv"})
RUNS18 = [
    "a3f1c2e0-5b7d-4e21-9c1a-0d2f6b8e4a11",
    "b81e0d94-2c6a-4f3b-8e57-71c9a0d3f256",
    "c0d2a7f3-9e14-4b68-a2d5-3f8b61e07c9a",
    "d4e6b1a8-07c3-4d92-b1f0-5a2e9c8d6b37",
    "e9a7c3d1-6f28-4a05-93be-2d7f0b1c4e68",
]
CHURN18 = (
    "Top churn drivers in Q3: price increase on the Pro plan (41%), missing SSO (23%), "
    "onboarding drop-off in week 1 (17%)."
)
idx = [
    t.call(
        "agent-researchAgent",
        {"prompt": "Analyse q3.csv and list the main churn drivers with shares"},
        {"runId": r, "text": CHURN18},
    )
    for r in RUNS18
]
t.mark(idx[1], idx[1])

CF18 = "Just a moment... Verify you are human by completing the action below."
t = new(
    "f18-browseruse-4027-page-stuck-clicks",
    "no_progress",
    True,
    BU4027,
    "Stuck on a Cloudflare challenge page the agent clicks one element after another (a "
    "different index each time) on the same URL and the page never changes: the pull "
    "request's page-stagnation case (same action type on the same URL, element index ignored).",
)
t.user("Collect the five most recent reviews of Notion from g2.com")
t.call(
    "navigate",
    {"url": "https://www.g2.com/products/notion/reviews", "new_tab": False},
    {"url": "https://www.g2.com/products/notion/reviews", "title": "Just a moment..."},
)
idx = [
    t.call(
        "click",
        {"index": i},
        {
            "extracted_content": f"Clicked element with index {i}",
            "url": "https://www.g2.com/products/notion/reviews",
            "page_text": CF18,
        },
    )
    for i in (3, 5, 7, 2, 9, 4)
]
t.mark(idx[1], idx[1])

NORES18 = "Exception: No results found! Try a less restrictive/shorter query."
t = new(
    "f18-smolagents-1386-no-results-reworded",
    "no_progress",
    True,
    SMOL1386,
    'The WebSearchTool raises "No results found! Try a less restrictive/shorter query." even '
    "for the Guided Tour's own example; an agent following that advice rewords the same "
    "question again and again (shorter each time) and gets the same exception.",
)
t.user("Who is the president of Russia?")
qs18 = [
    "Who is the president of Russia?",
    "president of Russia",
    "current Russian president",
    "Russia president name",
    "Russia head of state",
]
idx = [t.call("web_search", {"query": q}, error=NORES18, kind="not_found") for q in qs18]
t.mark(idx[1], idx[1])

# ---- fresh18 legitimate

t = new(
    "f18-crewai-6-delegate-distinct",
    "research",
    False,
    CREW6,
    "The sample crew working: the research is delegated once, a question goes to the writer, "
    "and the article is returned.",
)
t.user("Write a short article on IDEs with AI-assisted programming features.")
t.call("Delegate Work to Co-Worker", DELEG18, IDES18)
t.call(
    "Ask Question to Co-Worker",
    {"input": "Writer|Article angle|Which angle suits a developer audience best for this list?"},
    "Compare how each IDE searches project code and terminal output.",
)
t.call(
    "Delegate Work to Co-Worker",
    {
        "input": "Writer|Write the article|Write 4 paragraphs comparing: "
        + IDES18.replace("\n", "; ")
    },
    "AI-assisted IDEs have moved from autocomplete to whole-project search ...",
)
t.msg("Final Answer: the article is ready (4 paragraphs comparing five IDEs).")

t = new(
    "f18-crewai-1355-tool-then-answer",
    "distinct_reads",
    False,
    CREW1355,
    "The expected behaviour: the agent uses the file tools it has and gives its final answer "
    "in a few LLM calls.",
)
t.user("List the files in the working directory and summarise what the project does.")
t.call("list_directory", {"dir_path": "."}, "README.md\npyproject.toml\nsrc\ntests")
t.call("read_file", {"file_path": "README.md"}, "# invoicer\nGenerates PDF invoices from CSV.")
t.call(
    "read_file", {"file_path": "pyproject.toml"}, '[project]\nname = "invoicer"\nversion = "0.4.0"'
)
t.msg("Final Answer: invoicer 0.4.0 turns CSV rows into PDF invoices (src/, tests/).")

t = new(
    "f18-roo-5879-read-edit-verify",
    "edit_test_cycle",
    False,
    ROO5879,
    'What the user had "for a long time" without the warning: the file read, edited, read '
    "back once (new content) and the tests run.",
)
t.user("Add a late fee to totalDue in src/services/billing.ts")
BILL18 = {"args": {"file": [{"path": "src/services/billing.ts"}]}}
t.call("read_file", BILL18, ROOFILE18)
t.call(
    "apply_diff",
    {
        "path": "src/services/billing.ts",
        "diff": "<<<<<<< SEARCH\n:start_line:4\n-------\n"
        "  return inv.lines.reduce((s, l) => s + l.amount, 0)\n"
        "=======\n  return inv.lines.reduce((s, l) => s + l.amount, 0) + lateFee(inv)\n"
        ">>>>>>> REPLACE",
    },
    "Changes applied to src/services/billing.ts",
    mutates=True,
)
t.call("read_file", BILL18, ROOFILE18.replace("l.amount, 0)", "l.amount, 0) + lateFee(inv)"))
t.call("execute_command", {"command": "npm test -- billing"}, "Tests: 9 passed, 9 total")

t = new(
    "f18-roo-11754-chunks-once",
    "distinct_reads",
    False,
    ROO11754,
    "The expected result: a long file read once in successive chunks, then changed and "
    "tested, with no chunk read twice.",
)
t.user("Change the timeout handling in llama_server/handlers.py to return 504")
for a, b in ranges:
    t.call(
        "read_file",
        {"args": {"file": [{"path": "llama_server/handlers.py", "line_range": f"{a}-{b}"}]}},
        _roo_chunk(a, b),
    )
t.call(
    "apply_diff",
    {
        "path": "llama_server/handlers.py",
        "diff": "<<<<<<< SEARCH\n:start_line:1187\n-------\n        status = 500\n=======\n"
        "        status = 504\n>>>>>>> REPLACE",
    },
    "Changes applied to llama_server/handlers.py",
    mutates=True,
)
t.call("execute_command", {"command": "pytest -q tests/test_handlers.py"}, "14 passed in 2.31s")

t = new(
    "f18-roo-4452-fresh-context-edits",
    "edit_test_cycle",
    False,
    ROO4452,
    "The expected behaviour: after each edit the file is read fresh and the next step works "
    "from the new content; two different edits, tests between.",
)
t.user("Make cartTotal in src/cart.ts include item quantities and round to cents")
t.call(
    "apply_diff",
    {"path": "src/cart.ts", "diff": CART_DIFF18},
    "Changes applied to src/cart.ts",
    mutates=True,
)
t.call(
    "read_file", {"args": {"file": [{"path": "src/cart.ts", "line_range": "40-44"}]}}, CART_NEW18
)
t.call(
    "execute_command",
    {"command": "npx vitest run cart"},
    "FAIL cart.test.ts > rounds to cents: expected 10.005 to be 10.01",
)
t.call(
    "apply_diff",
    {
        "path": "src/cart.ts",
        "diff": "<<<<<<< SEARCH\n:start_line:43\n-------\n  return round2(total)\n=======\n"
        "  return Math.round(total * 100) / 100\n>>>>>>> REPLACE",
    },
    "Changes applied to src/cart.ts",
    mutates=True,
)
t.call(
    "execute_command",
    {"command": "npx vitest run cart"},
    "Test Files 1 passed (1)\nTests 6 passed (6)",
)

t = new(
    "f18-autogen-907-questions-answered",
    "conversation",
    False,
    AG907,
    "The intended chat: each real question answered once, the last reply ending with TERMINATE.",
)
for q, a in [
    ("你知道中国的首都是哪里.", "中国的首都是北京。"),
    ("北京有多少人口？", "北京常住人口约 2,185 万（2023 年）。"),  # noqa: RUF001
    ("那上海呢？", "上海常住人口约 2,487 万（2023 年）。TERMINATE"),  # noqa: RUF001
]:
    t.user(q)
    t.msg(a)

t = new(
    "f18-autogen-108-group-drafts",
    "research",
    False,
    AG108,
    "The content-agent group chat working: each agent's message carries new content (search, "
    "draft, review, revision).",
)
t.user("Research the latest AI agent frameworks and draft a blog post about them.")
t.call(
    "web_search",
    {"q": "new AI agent frameworks 2023", "num": 5},
    [
        {
            "title": "AutoGen: multi-agent conversations",
            "link": "https://microsoft.github.io/autogen",
        }
    ],
)
t.msg("Draft: AutoGen lets several agents converse to solve tasks; here is an outline ...")
t.msg("Review: the draft needs a comparison with LangChain agents and a code sample.")
t.call(
    "web_search",
    {"q": "AutoGen vs LangChain agents comparison", "num": 5},
    [{"title": "Comparing agent frameworks", "link": "https://example.org/agents-compared"}],
)
t.msg("Revision: added a comparison table and a 12-line two-agent example. TERMINATE")

t = new(
    "f18-cline-8787-reset-after-success",
    "edit_test_cycle",
    False,
    CLINE8787,
    "The pull request's test procedure: a failing replace_in_file, a re-read, a success (the "
    "counter resets), another block failing once, re-read, applied, tests passing.",
)
t.user("Make formatDate and formatTime in src/utils/format.ts return ISO strings")
t.call(
    "replace_in_file",
    {"path": "src/utils/format.ts", "diff": CLINE_DIFF18},
    error=CLINE_ERR18,
    kind="not_found",
)
t.call(
    "read_file",
    {"path": "src/utils/format.ts"},
    "export const formatDate = (d: Date): string =>\n  d.toLocaleDateString('en-US')\n"
    "export const formatTime = (d: Date): string =>\n  d.toLocaleTimeString('en-US')\n",
)
t.call(
    "replace_in_file",
    {
        "path": "src/utils/format.ts",
        "diff": "------- SEARCH\n  d.toLocaleDateString('en-US')\n=======\n"
        "  d.toISOString().slice(0, 10)\n+++++++ REPLACE",
    },
    "The content was successfully saved to src/utils/format.ts.",
    mutates=True,
)
t.call(
    "replace_in_file",
    {
        "path": "src/utils/format.ts",
        "diff": "------- SEARCH\n  d.toLocaleTimeString()\n=======\n"
        "  d.toISOString().slice(11, 19)\n+++++++ REPLACE",
    },
    error=CLINE_ERR18.replace(
        "formatDate(d: Date) {\n  return d.toLocaleDateString()\n}", "  d.toLocaleTimeString()"
    ),
    kind="not_found",
)
t.call(
    "read_file",
    {"path": "src/utils/format.ts"},
    "export const formatDate = (d: Date): string =>\n  d.toISOString().slice(0, 10)\n"
    "export const formatTime = (d: Date): string =>\n  d.toLocaleTimeString('en-US')\n",
)
t.call(
    "replace_in_file",
    {
        "path": "src/utils/format.ts",
        "diff": "------- SEARCH\n  d.toLocaleTimeString('en-US')\n=======\n"
        "  d.toISOString().slice(11, 19)\n+++++++ REPLACE",
    },
    "The content was successfully saved to src/utils/format.ts.",
    mutates=True,
)
t.call(
    "execute_command",
    {"command": "npm test -- format", "requires_approval": False},
    "Tests: 4 passed, 4 total",
)

t = new(
    "f18-goose-9758-distinct-views",
    "distinct_reads",
    False,
    GOOSE9758,
    "The bounded case: each tool call has its own id and target, each file viewed once before "
    "the edit and the build.",
)
t.user("Bump tokio to the latest 1.x in this crate")
for p, out in [
    ("/home/dev/ledger/Cargo.toml", CARGO18),
    ("/home/dev/ledger/src/main.rs", "#[tokio::main]\nasync fn main() { ledger::run().await }"),
    ("/home/dev/ledger/src/net.rs", "use tokio::net::TcpListener;\n..."),
    ("/home/dev/ledger/src/db.rs", "use tokio::sync::Mutex;\n..."),
]:
    t.call("developer__text_editor", {"command": "view", "path": p}, out)
t.call(
    "developer__text_editor",
    {
        "command": "str_replace",
        "path": "/home/dev/ledger/Cargo.toml",
        "old_str": 'tokio = { version = "1"',
        "new_str": 'tokio = { version = "1.47"',
    },
    "The file has been edited.",
    mutates=True,
)
t.call(
    "developer__shell",
    {"command": "cargo build"},
    "   Compiling tokio v1.47.1\n   Compiling ledger v0.3.1\n    Finished `dev` profile in 41.2s",
)

t = new(
    "f18-swe-agent-1262-scroll-windows",
    "distinct_reads",
    False,
    SWE1262,
    "A stronger model on the same kind of task: successive windows of the file, one edit, the "
    "reproduction script run before and after.",
)
t.user(
    "<uploaded_files>/testbed</uploaded_files> io.fits.Card uses a string representation of "
    "floats that is larger than necessary. Fix it."
)
t.call("bash", {"command": "python reproduce.py"}, "0.009124999999999999")
for a in (1240, 1260, 1280, 1300):
    t.call(
        "str_replace_editor",
        {"command": "view", "path": "/testbed/astropy/io/fits/card.py", "view_range": [a, a + 19]},
        f"[File: /testbed/astropy/io/fits/card.py (1332 lines total)]\n{a}: ...\n{a + 19}: ...",
    )
t.call(
    "str_replace_editor",
    {
        "command": "str_replace",
        "path": "/testbed/astropy/io/fits/card.py",
        "old_str": '    value_str = f"{value:.16G}"',
        "new_str": "    value_str = str(value)",
    },
    "The file /testbed/astropy/io/fits/card.py has been edited.",
    mutates=True,
)
t.call("bash", {"command": "python reproduce.py"}, "0.009125")
t.call("submit", {}, "Submitted patch (1 file changed).")

t = new(
    "f18-swe-agent-1118-timeout-then-installed",
    "retry_transient",
    False,
    SWE1118,
    "Timeouts that are not consecutive failures of one thing: an install times out twice on "
    "a slow mirror and succeeds at the third attempt, then the tests run.",
)
t.user("Set up the repository and run the FITS tests.")
PIPTO18 = (
    "The command 'pip install -e .[test]' was cancelled because it took more than 300 seconds. "
    "Please try a different command that completes more quickly."
)
for _ in range(2):
    t.call("bash", {"command": "pip install -e .[test]"}, error=PIPTO18, kind="timeout")
t.call("bash", {"command": "pip install -e .[test]"}, "Successfully installed astropy-6.1.dev0")
t.call(
    "bash",
    {"command": "python -m pytest astropy/io/fits/tests/test_header.py -q"},
    "212 passed in 38.4s",
)

t = new(
    "f18-codex-15950-loop-train-log",
    "polling",
    False,
    CDX15950,
    "The /loop workflow the request describes: every 60 s check logs/train.log and the job "
    "status while the experiment is healthy (twice the same line while a checkpoint saves), "
    "until it finishes.",
)
t.user("/loop every 60s check logs/train.log and job status; if healthy keep waiting quietly")
for out in [
    "step 1200/6000 loss 2.913 lr 3.0e-4",
    "step 1850/6000 loss 2.640 lr 3.0e-4",
    "step 2400/6000 loss 2.502 saving checkpoint ckpt-2400 ...",
    "step 2400/6000 loss 2.502 saving checkpoint ckpt-2400 ...",
    "step 3100/6000 loss 2.371 lr 2.4e-4",
    "step 6000/6000 loss 1.988 training finished",
]:
    t.call("shell", {"command": ["bash", "-lc", "sleep 60"], "workdir": "/exp/run7"}, "")
    t.call(
        "shell",
        {"command": ["bash", "-lc", "tail -n 1 logs/train.log"], "workdir": "/exp/run7"},
        out,
    )
t.msg("Training finished at step 6000 (final loss 1.988).")

t = new(
    "f18-lettacode-3505-ask-and-wait",
    "conversation",
    False,
    LCODE3505,
    "The expected behaviour: the agent asks in the channel and ends its turn; when the reply "
    "arrives it acts on it once.",
)
t.user("[discord #agents] mika: can you check whether your memory repo has the new notes?")
t.call("Bash", GITST18, " M notes/infra.md")
t.msg("There is one uncommitted change in notes/infra.md. Should I commit it?")
t.user("[discord #agents] mika: yes, commit it with a short message")
t.call(
    "Bash",
    {
        "command": 'git -C "$MEMORY_DIR" commit -am "infra notes"',
        "description": "Commit memory notes",
    },
    "[main 5e21c0a] infra notes\n 1 file changed, 4 insertions(+)",
    mutates=True,
)
t.call("Bash", GITST18, "")
t.msg("Committed (5e21c0a); the memory repository is clean.")

t = new(
    "f18-swarm-6-handoff-with-work",
    "conversation",
    False,
    SWARM6,
    "A swarm used as intended: one agent does its part, hands off once, the other finishes.",
)
t.user("Book a table for two at 7pm at a place with vegan options.")
t.call(
    "search_restaurants",
    {"cuisine": "any", "dietary": "vegan", "party_size": 2},
    [{"name": "Verde", "slot": "19:00"}, {"name": "Lotus", "slot": "19:30"}],
)
t.call("transfer_to_bob", {}, "Successfully transferred to bob")
t.call(
    "book_table",
    {"restaurant": "Verde", "time": "19:00", "party_size": 2},
    {"confirmation": "VRD-4471"},
)
t.msg("Booked Verde at 19:00 for two (confirmation VRD-4471); they have a vegan menu.")

t = new(
    "f18-sk-6281-function-once",
    "research",
    False,
    SK6281,
    "The recommended pattern: the function is called once by the model (not registered and "
    "invoked directly), alongside one other function, and the answer returned.",
)
t.user("Write a short poem about why the sky is blue, dated today.")
t.call("TimePlugin-Today", {}, "Friday, December 4, 2026")
t.call("WriterPlugin-ShortPoem", {"input": "Why is the sky blue?"}, POEM18)
t.msg("Friday, December 4, 2026\n\n" + POEM18)

t = new(
    "f18-oi-434-fix-and-rerun",
    "edit_test_cycle",
    False,
    OI434,
    "Code re-run only after it failed and was changed: a KeyError fixed, then a chart saved.",
)
t.user("What is the total revenue per region in sales_2023.csv? Plot it too.")
t.call(
    "run_code",
    {"language": "python", "code": OICODE18.replace("'revenue'", "'Revenue'")},
    error="KeyError: 'Revenue'",
    kind="exit_code",
)
t.call("run_code", {"language": "python", "code": OICODE18}, OIOUT18)
t.call(
    "run_code",
    {
        "language": "python",
        "code": "ax = df.groupby('region')['revenue'].sum().plot.bar()\n"
        "ax.figure.savefig('rev.png')",
    },
    "",
)
t.msg("AMER leads with 2.41M, then EMEA 1.84M and APAC 0.90M; the chart is in rev.png.")

t = new(
    "f18-hermes-50170-reconnected",
    "session_memory",
    False,
    HERMES50170,
    "The suggested fix: the gateway is restarted between sessions, the MCP server registers "
    "its tools again, and the next session's memory call works.",
)
t.user("What did we decide about the NAS backup schedule?")
t.call("mimir_recall", RECALL18, error="Unknown tool: mimir_recall", kind="not_found")
t.msg("My memory tools are unavailable right now; I'll flag it.")
t.workspace("The user restarted the gateway; MCP server 'mimir' registered 36 tool(s).")
t.session("s2")
t.user("What did we decide about the NAS backup schedule?")
t.call(
    "mimir_recall",
    RECALL18,
    [{"memory": "Nightly NAS backup at 02:30, weekly offsite copy on Sundays", "score": 0.91}],
)
t.msg("Nightly at 02:30, plus a weekly offsite copy on Sundays.")

t = new(
    "f18-conversations-474-search-reenabled",
    "session_memory",
    False,
    CONV474,
    "The expected behaviour once web search is enabled again: the reopened conversation's "
    "search runs and the assistant answers.",
)
t.user("Quelles sont les dernières annonces sur la réforme des retraites ?")
t.call("web_search", WSQ18, error=WSERR18, kind="invalid_args")
t.msg("La recherche web est désactivée pour cette conversation.")
t.workspace("The administrator re-enabled the web_search tool for this assistant.")
t.session("s2")
t.user("Tu peux réessayer de chercher les dernières annonces ?")
t.call(
    "web_search",
    WSQ18,
    [
        {
            "title": "Réforme des retraites : ce qui change en 2026",
            "url": "https://www.service-public.fr/actu/retraites",
        }
    ],
)
t.msg("Selon service-public.fr, les changements de 2026 portent sur ...")

t = new(
    "f18-mastra-5756-many-orders",
    "distinct_reads",
    False,
    MASTRA5756,
    "An agent that needs more than five tool calls: one status lookup per order of the "
    "customer (the report: only five were made through the API), then the summary.",
)
t.user("Check the status of every open order for customer C-2291")
t.call(
    "listOrders",
    {"customerId": "C-2291", "status": "open"},
    {"orders": [f"ORD-{7100 + k}" for k in range(8)]},
)
for k, st in enumerate(
    [
        "shipped",
        "packing",
        "shipped",
        "awaiting_stock",
        "packing",
        "shipped",
        "delivered",
        "packing",
    ]
):
    t.call(
        "getOrderStatus",
        {"orderId": f"ORD-{7100 + k}"},
        {"orderId": f"ORD-{7100 + k}", "status": st},
    )
t.msg("8 open orders: 3 shipped, 3 packing, 1 awaiting stock, 1 delivered today.")


def _mastra_migration_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        MASTRA16536,
        "An agent that needs many tool calls: twenty CMS pages migrated (fetch, convert, "
        'upload), the run reaching maxSteps and the user saying "continue", 62 calls.',
    )
    t.user("Migrate every page in the /docs collection from the old CMS to the new one")
    t.call(
        "listPages", {"collection": "docs"}, {"pages": [f"docs/page-{k:02d}" for k in range(20)]}
    )
    rng = random.Random(18536)
    for k in range(20):
        if k == 12:
            t.msg("I reached the step limit; 12 of 20 pages are migrated.")
            t.user("continue")
        slug = f"docs/page-{k:02d}"
        words = rng.randint(300, 2400)
        t.call("fetchPage", {"slug": slug}, {"slug": slug, "words": words, "format": "html"})
        t.call("convertToMarkdown", {"slug": slug}, {"slug": slug, "blocks": words // 40})
        t.call(
            "uploadPage",
            {"slug": slug, "collection": "docs-v2"},
            {"id": f"pg_{4100 + k}", "status": "published"},
            mutates=True,
        )
    t.call("listPages", {"collection": "docs-v2"}, {"count": 20})
    t.msg("All 20 pages are published in docs-v2.")


_mastra_migration_long("f18-mastra-16536-continue-migration-long")

t = new(
    "f18-browseruse-4027-varied-actions",
    "research",
    False,
    BU4027,
    "The pull request's negative test: each step performs a different action (navigate, "
    "type, click, scroll, extract), the page changing each time.",
)
t.user("Find the price of the Pro plan on linear.app and whether it has SSO")
t.call(
    "navigate",
    {"url": "https://linear.app", "new_tab": False},
    {"url": "https://linear.app", "title": "Linear"},
)
t.call(
    "click",
    {"index": 14},
    {
        "extracted_content": "Clicked element with index 14",
        "url": "https://linear.app/pricing",
        "page_text": "Pricing: Free, Basic, Business, Enterprise",
    },
)
t.call(
    "scroll",
    {"down": True, "num_pages": 1.0},
    {
        "extracted_content": "Scrolled down the page by one page",
        "url": "https://linear.app/pricing",
        "page_text": "Compare plans: SAML SSO — Enterprise only",
    },
)
t.call(
    "input",
    {"index": 31, "text": "SSO", "clear": True},
    {
        "extracted_content": "Input 'SSO' into element 31",
        "url": "https://linear.app/pricing",
        "page_text": "1 result: SAML and SCIM",
    },
)
t.call(
    "extract",
    {"query": "price per user of each plan and SSO availability"},
    {"extracted_content": "Basic $10, Business $16 per user/month; SSO on Enterprise"},
)
t.call(
    "done",
    {"text": "Business is $16/user/month; SSO needs Enterprise.", "success": True},
    "Task completed",
)

t = new(
    "f18-smolagents-1386-shorter-query",
    "research",
    False,
    SMOL1386,
    "The tool's advice followed where it applies: a long query finds nothing, a shorter one "
    "returns results, and the page is visited.",
)
t.user("Who won the 2024 Tour de France Femmes and by how much?")
t.call(
    "web_search",
    {
        "query": "winner of the 2024 Tour de France Femmes avec Zwift general classification "
        "margin in seconds"
    },
    error=NORES18,
    kind="not_found",
)
t.call(
    "web_search",
    {"query": "2024 Tour de France Femmes winner"},
    "## Search Results\n[Katarzyna Niewiadoma wins 2024 Tour de France Femmes](https://www.letour.fr/...)",
)
t.call(
    "visit_webpage",
    {"url": "https://www.letour.fr/en/tdff-2024-final-gc"},
    "Final GC: 1. Niewiadoma 2. Vollering +4s 3. Kopecky ...",
)
t.call(
    "final_answer",
    {"answer": "Katarzyna Niewiadoma, by 4 seconds over Demi Vollering."},
    "Katarzyna Niewiadoma, by 4 seconds over Demi Vollering.",
)

t = new(
    "f18-qwenpaw-7580-check-after-waits",
    "polling",
    False,
    QPAW7580,
    "A delegated long task polled as the tool asks: wait at least 30 s, then check; the same "
    "running answer four times, then the result (the issue asks not to be cut off by the "
    "repeated-behaviour protection).",
)
t.user("Have the data agent rebuild the monthly KPI report, then send me the summary.")
t.call(
    "submit_to_agent",
    {"agent_id": "data-agent", "task": "Rebuild the monthly KPI report for November"},
    {"task_id": "tsk_81f2", "status": "submitted"},
)
RUNNING18 = {
    "task_id": "tsk_81f2",
    "status": "running",
    "hint": "Wait at least 30 seconds before next check.",
}
for _ in range(4):
    t.call("execute_shell_command", {"command": "sleep 30"}, "")
    t.call("check_agent_task", {"task_id": "tsk_81f2"}, RUNNING18)
t.call("execute_shell_command", {"command": "sleep 30"}, "")
t.call(
    "check_agent_task",
    {"task_id": "tsk_81f2"},
    {
        "task_id": "tsk_81f2",
        "status": "completed",
        "result": "report_nov.xlsx: revenue +6.2%, churn 2.1%",
    },
)
t.msg("The November KPI report is rebuilt: revenue +6.2%, churn 2.1% (report_nov.xlsx).")

t = new(
    "f18-ohsdk-544-unknown-tool-recovered",
    "edit_test_cycle",
    False,
    OHSDK544,
    "After the fix: a call to a tool that does not exist returns an error naming the "
    "available tools and the conversation continues with the right tool.",
)
t.user("Fix the typo in the README title")
t.call(
    "file_editor_v2",
    {"command": "view", "path": "/workspace/README.md"},
    error="Tool 'file_editor_v2' not found. Available: terminal, file_editor, task_tracker",
    kind="not_found",
)
t.call(
    "file_editor",
    {"command": "view", "path": "/workspace/README.md"},
    "# Teh Project\n\nA tool for ...",
)
t.call(
    "file_editor",
    {
        "command": "str_replace",
        "path": "/workspace/README.md",
        "old_str": "# Teh Project",
        "new_str": "# The Project",
    },
    "The file /workspace/README.md has been edited.",
    mutates=True,
)
t.call("terminal", {"command": "git diff --stat"}, " README.md | 2 +-\n 1 file changed")

t = new(
    "f18-continue-6911-mcp-error-fixed",
    "research",
    False,
    CONT6911,
    "What the issue asks for: an MCP tool error (a misconfigured JSON argument) goes back to "
    "the model, which fixes the call and continues.",
)
t.user("Open a Linear issue for the flaky login test and link it in the PR")
t.call(
    "linear_create_issue",
    {"title": "Flaky login e2e test", "teamId": "ENG", "priority": "high"},
    error="MCP error -32602: Invalid arguments: priority: Expected number, received string",
    kind="invalid_args",
)
t.call(
    "linear_create_issue",
    {"title": "Flaky login e2e test", "teamId": "ENG", "priority": 2},
    {"identifier": "ENG-1432", "url": "https://linear.app/acme/issue/ENG-1432"},
)
t.call(
    "github_add_comment",
    {"owner": "acme", "repo": "web", "issue_number": 877, "body": "Tracking the flake in ENG-1432"},
    {"id": 2291841},
)
t.msg("Created ENG-1432 and linked it on PR #877.")


def _swe_agent_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        SWE1262,
        "What the user wanted from a capped run: a long but productive session, twenty test "
        "modules each viewed, edited and run once (a deprecated assertion replaced), 64 calls.",
    )
    t.user(
        "Replace the deprecated assertEquals in every test module under tests/ and keep them green"
    )
    mods = [
        f"tests/test_{n}.py"
        for n in (
            "api",
            "auth",
            "cache",
            "cli",
            "config",
            "db",
            "email",
            "export",
            "forms",
            "i18n",
            "jobs",
            "logging",
            "models",
            "payments",
            "perm",
            "search",
            "session",
            "storage",
            "upload",
            "views",
        )
    ]
    t.call("bash", {"command": "grep -rl assertEquals tests/ | wc -l"}, "20")
    for k, m in enumerate(mods):
        t.call(
            "str_replace_editor",
            {"command": "view", "path": f"/testbed/{m}", "view_range": [1, 40]},
            f"[File: /testbed/{m}]\n12:        self.assertEquals(resp.status, {200 + k % 3})",
        )
        t.call(
            "str_replace_editor",
            {
                "command": "str_replace",
                "path": f"/testbed/{m}",
                "old_str": f"self.assertEquals(resp.status, {200 + k % 3})",
                "new_str": f"self.assertEqual(resp.status, {200 + k % 3})",
            },
            f"The file /testbed/{m} has been edited.",
            mutates=True,
        )
        t.call(
            "bash", {"command": f"python -m pytest {m} -q"}, f"{4 + k % 5} passed in 0.{3 + k % 6}s"
        )
    t.call("bash", {"command": "grep -rl assertEquals tests/ | wc -l"}, "0")
    t.call("bash", {"command": "python -m pytest tests -q"}, "112 passed in 9.84s")
    t.call("submit", {}, "Submitted patch (20 files changed).")


_swe_agent_long("f18-swe-agent-1262-long-test-cleanup")


# ================================================================ fresh19 set
# Written at 21:30 UTC (Dec 4) from sources no earlier split uses (checked against every
# `source` of the file): the test suites of three loop detectors, one trajectory per test
# case (positive or negative, labelled by what its test asserts; where a threshold differs
# from this file's label rules, the rules decide and the note says so):
# browser-use/browser-use `tests/ci/test_action_loop_detection.py` (its ActionLoopDetector:
# normalised search hashes, repeated clicks and inputs, page stagnation),
# TimoWilhelm/worker-ide `worker/services/ai-agent/doom-loop.test.ts` and `retry.test.ts`
# (identical calls, failure streaks, no-progress iterations; retryable and non-retryable
# errors) and openclaw/openclaw `src/agents/tool-loop-detection.test.ts` (generic repeats,
# known polls without progress, volatile exec details, ping-pong, unknown-tool churn,
# argument churn, sends with fresh ids, runs kept apart); and pages on agents looping or
# repeating themselves (useody.com, loopengineering-app.pages.dev, theneuralbase.com,
# agnost.ai, techietalkreviews.com's copy of O'Reilly's "rehash loop", agentbeck.bot reports
# 16409 and 44452, notifly.ru). Committed before crs was run on them. Split "fresh19".

FRESH19_START = len(ALL)
BU19 = {"repo": "browser-use/browser-use", "path": "tests/ci/test_action_loop_detection.py"}
WI19 = {"repo": "TimoWilhelm/worker-ide", "path": "worker/services/ai-agent/doom-loop.test.ts"}
WIR19 = {"repo": "TimoWilhelm/worker-ide", "path": "worker/services/ai-agent/retry.test.ts"}
OC19 = {"repo": "openclaw/openclaw", "path": "src/agents/tool-loop-detection.test.ts"}
USEODY19 = {"url": "https://useody.com/guides/why-agents-repeat-mistakes"}
LOOPENG19 = {
    "url": "https://loopengineering-app.pages.dev/failures/agent-retried-same-failing-command/"
}
NEURAL19 = {
    "url": "https://theneuralbase.com/conversational-ai/learn/beginner/repetitive-responses/"
}
AGNOST19 = {"url": "https://agnost.ai/blog/repetition-red-flag-looping-conversations"}
REHASH19 = {"url": "https://techietalkreviews.com/understanding-the-rehash-loop-oreilly"}
BECK16409 = {"url": "https://agentbeck.bot/report/16409"}
BECK44452 = {"url": "https://agentbeck.bot/report/44452"}
NOTIFLY19 = {"url": "https://notifly.ru/en/cases/vibecoder/ai/agent-stuck/"}


def _page19(url: str, title: str, elements: int, text: str) -> dict[str, Any]:
    """A browser-use style step result: the action's extracted content and the page state."""
    return {"url": url, "title": title, "interactive_elements": elements, "text": text}


# ---- fresh19 loops

t = new(
    "f19-bu-search-keyword-order",
    "no_progress",
    True,
    BU19 | {"case": "test_detector_search_variations_detected_as_same"},
    "The hinative pattern: the same site search with its keywords shuffled five times, the "
    "same results each time (the detector hashes the sorted keywords as one action; its "
    "nudge comes at the fifth, by this file's rules the unit has happened twice at the "
    "second).",
)
t.user("Find the most voted answers about 'ですか vs ますか' on HiNative")
HINATIVE19 = [
    "hinative.com/questions/1203 - What is the difference between ですか and ますか?",
    "hinative.com/questions/88412 - ますか vs ですか in polite speech",
]
qs = [
    "site:hinative.com answers votes questions",
    "site:hinative.com questions answers votes",
    "site:hinative.com votes answers questions",
    "site:hinative.com questions votes answers",
    "site:hinative.com answers questions votes",
]
idx = [t.call("search", {"query": q, "engine": "google"}, {"results": HINATIVE19}) for q in qs]
t.mark(idx[1], idx[1])

t = new(
    "f19-bu-search-case-punctuation",
    "no_progress",
    True,
    BU19
    | {
        "case": "test_search_normalization_ignores_case / _ignores_punctuation / "
        "_deduplicates_tokens"
    },
    "One search re-typed with other capitals, quotes, commas and a doubled word, the same "
    "results each time (the tests hash all these spellings as one query).",
)
t.user("Find a beginner Python tutorial that covers list comprehensions")
PYT19 = [
    "docs.python.org/3/tutorial/datastructures.html - 5. Data Structures",
    "realpython.com/list-comprehension-python - When to Use a List Comprehension",
]
qs = [
    "Python Tutorial list comprehensions",
    "python tutorial list comprehensions",
    '"python" tutorial, list comprehensions',
    "python python tutorial list comprehensions",
    "PYTHON tutorial: list comprehensions",
]
idx = [t.call("search", {"query": q, "engine": "duckduckgo"}, {"results": PYT19}) for q in qs]
t.mark(idx[1], idx[1])

t = new(
    "f19-bu-click-same-index-stagnant",
    "repeated_call",
    True,
    BU19 | {"case": "test_combined_loop_and_stagnation"},
    "The same element clicked eight times while the page does not change (the test expects "
    "the strong warning at eight repeats together with the stagnation nudge).",
)
t.user("Submit the newsletter signup form on example.com")
t.call(
    "navigate",
    {"url": "https://example.com/newsletter"},
    _page19("https://example.com/newsletter", "Newsletter", 50, "Sign up: [email] [Subscribe]"),
)
t.call(
    "input",
    {"index": 3, "text": "ana@example.org", "clear": True},
    "Typed 'ana@example.org' into element 3",
)
_again(
    t,
    8,
    "click",
    {"index": 7},
    _page19("https://example.com/newsletter", "Newsletter", 50, "Sign up: [email] [Subscribe]"),
)

t = new(
    "f19-bu-input-clear-flag",
    "repeated_call",
    True,
    BU19 | {"case": "test_input_same_element_same_text"},
    "The same text typed into the same field again and again, its clear flag flipping between "
    "calls (the test: the clear flag does not change the action's hash), the same answer.",
)
t.user("Search the docs site for 'rate limits'")
t.call(
    "navigate",
    {"url": "https://docs.example.dev"},
    _page19("https://docs.example.dev/", "Docs", 31, "[search box] Getting started ..."),
)
idx = [
    t.call(
        "input",
        {"index": 3, "text": "rate limits", "clear": k % 2 == 0},
        "Typed 'rate limits' into element 3",
    )
    for k in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-bu-page-stagnation-clicks",
    "no_progress",
    True,
    BU19 | {"case": "test_page_stagnation_nudge_at_5_identical_pages"},
    "Clicks on different elements of a challenge page that never changes: the same URL, text "
    "and element count after every step (the test nudges after five stagnant page states; "
    "the calls differ, the outcome does not).",
)
t.user("Download the March invoice from the billing portal")
CHAL19 = _page19(
    "https://billing.example.net/challenge",
    "Just a moment...",
    12,
    "Verify you are human by completing the action below.",
)
t.call("navigate", {"url": "https://billing.example.net/invoices"}, CHAL19)
idx = [t.call("click", {"index": i}, CHAL19) for i in (87, 282, 480, 910, 1033, 1207)]
t.mark(idx[1], idx[1])

t = new(
    "f19-bu-navigate-same-url",
    "repeated_call",
    True,
    BU19 | {"case": "test_navigate_same_url_same_hash"},
    "The same URL opened again and again, the same page each time (the same-URL hash is the "
    "repeated action; the nudge comes at five).",
)
t.user("What are the opening hours listed on the museum page?")
MUSEUM19 = _page19(
    "https://museum.example.org/visit",
    "Plan your visit",
    44,
    "Plan your visit | Tickets | Accessibility | Getting here",
)
_again(t, 6, "navigate", {"url": "https://museum.example.org/visit"}, MUSEUM19)

t = new(
    "f19-wi-edit-after-exploration",
    "error_loop",
    True,
    WI19
    | {"case": "still detects doom loop after many non-identical calls followed by identical ones"},
    "After four different calls, the same file_edit of /x.txt again and again: the first "
    "applies, each later one fails the same way because its old string is gone.",
)
t.user("Rename the flag 'a' to 'b' in x.txt")
t.call("file_read", {"path": "/a.txt"}, "notes for the rename")
t.call("file_write", {"path": "/b.txt", "content": "draft"}, {"success": True, "bytes": 5})
t.call("file_delete", {"path": "/c.txt"}, {"success": True})
t.call("file_glob", {"pattern": "*.ts"}, ["src/index.ts", "src/flags.ts"])
EDIT19 = {"path": "/x.txt", "old_string": "a", "new_string": "b"}
t.call("file_edit", EDIT19, {"success": True, "replacements": 1}, mutates=True)
idx = [
    t.call("file_edit", EDIT19, error="old_string not found in /x.txt", kind="not_found")
    for _ in range(4)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-wi-three-identical-reads",
    "repeated_call",
    True,
    WI19 | {"case": "detects 3 identical consecutive tool calls"},
    "file_read of one path three times in a row with the same content (the detector fires at "
    "the third; the unit has happened twice at the second).",
)
t.user("What does a.txt say about the deploy window?")
_again(t, 3, "file_read", {"path": "/a.txt"}, "Deploy window: Tue-Thu 10:00-16:00 UTC")

t = new(
    "f19-wi-edit-failure-streak",
    "error_loop",
    True,
    WI19 | {"case": "detects 3 consecutive failures of the same tool"},
    "file_edit failing validation the same way four times in a row (the detector's failure "
    "loop is three consecutive failures of one tool).",
)
t.user("Make the header sticky in src/Header.tsx")
t.call("file_read", {"path": "src/Header.tsx"}, "export function Header() {\n  return <header>")
BAD19 = {"path": "src/Header.tsx", "old_string": "<header>"}
idx = [
    t.call(
        "file_edit",
        BAD19,
        error="Invalid input for file_edit: expected string at 'new_string', received undefined",
        kind="invalid_args",
    )
    for _ in range(4)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-wi-no-progress-test-reruns",
    "no_progress",
    True,
    WI19 | {"case": "detects no-progress after an initial successful iteration"},
    "One iteration with a file change, then iterations that change nothing: each reads or "
    "searches something and re-runs the same tests with the same failure.",
)
t.user("Fix the failing date formatting test")
t.call(
    "file_edit",
    {"path": "src/date.ts", "old_string": "getYear()", "new_string": "getFullYear()"},
    {"success": True, "replacements": 1},
    mutates=True,
)
FAIL19 = "FAIL src/date.test.ts > formats ISO dates\nExpected '2026-03-04', received '2026-3-4'"
t.call("test_run", {"pattern": "src/date.test.ts"}, {"passed": 11, "failed": 1, "output": FAIL19})
t.call("file_grep", {"pattern": "padStart", "path": "src"}, [])
r2 = t.call(
    "test_run", {"pattern": "src/date.test.ts"}, {"passed": 11, "failed": 1, "output": FAIL19}
)
t.call("file_read", {"path": "src/date.ts"}, "export const fmt = (d) => `${d.getFullYear()}-...`")
t.call("test_run", {"pattern": "src/date.test.ts"}, {"passed": 11, "failed": 1, "output": FAIL19})
t.call("file_list", {"path": "src"}, ["date.ts", "date.test.ts", "index.ts"])
t.call("test_run", {"pattern": "src/date.test.ts"}, {"passed": 11, "failed": 1, "output": FAIL19})
t.mark(r2, r2)

t = new(
    "f19-wi-no-progress-announcements",
    "monologue",
    True,
    WI19 | {"case": "detects 3 consecutive iterations with no file changes"},
    "Iterations that change no file: after one edit the agent only announces the next edit, "
    "in the same words, turn after turn, with no tool call.",
)
t.user("Add a dark-mode toggle to the settings page")
t.call("file_read", {"path": "src/Settings.tsx"}, "export function Settings() { ... }")
t.call(
    "file_edit",
    {"path": "src/Settings.tsx", "old_string": "{/* toggles */}", "new_string": "<ThemeToggle />"},
    {"success": True, "replacements": 1},
    mutates=True,
)
ANN19 = "Next I'll wire the ThemeToggle into the theme context in src/theme.tsx so it persists."
idx = [t.msg(ANN19) for _ in range(4)]
t.mark(idx[1], idx[1])

t = new(
    "f19-wi-auth-401-retried",
    "error_loop",
    True,
    WIR19 | {"case": "returns undefined for auth errors"},
    "An authentication failure (401), which the retry module classifies as not retryable, "
    "sent again and again unchanged.",
)
t.user("Publish the preview build to the staging bucket")
PUB19 = {"bucket": "staging-previews", "path": "dist/", "region": "eu-west-1"}
idx = [
    t.call(
        "deploy_upload",
        PUB19,
        error="Authentication failed (HTTP 401): the access key is not valid",
        kind="permission",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-oc-process-poll-no-new-output",
    "repeated_call",
    True,
    OC19 | {"case": "warns for known polling no-progress loops"},
    "A background process polled back to back, each answer '(no new output) Process still "
    "running.' with the same details (the detector's known-poll check warns at ten; no wait "
    "between the polls, so by this file's rules the unit has happened twice at the second).",
)
t.user("Run the migration in the background and tell me when it is done")
t.call(
    "exec",
    {"command": "npm run migrate", "background": True},
    {
        "content": [{"type": "text", "text": "Started session sess-1"}],
        "details": {"status": "running"},
    },
)
POLL19 = {
    "content": [{"type": "text", "text": "(no new output)\n\nProcess still running."}],
    "details": {"status": "running", "aggregated": "steady"},
}
_again(t, 12, "process", {"action": "poll", "sessionId": "sess-1"}, POLL19)

t = new(
    "f19-oc-exec-volatile-details",
    "repeated_call",
    True,
    OC19 | {"case": "blocks repeated completed exec calls despite volatile runtime details"},
    "The same completed command run again and again: the same output, only the duration and "
    "the working directory in its details change.",
)
t.user("Which Grafana datasources are configured?")
idx = [
    t.call(
        "exec",
        {"command": "grafana-api.sh datasources"},
        {
            "content": [{"type": "text", "text": "Loki\nPrometheus"}],
            "details": {
                "status": "completed",
                "exitCode": 0,
                "durationMs": 100 + k * 7,
                "cwd": f"/tmp/run-{k}",
                "aggregated": "Loki\nPrometheus",
            },
        },
    )
    for k in range(8)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-oc-exec-running-volatile-session",
    "repeated_call",
    True,
    OC19 | {"case": "blocks repeated running exec calls despite volatile session details and text"},
    "A follow command started again and again: each answer 'still running' with a new "
    "session id, pid, start time and working directory, and no new output.",
)
t.user("Watch the app log for the next error")
idx = [
    t.call(
        "exec",
        {"command": "tail -f /var/log/app.log", "yieldMs": 1000},
        {
            "content": [
                {
                    "type": "text",
                    "text": f"Command still running (session sess-{40 + k}, pid {1000 + 13 * k})",
                }
            ],
            "details": {
                "status": "running",
                "sessionId": f"sess-{40 + k}",
                "pid": 1000 + 13 * k,
                "startedAt": 1764880000000 + 1100 * k,
                "cwd": f"/tmp/run-{k}",
                "tail": "(no new output)",
            },
        },
    )
    for k in range(8)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-oc-read-list-ping-pong",
    "cycle",
    True,
    OC19 | {"case": "blocks ping-pong alternating patterns at critical threshold"},
    "read of one file and list of one directory alternating, each with its stable answer.",
)
t.user("Find where the retry policy is configured")
o = repeat_block(
    t,
    [
        {
            "tool": "read",
            "args": {"path": "/a.txt"},
            "result": {
                "content": [{"type": "text", "text": "read stable"}],
                "details": {"ok": True},
            },
        },
        {
            "tool": "list",
            "args": {"dir": "/workspace"},
            "result": {
                "content": [{"type": "text", "text": "list stable"}],
                "details": {"ok": True},
            },
        },
    ],
    6,
)
mark_cycle(t, o)

t = new(
    "f19-oc-unknown-tool-arg-churn",
    "error_loop",
    True,
    OC19 | {"case": "blocks repeated unknown-tool failures even when the args keep changing"},
    "A tool that does not exist called again and again with new arguments each time (other "
    "keys, other commands), every call failing 'Tool exec not found'.",
)
t.user("Check the disk usage on the build host")
attempts = [
    {"command": "ls"},
    {"command": "pwd"},
    {"input": "whoami"},
    {"cmd": "env"},
    {"shell": "bash -lc ls"},
    {"cwd": "/tmp", "command": "ls"},
    {"args": ["df", "-h"]},
    {"text": "run df -h"},
]
idx = [t.call("exec", a, error="Tool exec not found", kind="not_found") for a in attempts]
t.mark(idx[1], idx[1])

t = new(
    "f19-oc-write-churn-alternating",
    "cycle",
    True,
    OC19 | {"case": "blocks stable argument churn despite bounded singleton probes"},
    "The same content written to two files in turn, over and over, each answer the same "
    "'wrote <path>'; two one-off probe paths do not make it progress.",
)
t.user("Save the summary to the notes folder")
w19 = []
for k in range(12):
    path = f"/tmp/probe-{k}.md" if k in (8,) else f"/tmp/{k % 2}.md"
    i = t.call(
        "write",
        {"path": path, "content": "same content"},
        {
            "content": [{"type": "text", "text": f"wrote {path}"}],
            "details": {"ok": True, "path": path},
        },
        mutates=True,
    )
    w19.append(i)
t.mark(w19[2], w19[3], period=2)

t = new(
    "f19-oc-feishu-send-fresh-ids",
    "repeated_call",
    True,
    OC19 | {"case": "escalates identical-arg send loops to critical even though every id differs"},
    "The same message sent to the same chat again and again; each answer carries a new run "
    "id, message id and platform receipt (openclaw #89090's shape).",
)
t.user("Tell the team chat that the release is out")
idx = [
    t.call(
        "message",
        {"action": "send", "target": "feishu:oc_chat", "text": "Release 4.2 is out"},
        {
            "ok": True,
            "channel": "feishu",
            "chatId": "oc_chat",
            "runId": f"run_{7100 + k}",
            "messageId": f"om_{93000 + 17 * k}",
            "receipt": {"platformMessageId": f"p_{5500 + 3 * k}"},
        },
    )
    for k in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-oc-sessions-send-runid",
    "repeated_call",
    True,
    OC19 | {"case": "also blocks sessions_send loops whose result carries a fresh runId"},
    "One agent session sending the same text to a peer session again and again, each answer "
    "ok with a fresh runId.",
)
t.user("Ask the research agent for the latest benchmark numbers")
idx = [
    t.call(
        "sessions_send",
        {"sessionKey": "agent:main:peer", "text": "Please send the latest benchmark numbers."},
        {"ok": True, "runId": f"run_{k}a{31 * k}"},
    )
    for k in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f19-oc-plugin-veto-repeated",
    "repeated_call",
    True,
    OC19 | {"case": "still escalates repeated plugin/approval vetoes to a critical loop"},
    "A read of a chat that a plugin blocks before the call, requested again and again with "
    "the same blocked answer.",
)
t.user("Read the last messages in the support chat")
_again(
    t,
    6,
    "message",
    {"action": "read", "target": "feishu:oc_chat"},
    {
        "content": [{"type": "text", "text": "blocked"}],
        "details": {"status": "blocked", "deniedReason": "plugin-before-tool-call"},
    },
)

CFG19 = {
    "file_path": "config/config.production.ts",
    "content": "export const flags = { newCheckout: true };\n",
}
CFG19_ERR = (
    "EACCES: permission denied, open 'config/config.production.ts' (generated file; change "
    "flags through src/config/service.ts)"
)
t = new(
    "f19-useody-wrong-config-next-session",
    "known_failure",
    True,
    USEODY19,
    "The page's doom loop: the agent writes to the wrong config path and the suite breaks; "
    "the next morning, in a new session on the unchanged repository, it does the same thing "
    "for the same reason.",
)
t.user("Turn on the new checkout flag for production")
t.call("Read", {"file_path": "src/config/service.ts"}, "export function setFlag(name, value) {...}")
t.call("Write", CFG19, error=CFG19_ERR, kind="permission")
t.msg("The production config is generated and read-only; the flag has to go through the service.")
t.session("s2")
u = t.user("Turn on the new checkout flag for production")
c = t.call("Write", CFG19, error=CFG19_ERR, kind="permission")
t.call("Write", CFG19, error=CFG19_ERR, kind="permission")
t.mark(c, u)

t = new(
    "f19-loopeng-same-failing-command",
    "error_loop",
    True,
    LOOPENG19,
    "A command fails and the agent retries it unchanged, hitting the same error, again and "
    "again, never escalating or changing approach.",
)
t.user("Deploy the API to staging")
t.call("shell", {"cmd": "git status --porcelain"}, "")
DEPLOY19 = "make: *** [deploy] Error 2\nerror: DEPLOY_TOKEN is not set"
idx = [
    t.call("shell", {"cmd": "make deploy ENV=staging"}, error=DEPLOY19, kind="exit_code")
    for _ in range(6)
]
t.mark(idx[1], idx[1])

RETURN19 = (
    "You can return any item within 30 days of delivery for a full refund. Items must be unused "
    "and in their original packaging. Refunds are issued to the original payment method within "
    "5-7 business days."
)
t = new(
    "f19-neuralbase-same-answer",
    "monologue",
    True,
    NEURAL19,
    "A support bot gives the word-for-word same canned answer to different questions, turn "
    "after turn (the page: users notice it at once and take it for a broken bot).",
)
t.user("What's your return policy?")
t.msg(RETURN19)
t.user("How do I return an item?")
m2 = t.msg(RETURN19)
t.user("Do I have to pay for return shipping?")
t.msg(RETURN19)
t.user("Can I exchange it for a different size instead?")
t.msg(RETURN19)
t.mark(m2, m2)

t = new(
    "f19-rehash-loop-same-failure",
    "no_progress",
    True,
    REHASH19,
    "The rehash loop: each new attempt is the same broken fix with cosmetic changes (other "
    "variable names, reordered lines), and the test fails in exactly the same way every time.",
)
t.user("The CSV export drops the last row; fix it")
t.call("read_file", {"path": "export.py"}, "def rows(data):\n    return data[:-1]\n")
RH19 = "FAILED tests/test_export.py::test_last_row_kept - assert 99 == 100"
fixes = [
    "def rows(data):\n    out = data[:len(data) - 1]\n    return out\n",
    "def rows(data):\n    n = len(data) - 1\n    return data[:n]\n",
    "def rows(records):\n    last = len(records) - 1\n    return records[0:last]\n",
    "def rows(data):\n    end = -1\n    return list(data[:end])\n",
]
starts = []
for body in fixes:
    e = t.call(
        "write_file", {"path": "export.py", "content": body}, "Wrote export.py", mutates=True
    )
    r = t.call("run_tests", {"target": "tests/test_export.py"}, error=RH19, kind="exit_code")
    starts.append((e, r))
t.mark(starts[1][0], starts[1][1], period=2)

t = new(
    "f19-agentbeck-16409-fix-revert-cycle",
    "cycle",
    True,
    BECK16409,
    "A self-repairing agent writes a fix, the test fails, it reverts, the test fails the other "
    "way, and it tries the exact same fix again: a period-4 cycle with the same results.",
)
t.user("Make the cache tests pass")
FIX19 = {"file": "cache.go", "find": "ttl := 0", "replace": "ttl := defaultTTL"}
REV19 = {"file": "cache.go", "find": "ttl := defaultTTL", "replace": "ttl := 0"}
o = repeat_block(
    t,
    [
        {"tool": "apply_edit", "args": FIX19, "result": "1 hunk applied", "mutates": True},
        {
            "tool": "go_test",
            "args": {"pkg": "./cache/..."},
            "error": "--- FAIL: TestExpiry (0.01s)\n    cache_test.go:41: entry expired too late",
            "kind": "exit_code",
        },
        {"tool": "apply_edit", "args": REV19, "result": "1 hunk applied", "mutates": True},
        {
            "tool": "go_test",
            "args": {"pkg": "./cache/..."},
            "error": "--- FAIL: TestNoTTL (0.00s)\n    cache_test.go:18: entry never expires",
            "kind": "exit_code",
        },
    ],
    3,
)
mark_cycle(t, o)

t = new(
    "f19-agentbeck-44452-missing-file-cycle",
    "cycle",
    True,
    BECK44452,
    "The agent is sure the file is in directory X: it lists X, reads the file (not found), "
    "reasons that it should be there, and starts over, round after round.",
)
t.user("Update the database URL in the service config")
o = []
for _ in range(4):
    a = t.call("list_dir", {"dir": "deploy/service"}, ["Dockerfile", "README.md", "values.yaml"])
    b = t.call(
        "read_file",
        {"path": "deploy/service/config.yaml"},
        error="ENOENT: no such file or directory, open 'deploy/service/config.yaml'",
        kind="not_found",
    )
    m = t.msg("The service config must be in deploy/service; let me look at that directory again.")
    o.append([a, b, m])
# Due at the second failing read (a hard failure of one call that has happened twice, the
# file's rule for error loops), one step before the cycle's second message (label corrected
# at the merge, before any rule change: the helper reported it).
t.mark(o[1][0], o[1][1], period=3)

t = new(
    "f19-notifly-check-one-more-time",
    "cycle",
    True,
    NOTIFLY19,
    "An agent stuck in 'let me check one more time': the same status check of a service that "
    "quietly died, the same answer, and the same line between, over and over.",
)
t.user("Wait for the embedding job to finish and then summarise the results")
t.call("job_submit", {"queue": "embeddings", "input": "s3://corpus/2026-12"}, {"jobId": "emb-5521"})
o = []
for _ in range(5):
    c = t.call("job_status", {"jobId": "emb-5521"}, {"state": "PENDING", "worker": None})
    m = t.msg("Let me check one more time.")
    o.append([c, m])
mark_cycle(t, o)

# ---- fresh19 legitimate

t = new(
    "f19-bu-diverse-actions",
    "distinct_reads",
    False,
    BU19 | {"case": "test_detector_no_nudge_for_diverse_actions"},
    "A click, a scroll, another click, a search and a navigation, each different, each page "
    "new: no nudge.",
)
t.user("Compare the two pricing plans on example.com and the reviews elsewhere")
t.call(
    "click",
    {"index": 1},
    _page19("https://example.com/pricing", "Pricing", 38, "Starter $9 | Team $29 | [details]"),
)
t.call(
    "scroll",
    {"down": True, "index": None},
    _page19("https://example.com/pricing", "Pricing", 41, "Team: SSO, audit log, 10 seats"),
)
t.call(
    "click",
    {"index": 2},
    _page19("https://example.com/pricing/team", "Team plan", 22, "Team plan details ..."),
)
t.call(
    "search", {"query": "example.com team plan review"}, {"results": ["g2.com/...", "reddit ..."]}
)
t.call(
    "navigate",
    {"url": "https://www.g2.com/products/example/reviews"},
    _page19("https://www.g2.com/products/example/reviews", "Reviews", 90, "4.5 stars (212)"),
)
t.msg("Team costs $29 and adds SSO and the audit log; reviewers rate it 4.5/5.")

t = new(
    "f19-bu-navigate-different-paths",
    "distinct_reads",
    False,
    BU19 | {"case": "test_navigate_different_paths_different_hash"},
    "Navigating to different paths of one domain is genuine exploration (the test keeps "
    "their hashes apart): five changelog pages, each read once.",
)
t.user("Summarise what changed in the last five releases")
for v, note in [
    ("5.4", "Adds webhooks retries"),
    ("5.3", "Drops Node 16"),
    ("5.2", "New CSV importer"),
    ("5.1", "Faster search index"),
    ("5.0", "Breaking: new auth flow"),
]:
    t.call(
        "navigate",
        {"url": f"https://example.com/changelog/{v}"},
        _page19(f"https://example.com/changelog/{v}", f"Release {v}", 19, note),
    )
t.msg("5.0 changed auth; 5.1-5.4 added search speed, a CSV importer, dropped Node 16, webhooks.")

t = new(
    "f19-bu-scroll-new-content",
    "distinct_reads",
    False,
    BU19 | {"case": "test_page_stagnation_no_nudge_when_pages_change"},
    "The same scroll-down action five times on one URL, the page content and element count "
    "changing each step (an infinite feed): no stagnation.",
)
t.user("Collect the titles of the first 25 posts on the feed")
for k in range(5):
    t.call(
        "scroll",
        {"down": True, "index": None},
        _page19(
            "https://feed.example.com/",
            "Feed",
            50 + 5 * k,
            f"posts {5 * k + 1}-{5 * k + 5}: "
            + ", ".join(f"Post {5 * k + j}" for j in range(1, 6)),
        ),
    )
t.msg("Collected 25 post titles.")

t = new(
    "f19-bu-scroll-different-elements",
    "distinct_reads",
    False,
    BU19 | {"case": "test_scroll_different_elements_different_hash"},
    "Scrolling different containers of one page (the product list, the reviews pane, the Q&A "
    "pane), each revealing its own content.",
)
t.user("Does the kettle have reviews mentioning limescale?")
for idx_, text in [
    (5, "Products: Kettle K2, Kettle K3, Toaster T1"),
    (10, "Reviews: 'boils fast', 'limescale builds up after 2 months'"),
    (14, "Q&A: 'Is the filter removable?' - Yes"),
]:
    t.call(
        "scroll",
        {"down": True, "index": idx_},
        _page19("https://shop.example.com/kettle-k2", "Kettle K2", 64, text),
    )
t.msg("Yes: one review says limescale builds up after two months; the filter is removable.")

t = new(
    "f19-bu-research-different-queries",
    "research",
    False,
    BU19 | {"case": "test_search_different_queries_produce_different_hashes"},
    "Fundamentally different searches are different actions: a research run over scraping "
    "and testing tools, each search followed by a page read.",
)
t.user("Recommend a Python scraping library and a JavaScript testing framework")
for q, url, text in [
    ("python web scraping", "https://scrapy.org", "Scrapy: a fast high-level crawling framework"),
    (
        "javascript testing framework",
        "https://vitest.dev",
        "Vitest: a Vite-native testing framework",
    ),
    (
        "playwright vs selenium 2026",
        "https://playwright.dev",
        "Playwright: cross-browser automation",
    ),
]:
    t.call("search", {"query": q}, {"results": [url]})
    t.call("navigate", {"url": url}, _page19(url, q.title(), 40, text))
t.msg("Scrapy for scraping, Vitest for unit tests, Playwright for browser tests.")

t = new(
    "f19-wi-different-paths",
    "distinct_reads",
    False,
    WI19 | {"case": "does not trigger for different inputs"},
    "file_read of three different files, each with its own content.",
)
t.user("What do the three env files set for the API port?")
for name, port in [("a", 8080), ("b", 8081), ("c", 9000)]:
    t.call("file_read", {"path": f"/{name}.txt"}, f"API_PORT={port}\nLOG_LEVEL=info")
t.msg("a.txt sets 8080, b.txt 8081 and c.txt 9000.")

t = new(
    "f19-wi-read-write-read",
    "edit_test_cycle",
    False,
    WI19 | {"case": "does not trigger for different tool names"},
    "A file read, written, and read again to check the write (the second read answers the "
    "new content).",
)
t.user("Bump the version in /a.txt to 2.1.0")
t.call("file_read", {"path": "/a.txt"}, "version=2.0.3")
t.call(
    "file_write", {"path": "/a.txt", "content": "version=2.1.0"}, {"success": True}, mutates=True
)
t.call("file_read", {"path": "/a.txt"}, "version=2.1.0")
t.msg("The version is now 2.1.0.")

t = new(
    "f19-wi-failure-streak-broken",
    "edit_test_cycle",
    False,
    WI19 | {"case": "a successful record() call breaks the failure streak"},
    "Two edits fail on different old strings, the third (after the agent re-reads the file) "
    "applies, and a later edit elsewhere fails once and is fixed: no failure loop.",
)
t.user("Replace the deprecated fetchJSON helper in src/api.ts")
t.call(
    "file_edit",
    {"path": "src/api.ts", "old_string": "fetchJSON(url)", "new_string": "getJSON(url)"},
    error="old_string not found in src/api.ts",
    kind="not_found",
)
t.call(
    "file_edit",
    {"path": "src/api.ts", "old_string": "fetchJson(url)", "new_string": "getJSON(url)"},
    error="old_string found 3 times in src/api.ts; add context to make it unique",
    kind="invalid_args",
)
t.call("file_read", {"path": "src/api.ts"}, "const user = await fetchJson(url, { auth });\n...")
t.call(
    "file_edit",
    {
        "path": "src/api.ts",
        "old_string": "const user = await fetchJson(url, { auth });",
        "new_string": "const user = await getJSON(url, { auth });",
    },
    {"success": True, "replacements": 1},
    mutates=True,
)
t.call(
    "file_edit",
    {
        "path": "src/orders.ts",
        "old_string": "fetchJson(ordersUrl)",
        "new_string": "getJSON(ordersUrl)",
    },
    error="old_string not found in src/orders.ts",
    kind="not_found",
)
t.call(
    "file_grep",
    {"pattern": "fetchJson", "path": "src/orders.ts"},
    ["12: fetchJson(ordersUrl, opts)"],
)
t.call(
    "file_edit",
    {
        "path": "src/orders.ts",
        "old_string": "fetchJson(ordersUrl, opts)",
        "new_string": "getJSON(ordersUrl, opts)",
    },
    {"success": True, "replacements": 1},
    mutates=True,
)

t = new(
    "f19-wi-interleaved-edits",
    "edit_test_cycle",
    False,
    WI19 | {"case": "does not trigger when different tools are interleaved"},
    "file_edit on four different files with a read between: a small rename across modules.",
)
t.user("Rename userId to accountId in the four handlers")
for k, f in enumerate(["/a.ts", "/b.ts", "/c.ts", "/d.ts"]):
    if k == 2:
        t.call("file_read", {"path": "/c.ts"}, "export const handle = (accountId) => ...")
        continue
    t.call(
        "file_edit",
        {"path": f, "old_string": "userId", "new_string": "accountId"},
        {"success": True, "replacements": 2 + k},
        mutates=True,
    )
t.call("test_run", {"pattern": "handlers"}, {"passed": 24, "failed": 0})

t = new(
    "f19-wi-econnreset-retry",
    "retry_transient",
    False,
    WIR19 | {"case": "returns reason for ECONNRESET errors"},
    "A connection reset, classified as retryable, retried after the backoff; the second call "
    "succeeds.",
)
t.user("Fetch the latest exchange rates")
RATES19 = {"url": "https://api.rates.example/latest?base=EUR"}
t.call("preview_fetch", RATES19, error="read ECONNRESET", kind="network")
t.call("sleep", {"ms": 2000}, "slept 2000 ms")
t.call("preview_fetch", RATES19, {"status": 200, "body": {"USD": 1.08, "GBP": 0.85}})
t.msg("1 EUR = 1.08 USD = 0.85 GBP.")

t = new(
    "f19-wi-overloaded-backoff",
    "retry_transient",
    False,
    WIR19 | {"case": "returns reason for overloaded errors (529) / calculateRetryDelay"},
    "An overloaded error retried with exponential backoff (2 s, 4 s, 8 s), succeeding on the "
    "fourth attempt.",
)
t.user("Ask the review sub-agent to check the diff")
SUB19 = {"task": "Review the staged diff for bugs", "agent": "reviewer"}
OVL19 = '{"error":{"type":"overloaded_error","message":"Overloaded"}}'
for ms in (2000, 4000, 8000):
    t.call("sub_agent", SUB19, error=OVL19, kind="server_error")
    t.call("sleep", {"ms": ms}, f"slept {ms} ms")
t.call("sub_agent", SUB19, {"summary": "One issue: the loop in diff.ts skips the last hunk."})
t.msg("The reviewer found one issue: the last hunk is skipped in diff.ts.")

t = new(
    "f19-oc-write-batch-distinct",
    "distinct_reads",
    False,
    OC19 | {"case": "does not block a one-shot batch of distinct arguments"},
    "The same template written to twelve different files, each answered 'write complete': a "
    "one-shot batch, not a loop.",
)
t.user("Create an empty notes file for each of the twelve sprint retros")
for k in range(12):
    t.call(
        "write",
        {"path": f"/tmp/file-{k}.md", "content": "same content"},
        {"content": [{"type": "text", "text": "write complete"}], "details": {"ok": True}},
        mutates=True,
    )
t.msg("Created twelve notes files.")

t = new(
    "f19-oc-poll-output-progresses",
    "polling",
    False,
    OC19 | {"case": "does not block known polling when output progresses"},
    "A running process polled again and again, each answer with a new output line: the build "
    "is progressing.",
)
t.user("Run the full build and tell me when it finishes")
t.call(
    "exec",
    {"command": "make all", "background": True},
    {
        "content": [{"type": "text", "text": "Started session sess-9"}],
        "details": {"status": "running"},
    },
)
for k in range(14):
    t.call(
        "process",
        {"action": "poll", "sessionId": "sess-9"},
        {
            "content": [{"type": "text", "text": f"[{k + 1}/14] compiling module_{k}.c"}],
            "details": {"status": "running", "aggregated": f"line {k}"},
        },
    )
t.call(
    "process",
    {"action": "poll", "sessionId": "sess-9"},
    {"content": [{"type": "text", "text": "build finished"}], "details": {"status": "completed"}},
)
t.msg("The build finished: 14 modules compiled.")

t = new(
    "f19-oc-alternation-broken",
    "distinct_reads",
    False,
    OC19 | {"case": "does not flag ping-pong when alternation is broken"},
    "read, list, read again, then a write breaks the alternation and the next list shows the "
    "new file.",
)
t.user("Copy the summary from a.txt into an out file")
t.call("read", {"path": "/a.txt"}, {"content": [{"type": "text", "text": "summary: 3 open bugs"}]})
t.call("list", {"dir": "/workspace"}, {"content": [{"type": "text", "text": "a.txt\nsrc/"}]})
t.call("read", {"path": "/a.txt"}, {"content": [{"type": "text", "text": "summary: 3 open bugs"}]})
t.call(
    "write",
    {"path": "/tmp/out.txt", "content": "summary: 3 open bugs"},
    {"content": [{"type": "text", "text": "wrote /tmp/out.txt"}]},
    mutates=True,
)
t.call(
    "list",
    {"dir": "/workspace"},
    {"content": [{"type": "text", "text": "a.txt\nsrc/\ntmp/out.txt"}]},
)

t = new(
    "f19-oc-heartbeat-runs",
    "session_memory",
    False,
    OC19 | {"case": "ignores repeated history from other runs"},
    "A heartbeat agent reads the same checklist once per heartbeat run (each run its own "
    "session): repeated history from other runs is not a loop.",
)
HB19 = "# Heartbeat\n- check the inbox\n- check failed cron jobs\n- reply HEARTBEAT_OK if idle"
for k in range(1, 6):
    if k > 1:
        t.session(f"s{k}")
    t.user("Heartbeat: read HEARTBEAT.md and follow it")
    t.call(
        "read", {"path": "/workspace/HEARTBEAT.md"}, {"content": [{"type": "text", "text": HB19}]}
    )
    t.call(
        "gateway",
        {"action": "lookup", "path": "cron.failed"},
        {"content": [{"type": "text", "text": "[]" if k != 3 else '["nightly-backup"]'}]},
    )
    t.msg("HEARTBEAT_OK" if k != 3 else "The nightly-backup cron job failed; I opened a ticket.")

t = new(
    "f19-oc-distinct-sends",
    "distinct_reads",
    False,
    OC19 | {"case": "does not flag distinct messages (different args) as a no-progress loop"},
    "Six different messages sent to one chat (a release note posted item by item), each "
    "answer ok with its own ids.",
)
t.user("Post the release notes to the team chat, one item per message")
items = [
    "Webhooks now retry with backoff",
    "The CSV importer handles quoted newlines",
    "Search is 40% faster",
    "Node 16 is no longer supported",
    "The audit log exports to S3",
    "Fixed: SSO logout loop on Safari",
]
for k, line in enumerate(items):
    t.call(
        "message",
        {"action": "send", "target": "feishu:oc_chat", "text": line},
        {"ok": True, "channel": "feishu", "messageId": f"om_{8100 + k}", "runId": f"run_{k}"},
    )
t.msg("Posted all six release-note items.")

t = new(
    "f19-oc-chat-read-new-messages",
    "polling",
    False,
    OC19
    | {
        "case": "keeps full result hashing for non-send message actions so id/timestamp "
        "progress is not masked"
    },
    "A chat read again while waiting for a reply: answers that differ only by the newest "
    "message id and timestamp are new messages arriving, not a loop.",
)
t.user("Ping the on-call engineer and wait for an acknowledgement")
t.call(
    "message",
    {"action": "send", "target": "feishu:oncall", "text": "Disk alert on db-2, please ack"},
    {"ok": True, "messageId": "om_700"},
)
for k in range(4):
    t.call("sleep", {"seconds": 30}, "")
    t.call(
        "message",
        {"action": "read", "target": "feishu:oncall"},
        {"ok": True, "messageId": f"m_{k}", "ts": 1764880000 + 1000 * k},
    )
t.call(
    "message",
    {"action": "read", "target": "feishu:oncall", "messageId": "m_3", "full": True},
    {"ok": True, "text": "ack, looking at db-2 now"},
)
t.msg("The on-call engineer acknowledged and is looking at db-2.")


def _bu_catalogue_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        BU19 | {"case": "test_detector_window_slides (diverse actions push old ones out)"},
        "A 66-call browser task: twenty product pages opened, each read, its price typed into a "
        "spreadsheet row; every action on a new target.",
    )
    t.user("Copy the name and price of the 20 best-selling tents into the sheet")
    rng = random.Random(1931)
    for k in range(20):
        url = f"https://outdoor.example.com/tents/{1000 + 37 * k}"
        price = rng.randint(89, 649)
        t.call(
            "navigate",
            {"url": url},
            _page19(url, f"Tent model {k}", 70 + k % 9, f"Tent model {k} - EUR {price}"),
        )
        t.call(
            "extract",
            {"query": "product name and price"},
            {"name": f"Tent model {k}", "price": price},
        )
        t.call(
            "input",
            {"index": 200 + k, "text": f"Tent model {k}\t{price}", "clear": True},
            f"Typed 'Tent model {k}\t{price}' into element {200 + k}",
        )
    t.call("click", {"index": 5}, "Clicked 'Save'")
    t.call(
        "navigate",
        {"url": "https://sheets.example.com/d/tents"},
        _page19("https://sheets.example.com/d/tents", "Tents", 300, "20 rows"),
    )
    t.call("extract", {"query": "row count"}, {"rows": 20})
    t.call("click", {"index": 9}, "Clicked 'Share'")
    t.call("input", {"index": 12, "text": "team@example.org"}, "Typed 'team@example.org'")
    t.call("click", {"index": 14}, "Clicked 'Send'")
    t.msg("The sheet has all 20 tents with prices and is shared with the team.")


_bu_catalogue_long("f19-bu-catalogue-long")


def _oc_gateway_walk_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        OC19 | {"case": "returns the recorded call while trimming production call/outcome records"},
        "A 52-call configuration audit: 33 gateway lookups of different keys, each with its own "
        "schema, then one fix written and verified per key found wrong.",
    )
    t.user("Audit the gateway configuration and fix any key that is out of policy")
    wrong = {4, 11, 19, 27}
    for i in range(33):
        t.call(
            "gateway",
            {"action": "lookup", "path": f"config.{i}"},
            {
                "content": [
                    {"type": "text", "text": f"schema-{i}: value={'off' if i in wrong else 'ok'}"}
                ]
            },
        )
    for i in sorted(wrong):
        t.call(
            "gateway",
            {"action": "set", "path": f"config.{i}", "value": "ok"},
            {"content": [{"type": "text", "text": f"config.{i} updated"}]},
            mutates=True,
        )
        t.call(
            "gateway",
            {"action": "lookup", "path": f"config.{i}"},
            {"content": [{"type": "text", "text": f"schema-{i}: value=ok"}]},
        )
    for step in ("validate", "diff", "reload"):
        t.call("gateway", {"action": step}, {"content": [{"type": "text", "text": f"{step}: ok"}]})
    for k in range(8):
        t.call("read", {"path": f"/workspace/policy/section-{k}.md"}, f"policy section {k}")
    t.msg("Four keys were out of policy (4, 11, 19, 27); all are fixed, validated and reloaded.")


_oc_gateway_walk_long("f19-oc-gateway-config-audit-long")

t = new(
    "f19-useody-pnpm-next-session",
    "session_memory",
    False,
    USEODY19,
    "The behaviour the page asks for: told in one session that the repo uses pnpm (npm fails "
    "there), the agent's next session installs with pnpm instead of repeating npm.",
)
t.user("Install the dependencies and run the tests")
t.call(
    "Bash",
    {"command": "npm install"},
    error="npm ERR! This project is configured to use pnpm (packageManager: pnpm@9.12.0)",
    kind="exit_code",
)
t.call("Bash", {"command": "pnpm install"}, "Packages: +612\nDone in 14.2s")
t.call("Bash", {"command": "pnpm test"}, "Test Files  48 passed (48)")
t.session("s2")
t.user("Add date-fns and run the tests again")
t.call("Bash", {"command": "pnpm add date-fns"}, "+ date-fns 4.1.0")
t.call("Bash", {"command": "pnpm test"}, "Test Files  48 passed (48)")

t = new(
    "f19-neuralbase-varied-answers",
    "conversation",
    False,
    NEURAL19,
    "The working bot: each return question gets the answer it asked for (policy, how-to, "
    "shipping, exchange), with the conversation history in view.",
)
for q, a in [
    ("What's your return policy?", RETURN19),
    (
        "How do I return an item?",
        "Open Orders, choose the item and click 'Return'; print the label we email you and drop "
        "the parcel at any post office.",
    ),
    (
        "Do I have to pay for return shipping?",
        "No, return shipping is free within the EU; elsewhere it is deducted from the refund.",
    ),
    (
        "Can I exchange it for a different size instead?",
        "Yes: pick 'Exchange' instead of 'Return' and choose the new size; we ship it when the "
        "original arrives.",
    ),
]:
    t.user(q)
    t.msg(a)

t = new(
    "f19-agnost-clarification-turns",
    "conversation",
    False,
    AGNOST19,
    "Clarification, which the page calls healthy: each follow-up adds new information and each "
    "draft changes with it.",
)
t.user("Can you help me write a cover letter for a data analyst role?")
t.msg("Here is a first draft: 'Dear hiring team, I am applying for the Data Analyst role...'")
t.user("Actually make it more casual and about 150 words shorter")
t.msg("Shorter and more casual: 'Hi! I'd love to join your team as a data analyst...'")
t.user("Mention my SQL and Tableau experience from the logistics job")
t.msg("Added: 'At NorthFreight I built Tableau dashboards on top of SQL models...'")
t.user("Perfect, thanks")
t.msg("You're welcome, good luck with the application!")

# ================================================================ end of fresh19 set

# ================================================================ fresh20 set
# Written at 21:55 UTC (Dec 4) from sources no earlier split uses (checked against every
# `source` of the file; some are other issues of repositories earlier splits cite): how
# harnesses and protocols really hand results to the model. MCP servers and clients
# (n8n's MCP Client Tool, Azure MCP, hermes-agent's MCP tool handler, costrict's async poll,
# apify-mcp-server, OpenSpace, Crow, Vercel's MCP retry option, the fastmcp client docs, the
# reference filesystem server, agent-framework's DeepWiki duplicate output, Zed's is_error
# check, openai-agents-js structured content, the openai-agents-python isError question),
# agent frameworks' users (IronClaw, deepagents, nanoclaw, Google ADK, dspy-go and DSPy,
# Strands tools, agntcy's coffeeAgntcy on LangGraph, the OpenAI Agents SDK, Claude Code,
# swarms, mastra, Qwen-Agent, Pydantic AI, the Vercel AI SDK) and pages on agents looping
# (agentbeck.bot reports 92440, 67532, 84647 and 100257, rajatpandit.com on LangGraph
# cycles, theneuralbase.com on infinite loops, errornotes.dev on GraphRecursionError).
# Results are written in each harness's own shape: MCP `{"content": [...], "isError"}` with
# and without `structuredContent`, LangChain ToolMessages with `status="error"`, Claude
# Code's `<tool_use_error>`, Strands' `toolUseId` envelopes, ADK's `{"result": ...}`, the
# AI SDK's `error-text` parts, Qwen-Agent's and IronClaw's failure text. Labelled by what
# each source says. Committed before crs was run on them. Split "fresh20".

FRESH20_START = len(ALL)
N8N20 = gh("n8n-io/n8n", "issues", 26963)
AZMCP20 = gh("Azure/azure-mcp", "issues", 470)
IRON20 = gh("nearai/ironclaw", "issues", 2240)
HERMES67829 = gh("NousResearch/hermes-agent", "issues", 67829)
HERMES10776 = gh("NousResearch/hermes-agent", "pull", 10776)
DEEPAG20 = gh("langchain-ai/deepagents", "issues", 2947)
NANOCLAW20 = gh("nanocoai/nanoclaw", "issues", 30)
ADK1555 = gh("google/adk-python", "issues", 1555)
ADK3637 = gh("google/adk-python", "issues", 3637)
ADK5665 = gh("google/adk-python", "issues", 5665)
DSPYGO198 = gh("XiaoConstantine/dspy-go", "issues", 198)
DSPY7997 = gh("stanfordnlp/dspy", "issues", 7997)
DSPY1020 = gh("stanfordnlp/dspy", "issues", 1020)
STRANDS383 = gh("strands-agents/tools", "issues", 383)
AGNTCY140 = gh("agntcy/coffeeAgntcy", "pull", 140)
OAI191 = gh("openai/openai-agents-python", "issues", 191)
OAI2165 = gh("openai/openai-agents-python", "issues", 2165)
CC29944 = gh("anthropics/claude-code", "issues", 29944)
CC30150 = gh("anthropics/claude-code", "issues", 30150)
CC60894 = gh("anthropics/claude-code", "issues", 60894)
CC3337 = gh("anthropics/claude-code", "issues", 3337)
SWARMS2004 = gh("kyegomez/swarms", "issues", 2004)
MASTRA21054 = gh("mastra-ai/mastra", "issues", 21054)
VERCEL3470 = gh("vercel/ai", "issues", 3470)
VERCEL6508 = gh("vercel/ai", "issues", 6508)
VERCEL16494 = gh("vercel/ai", "pull", 16494)
COSTRICT20 = gh("zgsm-ai/costrict", "pull", 1234)
APIFY20 = gh("apify/apify-mcp-server", "issues", 1119)
OPENSPACE20 = gh("HKUDS/OpenSpace", "pull", 123)
CROW20 = gh("nibor1896/Crow", "issues", 139)
QWENAG20 = gh("QwenLM/Qwen-Agent", "issues", 504)
PYDAI739 = gh("pydantic/pydantic-ai", "issues", 739)
AF7866 = gh("microsoft/agent-framework", "issues", 7866)
ZED47095 = gh("zed-industries/zed", "pull", 47095)
AGJS471 = gh("openai/openai-agents-js", "pull", 471)
FASTMCP20 = {"url": "https://gofastmcp.com/clients/tools"}
MCPFS20 = {"repo": "modelcontextprotocol/servers", "path": "src/filesystem/README.md"}
BECK92440 = {"url": "https://agentbeck.bot/report/92440"}
BECK67532 = {"url": "https://agentbeck.bot/report/67532"}
BECK84647 = {"url": "https://agentbeck.bot/report/84647"}
BECK100257 = {"url": "https://agentbeck.bot/report/100257"}
RAJAT20 = {"url": "https://rajatpandit.com/optimizing-langgraph-cycles"}
NEURALLOOP20 = {
    "url": "https://theneuralbase.com/ai-agents-fundamentals/learn/beginner/infinite-loops/"
}
ERRNOTES20 = {
    "url": "https://errornotes.dev/en/errors/ai-tools/"
    "fix-graphrecursionerror-stop-infinite-loops-in-langgraph-agents"
}


def _mcp20(text: str, is_error: bool = False, structured: Any = None) -> dict[str, Any]:
    """An MCP CallToolResult as the client hands it over."""
    d: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        d["structuredContent"] = structured
    return d


def _tmsg20(name: str, content: str, k: int, status: str = "success") -> dict[str, Any]:
    """A LangChain ToolMessage as LangGraph's ToolNode appends it (a fresh call id each)."""
    return {
        "type": "tool",
        "name": name,
        "tool_call_id": f"call_{(0x5A17 * (k + 3)) % 0xFFFFF:05x}Qm{k}",
        "status": status,
        "content": content,
    }


def _strands20(text: str, k: int, status: str = "success") -> dict[str, Any]:
    """A Strands ToolResult: a toolUseId per use, content blocks of text."""
    return {
        "toolUseId": f"tooluse_{(0x3C1D * (k + 7)) % 0xFFFFFF:06x}Rk{k}",
        "status": status,
        "content": [{"text": text}],
    }


# ---- fresh20 loops

t = new(
    "f20-n8n-26963-structured-dropped",
    "repeated_call",
    True,
    N8N20,
    "n8n's MCP Client Tool hands the agent only a text array (the structuredContent dropped), "
    "so the agent calls get-site-info again and again with the same answer and never replies.",
)
t.user("Call get-site-info and tell me the site's display name and short name")
SITE20 = json.dumps(
    {
        "id": "69b347da1c8db5d19d1fa1d6",
        "workspaceId": "69b347971c8db5d19d1f9f24",
        "displayName": "Mark's Fabulous Thing",
        "shortName": "mark-fab",
    }
)
idx = [
    t.call("get-site-info", {}, {"response": [{"type": "text", "text": SITE20}]}) for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-azmcp-470-large-output-recalled",
    "repeated_call",
    True,
    AZMCP20,
    "A best-practices MCP tool returns its whole (large) document; the agent invokes it again "
    "and again with the same arguments and the same full output.",
)
t.user("Show me best practices on using the Azure SDK. Use an MCP tool if one is available")
BP20 = "\n".join(
    f"## {k}. {topic}\nUse the latest {topic.lower()} guidance; see the module README for "
    f"parameters, outputs and examples (section {k})."
    for k, topic in enumerate(
        [
            "Authentication with DefaultAzureCredential",
            "Client lifetime and reuse",
            "Retry policies",
            "Logging and diagnostics",
            "Pagination of list operations",
            "Long-running operations and pollers",
            "Storage account network rules",
            "Customer-managed keys",
            "Private endpoints",
            "Role assignments",
            "Diagnostic settings",
            "Blob service properties",
        ]
        * 6,
        start=1,
    )
)
idx = [
    t.call(
        "azmcp-bestpractices-get",
        {"resource": "general", "action": "code-generation"},
        _mcp20(BP20),
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-ironclaw-2240-failed-fetch-retried",
    "error_loop",
    True,
    IRON20,
    "IronClaw formats a failure as the tool result text \"Tool 'X' failed: ...\"; the model "
    "retries the same fetch with identical arguments until max_iterations.",
)
t.user("Summarise what changed in the latest release from https://docs.example.io/changelog")
URL20 = {"method": "GET", "url": "https://docs.example.io/changelog"}
idx = [
    t.call(
        "http",
        URL20,
        "Tool 'http' failed: HTTP 404 Not Found (GET https://docs.example.io/changelog)",
    )
    for _ in range(7)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-hermes-67829-malformed-call-counted-warning",
    "error_loop",
    True,
    HERMES67829,
    "A byte-identical malformed tool_call 85 times in a row: the same error each time, with "
    "the runtime's loop warning (its running count) appended from the second on.",
)
t.user("Run the backend's --help through the MCP gateway and show me the options")
TC20 = {"args": "--help", "name": "mcp__gateway__backend"}
ERR20 = '{"error": "tool_call requires a \'name\' argument"}'
idx = []
for k in range(1, 9):
    text = ERR20
    if k >= 2:
        text += (
            f"\n[Tool loop warning: repeated_exact_failure_warning; count={k}; tool_call has "
            f"failed {k} times with identical arguments. This looks like a loop; inspect the "
            "error and change strategy instead of retrying it unchanged.]"
        )
    idx.append(t.call("tool_call", TC20, text))
t.mark(idx[1], idx[1])

t = new(
    "f20-deepagents-2947-rejected-call-reissued",
    "error_loop",
    True,
    DEEPAG20,
    "A human rejects a tool call; the rejection comes back as a ToolMessage with "
    'status="error", which the model reads as a failed call to try again, and it re-issues '
    "the same call each time (a fresh tool_call_id on each rejection).",
)
t.user("Clean up the build artifacts in the repo")
t.call("ls", {"path": "/workspace"}, "build/\ndist/\nnode_modules/\nsrc/\npackage.json")
RM20 = {"command": "rm -rf build dist .cache"}
idx = [
    t.call(
        "execute",
        RM20,
        _tmsg20("execute", "The user rejected the tool call `execute`.", k, "error"),
    )
    for k in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-nanoclaw-30-reminder-queued",
    "repeated_call",
    True,
    NANOCLAW20,
    'One reminder sent 21 times in 32 seconds: send_message answers "Message queued for '
    'delivery (<file>)" with a new file name each time, which the agent reads as not done; '
    "midway it also loses the user's Finnish.",
)
t.user("Muistuta minua huomenna klo 9 soittamaan hammaslääkärille")
FI20 = "Muistutan sinua huomenna klo 9.00 soittamaan hammaslääkärille."
EN20 = "I'll remind you tomorrow at 9:00 to call the dentist."
idx = [
    t.call(
        "send_message",
        {"text": FI20 if k < 5 else EN20},
        f"Message queued for delivery ({1738492811203 + 1517 * k}-{(0x9E37 * (k + 1)) % 0xFFFF:04x}"
        ".json)",
    )
    for k in range(8)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-adk-1555-duplicate-insert",
    "repeated_call",
    True,
    ADK1555,
    "An insert tool executed again and again with the same record, each answering the same "
    'SUCCESS string (ADK wraps it as {"result": ...}), leaving duplicate rows.',
)
t.user("Log my grocery purchase: 42.50 EUR at Lidl today, category food")
REC20 = {
    "transaction_log": {
        "transaction_amount": 42.5,
        "transaction_category": "food",
        "transaction_description": "Lidl groceries",
        "transaction_status": "completed",
        "transaction_date": "2025-06-21",
    }
}
idx = [
    t.call(
        "create_record",
        REC20,
        {"result": "SUCCESS: Transaction record created. No further action needed."},
        mutates=True,
    )
    for _ in range(6)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-adk-3637-ollama-time-loop",
    "repeated_call",
    True,
    ADK3637,
    "ADK on an Ollama model through LiteLLM: get_current_time for the same city forever, the "
    "same dict each time, no final answer.",
)
t.user("What time is it in Tokyo?")
idx = [
    t.call(
        "get_current_time",
        {"city": "Tokyo"},
        {"status": "success", "city": "Tokyo", "time": "10:30 AM"},
    )
    for _ in range(7)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-dspygo-198-lost-history",
    "repeated_call",
    True,
    DSPYGO198,
    "dspy-go's ReAct never passes its conversation context to the model, so it calls "
    "prompt_count with identical parameters at iterations 2, 6, 8 and 9 (other lookups "
    "between, some repeated too).",
)
t.user("How many premium prompts are numbered 10 to 11, and what do they say?")
PC20 = {"max_number": "11", "min_number": "10", "name": "premium"}
t.call("list_prompts", {"name": "premium"}, "premium-10, premium-11, premium-12")
t.call("prompt_count", PC20, "2")
t.call("get_prompt", {"id": "premium-10"}, "premium-10: Summarise the quarterly report.")
t.call("get_prompt", {"id": "premium-11"}, "premium-11: Draft a churn-risk email.")
t.call("search_prompts", {"query": "premium 10-11"}, "premium-10, premium-11")
r = t.call("prompt_count", PC20, "2")
t.call("get_prompt", {"id": "premium-10"}, "premium-10: Summarise the quarterly report.")
t.call("prompt_count", PC20, "2")
t.call("prompt_count", PC20, "2")
t.call("get_prompt", {"id": "premium-11"}, "premium-11: Draft a churn-risk email.")
t.mark(r, r)

t = new(
    "f20-dspy-7997-evaluate-math-repeated",
    "repeated_call",
    True,
    DSPY7997,
    'A DSPy ReAct over a small model: evaluate_math on "2 + 2", then "2 + 3" four times '
    "with the same observation, and the answer 5.0.",
)
t.user("What is 2 + 2?")
t.call("evaluate_math", {"expression": "2 + 2"}, 4)
idx = [t.call("evaluate_math", {"expression": "2 + 3"}, 5) for _ in range(4)]
t.msg("5.0")
t.mark(idx[1], idx[1])

t = new(
    "f20-strands-383-workflow-recursion",
    "cycle",
    True,
    STRANDS383,
    "Task agents inherit the workflow tool and call it recursively: create and start of the "
    "same workflow in turn, the same texts each time (a new toolUseId in each result).",
)
t.user("Run the 'test' workflow: explain what photosynthesis is in one sentence")
TASKS20 = [{"task_id": "simple_task", "description": "Explain what photosynthesis is."}]
occ = []
for k in range(4):
    a = t.call(
        "workflow",
        {"action": "create", "workflow_id": "test", "tasks": TASKS20},
        _strands20("Created workflow 'test' with 1 task", 2 * k),
    )
    b = t.call(
        "workflow",
        {"action": "start", "workflow_id": "test"},
        _strands20("Started workflow 'test': 1 task running", 2 * k + 1),
    )
    occ.append([a, b])
mark_cycle(t, occ)

t = new(
    "f20-agntcy-140-offline-agent-resent",
    "error_loop",
    True,
    AGNTCY140,
    "One of the A2A agent apps is offline; the graph has no error check, so the supervisor "
    "sends the same prompt again and again (25 times until the recursion limit), each "
    "ToolMessage an error.",
)
t.user("How much Colombian coffee do we have, and can I order 50 kg?")
INV20 = {"prompt": "What is the current inventory of Colombian coffee?"}
idx = [
    t.call(
        "inventory_agent",
        INV20,
        _tmsg20(
            "inventory_agent",
            "Error: ConnectError('All connection attempts failed')\n Please fix your mistakes.",
            k,
            "error",
        ),
    )
    for k in range(8)
]
t.mark(idx[1], idx[2])

t = new(
    "f20-oai-191-similarity-search-reworded",
    "no_progress",
    True,
    OAI191,
    "An Agents SDK function tool over a document store: the agent keeps calling "
    "similarity_search with different wordings until max_turns, the same retrieved text "
    "each time.",
)
t.user("What does our onboarding doc say about laptop setup?")
CHUNK20 = (
    "[1] Onboarding > Equipment: Laptops are shipped pre-imaged; sign in with SSO and run "
    "the Company Portal setup.\n[2] Onboarding > First day: IT office hours are 9-11 in room 4.2."
)
qs = [
    "laptop setup",
    "how to set up a laptop",
    "laptop setup onboarding",
    "new laptop configuration steps",
    "setting up my work laptop",
    "laptop onboarding instructions",
]
idx = [t.call("similarity_search", {"chat_uuid": "c-5f2e91", "text": q}, CHUNK20) for q in qs]
t.mark(idx[1], idx[1])

t = new(
    "f20-cc-29944-identical-failing-edit",
    "error_loop",
    True,
    CC29944,
    "Claude Code: the same Edit retried without a look at why it failed, each result the "
    '<tool_use_error> "String to replace not found in file.".',
)
t.user("Rename the `retries` option to `maxRetries` in src/client.ts")
t.call(
    "Read",
    {"file_path": "/repo/src/client.ts"},
    "     1\texport interface ClientOptions {\n     2\t\tretries: number;\n     3\t}",
)
ED20 = {
    "file_path": "/repo/src/client.ts",
    "old_string": "  retries: number;",
    "new_string": "  maxRetries: number;",
}
idx = [
    t.call(
        "Edit",
        ED20,
        "<tool_use_error>String to replace not found in file.\nString:   retries: number;"
        "</tool_use_error>",
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-cc-30150-oversized-read",
    "error_loop",
    True,
    CC30150,
    "An Explore subagent keeps reading a 41K-token file whole and gets the same "
    "MaxFileReadTokenExceeded error each time.",
)
t.user("Find where the fixture data defines the admin user")
t.call("Glob", {"pattern": "**/fixtures/*.json"}, "/repo/test/fixtures/seed.json")
BIG20 = (
    "<tool_use_error>File content (41234 tokens) exceeds maximum allowed tokens (25000). "
    "Please use offset and limit parameters to read specific portions of the file, or use "
    "the GrepTool to search for specific content.</tool_use_error>"
)
idx = [t.call("Read", {"file_path": "/repo/test/fixtures/seed.json"}, BIG20) for _ in range(6)]
t.mark(idx[1], idx[1])

t = new(
    "f20-hermes-10776-mcp-errors-retried",
    "error_loop",
    True,
    HERMES10776,
    "An MCP server that consistently answers isError: the model retries the same call up to "
    "max_iterations (a 500 each time, at once, no wait).",
)
t.user("List my open Linear issues for this sprint")
LIN20 = {"assignee": "me", "state": "started"}
idx = [
    t.call(
        "mcp_linear_list_issues",
        LIN20,
        _mcp20("Error: Linear API returned 500 Internal Server Error", True),
    )
    for _ in range(9)
]
t.mark(idx[1], idx[2])

t = new(
    "f20-rajatpandit-planner-executor-400",
    "cycle",
    True,
    RAJAT20,
    "A planner and an executor node throwing the same malformed query back and forth: the "
    "planner's instruction, the executor's GitHub call, the same 400, again.",
)
t.user("Find open GitHub issues labelled bug in acme/api created this week")
PLAN20 = "Call the GitHub API with this query: repo:acme/api label:bug created:>=this-week"
Q20 = {"q": "repo:acme/api label:bug created:>=this-week", "per_page": 50}
occ = []
for k in range(5):
    a = t.msg(PLAN20)
    b = t.call(
        "github_search_issues",
        Q20,
        _tmsg20(
            "github_search_issues",
            "GitHub API returned 400 Bad Request: Validation Failed (created: invalid date)",
            k,
            "error",
        ),
    )
    occ.append([a, b])
mark_cycle(t, occ)

t = new(
    "f20-agentbeck-92440-search-param-tweaks",
    "no_progress",
    True,
    BECK92440,
    "The same MCP search tool called again and again with slightly different parameters, "
    "the information does not exist and every answer is the same empty result.",
)
t.user("Find the SLA for the Enterprise plan in the docs")
EMPTY20 = _mcp20('{"results": [], "total": 0}', structured={"results": [], "total": 0})
params = [
    {"query": "enterprise SLA", "limit": 5},
    {"query": "Enterprise plan SLA", "limit": 5},
    {"query": "enterprise SLA", "limit": 10},
    {"query": "SLA enterprise uptime", "limit": 10},
    {"query": "enterprise plan service level agreement", "limit": 10},
    {"query": "Enterprise SLA", "limit": 20},
]
idx = [t.call("docs_search", p, EMPTY20) for p in params]
t.mark(idx[1], idx[1])

t = new(
    "f20-agentbeck-67532-create-file-ok",
    "repeated_call",
    True,
    BECK67532,
    'A stateful MCP create answers an ambiguous {"status": "ok"}; the agent does not '
    "realise the file exists and calls the same create again and again.",
)
t.user("Create notes/meeting-2026-06-20.md with the agenda: budget, hiring, offsite")
NOTE20 = {
    "path": "notes/meeting-2026-06-20.md",
    "content": "# Agenda\n- budget\n- hiring\n- offsite\n",
}
idx = [
    t.call(
        "create_file", NOTE20, _mcp20('{"status": "ok"}', structured={"status": "ok"}), mutates=True
    )
    for _ in range(5)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-agentbeck-84647-circular-tools",
    "cycle",
    True,
    BECK84647,
    "Two tools pointing at each other: the order's answer says to ask the shipment tool, the "
    "shipment tool's says to check the order, and the agent goes round.",
)
t.user("What's the shipping status of order 8812?")
occ = repeat_block(
    t,
    [
        {
            "tool": "get_order",
            "args": {"order_id": "8812"},
            "result": _mcp20(
                "Order 8812: status shipped. Tracking details are available from get_shipment."
            ),
        },
        {
            "tool": "get_shipment",
            "args": {"order_id": "8812"},
            "result": _mcp20("No shipment linked to this id; check get_order for the shipment id."),
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f20-agentbeck-100257-reasks-question",
    "monologue",
    True,
    BECK100257,
    "The agent asks a follow-up question and then re-asks it forever: the same question "
    "after each of the user's answers.",
)
t.user("Book a meeting room for Thursday afternoon")
QQ20 = "Which office should I book the room in, Berlin or Munich?"
t.msg(QQ20)
t.user("Berlin")
q2 = t.msg(QQ20)
t.user("Berlin, as I said")
t.msg(QQ20)
t.user("BERLIN.")
t.msg(QQ20)
t.mark(q2, q2)

t = new(
    "f20-swarms-2004-auto-loop-mcp-next-session",
    "known_failure",
    True,
    SWARMS2004,
    'With max_loops="auto" an MCP tool call is routed to the local tool table and always '
    "fails (ToolNotFoundError); the next run, same configuration, calls it again.",
)
t.user("Post the deploy summary to #releases on Slack")
SLACK20 = {"channel": "#releases", "text": "Deploy 2026.08.23 done: 14 services, 0 failures"}
SLACKERR20 = "ToolNotFoundError: Function slack_post_message not found"
t.call("slack_post_message", SLACK20, error=SLACKERR20, kind="not_found")
t.msg("The Slack tool is not available in this run, so I could not post the summary.")
t.session("s2")
u = t.user("Post the deploy summary to #releases on Slack")
c = t.call("slack_post_message", SLACK20, error=SLACKERR20, kind="not_found")
t.call("slack_post_message", SLACK20, error=SLACKERR20, kind="not_found")
t.mark(c, u)

t = new(
    "f20-mastra-21054-outside-path-next-session",
    "known_failure",
    True,
    MASTRA21054,
    "A view of a file outside the allowed paths fails with EACCES; in the next session, "
    "nothing changed, the agent views the same path again.",
)
t.user("Describe the screenshot at ~/Downloads/image.png")
VIEW20 = {"path": "~/Downloads/image.png"}
VERR20 = (
    "TOOL_EXECUTION_FAILED: EACCES: permission denied, open '/Users/ana/Downloads/image.png' "
    "(path is outside the allowed workspace)"
)
t.call("view", VIEW20, error=VERR20, kind="permission")
t.msg("I can't open files outside the workspace.")
t.session("s2")
u = t.user("What's in the screenshot in my Downloads, image.png?")
c = t.call("view", VIEW20, error=VERR20, kind="permission")
t.msg("Let me try that again.")
t.call("view", VIEW20, error=VERR20, kind="permission")
t.mark(c, u)

t = new(
    "f20-neuralbase-search-again",
    "no_progress",
    True,
    NEURALLOOP20,
    'The page\'s loop: search_tool, results, "I still need more", search_tool again with '
    "slightly different input, the same results each time.",
)
t.user("What will the weather be like for the Berlin marathon this Sunday?")
WX20 = "1. Berlin weather Sunday: 14°C, light rain until noon\n2. Marathon day: start 09:15"
qs = [
    "Berlin weather Sunday",
    "Berlin weather this Sunday marathon",
    "weather Berlin Sunday forecast",
    "Berlin marathon weather forecast",
    "Sunday weather in Berlin",
    "forecast Berlin Sunday rain",
]
idx = [
    t.call("search_tool", {"query": q}, _tmsg20("search_tool", WX20, k)) for k, q in enumerate(qs)
]
t.mark(idx[1], idx[1])

t = new(
    "f20-vercel-3470-steps-repeat-answer",
    "cycle",
    True,
    VERCEL3470,
    "streamText on Vertex runs every one of maxSteps: the same tool call with the same "
    "arguments and the same final answer after it, step after step.",
)
t.user("Summarise the open incidents")
INC20 = {
    "type": "json",
    "value": [
        {"id": "INC-311", "title": "Checkout latency", "sev": 2},
        {"id": "INC-314", "title": "Email bounces", "sev": 3},
    ],
}
ANS20 = (
    "There are two open incidents: INC-311 (checkout latency, sev 2) and INC-314 (email "
    "bounces, sev 3)."
)
occ = []
for _ in range(5):
    a = t.call("listIncidents", {"status": "open"}, INC20)
    b = t.msg(ANS20)
    occ.append([a, b])
mark_cycle(t, occ)

t = new(
    "f20-adk-5665-mode-any-cycle",
    "cycle",
    True,
    ADK5665,
    "Function calling forced with mode ANY and maximumRemoteCalls not enforced: the agent "
    "runs the solution, runs the tests and submits, and does it all again.",
)
t.user("Please complete the code: def has_close_elements(numbers, threshold) -> bool")
SOL20 = (
    "def has_close_elements(numbers, threshold):\n    s = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(s, s[1:]))"
)
TEST20 = SOL20 + "\nassert has_close_elements([1.0, 2.8, 3.0], 0.3)\nprint('ok')"
occ = repeat_block(
    t,
    [
        {"tool": "python_executor", "args": {"code": SOL20}, "result": {"stdout": "", "ok": True}},
        {
            "tool": "python_executor",
            "args": {"code": TEST20},
            "result": {"stdout": "ok\n", "ok": True},
        },
        {"tool": "submit_answer", "args": {"answer": SOL20}, "result": {"status": "received"}},
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f20-dspy-1020-eot-token-run",
    "monologue",
    True,
    DSPY1020,
    "A ReAct agent feeds its own context back until the model emits runs of <|eot_id|> "
    'before "Action N:"; the first such message already repeats the token dozens of times '
    "(due there, as fresh15's degenerate token run).",
)
t.user("Which tags appear in the warehouse tour video?")
t.call("get_video_tags", {"video": "warehouse-tour"}, "forklift, shelving, loading dock")
m1 = t.msg("<|eot_id|>" * 48 + "\n\nAction 5:")
t.msg("<|eot_id|>" * 52 + "\n\nAction 5:")
t.msg("<|eot_id|>" * 50 + "\n\nAction 6:")
t.mark(m1, m1)

# ---- fresh20 legitimate sessions

t = new(
    "f20-costrict-1234-deploy-status-poll",
    "polling",
    False,
    COSTRICT20,
    "An async MCP deploy returns a task reference; the agent waits and asks the status tool "
    'until the deployment finishes (four identical "running" answers between waits).',
)
t.user("Deploy the api service to the test environment and tell me when it's up")
t.call(
    "use_mcp_tool",
    {"server": "deployer", "tool": "deploy", "arguments": {"service": "api", "env": "test"}},
    _mcp20(
        '{"taskId": "deploy-abc123", "status": "running", "message": "Deployment started"}',
        structured={"taskId": "deploy-abc123", "status": "running"},
    ),
)
for _ in range(4):
    t.call("wait", {"seconds": 20}, "waited 20s")
    t.call(
        "use_mcp_tool",
        {
            "server": "deployer",
            "tool": "get_deploy_status",
            "arguments": {"taskId": "deploy-abc123"},
        },
        _mcp20(
            '{"taskId": "deploy-abc123", "status": "running"}',
            structured={"taskId": "deploy-abc123", "status": "running"},
        ),
    )
t.call("wait", {"seconds": 20}, "waited 20s")
t.call(
    "use_mcp_tool",
    {"server": "deployer", "tool": "get_deploy_status", "arguments": {"taskId": "deploy-abc123"}},
    _mcp20(
        '{"taskId": "deploy-abc123", "status": "succeeded", "url": "https://api.test.example"}',
        structured={"taskId": "deploy-abc123", "status": "succeeded"},
    ),
)
t.msg("The api service is deployed to test: https://api.test.example")

t = new(
    "f20-apify-1119-actor-run-waitsecs",
    "polling",
    False,
    APIFY20,
    "A 20-minute Actor run followed with get-actor-run and waitSecs=30: each call itself "
    "waits up to 30 s server-side, so the same call answers RUNNING six times before the run "
    "succeeds and its dataset is read.",
)
t.user("Run the deep-report Actor on 'EU battery recycling' and give me the summary")
t.call(
    "call-actor",
    {"actor": "acme/deep-report", "input": {"topic": "EU battery recycling"}, "async": True},
    _mcp20('{"runId": "r-7Hq2Lm", "status": "RUNNING"}'),
)
RUN20 = {"runId": "r-7Hq2Lm", "waitSecs": 30}
for _ in range(6):
    t.call(
        "get-actor-run",
        RUN20,
        _mcp20(
            '{"runId": "r-7Hq2Lm", "status": "RUNNING", "statusMessage": "Crawling sources"}\n'
            "The run is not finished; call get-actor-run again with waitSecs=30."
        ),
    )
t.call(
    "get-actor-run",
    RUN20,
    _mcp20('{"runId": "r-7Hq2Lm", "status": "SUCCEEDED", "defaultDatasetId": "ds-51Kp"}'),
)
t.call(
    "get-dataset-items",
    {"datasetId": "ds-51Kp", "limit": 10},
    _mcp20('[{"section": "Summary", "text": "Recycling capacity grows 3x by 2030..."}]'),
)
t.msg("Summary: EU battery recycling capacity is set to triple by 2030; details follow.")

t = new(
    "f20-openspace-123-task-status-progress",
    "polling",
    False,
    OPENSPACE20,
    "execute_task started without waiting, then get_task_status polled: percent and "
    "current_step move (one step reported twice) until the result arrives.",
)
t.user("Ground the task 'open the settings page and enable dark mode' and report back")
t.call(
    "execute_task",
    {"task": "open the settings page and enable dark mode", "wait": False},
    _mcp20('{"task_id": "t-0193", "status": "queued"}'),
)
for pct, step in [
    (5, "engine warmup"),
    (15, "skill registration"),
    (30, "cloud search"),
    (45, "iteration 1"),
    (60, "iteration 2"),
    (60, "iteration 2"),
    (90, "final aggregation"),
]:
    t.call("wait", {"seconds": 5}, "ok")
    t.call(
        "get_task_status",
        {"task_id": "t-0193", "include_logs": False},
        _mcp20(
            json.dumps(
                {"task_id": "t-0193", "status": "running", "percent": pct, "current_step": step}
            )
        ),
    )
t.call(
    "get_task_status",
    {"task_id": "t-0193", "include_logs": False},
    _mcp20(
        '{"task_id": "t-0193", "status": "completed", "percent": 100, '
        '"result": "Dark mode enabled in Settings > Appearance"}'
    ),
)
t.msg("Done: dark mode is enabled under Settings > Appearance.")

t = new(
    "f20-vercel-16494-mcp-fails-once",
    "retry_transient",
    False,
    VERCEL16494,
    "Before the MCP retry option: a tools/call fails once for a transient reason, the model "
    "sees the error-text part and calls the same tool again in the next step, and it works.",
)
t.user("What's the weather in Lisbon right now?")
W20 = {"city": "Lisbon"}
t.call(
    "get-weather",
    W20,
    {"type": "error-text", "value": "MCP error -32603: upstream returned 503 Service Unavailable"},
)
t.call(
    "get-weather", W20, {"type": "json", "value": {"city": "Lisbon", "tempC": 21, "sky": "clear"}}
)
t.msg("It's 21 °C and clear in Lisbon.")

t = new(
    "f20-crow-139-connection-reset-retried",
    "retry_transient",
    False,
    CROW20,
    "A remote MCP server that drops established connections two times in five: each "
    "ECONNRESET is retried once and succeeds, between different calls.",
)
t.user("Find small text-to-speech models on the Hub and compare the top two")
RESET20 = "URLError: [WinError 10054] An existing connection was forcibly closed by the remote host"
S20 = {"query": "text-to-speech", "max_params": "500M", "sort": "downloads"}
t.call("hf_model_search", S20, error=RESET20, kind="network")
t.call("hf_model_search", S20, _mcp20("1. hexgrad/Kokoro-82M\n2. myshell-ai/MeloTTS-English"))
t.call(
    "hf_model_details",
    {"repo_id": "hexgrad/Kokoro-82M"},
    _mcp20("Kokoro-82M: 82M params, Apache-2.0"),
)
t.call("hf_model_details", {"repo_id": "myshell-ai/MeloTTS-English"}, error=RESET20, kind="network")
t.call(
    "hf_model_details",
    {"repo_id": "myshell-ai/MeloTTS-English"},
    _mcp20("MeloTTS-English: 52M params, MIT"),
)
t.msg("Kokoro-82M (Apache-2.0) and MeloTTS-English (MIT) are the two most downloaded.")

t = new(
    "f20-hermes-10776-server-recovers",
    "retry_transient",
    False,
    HERMES10776,
    "The breaker's other side: two isError answers from a briefly failing server, then the "
    "same call succeeds (the counter resets) and the work goes on.",
)
t.user("List my open Linear issues for this sprint and summarise the blocked ones")
t.call("mcp_linear_list_issues", LIN20, _mcp20("Error: Linear API returned 502 Bad Gateway", True))
t.call("mcp_linear_list_issues", LIN20, _mcp20("Error: Linear API returned 502 Bad Gateway", True))
t.call(
    "mcp_linear_list_issues",
    LIN20,
    _mcp20(
        "ENG-4410 Payments retry (blocked)\nENG-4412 SSO logout\nENG-4419 Audit export (blocked)"
    ),
)
t.call("mcp_linear_get_issue", {"id": "ENG-4410"}, _mcp20("Blocked by the PSP sandbox outage"))
t.call("mcp_linear_get_issue", {"id": "ENG-4419"}, _mcp20("Blocked on the S3 bucket policy review"))
t.msg("Two of three are blocked: ENG-4410 (PSP sandbox outage) and ENG-4419 (bucket policy).")

t = new(
    "f20-cc-60894-edit-after-reread",
    "retry_transient",
    False,
    CC60894,
    'The Edit fails with "String to replace was not found" on an exact match, a Read shows '
    "the same content, and the identical Edit then succeeds (a stale cache, not a loop).",
)
t.user("Change the default page size from 20 to 50 in src/Api/Paging.php")
PG20 = "     1\t<?php\n     2\tconst DEFAULT_PAGE_SIZE = 20;\n"
t.call("Read", {"file_path": "/srv/app/src/Api/Paging.php"}, PG20)
EDP20 = {
    "file_path": "/srv/app/src/Api/Paging.php",
    "old_string": "const DEFAULT_PAGE_SIZE = 20;",
    "new_string": "const DEFAULT_PAGE_SIZE = 50;",
}
t.call("Edit", EDP20, "<tool_use_error>String to replace was not found in file.</tool_use_error>")
t.call("Read", {"file_path": "/srv/app/src/Api/Paging.php"}, PG20)
t.call("Edit", EDP20, "The file /srv/app/src/Api/Paging.php has been updated.", mutates=True)
t.call("Bash", {"command": "vendor/bin/phpunit tests/Api"}, "OK (31 tests, 88 assertions)")
t.msg("The default page size is now 50 and the API tests pass.")

t = new(
    "f20-cc-3337-multiple-matches-fixed",
    "edit_test_cycle",
    False,
    CC3337,
    '"Found 2 matches of the string to replace": the agent reads more of the file, edits '
    "with unique context, runs the tests, fixes the one failure and runs them again.",
)
t.user("Make run.py retry the upload three times")
t.call(
    "Edit",
    {
        "file_path": "/w/run.py",
        "old_string": "    upload(path)",
        "new_string": "    retry(upload, path, 3)",
    },
    "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To "
    "replace all occurrences, set replace_all to true. To replace only one occurrence, please "
    "provide more context to uniquely identify the instance.\nString:     upload(path)"
    "</tool_use_error>",
)
t.call(
    "Read",
    {"file_path": "/w/run.py", "offset": 30, "limit": 20},
    "    30\tdef publish(path):\n    31\t    upload(path)\n"
    "    40\tdef backup(path):\n    41\t    upload(path)",
)
t.call(
    "Edit",
    {
        "file_path": "/w/run.py",
        "old_string": "def publish(path):\n    upload(path)",
        "new_string": "def publish(path):\n    retry(upload, path, 3)",
    },
    "The file /w/run.py has been updated.",
    mutates=True,
)
t.call(
    "Bash",
    {"command": "pytest -q tests/test_run.py"},
    "1 failed, 6 passed\nNameError: name 'retry' is not defined",
)
t.call(
    "Edit",
    {
        "file_path": "/w/run.py",
        "old_string": "import os\n",
        "new_string": "import os\nfrom util import retry\n",
    },
    "The file /w/run.py has been updated.",
    mutates=True,
)
t.call("Bash", {"command": "pytest -q tests/test_run.py"}, "7 passed in 0.41s")

t = new(
    "f20-oai-2165-mcp-iserror-fixed",
    "research",
    False,
    OAI2165,
    "An MCP tool answers isError with the exception text; the model reads it, fixes the "
    "argument and the next call succeeds.",
)
t.user("Put a dentist appointment in my calendar for December 10 at 9am")
t.call(
    "create_event",
    {"title": "Dentist", "date": "12/10/2025", "time": "09:00"},
    _mcp20("invalid date '12/10/2025': expected YYYY-MM-DD", True),
)
t.call(
    "create_event",
    {"title": "Dentist", "date": "2025-12-10", "time": "09:00"},
    _mcp20('{"id": "evt_81", "status": "confirmed"}'),
)
t.msg("Booked: Dentist on 2025-12-10 at 09:00.")

t = new(
    "f20-qwenagent-504-json-args-fixed",
    "research",
    False,
    QWENAG20,
    'Qwen-Agent hands the model the tool error as the function result ("An error occurred '
    'when calling tool ...: JSONDecodeError ..."); the model re-emits the arguments '
    "properly and goes on to a second city.",
)
t.user("Compare the weather in Hangzhou and Shanghai")
t.call(
    "amap_weather",
    {"raw": '{"city": "Hangzhou'},
    "An error occurred when calling tool `amap_weather`:\nJSONDecodeError: Unterminated string "
    "starting at: line 1 column 9 (char 8)",
)
t.call("amap_weather", {"city": "Hangzhou"}, '{"city": "杭州", "weather": "晴", "temp": "18"}')
t.call("amap_weather", {"city": "Shanghai"}, '{"city": "上海", "weather": "多云", "temp": "16"}')
t.msg("Hangzhou is sunny at 18 °C; Shanghai is cloudy at 16 °C.")

t = new(
    "f20-fastmcp-forecast-cities",
    "distinct_reads",
    False,
    FASTMCP20,
    "A multi-server client's prefixed tool called once per city; each CallToolResult carries "
    "content and structured data, two cities with the same forecast.",
)
t.user("Give me tomorrow's forecast for the six cities on our tour")
for city, fc in [
    ("Porto", "19°C, sunny"),
    ("Seville", "27°C, sunny"),
    ("Madrid", "22°C, cloudy"),
    ("Bilbao", "17°C, showers"),
    ("Valencia", "22°C, cloudy"),
    ("Lyon", "15°C, showers"),
]:
    t.call(
        "weather_get_forecast",
        {"city": city, "days": 1},
        _mcp20(fc, structured={"city": city, "forecast": fc}),
    )
t.msg("Tomorrow: Porto 19 sunny, Seville 27 sunny, Madrid 22 cloudy, Bilbao 17 showers, ...")

t = new(
    "f20-mcpfs-project-reads",
    "distinct_reads",
    False,
    MCPFS20,
    "The reference filesystem server from a desktop client: allowed directories, a listing "
    "and eight different files read once each (two empty __init__.py with the same empty "
    "content), then a search.",
)
t.user("Explain how the plugin loader in ~/code/tally works")
t.call("list_allowed_directories", {}, _mcp20("Allowed directories:\n/Users/ana/code"))
t.call(
    "list_directory",
    {"path": "/Users/ana/code/tally/tally"},
    _mcp20(
        "[FILE] __init__.py\n[DIR] plugins\n[FILE] loader.py\n[FILE] registry.py\n[FILE] cli.py"
    ),
)
for path, text in [
    ("tally/__init__.py", ""),
    ("tally/loader.py", "def load_plugins(paths): ..."),
    ("tally/registry.py", "REGISTRY: dict[str, type] = {}"),
    ("tally/cli.py", "def main(argv=None): ..."),
    ("tally/plugins/__init__.py", ""),
    ("tally/plugins/csv.py", "@register('csv')\nclass CsvSource: ..."),
    ("tally/plugins/sql.py", "@register('sql')\nclass SqlSource: ..."),
    ("pyproject.toml", "[project.entry-points.'tally.plugins']\ncsv = 'tally.plugins.csv'"),
]:
    t.call("read_text_file", {"path": f"/Users/ana/code/tally/{path}"}, _mcp20(text))
t.call(
    "search_files",
    {"path": "/Users/ana/code/tally", "pattern": "entry_points"},
    _mcp20("/Users/ana/code/tally/tally/loader.py"),
)
t.msg("Plugins register through a decorator and are discovered from the entry points ...")

t = new(
    "f20-af-7866-deepwiki-duplicated-content",
    "research",
    False,
    AF7866,
    "DeepWiki's ask_question through an MCP tool whose output reaches the agent twice (the "
    "text content and the structuredContent): three different questions, each answered once.",
)
t.user("Compare how agent-framework and semantic-kernel handle MCP tools")
for repo, q, a in [
    (
        "microsoft/agent-framework",
        "How are MCP tools loaded?",
        "MCPStreamableHTTPTool loads tools ...",
    ),
    ("microsoft/semantic-kernel", "How are MCP tools loaded?", "Kernel plugins wrap MCP tools ..."),
    (
        "microsoft/agent-framework",
        "How are MCP tool errors surfaced?",
        "isError results become ...",
    ),
]:
    t.call(
        "ask_question",
        {"repoName": repo, "question": q},
        {
            "content": [
                {"type": "text", "text": a},
                {"type": "text", "text": json.dumps({"result": a})},
            ],
            "structuredContent": {"result": a},
            "isError": False,
        },
    )
t.msg("Both wrap MCP tools as functions; agent-framework surfaces isError as a failed call ...")

t = new(
    "f20-neuralbase-iteration-limit-answer",
    "research",
    False,
    NEURALLOOP20,
    "The page's remedy in use: three searches with different queries and new results, then "
    "an answer from what was learned.",
)
t.user("What will the weather be like for the Berlin marathon this Sunday?")
for k, (q, res) in enumerate(
    [
        ("Berlin weather Sunday", "Berlin Sunday: 14°C, light rain until noon"),
        ("Berlin marathon start time", "Start 09:15 at Straße des 17. Juni"),
        ("Berlin wind forecast Sunday", "Wind W 15 km/h, gusts 30 km/h"),
    ]
):
    t.call("search_tool", {"query": q}, _tmsg20("search_tool", res, k))
t.msg("Expect 14 °C with light rain until noon and a westerly wind at the 09:15 start.")

t = new(
    "f20-swarms-2004-fixed-loop-mode",
    "session_memory",
    False,
    SWARMS2004,
    "The counterpart: after the failed run the user switches to an integer max_loops, where "
    "MCP calls are handled; the next session's post goes through.",
)
t.user("Post the deploy summary to #releases on Slack")
t.call("slack_post_message", SLACK20, error=SLACKERR20, kind="not_found")
t.msg("The Slack tool is not available in this run; max_loops='auto' has no MCP handling.")
t.workspace("agent config changed: max_loops='auto' -> max_loops=3")
t.session("s2")
t.user("Post the deploy summary to #releases on Slack")
t.call("slack_post_message", SLACK20, _mcp20('{"ok": true, "ts": "1724412345.001200"}'))
t.msg("Posted to #releases.")

t = new(
    "f20-mastra-21054-copied-into-workspace",
    "session_memory",
    False,
    MASTRA21054,
    "The EACCES is seen, the user copies the file into the workspace, and the next session "
    "views the copy instead of the refused path.",
)
t.user("Describe the screenshot at ~/Downloads/image.png")
t.call("view", VIEW20, error=VERR20, kind="permission")
t.msg("I can't open files outside the workspace; could you copy it into the project?")
t.workspace("user copied image.png into ./assets/")
t.session("s2")
t.user("I put it in assets, have a look")
t.call(
    "view", {"path": "assets/image.png"}, "[image 1280x720: a dashboard with a red error banner]"
)
t.msg("It's the dashboard with a red 'Sync failed' banner at the top.")

t = new(
    "f20-vercel-6508-confirmations",
    "conversation",
    False,
    VERCEL6508,
    "Multi-step streamText: each user request runs one tool and the model confirms what was "
    "done; four requests, four confirmations of the same form.",
)
for item, n in [("milk", 3), ("eggs", 4), ("coffee beans", 5), ("oat flakes", 6)]:
    t.user(f"Add {item} to my shopping list")
    t.call(
        "addItem",
        {"list": "shopping", "item": item},
        {"type": "json", "value": {"ok": True, "count": n}},
    )
    t.msg(f"Added {item}; your shopping list now has {n} items.")

t = new(
    "f20-pydanticai-739-roulette-turns",
    "conversation",
    False,
    PYDAI739,
    "The docs' roulette agent over three turns: square eighteen, square five, then eighteen "
    "again because the user asks for it.",
)
t.user("Put my money on square eighteen")
t.call("roulette_wheel", {"square": 18}, "winner")
t.msg("Square 18 is a winner!")
t.user("I bet five is the winner")
t.call("roulette_wheel", {"square": 5}, "loser")
t.msg("Sorry, 5 is not a winner.")
t.user("Check eighteen once more for me")
t.call("roulette_wheel", {"square": 18}, "winner")
t.msg("Still a winner: 18.")

t = new(
    "f20-zed-47095-is-error-acted-on",
    "research",
    False,
    ZED47095,
    "With is_error propagated, the agent sees the MCP failure for what it is, lists the "
    "repositories, finds the right name and reads from it.",
)
t.user("What's the latest release of acme/webapp?")
t.call(
    "get_latest_release",
    {"owner": "acme", "repo": "webapp"},
    _mcp20("Not Found: repository acme/webapp does not exist", True),
)
t.call("list_repositories", {"owner": "acme"}, _mcp20("acme/web-app\nacme/api\nacme/infra"))
t.call(
    "get_latest_release",
    {"owner": "acme", "repo": "web-app"},
    _mcp20('{"tag": "v4.2.1", "published_at": "2026-01-15"}'),
)
t.msg("acme/web-app's latest release is v4.2.1 (2026-01-15).")

t = new(
    "f20-agentsjs-471-structured-invoices",
    "distinct_reads",
    False,
    AGJS471,
    "useStructuredContent on: one invoice lookup per id, the full CallToolResult handed "
    "over; two invoices have the same status and amount.",
)
t.user("Which of last month's six invoices are still unpaid?")
for inv, st, amt in [
    ("INV-2041", "paid", 120),
    ("INV-2042", "unpaid", 340),
    ("INV-2043", "paid", 120),
    ("INV-2044", "paid", 75),
    ("INV-2045", "unpaid", 990),
    ("INV-2046", "paid", 210),
]:
    t.call(
        "get_invoice",
        {"invoice_id": inv},
        _mcp20(json.dumps({"status": st, "amount": amt}), structured={"status": st, "amount": amt}),
    )
t.msg("Two are unpaid: INV-2042 (340) and INV-2045 (990).")


def _apify_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        APIFY20,
        "A 48-call scrape: fifteen Actors started, each followed with get-actor-run "
        "(waitSecs=30, two of them still RUNNING once) and its dataset read, then a summary.",
    )
    t.user("Scrape pricing pages for our 15 competitors and tabulate plan prices")
    for k in range(15):
        run = f"r-{(0x2F3B * (k + 1)) % 0xFFFFF:05x}"
        t.call(
            "call-actor",
            {
                "actor": "apify/website-content-crawler",
                "input": {"startUrls": [f"https://c{k}.example/pricing"]},
            },
            _mcp20(json.dumps({"runId": run, "status": "RUNNING"})),
        )
        if k in (4, 11):
            t.call(
                "get-actor-run",
                {"runId": run, "waitSecs": 30},
                _mcp20(json.dumps({"runId": run, "status": "RUNNING"})),
            )
        t.call(
            "get-actor-run",
            {"runId": run, "waitSecs": 30},
            _mcp20(
                json.dumps({"runId": run, "status": "SUCCEEDED", "defaultDatasetId": f"ds-{k}"})
            ),
        )
        t.call(
            "get-dataset-items",
            {"datasetId": f"ds-{k}", "limit": 5},
            _mcp20(
                json.dumps(
                    [{"plan": "Pro", "price": 19 + 3 * k}, {"plan": "Team", "price": 49 + 5 * k}]
                )
            ),
        )
    t.call("create-table", {"name": "competitor-pricing", "rows": 30}, _mcp20('{"ok": true}'))
    t.msg("The table has Pro and Team prices for all 15 competitors.")


_apify_long("f20-apify-1119-long-scrape")


def _errornotes_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        ERRNOTES20,
        "The page's Scenario A: a research agent working correctly on a big job, twelve "
        "sources each searched, fetched and noted, then an outline and the report (past the "
        "default recursion limit of 25, legitimately).",
    )
    t.user("Write a report on heat-pump adoption in Europe from at least ten sources")
    rng = random.Random(2020)
    k = 0
    for country in [
        "Germany",
        "France",
        "Italy",
        "Poland",
        "Sweden",
        "Norway",
        "Netherlands",
        "Spain",
        "Austria",
        "Finland",
        "Denmark",
        "Ireland",
    ]:
        t.call(
            "web_search",
            {"query": f"heat pump sales {country} 2025"},
            _tmsg20("web_search", f"1. {country} heat pump market report 2025 (eha.org)", k),
        )
        t.call(
            "fetch_page",
            {"url": f"https://eha.example.org/markets/{country.lower()}"},
            _tmsg20("fetch_page", f"{country}: {rng.randint(40, 400)}k units sold in 2025", k + 1),
        )
        t.call(
            "save_note",
            {"topic": country, "text": f"{country} figures noted"},
            _tmsg20("save_note", "saved", k + 2),
        )
        k += 3
    t.call(
        "write_outline",
        {"sections": ["Overview", "Markets", "Policy", "Outlook"]},
        _tmsg20("write_outline", "outline saved", k),
    )
    t.call(
        "write_report",
        {"path": "report.md"},
        _tmsg20("write_report", "report.md written (2,900 words)", k + 1),
    )
    t.msg("The report is in report.md: twelve markets, policy drivers and a 2030 outlook.")


_errornotes_long("f20-errornotes-research-long")

# ================================================================ end of fresh20 set

# ================================================================ fresh21 set
# Written at 22:40 UTC (Dec 4) from sources no earlier split uses (checked against every
# `source` of the file; some are other issues of repositories earlier splits cite):
# long-horizon and non-coding agents, where loops look different. Browser and computer-use
# agents (xorbitsai/xagent's click-stall review, a computer-use MCP whose clicks never reach
# the app, Playwright MCP's persistent ReferenceError and overlay timeouts, BrowserMCP's
# missing click tool, browser-use's wait_for_element, Kaboom's wait_for, the OpenAI Agents
# JS computer tool), data and SQL agents (Dataherald, MindsDB's exploratory queries,
# RAGFlow's ExeSQL, JetBrains' Databao, WrenAI's asking tasks and SQL correction), research
# agents (GPT Researcher, STORM, gsd-2's web search), voice and support agents (Rasa's
# circuit breaker and email loop, LiveKit, Pipecat, the Gemini Live API), workflow agents
# (n8n's AI Agent node, Dify's loop and sleep nodes) and multi-agent frameworks (Swarm-style
# handoff rings, OpenManus, agent-zero). Results in each harness's shape: screenshots and
# accessibility snapshots described as text, MCP results, SQL result sets, search result
# lists, Rasa events, Swarm handoff results. Labelled by what each source says. Committed
# before crs was run on them. Split "fresh21".

FRESH21_START = len(ALL)
XAGENT1208 = gh("xorbitsai/xagent", "pull", 1208)
MISAKA1967 = gh("Ikalus1988/MisakaNet", "issues", 1967)
AIBOOK528 = gh("bojieli/ai-agent-book", "pull", 528)
DH143 = gh("Dataherald/dataherald", "pull", 143)
MINDS12211 = gh("mindsdb/mindshub", "pull", 12211)
RAGFLOW7725 = gh("infiniflow/ragflow", "issues", 7725)
DATABAO177 = gh("JetBrains/databao-agent", "issues", 177)
LITELLM5229 = gh("BerriAI/litellm", "issues", 5229)
GSD1671 = gh("gsd-build/gsd-2", "issues", 1671)
GSD955 = gh("gsd-build/gsd-2", "pull", 955)
AZERO1690 = gh("agent0ai/agent-zero", "issues", 1690)
MANUS301 = gh("FoundationAgents/OpenManus", "issues", 301)
RASA2260 = gh("RasaHQ/rasa", "issues", 2260)
RASA3664 = gh("RasaHQ/rasa", "issues", 3664)
RASA2206 = gh("RasaHQ/rasa", "issues", 2206)
GLIVE46 = gh("google-gemini/gemini-live-api-examples", "issues", 46)
PI9104 = gh("earendil-works/pi", "issues", 9104)
VSCP7604 = gh("microsoft/vscode-copilot-release", "issues", 7604)
PWMCP910 = gh("microsoft/playwright-mcp", "issues", 910)
PWMCP852 = gh("microsoft/playwright-mcp", "issues", 852)
PWMCP254 = gh("microsoft/playwright-mcp", "issues", 254)
BMCP175 = gh("BrowserMCP/mcp", "issues", 175)
N8N37779 = gh("n8n-io/n8n", "issues", 37779)
N8N20890 = gh("n8n-io/n8n", "issues", 20890)
N8N14032 = gh("n8n-io/n8n", "issues", 14032)
N8N10735 = gh("n8n-io/n8n", "pull", 10735)
WREN1751 = gh("Canner/WrenAI", "issues", 1751)
WREN1712 = gh("Canner/WrenAI", "issues", 1712)
WREN1937 = gh("Canner/WrenAI", "pull", 1937)
OH7960 = gh("OpenHands/OpenHands", "issues", 7960)
BU515 = gh("browser-use/browser-use", "pull", 515)
KABOOM371 = gh("brennhill/Kaboom-Browser-AI-Devtools-MCP", "issues", 371)
LK1976 = gh("livekit/agents", "issues", 1976)
PIPECAT2787 = gh("pipecat-ai/pipecat", "issues", 2787)
GPTR734 = gh("assafelovic/gpt-researcher", "pull", 734)
GPTR416 = gh("assafelovic/gpt-researcher", "pull", 416)
STORM481 = gh("stanford-oval/storm", "pull", 481)
DIFY12354 = gh("langgenius/dify", "issues", 12354)
AGJS1735 = gh("openai/openai-agents-js", "issues", 1735)


def _mcp21(text: str, is_error: bool = False) -> dict[str, Any]:
    """An MCP CallToolResult with one text block."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def _shot21(desc: str, url: str, title: str) -> dict[str, Any]:
    """A computer-use observation: the screenshot described as text, the page beside it."""
    return {
        "type": "computer_screenshot",
        "image": f"[1280x800 PNG: {desc}]",
        "url": url,
        "title": title,
    }


def _pw21(code: str, url: str, title: str, snapshot: str) -> dict[str, Any]:
    """Playwright MCP's markdown answer: the code it ran and the page state."""
    return _mcp21(
        f"### Ran Playwright code\n```js\n{code}\n```\n\n### Page state\n- Page URL: {url}\n"
        f"- Page Title: {title}\n- Page Snapshot:\n```yaml\n{snapshot}\n```"
    )


def _rows21(columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    """A SQL tool's result set."""
    return {"columns": columns, "rows": rows, "row_count": len(rows)}


def _hits21(*hits: tuple[str, str, str]) -> list[dict[str, str]]:
    """A web search tool's result list."""
    return [{"title": t, "url": u, "snippet": s} for t, u, s in hits]


# ---------------------------------------------------------------- fresh21 loops

t = new(
    "f21-xagent-1208-click-wait-stall",
    "cycle",
    True,
    XAGENT1208,
    "The review's canonical stuck loop of a computer-use agent: click, wait, click, wait on a "
    "control that does nothing, the same screenshot after each.",
)
t.user("Open the billing settings and download the latest invoice")
t.call(
    "computer",
    {"action": "screenshot"},
    _shot21("dashboard, left sidebar with Settings", "https://app.example.io/home", "Home"),
)
t.call(
    "computer",
    {"action": "click", "x": 88, "y": 412},
    _shot21(
        "Settings page, tabs General / Billing / Team",
        "https://app.example.io/settings",
        "Settings",
    ),
)
STALL21 = _shot21(
    "Settings page, Billing tab highlighted, content area still General",
    "https://app.example.io/settings",
    "Settings",
)
occ = repeat_block(
    t,
    [
        {"tool": "computer", "args": {"action": "click", "x": 516, "y": 148}, "result": STALL21},
        {"tool": "computer", "args": {"action": "wait", "duration_ms": 1000}, "result": STALL21},
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f21-misakanet-1967-clicks-ignored",
    "no_progress",
    True,
    MISAKA1967,
    "A desktop app ignores injected pointer events: the agent clicks the ribbon button as a "
    "single click, a double click, press/dwell/release; the cursor lands, nothing changes.",
)
t.user("In the editor, click 'Build Lighting' on the ribbon and wait for the bake to start")
SAME21 = {
    "ok": True,
    "cursor": [1184, 76],
    "screenshot": "[2560x1440 PNG: editor window, ribbon with Build Lighting, no progress bar]",
}
t.call("desktop_screenshot", {}, SAME21)
a = t.call("desktop_click", {"x": 1184, "y": 76, "button": "left"}, SAME21)
b = t.call("desktop_click", {"x": 1184, "y": 76, "button": "left", "clicks": 2}, SAME21)
t.call("desktop_mouse_down", {"x": 1184, "y": 76}, {"ok": True, "cursor": [1184, 76]})
t.call("desktop_wait", {"ms": 300}, {"ok": True})
t.call("desktop_mouse_up", {"x": 1184, "y": 76}, SAME21)
t.call("desktop_click", {"x": 1185, "y": 77, "button": "left"}, SAME21)
t.mark(b, b)

t = new(
    "f21-aibook-528-handoff-ring",
    "cycle",
    True,
    AIBOOK528,
    "The chapter's risk of peer handoffs: triage hands a refund question to the refunds agent, "
    "which hands it back as technical, which hands it back as a refund, round and round.",
)
t.user("My order #5521 arrived broken and the app crashes when I try to return it")
t.call(
    "lookup_order", {"order_id": "5521"}, {"order_id": "5521", "status": "delivered", "total": 89.0}
)
occ = repeat_block(
    t,
    [
        {"tool": "transfer_to_refunds_agent", "args": {}, "result": {"assistant": "Refunds Agent"}},
        {
            "tool": "transfer_to_tech_support_agent",
            "args": {},
            "result": {"assistant": "Tech Support Agent"},
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f21-dataherald-143-same-sql",
    "repeated_call",
    True,
    DH143,
    "The SQL agent loop the pull request guards against: the same query executed again and "
    "again with the same rows instead of answering.",
)
t.user("How many active customers do we have in Texas?")
t.call("sql_db_list_tables", {}, "customers, orders, regions")
t.call(
    "sql_db_schema",
    {"table_names": "customers"},
    "CREATE TABLE customers (id INT, state TEXT, status TEXT, created_at DATE)",
)
Q21 = "SELECT COUNT(*) FROM customers WHERE state = 'TX' AND status = 'active'"
occ = repeat_block(t, [{"tool": "sql_db_query", "args": {"query": Q21}, "result": "[(1287,)]"}], 5)
mark_cycle(t, occ)

t = new(
    "f21-mindshub-12211-retry-attempt-count",
    "error_loop",
    True,
    MINDS12211,
    "The exploratory query fails the same way each time; the only thing added is 'This is "
    "retry attempt 5 of 3', the count rising past its own limit.",
)
t.user("What was revenue by region last quarter?")
SQLX21 = "SELECT region, SUM(revenue) FROM sales_q3 GROUP BY region"
for n in range(1, 7):
    c = t.call(
        "execute_exploratory_query",
        {"sql": SQLX21},
        error=(
            'Query failed: column "revenue" does not exist. Please fix the query and try '
            f"again. This is retry attempt {n} of 3"
        ),
        kind="invalid_args",
    )
    if n == 2:
        t.mark(c, c)

t = new(
    "f21-ragflow-7725-exesql-thrice",
    "repeated_call",
    True,
    RAGFLOW7725,
    "RAGFlow's ExeSQL component: the first SQL is already correct, and the agent runs the "
    "same statement again and again with the same table.",
)
t.user("Which three products had the most returns in May?")
SQLR21 = (
    "SELECT product, COUNT(*) AS returns FROM returns WHERE month = '2025-05' "
    "GROUP BY product ORDER BY returns DESC LIMIT 3"
)
RES21 = "| product | returns |\n|---|---|\n| Kettle K2 | 41 |\n| Fan F9 | 33 |\n| Lamp L1 | 29 |"
occ = repeat_block(t, [{"tool": "ExeSQL", "args": {"sql": SQLR21}, "result": RES21}], 4)
mark_cycle(t, occ)

t = new(
    "f21-databao-177-sql-regenerated",
    "no_progress",
    True,
    DATABAO177,
    "Databao generates SQL in a loop without converging: each attempt re-spells the same "
    "query (aliases, clause order, casing) and gets the same result set, until the recursion "
    "limit.",
)
t.user("Average order value per month in 2025, please")
COLS21 = ["month", "avg_order_value"]
ROWS21 = [["2025-01", 42.1], ["2025-02", 40.8], ["2025-03", 44.9]]
variants21 = [
    "SELECT date_trunc('month', o.created_at) AS month, AVG(o.total) AS avg_order_value "
    "FROM orders o WHERE o.created_at >= '2025-01-01' GROUP BY 1 ORDER BY 1",
    "select date_trunc('month', created_at) as month, avg(total) as avg_order_value "
    "from orders where created_at >= '2025-01-01' group by 1 order by 1",
    "SELECT DATE_TRUNC('month', orders.created_at) AS month, AVG(orders.total) AS "
    "avg_order_value FROM orders WHERE orders.created_at >= DATE '2025-01-01' GROUP BY month "
    "ORDER BY month",
    "WITH o AS (SELECT created_at, total FROM orders WHERE created_at >= '2025-01-01') SELECT "
    "date_trunc('month', created_at) AS month, AVG(total) AS avg_order_value FROM o GROUP BY "
    "1 ORDER BY 1",
    "SELECT date_trunc('month', created_at) month, avg(total) avg_order_value FROM orders "
    "WHERE extract(year FROM created_at) = 2025 GROUP BY 1 ORDER BY 1",
]
t.call("list_tables", {"schema": "public"}, ["orders", "customers"])
cs = [t.call("run_sql", {"query": q}, _rows21(COLS21, ROWS21)) for q in variants21]
t.mark(cs[1], cs[1])

t = new(
    "f21-litellm-5229-tool-110",
    "repeated_call",
    True,
    LITELLM5229,
    "LangChain through the LiteLLM proxy to Ollama: asked for function_1 and function_2, the "
    "model calls function_1(10, 11) again and again, 'Tool: 110' each time.",
)
t.user("What is function_1(10, 11)? Also what is function_2(10, 11)?")
occ = repeat_block(t, [{"tool": "function_1", "args": {"a": 10, "b": 11}, "result": "110"}], 5)
mark_cycle(t, occ)

t = new(
    "f21-gsd2-1671-same-web-search",
    "repeated_call",
    True,
    GSD1671,
    "During milestone research the agent fires the same web search, gets identical (cached) "
    "results and fires it again, never moving on to the roadmap.",
)
t.user("/gsd new milestone: migrate the dashboard from MUI v6 to v7")
t.call("read_file", {"path": "package.json"}, '{"dependencies": {"@mui/material": "^6.4.2"}}')
HITS21 = _hits21(
    (
        "Migrating to v7 - Material UI",
        "https://mui.com/material-ui/migration/upgrade-to-v7/",
        "This guide explains how to upgrade from Material UI v6 to v7...",
    ),
    (
        "MUI v7 release notes",
        "https://github.com/mui/material-ui/releases/tag/v7.0.0",
        "Breaking changes: deep imports removed, Grid2 renamed to Grid...",
    ),
)
occ = repeat_block(
    t,
    [
        {
            "tool": "search-the-web",
            "args": {"query": "MUI v6 to v7 migration", "count": 5},
            "result": HITS21,
        }
    ],
    5,
)
mark_cycle(t, occ)

t = new(
    "f21-agentzero-1690-code-exec-despite-warning",
    "repeated_call",
    True,
    AZERO1690,
    "Agent Zero at temperature 0 re-sends the identical code_execution_tool call; after the "
    "first run each answer carries the harness's 'You have sent the same message again' "
    "warning, and the call comes again.",
)
t.user("Summarise the row counts of every CSV in /data/exports")
CODE21 = {
    "runtime": "python",
    "code": "import glob,pandas as pd\nfor f in glob.glob('/data/exports/*.csv'):\n"
    "    print(f, len(pd.read_csv(f)))",
}
OUT21 = "/data/exports/a.csv 1200\n/data/exports/b.csv 88\n/data/exports/c.csv 4031"
t.call("code_execution_tool", CODE21, OUT21)
WARN21 = OUT21 + "\n\nYou have sent the same message again. You have to do something else!"
c2 = t.call("code_execution_tool", CODE21, WARN21)
for _ in range(4):
    t.call("code_execution_tool", CODE21, WARN21)
t.mark(c2, c2)

t = new(
    "f21-n8n-14032-first-item-each-iteration",
    "repeated_call",
    True,
    N8N14032,
    "A Tools Agent inside a loop node only ever sees the first item: every iteration runs "
    "the same lookup for the same company and returns the same summary.",
)
for _ in range(4):
    t.user("Summarise the company: Acme Robotics GmbH")
    t.call(
        "company_lookup",
        {"name": "Acme Robotics GmbH"},
        '{"name": "Acme Robotics GmbH", "employees": 140, "city": "Stuttgart"}',
    )
    t.msg("Acme Robotics GmbH is a 140-person robotics firm based in Stuttgart.")
t.mark(3, 5, period=2)

t = new(
    "f21-openmanus-301-tool-list-monologue",
    "monologue",
    True,
    MANUS301,
    "Manus answers the first prompt by listing its tools and then says nearly the same thing "
    "again at every step, with no tool call, until the stuck state is detected.",
)
t.user("Find three flights from Berlin to Lisbon next Friday under 200 EUR")
t.msg(
    "I can help with that. I have PythonExecute, FileSaver, BrowserUseTool and GoogleSearch "
    "available. Let me know how you'd like to proceed."
)
m2 = t.msg(
    "I can help with that. I have PythonExecute, FileSaver, BrowserUseTool and GoogleSearch "
    "available; tell me how you would like to proceed."
)
t.msg(
    "I can help you with that. The tools available are PythonExecute, FileSaver, "
    "BrowserUseTool and GoogleSearch. Let me know how you'd like to proceed."
)
t.msg(
    "I can help with that! I have PythonExecute, FileSaver, BrowserUseTool and GoogleSearch "
    "available. Let me know how you'd like to proceed."
)
t.msg(
    "I can help with that. Available tools: PythonExecute, FileSaver, BrowserUseTool, "
    "GoogleSearch. Let me know how you'd like to proceed."
)
t.mark(m2, m2)

t = new(
    "f21-rasa-2260-im-on-it",
    "monologue",
    True,
    RASA2260,
    "The bot keeps predicting actions without waiting for the user: 'I'm on it' again and "
    "again until the circuit breaker trips.",
)
t.user("hi")
t.msg("how can I help you?")
t.user("pizza")
t.msg("I'm on it")
t.msg("what kind of cuisine would you like?")
t.user("3")
a = t.msg("I'm on it")
b = t.msg("I'm on it")
for _ in range(6):
    t.msg("I'm on it")
t.mark(b, b)

t = new(
    "f21-geminilive-46-confirmation-repeated",
    "monologue",
    True,
    GLIVE46,
    "A voice agent on the Live API says its confirmation, then '(in attesa) ...' and the same "
    "sentence again, four times in one generation, before the function call comes out.",
)
t.user("Per la mediazione preferisco l'arabo")
CONF21 = "Perfetto, useremo l'arabo per la mediazione. Un attimo che aggiorno il sistema."
t.msg(CONF21)
m2 = t.msg("(in attesa) ... " + CONF21)
t.msg("(in attesa) ... " + CONF21)
t.msg("(in attesa) ... " + CONF21)
t.call("update_case", {"field": "mediation_language", "value": "ar"}, {"ok": True})
t.mark(m2, m2)

t = new(
    "f21-pi-9104-dead-loop-sentence",
    "monologue",
    True,
    PI9104,
    "Late in a long task the agent emits 'OK I'm in a dead loop. Let me just write the "
    "summary.' over and over, recognising the loop but never writing anything.",
)
t.user("Finish the refactor of the storage layer and summarise what changed")
t.call("read", {"path": "src/storage/index.ts"}, "export * from './sqlite';\nexport * from './kv';")
t.call(
    "edit",
    {"path": "src/storage/kv.ts", "old": "get(k)", "new": "get(key)"},
    "applied",
    mutates=True,
)
t.call("bash", {"command": "npm test -- storage"}, "Tests: 31 passed, 31 total")
DEAD21 = "OK I'm in a dead loop. Let me just write the summary."
t.msg(DEAD21)
m2 = t.msg(DEAD21)
for _ in range(5):
    t.msg(DEAD21)
t.mark(m2, m2)

t = new(
    "f21-vscode-7604-welcome-every-prompt",
    "monologue",
    True,
    VSCP7604,
    "After an hour of good work the agent's reply to every prompt becomes the same recital "
    "of its instructions ('I understand that I am an automated coding agent...'), whatever "
    "is asked.",
)
t.user("Add a unit test for the webhook signature check")
t.call("read_file", {"filePath": "src/webhooks.ts"}, "export function verify(sig, body) {...}")
RECITE21 = (
    "I understand that I am an automated coding agent with expert knowledge across "
    "programming languages and frameworks. I will: break down complex requests and gather "
    "context using available tools; use semantic_search as the primary tool for context; "
    "use insert_edit_into_file for code changes; validate file changes with get_errors."
)
t.msg(RECITE21)
t.user("Please write the test now")
m2 = t.msg(RECITE21)
t.user("Why are you repeating this? Write tests/webhooks.test.ts")
t.msg(RECITE21)
t.user("stop")
t.msg(RECITE21)
t.mark(m2, m2)

t = new(
    "f21-pwmcp-910-evaluate-reference-error",
    "error_loop",
    True,
    PWMCP910,
    "browser_evaluate cannot find the Arguments textbox: the same ReferenceError every time, "
    "a fresh snapshot between tries shows the same page with the right ref.",
)
t.user("Fill 'Arguments' with --verbose and press Connect in the MCP Inspector tab")
SNAP21 = _pw21(
    "// snapshot",
    "http://localhost:6274/",
    "MCP Inspector",
    '- textbox "Arguments" [ref=e21]\n- button "Connect" [ref=e24]',
)
EVAL21 = {
    "function": "(element) => { element.value = '--verbose'; }",
    "element": "Arguments textbox",
    "ref": "e21",
}
EVERR21 = _mcp21(
    "### Result\nReferenceError: element is not defined\n    at eval (eval at evaluate "
    "(:3:1), <anonymous>:1:3)",
    is_error=True,
)
t.call("browser_snapshot", {}, SNAP21)
e1 = t.call("browser_evaluate", EVAL21, EVERR21)
t.call("browser_snapshot", {}, SNAP21)
e2 = t.call("browser_evaluate", EVAL21, EVERR21)
t.call("browser_snapshot", {}, SNAP21)
t.call("browser_evaluate", EVAL21, EVERR21)
t.call("browser_snapshot", {}, SNAP21)
t.call("browser_evaluate", EVAL21, EVERR21)
t.mark(e2 - 1, e2, period=2)

t = new(
    "f21-pwmcp-852-overlay-intercepts-click",
    "error_loop",
    True,
    PWMCP852,
    "An absolute inset-0 overlay intercepts pointer events: browser_click on the same ref "
    "times out the same way every time (the timeout is the overlay, not the network).",
)
t.user("Click 'Save draft' on the editor page")
t.call(
    "browser_navigate",
    {"url": "https://cms.example.com/posts/88/edit"},
    _pw21(
        "await page.goto('https://cms.example.com/posts/88/edit');",
        "https://cms.example.com/posts/88/edit",
        "Edit post",
        '- button "Save draft" [ref=e57]',
    ),
)
CLICK21 = {"element": "Save draft button", "ref": "e57"}
CERR21 = _mcp21(
    "### Result\nTimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n"
    "  - waiting for locator('aria-ref=e57')\n  - locator resolved to <button>Save draft</button>\n"
    '  - attempting click action\n  - <span>Draft</span> from <div class="absolute inset-0">'
    "…</div> subtree intercepts pointer events\n  - retrying click action",
    is_error=True,
)
cs = [t.call("browser_click", CLICK21, CERR21) for _ in range(6)]
t.mark(cs[1], cs[2])

t = new(
    "f21-n8n-20890-schema-mismatch-every-iteration",
    "error_loop",
    True,
    N8N20890,
    "An AI Agent node's tool call is faulty each iteration (the same schema error) until Max "
    "Iterations, and the node still ends as successful.",
)
t.user("Create a calendar event 'Quarterly review' next Tuesday 10:00 for 1 hour")
EV21 = {"summary": "Quarterly review", "start": "next Tuesday 10:00", "duration": "1h"}
ERRN21 = "Received tool input did not match expected schema ✖ Required → at start.dateTime"
cs = [
    t.call("Google_Calendar_Create_Event", EV21, error=ERRN21, kind="invalid_args")
    for _ in range(5)
]
t.mark(cs[1], cs[1])

t = new(
    "f21-bmcp-175-click-tool-missing-next-session",
    "known_failure",
    True,
    BMCP175,
    "browser_click is listed but 'not found in any active connection' (a stale connection); "
    "the next session, nothing reconnected, the agent calls it again.",
)
t.user("Click the 'Accept all' cookie button on the open tab")
BCL21 = {"element": "Accept all button", "ref": "s1e14"}
BERR21 = (
    "MCP tool 'browser_click' call failed: MCP tool 'browser_click' not found in any active "
    "connection. Connected servers: 2"
)
t.call("browser_snapshot", {}, _mcp21('- button "Accept all" [ref=s1e14]'))
t.call("browser_click", BCL21, error=BERR21, kind="not_found")
t.msg("The click tool is not reachable right now, so I couldn't accept the cookies.")
t.session("s2")
u = t.user("Accept the cookies on that tab")
c = t.call("browser_click", BCL21, error=BERR21, kind="not_found")
t.call("browser_click", BCL21, error=BERR21, kind="not_found")
t.mark(c, u)

t = new(
    "f21-wren-1751-tables-after-restart",
    "known_failure",
    True,
    WREN1751,
    "After the services were restarted WrenAI can no longer fetch the tables: 'LLM reply is "
    "not valid JSON'. The next session asks the same question on the same deployment.",
)
t.user("Top 5 customers by lifetime value")
ASK21 = {"question": "Top 5 customers by lifetime value", "project_id": 3}
WERR21 = "Internal server error: LLM reply is not valid JSON: ''"
t.call("create_asking_task", ASK21, error=WERR21, kind="exit_code")
t.msg("Wren AI failed to generate SQL for that question.")
t.session("s2")
u = t.user("Top 5 customers by lifetime value")
c = t.call("create_asking_task", ASK21, error=WERR21, kind="exit_code")
t.mark(c, u)

t = new(
    "f21-n8n-37779-retry-restarts-from-scratch",
    "cycle",
    True,
    N8N37779,
    "Max Iterations is hit, retryOnFail re-runs the node with the tool-call history wiped, "
    "and the agent does the same three lookups from scratch each cycle.",
)
t.user("Reconcile invoice INV-7781 against the Stripe payout")
occ = repeat_block(
    t,
    [
        {
            "tool": "get_invoice",
            "args": {"id": "INV-7781"},
            "result": '{"id": "INV-7781", "amount": 1840.0, "currency": "EUR"}',
        },
        {
            "tool": "list_payouts",
            "args": {"from": "2026-08-01", "to": "2026-08-31"},
            "result": '[{"id": "po_1Q", "amount": 1795.6}, {"id": "po_1R", "amount": 920.0}]',
        },
        {
            "tool": "get_payout_transactions",
            "args": {"payout_id": "po_1Q"},
            "result": '[{"invoice": "INV-7781", "gross": 1840.0, "fee": 44.4}]',
        },
    ],
    3,
)
mark_cycle(t, occ)

t = new(
    "f21-oh-7960-build-install-cycle",
    "cycle",
    True,
    OH7960,
    "'Let me try to build the application; OK, first let's install package X; let me try to "
    "build...': the build fails the same way and the install is already satisfied each time.",
)
t.user("Build the app and fix whatever breaks")
BUILD21 = {"command": "npm run build"}
BFAIL21 = "Error: Cannot find module 'sharp'\nRequire stack:\n- /workspace/scripts/optimize.js"
INST21 = {"command": "npm install sharp"}
IOK21 = "up to date, audited 912 packages in 3s"
occ = repeat_block(
    t,
    [
        {"tool": "execute_bash", "args": BUILD21, "result": BFAIL21},
        {"tool": "execute_bash", "args": INST21, "result": IOK21},
    ],
    4,
)
mark_cycle(t, occ)

# ---------------------------------------------------------------- fresh21 legitimate

t = new(
    "f21-xagent-1208-load-more",
    "distinct_reads",
    False,
    XAGENT1208,
    "The review's legitimate counterpart: a repeated click on an SPA 'Load more' control that "
    "never navigates, each click adding rows the next screenshot shows.",
)
t.user("Collect the names of the first 60 open positions on the careers page")
t.call(
    "computer",
    {"action": "screenshot"},
    _shot21(
        "careers page, 20 job cards, 'Load more' button", "https://jobs.example.com/", "Careers"
    ),
)
for n in (40, 60):
    t.call(
        "computer",
        {"action": "click", "x": 640, "y": 1320},
        _shot21(
            f"careers page, {n} job cards, 'Load more' button",
            "https://jobs.example.com/",
            "Careers",
        ),
    )
    t.call(
        "computer",
        {"action": "wait", "duration_ms": 800},
        _shot21(f"careers page, {n} job cards loaded", "https://jobs.example.com/", "Careers"),
    )
t.call(
    "extract_text",
    {"selector": ".job-card h3"},
    "Backend Engineer (Go)\nData Analyst\n... (60 titles)",
)
t.msg("Here are the 60 open positions, grouped by team.")

t = new(
    "f21-bu-515-wait-for-element-timeout-retried",
    "retry_transient",
    False,
    BU515,
    "wait_for_element on a lazy-loaded page: the first wait times out before the overlay is "
    "gone, the retry sees the element, and the agent clicks it.",
)
t.user("On the flight results page, open the first result once results have loaded")
t.call(
    "go_to_url",
    {"url": "https://flights.example.com/search?from=BER&to=LIS"},
    "🔗  Navigated to https://flights.example.com/search?from=BER&to=LIS",
)
WFE21 = {"selector": "li.result-card", "timeout": 10000}
t.call(
    "wait_for_element",
    WFE21,
    error="TimeoutError: Timeout 10000ms exceeded waiting for selector 'li.result-card'",
    kind="timeout",
)
t.call(
    "wait_for_element",
    WFE21,
    '👀  Element with selector "li.result-card" became visible within 10000ms.',
)
t.call("click_element_by_index", {"index": 14}, "🖱️  Clicked button with index 14: BER→LIS 07:05")
t.msg("Opened the first result: the 07:05 TAP flight for 142 EUR.")

t = new(
    "f21-kaboom-371-wait-for-modal",
    "polling",
    False,
    KABOOM371,
    "The issue's modal example: after clicking Edit the agent waits for the role-change modal; "
    "the first waits report it not there yet, then it appears and is read.",
)
t.user("Change Dana's role to Admin in the team settings")
t.call(
    "interact",
    {"action": "click", "selector": "button[data-user='dana'] .edit"},
    {"ok": True, "navigated": False},
)
WAITM21 = {"action": "wait_for", "selector": "div.modal", "timeout_ms": 5000}
t.call("observe", WAITM21, {"matched": False, "waited_ms": 5000, "reason": "timeout"})
t.call("observe", WAITM21, {"matched": False, "waited_ms": 5000, "reason": "timeout"})
t.call("observe", WAITM21, {"matched": True, "waited_ms": 1830, "text": "Change role: Dana"})
t.call(
    "interact", {"action": "select", "selector": "div.modal select", "value": "admin"}, {"ok": True}
)
t.call("interact", {"action": "click", "selector": "div.modal button.save"}, {"ok": True})
t.msg("Dana is now an Admin.")

t = new(
    "f21-pwmcp-254-snapshot-refs",
    "distinct_reads",
    False,
    PWMCP254,
    "The maintainer's answer in use: every element of browser_snapshot can be clicked by its "
    "ref, so the agent snapshots and clicks its way through a form, each page different.",
)
t.user("Subscribe test@example.com to the newsletter on the demo site")
t.call(
    "browser_navigate",
    {"url": "https://demo.example.org/"},
    _pw21(
        "await page.goto('https://demo.example.org/');",
        "https://demo.example.org/",
        "Demo",
        '- link "Newsletter" [ref=e8]\n- button [ref=e9]',
    ),
)
t.call(
    "browser_click",
    {"element": "Newsletter link", "ref": "e8"},
    _pw21(
        "await page.getByRole('link', { name: 'Newsletter' }).click();",
        "https://demo.example.org/newsletter",
        "Newsletter",
        '- textbox "Email" [ref=e15]\n- button [ref=e16]\n- text: Subscribe',
    ),
)
t.call(
    "browser_type",
    {"element": "Email textbox", "ref": "e15", "text": "test@example.com"},
    _pw21(
        "await page.getByRole('textbox', { name: 'Email' }).fill('test@example.com');",
        "https://demo.example.org/newsletter",
        "Newsletter",
        '- textbox "Email" [ref=e15]: test@example.com\n- button [ref=e16]',
    ),
)
t.call(
    "browser_click",
    {"element": "unnamed icon button", "ref": "e16"},
    _pw21(
        "await page.locator('aria-ref=e16').click();",
        "https://demo.example.org/newsletter/thanks",
        "Thanks",
        '- heading "You are subscribed" [level=1] [ref=e3]',
    ),
)
t.msg("Subscribed: the site shows 'You are subscribed'.")

t = new(
    "f21-wren-1712-asking-task-polled",
    "polling",
    False,
    WREN1712,
    "The asking task tracker polls the task's result: 'generating' between short waits, then "
    "the finished SQL and its rows.",
)
t.user("How many tickets were opened last week?")
t.call(
    "create_asking_task",
    {"question": "How many tickets were opened last week?"},
    {"task_id": "d7893822-e003-4a95-beca-c6a5d253f320"},
)
TASK21 = {"task_id": "d7893822-e003-4a95-beca-c6a5d253f320"}
for _ in range(3):
    t.call("sleep", {"seconds": 1}, "slept 1s")
    t.call("get_asking_task_result", TASK21, {"status": "generating", "response": None})
t.call("sleep", {"seconds": 1}, "slept 1s")
t.call(
    "get_asking_task_result",
    TASK21,
    {
        "status": "finished",
        "response": [
            {"sql": "SELECT COUNT(*) FROM tickets WHERE opened_at >= now() - interval '7 days'"}
        ],
    },
)
t.call(
    "run_sql",
    {"query": "SELECT COUNT(*) FROM tickets WHERE opened_at >= now() - interval '7 days'"},
    _rows21(["count"], [[312]]),
)
t.msg("312 tickets were opened in the last seven days.")

t = new(
    "f21-wren-1937-sql-corrected",
    "edit_test_cycle",
    False,
    WREN1937,
    "The pull request's correction loop: generated SQL is validated, fails, is corrected and "
    "validated again (a different error), corrected again and passes.",
)
t.user("Recommend a question about churn and give me its SQL")
S1 = "SELECT month, churned / total AS churn_rate FROM churn_monthly"
S2 = "SELECT month, churned::float / total AS churn_rate FROM churn_stats"
S3 = "SELECT month, churned::float / total AS churn_rate FROM analytics.churn_stats"
t.call(
    "dry_run_sql", {"sql": S1}, {"valid": False, "error": 'relation "churn_monthly" does not exist'}
)
t.call(
    "sql_correction", {"sql": S1, "error": 'relation "churn_monthly" does not exist'}, {"sql": S2}
)
t.call(
    "dry_run_sql",
    {"sql": S2},
    {
        "valid": False,
        "error": 'relation "churn_stats" does not exist; did you mean "analytics.churn_stats"?',
    },
)
t.call("sql_correction", {"sql": S2, "error": 'relation "churn_stats" does not exist'}, {"sql": S3})
t.call("dry_run_sql", {"sql": S3}, {"valid": True})
t.msg("Question: 'How has monthly churn rate changed this year?' SQL: " + S3)

t = new(
    "f21-lk-1976-weather-then-capital",
    "conversation",
    False,
    LK1976,
    "The issue's voice session when it works: the weather question runs a tool, the next "
    "question is answered directly, and a third asks for another city's weather.",
)
t.user("What is the weather in Chicago?")
t.msg("Wait while I call the function to get the weather.")
t.call("get_weather", {"location": "Chicago"}, "The weather in Chicago is sunny, 22°C.")
t.msg("It's sunny in Chicago, around 22 degrees.")
t.user("What is the capital of Illinois?")
t.msg("The capital of Illinois is Springfield.")
t.user("And the weather there?")
t.call(
    "get_weather",
    {"location": "Springfield, IL"},
    "The weather in Springfield, IL is cloudy, 19°C.",
)
t.msg("Springfield is cloudy, about 19 degrees.")

t = new(
    "f21-pipecat-2787-content-then-tool",
    "conversation",
    False,
    PIPECAT2787,
    "The expected behaviour: the bot says a sentence, calls a fast tool, and continues with "
    "new content instead of repeating itself; three caller requests, three such turns.",
)
for q, fn, args, res, say in [
    (
        "Is there a table for four at eight?",
        "check_availability",
        {"party": 4, "time": "20:00"},
        '{"available": true, "table": 12}',
        "Yes, table twelve is free at eight.",
    ),
    (
        "Book it under Marek",
        "create_booking",
        {"table": 12, "time": "20:00", "name": "Marek"},
        '{"booking_id": "B-3381"}',
        "Done, your booking number is B 3381.",
    ),
    (
        "Can you text me the confirmation?",
        "send_sms",
        {"booking_id": "B-3381"},
        '{"sent": true}',
        "I've sent the confirmation by text.",
    ),
]:
    t.user(q)
    t.msg("Let me check that for you.")
    t.call(fn, args, res)
    t.msg(say)

t = new(
    "f21-gptr-734-source-urls-then-web",
    "research",
    False,
    GPTR734,
    "The pull request's add_additional_sources: the user's URLs are scraped first, then a "
    "default web search widens the context for the same query, each source read once.",
)
t.user("Research the EU AI Act's obligations for general-purpose models; start from my links")
for u, txt in [
    ("https://eur-lex.europa.eu/eli/reg/2024/1689", "Article 53: obligations for providers..."),
    ("https://artificialintelligenceact.eu/gpai/", "GPAI providers must publish a summary..."),
]:
    t.call("scrape_url", {"url": u}, {"url": u, "raw_content": txt, "status": 200})
t.call(
    "web_search",
    {"query": "EU AI Act general-purpose AI obligations code of practice"},
    _hits21(
        (
            "GPAI Code of Practice",
            "https://digital-strategy.ec.europa.eu/gpai-code",
            "The Code of Practice helps providers comply...",
        ),
        (
            "Systemic risk GPAI models",
            "https://example-law.eu/gpai-systemic",
            "Models above 10^25 FLOP are presumed...",
        ),
    ),
)
t.call(
    "scrape_url",
    {"url": "https://digital-strategy.ec.europa.eu/gpai-code"},
    {
        "url": "https://digital-strategy.ec.europa.eu/gpai-code",
        "raw_content": "Chapters: transparency, copyright, safety and security...",
        "status": 200,
    },
)
t.call(
    "scrape_url",
    {"url": "https://example-law.eu/gpai-systemic"},
    {
        "url": "https://example-law.eu/gpai-systemic",
        "raw_content": "Systemic-risk models must run evaluations and report incidents...",
        "status": 200,
    },
)
t.call("write_report", {"format": "markdown", "sources": 4}, "report.md written (1,650 words)")
t.msg("The report covers transparency, copyright and systemic-risk duties, with 4 sources.")

t = new(
    "f21-storm-481-perspectives",
    "research",
    False,
    STORM481,
    "The STORM-style skill: perspectives, a focused question for each, a search per question, "
    "an outline and a cited draft.",
)
t.user("Write a STORM-style brief on urban heat islands")
t.call(
    "generate_perspectives",
    {"topic": "urban heat islands"},
    ["urban planner", "public-health researcher", "climate scientist"],
)
for who, q, hits in [
    (
        "urban planner",
        "cool roofs and street trees effectiveness",
        (("Cool roofs study", "https://a.example/cool-roofs", "Surface temps fell 10-15 K..."),),
    ),
    (
        "public-health researcher",
        "heat island mortality elderly",
        (("Heat mortality", "https://b.example/mortality", "Excess deaths rose 4% per..."),),
    ),
    (
        "climate scientist",
        "urban heat island intensity measurement",
        (("UHI measurement", "https://c.example/uhi", "Intensity is the urban-rural delta..."),),
    ),
]:
    t.call("ask_question", {"perspective": who, "question": q}, {"question": q})
    t.call("search", {"query": q}, _hits21(*hits))
t.call("build_outline", {"sections": 4}, "1 Causes\n2 Measurement\n3 Health\n4 Mitigation")
t.call("draft_article", {"cite": True}, "brief.md written (1,100 words, 7 citations)")
t.msg("The brief is in brief.md, four sections with seven citations.")

t = new(
    "f21-gsd955-re-search-after-others",
    "research",
    False,
    GSD955,
    "What the fix leaves alone: a query searched again after other queries (the counter resets "
    "on a different query), to check a version detail against a changelog just read.",
)
t.user("Plan the React 18 to 19 upgrade for the admin app")
R19 = _hits21(
    (
        "React 19 upgrade guide",
        "https://react.dev/blog/2024/04/25/react-19-upgrade-guide",
        "Removed: propTypes, defaultProps for functions, string refs...",
    )
)
t.call("search-the-web", {"query": "React 19 upgrade guide", "count": 5}, R19)
t.call(
    "search-the-web",
    {"query": "react-router v7 React 19 compatibility", "count": 5},
    _hits21(
        (
            "React Router v7",
            "https://reactrouter.com/upgrading/v6",
            "v7 requires React 18 or later...",
        )
    ),
)
t.call(
    "fetch_page",
    {"url": "https://github.com/facebook/react/blob/main/CHANGELOG.md"},
    "## 19.0.0 ... ## 19.1.0 Owner stacks, ...",
)
t.call("search-the-web", {"query": "React 19 upgrade guide", "count": 5}, R19)
t.call("write_file", {"path": "plan/upgrade-react-19.md"}, "written", mutates=True)
t.msg("The plan is in plan/upgrade-react-19.md: codemods first, then the router.")

t = new(
    "f21-n8n-10735-wikipedia-tool-calls",
    "distinct_reads",
    False,
    N8N10735,
    "The OpenAI node with a Wikipedia tool inside its max tools iterations: several lookups, "
    "each a different article, then the answer.",
)
t.user("Compare the founding years and headquarters of Airbus, Boeing and Embraer")
for name, res in [
    ("Airbus", "Airbus SE ... founded 1970 ... headquarters Leiden; operations Toulouse"),
    ("Boeing", "The Boeing Company ... founded 1916 ... headquarters Arlington, Virginia"),
    ("Embraer", "Embraer S.A. ... founded 1969 ... headquarters São José dos Campos"),
]:
    t.call("wikipedia", {"query": name}, f"Page: {name}\nSummary: {res}")
t.msg("Boeing is the oldest (1916); Embraer (1969) and Airbus (1970) followed.")

t = new(
    "f21-dify-12354-loop-sleep-http",
    "polling",
    False,
    DIFY12354,
    "The Loop and Sleep nodes' use case: request an HTTP interface again after an interval "
    "until the answer meets the condition (an export becomes ready).",
)
t.user("Export last month's orders as CSV and give me the link")
t.call(
    "http_request",
    {"method": "POST", "url": "https://api.shop.example/exports", "body": {"month": "2026-11"}},
    {"status": 202, "body": {"export_id": "ex_2291", "state": "queued"}},
)
EXP21 = {"method": "GET", "url": "https://api.shop.example/exports/ex_2291"}
for st in ["queued", "running", "running"]:
    t.call("sleep", {"seconds": 10}, {"slept": 10})
    t.call("http_request", EXP21, {"status": 200, "body": {"export_id": "ex_2291", "state": st}})
t.call("sleep", {"seconds": 10}, {"slept": 10})
t.call(
    "http_request",
    EXP21,
    {
        "status": 200,
        "body": {
            "export_id": "ex_2291",
            "state": "ready",
            "url": "https://files.shop.example/ex_2291.csv",
        },
    },
)
t.msg("The export is ready: https://files.shop.example/ex_2291.csv")

t = new(
    "f21-n8n-37779-transient-retry",
    "retry_transient",
    False,
    N8N37779,
    "What node-level retryOnFail is for: an HTTP tool answers 503 twice, waitBetweenTries "
    "passes, and the third try succeeds.",
)
t.user("Fetch today's exchange rate EUR to PLN and post it to #finance")
FX21 = {"url": "https://api.fx.example/latest?base=EUR&symbols=PLN"}
t.call("HTTP_Request", FX21, error="503 Service Unavailable", kind="server_error")
t.call("HTTP_Request", FX21, error="503 Service Unavailable", kind="server_error")
t.call("HTTP_Request", FX21, '{"base": "EUR", "rates": {"PLN": 4.2713}}')
t.call(
    "Slack_Send_Message", {"channel": "#finance", "text": "EUR/PLN today: 4.2713"}, '{"ok": true}'
)
t.msg("Posted EUR/PLN 4.2713 to #finance.")

t = new(
    "f21-bmcp-175-reconnected",
    "session_memory",
    False,
    BMCP175,
    "The maintainer's reading (a stale connection): the user reconnects the extension between "
    "sessions, and the same click then goes through.",
)
t.user("Click the 'Accept all' cookie button on the open tab")
t.call("browser_snapshot", {}, _mcp21('- button "Accept all" [ref=s1e14]'))
t.call("browser_click", BCL21, error=BERR21, kind="not_found")
t.msg("The click tool is not reachable; please reconnect the Browser MCP extension.")
t.workspace("user reconnected the Browser MCP extension (new connection)")
t.session("s2")
t.user("Reconnected, try again")
t.call("browser_snapshot", {}, _mcp21('- button "Accept all" [ref=s2e14]'))
t.call(
    "browser_click",
    {"element": "Accept all button", "ref": "s2e14"},
    _mcp21('Clicked "Accept all button"'),
)
t.msg("Cookies accepted.")

t = new(
    "f21-wren-1751-redeployed",
    "session_memory",
    False,
    WREN1751,
    "The counterpart: after the failure the user redeploys the models, and the next "
    "session's same question gets its SQL.",
)
t.user("Top 5 customers by lifetime value")
t.call("create_asking_task", ASK21, error=WERR21, kind="exit_code")
t.msg("Wren AI failed to generate SQL; redeploying the model may fix the table index.")
t.workspace("user clicked Deploy in the modeling page (tables re-indexed)")
t.session("s2")
t.user("Top 5 customers by lifetime value")
t.call("create_asking_task", ASK21, {"task_id": "a1c0f9e2-55aa-4c3b-9d01-7e6b2f1c0b77"})
t.call(
    "get_asking_task_result",
    {"task_id": "a1c0f9e2-55aa-4c3b-9d01-7e6b2f1c0b77"},
    {
        "status": "finished",
        "response": [{"sql": "SELECT customer, ltv FROM customers ORDER BY ltv DESC LIMIT 5"}],
    },
)
t.msg("Here are the top five customers by lifetime value.")

t = new(
    "f21-rasa-2206-email-reprompt",
    "conversation",
    False,
    RASA2206,
    "The issue's deterministic loop by design: an invalid email gets the same 'try again', "
    "twice, then a valid one breaks out.",
)
t.user("Are you hiring?")
t.call("utter_hiring", {}, [{"event": "bot", "text": "Yes we are! Let us know your email."}])
TRY21 = [{"event": "bot", "text": "That's not a valid email, try again"}]
t.user("john at gmail")
t.call("action_validate_email", {"email": "john at gmail"}, TRY21)
t.user("john@gmail")
t.call("action_validate_email", {"email": "john@gmail"}, TRY21)
t.user("john@gmail.com")
t.call(
    "action_validate_email",
    {"email": "john@gmail.com"},
    [
        {"event": "slot", "name": "email", "value": "john@gmail.com"},
        {"event": "bot", "text": "Thanks, we'll reach you at john@gmail.com"},
    ],
)

t = new(
    "f21-mindshub-12211-query-fixed",
    "edit_test_cycle",
    False,
    MINDS12211,
    "The counterpart of the retry loop: the exploratory query fails, the agent reads the "
    "schema, fixes the column, and the next query succeeds.",
)
t.user("What was revenue by region last quarter?")
t.call(
    "execute_exploratory_query",
    {"sql": SQLX21},
    error='Query failed: column "revenue" does not exist. Please fix the query and try '
    "again. This is retry attempt 1 of 3",
    kind="invalid_args",
)
t.call(
    "describe_table",
    {"table": "sales_q3"},
    _rows21(["column", "type"], [["region", "text"], ["net_amount", "numeric"]]),
)
t.call(
    "execute_exploratory_query",
    {"sql": "SELECT region, SUM(net_amount) FROM sales_q3 GROUP BY region"},
    _rows21(["region", "sum"], [["EMEA", 1.2e6], ["APAC", 8.4e5], ["AMER", 2.1e6]]),
)
t.msg("Last quarter: AMER 2.1M, EMEA 1.2M, APAC 0.84M.")

t = new(
    "f21-agjs-1735-computer-actions",
    "distinct_reads",
    False,
    AGJS1735,
    "A computer tool run as the Agents SDK drives it: each action returns a fresh screenshot, "
    "and each screenshot differs because each action changed the screen.",
)
t.user("Search the docs site for 'rate limits' and open the first result")
t.call(
    "computer_call",
    {"action": {"type": "screenshot"}},
    _shot21("docs home, search box top right", "https://docs.example.dev/", "Docs"),
)
t.call(
    "computer_call",
    {"action": {"type": "click", "x": 1100, "y": 40, "button": "left"}},
    _shot21("search box focused, empty", "https://docs.example.dev/", "Docs"),
)
t.call(
    "computer_call",
    {"action": {"type": "type", "text": "rate limits"}},
    _shot21("search box 'rate limits', 6 suggestions", "https://docs.example.dev/", "Docs"),
)
t.call(
    "computer_call",
    {"action": {"type": "keypress", "keys": ["ENTER"]}},
    _shot21("results page, 14 results", "https://docs.example.dev/search?q=rate+limits", "Search"),
)
t.call(
    "computer_call",
    {"action": {"type": "click", "x": 420, "y": 210, "button": "left"}},
    _shot21(
        "article 'Rate limits' with a tiers table",
        "https://docs.example.dev/rate-limits",
        "Rate limits",
    ),
)
t.msg("Opened 'Rate limits': 60 requests/min on the free tier, 600 on Pro.")

t = new(
    "f21-aibook-528-handoff-chain",
    "distinct_reads",
    False,
    AIBOOK528,
    "The chapter's clean peer handoff: triage hands a refund to the refunds agent, which finds "
    "a technical fault and hands it to tech support, which resolves it; each handoff once.",
)
t.user("My order #6610 was charged twice and the app shows an error on the receipt")
t.call("transfer_to_refunds_agent", {}, {"assistant": "Refunds Agent"})
t.call(
    "lookup_charges",
    {"order_id": "6610"},
    [{"charge": "ch_1", "amount": 54.0}, {"charge": "ch_2", "amount": 54.0}],
)
t.call(
    "refund_charge", {"charge": "ch_2"}, {"refund": "re_88", "status": "succeeded"}, mutates=True
)
t.call("transfer_to_tech_support_agent", {}, {"assistant": "Tech Support Agent"})
t.call("get_error_log", {"order_id": "6610"}, "ReceiptRenderError: missing VAT id")
t.call("regenerate_receipt", {"order_id": "6610"}, {"ok": True}, mutates=True)
t.msg("The duplicate charge is refunded and your receipt has been regenerated.")


def _rasa21_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        RASA3664,
        "The issue's use case: far more than ten actions in a row without a user message is "
        "the design (an onboarding flow fetching and confirming fourteen account fields).",
    )
    t.user('/start_onboarding{"account": "ACME-204"}')
    fields = [
        "name",
        "email",
        "phone",
        "address",
        "zip",
        "city",
        "country",
        "vat_id",
        "iban",
        "plan",
        "seats",
        "billing_day",
        "timezone",
        "language",
    ]
    for k, f in enumerate(fields):
        t.call(
            f"action_fetch_{f}",
            {"account": "ACME-204"},
            [{"event": "slot", "name": f, "value": f"{f}-value-{k}"}],
        )
        t.call(
            f"validate_{f}",
            {"value": f"{f}-value-{k}"},
            [{"event": "slot", "name": f"{f}_valid", "value": True}],
        )
        t.call(
            "action_log_progress",
            {"field": f, "done": k + 1, "total": len(fields)},
            [{"event": "bot", "text": f"{f} confirmed ({k + 1}/{len(fields)})"}],
        )
    t.call(
        "action_submit_onboarding",
        {"account": "ACME-204"},
        [{"event": "bot", "text": "Onboarding complete for ACME-204"}],
    )
    t.msg("Onboarding complete for ACME-204.")


_rasa21_long("f21-rasa-3664-long-action-chain")


def _gptr21_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        GPTR416,
        "A detailed report as the pull request builds it: an initial search, subtopics, then "
        "per subtopic a search, two scrapes and a section, and the final report.",
    )
    t.user("Detailed report: the state of solid-state batteries in 2026")
    t.call(
        "web_search",
        {"query": "solid-state batteries 2026 overview"},
        _hits21(("Overview", "https://x.example/ssb", "Sulfide and oxide electrolytes...")),
    )
    subs = [
        "electrolytes",
        "manufacturing",
        "automotive adoption",
        "costs",
        "safety",
        "supply chain",
        "patents",
        "startups",
        "grid storage",
        "outlook",
    ]
    t.call("generate_subtopics", {"max_subtopics": len(subs)}, subs)
    rng = random.Random(2121)
    for k, s in enumerate(subs):
        t.call(
            "web_search",
            {"query": f"solid-state batteries {s} 2026"},
            _hits21(
                (f"{s} A", f"https://s{k}a.example/", f"{s}: {rng.randint(3, 90)} ..."),
                (f"{s} B", f"https://s{k}b.example/", f"{s}: {rng.randint(3, 90)} ..."),
            ),
        )
        for suffix in "ab":
            t.call(
                "scrape_url",
                {"url": f"https://s{k}{suffix}.example/"},
                {
                    "url": f"https://s{k}{suffix}.example/",
                    "status": 200,
                    "raw_content": f"{s} details {rng.randint(100, 999)}",
                },
            )
        t.call(
            "write_subtopic_report",
            {"subtopic": s},
            f"section '{s}' written ({rng.randint(300, 700)} words)",
        )
    t.call("write_report", {"report_type": "detailed_report"}, "report.md (6,900 words)")
    t.msg("The detailed report is in report.md: ten sections with sources.")


_gptr21_long("f21-gptr-416-detailed-report")

# ================================================================ end of fresh21 set


# ================================================================ fresh22 set
# Written at 21:10 UTC (Dec 6) from sources no earlier split uses (checked against every
# `source` of the file; a few are other issues of repositories earlier splits cite):
# DevOps and infrastructure agents (HolmesGPT investigations over kubectl, Prometheus and
# Loki; kubectl-ai; Terraform plan/apply, state locks and stale plans; kubectl rollout status
# polled through progress and stuck on a bad image; docker build and pull retried after
# transient failures; CI jobs re-run), memory tools (mem0 and Mnemosyne searches re-issued,
# a memory search once per user question), agent frameworks not cited before (TaskWeaver-era
# AIlice sub-agents, trae-agent, Aether, TaxyAI, localharness, claudette's Rust check) and
# multi-language build/test work (go test, cargo, rustc, Maven, Gradle). Results in those
# tools' shapes: HolmesGPT's StructuredToolResult (`status`, `data`, `error`,
# `return_code`), trae-agent's ToolResult (`call_id`, `success`, `error`), Codex-style shell
# results (`status`, `exitCode`, `output`), OpenHands' CmdOutputObservation (`content`,
# `exit_code`), mem0's `{"results": [...]}`, gh and kubectl text. Labelled by what each
# source says, by the README's rules, before crs was run on them. Split "fresh22".

FRESH22_START = len(ALL)
HOMEOPS11904 = gh("rwlove/home-ops", "issues", 11904)
HOLMES2433 = gh("HolmesGPT/holmesgpt", "pull", 2433)
HOLMES2048 = gh("HolmesGPT/holmesgpt", "pull", 2048)
HOLMES2040 = gh("HolmesGPT/holmesgpt", "pull", 2040)
TALOS1794 = gh("mitchross/talos-argocd-proxmox", "pull", 1794)
ARO5487 = gh("Azure/ARO-HCP", "pull", 5487)
KAI406 = gh("GoogleCloudPlatform/kubectl-ai", "issues", 406)
HERMES93485 = gh("NousResearch/hermes-agent", "issues", 93485)
HERMES93504 = gh("NousResearch/hermes-agent", "pull", 93504)
HERMES112920 = gh("NousResearch/hermes-agent", "issues", 112920)
LIBRAVDB286 = gh("xDarkicex/openclaw-memory-libravdb", "pull", 286)
PASEO1824 = gh("getpaseo/paseo", "pull", 1824)
QPAW6116 = gh("agentscope-ai/QwenPaw", "issues", 6116)
TRAE274 = gh("bytedance/trae-agent", "issues", 274)
AILICE11 = gh("myshell-ai/AIlice", "issues", 11)
OH872 = gh("OpenHands/OpenHands", "issues", 872)
TF28693 = gh("hashicorp/terraform", "issues", 28693)
TF17666 = gh("hashicorp/terraform", "issues", 17666)
KVELA60 = gh("kubevela/terraform-controller", "issues", 60)
SNAP491 = gh("canonical/snap-openstack", "pull", 491)
SCALEKIT27 = gh("scalekit-inc/org-brain-workshop", "issues", 27)
DFLOOK71 = gh("dflook/terraform-github-actions", "issues", 71)
TAXY10 = gh("TaxyAI/browser-extension", "issues", 10)
OC42044 = gh("anomalyco/opencode", "issues", 42044)
LHARNESS152 = gh("ahwurm/localharness", "issues", 152)
AETHER1236 = gh("Science-Discovery/Aether", "issues", 1236)
K8S40496 = gh("kubernetes/kubernetes", "issues", 40496)
KUBECLIENT226 = gh("ManageIQ/kubeclient", "issues", 226)
UV16350 = gh("astral-sh/uv", "issues", 16350)
BBB21038 = gh("bigbluebutton/bigbluebutton", "pull", 21038)
CHIP73534 = gh("project-chip/connectedhomeip", "pull", 73534)
ES63946 = gh("elastic/elasticsearch", "pull", 63946)
ARCADE9315 = gh("dotnet/arcade", "issues", 9315)
HAACKED131 = gh("haacked/dotfiles", "pull", 131)
AGGRID14667 = gh("ag-grid/ag-grid", "pull", 14667)
BCRUNNER2649 = gh("StefanMaron/BusinessCentral.AL.Runner", "issues", 2649)
XDLC3 = gh("xdlc-labs/xdlc-agent", "issues", 3)
ROCM9173 = gh("ROCm/rocm-libraries", "issues", 9173)
KUBEAGENTS1366 = gh("gke-labs/kube-agents", "pull", 1366)
CLAUDETTE27 = gh("mrdushidush/claudette", "issues", 27)
SUREFIRE221 = gh("apache/maven-surefire", "pull", 221)
BENXHUB = {"url": "https://benxhub.com/es/blog/cursor/cli/07-unlimit-loop-debug"}


def _holmes22(data: Any, invocation: str, *, error: str | None = None) -> dict[str, Any]:
    """HolmesGPT's StructuredToolResult: status, data or error, the command it ran."""
    if error is not None:
        return {
            "status": "error",
            "error": error,
            "return_code": 1,
            "data": None,
            "invocation": invocation,
        }
    return {
        "status": "success",
        "error": None,
        "return_code": 0,
        "data": data,
        "invocation": invocation,
    }


def _shell22(output: str, exit_code: int) -> dict[str, Any]:
    """A completed shell call as Codex-style harnesses report it."""
    return {"status": "completed", "exitCode": exit_code, "output": output}


def _mem0_22(*hits: tuple[str, str, float]) -> dict[str, Any]:
    """mem0's search answer."""
    return {"results": [{"id": i, "memory": m, "score": s} for i, m, s in hits]}


# ---------------------------------------------------------------- fresh22 loops

t = new(
    "f22-homeops-11904-pods-after-compaction",
    "cycle",
    True,
    HOMEOPS11904,
    "HolmesGPT on qwen2.5:32b: after each history compaction TodoWrite re-affirms the same "
    "two-task plan and the same kubectl pod listing runs again; task 2 never starts.",
)
t.user(
    "List all pods in the cluster that are not Running or Ready, and for each one describe "
    "the most likely cause."
)
TODOS22 = {
    "todos": [
        {"id": "1", "content": "List pods not Running or not Ready", "status": "in_progress"},
        {"id": "2", "content": "Describe the likely cause for each pod", "status": "pending"},
    ]
}
TODO_OK22 = _holmes22("Todo list updated: 2 tasks (1 in_progress, 1 pending)", "TodoWrite")
PODS22 = _holmes22(
    "NAMESPACE     NAME                          READY  STATUS             RESTARTS  AGE\n"
    "media         jellyfin-5d8f9c7b6-2xkqp      0/1    CrashLoopBackOff   41        3h\n"
    "observability loki-write-1                  0/1    Pending            0         52m\n"
    "home          zigbee2mqtt-7c9d4f5b8-wq7ld   0/1    ImagePullBackOff   0         19m\n"
    "default       backup-job-29145-h2l9s        0/1    Error              0         6h\n"
    "... (212 more Running pods omitted)",
    "kubectl get pods -A -o wide",
)
LIST22 = {"kind": "pod", "show_labels": False}
t.call("TodoWrite", TODOS22, TODO_OK22)
t.call("kubectl_get_by_kind_in_cluster", LIST22, PODS22)
t.call(
    "kubectl_describe",
    {"kind": "pod", "name": "jellyfin-5d8f9c7b6-2xkqp", "namespace": "media"},
    _holmes22(
        "State: Waiting (CrashLoopBackOff)\nLast State: Terminated (Error, exit 1)",
        "kubectl describe pod jellyfin-5d8f9c7b6-2xkqp -n media",
    ),
)
t.call(
    "kubectl_logs",
    {"pod_name": "jellyfin-5d8f9c7b6-2xkqp", "namespace": "media"},
    _holmes22(
        "[FTL] Error opening database: /config/data/library.db: disk I/O error",
        "kubectl logs jellyfin-5d8f9c7b6-2xkqp -n media",
    ),
)
occ = repeat_block(
    t,
    [
        {"tool": "TodoWrite", "args": TODOS22, "result": TODO_OK22},
        {"tool": "kubectl_get_by_kind_in_cluster", "args": LIST22, "result": PODS22},
    ],
    4,
)
# The same two-call unit first ran at steps 1-2 (before the per-pod reads): by the README's
# rule it has fully happened twice at the end of the first repeated block.
t.mark(occ[0][0], occ[0][1], period=2)

t = new(
    "f22-holmes-2433-narration-loop",
    "monologue",
    True,
    HOLMES2433,
    "The pull request's first failure: on a long investigation Holmes narrates the same "
    "intention again and again ('Let me examine the API', 'I will now search the API') with "
    "no tool call until max_steps runs out.",
)
t.user("Why are checkout requests returning 502 since this morning?")
t.call(
    "kubectl_get_by_kind_in_namespace",
    {"kind": "pod", "namespace": "shop"},
    _holmes22(
        "checkout-7f9c6d-x2x8q  1/1 Running 0 5h\ngateway-5b7d9-qq1lm  1/1 Running 2 5h",
        "kubectl get pods -n shop",
    ),
)
t.msg("Let me examine the API to see where the 502s come from.")
m2 = t.msg("I will now search the API for the failing route.")
t.msg("Let me look at the API...")
t.msg("Let me examine the API endpoints to see where the 502s come from.")
t.msg("I will now search the API.")
t.msg("Let me look at the API to find the failing route.")
t.mark(m2, m2)

t = new(
    "f22-holmes-2433-limit-creep",
    "no_progress",
    True,
    HOLMES2433,
    "The pull request's 'parameter that varies slightly (limit: 100 -> 101)': the same Loki "
    "query re-issued with the limit one higher each time, the same 37 lines back.",
)
t.user("Find the error that started the gateway restarts")
LOKI22 = _holmes22(
    "37 lines\n2026-08-30T06:02:11Z gateway upstream connect error or disconnect/reset before "
    "headers. reset reason: connection termination\n... (36 more alike)",
    'logcli query \'{app="gateway"} |= "error"\'',
)
cs = [
    t.call(
        "fetch_loki_logs",
        {"query": '{app="gateway"} |= "error"', "start": "-6h", "limit": n},
        LOKI22,
    )
    for n in range(100, 106)
]
t.mark(cs[1], cs[1])

t = new(
    "f22-holmes-2433-alternating-describe-logs",
    "cycle",
    True,
    HOLMES2433,
    "The pull request's 'two tool calls alternating forever (A, B, A, B, ...)': describe the "
    "deployment, read the pod's logs, describe again, read again, the same answers.",
)
t.user("The checkout deployment is degraded, find out why")
DESC22 = _holmes22(
    "Replicas: 3 desired | 3 updated | 3 total | 2 available | 1 unavailable\n"
    "Conditions: Available False MinimumReplicasUnavailable",
    "kubectl describe deployment checkout -n shop",
)
LOGS22 = _holmes22(
    "2026-08-30T07:14:03Z WARN pool exhausted, waiting for connection (max=10)",
    "kubectl logs checkout-7f9c6d-x2x8q -n shop",
)
occ = repeat_block(
    t,
    [
        {
            "tool": "kubectl_describe",
            "args": {"kind": "deployment", "name": "checkout", "namespace": "shop"},
            "result": DESC22,
        },
        {
            "tool": "kubectl_logs",
            "args": {"pod_name": "checkout-7f9c6d-x2x8q", "namespace": "shop"},
            "result": LOGS22,
        },
    ],
    4,
)
mark_cycle(t, occ)

t = new(
    "f22-holmes-2433-same-query-error",
    "error_loop",
    True,
    HOLMES2433,
    "The pull request's 'same tool call failing the same way, over and over': a PromQL query "
    "with an unclosed parenthesis, sent again unchanged after each parse error.",
)
t.user("Is the checkout error rate above the SLO?")
PROMQ22 = {
    "query": 'sum(rate(http_requests_total{job="checkout",code=~"5.."}[5m]) / '
    'sum(rate(http_requests_total{job="checkout"}[5m])',
    "start": "-1h",
    "step": "60s",
}
PERR22 = _holmes22(
    None,
    "promql range query",
    error='bad_data: invalid parameter "query": 1:98: parse error: unclosed left parenthesis',
)
cs = [t.call("execute_prometheus_range_query", PROMQ22, PERR22) for _ in range(5)]
t.mark(cs[1], cs[1])

t = new(
    "f22-kubectlai-406-triple-execution",
    "repeated_call",
    True,
    KAI406,
    "kubectl-ai 0.0.15 with gpt-4.1: asked to list the pods, the one requested tool call is "
    "executed again and again, the same listing each time.",
)
t.user("list my pods")
KGET22 = {"command": "kubectl get pods", "modifies_resource": "no"}
KOUT22 = (
    "NAME                     READY   STATUS    RESTARTS   AGE\n"
    "web-6d4cf56db6-8kqzv     1/1     Running   0          2d\n"
    "worker-5f7b9c8d4-lm2xw   1/1     Running   1          2d"
)
occ = repeat_block(t, [{"tool": "kubectl", "args": KGET22, "result": KOUT22}], 4)
t.msg("You have two pods, web and worker, both Running.")
mark_cycle(t, occ)

t = new(
    "f22-hermes-93485-mem0-irrelevant",
    "no_progress",
    True,
    HERMES93485,
    "mem0_search returns the same unrelated record (a biotech stock sharing one character "
    "with 'gold'); the agent rewords and searches again, ten times, through the user's "
    "three requests to stop searching memory.",
)
t.user("What are the main reasons for the recent gold price rally?")
JINHE22 = _mem0_22(
    ("m_7731", "User holds Jinhe Bio-Engineering (002688) in the long-term account", 0.41),
    ("m_7730", "User asked about 002688's Q2 report on 2026-07-30", 0.27),
)
qs = [
    "gold price rally reasons",
    "recent gold price increase causes",
    "金价 上涨 原因",
    "why is gold going up",
    "user gold investment",
    "gold rally drivers 2026",
    "金 价格",
    "precious metals rally",
    "gold price news",
    "user interest gold",
]
cs = []
for k, q in enumerate(qs):
    cs.append(t.call("mem0_search", {"query": q, "top_k": 5}, JINHE22))
    if k == 3:
        t.user("no need to search memory, just answer")
    if k == 6:
        t.user("stop searching memory please")
t.mark(cs[1], cs[1])

t = new(
    "f22-hermes-112920-recall-variants",
    "no_progress",
    True,
    HERMES112920,
    "A recall loop in memory context retrieval: query variants of one question sent to the "
    "Mnemosyne recall tool, each answered with no memories; the thread notes none of the "
    "loop detectors tripped because the variants differ and the calls succeed.",
)
t.user("Deploy the API at my usual time")
EMPTY22 = {"memories": [], "count": 0, "query_ms": 12}
qs = [
    "user's preferred deploy window",
    "deploy window preference",
    "when does the user like to deploy",
    "deployment time preference",
    "preferred release time",
    "user deploy schedule",
]
cs = [t.call("mnemosyne_recall", {"query": q, "limit": 8}, EMPTY22) for q in qs]
t.mark(cs[1], cs[1])

t = new(
    "f22-paseo-1824-lint-150-times",
    "error_loop",
    True,
    PASEO1824,
    "A subagent repeats the same failing `rtk lint` about 150 times over 29 minutes; each "
    "shell call completes with a non-zero exit code, only the timing line moves.",
)
t.user("Make the lint pass in packages/app")
lints = [
    t.call(
        "exec_command",
        {"cmd": "rtk lint", "workdir": "packages/app"},
        _shell22(
            "rtk: 3 problems (3 errors)\n  src/app.ts:14:7  error  'cfg' is unused  "
            "no-unused-vars\n  src/app.ts:22:1  error  missing return type\n"
            "  src/io.ts:9:3  error  no-floating-promises\n"
            f"Finished in {2.1 + k * 0.07:.2f}s",
            1,
        ),
    )
    for k in range(8)
]
t.mark(lints[1], lints[1])

t = new(
    "f22-qwenpaw-6116-edit-already-applied",
    "error_loop",
    True,
    QPAW6116,
    "The first edit_file to AGENTS.md succeeds; the agent repeats the identical edit six "
    "more times, each 'The text to replace was not found', until the doom-loop check trips.",
)
t.user("Add a rule to AGENTS.md: never push to main directly")
EDIT22 = {
    "file_path": "AGENTS.md",
    "old_text": "- Push to main when ready.\n",
    "new_text": "- Never push to main directly; open a pull request.\n",
}
t.call(
    "read_file",
    {"file_path": "AGENTS.md"},
    "# Rules\n- Run tests first.\n- Push to main when ready.\n",
)
t.call("edit_file", EDIT22, "Successfully replaced 1 occurrence in AGENTS.md", mutates=True)
cs = [
    t.call(
        "edit_file",
        EDIT22,
        error="Error: The text to replace was not found in AGENTS.md",
        kind="not_found",
    )
    for _ in range(6)
]
t.mark(cs[1], cs[1])

t = new(
    "f22-qwenpaw-6116-write-repeated",
    "repeated_call",
    True,
    QPAW6116,
    "The second reproduction: one memory file written with identical content ten times, "
    "'Wrote 812 bytes' each time, so an error-only doom-loop check never fires.",
)
t.user("Remember that the staging database moved to db-stg-2")
NOTE22 = {
    "file_path": "memory/2026-08-07.md",
    "content": "# 2026-08-07\n- Staging database moved to db-stg-2 (was db-stg-1).\n",
}
occ = repeat_block(
    t,
    [
        {
            "tool": "write_file",
            "args": NOTE22,
            "result": "Wrote 812 bytes to memory/2026-08-07.md",
            "mutates": True,
        }
    ],
    10,
)
mark_cycle(t, occ)

t = new(
    "f22-trae-274-str-replace-not-verbatim",
    "error_loop",
    True,
    TRAE274,
    "trae-agent's edit tool reports that old_str did not appear verbatim; at steps 51, 52 "
    "and on, the agent sends the exact same str_replace, each result with a new call id.",
)
t.user("Fix solve() in /testbed/solution.py so it handles negative n")
t.call(
    "str_replace_based_edit_tool",
    {"command": "view", "path": "/testbed/solution.py"},
    {
        "call_id": "call_Qx81",
        "name": "str_replace_based_edit_tool",
        "success": True,
        "result": "     1\tdef solve(n):\n     2\t    return n * 2\n",
        "error": None,
    },
)
SR22 = {
    "command": "str_replace",
    "path": "/testbed/solution.py",
    "old_str": "def solve(n):\n    return n*2",
    "new_str": "def solve(n):\n    return abs(n) * 2",
}
ids22 = ["call_Tb02", "call_9uVw", "call_mK4z", "call_Zr7P", "call_e3Lq"]
cs = [
    t.call(
        "str_replace_based_edit_tool",
        SR22,
        {
            "call_id": cid,
            "name": "str_replace_based_edit_tool",
            "success": False,
            "result": None,
            "error": "No replacement was performed, old_str `def solve(n):\n    return n*2` "
            "did not appear verbatim in /testbed/solution.py.",
        },
    )
    for cid in ids22
]
t.mark(cs[1], cs[1])

t = new(
    "f22-ailice-11-subagent-ls",
    "repeated_call",
    True,
    AILICE11,
    "AIlice forwards 'list all files' to a coder-proxy sub-agent, which runs ls, gets the "
    "listing, and instead of passing it up runs ls again and again.",
)
t.user("List all files in the current dir")
t.call(
    "CALL",
    {
        "agentType": "coder-proxy",
        "agentName": "file_system_agent",
        "msg": "List all files in the current dir.",
    },
    "Agent file_system_agent created.",
)
LSO22 = (
    "ailice\nailice.egg-info\nAIlice.png\nDockerfile\nIACT.jpg\nLICENSE\nlog\nREADME.md\n"
    "setup.py\nvenv\n\nExecution completed.\n"
)
occ = repeat_block(t, [{"tool": "BASH", "args": {"code": "ls"}, "result": LSO22}], 5)
mark_cycle(t, occ)

t = new(
    "f22-oh-872-mkdir-first-step",
    "error_loop",
    True,
    OH872,
    "OpenDevin with a small model loops on the first step of its plan: mkdir new-project, "
    "which fails with 'File exists' from the second time on.",
)
t.user("Create a new project with a hello-world Flask app")
t.call(
    "execute_bash", {"command": "mkdir new-project"}, {"content": "", "exit_code": 0}, mutates=True
)
cs = [
    t.call(
        "execute_bash",
        {"command": "mkdir new-project"},
        {
            "content": "mkdir: cannot create directory 'new-project': File exists",
            "exit_code": 1,
        },
    )
    for _ in range(5)
]
t.mark(cs[1], cs[1])

t = new(
    "f22-tf-28693-stale-plan-next-session",
    "known_failure",
    True,
    TF28693,
    "A saved plan applied a second time is 'stale' (and leaves the lock); the next session, "
    "nothing re-planned, the agent applies the same plan file again.",
)
t.user("Apply the reviewed plan for the null resource")
t.call(
    "bash",
    {"command": "terraform plan -out plan.tfplan"},
    "Plan: 1 to add, 0 to change, 0 to destroy.\n\nSaved the plan to: plan.tfplan",
)
t.call(
    "bash",
    {"command": "terraform apply plan.tfplan"},
    "null_resource.test_unlock: Creating...\nApply complete! Resources: 1 added, 0 changed, 0 "
    "destroyed.",
    mutates=True,
)
APPLY22 = {"command": "terraform apply plan.tfplan"}
STALE22 = (
    "Error: Saved plan is stale\n\nThe given plan file can no longer be applied because the "
    "state was changed by another operation after the plan was created."
)
t.call("bash", APPLY22, error=STALE22, kind="exit_code")
t.msg("The apply succeeded; re-applying the same plan file is rejected as stale.")
t.session("s2")
u = t.user("Make sure plan.tfplan is applied")
c = t.call("bash", APPLY22, error=STALE22, kind="exit_code")
t.mark(c, u)

t = new(
    "f22-aro-5487-grep-not-allowed-next-session",
    "known_failure",
    True,
    ARO5487,
    "The review's allowlist mismatch: the bash toolset allows only egrep, so the skill's "
    "`| grep` pipeline is refused; the next session, the config unchanged, Holmes runs it "
    "again.",
)
t.user("Investigate errors in clusters-service over the last hour")
GREP22 = {"command": "kubectl logs -n hcp deploy/clusters-service --since=1h | grep -i error"}
GERR22 = _holmes22(
    None,
    GREP22["command"],
    error="Command rejected: 'grep' is not in the bash toolset allowlist "
    "(builtin_allowlist: extended; allowed: kubectl get, kubectl describe, kubectl logs, "
    "kubectl top, egrep)",
)
t.call("run_bash_command", GREP22, GERR22)
t.msg("The bash toolset refused grep, so I could not filter the logs.")
t.session("s2")
u = t.user("Look at the clusters-service errors again")
c = t.call("run_bash_command", GREP22, GERR22)
t.mark(c, u)

t = new(
    "f22-tf-17666-bucket-already-owned",
    "error_loop",
    True,
    TF17666,
    "The first apply created the bucket but the state came out empty; every further apply, "
    "the configuration unchanged, fails with BucketAlreadyOwnedByYou.",
)
t.user("Deploy the lambda package with terraform")
TFA22 = {
    "command": 'terraform apply -auto-approve -var "packagePath=build/app.zip" '
    '-var "packageName=app"'
}
BERR22 = (
    "Error: Error creating S3 bucket: BucketAlreadyOwnedByYou: Your previous request to create "
    "the named bucket succeeded and you already own it.\n\tstatus code: 409\n\n"
    '  on main.tf line 12, in resource "aws_s3_bucket" "package":'
)
cs = [t.call("bash", TFA22, error=BERR22, kind="exit_code") for _ in range(4)]
t.mark(cs[1], cs[1])

t = new(
    "f22-kubevela-60-lock-held-by-dead-pod",
    "error_loop",
    True,
    KVELA60,
    "A failed apply retried too fast: the state stays locked by the apply pod that died "
    "(the same lock ID, the same owner), and each immediate retry fails the same way.",
)
t.user("Re-run the alibaba-cs-ack apply")
TFL22 = {"command": "terraform apply -auto-approve -input=false"}
LOCK22 = (
    "Error: Error acquiring the state lock\n\nError message: the state is already locked by "
    "another terraform client\nLock Info:\n  ID:        545e1e3c-a3c5-bcfd-abd5-a4a81a5fd51d\n"
    "  Operation: OperationTypeApply\n  Who:       root@alibaba-cs-ack-apply-qtpck\n"
    "  Version:   1.0.2\n  Created:   2021-07-13 12:50:09.335850704 +0000 UTC"
)
cs = [t.call("bash", TFL22, error=LOCK22, kind="exit_code") for _ in range(6)]
t.mark(cs[1], cs[1])

t = new(
    "f22-taxy-10-star-unstar",
    "cycle",
    True,
    TAXY10,
    "Asked to star the repository, the browser agent clicks Star, then clicks the same "
    "button (now Unstar), then Star again: star, unstar, star, unstar.",
)
t.user("star the current repository")
STAR22 = "Clicked element 412. Button now reads 'Unstar' (Starred 1,204)."
UNSTAR22 = "Clicked element 412. Button now reads 'Star' (1,203)."
occ = repeat_block(
    t,
    [
        {"tool": "click", "args": {"elementId": 412}, "result": STAR22},
        {"tool": "click", "args": {"elementId": 412}, "result": UNSTAR22},
    ],
    3,
)
mark_cycle(t, occ)

t = new(
    "f22-opencode-42044-gradle-keeps-thinking",
    "monologue",
    True,
    OC42044,
    "The Gradle build succeeds and every task is done, but the agent keeps going, restating "
    "that the build succeeded, until stopped by hand.",
)
t.user("Build the Android app and fix the deprecation warnings")
t.call(
    "edit",
    {
        "filePath": "app/build.gradle.kts",
        "oldString": "compileSdk = 33",
        "newString": "compileSdk = 34",
    },
    "Edit applied successfully.",
    mutates=True,
)
t.call(
    "bash",
    {"command": "./gradlew assembleDebug --warning-mode all"},
    "> Task :app:assembleDebug\n\nBUILD SUCCESSFUL in 41s\n38 actionable tasks: 12 executed, 26 "
    "up-to-date",
)
t.msg("BUILD SUCCESSFUL. All tasks are done and the deprecation warnings are gone.")
m2 = t.msg("The build is successful and all the tasks have been completed.")
t.msg("Build succeeded; all tasks are complete and no deprecation warnings remain.")
t.msg("All tasks done. The Gradle build completed successfully.")
t.msg("The build passed and every task has been completed.")
t.mark(m2, m2)

t = new(
    "f22-localharness-152-gathering-news",
    "monologue",
    True,
    LHARNESS152,
    "A web-research delegation degenerates into one narration line ('Gathering the latest "
    "news…') repeated 265 times with zero tool calls, which the loop accepted as the answer.",
)
t.user("What's new in Rust 1.90? A short summary please.")
GATHER22 = "Gathering the latest news…"
t.msg(GATHER22)
m2 = t.msg(GATHER22)
for _ in range(8):
    t.msg(GATHER22)
t.mark(m2, m2)

t = new(
    "f22-aether-1236-unavailable-tool",
    "error_loop",
    True,
    AETHER1236,
    "Past its step limit the model keeps calling a tool name it made up, with new arguments "
    "each time; every call fails as unavailable, and the loop steps on.",
)
t.user("Find where the session token is refreshed and explain it")
UNAV22 = (
    "Model tried to call unavailable tool 'search_codebase'. Available tools: read, edit, "
    "bash, glob, grep."
)
qs = [
    "refresh token",
    "session refresh",
    "token renewal logic",
    "refreshSession",
    "auth token expiry",
    "where is the token refreshed",
]
cs = [t.call("search_codebase", {"query": q}, error=UNAV22, kind="not_found") for q in qs]
t.mark(cs[1], cs[1])

t = new(
    "f22-k8s-40496-rollout-stuck-bad-image",
    "error_loop",
    True,
    K8S40496,
    "The pod template points at a bad image: `kubectl rollout status` times out at the same "
    "'1 out of 3 new replicas' every time, and the agent keeps waiting on it.",
)
t.user("Roll out api v2.3.1 and tell me when it's live")
t.call(
    "bash",
    {"command": "kubectl set image deployment/api api=registry.example.com/api:v2.3.l"},
    "deployment.apps/api image updated",
    mutates=True,
)
ROLL22 = {"command": "kubectl rollout status deployment/api --timeout=60s"}
RERR22 = (
    'Waiting for deployment "api" rollout to finish: 1 out of 3 new replicas have been '
    "updated...\nerror: timed out waiting for the condition"
)
cs = [t.call("bash", ROLL22, error=RERR22, kind="timeout") for _ in range(5)]
t.mark(cs[1], cs[2])

t = new(
    "f22-uv-16350-imagetools-429",
    "error_loop",
    True,
    UV16350,
    "The release's `docker buildx imagetools create` hits Docker Hub's pull rate limit; the "
    "agent re-runs it at once, again and again, the same 429 each time.",
)
t.user("Publish the 0.9.4 image annotations")
IMG22 = {
    "command": "docker buildx imagetools create -t astral/uv:0.9.4 -t astral/uv:latest "
    "astral/uv@sha256:000e0cdb4c17"
}
I429 = (
    "ERROR: httpReadSeeker: failed open: unexpected status from GET request to "
    "https://registry-1.docker.io/v2/astral/uv/manifests/sha256:000e0cdb4c17: 429 Too Many "
    "Requests\ntoomanyrequests: You have reached your pull rate limit."
)
cs = [t.call("bash", IMG22, error=I429, kind="rate_limit") for _ in range(6)]
t.mark(cs[1], cs[2])

t = new(
    "f22-haacked-131-flaky-rerun-forever",
    "cycle",
    True,
    HAACKED131,
    "What the pull request's bound prevents: failures classified as flaky are re-run without "
    "asking, the same test fails on each attempt (new job ids, new durations), and without "
    "MAX_FLAKY_RERUNS the re-runs never stop.",
)
t.user("/ci-monitor")
t.call(
    "bash",
    {"command": "gh pr checks 412"},
    "test (ubuntu-latest)\tfail\t4m12s\thttps://github.com/acme/app/actions/runs/8812/job/2231",
)
watch = []
for k in range(4):
    t.call(
        "bash",
        {"command": "gh run rerun 8812 --failed"},
        "✓ Requested rerun (failed jobs) of run 8812",
    )
    w = t.call(
        "bash",
        {"command": "gh run watch 8812 --exit-status"},
        error=(
            f"X main CI · 8812\nJOBS\nX test (ubuntu-latest) in 4m{11 + 3 * k}s (ID "
            f"{2240 + 9 * k})\n  X Run pytest\nANNOTATIONS\nX tests/test_sync.py::"
            "test_resume_after_disconnect - AssertionError: expected 3 events, got 2\n"
            "X Process completed with exit code 1."
        ),
        kind="exit_code",
    )
    watch.append(w)
t.mark(watch[1] - 1, watch[1], period=2)

t = new(
    "f22-claudette-27-rust-check-fix-loop",
    "cycle",
    True,
    CLAUDETTE27,
    "Claudette's Rust 'syntax check' is a full rustc compile outside cargo: a correct file "
    "that imports serde fails with E0432, the coder rewrites the same file, the same check "
    "fails again, for all three fix attempts.",
)
t.user("Generate src/report.rs: a Report struct that serialises to JSON")
SRC22 = (
    "use serde::Serialize;\n\n#[derive(Serialize)]\npub struct Report {\n    pub id: u64,\n"
    "    pub title: String,\n}\n"
)
RUSTC22 = {"command": "rustc --edition 2021 --crate-type lib --out-dir /tmp/codet src/report.rs"}
E0432 = (
    "error[E0432]: unresolved import `serde`\n --> src/report.rs:1:5\n  |\n1 | use "
    "serde::Serialize;\n"
    "  |     ^^^^^ use of undeclared crate or module `serde`\n\nerror: aborting due to 1 "
    "previous error"
)
t.call(
    "write_file",
    {"path": "src/report.rs", "content": SRC22},
    "wrote src/report.rs (118 bytes)",
    mutates=True,
)
a = t.call("bash", RUSTC22, error=E0432, kind="exit_code")
for _ in range(3):
    t.call(
        "write_file",
        {"path": "src/report.rs", "content": SRC22},
        "wrote src/report.rs (118 bytes)",
        mutates=True,
    )
    t.call("bash", RUSTC22, error=E0432, kind="exit_code")
# The unit (write the same file, the same failing check) first ran at steps 1-2.
t.mark(a + 1, a + 2, period=2)

# ---------------------------------------------------------------- fresh22 legitimate

t = new(
    "f22-kubeclient-226-rollout-progress",
    "polling",
    False,
    KUBECLIENT226,
    "A rollout followed as the issue prints it: 'Waiting for rollout to finish: N out of 10 "
    "new replicas have been updated...' checked between sleeps, the same count up to four "
    "times in a row while replicas come up, until it has rolled out.",
)
t.user("Roll out nginx 1.27 and wait until it's done")
t.call(
    "bash",
    {"command": "kubectl set image deployment/nginx-deployment nginx=nginx:1.27"},
    "deployment.apps/nginx-deployment image updated",
    mutates=True,
)
for n in [2, 2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 7, 8, 9]:
    t.call("bash", {"command": "sleep 10"}, "")
    t.call(
        "bash",
        {"command": "kubectl rollout status deployment/nginx-deployment --watch=false"},
        f"Waiting for rollout to finish: {n} out of 10 new replicas have been updated...",
    )
t.call("bash", {"command": "sleep 10"}, "")
t.call(
    "bash",
    {"command": "kubectl rollout status deployment/nginx-deployment --watch=false"},
    'deployment "nginx-deployment" successfully rolled out',
)
t.msg("nginx 1.27 is rolled out: 10/10 replicas updated.")

t = new(
    "f22-snap-491-apply-after-lock",
    "retry_transient",
    False,
    SNAP491,
    "Two nodes join at once and run the same plan; this one's apply finds the remote state "
    "locked by the other node's apply, waits, finds it still locked, waits, and applies.",
)
t.user("Join this node to the cluster")
TFJ22 = {"command": "terraform apply -auto-approve -var-file=join.tfvars"}
LOCKJ22 = (
    "Error: Error acquiring the state lock\n\nError message: state locked\nLock Info:\n"
    "  ID:        b7f1c2a0-5d3e-4c1e-9a8f-2e6d0c4b9a11\n  Operation: OperationTypeApply\n"
    "  Who:       ubuntu@node-2\n  Version:   1.5.7"
)
t.call("bash", TFJ22, error=LOCKJ22, kind="exit_code")
t.call("bash", {"command": "sleep 20"}, "")
t.call("bash", TFJ22, error=LOCKJ22, kind="exit_code")
t.call("bash", {"command": "sleep 20"}, "")
t.call(
    "bash",
    TFJ22,
    "openstack_compute_host.node3: Creating...\nApply complete! Resources: 4 added, 0 changed, 0 "
    "destroyed.",
    mutates=True,
)
t.msg("The node joined once node-2's apply released the state lock.")

t = new(
    "f22-scalekit-27-stale-lock-sessions",
    "session_memory",
    False,
    SCALEKIT27,
    "An interrupted run left a stale DynamoDB lock; the apply fails on it, on-call clears it "
    "by the runbook between sessions, and the next session's apply succeeds.",
)
t.user("Apply the infra change for the workshop environment")
TFW22 = {"command": "terraform apply -auto-approve"}
t.call(
    "bash",
    TFW22,
    error=(
        "Error: Error acquiring the state lock\n\nError message: ConditionalCheckFailedException\n"
        "Lock Info:\n  ID:        0d9e4a7c-1b2f-4e5a-8c3d-6f7a8b9c0d1e\n"
        "  Who:       ci@runner-17\n  Created:   2026-09-05 07:41:02 +0000 UTC"
    ),
    kind="exit_code",
)
t.msg("The state is held by a stale lock from an interrupted run; it needs clearing first.")
t.workspace("on-call checked and cleared the stale lock (terraform force-unlock, per runbook)")
t.session("s2")
t.user("The lock is cleared, apply again")
t.call(
    "bash",
    TFW22,
    "aws_iam_role.workshop: Modifying...\nApply complete! Resources: 0 added, 2 changed, 0 "
    "destroyed.",
    mutates=True,
)

t = new(
    "f22-chip-73534-docker-build-retry",
    "retry_transient",
    False,
    CHIP73534,
    "An image build whose SDK download breaks mid-transfer, then hits a 521 from the vendor "
    "server; retried after 15 and 30 seconds it builds from the cached layers.",
)
t.user("Rebuild the telink build image")
DB22 = {
    "command": "docker build -t ghcr.io/project-chip/chip-build-telink:latest "
    "integrations/docker/images/stage-2/chip-build-telink"
}
t.call(
    "bash",
    DB22,
    error=(
        '#9 ERROR: process "/bin/sh -c west update" did not complete: ChunkedEncodingError: '
        "Connection broken: IncompleteRead(1080877 bytes read, 1548409 more expected)"
    ),
    kind="network",
)
t.call("bash", {"command": "sleep 15"}, "")
t.call(
    "bash",
    DB22,
    error="#9 ERROR: HTTP error occurred: 521 Server Error for url: "
    "https://artifacts.example-vendor.net/objects/batch",
    kind="server_error",
)
t.call("bash", {"command": "sleep 30"}, "")
t.call(
    "bash",
    DB22,
    "#9 CACHED\n#12 exporting to image\n#12 naming to "
    "ghcr.io/project-chip/chip-build-telink:latest done",
)
t.msg("The telink image is rebuilt (two transient download failures on the way).")

t = new(
    "f22-bbb-21038-pull-after-wait",
    "retry_transient",
    False,
    BBB21038,
    "The pull request's fix: a pull that hits Docker Hub's rate limit is retried after five "
    "minutes, up to five times; here the third attempt gets through.",
)
t.user("Generate the test artifacts")
PULL22 = {"command": "docker pull bigbluebutton/bbb-ci-build:focal-300"}
P429 = (
    "Error response from daemon: toomanyrequests: You have reached your pull rate limit. You "
    "may increase the limit by authenticating and upgrading"
)
t.call("bash", PULL22, error=P429, kind="rate_limit")
t.call("bash", {"command": "sleep 300"}, "")
t.call("bash", PULL22, error=P429, kind="rate_limit")
t.call("bash", {"command": "sleep 300"}, "")
t.call(
    "bash",
    PULL22,
    "focal-300: Pulling from bigbluebutton/bbb-ci-build\nStatus: Downloaded newer image",
)
t.call(
    "bash", {"command": "./build/setup.sh artifacts"}, "artifacts written to ./artifacts (14 files)"
)

t = new(
    "f22-aggrid-14667-ci-rerun-green",
    "retry_transient",
    False,
    AGGRID14667,
    "A first-attempt CI failure re-runs its own failed jobs instead of dispatching an agent "
    "round; attempt 2 is green with no new commit.",
)
t.user("CI failed on AG-17967, check whether it's a flake")
t.call(
    "bash",
    {"command": "gh run view 30459957173 --json attempt,conclusion,headSha"},
    {"attempt": 1, "conclusion": "failure", "headSha": "9c1e0f4"},
)
t.call(
    "bash",
    {"command": "gh run rerun 30459957173 --failed"},
    "✓ Requested rerun (failed jobs) of run 30459957173",
)
t.call(
    "bash",
    {"command": "gh run watch 30459957173 --exit-status"},
    "✓ main CI · 30459957173\nJOBS\n✓ e2e (chromium) in 11m02s (ID 88711)\nRun 30459957173 "
    "completed with 'success'",
)
t.call(
    "bash",
    {"command": "gh run view 30459957173 --json attempt,conclusion,headSha"},
    {"attempt": 2, "conclusion": "success", "headSha": "9c1e0f4"},
)
t.msg("It was a flake: attempt 2 passed on the same commit, no fix needed.")

t = new(
    "f22-bcrunner-2649-one-leg-rerun",
    "distinct_reads",
    False,
    BCRUNNER2649,
    "One test class fails on the BC 27.3 leg only, green on the other seven: the agent reads "
    "each leg, saves the failing log, re-runs that one job and it passes.",
)
t.user("PR 2625: check CI and tell me whether the failure is ours")
legs = ["26.0", "26.1", "26.2", "26.3", "27.0", "27.1", "27.2", "27.3"]
for k, leg in enumerate(legs):
    if leg == "27.3":
        res = (
            f"X test (BC {leg}) in 9m41s (ID {5100 + k})\n  X WatchFullRebuildReasonTests."
            "ReasonIsReported - Expected 'source changed' but was ''"
        )
    else:
        res = f"✓ test (BC {leg}) in {8 + k % 3}m{10 + 7 * k}s (ID {5100 + k})"
    t.call("bash", {"command": f"gh run view 1551 --job {5100 + k}"}, res)
t.call(
    "bash",
    {"command": "gh run view 1551 --job 5107 --log-failed > /tmp/bc273-attempt1.log"},
    "",
)
t.call(
    "bash", {"command": "gh run rerun 1551 --job 5107"}, "✓ Requested rerun of job 5107 on run 1551"
)
t.call(
    "bash",
    {"command": "gh run watch 1551 --exit-status"},
    "✓ test (BC 27.3) in 9m12s (ID 5123)\nRun 1551 completed with 'success'",
)
t.msg(
    "Not ours: WatchFullRebuildReasonTests failed on BC 27.3 only and passed on re-run; the "
    "first attempt's log is saved in /tmp/bc273-attempt1.log."
)

t = new(
    "f22-xdlc-3-rerun-and-wait",
    "polling",
    False,
    XDLC3,
    "RerunAndWait: the failed jobs are re-run and the run is polled between waits through "
    "queued and in_progress (three identical answers) to a green conclusion.",
)
t.user("CI on PR 77 is red; try the cheap rung first")
t.call("rerun_failed_jobs", {"repo": "acme/svc", "run_id": 4410}, {"ok": True, "run_attempt": 2})
for status in ["queued", "in_progress", "in_progress", "in_progress", "completed"]:
    t.call("wait", {"seconds": 30}, {"waited": 30})
    res: dict[str, Any] = {"id": 4410, "run_attempt": 2, "status": status, "conclusion": None}
    if status == "completed":
        res["conclusion"] = "success"
    t.call("get_workflow_run", {"repo": "acme/svc", "run_id": 4410}, res)
t.msg("The re-run went green; no fix agent needed.")

t = new(
    "f22-holmes-2048-batched-lookups",
    "distinct_reads",
    False,
    HOLMES2048,
    "The eval fixtures' tasks: which node each of five pods runs on (three on the same node), "
    "and image-pull failures counted per namespace, one dedicated query each.",
)
t.user(
    "Which node is each of the payment pods on, and how many pods fail to pull images per "
    "namespace?"
)
pods = [
    ("payments", "api-0", "worker-2"),
    ("payments", "api-1", "worker-2"),
    ("payments-jobs", "reconcile-7d9", "worker-4"),
    ("payments-jobs", "ledger-5c1", "worker-2"),
    ("payments-web", "ui-0", "worker-1"),
]
for ns, pod, node in pods:
    t.call(
        "kubectl_find_resource",
        {"kind": "pod", "keyword": pod, "namespace": ns},
        _holmes22(f"{ns}/{pod} nodeName={node}", f"kubectl get pod {pod} -n {ns} -o wide"),
    )
for ns, n in [("team-a", 3), ("team-b", 1), ("team-c", 2), ("team-d", 4)]:
    t.call(
        "kubernetes_count",
        {
            "kind": "pod",
            "namespace": ns,
            "jq_filter": '.status.containerStatuses[].state.waiting.reason == "ImagePullBackOff"',
        },
        _holmes22(f"{n}", f"kubectl get pods -n {ns} -o json | jq ..."),
    )
t.msg("api-0, api-1 and ledger-5c1 are on worker-2; team-d has the most image-pull failures (4).")

t = new(
    "f22-talos-1794-holmes-rca",
    "research",
    False,
    TALOS1794,
    "The investigation layer as the pull request describes it: Holmes answers 'why is this "
    "broken?' by iterating over kubectl, PromQL, LogQL and trace queries and citing them.",
)
t.user("Why is the immich server slow since yesterday?")
steps = [
    (
        "kubectl_get_by_kind_in_namespace",
        {"kind": "pod", "namespace": "immich"},
        "immich-server-0 1/1 Running 0 2d\nimmich-ml-0 1/1 Running 4 2d",
    ),
    (
        "execute_prometheus_range_query",
        {
            "query": 'rate(container_cpu_usage_seconds_total{namespace="immich"}[5m])',
            "start": "-24h",
        },
        "immich-ml-0 peaks at 3.8 cores (limit 4) from 18:00",
    ),
    (
        "execute_prometheus_range_query",
        {"query": 'container_memory_working_set_bytes{namespace="immich"}', "start": "-24h"},
        "immich-ml-0 at 7.6Gi of 8Gi; 4 OOM restarts",
    ),
    (
        "fetch_loki_logs",
        {"query": '{namespace="immich", pod="immich-ml-0"} |= "OOM"', "start": "-24h"},
        "4 lines: Killed process (python) total-vm:9.1G",
    ),
    (
        "fetch_loki_logs",
        {"query": '{namespace="immich", pod="immich-server-0"} |= "timeout"', "start": "-24h"},
        "212 lines: ML request timed out after 30000ms",
    ),
    (
        "fetch_tempo_traces",
        {"service": "immich-server", "min_duration": "5s", "start": "-24h"},
        "38 traces; 92% of time in POST immich-ml:3003/predict",
    ),
    (
        "kubectl_describe",
        {"kind": "node", "name": "talos-w2"},
        "Allocatable memory 16Gi; 15.1Gi requested",
    ),
    (
        "execute_prometheus_instant_query",
        {"query": 'kube_pod_container_resource_limits{pod="immich-ml-0",resource="memory"}'},
        "8589934592",
    ),
]
for tool, args, data in steps:
    t.call(tool, args, _holmes22(data, tool))
t.msg(
    "immich-ml is memory-bound: it is OOM-killed at its 8Gi limit during the nightly face "
    "detection job, and immich-server's requests to it time out (traces and logs cited)."
)

t = new(
    "f22-homeops-11904-expected-per-pod",
    "distinct_reads",
    False,
    HOMEOPS11904,
    "What the reporter expected from the same question: list once, then per failing pod "
    "describe, events and logs (several pods with the same back-off event), then a summary.",
)
t.user(
    "List all pods in the cluster that are not Running or Ready, and for each one describe "
    "the most likely cause."
)
t.call("kubectl_get_by_kind_in_cluster", {"kind": "pod", "show_labels": False}, PODS22)
for ns, pod, ev, log in [
    (
        "media",
        "jellyfin-5d8f9c7b6-2xkqp",
        "Back-off restarting failed container",
        "disk I/O error on library.db",
    ),
    (
        "observability",
        "loki-write-1",
        "0/5 nodes available: pod has unbound immediate PersistentVolumeClaims",
        "(no logs: not started)",
    ),
    (
        "home",
        "zigbee2mqtt-7c9d4f5b8-wq7ld",
        "Failed to pull image koenkk/zigbee2mqtt:1.40.9: not found",
        "(no logs: not started)",
    ),
    (
        "default",
        "backup-job-29145-h2l9s",
        "Back-off restarting failed container",
        "restic: repository is already locked",
    ),
]:
    t.call(
        "kubectl_describe",
        {"kind": "pod", "name": pod, "namespace": ns},
        _holmes22(f"Pod {pod}: not Ready", f"kubectl describe pod {pod} -n {ns}"),
    )
    t.call(
        "kubectl_events",
        {"resource_type": "pod", "resource_name": pod, "namespace": ns},
        _holmes22(ev, f"kubectl events -n {ns} --for pod/{pod}"),
    )
    t.call(
        "kubectl_logs",
        {"pod_name": pod, "namespace": ns},
        _holmes22(log, f"kubectl logs {pod} -n {ns}"),
    )
t.msg(
    "Four pods: jellyfin (database disk I/O errors), loki-write-1 (unbound PVC), zigbee2mqtt "
    "(image tag does not exist), backup-job (restic repository locked)."
)

t = new(
    "f22-libravdb-286-search-per-question",
    "conversation",
    False,
    LIBRAVDB286,
    "The pull request's rule: one memory_search per user question, duplicates only blocked "
    "within a turn. Five questions, two about the same person answered from the same record.",
)
turns = [
    ("When is Ana's birthday?", "Ana birthday", [("mem_31", "Ana's birthday is 14 March", 0.91)]),
    (
        "What did we decide about the Lisbon trip?",
        "Lisbon trip decision",
        [("mem_58", "Lisbon trip moved to October", 0.88)],
    ),
    (
        "And what did I want to get Ana?",
        "gift for Ana",
        [
            ("mem_31", "Ana's birthday is 14 March", 0.72),
            ("mem_33", "Ana wants a film camera", 0.83),
        ],
    ),
    (
        "Which dentist did I book?",
        "dentist appointment",
        [("mem_70", "Dentist: Dr. Silva, 2 Oct 09:30", 0.9)],
    ),
    (
        "Remind me what Ana's birthday date was",
        "Ana birthday date",
        [("mem_31", "Ana's birthday is 14 March", 0.93)],
    ),
]
for q, query, hits in turns:
    t.user(q)
    t.call("memory_search", {"query": query, "limit": 5}, _mem0_22(*hits))
    t.msg(f"From memory: {hits[-1][1]}.")

t = new(
    "f22-hermes-93504-mem0-multihop",
    "research",
    False,
    HERMES93504,
    "Where the guidance's 'run several searches with different wording' is right: a "
    "multi-hop question whose searches each return relevant, different records.",
)
t.user("Which city did my sister move to, and what's the weather there right now?")
t.call(
    "mem0_search",
    {"query": "sister moved to city", "top_k": 5},
    _mem0_22(("m_12", "User's sister Lea moved in March", 0.64)),
)
t.call(
    "mem0_search",
    {"query": "Lea new city", "top_k": 5},
    _mem0_22(
        ("m_13", "Lea lives in Porto now", 0.89), ("m_12", "User's sister Lea moved in March", 0.6)
    ),
)
t.call(
    "mem0_search",
    {"query": "Lea Porto address neighbourhood", "top_k": 5},
    _mem0_22(("m_19", "Lea's flat is in Bonfim, Porto", 0.81)),
)
t.call(
    "get_weather", {"city": "Porto"}, {"city": "Porto", "temp_c": 19, "conditions": "light rain"}
)
t.msg("Your sister Lea moved to Porto (Bonfim) in March; it's 19°C with light rain there now.")

t = new(
    "f22-benxhub-go-test-fix-loop",
    "edit_test_cycle",
    False,
    BENXHUB,
    "The page's debug loop for Go: run `go test ./...`, feed the failure to the agent, it "
    "edits, run again; one edit leaves the same failure, the next one fixes it.",
)
t.user("Tests failed with the following errors. Please fix the code to make the tests pass.")
GT22 = {"command": "go test ./..."}
t.call(
    "bash",
    GT22,
    error=(
        "--- FAIL: TestParseDuration (0.00s)\n--- FAIL: TestParseEmpty (0.00s)\n--- FAIL: "
        "TestParseUnits (0.00s)\nFAIL\tgithub.com/acme/dur\t0.004s"
    ),
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "parse.go", "old": 'strings.Split(s, " ")', "new": "strings.Fields(s)"},
    "ok",
    mutates=True,
)
t.call(
    "bash",
    GT22,
    error="--- FAIL: TestParseUnits (0.00s)\n    parse_test.go:41: got 90s, want "
    "1m30s\nFAIL\tgithub.com/acme/dur\t0.003s",
    kind="exit_code",
)
t.call(
    "edit",
    {
        "path": "format.go",
        "old": 'return fmt.Sprintf("%ds", secs)',
        "new": "return time.Duration(secs * int64(time.Second)).String()",
    },
    "ok",
    mutates=True,
)
t.call(
    "bash",
    GT22,
    error="--- FAIL: TestParseUnits (0.00s)\n    parse_test.go:41: got 90s, want "
    "1m30s\nFAIL\tgithub.com/acme/dur\t0.003s",
    kind="exit_code",
)
t.call("read", {"path": "parse_test.go"}, '// line 41: want := Format(Parse("1m 30s"))')
t.call(
    "edit",
    {
        "path": "parse.go",
        "old": "return Duration(total)",
        "new": "return Duration(total).Normalize()",
    },
    "ok",
    mutates=True,
)
t.call("bash", GT22, "ok  \tgithub.com/acme/dur\t0.004s")
t.msg("All tests pass.")

t = new(
    "f22-claudette-27-cargo-check-fixed",
    "edit_test_cycle",
    False,
    CLAUDETTE27,
    "The issue's fix applied: the file is checked in its crate with `cargo check`, so each "
    "run reports what the last edit left, and the errors change until it builds.",
)
t.user("Generate src/report.rs: a Report struct that serialises to JSON")
CC22 = {"command": "cargo check --quiet"}
t.call(
    "write_file",
    {"path": "src/report.rs", "content": SRC22},
    "wrote src/report.rs (118 bytes)",
    mutates=True,
)
t.call(
    "bash",
    CC22,
    error="error[E0432]: unresolved import `serde`\n --> src/report.rs:1:5\nhelp: add `serde` to "
    "Cargo.toml",
    kind="exit_code",
)
t.call(
    "bash",
    {"command": "cargo add serde --features derive"},
    "    Adding serde v1.0.219 to dependencies\n             Features: + derive",
    mutates=True,
)
t.call(
    "bash",
    CC22,
    error="error[E0583]: file not found for module `reprot`\n --> src/lib.rs:3:1",
    kind="exit_code",
)
t.call(
    "edit",
    {"path": "src/lib.rs", "old": "mod reprot;", "new": "pub mod report;"},
    "ok",
    mutates=True,
)
t.call("bash", CC22, "")
t.call(
    "bash",
    {"command": "cargo test --quiet"},
    "running 3 tests\n...\ntest result: ok. 3 passed; 0 failed",
)

t = new(
    "f22-surefire-221-until-failure",
    "polling",
    False,
    SUREFIRE221,
    "The pull request's use case: a test that fails at random in CI, run again and again "
    "until it fails (the same command, the same passing line but for the timing), as the "
    "user asked.",
)
t.user(
    "UntilFailureLoopCountTest fails randomly in CI. Run it up to 10 times until it fails "
    "and show me the failing output."
)
MVN22 = {"command": "mvn -q test -Dtest=UntilFailureLoopCountTest"}
for k in range(6):
    t.call(
        "bash",
        MVN22,
        f"[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.0{31 + k} s "
        "- in com.acme.maven.surefire.untilfailure.UntilFailureLoopCountTest",
    )
t.call(
    "bash",
    MVN22,
    error=(
        "[ERROR] Tests run: 1, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.041 s <<< "
        "FAILURE!\n[ERROR] testRandom  Time elapsed: 0.012 s  <<< FAILURE!\n"
        "java.lang.AssertionError: random value 7 >= 5"
    ),
    kind="exit_code",
)
t.msg("It failed on run 7 of 10: testRandom asserts a random value below 5 (got 7).")

t = new(
    "f22-dflook-71-replan-after-flake",
    "retry_transient",
    False,
    DFLOOK71,
    "The maintainer's point: after a flaky provider failure the plan must be made again (it "
    "is most likely different), then applied; the second apply goes through.",
)
t.user("Apply the approved change to the EKS node group")
t.call(
    "bash",
    {"command": "terraform apply tfplan"},
    error=(
        "Error: waiting for EKS Node Group (prod:ng-2) update: RequestError: send request "
        "failed\ncaused by: read tcp 10.0.3.7:51324->52.94.1.20:443: read: connection reset by peer"
    ),
    kind="network",
)
t.call(
    "bash",
    {"command": "terraform plan -out tfplan"},
    "~ aws_eks_node_group.ng2 will be updated in-place\nPlan: 0 to add, 1 to change, 0 to destroy.",
)
t.call(
    "bash",
    {"command": "terraform apply tfplan"},
    "aws_eks_node_group.ng2: Modifications complete after 6m12s\nApply complete! Resources: 0 "
    "added, 1 changed, 0 destroyed.",
    mutates=True,
)

t = new(
    "f22-arcade-9315-docker-login-sessions",
    "session_memory",
    False,
    ARCADE9315,
    "A Known Build Error: anonymous pulls hit 'toomanyrequests'; between sessions the build "
    "is switched to authenticated pulls, and the same pull then works.",
)
t.user("Build the rpm installer packages")
RUN22 = {"command": "docker run --rm -v $PWD:/src mcr.example/centos-7-rpmpkg:latest make rpm"}
t.call(
    "bash",
    RUN22,
    error="docker: error pulling image configuration: toomanyrequests: Too many requests.",
    kind="rate_limit",
)
t.msg("The image pull is rate-limited for anonymous pulls.")
t.workspace("the user ran docker login with the build account (authenticated pulls)")
t.session("s2")
t.user("Logged in now, try the rpm build again")
t.call(
    "bash",
    RUN22,
    "Wrote: /src/artifacts/dotnet-runtime-deps-9.0.rpm\nmake: Leaving directory '/src'",
)

t = new(
    "f22-kubectlai-406-conversation",
    "conversation",
    False,
    KAI406,
    "The expected behaviour of kubectl-ai: one tool call per request; the user asks for the "
    "pod list three times while a pod is being replaced, and the answer changes each time.",
)
t.user("list my pods")
t.call(
    "kubectl",
    {"command": "kubectl get pods", "modifies_resource": "no"},
    "NAME                     READY   STATUS             RESTARTS   AGE\nweb-6d4cf56db6-8kqzv    "
    " 1/1     Running            0          2d\n"
    "worker-5f7b9c8d4-lm2xw   0/1     CrashLoopBackOff   14         2d",
)
t.user("delete the crashing one")
t.call(
    "kubectl",
    {"command": "kubectl delete pod worker-5f7b9c8d4-lm2xw", "modifies_resource": "yes"},
    'pod "worker-5f7b9c8d4-lm2xw" deleted',
    mutates=True,
)
t.user("list my pods again")
t.call(
    "kubectl",
    {"command": "kubectl get pods", "modifies_resource": "no"},
    "NAME                     READY   STATUS              RESTARTS   AGE\nweb-6d4cf56db6-8kqzv   "
    "  1/1     Running             0          2d\n"
    "worker-5f7b9c8d4-q8n2c   0/1     ContainerCreating   0          4s",
)
t.user("and now?")
t.call(
    "kubectl",
    {"command": "kubectl get pods", "modifies_resource": "no"},
    "NAME                     READY   STATUS    RESTARTS   AGE\nweb-6d4cf56db6-8kqzv     1/1     "
    "Running   0          2d\nworker-5f7b9c8d4-q8n2c   1/1     Running   0          41s",
)
t.msg("The replacement worker pod is Running.")

t = new(
    "f22-es-63946-pull-retry",
    "retry_transient",
    False,
    ES63946,
    "The build pulls its base image explicitly in a retry loop: the first attempt times out, "
    "the second pulls it, and the image builds.",
)
t.user("Build the elasticsearch docker image")
EPULL22 = {"command": "docker pull docker.elastic.co/ubi8/ubi-minimal:8.2"}
t.call(
    "bash",
    EPULL22,
    error="Error response from daemon: Get https://docker.elastic.co/v2/: net/http: TLS "
    "handshake timeout",
    kind="timeout",
)
t.call(
    "bash",
    EPULL22,
    "8.2: Pulling from ubi8/ubi-minimal\nStatus: Downloaded newer image for "
    "docker.elastic.co/ubi8/ubi-minimal:8.2",
)
t.call(
    "bash",
    {"command": "./gradlew :distribution:docker:buildDockerImage"},
    "BUILD SUCCESSFUL in 3m 4s",
)

t = new(
    "f22-rocm-9173-nightly-attempts",
    "polling",
    False,
    ROCM9173,
    "A nightly failed on a runner with no GPU; its failed jobs are re-run up to four attempts "
    "and followed between waits: attempt 2 times out on a wedged machine, attempt 3 is green.",
)
t.user("Watch tonight's TheRock nightly until it settles")
RUNV22 = {"command": "gh run view 991200 --json attempt,status,conclusion,jobs"}
for attempt, status, concl, job in [
    (1, "completed", "failure", "gfx942 tests: no GPU assigned"),
    (2, "in_progress", None, "gfx942 tests: running"),
    (2, "completed", "failure", "gfx942 tests: timed out after 120m"),
    (3, "in_progress", None, "gfx942 tests: running"),
    (3, "completed", "success", "gfx942 tests: passed"),
]:
    t.call("bash", {"command": "sleep 600"}, "")
    t.call(
        "bash", RUNV22, {"attempt": attempt, "status": status, "conclusion": concl, "jobs": [job]}
    )
t.msg("Attempt 3 is green; the earlier failures were infrastructure (no GPU, a wedged runner).")


def _kubeagents22_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        KUBEAGENTS1366,
        "The flake workflow's work done by an agent: for every attempt after the first, read "
        "the failed jobs' logs, key each failing test by its container, then add a row to the "
        "container's ci:flaky issue or open one.",
    )
    t.user("Record the flakes from the last day's re-runs")
    t.call(
        "bash",
        {"command": "gh run list --json databaseId,attempt,conclusion --limit 40"},
        "16 runs with attempt > 1 that passed after a failed attempt",
    )
    containers = ["TestSync", "TestQueue", "tests/test_api.py", "TestCache"]
    known: set[str] = {"TestQueue"}
    rng = random.Random(2222)
    for k in range(16):
        run = 77100 + 13 * k
        cont = containers[k % 4]
        t.call(
            "bash",
            {"command": f"gh api repos/gke-labs/kube-agents/actions/runs/{run}/attempts/1/jobs"},
            {"run": run, "failed_jobs": [{"id": run * 10 + 1, "name": "Python Unit Tests"}]},
        )
        t.call(
            "bash",
            {"command": f"gh run view {run} --attempt 1 --log-failed | grep -m1 FAILED"},
            f"FAILED {cont}::test_{rng.choice(['resume', 'drain', 'ttl', 'retry'])}_{k}",
        )
        if cont in known:
            t.call(
                "bash",
                {
                    "command": f"gh issue comment --repo gke-labs/kube-agents ci-flaky-{cont} "
                    f"--body 'run {run}'"
                },
                f"https://github.com/gke-labs/kube-agents/issues/{1400 + containers.index(cont)}"
                f"#comment-{run}",
                mutates=True,
            )
        else:
            t.call(
                "bash",
                {
                    "command": "gh issue create --repo gke-labs/kube-agents --label ci:flaky "
                    f"--title 'flaky: {cont}'"
                },
                f"https://github.com/gke-labs/kube-agents/issues/{1400 + containers.index(cont)}",
                mutates=True,
            )
            known.add(cont)
    t.msg("16 flakes recorded: 3 new ci:flaky issues opened, 13 rows added to existing ones.")


_kubeagents22_long("f22-kubeagents-1366-flake-triage-long")


def _holmes22_long(tid: str) -> None:
    t = new(
        tid,
        "long_productive",
        False,
        HOLMES2040,
        "The Kubernetes troubleshooting skill's workflow over a namespace of fourteen "
        "workloads: deployment, pods and a log tail for each, most of them healthy with alike "
        "answers, then one summary.",
    )
    t.user("Health check every workload in the platform namespace")
    apps = [
        "auth",
        "billing",
        "catalog",
        "cart",
        "checkout",
        "search",
        "media",
        "notify",
        "ledger",
        "gateway",
        "reports",
        "scheduler",
        "export",
        "audit",
    ]
    for k, app in enumerate(apps):
        bad = app in ("ledger", "export")
        t.call(
            "kubectl_describe",
            {"kind": "deployment", "name": app, "namespace": "platform"},
            _holmes22(
                f"Replicas: 2 desired | 2 updated | 2 total | {1 if bad else 2} available",
                f"kubectl describe deployment {app} -n platform",
            ),
        )
        t.call(
            "kubectl_get_by_kind_in_namespace",
            {"kind": "pod", "namespace": "platform", "label_selector": f"app={app}"},
            _holmes22(
                f"{app}-{k}a 1/1 Running 0 3d\n{app}-{k}b "
                f"{'0/1 CrashLoopBackOff 9' if bad else '1/1 Running 0'} 3d",
                f"kubectl get pods -n platform -l app={app}",
            ),
        )
        t.call(
            "kubectl_logs",
            {"pod_name": f"{app}-{k}b", "namespace": "platform", "tail": 50},
            _holmes22(
                "panic: missing env LEDGER_DSN"
                if app == "ledger"
                else (
                    "error: s3 bucket exports-prod: AccessDenied"
                    if app == "export"
                    else f"{app} ready, serving on :8080"
                ),
                f"kubectl logs {app}-{k}b -n platform --tail=50",
            ),
        )
    t.msg(
        "12 of 14 workloads are healthy. ledger crashes on a missing LEDGER_DSN env var; "
        "export's second pod is denied access to the exports-prod bucket."
    )


_holmes22_long("f22-holmes-2040-namespace-health-long")

# ================================================================ end of fresh22 set


# ---------------------------------------------------------------- split and write


def assign_splits(items: list[T]) -> dict[str, str]:
    """About a third held out: within each class, every third trajectory by id."""
    split: dict[str, str] = {}
    by_class: dict[str, list[str]] = {}
    for it in items[:FRESH_START]:
        by_class.setdefault(it.cls, []).append(it.tid)
    for ids in by_class.values():
        for k, tid in enumerate(sorted(ids)):
            split[tid] = "holdout" if k % 3 == 1 else "dev"
    for it in items[FRESH_START:FRESH2_START]:
        split[it.tid] = "fresh"
    for it in items[FRESH2_START:FRESH3_START]:
        split[it.tid] = "fresh2"
    for it in items[FRESH3_START:FRESH4_START]:
        split[it.tid] = "fresh3"
    for it in items[FRESH4_START:FRESH5_START]:
        split[it.tid] = "fresh4"
    for it in items[FRESH5_START:FRESH6_START]:
        split[it.tid] = "fresh5"
    for it in items[FRESH6_START:FRESH7_START]:
        split[it.tid] = "fresh6"
    for it in items[FRESH7_START:FRESH8_START]:
        split[it.tid] = "fresh7"
    for it in items[FRESH8_START:FRESH9_START]:
        split[it.tid] = "fresh8"
    for it in items[FRESH9_START:FRESH10_START]:
        split[it.tid] = "fresh9"
    for it in items[FRESH10_START:FRESH11_START]:
        split[it.tid] = "fresh10"
    for it in items[FRESH11_START:FRESH12_START]:
        split[it.tid] = "fresh11"
    for it in items[FRESH12_START:FRESH13_START]:
        split[it.tid] = "fresh12"
    for it in items[FRESH13_START:FRESH14_START]:
        split[it.tid] = "fresh13"
    for it in items[FRESH14_START:FRESH15_START]:
        split[it.tid] = "fresh14"
    for it in items[FRESH15_START:FRESH16_START]:
        split[it.tid] = "fresh15"
    for it in items[FRESH16_START:FRESH17_START]:
        split[it.tid] = "fresh16"
    for it in items[FRESH17_START:FRESH18_START]:
        split[it.tid] = "fresh17"
    for it in items[FRESH18_START:FRESH19_START]:
        split[it.tid] = "fresh18"
    for it in items[FRESH19_START:FRESH20_START]:
        split[it.tid] = "fresh19"
    for it in items[FRESH20_START:FRESH21_START]:
        split[it.tid] = "fresh20"
    for it in items[FRESH21_START:FRESH22_START]:
        split[it.tid] = "fresh21"
    for it in items[FRESH22_START:]:
        split[it.tid] = "fresh22"
    return split


def main() -> None:
    ids = [t.tid for t in ALL]
    assert len(ids) == len(set(ids)), "duplicate ids"
    split = assign_splits(ALL)
    with OUT.open("w", encoding="utf-8") as fh:
        for t in ALL:
            d = t.to_json()
            d["split"] = split[t.tid]
            fh.write(json.dumps(d, ensure_ascii=False, sort_keys=False) + "\n")
    loops = sum(t.loop for t in ALL)
    print(f"wrote {len(ALL)} trajectories ({loops} loops, {len(ALL) - loops} legitimate) to {OUT}")


if __name__ == "__main__":
    main()
