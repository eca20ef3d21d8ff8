"""A labelling study of one run: the cases offered, their opaque ids and each annotator's order.

* **Offered cases** are the run's cases that have a normalised pair (``pair.png``) and a render:
  a case Stage 0 stopped before rendering has nothing to look at and is left out (counted).
* **The sample** (``--sample N --seed S --stratify config|gate``) is drawn once, by the first
  ``judge label`` of the run, and kept in the store: every annotator labels the same cases, and a
  later start with other sampling options is refused instead of silently labelling other cases.
  ``--stratify config`` (or ``gate``, the judge's case gate) takes the groups in turn, so each
  configuration (or judge gate) gets an equal share as far as its cases allow; the strata stay
  on the server, the page never sees them.
* **Opaque ids** are the first :data:`ID_HEX` hex digits of HMAC-SHA256(secret, case id), with a
  random secret kept in ``RUN/labelling/secret`` (a case id holds its configuration's name; the
  page and its requests only ever carry opaque ids).
* **The order** of an annotator is a permutation of the sample seeded by the sha256 of the
  annotator's name: stable across reloads and restarts, different between annotators.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from judge.errors import BenchmarkError, LabelsError
from judge.rundir import LABELLING, RUN_MANIFEST, case_dir, read_results
from judge.schema import PairGeometry, RunManifest
from scoring.labelling.store import LabelStore

SECRET_FILE = "secret"
DB_FILE = "labels.sqlite"
SECRET_HEX = 64
"""Length of the secret in hex digits (256 bits)."""
ID_HEX = 20
"""Hex digits of an opaque case id (80 bits of the HMAC)."""
ANNOTATOR_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
"""Annotator names: a letter or digit, then up to 63 letters, digits or ``_ . @ -``."""
SAMPLE_KEY = "sample"
"""Key of the drawn sample in the store's meta table."""

Stratify = Literal["config", "gate"]


def labelling_dir(run: Path) -> Path:
    return Path(run) / LABELLING


def store_path(run: Path) -> Path:
    return labelling_dir(run) / DB_FILE


def check_annotator(name: str) -> str:
    """The annotator name, or a LabelsError saying what a name may hold."""
    if not ANNOTATOR_PATTERN.match(name):
        raise LabelsError(
            f"annotator name {name!r}: use 1-64 letters, digits or _ . @ - "
            "(starting with a letter or digit)"
        )
    return name


