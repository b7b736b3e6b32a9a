"""The resident hook server of `crs hook claude-code` (docs/hook-server.md).

One server per crs home and crs install, started detached by the first hook that found none
(`_hook_client.spawn`). It keeps each project it served open (`Guard.open`, one engine per
project; every request gets a fresh `with_session` guard, so it decides exactly as a fresh
hook process would) and answers the thin clients over a Unix socket in a 0700 directory
(socket 0600, peers of another uid refused). Each request is handled in its own thread: the
workspace fingerprint (a git process) runs outside every lock, the decision under the
project's writer lock, after `refresh()` applied what other processes appended to the shared
journal; its record is fsynced before the reply is sent.

It exits by itself after `CRS_HOOK_DAEMON_IDLE_S` seconds (default 1800) without a request,
when a crs module it loaded changes on disk, when a client of other code asks (`restart`),
on SIGTERM/SIGINT, or when its socket is removed. A flock held for its whole life makes one
server the only one per socket; a server that finds it held waits a little, then exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crs._errors import InvalidArgumentError
from crs.integrations import _hook_client as client
from crs.integrations import claude_code as cc

IDLE_S = 1800.0  # docs/hook-server.md: 30 min of 0.5 ms CPU/s and ~25-40 MiB, vs a cold hook
SESSION = "claude-code-hook-server"
TICK_S = 0.2
CODE_CHECK_S = 2.0
LOCK_WAIT_S = 5.0
MAX_REQUEST = 256 << 20
MAX_OPEN_PROJECTS = 32  # projects held open at once (least recently used closed past it)
READ_TIMEOUT_S = 10.0


class _Project:
    """One project held open: its base guard and the journal position of its last backup."""

    def __init__(self, project: str, home: str, fp: threading.local) -> None:
        # inside: start-up (the server answers its first client before the engine is needed)
        from crs.guard._guard import _default_fingerprint

        default = _default_fingerprint(project, home, False)  # Guard.open's own

        def fingerprint() -> str:  # the request's (tool events), else Guard.open's own
            of_call: Callable[[], str] | None = getattr(fp, "value", None)
            return of_call() if of_call is not None else default()

        self.guard = cc.open_guard(project, SESSION, home, fingerprint)
        self.users = 0  # requests using it now (under the server's open lock)
        self.used = time.monotonic()  # when the last one began
        crs = self.guard.crs
        self.journal = crs.project_info().journal_path
        self.ident = _inode(self.journal)
        self.backup_pos = crs.journal_position() - crs.project_info().replayed_records

    def current(self) -> bool:
        """False once the project's journal directory was removed or replaced."""
        return _inode(self.journal) == self.ident

    def maybe_backup(self, threshold: int) -> None:
        crs = self.guard.crs
        if crs.journal_position() - self.backup_pos > threshold:
            crs.save_project_backup()
            self.backup_pos = crs.journal_position()

    def close(self) -> None:
        try:
            self.maybe_backup(cc.BACKUP_AFTER_ON_STOP)
        finally:
            self.guard.close()


