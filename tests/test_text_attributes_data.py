"""Protected attributes are data: one schema for every lexicon file, one loader, built-ins found from the files.

No code branches on an attribute's name; a new file in the data folder is a new attribute, end to end.
"""

from __future__ import annotations

import ast
import copy
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evenhand
from evenhand.text import (
    BUILTIN_ATTRIBUTES,
    DEFAULT_ATTRIBUTES,
    Lexicon,
    builtin_attributes,
    check_ftu,
    counterfactual_prompts,
    default_attributes,
    load_lexicon,
    load_lexicon_file,
    neutralize,
)
from evenhand.text import lexicon as lexicon_module

PACKAGE = Path(evenhand.__file__).resolve().parent
DATA = PACKAGE / "data" / "lexicons"
SCHEMA_DOC = DATA / "SCHEMA.md"

AGE: dict[str, Any] = {
    "name": "age",
    "groups": ["young", "old"],
    "default": False,
    "neutral": "[MASK]",
    "stereotype_category": "age",
    "comment": "a third attribute, for the tests",
    "person_nouns": ["man", "woman", "person", "people", "applicant", "applicants"],
    "rows": [
        {
            "slot": "adjective",
            "replace_with": {"young": "young", "old": "old"},
            "terms_before_person_noun": {"young": ["young"], "old": ["old", "elderly"], "other": ["middle-aged"]},
        },
        {"slot": "noun", "replace_with": {"young": "teenager", "old": "pensioner"}, "neutral": "person"},
        {"slot": "noun", "replace_with": {"young": "millennial", "old": "boomer"}},
        {
            "slot": "noun",
            "replace_with": {"young": "youngsters", "old": "seniors"},
            "terms": {"old": ["elderly people"]},
        },
    ],
}
PROMPTS = [
    "An elderly man applied.",
    "An old car.",
    "The pensioner called.",
    "A middle-aged applicant.",
    "Summarise the call.",
]


