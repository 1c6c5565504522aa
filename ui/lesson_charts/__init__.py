"""Charts that only one lesson draws: one module per lesson, named by its key (``ui/lesson_charts/<key>.py``),
imported by that lesson's page only. Figure specs without Streamlit, like ui/figures.py
(tests/ui/test_lesson_modules.py)."""
