"""Myopia: the taxonomy as data, the parser rules per subcategory, the formulas, and the paper's worked example."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modeling.maam.lexicon import Lexicon
from modeling.maam.myopia import Myopia, MyopiaConfig, keyword_strengths, modulate, pooling_weights, smooth
from modeling.maam.parsing import JiebaParser, ParserUnavailable, make_parser
from modeling.maam.taxonomy import SUBCATEGORIES, WEIGHT_SCHEME, level_of

CFG = MyopiaConfig()


def test_taxonomy_has_31_subcategories_over_9_layers_with_table1_levels():
    assert len(SUBCATEGORIES) == 31
    assert sorted({s.layer for s in SUBCATEGORIES.values()}) == list(range(1, 10))
    assert (level_of("explicit_subject", "explicit"), level_of("explicit_subject", "emotional")) == (1, 3)
    assert [level_of("aspect_marker", d) for d in ("explicit", "implicit", "emotional")] == [5, 3, 4]
    assert [level_of("final_particle", d) for d in ("explicit", "implicit", "emotional")] == [3, 1, 1]
    assert {WEIGHT_SCHEME[k].weight for k in range(1, 6)} == {0.9, 0.6, 0.3, 0.05, 0.0}
    assert (WEIGHT_SCHEME[2].lower, WEIGHT_SCHEME[2].upper) == (0.5, 0.7)


@pytest.fixture(scope="module")
def parser():
    return JiebaParser(keyword_terms=Lexicon.default().terms)


# Table 1's examples, each in a sentence, and the subcategory the example word must get.
TABLE1_CASES = [
    ("网友支持同性婚姻", "网友", "explicit_subject"),
    ("社区反对歧视", "社区", "explicit_subject"),
    ("网友支持同性恋群体", "群体", "explicit_object"),
    ("他被要求出柜", "被", "implicit_subject"),
    ("他们支持", "他们", "pronoun"),
    ("那些都是假的", "那些", "pronoun"),
    ("存在分歧", "分歧", "existential_entity"),
    ("有偏见", "偏见", "existential_entity"),
    ("恐同的人很多", "恐同", "adjectival_modifier"),
    ("非常讨厌", "非常", "intensifier"),
    ("极其恶心", "极其", "intensifier"),
    ("女同性恋学生来了", "女同性恋", "nominal_modifier"),
    ("恐同的人", "的", "structural_de"),
    ("公开地反对", "地", "structural_de"),
    ("网友支持同性婚姻", "支持", "core_predicate"),
    ("他们反对", "反对", "core_predicate"),
    ("他是老师", "是", "copula"),
    ("存在分歧", "存在", "existential_dynamic"),
    ("有偏见", "有", "existential_dynamic"),
    ("我不同意", "不", "negation"),
    ("没人理解", "没", "negation"),
    ("他来了", "了", "aspect_marker"),
    ("他们说着", "着", "aspect_marker"),
    ("写得很清楚", "清楚", "result_complement"),
    ("骂得很凶", "凶", "result_complement"),
    ("烦透了", "烦透了", "degree_complement"),
    ("说实话我不懂", "说实话", "disjunct"),
    ("坦白说这很难", "坦白说", "disjunct"),
    ("他们在中国结婚", "中国", "locative_adjunct"),
    ("最近很多人讨论", "最近", "temporal_adjunct"),
    ("近年来变化很大", "近年来", "temporal_adjunct"),
    ("他们公开地反对", "公开", "manner_adjunct"),
    ("他们反对因为宗教", "宗教", "causal_adjunct"),
    ("为了稳定而沉默", "稳定", "purpose_adjunct"),
    ("但是我支持", "但是", "adversative_conj"),
    ("然而没有人听", "然而", "adversative_conj"),
    ("因此我们支持", "因此", "causal_conj"),
    ("如果你支持", "如果", "conditional_conj"),
    ("除非法律改变", "除非", "conditional_conj"),
    ("关于同性婚姻的讨论", "关于", "topicalizer"),
    ("对于这件事", "对于", "topicalizer"),
    ("2023年有70%的人支持", "2023", "specific_numeral"),
    ("2023年有70%的人支持", "%", "specific_numeral"),
    ("很多人支持", "很多", "vague_quantifier"),
    ("一些人反对", "一些", "vague_quantifier"),
    ("我支持，你呢。", "，", "neutral_punct"),
    ("我支持，你呢。", "。", "neutral_punct"),
    ("太好了！", "！", "emphatic_punct"),
    ("是真的吗", "吗", "final_particle"),
    ("你呢", "呢", "final_particle"),
]


@pytest.mark.parametrize("sentence,word,expected", TABLE1_CASES)
def test_jieba_rules_map_table1_examples(parser, sentence, word, expected):
    tokens = {t.text: t.subcategory for t in parser.parse(sentence)}
    assert tokens.get(word) == expected, tokens


def test_every_subcategory_is_covered_by_a_case():
    assert {case[2] for case in TABLE1_CASES} == set(SUBCATEGORIES)


def test_the_jieba_parser_tags_with_the_dictionarys_table_and_the_keywords_as_nouns():
    """The parser copies the tag table jieba.posseg read at import instead of reading dict.txt twice more
    (docs/hot_path.md): it must be the table a fresh POSTokenizer reads, with the lexicon's keywords as n,
    and a second parser must not share (and so change) the first one's table."""
    import jieba
    import jieba.posseg

    first = JiebaParser(keyword_terms=frozenset({"骗婚", "小众词甲"}))
    second = JiebaParser(keyword_terms=frozenset({"小众词乙"}))
    fresh = jieba.posseg.POSTokenizer(jieba.Tokenizer()).word_tag_tab
    assert first._tokenizer.word_tag_tab == {**fresh, "骗婚": "n", "小众词甲": "n"}
    assert second._tokenizer.word_tag_tab == {**fresh, "小众词乙": "n"}
    assert ("小众词甲", "n") in first.tag("这是小众词甲吗") and ("小众词甲", "n") not in second.tag("这是小众词甲吗")


