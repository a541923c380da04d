"""How a server stores records, as its registry entry declares it (``records`` in
servers.toml): what the harness creates before a run, reads back after it, and counts to
check that nothing confirmed was lost (data_loss)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Records:
    """How a server stores records, for requests that need one and for the check that
    nothing was lost: the request that creates one (its response's ``id_field`` names
    it), the request that reads one back (``resolve``: its expectations say what a
    record must read as), and, optionally, a GET whose JSON ``count_field`` says how many
    the store holds (and ``commits_field`` how many write commits it made so far)."""

    create: str
    resolve: str
    id_field: str = "id"
    count_path: str | None = None
    count_field: str = "count"
    commits_field: str | None = None
