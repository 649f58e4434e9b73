"""run's summary names what it counts: draws judged (not all still graded in the receipt) and
the skill's size at four characters a token (not the o200k_base count a lost draw quotes).

Found: after two draws were judged and then lost at sealing as prompt dropped, the summary said
"over 12 graded draws" beside a receipt of 10 graded, and "skill 1,919 tokens" beside a lost
reason's "1,585 o200k_base tokens", with nothing to tell the two measures apart.
"""

from __future__ import annotations

from factories import case, make_receipt
from render.test_run_summary import _printed


def test_judged_draws_lost_at_sealing_are_counted_as_judged_and_the_size_named():
    # 2 with-skill draws scored and 1 lost after it was judged: 3 judged, 2 + 1 graded per arm
    overhead = {"input_tokens": 300, "output_tokens": 30, "usd": None}
    overhead |= {"judged_draws_counted": 4, "judged_draws_missing_usage": 0}
    doc = make_receipt(
        [case("c1", [0.6, 0.7, None], [0.4])], judge_overhead=overhead, skill_text="y" * 7676
    )
    text = " ".join(_printed(doc).split())
    assert "(300 in, 30 out tokens over 4 judged draws)" in text
    assert "graded draw" not in text
    # 7,676 characters ÷ 4 = 1,919
    assert "(skill 1,919 tokens at four characters a token);" in text
