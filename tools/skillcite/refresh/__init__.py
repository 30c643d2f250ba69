"""Re-fetching sources (the only subpackage that imports requests or trafilatura)."""
