"""The workspace fingerprint a learned failure is tied to (issue 12, semantics 5).

By default: git HEAD plus the size and mtime of every file `git status` lists (modified,
staged, untracked; a tracked file git does not list equals HEAD's), so one `git` process
per computation. Outside a git work tree: the sizes and mtimes of the files under the
project (bounded walk). Both give 16 hex digits; any change of a file changes them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

MAX_WALK_FILES = 20_000
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "target",
        ".tox",
        ".cache",
    }
)


def _stat(h: hashlib._Hash, root: Path, rel: str) -> None:
    try:
        st = os.stat(root / rel, follow_symlinks=False)
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogatepass"))
    except OSError:
        h.update(f"{rel}\0gone\0".encode("utf-8", "surrogatepass"))


def git_fingerprint(root: str | os.PathLike[str]) -> str | None:
    """The fingerprint from git, or None when `root` is not in a git work tree."""
    path = Path(root)
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(path),
                "status",
                "--porcelain=v2",
                "-z",
                "--branch",
                "--untracked-files=all",
                "--no-renames",
            ],
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    top = path
    h = hashlib.sha256(b"git\0")
    for raw in out.stdout.split(b"\0"):
        if not raw:
            continue
        tok = raw.decode("utf-8", "surrogateescape")
        if tok.startswith("# branch.oid "):
            h.update(tok.encode("utf-8", "surrogateescape") + b"\0")
        elif tok[:2] == "1 ":
            _stat(h, top, tok.split(" ", 8)[8])
        elif tok[:2] == "u ":
            _stat(h, top, tok.split(" ", 10)[10])
        elif tok[:2] == "? ":
            _stat(h, top, tok[2:])
    return h.hexdigest()[:16]


def _toplevel(path: Path) -> Path:
    try:
        out = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return path
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else path


def walk_fingerprint(root: str | os.PathLike[str]) -> str:
    """Sizes and mtimes of the files under `root` (at most `MAX_WALK_FILES`)."""
    base = Path(root)
    h = hashlib.sha256(b"walk\0")
    count = 0
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, name), base)
            _stat(h, base, rel)
            count += 1
            if count >= MAX_WALK_FILES:
                return h.hexdigest()[:16]
    return h.hexdigest()[:16]


def workspace_fingerprint(root: str | os.PathLike[str]) -> str:
    """git's fingerprint of the work tree holding `root`, else the walk's."""
    path = Path(root)
    fp = git_fingerprint(path)
    return fp if fp is not None else walk_fingerprint(path)


class ProjectFingerprint:
    """`workspace_fingerprint` of a project, as a callable (paths relative to git's top)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        self._top: Path | None = None

    def __call__(self) -> str:
        if self._top is None:
            self._top = _toplevel(self.root)
        fp = git_fingerprint(self._top)
        return fp if fp is not None else walk_fingerprint(self.root)

    def __repr__(self) -> str:
        return f"<ProjectFingerprint {self.root}>"
