"""Metric records as evidence: the records (one row of the metrics table each, with their numbers), the signed
difference behind a distance and the one multiplicity adjustment over every test. Nothing here judges:
:mod:`evenhand.pipeline.verdict` does (the rule that joins a distance's interval with 0 included: which records are
distances is their kind of evidence's)."""
