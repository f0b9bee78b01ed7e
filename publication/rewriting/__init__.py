"""Rewriting posts for public releases: the checks every rewrite passes (personal data masked,
longest span shared with the original), drafts, submission, a second person's confirmation, the
queue, bulk import (`import_rewrites`) and the rewrite pages.

- checks.py    `rewrite_check`: mask personal data, measure the shared span (no database writes)
- services.py  drafts, submit, confirm / re-score, import
- selectors.py the queue, a post's history, the confirmed rewrite a public release uses
- views.py     the rewrite, confirm and queue pages
"""
