"""The demo a research group would be in a few weeks in, for the embedded default (`make run`):
users, a locked week-1 batch with six annotators' judgments (some adjudicated), final labels,
release 1, an agreement report, and an open batch still being scored. Every post here was written
by this project (never ChLGBT or COLD text). Runs and predictions are added by modeling/demo.py.
Idempotent: each step checks what is already there."""
from __future__ import annotations

import random
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from core.permissions import Role, role_groups_ensure

from .adjudication.services import final_labels_refresh, post_resolve
from .agreement.selectors import interval_report_latest
from .agreement.services import agreement_report_request
from .assignment.services import assignment_next, batch_lock, judgment_submit
from .importing.parsers import sha256_text
from .models import DIMENSIONS, Assignment, Batch, FinalLabel, Judgment, Post, Provenance, Release
from .releases.services import release_publish
from .services import annotator_ensure

DEMO_PASSWORD = "chlgbt-demo"

# The open batch ("demo"), still being scored.
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


# The locked week-1 batch: every post judged by all six annotators, then released.
# (text, explicit, implicit, emotional) as above.
WEEK1_POSTS: list[tuple[str, int, int, int]] = [
    ("周末去参加了同志亲友会的分享会，很多父母都在学习怎么支持孩子。", 1, 1, 2),
    ("希望有一天同性伴侣也能在医院签字。", 1, 1, 3),
    ("新闻里说又一个城市开通了同性伴侣的公证服务。", 1, 1, 1),
    ("我室友是女同，人特别好，还经常帮我带饭。", 1, 1, 2),
    ("看完那本关于跨性别青少年的书，哭了一晚上。", 1, 1, 4),
    ("同性恋也是普通人，上班下班，吃饭睡觉。", 1, 1, 2),
    ("学校心理老师说性取向不是可以选择的。", 1, 1, 1),
    ("今天在地铁上看到两个男生牵手，觉得挺好的。", 1, 1, 2),
    ("彩虹旗挂在咖啡店门口，老板说欢迎所有人。", 1, 1, 2),
    ("我妈终于接受了我的女朋友，开心到想大喊！", 1, 1, 5),
    ("为什么电视剧里的同性恋角色总是结局悲惨？", 1, 2, 3),
    ("有同事说同性恋都很会打扮，这算夸奖还是刻板印象？", 1, 2, 2),
    ("听说那个明星是gay，难怪他那么注意形象。", 2, 3, 2),
    ("同性恋可以，但是别领养孩子，孩子会被同学笑话的。", 2, 4, 3),
    ("女生和女生在一起不就是闺蜜吗，有什么好宣布的。", 2, 3, 2),
    ("现在连广告都要放同性情侣，是不是有点过了？", 2, 3, 3),
    ("我不歧视他们，只是觉得他们的生活方式太乱。", 2, 4, 3),
    ("这种事情自己知道就好了，非要出柜搞得大家都尴尬。", 2, 3, 3),
    ("跨性别？说到底还是男的吧。", 3, 4, 3),
    ("如果我儿子是同性恋，我会带他去看医生。", 3, 4, 3),
    ("双性恋都是骗子，骗完男的骗女的。", 4, 4, 4),
    ("同性恋就是不想承担家庭责任的借口。", 3, 4, 3),
    ("这些人天天在网上博同情，烦不烦啊！", 3, 3, 4),
    ("变态就是变态，换个名字也还是变态！", 5, 3, 5),
    ("同性恋都该滚出我们小区，别带坏小孩！", 5, 4, 5),
    ("恶心死了，男人跟男人亲嘴，眼睛都要瞎了！", 5, 3, 5),
    ("搞基的都有病，离他们远一点才安全。", 4, 4, 4),
    ("一群死基佬，活着就是浪费空气。", 5, 3, 5),
    ("这种不男不女的东西也配上电视？", 4, 3, 4),
    ("同性恋就是被惯出来的，多揍几顿就好了。", 5, 4, 4),
    ("人家两个人过日子，碍着谁了？", 1, 1, 3),
    ("请大家不要再用“娘炮”这种词骂人了。", 1, 1, 3),
    ("今天第一次在朋友圈说了自己是双性恋，手都在抖。", 1, 1, 4),
    ("性少数学生在学校被欺负，老师却说是开玩笑。", 1, 1, 4),
    ("社区医院开了友善门诊，就诊不用再解释半天。", 1, 1, 2),
    ("他喜欢男生这件事，和他工作能力有什么关系？", 1, 1, 3),
    ("看到有人说同性恋是病，真的很想翻白眼。", 1, 1, 3),
    ("我们公司的多元包容培训其实挺走过场的。", 1, 2, 2),
    ("朋友说他接受不了跨性别，但愿意先去了解一下。", 1, 2, 2),
    ("不知道该怎么跟爸妈说我喜欢女生。", 1, 1, 3),
    ("男孩子就要有男孩子的样子，别整天跟个姑娘似的。", 2, 4, 3),
    ("他们想结婚就结呗，反正我是不会去参加婚礼的。", 2, 3, 2),
    ("以前哪有这么多同性恋，都是被网络带的。", 2, 4, 3),
    ("同性恋当老师我没意见，只要别在课堂上宣传。", 2, 3, 2),
    ("我觉得跨性别的人就是想太多了。", 2, 3, 2),
    ("这年头不说支持同性恋都不好意思发言了。", 2, 3, 3),
    ("gay蜜就是女生的好姐妹，逛街必备。", 2, 3, 2),
    ("又是彩虹周边，商家真会赚钱。", 1, 2, 2),
    ("同性恋的圈子太乱了，这是大家都知道的事。", 3, 4, 3),
    ("别跟我讲什么平权，先把人口问题解决了再说。", 3, 3, 4),
    ("看见那个男的翘兰花指我就浑身难受。", 3, 3, 4),
    ("同性恋骗婚的新闻太多了，害了多少女人！", 3, 3, 5),
    ("我们村要是有这种人，早就被赶出去了。", 4, 4, 4),
    ("同性恋就是道德败坏，还好意思上街游行？", 4, 3, 4),
    ("滚！别拿你们那套歪理来污染年轻人！", 5, 3, 5),
    ("这种人就不配当父母，孩子太可怜了。", 4, 4, 4),
    ("男同就是艾滋病的源头，还有脸要权利？", 5, 4, 4),
    ("今天志愿者活动遇到一对女同情侣，她们做的蛋糕超好吃。", 1, 1, 3),
    ("如果喜欢一个人没有错，那为什么要躲躲藏藏？", 1, 1, 3),
    ("有人在评论区说“同性恋去死”，居然还有人点赞，心寒。", 1, 1, 4),
]

