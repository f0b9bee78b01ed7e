"""Assignment and scoring: handing an annotator the next post of a batch (k annotators per post,
spread evenly, nobody twice), submitting, revising and skipping judgments, and locking a batch.
The annotator page, the REST API and the load tools all call these."""
from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import Conflict, DomainError, NotFound

from ..models import Assignment, AssignmentStatus, Batch, BatchProgress, Guideline, Judgment, JudgmentRevision, Post
from ..quality.services import GoldPlan, gold_plan
from ..scores import scores_validate
from .selectors import claim_candidates_sql, claim_context, claim_cursor, claim_of, open_claim, post_claims, progress_counted

__all__ = ["Conflict", "DomainError", "NotFound", "PostTaken", "assignment_next", "assignment_skip", "batch_lock",
           "claims_recount", "claims_release_expired", "judgment_revise", "judgment_submit",
           "judgment_submit_and_next"]


class PostTaken(Conflict):
    """A late submission (on a skipped or expired claim) for a post that already has k annotators."""


# How many of the least-claimed posts one call looks at before giving up (all locked by others).
CANDIDATES = 20
# Expired claims released by one call at most (the rest by the next call).
RELEASED_PER_CALL = 200

# A claim holds one of its post's k slots while it is submitted, or assigned and not lapsed; answers
# to gold items never do. Post.live_claims stores how many hold one, for the index that orders posts.
_HOLDS_SLOT = Q(gold_batch__isnull=True) & (
    Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.ASSIGNED, lapsed=False))


def _lock_post(post_id: int, *, skip_locked: bool = False) -> Post | None:
    """Lock the post row: every change to who holds its slots happens under this lock, first, so
    two annotators cannot both take its last slot and locks are always taken post-then-claim.
    NO KEY UPDATE: it does not block concurrent judgment inserts (their FK check takes KEY SHARE)."""
    lock = (" FOR NO KEY UPDATE SKIP LOCKED" if skip_locked else " FOR NO KEY UPDATE") \
        if connection.vendor == "postgresql" else ""
    with claim_cursor() as cursor:  # plain SQL: on every submit and skip (the ORM costs ~1 ms to build it)
        cursor.execute(f"SELECT id, live_claims FROM {Post._meta.db_table} WHERE id = %s{lock}", [post_id])
        row = cursor.fetchone()
    return None if row is None else Post.from_db(connection.alias, ["id", "live_claims"], row)


def _release_expired_on(post_id: int, cutoff) -> int:
    """Under the post's lock: its assigned claims older than `cutoff` give their slots back."""
    return Assignment.objects.filter(post_id=post_id, status=AssignmentStatus.ASSIGNED, lapsed=False,
                                     gold_batch__isnull=True, assigned_at__lt=cutoff).update(lapsed=True)


def _recount_claims(post: Post, *, always_write: bool = False) -> int:
    """Under the post's lock: count the claims holding a slot (a handful of rows, by index) and store
    the count. Recounting instead of adding one keeps the counter exact whatever wrote the rows.
    `always_write`: store it even when unchanged (a gold item's skip does a real skip's writes)."""
    live = Assignment.objects.filter(_HOLDS_SLOT, post_id=post.pk).count()
    if live != post.live_claims or always_write:
        Post.objects.filter(pk=post.pk).update(live_claims=live)
        post.live_claims = live
    return live


def claims_release_expired(*, batch: Batch, now=None) -> int:
    """Expired claims of the batch give their slots back (the owner can still resume or submit
    while the post has room). Found through the index of open claims, which holds only the few
    claims in progress, so the batch is never scanned. Posts locked by someone else right now are
    left for the next call. Returns how many claims were released."""
    now = now or timezone.now()
    cutoff = now - timedelta(minutes=batch.assignment_timeout_minutes)
    expired = sorted(set(
        Assignment.objects.filter(status=AssignmentStatus.ASSIGNED, lapsed=False, assigned_at__lt=cutoff,
                                  gold_batch__isnull=True, post__batch=batch)
        .values_list("post_id", flat=True)[:RELEASED_PER_CALL]))
    released = 0
    for post_id in expired:
        with transaction.atomic():
            post = _lock_post(post_id, skip_locked=True)
            if post is None:
                continue
            released += _release_expired_on(post_id, cutoff)
            _recount_claims(post)
    return released


