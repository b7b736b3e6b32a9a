"""One checker for every public record and config, driven by the records' type hints.

`check(obj)` verifies every field of a dataclass against its annotation and raises
`InvalidArgumentError("<path>: must be <what>, got <value>")` for the first field that does
not fit, so everything a public call accepts can be journaled, replayed and backed up:

- `str`: a str that UTF-8 can encode (no lone surrogate); `bool`: a bool;
- `int`: an int (not a bool) between -2**63 and 2**63-1, or the bounds of an
  `Annotated[int, Range(lo, hi)]` hint; `float`: a finite int or float (not a bool);
- an enum: a member, or a value of one (bools refused); `X | None`, `X | str`: either;
- `tuple[X, ...]`: a tuple (or a list, which the owner copies) whose items are X;
  `dict[K, V]` / `Mapping[K, V]`: a mapping whose keys are K and values V;
  a dataclass type: an instance, checked recursively.
- Any other class is checked with `isinstance`; `Any`, protocols and callables are not checked.

A checker is compiled once per class into straight-line Python (`record_step` runs it on
every step: about 1 µs for a `StepRecord`). Error messages quote values through `brief`,
which is bounded: a deep or huge value, or one whose `repr` raises, cannot break the error.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import math
import re as _re
import reprlib
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from crs._errors import InvalidArgumentError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


@dataclasses.dataclass(frozen=True, slots=True)
class Range:
    """`Annotated[int, Range(lo, hi)]`: the int must lie in `lo..hi` (inclusive)."""

    lo: int = INT64_MIN
    hi: int = INT64_MAX


U64 = Range(0, UINT64_MAX)
"""An unsigned 64-bit value (proof numbers)."""


# ---------------------------------------------------------------- bounded repr

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlong = 40
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 6


def brief(value: object) -> str:
    """A bounded `repr` of `value` for an error message: never deep, never long, never raises."""
    try:
        return _repr.repr(value)
    except (Exception, RecursionError):  # a hostile __repr__ must not hide the real error
        return f"<{type(value).__name__} object>"


def is_encodable(text: str) -> bool:
    """Whether UTF-8 can encode `text`: lone surrogates such as '\\ud800' cannot be stored by
    the native core or the journal. ASCII text (the common case) is answered without encoding."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def require_instance(value: object, cls: type | tuple[type, ...], name: str) -> None:
    """`InvalidArgumentError("name: must be a Cls, got …")` unless `value` is a `cls`."""
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        fail(name, _a(names), value)


def require_text(value: object, name: str) -> str:
    """`value` if it is a str UTF-8 can encode (no lone surrogate) and without NUL (no file
    path or C string can hold one), else `InvalidArgumentError` naming `name`."""
    if not isinstance(value, str) or not is_encodable(value) or "\x00" in value:
        fail(name, "a str of valid Unicode text without NUL", value)
    return value


PATH_MAX = 4096
"""The longest path the file system functions accept (Linux `PATH_MAX`)."""


def require_path(value: object, name: str) -> str:
    """`require_text`, and at most `PATH_MAX` characters (the OS refuses longer paths)."""
    require_text(value, name)
    assert isinstance(value, str)
    if len(value) > PATH_MAX:
        fail(name, f"a path of at most {PATH_MAX} characters", value)
    return value


def items_of(value: object, name: str) -> tuple[Any, ...]:
    """The items of an iterable argument (not a str or bytes; a mapping gives its keys), else
    `InvalidArgumentError` naming `name` (a hostile `__iter__` included)."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, str | bytes) or not isinstance(value, collections.abc.Iterable):
        fail(name, "an iterable (a list or tuple)", value)
    try:
        return tuple(value)
    except (Exception, RecursionError) as exc:
        raise InvalidArgumentError(
            f"{name}: iterating it raised {type(exc).__name__}: {brief(str(exc))}"
        ) from None


def mapping_of(value: object, name: str) -> dict[Any, Any]:
    """A dict copy of a mapping argument (None gives {}), else `InvalidArgumentError`."""
    if value is None:
        return {}
    if not isinstance(value, collections.abc.Mapping):
        fail(name, "a dict (mapping) or None", value)
    try:
        return dict(value)
    except (Exception, RecursionError) as exc:
        raise InvalidArgumentError(
            f"{name}: reading it raised {type(exc).__name__}: {brief(str(exc))}"
        ) from None


def fail(path: str, what: str, value: object) -> typing.NoReturn:
    """Raise the checker's one message form: `path: must be what, got value`."""
    raise InvalidArgumentError(f"{path}: must be {what}, got {brief(value)}")


# ---------------------------------------------------------------- compiling type hints


