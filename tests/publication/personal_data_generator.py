"""Generated posts with planted personal data of every kind beside ordinary numbers (years, prices,
ranks, episode numbers, percentages, dates, times), and look-alikes that are not personal data
(QQ音乐, 微信支付, 新MATE40 ...). Every value is made up here: random digits completed with a valid
check digit where the kind has one. Used by the tests and by bench/bench_personal_data.py.

    posts = generate_posts(500, seed=0)   # list[GeneratedPost]: text, planted [(kind, start, end)],
                                          # ordinary [str]
"""
from __future__ import annotations

import ipaddress
import random
import string
from dataclasses import dataclass, field
from datetime import date, timedelta

from publication.personal_data import id_check_char, luhn_check_digit

PLANTED_KINDS = ("id_card", "bank_card", "mobile", "landline", "email", "qq", "wechat", "plate", "ip", "mention",
                 "url", "address")

OPENERS = ["说实话", "刚看到", "今天", "有人说", "我觉得", "网友爆料", "讲真", "最近", "听朋友讲", "评论区里"]
BODIES = ["这部剧对同性恋的刻画挺真实的", "出柜这件事真的需要勇气", "有些人对跨性别者的偏见太深了", "彩虹旗挂出来就被骂",
          "平权的路还很长", "家里人还是不能接受", "同事们其实都挺友善的", "这种言论就是歧视", "性少数群体也需要被看见",
          "评论区有人阴阳怪气"]
CLOSERS = ["。", "！", "？", "……", "，太离谱了！", "，无语。", "，支持一下。", "，大家怎么看？"]
LOOKALIKES = ["QQ音乐排行第10", "微信支付了35元", "新MATE40到了", "版本3.2更新了", "京东618打折", "QQ空间第3条",
              "V信号不好", "微信群里有200人", "粤语版第2季", "1号线地铁站", "固件1.2.3.4版", "比分3:2:1",
              "微信里说了3次", "QQ等级36级", "2019-2023年", "房价涨了20000元", "苹果15Pro", "播放量1200万",
              "快递单号JD0012345678", "考了第1名", "京A队赢了", "粤B区第3场", "微信 Android版更新了"]


@dataclass
class GeneratedPost:
    text: str
    planted: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, start, end) in text
    ordinary: list[str] = field(default_factory=list)  # ordinary numbers as written (must survive)

    def values(self) -> list[tuple[str, str]]:
        return [(kind, self.text[s:e]) for kind, s, e in self.planted]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _group(rng: random.Random, digits: str, sizes: list[int]) -> str:
    sep = rng.choice([" ", "-", ""])
    parts, pos = [], 0
    for size in sizes:
        parts.append(digits[pos:pos + size])
        pos += size
    if pos < len(digits):
        parts.append(digits[pos:])
    return sep.join(p for p in parts if p)


FULLWIDTH = str.maketrans("0123456789@", "０１２３４５６７８９＠")
CHINESE_DIGITS = str.maketrans("0123456789", "〇一二三四五六七八九")
HARD_SHARE = 0.15  # how often a planted value is written the hard way (some of those ways no rule finds)


def make_value(kind: str, rng: random.Random, hard_share: float = HARD_SHARE) -> tuple[str, str, str]:
    """(text before the value, the value, text after) for one planted item of `kind`: mostly as
    people usually write it, sometimes (HARD_SHARE) in a harder way: full-width digits, Chinese
    numerals, the cue after the value, spaced-out digits, an obfuscated cue, lower-case letters."""
    before, value, after = _make_plain(kind, rng)
    if rng.random() >= hard_share:
        return before, value, after
    if kind in ("mobile", "id_card", "email", "mention"):
        return before, value.translate(FULLWIDTH), after
    if kind == "qq":
        return "，", value, rng.choice(["是我的QQ", "（扣扣）", " 企鹅"])
    if kind == "wechat":
        return rng.choice(["v❤：", "薇❤：", "威芯 "]), value, after
    if kind == "landline":
        return before, value.translate(CHINESE_DIGITS), after
    if kind == "bank_card":
        digits = value.replace(" ", "").replace("-", "")
        return before, " ".join(digits[i:i + 6] for i in range(0, len(digits), 6)), after
    if kind == "plate":
        return before, value[:2] + "·" + value[2:] if rng.random() < 0.5 else value[0] + value[1:].lower(), after
    if kind == "ip":
        return before, rng.choice(["fe80::1ff:fe23:4567:890a", "2001:db8::8a2e:370:7334", "::ffff:10.0.0.1"]), after
    if kind == "url":
        return before, f"weibo.cn/{_digits(rng, 8)}", after
    if kind == "address":
        return before, rng.choice(["中山", "人民"]) + "路" + str(rng.randint(1, 99)).translate(CHINESE_DIGITS) + "号", after
    return before, value, after


