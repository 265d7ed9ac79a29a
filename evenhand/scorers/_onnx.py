"""Optional int8 inference for Hugging Face sequence classifiers: ONNX Runtime dynamic quantization.

``quantize="int8"`` on a classifier scorer (toxicity, sentiment, stereotype, Detoxify) exports the PyTorch model
to ONNX once (``torch.onnx.export``, the TorchScript exporter: the dynamo one needs ``onnxscript``), quantizes the
weights of its matrix products to int8 per output channel (``onnxruntime.quantization.quantize_dynamic``;
activations are quantized on the fly, per batch) and runs it with an ONNX Runtime ``InferenceSession`` on the
CPU. The file is cached under
``$EVENHAND_CACHE_DIR/onnx`` (else ``~/.cache/evenhand/onnx``), keyed by the model's identity and the exporter's
and quantizer's versions, so a model is exported once, not on every run.

Why opt-in: int8 shifts scores a little. At export the quantized model and the PyTorch model both score
:data:`PROBE_TEXTS`; a scorer reports that agreement (:class:`Agreement`) in ``quantization_note``, and a run puts
the note in its settings. :func:`int8_agreement` measures it on your own texts.

Why classifiers only: a classifier's decision survives small logit shifts, a cosine similarity does not. On the
bundled all-MiniLM-L6-v2, int8 moved cosines by up to 0.08 and the counterfactual dissimilarity grew by 47%, so
embedders refuse ``quantize`` (:data:`EMBEDDER_REFUSAL`).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._files import staged_folder
from evenhand._optional import MissingDependencyError, require
from evenhand.errors import InputError, RunFailure

#: The accepted values of ``quantize=`` (``None`` = full precision, the default).
QUANTIZE_CHOICES = ("int8",)
#: Bump when the export or quantization recipe changes: files cached by an older recipe are then not reused.
RECIPE_VERSION = 1
#: What settings and reports call the int8 path.
INT8_LABEL = "int8 (ONNX Runtime dynamic quantization)"
EMBEDDER_REFUSAL = (
    "quantize is not available for embedders: int8 shifts all-MiniLM-L6-v2 cosine similarities by up to 0.08 and "
    "made the counterfactual dissimilarity 47% larger, which would read as bias; quantize only classifiers "
    "(toxicity, sentiment, stereotype)"
)
#: Largest fp32 ONNX-vs-PyTorch logit difference accepted at export: more means the export is wrong, not rounding.
_EXPORT_TOLERANCE = 1e-3

#: Texts both precisions score at export; their agreement is what a quantized scorer reports. Short and long,
#: neutral, warm, rude and identity-mentioning sentences, so that scores spread over [0, 1] for most classifiers.
PROBE_TEXTS = (
    "Thank you for your order, it will arrive on Tuesday.",
    "Your account balance is shown on the first page of the statement.",
    "We are delighted to welcome you as a new customer!",
    "Please find attached the invoice for last month.",
    "The nurse said she would call back after her shift.",
    "The engineer said he would fix the problem tomorrow.",
    "I am a gay black woman and I love my job.",
    "As a Muslim man, he prays five times a day.",
    "The elderly client asked for help with the online form.",
    "You are a worthless idiot and nobody likes you.",
    "Shut up, this is the stupidest question I have ever read.",
    "What a terrible, useless service. I hate dealing with you people.",
    "Get lost, you pathetic loser.",
    "This is damn awful and a complete waste of my time.",
    "I will make sure you regret this.",
    "Women are too emotional to be good leaders.",
    "Old people cannot learn how to use computers.",
    "Immigrants are lazy and take our jobs.",
    "Great job, the team did wonderful work this quarter.",
    "I'm not sure this is right, could you double-check the numbers?",
    "The meeting is moved to 3 pm; bring the quarterly report.",
    "Sorry for the delay, we had a problem with the delivery partner.",
    "This product broke after two days. Disappointing.",
    "Absolutely fantastic experience, highly recommended!",
    "He is a doctor and she is a nurse at the same hospital.",
    "They were rude to me at the front desk and I am upset.",
    "Stop wasting my time with your nonsense.",
    "The weather was grey and rainy all week.",
    "Our records show two payments were made in March, on the 3rd and the 17th, and none in April; if this does "
    "not match your own records, reply to this message with the dates you have and we will look into it.",
    "Dear Mrs. Lee, we regret to inform you that your loan application was not approved at this time, but you "
    "may apply again in six months or speak to an adviser about other options that could suit you better.",
    "ok",
    "",
)


@dataclass(frozen=True)
class Agreement:
    """How closely int8 scores follow full-precision (fp32) scores of the same texts.

    With :math:`s_i` the fp32 score and :math:`q_i` the int8 score of text :math:`i` (:math:`n` texts):
    ``max_abs_diff`` :math:`= \\max_i |q_i - s_i|`, ``mean_abs_diff`` :math:`= \\frac1n \\sum_i |q_i - s_i|`,
    ``decision_agreement`` :math:`= \\frac1n \\sum_i [\\,(q_i \\ge t) = (s_i \\ge t)\\,]` at ``threshold`` :math:`t`,
    and ``rank_correlation`` the Spearman correlation of :math:`q` and :math:`s` (NaN when either is constant).
    """

    n: int
    max_abs_diff: float
    mean_abs_diff: float
    decision_agreement: float
    rank_correlation: float
    threshold: float

    @classmethod
    def of(cls, reference: Any, quantized: Any, threshold: float = 0.5) -> Agreement:
        """The agreement of ``quantized`` scores with ``reference`` (fp32) scores of the same texts."""
        ref = np.asarray(reference, dtype=np.float64).reshape(-1)
        quant = np.asarray(quantized, dtype=np.float64).reshape(-1)
        if ref.shape != quant.shape or ref.size == 0:
            raise InputError(f"need two equally long, non-empty score arrays; got {ref.size} and {quant.size}")
        diff = np.abs(quant - ref)
        return cls(
            n=int(ref.size),
            max_abs_diff=float(diff.max()),
            mean_abs_diff=float(diff.mean()),
            decision_agreement=float(np.mean((quant >= threshold) == (ref >= threshold))),
            rank_correlation=_spearman(ref, quant),
            threshold=float(threshold),
        )

    def describe(self) -> str:
        """One line for settings and reports."""
        rho = "n/a (constant scores)" if np.isnan(self.rank_correlation) else f"{self.rank_correlation:.4f}"
        return (
            f"max |diff| {self.max_abs_diff:.4f}, mean |diff| {self.mean_abs_diff:.4f}, "
            f"same decision at {self.threshold:g} for {self.decision_agreement:.1%}, Spearman {rho} "
            f"({self.n} texts)"
        )

    def to_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}


def _spearman(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def check_quantize(value: Any) -> str | None:
    """Validate a ``quantize=`` option: ``None`` (full precision) or ``"int8"``."""
    if value is None:
        return None
    if isinstance(value, str) and value.lower() in QUANTIZE_CHOICES:
        return value.lower()
    raise InputError(f"quantize must be 'int8' or None (full precision), got {value!r}")


def refuse_quantize(options: dict[str, Any], what: str) -> None:
    """Take ``quantize`` out of a non-neural scorer's options, refusing it in one line when it is set."""
    if options.pop("quantize", None) is not None:
        raise InputError(f"quantize applies to Hugging Face and Detoxify classifiers only, not to {what}")


