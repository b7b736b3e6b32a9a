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
6. **Key/value pairs whose key names a secret** (`is_secret_key`): ``password=hunter2``,
   ``"api_key": "abc"``, ``x-api-key: abc``, ``Authorization: Bearer abc``, YAML
   ``password: correct horse battery``, query strings ``?access_token=abc&…``, quoted or not.
   The key and separator stay; the value becomes the marker (quotes kept). After ``:`` an unquoted
   value runs to the end of the line (``,``, ``;``, braces and quotes end it too); after ``=`` it
   runs to the next blank. Numbers under token-like keys are kept (``max_tokens=4096``), numbers
   under password-like keys are not.
7. **Command-line flags naming a secret**: ``--password hunter2``, ``--token=abc``,
   ``--api-key abc``. The flag stays; the value (one word) becomes the marker.
8. **High-entropy strings under innocent keys** (optional, on by default): a run of 20 or more
   characters of ``[A-Za-z0-9+/_-]`` (plus ``=`` padding) that mixes upper case, lower case and
   digits (digits may be missing from runs of 28 or more), has a Shannon entropy of at least 3.5
   bits per character and is not made of words (less than 60 % of it in runs of 3+ letters).
   Identifiers, paths, hex digests, UUIDs and version strings stay; random tokens of 20 base62
   characters are caught about 9 times in 10, of 40 characters 19 times in 20.

The passes repeat until the text no longer changes (at most `_MAX_ROUNDS` rounds; one for clean
text, two when something was redacted), so `sanitize(sanitize(x)) == sanitize(x)`.

What is not redacted: secrets without a recognisable shape or key (a bare lower-case password in
prose, a hex API key under an innocent key, base32 TOTP seeds), and secrets split across two
calls. `sanitize_map` (and so the trace recorder) also redacts every value whose key names a
secret, and redacts keys.

All patterns are compiled once at import. Each pass first checks cheap literal hints (``"akia"
in text``) and skips its regex when none occurs, so clean text costs a few substring searches
and one scan per always-on pass. Every pattern was written to run in linear time per match
attempt (possessive quantifiers, bounded repetition, anchored starts), so hostile input cannot
make it backtrack exponentially.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Protocol, overload, runtime_checkable

from crs._errors import InvalidArgumentError, SanitizationError

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

