"""What the commented prints of a doc's Python examples print, and whether they print what their comments show
(newcomer17: docs/estimation.md and docs/text.md had comments that no test read, and some had gone stale)."""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import re


def prints_and_comments(text: str, name: str) -> list[tuple[str, str]]:
    """Run the doc's blocks in order, like a notebook; (what each commented print printed, its comment: the one on
    its last line and the comment lines right after it, joined), whitespace collapsed."""
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    shown = []
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        lines = block.splitlines()
        for node in ast.parse(block).body:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(ast.Module([node], type_ignores=[]), name, "exec"), namespace)
            end = node.end_lineno or node.lineno
            said = [lines[end - 1].split("# ", 1)[1]] if "# " in lines[end - 1] else []
            said += [line.strip()[2:] for line in itertools.takewhile(lambda x: x.startswith("# "), lines[end:])]
            call = getattr(node, "value", None)
            if said and isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print":
                shown.append((" ".join(out.getvalue().split()), " ".join(" ".join(said).split())))
    return shown


def check_printed(printed: str, comment: str) -> None:
    """Assert that ``printed`` shows ``comment``'s text in order, "..." or "[...]" standing for what is left out; a
    comment that starts with a number is that number, its explanation after ": " aside."""
    said = comment.split(": ", 1)[0] if re.match(r"[-+\d]", comment) else comment
    position = 0
    for fragment in (part.strip() for part in re.split(r"\[\.\.\.\]|\.\.\.", said)):
        found = printed.find(fragment, position)
        assert found >= 0, (fragment, printed)
        position = found + len(fragment)
