"""Bridge mode (issue 32): keeping v1 in step with legacy during a cutover."""
