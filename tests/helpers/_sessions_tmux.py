"""A private tmux server for tests: `tmux -L <unique name>`, killed at the end, bounded in time."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
import uuid


class TmuxServer:
    """Runs tmux commands against one private server socket."""

    def __init__(self, tmpdir: str | None = None) -> None:
        """With `tmpdir`, the server is the default one under `TMUX_TMPDIR=tmpdir`, so a plain
        `tmux` (as the CLI runs it) given the same environment finds it."""
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed; run scripts/system-deps.sh")
        self.env = {k: v for k, v in os.environ.items() if k != "TMUX"}
        if tmpdir is None:
            self.name = f"crs-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        else:
            self.name = "default"
            self.env["TMUX_TMPDIR"] = tmpdir
        self.prefix = ("tmux", "-L", self.name)

    def run(self, *args: str) -> str:
        out = subprocess.run(
            [*self.prefix, *args],
            capture_output=True,
            text=True,
            timeout=10,
            env=self.env,
            check=True,
            stdin=subprocess.DEVNULL,
        )
        return out.stdout

    def new_session(self, name: str, command: str = "sleep 600") -> str:
        """Start a detached session; returns the id of its first pane."""
        return self.run(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "200",
            "-y",
            "50",
            "-P",
            "-F",
            "#{pane_id}",
            command,
        ).strip()

    def add_worker_pane(self, session: str, slug: str, command: str = "sleep 600") -> str:
        """A new window in `session` whose pane is titled `slug`, as the orchestrator does."""
        pane = self.run(
            "new-window", "-d", "-t", f"={session}:", "-P", "-F", "#{pane_id}", command
        ).strip()
        self.run("select-pane", "-t", pane, "-T", slug)
        return pane

    def split_worker_pane(self, session: str, slug: str, command: str = "sleep 600") -> str:
        pane = self.run(
            "split-window", "-d", "-t", f"={session}:", "-P", "-F", "#{pane_id}", command
        ).strip()
        self.run("select-pane", "-t", pane, "-T", slug)
        return pane

    def title(self, pane: str, slug: str) -> None:
        self.run("select-pane", "-t", pane, "-T", slug)

    def wait_dead(self, pane: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.run("display-message", "-p", "-t", pane, "#{pane_dead}").strip() == "1":
                return
            time.sleep(0.05)
        raise TimeoutError(f"pane {pane} did not exit")

    def kill(self) -> None:
        subprocess.run(
            [*self.prefix, "kill-server"],
            capture_output=True,
            timeout=10,
            env=self.env,
            check=False,
        )
        # tmux leaves the socket file behind; remove it so test runs leave nothing in /tmp.
        socket_dir = os.path.join(self.env.get("TMUX_TMPDIR") or "/tmp", f"tmux-{os.getuid()}")
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(socket_dir, self.name))
