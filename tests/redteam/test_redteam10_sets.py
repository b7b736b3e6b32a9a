"""Red team, tenth pass: values whose order Python does not fix (sets of text), through the
real Pydantic AI package in real processes with other hash seeds.

A set's iteration order depends on the process's string hash seed (`PYTHONHASHSEED`, random
per process by default) and, in one process, on the set's history. What the guard digests of
a set must not: a call learned as failing in one process is the same call in the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from crs.guard import Guard

ROOT = Path(__file__).resolve().parents[2]
TAGS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]

_AGENT = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset
    from crs import Guard
    from crs.integrations.pydantic_ai import GuardCapability

    project, home, session, tags = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    ran = []
    outputs = []

    def build(targets: set[str]) -> str:
        "Build the targets."
        ran.append(sorted(targets))
        raise RuntimeError("error: missing symbol cfg in build of " + str(len(targets)))

    def model(messages, info):
        last = messages[-1].parts[-1]
        if isinstance(last, ToolReturnPart) or type(last).__name__ == "RetryPromptPart":
            outputs.append(str(getattr(last, "content", "")))
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("build", {"targets": tags})])

    with Guard.open(project, session, home=home, fingerprint=lambda: "fp-1") as guard:
        agent = Agent(FunctionModel(model), toolsets=[FunctionToolset([build])],
                      capabilities=[GuardCapability(guard)])
        for _ in range(int(sys.argv[5])):
            try:
                asyncio.run(agent.run("build it"))
            except RuntimeError:
                pass
        learned = [f.signature for f in guard.learned()]
    print(json.dumps({"ran": len(ran), "outputs": outputs, "learned": learned}))
    """
)


def _run(tmp_path: Path, session: str, seed: str, tags: list[str], runs: int) -> dict:
    script = tmp_path / "agent.py"
    script.write_text(_AGENT)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "PYTHONHASHSEED": seed}
    p = subprocess.run(
        [
            sys.executable,
            str(script),
            str(tmp_path / "repo"),
            str(tmp_path / "home"),
            session,
            json.dumps(tags),
            str(runs),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    out: dict = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def test_a_set_argument_of_a_pydantic_ai_tool_is_one_call_in_every_process(
    tmp_path: Path,
) -> None:
    """A Pydantic AI tool taking a `set[str]`: the validated arguments were turned back into
    JSON in the set's iteration order, so the call's signature changed with the process's
    hash seed. A build that failed in one session was not the same call in the next one
    (another process): it ran again in the unchanged workspace, where the remembered
    failure must refuse it. The set's items are now sorted: one signature everywhere."""
    (tmp_path / "repo").mkdir()
    first = _run(tmp_path, "s1", "1", TAGS, 1)
    assert first["ran"] == 1
    assert len(first["learned"]) == 1
    for seed in ("2", "3", "4"):  # other processes, the model's list in another order too
        later = _run(tmp_path, f"s{seed}", seed, list(reversed(TAGS)), 1)
        assert later["ran"] == 0, (seed, later)  # refused before it ran: the known failure
        assert later["learned"] == first["learned"]


def test_a_set_result_has_one_digest_in_every_process(tmp_path: Path) -> None:
    """A result that is a set of text (or holds one) was digested by its str(), in the
    set's iteration order: the same answer read in another process (a reopened durable
    session: a Claude Code hook, a restarted agent) was another result, so the third
    identical read of a session was not seen as a repeat. It is digested with its items
    sorted."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    code = textwrap.dedent(
        """
        import sys
        from crs.guard import Guard
        tags = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
        with Guard.open(sys.argv[1], "s", home=sys.argv[2]) as g:
            v = g.before_call("list_tags", {"repo": "x"})
            print(g.after_call(v.call, result={"tags": tags, "n": frozenset(tags)}).action)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    actions = []
    for seed in ("1", "2", "3"):
        p = subprocess.run(
            [sys.executable, "-c", code, str(project), str(home)],
            capture_output=True,
            text=True,
            env={**env, "PYTHONHASHSEED": seed},
            timeout=30,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        actions.append(p.stdout.strip())
    assert actions == ["allow", "allow", "nudge"]  # the same read three times in a row
    with Guard.open(project, "s", home=home) as g:
        assert g.status()["loop_code"] == "repeated_call"


def test_equal_sets_built_in_other_orders_are_one_result_in_one_process() -> None:
    """In one process too: two equal sets can iterate in other orders (a set's order
    depends on what was added and removed before). They are one result."""
    import random

    words = [f"w{i}" for i in range(40)]
    a = set(words)
    rng = random.Random(7)
    for _ in range(200):  # the same items added in another order: another order of the set
        order = words[:]
        rng.shuffle(order)
        b = set(order)
        if list(b) != list(a):
            break
    assert a == b
    assert list(a) != list(b)
    g = Guard()
    acts = []
    for s in (a, b, a):
        v = g.before_call("list", {"what": "words"})
        acts.append(str(g.after_call(v.call, result=s).action))
    assert acts == ["allow", "allow", "nudge"]


def test_a_model_argument_holding_a_set_keeps_its_json_form_with_the_set_sorted() -> None:
    """A Pydantic AI tool taking a model with a set field: the same JSON as Pydantic gives
    it (the fields' aliases), the set's items in order; a model without a set as before."""
    import pydantic
    import pydantic_core

    from crs.integrations.pydantic_ai import _plain_args

    class Query(pydantic.BaseModel):
        tag_set: set[str] = pydantic.Field(alias="tagSet")
        name: str = pydantic.Field(alias="Name")

    class Plain(pydantic.BaseModel):
        name: str = pydantic.Field(alias="Name")

    q = Query(tagSet=set(TAGS), Name="x")
    assert _plain_args({"q": q}) == {"q": {"tagSet": sorted(TAGS), "Name": "x"}}
    p = Plain(Name="y")
    assert _plain_args({"p": p}) == pydantic_core.to_jsonable_python({"p": p})
