"""The thin client `crs hook claude-code` runs (docs/hook-server.md).

Claude Code starts one hook process per event. This module is all that process imports on the
hot path: `os`, `sys`, `time` and the C `_socket` module. The installed hook command runs this
file directly (`python <crs>/integrations/_hook_client.py crs hook claude-code`), so not even
the `crs` package is imported; `python -m crs hook claude-code` and the `crs` console script
come here too, after `import crs`. It
sends the raw payload to the resident hook server of the crs home (`_hook_server`), prints the
reply and exits with its code. The server resolves the project and decides exactly as the
in-process hook does (`claude_code.handle`, the same functions), so the client needs no JSON
and no engine.

- No server reachable (no socket, refused, another uid), or `CRS_HOOK_DAEMON=0`: the event is
  handled in-process (`claude_code.run`), then (unless `CRS_HOOK_DAEMON=0`) the server is
  started detached for the next calls. Correctness never depends on the server.
- Connected and the request sent: whatever happens next (a broken connection, a malformed
  reply, a timeout) the client logs a line and allows (exit 0). It never redoes a sent
  request in-process, which could record the call twice. Only the server's explicit
  `restart` (another crs version or code) falls back in-process.
- A server that did not answer in `REPLY_TIMEOUT_S` (hung, not dead: it accepts and never
  replies) is skipped for `HUNG_SKIP_S`: a marker `<socket>.hung` in the private socket
  directory names that server (its pid and the socket file's identity) and the time, and
  every hook meanwhile handles its event in-process without connecting (nor starting a
  server: the hung one keeps the socket). A new server (another socket file) or a dead pid
  ends the skip at once; after `HUNG_SKIP_S` the next hook tries the server again.

Wire format (one request per connection, the client shuts its side after sending):
request `CRSHOOK1 \\0 token \\0 home \\0 cwd \\0 $CLAUDE_PROJECT_DIR \\0 on_block \\0 trace \\0
payload`; reply `CRSHOOK1 <ok|restart> <exit> <n_stdout> <n_stderr>\\n` + stdout + stderr +
the trace fields (a JSON object, or empty).
"""

import _socket
import os
import sys
import time

TYPE_CHECKING = False  # no `typing` import: this file also runs without the crs package
if TYPE_CHECKING:
    from collections.abc import Mapping
    from subprocess import Popen