def _make_plain(kind: str, rng: random.Random) -> tuple[str, str, str]:
    if kind == "id_card":
        region = rng.choice(["110105", "310104", "440305", "510107", "330106", "420102", "610113"])
        born = date(1950, 1, 1) + timedelta(days=rng.randrange(20000))
        first17 = region + born.strftime("%Y%m%d") + _digits(rng, 3)
        return rng.choice(["身份证号", "身份证：", "证件号码 "]), first17 + id_check_char(first17), ""
    if kind == "bank_card":
        payload = "62" + _digits(rng, rng.choice([13, 16]))
        number = payload + luhn_check_digit(payload)
        return rng.choice(["卡号", "银行卡 ", "转账到"]), _group(rng, number, [4, 4, 4, 4]), ""
    if kind == "mobile":
        number = "1" + rng.choice("3456789") + _digits(rng, 9)
        written = rng.choice([number, _group(rng, number, [3, 4, 4])])
        prefix = rng.choice(["", "", "+86 ", "+86-"])
        return rng.choice(["电话", "手机号", "打我电话", "联系 "]), prefix + written, ""
    if kind == "landline":
        area = rng.choice(["010", "021", "020", "0755", "0571", "028", "0731"])
        local = rng.choice("2345678") + _digits(rng, 7 if len(area) == 3 else rng.choice([6, 7]))
        written = rng.choice([f"{area}-{local}", f"({area}){local}", f"{area} {local}", f"{area}{local}"])
        return rng.choice(["座机", "办公室电话", "打"]), written, ""
    if kind == "email":
        local = rng.choice(string.ascii_lowercase) + "".join(rng.choice(string.ascii_lowercase + string.digits + "._")
                                                             for _ in range(rng.randint(3, 10)))
        local = local.rstrip("._") or "a"
        domain = rng.choice(["qq.com", "163.com", "gmail.com", "sina.com", "outlook.com", "foxmail.com"])
        return rng.choice(["邮箱", "发邮件到 ", "email:"]), f"{local}@{domain}", " "
    if kind == "qq":
        cue = rng.choice(["QQ", "qq", "扣扣", "q号", "企鹅号", "QQ号", "加我QQ "])
        return cue + rng.choice(["", ":", "：", " ", "是"]), rng.choice("123456789") + _digits(rng, rng.randint(4, 9)), ""
    if kind == "wechat":
        cue = rng.choice(["微信", "vx", "V信", "wx", "薇信", "微信号", "VX"])
        value = rng.choice(string.ascii_letters) + "".join(
            rng.choice(string.ascii_letters + string.digits + "_-") for _ in range(rng.randint(5, 14)))
        return cue + rng.choice(["", ":", "：", " ", "是"]), value, " "
    if kind == "plate":
        province = rng.choice("京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤川")
        letter = rng.choice("ABCDEFGHJK")
        tail = rng.choice([_digits(rng, 5), rng.choice("ABCDEFGHJ") + _digits(rng, 4),
                           rng.choice("DF") + _digits(rng, 5)])
        return rng.choice(["车牌", "那辆", "车牌号 "]), province + letter + tail, ""
    if kind == "ip":
        if rng.random() < 0.7:  # a public address: private, reserved and multicast ones are not personal
            value = ".".join(str(rng.randint(1, 254)) for _ in range(4))
            while not ipaddress.ip_address(value).is_global or ipaddress.ip_address(value).is_multicast or value in ("114.114.114.114", "8.8.8.8"):
                value = ".".join(str(rng.randint(1, 254)) for _ in range(4))
        else:
            value = ":".join(f"{rng.randint(0, 0xffff):x}" for _ in range(8))
        return rng.choice(["IP是", "ip地址 ", "来自"]), value, " "
    if kind == "mention":
        name = rng.choice(["小鱼", "阿杰", "momo", "彩虹猫", "Lucas", "糖糖"]) + "_" + _digits(rng, 4)
        return "", "@" + name, rng.choice([" ", "："])
    if kind == "url":
        value = rng.choice([f"https://weibo.com/u/{_digits(rng, 10)}", f"http://t.cn/A{_digits(rng, 5)}x",
                            f"t.cn/R{_digits(rng, 6)}", f"www.douban.com/people/{_digits(rng, 8)}/"])
        return rng.choice(["看这里 ", "链接 ", ""]), value, " "
    if kind == "address":
        road = rng.choice(["中山", "人民", "解放", "建设", "学府", "长江"]) + rng.choice(["路", "街", "大道"])
        value = f"{road}{rng.randint(1, 999)}号" + rng.choice(["", f"{rng.randint(1, 30)}栋{rng.randint(101, 2505)}室"])
        return rng.choice(["住在", "地址：", "家在"]), value, ""
    raise ValueError(kind)


