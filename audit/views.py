"""The researchers' audit page: every privileged action (who, when, what, before/after), filterable."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils.dateparse import parse_date

from annotation.visibility import log_entries_visible_to
from core.permissions import Role, require_role

from . import selectors
from .registry import ACTIONS, KINDS

PER_PAGE = 100


@login_required
def audit_log(request):
    require_role(request, Role.RESEARCHER)
    g = request.GET
    flt = selectors.AuditFilter(kind=g.get("kind", "") if g.get("kind") in KINDS else "",
                                actor=g.get("actor", "").strip()[:150], target=g.get("target", "").strip()[:200],
                                since=_date(g.get("since")), until=_date(g.get("until")))
    # issue 20: the visibility policy leaves out entries about posts hidden from the reader and about gold
    page = Paginator(log_entries_visible_to(request.user, selectors.entries(flt)), PER_PAGE).get_page(g.get("page"))
    objects = selectors.current_objects(list(page))
    rows = [{"entry": e, "kind": KINDS.get(selectors.entry_kind(e) or "", ""), "kind_key": selectors.entry_kind(e),
             "action": ACTIONS.get(e.action, ""), "object": selectors.entry_object(e, objects),
             "changes": selectors.entry_changes(e)} for e in page]
    query = g.copy()
    query.pop("page", None)
    return render(request, "audit/log.html", {"rows": rows, "page": page, "filter": flt, "kinds": KINDS.items(),
                                              "query": query.urlencode()})


def _date(value):
    try:
        return parse_date(value or "")
    except ValueError:
        return None
