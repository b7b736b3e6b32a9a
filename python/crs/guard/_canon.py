"""A call's identity and a result's digest (issue 12, semantics 1).

The signature is a digest of the tool and its canonical arguments: keys sorted, numbers in
one form (1.0 == 1), strings stripped, shell commands split and joined by shlex (so
whitespace and quoting variants agree), commentary fields left out. Only digests leave this
module; the raw values never reach the engine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from crs import _core
from crs._errors import InvalidArgumentError
from crs._reasoning._sanitizer import REDACTED, SecretSanitizer, is_secret_key

MAX_TOOL_CHARS = 256
MAX_VALUE_CHARS = 64 * 1024 * 1024
"""Arguments and results larger than this (as canonical text) are refused."""
MAX_DEPTH = 64

_dumps = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
).encode
# `hashlib.blake2b(data, digest_size=n).hexdigest()` without the hash object (tests/guard:
# they agree on every input)
_blake_hex = _core.blake2b_hex
_WS = re.compile(r"\s+")
# Parts of a result that change from run to run without meaning anything changed: clock
# times, timestamps, durations, memory addresses, Unix times in seconds or milliseconds
# (2017 to 2033: 10 or 13 digits), generated ids (a GUID, a `batch-9f3a2c1d0e`
# suffix, a nonce: a whole word of hex digits, single dashes between groups, at least 8
# digits with a digit and a letter among them). They do not make a new result.
_HEX_WORD = r"(?:[0-9a-fA-F]|-(?=[0-9a-fA-F]))*?"
_VOLATILE = re.compile(
    r"(?=\d)(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|(?<!\d)\d{1,2}:\d\d:\d\d(?:\.\d+)?\b"
    r"|(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds?|µs|us|ns|mins?|minutes?)\b"
    r"|0x[0-9a-fA-F]{6,}"
    r"|(?<![\w.])1[5-9]\d{8}(?:\d{3})?(?:\.\d+)?(?![\w.]))"
    rf"|(?<![0-9A-Za-z])(?={_HEX_WORD}[a-fA-F])(?={_HEX_WORD}\d)"
    r"(?:[0-9a-fA-F]-?){7,}[0-9a-fA-F](?![0-9A-Za-z]|-[0-9a-fA-F])"
)
_HAS_DIGIT = re.compile(r"\d").search

REMOTE_READS = (
    r"kubectl\s+(get|describe|logs|top|explain|version|api-resources|api-versions|"
    r"cluster-info|auth\s+can-i|config\s+(view|get-contexts|current-context)|"
    r"rollout\s+(status|history))|"
    r"docker\s+(ps|logs|inspect|images|info|version)|"
    r"helm\s+(list|ls|status|history|show|search)|"
    r"curl\b(?!.*\|\s*(sudo\s+)?(ba|z|da)?sh\b)(?![^|;&]*(\s(-X|--request)\s+(?!GET\b)|"
    r"\s(-[a-zA-Z]*[dFTO]|--data|--form|--upload-file|--json|--remote-name)|"
    r"\s(-o|--output)\s+(?!/dev/null\b)))"
)
"""Shell commands that read a cluster, a container host or a chart release without changing
it (`kubectl get`, `kubectl rollout status`, `docker ps`, `helm status`), and an HTTP request
that sends nothing, saves nothing and runs nothing it fetched (`curl -sI URL | head -1`; not
`-X POST`, `-d`, `-o file`, `| bash`): part of the guard's read-only commands, so a listing
of pods between two waits is no workspace change (fresh10)."""
_mask_ascii = _core.mask_volatile  # the same, as a Rust scanner (tests/guard: they agree)


def mask_volatile(text: str) -> str:
    """`text` with its volatile parts (`_VOLATILE`) replaced by `#`: ASCII text through the
    Rust scanner (a regex scan costs about 16 ns a character, the scanner about 1), other
    text through the regex."""
    if text.isascii():
        masked = _mask_ascii(text)
        return text if masked is None else masked
    return _VOLATILE.sub("#", text) if _HAS_DIGIT(text) else text


_TRANSIENT = re.compile(
    r"(?i)(time[d ]?\s?out|timeout|deadline[ _]exceeded|rate.?limit|too[ _]many[ _]requests|"
    r"\b429\b|\b50[0-4]\b|service unavailable|bad[ _]gateway|gateway time|temporar(y|ily)|"
    r"try again|"
    # an API's error code for a failure on its side, in snake case (Slack's `internal_error`,
    # gRPC's `INTERNAL_ERROR`; fresh25): not a class named so (`InternalError`, SQLAlchemy's
    # aborted transaction), nor "internal error" in prose, which may be the caller's
    r"\binternal_error\b|"
    r"connection ?(reset|refused|aborted|error|closed)|econnreset|econnrefused|etimedout|"
    r"\bconnect ?error\b|"
    r"eai_again|enetunreach|ehostunreach|network (error|is unreachable)|broken pipe|"
    r"overloaded|unavailable|throttl|internal ?server ?error|upstream (connect|request|timed)|"
    r"resource_?exhausted|\bslow ?down\b|socket hang up|remote ?(end closed|disconnected)|"
    r"server (is )?busy|database is locked|deadlock|\benotfound\b|getaddrinfo|name resolution|"
    r"incomplete ?read|unexpected_?eof|please retry|retry later|"
    # a wait that ran out, said without the word "timeout" ("did not report completion
    # within 120s", "no response within 30 seconds", "cancelled because it took more than
    # 300 seconds")
    r"(did not|didn't|failed to|no) (complete|finish|respond|response|return|report "
    r"completion|answer)[^\n]{0,24}? within \d|"
    r"took (more|longer) than \d+ ?(ms|s|secs?|seconds?|mins?|minutes?)\b|"
    # a model or upstream that answered nothing (a throttled subscription, a dropped
    # stream): the request is retried as a 5xx is (fresh9; not an empty body of one's own)
    r"\b(model|llm|provider|upstream|server|api)\b[^\n]{0,60}\b(returned|sent|gave) (an )?"
    r"empty (response|reply|completion)|empty (response|reply) from (the )?"
    r"(model|llm|provider|upstream|server|api)\b)"
)


def check_tool(tool: Any) -> str:
    if type(tool) is not str:
        if not isinstance(tool, str):
            raise InvalidArgumentError(f"tool: must be a non-empty str, got {type(tool).__name__}")
        tool = str(tool)
    if not tool or len(tool) > MAX_TOOL_CHARS or tool != tool.strip():
        raise InvalidArgumentError(
            f"tool: must be a non-empty str of at most {MAX_TOOL_CHARS} characters without "
            f"surrounding whitespace, got {tool[:80]!r}"
        )
    try:
        tool.encode()
    except UnicodeEncodeError:
        raise InvalidArgumentError("tool: contains a lone surrogate (not valid UTF-8)") from None
    return str(tool)


_shell_canon = _core.shell_canon  # shlex.join(shlex.split(text)) in Rust (tests/guard: agree)


def _norm_command(text: str) -> str:
    """The shell command as shlex splits and joins it: whitespace and quoting variants of
    one command agree (`_core.shell_canon`, the POSIX splitter of `shlex` in Rust;
    `_norm_command_reference` is the Python form, tests/guard check they agree)."""
    norm = _shell_canon(text)
    if norm is None:  # unbalanced quotes: whitespace still should not matter
        norm = " ".join(text.split())
    return norm


def _norm_command_reference(text: str) -> str:
    """`_norm_command` with Python's shlex (the reference; about 25 us a quoted command)."""
    try:
        return shlex.join(shlex.split(text))
    except ValueError:
        return " ".join(text.split())


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})