# Gold items (issue 12): posts outside any batch with settled labels, mixed into the open batch's
# queues at its gold rate; nobody can tell them from real posts. Written by this project.
GOLD_POSTS: list[tuple[str, int, int, int]] = [
    ("图书馆新上架了几本性别研究的书，借的人还挺多。", 1, 1, 1),
    ("同性恋都是神经病，应该关起来！", 5, 3, 5),
    ("他们说自己是双性恋，我看就是想出风头。", 2, 4, 3),
    ("这个城市的骄傲月活动今年办得特别热闹，好多家庭一起来。", 1, 1, 3),
    ("搞同性恋的别来我们公司应聘，我们不要这种人。", 4, 3, 4),
    ("跨性别运动员参赛的规则还在讨论，各方观点都有道理。", 1, 2, 2),
]
GOLD_RATE = 0.12  # of the open batch's queue: three or four gold items for each annotator

WEEK1_BATCH = "demo-week-1"
OPEN_BATCH = "demo"
# How each demo annotator scores: how often they stray by one from the post's true scores. Nobody
# leans by a constant offset (the quality page would rightly call that bias). Two are planted for
# the quality page to find, and only they are flagged there (tests/test_demo.py):
ANNOTATOR_STRAY = {1: 0.2, 2: 0.2, 3: 0.15, 4: 0.15, 5: 0.2, 6: 0.2}
# annotator5 speeds: two or three seconds a post, and careless with it.
SPEEDER, SPEEDER_STRAY, SPEEDER_SECONDS = 5, 0.6, (1.5, 3.5)
# annotator3 drifts: careful for the first half of week 1, then scores explicit and implicit bias
# two points too high (rolling agreement falls, the model's bias estimate rises).
DRIFTER, DRIFT_OFFSETS, DRIFT_FROM = 3, (2, 2, 0), 33
# Everyone else reads a post in 8 to 60 seconds (a long-tailed draw around 20 s).
READING_SECONDS = (8.0, 60.0)
OPEN_BATCH_ITEMS_EACH = 20  # annotators 1-5 are part-way through the open batch; annotator6 has not started
ADJUDICATED = 6  # disputed week-1 posts the adjudicator settles (the others keep their rounded mean)
NOTE = "不确定这算不算刻板印象，标记一下请裁定。"
# The demo group writes in Chinese: the adjudicator's rationale names the dimensions so.
DEMO_DIMENSION_NAMES = {"explicit": "显性偏见", "implicit": "隐性偏见", "emotional": "情绪强度"}


