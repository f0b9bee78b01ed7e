"""Adjudication: the disagreement queue and a post's summary (selectors.py), settling a post's final
label and the automatic rounded-mean labels (services.py), the final-label rounding rule
(rounding.py), and the adjudicator's pages (views.py, forms.py)."""
from .rounding import round_half_up, rounded_mean

__all__ = ["round_half_up", "rounded_mean"]
