"""Words the Action's job summary cuts short, marked as cut and given whole in a fold at its end."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

from driftproof.render.escape import cut_plain, md_escape, terminal_safe

#: The fold at the summary's end that holds the words cut above, whole.
IN_FULL = "In full: the words cut short above"
#: What a cut text says after its "…".
CUT_MARK = f"(cut short: whole under “{IN_FULL}” at the end)"
#: The brackets and quote marks a cut closes, opener to closer. A single quote mark is left
#: alone: the same character is an apostrophe.
_PAIRS = {"(": ")", "[": "]", "{": "}", "“": "”", "«": "»", '"': '"'}
#: Bytes a fold needs with no text in it: its summary line, its end and its closing line.
FOLD_RESERVE = 700


@dataclass
class CutWords:
    """The texts cut so far, each ``(label, text)`` in the order they were cut."""

    cut: list[tuple[str, str]] = field(default_factory=list)

    def md(self, label: str, text: object, limit: int) -> str:
        """``text`` as :func:`md_escape` gives it at ``limit``; when cut, marked and kept whole.

        Args:
            label: what the text is (a case, a side), shown before it in the fold.
            text: untrusted text.
            limit: characters shown in place.
        """
        if _length(text) <= limit:
            return md_escape(text, limit)
        self.cut.append((label, str(text)))
        shown = cut_plain(text, limit)
        shown += closers(shown)  # never a bracket or quote left open before the mark
        return md_escape(shown, len(shown)) + " " + md_escape(CUT_MARK, len(CUT_MARK))

    def fold(self, max_bytes: int, whole_text: str) -> str:
        """The fold of the cut texts, whole, in at most ``max_bytes`` UTF-8 bytes; ``""`` if none.

        A text that does not fit is left out and counted in a closing line that names
        ``whole_text`` (where the reader finds it whole); with ``max_bytes`` under
        :data:`FOLD_RESERVE` the fold holds that line alone (and may exceed ``max_bytes``).
        Never raises.
        """
        if not self.cut:
            return ""
        lines = [
            f"- {md_escape(label)}: {md_escape(text, _length(text))}\n" for label, text in self.cut
        ]
        # the fold always holds its closing line (a caller keeps room for it: FOLD_RESERVE)
        room = max_bytes - FOLD_RESERVE
        sizes = accumulate(len(line.encode()) for line in lines)
        shown = [line for line, size in zip(lines, sizes, strict=True) if size <= room]
        more = len(lines) - len(shown)
        if more:
            shown.append(
                f"- {more} more not shown: a job summary is limited to 1 MiB. "
                f"{md_escape(whole_text, 300)}\n"
            )
        return f"\n<details><summary>{IN_FULL}</summary>\n\n{''.join(shown)}\n</details>\n"


def _length(text: object) -> int:
    """The characters of ``text`` as :func:`md_escape` counts them against its limit."""
    return len(terminal_safe(" ".join(str(text).split())))


def closers(shown: str) -> str:
    """What closes the brackets and quote marks ``shown`` leaves open, innermost first.

    ``'a (b “c …'`` gives ``'”)'``. A closer closes the nearest open bracket it matches (those
    opened after it inside are taken as closed); a closer with no opener is ignored. A straight
    double quote closes an open one when it is the innermost, else opens one. Never raises.
    """
    open_: list[str] = []
    for ch in shown:
        if ch == '"' and open_ and open_[-1] == '"':
            open_.pop()
        elif ch in _PAIRS:
            open_.append(ch)
        elif ch in _PAIRS.values() and any(_PAIRS[o] == ch for o in open_):
            while _PAIRS[open_.pop()] != ch:
                pass
    return "".join(_PAIRS[o] for o in reversed(open_))
