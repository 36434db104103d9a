"""DefaultBinder: binds the pod to the chosen node through the store.

Mirrors pkg/scheduler/framework/plugins/defaultbinder/default_binder.go (master 2026): it
creates a Binding (``pods/binding``) carrying the pod's UID as a precondition; here
``handle.store.bind(namespace, name, node_name, uid=...)``.
An error from the store becomes an Error status (AsStatus).
"""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.framework import CycleState, PluginBase, Status
from kubesched.plugins.names import DEFAULT_BINDER

__all__ = ["NAME", "DefaultBinder"]

NAME = DEFAULT_BINDER


class DefaultBinder(PluginBase):
    NAME = NAME

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if self.handle is None:
            return Status.from_error(RuntimeError("DefaultBinder needs a framework handle"))
        store = self.handle.store
        if store is None:
            return Status.from_error(RuntimeError("DefaultBinder needs a cluster store"))
        try:
            store.bind(pod.namespace, pod.name, node_name, uid=pod.meta.uid or None)
        except Exception as exc:  # any store failure is the plugin's Error status, as upstream
            return Status.from_error(exc)
        return None
