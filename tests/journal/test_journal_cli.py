"""`crs journal verify|replay` on real journals, run as a user would (a subprocess)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from crs import JournalConfig, LocalJournal
from steps import tool_step


def crs_cli(*args: str, stderr: int = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", "journal", *args],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        check=False,
    )


def make_journal(path: Path, n: int) -> None:
    with LocalJournal(JournalConfig(path=str(path), session_id="cli", sync_policy="none")) as j:
        for start in range(0, n, 100):
            j.append_batch([{"n": i} for i in range(start, min(n, start + 100))])


def test_verify_and_replay(tmp_path: Path) -> None:
    make_journal(tmp_path, 250)
    res = crs_cli("verify", str(tmp_path), "--json")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert (report["ok"], report["records"], report["last_seq"]) == (True, 250, 250)
    res = crs_cli("replay", str(tmp_path), "--after", "247")
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert lines == [{"seq": s, "entry": {"v": 1, "e": {"n": s - 1}}} for s in (248, 249, 250)]


def test_verify_reports_damage(tmp_path: Path) -> None:
    make_journal(tmp_path, 50)
    seg = next(tmp_path.glob("*.wal"))
    data = bytearray(seg.read_bytes())
    data[200] ^= 0x10
    seg.write_bytes(bytes(data))
    res = crs_cli("verify", str(tmp_path))
    assert res.returncode == 1
    assert "DAMAGED" in res.stdout
    assert "JournalCorruptedError" in res.stdout
    res = crs_cli("verify", str(tmp_path), "--skip-corrupted", "--json")
    report = json.loads(res.stdout)
    assert report["skipped"] >= 1
    assert report["records"] + report["skipped"] == 50
    assert crs_cli("replay", str(tmp_path)).returncode == 1
    assert crs_cli("verify", str(tmp_path / "missing")).returncode == 1


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    make_journal(tmp_path, 30_000)
    master, slave = pty.openpty()
    try:
        res = crs_cli("verify", str(tmp_path), stderr=slave)
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert res.returncode == 0
    assert b"records" in shown
    assert b"30000/30000" in shown or b"%" in shown
    res = crs_cli("verify", str(tmp_path))  # not a terminal: no bar
    assert res.stderr == ""


def test_crs_journal_is_decoded_with_the_delta_codec(tmp_path: Path) -> None:
    import crs

    with crs.CRS.open(tmp_path / "j") as state:
        state.apply(crs.ProofDelta(crs.SignalSource.HARD, {"a": crs.ProofNumber(proof=4)}))
        state.apply(crs.DependencyDelta(crs.SignalSource.HARD, add_edges=[("a", "b")]))
        state.record_step(tool_step("grep"))
    done = crs_cli("verify", str(tmp_path / "j"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kinds"] == {"delta": 2, "op": 1, "json": 0, "bytes": 0}
    out = crs_cli("replay", str(tmp_path / "j"))
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["seq"] for line in lines] == [1, 2, 3]
    assert lines[0]["delta"]["type"] == "proof"
    assert lines[0]["delta"]["updates"]["a"]["proof"] == 4
    assert lines[1]["delta"]["add_edges"] == [["a", "b"]]
    assert lines[2]["op"]["op"] == "record_step"
    assert lines[2]["op"]["payload"]["step"]["tool"] == "grep"
    assert lines[2]["op"]["bump_generation"] is False
