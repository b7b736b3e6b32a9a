"""Uses the public API as a user would; `mypy --strict` checks this file (make lint)."""

from __future__ import annotations

import crs


def test_errors_are_typed() -> None:
    err: crs.CRSError = crs.InvalidArgumentError("tool: must be a non-empty string")
    assert isinstance(err, ValueError)
    contract = crs.ContractError("bad", [{"loc": ("workers", 0), "msg": "bad", "type": "x"}])
    details: list[crs.ContractErrorDetails] = contract.errors()
    assert details[0]["loc"] == ("workers", 0)
    version: str = crs.__version__
    assert version
