"""Token -> taxonomy subcategory. One rule engine over (word, POS tag, optional dependency role),
fed by two parsers: HanLP (POS + dependency, when its models are installed locally) and the
offline default, jieba.posseg. The rules are documented in docs/myopia_parsing.md."""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Protocol, Sequence


@dataclass(frozen=True)
class Token:
    text: str
    tag: str
    start: int
    end: int
    subcategory: str


class Parser(Protocol):
    name: str

    def parse(self, text: str) -> list[Token]: ...


class ParserUnavailable(RuntimeError):
    """The requested parser cannot run here; the message says what to install or where to point."""


EMPHATIC_PUNCT = frozenset("！!？?…～~") | {"……", "!!", "！！", "？！", "?!", "!?"}
DE = frozenset({"的", "地", "得", "之"})
ASPECT = frozenset({"了", "着", "过"})
FINAL_PARTICLES = frozenset({"吗", "呢", "吧", "啊", "呀", "嘛", "啦", "哦", "呗", "咯", "喔", "哇", "么", "哈", "诶", "嘞"})
NEGATION = frozenset({"不", "没", "没有", "无", "别", "未", "非", "莫", "勿", "甭", "不要", "不是", "不能", "不会", "绝不", "毫无"})
INTENSIFIERS = frozenset({"非常", "极其", "很", "太", "特别", "十分", "超", "超级", "最", "真", "挺", "好", "更", "越来越",
                          "极", "相当", "格外", "尤其", "如此", "这么", "那么", "多么", "巨", "贼", "真的", "实在", "简直"})
DISJUNCTS = frozenset({"说实话", "坦白说", "老实说", "说真的", "其实", "显然", "当然", "讲真", "确实", "毕竟", "据说",
                       "听说", "看来", "讲道理", "说白了", "总之", "反正"})
ADVERSATIVE = frozenset({"但是", "但", "然而", "可是", "不过", "却", "而", "可", "而是"})
CAUSAL_CONJ = frozenset({"因为", "所以", "因此", "由于", "因而", "于是", "是因为", "既然", "因", "以致"})
CONDITIONAL = frozenset({"如果", "除非", "假如", "要是", "只要", "只有", "即使", "哪怕", "万一", "若", "就算", "如若"})
COORDINATING = frozenset({"和", "与", "及", "以及", "或", "或者", "跟", "并且", "而且", "并"})
TOPICALIZERS = frozenset({"关于", "对于", "至于", "对", "针对", "就", "把", "将", "向", "给"})
PASSIVE = frozenset({"被", "遭", "遭到", "受到", "挨"})
LOCATIVE_PREP = frozenset({"在", "于", "从", "自", "到"})
PURPOSE_PREP = frozenset({"为了", "为"})
CAUSE_PREP = frozenset({"因为", "由于", "因"})
VAGUE = frozenset({"很多", "一些", "许多", "不少", "大量", "所有", "很少", "部分", "几个", "多数", "大多数", "些", "好多",
                   "一切", "各种", "每个", "有些", "某些", "多少", "无数", "一堆", "等", "等等", "不少人", "好些"})
TEMPORAL = frozenset({"最近", "近年来", "现在", "以前", "刚才", "曾经", "如今", "当年", "今天", "昨天", "明天", "今年",
                      "去年", "以后", "之前", "之后", "近年", "当下", "目前", "从前", "从小", "一直", "已经", "刚刚"})
MANNER = frozenset({"公开", "私下", "偷偷", "默默", "公然", "故意", "直接", "一起", "悄悄", "公开地", "私下地"})
COPULA = frozenset({"是", "乃", "系"})
EXISTENTIAL = frozenset({"有", "存在", "拥有", "没有"}) - {"没有"}
DEGREE_COMPLEMENT_ENDINGS = ("透了", "极了", "死了", "坏了", "疯了", "爆了")
STANCE_VERBS = frozenset({"反对", "支持", "歧视", "讨厌", "喜欢", "恨", "骂", "尊重", "接受", "理解", "包容", "恶心",
                          "鄙视", "排斥", "认同", "祝福", "同情", "害怕", "恐惧", "攻击"})
