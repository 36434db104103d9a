"""Rich rendering of simulate's and explain's results as tables (the human outputs).

Tables go through :func:`print_table` (no value is ever cut; messages and reasons wrap) and
resource amounts through :func:`column_formatter` (one unit per column)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..framework import Code
from ..scheduler import Explanation, FilterVerdict, PluginScore
from ..simulator import Simulation
from ._console import add_column, print_table
from ._units import column_formatter

__all__ = ["render_explanation", "render_simulation"]

_STATUS_STYLE = {
    "Bound": "dim", "Scheduled": "green", "Unschedulable": "red", "SchedulerError": "red",
    "Pending": "yellow", "Preempted": "magenta", "Terminating": "magenta", "Deleted": "dim",
    "SchedulingGated": "yellow", "Succeeded": "dim", "Failed": "dim",
}
_TABLE_RESOURCES = ("cpu", "memory", "pods")


def render_simulation(console: Console, sim: Simulation, wide: bool = False) -> None:
    """Pods, preemptions, node allocation, and a one-line summary. ``wide`` shows whole
    messages and every resource."""
    if sim.workloads:
        _render_workloads(console, sim)
    pods = Table(title="Pods", title_justify="left")
    by_workload = bool(sim.workloads)
    with_devices = any(p.devices for p in sim.pods)
    cols = ((["WORKLOAD"] if by_workload else []) + ["POD", "NODE", "STATUS", "PRIORITY", "NOMINATED"]
            + (["DEVICES"] if with_devices else []) + (["MESSAGE"] if wide else []))
    for col in cols:
        add_column(pods, col, justify="right" if col == "PRIORITY" else "left",
                   free_text=col in ("MESSAGE", "DEVICES"))
    ordered = sorted(sim.pods, key=lambda p: (sim.pod_workload.get(p.pod) is None,
                                              sim.pod_workload.get(p.pod, ""), p.pod)) \
        if by_workload else sim.pods
    for p in ordered:
        row: list[str | Text] = [p.pod, p.node or "-", Text(p.status, style=_STATUS_STYLE.get(p.status, "")),
                                 str(p.priority), p.nominated_node or "-"]
        if with_devices:
            row.append(", ".join(str(d) for d in p.devices) or "-")
        if by_workload:
            row.insert(0, sim.pod_workload.get(p.pod, "-"))
        pods.add_row(*row, *([Text(p.message)] if wide else []))
    print_table(console, pods)
    if not wide:
        why = [p for p in sim.pods if p.message and not p.node]
        for p in why:
            console.print(Text(f"{p.pod}: ", style="bold") + Text(p.message), highlight=False)

    if sim.preemptions:
        pre = Table(title="Preemptions", title_justify="left")
        for col in ("VICTIM", "PREEMPTOR", "NODE", "TIME"):
            add_column(pre, col)
        for e in sim.preemptions:
            pre.add_row(e.victim, e.preemptor, e.node, f"+{e.time - sim.start:g}s")
        print_table(console, pre)

    nodes = Table(title="Nodes (requested / allocatable)", title_justify="left")
    add_column(nodes, "NODE")
    resources = _resources(sim, wide)
    for r in resources:
        add_column(nodes, r.upper(), justify="right")
    fmt = {r: column_formatter(r, [a for n in sim.nodes
                                   for a in (n.requested.get(r, 0), n.allocatable.get(r, 0))])
           for r in resources}
    for n in sim.nodes:
        cells = []
        for r in resources:
            req, alloc = n.requested.get(r, 0), n.allocatable.get(r, 0)
            pct = f" ({100 * req // alloc}%)" if alloc else ""
            cells.append(f"{fmt[r](req)} / {fmt[r](alloc)}{pct}")
        nodes.add_row(n.name, *cells)
    print_table(console, nodes)

    unplaced = len(sim.unplaced())
    console.print(
        f"{_scheduled_count(sim)}, {sim.count('Bound')} already bound, "
        f"{unplaced} not scheduled, {len(sim.preemptions)} preemption(s); "
        f"{sim.run.attempts} scheduling attempts over {sim.end - sim.start:g}s of simulated time "
        f"(seed {sim.seed}).", highlight=False)


def _scheduled_count(sim: Simulation) -> str:
    """``19 scheduled (9 since finished)``: every pod this run placed, the ones that ran to
    completion since (a Job's) counted in and labelled."""
    scheduled = sim.scheduled()
    finished = sum(1 for p in scheduled if p.finished)
    return f"{len(scheduled)} scheduled" + (f" ({finished} since finished)" if finished else "")


def _render_workloads(console: Console, sim: Simulation) -> None:
    """One row per top-level workload: pods placed / wanted."""
    table = Table(title="Workloads (placed / wanted)", title_justify="left")
    for col in ("WORKLOAD", "PLACED", "WANTED"):
        add_column(table, col, justify="left" if col == "WORKLOAD" else "right")
    for w in sim.workloads:
        style = "green" if w.placed >= w.wanted else "yellow"
        table.add_row(w.ref, Text(str(w.placed), style=style), str(w.wanted))
    print_table(console, table)


def _resources(sim: Simulation, wide: bool) -> list[str]:
    if not wide:
        return list(_TABLE_RESOURCES)
    seen: dict[str, None] = {}
    for n in sim.nodes:
        for r in n.allocatable:
            seen.setdefault(r, None)
    return list(seen)


# -- explain ---------------------------------------------------------------------------------
_SHORT = {
    Code.SUCCESS: Text("ok", style="green"),
    Code.SKIP: Text("skip", style="dim"),
    Code.UNSCHEDULABLE: Text("fail", style="yellow"),
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: Text("FAIL", style="red"),
    Code.ERROR: Text("error", style="bold red"),
}


def _verdict_cell(v: FilterVerdict | None) -> Text:
    if v is None:
        return Text("")
    return _SHORT.get(v.code, Text(str(v.code)))


def _score_cell(s: PluginScore | None) -> Text:
    return Text(f"{s.normalized} x {s.weight} = {s.weighted} [{s.raw}]" if s is not None else "")


def render_explanation(console: Console, e: Explanation, note: str | None = None) -> None:
    """Filters (nodes x plugins: ok, skip, fail = Unschedulable, FAIL = UnschedulableAndUnresolvable,
    error; the reasons in the last column), scores (feasible nodes x plugins), then the decision.
    Plugins that every node skipped (PreFilter returned Skip) are listed, not given a column.
    ``note``: where in the simulation the pod was explained, printed first on one line."""
    if note is not None:
        console.print(Text(f"note: {note}", style="yellow"), highlight=False, soft_wrap=True)
    console.print(Text(f"Pod {e.pod} (profile {e.profile})", style="bold"))
    if e.pre_enqueue is not None:
        pe = e.pre_enqueue
        console.print(Text(f"PreEnqueue {pe.plugin}: {pe.code} - the pod waits outside the scheduling "
                           "queue; no node is evaluated or selected.", style="yellow"))
        console.print(Text(e.message, style="red"), highlight=False)
        return
    plugins: dict[str, None] = {}
    for n in e.nodes:
        for f in n.filters:
            plugins.setdefault(f.plugin, None)
    skipped = [p for p in plugins
               if all(f.code == Code.SKIP for n in e.nodes for f in n.filters if f.plugin == p)]
    shown = [p for p in plugins if p not in skipped]
    filters = Table(title="Filter", title_justify="left")
    add_column(filters, "NODE")
    for p in shown:
        add_column(filters, p)
    add_column(filters, "FEASIBLE")
    add_column(filters, "REASONS", free_text=True)
    for n in e.nodes:
        by_plugin = {f.plugin: f for f in n.filters}
        reasons = "; ".join(f"{f.plugin}: {', '.join(f.reasons) or f.code}" for f in n.filters
                            if f.code not in (Code.SUCCESS, Code.SKIP))
        filters.add_row(n.name, *(_verdict_cell(by_plugin.get(p)) for p in shown),
                        Text("yes", style="green") if n.feasible else Text("no", style="red"), Text(reasons))
    print_table(console, filters)
    for n in e.nodes:
        if n.devices:
            console.print(Text(f"Devices on {n.name}: {'; '.join(n.devices)}"), highlight=False)
    if skipped:
        console.print(Text(f"Skipped (nothing to check for this pod): {', '.join(skipped)}", style="dim"))
    for w in e.waiting_claims:  # why VolumeBinding's PreFilter said "unbound immediate"
        console.print(Text(f"PersistentVolumeClaim {w.claim}: {w.message}.", style="yellow"), highlight=False)

    feasible = [n for n in e.nodes if n.feasible]
    if feasible and any(n.scores for n in feasible):
        score_plugins: dict[str, None] = {}
        for n in feasible:
            for s in n.scores:
                score_plugins.setdefault(s.plugin, None)
        scores = Table(title="Score (normalized x weight = weighted; raw in brackets)", title_justify="left")
        add_column(scores, "NODE")
        for p in score_plugins:
            add_column(scores, p, justify="right")
        add_column(scores, "TOTAL", justify="right")
        for n in feasible:
            by = {s.plugin: s for s in n.scores}
            cells = [_score_cell(by.get(p)) for p in score_plugins]
            total = Text(str(n.total_score), style="bold green" if n.name == e.selected_node else "")
            scores.add_row(n.name, *cells, total)
        print_table(console, scores)

    if e.selected_node:
        tied = f" (tied: {', '.join(e.tied_nodes)})" if len(e.tied_nodes) > 1 else ""
        console.print(Text(f"Selected node: {e.selected_node}{tied}", style="bold green"))
    pf = e.post_filter
    if pf is not None:
        if pf.nominated_node:
            console.print(Text(f"{pf.plugin} would nominate {pf.nominated_node} and evict: "
                               f"{', '.join(pf.victims) or '(nothing)'}", style="bold magenta"))
        elif pf.code == Code.ERROR:
            console.print(Text(f"PostFilter: {pf.plugin} failed: {pf.message}", style="magenta"),
                          highlight=False)
        else:  # upstream's joined reasons: every PostFilter plugin's, DynamicResources' first
            console.print(Text(f"PostFilter: {pf.message or 'no preemption would help.'}",
                               style="magenta"), highlight=False)
    if e.message:
        console.print(Text(e.message, style="red" if not e.selected_node else ""), highlight=False)
