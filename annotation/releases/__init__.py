"""Releases: immutable, numbered, content-hashed dataset snapshots.

- services.py  `release_publish` - the one way to publish (page, admin and `export_release`)
- selectors.py `release_rows`, `labelled_posts`, `release_file_bytes` - the one reader of a
               release's files, each checked against the manifest
- files.py     the bytes of each file (ChLGBT CSV, JSONL, judgments, split, diff, data card)
- views.py, forms.py, admin.py - the pages
"""
