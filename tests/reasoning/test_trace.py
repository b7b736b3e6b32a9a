"""TraceStep, TraceStepBuilder, TraceRecorder (bounds, fail-closed, threads), export and bridge."""

from __future__ import annotations

import dataclasses
import doctest
import json
import logging
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs
from crs._reasoning import _trace
from crs._reasoning._trace import format_go_duration, parse_go_duration

R = crs.REDACTED
T, SRC = crs.ProofUpdateType, crs.SignalSource
GHP = "ghp_" + "Zt8qL2vX9mKp4RwQ7nYb3cHj6sDf1gGa5hEk"


# ---------------------------------------------------------------- builder


def test_builder_sets_every_field() -> None:
    step = (
        crs.TraceStepBuilder()
        .with_action("explore")
        .with_target("pkg/main.go")
        .with_tool("Grep")
        .with_duration(1.25)
        .with_symbols_found(["main", "init"])
        .with_proof_update("n1", "disproven", "tests fail", "hard")
        .with_proof_update_typed(
            "n2", crs.ProofUpdateType.DECREMENT, 3, "found", crs.SignalSource.SOFT
        )
        .with_constraint("c1", "ordering", ["a", "b"])
        .with_constraint("c2", crs.ConstraintType.RESOURCE, ("x",))
        .with_dependency("a", "b")
        .with_error("boom")
        .with_metadata("k", "v1")
        .with_metadata("k", "v2")
        .build()
    )
    assert step == crs.TraceStep(
        action="explore",
        target="pkg/main.go",
        tool="Grep",
        duration=1.25,
        symbols_found=("main", "init"),
        proof_updates=(
            crs.ProofUpdate("n1", T.DISPROVEN, 1, "tests fail", SRC.HARD, "disproven"),
            crs.ProofUpdate("n2", T.DECREMENT, 3, "found", SRC.SOFT),
        ),
        constraints_added=(
            crs.ConstraintUpdate(id="c1", type=crs.ConstraintType.ORDERING, nodes=("a", "b")),
            crs.ConstraintUpdate(id="c2", type=crs.ConstraintType.RESOURCE, nodes=("x",)),
        ),
        dependencies_found=(crs.DependencyEdge(from_="a", to="b"),),
        error="boom",
        metadata={"k": "v2"},
    )


@pytest.mark.parametrize(
    ("status", "source", "kind", "signal"),
    [
        ("proven", "hard", T.PROVEN, SRC.HARD),
        ("disproven", "soft", T.DISPROVEN, SRC.SOFT),
        ("expanded", "safety", T.INCREMENT, SRC.SAFETY),
        ("unknown", "HARD", T.INCREMENT, SRC.UNKNOWN),
        ("increment", "", T.INCREMENT, SRC.UNKNOWN),
        ("decrement", "hard", T.DECREMENT, SRC.HARD),
        ("reset", "hard", T.RESET, SRC.HARD),
        ("bogus", "hard", T.UNKNOWN, SRC.HARD),
    ],
)
def test_builder_status_and_source_strings(
    status: str, source: str, kind: crs.ProofUpdateType, signal: crs.SignalSource
) -> None:
    (u,) = crs.TraceStepBuilder().with_proof_update("n", status, "r", source).build().proof_updates
    assert (u.type, u.delta, u.status, u.source) == (kind, 1, status, signal)