def check_int8_device(device: str) -> None:
    """int8 runs on ONNX Runtime's CPU provider: "auto" and "cpu" are fine, an explicit accelerator is refused."""
    if device not in ("auto", "cpu"):
        raise InputError(
            f"quantize='int8' runs on the CPU (ONNX Runtime dynamic quantization), but device={device!r} was asked; "
            "use device='cpu' or leave out quantize"
        )


def onnx_cache_dir() -> Path:
    """``$EVENHAND_CACHE_DIR/onnx``, else ``~/.cache/evenhand/onnx`` (beside the score cache)."""
    from evenhand.scorers._cache import default_cache_path

    return default_cache_path().parent / "onnx"


def softmax_or_sigmoid(logits: npt.NDArray[Any], multi_label: bool) -> npt.NDArray[np.float64]:
    """Probabilities from logits as the fp32 path computes them: sigmoid per label (multi-label), else softmax."""
    z = np.asarray(logits, dtype=np.float64)
    if multi_label:
        return np.asarray(1.0 / (1.0 + np.exp(-z)))
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def _threads() -> int:
    """The cores this process may use (affinity and cgroup pinning respected), for ONNX Runtime's intra-op pool:
    its own default counts every physical core of the machine, which oversubscribes a pinned process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


class QuantizedClassifier:
    """An int8 ONNX Runtime session of a sequence-classification model: ``logits(encoding) -> (n, n_labels)``.

    Build it with :func:`load_quantized`. ``probe_reference`` and ``probe_quantized`` hold the fp32 (PyTorch) and
    int8 logits of :data:`PROBE_TEXTS`, from which a scorer computes the agreement of its own score.
    """

    def __init__(self, folder: Path) -> None:
        meta = json.loads((folder / "meta.json").read_text())
        self.folder = folder
        self.digest: str = meta["digest"]
        self.input_names: list[str] = list(meta["inputs"])
        self.probe_reference = np.asarray(meta["probe_reference"], dtype=np.float64)
        self.probe_quantized = np.asarray(meta["probe_quantized"], dtype=np.float64)
        self._session = cpu_session(folder / "model.int8.onnx")

    def logits(self, encoding: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """Logits of a tokenizer's output (NumPy arrays), in the exported input order."""
        feed = {name: np.asarray(encoding[name], dtype=np.int64) for name in self.input_names}
        return np.asarray(self._session.run(None, feed)[0], dtype=np.float64)

    def probe_agreement(self, score: Callable[[npt.NDArray[np.float64]], Any], threshold: float = 0.5) -> Agreement:
        """Agreement on :data:`PROBE_TEXTS` of the score ``score(logits)`` computes (the scorer's post-processing)."""
        return Agreement.of(score(self.probe_reference), score(self.probe_quantized), threshold)


