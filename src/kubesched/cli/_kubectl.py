"""``kubectl kubesched COMMAND ...``: kubesched as a kubectl plugin (the ``kubectl-kubesched``
executable on PATH), reading the cluster kubectl's flags point at.

kubectl hands a plugin every argument after its name (kubectl's plugin handler,
k8s.io/kubectl/pkg/cmd/plugin); kubectl users expect its own flags to work there:
``--kubeconfig``, ``--context`` and ``-n/--namespace``. They are taken out wherever they
appear; the commands that read a cluster (``simulate``, ``explain``, ``capacity``,
``snapshot``) then read the one those flags name (the current context without them), and
``explain POD`` names a pod of the ``-n`` namespace (else the context's, else ``default``),
as ``kubectl describe pod POD`` does. Any other command runs as ``kubesched COMMAND``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ._inputs import bad_input, live_extra_missing
from ._main import app

__all__ = ["kubectl_args", "kubectl_main"]

PROG_NAME = "kubectl kubesched"
CLUSTER_COMMANDS = frozenset({"simulate", "explain", "capacity", "snapshot"})
_FLAGS = {"--kubeconfig": "kubeconfig", "--context": "context", "-n": "namespace", "--namespace": "namespace"}


def _take_kubectl_flags(argv: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """kubectl's flags (``--flag VALUE``, ``--flag=VALUE``, ``-nVALUE``) and the rest, in order."""
    found: dict[str, str] = {}
    rest: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--":
            rest.append(arg)
            rest.extend(it)
            break
        name, eq, value = arg.partition("=")
        if name in _FLAGS:
            if not eq:
                value = next(it, "")
                if not value:
                    raise ValueError(f"flag needs an argument: {arg}")
            found[_FLAGS[name]] = value
        elif arg.startswith("-n") and not arg.startswith("--") and len(arg) > 2:
            found["namespace"] = arg[2:]
        else:
            rest.append(arg)
    return found, rest


def kubectl_args(argv: Sequence[str]) -> list[str]:
    """The ``kubesched`` arguments for a ``kubectl kubesched`` command line."""
    flags, rest = _take_kubectl_flags(argv)
    if not rest or rest[0] not in CLUSTER_COMMANDS:
        return rest
    command, args = rest[0], rest[1:]
    cluster = [f"--{k}={flags[k]}" for k in ("kubeconfig", "context") if k in flags] or ["--from-cluster"]
    if command == "explain" and not any(a == "--pod" or a.startswith("--pod=") for a in args):
        pod_at = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
        if pod_at is not None:
            name = args.pop(pod_at)
            for prefix in ("pod/", "pods/"):
                name = name.removeprefix(prefix)
            namespace = flags.get("namespace") or _default_namespace(flags)
            args = ["--pod", f"{namespace}/{name}", *args]
    return [command, *cluster, *args]


def _default_namespace(flags: dict[str, str]) -> str:
    """The namespace of the context kubectl would use (see ``context_namespace``)."""
    from ..cluster.live import context_namespace, resolve_kubeconfig

    return context_namespace(resolve_kubeconfig(flags.get("kubeconfig")), flags.get("context"))


def kubectl_main() -> None:
    """The ``kubectl-kubesched`` console script."""
    try:
        args = kubectl_args(sys.argv[1:])
    except ImportError as exc:
        live_extra_missing("kubectl plugin", exc)
    except ValueError as exc:
        bad_input(exc)
    app(args=args, prog_name=PROG_NAME)
