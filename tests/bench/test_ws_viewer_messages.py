"""bench/ws_viewer.py without a server: the widget messages it sends and how it reads a run's elements."""

import re

import pytest
from streamlit.proto.Element_pb2 import Element

from bench.ws_viewer import ProtocolViewer, RunResult, widget_state, widget_value


def _element(kind: str, **fields) -> Element:
    element = Element()
    proto = getattr(element, kind)
    for name, value in fields.items():
        if isinstance(value, list):
            getattr(proto, name).extend(value)
        else:
            setattr(proto, name, value)
    return element


def test_each_widget_kind_sends_the_field_streamlits_frontend_sets():
    slider = _element("slider", id="$$ID-1-_tco_u", default=[0.05], value=[0.6], set_value=True).slider
    assert list(widget_state(slider, [0.55]).double_array_value.data) == [0.55]
    toggle = _element("checkbox", id="$$ID-2-prov_eu", default=False).checkbox
    state = widget_state(toggle, True)
    assert state.WhichOneof("value") == "bool_value" and state.bool_value is True and state.id == "$$ID-2-prov_eu"
    whole = _element("number_input", id="$$ID-3-gpus", default=1).number_input
    whole.data_type = whole.INT
    state = widget_state(whole, 128)
    assert state.WhichOneof("value") == "int_value" and state.int_value == 128
    money = _element("number_input", id="$$ID-4-maxprice").number_input
    money.data_type = money.FLOAT
    state = widget_state(money, 0.3)
    assert state.WhichOneof("value") == "double_value" and state.double_value == 0.3
    button = _element("button", id="$$ID-5-prov_clear").button
    assert widget_state(button, None).trigger_value is True
    with pytest.raises(NotImplementedError, match="Selectbox"):
        widget_state(_element("selectbox", id="$$ID-6-x").selectbox, "a")


def test_a_widget_shows_the_sessions_value_when_the_server_sent_one_else_its_default():
    assert widget_value(_element("slider", id="a", default=[0.05], value=[0.6], set_value=True).slider) == [0.6]
    assert widget_value(_element("slider", id="a", default=[0.05], value=[0.6]).slider) == [0.05]
    assert widget_value(_element("number_input", id="b", default=16).number_input) == 16


def test_a_run_is_read_as_text_widgets_charts_and_exceptions():
    result = RunResult(seconds=0.1, page="providers")
    for element in (_element("markdown", body="**36 offers** from 6 providers · prices in EUR"),
                    _element("metric", label="Providers", body="30"),
                    _element("checkbox", id="$$ID-9f-prov_eu", default=True),
                    _element("plotly_chart", id="$$ID-77-prov_landscape", spec='{"data": []}'),
                    _element("exception", type="ValueError", message="boom")):
        ProtocolViewer._read_element(element, result)
    assert result.text(re.compile(r"^(\d+) offers from (\d+) providers")) == \
        "36 offers from 6 providers · prices in EUR"  # Markdown's ** markers are not part of what a user reads
    assert result.text(re.compile(r"^Providers: 30$")) is not None
    assert result.text(re.compile("nothing like this")) is None
    assert result.widget("prov_eu").id == "$$ID-9f-prov_eu"
    with pytest.raises(KeyError, match="eu"):
        result.widget("eu")  # a key is matched whole, not as any suffix of the id
    assert result.chart("prov_landscape") == '{"data": []}'
    assert result.exceptions == ["ValueError: boom"]