def ordinary_number(rng: random.Random) -> str:
    return rng.choice([
        f"{rng.randint(1950, 2025)}年", f"{rng.randint(5, 999)}元", f"第{rng.randint(1, 50)}名", f"第{rng.randint(1, 60)}集",
        f"{rng.randint(1, 99)}%", f"{rng.randint(2000, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        f"{rng.randint(1, 12)}月{rng.randint(1, 28)}日", f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}",
        f"{rng.randint(2, 9000)}人", f"{rng.randint(16, 80)}岁", f"{rng.randint(150, 195)}cm", f"¥{rng.randint(1, 500)}.{rng.randint(0, 99):02d}",
        f"{rng.randint(1, 9)}.{rng.randint(0, 9)}分", f"{rng.randint(1, 99)}万", f"第{rng.randint(1, 12)}季",
    ])


def generate_posts(n: int, *, seed: int = 0, planted_share: float = 0.6,
                   hard_share: float = HARD_SHARE) -> list[GeneratedPost]:
    """`n` posts; about `planted_share` of them carry 1-3 planted values (every kind in turn, so each
    kind appears about equally often; `hard_share` of them written the hard way), all carry 1-3
    ordinary numbers, some a look-alike."""
    rng = random.Random(seed)
    posts = []
    turn = 0
    for i in range(n):
        post = GeneratedPost(text="")
        pieces: list[tuple[str, str | None]] = [(rng.choice(OPENERS), None), ("，", None), (rng.choice(BODIES), None)]
        for _ in range(rng.randint(1, 3)):
            number = ordinary_number(rng)
            post.ordinary.append(number)
            pieces.append(("，" + rng.choice(["都", "已经", "说是", "差不多", ""]), None))
            pieces.append((number, None))
        if rng.random() < 0.25:
            pieces.append(("，" + rng.choice(LOOKALIKES), None))
        if rng.random() < planted_share:
            for _ in range(rng.randint(1, 3)):
                kind = PLANTED_KINDS[turn % len(PLANTED_KINDS)]
                turn += 1
                before, value, after = make_value(kind, rng, hard_share)
                pieces += [("，" + before, None), (value, kind), (after, None)]
        pieces.append((rng.choice(CLOSERS) + f"（{i}）", None))
        text = ""
        for piece, kind in pieces:
            if kind:
                post.planted.append((kind, len(text), len(text) + len(piece)))
            text += piece
        post.text = text
        posts.append(post)
    return posts


def posts_csv(posts: list[GeneratedPost]) -> bytes:
    """The posts as a ChLGBT CSV file (Sentences only)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["Sentences"])
    for post in posts:
        writer.writerow([post.text])
    return out.getvalue().encode("utf-8")


def score_detection(posts: list[GeneratedPost]) -> dict[str, dict[str, float]]:
    """Precision and recall per kind of `find_personal_data` on generated posts. A finding is right
    when it overlaps a planted value of its kind; a planted value is found when a finding of its
    kind overlaps it. Findings on look-alikes and ordinary numbers count against precision."""
    from publication.personal_data import find_personal_data

    tallies = {kind: {"tp": 0, "fp": 0, "fn": 0} for kind in PLANTED_KINDS}
    for post in posts:
        findings = find_personal_data(post.text)
        for f in findings:
            hit = any(k == f.kind and f.start < e and s < f.end for k, s, e in post.planted)
            tallies.setdefault(f.kind, {"tp": 0, "fp": 0, "fn": 0})["tp" if hit else "fp"] += 1
        for kind, s, e in post.planted:
            if not any(f.kind == kind and f.start < e and s < f.end for f in findings):
                tallies[kind]["fn"] += 1
    scores = {}
    for kind, t in tallies.items():
        found, planted = t["tp"] + t["fp"], t["tp"] + t["fn"]
        scores[kind] = {"precision": t["tp"] / found if found else 1.0, "recall": t["tp"] / planted if planted else 1.0,
                        "planted": planted, "found": found}
    return scores
