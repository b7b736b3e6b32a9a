"""Private native module of crs (Rust, PyO3). Users import `crs`, never `crs._core`."""

from collections.abc import Iterable, Sequence
from typing import Any, final

from typing_extensions import Buffer

__version__: str

class ApplyNotFoundError(ValueError):
    """A state apply named something the state does not hold."""

class ApplyInvalidError(ValueError):
    """A state apply is not valid against the state."""

OP_KINDS: dict[str, int]
"""The kinds of state operations (`rust/state/apply.rs` `OpKind`): name -> number."""

# ---------------------------------------------------------------- cycle detection

@final
class CycleDetector:
    """Online cycle detector over integer state ids (spec README §5.7). Thread-safe.

    A cycle is reported when the current state equals a state seen since the last detection
    (or reset) within the last `window` states; the cycle is the states from that earlier
    occurrence up to, not including, the current one. Detection starts a new trail.
    """

    def __new__(cls, window: int) -> CycleDetector: ...
    def add(self, state: int) -> list[int] | None:
        """Feed one state id; returns the cycle's state ids when this state closes one."""

    def add_many(self, states: Sequence[int]) -> list[tuple[int, list[int], int]]:
        """Feed many state ids (GIL released); `(index into states, cycle, tail)` per cycle."""

    def reset(self) -> None:
        """Forget held states and the step count; `cycles_found` is kept."""

    @property
    def steps(self) -> int:
        """States fed since construction or the last reset."""

    @property
    def cycles_found(self) -> int:
        """Cycles reported since construction (not cleared by reset)."""

    @property
    def history_size(self) -> int:
        """States currently held (at most `window`)."""

    @property
    def window(self) -> int:
        """How many states back a repeat is looked for (at least 1)."""

@final
class KeyCycleDetector:
    """`CycleDetector` over non-empty string states, interned in Rust. Thread-safe.

    `tail` in results = states seen since the last detection or reset before the cycle's first
    state (`cycle[0]` is the repeated state). Strings are looked up by the hash Python caches in
    each `str` and compared byte for byte. The interner is rebuilt from the held states past
    `4 * window + 1024` strings. Empty states raise `ValueError`.
    """

    def __new__(cls, window: int) -> KeyCycleDetector: ...
    def add(self, state: str) -> tuple[list[str], int] | None:
        """Feed one state; returns `(cycle, tail)` when this state closes a cycle."""

    def add_many(self, states: Iterable[str]) -> list[tuple[int, list[str], int]]:
        """Feed many states (GIL released); `(index, cycle, tail)` per cycle. All-or-nothing:
        a non-str item raises `TypeError`, an empty one `ValueError`, and nothing is fed."""

    def reset(self) -> None:
        """Forget held states and the step count; `cycles_found` is kept."""

    @property
    def steps(self) -> int: ...
    @property
    def cycles_found(self) -> int: ...
    @property
    def history_size(self) -> int: ...
    @property
    def window(self) -> int: ...

def brent_recurrence(seq: Sequence[int]) -> tuple[int, int] | None:
    """Brent's `(mu, lambda)` (tail length, period) of the iterates `seq[i + 1] = f(seq[i])`.

    `None` if the sequence ends before Brent's hare meets the tortoise (always found when
    `len(seq) > 3 * (mu + lambda + 1)`). Values must fit in u32.
    """

# ---------------------------------------------------------------- graphs: CSR, BFS, Tarjan

