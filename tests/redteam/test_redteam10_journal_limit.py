"""Red team, tenth pass: a long-lived writer reaching the project journal's size limit
(1 GiB by default; lowered to 256 KiB in these real processes, by the module constant
`DefaultJournalConfig` reads, so the limit is reached in a few thousand calls).

`crs.open_project` (so `Guard.open`) installs a full handler that saves the project's
backups and checkpoints the journal, but left `auto_checkpoint` off: the handler never ran,
and once the journal held 1 GiB every record was refused with `JournalFullError` (the hook
saves backups as it goes; an agent server's `Guard.open` saves none). Now the journal
checkpoints itself at the limit, with other writers of the project appending meanwhile.
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

_WRITER = textwrap.dedent(
    """
    import json, sys
    import crs._journal._base as base
    base.DEFAULT_MAX_JOURNAL_BYTES = 256 << 10
    from crs.guard import Guard
    project, home, session, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    done, error = 0, None
    with Guard.open(project, session, home=home) as g:
        try:
            for i in range(n):
                v = g.before_call("read", {"path": f"{session}/f{i}.py"})
                g.after_call(v.call, result=f"content {i}")
                done += 1
        except Exception as exc:
            error = type(exc).__name__ + ": " + str(exc)[:200]
    print(json.dumps({"done": done, "error": error}))
    """
)


def test_writers_past_the_journal_limit_go_on_and_keep_every_call(tmp_path: Path) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    n = 2500  # ~2.4 times the limit each
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(project), str(home), name, str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name in ("a", "b")
    ]
    outs, errs = [], []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err[-2000:]
        outs.append(json.loads(out.strip().splitlines()[-1]))
        errs.append(err)
    assert outs == [{"done": n, "error": None}] * 2
    assert any("automatic checkpoint" in e for e in errs)  # (not vacuous: the limit hit)
    with Guard.open(project, "reader", home=home) as g:
        for name in ("a", "b"):
            status = g.with_session(name).status()
            assert (status["calls"], status["last_step"]) == (n, n)
        info = g.crs.project_info()
        assert info.restored_from_backup
        assert info.replayed_records < 2 * n


def test_a_long_lived_writer_saves_a_backup_when_it_closes(tmp_path: Path) -> None:
    """Such a writer never saved a backup: every later open (each restart of the agent
    server, each `crs guard status`) replayed every call it ever journaled (up to the 1 GiB
    limit: millions of records). Its `close()` now saves one when the journal holds more
    than `_BACKUP_AT_CLOSE` records past the backups; a short session saves none."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "short", home=home) as g:
        for i in range(10):
            v = g.before_call("read", {"path": f"s{i}.py"})
            assert v.call is not None
            g.after_call(v.call, result="x")
    with Guard.open(project, "reader", home=home) as g:
        assert not g.crs.project_info().restored_from_backup  # (10 records: no backup)
    from crs.guard import _guard

    n = _guard._BACKUP_AT_CLOSE + 100
    with Guard.open(project, "long", home=home) as g:
        for i in range(n):
            v = g.before_call("read", {"path": f"f{i}.py"})
            assert v.call is not None
            g.after_call(v.call, result=f"content {i}")
    with Guard.open(project, "reader", home=home) as g:
        info = g.crs.project_info()
        assert info.restored_from_backup
        assert info.replayed_records == 0
        assert g.with_session("long").status()["calls"] == n