def _write(folder: Path, data: Any, name: str = "age.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- the shipped files ---------------------------------------------------------------------------------------------


def test_builtins_are_discovered_from_the_data_files() -> None:
    files = sorted(p.stem for p in DATA.glob("*.json"))
    assert sorted(BUILTIN_ATTRIBUTES) == files
    assert BUILTIN_ATTRIBUTES == builtin_attributes()
    assert BUILTIN_ATTRIBUTES == (
        "gender",
        "race",
        "age",
        "disability",
        "economic_status",
        "nationality",
        "religion",
        "sexual_orientation",
    )
    assert DEFAULT_ATTRIBUTES == default_attributes() == ("gender", "race")
    assert isinstance(BUILTIN_ATTRIBUTES, tuple) and isinstance(DEFAULT_ATTRIBUTES, tuple)


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json")), ids=lambda p: p.name)
def test_every_data_file_validates(path: Path) -> None:
    lex = load_lexicon_file(path)
    assert lex.name == path.stem
    assert lex.groups and lex.rows
    builtin = load_lexicon(path.stem)
    assert builtin is load_lexicon(path.stem)  # cached
    assert builtin is not lex  # load_lexicon_file is not
    assert builtin.groups == lex.groups and builtin.rows == lex.rows and builtin.person_nouns == lex.person_nouns
    assert (builtin.grammar, builtin.stereotype_category) == (lex.grammar, lex.stereotype_category)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert load_lexicon_file(raw).rows == lex.rows  # a dict goes through the same loader
    for row in lex.rows:
        assert set(row.forms) == set(lex.all_groups)
        assert all(g is None or g in lex.groups for g in row.terms.values())


def test_builtin_fields_come_from_the_files() -> None:
    gender, race = load_lexicon("gender"), load_lexicon("race")
    assert gender.grammar == "english_gendered_pronouns" and race.grammar is None
    assert gender.stereotype_category == "gender" and race.stereotype_category == "race"
    # a gender word has a gender-neutral form; identity words of no group ("nonbinary", "transgender") are masked
    grouped = [row for row in gender.rows if any(g is not None for g in row.terms.values())]
    assert all(row.neutral and row.neutral != "[MASK]" for row in grouped)
    assert all(row.neutral == "[MASK]" for row in race.rows)
    assert not gender.person_nouns and "woman" in race.person_nouns
    assert [row.needs_name for row in gender.rows].count(True) == 1  # Ms.
    custom = load_lexicon({"young": ["young"], "old": ["old"]})
    assert custom.grammar is None and custom.stereotype_category is None


def test_schema_doc_lists_every_key_and_its_example_loads() -> None:
    doc = SCHEMA_DOC.read_text(encoding="utf-8")
    file_model = lexicon_module._schema()
    row_model = file_model.model_fields["rows"].annotation.__args__[0]  # list[Row]
    documented = set(re.findall(r"^\| `(\w+)` \|", doc, flags=re.M))
    assert documented == set(file_model.model_fields) | set(row_model.model_fields)
    example = json.loads(re.findall(r"```json\n(.*?)```", doc, flags=re.S)[0])
    lex = load_lexicon_file(example)
    assert lex.name == "age" and lex.groups == ("young", "old")


@pytest.mark.subprocess
def test_text_core_import_does_not_import_pydantic() -> None:
    code = "import sys, evenhand.text; assert 'pydantic' not in sys.modules, 'pydantic imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- bad files -----------------------------------------------------------------------------------------------------


def _bad(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(AGE)
    change(data)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_bad(lambda d: d.pop("default")), "missing key 'default'"),
        (_bad(lambda d: d.pop("rows")), "missing key 'rows'"),
        (_bad(lambda d: d.update(colour="blue")), "unknown key 'colour'"),
        (_bad(lambda d: d.update(mask="[MASK]")), "unknown key 'mask'"),
        (_bad(lambda d: d["rows"][2].pop("slot")), "missing key 'rows[2].slot'"),
        (_bad(lambda d: d["rows"][1].update(female="she")), "unknown key 'rows[1].female'"),
        (_bad(lambda d: d.update(default="yes")), "key 'default': Input should be a valid boolean"),
        (_bad(lambda d: d["rows"][0]["terms_before_person_noun"].update(old="elderly")), "key 'rows[0].terms_bef"),
        (_bad(lambda d: d.update(name="Age group")), "key 'name'"),
        (_bad(lambda d: d.update(groups=[])), "key 'groups'"),
        (_bad(lambda d: d.update(groups=["young", "young"])), "key 'groups': repeated group"),
        (_bad(lambda d: d.update(groups=["young", "other"])), "key 'groups': 'other' is reserved"),
        (_bad(lambda d: d["rows"][2]["replace_with"].pop("old")), "key 'rows[2].replace_with': no form for group"),
        (_bad(lambda d: d["rows"][2]["replace_with"].update(mid="adult")), "key 'rows[2].replace_with': unknown group"),
        (_bad(lambda d: d["rows"][3]["terms"].update(mid=["adult"])), "key 'rows[3].terms.mid': unknown group"),
        (_bad(lambda d: d["rows"][3]["terms"].update(old=[" "])), "key 'rows[3].terms.old': item 0"),
        (_bad(lambda d: d["rows"][3].update(terms={})), "key 'rows[3].terms': the row has no terms"),
        (_bad(lambda d: d.pop("person_nouns")), "key 'rows[0].terms_before_person_noun': the file has no person_nouns"),
        (_bad(lambda d: d.update(grammar="klingon")), "key 'grammar': unknown grammar 'klingon'"),
        (_bad(lambda d: d.update(neutral="")), "key 'neutral' is empty"),
        ([1, 2], "valid dictionary"),
    ],
)
def test_bad_file_names_the_file_and_the_key(tmp_path: Path, data: Any, message: str) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        load_lexicon_file(path)
    assert str(info.value).startswith(f"lexicon file {path}: ")
    if isinstance(data, dict):
        with pytest.raises(ValueError, match=re.escape(message)):  # the same from a dict
            load_lexicon_file(data)


def test_bad_json_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "age.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"lexicon file {re.escape(str(path))}: not valid JSON"):
        load_lexicon_file(path)
    with pytest.raises(FileNotFoundError):
        load_lexicon_file(tmp_path / "nope.json")


def test_all_problems_are_reported_at_once() -> None:
    data = _bad(lambda d: (d.pop("default"), d.update(colour=1), d["rows"][0].pop("slot")))
    with pytest.raises(ValueError) as info:
        load_lexicon_file(data)
    for part in ("missing key 'default'", "unknown key 'colour'", "missing key 'rows[0].slot'"):
        assert part in str(info.value)


