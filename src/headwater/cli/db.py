"""``headwater db``: migrate the store and re-derive the graph from the event log."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from headwater.model.times import InvalidTime, iso, parse_time, to_micros
from headwater.settings import load_settings
from headwater.store import InvalidStoreUrl, Store
from headwater.store.engine import create_store_engine, events_file
from headwater.store.migrate import current_revision, head_revision, upgrade


def _url(db: str | None) -> str:
    return load_settings({"db": db}).db_url


# every subcommand's store: the same option, one definition
_DB = click.option(
    "--db",
    "db",
    default=None,
    help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.",
)


@click.group("db")
def command() -> None:
    """Manage the store: schema migrations, graph rebuilds, backups, compaction of the log."""


@command.command("upgrade")
@_DB
def upgrade_command(db: str | None) -> None:
    """Migrate the store's schema to the newest version."""
    url = _url(db)
    try:
        engine = create_store_engine(url)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    try:
        before = current_revision(engine)
        moved = upgrade(engine)
        after = current_revision(engine)
    finally:
        engine.dispose()
    if moved and engine.url.database:
        click.echo(f"event log ({moved} events) moved into its own file: {events_file(engine.url.database)}")
    if before == after:
        click.echo(f"store is at the newest schema ({after})")
    else:
        click.echo(f"store migrated from {before or 'empty'} to {after} (newest: {head_revision()})")


@command.command("rebuild")
@_DB
def rebuild_command(db: str | None) -> None:
    """Re-derive the whole lineage graph from the event log."""
    try:
        store = Store.open(_url(db))
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        count = store.rebuild()
    click.echo(f"graph rebuilt from {count} events")


