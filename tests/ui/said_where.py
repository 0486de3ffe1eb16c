"""Where a saved file went, read as a person reads the message: the file's name whole in the
lines drawn, and its folder there too or, where the line shortens the path, in the tooltip
(the whole path on hover)."""

from __future__ import annotations

from pathlib import Path


def long_folder(tmp_path: Path) -> Path:
    """A folder of the long path a shop keeps its papers in."""
    folder = (
        tmp_path
        / "Østergaard & Sønners Kaffebrænderi og Konditori"
        / "Exports for the accountant, 2026"
        / "kvartal_4_til_revisor"
    )
    folder.mkdir(parents=True)
    return folder


def says_where(label, path: Path) -> None:
    assert label.isVisible(), f"{label.objectName()} is not shown"
    lines = label.shown_lines()[0] if hasattr(label, "shown_lines") else [label.text()]
    drawn = "".join(lines)
    assert path.name in drawn, f"{label.objectName()} shows {lines!r}: the file's name {path.name!r} is not in sight"
    assert str(path) in drawn or str(path) in label.toolTip(), (
        f"{label.objectName()} shows {lines!r} (tooltip {label.toolTip()!r}): "
        f"not where the file was saved, {str(path.parent)!r}"
    )