def test_load_lexicon_file_rejects_other_sources() -> None:
    with pytest.raises(TypeError, match="a path or a dict"):
        load_lexicon_file(42)  # type: ignore[arg-type]


def test_lexicon_rejects_an_unknown_grammar() -> None:
    with pytest.raises(ValueError, match="unknown grammar"):
        Lexicon("x", ("a",), (), grammar="nope")


# -- a third attribute, end to end -------------------------------------------------------------------------------


@pytest.fixture
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the data folder, with ``age.json`` added, as the package's data folder."""
    folder = tmp_path / "lexicons"
    folder.mkdir()
    for name in ("gender.json", "race.json", "SCHEMA.md"):  # the default files, and a test age file
        shutil.copy(DATA / name, folder / name)
    _write(folder, AGE)

    def use(folder: Path) -> None:
        builtins, defaults, masked = lexicon_module._discover(folder)
        monkeypatch.setattr(lexicon_module, "_DATA", folder)
        monkeypatch.setattr(lexicon_module, "MASKED_ATTRIBUTES", masked)
        monkeypatch.setattr(lexicon_module, "BUILTIN_ATTRIBUTES", builtins)
        monkeypatch.setattr(lexicon_module, "DEFAULT_ATTRIBUTES", defaults)
        lexicon_module._load_builtin.cache_clear()

    use(folder)
    yield folder
    lexicon_module._load_builtin.cache_clear()


def test_third_file_is_discovered(data_folder: Path) -> None:
    assert builtin_attributes() == ("gender", "race", "age")  # default ones first
    assert default_attributes() == ("gender", "race")
    with pytest.raises(ValueError, match=re.escape("built-ins are ['gender', 'race', 'age']")):
        load_lexicon("religion")
    lex = load_lexicon(" AGE ")
    assert lex is load_lexicon("age")
    assert lex.name == "age" and lex.groups == ("young", "old") and lex.stereotype_category == "age"
    # a row with terms: they select it, its replace_with forms do not ("seniors")
    assert lex.group_words("old") == frozenset({"old", "elderly", "pensioner", "boomer", "elderly people"})
    assert lex.group_of("middle-aged") is None
    # the gender and race files of the copy give the same lexicons
    assert load_lexicon("gender").rows == load_lexicon_file(DATA / "gender.json").rows


def test_discovery_order_puts_default_files_first(tmp_path: Path) -> None:
    _write(tmp_path, AGE)
    _write(tmp_path, {**AGE, "name": "zodiac", "default": True}, "zodiac.json")
    _write(tmp_path, {**AGE, "name": "accent", "default": True, "masked_by_default": False}, "accent.json")
    (tmp_path / "notes.md").write_text("not a lexicon")
    assert lexicon_module._discover(tmp_path) == (
        ("accent", "zodiac", "age"),
        ("accent", "zodiac"),
        ("zodiac", "age"),  # accent.json says masked_by_default: false
    )


def test_third_file_check_ftu(data_folder: Path) -> None:
    r = check_ftu(PROMPTS, attribute="age")
    assert r.attribute == "age" and r.flagged_index == (0, 2, 3)  # "An old car" is not an age mention
    assert [m.term for m in r.matches[0]] == ["elderly"] and r.matches[0][0].group == "old"
    assert r.group_counts() == {"old": 2}
    everything = check_ftu(PROMPTS, attribute=None)
    assert everything.attribute == "gender+race+age"
    assert [(m.attribute, m.term) for m in everything.matches[0]] == [("age", "elderly"), ("gender", "man")]


def test_third_file_counterfactual_prompts_and_neutralize(data_folder: Path) -> None:
    cf = counterfactual_prompts(PROMPTS, attribute="age")
    assert cf.groups == ("young", "old") and cf.source_index.tolist() == [0, 2, 3]
    assert cf["young"] == ["A young man applied.", "The teenager called.", "A young applicant."]
    assert cf["old"] == ["An old man applied.", "The pensioner called.", "An old applicant."]
    swap = counterfactual_prompts(PROMPTS, attribute="age", mode="swap")
    assert swap["swapped"] == ["A young man applied.", "The teenager called.", "A middle-aged applicant."]
    assert neutralize(PROMPTS, attribute="age") == [
        "An [MASK] man applied.",
        "An old car.",
        "The person called.",
        "A [MASK] applicant.",
        "Summarise the call.",
    ]
    assert neutralize(["The elderly people and a boomer."], attribute="age") == ["The [MASK] and a [MASK]."]


