"""Secret redaction for traces and step records: the `Sanitizer` protocol and `SecretSanitizer`.

Every secret found is replaced by the marker `REDACTED` (the literal text ``[REDACTED]``).
`SecretSanitizer.sanitize` runs these passes, in this order, over the text:

1. **Private-key blocks**: a whole PEM/PGP private key, ``-----BEGIN … PRIVATE KEY-----`` through
   its ``-----END … PRIVATE KEY-----`` line (or, when the end is missing, through the base64 body
   that follows). The Go package only redacts the header line and leaves the key body in the text.
2. **The 21 patterns of the Go package** (`REFERENCE_PATTERNS`, reference study §5.1), applied in
   the Go order, each replacing its *whole* match (key names included, so ``password = "…"``
   becomes ``[REDACTED]``). Matching is ASCII, as in Go's RE2.
3. **Known token shapes** wherever they stand, under any key or none: OpenAI/Anthropic ``sk-…``,
   GitHub ``ghp_…``/``github_pat_…`` of any length, Slack ``xox?-…``/``xapp-…``, GitLab
   ``glpat-…``, Hugging Face ``hf_…``, Google OAuth ``ya29.…``, Stripe ``rk_``/``whsec_``,
   Shopify, DigitalOcean, and JSON Web Tokens (``eyJ….eyJ….…``).
4. **Credentials in URLs**: ``scheme://user:password@host`` keeps the scheme and host
   (``https://[REDACTED]@host``), for every scheme.
5. **Bearer/Basic credentials**: ``Bearer <token>`` keeps the scheme word.
6. **Key/value pairs and command-line flags whose key names a secret** (`is_secret_key`):
   ``password=hunter2``, ``"api_key": "abc"``, ``x-api-key: abc``, ``Authorization:
   Bearer abc``, YAML ``password: correct horse battery``, query strings
   ``?access_token=abc&…``, quoted or not. The key and separator stay; the value becomes the
   marker (quotes kept). After ``:`` an unquoted value runs to the end of the line (``,``,
   ``;``, braces and quotes end it too); after ``=`` it runs to the next blank. Numbers under
   token-like keys are kept (``max_tokens=4096``), numbers under password-like keys are not.
   Flags: ``--password hunter2``, ``--token=abc``, ``--api-key abc``; the flag stays, the
   value (one word) becomes the marker.
7. **High-entropy strings under innocent keys** (optional, on by default): a run of 20 or more
   characters of ``[A-Za-z0-9+/_-]`` (plus ``=`` padding) that mixes upper case, lower case and
   digits (digits may be missing from runs of 28 or more), has a Shannon entropy of at least 3.5
   bits per character and is not made of words (less than 60 % of it in runs of 3+ letters).
   Identifiers, paths, hex digests, UUIDs and version strings stay; random base62 tokens of 20
   characters are caught 92 times in 100, of 32 or more characters 98 times in 100.

The passes repeat until the text no longer changes (at most `_MAX_ROUNDS` rounds; one for clean
text, two when something was redacted), so `sanitize(sanitize(x)) == sanitize(x)`.

What is not redacted: secrets without a recognisable shape or key (a bare lower-case password in
prose, a hex API key under an innocent key, base32 TOTP seeds), and secrets split across two
calls. `sanitize_map` (and so the trace recorder) also redacts every value whose key names a
secret, and redacts keys.

Speed: each pattern is compiled once, on first use. Patterns that start with a literal run as they
are (the regex engine jumps to the literal). The others are anchored: the case-insensitive Go
patterns and the key/value pass are matched only where one of their key words occurs (found
with `str.find`), URL credentials only after ``://``, and the known-token and discord passes
run only when their prefixes occur. On ASCII text the anchored passes give exactly what
`re.sub` gives (a property test checks it). Every pattern runs in linear time per match attempt
(possessive quantifiers, bounded repetition), so hostile input cannot make it backtrack
exponentially. A 2 KB tool output takes about 0.1 ms clean, 0.2 ms with secrets
(bench/RESULTS.md).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Protocol, cast, overload, runtime_checkable

from crs import _core
from crs._check import brief, items_of
from crs._errors import InvalidArgumentError, SanitizationError

_PATTERN_ATTRS: Final = (
    "match", "fullmatch", "search", "sub", "subn", "finditer", "findall", "split", "scanner",
    "pattern", "flags", "groups", "groupindex",
)  # fmt: skip


class _LazyPattern:
    """A regex compiled on first use, then as fast as the compiled one (its methods are bound
    into the instance). Start-up: compiling every pattern cost ~10 ms a process, and most
    processes (a hook) sanitise no text that could hold a secret."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # called only until the pattern is compiled
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for attr in _PATTERN_ATTRS:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


def _lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


REDACTED: Final = "[REDACTED]"
"""The marker that replaces every redacted secret."""

_MAX_ROUNDS: Final = 4
_MAX_DEPTH: Final = 64

# ---------------------------------------------------------------- the Go package's 21 patterns