def test_builder_unknown_constraint_type_and_independent_builds() -> None:
    b = crs.TraceStepBuilder().with_constraint("c", "whatever", []).with_metadata("a", "1")
    first = b.build()
    b.with_metadata("b", "2")
    assert first.constraints_added[0].type == crs.ConstraintType.UNKNOWN
    assert first.metadata == {"a": "1"}
    assert b.build().metadata == {"a": "1", "b": "2"}
    assert repr(b).startswith("<TraceStepBuilder")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: b.with_action(1), "action: must be a str"),
        (lambda b: b.with_duration(-1), "seconds: must be a finite number"),
        (lambda b: b.with_duration(float("nan")), "seconds: must be a finite number"),
        (lambda b: b.with_duration(True), "seconds: must be a finite number"),
        (lambda b: b.with_symbols_found("abc"), "symbols: must be an iterable of str"),
        (lambda b: b.with_symbols_found(["a", 2]), r"symbols\[1\]: must be a str"),
        (lambda b: b.with_proof_update_typed("n", 1, -1, "", 1), "delta: must be an int"),
        (lambda b: b.with_proof_update_typed("n", 9, 1, "", 1), "update_type/source"),
        (lambda b: b.with_constraint("c", "ordering", "ab"), "nodes: must be an iterable"),
        (lambda b: b.with_dependency("a", None), "to: must be a str"),
        (lambda b: b.with_metadata("k", 1), "value: must be a str"),
    ],
)
def test_builder_rejects_bad_input(call: object, message: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=message):
        call(crs.TraceStepBuilder())  # type: ignore[operator]


# ---------------------------------------------------------------- recorder basics


def test_default_and_secure_configs() -> None:
    d = crs.DefaultTraceConfig()
    assert (d.max_steps, d.record_symbols, d.record_metadata, d.sanitizer) == (
        1000,
        True,
        True,
        None,
    )
    s = crs.SecureTraceConfig()
    assert isinstance(s.sanitizer, crs.SecretSanitizer)
    assert crs.TraceRecorder().config == d
    assert crs.TraceConfig() == crs.TraceConfig(0, False, False, None)


def test_zero_max_steps_means_default_and_bad_configs() -> None:
    rec = crs.TraceRecorder(crs.TraceConfig())
    assert "max_steps=1000" in repr(rec)
    with pytest.raises(crs.InvalidArgumentError, match="max_steps: must be >= 0"):
        crs.TraceRecorder(crs.TraceConfig(max_steps=-1))
    with pytest.raises(crs.InvalidArgumentError, match="max_steps: must be an int"):
        crs.TraceRecorder(crs.TraceConfig(max_steps=1.5))  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="sanitizer: must have a sanitize"):
        crs.TraceRecorder(crs.TraceConfig(sanitizer="x"))  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="config: must be a TraceConfig"):
        crs.TraceRecorder({"max_steps": 3})  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="step: must be a TraceStep"):
        rec.record_step({"action": "x"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (crs.TraceStep(action=1), "step.action: must be a str"),  # type: ignore[arg-type]
        (crs.TraceStep(duration=-1.0), "step.duration: must be a finite number"),
        (crs.TraceStep(duration=float("inf")), "step.duration: must be a finite number"),
        (crs.TraceStep(timestamp=-5), "step.timestamp: must be Unix milliseconds"),
        (crs.TraceStep(symbols_found=("a", None)), r"step.symbols_found\[1\]"),  # type: ignore[arg-type]
        (crs.TraceStep(metadata={"k": 1}), r"step.metadata\['k'\]: must be a str"),  # type: ignore[dict-item]
        (crs.TraceStep(metadata=[]), "step.metadata: must be a dict"),  # type: ignore[arg-type]
        (crs.TraceStep(proof_updates=("x",)), r"step.proof_updates\[0\]: must be a ProofUpdate"),  # type: ignore[arg-type]
    ],
)
def test_record_step_rejects_bad_fields(step: crs.TraceStep, message: str) -> None:
    rec = crs.TraceRecorder(crs.SecureTraceConfig())
    with pytest.raises(crs.InvalidArgumentError, match=message):
        rec.record_step(step)
    assert rec.step_count() == 0
    assert rec.sanitize_failures == 0


