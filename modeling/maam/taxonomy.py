"""The nine-layer linguistic taxonomy (paper Table 1) and the level -> weight scheme (Table
"weight scheme"), as data."""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

DIMENSIONS = ("explicit", "implicit", "emotional")


@dataclass(frozen=True)
class Subcategory:
    key: str
    layer: int
    layer_name: str
    name: str
    examples: tuple[str, ...]
    explicit: int
    implicit: int
    emotional: int

    def level(self, dimension: str) -> int:
        return getattr(self, dimension)


_ROWS = [
    # layer, layer name, key, name, examples (Table 1, ZH), Exp., Imp., Emo.
    (1, "Core Arguments", "explicit_subject", "Explicit Subject", ("社区", "网友"), 1, 1, 3),
    (1, "Core Arguments", "explicit_object", "Explicit Object", ("同性婚姻", "同性恋群体"), 1, 1, 3),
    (1, "Core Arguments", "implicit_subject", "Implicit Subject", ("被",), 2, 1, 3),
    (1, "Core Arguments", "pronoun", "Pronouns", ("他", "她", "它", "他们", "这个", "那些"), 2, 2, 3),
    (1, "Core Arguments", "existential_entity", "Existential Anchor (Entity)", ("分歧", "偏见"), 4, 4, 4),
    (2, "Attributive Modifiers", "adjectival_modifier", "Adjectival Modifiers", ("恐同", "歧视性"), 1, 1, 1),
    (2, "Attributive Modifiers", "intensifier", "Strong Polarity Intensifiers", ("非常", "极其"), 2, 3, 1),
    (2, "Attributive Modifiers", "nominal_modifier", "Nominal Modifiers", ("女同性恋", "同性恋"), 2, 2, 4),
    (2, "Attributive Modifiers", "structural_de", "Structural Particle \"de\"", ("的", "地", "得"), 5, 5, 5),
    (3, "Predicative Events", "core_predicate", "Core Predicate Verb", ("支持", "反对"), 1, 2, 1),
    (3, "Predicative Events", "copula", "Equative Copula", ("是",), 1, 1, 2),
    (3, "Predicative Events", "existential_dynamic", "Existential Anchor (Dynamic)", ("存在", "有"), 4, 4, 4),
    (4, "Modality & State", "negation", "Negation", ("不", "没", "无"), 1, 1, 1),
    (4, "Modality & State", "aspect_marker", "Aspect Markers", ("了", "着", "过"), 5, 3, 4),
    (4, "Modality & State", "result_complement", "Result Complements", ("得很凶", "得很清楚"), 3, 3, 1),
    (4, "Modality & State", "degree_complement", "Degree Complements", ("透了", "极了"), 3, 3, 1),
    (4, "Modality & State", "disjunct", "Disjuncts / Parentheticals", ("说实话", "坦白说"), 5, 2, 3),
    (5, "Contextual Frames", "locative_adjunct", "Locative Adjuncts", ("在中国", "在校园里"), 4, 2, 3),
    (5, "Contextual Frames", "temporal_adjunct", "Temporal Adjuncts", ("最近", "近年来"), 4, 3, 3),
    (5, "Contextual Frames", "manner_adjunct", "Manner Adjuncts", ("公开地", "私下地"), 3, 1, 2),
    (5, "Contextual Frames", "causal_adjunct", "Causal Adjuncts", ("因为宗教", "因为传统"), 3, 1, 2),
    (5, "Contextual Frames", "purpose_adjunct", "Purpose Adjuncts", ("为了稳定", "为了形象"), 3, 2, 3),
    (6, "Logical Connectors", "adversative_conj", "Adversative Conjunctions", ("但是", "然而"), 4, 2, 2),
    (6, "Logical Connectors", "causal_conj", "Causal Conjunctions", ("因为", "因此"), 4, 2, 2),
    (6, "Logical Connectors", "conditional_conj", "Conditional Conjunctions", ("如果", "除非"), 4, 2, 3),
    (6, "Logical Connectors", "topicalizer", "Topicalizing Prepositions", ("关于", "对于"), 4, 3, 4),
    (7, "Quantificational Details", "specific_numeral", "Specific Numerals", ("2023年", "70%"), 5, 5, 5),
    (7, "Quantificational Details", "vague_quantifier", "Vague Quantifiers", ("很多", "一些"), 3, 4, 4),
    (8, "Punctuation Markers", "neutral_punct", "Neutral Punctuation", ("，", "。"), 5, 5, 5),
    (8, "Punctuation Markers", "emphatic_punct", "Emphatic Punctuation", ("！", "……"), 2, 2, 1),
    (9, "Modal Particles", "final_particle", "Sentence-Final Particles", ("吗", "呢"), 3, 1, 1),
]

SUBCATEGORIES: MappingProxyType = MappingProxyType(
    {key: Subcategory(key, layer, layer_name, name, ex, e, i, m) for layer, layer_name, key, name, ex, e, i, m in _ROWS}
)
if len(SUBCATEGORIES) != 31:  # Table 1 has 31 subcategories
    raise RuntimeError(f"taxonomy has {len(SUBCATEGORIES)} subcategories, expected 31")


@dataclass(frozen=True)
class Tier:
    weight: float
    lower: float
    upper: float


# Table "weight scheme": level -> assigned weight and retention bounds; level 5 is excluded pre-encoder.
WEIGHT_SCHEME: MappingProxyType = MappingProxyType({
    1: Tier(0.90, 0.8, 1.0),
    2: Tier(0.60, 0.5, 0.7),
    3: Tier(0.30, 0.2, 0.4),
    4: Tier(0.05, 0.0, 0.1),
    5: Tier(0.00, 0.0, 0.0),
})
LEVEL_MIN = 1  # the most sensitive level (promotion target)
LEVEL_EXCLUDED = 5


def level_of(subcategory: str, dimension: str) -> int:
    if dimension not in DIMENSIONS:
        raise ValueError(f"dimension must be one of {DIMENSIONS}, got {dimension!r}")
    return SUBCATEGORIES[subcategory].level(dimension)