MAGIC = b"CRSHOOK1"
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The directory of the `crs` package this client belongs to (one server per install)."""
if __name__ == "__main__":  # run as a file: `crs` is what lies around it, not this folder
    _here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.realpath(sys.path[0] or ".") == os.path.realpath(_here):
        del sys.path[0]
    sys.path.insert(0, os.path.dirname(PACKAGE))
CONNECT_TIMEOUT_S = 2.0
REPLY_TIMEOUT_S = 9.0  # below the hook's timeout in settings.json (10 s)
HUNG_SKIP_S = 120.0  # a server that timed out is not asked again for this long
SPAWN_STALE_S = 30.0  # a start marker older than this is from a server that never came up
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes
_TOKEN_FILES = (
    "__init__.py",
    os.path.join("integrations", "_hook_client.py"),
    os.path.join("integrations", "_hook_server.py"),
    os.path.join("integrations", "claude_code.py"),
)


def home_dir(home: str | None = None) -> str:
    """The crs home as an absolute path: `home`, else `$CRS_HOME`, else `~/.crs`."""
    if home is None:
        home = os.environ.get("CRS_HOME") or os.path.join("~", ".crs")
    return os.path.abspath(os.path.expanduser(home))


def _tag(text: str) -> str:
    """16 hex digits of FNV-1a 64 (stable across processes, no hashlib import)."""
    h = 0xCBF29CE484222325
    for byte in os.fsencode(text):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def socket_path(home: str, package: str = PACKAGE) -> str:
    """The hook server's socket for the crs home `home` (absolute) and the install at
    `package`: `<home>/run/hook-<tag>.sock`, or under `$XDG_RUNTIME_DIR` (else /tmp) in a
    private `crs-<uid>` directory when that path is too long for a Unix socket."""
    path = os.path.join(home, "run", f"hook-{_tag(package)[:8]}.sock")
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return path
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return os.path.join(base, f"crs-{os.getuid()}", f"hook-{_tag(home + chr(0) + package)}.sock")


def token() -> str:
    """What identifies this install's code: the package directory and the size and mtime
    of the hook's own files (the server also watches every crs module it loaded)."""
    parts = [PACKAGE]
    for name in _TOKEN_FILES:
        try:
            st = os.stat(os.path.join(PACKAGE, name))
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def private_dir(path: str) -> bool:
    """True when `path` is a directory (not a symlink to one: `/tmp/crs-<uid>` could be
    planted as a link to another private directory of this user's) that is this user's and
    nobody else's (mode 0700)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    is_dir = st.st_mode & 0o170000 == 0o040000  # S_ISDIR without importing `stat`
    return is_dir and st.st_uid == os.getuid() and not st.st_mode & 0o077


def peer_uid(sock: _socket.socket) -> int | None:
    """The uid of the process at the other end (SO_PEERCRED), None where unsupported."""
    opt = getattr(_socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    cred = sock.getsockopt(_socket.SOL_SOCKET, opt, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(cred[4:8], sys.byteorder)


def _connect(path: str) -> _socket.socket | None:
    """A connection to this user's server at `path`, or None (nothing was sent)."""
    if not private_dir(os.path.dirname(path)):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(path)
        uid = peer_uid(sock)
        if uid is not None and uid != os.getuid():
            raise PermissionError(f"the hook server socket {path} belongs to uid {uid}")
    except OSError:
        sock.close()
        return None
    return sock


