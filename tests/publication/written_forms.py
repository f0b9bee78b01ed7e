"""A test set of posts written the way Weibo users write personal data to get past a platform's
filters (issue 29), made from a description of those ways, not from the rules:

- phone numbers: groups split by a space, a dash, a dot, a slash, an underscore, a middle dot, a
  zero-width space or an emoji; full-width digits; +86; a space after every digit; Chinese numerals
  or odd groupings after a cue; cues spaced out or in traditional characters (電話, 手機);
- landlines: area code with or without parentheses, an extension, the country code without the 0;
- e-mail: `[at]`, `(at)`, `艾特`, `＠`, `[dot]`, `点`, a space after the dot, `at … dot com`;
- resident IDs: plain, 6-8-4, 3-3-4-4-4, after `sfz`, lower-case x, full-width;
- bank cards: groups of four split by spaces, dashes or dots; after 卡号 in other groupings;
- QQ: `QQ`, `扣扣`, `扣 扣`, `企鵝號`, `q号`, `加q`, a lone `扣` or `Q` before the number, the cue after;
- WeChat: `v x`, `微 信`, `薇❤信`, `wei xin`, `WeChat ID:`, `加微`, `卫星`, `威信`, a number after the cue;
- plates: `·`, `・` or a space after the letter, new-energy plates;
- IP addresses: dots, `。`, full-width dots between the octets;
- mentions `@name`, `@ name`, `＠name`; links; street addresses and residential compounds with
  building and unit numbers;
- private persons' names in the sentences people out others with, and public figures named in
  ordinary comment (these must stay).

Beside them, ordinary numbers that must not be altered: counts, prices, dates, times, years,
percentages, ranks, a Weibo post id, an order number, model numbers (SM8550, Y9000P), `帝企鹅 256000 对`,
public resolvers and private addresses (114.114.114.114, 192.168.1.1), version numbers, hotlines
(12355, 400 numbers).

    posts = written_posts(seed=0)   # list[WrittenPost]; every value's span in the text is known
"""
from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from datetime import date, timedelta

from publication.personal_data import id_check_char, luhn_check_digit

KINDS = ("mobile", "landline", "email", "id_card", "bank_card", "qq", "wechat", "plate", "ip", "mention", "url",
         "address")
ZWSP, ZWNJ, WJ = "\u200b", "\u200c", "\u2060"
EMOJI = ["😀", "❤", "🌈", "✨", "👉", "🙏"]
FULL = str.maketrans("0123456789@.:", "０１２３４５６７８９＠．：")
CN = str.maketrans("0123456789", "零一二三四五六七八九")

PRIVATE_NAMES = ["王建国", "李娜", "张伟", "刘洋", "陈子豪", "杨静", "赵磊", "黄晓明", "周敏", "吴婷", "徐磊", "孙丽",
                 "胡军", "朱琳", "高翔", "林悦", "何平", "郭强", "马丽", "罗鹏", "梁晨", "宋佳", "郑浩", "谢芳",
                 "韩雪", "唐宁", "冯涛", "于波", "董洁", "萧然", "程亮", "曹颖", "袁野", "邓超群", "许晴", "傅磊",
                 "沈阳明", "曾静", "彭宇", "吕梁"]
PUBLIC = ["周杰伦", "刘德华", "马化腾", "马云", "雷军", "李银河", "张国荣", "蔡依林", "王菲", "鲁迅"]
NAME_FRAMES = ["我同事{n}是同性恋，大家都知道了", "曝光一下，{n}就是那个渣男", "我前任{n}到处说我是gay", "室友{n}昨天出柜了",
               "{n}你别装了，全公司都知道你是拉拉", "听说{n}和男朋友同居了", "我们班的{n}天天被人叫娘炮",
               "大家小心{n}，他专门骗同志的钱", "{n}，你还记得你对我说过的话吗", "转发让更多人认识{n}这个人"]
PUBLIC_FRAMES = ["{n}的新歌真好听", "今天看了{n}的采访", "{n}说的话我很认同", "支持{n}！", "{n}这次的演讲很有意思"]
FILLERS = ["说实话", "刚看到", "今天", "有人说", "讲真", "最近", "评论区里", "家人们"]
BODIES = ["出柜这件事真的需要勇气", "平权的路还很长", "家里人还是不能接受", "彩虹旗挂出来就被骂", "性少数群体也需要被看见"]


