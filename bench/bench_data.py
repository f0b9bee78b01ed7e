"""Import of 8,120 posts, alpha for 8,120 x 6 x 3 from the database, release export of 8,120
posts x 6 judgments, prior rebuild for 8,120 posts (inference excluded) and the token-weight page.

    python bench/bench_data.py [--postgres]
"""
from __future__ import annotations

import argparse
import json
import random

from common import setup_django, synthetic_posts, timer

N_POSTS = 8120


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    database = setup_django(args.postgres)

    from django.contrib.auth import get_user_model
    from django.test import Client

    from annotation.agreement.selectors import agreement_report
    from annotation.releases.services import release_publish
    from annotation.importing.services import import_posts
    from annotation.models import Judgment, Post
    from annotation.services import annotator_ensure
    from core.permissions import role_groups_ensure
    from calibration.services import prior_snapshot_rebuild
    from modeling.maam.astigmatism import CISState

    rng = random.Random(0)
    texts = synthetic_posts(N_POSTS)
    body = "Sentences,Explicit,Implicit,Emotional\r\n" + "".join(
        f"{t},{rng.randint(1, 5)},{rng.randint(1, 5)},{rng.randint(1, 5)}\r\n" for t in texts)
    results = {"database": database}
    with timer() as t:
        import_posts(body.encode("utf-8"), with_labels=True, batch_name="bench")
    results["import_8120_s"] = t["seconds"]

    annotators = [annotator_ensure(username=f"bench{i}") for i in range(6)]
    posts = list(Post.objects.values_list("id", "final_label__explicit", "final_label__implicit", "final_label__emotional"))
    Judgment.objects.bulk_create([
        Judgment(post_id=pid, annotator=a, explicit=max(1, min(5, e + rng.choice([-1, 0, 0, 1]))),
                 implicit=max(1, min(5, i + rng.choice([-1, 0, 0, 1]))), emotional=max(1, min(5, m + rng.choice([-1, 0, 1]))))
        for pid, e, i, m in posts for a in annotators], batch_size=5000)
    with timer() as t:
        report = agreement_report(bootstrap=0, with_trend=False)
    results["alpha_8120x6x3_s"] = t["seconds"]
    results["alpha_ordinal"] = {d: round(v["alpha"]["ordinal"], 3) for d, v in report["dimensions"].items()}

    with timer() as t:
        release = release_publish()  # as the admin, the page and export_release do (200-resample interval)
    results["release_export_s"] = t["seconds"]
    results["release_posts"] = release.summary["posts"]

    states = [CISState(rng.choice(["Funny", "General", "Serious"]), rng.choice(["Ingroup", "Outgroup", "Uncertain"]),
                       rng.choice(["Pro", "Anti", "Neutral"])) for _ in range(N_POSTS)]
    with timer() as t:
        prior_snapshot_rebuild(states=states)  # states given: inference excluded, as the target says
    results["priors_rebuild_8120_s"] = t["seconds"]

    role_groups_ensure()
    researcher = get_user_model().objects.create_user("bench-res", password="x" * 12)
    from django.contrib.auth.models import Group

    researcher.groups.add(Group.objects.get(name="researcher"))
    client = Client()
    client.force_login(researcher)
    post_ids = [p[0] for p in posts[:30]]
    client.get(f"/calibration/weights/?post={post_ids[0]}")  # warm: jieba's dictionary loads once per process
    times = []
    for pid in post_ids:
        with timer() as t:
            assert client.get(f"/calibration/weights/?post={pid}").status_code == 200
        times.append(t["seconds"])
    results["token_weight_page_median_ms"] = sorted(times)[len(times) // 2] * 1000
    results["token_weight_page_max_ms"] = max(times) * 1000
    print(json.dumps(results, indent=1, ensure_ascii=False))
    return results


if __name__ == "__main__":
    main()