NUMBER_CHARS = frozenset("0123456789０１２３４５６７８９一二三四五六七八九十百千万亿两半零%％.")
NUMERAL_UNITS = frozenset({"年", "月", "日", "号", "天", "岁", "点", "分", "秒", "周", "次", "个", "元", "块", "%", "％"})

NOUN_TAGS = ("n", "nr", "nz", "nt", "ng", "nrt", "nrfg", "ns", "eng", "vn", "j", "NN", "NR")


def _is_punct(word: str) -> bool:
    return all(unicodedata.category(ch)[0] in "PS" or ch.isspace() for ch in word)


def _is_noun(tag: str) -> bool:
    return tag.startswith("n") or tag in ("eng", "vn", "j")


def _is_verb(tag: str) -> bool:
    return tag.startswith("v") and tag != "vn"


def assign_subcategories(words: Sequence[str], tags: Sequence[str], *, keyword_terms: frozenset = frozenset(),
                         roles: Sequence[str] | None = None, core_index: int | None = None) -> list[str]:
    """Map each (word, tag) to one of the 31 subcategories.

    `tags` are jieba/ICTCLAS-style tags (HanLP's CTB tags are converted first). `roles` are
    dependency relations when a dependency parser ran (nsubj, dobj, ...); otherwise subject and
    object are told apart by position around the core verb (the first verb of the clause)."""
    n = len(words)
    tags = list(tags)
    for i, w in enumerate(words):  # known identity terms are nominal, stance verbs are verbs, whatever the tagger says
        if w.lower() in keyword_terms:
            tags[i] = "n"
        elif w in STANCE_VERBS:
            tags[i] = "v"
    out = [""] * n
    span_kind: str | None = None  # inside a prepositional adjunct phrase
    clause_verb = core_index if core_index is not None else -1
    clause_start = 0

    def next_clause_verb(start: int) -> int:
        for j in range(start, n):
            if _is_punct(words[j]):
                return -1
            if _is_verb(tags[j]):
                return j
        return -1

    if core_index is None:
        clause_verb = next_clause_verb(0)

    for i, (w, t) in enumerate(zip(words, tags)):
        if w in ("%", "％") and i > 0 and out[i - 1] == "specific_numeral":
            out[i] = "specific_numeral"
            continue
        if _is_punct(w) and not w.isalnum():
            out[i] = "emphatic_punct" if (w in EMPHATIC_PUNCT or set(w) <= EMPHATIC_PUNCT) else "neutral_punct"
            span_kind = None
            if core_index is None:
                clause_start = i + 1
                clause_verb = next_clause_verb(i + 1)
            continue
        prev_w = words[i - 1] if i > 0 else ""
        prev_t = tags[i - 1] if i > 0 else ""
        next_t = tags[i + 1] if i + 1 < n else ""
        role = roles[i] if roles else ""

        # Prepositional adjunct phrases: the preposition and its nominal object share the frame.
        if span_kind and w in TEMPORAL:
            span_kind = None
        if span_kind and (_is_noun(t) or t in ("r", "m", "q", "f", "s", "ns", "t", "a", "b") or w in DE):
            if _is_verb(t) or (w in DE and i + 1 < n and _is_noun(next_t) is False):
                span_kind = None
            else:
                out[i] = span_kind
                continue
        span_kind = None

        if w in DISJUNCTS:
            out[i] = "disjunct"
        elif w in NUMERAL_UNITS and i > 0 and out[i - 1] == "specific_numeral":
            out[i] = "specific_numeral"
        elif i > 0 and out[i - 1] == "existential_dynamic" and (_is_noun(t) or _is_verb(t)):
            out[i] = "existential_entity"
        elif w.endswith(DEGREE_COMPLEMENT_ENDINGS) or (w in ("透", "极", "死") and i + 1 < n and words[i + 1] == "了"):
            out[i] = "degree_complement"
        elif w == "了" and i > 0 and out[i - 1] == "degree_complement" and prev_w in ("透", "极", "死"):
            out[i] = "degree_complement"
        elif w in DE:
            out[i] = "structural_de"
        elif prev_w == "得" and (t.startswith("d") or t.startswith("a")) and i >= 2 and (_is_verb(tags[i - 2]) or tags[i - 2].startswith("a")):
            out[i] = "result_complement"
        elif i >= 2 and out[i - 1] == "result_complement" and t.startswith("a"):
            out[i] = "result_complement"
        elif w in ASPECT and (t.startswith("u") or t == "ul" or t == "uz" or t == "ug" or t == "AS"):
            out[i] = "aspect_marker"
        elif w in NEGATION:
            out[i] = "negation"
        elif w in PASSIVE or t in ("LB", "SB"):
            out[i] = "implicit_subject"
        elif w in CONDITIONAL:
            out[i] = "conditional_conj"
        elif w in CAUSE_PREP and i + 1 < n and _is_noun(next_t) and (
            i + 2 >= n or _is_punct(words[i + 2]) or words[i + 2] in PURPOSE_PREP or not _is_verb(tags[i + 2])
        ):
            out[i] = "causal_adjunct"
            span_kind = "causal_adjunct"
        elif w in CAUSAL_CONJ:
            out[i] = "causal_conj"
        elif w in ADVERSATIVE and (t.startswith("c") or t.startswith("d") or t in ("CC", "AD")):
            out[i] = "adversative_conj"
        elif w in COORDINATING and (t.startswith("c") or t.startswith("p") or t == "CC"):
            out[i] = "structural_de"  # coordinators only link constituents (docs: level 5 like 的)
        elif w in PURPOSE_PREP and t.startswith("p"):
            out[i] = "purpose_adjunct"
            span_kind = "purpose_adjunct"
        elif w in LOCATIVE_PREP and t.startswith("p"):
            out[i] = "locative_adjunct"
            span_kind = "locative_adjunct"
        elif w in TOPICALIZERS and (t.startswith("p") or t == "BA"):
            out[i] = "topicalizer"
        elif w in INTENSIFIERS and (t.startswith("d") or t in ("a", "AD", "zg")):
            out[i] = "intensifier"
        elif w in VAGUE:
            out[i] = "vague_quantifier"
        elif w in TEMPORAL or t == "t" or t == "NT":
            out[i] = "temporal_adjunct"
        elif w in MANNER or (t == "ad" and i + 1 < n and words[i + 1] == "地"):
            out[i] = "manner_adjunct"
        elif w in FINAL_PARTICLES and (t in ("y", "e", "o", "zg", "SP", "IJ") or i == n - 1 or _is_punct(words[i + 1])):
            out[i] = "final_particle"
        elif t in ("y", "e", "o", "SP", "IJ", "ON"):
            out[i] = "final_particle"
        elif t.startswith("m") or t == "q" or t in ("CD", "OD", "M"):
            if (all(ch in NUMBER_CHARS or ch in NUMERAL_UNITS for ch in w) or any(ch.isdigit() for ch in w)
                    or t in ("mq", "CD", "OD")):
                out[i] = "specific_numeral"
            elif t == "q" and prev_t.startswith("m") and out[i - 1] == "specific_numeral":
                out[i] = "specific_numeral"
            else:
                out[i] = "vague_quantifier"
        elif t == "r" or t in ("PN", "DT"):
            out[i] = "pronoun"
        elif w in COPULA and (_is_verb(t) or t == "VC"):
            out[i] = "copula"
        elif w in EXISTENTIAL and (_is_verb(t) or t == "VE"):
            out[i] = "existential_dynamic"
        elif _is_verb(t):
            out[i] = "core_predicate"
        elif t.startswith("a") or t in ("b", "z", "i", "l", "JJ", "VA"):
            out[i] = "adjectival_modifier"
        elif t in ("s", "f") or t == "LC":
            out[i] = "temporal_adjunct" if w in TEMPORAL else "locative_adjunct"
        elif t.startswith("d") or t == "AD":
            out[i] = "manner_adjunct"  # other adverbs (都, 也, 还 ...) frame how the event holds (docs)
        elif t.startswith("c") or t in ("CC", "CS"):
            out[i] = "causal_conj"
        elif t.startswith("p"):
            out[i] = "topicalizer"
        elif t.startswith("u") or t in ("MSP", "ETC", "DEC", "DEG", "DER", "DEV"):
            out[i] = "structural_de"
        else:
            # Nominal (and anything unknown is treated as a nominal argument).
            j = i - 1
            while j >= 0 and (words[j] in ASPECT or out[j] == "vague_quantifier"):
                j -= 1
            if j >= 0 and out[j] == "existential_dynamic":
                out[i] = "existential_entity"
            elif role in ("nsubj", "nsubjpass", "top", "xsubj"):
                out[i] = "explicit_subject"
            elif role in ("dobj", "obj", "pobj", "attr", "range"):
                out[i] = "explicit_object"
            elif role in ("nn", "compound:nn", "nmod", "assmod"):
                out[i] = "nominal_modifier"
            elif i + 1 < n and _is_noun(next_t) and not roles:
                out[i] = "nominal_modifier"
            elif clause_verb >= 0 and i > clause_verb:
                out[i] = "explicit_object"
            elif clause_verb >= 0 and i >= clause_start:
                out[i] = "explicit_subject"
            else:
                out[i] = "explicit_object"
    return out


