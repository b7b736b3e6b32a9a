"""Red team, eleventh pass: a result that is (or holds) a large binary, as Pydantic AI's
`BinaryContent` (a dataclass holding an image's bytes), is digested without building the
`repr()` of its bytes (a 60 MB image cost ~400 MB for a moment, then was recorded by its
type): its bytes by their hash. Ordinary results digest as before."""

from __future__ import annotations

import dataclasses
import tracemalloc

import pytest

from crs.guard import Guard
from crs.guard._canon import result_digest

MB = 1 << 20


@dataclasses.dataclass
class Image:
    data: bytes
    media_type: str = "image/png"


def _peak(fn) -> int:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _image(n: int, fill: int = 0x7F) -> bytes:
    return bytes([fill]) * n


def test_a_large_image_dataclass_is_digested_by_its_bytes_hash() -> None:
    data = _image(40 * MB)
    img = Image(data)
    peak = _peak(lambda: result_digest(img))
    assert peak < 10 * MB, peak  # (its repr: 4 characters a byte, 160 MB)
    # the same image digests alike, another image (one byte changed) otherwise
    other = bytearray(data)
    other[-1] = 0
    assert result_digest(Image(bytes(data))) == result_digest(img)
    assert result_digest(Image(bytes(other))) != result_digest(img)
    assert result_digest(Image(data, "image/jpeg")) != result_digest(img)


def test_a_dict_holding_a_large_binary_is_digested_by_its_bytes_hash() -> None:
    data = _image(40 * MB)
    peak = _peak(lambda: result_digest({"image": data, "name": "a.png"}))
    assert peak < 10 * MB, peak


def test_pydantic_ai_binary_content_through_the_guard() -> None:
    messages = pytest.importorskip("pydantic_ai.messages")
    g = Guard()
    seen = []
    for _ in range(3):
        v = g.before_call("screenshot", {"page": "home"})
        img = messages.BinaryContent(data=_image(60 * MB), media_type="image/png")
        a = g.after_call(v.call, result=img)
        seen.append(str(a.action))
    assert seen == ["allow", "allow", "nudge"]  # the same image three times is a repeat


def test_ordinary_results_digest_as_before() -> None:
    # (digests of this version's predecessor: small bytes in a dataclass, a dataclass, a
    # dict holding small bytes, a set)
    assert result_digest(Image(b"\x89PNG")) == result_digest(repr(Image(b"\x89PNG")))
    assert result_digest({"b": b"xy", 1: 2}) == result_digest(str({"b": b"xy", 1: 2}))
    assert result_digest({"s": {"b", "a"}, 1: 2}) == result_digest("{'s': {'a', 'b'}, 1: 2}")


def test_a_durable_guard_previews_a_large_binary_without_its_repr(tmp_path) -> None:  # type: ignore[no-untyped-def]
    g = Guard.open(tmp_path / "p", "s", home=tmp_path / "home")
    try:
        for i, result in enumerate(
            [Image(_image(40 * MB)), {"image": _image(40 * MB)}, [_image(40 * MB, 1)]]
        ):
            v = g.before_call("screenshot", {"page": f"p{i}"})
            assert _peak(lambda: g.after_call(v.call, result=result)) < 10 * MB  # noqa: B023
        calls = g.status()["calls"]
    finally:
        g.close()
    assert calls == 3
