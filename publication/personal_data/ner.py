"""Personal names and street addresses with HanLP's named-entity recogniser, for groups that have
its model on disk (a local path, or a HanLP model name already unpacked in HANLP_HOME: the same
rule as the HanLP parser in modeling/maam/parsing.py). Never downloads. Pure Python, no Django;
the setting PERSONAL_DATA_NER names the model (empty: no recogniser, the offline default, which
finds no names)."""
from __future__ import annotations

import os
import re

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


def load_recogniser(setting: str) -> HanLPRecogniser | None:
    """The recogniser a PERSONAL_DATA_NER value names ("" or "none": none)."""
    setting = setting.strip()
    if setting.lower() in ("", "none", "off"):
        return None
    return HanLPRecogniser(setting.split(":", 1)[1] if setting.startswith("hanlp:") else setting)