class _Spec(typing.NamedTuple):
    """How to check one type: `what` for the message; `expr` an inline boolean expression
    over `v` (scalars), or None when `func(value, path)` must be called (containers)."""

    what: str
    expr: str | None
    func: Callable[[Any, str], None]


_NS: dict[str, Any] = {
    "_enc": is_encodable,
    "_isfinite": math.isfinite,
    "_fail": fail,
    "_bool": bool,
}
_counter = iter(range(sys.maxsize))


def _name(obj: Any) -> str:
    """Put `obj` in the generated code's namespace and return its name there."""
    key = f"_o{next(_counter)}"
    _NS[key] = obj
    return key


def _from_expr(what: str, expr: str) -> _Spec:
    pred = eval(f"lambda v: {expr}", _NS)

    def func(v: Any, path: str) -> None:
        if not pred(v):
            fail(path, what, v)

    return _Spec(what, expr, func)


def _enum_spec(tp: type[enum.Enum]) -> _Spec:
    values = [m.value for m in tp]
    base = int if issubclass(tp, int) else str if issubclass(tp, str) else object
    shown = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in values)
    what = f"{_a(tp.__name__)} ({shown})"
    t, m, b = _name(tp), _name(frozenset(values)), _name(base)
    return _from_expr(
        what,
        f"(type(v) is {t} or (isinstance(v, {b}) and not isinstance(v, _bool) and v in {m}))",
    )