def _tagger_class():
    import jieba.posseg

    class Tagger(jieba.posseg.POSTokenizer):
        """jieba's POS tagger over its own tokenizer, given the tag table instead of reading it from disk."""

        def __init__(self, tokenizer, word_tag_tab: dict):
            self.tokenizer = tokenizer
            self.word_tag_tab = dict(word_tag_tab)

    return Tagger


def _Tagger(tokenizer, word_tag_tab):  # noqa: N802 - a class made on first use (jieba imports lazily)
    global _TAGGER
    if _TAGGER is None:
        _TAGGER = _tagger_class()
    return _TAGGER(tokenizer, word_tag_tab)


_TAGGER = None


class JiebaParser:
    """The offline default: jieba.posseg tags (its dictionary ships with the package) plus the rules."""

    name = "jieba"

    def __init__(self, keyword_terms: frozenset = frozenset(), user_words=()):
        import jieba
        import jieba.posseg

        jieba.setLogLevel(60)
        # The dictionary's tag table is read once per process (importing jieba.posseg reads it for its
        # module-level tagger) and copied: POSTokenizer() read the 349k-line file again, and a second
        # load_word_tag a third time, 0.44 s each of the parser's 1.9 s (docs/hot_path.md, web workers load
        # this parser at start). Same table: both read the packaged dict.txt; nothing here adds words to
        # jieba's global tokenizer, whose tags are the only thing that could change it.
        self._tokenizer = _Tagger(jieba.Tokenizer(), jieba.posseg.dt.word_tag_tab)
        self._tokenizer.tokenizer.initialize()
        for word in sorted(set(user_words) | set(keyword_terms)):
            if word and not word.isascii():
                self._tokenizer.tokenizer.add_word(word, freq=None, tag="n")
                self._tokenizer.word_tag_tab[word] = "n"
        self.keyword_terms = frozenset(t.lower() for t in keyword_terms)

    def tag(self, text: str) -> list[tuple[str, str]]:
        return [(p.word, p.flag) for p in self._tokenizer.cut(text, HMM=True)]

    def parse(self, text: str) -> list[Token]:
        pairs = [(w, t) for w, t in self.tag(text) if w.strip()] if " " in text else self.tag(text)
        words = [w for w, _ in pairs]
        tags = [t for _, t in pairs]
        subs = assign_subcategories(words, tags, keyword_terms=self.keyword_terms)
        tokens, pos = [], 0
        for w, t, s in zip(words, tags, subs):
            start = text.find(w, pos)
            if start < 0:
                start = pos
            tokens.append(Token(w, t, start, start + len(w), s))
            pos = start + len(w)
        return tokens