@dataclass
class WrittenPost:
    text: str
    planted: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, start, end) of the value
    ordinary: list[tuple[int, int]] = field(default_factory=list)  # spans that must stay as written
    names: list[tuple[int, int]] = field(default_factory=list)  # private persons' names
    public: list[tuple[int, int]] = field(default_factory=list)  # public figures' names (must stay)
    form: str = ""


class _Builder:
    def __init__(self):
        self.parts: list[str] = []
        self.post = WrittenPost("")

    def add(self, text: str, kind: str | None = None, where: str | None = None) -> _Builder:
        start = sum(map(len, self.parts))
        self.parts.append(text)
        if kind is not None:
            self.post.planted.append((kind, start, start + len(text)))
        if where == "ordinary":
            self.post.ordinary.append((start, start + len(text)))
        elif where == "name":
            self.post.names.append((start, start + len(text)))
        elif where == "public":
            self.post.public.append((start, start + len(text)))
        return self

    def done(self, form: str) -> WrittenPost:
        self.post.text = "".join(self.parts)
        self.post.form = form
        return self.post


def _digits(rng, n):
    return "".join(rng.choice(string.digits) for _ in range(n))


def _split(digits: str, sizes: list[int], sep: str) -> str:
    out, pos = [], 0
    for size in sizes:
        out.append(digits[pos:pos + size])
        pos += size
    if pos < len(digits):
        out.append(digits[pos:])
    return sep.join(p for p in out if p)


def _mobile(rng):
    return "1" + rng.choice("3456789") + _digits(rng, 9)


def _id(rng):
    born = date(1960, 1, 1) + timedelta(days=rng.randrange(16000))
    first17 = f"{rng.choice(['110101', '310104', '440305', '510107', '330106'])}{born:%Y%m%d}{_digits(rng, 3)}"
    return first17 + id_check_char(first17)


def _card(rng, n=None):
    n = n or rng.choice([16, 16, 19])
    payload = rng.choice(["622202", "621700", "623058", "436742", "512345"]) + _digits(rng, n - 7)
    return payload + luhn_check_digit(payload)


def _word(rng, lo=4, hi=8):
    return rng.choice(string.ascii_lowercase) + "".join(rng.choice(string.ascii_lowercase + string.digits)
                                                        for _ in range(rng.randint(lo, hi)))


# --- how each kind is written -----------------------------------------------------------------------

def mobile_forms(rng):
    m = _mobile(rng)
    cue = rng.choice(["手机", "电话", "電話", "手機號", "联系方式", "tel", "手 机", "电 话"])
    sep = rng.choice([" ", "-", ".", "/", "_", "·", ZWSP])
    return [
        ("plain", "有事打", m, ""),
        ("344", f"{cue}：", _split(m, [3, 4, 4], sep), ""),
        ("434", f"{cue} ", _split(m, [4, 3, 4], rng.choice([" ", "-", "/"])), ""),
        ("zero-width", "找我", ZWSP.join(m[i:i + 2] for i in range(0, 11, 2)), ""),
        ("emoji", "打我", _split(m, [3, 4, 4], rng.choice(EMOJI)), "哦"),
        ("fullwidth", f"{cue}：", m.translate(FULL), ""),
        ("+86", "联系", rng.choice(["+86 ", "+86-", "(+86)", "0086 "]) + _split(m, [3, 4, 4], rng.choice([" ", "-", ""])), ""),
        ("every-digit", f"{cue} ", " ".join(m), ""),
        ("chinese", f"{cue}", m.translate(CN), ""),
        ("odd-groups", f"{cue}：", _split(m, [2, 2, 2, 2, 3], rng.choice([" ", "-"])), ""),
        ("slash", "私信或者打", _split(m, [3, 4, 4], "/"), ""),
    ]


def landline_forms(rng):
    area = rng.choice(["010", "021", "020", "0755", "0571", "028"])
    local = rng.choice("2345678") + _digits(rng, 7 if len(area) == 3 else rng.choice([6, 7]))
    return [
        ("dash", "座机", f"{area}-{local}", ""),
        ("paren", "电话", f"({area}){local}", ""),
        ("space", "办公室电话 ", f"{area} {local}", ""),
        ("ext", "公司电话", f"{area}-{local}转{rng.randint(100, 999)}", ""),
        ("country", "电话 ", f"86-{area[1:]}-{local}", ""),
        ("fullwidth", "座机：", f"{area}-{local}".translate(FULL), ""),
        ("dots", "电话", f"{area}.{local[:4]}.{local[4:]}", ""),
    ]


