"""The LLM library's cores without Django: the answer parser (property tests), few-shot selection,
the unparsed scoring rule, retries and Retry-After, the cache key, the endpoint allowlist."""
from __future__ import annotations

import json
import random
from collections import Counter
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings, strategies as st

from llm import metrics
from llm.cache import cache_key
from llm.client import backoff_seconds, retry_after_seconds
from llm.fewshot import allocate, shots_select
from llm.parsing import KEY_NAMES, parse_answer
from llm.privacy import EndpointRefused, KeyUnavailable, api_key, endpoint_check, scrub
from llm.prompts import PAPER_PROMPT, TemplateError, answer_render, messages_build, template_check

DIMS = ("explicit", "implicit", "emotional")
score = st.integers(1, 5)
scores = st.tuples(score, score, score)
# Chatter: any text without braces, backticks or the key names (so it cannot look like a dict).
chatter = st.text(alphabet=st.characters(blacklist_characters="{}｛｝`", blacklist_categories=("Cs",)), max_size=40)
QUOTES = [('”', '“'), ('“', '”'), ('"', '"'), ("'", "'"), ("", ""), ("「", "」")]
KEY_STYLES = [
    {"explicit": "显性歧视", "implicit": "隐性歧视", "emotional": "情感强烈程度"},
    {"explicit": "显性歧视", "implicit": "隐性歧视", "emotional": "情绪激烈度"},
    {"explicit": "explicit", "implicit": "implicit", "emotional": "emotional"},
    {"explicit": "Explicit Bias", "implicit": "implicit_bias", "emotional": "Emotional Intensity"},
]


def render(values, keys, quotes, colon=": ", sep=", ", value_quotes=False) -> str:
    open_q, close_q = quotes
    parts = []
    for d, v in zip(DIMS, values):
        value = f'"{v}"' if value_quotes else str(v)
        parts.append(f"{open_q}{keys[d]}{close_q}{colon}{value}")
    return "{" + sep.join(parts) + "}"


@settings(max_examples=300, deadline=None)
@given(values=scores, keys=st.sampled_from(KEY_STYLES), quotes=st.sampled_from(QUOTES), before=chatter, after=chatter,
       colon=st.sampled_from([": ", ":", "：", " : "]), sep=st.sampled_from([", ", ",", "，", ",\n"]),
       fenced=st.booleans(), value_quotes=st.booleans())
def test_every_readable_dict_parses_to_its_scores(values, keys, quotes, before, after, colon, sep, fenced, value_quotes):
    body = render(values, keys, quotes, colon, sep, value_quotes)
    if fenced:
        body = f"```json\n{body}\n```"
    parsed = parse_answer(f"{before}{body}{after}")
    assert parsed.ok, (body, parsed.reason)
    assert parsed.scores == dict(zip(DIMS, values))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_parsed_to_whole_scores_1_to_5_or_left_unparsed(text):
    parsed = parse_answer(text)
    assert parsed.scores is None or (set(parsed.scores) == set(DIMS) and all(v in range(1, 6) for v in parsed.scores.values()))
    assert parsed.ok or parsed.reason


@settings(max_examples=200, deadline=None)
@given(values=scores, keys=st.sampled_from(KEY_STYLES), drop=st.sampled_from(DIMS), text=chatter)
def test_a_missing_dimension_is_unparsed_never_guessed(values, keys, drop, text):
    body = render(values, keys, ('"', '"'))
    body = body.replace(f'"{keys[drop]}": {values[DIMS.index(drop)]}', '"other": 3')
    assert not parse_answer(text + body).ok


@settings(max_examples=200, deadline=None)
@given(values=scores, bad=st.sampled_from(["0", "6", "2.5", '"high"', "-1", "true", "null", "10"]),
       where=st.sampled_from(DIMS))
def test_a_value_that_is_not_a_whole_1_to_5_is_unparsed(values, bad, where):
    body = render(values, KEY_STYLES[0], ('"', '"'))
    i = DIMS.index(where)
    body = body.replace(f'"{KEY_STYLES[0][where]}": {values[i]}', f'"{KEY_STYLES[0][where]}": {bad}')
    assert not parse_answer(body).ok


@settings(deadline=None)
@given(a=scores, b=scores)
def test_two_dicts_that_disagree_are_unparsed_and_two_that_agree_parse(a, b):
    text = render(a, KEY_STYLES[2], ('"', '"')) + " 或者 " + render(b, KEY_STYLES[0], ("”", "“"))
    parsed = parse_answer(text)
    assert parsed.ok == (a == b)