def argv_command(argv: list[str]) -> str:
    """The shell command an argv runs: the script of `bash -lc <script>` (a shell, its
    flags, the last one ending in `c`), else the words joined as a shell would quote them."""
    head = argv[0].rsplit("/", 1)[-1].lower()
    if head in _SHELLS and len(argv) >= 3 and argv[-2].startswith("-"):
        flags = argv[1:-1]
        if all(f.startswith("-") for f in flags) and flags[-1].lower().endswith("c"):
            return _norm_command(argv[-1])
    for w in argv:
        try:
            w.encode()
        except UnicodeEncodeError:
            raise _surrogate("args command") from None
    return _norm_command(shlex.join(argv))


PATH_KEYS = frozenset(
    {
        "path",
        "file",
        "file_path",
        "filepath",
        "filename",
        "dir",
        "directory",
        "cwd",
        "folder",
        "absolute_path",
        "notebook_path",
        "target_file",
        "workdir",
        "working_directory",
        "root",
        "filePath",
        "dirPath",
        "absolutePath",
    }
)
"""Argument fields holding a file system path: spellings of one path agree (`src`, `src/`,
`./src`, `src/.`)."""


def _norm_path(p: str) -> str:
    if p and "://" not in p and (p.endswith(("/", "/.")) or "./" in p or "//" in p or p == "."):
        p = posixpath.normpath(p)
    return p


_MAX_INT = 10**4000  # int -> str stops at 4300 digits by default (sys.set_int_max_str_digits)


