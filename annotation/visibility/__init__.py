"""The visibility policy: the one place that decides what a person may see of posts' judgments and of
everything made from them, and of gold items. Every page, API route, figure, download and admin view
of judgments, final labels, aggregate labels, predictions and gold asks here (issue 20).

Three rules.
1. Blindness. While a batch is open, someone who annotates it sees no judgment of one of its posts
   that they have not judged themselves, nor anything made from those judgments (spans, notes, final
   and aggregate labels, release rows, predictions). Such a post is *hidden* from them.
2. Gold identity. Gold items are the answers annotators are measured against, so nobody who
   annotates is told which posts are gold: no list of gold items, no gold label, no mark on a
   judgment, no answer to a gold item among other people's judgments, no error naming posts that are
   not gold.
3. Qualification answers. A qualification round's posts are shown to the annotator taking it, so
   what they expect - gold labels, and the judgments, labels and predictions of those posts - is
   not, before or during an attempt: only the review of a failed attempt, while it waits for a
   reset, gives the gold labels of that round's items (not of items a round still open to them
   shares).

The API (small on purpose; docs/decisions.md "One visibility policy"):
- `hidden_posts(user)`: the posts hidden from `user` (a queryset): for someone who annotates, those
  waiting in their queue; for anyone, whatever roles they hold now, the posts of their unanswered
  claims (`open_claims(user)`: a gold item served before a promotion stays hidden until answered).
- `visible_to(user, queryset, post_field="post")`: the queryset less its rows about hidden posts -
  the selector every listing of judgment-derived rows goes through ("pk" for a queryset of posts).
- `judgments_visible_to(user, queryset)`: `visible_to` for judgments (or rows with a `gold` flag
  and a post), and without answers to gold items when gold is hidden from the user.
- `is_hidden(user, post_id)`, `ensure_visible(user, post_id)` (403 with the reason): one post.
- `log_entries_visible_to(user, queryset)`: an audit or admin log less its entries about rows of
  hidden posts and, for someone who annotates, about gold.
- `qualification_items_pending(user)`, `qualification_gold_withheld(user)`: rule 3, what a
  qualification round still ahead of `user` expects stays unreadable to them until they pass it.
- `gold_items_servable()`: the gold items queues may serve - never one that has been in a
  qualification set, nor one taken down (rule 4, annotation/visibility/withdrawn.py); and no post
  joins an open batch through the admin (`admin_site_guard`), so a gold post is never served as an
  ordinary one.
- `gold_hidden_from(user)`, `ensure_gold_visible(user)` (403): gold identity (hidden from everyone
  who annotates, and from anyone holding an unanswered gold claim).
- `posts_listed_to(user, queryset)`: the post admin's rows; no post without a batch (uploaded gold
  items are the only posts made without one) for someone from whom gold is hidden.
- `report_visible_to(user, report)` (annotation/visibility/quality.py): the quality report (panel,
  per-annotator page, figures, API) without figures measured on gold answers, nor the viewer's own
  figures, for someone from whom gold is hidden.
- `file_refusal(user, data)`: None when the file's bytes may be served to `user`, else the reason.
  Decided by what the file holds (annotation/visibility/files.py reads Parquet, JSON, JSON Lines,
  CSV and text), never by its name; a file the reader cannot read is refused to anyone with a
  hidden post (fail closed); while gold is hidden from the user, a file naming them by their
  pseudonym (their judgments without their gold answers). `gold_file_refusal(user)` for a file that
  lists gold items.
- `release_refusal(user, release)`, `release_file_refusal(user, release, name, data)`
  (annotation/visibility/releases.py): a release's diff, summary and data cards go with its
  diff.json and data files - withheld when those are refused.
- `VisibleRowsAdmin`, `GoldAdmin`: ModelAdmin bases for judgment-derived rows and for gold;
  `admin_site_guard(site)` (annotation's AppConfig.ready): no admin deletion that can reach gold for
  someone who annotates (a deletion page lists what it takes with it), and every log's admin (an
  audit log's) through `log_entries_visible_to`.
"""
from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist, PermissionDenied
from django.db.models import CharField, Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Cast
from django.utils.translation import gettext_lazy as _

from core.permissions import Role, user_has_role

from ..models import Assignment, AssignmentStatus, Batch, Judgment, Post
from .files import read_contents
from .quality import report_visible_to, run_summary_visible_to  # noqa: F401  (the quality report: issue 30)
from .releases import release_file_refusal, release_refusal  # noqa: F401  (a release's admin page, cards: issue 30)

