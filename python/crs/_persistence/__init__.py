"""Durability on disk: file primitives, backups, restore, and the CRS's persistence face.

`_durable` (atomic writes, fsync, locks), `_backup_format` (backup file and metadata formats),
`_manager` (`PersistenceManager`: saving, rotating and loading backups), `_session_restore`
(restoring a session: backup plus journal tail, project keys) and `_crs_persist`
(`PersistenceMixin`: journal replay, the binary backup image and checkpoints on disk as methods
of `CRS`; `project_journal`). Modules here may import `crs._core`, `crs._errors`, `crs._types`,
`crs._home`, `crs._state`, `crs._journal` and each other; never the facade (`crs._crs`) or
anything above it (`open_project`, which builds a `CRS`, is `crs._project`).
"""
