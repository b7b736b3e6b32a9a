"""`crs backup status|save|restore`."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import crs
from crs import BackupOptions, PersistenceManager
from crs._cli import _backup as backup_cli
from crs._cli import main
from persist_state import ProofState
from steps import tool_step


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", "backup", *args], capture_output=True, text=True, check=False
    )


def saved_project(tmp_path: Path) -> tuple[Path, Path, ProofState]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    pm = PersistenceManager(replace(crs.DefaultPersistenceConfig(), base_dir=str(home)))
    state = ProofState.generate(1000)
    pm.save_backup(
        crs.compute_project_hash(proj), state, BackupOptions(session_id="s-9", project_path="p")
    )
    return home, proj, state


def test_status_json_and_table(tmp_path: Path) -> None:
    home, proj, state = saved_project(tmp_path)
    done = run("status", str(proj), "--home", str(home), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["has_backup"] is True
    assert doc["project_hash"] == crs.compute_project_hash(proj)
    assert doc["metadata"]["generation"] == state.gen
    assert doc["metadata"]["session_id"] == "s-9"
    assert doc["previous_backup"] is False
    assert 0 < doc["compression_ratio"] < 1

    done = run("status", str(proj), "--home", str(home), "--verify")
    assert done.returncode == 0, done.stderr
    lines = dict(
        line.split(None, 1) if "  " not in line else line.split("  ", 1)
        for line in done.stdout.splitlines()
    )
    assert lines["Generation"].strip() == "1000"
    assert lines["Session"].strip() == "s-9"
    assert "content hash and checksums OK" in done.stdout


def test_status_defaults_to_cwd_and_reports_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRS_HOME", str(tmp_path / "h"))
    assert main(["backup", "status"]) == backup_cli.EXIT_NO_BACKUP
    out = capsys.readouterr().out
    assert crs.compute_project_hash(tmp_path) in out
    assert "none (looked in" in out


def test_status_of_a_corrupt_backup_exits_2(tmp_path: Path) -> None:
    home, proj, _state = saved_project(tmp_path)
    meta = home / crs.compute_project_hash(proj) / "metadata.json"
    meta.write_text(meta.read_text().replace('"generation": 1000', '"generation": 1001'))
    done = run("status", str(proj), "--home", str(home))
    assert done.returncode == 2
    assert "metadata corrupted" in done.stderr
    done = run("status", str(proj), "--home", str(home), "--json")
    assert json.loads(done.stdout)["error"] == "MetadataCorruptedError"


def project_with_state(tmp_path: Path) -> tuple[Path, Path, int]:
    """A project whose state is a backup plus a journal tail of 2 records; its generation."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    with crs.open_project(proj, home) as state:
        for i in range(5):
            state.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        state.save_project_backup()
        state.apply(crs.DependencyDelta(1, add_edges=[("n1", "n2")]))
        state.record_step(tool_step("grep"))
        return home, proj, state.generation()


def test_save_loads_backup_and_tail_then_saves(tmp_path: Path) -> None:
    home, proj, gen = project_with_state(tmp_path)
    done = run("save", str(proj), "--home", str(home), "--export", "--json")
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)
    assert meta["generation"] == gen == 6
    assert meta["journal_position"] == 7
    assert Path(meta["export_path"]).is_file()
    with crs.open_project(proj, home) as state:  # the new backup covers the whole journal
        assert state.project_info().replayed_records == 0
        assert state.generation() == gen
        assert state.get_step_history("s")[0].tool == "grep"


def test_restore_reports_what_it_replayed(tmp_path: Path) -> None:
    home, proj, gen = project_with_state(tmp_path)
    done = run("restore", str(proj), "--home", str(home), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["restored"] is True
    assert result["generation"] == gen
    assert result["replayed_deltas"] == 2
    assert result["journal_position"] == 7
    table = run("restore", str(proj), "--home", str(home))
    assert "restored: True" in table.stdout
    assert "2 deltas replayed" in table.stdout


def test_restore_without_backup_exits_1(tmp_path: Path) -> None:
    done = run("restore", str(tmp_path), "--home", str(tmp_path / "h"))
    assert done.returncode == 1
    assert "no checkpoint found" in done.stdout


def test_list_projects(tmp_path: Path) -> None:
    home, proj, _state = saved_project(tmp_path)
    done = run("list", "--home", str(home), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["project_hash"] for r in rows] == [crs.compute_project_hash(proj)]
    assert rows[0]["project_path"] == "p"
    done = run("list", "--home", str(home))
    assert crs.compute_project_hash(proj) in done.stdout
    assert "1000" in done.stdout
    done = run("list", "--home", str(tmp_path / "empty"))
    assert "no projects" in done.stdout
