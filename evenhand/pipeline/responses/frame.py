"""Collecting responses: the request table (original and counterfactual prompts), generation, or the user's own.

Everything downstream works on one long *response frame*, one row per response::

    prompt_id  attribute  group   sample  prompt                      response   status
    3          None       None    0       "Write to Mrs. Lee ..."     "Dear ..."  ok      # original prompt
    3          gender     male    0       "Write to Mr. Lee ..."      "Dear ..."  ok      # counterfactual version

``prompt_id`` is the position of the source prompt in the use case; counterfactual rows of different groups with
the same ``(attribute, prompt_id, sample)`` form the counterfactual response pairs.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import as_text_list
from evenhand.conversation import Prompt, has_conversations, prompt_text
from evenhand.errors import InputError
from evenhand.structured import REASONING_ONLY, answer_text

if TYPE_CHECKING:
    from evenhand.generation.settings import GenerationSettings

FRAME_COLUMNS = ["prompt_id", "attribute", "group", "sample", "prompt", "response", "status", "error"]
#: The frame column of the personal names each counterfactual request swapped: ``((as written, replacement), ...)``
#: as :attr:`CounterfactualPrompts.names <evenhand.text.counterfactual.CounterfactualPrompts.names>` records them,
#: carried from the request to its responses so that nothing rebuilds them afterwards (``_`` columns are never
#: written out)
SWAPPED_NAMES = "_swapped_names"
#: The frame column of why a generated reply ended, as the server said (``"stop"``; ``"length"``: cut at the token
#: limit, so its length is the limit's); absent for replies the user brought. Written with the responses, so that
#: ``compare`` rebuilds what the run judged from them (a reply cut before any answer is the limit's, not the model's)
FINISH_REASON = "finish_reason"
#: What each extra column of a responses table holds, in a user's words, and the setting and the flag that name it:
#: a column named there but absent from the file is reported with both, so the user knows what to fix
_EXTRA_COLUMN_ROLES = {
    "truth": ("the ground-truth labels", "responses.label_column or evenhand metrics --label-column"),
    "person_group": ("each person's group", "responses.person_group_column or evenhand metrics --group-column"),
}
#: The finish reason of a reply cut at the token limit (OpenAI's, vLLM's, TGI's, the local client's)
CUT_AT_LIMIT = "length"


def counterfactual_requests(
    prompts: list[Prompt],
    attributes: Mapping[str, Any],
    *,
    names: bool = True,
    subject: Any = "first",
    change_system_prompt: bool = True,
    versions: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per (attribute, group, source prompt) for the prompts that mention the attribute (``names``: or name
    a person whose name signals one of its groups; the use case's ``names`` setting; ``subject``: whose name, the
    use case's ``name_subject``), with the names each version swapped (:data:`SWAPPED_NAMES`) when names were
    read; then those of ``versions`` (per attribute, :class:`~evenhand.text.counterfactual.CounterfactualPrompts`
    written elsewhere: a reader's). A conversation's version is a conversation (``change_system_prompt``: its system
    turns change too, the use case's setting)."""
    from evenhand.text.counterfactual import counterfactual_prompts

    frames = []
    for name, spec in attributes.items():
        with warnings.catch_warnings():  # an attribute no prompt mentions simply adds no rows; the plan says why
            warnings.filterwarnings("ignore", message="no prompt mentions", category=UserWarning)
            cf = counterfactual_prompts(
                prompts, attribute=spec, names=names, subject=subject, change_system_prompt=change_system_prompt
            )
        for made in (cf, (versions or {}).get(name)):
            if made is None:
                continue
            source = [int(i) for i in made.source_index]
            for group in made.groups:
                frame = pd.DataFrame(
                    {"prompt_id": source, "attribute": name, "group": group, "prompt": list(made[group])}
                )
                if made.names:
                    frame[SWAPPED_NAMES] = pd.Series([row.get(group) for row in made.names], dtype=object)
                frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["prompt_id", "attribute", "group", "prompt"])
    return pd.concat(frames, ignore_index=True)


