"""The prompts' language (evenhand/text/language.py): Spanish is seen, English is never mistaken for another language.

Prompts in another language than English belong in tests/test_language_*.py: the scan below reads every other test
file's prompts and checks that none is declared non-English.
"""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path

import pytest

from evenhand.text.language import LanguageGuess, detect_language, language_name

TESTS = Path(__file__).resolve().parent
DEMO = TESTS.parent / "evenhand" / "data" / "demo" / "prompts.jsonl"

SPANISH = [
    "Escribe un mensaje breve a la señora García recordándole que su póliza vence la próxima semana.",
    "Mi madre quiere saber si su seguro cubre los daños por agua en la cocina.",
    "Redacta una respuesta amable para una mujer que pregunta por el estado de su reclamación.",
    "Mi esposa perdió su tarjeta de débito; ¿qué debe hacer él para bloquearla?",
    "Él es el padre de dos niños y necesita un seguro de vida.",
    "Resume la llamada de la clienta sobre su factura del mes pasado.",
    "Escribe una nota para el señor López: su tarjeta nueva ya fue enviada.",
    "La abuela de Ana pregunta cómo cambiar la dirección de su cuenta.",
    "Explica a un hombre mayor cómo activar la banca en línea desde su teléfono.",
    "Mi hermana y su marido quieren abrir una cuenta conjunta para los ahorros.",
]
SHORT_ENGLISH = [
    "Summarise the call.",
    "Thank the client.",
    "Hi.",
    "List 3 films.",
    "Write to the elderly client.",
    "Summarise her account.",
    "Route ticket 3",
    "Tell him.",
]


def demo_prompts() -> list[str]:
    return [json.loads(line)["prompt"] for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_spanish_prompts_are_spanish() -> None:
    guess = detect_language(SPANISH)
    assert guess.code == "es" and guess.name == "Spanish"
    assert guess.n_votes == guess.n_sampled == guess.n_prompts == 10
    assert guess.evidence() == "es, 10 of 10 prompts"
    assert guess.differs_from("en") and not guess.differs_from("es") and not guess.differs_from(None)


@pytest.mark.parametrize(
    ("prompts", "code"),
    [
        (["Écris un court message à Mme Dubois pour lui rappeler que son contrat arrive à échéance."] * 3, "fr"),
        (["Meine Mutter möchte wissen, ob ihre Versicherung Wasserschäden abdeckt."] * 3, "de"),
        (["Minha mãe quer saber se o seguro dela cobre danos causados por água."] * 3, "pt"),
    ],
)
def test_other_languages(prompts: list[str], code: str) -> None:
    assert detect_language(prompts).code == code


def test_demo_prompts_are_english() -> None:
    guess = detect_language(demo_prompts())
    assert guess.code == "en" and guess.n_votes == 40 and guess.counts == {"en": 40}


def test_short_english_prompts_are_never_another_language() -> None:
    assert detect_language(SHORT_ENGLISH).code in (None, "en")
    for prompt in SHORT_ENGLISH:
        assert detect_language([prompt]).code in (None, "en"), prompt
    guess = detect_language(["Summarise the call.", "Thank the client."])
    assert guess.code is None and guess.n_long == 2 and guess.counts == {}  # long enough to vote, but not confident


def _test_file_prompts() -> list[tuple[str, list[str]]]:
    """The strings given as ``prompts=``/``prompt=`` or assigned to a prompt-like or upper-case name, per test file."""
    out = []
    for path in sorted(TESTS.glob("test_*.py")):
        if "language" in path.name:  # the language tests (and the refusal-language one) hold other languages on purpose
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg in ("prompts", "prompt"):
                value = node.value
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and ("prompt" in t.id.lower() or t.id.isupper()) for t in node.targets
            ):
                value = node.value
            else:
                continue
            texts = [
                n.value
                for n in ast.walk(value)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and sum(c.isalpha() for c in n.value) >= 3
            ]
            if texts:
                out.append((path.name, texts))
    return out


@pytest.mark.slow
def test_no_prompt_of_the_test_suite_is_declared_another_language() -> None:
    found = _test_file_prompts()
    assert sum(len(texts) for _, texts in found) > 200
    for name, texts in found:
        assert detect_language(texts).code in (None, "en"), (name, texts[:3])
        wrong = [t for t in texts if detect_language([t]).code not in (None, "en")]
        assert not wrong, (name, wrong)


def test_undecided_without_enough_text() -> None:
    assert detect_language([]) == LanguageGuess(None)
    assert detect_language(["", "ok", "Hi!"]).code is None
    assert detect_language(["12345 67890 12345"]).code is None


def test_no_clear_majority_is_undecided_and_reports_the_mix() -> None:
    english = demo_prompts()[:6]
    guess = detect_language(english + SPANISH[:5])
    assert guess.code is None  # 6 English, 5 Spanish: no language has 60% of the votes
    assert guess.counts == {"en": 6, "es": 5}
    assert guess.minority("en") == ("es", 5)
    mostly = detect_language(demo_prompts() + SPANISH)  # 40 English, 10 Spanish
    assert mostly.code == "en" and mostly.minority("en") == ("es", 10)
    assert detect_language(demo_prompts()).minority("en") is None


def test_sampling_is_even_and_bounded() -> None:
    prompts = demo_prompts() * 25  # 1,000 prompts
    guess = detect_language(prompts)
    assert guess.n_prompts == 1000 and guess.n_sampled == 200 and guess.code == "en"
    assert guess.evidence() == "en, 200 of 200 sampled prompts"
    assert detect_language(prompts, max_prompts=1000).n_sampled == 1000


def test_fast_on_a_thousand_prompts() -> None:
    prompts = demo_prompts() * 25
    detect_language(prompts[:1])  # loads the model once per process (about half a second)
    start = time.perf_counter()
    detect_language(prompts)
    assert time.perf_counter() - start < 0.5


def test_language_names() -> None:
    assert language_name("en") == "English" and language_name("es") == "Spanish"
    assert language_name("pcm") == "pcm" and language_name(None) == "an unknown language"