@final
class Digraph:
    """A frozen directed graph in CSR form over nodes `0..node_count`.

    `edges` is a buffer of interleaved `(source, target)` u32 pairs: a numpy `uint32` array of
    shape `(E, 2)` (or flat), an `array.array('I')`, or little-endian bytes. Successors keep
    the order of the edges; duplicate edges and self-loops are kept. `ValueError` on a node
    id `>= node_count`, an odd number of values, or `node_count > 2**26` (the graph allocates
    per node up front, so the count is bounded before anything is allocated).
    """

    def __new__(cls, node_count: int, edges: Buffer) -> Digraph: ...
    @property
    def node_count(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def successors(self, node: int) -> list[int]:
        """Successors of `node` in edge order (`ValueError` if out of range)."""

    def reversed(self) -> Digraph:
        """The graph with every edge reversed (predecessor lists)."""

    def tarjan_scc(self) -> list[list[int]]:
        """Strongly connected components (iterative Tarjan; every node in exactly one).

        Components in Tarjan's pop order (reverse topological order of the condensation),
        members in stack-pop order.
        """

    def bfs_within(self, start: int, max_depth: int) -> tuple[list[int], list[int]]:
        """Nodes within `max_depth` edges of `start` (BFS order, `start` first) and depths."""

# ---------------------------------------------------------------- clauses

@final
class ClauseDb:
    """Clauses over `family=value` variables, checked with two watched literals. Thread-safe.

    A literal is `(family, value, negated)`; a clause (a disjunction) is violated when all its
    literals are false. `check` completes a one-hot observation: the observed value of each
    observed family is true, every other value of that family is false, other families are
    unassigned. Results name the oldest added clause first. Errors are `ValueError`.
    """

    def __new__(cls) -> ClauseDb: ...
    def add(self, id: int, literals: Sequence[tuple[str, str, bool]]) -> None:
        """Adds clause `id` (i64); `ValueError` if it has no literals or the id exists."""

    def remove(self, id: int) -> bool:
        """Removes clause `id`; returns whether it existed."""

    def clear(self) -> None:
        """Removes every clause and forgets every variable."""

    def __len__(self) -> int: ...
    def __contains__(self, key: int, /) -> bool: ...
    @property
    def variable_count(self) -> int:
        """Distinct `family=value` variables the clauses name (those of removed clauses are
        forgotten, so memory follows the live clauses)."""

    def ids(self) -> list[int]:
        """Clause ids, oldest first."""

    def check(self, observed: Sequence[tuple[str, str]]) -> int | None:
        """Oldest clause violated by the one-hot observation (`ValueError`: family twice)."""

    def check_all(self, observed: Sequence[tuple[str, str]]) -> list[int]:
        """Every clause violated by the one-hot observation, oldest first."""

    def check_assignment(self, assignment: Sequence[tuple[str, str, bool]]) -> int | None:
        """Oldest clause violated by an explicit three-valued assignment (no completion)."""

    def check_names(self, assignment: dict[str, bool]) -> int | None:
        """Oldest clause violated by `{"family:value": bool}` (split at the first `:` in Rust;
        `TypeError`/`ValueError` on a non-str or empty key, a non-bool value, a lone surrogate
        or a contradiction such as `{"a": True, "a:": False}`)."""

    def check_assignment_all(self, assignment: Sequence[tuple[str, str, bool]]) -> list[int]:
        """Every clause violated by the explicit assignment, oldest first."""

# ---------------------------------------------------------------- minhash / LSH

MINHASH_NUM_PERM: int
LSH_BANDS: int
LSH_ROWS: int

def minhash_shingles(text: str) -> list[str]:
    """Lower-cased tokens (split at whitespace and ASCII punctuation except `_`) and adjacent
    token bigrams `"a b"`, without duplicates, in first-seen order."""

@final
class Triggers:
    """Whether an ASCII text holds any word of `exact`, or of `lower` once its letters are
    lower-cased (one pass, Aho-Corasick)."""

    def __new__(cls, exact: Sequence[str], lower: Sequence[str]) -> Triggers: ...
    def found(self, text: str) -> bool:
        """True when `text` (ASCII) holds a word of either set."""

@final
class QuietGate:
    """The default sanitizer's "nothing to redact" test for ASCII text (its trigger words
    `exact` and `lower`, plus the discord and high-entropy shapes)."""

    def __new__(cls, exact: Sequence[str], lower: Sequence[str]) -> QuietGate: ...
    def quiet(self, text: str) -> bool:
        """True when no built-in sanitizer pass can change `text` (False: ask it)."""
    def view(self, text: str, limit: int) -> str | None:
        """`" ".join(text.split())` cut to `limit` characters, for quiet ASCII text."""

def shell_canon(text: str) -> str | None:
    """`shlex.join(shlex.split(text))`, or None where shlex raises ValueError."""

def blake2b_hex(data: bytes, size: int) -> str:
    """`hashlib.blake2b(data, digest_size=size).hexdigest()`."""

def canon_flat(
    tool: str,
    args: object,
    drop: frozenset[str],
    commands: frozenset[str],
    path_keys: frozenset[str],
) -> tuple[str, dict[str, Any], str] | None:
    """The guard's call identity of plain ASCII arguments in one pass, or None."""

def identify_flat(
    tool: str,
    args: object,
    drop: frozenset[str],
    keys: frozenset[str],
    commands: frozenset[str],
    path_keys: frozenset[str],
    wait_keys: frozenset[str],
) -> tuple[str, dict[str, Any], str, bool] | None:
    """`canon_flat` without the names whose `field_key` is in `keys`, plus whether the
    call may wait (a positive int, or a str under one of `wait_keys`), or None."""

def digest_text(text: str, echo: object) -> str | None:
    """The guard's digest of an ASCII str result, or None."""

def json_compact(obj: object, prefix: bytes) -> bytes | None:
    """`prefix` + compact JSON of `obj` (UTF-8) exactly as `json.dumps(obj,
    separators=(",", ":"), ensure_ascii=False, allow_nan=False)` writes it, for exact
    dict (str keys) / list / tuple / str / 64-bit int / bool / None at most 64 levels
    deep; None for anything else (a float, a subclass, a lone surrogate)."""

def mask_volatile(text: str) -> str | None:
    """`text` (ASCII) with clock times, timestamps, durations and memory addresses replaced
    by `#`, or None when it has none."""

@final
class StampKeys:
    """The stamp fields of a structured result (`words`, each perhaps with one of `units`:
    lower-case ASCII letters), looked for in its JSON text."""

    def __new__(cls, words: Sequence[str], units: Sequence[str]) -> StampKeys: ...
    def found(self, text: str) -> bool:
        """Whether some `"<key>":` of `text` may name one (`_` and `-` aside, any case;
        True for a text with a lone surrogate)."""

def minhash_signature(text: str) -> bytes:
    """MinHash signature of `text`'s shingles: 128 little-endian u32 (512 bytes)."""

def minhash_signatures(texts: Sequence[str]) -> bytes:
    """Signatures of many texts concatenated (`512 * len(texts)` bytes); GIL released."""

def minhash_jaccard(a: bytes, b: bytes) -> float:
    """Estimated Jaccard similarity of two signatures (fraction of equal positions)."""

@final
class LshIndex:
    """LSH index (20 bands x 5 rows) of signatures under u64 ids. Thread-safe."""

    def __new__(cls) -> LshIndex: ...
    def insert(self, id: int, signature: bytes) -> None:
        """Indexes `id`, replacing its earlier signature (`ValueError` unless 512 bytes)."""

    def remove(self, id: int) -> bool: ...
    def query(self, signature: bytes) -> list[int]:
        """Ids sharing at least one band with `signature`, ascending."""

    def clear(self) -> None: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: int, /) -> bool: ...