def int8_note(agreement: Agreement) -> str:
    """What settings say about a quantized scorer."""
    return f"{INT8_LABEL}, agreement with fp32 on evenhand's probe texts: {agreement.describe()}"


def artifact_digest(identity: str, recipe_version: int = RECIPE_VERSION) -> str:
    """The cache folder name of a model's ONNX file: its identity plus every version that shapes the file (read
    from the installed packages' metadata: a cached file is found without importing torch)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        versions = f"torch={version('torch')}\0onnxruntime={version('onnxruntime')}"
    except PackageNotFoundError as exc:
        raise MissingDependencyError(f"ONNX Runtime inference needs {exc.name}: pip install 'evenhand[int8]'") from None
    recipe = f"{identity}\0{versions}\0recipe={recipe_version}"
    return hashlib.sha256(recipe.encode()).hexdigest()[:16]


def load_quantized(
    identity: str,
    tokenize: Callable[[list[str]], Mapping[str, Any]],
    load_net: Callable[[], Any],
    *,
    forward: Callable[[Any, Mapping[str, Any]], Any] | None = None,
) -> QuantizedClassifier:
    """The int8 model of ``identity`` from the cache, exported and quantized first when it is not there.

    Args:
        identity: what makes the model unique (reference, revision, weights' fingerprint); keys the cache.
        tokenize: texts -> the tokenizer's output as PyTorch tensors (the scorer's own settings: padding,
            truncation, maximum length).
        load_net: builds the PyTorch model, on the CPU, in eval mode; called only when an export is needed.
        forward: ``(net, inputs) -> logits``; default ``net(**inputs).logits``.
    """
    digest = artifact_digest(identity)
    folder = onnx_cache_dir() / digest
    if not (folder / "meta.json").is_file():
        _export(folder, digest, identity, tokenize, load_net(), forward or _hf_logits)
    return _open_session(str(folder))


@functools.lru_cache(maxsize=8)
def _open_session(folder: str) -> QuantizedClassifier:
    """One session per int8 file and process (a file never changes: a new model or version gets a new folder), so
    that scorers of the same model, e.g. one stereotype scorer per attribute, share its memory."""
    return QuantizedClassifier(Path(folder))


def _hf_logits(net: Any, inputs: Mapping[str, Any]) -> Any:
    return net(**inputs).logits


def _positional(net: Any, names: Sequence[str], forward: Callable[[Any, Mapping[str, Any]], Any]) -> Any:
    """``forward`` as a module taking the inputs as positional arguments in a fixed order (what tracing binds)."""
    torch = require("torch")

    class Positional(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *args: Any) -> Any:
            return forward(self.net, dict(zip(names, args, strict=True)))

    return Positional().eval()


def _export(
    folder: Path,
    digest: str,
    identity: str,
    tokenize: Callable[[list[str]], Mapping[str, Any]],
    net: Any,
    forward: Callable[[Any, Mapping[str, Any]], Any],
) -> None:
    """Export ``net`` to ONNX, check it against PyTorch, quantize it, and store it in ``folder`` atomically."""
    require("torch", feature="int8 classifiers (quantize='int8')")
    require("onnx", feature="int8 classifiers (quantize='int8')")
    quantization = require("onnxruntime.quantization", feature="int8 classifiers (quantize='int8')")
    encoding = tokenize(list(PROBE_TEXTS))
    names = input_order(net, encoding)
    inputs = {name: encoding[name] for name in names}
    # atomic: another process exporting the same model loses the race harmlessly
    with staged_folder(folder, lambda done: (done / "meta.json").is_file()) as work:
        fp32, int8 = work / "model.fp32.onnx", work / "model.int8.onnx"
        reference = export_checked(net, inputs, forward, fp32, output="logits", identity=identity,
                                   consequence="this model cannot run with quantize='int8'")  # fmt: skip
        numpy_inputs = {name: value.numpy() for name, value in inputs.items()}
        quiet = logging.getLogger().level
        logging.getLogger().setLevel(logging.ERROR)  # the quantizer logs a pre-processing advice at WARNING
        try:
            # Per-channel scales and MatMul only (embedding lookups and the small Gemm head stay fp32): on a
            # fine-tuned MiniLM this halved the largest score shift of the defaults (0.46 -> 0.29) at no speed cost.
            quantization.quantize_dynamic(
                str(fp32),
                str(int8),
                weight_type=quantization.QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
            )
        finally:
            logging.getLogger().setLevel(quiet)
        fp32.unlink()  # only the int8 file is ever run
        meta = {
            "digest": digest,
            "identity": identity,
            "inputs": names,
            "probe_reference": reference.tolist(),
            "probe_quantized": _run_file(int8, names, numpy_inputs).tolist(),
        }
        (work / "meta.json").write_text(json.dumps(meta))


def export_checked(
    net: Any,
    inputs: Mapping[str, Any],
    forward: Callable[[Any, Mapping[str, Any]], Any],
    path: Path,
    *,
    output: str,
    identity: str,
    consequence: str,
    tolerance: float = _EXPORT_TOLERANCE,
) -> npt.NDArray[np.float64]:
    """Export ``forward(net, inputs)`` to the ONNX file ``path`` (TorchScript exporter, opset 17, batch and sequence
    axes dynamic, one output named ``output``) and return PyTorch's output on ``inputs``, after checking that the
    file reproduces it within ``tolerance`` (else :class:`RunFailure` naming ``identity`` and ``consequence``).
    ``inputs`` are PyTorch tensors keyed by the names of ``forward``'s inputs, in the order the net takes them."""
    torch = require("torch", feature="ONNX export")
    require("onnx", feature="ONNX export")
    names = list(inputs)
    with torch.inference_mode():
        reference = np.asarray(forward(net, inputs).float().numpy(), dtype=np.float64)
    axes = {name: {0: "batch", 1: "sequence"} for name in names} | {output: {0: "batch"}}
    with warnings.catch_warnings():  # the TorchScript exporter warns about its own deprecation and traced ifs
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _positional(net, names, forward),
            tuple(inputs.values()),
            str(path),
            dynamo=False,  # the dynamo exporter needs onnxscript, a further dependency, for no gain here
            input_names=names,
            output_names=[output],
            dynamic_axes=axes,
            opset_version=17,
        )
    exported = _run_file(path, names, {name: value.numpy() for name, value in inputs.items()})
    if not np.allclose(exported, reference, atol=tolerance, rtol=0):
        worst = float(np.abs(exported - reference).max())
        raise RunFailure(
            f"the ONNX export of {identity} does not reproduce its PyTorch {output} (max difference {worst:.3g}); "
            + consequence
        )
    return reference


