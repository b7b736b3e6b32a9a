"""The workspace fingerprint a learned failure is tied to (issue 12, semantics 5).

By default: git HEAD plus the size and mtime of every file `git status` lists (modified,
staged, untracked; a tracked file git does not list equals HEAD's), so one `git` process
per computation. Outside a git work tree: the sizes and mtimes of the files under the
project (bounded walk). Both give 16 hex digits; any change of a file changes them.
"""

from __future__ import annotations

import hashlib
import os
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


def _skip(rel: str, exclude: tuple[str, ...]) -> bool:
    return any(rel == e or rel.startswith(e + "/") for e in exclude)


# The fingerprint runs git in whatever directory the agent works in: no program the repository
# names runs (core.fsmonitor), and git takes no optional lock (a `git status` refreshing the
# index holds index.lock: the agent's own `git commit` at that moment would fail).
_GIT = ("git", "-c", "core.fsmonitor=false")


def _git_env() -> dict[str, str]:
    return {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}


def git_fingerprint(root: str | os.PathLike[str], exclude: tuple[str, ...] = ()) -> str | None:
    """The fingerprint from git, or None when `root` is not in a git work tree.

    `exclude`: paths relative to `root` to leave out (crs's own data directory)."""
    import subprocess  # inside: start-up (a hook whose guard needs no fingerprint runs no git)

    path = Path(root)
    try:
        out = subprocess.run(
            [
                *_GIT,
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
            env=_git_env(),
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
            continue
        if tok[:2] == "1 ":
            rel = tok.split(" ", 8)[8]
        elif tok[:2] == "u ":
            rel = tok.split(" ", 10)[10]
        elif tok[:2] == "? ":
            rel = tok[2:]
        else:
            continue
        if not _skip(rel, exclude):
            _stat(h, top, rel)
    return h.hexdigest()[:16]


def _toplevel(path: Path) -> Path:
    import subprocess  # inside: start-up (as above)

    try:
        out = subprocess.run(
            [*_GIT, "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            env=_git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return path
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else path


def walk_fingerprint(root: str | os.PathLike[str], exclude: tuple[str, ...] = ()) -> str:
    """Sizes and mtimes of the files under `root` (at most `MAX_WALK_FILES`)."""
    base = Path(root)
    h = hashlib.sha256(b"walk\0")
    count = 0
    for dirpath, dirnames, filenames in os.walk(base):
        here = os.path.relpath(dirpath, base)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS and not _skip(os.path.normpath(os.path.join(here, d)), exclude)
        )
        for name in sorted(filenames):
            rel = os.path.normpath(os.path.join(here, name))
            if _skip(rel, exclude):
                continue
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
    """`workspace_fingerprint` of a project, as a callable.

    Args:
        root: The project directory.
        exclude: Directories to leave out (the guard passes crs's data directory when it
            lies inside the project, so its own journal never changes the fingerprint).
    """

    def __init__(
        self, root: str | os.PathLike[str], exclude: tuple[str | os.PathLike[str], ...] = ()
    ) -> None:
        self.root = Path(root).resolve()
        self._exclude = tuple(Path(e).resolve() for e in exclude)
        self._top: Path | None = None

    def _relative(self, base: Path) -> tuple[str, ...]:
        out = []
        for e in self._exclude:
            try:
                out.append(e.relative_to(base).as_posix())
            except ValueError:
                continue
        return tuple(r for r in out if r not in ("", "."))

    def __call__(self) -> str:
        if self._top is None:
            self._top = _toplevel(self.root)
        fp = git_fingerprint(self._top, self._relative(self._top))
        return fp if fp is not None else walk_fingerprint(self.root, self._relative(self.root))

    def __repr__(self) -> str:
        return f"<ProjectFingerprint {self.root}>"
