"""Personal data and public releases: detection and masking at import, re-identification spans,
rewrites, public releases and takedowns (issue 21)."""
