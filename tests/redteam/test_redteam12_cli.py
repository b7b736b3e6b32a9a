"""Red team, twelfth pass: `crs guard` on a project whose guard journal holds a damaged
record (one flipped byte of the real write-ahead log).

No guard opens such a project (`Guard.open` raises `JournalCorruptedError`; the Claude Code
hook fails open on every call: nothing is guarded there), and the error's advice, "open
with skip_corrupted_deltas=True", names an option no `Guard.open` or command takes. `crs
guard status|learned|forget` now say what the user can do: where the journal is, the
commands that inspect it and its backup, and that moving it aside starts afresh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crs import JournalCorruptedError
from crs._cli import main as crs_main
from crs.guard import Guard


def _damaged_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home) as g:
        for i in range(3):
            v = g.before_call("build", {"target": f"t{i}"})
            assert v.call is not None
            g.after_call(v.call, error="make: *** [all] Error 2")
    (journal,) = home.glob("*/journal")
    (wal,) = journal.glob("*.wal")
    data = bytearray(wal.read_bytes())
    data[100] ^= 0xFF  # inside the first record's payload
    wal.write_bytes(bytes(data))
    return project, home, journal


@pytest.mark.parametrize("action", [["status"], ["learned"], ["forget", "x"]])
def test_a_damaged_journal_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: list[str]
) -> None:
    project, home, journal = _damaged_project(tmp_path)
    with pytest.raises(JournalCorruptedError):
        Guard.open(project, "s", home=home)
    capsys.readouterr()
    argv = ["guard", *action, "--project", str(project), "--home", str(home)]
    assert crs_main(argv) == 1
    err = capsys.readouterr().err
    assert "damaged" in err
    assert f"crs journal verify --skip-corrupted {journal}" in err  # before: not said
    assert f"move {journal} aside" in err
    assert "Traceback" not in err


def test_moving_the_journal_aside_starts_afresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the message says works: the project opens again, with nothing learned."""
    project, home, journal = _damaged_project(tmp_path)
    journal.rename(journal.with_name("journal.damaged"))
    capsys.readouterr()
    assert crs_main(["guard", "learned", "--project", str(project), "--home", str(home)]) == 0
    assert "no learned failures" in capsys.readouterr().out
    with Guard.open(project, "s", home=home) as g:
        assert g.learned() == []
