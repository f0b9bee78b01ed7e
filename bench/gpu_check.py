"""`make gpu-check`: the GPU recipe end to end without a download. Builds a randomly initialised
character-level BERT, writes a generated labelled set, then trains and predicts through the CLI
(`python -m modeling.maam train/predict --backbone DIR --device auto`) and through the Celery
training and scoring tasks (eager, on a throw-away SQLite database), on CUDA when torch sees a GPU
and on the CPU otherwise, and prints the timings as Markdown (docs/gpu_check.md keeps a run).

    python bench/gpu_check.py [--posts 1000] [--epochs 3] [--size auto|base|small] [--out FILE]

`--size auto` is BERT-base shape (12 x 768) on CUDA and a small one (4 x 256) on the CPU, so the
whole check stays under five minutes either way.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POS = ["支持平等", "尊重他们", "祝福幸福", "理解包容", "加油勇敢", "爱就是爱"]
NEG = ["真恶心", "变态滚开", "有病要治", "丢人现眼", "不正常的人", "别来沾边"]
MID = ["随便说说", "不太了解", "看新闻说", "有人讨论", "今天热搜"]


def generated_csv(path: Path, n: int, seed: int = 0) -> None:
    """Posts whose labels follow their words (plus noise), written by this project."""
    rng = random.Random(seed)
    lines = ["Sentences,Explicit,Implicit,Emotional"]
    for i in range(n):
        level = rng.choice([1, 1, 1, 2, 2, 3, 3, 4, 5])
        words = POS if level <= 2 else MID if level == 3 else NEG
        text = f"{rng.choice(words)}{'，' + rng.choice(MID) if rng.random() < 0.5 else ''}{'！' * (level - 1)}第{i}条{rng.randint(0, 99999)}"
        noisy = lambda v: max(1, min(5, v + rng.choice([-1, 0, 0, 0, 1])))  # noqa: E731
        lines.append(f"{text},{level},{noisy(level)},{noisy(level)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_bert(directory: Path, texts: list[str], size: str) -> dict:
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    chars = sorted({c for t in texts for c in t})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(directory / "vocab.txt"), tokenize_chinese_chars=True)
    shape = {"base": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072),
             "small": dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024)}[size]
    config = BertConfig(vocab_size=len(vocab), max_position_embeddings=128, **shape)
    torch.manual_seed(0)
    model = BertModel(config)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return {"size": size, **shape, "parameters_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 1)}


def timed(cmd: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-3000:]}")
    return time.perf_counter() - started


def celery_check(work: Path, data: Path, bert: Path, epochs: int) -> dict:
    """Launch a training run and a scoring job through the services; eager Celery runs the tasks."""
    os.environ.update({"DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.local", "CELERY_TASK_ALWAYS_EAGER": "1",
                       "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}", "MEDIA_ROOT": str(work / "media"),
                       "ARTIFACT_ROOT": str(work / "artifacts"), "SECRET_KEY_FILE": str(work / "secret_key")})
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from annotation.importing.services import import_posts
    from annotation.releases.services import release_publish
    from modeling import services
    from modeling.models import ScoringJob, TrainingRun

    import_posts(data.read_bytes(), with_labels=True)
    release = release_publish(bootstrap=0, split="stratified")
    started = time.perf_counter()
    (run,) = services.training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone=str(bert), device="auto",
                                          hyperparameters={"epochs": epochs, "batch_size": 32, "lr": 1e-4},
                                          preset="paper")
    run = TrainingRun.objects.get(pk=run.pk)
    train_s = time.perf_counter() - started
    if run.status != "succeeded":
        sys.exit(f"training task failed: {run.error}")
    started = time.perf_counter()
    job = services.scoring_job_launch(created_by=None, run_id=run.pk)
    job = ScoringJob.objects.get(pk=job.pk)
    score_s = time.perf_counter() - started
    if job.status != "succeeded":
        sys.exit(f"scoring task failed: {job.error}")
    return {"train_s": round(train_s, 1), "score_s": round(score_s, 1), "scored": job.scored,
            "device_used": run.device_used, "test_macro_f1": round(run.metrics["test"]["explicit"]["after"]["macro_f1"], 3),
            "n_train": run.metrics["n_train"], "n_test": run.metrics["n_test"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--size", choices=["auto", "base", "small"], default="auto")
    parser.add_argument("--out", help="also write the Markdown report here")
    args = parser.parse_args()
    import torch

    cuda = torch.cuda.is_available()
    size = args.size if args.size != "auto" else ("base" if cuda else "small")
    device = torch.cuda.get_device_name(0) if cuda else f"CPU ({os.cpu_count()} cores, {torch.get_num_threads()} threads)"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        work = Path(tmp)
        data = work / "train.csv"
        generated_csv(data, args.posts)
        from modeling.maam.data import read_chlgbt_csv

        texts = read_chlgbt_csv(data).texts
        bert = build_bert(work / "bert", texts, size)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        params = json.dumps({"epochs": args.epochs, "batch_size": 32, "lr": 1e-4})
        base = [sys.executable, "-m", "modeling.maam", "train", "--data", str(data), "--backbone", str(work / "bert"),
                "--device", "auto", "--params", params, "--cis", "cues"]
        cli = {
            "train baseline, explicit": timed(base + ["--variant", "baseline", "--dimensions", "explicit",
                                                      "--out", str(work / "m-base")], env),
            "train full MAAM, explicit (5-fold cross-fitting + refit)": timed(
                base + ["--variant", "full", "--dimensions", "explicit", "--out", str(work / "m-full")], env),
            "predict (full MAAM)": timed([sys.executable, "-m", "modeling.maam", "predict", "--model",
                                          str(work / "m-full"), "--data", str(data), "--out", str(work / "p.csv")], env),
        }
        history = json.loads((work / "m-full" / "explicit" / "backbone.json").read_text())["history"]
        celery = celery_check(work, data, work / "bert", args.epochs)
    total = time.perf_counter() - started
    lines = [
        "# make gpu-check", "",
        f"Run on {time.strftime('%Y-%m-%d %H:%M')} UTC by `make gpu-check` (`bench/gpu_check.py`).", "",
        f"- device: **{'CUDA' if cuda else 'CPU'}** - {device}; torch {torch.__version__}, Python {platform.python_version()}",
        f"- encoder: randomly initialised character-level BERT ({bert['size']}: {bert['num_hidden_layers']} layers x "
        f"{bert['hidden_size']}, {bert['parameters_m']} M parameters), no download",
        f"- data: {args.posts} generated posts; {args.epochs} epochs, batch 32, lr 1e-4 (head 1e-3), warmup 10% + "
        "linear decay, clipping at 1.0, 10% stratified dev split with early stopping (patience 2), "
        f"autocast {history.get('autocast', 'none')}", "",
        "| Step | Wall time (s) |", "|---|---|",
        *[f"| CLI: {k} | {v:.1f} |" for k, v in cli.items()],
        f"| Celery task (eager): training run, baseline, explicit, stratified 80/20 release | {celery['train_s']:.1f} |",
        f"| Celery task (eager): scoring job, {celery['scored']} posts | {celery['score_s']:.1f} |",
        f"| **Total (including building the encoder and the database)** | **{total:.1f}** |", "",
        f"Training run through the task: device used `{celery['device_used']}`, {celery['n_train']} train / "
        f"{celery['n_test']} test posts, test macro-F1 {celery['test_macro_f1']} (generated data: a smoke figure, "
        "not a result).",
        f"Last CLI fine-tune's history: {json.dumps(history)}", "",
    ]
    report = "\n".join(lines)
    print(report)
    if args.out:
        Path(args.out).write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
