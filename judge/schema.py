"""The contracts: every record that crosses a stage boundary or lands on disk.

This is the one module readers of ``results.jsonl``, round files and trajectories depend on.
Each on-disk record carries ``version`` (:data:`SCHEMA_VERSION`).

Units are stated per field. Three frames appear:

* **slide frame** -- fractions of the slide width/height, origin top-left, 0-1 inside the slide
  (objects may lie partly outside, so values can leave 0-1);
* **image frame** -- pixels of one full-resolution image (the reference PNG or the render PNG);
* **panel frame** -- pixels of one 1200x900 normalised panel (see :class:`PairGeometry`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

SCHEMA_VERSION = 1


class Model(BaseModel):
    """Base for every contract: unknown fields are errors, so typos never pass silently."""

    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------------------------
# Geometry


class Box(Model):
    """An axis-aligned box. The unit is the frame named by the field that holds it."""

    x: float
    y: float
    w: float = Field(ge=0)
    h: float = Field(ge=0)

    @property
    def x2(self) -> float:
        return self.x + self.w

    @property
    def y2(self) -> float:
        return self.y + self.h


# --------------------------------------------------------------------------------------------
# Benchmark inputs


class Task(Model):
    """One task: a reference diagram and its approved assets (``task.json``, optional)."""

    id: str
    domain: str | None = None
    assets: list[str] = Field(default_factory=list)
    """Asset file names, relative to ``tasks/<id>/assets/``."""


class Candidate(Model):
    """One candidate deck: configuration x task."""

    case_id: str
    """``"<config_id>/<task_id>"``."""
    task_id: str
    config_id: str
    pptx: str
    """Path of the candidate PPTX."""
    reference: str
    """Path of the task's reference PNG."""
    assets_dir: str | None = None
    missing: str | None = None
    """Set when there is no deck because ``judge generate`` recorded a failed episode for the
    task (the reason); the case then fails Stage 0 (``opens``) and scores 0."""


# --------------------------------------------------------------------------------------------
# Stage 0: the artifact gate

CHECK_NAMES = (
    "opens",
    "safe_to_read",
    "one_slide",
    "editable_components",
    "no_external_relationships",
    "no_embedded_fonts",
    "no_embedded_objects",
    "no_activex",
    "no_macros",
    "object_bounds",
    "no_reference_copy",
    "fully_screened",
    "no_rendered_copy",
    "renders",
)
"""Stage 0 check names, in the order they run. ``artifact_failures`` lists names from here."""


class CheckResult(Model):
    """One named Stage 0 check."""

    name: str
    passed: bool
    detail: str
    """Human-readable: what was found, naming the package part or shape at fault."""
    parts: list[str] = Field(default_factory=list)
    """The package parts (``ppt/slides/slide1.xml``) or shapes (``"Picture 3" (id 4)``) at fault."""
    skipped: bool = False
    """True when an earlier failure made this check impossible (it then counts as failed)."""


class ObjectAudit(Model):
    """Counts of slide objects (group members are counted by their own type)."""

    text_boxes: int = 0
    autoshapes: int = 0
    connectors: int = 0
    lines: int = 0
    """Straight lines and freeforms (custom geometry)."""
    groups: int = 0
    tables: int = 0
    pictures: int = 0
    charts: int = 0
    other: int = 0
    editable_components: int = 0
    """Drawn native editable components: shapes, text boxes, connectors, lines/freeforms,
    tables and group members with visible ink of at least 1% of the slide's shorter side, on
    the slide. Pictures, groups themselves and charts do not count."""
    undrawn_components: int = 0
    """Editable objects that draw nothing visible (no ink in a colour differing from what is
    under them, too small, hidden or off the slide): not counted."""
    picture_area_ratio: float = 0.0
    """Sum of picture areas (clipped to the slide) over the slide area, 0-1."""


class ArtifactReport(Model):
    """The Stage 0 report of one candidate (``stage0.json`` in a case folder)."""

    version: int = SCHEMA_VERSION
    path: str
    valid: bool
    checks: list[CheckResult] = Field(default_factory=list)
    audit: ObjectAudit | None = None
    slide_width_pt: float | None = None
    slide_height_pt: float | None = None
    error: str | None = None
    """Set when the file could not be checked at all (not the same as invalid)."""
    seconds: float = 0.0

    @property
    def failures(self) -> list[str]:
        return [c.name for c in self.checks if not c.passed]


# --------------------------------------------------------------------------------------------
# The candidate's object tree (read from the PPTX by judge.artifact.ooxml; no EMU or XML past it)

ObjectType = Literal[
    "text_box",
    "autoshape",
    "connector",
    "line",
    "freeform",
    "group",
    "table",
    "picture",
    "chart",
    "placeholder",
    "other",
]


