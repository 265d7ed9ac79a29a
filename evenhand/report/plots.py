"""Small inline SVG charts for the HTML report: no JavaScript, no external files, every label escaped.

Each function returns an SVG string that is safe to insert as markup (``markupsafe.Markup``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

PALETTE = ("#3b6ea8", "#d9822b", "#4c9a5f", "#b5483f", "#7a5ca8", "#8c6d46", "#c2559b", "#5f8d96")
_FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def _f(x: float) -> str:
    return f"{x:.1f}"


def _svg(width: int, height: int, body: list[str], title: str) -> Markup:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
    )
    return Markup(head + "".join(body) + "</svg>")


def bar_chart(
    items: Sequence[tuple[str, float | None]],
    *,
    title: str,
    xmax: float = 1.0,
    value_format: str = "{:.3f}",
    color_by: Sequence[str] | None = None,
) -> Markup:
    """Horizontal bars, one per (label, value); None values are drawn as 'n/a'.

    Bars get one colour each, or, with ``color_by`` (one key per bar), one colour per distinct key.
    """
    keys = list(dict.fromkeys(color_by)) if color_by is not None else []
    label_w, bar_w, row_h = 170, 300, 22
    height = 28 + row_h * len(items)
    body = [f'<text x="0" y="14" {_FONT} font-weight="600">{escape(title)}</text>']
    scale = bar_w / xmax if xmax > 0 else 0.0
    for i, (label, value) in enumerate(items):
        y = 24 + i * row_h
        body.append(f'<text x="{label_w - 6}" y="{y + 14}" {_FONT} text-anchor="end">{escape(label)}</text>')
        body.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="{row_h - 8}" fill="#eef1f5"/>')
        if value is None or math.isnan(value):
            body.append(f'<text x="{label_w + 4}" y="{y + 14}" {_FONT} fill="#888">n/a</text>')
            continue
        w = max(0.0, min(bar_w, value * scale))
        slot = keys.index(color_by[i]) if color_by is not None else i
        color = PALETTE[slot % len(PALETTE)]
        body.append(f'<rect x="{label_w}" y="{y + 3}" width="{_f(w)}" height="{row_h - 8}" fill="{color}"/>')
        body.append(f'<text x="{_f(label_w + w + 4)}" y="{y + 14}" {_FONT}>{escape(value_format.format(value))}</text>')
    return _svg(label_w + bar_w + 60, height, body, title)


def histograms(series: Sequence[tuple[str, Sequence[int]]], *, title: str, bins: Sequence[float]) -> Markup:
    """Small multiples: one bar histogram (share of responses per bin) per series, on a common [0, 1] axis."""
    panel_w, panel_h, gap = 200, 90, 16
    cols = min(3, max(1, len(series)))
    rows = math.ceil(len(series) / cols)
    width = cols * (panel_w + gap)
    height = 24 + rows * (panel_h + 40)
    body = [f'<text x="0" y="14" {_FONT} font-weight="600">{escape(title)}</text>']
    n_bins = max(1, len(bins) - 1)
    for idx, (label, counts) in enumerate(series):
        x0 = (idx % cols) * (panel_w + gap)
        y0 = 24 + (idx // cols) * (panel_h + 40)
        total = float(sum(counts)) or 1.0
        body.append(
            f'<text x="{x0}" y="{y0 + 10}" {_FONT}>{escape(label)} (n={int(sum(counts))})</text>'
            f'<line x1="{x0}" y1="{y0 + panel_h + 14}" x2="{x0 + panel_w}" y2="{y0 + panel_h + 14}" stroke="#999"/>'
        )
        bw = panel_w / n_bins
        color = PALETTE[idx % len(PALETTE)]
        for j, c in enumerate(counts):
            h = (panel_h - 6) * (c / total)
            body.append(
                f'<rect x="{_f(x0 + j * bw + 1)}" y="{_f(y0 + panel_h + 14 - h)}" width="{_f(bw - 2)}" '
                f'height="{_f(h)}" fill="{color}"/>'
            )
        body.append(
            f'<text x="{x0}" y="{y0 + panel_h + 27}" {_FONT} fill="#666">{bins[0]:g}</text>'
            f'<text x="{x0 + panel_w}" y="{y0 + panel_h + 27}" {_FONT} fill="#666" '
            f'text-anchor="end">{bins[-1]:g}</text>'
        )
    return _svg(width, height, body, title)


def scatter(points: Sequence[Sequence[float]], *, title: str, xlabel: str, ylabel: str) -> Markup:
    """Counterfactual pairs: x = score for one group, y = for the other; the diagonal is perfect parity.

    Both axes run from 0 to the largest score rounded up to a tenth (so that scores of a few hundredths do not
    collapse into a corner), the same on both axes so that the diagonal stays the diagonal.
    """
    size, pad = 240, 36
    finite = [v for p in points for v in p if v is not None and not math.isnan(v)]
    top = min(1.0, max(0.1, math.ceil(max([*finite, 0.0]) * 10 - 1e-9) / 10))
    body = [f'<text x="0" y="14" {_FONT} font-weight="600">{escape(title)}</text>']
    x0, y0 = pad, 24
    body.append(f'<rect x="{x0}" y="{y0}" width="{size}" height="{size}" fill="#fafbfc" stroke="#bbb"/>')
    body.append(f'<line x1="{x0}" y1="{y0 + size}" x2="{x0 + size}" y2="{y0}" stroke="#999" stroke-dasharray="4 3"/>')
    for x, y in points:
        if x is None or y is None or math.isnan(x) or math.isnan(y):
            continue
        cx, cy = x0 + size * min(max(x / top, 0.0), 1.0), y0 + size * (1 - min(max(y / top, 0.0), 1.0))
        body.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="3" fill="{PALETTE[0]}" fill-opacity="0.55"/>')
    body.append(f'<text x="{x0 + size / 2}" y="{y0 + size + 28}" {_FONT} text-anchor="middle">{escape(xlabel)}</text>')
    body.append(
        f'<text x="12" y="{y0 + size / 2}" {_FONT} text-anchor="middle" '
        f'transform="rotate(-90 12 {y0 + size / 2})">{escape(ylabel)}</text>'
    )
    body.append(f'<text x="{x0}" y="{y0 + size + 12}" {_FONT} fill="#666">0</text>')
    body.append(f'<text x="{x0 + size}" y="{y0 + size + 12}" {_FONT} fill="#666" text-anchor="end">{top:g}</text>')
    body.append(f'<text x="{x0 - 4}" y="{y0 + 8}" {_FONT} fill="#666" text-anchor="end">{top:g}</text>')
    return _svg(size + pad + 20, size + 64, body, title)


def interval_strip(
    value: float | None,
    low: float | None,
    high: float | None,
    *,
    lo: float,
    hi: float,
    baseline: float | None = None,
    label: str = "metric",
) -> Markup:
    """A one-line forest plot: the metric's range, its value, its interval and (dashed) the noise floor."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        lo, hi = (min(0.0, value or 0.0), max(1.0, value or 1.0))
    width, height, pad = 140, 22, 6
    span = width - 2 * pad

    def px(v: float) -> float:
        return pad + span * (min(max(v, lo), hi) - lo) / (hi - lo)

    body = [f'<line x1="{pad}" y1="11" x2="{width - pad}" y2="11" stroke="#ccc"/>']
    if baseline is not None and math.isfinite(baseline):
        b = px(baseline)
        body.append(f'<line x1="{_f(b)}" y1="3" x2="{_f(b)}" y2="19" stroke="#b5483f" stroke-dasharray="2 2"/>')
    if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
        body.append(f'<line x1="{_f(px(low))}" y1="11" x2="{_f(px(high))}" y2="11" stroke="#3b6ea8" stroke-width="3"/>')
    if value is not None and math.isfinite(value):
        body.append(f'<circle cx="{_f(px(value))}" cy="11" r="4" fill="#1f3d63"/>')
    return _svg(width, height, body, f"{label}: value, interval and noise floor")
