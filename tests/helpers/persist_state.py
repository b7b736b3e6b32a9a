"""A real, compact proof-number state used by the persistence tests and benchmark.

It implements the protocols the CRS implements (`BackupSource`, `BackupTarget`,
`RestoreTarget`, `JSONExportSource`) over columnar data: node ids (~20 characters) and five
64-bit numbers per node (proof, disproof, status, source, updated_at ms), the shape of the
CRS proof index. Its image is a versioned document; loading checks every part of it.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from crs import BackupImage

_DOC = struct.Struct("<8sQQ")
_MAGIC = b"PSTATE1\0"


class ProofState:
    """Node ids plus an (n, 5) uint64 table; deltas set or add to one node's proof number."""

    def __init__(self, ids: list[str] | None = None, table: Any = None) -> None:
        self.ids: list[str] = list(ids or [])
        self.table = (
            np.zeros((0, 5), dtype="<u8") if table is None else np.asarray(table, dtype="<u8")
        )
        assert self.table.shape == (len(self.ids), 5)
        self._index: dict[str, int] | None = None
        self.gen = 0
        self.position = 0
        self.loads = 0

    @classmethod
    def generate(cls, n: int, seed: int = 0) -> ProofState:
        rng = np.random.default_rng(seed)
        ids = [f"tool:grep_{i % 97:02d}:{i:08d}" for i in range(n)]
        table = np.empty((n, 5), dtype="<u8")
        table[:, 0] = rng.integers(0, 1000, n)
        table[:, 1] = rng.integers(0, 1000, n)
        table[:, 2] = rng.integers(0, 4, n)
        table[:, 3] = rng.integers(0, 3, n)
        table[:, 4] = 1_764_000_000_000 + rng.integers(0, 86_400_000, n)
        state = cls(ids, table)
        state.gen = n
        state.position = n
        return state

    # ---- what the CRS implements

    def export_image(self) -> BackupImage:
        blob = "\n".join(self.ids).encode("utf-8")
        numbers = np.ascontiguousarray(self.table, dtype="<u8").tobytes()
        data = _DOC.pack(_MAGIC, len(self.ids), len(blob)) + blob + numbers
        return BackupImage(data=data, journal_position=self.position, generation=self.gen)

    def load_image(self, image: BackupImage) -> None:
        ids, table = decode_image(image.data)
        self.ids, self.table, self._index = ids, table, None
        self.gen = image.generation
        self.position = image.journal_position
        self.loads += 1

    def apply(self, delta: Any) -> object:
        kind, node, value = delta
        index = self._rows()
        if kind == "set":
            if node not in index:
                index[node] = len(self.ids)
                self.ids.append(node)
                self.table = np.vstack([self.table, np.zeros((1, 5), dtype="<u8")])
            self.table[index[node]] = value
        elif kind == "add":  # not idempotent: applying twice shows up in the result
            self.table[index[node], 0] += value
        else:
            raise ValueError(f"unknown delta kind {kind!r}")
        self.gen += 1
        return None

    def generation(self) -> int:
        return self.gen

    def export_json(self) -> bytes:
        doc = {
            "version": 1,
            "generation": self.gen,
            "proof": {
                node: [int(x) for x in row] for node, row in zip(self.ids, self.table, strict=True)
            },
        }
        return json.dumps(doc).encode()

    # ---- helpers for the tests

    def _rows(self) -> dict[str, int]:
        if self._index is None:
            self._index = {node: i for i, node in enumerate(self.ids)}
        return self._index

    def digest(self) -> str:
        h = hashlib.sha256("\n".join(self.ids).encode())
        h.update(np.ascontiguousarray(self.table, dtype="<u8").tobytes())
        h.update(struct.pack("<QQ", self.gen, self.position))
        return h.hexdigest()


def decode_image(data: bytes) -> tuple[list[str], Any]:
    magic, n, blob_len = _DOC.unpack_from(data)
    if magic != _MAGIC:
        raise ValueError("not a ProofState image")
    start = _DOC.size
    blob = data[start : start + blob_len]
    ids = blob.decode("utf-8").split("\n") if n else []
    numbers = np.frombuffer(data, dtype="<u8", offset=start + blob_len).reshape(n, 5).copy()
    if len(ids) != n:
        raise ValueError("image id count does not match")
    return ids, numbers


class Record(NamedTuple):
    """Shape of the journal's DeltaOrError."""

    delta: Any
    seq_num: int
    err: BaseException | None = None
    skipped: bool = False


class ListJournal:
    """A journal of records in memory; `fail_at` makes one replay raise part-way (once)."""

    def __init__(self, records: list[Record], fail_at: int | None = None) -> None:
        self.records = records
        self.fail_at = fail_at
        self.replays = 0
        self.after: list[int] = []

    def replay_stream(self, after_seq: int = 0) -> Iterator[Record]:
        self.replays += 1
        self.after.append(after_seq)
        for i, record in enumerate(self.records):
            if self.fail_at is not None and i == self.fail_at:
                self.fail_at = None
                raise OSError("transient read error")
            if record.seq_num > after_seq:
                yield record