HIDDEN_MESSAGE = _("This post is still waiting in your annotation queue (its batch is open and you have not "
                  "judged it), so its judgments, labels and predictions stay hidden from you until you judge it "
                  "or the batch is locked.")
RELEASE_HIDDEN_MESSAGE = _("This file holds judgments or labels of posts still waiting in your annotation queue "
                          "(their batch is open and you have not judged them). It can be downloaded once you "
                          "have judged them or the batch is locked.")
UNREADABLE_FILE_MESSAGE = _("This file cannot be checked for posts still waiting in your annotation queue, so it "
                            "is not served to you while you have posts waiting in an open batch.")
GOLD_HIDDEN_MESSAGE = _("Gold labels are the answers annotators are measured against, so they are not shown to "
                        "anyone who also annotates.")
OWN_JUDGMENTS_MESSAGE = _("This file names you by your pseudonym beside your judgments or figures, which leave out "
                          "your answers to gold items; set beside your own judgments it would tell which items were "
                          "gold, so it is not served to anyone who also annotates.")


# --- Rule 1: blindness ---------------------------------------------------------------------------

def open_claims(user, *, gold: bool | None = None) -> QuerySet[Assignment]:
    """`user`'s unanswered claims that can still be answered (the batch they belong to is open: a
    gold claim's is the batch it was served in), whatever roles they hold now. `gold`: only gold
    claims (True) or only real ones (False)."""
    if not user.is_authenticated:
        return Assignment.objects.none()
    claims = Assignment.objects.filter(annotator=user, status=AssignmentStatus.ASSIGNED).filter(
        Q(gold_batch__isnull=False, gold_batch__locked_at__isnull=True)
        | Q(gold_batch__isnull=True, post__batch__isnull=False, post__batch__locked_at__isnull=True))
    return claims if gold is None else claims.filter(gold_batch__isnull=not gold)


def hidden_posts(user) -> QuerySet[Post]:
    """Posts whose judgments `user` may not see yet: in an open batch they annotate, not judged by them;
    and, whatever roles they hold, every post they hold an unanswered claim on - a gold item served
    to them before they were made an adjudicator or researcher included (its post is in no open
    batch, but its judgments and labels are the answer they are about to be measured against)."""
    claimed = Q(pk__in=open_claims(user).values("post_id"))
    if not user_has_role(user, Role.ANNOTATOR):
        return Post.objects.filter(claimed) if user.is_authenticated else Post.objects.none()
    pools = Batch.objects.filter(locked_at__isnull=True).filter(Q(annotators=user) | Q(annotators__isnull=True))
    waiting = Q(batch__in=pools.values("pk")) & ~Q(pk__in=Judgment.objects.filter(annotator=user).values("post_id"))
    qualifying = Q(pk__in=qualification_items_pending(user).values("post_id"))  # rule 3, judged before or not
    return Post.objects.filter(waiting | claimed | qualifying)


def qualification_items_pending(user, *, attemptable: bool = False) -> QuerySet:
    """Rule 3: the gold items of the qualification rounds `user` has still to pass - rounds required
    by an open batch in their pool that they have not passed (`attemptable`: only those they may
    attempt now, not one waiting for a researcher's reset after a failure). What these items expect
    is not readable by them before or during an attempt: their posts are hidden (`hidden_posts`, so
    no judgment, label or prediction of them even where they judged the post in an older batch), and
    no review of another attempt gives their gold label (`qualification_gold_withheld`)."""
    from ..models import GoldItem, QualificationAttempt

    if not user_has_role(user, Role.ANNOTATOR):
        return GoldItem.objects.none()
    mine = QualificationAttempt.objects.filter(batch=OuterRef("pk"), annotator=user)
    rounds = (Batch.objects.filter(locked_at__isnull=True, quality__qualification_required=True)
              .filter(Q(annotators=user) | Q(annotators__isnull=True))
              .filter(~Exists(mine.filter(passed=True))))
    if attemptable:
        rounds = rounds.filter(~Exists(mine.filter(passed=False, reset_at__isnull=True)))
    return GoldItem.objects.filter(qualification_batches__batch__in=rounds.values("pk")).distinct()


def qualification_gold_withheld(user) -> set[int]:
    """The gold items whose gold label a review of a failed qualification attempt does not show
    `user`: those of rounds they may attempt now (a retry after a reset included)."""
    return set(qualification_items_pending(user, attemptable=True).values_list("pk", flat=True))


def _may_hide(user) -> bool:
    """Whether anything can be hidden from `user`: they annotate, or hold an unanswered claim."""
    return user_has_role(user, Role.ANNOTATOR) or (user.is_authenticated and open_claims(user).exists())


