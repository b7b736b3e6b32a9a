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
