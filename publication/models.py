"""Rows of the publication app: rewrites of posts for public releases and takedown requests."""
