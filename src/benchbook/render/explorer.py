"""The session explorer of the HTML report: every stored session of every headline in one
table, sortable and filterable offline by a few lines of inline script (the only script
the report carries: render_report allows exactly this one), each row linking to its run's
manifest and raw outputs. Hidden on paper, where a one-line note points to the HTML."""

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from benchbook.render.notebook_html import Section
from benchbook.runs import outputs
from benchbook.runs.layout import runs_dir

# From report/index.html to the run folders (the report sits in report/, runs in data/runs/).
RUNS_LINK = "../data/runs"
SCRIPT = Markup(
    """<script>
document.querySelectorAll("table.explorer-table").forEach(function (table) {
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var filter = document.getElementById(table.dataset.filter);
  filter.addEventListener("input", function () {
    var words = filter.value.toLowerCase();
    rows.forEach(function (row) {
      row.hidden = row.textContent.toLowerCase().indexOf(words) < 0; });
  });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, column) {
    cell.addEventListener("click", function () {
      var down = cell.dataset.down !== "1"; cell.dataset.down = down ? "1" : "0";
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.key, y = b.cells[column].dataset.key;
        var n = parseFloat(x) - parseFloat(y), order = isNaN(n) ? x.localeCompare(y) : n;
        return down ? order : -order; });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
</script>"""
)


@dataclass(frozen=True)
class ExplorerRow:
    """One stored session of one headline."""

    headline: str
    experiment: str
    run_id: str
    machine_class: str
    speed: str
    date: str
    commit: str
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    manifest: str  # relative link to its manifest
    raw: str  # relative link to its raw outputs: the archive when packed, else raw/


def explorer_rows(sections: Sequence[Section]) -> list[ExplorerRow]:
    """A row per stored session of each headline, in notebook and headline order."""
    rows = []
    for section in sections:
        for findings in section.findings:
            for headline in findings["headlines"]:
                for run in headline.get("spread") or []:
                    folder = f"{RUNS_LINK}/{run['run_id']}"
                    rows.append(
                        ExplorerRow(
                            headline=str(headline.get("label")),
                            experiment=str(findings.get("title") or section.title),
                            run_id=run["run_id"],
                            machine_class=run.get("machine_class") or run.get("machine", ""),
                            speed=run.get("speed") or "–",
                            date=run.get("date", ""),
                            commit=(run.get("commit") or "")[:10] or "–",
                            ratio=run.get("ratio"),
                            ci_low=run.get("ci_low"),
                            ci_high=run.get("ci_high"),
                            manifest=f"{folder}/manifest.json",
                            raw=f"{folder}/{outputs.link(runs_dir() / run['run_id'])}",
                        )
                    )
    return rows
