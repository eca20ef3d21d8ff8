"""Entry point of the ``judge`` console script: the app with every command registered."""

from __future__ import annotations

import typer

# Each module registers its commands on the shared app when imported.
from cli import (  # noqa: F401
    behaviour_cmds,
    generate_cmds,
    label_cmds,
    pair_cmds,
    protocol_cmds,
    render_cmds,
    rescore_cmds,
    run_cmds,
    stage0_cmds,
    study_cmds,
    taxonomy_cmds,
    tools_cmds,
)
from cli.base import app
from judge import __version__

__all__ = ["app", "main"]


@app.command("version")
def version_cmd() -> None:
    """Print the pptjudge version.

    Example: judge version
    """
    typer.echo(f"pptjudge {__version__}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
