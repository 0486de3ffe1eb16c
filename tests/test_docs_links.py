"""The README and the pages under docs/ link to each other and into the tree: every relative
link must lead to a file that exists and, when it names an anchor, to a heading of that page
(as GitHub makes anchors from headings). Qt-free, reads files only."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

LINK = re.compile(r"!?\[(?:[^\]`]|`[^`]*`)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def prose_lines(text: str):
    """(line number, line) of each line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None and line.lstrip().startswith(fence):
            fence = None
        elif fence is None:
            yield number, line


def code_spans(line: str) -> list[range]:
    return [range(m.start(), m.end()) for m in re.finditer(r"(`+).*?\1", line)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, inline markup and punctuation dropped,
    each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
    text = text.lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(page.read_text("utf-8")):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path):
    """(line number, target) of every link and image in the page's prose."""
    for number, line in prose_lines(page.read_text("utf-8")):
        spans = code_spans(line)
        for match in LINK.finditer(line):
            if not any(match.start() in span for span in spans):
                yield number, match.group(1)
        definition = DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)


def broken(page: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        name = f"{page.relative_to(root)}:{number}: {target}"
        if not where.exists():
            problems.append(f"{name}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            problems.append(f"{name}: no heading makes #{anchor}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page):
    assert broken(page) == []


def test_the_readme_links_every_page_under_docs():
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for _, target in links(ROOT / "README.md")
        if not target.startswith("#")
    }
    unlinked = [str(page.relative_to(ROOT)) for page in PAGES[1:] if page not in linked]
    assert unlinked == []


def test_anchors_are_made_as_github_makes_them(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Three dialects: strict, `--quirks`, `--family`\n\n```sh\n# not a heading\n"
        "```\n\n## Notes\n\n## Notes\n\n[x](#notes-1) `[y](#nowhere)` [z](#nowhere)\n"
        "[w](missing.md)\n",
        "utf-8",
    )
    assert anchors(page) == {"three-dialects-strict---quirks---family", "notes", "notes-1"}
    assert [problem.split(": ", 1)[1] for problem in broken(page, tmp_path)] == [
        "#nowhere: no heading makes #nowhere",
        "missing.md: no such file",
    ]