def original_requests(prompts: list[Prompt]) -> pd.DataFrame:
    return pd.DataFrame({"prompt_id": range(len(prompts)), "attribute": None, "group": None, "prompt": prompts})


def resolve_client(client: Any) -> Any:
    """A generation client from ``None`` (bundled SmolLM2), ``"local"``, a spec dict, a callable or a client."""
    from evenhand.generation import get_client

    return get_client(dict(client) if isinstance(client, Mapping) else client)


def generate_frame(requests: pd.DataFrame, client: Any, settings: GenerationSettings) -> pd.DataFrame:
    """Generate ``settings.count`` responses for every request; a prompt's identical requests (its versions of two
    attributes that read alike, an original equal to a version) are generated once. Copies of one text under two
    prompt ids are generated apart: sharing one copy's answers made them count as independent prompts with the very
    same answers in every interval and test (the store keys them by occurrence)."""
    from evenhand.generation import generate

    if requests.empty:
        return pd.DataFrame(columns=FRAME_COLUMNS)
    keys = distinct_requests(requests)
    result = generate([prompt for prompt, _ in keys], client, settings=settings)
    generated = result.to_frame()
    # joined by the position of each distinct request (a conversation is an object: no join on its value)
    position = {key: i for i, key in enumerate(keys)}
    keyed = requests.assign(_request=[position[key] for key in _request_keys(requests)])
    keep = ["sample", "response", "status", "error"]
    answers = generated[keep].assign(_request=generated["prompt_id"].astype(int))
    if "finish_reason" in generated:
        answers[FINISH_REASON] = generated["finish_reason"]
    merged = keyed.merge(answers, on="_request", how="left").drop(columns="_request")
    return finish_frame(merged)


def _request_keys(requests: pd.DataFrame) -> list[tuple[Any, Any]]:
    return list(zip(requests["prompt"], requests["prompt_id"], strict=True))


def distinct_requests(requests: pd.DataFrame) -> list[tuple[Any, Any]]:
    """The distinct ``(prompt, prompt_id)`` of a request table, in order: what :func:`generate_frame` asks."""
    return list(dict.fromkeys(_request_keys(requests)))