def run_secret(run: Path) -> bytes:
    """The run's id secret, created on first use (atomically: two servers starting at once
    agree on one secret)."""
    folder = labelling_dir(run)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SECRET_FILE
    if not path.exists():
        tmp = folder / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(SECRET_HEX // 2) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # fails if another process created it first: theirs wins
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if not re.fullmatch(f"[0-9a-f]{{{SECRET_HEX}}}", text):
        raise LabelsError(
            f"{path}: not a labelling secret ({SECRET_HEX} hex digits); restore it from a "
            "backup (the opaque ids of the page depend on it)"
        )
    return bytes.fromhex(text)


def opaque_id(secret: bytes, case_id: str) -> str:
    """The id the page uses for ``case_id`` (reveals nothing without the secret)."""
    return hmac.new(secret, case_id.encode("utf-8"), hashlib.sha256).hexdigest()[:ID_HEX]


@dataclass(frozen=True)
class OfferedCase:
    """A case that can be labelled. Everything but the paths stays on the server."""

    case_id: str
    config_id: str
    task_id: str
    judge_gate: str
    """The judge's case gate (``errored`` for a case the judge could not decide); used only to
    stratify the sample."""
    pair: Path
    render: Path
    reference: Path | None
    """The full-resolution reference, when it can still be found."""


def _reference_of(run: Path, pair_json: Path, task_id: str) -> Path | None:
    """The reference the pair was made from, else the task's reference in the run's benchmark."""
    try:
        pair = PairGeometry.model_validate_json(pair_json.read_text(encoding="utf-8"))
        recorded = Path(pair.reference_image)
        if recorded.is_file():
            return recorded
    except (OSError, ValueError):
        pass
    try:
        manifest = RunManifest.model_validate_json(
            (Path(run) / RUN_MANIFEST).read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return None
    bench = Path(manifest.bench)
    if not bench.is_absolute():
        bench = Path(run).parent / bench
    ref = bench / "tasks" / task_id / "reference.png"
    return ref if ref.is_file() else None


def offered_cases(run: Path) -> tuple[list[OfferedCase], list[str]]:
    """(cases with a pair and a render, sorted by case id; ids of the cases left out)."""
    offered: list[OfferedCase] = []
    left_out: list[str] = []
    for res in sorted(read_results(run), key=lambda c: c.case_id):
        cd = case_dir(run, res.config_id, res.task_id)
        if not (cd.pair_png.is_file() and cd.render_png.is_file()):
            left_out.append(res.case_id)
            continue
        offered.append(
            OfferedCase(
                case_id=res.case_id,
                config_id=res.config_id,
                task_id=res.task_id,
                judge_gate=res.gate if res.error is None and res.gate is not None else "errored",
                pair=cd.pair_png,
                render=cd.render_png,
                reference=_reference_of(run, cd.pair_json, res.task_id),
            )
        )
    return offered, left_out


def draw_sample(
    cases: Sequence[OfferedCase], size: int | None, seed: int, stratify: Stratify | None
) -> list[str]:
    """Case ids of the sample, sorted. ``size`` None (or at least the number of cases) takes
    every case; with ``stratify`` the strata (sorted by name) take turns, each in a shuffled
    order, until ``size`` cases are drawn."""
    ids = sorted(c.case_id for c in cases)
    if size is None or size >= len(ids):
        return ids
    if size < 1:
        raise LabelsError(f"--sample {size}: the sample needs at least one case")
    rng = np.random.default_rng(seed)
    if stratify is None:
        picked = rng.choice(len(ids), size=size, replace=False)
        return sorted(ids[int(i)] for i in picked)
    strata: dict[str, list[str]] = {}
    for c in sorted(cases, key=lambda c: c.case_id):
        key = c.config_id if stratify == "config" else c.judge_gate
        strata.setdefault(key, []).append(c.case_id)
    queues = [
        [members[int(i)] for i in rng.permutation(len(members))]
        for _, members in sorted(strata.items())
    ]
    chosen: list[str] = []
    while len(chosen) < size:
        for queue in queues:
            if queue and len(chosen) < size:
                chosen.append(queue.pop(0))
    return sorted(chosen)


def annotator_order(case_ids: Sequence[str], annotator: str) -> list[str]:
    """The sample in the order ``annotator`` labels it (seeded by the name's sha256)."""
    ids = sorted(case_ids)
    seed = int.from_bytes(hashlib.sha256(annotator.encode("utf-8")).digest()[:8], "big")
    perm = np.random.default_rng(seed).permutation(len(ids))
    return [ids[int(i)] for i in perm]


def _sample_options(size: int | None, seed: int, stratify: str | None) -> str:
    if size is None:
        return "every offered case (no --sample)"
    return f"--sample {size} --seed {seed}" + (f" --stratify {stratify}" if stratify else "")


@dataclass(frozen=True)
class Study:
    """One annotator's view of a run's labelling study."""

    run: Path
    annotator: str
    store: LabelStore
    cases: dict[str, OfferedCase]
    """By opaque id."""
    order: list[str]
    """Opaque ids in this annotator's order."""
    left_out: int
    """Cases of the run without a pair or render (not offered)."""

    def case_of(self, oid: str) -> OfferedCase | None:
        return self.cases.get(oid)


def open_study(
    run: Path,
    annotator: str,
    *,
    size: int | None = None,
    seed: int = 0,
    stratify: Stratify | None = None,
) -> Study:
    """Open (or start) the labelling study of ``run`` for ``annotator``.

    The first call draws and stores the sample; later calls reuse it, and refuse sampling
    options that differ from the stored ones (``size`` None accepts the stored sample).
    """
    run = Path(run)
    check_annotator(annotator)
    offered, left_out = offered_cases(run)
    if not offered:
        raise BenchmarkError(
            f"{run}: no case has a normalised pair to label ({len(left_out)} cases, none rendered)"
        )
    by_id = {c.case_id: c for c in offered}
    store = LabelStore(store_path(run))
    wanted = {
        "size": size,
        "seed": seed if size is not None else None,
        "stratify": stratify if size is not None else None,
    }
    proposal = json.dumps({**wanted, "case_ids": draw_sample(offered, size, seed, stratify)})
    stored = json.loads(store.meta_setdefault(SAMPLE_KEY, proposal))
    params = {k: stored.get(k) for k in ("size", "seed", "stratify")}
    if size is not None and params != wanted:
        raise LabelsError(
            f"{store.path}: this run's sample was drawn with "
            f"{_sample_options(params['size'], params['seed'] or 0, params['stratify'])}; "
            "start `judge label` with the same options, or with no --sample"
        )
    missing = [cid for cid in stored["case_ids"] if cid not in by_id]
    if missing:
        raise LabelsError(
            f"{store.path}: {len(missing)} case(s) of the stored sample are no longer in the run "
            "with a normalised pair (was the run judged again?)"
        )
    secret = run_secret(run)
    order = annotator_order(stored["case_ids"], annotator)
    oids = [opaque_id(secret, cid) for cid in order]
    return Study(
        run=run,
        annotator=annotator,
        store=store,
        cases={oid: by_id[cid] for oid, cid in zip(oids, order, strict=True)},
        order=oids,
        left_out=len(left_out),
    )
