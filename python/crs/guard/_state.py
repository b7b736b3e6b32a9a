"""What the guard knows, as a part of the CRS engine's state (issue 12).

`GuardPart` is created with every `CRS` (see `crs._crs._PARTS`): it registers the guard's
op kinds, so each fact the guard learns is one journaled op record (`guard.step` for a
finished call, `guard.refuse` for a refused one, `guard.msg`, `guard.turn`,
`guard.forget`), and it travels with the rest of the state in checkpoints, backups, restores
and replicas (`export` / `load`). Handlers are deterministic functions of their payload:
every decision (the verdict, the near-duplicate alias, the learned failure) is made before
journaling and put into the payload, so a replay rebuilds exactly what the live guard had,
loop detection included.

Only digests and sanitized text are stored: signatures, result and error digests, error
messages and argument previews after `SecretSanitizer`.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard._lazy import LazyMap, encodable
from crs.guard._turns import MAX_ASKED_REPEATS, MAX_CANNED

if TYPE_CHECKING:
    from crs._crs import CRS

PART_VERSION = 1
TAIL = 64  # pairs kept for cycle detection (>= 2 x the longest period)
RECENT = 256  # step records kept per session for explain() and evidence
ECHO_CALLS = 16  # calls of one turn an answer given again may replay (fresh15)
TEXTS = 64  # free-text arguments kept per session for near-duplicate checks
MAX_KEYS = 20_000  # pairs and signatures remembered per session (oldest dropped first)
MAX_SESSIONS = 500  # sessions kept (oldest dropped first)
MAX_FAILURES = 1_000  # learned failures kept (oldest dropped first)
MAX_TOOLS = 2_000  # tool names counted per session (the least used dropped first)
MAX_RUN_WORDS = 4_096  # word digests kept of a run of agent messages

# step kinds
OK, HARD, TRANSIENT = 0, 1, 2

_ANSWERS = re.compile(
    r"(?i)(^|[_.:/-])(send_message|send_user_message|message_user|reply|reply_to_user|"
    r"respond|respond_to_user|final_answer|attempt_completion|ask_followup_question|"
    r"ask_user|notify_user)$"
)
"""Tools through which an agent answers the user (Letta's `send_message`, smolagents'
`final_answer`, Cline's `attempt_completion`): a user turn after a successful call of one
is a new request, as after an agent message (fresh6)."""
# escalation levels of a session
CALM, NUDGED = 0, 1


def _trim(d: dict[str, Any]) -> None:
    """Keep the newer half of `d` (amortised O(1) eviction; deleting the first key one at
    a time makes each later `next(iter(d))` scan the freed slots). A plain dict has its
    oldest keys deleted in place, read in one pass: no 20,000 item tuples (whose allocation
    alone ran the cyclic GC some 28 times) and no refill, a sixth of the time or less; a
    `LazyMap` is copied and refilled, as before (its `items()` decodes every row)."""
    drop = len(d) - MAX_KEYS // 2
    if type(d) is dict:
        for k in list(itertools.islice(d, drop)):
            del d[k]
        return
    keep = list(d.items())[drop:]
    d.clear()
    d.update(keep)


def _trim_counts(d: dict[str, int]) -> None:
    """Keep the half of `d` with the highest counts (ties: the earlier first), in order."""
    keep = set(sorted(d, key=d.__getitem__, reverse=True)[: MAX_TOOLS // 2])
    kept = [(k, v) for k, v in d.items() if k in keep]
    d.clear()
    d.update(kept)


_STEP_KEYS = frozenset(("s", "n", "t", "g", "r", "k", "ts"))
_FAILURE_KEYS = frozenset(
    ("id", "tool", "signature", "error", "fingerprint", "session_id", "created_at")
)


_REFUSE_KEYS = frozenset(("s", "n", "t", "g", "c", "ts"))
_MSG_KEYS = frozenset(("s", "d"))
_TURN_KEYS = frozenset(("s",))
_FORGET_KEYS = frozenset(("id",))


# The type of each field a record read back must have (the live guard builds them so): a
# record of another type, damaged or written by something else, is refused on replay (a
# `JournalCorruptedError` naming it) instead of failing inside the apply function, which
# made every later open of the project fail with a bare TypeError.
_TYPES: dict[str, type | tuple[type, ...]] = {
    "s": str,
    "n": int,
    "t": str,
    "g": str,
    "r": str,
    "k": int,
    "ts": int,
    "a": str,
    "e": str,
    "x": str,
    "c": str,
    "d": str,
    "pv": str,
    "rv": str,
    "v": (str, int),
    "ev": list,
    "lp": list,
    "fx": list,
    "id": str,
    "tool": str,
    "signature": str,
    "error": str,
    "fingerprint": str,
    "session_id": str,
    "created_at": int,
    "step": int,
    "epoch": int,
    "preview": str,
    "f": int,
    "cr": int,
    "cd": int,
    "cv": str,
    "cs": str,
    "h": str,
    "st": int,
    "rs": int,
}


def _require(p: Any, keys: frozenset[str], what: str) -> None:
    if type(p) is not dict:
        raise InvalidArgumentError(f"payload: a {what} record must be a dict, got {brief(p)}")
    if not keys <= p.keys():
        missing = sorted(keys - p.keys())
        raise InvalidArgumentError(f"payload: a {what} record lacks {missing[0]!r}")
    for key, value in p.items():
        want = _TYPES.get(key)
        if want is not None and not isinstance(value, want):
            raise InvalidArgumentError(
                f"payload: a {what} record's {key!r} must be {_type_names(want)}, "
                f"got {brief(value)}"
            )
    if "k" in p and p["k"] not in (OK, HARD, TRANSIENT):
        raise InvalidArgumentError(f"payload: a {what} record's 'k' is not a kind: {p['k']!r}")
    for key in ("ev", "lp", "fx"):
        items = p.get(key)
        if items is not None and not all(type(i) is (int if key == "ev" else str) for i in items):
            raise InvalidArgumentError(f"payload: a {what} record's {key!r} has a wrong item")


def _type_names(want: type | tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in (want if isinstance(want, tuple) else (want,)))


class SigState:
    """What one signature did in a session."""

    __slots__ = (
        "changes",
        "cluster",
        "dups",
        "epoch",
        "fail_ms",
        "fail_step",
        "hard",
        "inputs",
        "last_err",
        "made",
        "made_res",
        "made_shape",
        "made_view",
        "polls",
        "res",
        "runs",
        "same",
        "scrolls",
        "tool",
        "transient",
        "waits",
    )

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.cluster = ""  # the earlier call this one is a near-duplicate of ("" = itself)
        self.res = ""  # last result (or error) digest
        self.epoch = -1  # epoch of the last run
        self.runs = 0  # completed runs in the session
        self.changes = 0  # runs whose result differed from the run before, same epoch
        self.polls = 0  # runs at the same epoch that brought no new result (its budget)
        self.same = 0  # runs in a row (of this signature) with the same result, same epoch
        self.hard = 0  # hard failures in a row
        self.transient = 0  # transient failures in a row
        self.fail_step = 0
        self.fail_ms = 0
        self.last_err = ""  # sanitized, short
        self.waits = False  # the call waits (sleep, poll, yield time): a poll, not a read
        self.scrolls = False  # the call only scrolls a page (it moves a view, nothing else)
        self.inputs = False  # the call is an input action (a click, a key press, typing)
        # A call that creates a record (`ToolPolicy.creates`): the step of its first success
        # in the current request, that result's digest and a sanitized view of it (argument
        # values left out), and the duplicates since (successes judged so by the live guard)
        self.made = 0
        self.made_res = ""
        self.made_shape = ""  # (the result with its words that carry a digit left out)
        self.made_view = ""
        self.dups = 0

    def export(self) -> list[Any]:
        return [
            self.tool,
            self.res,
            self.epoch,
            self.runs,
            self.changes,
            self.same,
            self.hard,
            self.transient,
            self.fail_step,
            self.fail_ms,
            self.last_err,
            self.polls,
            self.cluster,
            self.waits,
            self.made,
            self.made_res,
            self.made_view,
            self.dups,
            self.made_shape,
            self.scrolls,
            self.inputs,
        ]

    @classmethod
    def from_export(cls, row: list[Any]) -> SigState:
        s = cls(str(row[0]))
        (
            s.res,
            s.epoch,
            s.runs,
            s.changes,
            s.same,
            s.hard,
            s.transient,
            s.fail_step,
            s.fail_ms,
            s.last_err,
        ) = row[1:11]
        s.polls = int(row[11]) if len(row) > 11 else s.runs
        s.cluster = str(row[12]) if len(row) > 12 else ""
        s.waits = bool(row[13]) if len(row) > 13 else False
        if len(row) > 18:  # (an older image has none: nothing was created)
            s.made, s.made_res, s.made_view, s.dups, s.made_shape = (
                int(row[14]),
                str(row[15]),
                str(row[16]),
                int(row[17]),
                str(row[18]),
            )
        s.scrolls = bool(row[19]) if len(row) > 19 else False
        s.inputs = bool(row[20]) if len(row) > 20 else False
        return s


def _pair_row(raw: str) -> list[int]:
    return [int(x) for x in json.loads(raw)]


def _sig_row(raw: str) -> SigState:
    return SigState.from_export(json.loads(raw))


_LAZY_FROM = 256  # maps with fewer entries are exported as plain JSON objects


def _export_map(name: str, m: dict[str, Any], row: Callable[[Any], Any]) -> dict[str, Any]:
    if isinstance(m, LazyMap) or (len(m) >= _LAZY_FROM and encodable(m)):
        if not isinstance(m, LazyMap):
            m = LazyMap(_sig_row if name == "sigs" else _pair_row, m.items())
        return {f"{name}_lazy": m.encode(row)}
    return {name: {k: row(v) for k, v in m.items()}}


def step_taken(s: SessionState, step: int) -> bool:
    """Whether the session has a record at `step` (a finished or refused call), for a step
    at or below its last one: one another writer of the session (a second `Guard.open`,
    another process) stored after this guard reserved it. The recent records tell; a step
    older than all of them, once they are as many as are kept, counts as taken."""
    if step > s.last_step:
        return False
    recent = s.recent
    for r in recent:
        if r[0] == step:
            return True
    return len(recent) == recent.maxlen and all(r[0] > step for r in recent)


class SessionState:
    """One session's history, as the guard's rules read it."""

    __slots__ = (
        "answered",
        "ask",
        "asked",
        "blocks",
        "calls",
        "canned",
        "carry",
        "echo",
        "epoch",
        "last_mut",
        "last_ok_step",
        "last_sents",
        "last_sketch",
        "last_step",
        "level",
        "loop_code",
        "loop_pairs",
        "loop_steps",
        "moved_step",
        "msg_flags",
        "msg_last",
        "msg_restated",
        "msg_run",
        "msg_stale",
        "msg_stale_row",
        "msg_streak",
        "msgs",
        "new_ask",
        "nudges",
        "pairs",
        "recent",
        "reserved",
        "sigs",
        "stale",
        "started",
        "tail",
        "text_res",
        "texts",
        "tool_calls",
        "turn_step",
        "turns",
    )

    def __init__(self) -> None:
        self.last_step = 0
        # the last step handed out (before_call / call_for) in this process, by any Guard of
        # the session; not journaled (a step is recorded with its call)
        self.reserved = 0
        self.calls = 0
        self.tool_calls: dict[str, int] = {}
        self.started = 0  # unix ms of the first call
        self.epoch = 0  # workspace changes seen (successful mutating calls)
        self.last_mut = ""  # pair of the last mutating call that moved the epoch
        self.tail: deque[tuple[int, str, str]] = deque(maxlen=TAIL)  # (step, pair, sig)
        self.pairs: dict[str, list[int]] = {}  # pair -> [count at epoch, epoch, last step]
        self.sigs: dict[str, SigState] = {}
        self.stale = 0  # completed calls in a row that produced nothing new
        self.moved_step = 0  # last call whose result differed from its own last run
        self.last_ok_step = 0  # last successful call
        self.level = CALM
        self.loop_code = ""
        self.loop_pairs: frozenset[str] = frozenset()
        self.loop_steps: tuple[int, ...] = ()
        self.nudges = 0  # nudges in a row without progress
        self.blocks = 0  # refusals in a row
        self.recent: deque[list[Any]] = deque(maxlen=RECENT)
        self.texts: deque[tuple[int, str, str, str, str]] = deque(maxlen=TEXTS)
        # how many entries of `texts` have each result (derived: no near-duplicate
        # candidate for a result none has, found without a scan)
        self.text_res: dict[str, int] = {}
        self.msg_streak = 0  # agent messages since the last call or user turn
        self.msgs: list[str] = []  # their digests (the last 16)
        self.msg_flags = 0  # monologue verdicts in a row
        # the last agent message (any turn): its MinHash sketch and sentence digests
        # (`crs.guard._turns.sketch`; "" and empty: none, or an older record without them)
        self.last_sketch = ""
        self.last_sents: frozenset[str] = frozenset()
        # the current run of agent messages (word digests, `crs.guard._turns.word_digests`):
        # the words it used, its stale messages, restatements in a row; and the last
        # message's words (any run)
        self.msg_run: frozenset[str] = frozenset()
        self.msg_stale = 0
        self.msg_stale_row = 0  # the stale messages at the end of the run, in a row (fresh10)
        self.msg_restated = 0
        self.msg_last: frozenset[str] = frozenset()
        self.turns = 0
        self.turn_step = 0  # last step before the latest user turn
        self.answered = 0  # last step before a user turn that followed an agent's answer
        # The same answer across user turns that ask nothing new (`Guard.new_turn(text)`):
        # [the answer (its messages' digests), turns that gave it in a row, monologue
        # verdicts in a row, whether the current turn may still give it, the calls the
        # answer made ("sig:result" of each, in order; empty: it made none, fresh15)];
        # `ask`: the word digests of the last user text that asked something
        # (`crs.guard._turns`).
        self.echo: list[Any] = [[], 0, 0, False, []]
        self.ask: frozenset[str] = frozenset()
        # One long reply given word for word to new requests (`CANNED_WORDS`): [its digest,
        # user turns in a row it opened the answer of, the turn it last did]; `new_ask`: the
        # current turn's user text asked something new (fresh17, fresh19, fresh21)
        self.canned: list[Any] = ["", 0, 0]
        self.new_ask = False
        # The message the last turn ended on, said at least twice in a row with no call
        # since, and how many times: [its digest, copies] ("", 0: none). Answering the next
        # turn with it again continues the run (fresh23)
        self.carry: list[Any] = ["", 0]
        # runs of one call the latest user turn asked for ("run it 5 times": 5; 0: none;
        # `crs.guard._turns.repeats_asked`): that many in the turn are the task
        self.asked = 0

    # -------------------------------------------------------------- facts

    def free_step(self, n: int) -> int:
        """The step a record reserved at `n` is stored at: `n`, or the next one when another
        writer's record stored before it (in the journal's order) took `n`. Writers that
        share a lock (a LocalJournal) renumbered it before the append already; two on a NATS
        stream (no lock) may both store a step, and every reader renumbers the later one the
        same way, in the stream's order."""
        return self.last_step + 1 if step_taken(self, n) else n

    def apply_step(self, p: dict[str, Any], n: int) -> bool:
        """A finished call (payload of `guard.step`) at step `n` (`free_step`); True if it
        changed the workspace."""
        tool, sig, res, kind = p["t"], p["g"], p["r"], p["k"]
        # (an optional key is looked up with `in` first: most records have none of them)
        cluster = (p["a"] or sig) if "a" in p else sig
        pair = f"{cluster}:{res}"
        if n > self.last_step:
            self.last_step = n
        if not self.calls:
            self.started = p["ts"]
        self.calls += 1
        counts = self.tool_calls
        count = counts.get(tool)
        if count is None:
            counts[tool] = 1
            if len(counts) > MAX_TOOLS:  # made-up tool names: keep the most used ones
                _trim_counts(counts)
        else:
            counts[tool] = count + 1
        if self.msg_streak:
            self.msg_streak = self.msg_flags = 0
            self.msgs = []
        self.blocks = 0
        # `epoch` counts workspace changes; a call is judged against the epoch before it and
        # recorded at the epoch after it (its own change is its effect: running it again
        # with nothing else in between is a repeat).
        epoch = self.epoch
        changed = kind == OK and "m" in p and bool(p["m"]) and pair != self.last_mut
        after = epoch + 1 if changed else epoch
        sigs = self.sigs
        s = sigs.get(sig)
        if s is None:
            s = sigs[sig] = SigState(tool)
            if len(sigs) > MAX_KEYS:
                _trim(sigs)
        same_epoch = s.runs > 0 and s.epoch == epoch
        if same_epoch and res != s.res:
            s.changes += 1
            if kind != TRANSIENT:
                self.moved_step = n  # the same call, another answer: the world moved
        s.same = s.same + 1 if (same_epoch and res == s.res) else 1
        pairs = self.pairs
        seen = pairs.get(pair)
        novel = seen is None or seen[1] != epoch
        # A result never seen before (at this epoch) is new data, reading rather than
        # polling: only runs that bring back an earlier result count against the poll budget.
        s.polls = (s.polls if same_epoch else 0) + (0 if novel else 1)
        s.runs += 1
        s.res = res
        s.cluster = cluster if cluster != sig else ""
        s.epoch = after
        if "w" in p and p["w"]:  # noqa: RUF019 (`in` first: cheaper when absent)
            s.waits = True
        if "sc" in p and p["sc"]:  # noqa: RUF019
            s.scrolls = True
        if "ia" in p and p["ia"]:  # noqa: RUF019
            s.inputs = True
        if kind == HARD:
            # a failure after the workspace changed starts a new streak (edit, test, edit...)
            s.hard = s.hard + 1 if same_epoch else 1
            s.transient = 0
            s.fail_step, s.fail_ms = n, p["ts"]
            s.last_err = p.get("e", "")
        elif kind == TRANSIENT:
            # A user message since the last failure is the go-ahead to try again: transient
            # errors get a fresh retry budget (hard failures keep their streak).
            s.transient = s.transient + 1 if s.fail_step > self.turn_step else 1
            s.fail_step, s.fail_ms = n, p["ts"]
            s.last_err = p.get("e", "")
            base = sigs.get(cluster) if cluster != sig else None
            if base is not None and base.epoch == epoch:
                # a re-parameterised variant failing the same way spends the call's budget
                base.transient = base.transient + 1 if base.fail_step > self.turn_step else 1
                base.fail_step, base.fail_ms = n, p["ts"]
        else:
            s.hard = s.transient = 0
            self.last_ok_step = n
            if "cr" in p and p["cr"]:  # noqa: RUF019 (a call that creates a record succeeded)
                if s.made <= self.answered:  # the first time in this request
                    s.made, s.made_res, s.made_view, s.dups = n, res, p.get("cv", ""), 0
                    s.made_shape = p.get("cs", "")
                elif p.get("cd"):
                    s.dups += 1
        if kind != TRANSIENT:
            if seen is None:
                pairs[pair] = [1, after, n]
                if len(pairs) > MAX_KEYS:
                    _trim(pairs)
            elif seen[1] != epoch:
                seen[0], seen[1], seen[2] = 1, after, n
            else:
                seen[0] += 1
                seen[1], seen[2] = after, n
            self.tail.append((n, pair, sig))
            self.stale = 0 if novel else self.stale + 1
        if changed:
            self.epoch = after
            self.last_mut = pair
        if "x" in p:
            text = p["x"]
            if text:  # a near-duplicate candidate (the oldest dropped past `TEXTS`)
                texts, counts = self.texts, self.text_res
                if len(texts) == TEXTS:
                    gone = texts[0][3]
                    left = counts[gone] - 1
                    if left:
                        counts[gone] = left
                    else:
                        del counts[gone]
                texts.append((n, tool, cluster, res, text))
                counts[res] = counts.get(res, 0) + 1
        v = p["v"] if "v" in p else None  # noqa: SIM401
        if v:  # the live guard detected a loop at this call
            self.level = NUDGED
            self.nudges += 1
            self.loop_code = v
            self.loop_pairs = frozenset(p.get("lp", ())) | {pair}
            self.loop_steps = tuple(p.get("ev", ()))
        elif self.level and novel and pair not in self.loop_pairs and kind != TRANSIENT:
            self.level = CALM
            self.nudges = 0
            self.loop_code = ""
            self.loop_pairs = frozenset()
            self.loop_steps = ()
        self.recent.append(
            [
                n,
                tool,
                sig,
                res,
                kind,
                v or "",
                p["ts"],
                p["pv"] if "pv" in p else "",  # noqa: SIM401
                p["rv"] if "rv" in p else "",  # noqa: SIM401
            ]
        )
        return changed

    def apply_refuse(self, p: dict[str, Any]) -> int:
        n = self.free_step(p["n"])
        if n > self.last_step:
            self.last_step = n
        self.blocks += 1
        self.recent.append(
            [n, p["t"], p["g"], "", -1, p["c"], p["ts"], p.get("pv", ""), "", p.get("act", "")]
        )
        return n

    def turn_calls(self) -> list[str] | None:
        """The calls of the current turn (since the latest user turn), as "sig:result", in
        order; None when one was refused or failed transiently (no plain replay), or when
        there are more than `ECHO_CALLS` (fresh15)."""
        out: list[str] = []
        after = self.turn_step
        if self.last_step == after:
            return out  # (no call since the turn began: the usual case)
        for r in reversed(self.recent):
            if r[0] <= after:
                break
            if r[4] == TRANSIENT or r[4] == -1 or len(out) == ECHO_CALLS:
                return None
            out.append(f"{r[2]}:{r[3]}")
        out.reverse()
        return out

    def replaying(self) -> bool:
        """The current turn made the calls of the answer it may give again, with the same
        results (none, for an answer without calls)."""
        return bool(self.turn_calls() == self.echo[4])

    def apply_msg(self, p: dict[str, Any]) -> None:
        echo = self.echo
        if echo[3]:  # a message of a turn that followed up the same answer
            k, answer = len(self.msgs), echo[0]  # (messages of this turn so far)
            if not self.replaying() or k >= len(answer) or p["d"] != answer[k]:
                self.echo = [[], 0, 0, False, []]  # it acted, or said something else
            elif k + 1 == len(answer):  # it gave the whole answer again
                echo[1] += 1
                echo[2] = echo[2] + 1 if p.get("v") else 0
                echo[3] = False
        if not self.msgs:  # the first message of the turn: opens or continues a canned reply
            cn = p.get("cn")
            self.canned = [p["d"], cn, self.turns] if cn else ["", 0, 0]
        if not self.msg_streak:  # a new run of messages
            self.msg_run, self.msg_stale, self.msg_restated = frozenset(), 0, 0
            self.msg_stale_row = 0
        w = p.get("mw")
        if w is not None:  # (an older record: its words are not known)
            self.msg_last = words = frozenset(w)
            if len(self.msg_run) < MAX_RUN_WORDS:
                self.msg_run = self.msg_run | words
            self.msg_stale += 1 if p.get("st") else 0
            # (a message said before in the run, word for word, is the cycle rules': it
            # neither counts nor breaks the row)
            if not p.get("st"):
                self.msg_stale_row = 0
            elif p["d"] not in self.msgs:
                self.msg_stale_row += 1
            self.msg_restated = self.msg_restated + 1 if p.get("rs") else 0
        self.msg_streak += 1
        self.msgs = [*self.msgs[-15:], p["d"]]
        self.last_sketch = p.get("h", "")
        self.last_sents = frozenset(p.get("sn", ()))
        self.msg_flags = self.msg_flags + 1 if p.get("v") else 0

    def echo_turn(self, p: dict[str, Any]) -> None:
        """The user-text half of a `guard.turn` (before `apply_turn`): `u`, the digests of
        the text's words (absent: no text given), `f` = 1 when it asked nothing new."""
        u = p.get("u")
        follow = u is not None and bool(p.get("f"))
        # The agent answered the last turn in text: in text only (no call since that turn
        # began) to a turn that follows up, as before; or after calls (fresh15) to a request
        # that shares no word with the last one (another request, not the same one
        # reworded): the same calls with the same results and the same answer to it ignore
        # what was asked. (Calls to a follow-up may be a look at something moving, "any
        # update?" answered by a status check, or the same question asked again and
        # answered alike; an answer in text only to a new request is a chat's.)
        calls = self.turn_calls() if self.msg_streak > 0 else None
        if calls is None or u is None:
            ok = False
        elif not calls:
            ok = follow
        else:
            ok = not follow and bool(self.ask) and self.ask.isdisjoint(u)
        if ok:
            answer = list(self.msgs)  # what the agent said in the last turn
            if answer != self.echo[0] or calls != self.echo[4]:
                self.echo = [answer, 1, 0, True, calls]
            else:
                self.echo[3] = True
        else:
            self.echo = [[], 0, 0, False, []]
        self.new_ask = u is not None and not follow
        if u is None:
            self.ask = frozenset()
        elif not follow:
            self.ask = frozenset(u[:256])

    def apply_turn(self) -> None:
        carry = ["", 0]
        # (a run already reported, nudged or stopped, is not carried: the user's message after
        # it is a new request, decided afresh)
        if self.msg_streak >= 2 and self.msgs and not self.msg_flags:
            last, run = self.msgs[-1], 0
            for d in reversed(self.msgs[-self.msg_streak :]):
                if d != last:
                    break
                run += 1
            if run >= 2:
                carry = [last, run]
        self.carry = carry
        self.turns += 1
        self.turn_step = self.last_step
        if self.msg_streak or self._answered_by_tool():
            self.answered = self.last_step  # the agent answered, the user spoke: a new request
        self.msg_streak = self.msg_flags = 0
        self.msgs = []
        self.stale = 0  # the user's message is new input (fresh6)
        self.level = CALM
        self.nudges = self.blocks = 0
        self.loop_code = ""
        self.loop_pairs = frozenset()
        self.loop_steps = ()

    def _answered_by_tool(self) -> bool:
        """The agent's last act was a successful call of a tool that answers the user."""
        if not self.recent:
            return False
        last = self.recent[-1]
        return last[4] == OK and last[0] == self.last_step and _ANSWERS.search(last[1]) is not None

    # -------------------------------------------------------------- image

    def export(self) -> dict[str, Any]:
        return {
            "last_step": self.last_step,
            "calls": self.calls,
            "tool_calls": dict(self.tool_calls),
            "started": self.started,
            "epoch": self.epoch,
            "last_mut": self.last_mut,
            "tail": [list(t) for t in self.tail],
            # Large maps as lazy text (`_lazy`): a reopen decodes only the entries it reads.
            **_export_map("pairs", self.pairs, list),
            **_export_map("sigs", self.sigs, SigState.export),
            "stale": self.stale,
            "moved_step": self.moved_step,
            "last_ok_step": self.last_ok_step,
            "level": self.level,
            "loop_code": self.loop_code,
            "loop_pairs": sorted(self.loop_pairs),
            "loop_steps": list(self.loop_steps),
            "nudges": self.nudges,
            "blocks": self.blocks,
            "recent": [list(r) for r in self.recent],
            "texts": [list(t) for t in self.texts],
            "msg": [self.msg_streak, self.msg_flags, list(self.msgs)],
            "turns": self.turns,
            "turn_step": self.turn_step,
            "answered": self.answered,
            "echo": [list(self.echo[0]), *self.echo[1:4], list(self.echo[4])],
            "ask": sorted(self.ask),
            "asked": self.asked,
            "canned": [*self.canned, self.new_ask],
            "carry": list(self.carry),
            "last_msg": [self.last_sketch, sorted(self.last_sents)],
            "msg_words": [
                sorted(self.msg_run),
                self.msg_stale,
                self.msg_restated,
                sorted(self.msg_last),
                self.msg_stale_row,
            ],
        }

    @classmethod
    def from_export(cls, d: dict[str, Any]) -> SessionState:
        s = cls()
        s.last_step = int(d["last_step"])
        s.calls = int(d["calls"])
        s.tool_calls = {str(k): int(v) for k, v in d["tool_calls"].items()}
        s.started = int(d["started"])
        s.epoch = int(d["epoch"])
        s.last_mut = str(d["last_mut"])
        s.tail.extend((int(a), str(b), str(c)) for a, b, c in d["tail"])
        if "pairs_lazy" in d:
            s.pairs = LazyMap.decode(d["pairs_lazy"], _pair_row)
        else:
            s.pairs = {str(k): [int(x) for x in v] for k, v in d["pairs"].items()}
        if "sigs_lazy" in d:
            s.sigs = LazyMap.decode(d["sigs_lazy"], _sig_row)
        else:
            s.sigs = {str(k): SigState.from_export(v) for k, v in d["sigs"].items()}
        s.stale = int(d["stale"])
        s.moved_step = int(d.get("moved_step", 0))
        s.last_ok_step = int(d["last_ok_step"])
        s.level = int(d["level"])
        s.loop_code = str(d["loop_code"])
        s.loop_pairs = frozenset(d["loop_pairs"])
        s.loop_steps = tuple(d["loop_steps"])
        s.nudges = int(d["nudges"])
        s.blocks = int(d["blocks"])
        s.recent.extend(list(r) for r in d["recent"])
        s.texts.extend((int(a), str(b), str(c), str(e), str(f)) for a, b, c, e, f in d["texts"])
        s.text_res = dict(Counter(t[3] for t in s.texts))
        s.msg_streak, s.msg_flags, msgs = d["msg"]
        s.msgs = [str(m) for m in msgs]
        s.turns = int(d["turns"])
        s.turn_step = int(d.get("turn_step", 0))
        s.answered = int(d.get("answered", 0))
        echo = d.get("echo")
        if echo is not None:
            s.echo = [
                [str(m) for m in echo[0]],
                int(echo[1]),
                int(echo[2]),
                bool(echo[3]),
                [str(c) for c in echo[4]] if len(echo) > 4 else [],
            ]
        s.ask = frozenset(str(w) for w in d.get("ask", ()))
        s.asked = int(d.get("asked", 0))
        canned = d.get("canned")  # (absent in an older image: no canned reply under way)
        if canned is not None:
            s.canned = [str(canned[0]), int(canned[1]), int(canned[2])]
            s.new_ask = bool(canned[3])
        carry = d.get("carry")  # (absent in an older image: no run carried)
        if carry is not None:
            s.carry = [str(carry[0]), int(carry[1])]
        last = d.get("last_msg")  # (absent in an older image: no last message to compare)
        if last is not None:
            s.last_sketch = str(last[0])
            s.last_sents = frozenset(str(x) for x in last[1])
        run = d.get("msg_words")  # (absent in an older image: no words known)
        if run is not None:
            s.msg_run = frozenset(str(x) for x in run[0])
            s.msg_stale, s.msg_restated = int(run[1]), int(run[2])
            s.msg_last = frozenset(str(x) for x in run[3])
            s.msg_stale_row = int(run[4]) if len(run) > 4 else 0  # (older images: 0)
        return s