REFERENCE_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    ("aws_access_key", r"(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}"),
    (
        "aws_secret_key",
        r"(?i)(?:aws)?[_-]?secret[_-]?(?:access)?[_-]?key\s*[=:]\s*[\"']?([a-zA-Z0-9/+=]{40})[\"']?",
    ),
    ("gcp_api_key", r"AIza[0-9A-Za-z_-]{35}"),
    ("github_token", r"(?:ghp|gho|ghu|ghs|ghr)_[a-zA-Z0-9]{36,}"),
    ("github_pat", r"github_pat_[a-zA-Z0-9]{22}_[a-zA-Z0-9]{59}"),
    ("slack_token", r"xox[baprs]-[0-9a-zA-Z-]{10,}"),
    ("slack_webhook", r"https://hooks\.slack\.com/services/T[0-9A-Z]+/B[0-9A-Z]+/[a-zA-Z0-9]+"),
    ("stripe_key", r"(?:sk|pk)_(?:live|test)_[0-9a-zA-Z]{24,}"),
    ("private_key", r"-----BEGIN (?:RSA |DSA |EC |OPENSSH )?PRIVATE KEY-----"),
    ("private_key_pkcs8", r"-----BEGIN PRIVATE KEY-----"),
    ("api_key", r"(?i)(?:api[_-]?key|apikey)\s*[=:]\s*[\"']?([a-zA-Z0-9_\-]{20,})[\"']?"),
    ("password", r"(?i)(?:password|passwd|pwd)\s*[=:]\s*[\"']([^\"']{8,})[\"']"),
    ("database_url", r"(?i)(?:postgres|mysql|mongodb|redis)://[^:]+:[^@]+@[^\s\"']+"),
    (
        "jwt_secret",
        r"(?i)(?:jwt[_-]?secret|signing[_-]?key)\s*[=:]\s*[\"']?([a-zA-Z0-9_\-]{20,})[\"']?",
    ),
    (
        "generic_secret",
        r"(?i)(?:secret|token|credential)\s*[=:]\s*[\"']([a-zA-Z0-9_\-]{20,})[\"']",
    ),
    ("sendgrid_key", r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}"),
    ("twilio_key", r"SK[a-f0-9]{32}"),
    ("npm_token", r"npm_[a-zA-Z0-9]{36}"),
    ("pypi_token", r"pypi-AgEIcHlwaS5vcmc[a-zA-Z0-9_-]+"),
    ("discord_token", r"[MN][A-Za-z\d]{23,}\.[\w-]{6}\.[\w-]{27}"),
    (
        "heroku_key",
        r"(?i)heroku[_-]?(?:api)?[_-]?key\s*[=:]\s*[\"']?"
        r"([a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})[\"']?",
    ),
)
"""The Go package's patterns as (name, regex), in the order it applies them (study §5.1)."""

# Patterns that start with a literal are cheap to run as they are (the regex engine skips to
# the literal). The case-insensitive ones start with one of a few words: they are matched only
# where such a word occurs (`_WordPass`), at these offsets from it (aws_secret_key may start
# at "aws_", "aws", "_" or "secret"). The discord pattern runs only when its tail occurs: its
# own leading `[MN][A-Za-z\d]{23,}` would rescan every long word that holds an M or N.
_REFERENCE_ANCHORS: Final[dict[str, tuple[tuple[str, ...], tuple[int, ...]]]] = {
    "aws_secret_key": (("secret",), (-4, -3, -1, 0)),
    "api_key": (("api",), (0,)),
    "password": (("password", "passwd", "pwd"), (0,)),
    "database_url": (("postgres", "mysql", "mongodb", "redis"), (0,)),
    "jwt_secret": (("jwt", "signing"), (0,)),
    "generic_secret": (("secret", "token", "credential"), (0,)),
    "heroku_key": (("heroku",), (0,)),
}
_REFERENCE_HINTS: Final = {"stripe_key": ("_live_", "_test_")}
# Where a Go pattern's unbounded scan could make Python's backtracking engine take quadratic
# time (many "postgres://" without a valid "@" after them), we run a bounded variant: the
# user and password parts are limited to 512 characters each. Nothing else changes.
_LINEAR_VARIANTS: Final = {
    "database_url": r"(?i)(?:postgres|mysql|mongodb|redis)://[^:]{1,512}+:[^@]{1,512}+@[^\s\"']+",
}
# Positions of a "." that starts the tail of a discord token (lookahead: overlapping tails too).
_DISCORD_TAIL: Final = _lazy(r"(?=\.[\w-]{6}\.[\w-]{27})", re.ASCII)
_DISCORD_HEAD: Final = _lazy(r"[MN]")
_ALNUM: Final = frozenset(string.ascii_letters + string.digits)

# ---------------------------------------------------------------- what names a secret

