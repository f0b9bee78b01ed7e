"""Personal data in post text: everything about finding and masking it lives in this package.

| module | what |
|---|---|
| `detector.py` | the rules (compiled patterns, validators), `find_personal_data`, `mask_text`, `mask_post`; no Django |
| `ner.py` | the optional HanLP named-entity recogniser for personal names and street addresses |
| `models.py` | `PersonalDataScan`: per post, kind -> count, rules version, recogniser |
| `services.py` | masking at import, the scan rows, `personal_data_rescan`, the report |
| `views.py`, `urls.py` | the researchers' report at /personal-data/ |

Importing the package loads only the detector (no Django): `from publication.personal_data import
mask_text` works in scripts and benches. Decisions and figures: docs/personal_data.md."""
from .detector import (  # noqa: F401
    KINDS,
    NER_KINDS,
    PLACEHOLDERS,
    RULES,
    RULES_VERSION,
    EntityRecognizer,
    Finding,
    MaskResult,
    Rule,
    find_personal_data,
    id_check_char,
    is_valid_resident_id,
    luhn_check_digit,
    luhn_valid,
    mask_post,
    mask_text,
)
