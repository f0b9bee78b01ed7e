"""Demo data written for this project (never ChLGBT or COLD text): posts, users and judgments."""
from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.db import transaction

from core.permissions import Role, role_groups_ensure

from .importing.parsers import sha256_text
from .models import Batch, Judgment, Post
from .services import annotator_ensure

DEMO_PASSWORD = "chlgbt-demo"

# (text, explicit, implicit, emotional): the "true" scores demo annotators scatter around.
DEMO_POSTS: list[tuple[str, int, int, int]] = [
    ("今天和朋友一起去看了彩虹骄傲游行，气氛很温暖。", 1, 1, 3),
    ("同性婚姻合法化的讨论在学校里越来越多了。", 1, 1, 2),
    ("我表哥上个月出柜了，全家人都很支持他。", 1, 1, 3),
    ("跨性别者也应该有平等就业的权利。", 1, 1, 2),
    ("关于同性恋的纪录片拍得挺认真的，推荐大家看看。", 1, 1, 2),
    ("有人说同性恋是一种潮流，我觉得这种说法很奇怪。", 2, 3, 2),
    ("现在的年轻人怎么都喜欢跟风说自己是双性恋？", 2, 3, 3),
    ("他那么爱打扮，肯定是同性恋吧。", 2, 4, 2),
    ("同性恋家长带出来的孩子会不会也变成那样？", 2, 4, 3),
    ("我不反对同性恋，但别在我面前秀恩爱。", 2, 3, 3),
    ("学校不应该给小孩讲这些性少数的东西。", 3, 3, 3),
    ("同性恋就是心理有问题，需要治疗。", 4, 4, 3),
    ("这些酷儿天天搞游行，真是烦死了！", 4, 3, 5),
    ("搞同性恋的人都不正常，离我远点！", 5, 3, 5),
    ("出柜是个人的事，别人没有资格评价。", 1, 1, 3),
    ("听说公司新来的同事是跨性别，大家好像都在背后议论。", 2, 2, 2),
    ("一个朋友因为性别焦虑去看医生，医生很专业。", 1, 1, 2),
    ("关于彩虹资本主义的文章写得很有道理。", 1, 2, 2),
    ("同性恋怎么了？碍着你了吗？", 1, 1, 4),
    ("我就想问问，同性恋到底是天生的还是后天的？", 1, 2, 2),
    ("那种娘娘腔的男生肯定是gay。", 3, 4, 3),
    ("别让同性恋去当老师，会教坏孩子的。", 4, 4, 4),
    ("同性伴侣的意定监护终于办下来了，太不容易了！", 1, 1, 4),
    ("有些人把同性恋当成笑话讲，一点都不好笑。", 1, 1, 3),
    ("这部剧里的同性恋角色刻板印象太重了。", 1, 2, 3),
    ("我爸说同性恋都是被西方带坏的。", 3, 4, 3),
    ("真受不了网上那些骂同性恋的人，太恶心了！", 2, 1, 5),
    ("双性恋就是贪心，两边都想要。", 3, 4, 3),
    ("今天学了交叉性这个概念，很受启发。", 1, 1, 2),
    ("同性恋结婚以后还能正常生活吗？", 2, 3, 2),
    ("这种人就应该被赶出去，太丢人了！", 5, 3, 5),
    ("深柜的日子真的很难熬，希望大家多一点理解。", 1, 1, 3),
    ("男的跟男的在一起，想想就觉得别扭。", 3, 3, 3),
    ("社区组织了一场关于性少数心理健康的讲座。", 1, 1, 1),
    ("同性恋群体的艾滋病问题被媒体夸大了。", 1, 2, 2),
    ("他们那群人就是喜欢博眼球。", 3, 4, 3),
]


