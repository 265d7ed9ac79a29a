"""The LL144 impact-ratio table (evenhand.metrics.impact_ratio): a selection audit and a scoring audit computed by
hand from the DCWP rules' definitions, the 2% rule, unknown categories, and property tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics
from evenhand.errors import InputError
from evenhand.metrics.impact_ratio import AUDIT_CAVEAT, impact_ratio_table

# (sex, race/ethnicity, applicants, selected); then 5 applicants of unknown categories and 2 without an outcome
CELLS = [
    ("male", "white", 50, 30), ("male", "hispanic", 30, 12), ("male", "black", 18, 7), ("male", "asian", 2, 1),
    ("female", "white", 40, 15), ("female", "hispanic", 30, 12), ("female", "black", 9, 1), ("female", "asian", 1, 1),
]  # fmt: skip


def _applicants() -> tuple[list[str | None], list[str | None], list[float]]:
    sex: list[str | None] = []
    race: list[str | None] = []
    selected: list[float] = []
    for s, r, n, k in CELLS:
        sex += [s] * n
        race += [r] * n
        selected += [1.0] * k + [0.0] * (n - k)
    sex += [None] * 5 + ["male", "female"]
    race += [""] * 5 + ["white", "black"]
    selected += [1, 1, 1, 0, 0, math.nan, math.nan]
    return sex, race, selected


def test_selection_audit_by_hand() -> None:
    sex, race, selected = _applicants()
    table = impact_ratio_table({"sex": sex, "race/ethnicity": race}, selected=selected)
    assert table.kind == "selection" and table.rate_name == "selection rate"
    assert table.assessed == 185 and table.no_outcome == 2
    assert table.unknown == {"sex": 5, "race/ethnicity": 5, "sex+race/ethnicity": 5}
    rows = table.frame.set_index(["dimension", "category"])
    # sex: male 50/100, female 29/80; the ratio against the highest (male)
    assert rows.loc[("sex", "male"), ["individuals", "favourable", "rate"]].tolist() == [100, 50, 0.5]
    assert rows.loc[("sex", "female"), "rate"] == pytest.approx(29 / 80)
    assert rows.loc[("sex", "female"), "impact_ratio"] == pytest.approx((29 / 80) / 0.5)
    assert rows.loc[("sex", "male"), "impact_ratio"] == 1.0
    # race/ethnicity: asian is 3 of 180 applicants (1.7% < 2%): listed with its rate, left out of the ratios, and
    # not the reference although its rate (2/3) is the highest
    asian = rows.loc[("race/ethnicity", "asian")]
    assert asian["excluded"] and asian["individuals"] == 3 and asian["rate"] == pytest.approx(2 / 3)
    assert math.isnan(asian["impact_ratio"]) and asian["share_of_data"] == pytest.approx(3 / 180)
    assert table.highest["race/ethnicity"] == "white"
    assert rows.loc[("race/ethnicity", "hispanic"), "impact_ratio"] == pytest.approx(0.4 / 0.5)
    assert rows.loc[("race/ethnicity", "black"), "impact_ratio"] == pytest.approx((8 / 27) / 0.5)
    # intersectional categories: the highest is male+white (30/50); female+black 1/9
    assert table.highest["sex+race/ethnicity"] == "male+white"
    assert rows.loc[("sex+race/ethnicity", "female+black"), "impact_ratio"] == pytest.approx((1 / 9) / 0.6)
    assert set(table.excluded["category"]) == {"asian", "male+asian", "female+asian"}
    assert list(table.frame.columns) == ["dimension", "category", "individuals", "favourable", "rate",
                                         "impact_ratio", "share_of_data", "excluded"]  # fmt: skip
    # with the 2% rule off, asian is the reference and every ratio is against it
    everyone = impact_ratio_table({"race/ethnicity": race}, selected=selected, min_share=0).frame
    assert everyone.set_index("category").loc["white", "impact_ratio"] == pytest.approx(0.5 / (2 / 3))


def test_scoring_audit_by_hand() -> None:
    # median of the full sample (3.5, the unknown person's score included); above it: f has 6, m has 4 and 5
    table = impact_ratio_table({"sex": ["f", "f", "f", "m", "m", "m", None]}, scores=[1, 2, 6, 3, 4, 5, 3.5])
    assert table.kind == "scoring" and table.rate_name == "scoring rate" and table.median == 3.5
    rows = table.frame.set_index("category")
    assert rows.loc["f", "rate"] == pytest.approx(1 / 3) and rows.loc["m", "rate"] == pytest.approx(2 / 3)
    assert rows.loc["f", "impact_ratio"] == pytest.approx(0.5)
    assert table.unknown == {"sex": 1}
    # a score at the median is not above it: every rate 0, no reference, no ratio
    tied = impact_ratio_table({"sex": ["f", "m"]}, scores=[5, 5])
    assert tied.frame["rate"].tolist() == [0.0, 0.0] and tied.frame["impact_ratio"].isna().all()
    assert tied.highest == {"sex": None}


def test_json_and_caveat() -> None:
    doc = impact_ratio_table({"sex": ["f", "m", "m"]}, scores=[1.0, 2.0, math.nan]).to_dict()
    assert doc["kind"] == "scoring" and doc["caveat"] == AUDIT_CAVEAT and doc["no_outcome"] == 1
    assert "independent auditor" in AUDIT_CAVEAT and "historical data" in AUDIT_CAVEAT
    assert all(v is None or not (isinstance(v, float) and math.isnan(v)) for row in doc["rows"] for v in row.values())
    assert metrics.impact_ratio_table is impact_ratio_table


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="not both"):
        impact_ratio_table({"sex": ["f"]}, selected=[1], scores=[1])
    with pytest.raises(InputError, match="not both"):
        impact_ratio_table({"sex": ["f"]})
    with pytest.raises(InputError, match="one per individual"):
        impact_ratio_table({"sex": ["f", "m"]}, selected=[1])
    with pytest.raises(InputError, match="selected"):
        impact_ratio_table({"sex": ["f"]}, selected=[0.5])
    with pytest.raises(InputError, match="mapping"):
        impact_ratio_table({}, selected=[1])
    with pytest.raises(InputError, match="min_share"):
        impact_ratio_table({"sex": ["f"]}, selected=[1], min_share=1.5)


people = st.lists(
    st.tuples(st.sampled_from(["f", "m", None]), st.sampled_from(["a", "b", "c", None]), st.sampled_from([0, 1])),
    min_size=1,
    max_size=60,
)


@given(people)
def test_properties(rows: list[tuple[str | None, str | None, int]]) -> None:
    sex, race, selected = (list(x) for x in zip(*rows, strict=True))
    table = impact_ratio_table({"sex": sex, "race": race}, selected=selected)
    frame = table.frame
    for dimension, block in frame.groupby("dimension"):
        included = block[~block["excluded"]]
        ratios = included["impact_ratio"].dropna()
        assert ((ratios >= 0) & (ratios <= 1 + 1e-12)).all()
        if (included["rate"] > 0).any():  # the reference category has ratio 1
            assert ratios.max() == pytest.approx(1.0)
        assert block["individuals"].sum() + table.unknown[dimension] == len(rows)
        assert (block["excluded"] == (block["share_of_data"] < 0.02)).all()
    # the order of the individuals does not matter
    order = np.random.default_rng(len(rows)).permutation(len(rows))
    shuffled = impact_ratio_table(
        {"sex": [sex[i] for i in order], "race": [race[i] for i in order]}, selected=[selected[i] for i in order]
    )
    pd.testing.assert_frame_equal(shuffled.frame, frame)
