from django import template

from publication.takedowns import releases_superseded

register = template.Library()


@register.simple_tag
def release_supersessions() -> dict[int, int]:
    """release number -> the later release that left out a taken-down post it held."""
    return releases_superseded()


@register.filter
def lookup(mapping: dict, key):
    return mapping.get(key) if mapping else None