def email_forms(rng):
    user = _word(rng)
    host = rng.choice(["qq", "163", "gmail", "126", "outlook", "sina"])
    tld = "com"
    return [
        ("plain", "邮箱", f"{user}@{host}.{tld}", ""),
        ("[at]", "邮箱 ", f"{user}[at]{host}.{tld}", ""),
        ("(at)", "发到", f"{user}(at){host}.{tld}", ""),
        ("艾特", "邮箱：", f"{user}艾特{host}点{tld}", ""),
        ("fullwidth-at", "邮箱", f"{user}＠{host}.{tld}", ""),
        ("[dot]", "邮箱", f"{user}@{host}[dot]{tld}", ""),
        ("space-after-dot", "邮箱", f"{user}@{host}. {tld}", ""),
        ("at-dot-words", "mail: ", f"{user} at {host} dot {tld}", ""),
        ("circle-dot", "邮箱", f"{user}@{host}。{tld}", ""),
    ]


def id_forms(rng):
    v = _id(rng)
    return [
        ("plain", "身份证号", v, ""),
        ("684", "身份证 ", _split(v, [6, 8, 4], rng.choice([" ", "-"])), ""),
        ("33444", "证件号", _split(v, [3, 3, 4, 4, 4], " "), ""),
        ("sfz", rng.choice(["sfz", "sfz:", "SFZ "]), v, ""),
        ("lower-x", "身份证", v[:-1] + ("x" if v[-1] == "X" else v[-1]), ""),
        ("fullwidth", "身份证：", v.translate(FULL), ""),
        ("no-cue", "我的是", v, "别乱用"),
    ]


def card_forms(rng):
    c = _card(rng, 16)
    c19 = _card(rng, 19)
    return [
        ("4444-space", "卡号", _split(c, [4, 4, 4, 4], " "), ""),
        ("4444-dash", "转账到", _split(c, [4, 4, 4, 4], "-"), ""),
        ("4444-dot", "银行卡", _split(c, [4, 4, 4, 4], "."), ""),
        ("plain-cue", "卡号：", c, ""),
        ("19-cue", "银行卡号 ", c19, ""),
        ("66-cue", "卡号 ", _split(c, [6, 6], " "), ""),
        ("4-groups-19", "打到", _split(c19, [4, 4, 4, 4], " "), ""),
    ]


def qq_forms(rng):
    q = rng.choice("123456789") + _digits(rng, rng.randint(5, 9))
    return [
        ("QQ", "加我QQ", q, ""),
        ("扣扣", "扣扣：", q, ""),
        ("扣 扣", "扣 扣 ", q, ""),
        ("企鵝號", "企鵝號：", q, ""),
        ("q号", "q号", q, ""),
        ("加q", "加q", q, ""),
        ("lone-Q", "Q：", q, ""),
        ("lone-扣", "扣 ", q, ""),
        ("after", "，", q, "是我的QQ"),
        ("grouped", "QQ ", _split(q, [3, 3, 4], " "), ""),
        ("fullwidth", "QQ：", q.translate(FULL), ""),
    ]


def wechat_forms(rng):
    w = _word(rng, 5, 10)
    return [
        ("微信", "微信：", w, ""),
        ("v x", "v x：", w, ""),
        ("微 信", "微 信 ", w, ""),
        ("薇❤信", "薇❤信 ", w, ""),
        ("wei xin", "wei xin: ", w, ""),
        ("WeChat ID", "WeChat ID: ", w, ""),
        ("加微", "加微", w, ""),
        ("卫星", "卫星：", w, ""),
        ("威信", "威信 ", w, ""),
        ("number", "vx ", rng.choice("123456789") + _digits(rng, 8), ""),
        ("wx同号", "wx同号", _mobile(rng), ""),
    ]


def plate_forms(rng):
    province = rng.choice("京沪粤浙苏川鲁")
    letter = rng.choice("ABCDEFGHJK")
    serial = _digits(rng, 5) if rng.random() < 0.5 else _digits(rng, 3) + rng.choice("ABCDEFGHJK") + _digits(rng, 1)
    return [
        ("plain", "车牌", f"{province}{letter}{serial}", ""),
        ("middle-dot", "车牌号", f"{province}{letter}·{serial}", ""),
        ("katakana-dot", "车牌", f"{province}{letter}・{serial}", ""),
        ("space", "那辆", f"{province}{letter} {serial}", "的车"),
        ("space-after-province", "车牌", f"{province} {letter}{serial}", ""),
        ("new-energy", "新能源车牌", f"{province}{letter}D{_digits(rng, 5)}", ""),
        ("lower", "车牌", f"{province}{letter.lower()}{serial}", ""),
    ]


