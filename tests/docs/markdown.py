"""The commands a page of the docs gives, read from its Markdown: the fenced shell blocks
(```sh), each split into commands as a shell reads them (a line ending in ``\\`` goes on,
a here-document runs to its end marker, a line of only a comment is none), with the line
each starts on; and the commands named inline (`...` in the text), to account for each."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

SHELLS = ("sh", "shell", "bash", "console")
_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
_HEREDOC = re.compile(r"<<-?\s*'?\"?(?P<end>\w+)'?\"?")
_HEADING = re.compile(r"^#+\s+(?P<title>.+)$")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # of its first line (after the fence)
    lang: str
    text: str
    section: str  # the heading it is under


@dataclass(frozen=True)
class Command:
    text: str  # as the shell gets it (continuations and here-documents included)
    line: int  # where it starts in the page
    section: str
    doc: str = ""  # the page's file name

    @property
    def program(self) -> str:
        return self.text.split()[0] if self.text.split() else ""

    def __str__(self) -> str:
        """Its first line, without a comment at its end (`` …`` when more lines follow)."""
        first = re.sub(r"\s+#[^'\"]*$", "", self.text.splitlines()[0])
        return first + (" …" if "\n" in self.text else "")


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the page, in order (a block indented in a list item too)."""
    found: list[Block] = []
    section = ""
    lines = path.read_text().splitlines()
    at = 0
    while at < len(lines):
        heading = _HEADING.match(lines[at])
        if heading:
            section = heading["title"]
        fence = _FENCE.match(lines[at])
        if fence is None:
            at += 1
            continue
        start, body = at + 1, []
        at += 1
        while at < len(lines) and not re.match(r"^\s*```\s*$", lines[at]):
            body.append(lines[at])
            at += 1
        found.append(Block(path.name, start + 1, fence["lang"], textwrap.dedent("\n".join(body)), section))
        at += 1
    return found


def commands(block: Block) -> list[Command]:
    """A shell block's commands, as the shell reads them."""
    found: list[Command] = []
    lines = block.text.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        if not line.strip() or line.lstrip().startswith("#"):
            at += 1
            continue
        start, text = at, [line]
        while text[-1].rstrip().endswith("\\") and at + 1 < len(lines):
            at += 1
            text.append(lines[at])
        here = _HEREDOC.search(" ".join(text))
        if here:
            while at + 1 < len(lines):
                at += 1
                text.append(lines[at])
                if lines[at].strip() == here["end"]:
                    break
        found.append(Command("\n".join(text), block.line + start, block.section, block.doc))
        at += 1
    return found


def shell_commands(path: Path) -> list[Command]:
    return [c for b in blocks(path) if b.lang in SHELLS for c in commands(b)]


def inline_commands(path: Path, programs: tuple[str, ...]) -> list[tuple[int, str]]:
    """The `code` in the text (not in fenced blocks) that starts with one of ``programs``:
    (line, text)."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if _FENCE.match(line) or re.match(r"^\s*```\s*$", line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for code in re.findall(r"`([^`]+)`", line):
            if code.split() and code.split()[0] in programs:
                found.append((number, code))
    return found