def finish_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every response-frame column, in order; a missing response is a failed request; a reply is its
    answer (:func:`~evenhand.structured.answer_text`: a reasoning model's ``<think>`` block left out); a
    conversation's prompt is its readable text (:meth:`~evenhand.conversation.Conversation.text`)."""
    frame = frame.copy()
    for col in FRAME_COLUMNS:
        if col not in frame.columns:
            frame[col] = None
    if has_conversations(frame["prompt"]):
        frame["prompt"] = [prompt_text(p) for p in frame["prompt"]]
    frame["status"] = frame["status"].fillna("ok")
    missing = frame["response"].isna() & (frame["status"] == "ok")
    frame.loc[missing, "status"] = "error"
    # A reasoning model's deliberation (<think>...</think>) is not its answer: every reader reads what follows it,
    # and a reply cut inside it has none
    said = frame["response"].map(lambda r: isinstance(r, str) and r.strip() != "")
    frame["response"] = frame["response"].map(lambda r: answer_text(r) if isinstance(r, str) else r)
    # An empty (or all-blank) answer is not a response: it is counted as not completed and never scored. A text
    # such as "NaN" or "null" is what the model said and stays a response.
    blank = (frame["status"] == "ok") & frame["response"].map(lambda r: isinstance(r, str) and not r.strip())
    frame.loc[blank, "status"] = "empty"
    frame.loc[blank, "error"] = "empty response"
    frame.loc[blank & said, "error"] = REASONING_ONLY  # the model wrote only its reasoning
    frame["sample"] = frame["sample"].fillna(0).astype(int)
    frame["prompt_id"] = frame["prompt_id"].astype(int)
    frame = frame.astype({"attribute": object, "group": object})
    frame = frame.where(frame.notna(), None)
    return frame[FRAME_COLUMNS + [c for c in frame.columns if c not in FRAME_COLUMNS]].reset_index(drop=True)


def frame_from_lists(
    prompts: list[Prompt],
    responses: Sequence[str] | None,
    counterfactual_responses: Mapping[str, Mapping[str, Sequence[str]]] | None,
    attributes: Mapping[str, Any],
    *,
    names: bool = True,
    change_system_prompt: bool = True,
    subject: Any = "first",
) -> pd.DataFrame:
    """Response frame from plain lists (``names``: the counterfactual prompts replace personal names too, those of
    ``subject``, the use case's ``name_subject``; ``change_system_prompt``: and a conversation's system turns).

    ``responses``: ``len(prompts) * m`` texts, prompt-major (all samples of prompt 0, then prompt 1, ...).
    ``counterfactual_responses``: ``{attribute: {group: texts}}``, each list aligned with the attribute's
    counterfactual prompts (``counterfactual_prompts(prompts, attribute).source_index``), ``m`` per prompt.
    """
    frames = []
    if responses is not None:
        texts = as_text_list(responses, "responses")
        if len(texts) % len(prompts):
            raise InputError(
                f"responses has {len(texts)} texts for {len(prompts)} prompts; give the same number for each prompt"
            )
        m = len(texts) // len(prompts)
        frames.append(
            pd.DataFrame(
                {
                    "prompt_id": np.repeat(np.arange(len(prompts)), m),
                    "attribute": None,
                    "group": None,
                    "sample": np.tile(np.arange(m), len(prompts)),
                    "prompt": np.repeat(np.asarray(prompts, dtype=object), m),
                    "response": texts,
                }
            )
        )
    for name, by_group in (counterfactual_responses or {}).items():
        if name not in attributes:
            raise InputError(f"counterfactual_responses has attribute {name!r}; the use case checks {list(attributes)}")
        requests = counterfactual_requests(
            prompts, {name: attributes[name]}, names=names, subject=subject, change_system_prompt=change_system_prompt
        )
        for group, texts_any in by_group.items():
            req = requests[requests["group"] == group]
            if req.empty:
                groups = sorted(set(requests["group"]))
                raise InputError(f"counterfactual_responses[{name!r}] has unknown group {group!r}; groups: {groups}")
            texts = as_text_list(texts_any, f"counterfactual_responses[{name!r}][{group!r}]")
            if len(texts) % len(req):
                raise InputError(
                    f"counterfactual_responses[{name!r}][{group!r}] has {len(texts)} texts for {len(req)} "
                    "counterfactual prompts; give the same number for each"
                )
            m = len(texts) // len(req)
            # the request's columns, each repeated for its m responses (the names it swapped too)
            carried = [c for c in ("prompt_id", "prompt", SWAPPED_NAMES) if c in req]
            rows: dict[str, Any] = {
                c: np.repeat(req[c].to_numpy(dtype=object if c != "prompt_id" else None), m) for c in carried
            }
            rows |= {"attribute": name, "group": group, "sample": np.tile(np.arange(m), len(req)), "response": texts}
            frames.append(pd.DataFrame(rows))
    if not frames:
        raise InputError("no responses given")
    return finish_frame(pd.concat(frames, ignore_index=True))


def frame_from_table(
    table: pd.DataFrame,
    attributes: Mapping[str, Any],
    *,
    prompt_column: str = "prompt",
    response_column: str = "response",
    prompt_id_column: str | None = "prompt_id",
    attribute_column: str | None = "attribute",
    group_column: str | None = "group",
    sample_column: str | None = "sample",
    extra_columns: Mapping[str, str] | None = None,
    source: str = "responses",
    names: bool = True,
    change_system_prompt: bool = True,
    subject: Any = "first",
) -> tuple[list[Prompt], pd.DataFrame]:
    """Response frame from a user's table (bring-your-own responses); returns ``(prompts, frame)``.

    Rows with an empty group are responses to the original prompts; the prompts of the use case are their
    distinct prompts in order of appearance (texts, or conversations where the prompt column holds lists of
    messages). A counterfactual row is linked to its source prompt by
    ``prompt_id_column`` when the table has it (then counterfactual rows alone are enough: a prompt without an
    original row is known by its first version), otherwise by rebuilding the counterfactual prompts and matching
    the text (``names``: personal names replaced too, as the use case's ``names`` says, those of ``subject``, its
    ``name_subject``; ``change_system_prompt``: a conversation's system turns too). The attribute, group and sample
    columns, too, are read only where the table has them.
    """
    from evenhand.pipeline.responses.tables import column
    from evenhand.pipeline.responses.tables import prompt_column as read_prompts

    defaults = {"prompt_id", "attribute", "group", "sample"}

    def col(name: str | None) -> list[Any] | None:
        """An optional column: a default name may be absent, a name the user chose must exist."""
        if name is None or (name not in table.columns and name in defaults):
            return None
        return column(table, name, source=source, role=f"the {name!r} column you named")

    prompt_text = read_prompts(table, prompt_column, source=source)
    response = column(table, response_column, source=source, role="responses")
    groups = col(group_column) or [None] * len(table)
    groups = [None if g is None or (isinstance(g, float) and np.isnan(g)) or str(g) == "" else str(g) for g in groups]
    attrs = col(attribute_column) or [None] * len(table)
    attrs = [None if a is None or (isinstance(a, float) and np.isnan(a)) or str(a) == "" else str(a) for a in attrs]
    original = [g is None for g in groups]
    prompts = list(dict.fromkeys(p for p, o in zip(prompt_text, original, strict=True) if o))
    explicit_ids = col(prompt_id_column)
    samples = col(sample_column)
    if explicit_ids is not None and samples is None and not all(original):
        _check_ids_pair_versions(explicit_ids, attrs, groups, source, prompt_id_column)
    if explicit_ids is not None:
        # every id is a prompt of its own, the unit intervals and tests resample, also where two ids' prompts read
        # alike (one template for every applicant of a log): ids sharing a text were merged into one unit
        id_to_pos: dict[Any, int] = {}
        prompts = []
        rows = list(zip(explicit_ids, prompt_text, original, strict=True))
        # original rows first; a prompt with counterfactual rows only (e.g. a recommendation file): its first version
        for pid, p, _ in [row for row in rows if row[2]] + [row for row in rows if not row[2]]:
            if pid not in id_to_pos:
                id_to_pos[pid] = len(prompts)
                prompts.append(p)
        prompt_ids = [id_to_pos[pid] for pid in explicit_ids]
    else:
        pos = {p: i for i, p in enumerate(prompts)}
        # (attribute, group, counterfactual prompt) -> source prompt, from rebuilding the counterfactuals
        lookup: dict[tuple[str, str, Prompt], int] = {}
        if any(not o for o in original) and prompts:
            requests = counterfactual_requests(
                prompts, attributes, names=names, subject=subject, change_system_prompt=change_system_prompt
            )
            for att, grp, version, pid in zip(
                requests["attribute"], requests["group"], requests["prompt"], requests["prompt_id"], strict=True
            ):
                lookup[(str(att), str(grp), version)] = int(pid)
        prompt_ids = []
        for p, a, g in zip(prompt_text, attrs, groups, strict=True):
            if g is None:
                prompt_ids.append(pos[p])
                continue
            candidates = [a] if a is not None else list(attributes)
            found = [lookup[(c, g, p)] for c in candidates if (c, g, p) in lookup]
            prompt_ids.append(found[0] if found else -1)
    unknown = [i for i, pid in enumerate(prompt_ids) if pid < 0]
    if unknown:
        raise InputError(
            f"{source}: {len(unknown)} counterfactual row(s) cannot be linked to an original prompt (first: row "
            f"{unknown[0] + 1}); add a column with the id of each prompt's versions and name it in "
            "responses.prompt_id_column (evenhand metrics --prompt-id-column)"
        )
    attrs_filled = [
        (a if a is not None else (next(iter(attributes)) if len(attributes) == 1 else None)) if g is not None else None
        for a, g in zip(attrs, groups, strict=True)
    ]
    if any(g is not None and a is None for a, g in zip(attrs_filled, groups, strict=True)):
        raise InputError(
            f"{source}: counterfactual rows need an attribute column when several attributes are checked "
            "(responses.attribute_column, evenhand metrics --attribute-column)"
        )
    frame = pd.DataFrame(
        {
            "prompt_id": prompt_ids,
            "attribute": attrs_filled,
            "group": groups,
            "prompt": prompt_text,
            "response": [None if r is None or (isinstance(r, float) and np.isnan(r)) else str(r) for r in response],
        }
    )
    if samples is not None:
        frame["sample"] = pd.to_numeric(pd.Series(samples), errors="raise").astype(int).to_numpy()
        if explicit_ids is not None:
            _check_ids_name_prompts(frame, explicit_ids, source, prompt_id_column, sample_column)
    else:
        frame["sample"] = frame.groupby(["prompt_id", "attribute", "group"], dropna=False).cumcount()
    for target, name in (extra_columns or {}).items():
        role, named_by = _EXTRA_COLUMN_ROLES.get(target, (target, ""))
        values = column(table, name, source=source, role=role, named_by=named_by)
        frame[target] = pd.Series(values, dtype=object)
    frame["status"] = ["ok" if r is not None else "error" for r in frame["response"]]
    return prompts, finish_frame(frame)


def _check_ids_pair_versions(
    ids: list[Any], attrs: list[str | None], groups: list[str | None], source: str, id_column: str | None
) -> None:
    """Refuse ids of a counterfactual table without a sample column that number requests, not prompts (inputs14):
    where no id holds two versions of a prompt (an id per row: "req_1", "req_2"), no version can be paired, and
    every counterfactual metric was undefined without a word. Ids shared by the versions of one sample ("p3_s0",
    "p3_s1") cannot be told from ids of prompts that read alike (one template, the record kept out of the log), which
    stay units of their own: docs/assessment.md, "Ids of requests"."""
    versions: dict[Any, set[tuple[str | None, str | None]]] = {}
    for pid, attr, group in zip(ids, attrs, groups, strict=True):
        versions.setdefault(pid, set()).add((attr, group))
    if any(len(held) > 1 for held in versions.values()):
        return
    first = next(r for r, g in enumerate(groups) if g is not None)
    raise InputError(
        f"{source}: the {id_column!r} column gives each row an id of its own and no id holds two versions of a "
        f"prompt (id {ids[first]!r}, row {first + 1}, holds the {groups[first]!r} version alone): ids of requests, "
        "not prompts, pair no version; give all the versions and samples of a prompt one id (with a sample column, "
        "responses.sample_column, where a prompt has several samples), or leave the column out "
        "(responses.prompt_id_column: null) to link versions to the original prompts' rows by their text and number "
        "samples in their order"
    )


def _check_ids_name_prompts(
    frame: pd.DataFrame, ids: list[Any], source: str, id_column: str | None, sample_column: str | None
) -> None:
    """Refuse ids that number requests, not prompts: every id holds one sample number while the sample column numbers
    two or more samples a prompt (at most half the ids hold the first sample: each sample of a prompt has an id of
    its own; a lone retry logged as sample 1 is no such sign). Every id is a unit of its own, so the samples of one
    prompt would be counted as independent units (a fair log: 15% false concern, review10)."""
    per_id = frame.groupby("prompt_id")["sample"]
    first = frame["sample"].min()
    if per_id.nunique().max() > 1 or (per_id.min() == first).mean() > 0.5:
        return
    row = int(np.flatnonzero(frame["sample"].to_numpy() != first)[0])
    raise InputError(
        f"{source}: the {id_column!r} column gives each sample an id of its own (id {ids[row]!r} holds only sample "
        f"{frame['sample'].iloc[row]} of the {sample_column!r} column, row {row + 1}): ids of requests, not prompts, "
        "would count a prompt's samples as independent units; give all the samples (and versions) of a prompt its "
        "id, or leave the column out (responses.prompt_id_column: null)"
    )


def frame_prompts(frame: pd.DataFrame) -> list[Prompt]:
    """The prompt of each ``prompt_id`` of a response frame: its original text, else its first version."""
    ordered = frame.assign(_version=frame["group"].notna()).sort_values(["prompt_id", "_version"], kind="stable")
    first = ordered.drop_duplicates("prompt_id").set_index("prompt_id")["prompt"]
    return [str(first.get(i, "")) for i in range(int(frame["prompt_id"].max()) + 1)] if len(frame) else []


def ok_rows(frame: pd.DataFrame, *, original: bool | None = None, attribute: str | None = None) -> pd.DataFrame:
    """Rows with a response (status ok), optionally only originals or one attribute's counterfactual rows."""
    mask = (frame["status"] == "ok") & frame["response"].notna()
    if original is True:
        mask &= frame["group"].isna()
    elif original is False:
        mask &= frame["group"].notna()
    if attribute is not None:
        mask &= frame["attribute"] == attribute
    return frame[mask]


def group_pairs(
    frame: pd.DataFrame, attribute: str, order: Sequence[str] = (), *, replied: bool = True
) -> Iterator[tuple[str, str, pd.DataFrame]]:
    """Counterfactual response pairs for every pair of groups of ``attribute``, aligned by (prompt, sample).

    Yields ``(group_a, group_b, pairs)`` where ``pairs`` has ``prompt_id, sample`` and the ``_a`` / ``_b``
    columns of both rows (``response_a``, ``sentiment_b``, ...); only pairs where both responses exist. The groups
    come in ``order`` (the attribute lexicon's group order: one orientation per attribute, issue 37), groups it
    does not name after those it does, in the frame's order. ``replied=False``: every pair of requests, replied or
    not (an error, a content filter, an empty reply), what non-completion parity compares.
    """
    rows = _counterfactual_rows(frame, attribute, replied=replied)
    rank = {str(g).casefold(): i for i, g in enumerate(order)}
    seen = list(dict.fromkeys(rows["group"].tolist()))
    groups = sorted(seen, key=lambda g: (rank.get(str(g).casefold(), len(rank)), seen.index(g)))
    for a, b in itertools.combinations(groups, 2):
        yield a, b, _aligned(rows, a, b)


def counterfactual_pairs(frame: pd.DataFrame, attribute: str, a: str, b: str, *, replied: bool = True) -> pd.DataFrame:
    """The counterfactual pairs of groups ``a`` and ``b`` of ``attribute`` (``a``'s columns ``_a``), as
    :func:`group_pairs` gives them (``replied=False``: every pair of requests); empty when the frame has none."""
    if not len(frame) or "group" not in frame:
        return pd.DataFrame()
    return _aligned(_counterfactual_rows(frame, attribute, replied=replied), a, b)


def _counterfactual_rows(frame: pd.DataFrame, attribute: str, *, replied: bool) -> pd.DataFrame:
    """The counterfactual rows of ``attribute``: those with a reply, or (``replied=False``) every request."""
    if replied:
        return ok_rows(frame, original=False, attribute=attribute)
    return frame[frame["group"].notna() & (frame["attribute"] == attribute)]


def _aligned(rows: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    left, right = rows[rows["group"] == a], rows[rows["group"] == b]
    pairs = left.merge(right, on=["prompt_id", "sample"], suffixes=("_a", "_b"))
    return pairs.sort_values(["prompt_id", "sample"], kind="stable").reset_index(drop=True)


def answered_pairs(found: pd.DataFrame, threshold: float | None) -> npt.NDArray[np.bool_]:
    """Which counterfactual pairs answer length (RLD) compares: those where neither reply is a refusal (refusal score
    at ``threshold`` or more, the run's detector and cut-off). A refusal is refusal parity's evidence (RRD): counted
    as a short answer too, one behaviour gave two findings. Every pair without refusal scores (no threshold, no
    ``refusal_a``/``refusal_b`` columns: replies scored by no detector); a reply without a score counts as answered.
    The run and ``compare`` (from the stored refusal scores) choose the pairs by this one rule."""
    sides = ("refusal_a", "refusal_b")
    if threshold is None or not set(sides) <= set(found.columns):
        return np.ones(len(found), dtype=bool)
    scores = found[list(sides)].to_numpy(dtype=float)
    return np.asarray(~(scores >= threshold).any(axis=1), dtype=bool)
