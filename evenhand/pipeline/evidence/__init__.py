"""Metric records as evidence: the records (one row of the metrics table each), the signed difference behind a
distance, the one multiplicity adjustment over every test, and the rule that joins a distance's interval with 0
unless its test rejects. Nothing here judges: :mod:`evenhand.pipeline.verdict` does."""
