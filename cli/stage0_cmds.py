"""CLI commands: stage0."""
