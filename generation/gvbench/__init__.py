"""A development benchmark whose references are laid out and drawn by Graphviz.

Graphviz (``dot``, some ``neato``/``fdp``) draws each task: curved, orthogonal, polyline and
arc splines, its own arrowheads (``normal``, ``vee``, ``open``, ``empty``, ``onormal``), boxes,
rounded boxes, ellipses, cylinders, diamonds and plain text on a fill. The candidate decks are
rebuilt from the layout of the same Graphviz run, the way a careful human reconstruction would
be: same positions, labels and directions, PowerPoint's styling.

* ``spec``   -- seeded graph shapes (chains, fan-out, fan-in, diamonds, crossings, back edges)
  and their Graphviz styling; the DOT text;
* ``layout`` -- one Graphviz run (``-Tpng`` + ``-Tjson``) and its layout read back as a
  real-figure truth spec (:class:`generation.realfig.model.Fig`);
* ``bench``  -- ``write_graphviz_benchmark``: the DESIGN.md layout, the real-figure variants
  and constructions, labels and two folds.
"""

from generation.gvbench.bench import write_graphviz_benchmark
from generation.gvbench.layout import GraphvizError

__all__ = ["GraphvizError", "write_graphviz_benchmark"]