class SlideObject(Model):
    """One shape of the slide, in z-order (``z`` = index in the flattened shape list)."""

    id: int
    """The shape id from the PPTX (``p:cNvPr/@id``)."""
    z: int
    """Index in the flattened, depth-first shape list (z-order, group members after their group)."""
    type: ObjectType
    name: str
    bbox: Box
    """Slide frame (fractions of slide width/height). For group members: absolute, after the
    group transforms are applied."""
    rotation: float = 0.0
    """Degrees clockwise."""
    flip_h: bool = False
    flip_v: bool = False
    geometry: str | None = None
    """Preset geometry (``rect``, ``roundRect``, ``straightConnector1``, ...), ``custom`` for
    freeforms, None when not a shape."""
    adjustments: list[float] = Field(default_factory=list)
    """Preset adjustment values (e.g. corner radius of a ``roundRect``), as python-pptx gives."""
    text: str = ""
    """All text of the shape, paragraphs joined by newlines (tables: cells joined)."""
    font_sizes_pt: list[float] = Field(default_factory=list)
    """Distinct explicit font sizes of its runs, in points (empty when inherited)."""
    font_names: list[str] = Field(default_factory=list)
    bold: bool | None = None
    italic: bool | None = None
    text_rgb: str | None = None
    """First explicit run colour as ``RRGGBB``."""
    fill_rgb: str | None = None
    """Solid fill as ``RRGGBB``, resolved through the shape style, theme and colour map (so a
    default python-pptx autoshape reports its theme accent); None when no fill or not solid."""
    line_rgb: str | None = None
    line_width_pt: float | None = None
    dash: str | None = None
    """Preset dash (``dash``, ``sysDot``, ...); None for solid or inherited."""
    head_end: str | None = None
    """Arrowhead at the start point (``triangle``, ``stealth``, ...) or None."""
    tail_end: str | None = None
    """Arrowhead at the end point or None."""
    path_ends: list[tuple[float, float]] | None = None
    """Open freeforms (a custom path that is not closed): its first and last points, slide
    frame fractions (flips applied, rotation not): where a drawn line really starts and ends,
    which its box's corners do not say for a curve."""
    begin_id: int | None = None
    """Connectors: the shape id glued at the start, if any."""
    end_id: int | None = None
    parent_id: int | None = None
    """The id of the group holding this shape, if any."""
    shadow: bool = False
    has_text_frame: bool = False
    word_wrap: bool | None = None
    autofit: str | None = None
    """``none``, ``normal`` (shrink), ``shape`` (resize shape), or None when inherited."""


class ObjectTree(Model):
    """Everything the judge knows about the candidate's structure."""

    version: int = SCHEMA_VERSION
    slide_width_pt: float
    slide_height_pt: float
    objects: list[SlideObject] = Field(default_factory=list)
    background_rgb: str | None = None
    """RRGGBB of the slide's background (slide, layout or master) when it is one colour; None
    when unknown or not one colour (white is then assumed where it matters)."""


# --------------------------------------------------------------------------------------------
# Rendering


class RenderProvenance(Model):
    """What a render depends on, so renders from two machines can be compared."""

    libreoffice_version: str
    font_list_hash: str
    """sha256 of the sorted ``fc-list`` family/style list of the machine."""
    requested_fonts: list[str] = Field(default_factory=list)
    """Font families the deck asks for (theme and runs)."""
    substituted_fonts: list[str] = Field(default_factory=list)
    """Requested families not installed here (LibreOffice substituted them)."""
    dpi: int
    rasteriser: str = "pdfium"


class RenderResult(Model):
    """One deck rendered to PNG (``render.json`` beside the PNG)."""

    version: int = SCHEMA_VERSION
    deck: str
    png: str
    width_px: int
    height_px: int
    seconds: float
    provenance: RenderProvenance


# --------------------------------------------------------------------------------------------
# Image preparation


class PanelMapping(Model):
    """How one full-resolution image was placed into its panel.

    panel_x = (image_x - crop_box.x) * scale + offset_x, and likewise for y. The pair image puts
    the panel at ``panel_left`` pixels from its left edge.
    """

    image_width: int
    image_height: int
    crop_box: Box
    """Image frame: the content box plus margin that was kept."""
    background_rgb: tuple[int, int, int]
    """Median border colour of the image, taken as its background."""
    scale: float
    """Panel pixels per image pixel."""
    offset_x: float
    offset_y: float
    panel_left: int
    """x of this panel's left edge in the pair image."""
    empty: bool = False
    """True when no content differed from the background (the whole image was kept)."""

    def panel_to_image(self, x: float, y: float) -> tuple[float, float]:
        return (
            (x - self.offset_x) / self.scale + self.crop_box.x,
            (y - self.offset_y) / self.scale + self.crop_box.y,
        )

    def image_to_panel(self, x: float, y: float) -> tuple[float, float]:
        return (
            (x - self.crop_box.x) * self.scale + self.offset_x,
            (y - self.crop_box.y) * self.scale + self.offset_y,
        )