# Lower-case literals, one of which must occur in the lower-cased text for the pattern to match
# at all (a cheap pre-check; `None` = always run). The discord pattern gets a regex gate instead:
# its own leading `[MN][A-Za-z\d]{23,}` would rescan every long word that holds an M or N.
_REFERENCE_HINTS: Final[dict[str, tuple[str, ...] | None]] = {
    "aws_access_key": ("a3t", "akia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "asia"),
    "aws_secret_key": ("secret",),
    "gcp_api_key": ("aiza",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github_pat": ("github_pat_",),
    "slack_token": ("xox",),
    "slack_webhook": ("hooks.slack.com",),
    "stripe_key": ("_live_", "_test_"),
    "private_key": ("-----begin",),
    "private_key_pkcs8": ("-----begin",),
    "api_key": ("api",),
    "password": ("password", "passwd", "pwd"),
    "database_url": ("://",),
    "jwt_secret": ("jwt", "signing"),
    "generic_secret": ("secret", "token", "credential"),
    "sendgrid_key": ("sg.",),
    "twilio_key": ("sk",),
    "npm_token": ("npm_",),
    "pypi_token": ("pypi-",),
    "discord_token": None,
    "heroku_key": ("heroku",),
}
_DISCORD_GATE: Final = re.compile(r"\.[\w-]{6}\.[\w-]{27}", re.ASCII)

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
)  # fmt: skip
_ABOUT_WORDS: Final = frozenset(
    {
        "count", "counts", "limit", "limits", "max", "min", "size", "length", "len", "used",
        "usage", "type", "types", "expiry", "expires", "expiration", "ttl", "budget",
        "remaining", "total", "num", "estimate", "estimated", "policy", "rotation", "required",
        "enabled", "strength", "file", "path", "env", "var", "name", "url", "uri", "endpoint",
    }
)  # fmt: skip
_WORD_SPLIT: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORD_WORDS: Final = frozenset({"password", "passwd", "passphrase", "pwd", "pass"})
# Literals one of which occurs in every key `is_secret_key` accepts: gates the key/value passes.
_KEY_HINTS: Final = ("pass", "pwd", "secret", "token", "cred", "auth", "key", "cookie", "sig")


def _key_words(key: str) -> list[str]:
    return [w.lower() for w in _WORD_SPLIT.findall(key)]


def is_secret_key(key: str) -> bool:
    """Whether a key (metadata key, JSON field, header or flag name) names a secret.

    >>> is_secret_key("x-api-key"), is_secret_key("Authorization"), is_secret_key("max_tokens")
    (True, True, False)
    """
    words = _key_words(key)
    if not words or _ABOUT_WORDS.intersection(words):
        return False
    if _SECRET_WORDS.intersection(words):
        return True
    joined = "".join(words)
    return any(c in joined for c in _SECRET_COMPOUNDS)


def _is_password_key(key: str) -> bool:
    return bool(_PASSWORD_WORDS.intersection(_key_words(key))) or "passphrase" in key.lower()


# ---------------------------------------------------------------- the passes


class _Pass:
    """One regex and its replacement, skipped when none of its literal hints occurs."""

    __slots__ = ("gate", "hints", "name", "regex", "repl")

    def __init__(
        self,
        name: str,
        regex: re.Pattern[str],
        repl: str | Callable[[re.Match[str]], str],
        hints: tuple[str, ...] | None,
        gate: re.Pattern[str] | None = None,
    ) -> None:
        self.name = name
        self.regex = regex
        self.repl = repl
        self.hints = hints
        self.gate = gate

    def apply(self, text: str, lowered: str) -> str:
        if self.hints is not None and not any(h in lowered for h in self.hints):
            return text
        if self.gate is not None and self.gate.search(text) is None:
            return text
        return self.regex.sub(self.repl, text)


class _PairPass(_Pass):
    """A key/value pass: a match whose key names no secret is left alone, and the search goes
    on right after its key, so a pair inside an innocent pair's value is still found
    (``url: https://x token: abc``)."""

    __slots__ = ()

    def apply(self, text: str, lowered: str) -> str:
        if self.hints is not None and not any(h in lowered for h in self.hints):
            return text
        parts: list[str] = []
        done = pos = 0
        while (m := self.regex.search(text, pos)) is not None:
            new = _redact_pair(m)
            if new is None:
                pos = m.end("key")
                continue
            parts += (text[done : m.start()], new)
            done = pos = m.end()
        if not parts:
            return text
        parts.append(text[done:])
        return "".join(parts)


def _quoted_or_bare(value: str) -> tuple[str, str, str]:
    """Split a matched value into (opening quote, inner text, closing quote)."""
    if value[:1] in ("'", '"'):
        q = value[0]
        inner = value[1:]
        if inner.endswith(q):
            return q, inner[:-1], q
        return q, inner, ""
    return "", value, ""


_NUMBER: Final = re.compile(r"[+-]?\d+(?:\.\d+)?")


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
    head = m.string[m.start() : m.start("value")]
    return f"{head}{open_q}{REDACTED}{close_q or inner[len(stripped) :]}"


_PEM_LABEL: Final = r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END: Final = r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"

# Value of a key/value pair: a quoted string (closing quote optional: output may be truncated),
# else after `=` one word, after `:` the rest of the line up to , ; braces or quotes.
_PAIR_VALUE: Final = (
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.){0,512}+\"?|'(?:[^'\\\r\n]|\\.){0,512}+'?"
    r"|(?(eq)[^\s\"'&,;<>(){}]{1,512}+|[^\r\n\"'<>,;{}]{1,512}+))"
)
_PAIR: Final = re.compile(
    r"(?<![\w.-])(?P<key>[A-Za-z_][\w.-]{0,63}+)[\"']?[ \t]*(?:(?P<eq>=)|:)[ \t]*"
    r"(?:(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|[Dd]igest)[ \t]+)?" + _PAIR_VALUE,
    re.ASCII,
)
_FLAG: Final = re.compile(
    r"(?<![\w-])(?P<key>--?[A-Za-z][\w-]{0,63}+)(?:(?P<eq>=)|[ \t]+(?!-))"
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*+\"?|'(?:[^'\\\r\n]|\\.)*+'?|[^\s\"']++)",
    re.ASCII,
)

