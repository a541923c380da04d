"""A flame graph as the report shows it: static (no script, no search box, which an image
cannot use), titled with the server's name as the tables give it, and its caption."""

import html
import re

CAPTION = (
    "Flame graph of {name} under load: each box is a function, its width the share of "
    "samples in which it was on the stack; callers below, callees above. Look at the widest "
    "boxes near the top: that is where the CPU was. A name too long for its box is cut "
    "(a Go one to 'net.(*..'); the profile's folded stacks in the run's folder hold every "
    "name whole. Start-up is left out."
)
# The flame graph's interactive parts (search, zoom, the script that drives them): a
# figure shown as an image, on screen or on paper, cannot use them, and "Search" would be
# printed over the graph.
INTERACTIVE = re.compile(
    rb'<script\b.*?</script>|<text id="(?:search|unzoom|matched|details)"[^>]*>[^<]*</text>'
    rb'|\sonload="[^"]*"',
    re.S,
)
# The title the profiler wrote: its target's label, then " under load (profiler)".
TITLE = re.compile(rb'(<text id="title"[^>]*>)[^<]*?( under load)')


def static(svg: bytes, name: str = "") -> bytes:
    """A flame graph without its interactive parts (INTERACTIVE), its title naming the
    server as ``name`` (the tables' name; its target's label was stored)."""
    shown = INTERACTIVE.sub(b"", svg)
    if not name:
        return shown
    named = html.escape(name).encode()
    return TITLE.sub(lambda m: m[1] + named + m[2], shown, count=1)
