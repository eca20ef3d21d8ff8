"""The built-in judge: a deterministic, model-free policy behind the chat-model interface.

:class:`BuiltinJudgeModel` plugs into the same stage loop as a real model. On each turn it
looks at the tool results already in the conversation and either calls the next measurement
tool of its plan or submits the stage verdict built from those results alone, so the trajectory
shows every measurement a decision rests on. Same inputs, same messages.

* Stage 1 (semantic): ``reference_graph``, ``candidate_graph``, ``compare_graphs``; fails only on
  discrepancies the comparison marks confirmed, and names them.
* Stage 2 (render/text): ``text_fit``, ``panel_difference``; fails when over 50 % of text frames
  overflow, overlap or wrap improperly, or black/blank blocks cover over 30 % of the figure.
* Stage 3 (detail): ``measure_details``, ``text_fit``; every measured difference becomes a
  taxonomy finding, with affected fractions per category.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from judge.engine.agent import SUBMIT_TOOL, TOOL_BUDGET_SPENT
from judge.schema import StageName, Taxonomy
from judge.tools.base import ToolContext
from judge.tools.thresholds import RENDER_DEFECT_MAX_FRAC, TEXT_DEFECT_MAX_FRAC

SUBMIT = SUBMIT_TOOL

PLANS: dict[str, list[str]] = {
    "semantic": ["reference_graph", "candidate_graph", "compare_graphs"],
    "render": ["text_fit", "panel_difference"],
    "detail": ["measure_details", "text_fit"],
    "rubric": ["compare_graphs", "measure_details"],
}
"""The measurement tools each stage calls, in order, before submitting."""

EDGE_SUBTYPES = ("dash_style", "line_width", "arrowhead_style")
TEXT_FIT_SUBTYPES = ("overflow", "text_overlap", "unexpected_wrap", "clipping")


class BuiltinJudgeModel(BaseChatModel):
    """The model-free policy for one stage of one case."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ctx: Any = None
    stage: str = "semantic"
    taxonomy: Any = None
    rubric: Any = None
    """The ReFigBench rubric (``rubric`` stage only)."""

    def __init__(self, ctx: ToolContext, stage: StageName, taxonomy: Taxonomy | None, **kw: Any):
        super().__init__(ctx=ctx, stage=stage, taxonomy=taxonomy, **kw)  # type: ignore[call-arg]

    @property
    def _llm_type(self) -> str:
        return "pptjudge-builtin"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> BuiltinJudgeModel:
        """Tools are called by name from the plan; binding changes nothing."""
        return self

    # ------------------------------------------------------------------------------------
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        results, submits = _tool_results(messages)
        plan = PLANS[self.stage]
        for name in plan:
            if name not in results:
                return _reply(AIMessage(content="", tool_calls=[_call(self.stage, name, {}, 0)]))
        unmeasured = [
            n for n in plan if str(results[n].get("error", "")).startswith(TOOL_BUDGET_SPENT)
        ]
        if unmeasured:
            # A verdict must rest on measurements: with tools refused, submit nothing, so the
            # stage ends without a verdict (round errored) instead of passing by default.
            return _reply(
                AIMessage(
                    content="The builtin judge cannot decide: the tool budget refused "
                    + ", ".join(unmeasured)
                    + f" ({len(plan)} measurements are needed before a verdict)"
                )
            )
        if submits:
            last_error = submits[-1]
            if len(submits) >= 2:
                return _reply(
                    AIMessage(
                        content=f"The builtin judge cannot produce a valid verdict: {last_error}"
                    )
                )
            verdict = self.verdict(results, strict=True)
        else:
            verdict = self.verdict(results, strict=False)
        return _reply(
            AIMessage(content="", tool_calls=[_call(self.stage, SUBMIT, verdict, len(submits))])
        )

    # ------------------------------------------------------------------------------------
    def verdict(self, results: dict[str, dict[str, Any]], strict: bool) -> dict[str, Any]:
        if self.stage == "semantic":
            return semantic_verdict(results)
        if self.stage == "render":
            return render_verdict(results)
        if self.stage == "rubric":
            from judge.backends.builtin_rubric import rubric_verdict

            return rubric_verdict(results, self.ctx.object_tree, self.rubric)
        return detail_verdict(results, self.taxonomy, strict)


