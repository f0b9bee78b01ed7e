"""The project's gettext catalogues without GNU gettext: extract the strings marked for translation
(Python, Django templates, static JavaScript), merge them into locale/<lang>/LC_MESSAGES/*.po,
compile the .po files to .mo, and list what a language still lacks. Pure Python (Babel), so
`make run` and `make test` need nothing installed by hand.

Templates go through Django's own `templatize` (what `makemessages` does) and then Babel's Python
extractor, so a `{% translate %}` or `{% blocktranslate %}` yields exactly the msgid Django looks up.
"""
from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

BASE_DIR = Path(__file__).resolve().parent.parent
LOCALE_DIR = BASE_DIR / "locale"
# Languages translated from the English source strings (directory names under locale/).
TARGET_LOCALES = ("zh_Hans",)
DOMAINS = ("django", "djangojs")

PYTHON_ROOTS = ("annotation", "calibration", "chlgbt_site", "core", "modeling", "wellbeing", "backups", "publication", "audit",
                "llm")
# Never user-facing: the pure MAAM library (no Django), migrations (frozen history), tests.
PYTHON_EXCLUDED_PARTS = {"maam", "migrations", "tests", "__pycache__"}
TEMPLATE_ROOT = "templates"
JS_ROOT = "static/js"

# Django's translation functions (django.utils.translation) as Babel keyword specs.
PYTHON_KEYWORDS = {
    "_": None, "gettext": None, "gettext_lazy": None, "gettext_noop": None,
    "ngettext": (1, 2), "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2), "pgettext_lazy": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3), "npgettext_lazy": ((1, "c"), 2, 3),
}
# The functions JavaScriptCatalog defines in the browser.
JS_KEYWORDS = {"gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3)}


@dataclass(frozen=True)
class Missing:
    locale: str
    domain: str
    msgid: str
    context: str | None
    where: str
    why: str  # "absent", "empty" or "fuzzy"

    def __str__(self) -> str:
        ctx = f" [{self.context}]" if self.context else ""
        return f"{self.locale}/{self.domain}: {self.msgid!r}{ctx} ({self.why}; {self.where})"


def _python_files(base: Path) -> list[Path]:
    files = []
    for root in PYTHON_ROOTS:
        for path in sorted((base / root).rglob("*.py")):
            if not PYTHON_EXCLUDED_PARTS.intersection(path.relative_to(base).parts):
                files.append(path)
    return files


def _extract(method: str, source: str, keywords: dict, path: Path, base: Path, catalog: Catalog) -> None:
    where = str(path.relative_to(base))
    fileobj = io.BytesIO(source.encode("utf-8"))
    for lineno, message, comments, context in extract(method, fileobj, keywords=keywords,
                                                       comment_tags=("Translators:",), options={"encoding": "utf-8"}):
        msgid = message if isinstance(message, str) else tuple(message)
        if (msgid[0] if isinstance(msgid, tuple) else msgid) == "":
            continue
        catalog.add(msgid, locations=[(where, lineno)], auto_comments=comments, context=context)


def extract_messages(domain: str, base: Path = BASE_DIR) -> Catalog:
    """Every string marked for translation in the source, as a template catalogue."""
    from django.utils.translation.template import templatize

    catalog = Catalog(project="ChLGBT Workbench", charset="utf-8", fuzzy=False)
    if domain == "django":
        for path in _python_files(base):
            _extract("python", path.read_text("utf-8"), PYTHON_KEYWORDS, path, base, catalog)
        for path in sorted((base / TEMPLATE_ROOT).rglob("*.html")):
            # templatize keeps the line layout but is not real Python: drop indentation for the tokenizer.
            code = templatize(path.read_text("utf-8"), origin=str(path))
            code = "\n".join(line.lstrip() for line in code.split("\n"))
            _extract("python", code, PYTHON_KEYWORDS, path, base, catalog)
    elif domain == "djangojs":
        for path in sorted((base / JS_ROOT).rglob("*.js")):
            _extract("javascript", path.read_text("utf-8"), JS_KEYWORDS, path, base, catalog)
    else:
        raise ValueError(f"unknown domain {domain!r}")
    return catalog


def po_path(locale: str, domain: str, base: Path = BASE_DIR) -> Path:
    return base / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"


def _read(path: Path, locale: str) -> Catalog:
    with path.open("rb") as fh:
        return read_po(fh, locale=locale, charset="utf-8")


def _new_catalogue(locale: str) -> Catalog:
    return Catalog(locale=locale, project="ChLGBT Workbench", version="1", charset="utf-8", fuzzy=False,
                   header_comment=(f"# {locale} translations of the ChLGBT Workbench, written for this project.\n"
                                   "# `manage.py makemessages` adds new strings; `manage.py compilemessages` (run by\n"
                                   "# `make install` and the tests) builds the .mo files, which are not committed."))


def update_catalogues(base: Path = BASE_DIR) -> dict[str, int]:
    """Merge the extracted strings into each .po file: new strings arrive untranslated, strings no
    longer in the source are dropped, existing translations are kept (no fuzzy guessing)."""
    added = {}
    for domain in DOMAINS:
        template = extract_messages(domain, base)
        for locale in TARGET_LOCALES:
            path = po_path(locale, domain, base)
            catalog = _read(path, locale) if path.exists() else _new_catalogue(locale)
            before = {m.id for m in catalog if m.id}
            created = catalog.creation_date
            catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
            catalog.creation_date = created  # no header churn when nothing changed
            catalog.obsolete.clear()
            catalog.fuzzy = False
            added[f"{locale}/{domain}"] = len({m.id for m in catalog if m.id} - before)
            path.parent.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            # Sorted, without line numbers: moving code or editing a template elsewhere does not reorder the catalogue.
            write_po(buffer, catalog, width=100, sort_output=True, ignore_obsolete=True, include_lineno=False)
            path.write_bytes(buffer.getvalue())
    return added


def compile_catalogues(base: Path = BASE_DIR) -> list[Path]:
    """Write locale/*/LC_MESSAGES/*.mo from the .po files beside them (fuzzy entries left out)."""
    written = []
    for path in sorted((base / "locale").glob("*/LC_MESSAGES/*.po")):
        locale = path.parent.parent.name
        catalog = _read(path, locale)
        buffer = io.BytesIO()
        write_mo(buffer, catalog, use_fuzzy=False)
        target = path.with_suffix(".mo")
        tmp = target.with_suffix(f".mo.{os.getpid()}.tmp")
        tmp.write_bytes(buffer.getvalue())
        tmp.replace(target)  # atomic: a running server never reads half a file
        written.append(target)
    return written


# Python's named placeholders (%(name)s), JavaScript interpolate's, and plotly's %{...} templates.
_PLACEHOLDER = re.compile(r"%\([A-Za-z_][A-Za-z0-9_]*\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|%\{[^}]*\}|%%")


def placeholder_mismatches(base: Path = BASE_DIR) -> list[str]:
    """Translations whose placeholders differ from their msgid's: at run time `%` would raise
    KeyError or drop a value, so they count as broken."""
    problems = []
    for domain in DOMAINS:
        for locale in TARGET_LOCALES:
            path = po_path(locale, domain, base)
            if not path.exists():
                continue
            for message in _read(path, locale):
                if not message.id or not message.string:
                    continue
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                strings = message.string if isinstance(message.string, tuple) else (message.string,)
                wanted = set().union(*(_PLACEHOLDER.findall(i) for i in ids))
                for string in strings:
                    if string and set(_PLACEHOLDER.findall(string)) != wanted:
                        problems.append(f"{locale}/{domain}: {ids[0]!r} -> {string!r}")
    return problems


def missing_translations(base: Path = BASE_DIR) -> list[Missing]:
    """Strings in the source that a target language has no usable translation for."""
    missing = []
    for domain in DOMAINS:
        template = extract_messages(domain, base)
        for locale in TARGET_LOCALES:
            path = po_path(locale, domain, base)
            catalog = _read(path, locale) if path.exists() else Catalog(locale=locale)
            for message in template:
                if not message.id:
                    continue
                where = ", ".join(f"{f}:{n}" for f, n in message.locations[:2])
                key = message.id if isinstance(message.id, str) else message.id[0]
                entry = catalog.get(message.id, context=message.context)
                if entry is None:
                    why = "absent"
                elif entry.fuzzy:
                    why = "fuzzy"
                elif not (all(entry.string) if isinstance(entry.string, tuple) else entry.string):
                    why = "empty"
                else:
                    continue
                missing.append(Missing(locale, domain, key, message.context, where, why))
    return missing