# A key names a secret when one of its words (split at punctuation and camelCase) is one of
# these, or its letters joined contain one of the compounds, unless a word says the value is
# only *about* the secret (`token_count`, `password_policy`, `max_tokens`).
_SECRET_WORDS: Final = frozenset(
    {
        "password", "passwd", "passphrase", "pwd", "pass", "secret", "secrets", "token",
        "credential", "credentials", "creds", "authorization", "auth", "apikey", "cookie",
        "privatekey", "signature", "sig",
    }
)  # fmt: skip
_SECRET_COMPOUNDS: Final = (
    "apikey", "accesskey", "secretkey", "privatekey", "clientsecret", "accesstoken",
    "refreshtoken", "authtoken", "sessiontoken", "idtoken", "bearertoken", "signingkey",
    "encryptionkey", "masterkey", "sessionkey", "connectionstring", "passphrase",
    "accountkey", "sharedaccesskey", "password", "passwd",  # PGPASSWORD, DBPASSWD
)  # fmt: skip
_ABOUT_WORDS: Final = frozenset(
    {
        "count", "counts", "limit", "limits", "max", "min", "size", "length", "len", "used",
        "usage", "type", "types", "expiry", "expires", "expiration", "ttl", "budget",
        "remaining", "total", "num", "estimate", "estimated", "policy", "rotation", "required",
        "enabled", "strength", "file", "path", "env", "var", "name", "url", "uri", "endpoint",
    }
)  # fmt: skip
_WORD_SPLIT: Final = _lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORD_WORDS: Final = frozenset({"password", "passwd", "passphrase", "pwd", "pass"})
# Every secret word and compound above holds one of these (a test checks it): the key/value
# pass looks for keys only around them.
_KEY_WORDS: Final = (
    "pass", "pwd", "secret", "token", "cred", "auth", "key", "cookie", "sig", "connection",
)  # fmt: skip
_KEY_WORD: Final = _lazy("|".join(_KEY_WORDS), re.IGNORECASE | re.ASCII)
_KEY_CHARS: Final = frozenset(string.ascii_letters + string.digits + "_.-")


def _key_words(key: str) -> list[str]:
    return [w.lower() for w in _WORD_SPLIT.findall(key)]


def is_secret_key(key: str) -> bool:
    """Whether a key (metadata key, JSON field, header or flag name) names a secret.

    >>> is_secret_key("x-api-key"), is_secret_key("Authorization"), is_secret_key("max_tokens")
    (True, True, False)
    """
    if not isinstance(key, str):
        raise InvalidArgumentError(f"key: must be a str, got {brief(key)}")
    words = _key_words(key)
    if not words or _ABOUT_WORDS.intersection(words):
        return False
    if _SECRET_WORDS.intersection(words):
        return True
    joined = "".join(words)
    return any(c in joined for c in _SECRET_COMPOUNDS)


def _is_password_key(key: str) -> bool:
    lowered = key.lower()
    return bool(_PASSWORD_WORDS.intersection(_key_words(key))) or any(
        w in lowered for w in ("passphrase", "password", "passwd")
    )


# ---------------------------------------------------------------- the passes


_Gate = Callable[[str, str], bool]
"""A cheap pre-check of (text, lower-cased text): False means the pass cannot match."""


def _any_in_lowered(hints: tuple[str, ...]) -> _Gate:
    return lambda text, lowered: any(h in lowered for h in hints)


def _any_in_text(hints: tuple[str, ...]) -> _Gate:
    return lambda text, lowered: any(h in text for h in hints)


def _find_all(haystack: str, needles: Iterable[str]) -> list[int]:
    """Every start position of every needle in haystack, sorted, without duplicates."""
    found: set[int] = set()
    for needle in needles:
        at = haystack.find(needle)
        while at >= 0:
            found.add(at)
            at = haystack.find(needle, at + 1)
    return sorted(found)


def _splice(
    text: str,
    starts: Iterable[int],
    replace_at: Callable[[int, int], tuple[int, str, int] | None],
) -> str:
    """Replace matches left to right, without overlap, trying each start position in order.

    `replace_at(start, done)` returns (match start, replacement, match end) or None; `done`
    is the end of the last replacement, before which nothing may be replaced again.
    """
    parts: list[str] = []
    done = 0
    for start in starts:
        if start < done:
            continue
        hit = replace_at(start, done)
        if hit is not None:
            begin, new, end = hit
            parts += (text[done:begin], new)
            done = end
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)


class _Pass:
    """One regex and its replacement (`re.sub`), skipped when its gate says it cannot match."""

    __slots__ = ("gate", "name", "regex", "repl")

    def __init__(
        self,
        name: str,
        regex: re.Pattern[str],
        repl: str | Callable[[re.Match[str]], str] = REDACTED,
        gate: _Gate | None = None,
    ) -> None:
        self.name = name
        self.regex = regex
        self.repl = repl
        self.gate = gate

    def apply(self, text: str, lowered: str) -> str:
        if self.gate is not None and not self.gate(text, lowered):
            return text
        return self.regex.sub(self.repl, text)


class _WordPass(_Pass):
    """A pass whose matches can only start at given offsets from given lower-case words.

    For ASCII text (where lower-casing keeps positions) the pattern is matched only there,
    left to right without overlap, which is exactly what `re.sub` would do but skips the scan
    of every position; other text falls back to a gated `re.sub`.
    """

    __slots__ = ("offsets", "words")

    def __init__(
        self, name: str, regex: re.Pattern[str], words: tuple[str, ...], offsets: tuple[int, ...]
    ) -> None:
        super().__init__(name, regex, REDACTED, _any_in_lowered(words))
        self.words = words
        self.offsets = offsets

    def apply(self, text: str, lowered: str) -> str:
        if not text.isascii():
            return super().apply(text, lowered)
        hits = _find_all(lowered, self.words)
        if not hits:
            return text
        starts = sorted({h + o for h in hits for o in self.offsets if h + o >= 0})
        match = self.regex.match

        def replace_at(start: int, done: int) -> tuple[int, str, int] | None:
            m = match(text, start)
            return None if m is None else (start, REDACTED, m.end())

        return _splice(text, starts, replace_at)


