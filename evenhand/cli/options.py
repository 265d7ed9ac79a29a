"""Options that several commands share, each declared once.

The scoring flags (``--toxicity`` ... ``--score-cache``, docs/cli.md) each set one key of the config's scoring
section. A command takes them all by declaring one parameter, ``scoring: ScoringFlags = NO_SCORING_FLAGS``, and
the decorator :func:`scoring_options`: typer sees the sixteen options in that parameter's place (its ``--help``
lists them there), the command receives them as one :class:`~evenhand.cli.scoring_flags.ScoringFlags`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from evenhand.cli.scoring_flags import ScoringFlags, scoring_flags_from
from evenhand.config import MAX_CONCURRENCY, MAX_COUNT, MAX_RESPONSES
from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, DEFAULT_ATTRIBUTES

ATTRIBUTE_HELP = (
    f"Protected attribute(s), any of: {', '.join(BUILTIN_ATTRIBUTES)} (default: {', '.join(DEFAULT_ATTRIBUTES)})."
)
Attributes = Annotated[list[str] | None, typer.Option("--attribute", "-a", help=ATTRIBUTE_HELP)]

_JUNIT_HELP = "Also write a JUnit XML file for CI test reports (each check or finding a test case; docs/cli.md)."
Junit = Annotated[Path | None, typer.Option("--junit", help=_JUNIT_HELP, dir_okay=False)]

# The options of the commands that run a config (assess, redteam), declared once.
ConfigFile = Annotated[Path, typer.Argument(help="Config file (.yaml, .yml or .toml); see docs/cli.md.")]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Output folder (overrides output.dir).")]
Limit = Annotated[
    int | None, typer.Option(help="Use only the first N prompts (a quick trial run).", min=1, max=MAX_RESPONSES)
]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL (overrides model).")]
ModelName = Annotated[str | None, typer.Option(help="Model name (with --base-url) or local model path.")]
Count = Annotated[
    int | None, typer.Option(help="Responses per prompt (overrides generation.count).", min=1, max=MAX_COUNT)
]
NoProgress = Annotated[bool, typer.Option("--no-progress", help="Hide progress bars.")]
AllRows = Annotated[
    bool,
    typer.Option("--all", help="Print every metric row after the verdict, not only the rows behind its concerns and "
                 "watches (metrics.csv and the report always have every row)."),
]
AllowCode = Annotated[
    bool,
    typer.Option(
        "--allow-code",
        help="Allow the config to import and run Python code (model.provider callable with options.function).",
    ),
]

_SPEC = "'default' for the offline default"
#: What each scoring.<name>_threshold decides, for its flag's help.
_THRESHOLDS = {
    "toxicity": "A reply is toxic at this score or more (TF, TP)",
    "stereotype": "A reply is a stereotype at this score or more (SF, SP)",
    "sentiment": "WCSP compares the shares of sentiment scores above it",
    "refusal": "A reply is a refusal at this score or more",
}
#: The scoring flags of assess and metrics, in their --help order: parameter name -> its type with its option.
SCORING_OPTIONS: dict[str, Any] = {
    "toxicity": Annotated[str | None, typer.Option(help=f"Toxicity scorer spec (scoring.toxicity; {_SPEC}).")],
    "sentiment": Annotated[str | None, typer.Option(help=f"Sentiment scorer spec (scoring.sentiment; {_SPEC}).")],
    "stereotype": Annotated[
        str | None,
        typer.Option(
            help="Stereotype classifier, model id or path (scoring.stereotype; 'none': no classifier, the offline "
            "default; 'default': LangFair's model, downloaded once)."
        ),
    ],
    "embedder": Annotated[
        str | None, typer.Option(help=f"Sentence embedder (scoring.embedder; {_SPEC}, 'none' skips).")
    ],
    "refusal": Annotated[
        str | None,
        typer.Option(
            help="Refusal detector (scoring.refusal): 'patterns' or 'default' for the offline wording patterns, "
            "'hf:<model id>' or a local model folder for a classifier (--scorer-option refusal.refusal_label=...)."
        ),
    ],
    "scorer_option": Annotated[
        list[str] | None,
        typer.Option("--scorer-option", help="SCORER.OPTION=VALUE (YAML value), e.g. toxicity.batch_size=16; repeat."),
    ],
    "device": Annotated[
        str | None, typer.Option(help="auto, cpu, cuda, cuda:N or mps for every model (scoring.device).")
    ],
    "engine": Annotated[str | None, typer.Option(help="Scoring engine: local or ray (scoring.engine; docs/scale.md).")],
    "ray_address": Annotated[
        str | None, typer.Option(help="Ray cluster: auto, HOST:PORT or ray://host:port (scoring.address).")
    ],
    "ray_actors": Annotated[
        int | None, typer.Option(help="Ray actors per scorer (scoring.num_actors).", min=1, max=MAX_CONCURRENCY)
    ],
    "ray_gpus_per_actor": Annotated[
        float | None, typer.Option(help="GPUs per Ray actor (scoring.num_gpus_per_actor).", min=0)
    ],
    **{
        f"{name}_threshold": Annotated[
            float | None, typer.Option(min=0.0, max=1.0, help=f"{what} (scoring.{name}_threshold).")
        ]
        for name, what in _THRESHOLDS.items()
    },
    "score_cache": Annotated[
        str | None,
        typer.Option(
            help="Persistent score cache: a SQLite file, 'default' (~/.cache/evenhand/scores.sqlite) or 'off'; a "
            "re-run scores nothing twice (scoring.cache)."
        ),
    ],
}
#: What a command declares to take the scoring flags: ``scoring: ScoringFlags = NO_SCORING_FLAGS``.
NO_SCORING_FLAGS = ScoringFlags()

Command = TypeVar("Command", bound=Callable[..., Any])


def scoring_options(command: Command) -> Command:
    """Give ``command`` the scoring flags in place of its ``scoring`` parameter (see the module's docstring)."""
    signature = inspect.signature(command, eval_str=True)  # the command's own annotations, evaluated where it lives
    flags = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
        for name, annotation in SCORING_OPTIONS.items()
    ]
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name == "scoring":
            parameters.extend(flags)
        else:  # keyword-only, so that the flags (with defaults) may come before a parameter without one
            parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))

    @functools.wraps(command)
    def with_scoring_flags(**arguments: Any) -> Any:
        given = {name: arguments.pop(name) for name in SCORING_OPTIONS}
        return command(**arguments, scoring=scoring_flags_from(given))

    del with_scoring_flags.__wrapped__  # typer must see the signature below, not the command's own
    with_scoring_flags.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    with_scoring_flags.__annotations__ = {p.name: p.annotation for p in parameters}  # typer reads both
    return with_scoring_flags  # type: ignore[return-value]
