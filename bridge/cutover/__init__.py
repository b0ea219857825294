"""Cutting a project over (issue 32): the signed certificate that proves it and its rendering for people."""