class _KeyPass(_Pass):
    """Key/value pairs and command-line flags, found around the words secret keys hold.

    For each such word (`_KEY_WORDS`) the key around it is found (the run of key characters it
    stands in): a run starting with ``-`` is tried as a flag (`_FLAG`), any other as a pair
    (`_PAIR`). A match whose key names no secret is left alone and the search goes on after the
    word, so a pair inside an innocent pair's value is still found (``url: https://x token:
    abc``). Scanning only around key words keeps clean text cheap.
    """

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("secret_pair_or_flag", _PAIR)

    def apply(self, text: str, lowered: str) -> str:
        if text.isascii():
            words = _find_all(lowered, _KEY_WORDS)
        else:
            words = [w.start() for w in _KEY_WORD.finditer(text)]
        # The key around a word starts after the last non-key character before it. Words come
        # in increasing order, so remember how far the text was checked (`seen`) and where the
        # current run of key characters starts: each character is looked at once, not once per
        # word (a run like "secretsecret…" would otherwise cost quadratic time).
        tried = seen = run = -1

        def replace_at(word: int, done: int) -> tuple[int, str, int] | None:
            nonlocal tried, seen, run
            at = word
            while at > max(seen, done) and text[at - 1] in _KEY_CHARS:
                at -= 1
            if at <= seen and run >= 0:
                at = run
            run, seen = at, word
            start = max(at, done)
            if start == tried:
                return None
            tried = start
            m = (_FLAG if text[start] == "-" else _PAIR).match(text, start)
            new = None if m is None else _redact_pair(m)
            return None if m is None or new is None else (start, new, m.end())

        return _splice(text, words, replace_at)


class _DiscordPass(_Pass):
    """Go's discord pattern, in linear time.

    `[MN][A-Za-z\\d]{23,}\\.` rescans the rest of an alphanumeric run from every M or N in it;
    a long run of them costs quadratic time in `re`. A match always ends its run at a "." that
    starts a valid tail, so for each such "." (found once, with a lookahead) the leftmost M or N
    of the run at least 23 characters before it is where `re.sub` would match; we match there.
    """

    __slots__ = ()

    def apply(self, text: str, lowered: str) -> str:
        dots = [m.start() for m in _DISCORD_TAIL.finditer(text)]
        if not dots:
            return text
        match = self.regex.match
        run_end = run_start = -1

        def replace_at(dot: int, done: int) -> tuple[int, str, int] | None:
            nonlocal run_end, run_start
            if dot != run_end:
                run_start = dot
                while run_start > done and text[run_start - 1] in _ALNUM:
                    run_start -= 1
                run_end = dot
            head = _DISCORD_HEAD.search(text, max(run_start, done), dot - 23)
            if head is None or (m := match(text, head.start())) is None:
                return None
            return head.start(), REDACTED, m.end()

        return _splice(text, dots, replace_at)


class _AnchoredPass(_Pass):
    """A pass anchored on a literal (``://``): the pattern is matched right after each one."""

    __slots__ = ("anchor",)

    def __init__(self, name: str, regex: re.Pattern[str], repl: str, anchor: str) -> None:
        super().__init__(name, regex, repl)
        self.anchor = anchor

    def apply(self, text: str, lowered: str) -> str:
        size = len(self.anchor)
        repl = self.repl

        def replace_at(start: int, done: int) -> tuple[int, str, int] | None:
            m = self.regex.match(text, start)
            if m is None:
                return None
            return start, repl if isinstance(repl, str) else repl(m), m.end()

        return _splice(text, [at + size for at in _find_all(text, (self.anchor,))], replace_at)


_ESCAPED_QUOTED: Final = _lazy(r'(\\+")([^"\\]*)(\\+")?', re.ASCII)


def _quoted_or_bare(value: str) -> tuple[str, str, str]:
    """Split a matched value into (opening quote, inner text, closing quote); a quote may be
    escaped (``\\"``, JSON inside a JSON string)."""
    if value[:1] == "\\":
        m = _ESCAPED_QUOTED.fullmatch(value)
        if m is not None:
            return m.group(1), m.group(2), m.group(3) or ""
    if value[:1] in ("'", '"'):
        q = value[0]
        inner = value[1:]
        if inner.endswith(q):
            return q, inner[:-1], q
        return q, inner, ""
    return "", value, ""


_NUMBER: Final = _lazy(r"[+-]?\d+(?:\.\d+)?")
_LITERALS: Final = frozenset({"true", "false", "null", "none"})
_PATH: Final = _lazy(r"(?:/|~/|\$HOME/|[A-Za-z]:\\)", re.ASCII)


def _is_working_dir(key: str, value: object) -> bool:
    """`PWD=/home/user/project`: the shell's working directory, not a password."""
    return key.lower() == "pwd" and isinstance(value, str) and _PATH.match(value) is not None


def _redact_pair(m: re.Match[str]) -> str | None:
    """The replacement of a key/value match, or None when its key names no secret."""
    key = m.group("key")
    if not is_secret_key(key):
        return None
    open_q, inner, close_q = _quoted_or_bare(m.group("value"))
    stripped = inner.rstrip()
    if not stripped or stripped == REDACTED:
        return m.group(0)
    if _NUMBER.fullmatch(stripped) and not _is_password_key(key):
        return m.group(0)
    if stripped.lower() in _LITERALS:  # `pwd_changed: true`: a flag, not a secret
        return m.group(0)
    if _is_working_dir(key, stripped):
        return m.group(0)
    head = m.string[m.start() : m.start("value")]
    return f"{head}{open_q}{REDACTED}{close_q or inner[len(stripped) :]}"


