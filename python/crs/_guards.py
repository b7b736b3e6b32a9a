"""Placeholder for the agent-loop guards (owned by the "guards" helper; see CONTRACT.md)."""

from __future__ import annotations

from typing import Any


class GuardsMixin:
    def _guards_init(self) -> None: ...
    def _guards_export(self) -> dict[str, Any]:
        return {}

    def _guards_import(self, data: dict[str, Any]) -> None: ...
