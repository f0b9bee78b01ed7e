"""URL converters shared by every app (registered when the core app is ready)."""
from django.urls import register_converter


class IdConverter:
    """A database id: at most 18 digits, so no URL can overflow a 64-bit integer column."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


def register() -> None:
    register_converter(IdConverter, "id")


def parse_id(value) -> int | None:
    """A query-string id, or None when it is not one (never an exception, never an overflow)."""
    text = str(value or "").strip()
    return int(text) if text.isdigit() and len(text) <= 18 else None
