"""How a target looks in every chart, from its label alone: each language's servers in
the colours its declaration gives (servers.toml: Go in blues, Python in oranges, …), load
tools in greens, anything else in purples; a variant of a server gets a shade of its
family, and a marker and a dash, picked by a hash of the variant, so one label looks the
same in every chart of the report.
"""

import hashlib
import re
from collections.abc import Iterable, Sequence

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from benchbook.runs.columns import LOAD_TOOLS
from benchbook.runs.languages import Language, load_languages
from benchbook.runs.titles import Titles

LANGUAGES = load_languages()
SERVERS = Titles.load().servers
# First entry: the family's own colour (a bare server name: "go-hello"); the others are
# shades for variants ("python-iodelay uvloop+httptools", "wrk: go-hello"), picked by a
# hash of the variant so that a label has one colour in every chart.
FAMILY_COLOURS = {language.title: language.colours for language in LANGUAGES.values()} | {
    "load tool": ("#2e7d32", "#7cb342", "#1b5e20", "#9ccc65", "#558b2f", "#43a047",
                  "#827717", "#33691e"),
    "other": ("#6a3d9a", "#9e7cc1", "#4b2c73", "#b39ddb", "#7e57c2", "#512da8", "#8e24aa",
              "#ab47bc"),
}  # fmt: skip
FAMILY_HATCHES = {language.title: language.hatch for language in LANGUAGES.values()}


def _server_names(language: str | None = None) -> str:
    """The registry's servers (in ``language``; all when None) as one alternation, each
    a whole hyphenated name, longest first: "http-not-found-nodelay" is not
    "http-not-found" with something after it."""
    names = sorted((n for n, s in SERVERS.items() if language in (None, s.language)), key=len)
    alternatives = "|".join(re.escape(name) for name in reversed(names))
    return rf"(?<![a-z0-9-])(?:{alternatives})(?![a-z0-9-])" if names else ""


def _words(languages: Iterable[Language], suffix: str = "") -> str:
    """The words languages are named by in a label ("go", "fastapi", …), as whole words."""
    words = "|".join(re.escape(word) for language in languages for word in language.words)
    return rf"(?<![a-z])(?:{words}){suffix}(?![a-z])"


# Which family a label belongs to: a server of the registry in that language, or a word
# its declaration names it by. A server's language wins over a load tool named in the
# same label, so "wrk: go-hello" is Go (the server measured) and "locust HttpUser x1" a tool.
LANGUAGE_PATTERNS = {
    language.title: "|".join(filter(None, (_server_names(language.name), _words([language]))))
    for language in LANGUAGES.values()
}
# A load tool is any tool of the plug-in table, named as a word of its own.
TOOL_PATTERN = rf"(?<![a-z])(?:{'|'.join(map(re.escape, LOAD_TOOLS))})(?![a-z])"
# The server's name within a label ("python-iodelay" in "python-iodelay asyncio+h11"): what
# is left is the variant, which picks the shade, so "wrk: go-hello" and "wrk: python-hello"
# get the same shade of their families.
SERVER_NAME = re.compile(
    "|".join(filter(None, (_server_names(), _words(LANGUAGES.values(), r"(?:-[a-z0-9.]+)*"))))
)
TOOL_NAME = re.compile(rf"^{TOOL_PATTERN}$")
# Lines of one family can share a shade; a marker and a dash picked by another hash of
# the label keep them apart.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<")
DASHES = ("--", "-.", (0, (5, 1, 1, 1)), (0, (3, 1)))


def family_of(label: str) -> str:
    """A language's title ('Go', 'Python', …), 'load tool' or 'other', from the label alone."""
    text = str(label).lower()
    found = [
        (match.start(), family)
        for family, pattern in LANGUAGE_PATTERNS.items()
        if (match := re.search(pattern, text))
    ]
    if found:
        return min(found)[1]
    return "load tool" if re.search(TOOL_PATTERN, text) else "other"


def variant_of(label: str) -> str:
    """What distinguishes a label from its bare server name ('' for "go-hello")."""
    text = str(label).strip().lower()
    if family_of(text) in LANGUAGE_PATTERNS:
        text = SERVER_NAME.sub("", text, count=1)
    elif TOOL_NAME.match(text):
        return ""  # a bare tool: "wrk"
    return " ".join(text.split())


def _variant_hash(label: str) -> int:
    digest = hashlib.blake2b(variant_of(label).encode(), digest_size=8, person=b"benchbook")
    return int.from_bytes(digest.digest(), "big")


def colour_for(label: str) -> str:
    """The colour of a target label in every chart: its family's own colour for a bare
    server or tool name ("go-hello", "python", "wrk"), a shade of the family for a
    variant, picked from the variant alone."""
    shades = FAMILY_COLOURS[family_of(label)]
    if not variant_of(label):
        return shades[0]
    return shades[1 + _variant_hash(label) % (len(shades) - 1)]


def hatch_for(label: str) -> str:
    """The hatch of a label's bars: its language's ('' for none, and for tools)."""
    return FAMILY_HATCHES.get(family_of(label), "")


def line_style_for(label: str) -> dict:
    """Colour, marker and dash of a label's line: the same in every chart; a bare server's
    line is solid."""
    h = _variant_hash(label) // 8
    return {
        "color": colour_for(label),
        "marker": MARKERS[h % len(MARKERS)],
        "linestyle": DASHES[h % len(DASHES)] if variant_of(label) else "-",
    }


def family_legend(ax: plt.Axes, labels: Sequence[str]) -> None:
    """A legend of the families present, when bars of more than one family share a chart."""
    families = list(dict.fromkeys(family_of(label) for label in labels))
    if len(families) > 1:
        handles = [
            Patch(facecolor=FAMILY_COLOURS[f][0], hatch=FAMILY_HATCHES.get(f, ""), label=f)
            for f in families
        ]
        ax.legend(handles=handles, fontsize=8, title="family", title_fontsize=8)