_PEM_LABEL: Final = r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END: Final = r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"

# Value of a key/value pair: a list up to its `]`, a quoted string (closing quote optional:
# output may be truncated), else after `=` one word, after `:` the rest of the line up to
# , ; braces or quotes.
_PAIR_VALUE: Final = (
    r"(?P<value>\[[^\]\r\n]{0,512}+\]?"  # a list: every item (`"token": ["a", "b"]`)
    r"|\\++\"[^\"\\\r\n]{0,512}+(?:\\++\")?"
    r"|\"(?:[^\"\\\r\n]|\\.){0,512}+\"?|'(?:[^'\\\r\n]|\\.){0,512}+'?"
    r"|(?(eq)[^\s\"'&,;<>(){}]{1,512}+|[^\r\n\"'<>,;{}]{1,512}+))"
)
_PAIR: Final = _lazy(
    r"(?<![\w.-])(?P<key>[A-Za-z_][\w.-]{0,63}+)(?:\\*+[\"'])?[ \t]*(?:(?P<eq>=)|:)[ \t]*"
    r"(?:(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|[Dd]igest)[ \t]+)?" + _PAIR_VALUE,
    re.ASCII,
)
_FLAG: Final = _lazy(
    r"(?<![\w-])(?P<key>--?[A-Za-z][\w-]{0,63}+)(?:(?P<eq>=)|[ \t]+(?!-))"
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*+\"?|'(?:[^'\\\r\n]|\\.)*+'?|[^\s\"']++)",
    re.ASCII,
)

_KNOWN_TOKENS: Final = _lazy(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+"
    r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}+"
    r"|github_pat_[A-Za-z0-9_]{20,}+"
    r"|xox[a-z]-[A-Za-z0-9-]{10,}+"
    r"|xapp-\d-[A-Za-z0-9-]{10,}+"
    r"|glpat-[A-Za-z0-9_-]{20,}+"
    r"|hf_[A-Za-z0-9]{30,}+"
    r"|ya29\.[A-Za-z0-9_-]{20,}+"
    r"|(?:rk|sk|pk)_(?:live|test)_[A-Za-z0-9]{16,}+"
    r"|whsec_[A-Za-z0-9]{20,}+"
    r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    r"|dop_v1_[a-f0-9]{64}"
    r"|eyJ[A-Za-z0-9_-]{5,}+\.eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]*+"
    r"|key-[0-9a-f]{32}(?![A-Za-z0-9])"
    r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"
    r"|dapi[0-9a-f]{32}(?:-\d)?"
    r"|lin_api_[A-Za-z0-9]{40}"
    r"|NRAK-[A-Z0-9]{27}"
    r"|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"
    r"|rubygems_[0-9a-f]{48}"
    r"|do[opr]_v1_[a-f0-9]{64}"
    r"|[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])"
    r")",
    re.ASCII,
)
_KNOWN_TOKEN_PREFIXES: Final = (
    "sk-", "gh", "xox", "xapp-", "glpat-", "hf_", "ya29.", "k_live_", "k_test_", "whsec_",
    "shp", "_v1_", "eyJ", "key-", "AGE-SECRET-KEY-1", "dapi", "lin_api_", "NRAK-", "dt0c01.",
    "rubygems_", "-us",
)  # fmt: skip

# Matched right after each "://": the user-info part, then "@".
_URL_CREDENTIALS: Final = _lazy(r"[^\s:/?#@\"'<>\[\]]*+:[^\s/?#@\"'<>]*+@", re.ASCII)
# A key alone in a URL's user part (Sentry DSNs: https://<32 hex>@o1.ingest.sentry.io/2).
_URL_KEY: Final = _lazy(r"[0-9a-f]{32,}+@", re.ASCII)
# Passwords given on command lines and in netrc files: the command and flag stay.
_CLI_PASSWORD: Final = _lazy(
    r"(?P<head>\b(?:machine|login|default)\b[^\r\n]{0,200}?\bpassword[ \t]++"
    r"|\bsshpass(?:[ \t]++-[A-Za-oq-z]\S*+)*+[ \t]++-p[ \t]*+"
    r"|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\r\n|;&]{0,200}?[ \t]-p(?=[^\s\"'-]))"
    r"(?!\[REDACTED\])[^\s\"']++",
    re.ASCII,
)
_BEARER: Final = _lazy(
    r"\b(?P<scheme>(?i:bearer|basic)[ \t]+)(?!\[REDACTED\])[A-Za-z0-9._~+/-]{8,}+=*", re.ASCII
)

_ENTROPY_CANDIDATE: Final = _lazy(
    r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{20,}+={0,2}(?![A-Za-z0-9+/_=-])", re.ASCII
)
_WORDS: Final = _lazy(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}", re.ASCII)


def _shannon_entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def looks_random(token: str) -> bool:
    """The high-entropy test of pass 8, for one run of token characters.

    >>> looks_random("Zt8qL2vX9mKp4RwQ7nYb"), looks_random("TraceStepToStepRecord")
    (True, False)
    """
    body = token.rstrip("=")
    n = len(body)
    if n < 20:
        return False
    has_lower = has_upper = has_digit = False
    for ch in body:
        if ch.islower():
            has_lower = True
        elif ch.isupper():
            has_upper = True
        elif ch.isdigit():
            has_digit = True
    if not (has_lower and has_upper and (has_digit or n >= 28)):
        return False
    if sum(len(w) for w in _WORDS.findall(body)) >= 0.6 * n:
        return False
    return _shannon_entropy(body) >= 3.5


