"""The Rust scanner of a result's volatile parts (`crs._core.mask_volatile`) against the
regex it stands for (`crs.guard._canon._VOLATILE`, the slow reference) on ASCII text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs.guard import _canon

# Pieces that build near-misses of every alternative: dates, clock times, durations with
# and without a space or fraction, hex addresses, and the characters at their edges.
PIECES = st.sampled_from(
    [
        *"0123456789",
        "2024",
        "-",
        ":",
        ".",
        "T",
        " ",
        "Z",
        "+",
        "_",
        "x",
        "0x",
        "abcdef",
        "ms",
        "s",
        "sec",
        "secs",
        "second",
        "seconds",
        "us",
        "ns",
        "min",
        "mins",
        "minute",
        "minutes",
        "\t",
        "\x1c",
        "\n",
        "a",
    ]
)


def reference(text: str) -> str:
    return _canon._VOLATILE.sub("#", text)


def scanner(text: str) -> str:
    masked = _core.mask_volatile(text)
    return text if masked is None else masked


@settings(max_examples=3000)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_scanner_agrees_with_the_regex_on_near_misses(text: str) -> None:
    assert scanner(text) == reference(text)


@settings(max_examples=1000)
@given(st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=80))
def test_scanner_agrees_with_the_regex_on_any_ascii(text: str) -> None:
    assert scanner(text) == reference(text)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("ran at 2024-05-06T07:08:09.123+02:00 ok", "ran at # ok"),
        ("3 passed in 0.12s", "3 passed in #"),
        ("elapsed 12:01:02.5", "elapsed #"),
        ("<object at 0x7f00deadbeef>", "<object at #>"),
        ("12 passed, file_3.py", "12 passed, file_3.py"),
    ],
)
def test_known_forms(text: str, masked: str) -> None:
    assert scanner(text) == masked == reference(text)


def test_non_ascii_text_keeps_the_regex() -> None:
    # `µs` and non-ASCII digits are the regex's: the guard never hands them to the scanner.
    text = "took 5 µs at \u0661\u0662:\u0663\u0660:\u0660\u0660"  # Arabic-Indic digits
    assert _canon.mask_volatile(text) == reference(text)
    with pytest.raises(ValueError, match="text: must be ASCII"):
        _core.mask_volatile("5 µs")


def test_signatures_and_digests_are_stable_across_versions() -> None:
    # Learned failures and loop history are keyed by these digests in journals and
    # backups: a faster implementation must compute the very same values.
    from crs.guard import Guard

    g = Guard()
    assert g.call_for("read_file", {"path": "src/a.py"}).signature == (
        "fc0542e1411825356080f19a777c24ac"
    )
    assert g.call_for("bash", {"command": "pytest  -q", "description": "x"}).signature == (
        "346e5ad51301746e765fcef135b6b09d"
    )
    assert g.call_for("grep", {"pattern": "def f", "path": "src", "n": 3}).signature == (
        "4c5f0c496e3f17d4f7cda55c8102d9b3"
    )
    assert _canon.result_digest("ran in 12ms at 2024-01-01T10:00:00Z") == "eb2e322ad6c75303"
    assert _canon.result_digest({"a": [1, "took 3 s"]}) == "fc3c39c82fcb6d95"


@settings(max_examples=3000)
@given(
    st.lists(
        st.sampled_from(
            [*"ab-_./=*?$;|&<>(){}#~!%@+,:", " ", "  ", "\t", "\n", "\r", "x1", "ls", "-la"]
        ),
        max_size=30,
    ).map("".join)
)
def test_the_plain_command_path_agrees_with_shlex(text: str) -> None:
    # The fast path of shell-command canonicalisation against shlex itself (the reference).
    import shlex

    assert _canon._norm_command(text) == shlex.join(shlex.split(text))
