"""`crs._core.crc32c` (the Rust `crc32c` crate) against the `crc32c` package, the reference.

The journals frame their records with it; computing it in the core spares `import crs` the
`crc32c` package, whose import pulls in `importlib.metadata`.
"""

from __future__ import annotations

import random

import crc32c as reference
import pytest

from crs import _core


def test_matches_the_reference_on_every_length_up_to_300_and_large_buffers() -> None:
    rng = random.Random(7)
    sizes = [*range(300), 4096, 65_535, 65_536, 1 << 20]
    for n in sizes:
        data = rng.randbytes(n)
        assert _core.crc32c(data) == reference.crc32c(data), n


def test_known_value_and_any_byte_buffer() -> None:
    assert _core.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    data = bytes(range(256)) * 300
    want = reference.crc32c(data)
    assert _core.crc32c(bytearray(data)) == want
    assert _core.crc32c(memoryview(b"x" + data)[1:]) == want


def test_rejects_what_is_not_bytes() -> None:
    for bad in ("text", 3, None, [1, 2]):
        with pytest.raises(TypeError, match="data: must be bytes"):
            _core.crc32c(bad)  # type: ignore[arg-type]
