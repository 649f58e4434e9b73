"""``run --batch``: a read is judged against what the batch's counts say each part of its results
holds."""

from __future__ import annotations

import batch_fake_state
from batch_runs import batched, draws

from driftproof.receipt import read_receipt


def test_an_openai_output_file_short_of_its_completed_count_is_read_again(
    fake, tmp_path, monkeypatch
):
    # the answers' batch: 2 of its 6 first attempts expire, their 2 error file lines left out of
    # its failed count (0); it counts 4 completed. The first read of its output file leaves out
    # 2 of its 4 lines: with the error file's 2 the two files held 4 lines, as many as 4
    # completed + 0 failed, and the 2 answers left out were sent again, paid twice. The API
    # reference puts the completed requests' outputs in the output file: 2 lines where it
    # counts 4 is a read cut short, read again at the next poll; each answer is sent once,
    # the 2 that expired once more (36 + 2)
    s = fake.script
    s.fault = lambda cid: "expired" if cid in ("a0-1-0", "a1-1-0") else None
    s.short_results = 1  # the first read: the answers' output file
    doc = batch_fake_state.FakeState.openai_doc

    def expired_not_failed(self, b):  # type: ignore[no-untyped-def]
        d = doc(self, b)
        return d | {"request_counts": d["request_counts"] | {"failed": 0}}

    monkeypatch.setattr(batch_fake_state.FakeState, "openai_doc", expired_not_failed)
    r = read_receipt(batched(tmp_path, "openai", cases=1))
    assert len(s.submitted) == len(set(s.submitted)) == 36 + 2 == r.run.endpoint_attempts
    expired = (
        "batch batch_000002: batch_expired: This request could not be executed before the "
        "completion window expired."
    )
    errors = {
        f"a{c}-{k}": [a.error for a in d.attempts]
        for c, arm in enumerate(("with_skill", "baseline"))
        for k, (_, d) in enumerate(draws(r, arm))
    }
    assert errors == {
        "a0-0": [],
        "a0-1": [expired],
        "a0-2": [],
        "a1-0": [],
        "a1-1": [expired],
        "a1-2": [],
    }
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))
