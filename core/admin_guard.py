"""Admin lists never answer 500 for a number out of the database's range in a filter (issue 30: a list
filter such as ?batch=9223372036854775808 on posts, judgments, log entries, rewrites or takedowns
raised OverflowError on SQLite, and PostgreSQL refuses it with a DataError). Django checks the
`field__id__exact` forms itself; the plain `?field=` form reaches the database. Every registered
ModelAdmin's list answers such a request with the unfiltered list and a message saying why, as it does
for a filter it does not know. A filter on an IP address field (the audit log's remote_addr) whose value
is not an address is answered the same way: PostgreSQL's inet adapter raises ValueError for it, which
Django's changelist does not turn into a bad-filter message. Installed once the admin has registered
every model (CoreConfig.ready)."""
from __future__ import annotations

import ipaddress

from django.contrib import messages
from django.db import DataError, models, router, transaction
from django.http import HttpResponseRedirect
from django.utils.translation import gettext as _

OUT_OF_RANGE = (OverflowError, DataError)


def guard_changelists(site) -> None:
    for model_admin in list(site._registry.values()):
        if getattr(model_admin, "_out_of_range_guard", False):
            continue
        model_admin.changelist_view = _guarded(model_admin, model_admin.changelist_view)
        model_admin._out_of_range_guard = True


def _guarded(model_admin, view):
    def changelist_view(request, extra_context=None):
        if request.method != "GET":  # actions: as they were (a filter is read on GET)
            return view(request, extra_context)
        bad = _not_an_address(model_admin.model, request.GET)
        if bad:
            messages.error(request, _("The filter %(name)s needs an IP address; the list is shown without filters.")
                           % {"name": bad})
            return HttpResponseRedirect(request.path)
        try:
            # A savepoint: on PostgreSQL the refused query must not leave the request's transaction broken.
            with transaction.atomic(using=router.db_for_read(model_admin.model)):
                response = view(request, extra_context)
                if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                    response.render()  # the list is read while rendering
        except OUT_OF_RANGE:
            messages.error(request, _("A filter value is out of range (ids have at most 18 digits); the list is shown "
                                      "without filters."))
            return HttpResponseRedirect(request.path)
        return response

    return changelist_view


# Lookups whose value is one address (not a list, not a substring).
_ONE_ADDRESS = {"", "exact", "iexact", "gt", "gte", "lt", "lte"}


def _not_an_address(model, params) -> str | None:
    """The first query parameter filtering an IP address field of `model` by a value that is no address."""
    for key, values in params.lists():
        name, _sep, lookup = key.partition("__")
        try:
            field = model._meta.get_field(name)
        except Exception:  # not a field: Django answers unknown filters itself
            continue
        if not isinstance(field, models.GenericIPAddressField) or lookup not in _ONE_ADDRESS:
            continue
        for value in values:
            try:
                ipaddress.ip_address(value.strip())
            except ValueError:
                return key
    return None
