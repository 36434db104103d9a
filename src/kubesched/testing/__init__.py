"""Public test helpers: builders for pods and nodes (after upstream pkg/scheduler/testing);
:mod:`kubesched.testing.command` starts a serving command (``run``, ``extender``, ``ui``) in a
child process, waits for it to serve and stops it; :mod:`kubesched.testing.browser` serves
``kubesched ui`` that way and drives it in headless Chromium (the ``browser`` extra; imported on
its own, so these builders never need it)."""

from .wrappers import NodeBuilder, PodBuilder, label_selector, make_node, make_pod, snapshot_of

__all__ = ["NodeBuilder", "PodBuilder", "label_selector", "make_node", "make_pod", "snapshot_of"]
