"""Private native module of crs (Rust, PyO3). Users import `crs`, never `crs._core`."""

from typing import final

__version__: str

# ---------------------------------------------------------------- cycle detection

@final
class CycleDetector:
    """Online cycle detector over interned state ids."""

    def __new__(cls, window: int) -> CycleDetector: ...
    def add(self, state: int) -> list[int] | None: ...
    def reset(self) -> None: ...
    @property
    def steps(self) -> int: ...
    @property
    def cycles_found(self) -> int: ...

# ---------------------------------------------------------------- journal framing

def wal_encode(first_seq: int, payloads: list[bytes]) -> bytes:
    """Frame `payloads` as one unit (a record or an atomic batch) from `first_seq`."""

def wal_scan(
    buf: bytes, start: int, expected_seq: int, max_records: int
) -> tuple[list[bytes], int, int, int, int]:
    """Scan records: `(payloads, commit_pos, stop_pos, stop, found_seq)`."""

def wal_resync(buf: bytes, start: int, unit_start: bool) -> tuple[int, int] | None:
    """The next valid record (unit-starting if asked) at or after `start`: `(offset, seq)`."""