def visible_to(user, queryset: QuerySet, *, post_field: str = "post") -> QuerySet:
    """`queryset` less the rows about posts hidden from `user` (`post_field` leads to the post;
    "pk" when the queryset is of posts)."""
    if not user.is_authenticated:
        return queryset
    return queryset.exclude(**{f"{post_field}__in": hidden_posts(user).values("pk")})


def judgments_visible_to(user, queryset: QuerySet, *, post_field: str = "post") -> QuerySet:
    """Judgments (or any rows with a `gold` flag) `user` may see: none about a hidden post, and no
    answer to a gold item when gold is hidden from them (such an answer would mark its post gold)."""
    queryset = visible_to(user, queryset, post_field=post_field)
    return queryset.filter(gold=False) if gold_hidden_from(user) else queryset


def is_hidden(user, post_id: int) -> bool:
    return user.is_authenticated and hidden_posts(user).filter(pk=post_id).exists()


def ensure_visible(user, post_id: int) -> None:
    """For page views: 403 with the reason when the post is hidden from `user`."""
    if is_hidden(user, post_id):
        raise PermissionDenied(HIDDEN_MESSAGE)


def file_refusal(user, data: bytes) -> str | None:
    """None when a downloadable file (its verified bytes) may be served to `user`; otherwise why not.
    Refused: a file that names a hidden post by its release key (internal or public) or holds its
    text, and a file whose format the reader does not know while the user has any hidden post. And,
    while gold is hidden from `user`, a file that names them by their pseudonym (judgments.csv, the
    data card's annotator table: issue 30): it lists or counts their judgments without their answers
    to gold items, so beside their own judgment list it would mark those answers."""
    if not _may_hide(user):
        return None
    from publication.releasing import public_id
    from publication.rewrite_models import Rewrite

    from ..releases.files import post_key

    hidden = list(hidden_posts(user).values_list("pk", "external_id", "text_sha256", "text"))
    pseudonym = _own_pseudonym(user) if gold_hidden_from(user) else None
    if not hidden and pseudonym is None:
        return None
    contents = read_contents(data)
    if contents is None:
        return str(UNREADABLE_FILE_MESSAGE)
    if pseudonym is not None and contents.mentions(keys={pseudonym}, texts=()):
        return str(OWN_JUDGMENTS_MESSAGE)
    if not hidden:
        return None
    # A post's key and text in an internal release; in a public one its public id and its rewrite
    # (release.csv, in ChLGBT's format, has no id column: only the text and the labels).
    keys = {post_key(ext, sha) for _pk, ext, sha, _text in hidden} | {public_id(pk) for pk, *_rest in hidden}
    texts = {t for *_k, t in hidden} | set(Rewrite.objects.filter(post__in=[pk for pk, *_rest in hidden])
                                          .values_list("text", flat=True))
    if contents.mentions(keys=keys, texts=texts):
        return str(RELEASE_HIDDEN_MESSAGE)
    return None


def _own_pseudonym(user) -> str | None:
    """The name release files give `user`'s judgments (None when they have none)."""
    from ..models import AnnotatorProfile
    from ..selectors import pseudonym_fallback

    if not Judgment.objects.filter(annotator=user).exists():
        return None
    profile = AnnotatorProfile.objects.filter(user=user).values_list("pseudonym", flat=True).first()
    return profile or pseudonym_fallback(user.pk)


def _rows_about_posts(model, posts: QuerySet) -> QuerySet | None:
    """The rows of `model` about `posts`: the posts themselves, rows with a `post` foreign key, rows
    with a `judgment` foreign key (revisions); None for a model about no post."""
    if model is Post:
        return Post.objects.filter(pk__in=posts)
    for name, target, lookup in (("post", Post, "post__in"), ("judgment", Judgment, "judgment__post__in")):
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.concrete and field.is_relation and field.related_model is target:
            return model._default_manager.filter(**{lookup: posts})
    return None