def claims_recount(*, batch_id: int | None = None) -> int:
    """Recompute Post.live_claims and BatchProgress from the assignment rows (for rows written
    outside these services: bulk imports, data fixes). Returns the number of posts corrected."""
    posts = Post.objects.all() if batch_id is None else Post.objects.filter(batch_id=batch_id)
    live = Subquery(Assignment.objects.filter(_HOLDS_SLOT, post_id=OuterRef("pk")).order_by()
                    .values("post_id").annotate(n=Count("id")).values("n"))
    corrected = posts.annotate(actual=Coalesce(live, 0)).exclude(live_claims=F("actual"))
    fixed = 0
    with transaction.atomic():
        for post_id, actual in corrected.values_list("pk", "actual"):
            fixed += Post.objects.filter(pk=post_id).update(live_claims=actual)
        progress = BatchProgress.objects.all() if batch_id is None else BatchProgress.objects.filter(batch_id=batch_id)
        progress.delete()
        rows = (Assignment.objects.filter(gold_batch__isnull=True, post__batch__isnull=False)
                .filter(Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.SKIPPED)))
        if batch_id is not None:
            rows = rows.filter(post__batch_id=batch_id)
        BatchProgress.objects.bulk_create([
            BatchProgress(batch_id=r["post__batch"], annotator_id=r["annotator"], submitted=r["submitted"],
                          skipped=r["skipped"])
            for r in rows.order_by().values("post__batch", "annotator").annotate(
                submitted=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
                skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)))])
    return fixed


def _progress_add(assignment: Assignment, *, submitted: int = 0, skipped: int = 0) -> None:
    """In the transaction that changed the claim's status. A missing row is made from an exact
    count, which already sees this change; one made meanwhile by a reader did not, so it gets the
    delta. An answer to a gold item runs the same statements on the row of the batch it was served
    in, adding nothing (issue 12: a gold item costs the same work as a real post)."""
    gold = assignment.gold_batch_id is not None
    batch_id = assignment.gold_batch_id if gold else assignment.post.batch_id
    if batch_id is None:
        return
    if gold:
        submitted = skipped = 0
    with claim_cursor() as cursor:  # plain SQL: on every submit and skip
        cursor.execute(f"UPDATE {BatchProgress._meta.db_table} SET submitted = submitted + %s, skipped = skipped + %s "
                       f"WHERE batch_id = %s AND annotator_id = %s", [submitted, skipped, batch_id, assignment.annotator_id])
        if cursor.rowcount:
            return
    row = BatchProgress.objects.filter(batch_id=batch_id, annotator_id=assignment.annotator_id)
    try:
        with transaction.atomic():
            BatchProgress.objects.create(batch_id=batch_id, annotator_id=assignment.annotator_id,
                                         **progress_counted(batch_id=batch_id, annotator_id=assignment.annotator_id))
    except IntegrityError:
        row.update(submitted=F("submitted") + submitted, skipped=F("skipped") + skipped)


def _claims_are_soft_state(durable: bool) -> bool:
    """A transaction that only claims (or releases) posts may commit without waiting for the disk
    (PostgreSQL synchronous_commit off, for this transaction only): a claim lost in a database
    crash frees its slot again, which is what expiry does anyway, and nothing acknowledged to an
    annotator is lost. Saves the WAL flush (~4 ms here) on every "next". Never when the transaction
    holds a judgment (`durable`: the one-request step) or belongs to a caller's outer transaction:
    that commit stays durable."""
    connection = transaction.get_connection()
    return not durable and connection.vendor == "postgresql" and len(connection.atomic_blocks) == 1


def _claim_write(*, post_id: int, annotator, now, counter_post_id: int, counter: int, durable: bool,
                 gold_batch_id: int | None = None) -> Assignment:
    """Write a new claim on `post_id` and set `counter_post_id`'s live-claim counter: the writes
    every claim runs, real or gold (a gold claim leaves the real post's counter as it was), so the
    queue's statements cannot tell them apart. On PostgreSQL one statement (a data-modifying CTE,
    which also switches a claim-only transaction to asynchronous commit, see _claims_are_soft_state);
    elsewhere an INSERT and an UPDATE."""
    values = [post_id, annotator.pk, AssignmentStatus.ASSIGNED.value, connection.ops.adapt_datetimefield_value(now),
              gold_batch_id, False]
    insert = (f"INSERT INTO {Assignment._meta.db_table} (post_id, annotator_id, status, assigned_at, gold_batch_id, "
              f"lapsed) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id")
    update = f"UPDATE {Post._meta.db_table} SET live_claims = %s WHERE id = %s"
    with claim_cursor() as cursor:
        if connection.vendor == "postgresql":
            commit_mode = "set_config('synchronous_commit', 'off', true)" if _claims_are_soft_state(durable) else "NULL"
            cursor.execute(f"WITH claim AS ({insert}) {update} RETURNING (SELECT id FROM claim), {commit_mode}",
                           [*values, counter, counter_post_id])
            pk = cursor.fetchone()[0]
        else:
            cursor.execute(insert, values)
            pk = cursor.fetchone()[0]
            cursor.execute(update, [counter, counter_post_id])
    assignment = Assignment(id=pk, post_id=post_id, annotator=annotator, status=AssignmentStatus.ASSIGNED,
                            assigned_at=now, gold_batch_id=gold_batch_id, lapsed=False)
    assignment._state.adding, assignment._state.db = False, connection.alias
    return assignment


