"""Assignment and scoring: claiming the next post, submitting, revising and skipping judgments,
locking a batch (services.py); an annotator's batches, progress and judgments (selectors.py); the
annotator's pages (views.py) and REST API (api.py, serializers.py)."""
