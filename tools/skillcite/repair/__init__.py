"""Writing back: ``fix`` (anchors) and ``lock`` (content locks)."""