def _inode(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class HookServer:
    """The server of the crs home `home` on the socket `path` (see the module doc)."""

    def __init__(self, home: str, path: str, idle_s: float = IDLE_S, project: str = "") -> None:
        self.home = home
        self.project = project
        self.path = path
        self.idle_s = idle_s
        self.token = client.token()
        self._fp = threading.local()
        self._projects: dict[str, _Project] = {}
        self._open_lock = threading.Lock()
        self._busy = threading.Condition()
        self._inflight = 0
        self._last = time.monotonic()
        self._stop = threading.Event()
        self._code: dict[str, tuple[int, int] | None] = {}
        self._sock: socket.socket | None = None
        self._ident: tuple[int, int] | None = None

    # ------------------------------------------------------------------ lifecycle

    def _code_changed(self) -> bool:
        """True when a crs module this process loaded changed on disk (an upgrade, an edit);
        modules loaded later are recorded as they are now."""
        for name, mod in list(sys.modules.items()):
            if name != "crs" and not name.startswith("crs."):
                continue
            file = getattr(mod, "__file__", None)
            if not file:
                continue
            now = _stat(file)
            if file not in self._code:
                self._code[file] = now
            elif self._code[file] != now:
                return True
        return False

    def _warm_up(self) -> None:
        """Import the engine (an in-memory guard) and open the project of the Claude Code
        session that started the server, before the first client can connect."""
        # inside: start-up, loaded while warming up, as the docstring says
        from crs.guard import Guard

        Guard().close()
        if self.project:
            try:
                self._release(self._open(self.project))
            except Exception as exc:  # the request that needs it reports the error
                cc._log(Path(self.home), f"hook server: warm-up failed ({exc})", None)

    def _bind(self) -> socket.socket:
        run_dir = os.path.dirname(self.path)
        os.makedirs(run_dir, mode=0o700, exist_ok=True)
        if not client.private_dir(run_dir):
            raise PermissionError(f"{run_dir} is not a private (0700) directory of this user")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if os.path.lexists(self.path):
                os.unlink(self.path)  # a dead server's (the flock says none is alive)
            old = os.umask(0o177)
            try:
                sock.bind(self.path)
            finally:
                os.umask(old)
            os.chmod(self.path, 0o600)
            sock.listen(128)
        except BaseException:
            sock.close()
            raise
        self._ident = _inode(self.path)
        return sock

    def run(self) -> int:
        """Serve until a reason to stop; 0 (also when another server holds the socket)."""
        lock = _take_lock(self.path + ".lock", LOCK_WAIT_S)
        if lock is None:
            _unlink(self.path + ".spawn")
            return 0
        try:
            self._warm_up()
            self._code_changed()  # record what is loaded now
            self._sock = sock = self._bind()
            _write_pid(self.path + ".pid")
            _unlink(self.path + ".spawn")
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self._stop.set())
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            self._loop(sock)
        except Exception as exc:
            cc._log(Path(self.home), f"hook server stopped ({type(exc).__name__}: {exc})", None)
        finally:
            self._shutdown()
            _unlink(self.path + ".spawn")
            os.close(lock)
        return 0

    def _loop(self, sock: socket.socket) -> None:
        sock.settimeout(TICK_S)
        next_check = time.monotonic() + CODE_CHECK_S
        while not self._stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                now = time.monotonic()
                with self._busy:
                    if not self._inflight and now - self._last >= self.idle_s:
                        return
                if now >= next_check:
                    next_check = now + CODE_CHECK_S
                    if self._code_changed() or _inode(self.path) != self._ident:
                        return
                continue
            except InterruptedError:
                continue
            self._start(conn)

    def _start(self, conn: socket.socket) -> None:
        with self._busy:
            self._inflight += 1
            self._last = time.monotonic()
        threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _shutdown(self) -> None:
        """Stop taking requests (socket removed first, then the queued ones served), wait
        for the ones in flight, save what is worth a backup, close every project."""
        sock, self._sock = self._sock, None
        if sock is not None:
            if _inode(self.path) == self._ident:
                _unlink(self.path)
            sock.setblocking(False)
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    break
                conn.setblocking(True)
                self._start(conn)
            sock.close()
            pid_file = self.path + ".pid"
            try:
                if Path(pid_file).read_text().strip() == str(os.getpid()):
                    _unlink(pid_file)
            except OSError:
                pass
        with self._busy:
            self._busy.wait_for(lambda: not self._inflight, timeout=READ_TIMEOUT_S * 2)
        with self._open_lock:
            projects, self._projects = self._projects, {}
        for p in projects.values():
            try:
                p.close()
            except Exception as exc:
                cc._log(Path(self.home), f"hook server: closing failed ({exc})", None)

    # ------------------------------------------------------------------ requests

    def _serve(self, conn: socket.socket) -> None:
        after: tuple[_Project, int] | None = None
        try:
            with conn:
                conn.settimeout(READ_TIMEOUT_S)
                uid = client.peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    return
                data = _read_all(conn)
                if not data:  # a probe (is a server up?), not a request: nothing to say
                    return
                reply, after = self._handle(data)
                conn.sendall(reply)
            if after is not None:  # after the reply: nobody waits for it
                after[0].maybe_backup(after[1])
        except Exception as exc:
            cc._log(Path(self.home), f"hook server: request failed ({exc})", None)
        finally:
            if after is not None:
                self._release(after[0])
            with self._busy:
                self._inflight -= 1
                self._last = time.monotonic()
                self._busy.notify_all()

    def _handle(self, data: bytes) -> tuple[bytes, tuple[_Project, int] | None]:
        fields = data.split(b"\0", 7)
        if len(fields) != 8 or fields[0] != client.MAGIC:
            raise ValueError("a malformed request")
        token, home, cwd, root, on_block, trace = (os.fsdecode(f) for f in fields[1:7])
        if token != self.token or self._code_changed():
            self._stop.set()  # another version asks: make way for a server of its code
            # and at once no longer reachable: the client that was told to restart starts
            # the new server now, which gave up when it could still connect to this one
            # (it took that for a server serving) while this one had not yet stopped
            if _inode(self.path) == self._ident:
                _unlink(self.path)
            return _reply("restart", 0, "", ""), None
        if home != self.home:
            return _reply("restart", 0, "", ""), None
        t0 = time.perf_counter()
        stats = cc.LOCK_STATS
        stats.reset()
        event: Any = None
        error = err = ""
        reply = cc.HookReply()
        after = None
        try:
            payload = cc.load_payload(fields[7])
            if isinstance(payload, dict):
                event = payload.get("hook_event_name")
            parsed = cc.event_of(payload)
            if parsed is not None:
                reply, after = self._answer(payload, parsed, cwd, root, on_block)
        except Exception as exc:  # fail open, as in-process
            error = f"{type(exc).__name__}: {exc}"
            err = cc._log(Path(self.home), f"{event or 'hook'} failed open ({error})", None)
            reply = cc.HookReply()
        fields_out = ""
        if trace:
            fields_out = json.dumps(
                {
                    "event": event,
                    "locks": stats.count,
                    "lock_wait_max_ms": round(stats.wait_max * 1000, 3),
                    "lock_hold_max_ms": round(stats.hold_max * 1000, 3),
                    "error": error,
                    "server_pid": os.getpid(),
                    "server_ms": round((time.perf_counter() - t0) * 1000, 3),
                }
            )
        out = reply.stdout + "\n" if reply.stdout else ""
        return _reply("ok", reply.exit_code, out, err, fields_out), after

    def _answer(
        self, payload: dict[str, Any], parsed: tuple[str, str], cwd: str, root: str, on_block: str
    ) -> tuple[cc.HookReply, tuple[_Project, int]]:
        event, session = parsed
        project = cc._project(payload, cwd or None, root)
        fingerprint = cc.tool_fingerprint(event, project)  # a failure's: outside every lock
        p = self._open(project)
        answered = False
        self._fp.value = fingerprint
        try:
            guard = p.guard.with_session(session)
            try:
                guard.crs.refresh()  # what other processes appended
                reply = cc.answer(guard, payload, event, on_block)
            finally:
                guard.close()
            answered = True
        except InvalidArgumentError:
            raise  # this payload's (fails open): the project is fine, other requests use it
        except Exception:
            self._drop(project, p)  # reopened fresh by the next request
            raise
        finally:
            self._fp.value = None
            if not answered:
                self._release(p)
        threshold = cc.BACKUP_AFTER_ON_STOP if event == "Stop" else cc.BACKUP_AFTER
        return reply, (p, threshold)  # (released by `_serve` once it is done with it)

    def _open(self, project: str) -> _Project:
        """The project held open for `project`, counted as used until `_release`. Past
        `MAX_OPEN_PROJECTS` the least recently used one no request is using is closed: each
        holds its journal's files open, and a server kept busy by sessions in many
        directories ran out of file descriptors (every new project's hooks then failed
        open, unguarded, until the server idled out)."""
        key = str(Path(project).resolve())
        idle: list[_Project] = []
        with self._open_lock:
            p = self._projects.get(key)
            if p is not None and not p.current():
                del self._projects[key]
                _close_quietly(p)
                p = None
            if p is None:
                p = self._projects[key] = _Project(key, self.home, self._fp)
                extra = len(self._projects) - MAX_OPEN_PROJECTS
                if extra > 0:
                    free = [(q.used, k) for k, q in self._projects.items() if not q.users]
                    for _, k in sorted(free)[:extra]:
                        idle.append(self._projects.pop(k))
            p.users += 1
            p.used = time.monotonic()
        for q in idle:  # (outside the lock: closing saves a backup)
            try:
                q.close()
            except Exception as exc:
                cc._log(Path(self.home), f"hook server: closing failed ({exc})", None)
        return p

    def _release(self, p: _Project) -> None:
        with self._open_lock:
            p.users -= 1

    def _drop(self, project: str, p: _Project) -> None:
        key = str(Path(project).resolve())
        with self._open_lock:
            if self._projects.get(key) is p:
                del self._projects[key]
        _close_quietly(p)


