"""python -m modeling.maam {train,predict,weights,evaluate,ablation} (PRODUCT.md §6)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


from .lexicon import Lexicon
from .taxonomy import DIMENSIONS


def _progress(stage: str, current: int, total: int) -> None:
    print(f"\r{stage}: {current}/{total}", end="", file=sys.stderr, flush=True)
    if current >= total:
        print(file=sys.stderr)


def _lexicon(path: str | None) -> Lexicon:
    return Lexicon.from_file(path) if path else Lexicon.default()


FUSION_OPTIONS = ("backbone", "prior_mode", "decode", "myopia_mode", "fusion_order", "cis", "folds", "min_gain",
                  "myopia_gate", "fusion_tuning")


def _config(args, **fixed):
    """A TrainConfig from --preset (default "paper") with any option given on the command line on top."""
    from .train import preset_config

    chosen = {k: getattr(args, k) for k in FUSION_OPTIONS if getattr(args, k, None) is not None}
    return preset_config(args.preset, **{**chosen, **fixed})


def _add_fusion_options(parser) -> None:
    from .astigmatism import PRIOR_MODES
    from .metrics import DECODINGS
    from .train import FUSION_TUNINGS, MYOPIA_MODES, PRESETS

    parser.add_argument("--preset", choices=sorted(PRESETS), default="paper",
                        help="paper (the paper's reading) or best-offline (what the app's new runs use)")
    parser.add_argument("--backbone", help="char-ngram, use-m3, hybrid, use-m3-ft (offline; use-m3-ft fine-tunes USE-m3 in torch, CUDA when present), or a transformers model name / local path")
    parser.add_argument("--prior-mode", dest="prior_mode", choices=PRIOR_MODES,
                        help="raw (paper), balanced or log-shift (extensions: q_z / pi)")
    parser.add_argument("--decode", choices=DECODINGS, help="argmax (paper) or ordinal (extension)")
    parser.add_argument("--myopia-mode", dest="myopia_mode", choices=MYOPIA_MODES,
                        help="weights (paper) or filter (extension: level-5 filtering only)")
    parser.add_argument("--fusion-order", dest="fusion_order", help="e.g. I>S>C, C>S, or best")
    parser.add_argument("--cis", help="C-I-S inferer: use-m3 or cues (offline), or st:MODEL_OR_PATH")
    parser.add_argument("--folds", type=int, help="cross-fitting folds for the alpha search (default 5)")
    parser.add_argument("--fusion-tuning", dest="fusion_tuning", choices=FUSION_TUNINGS,
                        help="where full MAAM tunes alpha: crossfit (default; folds + 1 fits per dimension) or dev "
                             "(extension, fine-tuned backbones: the dev split the fine-tune early-stopped on; one fit)")
    parser.add_argument("--myopia-gate", dest="myopia_gate", action="store_const", const=True,
                        help="extension: full MAAM keeps Myopia per dimension only where it wins on cross-fitted "
                             "predictions (else plain inputs, as alpha = 1 is 'no prior')")
    parser.add_argument("--min-gain", dest="min_gain", type=float,
                        help="extension: keep alpha = 1 unless fusing gains this much held-out macro-F1 (paper: 0)")


def cmd_weights(args) -> int:
    from .myopia import Myopia
    from .parsing import ParserUnavailable, make_parser

    lexicon = _lexicon(args.lexicon)
    try:
        parser = make_parser(args.parser, keyword_terms=lexicon.terms)
    except ParserUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = Myopia(parser=parser, lexicon=lexicon).weigh(args.text, args.dimension)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=1))
    else:
        print(f"{'token':<10}{'subcategory':<22}{'lvl':>4}{'kw':>4}{'weight':>8}")
        for t in result.tokens:
            mark = "" if t.kept else "  (dropped)"
            print(f"{t.text:<10}{t.subcategory:<22}{t.level:>4}{int(t.keyword):>4}{t.weight:>8.3f}{mark}")
    return 0


def cmd_train(args) -> int:
    from .data import read_chlgbt_csv
    from .train import train

    corpus = read_chlgbt_csv(args.data)
    if not corpus.labels:
        print("error: the training file has no label columns", file=sys.stderr)
        return 2
    params = json.loads(args.params) if args.params else {}
    chosen = {"variant": args.variant} if args.variant else {}  # else the preset's variant (or full)
    config = _config(args, **chosen, dimensions=tuple(args.dimensions), backbone_params=params,
                     seed=args.seed, fusion_mode=args.fusion_mode, parser=args.parser, device=args.device)
    model = train(corpus.texts, corpus.labels, config, _lexicon(args.lexicon), progress=_progress,
                  data_hash=corpus.digest())
    checksum = model.save(args.out)
    print(json.dumps({"out": str(args.out), "checksum": checksum, **{d: (dm.fusion.to_dict() if dm.fusion else None)
                                                                   for d, dm in model.dims.items()}}, indent=1))
    return 0


def cmd_predict(args) -> int:
    from .data import read_chlgbt_csv, write_predictions_csv
    from .train import MAAMModel

    model = MAAMModel.load(args.model, device=args.device)
    corpus = read_chlgbt_csv(args.data)
    predictions = model.predict(corpus.texts, progress=_progress)
    out = Path(args.out)
    write_predictions_csv(out, corpus.texts, predictions)
    print(f"wrote {len(corpus.texts)} predictions to {out}", file=sys.stderr)
    return 0


def cmd_evaluate(args) -> int:
    from .data import read_chlgbt_csv
    from .train import MAAMModel, evaluate

    model = MAAMModel.load(args.model, device=args.device)
    corpus = read_chlgbt_csv(args.data)
    print(json.dumps(evaluate(model, corpus.texts, corpus.labels, progress=_progress), indent=1))
    return 0


def _parse_option(spec: str) -> dict:
    """'prior_mode=log-shift,decode=ordinal' -> {'prior_mode': 'log-shift', 'decode': 'ordinal'}."""
    out = {}
    for part in spec.split(","):
        key, _, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if key not in FUSION_OPTIONS or not value:
            raise ValueError(f"bad option {part!r}: use KEY=VALUE with KEY one of {', '.join(FUSION_OPTIONS)}")
        out[key] = (int(value) if key == "folds" else float(value) if key == "min_gain" else
                    value.strip().lower() in ("1", "true", "yes") if key == "myopia_gate" else value.strip())
    return out


def _hand_tagged(path: str | None) -> list[tuple[str, dict]]:
    """Hand-set C-I-S tags for the inferer agreement report: a CSV with columns text,C,I,S (none when
    no file is given). The model core reads files only; it never sets up the web app."""
    if not path:
        return []
    import csv

    with open(path, encoding="utf-8-sig", newline="") as fh:
        return [(row["text"], {axis: row[axis] for axis in "CIS"}) for row in csv.DictReader(fh)]


def cmd_ablation(args) -> int:
    from dataclasses import replace

    from .data import read_chlgbt_csv, read_cold_csv
    from .experiments import (
        PAPER_TABLE2,
        ablation_markdown,
        cis_report,
        cis_report_markdown,
        cold_markdown,
        options_markdown,
        per_dimension_calibration_markdown,
        run_ablation,
    )

    seeds = list(range(args.seeds))
    log = (lambda msg: print(msg, file=sys.stderr)) if not args.quiet else (lambda msg: None)
    corpus = read_chlgbt_csv(args.data)
    started = time.time()
    base = _config(args)
    backbones = args.backbones or [base.backbone]
    options = [_parse_option(o) for o in (args.options or [])]
    results = {b: run_ablation(corpus, seeds, config=replace(base, backbone=b), log=log) for b in backbones}
    result = results[backbones[0]]
    settings = (f"prior mode `{base.prior_mode}`, decoding `{base.decode}`, Myopia mode `{base.myopia_mode}`, "
                f"C-I-S states from the `{base.cis}` inferer, fusion order {base.fusion_order} with a unified alpha")
    parts = [
        "# MAAM ablation results",
        "",
        f"Generated by `make eval` (`python -m modeling.maam ablation`) on {time.strftime('%Y-%m-%d')}.",
        f"Data: `{corpus.name}` ({len(corpus.texts)} posts). Protocol (docs/maam_offline.md): {result.n_train} "
        "training posts, the rest test; every variant's backbone is trained on all training posts; alpha is "
        f"searched on {base.folds}-fold cross-fitted out-of-fold predictions, each fold's priors counted "
        f"without it; {len(seeds)} seeds (each seed = a new split and new models). Settings: {settings}. "
        "Mean ± std over seeds; * = better than the same backbone's baseline with p < 0.05 (paired t-test "
        "over seeds). BS and ECE are averaged over the three dimensions (ECE: 15 equal-width bins, top label).",
        "",
        *[line for b, r in results.items() for line in (
            f"## ChLGBT sample (Table 2 shape), backbone `{b}`",
            "",
            ablation_markdown(r, b),
            "",
            "Per-dimension calibration:",
            "",
            per_dimension_calibration_markdown(r),
            "",
            f"Wall time: {r.seconds:.1f} s.",
            "")],
        "Paper (MacBERT on the full 8,120 posts), macro-F1 Exp / Imp / Emo, BS, ECE:",
        "",
        "| Variant | Exp. F1 | Imp. F1 | Emo. F1 | BS | ECE |",
        "|---|---|---|---|---|---|",
        *[f"| {v} | " + " | ".join(f"{x:.3f}" for x in vals) + " |" for v, vals in PAPER_TABLE2.items()],
        "",
        "Retained-character coverage after level-5 filtering: " + ", ".join(
            f"{d} {100 * c:.2f}%" for d, c in result.coverage.items()) + " (paper: 88.57% / 87.45% / 76.36%).",
    ]
    def flush(final: bool = False) -> None:
        """Write what is measured so far, so a late failure loses nothing already computed."""
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            tail = [] if final else ["", "_(incomplete: the evaluation is still running or stopped here)_", ""]
            Path(args.out).write_text("\n".join(parts + tail), encoding="utf-8")

    flush()
    if options:
        backbone = args.options_backbone or backbones[-1]
        option_seeds = list(range(args.options_seeds or args.seeds))
        option_results = {}
        for option in options:
            label = ", ".join(f"{k}={v}" for k, v in option.items())
            option_results[label] = run_ablation(corpus, option_seeds, config=replace(base, backbone=backbone, **option),
                                                 log=log)
        reference = (results[backbone] if backbone in results and option_seeds == seeds else
                     run_ablation(corpus, option_seeds, config=replace(base, backbone=backbone), log=log))
        parts += ["", f"## Options (extensions), backbone `{backbone}`, {len(option_seeds)} seeds", "",
                  "Each row is a whole ablation with the settings changed from the paper's reading; F1 of the "
                  "baseline and of MAAM (Full) per dimension, the paired difference's p-value (* = Full better "
                  "with p < 0.05), and BS / ECE (mean over dimensions) of both.", "",
                  options_markdown({"paper reading": reference, **option_results})]
    flush()
    if args.cold:
        cold_results = {}
        for topic in ("region", "race"):
            cold_train = read_cold_csv(Path(args.cold) / "train.csv", topic=topic)
            cold_dev = read_cold_csv(Path(args.cold) / "dev.csv", topic=topic)
            cold_results[topic] = run_ablation(cold_train, seeds, n_train=min(args.cold_train, len(cold_train.texts)),
                                               config=replace(base, backbone=args.cold_backbone or backbones[0]),
                                               test=cold_dev, log=log)
        parts += [
            "",
            "## COLD cross-domain (binary; Region and Race topics)",
            "",
            f"Trained on a seeded sample of {args.cold_train} posts of COLD's train split per topic (all of it "
            "when smaller), reported on all of COLD's dev split for the topic (never on posts from the "
            f"training file); backbone `{args.cold_backbone or backbones[0]}`, same settings as above.",
            "",
            cold_markdown(cold_results),
            "",
            "Paper (MacBERT): Region F1 0.876 → 0.881, BS 0.124 → 0.091, ECE 0.119 → 0.071; "
            "Race F1 0.906 → 0.928, BS 0.074 → 0.057, ECE 0.076 → 0.054.",
        ]
    flush()
    hand = _hand_tagged(args.hand_tags)
    parts += ["", "## C-I-S inference", "", cis_report_markdown(cis_report(corpus, hand, seed=0), len(hand))]
    from .experiments import diagnostics_markdown, diagnostics_run

    diag = diagnostics_run(corpus)
    parts += ["", "## Myopia diagnostics (seed 0 split)", "",
              "Paper: coverage 88.57% / 87.45% / 76.36%, MAD 0.401, D_high 0.0721 < D_low 0.1754 (MacBERT states). "
              "Here a token's state is the class-score vector the trained n-gram baseline gives the token alone "
              "(d = 5), so the magnitudes are not comparable; the direction D_high < D_low is.", "",
              diagnostics_markdown(diag)]
    parts += ["", f"Total wall time: {time.time() - started:.1f} s.", ""]
    if args.out:
        flush(final=True)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print("\n".join(parts))
    return 0


def cmd_protocols(args) -> int:
    from .data import read_chlgbt_csv
    from .protocols import parse_candidate, protocols_markdown, run_protocols
    from .topics import TopicMap

    corpus = read_chlgbt_csv(args.data)
    base = _config(args)
    if args.params:
        base.backbone_params = json.loads(args.params)
    candidates = [parse_candidate(spec, base, _parse_option) for spec in args.candidates]
    names = [c.name for c in candidates]
    reference = args.reference or names[0]
    if reference not in names:
        raise ValueError(f"--reference {reference!r} is not one of the candidates {names}")
    topics = TopicMap.from_file(args.topics) if args.topics else TopicMap.default()
    log = (lambda msg: print(msg, file=sys.stderr, flush=True)) if not args.quiet else (lambda msg: None)
    started = time.time()
    result = run_protocols(corpus.texts, corpus.labels, candidates, seeds=list(range(args.seeds)), folds=args.kfold,
                           topics=topics, min_topic_posts=args.min_topic_posts, protocols=args.protocols, log=log)
    settings = "; ".join(f"`{c.name}`: variant {c.config.variant}, backbone {c.config.backbone}, prior mode "
                         f"{c.config.prior_mode}, Myopia mode {c.config.myopia_mode}, C-I-S `{c.config.cis}`"
                         + (", stacking + offsets chosen per dimension" if c.config.stack or c.config.offsets else "")
                         + (", alpha tuned on the fine-tune's dev split" if c.config.fusion_tuning == "dev" else "")
                         for c in candidates)
    title = ["# Evaluation on the shared file (issue 23 protocols)", ""] if not args.append else [
        "---", "", "# " + (args.label or "More candidates"), ""]
    parts = [*title,
             f"Generated by `python -m modeling.maam protocols` on {time.strftime('%Y-%m-%d')}"
             + (f" - **{args.label}**" if args.label else "") + ".",
             f"Data: `{corpus.name}` ({len(corpus.texts)} posts). Candidates: {settings}. Macro-F1 (zero_division=0) "
             f"per dimension and their mean; mean ± std over seeds / folds; p: paired t-test of the per-split mean "
             f"macro-F1 against `{reference}`. Topic map: {args.topics or 'the default (modeling/maam/topics.py)'}.",
             "", protocols_markdown(result, reference),
             "Wall time per candidate (s): " + ", ".join(f"{k} {v:.0f}" for k, v in result["seconds"].items())
             + f"; total {time.time() - started:.0f} s.", ""]
    text = "\n".join(parts)
    if args.out:
        before = Path(args.out).read_text(encoding="utf-8") + "\n" if args.append and Path(args.out).exists() else ""
        Path(args.out).write_text(before + text, encoding="utf-8")
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m modeling.maam", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    w = sub.add_parser("weights", help="Myopia token weights for one text")
    w.add_argument("--text", required=True)
    w.add_argument("--dimension", choices=DIMENSIONS, default="explicit")
    w.add_argument("--json", action="store_true")
    w.add_argument("--parser", default="jieba", help="jieba (offline default) or hanlp[:MODEL_OR_PATH]")
    w.add_argument("--lexicon", help="lexicon file (one term per line, or JSON)")
    w.set_defaults(func=cmd_weights)

    t = sub.add_parser("train", help="train a MAAM model on a labelled CSV")
    t.add_argument("--data", required=True)
    t.add_argument("--variant", choices=["baseline", "astigmatism", "myopia", "full"],
                   help="default: the preset's (best-offline chooses its own), else full")
    _add_fusion_options(t)
    t.add_argument("--params", help="backbone hyperparameters as JSON, e.g. '{\"epochs\": 3}'")
    t.add_argument("--dimensions", nargs="+", choices=DIMENSIONS, default=list(DIMENSIONS))
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--fusion-mode", choices=["unified", "per-class"], default="unified")
    t.add_argument("--parser", default="jieba")
    t.add_argument("--lexicon")
    t.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    t.add_argument("--out", required=True)
    t.set_defaults(func=cmd_train)

    pr = sub.add_parser("predict", help="predict labels and probabilities for a CSV")
    pr.add_argument("--model", required=True)
    pr.add_argument("--data", required=True)
    pr.add_argument("--out", required=True)
    pr.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    pr.set_defaults(func=cmd_predict)

    e = sub.add_parser("evaluate", help="metrics of a trained model on a labelled CSV")
    e.add_argument("--model", required=True)
    e.add_argument("--data", required=True)
    e.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    e.set_defaults(func=cmd_evaluate)

    a = sub.add_parser("ablation", help="the paper's ablation table (and COLD) -> Markdown")
    a.add_argument("--data", required=True)
    a.add_argument("--seeds", type=int, default=5)
    _add_fusion_options(a)
    a.add_argument("--backbones", nargs="+", help="one table per backbone, e.g. char-ngram use-m3 hybrid")
    a.add_argument("--options", nargs="+", metavar="KEY=VALUE[,KEY=VALUE]",
                   help="extra ablations, one per setting, e.g. prior_mode=log-shift decode=ordinal")
    a.add_argument("--options-backbone", help="backbone for --options (default: the last of --backbones)")
    a.add_argument("--options-seeds", type=int, help="seeds for --options (default: --seeds)")
    a.add_argument("--cold", help="directory with COLD train.csv and dev.csv")
    a.add_argument("--hand-tags", help="CSV text,C,I,S of hand-set C-I-S tags for the inferer agreement report")
    a.add_argument("--cold-train", type=int, default=2000, help="training posts sampled per topic and seed")
    a.add_argument("--cold-backbone", help="backbone for COLD (default: the first of --backbones)")
    a.add_argument("--out")
    a.add_argument("--quiet", action="store_true")
    a.set_defaults(func=cmd_ablation)

    pc = sub.add_parser("protocols", help="paper protocol, stratified k-fold, per topic, leave-one-topic-out -> Markdown")
    pc.add_argument("--data", required=True)
    _add_fusion_options(pc)
    pc.add_argument("--candidates", nargs="+", default=["char-ngram:baseline", "hybrid:baseline", "hybrid:full",
                                                        "preset:best-offline"],
                    help="BACKBONE:VARIANT (settings of --preset), BACKBONE:VARIANT:KEY=VALUE[,KEY=VALUE] "
                         "(e.g. use-m3-ft:full:fusion_tuning=dev) or preset:NAME")
    pc.add_argument("--reference", help="candidate the others are tested against (default: the first)")
    pc.add_argument("--params", help="backbone hyperparameters as JSON for BACKBONE:VARIANT candidates")
    pc.add_argument("--protocols", nargs="+", choices=["paper", "kfold", "loto"], default=["paper", "kfold", "loto"])
    pc.add_argument("--seeds", type=int, default=3, help="seeds of the paper's protocol")
    pc.add_argument("--kfold", type=int, default=5, help="folds of the stratified k-fold protocol "
                    "(--folds is the cross-fitting folds of the alpha search)")
    pc.add_argument("--topics", help="topic keyword map (JSON, docs/topics.md); default: the built-in map")
    pc.add_argument("--min-topic-posts", type=int, default=100, help="leave-one-topic-out only for topics this large")
    pc.add_argument("--label", help="a note printed under the title, e.g. 'reduced configuration'")
    pc.add_argument("--out")
    pc.add_argument("--json", help="also write the raw per-split scores here")
    pc.add_argument("--append", action="store_true", help="append to --out (a second set of candidates)")
    pc.add_argument("--quiet", action="store_true")
    pc.set_defaults(func=cmd_protocols)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
