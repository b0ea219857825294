"""The workspace migration bridge: legacy key surface -> v1 token surface."""
