"""Training, prediction and the experimental protocol (1,000 training posts, the rest for test).

Fusion is tuned by cross-fitting (docs/maam_offline.md, "Protocol"): the training posts are cut
into k stratified folds; for each fold a backbone is fitted, the C-I-S inferer's margin thresholds
are chosen (EmbeddingInferer.states_fitted_on) and the C-I-S priors are counted on the other folds,
giving out-of-fold probabilities and prior rows for every training post; alpha and the fusion
order are searched on those; the backbone is then refitted, the thresholds chosen and the final
priors counted on all training posts. Every variant trains on the same posts."""
from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from . import __version__
from .astigmatism import (
    AXES,
    PRIOR_MODES,
    CISState,
    FusionResult,
    Priors,
    all_orders,
    apply_tags,
    build_priors,
    cascade,
    fusion_table,
    make_inferer,
    resolve_states,
    search_fusion,
)
from .backbones import LINEAR_BACKBONES, WeightedText, load_backbone, make_backbone
from .lexicon import Lexicon, LexiconEntry
from .metrics import DECODINGS, all_metrics, decode_labels, macro_f1, reliability_bins
from .myopia import Myopia, MyopiaConfig
from .parsing import make_parser
from .stacking import Stacker, apply_offsets, choose, log_features
from .taxonomy import DIMENSIONS
from .topics import TopicMap

VARIANTS = {  # variant -> (Myopia, Astigmatism)
    "baseline": (False, False),
    "astigmatism": (False, True),
    "myopia": (True, False),
    "full": (True, True),
}
PAPER_ORDER = ("I", "S", "C")  # the unified test-time order (paper §Fusion Strategy)
Progress = Callable[[str, int, int], None]
# Given the training posts that may tune the C-I-S inferer (indices), the states of every training
# post decided with thresholds chosen on those posts only (train: EmbeddingInferer.states_fitted_on).
FoldStates = Callable[[np.ndarray], Sequence[CISState]]


def _noop(stage: str, current: int, total: int) -> None:
    return None


FUSION_TUNINGS = ("crossfit", "dev")
MYOPIA_MODES = ("weights", "filter")  # "filter" (extension): level-5 filtering only, every kept token weighs 1


