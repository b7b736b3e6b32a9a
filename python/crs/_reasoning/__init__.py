"""The decision half of the seed: what an agent did, what it learned, and what it may do next.

`_steps` (the step store and its id/encodability checks), `_proof` (proof numbers and the
circuit breaker), `_clauses` and `_clause_store` (learned clauses and the CDCL-style store),
`_failure` (a clause derived from a failure), `_cycle` and `_cycles_session` (the cycle
detector and per-session cycle analysis), `_semantic` (MinHash similarity memory), `_guards`
(`Guards`: these as a part of `CRS` holding its state kernel), `_trace` and `_sanitizer`
(reasoning traces and the secret redaction they pass through). Modules here may import
`crs._core`, `crs._errors`, `crs._types`, `crs._state` and each other; never the kernel or the
facade (`crs._kernel`, `crs._crs`; a part is handed its kernel) or anything above them.
"""
