"""The fuzz suite's Hypothesis profiles, and the per-target input counts printed at the end.

Two profiles are registered here; `fuzzing.fuzz_target` gives each target the settings of the
active one with the target's own `max_examples` (`fuzzing.BUDGETS`):

- `ci` (the default, for every plain `python -m pytest`): a few hundred inputs per target, the
  whole suite in about a minute;
- `long` (`CHATASSERT_FUZZ=long python -m pytest tests/fuzz`): more than a million inputs in
  all.

The profiles are not loaded globally, so the property tests elsewhere in `tests/` keep their
own settings. The counts of inputs per target are printed after the run with
`--hypothesis-show-statistics` (or `-v`, or under the long profile); otherwise one line sums
them up.
"""

from __future__ import annotations

from typing import Any

from fuzzing import BUDGETS, COUNTS, FINDINGS, INPUT_SECONDS, PROFILE, SECONDS, TRIAGE
from hypothesis import HealthCheck, settings

_COMMON: dict[str, Any] = {
    # one input may legitimately take a while (a subprocess, a loopback round trip);
    # `fuzz_target`'s own time limit catches hangs instead
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
}

settings.register_profile("ci", max_examples=200, **_COMMON)
settings.register_profile("long", max_examples=50_000, **_COMMON)


def pytest_report_header(config: Any) -> str:
    """Say which fuzz profile is active, in the session header."""
    total = sum(b[0] if PROFILE == "ci" else b[1] for b in BUDGETS.values())
    return (
        f"chatassert fuzz profile: {PROFILE} ({len(BUDGETS)} targets, up to {total:,} inputs, "
        f"{INPUT_SECONDS:g} s of CPU per input)"
    )


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    """Print the inputs run per fuzz target (all of them, or one line in a quiet ci run)."""
    if FINDINGS or TRIAGE:
        _print_findings(terminalreporter)
    if not COUNTS:
        return
    total = sum(COUNTS.values())
    seconds = sum(SECONDS.values())
    detailed = (
        PROFILE == "long"
        or config.getoption("verbose") > 0
        or config.getoption("hypothesis_show_statistics", default=False)
    )
    write = terminalreporter.write_line
    if not detailed:
        write(
            f"fuzz ({PROFILE} profile): {total:,} inputs over {len(COUNTS)} targets "
            f"in {seconds:.1f} s"
        )
        return
    terminalreporter.section(f"fuzz inputs per target ({PROFILE} profile)")
    write(f"{'target':<24}{'inputs':>12}{'budget':>12}{'seconds':>10}")
    for name in sorted(COUNTS):
        budget = BUDGETS[name][0 if PROFILE == "ci" else 1]
        write(f"{name:<24}{COUNTS[name]:>12,}{budget:>12,}{SECONDS[name]:>10.1f}")
    write(f"{'total':<24}{total:>12,}{'':>12}{seconds:>10.1f}")


def _print_findings(terminalreporter: Any) -> None:
    write = terminalreporter.write_line
    terminalreporter.section(f"fuzz triage: {len(FINDINGS)} distinct findings")
    for finding in sorted(FINDINGS.values(), key=lambda f: (f.target, f.frame)):
        write(f"[{finding.target}] {finding.error}  ({finding.count} inputs)")
        write(f"    raised at {finding.frame}")
        write(f"    smallest input: {finding.example[:600]}")
