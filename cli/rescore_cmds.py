"""CLI commands: rescore."""
