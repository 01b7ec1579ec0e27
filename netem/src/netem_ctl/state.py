"""The last applied profile, in a file, so a restarted sidecar re-applies the lab's profile.

The default path (/var/lib/netem/state.json) is in the container's own filesystem: it survives the
restarts of `restart: unless-stopped` (same container) but not a re-created container, which starts
from NETEM_PROFILE as configured.
"""

import json
import logging
import os
from pathlib import Path

from pydantic import ValidationError

from .profiles import Profile

log = logging.getLogger("netem.state")


class StateStore:
    def __init__(self, path: Path):
        self.path = path

    def save(self, profile: Profile) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(profile.model_dump()) + "\n")
        os.replace(temporary, self.path)

    def load(self) -> Profile | None:
        """The saved profile; None when there is none or it is unreadable (logged, never fatal)."""
        try:
            return Profile.model_validate_json(self.path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValidationError) as exc:
            log.error("ignoring unreadable state file %s: %s", self.path, exc)
            return None
