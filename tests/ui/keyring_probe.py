"""Run inside a D-Bus session by test_keyring_real.py: reads or deletes a profile's keys the
way PayDesk does, through the real system keyring. Prints JSON."""

import asyncio
import json
import sys

from paydesk.config.paths import default_paths
from paydesk.config.profiles import SettingsFile
from paydesk.config.secrets import KeyStore, system_backend


async def main(action: str) -> None:
    paths = default_paths()
    settings = SettingsFile(paths.profiles).load()
    store = KeyStore(system_backend())
    out = {"backend": store.backend_name, "persistent": store.persistent, "keys": {}}
    for profile in settings.profiles:
        if action == "delete":
            await store.delete_profile(profile.id)
        for mode in ("test", "live"):
            for kind in ("secret", "public"):
                out["keys"][f"{mode}/{kind}"] = await KeyStore(system_backend()).get(profile.id, mode, kind)
    print(json.dumps(out))


asyncio.run(main(sys.argv[1]))
