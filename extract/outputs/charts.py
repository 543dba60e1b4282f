"""The report's two charts drawn as plain SVG (no plotting library): claims by kind, and
speedup factors by hardware on a log scale."""

from __future__ import annotations

import math
from typing import Optional

from paper_claims.outputs.escaping import esc

FONT = 'font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="11"'
INK, MUTED, GRID = "#333333", "#666666", "#e5e5e5"


def _svg(name: str, width: int, height: int, body: str) -> str:
    return (f'<svg class="chart" data-chart="{name}" role="img" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" {FONT}>{body}</svg>')


def _label_width(labels: list[str]) -> int:
    return 14 + 7 * max((len(label) for label in labels), default=4)


def bar_chart(name: str, bars: list[tuple[str, int, str]], axis_label: str) -> str:
    """Horizontal bars (label, count, colour), the count written at the end of each bar."""
    left = _label_width([label for label, _, _ in bars])
    plot, row = 300, 24
    height = 30 + row * len(bars)
    top = max((count for _, count, _ in bars), default=1) or 1
    body = []
    for i, (label, count, colour) in enumerate(bars):
        y = 6 + i * row
        width = plot * count / top
        body.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end" fill="{INK}">{esc(label)}</text>'
                    f'<rect x="{left}" y="{y + 3}" width="{width:.1f}" height="{row - 8}" fill="{colour}"/>'
                    f'<text x="{left + width + 4:.1f}" y="{y + 14}" fill="{INK}">{count}</text>')
    body.append(f'<line x1="{left}" y1="4" x2="{left}" y2="{height - 22}" stroke="{MUTED}"/>'
                f'<text x="{left + plot / 2}" y="{height - 6}" text-anchor="middle" fill="{MUTED}">{esc(axis_label)}</text>')
    return _svg(name, left + plot + 40, height, "".join(body))


def _log_ticks(low: float, high: float) -> list[float]:
    """1, 2, 5 times the powers of ten in range; only the powers past two decades."""
    ticks = []
    mantissas = (1, 2, 5) if math.log10(high / low) <= 2 else (1,)
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in mantissas:
            value = mantissa * 10 ** exponent
            if low <= value <= high:
                ticks.append(value)
    return ticks or [low, high]


def strip_chart(name: str, points: list[tuple[str, float, Optional[float]]], axis_label: str,
                colour: str = "#e8590c", labelled: int = 12) -> str:
    """One row per group; each value a dot (a range a line to its upper end) on a log x axis,
    with its value written next to it when there are at most ``labelled`` points."""
    groups = sorted({g for g, _, _ in points}, key=lambda g: (g == "(unspecified)", g))
    left = _label_width(groups)
    plot, row = 320, 30
    height = 40 + row * len(groups)
    low = min(1.0, min(v for _, v, _ in points)) * 0.8
    high = max(max(v, hi or 0) for _, v, hi in points) * 2.2

    def x(value: float) -> float:
        return left + plot * (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low))

    body = []
    for tick in _log_ticks(low, high):
        body.append(f'<line x1="{x(tick):.1f}" y1="4" x2="{x(tick):.1f}" y2="{height - 32}" stroke="{GRID}"/>'
                    f'<text x="{x(tick):.1f}" y="{height - 20}" text-anchor="middle" fill="{MUTED}">{tick:g}×</text>')
    for i, group in enumerate(groups):
        body.append(f'<text x="{left - 6}" y="{10 + i * row + row / 2}" text-anchor="end" fill="{INK}">{esc(group)}</text>')
        mine = [(v, hi) for g, v, hi in points if g == group]
        for j, (value, upper) in enumerate(mine):
            y = 6 + i * row + row / 2 + (0 if len(mine) == 1 else -8 + 16 * j / (len(mine) - 1))
            if upper is not None and upper > value:
                body.append(f'<line x1="{x(value):.1f}" y1="{y:.1f}" x2="{x(upper):.1f}" y2="{y:.1f}" '
                            f'stroke="{colour}" stroke-width="2.2" stroke-opacity="0.55"/>')
            body.append(f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="4" fill="{colour}" stroke="white" stroke-width="0.6"/>')
            if len(points) <= labelled:
                text = f"{value:g}×" if upper is None else f"{value:g}–{upper:g}×"
                body.append(f'<text x="{x(upper or value) + 6:.1f}" y="{y + 4:.1f}" fill="{INK}">{esc(text)}</text>')
    body.append(f'<text x="{left + plot / 2}" y="{height - 4}" text-anchor="middle" fill="{MUTED}">{esc(axis_label)}</text>')
    return _svg(name, left + plot + 60, height, "".join(body))
