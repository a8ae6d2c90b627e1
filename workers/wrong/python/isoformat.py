"""The Python reference worker with one mistake: timestamps from isoformat().

isoformat() writes 2026-01-16T09:00:00+00:00 (and .201000+00:00 with
milliseconds): not the lab's 24 characters, and it sorts wrongly against
them. The grader must fail it with its timestamp check.

    outboxlab grade session-16 -- python3 workers/wrong/python/isoformat.py
"""

import os
import sys
from datetime import datetime, timezone

sys.dont_write_bytecode = True  # leave no __pycache__ in the repository
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "reference", "python"))
import worker  # noqa: E402  (the reference, unchanged)

worker.time_text = lambda ms: datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()
worker.parse_time = lambda text: int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000 + 0.5)

if __name__ == "__main__":
    worker.main()
