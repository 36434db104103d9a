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

It holds no scheduling logic: the simulation and explanations are :mod:`kubesched.simulator`'s.
The HTML shell is rendered here; the rest of the page is plain ES modules in ``static/``.
"""

from ._app import UIApp
from ._page import PAGES, Page
from ._security import refusal
from ._view import ClusterView, Query
from ._workspace import Workspace

__all__ = ["PAGES", "ClusterView", "Page", "Query", "UIApp", "Workspace", "refusal"]