# ---------------------------------------------------------------- journal framing

def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of `data`, as the `crc32c` package computes it."""

def crc32c_one_byte_error(syndrome: int, n: int) -> int | None:
    """The position of the one byte of an `n`-byte payload whose change explains a CRC-32C
    mismatch (`syndrome`: its CRC xor the stored one), or None (the Python reference:
    `crs._journal._local._one_byte_error_reference`)."""

def wal_append_shared(
    lock_fd: int,
    fd: int,
    head: bytes,
    pos: int,
    seq: int,
    payload: bytes,
    room: int,
    zero_tail: bool = False,
    grow_to: int = 0,
) -> tuple[int, int]:
    """A shared journal's append of one record in one call (flock, the check that `LOCK`
    starts with `head` and nothing follows `pos` (`zero_tail`: only zero bytes in the 24
    bytes at `pos`), `posix_fallocate` up to `grow_to` if past `pos` (failure ignored), the
    write, the unlock): `(0, bytes)`, `(1, 0)` busy, `(2, 0)` changed or no room (nothing
    written), `(3, errno)` the write failed (cut back), `(4, errno)` not cut back, `(5,
    errno)` another OS error."""

def wal_append_op(
    lock_fd: int,
    fd: int,
    head: bytes,
    pos: int,
    seq: int,
    prefix: bytes,
    kind: str,
    payload: Any,
    bump: bool,
    max_bytes: int,
    room: int,
    zero_tail: bool = False,
    grow_to: int = 0,
) -> tuple[int, int]:
    """`wal_append_shared` of the op record `{"op": kind, "payload": payload,
    "bump_generation": bump}` encoded in the same call, byte for byte as `json_compact(doc,
    prefix)`: its results, and `(7, 0)` not plain JSON data (nothing written: the caller
    encodes it), `(8, len)` an encoding longer than `max_bytes` (nothing written)."""

def wal_append_op_ahead(
    lock_fd: int,
    fd: int,
    head: bytes,
    pos: int,
    seq: int,
    prefix: bytes,
    kind: str,
    payload: Any,
    bump: bool,
    max_bytes: int,
    room: int,
    zero_tail: bool = False,
    grow_to: int = 0,
) -> tuple[int, int, int]:
    """`wal_append_op`, then, once the record is written, its `fdatasync` handed to the
    worker thread (`sync_start`) before the call returns: `(status, value, ticket)`, the
    ticket 0 when nothing was written or the worker could not take it (sync inline then)."""

def sync_start(fd: int) -> int:
    """Hand `fdatasync(fd)` to the worker thread: a ticket (> 0) for `sync_wait`, or 0 when
    the worker is busy with another sync or cannot run (sync inline then). `fd` must stay
    open until `sync_wait(ticket, ...)` returns."""

def sync_stats() -> tuple[int, int, int]:
    """(syncs handed to the worker, taken back by their waiter, waits that parked)."""

def sync_wait(ticket: int, spin_us: int, pickup_us: int = 50) -> int:
    """Wait (GIL released) until the sync of `ticket` has finished: 0 or its errno (EINVAL
    for a ticket never handed out); spins up to `spin_us` microseconds, then parks; syncs
    inline when the worker has not taken the request within `pickup_us`."""

def wal_encode(first_seq: int, payloads: list[bytes]) -> bytes:
    """Frame `payloads` as one unit (a record or an atomic batch) from `first_seq`.

    `ValueError` if `first_seq + len(payloads) - 1` passes 2**64 - 1 or a payload is longer
    than 2**32 - 1 bytes."""

def wal_scan(
    buf: bytes, start: int, expected_seq: int, max_records: int
) -> tuple[list[bytes], int, int, int, int]:
    """Scan records: `(payloads, commit_pos, stop_pos, stop, found_seq)`."""

def wal_resync(buf: bytes, start: int, unit_start: bool) -> tuple[int, int] | None:
    """The next valid record (unit-starting if asked) at or after `start`: `(offset, seq)`."""

# ---------------------------------------------------------------- state

_ProofRow = tuple[str, int, int, int, int, int]
_ConstraintRow = tuple[str, int, list[str], str, bool, int, int]
_HistoryRow = tuple[str, str, str, str, int, int, list[tuple[str, str]]]

@final
class StateCore:
    """One immutable version of the reasoning state (persistent maps)."""

    def __new__(cls, max_similarity_pairs: int, max_history_entries: int) -> StateCore: ...
    def apply_ops(self, ops: list[tuple[object, ...]]) -> tuple[StateCore, int, int]: ...
    def proof_get(self, node_id: str) -> tuple[int, int, int, int, int] | None: ...
    def proof_len(self) -> int: ...
    def proof_all(self) -> list[_ProofRow]: ...
    def constraint_get(self, constraint_id: str) -> _ConstraintRow | None: ...
    def constraint_len(self) -> int: ...
    def constraint_all(self) -> list[_ConstraintRow]: ...
    def sim_distance(self, a: str, b: str) -> float | None: ...
    def sim_neighbors(self, node_id: str) -> list[tuple[str, float]]: ...
    def sim_len(self) -> int: ...
    def sim_evicted(self) -> int: ...
    def sim_pairs(
        self, max_pairs: int | None = None
    ) -> tuple[list[tuple[str, str, float]], bool]: ...
    def depends_on(self, node_id: str) -> list[str]: ...
    def depended_by(self, node_id: str) -> list[str]: ...
    def has_cycle(self, node_id: str) -> bool: ...
    def dep_len(self) -> int: ...
    def dep_edges(self) -> list[tuple[str, str]]: ...
    def bfs_depended_by(self, start: str, max_depth: int) -> list[tuple[str, str, int]]: ...
    def dependency_chain(self, start: str, end: str) -> list[str]: ...
    def affected_by(self, node_id: str) -> list[str]: ...
    def history_len(self) -> int: ...
    def history_evicted(self) -> int: ...
    def history_recent(self, n: int) -> list[_HistoryRow]: ...
    def history_trace(self, node_id: str) -> list[_HistoryRow]: ...
    def estimate(self, item: str) -> int: ...
    def cardinality(self) -> int: ...
    def streaming_bytes(self) -> int: ...
    def sketch_bytes(self) -> bytes: ...
    def hot_nodes(self, n: int) -> list[tuple[str, int]]: ...

@final
class StateHead:
    """The mutable head version a CRS writes to; `freeze()` gives immutable versions."""

    def __new__(cls, max_similarity_pairs: int, max_history_entries: int) -> StateHead: ...
    def freeze(self) -> StateCore: ...
    def reset(self, core: StateCore) -> None: ...
    def set_sketch(self, data: bytes, sim_evicted: int, hist_evicted: int) -> None: ...
    def evicted(self) -> tuple[int, int]: ...
    def put_proofs(self, rows: list[_ProofRow]) -> int: ...
    def put_proof_payloads(self, payloads: list[bytes]) -> int:
        """Decode binary ProofDelta codec payloads and write their rows in order, all or
        nothing; the number of rows written (`ValueError` naming a bad payload)."""

    def apply_ops(self, ops: list[tuple[object, ...]]) -> tuple[int, int]: ...

# ---- codec (journal payloads of crs._codec)

def codec_decode_proofs(
    payloads: list[bytes],
) -> list[tuple[int, int, list[_ProofRow]] | None]: ...
def codec_proof_mask(payloads: list[bytes]) -> list[bool]:
    """Per payload: is it a binary ProofDelta payload (checked by decoding it)? `ValueError`
    naming the first damaged one."""