def _redact_random(m: re.Match[str]) -> str:
    return REDACTED if looks_random(m.group(0)) else m.group(0)


def _build_passes(detect_high_entropy: bool, extra: Iterable[re.Pattern[str]]) -> list[_Pass]:
    # The body may not run into another BEGIN line: with it, a text of many headers and no END
    # would make each header scan to the end (quadratic time).
    # Line breaks may be escaped (`\\n`: a key inside JSON or a repr, as the guard's previews
    # and error texts hold it).
    body = r"(?:[A-Za-z0-9+/=\s:,.]++|\\++[nrt]|-(?!----BEGIN))*?"
    pem = _PEM_LABEL + r"(?:" + body + _PEM_END + r"|(?:[A-Za-z0-9+/=\s]++|\\++[nrt])*+)"
    passes = [_Pass("private_key_block", _lazy(pem, re.ASCII))]
    for name, pattern in REFERENCE_PATTERNS:
        regex = _lazy(_LINEAR_VARIANTS.get(name, pattern), re.ASCII)
        if name in _REFERENCE_ANCHORS:
            passes.append(_WordPass(name, regex, *_REFERENCE_ANCHORS[name]))
        elif name == "discord_token":
            passes.append(_DiscordPass(name, regex))
        else:
            hints = _REFERENCE_HINTS.get(name)
            passes.append(_Pass(name, regex, gate=_any_in_lowered(hints) if hints else None))
    passes += [
        _Pass("known_token", _KNOWN_TOKENS, gate=_any_in_text(_KNOWN_TOKEN_PREFIXES)),
        _AnchoredPass("url_credentials", _URL_CREDENTIALS, REDACTED + "@", "://"),
        _AnchoredPass("url_key", _URL_KEY, REDACTED + "@", "://"),
        _Pass(
            "cli_password",
            _CLI_PASSWORD,
            r"\g<head>" + REDACTED,
            _any_in_lowered(("password", "sshpass", "mysql", "mariadb")),
        ),
        _Pass("bearer", _BEARER, r"\g<scheme>" + REDACTED, _any_in_lowered(("bearer", "basic"))),
        _KeyPass(),
    ]
    passes += [_Pass(f"extra_{i}", rx) for i, rx in enumerate(extra)]
    if detect_high_entropy:
        passes.append(_Pass("high_entropy", _ENTROPY_CANDIDATE, _redact_random))
    return passes


# Every built-in pass but the high-entropy one needs one of these to match (a superset: each
# pass's gate hints, anchors and literal prefixes; a property test checks the claim). Text
# that holds none (most reasoning and tool output) skips straight to the high-entropy pass.
_TRIGGERS: Final = (
    "A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA", "AIza", "ghp_",
    "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "xapp-", "_live_", "_test_",
    "-----BEGIN", "SG.", "SK", "npm_", "pypi-", "sk-", "glpat-", "hf_", "ya29.", "whsec_",
    "shp", "_v1_", "eyJ", "AGE-SECRET", "dapi", "lin_api_", "NRAK-", "dt0c01.", "rubygems_",
    "-us", "://",
)  # fmt: skip
_TRIGGERS_LOWER: Final = (
    "secret", "api", "pass", "pwd", "postgres", "mysql", "mongodb", "redis", "jwt", "signing",
    "token", "cred", "heroku", "bearer", "basic", "auth", "key", "cookie", "sig", "connection",
    "mariadb",
)  # fmt: skip


def _triggered(text: str) -> bool:
    """False when no built-in pass but the high-entropy one can match `text`.

    A superset of every pass's gate hints, anchors and literal prefixes (a property test
    checks the claim); the discord pattern needs its tail (``.xxxxxx.``). `str` membership
    tests are several times faster than one regex alternation of the same words.
    """
    if text.isascii():
        if _GATE.found(text):
            return True
    elif any(t in text for t in _TRIGGERS):
        return True
    else:  # (`str.lower` maps some other characters onto ASCII letters: K -> k)
        lowered = text.lower()
        if any(t in lowered for t in _TRIGGERS_LOWER):
            return True
    return text.count(".") >= 2 and _DISCORD_TAIL.search(text) is not None


# The same check in one pass over ASCII text (Aho-Corasick in the Rust core): 40-60
# membership scans cost 3-25 us a string, most of it Python's loop.
_GATE: Final = _core.Triggers(list(_TRIGGERS), list(_TRIGGERS_LOWER))


# `QUIET.quiet(text)`: True when no built-in pass can change ASCII `text` (it is short
# without any of ``=:-.@/``, or it holds no trigger, fewer than two dots and no run of 20
# token characters, the high-entropy pass's candidates): `_cannot_hold_secret` or not
# `_triggered` without an entropy candidate, in one pass (a property test checks it against
# the full sanitizer). `QUIET.view(text, limit)`: the guard's whitespace-squashed, cut
# preview of a quiet text, or None.
QUIET: Final = _core.QuietGate(list(_TRIGGERS), list(_TRIGGERS_LOWER))
_quiet = QUIET.quiet