def _scores(rng: random.Random, truth, annotator: int, done: int) -> dict[str, int]:
    """The scores annotator number `annotator` gives a post whose true scores are `truth`, as their
    `done`-th judgment (the drifter drifts from DRIFT_FROM on)."""
    stray = SPEEDER_STRAY if annotator == SPEEDER else ANNOTATOR_STRAY[annotator]
    offsets = DRIFT_OFFSETS if annotator == DRIFTER and done >= DRIFT_FROM else (0, 0, 0)
    out = {}
    for dim, t, offset in zip(DIMENSIONS, truth, offsets):
        value = t + offset + (rng.choice([-1, 1]) if rng.random() < stray else 0)
        out[dim] = min(5, max(1, value))
    return out


def _reading_seconds(rng: random.Random, annotator: int) -> float:
    if annotator == SPEEDER:
        return rng.uniform(*SPEEDER_SECONDS)
    low, high = READING_SECONDS
    return min(high, low + rng.expovariate(1 / 12))


def _users():
    """The demo's accounts, made on the first run. Once the demo exists (its week-1 batch), an account
    that is gone - erased on request (wellbeing/data_rights.py renames it) - is never made again: its
    place is None, so the others keep their numbers and nothing new is scored for anyone."""
    groups = role_groups_ensure()
    User = get_user_model()
    seeded = Batch.objects.filter(name=WEEK1_BATCH).exists()
    names = [f"annotator{i}" for i in range(1, 7)]
    if seeded:
        found = {u.username: u for u in User.objects.filter(username__in=names)}
        annotators = [found.get(name) for name in names]
    else:
        annotators = [annotator_ensure(username=name, community_member=i <= 2) for i, name in enumerate(names, start=1)]
    staff = {}
    for name, role, is_staff in (("adjudicator", Role.ADJUDICATOR, False), ("researcher", Role.RESEARCHER, True)):
        if seeded:
            user = User.objects.filter(username=name).first()
        else:
            user, _ = User.objects.get_or_create(username=name, defaults={"is_staff": is_staff, "is_superuser": is_staff})
        if user is not None:
            user.groups.add(groups[role])
        staff[name] = user
    # One hash for every demo account that has no usable password yet (hashing is slow on purpose).
    fresh = [u for u in [*annotators, *staff.values()] if u is not None and (not u.password or not u.has_usable_password())]
    if fresh:
        hashed = make_password(DEMO_PASSWORD)
        User.objects.filter(pk__in=[u.pk for u in fresh]).update(password=hashed)
    return annotators, staff


@transaction.atomic
def _batch(name: str, posts, annotators, context=None) -> Batch:
    batch, _ = Batch.objects.get_or_create(name=name, defaults={"annotators_per_post": 6})
    batch.annotators.add(*[a for a in annotators if a is not None])
    for i, (text, *_) in enumerate(posts):
        tags = dict(zip(("tone", "identity", "stance"), context[i])) if context else {}
        Post.objects.get_or_create(text_sha256=sha256_text(text), defaults={"text": text, "raw_text": text,
                                                                            "batch": batch, **tags})
    # Scanned as an import would be, so the personal-data report covers the demo (its texts hold none).
    from publication.personal_data.services import personal_data_rescan

    personal_data_rescan(batch_name=name)
    return batch


