"""The paper's ablation (Table 2 shape) and cross-domain (COLD table shape) protocols.

Per seed: a seeded 1,000 / rest split (COLD: its train split for training, its dev split for
test). Per dimension one plain and one Myopia-weighted backbone, each trained on all training
posts; alpha searched on cross-fitted out-of-fold predictions with fold-excluded priors
(train.fit_dimension); the four variants read off those two models, so every variant sees the
same posts, split and seed."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .astigmatism import cascade, make_inferer
from .backbones import make_backbone
from .data import Corpus
from .lexicon import Lexicon
from .metrics import all_metrics, paired_test
from .myopia import Myopia
from .parsing import make_parser
from .train import VARIANTS, Featurizer, TrainConfig, fit_dimension, split_indices

METRICS = ("accuracy", "macro_f1", "brier", "ece")


@dataclass
class AblationResult:
    corpus: str
    dimensions: tuple[str, ...]
    seeds: list[int]
    n_train: int
    # variant -> dimension -> metric -> per-seed values
    scores: dict[str, dict[str, dict[str, list[float]]]] = field(default_factory=dict)
    seconds: float = 0.0
    coverage: dict[str, float] = field(default_factory=dict)

    def mean_std(self, variant: str, dim: str, metric: str) -> tuple[float, float]:
        values = np.asarray(self.scores[variant][dim][metric])
        return float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else 0.0

    def significance(self, variant: str, dim: str, metric: str = "macro_f1") -> dict:
        return paired_test(self.scores[variant][dim][metric], self.scores["baseline"][dim][metric])


def run_ablation(corpus: Corpus, seeds: Sequence[int], n_train: int = 1000, config: TrainConfig | None = None,
                 lexicon: Lexicon | None = None, test: Corpus | None = None, log=print) -> AblationResult:
    """`config` carries the backbone and the fusion settings (prior mode, decoding, Myopia mode,
    folds, order); its seed is replaced per seed. With `test`, every seed trains on a seeded
    sample of n_train posts of `corpus` and tests on all of `test` (COLD's train -> dev)."""
    started = time.time()
    base = config or TrainConfig()
    base.validate()
    dims = tuple(corpus.labels)
    lexicon = lexicon or Lexicon.default()
    myopia = Myopia(parser=make_parser("jieba", keyword_terms=lexicon.terms), lexicon=lexicon, config=base.myopia)
    featurizer = Featurizer(myopia, base.myopia_mode)
    texts = list(corpus.texts) + (list(test.texts) if test else [])
    plain = featurizer.inputs(texts, dims, use_myopia=False)
    weighted = featurizer.inputs(texts, dims, use_myopia=True)
    coverage = {}
    for d in dims:
        kept = sum(sum(1 for v in w.char_weights if v > 0) for w in weighted[d])
        coverage[d] = kept / max(1, sum(len(t) for t in texts))
    labels = {d: np.asarray(list(corpus.labels[d]) + (list(test.labels[d]) if test else []), dtype=int) for d in dims}
    result = AblationResult(corpus.name, dims, list(seeds), n_train, coverage=coverage)
    result.scores = {v: {d: {m: [] for m in METRICS} for d in dims} for v in VARIANTS}
    for seed in seeds:
        if test is None:
            train_idx, test_idx = split_indices(len(corpus.texts), seed, n_train)
        else:
            train_idx = np.sort(np.random.default_rng(seed).permutation(len(corpus.texts))[:n_train])
            test_idx = np.arange(len(corpus.texts), len(texts))
        cfg = TrainConfig(**{**base.__dict__, "seed": seed, "dimensions": dims, "n_classes": corpus.n_classes})
        inferer = make_inferer(base.cis)
        fold_states = None
        if hasattr(inferer, "fit"):  # thresholds tuned on this seed's training posts only
            train_labels = {d: labels[d][train_idx] for d in dims}
            inferer.fit([texts[i] for i in train_idx], train_labels)
            if hasattr(inferer, "states_fitted_on"):  # as train(): cross-fitted thresholds for alpha tuning

                def fold_states(rows, inferer=inferer, train_labels=train_labels):
                    return inferer.states_fitted_on(rows, train_labels)
        states = inferer.infer_many(texts)
        train_states = [states[i] for i in train_idx]
        test_states = [states[i] for i in test_idx]
        for d in dims:
            y = labels[d]
            for use_myopia, inputs in ((False, plain[d]), (True, weighted[d])):
                dm = fit_dimension([inputs[i] for i in train_idx], y[train_idx], train_states, cfg, full_table=False,
                                   fold_states=fold_states)
                p_test = dm.backbone.predict_proba([inputs[i] for i in test_idx])
                p_cal = cascade(p_test, dm.priors, test_states, dm.fusion.order, dm.fusion.alphas,
                                dm.fusion.prior_mode)[-1]
                for variant, (vm, va) in VARIANTS.items():
                    if vm != use_myopia:
                        continue
                    metrics = all_metrics(y[test_idx], p_cal if va else p_test, cfg.decode)
                    for m in METRICS:
                        result.scores[variant][d][m].append(metrics[m])
            log(f"seed {seed} {d}: " + ", ".join(
                f"{v} F1 {result.scores[v][d]['macro_f1'][-1]:.3f}" for v in VARIANTS))
    result.seconds = time.time() - started
    return result


def diagnostics_run(corpus: Corpus, seed: int = 0, n_train: int = 1000, backbone: str = "char-ngram",
                    lexicon: Lexicon | None = None, retentions=(1.0, 0.7, 0.5, 0.3)) -> dict:
    """Coverage, MAD / D_high / D_low and the deletion and masking curves on one split.

    Token states for the offline backbone: a token's state is the vector of class scores the
    trained baseline gives the token's text on its own (d = number of classes); with a
    transformers backbone the same functions take the encoder's hidden states."""
    from .backbones import WeightedText
    from .diagnostics import corpus_representation_metrics, mask_identity, random_deletion, retained_coverage

    lexicon = lexicon or Lexicon.default()
    myopia = Myopia(parser=make_parser("jieba", keyword_terms=lexicon.terms), lexicon=lexicon)
    dims = tuple(corpus.labels)
    results = {d: [] for d in dims}
    tokens_of = []
    for text in corpus.texts:
        weighed = myopia.weigh_all(text)
        tokens_of.append([t.text for t in weighed[dims[0]].tokens])
        for d in dims:
            results[d].append(weighed[d])
    train_idx, test_idx = split_indices(len(corpus.texts), seed, n_train)
    out = {"coverage": {d: retained_coverage(results[d]) for d in dims}, "representation": {}, "deletion": {},
           "masking": {}}
    rng = np.random.default_rng(seed)
    for d in dims:
        y = np.asarray(corpus.labels[d], dtype=int)
        model = make_backbone(backbone, seed=seed, n_classes=corpus.n_classes)
        model.fit([WeightedText.plain(corpus.texts[i]) for i in train_idx], y[train_idx])
        cache: dict[str, np.ndarray] = {}

        def state_of(token: str, cache=cache, model=model) -> np.ndarray:
            if token not in cache:
                cache[token] = model.predict_proba([WeightedText.plain(token)])[0]
            return cache[token]

        out["representation"][d] = corpus_representation_metrics([results[d][i] for i in test_idx[:300]], state_of)
        curve = {}
        for retention in retentions:
            texts = [random_deletion(tokens_of[i], retention, rng) for i in test_idx]
            pred = model.predict_proba([WeightedText.plain(t) for t in texts]).argmax(axis=1) + 1
            curve[str(retention)] = float((pred == y[test_idx]).mean())
        out["deletion"][d] = curve
        masked = [mask_identity(tokens_of[i], lexicon) for i in test_idx]
        full = curve[str(retentions[0])]
        pred = model.predict_proba([WeightedText.plain(t) for t in masked]).argmax(axis=1) + 1
        out["masking"][d] = {"full": full, "masked": float((pred == y[test_idx]).mean())}
    return out


def diagnostics_markdown(diag: dict) -> str:
    dims = list(diag["coverage"])
    lines = ["| Dimension | Retained characters | MAD | D_high | D_low |", "|---|---|---|---|---|"]
    for d in dims:
        rep = diag["representation"][d]
        fmt = lambda v: "n/a" if v is None else f"{v:.4f}"  # noqa: E731
        lines.append(f"| {d} | {100 * diag['coverage'][d]:.2f}% | {fmt(rep['mad'])} | {fmt(rep['d_high'])} | {fmt(rep['d_low'])} |")
    retentions = list(next(iter(diag["deletion"].values())))
    lines += ["", "Random token deletion (accuracy of the baseline model, test split):", "",
              "| Retention | " + " | ".join(dims) + " |", "|---|" + "---|" * len(dims)]
    for r in retentions:
        lines.append(f"| {r} | " + " | ".join(f"{diag['deletion'][d][r]:.4f}" for d in dims) + " |")
    lines += ["", "Identity masking (anchors of K replaced by [IDENTITY]):", "",
              "| Dimension | Full context | Masked identity | Drop |", "|---|---|---|---|"]
    for d in dims:
        m = diag["masking"][d]
        lines.append(f"| {d} | {m['full']:.4f} | {m['masked']:.4f} | {m['full'] - m['masked']:.4f} |")
    return "\n".join(lines)


PAPER_TABLE2 = {  # MacBERT rows of the paper's Table 2: (Exp F1, Imp F1, Emo F1, BS, ECE)
    "baseline": (0.34, 0.32, 0.32, 0.737, 0.082),
    "astigmatism": (0.45, 0.44, 0.42, 0.686, 0.077),
    "myopia": (0.40, 0.37, 0.44, 0.675, 0.076),
    "full": (0.46, 0.45, 0.47, 0.622, 0.066),
}
VARIANT_LABELS = {"baseline": "Baseline", "astigmatism": "w/o Myopia (Astigmatism only)",
                  "myopia": "w/o Astigmatism (Myopia only)", "full": "MAAM (Full)"}


def _fmt(result: AblationResult, variant: str, dim: str, metric: str, mark: bool = False) -> str:
    mean, std = result.mean_std(variant, dim, metric)
    star = ""
    if mark and variant != "baseline":
        sig = result.significance(variant, dim, metric)
        better = sig["mean_diff"] > 0 if metric in ("accuracy", "macro_f1") else sig["mean_diff"] < 0
        star = "*" if better and sig["p"] < 0.05 else ""
    return f"{mean:.3f}{star}±{std:.3f}"


def ablation_markdown(result: AblationResult, backbone: str) -> str:
    dims = result.dimensions
    head = ["Variant"]
    for d in dims:
        head += [f"{d[:3].title()}. Acc", f"{d[:3].title()}. F1"]
    head += ["BS", "ECE"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v in VARIANTS:
        row = [VARIANT_LABELS[v]]
        for d in dims:
            row += [_fmt(result, v, d, "accuracy", True), _fmt(result, v, d, "macro_f1", True)]
        bs = np.mean([result.mean_std(v, d, "brier")[0] for d in dims])
        ec = np.mean([result.mean_std(v, d, "ece")[0] for d in dims])
        row += [f"{bs:.3f}", f"{ec:.3f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def per_dimension_calibration_markdown(result: AblationResult) -> str:
    lines = ["| Variant | " + " | ".join(f"{d} BS | {d} ECE" for d in result.dimensions) + " |",
             "|---|" + "---|---|" * len(result.dimensions)]
    for v in VARIANTS:
        cells = []
        for d in result.dimensions:
            cells += [f"{result.mean_std(v, d, 'brier')[0]:.3f}", f"{result.mean_std(v, d, 'ece')[0]:.3f}"]
        lines.append(f"| {VARIANT_LABELS[v]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cold_markdown(results: dict[str, AblationResult]) -> str:
    topics = list(results)
    head = ["Method"] + [f"{t.title()} {m}" for t in topics for m in ("Acc", "F1", "BS", "ECE")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v in VARIANTS:
        row = [VARIANT_LABELS[v]]
        for t in topics:
            r = results[t]
            row += [_fmt(r, v, "explicit", "accuracy", True), _fmt(r, v, "explicit", "macro_f1", True),
                    f"{r.mean_std(v, 'explicit', 'brier')[0]:.3f}", f"{r.mean_std(v, 'explicit', 'ece')[0]:.3f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def options_markdown(results: dict[str, AblationResult]) -> str:
    """One row per setting: baseline and MAAM (Full) macro-F1 per dimension with the paired p-value,
    and BS / ECE (averaged over dimensions) of both."""
    first = next(iter(results.values()))
    dims = first.dimensions
    head = ["Setting"] + [f"{d[:3].title()}. F1 base → full (p)" for d in dims] + ["BS base → full", "ECE base → full"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, r in results.items():
        row = [label]
        for d in dims:
            base, full = r.mean_std("baseline", d, "macro_f1")[0], r.mean_std("full", d, "macro_f1")[0]
            sig = r.significance("full", d)
            star = "*" if sig["mean_diff"] > 0 and sig["p"] < 0.05 else ""
            row.append(f"{base:.3f} → {full:.3f}{star} ({sig['p']:.3f})")
        for metric in ("brier", "ece"):
            b = np.mean([r.mean_std("baseline", d, metric)[0] for d in dims])
            f = np.mean([r.mean_std("full", d, metric)[0] for d in dims])
            row.append(f"{b:.3f} → {f:.3f}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def cis_report(corpus: Corpus, hand_tagged: Sequence[tuple[str, dict]] = (), seed: int = 0, n_train: int = 1000,
               inferers: Sequence[str] = ("cues", "use-m3")) -> dict:
    """Per inferer: agreement with hand-set tags, the share of posts routed to each axis's
    default state, and the mutual information I(Z; Y) (bits, bias-corrected) between inferred
    states and labels on the test split; tunable inferers are fitted on the training split."""
    from .astigmatism import AXES, DEFAULT_STATE, mutual_information

    train_idx, test_idx = split_indices(len(corpus.texts), seed, n_train)
    out = {}
    for name in inferers:
        inferer = make_inferer(name)
        fit = None
        if hasattr(inferer, "fit"):
            fit = inferer.fit([corpus.texts[i] for i in train_idx],
                              {d: [corpus.labels[d][i] for i in train_idx] for d in corpus.labels})
        states = inferer.infer_many([corpus.texts[i] for i in test_idx])
        entry = {"fit": fit, "default_share": {}, "mi": {}, "agreement": {}}
        for axis in AXES:
            column = [s.get(axis) for s in states]
            entry["default_share"][axis] = sum(c == DEFAULT_STATE[axis] for c in column) / max(1, len(column))
            entry["mi"][axis] = {d: mutual_information(column, [corpus.labels[d][i] for i in test_idx])
                                 for d in corpus.labels}
        if hand_tagged:
            inferred = inferer.infer_many([t for t, _ in hand_tagged])
            for axis in AXES:
                entry["agreement"][axis] = sum(s.get(axis) == tag[axis] for s, (_, tag) in zip(inferred, hand_tagged)) / len(hand_tagged)
        out[name] = entry
    return out


def cis_report_markdown(report: dict, n_hand: int) -> str:
    dims = list(next(iter(report.values()))["mi"]["C"])
    lines = [f"Agreement with {n_hand} hand-tagged demo posts, share of test posts routed to the axis default "
             "(General / Uncertain / Neutral), and I(Z; Y) in millibits (bias-corrected) between each axis's "
             "inferred state and each dimension's label on the seed-0 test split:", "",
             "| Inferer | Axis | Hand-tag agreement | Default share | " + " | ".join(f"MI {d}" for d in dims) + " |",
             "|---|---|---|---|" + "---|" * len(dims)]
    for name, entry in report.items():
        for axis in ("C", "I", "S"):
            agree = entry["agreement"].get(axis)
            lines.append(f"| {name} | {axis} | {'n/a' if agree is None else f'{100 * agree:.0f}%'} | "
                         f"{100 * entry['default_share'][axis]:.0f}% | "
                         + " | ".join(f"{1000 * entry['mi'][axis][d]:.1f}" for d in dims) + " |")
    fits = {name: e["fit"] for name, e in report.items() if e["fit"]}
    for name, fit in fits.items():
        lines += ["", f"`{name}` margin thresholds tuned on the training split: " + ", ".join(
            f"{axis} {v['threshold']:.4f} ({v['criterion']})" for axis, v in fit.items()) + "."]
    return "\n".join(lines)
