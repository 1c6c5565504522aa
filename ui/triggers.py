"""One batch, one scope: the frame's components send their trigger values through :data:`ONE_SCOPE_JS`.

Streamlit's frontend (1.67) gathers the widget updates of one browser task into a single message, flushed by a
``setTimeout(0)``, and runs that message in *one* scope: when an update from inside a fragment (the drag relay of a
live fragment, asking for frames as a pointer comes over its slider) and one from outside it (a presentation clicker's
Page Up) fall into the same batch, the whole batch runs as the fragment and the outside trigger is lost. A teacher's
click then does nothing (seen on /training in CI: the page scrolled to the step's control under a resting pointer,
whose "pointer over" request went out with the clicker's key).

``ONE_SCOPE_JS`` defines ``sendInScope(scope, fn)`` in the module that includes it (the relay, the presentation keys,
the viewport's width): ``fn`` sends one trigger value of ``scope`` (a live fragment's element, or ``null`` for the
whole app). A send of another scope than the batch already open waits for that batch's flush (a later
``setTimeout(0)``, which runs after it), so every batch has one scope. The batch's record lives on ``window`` so that
every module shares it.
"""
from __future__ import annotations

from .plot_component import ASSETS

ONE_SCOPE_JS = (ASSETS / "scope.js").read_text(encoding="utf-8")  # assets/scope.js: sendInScope, exported
