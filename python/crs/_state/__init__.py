"""The reasoning state as data: what it holds, how it changes, how it is read and written out.

`_deltas` (the eight deltas and `DeltaType`), `_index_mask` (which indexes a change touched),
`_snapshot` (the O(1) read-only view and its index views), `_delta_history` (the bounded record
of applied deltas), `_analytics` (analytics records), `_graph` (the dependency graph and its
query cache), `_ops` (`OpKind`, the kinds of the operations a delta hands the Rust state),
`_codec` (a delta or op as a journal payload), `_image` (the whole state as one
document) and `_serializer` (the seed's JSON export and import). The state itself lives in Rust
(`crs._core.StateCore`). Modules here may import `crs._core`, `crs._errors`, `crs._types` and
each other, nothing else at run time; the `CRS` facade (`crs._crs`) builds on them.
"""
