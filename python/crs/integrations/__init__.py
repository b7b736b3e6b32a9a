"""Integrations with agent frameworks: one module per framework, each importing its framework
only when it is itself imported (`import crs` imports none of them)."""
