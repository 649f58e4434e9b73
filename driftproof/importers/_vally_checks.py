"""A Vally verdict's figures checked against one another (results schema 4 or 5).

The identities are the adapter contract's (``eng/vally-adapter/InvestigatingResults.md``):
``wins + ties + losses`` is ``stimulusVoteCount``; the sign test counts the same votes, its
``discordant`` the wins and losses; ``netWin`` is ``(wins - losses) / stimulusVoteCount``; and
``passed`` (the gate) is true only with ``state`` ``VALID_PASS``, at least 5 stimuli counted,
``signTest.pValue`` at most 0.05 and ``netWin`` at least 0.20; a comparison that did not
complete (``conclusive: false``) or left ``errors[]`` unresolved is ``INVALID_INCONCLUSIVE``. A
verdict whose figures break one is refused, so no receipt seals a figure its own file
contradicts (fail closed).
"""

from __future__ import annotations

from typing import Any

from driftproof.importers._common import Where, same_derived

#: The gate's floors: distinct stimuli, largest p value, smallest net win.
_MIN_STIMULI, _ALPHA, _MIN_NET_WIN = 5, 0.05, 0.20


def check_verdict(v: dict[str, Any], vw: Where) -> None:
    """Refuse a verdict whose tallies, net win or gate contradict one another.

    Args:
        v: the verdict object (``verdicts[i]``); absent or null members are not compared.
        vw: its place in the file.

    Raises:
        ImportError_: at the member that disagrees, naming what the others make it.
    """
    tally = {k: vw.number(v, k, low=0, count=True) for k in ("wins", "ties", "losses")}
    votes = vw.number(v, "stimulusVoteCount", low=0, count=True)
    known = [n for n in tally.values() if n is not None]
    if votes is not None and len(known) == 3 and sum(known) != votes:
        raise (vw / "stimulusVoteCount").fail(
            f"expected {sum(known):g}, the verdict's wins, ties and losses added up, found "
            f"{votes:g}: the verdict contradicts itself"
        )
    sign = v.get("signTest") if isinstance(v.get("signTest"), dict) else {}
    sw = vw / "signTest"
    for key, own in tally.items():
        theirs = sw.number(sign, key, low=0, count=True)
        if own is not None and theirs is not None and theirs != own:
            raise (sw / key).fail(
                f"expected {own:g}, the verdict's own {key} (the sign test counts the same "
                f"stimulus votes), found {theirs:g}: the verdict contradicts itself"
            )
    wins, losses = tally["wins"], tally["losses"]
    discordant = sw.number(sign, "discordant", low=0, count=True)
    if discordant is not None and wins is not None and losses is not None:
        if discordant != wins + losses:
            raise (sw / "discordant").fail(
                f"expected {wins + losses:g}, the wins and losses (ties are not discordant), "
                f"found {discordant:g}: the verdict contradicts itself"
            )
    net = vw.number(v, "netWin", low=-1, high=1)
    if votes and wins is not None and losses is not None:
        what = "(wins - losses) / stimulusVoteCount"
        same_derived(net, (wins - losses) / votes, vw / "netWin", what, "verdict")
    _check_gate(v, vw, votes, net, sw.number(sign, "pValue", low=0, high=1))


def _check_gate(
    v: dict[str, Any], vw: Where, votes: float | None, net: float | None, p: float | None
) -> None:
    """Refuse a valid state beside an incomplete comparison, and a contradicted ``passed``.

    ``passed`` is contradicted by its state, vote count, p value or net win.
    """
    passed, state = v.get("passed"), v.get("state")
    unresolved = v.get("errors")
    for member, incomplete, what in (
        (
            "conclusive",
            v.get("conclusive") is False,
            "conclusive false (the comparison did not complete)",
        ),
        (
            "errors",
            isinstance(unresolved, list) and bool(unresolved),
            "unresolved comparison errors",
        ),
    ):
        if incomplete and state != "INVALID_INCONCLUSIVE":
            raise (vw / member).fail(
                f"expected the state INVALID_INCONCLUSIVE beside {what}, found {state!r}: the "
                "verdict contradicts itself"
            )
    if passed is False and state == "VALID_PASS":
        raise (vw / "passed").fail(
            "expected true, as the verdict's state is VALID_PASS, found false: the verdict "
            "contradicts itself"
        )
    if passed is not True:
        return
    unmet = []
    if state != "VALID_PASS":
        unmet.append(f"its state is {state!r}, not 'VALID_PASS'")
    if votes is not None and votes < _MIN_STIMULI:
        unmet.append(f"it counts {votes:g} stimuli, fewer than {_MIN_STIMULI}")
    if p is not None and p > _ALPHA:
        unmet.append(f"its sign test p value {p:.6g} is above {_ALPHA}")
    if net is not None and net < _MIN_NET_WIN:
        unmet.append(f"its net win {net:.6g} is below {_MIN_NET_WIN}")
    if unmet:
        raise (vw / "passed").fail(
            "expected false, as " + "; ".join(unmet) + " (the source passes a verdict only "
            "with state VALID_PASS, at least 5 stimuli, p at most 0.05 and net win at least "
            "0.20), found true: the verdict contradicts itself"
        )
