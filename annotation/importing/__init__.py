"""Bringing posts and judgments in: files are parsed (parsers.py), checked and written all-or-nothing
(services.py); the upload page (views.py, forms.py) and the import commands call the services."""