def input_order(net: Any, encoding: Mapping[str, Any]) -> list[str]:
    """The tokenizer's outputs in the order of the model's ``forward`` parameters: tracing binds inputs by
    position, and tokenizers (input_ids, token_type_ids, attention_mask) and BERT (input_ids, attention_mask,
    token_type_ids) order them differently."""
    parameters = list(inspect.signature(net.forward).parameters)
    names = [name for name in parameters if name in encoding]
    if "input_ids" not in names:
        raise RunFailure(f"cannot export {type(net).__name__}: its forward takes none of {sorted(encoding)}")
    return names


def cpu_session(path: Path, *, spinning: bool = True) -> Any:
    """An ONNX Runtime session of the file at ``path`` on the CPU, with as many intra-op threads as this process may
    use (:func:`_threads`) and one inter-op thread. ``spinning=False`` makes idle pool threads sleep rather than
    busy-wait for work: on a loaded machine a spinning thread takes a core other processes need (measured on the
    shared 2 cores at load 5.5: the toxicity encoder 1.5x faster without)."""
    ort = require("onnxruntime", feature="ONNX Runtime inference")
    options = ort.SessionOptions()
    options.intra_op_num_threads = _threads()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # warnings about unused initializers are noise here
    if not spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def _run_file(path: Path, names: list[str], inputs: Mapping[str, Any]) -> npt.NDArray[np.float64]:
    feed = {name: np.asarray(inputs[name], dtype=np.int64) for name in names}
    return np.asarray(cpu_session(path).run(None, feed)[0], dtype=np.float64)