class PairGeometry(Model):
    """The normalised pair: reference panel left, candidate panel right (``pair.json``)."""

    version: int = SCHEMA_VERSION
    panel_width: int
    panel_height: int
    gap: int
    reference: PanelMapping
    candidate: PanelMapping
    reference_image: str
    candidate_image: str
    pair_image: str


# --------------------------------------------------------------------------------------------
# Stage verdicts

Dimension = Literal["layout", "text", "graphics"]
StageName = Literal["semantic", "render", "detail", "rubric"]
"""``rubric``: the ReFigBench rubric stage (``judge run --protocol refigbench``)."""


class GateReason(Model):
    """One reason a gate failed (or a note why it passed)."""

    target: str = Field(min_length=1)
    """The node, edge or region concerned, e.g. ``edge "Encoder" -> "Decoder"``."""
    evidence: str = Field(min_length=1)
    """What was seen or measured, e.g. ``arrowhead at the Encoder end in the candidate``."""
    confirmed: bool = True
    """Whether the evidence confirms the discrepancy (only confirmed ones may fail a gate);
    unconfirmed ones are recorded for audit. A pass note is confirmed by definition."""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    """0-1: how sure the judge is of this reason."""
    reference_bbox: Box | None = None
    """Panel frame of the reference panel (pixels of its 1200x900 panel), when it has a place."""
    candidate_bbox: Box | None = None
    """Panel frame of the candidate panel (pixels of its 1200x900 panel), when it has a place."""


class GateVerdict(Model):
    """Stage 1 (semantic) or Stage 2 (render/text) verdict."""

    passed: bool
    reasons: list[GateReason] = Field(default_factory=list)
    measurements: dict[str, float] = Field(default_factory=dict)
    """Measured figures behind the verdict (e.g. ``overflowing_text_fraction``), 0-1 fractions."""

    @model_validator(mode="after")
    def _failed_needs_reason(self) -> GateVerdict:
        if not self.passed and not self.reasons:
            raise ValueError("a failed gate must give at least one reason")
        return self


class Finding(Model):
    """One Stage 3 observation, in taxonomy terms."""

    dimension: Dimension
    category: str
    subtype: str
    location: str = Field(min_length=1)
    """Where, in words (``node "Loss"``, ``edge 3 -> 4``)."""
    description: str = Field(min_length=1)
    affected_count: int = Field(default=1, ge=0)
    """How many elements of the category show this issue."""
    bbox: Box | None = None
    """Panel frame of the candidate panel (pixels), when the finding has a place."""
    reference_bbox: Box | None = None
    """Panel frame of the reference panel (pixels), where the reference shows the same place."""


class CategoryFraction(Model):
    """The affected fraction rho of one category in one round."""

    dimension: Dimension
    category: str
    fraction: float = Field(ge=0.0, le=1.0)
    """0-1: affected elements of the category over the elements of that kind in the reference."""


class DetailVerdict(Model):
    """Stage 3 verdict: findings only, never points."""

    findings: list[Finding] = Field(default_factory=list)
    fractions: list[CategoryFraction] = Field(default_factory=list)


RoundStatus = Literal["pass", "semantic", "render", "errored", "skipped"]
"""pass: both judged gates passed; semantic/render: that gate failed (a rejection);
errored: a stage never produced a valid verdict; skipped: early stop, could not change the case."""


class Usage(Model):
    """Model usage; zero for the builtin and replay backends."""

    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    cached_calls: int = 0
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost_usd is not None or other.cost_usd is not None:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            model_calls=self.model_calls + other.model_calls,
            tool_calls=self.tool_calls + other.tool_calls,
            cached_calls=self.cached_calls + other.cached_calls,
            cost_usd=cost,
        )


class RoundResult(Model):
    """One judged round (``rounds/round-<k>.json``)."""

    version: int = SCHEMA_VERSION
    case_id: str
    round_index: int = Field(ge=0)
    status: RoundStatus
    semantic: GateVerdict | None = None
    render: GateVerdict | None = None
    detail: DetailVerdict | None = None
    rubric: RubricVerdict | None = None
    """The ReFigBench rubric verdict (``--protocol refigbench`` rounds only)."""
    error: str | None = None
    backend: str = ""
    usage: Usage = Field(default_factory=Usage)
    """What judging this round cost; zero for a copy."""
    seconds: float = 0.0
    copied_from: int | None = None
    """Round this one is a copy of (a deterministic backend judges round 0 once); None when
    the round was judged."""

    @property
    def rejected(self) -> bool:
        return self.status in ("semantic", "render")


# --------------------------------------------------------------------------------------------
# Taxonomy (the data file's schema; the loader lives in taxonomy/)

