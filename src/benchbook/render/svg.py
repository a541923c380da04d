"""A matplotlib figure as an inline <svg> element of the report page."""

import html as html_text
import io
import re
from collections.abc import Mapping

import matplotlib
from markupsafe import Markup
from matplotlib.figure import Figure


def svg_inline(
    fig: Figure,
    prefix: str,
    label: str,
    css_class: str = "spread-plot",
    titles: Mapping[str, str] | None = None,
) -> Markup:
    """A figure as an <svg> element for the page: text kept as text, ids prefixed so that
    several figures on one page never share one, no stylesheet leaking into the page.
    ``titles``: an element's gid → its <title> (a tooltip, and text a reader of the page
    can find, such as a row's full label)."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": prefix}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'<style type="text/css">.*?</style>\s*', "", svg, flags=re.S)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r'(\bxlink:href|\bhref)="#([^"]+)"', rf'\1="#{prefix}-\2"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    for gid, title in (titles or {}).items():
        group = f'<g id="{prefix}-{gid}">'
        svg = svg.replace(group, f"{group}<title>{html_text.escape(title, quote=False)}</title>", 1)
    attributes = (
        f' class="chart {css_class}" role="img" aria-label="{html_text.escape(label)}"'
        ' stroke-linejoin="round" stroke-linecap="butt"'
    )
    return Markup(svg.replace("<svg", "<svg" + attributes, 1))
