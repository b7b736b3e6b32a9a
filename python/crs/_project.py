"""`open_project`: the CRS of a project directory, as an agent opens it at startup.

It sits above the facade (it builds a `CRS`) and below nothing but the command line, so it
may import anything in `crs` except `crs._cli`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from crs._check import brief, require_instance, require_path
from crs._crs import CRS
from crs._errors import InvalidArgumentError
from crs._home import default_home
from crs._journal._base import DefaultJournalConfig, JournalConfig
from crs._persistence._crs_persist import project_journal
from crs._persistence._manager import DefaultPersistenceConfig, PersistenceManager
from crs._persistence._session_restore import compute_project_hash
from crs._reasoning._steps import require_id
from crs._types import Config

__all__ = ["open_project"]


def _check_open_args(
    path: object, home: object, config: object, session_id: object, journal_config: object
) -> None:
    """`open_project`'s arguments, each named when wrong (before anything is created)."""
    for name, value in (("path", path), ("home", home)):
        if value is None and name == "home":
            continue
        require_instance(value, (str, os.PathLike), name)
        text = os.fspath(value)  # type: ignore[call-overload]
        require_instance(text, str, name)
        require_path(text, name)
    require_instance(config, (Config, type(None)), "config")
    require_id(session_id, "session_id")
    require_instance(journal_config, (JournalConfig, type(None)), "journal_config")


def open_project(
    path: str | os.PathLike[str] = ".",
    home: str | os.PathLike[str] | None = None,
    *,
    config: Config | None = None,
    session_id: str = "crs",
    journal_config: JournalConfig | None = None,
    accept_journal_loss: bool = False,
) -> CRS:
    """The CRS of a project, as an agent opens it at startup.

    Opens (creating them if needed) the project's data under `<home>/<project_key>/`
    (spec §4: `journal/`, `backups/`, `metadata.json`), loads the latest backup and replays
    the journal tail after it. Every change is then journaled (fsync per append);
    `crs.save_project_backup()` saves a backup and checkpoints the journal. Close the CRS
    (or use it as a context manager) to release the journal's lock.

    Args:
        path: The project directory (its key is `compute_project_hash(path)`).
        home: The data directory; None means `$CRS_HOME`, else `~/.crs`.
        config: CRS configuration (None = `DefaultConfig()`).
        session_id: Session id recorded by the journal.
        journal_config: The journal's configuration (path and session id are set here);
            With `auto_checkpoint`, a journal that reaches `max_journal_bytes` saves a
            backup and drops what it covers. None means `DefaultJournalConfig()` with
            `shared=True`: several processes
            (hooks, servers, agents) write the project, each holding the journal's lock for
            one append (docs/concurrency.md).
        accept_journal_loss: Open a project whose journal ends before its backup's position
            (deleted or truncated) with the backup's state; without it that raises
            `JournalCorruptedError` and changes nothing (see `load_checkpoint_from_disk`).

    Returns:
        The restored `CRS`.
    """
    if not isinstance(accept_journal_loss, bool):
        raise InvalidArgumentError(
            f"accept_journal_loss: must be a bool, got {brief(accept_journal_loss)}"
        )
    _check_open_args(path, home, config, session_id, journal_config)
    project = str(Path(path).resolve())
    base = Path(home).expanduser() if home is not None else default_home()
    return open_project_key(
        compute_project_hash(project),
        project,
        base,
        config=config,
        session_id=session_id,
        journal_config=journal_config,
        accept_journal_loss=accept_journal_loss,
    )


def open_project_key(
    key: str,
    project: str,
    base: Path,
    *,
    config: Config | None = None,
    session_id: str = "crs",
    journal_config: JournalConfig | None = None,
    accept_journal_loss: bool = False,
) -> CRS:
    """`open_project` for a project known by its key under the data directory `base`
    (arguments already checked); `project` is its path, or "" when it is not known (a
    dashboard that found the project's data but not its directory)."""
    pm = PersistenceManager(replace(DefaultPersistenceConfig(), base_dir=str(base)))
    if journal_config is None:  # several processes (hooks, servers, agents) share a project
        journal_config = replace(DefaultJournalConfig(), shared=True)
    journal = project_journal(pm, key, session_id, journal_config)
    try:
        crs = CRS(config, journal=journal)
        persist = crs._persist
        persist.own(journal)
        persist.own(pm)
        persist.attach_project(pm, key, project)
        meta = crs.load_checkpoint_from_disk(pm, key, accept_journal_loss=accept_journal_loss)
        persist.from_backup = meta is not None
        journal.set_full_handler(persist.backup_for_full_journal)
    except BaseException:
        journal.close()
        raise
    return crs
