"""Adversarial inputs to every item of `crs._core`: ordinary exceptions only, never a panic.

Every function and method of the native module (see `python/crs/_core.pyi`) is called with
hostile values: ints past i64/u64 and negative ones, empty, huge and unencodable (lone
surrogate) strings, bytes of wrong lengths, NaN and infinities, wrong types and long lists.
A call may return or raise one of the ordinary exceptions below; a `PanicException` (a
`BaseException`, so `except Exception` would miss it) fails the test, and so does any other
exception type. A failed call on a mutable object must leave its observable state unchanged.

Inputs that could crash the interpreter (an allocation sized by a caller's int, an overflow
found earlier) run in a subprocess under a 2 GiB address-space limit, so a crash fails the
test instead of killing pytest.
"""

from __future__ import annotations

import array
import math
import re
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core

# What a native call may raise on bad input (UnicodeEncodeError is a ValueError).
ALLOWED = (ValueError, TypeError, OverflowError, IndexError)

RAISED = object()

EDGE_INTS = [
    0,
    1,
    -1,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64 - 1,
    2**64,
    2**100,
    -(2**100),
]
BAD_STRS = ["", "\ud800", "a\udfffb", "x" * 100_000, "\x00", "é" * 50, " \t\n"]

ints = st.one_of(st.sampled_from(EDGE_INTS), st.integers(-(2**70), 2**70))
strs = st.one_of(st.sampled_from(BAD_STRS), st.text(max_size=30))
floats = st.floats(allow_nan=True, allow_infinity=True)
blobs = st.one_of(
    st.binary(max_size=1100),
    st.sampled_from([b"", b"\x00" * 511, b"\xff" * 512, b"\x00" * 513, b"\x01" * 4097]),
)
scalars = st.one_of(ints, strs, floats, blobs, st.none(), st.booleans())
anything = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.tuples(inner, inner, inner)),
    max_leaves=12,
)
arglists = st.lists(anything, max_size=4)


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """Calls `fn`; returns its result, or `RAISED` after checking the exception is ordinary."""
    try:
        return fn(*args)
    except BaseException as e:  # PanicException derives from BaseException, not Exception
        caught = e
    name = type(caught).__name__
    assert name != "PanicException", f"{fn!r}{args!r:.200} panicked: {caught}"
    assert isinstance(caught, ALLOWED), f"{fn!r}{args!r:.200} raised {name}: {caught}"
    return RAISED


# ---------------------------------------------------------------- every callable, any arguments


def _instances() -> list[Any]:
    clauses = _core.ClauseDb()
    clauses.add(1, [("tool", "grep", True), ("outcome", "fail", False)])
    lsh = _core.LshIndex()
    lsh.insert(1, _core.minhash_signature("some text here"))
    core = _core.StateCore(4, 4)
    core, _, _ = core.apply_ops([(1, [("a", 1, 1, 0, 0, 0)])])
    return [
        _core.CycleDetector(4),
        _core.KeyCycleDetector(4),
        _core.Digraph(3, array.array("I", [0, 1, 1, 2, 2, 0])),
        clauses,
        lsh,
        core,
        _core.StateHead(4, 4),
    ]


CALLABLES: list[tuple[str, Callable[..., Any]]] = [
    (name, getattr(_core, name))
    for name in sorted(dir(_core))
    if not name.startswith("_") and callable(getattr(_core, name))
]
METHODS: list[tuple[str, Any]] = [
    (f"{type(obj).__name__}.{name}", obj)
    for obj in _instances()
    for name in sorted(dir(type(obj)))
    if not name.startswith("__") and callable(getattr(obj, name))
] + [
    (f"{type(obj).__name__}.{dunder}", obj)
    for obj in _instances()
    for dunder in ("__len__", "__contains__")
    if hasattr(obj, dunder)
]


def test_every_native_item_is_covered() -> None:
    """Everything the stub declares is exercised here (a new binding must join the fuzz)."""
    names = {n for n, _ in CALLABLES} | {n.split(".")[0] for n, _ in METHODS}
    declared = {n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))}
    assert declared <= names
    assert {"StateCore", "StateHead", "Digraph", "ClauseDb", "LshIndex"} <= names
    assert len(METHODS) > 60


@pytest.mark.parametrize(("name", "fn"), CALLABLES, ids=[n for n, _ in CALLABLES])
@settings(max_examples=40)
@given(args=arglists)
def test_functions_take_any_arguments(name: str, fn: Callable[..., Any], args: list[Any]) -> None:
    if name in {"Digraph"} and args and isinstance(args[0], int) and 0 <= args[0] <= 2**26:
        args[0] = args[0] % 5000  # a real node count may allocate; see the subprocess cases
    call(fn, *args)