def _score_batch(batch: Batch, annotators, truths: dict[str, tuple], *, limit: int | None, seed: int) -> int:
    """Each annotator takes items the way the page does (assignment_next) and submits them, until
    the batch has no more for them or they reached `limit` judgments in it."""
    made = 0
    for number, annotator in enumerate(annotators, start=1):
        if annotator is None:  # erased (see _users)
            continue
        rng = random.Random(seed * 100 + number)
        done = Judgment.objects.filter(post__batch=batch, annotator=annotator).count()
        while limit is None or done < limit:
            item = assignment_next(annotator=annotator, batch_id=batch.pk)
            if item is None:
                break
            total = Judgment.objects.filter(annotator=annotator).count()
            scores = _scores(rng, truths[item.post.text], number, total)
            flagged = number == 4 and "刻板印象" in item.post.text
            judgment_submit(annotator=annotator, post_id=item.post_id, scores=scores,
                            seconds_spent=_reading_seconds(rng, number), flagged=flagged, note=NOTE if flagged else "")
            if item.post.batch_id == batch.pk:  # a gold item served among the batch's posts is not one of them
                done += 1
            made += 1
    return made


def _retime(annotators, *, days_ago: int, seed: int) -> None:
    """The page measures time per post from the claim to the submit (the client's seconds are
    only a fallback). Seeding claims and submits in the same instant would make everyone look
    like a speeder, so each annotator's fresh claims (those still under a second) are laid out on a
    timeline: sessions from `days_ago` days back, each post read for the annotator's seconds, a
    few seconds between posts."""
    start = timezone.now() - timedelta(days=days_ago)
    for number, annotator in enumerate(annotators, start=1):
        if annotator is None:
            continue
        rng = random.Random(seed * 1000 + number)
        fresh = [a for a in Assignment.objects.filter(annotator=annotator, completed_at__isnull=False)
                 .order_by("completed_at", "id") if (a.completed_at - a.assigned_at).total_seconds() < 1]
        moment = start + timedelta(hours=9 + number, minutes=rng.randint(0, 50))
        for i, claim in enumerate(fresh):
            if i and i % 25 == 0:  # the next session, the next day
                moment += timedelta(days=1) - timedelta(minutes=rng.randint(0, 90))
            seconds = _reading_seconds(rng, number)
            claim.assigned_at, claim.completed_at = moment, moment + timedelta(seconds=seconds)
            moment = claim.completed_at + timedelta(seconds=rng.uniform(2, 8))
        Assignment.objects.bulk_update(fresh, ["assigned_at", "completed_at"])
        for claim in fresh:
            Judgment.objects.filter(post_id=claim.post_id, annotator=annotator).update(
                created_at=claim.completed_at, seconds_spent=(claim.completed_at - claim.assigned_at).total_seconds())


def _gold(batch: Batch, researcher) -> None:
    """A few gold items, served among the open batch's posts (quality/services.py)."""
    from .quality.services import batch_quality_set, gold_upload

    if not Post.objects.filter(text_sha256__in=[sha256_text(t) for t, *_ in GOLD_POSTS], gold_item__isnull=False).exists():
        rows = "".join(f"{text},{e},{i},{m}\n" for text, e, i, m in GOLD_POSTS)
        gold_upload(data=("Sentences,Explicit,Implicit,Emotional\n" + rows).encode(), filename="demo-gold.csv",
                    created_by=researcher)
    batch_quality_set(batch_id=batch.pk, gold_rate=GOLD_RATE)