def _too_long(path: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{path}: an integer of more than 4000 digits")


def _norm(value: Any, path: str, depth: int) -> Any:
    t = type(value)
    if t is str:
        return value.strip()
    if t is int:
        if not -_MAX_INT < value < _MAX_INT:
            raise _too_long(path)
        return value
    if value is None or t is bool:
        return value
    if t is float:
        if not math.isfinite(value):
            raise InvalidArgumentError(f"{path}: must be a finite number, got {value!r}")
        return int(value) if value.is_integer() and abs(value) < 2**63 else value
    if depth > MAX_DEPTH:
        raise InvalidArgumentError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidArgumentError(f"{path}: keys must be str, got {type(k).__name__}")
            out[k] = _norm(v, f"{path}[{k!r}]", depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_norm(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, str):
        return str(value).strip()
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _norm(int(value), path, depth)
    if isinstance(value, float):
        return _norm(float(value), path, depth)
    raise InvalidArgumentError(
        f"{path}: must be JSON data (str, int, float, bool, None, list, dict), "
        f"got {type(value).__name__}"
    )


def in_order(value: Any, depth: int = 0, found: list[str] | None = None) -> Any:
    """`value` with every set in it (through dicts, lists and tuples) in one order, its
    items sorted: a set's iteration order depends on the process's hash seed and on its own
    history, so its str() (the digest of a result that is not JSON data) did too. A set
    keeps its look (`{'a', 'b'}`, `frozenset({...})`, `set()`), so a set whose order was
    already fixed digests as before. `value` itself when it holds no set. A bytes value
    longer than `BINARY_SHOWN` is shown by its length, its hash appended to `found` (the
    digest takes it: a hash in the text would be masked as volatile); a dataclass holding
    one (or a set) is shown by its fields (`_dataclass_in_order`)."""
    t = type(value)
    if t is set or t is frozenset:
        return _Ordered(_sorted([in_order(v, depth + 1, found) for v in value]), t is frozenset)
    if t is bytes or t is bytearray or t is memoryview:
        if _nbytes(value) <= BINARY_SHOWN:
            return value
        if found is not None:  # (no copy: the buffer itself)
            found.append(hashlib.blake2b(value, digest_size=16).hexdigest())
        return _Shown(f"<{t.__name__}: {_nbytes(value)}>")
    if depth >= MAX_DEPTH:
        return value
    if t is dict:
        out = {k: in_order(v, depth + 1, found) for k, v in value.items()}
        return value if all(out[k] is v for k, v in value.items()) else out
    if t is list or t is tuple:
        items = [in_order(v, depth + 1, found) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return items if t is list else tuple(items)
    if hasattr(t, "__dataclass_fields__") and not isinstance(value, type):
        return _dataclass_in_order(value, depth, found)
    return value


BINARY_SHOWN = 1 << 16
"""The longest bytes value (bytes, bytearray, memoryview) a result's digest shows by its
`repr()` (inside a dict, a list, a dataclass: a result that is not JSON data): a longer one
is shown by its length (`<bytes: N>`, its hash digested beside), never built into a text four
times its size (Pydantic AI's `BinaryContent` of a 60 MB image; rt11)."""


def _nbytes(value: bytes | bytearray | memoryview) -> int:
    return value.nbytes if type(value) is memoryview else len(value)


class _Shown:
    """A value as `in_order` shows it: a long binary, a dataclass holding one (or a set)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def _dataclass_in_order(value: Any, depth: int, found: list[str] | None) -> Any:
    """A dataclass instance itself, or when one of its shown fields (`repr=True`) is shown
    otherwise by `in_order` (a long binary, a set), its fields as the generated `repr()`
    shows them (`Image(data=<bytes: ...>, media_type='image/png')`)."""
    try:
        shown = [
            (f.name, v, in_order(v, depth + 1, found))
            for f in dataclasses.fields(value)
            if f.repr
            for v in (getattr(value, f.name),)
        ]
    except Exception:  # (a field that cannot be read: its own str() says what it is)
        return value
    if all(a is b for _, a, b in shown):
        return value
    inner = ", ".join(f"{name}={got!r}" for name, _, got in shown)
    return _Shown(f"{type(value).__qualname__}({inner})")


def _sorted(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:  # (items of several types: by their text, which is fixed)
        return sorted(items, key=repr)


class _Ordered(list[Any]):
    """A set's items in sorted order, shown as the set (`in_order`)."""

    def __init__(self, items: list[Any], frozen: bool) -> None:
        super().__init__(items)
        self.frozen = frozen

    def __repr__(self) -> str:
        inner = "{" + ", ".join(map(repr, self)) + "}" if self else ""
        if self.frozen:
            return f"frozenset({inner})"
        return inner or "set()"

    __str__ = __repr__


def _find_surrogate(value: Any, path: str) -> str:
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return path
        return ""
    if isinstance(value, Mapping):
        for k, v in value.items():
            p = _find_surrogate(k, f"{path} key") or _find_surrogate(v, f"{path}[{k!r}]")
            if p:
                return p
    elif isinstance(value, list | tuple | set | frozenset):
        for i, v in enumerate(value):
            p = _find_surrogate(v, f"{path}[{i}]")
            if p:
                return p
    return ""


def _find_long_int(value: Any, depth: int = 0) -> bool:
    if type(value) is int:
        return not -_MAX_INT < value < _MAX_INT
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, Mapping):
        return any(_find_long_int(v, depth + 1) for v in value.values())
    if isinstance(value, list | tuple | set | frozenset):
        return any(_find_long_int(v, depth + 1) for v in value)
    return False


def _encode(doc: Any, name: str) -> bytes:
    return _encode_text(_dumps(doc), doc, name)


def _encode_text(text: str, doc: Any, name: str) -> bytes:
    if len(text) > MAX_VALUE_CHARS:
        raise InvalidArgumentError(
            f"{name}: {len(text)} characters as JSON, more than the guard takes ({MAX_VALUE_CHARS})"
        )
    try:
        return text.encode()
    except UnicodeEncodeError:
        where = _find_surrogate(doc, name) or name
        raise InvalidArgumentError(
            f"{where}: contains a lone surrogate (not valid UTF-8); decode tool output with "
            "errors='replace'"
        ) from None


def _surrogate(path: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"{path}: contains a lone surrogate (not valid UTF-8); decode text with errors='replace'"
    )


def canonical_args(
    args: Mapping[str, Any] | None,
    drop: frozenset[str],
    commands: frozenset[str],
) -> tuple[dict[str, Any], bool, str]:
    """The canonical form of a call's arguments (see the module docstring).

    Returns:
        (canonical dict, flat, first shell command or ""): `flat` when every value is a
        str, int, bool or None (the fast signature path).
    """
    if args is None:
        return {}, True, ""
    if not isinstance(args, Mapping):
        raise InvalidArgumentError(
            f"args: must be a mapping of argument names to JSON data, got {type(args).__name__}"
        )
    out: dict[str, Any] = {}
    flat = True
    cmd = ""
    for k, v in args.items():
        if type(k) is not str:
            if not isinstance(k, str):
                raise InvalidArgumentError(f"args: keys must be str, got {type(k).__name__}")
            k = str(k)
        if k in drop:
            continue
        if not k.isascii():
            try:
                k.encode()
            except UnicodeEncodeError:
                raise _surrogate("args key") from None
        if type(v) is str:
            if not v.isascii():
                try:
                    v.encode()
                except UnicodeEncodeError:
                    raise _surrogate(f"args[{k!r}]") from None
            if k in commands:
                v = _norm_command(v)
                if not cmd:
                    cmd = v
                out[k] = v
            elif k in PATH_KEYS:
                out[k] = _norm_path(v.strip())
            else:
                out[k] = v.strip()
        elif k in commands and type(v) is list and v and all(type(w) is str for w in v):
            # an argv (`["bash", "-lc", "ls -la"]`, Codex's form) is the command it runs:
            # the same call as the string, with the same checks (reads, waits)
            v = out[k] = argv_command(v)
            if not cmd:
                cmd = v
        else:
            v = out[k] = _norm(v, f"args[{k!r}]", 1)
            if flat and not (v is None or type(v) is int or type(v) is bool or type(v) is str):
                flat = False
    if len(out) > 4096:
        raise InvalidArgumentError(f"args: {len(out)} arguments, more than 4096")
    return out, flat, cmd


_canon_flat = _core.canon_flat
_digest_text = _core.digest_text


def call_identity(
    tool: str,
    args: Mapping[str, Any] | None,
    drop: frozenset[str],
    commands: frozenset[str],
) -> tuple[str, dict[str, Any], str]:
    """`(signature(tool, canon, flat), canon, cmd)` for `canonical_args(args, drop,
    commands)`: plain ASCII arguments (most) in one Rust pass (`_core.canon_flat`, the same
    bytes: tests/guard check they agree), the rest by the Python functions."""
    if args is not None:
        got = _canon_flat(tool, args, drop, commands, PATH_KEYS)
        if got is not None:
            return got
    return python_identity(tool, args, drop, commands)


def python_identity(
    tool: str,
    args: Mapping[str, Any] | None,
    drop: frozenset[str],
    commands: frozenset[str],
) -> tuple[str, dict[str, Any], str]:
    """`call_identity` by the Python functions alone (for what `_core.canon_flat` declines)."""
    canon, flat, cmd = canonical_args(args, drop, commands)
    return signature(tool, canon, flat), canon, cmd


def signature(tool: str, canon: dict[str, Any], flat: bool = False) -> str:
    """32 hex digits of BLAKE2b over the tool and the canonical arguments."""
    if flat:
        if len(canon) == 1:
            ((k, v),) = canon.items()
            text = f"[({k!r}, {v!r})]"  # repr([(k, v)]), without building the list
        else:
            text = repr(sorted(canon.items()))
        if len(text) > MAX_VALUE_CHARS:
            raise InvalidArgumentError(f"args: more than {MAX_VALUE_CHARS} characters")
        data = b"r" + text.encode("utf-8", "surrogatepass")
    else:
        data = b"j" + _encode(canon, "args")
    return _blake_hex(tool.encode() + b"\x00" + data, 16)


_STOP_WORDS = (
    "a an the of to in on for with and or not is are was be by at as it its this that these "
    "when what where how why who which do does did i me my you your we our us user s"
)
_STOP = frozenset(_STOP_WORDS.split(" "))
# Word tokens of free text: camelCase and snake_case split, except that a word carrying a
# number ("test1", "mod_01", "v2", "k8s", "page-3") names one item and stays whole, so
# "test1" and "test2" are different things, not a rewording. (Look-aheads bounded: linear.)
_TOKEN = re.compile(
    r"\b(?=[A-Za-z_-]{0,64}\d)(?=[\d_-]{0,64}[A-Za-z])[A-Za-z0-9_-]+"
    r"|[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+"
)
_PATHLIKE = re.compile(r"^[\w.~-]*[/\\]|^\w[\w-]*\.[A-Za-z0-9]{1,8}$|://|^\.{1,2}$")
# `_PATHLIKE.search(s) is not None`, cheaper: its anchored alternatives tried at the start
# only, and "://" as a substring test (tests/guard: they agree).
_PATH_START = re.compile(r"[\w.~-]*[/\\]|\w[\w-]*\.[A-Za-z0-9]{1,8}$|\.{1,2}$").match


def _pathlike(text: str) -> bool:
    return "://" in text or _PATH_START(text) is not None


IDENT_KEYS = frozenset(
    {
        "path",
        "paths",
        "file",
        "files",
        "file_path",
        "filepath",
        "filename",
        "url",
        "uri",
        "id",
        "dir",
        "directory",
        "cwd",
        "repo",
        "branch",
        "ref",
        "bash_id",
        "handle",
        "target",
        "absolute_path",
        "notebook_path",
        "table",
        "project",
        "name",
        "pid",
        "job",
        "job_id",
    }
)
"""Argument fields that name the resource a call acts on: calls on different resources are
never near-duplicates of each other."""


VOLATILE_KEYS = frozenset(
    {
        "requestid",
        "reqid",
        "traceid",
        "traceparent",
        "spanid",
        "correlationid",
        "nonce",
        "cachebuster",
        "timestamp",
        "ts",
    }
)
"""Argument fields (lower case, `_` and `-` left out) that carry per-request metadata: a
request or trace id, a nonce, a cache-buster, the time of sending. They are new on every
call and say nothing about what is asked: `features` leaves them out, as it does numbers
(they stay in the signature: a call's identity does not depend on guessing them right)."""


@lru_cache(maxsize=4096)
def _volatile_key(key: str) -> bool:
    return key.lower().replace("_", "").replace("-", "") in VOLATILE_KEYS


def _is_ident(key: str, value: str) -> bool:
    return (
        key.lower() in IDENT_KEYS
        or (" " not in value and _pathlike(value))
        or ("@" in value and _EMAIL(value) is not None)
    )


# An email address names whom a call acts on, whatever its key (`"address":
# "kate@hotmail.com"`): one email to each address a user listed is a walk over recipients,
# not one call reworded (fresh23).
_EMAIL = re.compile(r"[^\s@,;<>()\[\]]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+").fullmatch


def names_path(canon: dict[str, Any], commands: frozenset[str]) -> bool:
    """The call names a workspace path: a path argument (`PATH_KEYS`, or a path-like value)
    or a path-like word of a shell command. A call that names none reads something else
    (a service, a CI run, a job) or the workspace as a whole (`git status`)."""
    for k, v in canon.items():
        if type(v) is not str:
            continue
        if k in commands:
            if any(_pathlike(w) for w in v.split()[1:]):
                return True
        elif k in PATH_KEYS or _pathlike(v):
            return True
    return False


def _tokens(text: str) -> list[str]:
    """Lower-cased word tokens of free text (`_TOKEN`)."""
    return [m.lower() for m in _TOKEN.findall(text)]


@lru_cache(maxsize=4096)
def _secret_key(key: str) -> bool:
    """`is_secret_key`, remembered: argument names repeat on every call. A key that is
    itself a credential (`{"ghp_...": ...}`, a map keyed by tokens) counts too: the
    near-duplicate text quotes keys as they are."""
    return is_secret_key(key) or sanitizer().sanitize(key) != key


@lru_cache(maxsize=1)
def sanitizer() -> SecretSanitizer:
    """A default `SecretSanitizer`, made on first use (for what is checked rarely: argument
    names once each, an observed call's error)."""
    return SecretSanitizer()


def features(
    canon: dict[str, Any], commands: frozenset[str], sanitize: Callable[[str], str]
) -> str:
    """What near-duplicate checks compare: `"<identifier digest>|<text tokens>"`, or "" when
    the call has nothing beyond its identifiers (a different resource is a different call).

    Identifiers (paths, URLs, ids, a shell command's program and paths) must be equal;
    the free text (queries, patterns, titles, a command's other words) is compared as a set
    of lower-cased word tokens (camelCase and snake_case split, stop words left out; a word
    carrying a number, "test1", "mod_01", stays whole: another number is another item);
    numbers, flags and per-request metadata (`VOLATILE_KEYS`: request ids, nonces, send
    times) are parameters, left out (a re-parameterised call with the same result is the
    same call).
    """
    # A call of one argument, a non-empty str, is its value: the argument's name is not
    # compared (`read(path="foo.py")`, `read(file="foo.py")`, `read(file_path="foo.py")`
    # read one file; a search for "def foo" as `query`, `pattern` or `keyword` is one
    # search). Its identifier alone, with no key, is a near-duplicate of another call with
    # it (with the same result: one call renamed). Calls of several arguments keep their
    # keys (`src` and `dst` swapped is another copy). (fresh16)
    one = False
    if len(canon) == 1:
        ((k, v),) = canon.items()
        if type(v) is str and v:  # (an empty one, a number, a flag: keyed, as before)
            # (the keys of IDENT_KEYS are lower case: `k in IDENT_KEYS` is `_is_ident`'s
            # first test)
            if k not in commands and (k in IDENT_KEYS or _is_ident(k, v)):
                return _one_ident(v)
            one = True
    idents: list[tuple[str, str]] = []
    texts: list[tuple[str, str]] = []
    progs: list[tuple[str, str]] = []
    extra = False
    for k, v in canon.items():
        if type(v) is not str or _volatile_key(k):
            if type(v) is int and _target_key(k):  # `issue: 11`: which issue, no parameter
                idents.append((k, str(v)))
            else:
                extra = True
            continue
        if k in commands:
            # sanitized whole, then split: a word alone does not say it is a secret, the
            # flag before it does (`--password hunter2`, in a string or an argv list)
            words = sanitize(v).split()
            if words:
                prog = _program(words[0])
                idents.append((k, prog))
                # a respelt program (an alias) is a parameter too: another spelling of the
                # same call may be its near-duplicate (fresh9)
                extra = extra or prog != words[0]
            stage = False
            for w in words[1:]:
                if stage:  # the program of a pipeline's next stage (`| grep`): marked
                    stage = False
                    if w not in _STAGES:
                        progs.append((k, _program(w)))
                        continue
                if w in _STAGES:
                    stage = True
                    continue
                if w.startswith("-") or w.isdigit():
                    continue
                if len(w) > 2 and w[0] == w[-1] and w[0] in "'\"":
                    w = w[1:-1]  # the shell removes the quotes: `"D:\x"` is `D:\x` (fresh9)
                if _DRIVE(w) is not None:
                    # a Windows path (`D:\Agents`; a POSIX split of the command drops its
                    # backslashes, `D:Agents`): the same folder in any case (fresh9)
                    idents.append((k, _DRIVE_SEP("", w).lower()))
                    continue
                if _pathlike(w):
                    idents.append((k, _one_spelling(w)))
                else:
                    texts.append((k, w))
        elif v and v[0] in _NUMBER_START and _NUMBER_TEXT(v) is not None:
            # a number sent as a string (`"offset": "668"`, many models' JSON): the number,
            # a parameter, or which one under a key that names the item (fresh8)
            if k.lower() in IDENT_KEYS or _names_target(k) or _id_key(k) or _target_key(k):
                idents.append((k, str(int(float(v)))))
            else:
                extra = True
        elif _is_ident(k, v) or _names_target(k) or _id_key(k):
            idents.append((k, _one_spelling(v)))
        elif v:
            texts.append((k, v))
    if one:
        idents = [("", v) for _, v in idents]
    elif not texts and not progs and not extra:
        return ""
    ident = _blake_hex(repr(sorted(idents)).encode("utf-8", "surrogatepass"), 8)
    # A word said twice is two tokens (`total#2`): `select total from total` and `select
    # total from orders` differ in one word, a table named as its column being another table.
    said: dict[str, int] = {}
    toks: set[str] = set()
    for k, v in texts:
        if _secret_key(k):  # the value alone does not say it is a secret: its key does
            continue
        for t in _tokens(sanitize(v)):
            if t not in _STOP:
                tok = f":{t}" if one else f"{k}:{t}"
                n = said[tok] = said.get(tok, 0) + 1
                toks.add(tok if n == 1 else f"{tok}#{n}")
    for k, v in progs:  # a later stage's program, marked `>` (`similar`'s walk rule)
        toks.update(f"{'' if one else k}:>{t}" for t in _tokens(sanitize(v)))
    return ident + "|" + " ".join(sorted(toks))


def _one_ident(value: str) -> str:
    """`features` of a call whose one argument is an identifier (a path, a URL, an id):
    that identifier, with no key, in one spelling (`_one_spelling`; and a path absolute or
    relative alike, `/runs/chicago` and `runs/chicago`: with the same result they are one
    folder asked for twice, fresh17)."""
    if value[:2] == "./" or value[-1:] == "/" or "//" in value:
        value = _one_spelling(value)
    if value[:1] == "/" and value[1:2] != "/" and len(value) > 1:
        value = value[1:]
    return _blake_hex(("\x00" + value).encode("utf-8", "surrogatepass"), 8) + "|"


# A whole number as text (`"668"`, `"-3"`, `"30.0"`): not `"007"` (a code with its zeros)
# nor `"3.10"` (a version), which stay words.
_NUMBER_TEXT = re.compile(r"-?(?:0|[1-9]\d{0,17})(?:\.0+)?").fullmatch
_NUMBER_START = frozenset("-0123456789")  # (most values are words: no regex for them)


_TARGET_NUMBER_KEYS = frozenset(
    {"id", "number", "num", "issue", "pr", "pull", "ticket", "order", "item", "post", "pid"}
)
_TARGET_TEXT_KEYS = frozenset(
    {"channel", "to", "cc", "bcc", "recipient", "recipients", "email", "user", "username"}
    | {"assignee", "reviewer", "chat", "thread", "conversation", "account", "customer"}
    | {"contact", "phone", "host", "hostname", "server", "service", "namespace", "cluster"}
    | {"pod", "container", "device", "room", "queue", "topicarn", "bucket", "key", "keys"}
)
"""Argument fields (lower case, `_` and `-` left out) that say who or where a call acts on:
a recipient, a channel, a host, a bucket. The same message to `#eng` and to `#ops`, the
same invoice to two people, are two calls, not one reworded (fresh6)."""


_TARGET_NOUNS = frozenset({"issue", "pr", "pull", "ticket", "order", "item", "post"})
_NUMBER_WORDS = frozenset({"number", "num", "no", "nr"})
_KEY_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@lru_cache(maxsize=4096)
def _target_key(key: str) -> bool:
    """A whole-number argument that says which one (`issue: 11`, `user_id`, `orderId`), not
    how much (`timeout`, `limit`, `top_k`, `page`): the calls act on different things. So
    does a number word after one of those things (`issue_number`, GitHub's `pull_number`,
    `prNumber`, `order_no`: fresh7); `page_number` and `line_number` stay parameters."""
    if key.lower() in _TARGET_NUMBER_KEYS or key.endswith(("_id", "Id", "-id", "ID")):
        return True
    words = [w.lower() for w in _KEY_WORD.findall(key)]
    return len(words) >= 2 and words[-1] in _NUMBER_WORDS and words[-2] in _TARGET_NOUNS


@lru_cache(maxsize=4096)
def _id_key(key: str) -> bool:
    """A key whose str value is an id (`user_id: "u_81"`, `pageId`, `sku_id: "A1001"`,
    `issue_number: "12"`): it names what the call acts on, as a whole number under it does
    (fresh7). Not `issue` or `order` alone: their str value may be free text or a sort
    order."""
    return key.endswith(("_id", "Id", "-id", "ID")) or (
        key.lower() not in _TARGET_NUMBER_KEYS and _target_key(key)
    )


@lru_cache(maxsize=4096)
def _names_target(key: str) -> bool:
    return key.lower().replace("_", "").replace("-", "") in _TARGET_TEXT_KEYS


# PowerShell's built-in aliases of the cmdlets that list and read (`gci`, `dir`, `ls` are
# `Get-ChildItem`; `gc`, `cat` are `Get-Content`), the same programs whatever the spelling;
# a cmdlet's name is case-insensitive. `dir`/`ls` and `cat` do the same in a POSIX shell.
# (`type` is left out: a POSIX shell's `type` says what a command is.) (fresh9)
_SHELL_ALIASES = {
    "gci": "get-childitem",
    "dir": "get-childitem",
    "ls": "get-childitem",
    "gc": "get-content",
    "cat": "get-content",
}
_CMDLET = re.compile(r"[A-Za-z]+-[A-Za-z]+").fullmatch
_DRIVE = re.compile(r"[A-Za-z]:[\\/\w.~-]").match
_DRIVE_SEP = re.compile(r"[\\/]+").sub


# What starts a command's next stage: a pipe, a list operator. The word after it is that
# stage's program, an identifier as the first one is: `cat app.log | grep ERROR` and `... |
# grep WARN` differ in their whole free text (a search for another word), not in one of
# two words (fresh10 lead).
# (The canonical form quotes an operator standing alone as a word: `'|'`.)
_STAGES = frozenset(op for o in ("|", "||", "&&", ";", "|&", "&") for op in (o, f"'{o}'"))


def _program(word: str) -> str:
    """A command's program as near-duplicate checks compare it (see `_SHELL_ALIASES`)."""
    low = word.lower()
    if low in _SHELL_ALIASES:
        return _SHELL_ALIASES[low]
    return low if _CMDLET(word) is not None else word


def _one_spelling(path: str) -> str:
    """A path as near-duplicate checks compare it: `./src/a.py`, `src/a.py` and `docs/`,
    `docs` name the same file (a leading `./` and a trailing `/` left out). Only there: a
    call's signature keeps its own spelling, and a command's program word is not a path
    argument (`./run.sh` and `run.sh` are different programs)."""
    while path.startswith("./") and len(path) > 2:
        path = path[2:]
    if "//" in path[1:] and "://" not in path:  # (`/runs//chicago`; not a URL's, fresh17)
        path = path[0] + re.sub("/{2,}", "/", path[1:])
    if len(path) > 1 and path.endswith("/") and not path.endswith("//"):
        path = path[:-1]
    return path


def _other_target(a: str, b: str) -> bool:
    """Whether two calls of three words or more that differ in one word only, `a` in one
    and `b` in the other (`<key>:<token>` of `features`), name two things rather than one
    in two wordings: the same query on another table (`count FROM orders`, `count FROM
    refunds`), a search for another handler or topic. Such a series is a walk over items,
    each answer its own (an empty result for some of them is news), not a search reworded.
    Not when the words may be one word in two forms (`config`/`configuration`, `noop1`/
    `noop2`: the same first four letters) or either is a single letter; a
    pattern of two words with one changed (`github.*issue`, `create_issue`) stays a
    rewording."""
    ka, _, wa = a.partition(":")
    kb, _, wb = b.partition(":")
    return ka == kb and len(wa) >= 2 and len(wb) >= 2 and wa[:4] != wb[:4]


def _only_programs(shared: set[str], a: str, b: str) -> bool:
    """Whether the tokens two calls share are all programs of later pipeline stages (marked
    `:>` by `features`) and the words that differ are not."""
    return bool(shared) and ":>" not in a and ":>" not in b and all(":>" in t for t in shared)


def similar(a: str, b: str, threshold: float) -> bool:
    """Near-duplicates by `features`: equal identifiers and a text-token Jaccard of at least
    `threshold` (both texts empty: only parameters differ). Long texts are compared by their
    MinHash signatures (crs._core), short ones exactly."""
    ia, _, ta = a.partition("|")
    ib, _, tb = b.partition("|")
    if ia != ib:
        return False
    if not ta and not tb:
        return True
    sa, sb = set(ta.split()), set(tb.split())
    if len(sa) == len(sb) and len(sa - sb) == 1:
        (wa,), (wb,) = sa - sb, sb - sa
        # three words or more; or the one word of free text beside a pipeline's programs
        # (`cat app.log | grep ERROR`, `... | grep WARN`: another word searched for)
        if (len(sa) >= 3 or _only_programs(sa - {wa}, wa, wb)) and _other_target(wa, wb):
            return False
    if len(sa) > 64 and len(sb) > 64:
        return (
            _core.minhash_jaccard(_core.minhash_signature(ta), _core.minhash_signature(tb))
            >= threshold
        )
    return len(sa & sb) >= threshold * len(sa | sb)


def one_word_apart(a: str, b: str) -> bool:
    """Two calls by `features` with equal identifiers whose texts differ in one word each
    (`Qualify lead_137 ...`, `Qualify lead_174 ...`): the same request about another item.
    Not calls whose texts are equal: numbers and flags are parameters, and a parameter
    that changed the answer once (another window of a file) does not make every value of
    it another item (a window re-read with limit 30, 31, 32 is one read)."""
    ia, _, ta = a.partition("|")
    ib, _, tb = b.partition("|")
    if ia != ib or ta == tb:
        return False
    sa, sb = set(ta.split()), set(tb.split())
    return len(sa) == len(sb) and len(sa - sb) == 1


READING_MAX_CHARS = 64
"""The longest result `reading_digest` looks at (a clock reading, a generated id)."""


def reading_digest(result: str) -> str | None:
    """A digest of `result` as it is, when the whole answer is a clock reading
    ("2026-06-11 14:07:10", "14:07:10.5"), else None. Masked, such an answer would be
    nothing: yet it is the tool's answer, not noise around one (a `current_time` tool asked
    ten times answers ten times; fresh11). A reading has a clock time (a `:`) and starts
    with it: a bare number, a duration, a bracketed log prefix before an empty output
    ("[1765432100]") is noise, and so is a bare id (a new GUID from each of many
    `create_session` calls is a new record each time, not a new answer to one question).
    Only short results (`READING_MAX_CHARS`) are looked at: the check costs one scan. The
    guard digests a result with it first (`Guard._outcome`); `result_digest` is unchanged."""
    text = result.strip()
    if len(text) <= 8 or len(text) > READING_MAX_CHARS:
        return None  # (short text is not masked at all; long text says more than a value)
    if not text.strip("\"'")[:1].isdigit() or ":" not in text:
        return None
    masked = mask_volatile(text)
    if masked == text or any(ch.isalnum() for ch in masked):
        return None
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return None  # (the ordinary digest says what is wrong with it)
    return _blake_hex(b"r" + data, 8)


def short_digest(text: str) -> str:
    """8 hex digits of a digest of `text` (ids)."""
    return _blake_hex(text.encode("utf-8", "surrogatepass"), 4)


def without(text: str, echo: Iterable[str]) -> str:
    """`text` with each of the `echo` strings replaced by a placeholder."""
    for e in echo:
        if e in text:
            text = text.replace(e, "\x00")
    return text


def result_digest(result: Any, echo: Iterable[str] = ()) -> str:
    """A digest of a tool's result (16 hex digits); clock times, timestamps, durations and
    memory addresses in it are left out."""
    t = type(result)
    if t is str:
        if type(echo) is list or type(echo) is tuple:
            digest = _digest_text(result, echo)  # ASCII text: the same digest, in Rust
            if digest is not None:
                return digest
        return _text_digest(result, echo)
    return _other_digest(result, echo)


def _text_digest(result: str, echo: Iterable[str]) -> str:
    """`result_digest` of a str in Python (the reference of `_core.digest_text`)."""
    if len(result) > MAX_VALUE_CHARS:
        raise InvalidArgumentError(
            f"result: {len(result)} characters, more than the {MAX_VALUE_CHARS} the guard takes"
        )
    text = without(result.strip(), echo) if echo else result.strip()
    if len(text) > 8:
        text = mask_volatile(text)
    try:
        data = text.encode()
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            "result: contains a lone surrogate (not valid UTF-8); decode tool output with "
            "errors='replace'"
        ) from None
    return _blake_hex(b"s" + data, 8)


def _other_digest(result: Any, echo: Iterable[str]) -> str:
    """`result_digest` of anything but a str."""
    if result is None:
        return "0" * 16
    if isinstance(result, bytes | bytearray | memoryview):
        data = bytes(result)
        if len(data) > MAX_VALUE_CHARS:
            raise InvalidArgumentError(f"result: {len(data)} bytes, more than {MAX_VALUE_CHARS}")
        return _blake_hex(b"b" + data, 8)
    try:
        doc = _norm(result, "result", 0)
    except InvalidArgumentError:
        # Not JSON data (a NaN, a datetime, a set inside): results are only digested, so
        # their text form serves, unless it hides text that is not valid UTF-8.
        try:
            where = _find_surrogate(result, "result")
            too_long = _find_long_int(result)
        except RecursionError:  # (the JSON form stopped at MAX_DEPTH; these walks do not)
            raise InvalidArgumentError(
                f"result: nested too deep to digest (more than {MAX_DEPTH} levels)"
            ) from None
        if where:
            raise _surrogate(where) from None
        if too_long:
            raise _too_long("result") from None
        cls: Any = type(result)
        if cls.__repr__ is object.__repr__ and cls.__str__ is object.__str__:
            raise InvalidArgumentError(
                f"result: must be JSON data, str or bytes (or an object with its own str()), "
                f"got {type(result).__name__}"
            ) from None
        found: list[str] = []
        try:
            text = str(in_order(result, 0, found))
        except Exception as exc:  # a str() that raises (or recurses too deep)
            raise InvalidArgumentError(
                f"result: its str() failed ({type(exc).__name__}); give its text or JSON data"
            ) from None
        digest = result_digest(text, echo)
        if found:  # the long binaries' hashes (`in_order`)
            return _blake_hex(f"{digest}|{'|'.join(found)}".encode(), 8)
        return digest
    text = _dumps(doc)
    if (type(doc) is dict or type(doc) is list) and _has_stamp_key(text):
        doc = _unstamped(doc, 0)
        text = _dumps(doc)
    if _RATE_HINT.search(text) is not None:  # (a scan in C: most results have none)
        doc = _unrated(doc, 0)
        text = _dumps(doc)
    if echo:
        text = without(text, (_dumps(e)[1:-1] for e in echo))
    text = mask_volatile(text)
    return _blake_hex(b"j" + _encode_text(text, doc, "result"), 8)


RESULT_STAMP_KEYS = VOLATILE_KEYS | frozenset(
    {
        "elapsed",
        "duration",
        "took",
        "latency",
        "runtime",
        "timetaken",
        "walltime",
        "servertime",
        "responsetime",
        "fetchedat",
        "retrievedat",
        "generatedat",
        "requestedat",
        "respondedat",
        "checkedat",
        "receivedat",
        "messageid",
        "runid",
        "toolcallid",
        "tooluseid",
        "callid",
        "receipt",
        "etag",
    }
)
"""Fields of a structured result (lower case, `_` and `-` left out, a unit suffix too:
`elapsed_ms`, `durationSeconds`) that stamp the answer rather than say something: when it
was made, how long it took, the id of this delivery (a tool message's `tool_call_id`, the
id of the call it answers: a new one for every call). A result that differs only in them is
the same result, as timestamps and durations in text are."""

RATE_KEYS = frozenset(
    {
        "ratelimit",
        "ratelimitremaining",
        "ratelimitreset",
        "ratelimitused",
        "ratelimitlimit",
        "xratelimit",
        "xratelimitremaining",
        "xratelimitreset",
        "xratelimitused",
        "xratelimitlimit",
        "quotaremaining",
    }
)
"""Rate-limit bookkeeping fields of a structured result (lower case, `_` and `-` left out):
beside an answer they report the caller's quota, not the answer, and go down on every call;
a result that differs only in them beside the same data is the same result (fresh6). A
result made of them alone is the answer (a rate-limit report asked for) and stays."""


_RATE_HINT = re.compile(r'(?i)"(?:x[_-]?)?(?:rate[_-]?limit|quota[_-]?remaining)')


@lru_cache(maxsize=4096)
def _rate_key(key: str) -> bool:
    return key.lower().replace("_", "").replace("-", "") in RATE_KEYS


def _unrated(doc: Any, depth: int) -> Any:
    """`doc` with the values of its rate-limit fields (`RATE_KEYS`) replaced by "#" in each
    object that holds something else beside them."""
    if type(doc) is dict:
        if depth > MAX_DEPTH:
            return doc
        rated = [k for k in doc if _rate_key(k)]
        return {
            k: "#"
            if rated and len(rated) < len(doc) and k in rated and v is not None
            else _unrated(v, depth + 1)
            for k, v in doc.items()
        }
    if type(doc) is list:
        return [_unrated(v, depth + 1) for v in doc]
    return doc


_UNITS = (
    *("ms", "millis", "milliseconds", "ns", "us", "micros"),
    *("sec", "secs", "seconds", "mins", "minutes"),
)
_UNIT = re.compile(f"({'|'.join(_UNITS)})$")


@lru_cache(maxsize=4096)
def _stamp_key(key: str) -> bool:
    k = key.lower().replace("_", "").replace("-", "")
    if k in RESULT_STAMP_KEYS:
        return True
    bare = _UNIT.sub("", k)
    return bare != k and bare in RESULT_STAMP_KEYS


# Whether the JSON text of a result may have a stamp field: a key that is a word of
# RESULT_STAMP_KEYS, or one and a unit, once lower-cased with `_` and `-` left out (as
# `_stamp_key` reads keys), in one Rust pass over the text (`_may_stamp_reference` is the
# same in Python: tests/guard check they agree). A superset of the documents `_unstamped`
# changes, so the others (most) skip it.
_has_stamp_key = _core.StampKeys(sorted(RESULT_STAMP_KEYS), _UNITS).found
_STAMP_IN_JSON = f'"(?:{"|".join(sorted(RESULT_STAMP_KEYS))})(?:{"|".join(_UNITS)})?":'


def _may_stamp_reference(text: str) -> bool:
    """`_has_stamp_key` by a regex (the reference; compiled on first use, by `re`)."""
    return re.search(_STAMP_IN_JSON, text.lower().replace("_", "").replace("-", "")) is not None


def _unstamped(doc: Any, depth: int) -> Any:
    """`doc` with the values of its stamp fields (`RESULT_STAMP_KEYS`) replaced by "#"."""
    if type(doc) is dict:
        if depth > MAX_DEPTH:
            return doc
        return {
            k: "#" if _stamp_key(k) and v is not None else _unstamped(v, depth + 1)
            for k, v in doc.items()
        }
    if type(doc) is list:
        return [_unstamped(v, depth + 1) for v in doc]
    return doc


_GENERATED_ID = re.compile(
    rf"(?<![0-9A-Za-z])(?={_HEX_WORD}[a-fA-F])(?={_HEX_WORD}\d)"
    r"(?:[0-9a-fA-F]-?){7,}[0-9a-fA-F](?![0-9A-Za-z]|-[0-9a-fA-F])"
).search


def names_new_id(result: Any) -> bool:
    """Whether a successful result is only a handle to something made or issued for this
    call: every part of it carries a generated id (the generated-id part of `_VOLATILE`: a
    storage id, the URL that has it, a job's GUID), stamp fields (`RESULT_STAMP_KEYS`)
    aside. A text is each of its words; a structure each of its str values, and a number,
    a flag or a null beside them is a part without an id (`{"ok": true, "id": ...}` says
    something more). An id beside other content (a trace id after the text) does not make
    a handle. (fresh10)"""
    if type(result) is str:
        words = result.split()
        return 0 < len(words) <= 8 and all(_GENERATED_ID(w) is not None for w in words)
    if type(result) is not dict and type(result) is not list:
        return False
    return _handles(result, 0) is True


def _handles(doc: Any, depth: int) -> bool | None:
    """True: every part carries a generated id; False: one does not; None: no part."""
    if depth > MAX_DEPTH:
        return False
    parts: Iterable[Any]
    if type(doc) is dict:
        parts = (v for k, v in doc.items() if not (type(k) is str and _stamp_key(k)))
    elif type(doc) is list:
        parts = doc
    elif type(doc) is str:
        return _GENERATED_ID(doc) is not None
    else:
        return False
    got: bool | None = None
    for v in parts:
        h = _handles(v, depth + 1)
        if h is False:
            return False
        if h is True:
            got = True
    return got


def error_text(error: BaseException | str) -> str:
    if isinstance(error, BaseException):
        try:
            said = str(error)
        except Exception:  # a hostile or broken __str__: the error is still the call's
            said = "<its str() failed>"
        text = f"{type(error).__name__}: {said}"
    elif isinstance(error, str):
        text = error
    else:
        raise InvalidArgumentError(
            f"error: must be an exception, a str or None, got {type(error).__name__}"
        )
    text = text.strip() or "error"
    if len(text) > MAX_VALUE_CHARS:
        raise InvalidArgumentError(f"error: {len(text)} characters, more than {MAX_VALUE_CHARS}")
    try:
        text.encode()
    except UnicodeEncodeError:
        if not isinstance(error, BaseException):
            raise InvalidArgumentError(
                "error: contains a lone surrogate (not valid UTF-8)"
            ) from None
        # An exception's own text (a file name decoded with surrogateescape): the caller
        # cannot decode it differently, so it is kept as Python shows it, `\udcff`.
        text = text.encode("utf-8", "backslashreplace").decode()
    return text


# A status that says the work is still under way (a deploy, a build, a job): an unchanged
# answer of this kind is what waiting looks like, not a loop (fresh9). "running" is left
# out: for a service it is the end state.
_IN_PROGRESS = re.compile(
    r"(?i)(?<![a-z])(pending|queued|deploying|provisioning|creating|starting|building|"
    r"activating|initiali[sz]ing|progressing|in[_ -]?progress|waiting(?! for input)|"
    r"not[_ -]ready)(?![a-z])|"
    # the tool itself says the work is not done and to look again ("The run is not
    # finished; call get-actor-run again", "not complete yet, check back"; fresh20)
    r"(?i:\bnot (yet )?(finished|complete|completed|done)\b[^\n]{0,40}?\b(call|poll|check|"
    r"query|look)\b[^\n]{0,40}?\b(again|back|later)\b)"
)
_TERMINAL = re.compile(
    r"(?i)(?<![a-z])(fail(ed|ure)?|errored|error|succeeded|success|completed?|done|"
    r"(?<!not )(?<!not_)(?<!not-)ready|"
    r"active|cancell?ed|stopped|terminated|aborted|timed[_ -]?out)(?![a-z])"
)


# The fields of a run's, a job's or a task's end time (`end_date`, `finishedAt`, ...),
# compared lower-cased without `_` and `-`.
_END_KEYS = frozenset(
    {"enddate", "endtime", "endedat", "finishedat", "finishtime", "completedat"}
    | {"completiontime", "completedtime", "donedate", "endts"}
)


def unfinished_run(result: Any) -> bool:
    """A run, a job or a task that says it has not ended: its `state` or `status` is under way
    (`_IN_PROGRESS`, or "running") and it has an end-time field that is still empty
    (Airflow's DAG run `{"state": "running", "end_date": null}`; fresh27). "running" alone
    is also how a service says it is up (an end state): only the empty end time tells. A
    wrapper's run (`{"output": {...}, "elapsed_ms": 12}`, `{"data": {...}}`) is read too."""
    if type(result) is not dict or len(result) > 64:
        return False
    if _STATE_KEYS.isdisjoint(result):
        # (most results: no state field, looked at without a pass over their keys)
        if len(result) <= 4:
            for v in result.values():
                if type(v) is dict and _unfinished(v):
                    return True
        return False
    return _unfinished(result)


_STATE_KEYS = frozenset({"state", "status", "State", "Status", "STATE", "STATUS"})


def _unfinished(result: dict[Any, Any]) -> bool:
    """`unfinished_run` of one object, not looking into its fields."""
    if len(result) > 64 or _STATE_KEYS.isdisjoint(result):
        return False
    state: Any = None
    end = False
    for k, v in result.items():
        if type(k) is not str:
            continue
        kl = k.lower()
        if kl == "state" or kl == "status":
            state = v
        elif kl.replace("_", "").replace("-", "") in _END_KEYS:
            if v not in (None, ""):
                return False  # it ended
            end = True
    if not end or type(state) is not str or len(state) > 40:
        return False
    return state.strip().lower() == "running" or _IN_PROGRESS.fullmatch(state.strip()) is not None


def in_progress(result: Any) -> bool:
    """A short answer that reports a state still under way and no end state (`{"status":
    "deploying"}`, `weather-7c2  Pending`, a run not ended, `unfinished_run`): a waiting
    poll gets more patience with it."""
    if type(result) is dict and unfinished_run(result):
        return True
    text = result if type(result) is str else "" if result is None else str(result)[:401]
    if not text or len(text) > 400:
        return False
    return _IN_PROGRESS.search(text) is not None and _TERMINAL.search(text) is None


def is_transient(error: BaseException | str, text: str) -> bool:
    """Timeouts, rate limits, 5xx and network errors: worth a retry. Not an error whose only
    sign of one is a "try again" after a fix it asks for first ("Please upgrade to the
    latest CLI and try again", "sign in and try again"): waiting does not fix it (fresh17)."""
    if isinstance(error, TimeoutError | ConnectionError):
        return True
    head = text[:4000]
    m = _TRANSIENT.search(head)
    if m is None:
        return False
    said = m.group(0).lower()
    if said == "unavailable" and _TOOL_GONE.search(head) is not None:
        # a tool that is not there ("tried to call unavailable tool 'search_codebase'.
        # Available tools: ..."): no wait brings it, unless the text says so too (fresh22)
        return _TRANSIENT_NOT_GONE.search(head, m.end()) is not None
    if said in _RETRY_WORDS:
        fix = _FIX_FIRST.search(head, 0, m.start())
        if fix is not None and _TRANSIENT.search(head, m.end()) is None:
            return False
    return True


_RETRY_WORDS = frozenset({"try again", "please retry", "retry later"})
# A tool the model called that the harness does not have (or no longer offers): the word
# "unavailable" of a missing tool, not of a service that is down.
_TOOL_GONE = re.compile(
    r"(?i)\bunavailable (tool|function)\b|\b(tools?|functions?) available\s*:|"
    r"\bavailable (tools|functions)\s*(are|:)|"
    r"\b(tool|function) [`'\"]?[\w.-]{1,80}[`'\"]? (is )?(unavailable|not available)\b"
)
# What still makes such a text a transient failure: another sign than "unavailable".
_TRANSIENT_NOT_GONE = re.compile(
    r"(?i)temporar(y|ily)|try again|retry later|please retry|\b50[0-4]\b|time[d ]?\s?out|"
    r"timeout|rate.?limit|overloaded|service unavailable"
)
# What an error may ask for before its "try again" that waiting does not give.
_FIX_FIRST = re.compile(
    r"(?i)\b(upgrade|update|install|reinstall|sign(ed)? ?in|log(ged)? ?in|re-?authenticate|"
    r"authenticate|configure|enable|provide (a|an|your)|set (a|an|your|the)|add (a|an|your)|"
    r"correct|fix|(check|verify) (your|the) [\w -]{0,30}?(key|token|credential|password|"
    r"permission|setting|config|input|argument|parameter|spelling|path|name))\b"
)


def error_digest(text: str) -> str:
    # Volatile parts (numbers such as durations, addresses, pids) do not make a new error.
    norm = _WS.sub(" ", re.sub(r"0x[0-9a-fA-F]+|\d+(\.\d+)?", "#", text[:20000])).strip()
    return _blake_hex(b"e" + norm.encode(), 8)


def preview(canon: dict[str, Any], limit: int = 160) -> str:
    """A short view of the arguments (for people; sanitized before it is stored)."""
    if not canon:
        return ""
    if any(_secret_key(k) for k in canon):  # `{"password": ...}`: the value hides nothing
        canon = {
            k: REDACTED if _secret_key(k) and v not in ("", None) else v for k, v in canon.items()
        }
    if len(canon) == 1:
        (v,) = canon.values()
        text = v if isinstance(v, str) else _dumps(v)
    else:
        text = _dumps(canon)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
