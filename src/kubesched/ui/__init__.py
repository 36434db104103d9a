"""``kubesched ui``: a local web app over the engine, in the same process.

The cluster a simulation leaves (nodes with their allocation, pods and why some have no node),
any pod's decision as ``explain`` reports it (Filter and Score per node and plugin, preemption,
DRA devices), exports (the input as a snapshot, the end state, a decision as JSON), and, over
a live cluster, a view that follows it (read-only).

- :class:`Workspace`: the inputs and the current view, rebuilt whole on a change;
- :class:`ClusterView`, :class:`Query`: the view, filtered, sorted and paged on the server;
- :class:`UIApp`: the routes, mounted on :class:`kubesched.serving.HTTPServer`;
- :class:`kubesched.ui.live.LiveFollower`: a live cluster's informers feeding the workspace
  (its own module: it needs the ``live`` extra).

What-if and over time (:class:`WhatIfRoutes` mounts their routes on the app):

- :func:`run_whatif`: manifests typed in the page added on top of the inputs (an object of the
  same kind and name replaces the input's), simulated, compared with the inputs alone;
- :func:`parse_config`, :func:`score_weights`, :func:`set_score_weights`: the configuration
  editor, read as ``--config`` reads a file, and its weights form;
- :func:`compare_configs`, :func:`pod_reasons`: two configurations side by side;
- :func:`run_timeline`: a trace replayed, its series and summary for the charts;
- a replay, and a what-if or a comparison asked with ``Prefer: respond-async``, run as jobs
  whose progress streams to the page (one mechanism: :mod:`._jobs`).

Errors in typed text are :class:`InputProblems`, each :class:`Problem` with its line.

It holds no scheduling logic: the simulation and explanations are :mod:`kubesched.simulator`'s,
replays :mod:`kubesched.replay`'s. The HTML shell is rendered here; the rest of the page is
plain ES modules in ``static/``.
"""

from ._app import UIApp
from ._compare import Comparison, compare_configs, pod_reasons
from ._configedit import (
    CONFIG_SOURCE,
    DEFAULT_CONFIG_TEXT,
    ProfileWeights,
    import_paths,
    parse_config,
    score_weights,
    set_score_weights,
)
from ._locate import Problem
from ._page import PAGES, Page
from ._problems import InputProblems
from ._security import refusal
from ._timeline import SeriesSink, Timeline, TraceInput, bundled_traces, run_timeline
from ._view import ClusterView, Query
from ._whatif import (
    WHATIF_SOURCE,
    PlacementChange,
    WhatIf,
    diff_placements,
    overlay,
    parse_manifests,
    run_whatif,
)
from ._whatif_routes import MAX_BODY_BYTES, WhatIfRoutes, startup_config_text
from ._workspace import Workspace

__all__ = [
    "CONFIG_SOURCE",
    "DEFAULT_CONFIG_TEXT",
    "MAX_BODY_BYTES",
    "PAGES",
    "WHATIF_SOURCE",
    "ClusterView",
    "Comparison",
    "InputProblems",
    "Page",
    "PlacementChange",
    "Problem",
    "ProfileWeights",
    "Query",
    "SeriesSink",
    "Timeline",
    "TraceInput",
    "UIApp",
    "WhatIf",
    "WhatIfRoutes",
    "Workspace",
    "bundled_traces",
    "compare_configs",
    "diff_placements",
    "import_paths",
    "overlay",
    "parse_config",
    "parse_manifests",
    "pod_reasons",
    "refusal",
    "run_timeline",
    "run_whatif",
    "score_weights",
    "set_score_weights",
    "startup_config_text",
]
