"""Human labelling of a run's cases in the browser (`judge label`), blinded.

* :mod:`scoring.labelling.study` -- which cases are offered (a sample drawn once per run and
  kept in the store), their opaque ids (HMAC of the case id with a per-run secret) and the
  order each annotator sees them in (shuffled, seeded by the annotator's name);
* :mod:`scoring.labelling.store` -- the SQLite store (``RUN/labelling/labels.sqlite``, WAL):
  one row per annotator and case, written as the label is given, and the CSV export that
  ``judge agree`` reads;
* :mod:`scoring.labelling.server` -- the local HTTP server (127.0.0.1 only): the static page of
  ``assets/`` and a JSON API that never carries a configuration name, a judge verdict or another
  annotator's label.
"""
