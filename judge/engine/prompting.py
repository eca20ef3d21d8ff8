"""Stage prompts: markdown files in ``judge/engine/prompts/``, read here and nowhere else.

``system.md`` is the judge's role (shared by the stages); ``semantic.md``, ``render.md`` and
``detail.md`` are the stage rubrics; ``rubric.md`` is the ReFigBench one-pass rubric (its
``{rubric}`` and ``{audit}`` slots hold the rubric file's axes and the candidate's object audit).
``detail.md`` has a ``{taxonomy}`` slot filled with the taxonomy's subtypes and descriptions,
generated from the taxonomy file.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from judge.schema import ObjectAudit, Rubric, StageName, Taxonomy

PROMPTS_DIR = Path(__file__).parent / "prompts"
TAXONOMY_SLOT = "{taxonomy}"


@cache
def _read(name: str) -> str:
    return (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8").strip() + "\n"


def system_prompt() -> str:
    return _read("system")


def taxonomy_listing(taxonomy: Taxonomy) -> str:
    """The taxonomy as markdown: one heading per dimension, one line per subtype."""
    lines: list[str] = []
    for dim in taxonomy.dimensions:
        lines.append(f"### {dim.name}")
        for cat in dim.categories:
            head = f"- category `{cat.name}`"
            lines.append(head + (f" -- {cat.description}" if cat.description else ""))
            for sub in cat.subtypes:
                lines.append(
                    f"  - `{dim.name}` / `{cat.name}` / `{sub.name}` ({sub.tier}): "
                    f"{sub.description}"
                )
        lines.append("")
    return "\n".join(lines).strip()


def stage_prompt(stage: StageName, taxonomy: Taxonomy | None = None) -> str:
    """The rubric of a stage; ``detail`` needs the taxonomy to list its subtypes."""
    text = _read(stage)
    if TAXONOMY_SLOT in text:
        if taxonomy is None:
            raise ValueError(f"the {stage} prompt lists the taxonomy: pass one")
        text = text.replace(TAXONOMY_SLOT, taxonomy_listing(taxonomy))
    return text


def rubric_prompt(rubric: Rubric, audit: ObjectAudit | None) -> str:
    """The ReFigBench rubric stage prompt: the rubric's axes and anchors, and the audit."""
    from taxonomy.rubric import rubric_listing

    audit_text = (
        "(the slide could not be read)"
        if audit is None
        else "\n".join(f"- {k}: {v}" for k, v in audit.model_dump().items())
    )
    return (
        _read("rubric").replace("{rubric}", rubric_listing(rubric)).replace("{audit}", audit_text)
    )