def test_the_papers_own_format_and_nested_json_parse_and_prose_does_not():
    assert parse_answer(answer_render({"explicit": 2, "implicit": 4, "emotional": 3})).scores == \
        {"explicit": 2, "implicit": 4, "emotional": 3}
    assert parse_answer('{"scores": {"显性歧视": 1, "隐性歧视": 1, "情感强烈程度": 5}}').scores == \
        {"explicit": 1, "implicit": 1, "emotional": 5}
    for text in ["显性歧视2分，隐性歧视4分，情感强烈程度3分", "2, 4, 3", "", "   ", "{}", "{显性歧视: 2, 隐性歧视: 1}",
                 "{显性歧视: 2, 隐性歧视: 1, 情感强烈程度: 4, 其他内容}"]:
        assert not parse_answer(text).ok, text


def test_every_key_name_maps_to_its_dimension():
    for dim, names in KEY_NAMES.items():
        for name in names:
            values = {d: 1 + i for i, d in enumerate(DIMS)}
            body = {("x" + d if d != dim else name): v for d, v in values.items()}
            body.update({KEY_STYLES[0][d]: v for d, v in values.items() if d != dim})
            assert parse_answer(json.dumps(body, ensure_ascii=False)).scores == values, name


# --------------------------------------------------------------------------- few-shot

def train_rows(n=200, seed=0):
    rng = random.Random(seed)
    return [{"id": f"p{i:04d}", "text": f"训练帖{i}", **{d: rng.choices(range(1, 6), [40, 25, 15, 12, 8])[0] for d in DIMS}}
            for i in range(n)]


@settings(deadline=None)
@given(counts=st.dictionaries(st.integers(1, 5), st.integers(1, 60), min_size=1), k=st.integers(0, 30))
def test_allocation_is_proportional_and_sums_to_k(counts, k):
    total = sum(counts.values())
    if k > total:
        with pytest.raises(ValueError):
            allocate(counts, k)
        return
    share = allocate(counts, k)
    assert sum(share.values()) == k
    for c, n in counts.items():
        assert share[c] <= n
        assert abs(share[c] - k * n / total) < 1 + 1e-9  # largest remainder: within one of its exact share


def test_shots_are_seeded_stratified_training_rows():
    rows = train_rows()
    five = shots_select(rows, 5, seed=3)
    assert len(five) == 5 and len({r["id"] for r in five}) == 5 and all(r in rows for r in five)
    assert shots_select(list(reversed(rows)), 5, seed=3) == five  # the order of the input does not matter
    assert shots_select(rows, 5, seed=4) != five
    ten = shots_select(rows, 10, seed=0)
    counts = Counter(r["explicit"] for r in rows)
    assert Counter(r["explicit"] for r in ten) == Counter(allocate(dict(counts), 10))
    assert shots_select(rows, 0, seed=0) == []
    with pytest.raises(ValueError, match="only 200"):
        shots_select(rows, 201, seed=0)


def test_messages_put_the_shots_before_the_post_in_the_papers_format():
    shots = train_rows(3)
    messages = messages_build(PAPER_PROMPT, "目标帖子", shots)
    assert [m["role"] for m in messages] == ["user", "assistant"] * 3 + ["user"]
    assert messages[-1]["content"] == PAPER_PROMPT.format(text="目标帖子")
    for shot, answer in zip(shots, messages[1::2]):
        assert parse_answer(answer["content"]).scores == {d: shot[d] for d in DIMS}


def test_template_checks():
    template_check(PAPER_PROMPT)
    template_check("打分：{text}，返回 {{\"explicit\": 分数}}")
    for bad in ["没有占位符", "{text} {examples}", "{text} {", "{0} {text}"]:
        with pytest.raises(TemplateError):
            template_check(bad)


# --------------------------------------------------------------------------- metrics: the unparsed rule

def test_an_unparsed_answer_is_wrong_and_a_miss_of_its_gold_class_only():
    gold = [{d: v for d in DIMS} for v in (1, 2, 3, 4, 5, 1)]
    right = [dict(g) for g in gold]
    all_right = metrics.run_scores(gold, right)
    assert all(all_right[d]["accuracy"] == 1.0 and all_right[d]["macro_f1"] == 1.0 for d in DIMS)
    one_unparsed = metrics.run_scores(gold, right[:5] + [None])
    for d in DIMS:
        assert one_unparsed[d]["accuracy"] == pytest.approx(5 / 6) and one_unparsed[d]["unparsed"] == 1
        # class 1: precision 1, recall 1/2 -> F1 2/3; the other four classes stay 1; class 0 is not averaged
        assert one_unparsed[d]["macro_f1"] == pytest.approx((2 / 3 + 4) / 5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(scores, st.one_of(st.none(), scores)), min_size=1, max_size=40), st.data())
