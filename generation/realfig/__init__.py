"""A labelled benchmark built from real figures (``PPTJUDGE_SHARED``/real-figures).

The reference images are not ours to commit: they are read from the shared folder when the
benchmark is materialised. What is ours and committed:

* ``model``   -- the truth-spec format: nodes (label, box in reference pixels, shape, colours),
  directed edges (route, heads, dash), panels, free text (titles, captions, legends, edge
  labels) and icons, per figure;
* ``specs_a`` / ``specs_b`` -- the spec of each development figure, written from the shared
  ``truth-notes.md`` and the images themselves;
* ``deck``    -- candidate decks from a spec with python-pptx, in two faithful constructions
  (``shapes``: labelled autoshapes with glued or placed connectors; ``overlay``: text boxes over
  unlabelled shapes, some grouped, freeform polylines and curves, icons approximated by shapes);
* ``variants`` -- the faithful and defect variants with their expected gates;
* ``bench``   -- ``write_realfig_benchmark``: the DESIGN.md benchmark layout with labels.
"""
