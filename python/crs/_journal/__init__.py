"""Journals: the append-only log every committed change is written to, behind one protocol.

`_base` (the `Journal` protocol, configs, codecs, `MemoryJournal`, backup streams), `_local`
(`LocalJournal`: segment files on the local disk, CRC-framed, one writer by lock), `_nats_async`
and `_nats` (JetStream journals, async and sync; the optional `nats` package is imported only
there), `_watch` (`StreamDelta` summaries and `crs journal watch`). Modules here may import
`crs._core`, `crs._errors`, `crs._types` and each other; only `_watch` also reads
`crs._state._codec` (to decode a CRS's payloads). Nothing here knows the `CRS` facade.
"""