def test_hanlp_without_local_model_gives_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("HANLP_HOME", str(tmp_path))
    with pytest.raises(ParserUnavailable, match="not available offline"):
        make_parser("hanlp")
    with pytest.raises(ParserUnavailable, match="could not load"):
        make_parser(f"hanlp:{tmp_path}")


def test_worked_example_from_the_paper():
    result = Myopia().weigh("月半，骗婚的同性恋谈诚信挺有趣的！", "explicit")
    by_text = {t.text: t for t in result.tokens}
    for dropped in ("月", "半", "，"):
        assert by_text[dropped].weight == 0 and not by_text[dropped].kept
    for anchor in ("骗婚", "同性恋"):
        assert WEIGHT_SCHEME[1].lower <= by_text[anchor].weight <= WEIGHT_SCHEME[1].upper
    assert by_text["同性恋"].keyword == 1.0 and by_text["同性恋"].level == 1
    assert WEIGHT_SCHEME[2].lower <= by_text["！"].weight <= WEIGHT_SCHEME[2].upper
    assert "月" not in result.filtered_text() and "骗婚" in result.filtered_text()


def test_keyword_promotion_lifts_a_low_level_token_to_the_top_tier():
    myopia = Myopia(lexicon=Lexicon.from_terms(["南通"]))
    plain = Myopia(lexicon=Lexicon.from_terms(["无关词"]))
    text = "南通"  # a coded term: without the lexicon it is just a place name
    promoted = myopia.weigh(text, "emotional").tokens[0]
    unpromoted = plain.weigh(text, "emotional").tokens[0]
    assert promoted.level == 1 and promoted.weight >= 0.8
    assert unpromoted.level > 1


def test_keyword_matching_marks_multi_token_ngrams_and_substrings():
    lex = Lexicon.from_terms(["同性婚姻合法化", "出柜"])
    assert keyword_strengths(["同性", "婚姻", "合法化", "了"], lex) == [1.0, 1.0, 1.0, 0.0]
    assert keyword_strengths(["出柜者", "很", "勇敢"], lex) == [1.0, 0.0, 0.0]


def test_exact_keyword_weight_is_equation_5():
    # eq. (5): w = min(w0(l_min)(1 + beta), u(l_min)) = min(0.9 * 1.4, 1.0)
    assert modulate(0.9, 1.0, 1, CFG) == pytest.approx(1.0)
    assert modulate(0.9, 1.0, 1, MyopiaConfig(beta=0.05)) == pytest.approx(0.945)
    # attenuation branch: max(w (1 - eps (1 - s)), l)
    assert modulate(0.6, 0.0, 2, CFG) == pytest.approx(0.54)
    assert modulate(0.05, 0.0, 4, CFG) == pytest.approx(0.045)


def test_smoothing_gate_follows_the_paper():
    # one isolated spike in a long sentence: high dispersion -> alpha near alpha_min
    weights = [1.0] + [0.3] * 19
    _, alpha, dispersion = smooth(weights, [1] + [3] * 19, CFG)
    assert dispersion == pytest.approx(0.2 - 0.2 / 16)  # d_1 = 1/5, the other 15 windows 0
    # clustered salient tokens everywhere: no dispersion -> alpha near alpha_max
    _, alpha_flat, _ = smooth([1.0] * 10, [1] * 10, CFG)
    assert alpha_flat == pytest.approx(1 / (1 + math.exp(-10 * 0.3)) * 0.6 + 0.3)
    assert alpha == pytest.approx(1 / (1 + math.exp(10 * (0.1875 - 0.3))) * 0.6 + 0.3)
    assert alpha < alpha_flat


