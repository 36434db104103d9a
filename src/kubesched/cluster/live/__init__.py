"""Live mode: kubesched against a real API server (client, informers, store, leader election)."""
