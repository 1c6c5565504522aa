"""The app's page icon: a 3×3 attention-weights picture, as a data URL read once per server process.

A local file path would be re-read and re-registered with the media file manager on every rerun, and a
material-symbol icon is fetched by the browser from fonts.gstatic.com (fails offline, e.g. in a class room)."""
from __future__ import annotations

import base64
from pathlib import Path

_SVG = Path(__file__).resolve().parent.parent / "assets" / "favicon.svg"
FAVICON = "data:image/svg+xml;base64," + base64.b64encode(_SVG.read_bytes()).decode("ascii")
