"""Kubernetes objects as the scheduler reads them (``k8s.io/api/core/v1`` and friends).

Objects are immutable, parsed once from manifests, and keep their manifest in ``raw`` so
that they round-trip (``with_changes`` derives an edited copy, copying only the changed paths).
Quantities are exact integers (millicores for cpu). Also here: priority admission and the
DefaultTolerationSeconds defaults the API server applies on create, and the manifest loader
(:mod:`kubesched.api.loader`).
"""

from . import _fields as fields
from ._default_tolerations import DEFAULT_TOLERATION_SECONDS, add_default_tolerations
from ._fields import FieldValueError
from ._meta import ObjectMeta, format_time, parse_time
from ._node import ContainerImage, Node
from ._objects import (
    CSINode,
    Namespace,
    PersistentVolume,
    PersistentVolumeClaim,
    PodDisruptionBudget,
    PriorityClass,
    StorageClass,
)
from ._pod import (
    Affinity,
    Container,
    ContainerPort,
    Pod,
    PodAffinityTerm,
    TopologySpreadConstraint,
    WeightedNodeSelectorTerm,
    WeightedPodAffinityTerm,
    compute_qos,
    parse_resource_list,
)
from ._priority import (
    DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS,
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_CLUSTER_CRITICAL,
    SYSTEM_CRITICAL_PRIORITY,
    SYSTEM_NODE_CRITICAL,
    AdmissionError,
    AdmissionWarning,
    admit_pod,
    default_priority_class,
    system_priority_classes,
    validate_priority_class,
)
from ._quantity import QuantityError, format_quantity, milli_value, parse_quantity, resource_value, value
from ._raw import DELETE, Path, with_paths
from ._resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, ResourceList, pod_requests
from ._selectors import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    SelectorError,
    Taint,
    Toleration,
    find_untolerated_taint,
    tolerations_tolerate_taint,
)
from ._workloads import DaemonSet, Deployment, Job, ReplicaSet, ReplicationController, Service, StatefulSet
from .loader import ApiObject, LoadedObjects, LoadError, kind_of, load_documents, load_paths, parse_object

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS",
    "DEFAULT_TOLERATION_SECONDS",
    "DELETE",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_CLUSTER_CRITICAL",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_NODE_CRITICAL",
    "AdmissionError",
    "AdmissionWarning",
    "Affinity",
    "ApiObject",
    "CSINode",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "DaemonSet",
    "Deployment",
    "FieldValueError",
    "Job",
    "LabelSelector",
    "LabelSelectorRequirement",
    "LoadError",
    "LoadedObjects",
    "Namespace",
    "Node",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "ObjectMeta",
    "Path",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "PodAffinityTerm",
    "PodDisruptionBudget",
    "PriorityClass",
    "QuantityError",
    "ReplicaSet",
    "ReplicationController",
    "ResourceList",
    "SelectorError",
    "Service",
    "StatefulSet",
    "StorageClass",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedNodeSelectorTerm",
    "WeightedPodAffinityTerm",
    "add_default_tolerations",
    "admit_pod",
    "compute_qos",
    "default_priority_class",
    "fields",
    "find_untolerated_taint",
    "format_quantity",
    "format_time",
    "kind_of",
    "load_documents",
    "load_paths",
    "milli_value",
    "parse_object",
    "parse_quantity",
    "parse_resource_list",
    "parse_time",
    "pod_requests",
    "resource_value",
    "system_priority_classes",
    "tolerations_tolerate_taint",
    "validate_priority_class",
    "value",
    "with_paths",
]