@command.command("retry-failed")
@_DB
def retry_failed_command(db: str | None) -> None:
    """Derive again the events the projector recorded as failed (after upgrading to a fixed version).

    The events stay in the log either way; GET /api/v1/status lists the ones still failing.
    Exits with code 1 when some still fail.
    """
    try:
        store = Store.open(_url(db), retry_failed=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        store.catch_up()
        fixed, still = store.retry_failed()
    click.echo(f"{fixed} failed event(s) derived now; {len(still)} still failing")
    for failed in still[:20]:
        click.echo(f"  event {failed['id']} (seq {failed['seq']}): {failed['error'][:300]}")
    if still:
        raise SystemExit(1)


@command.command("status")
@_DB
def status_command(db: str | None) -> None:
    """Projection lag and the events that could not be derived (what GET /api/v1/status answers)."""
    try:
        store = Store.open(_url(db), retry_failed=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        health = store.projection_status()
        horizon = store.pruned_before()
        rules = store.graph_rules()
    click.echo(
        f"log position {health.position.log}, graph position {health.position.graph} "
        f"({health.position.behind} behind); {health.failed} event(s) failed to derive"
    )
    if rules.rebuild_needed:
        derived = "rules never recorded" if rules.graph is None else f"rules {rules.graph}"
        click.echo(
            f"the graph was derived by {derived}; this version derives by rules {rules.current}: "
            "run `headwater db rebuild` to derive it again (docs/store.md, 'Rules of derivation')"
        )
    if horizon is not None:
        click.echo(f"history pruned before {iso(to_micros(horizon))} (headwater db prune)")
    for failed in health.failed_events[:20]:
        click.echo(f"  event {failed['id']} (seq {failed['seq']}): {failed['error'][:300]}")


def _before(text: str) -> datetime:
    try:
        return parse_time(text)
    except InvalidTime:
        raise click.BadParameter(f"{text!r} is not a time: use ISO 8601, e.g. 2026-01-01T00:00:00Z") from None


@command.command("prune")
@click.option("--before", "before", required=True, help="Event time (ISO 8601; no zone: UTC): prune history before it.")
@_DB
def prune_command(before: str, db: str | None) -> None:
    """Remove raw events and run history older than --before; keep the graph's current state.

    Every version still valid after --before stays; the pruned runs' job samples are kept as the
    snapshot a rebuild starts from, so `headwater db rebuild` gives the same graph afterwards. As-of
    reads before --before then answer 410 history_pruned. Safe while servers run (it takes the writers'
    lock). HEADWATER_RETENTION_DAYS does the same as a rolling window.
    """
    moment = _before(before)
    try:
        store = Store.open(_url(db), retry_failed=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        done = store.prune(moment)
    click.echo(
        f"pruned {done.events} event(s) and {done.runs} run(s) before {iso(done.before)}; "
        f"{done.job_samples} job sample(s) kept for the versions they began"
    )


@command.command("backup")
@click.argument("target", type=click.Path(dir_okay=False, path_type=Path))
@_DB
def backup_command(target: Path, db: str | None) -> None:
    """Copy the store to TARGET while servers run (online).

    SQLite: TARGET and its event log beside it (TARGET's name with .events), both copied with SQLite's
    backup API from one snapshot, so they are consistent with each other. PostgreSQL: a pg_dump archive
    (custom format; restore with pg_restore into an empty database). Serve a copy with --db sqlite:///TARGET.
    """
    from headwater.store.backup import BackupError, backup

    try:
        done = backup(_url(db), target)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    except BackupError as exc:
        raise click.ClickException(str(exc)) from None
    for path in done.files:
        click.echo(f"wrote {path}")
    if done.log_position is not None:
        click.echo(f"the copy holds the log up to event {done.log_position}, the graph up to {done.graph_position}")


@command.command("compact")
@click.option("--batch", default=500, show_default=True, help="Rows rewritten per transaction (appends wait for one).")
@click.option("--no-train", "no_train", is_flag=True, help="Use the newest dictionary as it is; train no new one.")
@click.option("--vacuum", is_flag=True, help="Then give the freed space back (SQLite: VACUUM of the log's file).")
@_DB
def compact_command(batch: int, no_train: bool, vacuum: bool, db: str | None) -> None:
    """Train a zstd dictionary on the newest events and recompress the log (and the derived texts) with it.

    Events keep their ids and read back byte for byte the same. Rows stored before the log was compressed
    (or with an older dictionary) are rewritten with the newest one, in short transactions, oldest first,
    while servers run; a row is rewritten only when that makes it smaller. --vacuum then returns the freed
    space to the file system (on SQLite appends wait while the log's file is copied; PostgreSQL's VACUUM
    makes the space reusable).
    """
    from headwater.store import codec, parts

    if batch < 1:
        raise click.BadParameter(f"--batch must be at least 1, got {batch}")
    try:
        store = Store.open(_url(db), retry_failed=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        if not no_train:
            trained = codec.train(store.engine)
            if trained.new:
                click.echo(
                    f"dictionary {trained.dictionary} trained on {trained.samples} events "
                    f"(held-out events: {trained.with_previous} → {trained.with_new} bytes)"
                )
            else:
                click.echo(f"no better dictionary than {trained.dictionary} from {trained.samples} events: kept it")
        done = codec.compact(store.engine, batch=batch)
        click.echo(
            f"{done.rewritten} of {done.rows} event(s) recompressed with dictionary {done.dictionary}: "
            f"{done.bytes_before} → {done.bytes_after} bytes of event text"
        )
        packed = parts.compact(store.engine, batch=batch)
        click.echo(
            f"derived texts: {packed.rows} row(s) moved into parts, {packed.parts} part(s) recompressed "
            f"({packed.bytes_before} → {packed.bytes_after} bytes), {packed.removed} part(s) no row names removed"
        )
        if vacuum:
            codec.vacuum(store.engine)
            click.echo("freed space returned (VACUUM)")


@command.command("load")
@click.argument("events_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--rejects",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where rejected lines are listed, one JSON object a line (line, code, reason). "
    "Default: beside EVENTS_FILE, its name + .rejects.jsonl.",
)
@click.option("--stop-at-error", "stop_at_error", is_flag=True, help="End the load at the first bad line.")
@click.option("--batch", default=20000, show_default=True, help="Events per append transaction (one sync each).")
@click.option("--workers", type=int, default=None, help="Parse processes (default: cores less one; 0: none).")
@_DB
def load_command(
    events_file: Path, rejects: Path | None, stop_at_error: bool, batch: int, workers: int | None, db: str | None
) -> None:
    """Load a big history of OpenLineage events: EVENTS_FILE holds one event per line (NDJSON; .gz or .zst
    compressed by its suffix).

    Every line is checked as POST /api/v1/lineage checks it posted alone, and stored as that post stores it.
    A bad line is skipped and listed (line number and reason, on screen and in the --rejects file), and the
    command exits with code 1; --stop-at-error ends the load at the first one instead. Events are appended in
    durable batches (a counted event is in the log) and the graph is derived in big steps as they come, the
    same graph as one-by-one ingest. Running it again skips the events already in the log (an interrupted load
    is finished by running it again). Safe while servers run; fastest with none.
    """
    import json

    from headwater.ingest.accept import Policy
    from headwater.store.bulkload import Progress, load_file

    if batch < 1:
        raise click.BadParameter(f"--batch must be at least 1, got {batch}")
    settings = load_settings({"db": db})
    try:
        store = Store.open(settings.db_url, background=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    shown = [0.0]

    def progress(p: Progress) -> None:
        if p.seconds - shown[0] < 2.0:
            return
        shown[0] = p.seconds
        click.echo(
            f"  {p.seconds:7.0f} s  line {p.lines:,}: {p.appended:,} appended, {p.duplicates:,} already in the log, "
            f"{p.rejected:,} rejected; graph derived for {p.derived:,} ({p.appended / max(p.seconds, 1e-9):,.0f} events/s)",
            err=True,
        )

    with store:
        report = load_file(
            store,
            events_file,
            Policy.from_settings(settings),
            max_bytes=int(settings.max_body_bytes),
            workers=workers,
            batch=batch,
            stop_at_error=stop_at_error,
            progress=progress,
        )
    rate = report.appended / report.seconds if report.seconds else 0.0
    click.echo(
        f"{report.lines:,} non-blank line(s) read: {report.appended:,} event(s) appended, {report.duplicates:,} already in "
        f"the log, {len(report.rejected):,} rejected; graph derived for {report.derived:,} event(s) "
        f"in {report.seconds:,.1f} s ({rate:,.0f} events/s)"
    )
    if report.rejected:
        target = rejects or events_file.with_name(events_file.name + ".rejects.jsonl")
        with target.open("w", encoding="utf-8") as out:
            for r in report.rejected:
                out.write(json.dumps({"line": r.line, "code": r.code, "reason": r.reason}) + "\n")
        for r in report.rejected[:20]:
            click.echo(f"  line {r.line}: {r.code}: {r.reason[:300]}", err=True)
        if len(report.rejected) > 20:
            click.echo(f"  ... {len(report.rejected) - 20:,} more", err=True)
        click.echo(f"rejected lines listed in {target}", err=True)
        if report.stopped_at is not None:
            click.echo(
                f"stopped at line {report.stopped_at} (--stop-at-error); the lines before it are loaded", err=True
            )
        raise SystemExit(1)
