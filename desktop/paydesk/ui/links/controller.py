"""Creating and checking links: widget -> these async methods -> service -> ledger -> signal."""

from __future__ import annotations

import logging
import sqlite3

from PySide6.QtCore import QObject, Signal

from ...config.profiles import Profile
from ...ledger import Ledger, LinkRecord
from ...service.errors import (AuthenticationError, DuplicateReferenceError,
                               RateLimitedError, ServiceError, ServiceUnavailableError,
                               ValidationError)
from ...service.models import PaymentRequest
from ...service.txref import TxRefGenerator
from ..session import Session

log = logging.getLogger("paydesk.links")


class LocalDuplicate(ValidationError):
    def __init__(self, tx_ref: str):
        super().__init__("This reference is already in PayDesk's ledger: use a new one",
                         {"tx_ref": ["already used here: generate a new reference"]})


class LinksController(QObject):
    linkChanged = Signal(object)  # a LinkRecord whose content or state changed
    linkSettled = Signal(object)  # a LinkRecord that just reached a final state

    def __init__(self, session: Session, ledger: Ledger):
        super().__init__()
        self.session = session
        self.ledger = ledger

    def generator(self, profile: Profile | None = None) -> TxRefGenerator:
        profile = profile or self.session.profile
        return TxRefGenerator(profile.txref_prefix if profile else "PAY",
                              self.session.settings.installation_id, self.ledger.next_sequence)

    def _changed(self, record: LinkRecord, state_changed: bool = False) -> LinkRecord:
        self.linkChanged.emit(record)
        if state_changed and record.final:
            self.linkSettled.emit(record)
        return record

    async def create(self, request: PaymentRequest) -> LinkRecord:
        """Write the intent, ask the service, write the answer. Raises ServiceError on refusal."""
        profile, mode = self.session.profile, self.session.mode
        client = await self.session.client()  # fails early (no key) before anything is written
        try:
            record = self.ledger.begin_link(profile.id, mode, request)
        except sqlite3.IntegrityError:
            raise LocalDuplicate(request.tx_ref) from None
        self._changed(record)
        try:
            link = await client.create_payment(request)
        except (ValidationError, AuthenticationError) as error:
            why = error.message
            if isinstance(error, DuplicateReferenceError):
                why = "The service has this reference for another payment"
            self._changed(self.ledger.reject_link(profile.id, request.tx_ref, why), True)
            self.session.report(f"Link not created: {why}")
            raise
        except ServiceError as error:
            # unknown outcome: the record stays "creating" and is settled later, same tx_ref
            self._changed(self.ledger.note_error(profile.id, request.tx_ref, error.message))
            self.session.report(f"Link {request.tx_ref}: {error.message}; PayDesk will settle it")
            raise
        record = self._changed(self.ledger.complete_link(profile.id, link))
        self.session.report(f"Link {record.tx_ref} created")
        return record

    async def check(self, record: LinkRecord) -> LinkRecord:
        """Ask the service for a link's state; store it; tell the views if it changed."""
        profile = self.session.settings.profile(record.profile_id)
        client = await self.session.client(profile, record.mode)
        tx = await client.validate(record.tx_ref)
        updated, changed = self.ledger.record_lookup(record.profile_id, record.mode, tx)
        if changed:
            self._changed(updated, True)
            self.session.report(f"Link {updated.tx_ref}: {updated.state}")
        return updated

    async def settle(self, record: LinkRecord) -> LinkRecord:
        """A create interrupted earlier (crash, lost answer): the same intent, same tx_ref."""
        profile = self.session.settings.profile(record.profile_id)
        if profile is None:
            return record
        client = await self.session.client(profile, record.mode)
        try:
            link = await client.create_payment(record.request(), resumed=True)
        except (ValidationError, AuthenticationError) as error:
            return self._changed(self.ledger.reject_link(profile.id, record.tx_ref, error.message), True)
        except (ServiceUnavailableError, RateLimitedError) as error:
            return self._changed(self.ledger.note_error(profile.id, record.tx_ref, error.message))
        settled = self._changed(self.ledger.complete_link(profile.id, link))
        log.info("settled interrupted link %s", settled.tx_ref)
        return settled

    async def recover(self) -> list[LinkRecord]:
        """On start: settle every create whose outcome was not recorded."""
        done = []
        for record in self.ledger.unsettled():
            try:
                done.append(await self.settle(record))
            except ServiceError as error:
                log.warning("could not settle %s yet: %s", record.tx_ref, error.message)
        return done
