"""The watched-literal clause database against a naive three-valued reference (spec §5.8)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crs import _core

Literal = tuple[str, str, bool]
Clause = tuple[int, list[Literal]]

FAMILIES = ["tool", "prev_tool", "outcome", "error"]
VALUES = ["a", "b", "c", "d"]


def one_hot(observed: list[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """Explicit assignment of every variable of the observed families (known values only)."""
    fams = dict(observed)
    return {(f, v): fams[f] == v for f in fams for v in [*VALUES, "zz"]}


def lit_value(assign: dict[tuple[str, str], bool], lit: Literal) -> bool | None:
    f, v, neg = lit
    val = assign.get((f, v))
    return None if val is None else val != neg


def violated(clauses: list[Clause], assign: dict[tuple[str, str], bool]) -> list[int]:
    """Ids of the clauses whose literals are all false, in insertion order."""
    return [cid for cid, lits in clauses if all(lit_value(assign, x) is False for x in lits)]


literal = st.tuples(st.sampled_from(FAMILIES), st.sampled_from(VALUES), st.booleans())
clause_lists = st.lists(st.lists(literal, min_size=1, max_size=5), max_size=25)
observation = st.dictionaries(st.sampled_from(FAMILIES), st.sampled_from([*VALUES, "zz"]))
assignment = st.dictionaries(
    st.tuples(st.sampled_from(FAMILIES), st.sampled_from([*VALUES, "zz"])), st.booleans()
)


def build(lits: list[list[Literal]]) -> tuple[_core.ClauseDb, list[Clause]]:
    db = _core.ClauseDb()
    clauses = [(100 - i, c) for i, c in enumerate(lits)]  # ids not in age order
    for cid, c in clauses:
        db.add(cid, c)
    return db, clauses


@given(clause_lists, observation, st.data())
def test_check_matches_reference(
    lits: list[list[Literal]], obs: dict[str, str], data: st.DataObject
) -> None:
    db, clauses = build(lits)
    # Remove some clauses to exercise the watch lists' bookkeeping.
    gone = data.draw(st.sets(st.sampled_from([c for c, _ in clauses]))) if clauses else set()
    for cid in gone:
        assert db.remove(cid)
    clauses = [c for c in clauses if c[0] not in gone]
    observed = list(obs.items())
    want = violated(clauses, one_hot(observed))
    assert db.check_all(observed) == want
    assert db.check(observed) == (want[0] if want else None)
    assert len(db) == len(clauses)
    assert db.ids() == [c for c, _ in clauses]


@given(clause_lists, assignment)
def test_check_assignment_matches_reference(
    lits: list[list[Literal]], assign: dict[tuple[str, str], bool]
) -> None:
    db, clauses = build(lits)
    explicit = [(f, v, b) for (f, v), b in assign.items()]
    want = violated(clauses, assign)
    assert db.check_assignment_all(explicit) == want
    assert db.check_assignment(explicit) == (want[0] if want else None)


# `family:value` names as `CRS.check_assignment` takes them: values with colons, names
# without one (their own family, value ""), and "tool" / "tool:" naming the same variable.
name = st.one_of(
    st.builds(lambda f, v: f"{f}:{v}", st.sampled_from(FAMILIES), st.sampled_from([*VALUES, "zz"])),
    st.sampled_from([*FAMILIES, "tool:", "a:b:c", "x:"]),
)


def names_reference(clauses: list[Clause], assign: dict[str, bool]) -> list[int] | None:
    """Violated clause ids of a names dict, or None when two names contradict."""
    split: dict[tuple[str, str], bool] = {}
    for n, b in assign.items():
        head, sep, tail = n.partition(":")
        key = (head, tail) if sep else (n, "")
        if split.setdefault(key, b) != b:
            return None
        split[key] = b
    return violated(clauses, split)


@given(
    st.lists(
        st.lists(
            st.tuples(
                st.sampled_from([*FAMILIES, "a", "x"]),
                st.sampled_from([*VALUES, "", "b:c"]),
                st.booleans(),
            ),
            min_size=1,
            max_size=5,
        ),
        max_size=25,
    ),
    st.dictionaries(name, st.booleans()),
)
def test_check_names_matches_reference(lits: list[list[Literal]], assign: dict[str, bool]) -> None:
    db, clauses = build(lits)
    want = names_reference(clauses, assign)
    if want is None:
        with pytest.raises(ValueError, match="both true and false"):
            db.check_names(assign)
    else:
        assert db.check_names(assign) == (want[0] if want else None)


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ({"tool:a": 1}, TypeError),
        ({"tool:a": None}, TypeError),
        ({3: True}, TypeError),
        ({b"tool:a": True}, TypeError),
        ({"": True}, ValueError),
        ({"tool:\ud800": True}, ValueError),  # lone surrogate: no UTF-8
    ],
)
def test_check_names_refuses_bad_entries(bad: dict[object, object], error: type) -> None:
    db = _core.ClauseDb()
    db.add(1, [("tool", "a", True)])
    with pytest.raises(error):
        db.check_names(bad)  # type: ignore[arg-type]
    assert db.check_names({"tool:a": True}) == 1


def test_positive_literals_block_under_one_hot() -> None:
    # The Go engine never assigned false, so this clause could never fire there.
    db = _core.ClauseDb()
    db.add(1, [("tool", "read_file", False), ("outcome", "failure", True)])
    assert db.check([("tool", "write_file"), ("outcome", "failure")]) == 1
    assert db.check([("tool", "read_file"), ("outcome", "failure")]) is None
    assert db.check([("tool", "write_file")]) is None, "outcome unobserved: unassigned"
    assert db.check([("tool", "unknown_tool"), ("outcome", "failure")]) == 1
    assert db.variable_count == 2


def test_errors_leave_the_database_unchanged() -> None:
    db = _core.ClauseDb()
    db.add(1, [("tool", "x", True)])
    with pytest.raises(ValueError, match="no literals"):
        db.add(2, [])
    with pytest.raises(ValueError, match="already in the database"):
        db.add(1, [("tool", "y", True)])
    with pytest.raises(ValueError, match="observed twice"):
        db.check([("tool", "x"), ("tool", "y")])
    with pytest.raises(ValueError, match="both true and false"):
        db.check_assignment([("tool", "x", True), ("tool", "x", False)])
    with pytest.raises(ValueError, match="length 3"):
        db.add(3, [("tool", "x")])  # type: ignore[list-item]
    assert db.ids() == [1]
    assert 1 in db
    assert 2 not in db
    assert not db.remove(2)
    db.clear()
    assert len(db) == 0
