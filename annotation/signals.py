"""Announcements other apps may listen to (the calibration app rebuilds priors on a release)."""
from django.dispatch import Signal

release_published = Signal()  # sender=Release, release=Release