def log_entries_visible_to(user, queryset: QuerySet, *, object_field: str = "object_id") -> QuerySet:
    """An audit or admin log (rows with `content_type` and an object id) less the entries `user` may
    not see: about a row of a hidden post (the post, its judgments and their revisions, final and
    aggregate labels, predictions, claims...), and - when gold is hidden from them (gold_hidden_from) -
    about gold items, qualification sets and attempts, answers to gold items and gold claims."""
    if not _may_hide(user):
        return queryset
    from django.apps import apps
    from django.contrib.contenttypes.models import ContentType

    from ..models import BatchQuality, GoldItem, QualificationAnswer, QualificationAttempt

    numeric = queryset.model._meta.get_field(object_field).get_internal_type() in (
        "IntegerField", "BigIntegerField", "PositiveIntegerField", "PositiveBigIntegerField")

    def ids(rows: QuerySet):
        return rows.values("pk") if numeric else rows.annotate(_object_id=Cast("pk", CharField())).values("_object_id")

    hidden = hidden_posts(user).values("pk")
    hides_gold = gold_hidden_from(user)
    gold_only = (GoldItem, BatchQuality, QualificationAttempt, QualificationAnswer) if hides_gold else ()
    excluded = Q(content_type__in=[ContentType.objects.get_for_model(m) for m in gold_only])
    for model in apps.get_models():
        rows = _rows_about_posts(model, hidden)
        if model is Judgment and hides_gold:
            rows = Judgment.objects.filter(Q(post__in=hidden) | Q(gold=True))
        elif model is Assignment and hides_gold:
            rows = Assignment.objects.filter(Q(post__in=hidden) | Q(gold_batch__isnull=False))
        if rows is not None:
            excluded |= Q(content_type=ContentType.objects.get_for_model(model), **{f"{object_field}__in": ids(rows)})
    return queryset.exclude(excluded)


# --- Rule 2: gold identity -----------------------------------------------------------------------

def gold_items_servable() -> QuerySet:
    """The gold items that may be mixed into queues (issue 20 review): active, never in a qualification
    set - the set can be read on its qualification page, so leaving it changes nothing
    (`GoldItem.qualification_used`, set for good when the item joins one) - not waiting in an open
    batch, and not taken down (rule 4, `withdrawn.in_queues`: a withdrawn post is served to nobody,
    as gold neither, and no gold quota counts it). The reverse holds too: a post that is or was gold
    never joins an open batch (`admin_site_guard`, and the gold services and admin refuse a post of
    an open batch), so it is never served as an ordinary post whose answers count."""
    from ..models import BatchQuality, GoldItem
    from .withdrawn import in_queues

    in_set = BatchQuality.qualification_items.through.objects.filter(golditem_id=OuterRef("pk"))
    return in_queues(GoldItem.objects.filter(active=True, qualification_used=False).filter(~Exists(in_set))
                     .exclude(post__batch__locked_at__isnull=True, post__batch__isnull=False))


