"""``python -m evenhand ...``: the ``evenhand`` command, for environments where the console script is not on PATH."""

from evenhand.cli import main

if __name__ == "__main__":
    main()
