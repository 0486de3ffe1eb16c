"""How notifications read on screen: a verdict's words, when the last one arrived ("Last
notification 2 min ago"), an entry's headers and body as text, and the refused requests by
peer ("104 refused from 10.0.0.7 in the last hour")."""

from __future__ import annotations

from datetime import UTC, datetime

from ..i18n import N_, _, ngettext, staff
from ..ledger.inbox import (
    APPLIED,
    BAD_SIGNATURE,
    DUPLICATE,
    IGNORED,
    OTHERS,
    PENDING,
    STALE,
    UNKNOWN_REFERENCE,
    InboxEntry,
    RefusedGroup,
)
from .formats import number_in, time_in

VERDICT_WORDS = {  # a verdict's words, shown through _()
    PENDING: N_("Pending"),
    APPLIED: N_("Applied"),
    DUPLICATE: N_("Duplicate"),
    BAD_SIGNATURE: N_("Bad signature"),
    UNKNOWN_REFERENCE: N_("Unknown reference"),
    STALE: N_("Stale"),
    IGNORED: N_("Ignored"),
}
NONE_SINCE_START = N_("No notification since start")


def ago(when: datetime, now: datetime | None = None) -> str:
    """``when`` as a person says it: "just now", "40 s ago", "2 min ago", "3 h ago", or the
    local date and time when it is a day or more."""
    seconds = max(0, int(((now or datetime.now(UTC)) - when).total_seconds()))
    if seconds < 5:
        return _("just now")
    if seconds < 60:
        return _("{seconds} s ago").format(seconds=seconds)
    if seconds < 3600:
        return _("{minutes} min ago").format(minutes=seconds // 60)
    if seconds < 86400:
        return _("{hours} h ago").format(hours=seconds // 3600)
    return _("on {moment}").format(moment=time_in(when, staff()))


def last_notification(
    last: datetime | None, *, arrived_since_start: bool, paid_since_start: bool, now: datetime | None = None
) -> str:
    """The status bar's words: "Last notification 2 min ago"; "No notification since start"
    once links were paid while none arrived (PAID learned by checking only); else nothing."""
    if paid_since_start and not arrived_since_start:
        return _(NONE_SINCE_START)
    if last is None:
        return ""
    return _("Last notification {ago}").format(ago=ago(last, now))


def entry_text(entry: InboxEntry) -> str:
    """One entry in full, as text to read and copy: what was decided, the headers, and the
    raw body (decoded as UTF-8; bytes that are not are shown replaced)."""
    lines = [
        _("Received: {local:%Y-%m-%d %H:%M:%S %Z} ({utc:%Y-%m-%d %H:%M:%S} UTC)").format(
            local=entry.received_at.astimezone(), utc=entry.received_at.astimezone(UTC)
        ),
        _("From: {remote}").format(remote=entry.remote or _("unknown")),
        _("Verdict: {verdict}").format(
            verdict=_(VERDICT_WORDS[entry.verdict]) if entry.verdict in VERDICT_WORDS else entry.verdict
        ),
    ]
    if entry.detail:
        lines.append(_("Detail: {detail}").format(detail=entry.detail))
    if entry.tx_ref:
        lines.append(_("Reference: {tx_ref}").format(tx_ref=entry.tx_ref))
    if entry.duplicate_of is not None:
        lines.append(_("The same body as notification {duplicate_of}").format(duplicate_of=entry.duplicate_of))
    lines.append(_("Body SHA-256: {body_hash}").format(body_hash=entry.body_hash))
    lines += ["", _("Headers:")]
    lines += [f"{name}: {value}" for name, value in sorted(entry.headers.items())] or [_("(none)")]
    lines += [
        "",
        ngettext("Body ({count} byte):", "Body ({count} bytes):", len(entry.body)).format(
            count=number_in(len(entry.body), staff())
        ),
        entry.body.decode("utf-8", "replace"),
    ]
    return "\n".join(lines)


SHOWN_PEERS = 5  # peers named one a line; the rest are summed up in one more


def _peer(remote: str) -> str:
    if remote == OTHERS:
        return _("other addresses")
    return remote or _("an unknown address")


def refused_words(groups: list[RefusedGroup], when: str = N_("in the last hour")) -> str:
    """The refused requests by peer, one line each, the most first: "104 refused from
    10.0.0.7 in the last hour"; past ``SHOWN_PEERS`` peers, one line for the rest."""

    def line(count: int, peer: str) -> str:
        return ngettext("{count} refused from {peer} {when}", "{count} refused from {peer} {when}", count).format(
            count=number_in(count, staff()), peer=peer, when=_(when)
        )

    lines = [line(g.count, _peer(g.remote)) for g in groups[:SHOWN_PEERS]]
    rest = groups[SHOWN_PEERS:]
    if rest:
        addresses = ngettext("{addresses} more address", "{addresses} more addresses", len(rest)).format(
            addresses=number_in(len(rest), staff())
        )
        lines.append(line(sum(g.count for g in rest), addresses))
    return "\n".join(lines)