def quantization_notes(obj: Any, _depth: int = 0) -> dict[str, str]:
    """``{"<kind>_scorer_precision": note}`` for every quantized scorer in ``obj`` (a scorer, a combination of
    scorers, a per-category or identity-masked scorer, or a dict of them), so that a run can record them in its
    settings."""
    if _depth > 3 or obj is None:
        return {}
    if isinstance(obj, Mapping):
        found: dict[str, str] = {}
        for value in obj.values():
            found |= quantization_notes(value, _depth + 1)
        return found
    found = {}
    members = getattr(obj, "scorers", None)  # MaxScorer
    for member in members if isinstance(members, (list, tuple)) else ():
        found |= quantization_notes(member, _depth + 1)
    for wrapped in ("parent", "inner"):  # one category of a stereotype scorer; an identity-masked scorer
        found |= quantization_notes(getattr(obj, wrapped, None), _depth + 1)
    note = getattr(obj, "quantization_note", None)
    if isinstance(note, str) and note:
        kind = str(getattr(obj, "description", "scorer")).lower()
        found[f"{kind}_scorer_precision"] = note
    return found


def int8_agreement(
    model: Any, texts: Sequence[str], *, kind: str = "toxicity", threshold: float = 0.5, **options: Any
) -> Agreement:
    """Score ``texts`` with ``model`` at full precision and with ``quantize="int8"``; return their :class:`Agreement`.

    ``kind`` picks the factory (``"toxicity"``, ``"sentiment"`` or ``"stereotype"``); ``options`` go to it
    (``toxic_label``, ``label``, ``categories``, ``checkpoint``, ...). Neither scorer uses the score cache.

    >>> int8_agreement("/path/to/toxicity-model", my_texts).describe()  # doctest: +SKIP
    'max |diff| 0.1686, mean |diff| 0.0104, same decision at 0.5 for 100.0%, Spearman 0.9970 (40 texts)'
    """
    from evenhand.scorers import get_sentiment_scorer, get_stereotype_scorer, get_toxicity_scorer

    factories: dict[str, Callable[..., Any]] = {
        "toxicity": get_toxicity_scorer,
        "sentiment": get_sentiment_scorer,
        "stereotype": get_stereotype_scorer,
    }
    if kind not in factories:
        raise InputError(f"kind must be one of {sorted(factories)}, got {kind!r}")
    if "quantize" in options or "cache" in options:
        raise InputError("int8_agreement sets quantize and cache itself; leave them out")
    options.setdefault("device", "cpu")
    items = list(texts)
    if not items:
        raise InputError("texts is empty: give the texts to compare the two precisions on")
    fp32 = factories[kind](model, **options)(items)
    int8 = factories[kind](model, quantize="int8", **options)(items)
    return Agreement.of(fp32, int8, threshold)
