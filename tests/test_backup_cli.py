"""`crs backup status|save|restore`."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import crs
from crs import BackupOptions, PersistenceManager
from crs import _backup_cli as backup_cli
from crs._cli import main
from persist_state import ListJournal, ProofState, Record


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


def test_save_and_restore_until_wired_fail_clearly(tmp_path: Path) -> None:
    done = run("save", str(tmp_path), "--home", str(tmp_path / "h"))
    assert done.returncode == 2
    assert "not wired yet" in done.stderr


def test_save_and_restore_plumbing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ProofState.generate(50)
    journal = ListJournal([Record(("add", state.ids[0], 1), 51)])
    opened: list[ProofState] = []

    def open_state(pm: Any, key: str) -> tuple[ProofState, ListJournal]:
        target = state if len(opened) < 2 else ProofState()  # two saves, then restores
        opened.append(target)
        return target, journal

    monkeypatch.setattr(backup_cli, "_open_project_state", open_state)
    home = str(tmp_path / "h")
    assert main(["backup", "save", str(tmp_path), "--home", home, "--export", "--json"]) == 0
    meta = json.loads(capsys.readouterr().out)
    assert meta["generation"] == 50
    assert Path(meta["export_path"]).is_file()
    assert main(["backup", "save", str(tmp_path), "--home", home]) == 0
    assert "saved backup of" in capsys.readouterr().out
    assert main(["backup", "restore", str(tmp_path), "--home", home]) == 0
    out = capsys.readouterr().out
    assert "restored: True" in out
    assert "1 deltas replayed" in out
    assert opened[-1].gen == 51
    assert main(["backup", "restore", str(tmp_path), "--home", home, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["journal_position"] == 51


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
