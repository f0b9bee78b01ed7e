"""URL converters shared by every app (registered when the core app is ready)."""
from django.urls import register_converter

BIGINT_MAX = 2**63 - 1  # the largest value of a 64-bit integer column (BigAutoField, bigint)
ID_MAX = 10**18 - 1  # the largest id a path takes (IdConverter: 18 digits), under BIGINT_MAX


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
    """A query-string id, or None when it is not one (never an exception, never an overflow): ASCII
    digits only (str.isdigit also takes "²" and full-width digits, which int() then refuses), at most
    18 digits (ID_MAX), as a path id: a query-string id that a page redirects to a path with must fit
    the path's converter (issue 30: /calibration/?post= with 19 digits raised NoReverseMatch), and it
    stays under the largest 64-bit integer a database column holds."""
    text = str(value if value is not None else "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(ID_MAX)):
        return None
    return int(text)