def _close_quietly(p: _Project) -> None:
    with contextlib.suppress(Exception):
        p.guard.close()


def _reply(status: str, code: int, out: str, err: str, trace: str = "") -> bytes:
    o, e = out.encode(), err.encode(errors="replace")
    head = f"{client.MAGIC.decode()} {status} {code} {len(o)} {len(e)}\n".encode()
    return head + o + e + trace.encode()


def _read_all(conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError(f"a request above {MAX_REQUEST} bytes")
        chunks.append(chunk)


def _stat(file: str) -> tuple[int, int] | None:
    try:
        st = os.stat(file)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _write_pid(path: str) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _take_lock(path: str, wait_s: float) -> int | None:
    """The server's life lock (an flock fd), waiting up to `wait_s` for a server that is
    exiting; None when another server keeps it (at once if that one is serving)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            live = client._connect(path.removesuffix(".lock"))
            if live is not None or time.monotonic() >= deadline:
                if live is not None:  # another server is serving: nothing to do
                    live.close()
                os.close(fd)
                return None
            time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    """`python -m crs.integrations._hook_server --home DIR --socket PATH [--project DIR]`
    (what the client starts; `--project` is opened before serving; `CRS_HOOK_DAEMON_IDLE_S`
    sets the idle timeout)."""
    args = list(sys.argv[1:] if argv is None else argv)
    opts = dict(zip(args[::2], args[1::2], strict=False))
    home = client.home_dir(opts.get("--home"))
    path = opts.get("--socket") or client.socket_path(home)
    try:
        idle = float(os.environ.get("CRS_HOOK_DAEMON_IDLE_S", IDLE_S))
    except ValueError:
        idle = IDLE_S
    server = HookServer(home, path, idle if idle > 0 else IDLE_S, opts.get("--project", ""))
    return server.run()


if __name__ == "__main__":
    raise SystemExit(main())