@pytest.mark.parametrize(("name", "obj"), METHODS, ids=[n for n, _ in METHODS])
@settings(max_examples=25)
@given(args=arglists)
def test_methods_take_any_arguments(name: str, obj: Any, args: list[Any]) -> None:
    call(getattr(obj, name.split(".")[1]), *args)


# ---------------------------------------------------------------- well-typed, hostile values

u32s = st.one_of(st.sampled_from([0, 1, 2**32 - 1]), st.integers(0, 2**32 - 1))


@given(window=ints, states=st.lists(ints, max_size=50))
def test_cycle_detector(window: int, states: list[int]) -> None:
    d = call(_core.CycleDetector, window)
    if d is RAISED:
        assert window < 0 or window >= 2**64
        return
    assert d.window == max(window, 1)
    before = (d.steps, d.history_size, d.cycles_found)
    if call(d.add_many, states) is RAISED:
        assert any(s < 0 or s >= 2**32 for s in states)
        assert (d.steps, d.history_size, d.cycles_found) == before, "failed batch changed it"
    for s in states[:10]:
        call(d.add, s)


@given(window=ints, states=st.lists(strs, max_size=30))
def test_key_cycle_detector(window: int, states: list[str]) -> None:
    d = call(_core.KeyCycleDetector, window)
    if d is RAISED:
        return
    before = (d.steps, d.history_size)
    if call(d.add_many, states) is RAISED:
        assert (d.steps, d.history_size) == before, "a rejected batch must feed nothing"
    for s in states[:10]:
        call(d.add, s)
    call(d.add_many, iter(states))
    call(d.add_many, [*states, 7])


@given(seq=st.lists(ints, max_size=60))
def test_brent(seq: list[int]) -> None:
    got = call(_core.brent_recurrence, seq)
    if got is not RAISED and got is not None:
        mu, lam = got
        assert lam >= 1
        assert seq[mu] == seq[mu + lam]


@given(
    n=st.one_of(st.integers(0, 300), st.sampled_from([2**26 + 1, 2**32 - 1, 2**32, 2**64 - 1])),
    values=st.lists(u32s, max_size=80),
    kind=st.sampled_from(["array", "bytes", "odd-bytes", "memoryview-step", "floats"]),
    node=ints,
    depth=ints,
)
def test_digraph(n: int, values: list[int], kind: str, node: int, depth: int) -> None:
    buf: Any
    if kind == "array":
        buf = array.array("I", values)
    elif kind == "bytes":
        buf = array.array("I", values).tobytes()
    elif kind == "odd-bytes":
        buf = array.array("I", values).tobytes() + b"\x01"
    elif kind == "memoryview-step":
        buf = memoryview(array.array("I", values))[::2]
    else:
        buf = array.array("d", [float(v) for v in values])
    g = call(_core.Digraph, n, buf)
    if g is RAISED:
        return
    assert g.node_count == n
    call(g.successors, node)
    call(g.bfs_within, node, depth)
    comps = g.tarjan_scc()
    assert sorted(x for c in comps for x in c) == list(range(n))
    assert g.reversed().edge_count == g.edge_count


literal = st.tuples(strs, strs, st.booleans())


@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["add", "remove", "check", "assign"]), ints, st.lists(literal)),
        max_size=12,
    )
)
def test_clause_db(ops: list[tuple[str, int, list[tuple[str, str, bool]]]]) -> None:
    db = _core.ClauseDb()
    for op, cid, lits in ops:
        before = (db.ids(), db.variable_count)
        if op == "add":
            if call(db.add, cid, lits) is RAISED:
                assert (db.ids(), db.variable_count) == before, "a rejected add changed the db"
        elif op == "remove":
            call(db.remove, cid)
        elif op == "check":
            pairs = [(f, v) for f, v, _ in lits]
            call(db.check, pairs)
            call(db.check_all, pairs)
        else:
            call(db.check_assignment, lits)
            call(db.check_assignment_all, lits)
        call(db.__contains__, cid)
    db.clear()
    assert len(db) == 0
    assert db.variable_count == 0


@given(texts=st.lists(strs, max_size=5), a=blobs, b=blobs, ident=ints)
def test_minhash_and_lsh(texts: list[str], a: bytes, b: bytes, ident: int) -> None:
    for t in texts:
        call(_core.minhash_shingles, t)
        call(_core.minhash_signature, t)
    sigs = call(_core.minhash_signatures, texts)
    if sigs is not RAISED:
        assert len(sigs) == 512 * len(texts)
    j = call(_core.minhash_jaccard, a, b)
    assert j is RAISED or 0.0 <= j <= 1.0
    idx = _core.LshIndex()
    if call(idx.insert, ident, a) is RAISED:
        assert len(idx) == 0
    call(idx.query, b)
    call(idx.remove, ident)
    call(idx.__contains__, ident)


