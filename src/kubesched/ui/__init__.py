"""``kubesched ui``: the web page over the engine.

The what-if and over-time parts (this package's engine side; routes and pages mount on the one
HTTP server, :class:`kubesched.serving.HTTPServer`):

- :func:`run_whatif`: manifests typed in the page added on top of the inputs (an object of the
  same kind and name replaces the input's), simulated, compared with the inputs alone;
- :func:`parse_config`, :func:`score_weights`, :func:`set_score_weights`: the configuration
  editor, read as ``--config`` reads a file, and its weights form;
- :func:`compare_configs`, :func:`pod_reasons`: two configurations side by side;
- :func:`run_timeline`: a trace replayed, its series and summary for the charts.

Errors in typed text are :class:`InputProblems`, each :class:`Problem` with its line.
"""

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
from ._problems import InputProblems
from ._timeline import SeriesSink, Timeline, TraceInput, bundled_traces, run_timeline
from ._whatif import (
    WHATIF_SOURCE,
    PlacementChange,
    WhatIf,
    diff_placements,
    overlay,
    parse_manifests,
    run_whatif,
)

__all__ = [
    "CONFIG_SOURCE",
    "DEFAULT_CONFIG_TEXT",
    "WHATIF_SOURCE",
    "Comparison",
    "InputProblems",
    "PlacementChange",
    "Problem",
    "ProfileWeights",
    "SeriesSink",
    "Timeline",
    "TraceInput",
    "WhatIf",
    "bundled_traces",
    "compare_configs",
    "diff_placements",
    "import_paths",
    "overlay",
    "parse_config",
    "parse_manifests",
    "pod_reasons",
    "run_timeline",
    "run_whatif",
    "score_weights",
    "set_score_weights",
]
