"""Issue 19 item 10.1: the custom-mask grid is Streamlit's data editor with checkbox cells, which toggle on their
tick box only (a click elsewhere in the cell selects the cell). Its help must not promise that a click on the cell
toggles it, in either language."""
from ui.i18n import table


def test_editor_help_names_the_tick_box_not_the_cell():
    import inspect

    from ui import widgets
    assert "CheckboxColumn" in inspect.getsource(widgets.mask_editor)  # the premise: checkbox cells
    en, ja = table("en")["masks.ctl.editor_help"], table("ja")["masks.ctl.editor_help"]
    assert "click on a cell toggles" not in en and "tick box toggles" in en
    assert "セルを 1 回クリックすると切りかわ" not in ja and "チェックボックスを 1 回クリックすると切りかわ" in ja