def _adjudicate(batch: Batch, adjudicator, truths: dict[str, tuple]) -> int:
    """Settle the most disputed week-1 posts against the rubric, with a rationale."""
    if FinalLabel.objects.filter(post__batch=batch, provenance=Provenance.ADJUDICATED).exists():
        return 0
    settled = 0
    for post in Post.objects.filter(batch=batch).order_by("id"):
        values = list(Judgment.objects.filter(post=post).values_list(*DIMENSIONS))
        spread = {d: max(v[i] for v in values) - min(v[i] for v in values) for i, d in enumerate(DIMENSIONS)}
        split = [d for d, s in spread.items() if s >= 2]
        if not split:
            continue
        truth = dict(zip(DIMENSIONS, truths[post.text]))
        label = FinalLabel.objects.filter(post=post).first()
        post_resolve(adjudicator=adjudicator, post_id=post.pk, scores=truth, expected_version=0 if label is None or
                     label.provenance == Provenance.AUTO else label.version,
                     rationale=f"按评分标准裁定：标注员在{'、'.join(DEMO_DIMENSION_NAMES[d] for d in split)}上分歧较大。",
                     tone=post.tone, identity=post.identity, stance=post.stance)
        settled += 1
        if settled == ADJUDICATED:
            break
    return settled


# The open batch's content notice (wellbeing): annotators 1-5 accepted it before they started;
# annotator6, who has not started, meets it first.
OPEN_BATCH_NOTICE = {
    "notice_en": "Some posts in this batch contain slurs and hostile language about LGBT people. Take a break "
                 "whenever you need one; you can set aside any post that is too distressing to score (D).",
    "notice_zh": "本批次的部分帖子含有针对 LGBT 群体的侮辱性和敌意言论。需要时请随时休息；"
                 "任何让你难以承受的帖子都可以按 D 放到一边，不必评分。",
}
# Rewrites for a public release (publication/): week-1 post -> a rewrite keeping what the labels
# depend on; the first is confirmed by a second person, the second waits, the third is a draft.
DEMO_REWRITES = [
    ("周末去参加了同志亲友会的分享会，很多父母都在学习怎么支持孩子。", "上周六的家长互助活动里，不少爸妈在交流如何理解和支持自己的孩子。"),
    ("希望有一天同性伴侣也能在医院签字。", "盼着将来同性恋人能够在病房替对方做决定。"),
    ("今天在地铁上看到两个男生牵手，觉得挺好的。", "通勤路上看见一对男孩拉着手，我觉得很不错。"),
]
# Taken down on request after release 1, so the next release's diff lists it.
DEMO_TAKEDOWN = "新闻里说又一个城市开通了同性伴侣的公证服务。"


def _notice(batch: Batch, annotators) -> None:
    from wellbeing.models import BatchWellbeing
    from wellbeing.services import notice_accept

    BatchWellbeing.objects.get_or_create(batch=batch, defaults=OPEN_BATCH_NOTICE)
    for annotator in annotators:  # those who started the batch accepted it first (the queue asks them to)
        if annotator is not None:
            notice_accept(annotator=annotator, batch_id=batch.pk)


def _publication(staff) -> None:
    """Rewrites (one confirmed), a public release of the confirmed one, a takedown and the next
    internal release, whose diff lists the taken-down post and whose card counts the open batch's
    posts left out because they are still being scored. Each step once, and each checked on its
    own, so a run interrupted part-way (a crash, Ctrl-C) is finished by the next one."""
    from publication.models import Rewrite, Takedown
    from publication.rewrite_models import RewriteStatus
    from publication.rewriting.services import rewrite_confirm, rewrite_permission_grant, rewrite_save_draft, rewrite_submit
    from publication.takedowns import takedown_record

    researcher, adjudicator = staff["researcher"], staff["adjudicator"]
    if researcher is None or adjudicator is None:  # erased: nothing of theirs is made again
        return
    rewrite_permission_grant()
    for i, (original, text) in enumerate(DEMO_REWRITES):
        post = Post.objects.get(text_sha256=sha256_text(original))
        rewrite = Rewrite.objects.filter(post=post).order_by("-version").first()
        if rewrite is None:
            rewrite = rewrite_save_draft(post_id=post.pk, author=researcher, text=text)
        if i < 2 and rewrite.status == RewriteStatus.DRAFT and rewrite.author_id == researcher.pk:
            rewrite = rewrite_submit(post_id=post.pk, author=researcher)
        if i == 0 and rewrite.status == RewriteStatus.SUBMITTED:
            rewrite_confirm(rewrite_id=rewrite.pk, confirmer=adjudicator)
    if not Release.objects.filter(kind="public").exists():
        release_publish(kind="public", created_by=researcher, bootstrap=0)
    post = Post.objects.get(text_sha256=sha256_text(DEMO_TAKEDOWN))
    takedown = Takedown.objects.filter(post=post).first()
    if takedown is None:
        takedown = takedown_record(post=post, requested_by=researcher,
                                   reason="作者来信要求删除（演示）。")  # the demo group writes in Chinese
    # The release after the takedown, unless it was published already (its diff lists the post).
    if not any(takedown.post_key in (diff or {}).get("taken_down_ids", [])
               for diff in Release.objects.filter(kind="internal").values_list("diff", flat=True)):
        release_publish(created_by=researcher, bootstrap=200)