def _spec(tp: Any, hints_of: Callable[[type], dict[str, Any]]) -> _Spec | None:
    """The spec of `tp`, or None when values of `tp` are not checked (Any, protocols)."""
    extras: tuple[Any, ...] = ()
    if typing.get_origin(tp) is typing.Annotated:
        tp, *rest = typing.get_args(tp)
        extras = tuple(rest)
    origin = typing.get_origin(tp)
    if tp is Any or isinstance(tp, typing.TypeVar):
        return None
    if tp is type(None):
        return _from_expr("None", "v is None")
    if tp is bool:
        return _from_expr("a bool", "type(v) is _bool")
    if tp is int:
        r = next((x for x in extras if isinstance(x, Range)), Range())
        return _from_expr(
            f"an int between {_bound(r.lo)} and {_bound(r.hi)}",
            f"((type(v) is int or (isinstance(v, int) and not isinstance(v, _bool)))"
            f" and {r.lo} <= v <= {r.hi})",
        )
    if tp is float:
        return _from_expr(
            "a finite number",
            "((type(v) is float or type(v) is int or (isinstance(v, (int, float))"
            " and not isinstance(v, _bool))) and _isfinite(v))",
        )
    if tp is str:
        return _from_expr(
            "a str of valid Unicode text",
            "((type(v) is str or isinstance(v, str)) and (v.isascii() or _enc(v)))",
        )
    if origin in (typing.Union, types.UnionType):
        parts = [_spec(a, hints_of) for a in typing.get_args(tp)]
        if any(p is None for p in parts):
            return None
        specs = [p for p in parts if p is not None]
        what = " or ".join(p.what for p in specs)
        if all(p.expr is not None for p in specs):
            return _from_expr(what, "(" + " or ".join(f"{p.expr}" for p in specs) + ")")
        funcs = [p.func for p in specs]
        if len(specs) == 2 and "v is None" in (specs[0].expr, specs[1].expr):
            inner = specs[0].func if specs[-1].expr == "v is None" else specs[-1].func

            def optional(v: Any, path: str) -> None:
                if v is not None:
                    inner(v, path)  # its own message, with the nested field's path

            return _Spec(what, None, optional)

        def union(v: Any, path: str) -> None:
            for f in funcs:
                try:
                    f(v, path)
                    return
                except InvalidArgumentError:
                    continue
            fail(path, what, v)

        return _Spec(what, None, union)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _spec(args[0], hints_of)
            what = "a tuple" + (f" whose items are each {item.what}" if item else "")
            item_func = item.func if item else None

            def seq(v: Any, path: str) -> None:
                # A list is accepted too: the owner stores a tuple copy (from_dict, prepare).
                if type(v) is not tuple and type(v) is not list:
                    fail(path, what, v)
                if item_func is not None:
                    for i, x in enumerate(v):
                        item_func(x, f"{path}[{i}]")

            return _Spec(what, None, seq)
        return _from_expr("a tuple", f"isinstance(v, {_name(tuple)})")
    if origin in (dict, collections.abc.Mapping):
        kt, vt = typing.get_args(tp)
        ks, vs = _spec(kt, hints_of), _spec(vt, hints_of)
        what = (
            f"a dict whose keys are each {ks.what if ks else 'anything'} and values "
            f"each {vs.what if vs else 'anything'}"
        )
        kf, vf = (ks.func if ks else None), (vs.func if vs else None)
        container = dict if origin is dict else collections.abc.Mapping

        def mapping(v: Any, path: str) -> None:
            if not isinstance(v, container):
                fail(path, what, v)
            for k, x in v.items():
                if kf is not None:
                    kf(k, f"{path} key {brief(k)}")
                if vf is not None:
                    vf(x, f"{path}[{brief(k)}]")

        return _Spec(what, None, mapping)
    if origin is not None:
        origin_cls = origin if isinstance(origin, type) else None
        if origin_cls is None:
            return None
        return _from_expr(f"a {origin_cls.__name__}", f"isinstance(v, {_name(origin_cls)})")
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_spec(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        what = _a(tp.__name__)
        cls = tp

        def record(v: Any, path: str) -> None:
            if not isinstance(v, cls):
                fail(path, what, v)
            checker(cls)(v, path + ".")

        return _Spec(what, None, record)
    if isinstance(tp, type):
        if getattr(tp, "_is_protocol", False):
            return None  # structural: the owner checks the methods it needs
        return _from_expr(_a(tp.__name__), f"isinstance(v, {_name(tp)})")
    return None


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "AEIOUaeiou" else f"a {noun}"


def _bound(n: int) -> str:
    for k in (63, 64):
        if n == 2**k - 1:
            return f"2**{k}-1"
        if n == -(2**k):
            return f"-2**{k}"
    return str(n)


_CHECKERS: dict[type, Callable[[Any, str], None]] = {}


def hints(cls: type) -> dict[str, Any]:
    """`cls`'s resolved field annotations, `Annotated` extras kept.

    String annotations resolve in the module that defined the class (records remember it in
    `_defining_module`: `crs/__init__.py` later sets `__module__` to "crs").
    """
    module = sys.modules[getattr(cls, "_defining_module", cls.__module__)]
    globalns: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        mod = sys.modules.get(getattr(base, "_defining_module", base.__module__))
        if mod is not None:
            globalns.update(vars(mod))
    globalns.update(vars(module))
    try:
        return typing.get_type_hints(cls, globalns=globalns, include_extras=True)
    except NameError:
        deferred = getattr(module, "_define_deferred", None)
        if deferred is not None and deferred():  # crs._types defines a few records on first use
            return hints(cls)
        # a name imported only for type checkers: resolve field by field
        out: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            try:
                out[f.name] = typing.get_type_hints(
                    type("_One", (), {"__annotations__": {f.name: f.type}}),
                    globalns=globalns,
                    include_extras=True,
                )[f.name]
            except NameError:
                out[f.name] = Any  # unresolvable here: not checked
        return out


def checker(cls: type) -> Callable[[Any, str], None]:
    """The compiled checker of dataclass `cls`: `f(obj, prefix)` raises on the first bad field."""
    f = _CHECKERS.get(cls)
    if f is not None:
        return f
    resolved = hints(cls)
    lines = ["def _check(obj, prefix):"]
    for field in dataclasses.fields(cls):
        if field.name.startswith("_"):
            continue
        spec = _spec(resolved[field.name], hints)
        if spec is None:
            continue
        lines.append(f"    v = obj.{field.name}")
        if spec.expr is not None:
            lines.append(f"    if not {spec.expr}:")
            lines.append(f"        _fail(prefix + {field.name!r}, {spec.what!r}, v)")
        else:
            lines.append(f"    {_name(spec.func)}(v, prefix + {field.name!r})")
    lines.append("    return None")
    ns: dict[str, Any] = {}
    exec("\n".join(lines), _NS, ns)
    f = ns["_check"]
    _CHECKERS[cls] = f
    return typing.cast(Callable[[Any, str], None], f)


def check(obj: Any, prefix: str = "") -> None:
    """Check every field of dataclass `obj` against its type hint.

    Raises:
        InvalidArgumentError: `"<prefix><field>: must be <what>, got <value>"` for the first
            field that does not fit its annotation.
    """
    f = _CHECKERS.get(type(obj))
    if f is None:
        f = checker(type(obj))
    f(obj, prefix)


# Characters a terminal acts on instead of showing: C0 and C1 controls (ESC starts the
# sequences that set a window title, write the clipboard (OSC 52) or forge a link), and the
# bidirectional overrides that reorder what is shown.
_UNSHOWN = _re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """`text` for a terminal: its control characters written as escapes (`\\x1b`), so text
    an agent or a tool wrote (a tool name, an error, a session id) is shown, never run."""
    if _UNSHOWN.search(text) is None:
        return text
    return _UNSHOWN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def shown_json(text: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) for a terminal: the characters
    `shown` escapes, as JSON's own `\\u` escapes (the same JSON value)."""
    if _UNSHOWN.search(text) is None:
        return text
    return _UNSHOWN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
