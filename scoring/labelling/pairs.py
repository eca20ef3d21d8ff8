"""A/B preference pairs on the same page machinery (``judge label pairs DIR --annotator NAME``).

A pair set is a folder written by a preference exporter::

    DIR/pairs.json        PreferencePairs: the question and, per pair, an id and the image paths
                          (relative to DIR) of the reference, candidate A and candidate B
      or DIR/pairs.csv    what ``judge prefs export`` writes: ``pair_id,task_id,image``, one
                          composite image per pair (reference | A | B, captioned)
    DIR/images/...        the images
    key file              which configuration is A and B, per pair: never read here

Answers go to ``DIR/labelling/labels.sqlite`` (table ``preferences``), exported with
``judge label pairs-export DIR --out prefs.csv`` as ``pair_id,annotator,winner,reason`` with
``winner`` in the pair set's terms (``a``, ``b``, ``tie``): ``judge prefs fit prefs.csv --key
KEY`` reads it as it is (each annotator's answer is one comparison).

Blinding on top of the exporter's: the page addresses pairs by HMAC ids (secret in
``DIR/labelling/secret``), shows them in a per-annotator order, and puts A on the left or the
right per annotator and pair (seeded by both), so a side bias does not become an A/B bias
(a composite image has its sides drawn in: there the page says A and B); it never sends the
pair set's own ids, task ids or image file names.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from judge.errors import LabelsError
from judge.rundir import first_problem
from judge.schema import PreferenceChoice, PreferenceLabel, PreferencePair, PreferencePairs
from scoring.labelling.server import (
    Reply,
    error_reply,
    json_reply,
    png_reply,
    route,
)
from scoring.labelling.store import PreferenceStore
from scoring.labelling.study import (
    annotator_order,
    check_annotator,
    opaque_id,
    run_secret,
    store_path,
)

PAIRS_FILE = "pairs.json"
PAIRS_CSV = "pairs.csv"
"""The pair list of ``judge prefs export`` (``pair_id,task_id,image``)."""
Side = Literal["left", "right", "tie"]
SIDES = ("left", "right", "tie", None)
"""What the page may answer (None: not decided yet)."""


@dataclass(frozen=True)
class OfferedPair:
    pair_id: str
    reference: Path | None
    a: Path | None
    b: Path | None
    composite: Path | None
    """One image holding reference, A and B (its sides are fixed: A is on the left)."""
    a_on_left: bool
    """Where this annotator sees candidate A."""

    def to_choice(self, side: Side) -> PreferenceChoice:
        """The pair-set choice (``a``/``b``/``tie``) for the side the annotator picked."""
        if side == "tie":
            return "tie"
        return "a" if (side == "left") == self.a_on_left else "b"

    def to_side(self, choice: str | None) -> str | None:
        if choice is None or choice == "tie":
            return choice
        return "left" if (choice == "a") == self.a_on_left else "right"


def a_on_left(annotator: str, pair_id: str) -> bool:
    """Seeded side of candidate A for one annotator and pair."""
    return hashlib.sha256(f"{annotator}\0{pair_id}".encode()).digest()[0] % 2 == 0


def _inside(folder: Path, rel: str, where: str) -> Path:
    path = (folder / rel).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise LabelsError(f"{where}: {rel!r} leaves the pair-set folder")
    if not path.is_file():
        raise LabelsError(f"{where}: {rel!r} does not exist")
    return path


def load_pairs(folder: Path) -> PreferencePairs:
    """``DIR/pairs.json``, checked (unique ids, images inside DIR and present)."""
    path = Path(folder) / PAIRS_FILE
    if not path.is_file() and (Path(folder) / PAIRS_CSV).is_file():
        path = Path(folder) / PAIRS_CSV
        pairs = _pairs_from_csv(path)
    else:
        try:
            pairs = PreferencePairs.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise LabelsError(
                f"{path}: no pair set here (pairs.json, or the pairs.csv of `judge prefs export`)"
            ) from None
        except ValidationError as exc:
            raise LabelsError(f"{path}: not a pair set: {first_problem(exc)}") from None
    seen: set[str] = set()
    for i, pair in enumerate(pairs.pairs):
        where = f"{path}: pairs[{i}]"
        if pair.id in seen:
            raise LabelsError(f"{where}: id {pair.id!r} appears twice")
        seen.add(pair.id)
        for rel in (pair.a, pair.b, pair.image, pair.reference):
            if rel is not None:
                _inside(Path(folder), rel, where)
    return pairs


def _pairs_from_csv(path: Path) -> PreferencePairs:
    """The ``pairs.csv`` of ``judge prefs export`` as a pair set (composite images)."""
    try:
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"{path}: cannot read the pair list: {exc}") from None
    if not rows or not {"pair_id", "image"} <= set(rows[0]):
        raise LabelsError(f"{path}:1: need columns pair_id,image (a `judge prefs export` list)")
    try:
        return PreferencePairs(
            pairs=[PreferencePair(id=r["pair_id"].strip(), image=r["image"].strip()) for r in rows]
        )
    except ValidationError as exc:
        raise LabelsError(f"{path}: not a pair list: {first_problem(exc)}") from None


@dataclass(frozen=True)
class PairStudy:
    folder: Path
    annotator: str
    question: str
    store: PreferenceStore
    pairs: dict[str, OfferedPair]
    """By opaque id."""
    order: list[str]


def open_pair_study(folder: Path, annotator: str) -> PairStudy:
    folder = Path(folder)
    check_annotator(annotator)
    spec = load_pairs(folder)
    secret = run_secret(folder)
    by_id = {p.id: p for p in spec.pairs}
    order = annotator_order(list(by_id), annotator)
    offered: dict[str, OfferedPair] = {}
    oids = []
    for pid in order:
        p = by_id[pid]
        oid = opaque_id(secret, pid)
        oids.append(oid)
        offered[oid] = OfferedPair(
            pair_id=pid,
            reference=(folder / p.reference).resolve() if p.reference else None,
            a=(folder / p.a).resolve() if p.a else None,
            b=(folder / p.b).resolve() if p.b else None,
            composite=(folder / p.image).resolve() if p.image else None,
            a_on_left=p.image is not None or a_on_left(annotator, pid),
        )
    return PairStudy(
        folder=folder,
        annotator=annotator,
        question=spec.question,
        store=PreferenceStore(store_path(folder)),
        pairs=offered,
        order=oids,
    )


class PairPage:
    """Routes of the A/B page (same HTTP layer as :class:`scoring.labelling.server.LabelPage`)::

    GET /, /assets/<file>; GET /api/state; GET /api/pairs/<id>;
    PUT|POST /api/pairs/<id>/label  {"choice": "left"|"right"|"tie"|null, "reason": str};
    GET /api/pairs/<id>/<reference|left|right>.png
    """

    def __init__(self, study: PairStudy) -> None:
        self.study = study

    def respond(self, method: str, path: str, body: bytes) -> Reply:
        return route("pairs.html", method, path, body, self._api)

    def _api(self, method: str, parts: list[str], body: bytes) -> Reply:
        if parts == ["state"] and method == "GET":
            return json_reply(200, self.state())
        if len(parts) < 2 or parts[0] != "pairs" or parts[1] not in self.study.pairs:
            return error_reply(HTTPStatus.NOT_FOUND, "no such pair or API route")
        oid = parts[1]
        if len(parts) == 2 and method == "GET":
            return json_reply(200, self.pair(oid))
        if parts[2:] == ["label"] and method in ("PUT", "POST"):
            return self.save(oid, body)
        if len(parts) == 3 and method == "GET":
            pair = self.study.pairs[oid]
            left, right = (pair.a, pair.b) if pair.a_on_left else (pair.b, pair.a)
            images = {
                "reference.png": pair.reference,
                "left.png": left,
                "right.png": right,
                "composite.png": pair.composite,
            }
            if parts[2] in images:
                return png_reply(images[parts[2]], f"{parts[2]} of pair {oid!r}")
        return error_reply(HTTPStatus.NOT_FOUND, "no such API route")

    def _progress(self) -> dict[str, Any]:
        answered = {
            s.pair_id
            for s in self.study.store.preferences(self.study.annotator)
            if s.label.choice is not None
        }
        done = {oid for oid in self.study.order if self.study.pairs[oid].pair_id in answered}
        first_open = next((o for o in self.study.order if o not in done), None)
        return {"done": len(done), "total": len(self.study.order), "current": first_open}

    def state(self) -> dict[str, Any]:
        return {
            "mode": "pairs",
            "annotator": self.study.annotator,
            "question": self.study.question,
            "order": self.study.order,
            **self._progress(),
        }

    def pair(self, oid: str) -> dict[str, Any]:
        pair = self.study.pairs[oid]
        stored = self.study.store.get_preference(self.study.annotator, pair.pair_id)
        return {
            "id": oid,
            "position": self.study.order.index(oid) + 1,
            "total": len(self.study.order),
            "label": (
                {"choice": pair.to_side(stored.label.choice), "reason": stored.label.reason}
                if stored
                else None
            ),
            "sides": ["A", "B"] if pair.composite else ["left", "right"],
            "images": {
                "reference": f"/api/pairs/{oid}/reference.png" if pair.reference else None,
                "left": f"/api/pairs/{oid}/left.png" if pair.a else None,
                "right": f"/api/pairs/{oid}/right.png" if pair.b else None,
                "composite": f"/api/pairs/{oid}/composite.png" if pair.composite else None,
            },
        }

    def save(self, oid: str, body: bytes) -> Reply:
        """Store the answer, given in sides (``left``/``right``/``tie``), in A/B terms."""
        pair = self.study.pairs[oid]
        try:
            data = json.loads(body)
        except ValueError:
            return error_reply(HTTPStatus.BAD_REQUEST, "invalid answer: not JSON")
        if not isinstance(data, dict) or set(data) - {"choice", "reason"}:
            return error_reply(HTTPStatus.BAD_REQUEST, "invalid answer: only choice and reason")
        side = data.get("choice")
        if side not in SIDES:
            return error_reply(
                HTTPStatus.BAD_REQUEST, "invalid answer: choice must be left, right, tie or null"
            )
        try:
            label = PreferenceLabel(
                choice=pair.to_choice(side) if side is not None else None,
                reason=data.get("reason", ""),
            )
        except ValidationError as exc:
            return error_reply(HTTPStatus.BAD_REQUEST, f"invalid answer: {first_problem(exc)}")
        stored = self.study.store.save_preference(self.study.annotator, pair.pair_id, label)
        return json_reply(200, {"saved_at": stored.updated, **self._progress()})
