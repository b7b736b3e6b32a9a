"""Runs crs on label-preserving variants of every trajectory: the same agent behaviour as a
different harness would report it (a GUID or a timing in each result, results as JSON with an
`elapsed_ms`, a Unix time prefix, results in an MCP envelope, failures handed over as the
result the model is shown (`Error: ...`, the OpenAI Agents SDK's text, MCP's `isError`,
Claude Code's `<tool_use_error>`), shell results as `{stdout, stderr, interrupted}`, a
commentary field that varies or is spelt `Description` (on calls that change nothing: a
record's description is its content),
commands as an argv, other tool and argument names, another key order, user messages
upper-cased or after a greeting). A rule that only fits how the benchmark happens to spell
things shows up as catches lost or false alarms gained on a variant.

    PYTHONPATH=python .venv/bin/python bench/loops/variants.py [--data FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loopbench as lb

Event = dict[str, Any]
Change = Callable[[Event, random.Random], None]
SHELLS = {"bash", "shell", "terminal", "Bash", "run_shell_command", "exec", "execute"}


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _text(e: Event) -> bool:
    return isinstance(e.get("result"), str)


def guid_in_result(e: Event, rng: random.Random) -> None:
    if _text(e):
        g = "-".join(_hex(rng, n) for n in (8, 4, 4, 4, 12))
        e["result"] += f"\n[request {g}]"


def took_in_result(e: Event, rng: random.Random) -> None:
    if _text(e):
        e["result"] += f"\n(took {rng.randint(5, 900)}ms)"


def json_with_elapsed(e: Event, rng: random.Random) -> None:
    if "result" in e:
        e["result"] = {"output": e["result"], "elapsed_ms": rng.randint(5, 5000)}


def mcp_content_envelope(e: Event, rng: random.Random) -> None:
    if "result" in e:
        r = e["result"]
        text = r if isinstance(r, str) else json.dumps(r)
        e["result"] = {"content": [{"type": "text", "text": text}], "isError": False}


def error_as_result_text(e: Event, rng: random.Random) -> None:
    # A harness that hands the model a failure as the tool's text (the OpenAI Agents SDK's
    # failure_error_function, LangChain's handle_tool_error): no `error` field.
    if "error" in e:
        e["result"] = f"Error: {e.pop('error')}"
        e.pop("error_kind", None)


def error_as_agents_sdk_text(e: Event, rng: random.Random) -> None:
    # The OpenAI Agents SDK's default failure_error_function.
    if "error" in e:
        e["result"] = (
            f"An error occurred while running the tool. Please try again. Error: {e.pop('error')}"
        )
        e.pop("error_kind", None)


def error_as_mcp_is_error(e: Event, rng: random.Random) -> None:
    if "error" in e:
        e["result"] = {"content": [{"type": "text", "text": e.pop("error")}], "isError": True}
        e.pop("error_kind", None)


def error_as_tool_use_error(e: Event, rng: random.Random) -> None:
    # Claude Code's tool_result text of a failed tool.
    if "error" in e:
        e["result"] = f"<tool_use_error>{e.pop('error')}</tool_use_error>"
        e.pop("error_kind", None)


def shell_stdout_shape(e: Event, rng: random.Random) -> None:
    if e["tool"] in SHELLS and _text(e):
        e["result"] = {"stdout": e["result"], "stderr": "", "interrupted": False}


def unix_time_prefix(e: Event, rng: random.Random) -> None:
    if _text(e):
        e["result"] = f"[{rng.randint(1_700_000_000, 1_800_000_000)}] {e['result']}"


# Tool-name words of a call that creates or changes something (its `description` is the
# record's content, not commentary: docs/redteam.md, "Tenth pass").
_CHANGES = re.compile(
    r"(?i)(create|add|insert|post|send|submit|publish|book|schedule|update|edit|write|patch|"
    r"delete|remove|set|save|append|comment|reply|message|file|apply|commit|push)"
)


def _commentary_applies(e: Event) -> bool:
    return not e.get("mutates") and _CHANGES.search(e["tool"]) is None


def varying_description(e: Event, rng: random.Random) -> None:
    # (only where a description is commentary: not on a call that creates or changes a
    # record, whose description is its content, so a varying one is another call)
    if _commentary_applies(e):
        words = rng.sample(["check", "look", "verify", "inspect", "confirm", "see"], 3)
        e["args"] = dict(e["args"]) | {"description": " ".join(words)}


def varying_capital_description(e: Event, rng: random.Random) -> None:
    if _commentary_applies(e):
        e["args"] = dict(e["args"]) | {"Description": rng.choice(["a b c", "d e f", "g h i"])}


def argv_command(e: Event, rng: random.Random) -> None:
    cmd = e["args"].get("command")
    if isinstance(cmd, str):
        e["args"] = dict(e["args"]) | {"command": ["bash", "-lc", cmd]}


def exec_tool_name(e: Event, rng: random.Random) -> None:
    if e["tool"] in SHELLS:
        e["tool"] = "execute_command"


def mcp_tool_name(e: Event, rng: random.Random) -> None:
    e["tool"] = "mcp__ws__" + e["tool"]


def camel_case_args(e: Event, rng: random.Random) -> None:
    def camel(name: str) -> str:
        first, *rest = name.split("_")
        return first + "".join(w.capitalize() for w in rest)

    e["args"] = {camel(k): v for k, v in e["args"].items()}


def reversed_keys(e: Event, rng: random.Random) -> None:
    e["args"] = dict(reversed(list(e["args"].items())))


# Changes of the user's messages (`new_turn(text)`), marked by the event type they change.
def shouted_user_text(e: Event, rng: random.Random) -> None:
    e["text"] = e["text"].upper() + "!!"


def greeting_before_user_text(e: Event, rng: random.Random) -> None:
    e["text"] = rng.choice(["Hi, ", "Hello! ", "Ok so, ", "Hey there. "]) + e["text"]


for _user in (shouted_user_text, greeting_before_user_text):
    _user.event_type = "user"  # type: ignore[attr-defined]


VARIANTS: list[tuple[str, Change | None]] = [
    ("as is", None),
    ("a GUID appended to text results", guid_in_result),
    ("'(took Nms)' appended to text results", took_in_result),
    ("results as {output, elapsed_ms}", json_with_elapsed),
    ("a Unix time before text results", unix_time_prefix),
    ("results in an MCP content envelope", mcp_content_envelope),
    ("failures as 'Error: ...' results", error_as_result_text),
    ("failures as the OpenAI Agents SDK's default text", error_as_agents_sdk_text),
    ("failures as MCP results with isError", error_as_mcp_is_error),
    ("failures as Claude Code's <tool_use_error> text", error_as_tool_use_error),
    ("shell results as {stdout, stderr, interrupted}", shell_stdout_shape),
    ("a varying `description` argument", varying_description),
    ("a varying `Description` argument", varying_capital_description),
    ("shell commands as an argv", argv_command),
    ("shell tools named execute_command", exec_tool_name),
    ("MCP-prefixed tool names", mcp_tool_name),
    ("camelCase argument names", camel_case_args),
    ("argument keys in reverse order", reversed_keys),
    ("user messages upper-cased, '!!' after", shouted_user_text),
    ("a greeting before each user message", greeting_before_user_text),
]


def variant(traj: lb.Trajectory, change: Change) -> lb.Trajectory:
    rng = random.Random(zlib.crc32(traj["id"].encode()))
    out = copy.deepcopy(traj)
    kind = getattr(change, "event_type", "call")
    for e in out["events"]:
        if e["type"] == kind:
            change(e, rng)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=lb.DATA)
    args = ap.parse_args(argv)
    trajs = lb.load(args.data)
    print("| variant | loops caught | false alarms |\n|---|---:|---:|")
    for name, change in VARIANTS:
        vt = trajs if change is None else [variant(t, change) for t in trajs]
        s = lb.score(lb.outcomes_for(vt, lb.run_crs(vt)))
        print(f"| {name} | {s.caught}/{s.loops} | {s.false_alarms}/{s.legit} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