def ip_forms(rng):
    ip = ".".join(str(x) for x in [rng.choice([36, 58, 61, 101, 117, 121, 183, 202, 218, 222]), rng.randint(1, 254),
                                   rng.randint(1, 254), rng.randint(1, 254)])
    return [
        ("dots", "他的IP是", ip, ""),
        ("circle", "IP：", ip.replace(".", "。"), ""),
        ("fullwidth", "ip地址 ", ip.replace(".", "．"), ""),
        ("spaced", "查到IP ", ip.replace(".", " . "), ""),
    ]


def mention_forms(rng):
    name = rng.choice(["小明同学", "彩虹糖", "夏天的风", "ABC小王", "橘子汽水"]) + str(rng.randint(1, 99))
    return [("at", "", "@" + name, " 你看看"), ("at-space", "", "@ " + name, " 出来说说"),
            ("fullwidth", "", "＠" + name, " 你好")]


def url_forms(rng):
    slug = _word(rng, 5, 7)
    return [("http", "看这里 ", f"https://weibo.com/{slug}", " "), ("www", "链接 ", f"www.{slug}.com", " "),
            ("t.cn", "戳 ", f"t.cn/{slug}", " "), ("weibo-u", "主页 ", f"weibo.com/u/{rng.randint(10 ** 9, 10 ** 10)}", " ")]


def address_forms(rng):
    road = rng.choice(["中山", "人民", "解放", "建设", "和平"])
    compound = rng.choice(["阳光花园", "幸福小区", "碧桂园", "锦绣家园", "翠苑", "金色家园"])
    return [
        ("street", "我住在", f"{road}路{rng.randint(1, 300)}号", ""),
        ("street-room", "地址", f"{road}大街{rng.randint(1, 300)}号{rng.randint(1, 20)}栋{rng.randint(101, 2505)}室", ""),
        ("compound", "他家在", f"{compound}{rng.randint(1, 30)}栋{rng.randint(1, 6)}单元{rng.randint(101, 2505)}", ""),
        ("compound-hao", "住", f"{compound}{rng.randint(1, 30)}号楼{rng.randint(1, 6)}单元", "，就他一个人"),
    ]


FORMS = {"mobile": mobile_forms, "landline": landline_forms, "email": email_forms, "id_card": id_forms,
         "bank_card": card_forms, "qq": qq_forms, "wechat": wechat_forms, "plate": plate_forms, "ip": ip_forms,
         "mention": mention_forms, "url": url_forms, "address": address_forms}