def test_cli_weights_json():
    out = subprocess.run([sys.executable, "-m", "modeling.maam", "weights", "--text", "月半，骗婚的同性恋谈诚信挺有趣的！",
                          "--dimension", "explicit", "--json"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert data["dimension"] == "explicit"
    assert {"text", "subcategory", "level", "weight", "kept"} <= set(data["tokens"][0])
    assert [t["text"] for t in data["tokens"] if not t["kept"]] == ["月", "半", "，", "的", "的"]


# ---------------------------------------------------------------- properties (hypothesis)

levels = st.integers(min_value=1, max_value=5)


@given(level=levels, s=st.floats(0, 1), gamma=st.floats(0, 1), beta=st.floats(0, 2), eps=st.floats(0, 1))
def test_modulated_weight_stays_in_its_tier(level, s, gamma, beta, eps):
    cfg = MyopiaConfig(gamma=gamma, beta=beta, epsilon=eps)
    tier = WEIGHT_SCHEME[level]
    w = modulate(tier.weight, s, level, cfg)
    assert tier.lower - 1e-12 <= w <= tier.upper + 1e-12


@given(st.lists(st.tuples(levels, st.floats(0, 1)), min_size=1, max_size=60),
       st.integers(1, 9), st.floats(0.1, 1.0), st.floats(0, 0.5), st.floats(0.5, 20))
def test_smoothing_never_leaves_the_tier(pairs, k, tau_h, tau_f, kappa):
    cfg = MyopiaConfig(k=k, tau_h=tau_h, tau_f=tau_f, kappa=kappa)
    lv = [p[0] for p in pairs]
    w = [WEIGHT_SCHEME[l].lower + p[1] * (WEIGHT_SCHEME[l].upper - WEIGHT_SCHEME[l].lower) for l, p in zip(lv, pairs)]
    out, alpha, _ = smooth(w, lv, cfg)
    assert cfg.alpha_min - 1e-12 <= alpha <= cfg.alpha_max + 1e-12
    for value, level in zip(out, lv):
        assert WEIGHT_SCHEME[level].lower - 1e-12 <= value <= WEIGHT_SCHEME[level].upper + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="同性恋支持反对的了，。！吗很多2023我他们在中国最近说实话有偏见", min_size=1, max_size=40),
       st.sampled_from(["explicit", "implicit", "emotional"]))
def test_filtering_removes_exactly_level5_and_pooling_sums_to_one(text, dimension):
    result = MYOPIA.weigh(text, dimension)
    for t in result.tokens:
        assert t.kept == (t.level != 5)
        assert WEIGHT_SCHEME[t.level].lower - 1e-12 <= t.weight <= WEIGHT_SCHEME[t.level].upper + 1e-12
    pool = result.pooling()
    if any(t.kept and t.weight > 0 for t in result.tokens):
        assert sum(pool) == pytest.approx(1.0)
    assert all(p == 0 for p, t in zip(pool, result.tokens) if not t.kept)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=50))
def test_pooling_weights_sum_to_one(weights):
    pool = pooling_weights(weights)
    if sum(w for w in weights if w > 0) > 0:
        assert sum(pool) == pytest.approx(1.0)
        assert all(p >= 0 for p in pool)
    else:
        assert all(p == 0 for p in pool)


MYOPIA = Myopia()


def test_representation_metrics_follow_the_appendix_formulas():
    import numpy as np

    from modeling.maam.diagnostics import representation_metrics

    h = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    w = [0.9, 0.3, 0.0]
    m = representation_metrics(h, w)
    v_wgt = np.array([0.75, 0.25])
    assert m["mad"] == pytest.approx(np.abs(v_wgt - h.mean(axis=0)).sum() / 2)
    assert m["d_high"] == pytest.approx(np.abs(np.array([1.0, 0.0]) - v_wgt).sum() / 2)
    assert m["d_low"] == pytest.approx(np.abs(h[[1, 2]].mean(axis=0) - v_wgt).sum() / 2)
    assert m["d_high"] < m["d_low"]


def test_deletion_and_masking():
    import numpy as np

    from modeling.maam.diagnostics import mask_identity, random_deletion

    tokens = ["他们", "是", "同性恋", "吗", "？"]
    assert random_deletion(tokens, 1.0, np.random.default_rng(0)) == "他们是同性恋吗？"
    kept = random_deletion(tokens, 0.6, np.random.default_rng(0))
    assert len(kept) < len("他们是同性恋吗？") and kept[0] in "他是同吗？"
    assert mask_identity(tokens, Lexicon.default()) == "他们是[IDENTITY]吗？"


def test_hanlp_parse_maps_ctb_tags_and_dependencies():
    """The HanLP path on a stub model with HanLP's output format (the real model is not on this machine)."""
    from modeling.maam.parsing import HanLPParser

    parser = HanLPParser.__new__(HanLPParser)
    parser.keyword_terms = Lexicon.default().terms
    parser._model = lambda text, tasks: {
        "tok/fine": ["网友", "不", "支持", "同性", "婚姻", "吗", "？"],
        "pos/ctb": ["NN", "AD", "VV", "NN", "NN", "SP", "PU"],
        "dep": [(3, "nsubj"), (3, "neg"), (0, "root"), (5, "nn"), (3, "dobj"), (3, "discourse"), (3, "punct")],
    }
    tokens = parser.parse("网友不支持同性婚姻吗？")
    assert [t.subcategory for t in tokens] == ["explicit_subject", "negation", "core_predicate", "nominal_modifier",
                                               "explicit_object", "final_particle", "emphatic_punct"]
    assert [(t.start, t.end) for t in tokens][:3] == [(0, 2), (2, 3), (3, 5)]