@given(
    first=ints,
    payloads=st.lists(st.binary(max_size=40), max_size=5),
    noise=st.binary(max_size=200),
    start=ints,
    seq=ints,
    limit=ints,
    flip=st.integers(0, 10_000),
)
def test_wal_framing(
    first: int, payloads: list[bytes], noise: bytes, start: int, seq: int, limit: int, flip: int
) -> None:
    framed = call(_core.wal_encode, first, payloads)
    buf = noise if framed is RAISED else framed + noise
    if framed is not RAISED and payloads:
        got = _core.wal_scan(framed, 0, first, 2**64 - 1)
        assert got[0] == payloads
        damaged = bytearray(buf)
        damaged[flip % len(damaged)] ^= 0x41
        buf = bytes(damaged)
    call(_core.wal_scan, buf, start, seq, limit)
    call(_core.wal_scan, buf, 0, seq, limit)
    call(_core.wal_resync, buf, start, True)
    call(_core.wal_resync, buf, 0, False)


proof_row = st.tuples(strs, ints, ints, ints, ints, ints)
sim_pair = st.tuples(strs, strs, floats)
op = st.one_of(
    st.tuples(st.sampled_from([1]), st.lists(proof_row, max_size=3)),
    st.tuples(st.sampled_from([3]), st.lists(sim_pair, max_size=3)),
    st.tuples(
        st.sampled_from([4]), st.lists(st.tuples(strs, strs)), st.lists(st.tuples(strs, strs))
    ),
    st.tuples(st.sampled_from([6]), st.lists(st.tuples(strs, ints)), st.lists(strs)),
    st.tuples(ints, anything, anything, anything),
    st.tuples(),
)


@given(ops=st.lists(op, max_size=4), key=strs, n=ints, blob=blobs)
def test_state_core_and_head(ops: list[tuple[Any, ...]], key: str, n: int, blob: bytes) -> None:
    core = call(_core.StateCore, n, n)
    if core is RAISED:
        core = _core.StateCore(8, 8)
    head = _core.StateHead(8, 8)
    snapshot = (head.freeze().proof_all(), head.freeze().sim_pairs(), head.freeze().dep_edges())
    if call(head.apply_ops, ops) is RAISED:
        frozen = head.freeze()
        after = (frozen.proof_all(), frozen.sim_pairs(), frozen.dep_edges())
        assert after == snapshot, "a rejected batch changed the head"
    nxt = call(core.apply_ops, ops)
    if nxt is not RAISED:
        core = nxt[0]
    for method in ("proof_get", "constraint_get", "sim_neighbors", "depends_on", "depended_by"):
        call(getattr(core, method), key)
    for method in ("has_cycle", "affected_by", "history_trace", "estimate"):
        call(getattr(core, method), key)
    call(core.sim_distance, key, key)
    call(core.dependency_chain, key, "x")
    call(core.bfs_depended_by, key, n)
    call(core.history_recent, n)
    call(core.hot_nodes, n)
    call(core.sim_pairs, n)
    call(head.set_sketch, blob, n, n)
    call(head.set_sketch, core.sketch_bytes(), n, n)
    call(head.put_proofs, [(key, n, n, n, n, n)])


def test_lone_surrogates_are_value_errors() -> None:
    for fn, args in [
        (_core.KeyCycleDetector(3).add, ("\ud800",)),
        (_core.minhash_signature, ("\ud800",)),
        (_core.minhash_signatures, (["ok", "\udc00"],)),
        (_core.ClauseDb().add, (1, [("\ud800", "v", False)])),
        (_core.StateCore(1, 1).proof_get, ("\ud800",)),
    ]:
        with pytest.raises(ValueError, match="surrogate"):
            fn(*args)


def test_nan_and_infinite_distances_are_rejected() -> None:
    core = _core.StateCore(8, 8)
    for d in (math.nan, math.inf, -math.inf, -1.0):
        with pytest.raises(ValueError, match="distance"):
            core.apply_ops([(3, [("a", "b", d)])])
    assert core.sim_len() == 0


# ---------------------------------------------------------------- crash-prone: in a subprocess

