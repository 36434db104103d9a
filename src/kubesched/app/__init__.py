"""Running kubesched as a cluster's scheduler (upstream's cmd/kube-scheduler/app)."""
