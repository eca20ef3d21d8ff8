"""A development benchmark whose references are drawn by matplotlib.

The graphs are the Graphviz benchmark's seeded graphs (:mod:`generation.gvbench.spec`: chains,
fans, diamonds, crossings, back edges; labels, colours), laid out by hand on layers
(``layout``) and drawn with matplotlib patches, text and ``FancyArrowPatch`` arrows in five
arrow styles (``draw``); the candidate decks are rebuilt from the same truth spec with the
real-figure deck builder and variants (``bench``). matplotlib is a development dependency.
"""

from generation.mplbench.bench import write_mpl_benchmark
from generation.mplbench.draw import MatplotlibMissing

__all__ = ["MatplotlibMissing", "write_mpl_benchmark"]
