"""A rule of the guard's semantics refined after the fresh14 trajectories of the loop benchmark
(bench/loops, split fresh14: user reports against IDE and CLI agents) showed it wrong in
general: an edit whose result says it changed nothing does not change the workspace, so the
same failure after it is a repeat; real edits between one failure still count as changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard

LINT = {"command": "npx eslint src/App.jsx"}
LINT_ERR = "src/App.jsx 12:7 error 'setOpen' is assigned a value but never used no-unused-vars"


def _edit(g: Guard, k: int, result: str, tool: str = "search_replace") -> Action:
    # a different block each time (an edit re-parameterised, not one edit repeated)
    args = {"file": "src/App.jsx", "search": f"const v{k} = useState({k})", "replace": "x"}
    v = g.before_call(tool, args)
    assert v.allowed, v
    return g.after_call(v.call, result=result).action


def _lint(g: Guard) -> Any:
    """The lint run: its before_call verdict when refused, else its after_call verdict."""
    v = g.before_call("run", LINT)
    if not v.allowed:
        return v
    return g.after_call(v.call, error=RuntimeError(LINT_ERR))


def _rounds(g: Guard, results: list[str]) -> list[Action]:
    """Edit, then the same failing lint, once per result; the actions of the lint runs."""
    out = []
    for k, res in enumerate(results):
        assert _edit(g, k, res) is Action.ALLOW
        out.append(_lint(g).action)
    return out


def test_no_op_edits_between_one_lint_failure_are_a_loop() -> None:
    """Aider #1090: edits that report "No changes made", the same lint error after each:
    after three failures the fourth lint run is refused before it runs (the workspace never
    changed, so it would fail the same way)."""
    g = Guard()
    acts = _rounds(g, ["No changes made to src/App.jsx"] * 4)
    assert acts == [Action.ALLOW] * 3 + [Action.BLOCK]


def test_no_change_results_in_other_words() -> None:
    """The ways edit tools and git say it: each makes the edit no change."""
    for said in [
        "No changes were made",
        "no change applied",
        "Nothing to commit, working tree clean",
        "0 replacements made in src/App.jsx",
        "File unchanged",
        "  the file was unchanged",
    ]:
        g = Guard()
        assert _rounds(g, [said] * 4)[3] is Action.BLOCK, said


def test_real_edits_between_one_failure_are_still_progress() -> None:
    """The neighbour that must still pass: each edit applied (its result says so), the same
    lint error after each, as the guard's API holds edit/test rounds with one failure."""
    g = Guard()
    assert (
        _rounds(g, [f"Applied edit to src/App.jsx ({k + 1} hunks)" for k in range(4)])
        == [Action.ALLOW] * 4
    )


def test_a_result_that_only_mentions_no_changes_later_is_a_change() -> None:
    """Only a result that starts by saying nothing changed, and a short one: a diff summary
    that mentions "no changes" further on is an edit that changed the file."""
    g = Guard()
    res = "Applied edit to src/App.jsx; no changes were needed in src/index.jsx"
    assert _rounds(g, [res] * 4) == [Action.ALLOW] * 4
    g = Guard()
    long_res = "No changes made to the header.\n" + "+ line\n" * 60  # a long diff after it
    assert (
        _rounds(g, [long_res.replace("+ line", f"+ line {k}") for k in range(4)])
        == [Action.ALLOW] * 4
    )


def test_no_op_edit_rule_holds_for_a_durable_guard(tmp_path: Path) -> None:
    """The same in a guard that journals to disk, and after it is reopened the record says
    the edits changed nothing (the fourth lint run is still refused in the next process)."""
    with Guard.open(tmp_path / "p", "s1", home=tmp_path / "h") as g:
        assert _rounds(g, ["No changes made to src/App.jsx"] * 2) == [Action.ALLOW] * 2
    with Guard.open(tmp_path / "p", "s1", home=tmp_path / "h") as g:
        assert _edit(g, 7, "No changes made to src/App.jsx") is Action.ALLOW
        assert _lint(g).action is Action.ALLOW
        assert _edit(g, 8, "No changes made to src/App.jsx") is Action.ALLOW
        assert _lint(g).action is Action.BLOCK
