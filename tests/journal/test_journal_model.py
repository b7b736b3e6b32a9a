"""LocalJournal against MemoryJournal (the model) on random operation sequences."""

from __future__ import annotations

import io
import tempfile
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from crs import JournalConfig, LocalJournal, MemoryJournal

entries = st.one_of(
    st.integers(-5, 5),
    st.text(max_size=300),
    st.dictionaries(st.text(max_size=5), st.integers() | st.booleans() | st.none(), max_size=3),
)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), entries),
        st.tuples(st.just("batch"), st.lists(entries, min_size=1, max_size=12)),
        st.tuples(st.just("checkpoint"), st.floats(0, 1)),
        st.tuples(st.just("reopen"), st.booleans()),
        st.tuples(st.just("after"), st.integers(0, 60)),
        st.tuples(st.just("backup"), st.none()),
    ),
    max_size=40,
)


@given(ops, st.booleans())
def test_local_journal_behaves_like_the_model(
    script: list[tuple[str, Any]], prealloc: bool
) -> None:
    with tempfile.TemporaryDirectory() as d:
        cfg = JournalConfig(
            path=d, session_id="h", sync_policy="none", segment_bytes=4096, preallocate=prealloc
        )
        model = MemoryJournal()
        real = LocalJournal(cfg)
        try:
            for op, arg in script:
                if op == "append":
                    assert real.append(arg) == model.append(arg)
                elif op == "batch":
                    assert real.append_batch(arg) == model.append_batch(arg)
                elif op == "checkpoint":
                    seq = int(arg * model.stats().last_seq_num)
                    real.checkpoint(seq)
                    model.checkpoint(seq)
                elif op == "reopen":
                    real.close()
                    real = LocalJournal(cfg)
                    if arg:  # and restore it from its own backup
                        buf = io.BytesIO()
                        real.backup(buf)
                        buf.seek(0)
                        real.restore(buf)
                elif op == "after":
                    assert real.replay(after_seq=arg) == model.replay(after_seq=arg)
                else:
                    buf = io.BytesIO()
                    real.backup(buf)
                    buf.seek(0)
                    copy = MemoryJournal()
                    copy.restore(buf)
                    assert copy.replay() == model.replay()
                assert real.replay() == model.replay()
                a, b = real.stats(), model.stats()
                assert (a.last_seq_num, a.total_deltas) == (b.last_seq_num, b.total_deltas)
                assert a.checkpoint_seq == b.checkpoint_seq
        finally:
            real.close()
