"""Shared pytest fixtures (each area adds its own below, keeping them small)."""

from __future__ import annotations