def _identity(path: str) -> str | None:
    """The socket file's identity (device, inode, change time): another server's socket at
    the same path is another file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}"


def mark_hung(path: str, pid: int | None) -> None:
    """Note that the server at `path` (process `pid`) did not answer: `<path>.hung` holds the
    socket's identity and the pid; its mtime is when. Written whole (a temporary file
    renamed), in the private socket directory only."""
    ident = _identity(path)
    if ident is None or not private_dir(os.path.dirname(path)):
        return
    tmp = f"{path}.hung.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, f"{ident} {pid or 0}\n".encode())
    finally:
        os.close(fd)
    os.replace(tmp, path + ".hung")


def hung(path: str) -> bool:
    """True while the server at `path` is skipped: `<path>.hung` names the socket file
    there now, its pid is alive and it was written less than `HUNG_SKIP_S` ago. A marker
    for another socket or a dead server is removed."""
    marker = path + ".hung"
    try:
        fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        text = os.read(fd, 200).decode("ascii", "replace").split()
    except OSError:
        return False
    finally:
        os.close(fd)
    if st.st_uid != os.getuid() or not private_dir(os.path.dirname(path)):
        return False
    ident, pid = [*text, "", "0"][:2]
    alive = True
    if pid.isdigit() and int(pid) > 0:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            alive = False
        except OSError:
            pass
    if ident != _identity(path) or not alive:
        try:  # noqa: SIM105
            os.unlink(marker)
        except OSError:
            pass
        return False
    return 0 <= time.time() - st.st_mtime < HUNG_SKIP_S


def peer_pid(sock: _socket.socket) -> int | None:
    """The pid of the process at the other end (SO_PEERCRED), None where unsupported."""
    opt = getattr(_socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    try:
        cred = sock.getsockopt(_socket.SOL_SOCKET, opt, 12)
    except OSError:
        return None
    return int.from_bytes(cred[0:4], sys.byteorder)


def _log(home: str | None, message: str) -> None:
    # inside: the thin client loads crs only when it must log or fall back
    from crs.integrations.claude_code import _home, _log

    _log(_home(home), message, sys.stderr)


def _local(data: bytes, home: str | None, on_block: str, t0: float, why: str) -> int:
    """The event handled in this process, as without a server.

    The cyclic garbage collector is paused meanwhile: this process answers one event and
    exits, and while it imports the engine and opens the project (objects that live until
    exit) the collector ran ~30 times for nothing (4% of a cold hook's instructions)."""
    import gc  # a built-in module

    paused = gc.isenabled()
    gc.disable()
    try:
        # inside: the in-process fallback, as above
        from crs.integrations.claude_code import run

        streams = (sys.stdin, sys.stdout, sys.stderr)
        return run(*streams, home=home, on_block=on_block, data=data, t0=t0, via=why)
    finally:
        if paused:
            gc.enable()


def spawn(home: str, path: str, env: "Mapping[str, str] | None" = None) -> "Popen[bytes] | None":
    """Start the server for `home` detached (its own session, no inherited descriptors:
    Claude Code waits for the hook's pipes to close), with `env` (default this process's).
    A start marker created with O_EXCL makes one of many parallel hooks the one that starts
    it; the server's process if this call started it, else None."""
    run_dir = os.path.dirname(path)
    os.makedirs(run_dir, mode=0o700, exist_ok=True)
    if not private_dir(run_dir):
        return None
    marker = path + ".spawn"
    try:
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        try:
            if time.time() - os.stat(marker).st_mtime > SPAWN_STALE_S:
                os.unlink(marker)  # the next hook starts one
        except OSError:
            pass
        return None
    late = _connect(path)  # the server came up since this hook looked
    if late is not None:
        late.close()
        os.unlink(marker)
        return None
    # inside: only a client that starts the server pays for subprocess
    import subprocess

    env = dict(os.environ if env is None else env)
    root = os.path.dirname(PACKAGE)  # the server imports this very crs, whatever its cwd
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    env.pop("CRS_HOOK_TRACE", None)
    argv = [sys.executable, "-m", "crs.integrations._hook_server", "--home", home]
    project = env.get("CLAUDE_PROJECT_DIR")  # Claude Code's: worth opening at once
    if project:
        argv += ["--project", project]
    try:
        return subprocess.Popen(
            [*argv, "--socket", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
            cwd="/",
            env=env,
        )
    except BaseException:
        os.unlink(marker)
        raise


def _request(home: str, on_block: str, data: bytes) -> bytes:
    cwd = ""
    try:  # noqa: SIM105
        cwd = os.getcwd()
    except OSError:
        pass
    fields = (
        MAGIC,
        os.fsencode(token()),
        os.fsencode(home),
        os.fsencode(cwd),
        os.fsencode(os.environ.get("CLAUDE_PROJECT_DIR", "")),
        on_block.encode(),
        b"1" if os.environ.get("CRS_HOOK_TRACE") else b"",
        data,
    )
    return b"\0".join(fields)


def _receive(sock: _socket.socket) -> bytes:
    chunks: list[bytes] = []
    deadline = time.monotonic() + REPLY_TIMEOUT_S
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the hook server did not answer in time")
        sock.settimeout(left)
        chunk = sock.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def parse_reply(reply: bytes) -> tuple[str, int, bytes, bytes, bytes]:
    """(status, exit code, stdout, stderr, trace) of a reply; ValueError if malformed."""
    head, sep, rest = reply.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 5 or parts[0] != MAGIC or parts[1] not in (b"ok", b"restart"):
        raise ValueError(f"malformed reply from the hook server: {reply[:80]!r}")
    code, n_out, n_err = int(parts[2]), int(parts[3]), int(parts[4])
    if min(code, n_out, n_err) < 0 or n_out + n_err > len(rest):
        raise ValueError(f"malformed reply from the hook server: {head[:80]!r}")
    out, err, trace = rest[:n_out], rest[n_out : n_out + n_err], rest[n_out + n_err :]
    return parts[1].decode(), code, out, err, trace


def _trace(path: str, t0: float, fields: bytes) -> None:
    """The invocation's line in `$CRS_HOOK_TRACE` (as the in-process hook writes it), with
    the server's fields; JSON built by hand (this module does not import json)."""
    ms = round((time.perf_counter() - t0) * 1000, 3)
    body = fields.decode("utf-8", "replace").strip()
    rest = ", " + body[1:] if body.startswith("{") and len(body) > 2 else "}"
    line = f'{{"pid": {os.getpid()}, "ms": {ms}, "via": "server"{rest}\n'
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def _remote(
    sock: _socket.socket, data: bytes, home: str, on_block: str, t0: float, path: str = ""
) -> int | None:
    """Ask the server; the exit code, or None when it asked for a restart (nothing done).
    A server that did not answer in time is marked hung (`mark_hung`) at `path`."""
    try:
        sock.sendall(_request(home, on_block, data))
        sock.shutdown(_socket.SHUT_WR)
        status, code, out, err, fields = parse_reply(_receive(sock))
    except TimeoutError as exc:
        pid = peer_pid(sock)
        note = ""
        if path:
            try:
                mark_hung(path, pid)
                note = f"; hooks answer in-process for {HUNG_SKIP_S:.0f} s"
            except OSError:
                pass
        _log(home, f"hook server (pid {pid}) did not answer ({exc}); the call is allowed{note}")
        return 0
    except Exception as exc:
        # The request may have been handled: allowing is right, redoing it is not.
        _log(home, f"hook server failed ({type(exc).__name__}: {exc}); the call is allowed")
        return 0
    finally:
        sock.close()
    if status == "restart":
        return None
    if out:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    if err:
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    trace = os.environ.get("CRS_HOOK_TRACE")
    if trace:
        try:  # noqa: SIM105
            _trace(trace, t0, fields)
        except Exception:
            pass
    return code


def main(argv: list[str] | None = None) -> int:
    """`crs hook claude-code [--on-block deny|ask] [--home DIR]`: one event's JSON on stdin."""
    t0 = time.perf_counter()
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:3] == ["crs", "hook", "claude-code"]:  # the installed command's words
        del args[:3]
    on_block, home, unknown = "deny", None, []
    while args:
        flag = args.pop(0)
        if flag == "--on-block" and args and args[0] in ("deny", "ask"):
            on_block = args.pop(0)
        elif flag == "--home" and args:
            home = args.pop(0)
        else:  # an unknown flag must not break the user's tools: note it and go on
            unknown.append(flag)
    for flag in unknown:
        _log(home, f"ignoring unknown argument {flag!r}")
    try:
        data = sys.stdin.buffer.read()
    except Exception:
        data = b""
    if os.environ.get("CRS_HOOK_DAEMON") == "0" or not hasattr(_socket, "AF_UNIX"):
        return _local(data, home, on_block, t0, "in-process")  # no server (or none possible)
    base, path, why = "", "", "no-server"
    sock = None
    try:
        base = home_dir(home)
        path = socket_path(base)
        if hung(path):
            why = "server-hung"
        else:
            sock = _connect(path)
    except Exception:  # fail open: the in-process path decides and logs
        sock = None
    if sock is not None:
        code = _remote(sock, data, base, on_block, t0, path)
        if code is not None:
            return code
        why = "restart"
    code = _local(data, home, on_block, t0, why)
    if path and why != "server-hung":
        try:
            spawn(base, path)
        except Exception as exc:
            _log(home, f"could not start the hook server ({type(exc).__name__}: {exc})")
    return code


def _exit(code: int) -> None:
    """End the hook process with `code`. Once its output is flushed and no other thread
    runs, without the interpreter's teardown (freeing every module and object one by one,
    a last garbage collection: ~5% of a cold hook's instructions); otherwise as usual."""
    import _thread  # a built-in module

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        raise SystemExit(code) from None  # the usual exit reports it
    if _thread._count() == 0:
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":  # `python <crs>/integrations/_hook_client.py [--on-block ask]`
    _exit(main())
