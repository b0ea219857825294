"""What both product surfaces write and read alike: JSON bodies, moments and RFC 3339 dates.

Neither the core (no wire formats) nor a surface (they never import each other): the two surfaces import it.
"""
