"""The link handed to a class (ui/share.py, issue 24 part 2): the address a phone can open, and the QR code, decoded
here with zxing-cpp (an independent decoder) and compared with the link."""
from __future__ import annotations

import io

import pytest
import zxingcpp
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from ui.share import MAX_QR_VERSION, class_url, qr_png, qr_version, shorter_params


def decode(png: bytes) -> str:
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("L"))
    assert len(found) == 1 and found[0].format == zxingcpp.BarcodeFormat.QRCode, found
    return found[0].text


@pytest.mark.parametrize("url, bound, ip, want", [
    ("http://localhost:8501/qkv", None, "192.168.1.20", ("http://192.168.1.20:8501/qkv", "share.network")),
    ("http://127.0.0.1:8501/", "", "10.0.0.7", ("http://10.0.0.7:8501/", "share.network")),
    ("http://localhost:8501/qkv", "0.0.0.0", "10.0.0.7", ("http://10.0.0.7:8501/qkv", "share.network")),
    ("http://[::1]:8501/masks", None, "fe80::2", ("http://[fe80::2]:8501/masks", "share.network")),
    ("http://localhost/qkv", None, "10.0.0.7", ("http://10.0.0.7/qkv", "share.network")),  # no port: none added
    # the server listens on loopback only, or no network address is known: the link stays, and says so
    ("http://127.0.0.1:8501/qkv", "127.0.0.1", "10.0.0.7", ("http://127.0.0.1:8501/qkv", "share.local_only")),
    ("http://localhost:8501/qkv", None, None, ("http://localhost:8501/qkv", "share.local_only")),
    # a real host name or a network address: handed out as it is
    ("https://lab.example.org/app/qkv", None, "10.0.0.7", ("https://lab.example.org/app/qkv", None)),
    ("http://192.168.1.20:8501/qkv", None, "192.168.1.20", ("http://192.168.1.20:8501/qkv", None)),
    ("http://[bad", None, "10.0.0.7", ("http://[bad", None)),  # does not parse: kept, never raises
])
def test_the_address_a_class_can_open(url, bound, ip, want):
    got, note, args = class_url(url, bound, ip)
    assert (got, note) == want
    assert args == ({"host": ip} if note == "share.network" else {})


def test_a_qkv_link_round_trips_through_the_qr_code():
    link = ("http://192.168.1.20:8501/qkv?lang=ja&qkv=2&p=dog&dk=6&W_Q=4x5%3A1%2C2%2C0%2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C0"
            "%2C0%2C1%2C0%2C0%2C0%2C0%2C0%2C1%2C0&t=%E7%8A%AC%E3%81%8C%E6%AD%A9%E3%81%8F")
    assert decode(qr_png(link)) == link


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=900))
def test_any_link_up_to_900_characters_decodes_to_itself(tail):
    link = "http://10.0.0.7:8501/qkv?" + tail
    png = qr_png(link)
    assert png is not None and qr_version(link) <= MAX_QR_VERSION  # ~950 characters fit version 25 (M)
    assert decode(png) == link


def test_a_link_too_long_for_a_readable_code_gives_none():
    link = "http://10.0.0.7:8501/qkv?" + "a" * 1000
    assert qr_version(link) > MAX_QR_VERSION and qr_png(link) is None
    assert qr_png("x" * 5000) is None  # past version 40: no code at all, no error


def test_the_shorter_link_leaves_out_the_typed_cells_only():
    params = {"lang": "ja", "qkv": "2", "dk": "6", "W_Q": "4x5:1,2", "X": "3x4:0", "cell": "W_Q.0.1"}
    assert shorter_params(params, {"W_Q", "X", "W_K", "cell"}) == {"lang": "ja", "qkv": "2", "dk": "6"}
    assert list(shorter_params(params, ())) == list(params)  # nothing left out: the same link, same order