def test_an_unparsed_answer_in_place_of_a_right_one_never_raises_a_score(pairs, data):
    gold = [dict(zip(DIMS, g)) for g, _ in pairs]
    answers = [dict(zip(DIMS, a)) if a else None for _, a in pairs]
    i = data.draw(st.integers(0, len(pairs) - 1))
    answers[i] = dict(gold[i])
    worse = list(answers)
    worse[i] = None
    before, after = metrics.run_scores(gold, answers), metrics.run_scores(gold, worse)
    for d in DIMS:
        assert after[d]["accuracy"] <= before[d]["accuracy"] + 1e-12
        assert after[d]["macro_f1"] <= before[d]["macro_f1"] + 1e-12


def test_summary_is_mean_and_sample_std_and_brier_only_with_probabilities():
    gold = [{d: 1 for d in DIMS}, {d: 2 for d in DIMS}]
    run_a = metrics.run_scores(gold, [{d: 1 for d in DIMS}, {d: 2 for d in DIMS}],
                               [{d: [1, 0, 0, 0, 0] for d in DIMS}, {d: [0, 1, 0, 0, 0] for d in DIMS}])
    run_b = metrics.run_scores(gold, [{d: 1 for d in DIMS}, None], [{d: [1, 0, 0, 0, 0] for d in DIMS}, None])
    assert run_a["explicit"]["brier"] == 0.0 and run_b["explicit"]["brier"] is None
    summary = metrics.summarise([run_a, run_b])
    assert summary["explicit"]["acc_mean"] == pytest.approx(0.75)
    assert summary["explicit"]["acc_std"] == pytest.approx(0.3535533906)  # ddof=1 over [1.0, 0.5]
    assert summary["explicit"]["brier_mean"] is None


# --------------------------------------------------------------------------- client pieces

def test_retry_after_in_seconds_milliseconds_or_a_date():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    when = datetime(2030, 1, 1, tzinfo=timezone.utc)
    header = {"retry-after": format_datetime(when, usegmt=True)}
    assert retry_after_seconds(header, now=(when - timedelta(seconds=7)).timestamp()) == pytest.approx(7)
    assert retry_after_seconds({"retry-after": "soon"}) is None and retry_after_seconds({}) is None


@settings(deadline=None)
@given(attempt=st.integers(0, 20), retry_after=st.one_of(st.none(), st.floats(0, 500)), seed=st.integers(0, 99))
def test_backoff_is_jittered_capped_and_never_shorter_than_retry_after(attempt, retry_after, seed):
    wait = backoff_seconds(attempt, base=0.5, cap=20.0, rng=random.Random(seed), retry_after=retry_after,
                           max_retry_after=120.0)
    if retry_after is None:
        assert 0 <= wait <= min(20.0, 0.5 * 2 ** attempt)
    else:
        assert min(retry_after, 120.0) <= wait <= 1.1 * min(retry_after, 120.0) + 1e-9


def test_the_cache_key_covers_what_changes_an_answer_and_no_key():
    base = dict(backend="openai", endpoint="http://127.0.0.1:8080/v1", model="m", template_text=PAPER_PROMPT,
                post_text="帖子", shots="[]", seed=0, temperature=0.0, run_index=0, max_tokens=256)
    key = cache_key(**base)
    assert cache_key(**{**base, "endpoint": "http://127.0.0.1:8080/v1/"}) == key
    for field, value in [("endpoint", "http://127.0.0.1:8081/v1"), ("model", "m2"), ("template_text", "x{text}"),
                         ("post_text", "另一个"), ("shots", '[["t",1,1,1]]'), ("seed", 1), ("temperature", 0.7),
                         ("run_index", 1), ("backend", "local")]:
        assert cache_key(**{**base, field: value}) != key, field
    with pytest.raises(TypeError):
        cache_key(**base, api_key="sk-x")


