"""CLI commands: human labelling of a run in the browser (``judge label``) and its export."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from cli.base import app, guarded

DEFAULT_PORT = 8765


class DefaultGroup(TyperGroup):
    """A group whose first argument, when it is not a subcommand, goes to ``default_command``
    (so ``judge label RUN --annotator NAME`` is ``judge label serve RUN --annotator NAME``)."""

    default_command = "serve"

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's click Context
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [self.default_command, *args]
        result: list[str] = super().parse_args(ctx, args)
        return result


label_app = typer.Typer(
    cls=DefaultGroup,
    help="Blinded human labelling of a run in the browser, and the export for `judge agree`.\n\n"
    "Example: judge label runs/main --annotator alice --sample 200 --seed 0 --stratify config",
    no_args_is_help=True,
)
app.add_typer(label_app, name="label")


class StratifyBy(StrEnum):
    config = "config"
    gate = "gate"


RunArg = Annotated[
    Path,
    typer.Argument(help="Run directory (output of `judge run`).", show_default=False),
]


@label_app.command("serve")
def serve_cmd(
    run: RunArg,
    annotator: Annotated[
        str,
        typer.Option(
            "--annotator",
            help="Your name as it appears in the labels CSV (letters, digits, _ . @ -).",
            show_default=False,
        ),
    ],
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            help="Label a sample of N cases (drawn once per run: every annotator gets the same "
            "cases). Default: every case with a rendered pair.",
            min=1,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sample draw.")] = 0,
    stratify: Annotated[
        StratifyBy | None,
        typer.Option(
            "--stratify",
            help="Draw the sample evenly across configurations or across the judge's gates.",
        ),
    ] = None,
    port: Annotated[
        int,
        typer.Option("--port", help="Port on 127.0.0.1 (0 = any free port).", min=0, max=65535),
    ] = DEFAULT_PORT,
) -> None:
    """Serve the blinded labelling page for one annotator on 127.0.0.1 (Ctrl-C stops it).

    `judge label RUN ...` is short for `judge label serve RUN ...`. Each annotator runs their
    own page (another --port); labels are saved as they are given in RUN/labelling/labels.sqlite.

    Example: judge label runs/main --annotator alice --sample 200 --stratify config --port 8765
    """
    from scoring.labelling.server import LabelPage, load_run_taxonomy, make_server
    from scoring.labelling.study import open_study

    def go() -> Any:
        study = open_study(
            run,
            annotator,
            size=sample,
            seed=seed,
            stratify=stratify.value if stratify is not None else None,
        )
        page = LabelPage(study, load_run_taxonomy(run))
        return study, make_server(page, port)

    study, server = guarded(go)
    done = sum(1 for s in study.store.labels(annotator) if s.label.gate is not None)
    left = (
        f"; {study.left_out} case(s) without a rendered pair not offered" if study.left_out else ""
    )
    _serve(server, f"labelling {len(study.order)} case(s) as {annotator} ({done} done{left})")


def _serve(server: Any, intro: str) -> None:
    """Print where the page is and serve until Ctrl-C."""
    from scoring.labelling.server import url_of

    typer.echo(intro)
    typer.echo(f"open {url_of(server)} in a browser; Ctrl-C stops the server")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        typer.echo("stopped; answers are saved")
    finally:
        server.server_close()


@label_app.command("export")
def export_cmd(
    run: RunArg,
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="CSV file to write (the format `judge agree` reads).", show_default=False
        ),
    ],
) -> None:
    """Export every finished label of a run's labelling study to a labels CSV.

    Columns: case_id,annotator,gate,subtypes (what `judge agree` needs), then gate_stage,
    gate_reason and fractions (subtype=fraction;...).

    Example: judge label export runs/main --out labels.csv
    """
    from judge.errors import LabelsError
    from scoring.labelling.store import LabelStore, export_labels
    from scoring.labelling.study import store_path

    def go() -> Any:
        path = store_path(run)
        if not path.is_file():
            raise LabelsError(f"{run}: no labelling study yet (start one with `judge label`)")
        return export_labels(LabelStore(path), out)

    summary = guarded(go)
    note = (
        f"; {summary.unfinished} started but without a gate, left out" if summary.unfinished else ""
    )
    typer.echo(
        f"wrote {summary.path}: {summary.rows} label(s) of {summary.cases} case(s) by "
        f"{len(summary.annotators)} annotator(s) ({', '.join(summary.annotators)}){note}"
    )


PairDirArg = Annotated[
    Path,
    typer.Argument(
        help="A/B pair-set folder with pairs.json (written by a preference export).",
        show_default=False,
    ),
]


@label_app.command("pairs")
def pairs_cmd(
    folder: PairDirArg,
    annotator: Annotated[
        str,
        typer.Option("--annotator", help="Your name in the preferences CSV.", show_default=False),
    ],
    port: Annotated[
        int,
        typer.Option("--port", help="Port on 127.0.0.1 (0 = any free port).", min=0, max=65535),
    ] = DEFAULT_PORT,
) -> None:
    """Serve the blinded A/B preference page for one annotator (left/right/tie per pair).

    Candidates appear as left and right (A's side is shuffled per annotator and pair); answers
    are saved as given in FOLDER/labelling/labels.sqlite.

    Example: judge label pairs prefs/ --annotator alice --port 8770
    """
    from scoring.labelling.pairs import PairPage, open_pair_study
    from scoring.labelling.server import make_server

    def go() -> Any:
        study = open_pair_study(folder, annotator)
        return study, make_server(PairPage(study), port)

    study, server = guarded(go)
    done = sum(1 for s in study.store.preferences(annotator) if s.label.choice is not None)
    _serve(server, f"comparing {len(study.order)} pair(s) as {annotator} ({done} done)")


@label_app.command("pairs-export")
def pairs_export_cmd(
    folder: PairDirArg,
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="CSV file to write (pair_id,annotator,choice,reason).", show_default=False
        ),
    ],
) -> None:
    """Export every answered A/B pair: choice a, b or tie in the pair set's terms.

    Example: judge label pairs-export prefs/ --out prefs.csv
    """
    from judge.errors import LabelsError
    from scoring.labelling.store import PreferenceStore, export_preferences
    from scoring.labelling.study import store_path

    def go() -> Any:
        path = store_path(folder)
        if not path.is_file():
            raise LabelsError(f"{folder}: no answers yet (start with `judge label pairs`)")
        return export_preferences(PreferenceStore(path), out)

    summary = guarded(go)
    typer.echo(
        f"wrote {summary.path}: {summary.rows} answer(s) on {summary.cases} pair(s) by "
        f"{len(summary.annotators)} annotator(s) ({', '.join(summary.annotators)})"
    )