def test_numbering_timestamps_copies_and_clear() -> None:
    rec = crs.TraceRecorder()
    assert rec.last_step() is None
    assert rec.step_count() == 0
    before = time.time_ns() // 1_000_000
    first = rec.record_step(crs.TraceStep(step=99, action="a", metadata={"k": "v"}))
    second = rec.record_step(crs.TraceStep(action="b", timestamp=5))
    assert (first.step, second.step) == (1, 2)
    assert first.timestamp >= before
    # "Step number and timestamp will be overwritten by the recorder" (the seed)
    assert first.timestamp <= second.timestamp <= time.time_ns() // 1_000_000
    # Callers get copies: changing a returned dict changes nothing stored.
    first.metadata["k"] = "changed"
    rec.get_steps()[0].metadata["x"] = "y"
    assert rec.get_steps()[0].metadata == {"k": "v"}
    assert rec.last_step() == second
    rec.clear()
    assert rec.step_count() == 0
    assert rec.record_step(crs.TraceStep(action="c")).step == 1


def test_symbols_and_metadata_dropped_when_disabled() -> None:
    rec = crs.TraceRecorder(crs.TraceConfig(max_steps=5))
    step = rec.record_step(crs.TraceStep(symbols_found=("a",), metadata={"k": "v"}))
    assert (step.symbols_found, step.metadata) == ((), {})
    rec = crs.TraceRecorder(crs.DefaultTraceConfig())
    step = rec.record_step(crs.TraceStep(symbols_found=("a",), metadata={"k": "v"}))
    assert (step.symbols_found, step.metadata) == (("a",), {"k": "v"})


# ---------------------------------------------------------------- bounds and eviction


def test_fifo_eviction_counter_and_log(caplog: pytest.LogCaptureFixture) -> None:
    rec = crs.TraceRecorder(crs.TraceConfig(max_steps=3))
    with caplog.at_level(logging.DEBUG, logger="crs.trace"):
        for i in range(8):
            rec.record_step(crs.TraceStep(action=f"a{i}"))
    assert [s.step for s in rec.get_steps()] == [6, 7, 8]
    assert [s.action for s in rec.get_steps()] == ["a5", "a6", "a7"]
    assert rec.evicted_count == 5
    assert rec.step_count() == 3
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    # The first eviction and every max_steps-th after it are warnings; the rest debug lines.
    assert [r.getMessage() for r in warnings] == [
        "trace full (max_steps=3): evicted the oldest step; 1 evicted so far",
        "trace full (max_steps=3): evicted the oldest step; 4 evicted so far",
    ]
    assert len([r for r in caplog.records if "evicted" in r.getMessage()]) == 5
    rec.clear()
    assert rec.evicted_count == 5, "clear keeps the counters"


def test_max_steps_one(caplog: pytest.LogCaptureFixture) -> None:
    rec = crs.TraceRecorder(crs.TraceConfig(max_steps=1))
    with caplog.at_level(logging.WARNING, logger="crs.trace"):
        for _ in range(4):
            rec.record_step(crs.TraceStep())
    assert [s.step for s in rec.get_steps()] == [4]
    assert rec.evicted_count == 3
    assert len(caplog.records) == 1


def test_threads_share_one_bounded_recorder() -> None:
    rec = crs.TraceRecorder(
        dataclasses.replace(crs.SecureTraceConfig(), max_steps=100, record_metadata=True)
    )

    def work(t: int) -> None:
        for i in range(250):
            rec.record_step(crs.TraceStep(action=f"t{t}-{i}", metadata={"token": "abc"}))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    steps = rec.get_steps()
    assert rec.step_count() == 100
    assert rec.evicted_count == 900
    assert [s.step for s in steps] == list(range(901, 1001))
    assert all(s.metadata == {"token": R} for s in steps)


# ---------------------------------------------------------------- sanitising and fail-closed


