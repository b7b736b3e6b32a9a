"""Red team 4: an error-loop block's cooldown is measured on the wall clock (the state is
shared by processes, so it must be): a clock set back (an NTP step, a VM restored) made the
failure's stamp lie in the future, and the block lasted the cooldown plus the step, an hour
set back kept it an hour longer. A stamp further in the future than clock skew counts as
elapsed; a small skew between processes keeps the block."""

from __future__ import annotations

import pytest

from crs.guard import Action, Guard, GuardPolicy, VerdictCode, _guard

T0_NS = 1_760_000_000_000 * 1_000_000  # a fixed wall time
HOUR_NS = 3600 * 1_000_000_000


def blocked_build(monkeypatch: pytest.MonkeyPatch, clock: list[int]) -> Guard:
    monkeypatch.setattr(_guard, "_time_ns", lambda: clock[0])
    g = Guard(GuardPolicy(cooldown_s=300))
    for _ in range(2):
        v = g.before_call("bash", {"command": "make build"})
        assert v.call is not None
        g.after_call(v.call, error="src/app.c:2: error: expected ';'")
    v = g.before_call("bash", {"command": "make build"})
    assert (v.action, v.code) == (Action.BLOCK, VerdictCode.ERROR_LOOP)
    return g


def test_a_clock_set_back_does_not_keep_a_block_longer(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [T0_NS]
    g = blocked_build(monkeypatch, clock)
    clock[0] = T0_NS - HOUR_NS  # the wall clock stepped back an hour
    v = g.before_call("bash", {"command": "make build"})
    assert v.allowed, v.reason  # the stamp is in the future: the cooldown counts as passed


def test_a_small_skew_keeps_the_block_and_the_cooldown_still_lifts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [T0_NS]
    g = blocked_build(monkeypatch, clock)
    clock[0] = T0_NS - 500 * 1_000_000  # half a second behind: another process's clock
    assert not g.before_call("bash", {"command": "make build"}).allowed
    clock[0] = T0_NS + 299 * 1_000_000_000
    assert not g.before_call("bash", {"command": "make build"}).allowed
    clock[0] = T0_NS + 300 * 1_000_000_000
    assert g.before_call("bash", {"command": "make build"}).allowed
