"""The commands of ``evenhand``, one module each; :mod:`evenhand.cli.application` registers them in ``--help`` order."""
