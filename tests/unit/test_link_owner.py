"""lessons.link.owner: which lesson a link belongs to, from its keys (the home page opens that lesson, issue 20)."""
from __future__ import annotations

import lessons
from lessons import link

SCHEMAS = [x.link for x in lessons.REGISTRY]


def test_a_link_with_a_lessons_namespace_is_that_lessons():
    assert link.owner(SCHEMAS, {"lang": "en", "qkv": "2", "dk": "7", "t": "my sentence"}) == "qkv"
    assert link.owner(SCHEMAS, {"masks": "1", "t": "a b"}) == "masks"
    assert link.owner(SCHEMAS, {"scaling": "9"}) == "scaling"  # its page says the version is not known


def test_a_version_1_link_without_namespace_belongs_to_the_legacy_lesson_that_knows_every_key():
    legacy = [x for x in lessons.REGISTRY if x.link.legacy]
    assert legacy, "a lesson reads version-1 links"
    for lesson in legacy:
        some = sorted(lesson.link.keys)[:3]
        assert link.owner(SCHEMAS, {"v": "1", **{k: "1" for k in some}}) == lesson.key


def test_no_owner_for_the_frames_keys_unknown_keys_or_a_link_over_the_limits():
    assert link.owner(SCHEMAS, {}) is None
    assert link.owner(SCHEMAS, {"lang": "en", "embed": "true"}) is None
    assert link.owner(SCHEMAS, {"zz": "1"}) is None
    assert link.owner(SCHEMAS, {"v": "1"}) is None
    assert link.owner(SCHEMAS, {f"x{i}": "1" for i in range(link.MAX_PARAMS + 1)} | {"qkv": "2"}) is None
    assert link.owner(SCHEMAS, None) is None  # not a mapping