def test_secure_recorder_sanitises_every_string() -> None:
    rec = crs.TraceRecorder(crs.SecureTraceConfig())
    step = (
        crs.TraceStepBuilder()
        .with_action(f"push {GHP}")
        .with_target("deploy --password hunter2")
        .with_tool("bash password=x")
        .with_error(f"auth failed for {GHP}")
        .with_symbols_found([GHP, "main"])
        .with_proof_update(GHP, "disproven", f"leaked {GHP}", "hard")
        .with_constraint(GHP, "ordering", [GHP, "b"])
        .with_dependency(GHP, f"x {GHP}")
        .with_metadata("api_key", "looks innocent")
        .with_metadata(GHP, "value")
        .with_metadata("note", f"token {GHP}")
        .build()
    )
    stored = rec.record_step(step)
    assert GHP not in json.dumps(stored.to_dict())
    assert stored.action == f"push {R}"
    assert stored.target == f"deploy --password {R}"
    assert stored.tool == f"bash password={R}"
    assert stored.symbols_found == (R, "main")
    assert stored.proof_updates[0].node_id == R
    assert stored.proof_updates[0].type == crs.ProofUpdateType.DISPROVEN
    assert stored.constraints_added[0].nodes == (R, "b")
    assert stored.dependencies_found[0] == crs.DependencyEdge(from_=R, to=f"x {R}")
    assert stored.metadata == {"api_key": R, R: "value", "note": f"token {R}"}
    assert GHP not in json.dumps(rec.export("s").to_dict())


class _OnlySanitize:
    """A sanitizer with only the protocol's method: metadata keys and values go one by one."""

    def sanitize(self, text: str) -> str:
        return text.replace("secret", "***")


def test_protocol_only_sanitizer_cleans_metadata_keys_and_values() -> None:
    rec = crs.TraceRecorder(crs.TraceConfig(record_metadata=True, sanitizer=_OnlySanitize()))
    stored = rec.record_step(crs.TraceStep(action="a secret", metadata={"secret": "secret!"}))
    assert stored.action == "a ***"
    assert stored.metadata == {"***": "***!"}


class _Exploding:
    def __init__(self, fail_on: str, result: object = None) -> None:
        self.fail_on = fail_on
        self.result = result

    def sanitize(self, text: str) -> str:
        if self.fail_on in text:
            if self.result is not None:
                return self.result  # type: ignore[return-value]
            raise RuntimeError(f"cannot handle {text}")
        return text