def ordinary_numbers(rng) -> list[tuple[str, str, str]]:
    """(before, number, after): numbers people write that are not personal data."""
    mid = "4" + _digits(rng, 14)
    mid = mid + luhn_check_digit(mid)  # a Weibo post id that happens to pass Luhn
    order = "6" + _digits(rng, 17)
    order = order + luhn_check_digit(order)
    year = rng.randint(1990, 2025)
    return [
        ("花了", f"{rng.randint(10, 9999)}", "元"), ("今年", f"{year}", "年"), ("", f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", ""),
        ("", f"{year}.{rng.randint(1, 12)}.{rng.randint(1, 28)}", ""), ("", f"{year}/{rng.randint(1, 12)}/{rng.randint(1, 28)}", ""),
        ("晚上", f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}", ""), ("涨了", f"{rng.randint(1, 99)}.{rng.randint(0, 9)}%", ""),
        ("排名第", f"{rng.randint(1, 500)}", ""), ("第", f"{rng.randint(1, 60)}", "集"), ("阅读量", f"{rng.randint(10000, 99999999)}", ""),
        ("微博", mid, ""), ("mid=", mid, ""), ("订单号", order, ""), ("最新", "SM8550", "处理器"), ("新款", "Y9000P", ""),
        ("", "骁龙8550", ""), ("帝企鹅 ", f"{rng.randint(100000, 300000)}", " 对"), ("DNS设成", "114.114.114.114", ""),
        ("路由器", "192.168.1.1", ""), ("", "8.8.8.8", ""), ("", "10.0.0.1", ""), ("升级到", "1.2.3.4", "了"),
        ("版本", "2.10.3.1", ""), ("v", "3.4.5.6", ""), ("热线", "12355", ""), ("客服", "400-810-8888", ""),
        ("", "800-820-8820", ""), ("微信支付了", f"{rng.randint(10, 999)}", "元"), ("QQ音乐排行第", f"{rng.randint(1, 100)}", ""),
        ("身高", f"{rng.randint(150, 195)}", "体重65"), ("", f"{rng.randint(2, 9)}", "号线"), ("房价", f"{rng.randint(10000, 99999)}", "一平"),
        ("iPhone ", f"{rng.randint(11, 16)}", " Pro"), ("播放", f"{rng.randint(1000, 9999)}", "万次"),
        ("", f"{rng.randint(1, 9)}.{rng.randint(0, 99)}", "分"), ("比分", f"{rng.randint(0, 5)}:{rng.randint(0, 5)}", ""),
        ("", f"{rng.randint(1000, 99999)}", "人参加了游行"), ("Q", f"{rng.randint(1, 4)}", "财报"),
        ("", f"{year}-{year + rng.randint(1, 5)}", "年"), ("粉丝", f"{rng.randint(100000, 9999999)}", ""),
    ]


def written_posts(seed: int = 0, rounds: int = 6) -> list[WrittenPost]:
    """Every form of every kind `rounds` times (new values each time), each in its own post with an
    ordinary number beside it; then posts with names (private and public) and posts with ordinary
    numbers only."""
    rng = random.Random(seed)
    posts: list[WrittenPost] = []
    for _round in range(rounds):
        for kind, forms in FORMS.items():
            for form, before, value, after in forms(rng):
                b = _Builder().add(rng.choice(FILLERS) + rng.choice(BODIES) + "，" + before)
                b.add(value, kind=kind).add(after + "。")
                ob, on, oa = rng.choice(ordinary_numbers(rng))
                b.add(ob).add(on, where="ordinary").add(oa + "。")
                posts.append(b.done(f"{kind}:{form}"))
        for _ in range(10):
            b = _Builder().add(rng.choice(FILLERS) + "，")
            frame = rng.choice(NAME_FRAMES)
            pre, post = frame.split("{n}")
            b.add(pre).add(rng.choice(PRIVATE_NAMES), where="name").add(post + "。")
            if rng.random() < 0.6:
                pframe = rng.choice(PUBLIC_FRAMES)
                ppre, ppost = pframe.split("{n}")
                b.add(ppre).add(rng.choice(PUBLIC), where="public").add(ppost)
            posts.append(b.done("names"))
        for _ in range(15):
            b = _Builder().add(rng.choice(FILLERS) + rng.choice(BODIES) + "，")
            for ob, on, oa in rng.sample(ordinary_numbers(rng), 3):
                b.add(ob).add(on, where="ordinary").add(oa + "，")
            posts.append(b.done("ordinary"))
    return posts


def score(posts: list[WrittenPost], findings_of) -> dict:
    """Recall per kind (a planted value counts as found when every letter and digit of it lies
    inside a finding), the share of ordinary numbers a finding touches, and names masked / public
    figures kept. `findings_of(text)` -> [(kind, start, end)]."""
    per_kind = {k: [0, 0] for k in KINDS}
    missed: dict[str, list[str]] = {k: [] for k in KINDS}
    ordinary = [0, 0]
    altered: list[str] = []
    names = [0, 0]
    public = [0, 0]
    for post in posts:
        spans = [(s, e) for _k, s, e in findings_of(post.text)]
        person = [(s, e) for k, s, e in findings_of(post.text) if k == "person"]
        covered = set()
        for s, e in spans:
            covered.update(range(s, e))
        for kind, s, e in post.planted:
            per_kind[kind][0] += 1
            need = [i for i in range(s, e) if post.text[i].isalnum()]
            if all(i in covered for i in need):
                per_kind[kind][1] += 1
            else:
                missed[kind].append(f"{post.form}: {post.text[s:e]!r}")
        for s, e in post.ordinary:
            ordinary[0] += 1
            if any(i in covered for i in range(s, e)):
                ordinary[1] += 1
                altered.append(post.text[s:e])
        for s, e in post.names:
            names[0] += 1
            names[1] += any(ps <= s and e <= pe for ps, pe in person)
        for s, e in post.public:
            public[0] += 1
            public[1] += not any(i in covered for i in range(s, e))
    return {"recall": {k: (f / n if n else None) for k, (n, f) in per_kind.items()},
            "planted": {k: n for k, (n, _f) in per_kind.items()}, "missed": missed,
            "ordinary": ordinary[0], "ordinary_altered": ordinary[1], "altered": altered,
            "names": names[0], "names_masked": names[1], "public": public[0], "public_kept": public[1]}
