"""The Rust fast paths of the guard's call identity (`crs._core`: `blake2b_hex`,
`shell_canon`, `canon_flat`, `digest_text`) against their Python references
(`hashlib`, `shlex`, `crs.guard._canon.canonical_args` + `signature`, `_text_digest`).

Signatures and digests are persisted (journals, backups, learned failures): the fast paths
must give the very same bytes on every input they accept, and decline (None) the rest.
"""

from __future__ import annotations

import hashlib
import shlex
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs.guard import Guard, _canon
from crs.guard._policy import COMMAND_FIELDS

# Characters that matter to shlex, Python's repr, str.strip and posixpath, plus non-ASCII.
_SHELL_ALPHABET = [
    *"ab-_./=*?$;|&<>(){}#~!%@+,:",
    *"'\"\\",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x00",
    "\x7f",
    "é",
    "ß",
    "\u00a0",
    "\u2003",
    "x1",
    "ls",
    "-la",
    "''",
    '""',
]
shell_text = st.lists(st.sampled_from(_SHELL_ALPHABET), max_size=30).map("".join)
_PATH_ALPHABET = ["/", "//", ".", "..", "a", "b.py", " ", "://", "~", "\t"]
path_text = st.lists(st.sampled_from(_PATH_ALPHABET), max_size=12).map("".join)


def reference_shell(text: str) -> str | None:
    try:
        return shlex.join(shlex.split(text))
    except ValueError:
        return None


@settings(max_examples=2000)
@given(st.binary(max_size=600), st.integers(1, 64))
def test_blake2b_agrees_with_hashlib(data: bytes, size: int) -> None:
    assert _core.blake2b_hex(data, size) == hashlib.blake2b(data, digest_size=size).hexdigest()


