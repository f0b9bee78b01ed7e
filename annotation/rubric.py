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
