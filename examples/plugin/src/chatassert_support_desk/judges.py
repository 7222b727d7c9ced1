"""The judge: the desk's house rules, graded on this machine, with no model and no network.

A stand-in for a team's own judge (a local model, a company gateway): it grades a rubric by
the phrases it quotes. The reply passes when it holds every phrase the rubric puts in double
quotes; its score is the share it holds. A rubric that quotes nothing cannot be graded this
way: the judge raises `JudgeError`, and the judged check is an `error`, never a pass.

```yaml
- type: llm_rubric
  value: 'Apologises ("sorry") and gives the "tracking number"'
```
"""

from __future__ import annotations

import re

from chatassert.errors import JudgeError
from chatassert.judges import JudgeRequest, Verdict

__all__ = ["HouseRulesJudge", "house_rules"]

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


class HouseRulesJudge:
    """A judge that passes a reply holding every phrase its rubric quotes.

    Attributes:
        name: `house-rules`, as results and reports name the judge.
        case_sensitive: Whether a phrase must be found with its case.
    """

    def __init__(self, *, case_sensitive: bool = False) -> None:
        self.name = "house-rules"
        self.case_sensitive = case_sensitive

    async def judge(self, request: JudgeRequest) -> Verdict:
        """Grade the reply of `request` by the phrases its criteria quote.

        Raises:
            JudgeError: when the criteria quote no phrase.
        """
        phrases = [a or b for a, b in _QUOTED.findall(request.criteria)]
        if not phrases:
            raise JudgeError(
                f"the house-rules judge grades a rubric by the phrases it quotes, and "
                f"{request.criteria!r} quotes none: put the words the reply must hold in "
                'double quotes ("tracking number")'
            )
        reply = request.response if self.case_sensitive else request.response.lower()
        missing = [p for p in phrases if (p if self.case_sensitive else p.lower()) not in reply]
        held = len(phrases) - len(missing)
        reason = (
            f"holds all {len(phrases)} quoted phrases"
            if not missing
            else f"does not hold {', '.join(repr(p) for p in missing)}"
        )
        return Verdict(not missing, held / len(phrases), reason, raw={"missing": missing})


def house_rules(model: str | None = None, **options: str) -> HouseRulesJudge:
    """Make the house-rules judge, as `--judge house-rules` does.

    Args:
        model: Not used: the rules are local (a judge model set for another judge does no
            harm).
        options: `case`: `insensitive` (the default) or `sensitive`.

    Raises:
        ValueError: for an unknown option or value, naming the ones there are.
    """
    unknown = sorted(set(options) - {"case"})
    if unknown:
        raise ValueError(f"the house-rules judge has no option {unknown[0]!r}; its option: case")
    case = options.get("case", "insensitive")
    if case not in ("insensitive", "sensitive"):
        raise ValueError(
            f"the house-rules judge's case is 'insensitive' or 'sensitive', not {case!r}"
        )
    return HouseRulesJudge(case_sensitive=case == "sensitive")