def _counter_write(post_id: int, live_claims: int) -> None:
    with claim_cursor() as cursor:
        cursor.execute(f"UPDATE {Post._meta.db_table} SET live_claims = %s WHERE id = %s", [live_claims, post_id])


@transaction.atomic
def assignment_next(*, annotator, batch_id: int) -> Assignment | None:
    """The annotator's open item in the batch, or a newly claimed one (see _assignment_next)."""
    return _assignment_next(annotator=annotator, batch_id=batch_id, durable=False)


def _assignment_next(*, annotator, batch_id: int, durable: bool) -> Assignment | None:
    """The annotator's open item in the batch, or a newly claimed one. In the caller's transaction
    (`durable`: it also holds a judgment, so it commits durably).

    A post takes k annotators; live claims (not expired) and submitted ones count toward k.
    Posts with the fewest claims go first, so coverage stays even: an index range scan over
    (batch, live_claims, id). One assignment row per (post, annotator) ever, so nobody gets a post
    twice; an expired claim frees its slot for others and is resumed by its owner only if the slot
    is still free. Whether a post has room is decided on an exact recount under the post's lock.

    The common step (no open item, nothing expired, no gold) is five statements on PostgreSQL: the
    context, the pick-and-lock, the post's claims, the claim with its counter, the commit.
    """
    context = claim_context(annotator=annotator, batch_id=batch_id)
    batch = context.batch
    if batch.is_locked:
        return None
    # Issue 12: the qualification round, and gold items mixed in at the batch's gold rate.
    gold = gold_plan(annotator=annotator, batch=batch) if context.needs_gold_plan else GoldPlan(None, None)
    if gold.open is not None:
        return gold.open
    now = timezone.now()
    cutoff = now - timedelta(minutes=batch.assignment_timeout_minutes)
    if context.newest_open_at is not None and context.newest_open_at >= cutoff:
        open_item = open_claim(annotator=annotator, batch=batch, since=cutoff)
        if open_item is not None:  # (None only if it lapsed since the context was read)
            return open_item
    if context.oldest_open_at is not None and context.oldest_open_at < cutoff:
        claims_release_expired(batch=batch, now=now)
    k = batch.annotators_per_post
    tried: list[int] = []
    while len(tried) < CANDIDATES:
        sql, params = claim_candidates_sql(annotator=annotator, batch=batch, exclude=tuple(tried))
        with claim_cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            if gold.post is not None and gold.tail:
                # Issue 20: every post has had its turn with this annotator; the rest of their gold
                # quota comes now, so the queue ends where the progress bar does.
                served = _claim_write(post_id=gold.post.pk, annotator=annotator, now=now, gold_batch_id=batch.pk,
                                      counter_post_id=gold.post.pk, counter=gold.post.live_claims, durable=durable)
                served.post, served.gold_batch = gold.post, batch
                return served
            return None
        post = Post.from_db(connection.alias, ["id", "text", "live_claims"], row)
        post.batch, post_id = batch, row[0]
        tried.append(post_id)
        # Under the lock, one read of the post's claims (a handful of rows): mine, live, expired.
        claims = post_claims(post_id)
        assignment = None
        for pk, who, status, lapsed, gold_batch_id, _assigned_at in claims:
            if who == annotator.pk:
                if status != AssignmentStatus.ASSIGNED or not lapsed or gold_batch_id is not None:
                    assignment = False  # taken by another tab of mine meanwhile
                    break
                assignment = Assignment.objects.get(pk=pk)
        if assignment is False:
            continue
        if any(status == AssignmentStatus.ASSIGNED and not lapsed and gold_batch_id is None and assigned_at < cutoff
               for _pk, _who, status, lapsed, gold_batch_id, assigned_at in claims):
            _release_expired_on(post_id, cutoff)
            live = _recount_claims(post)
        else:
            live = sum(1 for _pk, _who, status, lapsed, gold_batch_id, _at in claims if gold_batch_id is None and (
                status == AssignmentStatus.SUBMITTED or (status == AssignmentStatus.ASSIGNED and not lapsed)))
            if live != post.live_claims:
                _counter_write(post_id, live)
                post.live_claims = live
        if live >= k:
            continue
        if gold.post is not None:
            # A gold item in place of this post, which stays unclaimed: the same writes, with the
            # post's counter left as it is (a gold claim takes no slot).
            served = _claim_write(post_id=gold.post.pk, annotator=annotator, now=now, gold_batch_id=batch.pk,
                                  counter_post_id=post_id, counter=post.live_claims, durable=durable)
            served.post, served.gold_batch = gold.post, batch
            return served
        post.live_claims += 1
        if assignment is None:
            assignment = _claim_write(post_id=post_id, annotator=annotator, now=now, counter_post_id=post_id,
                                      counter=post.live_claims, durable=durable)
        else:  # the annotator's own lapsed claim, resumed
            assignment.assigned_at, assignment.lapsed = now, False
            assignment.save(update_fields=["assigned_at", "lapsed"])
            _counter_write(post_id, post.live_claims)
        assignment.post = post
        return assignment
    return None