@pytest.mark.parametrize(
    ("step", "field"),
    [
        (crs.TraceStep(action="hunter2-SECRET"), "action"),
        (crs.TraceStep(target="ok", error="hunter2-SECRET"), "error"),
        (crs.TraceStep(symbols_found=("a", "hunter2-SECRET")), r"symbols_found\[1\]"),
        (
            crs.TraceStep(dependencies_found=(crs.DependencyEdge(from_="a", to="hunter2-SECRET"),)),
            r"dependencies_found\[0\]\.to",
        ),
        (crs.TraceStep(metadata={"k": "hunter2-SECRET"}), r"metadata\[#0\]"),
    ],
)
def test_fail_closed_records_nothing(
    step: crs.TraceStep, field: str, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = crs.TraceConfig(record_symbols=True, record_metadata=True, sanitizer=_Exploding("SECRET"))
    rec = crs.TraceRecorder(cfg)
    rec.record_step(crs.TraceStep(action="fine"))
    with (
        caplog.at_level(logging.WARNING, logger="crs.trace"),
        pytest.raises(crs.SanitizationError, match=field) as err,
    ):
        rec.record_step(step)
    assert rec.step_count() == 1
    assert rec.sanitize_failures == 1
    # The secret appears nowhere: not in the message, the log, or a chained exception.
    assert "hunter2" not in str(err.value)
    assert "RuntimeError" in str(err.value)
    assert err.value.__cause__ is None
    assert err.value.__suppress_context__
    assert all("hunter2" not in r.getMessage() for r in caplog.records)
    assert len(caplog.records) == 1
    # The counter did not advance: the next step gets number 2.
    assert rec.record_step(crs.TraceStep(action="next")).step == 2


def test_fail_closed_on_non_str_result_and_bad_sanitize_map() -> None:
    rec = crs.TraceRecorder(crs.TraceConfig(sanitizer=_Exploding("x", result=42)))
    with pytest.raises(crs.SanitizationError, match="returned int, not str"):
        rec.record_step(crs.TraceStep(action="x"))

    class BadMap(_OnlySanitize):
        def sanitize_map(self, m: dict[str, str]) -> dict[str, object]:
            return {"k": 1}

    rec = crs.TraceRecorder(crs.TraceConfig(record_metadata=True, sanitizer=BadMap()))
    with pytest.raises(crs.SanitizationError, match="str -> str mapping"):
        rec.record_step(crs.TraceStep(metadata={"k": "v"}))

    class RaisingMap(_OnlySanitize):
        def sanitize_map(self, m: dict[str, str]) -> dict[str, str]:
            raise ValueError(str(m))

    rec = crs.TraceRecorder(crs.TraceConfig(record_metadata=True, sanitizer=RaisingMap()))
    with pytest.raises(crs.SanitizationError, match="sanitizing metadata raised ValueError"):
        rec.record_step(crs.TraceStep(metadata={"k": "v"}))
    assert rec.step_count() == 0
    assert rec.sanitize_failures == 1


# ---------------------------------------------------------------- export and JSON


def test_export_empty_and_full() -> None:
    rec = crs.TraceRecorder()
    empty = rec.export("s1")
    assert empty == crs.ReasoningTrace(session_id="s1")
    assert empty.to_dict()["total_duration"] == "0s"
    a = rec.record_step(crs.TraceStep(action="a", timestamp=1_000))  # overwritten: now
    time.sleep(0.02)
    b = rec.record_step(crs.TraceStep(action="b", timestamp=2_500))
    trace = rec.export("s1")
    assert (trace.total_steps, trace.start_time, trace.end_time) == (2, a.timestamp, b.timestamp)
    assert b.timestamp - a.timestamp >= 20
    assert trace.duration == (b.timestamp - a.timestamp) / 1000
    d = trace.to_dict()
    assert d["total_duration"].endswith("s")
    assert [s["step"] for s in d["trace"]] == [1, 2]
    with pytest.raises(crs.InvalidArgumentError, match="session_id: must be a non-empty"):
        rec.export("")


def test_step_json_has_seconds_and_milliseconds() -> None:
    d = crs.TraceStep(duration=0.0125).to_dict()
    assert (d["duration"], d["duration_ms"]) == (0.0125, 12)
    # A Go-style document without `duration` is read from duration_ms.
    assert crs.TraceStep.from_dict({"duration_ms": 250}).duration == 0.25
    assert crs.ReasoningTrace.from_dict({"total_duration": "1m30s"}).duration == 90.0


texts = st.text(max_size=12)
steps = st.builds(
    crs.TraceStep,
    action=texts,
    target=texts,
    tool=texts,
    duration=st.floats(min_value=0, max_value=1e6, allow_nan=False),
    timestamp=st.integers(min_value=0, max_value=2**53),
    symbols_found=st.lists(texts, max_size=3).map(tuple),
    proof_updates=st.lists(
        st.builds(
            crs.ProofUpdate,
            node_id=texts,
            type=st.sampled_from(crs.ProofUpdateType),
            delta=st.integers(0, 2**64 - 1),
            reason=texts,
            source=st.sampled_from(crs.SignalSource),
            status=texts,
        ),
        max_size=2,
    ).map(tuple),
    constraints_added=st.lists(
        st.builds(
            crs.ConstraintUpdate,
            id=texts,
            type=st.sampled_from(crs.ConstraintType),
            nodes=st.lists(texts, max_size=2).map(tuple),
            source=st.sampled_from(crs.SignalSource),
        ),
        max_size=2,
    ).map(tuple),
    dependencies_found=st.lists(
        st.builds(
            crs.DependencyEdge, from_=texts, to=texts, source=st.sampled_from(crs.SignalSource)
        ),
        max_size=2,
    ).map(tuple),
    error=texts,
    metadata=st.dictionaries(texts, texts, max_size=3),
)


@given(st.lists(steps, max_size=6), st.booleans())
def test_reasoning_trace_json_round_trip(items: list[crs.TraceStep], secure: bool) -> None:
    cfg = crs.SecureTraceConfig() if secure else crs.DefaultTraceConfig()
    rec = crs.TraceRecorder(cfg)
    for s in items:
        rec.record_step(s)
    trace = rec.export("session-1")
    text = json.dumps(trace.to_dict())
    again = crs.ReasoningTrace.from_dict(json.loads(text))
    assert again == trace
    assert json.loads(json.dumps(again.to_dict())) == json.loads(text)


@given(st.integers(min_value=0, max_value=10**13))
def test_go_duration_round_trip_in_milliseconds(ms: int) -> None:
    text = format_go_duration(ms / 1000)
    assert abs(parse_go_duration(text) - ms / 1000) < 1e-9 * max(1, ms)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (1e-9, "1ns"),
        (1.5e-6, "1.5µs"),
        (0.25, "250ms"),
        (1.5, "1.5s"),
        (60, "1m0s"),
        (90.5, "1m30.5s"),
        (3600, "1h0m0s"),
        (3723, "1h2m3s"),
        (-2, "-2s"),
    ],
)
def test_go_duration_strings(seconds: float, text: str) -> None:
    assert format_go_duration(seconds) == text
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("bad", ["", "1", "1x", "s", "1s2"])
def test_go_duration_parse_rejects(bad: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match="total_duration: not a Go duration"):
        parse_go_duration(bad)