CRASH_CASES = {
    # Each used to panic (debug builds) or abort the interpreter (allocation failure).
    "cycle-window-u64-max": "d = c.CycleDetector(2**64 - 1); d.add(1); assert d.add(1) == [1]",
    "key-window-u64-max": "d = c.KeyCycleDetector(2**64 - 1); d.add('a'); d.add_many(['a', 'b'])",
    "digraph-u32-max-nodes": "c.Digraph(2**32 - 2, b'')",
    "digraph-2-31-nodes": "c.Digraph(2**31, b'')",
    "digraph-max-nodes-plus-one": "c.Digraph(2**26 + 1, b'')",
    "digraph-max-nodes-works": (
        "g = c.Digraph(2**26, bytes(8))\n"
        "assert (g.node_count, g.successors(0), g.bfs_within(2**26 - 1, 2)) == "
        "(2**26, [0], ([2**26 - 1], [0]))"
    ),
    "digraph-huge-node-count": "c.Digraph(2**64 - 1, b'')",
    "wal-encode-seq-overflow": "c.wal_encode(2**64 - 1, [b'a', b'b'])",
    "wal-scan-seq-u64-max": (
        "b = c.wal_encode(2**64 - 1, [b'x']) + c.wal_encode(0, [b'y'])\n"
        "p, _, _, stop, found = c.wal_scan(b, 0, 2**64 - 1, 10)\n"
        "assert (p, stop, found) == ([b'x'], 6, 0), (p, stop, found)"
    ),
    "wal-resync-far-start": "assert c.wal_resync(b'x' * 64, 2**63, True) is None",
    "sim-pairs-huge-limit": "c.StateCore(2**64 - 1, 2**64 - 1).sim_pairs(2**64 - 1)",
    "history-recent-huge": "c.StateCore(1, 1).history_recent(2**64 - 1)",
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("code", CRASH_CASES.values(), ids=CRASH_CASES.keys())
def test_crash_prone_inputs_in_a_subprocess(code: str) -> None:
    script = textwrap.dedent(
        """
        import sys
        from crs import _core as c
        try:
        {body}
        except BaseException as e:
            if type(e).__name__ == "PanicException" or not isinstance(e, {allowed}):
                print("BAD", type(e).__name__, e)
                sys.exit(3)
            print("RAISED", type(e).__name__, e)
        else:
            print("OK")
        """
    ).format(
        body=textwrap.indent(code, "    "),
        allowed="(" + ", ".join(t.__name__ for t in ALLOWED) + ")",
    )
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,
        check=False,
    )
    assert r.returncode == 0, f"rc={r.returncode}\n{r.stdout}\n{r.stderr[-2000:]}"
    assert r.stdout.startswith(("OK", "RAISED"))
    if r.stdout.startswith("RAISED"):
        assert "ValueError" in r.stdout
        assert "node_count" in r.stdout or "first_seq" in r.stdout


def test_native_errors_name_the_argument() -> None:
    g = _core.Digraph(2, b"")
    db = _core.ClauseDb()
    db.add(1, [("f", "v", False)])
    cases: list[tuple[Callable[[], Any], str]] = [
        (lambda: _core.Digraph(2**26 + 1, b""), "node_count"),
        (lambda: _core.Digraph(2, array.array("I", [0, 5])), "edges"),
        (lambda: _core.Digraph(2, array.array("I", [0])), "edges"),
        (lambda: _core.Digraph(2**25, np.array([[0, 1]], dtype=">u4")), "edges"),
        (lambda: _core.Digraph(2, np.frombuffer(bytes(9), np.uint32, 2, 1)), "edges"),
        (lambda: g.successors(2), "node"),
        (lambda: g.bfs_within(7, 1), "start"),
        (lambda: db.add(2, []), "literals"),
        (lambda: db.add(1, [("f", "w", True)]), "literals"),
        (lambda: db.check([("f", "v"), ("f", "w")]), "observed"),
        (lambda: db.check_all([("f", "v"), ("f", "w")]), "observed"),
        (lambda: db.check_assignment([("f", "v", True), ("f", "v", False)]), "assignment"),
        (lambda: _core.minhash_jaccard(b"", bytes(512)), "a"),
        (lambda: _core.minhash_jaccard(bytes(512), b"x"), "b"),
        (lambda: _core.LshIndex().insert(1, b"short"), "signature"),
        (lambda: _core.LshIndex().query(b"short"), "signature"),
        (lambda: _core.wal_encode(2**64 - 1, [b"a", b"b"]), "first_seq"),
        (lambda: _core.wal_scan(b"", 1, 0, 1), "start"),
        (lambda: _core.KeyCycleDetector(2).add(""), "state"),
        (lambda: _core.KeyCycleDetector(2).add_many(["a", ""]), "states[1]"),
    ]
    for fn, arg in cases:
        with pytest.raises(ValueError, match="^" + re.escape(arg)):
            fn()
    assert len(db) == 1
    assert db.variable_count == 1, "rejected adds leave no variables behind"
    little = _core.Digraph(2**25, np.array([[0, 1]], dtype="<u4"))
    assert little.successors(0) == [1], "explicit little-endian is native here"
