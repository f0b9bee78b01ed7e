"""Agreement: Krippendorff's alpha per dimension and level, with bootstrap intervals, pairs, each
annotator against the rest, rater severity, subgroups, distributions and the trend by batch.

- mathematics.py  alpha and the statistics around it, Django-free (numpy + krippendorff) like
                  modeling/maam; its names are this package's public API, re-exported here
- selectors.py    the report read from the database (and the dashboard's cached copy)
- services.py     bootstrap-interval reports as background jobs (run once, core.jobs)
- figures.py      the dashboard's plotly figures
- views.py, forms.py - the dashboard
"""
from .mathematics import (
    LEVELS,
    VALUE_DOMAIN,
    Ratings,
    alpha,
    bootstrap_interval,
    dimension_entry,
    distributions,
    others_mean,
    pair_matrix,
    rater_vs_rest,
    ratings_from_rows,
    severity,
    value_counts,
)

__all__ = ["LEVELS", "VALUE_DOMAIN", "Ratings", "alpha", "bootstrap_interval", "dimension_entry", "distributions",
           "others_mean", "pair_matrix", "rater_vs_rest", "ratings_from_rows", "severity", "value_counts"]