Tier = Literal["high", "medium", "low", "diagnostic"]


class TaxonomySubtype(Model):
    name: str
    tier: Tier
    description: str = Field(min_length=1)


class TaxonomyCategory(Model):
    name: str
    description: str = ""
    subtypes: list[TaxonomySubtype]


class TaxonomyDimension(Model):
    name: Dimension
    weight: float = Field(gt=0)
    """Points of the dimension out of 100."""
    cap: float = Field(ge=0)
    """Most points the dimension can lose."""
    categories: list[TaxonomyCategory]


class StaircaseStep(Model):
    max_ratio: float = Field(gt=0, le=1)
    """Upper bound (inclusive) of the affected fraction rho for this step."""
    multiplier: float = Field(gt=0)


class Taxonomy(Model):
    version: str
    name: str = "pptbench"
    tiers: dict[Tier, float]
    """Severity base per tier."""
    staircase: list[StaircaseStep]
    dimensions: list[TaxonomyDimension]

    _index: dict[str, tuple[Dimension, str, TaxonomySubtype]] | None = PrivateAttr(default=None)

    def subtypes(self) -> dict[str, tuple[Dimension, str, TaxonomySubtype]]:
        """Every subtype by name -> (dimension, category, subtype), in file order.

        Built on first use; do not mutate the taxonomy afterwards (load a new one instead).
        """
        # Read the private slot directly: pydantic's __getattr__ for private attributes is slow
        # and this lookup sits in the scoring loop (rescoring runs call it per finding).
        private = self.__pydantic_private__
        cached = private.get("_index") if private else None
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        index: dict[str, tuple[Dimension, str, TaxonomySubtype]] = {}
        for dim in self.dimensions:
            for cat in dim.categories:
                for st in cat.subtypes:
                    index.setdefault(st.name, (dim.name, cat.name, st))
        self._index = index
        return index

    def subtype(self, name: str) -> tuple[Dimension, str, TaxonomySubtype]:
        """(dimension, category, subtype) of the subtype ``name``; KeyError when unknown."""
        return self.subtypes()[name]

    def categories(self) -> list[tuple[Dimension, TaxonomyCategory]]:
        """Every (dimension name, category), in file order."""
        return [(dim.name, cat) for dim in self.dimensions for cat in dim.categories]

    def dimension(self, name: str) -> TaxonomyDimension:
        """The dimension ``name``; KeyError when the taxonomy has none by that name."""
        for dim in self.dimensions:
            if dim.name == name:
                return dim
        raise KeyError(name)


# --------------------------------------------------------------------------------------------
# Sibling protocols: the ReFigBench rubric (its data file's schema and the verdicts), the
# FigCodeBench fidelity diagnostics and visual complexity (extra fields of a results line)

ProtocolName = Literal["pptbench", "refigbench"]
"""Which protocol made a run or a results line (``judge run --protocol``)."""


class RubricLevel(Model):
    """One anchor of a rubric axis: what a reconstruction earning ``fraction`` of it looks like."""

    fraction: float = Field(ge=0.0, le=1.0)
    """Share of the axis maximum this anchor stands for (0-1)."""
    anchor: str = Field(min_length=1)


class RubricAxis(Model):
    name: str
    max_points: float = Field(gt=0)
    description: str = Field(min_length=1)
    levels: list[RubricLevel]
    """From the best anchor (fraction 1.0) down to the worst (fraction 0.0)."""


class RubricCap(Model):
    """The raster-paste cap: a picture (or pictures) covering most of the canvas while the
    slide holds few native objects caps the score."""

    picture_area_min: float = Field(gt=0.0, le=1.0)
    """Picture area over canvas area (0-1) from which the cap may apply (ReFigBench: 0.85)."""
    max_native_objects: int = Field(ge=0)
    """"Few native objects": at most this many native editable components (pptjudge's choice)."""
    cap_score: float = Field(ge=0)
    """The most such a deck can score (ReFigBench: 50)."""


class RubricBuiltin(Model):
    """Constants of the built-in judge's measured version of the axes (pptjudge's choices)."""

    no_connector_factor: float = Field(ge=0.0, le=1.0)
    """Editability multiplier when the reference has edges and the deck no native connector."""
    layout_findings: list[str]
    """Taxonomy subtypes of the detail measurements that count against relative geometry."""
    detail_findings: list[str]
    """Taxonomy subtypes that count against visual detail."""


class Rubric(Model):
    """The ReFigBench rubric data file (``taxonomy/refigbench.yaml``)."""

    version: str
    name: str = "refigbench"
    gate: list[str]
    """Stage 0 check names (from :data:`CHECK_NAMES`) a deck must pass; else it scores 0."""
    axes: list[RubricAxis]
    cap: RubricCap
    builtin: RubricBuiltin
    choices: list[str] = Field(default_factory=list)
    """Key paths of the values ReFigBench leaves unstated and pptjudge chose."""

    def axis(self, name: str) -> RubricAxis:
        """The axis ``name``; KeyError when the rubric has none by that name."""
        for ax in self.axes:
            if ax.name == name:
                return ax
        raise KeyError(name)


