"""Release pages: the list with the publish form, and verified downloads."""
from __future__ import annotations

import io

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from core.permissions import Role, require_role

from ..visibility import release_file_refusal
from .files import RELEASE_FILES
from .forms import PublishForm
from .selectors import ReleaseFileDamaged, release_file_bytes, release_get, releases_recent
from .services import ReleaseUnchanged, release_publish


@login_required
def releases(request):
    require_role(request, Role.RESEARCHER, Role.ADJUDICATOR)
    if request.method == "POST":
        require_role(request, Role.RESEARCHER)
        form = PublishForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("The split seed must be a whole number from 0."))
            return redirect("review:releases")
        try:
            release = release_publish(created_by=request.user, **form.publish_options())
        except ReleaseUnchanged as exc:
            messages.warning(request, str(exc))
        except DomainError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, _("Published release %(number)s.") % {"number": release.number})
        return redirect("review:releases")
    return render(request, "annotation/releases.html", {"releases": releases_recent(), "files": RELEASE_FILES,
                                                        "form": PublishForm()})


@login_required
def release_file(request, number: int, name: str):
    """A release file, served only when it still matches the hash recorded at publication."""
    require_role(request, Role.RESEARCHER, Role.ADJUDICATOR)
    try:
        release = release_get(number=number)
        data = release_file_bytes(release, name)
    except NotFound:
        raise Http404(_("No such release file."))
    except ReleaseFileDamaged as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    # The visibility policy decides by what the file holds (annotation/visibility); gold.csv is also
    # a list of gold items, which nobody who annotates may see; a data card goes with the diff and data
    # it describes (issue 30).
    refusal = release_file_refusal(request.user, release, name, data)
    if refusal:
        raise PermissionDenied(refusal)
    return FileResponse(io.BytesIO(data), as_attachment=True, filename=f"release-{number}-{name}")