def _ensure_room_for_late_submission(assignment: Assignment) -> Post | None:
    """A claim that was skipped or has expired no longer holds a slot: the submission is accepted
    only while the post still has room, so a post never gets more than k judgments. Returns the
    locked post (None when the claim is already submitted or the post is in no batch). A gold item's
    post is locked and read the same way (issue 12: the same work as a real post), even an uploaded
    one that is in no batch."""
    batch = assignment.post.batch
    gold = assignment.gold_batch_id is not None
    if (batch is None and not gold) or assignment.status == AssignmentStatus.SUBMITTED:
        return None
    # The same row lock assignment_next takes before handing out a slot, taken before the claim's
    # liveness is read: a claim expiring between this check and the commit cannot have its slot
    # handed to someone else meanwhile.
    post = _lock_post(assignment.post_id)
    claim = next((c for c in post_claims(assignment.post_id, claim_id=assignment.pk) if c[0] == assignment.pk), None)
    if claim is None:  # the claim was deleted meanwhile (its post or its annotator removed)
        raise NotFound(_("This post is not in your queue."))
    assignment.status, assignment.lapsed, assignment.assigned_at = claim[2], claim[3], claim[5]
    if assignment.status == AssignmentStatus.SET_ASIDE:  # final for this person (wellbeing/services.py)
        raise DomainError(_("You set this post aside as too distressing; it is no longer in your queue."))
    if assignment.status == AssignmentStatus.SUBMITTED or gold:
        return post  # (an answer to a gold item takes no slot)
    cutoff = timezone.now() - timedelta(minutes=batch.assignment_timeout_minutes)
    if assignment.status == AssignmentStatus.ASSIGNED and not assignment.lapsed and assignment.assigned_at >= cutoff:
        return post  # a live claim: its slot is reserved
    _release_expired_on(assignment.post_id, cutoff)  # this claim's own slot too, if it still held one
    if _recount_claims(post) >= batch.annotators_per_post:
        raise PostTaken(_("This post went to another annotator while it was open here (your claim had expired "
                          "or you skipped it), and it already has all the judgments it needs. "
                          "Your judgment was not saved."))
    assignment.lapsed = True  # what _release_expired_on wrote, if it was still open
    return post


def _assignment_for(annotator, post_id: int | None = None, claim_id: int | None = None
                    ) -> tuple[Assignment, Guideline | None]:
    """The annotator's claim (with its post and batches) and the guideline in force. The claim is
    named by its post (in-process callers) or by its own id (the API's opaque item id, which says
    nothing about the post: issue 12). NotFound unless it is theirs; refused once its batch is locked."""
    if (post_id is None) == (claim_id is None):
        raise TypeError("name the claim by exactly one of post_id and claim_id")
    found = claim_of(annotator, post_id=post_id, claim_id=claim_id)
    if found is None:
        raise NotFound(_("This post is not in your queue."))
    assignment = found[0]
    batch = assignment.gold_batch or assignment.post.batch  # a gold item belongs to the batch it was served in
    if batch and batch.is_locked:
        raise DomainError(_("This batch is locked; judgments can no longer change."))
    return found


