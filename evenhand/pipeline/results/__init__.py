"""What an assessment hands back and writes: the :class:`~evenhand.pipeline.results.assessment.Assessment`, the
results document's form (``document``, ``schema``) and the output folder (``outputs``)."""
