"""Durability on disk: file primitives, backups, restore, and the CRS's persistence face.

`_durable` (atomic writes, fsync, locks), `_backup_format` (backup file and metadata formats),
`_manager` (`PersistenceManager`: saving, rotating and loading backups), `_load` (what every
open needs: the project key, loading a backup plus the journal tail), `_session_restore`
(`SessionRestorer`: restoring a session with age, project and dependency checks; re-exports
`_load`'s names) and `_crs_persist`
(`Persistence`: backup images, checkpoints on disk and the project, a part of `CRS` holding its
state kernel; `project_journal`). Modules here may import `crs._core`, `crs._errors`,
`crs._types`, `crs._home`, `crs._image` (the image format), `crs._state`, `crs._journal` and
each other; never the kernel or the facade (`crs._kernel`, `crs._crs`; a part is handed its
kernel) or anything above them (`open_project`, which builds a `CRS`, is `crs._project`).
"""
