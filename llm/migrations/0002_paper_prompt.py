"""Seed version 1 of the paper's zero-shot prompt (MAAM.tex, tab:prompt), verbatim."""
from django.db import migrations

# Frozen copy: a migration must not follow later edits of llm/prompts.py.
PAPER_PROMPT = (
    '请对以下文本进行分析，并评分： {text}' "\n"
    '评分标准：1. 显性歧视 (1-5)   - 1分：没有任何显性歧视行为，文本内容中没有攻击性或侮辱性的语言。   - 2-4分：逐渐增高的歧视行为。  - 5分：文本包含非常明显的歧视言辞，语言攻击性强，表现出对同性恋群体的敌意或贬低。  2. 隐性歧视 (1-5)   - 1分：没有隐性歧视成分，文本内容不包含任何间接的贬低、偏见或隐蔽的负面情绪。   - 2-4分：逐渐增高的歧视行为。   - 5分：文本隐含非常深刻的歧视成分，可能以微妙的方式表现出对同性恋群体的偏见或歧视。3. 情绪激烈度 (1-5)   - 1分：文本情绪冷静、理性，没有明显的情感倾向。即使是讨论同性恋话题，也保持了客观、平和的语气。   - 2-4分：逐渐增高的情绪激烈度，表示情感从冷静中立到偏向支持或反对的激烈程度。  - 5分：文本情感极为强烈，表现出过度的支持或强烈的反对，语气激进或偏激。请返回一个字典，格式如下：{{”显性歧视“: 显性歧视分数, ”隐性歧视“: 隐性歧视分数, ”情感强烈程度“: 情感强烈程度分数}}'
)


def seed(apps, schema_editor):
    PromptTemplate = apps.get_model("llm", "PromptTemplate")
    PromptTemplate.objects.get_or_create(
        name="paper-zero-shot", version=1,
        defaults={"text": PAPER_PROMPT,
                  "description": "The MAAM paper's zero-shot prompt (its prompt table), verbatim."})


def unseed(apps, schema_editor):
    PromptTemplate = apps.get_model("llm", "PromptTemplate")
    PromptTemplate.objects.filter(name="paper-zero-shot", version=1, runs__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("llm", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