def _record_revision(judgment: Judgment, changed_by, old: dict, new: dict) -> None:
    if old != new:
        JudgmentRevision.objects.create(judgment=judgment, changed_by=changed_by, old=old, new=new,
                                        guideline=judgment.guideline)


def _judgment_state(judgment: Judgment) -> dict:
    return {**judgment.scores(), "note": judgment.note, "flagged": judgment.flagged}


@transaction.atomic
def judgment_submit(*, annotator, post_id: int | None = None, claim_id: int | None = None, scores: dict[str, int],
                    seconds_spent: float = 0.0, note: str = "", flagged: bool = False) -> Judgment:
    """Create the annotator's judgment for a post (named by the post or by the annotator's claim on
    it). Submitting again (a retry, or a change of mind before the batch locks) updates it and keeps
    the old values as a revision."""
    return _judgment_submit(annotator=annotator, post_id=post_id, claim_id=claim_id, scores=scores,
                            seconds_spent=seconds_spent, note=note, flagged=flagged)


def _judgment_insert(*, assignment: Assignment, annotator, clean: dict[str, int], seconds_spent: float, note: str,
                     flagged: bool, guideline: Guideline | None) -> Judgment | None:
    """The judgment as a new row, or None when the annotator already has one for the post (one
    statement, no savepoint: INSERT ... ON CONFLICT DO NOTHING, which SQLite and PostgreSQL share)."""
    now = timezone.now()
    columns = ["post_id", "annotator_id", *clean, "seconds_spent", "note", "flagged", "guideline_id", "gold",
               "created_at", "updated_at"]
    stamp = connection.ops.adapt_datetimefield_value(now)
    values = [assignment.post_id, annotator.pk, *clean.values(), seconds_spent, note, flagged,
              guideline.pk if guideline else None, assignment.gold_batch_id is not None, stamp, stamp]
    with claim_cursor() as cursor:
        cursor.execute(f"INSERT INTO {Judgment._meta.db_table} ({', '.join(columns)}) "
                       f"VALUES ({', '.join(['%s'] * len(values))}) "
                       f"ON CONFLICT (post_id, annotator_id) DO NOTHING RETURNING id", values)
        row = cursor.fetchone()
    if row is None:
        return None
    judgment = Judgment(id=row[0], post_id=assignment.post_id, annotator=annotator, seconds_spent=seconds_spent,
                        note=note, flagged=flagged, guideline=guideline, gold=assignment.gold_batch_id is not None,
                        created_at=now, updated_at=now, **clean)
    judgment._state.adding, judgment._state.db = False, connection.alias
    judgment.revision_count = 0
    return judgment


def _judgment_submit(*, annotator, post_id: int | None, claim_id: int | None, scores: dict[str, int],
                     seconds_spent: float, note: str, flagged: bool) -> Judgment:
    """judgment_submit in the caller's transaction."""
    clean = scores_validate(scores)
    if seconds_spent < 0 or seconds_spent > 86400:
        raise DomainError(_("seconds_spent must be between 0 and 86400."))
    assignment, guideline = _assignment_for(annotator, post_id, claim_id)
    post_id = assignment.post_id
    post = _ensure_room_for_late_submission(assignment)
    judgment = _judgment_insert(assignment=assignment, annotator=annotator, clean=clean, seconds_spent=seconds_spent,
                                note=note, flagged=flagged, guideline=guideline)
    if judgment is None:  # a retry, or a change of mind: the same judgment, revised
        judgment = Judgment.objects.select_for_update().get(post_id=post_id, annotator=annotator)
        old = _judgment_state(judgment)
        for dim, value in clean.items():
            setattr(judgment, dim, value)
        judgment.note, judgment.flagged = note, flagged
        judgment.seconds_spent += seconds_spent
        judgment.guideline = guideline
        judgment.save()
        _record_revision(judgment, annotator, old, _judgment_state(judgment))
    if assignment.status != AssignmentStatus.SUBMITTED:
        was_skipped, held = assignment.status == AssignmentStatus.SKIPPED, assignment.holds_slot
        assignment.status, assignment.lapsed = AssignmentStatus.SUBMITTED, False
        assignment.completed_at = timezone.now()
        with claim_cursor() as cursor:
            cursor.execute(f"UPDATE {Assignment._meta.db_table} SET status = %s, lapsed = %s, completed_at = %s "
                           f"WHERE id = %s", [AssignmentStatus.SUBMITTED.value, False,
                                              connection.ops.adapt_datetimefield_value(assignment.completed_at),
                                              assignment.pk])
        if post is not None and not held and assignment.holds_slot:
            _recount_claims(post)  # a late submission takes a slot again
        _progress_add(assignment, submitted=1, skipped=-1 if was_skipped else 0)
    judgment.post, judgment.item = assignment.post, assignment.pk
    return judgment