def test_a_file_outside_the_data_folder_works_as_attribute(tmp_path: Path) -> None:
    lex = load_lexicon_file(_write(tmp_path, AGE))
    assert check_ftu(PROMPTS, attribute=lex).flagged_index == (0, 2, 3)
    assert counterfactual_prompts(PROMPTS, attribute=lex)["young"][0] == "A young man applied."
    with_grammar = load_lexicon_file(str(_write(tmp_path, {**AGE, "grammar": "english_gendered_pronouns"})))
    assert with_grammar.grammar == "english_gendered_pronouns"


def test_builtin_name_must_match_its_file(data_folder: Path) -> None:
    _write(data_folder, {**AGE, "name": "years"})
    with pytest.raises(ValueError, match=r"lexicon file evenhand/data/lexicons/age\.json: key 'name' is 'years'"):
        load_lexicon("age")


# -- no code branches on an attribute's name ---------------------------------------------------------------------

_NAMES = ("gender", "race")
_PATTERNS = (
    re.compile(r"""["'](gender|race)["']\s*(==|!=|\bin\b|\bif\b)"""),  # "gender" == x, "race" in x, "gender" if
    re.compile(r"""(==|!=|\bin)\s*[(\[{]?\s*["'](gender|race)["']"""),  # x == "gender", x in ("gender", ...)
    re.compile(r"""[(\[{]\s*["']gender["']\s*,\s*["']race["']\s*,?\s*[)\]}]"""),  # ("gender", "race")
    re.compile(r"""\bcase\s+["'](gender|race)["']"""),  # match attribute: case "gender"
)


def _is_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in _NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_name(e) for e in node.elts)
    return False


def _branches(path: Path) -> list[str]:
    """Lines of ``path`` that compare or branch on an attribute name, outside docstrings and comments."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a file being edited: the line patterns only
        return [f"{path.name}:{i}: {x.strip()}" for i, x in enumerate(lines, 1) if any(p.search(x) for p in _PATTERNS)]
    hits: set[int] = set()
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docstrings.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, ast.Compare) and any(_is_name(x) for x in (node.left, *node.comparators)):
            hits.add(node.lineno)
        elif isinstance(node, ast.IfExp) and (_is_name(node.body) or _is_name(node.orelse)):
            hits.add(node.lineno)
        elif isinstance(node, ast.MatchValue) and _is_name(node.value):
            hits.add(node.lineno)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and {"gender", "race"} == {
            e.value for e in node.elts if isinstance(e, ast.Constant)
        }:
            hits.add(node.lineno)  # a hard-coded list of the attributes
    code = list(lines)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            code[row - 1] = code[row - 1][:col]
    for i, line in enumerate(code, start=1):
        if i not in docstrings and any(p.search(line) for p in _PATTERNS):
            hits.add(i)
    label = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE.parent) else path.name
    return [f"{label}:{i}: {lines[i - 1].strip()}" for i in sorted(hits)]


def test_branch_scanner_finds_what_it_should(tmp_path: Path) -> None:
    path = tmp_path / "sample.py"
    path.write_text(
        '"""Docstring: attribute == "gender" is fine here, ("gender", "race") too."""\n'
        'x = 1  # so is a comment: if name == "race"\n'
        'a = name == "gender"\n'
        'b = name in ("gender", "race")\n'
        'c = "race" if flag else "custom"\n'
        "d = ('gender', 'race')\n"
        'e = name in (\n    "gender",\n)\n'
        'f = load("gender")\n'
    )
    hits = [h.split(":")[1] for h in _branches(path)]
    assert hits == ["3", "4", "5", "6", "7"]


@pytest.mark.slow
def test_no_code_branches_on_an_attribute_name() -> None:
    hits = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _branches(path)]
    assert not hits, "code names an attribute; use the lexicon files' data instead:\n" + "\n".join(hits)