@dataclass
class TrainConfig:
    variant: str = "full"
    dimensions: tuple[str, ...] = DIMENSIONS
    backbone: str = "char-ngram"
    backbone_params: dict = field(default_factory=dict)
    seed: int = 0
    folds: int = 5  # cross-fitting folds for the alpha / order search
    # Where full MAAM tunes alpha / order: "crossfit" (folds + 1 fits per dimension) or, extension for
    # fine-tuned backbones (issue 23), "dev": the dev split the fine-tune carved and early-stopped on.
    fusion_tuning: str = "crossfit"
    fusion_order: str = "I>S>C"  # an explicit order, or "best" (the best cross-fitted order)
    fusion_mode: str = "unified"  # or "per-class"
    prior_mode: str = "raw"  # the paper's q_z; "balanced" / "log-shift" are extensions (astigmatism.PRIOR_MODES)
    decode: str = "argmax"  # or "ordinal" (extension: least expected ordinal distance)
    min_gain: float = 0.0  # extension: a fusion step keeps alpha = 1 unless it gains this much held-out macro-F1
    myopia_mode: str = "weights"  # or "filter" (extension)
    # Extension (issue 23): with Myopia and Astigmatism, each dimension chooses on its cross-fitted
    # predictions between Myopia-weighted and plain inputs, as the alpha search may choose "no
    # prior" (alpha = 1), so full MAAM can fall back to its baseline where Myopia does not help.
    myopia_gate: bool = False
    # Extensions for best-offline (issue 23, stacking.py; variants without Astigmatism): a stacker per
    # dimension over every dimension's cross-fitted log-probabilities (and those of `stack_backbones`,
    # an ensemble), and per-class decision offsets tuned for macro-F1 on held-out predictions.
    stack: bool = False
    stack_backbones: tuple[str, ...] = ()
    offsets: bool = False
    cis: str = "cues"
    parser: str = "jieba"
    device: str = "auto"
    n_classes: int = 5
    myopia: MyopiaConfig = field(default_factory=MyopiaConfig)

    def validate(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {sorted(VARIANTS)}, got {self.variant!r}")
        bad = [d for d in self.dimensions if d not in DIMENSIONS]
        if bad or not self.dimensions:
            raise ValueError(f"dimensions must be a non-empty subset of {DIMENSIONS}, got {self.dimensions}")
        if not 2 <= self.folds <= 20:
            raise ValueError(f"folds must be between 2 and 20, got {self.folds}")
        if self.fusion_tuning not in FUSION_TUNINGS:
            raise ValueError(f"fusion_tuning must be one of {FUSION_TUNINGS}, got {self.fusion_tuning!r}")
        if self.fusion_tuning == "dev" and self.backbone in (*LINEAR_BACKBONES, "ngram", "default"):
            raise ValueError(f"fusion_tuning 'dev' needs a fine-tuned backbone (use-m3-ft or a transformers "
                             f"encoder), which carves a dev split; {self.backbone!r} has none: use 'crossfit'")
        if self.fusion_mode not in ("unified", "per-class"):
            raise ValueError("fusion_mode must be 'unified' or 'per-class'")
        if self.prior_mode not in PRIOR_MODES:
            raise ValueError(f"prior_mode must be one of {PRIOR_MODES}, got {self.prior_mode!r}")
        if self.decode not in DECODINGS:
            raise ValueError(f"decode must be one of {DECODINGS}, got {self.decode!r}")
        if self.myopia_mode not in MYOPIA_MODES:
            raise ValueError(f"myopia_mode must be one of {MYOPIA_MODES}, got {self.myopia_mode!r}")
        if (self.stack or self.offsets or self.stack_backbones) and VARIANTS[self.variant][1]:
            raise ValueError("stacking and decision offsets apply to variants without Astigmatism (baseline, myopia)")
        if self.stack_backbones and not self.stack:
            raise ValueError("stack_backbones need stack = True")
        if not 0 <= self.min_gain < 1:
            raise ValueError(f"min_gain must be in [0, 1), got {self.min_gain}")
        if self.fusion_order != "best":
            order = parse_order(self.fusion_order)
            if order not in all_orders():
                raise ValueError(f"fusion order {self.fusion_order!r} is not one of the 15 C/I/S orders")

    def to_dict(self) -> dict:
        data = asdict(self)
        data["myopia"] = self.myopia.to_dict()
        data["dimensions"] = list(self.dimensions)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        data = dict(data)
        data.pop("dev_fraction", None)  # artefacts trained before cross-fitting carry it; it no longer applies
        data["myopia"] = MyopiaConfig.from_dict(data.get("myopia", {}))
        data["dimensions"] = tuple(data["dimensions"])
        data["stack_backbones"] = tuple(data.get("stack_backbones", ()))
        return cls(**data)


# Named settings. "paper" is the paper's reading (the Table 2 reproduction); "best-offline" is
# what new runs in the app use: the best configuration measured offline (docs/maam_offline.md).
PRESETS: dict[str, dict] = {
    "paper": {"backbone": "char-ngram", "prior_mode": "raw", "decode": "argmax", "myopia_mode": "weights",
              "fusion_order": "I>S>C", "cis": "use-m3"},
    # variant, stack, stack_backbones and offsets: what `train --preset best-offline` trains (issue 23,
    # docs/best_offline.md); runs launched in the app keep choosing their variant and read the fusion keys.
    "best-offline": {"backbone": "hybrid", "prior_mode": "log-shift", "decode": "argmax", "myopia_mode": "filter",
                     "fusion_order": "I>S>C", "cis": "use-m3", "min_gain": 0.01,
                     "variant": "baseline", "stack": True, "offsets": True},
}


def preset_config(name: str, **overrides) -> TrainConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}: one of {sorted(PRESETS)}")
    return TrainConfig(**{**PRESETS[name], **overrides})