_KNOWN_TOKENS: Final = re.compile(
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
    r")",
    re.ASCII,
)
_KNOWN_TOKEN_HINTS: Final = (
    "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "xapp-", "glpat-",
    "hf_", "ya29.", "_live_", "_test_", "whsec_", "shp", "dop_v1_", "eyj",
)  # fmt: skip

_URL_CREDENTIALS: Final = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,20}://)[^\s:/?#@\"'<>\[\]]++:[^\s/?#@\"'<>]*+@",
    re.ASCII,
)
_BEARER: Final = re.compile(
    r"\b(?P<scheme>(?i:bearer|basic)[ \t]+)(?!\[REDACTED\])[A-Za-z0-9._~+/-]{8,}+=*", re.ASCII
)

_ENTROPY_CANDIDATE: Final = re.compile(
    r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{20,}+={0,2}(?![A-Za-z0-9+/_=-])", re.ASCII
)
_WORDS: Final = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}", re.ASCII)


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
    passes = [
        _Pass(
            "private_key_block",
            re.compile(
                _PEM_LABEL + r"(?:[A-Za-z0-9+/=\s:,.\-]*?" + _PEM_END + r"|[A-Za-z0-9+/=\s]*+)",
                re.ASCII,
            ),
            REDACTED,
            ("-----begin",),
        )
    ]
    for name, pattern in REFERENCE_PATTERNS:
        passes.append(
            _Pass(
                name,
                re.compile(pattern, re.ASCII),
                REDACTED,
                _REFERENCE_HINTS[name],
                _DISCORD_GATE if name == "discord_token" else None,
            )
        )
    passes += [
        _Pass("known_token", _KNOWN_TOKENS, REDACTED, _KNOWN_TOKEN_HINTS),
        _Pass("url_credentials", _URL_CREDENTIALS, r"\g<scheme>" + REDACTED + "@", ("://",)),
        _Pass("bearer", _BEARER, r"\g<scheme>" + REDACTED, ("bearer", "basic")),
        _PairPass("secret_pair", _PAIR, REDACTED, _KEY_HINTS),
        _PairPass("secret_flag", _FLAG, REDACTED, _KEY_HINTS),
    ]
    passes += [_Pass(f"extra_{i}", rx, REDACTED, None) for i, rx in enumerate(extra)]
    if detect_high_entropy:
        passes.append(_Pass("high_entropy", _ENTROPY_CANDIDATE, _redact_random, None))
    return passes


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

    __slots__ = ("_passes",)

    def __init__(
        self,
        *,
        extra_patterns: Iterable[str | re.Pattern[str]] = (),
        detect_high_entropy: bool = True,
    ) -> None:
        compiled: list[re.Pattern[str]] = []
        for i, p in enumerate(extra_patterns):
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
        replaced by ``[REDACTED]``, however innocent it looks. Keys are sanitised too (a key
        that becomes a duplicate gets a ``#2``, ``#3``… suffix). Dicts, lists, tuples and sets
        are walked; `None`, booleans and numbers are kept. `None` gives `None`.

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
            new_key: Any = key
            if isinstance(key, str):
                new_key = self.sanitize(key)
                n = 2
                while new_key in out:
                    new_key = f"{self.sanitize(key)}#{n}"
                    n += 1
            secret = force or (isinstance(key, str) and is_secret_key(key))
            out[new_key] = self._value(value, secret, f"{path}[{new_key!r}]", depth + 1)
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