class AxisScore(Model):
    """One axis as the judge scored it in one round."""

    axis: str
    points: float = Field(ge=0)
    """Points on the axis, 0 to its ``max_points``."""
    rationale: str = Field(min_length=1)
    """What was seen or measured, naming nodes, edges or objects."""


class RubricVerdict(Model):
    """The ReFigBench rubric stage verdict: every axis of the rubric exactly once."""

    axes: list[AxisScore]
    measurements: dict[str, float] = Field(default_factory=dict)
    """Measured figures behind the scores (built-in judge), 0-1 fractions or counts."""


class RefigScore(Model):
    """A ReFigBench case result (the ``refigbench`` field of a results line)."""

    axes: dict[str, float] = Field(default_factory=dict)
    """Axis name -> points, the mean over the scored rounds."""
    raw_score: float = 0.0
    """Sum of the axes before the cap (0-100)."""
    cap_applied: bool = False
    """The raster-paste rule fired (the score is at most the rubric's ``cap_score``)."""
    rounds_scored: int = 0
    rubric_version: str = ""
    rubric_hash: str = ""


class FidelityMetrics(Model):
    """FigCodeBench pixel-fidelity diagnostics of the normalised pair (1200x900 panels)."""

    psnr_db: float
    """PSNR of the two panels (8-bit RGB), decibels; capped at 100 for identical panels."""
    psnr_term: float
    """1 - 10^(-PSNR/20), 0-1."""
    ssim: float
    """SSIM of the grey panels (7x7 uniform window, scikit-image's defaults), -1 to 1."""
    ciede2000_mean: float
    """Mean CIEDE2000 difference over the pixels that are ink in either panel."""
    ciede2000_term: float
    """The mean difference through the JND curve (see :mod:`scoring.fidelity`), 0-1."""
    lpips: float | None = None
    """LPIPS distance when weights were given (``--lpips-weights``), else None."""
    combined: float
    """Equally weighted geometric mean of the terms named in ``terms``, 0-1."""
    terms: list[str]
    """Terms that entered ``combined`` (``psnr``, ``ssim``, ``ciede2000``, ``lpips``)."""


class ComplexityMetrics(Model):
    """Visual complexity of a task's reference image (FigCodeBench-style measures)."""

    edge_density: float
    """Share of content-box pixels on a Canny edge, 0-1."""
    orientation_entropy: float
    """Entropy of edge-gradient orientations (16 bins over 180 degrees), normalised 0-1."""
    colour_diversity: float
    """Entropy of the 4-bit-per-channel colour histogram of content pixels, normalised 0-1."""
    components: int
    """Foreground connected components (8-connectivity) of at least 10 pixels."""
    occupancy: float
    """Foreground pixels over the content box, 0-1."""


# --------------------------------------------------------------------------------------------
# Aggregation and scoring


class Policy(Model):
    """How rounds become a case result; the default is the PPTBench protocol."""

    vote_threshold: int | None = None
    """Passing rounds needed; None = majority (R // 2 + 1)."""
    min_support: int = Field(default=1, ge=1)
    """Drop merged findings seen in fewer passing rounds than this."""
    unit_multiplier: bool = False
    """Replace m(rho) by 1."""
    equal_weights: bool = False
    """S = 100 x mean of the three retained dimension fractions."""
    category_max: bool = False
    """Keep only the largest subtype penalty within each (dimension, category)."""
    name: str = "protocol"


class Observation(Model):
    """One round's sighting of a merged finding, kept for audit."""

    round_index: int
    location: str
    description: str
    affected_count: int
    fraction: float
    """That round's affected fraction for the finding's category (0-1)."""
    bbox: Box | None = None
    reference_bbox: Box | None = None
    """Panel frame of the reference panel, where the reference shows the same place."""


class MergedFinding(Model):
    """A finding after merging the passing rounds by (dimension, category, subtype)."""

    dimension: Dimension
    category: str
    subtype: str
    fraction: float = Field(ge=0.0, le=1.0)
    """Largest affected fraction of its category over the rounds that saw it."""
    support: list[int]
    """Round indices that reported it."""
    observations: list[Observation] = Field(default_factory=list)


class FindingPenalty(Model):
    dimension: Dimension
    category: str
    subtype: str
    tier: Tier
    base: float
    fraction: float
    multiplier: float
    penalty: float
    counted: bool = True
    """False when a policy (category maximum) left it out of the sum."""


class DimensionScore(Model):
    name: Dimension
    weight: float
    cap: float
    points_lost: float
    score: float