def _cannot_hold_secret(text: str) -> bool:
    """True for short text that no built-in pass can change (most trace fields: "Grep").

    Every built-in pattern needs one of ``=:-.@/`` or at least 13 characters ("Bearer " plus 8
    is the shortest without them); a property test checks the claim against the passes.
    """
    return len(text) < 13 and not any(c in text for c in "=:-.@/")


# ---------------------------------------------------------------- public API


@runtime_checkable
class Sanitizer(Protocol):
    """Anything that redacts secrets from text before it is recorded.

    Implementations must be safe to call from several threads, must return a `str`, and should
    be idempotent. A sanitizer that raises makes the recorder refuse the step (fail-closed).
    """

    def sanitize(self, text: str) -> str:
        """Return `text` with every secret replaced by a marker such as `REDACTED`."""
        ...


class SecretSanitizer:
    """Redacts API keys, tokens, passwords, private keys and credentials (see the module doc).

    Args:
        extra_patterns: more regexes (strings or compiled) whose whole matches are redacted;
            they run after the built-in key/value passes.
        detect_high_entropy: also redact random-looking tokens under innocent keys (pass 8).

    Safe for concurrent use: it holds only compiled patterns.

    >>> s = SecretSanitizer()
    >>> s.sanitize("curl -H 'Authorization: Bearer abc.def.ghi' --password hunter2")
    "curl -H 'Authorization: Bearer [REDACTED]' --password [REDACTED]"
    >>> s.sanitize_map({"api_key": "k", "note": "key AKIAIOSFODNN7EXAMPLE"})
    {'api_key': '[REDACTED]', 'note': 'key [REDACTED]'}
    """

    __slots__ = ("_entropy", "_passes", "_short_cut")

    def __init__(
        self,
        *,
        extra_patterns: Iterable[str | re.Pattern[str]] = (),
        detect_high_entropy: bool = True,
    ) -> None:
        if not isinstance(detect_high_entropy, bool):
            raise InvalidArgumentError(
                f"detect_high_entropy: must be a bool, got {brief(detect_high_entropy)}"
            )
        if isinstance(extra_patterns, str | bytes | re.Pattern):
            raise InvalidArgumentError(
                "extra_patterns: must be a list of regexes (strings or re.Pattern), not one "
                f"{type(extra_patterns).__name__}: wrap it, [{brief(extra_patterns)}]"
            )
        compiled: list[re.Pattern[str]] = []
        for i, p in enumerate(items_of(extra_patterns, "extra_patterns")):
            if isinstance(p, re.Pattern):
                compiled.append(p)
                continue
            if not isinstance(p, str) or not p:
                raise InvalidArgumentError(
                    f"extra_patterns[{i}]: must be a non-empty regex string or re.Pattern"
                )
            try:
                compiled.append(re.compile(p))
            except re.error as exc:
                raise InvalidArgumentError(f"extra_patterns[{i}]: invalid regex: {exc}") from None
        self._passes = _build_passes(bool(detect_high_entropy), compiled)
        self._short_cut = not compiled
        self._entropy = self._passes[-1] if detect_high_entropy else None

    def __repr__(self) -> str:
        return f"<SecretSanitizer passes={len(self._passes)}>"

    @property
    def pass_names(self) -> tuple[str, ...]:
        """Names of the passes in the order they run."""
        return tuple(p.name for p in self._passes)

    def sanitize(self, text: str) -> str:
        """Return `text` with every detected secret replaced by ``[REDACTED]``.

        Raises:
            InvalidArgumentError: `text` is not a `str`.
        """
        if not isinstance(text, str):
            raise InvalidArgumentError(f"text: must be a str, got {type(text).__name__}")
        if not text:
            return text
        if self._short_cut:
            if text.isascii():
                if _quiet(text):  # (one Rust pass: no pass can change it)
                    return text
            elif _cannot_hold_secret(text):
                return text
        if self._short_cut and not _triggered(text):
            # No built-in pass but the high-entropy one can match; its marker holds no trigger.
            return text if self._entropy is None else self._entropy.apply(text, "")
        for _ in range(_MAX_ROUNDS):
            out = self._round(text)
            if out == text:
                break
            text = out
        return text

    def _round(self, text: str) -> str:
        lowered = text.lower()
        for p in self._passes:
            new = p.apply(text, lowered)
            if new is not text and new != text:
                text = new
                lowered = text.lower()
        return text

    @overload
    def sanitize_map(self, m: None) -> None: ...
    @overload
    def sanitize_map(self, m: Mapping[str, Any]) -> dict[str, Any]: ...
    def sanitize_map(self, m: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """Return a new dict with keys and values sanitised, nested containers included.

        Strings are sanitised; under a key that names a secret (`is_secret_key`: ``api_key``,
        ``Authorization``, ``x-api-key``, ``password``…) every non-empty string or number is
        replaced by ``[REDACTED]``, however innocent it looks. Keys are kept unchanged.
        Dicts, lists, tuples and sets are walked; `None`, booleans and numbers are kept.
        `None` gives `None`.

        Raises:
            SanitizationError: a value of another type, or nesting deeper than 64 levels
                (e.g. a cycle); the message names the path, never the value.
        """
        if m is None:
            return None
        if not isinstance(m, Mapping):
            raise InvalidArgumentError(f"m: must be a mapping or None, got {type(m).__name__}")
        return self._map(m, False, "m", 0)

    def _map(self, m: Mapping[Any, Any], force: bool, path: str, depth: int) -> dict[Any, Any]:
        if depth > _MAX_DEPTH:
            raise SanitizationError(f"{path}: nested deeper than {_MAX_DEPTH} levels")
        out: dict[Any, Any] = {}
        for key, value in m.items():
            # Keys are kept as they are (the seed: keys name fields, values hold secrets).
            secret = force or (
                isinstance(key, str) and is_secret_key(key) and not _is_working_dir(key, value)
            )
            out[key] = self._value(value, secret, f"{path}[{brief(key)}]", depth + 1)
        return out

    def _value(self, value: Any, force: bool, path: str, depth: int) -> Any:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            if force and value:
                return REDACTED
            return self.sanitize(value)
        if isinstance(value, int | float):
            return REDACTED if force else value
        if isinstance(value, Mapping):
            return self._map(value, force, path, depth)
        if depth > _MAX_DEPTH:
            raise SanitizationError(f"{path}: nested deeper than {_MAX_DEPTH} levels")
        if isinstance(value, list | tuple | set | frozenset):
            items = [self._value(v, force, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
            return type(value)(items) if not isinstance(value, list) else items
        raise SanitizationError(
            f"{path}: cannot sanitise a {type(value).__name__}; "
            "allowed are str, int, float, bool, None, dict, list, tuple and set"
        )


# ---------------------------------------------------------------- the state's boundary

_DEFAULT: SecretSanitizer | None = None


def default_sanitizer() -> SecretSanitizer:
    """The shared `SecretSanitizer()` the state redacts with (`Config.sanitize_secrets`)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = SecretSanitizer()
    return _DEFAULT


_STEP_TEXT: Final = ("reasoning", "error_message", "result_summary", "next_hint", "model")


def redact_step(step: Any, s: SecretSanitizer) -> Any:
    """`step` (a checked `StepRecord`) with secrets redacted from its free text: reasoning,
    error message, result summary, hint, model, tool parameters (target, query, flags, extra
    values; a value under a secret key such as ``api_key`` entirely) and proof-update reasons.
    Identifiers (session id, tool, node ids) are kept. The same object when nothing changes:
    the fields are joined and sanitised once, so a clean step costs one pass over its text."""
    tp = step.tool_params
    parts = [getattr(step, name) for name in _STEP_TEXT]
    forced = False
    if tp is not None:
        parts += (tp.target, tp.query, *tp.flags)
        for kv in tp.extra:
            parts.append(kv.value)
            forced = forced or (bool(kv.value) and is_secret_key(kv.key))
    parts += [u.reason for u in step.proof_updates]
    joined = "\n".join(p for p in parts if p)
    if not forced and (not joined or s.sanitize(joined) == joined):
        return step
    # inside: start-up (the sanitizer loads without the engine's record modules)
    from dataclasses import replace

    from crs._types import KeyValue

    changes: dict[str, Any] = {name: s.sanitize(getattr(step, name)) for name in _STEP_TEXT}
    if tp is not None:
        extra = tuple(
            KeyValue(
                key=kv.key,
                value=REDACTED if kv.value and is_secret_key(kv.key) else s.sanitize(kv.value),
            )
            for kv in tp.extra
        )
        changes["tool_params"] = replace(
            tp,
            target=s.sanitize(tp.target),
            query=s.sanitize(tp.query),
            flags=tuple(s.sanitize(f) for f in tp.flags),
            extra=extra,
        )
    if step.proof_updates:
        changes["proof_updates"] = tuple(
            replace(u, reason=s.sanitize(u.reason)) for u in step.proof_updates
        )
    return replace(step, **changes)


def redact_metadata(m: Mapping[str, str] | None, s: SecretSanitizer) -> Mapping[str, str] | None:
    """`sanitize_map(m)` (keys kept, values under secret keys redacted), or `m` if clean."""
    if not m:
        return m
    out = s.sanitize_map(m)
    return m if out == m else out


def redact_delta(delta: Any, s: SecretSanitizer) -> Any:
    """`delta` with secrets redacted from its history entries (action, result, metadata),
    composites walked; the same object when nothing changes (source and time are kept)."""
    # inside: start-up (the deltas module is heavy; only redacting a delta needs it)
    from crs._state._deltas import CompositeDelta, HistoryDelta

    if isinstance(delta, HistoryDelta):
        # inside: start-up (the sanitizer loads without the engine's record modules)
        from dataclasses import replace

        entries = []
        for e in delta.entries:
            meta = dict(redact_metadata(e.metadata, s) or {})
            new = replace(
                e,
                action=s.sanitize(e.action) if isinstance(e.action, str) else e.action,
                result=s.sanitize(e.result) if isinstance(e.result, str) else e.result,
                metadata=meta,
            )
            entries.append(e if new == e else new)
        if all(a is b for a, b in zip(entries, delta.entries, strict=True)):
            return delta
        return HistoryDelta(delta.source(), entries, timestamp=delta.timestamp())
    if isinstance(delta, CompositeDelta):
        children = [redact_delta(d, s) for d in delta.deltas]
        if all(a is b for a, b in zip(children, delta.deltas, strict=True)):
            return delta
        return CompositeDelta(*children, source=delta.source(), timestamp=delta.timestamp())
    return delta
