"""Uses the public API as a user would; `mypy --strict` checks this file (make lint)."""

from __future__ import annotations

import crs


def test_errors_are_typed() -> None:
    err: crs.CRSError = crs.InvalidArgumentError("tool: must be a non-empty string")
    assert isinstance(err, ValueError)
    contract = crs.ContractError("bad", [{"loc": ("workers", 0), "msg": "bad", "type": "x"}])
    details: list[crs.ContractErrorDetails] = contract.errors()
    assert details[0]["loc"] == ("workers", 0)
    version: str = crs.__version__
    assert version


# ---- persistence: a user's state implementing the backup protocols
class _UserState:
    def __init__(self) -> None:
        self.data = b"v1:state"
        self.position = 0

    def export_image(self) -> crs.BackupImage:
        return crs.BackupImage(data=self.data, journal_position=self.position, generation=1)

    def load_image(self, image: crs.BackupImage) -> None:
        self.data, self.position = image.data, image.journal_position


def test_persistence_api_types(tmp_path: object) -> None:
    import dataclasses

    cfg = dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path))
    with crs.PersistenceManager(cfg) as pm:
        key: str = crs.compute_project_hash(str(tmp_path))
        meta: crs.BackupMetadata = pm.save_backup(key, _UserState(), crs.BackupOptions())
        ratio: float = meta.compression_ratio()
        loaded: crs.LoadedBackup = pm.load_backup(key, _UserState())
        found: crs.BackupMetadata | None = pm.get_backup_metadata(key)
        assert loaded.image.data == b"v1:state"
        assert found == meta
        assert ratio > 0
