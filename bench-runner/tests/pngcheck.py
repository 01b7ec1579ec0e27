"""What the report tests ask of a PNG: a real image of the expected size with more than its
background in it."""

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class PngSummary:
    width: int
    height: int
    colours: int
    """Distinct colours (up to 4096 counted)."""
    foreground: float
    """Share of pixels that differ from the most common one (the background)."""


def summarize(path: Path) -> PngSummary:
    assert path.read_bytes()[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    with Image.open(path) as image:
        image.load()  # decodes every row: a truncated or corrupt file raises
        rgb = image.convert("RGB")
        width, height = rgb.size
        counts = rgb.getcolors(maxcolors=4096) or []
        total = width * height
        background = max(counts)[0] if counts else 0
        colours = len(counts) if counts else 4096
        foreground = 1.0 - background / total if counts else 1.0
    return PngSummary(width, height, colours, foreground)


def assert_drawn(path: Path, width: int | None = None, height: int | None = None) -> PngSummary:
    summary = summarize(path)
    if width is not None:
        assert summary.width == width, f"{path}: {summary.width} px wide, expected {width}"
    if height is not None:
        assert summary.height == height, f"{path}: {summary.height} px high, expected {height}"
    assert summary.colours > 2, f"{path}: {summary.colours} colours, nothing drawn"
    assert summary.foreground > 0.005, f"{path}: {summary.foreground:.4f} of it is not background"
    return summary