class ScoreBreakdown(Model):
    score: float
    layout: float
    text: float
    graphics: float
    dimensions: list[DimensionScore] = Field(default_factory=list)
    penalties: list[FindingPenalty] = Field(default_factory=list)


CaseGate = Literal["pass", "artifact", "semantic", "render"]


class CaseResult(Model):
    """One line of ``results.jsonl`` and the case's ``case.json``."""

    version: int = SCHEMA_VERSION
    case_id: str
    task_id: str
    config_id: str
    valid: bool
    artifact_failures: list[str] = Field(default_factory=list)
    gate: CaseGate | None = None
    """None only when ``error`` is set."""
    gate_votes: dict[RoundStatus, int] = Field(default_factory=dict)
    """Rounds per status, e.g. ``{"pass": 2, "semantic": 1}``."""
    rounds: list[RoundStatus] = Field(default_factory=list)
    """Status of each round, by round index."""
    score: float | None = None
    layout: float | None = None
    text: float | None = None
    graphics: float | None = None
    findings: list[MergedFinding] = Field(default_factory=list)
    breakdown: ScoreBreakdown | None = None
    error: str | None = None
    """Null unless the case could not be judged."""
    taxonomy_version: str = ""
    taxonomy_hash: str = ""
    policy: str = "protocol"
    usage: Usage = Field(default_factory=Usage)
    generation_cost_usd: float | None = None
    protocol: ProtocolName = "pptbench"
    """The protocol that made this line; ``refigbench`` lines keep ``layout``/``text``/
    ``graphics`` null and give the axes in ``refigbench``."""
    refigbench: RefigScore | None = None
    audit: ObjectAudit | None = None
    """The Stage 0 object audit of the candidate (None when the file could not be read)."""
    fidelity: FidelityMetrics | None = None
    """Pixel-fidelity diagnostics (cases that reached the normalised pair); never points."""
    complexity: ComplexityMetrics | None = None
    """Visual complexity of the task's reference (for ``judge leaderboard --by tier``)."""


class RecordedCase(BaseModel):
    """The summary view of a recorded ``results.jsonl`` line: what rescoring reads and compares.

    A read-only view of :class:`CaseResult` (same field names and meanings): other fields
    (findings, breakdown, ``version``) are skipped, which makes reading an 18,000-line results
    file about three times faster. Never written.
    """

    model_config = ConfigDict(extra="ignore")

    case_id: str
    task_id: str
    config_id: str
    valid: bool
    artifact_failures: list[str] = Field(default_factory=list)
    gate: CaseGate | None = None
    rounds: list[RoundStatus] = Field(default_factory=list)
    score: float | None = None
    layout: float | None = None
    text: float | None = None
    graphics: float | None = None
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    generation_cost_usd: float | None = None
    protocol: ProtocolName = "pptbench"
    fidelity: FidelityMetrics | None = None
    """Carried over by rescoring (diagnostics are not recomputed from frozen files)."""
    complexity: ComplexityMetrics | None = None


class RunManifest(Model):
    """``run.json``: everything needed to know how a run was judged."""

    version: int = SCHEMA_VERSION
    package_version: str
    created: str
    """ISO 8601 UTC."""
    bench: str
    judge: str
    """Backend: ``builtin``, ``openai`` or ``replay``."""
    model: str | None = None
    base_url: str | None = None
    rounds: int
    policy: Policy = Field(default_factory=Policy)
    taxonomy_path: str
    taxonomy_version: str
    taxonomy_hash: str
    render_dpi: int
    render_provenance: RenderProvenance | None = None
    protocol: ProtocolName = "pptbench"
    rubric_path: str | None = None
    """ReFigBench runs: the rubric file (a copy is kept as ``rubric.yaml`` in the run)."""
    rubric_version: str | None = None
    rubric_hash: str | None = None
    settings: dict[str, object] = Field(default_factory=dict)
    """Backend parameters (temperature, max tokens, budgets, timeouts, prices)."""


# --------------------------------------------------------------------------------------------
# Trajectories

EventKind = Literal["message", "tool_call", "tool_result", "submit", "invalid_submit", "error"]
TrajectoryStage = Literal["semantic", "render", "detail", "rubric", "generate"]
"""The judge's stages (ReFigBench's one-pass ``rubric`` too), and ``generate`` for a generation
agent's episode."""


class TrajectoryEvent(Model):
    """One line of a round's trajectory JSONL. Images are stored once by content hash."""

    version: int = SCHEMA_VERSION
    seq: int
    stage: TrajectoryStage
    kind: EventKind
    t: float = 0.0
    """Seconds since the round started."""
    role: str | None = None
    """For messages: ``system``, ``user``, ``assistant``, ``tool``."""
    content: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments: dict[str, object] | None = None
    result: dict[str, object] | list[object] | None = None
    images: list[str] = Field(default_factory=list)
    """sha256 of PNGs stored under the case's ``images/`` folder."""
    usage: Usage | None = None


