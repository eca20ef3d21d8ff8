"""Making candidates: synthetic diagrams with injected, labelled defects; the agent runner.

Synthetic benchmark modules:

* ``diagram``   -- the flow-diagram model (nodes, directed edges, panels; reference pixels) and
  its seeded grid layout (chains, branches, merges, loops, dashed and elbow edges);
* ``draw``      -- the raster reference (Pillow, antialiased, Debian TTF fonts);
* ``deck``      -- candidate PPTX with python-pptx (glued connectors, free lines or groups) and
  the package extras of the artifact-gate variants;
* ``variants``  -- faithful and defect variants with their labels (expected gate, taxonomy
  subtypes, failing Stage 0 check);
* ``benchmark`` -- ``write_benchmark``: the DESIGN.md layout plus ``labels.jsonl``/``labels.csv``.

The agent runner (``judge generate``):

* ``agent``     -- the generation agent: a LangGraph tool loop over ``run_python`` (sandboxed),
  ``render``, ``view_reference`` and ``submit``, per task, resumable, one record per task;
* ``records``   -- the ``BENCH/generation/`` layout, the cost formula, reading records back;
* ``prompts/task.md`` -- the task contract the agent is given.
"""