# Hand-set C-I-S tags for the demo posts above (tone, identity, stance), in the same order: the
# "external annotations" calibration prefers, and a small reference for the offline inferer.
DEMO_CONTEXT: list[tuple[str, str, str]] = [
    ("General", "Uncertain", "Pro"), ("Serious", "Uncertain", "Neutral"), ("General", "Outgroup", "Pro"),
    ("Serious", "Uncertain", "Pro"), ("General", "Uncertain", "Pro"), ("General", "Uncertain", "Neutral"),
    ("General", "Outgroup", "Anti"), ("General", "Outgroup", "Anti"), ("General", "Outgroup", "Anti"),
    ("General", "Outgroup", "Anti"), ("Serious", "Outgroup", "Anti"), ("Serious", "Outgroup", "Anti"),
    ("General", "Outgroup", "Anti"), ("General", "Outgroup", "Anti"), ("Serious", "Uncertain", "Pro"),
    ("General", "Outgroup", "Neutral"), ("General", "Uncertain", "Neutral"), ("Serious", "Uncertain", "Neutral"),
    ("General", "Ingroup", "Pro"), ("General", "Uncertain", "Neutral"), ("General", "Outgroup", "Anti"),
    ("Serious", "Outgroup", "Anti"), ("General", "Ingroup", "Pro"), ("General", "Uncertain", "Pro"),
    ("General", "Uncertain", "Pro"), ("General", "Uncertain", "Neutral"), ("General", "Uncertain", "Pro"),
    ("General", "Outgroup", "Anti"), ("Serious", "Uncertain", "Pro"), ("General", "Outgroup", "Neutral"),
    ("General", "Outgroup", "Anti"), ("Serious", "Ingroup", "Pro"), ("General", "Outgroup", "Anti"),
    ("Serious", "Uncertain", "Neutral"), ("Serious", "Uncertain", "Pro"), ("General", "Outgroup", "Anti"),
]


@transaction.atomic
def seed_demo(*, judged_posts: int = 24, seed: int = 7) -> dict[str, int]:
    groups = role_groups_ensure()
    User = get_user_model()
    annotators = [
        annotator_ensure(username=f"annotator{i}", password=DEMO_PASSWORD, community_member=i <= 2) for i in range(1, 7)
    ]
    for name, role, staff in (("adjudicator", Role.ADJUDICATOR, False), ("researcher", Role.RESEARCHER, True)):
        user, created = User.objects.get_or_create(username=name, defaults={"is_staff": staff, "is_superuser": staff})
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        user.groups.add(groups[role])
    batch, _ = Batch.objects.get_or_create(name="demo", defaults={"annotators_per_post": 6})
    batch.annotators.add(*annotators)
    posts = []
    for (text, *_), (tone, identity, stance) in zip(DEMO_POSTS, DEMO_CONTEXT):
        post, _ = Post.objects.get_or_create(text_sha256=sha256_text(text), defaults={
            "text": text, "raw_text": text, "batch": batch, "tone": tone, "identity": identity, "stance": stance})
        posts.append(post)
    rng = random.Random(seed)
    from .models import Assignment, AssignmentStatus
    from django.utils import timezone

    made = 0
    for post, (_, *truth) in list(zip(posts, DEMO_POSTS))[:judged_posts]:
        for annotator in annotators[:5]:  # annotator6 has work left to do in the demo
            if Judgment.objects.filter(post=post, annotator=annotator).exists():
                continue
            scores = {dim: min(5, max(1, t + rng.choice([-1, 0, 0, 0, 1]))) for dim, t in
                      zip(("explicit", "implicit", "emotional"), truth)}
            Assignment.objects.get_or_create(post=post, annotator=annotator, defaults={
                "assigned_at": timezone.now(), "status": AssignmentStatus.SUBMITTED, "completed_at": timezone.now()})
            Judgment.objects.create(post=post, annotator=annotator, seconds_spent=rng.uniform(5, 40), **scores)
            made += 1
    return {"annotators": len(annotators), "posts": len(posts), "judgments": made}