def test_endpoints_on_loopback_pass_others_need_the_allowlist():
    assert endpoint_check("http://127.0.0.1:8080/v1", []) is False
    assert endpoint_check("http://localhost:11434/v1", []) is False
    assert endpoint_check("http://[::1]:8000/v1", []) is False
    for url in ["https://api.deepseek.com/v1", "http://10.0.0.5:8000/v1", "http://127.0.0.1.nip.io/v1"]:
        with pytest.raises(EndpointRefused, match="LLM_ENDPOINT_ALLOWLIST"):
            endpoint_check(url, [])
    assert endpoint_check("https://api.deepseek.com/v1", ["API.deepseek.com"]) is True
    assert endpoint_check("https://api.openai.com/v1", ["https://api.openai.com/v1"]) is True
    with pytest.raises(EndpointRefused):  # a prefix entry does not admit another path on the host
        endpoint_check("https://api.openai.com/v1evil", ["https://api.openai.com/v1"])
    with pytest.raises(EndpointRefused, match="not an http"):
        endpoint_check("ftp://127.0.0.1/v1", [])


def test_keys_come_from_the_named_variable_only(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-abcdefghijklmnop")
    assert api_key("MY_KEY") == "sk-abcdefghijklmnop"
    assert api_key("") == "not-needed"
    with pytest.raises(KeyUnavailable, match="NAME"):
        api_key("sk-abcdefghijklmnop")
    monkeypatch.delenv("MY_KEY")
    with pytest.raises(KeyUnavailable, match="not set"):
        api_key("MY_KEY")
    assert scrub("bad key sk-abcdefghijklmnop and sk-abcdef...", "sk-abcdefghijklmnop") == "bad key *** and ***..."
    assert "sk-abcde" not in scrub("Incorrect API key provided: sk-abcde*********mnop", "sk-abcdefghijklmnop")


def test_only_loopback_literals_and_localhost_itself_count_as_this_machine():
    """A name under .localhost is resolved like any other where the resolver is plain DNS (glibc's
    files-then-dns): it is not known to stay on this machine, so it needs the allowlist. Credentials in
    the URL would be stored with the run (its endpoint field, the audit log): refused, keys come from
    the environment only."""
    for url in ["http://evil.localhost/v1", "http://a.b.localhost:8080/v1", "http://localhost.evil.com/v1",
                "http://127.0.0.1.nip.io/v1"]:
        with pytest.raises(EndpointRefused, match="LLM_ENDPOINT_ALLOWLIST"):
            endpoint_check(url, [])
    for url in ["http://user:sk-abcdefghijklmnop@127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1?api_key=sk-abcdefgh",
                "https://sk-abcdefghijklmnop@api.deepseek.com/v1"]:
        with pytest.raises(EndpointRefused, match="environment variable"):
            endpoint_check(url, ["api.deepseek.com"])


def test_the_client_follows_no_redirect_to_another_host():
    """A redirect (307 keeps the body: the post) is never followed: the endpoint fails with its status."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from llm.client import ChatClient, EndpointFailed

    hits = {"target": 0}

    class Target(BaseHTTPRequestHandler):
        def do_POST(self):
            hits["target"] += 1
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    target = ThreadingHTTPServer(("127.0.0.1", 0), Target)

    class Redirect(Target):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(307)
            self.send_header("Location", f"http://127.0.0.2:{target.server_port}/v1/chat/completions")
            self.send_header("Content-Length", "0")
            self.end_headers()

    source = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    for server in (target, source):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    client = ChatClient(base_url=f"http://127.0.0.1:{source.server_port}/v1", api_key="not-needed", model="m",
                        max_retries=0, timeout=5)
    try:
        with pytest.raises(EndpointFailed, match="307"):
            client.complete([{"role": "user", "content": "帖子"}], temperature=0.0, seed=0, max_tokens=8)
    finally:
        client.close()
        for server in (target, source):
            server.shutdown()
            server.server_close()
    assert hits["target"] == 0


def test_answers_had_reach_the_cache_while_a_slow_request_is_still_out():
    """The runner's buffered answers are written (on_idle) while nothing finishes, not only when the
    next answer arrives: a worker killed during a long Retry-After wait has lost none it was sent."""
    import threading

    from llm.client import map_concurrent

    buffered, written = [], []
    released = threading.Event()

    def flush():
        written.extend(buffered)
        buffered.clear()
        if "fast" in written:
            released.set()

    def work(item):
        if item == "slow":
            return released.wait(10)  # answers only once the fast answer has been written
        return item

    out = []
    for item, result, error in map_concurrent(["fast", "slow"], work, concurrency=2, stop=threading.Event(),
                                              on_idle=flush, idle_seconds=0.01):
        assert error is None
        out.append((item, result))
        buffered.append(item)
    assert out == [("fast", "fast"), ("slow", True)]
    assert written == ["fast"]