# --------------------------------------------------------------------------------------------
# Sandbox and generation (written by judge/sandbox.py and generation/agent.py)


class SandboxOutcome(Model):
    """What one sandboxed program did (the ``run_python`` tool result, minus timing)."""

    exit_code: int | None
    """The program's exit status (128 + N when a signal N killed it); None when the sandbox
    killed it at the wall-clock limit."""
    violation: str | None = None
    """The limit the program broke, in words (wall-clock, CPU, memory, file size, processes,
    folder size); None when it broke none."""
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    seconds: float = 0.0
    """Wall-clock seconds, sandbox start-up included."""

    @property
    def failed(self) -> bool:
        """A non-zero exit or a broken limit (a *sandbox failure* of the generation record)."""
        return self.exit_code != 0 or self.violation is not None


GenerationStatus = Literal[
    "submitted", "no_submit", "max_turns", "repeated_failure", "model_error", "no_deck", "error"
]
"""submitted: the agent called submit() with a deck; no_submit: it stopped without submitting;
max_turns: the --max-turns budget ran out; repeated_failure: it repeated the same failing call;
model_error: the model endpoint failed (after retries); no_deck: it submitted without a deck;
error: the harness itself failed on the task (unreadable reference, sandbox set-up)."""


class GenerationTokens(Model):
    """Token counts of a generation episode, summed over its model calls."""

    input: int = 0
    """Prompt tokens, cached ones included."""
    cached_input: int = 0
    """Prompt tokens served from the provider's prompt cache (billed at the cached rate)."""
    output: int = 0
    """Completion tokens, reasoning included (billed at the output rate)."""
    reasoning: int = 0
    """Reasoning tokens (part of ``output``)."""


class GenerationPrices(Model):
    """USD per million tokens the cost was computed with (None: unknown)."""

    input: float | None = None
    cached_input: float | None = None
    """None: cached input billed at the input rate."""
    output: float | None = None


class GenerationRecord(Model):
    """One task's generation episode (``BENCH/generation/<config>/<task>.json``)."""

    version: int = SCHEMA_VERSION
    config_id: str
    task_id: str
    model: str
    base_url: str | None = None
    effort: str | None = None
    """The ``reasoning_effort`` sent with every request (None: not sent)."""
    status: GenerationStatus
    reason: str | None = None
    """Why the episode failed (None when ``status`` is ``submitted``)."""
    candidate: str | None = None
    """The deck written, relative to the benchmark folder (None: no candidate)."""
    program: str | None = None
    """The last program that changed the deck, relative to the benchmark folder."""
    trajectory: str
    """The trajectory JSONL, relative to the benchmark folder (images in ``images/`` beside)."""
    tokens: GenerationTokens = Field(default_factory=GenerationTokens)
    model_calls: int = 0
    cached_calls: int = 0
    """Model calls answered from the on-disk cache (free)."""
    cost_usd: float | None = None
    """From the price table; None when no price is known."""
    prices: GenerationPrices = Field(default_factory=GenerationPrices)
    wall_s: float = 0.0
    turns: int = 0
    """Model answers in the episode."""
    reviews: int = 0
    """``render()`` calls."""
    revisions: int = 0
    """``run_python`` calls after which ``deck.pptx`` differed from before."""
    run_python_calls: int = 0
    sandbox_failures: int = 0
    """``run_python`` calls that exited non-zero or broke a sandbox limit."""
    violations: list[str] = Field(default_factory=list)
    """Sandbox limits broken, one entry per failing call that broke one."""


# --------------------------------------------------------------------------------------------
# Synthetic benchmark truth (written by generation/, read by tests and the accuracy bench)

VariantGate = Literal["pass", "artifact", "semantic", "render"]


class TruthNode(Model):
    """One node of a generated diagram, as drawn in the reference."""

    id: int
    label: str
    box: Box
    """Image frame of the reference PNG (pixels)."""
    panel: int
    """Index of the panel holding the node (0-based)."""
    fill: str
    """``#rrggbb``."""
    stroke: str
    stroke_width_px: float
    """Pixels of the reference image."""
    corner_radius_px: float
    """0 for square corners; pixels of the reference image."""
    font_px: float
    """Label font size (em height) in pixels of the reference image."""
    text_color: str


class TruthEdge(Model):
    """One directed edge of a generated diagram (arrowhead at ``dst``)."""

    id: int
    src: int
    """Node id at the tail."""
    dst: int
    """Node id at the head (arrowhead end)."""
    points: list[tuple[float, float]]
    """The drawn polyline from src to dst, image frame of the reference PNG (pixels)."""
    dashed: bool = False
    width_px: float
    color: str
    route: Literal["straight", "elbow"] = "straight"


