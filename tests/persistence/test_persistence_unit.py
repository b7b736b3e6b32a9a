"""PersistenceManager: configuration, paths, save/load round trips, rotation, index, errors."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import crs
from crs import (
    BackupCorruptedError,
    BackupImage,
    BackupMetadata,
    BackupNotFoundError,
    BackupOptions,
    BackupVersionMismatchError,
    InvalidArgumentError,
    MetadataCorruptedError,
    PersistenceConfig,
    PersistenceError,
    PersistenceManager,
    PersistenceManagerClosedError,
    RestoreInProgressError,
)
from crs._persistence import _backup_format as backup_format
from crs._persistence import _manager as persistence
from persist_state import ProofState

KEY = "0123456789abcdef"


def make_pm(tmp_path: Path, **changes: Any) -> PersistenceManager:
    cfg = replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / "home"), **changes)
    return PersistenceManager(cfg)


# ---------------------------------------------------------------- config


def test_default_config_uses_crs_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CRS_HOME", str(tmp_path / "h"))
    cfg = crs.DefaultPersistenceConfig()
    assert cfg.base_dir == str(tmp_path / "h")
    assert (cfg.compression_level, cfg.lock_timeout_sec, cfg.max_backup_retries) == (0, 30.0, 3)
    assert cfg.validate_on_restore is True
    pm = PersistenceManager()
    assert pm.base_dir == tmp_path / "h"
    assert (tmp_path / "h").is_dir()


def test_default_config_falls_back_to_dot_crs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRS_HOME", raising=False)
    assert crs.DefaultPersistenceConfig().base_dir == str(Path.home() / ".crs")


def test_zero_config_is_go_zero_values_and_invalid() -> None:
    cfg = PersistenceConfig()
    assert (cfg.base_dir, cfg.compression_level, cfg.lock_timeout_sec) == ("", 0, 0.0)
    with pytest.raises(InvalidArgumentError, match="base_dir must not be empty"):
        cfg.validate()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"compression_level": 17}, "compression_level must be 0-16"),
        ({"compression_level": -1}, "compression_level must be 0-16"),
        ({"compression_level": True}, "compression_level"),
        ({"lock_timeout_sec": 0}, "lock_timeout_sec must be positive"),
        ({"max_backup_retries": -1}, "max_backup_retries must be a non-negative int"),
    ],
)
def test_config_validation_names_the_field(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    cfg = replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path), **change)
    with pytest.raises(InvalidArgumentError, match=message):
        cfg.validate()
    with pytest.raises(InvalidArgumentError, match=message):
        PersistenceManager(cfg)


def test_config_type_checked() -> None:
    with pytest.raises(InvalidArgumentError, match="config must be a PersistenceConfig"):
        PersistenceManager({"base_dir": "/tmp"})  # type: ignore[arg-type]


# ---------------------------------------------------------------- hashes and paths


@pytest.mark.parametrize("good", ["01234567", "a" * 64, "0123456789abcdef"])
def test_validate_project_hash_accepts(good: str) -> None:
    crs.validate_project_hash(good)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("", "must not be empty"),
        ("0123456", "8-64 lower-case hex"),
        ("a" * 65, "8-64 lower-case hex"),
        ("0123456789ABCDEF", "8-64 lower-case hex"),
        ("../../etc", "8-64 lower-case hex"),
        (12345678, "must be a str"),
    ],
)
def test_validate_project_hash_rejects(bad: Any, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        crs.validate_project_hash(bad)


def test_path_helpers(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    d = tmp_path / "home" / KEY
    assert pm.project_dir(KEY) == d
    assert pm.backup_path(KEY) == d / "backups" / "latest.backup.lz4"
    assert pm.prev_backup_path(KEY) == d / "backups" / "latest.prev.backup.lz4"
    assert pm.lock_path(KEY) == d / "backups" / "latest.backup.lock"
    assert pm.metadata_path(KEY) == d / "metadata.json"
    assert pm.prev_metadata_path(KEY) == d / "metadata.prev.json"
    assert pm.export_path(KEY) == d / "export.json"
    assert pm.index_path() == tmp_path / "home" / "index.json"
    assert repr(pm).startswith("<PersistenceManager ")


# ---------------------------------------------------------------- round trips


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    state = ProofState.generate(5_000, seed=1)
    assert not pm.has_backup(KEY)
    assert pm.get_backup_metadata(KEY) is None
    meta = pm.save_backup(KEY, state, BackupOptions(session_id="s-1"))
    assert pm.has_backup(KEY)
    image = state.export_image()
    assert meta.project_hash == KEY
    assert meta.generation == state.gen == 5_000
    assert meta.journal_position == meta.delta_count == state.position
    assert meta.uncompressed_size == len(image.data)
    assert meta.compressed_size == pm.backup_path(KEY).stat().st_size
    assert 0 < meta.compression_ratio() < 1
    assert 0 <= meta.age() < 60
    assert meta.session_id == "s-1"
    assert meta.schema_version == crs.CURRENT_SCHEMA_VERSION
    assert meta.format_version == crs.BACKUP_FORMAT_VERSION
    assert meta.metadata_hash == meta.compute_metadata_hash()
    assert pm.get_backup_metadata(KEY) == meta

    target = ProofState()
    loaded = pm.load_backup(KEY, target)
    assert loaded.metadata == meta
    assert loaded.image == image
    assert target.digest() == state.digest()
    assert target.loads == 1


def test_load_without_target_returns_verified_image(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    state = ProofState.generate(100)
    pm.save_backup(KEY, state)
    loaded = pm.load_backup(KEY)
    assert loaded.image == state.export_image()


def test_empty_image_round_trips(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    meta = pm.save_backup(KEY, ProofState())
    assert meta.uncompressed_size > 0  # the document header
    target = ProofState.generate(10)
    pm.load_backup(KEY, target)
    assert target.ids == []
    assert BackupMetadata().compression_ratio() == 0.0


def test_metadata_file_is_indented_json_of_all_fields(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    meta = pm.save_backup(KEY, ProofState.generate(10))
    text = pm.metadata_path(KEY).read_text()
    assert text.startswith('{\n  "project_hash"')
    assert json.loads(text) == meta.to_dict()


def test_two_generations_rotate_as_pairs(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    states = [ProofState.generate(50, seed=i) for i in range(3)]
    metas = []
    for i, s in enumerate(states):
        s.gen = s.position = 100 + i
        metas.append(pm.save_backup(KEY, s))
    cur = json.loads(pm.metadata_path(KEY).read_text())
    prev = json.loads(pm.prev_metadata_path(KEY).read_text())
    assert cur["generation"] == 102
    assert prev["generation"] == 101
    assert prev == metas[1].to_dict()
    assert backup_format.decode_backup(
        pm.prev_backup_path(KEY).read_bytes(), pm.prev_backup_path(KEY)
    ) == (states[1].export_image())
    leftovers = [p.name for p in pm.project_dir(KEY).rglob("*.tmp")]
    assert leftovers == []


def test_falls_back_to_previous_when_current_is_damaged(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    old, new = ProofState.generate(200, seed=1), ProofState.generate(200, seed=2)
    old.gen, new.gen = 1, 2
    pm.save_backup(KEY, old)
    pm.save_backup(KEY, new)
    path = pm.backup_path(KEY)
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    target = ProofState()
    loaded = pm.load_backup(KEY, target)
    assert loaded.metadata.generation == 1
    assert target.digest() == old.digest()
    assert pm.get_backup_metadata(KEY) is not None  # metadata still verifies


def test_falls_back_when_current_backup_missing(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(10, seed=1))
    pm.save_backup(KEY, ProofState.generate(10, seed=2))
    pm.backup_path(KEY).unlink()
    assert pm.has_backup(KEY)
    assert pm.load_backup(KEY).image == ProofState.generate(10, seed=1).export_image()


def test_both_pairs_damaged_reports_both(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(10, seed=1))
    pm.save_backup(KEY, ProofState.generate(10, seed=2))
    for p in (pm.backup_path(KEY), pm.prev_backup_path(KEY)):
        p.write_bytes(p.read_bytes()[:-3])
    with pytest.raises(BackupCorruptedError, match=r"current checkpoint: .*previous checkpoint"):
        pm.load_backup(KEY)


def test_not_found(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    with pytest.raises(BackupNotFoundError, match="backup not found"):
        pm.load_backup(KEY)
    with pytest.raises(LookupError):
        pm.load_backup(KEY)


def test_metadata_hash_cannot_be_stripped(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(10))
    doc = json.loads(pm.metadata_path(KEY).read_text())
    doc["metadata_hash"] = ""
    pm.metadata_path(KEY).write_text(json.dumps(doc))
    with pytest.raises(MetadataCorruptedError, match="hash mismatch"):
        pm.load_backup(KEY)
    with pytest.raises(MetadataCorruptedError):
        pm.get_backup_metadata(KEY)


def _rewrite_metadata(pm: PersistenceManager, **changes: Any) -> None:
    meta = BackupMetadata(**json.loads(pm.metadata_path(KEY).read_text()))
    meta = replace(meta, **changes)
    meta = replace(meta, metadata_hash=meta.compute_metadata_hash())
    pm.metadata_path(KEY).write_text(json.dumps(meta.to_dict()))


def test_schema_and_format_version_mismatch(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(10))
    _rewrite_metadata(pm, schema_version="9.0")
    with pytest.raises(BackupVersionMismatchError, match=r"schema_version '9\.0'"):
        pm.load_backup(KEY)
    _rewrite_metadata(pm, schema_version=crs.CURRENT_SCHEMA_VERSION, format_version=99)
    with pytest.raises(BackupVersionMismatchError, match="format version 99"):
        pm.load_backup(KEY)


def test_file_header_version_checked_after_hash(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(10))
    path = pm.backup_path(KEY)
    blob = bytearray(path.read_bytes())
    blob[8] = 7  # format version field of the header
    path.write_bytes(bytes(blob))
    import hashlib

    _rewrite_metadata(pm, content_hash=hashlib.sha256(bytes(blob)).hexdigest())
    with pytest.raises(BackupVersionMismatchError, match="format version 7"):
        pm.load_backup(KEY)


def test_without_hash_validation_lz4_checksums_still_detect(tmp_path: Path) -> None:
    pm = make_pm(tmp_path, validate_on_restore=False)
    state = ProofState.generate(300)
    pm.save_backup(KEY, state)
    path = pm.backup_path(KEY)
    blob = bytearray(path.read_bytes())
    blob[-10] ^= 0x01
    path.write_bytes(bytes(blob))
    with pytest.raises(BackupCorruptedError):
        pm.load_backup(KEY)


@pytest.mark.parametrize("level", [0, 3, 16])
def test_compression_levels(tmp_path: Path, level: int) -> None:
    pm = make_pm(tmp_path, compression_level=level)
    state = ProofState.generate(2_000)
    pm.save_backup(KEY, state)
    target = ProofState()
    pm.load_backup(KEY, target)
    assert target.digest() == state.digest()


# ---------------------------------------------------------------- options, index


def test_json_export_written_when_asked(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    state = ProofState.generate(20)
    meta = pm.save_backup(KEY, state)
    assert meta.export_path == ""
    assert not pm.export_path(KEY).exists()
    meta = pm.save_backup(KEY, state, BackupOptions(create_json_export=True))
    assert meta.export_path == str(pm.export_path(KEY))
    doc = json.loads(pm.export_path(KEY).read_text())
    assert doc["generation"] == state.gen
    assert len(doc["proof"]) == 20


def test_json_export_needs_capable_source(tmp_path: Path) -> None:
    class ImageOnly:
        def export_image(self) -> BackupImage:
            return BackupImage(b"x", 0, 0)

    pm = make_pm(tmp_path)
    with pytest.raises(InvalidArgumentError, match="export_json"):
        pm.save_backup(KEY, ImageOnly(), BackupOptions(create_json_export=True))
    pm.save_backup(KEY, ImageOnly())
    assert pm.load_backup(KEY).image == BackupImage(b"x", 0, 0)


def test_index_lists_every_project(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    other = "fedcba9876543210"
    pm.save_backup(KEY, ProofState.generate(5), BackupOptions(project_path="/src/a"))
    pm.save_backup(other, ProofState.generate(7))
    pm.save_backup(KEY, ProofState.generate(9))
    doc = json.loads(pm.index_path().read_text())
    assert doc["version"] == 1
    assert set(doc["projects"]) == {KEY, other}
    entry = doc["projects"][KEY]
    assert entry["project_path"] == "/src/a"  # kept from the earlier save
    assert entry["generation"] == 9
    assert entry["project_dir"] == str(pm.project_dir(KEY))
    assert persistence.read_index(tmp_path / "missing.json")["projects"] == {}
    (tmp_path / "bad.json").write_text("{not json")
    assert persistence.read_index(tmp_path / "bad.json")["projects"] == {}


# ---------------------------------------------------------------- argument checks, lifecycle


def test_bad_arguments(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    state = ProofState.generate(3)
    with pytest.raises(InvalidArgumentError, match="source must implement BackupSource"):
        pm.save_backup(KEY, object())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="options must be BackupOptions"):
        pm.save_backup(KEY, state, {"session_id": "x"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="project_hash"):
        pm.save_backup("XYZ", state)
    with pytest.raises(InvalidArgumentError, match="target must implement BackupTarget"):
        pm.load_backup(KEY, object())  # type: ignore[arg-type]

    class BadSource:
        def __init__(self, image: object) -> None:
            self.image = image

        def export_image(self) -> Any:
            return self.image

    for image, message in [
        ((b"x", 0, 0), "must return a BackupImage"),
        (BackupImage("text", 0, 0), "data must be bytes"),  # type: ignore[arg-type]
        (BackupImage(b"x", -1, 0), "journal_position must be an int"),
        (BackupImage(b"x", 0, 2**63), "generation must be an int"),
    ]:
        with pytest.raises(InvalidArgumentError, match=message):
            pm.save_backup(KEY, BadSource(image))
    assert not pm.has_backup(KEY)


def test_close_is_idempotent_and_final(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(3))
    pm.close()
    pm.close()
    assert "closed" in repr(pm)
    calls = [
        lambda: pm.save_backup(KEY, ProofState()),
        lambda: pm.load_backup(KEY),
        lambda: pm.has_backup(KEY),
        lambda: pm.get_backup_metadata(KEY),
        lambda: pm.set_refresh_coordinator(None),
    ]
    for call in calls:
        with pytest.raises(PersistenceManagerClosedError, match="closed"):
            call()
    with make_pm(tmp_path) as pm2:
        assert pm2.has_backup(KEY)
    with pytest.raises(PersistenceManagerClosedError):
        pm2.has_backup(KEY)


def test_refresh_coordinator_paused_while_loading(tmp_path: Path) -> None:
    events: list[str] = []

    class Coordinator:
        paused = False

        def pause(self) -> None:
            events.append("pause")
            self.paused = True

        def resume(self) -> None:
            events.append("resume")
            self.paused = False

        def is_paused(self) -> bool:
            return self.paused

    class Target(ProofState):
        def load_image(self, image: BackupImage) -> None:
            events.append(f"load paused={coordinator.is_paused()}")
            super().load_image(image)

    coordinator = Coordinator()
    pm = make_pm(tmp_path)
    pm.set_refresh_coordinator(coordinator)
    pm.save_backup(KEY, ProofState.generate(3))
    pm.load_backup(KEY, Target())
    assert events == ["pause", "load paused=True", "resume"]
    pm.load_backup(KEY)  # no target: nothing to pause for
    assert len(events) == 3


def test_restore_in_progress(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(3))
    seen: list[BaseException] = []

    class Reentrant(ProofState):
        def load_image(self, image: BackupImage) -> None:
            try:
                pm.load_backup(KEY)
            except RestoreInProgressError as exc:
                seen.append(exc)
            super().load_image(image)

    pm.load_backup(KEY, Reentrant())
    assert len(seen) == 1
    pm.load_backup(KEY)  # the flag is cleared afterwards


def test_transient_write_error_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = persistence.write_file_durable
    failures = [OSError(5, "I/O error")]

    def flaky(path: Path, chunks: Any) -> None:
        if failures:
            raise failures.pop()
        real(path, chunks)

    monkeypatch.setattr(persistence, "write_file_durable", flaky)
    pm = make_pm(tmp_path, max_backup_retries=1)
    state = ProofState.generate(10)
    pm.save_backup(KEY, state)
    assert pm.load_backup(KEY).image == state.export_image()


def test_persistent_write_error_reports_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path, chunks: Any) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(persistence, "write_file_durable", broken)
    pm = make_pm(tmp_path, max_backup_retries=2)
    with pytest.raises(PersistenceError, match="failed after 3 attempts") as info:
        pm.save_backup(KEY, ProofState.generate(10))
    assert isinstance(info.value.__cause__, OSError)


def test_threads_share_a_manager(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for _ in range(5):
                pm.save_backup(KEY, ProofState.generate(100, seed=seed))
                loaded = pm.load_backup(KEY).image
                assert loaded in {ProofState.generate(100, seed=s).export_image() for s in (1, 2)}
        except RestoreInProgressError:
            pass
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_files_are_not_world_readable(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    pm.save_backup(KEY, ProofState.generate(3))
    for p in (pm.backup_path(KEY), pm.metadata_path(KEY), pm.lock_path(KEY)):
        assert os.stat(p).st_mode & 0o007 == 0, p


def test_json_export_only_computed_when_asked(tmp_path: Path) -> None:
    class Counting(ProofState):
        exports = 0

        def export_json(self) -> bytes:
            Counting.exports += 1
            return super().export_json()

    pm = make_pm(tmp_path)
    state = Counting.generate(5)
    pm.save_backup(KEY, state)
    assert Counting.exports == 0
    pm.save_backup(KEY, state, BackupOptions(create_json_export=True))
    assert Counting.exports == 1


def test_reads_do_not_create_project_directories(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    assert pm.get_backup_metadata(KEY) is None
    with pytest.raises(BackupNotFoundError):
        pm.load_backup(KEY)
    assert not pm.project_dir(KEY).exists()
    pm.save_backup(KEY, ProofState.generate(2))
    assert pm.lock_path(KEY).is_file()


def test_rotation_copies_where_hard_links_are_unsupported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crs._persistence import _durable as durable

    def no_link(src: Any, dst: Any) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(durable.os, "link", no_link)
    pm = make_pm(tmp_path)
    first, second = ProofState.generate(30, seed=1), ProofState.generate(30, seed=2)
    pm.save_backup(KEY, first)
    pm.save_backup(KEY, second)
    assert pm.prev_backup_path(KEY).stat().st_nlink == 1
    assert pm._pair_is_whole(pm.prev_backup_path(KEY), pm.prev_metadata_path(KEY))
    pm.backup_path(KEY).unlink()
    assert pm.load_backup(KEY).image == first.export_image()


def test_journal_checkpoint_position_keeps_the_previous_tail(tmp_path: Path) -> None:
    pm = make_pm(tmp_path)
    assert pm.journal_checkpoint_position(KEY) == 0
    state = ProofState.generate(10)
    for position in (40, 70, 90):
        state.position = position
        pm.save_backup(KEY, state)
    assert pm.journal_checkpoint_position(KEY) == 70
    pm.prev_metadata_path(KEY).write_text("{}")  # a damaged previous pair does not count
    assert pm.journal_checkpoint_position(KEY) == 90