class GuardPart:
    """The guard's part of a CRS's state: sessions and learned failures."""

    def __init__(self, crs: CRS) -> None:
        self.sessions: dict[str, SessionState] = {}
        self.failures: dict[str, dict[str, Any]] = {}  # id -> learned failure (plain data)
        self.by_sig: dict[str, list[str]] = {}  # signature -> failure ids
        self.changes = 0  # workspace changes seen by any session (in-memory fingerprint)
        # not state (never journaled nor in an image): session -> (its first call's stamp,
        # this process's monotonic time and the session's age when a guard of this engine
        # first looked), for the wall-time budget (`Guard._session_seconds`), shared by every
        # Guard of the engine (a hook server's `with_session` guard per request)
        self.clocks: dict[str, tuple[int, float, float]] = {}
        for kind, handler in (
            ("guard.step", self._op_step),
            ("guard.refuse", self._op_refuse),
            ("guard.msg", self._op_msg),
            ("guard.turn", self._op_turn),
            ("guard.forget", self._op_forget),
        ):
            crs._register_op(kind, handler)

    def session(self, sid: str) -> SessionState:
        s = self.sessions.get(sid)
        if s is None:
            s = self.sessions[sid] = SessionState()
            if len(self.sessions) > MAX_SESSIONS:
                del self.sessions[next(iter(self.sessions))]
        return s

    # -------------------------------------------------------------- handlers

    # Each handler checks its payload and returns the function that applies it: the CRS
    # runs that only once the record is journaled, so a failed append changes nothing.

    def _op_step(self, p: dict[str, Any]) -> Callable[[], int]:
        _require(p, _STEP_KEYS, "guard.step")
        lf = p.get("lf")
        if lf is not None:
            _require(lf, _FAILURE_KEYS, "guard.step learned failure")
        return functools.partial(self.apply_step, p)

    def apply_step(self, p: dict[str, Any]) -> int:
        """Apply a `guard.step` payload (checked by `_op_step`, or built by the live guard);
        returns the step it is stored at (`SessionState.free_step`)."""
        sid = p["s"]
        s = self.sessions.get(sid) or self.session(sid)
        n: int = p["n"]
        if n <= s.last_step:  # (the usual step is a new one: no call)
            n = s.free_step(n)
        if s.apply_step(p, n):
            self.changes += 1
        if "lf" in p:  # (`in` first: most records have neither key)
            lf = p["lf"]
            if lf is not None:
                self._learn(lf)
        if "fx" in p:
            for fid in p["fx"]:  # failures this success shows to be stale
                self._drop(fid)
        return n

    def _op_refuse(self, p: dict[str, Any]) -> Callable[[], int]:
        _require(p, _REFUSE_KEYS, "guard.refuse")
        return functools.partial(self.apply_refuse, p)

    def apply_refuse(self, p: dict[str, Any]) -> int:
        """Apply a `guard.refuse` payload (checked by `_op_refuse`, or built by the guard);
        returns the step it is stored at."""
        return self.session(p["s"]).apply_refuse(p)

    def _op_msg(self, p: dict[str, Any]) -> Callable[[], None]:
        _require(p, _MSG_KEYS, "guard.msg")
        cn = p.get("cn", 1)
        if type(cn) is not int or not 0 < cn <= MAX_CANNED:
            raise InvalidArgumentError(
                f"payload: a guard.msg record's 'cn' must be an int in 1..{MAX_CANNED}, got "
                f"{brief(cn)}"
            )
        for key in ("sn", "mw"):
            got = p.get(key)
            if got is not None and (type(got) is not list or not all(type(x) is str for x in got)):
                raise InvalidArgumentError(
                    f"payload: a guard.msg record's {key!r} must be a list of str, got {brief(got)}"
                )
        return lambda: self.session(p["s"]).apply_msg(p)

    def _op_turn(self, p: dict[str, Any]) -> Callable[[], None]:
        _require(p, _TURN_KEYS, "guard.turn")
        u = p.get("u")
        if u is not None and (type(u) is not list or not all(type(w) is str for w in u)):
            raise InvalidArgumentError(
                f"payload: a guard.turn record's 'u' must be a list of str, got {brief(u)}"
            )
        rp = p.get("rp", 0)
        if type(rp) is not int or not 0 <= rp <= MAX_ASKED_REPEATS:
            raise InvalidArgumentError(
                f"payload: a guard.turn record's 'rp' must be an int in 0..{MAX_ASKED_REPEATS}, "
                f"got {brief(rp)}"
            )
        return functools.partial(self.apply_turn, p)

    def apply_turn(self, p: dict[str, Any]) -> None:
        """Apply a `guard.turn` payload (checked by `_op_turn`, or built by the guard)."""
        s = self.session(p["s"])
        s.echo_turn(p)
        s.apply_turn()
        s.asked = p.get("rp", 0)

    def _op_forget(self, p: dict[str, Any]) -> Callable[[], None]:
        _require(p, _FORGET_KEYS, "guard.forget")
        fid = p["id"]

        def forget() -> None:
            self._drop(fid)

        return forget

    def _learn(self, lf: dict[str, Any]) -> None:
        fid = lf["id"]
        self._drop(fid)
        self.failures[fid] = dict(lf)
        self.by_sig.setdefault(lf["signature"], []).append(fid)
        while len(self.failures) > MAX_FAILURES:
            self._drop(next(iter(self.failures)))

    def _drop(self, fid: str) -> bool:
        lf = self.failures.pop(fid, None)
        if lf is None:
            return False
        ids = self.by_sig.get(lf["signature"])
        if ids is not None:
            ids.remove(fid)
            if not ids:
                del self.by_sig[lf["signature"]]
        return True

    # -------------------------------------------------------------- image

    def export(self) -> dict[str, Any]:
        return {
            "version": PART_VERSION,
            "sessions": {k: v.export() for k, v in self.sessions.items()},
            "failures": [dict(f) for f in self.failures.values()],
            "changes": self.changes,
        }

    def parse(self, data: Any) -> tuple[dict[str, SessionState], list[dict[str, Any]], int]:
        if not data:
            return {}, [], 0
        if not isinstance(data, dict) or data.get("version") != PART_VERSION:
            got = data.get("version") if isinstance(data, dict) else type(data).__name__
            raise InvalidArgumentError(
                f"image: the guard part has version {got!r}, expected {PART_VERSION}"
            )
        try:
            sessions = {str(k): SessionState.from_export(v) for k, v in data["sessions"].items()}
            failures = [dict(f) for f in data["failures"]]
            for f in failures:
                str(f["id"]), str(f["signature"])
            changes = int(data.get("changes", 0))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidArgumentError(f"image: malformed guard part ({exc!r})") from None
        return sessions, failures, changes

    def install(self, parsed: tuple[dict[str, SessionState], list[dict[str, Any]], int]) -> None:
        sessions, failures, self.changes = parsed
        self.sessions = sessions
        self.failures = {}
        self.by_sig = {}
        for f in failures:
            self._learn(f)

    def load(self, data: Any) -> None:
        self.install(self.parse(data))
