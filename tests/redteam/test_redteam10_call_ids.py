"""Red team, tenth pass: one call id for two calls at once (a caller that reuses ids: a
constant, a counter per model turn, a tool name), in memory and on a durable guard read back
by a new `Guard.open`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crs import InvalidArgumentError
from crs.guard import Guard


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_two_calls_out_under_one_id_are_both_recorded(order: tuple[int, int]) -> None:
    """Two `before_call`s with one `call_id`, both out, then their `after_call`s: the first
    `after_call` took the pending entry of the other (and its arguments for its own record),
    and the second was refused, "call_0 was recorded already". The second call now gets an
    id of its own (`call_0~2`); a result reported twice is still refused."""
    g = Guard()
    v = [g.before_call("read", {"path": p}, call_id="call_0") for p in ("a.py", "b.py")]
    assert v[0].call is not None
    assert v[1].call is not None
    assert v[0].call.call_id == "call_0"
    assert v[1].call.call_id != "call_0"
    for i in order:
        call = v[i].call
        assert call is not None
        assert g.after_call(call, result=f"content {i}").allowed
    assert g.status()["calls"] == 2
    for i in order:
        call = v[i].call
        assert call is not None
        with pytest.raises(InvalidArgumentError, match=r"^call: .* was recorded already"):
            g.after_call(call, result="again")
    assert g.status()["calls"] == 2


def test_concurrent_async_calls_under_one_id_on_a_durable_guard(tmp_path: Path) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()

    async def run(g: Guard) -> None:
        vs = await asyncio.gather(
            *(g.abefore_call("read", {"path": f"f{i}.py"}, call_id="same") for i in range(6))
        )
        assert len({v.call.call_id for v in vs if v.call is not None}) == 6
        await asyncio.gather(
            *(g.aafter_call(v.call, result=f"c{i}") for i, v in enumerate(vs) if v.call)
        )

    with Guard.open(project, "s", home=home) as g:
        asyncio.run(run(g))
    with Guard.open(project, "s", home=home) as g:
        assert g.status()["calls"] == 6
        assert g.status()["last_step"] == 6


def test_an_id_reused_after_its_call_was_recorded_keeps_it() -> None:
    """What held: an id used again once its call was recorded (one at a time) is the new
    call's own, as before."""
    g = Guard()
    for i in range(3):
        v = g.before_call("read", {"path": f"f{i}.py"}, call_id="call_0")
        assert v.call is not None
        assert v.call.call_id == "call_0"
        g.after_call(v.call, result=f"c{i}")
    assert g.status()["calls"] == 3
