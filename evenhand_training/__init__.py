"""Tools that build what evenhand uses at run time, kept outside the runtime package ``evenhand``.

:mod:`evenhand_training.stereotype` trains and evaluates the EXPERIMENTAL offline stereotype scorer
(``evenhand-minilm-stereoset``, docs/stereotype-scorer.md).
"""