def _tool_results(messages: list[BaseMessage]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Tool name -> parsed JSON result, and the error texts of earlier submits."""
    names: dict[str, str] = {}
    for m in messages:
        if isinstance(m, AIMessage):
            for tc in m.tool_calls:
                names[str(tc.get("id"))] = tc["name"]
    results: dict[str, dict[str, Any]] = {}
    submits: list[str] = []
    for m in messages:
        if not isinstance(m, ToolMessage):
            continue
        name = names.get(m.tool_call_id, getattr(m, "name", None) or "")
        text = m.content if isinstance(m.content, str) else json.dumps(m.content)
        if name == SUBMIT:
            submits.append(text)
            continue
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError):
            data = {"error": text}
        results[name] = data if isinstance(data, dict) else {"value": data}
    return results, submits


def _call(stage: str, name: str, args: dict[str, Any], attempt: int) -> dict[str, Any]:
    return {
        "name": name,
        "args": args,
        "id": f"builtin-{stage}-{name}-{attempt}",
        "type": "tool_call",
    }


def _reply(msg: AIMessage) -> ChatResult:
    return ChatResult(generations=[ChatGeneration(message=msg)])


# ----------------------------------------------------------------------------------------
# Stage 1


def _reason(d: dict[str, Any]) -> dict[str, Any]:
    """A gate reason from one judged discrepancy: evidence, confirmation, confidence, boxes."""
    checks = "; ".join(d.get("checks", []))
    evidence = f"{d['kind'].replace('_', ' ')}: {d['evidence']}" + (
        f" ({checks})" if checks else ""
    )
    out: dict[str, Any] = {
        "target": d["target"],
        "evidence": evidence,
        "confirmed": bool(d.get("confirmed")),
        "confidence": float(d.get("confidence", 1.0 if d.get("confirmed") else 0.3)),
    }
    for key in ("reference_bbox", "candidate_bbox"):
        box = d.get(key)
        if box:
            out[key] = {"x": box[0], "y": box[1], "w": box[2], "h": box[3]}
    return out


def semantic_verdict(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Fail on confirmed discrepancies only; every discrepancy is a reason, confirmed or not,
    so the round file keeps the unconfirmed ones for audit."""
    comp = results.get("compare_graphs", {})
    if "error" in comp:
        return {
            "passed": True,
            "reasons": [
                {
                    "target": "diagram",
                    "evidence": f"graphs could not be compared: {comp['error']}; nothing confirmed",
                    "confirmed": False,
                    "confidence": 0.0,
                }
            ],
            "measurements": {},
        }
    ds = comp.get("discrepancies", [])
    confirmed = [d for d in ds if d.get("confirmed")]
    ref = comp.get("reference", {})
    meas = {
        "reference_nodes": float(ref.get("nodes", 0)),
        "reference_edges": float(ref.get("edges", 0)),
        "confirmed_discrepancies": float(len(confirmed)),
        "unconfirmed_discrepancies": float(len(ds) - len(confirmed)),
    }
    reasons = [_reason(d) for d in confirmed] + [_reason(d) for d in ds if not d.get("confirmed")]
    if confirmed:
        return {"passed": False, "reasons": reasons, "measurements": meas}
    note = "every reference node and edge has a counterpart"
    if ds:
        note = f"{len(ds)} possible differences were not confirmed by the evidence"
    return {
        "passed": True,
        "reasons": [{"target": "diagram", "evidence": note}, *reasons],
        "measurements": meas,
    }


# ----------------------------------------------------------------------------------------
# Stage 2


def render_verdict(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    tf = results.get("text_fit", {})
    diff = results.get("panel_difference", {})
    reasons = []
    meas: dict[str, float] = {}
    text_frac = float(tf.get("defective_fraction", 0.0)) if tf.get("available") else 0.0
    meas["text_defect_fraction"] = text_frac
    block = float(diff.get("black_block_fraction", 0.0)) + float(
        diff.get("blank_block_fraction", 0.0)
    )
    meas["render_defect_fraction"] = round(min(1.0, block), 4)
    if text_frac > TEXT_DEFECT_MAX_FRAC:
        reasons.append(
            {
                "target": "text frames",
                "evidence": f"{text_frac:.0%} of {tf.get('text_frames')} text frames overflow "
                f"({tf.get('overflowing')}), overlap ({tf.get('overlapping')}), run off the "
                f"slide ({tf.get('clipped', 0)}) or break words ({tf.get('broken', 0)}); the "
                f"limit is {TEXT_DEFECT_MAX_FRAC:.0%}",
            }
        )
    if block > RENDER_DEFECT_MAX_FRAC:
        reasons.append(
            {
                "target": "figure",
                "evidence": f"black or blank blocks cover {block:.0%} of the figure; the limit "
                f"is {RENDER_DEFECT_MAX_FRAC:.0%}",
            }
        )
    if reasons:
        return {"passed": False, "reasons": reasons, "measurements": meas}
    return {
        "passed": True,
        "reasons": [
            {
                "target": "figure",
                "evidence": f"text defects {text_frac:.0%}, render "
                f"defects {block:.0%}: under the limits",
            }
        ],
        "measurements": meas,
    }


# ----------------------------------------------------------------------------------------
# Stage 3


def detail_verdict(
    results: dict[str, dict[str, Any]], taxonomy: Taxonomy | None, strict: bool
) -> dict[str, Any]:
    md = results.get("measure_details", {})
    tf = results.get("text_fit", {})
    raw: list[dict[str, Any]] = list(md.get("findings", []))
    if tf.get("available"):
        for f in tf.get("frames", []):
            where = f'text "{f["text"][:40]}"'
            needed = f.get("needed", f.get("paragraphs", 1))
            checks = [
                ("overflow", f.get("overflow"), "text runs beyond its shape"),
                ("text_overlap", f.get("overlaps"), "its text overlaps another frame's"),
                ("clipping", f.get("clipped"), "its text runs off the slide"),
                (
                    "unexpected_wrap",
                    f.get("lines", 1) > needed,
                    f"rendered on {f.get('lines')} lines where {needed} are needed",
                ),
            ]
            for subtype, hit, text in checks:
                if hit:
                    raw.append(
                        {"subtype": subtype, "location": where, "description": text, "count": 1}
                    )
    n_nodes = max(1, int(md.get("nodes", 0)))
    n_edges = max(1, int(md.get("edges", 0)))
    n_text = max(1, int(tf.get("text_frames", 0) or n_nodes))
    findings = []
    counts: dict[tuple[str, str], int] = defaultdict(int)
    denom: dict[tuple[str, str], int] = {}
    index = taxonomy.subtypes() if taxonomy is not None else {}
    for f in raw:
        st = f["subtype"]
        if st not in index and (strict or taxonomy is not None):
            continue
        dim, cat = (index[st][0], index[st][1]) if st in index else ("layout", st)
        finding: dict[str, Any] = {
            "dimension": dim,
            "category": cat,
            "subtype": st,
            "location": f["location"],
            "description": f["description"],
            "affected_count": int(f.get("count", 1)),
        }
        for key in ("bbox", "reference_bbox"):
            box = f.get(key)
            if box:
                finding[key] = {"x": box[0], "y": box[1], "w": box[2], "h": box[3]}
        findings.append(finding)
        counts[(dim, cat)] += int(f.get("count", 1))
        if st in TEXT_FIT_SUBTYPES:
            d = n_text
        elif st in EDGE_SUBTYPES:
            d = n_edges
        elif st in ("alignment", "node_spacing"):
            d = max(1, n_nodes * (n_nodes - 1) // 2)
        else:
            d = n_nodes
        denom[(dim, cat)] = max(denom.get((dim, cat), 0), d)
    fractions = [
        {"dimension": dim, "category": cat, "fraction": round(min(1.0, c / denom[(dim, cat)]), 4)}
        for (dim, cat), c in sorted(counts.items())
    ]
    return {"findings": findings, "fractions": fractions}
