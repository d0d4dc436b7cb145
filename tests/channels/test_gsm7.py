"""SMS arithmetic against the GSM 03.38 table and the carriers' segment sizes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.channels.sms.gsm7 import GSM7_BASIC, GSM7_EXTENDED, is_gsm7, segments, sms_size, to_gsm7


def test_the_table_is_gsm_03_38():
    assert len(GSM7_BASIC) == 127  # 128 positions, the escape left out
    assert len(GSM7_EXTENDED) == 10
    # Italian: all lower-case accented vowels are there, capitals only É.
    assert set("àèéìòù") <= GSM7_BASIC
    assert "É" in GSM7_BASIC
    assert not set("ÀÈÌÒÙ") & GSM7_BASIC
    # Spanish: ñ Ñ ¿ ¡ é ü are there; á í ó ú are not.
    assert set("ñÑ¿¡éü") <= GSM7_BASIC
    assert not set("áíóú") & GSM7_BASIC
    assert "`" not in GSM7_BASIC and "€" in GSM7_EXTENDED


def test_sizes_at_the_boundaries():
    assert sms_size("a" * 160) == sms_size("a" * 160).__class__("GSM-7", 160, 1)
    assert segments("a" * 161) == 2
    assert segments("a" * 306) == 2
    assert segments("a" * 307) == 3
    assert sms_size("€" * 80).units == 160 and segments("€" * 80) == 1
    assert segments("€" * 81) == 2
    assert sms_size("ä" * 70).encoding == "GSM-7"
    assert segments("😀" + "a" * 69) == 2  # an emoji is two UTF-16 units
    assert sms_size("ш" * 70) == sms_size("ш" * 70).__class__("UCS-2", 70, 1)
    assert segments("ш" * 71) == 2
    assert segments("ш" * 134) == 2
    assert segments("ш" * 135) == 3
    assert segments("") == 1


def test_an_escape_pair_is_never_split():
    # 152 plain characters then a two-septet one: it does not fit in part one's last septet.
    text = "a" * 152 + "€" + "a" * 10
    assert sms_size(text).units == 164
    assert segments(text) == 2
    assert segments("a" * 152 + "€" + "a" * 152) == 3


def test_one_curly_quote_makes_ucs2_and_to_gsm7_undoes_it():
    text = "È l’alba: “Bob” è stato sbranato… — il lupo"
    assert sms_size(text).encoding == "UCS-2"
    plain = to_gsm7(text)
    assert plain == "E' l'alba: \"Bob\" è stato sbranato... - il lupo"
    assert is_gsm7(plain)


def test_to_gsm7_keeps_what_gsm7_has_and_what_has_no_equivalent():
    assert to_gsm7("però così perché più già") == "però così perché più già"
    assert to_gsm7("¿Quién votó? Ángel, Íñigo") == "¿Quién voto? Angel, Iñigo"
    assert to_gsm7("Ciao 🐺") == "Ciao 🐺"
    assert to_gsm7("a\u00a0b\u200bc") == "a bc"
    assert to_gsm7("cafe\u0301") == "café"  # decomposed input is composed first


@given(st.text(max_size=400))
def test_to_gsm7_never_makes_things_worse(text):
    plain = to_gsm7(text)
    assert to_gsm7(plain) == plain
    if is_gsm7(text):
        assert plain == text


TYPOGRAPHY = "‘’“”«»–—…\u00a0ÀÈÌÒÙáíóúâêîôûçÁÍÓÚ"


@given(st.text(alphabet=st.sampled_from(sorted(GSM7_BASIC | GSM7_EXTENDED) + list(TYPOGRAPHY)), max_size=300))
def test_typography_and_romance_accents_always_end_in_gsm7(text):
    assert is_gsm7(to_gsm7(text))