# CTB (HanLP pos/ctb) -> the ICTCLAS-style tags the rules read.
CTB_TO_ICTCLAS = {
    "NN": "n", "NR": "nr", "NT": "t", "VV": "v", "VC": "v", "VE": "v", "VA": "a", "AD": "d", "JJ": "a", "P": "p",
    "CC": "c", "CS": "c", "DEC": "uj", "DEG": "uj", "DER": "ud", "DEV": "uv", "AS": "ul", "SP": "y", "IJ": "e",
    "PU": "x", "PN": "r", "CD": "m", "OD": "m", "M": "q", "LC": "f", "DT": "r", "BA": "p", "LB": "LB", "SB": "SB",
    "MSP": "u", "ETC": "u", "FW": "eng", "ON": "o", "URL": "eng", "EM": "x", "IC": "x", "NOI": "x",
}
DEFAULT_HANLP_MODEL = "CLOSE_TOK_POS_NER_SRL_DEP_SDP_CON_ELECTRA_SMALL_ZH"


class HanLPParser:
    """HanLP multi-task model (tokenisation, CTB POS, dependency). Used when the model is on disk
    (a local path, or a HanLP model name already in HANLP_HOME); never downloads."""

    name = "hanlp"

    def __init__(self, model: str = DEFAULT_HANLP_MODEL, keyword_terms: frozenset = frozenset()):
        import os

        self.keyword_terms = frozenset(t.lower() for t in keyword_terms)
        try:
            import hanlp
        except ImportError as exc:  # pragma: no cover - hanlp is in requirements.txt
            raise ParserUnavailable("HanLP is not installed: pip install hanlp==2.1.3") from exc
        location = model
        if not os.path.exists(model):
            from hanlp.pretrained import mtl

            url = getattr(mtl, model, None)
            home = os.environ.get("HANLP_HOME", os.path.expanduser("~/.hanlp"))
            cached = None
            if url:
                stem = os.path.splitext(os.path.basename(url))[0]
                for root, dirs, _ in os.walk(home) if os.path.isdir(home) else []:
                    if stem in dirs:
                        cached = os.path.join(root, stem)
                        break
            if cached is None:
                raise ParserUnavailable(
                    f"HanLP model {model!r} is not available offline: no such local path, and it is not in "
                    f"HANLP_HOME ({home}). Copy the unpacked model there or pass its directory; "
                    f"the offline default parser 'jieba' needs no model."
                )
            location = cached
        try:
            self._model = hanlp.load(location)
        except Exception as exc:
            raise ParserUnavailable(f"HanLP could not load {location!r}: {exc}") from exc

    def parse(self, text: str) -> list[Token]:
        doc = self._model(text, tasks=["tok/fine", "pos/ctb", "dep"])
        words = doc["tok/fine"]
        ctb = doc["pos/ctb"]
        deps = doc["dep"]  # [(head, relation)], head 0 = root
        tags = [CTB_TO_ICTCLAS.get(t, "n") if t not in ("VC", "VE") else "v" for t in ctb]
        roles = [rel for _, rel in deps]
        core = next((i for i, (head, _) in enumerate(deps) if head == 0), None)
        subs = assign_subcategories(words, tags, keyword_terms=self.keyword_terms, roles=roles, core_index=core)
        tokens, pos = [], 0
        for w, t, s in zip(words, ctb, subs):
            start = text.find(w, pos)
            start = pos if start < 0 else start
            tokens.append(Token(w, t, start, start + len(w), s))
            pos = start + len(w)
        return tokens


def make_parser(name: str = "jieba", keyword_terms: frozenset = frozenset(), **kwargs) -> Parser:
    if name == "jieba":
        return JiebaParser(keyword_terms=keyword_terms)
    if name == "hanlp" or name.startswith("hanlp:"):
        model = name.split(":", 1)[1] if ":" in name else kwargs.get("model", DEFAULT_HANLP_MODEL)
        return HanLPParser(model=model, keyword_terms=keyword_terms)
    raise ValueError(f"unknown parser {name!r}: use 'jieba' or 'hanlp[:MODEL_OR_PATH]'")