def parse_order(spec: str) -> tuple[str, ...]:
    return tuple(part.strip().upper() for part in spec.replace("→", ">").replace("->", ">").split(">") if part.strip())


def split_indices(n: int, seed: int, n_train: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """The paper's protocol: a seeded permutation, the first n_train for training, the rest test."""
    if n_train >= n:
        raise ValueError(f"need more than {n_train} posts for a {n_train}/rest split, got {n}")
    order = np.random.default_rng(seed).permutation(n)
    return np.sort(order[:n_train]), np.sort(order[n_train:])


def fold_indices(labels: Sequence[int], seed: int, folds: int) -> list[np.ndarray]:
    """Stratified folds: each class's posts, in a seeded order, dealt round-robin to the folds
    (continuing where the previous class stopped), so every fold sees the rare classes."""
    y = np.asarray(labels)
    rng = np.random.default_rng(seed + 7919)
    assignment = np.empty(len(y), dtype=int)
    offset = 0
    for cls in np.unique(y):
        members = np.flatnonzero(y == cls)
        members = members[rng.permutation(len(members))]
        assignment[members] = (offset + np.arange(len(members))) % folds
        offset += len(members)
    return [np.flatnonzero(assignment == f) for f in range(folds)]


def held_out_prior_rows(y: np.ndarray, states: Sequence[CISState], fold_states: FoldStates | None,
                        rest: np.ndarray, held: np.ndarray, n_classes: int, prior_mode: str) -> dict[str, np.ndarray]:
    """The prior rows of the `held` posts, from priors counted on the `rest` only; with `fold_states`
    the states too are decided with C-I-S thresholds chosen on the `rest` (crossfit's folds, the dev split)."""
    fold = states if fold_states is None else fold_states(rest)
    priors = build_priors(y[rest], [fold[i] for i in rest], n_classes)
    held_states = [fold[i] for i in held]
    return {axis: priors.matrix(axis, held_states, prior_mode) for axis in AXES}


def crossfit(inputs: Sequence, y: np.ndarray, states: Sequence[CISState], make_model: Callable[[], object],
             folds: int, seed: int, n_classes: int, prior_mode: str = "raw",
             progress: Progress = _noop, fold_states: FoldStates | None = None
             ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Out-of-fold probabilities and prior rows for every training post: for each fold a backbone
    is fitted, and priors are counted, on the other folds only. With `fold_states` (a C-I-S
    inferer whose thresholds are tuned on labels) the states, of the held fold and of the posts its
    priors are counted on, are decided with thresholds chosen on the other folds too
    (`fold_states(rest)`); without it, `states` (fixed, label-free states) serve every fold. A post
    therefore never tunes alpha with a model, a prior or a state that has seen its label."""
    y = np.asarray(y, dtype=int)
    n = len(y)
    oof = np.zeros((n, n_classes))
    q = {axis: np.zeros((n, n_classes)) for axis in AXES}
    parts = fold_indices(y, seed, folds)
    for f, held in enumerate(parts):
        rest = np.setdiff1d(np.arange(n), held)
        model = make_model()
        model.fit([inputs[i] for i in rest], y[rest])
        oof[held] = model.predict_proba([inputs[i] for i in held])
        for axis, rows in held_out_prior_rows(y, states, fold_states, rest, held, n_classes, prior_mode).items():
            q[axis][held] = rows
        progress("cross-fitting", f + 1, len(parts))
    return oof, q


def tuning_predictions(inputs: Sequence, y: np.ndarray, states: Sequence[CISState], make_model: Callable[[], object],
                       config: TrainConfig, progress: Progress = _noop, fold_states: FoldStates | None = None):
    """(held-out probabilities, their labels, their prior rows, the fitted backbone or None) for the
    alpha / order search. "crossfit": every training post, out of fold (the backbone is refitted on
    all posts afterwards: None). "dev": one fine-tune; its dev split's probabilities at the kept
    epoch, with prior rows counted on the other posts only, their states decided with C-I-S
    thresholds chosen on the other posts only (`fold_states`, as in `crossfit`), so no dev post's
    prior row counts its own label, and the fine-tuned backbone is the final one (it never trained
    on the dev split). The dev labels did pick the kept epoch, so these probabilities are
    optimistic, which biases the search toward "no prior" (docs/maam_gpu.md)."""
    if config.fusion_tuning == "crossfit":
        oof, q = crossfit(inputs, y, states, make_model, config.folds, config.seed, config.n_classes,
                          config.prior_mode, progress, fold_states)
        return oof, y, q, None
    model = make_model()
    if not hasattr(model, "holdout"):
        raise ValueError(f"fusion_tuning 'dev' needs a fine-tuned backbone; {config.backbone!r} has no dev split")
    model.fit(list(inputs), y, progress)
    dev, p_dev = model.holdout(inputs)
    if len(dev) == 0:
        raise ValueError("fusion_tuning 'dev' found no dev split (dev_fraction 0, or under 50 training posts): "
                         "use fusion_tuning 'crossfit'")
    rest = np.setdiff1d(np.arange(len(y)), dev)
    q = held_out_prior_rows(y, states, fold_states, rest, dev, config.n_classes, config.prior_mode)
    return p_dev, y[dev], q, model


class Featurizer:
    """Parses each text once and gives every dimension its Myopia-weighted (or plain) input."""

    def __init__(self, myopia: Myopia | None, mode: str = "weights"):
        self.myopia = myopia
        self.mode = mode

    def inputs(self, texts: Sequence[str], dimensions: Sequence[str], use_myopia: bool,
               progress: Progress = _noop) -> dict[str, list[WeightedText]]:
        if not use_myopia or self.myopia is None:
            plain = [WeightedText.plain(t) for t in texts]
            return {d: plain for d in dimensions}
        out: dict[str, list[WeightedText]] = {d: [] for d in dimensions}
        total = len(texts)
        for i, text in enumerate(texts):
            results = self.myopia.weigh_all(text)
            for d in dimensions:
                item = WeightedText.from_myopia(results[d])
                out[d].append(item.filtered_only() if self.mode == "filter" else item)
            if i % 200 == 0 or i == total - 1:
                progress("weighting", i + 1, total)
        return out


@dataclass
class DimensionModel:
    backbone: object
    priors: Priors | None = None
    fusion: FusionResult | None = None
    fusion_table: list[FusionResult] = field(default_factory=list)
    use_myopia: bool = True  # False: the Myopia gate chose plain inputs for this dimension
    gate: dict | None = None  # the gate's cross-fitted scores (myopia / plain), when it ran
    extra: list = field(default_factory=list)  # the ensemble's other backbones (config.stack_backbones)
    stacker: Stacker | None = None
    offsets: np.ndarray | None = None


class MAAMModel:
    def __init__(self, config: TrainConfig, lexicon: Lexicon, dims: dict[str, DimensionModel], meta: dict | None = None):
        self.config = config
        self.lexicon = lexicon
        self.dims = dims
        self.meta = meta or {}
        self._myopia: Myopia | None = None
        self._inferer = None

    @property
    def use_myopia(self) -> bool:
        return VARIANTS[self.config.variant][0]

    @property
    def use_astigmatism(self) -> bool:
        return VARIANTS[self.config.variant][1]

    def myopia(self) -> Myopia:
        if self._myopia is None:
            self._myopia = Myopia(parser=make_parser(self.config.parser, keyword_terms=self.lexicon.terms),
                                  lexicon=self.lexicon, config=self.config.myopia)
        return self._myopia

    def inferer(self):
        """The C-I-S inferer, with the thresholds and extra prototypes tuned at training time."""
        if self._inferer is None:
            self._inferer = make_inferer(self.config.cis)
            params = (self.meta.get("cis") or {}).get("params")
            if params and hasattr(self._inferer, "set_params"):
                self._inferer.set_params(params)
        return self._inferer

    def predict(self, texts: Sequence[str], tags: Sequence[dict | None] | None = None,
                progress: Progress = _noop) -> dict[str, dict]:
        """Per dimension: probabilities before and after calibration, and the C-I-S states used."""
        featurizer = Featurizer(self.myopia() if self.use_myopia else None, self.config.myopia_mode)
        inputs = featurizer.inputs(texts, list(self.dims), self.use_myopia, progress)
        if self.use_myopia and not all(dm.use_myopia for dm in self.dims.values()):
            plain = [WeightedText.plain(t) for t in texts]
            inputs = {d: (inputs[d] if dm.use_myopia else plain) for d, dm in self.dims.items()}
        states = resolve_states(texts, tags, self.inferer()) if self.use_astigmatism else None
        out = {}
        for d, dm in self.dims.items():
            before = dm.backbone.predict_proba(inputs[d])
            after = before
            steps: list[np.ndarray] = []
            if self.use_astigmatism and dm.fusion is not None:
                steps = cascade(before, dm.priors, states, dm.fusion.order, dm.fusion.alphas, dm.fusion.prior_mode)
                after = steps[-1]
            out[d] = {"before": before, "after": after, "steps": steps, "states": states}
        if any(dm.stacker is not None for dm in self.dims.values()):
            base = [out[d]["before"] for d in self.dims] + [
                b.predict_proba(inputs[d]) for d, dm in self.dims.items() for b in dm.extra]
            features = log_features(base)
            for d, dm in self.dims.items():
                if dm.stacker is not None:
                    out[d]["after"] = dm.stacker.predict_proba(features)
        for d, dm in self.dims.items():
            out[d]["after"] = apply_offsets(out[d]["after"], dm.offsets)
            out[d]["labels"] = decode_labels(out[d]["after"], self.config.decode)
        return out

    # ------------------------------------------------------------------ persistence
    def save(self, directory: str | Path) -> str:
        """Write atomically: build in a temporary sibling, then rename into place. Returns a checksum."""
        target = Path(directory)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            for d, dm in self.dims.items():
                dm.backbone.save(tmp / d)
                for i, extra in enumerate(dm.extra):
                    extra.save(tmp / d / f"extra-{i}")
                (tmp / d / "calibration.json").write_text(json.dumps({
                    "extra": len(dm.extra), "stacker": dm.stacker.to_dict() if dm.stacker else None,
                    "offsets": dm.offsets.tolist() if dm.offsets is not None else None,
                    "priors": dm.priors.to_dict() if dm.priors else None,
                    "fusion": dm.fusion.to_dict() if dm.fusion else None,
                    "fusion_table": [f.to_dict() for f in dm.fusion_table],
                    "use_myopia": dm.use_myopia, "gate": dm.gate,
                }, indent=1))
            (tmp / "lexicon.json").write_text(json.dumps(
                {"version": self.lexicon.version, "entries": [asdict(e) for e in self.lexicon.entries]},
                ensure_ascii=False, indent=1), encoding="utf-8")
            meta = {**self.meta, "config": self.config.to_dict(), "maam_version": __version__}
            (tmp / "model.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
            checksum = directory_checksum(tmp)
            (tmp / "CHECKSUM").write_text(checksum + "\n")
            old = None
            if target.exists():
                old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.time_ns()}")
                target.rename(old)
            tmp.rename(target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            return checksum
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @classmethod
    def load(cls, directory: str | Path, device: str = "auto") -> MAAMModel:
        path = Path(directory)
        if not (path / "model.json").is_file():
            raise FileNotFoundError(f"{path} is not a MAAM model directory (no model.json)")
        recorded = (path / "CHECKSUM").read_text().strip() if (path / "CHECKSUM").exists() else None
        if recorded and recorded != directory_checksum(path):
            raise ValueError(f"{path}: checksum mismatch; the artefact is corrupt or was modified")
        meta = json.loads((path / "model.json").read_text(encoding="utf-8"))
        config = TrainConfig.from_dict(meta.pop("config"))
        lex = json.loads((path / "lexicon.json").read_text(encoding="utf-8"))
        lexicon = Lexicon(tuple(LexiconEntry(**e) for e in lex["entries"]), version=lex["version"])
        dims = {}
        for d in config.dimensions:
            calib = json.loads((path / d / "calibration.json").read_text())
            dims[d] = DimensionModel(
                backbone=load_backbone(path / d, device=device),
                priors=Priors.from_dict(calib["priors"]) if calib["priors"] else None,
                fusion=FusionResult.from_dict(calib["fusion"]) if calib["fusion"] else None,
                fusion_table=[FusionResult.from_dict(f) for f in calib["fusion_table"]],
                use_myopia=calib.get("use_myopia", True), gate=calib.get("gate"),
                extra=[load_backbone(path / d / f"extra-{i}", device=device) for i in range(calib.get("extra", 0))],
                stacker=Stacker.from_dict(calib["stacker"]) if calib.get("stacker") else None,
                offsets=np.asarray(calib["offsets"]) if calib.get("offsets") is not None else None,
            )
        return cls(config, lexicon, dims, meta)


def directory_checksum(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file() and p.name != "CHECKSUM"):
        h.update(str(file.relative_to(path)).encode())
        h.update(file.read_bytes())
    return h.hexdigest()


def environment_versions() -> dict[str, str]:
    import importlib.metadata as md

    versions = {"python": platform.python_version(), "maam": __version__}
    for pkg in ("numpy", "scikit-learn", "torch", "transformers", "jieba", "sentence-transformers"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return versions


def _fusion_for(oof: np.ndarray, y: np.ndarray, q: dict, config: TrainConfig,
                full_table: bool) -> tuple[FusionResult, list[FusionResult]]:
    table = fusion_table(oof, y, q, config.fusion_mode, config.prior_mode, config.decode, config.min_gain) \
        if (full_table or config.fusion_order == "best") else []
    if config.fusion_order == "best":
        return max(table, key=lambda f: (f.dev_macro_f1, len(f.order))), table
    wanted = parse_order(config.fusion_order)
    chosen = next((f for f in table if f.order == wanted), None) or search_fusion(
        oof, y, q, wanted, config.fusion_mode, config.prior_mode, config.decode, config.min_gain)
    return chosen, table


def fit_dimension(inputs: Sequence[WeightedText], y: Sequence[int], states: Sequence[CISState] | None,
                  config: TrainConfig, progress: Progress = _noop, full_table: bool = True,
                  plain_inputs: Sequence[WeightedText] | None = None,
                  fold_states: FoldStates | None = None) -> DimensionModel:
    """One dimension: with Astigmatism, cross-fitted alpha / order search (the held-out posts'
    states from `fold_states` where given, see `crossfit`), then the backbone refitted on every
    training post and the priors counted on every training post with `states`. With
    `plain_inputs` (the Myopia gate) the same search runs on plain inputs too and the inputs whose
    fused cross-fitted macro-F1 is higher are kept (Myopia must win by `min_gain`)."""
    y = np.asarray(y, dtype=int)

    def make_model():
        return make_backbone(config.backbone, seed=config.seed, device=config.device, n_classes=config.n_classes,
                             **config.backbone_params)

    dm = DimensionModel(backbone=None)
    fitted = None
    if states is not None:
        p, y_tune, q, fitted = tuning_predictions(inputs, y, states, make_model, config, progress, fold_states)
        dm.fusion, dm.fusion_table = _fusion_for(p, y_tune, q, config, full_table)
        if plain_inputs is not None:
            p_plain, y_plain, q_plain, fitted_plain = tuning_predictions(plain_inputs, y, states, make_model, config,
                                                                         progress, fold_states)
            fusion_plain, table_plain = _fusion_for(p_plain, y_plain, q_plain, config, full_table)
            dm.gate = {"myopia_dev_f1": round(dm.fusion.dev_macro_f1, 5),
                       "plain_dev_f1": round(fusion_plain.dev_macro_f1, 5)}
            if dm.fusion.dev_macro_f1 < fusion_plain.dev_macro_f1 + config.min_gain:
                dm.fusion, dm.fusion_table, dm.use_myopia = fusion_plain, table_plain, False
                inputs, fitted = plain_inputs, fitted_plain
        dm.priors = build_priors(y, states, config.n_classes)  # the final priors: all training labels
    if fitted is None:
        fitted = make_model()
        fitted.fit(list(inputs), y, progress)
    dm.backbone = fitted
    return dm


def train(texts: Sequence[str], labels: dict[str, Sequence[int]], config: TrainConfig,
          lexicon: Lexicon | None = None, tags: Sequence[dict | None] | None = None,
          progress: Progress = _noop, data_hash: str = "") -> MAAMModel:
    """Fit one model per dimension on all the training texts (fusion tuned by cross-fitting)."""
    config.validate()
    lexicon = lexicon or Lexicon.default()
    if len(texts) < 10:
        raise ValueError(f"need at least 10 training posts, got {len(texts)}")
    for d in config.dimensions:
        if d not in labels or len(labels[d]) != len(texts):
            raise ValueError(f"labels for {d!r} are missing or of the wrong length")
        if len(set(labels[d])) < 2:
            raise ValueError(f"{d}: the training labels have a single class; nothing can be learned")
    use_myopia, use_astig = VARIANTS[config.variant]
    started = time.time()
    model = MAAMModel(config, lexicon, {}, {})
    progress("parsing", 0, len(texts))
    featurizer = Featurizer(model.myopia() if use_myopia else None, config.myopia_mode)
    inputs = featurizer.inputs(texts, config.dimensions, use_myopia, progress)
    states = None
    cis_meta = None
    fold_states = None
    if use_astig:
        progress("calibrating", 0, len(config.dimensions))
        inferer = model.inferer()
        cis_meta = {"name": config.cis}
        if hasattr(inferer, "fit"):
            tuning_labels = {d: np.asarray(labels[d]) for d in config.dimensions}
            # The final thresholds (saved with the model) see every training label; the tuning
            # predictions' states come from thresholds chosen without the held-out posts' labels.
            cis_meta["fit"] = inferer.fit(texts, tuning_labels, tags)
            cis_meta["params"] = inferer.params()
            if hasattr(inferer, "states_fitted_on"):
                def fold_states(rows: np.ndarray) -> list[CISState]:
                    return apply_tags(inferer.states_fitted_on(rows, tuning_labels), tags)
        states = resolve_states(texts, tags, inferer)
    plain = ([WeightedText.plain(t) for t in texts] if config.myopia_gate and use_myopia and use_astig else None)
    for n, d in enumerate(config.dimensions):
        model.dims[d] = fit_dimension(inputs[d], labels[d], states, config, progress, plain_inputs=plain,
                                      fold_states=fold_states)
        if use_astig:
            progress("calibrating", n + 1, len(config.dimensions))
    if config.stack or config.offsets:
        model.meta["stacking"] = fit_stacking(model, inputs, labels, config, progress)
    model.meta = {**model.meta, "data_hash": data_hash, "n_train": len(texts), "folds": config.folds if use_astig else 0,
                  "lexicon_version": lexicon.version, "versions": environment_versions(),
                  "cis": cis_meta, "train_seconds": round(time.time() - started, 3)}
    return model


def fit_stacking(model: MAAMModel, inputs: dict[str, list], labels: dict[str, Sequence[int]], config: TrainConfig,
                 progress: Progress = _noop) -> dict:
    """Stacker and / or decision offsets per dimension (stacking.py): out-of-fold probabilities of
    each base backbone (k folds of the training posts), the ensemble's other backbones refitted on
    every post, then per dimension `stacking.choose` keeps whichever of backbone / + offsets /
    stacker / stacker + offsets scores best on held-out predictions."""
    dims = list(model.dims)
    first = np.asarray(labels[dims[0]], dtype=int)
    parts = fold_indices(first, config.seed, config.folds)
    n = len(first)
    names = (config.backbone, *config.stack_backbones)
    oof = {(b, d): np.zeros((n, config.n_classes)) for b in names for d in dims}
    total, done = len(parts) * len(names) * len(dims), 0
    for held in parts:
        rest = np.setdiff1d(np.arange(n), held)
        for b in names:
            for d in dims:
                y = np.asarray(labels[d], dtype=int)
                m = make_backbone(b, seed=config.seed, device=config.device, n_classes=config.n_classes,
                                  **config.backbone_params)
                m.fit([inputs[d][i] for i in rest], y[rest])
                oof[(b, d)][held] = m.predict_proba([inputs[d][i] for i in held])
                done += 1
                progress("stacking", done, total)
    for d in dims:
        model.dims[d].extra = []
        for b in config.stack_backbones:
            m = make_backbone(b, seed=config.seed, device=config.device, n_classes=config.n_classes,
                              **config.backbone_params)
            m.fit(list(inputs[d]), np.asarray(labels[d], dtype=int))
            model.dims[d].extra.append(m)
    # The same feature order as MAAMModel.predict: each dimension's base backbone, then the extras.
    features = log_features([oof[(names[0], d)] for d in dims] + [oof[(b, d)] for d in dims for b in names[1:]])
    report = {}
    for d in dims:
        choice = choose(oof[(names[0], d)], features if config.stack else None, labels[d], parts,
                        offsets=config.offsets, seed=config.seed, n_classes=config.n_classes)
        dm = model.dims[d]
        dm.stacker, dm.offsets = choice.stacker, choice.offsets
        report[d] = {"kept": choice.name, "oof_macro_f1": choice.scores,
                     "offsets": None if choice.offsets is None else [round(float(v), 2) for v in choice.offsets]}
    if not any(model.dims[d].stacker is not None for d in dims):
        for d in dims:
            model.dims[d].extra = []  # no stacker reads them: do not keep (or save) the ensemble's members
    return report


def evaluate(model: MAAMModel, texts: Sequence[str], labels: dict[str, Sequence[int]],
             tags: Sequence[dict | None] | None = None, progress: Progress = _noop,
             topics: TopicMap | None = None) -> dict[str, dict]:
    """Metrics per dimension before and after calibration, with reliability bins and the scores per
    topic of the posts (topics.py; the default keyword map unless one is given)."""
    progress("evaluating", 0, 1)
    predictions = model.predict(texts, tags, progress)
    topic_of = np.asarray((topics or TopicMap.default()).assign(texts))
    out = {}
    for d, pred in predictions.items():
        y = np.asarray(labels[d], dtype=int)
        decode = model.config.decode
        by_topic = {}
        for name in dict.fromkeys(topic_of.tolist()):
            members = topic_of == name
            by_topic[name] = {"n": int(members.sum()), "macro_f1": macro_f1(y[members], pred["labels"][members]),
                              "accuracy": float((y[members] == pred["labels"][members]).mean())}
        out[d] = {"before": all_metrics(y, pred["before"], decode), "after": all_metrics(y, pred["after"], decode),
                  "by_topic": by_topic,
                  "reliability": {"before": reliability_bins(y, pred["before"], list(range(1, pred["before"].shape[1] + 1))),
                                  "after": reliability_bins(y, pred["after"], list(range(1, pred["after"].shape[1] + 1)))}}
    progress("evaluating", 1, 1)
    return out


def states_of(texts: Sequence[str], inferer) -> list[CISState]:
    return inferer.infer_many(texts)