@transaction.atomic
def judgment_submit_and_next(*, annotator, batch_id: int, post_id: int | None = None, claim_id: int | None = None,
                             scores: dict[str, int], seconds_spent: float = 0.0, note: str = "",
                             flagged: bool = False) -> tuple[Judgment, Assignment | None]:
    """One scoring step in one request and one transaction: submit the judgment (for `post_id` or
    the claim `claim_id`), then
    claim the annotator's next post of the batch (None when nothing is left). A refused late
    submission (PostTaken) writes nothing and claims nothing. No savepoints: one transaction, which
    commits durably (it holds a judgment)."""
    judgment = _judgment_submit(annotator=annotator, post_id=post_id, claim_id=claim_id, scores=scores,
                                seconds_spent=seconds_spent, note=note, flagged=flagged)
    return judgment, _assignment_next(annotator=annotator, batch_id=batch_id, durable=True)


@transaction.atomic
def judgment_revise(*, annotator, judgment_id: int, scores: dict[str, int] | None = None,
                    note: str | None = None, flagged: bool | None = None, seconds_spent: float = 0.0) -> Judgment:
    judgment = Judgment.objects.select_for_update().filter(pk=judgment_id, annotator=annotator).first()
    if judgment is None:
        raise NotFound(_("No such judgment of yours."))
    claim, guideline = _assignment_for(annotator, judgment.post_id)  # (read with the guideline in force)
    judgment.item = claim.pk
    old = _judgment_state(judgment)
    if scores:
        merged = {**judgment.scores(), **scores}
        for dim, value in scores_validate(merged).items():
            setattr(judgment, dim, value)
    if note is not None:
        judgment.note = note
    if flagged is not None:
        judgment.flagged = flagged
    judgment.seconds_spent += max(0.0, seconds_spent)
    judgment.guideline = guideline
    judgment.save()
    _record_revision(judgment, annotator, old, _judgment_state(judgment))
    return judgment


@transaction.atomic
def assignment_skip(*, annotator, post_id: int | None = None, claim_id: int | None = None) -> Assignment:
    """Skipping gives the slot back to the pool and never shows the post to this annotator again.
    The post is named by its id or by the annotator's claim on it."""
    assignment = _assignment_for(annotator, post_id, claim_id)[0]
    post = _lock_post(assignment.post_id)
    current = Assignment.objects.filter(pk=assignment.pk).values("status", "lapsed").first()
    if current is None:  # deleted meanwhile (a takedown releases open claims; its post or annotator removed)
        raise NotFound(_("This post is not in your queue."))
    assignment.status, assignment.lapsed = current["status"], current["lapsed"]
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise DomainError(_("You already judged this post; revise it instead of skipping."))
    if assignment.status in (AssignmentStatus.SKIPPED, AssignmentStatus.SET_ASIDE):
        return assignment  # (a set-aside post stays set aside: never a skip)
    held = assignment.holds_slot
    assignment.status = AssignmentStatus.SKIPPED
    assignment.completed_at = timezone.now()
    assignment.save(update_fields=["status", "completed_at"])
    if held or assignment.gold_batch_id is not None:
        _recount_claims(post, always_write=not held)  # a gold item's skip: the same writes, nothing changed
    _progress_add(assignment, skipped=1)
    return assignment


@transaction.atomic
def batch_lock(*, batch_id: int, locked_by=None) -> Batch:
    """Lock the batch (its judgments become final), recorded in the audit log (issue 30): who (`locked_by`;
    None: the system or the command line), which batch, when."""
    from audit.services import audit_record

    batch = Batch.objects.select_for_update().get(pk=batch_id)
    if batch.locked_at is None:
        batch.locked_at = timezone.now()
        batch.save(update_fields=["locked_at"])
        audit_record(actor=locked_by, instances=[batch], event="batch", changes={"locked_at": (None, batch.locked_at)})
    return batch