@pytest.mark.parametrize("n", [0, 1, 127, 128, 129, 255, 256, 257, 1000, 100_000])
def test_blake2b_agrees_with_hashlib_at_block_edges(n: int) -> None:
    data = bytes(range(256)) * (n // 256 + 1)
    assert _core.blake2b_hex(data[:n], 16) == hashlib.blake2b(data[:n], digest_size=16).hexdigest()


def test_blake2b_refuses_a_bad_size() -> None:
    for size in (0, 65):
        with pytest.raises(ValueError, match="size"):
            _core.blake2b_hex(b"x", size)


@settings(max_examples=5000)
@given(shell_text)
def test_the_shell_splitter_agrees_with_shlex(text: str) -> None:
    assert _core.shell_canon(text) == reference_shell(text)


@settings(max_examples=2000)
@given(st.text(max_size=40))
def test_the_shell_splitter_agrees_with_shlex_on_any_text(text: str) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            _core.shell_canon(text)
        return
    assert _core.shell_canon(text) == reference_shell(text)
    assert _canon._norm_command(text) == _canon._norm_command_reference(text)


def test_the_shell_splitter_on_known_cases() -> None:
    assert _core.shell_canon('git commit -am "port x"') == "git commit -am 'port x'"
    assert _core.shell_canon("echo 'it'\"'\"'s'") == "echo 'it'\"'\"'s'"
    assert _core.shell_canon('a "b\\"c\\d"') == "a 'b\"c\\d'"
    assert _core.shell_canon("a 'b") is None
    assert _core.shell_canon("a \\") is None
    assert _core.shell_canon("") == ""


_KEYS = ["path", "file_path", "cwd", "command", "cmd", "pattern", "query", "n", "description"]
_DROP = frozenset({"description"})
flat_value = st.one_of(
    shell_text,
    path_text,
    st.text(max_size=8),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([10**4000 - 1, 10**4000, -(10**4001), 2**63, -(2**63), 2**63 - 1]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
)
flat_args = st.dictionaries(st.sampled_from([*_KEYS, "é", "a b", "'q\""]), flat_value, max_size=5)


def reference_identity(tool: str, args: Any) -> tuple[str, dict[str, Any], str]:
    canon, flat, cmd = _canon.canonical_args(args, _DROP, COMMAND_FIELDS)
    return _canon.signature(tool, canon, flat), canon, cmd


def _is_fast(args: dict[str, Any]) -> bool:
    """Inputs the Rust path must take: ASCII str keys and values (commands that shlex
    splits), ints, bools, None."""
    for k, v in args.items():
        if k in _DROP:
            continue
        if not k.isascii():
            return False
        if type(v) is str:
            if not v.isascii():
                return False
            if k in COMMAND_FIELDS and reference_shell(v) is None:
                return False
        elif type(v) is int:
            if not -(2**63) <= v < 2**63:  # longer ints: the Python code bounds their digits
                return False
        elif not (v is None or type(v) is bool):
            return False
    return True


@settings(max_examples=3000)
@given(st.sampled_from(["read_file", "bash", "grép"]), flat_args)
def test_the_one_pass_identity_agrees_with_canonical_args_and_signature(
    tool: str, args: dict[str, Any]
) -> None:
    try:
        want = reference_identity(tool, args)
    except Exception as exc:  # the Rust path declines what Python refuses
        assert _core.canon_flat(tool, args, _DROP, COMMAND_FIELDS, _canon.PATH_KEYS) is None
        with pytest.raises(type(exc)):
            _canon.call_identity(tool, args, _DROP, COMMAND_FIELDS)
        return
    got = _core.canon_flat(tool, args, _DROP, COMMAND_FIELDS, _canon.PATH_KEYS)
    if _is_fast(args):
        assert got is not None
    if got is not None:
        assert got == want
        assert [type(v) for v in got[1].values()] == [type(v) for v in want[1].values()]
        assert list(got[1]) == list(want[1])  # the same order
    assert _canon.call_identity(tool, args, _DROP, COMMAND_FIELDS) == want


def test_the_one_pass_identity_declines_what_it_does_not_take() -> None:
    class Sub(str):
        pass

    from collections import OrderedDict

    for args in (
        OrderedDict(path="a"),
        {Sub("path"): "a"},
        {"path": Sub("a")},
        {"n": 1.0},
        {"n": 2.5},
        {"path": "é"},
        {"command": "echo 'x"},
        {"x": [1]},
        {"x": "\ud800"},
    ):
        assert _core.canon_flat("t", args, _DROP, COMMAND_FIELDS, _canon.PATH_KEYS) is None


def test_signatures_are_the_pinned_ones_through_the_guard() -> None:
    # The same pins as tests/guard/test_guard_volatile.py, plus a quoted command.
    g = Guard()
    assert g.call_for("read_file", {"path": "./src/a.py "}).signature == (
        "fc0542e1411825356080f19a777c24ac"
    )
    assert g.call_for("bash", {"command": "pytest  -q", "description": "x"}).signature == (
        "346e5ad51301746e765fcef135b6b09d"
    )
    quoted = g.call_for("bash", {"command": "git commit -am 'a b'"}).signature
    assert quoted == g.call_for("bash", {"command": 'git  commit -am "a b"'}).signature
    canon, flat, _ = _canon.canonical_args(
        {"command": "git commit -am 'a b'"}, frozenset(), COMMAND_FIELDS
    )
    assert quoted == _canon.signature("bash", canon, flat)


ascii_text = st.lists(
    st.sampled_from(
        [
            *"ab x#:.-",
            " ",
            "\t",
            "\n",
            "\x1c",
            "\x00",
            "12",
            "3 ms",
            "0x1234abcd",
            "10:00:00",
            "2024-01-01T10:00:00Z",
            "in 1.5s",
            "src/a.py",
            "echo",
        ]
    ),
    max_size=25,
).map("".join)


@settings(max_examples=3000)
@given(
    ascii_text,
    st.lists(st.sampled_from(["src/a.py", "echo", "abab", "x#:.", "3 ms", "é-x", ""]), max_size=3),
    st.booleans(),
)
def test_the_text_digest_agrees_with_python(text: str, echo: list[str], as_tuple: bool) -> None:
    words: Any = tuple(echo) if as_tuple else echo
    got = _core.digest_text(text, words)
    want = _canon._text_digest(text, words)
    if all(e and e.isascii() for e in echo):
        assert got == want
    else:
        assert got is None
    assert _canon.result_digest(text, words) == want


@settings(max_examples=1000)
@given(st.text(max_size=30), st.lists(st.text(min_size=1, max_size=4), max_size=2))
def test_the_text_digest_agrees_on_any_text(text: str, echo: list[str]) -> None:
    try:
        want = _canon._text_digest(text, echo)
    except Exception as exc:
        with pytest.raises(type(exc)):
            _canon.result_digest(text, echo)
        return
    assert _canon.result_digest(text, echo) == want


@settings(max_examples=2000)
@given(
    ascii_text,
    st.dictionaries(
        st.sampled_from(["path", "pattern", "n", "q"]),
        st.one_of(
            st.sampled_from(["src/a.py", "echo", "abc", "ab ab", "x#:.", "3 ms", "é-xx", ""]),
            st.text(max_size=6),
            st.integers(),
            st.none(),
        ),
        max_size=4,
    ),
)
def test_the_text_digest_of_a_call_picks_its_echo_as_after_call_does(
    text: str, canon: dict[str, Any]
) -> None:
    # after_call hands the call's canonical arguments: their str values of 4 or more
    # characters are the echo.
    from crs.guard._guard import _echo

    assert _core.digest_text(text, canon) == _canon._text_digest(text, _echo(canon))


@settings(max_examples=3000)
@given(
    st.one_of(
        st.lists(
            st.sampled_from([*"/\\.:~-_aZ9é \n", "://", "..", "a.py", "x" * 9]), max_size=8
        ).map("".join),
        st.text(max_size=12),
    )
)
def test_the_path_test_agrees_with_its_regex(text: str) -> None:
    assert _canon._pathlike(text) == (_canon._PATHLIKE.search(text) is not None)


def test_the_digests_are_the_pinned_ones() -> None:
    # features' identifier digest, short ids and error digests, now through _core.blake2b_hex
    assert _canon.short_digest("f") == hashlib.blake2b(b"f", digest_size=4).hexdigest()
    assert _canon.error_digest("Error: 12 failed") == (
        hashlib.blake2b(b"e" + b"Error: # failed", digest_size=8).hexdigest()
    )
    feat = _canon.features({"pattern": "def f", "path": "src"}, COMMAND_FIELDS, str)
    ident = hashlib.blake2b(repr([("path", "src")]).encode(), digest_size=8).hexdigest()
    assert feat == f"{ident}|pattern:def pattern:f"


# `Guard._identify`'s one Rust pass (`_core.identify_flat`) against its Python reference
# (`Guard._slow_identity`: the commentary fields spelt another way left out, then
# `canon_flat` or the Python functions), and its "may wait" flag against `_waits`.
_ID_KEYS = [
    *_KEYS,
    "Description",
    "REASON",
    "just-ification",
    "Just_ification",
    "file-path",
    "yield_time_ms",
    "timeout",
    "code",
    "action",
    "op",
    "chars",
    "session_id",
]
id_value = st.one_of(
    flat_value,
    st.sampled_from(["wait", "poll", "time.sleep(5)", "scroll_down", "", "7"]),
    st.integers(-3, 30_000),
)
id_args = st.dictionaries(st.sampled_from([*_ID_KEYS, "é", "Dé"]), id_value, max_size=6)


@settings(max_examples=3000)
@given(st.sampled_from(["read_file", "bash", "write_stdin", "process"]), id_args)
def test_the_identify_pass_agrees_with_its_python_reference(
    tool: str, args: dict[str, Any]
) -> None:
    from crs.guard import _guard

    g = Guard()
    lim = g._limits_for(tool)
    fast = _core.identify_flat(
        tool,
        args,
        lim.ignore_fields,
        lim.ignore_keys,
        g._commands,
        _canon.PATH_KEYS,
        _guard._WAIT_ARGS,
    )
    try:
        want = g._slow_identity(tool, args, lim)
    except Exception as exc:  # the Rust path declines what Python refuses
        assert fast is None
        with pytest.raises(type(exc)):
            g._identify(tool, args)
        return
    if fast is not None:
        assert fast[:3] == want[:3]
        assert list(fast[1]) == list(want[1])  # the same order
        assert [type(v) for v in fast[1].values()] == [type(v) for v in want[1].values()]
        if not fast[3]:  # "cannot wait": `_waits` agrees
            assert not _guard._waits(fast[1], g._poll_re.search)
    assert g._identify(tool, args)[2:4] == (want[0], want[1])


def test_the_identify_pass_leaves_out_commentary_spelt_another_way() -> None:
    g = Guard()
    plain = g.call_for("bash", {"command": "ls"}).signature
    for extra in ({"Description": "x"}, {"REASON": "y"}, {"just-ification": "z"}):
        assert g.call_for("bash", {"command": "ls", **extra}).signature == plain
    # a call that waits, found through the flag (`write_stdin` with a yield time)
    v = g.before_call("write_stdin", {"session_id": 7, "chars": "", "yield_time_ms": 30000})
    assert g._pending[v.call.call_id][0] is True