# ---------------------------------------------------------------- bridge to StepRecord


def test_trace_step_to_step_record_success_and_failure() -> None:
    rec = crs.TraceRecorder()
    ok = rec.record_step(
        crs.TraceStepBuilder()
        .with_action("search")
        .with_target("main.go")
        .with_tool("Grep")
        .with_duration(0.0426)
        .with_proof_update("n", "proven", "", "hard")
        .with_constraint("c", "ordering", ["a"])
        .with_dependency("a", "b")
        .build()
    )
    r = crs.trace_step_to_step_record(ok, "sess")
    assert r == crs.StepRecord(
        step_number=1,
        timestamp=ok.timestamp,
        session_id="sess",
        actor=crs.Actor.SYSTEM,
        decision=crs.Decision.EXECUTE_TOOL,
        tool="Grep",
        outcome=crs.Outcome.SUCCESS,
        duration_ms=43,
        result_summary="search: main.go",
        propagate=True,
        proof_updates=ok.proof_updates,
        constraints_added=ok.constraints_added,
        dependencies_found=(crs.DependencyEdge(from_="a", to="b"),),
    )
    r.validate()
    assert r.is_tool_execution()
    bad = rec.record_step(crs.TraceStep(tool="Grep", error="exit 2"))
    f = crs.trace_step_to_step_record(bad, "sess")
    assert (f.outcome, f.error_category, f.error_message, f.step_number) == (
        crs.Outcome.FAILURE,
        crs.ErrorCategory.INTERNAL,
        "exit 2",
        2,
    )
    f.validate()
    now = crs.trace_step_to_step_record(crs.TraceStep(step=3), "sess")
    assert now.timestamp > 0


def test_trace_step_to_step_record_rejects_bad_input() -> None:
    with pytest.raises(crs.InvalidArgumentError, match="session_id: must be a non-empty"):
        crs.trace_step_to_step_record(crs.TraceStep(step=1), "")
    with pytest.raises(crs.InvalidArgumentError, match=r"step\.step: must be an int >= 0"):
        crs.trace_step_to_step_record(crs.TraceStep(step=-1), "s")
    # an unnumbered step (step 0) converts, and CRS.record_step numbers it
    unnumbered = crs.trace_step_to_step_record(crs.TraceStep(tool="grep"), "s")
    assert unnumbered.step_number == 0
    assert crs.CRS().record_step(unnumbered).step_number == 1
    with pytest.raises(crs.InvalidArgumentError, match="step: must be a TraceStep"):
        crs.trace_step_to_step_record(crs.StepRecord(), "s")  # type: ignore[arg-type]


def test_docstring_examples() -> None:
    assert doctest.testmod(_trace, raise_on_error=True).attempted > 0
