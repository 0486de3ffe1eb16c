"""The key store: system keyring when there is one, memory for the session when not, never
frozen. Plain asyncio, no Qt (the window's side of it: tests/ui/test_secrets.py)."""

import asyncio
import time

from paydesk.config.secrets import KeyStore
from tests.config.keyrings import AbsentKeyring, LockedKeyring, SilentKeyring, SlowKeyring


async def test_memory_backend_round_trip(memory_keyring):
    store = KeyStore(memory_keyring)
    assert await store.set("p1", "test", "secret", " sec-test-abc ") is True
    assert await KeyStore(memory_keyring).get("p1", "test", "secret") == "sec-test-abc"
    assert await store.set("p1", "test", "webhook", "whsec-abc") is True  # the business's
    await store.delete_profile("p1")
    assert await KeyStore(memory_keyring).get("p1", "test", "secret") is None
    assert await KeyStore(memory_keyring).get("p1", "test", "webhook") is None  # forgotten too
    assert memory_keyring.store == {}
    assert store.persistent


async def test_a_refused_call_fails_alone():
    """Regression: one failing call switched the whole session to memory-only, and the
    editor said "saved" anyway."""
    store = KeyStore(LockedKeyring())
    assert await store.set("p1", "test", "secret", "sec-test-abc") is False  # not saved
    assert store.persistent and store.problem == "the keyring stayed locked"
    assert await store.get("p1", "test", "secret") == "sec-test-abc"  # kept this session


async def test_an_absent_keyring_falls_back_to_this_session():
    store = KeyStore(AbsentKeyring())
    assert await store.set("p1", "test", "secret", "sec-test-abc") is False
    assert not store.persistent
    assert await store.get("p1", "test", "secret") == "sec-test-abc"


async def test_an_unlock_prompt_is_waited_for_without_freezing():
    """Regression: a call slower than 5 s (a person typing the keyring's password) gave up
    and sent the whole session to memory."""
    backend = SlowKeyring(1.5)
    backend.store[("PayDesk", "p1/test/secret")] = "sec-test-abc"
    waiting = []
    store = KeyStore(backend, slow_after=0.3)
    store.on_waiting = waiting.append
    ticks = []

    async def get_while_ticking():
        async def tick():
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.02)

        ticker = asyncio.ensure_future(tick())
        try:
            return await store.get("p1", "test", "secret")
        finally:
            ticker.cancel()

    assert await get_while_ticking() == "sec-test-abc"
    assert waiting == [True, False] and store.persistent and store.problem is None
    assert len(ticks) > 30  # the loop went on ticking while the keyring was asked


async def test_a_keyring_that_never_answers_fails_that_call_only():
    backend = SilentKeyring()
    store = KeyStore(backend, slow_after=0.1, timeout=0.5)
    try:
        started = time.monotonic()
        assert await store.get("p1", "test", "secret") is None
        assert time.monotonic() - started < 2
        assert store.persistent and store.problem == "the keyring did not answer"
    finally:
        backend.answer()  # the call left waiting on its thread ends with the test
