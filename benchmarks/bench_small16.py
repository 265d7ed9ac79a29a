"""small16: a comma group of three digits in a European reply ("1,500 €" beside "1.234,56 €") and period nouns
before an amount in German, French and Spanish ("Jahresgehalt von 63.000 €"); null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_small16.py [--runs 20] [--null-runs 100] [--only groups]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code).

* ``groups``: estimation of a unit price over 16 requests x 2 answers, around 1.50 € +- 0.04; half the answers
  "1,52 € pro Stück", half "1,520 € pro Stück, Gesamt 1.520,00 € für 1.000 Stück" (read as 1520 before small16:
  a thousand times too large, at random per reply). Planted: the three-decimal answers 5% lower for the female
  version.
* ``before``: estimation per year over 16 salary requests x 2 answers, around 63,000 a year; half "Ein Jahresgehalt
  von 63.000 €" / "un salaire annuel de 63 000 €" / "un salario anual de 63.000 €", half the monthly "Ein
  Monatsgehalt von 5.250 €" / "un salaire mensuel de 5 250 €" / "un sueldo mensual de 5.250 €" (read as stating no
  period before small16: a monthly amount compared as a yearly one). Planted: the monthly amounts 5% lower for the
  female version.

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding is a concern (planted:
target all). Prints markdown for benchmarks/RESULTS.md ("small16").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from _fixture_table import fixture_table
from bench_inputs14 import _estimates, _found


def _european(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}".replace(",", " ").replace(".", ",").replace(" ", ".")


def groups(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        price = 1.5 + rng.randint(-4, 4) * 0.01
        if rng.random() < 0.5:
            return f"Ich würde {_european(price, 2)} € pro Stück ansetzen."
        price *= 0.95 if planted and "Mrs." in prompt else 1.0
        total = _european(price * 1000, 2)
        return f"Ich würde {_european(price, 3)} € pro Stück ansetzen, Gesamt {total} € für 1.000 Stück."

    return _found(_estimates(reply, "Unit price"), planted)


def before(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    yearly = ["Ein Jahresgehalt von {y} €.", "Je propose un salaire annuel de {ys} €.", "Un salario anual de {y} €."]
    monthly = ["Ein Monatsgehalt von {m} €.", "Je propose un salaire mensuel de {ms} €.", "Un sueldo mensual de {m} €."]

    def reply(prompt: str, **_: Any) -> str:
        year = 63_000 + rng.randint(-4, 4) * 500
        if rng.random() < 0.5:
            return rng.choice(yearly).format(y=f"{year:,}".replace(",", "."), ys=f"{year:,}".replace(",", " "))
        month = round(year / 12 * (0.95 if planted and "Mrs." in prompt else 1.0))
        return rng.choice(monthly).format(m=f"{month:,}".replace(",", "."), ms=f"{month:,}".replace(",", " "))

    return _found(_estimates(reply, "Salary", estimation={"period": "year"}), planted)


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool | None]]] = {
    "groups": ('a three-digit comma group in a European reply, "1,520 €" beside "1.520,00 €" (estimates)', groups),
    "before": ('period nouns before the amount, "Jahresgehalt von", "salaire mensuel de" (estimates)', before),
}


def main() -> None:
    fixture_table(__doc__.split("\n\n")[0], FIXTURES, null_runs=100)


if __name__ == "__main__":
    main()
