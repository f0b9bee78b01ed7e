"""Every one of Table 1's 93 importance levels (31 subcategories x 3 dimensions), transcribed from the
paper (MAAM.tex, table "linguistic_summary") and checked against the taxonomy Myopia uses.

(Kept beside the modeling tests rather than in tests/maam/, which the library's owner keeps; the
taxonomy itself is modeling/maam/taxonomy.py.)"""
from __future__ import annotations

import pytest

from modeling.maam.taxonomy import SUBCATEGORIES, level_of

# (layer, name in the paper, explicit, implicit, emotional), in the paper's order.
TABLE1 = [
    (1, "Explicit Subject", 1, 1, 3),
    (1, "Explicit Object", 1, 1, 3),
    (1, "Implicit Subject", 2, 1, 3),
    (1, "Pronouns", 2, 2, 3),
    (1, "Existential Anchor (Entity)", 4, 4, 4),
    (2, "Adjectival Modifiers", 1, 1, 1),
    (2, "Strong Polarity Intensifiers", 2, 3, 1),
    (2, "Nominal Modifiers", 2, 2, 4),
    (2, 'Structural Particle "de"', 5, 5, 5),
    (3, "Core Predicate Verb", 1, 2, 1),
    (3, "Equative Copula", 1, 1, 2),
    (3, "Existential Anchor (Dynamic)", 4, 4, 4),
    (4, "Negation", 1, 1, 1),
    (4, "Aspect Markers", 5, 3, 4),
    (4, "Result Complements", 3, 3, 1),
    (4, "Degree Complements", 3, 3, 1),
    (4, "Disjuncts / Parentheticals", 5, 2, 3),
    (5, "Locative Adjuncts", 4, 2, 3),
    (5, "Temporal Adjuncts", 4, 3, 3),
    (5, "Manner Adjuncts", 3, 1, 2),
    (5, "Causal Adjuncts", 3, 1, 2),
    (5, "Purpose Adjuncts", 3, 2, 3),
    (6, "Adversative Conjunctions", 4, 2, 2),
    (6, "Causal Conjunctions", 4, 2, 2),
    (6, "Conditional Conjunctions", 4, 2, 3),
    (6, "Topicalizing Prepositions", 4, 3, 4),
    (7, "Specific Numerals", 5, 5, 5),
    (7, "Vague Quantifiers", 3, 4, 4),
    (8, "Neutral Punctuation", 5, 5, 5),
    (8, "Emphatic Punctuation", 2, 2, 1),
    (9, "Sentence-Final Particles", 3, 1, 1),
]
BY_NAME = {s.name: s for s in SUBCATEGORIES.values()}


def test_the_taxonomy_has_exactly_table1s_subcategories():
    assert len(TABLE1) == 31 and sorted(BY_NAME) == sorted(name for _, name, *_ in TABLE1)


@pytest.mark.parametrize("layer,name,explicit,implicit,emotional", TABLE1, ids=[row[1] for row in TABLE1])
def test_table1_levels(layer, name, explicit, implicit, emotional):
    sub = BY_NAME[name]
    assert sub.layer == layer
    levels = {d: level_of(sub.key, d) for d in ("explicit", "implicit", "emotional")}
    assert levels == {"explicit": explicit, "implicit": implicit, "emotional": emotional}