class TruthPanel(Model):
    index: int
    title: str
    box: Box
    """Image frame of the reference PNG (pixels): the panel frame."""


class TruthGraph(Model):
    """The ground truth of one generated task (``tasks/<id>/truth.json``)."""

    version: int = SCHEMA_VERSION
    task_id: str
    seed: int
    width: int
    height: int
    """Reference image size, pixels."""
    font_family: str
    nodes: list[TruthNode]
    edges: list[TruthEdge]
    panels: list[TruthPanel]


class InjectedDefect(Model):
    """One defect the generator put into a candidate on purpose."""

    kind: str
    """Generator name, e.g. ``reversed_edge``, ``wrong_fill``, ``pasted_reference``."""
    subtype: str | None = None
    """The taxonomy subtype it corresponds to, when there is one."""
    target: str
    """What was changed, e.g. ``edge "Encoder" -> "Decoder"`` or ``node "Loss"``."""
    detail: str = ""


class CaseLabel(Model):
    """The truth for one generated candidate (a line of ``labels.jsonl``)."""

    version: int = SCHEMA_VERSION
    case_id: str
    """``"<config_id>/<task_id>"``."""
    task_id: str
    config_id: str
    variant: str
    """Generator variant, e.g. ``faithful_connectors`` or ``reversed_edge``."""
    style: str
    """How the deck draws edges: ``connectors`` (glued), ``freelines`` or ``groups``."""
    gate: VariantGate
    """The gate a correct judge ends at."""
    artifact_failures: list[str] = Field(default_factory=list)
    """Stage 0 checks (names from CHECK_NAMES) that must fail."""
    subtypes: list[str] = Field(default_factory=list)
    """Taxonomy subtypes Stage 3 should report (only when ``gate`` is ``pass``)."""
    defects: list[InjectedDefect] = Field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Human labels (the labelling page of scoring/labelling/)

HumanGate = Literal["pass", "fail"]
HumanGateStage = Literal["artifact", "semantic", "render"]


class HumanLabel(Model):
    """One annotator's label of one case, as the labelling page sends it and the labels store
    keeps it (``RUN/labelling/labels.sqlite``; exported to the ``judge agree`` CSV)."""

    version: int = SCHEMA_VERSION
    gate: HumanGate | None = None
    """The annotator's call on the whole gate sequence; None while the form is only started."""
    gate_stage: HumanGateStage | None = None
    """When ``gate`` is ``fail``: the stage the annotator thinks fails (optional)."""
    gate_reason: str = Field(default="", max_length=2000)
    """When ``gate`` is ``fail``: which node or edge, in words (``edge "A" -> "B" reversed``)."""
    subtypes: dict[str, float | None] = Field(default_factory=dict)
    """Stage 3 subtypes the annotator sees -> affected fraction of their category (0-1), or
    None when the annotator gave no fraction."""

    @model_validator(mode="after")
    def _fractions_in_range(self) -> HumanLabel:
        for name, frac in self.subtypes.items():
            if frac is not None and not 0.0 <= frac <= 1.0:
                raise ValueError(f"subtypes.{name}: affected fraction {frac} is not in 0-1")
        return self


PreferenceChoice = Literal["a", "b", "tie"]


class PreferencePair(Model):
    """One A/B pair to compare: two renders of the same task (and its reference)."""

    id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._-]+$")
    """The pair's id in the pair set; it must not reveal the configurations (the page shows
    it to nobody, but the exporter should still make it opaque)."""
    reference: str | None = None
    """Path of the reference image, relative to the pair-set folder."""
    a: str | None = None
    """Path of candidate A's image, relative to the pair-set folder."""
    b: str | None = None
    """Path of candidate B's image, relative to the pair-set folder."""
    image: str | None = None
    """Instead of ``a`` and ``b``: one composite image (reference, A, B side by side, captioned;
    what ``judge prefs export`` writes), relative to the pair-set folder. Its sides are fixed."""

    @model_validator(mode="after")
    def _images_given(self) -> PreferencePair:
        if (self.image is None) == (self.a is None or self.b is None):
            raise ValueError("a pair needs both a and b, or one composite image (not both)")
        return self


class PreferencePairs(Model):
    """``pairs.json`` of an A/B pair set (read by ``judge label pairs``; a ``pairs.csv`` of
    ``judge prefs export`` is read into this too). Which configuration is A or B lives only in
    the exporter's key file, never here."""

    version: int = SCHEMA_VERSION
    question: str = "Which reconstruction is closer to the reference?"
    pairs: list[PreferencePair] = Field(min_length=1)


class PreferenceLabel(Model):
    """One annotator's answer on one A/B pair (choice in the pair set's A/B terms)."""

    version: int = SCHEMA_VERSION
    choice: PreferenceChoice | None = None
    reason: str = Field(default="", max_length=2000)