# Next week's posts, imported by the researcher through the upload page's service (the audit log
# records the import) into a batch not yet given to anyone. Written by this project.
IMPORT_BATCH = "demo-week-3"
IMPORT_FILE = "demo-week-3.csv"
IMPORT_POSTS = [
    "看了一部关于跨性别者求职的纪录片，挺真实的。",
    "有人说同性恋都是被带坏的，这种话我听了很多年。",
    "公司年会上有同事带着同性伴侣来，大家都挺自然。",
    "网上那些说性少数群体“有病”的帖子真该管管了。",
]


def _import(researcher) -> None:
    """The week-3 posts, imported once as the upload page imports a file (the same service)."""
    from .importing.services import import_posts

    if researcher is None or Batch.objects.filter(name=IMPORT_BATCH).exists():
        return
    body = "Sentences\n" + "".join(f"{text}\n" for text in IMPORT_POSTS)
    import_posts(body.encode("utf-8"), filename=IMPORT_FILE, batch_name=IMPORT_BATCH, actor=researcher)


def seed_demo(*, seed: int = 7) -> dict:
    """Users, the locked week-1 batch (six judgments a post, some adjudicated), final labels,
    release 1, an agreement report and the open batch part-way scored. Background jobs this
    starts (the prior rebuild after the release, the agreement intervals) run where Celery sends
    them; `manage.py seed_demo` runs them inline, so the demo is complete when it returns."""
    annotators, staff = _users()
    week1 = _batch(WEEK1_BATCH, WEEK1_POSTS, annotators)
    made = _score_batch(week1, annotators, {text: tuple(t) for text, *t in WEEK1_POSTS}, limit=None, seed=seed)
    _retime(annotators, days_ago=21, seed=seed)
    batch_lock(batch_id=week1.pk)
    final_labels_refresh(batch_id=week1.pk)
    adjudicated = _adjudicate(week1, staff["adjudicator"], {text: tuple(t) for text, *t in WEEK1_POSTS})
    release = Release.objects.order_by("number").first()
    if release is None:
        # Published before the open batch is scored, so release 1 holds exactly the locked batch.
        release = release_publish(created_by=staff["researcher"], bootstrap=200)
    if interval_report_latest() is None:
        agreement_report_request(bootstrap=200)
    demo = _batch(OPEN_BATCH, DEMO_POSTS, annotators, DEMO_CONTEXT)
    _gold(demo, staff["researcher"])
    _notice(demo, annotators[:5])
    made += _score_batch(demo, annotators[:5], {text: tuple(t) for text, *t in [*DEMO_POSTS, *GOLD_POSTS]},
                         limit=OPEN_BATCH_ITEMS_EACH, seed=seed + 1)
    _retime(annotators, days_ago=3, seed=seed + 1)
    from .quality.services import quality_refresh

    quality_refresh()  # the quality page's report and the aggregate (a background job; inline under seed_demo)
    _publication(staff)
    _import(staff["researcher"])
    return {"annotators": sum(a is not None for a in annotators), "posts": Post.objects.count(), "judgments": made,
            "adjudicated": adjudicated, "release": release, "researcher": staff["researcher"]}
