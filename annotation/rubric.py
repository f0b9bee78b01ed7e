"""The paper's "annotation guidance" table (Appendix, Table annotation_guidance), seeded as guideline v1."""

PAPER_RUBRIC = {
    "explicit": {
        "1": {"explanation": "Mentions LGBT without hostility.", "example": "支持同性恋自由"},
        "2": {"explanation": "Mild disrespect or problematic framing.", "example": "原来出生率低是因为同性恋率太高"},
        "3": {"explanation": "Clearly unfriendly attitude toward LGBT.", "example": "长不成这样别说自己是同性恋"},
        "4": {"explanation": "Strong discriminatory remarks.", "example": "死小孩再鬼叫你长大变成同性恋"},
        "5": {"explanation": "Hostile, offensive, hateful language.", "example": "祝所有重男轻女的家庭生出来的男宝是同性恋得艾滋病"},
    },
    "implicit": {
        "1": {"explanation": "No implicit bias; no indirect negativity.", "example": "我是同性恋爱好者"},
        "2": {"explanation": "Slight hints of bias, not obvious.", "example": "笑死我了真的受不了你们同性恋了"},
        "3": {"explanation": "Clear implicit bias via tone or context.", "example": "喜欢美国队长的男的都是同性恋啊"},
        "4": {"explanation": "Strong implicit bias using stereotypes.", "example": "最近真是邋遢我长得越来越像同性恋了"},
        "5": {"explanation": "Deep implicit and subtle discriminatory tone.", "example": "知不知道同性恋是精神疾病要治的！"},
    },
    "emotional": {
        "1": {"explanation": "Calm and objective tone.", "example": "这对同性恋。"},
        "2": {"explanation": "Slight emotional lean, restrained.", "example": "知道你们是同性恋了"},
        "3": {"explanation": "Clear emotional stance.", "example": "这世界上真的有幸福的同性恋吗"},
        "4": {"explanation": "Strong emotional tone.", "example": "同性恋真吓人!"},
        "5": {"explanation": "Extremely strong emotions.", "example": "我他妈真想一拳打死同性恋！"},
    },
}

# Guideline v2 = v1 with each explanation also in Simplified Chinese (written for this project;
# the examples were Chinese already). The English text is unchanged.
CHINESE_EXPLANATIONS = {
    "explicit": {
        "1": "提及 LGBT 群体，但没有敌意。",
        "2": "略带不尊重，或表述方式有问题。",
        "3": "对 LGBT 群体的态度明显不友善。",
        "4": "带有强烈歧视性的言论。",
        "5": "充满敌意、冒犯和仇恨的语言。",
    },
    "implicit": {
        "1": "没有隐性偏见，也没有间接的负面态度。",
        "2": "略有偏见的迹象，但并不明显。",
        "3": "通过语气或语境流露出明显的隐性偏见。",
        "4": "借助刻板印象表达强烈的隐性偏见。",
        "5": "隐含深层而微妙的歧视语气。",
    },
    "emotional": {
        "1": "语气平静、客观。",
        "2": "略带情绪倾向，但较为克制。",
        "3": "情绪立场明确。",
        "4": "情绪色彩强烈。",
        "5": "情绪极其强烈。",
    },
}
# The key a rubric item carries its explanation under, per language other than English.
EXPLANATION_KEYS = {"zh-hans": "explanation_zh"}


def rubric_with_chinese(rubric: dict) -> dict:
    """A copy of `rubric` whose items also carry `explanation_zh` where the English explanation is
    the paper's (an item a researcher reworded is left without one rather than mistranslated)."""
    paper = {(d, s): item["explanation"] for d, levels in PAPER_RUBRIC.items() for s, item in levels.items()}
    result = {}
    for dim, levels in rubric.items():
        result[dim] = {}
        for score, item in levels.items():
            item = dict(item)
            if paper.get((dim, score)) == item.get("explanation") and "explanation_zh" not in item:
                item["explanation_zh"] = CHINESE_EXPLANATIONS[dim][score]
            result[dim][score] = item
    return result


def rubric_explanation(item: dict, language: str | None) -> str:
    """The explanation of a rubric item in `language` when the guideline has it, else the English one."""
    key = EXPLANATION_KEYS.get((language or "").lower())
    return (key and item.get(key)) or item.get("explanation", "")