def _qualification_set_changed(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    """An item that joins a qualification set (the service, the admin, any .add/.set) is marked for
    good as used for qualification: it is never mixed into queues again."""
    from ..models import GoldItem

    if action != "post_add" or not pk_set:
        return
    items = [instance.pk] if reverse else list(pk_set)
    GoldItem.objects.filter(pk__in=items, qualification_used=False).update(qualification_used=True)


def _connect_qualification_signal() -> None:
    from django.db.models.signals import m2m_changed

    from ..models import BatchQuality

    m2m_changed.connect(_qualification_set_changed, sender=BatchQuality.qualification_items.through,
                        dispatch_uid="visibility.qualification_used")


_connect_qualification_signal()


def gold_hidden_from(user) -> bool:
    """Whether gold identity is hidden from `user`: from everyone who annotates, whatever else they are,
    and from anyone still holding an unanswered gold claim (served before they lost the annotator role)."""
    return user_has_role(user, Role.ANNOTATOR) or (user.is_authenticated and open_claims(user, gold=True).exists())


def posts_listed_to(user, queryset: QuerySet) -> QuerySet:
    """A listing of posts (the post admin) less, when gold is hidden from `user`, every post without a
    batch: uploaded gold items are made without one, so "no batch" would list exactly the gold (issue 30).
    All of them alike (posts judged outside any batch too), so an absence says nothing about one post."""
    return queryset.filter(batch__isnull=False) if gold_hidden_from(user) else queryset


def ensure_gold_visible(user) -> None:
    if gold_hidden_from(user):
        raise PermissionDenied(GOLD_HIDDEN_MESSAGE)


def gold_file_refusal(user) -> str | None:
    """For a file that lists gold items (a release's gold.csv): None, or why it is refused."""
    return str(GOLD_HIDDEN_MESSAGE) if gold_hidden_from(user) else None


# --- The admin -----------------------------------------------------------------------------------

class VisibleRowsAdmin(admin.ModelAdmin):
    """Admin lists and pages of judgment-derived rows (or of posts: `visibility_post_field = "pk"`)
    leave out rows about posts hidden from the viewer. With `visibility_gold_field` (a boolean such
    as Judgment.gold, or a foreign key such as Assignment.gold_batch, set on rows that are answers
    to gold items), a viewer from whom gold is hidden gets neither those rows nor that field."""

    visibility_post_field = "post"
    visibility_gold_field: str | None = None

    def _hides_gold(self, request) -> bool:
        return self.visibility_gold_field is not None and gold_hidden_from(request.user)

    def get_queryset(self, request):
        qs = visible_to(request.user, super().get_queryset(request), post_field=self.visibility_post_field)
        if self._hides_gold(request):
            field = self.model._meta.get_field(self.visibility_gold_field)
            qs = qs.filter(**({f"{field.name}__isnull": True} if field.is_relation else {field.name: False}))
        return qs

    def get_exclude(self, request, obj=None):
        exclude = list(super().get_exclude(request, obj) or [])
        return [*exclude, self.visibility_gold_field] if self._hides_gold(request) else exclude

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return [f for f in fields if f != self.visibility_gold_field] if self._hides_gold(request) else fields

    def get_list_display(self, request):
        fields = list(super().get_list_display(request))
        return [f for f in fields if f != self.visibility_gold_field] if self._hides_gold(request) else fields

    def get_list_filter(self, request):
        fields = list(super().get_list_filter(request))
        return [f for f in fields if f != self.visibility_gold_field] if self._hides_gold(request) else fields


class GoldAdmin(admin.ModelAdmin):
    """Admin of gold itself (gold items, qualification sets and answers): not there at all for
    someone who annotates, superusers included."""

    def has_module_permission(self, request):
        return not gold_hidden_from(request.user) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return not gold_hidden_from(request.user) and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not gold_hidden_from(request.user) and super().has_change_permission(request, obj)

    def has_add_permission(self, request, *args):
        return not gold_hidden_from(request.user) and super().has_add_permission(request, *args)

    def has_delete_permission(self, request, obj=None):
        return not gold_hidden_from(request.user) and super().has_delete_permission(request, obj)


def _cascades_to_gold(model, seen=None) -> bool:
    """Whether deleting a `model` row can delete gold rows (whose deletion summary would name them)."""
    from django.db.models import CASCADE

    from ..models import Assignment, BatchQuality, GoldItem, QualificationAnswer, QualificationAttempt

    seen = set() if seen is None else seen
    if model in (GoldItem, BatchQuality, QualificationAttempt, QualificationAnswer, Judgment, Assignment):
        return True
    seen.add(model)
    return any(rel.on_delete is CASCADE and rel.related_model not in seen
               and _cascades_to_gold(rel.related_model, seen)
               for rel in model._meta.related_objects if getattr(rel, "on_delete", None) is not None)


def admin_site_guard(site) -> None:
    """Once, when the apps are ready: an admin deletion page lists every row the deletion would take
    with it (gold items, qualification answers, answers to gold items...), so nobody who annotates
    deletes, through the admin, anything whose deletion can reach gold - the same for every row of
    such a model, so a refusal says nothing about one row."""
    for model, model_admin in list(site._registry.items()):
        if model is Post:
            _guard_open_batches(model_admin)
        if _is_log(model):  # an audit log's admin (django-auditlog's): its entries go through the policy
            queryset = model_admin.get_queryset

            def get_queryset(request, _queryset=queryset):
                return log_entries_visible_to(request.user, _queryset(request))

            model_admin.get_queryset = get_queryset
        if not _cascades_to_gold(model):
            continue
        allowed = model_admin.has_delete_permission

        def has_delete_permission(request, obj=None, _allowed=allowed):
            return not gold_hidden_from(request.user) and _allowed(request, obj)

        model_admin.has_delete_permission = has_delete_permission


def _is_log(model) -> bool:
    names = {f.name for f in model._meta.get_fields()}
    return {"content_type", "object_id", "changes"} <= names or {"content_type", "object_id", "action_flag"} <= names


OPEN_BATCH_MESSAGE = _("A post joins an open batch only through an import: an existing post may bring judgments, "
                       "or a use as a gold or qualification item, into the open queue.")


def _guard_open_batches(model_admin) -> None:
    """The post admin's form: no existing post is moved into an open batch (a post that is or was
    gold would be served there as an ordinary post; the refusal is the same for every post, so it
    tells nobody which posts are gold)."""
    get_form = model_admin.get_form

    def guarded_get_form(request, obj=None, change=False, _get_form=get_form, **kwargs):
        form_class = _get_form(request, obj, change=change, **kwargs)

        class OpenBatchGuard(form_class):
            def clean(self):
                data = super().clean()
                batch = data.get("batch")
                if (batch is not None and batch.locked_at is None and self.instance.pk is not None
                        and batch.pk != self.instance.batch_id and "batch" in self.fields):
                    self.add_error("batch", OPEN_BATCH_MESSAGE)
                return data

        return OpenBatchGuard

    model_admin.get_form = guarded_get_form
